import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp, type TestContext } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { auditRowsFor } from '../helpers/moderation.ts';

// Owners correct (PATCH, within 24 hours) and withdraw (DELETE) their runs and list their
// own in every status (GET /mine); DECISIONS.md "Speed-test ranking" and "Statuses".
// Expected values come from the spec (paths, windows) and the decisions, not the profiles.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NOT_FOUND = { error: 'Speed-test run not found' };
const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const TOO_OLD = {
  error:
    'Runs can be corrected within 24 hours of submitting, and this one is older. It can still be withdrawn (DELETE), and a new run submitted.',
};

interface Case {
  revision: 1 | 2 | 3;
  path: '/api/benchmarks' | '/api/speed-tests';
  windowMs: number;
  readIndex: 'on' | 'off';
}

const CASES: Case[] = [
  { revision: 1, path: '/api/benchmarks', windowMs: 5 * MINUTE, readIndex: 'on' },
  { revision: 2, path: '/api/benchmarks', windowMs: 5 * MINUTE, readIndex: 'on' },
  { revision: 3, path: '/api/speed-tests', windowMs: MINUTE, readIndex: 'on' },
  // The SQL path (count tables, no read index) must follow owners' changes too.
  { revision: 3, path: '/api/speed-tests', windowMs: MINUTE, readIndex: 'off' },
];

type Body = Record<string, any>;

interface Owner {
  id: string;
  username: string;
  key: string;
}

async function newOwner(ctx: TestContext): Promise<Owner> {
  const { agent, csrf, username } = await signedUpAgent(ctx.app);
  const { key } = await createKey(agent, csrf);
  const { id } = await ctx.db('users').where({ username }).first('id');
  return { id, username, key };
}

/** A run valid in every revision: a single RTX 4090, the fake hub's dense 7B model. */
const runBody = (overrides: Body = {}): Body =>
  validSubmission({
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
    engineFlags: { commandSnippet: 'llama-server -m model.gguf -c 4096' },
    ...overrides,
  });

for (const c of CASES) {
  describe(`owners fix their runs at ${c.path} (revision ${c.revision}, read index ${c.readIndex})`, () => {
    const ctx = useTestApp({ API_REVISION: String(c.revision), READ_INDEX: c.readIndex }, { fakeHub: true });
    let owner: Owner;
    let other: Owner;

    before(async () => {
      owner = await newOwner(ctx);
      other = await newOwner(ctx);
    });

    const as = (who: Owner) => ({ Authorization: `Bearer ${who.key}` });

    /** Submits as `who` after the rate-limit window has passed. */
    async function submit(who: Owner, overrides: Body = {}): Promise<Body> {
      ctx.clock.advance(c.windowMs + 1000);
      const res = await request(ctx.app).post(c.path).set(as(who)).send(runBody(overrides));
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body;
    }
    const patch = (who: Owner, id: string, body: Body) => request(ctx.app).patch(`${c.path}/${id}`).set(as(who)).send(body);
    const withdraw = (who: Owner, id: string) => request(ctx.app).delete(`${c.path}/${id}`).set(as(who));
    const benchmarkCount = async (hfId: string) =>
      (await ctx.db('models').where({ hf_id: hfId }).first('benchmark_count'))?.benchmark_count ?? 0;
    const listIds = async (query: Body = {}) =>
      (
        await request(ctx.app)
          .get(c.path)
          .query({ limit: 100, ...query })
          .expect(200)
      ).body.benchmarks.map((run: Body) => run.id);
    const boardIds = async (query: Body = {}) =>
      (
        await request(ctx.app)
          .get('/api/leaderboard')
          .query({ limit: 200, ...query })
          .expect(200)
      ).body.rows.map((row: Body) => row.id);

    it('corrects a run within 24 hours: the merged whole re-normalised, plausibility recomputed, untouched fields kept', async () => {
      const run = await submit(owner);
      expect(run.plausibility).to.equal('plausible');
      ctx.clock.advance(23 * HOUR);
      const res = await patch(owner, run.id, {
        tokSOut: 5000,
        hardware: { hwClass: 'DISCRETE_GPU', gpus: [{ gpuName: 'NVIDIA GeForce RTX 4090', count: 2, vramGb: 24 }] },
        engineFlags: { commandSnippet: 'llama-server -m model.gguf -ngl 99 -fa' },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({
        id: run.id,
        status: 'APPROVED',
        tokSOut: 5000,
        quantization: 'Q4_K_M',
        ttftMs: 180,
        createdAt: run.createdAt,
      });
      // Two identical slots are the flat form; the flags are parsed again from the new command.
      expect(res.body.hardware).to.include({ gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: 2, totalVramGb: 48, isHeterogeneousGpu: false });
      expect(res.body.engineFlags).to.include({ commandSnippet: 'llama-server -m model.gguf -ngl 99 -fa', gpuLayers: 99, flashAttn: true });
      // 5,000 tok/s of a 7B model at batch 1 is beyond what two cards' memory can feed.
      expect(res.body.plausibility).to.equal('suspect');
      expect(res.body.decodeBoundTokS).to.be.below(5000);
      expect(res.body.correctedAt).to.be.a('string');
      expect(res.body.correctableUntil).to.equal(new Date(Date.parse(run.createdAt) + 24 * HOUR).toISOString());
      // The public read answers the corrected run.
      const read = (await request(ctx.app).get(`${c.path}/${run.id}`).expect(200)).body;
      expect(read).to.include({ tokSOut: 5000, plausibility: res.body.plausibility });
      expect(read.hardware.gpuCount).to.equal(2);
    });

    it('drops an optional field given as null and puts a defaulted one back to its default', async () => {
      // A command that states no context, so nothing but the default can fill it.
      const run = await submit(owner, {
        contextLength: 8192,
        notes: 'first try',
        engineFlags: { commandSnippet: 'llama-server -m model.gguf' },
      });
      const res = await patch(owner, run.id, { notes: null, contextLength: null });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ notes: null, contextLength: 2048, ttftMs: 180 });
      expect(res.body.defaultedFields).to.include('contextLength');
    });

    it('keeps a field the submitter never gave as not stated through a correction of other fields', async () => {
      const run = await submit(owner, { contextLength: undefined, engineFlags: { commandSnippet: 'llama-server -m model.gguf' } });
      expect(run.defaultedFields).to.include('contextLength');
      const res = await patch(owner, run.id, { tokSOut: 120 });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ tokSOut: 120, contextLength: 2048 });
      expect(res.body.defaultedFields).to.include('contextLength');
      // Stated in a correction, it is stated from then on.
      const stated = await patch(owner, run.id, { contextLength: 2048 });
      expect(stated.body.defaultedFields).not.to.include('contextLength');
    });

    it('keeps what a correction does not name, down to the same hardware profile and engine row (a mixed-GPU run too)', async () => {
      const gpus = [
        { gpuName: 'NVIDIA GeForce RTX 4090', count: 1, vramGb: 24 },
        { gpuName: 'NVIDIA GeForce RTX 3090', count: 2, vramGb: 24 },
      ];
      const run = await submit(owner, {
        hardware: { hwClass: 'DISCRETE_GPU', gpus, os: 'Ubuntu 24.04' },
        engineVersion: 'b4500',
        backend: 'cuda',
        modelRevision: 'abc123',
      });
      const res = await patch(owner, run.id, { tokSOut: 30 });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({
        hardwareId: run.hardwareId,
        engineId: run.engineId,
        modelId: run.modelId,
        engineVersion: 'b4500',
        backend: 'cuda',
        modelRevision: 'abc123',
        tokSOut: 30,
      });
      expect(res.body.hardware).to.deep.equal(run.hardware);
      expect(res.body.engineFlags).to.deep.equal(run.engineFlags);
    });

    it("moves the run between the models' run counts and filters when the model changes", async () => {
      const run = await submit(owner);
      const [denseBefore, quantBefore] = [await benchmarkCount(fakeHubModels.dense), await benchmarkCount(fakeHubModels.ggufQuant)];
      const res = await patch(owner, run.id, { hfId: fakeHubModels.ggufQuant });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.model.hfId).to.equal(fakeHubModels.ggufQuant);
      expect(await benchmarkCount(fakeHubModels.dense)).to.equal(denseBefore - 1);
      expect(await benchmarkCount(fakeHubModels.ggufQuant)).to.equal(quantBefore + 1);
      expect(await boardIds({ hfId: fakeHubModels.ggufQuant })).to.include(run.id);
      expect(await listIds({ hfId: fakeHubModels.ggufQuant })).to.include(run.id);
    });

    it('moves a corrected run to its new hardware class on the leaderboard and the list', async () => {
      const run = await submit(owner);
      expect(await boardIds({ hwClass: 'DISCRETE_GPU' })).to.include(run.id);
      const before = (await request(ctx.app).get('/api/leaderboard').query({ hwClass: 'CPU_ONLY' }).expect(200)).body.total;
      await patch(owner, run.id, { hardware: { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 384 }, tokSOut: 9.5 }).expect(200);
      expect(await boardIds({ hwClass: 'DISCRETE_GPU' })).to.not.include(run.id);
      expect(await boardIds({ hwClass: 'CPU_ONLY' })).to.include(run.id);
      expect(await listIds({ hwClass: 'CPU_ONLY' })).to.include(run.id);
      expect((await request(ctx.app).get('/api/leaderboard').query({ hwClass: 'CPU_ONLY' }).expect(200)).body.total).to.equal(before + 1);
    });

    it('answers a correction that fails validation with 400 and field errors, changing nothing', async () => {
      const run = await submit(owner);
      const res = await patch(owner, run.id, {
        tokSOut: -1,
        hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090' },
        colour: 'red',
      });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('Validation failed');
      expect(res.body.details.fieldErrors).to.have.keys(['tokSOut', 'hardware.vramGb', 'colour']);
      // The merged whole is checked too: the required fields cannot be dropped.
      const dropped = await patch(owner, run.id, { hfId: null });
      expect(dropped.status).to.equal(400);
      expect(dropped.body.details.fieldErrors).to.deep.equal({ hfId: ['Required'] });
      expect((await request(ctx.app).get(`${c.path}/${run.id}`).expect(200)).body.tokSOut).to.equal(run.tokSOut);
    });

    it("answers 404 for another user's run and for a missing one, alike", async () => {
      const run = await submit(owner);
      for (const res of [
        await patch(other, run.id, { tokSOut: 1 }),
        await patch(other, MISSING_ID, { tokSOut: 1 }),
        await withdraw(other, run.id),
        await withdraw(other, MISSING_ID),
      ]) {
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.equal(NOT_FOUND);
      }
      expect((await request(ctx.app).get(`${c.path}/${run.id}`).expect(200)).body.status).to.equal('APPROVED');
    });

    it('refuses a correction after 24 hours with 409, and the run can still be withdrawn', async () => {
      const run = await submit(owner);
      ctx.clock.advance(24 * HOUR + 1000);
      const res = await patch(owner, run.id, { tokSOut: 40 });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.equal(TOO_OLD);
      expect((await withdraw(owner, run.id)).body.status).to.equal('WITHDRAWN');
    });

    it("withdraws a run: gone from the list, the leaderboard, the counts and its model's run count; the owner still sees it", async () => {
      const run = await submit(owner);
      const listTotal = (await request(ctx.app).get(c.path).expect(200)).body.total;
      const boardTotal = (await request(ctx.app).get('/api/leaderboard').expect(200)).body.total;
      const modelCount = await benchmarkCount(fakeHubModels.dense);

      const res = await withdraw(owner, run.id);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ id: run.id, status: 'WITHDRAWN', correctableUntil: null });
      expect(res.body.withdrawnAt).to.be.a('string');

      expect(await listIds()).to.not.include(run.id);
      expect(await boardIds()).to.not.include(run.id);
      expect((await request(ctx.app).get(c.path).expect(200)).body.total).to.equal(listTotal - 1);
      expect((await request(ctx.app).get('/api/leaderboard').expect(200)).body.total).to.equal(boardTotal - 1);
      expect(await benchmarkCount(fakeHubModels.dense)).to.equal(modelCount - 1);
      expect((await request(ctx.app).get(`${c.path}/${run.id}`).expect(404)).body).to.deep.equal(NOT_FOUND);

      // Again: the same answer, nothing counted twice, one audit entry.
      const again = await withdraw(owner, run.id);
      expect(again.status).to.equal(200);
      expect(again.body).to.include({ status: 'WITHDRAWN', withdrawnAt: res.body.withdrawnAt });
      expect(await benchmarkCount(fakeHubModels.dense)).to.equal(modelCount - 1);
      expect((await auditRowsFor(ctx, run.id)).map((row) => row.action)).to.deep.equal(['speed_test.withdrawn']);

      const corrected = await patch(owner, run.id, { tokSOut: 40 });
      expect(corrected.status).to.equal(409);
      expect(corrected.body.error).to.equal('This run is withdrawn, so it cannot be corrected. Submit a new run instead.');
      const mine = (await request(ctx.app).get(`${c.path}/mine`).set(as(owner)).expect(200)).body;
      expect(mine.benchmarks.find((item: Body) => item.id === run.id)).to.include({ status: 'WITHDRAWN' });
    });

    it("lists the caller's runs in every status, newest first, with the admin's reason, paged", async () => {
      const mineOf = async (who: Owner, query: Body = {}) =>
        (await request(ctx.app).get(`${c.path}/mine`).set(as(who)).query(query).expect(200)).body;
      const rejected = await submit(other);
      const withdrawn = await submit(other);
      const approved = await submit(other);
      await ctx
        .db('speed_test_runs')
        .where({ id: rejected.id })
        .update({ status: 'REJECTED', rejected_reason: 'Faster than the card can read its weights', rejected_at: ctx.clock.now() });
      await withdraw(other, withdrawn.id).expect(200);

      const all = await mineOf(other);
      expect(all).to.include({ total: 3, limit: 20, offset: 0 });
      expect(all.benchmarks.map((run: Body) => [run.id, run.status])).to.deep.equal([
        [approved.id, 'APPROVED'],
        [withdrawn.id, 'WITHDRAWN'],
        [rejected.id, 'REJECTED'],
      ]);
      expect(all.benchmarks[2]).to.include({ rejectedReason: 'Faster than the card can read its weights', correctableUntil: null });
      expect(all.benchmarks[0].correctableUntil).to.be.a('string');
      const second = await mineOf(other, { limit: 1, offset: 1 });
      expect(second).to.include({ total: 3, limit: 1, offset: 1 });
      expect(second.benchmarks.map((run: Body) => run.id)).to.deep.equal([withdrawn.id]);

      // Nobody else's runs, and nothing for anonymous callers.
      expect((await mineOf(owner)).benchmarks.map((run: Body) => run.id)).to.not.include(approved.id);
      expect((await request(ctx.app).get(`${c.path}/mine`)).status).to.equal(401);
      expect((await request(ctx.app).get(`${c.path}/mine`).set(as(other)).query({ limit: 101 })).status).to.equal(400);
    });

    it('does not use the rate limit: a correction right after a submission succeeds, and the next submission is limited as before', async () => {
      const run = await submit(owner);
      const window = await ctx.db('submission_windows').where({ user_id: owner.id }).first();
      ctx.clock.advance(1000);
      expect((await patch(owner, run.id, { tokSOut: 41 })).status).to.equal(200);
      expect((await patch(owner, run.id, { tokSOut: 40 })).status).to.equal(200);
      const limited = await request(ctx.app).post(c.path).set(as(owner)).send(runBody());
      expect(limited.status).to.equal(429);
      expect(limited.body.lastSubmittedAt).to.equal(run.createdAt);
      expect(limited.body.retryAfterMs).to.equal(c.windowMs - 1000);
      expect(await ctx.db('submission_windows').where({ user_id: owner.id }).first()).to.deep.equal(window);
    });

    it('audits a correction with the owner as the actor and what changed', async () => {
      const run = await submit(owner);
      await patch(owner, run.id, { tokSOut: 38.2, notes: 'Measured again' }).expect(200);
      const [entry] = await auditRowsFor(ctx, run.id);
      expect(entry).to.include({
        action: 'speed_test.corrected',
        actor_id: owner.id,
        actor_username: owner.username,
        target_kind: 'speed_test_run',
      });
      expect(entry.target_label).to.equal(`${fakeHubModels.dense} by @${owner.username} (${run.id.slice(0, 8)})`);
      expect(entry.reason).to.equal('Changed tokSOut: 42.5 -> 38.2; notes: (none) -> "Measured again"');
    });

    it('audits changes inside the hardware field by field, and a resent hardware in another key order as no change', async () => {
      const run = await submit(owner);
      await patch(owner, run.id, { hardware: { vramGb: 24, gpuName: 'NVIDIA GeForce RTX 4090', hwClass: 'DISCRETE_GPU' } }).expect(200);
      await patch(owner, run.id, { hardware: { vramGb: 48, gpuName: 'NVIDIA GeForce RTX 4090', hwClass: 'DISCRETE_GPU' } }).expect(200);
      const reasons = (await auditRowsFor(ctx, run.id)).map((row) => row.reason);
      expect(reasons).to.have.members(['Re-validated; no field changed', 'Changed hardware.vramGb: 24 -> 48']);
    });
  });
}
