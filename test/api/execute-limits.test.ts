/**
 * What keeps one caller of server-side execution from hurting others: the queue cap holds
 * under concurrent requests, dry-runs are limited per user and per address, a hostile
 * target's huge answer is not read (the event loop stays free), and a target that never
 * answers holds a dry-run no longer than its deadline.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import request from 'supertest';
import { EXECUTE_LIMITS } from '../../src/schemas/execute.schema.ts';
import { useTestApp } from '../helpers/app.ts';
import { executeBody, FAST_EXECUTION_TIMING } from '../helpers/executions.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';
import { bearer, registeredApprovedSuite } from '../helpers/quality.ts';
import { worstHealthLatencyDuring } from '../helpers/stall.ts';

const root = '/api/benchmarks';
const DRY_RUN_DEADLINE_MS = 2000;

/** A target whose model list is `bytes` of valid JSON (a hostile answer), sent with no Content-Length. */
async function hugeModelList(bytes: number) {
  const names = JSON.stringify(Array.from({ length: Math.ceil(bytes / 40) }, (_, n) => ({ id: `model-${n}`, object: 'model' })));
  const body = Buffer.from(`{"object":"list","data":${names}}`);
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url?.endsWith('/models')) res.end(body);
    else res.end(JSON.stringify({ choices: [{ message: { content: 'ready' } }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: body.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('Execution limits (queue cap, dry-run limits, hostile targets)', () => {
  // No workers: queued jobs stay queued, so the cap is all that is measured.
  const ctx = useTestApp(
    { API_REVISION: '3', EXECUTE_WORKERS: '0', EXECUTE_ALLOW_HOSTS: '127.0.0.1' },
    { fakeHub: true, executionTiming: { ...FAST_EXECUTION_TIMING, dryRunDeadlineMs: DRY_RUN_DEADLINE_MS } },
  );
  let target: FakeOpenAi;
  let ada: Account;
  let suite: Record<string, any>;

  before(async () => {
    target = await startFakeOpenAi();
    ada = await account(ctx, 'ada');
    suite = await registeredApprovedSuite(ctx, root, ada);
    // Catalogued, so the concurrent requests below do not each ask the (fake) hub.
    await submitRun(ctx, ada, { hfId: fakeHubModels.dense });
  });
  after(() => target.close());
  beforeEach(async () => {
    target.mode = 'normal';
    await ctx.db('rate_limit_counters').delete();
  });

  const dryRun = (who: Account, body: Record<string, unknown>) =>
    request(ctx.app).post(`${root}/execute/dry-run`).set(bearer(who)).send(body);

  it(`accepts at most ${EXECUTE_LIMITS.queuedPerUser} of 40 concurrent executions of one user`, async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => request(ctx.app).post(`${root}/execute`).set(bearer(ada)).send(executeBody(suite.slug, target))),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 202)).to.have.length(EXECUTE_LIMITS.queuedPerUser);
    expect(answers.filter((res) => res.status !== 202 && res.status !== 429).map((res) => res.body)).to.deep.equal([]);
    const refused = answers.find((res) => res.status === 429)!;
    expect(refused.body.error).to.include('waiting or running');
    expect(refused.headers['retry-after']).to.match(/^\d+$/);
    const stored = await ctx.db('quality_executions').where({ user_id: ada.id }).whereIn('status', ['QUEUED', 'RUNNING']).count({ n: '*' });
    expect(Number(stored[0]!.n)).to.equal(EXECUTE_LIMITS.queuedPerUser);
  });

  it('limits dry-runs per user, and per address across users', async () => {
    const { limit: perUser } = EXECUTE_LIMITS.dryRunsPerUser;
    const { limit: perAddress } = EXECUTE_LIMITS.dryRunsPerAddress;
    const bob = await account(ctx, 'bob');
    for (let n = 0; n < perUser; n += 1) expect((await dryRun(bob, executeBody(suite.slug, target))).status).to.equal(200);
    const refused = await dryRun(bob, executeBody(suite.slug, target));
    expect(refused.status).to.equal(429);
    expect(refused.body.error).to.include(`at most ${perUser} a minute`);
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    // Other users from the same address, until the address's budget is spent (bob's refused
    // attempt stopped at his own limit and did not count toward it).
    let toAddress = perUser;
    let last = 200;
    while (last === 200 && toAddress <= perAddress) {
      const someone = await account(ctx, 'probe');
      for (let n = 0; n < perUser && last === 200 && toAddress <= perAddress; n += 1) {
        last = (await dryRun(someone, executeBody(suite.slug, target))).status;
        toAddress += 1;
      }
    }
    expect(last).to.equal(429);
    expect(toAddress).to.equal(perAddress + 1);
  });

  it("does not read a hostile target's 8 MiB model list, and the service stays responsive", async () => {
    const hostile = await hugeModelList(8 * 1024 * 1024);
    try {
      const users = await Promise.all([0, 1].map((n) => account(ctx, `dry${n}`)));
      const answers: request.Response[] = [];
      const worst = await worstHealthLatencyDuring(ctx.app, async () => {
        const attempts = users.flatMap((user) =>
          Array.from({ length: EXECUTE_LIMITS.dryRunsPerUser.limit }, () => dryRun(user, executeBody(suite.slug, hostile.url))),
        );
        answers.push(...(await Promise.all(attempts)));
      });
      expect(answers.map((res) => res.status)).to.satisfy((statuses: number[]) => statuses.every((status) => status === 200));
      for (const res of answers) {
        expect(res.body.models, JSON.stringify(res.body.models)).to.deep.include({ ok: false });
        expect(res.body.models.error).to.match(/larger than \d+ bytes/);
        expect(res.body.ready).to.equal(false);
      }
      expect(worst, `/healthz took up to ${Math.round(worst)} ms`).to.be.below(1000);
    } finally {
      await hostile.close();
    }
  });

  it('holds a dry-run against a target that never answers no longer than its one deadline', async () => {
    target.mode = 'hang';
    const started = performance.now();
    const res = await dryRun(ada, executeBody(suite.slug, target));
    const took = performance.now() - started;
    expect(res.status).to.equal(200);
    expect(res.body.ready).to.equal(false);
    expect(res.body.models).to.deep.include({ ok: false });
    expect(res.body.models.error).to.include('did not answer in time');
    // The model list used the whole deadline, so the chat was not tried.
    expect(res.body.chat).to.deep.equal({
      ok: false,
      error: `Not tried: the dry-run's ${DRY_RUN_DEADLINE_MS / 1000} s deadline had passed`,
    });
    expect(took).to.be.within(DRY_RUN_DEADLINE_MS - 50, DRY_RUN_DEADLINE_MS + 3000);
  });
});
