import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import request from 'supertest';
import { seedDemoCatalogue } from '../../src/db/seeds/demo-models.ts';
import { seedDemoRuns } from '../../src/db/seeds/demo-runs.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { useTestApp } from '../helpers/app.ts';

describe('demo data', () => {
  const ctx = useTestApp();

  before(async function () {
    this.timeout(60_000);
    await seedDemoCatalogue(ctx.db);
  });

  it('adds demo users and a few hundred runs across every hardware class, none of them suspect', async function () {
    this.timeout(60_000);
    const seeded = await seedDemoRuns(ctx.db, getRevisionProfile(3), { runs: 300, now: ctx.clock.now() });
    expect(seeded).to.deep.equal({ users: 8, runs: 300 });
    const classes = await ctx.db('speed_test_runs').distinct('hw_class').pluck('hw_class');
    expect(classes.sort()).to.deep.equal(['CPU_ONLY', 'DISCRETE_GPU', 'UNIFIED']);
    const verdicts = await ctx.db('speed_test_runs').select('plausibility').count('* as n').groupBy('plausibility');
    expect(verdicts.map((v) => v.plausibility)).not.to.include('suspect');
    expect(await ctx.db('users').where({ is_demo: false }).count('* as n').first()).to.deep.equal({ n: 0 });
    const counted = await ctx.db('models').sum('benchmark_count as n').first();
    expect(Number(counted!.n)).to.equal(300);
  });

  it('adds nothing the second time', async () => {
    expect(await seedDemoRuns(ctx.db, getRevisionProfile(3))).to.deep.equal({ users: 0, runs: 0 });
    expect((await ctx.db('speed_test_runs').count('* as n').first())!.n).to.equal(300);
  });

  it('marks demo runs and users as demo in the API and on the pages', async () => {
    const board = await request(ctx.app).get('/api/leaderboard').query({ limit: '5' }).expect(200);
    expect(board.body.total).to.equal(300);
    for (const row of board.body.rows) {
      expect(row.demo).to.equal(true);
      expect(row.user.demo).to.equal(true);
    }
    const page = await request(ctx.app).get('/').expect(200);
    expect(page.text).to.include('<span class="badge badge-muted" title="sample data">demo</span>');
  });

  it('is refused by npm run seed:demo when NODE_ENV=production', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/seed-demo.ts'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40), PUBLIC_URL: 'https://bench.example', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    });
    expect(result.status).to.equal(1);
    expect(result.stderr).to.include('Refusing to add demo data with NODE_ENV=production');
  });
});
