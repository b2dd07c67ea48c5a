import type { Knex } from 'knex';
import { recountRuns } from './run-counts.ts';
import { rebuildRunCube } from './run-cube.ts';
import { rebuildRunDocuments } from './run-document.ts';

/**
 * The read models of the runs, each kept by triggers in the writing transaction, and how
 * each is rebuilt from the runs in its current version.
 */
const REBUILDS: readonly [table: string, rebuild: (knex: Knex) => Promise<void>][] = [
  ['speed_test_run_counts', (knex) => recountRuns(knex)],
  ['speed_test_run_cube', rebuildRunCube],
  ['speed_test_run_documents', rebuildRunDocuments],
];

/**
 * Rebuilds every read model from the stored runs, after a bulk load that bypassed the
 * triggers (session_replication_role = replica); `rebuilt` hears of each table when done.
 */
export async function rebuildReadModels(knex: Knex, rebuilt: (table: string) => void = () => {}): Promise<void> {
  for (const [table, rebuild] of REBUILDS) {
    await rebuild(knex);
    rebuilt(table);
  }
}
