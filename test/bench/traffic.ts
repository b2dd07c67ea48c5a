/**
 * Request mixes drawn from the seeded data "like real traffic": many unfiltered and
 * single-filter views, fewer combinations, popular models and GPUs more often, most
 * visitors on the first page. A mix is a long list of paths with repeats (the skew);
 * the load generator walks it, so popular paths are requested more often.
 */
import { buckets, hwClasses } from '../../src/constants.ts';
import type { RevisionProfile } from '../../src/revisions.ts';
import type { Db } from '../../src/db/knex.ts';
import { pick, prng, weightedPick } from './seed.ts';
import { facetNames, leaderboardFacets, resultsListFacets } from '../../src/runs/facets.ts';

export interface Mix {
  paths: string[];
  distinct: number;
}

interface Weighted<T> {
  value: T;
  weight: number;
}

export interface TrafficFacts {
  models: Weighted<string>[];
  engines: Weighted<string>[];
  quantizations: Weighted<string>[];
  hwClasses: Weighted<string>[];
  gpuNames: Weighted<string>[];
  chipVendors: Weighted<string>[];
  hardwareTerms: string[];
  usernames: string[];
  searchTerms: string[];
}

/** What the mixes draw from, read from the seeded database. */
export async function readTrafficFacts(db: Db): Promise<TrafficFacts> {
  const [models, engines, quantizations, classes, gpuNames, chipVendors, users, families] = await Promise.all([
    db('models').orderBy('benchmark_count', 'desc').limit(600).select('hf_id', 'benchmark_count'),
    db('speed_test_runs').groupBy('engine_name').select('engine_name', db.raw('count(*)::int as n')),
    db('speed_test_runs').groupBy('quantization').select('quantization', db.raw('count(*)::int as n')),
    db('speed_test_runs').groupBy('hw_class').select('hw_class', db.raw('count(*)::int as n')),
    db('hardware_profiles').whereNotNull('gpu_name').groupBy('gpu_name').select('gpu_name', db.raw('count(*)::int as n')),
    db('hardware_profiles').whereNotNull('chip_vendor').groupBy('chip_vendor').select('chip_vendor', db.raw('count(*)::int as n')),
    db('users').orderBy('username').limit(200).pluck('username'),
    db('models').distinct('family').pluck('family'),
  ]);
  const gpuTerms = gpuNames.flatMap((g: { gpu_name: string }) => {
    const words = g.gpu_name
      .toLowerCase()
      .replace(/^(nvidia|amd|intel) (geforce |radeon |arc )?/, '')
      .split(' ');
    return [words.slice(-2).join(' '), words.at(-1)!];
  });
  const hardwareTerms = [
    ...new Set([
      ...gpuTerms.filter((t: string) => t.length >= 3),
      'apple',
      'm4',
      'm3',
      'm2',
      'max',
      'ultra',
      'ryzen ai max',
      'ryzen 9',
      'epyc',
      'xeon',
      'threadripper',
      'jetson',
      'rtx',
      'radeon',
      'instinct',
      'arc',
      'rtx 9999',
      'quadro',
      'tesla',
    ]),
  ];
  const searchTerms = [
    ...new Set([
      ...families.map((f: string) => f.toLowerCase()),
      'llama',
      'llama-3',
      'llama 3.1',
      'qwen',
      'qwen2.5',
      'qwen3',
      'qwen3-coder',
      'mistral',
      'mixtral',
      'gemma',
      'gemma-3',
      'phi',
      'deepseek',
      'r1',
      'distill',
      'glm',
      'gpt-oss',
      'coder',
      'instruct',
      'gguf',
      'awq',
      'mlx',
      'bartowski',
      'unsloth',
      'thebloke',
      '7b',
      '8b',
      '14b',
      '32b',
      '70b',
      'a3b',
      'abliterated',
      'hermes',
      'dolphin',
      'smol',
      'granite',
      'olmo',
      'kimi',
      'nemotron',
      ...models.slice(0, 80).map((m: { hf_id: string }) => m.hf_id.split('/')[1]!.slice(0, 10).toLowerCase()),
      ...models.slice(0, 20).map((m: { hf_id: string }) => m.hf_id.toLowerCase()),
    ]),
  ];
  return {
    models: models.map((m: { hf_id: string; benchmark_count: number }) => ({ value: m.hf_id, weight: m.benchmark_count })),
    engines: engines.map((e: { engine_name: string; n: number }) => ({ value: e.engine_name, weight: e.n })),
    quantizations: quantizations.map((q: { quantization: string; n: number }) => ({ value: q.quantization, weight: q.n })),
    hwClasses: classes.map((c: { hw_class: string; n: number }) => ({ value: c.hw_class, weight: c.n })),
    gpuNames: gpuNames.map((g: { gpu_name: string; n: number }) => ({ value: g.gpu_name, weight: g.n })),
    chipVendors: chipVendors.map((c: { chip_vendor: string; n: number }) => ({ value: c.chip_vendor, weight: c.n })),
    hardwareTerms,
    usernames: users,
    searchTerms,
  };
}

const drawWeighted = <T>(rng: () => number, items: Weighted<T>[]) => weightedPick(rng, items, (i) => i.weight).value;

/** Most visitors stay on page one; some page on, a few far. */
function offset(rng: () => number, pageSize: number, maxPages: number): number {
  const r = rng();
  if (r < 0.75) return 0;
  if (r < 0.9) return pageSize;
  return pageSize * (2 + Math.floor(rng() * (maxPages - 1)));
}

function toPath(base: string, params: Record<string, string | number>): string {
  const search = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  return search ? `${base}?${search}` : base;
}

/** How many filters a leaderboard view has: none, one (most), two or three. */
function filterCount(rng: () => number): number {
  const r = rng();
  return r < 0.2 ? 0 : r < 0.65 ? 1 : r < 0.9 ? 2 : 3;
}

/**
 * Leaderboard views over the filters (hwClass, memTier, engine, quantization,
 * hardwareName, paramSize, hfId, since) and offsets 0-500, only those the revision accepts.
 */
export function leaderboardMix(facts: TrafficFacts, profile: RevisionProfile, { draws = 8000, seedOffset = 0 } = {}): Mix {
  const rng = prng(7 + seedOffset);
  const accepted = new Set<string>(facetNames(leaderboardFacets, profile));
  const filters: { name: string; weight: number; value: () => string | number }[] = [
    { name: 'hwClass', weight: 20, value: () => drawWeighted(rng, facts.hwClasses) },
    { name: 'hfId', weight: 18, value: () => drawWeighted(rng, facts.models) },
    {
      name: 'engineName',
      weight: 12,
      value: () =>
        drawWeighted(
          rng,
          facts.engines.filter((e) => profile.speedTests.engines.includes(e.value as never)),
        ),
    },
    { name: 'memTier', weight: 12, value: () => pick(rng, buckets.memTier) },
    { name: 'quantization', weight: 10, value: () => drawWeighted(rng, facts.quantizations) },
    { name: 'hardwareName', weight: 10, value: () => pick(rng, facts.hardwareTerms) },
    { name: 'paramSize', weight: 10, value: () => pick(rng, buckets.paramSize).bucket },
    { name: 'since', weight: 8, value: () => pick(rng, Object.keys(buckets.since)) },
  ].filter((f) => accepted.has(f.name));
  const paths: string[] = [];
  for (let i = 0; i < draws; i += 1) {
    const chosen = new Map<string, string | number>();
    const count = filterCount(rng);
    while (chosen.size < count) {
      const filter = weightedPick(rng, filters, (f) => f.weight);
      if (!chosen.has(filter.name)) chosen.set(filter.name, filter.value());
    }
    const params: Record<string, string | number> = Object.fromEntries([...chosen].sort(([a], [b]) => a.localeCompare(b)));
    const from = offset(rng, 50, 10);
    if (from > 0) params.offset = from;
    paths.push(toPath('/api/leaderboard', params));
  }
  return { paths, distinct: new Set(paths).size };
}

/** GET {resultsPath} with its own filters: class, GPU, chip vendor, model tree, user, verified. */
export function resultsMix(facts: TrafficFacts, profile: RevisionProfile, { draws = 4000, seedOffset = 0 } = {}): Mix {
  const rng = prng(11 + seedOffset);
  const accepted = new Set<string>(facetNames(resultsListFacets, profile));
  const filters: { name: string; weight: number; value: () => string | number }[] = [
    { name: 'hwClass', weight: 20, value: () => pick(rng, hwClasses) },
    { name: 'gpuName', weight: 15, value: () => drawWeighted(rng, facts.gpuNames) },
    { name: 'chipVendor', weight: 5, value: () => drawWeighted(rng, facts.chipVendors) },
    { name: 'hfId', weight: 18, value: () => drawWeighted(rng, facts.models) },
    { name: 'verified', weight: 6, value: () => pick(rng, ['true', 'false']) },
    { name: 'username', weight: 4, value: () => pick(rng, facts.usernames) },
  ].filter((f) => accepted.has(f.name));
  const paths: string[] = [];
  for (let i = 0; i < draws; i += 1) {
    const chosen = new Map<string, string | number>();
    const count = Math.min(filterCount(rng), 2);
    while (chosen.size < count) {
      const filter = weightedPick(rng, filters, (f) => f.weight);
      if (!chosen.has(filter.name)) chosen.set(filter.name, filter.value());
    }
    const params: Record<string, string | number> = Object.fromEntries([...chosen].sort(([a], [b]) => a.localeCompare(b)));
    const from = offset(rng, 20, 10);
    if (from > 0) params.offset = from;
    paths.push(toPath(profile.speedTests.resultsPath, params));
  }
  return { paths, distinct: new Set(paths).size };
}

/** GET /api/models/search?q= with names, families, sizes and uploaders people type. */
export function modelSearchMix(facts: TrafficFacts, { draws = 2000, seedOffset = 0 } = {}): Mix {
  const rng = prng(13 + seedOffset);
  const paths: string[] = [];
  for (let i = 0; i < draws; i += 1) {
    // The head of the list (families, common words) is typed far more often than the tail.
    const term = facts.searchTerms[Math.floor(rng() ** 1.8 * facts.searchTerms.length)]!;
    paths.push(toPath('/api/models/search', { q: term }));
  }
  return { paths, distinct: new Set(paths).size };
}
