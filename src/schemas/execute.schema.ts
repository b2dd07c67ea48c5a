import { z } from 'zod';
import type { RevisionProfile } from '../revisions.ts';
import { perRevision } from './query-params.ts';
import { QUALITY_LIMITS, TASK_KEY_PATTERN } from './quality.schema.ts';
import { hardwareOrFileSchema, hfIdSchema } from '../runs/submission/speed-test.schema.ts';
import { blankAsOmitted, text } from './text-fields.ts';

/**
 * The execute request (DECISIONS.md "Execute (server-side evaluation)"): which approved
 * CUSTOM suite to run against which OpenAI-compatible server, and what to do with the
 * scores. The same body is accepted by POST {root}/execute and {root}/execute/dry-run.
 * Whether `baseUrl` is public is the guard's to say (src/lib/target-address.ts), after this.
 */

export const EXECUTE_LIMITS = {
  /** Items (prompts) per execution. */
  items: 200,
  /** The whole execution, from its first claim. */
  maxDurationMs: 30 * 60_000,
  /** One request to the target or the judge. */
  requestTimeoutMs: 60_000,
  /** Executions running at once per user; more wait in the queue. */
  runningPerUser: 2,
  /** Executions waiting or running per user; more are refused. */
  queuedPerUser: 10,
  /** Items in flight at once, from the suite's runConfig.concurrency. */
  maxConcurrency: 8,
  /** An execution fails when more than this share of its items got no usable answer. */
  maxFailedItemShare: 0.1,
  /** A dry-run's two calls to the target together. */
  dryRunDeadlineMs: 20_000,
  /** Dry-runs per minute of one user, and of one address (any users): each reaches out to a host the caller names. */
  dryRunsPerUser: { limit: 10, windowMs: 60_000 },
  dryRunsPerAddress: { limit: 30, windowMs: 60_000 },
} as const;

function buildExecuteSchema(profile: RevisionProfile) {
  const { bounds } = profile.speedTests;
  return z
    .strictObject({
      suiteSlug: text(QUALITY_LIMITS.slug.max),
      baseUrl: text(2048),
      // The LocalMaxxing clients send only `model` (the hub id): without `hfId`, `model` is the
      // hub id and the served name, unless `servedModel` names the latter (DECISIONS.md "Real clients").
      hfId: hfIdSchema(profile).optional(),
      model: text(256).optional(),
      servedModel: text(256).optional(),
      apiKey: text(4096).optional(),
      autoSubmit: z.boolean({ error: 'Must be true or false' }).default(false),
      hardware: hardwareOrFileSchema(profile).optional(),
      quantization: blankAsOmitted(bounds.maxLength.quantization),
      modelRevision: text(bounds.maxLength.modelRevision).default('main'),
      notes: z
        .string({ error: 'Must be a string' })
        .trim()
        .max(QUALITY_LIMITS.notes, `Must be at most ${QUALITY_LIMITS.notes} characters`)
        .optional(),
      taskKeys: z
        .array(z.string({ error: 'Must be a string' }).regex(TASK_KEY_PATTERN, 'Must be a task key of the suite'), {
          error: 'Must be a list of task keys',
        })
        .min(1, 'Give at least one task key, or leave taskKeys out for every task')
        .max(QUALITY_LIMITS.tasks, `At most ${QUALITY_LIMITS.tasks} task keys`)
        .optional(),
    })
    .superRefine((body, ctx) => {
      if (body.hfId === undefined) {
        if (body.model === undefined)
          ctx.addIssue({ code: 'custom', path: ['hfId'], message: 'Required (or give model, the hub id of the model)' });
        else if (!hfIdSchema(profile).safeParse(body.model).success)
          ctx.addIssue({ code: 'custom', path: ['model'], message: 'Without hfId, must be the hub id of the model (<org>/<model>)' });
      }
      if (body.autoSubmit && !body.hardware)
        ctx.addIssue({
          code: 'custom',
          path: ['hardware'],
          message: 'Required when autoSubmit is true: the submitted run names the hardware it ran on',
        });
      if (body.autoSubmit && body.taskKeys)
        ctx.addIssue({
          code: 'custom',
          path: ['taskKeys'],
          message: 'autoSubmit runs every task of the suite (a submitted run covers them all): leave taskKeys out',
        });
    })
    .transform(({ servedModel, ...body }) => ({
      ...body,
      hfId: body.hfId ?? (body.model as string),
      model: servedModel ?? body.model,
    }));
}

/** POST {root}/execute and {root}/execute/dry-run. */
export const executeSchema = perRevision(buildExecuteSchema);
export type ExecuteRequest = z.output<ReturnType<typeof buildExecuteSchema>>;
