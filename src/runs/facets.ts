/**
 * The facet registry: every filter of the leaderboard and of the results list, once. An
 * entry says what its query parameter accepts, what it means in words (OpenAPI and the
 * agent-context), which revisions have it, the run facts it narrows to (`terms`, which
 * both read paths interpret: SQL in `applyTerms`, the read index in `RunIndex.compile`),
 * how the count tables hold its total, and how the leaderboard page's form offers it.
 *
 * Adding a filter is one entry here (plus a migration when its run column is new, and a
 * fact in RUN_FACTS when the index must keep a new column): the query schemas, both read
 * paths, the counts, the documents, the page's form and the two-path equivalence test
 * follow from it.
 */
import type { Knex } from 'knex';
import { z } from 'zod';
import { buckets, hwClasses } from '../constants.ts';
import { engineChoices, hwClassLabel } from '../lib/labels.ts';
import { everyTokenSql, hardwareNameTokens } from '../lib/search-tokens.ts';
import type { RevisionProfile } from '../revisions.ts';
import type { ProfileCondition, ProfileTextColumn } from './profile-conditions.ts';
import { modelScopes } from '../services/model-tree.ts';
import { documentedAs } from '../schemas/json-schema.ts';
import { queryFlag, queryText, wholeNumber } from '../schemas/query-params.ts';

// ---------------------------------------------------------------------------
// Run facts: the columns of a run that filters narrow on and the read index keeps
// ---------------------------------------------------------------------------

/** How the driver's value of a fact's column is read: ids and text as strings, numbers, flags. */
type FactKind = 'id' | 'text' | 'number' | 'boolean';

/**
 * The facts of an approved run that filters test, each with its column of
 * speed_test_runs (alias `r`). The read index keeps every one of them per run, in this
 * order (`build.ts` selects the columns in it).
 */
export const RUN_FACTS = {
  modelId: { column: 'r.model_id', kind: 'id' },
  hardwareId: { column: 'r.hardware_id', kind: 'id' },
  userId: { column: 'r.user_id', kind: 'id' },
  hwClass: { column: 'r.hw_class', kind: 'text' },
  memTier: { column: 'r.mem_tier', kind: 'number' },
  engineName: { column: 'r.engine_name', kind: 'text' },
  quantization: { column: 'r.quantization', kind: 'text' },
  userVerified: { column: 'r.user_verified', kind: 'boolean' },
  paramBucket: { column: 'r.param_bucket', kind: 'number' },
  osFamily: { column: 'r.os_family', kind: 'text' },
  backend: { column: 'r.backend', kind: 'text' },
  /** Lowercase, as the run row keeps it. */
  modelFamily: { column: 'r.model_family', kind: 'text' },
  isMoE: { column: 'r.model_is_moe', kind: 'boolean' },
  batchSize: { column: 'r.batch_size', kind: 'number' },
  /** batchSize x concurrency: what revision 3's batchSize filter buckets on. */
  activeSequences: { column: 'r.active_sequences', kind: 'number' },
  ctxBucket: { column: 'r.ctx_bucket', kind: 'number' },
  plausibility: { column: 'r.plausibility', kind: 'text' },
  kvCacheDtype: { column: 'r.kv_cache_dtype', kind: 'text' },
  attentionBackend: { column: 'r.attention_backend', kind: 'text' },
  gpuLayers: { column: 'r.gpu_layers', kind: 'number' },
  tensorParallel: { column: 'r.tensor_parallel', kind: 'number' },
  specDecoding: { column: 'r.spec_decoding', kind: 'boolean' },
  mtpEnabled: { column: 'r.mtp_enabled', kind: 'boolean' },
  /** Approved runs of the same recipe on the same device by other users (kept by the `replications` migration's trigger). */
  replicationCount: { column: 'r.replication_count', kind: 'number' },
} as const satisfies Record<string, { column: string; kind: FactKind }>;

export type RunFactName = keyof typeof RUN_FACTS;
export type FactValue = string | number | boolean;
export const RUN_FACT_NAMES = Object.keys(RUN_FACTS) as RunFactName[];

/** A created-at window in microseconds since the epoch (Postgres keeps microseconds); each bound optional. */
export interface CreatedWindow {
  atOrAfter?: number;
  after?: number;
  before?: number;
}

/**
 * One condition on a run, in the terms both read paths understand. A filter's value
 * becomes terms (`FilterFacet.terms`); a run matches a query when it meets every term.
 */
export type Term =
  | { fact: RunFactName; op: 'equal'; value: FactValue }
  | { fact: RunFactName; op: 'notEqual'; value: FactValue }
  | { fact: RunFactName; op: 'anyOf'; values: readonly string[] }
  | { fact: RunFactName; op: 'atLeast'; value: number }
  /** Lower-case text containing the value with separators ignored (`qwen3moe` = `qwen3_moe`). */
  | { fact: RunFactName; op: 'containsSquashed'; value: string }
  | { op: 'created'; window: CreatedWindow };

/** The terms as SQL conditions on `speed_test_runs as r` (the read index's twin: `RunIndex.compile`). */
export function applyTerms(q: Knex.QueryBuilder, terms: readonly Term[]): void {
  const at = (us: number) => new Date(us / 1000);
  for (const term of terms) {
    if (term.op === 'created') {
      const { atOrAfter, after, before } = term.window;
      if (atOrAfter !== undefined) q.where('r.created_at', '>=', at(atOrAfter));
      if (after !== undefined) q.where('r.created_at', '>', at(after));
      if (before !== undefined) q.where('r.created_at', '<', at(before));
      continue;
    }
    const { column, kind } = RUN_FACTS[term.fact];
    switch (term.op) {
      case 'equal':
        q.where(column, term.value);
        break;
      case 'notEqual':
        q.whereNot(column, term.value);
        break;
      case 'anyOf':
        q.whereRaw(`${column} = any(?::${kind === 'id' ? 'uuid' : 'text'}[])`, [term.values as string[]]);
        break;
      case 'atLeast':
        q.where(column, '>=', term.value);
        break;
      case 'containsSquashed': {
        const { sql, bindings } = everyTokenSql(column, [term.value.toLowerCase()], { squashed: true });
        q.whereRaw(sql, bindings);
        break;
      }
      default:
        throw new Error(`unknown term ${JSON.stringify(term satisfies never)}`);
    }
  }
}

// ---------------------------------------------------------------------------
// Facets: query parameters and what they mean
// ---------------------------------------------------------------------------

/** A count-table fact: a dimension and one value, or a set of values (see `countTableTotal`). */
export type CountFact = [dimension: string, value: string | readonly string[]];

/** What a facet may ask the service for: names resolved to ids, once per query. */
export interface FacetResolvers {
  /** The catalogue id of one model (any case), or null. */
  modelId(hfId: string): Promise<string | null>;
  /** The models a results-list `hfId` covers: the model alone or its tree (the list's scope). */
  modelScope(hfId: string): Promise<string[]>;
  /** The hardware profiles the query's hardware facets narrow to (`profile` of each given one). */
  hardwareProfiles(): Promise<string[]>;
  /** A user's id by username (any case), or null. */
  userId(username: string): Promise<string | null>;
}

export interface FacetContext {
  profile: RevisionProfile;
  now: Date;
  /** The whole parsed query: some facets give way to others (userId over username over verified). */
  query: Readonly<Record<string, unknown>>;
  resolve: FacetResolvers;
}

/** Terms of one facet's value; null when it names nothing (an unknown model or user). */
type Terms = readonly Term[] | null;

/** A page control offering the facet: its label and kind. */
export type FormControl =
  | { kind: 'model' }
  | { kind: 'engine' }
  | { kind: 'text'; placeholder: string; list?: string }
  | { kind: 'choice'; choices: (profile: RevisionProfile) => readonly { value: string | number; label: string }[]; anyLabel?: string };

export interface FilterFacet<Schema extends z.ZodType = z.ZodType> {
  /** The query parameter's schema (values arrive as text). */
  schema(profile: RevisionProfile): Schema;
  /** What it matches, for the OpenAPI document. */
  description: string;
  /** Whether the revision has it (default: every revision). */
  available?(profile: RevisionProfile): boolean;
  /** The run facts it narrows to. */
  terms(value: z.output<Schema>, ctx: FacetContext): Terms | Promise<Terms>;
  /** What it asks of a hardware profile (`hardware_profiles`), for a facet that is a fact of the hardware. */
  profile?(value: z.output<Schema>): ProfileCondition;
  /** How the count tables keep its totals; absent when they do not count it. */
  count?: {
    /** Its count-table fact (null: it names nothing); by default its own name and the value as text. */
    fact?(value: z.output<Schema>, ctx: FacetContext): CountFact | null | Promise<CountFact | null>;
    /** Its column in the cube of the five main filters. */
    cube?: string;
    /** Paired with days, for `since` totals. */
    perDay?: true;
  };
  /** The leaderboard page's control: among the main five, or behind "More filters". */
  form?: { place: 'main' | 'more'; label: string | ((profile: RevisionProfile) => string); control: FormControl };
  /** A rule in words for the agent-context (its bucket rules). */
  rule?(profile: RevisionProfile): string;
  /** The values it takes, for the agent-context's enums. */
  values?: readonly (string | number)[];
  /**
   * The facet it qualifies (`scope` qualifies `hfId`): read by that facet's terms, it
   * narrows nothing itself, so it is no given filter (no terms, counts or profiles of its own).
   */
  qualifies?: string;
  /** What it keeps moves with the clock (`since`): an answer with it is not kept between changes (src/middleware/read-cache.ts). */
  movesWithClock?: true;
}

/** Whether the revision has the facet. */
const availableIn = (entry: FilterFacet, profile: RevisionProfile) => entry.available?.(profile) ?? true;

/** An entry with its value typed by its schema. */
const facet = <Schema extends z.ZodType>(entry: FilterFacet<Schema>): FilterFacet<Schema> => entry;

const text = queryText;
const flag = queryFlag;
/** One of a bucket's values, sent as text and read as the integer. */
const oneOf = <T extends number>(values: readonly T[]) =>
  documentedAs(
    z
      .string({ error: 'Must be given once' })
      .refine((v) => values.map(String).includes(v), `Must be one of ${values.join(', ')}`)
      .transform((v) => Number(v) as T),
    { type: 'integer', enum: [...values] },
  );
const extended = (profile: RevisionProfile) => profile.speedTests.leaderboard.extendedFilters;
const userAndDate = (profile: RevisionProfile) => profile.speedTests.resultsList.userAndDateFilters;
const equal = (fact: RunFactName, value: FactValue): Terms => [{ fact, op: 'equal', value }];
const choices =
  <T extends string | number>(values: readonly T[], label: (value: T) => string = String) =>
  () =>
    values.map((value) => ({ value, label: label(value) }));
const range = (above: number, upTo: number | null) => (upTo === null ? `above ${above}` : `(${above}, ${upTo}]`);

/** A memory tier in words: "up to 8 GB", then "over 16, up to 24 GB" (a tier holds (previous, T]). */
const memTierLabel = (tier: number) => {
  const [above, upTo] = memTierRange(tier);
  return above === 0 ? `up to ${upTo} GB` : `over ${above}, up to ${upTo} GB`;
};

/** memTier T holds memory in (previous tier, T]; the first tier starts at 0. */
function memTierRange(tier: number): [above: number, upTo: number] {
  const at = buckets.memTier.indexOf(tier as (typeof buckets.memTier)[number]);
  return [at > 0 ? buckets.memTier[at - 1]! : 0, tier];
}

/**
 * What a `batchSize` filter matches (DECISIONS.md "Buckets"), for both read paths and the
 * count tables alike: revision 3 counts aggregate active sequences (batchSize x
 * concurrency), revisions 1 and 2 batchSize alone; N exactly, or N and more for the
 * open-ended bucket.
 */
function batchBucket(profile: RevisionProfile, batchSize: number) {
  const onSequences = profile.speedTests.batchSizeTimesConcurrency;
  const atLeast = batchSize >= buckets.batchSizeOpenEnded;
  return {
    value: atLeast ? buckets.batchSizeOpenEnded : batchSize,
    atLeast,
    fact: onSequences ? ('activeSequences' as const) : ('batchSize' as const),
    countedDimension: onSequences ? 'activeSequences' : 'batchSize',
  };
}

/** A hardware fact the results list matches exactly on its profile column. */
const exactHardwareFacet = (column: ProfileTextColumn, description: string) =>
  facet({
    schema: () => text(256),
    description,
    terms: async (_value, { resolve }) => [{ fact: 'hardwareId', op: 'anyOf', values: await resolve.hardwareProfiles() }],
    profile: (value) => ({ column, equals: value }),
  });

const hwClassSchema = () => z.enum(hwClasses, { error: `Must be one of ${hwClasses.join(', ')}` });

/** The leaderboard's filters, in the order the documents list them. */
export const leaderboardFacets = {
  hfId: facet({
    schema: () => text(256),
    description:
      'One model (URL-encoded `org/model`, any case), exactly that repository; with `scope=tree` also its finetunes, quantizations, adapters and merges.',
    terms: async (hfId, ctx) => {
      const modelIds = await leaderboardModelIds(hfId, ctx);
      return modelIds.length > 0 ? [{ fact: 'modelId', op: 'anyOf', values: modelIds }] : null;
    },
    count: {
      fact: async (hfId, ctx) => {
        const modelIds = await leaderboardModelIds(hfId, ctx);
        return modelIds.length === 0 ? null : ['modelId', modelIds.length === 1 ? modelIds[0]! : modelIds];
      },
    },
    form: { place: 'main', label: 'Model', control: { kind: 'model' } },
  }),
  scope: facet({
    schema: () => z.enum(modelScopes, { error: `Must be one of ${modelScopes.join(', ')}` }),
    available: extended,
    description:
      "What `hfId` covers: `model` (the default) that repository alone; `tree` the model with its finetunes, quantizations, adapters and merges (the results list's rule).",
    terms: () => [],
    qualifies: 'hfId',
    rule: () =>
      'scope=tree widens hfId to the model and every model derived from it (finetunes, quantizations such as GGUF/MLX repos, adapters, merges); scope=model, the default, keeps hfId exact. The leaderboard page asks for scope=tree.',
    values: modelScopes,
  }),
  hardwareName: facet({
    schema: () => text(128),
    available: extended,
    description:
      'Case-insensitive match over the GPU name, chip family/variant/vendor and CPU name as written and the hardware catalogue names they resolve to: every word must appear, in any order (`4090 rtx`, `Apple M4 Max`; `Tesla V100` finds `Tesla V100-PCIE-16GB`); a maker word (nvidia, amd, intel, apple, qualcomm, geforce) is optional next to other words. Any substring of those names still matches.',
    terms: async (_name, { resolve }) => [{ fact: 'hardwareId', op: 'anyOf', values: await resolve.hardwareProfiles() }],
    // Words in any order, the vendor optional ("Apple M4 Max", "4090 rtx"), as documented.
    profile: (name) => ({ column: 'hardware_search', containsEvery: hardwareNameTokens(name) }),
    form: { place: 'main', label: 'Hardware name', control: { kind: 'text', placeholder: 'M4 Max, 4090' } },
    rule: () =>
      'hardwareName matches the GPU name, chip vendor/family/variant and CPU name as written, and the catalogue names they resolve to, case-insensitively: every word must appear, in any order; a maker word (nvidia, amd, apple, ...) is optional next to others.',
  }),
  hwClass: facet({
    schema: hwClassSchema,
    description: 'Hardware class.',
    terms: (hwClass) => equal('hwClass', hwClass),
    profile: (hwClass) => ({ column: 'hw_class', equals: hwClass }),
    count: { cube: 'hw_class', perDay: true },
    form: { place: 'main', label: 'Hardware class', control: { kind: 'choice', choices: choices(hwClasses, hwClassLabel) } },
  }),
  engineName: facet({
    schema: (profile) =>
      z.enum(profile.speedTests.engines as [string, ...string[]], { error: `Must be one of: ${profile.speedTests.engines.join(', ')}` }),
    description: 'Exact engine.',
    terms: (engine) => equal('engineName', engine),
    count: { cube: 'engine_name', perDay: true },
    form: { place: 'main', label: 'Engine', control: { kind: 'engine' } },
  }),
  quantization: facet({
    schema: () => text(64),
    description: 'Exact quantization.',
    terms: (quantization) => equal('quantization', quantization),
    count: { cube: 'quantization', perDay: true },
    form: { place: 'main', label: 'Quantization', control: { kind: 'text', placeholder: 'Q4_K_M, q8_0', list: 'lb-quantizations' } },
  }),
  memTier: facet({
    schema: () => oneOf(buckets.memTier),
    description:
      'Memory tier in GB: runs whose memory is in (previous tier, tier]; the first tier is (0, 8]. Memory = total VRAM (DISCRETE_GPU), unifiedMemoryGb (UNIFIED) or ramGb (CPU_ONLY).',
    terms: (tier) => equal('memTier', tier),
    profile: (tier) => {
      const [above, atMost] = memTierRange(tier);
      return { column: 'memory_gb', above, atMost };
    },
    count: { cube: 'mem_tier', perDay: true },
    form: { place: 'more', label: 'Memory tier', control: { kind: 'choice', choices: choices(buckets.memTier, memTierLabel) } },
    rule: () =>
      `Memory tiers in GB: ${buckets.memTier.join(', ')}. Tier T holds runs whose memory is in (previous tier, T]; the first tier is (0, ${buckets.memTier[0]}]. ` +
      'Memory is the total VRAM across cards (DISCRETE_GPU), unifiedMemoryGb (UNIFIED) or ramGb (CPU_ONLY).',
    values: buckets.memTier,
  }),
  memoryAtMost: facet({
    schema: () => wholeNumber(1, 100_000),
    available: extended,
    description:
      'Beyond the spec: only runs on hardware with at most this much memory in GB (what fits a machine of that size), memory as memTier reads it: total VRAM, unified memory or RAM.',
    terms: async (_gb, { resolve }) => [{ fact: 'hardwareId', op: 'anyOf', values: await resolve.hardwareProfiles() }],
    profile: (gb) => ({ column: 'memory_gb', atMost: gb }),
    form: { place: 'more', label: 'Memory up to (GB)', control: { kind: 'text', placeholder: '24' } },
    rule: () =>
      'memoryAtMost=G keeps runs on hardware whose memory (total VRAM, unified memory or RAM) is G GB or less: every tier up to G, unlike memTier, which is one tier.',
  }),
  verified: facet({
    schema: flag,
    description: 'Only runs of verified (`true`) or unverified (`false`) users; omit for all.',
    terms: (verified) => equal('userVerified', verified),
    count: {},
    form: {
      place: 'more',
      label: 'Submitter',
      control: { kind: 'choice', choices: choices(['true', 'false'], (v) => (v === 'true' ? 'verified only' : 'not verified')) },
    },
  }),
  since: facet({
    schema: () => z.enum(Object.keys(buckets.since) as ['7d', '30d'], { error: 'Must be 7d or 30d' }),
    description: 'Only runs created in the last 7 or 30 days; omit for all time.',
    movesWithClock: true,
    terms: (since, { now }) => [{ op: 'created', window: { atOrAfter: (now.getTime() - buckets.since[since]) * 1000 } }],
    form: {
      place: 'more',
      label: 'Since',
      control: { kind: 'choice', choices: choices(['7d', '30d'], (v) => (v === '7d' ? 'last 7 days' : 'last 30 days')) },
    },
    rule: () => 'since=7d or since=30d keeps runs created in the last 7 or 30 days (by createdAt); omit it for all time.',
    values: Object.keys(buckets.since),
  }),
  paramSize: facet({
    schema: () => oneOf(buckets.paramSize.map((b) => b.bucket)),
    available: extended,
    description:
      'Model size bucket in billions: 1 = (0,2], 3 = (2,5], 7 = (5,10], 13 = (10,20], 30 = (20,50], 70 = (50,90], 110 = above 90.',
    terms: (bucket) => equal('paramBucket', bucket),
    count: { cube: 'param_bucket', perDay: true },
    form: {
      place: 'more',
      label: 'Model size',
      control: {
        kind: 'choice',
        choices: choices(
          buckets.paramSize.map((b) => b.bucket),
          (v) => `~${v}B`,
        ),
      },
    },
    rule: () =>
      `Model size buckets in billions of parameters: ${buckets.paramSize.map((b) => `${b.bucket} = ${range(b.aboveB, b.upToB)}`).join(', ')}.`,
    values: buckets.paramSize.map((b) => b.bucket),
  }),
  os: facet({
    schema: () => z.enum(buckets.os, { error: `Must be one of ${buckets.os.join(', ')}` }),
    available: extended,
    description: 'Operating-system family.',
    terms: (os) => equal('osFamily', os),
    profile: (os) => ({ column: 'os_family', equals: os }),
    count: {},
    form: { place: 'more', label: 'OS', control: { kind: 'choice', choices: choices(buckets.os) } },
    rule: () => `os=${buckets.os.join('|')} matches the operating-system family read from hardware.os (e.g. "Ubuntu 24.04" is linux).`,
    values: buckets.os,
  }),
  backend: facet({
    schema: () => text(64),
    available: extended,
    description: 'Exact backend.',
    terms: (backend) => equal('backend', backend),
    count: {},
    form: { place: 'more', label: 'Backend', control: { kind: 'text', placeholder: 'cuda, metal, rocm' } },
  }),
  modelFamily: facet({
    schema: () => text(128),
    available: extended,
    description: 'Case-insensitive substring of the model family.',
    // Separators ignored on both sides: GGUF writes `qwen3moe` where config.json writes `qwen3_moe`.
    terms: (family) => [{ fact: 'modelFamily', op: 'containsSquashed', value: family.toLowerCase() }],
    form: { place: 'more', label: 'Model family', control: { kind: 'text', placeholder: 'llama, qwen3' } },
  }),
  isMoE: facet({
    schema: flag,
    available: extended,
    description: 'MoE (`true`) or dense (`false`) models.',
    terms: (isMoE) => equal('isMoE', isMoE),
    count: {},
    form: {
      place: 'more',
      label: 'Architecture',
      control: { kind: 'choice', choices: choices(['true', 'false'], (v) => (v === 'true' ? 'mixture of experts' : 'dense')) },
    },
  }),
  batchSize: facet({
    // N is exact below the open-ended bucket, which means N or more.
    schema: () => wholeNumber(1, buckets.batchSizeOpenEnded),
    available: extended,
    description:
      'Runs with exactly this batch size; 8 matches 8 or more. Revision 3 counts aggregate active sequences: batchSize x concurrency (numParallel without concurrency). Omitted, the API ranks every run, throughput runs (aggregate tok/s of several streams) among single-stream ones, and each row says its `streams`; `batchSize=1` ranks single-stream runs only, as the leaderboard page and every "best" on the pages do.',
    terms: (batchSize, { profile }) => {
      const { fact, atLeast, value } = batchBucket(profile, batchSize);
      return [atLeast ? { fact, op: 'atLeast', value } : { fact, op: 'equal', value }];
    },
    count: { fact: (batchSize, { profile }) => [batchBucket(profile, batchSize).countedDimension, String(batchSize)] },
    form: {
      place: 'more',
      label: (profile) => (profile.speedTests.batchSizeTimesConcurrency ? 'Streams (batch × requests)' : 'Batch size'),
      control: {
        kind: 'choice',
        choices: choices(['all', 2, 4, 8], (v) =>
          v === 'all' ? 'all runs' : v === buckets.batchSizeOpenEnded ? `${v} or more` : String(v),
        ),
        anyLabel: '1: single stream',
      },
    },
    rule: (profile) => {
      const counted = profile.speedTests.batchSizeTimesConcurrency
        ? 'aggregate active sequences (batchSize x engineFlags.concurrency; engineFlags.numParallel when concurrency is absent; 1 when neither), so a batch-1 run with 8 requests in flight is in bucket 8, not 1'
        : 'batchSize alone';
      return (
        `batchSize=N matches runs with exactly N, except ${buckets.batchSizeOpenEnded}, which matches ${buckets.batchSizeOpenEnded} or more. N counts ${counted}. ` +
        "Without batchSize the API ranks every run (its default), single-stream and throughput runs together, and each row carries `streams`; ask batchSize=1 for the like-for-like ranking the pages show (a run page's rank is among runs of its own streams bucket)."
      );
    },
  }),
  contextLen: facet({
    schema: () => oneOf(buckets.contextLen),
    available: extended,
    description: 'Context-length bucket: (previous bucket, bucket]; the largest also takes everything above.',
    terms: (bucket) => equal('ctxBucket', bucket),
    count: {},
    form: { place: 'more', label: 'Context length', control: { kind: 'choice', choices: choices(buckets.contextLen, (v) => `≤ ${v}`) } },
    rule: () =>
      `Context-length buckets: ${buckets.contextLen.join(', ')}. Bucket C holds contextLength in (previous bucket, C]; the first is (0, ${buckets.contextLen[0]}], ` +
      `and ${buckets.contextLen.at(-1)} also takes everything above.`,
    values: buckets.contextLen,
  }),
  plausible: facet({
    schema: flag,
    description:
      'Beyond the spec: `true` hides runs the roofline marks suspect (above the physical bound) and those the peer rule marks outlier (far above every comparable approved run).',
    terms: (plausible) =>
      plausible
        ? [
            { fact: 'plausibility', op: 'notEqual', value: 'suspect' },
            { fact: 'plausibility', op: 'notEqual', value: 'outlier' },
          ]
        : [],
    form: {
      place: 'more',
      label: 'Plausibility',
      control: { kind: 'choice', choices: choices(['true'], () => 'hide suspect runs'), anyLabel: 'all runs' },
    },
  }),
  replicated: facet({
    schema: flag,
    available: (profile) => profile.speedTests.revision3Fields,
    description:
      "`true`: only runs with at least one replication (an approved run of the same recipe on the same device and card count by another user: the run's `replications`); `false`: only runs without one.",
    terms: (replicated) => (replicated ? [{ fact: 'replicationCount', op: 'atLeast', value: 1 }] : equal('replicationCount', 0)),
    form: {
      place: 'more',
      label: 'Replication',
      control: { kind: 'choice', choices: choices(['true'], () => 'replicated only'), anyLabel: 'all runs' },
    },
    rule: () =>
      "replicated=true keeps runs that another user measured again with the same recipe (weights, engine build, speed-shaping flags, workload: the run's `recipe.key`) on the same device and card count; each run's `replications` gives their count and spread.",
  }),
};

/** The models a leaderboard `hfId` covers: the repository alone, or with `scope=tree` its tree. */
async function leaderboardModelIds(hfId: string, { query, resolve }: FacetContext): Promise<string[]> {
  if (query.scope === 'tree') return resolve.modelScope(hfId);
  const modelId = await resolve.modelId(hfId);
  return modelId ? [modelId] : [];
}

/** The results list's filters, in the order the documents list them. */
export const resultsListFacets = {
  hfId: facet({
    schema: () => text(256),
    description: 'Model id; includes the finetunes, quants and adapters of that base model.',
    terms: async (hfId, { resolve }) => [{ fact: 'modelId', op: 'anyOf', values: await resolve.modelScope(hfId) }],
    count: { fact: async (hfId, { resolve }) => ['modelId', await resolve.modelScope(hfId)] },
  }),
  hwClass: facet({
    schema: hwClassSchema,
    description: 'Hardware class.',
    terms: (hwClass) => equal('hwClass', hwClass),
    profile: (hwClass) => ({ column: 'hw_class', equals: hwClass }),
    count: {},
  }),
  gpuName: exactHardwareFacet('gpu_name', 'Exact GPU name.'),
  chipVendor: exactHardwareFacet('chip_vendor', 'Exact chip vendor.'),
  chipFamily: exactHardwareFacet('chip_family', 'Exact chip family.'),
  chipVariant: exactHardwareFacet('chip_variant', 'Exact chip variant.'),
  kvCacheDtype: facet({
    schema: () => text(256),
    description: 'Exact KV-cache data type.',
    terms: (dtype) => equal('kvCacheDtype', dtype),
  }),
  attentionBackend: facet({
    schema: () => text(256),
    description: 'Exact attention backend.',
    terms: (backend) => equal('attentionBackend', backend),
  }),
  gpuLayersMin: facet({
    schema: () => wholeNumber(0, 100_000),
    description: 'Only runs with gpuLayers >= this.',
    terms: (least) => [{ fact: 'gpuLayers', op: 'atLeast', value: least }],
  }),
  tensorParallelMin: facet({
    schema: () => wholeNumber(0, 100_000),
    description: 'Only runs with tensorParallel >= this.',
    terms: (least) => [{ fact: 'tensorParallel', op: 'atLeast', value: least }],
  }),
  specOnly: facet({
    schema: flag,
    description: '`true`: only speculative-decoding runs.',
    terms: (only) => (only ? equal('specDecoding', true) : []),
  }),
  mtpOnly: facet({
    schema: flag,
    description: '`true`: only multi-token-prediction runs.',
    terms: (only) => (only ? equal('mtpEnabled', true) : []),
  }),
  date: facet({
    schema: () => z.iso.date({ error: 'Must be a calendar day, YYYY-MM-DD' }),
    available: userAndDate,
    description: 'One UTC calendar day, YYYY-MM-DD.',
    terms: (date) => {
      const day = new Date(`${date}T00:00:00Z`).getTime();
      return [{ op: 'created', window: { atOrAfter: day * 1000, before: (day + 86_400_000) * 1000 } }];
    },
  }),
  dateFrom: facet({
    schema: () => instant(),
    available: userAndDate,
    description: 'Only runs created after this ISO-8601 timestamp.',
    terms: (from) => [{ op: 'created', window: { after: new Date(from).getTime() * 1000 } }],
  }),
  dateTo: facet({
    schema: () => instant(),
    available: userAndDate,
    description: 'Only runs created before this ISO-8601 timestamp.',
    terms: (to) => [{ op: 'created', window: { before: new Date(to).getTime() * 1000 } }],
  }),
  userId: facet({
    schema: () => z.uuid({ error: 'Must be a user id (uuid)' }),
    available: userAndDate,
    description: "Only this user's runs (internal id); overrides verified.",
    terms: (userId) => equal('userId', userId),
  }),
  username: facet({
    schema: () => text(256),
    available: userAndDate,
    description: "Only this user's runs (case-insensitive); ignored when userId is given; overrides verified.",
    terms: async (username, { query, resolve }) => {
      if (query.userId !== undefined) return [];
      const userId = await resolve.userId(username);
      return userId ? equal('userId', userId) : null;
    },
  }),
  verified: facet({
    schema: flag,
    description: 'Only runs of verified (`true`) or unverified (`false`) users.',
    // userId and username win over it.
    terms: (verified, { query }) => (query.userId !== undefined || query.username !== undefined ? [] : equal('userVerified', verified)),
    count: {},
  }),
};

function instant() {
  return z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'Must be an ISO-8601 timestamp, e.g. 2026-01-31T12:00:00Z' });
}

export type LeaderboardFacetName = keyof typeof leaderboardFacets;
export type ResultsListFacetName = keyof typeof resultsListFacets;
type Registry = Readonly<Record<string, FilterFacet>>;

/** A registry's facets as [name, facet] pairs, typed loosely for the generic code below. */
const entriesOf = (registry: object) => Object.entries(registry as Registry);

/** The parameter schemas of the facets a revision has (the query schemas spread these). */
export function facetSchemas<R extends object>(registry: R, profile: RevisionProfile) {
  return Object.fromEntries(
    entriesOf(registry)
      .filter(([, entry]) => availableIn(entry, profile))
      .map(([name, entry]) => [name, entry.schema(profile)]),
  ) as { [K in keyof R]: R[K] extends FilterFacet<infer S> ? S : never };
}

/** The names of the facets a revision has, in registry order. */
export function facetNames<R extends object>(registry: R, profile: RevisionProfile): (keyof R & string)[] {
  return entriesOf(registry)
    .filter(([, entry]) => availableIn(entry, profile))
    .map(([name]) => name) as (keyof R & string)[];
}

/** The parameters, of every registry, whose answers move with the clock (`movesWithClock`). */
export const clockMovedParameters = (): ReadonlySet<string> =>
  new Set(
    [leaderboardFacets, resultsListFacets].flatMap((registry) =>
      entriesOf(registry).flatMap(([name, entry]) => (entry.movesWithClock ? [name] : [])),
    ),
  );

/** Each facet's description, by parameter name. */
export const facetDescriptions = (registry: object): Record<string, string> =>
  Object.fromEntries(entriesOf(registry).map(([name, entry]) => [name, entry.description]));

/** The filters given in `query` (with their values), in registry order; a qualifier is read by the facet it qualifies. */
export function givenFacets(
  registry: object,
  query: Readonly<Record<string, unknown>>,
): [name: string, facet: FilterFacet, value: unknown][] {
  return entriesOf(registry).flatMap(([name, entry]) =>
    query[name] === undefined || entry.qualifies ? [] : [[name, entry, query[name]] as [string, FilterFacet, unknown]],
  );
}

/**
 * The terms of a query's facets, or null when one names nothing. Facets that resolve the
 * same names (the hardware profiles) give the same id list once.
 */
export async function termsOf(registry: object, ctx: FacetContext): Promise<Term[] | null> {
  const terms: Term[] = [];
  for (const [, entry, value] of givenFacets(registry, ctx.query)) {
    const own = await entry.terms(value as never, ctx);
    if (own === null) return null;
    for (const term of own) {
      if (term.op === 'anyOf' && terms.some((seen) => seen.op === 'anyOf' && seen.fact === term.fact && seen.values === term.values))
        continue;
      terms.push(term);
    }
  }
  return terms;
}

/** Whether any given facet is resolved through the hardware profiles (and so all hardware facts are). */
const resolvesHardware = (registry: object, query: Readonly<Record<string, unknown>>): boolean =>
  givenFacets(registry, query).some(([, entry]) => entry.profile && !entry.count);

/** The given hardware facets' narrowing of `hardware_profiles`, and a key naming it (for caching the resolution). */
export function hardwareProfileFilter(registry: object, query: Readonly<Record<string, unknown>>) {
  const given = givenFacets(registry, query).filter(([, entry]) => entry.profile);
  return {
    key: JSON.stringify(given.map(([name, , value]) => [name, value])),
    conditions: given.map(([, entry, value]) => entry.profile!(value as never)),
  };
}

/** A counted facet's count-table fact for a value (null: the value names nothing). */
export async function countFactOf(name: string, entry: FilterFacet, value: unknown, ctx: FacetContext): Promise<CountFact | null> {
  return entry.count?.fact ? entry.count.fact(value as never, ctx) : [name, String(value)];
}

/**
 * A query's total as count-table facts, when the pair table holds it: every given facet
 * counted, the hardware ones folded into the profiles they resolved to, at most two facts,
 * and never a model with profiles (as many pairs as runs). 0 when a fact names nothing;
 * null when the runs must be counted another way.
 */
export async function pairedCountFacts(registry: object, ctx: FacetContext): Promise<CountFact[] | 0 | null> {
  const given = givenFacets(registry, ctx.query);
  const hardware = resolvesHardware(registry, ctx.query);
  const facts: CountFact[] = [];
  if (hardware) {
    const profiles = await ctx.resolve.hardwareProfiles();
    if (profiles.length === 0) return 0;
    facts.push(['hardwareId', profiles]);
  }
  for (const [name, entry, value] of given) {
    if (hardware && entry.profile) continue;
    if (!entry.count) return null;
    const fact = await countFactOf(name, entry, value, ctx);
    if (!fact) return 0;
    facts.push(fact);
  }
  if (facts.length > 2) return null;
  if (facts.some(([dimension]) => dimension === 'modelId') && facts.some(([dimension]) => dimension === 'hardwareId')) return null;
  return facts;
}

/** The agent-context's bucket rules of the leaderboard facets the revision has. */
export function facetRules(profile: RevisionProfile): Record<string, string> {
  return Object.fromEntries(
    entriesOf(leaderboardFacets).flatMap(([name, entry]) =>
      entry.rule && availableIn(entry, profile) ? [[name, entry.rule(profile)]] : [],
    ),
  );
}

/** The agent-context's enums of the leaderboard facets with bucketed values (every revision lists them). */
export const facetEnums = (): Record<string, readonly (string | number)[]> =>
  Object.fromEntries(entriesOf(leaderboardFacets).flatMap(([name, entry]) => (entry.values ? [[name, entry.values]] : [])));

/** One field of the leaderboard page's filter form, ready to render. */
export interface FormField {
  name: string;
  label: string;
  control:
    | { kind: 'model' }
    | { kind: 'engine'; common: readonly string[]; others: readonly string[] }
    | { kind: 'text'; placeholder: string; list?: string }
    | { kind: 'choice'; choices: readonly { value: string | number; label: string }[]; anyLabel?: string };
}

/** The page's filter form for a revision: the main fields, and those behind "More filters". */
export function leaderboardFormFields(profile: RevisionProfile): Record<'main' | 'more', FormField[]> {
  const fields: Record<'main' | 'more', FormField[]> = { main: [], more: [] };
  for (const [name, entry] of entriesOf(leaderboardFacets)) {
    if (!entry.form || !availableIn(entry, profile)) continue;
    const { place, label, control } = entry.form;
    fields[place].push({
      name,
      label: typeof label === 'function' ? label(profile) : label,
      control:
        control.kind === 'choice'
          ? { kind: 'choice', choices: control.choices(profile), anyLabel: control.anyLabel }
          : control.kind === 'engine'
            ? { kind: 'engine', ...engineChoices(profile.speedTests.engines) }
            : control,
    });
  }
  return fields;
}
