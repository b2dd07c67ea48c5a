import { startTestDatabaseServer, stopTestDatabaseServer } from './database.ts';

// Root hooks (loaded through .mocharc.json `require`): one database server per run.
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(60_000);
    await startTestDatabaseServer();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(30_000);
    await stopTestDatabaseServer();
  },
};
