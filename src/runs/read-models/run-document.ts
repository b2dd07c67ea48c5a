import type { Knex } from 'knex';

/**
 * Each speed-test run's JSON, as the API returns it (revision 3 form), kept in
 * speed_test_run_documents by triggers, so a page of runs is read as 50 ready strings: no
 * joins, no per-row mapping and no JSON.stringify in the app. A run's document is written
 * whenever the run changes, and rewritten when anything it shows (its model, hardware,
 * engine, user) changes, so it cannot go stale. Written after the row (AFTER triggers):
 * stored generated columns such as tok_per_watt are not yet computed in BEFORE triggers.
 *
 * The document is data: its keys and their SQL, the joins they read, and the tables it
 * shows. Each version is installed by a migration and is frozen: a migration must do on a
 * fresh database what it did on the live one, so a shipped version is never edited. A new
 * field is a new version, e.g.
 *   export const runDocumentV2 = extendRunDocument(runDocumentV1, { fields: [['newField', 'r.new_column']] });
 * a migration whose `up` is `installRunDocument(knex, runDocumentV2)` and whose `down`
 * reinstalls V1, and `currentRunDocument` pointed at V2.
 */

/** A JSON key of the document and the SQL of its value, over the run `r` and its joins. */
export type DocumentField = readonly [key: string, sql: string];

/** A table a document shows, the run column that points at it, and the columns shown. */
export type ShownTable = readonly [table: string, runColumn: string, shownColumns: readonly string[]];

export interface RunDocumentVersion {
  readonly version: number;
  /** In document order; the last is always `myEmoji`. */
  readonly fields: readonly DocumentField[];
  /** Joins after `from speed_test_runs r`. */
  readonly joins: readonly string[];
  /** A change to a shown column rewrites the documents of the runs that show the row. */
  readonly shownTables: readonly ShownTable[];
}

/**
 * The reader's own reaction: null in the stored text, and the last key, so the app puts
 * the reader's emoji in place of the text's trailing `null}` without parsing it (see
 * MY_EMOJI_NULL_TAIL in src/runs/run-json.ts).
 */
const MY_EMOJI: DocumentField = ['myEmoji', 'null::text'];

const selectList = (fields: readonly DocumentField[], separator: string) =>
  fields.map(([key, sql]) => `${sql} as "${key}"`).join(separator);

/** A nested JSON object with these keys, as a document field's SQL. */
export const jsonObject = (fields: readonly DocumentField[]) => `(select row_to_json(x) from (select ${selectList(fields, ', ')}) x)`;

/**
 * V1, installed by 20261122040000_run_documents.
 * Frozen: never edit after its migration has shipped; add a new version instead.
 */
export const runDocumentV1: RunDocumentVersion = {
  version: 1,
  fields: [
    ['id', 'r.id'],
    ['modelId', 'r.model_id'],
    ['hardwareId', 'r.hardware_id'],
    ['engineId', 'r.engine_id'],
    ['userId', 'r.user_id'],
    ['status', 'r.status'],
    ['createdAt', `to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`],
    ['hfId', 'm.hf_id'],
    [
      'model',
      jsonObject([
        ['id', 'm.id'],
        ['hfId', 'm.hf_id'],
        ['displayName', 'm.display_name'],
        ['family', 'm.family'],
        ['params', 'm.params'],
        ['paramsApproximate', 'm.params_approximate'],
        ['activeParams', 'm.active_params'],
        ['isMoE', 'm.is_moe'],
        ['baseHfId', 'm.base_hf_id'],
        ['baseRelation', 'm.base_relation'],
      ]),
    ],
    ['hardware', `jsonb_build_object('id', h.id) || h.details`],
    ['engineName', 'r.engine_name'],
    ['engineVersion', 'e.version'],
    ['engineRepository', 'e.repository'],
    ['engineBuild', 'e.build'],
    ['engineCommit', 'e.commit'],
    [
      'engine',
      jsonObject([
        ['id', 'e.id'],
        ['name', 'r.engine_name'],
        ['version', 'e.version'],
        ['repository', 'e.repository'],
        ['build', 'e.build'],
        ['commit', 'e.commit'],
      ]),
    ],
    ['engineFlags', 'r.engine_flags'],
    [
      'user',
      jsonObject([
        ['id', 'u.id'],
        ['username', 'u.username'],
        ['displayName', 'u.display_name'],
        ['verified', 'u.is_verified'],
        ['demo', 'u.is_demo'],
      ]),
    ],
    ['demo', 'u.is_demo'],
    ['quantization', 'r.quantization'],
    ['modelRevision', 'r.model_revision'],
    ['backend', 'r.backend'],
    ['tokSOut', 'r.tok_s_out'],
    ['tokSPrefill', 'r.tok_s_prefill'],
    ['tokSTotal', 'r.tok_s_total'],
    ['ttftMs', 'r.ttft_ms'],
    ['peakVramGb', 'r.peak_vram_gb'],
    ['promptTokens', 'r.prompt_tokens'],
    ['outputTokens', 'r.output_tokens'],
    ['contextLength', 'r.context_length'],
    ['batchSize', 'r.batch_size'],
    ['prefillTokens', 'r.prefill_tokens'],
    ['gpuPowerWatts', 'r.gpu_power_watts'],
    ['totalPowerWatts', 'r.total_power_watts'],
    ['hardwareCost', 'r.hardware_cost'],
    ['tokPerWatt', 'r.tok_per_watt'],
    ['tokPerDollar', 'r.tok_per_dollar'],
    ['plausibility', 'r.plausibility'],
    ['decodeBoundTokS', 'r.decode_bound_tok_s'],
    ['plausibilityReason', 'r.plausibility_reason'],
    ['notes', 'r.notes'],
    ['reactionCounts', 'r.reaction_counts'],
    MY_EMOJI,
  ],
  joins: [
    'join models m on m.id = r.model_id',
    'join hardware_profiles h on h.id = r.hardware_id',
    'join engines e on e.id = r.engine_id',
    'join users u on u.id = r.user_id',
  ],
  shownTables: [
    ['users', 'user_id', ['username', 'display_name', 'is_verified', 'is_demo']],
    [
      'models',
      'model_id',
      ['hf_id', 'display_name', 'family', 'params', 'params_approximate', 'active_params', 'is_moe', 'base_hf_id', 'base_relation'],
    ],
    ['engines', 'engine_id', ['name', 'version', 'repository', 'build', 'commit']],
    ['hardware_profiles', 'hardware_id', ['details']],
  ],
};

export interface RunDocumentChanges {
  /** New keys, in order; they go before `myEmoji`. */
  fields?: readonly DocumentField[];
  joins?: readonly string[];
  /** Tables or columns the new fields show (columns of a table already shown are added to it). */
  shownTables?: readonly ShownTable[];
}

/** The next version: `base` with more fields, joins and shown columns. */
export function extendRunDocument(base: RunDocumentVersion, changes: RunDocumentChanges): RunDocumentVersion {
  const keys = new Set(base.fields.map(([key]) => key));
  for (const [key] of changes.fields ?? []) {
    if (keys.has(key)) throw new Error(`run document V${base.version} already has "${key}"`);
    keys.add(key);
  }
  const shownTables = base.shownTables.map(([table, runColumn, columns]): ShownTable => {
    const more = (changes.shownTables ?? []).filter(([other]) => other === table).flatMap(([, , added]) => added);
    return [table, runColumn, [...columns, ...more.filter((column) => !columns.includes(column))]];
  });
  const shown = new Set(base.shownTables.map(([table]) => table));
  return {
    version: base.version + 1,
    fields: [...base.fields.slice(0, -1), ...(changes.fields ?? []), MY_EMOJI],
    joins: [...base.joins, ...(changes.joins ?? [])],
    shownTables: [...shownTables, ...(changes.shownTables ?? []).filter(([table]) => !shown.has(table))],
  };
}

const SIMPLE_KEY = /^[A-Za-z][A-Za-z0-9]*$/;

/** The SQL that installs a version: the document function and one follow trigger per shown table. */
export function runDocumentSql(version: RunDocumentVersion): { documentFunction: string; followTriggers: string[] } {
  const [lastKey, lastSql] = version.fields.at(-1) ?? [];
  if (lastKey !== MY_EMOJI[0] || lastSql !== MY_EMOJI[1]) throw new Error(`run document V${version.version} must end with "myEmoji": null`);
  const badKey = version.fields.find(([key]) => !SIMPLE_KEY.test(key));
  if (badKey) throw new Error(`run document V${version.version}: "${badKey[0]}" is not a plain JSON key`);
  const documentFunction = `
  create or replace function speed_test_run_document(run_id uuid) returns text language sql stable as $$
    select row_to_json(d)::text from (
      select
        ${selectList(version.fields, ',\n        ')}
      from speed_test_runs r
      ${version.joins.join('\n      ')}
      where r.id = run_id
    ) d
  $$`;
  const followTriggers = version.shownTables.map(([table, runColumn, columns]) => {
    const changed = columns.map((c) => `old.${c} is distinct from new.${c}`).join(' or ');
    return `create trigger speed_test_run_documents_follow after update of ${columns.join(', ')} on ${table}
      for each row when (${changed}) execute function speed_test_run_documents_follow('${runColumn}')`;
  });
  return { documentFunction, followTriggers };
}

/** The tables that have a follow trigger now (whichever version installed them). */
async function followedTables(knex: Knex): Promise<string[]> {
  const { rows } = await knex.raw<{ rows: { name: string }[] }>(
    `select tgrelid::regclass::text as name from pg_trigger where tgname = 'speed_test_run_documents_follow' order by 1`,
  );
  return rows.map((row) => row.name);
}

async function dropFollowTriggers(knex: Knex): Promise<void> {
  for (const table of await followedTables(knex)) await knex.raw(`drop trigger speed_test_run_documents_follow on ${table}`);
}

/**
 * Makes `version` the document: its function, its follow triggers (replacing the ones
 * there), and every run's document rewritten. Needs the table (createRunDocuments).
 */
export async function installRunDocument(knex: Knex, version: RunDocumentVersion): Promise<void> {
  const { documentFunction, followTriggers } = runDocumentSql(version);
  await knex.raw(documentFunction);
  await dropFollowTriggers(knex);
  for (const trigger of followTriggers) await knex.raw(trigger);
  await rebuildRunDocuments(knex);
}

/** The documents table, the triggers that write it, and `version` installed. */
export async function createRunDocuments(knex: Knex, version: RunDocumentVersion): Promise<void> {
  await knex.schema.createTable('speed_test_run_documents', (t) => {
    t.uuid('run_id').primary().references('speed_test_runs.id').onDelete('CASCADE');
    t.text('document').notNullable();
  });
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
  await installRunDocument(knex, version);
}

export async function dropRunDocuments(knex: Knex): Promise<void> {
  await dropFollowTriggers(knex);
  for (const op of ['insert', 'update']) await knex.raw(`drop trigger if exists speed_test_run_documents_${op} on speed_test_runs`);
  await knex.raw('drop function if exists speed_test_run_documents_follow()');
  await knex.raw('drop function if exists speed_test_run_documents_write()');
  await knex.schema.dropTable('speed_test_run_documents');
  await knex.raw('drop function if exists speed_test_run_document(uuid)');
}

/** Writes the documents of every run with the installed function (after a migration or a bulk load that skipped the triggers). */
export async function rebuildRunDocuments(knex: Knex): Promise<void> {
  await knex.raw(`
    insert into speed_test_run_documents (run_id, document)
    select r.id, speed_test_run_document(r.id) from speed_test_runs r
    on conflict (run_id) do update set document = excluded.document`);
}

/**
 * V2, installed by 20261126020000_defaulted_fields: `defaultedFields`, the fields the
 * submitter did not state (stored with the spec's defaults); null for runs stored before.
 * Frozen: never edit after its migration has shipped; add a new version instead.
 */
export const runDocumentV2 = extendRunDocument(runDocumentV1, { fields: [['defaultedFields', 'r.defaulted_fields']] });

/**
 * V3, installed by 20261127030000_run_streams: `streams`, the sequences the run generated
 * at once (batchSize x concurrency, numParallel without it; 1: a single-stream run), so
 * every answer that ranks or lists runs says which are throughput runs.
 * Frozen: never edit after its migration has shipped; add a new version instead.
 */
export const runDocumentV3 = extendRunDocument(runDocumentV2, { fields: [['streams', 'r.active_sequences']] });

/**
 * V4, installed by 20261129010000_speed_test_evidence: `verifiedRun` and
 * `verificationIssues`, the verdict on the run's evidence (false and null for runs stored before).
 * Frozen: never edit after its migration has shipped; add a new version instead.
 */
export const runDocumentV4 = extendRunDocument(runDocumentV3, {
  fields: [
    ['verifiedRun', 'r.verified_run'],
    ['verificationIssues', 'r.verification_issues'],
  ],
});

/**
 * V5, installed by 20261202010000_peer_verdicts: `verdict`, the verdict object
 * (DECISIONS.md "Verdicts, peers and replication"): the roofline's or the peer rule's
 * verdict ('not judged' for an unknown whose reason says so), its reason, the decode bound
 * and the peers the run was compared with.
 * Frozen: never edit after its migration has shipped; add a new version instead.
 */
export const runDocumentV5 = extendRunDocument(runDocumentV4, {
  fields: [
    [
      'verdict',
      `json_build_object('verdict', case when r.plausibility = 'unknown' and r.plausibility_reason like 'not judged%' then 'not judged' else r.plausibility end,
        'reason', r.plausibility_reason, 'decodeBoundTokS', r.decode_bound_tok_s, 'peers', r.verdict_peers)`,
    ],
  ],
});

/**
 * V6, installed by 20261202020000_power_source: `powerSource`, where the power behind
 * tokPerWatt came from (`measured` during the run, `stated`; null without power).
 * Frozen: never edit after its migration has shipped; add a new version instead.
 */
export const runDocumentV6 = extendRunDocument(runDocumentV5, { fields: [['powerSource', 'r.power_source']] });

/**
 * V7, installed by 20261202030000_replications: `recipe` (what to run to measure the same
 * thing: src/runs/submission/recipe.ts), `replicates` (the run this one names as the one it
 * replicates, whether it counts and why not) and `replications` (approved runs of the same
 * recipe on the same device by other users: their count, the lowest and highest tokSOut
 * among them and this run, the ratio of the two, their ids), kept on the run by the
 * migration's trigger.
 * Frozen: never edit after its migration has shipped; add a new version instead.
 */
export const runDocumentV7 = extendRunDocument(runDocumentV6, {
  fields: [
    ['recipe', 'r.recipe'],
    [
      'replicates',
      `case when r.replicates is null then null else json_build_object('runId', r.replicates, 'counted', r.replicates_note is null, 'reason', r.replicates_note) end`,
    ],
    [
      'replications',
      jsonObject([
        ['count', 'r.replication_count'],
        ['minTokS', 'r.replication_min_tok_s'],
        ['maxTokS', 'r.replication_max_tok_s'],
        ['spread', 'case when r.replication_min_tok_s > 0 then round((r.replication_max_tok_s / r.replication_min_tok_s)::numeric, 3) end'],
        ['runs', 'r.replication_runs'],
      ]),
    ],
  ],
});

/** The version the latest migration installs. */
export const currentRunDocument = runDocumentV7;
