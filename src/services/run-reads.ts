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

function engineSummary(profile: RevisionProfile, row: Record<string, unknown>) {
  const engine: Record<string, unknown> = { id: row.engine_id, name: row.engine_name, version: row.engine_version };
  if (profile.features.revision3Fields) Object.assign(engine, { repository: row.engine_repository, build: row.engine_build, commit: row.engine_commit });
  return engine;
}

export function toRun(profile: RevisionProfile, row: Record<string, any>): SpeedTestRun {
  const model: ModelRow = {
    id: row.model_id,
    hf_id: row.m_hf_id,
    display_name: row.m_display_name,
    family: row.m_family,
    params: row.m_params,
    params_approximate: row.m_params_approximate,
    active_params: row.m_active_params,
    is_moe: row.m_is_moe,
    base_model_id: row.m_base_model_id,
    base_hf_id: row.m_base_hf_id,
    base_relation: row.m_base_relation,
    hub_sha: null,
    gated: false,
  };
  const run = withoutGatedFields(profile, {
    id: row.id,
    modelId: row.model_id,
    hardwareId: row.hardware_id,
    engineId: row.engine_id,
    userId: row.user_id,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    hfId: row.m_hf_id,
    model: toModelSummary(model),
    hardware: { id: row.hardware_id, ...row.h_details },
    engineName: row.engine_name,
    engineVersion: row.engine_version,
    engineRepository: row.engine_repository,
    engineBuild: row.engine_build,
    engineCommit: row.engine_commit,
    engine: engineSummary(profile, row),
    engineFlags: row.engine_flags,
    user: { id: row.user_id, username: row.u_username, displayName: row.u_display_name, verified: row.u_is_verified, demo: row.u_is_demo },
    // Sample data of the quick start, from demo accounts.
    demo: row.u_is_demo,
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

export function runsQuery(db: Db) {
  return db('speed_test_runs as r')
    .join('models as m', 'm.id', 'r.model_id')
    .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
    .join('engines as e', 'e.id', 'r.engine_id')
    .join('users as u', 'u.id', 'r.user_id');
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

export const RUN_COLUMNS = [
  ...RUN_OWN_COLUMNS,
  'm.hf_id as m_hf_id',
  'm.display_name as m_display_name',
  'm.family as m_family',
  'm.params as m_params',
  'm.params_approximate as m_params_approximate',
  'm.active_params as m_active_params',
  'm.is_moe as m_is_moe',
  'm.base_model_id as m_base_model_id',
  'm.base_hf_id as m_base_hf_id',
  'm.base_relation as m_base_relation',
  'h.details as h_details',
  'e.version as engine_version',
  'e.repository as engine_repository',
  'e.build as engine_build',
  'e.commit as engine_commit',
  'u.username as u_username',
  'u.display_name as u_display_name',
  'u.is_verified as u_is_verified',
  'u.is_demo as u_is_demo',
];

/** Runs matching `filter`, newest first. */
export async function findRuns(db: Db, profile: RevisionProfile, filter: (q: Knex.QueryBuilder) => void, page?: { limit: number; offset: number }) {
  const query = runsQuery(db)
    .select(RUN_COLUMNS)
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
