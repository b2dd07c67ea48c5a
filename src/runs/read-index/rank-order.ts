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
  estimatedReach(slots: readonly number[], count: number): number {
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
   * slot passed over). Gives up, answering false, when the next live slot would be past
   * the first `budget`; answers true once `visit` returns false or the order ends.
   */
  walkMasked(mask: Uint32Array, visit: (slot: number) => boolean, budget: number): boolean {
    const { perm, pending, compare } = this;
    let j = 0;
    let left = budget;
    for (let i = 0; i < perm.length; i += 1) {
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
