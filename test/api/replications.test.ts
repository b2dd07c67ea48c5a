import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';
import { setHardwareMappings } from '../../src/lib/hardware-mappings.ts';
import { revision3Profile } from '../../src/revisions.ts';
import { createOfflineServices } from '../../src/services/index.ts';

// Replications (issue 34 point 5; DECISIONS.md "Verdicts, peers and replication"): a run's
// recipe in the API, `replicates` checked and stored, the replications of a run (approved
// runs of its recipe on its device by other users) with their count and spread, kept
// current as runs come and go, and the leaderboard's `replicated` filter on both read paths.

type Body = Record<string, any>;
const MISSING_ID = '00000000-0000-4000-8000-000000000000';

/** The recipe every replication below repeats: one RTX 4090, llama.cpp b5000 with flash attention, 512 in, 128 out, 4096 deep. */
const recipeBody = (overrides: Body = {}): Body =>
  validSubmission({
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, cpu: 'AMD Ryzen 9 7950X' },
    engineVersion: 'b5000',
    promptTokens: 512,
    outputTokens: 128,
    prefillTokens: 4096,
    contextLength: 8192,
    // warmup and the spec counters are facts of one measurement: not part of the recipe.
    engineFlags: { commandSnippet: 'llama-server -m model.gguf -fa -ngl 99', warmup: 2, specDraftTokens: 10 },
    ...overrides,
  });

for (const readIndex of ['on', 'off'] as const) {
  describe(`replications: recipe, replicates, count and spread, the replicated filter (read index ${readIndex})`, () => {
    const ctx = useTestApp({ API_REVISION: '3', READ_INDEX: readIndex }, { fakeHub: true });
    let users: Account[];

    before(async () => {
      users = [];
      for (let i = 0; i < 5; i += 1) users.push(await account(ctx, 'rep'));
    });

    const as = (who: Account) => ({ Authorization: `Bearer ${who.key}` });
    const send = (who: Account, body: Body) => {
      ctx.clock.advance(61_000);
      return request(ctx.app).post('/api/speed-tests').set(as(who)).send(body);
    };
    async function submit(who: Account, body: Body): Promise<Body> {
      const res = await send(who, body);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body;
    }
    const read = async (id: string): Promise<Body> => (await request(ctx.app).get(`/api/speed-tests/${id}`).expect(200)).body;
    const boardIds = async (query: Body) =>
      (
        await request(ctx.app)
          .get('/api/leaderboard')
          .query({ limit: 200, hfId: fakeHubModels.dense, ...query })
          .expect(200)
      ).body.rows.map((row: Body) => row.id as string);

    let original: Body;
    let replication: Body;
    /** The original's user's second run of the recipe. */
    const sameUserRun = async () =>
      (await ctx.db('speed_test_runs').where({ user_id: users[0]!.id }).orderBy('created_at', 'desc').first('id'))!;

    it("answers a run's recipe: weights, engine build, speed-shaping flags, workload, and one key", async () => {
      original = await submit(users[0]!, recipeBody({ tokSOut: 40 }));
      const run = await read(original.id);
      expect(run.recipe).to.deep.include({
        model: { hfId: fakeHubModels.dense, revision: 'main', quantization: 'Q4_K_M' },
        engine: { name: 'llama.cpp', version: 'b5000', build: null, commit: null },
        command: 'llama-server -m model.gguf -fa -ngl 99',
        workload: { promptTokens: 512, outputTokens: 128, prefillTokens: 4096, contextLength: 8192, batchSize: 1, concurrency: 1 },
      });
      // Flags parsed from the command are in; the warm-up and the speculative counters are not.
      expect(run.recipe.flags).to.deep.equal({ flashAttn: true, gpuLayers: 99 });
      expect(run.recipe.key).to.match(/^[0-9a-f]{12}(\.[0-9a-f]{12}){3}$/);
      expect(run.replicates).to.equal(null);
      expect(run.replications).to.deep.equal({ count: 0, minTokS: null, maxTokS: null, spread: null, runs: [] });
    });

    it('refuses a replicates that names no approved run, or no run id, with a 400 naming the field', async () => {
      for (const path of ['/api/speed-tests', '/api/speed-tests/dry-run']) {
        ctx.clock.advance(61_000);
        const missing = await request(ctx.app)
          .post(path)
          .set(as(users[1]!))
          .send(recipeBody({ replicates: MISSING_ID }));
        expect(missing.status, path).to.equal(400);
        expect(missing.body).to.deep.equal({
          error: 'Validation failed',
          details: {
            fieldErrors: {
              replicates: ['No approved run has this id: name the run you measured again (its id is in its address, /runs/<id>)'],
            },
            formErrors: [],
          },
        });
      }
      const malformed = await send(users[1]!, recipeBody({ replicates: 'run-7' }));
      expect(malformed.status).to.equal(400);
      expect(malformed.body.details.fieldErrors.replicates).to.deep.equal(['Must be a run id (uuid)']);
    });

    it('counts a run of the same recipe on the same device by another user, with the spread of their speeds', async () => {
      // The card spelled another way and another CPU: still one device and one recipe.
      replication = await submit(
        users[1]!,
        recipeBody({
          tokSOut: 44,
          replicates: original.id,
          hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24, cpu: 'Intel Core i9-13900K' },
          engineFlags: { commandSnippet: 'llama-server -m /models/other.gguf -ngl 99 -fa', warmup: 5 },
        }),
      );
      expect(replication.replicates).to.deep.equal({ runId: original.id, counted: true, reason: null });
      expect(replication.recipe.key).to.equal((await read(original.id)).recipe.key);
      expect(replication.replications).to.deep.equal({ count: 1, minTokS: 40, maxTokS: 44, spread: 1.1, runs: [original.id] });
      expect((await read(original.id)).replications).to.deep.equal({
        count: 1,
        minTokS: 40,
        maxTokS: 44,
        spread: 1.1,
        runs: [replication.id],
      });
      expect(await boardIds({ replicated: 'true' })).to.have.members([original.id, replication.id]);
    });

    it('stores a replicates whose recipe, device or user differs, says why, and does not count it', async () => {
      const otherBuild = await submit(users[2]!, recipeBody({ tokSOut: 60, replicates: original.id, engineVersion: 'b6000' }));
      expect(otherBuild.replicates).to.deep.equal({
        runId: original.id,
        counted: false,
        reason: 'another recipe: the engine build differs',
      });
      const twoCards = await submit(
        users[3]!,
        recipeBody({
          tokSOut: 70,
          replicates: original.id,
          hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', gpuCount: 2, vramGb: 24 },
        }),
      );
      expect(twoCards.replicates.counted).to.equal(false);
      expect(twoCards.replicates.reason).to.equal('measured on another device or card count (nvidia-rtx-4090×2, not nvidia-rtx-4090×1)');
      const sameUser = await submit(users[0]!, recipeBody({ tokSOut: 41, replicates: original.id }));
      expect(sameUser.replicates).to.deep.include({ counted: false, reason: 'the same user measured both runs' });
      // The same user's second run is no replication of the first; the other user's run counts for both of them.
      const first = await read(original.id);
      expect(first.replications).to.deep.include({ count: 1, runs: [replication.id] });
      expect((await read(replication.id)).replications).to.deep.include({ count: 2, minTokS: 40, maxTokS: 44 });
      expect(await boardIds({ replicated: 'true' })).to.have.members([original.id, replication.id, sameUser.id]);
      const unreplicated = await boardIds({ replicated: 'false' });
      expect(unreplicated).to.include.members([otherBuild.id, twoCards.id]);
      expect(unreplicated).to.not.include(original.id);
    });

    it('follows runs as they are withdrawn and corrected: counts, notes and the filter', async () => {
      // A run of the recipe that names the replication rather than the original: a replication of both.
      const late = await submit(users[4]!, recipeBody({ tokSOut: 39, replicates: replication.id }));
      expect(late.replicates).to.deep.equal({ runId: replication.id, counted: true, reason: null });
      expect((await read(original.id)).replications).to.deep.include({ count: 2, minTokS: 39, maxTokS: 44 });

      const withdrawn = await request(ctx.app).delete(`/api/speed-tests/${replication.id}`).set(as(users[1]!));
      expect(withdrawn.status).to.equal(200);
      expect((await read(original.id)).replications).to.deep.equal({ count: 1, minTokS: 39, maxTokS: 40, spread: 1.026, runs: [late.id] });
      expect((await read(late.id)).replicates).to.deep.equal({
        runId: replication.id,
        counted: false,
        reason: 'the run it names is no longer approved',
      });
      expect(await boardIds({ replicated: 'true' })).to.have.members([original.id, late.id, (await sameUserRun()).id]);

      // The other build corrected to the recipe's build: now it counts.
      const [otherBuild] = await ctx.db('speed_test_runs').where({ user_id: users[2]!.id }).pluck('id');
      expect(await boardIds({ replicated: 'true' })).to.not.include(otherBuild);
      const corrected = await request(ctx.app).patch(`/api/speed-tests/${otherBuild}`).set(as(users[2]!)).send({ engineVersion: 'b5000' });
      expect(corrected.status, JSON.stringify(corrected.body)).to.equal(200);
      expect(corrected.body.replicates).to.deep.equal({ runId: original.id, counted: true, reason: null });
      expect((await read(original.id)).replications).to.deep.include({ count: 2, minTokS: 39, maxTokS: 60, spread: 1.538 });
      expect(await boardIds({ replicated: 'true' })).to.include.members([original.id, late.id, otherBuild]);

      // Naming a run that is not approved in a correction is refused like a submission, and so is the run itself.
      const refused = await request(ctx.app)
        .patch(`/api/speed-tests/${otherBuild}`)
        .set(as(users[2]!))
        .send({ replicates: replication.id });
      expect(refused.status).to.equal(400);
      expect(refused.body.details.fieldErrors.replicates).to.have.length(1);
      const itself = await request(ctx.app).patch(`/api/speed-tests/${otherBuild}`).set(as(users[2]!)).send({ replicates: otherBuild });
      expect(itself.status).to.equal(400);
      expect(itself.body.details.fieldErrors.replicates).to.deep.equal(['A run cannot replicate itself: name the run you measured again']);
    });

    it('tells agents how to replicate a run and filter on replication (agent-context, OpenAPI)', async () => {
      const context = (await request(ctx.app).get('/api/agent-context').expect(200)).body;
      expect(context.quickStart.join('\n')).to.include('submit with "replicates": "<its id>" (llm-bench reproduce <id> does both)');
      expect(JSON.stringify(context)).to.include('replicated=true keeps runs that another user measured again with the same recipe');
      const openapi = JSON.stringify((await request(ctx.app).get('/api/openapi.json').expect(200)).body);
      expect(openapi).to.include('The id of an approved run this one measures again with the same recipe');
      expect(openapi).to.include('`true`: only runs with at least one replication');
    });

    it("gives the verdict a run's replications with their users and speeds", async () => {
      const replications = createOfflineServices(ctx.db, revision3Profile).replications;
      const of = await replications.of(original.id);
      const [otherBuild] = await ctx.db('speed_test_runs').where({ user_id: users[2]!.id }).pluck('id');
      const late = await ctx.db('speed_test_runs').where({ user_id: users[4]!.id }).first('id');
      expect(of).to.deep.equal({
        count: 2,
        minTokS: 39,
        maxTokS: 60,
        spread: 1.538,
        runs: [
          { id: otherBuild, userId: users[2]!.id, tokSOut: 60 },
          { id: late.id, userId: users[4]!.id, tokSOut: 39 },
        ],
      });
      expect(await replications.of(MISSING_ID)).to.equal(null);
    });
  });
}

describe('replications follow an admin mapping a hardware name onto a device', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  const UNKNOWN_GPU = 'Frobnicator 9000 Pro';
  let admin: Account;
  let onUnknown: Body;
  let onKnown: Body;

  before(async () => {
    admin = await account(ctx, 'repboss', { admin: true });
    onUnknown = await submitRun(ctx, await account(ctx, 'repa'), {
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: UNKNOWN_GPU, vramGb: 24 },
      tokSOut: 30,
    });
    onKnown = await submitRun(ctx, await account(ctx, 'repb'), {
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
      tokSOut: 33,
    });
  });
  after(() => setHardwareMappings([]));

  const count = async (id: string) => (await request(ctx.app).get(`/api/speed-tests/${id}`).expect(200)).body.replications.count;
  const replicatedIds = async () =>
    (await request(ctx.app).get('/api/leaderboard').query({ replicated: 'true' }).expect(200)).body.rows.map((row: Body) => row.id);
  const post = (path: string, fields: Record<string, string>) =>
    admin.agent
      .post(path)
      .type('form')
      .send({ _csrf: admin.csrf, ...fields });

  it('joins the runs of a name mapped onto the device, and parts them when the mapping goes', async () => {
    expect([await count(onUnknown.id), await count(onKnown.id)]).to.deep.equal([0, 0]);
    await post('/admin/hardware/map', { kind: 'gpu', name: UNKNOWN_GPU, device: 'NVIDIA GeForce RTX 4090' }).expect(303);
    expect([await count(onUnknown.id), await count(onKnown.id)]).to.deep.equal([1, 1]);
    expect(await replicatedIds()).to.have.members([onUnknown.id, onKnown.id]);
    await post('/admin/hardware/unmap', { kind: 'gpu', name: UNKNOWN_GPU }).expect(303);
    expect([await count(onUnknown.id), await count(onKnown.id)]).to.deep.equal([0, 0]);
    expect(await replicatedIds()).to.deep.equal([]);
  });
});

describe('replications of runs approved at the same time', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });

  it('counts each other when two runs of one group are approved in overlapping transactions', async () => {
    const [first, second] = [await account(ctx, 'race'), await account(ctx, 'race')];
    const x = await submitRun(ctx, first, { tokSOut: 20 });
    const y = await submitRun(ctx, second, { tokSOut: 22 });
    await ctx.db('speed_test_runs').whereIn('id', [x.id, y.id]).update({ status: 'REJECTED' });
    const count = async (id: string) => (await ctx.db('speed_test_runs').where({ id }).first('replication_count')).replication_count;
    expect([await count(x.id), await count(y.id)]).to.deep.equal([0, 0]);

    // x approved in a transaction left open; y approved in another, which must wait its turn.
    const open = await ctx.db.transaction();
    await open('speed_test_runs').where({ id: x.id }).update({ status: 'APPROVED' });
    const later = ctx.db.transaction(async (trx) => {
      await trx('speed_test_runs').where({ id: y.id }).update({ status: 'APPROVED' });
    });
    // Until the first commits, the second waits on a lock (the group's), not on a stale count.
    for (let waited = 0; ; waited += 1) {
      const { rows } = await ctx.db.raw(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      if (rows[0].n > 0) break;
      expect(waited, 'the second transaction waits on a lock').to.be.below(500);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await open.commit();
    await later;
    expect([await count(x.id), await count(y.id)]).to.deep.equal([1, 1]);
  });
});
