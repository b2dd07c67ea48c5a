import { startSharedTestDatabaseServer, stopTestDatabaseServer } from './database.ts';

// Global fixtures (loaded through .mocharc.json `require`); they run once per run, in the
// main mocha process, never in parallel workers.
//
// Parallel (`npm test`): the workers share one server and one migrated template, so the
// main process starts them before any worker is forked and hands them over through the
// environment (see database.ts). Serial runs (a single file, the e2e and embedded suites)
// start the server on first use in the process itself. Either way the teardown drops every
// database of the run and stops the embedded server.
// `this` is mocha's runner (its parallel runner in --parallel runs).
export async function mochaGlobalSetup(this: { isParallelMode?(): boolean }) {
  if (this.isParallelMode?.()) await startSharedTestDatabaseServer();
}

export async function mochaGlobalTeardown() {
  await stopTestDatabaseServer();
}
