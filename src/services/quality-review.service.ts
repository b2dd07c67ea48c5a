import type { Knex } from 'knex';
import type { Db } from '../db/knex.ts';
import { Conflict, NotFound } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import type { QualityItem, SuiteTask } from '../schemas/quality.schema.ts';
import type { AdminActor, AuditAction, AuditTargetKind } from './audit.service.ts';
import type { ServiceDeps, Transactional } from './deps.ts';
import { qualityRunsWithRelations, toQualityRun, type QualityRun, type QualityRunListRow } from './quality-runs.service.ts';
import {
  datasetsWithCreator,
  suitesWithCreator,
  toDatasetSummary,
  toSuiteSummary,
  type DatasetRow,
  type ReviewStatus,
  type SuiteListRow,
} from './quality-suites.service.ts';

/**
 * Admin review of quality suites, sharded datasets and quality runs (/admin/quality): the
 * queues with everything needed to judge each item, and the decisions. A decision is one
 * transaction: the row locked, the transition checked, the review columns set, the suite's
 * run count kept, and the audit entry written.
 *
 * Approve from PENDING or REJECTED; reject (notes required) from PENDING or APPROVED; a
 * withdrawn suite or dataset is not found. Only an approved suite can be made official.
 */

export type ReviewKind = 'suite' | 'dataset' | 'run';
export type ReviewDecision = 'approve' | 'reject';

/** How many items each queue shows (oldest first); the page says how many more wait. */
export const REVIEW_QUEUE_SIZE = 50;
/** Approved suites listed under the queues (official first). */
export const APPROVED_SUITES_LISTED = 100;
/** Items of a task or dataset shown on its card. */
export const SAMPLE_ITEMS = 3;
/** Per-item traces shown on a run's card. */
export const SAMPLE_ARTIFACTS = 5;
/** A re-score disagreement above this (a fraction) is highlighted for the reviewer. */
export const DISAGREEMENT_FLAG = 0.05;
/** Long texts (prompts, inputs, responses) are cut to this many characters on the cards. */
const CLIP = 1500;

const ALLOWED_FROM: Readonly<Record<ReviewDecision, readonly string[]>> = {
  approve: ['PENDING', 'REJECTED'],
  reject: ['PENDING', 'APPROVED'],
};

const REVIEWED: Readonly<Record<ReviewDecision, { status: ReviewStatus; done: string }>> = {
  approve: { status: 'APPROVED', done: 'approved' },
  reject: { status: 'REJECTED', done: 'rejected' },
};

/** Each kind's table, audit names and not-found text. */
const KINDS = {
  suite: {
    table: 'quality_suites',
    targetKind: 'quality_suite',
    actions: { approve: 'suite.approve', reject: 'suite.reject' },
    notFound: messages.qualitySubmissionNotFound,
  },
  dataset: {
    table: 'quality_datasets',
    targetKind: 'quality_dataset',
    actions: { approve: 'dataset.approve', reject: 'dataset.reject' },
    notFound: messages.qualitySubmissionNotFound,
  },
  run: {
    table: 'quality_runs',
    targetKind: 'quality_run',
    actions: { approve: 'quality_run.approve', reject: 'quality_run.reject' },
    notFound: messages.qualityRunNotFound,
  },
} as const satisfies Record<
  ReviewKind,
  { table: string; targetKind: AuditTargetKind; actions: Record<ReviewDecision, AuditAction>; notFound: string }
>;

/** The review facts every card shows. */
export interface ReviewState {
  status: ReviewStatus;
  adminNotes: string | null;
  reviewedAt: Date | null;
  /** Username of the admin who decided last (null when never reviewed or the account is gone). */
  reviewedBy: string | null;
}

/** An item of a task or dataset as a card shows it: texts clipped, gold as text. */
export interface SampleItem {
  input: string;
  choices: string[] | null;
  gold: string | null;
  rubric: string | null;
}

export interface TaskFacts {
  key: string;
  displayName: string | null;
  taskType: string;
  weight: number;
  promptTemplate: string | null;
  answerExtraction: string;
  answerRegex: string | null;
  /** Where the items come from: `inline`, `shard: <slug>`, a URL, a hub path; null for lm-eval task names. */
  source: string | null;
  /** Null when the server does not hold the items (url, huggingface, lm-eval). */
  itemCount: number | null;
  sample: SampleItem[];
}

export interface DatasetReference {
  slug: string;
  /** MISSING when no live dataset has the slug any more. */
  status: ReviewStatus | 'MISSING';
}

export type SuiteCard = ReturnType<typeof toSuiteSummary> & {
  review: ReviewState;
  judge: unknown;
  tasks: TaskFacts[];
  datasets: DatasetReference[];
  /** Datasets that must be approved before the suite can be. */
  datasetsPending: string[];
};

export type DatasetCard = ReturnType<typeof toDatasetSummary> & {
  review: ReviewState;
  shards: { index: number; name: string | null; itemCount: number }[];
  sample: SampleItem[];
  /** Live suites whose tasks read this dataset. */
  usedBy: { slug: string; status: ReviewStatus }[];
};

export interface ArtifactSample {
  seq: number;
  taskKey: string;
  itemIndex: number | null;
  question: string | null;
  prompt: string | null;
  response: string | null;
  score: number | null;
  error: string | null;
}

export type StatusCounts = Record<'APPROVED' | 'REJECTED' | 'PENDING', number>;

export interface RunCard {
  run: QualityRun;
  review: ReviewState;
  /** max_disagreement above DISAGREEMENT_FLAG. */
  disagreementFlagged: boolean;
  /** Task keys whose own disagreement is above DISAGREEMENT_FLAG. */
  flaggedTasks: string[];
  artifacts: ArtifactSample[];
  /** The submitter's record: their quality runs and speed-test runs by status. */
  history: { qualityRuns: StatusCounts; speedTests: StatusCounts };
}

const clip = (text: string | null | undefined, max = CLIP): string | null =>
  text == null ? null : text.length > max ? `${text.slice(0, max)}…` : text;

function goldText(gold: QualityItem['gold']): string | null {
  if (gold === undefined) return null;
  return (Array.isArray(gold) ? gold : [gold]).map(String).join(' | ');
}

function sampleItem(item: QualityItem): SampleItem {
  return {
    input: clip(item.input)!,
    choices: item.choices?.map((choice) => clip(choice, 300)!) ?? null,
    gold: clip(goldText(item.gold), 300),
    rubric: clip(item.rubric ?? null),
  };
}

function sourceOf(task: SuiteTask): string | null {
  const dataset = task.dataset;
  if (!dataset) return null;
  if (dataset.source === 'inline') return 'inline';
  if (dataset.source === 'shard') return `shard dataset ${dataset.datasetSlug}`;
  if (dataset.source === 'url') return dataset.url;
  return `huggingface ${dataset.hfPath}${dataset.hfName ? ` (${dataset.hfName})` : ''}${dataset.split ? `, split ${dataset.split}` : ''}`;
}

const shardSlugs = (tasks: readonly SuiteTask[]) => [
  ...new Set(tasks.flatMap((task) => (task.dataset?.source === 'shard' ? [task.dataset.datasetSlug] : []))),
];

/** The first items of a dataset's first shard, read without loading the shard whole. */
const FIRST_ITEMS = `jsonb_path_query_array(sh.items, '$[0 to ${SAMPLE_ITEMS - 1}]')`;

const reviewerColumn = (db: Db, alias: string) =>
  db.raw(`(select ru.username from users ru where ru.id = ${alias}.reviewed_by) as reviewer`);

function reviewOf(row: {
  status: ReviewStatus;
  admin_notes: string | null;
  reviewed_at: Date | null;
  reviewer: string | null;
}): ReviewState {
  return { status: row.status, adminNotes: row.admin_notes, reviewedAt: row.reviewed_at, reviewedBy: row.reviewer };
}

type WithReviewer<T> = T & { reviewer: string | null };

/** A row locked for a decision: what the transition checks and the audit label need. */
interface LockedRow {
  id: string;
  status: ReviewStatus;
  /** How the audit log names it: `slug by @owner`, a run also by suite and model. */
  label: string;
  /** Suites: whether official, and the tasks (their shard datasets must be approved first). */
  official?: boolean;
  tasks?: readonly SuiteTask[];
  /** Runs: the suite whose run_count counts them. */
  suiteId?: string;
}

/** The row, locked for the rest of the transaction; a withdrawn suite or dataset is not found. */
async function lockRow(trx: Db, kind: ReviewKind, id: string): Promise<LockedRow> {
  const owner = (column: string) => trx.raw(`(select u.username from users u where u.id = ${column}) as owner`);
  if (kind === 'suite') {
    const row = await trx('quality_suites as s')
      .where('s.id', id)
      .whereNot('s.status', 'WITHDRAWN')
      .forUpdate()
      .first('s.slug', 's.status', 's.official', 's.suite_doc', owner('s.created_by'));
    if (row) return { id, status: row.status, label: `${row.slug} by @${row.owner}`, official: row.official, tasks: row.suite_doc.tasks };
  } else if (kind === 'dataset') {
    const row = await trx('quality_datasets as d')
      .where('d.id', id)
      .whereNot('d.status', 'WITHDRAWN')
      .forUpdate()
      .first('d.slug', 'd.status', owner('d.created_by'));
    if (row) return { id, status: row.status, label: `${row.slug} by @${row.owner}` };
  } else {
    const row = await trx('quality_runs as r')
      .where('r.id', id)
      .forUpdate()
      .first(
        'r.status',
        'r.suite_id',
        trx.raw('(select s.slug from quality_suites s where s.id = r.suite_id) as suite_slug'),
        trx.raw('(select m.hf_id from models m where m.id = r.model_id) as hf_id'),
        owner('r.user_id'),
      );
    if (row)
      return {
        id,
        status: row.status,
        label: `${row.suite_slug}: ${row.hf_id} by @${row.owner} (${id.slice(0, 8)})`,
        suiteId: row.suite_id,
      };
  }
  throw new NotFound(KINDS[kind].notFound);
}

export function createQualityReviewService(deps: Pick<ServiceDeps, 'db' | 'clock'> & Transactional) {
  const { db, clock, withTransaction } = deps;

  // ---------------------------------------------------------------- reads

  /** Status and first items of the live datasets with these slugs. */
  async function datasetFacts(slugs: readonly string[]) {
    if (slugs.length === 0) return new Map<string, { status: ReviewStatus; itemCount: number; sample: QualityItem[] }>();
    const rows: { slug: string; status: ReviewStatus; item_count: number; sample: QualityItem[] | null }[] = await db(
      'quality_datasets as d',
    )
      .leftJoin('quality_dataset_shards as sh', (join) => join.on('sh.dataset_id', 'd.id').andOn('sh.shard_index', db.raw('0')))
      .whereIn('d.slug', slugs)
      .whereNot('d.status', 'WITHDRAWN')
      .select('d.slug', 'd.status', 'd.item_count', db.raw(`${FIRST_ITEMS} as sample`));
    return new Map(rows.map((row) => [row.slug, { status: row.status, itemCount: row.item_count, sample: row.sample ?? [] }]));
  }

  async function suiteCards(rows: WithReviewer<SuiteListRow>[]): Promise<SuiteCard[]> {
    const datasets = await datasetFacts([...new Set(rows.flatMap((row) => shardSlugs(row.suite_doc.tasks)))]);
    return rows.map((row) => {
      const tasks = row.suite_doc.tasks.map((task): TaskFacts => {
        const shard = task.dataset?.source === 'shard' ? datasets.get(task.dataset.datasetSlug) : undefined;
        const items = task.dataset?.source === 'inline' ? task.dataset.items : (shard?.sample ?? []);
        return {
          key: task.key,
          displayName: task.displayName ?? null,
          taskType: task.taskType,
          weight: task.weight,
          promptTemplate: clip(task.promptTemplate ?? null),
          answerExtraction: task.answerExtraction,
          answerRegex: task.answerRegex ?? null,
          source: sourceOf(task),
          itemCount: task.dataset?.source === 'inline' ? task.dataset.items.length : (shard?.itemCount ?? null),
          sample: items.slice(0, SAMPLE_ITEMS).map(sampleItem),
        };
      });
      const references = shardSlugs(row.suite_doc.tasks).map(
        (slug): DatasetReference => ({ slug, status: datasets.get(slug)?.status ?? 'MISSING' }),
      );
      return {
        ...toSuiteSummary(row),
        review: reviewOf(row),
        judge: row.suite_doc.judge ?? null,
        tasks,
        datasets: references,
        datasetsPending: references.filter((dataset) => dataset.status !== 'APPROVED').map((dataset) => dataset.slug),
      };
    });
  }

  async function datasetCards(
    rows: WithReviewer<DatasetRow & { creator_username: string; creator_display_name: string }>[],
  ): Promise<DatasetCard[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const [shards, samples, users] = await Promise.all([
      db('quality_dataset_shards')
        .whereIn('dataset_id', ids)
        .orderBy(['dataset_id', 'shard_index'])
        .select('dataset_id', 'shard_index', 'name', 'item_count'),
      db('quality_dataset_shards as sh')
        .whereIn('sh.dataset_id', ids)
        .where('sh.shard_index', 0)
        .select('sh.dataset_id', db.raw(`${FIRST_ITEMS} as sample`)),
      db('quality_suites as s')
        .join('quality_datasets as d', db.raw('d.id = any(s.dataset_ids)'))
        .whereIn('d.id', ids)
        .whereNot('s.status', 'WITHDRAWN')
        .orderBy('s.slug')
        .select('d.id as dataset_id', 's.slug', 's.status'),
    ]);
    return rows.map((row) => ({
      ...toDatasetSummary(row),
      review: reviewOf(row),
      shards: shards
        .filter((shard) => shard.dataset_id === row.id)
        .map((shard) => ({ index: shard.shard_index, name: shard.name, itemCount: shard.item_count })),
      sample: ((samples.find((sample) => sample.dataset_id === row.id)?.sample ?? []) as QualityItem[]).map(sampleItem),
      usedBy: users.filter((use) => use.dataset_id === row.id).map((use) => ({ slug: use.slug, status: use.status })),
    }));
  }

  /** Per user, their rows of `table` counted by status. */
  async function countsByUser(table: 'quality_runs' | 'speed_test_runs', userIds: readonly string[]): Promise<Map<string, StatusCounts>> {
    const rows: { user_id: string; status: string; n: number }[] = await db(table)
      .whereIn('user_id', userIds)
      .groupBy('user_id', 'status')
      .select('user_id', 'status', db.raw('count(*)::int as n'));
    const counts = new Map<string, StatusCounts>(userIds.map((id) => [id, { APPROVED: 0, REJECTED: 0, PENDING: 0 }]));
    for (const row of rows) if (row.status in counts.get(row.user_id)!) counts.get(row.user_id)![row.status as keyof StatusCounts] = row.n;
    return counts;
  }

  async function runCards(rows: WithReviewer<QualityRunListRow>[]): Promise<RunCard[]> {
    if (rows.length === 0) return [];
    const userIds = [...new Set(rows.map((row) => row.user_id))];
    const [artifacts, qualityRuns, speedTests] = await Promise.all([
      db
        .select('*')
        .from(
          db('quality_run_artifacts')
            .whereIn(
              'run_id',
              rows.map((row) => row.id),
            )
            .whereNotNull('response')
            .select(
              'run_id',
              'seq',
              'task_key',
              'item_index',
              'score',
              db.raw(`left(question, ${CLIP}) as question`),
              db.raw(`left(prompt, ${CLIP}) as prompt`),
              db.raw(`left(response, ${CLIP}) as response`),
              db.raw(`left(error, ${CLIP}) as error`),
              db.raw('row_number() over (partition by run_id order by seq) as n'),
            )
            .as('a'),
        )
        .where('n', '<=', SAMPLE_ARTIFACTS)
        .orderBy(['run_id', 'seq']),
      countsByUser('quality_runs', userIds),
      countsByUser('speed_test_runs', userIds),
    ]);
    return rows.map((row) => {
      const run = toQualityRun(row);
      return {
        run,
        review: reviewOf(row),
        disagreementFlagged: (row.max_disagreement ?? 0) > DISAGREEMENT_FLAG,
        flaggedTasks: run.tasks.filter((task) => (task.rescored?.disagreement ?? 0) > DISAGREEMENT_FLAG).map((task) => task.key),
        artifacts: artifacts
          .filter((artifact) => artifact.run_id === row.id)
          .map((artifact) => ({
            seq: artifact.seq,
            taskKey: artifact.task_key,
            itemIndex: artifact.item_index,
            question: artifact.question,
            prompt: artifact.prompt,
            response: artifact.response,
            score: artifact.score,
            error: artifact.error,
          })),
        history: { qualityRuns: qualityRuns.get(row.user_id)!, speedTests: speedTests.get(row.user_id)! },
      };
    });
  }

  // The rows the cards are built from, each with its reviewer's username.
  const suites = (): Knex.QueryBuilder => suitesWithCreator(db).select(reviewerColumn(db, 's'));
  const datasets = (): Knex.QueryBuilder => datasetsWithCreator(db).select(reviewerColumn(db, 'd'));
  const runs = (): Knex.QueryBuilder => qualityRunsWithRelations(db).select(reviewerColumn(db, 'r'));

  /** The oldest PENDING rows of a queue. */
  const pending = (q: Knex.QueryBuilder, alias: string) =>
    q
      .where(`${alias}.status`, 'PENDING')
      .orderBy([{ column: `${alias}.created_at` }, { column: `${alias}.id` }])
      .limit(REVIEW_QUEUE_SIZE);

  /** One row by id whatever its state (a withdrawn one is not found). */
  async function one(q: Knex.QueryBuilder, kind: ReviewKind) {
    const row = await q.first();
    if (!row) throw new NotFound(KINDS[kind].notFound);
    return row;
  }

  /** How many suites, datasets and runs wait for review, and how many suites are approved. */
  async function pendingCounts(): Promise<{ suites: number; datasets: number; runs: number; approvedSuites: number }> {
    return db
      .select(
        db.raw("(select count(*)::int from quality_suites where status = 'PENDING') as suites"),
        db.raw("(select count(*)::int from quality_datasets where status = 'PENDING') as datasets"),
        db.raw("(select count(*)::int from quality_runs where status = 'PENDING') as runs"),
        db.raw(`(select count(*)::int from quality_suites where status = 'APPROVED') as "approvedSuites"`),
      )
      .first();
  }

  // ---------------------------------------------------------------- decisions

  /**
   * Moves a suite, dataset or run to APPROVED or REJECTED in one transaction: the row
   * locked, the transition checked, what depends on it kept, the audit entry written.
   */
  function decide(actor: AdminActor, kind: ReviewKind, id: string, decision: ReviewDecision, notes: string | null) {
    return db.transaction(async (trx) => {
      const row = await lockRow(trx, kind, id);
      if (!ALLOWED_FROM[decision].includes(row.status))
        throw new Conflict(messages.qualityCannotReview(kind, row.status, REVIEWED[decision].done));
      if (kind === 'suite' && decision === 'approve') await checkSuiteDatasets(trx, row.tasks!);
      if (kind === 'run') {
        // run_count is the suite's number of APPROVED runs.
        if (decision === 'approve') await trx('quality_suites').where({ id: row.suiteId }).increment('run_count', 1);
        else if (row.status === 'APPROVED') await trx('quality_suites').where({ id: row.suiteId }).decrement('run_count', 1);
      }
      const now = clock.now();
      await trx(KINDS[kind].table)
        .where({ id })
        .update({ status: REVIEWED[decision].status, admin_notes: notes, reviewed_by: actor.id, reviewed_at: now, updated_at: now });
      await withTransaction(trx).audit.record(actor, {
        action: KINDS[kind].actions[decision],
        targetKind: KINDS[kind].targetKind,
        targetId: id,
        targetLabel: row.label,
        reason: notes,
      });
    });
  }

  /** A suite is approved only once every dataset its shard tasks read is (locked against a concurrent rejection). */
  async function checkSuiteDatasets(trx: Db, tasks: readonly SuiteTask[]) {
    const slugs = shardSlugs(tasks);
    if (slugs.length === 0) return;
    const approved: string[] = await trx('quality_datasets').whereIn('slug', slugs).where('status', 'APPROVED').forShare().pluck('slug');
    const pending = slugs.filter((slug) => !approved.includes(slug));
    if (pending.length > 0) throw new Conflict(messages.qualitySuiteDatasetsPending(pending));
  }

  return {
    /** The pending suites, datasets and runs (oldest first), their totals, and the approved suites. */
    async queues() {
      const [suiteRows, datasetRows, runRows, approvedRows, totals] = await Promise.all([
        pending(suites(), 's'),
        pending(datasets(), 'd'),
        pending(runs(), 'r'),
        suites()
          .where('s.status', 'APPROVED')
          .orderBy([{ column: 's.official', order: 'desc' }, { column: 's.slug' }])
          .limit(APPROVED_SUITES_LISTED),
        pendingCounts(),
      ]);
      const [suiteList, datasetList, runList] = await Promise.all([suiteCards(suiteRows), datasetCards(datasetRows), runCards(runRows)]);
      return {
        suites: suiteList,
        datasets: datasetList,
        runs: runList,
        approvedSuites: approvedRows.map((row: WithReviewer<SuiteListRow>) => ({ ...toSuiteSummary(row), review: reviewOf(row) })),
        totals,
      };
    },

    pendingCounts,

    async suiteCard(id: string): Promise<SuiteCard> {
      return (await suiteCards([await one(suites().where('s.id', id).whereNot('s.status', 'WITHDRAWN'), 'suite')]))[0]!;
    },

    async datasetCard(id: string): Promise<DatasetCard> {
      return (await datasetCards([await one(datasets().where('d.id', id).whereNot('d.status', 'WITHDRAWN'), 'dataset')]))[0]!;
    },

    async runCard(id: string): Promise<RunCard> {
      return (await runCards([await one(runs().where('r.id', id), 'run')]))[0]!;
    },

    approveSuite: (actor: AdminActor, id: string, notes?: string) => decide(actor, 'suite', id, 'approve', notes ?? null),
    rejectSuite: (actor: AdminActor, id: string, notes: string) => decide(actor, 'suite', id, 'reject', notes),
    approveDataset: (actor: AdminActor, id: string, notes?: string) => decide(actor, 'dataset', id, 'approve', notes ?? null),
    rejectDataset: (actor: AdminActor, id: string, notes: string) => decide(actor, 'dataset', id, 'reject', notes),
    /** Approving a run makes it public at once and counts it on its suite. */
    approveRun: (actor: AdminActor, id: string, notes?: string) => decide(actor, 'run', id, 'approve', notes ?? null),
    /** The owner reads the notes on the run (GET {root}/runs/{id}, their settings page). */
    rejectRun: (actor: AdminActor, id: string, notes: string) => decide(actor, 'run', id, 'reject', notes),

    /** Sets or clears `official` on an APPROVED suite; setting it to what it is changes and logs nothing. */
    async setSuiteOfficial(actor: AdminActor, id: string, official: boolean): Promise<void> {
      await db.transaction(async (trx) => {
        const row = await lockRow(trx, 'suite', id);
        if (row.status !== 'APPROVED')
          throw new Conflict(messages.qualityCannotReview('suite', row.status, official ? 'made official' : 'made unofficial'));
        if (row.official === official) return;
        await trx('quality_suites').where({ id }).update({ official, updated_at: clock.now() });
        await withTransaction(trx).audit.record(actor, {
          action: official ? 'suite.official' : 'suite.unofficial',
          targetKind: 'quality_suite',
          targetId: id,
          targetLabel: row.label,
        });
      });
    },
  };
}
