import type { Knex } from 'knex';
import type { Db } from '../db/knex.ts';
import type { RevisionProfile } from '../revisions.ts';
import { toModelSummary, type ModelRow } from './models.service.ts';

/**
 * Reading runs back: one joined query and one row-to-JSON mapping shared by the results
 * list, single runs, the leaderboard and the pages.
 */
export type SpeedTestRun = Record<string, unknown> & { id: string };

/** Per revision, the stored fields its answers leave out (computed once, not per run). */
const gatedFieldsByRevision = new Map<number, ReadonlySet<string>>();

function gatedFields(profile: RevisionProfile): ReadonlySet<string> {
  let gated = gatedFieldsByRevision.get(profile.revision);
  if (!gated) {
    const fields = new Set<string>(profile.revisionOnlyFields);
    if (fields.has('gpuPowerWatts')) fields.add('totalPowerWatts');
    gatedFieldsByRevision.set(profile.revision, (gated = fields));
  }
  return gated;
}

/** Fields of a stored run that the revision does not have are left out of its answers. */
function withoutGatedFields(profile: RevisionProfile, run: Record<string, unknown>): Record<string, unknown> {
  const gated = gatedFields(profile);
  if (gated.size === 0) return run;
  for (const field of gated) delete run[field];
  return run;
}

function engineSummary(profile: RevisionProfile, row: Record<string, any>) {
  const { e } = row;
  const engine: Record<string, unknown> = { id: row.engine_id, name: row.engine_name, version: e.version };
  if (profile.features.revision3Fields) Object.assign(engine, { repository: e.repository, build: e.build, commit: e.commit });
  return engine;
}

export function toRun(profile: RevisionProfile, row: Record<string, any>): SpeedTestRun {
  const { m, e, u } = row;
  const model: ModelRow = { id: row.model_id, ...m, hub_sha: null, gated: false };
  const run = withoutGatedFields(profile, {
    id: row.id,
    modelId: row.model_id,
    hardwareId: row.hardware_id,
    engineId: row.engine_id,
    userId: row.user_id,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    hfId: m.hf_id,
    model: toModelSummary(model),
    hardware: { id: row.hardware_id, ...row.h },
    engineName: row.engine_name,
    engineVersion: e.version,
    engineRepository: e.repository,
    engineBuild: e.build,
    engineCommit: e.commit,
    engine: engineSummary(profile, row),
    engineFlags: row.engine_flags,
    user: { id: row.user_id, username: u.username, displayName: u.display_name, verified: u.is_verified, demo: u.is_demo },
    // Sample data of the quick start, from demo accounts.
    demo: u.is_demo,
    quantization: row.quantization,
    modelRevision: row.model_revision,
    backend: row.backend,
    tokSOut: row.tok_s_out,
    tokSPrefill: row.tok_s_prefill,
    tokSTotal: row.tok_s_total,
    ttftMs: row.ttft_ms,
    peakVramGb: row.peak_vram_gb,
    promptTokens: row.prompt_tokens,
    outputTokens: row.output_tokens,
    contextLength: row.context_length,
    batchSize: row.batch_size,
    prefillTokens: row.prefill_tokens,
    gpuPowerWatts: row.gpu_power_watts,
    totalPowerWatts: row.total_power_watts,
    hardwareCost: row.hardware_cost,
    // Derived for ranking: output tok/s per watt and per US dollar of hardware.
    tokPerWatt: row.tok_per_watt,
    tokPerDollar: row.tok_per_dollar,
    // The decode-speed roofline check (see /methodology).
    plausibility: row.plausibility,
    decodeBoundTokS: row.decode_bound_tok_s,
    plausibilityReason: row.plausibility_reason,
    notes: row.notes,
    // Reactions arrive with their own issue; until then nobody has reacted.
    reactionCounts: {},
    myEmoji: null,
  });
  return run as SpeedTestRun;
}

/** Runs, as `r`. Their model, hardware, engine and user come from `runColumns`. */
export function runsQuery(db: Db) {
  return db('speed_test_runs as r');
}

// Only what the answer shows: the run row also carries copies for filtering, which would
// cost parse time on every listed row.
const RUN_OWN_COLUMNS = [
  'id', 'model_id', 'hardware_id', 'engine_id', 'user_id', 'status', 'created_at', 'engine_name', 'engine_flags',
  'quantization', 'model_revision', 'backend', 'tok_s_out', 'tok_s_prefill', 'tok_s_total', 'ttft_ms', 'peak_vram_gb',
  'prompt_tokens', 'output_tokens', 'context_length', 'batch_size', 'prefill_tokens', 'gpu_power_watts',
  'total_power_watts', 'hardware_cost', 'tok_per_watt', 'tok_per_dollar', 'notes', 'plausibility',
  'decode_bound_tok_s', 'plausibility_reason',
].map((column) => `r.${column}`);

/**
 * The related rows as one JSON object each, from primary-key subqueries rather than
 * joins: at a million runs, planning a five-way join cost about 4 ms a page, more than
 * running it; these subqueries plan in well under 1 ms.
 */
const LOOKUPS = `
  (select json_build_object('hf_id', m.hf_id, 'display_name', m.display_name, 'family', m.family, 'params', m.params,
     'params_approximate', m.params_approximate, 'active_params', m.active_params, 'is_moe', m.is_moe,
     'base_model_id', m.base_model_id, 'base_hf_id', m.base_hf_id, 'base_relation', m.base_relation)
   from models m where m.id = r.model_id) as m,
  (select h.details from hardware_profiles h where h.id = r.hardware_id) as h,
  (select json_build_object('version', e.version, 'repository', e.repository, 'build', e.build, 'commit', e.commit)
   from engines e where e.id = r.engine_id) as e,
  (select json_build_object('username', u.username, 'display_name', u.display_name, 'is_verified', u.is_verified, 'is_demo', u.is_demo)
   from users u where u.id = r.user_id) as u`;

export function runColumns(db: Db) {
  return [...RUN_OWN_COLUMNS, db.raw(LOOKUPS)];
}

/** Runs matching `filter`, newest first. */
export async function findRuns(db: Db, profile: RevisionProfile, filter: (q: Knex.QueryBuilder) => void, page?: { limit: number; offset: number }) {
  const query = runsQuery(db)
    .select(runColumns(db))
    .modify(filter)
    .orderBy([{ column: 'r.created_at', order: 'desc' }, { column: 'r.id', order: 'desc' }]);
  if (page) query.limit(page.limit).offset(page.offset);
  return (await query).map((row: Record<string, unknown>) => toRun(profile, row));
}

/** Approved runs with one filter value, from the count table kept by triggers ('all' = every run). */
export async function countedRuns(db: Db, dimension: string, value: string): Promise<number> {
  const row = await db('speed_test_run_counts').where({ dimension, value }).first('n');
  return row ? Number(row.n) : 0;
}
