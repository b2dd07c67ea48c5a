/**
 * Values that are the same in every revision of the interface: engine names, hardware
 * classes, leaderboard buckets, reaction emoji, hardware-cost rules, account limits. What
 * differs between revisions is in the revision profiles (src/revisions.ts).
 */

/** Freezes nested objects and arrays too, so no caller can edit a shared value or a profile by accident. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const key of Reflect.ownKeys(value)) {
      deepFreeze((value as Record<PropertyKey, unknown>)[key]);
    }
    Object.freeze(value);
  }
  return value;
}

// ---------------------------------------------------------------------------
// Engines
// ---------------------------------------------------------------------------

// Accepted in every revision (lowercase, matched exactly).
export const coreEngineNames = [
  'llama.cpp',
  'vllm',
  'sglang',
  'ollama',
  'lmstudio',
  'exllamav2',
  'tgi',
  'tensorrt-llm',
  'mlx',
  'text-generation-webui',
  'lmdeploy',
  'mlc-llm',
  'hipfire',
  'tinygrad',
] as const;

// "The revision 1 list also has candle and ctransformers": dropped from revision 2 on.
export const revision1OnlyEngineNames = ['candle', 'ctransformers'] as const;

// The wider revision-3 list; exllamav3 is marked "(rev 3)" in the spec too.
export const revision3AddedEngineNames = [
  'exllamav3',
  'bunn-llama',
  'freetoken',
  'llmd',
  'ninfer',
  'atlas',
  'lucebox',
  'dwarfstar',
  'ember',
] as const;

/** Every engine name any revision accepts (the union, for typing). */
export const allEngineNames = deepFreeze([...coreEngineNames, ...revision1OnlyEngineNames, ...revision3AddedEngineNames] as const);
export type EngineName = (typeof allEngineNames)[number];

// ---------------------------------------------------------------------------
// Hardware, buckets, reactions, costs
// ---------------------------------------------------------------------------

export const hwClasses = ['DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY'] as const;
export type HwClass = (typeof hwClasses)[number];

/**
 * Leaderboard bucket rules (DECISIONS.md "Buckets"); the same in every revision, though
 * only revisions 2 and 3 accept the extended filters (which: the facet registry,
 * src/runs/facets.ts).
 */
export const buckets = deepFreeze({
  // Memory tiers in GB; tier T holds memory in (previous tier, T], the first is (0, 8].
  memTier: [8, 12, 16, 24, 32, 48, 80, 96, 128],
  // Model size in billions of params; bucket holds params in (aboveB, upToB], null = no upper end.
  paramSize: [
    { bucket: 1, aboveB: 0, upToB: 2 },
    { bucket: 3, aboveB: 2, upToB: 5 },
    { bucket: 7, aboveB: 5, upToB: 10 },
    { bucket: 13, aboveB: 10, upToB: 20 },
    { bucket: 30, aboveB: 20, upToB: 50 },
    { bucket: 70, aboveB: 50, upToB: 90 },
    { bucket: 110, aboveB: 90, upToB: null },
  ],
  // batchSize N matches exactly N, except this one, which matches N >= 8.
  batchSizeOpenEnded: 8,
  // contextLen bucket C holds (previous, C]; the largest also takes everything above.
  contextLen: [2048, 4096, 8192, 16384, 32768, 65536, 131072],
  // `since` windows, measured back from now on createdAt.
  since: { '7d': 7 * 24 * 60 * 60 * 1000, '30d': 30 * 24 * 60 * 60 * 1000 },
  os: ['windows', 'linux', 'macos'],
} as const);

export const reactionEmojis = ['fire', 'rocket', '100', 'brain', 'chad'] as const;
export type ReactionEmoji = (typeof reactionEmojis)[number];

/** Self-reported purchase records, revision 3 (DECISIONS.md "Hardware and costs"). */
export const hardwareCostRules = deepFreeze({
  conditions: ['NEW', 'USED', 'REFURBISHED'],
  // ISO 4217, upper case, a fixed list.
  currencies: [
    'USD',
    'EUR',
    'GBP',
    'JPY',
    'CNY',
    'CAD',
    'AUD',
    'CHF',
    'SEK',
    'NOK',
    'DKK',
    'PLN',
    'KRW',
    'INR',
    'BRL',
    'MXN',
    'SGD',
    'HKD',
    'NZD',
    'TWD',
  ],
  // The upper end is the current year, so it is computed at validation time.
  yearPurchasedMin: 1990,
  // price must be strictly greater than this.
  priceExclusiveMin: 0,
} as const);

/**
 * Headers on every legacy alias answer of a revision-3 deployment (DECISIONS.md "Revisions"):
 * each alias names its own successor (`/api/speed-tests` for the results path,
 * `/api/benchmarks` for `/api/evals/*`).
 */
export function deprecationHeaders(successor: string): { Deprecation: 'true'; Link: string } {
  return { Deprecation: 'true', Link: `<${successor}>; rel="successor-version"` };
}

/** The top-level evidence fields of a speed-test submission (revision 3; src/runs/submission/evidence.ts). */
export const EVIDENCE_FIELDS = [
  'prompt',
  'outputText',
  'promptSha256',
  'promptSample',
  'outputSha256',
  'outputSample',
  'engineTimingsRaw',
  'samples',
  'sampleStats',
] as const;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];

/**
 * Where a run's power figure came from (revision 3's `powerSource`): `measured` by the
 * measuring client during the timed window (llm-bench samples nvidia-smi, rocm-smi,
 * powermetrics or RAPL), or `stated` (typed by the submitter, or the hardware's powerWatts).
 */
export const POWER_SOURCES = ['measured', 'stated'] as const;
export type PowerSource = (typeof POWER_SOURCES)[number];

/** Engine flags that are measurements of speculative decoding, not settings: giving only these is no launch configuration. */
export const SPEC_COUNTER_FLAGS = ['specDraftTokens', 'specAcceptedTokens', 'specAcceptanceRate', 'specMeanAcceptedLength'] as const;

/** Live API keys per account; creating one more is a 409. */
export const API_KEYS_PER_ACCOUNT = 10;

/** Saved setups per account; saving one more is a 409. Also the largest page of `GET /api/setups`. */
export const SETUPS_PER_ACCOUNT = 50;

/**
 * What one account may keep (issue 32): images of any kind still served, report images that
 * no report uses yet (they are deleted a day after upload), listings in DRAFT, and reports
 * (drafts and published). One more is a 400 that says the cap.
 */
export const IMAGES_PER_ACCOUNT = 300;
export const UNUSED_REPORT_IMAGES_PER_ACCOUNT = 20;
export const DRAFT_LISTINGS_PER_ACCOUNT = 20;
export const REPORTS_PER_ACCOUNT = 100;

/** How long after submitting an owner may correct a speed-test run (DECISIONS.md "Speed-test ranking"). */
export const RUN_CORRECTION_WINDOW_HOURS = 24;
