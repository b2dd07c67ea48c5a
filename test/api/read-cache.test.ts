/**
 * Anonymous reads answered from memory (src/middleware/read-cache.ts, issue 37): the same
 * bytes and headers without a query while nothing changes; a change is in the next read of
 * the instance that wrote it and in other instances' reads within the notify delay; nothing
 * that could depend on who asks is kept or served.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { Express } from 'express';
import { useTestApp } from '../helpers/app.ts';
import { account, submitRun } from '../helpers/moderation.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/read-index.ts';

const ready = (app: Express) =>
  waitFor(async () => (await request(app).get('/healthz').expect(200)).body.readIndex.state === 'ready', 15_000, 'the read index built');

describe('anonymous read answers kept until the next change', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  let submitter: Awaited<ReturnType<typeof account>>;

  before(async () => {
    await ready(ctx.app);
    submitter = await account(ctx);
    await submitRun(ctx, submitter);
  });

  /** How many queries the app's database saw while `work` ran. */
  async function queriesDuring(work: () => Promise<unknown>): Promise<number> {
    let queries = 0;
    const count = () => (queries += 1);
    ctx.db.on('query', count);
    try {
      await work();
    } finally {
      ctx.db.off('query', count);
    }
    return queries;
  }

  for (const path of ['/api/leaderboard?limit=5', '/api/speed-tests?limit=5', '/api/models/search?q=llama', '/']) {
    it(`answers ${path} again with the same bytes and headers and no query`, async () => {
      const first = await request(ctx.app).get(path).buffer(true).expect(200);
      let again!: request.Response;
      expect(await queriesDuring(async () => (again = await request(ctx.app).get(path).buffer(true).expect(200)))).to.equal(0);
      expect([first.headers['x-read-cache'], again.headers['x-read-cache']]).to.deep.equal(['miss', 'hit']);
      expect(again.text).to.equal(first.text);
      for (const header of ['content-type', 'etag', 'vary', 'cache-control'])
        expect(again.headers[header], header).to.equal(first.headers[header]);
      // The ETag names the answer's version (no hash of the body): a client revalidating gets its 304.
      expect(first.headers.etag).to.match(/^W\//);
      await request(ctx.app).get(path).set('If-None-Match', first.headers.etag).expect(304);
      expect(again.headers['x-request-id']).to.not.equal(first.headers['x-request-id']);
    });
  }

  it('keeps an htmx fragment apart from the whole page', async () => {
    const page = await request(ctx.app).get('/').expect(200);
    const fragment = await request(ctx.app).get('/').set('HX-Request', 'true').expect(200);
    const fragmentAgain = await request(ctx.app).get('/').set('HX-Request', 'true').expect(200);
    expect(page.text).to.include('<html');
    expect(fragment.text).to.not.include('<html');
    expect(fragmentAgain.text).to.equal(fragment.text);
  });

  it('keeps an answer with a window that moves with the clock until its oldest run leaves the window, to the millisecond', async () => {
    // No change notice tells when a run leaves `since=7d`: the answer says when its oldest run does, and is kept until then.
    const started = ctx.clock.now().getTime();
    const [oldest] = await ctx.db('speed_test_runs').where({ status: 'APPROVED' }).min('created_at as at');
    const leavesWeek = new Date(oldest.at).getTime() + 7 * 86_400_000;
    const leavesMonth = new Date(oldest.at).getTime() + 30 * 86_400_000;
    try {
      for (const [path, leaves] of [
        ['/api/leaderboard?since=7d', leavesWeek],
        ['/?since=30d', leavesMonth],
      ] as const) {
        ctx.clock.set(new Date(started));
        const first = await request(ctx.app).get(path).expect(200);
        expect(first.headers['x-read-cache'], path).to.equal('miss');
        // The last millisecond the oldest run is in the window: still the same answer.
        ctx.clock.set(new Date(leaves));
        const kept = await request(ctx.app).get(path).expect(200);
        expect(kept.headers['x-read-cache'], `${path} while its oldest run is in the window`).to.equal('hit');
        expect(kept.text).to.equal(first.text);
        // A millisecond later it has left: computed afresh, without it.
        ctx.clock.set(new Date(leaves + 1));
        const after = await request(ctx.app).get(path).expect(200);
        expect(after.headers['x-read-cache'], `${path} once it has left`).to.equal('miss');
        expect(after.text).to.not.equal(first.text);
      }
      const left = await request(ctx.app).get('/api/leaderboard?since=7d').expect(200);
      expect(left.body.total).to.equal(0);
    } finally {
      ctx.clock.set(new Date(started));
    }
  });

  it('serves nothing kept to a request with a cookie or a key, and keeps no refusal', async () => {
    await request(ctx.app).get('/api/leaderboard?limit=5').expect(200);
    const withKey = await request(ctx.app).get('/api/leaderboard?limit=5').set('Authorization', `Bearer ${submitter.key}`).expect(200);
    const withCookie = await submitter.agent.get('/api/leaderboard?limit=5').expect(200);
    const withPage = await submitter.agent.get('/').expect(200);
    for (const res of [withKey, withCookie, withPage]) expect(res.headers['x-read-cache']).to.equal(undefined);
    // The signed-in page names who is signed in: it is theirs alone.
    expect(withPage.text).to.include(submitter.username);
    await request(ctx.app).get('/api/leaderboard?limit=0').expect(400);
    const refusedAgain = await request(ctx.app).get('/api/leaderboard?limit=0').expect(400);
    expect(refusedAgain.headers['x-read-cache']).to.equal('miss');
    expect(refusedAgain.body.error).to.equal('Validation failed');
  });

  it("shows a run in the writer instance's next read, and in another instance's within the notify delay", async () => {
    const other = ctx.appWith({});
    await ready(other);
    const ids = async (app: Express) =>
      ((await request(app).get('/api/leaderboard?limit=100').expect(200)).body.rows as { id: string }[]).map((row) => row.id);
    const totalOf = async (app: Express) => (await request(app).get('/api/speed-tests?limit=1').expect(200)).body.total as number;
    // Both instances have kept their answers.
    const [before, beforeOther, total] = [await ids(ctx.app), await ids(other), await totalOf(ctx.app)];
    expect(beforeOther).to.deep.equal(before);
    const run = await submitRun(ctx, submitter);
    // The writer's instance waited for its own change before answering: the very next read has it.
    expect(await ids(ctx.app)).to.include(run.id);
    expect(await totalOf(ctx.app)).to.equal(total + 1);
    await waitFor(async () => (await ids(other)).includes(run.id), 5000, 'the other instance shows the run');
    // A run written through the other instance reaches this one too.
    ctx.clock.advance(10 * 60_000);
    const res = await request(other)
      .post('/api/speed-tests')
      .set('Authorization', `Bearer ${submitter.key}`)
      .send(validSubmission({ hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 } }))
      .expect(201);
    const otherRunId = (res.body.id ?? res.body.benchmark?.id) as string;
    expect(otherRunId).to.be.a('string');
    await waitFor(async () => (await ids(ctx.app)).includes(otherRunId), 5000, 'this instance shows the other run');
    expect(await totalOf(ctx.app)).to.equal(total + 2);
  });

  it('keeps nothing with READ_INDEX_ANSWER_CACHE_MB=0', async () => {
    const uncached = ctx.appWith({ READ_INDEX_ANSWER_CACHE_MB: '0' });
    await ready(uncached);
    await request(uncached).get('/api/speed-tests?limit=3').expect(200);
    const again = await request(uncached).get('/api/speed-tests?limit=3').expect(200);
    expect(again.headers['x-read-cache']).to.equal(undefined);
  });
});
