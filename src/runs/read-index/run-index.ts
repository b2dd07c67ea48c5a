/**
 * The in-process read index of the approved speed-test runs (issue 15): every fact the
 * leaderboard and the results list filter on, dictionary-encoded per run, each value's
 * runs as a sorted slot list (rare values) or a bitset (common ones), and one rank order
 * per sort. A query compiles its filters to conditions over those sets: a rare one is
 * walked and the others tested per run; common ones are ANDed and counted a word at a
 * time. The page's runs come from walking the sort's order (or from sorting a few
 * thousand matches), the exact total from counting. Postgres stays the source of truth:
 * `build.ts` fills the index from it, `read-index.ts` keeps it fresh.
 */
import { containsSquashed } from '../../lib/search-tokens.ts';
import { RUN_FACT_NAMES, type CreatedWindow, type FactValue, type RunFactName, type Term } from '../facets.ts';
import { IdTable } from './id-table.ts';
import { RankOrder, VALUE_WALK_RUNS_PER_MATCH, type SlotCompare } from './rank-order.ts';
import { clearBit, countBits, fillBits, forEachBit, hasBit, resized, setBit, SlotList, wordsFor } from './slot-sets.ts';

export const INDEX_SORTS = ['tokSOut', 'tokSPrefill', 'ttftMs', 'tokPerWatt', 'tokPerDollar'] as const;
export type IndexSort = (typeof INDEX_SORTS)[number];
/** The rank orders: the leaderboard's sorts, and newest first for the results list. */
export type IndexOrder = IndexSort | 'newest';
/** Which way each sort ranks (as the SQL path: nulls last, then the earliest run, then the id). */
const DESCENDING: Record<IndexSort, boolean> = { tokSOut: true, tokSPrefill: true, ttftMs: false, tokPerWatt: true, tokPerDollar: true };

/** One approved run as the index keeps it: its id, created-at, sort keys, and every run fact (src/runs/facets.ts). */
export interface IndexedRun {
  id: string;
  /** Microseconds since the epoch (Postgres keeps microseconds; ties are broken on them). */
  createdAtUs: number;
  sortKeys: Record<IndexSort, number | null>;
  /** Every run fact, in `RUN_FACT_NAMES` order (src/runs/facets.ts): an array, so loading a million runs indexes by position. */
  facts: readonly (FactValue | null)[];
}

/** A query's page of slots and its exact total. */
export interface IndexAnswer {
  slots: number[];
  total: number;
  /**
   * With a window starting at a moment (`since`): the created-at (µs) of the oldest matching
   * run (Infinity when none match), the first to leave the window as the clock moves; else null.
   */
  oldestMatchUs: number | null;
}

export interface IndexQuery {
  /** What a run must meet (the facets' terms; the SQL path's twin is `applyTerms`). */
  terms: readonly Term[];
  order: IndexOrder;
  offset: number;
  limit: number;
  /** Each hardware profile's best run only (in this order). */
  bestPerHardware?: boolean;
}

/**
 * One fact of the runs: its distinct values (codes), each run's code, and each code's
 * runs as a slot list or, once common, a bitset.
 */
type CodeArray = Int8Array | Int16Array | Int32Array;
/** Code arrays as narrow as the facet's values allow (most facets have a few dozen): a million runs' class costs 1 MB, not 4. */
const CODE_WIDTHS = [
  { max: 127, make: (n: number) => new Int8Array(n) },
  { max: 32_767, make: (n: number) => new Int16Array(n) },
  { max: 2 ** 31 - 1, make: (n: number) => new Int32Array(n) },
] as const;

class Facet {
  readonly values: FactValue[] = [];
  private readonly codeOf = new Map<FactValue, number>();
  private width = 0;
  codes: CodeArray = new Int8Array(0);
  readonly lists: (SlotList | null)[] = [];
  readonly bits: (Uint32Array | null)[] = [];
  readonly counts: number[] = [];

  constructor(private readonly index: { readonly slotCount: number; readonly words: number }) {}

  /** The code of a value, or -1 when no run ever had it. */
  find(value: FactValue): number {
    return this.codeOf.get(value) ?? -1;
  }

  grow(capacity: number): void {
    if (capacity > this.codes.length) this.recode(capacity);
    const words = wordsFor(capacity);
    this.bits.forEach((bits, code) => bits && (this.bits[code] = resized(bits, words)));
  }

  /** A new code array of this length in the current width, holding the codes so far. */
  private recode(capacity: number): void {
    const next = CODE_WIDTHS[this.width]!.make(capacity).fill(-1);
    next.set(this.codes);
    this.codes = next;
  }

  set(slot: number, value: FactValue | null): void {
    const old = this.codes[slot]!;
    let code = -1;
    if (value !== null) {
      code = this.codeOf.get(value) ?? -1;
      if (code < 0) {
        if (this.values.length >= CODE_WIDTHS[this.width]!.max) {
          this.width += 1;
          this.recode(this.codes.length);
        }
        code = this.values.push(value) - 1;
        this.codeOf.set(value, code);
        this.lists.push(new SlotList());
        this.bits.push(null);
        this.counts.push(0);
      }
    }
    if (old === code) return;
    if (old >= 0) this.take(slot, old);
    this.codes[slot] = code;
    if (code >= 0) this.put(slot, code);
  }

  remove(slot: number): void {
    const old = this.codes[slot]!;
    if (old >= 0) this.take(slot, old);
    this.codes[slot] = -1;
  }

  private put(slot: number, code: number): void {
    this.counts[code]! += 1;
    const bits = this.bits[code];
    if (bits) return setBit(bits, slot);
    const list = this.lists[code]!;
    list.add(slot);
    // Common values become bitsets: ANDed and counted 32 runs at a time.
    if (list.length > Math.max(2048, this.index.slotCount >>> 6)) {
      const made = new Uint32Array(Math.max(this.index.words, wordsFor(this.codes.length)));
      for (let i = 0; i < list.length; i += 1) setBit(made, list.items[i]!);
      this.bits[code] = made;
      this.lists[code] = null;
    }
  }

  private take(slot: number, code: number): void {
    this.counts[code]! -= 1;
    const bits = this.bits[code];
    if (bits) clearBit(bits, slot);
    else this.lists[code]!.delete(slot);
  }
}

/** A compiled filter term: the runs it admits, sized, testable per run, and as a bitset. */
interface Condition {
  /** How many runs it admits (an upper bound for a window). */
  size: number;
  /** One facet value's own bitset when that is what it admits (exactly `size` runs): read, never written. */
  bits: Uint32Array | null;
  test(slot: number): boolean;
  forEach(visit: (slot: number) => void): void;
  /**
   * Keeps, in order, the first `count` of `slots` that it admits at the front of `slots`;
   * returns how many. The few-candidate path filters its candidates with it: one tight loop
   * per condition, where a call of `test` per candidate and condition took 4% of the app's
   * thread on the leaderboard mix (`npm run bench`).
   */
  keep(slots: Int32Array, count: number): number;
  /** Writes the bitset of the runs it admits (live ones only) into `out`. */
  intoBits(out: Uint32Array): void;
  /** Keeps in `mask` only the runs it admits (`scratch` is free to overwrite). */
  andInto(mask: Uint32Array, scratch: Uint32Array): void;
  /** The blocks of `order`'s main array that may hold a run it admits (`RankOrder.blocksWith`), or null: any may. */
  blocksIn(order: RankOrder): Uint32Array | null;
  /** When it admits one facet value: that value's main-array positions in `order` (`RankOrder.valuePositions`); else null. */
  positionsIn(order: RankOrder): Int32Array | null;
}

function facetCondition(facet: Facet, codes: number[]): Condition {
  const column = facet.codes;
  const single = codes.length === 1 ? codes[0]! : -1;
  const member = new Uint8Array(facet.values.length);
  for (const code of codes) member[code] = 1;
  return {
    size: codes.reduce((sum, code) => sum + facet.counts[code]!, 0),
    bits: single >= 0 ? (facet.bits[single] ?? null) : null,
    test: single >= 0 ? (slot) => column[slot] === single : (slot) => column[slot]! >= 0 && member[column[slot]!] === 1,
    keep(slots, count) {
      let kept = 0;
      if (single >= 0) {
        for (let i = 0; i < count; i += 1) if (column[slots[i]!] === single) slots[kept++] = slots[i]!;
      } else {
        for (let i = 0; i < count; i += 1) {
          const code = column[slots[i]!]!;
          if (code >= 0 && member[code] === 1) slots[kept++] = slots[i]!;
        }
      }
      return kept;
    },
    forEach(visit) {
      for (const code of codes) {
        const list = facet.lists[code];
        if (list) for (let i = 0; i < list.length; i += 1) visit(list.items[i]!);
        else forEachBit(facet.bits[code]!, visit);
      }
    },
    intoBits(out) {
      const own = single >= 0 ? facet.bits[single] : null;
      if (own) return out.set(own.subarray(0, out.length));
      out.fill(0);
      for (const code of codes) {
        const bits = facet.bits[code];
        if (bits) for (let i = 0; i < out.length; i += 1) out[i]! |= bits[i]!;
        else {
          const list = facet.lists[code]!;
          for (let i = 0; i < list.length; i += 1) setBit(out, list.items[i]!);
        }
      }
    },
    andInto(mask, scratch) {
      const bits = single >= 0 ? facet.bits[single] : null;
      if (bits) {
        for (let i = 0; i < mask.length; i += 1) mask[i]! &= bits[i]!;
        return;
      }
      this.intoBits(scratch);
      for (let i = 0; i < mask.length; i += 1) mask[i]! &= scratch[i]!;
    },
    blocksIn: (order) => order.blocksWith(facet, facet.codes, facet.values.length, codes),
    positionsIn: (order) => (single >= 0 ? order.valuePositions(facet, facet.codes, facet.values.length, single) : null),
  };
}

/** Two slots by a sort's value: nulls (NaN) last; 0 when the values tie. */
function compareValues(values: Float64Array, a: number, b: number, descending: boolean): number {
  const va = values[a]!;
  const vb = values[b]!;
  const na = Number.isNaN(va);
  const nb = Number.isNaN(vb);
  if (na !== nb) return na ? 1 : -1;
  if (na || va === vb) return 0;
  return va < vb === descending ? 1 : -1;
}

/** A float64's bits as two 32-bit words (little-endian: [low, high]), for `slotsByValue`. */
const floatBits = new Float64Array(1);
const floatWords = new Uint32Array(floatBits.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Slots (given ascending) in the order `compareValues` ranks them, ties by slot, by a
 * stable radix sort of each value's float64 bits made orderable as an unsigned 64-bit
 * number (four 16-bit passes, a pass skipped when every run has the same digit). A
 * comparator sort of a million slots took 0.4 s per order of the build; this, a tenth.
 */
export function slotsByValue(values: Float64Array, slots: readonly number[], descending: boolean): Int32Array {
  if (!LITTLE_ENDIAN) return Int32Array.from(slots).sort((a, b) => compareValues(values, a, b, descending) || a - b);
  const n = slots.length;
  let high = new Uint32Array(n);
  let low = new Uint32Array(n);
  let order = Int32Array.from(slots);
  for (let i = 0; i < n; i += 1) {
    const value = values[order[i]!]!;
    // Ascending keys in rank order: nulls (NaN) last; +0 so that a negated 0 does not sort apart as -0.
    floatBits[0] = Number.isNaN(value) ? Number.POSITIVE_INFINITY : (descending ? -value : value) + 0;
    const h = floatWords[1]!;
    // Negative floats order reversed as integers: flip them whole; positive ones, just the sign bit.
    high[i] = h & 0x80000000 ? ~h >>> 0 : (h | 0x80000000) >>> 0;
    low[i] = h & 0x80000000 ? ~floatWords[0]! >>> 0 : floatWords[0]!;
  }
  let nextHigh = new Uint32Array(n);
  let nextLow = new Uint32Array(n);
  let nextOrder = new Int32Array(n);
  const counts = new Uint32Array(65536);
  for (let pass = 0; pass < 4; pass += 1) {
    const words = pass < 2 ? low : high;
    const shift = pass % 2 === 0 ? 0 : 16;
    counts.fill(0);
    for (let i = 0; i < n; i += 1) counts[(words[i]! >>> shift) & 0xffff]! += 1;
    if (n === 0 || counts[(words[0]! >>> shift) & 0xffff] === n) continue;
    let sum = 0;
    for (let d = 0; d < 65536; d += 1) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i += 1) {
      const at = counts[(words[i]! >>> shift) & 0xffff]!++;
      nextHigh[at] = high[i]!;
      nextLow[at] = low[i]!;
      nextOrder[at] = order[i]!;
    }
    [high, nextHigh] = [nextHigh, high];
    [low, nextLow] = [nextLow, low];
    [order, nextOrder] = [nextOrder, order];
  }
  return order;
}

/** Matches up to this many are sorted by position; more are placed in order through a bitset (`RankOrder.walkAmong`). */
const SORTED_MATCHES = 1024;
/**
 * A walk of the order from its top costs about this many visited runs per match placed by
 * position (a sequential read and a bit test against random reads of two arrays): the
 * few-candidate path walks when its estimated reach is within it, and a walk over a
 * bitset's matches gives up past twice its match count, since a filter whose runs all rank
 * last (a 70B model class under tokSOut) would otherwise walk nearly every run for a page.
 */
const WALK_VISITS_PER_MATCH = 4;

export class RunIndex {
  /** Slots ever used (some dead). */
  slotCount = 0;
  words = 0;
  private liveCount = 0;
  private capacity = 0;
  private readonly ids = new IdTable();
  private alive: Uint32Array = new Uint32Array(0);
  private createdAt: Float64Array = new Float64Array(0);
  /** Slots below this have non-decreasing createdAt: a window over them is a binary search. */
  private createdPrefix = 0;
  private readonly sortValues = Object.fromEntries(INDEX_SORTS.map((sort) => [sort, new Float64Array(0)])) as Record<
    IndexSort,
    Float64Array
  >;
  private readonly facets = Object.fromEntries(RUN_FACT_NAMES.map((name) => [name, new Facet(this)])) as Record<RunFactName, Facet>;
  /** The same facets in `RUN_FACT_NAMES` order, as `IndexedRun.facts` holds their values. */
  private readonly factFacets = RUN_FACT_NAMES.map((name) => this.facets[name]);
  private readonly orders: Record<IndexOrder, RankOrder>;
  private scratch: [Uint32Array, Uint32Array] = [new Uint32Array(0), new Uint32Array(0)];
  /** The few-candidate path's candidates and matches, for one query at a time (reused: up to 16K slots a query were an array to collect). */
  private candidates = new Int32Array(4096);
  /** While loading, orders are not kept: `finishLoad` sorts once. */
  private loading = true;

  constructor() {
    const orders = {} as Record<IndexOrder, RankOrder>;
    for (const sort of INDEX_SORTS) orders[sort] = new RankOrder(this.comparer(() => this.sortValues[sort], DESCENDING[sort], false));
    orders.newest = new RankOrder(this.comparer(() => this.createdAt, true, true));
    this.orders = orders;
  }

  /** Approved runs held. */
  get count(): number {
    return this.liveCount;
  }

  /** The run id of a slot the index gave (a query's page). */
  idOf(slot: number): string {
    return this.ids.idOf(slot);
  }

  /** The run ids of slots the index gave, as one Postgres array literal (`{id,id}`) for a `uuid[]` parameter. */
  idsLiteral(slots: ArrayLike<number>): string {
    return this.ids.arrayLiteral(slots);
  }

  /** The slot of a run id, or -1 when the index never held it. */
  slotOf(id: string): number {
    return this.ids.slotOf(id);
  }

  has(id: string): boolean {
    return this.holdsSlot(this.ids.slotOf(id));
  }

  /** Whether the run of this slot is in the index (approved), not removed since. */
  holdsSlot(slot: number): boolean {
    return slot >= 0 && hasBit(this.alive, slot);
  }

  /**
   * Rank order over slots: the value (nulls last), then created-at and id, ascending for
   * the leaderboard's ties (the earliest run first), descending for newest-first. The
   * columns are read through getters so a grown array is seen.
   */
  private comparer(valuesOf: () => Float64Array, descending: boolean, tiesDescending: boolean): SlotCompare {
    return (a, b) => {
      const byValue = compareValues(valuesOf(), a, b, descending);
      if (byValue !== 0) return byValue;
      const ca = this.createdAt[a]!;
      const cb = this.createdAt[b]!;
      if (ca !== cb) return ca < cb === tiesDescending ? 1 : -1;
      const byId = this.ids.compare(a, b);
      return tiesDescending ? -byId : byId;
    };
  }

  private ensureCapacity(size: number): void {
    if (size <= this.capacity) return;
    const capacity = Math.max(size, Math.ceil(this.capacity * 1.5), 1024);
    const grow = <T extends Float64Array>(array: T) => {
      const next = new Float64Array(capacity) as T;
      next.set(array);
      return next;
    };
    this.createdAt = grow(this.createdAt);
    for (const sort of INDEX_SORTS) this.sortValues[sort] = grow(this.sortValues[sort]);
    this.alive = resized(this.alive, wordsFor(capacity));
    for (const facet of Object.values(this.facets)) facet.grow(capacity);
    for (const order of Object.values(this.orders)) order.grow(capacity);
    this.capacity = capacity;
  }

  /** Adds a run, or replaces what the index holds of it. */
  upsert(run: IndexedRun): void {
    const slot = this.ids.slotFor(run.id, this.slotCount);
    if (slot === this.slotCount) {
      this.slotCount += 1;
      this.words = wordsFor(this.slotCount);
      this.ensureCapacity(this.slotCount);
    } else if (run.createdAtUs !== this.createdAt[slot] && slot < this.createdPrefix) {
      this.createdPrefix = slot;
    }
    // A new run, or a removed one back (rejected, then restored): its slot is live again.
    if (!hasBit(this.alive, slot)) {
      setBit(this.alive, slot);
      this.liveCount += 1;
    }
    this.createdAt[slot] = run.createdAtUs;
    if (slot === this.createdPrefix && (slot === 0 || this.createdAt[slot - 1]! <= run.createdAtUs)) this.createdPrefix += 1;
    for (const sort of INDEX_SORTS) this.sortValues[sort][slot] = run.sortKeys[sort] ?? Number.NaN;
    const { facts } = run;
    for (let i = 0; i < this.factFacets.length; i += 1) this.factFacets[i]!.set(slot, facts[i] ?? null);
    if (!this.loading) for (const order of Object.values(this.orders)) order.add(slot);
  }

  /** Forgets a run (rejected, deleted); its slot stays, dead, until the run comes back. */
  remove(id: string): void {
    const slot = this.ids.slotOf(id);
    if (slot < 0 || !hasBit(this.alive, slot)) return;
    clearBit(this.alive, slot);
    this.liveCount -= 1;
    for (const facet of Object.values(this.facets)) facet.remove(slot);
    if (!this.loading) for (const order of Object.values(this.orders)) order.delete(slot);
  }

  /**
   * Sorts every order once after loading. Slots loaded oldest first (created-at, then id)
   * make newest-first a reversal and leave each sort's ties already in slot order.
   */
  finishLoad(): void {
    const live = (slot: number) => hasBit(this.alive, slot);
    let tieOrdered = true;
    for (let slot = 1; slot < this.slotCount && tieOrdered; slot += 1) {
      tieOrdered =
        this.createdAt[slot - 1]! < this.createdAt[slot]! ||
        (this.createdAt[slot - 1] === this.createdAt[slot] && this.ids.compare(slot - 1, slot) < 0);
    }
    const liveSlots: number[] = [];
    for (let slot = 0; slot < this.slotCount; slot += 1) if (live(slot)) liveSlots.push(slot);
    for (const sort of INDEX_SORTS) {
      const values = this.sortValues[sort];
      const descending = DESCENDING[sort];
      const sorted = tieOrdered ? slotsByValue(values, liveSlots, descending) : undefined;
      this.orders[sort].rebuild(this.slotCount, live, sorted);
    }
    this.orders.newest.rebuild(this.slotCount, live, tieOrdered ? Int32Array.from(liveSlots).reverse() : undefined);
    this.loading = false;
  }

  /** The created-at window as a condition: a binary search over the ordered prefix, then the runs past it. */
  private windowCondition({ atOrAfter, after, before }: CreatedWindow): Condition {
    const createdAt = this.createdAt;
    const inWindow = (at: number) =>
      (atOrAfter === undefined || at >= atOrAfter) && (after === undefined || at > after) && (before === undefined || at < before);
    const firstSlot = (admits: (at: number) => boolean) => {
      let lo = 0;
      let hi = this.createdPrefix;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (admits(createdAt[mid]!)) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    const from = firstSlot((at) => (atOrAfter === undefined || at >= atOrAfter) && (after === undefined || at > after));
    const to = before === undefined ? this.createdPrefix : firstSlot((at) => at >= before);
    const tail: number[] = [];
    for (let slot = this.createdPrefix; slot < this.slotCount; slot += 1)
      if (hasBit(this.alive, slot) && inWindow(createdAt[slot]!)) tail.push(slot);
    const alive = this.alive;
    return {
      size: Math.max(0, to - from) + tail.length,
      bits: null,
      test: (slot) => inWindow(createdAt[slot]!),
      keep(slots, count) {
        let kept = 0;
        for (let i = 0; i < count; i += 1) if (inWindow(createdAt[slots[i]!]!)) slots[kept++] = slots[i]!;
        return kept;
      },
      forEach(visit) {
        for (let slot = from; slot < to; slot += 1) if (hasBit(alive, slot)) visit(slot);
        for (const slot of tail) visit(slot);
      },
      intoBits(out) {
        out.fill(0);
        if (to > from) fillBits(out, from, to);
        for (const slot of tail) setBit(out, slot);
        for (let i = 0; i < out.length; i += 1) out[i]! &= alive[i]!;
      },
      andInto(mask, scratch) {
        this.intoBits(scratch);
        for (let i = 0; i < mask.length; i += 1) mask[i]! &= scratch[i]!;
      },
      blocksIn: () => null,
      positionsIn: () => null,
    };
  }

  /** Two bitsets over every slot for one query at a time (queries run synchronously); the first is clear between queries. */
  private scratchBits(): [Uint32Array, Uint32Array] {
    if (this.scratch[0].length !== this.words) this.scratch = [new Uint32Array(this.words), new Uint32Array(this.words)];
    return this.scratch;
  }

  /** The terms' conditions; null when one admits no run at all. The SQL path's twin: `applyTerms`. */
  private compile(terms: readonly Term[]): Condition[] | null {
    const conditions: Condition[] = [];
    const codesWhere = (facet: Facet, admits: (value: FactValue) => boolean) =>
      facet.values.flatMap((value, code) => (admits(value) ? [code] : []));
    for (const term of terms) {
      if (term.op === 'created') {
        conditions.push(this.windowCondition(term.window));
        continue;
      }
      const facet = this.facets[term.fact];
      let codes: number[];
      switch (term.op) {
        case 'equal': {
          const code = facet.find(term.value);
          codes = code >= 0 ? [code] : [];
          break;
        }
        case 'notEqual':
          codes = codesWhere(facet, (value) => value !== term.value);
          break;
        case 'anyOf':
          codes = [...new Set(term.values.map((value) => facet.find(value)).filter((code) => code >= 0))];
          break;
        case 'atLeast':
          codes = codesWhere(facet, (value) => (value as number) >= term.value);
          break;
        case 'containsSquashed':
          // As the SQL path: separators ignored on both sides (`qwen3moe` = `qwen3_moe`).
          codes = codesWhere(facet, (value) => containsSquashed(value as string, term.value));
          break;
        default:
          throw new Error(`unknown term ${JSON.stringify(term satisfies never)}`);
      }
      if (codes.length === 0) return null;
      conditions.push(facetCondition(facet, codes));
    }
    return conditions;
  }

  /**
   * The page's runs in rank order, as slots (`idOf` names them: a page whose documents are
   * cached by slot never formats an id), and the exact number of matching runs (or
   * profiles, with bestPerHardware).
   */
  query({ terms, order: orderName, offset, limit, bestPerHardware = false }: IndexQuery): IndexAnswer {
    // A window that starts at a moment (`since`) loses its oldest match first as the clock moves: say when that run was made.
    const windowed = terms.some((term) => term.op === 'created' && term.window.atOrAfter !== undefined);
    const conditions = this.compile(terms);
    if (!conditions) return { slots: [], total: 0, oldestMatchUs: windowed ? Number.POSITIVE_INFINITY : null };
    const order = this.orders[orderName];
    const hardware = this.facets.hardwareId.codes;
    const page: number[] = [];
    const end = offset + limit;
    // Rank order, keeping each profile's first (best) run when asked; collects the page.
    let kept = 0;
    const seen = bestPerHardware ? new Uint8Array(this.facets.hardwareId.values.length) : null;
    const restart = () => {
      kept = 0;
      page.length = 0;
      seen?.fill(0);
    };
    const take = (slot: number): boolean => {
      if (seen) {
        if (seen[hardware[slot]!]) return true;
        seen[hardware[slot]!] = 1;
      }
      if (kept >= offset) page.push(slot);
      kept += 1;
      return kept < end;
    };
    /** The blocks of the order where every condition may have a run (null: no condition knows). */
    const blocks = (): Uint32Array | null => {
      let out: Uint32Array | null = null;
      for (const condition of conditions) {
        const own = condition.blocksIn(order);
        if (!own) continue;
        if (!out) out = own;
        else for (let w = 0; w < out.length; w += 1) out[w]! &= own[w]!;
      }
      return out;
    };
    /**
     * The page from walking the order over `mask` while that is cheap (within `budget`
     * positions looked at, blocks without matches skipped), else from placing the matches
     * by position.
     */
    const walkOrPlace = (mask: Uint32Array, budget: number, forEachMatch: (visit: (slot: number) => void) => void) => {
      if (order.walkMasked(mask, take, budget, blocks())) return;
      restart();
      order.walkAmong(forEachMatch, take);
    };
    const distinctHardware = (forEach: (visit: (slot: number) => void) => void) => {
      const counted = new Uint8Array(this.facets.hardwareId.values.length);
      let distinct = 0;
      forEach((slot) => {
        if (!counted[hardware[slot]!]) {
          counted[hardware[slot]!] = 1;
          distinct += 1;
        }
      });
      return distinct;
    };

    if (conditions.length === 0) {
      const total = bestPerHardware ? this.facets.hardwareId.counts.filter((n) => n > 0).length : this.liveCount;
      if (limit > 0 && offset < total) order.walk(take);
      return { slots: page, total, oldestMatchUs: null };
    }

    conditions.sort((a, b) => a.size - b.size);
    const [driver, ...others] = conditions as [Condition, ...Condition[]];
    /**
     * The page from the smallest one-value condition's own order, testing the others per run:
     * its first entries when nothing else filters, and never more runs than the value has.
     * Only while the page's end is expected within VALUE_WALK_RUNS_PER_MATCH of the value's runs
     * per match (the others admitting few of them, a walk of its order would pass most);
     * false when no condition qualifies.
     */
    const pageFromValueOrder = (matching: number): boolean => {
      for (const condition of conditions) {
        if ((end * condition.size) / Math.max(1, matching) > VALUE_WALK_RUNS_PER_MATCH * end + 4096) continue;
        const positions = condition.positionsIn(order);
        if (!positions) continue;
        const admits = (slot: number) => {
          for (const c of conditions) if (!c.test(slot)) return false;
          return true;
        };
        order.walkPositions(positions, admits, take);
        return true;
      }
      return false;
    };
    if (driver.size <= Math.max(4096, this.slotCount >>> 6)) {
      // Few candidates: the driver's runs, kept by each other condition in turn.
      if (this.candidates.length < driver.size) this.candidates = new Int32Array(Math.max(driver.size, this.candidates.length * 2));
      const candidates = this.candidates;
      let count = 0;
      driver.forEach((slot) => {
        candidates[count++] = slot;
      });
      for (const other of others) count = other.keep(candidates, count);
      const matches = candidates.subarray(0, count);
      const total = bestPerHardware ? distinctHardware((visit) => matches.forEach(visit)) : matches.length;
      if (limit > 0 && offset < total) {
        if (matches.length <= SORTED_MATCHES) {
          for (const slot of order.sort(matches)) if (!take(slot)) break;
        } else if (!pageFromValueOrder(total)) {
          // Walk from the top when the page's end looks near it, else place the matches by position.
          const forEachMatch = (visit: (slot: number) => void) => matches.forEach(visit);
          const reach = order.estimatedReach(matches, end);
          if (reach > matches.length * WALK_VISITS_PER_MATCH) order.walkAmong(forEachMatch, take);
          else {
            const [mask] = this.scratchBits();
            for (const slot of matches) setBit(mask, slot);
            walkOrPlace(mask, 2 * reach + 4096, forEachMatch);
            for (const slot of matches) clearBit(mask, slot);
          }
        }
      }
      let oldest = Number.POSITIVE_INFINITY;
      if (windowed) for (const slot of matches) oldest = Math.min(oldest, this.createdAt[slot]!);
      return { slots: page, total, oldestMatchUs: windowed ? oldest : null };
    }
    // Many candidates: AND the conditions' bitsets, count them, and walk the order for the page.
    let mask: Uint32Array;
    let matched: number;
    if (others.length === 0 && driver.bits) {
      // One common value: its own bitset and count answer; nothing to copy or count.
      mask = driver.bits;
      matched = driver.size;
    } else {
      const [scratchMask, scratch] = this.scratchBits();
      mask = scratchMask;
      driver.intoBits(mask);
      for (const other of others) other.andInto(mask, scratch);
      matched = countBits(mask);
    }
    const total = bestPerHardware ? distinctHardware((visit) => forEachBit(mask, visit)) : matched;
    if (limit > 0 && offset < total && !pageFromValueOrder(total)) walkOrPlace(mask, 2 * total + 4096, (visit) => forEachBit(mask, visit));
    const oldestMatchUs = windowed ? this.oldestIn(mask) : null;
    // Scratch bitsets are left clear: the few-candidate path sets and clears only its own bits.
    if (mask === this.scratch[0]) mask.fill(0);
    return { slots: page, total, oldestMatchUs };
  }

  /**
   * The earliest created-at of the runs set in `mask` (Infinity for none): the first set slot
   * of the created-at-ordered prefix, and any set slot past it.
   */
  private oldestIn(mask: Uint32Array): number {
    let oldest = Number.POSITIVE_INFINITY;
    forEachBit(mask, (slot) => {
      if (slot < this.createdPrefix) {
        oldest = this.createdAt[slot]!;
        return false;
      }
    });
    for (let slot = this.createdPrefix; slot < this.slotCount; slot += 1)
      if (hasBit(mask, slot)) oldest = Math.min(oldest, this.createdAt[slot]!);
    return oldest;
  }
}
