import type { Knex } from 'knex';
import type { Db } from '../db/knex.ts';
import { Conflict, NotFound, ValidationFailed } from '../lib/errors.ts';
import { goldLetter } from '../lib/quality-scoring.ts';
import { messages } from '../messages.ts';
import type { DatasetSubmission, QualityItem, SuiteDoc, SuiteRegistration, SuiteTask } from '../schemas/quality.schema.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * Quality suites and sharded datasets: registration (PENDING until an admin approves),
 * the public catalogue of approved suites, and the owner's submissions (correct and
 * resubmit, withdraw). A suite is one row holding its whole document, so a registration is
 * written or not at all; a dataset and its shards are one transaction.
 */

export type ReviewStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'WITHDRAWN';
export type SubmissionKind = 'suite' | 'dataset';

export interface SuiteRow {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  category: string;
  runner: 'CUSTOM' | 'LM_EVAL_HARNESS';
  version: string;
  source_url: string | null;
  suite_doc: SuiteDoc;
  task_keys: string[];
  dataset_ids: string[];
  item_count: number;
  official: boolean;
  run_count: number;
  created_by: string;
  status: ReviewStatus;
  admin_notes: string | null;
  reviewed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface PersonRow {
  creator_username: string;
  creator_display_name: string;
}

export type SuiteListRow = SuiteRow & PersonRow;

/** The suite's scoring facts, read from its document. */
export function suiteScoring(doc: SuiteDoc) {
  return { method: doc.scoringMethod, aggregation: doc.aggregation, higherIsBetter: doc.higherIsBetter };
}

/** A suite as lists show it: everything but the document's items. */
export function toSuiteSummary(row: SuiteListRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    category: row.category,
    runner: row.runner,
    version: row.version,
    sourceUrl: row.source_url,
    taskKeys: row.task_keys,
    taskCount: row.task_keys.length,
    itemCount: row.item_count,
    scoring: suiteScoring(row.suite_doc),
    runConfig: row.suite_doc.runConfig,
    status: row.status,
    official: row.official,
    createdBy: { username: row.creator_username, displayName: row.creator_display_name },
    runCount: row.run_count,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * A suite document as lists carry it (DECISIONS.md "Real clients": clients search task keys):
 * every task without its dataset items, `itemCount` per task instead.
 */
export function withoutItems(
  doc: SuiteDoc,
  datasetItemCounts: ReadonlyMap<string, number>,
): Omit<SuiteDoc, 'tasks'> & { tasks: Record<string, unknown>[] } {
  return {
    ...doc,
    tasks: doc.tasks.map((task) => {
      if (task.dataset?.source === 'inline') {
        const { items, ...dataset } = task.dataset;
        return { ...task, dataset, itemCount: items.length };
      }
      if (task.dataset?.source === 'shard') return { ...task, itemCount: datasetItemCounts.get(task.dataset.datasetSlug) ?? 0 };
      return task;
    }),
  };
}

/** Item counts of the live datasets the suites' shard tasks name, by slug. */
async function datasetItemCounts(db: Db, rows: readonly SuiteRow[]): Promise<Map<string, number>> {
  const slugs = [
    ...new Set(
      rows.flatMap((row) => row.suite_doc.tasks.flatMap((task) => (task.dataset?.source === 'shard' ? [task.dataset.datasetSlug] : []))),
    ),
  ];
  if (slugs.length === 0) return new Map();
  const found = await db('quality_datasets').whereIn('slug', slugs).whereNot('status', 'WITHDRAWN').select('slug', 'item_count');
  return new Map(found.map((row: { slug: string; item_count: number }) => [row.slug, row.item_count]));
}

/** One suite with its whole document, answers included (public data once approved). */
export function toSuite(row: SuiteListRow) {
  return { ...toSuiteSummary(row), suiteDoc: row.suite_doc };
}
export type Suite = ReturnType<typeof toSuite>;

export interface DatasetRow {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  license: string | null;
  source_url: string | null;
  shard_count: number;
  item_count: number;
  created_by: string;
  status: ReviewStatus;
  admin_notes: string | null;
  reviewed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function toDatasetSummary(row: DatasetRow & PersonRow) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    license: row.license,
    sourceUrl: row.source_url,
    shardCount: row.shard_count,
    itemCount: row.item_count,
    status: row.status,
    createdBy: { username: row.creator_username, displayName: row.creator_display_name },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface SuiteListQuery {
  category?: string;
  runner?: 'CUSTOM' | 'LM_EVAL_HARNESS';
  official?: boolean;
  limit: number;
  offset: number;
}

/** Suites with their creator's names; `live` leaves withdrawn ones out. */
export function suitesWithCreator(db: Db) {
  return db<SuiteListRow>('quality_suites as s')
    .join('users as u', 'u.id', 's.created_by')
    .select('s.*', 'u.username as creator_username', 'u.display_name as creator_display_name');
}

/** Datasets with their creator's names. */
export function datasetsWithCreator(db: Db) {
  return db('quality_datasets as d')
    .join('users as u', 'u.id', 'd.created_by')
    .select('d.*', 'u.username as creator_username', 'u.display_name as creator_display_name');
}

/** Items of a task: inline in the document, or every shard of its dataset in order. */
export async function taskItems(db: Db, task: SuiteTask): Promise<QualityItem[] | null> {
  if (task.dataset?.source === 'inline') return task.dataset.items;
  if (task.dataset?.source !== 'shard') return null;
  const shards = await db('quality_dataset_shards as sh')
    .join('quality_datasets as d', 'd.id', 'sh.dataset_id')
    .where('d.slug', task.dataset.datasetSlug)
    .whereNot('d.status', 'WITHDRAWN')
    .orderBy('sh.shard_index')
    .select<{ items: QualityItem[] }[]>('sh.items');
  return shards.flatMap((shard) => shard.items);
}

/** A dataset named by a suite task, as the registration checks it. */
interface DatasetReference {
  id: string;
  slug: string;
  status: ReviewStatus;
  created_by: string;
  item_count: number;
}

/** Field errors keyed by the body's dotted paths. */
type FieldErrors = Record<string, string[]>;
const addError = (errors: FieldErrors, path: string, message: string) => (errors[path] ??= []).push(message);

export function createQualitySuitesService(deps: Pick<ServiceDeps, 'db' | 'clock'>) {
  const { db } = deps;

  /**
   * The datasets a document's shard tasks name: each must exist and be APPROVED or the
   * submitter's own ("owned storage references"). Multiple-choice shard items must resolve
   * their gold to a choice like inline ones.
   */
  async function checkReferences(
    trx: Db,
    userId: string,
    doc: SuiteDoc,
    errors: FieldErrors,
  ): Promise<{ datasetIds: string[]; itemCount: number }> {
    const slugs = [...new Set(doc.tasks.flatMap((task) => (task.dataset?.source === 'shard' ? [task.dataset.datasetSlug] : [])))];
    const found: DatasetReference[] = slugs.length
      ? await trx('quality_datasets')
          .whereIn('slug', slugs)
          .whereNot('status', 'WITHDRAWN')
          .select('id', 'slug', 'status', 'created_by', 'item_count')
      : [];
    const bySlug = new Map(found.map((row) => [row.slug, row]));
    let itemCount = 0;
    doc.tasks.forEach((task, index) => {
      if (task.dataset?.source === 'inline') itemCount += task.dataset.items.length;
      if (task.dataset?.source !== 'shard') return;
      const path = `suiteDoc.tasks.${index}.dataset.datasetSlug`;
      const dataset = bySlug.get(task.dataset.datasetSlug);
      if (!dataset) return addError(errors, path, messages.qualityDatasetUnknown(task.dataset.datasetSlug));
      if (dataset.status !== 'APPROVED' && dataset.created_by !== userId)
        return addError(errors, path, messages.qualityDatasetNotUsable(dataset.slug));
      itemCount += dataset.item_count;
    });
    return { datasetIds: found.map((row) => row.id), itemCount };
  }

  /** Multiple-choice golds must name one of their choices, or a scorer could never award the item. */
  function checkChoiceGolds(doc: SuiteDoc, errors: FieldErrors): void {
    doc.tasks.forEach((task, taskIndex) => {
      if (task.taskType !== 'multiple_choice' || task.dataset?.source !== 'inline') return;
      task.dataset.items.forEach((item, itemIndex) => {
        if (item.gold === undefined || !item.choices) return;
        if (goldLetter(item.gold, item.choices) === null) {
          addError(
            errors,
            `suiteDoc.tasks.${taskIndex}.dataset.items.${itemIndex}.gold`,
            'Must name one of the choices: a letter, a 0-based index, or the choice text',
          );
        }
      });
    });
  }

  /** Everything a registration checks beyond its schema; throws the 400 listing every problem. */
  async function validate(trx: Db, userId: string, suite: SuiteRegistration, options: { checkSlug: boolean; exceptId?: string }) {
    const errors: FieldErrors = {};
    checkChoiceGolds(suite.suiteDoc, errors);
    const references = await checkReferences(trx, userId, suite.suiteDoc, errors);
    if (options.checkSlug && !(await slugAvailable(trx, 'quality_suites', suite.slug, options.exceptId)))
      addError(errors, 'slug', messages.qualitySlugTaken(suite.slug));
    if (Object.keys(errors).length > 0) throw new ValidationFailed({ fieldErrors: errors, formErrors: [] });
    return references;
  }

  function suiteColumns(suite: SuiteRegistration, references: { datasetIds: string[]; itemCount: number }) {
    return {
      slug: suite.slug,
      name: suite.name,
      description: suite.description || null,
      category: suite.category,
      runner: suite.runner,
      version: suite.version,
      source_url: suite.sourceUrl ?? null,
      suite_doc: JSON.stringify({ ...suite.suiteDoc, version: suite.suiteDoc.version ?? suite.version }),
      task_keys: suite.suiteDoc.tasks.map((task) => task.key),
      dataset_ids: references.datasetIds,
      item_count: references.itemCount,
    };
  }

  async function suiteById(trx: Db, id: string) {
    return toSuite((await suitesWithCreator(trx).where('s.id', id).first())!);
  }

  /** The owner's suite or dataset submission, locked; another user's is not found. */
  async function ownSubmission(trx: Db, userId: string, kind: SubmissionKind, id: string) {
    const table = kind === 'suite' ? 'quality_suites' : 'quality_datasets';
    const row = await trx(table).where({ id, created_by: userId }).whereNot('status', 'WITHDRAWN').forUpdate().first();
    if (!row) throw new NotFound(messages.qualitySubmissionNotFound);
    return row as SuiteRow | DatasetRow;
  }

  /** Whether a submission is used: a suite by any run, a dataset by any live suite but the one being changed. */
  async function inUse(trx: Db, kind: SubmissionKind, id: string): Promise<boolean> {
    if (kind === 'suite') return Boolean(await trx('quality_runs').where({ suite_id: id }).first('id'));
    return Boolean(await trx('quality_suites').whereRaw('? = any(dataset_ids)', [id]).whereNot('status', 'WITHDRAWN').first('id'));
  }

  async function storeShards(trx: Db, datasetId: string, dataset: DatasetSubmission) {
    await trx('quality_dataset_shards').where({ dataset_id: datasetId }).delete();
    await trx('quality_dataset_shards').insert(
      dataset.shards.map((shard, index) => ({
        dataset_id: datasetId,
        shard_index: index,
        name: shard.name || null,
        item_count: shard.items.length,
        items: JSON.stringify(shard.items),
      })),
    );
  }

  const datasetColumns = (dataset: DatasetSubmission) => ({
    slug: dataset.slug,
    name: dataset.name,
    description: dataset.description || null,
    license: dataset.license || null,
    source_url: dataset.sourceUrl ?? null,
    shard_count: dataset.shards.length,
    item_count: dataset.shards.reduce((sum, shard) => sum + shard.items.length, 0),
  });

  async function datasetById(trx: Db, id: string) {
    return toDatasetSummary(await datasetsWithCreator(trx).where('d.id', id).first());
  }

  return {
    /** Approved suites, official first, then most run; filters combine with AND. */
    async list(query: SuiteListQuery) {
      const filtered = (q: Knex.QueryBuilder) => {
        q.where('s.status', 'APPROVED');
        if (query.category) q.whereRaw('lower(s.category) = lower(?)', [query.category]);
        if (query.runner) q.where('s.runner', query.runner);
        if (query.official !== undefined) q.where('s.official', query.official);
      };
      const [rows, [{ total }]] = await Promise.all([
        suitesWithCreator(db)
          .modify(filtered)
          .orderBy([
            { column: 's.official', order: 'desc' },
            { column: 's.run_count', order: 'desc' },
            { column: 's.slug', order: 'asc' },
          ])
          .limit(query.limit)
          .offset(query.offset),
        db('quality_suites as s').modify(filtered).count<{ total: number }[]>({ total: '*' }),
      ]);
      const itemCounts = await datasetItemCounts(db, rows);
      return {
        suites: (rows as SuiteListRow[]).map((row) => ({ ...toSuiteSummary(row), suiteDoc: withoutItems(row.suite_doc, itemCounts) })),
        total: Number(total),
        limit: query.limit,
        offset: query.offset,
      };
    },

    /** The categories of approved suites, for filter forms. */
    async categories(): Promise<string[]> {
      return db('quality_suites').where({ status: 'APPROVED' }).distinct('category').orderBy('category').pluck('category');
    },

    /** One approved suite by slug (others are not found). */
    async get(slug: string): Promise<Suite> {
      const row = await suitesWithCreator(db).where({ 's.slug': slug, 's.status': 'APPROVED' }).first();
      if (!row) throw new NotFound(messages.qualitySuiteNotFound(slug));
      return toSuite(row);
    },

    /**
     * Validates a registration as POST would, with every problem listed; writes nothing.
     * `exceptId`: the user's own suite being corrected, whose slug it may keep.
     */
    async dryRun(userId: string, suite: SuiteRegistration, { exceptId }: { exceptId?: string } = {}) {
      const references = await validate(db, userId, suite, { checkSlug: true, exceptId });
      return {
        valid: true as const,
        slugAvailable: true,
        taskKeys: suite.suiteDoc.tasks.map((task) => task.key),
        itemCount: references.itemCount,
        datasets: suite.suiteDoc.tasks.flatMap((task) => (task.dataset?.source === 'shard' ? [task.dataset.datasetSlug] : [])),
      };
    },

    /** Registers a suite as PENDING; a taken slug is a 409. */
    async register(userId: string, suite: SuiteRegistration): Promise<Suite> {
      return db.transaction(async (trx) => {
        const references = await validate(trx, userId, suite, { checkSlug: false });
        if (!(await slugAvailable(trx, 'quality_suites', suite.slug))) throw new Conflict(messages.qualitySlugTaken(suite.slug));
        const [{ id }] = await trx('quality_suites')
          .insert({ ...suiteColumns(suite, references), created_by: userId, status: 'PENDING' })
          .returning('id');
        return suiteById(trx, id);
      });
    },

    /** Registers a sharded dataset as PENDING (revision 3). */
    async createDataset(userId: string, dataset: DatasetSubmission) {
      return db.transaction(async (trx) => {
        if (!(await slugAvailable(trx, 'quality_datasets', dataset.slug)))
          throw new Conflict(messages.qualityDatasetSlugTaken(dataset.slug));
        const [{ id }] = await trx('quality_datasets')
          .insert({ ...datasetColumns(dataset), created_by: userId, status: 'PENDING' })
          .returning('id');
        await storeShards(trx, id, dataset);
        return datasetById(trx, id);
      });
    },

    /** Approved datasets (no items), newest first, paged like suites. */
    async listDatasets(query: { limit: number; offset: number }) {
      const [rows, [{ total }]] = await Promise.all([
        datasetsWithCreator(db)
          .where('d.status', 'APPROVED')
          .orderBy([
            { column: 'd.created_at', order: 'desc' },
            { column: 'd.slug', order: 'asc' },
          ])
          .limit(query.limit)
          .offset(query.offset),
        db('quality_datasets').where({ status: 'APPROVED' }).count<{ total: number }[]>({ total: '*' }),
      ]);
      return { datasets: rows.map(toDatasetSummary), total: Number(total), limit: query.limit, offset: query.offset };
    },

    /**
     * Every item of a live dataset, shards in order: what a shard task's signed download URL
     * serves (whoever was handed the URL may read the dataset; see src/api/quality-downloads.ts).
     */
    async datasetItems(slug: string): Promise<QualityItem[]> {
      const dataset = await db('quality_datasets').where({ slug }).whereNot('status', 'WITHDRAWN').first('id');
      if (!dataset) throw new NotFound(messages.qualityDatasetNotFound(slug));
      const items = await taskItems(db, { key: 'download', dataset: { source: 'shard', datasetSlug: slug } } as SuiteTask);
      return items ?? [];
    },

    /** One approved dataset with its shards. */
    async getDataset(slug: string) {
      const row = await datasetsWithCreator(db).where({ 'd.slug': slug, 'd.status': 'APPROVED' }).first();
      if (!row) throw new NotFound(messages.qualityDatasetNotFound(slug));
      const shards = await db('quality_dataset_shards').where({ dataset_id: row.id }).orderBy('shard_index').select('name', 'items');
      return { ...toDatasetSummary(row), shards: shards.map((shard) => ({ name: shard.name, items: shard.items })) };
    },

    /** The user's own suites and datasets, newest first, with their review state. */
    async submissions(userId: string) {
      const [suites, datasets] = await Promise.all([
        db('quality_suites as s')
          .where('s.created_by', userId)
          .whereNot('s.status', 'WITHDRAWN')
          .select(
            's.id',
            's.slug',
            's.name',
            's.status',
            's.admin_notes',
            's.reviewed_at',
            's.created_at',
            's.updated_at',
            's.run_count as uses',
            db.raw("'suite' as kind"),
          ),
        db('quality_datasets as d')
          .where('d.created_by', userId)
          .whereNot('d.status', 'WITHDRAWN')
          .select(
            'd.id',
            'd.slug',
            'd.name',
            'd.status',
            'd.admin_notes',
            'd.reviewed_at',
            'd.created_at',
            'd.updated_at',
            db.raw("(select count(*)::int from quality_suites s where d.id = any(s.dataset_ids) and s.status <> 'WITHDRAWN') as uses"),
            db.raw("'dataset' as kind"),
          ),
      ]);
      const all = [...suites, ...datasets].sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || a.id.localeCompare(b.id));
      return {
        submissions: all.map((row) => ({
          kind: row.kind as SubmissionKind,
          id: row.id,
          slug: row.slug,
          name: row.name,
          status: row.status as ReviewStatus,
          adminNotes: row.admin_notes,
          reviewedAt: row.reviewed_at?.toISOString() ?? null,
          usedBy: row.uses,
          createdAt: row.created_at.toISOString(),
          updatedAt: row.updated_at.toISOString(),
        })),
      };
    },

    /**
     * Corrects and resubmits the owner's PENDING or REJECTED suite (the registration body)
     * or dataset (the dataset body); it goes back to PENDING with the notes cleared.
     */
    async patchSubmission(userId: string, kind: SubmissionKind, id: string, body: SuiteRegistration | DatasetSubmission) {
      return db.transaction(async (trx) => {
        const row = await ownSubmission(trx, userId, kind, id);
        if (row.status !== 'PENDING' && row.status !== 'REJECTED') throw new Conflict(messages.qualitySubmissionNotEditable(row.status));
        if (await inUse(trx, kind, id)) throw new Conflict(messages.qualitySubmissionInUse);
        const review = { status: 'PENDING', admin_notes: null, reviewed_at: null, reviewed_by: null, updated_at: trx.fn.now() };
        if (kind === 'suite') {
          const suite = body as SuiteRegistration;
          const references = await validate(trx, userId, suite, { checkSlug: false });
          if (!(await slugAvailable(trx, 'quality_suites', suite.slug, id))) throw new Conflict(messages.qualitySlugTaken(suite.slug));
          await trx('quality_suites')
            .where({ id })
            .update({ ...suiteColumns(suite, references), ...review });
          return { kind, suite: await suiteById(trx, id) };
        }
        const dataset = body as DatasetSubmission;
        if (!(await slugAvailable(trx, 'quality_datasets', dataset.slug, id)))
          throw new Conflict(messages.qualityDatasetSlugTaken(dataset.slug));
        await trx('quality_datasets')
          .where({ id })
          .update({ ...datasetColumns(dataset), ...review });
        await storeShards(trx, id, dataset);
        return { kind, dataset: await datasetById(trx, id) };
      });
    },

    /** Withdraws the owner's PENDING or REJECTED submission that nothing uses; its slug is free again. */
    async withdraw(userId: string, kind: SubmissionKind, id: string) {
      return db.transaction(async (trx) => {
        const row = await ownSubmission(trx, userId, kind, id);
        if (row.status !== 'PENDING' && row.status !== 'REJECTED')
          throw new Conflict(messages.qualitySubmissionNotWithdrawable(row.status));
        if (await inUse(trx, kind, id)) throw new Conflict(messages.qualitySubmissionInUse);
        await trx(kind === 'suite' ? 'quality_suites' : 'quality_datasets')
          .where({ id })
          .update({ status: 'WITHDRAWN', updated_at: trx.fn.now() });
        return { kind, id, slug: row.slug, status: 'WITHDRAWN' as const };
      });
    },

    /** The owner's suite whatever its state (for the owner's pages); others' are not found. */
    async ownSuite(userId: string, id: string): Promise<Suite> {
      const row = await suitesWithCreator(db).where({ 's.id': id, 's.created_by': userId }).whereNot('s.status', 'WITHDRAWN').first();
      if (!row) throw new NotFound(messages.qualitySubmissionNotFound);
      return toSuite(row);
    },
  };
}

/** Whether no live suite (or dataset) but `exceptId` holds the slug. */
async function slugAvailable(db: Db, table: 'quality_suites' | 'quality_datasets', slug: string, exceptId?: string): Promise<boolean> {
  const taken = await db(table)
    .where({ slug })
    .whereNot('status', 'WITHDRAWN')
    .modify((q) => {
      if (exceptId) q.whereNot('id', exceptId);
    })
    .first('id');
  return !taken;
}
