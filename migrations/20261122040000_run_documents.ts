import type { Knex } from 'knex';

/**
 * Each speed-test run's JSON, as the API returns it (revision 3 form), kept in its own
 * table by triggers so a page of runs is read as 50 ready strings: no joins, no per-row
 * mapping and no JSON.stringify in the app. The document is rebuilt whenever the run or
 * anything it shows (its model, hardware, engine, user) changes, so it cannot go stale;
 * `myEmoji` is the last key and stays null (it depends on the reader; see run-reads.ts).
 *
 * Written after the row (AFTER triggers), because stored generated columns such as
 * tok_per_watt are not yet computed in BEFORE triggers.
 */
const DOCUMENT_FUNCTION = `
  create or replace function speed_test_run_document(run_id uuid) returns text language sql stable as $$
    select row_to_json(d)::text from (
      select
        r.id as "id", r.model_id as "modelId", r.hardware_id as "hardwareId", r.engine_id as "engineId",
        r.user_id as "userId", r.status as "status",
        to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
        m.hf_id as "hfId",
        (select row_to_json(x) from (select m.id as "id", m.hf_id as "hfId", m.display_name as "displayName",
           m.family as "family", m.params as "params", m.params_approximate as "paramsApproximate",
           m.active_params as "activeParams", m.is_moe as "isMoE", m.base_hf_id as "baseHfId",
           m.base_relation as "baseRelation") x) as "model",
        jsonb_build_object('id', h.id) || h.details as "hardware",
        r.engine_name as "engineName", e.version as "engineVersion", e.repository as "engineRepository",
        e.build as "engineBuild", e.commit as "engineCommit",
        (select row_to_json(x) from (select e.id as "id", r.engine_name as "name", e.version as "version",
           e.repository as "repository", e.build as "build", e.commit as "commit") x) as "engine",
        r.engine_flags as "engineFlags",
        (select row_to_json(x) from (select u.id as "id", u.username as "username", u.display_name as "displayName",
           u.is_verified as "verified", u.is_demo as "demo") x) as "user",
        u.is_demo as "demo",
        r.quantization as "quantization", r.model_revision as "modelRevision", r.backend as "backend",
        r.tok_s_out as "tokSOut", r.tok_s_prefill as "tokSPrefill", r.tok_s_total as "tokSTotal",
        r.ttft_ms as "ttftMs", r.peak_vram_gb as "peakVramGb", r.prompt_tokens as "promptTokens",
        r.output_tokens as "outputTokens", r.context_length as "contextLength", r.batch_size as "batchSize",
        r.prefill_tokens as "prefillTokens", r.gpu_power_watts as "gpuPowerWatts",
        r.total_power_watts as "totalPowerWatts", r.hardware_cost as "hardwareCost",
        r.tok_per_watt as "tokPerWatt", r.tok_per_dollar as "tokPerDollar",
        r.plausibility as "plausibility", r.decode_bound_tok_s as "decodeBoundTokS",
        r.plausibility_reason as "plausibilityReason", r.notes as "notes",
        r.reaction_counts as "reactionCounts",
        null::text as "myEmoji"
      from speed_test_runs r
      join models m on m.id = r.model_id
      join hardware_profiles h on h.id = r.hardware_id
      join engines e on e.id = r.engine_id
      join users u on u.id = r.user_id
      where r.id = run_id
    ) d
  $$`;

/** The tables a document shows, with the run column that points at them. */
const SHOWN_TABLES: readonly [table: string, runColumn: string, shownColumns: string][] = [
  ['users', 'user_id', 'username, display_name, is_verified, is_demo'],
  ['models', 'model_id', 'hf_id, display_name, family, params, params_approximate, active_params, is_moe, base_hf_id, base_relation'],
  ['engines', 'engine_id', 'name, version, repository, build, commit'],
  ['hardware_profiles', 'hardware_id', 'details'],
];

/** Writes the documents of every run (after a migration or a bulk load that skipped the triggers). */
export async function rebuildRunDocuments(knex: Knex): Promise<void> {
  await knex.raw(`
    insert into speed_test_run_documents (run_id, document)
    select r.id, speed_test_run_document(r.id) from speed_test_runs r
    on conflict (run_id) do update set document = excluded.document`);
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('speed_test_run_documents', (t) => {
    t.uuid('run_id').primary().references('speed_test_runs.id').onDelete('CASCADE');
    t.text('document').notNullable();
  });
  await knex.raw(DOCUMENT_FUNCTION);

  await knex.raw(`
    create function speed_test_run_documents_write() returns trigger language plpgsql as $$
    begin
      insert into speed_test_run_documents (run_id, document)
      select n.id, speed_test_run_document(n.id) from new_rows n
      on conflict (run_id) do update set document = excluded.document;
      return null;
    end $$`);
  for (const op of ['insert', 'update']) {
    await knex.raw(`create trigger speed_test_run_documents_${op} after ${op} on speed_test_runs
      referencing new table as new_rows for each statement execute function speed_test_run_documents_write()`);
  }

  // A change to what a document shows rewrites the documents of the runs that show it.
  await knex.raw(`
    create function speed_test_run_documents_follow() returns trigger language plpgsql as $$
    begin
      execute format(
        'update speed_test_run_documents d set document = speed_test_run_document(d.run_id)
         from speed_test_runs r where r.id = d.run_id and r.%I = $1', tg_argv[0]) using new.id;
      return null;
    end $$`);
  for (const [table, runColumn, shown] of SHOWN_TABLES) {
    const columns = shown.split(', ');
    const changed = columns.map((c) => `old.${c} is distinct from new.${c}`).join(' or ');
    await knex.raw(`create trigger speed_test_run_documents_follow after update of ${shown} on ${table}
      for each row when (${changed}) execute function speed_test_run_documents_follow('${runColumn}')`);
  }

  await rebuildRunDocuments(knex);
}

export async function down(knex: Knex): Promise<void> {
  for (const [table] of SHOWN_TABLES) await knex.raw(`drop trigger if exists speed_test_run_documents_follow on ${table}`);
  for (const op of ['insert', 'update']) await knex.raw(`drop trigger if exists speed_test_run_documents_${op} on speed_test_runs`);
  await knex.raw('drop function if exists speed_test_run_documents_follow()');
  await knex.raw('drop function if exists speed_test_run_documents_write()');
  await knex.schema.dropTable('speed_test_run_documents');
  await knex.raw('drop function if exists speed_test_run_document(uuid)');
}
