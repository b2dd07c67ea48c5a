import { setTimeout as sleep } from 'node:timers/promises';
import { createOpenAiCompatibleClient, type OpenAiCompatibleClient } from '../clients/openai-compatible.ts';
import { OutboundFailure, TargetRefused } from '../clients/outbound.ts';
import { isJudged, planItems, promptHash, renderPrompt, type PlannedItem } from '../lib/execution-plan.ts';
import { HttpError, RateLimited } from '../lib/errors.ts';
import { judgePrompt, MAX_UNPARSED_JUDGE_SHARE, parseJudgeVerdict } from '../lib/judge-scoring.ts';
import { acceptedAnswers, capResponse, scoreResponse } from '../lib/quality-scoring.ts';
import type { Logger } from '../logger.ts';
import { messages } from '../messages.ts';
import { EXECUTE_LIMITS } from '../schemas/execute.schema.ts';
import type { Artifact } from '../schemas/quality.schema.ts';
import type { ServiceDeps } from './deps.ts';
import type { ExecutionDeps } from './execution-runtime.ts';
import { executableSuite, executionLockKey, type ExecutableSuite, type ExecutionRow } from './executions.service.ts';
import { itemScoringRule, type QualityRunsService } from './quality-runs.service.ts';

/**
 * The worker loops of server-side execution. Each loop claims the oldest waiting job (or a
 * running one whose worker stopped beating) with `FOR UPDATE SKIP LOCKED`, so two workers
 * never run the same job, and at most `runningPerUser` jobs of one user run at once. A job
 * sends its items (those not scored yet: a taken-over job resumes) with the suite's
 * concurrency, stores every item's result as it comes, beats while it runs, and ends
 * SUCCEEDED (auto-submitting a PENDING run when asked), FAILED or CANCELLED. Stopping
 * hands running jobs back to the queue.
 */

/** Why a running job was stopped before its end. */
type StopReason = 'cancel' | 'handback' | 'lost' | 'deadline' | 'failures' | 'refused';

interface ItemResult {
  response: string | null;
  extracted: string | null;
  score: number;
  judgeScore: number | null;
  judgeRationale: string | null;
  judgeUnparsed: boolean;
  latencyMs: number | null;
  error: string | null;
}

/** The short, safe text of a failed call (never a stack, never the target's body). */
function failureText(error: unknown): string {
  if (error instanceof TargetRefused) return error.reason;
  if (error instanceof OutboundFailure || (error instanceof Error && error.name === 'TargetAnswerError')) return error.message;
  return 'The request failed';
}

export function createExecutionWorkers(deps: ServiceDeps & { execution: ExecutionDeps; logger: Logger; qualityRuns: QualityRunsService }) {
  const { db, clock, execution, logger } = deps;
  const { runtime, timing, judge } = execution;
  const target: OpenAiCompatibleClient = createOpenAiCompatibleClient(execution.outbound);
  const running = new Map<string, AbortController>();
  const loops: Promise<void>[] = [];
  let stopping = false;
  let wakeUp: (() => void)[] = [];

  const wake = () => {
    const waiting = wakeUp;
    wakeUp = [];
    for (const resolve of waiting) resolve();
  };
  const onCancel = (id: string) => running.get(id)?.abort('cancel' satisfies StopReason);
  runtime.on('wake', wake);
  runtime.on('cancel', onCancel);

  /** Sleeps up to `ms`, or until a job is queued on this instance or the workers stop. */
  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });

  /** Takes the next job this worker may run, or null. */
  async function claim(workerId: string): Promise<ExecutionRow | null> {
    const now = clock.now();
    const stale = new Date(now.getTime() - timing.staleMs);
    const runningOfUser = `(select count(*) from quality_executions r where r.user_id = e.user_id and r.status = 'RUNNING' and r.heartbeat_at >= ? and r.id <> e.id)`;
    return db.transaction(async (trx) => {
      const candidate = await trx<ExecutionRow>('quality_executions as e')
        .where('e.cancel_requested', false)
        .where((q) => q.where('e.status', 'QUEUED').orWhere((r) => r.where('e.status', 'RUNNING').where('e.heartbeat_at', '<', stale)))
        .where((q) => q.whereNull('e.key_holder').orWhere('e.key_holder', runtime.instanceId))
        .whereRaw(`${runningOfUser} < ?`, [stale, EXECUTE_LIMITS.runningPerUser])
        // Round-robin across users: the user served least recently goes first (one who was
        // never served, first of all), so one user's queue cannot hold everyone else back.
        .orderByRaw(`(select max(s.started_at) from quality_executions s where s.user_id = e.user_id) asc nulls first, e.created_at, e.id`)
        .forUpdate()
        .skipLocked()
        .first('e.*');
      if (!candidate) return null;
      // Two workers may hold two jobs of one user: the second to get here counts the first's claim.
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [executionLockKey(candidate.user_id)]);
      const [{ count }] = await trx('quality_executions')
        .where({ user_id: candidate.user_id, status: 'RUNNING' })
        .where('heartbeat_at', '>=', stale)
        .whereNot('id', candidate.id)
        .count<{ count: string }[]>({ count: '*' });
      if (Number(count) >= EXECUTE_LIMITS.runningPerUser) return null;
      const [claimed] = await trx<ExecutionRow>('quality_executions')
        .where({ id: candidate.id })
        .update({
          status: 'RUNNING',
          worker_id: workerId,
          heartbeat_at: now,
          started_at: candidate.started_at ?? now,
          deadline_at: candidate.deadline_at ?? new Date(now.getTime() + timing.maxDurationMs),
          updated_at: now,
        })
        .returning('*');
      return claimed ?? null;
    });
  }

  /** Ends jobs nobody can finish: cancelled ones whose worker died, and ones whose API key went with a stopped instance. */
  async function sweep(): Promise<void> {
    const now = clock.now();
    const stale = new Date(now.getTime() - timing.staleMs);
    await db('quality_executions')
      .where({ status: 'RUNNING', cancel_requested: true })
      .where('heartbeat_at', '<', stale)
      .update({ status: 'CANCELLED', finished_at: now, updated_at: now, worker_id: null, key_holder: null });
    // A key holder that has not beaten for five stale periods (or let a job wait two hours) is gone.
    await db('quality_executions')
      .whereNotNull('key_holder')
      .whereNot('key_holder', runtime.instanceId)
      .where((q) =>
        q
          .where((r) => r.where('status', 'RUNNING').where('heartbeat_at', '<', new Date(now.getTime() - 5 * timing.staleMs)))
          .orWhere((r) => r.where('status', 'QUEUED').where('created_at', '<', new Date(now.getTime() - 2 * 60 * 60_000))),
      )
      .update({ status: 'FAILED', error: messages.executionKeyLost, finished_at: now, updated_at: now, worker_id: null, key_holder: null });
  }

  async function finish(row: ExecutionRow, workerId: string, fields: Partial<ExecutionRow>): Promise<void> {
    const now = clock.now();
    await db('quality_executions')
      .where({ id: row.id, worker_id: workerId })
      .update({ ...fields, finished_at: now, updated_at: now, worker_id: null, heartbeat_at: null, key_holder: null });
    runtime.keys.delete(row.id);
  }

  /** One item: the target's answer, then the score (the judge's for judged tasks). Null when stopped meanwhile. */
  async function runItem(
    suite: ExecutableSuite,
    planned: PlannedItem,
    row: ExecutionRow,
    apiKey: string | undefined,
    signal: AbortSignal,
  ): Promise<ItemResult | null> {
    const { doc } = suite;
    const { task, item } = planned;
    const config = doc.runConfig;
    const prompt = renderPrompt(task, item);
    let answer;
    try {
      answer = await target.chat(row.request.baseUrl, {
        model: row.request.model,
        prompt,
        temperature: config.temperature,
        topP: config.topP,
        maxTokens: task.maxNewTokens ?? config.maxNewTokens,
        stop: task.stopSequences,
        seed: config.seed,
        apiKey,
        signal,
      });
    } catch (error) {
      if (error instanceof TargetRefused) throw error;
      if (signal.aborted) return null;
      return {
        response: null,
        extracted: null,
        score: 0,
        judgeScore: null,
        judgeRationale: null,
        judgeUnparsed: false,
        latencyMs: null,
        error: failureText(error),
      };
    }
    const base = { response: capResponse(answer.text), latencyMs: Math.round(answer.latencyMs), error: null };
    if (!isJudged(doc, task)) {
      const rule = itemScoringRule(doc, task)!;
      if (item.gold === undefined)
        return {
          ...base,
          extracted: null,
          score: 0,
          judgeScore: null,
          judgeRationale: null,
          judgeUnparsed: false,
          error: 'The item has no gold answer to compare with',
        };
      try {
        const scored = scoreResponse(rule, { gold: item.gold, choices: item.choices }, answer.text);
        return { ...base, extracted: scored.extracted, score: scored.score, judgeScore: null, judgeRationale: null, judgeUnparsed: false };
      } catch (error) {
        // The item itself cannot be scored (a multiple-choice item of a shard without choices).
        if (!(error instanceof RangeError)) throw error;
        return {
          ...base,
          extracted: null,
          score: 0,
          judgeScore: null,
          judgeRationale: null,
          judgeUnparsed: false,
          error: `The item cannot be scored: ${error.message}`,
        };
      }
    }
    try {
      const verdict = await target.chat(
        judge!.baseUrl,
        {
          model: judge!.model,
          prompt: judgePrompt({
            question: prompt,
            response: answer.text,
            rubric: item.rubric,
            referenceAnswer: item.referenceAnswer,
            gold: item.gold === undefined ? undefined : acceptedAnswers(item.gold),
          }),
          temperature: 0,
          maxTokens: 512,
          apiKey: judge!.apiKey,
          signal,
        },
        'JUDGE_BASE_URL',
      );
      const parsed = parseJudgeVerdict(verdict.text);
      if (!parsed)
        return { ...base, extracted: null, score: 0, judgeScore: null, judgeRationale: verdict.text.slice(0, 2000), judgeUnparsed: true };
      return {
        ...base,
        extracted: null,
        score: parsed.score,
        judgeScore: parsed.score,
        judgeRationale: parsed.rationale,
        judgeUnparsed: false,
      };
    } catch (error) {
      if (signal.aborted) return null;
      // The judge is the deployment's: its failures count against the judge, not the target.
      return {
        ...base,
        extracted: null,
        score: 0,
        judgeScore: null,
        judgeRationale: null,
        judgeUnparsed: true,
        error: `Judge: ${failureText(error)}`,
      };
    }
  }

  /** Stores an item's result and moves the counters; false when the job is no longer this worker's. */
  async function storeItem(
    row: ExecutionRow,
    workerId: string,
    planned: PlannedItem,
    prompt: string,
    result: ItemResult,
  ): Promise<boolean> {
    const now = clock.now();
    return db.transaction(async (trx) => {
      const inserted = await trx('quality_execution_items')
        .insert({
          execution_id: row.id,
          seq: planned.seq,
          task_key: planned.task.key,
          item_index: planned.itemIndex,
          prompt_hash: promptHash(prompt),
          prompt,
          response: result.response,
          extracted: result.extracted,
          score: result.score,
          judge_score: result.judgeScore,
          judge_rationale: result.judgeRationale,
          judge_unparsed: result.judgeUnparsed,
          latency_ms: result.latencyMs,
          error: result.error,
        })
        .onConflict(['execution_id', 'seq'])
        .ignore()
        .returning('seq');
      const updated = await trx('quality_executions')
        .where({ id: row.id, worker_id: workerId, status: 'RUNNING' })
        .update({
          done: trx.raw('done + ?', [inserted.length]),
          failed_items: trx.raw('failed_items + ?', [inserted.length && result.error && !result.judgeUnparsed ? 1 : 0]),
          heartbeat_at: now,
          updated_at: now,
        })
        .returning(['done', 'failed_items']);
      return updated.length > 0;
    });
  }

  /** Submits the finished execution as a PENDING quality run; the run's id, or why not. */
  async function autoSubmit(
    row: ExecutionRow,
    suite: ExecutableSuite,
    signal: AbortSignal,
  ): Promise<{ runId: string | null; submitError: string | null }> {
    const items = await db('quality_execution_items').where({ execution_id: row.id }).orderBy('seq');
    const request = row.request;
    const results: Record<string, { score: number; nSamples: number }> = {};
    for (const task of request.tasks) {
      const scores = items.filter((item) => item.task_key === task.key).map((item) => item.score as number);
      results[task.key] = { score: scores.reduce((sum, score) => sum + score, 0) / scores.length, nSamples: scores.length };
    }
    const artifacts: Artifact[] = items.map((item) => ({
      taskKey: item.task_key,
      itemIndex: item.item_index,
      promptHash: item.prompt_hash,
      prompt: item.prompt,
      response: item.response,
      score: item.score,
      judgeModel: request.judged ? judge?.model : undefined,
      judgeScore: item.judge_score,
      judgeRationale: item.judge_rationale,
      latencyMs: item.latency_ms,
      error: item.error,
    }));
    const submission = {
      suiteSlug: request.suiteSlug,
      hfId: request.hfId,
      hardware: request.hardware!,
      results,
      modelRevision: request.modelRevision,
      quantization: request.quantization ?? undefined,
      notes: request.notes ?? undefined,
      runConfig: { ...(suite.doc.runConfig as Record<string, unknown>), servedModel: request.model, executionId: row.id },
      artifacts,
    };
    const runs = deps.qualityRuns;
    const origin = { executionMode: 'SERVER_EXECUTE', judgeMode: request.judged ? 'SERVER_JUDGE' : 'NONE' } as const;
    // The user's quality window may be in use: wait for it once (the job keeps beating meanwhile).
    for (let attempt = 0; ; attempt += 1) {
      try {
        const { run } = await runs.submit(row.user_id, submission, undefined, origin);
        return { runId: run.id, submitError: null };
      } catch (error) {
        if (error instanceof RateLimited && attempt === 0) {
          const waitMs = Number(error.headers['Retry-After'] ?? 60) * 1000;
          const left = (row.deadline_at?.getTime() ?? Infinity) - clock.now().getTime();
          if (waitMs < left) {
            try {
              await sleep(waitMs, undefined, { signal });
              continue;
            } catch {
              // stopped while waiting: fall through to the error below
            }
          }
        }
        if (error instanceof HttpError) return { runId: null, submitError: error.message };
        throw error;
      }
    }
  }

  async function runJob(row: ExecutionRow, workerId: string): Promise<void> {
    const controller = new AbortController();
    const stop = (reason: StopReason) => controller.abort(reason);
    running.set(row.id, controller);
    const apiKey = row.key_holder ? runtime.keys.get(row.id) : undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    try {
      if (row.key_holder && apiKey === undefined)
        return await finish(row, workerId, { status: 'FAILED', error: messages.executionKeyLost });
      let suite: ExecutableSuite;
      try {
        suite = await executableSuite(db, row.request.suiteSlug, judge);
      } catch (error) {
        if (error instanceof HttpError) return await finish(row, workerId, { status: 'FAILED', error: messages.executionSuiteGone });
        throw error;
      }
      const deadline = row.deadline_at!.getTime();
      const checkDeadline = () => clock.now().getTime() > deadline && stop('deadline');
      heartbeat = setInterval(() => {
        void (async () => {
          const now = clock.now();
          const [beat] = await db('quality_executions')
            .where({ id: row.id, worker_id: workerId, status: 'RUNNING' })
            .update({ heartbeat_at: now })
            .returning('cancel_requested');
          if (!beat) stop('lost');
          else if (beat.cancel_requested) stop('cancel');
          else checkDeadline();
        })().catch((error) => logger.warn({ err: error, executionId: row.id }, 'execution heartbeat failed'));
      }, timing.heartbeatMs);

      const plan = planItems(suite.doc, suite.itemsOf, row.request.taskKeys ?? undefined);
      const scored = new Set<number>((await db('quality_execution_items').where({ execution_id: row.id }).pluck('seq')) as number[]);
      const remaining = plan.filter((item) => !scored.has(item.seq));
      const budget = Math.floor(row.total * EXECUTE_LIMITS.maxFailedItemShare);
      let failed = row.failed_items;
      if (failed > budget) stop('failures');
      let refusal: TargetRefused | null = null;
      let next = 0;
      const lane = async () => {
        while (!controller.signal.aborted && next < remaining.length) {
          if (checkDeadline()) break;
          const planned = remaining[next++]!;
          let result: ItemResult | null;
          try {
            result = await runItem(suite, planned, row, apiKey, controller.signal);
          } catch (error) {
            if (!(error instanceof TargetRefused)) throw error;
            refusal = error;
            stop('refused');
            break;
          }
          if (!result || controller.signal.aborted) break;
          if (!(await storeItem(row, workerId, planned, renderPrompt(planned.task, planned.item), result))) {
            stop('lost');
            break;
          }
          if (result.error && !result.judgeUnparsed && ++failed > budget) stop('failures');
        }
      };
      const concurrency = Math.min(suite.doc.runConfig.concurrency ?? 1, EXECUTE_LIMITS.maxConcurrency);
      await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
      checkDeadline();

      const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : null;
      if (reason === 'lost') return;
      if (reason === 'handback') return await handBack(row, workerId);
      if (reason === 'cancel') return await finish(row, workerId, { status: 'CANCELLED' });
      if (reason === 'deadline')
        return await finish(row, workerId, { status: 'FAILED', error: messages.executionDeadline(timing.maxDurationMs / 60_000) });
      if (reason === 'refused') return await finish(row, workerId, { status: 'FAILED', error: refusal!.reason });
      if (reason === 'failures')
        return await finish(row, workerId, { status: 'FAILED', error: messages.executionTooManyFailures(failed, row.total) });

      const judged = await db('quality_execution_items')
        .where({ execution_id: row.id })
        .select(db.raw('count(*) filter (where judge_unparsed)::int as unparsed'), db.raw('count(*)::int as items'));
      const unparsed = judged[0].unparsed as number;
      const judgedItems = plan.filter((item) => isJudged(suite.doc, item.task)).length;
      if (judgedItems > 0 && unparsed > judgedItems * MAX_UNPARSED_JUDGE_SHARE) {
        return await finish(row, workerId, { status: 'FAILED', error: messages.executionJudgeUnparsed(unparsed, judgedItems) });
      }
      const submitted = row.request.autoSubmit ? await autoSubmit(row, suite, controller.signal) : { runId: null, submitError: null };
      await finish(row, workerId, { status: 'SUCCEEDED', run_id: submitted.runId, submit_error: submitted.submitError });
      logger.info({ executionId: row.id, runId: submitted.runId }, 'execution succeeded');
    } catch (error) {
      logger.error({ err: error, executionId: row.id }, 'execution failed unexpectedly');
      await finish(row, workerId, { status: 'FAILED', error: 'The execution stopped on an internal error' }).catch(() => undefined);
    } finally {
      clearInterval(heartbeat);
      running.delete(row.id);
    }
  }

  /** Gives a job back to the queue as this instance stops (one whose key is in this memory cannot be resumed). */
  async function handBack(row: ExecutionRow, workerId: string): Promise<void> {
    if (row.key_holder) return finish(row, workerId, { status: 'FAILED', error: messages.executionKeyLost });
    await db('quality_executions')
      .where({ id: row.id, worker_id: workerId })
      .update({ status: 'QUEUED', worker_id: null, heartbeat_at: null, updated_at: clock.now() });
  }

  async function loop(workerId: string): Promise<void> {
    while (!stopping) {
      let job: ExecutionRow | null = null;
      try {
        await sweep();
        job = await claim(workerId);
      } catch (error) {
        logger.warn({ err: error }, 'execution worker could not claim a job');
      }
      if (job && !stopping) {
        await runJob(job, workerId);
        continue;
      }
      if (job) await handBack(job, workerId).catch(() => undefined);
      if (!stopping) await idle(timing.pollMs);
    }
  }

  return {
    /** Starts `count` loops (EXECUTE_WORKERS). */
    start(count: number): void {
      for (let n = 0; n < count; n += 1) loops.push(loop(`${runtime.instanceId}:${n}`));
    },
    /** Stops claiming, stops running jobs and hands them back; resolves when every loop has ended. */
    async stop(): Promise<void> {
      stopping = true;
      for (const controller of running.values()) controller.abort('handback' satisfies StopReason);
      wake();
      await Promise.all(loops);
      runtime.off('wake', wake);
      runtime.off('cancel', onCancel);
    },
    /** For tests: one claim as a given worker. */
    claim,
  };
}
