import { z } from 'zod';
import { reactionEmojis } from '../constants.ts';
import { perRevision } from './query-params.ts';
import { aggregations, scoringMethods, suiteRunners } from './quality.schema.ts';
import { count, dryRunModel, modelSummary, normalisedHardware, timestamp, uuid } from './responses.schema.ts';

/**
 * What the quality endpoints answer (closed objects, like every answer: see
 * responses.schema.ts). DECISIONS.md "Response shapes not shown": the stored object in
 * camelCase with ids, timestamps and a small embedded summary of its relations.
 */

const nullable = <S extends z.ZodType>(schema: S) => schema.nullable();
const reviewStatus = z.enum(['PENDING', 'APPROVED', 'REJECTED', 'WITHDRAWN']);
const person = z.object({ username: z.string(), displayName: z.string() });
const fraction = z.number().min(0).max(1);

const suiteSummary = z.object({
  id: uuid,
  slug: z.string(),
  name: z.string(),
  description: nullable(z.string()),
  category: z.string(),
  runner: z.enum(suiteRunners),
  version: z.string(),
  sourceUrl: nullable(z.string()),
  taskKeys: z.array(z.string()),
  taskCount: count,
  itemCount: count.meta({ description: 'Items across inline tasks and shard datasets' }),
  scoring: z.object({ method: z.enum(scoringMethods), aggregation: z.enum(aggregations), higherIsBetter: z.boolean() }),
  runConfig: z.record(z.string(), z.unknown()).meta({ description: 'temperature, topP, fewShot, maxNewTokens, seed' }),
  status: reviewStatus,
  official: z.boolean(),
  createdBy: person,
  runCount: count.meta({ description: 'Approved runs' }),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const suiteResponseSchema = suiteSummary
  .extend({
    suiteDoc: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The suite document as registered, answers included, so clients can score locally' }),
  })
  .meta({ description: 'A quality suite with its whole document' });

const suiteListItem = suiteSummary.extend({
  suiteDoc: z.record(z.string(), z.unknown()).meta({
    description:
      'The suite document without dataset items (`itemCount` per task instead), so clients can search task keys; shard tasks carry a signed `dataset.downloadUrl`',
  }),
});
export const suiteListResponseSchema = z.object({ suites: z.array(suiteListItem), total: count, limit: z.int().min(1), offset: count });

export const suiteDryRunResponseSchema = z.object({
  valid: z.literal(true),
  slugAvailable: z.literal(true),
  taskKeys: z.array(z.string()),
  itemCount: count,
  datasets: z.array(z.string()).meta({ description: 'Slugs of the shard datasets the tasks use' }),
});

const datasetSummary = z.object({
  id: uuid,
  slug: z.string(),
  name: z.string(),
  description: nullable(z.string()),
  license: nullable(z.string()),
  sourceUrl: nullable(z.string()),
  shardCount: count,
  itemCount: count,
  status: reviewStatus,
  createdBy: person,
  createdAt: timestamp,
  updatedAt: timestamp,
});
export const datasetResponseSchema = datasetSummary.meta({ description: 'A sharded dataset (its items are answered once approved)' });
export const datasetListResponseSchema = z.object({
  datasets: z.array(datasetSummary),
  total: count,
  limit: z.int().min(1),
  offset: count,
});
export const datasetWithShardsResponseSchema = datasetSummary.extend({
  shards: z.array(z.object({ name: nullable(z.string()), items: z.array(z.record(z.string(), z.unknown())) })),
});

const submissionSummary = z.object({
  kind: z.enum(['suite', 'dataset']),
  id: uuid,
  slug: z.string(),
  name: z.string(),
  status: reviewStatus,
  adminNotes: nullable(z.string()),
  reviewedAt: nullable(timestamp),
  usedBy: count.meta({ description: 'Approved runs of a suite; live suites using a dataset' }),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export const submissionListResponseSchema = z.object({ submissions: z.array(submissionSummary) });
export const suiteSubmissionUpdateResponseSchema = z.object({ kind: z.literal('suite'), suite: suiteResponseSchema });
export const datasetSubmissionUpdateResponseSchema = z.object({ kind: z.literal('dataset'), dataset: datasetResponseSchema });
export const withdrawnResponseSchema = z.object({
  kind: z.enum(['suite', 'dataset']),
  id: uuid,
  slug: z.string(),
  status: z.literal('WITHDRAWN'),
});

const taskResult = z.object({
  key: z.string(),
  displayName: nullable(z.string()),
  weight: z.number(),
  score: fraction.meta({ description: "The task score the aggregate counts: the server's own when it re-scored every item" }),
  clientScore: fraction.meta({ description: 'What the submission reported' }),
  nShots: nullable(count),
  nShotsFrom: nullable(z.enum(['run', 'suite'])).meta({
    description:
      "Where nShots comes from: `run` as the run stated it, `suite` the suite task's default (the run did not say), null when neither says (or the run predates this field)",
  }),
  nSamples: nullable(z.int().min(1)),
  stdError: nullable(z.number().min(0)).meta({ description: 'Standard error of the task score, where the sample count is known' }),
  rescored: nullable(
    z.object({
      items: z.int().min(1),
      ofItems: z.int().min(1),
      serverScore: fraction,
      disagreement: fraction.meta({
        description: "|server - client| over the re-scored items (the client's item scores, else its task score)",
      }),
    }),
  ),
});

const qualityRun = z
  .object({
    id: uuid,
    status: z.enum(['PENDING', 'APPROVED', 'REJECTED']),
    score: z.number().min(0).max(100).meta({ description: "The server's aggregate: the suite's aggregation over task weights, x100" }),
    suiteId: uuid,
    suiteSlug: z.string(),
    suite: z.object({
      id: uuid,
      slug: z.string(),
      name: z.string(),
      runner: z.enum(suiteRunners),
      category: z.string(),
      official: z.boolean(),
      aggregation: z.enum(aggregations),
      scoringMethod: z.enum(scoringMethods),
    }),
    modelId: uuid,
    hfId: z.string(),
    model: modelSummary,
    modelRevision: z.string(),
    quantization: nullable(z.string()),
    quantFormat: nullable(z.string()),
    runnerVersion: nullable(z.string()),
    runConfig: nullable(z.record(z.string(), z.unknown())),
    notes: nullable(z.string()),
    executionMode: z.enum(['CUSTOM_LOCAL', 'LM_EVAL_LOCAL', 'SERVER_EXECUTE']),
    judgeMode: z.enum(['NONE', 'LOCAL_REPORTED']),
    hardwareId: uuid,
    hardware: normalisedHardware,
    tasks: z.array(taskResult),
    rescored: z.boolean().meta({ description: 'Whether the server re-scored any task from the uploaded responses' }),
    maxDisagreement: nullable(fraction),
    artifactCount: count,
    userId: uuid,
    user: person,
    reactionCounts: z.partialRecord(z.enum(reactionEmojis), z.int().min(1)),
    myEmoji: nullable(z.enum(reactionEmojis)),
    adminNotes: nullable(z.string()),
    reviewedAt: nullable(timestamp),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ description: 'A quality run' });
export const qualityRunResponseSchema = qualityRun;

export const qualityRunDryRunResponseSchema = z.object({
  valid: z.literal(true),
  suite: z.object({
    id: uuid,
    slug: z.string(),
    name: z.string(),
    aggregation: z.enum(aggregations),
    scoringMethod: z.enum(scoringMethods),
  }),
  model: dryRunModel,
  score: z.number().min(0).max(100),
  tasks: z.array(taskResult),
  rescored: z.boolean(),
  maxDisagreement: nullable(fraction),
});

export const bestQualityRunsResponseSchema = perRevision((profile) =>
  profile.quality?.runsPerShardDataset
    ? z.object({
        suites: z.array(qualityRun).meta({ description: 'The best approved run per suite' }),
        datasets: z.array(
          z.object({
            dataset: z.object({ id: uuid, slug: z.string(), name: z.string() }),
            score: z.number().min(0).max(100).meta({ description: "Mean of the run's scores on the tasks using the dataset, x100" }),
            taskKeys: z.array(z.string()),
            run: qualityRun,
          }),
        ),
      })
    : z.object({ runs: z.array(qualityRun).meta({ description: 'The best approved run per suite' }) }),
);

export const artifactPageResponseSchema = z.object({
  artifacts: z.array(
    z.object({
      seq: count,
      taskKey: z.string(),
      itemIndex: nullable(count),
      promptHash: nullable(z.string()),
      prompt: nullable(z.string()),
      question: nullable(z.string()),
      response: nullable(z.string()),
      score: nullable(z.number()),
      judgeModel: nullable(z.string()),
      judgeScore: nullable(z.number()),
      judgeRationale: nullable(z.string()),
      latencyMs: nullable(z.number()),
      error: nullable(z.string()),
    }),
  ),
  total: count,
  limit: z.int().min(1),
  offset: count,
});
