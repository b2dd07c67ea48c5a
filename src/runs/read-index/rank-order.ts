/**
 * One sort's order of the index's live slots, kept exact while runs change without
 * re-sorting a million slots per write: a sorted main array (positions of removed or
 * changed runs are marked stale in place and skipped) plus a short sorted list of the
 * runs placed since. Walks merge the two; when the list grows long, one linear merge folds
 * it into a new main array.
 */

import { forEachBit, hasBit, setBit, wordsFor } from './slot-sets.ts';

/** Compares two slots: negative when `a` ranks first. Never 0 for distinct slots. */
export type SlotCompare = (a: number, b: number) => number;

/** A removed or moved run's old place in the main array. */
const STALE = -1;

/** Positions sampled to estimate how far a walk goes. */
const REACH_SAMPLES = 16;

/** Pending runs fold into the main array past this many. */
const MAX_PENDING = 1024;

/**
 * The main array in blocks of 2^BLOCK_SHIFT positions: per facet value, a bit per block
 * saying whether any of the value's runs sits there, so a filtered walk skips the blocks
 * that hold none (a large model's runs, ranked last by speed, start where its blocks do).
 */
const BLOCK_SHIFT = 8;
const BLOCK = 1 << BLOCK_SHIFT;
/** Facets with more values than this get no block maps (a bit per block per value would cost more than it saves). */
const MAX_BLOCK_MAPPED_VALUES = 8192;
/**
 * How many of a value's runs a walk of its own order may expect to pass per run of the page
 * (`RunIndex`'s `pageFromValueOrder`); a value holding more than one run in this many gets no
 * positions of its own (`valuePositions`).
 */
export const VALUE_WALK_RUNS_PER_MATCH = 16;

export class RankOrder {
  /** Main array: slots in rank order; a stale position holds -1, so a walk reads it in sequence, never `position`. */
  private perm: Int32Array = new Int32Array(0);
  /** A slot's position in `perm`, or -1 (not there: pending, dead, or never added). */
  private position: Int32Array = new Int32Array(0);
  /** Slots placed since the main array was made, in rank order. */
  private pending: number[] = [];
  private readonly isPending = new Set<number>();
  private stale = 0;
  /** Scratch for `walkAmong`: a bit per main-array position, all clear between calls. */
  private marks: Uint32Array = new Uint32Array(0);
  /** Per facet (keyed by its owner's object), each value code's blocks of the main array; made on first use, dropped with the main array. */
  private readonly blockMaps = new Map<object, Uint32Array[]>();
  /** Per facet, each value code's main-array positions in rank order (`valuePositions`); made on first use, dropped with the main array. */
  private readonly valueRuns = new Map<object, { starts: Int32Array; positions: Int32Array; common: Uint8Array }>();

  constructor(private readonly compare: SlotCompare) {}

  /** Makes the main array from the live slots (sorted here unless given in rank order). */
  rebuild(slotCount: number, isLive: (slot: number) => boolean, sorted?: Int32Array): void {
    let perm = sorted;
    if (!perm) {
      const live: number[] = [];
      for (let slot = 0; slot < slotCount; slot += 1) if (isLive(slot)) live.push(slot);
      perm = Int32Array.from(live).sort(this.compare);
    }
    this.perm = perm;
    this.position = new Int32Array(Math.max(slotCount, this.position.length)).fill(-1);
    for (let i = 0; i < perm.length; i += 1) this.position[perm[i]!] = i;
    this.pending = [];
    this.isPending.clear();
    this.stale = 0;
    this.blockMaps.clear();
    this.valueRuns.clear();
  }

  /**
   * The main-array positions of the runs whose code (in `column`, by slot) is `code`, in
   * rank order: the value's own order, so a page filtered on it is its first entries
   * (`walkPositions`), not a walk past every faster run. Made for all of a facet's values
   * in one pass over the main array on first use; null when the facet has too many values,
   * or for a common value (more than 1 in VALUE_WALK_RUNS_PER_MATCH of the runs when made):
   * a walk of the whole order passes fewer runs than that per run of it anyway, and the
   * positions of a facet's common values cost 4 bytes a run (a few-valued facet, 4 MB an
   * order at a million runs, all of it for nothing).
   * Stays right while runs change for the reason `blocksWith` gives (pending runs are merged in by the walk).
   */
  valuePositions(facet: object, column: ArrayLike<number>, valueCount: number, code: number): Int32Array | null {
    if (valueCount > MAX_BLOCK_MAPPED_VALUES) return null;
    let runs = this.valueRuns.get(facet);
    if (!runs) {
      const perm = this.perm;
      const counts = new Int32Array(valueCount);
      for (let i = 0; i < perm.length; i += 1) {
        const code = perm[i] === STALE ? -1 : column[perm[i]!]!;
        if (code >= 0 && code < valueCount) counts[code]! += 1;
      }
      const common = new Uint8Array(valueCount);
      const starts = new Int32Array(valueCount + 1);
      for (let c = 0; c < valueCount; c += 1) {
        common[c] = counts[c]! * VALUE_WALK_RUNS_PER_MATCH > perm.length ? 1 : 0;
        starts[c + 1] = starts[c]! + (common[c] ? 0 : counts[c]!);
      }
      const positions = new Int32Array(starts[valueCount]!);
      const next = starts.slice(0, valueCount);
      for (let i = 0; i < perm.length; i += 1) {
        const code = perm[i] === STALE ? -1 : column[perm[i]!]!;
        if (code >= 0 && code < valueCount && !common[code]) positions[next[code]!++] = i;
      }
      runs = { starts, positions, common };
      this.valueRuns.set(facet, runs);
    }
    // A code made after the positions holds pending runs only.
    if (code + 1 >= runs.starts.length) return new Int32Array(0);
    if (runs.common[code]) return null;
    return runs.positions.subarray(runs.starts[code]!, runs.starts[code + 1]!);
  }

  /**
   * Visits, in rank order, the live runs at these main-array positions (ascending) and the
   * pending runs, each only when `admits` it, until `visit` returns false.
   */
  walkPositions(positions: Int32Array, admits: (slot: number) => boolean, visit: (slot: number) => boolean): void {
    const { perm, pending, compare } = this;
    let j = 0;
    for (let k = 0; k < positions.length; k += 1) {
      const slot = perm[positions[k]!]!;
      if (slot === STALE) continue;
      while (j < pending.length && compare(pending[j]!, slot) < 0) {
        const placed = pending[j++]!;
        if (admits(placed) && !visit(placed)) return;
      }
      if (admits(slot) && !visit(slot)) return;
    }
    for (; j < pending.length; j += 1) if (admits(pending[j]!) && !visit(pending[j]!)) return;
  }

  /**
   * The blocks of the main array holding a run whose code (in `column`, by slot) is one of
   * `codes`, a bit per block; null when the facet has too many values to map. A superset
   * stays right while runs change: a changed or removed run leaves its main position (it
   * goes stale, or pending), so no main position ever gains a value its block lacks, and a
   * code made after the map is held by pending runs only.
   */
  blocksWith(facet: object, column: ArrayLike<number>, valueCount: number, codes: readonly number[]): Uint32Array | null {
    if (valueCount > MAX_BLOCK_MAPPED_VALUES) return null;
    const words = wordsFor((this.perm.length + BLOCK - 1) >>> BLOCK_SHIFT);
    let maps = this.blockMaps.get(facet);
    if (!maps) {
      maps = Array.from({ length: valueCount }, () => new Uint32Array(words));
      const perm = this.perm;
      for (let i = 0; i < perm.length; i += 1) {
        const slot = perm[i]!;
        const code = slot === STALE ? -1 : column[slot]!;
        if (code >= 0 && code < valueCount) setBit(maps[code]!, i >>> BLOCK_SHIFT);
      }
      this.blockMaps.set(facet, maps);
    }
    const out = new Uint32Array(words);
    for (const code of codes) {
      const map = maps[code];
      if (map) for (let w = 0; w < words; w += 1) out[w]! |= map[w]!;
    }
    return out;
  }

  /** Room for slots below `slotCount`. */
  grow(slotCount: number): void {
    if (slotCount <= this.position.length) return;
    const next = new Int32Array(Math.max(slotCount, this.position.length * 2, 1024)).fill(-1);
    next.set(this.position);
    this.position = next;
  }

  /** Places a slot (new, or changed so that its rank may have moved). */
  add(slot: number): void {
    this.delete(slot);
    let lo = 0;
    let hi = this.pending.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.pending[mid]!, slot) < 0) lo = mid + 1;
      else hi = mid;
    }
    this.pending.splice(lo, 0, slot);
    this.isPending.add(slot);
    if (this.pending.length > MAX_PENDING) this.fold();
  }

  /** Takes a slot out (a removed run, or one about to be placed again). */
  delete(slot: number): void {
    const at = this.position[slot]!;
    if (at >= 0) {
      this.perm[at] = STALE;
      this.position[slot] = -1;
      this.stale += 1;
      if (this.stale > Math.max(MAX_PENDING, this.perm.length >>> 3)) this.fold();
    } else if (this.isPending.delete(slot)) {
      this.pending.splice(this.pending.indexOf(slot), 1);
    }
  }

  /** Visits the live slots in rank order until `visit` returns false. */
  walk(visit: (slot: number) => boolean | void): void {
    const { perm, pending, compare } = this;
    let j = 0;
    for (let i = 0; i < perm.length; i += 1) {
      const slot = perm[i]!;
      if (slot === STALE) continue;
      while (j < pending.length && compare(pending[j]!, slot) < 0) {
        if (visit(pending[j]!) === false) return;
        j += 1;
      }
      if (visit(slot) === false) return;
    }
    for (; j < pending.length; j += 1) if (visit(pending[j]!) === false) return;
  }

  /**
   * About how far down the order a walk goes to pass `count` of these slots (given in slot
   * order, so evenly spaced picks are a sample unrelated to rank): the `count / slots.length`
   * quantile of sampled positions, or, below the smallest sample, the runs from about
   * where the first sits at the density the samples show.
   */
  estimatedReach(slots: ArrayLike<number>, count: number): number {
    const sampled: number[] = [];
    const step = Math.max(1, Math.floor(slots.length / REACH_SAMPLES));
    for (let i = 0; i < slots.length && sampled.length < REACH_SAMPLES; i += step) {
      const at = this.position[slots[i]!]!;
      if (at >= 0) sampled.push(at);
    }
    if (sampled.length === 0) return this.perm.length;
    sampled.sort((a, b) => a - b);
    const n = sampled.length;
    const rank = Math.min(1, count / slots.length) * (n + 1);
    if (rank >= 1) return sampled[Math.min(n, Math.ceil(rank)) - 1]!;
    if (n === 1) return sampled[0]!;
    const gap = (sampled[n - 1]! - sampled[0]!) / (n - 1);
    return Math.max(0, sampled[0]! - gap) + (count * gap * n) / slots.length;
  }

  /**
   * `walk` over the slots set in `mask` only, testing the bits in the loop (no call per
   * slot passed over), skipping the main array's blocks that `blocks` (from `blocksWith`)
   * leaves clear. Gives up, answering false, when the positions looked at would pass
   * `budget`; answers true once `visit` returns false or the order ends.
   */
  walkMasked(mask: Uint32Array, visit: (slot: number) => boolean, budget: number, blocks: Uint32Array | null = null): boolean {
    const { perm, pending, compare } = this;
    let j = 0;
    let left = budget;
    for (let i = 0; i < perm.length; i += 1) {
      if (blocks && (i & (BLOCK - 1)) === 0 && !hasBit(blocks, i >>> BLOCK_SHIFT)) {
        i += BLOCK - 1;
        continue;
      }
      const slot = perm[i]!;
      if (slot === STALE) continue;
      while (j < pending.length && compare(pending[j]!, slot) < 0) {
        const placed = pending[j++]!;
        if ((left -= 1) < 0) return false;
        if (hasBit(mask, placed) && !visit(placed)) return true;
      }
      if ((left -= 1) < 0) return false;
      if (hasBit(mask, slot) && !visit(slot)) return true;
    }
    for (; j < pending.length; j += 1) {
      if ((left -= 1) < 0) return false;
      if (hasBit(mask, pending[j]!) && !visit(pending[j]!)) return true;
    }
    return true;
  }

  /**
   * Visits these live slots in rank order until `visit` returns false, at a cost that does
   * not depend on where in the order they sit: their positions are marked in a bitset over
   * the main array and read back in order (no comparison sort), pending ones merged in.
   */
  walkAmong(forEachSlot: (visit: (slot: number) => void) => void, visit: (slot: number) => boolean | void): void {
    const { perm, position, compare } = this;
    if (this.marks.length < wordsFor(perm.length)) this.marks = new Uint32Array(wordsFor(perm.length));
    const marks = this.marks;
    const placed: number[] = [];
    forEachSlot((slot) => {
      const at = position[slot]!;
      if (at >= 0) setBit(marks, at);
      else if (this.isPending.has(slot)) placed.push(slot);
    });
    placed.sort(compare);
    let j = 0;
    let stopped = false;
    forEachBit(marks, (at) => {
      const slot = perm[at]!;
      while (j < placed.length && compare(placed[j]!, slot) < 0) {
        if (visit(placed[j++]!) === false) return !(stopped = true);
      }
      if (visit(slot) === false) return !(stopped = true);
      return true;
    });
    if (!stopped) for (; j < placed.length; j += 1) if (visit(placed[j]!) === false) break;
    marks.fill(0);
  }

  /** These live slots in rank order (a few thousand: sorted by position, natively). */
  sort(slots: ArrayLike<number>): Int32Array {
    const positions: number[] = [];
    const placed: number[] = [];
    for (let i = 0; i < slots.length; i += 1) {
      const at = this.position[slots[i]!]!;
      if (at >= 0) positions.push(at);
      else placed.push(slots[i]!);
    }
    const main = Int32Array.from(positions).sort();
    for (let i = 0; i < main.length; i += 1) main[i] = this.perm[main[i]!]!;
    if (placed.length === 0) return main;
    placed.sort(this.compare);
    const out = new Int32Array(slots.length);
    let a = 0;
    let b = 0;
    for (let n = 0; n < out.length; n += 1) {
      out[n] = b >= placed.length || (a < main.length && this.compare(main[a]!, placed[b]!) < 0) ? main[a++]! : placed[b++]!;
    }
    return out;
  }

  /** Folds the pending slots into a new main array (one linear merge). */
  private fold(): void {
    const merged = new Int32Array(this.perm.length - this.stale + this.pending.length);
    let n = 0;
    this.walk((slot) => {
      merged[n++] = slot;
    });
    this.rebuild(this.position.length, () => false, merged.subarray(0, n));
  }
}
