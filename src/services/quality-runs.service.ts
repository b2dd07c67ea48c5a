import { z } from 'zod';
import type { Db } from '../db/knex.ts';
import { HttpError, NotFound, ValidationFailed } from '../lib/errors.ts';
import {
  aggregateScores,
  scoreResponse,
  standardError,
  standardErrorOfScores,
  type ItemScoringRule,
  type TextScoringMethod,
} from '../lib/quality-scoring.ts';
import { normaliseHardware } from '../runs/submission/normalise.ts';
import { messages } from '../messages.ts';
import type { Artifact, QualityItem, QualityRunSubmission, SuiteDoc, SuiteTask } from '../schemas/quality.schema.ts';
import type { ServiceDeps, Transactional } from './deps.ts';
import type { IdempotencyService } from './idempotency.service.ts';
import { upsertHardwareProfile } from './hardware.service.ts';
import { resolvedModelSummary, toModelSummary, type ModelRow, type ModelsService, type ResolvedModel } from './models.service.ts';
import { suitesWithCreator, taskItems, type SuiteListRow } from './quality-suites.service.ts';
import { QUALITY_REACTION_KIND } from './reactions.service.ts';
import { submitInWindow, type SubmissionWindowService, type WindowState } from './submission-window.service.ts';

/**
 * Quality runs: dry-run and submit (PENDING until an admin approves; the aggregate is the
 * server's, from its own task scores), the best approved run per suite for a model, one
 * run and its per-item traces. A run and its artifacts are written in one transaction.
 */

const IDEMPOTENCY_SCOPE = 'quality';

/** How the server checked a task from the uploaded responses. */
export interface TaskRescore {
  /** Items re-scored (those with a response in the artifacts). */
  items: number;
  /** Items of the task. */
  ofItems: number;
  /** The server's mean over the re-scored items. */
  serverScore: number;
  /** |server - client| over the same items (the client's item scores, else its task score). */
  disagreement: number;
}

export interface TaskResult {
  key: string;
  displayName: string | null;
  weight: number;
  /** The task score the run counts (the server's when it re-scored every item). */
  score: number;
  /** What the client reported. */
  clientScore: number;
  nShots: number | null;
  /** Where `nShots` comes from: the run stated it, the suite's default filled it (the run did not say), or neither. */
  nShotsFrom: 'run' | 'suite' | null;
  nSamples: number | null;
  stdError: number | null;
  rescored: TaskRescore | null;
}

/** What scoring a submission gives: the task results and the aggregate (0-100). */
export interface RunScores {
  tasks: TaskResult[];
  score: number;
  rescored: boolean;
  maxDisagreement: number | null;
}

/** The suite a run names, as validation reads it. */
export interface RunSuite {
  row: SuiteListRow;
  doc: SuiteDoc;
}

type FieldErrors = Record<string, string[]>;
const addError = (errors: FieldErrors, path: string, message: string) => (errors[path] ??= []).push(message);
const round = (value: number, places = 4) => Math.round(value * 10 ** places) / 10 ** places;
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Methods the server can check from text responses; pass@k and judges it cannot. */
const RESCORABLE: ReadonlySet<string> = new Set<TextScoringMethod>(['exact_match', 'f1']);

/** How the server scores a task's items from text responses, or null when it cannot (pass@k, judges). */
export function itemScoringRule(doc: SuiteDoc, task: SuiteTask): ItemScoringRule | null {
  if (!RESCORABLE.has(doc.scoringMethod) || task.taskType === 'judge') return null;
  return {
    method: doc.scoringMethod as TextScoringMethod,
    taskType: task.taskType,
    answerExtraction: task.answerExtraction,
    answerRegex: task.answerRegex,
    scoring: task.scoring,
  };
}

/**
 * Re-scores the tasks it can from the responses in the artifacts (the first trace per item
 * counts) and computes every task's result and the aggregate. Pure, given the items.
 */
export function scoreRun(
  doc: SuiteDoc,
  submission: Pick<QualityRunSubmission, 'results' | 'artifacts'>,
  itemsOf: ReadonlyMap<string, readonly QualityItem[]>,
): RunScores {
  const tasks = doc.tasks.map((task): TaskResult => {
    const submitted = submission.results[task.key]!;
    const result: TaskResult = {
      key: task.key,
      displayName: task.displayName ?? null,
      weight: task.weight,
      score: submitted.score,
      clientScore: submitted.score,
      nShots: submitted.nShots ?? task.nShots ?? null,
      nShotsFrom: submitted.nShots != null ? 'run' : task.nShots != null ? 'suite' : null,
      nSamples: submitted.nSamples ?? null,
      stdError: standardError(submitted.score, submitted.nSamples),
      rescored: null,
    };
    const items = itemsOf.get(task.key);
    const rule = itemScoringRule(doc, task);
    if (!items || !rule) return result;

    const server = new Map<number, number>();
    const client = new Map<number, number>();
    for (const artifact of submission.artifacts ?? []) {
      if (artifact.taskKey !== task.key || artifact.itemIndex === undefined || server.has(artifact.itemIndex)) continue;
      const item = items[artifact.itemIndex];
      if (!item || item.gold === undefined || typeof artifact.response !== 'string') continue;
      server.set(artifact.itemIndex, scoreResponse(rule, { gold: item.gold, choices: item.choices }, artifact.response).score);
      if (typeof artifact.score === 'number') client.set(artifact.itemIndex, artifact.score);
    }
    if (server.size === 0) return result;

    const serverScores = [...server.values()];
    const serverScore = mean(serverScores);
    const everyItem = server.size === items.length;
    // Against the client's own scores of the same items where it sent them all, else its task score.
    const clientView = client.size === server.size ? mean([...client.values()]) : submitted.score;
    result.rescored = {
      items: server.size,
      ofItems: items.length,
      serverScore: round(serverScore),
      disagreement: round(Math.abs(serverScore - clientView)),
    };
    if (everyItem) {
      // Every item was answered: the server's score is the task's.
      result.score = round(serverScore);
      result.nSamples = items.length;
      result.stdError = standardErrorOfScores(serverScores);
    }
    return result;
  });
  const aggregate = aggregateScores(
    tasks.map((task) => ({ score: task.score, weight: task.weight })),
    doc.aggregation,
  );
  const checked = tasks.flatMap((task) => (task.rescored ? [task.rescored.disagreement] : []));
  return {
    tasks,
    score: round(aggregate * 100),
    rescored: checked.length > 0,
    maxDisagreement: checked.length ? Math.max(...checked) : null,
  };
}

export interface QualityRunRow {
  id: string;
  suite_id: string;
  user_id: string;
  model_id: string;
  hardware_id: string;
  hw_class: string;
  model_revision: string;
  quantization: string | null;
  quant_format: string | null;
  runner_version: string | null;
  run_config: Record<string, unknown> | null;
  notes: string | null;
  execution_mode: string;
  judge_mode: string;
  score: number;
  task_results: TaskResult[];
  rescored: boolean;
  max_disagreement: number | null;
  artifact_count: number;
  reaction_counts: Record<string, number>;
  status: 'PENDING' | 'APPROVED' | 'REJECTED';
  admin_notes: string | null;
  reviewed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type QualityRunListRow = QualityRunRow & {
  suite_slug: string;
  suite_name: string;
  suite_runner: string;
  suite_category: string;
  suite_official: boolean;
  suite_aggregation: SuiteDoc['aggregation'];
  suite_scoring_method: SuiteDoc['scoringMethod'];
  suite_dataset_ids: string[];
  hardware_details: Record<string, unknown>;
  username: string;
  user_display_name: string;
  my_emoji?: string | null;
} & { [K in keyof ModelRow as `model_${K & string}`]: ModelRow[K] };

/** Runs with what their answers embed: suite, model, hardware and submitter. */
export function qualityRunsWithRelations(db: Db, viewerId: string | null = null) {
  const q = db('quality_runs as r')
    .join('quality_suites as s', 's.id', 'r.suite_id')
    .join('models as m', 'm.id', 'r.model_id')
    .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
    .join('users as u', 'u.id', 'r.user_id')
    .select(
      'r.*',
      's.slug as suite_slug',
      's.name as suite_name',
      's.runner as suite_runner',
      's.category as suite_category',
      's.official as suite_official',
      // Only the document's scoring facts: a run list must not read whole suite documents.
      db.raw("s.suite_doc->>'aggregation' as suite_aggregation"),
      db.raw("s.suite_doc->>'scoringMethod' as suite_scoring_method"),
      's.dataset_ids as suite_dataset_ids',
      'h.details as hardware_details',
      'u.username',
      'u.display_name as user_display_name',
      ...[
        'id',
        'hf_id',
        'display_name',
        'family',
        'params',
        'params_approximate',
        'active_params',
        'is_moe',
        'base_model_id',
        'base_hf_id',
        'base_relation',
        'hub_sha',
        'gated',
      ].map((column) => `m.${column} as model_${column}`),
    );
  if (viewerId)
    q.select(
      db.raw('(select x.emoji from run_reactions x where x.run_kind = ? and x.run_id = r.id and x.user_id = ?) as my_emoji', [
        QUALITY_REACTION_KIND,
        viewerId,
      ]),
    );
  return q as unknown as Promise<QualityRunListRow[]> & ReturnType<Db>;
}

function modelOf(row: QualityRunListRow): ModelRow {
  // `model_id` is both the run's column and the model's id (the same value): take it once.
  const model: Record<string, unknown> = { id: row.model_id };
  for (const [column, value] of Object.entries(row))
    if (column.startsWith('model_') && column !== 'model_id' && column !== 'model_revision') model[column.slice(6)] = value;
  return model as unknown as ModelRow;
}

/** A quality run as the API answers it. */
export function toQualityRun(row: QualityRunListRow) {
  const model = toModelSummary(modelOf(row));
  return {
    id: row.id,
    status: row.status,
    score: row.score,
    suiteId: row.suite_id,
    suiteSlug: row.suite_slug,
    suite: {
      id: row.suite_id,
      slug: row.suite_slug,
      name: row.suite_name,
      runner: row.suite_runner,
      category: row.suite_category,
      official: row.suite_official,
      aggregation: row.suite_aggregation,
      scoringMethod: row.suite_scoring_method,
    },
    modelId: row.model_id,
    hfId: model.hfId,
    model,
    modelRevision: row.model_revision,
    quantization: row.quantization,
    quantFormat: row.quant_format,
    runnerVersion: row.runner_version,
    runConfig: row.run_config,
    notes: row.notes,
    executionMode: row.execution_mode,
    judgeMode: row.judge_mode,
    hardwareId: row.hardware_id,
    hardware: row.hardware_details,
    // Runs stored before `nShotsFrom` existed cannot say where their nShots came from.
    tasks: (row.task_results as TaskResult[]).map((task) => ({ ...task, nShotsFrom: task.nShotsFrom ?? null })),
    rescored: row.rescored,
    maxDisagreement: row.max_disagreement,
    artifactCount: row.artifact_count,
    userId: row.user_id,
    user: { username: row.username, displayName: row.user_display_name },
    reactionCounts: row.reaction_counts,
    myEmoji: row.my_emoji ?? null,
    adminNotes: row.admin_notes,
    reviewedAt: row.reviewed_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
export type QualityRun = ReturnType<typeof toQualityRun>;

/** What a validated run carries into the write: its suite, the server's scores and the model. */
export interface ValidatedRun {
  suite: RunSuite;
  scores: RunScores;
  model: ResolvedModel;
}

/** How a run came to be, when the server made it: set on runs of server-side executions. */
export interface ServerOrigin {
  executionMode: 'SERVER_EXECUTE';
  /** `SERVER_JUDGE` when the deployment's judge scored items. */
  judgeMode: 'NONE' | 'SERVER_JUDGE';
}

/** A run to store: a client's submission, or one the server built from an execution. */
export type StorableRun = Omit<QualityRunSubmission, 'executionMode' | 'judgeMode'> &
  Partial<Pick<QualityRunSubmission, 'executionMode' | 'judgeMode'>>;

/**
 * Writes validated quality runs; build it on the writing transaction. Submissions and the
 * demo seeder both store runs through it.
 */
export function createQualityRunWriter({ db: trx }: Pick<ServiceDeps, 'db'>) {
  return {
    /** The run of a catalogued model (with its hardware profile) and its artifacts, in `status`. */
    async store(
      userId: string,
      submission: StorableRun,
      { suite, scores, modelRow }: { suite: RunSuite; scores: RunScores; modelRow: ModelRow },
      now: Date,
      status: 'PENDING' | 'APPROVED' = 'PENDING',
      origin?: ServerOrigin,
    ): Promise<string> {
      const hardware = normaliseHardware(submission.hardware);
      const hardwareId = await upsertHardwareProfile(trx, hardware);
      const artifacts = submission.artifacts ?? [];
      const [{ id }] = await trx('quality_runs')
        .insert({
          suite_id: suite.row.id,
          user_id: userId,
          model_id: modelRow.id,
          hardware_id: hardwareId,
          hw_class: hardware.hwClass,
          model_revision: submission.modelRevision,
          quantization: submission.quantization ?? null,
          quant_format: submission.quantFormat ?? null,
          runner_version: submission.runnerVersion ?? null,
          run_config: submission.runConfig ? JSON.stringify(submission.runConfig) : null,
          notes: submission.notes || null,
          execution_mode:
            origin?.executionMode ??
            submission.executionMode ??
            (suite.row.runner === 'LM_EVAL_HARNESS' ? 'LM_EVAL_LOCAL' : 'CUSTOM_LOCAL'),
          judge_mode: origin?.judgeMode ?? submission.judgeMode ?? 'NONE',
          score: scores.score,
          task_results: JSON.stringify(scores.tasks),
          rescored: scores.rescored,
          max_disagreement: scores.maxDisagreement,
          artifact_count: artifacts.length,
          status,
          reviewed_at: status === 'APPROVED' ? now : null,
          created_at: now,
          updated_at: now,
        })
        .returning('id');
      if (status === 'APPROVED') await trx('quality_suites').where({ id: suite.row.id }).increment('run_count', 1);
      if (artifacts.length > 0) {
        const rows = artifacts.map((artifact, seq) => ({
          run_id: id,
          seq,
          task_key: artifact.taskKey,
          item_index: artifact.itemIndex ?? null,
          prompt_hash: artifact.promptHash ?? null,
          prompt: artifact.prompt ?? null,
          question: artifact.question ?? null,
          response: artifact.response ?? null,
          score: artifact.score ?? null,
          judge_model: artifact.judgeModel ?? null,
          judge_score: artifact.judgeScore ?? null,
          judge_rationale: artifact.judgeRationale ?? null,
          latency_ms: artifact.latencyMs ?? null,
          error: artifact.error ?? null,
        }));
        await trx.batchInsert('quality_run_artifacts', rows, 500);
      }
      return id;
    },
  };
}

export interface QualitySubmissionResult {
  run: QualityRun;
  rateLimit: { remaining: number; resetAt: Date };
  replayed: boolean;
}

export function createQualityRunsService(
  deps: ServiceDeps & Transactional & { idempotency: IdempotencyService; windows: SubmissionWindowService; models: ModelsService },
) {
  const { db, profile, models, windows, withTransaction } = deps;
  const rule = profile.quality?.submissionLimit;

  /** The suite by slug: unknown 404, not approved 422. */
  async function approvedSuite(slug: string): Promise<RunSuite> {
    const row = await suitesWithCreator(db).where('s.slug', slug).whereNot('s.status', 'WITHDRAWN').first();
    if (!row) throw new NotFound(messages.qualitySuiteNotFound(slug));
    if (row.status !== 'APPROVED') throw new HttpError(422, messages.qualitySuiteNotApproved(slug, row.status));
    return { row, doc: row.suite_doc };
  }

  /** Every task key covered, nothing else; artifacts name tasks and items that exist. */
  function checkCoverage(suite: RunSuite, submission: StorableRun, itemsOf: ReadonlyMap<string, readonly QualityItem[]>): void {
    const errors: FieldErrors = {};
    const keys = new Set(suite.row.task_keys);
    for (const key of Object.keys(submission.results))
      if (!keys.has(key)) addError(errors, `results.${key}`, messages.qualityUnknownTaskKey(suite.row.slug));
    for (const key of suite.row.task_keys)
      if (!(key in submission.results)) addError(errors, `results.${key}`, messages.qualityMissingTaskKey);
    (submission.artifacts ?? []).forEach((artifact: Artifact, index) => {
      if (!keys.has(artifact.taskKey)) return addError(errors, `artifacts.${index}.taskKey`, messages.qualityArtifactUnknownTask);
      const items = itemsOf.get(artifact.taskKey);
      if (items && artifact.itemIndex !== undefined && artifact.itemIndex >= items.length)
        addError(errors, `artifacts.${index}.itemIndex`, messages.qualityArtifactItemOutOfRange(items.length));
    });
    if (Object.keys(errors).length > 0) throw new ValidationFailed({ fieldErrors: errors, formErrors: [] });
  }

  /** Items of the tasks the artifacts point into (inline, or read from their shards). */
  async function itemsForArtifacts(doc: SuiteDoc, artifacts: readonly Artifact[]): Promise<Map<string, readonly QualityItem[]>> {
    const wanted = new Set(artifacts.map((artifact) => artifact.taskKey));
    const itemsOf = new Map<string, readonly QualityItem[]>();
    for (const task of doc.tasks as SuiteTask[]) {
      if (!wanted.has(task.key)) continue;
      const items = await taskItems(db, task);
      if (items) itemsOf.set(task.key, items);
    }
    return itemsOf;
  }

  /** Every check of a real submission, the hub included, and the scores; writes nothing. */
  async function validate(submission: StorableRun): Promise<ValidatedRun> {
    const suite = await approvedSuite(submission.suiteSlug);
    const itemsOf = await itemsForArtifacts(suite.doc, submission.artifacts ?? []);
    checkCoverage(suite, submission, itemsOf);
    const scores = scoreRun(suite.doc, submission, itemsOf);
    const model = await models.resolve(submission.hfId);
    return { suite, scores, model };
  }

  async function findRun(id: string, viewerId: string | null, visible: (row: QualityRunListRow) => boolean): Promise<QualityRun> {
    const row = await qualityRunsWithRelations(db, viewerId).where('r.id', id).first();
    if (!row || !visible(row)) throw new NotFound(messages.qualityRunNotFound);
    return toQualityRun(row);
  }

  /** Approved runs are public; the submitter also sees its own pending and rejected ones. */
  const visibleTo = (viewerId: string | null) => (row: QualityRunListRow) => row.status === 'APPROVED' || row.user_id === viewerId;

  return {
    /** Validation, coverage and the aggregate the run would get; no write, no rate-limit use. */
    async dryRun(submission: QualityRunSubmission) {
      const { suite, scores, model } = await validate(submission);
      const summary = resolvedModelSummary(model);
      return {
        valid: true as const,
        suite: {
          id: suite.row.id,
          slug: suite.row.slug,
          name: suite.row.name,
          aggregation: suite.doc.aggregation,
          scoringMethod: suite.doc.scoringMethod,
        },
        model: summary,
        score: scores.score,
        tasks: scores.tasks,
        rescored: scores.rescored,
        maxDisagreement: scores.maxDisagreement,
      };
    },

    /**
     * Stores a PENDING run: validated, scored and checked on the hub first, then in one
     * transaction the user's quality window is claimed, the model catalogued if new, and the
     * run and its artifacts written. An Idempotency-Key retry gets the first answer again.
     * `origin` marks a run the server built from its own execution.
     */
    async submit(
      userId: string,
      submission: StorableRun,
      idempotency?: { key: string; requestHash: string },
      origin?: ServerOrigin,
    ): Promise<QualitySubmissionResult> {
      if (!rule) throw new NotFound(messages.notFound);
      const {
        answer: run,
        replayed,
        rateLimit,
      } = await submitInWindow(deps, {
        userId,
        rule,
        scope: IDEMPOTENCY_SCOPE,
        idempotency,
        prepare: () => validate(submission),
        store: async (trx, validated, now) => {
          const inTransaction = withTransaction(trx);
          const modelRow = await inTransaction.models.catalogueIfNew(validated.model);
          const id = await inTransaction.qualityRunWriter.store(userId, submission, { ...validated, modelRow }, now, 'PENDING', origin);
          return toQualityRun((await qualityRunsWithRelations(trx).where('r.id', id).first())!);
        },
      });
      return { run, replayed, rateLimit };
    },

    windowState(userId: string): Promise<WindowState> {
      if (!rule) return Promise.resolve({ canSubmit: false, nextAt: null });
      return windows.state(userId, rule);
    },

    /** The user's own runs in any state, newest first (the owner's submissions page). */
    async listOwn(userId: string, limit = 100): Promise<QualityRun[]> {
      const rows = await qualityRunsWithRelations(db, userId)
        .where('r.user_id', userId)
        .orderBy([
          { column: 'r.created_at', order: 'desc' },
          { column: 'r.id', order: 'desc' },
        ])
        .limit(limit);
      return rows.map(toQualityRun);
    },

    /** One run: approved ones for everybody, the submitter's own in any state. */
    get(id: string, viewerId: string | null = null): Promise<QualityRun> {
      return findRun(id, viewerId, visibleTo(viewerId));
    },

    /** A page of a visible run's per-item traces, in upload order. */
    async artifacts(id: string, page: { limit: number; offset: number }, viewerId: string | null = null) {
      const run = await findRun(id, null, visibleTo(viewerId));
      const rows = await db('quality_run_artifacts').where({ run_id: id }).orderBy('seq').limit(page.limit).offset(page.offset);
      return {
        artifacts: rows.map((row) => ({
          seq: row.seq,
          taskKey: row.task_key,
          itemIndex: row.item_index,
          promptHash: row.prompt_hash,
          prompt: row.prompt,
          question: row.question,
          response: row.response,
          score: row.score,
          judgeModel: row.judge_model,
          judgeScore: row.judge_score,
          judgeRationale: row.judge_rationale,
          latencyMs: row.latency_ms,
          error: row.error,
        })),
        total: run.artifactCount,
        limit: page.limit,
        offset: page.offset,
      };
    },

    /**
     * The best approved run per suite for a model (id or hfId): highest score, then
     * earliest. With `perDataset`, also per shard dataset its suites' tasks use, ranked by
     * the run's mean score over those tasks.
     */
    async bestForModel(modelIdOrHfId: string, viewerId: string | null = null) {
      const model = z.uuid().safeParse(modelIdOrHfId).success
        ? await db('models').where({ id: modelIdOrHfId }).first('id')
        : await models.findByHfId(modelIdOrHfId);
      if (!model) return { runs: [] as QualityRun[], datasets: [] as DatasetBest[] };
      const rows = await approvedRunsOfModel(db, model.id, viewerId);
      return { runs: bestPerSuite(rows).map(toQualityRun), datasets: await bestPerDataset(db, rows) };
    },
  };
}

/** Best score first, then the earliest: how quality runs rank. */
export const BY_SCORE = [
  { column: 'r.score', order: 'desc' },
  { column: 'r.created_at', order: 'asc' },
  { column: 'r.id', order: 'asc' },
] as const;

/** A model's approved runs, best first. */
export function approvedRunsOfModel(db: Db, modelId: string, viewerId: string | null = null): Promise<QualityRunListRow[]> {
  return qualityRunsWithRelations(db, viewerId)
    .where({ 'r.model_id': modelId, 'r.status': 'APPROVED' })
    .orderBy([...BY_SCORE]);
}

/** Of runs ranked best first: the first of each suite, by suite slug. */
export function bestPerSuite(rows: readonly QualityRunListRow[]): QualityRunListRow[] {
  const best = new Map<string, QualityRunListRow>();
  for (const row of rows) if (!best.has(row.suite_id)) best.set(row.suite_id, row);
  return [...best.values()].sort((a, b) => a.suite_slug.localeCompare(b.suite_slug));
}

export interface DatasetBest {
  dataset: { id: string; slug: string; name: string };
  score: number;
  taskKeys: string[];
  run: QualityRun;
}

/** Per shard dataset: the run (of those given, best first) with the best mean over the tasks using it. */
async function bestPerDataset(db: Db, rows: readonly QualityRunListRow[]): Promise<DatasetBest[]> {
  const suiteIds = [...new Set(rows.filter((row) => row.suite_dataset_ids.length > 0).map((row) => row.suite_id))];
  if (suiteIds.length === 0) return [];
  // Which task keys of each suite read which dataset, from the few suites that use any.
  const tasksByDataset = new Map<string, Map<string, string[]>>();
  for (const suite of await db('quality_suites').whereIn('id', suiteIds).select('id', 'suite_doc')) {
    const bySlug = new Map<string, string[]>();
    for (const task of (suite.suite_doc as SuiteDoc).tasks as SuiteTask[]) {
      if (task.dataset?.source === 'shard')
        bySlug.set(task.dataset.datasetSlug, [...(bySlug.get(task.dataset.datasetSlug) ?? []), task.key]);
    }
    tasksByDataset.set(suite.id, bySlug);
  }
  const best = new Map<string, { score: number; taskKeys: string[]; row: QualityRunListRow }>();
  for (const row of rows) {
    for (const [slug, keys] of tasksByDataset.get(row.suite_id) ?? []) {
      const score = round(mean(row.task_results.filter((task) => keys.includes(task.key)).map((task) => task.score)) * 100);
      const current = best.get(slug);
      if (!current || score > current.score) best.set(slug, { score, taskKeys: keys, row });
    }
  }
  if (best.size === 0) return [];
  const datasets = await db('quality_datasets')
    .whereIn('slug', [...best.keys()])
    .whereNot('status', 'WITHDRAWN')
    .select('id', 'slug', 'name');
  return datasets
    .map((dataset) => {
      const entry = best.get(dataset.slug)!;
      return { dataset, score: entry.score, taskKeys: entry.taskKeys, run: toQualityRun(entry.row) };
    })
    .sort((a, b) => a.dataset.slug.localeCompare(b.dataset.slug));
}

export type QualityRunsService = ReturnType<typeof createQualityRunsService>;
export type QualityRunWriter = ReturnType<typeof createQualityRunWriter>;
