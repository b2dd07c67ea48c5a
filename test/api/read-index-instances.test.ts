/**
 * Two app instances on one database, each with its own read index kept fresh by
 * LISTEN/NOTIFY (READ_INDEX_FRESHNESS=notify, as deployed): a change made through one is
 * visible through it at once (it waits for its own change before answering) and through
 * the other within one second. Also: /healthz says how an instance answers, and a lost
 * listener connection makes the instance answer through the database and rebuild.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { Express } from 'express';
import { useTestApp } from '../helpers/app.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';
import { waitFor } from '../helpers/read-index.ts';

const NOTIFY = { READ_INDEX_FRESHNESS: 'notify' };

describe('Read index: two instances on one database', function () {
  this.timeout(30_000);
  const ctx = useTestApp(NOTIFY, { fakeHub: true });
  let other: Express;
  let admin: Account;
  let submitter: Account;

  const readIndexOf = async (app: Express) => (await request(app).get('/healthz').expect(200)).body.readIndex as { state: string; runs: number | null };
  const boardIds = async (app: Express, query = '') => ((await request(app).get(`/api/leaderboard${query}`).expect(200)).body.rows as { id: string }[]).map((row) => row.id);
  const listIds = async (app: Express, query = '') => ((await request(app).get(`/api/speed-tests${query}`).expect(200)).body.benchmarks as { id: string }[]).map((row) => row.id);

  /** Milliseconds until `seen` holds through `app` (fails past one second). */
  async function within1s(app: Express, seen: (app: Express) => Promise<boolean>): Promise<number> {
    const started = Date.now();
    await waitFor(() => seen(app), 1000, 'the change through the other instance');
    return Date.now() - started;
  }

  before(async () => {
    other = ctx.appWith(NOTIFY);
    admin = await account(ctx, 'admin', { admin: true });
    submitter = await account(ctx, 'submitter');
    await waitFor(async () => (await readIndexOf(ctx.app)).state === 'ready' && (await readIndexOf(other)).state === 'ready', 10_000, 'both indexes built');
  });

  it('says in /healthz that the index is ready and how many runs it holds', async () => {
    await submitRun(ctx, submitter);
    expect(await readIndexOf(ctx.app)).to.deep.equal({ state: 'ready', runs: 1 });
  });

  it('shows a submission through the instance that took it at once, and through the other within a second', async () => {
    const run = await submitRun(ctx, submitter, { tokSOut: 61.5 });
    expect(await boardIds(ctx.app), 'the submitting instance').to.include(run.id);
    expect(await listIds(ctx.app), 'the submitting instance').to.include(run.id);
    await within1s(other, async (app) => (await boardIds(app)).includes(run.id) && (await listIds(app)).includes(run.id));
    expect((await request(other).get('/api/leaderboard').expect(200)).body.total).to.equal(2);
  });

  it('takes a rejected run out of both: the admin\'s instance at once, the other within a second', async () => {
    const run = await submitRun(ctx, submitter, { tokSOut: 63 });
    await within1s(other, async (app) => (await boardIds(app)).includes(run.id));
    await admin.agent.post(`/admin/runs/${run.id}/reject`).type('form').send({ _csrf: admin.csrf, reason: 'implausible' }).expect(303);
    expect(await boardIds(ctx.app)).not.to.include(run.id);
    await within1s(other, async (app) => !(await boardIds(app)).includes(run.id) && !(await listIds(app)).includes(run.id));
  });

  it('moves runs between verified and unverified in both when their user is verified', async () => {
    expect(await boardIds(other, '?verified=true')).to.deep.equal([]);
    // Through the other instance this time: it applies the change before answering.
    const viaOther = { ...admin, agent: request.agent(other) };
    const signIn = await viaOther.agent.get('/signin').expect(200);
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(signIn.text)![1]!;
    await viaOther.agent.post('/signin').type('form').send({ username: admin.username, password: 'correct horse battery', _csrf: csrf }).expect(303);
    const page = await viaOther.agent.get('/admin').expect(200);
    const adminCsrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page.text)![1]!;
    await viaOther.agent.post(`/admin/users/${submitter.id}/verification`).type('form').send({ _csrf: adminCsrf, verified: 'true' }).expect(303);
    const verified = await boardIds(other, '?verified=true');
    expect(verified, 'the instance that verified').to.have.length(2);
    await within1s(ctx.app, async (app) => (await boardIds(app, '?verified=true')).length === 2 && (await boardIds(app, '?verified=false')).length === 0);
  });

  it('answers through the database while its listener is lost, and rebuilds', async () => {
    const lost = ctx.appWith(NOTIFY);
    await waitFor(async () => (await readIndexOf(lost)).state === 'ready', 10_000, 'third index built');
    // End the listener's connection from the server side, as a failover or restart would.
    await ctx.db.raw("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'read-index-listener' and datname = current_database()");
    await waitFor(async () => (await readIndexOf(lost)).state === 'building', 2000, 'the index dropped');
    // Meanwhile the database answers: what changed while nobody listened is there.
    const run = await submitRun(ctx, submitter, { tokSOut: 64 });
    expect(await boardIds(lost)).to.include(run.id);
    await waitFor(async () => (await readIndexOf(lost)).state === 'ready', 10_000, 'the index rebuilt');
    expect(await boardIds(lost)).to.include(run.id);
    expect((await readIndexOf(lost)).runs).to.equal(Number((await ctx.db('speed_test_runs').where({ status: 'APPROVED' }).count<{ n: number }[]>('* as n'))[0]!.n));
  });

  it('rebuilds from the table when told to (`*`: a TRUNCATE, or a statement touching over 20,000 runs)', async () => {
    await waitFor(async () => (await readIndexOf(ctx.app)).state === 'ready' && (await readIndexOf(other)).state === 'ready', 10_000, 'both indexes ready');
    expect((await readIndexOf(other)).runs).to.be.above(0);
    // A TRUNCATE fires no row triggers: only the '*' notice tells the instances.
    await ctx.db.raw('truncate speed_test_runs cascade');
    for (const app of [ctx.app, other]) {
      await waitFor(async () => {
        const index = await readIndexOf(app);
        return index.state === 'ready' && index.runs === 0;
      }, 5000, 'the index rebuilt empty');
      expect(await boardIds(app)).to.deep.equal([]);
      expect(await listIds(app)).to.deep.equal([]);
    }
  });
});
