import type { Knex } from 'knex';

/**
 * Owners correct and withdraw their own speed-test runs (issue 16, part 4; DECISIONS.md
 * "Statuses"): `WITHDRAWN` joins the run statuses (hidden like `REJECTED`: every read model
 * counts `APPROVED` only), and the run keeps when its owner last corrected or withdrew it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table speed_test_runs drop constraint speed_test_runs_status_check');
  await knex.raw(
    "alter table speed_test_runs add constraint speed_test_runs_status_check check (status in ('APPROVED','PENDING','REJECTED','WITHDRAWN'))",
  );
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.timestamp('corrected_at', { useTz: true });
    t.timestamp('withdrawn_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  // The older schema has no withdrawn status: such runs stay hidden, as rejected ones.
  await knex('speed_test_runs')
    .where({ status: 'WITHDRAWN' })
    .update({
      status: 'REJECTED',
      rejected_reason: knex.raw("coalesce(rejected_reason, 'Withdrawn by its owner')"),
      rejected_at: knex.raw('coalesce(rejected_at, withdrawn_at)'),
    });
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.dropColumn('withdrawn_at');
    t.dropColumn('corrected_at');
  });
  await knex.raw('alter table speed_test_runs drop constraint speed_test_runs_status_check');
  await knex.raw(
    "alter table speed_test_runs add constraint speed_test_runs_status_check check (status in ('APPROVED','PENDING','REJECTED'))",
  );
}
