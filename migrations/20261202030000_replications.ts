import type { Knex } from 'knex';
import { installRunDocument, runDocumentV6, runDocumentV7 } from '../src/runs/read-models/run-document.ts';
import { recipeColumns } from '../src/runs/submission/recipe.ts';
import { deviceKeyOf } from '../src/runs/submission/verdict.ts';
import type { DeviceFacts } from '../src/lib/hardware-devices.ts';

/**
 * Replications (DECISIONS.md "Verdicts, peers and replication"). Each run keeps its recipe
 * (`recipe`, `recipe_key`: src/runs/submission/recipe.ts) and the device it ran on
 * (`recipe_device_key`, also on its hardware profile), and may name the run it `replicates`.
 * The approved runs of the same recipe key on the same device by other users are its
 * replications: their count, the lowest and highest tokSOut of them and the run itself, and
 * their ids are kept on every run by a statement trigger, so both leaderboard read paths
 * filter on `replication_count` like any run column, and the run's document shows them.
 * When a run enters or leaves a group (approved, rejected, withdrawn, restored, corrected,
 * moved to another device by a mapping), every run of the groups it left and joined is
 * updated in the same transaction, and only where a figure changed; those updates are run
 * changes like any other, so documents, counts and the read index follow by their own
 * triggers. A run that names a run it replicates gets `replicates_note`: null when it
 * counts, else why not. Writers of one group take turns (a transaction-scoped advisory lock
 * per group), so two runs of a group approved at once still count each other.
 */

/** Runs read per statement in the backfill. */
const BATCH = 1000;

/** Why a run naming another is not counted as its replication; null when it is. */
const NOTE_SQL = `case
  when t.id is null then 'the run it names is gone'
  when t.status <> 'APPROVED' then 'the run it names is no longer approved'
  when t.user_id = r2.user_id then 'the same user measured both runs'
  when t.recipe_device_key is distinct from r2.recipe_device_key then 'measured on another device or card count (' || coalesce(r2.recipe_device_key, '?') || ', not ' || coalesce(t.recipe_device_key, '?') || ')'
  when t.recipe_key is distinct from r2.recipe_key then (
    select 'another recipe: ' || array_to_string(parts, ', ') || case when cardinality(parts) = 1 then ' differs' else ' differ' end
      from (select array_remove(array[
        case when split_part(t.recipe_key, '.', 1) <> split_part(r2.recipe_key, '.', 1) then 'the weights' end,
        case when split_part(t.recipe_key, '.', 2) <> split_part(r2.recipe_key, '.', 2) then 'the engine build' end,
        case when split_part(t.recipe_key, '.', 3) <> split_part(r2.recipe_key, '.', 3) then 'the engine flags' end,
        case when split_part(t.recipe_key, '.', 4) <> split_part(r2.recipe_key, '.', 4) then 'the workload' end
      ], null) as parts) p)
  else null end`;

/** A run's change that moves it in or out of a group, or changes what its group shows. */
const CHANGED = `(n.status, n.recipe_key, n.recipe_device_key, n.user_id, n.tok_s_out, n.replicates)
  is distinct from (o.status, o.recipe_key, o.recipe_device_key, o.user_id, o.tok_s_out, o.replicates)`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('hardware_profiles', (t) => {
    t.text('recipe_device_key');
  });
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.jsonb('recipe');
    t.text('recipe_key');
    t.text('recipe_device_key');
    t.uuid('replicates').references('speed_test_runs.id').onDelete('SET NULL');
    t.text('replicates_note');
    t.integer('replication_count').notNullable().defaultTo(0);
    t.double('replication_min_tok_s');
    t.double('replication_max_tok_s');
    t.jsonb('replication_runs').notNullable().defaultTo(knex.raw(`'[]'::jsonb`));
  });

  await backfillDeviceKeys(knex);
  await backfillRecipes(knex);

  // The replications of the runs of some groups, and the notes of runs naming some runs.
  await knex.raw(`
    create function speed_test_runs_refresh_replications(recipe_keys text[], recipe_device_keys text[], run_ids uuid[])
    returns void language sql as $$
      update speed_test_runs r
         set replication_count = a.n, replication_min_tok_s = a.lo, replication_max_tok_s = a.hi, replication_runs = a.ids
        from (
          select r2.id,
                 count(o.id)::int as n,
                 case when count(o.id) > 0 then least(min(o.tok_s_out), r2.tok_s_out) end as lo,
                 case when count(o.id) > 0 then greatest(max(o.tok_s_out), r2.tok_s_out) end as hi,
                 coalesce(jsonb_agg(o.id order by o.created_at, o.id) filter (where o.id is not null), '[]'::jsonb) as ids
            from speed_test_runs r2
            left join speed_test_runs o
              on o.recipe_key = r2.recipe_key and o.recipe_device_key = r2.recipe_device_key
             and o.status = 'APPROVED' and o.user_id <> r2.user_id
           where (r2.recipe_key, r2.recipe_device_key) in (select * from unnest(recipe_keys, recipe_device_keys))
           group by r2.id
        ) a
       where r.id = a.id
         and (r.replication_count, r.replication_min_tok_s, r.replication_max_tok_s, r.replication_runs)
             is distinct from (a.n, a.lo, a.hi, a.ids);
      update speed_test_runs r set replicates_note = x.note
        from (
          select r2.id, ${NOTE_SQL} as note
            from speed_test_runs r2
            left join speed_test_runs t on t.id = r2.replicates
           where r2.replicates is not null and (r2.id = any(run_ids) or r2.replicates = any(run_ids))
        ) x
       where r.id = x.id and r.replicates_note is distinct from x.note;
    $$`);
  await knex.raw(`
    create function speed_test_runs_replications() returns trigger language plpgsql as $$
    declare
      rk text[];
      dk text[];
      ids uuid[];
    begin
      if tg_op = 'INSERT' then
        select array_agg(id), array_agg(recipe_key), array_agg(recipe_device_key) into ids, rk, dk from new_rows;
      elsif tg_op = 'DELETE' then
        select array_agg(id), array_agg(recipe_key), array_agg(recipe_device_key) into ids, rk, dk from old_rows;
      else
        select array_agg(k.id), array_agg(k.recipe_key), array_agg(k.recipe_device_key) into ids, rk, dk from (
          select n.id, n.recipe_key, n.recipe_device_key from new_rows n join old_rows o on o.id = n.id where ${CHANGED}
          union
          select o.id, o.recipe_key, o.recipe_device_key from new_rows n join old_rows o on o.id = n.id where ${CHANGED}
        ) k;
      end if;
      if ids is not null then
        -- One writer per group at a time, in one order: a run of the group committed meanwhile is
        -- counted by the statements below, which see it once the lock is taken (read committed).
        perform pg_advisory_xact_lock(hashtextextended(g.k, 34))
           from (select distinct u.r || '@' || u.d as k from unnest(rk, dk) as u(r, d) where u.r is not null and u.d is not null order by 1) g;
        perform speed_test_runs_refresh_replications(rk, dk, ids);
      end if;
      return null;
    end $$`);
  for (const [op, tables] of [
    ['insert', 'new table as new_rows'],
    ['update', 'old table as old_rows new table as new_rows'],
    ['delete', 'old table as old_rows'],
  ] as const) {
    await knex.raw(`create trigger speed_test_runs_replications_${op} after ${op} on speed_test_runs
      referencing ${tables} for each statement execute function speed_test_runs_replications()`);
  }

  await knex.raw('create index speed_test_runs_recipe on speed_test_runs (recipe_key, recipe_device_key)');
  await knex.raw('create index speed_test_runs_replicates on speed_test_runs (replicates) where replicates is not null');
  // The ranking of replicated runs alone (`replicated=true`).
  await knex.raw(`create index speed_test_runs_board_replicated on speed_test_runs (tok_s_out desc nulls last, created_at, id)
    where status = 'APPROVED' and replication_count > 0`);

  // Every group once: the stored runs' replications.
  await knex.raw(`
    select speed_test_runs_refresh_replications(array_agg(recipe_key), array_agg(recipe_device_key), array[]::uuid[])
      from (select distinct recipe_key, recipe_device_key from speed_test_runs where recipe_key is not null) g`);
  await installRunDocument(knex, runDocumentV7);
}

/** Each profile's device key, and its runs'. */
async function backfillDeviceKeys(knex: Knex): Promise<void> {
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows: { id: string; details: DeviceFacts & { gpuCount?: number } }[] = await knex('hardware_profiles')
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .select('id', 'details');
    if (rows.length === 0) break;
    const values = JSON.stringify(rows.map((row) => ({ id: row.id, key: deviceKeyOf(row.details) })));
    await knex.raw(
      'update hardware_profiles h set recipe_device_key = v.key from jsonb_to_recordset(?::jsonb) as v(id uuid, key text) where h.id = v.id',
      [values],
    );
    after = rows.at(-1)!.id;
  }
  await knex.raw(
    'update speed_test_runs r set recipe_device_key = h.recipe_device_key from hardware_profiles h where h.id = r.hardware_id',
  );
}

/** Each run's recipe, from its columns, model and engine rows. */
async function backfillRecipes(knex: Knex): Promise<void> {
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await knex('speed_test_runs as r')
      .join('models as m', 'm.id', 'r.model_id')
      .join('engines as e', 'e.id', 'r.engine_id')
      .where('r.id', '>', after)
      .orderBy('r.id')
      .limit(BATCH)
      .select(
        'r.id',
        'm.hf_id',
        'r.model_revision',
        'r.quantization',
        'r.engine_name',
        'e.version',
        'e.build',
        'e.commit',
        'r.engine_flags',
        'r.prompt_tokens',
        'r.output_tokens',
        'r.prefill_tokens',
        'r.context_length',
        'r.batch_size',
      );
    if (rows.length === 0) break;
    const values = JSON.stringify(
      rows.map((row) => ({
        id: row.id,
        ...recipeColumns({
          hfId: row.hf_id,
          modelRevision: row.model_revision,
          quantization: row.quantization,
          engineName: row.engine_name,
          engineVersion: row.version,
          engineBuild: row.build,
          engineCommit: row.commit,
          engineFlags: row.engine_flags,
          promptTokens: row.prompt_tokens,
          outputTokens: row.output_tokens,
          prefillTokens: row.prefill_tokens,
          contextLength: row.context_length,
          batchSize: row.batch_size,
        }),
      })),
    );
    await knex.raw(
      `update speed_test_runs r set recipe = v.recipe::jsonb, recipe_key = v.recipe_key
         from jsonb_to_recordset(?::jsonb) as v(id uuid, recipe text, recipe_key text) where r.id = v.id`,
      [values],
    );
    after = rows.at(-1)!.id;
  }
}

export async function down(knex: Knex): Promise<void> {
  await installRunDocument(knex, runDocumentV6);
  for (const op of ['insert', 'update', 'delete']) await knex.raw(`drop trigger speed_test_runs_replications_${op} on speed_test_runs`);
  await knex.raw('drop function speed_test_runs_replications()');
  await knex.raw('drop function speed_test_runs_refresh_replications(text[], text[], uuid[])');
  await knex.schema.alterTable('speed_test_runs', (t) => {
    for (const column of [
      'recipe',
      'recipe_key',
      'recipe_device_key',
      'replicates',
      'replicates_note',
      'replication_count',
      'replication_min_tok_s',
      'replication_max_tok_s',
      'replication_runs',
    ])
      t.dropColumn(column);
  });
  await knex.schema.alterTable('hardware_profiles', (t) => {
    t.dropColumn('recipe_device_key');
  });
}
