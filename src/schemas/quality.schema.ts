import { z } from 'zod';
import { userRegexProblem } from '../lib/quality-scoring.ts';
import type { RevisionProfile } from '../revisions.ts';
import { documentedAs } from './json-schema.ts';
import { perRevision, queryFlag, queryText, wholeNumber } from './query-params.ts';
import { hardwareOrFileSchema, hfIdSchema } from '../runs/submission/speed-test.schema.ts';
import { blankAsOmitted, expected, text } from './text-fields.ts';

/**
 * Quality evaluations as clients send them (DECISIONS.md "Quality evaluations"): the suite
 * registration body with its suite document, the sharded dataset (revision 3) and the
 * quality run. Built per revision: revision 3 adds shard datasets and the `{ submission }`
 * wrapper. Error paths are the body's own (`suiteDoc.tasks.3.dataset.items.12.gold`).
 *
 * Objects are strict (a misspelt field is named, not silently dropped), except where the
 * contract makes them free: `runConfig` of a run. Items may also carry an `id` and
 * `metadata`, which datasets exported from elsewhere usually have.
 */

const optionalText = (max: number) =>
  z
    .string({ error: expected('Must be a string') })
    .trim()
    .max(max, `Must be at most ${max} characters`)
    .optional();
const int = (min: number, max: number) =>
  z
    .number({ error: expected('Must be a number') })
    .int('Must be an integer')
    .min(min, `Must be at least ${min}`)
    .max(max, `Must be at most ${max}`);
const bool = () => z.boolean({ error: expected('Must be true or false') });
const httpUrl = () => z.url({ protocol: /^https?$/, error: 'Must be an http(s) URL' }).max(2048, 'Must be at most 2048 characters');
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: expected(`Must be one of: ${values.join(', ')}`) });

export const QUALITY_LIMITS = {
  slug: { min: 3, max: 64 },
  name: 256,
  description: 4000,
  category: 64,
  version: 32,
  tasks: 100,
  itemsPerTask: 1000,
  shards: 50,
  itemsPerShard: 1000,
  itemText: 20_000,
  promptTemplate: 20_000,
  choices: 26,
  acceptedAnswers: 32,
  artifacts: 5000,
  artifactBytes: 5 * 1024 * 1024,
  artifactText: 100_000,
  notes: 2000,
} as const;

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const TASK_KEY_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

export const suiteRunners = ['CUSTOM', 'LM_EVAL_HARNESS'] as const;
export type SuiteRunner = (typeof suiteRunners)[number];
/** The suite document's spelling of each runner. */
export const docRunnerOf: Readonly<Record<SuiteRunner, 'custom' | 'lm-eval-harness'>> = {
  CUSTOM: 'custom',
  LM_EVAL_HARNESS: 'lm-eval-harness',
};
export const scoringMethods = ['exact_match', 'f1', 'pass_at_k', 'llm_judge'] as const;
export const aggregations = ['weighted_mean', 'mean', 'min', 'max'] as const;
export const taskTypes = ['multiple_choice', 'qa', 'judge'] as const;
export const answerExtractions = ['none', 'final_answer', 'last_number', 'regex'] as const;
export const executionModes = ['CUSTOM_LOCAL', 'LM_EVAL_LOCAL'] as const;
export const judgeModes = ['NONE', 'LOCAL_REPORTED'] as const;

export const slugSchema = () =>
  z
    .string({ error: expected('Must be a string') })
    .min(QUALITY_LIMITS.slug.min, `Must be at least ${QUALITY_LIMITS.slug.min} characters`)
    .max(QUALITY_LIMITS.slug.max, `Must be at most ${QUALITY_LIMITS.slug.max} characters`)
    .regex(SLUG_PATTERN, 'Must be lowercase letters and digits, in words joined by single hyphens (e.g. gsm8k-mini)');

/** A pattern the server runs (RE2 syntax): refused when it is not one. */
const userRegex = () =>
  z.string({ error: expected('Must be a string') }).superRefine((pattern, ctx) => {
    const problem = userRegexProblem(pattern);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const goldValue = z.union(
  [z.string().max(QUALITY_LIMITS.itemText, `Must be at most ${QUALITY_LIMITS.itemText} characters`), z.number().finite()],
  {
    error: 'Must be a string, a number, or a list of accepted answers',
  },
);

/** One item of an inline dataset or a shard. */
export const itemSchema = z
  .strictObject({
    id: z.union([z.string().max(256), z.number()], { error: 'Must be a string or a number' }).optional(),
    input: z
      .string({ error: expected('Must be a string') })
      .min(1, 'Must not be empty')
      .max(QUALITY_LIMITS.itemText, `Must be at most ${QUALITY_LIMITS.itemText} characters`),
    gold: z
      .union(
        [
          goldValue,
          z
            .array(goldValue)
            .min(1, 'Give at least one accepted answer')
            .max(QUALITY_LIMITS.acceptedAnswers, `At most ${QUALITY_LIMITS.acceptedAnswers} accepted answers`),
        ],
        {
          error: 'Must be a string, a number, or a list of accepted answers',
        },
      )
      .optional(),
    choices: z
      .array(text(QUALITY_LIMITS.itemText), { error: 'Must be a list of strings' })
      .min(2, 'Give at least 2 choices')
      .max(QUALITY_LIMITS.choices, `At most ${QUALITY_LIMITS.choices} choices (A-Z)`)
      .optional(),
    referenceAnswer: optionalText(QUALITY_LIMITS.itemText),
    rubric: optionalText(QUALITY_LIMITS.itemText),
    metadata: z.record(z.string(), z.unknown(), { error: 'Must be an object' }).optional(),
  })
  .superRefine((item, ctx) => {
    if (item.gold === undefined && !item.rubric)
      ctx.addIssue({ code: 'custom', path: ['gold'], message: 'Each item needs gold (the accepted answers) or a rubric' });
  });
export type QualityItem = z.output<typeof itemSchema>;

const items = (max: number) =>
  z
    .array(itemSchema, { error: expected('Must be a list of items') })
    .min(1, 'Give at least one item')
    .max(max, `At most ${max} items`);

function taskDatasetSchema(profile: RevisionProfile) {
  const split = optionalText(64);
  const inline = z.strictObject({ source: z.literal('inline'), items: items(QUALITY_LIMITS.itemsPerTask), split });
  const url = z.strictObject({ source: z.literal('url'), url: httpUrl(), split });
  const huggingface = z.strictObject({ source: z.literal('huggingface'), hfPath: text(256), hfName: optionalText(128), split });
  const shard = z.strictObject({ source: z.literal('shard'), datasetSlug: slugSchema(), split });
  // Shard datasets are revision 3's: elsewhere `shard` is not a source at all.
  if (profile.quality?.submissions) {
    return z.discriminatedUnion('source', [inline, url, huggingface, shard], {
      error: 'Must be an object whose source is one of: inline, url, huggingface, shard',
    });
  }
  return z.discriminatedUnion('source', [inline, url, huggingface], {
    error: 'Must be an object whose source is one of: inline, url, huggingface',
  }) as unknown as z.ZodDiscriminatedUnion<[typeof inline, typeof url, typeof huggingface, typeof shard]>;
}

function taskSchema(profile: RevisionProfile) {
  return z
    .strictObject({
      key: z.string({ error: expected('Must be a string') }).regex(TASK_KEY_PATTERN, 'Must be 1-64 of A-Z, a-z, 0-9, _ . : -'),
      displayName: optionalText(256),
      taskType: oneOf(taskTypes).default('qa'),
      weight: z
        .number({ error: expected('Must be a number') })
        .finite()
        .positive('Must be greater than 0')
        .max(1e6, 'Must be at most 1000000')
        .default(1),
      nShots: int(0, 1000).optional(),
      higherIsBetter: bool().optional(),
      promptTemplate: z
        .string({ error: expected('Must be a string') })
        .max(QUALITY_LIMITS.promptTemplate, `Must be at most ${QUALITY_LIMITS.promptTemplate} characters`)
        .optional(),
      maxNewTokens: int(1, 131_072).optional(),
      stopSequences: z
        .array(z.string().min(1).max(64), { error: 'Must be a list of strings' })
        .max(16, 'At most 16 stop sequences')
        .optional(),
      answerExtraction: oneOf(answerExtractions).default('none'),
      answerRegex: userRegex().optional(),
      scoring: z
        .strictObject({
          ignoreCase: bool().optional(),
          ignorePunctuation: bool().optional(),
          regexesToIgnore: z.array(userRegex(), { error: 'Must be a list of patterns' }).max(10, 'At most 10 patterns').optional(),
        })
        .optional(),
      dataset: taskDatasetSchema(profile).optional(),
    })
    .superRefine((task, ctx) => {
      if (task.answerExtraction === 'regex' && !task.answerRegex)
        ctx.addIssue({ code: 'custom', path: ['answerRegex'], message: 'Required when answerExtraction is regex' });
      if (task.taskType === 'multiple_choice' && task.dataset?.source === 'inline') {
        task.dataset.items.forEach((item, index) => {
          if (!item.choices)
            ctx.addIssue({ code: 'custom', path: ['dataset', 'items', index, 'choices'], message: 'Multiple-choice items need choices' });
        });
      }
    });
}

function suiteDocSchema(profile: RevisionProfile) {
  return z
    .strictObject({
      version: z
        .union([z.string().max(QUALITY_LIMITS.version), z.number()], { error: 'Must be a string' })
        .transform(String)
        .optional(),
      runner: z.enum(['custom', 'lm-eval-harness'], { error: expected('Must be custom or lm-eval-harness') }),
      scoringMethod: z.string({ error: expected('Must be a string') }).pipe(
        z.string().superRefine((method, ctx) => {
          if (method === 'perplexity')
            ctx.addIssue({ code: 'custom', message: 'perplexity is not supported: scores must be comparable fractions in [0, 1]' });
          else if (!(scoringMethods as readonly string[]).includes(method))
            ctx.addIssue({ code: 'custom', message: `Must be one of: ${scoringMethods.join(', ')}` });
        }),
      ) as unknown as z.ZodType<(typeof scoringMethods)[number]>,
      higherIsBetter: bool().default(true),
      aggregation: oneOf(aggregations).default('weighted_mean'),
      runConfig: z
        .strictObject({
          temperature: z
            .number({ error: 'Must be a number' })
            .min(0, 'Must be between 0 and 2')
            .max(2, 'Must be between 0 and 2')
            .default(0),
          topP: z.number({ error: 'Must be a number' }).min(0, 'Must be between 0 and 1').max(1, 'Must be between 0 and 1').optional(),
          fewShot: int(0, 1000).optional(),
          maxNewTokens: int(1, 131_072).optional(),
          seed: int(-2_147_483_648, 2_147_483_647).optional(),
          // Items a server-side execution sends at once (POST {root}/execute).
          concurrency: int(1, 8).optional(),
        })
        .default({ temperature: 0 }),
      judge: z.strictObject({ provider: optionalText(64), model: optionalText(256), baseUrl: httpUrl().optional() }).optional(),
      tasks: z
        .array(taskSchema(profile), { error: expected('Must be a list of tasks') })
        .min(1, 'Give at least one task')
        .max(QUALITY_LIMITS.tasks, `At most ${QUALITY_LIMITS.tasks} tasks`),
    })
    .superRefine((doc, ctx) => {
      const seen = new Set<string>();
      doc.tasks.forEach((task, index) => {
        if (seen.has(task.key)) ctx.addIssue({ code: 'custom', path: ['tasks', index, 'key'], message: `Duplicate task key ${task.key}` });
        seen.add(task.key);
      });
    });
}

/** Suite slugs that would collide with the pages under /evals/ (`/evals/new`, `/evals/runs/...`, `/evals/executions/...`). */
export const RESERVED_SUITE_SLUGS: readonly string[] = ['new', 'runs', 'executions'];

function buildSuiteSchemas(profile: RevisionProfile) {
  const body = z
    .strictObject({
      slug: slugSchema().refine((slug) => !RESERVED_SUITE_SLUGS.includes(slug), {
        message: 'This slug is reserved for a page of the site; choose another',
      }),
      name: text(QUALITY_LIMITS.name),
      description: optionalText(QUALITY_LIMITS.description),
      category: text(QUALITY_LIMITS.category),
      runner: oneOf(suiteRunners),
      version: z
        .string({ error: 'Must be a string' })
        .trim()
        .min(1, 'Must not be empty')
        .max(QUALITY_LIMITS.version, `Must be at most ${QUALITY_LIMITS.version} characters`)
        .default('1.0'),
      sourceUrl: httpUrl().optional(),
      suiteDoc: suiteDocSchema(profile),
    })
    .superRefine((suite, ctx) => {
      if (docRunnerOf[suite.runner] !== suite.suiteDoc.runner) {
        ctx.addIssue({
          code: 'custom',
          path: ['suiteDoc', 'runner'],
          message: `Must be ${docRunnerOf[suite.runner]} for a ${suite.runner} suite`,
        });
      }
      if (suite.runner !== 'CUSTOM') return;
      // A CUSTOM suite is run from its own document: every task needs a prompt and items.
      suite.suiteDoc.tasks.forEach((task, index) => {
        if (!task.promptTemplate?.includes('{{input}}')) {
          ctx.addIssue({
            code: 'custom',
            path: ['suiteDoc', 'tasks', index, 'promptTemplate'],
            message: 'A CUSTOM suite task needs a prompt template containing {{input}}',
          });
        }
        if (task.dataset?.source !== 'inline' && task.dataset?.source !== 'shard') {
          ctx.addIssue({
            code: 'custom',
            path: ['suiteDoc', 'tasks', index, 'dataset'],
            message: 'A CUSTOM suite task needs inline items or a shard dataset',
          });
        }
      });
    });
  // Revision-3 clients may send the body wrapped as { submission: <body> }.
  const wrapped = profile.quality?.submissions ? z.preprocess(unwrapSubmission, body) : body;
  return { body, wrapped };
}

function unwrapSubmission(input: unknown): unknown {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const keys = Object.keys(input);
    if (keys.length === 1 && keys[0] === 'submission') return (input as { submission: unknown }).submission;
  }
  return input;
}

/** The suite registration body (POST /suites, /suites/dry-run, PATCH of a suite submission). */
export const suiteRegistrationSchema = perRevision((profile) => buildSuiteSchemas(profile).wrapped);
export type SuiteRegistration = z.output<ReturnType<typeof buildSuiteSchemas>['body']>;
export type SuiteDoc = SuiteRegistration['suiteDoc'];
export type SuiteTask = SuiteDoc['tasks'][number];

function buildDatasetSchema() {
  const body = z.strictObject({
    slug: slugSchema(),
    name: text(QUALITY_LIMITS.name),
    description: optionalText(QUALITY_LIMITS.description),
    license: optionalText(128),
    sourceUrl: httpUrl().optional(),
    shards: z
      .array(z.strictObject({ name: optionalText(128), items: items(QUALITY_LIMITS.itemsPerShard) }), {
        error: expected('Must be a list of shards: [{ name, items }]'),
      })
      .min(1, 'Give at least one shard')
      .max(QUALITY_LIMITS.shards, `At most ${QUALITY_LIMITS.shards} shards`),
  });
  return z.preprocess(unwrapSubmission, body);
}

/** A sharded dataset (revision 3): POST /datasets, PATCH of a dataset submission. */
export const datasetSchema = buildDatasetSchema();
export type DatasetSubmission = z.output<typeof datasetSchema>;

/** A task score: a fraction, or { score, nShots, nSamples }. */
const taskScore = z
  .number({ error: expected('Must be a number or { score, nShots, nSamples }') })
  .finite('Must be a finite number')
  .superRefine((score, ctx) => {
    if (score > 1 && score <= 100)
      ctx.addIssue({ code: 'custom', message: 'Task scores are fractions in [0, 1]: divide a percentage by 100' });
    else if (score < 0 || score > 1) ctx.addIssue({ code: 'custom', message: 'Must be between 0 and 1' });
  });

const taskResultObject = z.strictObject({ score: taskScore, nShots: int(0, 1000).optional(), nSamples: int(1, 100_000_000).optional() });
type TaskResult = z.output<typeof taskResultObject>;

/**
 * A task's result: a bare score or the object. Parsed by hand, not as a union, so a bad
 * score is reported with its own message (a union would only say that neither form matched).
 */
const taskResult = documentedAs(
  z.unknown().transform((value, ctx): TaskResult => {
    const parsed = typeof value === 'number' ? taskScore.safeParse(value) : taskResultObject.safeParse(value);
    if (parsed.success) return typeof parsed.data === 'number' ? { score: parsed.data } : parsed.data;
    for (const issue of parsed.error.issues) {
      const message =
        value === null || (typeof value !== 'number' && typeof value !== 'object') || Array.isArray(value)
          ? 'Must be a number or { score, nShots, nSamples }'
          : issue.message;
      ctx.addIssue({ ...issue, message, path: issue.path } as Parameters<typeof ctx.addIssue>[0]);
    }
    return z.NEVER;
  }),
  {
    oneOf: [
      { type: 'number', minimum: 0, maximum: 1 },
      {
        type: 'object',
        properties: {
          score: { type: 'number', minimum: 0, maximum: 1 },
          nShots: { type: 'integer', minimum: 0 },
          nSamples: { type: 'integer', minimum: 1 },
        },
        required: ['score'],
        additionalProperties: false,
      },
    ],
  },
);

const artifactSchema = z.strictObject({
  taskKey: z
    .string({ error: expected('Must be a string') })
    .min(1, 'Must not be empty')
    .max(64, 'Must be at most 64 characters'),
  itemIndex: int(0, 1_000_000).optional(),
  promptHash: optionalText(128),
  prompt: z.string({ error: 'Must be a string' }).max(QUALITY_LIMITS.artifactText).optional(),
  question: z.string({ error: 'Must be a string' }).max(QUALITY_LIMITS.artifactText).optional(),
  response: z.string({ error: 'Must be a string' }).max(QUALITY_LIMITS.artifactText).nullable().optional(),
  score: z.number({ error: 'Must be a number' }).finite().nullable().optional(),
  judgeModel: optionalText(256),
  judgeScore: z.number({ error: 'Must be a number' }).finite().nullable().optional(),
  judgeRationale: z.string({ error: 'Must be a string' }).max(QUALITY_LIMITS.artifactText).nullable().optional(),
  latencyMs: z.number({ error: 'Must be a number' }).finite().min(0, 'Must be at least 0').nullable().optional(),
  error: z.string({ error: 'Must be a string' }).max(4000).nullable().optional(),
  // The LocalMaxxing Go CLI sends the answer it extracted; the score is what counts, so it is not kept.
  extractedAnswer: z
    .string({ error: 'Must be a string' })
    .max(QUALITY_LIMITS.artifactText)
    .nullable()
    .optional()
    .meta({ description: 'The answer the client extracted from `response` (accepted, not stored)' }),
});
export type Artifact = z.output<typeof artifactSchema>;

/** Bytes of an artifact's text, as the 5 MB limit counts them. */
export function artifactBytes(artifact: Artifact): number {
  let bytes = 0;
  for (const value of Object.values(artifact)) if (typeof value === 'string') bytes += Buffer.byteLength(value);
  return bytes;
}

function buildRunSchema(profile: RevisionProfile) {
  const { bounds } = profile.speedTests;
  return z.strictObject({
    suiteSlug: z
      .string({ error: expected('Must be a string') })
      .trim()
      .min(1, 'Required')
      .max(QUALITY_LIMITS.slug.max, `Must be at most ${QUALITY_LIMITS.slug.max} characters`),
    hfId: hfIdSchema(profile),
    hardware: hardwareOrFileSchema(profile),
    results: z
      .record(z.string(), taskResult, { error: expected('Must be an object mapping each task key to its score') })
      .refine((results) => Object.keys(results).length > 0, 'Give a score for every task of the suite'),
    modelRevision: text(bounds.maxLength.modelRevision).default('main'),
    quantization: blankAsOmitted(bounds.maxLength.quantization),
    quantFormat: text(64).optional(),
    runnerVersion: text(128).optional(),
    runConfig: z.record(z.string(), z.unknown(), { error: 'Must be a JSON object' }).optional(),
    notes: optionalText(QUALITY_LIMITS.notes),
    executionMode: z
      .string({ error: 'Must be a string' })
      .pipe(
        z.string().superRefine((mode, ctx) => {
          if (mode === 'SERVER_EXECUTE')
            ctx.addIssue({
              code: 'custom',
              message: 'SERVER_EXECUTE is set by the server for executions it ran; use CUSTOM_LOCAL or LM_EVAL_LOCAL',
            });
          else if (!(executionModes as readonly string[]).includes(mode))
            ctx.addIssue({ code: 'custom', message: `Must be one of: ${executionModes.join(', ')}` });
        }),
      )
      .optional() as unknown as z.ZodOptional<z.ZodType<(typeof executionModes)[number]>>,
    judgeMode: oneOf(judgeModes).optional(),
    artifacts: z
      .array(artifactSchema, { error: 'Must be a list of per-item traces' })
      .max(QUALITY_LIMITS.artifacts, `At most ${QUALITY_LIMITS.artifacts} artifacts`)
      .superRefine((artifacts, ctx) => {
        const bytes = artifacts.reduce((sum, artifact) => sum + artifactBytes(artifact), 0);
        if (bytes > QUALITY_LIMITS.artifactBytes) ctx.addIssue({ code: 'custom', message: 'Artifacts must total at most 5 MB of text' });
      })
      .optional(),
  });
}

/** The quality run body (POST /runs, /runs/dry-run). */
export const qualityRunSchema = perRevision(buildRunSchema);
export type QualityRunSubmission = z.output<ReturnType<typeof buildRunSchema>>;

// ---------------------------------------------------------------------------
// Query strings and paths
// ---------------------------------------------------------------------------

export const SUITE_LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;
export const ARTIFACT_PAGE_LIMIT = { min: 1, max: 200, default: 50 } as const;

export const suiteListQuerySchema = z.strictObject({
  category: queryText(QUALITY_LIMITS.category).optional(),
  runner: z.enum(suiteRunners, { error: `Must be one of: ${suiteRunners.join(', ')}` }).optional(),
  official: queryFlag().optional(),
  limit: wholeNumber(SUITE_LIST_LIMIT.min, SUITE_LIST_LIMIT.max).default(SUITE_LIST_LIMIT.default),
  offset: wholeNumber(0, 1_000_000).default(0),
});

export const bestRunsQuerySchema = z.strictObject({
  modelId: queryText(256),
});

export const artifactPageQuerySchema = z.strictObject({
  limit: wholeNumber(ARTIFACT_PAGE_LIMIT.min, ARTIFACT_PAGE_LIMIT.max).default(ARTIFACT_PAGE_LIMIT.default),
  offset: wholeNumber(0, QUALITY_LIMITS.artifacts).default(0),
});

/** `:slug` of a suite or dataset: a value that cannot be a slug names nothing (404). */
export const slugParam = (notFound: string, description: string) =>
  z.object({ slug: z.string().regex(SLUG_PATTERN, notFound).max(QUALITY_LIMITS.slug.max, notFound).meta({ description }) });

export const submissionParams = z.object({
  kind: z.enum(['suite', 'dataset'], { error: 'Submission not found' }).meta({ description: '`suite` or `dataset`' }),
  id: z.uuid({ error: 'Submission not found' }).meta({ description: 'Submission id (from GET /submissions)' }),
});
