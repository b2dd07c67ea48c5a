import {
  EVIDENCE_FIELDS,
  SPEC_COUNTER_FLAGS,
  type EvidenceField,
  coreEngineNames,
  deepFreeze,
  revision1OnlyEngineNames,
  revision3AddedEngineNames,
  type EngineName,
} from './constants.ts';

/**
 * The three revisions of the interface, as data.
 *
 * One deployment serves one revision (`API_REVISION`). Everything that differs between
 * revisions lives in its profile here, grouped by resource (`speedTests`, `models`,
 * `apiDocuments`, `quality`, `marketplace`, `reports`; a resource a revision lacks is
 * null), so routes, schemas, services, views and the agent-context ask the profile instead
 * of testing `revision === 2`. Values that never vary are in src/constants.ts.
 * Sources: spec/interface.md ("Versioning", "Speed-test run", "Engine flags", "Limits",
 * "Errors", "Endpoints") and DECISIONS.md for what the spec leaves open.
 */

export type RevisionNumber = 1 | 2 | 3;

export const revisionNumbers: readonly RevisionNumber[] = Object.freeze([1, 2, 3] as const);

export function isRevisionNumber(value: unknown): value is RevisionNumber {
  return value === 1 || value === 2 || value === 3;
}

// ---------------------------------------------------------------------------
// Profile shape
// ---------------------------------------------------------------------------

export type ResultsPath = '/api/benchmarks' | '/api/speed-tests';
export type QualityRoot = '/api/evals' | '/api/benchmarks';
export type AliasMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A path a revision-3 deployment keeps answering for revision-2 clients. */
export interface LegacyAlias {
  /** The old path, e.g. '/api/benchmarks'. */
  readonly path: string;
  /** The current path whose operations it stands for, served with the current revision's rules. */
  readonly target: string;
  /** 'exact': only that path (no sub-paths); 'prefix': the path and everything below it. */
  readonly match: 'exact' | 'prefix';
  readonly methods: readonly AliasMethod[];
  /** The path its `Link: <successor>; rel="successor-version"` names (see deprecationHeaders). */
  readonly successor: string;
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

/** A per-user submission window (see the submission-window service). */
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

/** Bounds of a speed-test submission's fields. */
export interface SubmissionBounds {
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
}

/** Submission fields that only some revisions accept. */
export type RevisionGatedSubmissionField =
  | EvidenceField
  | 'tokSPrefill'
  | 'prefillTokens'
  | 'engineRepository'
  | 'engineBuild'
  | 'engineCommit'
  | 'gpuPowerWatts'
  | 'powerSource'
  | 'hardwareCost'
  | 'replicates';

/** Engine flags that only some revisions accept. */
export type RevisionGatedEngineFlag = 'specDraftWindowSize' | 'warmup' | (typeof SPEC_COUNTER_FLAGS)[number];

/** Speed-test runs: submission, dry-run, the results list and the leaderboard. */
export interface SpeedTestRules {
  /** POST/GET here; the dry-run at `${resultsPath}/dry-run` when `dryRun`. */
  readonly resultsPath: ResultsPath;
  /** POST {resultsPath}/dry-run. */
  readonly dryRun: boolean;
  /** Old results paths kept for revision-2 clients. */
  readonly legacyAliases: readonly LegacyAlias[];
  readonly engines: readonly EngineName[];
  /** Default engineRepository when a submission leaves it out. */
  readonly canonicalEngineRepositories: Readonly<Partial<Record<EngineName, string>>>;
  readonly bounds: SubmissionBounds;
  readonly metricRule: MetricRule;
  /** Whether the submit form marks tokSOut required (the metric rule asks for it by name). */
  readonly tokSOutRequired: boolean;
  readonly submissionLimit: RateLimitRule;
  /** Submission fields that belong to other revisions only: this revision does not accept them. */
  readonly revisionOnlyFields: readonly RevisionGatedSubmissionField[];
  /**
   * Stored run fields this revision's answers leave out: its revision-only fields and what
   * is derived from them (`totalPowerWatts` sums `gpuPowerWatts`).
   */
  readonly omittedRunFields: readonly string[];
  /** Engine flags this revision does not accept. */
  readonly engineFlagFieldsUnavailable: readonly RevisionGatedEngineFlag[];
  /** tokSPrefill and prefillTokens. */
  readonly prefillFields: boolean;
  /** engineRepository, engineBuild, engineCommit (also in the run's `engine`), gpuPowerWatts, hardwareCost, specDraftWindowSize. */
  readonly revision3Fields: boolean;
  /** engineFlags given => engineFlags.commandSnippet required. */
  readonly commandSnippetRequiredWithFlags: boolean;
  /** batchSize means sequences per request; aggregate active sequences = batchSize x concurrency. */
  readonly batchSizeTimesConcurrency: boolean;
  readonly leaderboard: {
    /** The extended filters (hardware name, model size, OS, ...: the facet registry, src/runs/facets.ts, says which). */
    readonly extendedFilters: boolean;
    readonly limit: LimitRange;
  };
  readonly resultsList: {
    /** The date and user filters (src/runs/facets.ts says which). */
    readonly userAndDateFilters: boolean;
    readonly limit: LimitRange;
  };
}

/** The model catalogue. */
export interface ModelRules {
  /** GET /api/models/search. */
  readonly search: boolean;
  readonly listLimit: LimitRange;
  readonly searchLimit: LimitRange;
}

/** The machine-readable descriptions of the API. */
export interface ApiDocumentRules {
  /** GET /api/openapi.json. */
  readonly openApi: boolean;
  /** GET /api/agent-context. */
  readonly agentContext: boolean;
}

/** Quality evaluations (the endpoints come with the quality issue). */
export interface QualityRules {
  readonly root: QualityRoot;
  /** Old quality paths kept for revision-2 clients. */
  readonly legacyAliases: readonly LegacyAlias[];
  /** POST {root}/suites/dry-run. */
  readonly suiteDryRun: boolean;
  /** GET, PATCH, DELETE {root}/submissions... */
  readonly submissions: boolean;
  /** GET {root}/runs answers best run per legacy suite and per shard dataset. */
  readonly runsPerShardDataset: boolean;
  readonly submissionLimit: RateLimitRule;
}

/** The hardware marketplace (/api/marketplace/*). */
export interface MarketplaceRules {
  readonly feedLimit: LimitRange;
}

/**
 * Model reports (/api/models/{org}/{model}/reports, /api/reports/*, /api/report-format). The
 * limits are DECISIONS.md "Limits not shown"; validation and the format contract read them here.
 */
export interface ReportRules {
  /** Accepted `contentFormat` values. */
  readonly contentFormats: readonly ['gfm'];
  readonly title: { readonly min: number; readonly max: number };
  readonly summaryMax: number;
  readonly contentMax: number;
  readonly tags: { readonly max: number; readonly minLength: number; readonly maxLength: number };
  readonly benchmarkRunsMax: number;
  readonly evalRunsMax: number;
  /** Image ids listed on a report, and distinct image tokens in its content. */
  readonly imagesMax: number;
  /** Embed tokens in one report (each is a card rendered by the server). */
  readonly embedsMax: number;
  /** GET /api/models/{org}/{model}/reports. */
  readonly listLimit: LimitRange;
}

export interface RevisionProfile {
  readonly revision: RevisionNumber;
  readonly speedTests: SpeedTestRules;
  readonly models: ModelRules;
  readonly apiDocuments: ApiDocumentRules;
  /** Null where the revision has no quality evaluations. */
  readonly quality: QualityRules | null;
  /** Null where the revision has no marketplace. */
  readonly marketplace: MarketplaceRules | null;
  /** Null where the revision has no model reports. */
  readonly reports: ReportRules | null;
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
  'powerSource',
  'hardwareCost',
  'replicates',
  ...EVIDENCE_FIELDS,
] as const satisfies readonly RevisionGatedSubmissionField[];

/**
 * Engine flags of revision 3 alone: speculative decoding's window and its measured counters,
 * and the warm-up the measurement did (the LocalMaxxing Go CLI sends it with every run).
 */
const revision3OnlyEngineFlags: RevisionGatedEngineFlag[] = ['specDraftWindowSize', 'warmup', ...SPEC_COUNTER_FLAGS];

/** Stored fields derived from a submission field: a revision without the field answers neither. */
const DERIVED_RUN_FIELDS: Readonly<Partial<Record<RevisionGatedSubmissionField, readonly string[]>>> = {
  gpuPowerWatts: ['totalPowerWatts'],
  // The verdict on the evidence belongs to the revision that takes evidence.
  engineTimingsRaw: ['verifiedRun', 'verificationIssues'],
  // Replication (the recipe it is judged on, and the runs of it) belongs to the revision that takes `replicates`.
  replicates: ['recipe', 'replications'],
};

/** Submitted fields that are never stored as given, so no answer has them to omit. */
const NEVER_STORED: ReadonlySet<string> = new Set(['prompt', 'outputText']);

function omittedRunFields(revisionOnly: readonly RevisionGatedSubmissionField[]): string[] {
  return revisionOnly.flatMap((field) => [...(NEVER_STORED.has(field) ? [] : [field]), ...(DERIVED_RUN_FIELDS[field] ?? [])]);
}

/** Whether a metric rule asks for tokSOut by name. */
const requiresTokSOut = (rule: MetricRule) => 'required' in rule && rule.required === 'tokSOut';

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

function submissionBounds(overrides: { temperatureMax: number; engineVersionMax: number }): SubmissionBounds {
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
  };
}

const resultsListLimit: LimitRange = { min: 1, max: 100, default: 20 };
const leaderboardLimit: LimitRange = { min: 1, max: 200, default: 50 };

function modelRules(search: boolean, listDefault: number): ModelRules {
  // The spec gives only the list's default; the max is ours, high enough for the revision-2 default.
  return { search, listLimit: { min: 1, max: 200, default: listDefault }, searchLimit: { min: 1, max: 25, default: 10 } };
}

/** The speed-test rules every revision builds on; each profile overrides what differs. */
function speedTestRules(rules: Omit<SpeedTestRules, 'omittedRunFields' | 'tokSOutRequired'>): SpeedTestRules {
  return { ...rules, omittedRunFields: omittedRunFields(rules.revisionOnlyFields), tokSOutRequired: requiresTokSOut(rules.metricRule) };
}

// ---------------------------------------------------------------------------
// The profiles
// ---------------------------------------------------------------------------

export const revision1Profile: RevisionProfile = deepFreeze<RevisionProfile>({
  revision: 1,
  speedTests: speedTestRules({
    resultsPath: '/api/benchmarks',
    dryRun: false,
    legacyAliases: [],
    engines: [...coreEngineNames, ...revision1OnlyEngineNames],
    canonicalEngineRepositories: {},
    bounds: submissionBounds({ temperatureMax: 2, engineVersionMax: 64 }),
    metricRule: {
      kind: 'anyOf',
      fields: ['tokSOut', 'tokSTotal', 'ttftMs'],
      status: 422,
      message: 'At least one performance metric (TTFT, tok/s output, or tok/s total) is required',
    },
    submissionLimit: fiveMinuteSpeedTestLimit,
    revisionOnlyFields: ['tokSPrefill', 'prefillTokens', ...revision3OnlySubmissionFields],
    engineFlagFieldsUnavailable: revision3OnlyEngineFlags,
    prefillFields: false,
    revision3Fields: false,
    // "in revision 1 every flag is optional"
    commandSnippetRequiredWithFlags: false,
    batchSizeTimesConcurrency: false,
    leaderboard: { extendedFilters: false, limit: leaderboardLimit },
    resultsList: { userAndDateFilters: false, limit: resultsListLimit },
  }),
  models: modelRules(false, 20),
  // The Versioning section names /api/openapi.json without limiting it to a revision.
  apiDocuments: { openApi: true, agentContext: false },
  quality: null,
  marketplace: null,
  reports: null,
});

export const revision2Profile: RevisionProfile = deepFreeze<RevisionProfile>({
  revision: 2,
  speedTests: speedTestRules({
    resultsPath: '/api/benchmarks',
    dryRun: true,
    legacyAliases: [],
    // candle and ctransformers are gone; the wider list comes only in revision 3.
    engines: [...coreEngineNames],
    canonicalEngineRepositories: {},
    bounds: submissionBounds({ temperatureMax: 100, engineVersionMax: 64 }),
    metricRule: {
      kind: 'requiredPlusOneOf',
      required: 'tokSOut',
      oneOf: ['ttftMs', 'tokSPrefill', 'tokSTotal', 'peakVramGb'],
      status: 422,
      message: 'At least one additional metric (TTFT, prefill tok/s, tok/s total, or peak VRAM) is required alongside tok/s output',
    },
    submissionLimit: fiveMinuteSpeedTestLimit,
    revisionOnlyFields: [...revision3OnlySubmissionFields],
    engineFlagFieldsUnavailable: revision3OnlyEngineFlags,
    prefillFields: true,
    revision3Fields: false,
    commandSnippetRequiredWithFlags: true,
    batchSizeTimesConcurrency: false,
    leaderboard: { extendedFilters: true, limit: leaderboardLimit },
    resultsList: { userAndDateFilters: true, limit: resultsListLimit },
  }),
  models: modelRules(true, 200),
  apiDocuments: { openApi: true, agentContext: true },
  quality: {
    root: '/api/evals',
    legacyAliases: [],
    suiteDryRun: false,
    submissions: false,
    runsPerShardDataset: false,
    submissionLimit: qualitySubmissionLimit,
  },
  marketplace: null,
  reports: null,
});

export const revision3Profile: RevisionProfile = deepFreeze<RevisionProfile>({
  revision: 3,
  speedTests: speedTestRules({
    resultsPath: '/api/speed-tests',
    dryRun: true,
    // Revision-2 clients keep working where no path collides (DECISIONS.md "Revisions").
    legacyAliases: [
      { path: '/api/benchmarks', target: '/api/speed-tests', match: 'exact', methods: ['GET', 'POST'], successor: '/api/speed-tests' },
      {
        path: '/api/benchmarks/dry-run',
        target: '/api/speed-tests/dry-run',
        match: 'exact',
        methods: ['POST'],
        successor: '/api/speed-tests',
      },
    ],
    // No candle or ctransformers: those were revision 1 only.
    engines: [...coreEngineNames, ...revision3AddedEngineNames],
    canonicalEngineRepositories: {
      freetoken: 'https://github.com/FlashML-org/FreeToken',
      ninfer: 'https://github.com/Neroued/ninfer',
    },
    bounds: submissionBounds({ temperatureMax: 100, engineVersionMax: 512 }),
    metricRule: { kind: 'required', required: 'tokSOut' },
    submissionLimit: {
      bucket: 'speed-test',
      windowMs: 1 * MINUTE_MS,
      maxPerWindow: 1,
      scope: 'user',
      message: 'Rate limit exceeded. You may submit once every 1 minute.',
    },
    revisionOnlyFields: [],
    engineFlagFieldsUnavailable: [],
    prefillFields: true,
    revision3Fields: true,
    commandSnippetRequiredWithFlags: true,
    batchSizeTimesConcurrency: true,
    leaderboard: { extendedFilters: true, limit: leaderboardLimit },
    resultsList: { userAndDateFilters: true, limit: resultsListLimit },
  }),
  models: modelRules(true, 200),
  apiDocuments: { openApi: true, agentContext: true },
  quality: {
    // The old results path now roots quality evaluations.
    root: '/api/benchmarks',
    // Revision-2 quality clients keep working under /api/evals; DECISIONS.md gives one Link value for all aliases.
    legacyAliases: [
      {
        path: '/api/evals',
        target: '/api/benchmarks',
        match: 'prefix',
        methods: ['GET', 'POST', 'PATCH', 'DELETE'],
        successor: '/api/benchmarks',
      },
    ],
    suiteDryRun: true,
    submissions: true,
    runsPerShardDataset: true,
    submissionLimit: qualitySubmissionLimit,
  },
  marketplace: { feedLimit: { min: 1, max: 100, default: 50 } },
  reports: {
    contentFormats: ['gfm'],
    title: { min: 1, max: 200 },
    summaryMax: 500,
    contentMax: 100_000,
    tags: { max: 10, minLength: 1, maxLength: 32 },
    benchmarkRunsMax: 50,
    evalRunsMax: 50,
    imagesMax: 20,
    embedsMax: 20,
    listLimit: { min: 1, max: 100, default: 20 },
  },
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

/** Every alias of old paths a revision keeps, whatever resource they belong to. */
export function legacyAliasesOf(profile: RevisionProfile): readonly LegacyAlias[] {
  return [...profile.speedTests.legacyAliases, ...(profile.quality?.legacyAliases ?? [])];
}

/** Type guard: is `name` an engine this revision accepts (exact, lowercase)? */
export function acceptsEngine(profile: RevisionProfile, name: string): name is EngineName {
  return (profile.speedTests.engines as readonly string[]).includes(name);
}
