import type { Knex } from 'knex';
import { createPlausibilityService } from '../src/runs/submission/plausibility.service.ts';

/** The decode-speed roofline verdict of each run, judged at submission. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.string('plausibility', 10).notNullable().defaultTo('unknown');
    t.double('decode_bound_tok_s');
    t.string('plausibility_reason', 200);
  });
  await knex.raw(
    "alter table speed_test_runs add constraint speed_test_runs_plausibility_check check (plausibility in ('plausible','suspect','unknown'))",
  );
  await createPlausibilityService({ db: knex }).recompute();
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.dropChecks(['speed_test_runs_plausibility_check']);
    t.dropColumns('plausibility', 'decode_bound_tok_s', 'plausibility_reason');
  });
}
