import type { Db } from '../db/knex.ts';
import type { Knex } from 'knex';
import { NotFound } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { RevisionProfile } from '../revisions.ts';
import { findRuns } from './run-reads.ts';
import { findModelByHfId, toModelSummary, type ModelRow, type ModelSummary } from './models.service.ts';
import { containsLowercase, escapeLike } from '../lib/like-patterns.ts';

/** A catalogue entry as listed: the summary plus how many approved runs it has. */
export type CatalogueModel = ModelSummary & { benchmarkCount: number; gated: boolean };
export type CatalogueTreeNode = CatalogueModel & { relation: string | null; finetunes: CatalogueTreeNode[] };

type CountedRow = ModelRow & { benchmark_count: number };

function toCatalogueModel(row: CountedRow): CatalogueModel {
  return { ...toModelSummary(row), benchmarkCount: row.benchmark_count, gated: row.gated };
}

const SEARCH_TEXT = "lower(hf_id) || ' ' || lower(display_name) || ' ' || coalesce(lower(family), '')";

/** Most-benchmarked first, then by id: what a visitor looks for first. */
export async function listModels(db: Db, query: { search?: string; limit: number; offset: number }) {
  const base = db<CountedRow>('models').modify((q) => {
    if (query.search) q.whereRaw(`${SEARCH_TEXT} like ?`, [containsLowercase(query.search)]);
  });
  const [rows, [{ total }]] = await Promise.all([
    base.clone().orderBy([{ column: 'benchmark_count', order: 'desc' }, { column: 'hf_id', order: 'asc' }]).limit(query.limit).offset(query.offset),
    base.clone().count<{ total: number }[]>('* as total'),
  ]);
  return { models: rows.map(toCatalogueModel), total, limit: query.limit, offset: query.offset };
}

/**
 * Base models with their finetunes, quants, adapters and merges nested (each marked
 * with its relation). A search keeps the trees that contain a match anywhere. The
 * catalogue is small next to the runs (thousands of rows), so the trees are built in memory.
 */
export async function listModelTree(db: Db, query: { search?: string; limit: number; offset: number }) {
  const rows: CountedRow[] = await db('models').select('*').orderBy([{ column: 'benchmark_count', order: 'desc' }, { column: 'hf_id', order: 'asc' }]);
  const nodes = new Map<string, CatalogueTreeNode>(rows.map((row) => [row.id, { ...toCatalogueModel(row), relation: row.base_relation, finetunes: [] }]));
  const roots: CatalogueTreeNode[] = [];
  for (const row of rows) {
    const parent = row.base_model_id ? nodes.get(row.base_model_id) : undefined;
    if (parent) parent.finetunes.push(nodes.get(row.id)!);
    else roots.push({ ...nodes.get(row.id)!, relation: null });
  }
  const needle = query.search?.toLowerCase();
  const matches = (node: CatalogueTreeNode): boolean =>
    !needle ||
    `${node.hfId} ${node.displayName} ${node.family ?? ''}`.toLowerCase().includes(needle) ||
    node.finetunes.some(matches);
  // Roots keep their own nodes; a child listed under two roots cannot happen (one base each).
  const kept = roots.map((root) => ({ ...root, finetunes: nodes.get(root.id)!.finetunes })).filter(matches);
  return { models: kept.slice(query.offset, query.offset + query.limit), total: kept.length, limit: query.limit, offset: query.offset };
}

/** Exact id first, then prefix matches, then any substring; each group by run count. */
export async function searchModels(db: Db, query: { q: string; limit: number }) {
  const q = query.q.toLowerCase();
  const prefix = `${escapeLike(q)}%`;
  const rows: CountedRow[] = await db('models')
    .whereRaw(`${SEARCH_TEXT} like ?`, [containsLowercase(q)])
    .orderByRaw(
      `case when lower(hf_id) = ? then 0 when lower(hf_id) like ? or lower(display_name) like ? then 1 else 2 end, benchmark_count desc, hf_id`,
      [q, prefix, prefix],
    )
    .limit(query.limit);
  return rows.map((row) => ({
    hfId: row.hf_id,
    displayName: row.display_name,
    family: row.family,
    params: row.params,
    benchmarkCount: row.benchmark_count,
  }));
}

/** One model with its base, its children and summary figures of its approved runs. */
export async function getModelDetail(db: Db, hfId: string) {
  const row = (await findModelByHfId(db, hfId)) as CountedRow | undefined;
  if (!row) throw new NotFound(`Model '${hfId}' is not in the catalogue`);
  const [base, children, figures, byClass] = await Promise.all([
    row.base_model_id ? db<CountedRow>('models').where({ id: row.base_model_id }).first() : undefined,
    db<CountedRow>('models').where({ base_model_id: row.id }).orderBy([{ column: 'benchmark_count', order: 'desc' }, { column: 'hf_id', order: 'asc' }]),
    db('speed_test_runs')
      .where({ model_id: row.id, status: 'APPROVED' })
      .first(
        db.raw('count(*)::int as runs'),
        db.raw('max(tok_s_out) as best_tok_s_out'),
        db.raw('count(distinct hardware_id)::int as hardware_profiles'),
        db.raw('max(created_at) as latest_run_at'),
      ),
    db('speed_test_runs')
      .where({ model_id: row.id, status: 'APPROVED' })
      .groupBy('hw_class')
      .select('hw_class', db.raw('count(*)::int as runs'), db.raw('max(tok_s_out) as best_tok_s_out')),
  ]);
  return {
    ...toCatalogueModel(row),
    hubSha: row.hub_sha,
    base: base ? toCatalogueModel(base) : null,
    children: children.map((child) => ({ ...toCatalogueModel(child), relation: child.base_relation })),
    summary: {
      runs: figures.runs,
      bestTokSOut: figures.best_tok_s_out,
      hardwareProfiles: figures.hardware_profiles,
      latestRunAt: figures.latest_run_at ? figures.latest_run_at.toISOString() : null,
      byHardwareClass: Object.fromEntries(byClass.map((c: { hw_class: string; runs: number; best_tok_s_out: number | null }) => [c.hw_class, { runs: c.runs, bestTokSOut: c.best_tok_s_out }])),
    },
  };
}

/** One hardware profile (as stored) and a page of its approved runs across models, newest first. */
export async function getHardwareProfile(
  db: Db,
  profile: RevisionProfile,
  id: string,
  page: { limit: number; offset: number },
  viewerId: string | null = null,
) {
  if (!isUuid(id)) throw new NotFound('Hardware profile not found');
  const row = await db('hardware_profiles').where({ id }).first('details');
  if (!row) throw new NotFound('Hardware profile not found');
  const filter = (q: Knex.QueryBuilder) => q.where('r.hardware_id', id).where('r.status', 'APPROVED');
  const [runs, [{ total }]] = await Promise.all([
    findRuns(db, profile, filter, page, viewerId),
    db('speed_test_runs as r').modify(filter).count<{ total: number }[]>('* as total'),
  ]);
  return { hardware: { id, ...row.details }, runs, total };
}
