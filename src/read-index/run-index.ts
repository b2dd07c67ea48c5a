/**
 * The in-process read index of the leaderboard (issue 15), first step: the approved runs'
 * filter facts and sort keys as columns (typed arrays, strings dictionary-encoded), one
 * permutation per sort kept in rank order, and a query that walks a sort's permutation
 * testing the filter per row: the page's ids in rank order and the exact total in one
 * pass. Postgres stays the source of truth; `src/read-index/build.ts` fills it from there.
 * Not yet behind the leaderboard service (READ_INDEX comes with the next step).
 */

export const INDEX_SORTS = ['tokSOut', 'tokSPrefill', 'ttftMs', 'tokPerWatt', 'tokPerDollar'] as const;
export type IndexSort = (typeof INDEX_SORTS)[number];
/** Which way each sort ranks (as the SQL path: nulls last, then the earliest run, then the id). */
const DESCENDING: Record<IndexSort, boolean> = { tokSOut: true, tokSPrefill: true, ttftMs: false, tokPerWatt: true, tokPerDollar: true };

/** One approved run as the index keeps it. */
export interface IndexedRun {
  id: string;
  modelId: string;
  hardwareId: string;
  hwClass: string;
  memTier: number | null;
  engineName: string;
  quantization: string | null;
  userVerified: boolean;
  /** Microseconds since the epoch (Postgres keeps microseconds; ties are broken on them). */
  createdAtUs: number;
  paramBucket: number | null;
  osFamily: string | null;
  backend: string | null;
  /** Lowercase, as the run row keeps it. */
  modelFamily: string | null;
  isMoE: boolean | null;
  batchSize: number;
  ctxBucket: number | null;
  plausibility: string;
  sortKeys: Record<IndexSort, number | null>;
}

/** A leaderboard filter, with its names resolved to what the index holds. */
export interface IndexFilter {
  modelId?: string;
  hwClass?: string;
  memTier?: number;
  engineName?: string;
  quantization?: string;
  verified?: boolean;
  /** Only runs created at or after (microseconds). */
  sinceUs?: number;
  /** Only runs on these hardware profiles (hardwareName resolved). */
  hardwareIds?: ReadonlySet<string>;
  paramBucket?: number;
  osFamily?: string;
  backend?: string;
  /** A substring of the model family (lowercased here). */
  modelFamily?: string;
  isMoE?: boolean;
  /** Exactly this batch size, or at least `batchSizeAtLeast`. */
  batchSize?: number;
  batchSizeAtLeast?: number;
  ctxBucket?: number;
  /** Leave out runs judged suspect. */
  plausible?: boolean;
}

export interface IndexQuery {
  filter: IndexFilter;
  sort: IndexSort;
  offset: number;
  limit: number;
  /** Each hardware profile's best run only. */
  bestPerHardware?: boolean;
}

/** Strings to small integers and back; code -1 is null. */
class Dictionary {
  private readonly codes = new Map<string, number>();
  readonly values: string[] = [];
  code(value: string | null): number {
    if (value === null) return -1;
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.values.push(value);
      this.codes.set(value, code);
    }
    return code;
  }
  /** The code of a value, or -2 (matches nothing) when no run has it. */
  find(value: string): number {
    return this.codes.get(value) ?? -2;
  }
}

const NULL_NUMBER = Number.NaN;
const grow = <T extends Float64Array | Int32Array | Int8Array>(array: T, size: number, make: (n: number) => T): T => {
  if (size <= array.length) return array;
  const next = make(Math.max(size, array.length * 2, 1024));
  next.set(array);
  return next;
};

/** Bits of the boolean-or-null facts: verified, MoE known, MoE. */
const VERIFIED = 1;
const MOE_KNOWN = 2;
const MOE = 4;

export class RunIndex {
  private size = 0;
  private readonly slotOf = new Map<string, number>();
  private readonly ids: string[] = [];
  private alive = new Int8Array(0);
  private flags = new Int8Array(0);
  private createdAt = new Float64Array(0);
  private memTier = new Float64Array(0);
  private paramBucket = new Float64Array(0);
  private batchSize = new Float64Array(0);
  private ctxBucket = new Float64Array(0);
  private readonly sortValues = Object.fromEntries(INDEX_SORTS.map((sort) => [sort, new Float64Array(0)])) as Record<IndexSort, Float64Array>;
  private readonly facets = {
    model: { dict: new Dictionary(), codes: new Int32Array(0) },
    hardware: { dict: new Dictionary(), codes: new Int32Array(0) },
    hwClass: { dict: new Dictionary(), codes: new Int32Array(0) },
    engine: { dict: new Dictionary(), codes: new Int32Array(0) },
    quantization: { dict: new Dictionary(), codes: new Int32Array(0) },
    os: { dict: new Dictionary(), codes: new Int32Array(0) },
    backend: { dict: new Dictionary(), codes: new Int32Array(0) },
    family: { dict: new Dictionary(), codes: new Int32Array(0) },
    plausibility: { dict: new Dictionary(), codes: new Int32Array(0) },
  };
  /** Slots in rank order per sort; rebuilt on the next query after a change. */
  private readonly orders = new Map<IndexSort, Int32Array>();

  /** Approved runs held. */
  get count(): number {
    return this.slotOf.size;
  }

  /** Adds a run, or replaces what the index holds of it. */
  upsert(run: IndexedRun): void {
    let slot = this.slotOf.get(run.id);
    if (slot === undefined) {
      slot = this.size++;
      this.ensureCapacity(this.size);
      this.slotOf.set(run.id, slot);
      this.ids[slot] = run.id;
    }
    this.alive[slot] = 1;
    this.flags[slot] = (run.userVerified ? VERIFIED : 0) | (run.isMoE === null ? 0 : MOE_KNOWN | (run.isMoE ? MOE : 0));
    this.createdAt[slot] = run.createdAtUs;
    this.memTier[slot] = run.memTier ?? NULL_NUMBER;
    this.paramBucket[slot] = run.paramBucket ?? NULL_NUMBER;
    this.batchSize[slot] = run.batchSize;
    this.ctxBucket[slot] = run.ctxBucket ?? NULL_NUMBER;
    for (const sort of INDEX_SORTS) this.sortValues[sort][slot] = run.sortKeys[sort] ?? NULL_NUMBER;
    const f = this.facets;
    f.model.codes[slot] = f.model.dict.code(run.modelId);
    f.hardware.codes[slot] = f.hardware.dict.code(run.hardwareId);
    f.hwClass.codes[slot] = f.hwClass.dict.code(run.hwClass);
    f.engine.codes[slot] = f.engine.dict.code(run.engineName);
    f.quantization.codes[slot] = f.quantization.dict.code(run.quantization);
    f.os.codes[slot] = f.os.dict.code(run.osFamily);
    f.backend.codes[slot] = f.backend.dict.code(run.backend);
    f.family.codes[slot] = f.family.dict.code(run.modelFamily);
    f.plausibility.codes[slot] = f.plausibility.dict.code(run.plausibility);
    this.orders.clear();
  }

  /** Forgets a run (rejected, withdrawn, deleted); its slot stays, dead. */
  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.alive[slot] = 0;
    this.slotOf.delete(id);
    this.orders.clear();
  }

  private ensureCapacity(size: number): void {
    this.alive = grow(this.alive, size, (n) => new Int8Array(n));
    this.flags = grow(this.flags, size, (n) => new Int8Array(n));
    this.createdAt = grow(this.createdAt, size, (n) => new Float64Array(n));
    this.memTier = grow(this.memTier, size, (n) => new Float64Array(n));
    this.paramBucket = grow(this.paramBucket, size, (n) => new Float64Array(n));
    this.batchSize = grow(this.batchSize, size, (n) => new Float64Array(n));
    this.ctxBucket = grow(this.ctxBucket, size, (n) => new Float64Array(n));
    for (const sort of INDEX_SORTS) this.sortValues[sort] = grow(this.sortValues[sort], size, (n) => new Float64Array(n));
    for (const facet of Object.values(this.facets)) facet.codes = grow(facet.codes, size, (n) => new Int32Array(n));
  }

  /** The live slots in rank order for a sort: value (nulls last), then the earliest, then the id. */
  private order(sort: IndexSort): Int32Array {
    let order = this.orders.get(sort);
    if (order) return order;
    const values = this.sortValues[sort];
    const descending = DESCENDING[sort];
    const slots: number[] = [];
    for (let slot = 0; slot < this.size; slot += 1) if (this.alive[slot]) slots.push(slot);
    slots.sort((a, b) => {
      const va = values[a]!;
      const vb = values[b]!;
      const na = Number.isNaN(va);
      const nb = Number.isNaN(vb);
      if (na !== nb) return na ? 1 : -1;
      if (!na && va !== vb) return descending ? vb - va : va - vb;
      const ca = this.createdAt[a]!;
      const cb = this.createdAt[b]!;
      if (ca !== cb) return ca - cb;
      const ia = this.ids[a]!;
      const ib = this.ids[b]!;
      return ia < ib ? -1 : ia > ib ? 1 : 0;
    });
    order = Int32Array.from(slots);
    this.orders.set(sort, order);
    return order;
  }

  /** A predicate over slots for a filter; null when a named value matches no run at all. */
  private predicate(filter: IndexFilter): ((slot: number) => boolean) | null {
    const f = this.facets;
    const tests: ((slot: number) => boolean)[] = [];
    const equal = (facet: { dict: Dictionary; codes: Int32Array }, value: string | undefined) => {
      if (value === undefined) return true;
      const code = facet.dict.find(value);
      if (code < 0) return false;
      const codes = facet.codes;
      tests.push((slot) => codes[slot] === code);
      return true;
    };
    if (!equal(f.model, filter.modelId) || !equal(f.hwClass, filter.hwClass) || !equal(f.engine, filter.engineName) || !equal(f.quantization, filter.quantization)) return null;
    if (!equal(f.os, filter.osFamily) || !equal(f.backend, filter.backend)) return null;
    const numberEquals = (column: Float64Array, value: number | undefined) => {
      if (value !== undefined) tests.push((slot) => column[slot] === value);
    };
    numberEquals(this.memTier, filter.memTier);
    numberEquals(this.paramBucket, filter.paramBucket);
    numberEquals(this.ctxBucket, filter.ctxBucket);
    numberEquals(this.batchSize, filter.batchSize);
    if (filter.batchSizeAtLeast !== undefined) {
      const least = filter.batchSizeAtLeast;
      tests.push((slot) => this.batchSize[slot]! >= least);
    }
    if (filter.verified !== undefined) {
      const want = filter.verified ? VERIFIED : 0;
      tests.push((slot) => (this.flags[slot]! & VERIFIED) === want);
    }
    if (filter.isMoE !== undefined) {
      const want = MOE_KNOWN | (filter.isMoE ? MOE : 0);
      tests.push((slot) => (this.flags[slot]! & (MOE_KNOWN | MOE)) === want);
    }
    if (filter.sinceUs !== undefined) {
      const since = filter.sinceUs;
      tests.push((slot) => this.createdAt[slot]! >= since);
    }
    if (filter.hardwareIds) {
      const codes = new Set<number>();
      for (const id of filter.hardwareIds) {
        const code = f.hardware.dict.find(id);
        if (code >= 0) codes.add(code);
      }
      if (codes.size === 0) return null;
      const hardware = f.hardware.codes;
      tests.push((slot) => codes.has(hardware[slot]!));
    }
    if (filter.modelFamily !== undefined) {
      // The few families whose name contains the text, then a code test per run.
      const needle = filter.modelFamily.toLowerCase();
      const codes = new Set<number>();
      f.family.dict.values.forEach((family, code) => family.includes(needle) && codes.add(code));
      if (codes.size === 0) return null;
      const family = f.family.codes;
      tests.push((slot) => codes.has(family[slot]!));
    }
    if (filter.plausible) {
      const suspect = f.plausibility.dict.find('suspect');
      const plausibility = f.plausibility.codes;
      tests.push((slot) => plausibility[slot] !== suspect);
    }
    return (slot) => {
      for (const test of tests) if (!test(slot)) return false;
      return true;
    };
  }

  /** The page's run ids in rank order and the exact number of matching runs. */
  query({ filter, sort, offset, limit, bestPerHardware = false }: IndexQuery): { ids: string[]; total: number } {
    const matches = this.predicate(filter);
    if (!matches) return { ids: [], total: 0 };
    const order = this.order(sort);
    const hardware = this.facets.hardware.codes;
    const seenHardware = bestPerHardware ? new Set<number>() : null;
    const ids: string[] = [];
    let total = 0;
    for (let i = 0; i < order.length; i += 1) {
      const slot = order[i]!;
      if (!matches(slot)) continue;
      if (seenHardware) {
        // The permutation is in rank order: a profile's first match is its best run.
        if (seenHardware.has(hardware[slot]!)) continue;
        seenHardware.add(hardware[slot]!);
      }
      if (total >= offset && ids.length < limit) ids.push(this.ids[slot]!);
      total += 1;
    }
    return { ids, total };
  }
}
