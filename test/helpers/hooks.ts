import { stopTestDatabaseServer } from './database.ts';

// Root hooks (loaded through .mocharc.json `require`): the test database server is
// started by the first file that needs one and stopped once at the end of the run.
export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(30_000);
    await stopTestDatabaseServer();
  },
};
