import { z } from 'zod';
import { hardwareCostRules, hwClasses, POWER_SOURCES, reactionEmojis } from '../constants.ts';
import type { RevisionProfile } from '../revisions.ts';
import { speedTestStatuses } from './admin.schema.ts';
import { perRevision } from './query-params.ts';
import { reportFormatResponseSchema } from './report.schema.ts';
import { setupSchemas } from './setup.schema.ts';
import { defaultableFields, engineFlagsSchema, speedTestSubmissionSchema } from '../runs/submission/speed-test.schema.ts';
import { facetEnums } from '../runs/facets.ts';

/**
 * What the API answers, as zod schemas: the documentation of every response body (they
 * feed the OpenAPI document) and what the contract tests hold real answers to. Objects
 * are closed (`additionalProperties: false` in the document), so a field added to an
 * answer without being documented here fails the contract tests.
 */

export const uuid = z.uuid();
export const timestamp = z.iso.datetime({ offset: true }).meta({ description: 'ISO-8601 timestamp (UTC)' });
export const count = z.int().min(0);
const nullable = <S extends z.ZodType>(schema: S) => schema.nullable();

/** The verdict object of a run (DECISIONS.md "Verdicts, peers and replication"; the rule on /methodology). */
export const verdictSchema = z
  .object({
    verdict: z.enum(['plausible', 'suspect', 'outlier', 'unknown', 'not judged']),
    reason: nullable(z.string()),
    decodeBoundTokS: nullable(z.number()),
    peers: nullable(
      z.object({
        count: z.int().min(1),
        bestTokS: z.number(),
        ratio: z.number(),
        basis: z.enum(['setup', 'device']).meta({
          description:
            "`setup`: approved runs of the same weights on the same device and card count, by other users; `device`: the device's runs of other weights, compared by efficiency against their own bound",
        }),
      }),
    ).meta({ description: 'The runs the verdict compared this one with: how many, the best (tok/s) and this run over it' }),
  })
  .meta({
    description:
      '`suspect`: above the physical bound; `outlier`: within it but far above every comparable approved run; `plausible`; `unknown` and `not judged` with the reason',
  });

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

export const errorResponseSchema = z.object({ error: z.string().meta({ description: 'What went wrong, in English' }) }).meta({
  description: 'Every error answer carries an `error` text.',
});

export const validationErrorResponseSchema = z
  .object({
    error: z.literal('Validation failed'),
    details: z.object({
      fieldErrors: z.record(z.string(), z.array(z.string())).meta({
        description:
          'Messages per dotted field path, e.g. `hardware.gpus.1.vramGb`; an unknown field is reported as `Unknown field` under its own path.',
      }),
      formErrors: z.array(z.string()).meta({ description: 'Messages about the request as a whole' }),
    }),
  })
  .meta({ description: 'The 400 answer to a body, query or path that fails validation (dry-runs included).' });

/** 400: the validation shape, or a plain error (malformed JSON, a bad Idempotency-Key, bad percent-encoding). */
export const badRequestResponseSchema = z.union([validationErrorResponseSchema, errorResponseSchema]);

export const rateLimitErrorResponseSchema = z
  .object({
    error: z.string(),
    retryAfterMs: z.int().min(1).meta({ description: 'Milliseconds until the next submission is accepted' }),
    lastSubmittedAt: timestamp.meta({ description: 'When the submission that opened the window was accepted' }),
  })
  .meta({ description: 'The 429 answer of a submission inside the rate-limit window (also sent with `Retry-After`, in seconds).' });

export const tooManyRequestsResponseSchema = z
  .object({
    error: z.string(),
    retryAfterMs: z.int().min(1).meta({ description: 'Milliseconds until the address may read again' }),
  })
  .meta({ description: 'The 429 answer of the per-address read or export limit (also sent with `Retry-After`, in seconds).' });

// ---------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------

export const modelSummary = z.object({
  id: uuid,
  hfId: z.string(),
  displayName: z.string(),
  family: nullable(z.string()),
  params: nullable(z.number()).meta({ description: 'Parameters in billions' }),
  paramsApproximate: z.boolean().meta({ description: 'True when `params` was read from the name (e.g. `7B`)' }),
  activeParams: nullable(z.number()).meta({ description: 'Parameters active per token in billions (MoE)' }),
  isMoE: z.boolean(),
  baseHfId: nullable(z.string()),
  baseRelation: nullable(z.string()).meta({ description: 'quantized, finetune, adapter or merge' }),
});

const gpuSlot = z.object({ gpuName: z.string(), count: z.int().min(1), vramGb: z.number() });

/** The submitted hardware, normalised: one object per class. */
const discreteGpuHardware = z.object({
  hwClass: z.literal('DISCRETE_GPU'),
  gpuName: z.string().meta({ description: '`Multi-GPU` when the cards differ' }),
  gpuCount: z.int().min(1),
  vramGb: z.number().meta({ description: 'Per card; the total across cards when `isHeterogeneousGpu`' }),
  totalVramGb: z.number(),
  isHeterogeneousGpu: z.boolean(),
  vramGbReadAsTotal: z.literal(true).optional().meta({
    description:
      'Present when the submitted `vramGb` was the total over the cards (the card count times a size the card is sold with): it was divided by `gpuCount`',
  }),
  gpus: z.array(gpuSlot).optional(),
  cpu: z.string().optional(),
  ramGb: z.number().optional(),
  os: z.string().optional(),
  powerWatts: z.number().optional(),
});
const unifiedHardware = z.object({
  hwClass: z.literal('UNIFIED'),
  chipVendor: z.string(),
  chipFamily: z.string(),
  chipVariant: z.string(),
  unifiedMemoryGb: z.number(),
  npuTops: z.number().optional(),
  cpu: z.string().optional(),
  os: z.string().optional(),
  powerWatts: z.number().optional(),
});
const cpuOnlyHardware = z.object({ hwClass: z.literal('CPU_ONLY'), cpu: z.string(), ramGb: z.number(), os: z.string().optional() });

/** A hardware profile as stored: the normalised hardware with its id. */
const storedHardwareSchema = z.discriminatedUnion('hwClass', [
  discreteGpuHardware.extend({ id: uuid }),
  unifiedHardware.extend({ id: uuid }),
  cpuOnlyHardware.extend({ id: uuid }),
]);

const hardwareCostItem = z.object({
  component: z.string(),
  condition: z.enum(hardwareCostRules.conditions),
  yearPurchased: z.int(),
  price: z.number(),
  currency: z.enum(hardwareCostRules.currencies),
});

/** Where the power behind tokPerWatt came from. */
const runPowerSource = nullable(z.enum(POWER_SOURCES)).meta({
  description:
    "Where the power behind tokPerWatt came from: `measured` (gpuPowerWatts sampled during the timed window by the measuring client, e.g. llm-bench), `stated` (typed gpuPowerWatts, or the hardware's powerWatts); null when the run gives no power (no tokPerWatt)",
});

/** A run's recipe (src/runs/submission/recipe.ts). */
const recipeSchema = z.object({
  key: z.string(),
  model: z.object({ hfId: z.string(), revision: z.string(), quantization: z.string() }),
  engine: z.object({ name: z.string(), version: nullable(z.string()), build: nullable(z.string()), commit: nullable(z.string()) }),
  flags: z.record(z.string(), z.unknown()).meta({ description: 'The speed-shaping engine flags as stated, by name' }),
  command: nullable(z.string()).meta({ description: 'The launch command as submitted (shown; not part of the key)' }),
  workload: z.object({
    promptTokens: count,
    outputTokens: count,
    prefillTokens: count.meta({ description: 'Context depth: tokens in the context before the prompt' }),
    contextLength: z.int().min(1),
    batchSize: z.int().min(1),
    concurrency: z.int().min(1),
  }),
});

/** Run fields with the revisions that answer them (the stored document is revision 3's). */
function runShape(profile: RevisionProfile) {
  const revision3 = profile.speedTests.revision3Fields;
  const engine = revision3
    ? z.object({
        id: uuid,
        name: z.string(),
        version: nullable(z.string()),
        repository: nullable(z.string()),
        build: nullable(z.string()),
        commit: nullable(z.string()),
      })
    : z.object({ id: uuid, name: z.string(), version: nullable(z.string()) });
  const shape: Record<string, z.ZodType> = {
    id: uuid,
    modelId: uuid,
    hardwareId: uuid,
    engineId: uuid,
    userId: uuid,
    status: z.enum(speedTestStatuses),
    createdAt: timestamp,
    hfId: z.string(),
    model: modelSummary,
    hardware: storedHardwareSchema,
    engineName: z.string(),
    engineVersion: nullable(z.string()),
    engineRepository: nullable(z.string()),
    engineBuild: nullable(z.string()),
    engineCommit: nullable(z.string()),
    engine,
    engineFlags: nullable(engineFlagsSchema(profile)).meta({
      description: 'Explicit flags merged over those parsed from `commandSnippet`',
    }),
    user: z.object({ id: uuid, username: z.string(), displayName: z.string(), verified: z.boolean(), demo: z.boolean() }),
    demo: z.boolean().meta({ description: 'True for the sample runs of demo users' }),
    quantization: z.string(),
    modelRevision: z.string(),
    backend: nullable(z.string()),
    tokSOut: nullable(z.number()),
    tokSPrefill: nullable(z.number()),
    tokSTotal: nullable(z.number()),
    ttftMs: nullable(z.number()),
    peakVramGb: nullable(z.number()),
    promptTokens: count,
    outputTokens: count,
    contextLength: z.int().min(1),
    batchSize: z.int().min(1),
    prefillTokens: count,
    gpuPowerWatts: nullable(z.array(z.number())),
    totalPowerWatts: nullable(z.number()).meta({ description: 'Sum of `gpuPowerWatts`' }),
    hardwareCost: nullable(z.array(hardwareCostItem)),
    powerSource: runPowerSource,
    tokPerWatt: nullable(z.number()),
    tokPerDollar: nullable(z.number()),
    plausibility: z.enum(['plausible', 'suspect', 'outlier', 'unknown']).meta({
      description:
        'Verdict of the decode-speed roofline and the peer rule (see /methodology): `outlier` is within the bound but far above every comparable approved run; `verdict` has the whole verdict',
    }),
    decodeBoundTokS: nullable(z.number()).meta({ description: 'Single-stream decode bound in tok/s, when computable' }),
    plausibilityReason: nullable(z.string()),
    verdict: verdictSchema,
    notes: nullable(z.string()),
    reactionCounts: z
      .partialRecord(z.enum(reactionEmojis), z.int().min(1))
      .meta({ description: 'Reactions per emoji (emojis without any are left out)' }),
    defaultedFields: nullable(defaultedFieldList(profile)).meta({
      description:
        'Beyond the spec: the fields the submitter did not state, stored with the spec\'s defaults (pages show "not stated"); a field read from `commandSnippet` counts as stated. Null for runs stored before this was recorded (unknown).',
    }),
    streams: z.int().min(1).meta({
      description:
        'Beyond the spec: sequences generated at once, batchSize x engineFlags.concurrency (numParallel without it). 1 is a single-stream run, whose tokSOut is the speed one user sees; above 1, tokSOut is the aggregate of that many streams (pages mark it "xN streams").',
    }),
    verifiedRun: z.boolean().meta({
      description:
        'Its evidence is internally consistent: digests match samples, the engine timings agree with tokSOut/ttftMs within 5%, the engine commit or build is named',
    }),
    verificationIssues: nullable(z.array(z.string())).meta({
      description: 'What keeps the run from being verified (empty when verified; null for runs stored before evidence was taken)',
    }),
    recipe: nullable(recipeSchema).meta({
      description:
        'What to run to measure the same thing (`llm-bench reproduce <run id>` runs it): the weights, the engine build, the engine flags that shape speed (not measurement facts such as warmup or spec-decoding counters) and the workload. `key` is one canonical digest per part (weights.engine.flags.workload): runs with equal keys ran the same recipe. Null for runs loaded without one.',
    }),
    replicates: nullable(
      z.object({
        runId: uuid,
        counted: z.boolean().meta({ description: "Whether this run counts among that run's replications" }),
        reason: nullable(z.string()).meta({ description: 'Why it does not count (another recipe or device, the same user, ...)' }),
      }),
    ).meta({ description: 'The run this one says it replicates (the submitted `replicates`), null when it names none' }),
    replications: z
      .object({
        count: count.meta({ description: 'Approved runs of the same recipe key on the same device and card count by other users' }),
        minTokS: nullable(z.number()).meta({
          description: 'The lowest tokSOut among this run and its replications (null without replications)',
        }),
        maxTokS: nullable(z.number()).meta({ description: 'The highest tokSOut among this run and its replications' }),
        spread: nullable(z.number()).meta({ description: 'maxTokS / minTokS: 1 when every measurement agrees' }),
        runs: z.array(uuid).meta({ description: 'The ids of the replications, oldest first' }),
      })
      .meta({
        description:
          'Runs of the same recipe on the same device by other users (whether or not they sent `replicates`), kept current as runs are approved, corrected or withdrawn. The leaderboard ranks replicated runs alone with `replicated=true`.',
      }),
    myEmoji: nullable(z.enum(reactionEmojis)).meta({ description: "The caller's own reaction (null for anonymous callers)" }),
  };
  for (const field of profile.speedTests.omittedRunFields) delete shape[field];
  return shape;
}

/** Names of fields of the revision that took the spec's default. */
const defaultedFieldList = (profile: RevisionProfile) => z.array(z.enum(defaultableFields(profile) as [string, ...string[]]));

/** What a run's owner sees of it beyond its document (GET {results_path}/mine, PATCH and DELETE answers). */
const ownRunFacts = {
  rejectedReason: nullable(z.string()).meta({ description: "The admin's reason, when the run was rejected" }),
  rejectedAt: nullable(timestamp),
  withdrawnAt: nullable(timestamp).meta({ description: 'When its owner withdrew it' }),
  correctedAt: nullable(timestamp).meta({ description: 'When its owner last corrected it' }),
  correctableUntil: nullable(timestamp).meta({
    description: 'Until when its owner may correct it (PATCH); null once it is too old, rejected or withdrawn',
  }),
};

function buildRunSchemas(profile: RevisionProfile) {
  const run = z.object(runShape(profile)).meta({ description: 'A stored speed-test run' });
  const rankedRun = z.object({ rank: z.int().min(1), ...runShape(profile) });
  const ownRun = z
    .object({ ...runShape(profile), ...ownRunFacts })
    .meta({ description: "One of the caller's own runs, in any status, with what only its owner sees" });
  return {
    run,
    ownRun,
    ownRunList: z.object({ benchmarks: z.array(ownRun), total: count, limit: z.int().min(1), offset: count }),
    runList: z.object({ benchmarks: z.array(run), total: count, limit: z.int().min(1), offset: count }),
    leaderboardPage: z.object({ rows: z.array(rankedRun), total: count, limit: z.int().min(1), offset: count }),
  };
}

export const runResponseSchemas = perRevision(buildRunSchemas);

// ---------------------------------------------------------------------------
// Dry-run
// ---------------------------------------------------------------------------

export const normalisedHardware = z.discriminatedUnion('hwClass', [discreteGpuHardware, unifiedHardware, cpuOnlyHardware]);

/** The model a dry-run resolved: from the catalogue, or as the hub describes a new one. */
export const dryRunModel = z.union([
  modelSummary.extend({ catalogued: z.literal(true) }),
  z.object({
    hfId: z.string(),
    displayName: z.string(),
    family: nullable(z.string()),
    params: nullable(z.number()),
    paramsApproximate: z.boolean(),
    activeParams: nullable(z.number()),
    isMoE: z.boolean(),
    base: nullable(z.object({ hfId: z.string(), relation: z.string() })),
    hubSha: nullable(z.string()),
    gated: z.boolean(),
    catalogued: z.literal(false),
  }),
]);

function buildDryRunSchema(profile: RevisionProfile) {
  // The normalised submission: the submission's fields with defaults filled in, the
  // hardware normalised, flag aliases resolved, and what the launch command told us.
  const submission = speedTestSubmissionSchema(profile);
  const flags = engineFlagsSchema(profile);
  // Fields with a spec default always have a value here: the stated one or the default.
  const withDefaults = Object.fromEntries(
    defaultableFields(profile).map((field) => [field, (submission.shape[field] as z.ZodOptional).unwrap()]),
  );
  const parsed = z.object({
    ...submission.shape,
    ...withDefaults,
    hardware: normalisedHardware,
    engineFlags: flags.optional(),
    ...(profile.speedTests.revision3Fields ? { totalPowerWatts: z.number().optional(), powerSource: runPowerSource } : {}),
    defaultedFields: defaultedFieldList(profile).meta({
      description:
        'The fields the submission did not state (nor its `commandSnippet`): they carry the spec\'s defaults and pages show "not stated"',
    }),
    commandSnippetFlags: z
      .object({
        recognised: z.array(z.string()),
        unrecognised: z.array(z.string()),
        filledFields: z.array(z.enum(['contextLength', 'promptTokens', 'outputTokens', 'prefillTokens'])).meta({
          description:
            'Top-level fields not given in the body and read from the command (`--max-model-len`, `-c`, llama-bench `-p`/`-n`/`-d`, ...)',
        }),
      })
      .optional()
      .meta({
        description:
          'Flags (and environment settings) of `commandSnippet` that were mapped to fields, those that were not, and the top-level fields it filled',
      }),
    model: dryRunModel,
  });
  const plausibility = z
    .object({
      verdict: z.enum(['plausible', 'suspect', 'outlier', 'unknown']),
      decodeBoundTokS: nullable(z.number()),
      reason: z.string(),
    })
    .meta({ description: 'The decode-speed roofline verdict the run would be stored with (see /methodology): its bound and the reason' });
  const verification = z
    .object({ verified: z.boolean(), issues: z.array(z.string()) })
    .meta({ description: 'Whether the run would be stored as verified (`verifiedRun`), and what keeps it from that' });
  return z
    .object({
      valid: z.literal(true),
      parsed,
      plausibility,
      verdict: verdictSchema,
      ...(profile.speedTests.revision3Fields ? { verification } : {}),
    })
    .meta({ description: 'The submission passed every check a real submission meets (hub included); nothing was written.' });
}

export const dryRunResponseSchema = perRevision(buildDryRunSchema);

// ---------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------

const catalogueModel = modelSummary.extend({
  benchmarkCount: count.meta({ description: 'Approved runs of this model' }),
  gated: z.boolean().meta({ description: 'Gated on the hub (access must be requested there)' }),
});

export interface ModelTreeNode extends z.infer<typeof catalogueModel> {
  relation: string | null;
  finetunes: ModelTreeNode[];
}

export const modelTreeNodeSchema: z.ZodType<ModelTreeNode> = catalogueModel.extend({
  relation: nullable(z.string()),
  get finetunes() {
    return z.array(modelTreeNodeSchema);
  },
});

export const modelListResponseSchema = z.object({ models: z.array(catalogueModel), total: count, limit: z.int().min(1), offset: count });
export const modelTreeResponseSchema = z
  .object({ models: z.array(modelTreeNodeSchema), total: count, limit: z.int().min(1), offset: count })
  .meta({ description: 'With `tree=true`: base models, each with its finetunes, quants, adapters and merges nested' });
export const modelsResponseSchema = z.union([modelListResponseSchema, modelTreeResponseSchema]);

export const modelSearchResponseSchema = z.array(
  z.object({
    hfId: z.string(),
    displayName: z.string(),
    family: nullable(z.string()),
    params: nullable(z.number()),
    benchmarkCount: count,
  }),
);

export const modelDetailResponseSchema = catalogueModel.extend({
  hubSha: nullable(z.string()),
  base: nullable(catalogueModel),
  children: z.array(catalogueModel.extend({ relation: nullable(z.string()) })),
  summary: z.object({
    runs: count,
    bestTokSOut: nullable(z.number()),
    hardwareProfiles: count,
    latestRunAt: nullable(timestamp),
    byHardwareClass: z.partialRecord(z.enum(hwClasses), z.object({ runs: count, bestTokSOut: nullable(z.number()) })),
  }),
});

// ---------------------------------------------------------------------------
// Accounts, keys, setups, reactions
// ---------------------------------------------------------------------------

export const meResponseSchema = z.object({
  id: uuid,
  username: z.string(),
  displayName: z.string(),
  isVerified: z.boolean(),
  isAdmin: z.boolean(),
  authenticatedWith: z.enum(['api_key', 'session']),
});

const apiKeyFields = {
  id: uuid,
  name: z.string(),
  prefix: z
    .string()
    .regex(/^bhk_[0-9a-f]{4}$/)
    .meta({ description: '`bhk_` and the first 4 hex characters, for telling keys apart' }),
  createdAt: timestamp,
  expiresAt: nullable(timestamp),
};
export const apiKeyListResponseSchema = z.array(z.object({ ...apiKeyFields, lastUsedAt: nullable(timestamp) }));
export const createdApiKeyResponseSchema = z.object({
  ...apiKeyFields,
  key: z
    .string()
    .regex(/^bhk_[0-9a-f]{40}$/)
    .meta({ description: 'The secret: shown in this answer only' }),
});
export const okResponseSchema = z.object({ ok: z.literal(true) });

function buildSetupSchema(profile: RevisionProfile) {
  const { create, configFields } = setupSchemas(profile);
  // Every configuration field of the revision, null when not set.
  const config = Object.fromEntries(
    configFields.map((field) => [field, (create.shape[field] as z.ZodOptional<z.ZodNullable<z.ZodType>>).unwrap()]),
  );
  return z.object({
    id: uuid,
    name: z.string(),
    description: nullable(z.string()),
    isDefault: z.boolean(),
    ...config,
    createdAt: timestamp,
    updatedAt: timestamp,
  });
}

export const setupResponseSchema = perRevision(buildSetupSchema);

export const setupListResponseSchema = perRevision((profile) =>
  z
    .object({ setups: z.array(setupResponseSchema(profile)), total: count, limit: z.int().min(1), offset: count })
    .meta({ description: 'A page of your setups: the default first, then the most recently updated' }),
);

export const reactionStateResponseSchema = z.object({
  reactionCounts: z.partialRecord(z.enum(reactionEmojis), z.int().min(1)),
  myEmoji: nullable(z.enum(reactionEmojis)),
});

// ---------------------------------------------------------------------------
// Agent metadata
// ---------------------------------------------------------------------------

export const openApiDocumentResponseSchema = z
  .looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ description: 'This document' });

const link = z.url();
const jsonObject = z.record(z.string(), z.unknown());
const texts = z.array(z.string());

const fieldRules = z.record(z.string(), z.string());
const submissionLimitInfo = z.object({
  maxPerWindow: z.int().min(1),
  windowSeconds: z.int().min(1),
  scope: z.string(),
  appliesTo: texts,
  dryRunsCount: z.boolean(),
  onSuccess: z.string(),
  onLimit: z.string(),
});
const pageLimit = z.object({ min: z.int(), max: z.int(), default: z.int() });
const documentedError = z.object({ status: z.int().min(400).max(599), when: z.string(), body: z.looseObject({ error: z.string() }) });

/** The agent-context's quality section (revisions with quality evaluations): src/openapi/quality-guide.ts. */
const qualityGuideSchema = z
  .object({
    summary: z.string(),
    root: link,
    deprecatedRoots: z.array(z.object({ path: link, successor: link, note: z.string() })),
    quickStart: z.object({ runASuite: texts, authorASuite: texts }),
    suiteAuthoring: z.object({
      registration: fieldRules.meta({ description: 'The registration body, field by field, with its bounds' }),
      suiteDoc: fieldRules,
      task: fieldRules,
      item: fieldRules,
      itemRules: texts,
      runners: fieldRules,
      scoringMethods: z.object({ accepted: fieldRules, refused: fieldRules, multipleChoice: z.string(), reasoning: z.string() }),
      answerExtraction: fieldRules,
      scoringOverrides: fieldRules,
      datasetSources: fieldRules,
      shardDatasets: z.object({ endpoint: z.string(), body: fieldRules, rules: texts }).optional().meta({ description: 'Revision 3' }),
      enums: z.record(z.string(), texts),
    }),
    scoring: z.object({
      taskScores: z.string(),
      aggregation: fieldRules.meta({ description: 'Each aggregation as a formula over the task scores s and weights w' }),
      scale: z.string(),
      clientAggregates: z.string(),
      rescoring: texts,
      standardError: z.string(),
    }),
    examples: z.object({
      suites: z
        .record(z.string(), z.object({ summary: z.string(), body: jsonObject }))
        .meta({ description: 'A worked registration per runner' }),
      dataset: jsonObject.optional(),
      run: jsonObject,
      runNote: z.string(),
      dryRunSuiteCurl: z.string().optional(),
      registerSuiteCurl: z.string(),
      dryRunRunCurl: z.string(),
      submitRunCurl: z.string(),
    }),
    limits: z.object({
      runSubmissions: z.string(),
      tasksPerSuite: z.int(),
      itemsPerTask: z.int(),
      shardsPerDataset: z.int().optional(),
      itemsPerShard: z.int().optional(),
      choicesPerItem: z.int(),
      acceptedAnswersPerItem: z.int(),
      artifactsPerRun: z.int(),
      artifactTextBytes: z.int(),
      maxLength: z.record(z.string(), z.int()),
      requestBodyBytes: z.object({ suite: z.int(), run: z.int() }),
      requestBodies: z.string(),
      pageLimit: z.record(z.string(), pageLimit),
    }),
    execute: z
      .object({
        summary: z.string(),
        steps: texts,
        request: fieldRules,
        addressRules: texts,
        scoring: texts,
        limits: z.record(z.string(), z.int()),
        statuses: texts,
        examples: z.object({ dryRunCurl: z.string(), executeCurl: z.string(), pollCurl: z.string() }),
      })
      .meta({
        description: 'Server-side execution: the server runs an approved CUSTOM suite against your public OpenAI-compatible server',
      }),
    lifecycle: z.object({ statuses: z.record(z.string(), texts), transitions: texts }),
    errors: z.array(documentedError),
  })
  .meta({ description: 'Quality evaluations: suite authoring, scoring, worked examples, limits and the review life cycle' });

/** GET /api/agent-context (revisions 2, 3). */
export const agentContextResponseSchema = z
  .object({
    service: z.string(),
    revision: z.int().min(1).max(3),
    baseUrl: link,
    documentation: z.object({ openapi: link, agentContext: link, apiReference: link, agentGuide: link, methodology: link }),
    quickStart: texts.meta({ description: 'The steps from no key to a stored run' }),
    endpoints: z
      .record(
        z.string(),
        z.object({
          method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
          url: link,
          auth: z.enum(['public', 'key|session', 'session']),
          summary: z.string(),
          deprecated: z.literal(true).optional(),
        }),
      )
      .meta({ description: 'Every operation of this revision by operationId, with its absolute URL' }),
    authentication: z.object({ header: z.string(), keyPattern: z.string(), obtainKey: link, checkKey: link, notes: texts }),
    enums: z.object({
      engineName: texts,
      hwClass: z.array(z.enum(hwClasses)),
      reactionEmoji: z.array(z.enum(reactionEmojis)),
      // The bucketed filters' values (the facet registry).
      ...Object.fromEntries(
        Object.entries(facetEnums()).map(([name, values]) => [name, typeof values[0] === 'number' ? z.array(z.int()) : texts]),
      ),
      batchSizeBucket: z.object({ min: z.int(), openEndedFrom: z.int() }),
      leaderboardSort: texts,
      exportFormat: texts,
      runStatus: texts,
      plausibility: texts,
      verdict: texts.meta({ description: "Values of a run's `verdict.verdict`" }),
      mirostat: z.array(z.int()),
      hardwareCostCondition: texts.optional(),
      currency: texts.optional(),
    }),
    commonValues: z.object({
      quantization: texts,
      backend: texts,
      kvCacheDtype: texts,
      attentionBackend: texts,
      ropeScaling: texts,
      note: z.string(),
    }),
    hardwareOptions: z.object({
      note: z.string(),
      gpus: z.array(z.object({ name: z.string(), vendor: z.string(), vramGb: z.array(z.number()) })),
      unifiedChips: z.array(
        z.object({
          name: z.string(),
          chipVendor: z.string(),
          chipFamily: z.string(),
          chipVariant: z.string(),
          memoryGb: z.array(z.number()),
        }),
      ),
      cpus: z.array(z.object({ name: z.string(), vendor: z.string(), memoryType: z.string() })),
      hardwareCostComponentNames: texts.optional().meta({ description: 'Accepted values of hardwareCost[].component (revision 3)' }),
    }),
    schemas: z.object({
      requestBodies: z.record(z.string(), jsonObject).meta({ description: 'JSON Schema (2020-12) of every request body' }),
      queryParameters: z.record(z.string(), jsonObject).meta({ description: 'JSON Schema of the query parameters, by operationId' }),
    }),
    metricRule: z.looseObject({ kind: z.enum(['anyOf', 'requiredPlusOneOf', 'required']), inWords: z.string() }),
    examples: z.object({
      minimal: z.record(z.enum(hwClasses), jsonObject),
      full: z.record(z.enum(hwClasses), jsonObject),
      throughput: z
        .object({ body: jsonObject, note: z.string() })
        .meta({ description: 'A throughput run (several requests in flight) and how it is bucketed and judged' }),
      dryRunCurl: z.string().optional(),
      submitCurl: z.string(),
      commandSnippet: z.object({
        engineName: z.string(),
        commandSnippet: z.string(),
        parsed: z.object({ flags: jsonObject, fields: jsonObject, recognised: texts, unrecognised: texts }),
        note: z.string(),
      }),
    }),
    methodology: z.object({
      tips: texts,
      plausibility: z.object({
        formula: z.string(),
        /** The loosest factor (any hardware class); `suspectFactors` gives each class's. */
        suspectFactor: z.number(),
        suspectFactors: z.object({ DISCRETE_GPU: z.number(), UNIFIED: z.number(), CPU_ONLY: z.number() }),
        assumptions: texts,
        peers: z
          .object({
            rule: z.string(),
            thresholds: z.object({ setupFactor: z.number(), deviceFactor: z.number(), deviceMinRuns: z.int() }),
            rejudging: z.string(),
            verdictObject: z.string(),
          })
          .meta({ description: 'The peer rule (`outlier`), its thresholds and the verdict object runs carry' }),
        details: link,
      }),
    }),
    rateLimits: z.object({
      speedTestSubmission: submissionLimitInfo,
      qualityRunSubmission: submissionLimitInfo.extend({ separateFrom: z.string() }).optional(),
      reads: z.string(),
    }),
    idempotency: z.object({
      header: z.string(),
      format: z.string(),
      sameKeySameBody: z.string(),
      sameKeyOtherBody: z.string(),
      sameKeyInFlight: z.string(),
    }),
    bucketRules: z.record(z.string(), z.string()).meta({ description: 'How each leaderboard bucket filter matches, in words' }),
    predictions: z
      .object({
        url: z.string(),
        page: z.string(),
        what: z.string(),
        answer: z.string(),
        notARun: z.string(),
        unknown: z.string(),
        method: z.string(),
      })
      .meta({ description: 'GET /api/predictions and the /predict page: what to send, what comes back, and how it is computed' }),
    limits: z.object({
      maxLength: z.record(z.string(), z.int()),
      engineCommitHexLength: z.object({ min: z.int(), max: z.int() }),
      gpusMaxItems: z.int(),
      temperature: z.object({ min: z.number(), max: z.number() }),
      unitInterval: z.string(),
      pageLimit: z.record(z.string(), pageLimit),
      requestBodyBytes: z.int(),
    }),
    errors: z.array(documentedError),
    quality: qualityGuideSchema.optional(),
    marketplace: z
      .object({
        feed: z.string(),
        sell: texts,
        states: texts,
        conditions: texts,
        currencies: texts,
        limits: z.record(z.string(), z.int()),
        images: z.object({
          contentTypes: texts,
          maxBytes: z.int(),
          maxPixels: z.int(),
          thumbnailMaxWidth: z.int(),
          processing: z.string(),
        }),
      })
      .optional()
      .meta({
        description:
          'The hardware marketplace (revision 3): the feed\u2019s paging, the seller\u2019s steps, listing limits and image rules',
      }),
    reports: reportFormatResponseSchema
      .optional()
      .meta({ description: 'The model report format (revision 3), as GET /api/report-format answers it' }),
  })
  .meta({ description: 'Accepted values, schemas, worked examples, methodology, limits and error shapes for agents' });
