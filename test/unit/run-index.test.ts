/**
 * The read index against a brute-force reference (filter an array, sort it, slice it)
 * through thousands of writes: enough changes that the rank orders fold their pending
 * runs into new main arrays more than once, facet values turn from slot lists into
 * bitsets, code arrays widen, and runs come back after removal.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { RankOrder } from '../../src/runs/read-index/rank-order.ts';
import { RUN_FACT_NAMES, type FactValue, type RunFactName, type Term } from '../../src/runs/facets.ts';
import {
  INDEX_SORTS,
  RunIndex,
  slotsByValue,
  type IndexedRun,
  type IndexOrder,
  type IndexSort,
} from '../../src/runs/read-index/run-index.ts';

const DESCENDING: Record<IndexSort, boolean> = { tokSOut: true, tokSPrefill: true, ttftMs: false, tokPerWatt: true, tokPerDollar: true };

/** A run as the tests write it, its facts by name; `indexed` gives it to the index in `RUN_FACT_NAMES` order. */
type TestRun = Omit<IndexedRun, 'facts'> & Record<RunFactName, FactValue | null>;
const indexed = (run: TestRun): IndexedRun => ({
  id: run.id,
  createdAtUs: run.createdAtUs,
  sortKeys: run.sortKeys,
  facts: RUN_FACT_NAMES.map((name) => run[name]),
});

/** A deterministic run for slot-free ids: small domains so filters match often. */
function makeRun(id: string, rng: () => number, createdAtUs: number): TestRun {
  const pick = <T>(items: readonly T[]) => items[Math.floor(rng() * items.length)]!;
  const speed = () => (rng() < 0.1 ? null : Math.round(rng() * 200) / 2);
  return {
    id,
    modelId: `model-${Math.floor(rng() * 150)}`,
    hardwareId: `hw-${Math.floor(rng() * 40)}`,
    userId: `user-${Math.floor(rng() * 300)}`,
    hwClass: pick(['DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY']),
    memTier: pick([8, 16, 24, 48, null]),
    engineName: pick(['llama.cpp', 'vllm', 'mlx']),
    quantization: pick(['Q4_K_M', 'Q8_0', 'FP16', null]),
    userVerified: rng() < 0.3,
    createdAtUs,
    paramBucket: pick([1, 3, 7, 13, 30, null]),
    osFamily: pick(['linux', 'macos', null]),
    backend: pick(['cuda', 'metal', 'cpu', null]),
    modelFamily: pick(['llama', 'qwen3', 'qwen2', 'gemma', null]),
    isMoE: pick([true, false, null]),
    batchSize: pick([1, 1, 1, 2, 4, 8, 16]),
    activeSequences: pick([1, 1, 2, 4, 8, 16, 32]),
    ctxBucket: pick([2048, 8192, null]),
    plausibility: pick(['plausible', 'suspect', 'unknown']),
    kvCacheDtype: pick(['q8_0', 'f16', null]),
    attentionBackend: pick(['flash', null]),
    gpuLayers: pick([0, 33, 99, null]),
    tensorParallel: pick([1, 2, null]),
    specDecoding: rng() < 0.2,
    mtpEnabled: rng() < 0.1,
    replicationCount: pick([0, 0, 0, 1, 2, 5]),
    sortKeys: {
      tokSOut: speed(),
      tokSPrefill: speed(),
      ttftMs: speed(),
      tokPerWatt: rng() < 0.7 ? null : speed(),
      tokPerDollar: rng() < 0.7 ? null : speed(),
    },
  };
}

/** Whether a run meets every term, by brute force (the index's compile and the SQL path's applyTerms are what is checked). */
function matches(run: TestRun, terms: readonly Term[]): boolean {
  const squash = (text: string) => text.replace(/[-_\s]/g, '');
  return terms.every((term) => {
    if (term.op === 'created') {
      const { atOrAfter, after, before } = term.window;
      const at = run.createdAtUs;
      return (atOrAfter === undefined || at >= atOrAfter) && (after === undefined || at > after) && (before === undefined || at < before);
    }
    const value = run[term.fact];
    if (value === null) return false;
    switch (term.op) {
      case 'equal':
        return value === term.value;
      case 'notEqual':
        return value !== term.value;
      case 'anyOf':
        return term.values.includes(value as string);
      case 'atLeast':
        return (value as number) >= term.value;
      case 'containsSquashed':
        return squash(String(value)).includes(squash(term.value));
    }
  });
}

/** What the SQL path does: ORDER BY value (nulls last), created_at, id; newest: created_at desc, id desc. */
function referenceOrder(order: IndexOrder) {
  return (a: TestRun, b: TestRun) => {
    if (order === 'newest') return b.createdAtUs - a.createdAtUs || (a.id < b.id ? 1 : -1);
    const va = a.sortKeys[order];
    const vb = b.sortKeys[order];
    if ((va === null) !== (vb === null)) return va === null ? 1 : -1;
    if (va !== null && vb !== null && va !== vb) return DESCENDING[order] ? vb - va : va - vb;
    return a.createdAtUs - b.createdAtUs || (a.id < b.id ? -1 : 1);
  };
}

function reference(
  runs: Map<string, TestRun>,
  terms: readonly Term[],
  order: IndexOrder,
  offset: number,
  limit: number,
  bestPerHardware: boolean,
) {
  let ranked = [...runs.values()].filter((run) => matches(run, terms)).sort(referenceOrder(order));
  if (bestPerHardware) {
    const seen = new Set<string>();
    ranked = ranked.filter((run) => !seen.has(run.hardwareId as string) && seen.add(run.hardwareId as string));
  }
  return { ids: ranked.slice(offset, offset + limit).map((run) => run.id), total: ranked.length };
}

/** A seeded generator: the same runs and queries on every run of the tests. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** The n-th test run's id (a uuid). */
const runId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** An index loaded oldest first (as the build reads the table) with `count` runs, and the runs the reference reads. */
function loadedIndex(count: number, make: (n: number) => TestRun): { index: RunIndex; live: Map<string, TestRun> } {
  const index = new RunIndex();
  const live = new Map<string, TestRun>();
  for (let n = 0; n < count; n += 1) {
    const run = make(n);
    index.upsert(indexed(run));
    live.set(run.id, run);
  }
  index.finishLoad();
  return { index, live };
}

describe('RunIndex against a brute-force reference', function () {
  this.timeout(60_000);

  it('answers every filter, order and page exactly through thousands of writes (folds, bitsets, wider codes)', () => {
    const rng = seeded(42);
    // Ties on created-at: three runs a microsecond.
    const { index, live } = loadedIndex(6000, (n) => makeRun(runId(n), rng, 1_000_000 + Math.floor(n / 3)));
    const ids = () => [...live.keys()];
    const removed: TestRun[] = [];
    let next = 6000;
    // Writes after the build: new runs (some older than the newest), changed facts and speeds, removals, returns.
    const write = () => {
      const r = rng();
      if (r < 0.3) {
        const run = makeRun(runId(next++), rng, 1_000_000 + Math.floor(rng() * 2500));
        index.upsert(indexed(run));
        live.set(run.id, run);
      } else if (r < 0.65) {
        const id = ids()[Math.floor(rng() * live.size)]!;
        const run = makeRun(id, rng, rng() < 0.5 ? live.get(id)!.createdAtUs : 1_000_000 + Math.floor(rng() * 2500));
        index.upsert(indexed(run));
        live.set(id, run);
      } else if (r < 0.9) {
        const id = ids()[Math.floor(rng() * live.size)]!;
        removed.push(live.get(id)!);
        index.remove(id);
        live.delete(id);
      } else if (removed.length > 0) {
        const run = removed.splice(Math.floor(rng() * removed.length), 1)[0]!;
        index.upsert(indexed(run));
        live.set(run.id, run);
      }
    };

    const equal = <T extends string | number | boolean>(fact: Extract<Term, { op: 'equal' }>['fact'], values: fc.Arbitrary<T>) =>
      values.map((value): Term => ({ fact, op: 'equal', value }));
    const atLeast = (fact: Extract<Term, { op: 'atLeast' }>['fact'], values: fc.Arbitrary<number>) =>
      values.map((value): Term => ({ fact, op: 'atLeast', value }));
    const anyOf = (fact: Extract<Term, { op: 'anyOf' }>['fact'], values: fc.Arbitrary<string[]>) =>
      values.map((list): Term => ({ fact, op: 'anyOf', values: list }));
    // One candidate term per kind of filter the services build.
    const filters = fc.tuple(
      anyOf(
        'modelId',
        fc.array(
          fc.integer({ min: 0, max: 160 }).map((n) => `model-${n}`),
          { minLength: 1, maxLength: 3 },
        ),
      ),
      anyOf(
        'hardwareId',
        fc.array(
          fc.integer({ min: 0, max: 45 }).map((n) => `hw-${n}`),
          { minLength: 1, maxLength: 5 },
        ),
      ),
      equal(
        'userId',
        fc.integer({ min: 0, max: 310 }).map((n) => `user-${n}`),
      ),
      equal('hwClass', fc.constantFrom('DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY')),
      equal('memTier', fc.constantFrom(8, 16, 24, 48, 96)),
      equal('engineName', fc.constantFrom('llama.cpp', 'vllm', 'mlx', 'sglang')),
      equal('quantization', fc.constantFrom('Q4_K_M', 'Q8_0', 'FP16')),
      equal('userVerified', fc.boolean()),
      equal('paramBucket', fc.constantFrom(1, 3, 7, 13, 30)),
      equal('osFamily', fc.constantFrom('linux', 'macos')),
      equal('backend', fc.constantFrom('cuda', 'metal', 'cpu')),
      fc.constantFrom('qwen', 'llama', 'gem', 'x').map((value): Term => ({ fact: 'modelFamily', op: 'containsSquashed', value })),
      equal('isMoE', fc.boolean()),
      equal('batchSize', fc.constantFrom(1, 2, 4)),
      atLeast('batchSize', fc.constantFrom(8)),
      equal('activeSequences', fc.constantFrom(1, 2, 4)),
      atLeast('activeSequences', fc.constantFrom(8)),
      equal('ctxBucket', fc.constantFrom(2048, 8192)),
      fc.constant<Term>({ fact: 'plausibility', op: 'notEqual', value: 'suspect' }),
      equal('kvCacheDtype', fc.constantFrom('q8_0', 'f16')),
      atLeast('gpuLayers', fc.constantFrom(0, 33, 50)),
      equal('specDecoding', fc.constant(true)),
      fc
        .record(
          {
            atOrAfter: fc.integer({ min: 1_000_000, max: 1_002_600 }),
            before: fc.integer({ min: 1_000_000, max: 1_002_600 }),
            after: fc.integer({ min: 1_000_000, max: 1_002_600 }),
          },
          { requiredKeys: [] },
        )
        .map((window): Term => ({ op: 'created', window })),
    );
    // Up to four filters at once: every value drawn, then a few kept.
    const someFilters = fc
      .tuple(filters, fc.array(fc.nat(), { maxLength: 4 }))
      .map(([all, picks]) => [...new Set(picks.map((n) => n % all.length))].map((n) => all[n]!));
    const queries = fc.record({
      terms: someFilters,
      order: fc.constantFrom<IndexOrder>(...INDEX_SORTS, 'newest'),
      // Far offsets too: a page at the end of an order walks all of it.
      offset: fc.oneof(fc.constant(0), fc.nat(30), fc.nat(9000)),
      limit: fc.integer({ min: 1, max: 60 }),
      bestPerHardware: fc.boolean(),
    });

    let nonEmpty = 0;
    for (let round = 0; round < 6; round += 1) {
      fc.assert(
        fc.property(queries, ({ terms, order, offset, limit, bestPerHardware }) => {
          const expected = reference(live, terms, order, offset, limit, bestPerHardware);
          const { slots, total, oldestMatchUs } = index.query({ terms, order, offset, limit, bestPerHardware });
          expect(
            { ids: slots.map((slot) => index.idOf(slot)), total },
            JSON.stringify({ terms, order, offset, limit, bestPerHardware }),
          ).to.deep.equal(expected);
          // A window from a moment says when its oldest match was made (the first to leave it as the clock moves).
          const windowed = terms.some((term) => term.op === 'created' && term.window.atOrAfter !== undefined);
          const oldest = Math.min(...[...live.values()].filter((run) => matches(run, terms)).map((run) => run.createdAtUs));
          expect(oldestMatchUs, `oldest match of ${JSON.stringify(terms)}`).to.equal(windowed ? oldest : null);
          if (expected.ids.length > 0) nonEmpty += 1;
        }),
        { numRuns: 150, seed: round },
      );
      // 1,500 writes between rounds: past the 1,024 pending runs at which every order folds.
      for (let n = 0; n < 1500; n += 1) write();
      expect(index.count).to.equal(live.size);
    }
    expect(nonEmpty, 'queries with rows').to.be.above(300);
  });
});

describe('RunIndex pages whose matches rank far down the order', function () {
  this.timeout(60_000);

  // 30,000 runs: values above 4,096 runs take the bitset path. CPU_ONLY runs (a third) are
  // the slowest, so the first page under tokSOut sits past two thirds of the order: a walk
  // from the top runs out of its budget and the matches are placed by position instead.
  it('answers them exactly, with and without runs placed since the build', () => {
    const rng = seeded(99);
    const slowLast = (run: TestRun): TestRun => {
      const speed = run.hwClass === 'CPU_ONLY' ? Math.round(rng() * 100) / 10 : 20 + Math.round(rng() * 2000) / 10;
      return { ...run, sortKeys: { ...run.sortKeys, tokSOut: speed } };
    };
    const { index, live } = loadedIndex(30_000, (n) => slowLast(makeRun(runId(n), rng, 1_000_000 + n)));
    const cpu: Term = { fact: 'hwClass', op: 'equal', value: 'CPU_ONLY' };
    const pages: { terms: Term[]; offset: number; limit: number }[] = [
      { terms: [cpu], offset: 0, limit: 50 },
      { terms: [cpu], offset: 9_000, limit: 50 },
      { terms: [cpu, { fact: 'engineName', op: 'equal', value: 'vllm' }], offset: 0, limit: 20 },
      { terms: [cpu, { fact: 'plausibility', op: 'notEqual', value: 'suspect' }], offset: 100, limit: 50 },
      { terms: [cpu, { fact: 'memTier', op: 'equal', value: 16 }], offset: 0, limit: 50 },
    ];
    const check = (label: string) => {
      for (const { terms, offset, limit } of pages) {
        for (const bestPerHardware of [false, true]) {
          const expected = reference(live, terms, 'tokSOut', offset, limit, bestPerHardware);
          const { slots, total } = index.query({ terms, order: 'tokSOut', offset, limit, bestPerHardware });
          expect(
            { ids: slots.map((slot) => index.idOf(slot)), total },
            `${label} ${JSON.stringify({ terms, offset, bestPerHardware })}`,
          ).to.deep.equal(expected);
        }
      }
    };
    check('after the build');
    // Placed since the build (pending in every order): new slow CPU runs and moved ones.
    for (let n = 0; n < 400; n += 1) {
      const id = n % 2 === 0 ? runId(30_000 + n) : [...live.keys()][Math.floor(rng() * live.size)]!;
      const run = slowLast({ ...makeRun(id, rng, 1_000_000 + Math.floor(rng() * 30_000)), hwClass: 'CPU_ONLY' });
      index.upsert(indexed(run));
      live.set(id, run);
    }
    check('with runs placed since');
  });
});

describe("slotsByValue (the build's radix sort)", () => {
  it('orders slots as the comparator does: nulls last, either direction, ties by slot, any float', () => {
    const value = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(0, -0, 1, -1, 0.5, Number.NaN, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, 150.63),
    );
    fc.assert(
      fc.property(fc.array(value, { maxLength: 300 }), fc.boolean(), (list, descending) => {
        const values = Float64Array.from(list);
        const slots = list.map((_, slot) => slot).filter((slot) => slot % 7 !== 3);
        const expected = [...slots].sort((a, b) => {
          const [va, vb] = [values[a]!, values[b]!];
          if (Number.isNaN(va) !== Number.isNaN(vb)) return Number.isNaN(va) ? 1 : -1;
          if (Number.isNaN(va) || va === vb) return a - b;
          return va < vb === descending ? 1 : -1;
        });
        expect([...slotsByValue(values, slots, descending)]).to.deep.equal(expected);
      }),
      { numRuns: 400, seed: 3 },
    );
  });
});

describe('RankOrder', () => {
  it('estimates how far down the order a page of some slots ends', () => {
    // Rank unrelated to slot number, as in the index: slot s ranks at (s * 7919) mod 10,000.
    const rankOf = (slot: number) => (slot * 7919) % 10_000;
    const order = new RankOrder((a, b) => rankOf(a) - rankOf(b));
    order.rebuild(10_000, () => true);
    const slotsRanked = (keep: (rank: number) => boolean) =>
      Array.from({ length: 10_000 }, (_, slot) => slot).filter((slot) => keep(rankOf(slot)));
    const top = slotsRanked((rank) => rank < 1000);
    const bottom = slotsRanked((rank) => rank >= 9000);
    const spread = slotsRanked((rank) => rank % 10 === 0);
    expect(order.estimatedReach(top, 50)).to.be.below(200);
    expect(order.estimatedReach(bottom, 50)).to.be.above(5000);
    expect(order.estimatedReach(spread, 50)).to.be.within(100, 1500);
    expect(order.estimatedReach(spread, 1000)).to.be.above(8000);
  });

  it('walks and sorts exactly the live slots in rank order through adds, moves and removals (and its folds)', () => {
    const rng = seeded(7);
    const values: number[] = [];
    const compare = (a: number, b: number) => values[a]! - values[b]! || a - b;
    const order = new RankOrder(compare);
    const live = new Set<number>();
    for (let slot = 0; slot < 3000; slot += 1) {
      values[slot] = Math.floor(rng() * 500);
      if (rng() < 0.9) live.add(slot);
    }
    order.rebuild(3000, (slot) => live.has(slot));
    let slots = 3000;
    const walked = () => {
      const out: number[] = [];
      order.walk((slot) => void out.push(slot));
      return out;
    };
    for (let round = 0; round < 8; round += 1) {
      // 700 changes a round: the pending list passes 1,024 and stale positions pass an eighth of the array.
      for (let n = 0; n < 700; n += 1) {
        const r = rng();
        if (r < 0.35) {
          order.grow(slots + 1);
          values[slots] = Math.floor(rng() * 500);
          order.add(slots);
          live.add(slots++);
        } else if (r < 0.7 && live.size > 0) {
          const slot = [...live][Math.floor(rng() * live.size)]!;
          values[slot] = Math.floor(rng() * 500);
          order.add(slot);
        } else if (live.size > 0) {
          const slot = [...live][Math.floor(rng() * live.size)]!;
          order.delete(slot);
          live.delete(slot);
        }
      }
      const expected = [...live].sort(compare);
      expect(walked(), `round ${round}`).to.deep.equal(expected);
      const some = [...live].filter(() => rng() < 0.05);
      expect([...order.sort(some)], `round ${round} sort`).to.deep.equal([...some].sort(compare));
      const among: number[] = [];
      order.walkAmong(
        (visit) => some.forEach(visit),
        (slot) => void among.push(slot),
      );
      expect(among, `round ${round} walkAmong`).to.deep.equal([...some].sort(compare));
      // Masked walks: every masked slot in order within a budget; a short budget gives up.
      const mask = new Uint32Array(Math.ceil(slots / 32) + 1);
      for (const slot of some) mask[slot >>> 5]! |= 1 << (slot & 31);
      const masked: number[] = [];
      expect(
        order.walkMasked(mask, (slot) => masked.push(slot) > 0, live.size),
        `round ${round} walkMasked`,
      ).to.equal(true);
      expect(masked).to.deep.equal([...some].sort(compare));
      const lastMasked = expected.indexOf(masked.at(-1)!);
      expect(
        order.walkMasked(mask, () => true, lastMasked),
        `round ${round} budget`,
      ).to.equal(false);
      let taken = 0;
      expect(order.walkMasked(mask, () => (taken += 1) < 3, live.size)).to.equal(true);
      expect(taken).to.equal(Math.min(3, some.length));
      // A walk stops when asked.
      let seen = 0;
      order.walk(() => (seen += 1) < 10);
      expect(seen).to.equal(Math.min(10, live.size));
    }
  });

  it("walks a value's own runs in rank order and skips the blocks without them, right through adds, moves and removals", () => {
    const rng = seeded(11);
    const values: number[] = [];
    /** A facet's codes by slot: 0-2 anywhere (common), 3 only among the slowest (last-ranked, 5%), 4 rare, 5 made after the maps. */
    const column = new Int32Array(40_000).fill(-1);
    const facet = {};
    const codeFor = (value: number) => (value > 900 && rng() < 0.5 ? 3 : rng() < 0.01 ? 4 : Math.floor(rng() * 3));
    const compare = (a: number, b: number) => values[a]! - values[b]! || a - b;
    const order = new RankOrder(compare);
    const live = new Set<number>();
    let slots = 20_000;
    /** Values the facet has made so far (as `Facet.values.length`). */
    let valueCount = 5;
    for (let slot = 0; slot < slots; slot += 1) {
      values[slot] = Math.floor(rng() * 1000);
      column[slot] = codeFor(values[slot]!);
      if (rng() < 0.95) live.add(slot);
    }
    order.rebuild(slots, (slot) => live.has(slot));
    for (let round = 0; round < 6; round += 1) {
      for (let code = 0; code <= 5; code += 1) {
        const expected = [...live].filter((slot) => column[slot] === code).sort(compare);
        const positions = order.valuePositions(facet, column, valueCount, code);
        if (code <= 2) {
          // A third of the runs each: no positions of their own (a walk of the whole order finds them as soon).
          expect(positions, `round ${round} common value ${code}`).to.equal(null);
        } else {
          const walked: number[] = [];
          order.walkPositions(
            positions!,
            (slot) => column[slot] === code,
            (slot) => walked.push(slot) > 0,
          );
          expect(walked, `round ${round} value ${code}`).to.deep.equal(expected);
        }
        // The blocks of a value: a masked walk that skips the others finds the same runs.
        const blocks = order.blocksWith(facet, column, valueCount, [code])!;
        const mask = new Uint32Array(Math.ceil(slots / 32) + 1);
        for (const slot of expected) mask[slot >>> 5]! |= 1 << (slot & 31);
        const masked: number[] = [];
        expect(order.walkMasked(mask, (slot) => masked.push(slot) > 0, Number.MAX_SAFE_INTEGER, blocks)).to.equal(true);
        expect(masked, `round ${round} blocks of ${code}`).to.deep.equal(expected);
        // A page of the slowest value's runs looks at its blocks only: far fewer positions than a walk past every faster run.
        if (code === 3 && round === 0) {
          let looked = 0;
          const budgeted = (budget: number) => order.walkMasked(mask, () => (looked += 1) < 50, budget, blocks);
          expect(budgeted(expected.length * 4)).to.equal(true);
          expect(order.walkMasked(mask, () => true, expected.length * 4)).to.equal(false);
        }
      }
      // 400 changes a round, codes changing with them (the column first, as the index does): later rounds fold.
      for (let n = 0; n < 400; n += 1) {
        const r = rng();
        if (r < 0.35) {
          order.grow(slots + 1);
          values[slots] = Math.floor(rng() * 1000);
          column[slots] = rng() < 0.1 ? 5 : codeFor(values[slots]!);
          if (column[slots] === 5) valueCount = 6;
          order.add(slots);
          live.add(slots++);
        } else if (r < 0.7 && live.size > 0) {
          const slot = [...live][Math.floor(rng() * live.size)]!;
          values[slot] = Math.floor(rng() * 1000);
          column[slot] = codeFor(values[slot]!);
          order.add(slot);
        } else if (live.size > 0) {
          const slot = [...live][Math.floor(rng() * live.size)]!;
          order.delete(slot);
          live.delete(slot);
        }
      }
    }
  });
});
