/**
 * Server-side execution through the API: queue, progress, scores against hand-computed
 * values, auto-submit, cancel, bad input, and the target's behaviours (streaming, <think>,
 * errors, redirects) with a fake OpenAI-compatible server on loopback (allow-listed).
 */
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { expectValidationFailed } from '../helpers/assertions.ts';
import { executeBody, FAST_EXECUTION_TIMING, hardware, startExecution, waitForExecution } from '../helpers/executions.ts';
import { arithmeticAnswers, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.ts';
import { account, type Account } from '../helpers/moderation.ts';
import {
  approveQualityRun,
  approveSuite,
  bearer,
  customSuite,
  lmEvalSuite,
  QUALITY_REVISIONS,
  registeredApprovedSuite,
  registerSuite,
} from '../helpers/quality.ts';

for (const { revision, root } of QUALITY_REVISIONS) {
  describe(`Server-side execution, revision ${revision} (${root}/execute)`, () => {
    const ctx = useTestApp(
      { API_REVISION: String(revision), EXECUTE_WORKERS: '1', EXECUTE_ALLOW_HOSTS: '127.0.0.1' },
      { fakeHub: true, executionTiming: FAST_EXECUTION_TIMING },
    );
    let target: FakeOpenAi;
    let ada: Account;
    let bob: Account;
    let suite: Record<string, any>;

    before(async () => {
      // Every arithmetic answer right but 9 / 3; both colours right.
      target = await startFakeOpenAi({ answer: arithmeticAnswers({ 'What is 9 / 3?': 'It is 4.' }) });
      ada = await account(ctx, 'ada');
      bob = await account(ctx, 'bob');
      suite = await registeredApprovedSuite(ctx, root, ada);
    });
    after(() => target.close());
    beforeEach(() => {
      target.mode = 'normal';
      target.requests.length = 0;
    });

    const post = (who: Account, path: string, body: unknown) =>
      request(ctx.app)
        .post(`${root}${path}`)
        .set(bearer(who))
        .send(body as object);

    it('runs every item, and its scores equal the hand-computed ones', async () => {
      const res = await post(ada, '/execute', executeBody(suite.slug, target));
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      const id = res.body.execution.id;
      expect(res.body.statusUrl).to.equal(`${root}/execute/${id}`);
      expect(res.headers.location).to.equal(`${root}/execute/${id}`);
      expect(res.body.execution.progress).to.deep.equal({ done: 0, total: 6, failed: 0 });

      const done = await waitForExecution(ctx, root, ada, id);
      expect(done.status, JSON.stringify(done)).to.equal('SUCCEEDED');
      expect(done.progress).to.deep.equal({ done: 6, total: 6, failed: 0 });
      // arith: 3 of 4 right (9 / 3 answered 4); colours: 2 of 2. Weighted (3:1): (0.75 x 3 + 1 x 1) / 4.
      expect(done.tasks.map((task: any) => [task.key, task.done, task.total, task.score])).to.deep.equal([
        ['arith', 4, 4, 0.75],
        ['colours', 2, 2, 1],
      ]);
      expect(done.score).to.equal(81.25);
      expect(done.runId).to.equal(null);
      // One completion per item, with the suite's settings and the rendered template.
      const completions = target.completions();
      expect(completions).to.have.length(6);
      expect(completions[0]!.body).to.include({ model: 'fake-model', temperature: 0, stream: false });
      expect(completions[0]!.body!.messages![0]!.content).to.equal('Q: What is 2 + 2?\nA:');
      expect(completions[4]!.body!.messages![0]!.content).to.equal('Colour of the sky?\nA. Green\nB. Blue');
    });

    it('sends the apiKey to the target as its bearer, and never stores it', async () => {
      const secret = `sk-secret-${Date.now()}`;
      const execution = await startExecution(ctx, root, ada, executeBody(suite.slug, target, { apiKey: secret }));
      await waitForExecution(ctx, root, ada, execution.id);
      expect(target.completions().every((r) => r.authorization === `Bearer ${secret}`)).to.equal(true);
      const row = await ctx.db('quality_executions').where({ id: execution.id }).first();
      expect(JSON.stringify(row)).not.to.include(secret);
      expect(JSON.stringify(ctx.logs)).not.to.include(secret);
    });

    it('auto-submits a PENDING SERVER_EXECUTE run that, once approved, is on the suite page', async () => {
      ctx.clock.advance(10 * 60_000);
      const execution = await startExecution(
        ctx,
        root,
        ada,
        executeBody(suite.slug, target, { autoSubmit: true, hardware, quantization: 'Q4_K_M', notes: 'from the execute test' }),
      );
      const done = await waitForExecution(ctx, root, ada, execution.id);
      expect(done.status, JSON.stringify(done)).to.equal('SUCCEEDED');
      expect(done.runId).to.be.a('string');
      expect(done.runUrl).to.equal(`${root}/runs/${done.runId}`);
      const run = await request(ctx.app).get(`${root}/runs/${done.runId}`).set(bearer(ada)).expect(200);
      expect(run.body).to.include({
        status: 'PENDING',
        executionMode: 'SERVER_EXECUTE',
        judgeMode: 'NONE',
        score: 81.25,
        quantization: 'Q4_K_M',
        notes: 'from the execute test',
        artifactCount: 6,
      });
      expect(run.body.runConfig).to.include({ servedModel: 'fake-model', executionId: execution.id });
      // Pending: not public yet.
      await request(ctx.app).get(`${root}/runs/${done.runId}`).expect(404);
      await approveQualityRun(ctx, done.runId);
      const page = await request(ctx.app).get(`/evals/${suite.slug}`).expect(200);
      expect(page.text).to.include(done.runId);
    });

    it('auto-submit uses the quality window: a window in use is waited for or reported, never a 500', async () => {
      ctx.clock.advance(10 * 60_000);
      // Use the window now; the test clock does not move, so the worker's wait would be 5 minutes.
      const first = await startExecution(ctx, root, bob, executeBody(suite.slug, target, { autoSubmit: true, hardware }));
      expect((await waitForExecution(ctx, root, bob, first.id)).runId).to.be.a('string');
      const second = await startExecution(ctx, root, bob, executeBody(suite.slug, target, { autoSubmit: true, hardware }));
      const running = await waitForExecution(ctx, root, bob, second.id, (e) => e.progress.done === 6);
      expect(running.runId).to.equal(null);
      // Cancel while it waits for the window: it stops without a run.
      await request(ctx.app).delete(`${root}/execute/${second.id}`).set(bearer(bob));
      const done = await waitForExecution(ctx, root, bob, second.id);
      expect(done.runId).to.equal(null);
      expect(['SUCCEEDED', 'CANCELLED']).to.include(done.status);
      if (done.status === 'SUCCEEDED') expect(done.submitError).to.be.a('string');
    });

    it('reads streamed answers and strips <think> reasoning before scoring', async () => {
      for (const mode of ['stream', 'think'] as const) {
        target.mode = mode;
        const execution = await startExecution(ctx, root, ada, executeBody(suite.slug, target));
        const done = await waitForExecution(ctx, root, ada, execution.id);
        expect(done.score, mode).to.equal(81.25);
      }
    });

    it('records target errors per item and fails the execution when more than 10% of items got no answer', async () => {
      target.mode = 'error';
      const execution = await startExecution(ctx, root, ada, executeBody(suite.slug, target, { autoSubmit: true, hardware }));
      const done = await waitForExecution(ctx, root, ada, execution.id);
      expect(done.status).to.equal('FAILED');
      expect(done.error).to.match(/no usable answer for 1 of 6 items/);
      expect(done.runId).to.equal(null);
      const items = await ctx.db('quality_execution_items').where({ execution_id: execution.id });
      expect(items).to.have.length(1);
      expect(items[0].error).to.equal('The server answered HTTP 500');
      // The target's body is never echoed.
      expect(JSON.stringify(done)).not.to.include('secret internal detail');
    });

    it('does not follow a redirect: the item fails and the redirect target gets nothing', async () => {
      const other = await startFakeOpenAi();
      try {
        target.mode = 'redirect';
        target.redirectTo = `${other.url}/v1/chat/completions`;
        const execution = await startExecution(ctx, root, ada, executeBody(suite.slug, target));
        const done = await waitForExecution(ctx, root, ada, execution.id);
        expect(done.status).to.equal('FAILED');
        const items = await ctx.db('quality_execution_items').where({ execution_id: execution.id });
        expect(items[0].error).to.match(/redirect/i);
        expect(other.connections).to.equal(0);
      } finally {
        await other.close();
      }
    });

    it('runs only the chosen tasks with taskKeys', async () => {
      const execution = await startExecution(ctx, root, ada, executeBody(suite.slug, target, { taskKeys: ['colours'] }));
      const done = await waitForExecution(ctx, root, ada, execution.id);
      expect(done.tasks.map((task: any) => [task.key, task.score])).to.deep.equal([['colours', 1]]);
      expect(done.score).to.equal(100);
      expect(target.completions()).to.have.length(2);
    });

    it('cancels a queued or running execution, and answers 409 once it has finished', async () => {
      target.mode = 'hang';
      const execution = await startExecution(ctx, root, ada, executeBody(suite.slug, target));
      await waitForExecution(ctx, root, ada, execution.id, (e) => e.status === 'RUNNING');
      const started = Date.now();
      const res = await request(ctx.app).delete(`${root}/execute/${execution.id}`).set(bearer(ada));
      expect(res.status).to.equal(200);
      const done = await waitForExecution(ctx, root, ada, execution.id);
      expect(done.status).to.equal('CANCELLED');
      // The hanging request was aborted, not waited out (60 s).
      expect(Date.now() - started).to.be.below(5000);
      const again = await request(ctx.app).delete(`${root}/execute/${execution.id}`).set(bearer(ada));
      expect(again.status).to.equal(409);
      expect(again.body.error).to.equal('This execution is already cancelled');
    });

    it("is its owner's only: another user gets 404, as does an unknown id", async () => {
      const execution = await startExecution(ctx, root, ada, executeBody(suite.slug, target));
      await waitForExecution(ctx, root, ada, execution.id);
      for (const path of [`/execute/${execution.id}`, '/execute/00000000-0000-4000-8000-000000000000', '/execute/not-an-id']) {
        const res = await request(ctx.app).get(`${root}${path}`).set(bearer(bob));
        expect(res.status, path).to.equal(404);
        expect(res.body).to.deep.equal({ error: 'Execution not found' });
      }
      expect((await request(ctx.app).delete(`${root}/execute/${execution.id}`).set(bearer(bob))).status).to.equal(404);
      expect((await request(ctx.app).get(`${root}/execute/${execution.id}`)).status).to.equal(401);
    });

    describe('bad input', () => {
      it('autoSubmit without hardware, or with a subset of tasks: 400 naming the field', async () => {
        expectValidationFailed(await post(ada, '/execute', executeBody(suite.slug, target, { autoSubmit: true })), ['hardware']);
        expectValidationFailed(
          await post(ada, '/execute', executeBody(suite.slug, target, { autoSubmit: true, hardware, taskKeys: ['arith'] })),
          ['taskKeys'],
        );
      });

      it('a non-public or malformed baseUrl: 400 naming the rule', async () => {
        for (const baseUrl of ['http://10.0.0.1:8080', 'ftp://example.com', 'not a url', 'http://user:pw@example.com']) {
          const res = await post(ada, '/execute', executeBody(suite.slug, baseUrl));
          expect(res.status, baseUrl).to.equal(400);
          expect(res.body.details.fieldErrors.baseUrl, baseUrl).to.have.length(1);
        }
      });

      it('an unknown task key: 400 at its index', async () => {
        expectValidationFailed(await post(ada, '/execute', executeBody(suite.slug, target, { taskKeys: ['arith', 'nope'] })), [
          'taskKeys.1',
        ]);
      });

      it('an unknown suite: 404; a pending, lm-eval or pass@k suite: 422; a judge suite without a judge: 422', async () => {
        expect((await post(ada, '/execute', executeBody('no-such-suite', target))).status).to.equal(404);
        const pending = await registerSuite(ctx, root, ada, customSuite());
        const res = await post(ada, '/execute', executeBody(pending.slug, target));
        expect(res.status).to.equal(422);
        expect(res.body.error).to.match(/pending, not approved/);
        const lmEval = await registeredApprovedSuite(ctx, root, ada, lmEvalSuite());
        expect((await post(ada, '/execute', executeBody(lmEval.slug, target))).body.error).to.match(/only CUSTOM suites/);
        const passAtK = customSuite();
        passAtK.suiteDoc.scoringMethod = 'pass_at_k';
        const passSuite = await registeredApprovedSuite(ctx, root, ada, passAtK);
        expect((await post(ada, '/execute', executeBody(passSuite.slug, target))).status).to.equal(422);
        const judged = customSuite();
        judged.suiteDoc.scoringMethod = 'llm_judge';
        const judgeSuite = await registeredApprovedSuite(ctx, root, ada, judged);
        const noJudge = await post(ada, '/execute', executeBody(judgeSuite.slug, target));
        expect(noJudge.status).to.equal(422);
        expect(noJudge.body.error).to.include('JUDGE_BASE_URL');
      });

      it('more than 200 items: 400 telling to choose tasks', async () => {
        const big = customSuite();
        big.suiteDoc.tasks[0].dataset.items = Array.from({ length: 200 }, (_, n) => ({ input: `What is ${n} + 1?`, gold: n + 1 }));
        const bigSuite = await registeredApprovedSuite(ctx, root, ada, big);
        const res = await post(ada, '/execute', executeBody(bigSuite.slug, target));
        expectValidationFailed(res, ['suiteSlug']);
        expect(res.body.details.fieldErrors.suiteSlug[0]).to.match(/202 items.*at most 200.*taskKeys/);
        expect((await post(ada, '/execute', executeBody(bigSuite.slug, target, { taskKeys: ['arith'] }))).status).to.equal(202);
      });

      it('an unknown model: 404, and nothing is queued', async () => {
        const before = await ctx.db('quality_executions').count('* as n').first();
        const res = await post(ada, '/execute', executeBody(suite.slug, target, { hfId: 'fakeorg/Does-Not-Exist' }));
        expect(res.status).to.equal(404);
        expect(await ctx.db('quality_executions').count('* as n').first()).to.deep.equal(before);
      });
    });

    describe('dry-run', () => {
      it('reports the verdict, the served models and a test completion, and queues nothing', async () => {
        const before = await ctx.db('quality_executions').count('* as n').first();
        const res = await post(ada, '/execute/dry-run', executeBody(suite.slug, target));
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body).to.include({ valid: true, ready: true, model: 'fake-model' });
        expect(res.body.plan).to.deep.equal({
          items: 6,
          tasks: [
            { key: 'arith', total: 4 },
            { key: 'colours', total: 2 },
          ],
          judged: false,
          concurrency: 1,
        });
        expect(res.body.target).to.include({ hostname: '127.0.0.1', port: target.port, allowListed: true, verdict: 'allow-listed' });
        expect(res.body.models).to.include({ ok: true, servesModel: true });
        expect(res.body.models.names).to.deep.equal(['fake-model']);
        expect(res.body.chat.ok).to.equal(true);
        expect(await ctx.db('quality_executions').count('* as n').first()).to.deep.equal(before);
      });

      it('reports a model the server does not serve, and an unreachable server, as not ready (200)', async () => {
        const other = await post(ada, '/execute/dry-run', executeBody(suite.slug, target, { model: 'other-model' }));
        expect(other.body).to.include({ ready: false });
        expect(other.body.models.servesModel).to.equal(false);
        target.mode = 'error';
        const broken = await post(ada, '/execute/dry-run', executeBody(suite.slug, target));
        expect(broken.status).to.equal(200);
        expect(broken.body.ready).to.equal(false);
        expect(broken.body.chat).to.deep.equal({ ok: false, error: 'The server answered HTTP 500' });
      });

      it('refuses a non-public address like execute does', async () => {
        expectValidationFailed(await post(ada, '/execute/dry-run', executeBody(suite.slug, 'http://169.254.169.254/latest')), ['baseUrl']);
      });
    });

    it('approved pending suites are not the only gate: approving the pending suite makes it executable', async () => {
      const pending = await registerSuite(ctx, root, bob, customSuite());
      await approveSuite(ctx, pending.slug);
      expect((await post(bob, '/execute/dry-run', executeBody(pending.slug, target))).status).to.equal(200);
    });
  });
}

describe('EXECUTE_ALLOW_HOSTS in production', () => {
  const ctx = useTestApp();
  it('is warned about at start-up, naming the hosts', () => {
    const warning = (logs: Record<string, unknown>[]) => logs.find((line) => String(line.msg).startsWith('EXECUTE_ALLOW_HOSTS is set'));
    ctx.appWith({ NODE_ENV: 'production', PUBLIC_URL: 'https://bench.example', EXECUTE_ALLOW_HOSTS: 'llm.internal:8080' });
    expect(warning(ctx.logs)).to.deep.include({ level: 40, allowHosts: ['llm.internal:8080'] });
    // Not in development, and not in production without it.
    const before = ctx.logs.length;
    ctx.appWith({ EXECUTE_ALLOW_HOSTS: 'llm.internal:8080' });
    ctx.appWith({ NODE_ENV: 'production', PUBLIC_URL: 'https://bench.example' });
    expect(warning(ctx.logs.slice(before))).to.equal(undefined);
  });
});
