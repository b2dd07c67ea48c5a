import { z } from 'zod';
import { scoringMethods } from './quality.schema.ts';
import { count, timestamp, uuid } from './responses.schema.ts';

/** What the execute endpoints answer (closed objects, like every answer). */

const nullable = <S extends z.ZodType>(schema: S) => schema.nullable();

const execution = z.object({
  id: uuid,
  status: z.enum(['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED']),
  suiteSlug: z.string(),
  baseUrl: z.string(),
  model: z.string().meta({ description: 'The served model name sent to the target' }),
  hfId: z.string(),
  autoSubmit: z.boolean(),
  taskKeys: nullable(z.array(z.string())).meta({ description: 'The chosen tasks, or null for every task' }),
  progress: z.object({ done: count, total: count, failed: count.meta({ description: 'Items the target gave no usable answer for' }) }),
  tasks: z.array(
    z.object({
      key: z.string(),
      displayName: nullable(z.string()),
      weight: z.number(),
      done: count,
      total: count,
      score: nullable(z.number().min(0).max(1)).meta({ description: 'Mean item score so far (a fraction); null before the first item' }),
    }),
  ),
  score: nullable(z.number().min(0).max(100)).meta({
    description: "The aggregate (0-100) once every item is scored, with the suite's aggregation",
  }),
  error: nullable(z.string()),
  cancelRequested: z.boolean(),
  runId: nullable(uuid).meta({ description: 'The PENDING quality run auto-submitted from this execution' }),
  runUrl: nullable(z.string()),
  submitError: nullable(z.string()).meta({ description: 'Why an auto-submit did not happen' }),
  statusUrl: z.string(),
  pageUrl: z.string().meta({ description: 'The HTML page of this execution' }),
  createdAt: timestamp,
  startedAt: nullable(timestamp),
  finishedAt: nullable(timestamp),
  deadlineAt: nullable(timestamp).meta({ description: 'When the 30-minute cap stops it' }),
});

export const executionResponseSchema = z.object({ execution, statusUrl: z.string() });

const probe = <S extends z.ZodRawShape>(shape: S) =>
  z.union([z.object({ ok: z.literal(true), latencyMs: count, ...shape }), z.object({ ok: z.literal(false), error: z.string() })]);

export const executionDryRunResponseSchema = z.object({
  valid: z.literal(true),
  ready: z.boolean().meta({ description: 'The model list and the test completion both worked and the model is served' }),
  suite: z.object({ slug: z.string(), name: z.string(), scoringMethod: z.enum(scoringMethods) }),
  plan: z.object({ items: count, tasks: z.array(z.object({ key: z.string(), total: count })), judged: z.boolean(), concurrency: count }),
  target: z.object({
    baseUrl: z.string(),
    hostname: z.string(),
    port: count,
    allowListed: z.boolean(),
    addresses: z.array(
      z.object({ address: nullable(z.string()), family: z.union([z.literal(4), z.literal(6)]), range: z.string(), public: z.boolean() }),
    ),
    verdict: z.enum(['public', 'allow-listed']),
  }),
  models: probe({ names: z.array(z.string()), servesModel: nullable(z.boolean()) }),
  chat: probe({ reply: z.string() }),
  model: z.string(),
});
