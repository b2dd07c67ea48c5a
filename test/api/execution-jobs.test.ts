/**
 * The execution job queue: two workers never run the same job, a job whose worker stopped
 * beating is taken over and resumes after its scored items, at most two jobs run per user,
 * per-request timeouts, the 30-minute cap (with the test clock), a stopping app hands its
 * running jobs back, and llm_judge suites scored by the deployment's (fake) judge.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createOutboundClient, type Resolver } from '../../src/clients/outbound.ts';
import { createLogger } from '../../src/logger.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { ExecutionRuntime, DEFAULT_EXECUTION_TIMING } from '../../src/services/execution-runtime.ts';
import { createExecutionWorkers } from '../../src/services/execution-worker.ts';
import { createCoreServices } from '../../src/services/index.ts';
import { logSink, useTestApp, type TestContext } from '../helpers/app.ts';
import { executeBody, FAST_EXECUTION_TIMING, startExecution, waitForExecution } from '../helpers/executions.ts';
import { createHubClient } from '../../src/clients/hub.ts';
import { resolverFor, startFakeDns, type FakeDns } from '../helpers/fake-dns.ts';
import { arithmeticAnswers, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.ts';
import { account, type Account } from '../helpers/moderation.ts';
import { bearer, customSuite, registeredApprovedSuite } from '../helpers/quality.ts';

const REVISION = 3;
const root = getRevisionProfile(REVISION).quality!.root;

/** A worker pool of its own (as another app instance would run), on the test's database and clock. */
function workerPool(
  ctx: TestContext,
  judge?: { baseUrl: string; model: string; apiKey: string | undefined },
  resolve?: Resolver,
  timeoutMs = 5000,
) {
  const outbound = createOutboundClient({ allowHosts: ['127.0.0.1'], timeoutMs, resolve });
  const deps = {
    db: ctx.db,
    clock: ctx.clock,
    profile: getRevisionProfile(REVISION),
    hub: createHubClient({ endpoint: ctx.hub.url, timeoutMs: 1000 }),
    hubMode: 'online' as const,
  };
  const workers = createExecutionWorkers({
    ...deps,
    // Its quality runs as the app wires them.
    qualityRuns: createCoreServices(deps).qualityRuns,
    logger: createLogger('silent', logSink([])),
    execution: { outbound, runtime: new ExecutionRuntime(1), judge, timing: { ...DEFAULT_EXECUTION_TIMING, ...FAST_EXECUTION_TIMING } },
  });
  return {
    workers,
    async close() {
      await workers.stop();
      await outbound.close();
    },
  };
}

describe('Execution jobs', () => {
  // No workers in this app: the tests start their own pools. Names resolve through a fake DNS server.
  let dns: FakeDns;
  const outbound = createOutboundClient({ allowHosts: ['127.0.0.1'], resolve: (hostname) => resolverFor(dns)(hostname) });
  const ctx = useTestApp(
    { API_REVISION: String(REVISION), EXECUTE_ALLOW_HOSTS: '127.0.0.1' },
    { fakeHub: true, executionTiming: FAST_EXECUTION_TIMING, outbound: () => outbound },
  );
  let target: FakeOpenAi;
  let ada: Account;
  let suite: Record<string, any>;

  before(async () => {
    dns = await startFakeDns();
    target = await startFakeOpenAi({ answer: arithmeticAnswers({ 'What is 9 / 3?': 'It is 4.' }) });
    ada = await account(ctx, 'ada');
    suite = await registeredApprovedSuite(ctx, root, ada);
  });
  after(async () => {
    await target.close();
    await outbound.close();
    await dns.close();
  });
  beforeEach(() => {
    target.mode = 'normal';
    target.requests.length = 0;
  });

  it('two workers never claim the same job, and every job runs exactly once', async () => {
    const users = await Promise.all([1, 2, 3, 4, 5].map((n) => account(ctx, `u${n}`)));
    const ids = await Promise.all(users.map((user) => startExecution(ctx, root, user, executeBody(suite.slug, target)).then((e) => e.id)));
    const one = workerPool(ctx);
    const two = workerPool(ctx);
    try {
      // Ten claims at once from two pools: five jobs, each claimed once.
      const claims = await Promise.all(Array.from({ length: 10 }, (_, n) => (n % 2 ? one : two).workers.claim(`pool${n % 2}:${n}`)));
      const claimed = claims.filter((row) => row !== null).map((row) => row!.id);
      expect(claimed.sort()).to.deep.equal([...ids].sort());
      // Give them back and let both pools run everything.
      await ctx.db('quality_executions').whereIn('id', ids).update({ status: 'QUEUED', worker_id: null, heartbeat_at: null });
      one.workers.start(2);
      two.workers.start(2);
      for (const [n, id] of ids.entries()) expect((await waitForExecution(ctx, root, users[n]!, id)).status).to.equal('SUCCEEDED');
      // Six items per job, each asked once: a job run twice would have asked more.
      expect(target.completions()).to.have.length(ids.length * 6);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('takes over a job whose worker stopped beating and resumes after the items it scored', async () => {
    const execution = await startExecution(ctx, root, ada, executeBody(suite.slug, target));
    const dead = workerPool(ctx);
    const row = await dead.workers.claim('dead-worker:0');
    await dead.close();
    expect(row!.id).to.equal(execution.id);
    // The dead worker had scored the first two items (2 + 2 and 10 - 3) before it stopped.
    for (const [seq, prompt] of ['Q: What is 2 + 2?\nA:', 'Q: What is 10 - 3?\nA:'].entries()) {
      await ctx.db('quality_execution_items').insert({
        execution_id: execution.id,
        seq,
        task_key: 'arith',
        item_index: seq,
        prompt_hash: 'x',
        prompt,
        response: 'right',
        score: 1,
      });
    }
    await ctx.db('quality_executions').where({ id: execution.id }).update({ done: 2 });
    // Not stale yet: nobody takes it.
    const early = workerPool(ctx);
    expect(await early.workers.claim('early:0')).to.equal(null);
    await early.close();
    ctx.clock.advance(61_000);
    const rescuer = workerPool(ctx);
    try {
      rescuer.workers.start(1);
      const done = await waitForExecution(ctx, root, ada, execution.id);
      expect(done.status).to.equal('SUCCEEDED');
      // Only the four items not scored yet were asked; the scores combine both workers' items.
      expect(target.completions().map((r) => r.body!.messages![0]!.content)).to.deep.equal([
        'Q: What is 6 x 7?\nA:',
        'Q: What is 9 / 3?\nA:',
        'Colour of the sky?\nA. Green\nB. Blue',
        'Colour of grass?\nA. Green\nB. Red',
      ]);
      expect(done.tasks.map((task: any) => task.score)).to.deep.equal([0.75, 1]);
      expect(done.progress).to.deep.equal({ done: 6, total: 6, failed: 0 });
    } finally {
      await rescuer.close();
    }
  });

  it('runs at most two executions per user at once; the third waits its turn', async () => {
    const bob = await account(ctx, 'bob');
    target.mode = 'hang';
    const ids: string[] = [];
    for (let n = 0; n < 3; n += 1) ids.push((await startExecution(ctx, root, bob, executeBody(suite.slug, target))).id);
    const pool = workerPool(ctx);
    try {
      pool.workers.start(3);
      // Two start; the third pool loop keeps looking for a while and must not start the third.
      for (let n = 0; (await ctx.db('quality_executions').whereIn('id', ids).where({ status: 'RUNNING' })).length < 2; n += 1) {
        if (n > 200) throw new Error('two executions did not start');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      const byStatus = async () => {
        const rows = await ctx.db('quality_executions').whereIn('id', ids).select('id', 'status', 'error');
        return Object.fromEntries(
          ['RUNNING', 'QUEUED', 'CANCELLED'].map((status) => [status, rows.filter((row) => row.status === status).map((row) => row.id)]),
        );
      };
      const first = await byStatus();
      expect(first.RUNNING, JSON.stringify(first)).to.have.length(2);
      expect(first.QUEUED).to.have.length(1);
      // One of the two stops: the waiting one starts.
      await request(ctx.app).delete(`${root}/execute/${first.RUNNING![0]}`).set(bearer(bob)).expect(200);
      await waitForExecution(ctx, root, bob, first.QUEUED![0]!, (e) => e.status === 'RUNNING');
      const then = await byStatus();
      expect(then.RUNNING!.sort()).to.deep.equal([first.RUNNING![1]!, first.QUEUED![0]!].sort());
    } finally {
      for (const id of ids) await request(ctx.app).delete(`${root}/execute/${id}`).set(bearer(bob));
      await pool.close();
    }
  });

  it('serves users in turn: a user who has waited goes before the second job of one already served', async () => {
    const [cleo, dan] = [await account(ctx, 'cleo'), await account(ctx, 'dan')];
    // Queued a second apart (the test clock), so the queue's order is the order of these calls.
    const queue = async (who: Account) => {
      ctx.clock.advance(1000);
      return (await startExecution(ctx, root, who, executeBody(suite.slug, target))).id as string;
    };
    const cleoJobs = [await queue(cleo), await queue(cleo)];
    const danJob = await queue(dan);
    const pool = workerPool(ctx);
    try {
      const order: string[] = [];
      for (let n = 0; n < 3; n += 1) {
        const claimed = await pool.workers.claim(`fair:${n}`);
        expect(claimed, `claim ${n}`).to.not.equal(null);
        order.push(claimed!.id);
        // Each job ends before the next claim (one worker, one job at a time).
        ctx.clock.advance(1000);
        await ctx
          .db('quality_executions')
          .where({ id: claimed!.id })
          .update({ status: 'SUCCEEDED', worker_id: null, finished_at: new Date() });
      }
      // Queued first to last: cleo, cleo, dan. Served: cleo, dan, then cleo's second.
      expect(order).to.deep.equal([cleoJobs[0], danJob, cleoJobs[1]]);
    } finally {
      await pool.close();
    }
  });

  it("sends the suite's runConfig.concurrency items at once", async () => {
    const body = customSuite();
    body.suiteDoc.runConfig = { temperature: 0, concurrency: 3 };
    const parallel = await registeredApprovedSuite(ctx, root, ada, body);
    target.mode = 'slow';
    target.slowMs = 150;
    target.maxInFlight = 0;
    const execution = await startExecution(ctx, root, ada, executeBody(parallel.slug, target));
    const pool = workerPool(ctx);
    try {
      pool.workers.start(1);
      const done = await waitForExecution(ctx, root, ada, execution.id);
      expect(done.score).to.equal(81.25);
      expect(target.maxInFlight).to.equal(3);
    } finally {
      await pool.close();
    }
  });

  it("records a request that times out as the item's error", async () => {
    target.mode = 'hang';
    const execution = await startExecution(ctx, root, ada, executeBody(suite.slug, target));
    const pool = workerPool(ctx, undefined, undefined, 300);
    try {
      pool.workers.start(1);
      const done = await waitForExecution(ctx, root, ada, execution.id);
      expect(done.status).to.equal('FAILED');
      const [item] = await ctx.db('quality_execution_items').where({ execution_id: execution.id });
      expect(item.error).to.match(/did not answer in time/);
    } finally {
      await pool.close();
    }
  });

  it('stops an execution that runs past 30 minutes (test clock)', async () => {
    target.mode = 'slow';
    target.slowMs = 150;
    const execution = await startExecution(ctx, root, ada, executeBody(suite.slug, target));
    const pool = workerPool(ctx);
    try {
      pool.workers.start(1);
      await waitForExecution(ctx, root, ada, execution.id, (e) => e.progress.done >= 1);
      ctx.clock.advance(30 * 60_000 + 1000);
      const done = await waitForExecution(ctx, root, ada, execution.id);
      expect(done.status).to.equal('FAILED');
      expect(done.error).to.equal('The execution took longer than 30 minutes and was stopped');
      expect(done.progress.done).to.be.below(6);
    } finally {
      await pool.close();
    }
  });

  it('fails the execution, naming the rule, when the target starts resolving to a private address', async () => {
    // Public when the request is checked, private by the time a worker connects.
    dns.setAnswers('llm.rebind.test', (resolution) => (resolution === 1 ? ['93.184.215.14'] : ['10.0.0.5']));
    const execution = await startExecution(ctx, root, ada, executeBody(suite.slug, 'http://llm.rebind.test:8080'));
    const pool = workerPool(ctx, undefined, (hostname) => resolverFor(dns)(hostname));
    try {
      pool.workers.start(1);
      const done = await waitForExecution(ctx, root, ada, execution.id);
      expect(done.status).to.equal('FAILED');
      expect(done.error).to.equal('The host resolves to a private address; only public addresses can be reached');
      expect(done.progress.done).to.equal(0);
    } finally {
      await pool.close();
    }
  });

  it('hands its running jobs back to the queue when the app stops', async () => {
    target.mode = 'hang';
    const app = ctx.appWith({ EXECUTE_WORKERS: '1' });
    const execution = await startExecution({ ...ctx, app } as TestContext, root, ada, executeBody(suite.slug, target));
    await waitForExecution(ctx, root, ada, execution.id, (e) => e.status === 'RUNNING');
    await (app.locals.close as () => Promise<void>)();
    const row = await ctx.db('quality_executions').where({ id: execution.id }).first();
    expect(row).to.include({ status: 'QUEUED', worker_id: null });
    await request(ctx.app).delete(`${root}/execute/${execution.id}`).set(bearer(ada)).expect(200);
  });

  describe('llm_judge suites', () => {
    let judge: FakeOpenAi;
    let judgeSuite: Record<string, any>;
    /** The request side of an app whose deployment has the judge. */
    let judged: TestContext;
    before(async () => {
      judge = await startFakeOpenAi({ answer: () => 'Looking at it... {"score": 8, "rationale": "Mostly right"}' });
      judged = { ...ctx, app: ctx.appWith({ JUDGE_BASE_URL: judge.url, JUDGE_MODEL: 'judge-model', JUDGE_API_KEY: 'judge-key' }) };
      const body = customSuite();
      body.suiteDoc.scoringMethod = 'llm_judge';
      body.suiteDoc.tasks[0].dataset.items[0].rubric = 'Full marks for the number 4';
      judgeSuite = await registeredApprovedSuite(ctx, root, ada, body);
    });
    after(() => judge.close());

    it("scores every item with the deployment's judge, the rubric and reference in its prompt", async () => {
      const execution = await startExecution(judged, root, ada, executeBody(judgeSuite.slug, target));
      const pool = workerPool(ctx, { baseUrl: judge.url, model: 'judge-model', apiKey: 'judge-key' });
      try {
        pool.workers.start(1);
        const done = await waitForExecution(ctx, root, ada, execution.id);
        expect(done.status, JSON.stringify(done)).to.equal('SUCCEEDED');
        expect(done.tasks.map((task: any) => task.score)).to.deep.equal([0.8, 0.8]);
        expect(done.score).to.equal(80);
        const asked = judge.completions();
        expect(asked).to.have.length(6);
        expect(asked[0]!.authorization).to.equal('Bearer judge-key');
        expect(asked[0]!.body!.model).to.equal('judge-model');
        expect(asked[0]!.body!.messages![0]!.content).to.include('## Rubric\nFull marks for the number 4').and.include('Q: What is 2 + 2?');
      } finally {
        await pool.close();
      }
    });

    it('sends the judge through the same guard: a private judge address is refused, and the items say why', async () => {
      const execution = await startExecution(judged, root, ada, executeBody(judgeSuite.slug, target));
      const pool = workerPool(ctx, { baseUrl: 'http://10.0.0.9:8000', model: 'judge-model', apiKey: undefined });
      try {
        pool.workers.start(1);
        const done = await waitForExecution(ctx, root, ada, execution.id);
        expect(done.status).to.equal('FAILED');
        const [item] = await ctx.db('quality_execution_items').where({ execution_id: execution.id }).orderBy('seq');
        expect(item.error).to.equal('Judge: 10.0.0.9 is a private address; only public addresses can be reached');
      } finally {
        await pool.close();
      }
    });

    it("fails the execution when more than 10% of the judge's answers cannot be read", async () => {
      judge.answer = (prompt) => (prompt.includes('sky') ? 'I would rather not say' : '{"score": 10}');
      const execution = await startExecution(judged, root, ada, executeBody(judgeSuite.slug, target));
      const pool = workerPool(ctx, { baseUrl: judge.url, model: 'judge-model', apiKey: undefined });
      try {
        pool.workers.start(1);
        const done = await waitForExecution(ctx, root, ada, execution.id);
        expect(done.status).to.equal('FAILED');
        expect(done.error).to.equal("The judge's answer could not be read as a score for 1 of 6 judged items (more than 10%)");
      } finally {
        await pool.close();
      }
    });
  });
});
