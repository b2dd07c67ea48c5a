import { createOpenAiCompatibleClient } from '../clients/openai-compatible.ts';
import { OutboundFailure, TargetRefused } from '../clients/outbound.ts';
import type { Db } from '../db/knex.ts';
import { createKeyedSerial } from '../lib/keyed-serial.ts';
import { isJudged, planItems, type PlannedItem } from '../lib/execution-plan.ts';
import { Conflict, HttpError, NotFound, RateLimited, ValidationFailed } from '../lib/errors.ts';
import { aggregateScores } from '../lib/quality-scoring.ts';
import { messages } from '../messages.ts';
import { EXECUTE_LIMITS, type ExecuteRequest } from '../schemas/execute.schema.ts';
import type { QualityItem, SuiteDoc, SuiteTask } from '../schemas/quality.schema.ts';
import type { ServiceDeps } from './deps.ts';
import type { ExecutionDeps } from './execution-runtime.ts';
import type { ModelsService } from './models.service.ts';
import type { RateLimitService } from './rate-limit.service.ts';
import { suitesWithCreator, taskItems, type SuiteListRow } from './quality-suites.service.ts';

/**
 * Server-side executions, the request side: checks an execute request (suite, tasks, the
 * target's address, the model), queues the job, shows it to its owner and cancels it. The
 * worker loops (execution-worker.ts) run the jobs.
 */

export type ExecutionStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
export const FINISHED: readonly ExecutionStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

/** The request as stored with the job (never the API key). */
export interface StoredRequest {
  suiteSlug: string;
  baseUrl: string;
  model: string;
  hfId: string;
  autoSubmit: boolean;
  hardware: ExecuteRequest['hardware'] | null;
  quantization: string | null;
  modelRevision: string;
  notes: string | null;
  taskKeys: string[] | null;
  /** The plan's tasks, in order, with their item counts (the status shows progress per task). */
  tasks: { key: string; displayName: string | null; weight: number; total: number }[];
  aggregation: SuiteDoc['aggregation'];
  judged: boolean;
}

export interface ExecutionRow {
  id: string;
  user_id: string;
  suite_id: string;
  status: ExecutionStatus;
  request: StoredRequest;
  key_holder: string | null;
  total: number;
  done: number;
  failed_items: number;
  error: string | null;
  run_id: string | null;
  submit_error: string | null;
  worker_id: string | null;
  heartbeat_at: Date | null;
  cancel_requested: boolean;
  started_at: Date | null;
  deadline_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A suite that can be executed, with its items loaded. */
export interface ExecutableSuite {
  row: SuiteListRow;
  doc: SuiteDoc;
  itemsOf: Map<string, readonly QualityItem[]>;
}

/** The approved CUSTOM suite by slug, executable by this deployment: 404 unknown, 422 otherwise. */
export async function executableSuite(db: Db, slug: string, judge: ExecutionDeps['judge']): Promise<ExecutableSuite> {
  const row = await suitesWithCreator(db).where('s.slug', slug).whereNot('s.status', 'WITHDRAWN').first();
  if (!row) throw new NotFound(messages.qualitySuiteNotFound(slug));
  if (row.status !== 'APPROVED') throw new HttpError(422, messages.executionSuiteNotApproved(slug, row.status));
  if (row.runner !== 'CUSTOM') throw new HttpError(422, messages.executionSuiteNotCustom(slug));
  const doc = row.suite_doc as SuiteDoc;
  if (doc.scoringMethod === 'pass_at_k') throw new HttpError(422, messages.executionScoringNotSupported(doc.scoringMethod));
  if (!judge && (doc.tasks as SuiteTask[]).some((task) => isJudged(doc, task)))
    throw new HttpError(422, messages.executionJudgeNotConfigured);
  const itemsOf = new Map<string, readonly QualityItem[]>();
  for (const task of doc.tasks as SuiteTask[]) itemsOf.set(task.key, (await taskItems(db, task)) ?? []);
  return { row, doc, itemsOf };
}

/** Task scores so far (fractions), per task key, from the items already scored. */
export async function taskProgress(db: Db, executionId: string): Promise<Map<string, { done: number; score: number }>> {
  const rows = await db('quality_execution_items')
    .where({ execution_id: executionId })
    .groupBy('task_key')
    .select('task_key', db.raw('count(*)::int as done'), db.raw('avg(score) as score'));
  return new Map(
    rows.map((row: { task_key: string; done: number; score: number }) => [row.task_key, { done: row.done, score: Number(row.score) }]),
  );
}

const round = (value: number, places = 4) => Math.round(value * 10 ** places) / 10 ** places;

/** An execution as its owner sees it. */
export function toExecution(row: ExecutionRow, progress: Map<string, { done: number; score: number }>, root: string) {
  const request = row.request;
  const tasks = request.tasks.map((task) => {
    const seen = progress.get(task.key);
    return {
      key: task.key,
      displayName: task.displayName,
      weight: task.weight,
      done: seen?.done ?? 0,
      total: task.total,
      score: seen ? round(seen.score) : null,
    };
  });
  const complete = tasks.every((task) => task.score !== null && task.done === task.total);
  const score =
    complete && tasks.length > 0
      ? round(
          aggregateScores(
            tasks.map((task) => ({ score: task.score!, weight: task.weight })),
            request.aggregation,
          ) * 100,
          2,
        )
      : null;
  return {
    id: row.id,
    status: row.status,
    suiteSlug: request.suiteSlug,
    baseUrl: request.baseUrl,
    model: request.model,
    hfId: request.hfId,
    autoSubmit: request.autoSubmit,
    taskKeys: request.taskKeys,
    progress: { done: row.done, total: row.total, failed: row.failed_items },
    tasks,
    score,
    error: row.error,
    cancelRequested: row.cancel_requested && row.status === 'RUNNING',
    runId: row.run_id,
    runUrl: row.run_id ? `${root}/runs/${row.run_id}` : null,
    submitError: row.submit_error,
    statusUrl: `${root}/execute/${row.id}`,
    pageUrl: `/evals/executions/${row.id}`,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
    deadlineAt: row.deadline_at?.toISOString() ?? null,
  };
}
export type Execution = ReturnType<typeof toExecution>;

type FieldErrors = Record<string, string[]>;

/** The advisory lock of one user's executions: queue admissions and worker claims take it. */
export const executionLockKey = (userId: string) => `quality-executions:${userId}`;

/** 429 when the user already has `queuedPerUser` executions waiting or running. */
async function assertQueueRoom(db: Db, userId: string): Promise<void> {
  const waiting = await db('quality_executions')
    .where({ user_id: userId })
    .whereIn('status', ['QUEUED', 'RUNNING'])
    .count<{ count: string }[]>({ count: '*' });
  if (Number(waiting[0]!.count) >= EXECUTE_LIMITS.queuedPerUser)
    throw new RateLimited(messages.executionTooManyQueued(EXECUTE_LIMITS.queuedPerUser), 60_000);
}

export function createExecutionsService(
  deps: ServiceDeps & { execution: ExecutionDeps; models: ModelsService; rateLimits: RateLimitService },
) {
  const { db, clock, profile, execution, models, rateLimits } = deps;
  const { outbound, runtime, judge, timing } = execution;
  const root = profile.quality?.root ?? '/api/benchmarks';
  const target = createOpenAiCompatibleClient(outbound);
  // One admission per user at a time in this instance; the advisory lock orders instances.
  const admitSerially = createKeyedSerial();

  /** Every check of an execute request, in order of cost; writes nothing. */
  async function prepare(body: ExecuteRequest) {
    const suite = await executableSuite(db, body.suiteSlug, judge);
    const errors: FieldErrors = {};
    const keys = new Set(suite.row.task_keys);
    (body.taskKeys ?? []).forEach((key, index) => {
      if (!keys.has(key)) (errors[`taskKeys.${index}`] ??= []).push(messages.qualityUnknownTaskKey(suite.row.slug));
    });
    if (Object.keys(errors).length > 0) throw new ValidationFailed({ fieldErrors: errors, formErrors: [] });
    const plan = planItems(suite.doc, suite.itemsOf, body.taskKeys);
    if (plan.length > EXECUTE_LIMITS.items) {
      throw new ValidationFailed({
        fieldErrors: { [body.taskKeys ? 'taskKeys' : 'suiteSlug']: [messages.executionTooManyItems(plan.length, EXECUTE_LIMITS.items)] },
        formErrors: [],
      });
    }
    const vetted = await outbound.vet(body.baseUrl, 'baseUrl');
    const model = await models.resolve(body.hfId);
    return { suite, plan, vetted, model };
  }

  function storedRequest(body: ExecuteRequest, suite: ExecutableSuite, plan: PlannedItem[]): StoredRequest {
    const chosen = body.taskKeys ? new Set(body.taskKeys) : null;
    const tasks = (suite.doc.tasks as SuiteTask[])
      .filter((task) => !chosen || chosen.has(task.key))
      .map((task) => ({
        key: task.key,
        displayName: task.displayName ?? null,
        weight: task.weight,
        total: plan.filter((item) => item.task.key === task.key).length,
      }));
    return {
      suiteSlug: suite.row.slug,
      baseUrl: body.baseUrl,
      model: body.model ?? body.hfId,
      hfId: body.hfId,
      autoSubmit: body.autoSubmit,
      hardware: body.hardware ?? null,
      quantization: body.quantization ?? null,
      modelRevision: body.modelRevision,
      notes: body.notes || null,
      taskKeys: body.taskKeys ?? null,
      tasks,
      aggregation: suite.doc.aggregation,
      judged: plan.some((item) => isJudged(suite.doc, item.task)),
    };
  }

  async function ownRow(userId: string, id: string): Promise<ExecutionRow> {
    const row = await db<ExecutionRow>('quality_executions').where({ id, user_id: userId }).first();
    if (!row) throw new NotFound(messages.executionNotFound);
    return row;
  }

  async function view(row: ExecutionRow): Promise<Execution> {
    return toExecution(row, await taskProgress(db, row.id), root);
  }

  return {
    /** Queues an execution (202): checked first, the target's key kept in this instance's memory only. */
    async start(userId: string, body: ExecuteRequest): Promise<Execution> {
      if (body.apiKey && runtime.workers === 0) throw new HttpError(422, messages.executionKeyNeedsWorkers);
      await assertQueueRoom(db, userId);
      const { suite, plan } = await prepare(body);
      const row = await admitSerially(userId, () =>
        db.transaction(async (trx) => {
          // The cap is counted again under the user's lock (the one the workers' claims take),
          // so concurrent requests of one user cannot all pass the count before any inserts.
          await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [executionLockKey(userId)]);
          await assertQueueRoom(trx, userId);
          const now = clock.now();
          const [inserted] = await trx<ExecutionRow>('quality_executions')
            .insert({
              user_id: userId,
              suite_id: suite.row.id,
              status: 'QUEUED',
              request: JSON.stringify(storedRequest(body, suite, plan)) as unknown as StoredRequest,
              key_holder: body.apiKey ? runtime.instanceId : null,
              total: plan.length,
              created_at: now,
              updated_at: now,
            })
            .returning('*');
          return inserted!;
        }),
      );
      if (body.apiKey) runtime.keys.set(row.id, body.apiKey);
      runtime.wake();
      return view(row);
    },

    /**
     * Checks the request like `start`, then asks the target what it serves and for one tiny
     * completion: whether the execution would work, before a long job is queued.
     */
    async dryRun(userId: string, address: string, body: ExecuteRequest) {
      // Each dry-run reaches out to a host the caller names: limited per user and per address,
      // so it cannot become a port scanner or a way to keep the service busy.
      for (const [bucket, key, window] of [
        ['execute-dry-run-user', userId, EXECUTE_LIMITS.dryRunsPerUser],
        ['execute-dry-run-address', address, EXECUTE_LIMITS.dryRunsPerAddress],
      ] as const) {
        const hit = await rateLimits.hit({ bucket, key, ...window });
        if (!hit.allowed) throw new RateLimited(messages.executionTooManyDryRuns(window.limit), hit.retryAfterMs);
      }
      const { suite, plan, vetted } = await prepare(body);
      const served = body.model ?? body.hfId;
      // One deadline for both calls: a target that never answers holds a dry-run this long at most.
      const deadline = performance.now() + timing.dryRunDeadlineMs;
      const probe = async <T>(call: (timeoutMs: number) => Promise<T>) => {
        const timeoutMs = Math.round(deadline - performance.now());
        if (timeoutMs <= 0) return { ok: false as const, error: messages.executionDryRunDeadline(timing.dryRunDeadlineMs) };
        try {
          return { ok: true as const, value: await call(timeoutMs) };
        } catch (error) {
          if (error instanceof TargetRefused) throw error;
          return {
            ok: false as const,
            error:
              error instanceof Error && (error instanceof OutboundFailure || error.name === 'TargetAnswerError')
                ? error.message
                : 'The request failed',
          };
        }
      };
      const listed = await probe((timeoutMs) => target.models(body.baseUrl, body.apiKey, { timeoutMs }));
      const chat = await probe((timeoutMs) =>
        target.chat(body.baseUrl, {
          model: served,
          prompt: 'Reply with the single word: ready',
          temperature: 0,
          maxTokens: 8,
          apiKey: body.apiKey,
          timeoutMs,
        }),
      );
      const servesModel = listed.ok ? listed.value.names.includes(served) : null;
      const request = storedRequest(body, suite, plan);
      return {
        valid: true as const,
        ready: listed.ok && chat.ok && servesModel !== false,
        suite: { slug: suite.row.slug, name: suite.row.name, scoringMethod: suite.doc.scoringMethod },
        plan: {
          items: plan.length,
          tasks: request.tasks.map(({ key, total }) => ({ key, total })),
          judged: request.judged,
          concurrency: suite.doc.runConfig.concurrency ?? 1,
        },
        target: {
          baseUrl: body.baseUrl,
          hostname: vetted.hostname,
          port: vetted.port,
          allowListed: vetted.allowListed,
          addresses: vetted.addresses,
          verdict: vetted.allowListed ? 'allow-listed' : 'public',
        },
        models: listed.ok
          ? { ok: true, latencyMs: Math.round(listed.value.latencyMs), names: listed.value.names, servesModel }
          : { ok: false, error: listed.error },
        chat: chat.ok
          ? { ok: true, latencyMs: Math.round(chat.value.latencyMs), reply: chat.value.text.slice(0, 200) }
          : { ok: false, error: chat.error },
        model: served,
      };
    },

    async get(userId: string, id: string): Promise<Execution> {
      return view(await ownRow(userId, id));
    },

    /** The user's executions, newest first (the pages). */
    async listOwn(userId: string, limit = 20): Promise<Execution[]> {
      const rows = await db<ExecutionRow>('quality_executions')
        .where({ user_id: userId })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(limit);
      return Promise.all(rows.map(view));
    },

    /** A queued job is cancelled at once; a running one is stopped by its worker (in-flight requests aborted). */
    async cancel(userId: string, id: string): Promise<Execution> {
      const row = await ownRow(userId, id);
      if (FINISHED.includes(row.status)) throw new Conflict(messages.executionFinished(row.status));
      const now = clock.now();
      const [queued] = await db<ExecutionRow>('quality_executions')
        .where({ id, status: 'QUEUED' })
        .update({ status: 'CANCELLED', cancel_requested: true, finished_at: now, updated_at: now, key_holder: null })
        .returning('*');
      if (queued) {
        runtime.keys.delete(id);
        return view(queued);
      }
      const [running] = await db<ExecutionRow>('quality_executions')
        .where({ id })
        .whereIn('status', ['RUNNING'])
        .update({ cancel_requested: true, updated_at: now })
        .returning('*');
      runtime.cancel(id);
      return view(running ?? (await ownRow(userId, id)));
    },
  };
}
