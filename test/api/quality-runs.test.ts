/**
 * Quality runs through the API in revisions 2 and 3: dry-run, submission (coverage,
 * server-computed aggregate, re-scoring from traces), the separate 5-minute window,
 * idempotent replays, visibility, best run per suite, artifacts and reactions.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { expectValidationFailed } from '../helpers/assertions.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { account, type Account } from '../helpers/moderation.ts';
import {
  approveQualityRun,
  approveSuite,
  bearer,
  customSuite,
  lmEvalSuite,
  QUALITY_REVISIONS,
  qualityRun,
  registeredApprovedSuite,
  registerSuite,
  submitQualityRun,
} from '../helpers/quality.ts';

const FIVE_MINUTES = 5 * 60_000;

for (const { revision, root } of QUALITY_REVISIONS) {
  describe(`Quality runs, revision ${revision} (${root})`, () => {
    const ctx = useTestApp({ API_REVISION: String(revision) }, { fakeHub: true });
    let ada: Account;
    let bob: Account;
    let suite: Record<string, any>;

    before(async () => {
      ada = await account(ctx, 'ada');
      bob = await account(ctx, 'bob');
      suite = await registeredApprovedSuite(ctx, root, ada);
    });

    const post = (who: Account, path: string, body: unknown, headers: Record<string, string> = {}) =>
      request(ctx.app)
        .post(`${root}${path}`)
        .set({ ...bearer(who), ...headers })
        .send(body as object);
    const runCount = async () => Number((await ctx.db('quality_runs').count('* as n').first())!.n);

    describe('dry-run', () => {
      it('computes the aggregate over task weights without writing or using the window', async () => {
        ctx.clock.advance(FIVE_MINUTES * 2);
        const before = await runCount();
        const res = await post(ada, '/runs/dry-run', qualityRun(suite.slug, { runConfig: { aggregatePreview: 99.9 } }));
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        // weighted mean: (0.75 x 3 + 0.5 x 1) / 4 = 0.6875; the client's preview is ignored.
        expect(res.body.score).to.equal(68.75);
        expect(res.body.valid).to.equal(true);
        expect(res.body.suite.slug).to.equal(suite.slug);
        expect(res.body.tasks.map((task: { key: string; score: number }) => [task.key, task.score])).to.deep.equal([
          ['arith', 0.75],
          ['colours', 0.5],
        ]);
        // sqrt(0.5 x 0.5 / 2): the standard error where nSamples is known.
        expect(res.body.tasks[1].stdError).to.be.closeTo(Math.sqrt(0.125), 1e-9);
        expect(res.body.tasks[0].stdError).to.equal(null);
        expect(await runCount()).to.equal(before);
        // Dry-runs do not use the window: a real submission right after goes through.
        await post(ada, '/runs', qualityRun(suite.slug)).expect(201);
      });

      it('names each unknown and each missing task key', async () => {
        const res = await post(ada, '/runs/dry-run', qualityRun(suite.slug, { results: { arith: 0.5, algebra: 0.2, geometry: 0.1 } }));
        expectValidationFailed(res, ['results.algebra', 'results.geometry', 'results.colours']);
        expect(res.body.details.fieldErrors['results.algebra']).to.deep.equal([`Unknown task key: suite '${suite.slug}' has no such task`]);
        expect(res.body.details.fieldErrors['results.colours']).to.deep.equal(['Required: the suite has this task, give its score']);
      });

      it('asks for fractions, not percentages', async () => {
        const res = await post(ada, '/runs/dry-run', qualityRun(suite.slug, { results: { arith: 75, colours: { score: 1.5 } } }));
        expectValidationFailed(res, ['results.arith', 'results.colours.score']);
        expect(res.body.details.fieldErrors['results.arith']).to.deep.equal([
          'Task scores are fractions in [0, 1]: divide a percentage by 100',
        ]);
      });

      it('answers 404 for an unknown suite and 422 for one not approved', async () => {
        const unknown = await post(ada, '/runs/dry-run', qualityRun('no-such-suite'));
        expect(unknown.status).to.equal(404);
        expect(unknown.body.error).to.equal("Quality suite 'no-such-suite' not found");
        const pending = await registerSuite(ctx, root, ada, customSuite());
        const res = await post(ada, '/runs/dry-run', qualityRun(pending.slug));
        expect(res.status).to.equal(422);
        expect(res.body.error).to.match(/is pending, not approved/);
      });

      it('checks the model on the hub (404 for an unknown one)', async () => {
        const res = await post(ada, '/runs/dry-run', qualityRun(suite.slug, { hfId: fakeHubModels.missing }));
        expect(res.status).to.equal(404);
      });

      it('refuses SERVER_EXECUTE, artifacts of unknown tasks or items, and unknown fields', async () => {
        expectValidationFailed(await post(ada, '/runs/dry-run', qualityRun(suite.slug, { executionMode: 'SERVER_EXECUTE' })), [
          'executionMode',
        ]);
        expectValidationFailed(
          await post(
            ada,
            '/runs/dry-run',
            qualityRun(suite.slug, {
              artifacts: [
                { taskKey: 'nope', response: 'x' },
                { taskKey: 'arith', itemIndex: 4, response: '1' },
              ],
            }),
          ),
          ['artifacts.0.taskKey', 'artifacts.1.itemIndex'],
        );
        expectValidationFailed(await post(ada, '/runs/dry-run', { ...qualityRun(suite.slug), aggregate: 99 }), ['aggregate']);
      });
    });

    describe('re-scoring from traces', () => {
      const traces = (responses: string[], clientScores?: number[]) =>
        responses.map((response, itemIndex) => ({
          taskKey: 'arith',
          itemIndex,
          response,
          ...(clientScores ? { score: clientScores[itemIndex] } : {}),
        }));

      it("keeps the server's task score when every item has a response, and records the disagreement", async () => {
        const res = await post(
          ada,
          '/runs/dry-run',
          qualityRun(suite.slug, {
            results: { arith: 0.25, colours: 1 },
            artifacts: traces(['<think>2+2 is 5?</think>The answer is 4.', 'Seven: 7', 'It is 42', 'Final answer: 3.0'], [0, 1, 0, 0]),
          }),
        );
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const arith = res.body.tasks[0];
        expect(arith).to.include({ score: 1, clientScore: 0.25, nSamples: 4 });
        expect(arith.rescored).to.deep.equal({ items: 4, ofItems: 4, serverScore: 1, disagreement: 0.75 });
        expect(res.body.rescored).to.equal(true);
        expect(res.body.maxDisagreement).to.equal(0.75);
        expect(res.body.score).to.equal(100);
      });

      it("keeps the client's score when only some items have responses, and still records the disagreement", async () => {
        const res = await post(
          ada,
          '/runs/dry-run',
          qualityRun(suite.slug, { results: { arith: 0.75, colours: 0.5 }, artifacts: traces(['4', 'eight']) }),
        );
        const arith = res.body.tasks[0];
        expect(arith.score).to.equal(0.75);
        expect(arith.rescored).to.deep.equal({ items: 2, ofItems: 4, serverScore: 0.5, disagreement: 0.25 });
      });

      it('re-scores multiple-choice answers by their letter', async () => {
        const res = await post(
          ada,
          '/runs/dry-run',
          qualityRun(suite.slug, {
            artifacts: [
              { taskKey: 'colours', itemIndex: 0, response: 'The answer is (B)' },
              { taskKey: 'colours', itemIndex: 1, response: 'B' },
            ],
          }),
        );
        expect(res.body.tasks[1].rescored).to.deep.equal({ items: 2, ofItems: 2, serverScore: 0.5, disagreement: 0 });
      });
    });

    describe('submission', () => {
      it('stores a PENDING run with the server score, its traces, and the window headers', async () => {
        ctx.clock.advance(FIVE_MINUTES * 2);
        const body = qualityRun(suite.slug, {
          notes: 'llama.cpp b5200',
          runnerVersion: 'cli 0.1',
          artifacts: [{ taskKey: 'arith', itemIndex: 0, prompt: 'Q: What is 2 + 2?\nA:', response: '4', score: 1, latencyMs: 120 }],
        });
        const res = await post(bob, '/runs', body);
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body).to.include({
          status: 'PENDING',
          score: 68.75,
          suiteSlug: suite.slug,
          hfId: fakeHubModels.dense,
          quantization: 'Q4_K_M',
          executionMode: 'CUSTOM_LOCAL',
          judgeMode: 'NONE',
          artifactCount: 1,
          notes: 'llama.cpp b5200',
        });
        expect(res.body.user).to.deep.equal({ username: bob.username, displayName: `Display ${bob.username}` });
        expect(res.body.hardware).to.include({ hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: 1 });
        expect(res.headers.location).to.equal(`${root}/runs/${res.body.id}`);
        expect(res.headers['x-ratelimit-remaining']).to.equal('0');
        const stored = await ctx.db('quality_run_artifacts').where({ run_id: res.body.id });
        expect(stored).to.have.length(1);
        expect(stored[0]).to.include({ task_key: 'arith', item_index: 0, response: '4', latency_ms: 120 });
      });

      it('allows one submission per 5 minutes per user, with the spec 429, separately from speed tests', async () => {
        ctx.clock.advance(FIVE_MINUTES * 2);
        await post(ada, '/runs', qualityRun(suite.slug)).expect(201);
        const limited = await post(ada, '/runs', qualityRun(suite.slug));
        expect(limited.status).to.equal(429);
        expect(limited.body).to.have.all.keys('error', 'retryAfterMs', 'lastSubmittedAt');
        expect(limited.body.error).to.equal('Rate limit exceeded. You may submit once every 5 minutes.');
        expect(limited.body.retryAfterMs).to.equal(FIVE_MINUTES);
        expect(limited.headers['retry-after']).to.equal('300');

        // A speed-test submission is not held back by the quality window...
        const speedPath = revision === 3 ? '/api/speed-tests' : '/api/benchmarks';
        ctx.clock.advance(1000);
        await request(ctx.app).post(speedPath).set(bearer(ada)).send(validSubmission()).expect(201);
        // ...and does not start one: after the quality window, a quality run goes through although a speed test was just submitted.
        ctx.clock.advance(FIVE_MINUTES);
        await post(ada, '/runs', qualityRun(suite.slug)).expect(201);
      });

      it('replays an Idempotency-Key retry without writing twice; another body with the key is a 422', async () => {
        ctx.clock.advance(FIVE_MINUTES * 2);
        const key = randomUUID();
        const body = qualityRun(suite.slug);
        const first = await post(ada, '/runs', body, { 'Idempotency-Key': key }).expect(201);
        const before = await runCount();
        const again = await post(ada, '/runs', body, { 'Idempotency-Key': key });
        expect(again.status).to.equal(201);
        expect(again.body.id).to.equal(first.body.id);
        expect(again.headers['idempotent-replayed']).to.equal('true');
        expect(await runCount()).to.equal(before);
        const other = await post(ada, '/runs', qualityRun(suite.slug, { notes: 'changed' }), { 'Idempotency-Key': key });
        expect(other.status).to.equal(422);
        // Speed-test keys are another scope: the same key starts a new speed-test write.
        const speedPath = revision === 3 ? '/api/speed-tests' : '/api/benchmarks';
        ctx.clock.advance(FIVE_MINUTES * 2);
        await request(ctx.app)
          .post(speedPath)
          .set({ ...bearer(ada), 'Idempotency-Key': key })
          .send(validSubmission())
          .expect(201);
      });

      it('writes nothing when a submission fails validation', async () => {
        ctx.clock.advance(FIVE_MINUTES * 2);
        const before = await runCount();
        const artifacts = [
          { taskKey: 'arith', itemIndex: 0, response: '4' },
          { taskKey: 'arith', itemIndex: 99, response: '4' },
        ];
        expectValidationFailed(await post(ada, '/runs', qualityRun(suite.slug, { artifacts })), ['artifacts.1.itemIndex']);
        expect(await runCount()).to.equal(before);
        // ...and the window was not used.
        await post(ada, '/runs', qualityRun(suite.slug)).expect(201);
      });

      it('takes an lm-eval-harness run with LM_EVAL_LOCAL by default, covering its task keys', async () => {
        const harness = await registeredApprovedSuite(
          ctx,
          root,
          ada,
          lmEvalSuite({
            suiteDoc: {
              runner: 'lm-eval-harness',
              scoringMethod: 'exact_match',
              aggregation: 'mean',
              tasks: [{ key: 'hellaswag', nShots: 10 }, { key: 'arc_challenge', nShots: 25 }, { key: 'mmlu' }],
            },
          }),
        );
        ctx.clock.advance(FIVE_MINUTES * 2);
        const res = await post(ada, '/runs', {
          ...qualityRun(harness.slug),
          results: { hellaswag: 0.81, arc_challenge: { score: 0.55, nSamples: 1172, nShots: 25 }, mmlu: 0.68 },
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body).to.include({ executionMode: 'LM_EVAL_LOCAL', score: 68 });
        expect(res.body.tasks[1].stdError).to.be.closeTo(Math.sqrt((0.55 * 0.45) / 1172), 1e-9);
        // A shot count the run did not state is the suite's default, and says so; one nobody gives is null.
        expect(
          res.body.tasks.map((t: { key: string; nShots: number | null; nShotsFrom: string | null }) => [t.key, t.nShots, t.nShotsFrom]),
        ).to.deep.equal([
          ['hellaswag', 10, 'suite'],
          ['arc_challenge', 25, 'run'],
          ['mmlu', null, null],
        ]);
      });
    });

    describe('reading runs', () => {
      let pendingId: string;
      let bestId: string;

      before(async () => {
        pendingId = (await submitQualityRun(ctx, root, bob, qualityRun(suite.slug, { results: { arith: 1, colours: 1 } }))).id;
        const low = await submitQualityRun(ctx, root, bob, qualityRun(suite.slug, { results: { arith: 0.5, colours: 0.5 } }));
        const best = await submitQualityRun(
          ctx,
          root,
          bob,
          qualityRun(suite.slug, {
            results: { arith: 0.9, colours: 1 },
            artifacts: Array.from({ length: 3 }, (_, i) => ({ taskKey: 'arith', itemIndex: i, response: `answer ${i}` })),
          }),
        );
        bestId = best.id;
        await approveQualityRun(ctx, low.id);
        await approveQualityRun(ctx, best.id);
      });

      it('shows a pending run to its submitter only', async () => {
        expect((await request(ctx.app).get(`${root}/runs/${pendingId}`).set(bearer(bob))).body.status).to.equal('PENDING');
        expect((await request(ctx.app).get(`${root}/runs/${pendingId}`)).status).to.equal(404);
        expect((await request(ctx.app).get(`${root}/runs/${pendingId}`).set(bearer(ada))).status).to.equal(404);
        expect((await request(ctx.app).get(`${root}/runs/${bestId}`)).body.status).to.equal('APPROVED');
        expect((await request(ctx.app).get(`${root}/runs/not-a-uuid`)).status).to.equal(404);
      });

      it('answers the best approved run per suite for a model, by hfId or id', async () => {
        const byHfId = await request(ctx.app).get(`${root}/runs`).query({ modelId: fakeHubModels.dense }).expect(200);
        const runs = revision === 3 ? byHfId.body.suites : byHfId.body.runs;
        expect(Object.keys(byHfId.body)).to.deep.equal(revision === 3 ? ['suites', 'datasets'] : ['runs']);
        const forSuite = runs.filter((run: { suiteSlug: string }) => run.suiteSlug === suite.slug);
        expect(forSuite.map((run: { id: string }) => run.id)).to.deep.equal([bestId]);
        const modelId = forSuite[0].modelId;
        const byId = await request(ctx.app).get(`${root}/runs`).query({ modelId }).expect(200);
        expect(byId.body).to.deep.equal(byHfId.body);
        const none = await request(ctx.app).get(`${root}/runs`).query({ modelId: 'nobody/nothing' }).expect(200);
        expect(none.body).to.deep.equal(revision === 3 ? { suites: [], datasets: [] } : { runs: [] });
        expectValidationFailed(await request(ctx.app).get(`${root}/runs`), ['modelId']);
      });

      it('pages the traces of a run', async () => {
        const page = await request(ctx.app).get(`${root}/runs/${bestId}/artifacts`).query({ limit: '2', offset: '1' }).expect(200);
        expect(page.body).to.include({ total: 3, limit: 2, offset: 1 });
        expect(page.body.artifacts.map((a: { itemIndex: number; response: string }) => [a.itemIndex, a.response])).to.deep.equal([
          [1, 'answer 1'],
          [2, 'answer 2'],
        ]);
        expect((await request(ctx.app).get(`${root}/runs/${pendingId}/artifacts`)).status).to.equal(404);
      });

      it('takes reactions on approved runs: session on the quality path, key or session on /api/runs/{id}/react', async () => {
        const state = await request(ctx.app).get(`${root}/runs/${bestId}/react`).expect(200);
        expect(state.body).to.deep.equal({ reactionCounts: {}, myEmoji: null });
        const react = await ada.agent.post(`${root}/runs/${bestId}/react`).set('X-CSRF-Token', ada.csrf).send({ emoji: 'brain' });
        expect(react.status, JSON.stringify(react.body)).to.equal(200);
        expect(react.body).to.deep.equal({ reactionCounts: { brain: 1 }, myEmoji: 'brain' });
        expect((await request(ctx.app).post(`${root}/runs/${bestId}/react`).set(bearer(ada)).send({ emoji: 'fire' })).status).to.equal(403);
        const viaKey = await request(ctx.app).post(`/api/runs/${bestId}/react`).set(bearer(bob)).send({ emoji: 'fire' });
        expect(viaKey.status, JSON.stringify(viaKey.body)).to.equal(200);
        expect(viaKey.body).to.deep.equal({ reactionCounts: { brain: 1, fire: 1 }, myEmoji: 'fire' });
        const mine = await request(ctx.app).get(`${root}/runs/${bestId}/react`).set(bearer(ada)).expect(200);
        expect(mine.body).to.deep.equal({ reactionCounts: { brain: 1, fire: 1 }, myEmoji: 'brain' });
        expect((await request(ctx.app).get(`${root}/runs/${bestId}`)).body.reactionCounts).to.deep.equal({ brain: 1, fire: 1 });
        expect((await request(ctx.app).post(`/api/runs/${pendingId}/react`).set(bearer(bob)).send({ emoji: 'fire' })).status).to.equal(404);
        expect((await request(ctx.app).get(`${root}/runs/${pendingId}/react`)).status).to.equal(404);
      });
    });

    if (revision === 3) {
      it('also answers the best run per shard dataset', async () => {
        const dataset = { slug: `shards-${Date.now().toString(36)}`, name: 'Shards', shards: [{ items: [{ input: '5+5?', gold: 10 }] }] };
        await request(ctx.app).post(`${root}/datasets`).set(bearer(ada)).send(dataset).expect(201);
        await ctx.db('quality_datasets').where({ slug: dataset.slug }).update({ status: 'APPROVED' });
        const body = customSuite();
        body.suiteDoc.tasks[0].dataset = { source: 'shard', datasetSlug: dataset.slug };
        const shardSuite = await registerSuite(ctx, root, ada, body);
        await approveSuite(ctx, shardSuite.slug);
        const run = await submitQualityRun(
          ctx,
          root,
          ada,
          qualityRun(shardSuite.slug, {
            hfId: fakeHubModels.finetune,
            results: { arith: 0.2, colours: 0.5 },
            artifacts: [{ taskKey: 'arith', itemIndex: 0, response: '10' }],
          }),
        );
        // The only item of the shard task was answered: the server's 1.0 replaces the client's 0.2.
        expect(run.tasks[0].score).to.equal(1);
        await approveQualityRun(ctx, run.id);
        const res = await request(ctx.app).get(`${root}/runs`).query({ modelId: fakeHubModels.finetune }).expect(200);
        expect(res.body.datasets).to.have.length(1);
        expect(res.body.datasets[0]).to.deep.include({ score: 100, taskKeys: ['arith'] });
        expect(res.body.datasets[0].dataset.slug).to.equal(dataset.slug);
        expect(res.body.datasets[0].run.id).to.equal(run.id);
      });
    }
  });
}
