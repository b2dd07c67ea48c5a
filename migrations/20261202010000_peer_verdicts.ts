import type { Knex } from 'knex';
import { installRunDocument, runDocumentV4, runDocumentV5 } from '../src/runs/read-models/run-document.ts';

/**
 * Peer verdicts (issue 34, DECISIONS.md "Verdicts, peers and replication"): a run may now be
 * an `outlier`, far above every comparable approved run; it names the peers it was compared
 * with (`verdict_peers`). `device_key` (resolved device and card count) and `setup_key`
 * (weights on that device) say which runs are peers; null for runs no peer rule applies to.
 * When a run joins or leaves a device's board (submitted, corrected, rejected, restored,
 * withdrawn, its device re-resolved) the trigger queues the device, and the re-judging in
 * the background (src/runs/submission/plausibility.service.ts `rejudgeQueued`) judges its
 * runs again. The keys of stored runs are filled by the re-judging after this deploy (the
 * rules' fingerprint changed).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.text('device_key');
    t.text('setup_key');
    t.jsonb('verdict_peers');
  });
  await knex.raw('alter table speed_test_runs drop constraint speed_test_runs_plausibility_check');
  await knex.raw(
    "alter table speed_test_runs add constraint speed_test_runs_plausibility_check check (plausibility in ('plausible','suspect','outlier','unknown'))",
  );
  await knex.raw(
    "create index speed_test_runs_peers on speed_test_runs (device_key) include (setup_key, user_id, tok_s_out, decode_bound_tok_s, plausibility) where status = 'APPROVED' and device_key is not null",
  );
  await knex.schema.createTable('peer_rejudge_queue', (t) => {
    t.text('device_key').primary();
    t.timestamp('queued_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`
    create function speed_test_runs_queue_peers() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') and old.device_key is not null and (tg_op = 'DELETE'
          or (old.status, old.device_key, old.setup_key, old.tok_s_out, old.decode_bound_tok_s, old.user_id, old.plausibility = 'suspect')
             is distinct from (new.status, new.device_key, new.setup_key, new.tok_s_out, new.decode_bound_tok_s, new.user_id, new.plausibility = 'suspect')) then
        insert into peer_rejudge_queue (device_key) values (old.device_key) on conflict do nothing;
      end if;
      if tg_op in ('INSERT', 'UPDATE') and new.device_key is not null and (tg_op = 'INSERT'
          or (old.status, old.device_key, old.setup_key, old.tok_s_out, old.decode_bound_tok_s, old.user_id, old.plausibility = 'suspect')
             is distinct from (new.status, new.device_key, new.setup_key, new.tok_s_out, new.decode_bound_tok_s, new.user_id, new.plausibility = 'suspect')) then
        insert into peer_rejudge_queue (device_key) values (new.device_key) on conflict do nothing;
      end if;
      return null;
    end $$`);
  await knex.raw(
    'create trigger speed_test_runs_queue_peers after insert or update or delete on speed_test_runs for each row execute function speed_test_runs_queue_peers()',
  );
  await installRunDocument(knex, runDocumentV5);
}

export async function down(knex: Knex): Promise<void> {
  await installRunDocument(knex, runDocumentV4);
  await knex.raw('drop trigger speed_test_runs_queue_peers on speed_test_runs');
  await knex.raw('drop function speed_test_runs_queue_peers()');
  await knex.schema.dropTable('peer_rejudge_queue');
  await knex.raw("update speed_test_runs set plausibility = 'plausible' where plausibility = 'outlier'");
  await knex.raw('alter table speed_test_runs drop constraint speed_test_runs_plausibility_check');
  await knex.raw(
    "alter table speed_test_runs add constraint speed_test_runs_plausibility_check check (plausibility in ('plausible','suspect','unknown'))",
  );
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.dropColumn('device_key');
    t.dropColumn('setup_key');
    t.dropColumn('verdict_peers');
  });
}
