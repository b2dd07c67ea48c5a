/**
 * The three revisions of the interface, as data.
 *
 * One deployment serves one revision (`API_REVISION`). Everything that differs
 * between revisions lives in its profile here, so routes, schemas, services and
 * the agent-context ask the profile instead of testing `revision === 2`.
 * Sources: spec/interface.md ("Versioning", "Speed-test run", "Engine flags",
 * "Limits", "Errors", "Endpoints") and DECISIONS.md for what the spec leaves open.
 */

export type RevisionNumber = 1 | 2 | 3;

export const revisionNumbers: readonly RevisionNumber[] = Object.freeze([1, 2, 3] as const);

export function isRevisionNumber(value: unknown): value is RevisionNumber {
  return value === 1 || value === 2 || value === 3;
}

// ---------------------------------------------------------------------------
// Engines
// ---------------------------------------------------------------------------

// Accepted in every revision (lowercase, matched exactly).
const coreEngineNames = [
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
const revision1OnlyEngineNames = ['candle', 'ctransformers'] as const;

// The wider revision-3 list; exllamav3 is marked "(rev 3)" in the spec too.
const revision3AddedEngineNames = [
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
// Values shared by all revisions
// ---------------------------------------------------------------------------

export const hwClasses = ['DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY'] as const;
export type HwClass = (typeof hwClasses)[number];

/**
 * Leaderboard bucket rules (DECISIONS.md "Buckets"); the same in every
 * revision, though only revisions 2 and 3 accept paramSize, os, batchSize and
 * contextLen as filters (see `leaderboardParams`).
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

export type MemTier = (typeof buckets.memTier)[number];
export type ParamSizeBucket = (typeof buckets.paramSize)[number]['bucket'];
export type ContextLenBucket = (typeof buckets.contextLen)[number];
export type SinceValue = keyof typeof buckets.since;
export type LeaderboardOs = (typeof buckets.os)[number];

export const reactionEmojis = ['fire', 'rocket', '100', 'brain', 'chad'] as const;
export type ReactionEmoji = (typeof reactionEmojis)[number];

/** Self-reported purchase records, revision 3 (DECISIONS.md "Hardware and costs"). */
export const hardwareCostRules = deepFreeze({
  conditions: ['NEW', 'USED', 'REFURBISHED'],
  // ISO 4217, upper case, a fixed list.
  currencies: [
    'USD', 'EUR', 'GBP', 'JPY', 'CNY', 'CAD', 'AUD', 'CHF', 'SEK', 'NOK',
    'DKK', 'PLN', 'KRW', 'INR', 'BRL', 'MXN', 'SGD', 'HKD', 'NZD', 'TWD',
  ],
  // The upper end is the current year, so it is computed at validation time.
  yearPurchasedMin: 1990,
  // price must be strictly greater than this.
  priceExclusiveMin: 0,
} as const);

export type HardwareCostCondition = (typeof hardwareCostRules.conditions)[number];
export type HardwareCostCurrency = (typeof hardwareCostRules.currencies)[number];

/** Headers on every legacy alias answer of a revision-3 deployment (DECISIONS.md "Revisions"). */
export const deprecationHeaders = deepFreeze({
  Deprecation: 'true',
  Link: '</api/speed-tests>; rel="successor-version"',
} as const);

// ---------------------------------------------------------------------------
// Profile shape
// ---------------------------------------------------------------------------

export type ResultsPath = '/api/benchmarks' | '/api/speed-tests';
export type QualityRoot = '/api/evals' | '/api/benchmarks';
export type AliasMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A path a revision-3 deployment keeps answering for revision-2 clients. */
export interface LegacyAlias {
  /** Which surface it stands for: speed-test results or the quality root. */
  readonly kind: 'results' | 'quality';
  /** The old path, e.g. '/api/benchmarks'. */
  readonly path: string;
  /** The current path it is served as, with the current revision's rules. */
  readonly target: string;
  /** 'exact': only that path (no sub-paths); 'prefix': the path and everything below it. */
  readonly match: 'exact' | 'prefix';
  readonly methods: readonly AliasMethod[];
  readonly headers: typeof deprecationHeaders;
}

export type MetricField = 'tokSOut' | 'tokSTotal' | 'ttftMs' | 'tokSPrefill' | 'peakVramGb';

/**
 * What a submission must measure. Failing an `anyOf` or the `oneOf` part of
 * `requiredPlusOneOf` is a 422 with `message`; a missing `required` field is an
 * ordinary 400 validation error.
 */
export type MetricRule =
  | { readonly kind: 'anyOf'; readonly fields: readonly MetricField[]; readonly status: 422; readonly message: string }
  | {
      readonly kind: 'requiredPlusOneOf';
      readonly required: MetricField;
      readonly oneOf: readonly MetricField[];
      readonly status: 422;
      readonly message: string;
    }
  | { readonly kind: 'required'; readonly required: MetricField };

export interface RateLimitRule {
  /** Separate buckets: a speed-test submission never uses up the quality allowance. */
  readonly bucket: 'speed-test' | 'quality';
  readonly windowMs: number;
  readonly maxPerWindow: number;
  /** The spec counts per user (agent metadata says per API key; the spec table wins). */
  readonly scope: 'user';
  /** `error` text of the 429 body. */
  readonly message: string;
}

export interface LimitRange {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

export interface Bounds {
  readonly temperature: { readonly min: number; readonly max: number };
  /** Maximum string lengths, in characters. */
  readonly maxLength: {
    readonly hfId: number;
    readonly modelRevision: number;
    readonly engineName: number;
    readonly quantization: number;
    readonly backend: number;
    readonly engineVersion: number;
    readonly engineRepository: number;
    readonly engineBuild: number;
    readonly notes: number;
    readonly commandSnippet: number;
    readonly extraFlags: number;
  };
  /** engineCommit is hex of this length range. */
  readonly engineCommitLength: { readonly min: number; readonly max: number };
  /** Items in `hardware.gpus`. */
  readonly gpusMaxItems: number;
  /** Inclusive 0..1 range of gpuMemUtil, topP, minP. */
  readonly unitInterval: { readonly min: number; readonly max: number };
  readonly mirostatValues: readonly number[];
  /** Live API keys per account; creating one more is a 409. */
  readonly apiKeysPerAccount: number;
  /** `limit` query parameters. */
  readonly pageLimit: {
    readonly results: LimitRange;
    readonly leaderboard: LimitRange;
    readonly models: LimitRange;
    readonly modelSearch: LimitRange;
    readonly marketplaceFeed: LimitRange;
  };
}

export interface Features {
  /** POST {resultsPath}/dry-run. */
  readonly dryRun: boolean;
  /** tokSPrefill and prefillTokens submission fields. */
  readonly prefillFields: boolean;
  /** GET /api/models/search. */
  readonly modelSearch: boolean;
  /** GET /api/agent-context. */
  readonly agentMetadata: boolean;
  /** GET /api/openapi.json. */
  readonly openApi: boolean;
  /** The quality-evaluation endpoints under `qualityRoot`. */
  readonly qualityEvals: boolean;
  /** POST {qualityRoot}/suites/dry-run. */
  readonly qualitySuiteDryRun: boolean;
  /** GET, PATCH, DELETE {qualityRoot}/submissions... */
  readonly qualitySubmissions: boolean;
  /** GET {qualityRoot}/runs answers best run per legacy suite and per shard dataset. */
  readonly qualityRunsPerShardDataset: boolean;
  /** /api/marketplace/*. */
  readonly marketplace: boolean;
  /** Model reports, /api/reports/*, /api/report-format. */
  readonly modelReports: boolean;
  /** engineRepository, engineBuild, engineCommit, gpuPowerWatts, hardwareCost, specDraftWindowSize. */
  readonly revision3Fields: boolean;
  /** engineFlags given => engineFlags.commandSnippet required. */
  readonly commandSnippetRequiredWithFlags: boolean;
  /** batchSize means sequences per request; aggregate active sequences = batchSize x concurrency. */
  readonly batchSizeTimesConcurrency: boolean;
  /** hardwareName, paramSize, os, backend, modelFamily, isMoE, batchSize, contextLen. */
  readonly extendedLeaderboardFilters: boolean;
  /** date, dateFrom, dateTo, userId, username on the results list. */
  readonly resultsListUserAndDateFilters: boolean;
}

/** Submission fields that only some revisions accept. */
export type RevisionGatedSubmissionField =
  | 'tokSPrefill'
  | 'prefillTokens'
  | 'engineRepository'
  | 'engineBuild'
  | 'engineCommit'
  | 'gpuPowerWatts'
  | 'hardwareCost';

/** Engine flags that only some revisions accept. */
export type RevisionGatedEngineFlag = 'specDraftWindowSize';

const baseLeaderboardParams = [
  'hfId',
  'hwClass',
  'memTier',
  'engineName',
  'quantization',
  'verified',
  'since',
  'limit',
  'offset',
] as const;
const extendedLeaderboardParams = [
  'hardwareName',
  'paramSize',
  'os',
  'backend',
  'modelFamily',
  'isMoE',
  'batchSize',
  'contextLen',
] as const;
export type LeaderboardParam = (typeof baseLeaderboardParams)[number] | (typeof extendedLeaderboardParams)[number];

const baseResultsListParams = [
  'hfId',
  'hwClass',
  'gpuName',
  'chipVendor',
  'chipFamily',
  'chipVariant',
  'kvCacheDtype',
  'attentionBackend',
  'gpuLayersMin',
  'tensorParallelMin',
  'specOnly',
  'mtpOnly',
  'verified',
  'limit',
  'offset',
] as const;
const userAndDateResultsListParams = ['date', 'dateFrom', 'dateTo', 'userId', 'username'] as const;
export type ResultsListParam = (typeof baseResultsListParams)[number] | (typeof userAndDateResultsListParams)[number];

export interface RevisionProfile {
  readonly revision: RevisionNumber;
  /** Speed-test results: POST/GET here, dry-run at `${resultsPath}/dry-run` when features.dryRun. */
  readonly resultsPath: ResultsPath;
  /** Root of the quality-evaluation endpoints; null where the revision has none. */
  readonly qualityRoot: QualityRoot | null;
  /** Old paths kept for revision-2 clients; mount them before `qualityRoot` (they may overlap it). */
  readonly legacyAliases: readonly LegacyAlias[];
  readonly engines: readonly EngineName[];
  /** Default engineRepository when a submission leaves it out. */
  readonly canonicalEngineRepositories: Readonly<Partial<Record<EngineName, string>>>;
  readonly bounds: Bounds;
  readonly metricRule: MetricRule;
  readonly rateLimits: {
    readonly speedTestSubmission: RateLimitRule;
    readonly qualitySubmission: RateLimitRule;
  };
  readonly features: Features;
  /** Submission fields that belong to other revisions only: this revision does not accept them. */
  readonly revisionOnlyFields: readonly RevisionGatedSubmissionField[];
  /** Engine flags this revision does not accept. */
  readonly engineFlagFieldsUnavailable: readonly RevisionGatedEngineFlag[];
  readonly leaderboardParams: readonly LeaderboardParam[];
  readonly resultsListParams: readonly ResultsListParam[];
}

// ---------------------------------------------------------------------------
// Building blocks shared by several profiles
// ---------------------------------------------------------------------------

const MINUTE_MS = 60 * 1000;

const revision3OnlySubmissionFields = [
  'engineRepository',
  'engineBuild',
  'engineCommit',
  'gpuPowerWatts',
  'hardwareCost',
] as const satisfies readonly RevisionGatedSubmissionField[];

// Quality runs: 1 per 5 minutes per user in every revision that has them. The
// spec shows the 429 text only once; the 5-minute wording fits this bucket too.
const qualitySubmissionLimit: RateLimitRule = {
  bucket: 'quality',
  windowMs: 5 * MINUTE_MS,
  maxPerWindow: 1,
  scope: 'user',
  message: 'Rate limit exceeded. You may submit once every 5 minutes.',
};

const fiveMinuteSpeedTestLimit: RateLimitRule = {
  bucket: 'speed-test',
  windowMs: 5 * MINUTE_MS,
  maxPerWindow: 1,
  scope: 'user',
  message: 'Rate limit exceeded. You may submit once every 5 minutes.',
};

function bounds(overrides: {
  temperatureMax: number;
  engineVersionMax: number;
  modelsDefaultLimit: number;
}): Bounds {
  return {
    temperature: { min: 0, max: overrides.temperatureMax },
    maxLength: {
      hfId: 256,
      modelRevision: 128,
      engineName: 64,
      quantization: 64,
      backend: 64,
      engineVersion: overrides.engineVersionMax,
      engineRepository: 512,
      engineBuild: 256,
      notes: 2000,
      commandSnippet: 4000,
      extraFlags: 1000,
    },
    engineCommitLength: { min: 7, max: 64 },
    gpusMaxItems: 16,
    unitInterval: { min: 0, max: 1 },
    mirostatValues: [0, 1, 2],
    apiKeysPerAccount: 10,
    pageLimit: {
      results: { min: 1, max: 100, default: 20 },
      leaderboard: { min: 1, max: 200, default: 50 },
      // The spec gives only the default; the max is ours, high enough for the revision-2 default.
      models: { min: 1, max: 200, default: overrides.modelsDefaultLimit },
      modelSearch: { min: 1, max: 25, default: 10 },
      marketplaceFeed: { min: 1, max: 100, default: 50 },
    },
  };
}

/** Freezes nested objects and arrays too, so no caller can edit a profile by accident. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const key of Reflect.ownKeys(value)) {
      deepFreeze((value as Record<PropertyKey, unknown>)[key]);
    }
    Object.freeze(value);
  }
  return value;
}

// ---------------------------------------------------------------------------
// The profiles
// ---------------------------------------------------------------------------

export const revision1Profile: RevisionProfile = deepFreeze<RevisionProfile>({
  revision: 1,
  resultsPath: '/api/benchmarks',
  qualityRoot: null,
  legacyAliases: [],
  engines: [...coreEngineNames, ...revision1OnlyEngineNames],
  canonicalEngineRepositories: {},
  bounds: bounds({ temperatureMax: 2, engineVersionMax: 64, modelsDefaultLimit: 20 }),
  metricRule: {
    kind: 'anyOf',
    fields: ['tokSOut', 'tokSTotal', 'ttftMs'],
    status: 422,
    message: 'At least one performance metric (TTFT, tok/s output, or tok/s total) is required',
  },
  rateLimits: {
    speedTestSubmission: fiveMinuteSpeedTestLimit,
    qualitySubmission: qualitySubmissionLimit,
  },
  features: {
    dryRun: false,
    prefillFields: false,
    modelSearch: false,
    agentMetadata: false,
    // The Versioning section names /api/openapi.json without limiting it to a revision.
    openApi: true,
    qualityEvals: false,
    qualitySuiteDryRun: false,
    qualitySubmissions: false,
    qualityRunsPerShardDataset: false,
    marketplace: false,
    modelReports: false,
    revision3Fields: false,
    // "in revision 1 every flag is optional"
    commandSnippetRequiredWithFlags: false,
    batchSizeTimesConcurrency: false,
    extendedLeaderboardFilters: false,
    resultsListUserAndDateFilters: false,
  },
  revisionOnlyFields: ['tokSPrefill', 'prefillTokens', ...revision3OnlySubmissionFields],
  engineFlagFieldsUnavailable: ['specDraftWindowSize'],
  leaderboardParams: [...baseLeaderboardParams],
  resultsListParams: [...baseResultsListParams],
});

export const revision2Profile: RevisionProfile = deepFreeze<RevisionProfile>({
  revision: 2,
  resultsPath: '/api/benchmarks',
  qualityRoot: '/api/evals',
  legacyAliases: [],
  // candle and ctransformers are gone; the wider list comes only in revision 3.
  engines: [...coreEngineNames],
  canonicalEngineRepositories: {},
  bounds: bounds({ temperatureMax: 100, engineVersionMax: 64, modelsDefaultLimit: 200 }),
  metricRule: {
    kind: 'requiredPlusOneOf',
    required: 'tokSOut',
    oneOf: ['ttftMs', 'tokSPrefill', 'tokSTotal', 'peakVramGb'],
    status: 422,
    message:
      'At least one additional metric (TTFT, prefill tok/s, tok/s total, or peak VRAM) is required alongside tok/s output',
  },
  rateLimits: {
    speedTestSubmission: fiveMinuteSpeedTestLimit,
    qualitySubmission: qualitySubmissionLimit,
  },
  features: {
    dryRun: true,
    prefillFields: true,
    modelSearch: true,
    agentMetadata: true,
    openApi: true,
    qualityEvals: true,
    qualitySuiteDryRun: false,
    qualitySubmissions: false,
    qualityRunsPerShardDataset: false,
    marketplace: false,
    modelReports: false,
    revision3Fields: false,
    commandSnippetRequiredWithFlags: true,
    batchSizeTimesConcurrency: false,
    extendedLeaderboardFilters: true,
    resultsListUserAndDateFilters: true,
  },
  revisionOnlyFields: [...revision3OnlySubmissionFields],
  engineFlagFieldsUnavailable: ['specDraftWindowSize'],
  leaderboardParams: [...baseLeaderboardParams, ...extendedLeaderboardParams],
  resultsListParams: [...baseResultsListParams, ...userAndDateResultsListParams],
});

export const revision3Profile: RevisionProfile = deepFreeze<RevisionProfile>({
  revision: 3,
  resultsPath: '/api/speed-tests',
  // The old results path now roots quality evaluations.
  qualityRoot: '/api/benchmarks',
  // Revision-2 clients keep working where no path collides (DECISIONS.md "Revisions").
  legacyAliases: [
    {
      kind: 'results',
      path: '/api/benchmarks',
      target: '/api/speed-tests',
      match: 'exact',
      methods: ['GET', 'POST'],
      headers: deprecationHeaders,
    },
    {
      kind: 'results',
      path: '/api/benchmarks/dry-run',
      target: '/api/speed-tests/dry-run',
      match: 'exact',
      methods: ['POST'],
      headers: deprecationHeaders,
    },
    {
      kind: 'quality',
      path: '/api/evals',
      target: '/api/benchmarks',
      match: 'prefix',
      methods: ['GET', 'POST', 'PATCH', 'DELETE'],
      // DECISIONS.md gives one Link value for all aliases.
      headers: deprecationHeaders,
    },
  ],
  // No candle or ctransformers: those were revision 1 only.
  engines: [...coreEngineNames, ...revision3AddedEngineNames],
  canonicalEngineRepositories: {
    freetoken: 'https://github.com/FlashML-org/FreeToken',
    ninfer: 'https://github.com/Neroued/ninfer',
  },
  bounds: bounds({ temperatureMax: 100, engineVersionMax: 512, modelsDefaultLimit: 200 }),
  metricRule: { kind: 'required', required: 'tokSOut' },
  rateLimits: {
    speedTestSubmission: {
      bucket: 'speed-test',
      windowMs: 1 * MINUTE_MS,
      maxPerWindow: 1,
      scope: 'user',
      message: 'Rate limit exceeded. You may submit once every 1 minute.',
    },
    qualitySubmission: qualitySubmissionLimit,
  },
  features: {
    dryRun: true,
    prefillFields: true,
    modelSearch: true,
    agentMetadata: true,
    openApi: true,
    qualityEvals: true,
    qualitySuiteDryRun: true,
    qualitySubmissions: true,
    qualityRunsPerShardDataset: true,
    marketplace: true,
    modelReports: true,
    revision3Fields: true,
    commandSnippetRequiredWithFlags: true,
    batchSizeTimesConcurrency: true,
    extendedLeaderboardFilters: true,
    resultsListUserAndDateFilters: true,
  },
  revisionOnlyFields: [],
  engineFlagFieldsUnavailable: [],
  leaderboardParams: [...baseLeaderboardParams, ...extendedLeaderboardParams],
  resultsListParams: [...baseResultsListParams, ...userAndDateResultsListParams],
});

export const revisionProfiles: Readonly<Record<RevisionNumber, RevisionProfile>> = Object.freeze({
  1: revision1Profile,
  2: revision2Profile,
  3: revision3Profile,
});

export function getRevisionProfile(revision: RevisionNumber): RevisionProfile {
  const profile = revisionProfiles[revision];
  // Guards callers that cast an unchecked value to RevisionNumber.
  if (!profile) throw new RangeError(`Unknown API revision: ${String(revision)}`);
  return profile;
}

/** Type guard: is `name` an engine this revision accepts (exact, lowercase)? */
export function acceptsEngine(profile: RevisionProfile, name: string): name is EngineName {
  return (profile.engines as readonly string[]).includes(name);
}
