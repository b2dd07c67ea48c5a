import type { Knex } from 'knex';
import { installRunDocument, runDocumentV5, runDocumentV6 } from '../src/runs/read-models/run-document.ts';

/**
 * Where a run's power came from (issue 34, "measured, not typed, power"): `measured` when the
 * measuring client sampled gpuPowerWatts during the timed window, `stated` for typed power.
 * Runs stored before gave power only as typed figures: those with power are `stated`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.text('power_source');
  });
  await knex.raw(`alter table speed_test_runs add constraint speed_test_runs_power_source_check
    check (power_source in ('measured', 'stated'))`);
  await knex.raw(`update speed_test_runs set power_source = 'stated' where power_watts is not null`);
  await installRunDocument(knex, runDocumentV6);
}

export async function down(knex: Knex): Promise<void> {
  await installRunDocument(knex, runDocumentV5);
  await knex.schema.alterTable('speed_test_runs', (t) => {
    t.dropColumn('power_source');
  });
}
