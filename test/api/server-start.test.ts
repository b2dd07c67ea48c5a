import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { startServer } from '../../src/server.ts';
import { createLogger } from '../../src/logger.ts';
import { demoModels } from '../../src/db/seeds/demo-models.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { createOfflineServices } from '../../src/services/index.ts';

/** The accounts of a database, as the app's container builds them. */
const usersOf = (db: TestDatabase['db']) => createOfflineServices(db, getRevisionProfile(3)).users;
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { testConfig } from '../helpers/app.ts';

describe('server start-up on DATABASE_URL', function () {
  this.timeout(30_000);
  let database: TestDatabase;

  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database.drop();
  });

  async function boot(env: Record<string, string>) {
    const running = await startServer(testConfig({ DATABASE_URL: database.url, PORT: '0', ...env }), createLogger('silent'));
    const health = await fetch(`${running.url}/healthz`);
    await running.stop();
    return health;
  }

  it('migrates, seeds the demo catalogue with its finetune tree and creates the configured admin', async () => {
    const health = await boot({ ADMIN_USERNAME: 'SiteAdmin', ADMIN_PASSWORD: 'first admin password' });
    expect(health.status).to.equal(200);

    const models = await database.db('models').select('hf_id', 'base_model_id', 'base_relation');
    expect(models).to.have.length(demoModels.length);
    const byHfId = new Map(models.map((m) => [m.hf_id, m]));
    const base = await database.db('models').where({ hf_id: 'meta-llama/Llama-3.1-8B' }).first('id');
    expect(byHfId.get('meta-llama/Llama-3.1-8B-Instruct')).to.include({ base_model_id: base.id, base_relation: 'finetune' });

    const admin = await usersOf(database.db).findByUsername('siteadmin');
    expect(admin).to.include({ username: 'SiteAdmin', isAdmin: true });
    expect(await usersOf(database.db).verifyCredentials('SiteAdmin', 'first admin password')).to.not.equal(null);
  });

  it('on a second start keeps the data, seeds nothing twice and updates the admin password', async () => {
    await boot({ ADMIN_USERNAME: 'siteadmin', ADMIN_PASSWORD: 'second admin password' });
    expect((await database.db('models').count('* as n'))[0]!.n).to.equal(demoModels.length);
    expect(await database.db('users').count('* as n').first()).to.deep.equal({ n: 1 });
    expect(await usersOf(database.db).verifyCredentials('SiteAdmin', 'first admin password')).to.equal(null);
    expect(await usersOf(database.db).verifyCredentials('SiteAdmin', 'second admin password')).to.include({ isAdmin: true });
  });

  it('makes an existing ordinary account admin', async () => {
    await database.db('users').update({ is_admin: false });
    await boot({ ADMIN_USERNAME: 'SITEADMIN', ADMIN_PASSWORD: 'third admin password' });
    expect(await usersOf(database.db).findByUsername('SiteAdmin')).to.include({ isAdmin: true });
  });

  describe('npm run admin', () => {
    const runAdminCli = (args: string[], stdin: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], {
        input: stdin,
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: database.url, ADMIN_PASSWORD: '', ADMIN_USERNAME: '' },
      });

    it('creates an admin with the password read from stdin', async () => {
      const result = runAdminCli(['cli_admin'], 'a cli admin password\n');
      expect(result.stdout).to.include('cli_admin is an admin');
      expect(result.status).to.equal(0);
      expect(await usersOf(database.db).verifyCredentials('cli_admin', 'a cli admin password')).to.include({
        isAdmin: true,
        isVerified: true,
      });
    });

    it('refuses a short password with the field message and exit code 1', async () => {
      const result = runAdminCli(['cli_admin2'], 'short\n');
      expect(result.status).to.equal(1);
      expect(result.stderr).to.include('password: Password must be at least 10 characters');
      expect(await usersOf(database.db).findByUsername('cli_admin2')).to.equal(null);
    });
  });
});
