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
      // The ETag kept is the body's: a client revalidating gets its 304.
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

  it('serves nothing kept to a request with a cookie or a key or a window that moves with the clock, and keeps no refusal', async () => {
    await request(ctx.app).get('/api/leaderboard?limit=5').expect(200);
    const withKey = await request(ctx.app).get('/api/leaderboard?limit=5').set('Authorization', `Bearer ${submitter.key}`).expect(200);
    const withCookie = await submitter.agent.get('/api/leaderboard?limit=5').expect(200);
    const withPage = await submitter.agent.get('/').expect(200);
    for (const res of [withKey, withCookie, withPage]) expect(res.headers['x-read-cache']).to.equal(undefined);
    // The signed-in page names who is signed in: it is theirs alone.
    expect(withPage.text).to.include(submitter.username);
    // A window that moves with the clock is computed each time (no change notice tells when a run leaves it).
    await request(ctx.app).get('/api/leaderboard?since=7d').expect(200);
    expect((await request(ctx.app).get('/api/leaderboard?since=7d').expect(200)).headers['x-read-cache']).to.equal(undefined);
    expect((await request(ctx.app).get('/?since=30d').expect(200)).headers['x-read-cache']).to.equal(undefined);
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
