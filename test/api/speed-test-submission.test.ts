import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp, type Agent, type TestContext } from '../helpers/app.ts';
import { fakeHubApiResponses, fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';

// Expected values come from the spec (Limits, Errors, Versioning), not from the profiles.
interface Revision {
  revision: 1 | 2 | 3;
  path: '/api/benchmarks' | '/api/speed-tests';
  windowMs: number;
  rateLimitMessage: string;
  dryRun: boolean;
  /** Drop these metrics from a valid payload to break the revision's metric rule, and the status it answers. */
  metricFailure: { omit: string[]; status: 400 | 422 };
}

const MINUTE = 60_000;
const REVISIONS: Revision[] = [
  {
    revision: 1,
    path: '/api/benchmarks',
    windowMs: 5 * MINUTE,
    rateLimitMessage: 'Rate limit exceeded. You may submit once every 5 minutes.',
    dryRun: false,
    metricFailure: { omit: ['tokSOut', 'ttftMs'], status: 422 },
  },
  {
    revision: 2,
    path: '/api/benchmarks',
    windowMs: 5 * MINUTE,
    rateLimitMessage: 'Rate limit exceeded. You may submit once every 5 minutes.',
    dryRun: true,
    metricFailure: { omit: ['ttftMs'], status: 422 },
  },
  {
    revision: 3,
    path: '/api/speed-tests',
    windowMs: MINUTE,
    rateLimitMessage: 'Rate limit exceeded. You may submit once every 1 minute.',
    dryRun: true,
    metricFailure: { omit: ['tokSOut'], status: 400 },
  },
];

const AUTH_REQUIRED = { error: 'Authentication required. Use a session cookie or Authorization: Bearer <api_key>' };
const HUB_UNAVAILABLE = { error: 'Model hub unavailable, retry later' };
const DEPRECATION_HEADERS = { deprecation: 'true', link: '</api/speed-tests>; rel="successor-version"' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Body = Record<string, unknown>;

/** A submission valid in every revision (tokSOut plus a secondary metric, flags with a snippet). */
function payload(overrides: Body = {}, omit: string[] = []): Body {
  const body = validSubmission({
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 },
    engineFlags: { commandSnippet: 'llama-server -m model.gguf', kvCacheDtype: 'q8_0' },
    ...overrides,
  });
  for (const field of omit) delete body[field];
  return body;
}

interface Submitter {
  id: string;
  username: string;
  key: string;
  agent: Agent;
  csrf: string;
}

async function newSubmitter(ctx: TestContext): Promise<Submitter> {
  const { agent, csrf, username } = await signedUpAgent(ctx.app);
  const { key } = await createKey(agent, csrf);
  const { id } = await ctx.db('users').where({ username }).first('id');
  return { id, username, key, agent, csrf };
}

function post(ctx: TestContext, path: string, key: string, body: Body, headers: Record<string, string> = {}) {
  return request(ctx.app)
    .post(path)
    .set({ Authorization: `Bearer ${key}`, ...headers })
    .send(body);
}

async function count(ctx: TestContext, table: string, where: Body = {}): Promise<number> {
  const [{ n }] = await ctx.db(table).where(where).count('* as n');
  return Number(n);
}

async function modelRow(ctx: TestContext, hfId: string) {
  return ctx.db('models').whereRaw('lower(hf_id) = lower(?)', [hfId]).first();
}

function expectHeaders(res: request.Response, headers: Record<string, string>) {
  for (const [name, value] of Object.entries(headers)) expect(res.headers[name], name).to.equal(value);
}

function expectNoDeprecation(res: request.Response) {
  expect(res.headers).not.to.have.property('deprecation');
  expect(res.headers).not.to.have.property('link');
}

for (const rev of REVISIONS) {
  const { revision, path, windowMs } = rev;

  describe(`speed-test submission, revision ${revision} (POST ${path})`, () => {
    const ctx = useTestApp({ API_REVISION: String(revision) }, { fakeHub: true, hubTimeoutMs: 300 });
    let alice: Submitter;
    let bob: Submitter;

    const submit = (who: Submitter, body: Body = payload(), headers: Record<string, string> = {}) =>
      post(ctx, path, who.key, body, headers);
    /** Expects a 201 and returns the stored run. */
    const accepted = async (who: Submitter, body: Body = payload(), headers: Record<string, string> = {}) => {
      const res = await submit(who, body, headers);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res;
    };
    const runsOf = (who: Submitter) => count(ctx, 'speed_test_runs', { user_id: who.id });

    before(async () => {
      [alice, bob] = [await newSubmitter(ctx), await newSubmitter(ctx)];
    });

    // Every test starts with every user's window open.
    beforeEach(() => ctx.clock.advance(windowMs));

    describe('a successful submission', () => {
      it('answers 201 with the stored run, Location and the rate-limit headers', async () => {
        const now = ctx.clock.now();
        const res = await accepted(alice);
        const run = res.body;
        expect(run.id).to.match(UUID);
        for (const field of ['modelId', 'hardwareId', 'engineId']) expect(run[field], field).to.match(UUID);
        expect(run).to.include({
          userId: alice.id,
          status: 'APPROVED',
          createdAt: now.toISOString(),
          hfId: fakeHubModels.dense,
          tokSOut: 42.5,
          ttftMs: 180,
        });
        expect(run.model).to.include({
          id: run.modelId,
          hfId: fakeHubModels.dense,
          displayName: 'Dense-7B',
          family: 'llama',
          params: 7.24,
          isMoE: false,
          baseHfId: null,
          baseRelation: null,
        });
        expect(run.hardware).to.include({ id: run.hardwareId, hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24, gpuCount: 1 });
        expect(run.engine).to.include({ id: run.engineId, name: 'llama.cpp' });
        expect(run.engineFlags).to.include({ commandSnippet: 'llama-server -m model.gguf', kvCacheDtype: 'q8_0' });
        expect(run.user).to.deep.equal({
          id: alice.id,
          username: alice.username,
          displayName: `Display ${alice.username}`,
          verified: false,
          demo: false,
        });
        expect(run.demo).to.equal(false);
        expect(run.reactionCounts).to.deep.equal({});
        expect(run.myEmoji).to.equal(null);

        expectHeaders(res, {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.ceil((now.getTime() + windowMs) / 1000)),
          location: `${path}/${run.id}`,
        });
        expectNoDeprecation(res);
        const shown = await request(ctx.app).get(res.headers.location!).expect(200);
        expect(shown.body).to.deep.equal(run);
        expect((await ctx.db('speed_test_runs').where({ id: run.id }).first()).created_at.toISOString()).to.equal(now.toISOString());
      });
    });

    describe('the model hub check', () => {
      // A clean catalogue per test: whether a base is catalogued is what these tests vary.
      beforeEach(async () => {
        await ctx.db('speed_test_runs').del();
        await ctx.db('models').del();
      });

      it('catalogues a dense model with family, params, isMoE and the hub sha', async () => {
        const run = (await accepted(alice, payload({ hfId: fakeHubModels.dense }))).body;
        const row = await modelRow(ctx, fakeHubModels.dense);
        expect(row).to.include({
          id: run.modelId,
          hf_id: 'fakeorg/Dense-7B',
          display_name: 'Dense-7B',
          family: 'llama',
          params: 7.24,
          is_moe: false,
          gated: false,
        });
        expect(row.hub_sha).to.equal(fakeHubApiResponses[fakeHubModels.dense]!.sha);
        expect(ctx.hub.requests.map((r) => r.path)).to.include('/api/models/fakeorg/Dense-7B');
      });

      it('accepts and catalogues a gated model', async () => {
        const run = (await accepted(alice, payload({ hfId: fakeHubModels.gated }))).body;
        expect(run.model).to.include({ hfId: fakeHubModels.gated, params: 13.02, isMoE: false });
        expect(await modelRow(ctx, fakeHubModels.gated)).to.include({ gated: true, family: 'llama' });
      });

      it('records a GGUF repo as quantized from the base the hub names', async () => {
        const run = (await accepted(alice, payload({ hfId: fakeHubModels.ggufQuant }))).body;
        expect(run.model).to.include({
          hfId: fakeHubModels.ggufQuant,
          baseHfId: 'fakeorg/Dense-7B',
          baseRelation: 'quantized',
          params: 7.24,
        });
        // The base is not catalogued yet: the link by row waits for it.
        expect(await modelRow(ctx, fakeHubModels.ggufQuant)).to.include({ base_hf_id: 'fakeorg/Dense-7B', base_model_id: null });
        expect(await modelRow(ctx, fakeHubModels.dense)).to.equal(undefined);
      });

      it('gives a finetune without its own parameter count the params of its catalogued base, and links it', async () => {
        const base = (await accepted(alice, payload({ hfId: fakeHubModels.dense }))).body;
        ctx.clock.advance(windowMs);
        const run = (await accepted(alice, payload({ hfId: fakeHubModels.finetune }))).body;
        expect(run.model).to.include({
          hfId: fakeHubModels.finetune,
          params: 7.24,
          paramsApproximate: false,
          baseHfId: 'fakeorg/Dense-7B',
          baseRelation: 'finetune',
        });
        expect(await modelRow(ctx, fakeHubModels.finetune)).to.include({ base_model_id: base.modelId, params: 7.24 });
      });

      it('links already catalogued children when their base is catalogued later', async () => {
        await accepted(alice, payload({ hfId: fakeHubModels.ggufQuant }));
        await accepted(bob, payload({ hfId: fakeHubModels.finetune }));
        ctx.clock.advance(windowMs);
        const base = (await accepted(alice, payload({ hfId: fakeHubModels.dense }))).body;
        expect(await modelRow(ctx, fakeHubModels.ggufQuant)).to.include({ base_model_id: base.modelId, base_relation: 'quantized' });
        expect(await modelRow(ctx, fakeHubModels.finetune)).to.include({ base_model_id: base.modelId, base_relation: 'finetune' });
      });

      const moeCases = [
        ['its architecture (Mixtral)', fakeHubModels.moeByArchitecture],
        ['the expert count in its config.json', fakeHubModels.moeByConfig],
      ] as const;
      for (const [label, hfId] of moeCases) {
        it(`marks a model as MoE from ${label}`, async () => {
          const run = (await accepted(alice, payload({ hfId }))).body;
          expect(run.model).to.include({ hfId, isMoE: true });
          expect(await modelRow(ctx, hfId)).to.include({ is_moe: true });
        });
      }

      it('does not look a catalogued model up again, whatever the spelling', async () => {
        const first = (await accepted(alice, payload({ hfId: fakeHubModels.dense }))).body;
        const lookups = ctx.hub.requests.length;
        expect(lookups).to.be.greaterThan(0);
        ctx.clock.advance(windowMs);
        const again = (await accepted(alice, payload({ hfId: fakeHubModels.dense }))).body;
        const otherCase = (await accepted(bob, payload({ hfId: 'FAKEORG/dense-7b' }))).body;
        expect(ctx.hub.requests.length).to.equal(lookups);
        expect([again.modelId, otherCase.modelId]).to.deep.equal([first.modelId, first.modelId]);
        expect(otherCase.hfId).to.equal(fakeHubModels.dense);
        expect(await count(ctx, 'models')).to.equal(1);
      });

      /** Nothing of the failed submission is stored, and the same user may submit at once. */
      async function expectNothingWrittenAndWindowOpen(hfId: string) {
        expect(await modelRow(ctx, hfId)).to.equal(undefined);
        expect(await count(ctx, 'speed_test_runs')).to.equal(0);
        await accepted(alice);
      }

      const notFound = [
        ['unknown to the hub (401 RepoNotFound)', fakeHubModels.missing],
        ['deleted from the hub (404)', fakeHubModels.deleted],
      ] as const;
      for (const [label, hfId] of notFound) {
        it(`answers 404 naming the id and the hub for a model ${label}, writing nothing`, async () => {
          const res = await submit(alice, payload({ hfId }));
          expect(res.status).to.equal(404);
          expect(res.body).to.have.all.keys('error');
          expect(res.body.error).to.include(hfId).and.to.include(ctx.hub.url).and.to.include('not found');
          await expectNothingWrittenAndWindowOpen(hfId);
        });
      }

      const unavailable = [
        ['rate-limits us (429, Retry-After 42)', fakeHubModels.rateLimited, '42'],
        ['answers too slowly', fakeHubModels.slow, undefined],
        ['fails with 502', fakeHubModels.serverError, undefined],
        ['is down (503)', fakeHubModels.down, undefined],
      ] as const;
      for (const [label, hfId, retryAfter] of unavailable) {
        it(`answers 503 with Retry-After when the hub ${label}, writing nothing and leaving the window open`, async () => {
          const res = await submit(alice, payload({ hfId }));
          expect(res.status).to.equal(503);
          expect(res.body).to.deep.equal(HUB_UNAVAILABLE);
          if (retryAfter) expect(res.headers['retry-after']).to.equal(retryAfter);
          else expect(Number(res.headers['retry-after'])).to.be.a('number').that.is.greaterThan(0);
          await expectNothingWrittenAndWindowOpen(hfId);
        });
      }
    });

    describe('the rate limit', () => {
      it(`closes the window for exactly ${windowMs / MINUTE} minute(s) after a submission, answering 429 until then`, async () => {
        const first = (await accepted(alice)).body;
        const rows = await runsOf(alice);

        const blocked = await submit(alice);
        expect(blocked.status).to.equal(429);
        expect(blocked.body).to.deep.equal({ error: rev.rateLimitMessage, retryAfterMs: windowMs, lastSubmittedAt: first.createdAt });
        expect(blocked.headers['retry-after']).to.equal(String(windowMs / 1000));

        ctx.clock.advance(windowMs - 1);
        const lastMs = await submit(alice);
        expect(lastMs.status).to.equal(429);
        expect(lastMs.body).to.deep.equal({ error: rev.rateLimitMessage, retryAfterMs: 1, lastSubmittedAt: first.createdAt });
        expect(lastMs.headers['retry-after']).to.equal('1');
        expect(await runsOf(alice)).to.equal(rows);

        ctx.clock.advance(1);
        const reopened = await accepted(alice);
        expect(reopened.body.createdAt).to.equal(ctx.clock.now().toISOString());
        expect(await runsOf(alice)).to.equal(rows + 1);
      });

      it('counts per user: another user may submit at once', async () => {
        await accepted(alice);
        await accepted(bob);
        expect((await submit(alice)).status).to.equal(429);
      });

      it('is shared by all keys and the session of one user', async () => {
        const second = await createKey(alice.agent, alice.csrf, { name: 'second key' });
        await accepted(alice);
        const viaSecondKey = await post(ctx, path, second.key, payload());
        expect(viaSecondKey.status).to.equal(429);
        expect(viaSecondKey.body.error).to.equal(rev.rateLimitMessage);
        const viaSession = await alice.agent.post(path).set('X-CSRF-Token', alice.csrf).send(payload());
        expect(viaSession.status).to.equal(429);
      });

      it('accepts exactly one of 50 concurrent submissions from one user', async () => {
        await accepted(bob); // the model is catalogued: the race is about the window only
        const carol = await newSubmitter(ctx);
        const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => submit(carol, payload({ tokSOut: 10 + i }))));
        const statuses = responses.map((r) => r.status);
        expect(statuses.filter((s) => s === 201)).to.have.lengthOf(1);
        expect(statuses.filter((s) => s === 429)).to.have.lengthOf(49);
        expect(await runsOf(carol)).to.equal(1);
      });

      it('is not used by submissions that fail validation, the metric rule or the hub check', async () => {
        const before = await runsOf(alice);
        const invalid = await submit(alice, payload({ hardware: { hwClass: 'GPU' } }));
        expect(invalid.status).to.equal(400);
        expect(invalid.body.error).to.equal('Validation failed');
        expect((await submit(alice, payload({}, rev.metricFailure.omit))).status).to.equal(rev.metricFailure.status);
        expect((await submit(alice, payload({ hfId: fakeHubModels.missing }))).status).to.equal(404);
        expect(await runsOf(alice)).to.equal(before);
        await accepted(alice);
      });

      if (rev.dryRun) {
        it('is not used by dry-runs, which write nothing and are answered even while the window is closed', async () => {
          const tables = ['speed_test_runs', 'models', 'submission_windows', 'hardware_profiles', 'engines'];
          const counts = async () => Promise.all(tables.map((table) => count(ctx, table)));
          const before = await counts();
          const dryRun = await post(
            ctx,
            `${path}/dry-run`,
            alice.key,
            payload({ hfId: fakeHubModels.moeByArchitecture, hardware: { hwClass: 'CPU_ONLY', cpu: 'Dry Run CPU', ramGb: 64 } }),
          );
          expect(dryRun.status).to.equal(200);
          expect(dryRun.body.valid).to.equal(true);
          expect(dryRun.body.parsed).to.include({ hfId: fakeHubModels.moeByArchitecture, tokSOut: 42.5 });
          expect(await counts()).to.deep.equal(before);

          await accepted(alice);
          expect((await post(ctx, `${path}/dry-run`, alice.key, payload())).status).to.equal(200);
          expect((await submit(alice)).status).to.equal(429);
        });
      } else {
        it('has no dry-run endpoint', async () => {
          const res = await post(ctx, `${path}/dry-run`, alice.key, payload());
          expect(res.status).to.equal(404);
          expect(res.body.error).to.be.a('string');
          await accepted(alice);
        });
      }
    });

    describe('Idempotency-Key', () => {
      it('replays the original 201 for the same key and body: same run, no second row, no window used', async () => {
        const key = randomUUID();
        const original = await accepted(alice, payload(), { 'Idempotency-Key': key });
        expect(original.headers).not.to.have.property('idempotent-replayed');
        const rows = await runsOf(alice);

        // The window is closed now; a replay still answers.
        const replay = await accepted(alice, payload(), { 'Idempotency-Key': key });
        expect(replay.body).to.deep.equal(original.body);
        expect(replay.headers['idempotent-replayed']).to.equal('true');
        // Like any 201 it reports the window, which is still closed.
        expect(replay.headers['x-ratelimit-remaining']).to.equal('0');
        expect(replay.headers['x-ratelimit-reset']).to.equal(original.headers['x-ratelimit-reset']);

        // Later, the replay is still the original (same createdAt), and it did not take the new window.
        ctx.clock.advance(windowMs);
        const later = await accepted(alice, payload(), { 'Idempotency-Key': key });
        expect(later.body).to.deep.equal(original.body);
        expect(later.headers['idempotent-replayed']).to.equal('true');
        expect(later.headers['x-ratelimit-remaining']).to.equal('1');
        expect(await runsOf(alice)).to.equal(rows);
        const fresh = await accepted(alice);
        expect(fresh.body.id).not.to.equal(original.body.id);
      });

      it('treats a body with its fields in another order as the same body', async () => {
        const key = randomUUID();
        const body = payload();
        const original = await accepted(alice, body, { 'Idempotency-Key': key });
        const reordered = Object.fromEntries(Object.entries(body).reverse());
        const replay = await accepted(alice, reordered, { 'Idempotency-Key': key });
        expect(replay.headers['idempotent-replayed']).to.equal('true');
        expect(replay.body.id).to.equal(original.body.id);
      });

      it('answers concurrent requests with one key and body with one run', async () => {
        await accepted(bob); // the model is catalogued: the race is about the key only
        const carol = await newSubmitter(ctx);
        const key = randomUUID();
        const responses = await Promise.all(Array.from({ length: 10 }, () => submit(carol, payload(), { 'Idempotency-Key': key })));
        expect(responses.map((r) => r.status)).to.deep.equal(Array(10).fill(201));
        expect(new Set(responses.map((r) => r.body.id)).size).to.equal(1);
        expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).to.have.lengthOf(9);
        expect(await runsOf(carol)).to.equal(1);
      });

      it('answers 422 for a reused key with a different body, writing nothing', async () => {
        const key = randomUUID();
        await accepted(alice, payload(), { 'Idempotency-Key': key });
        ctx.clock.advance(windowMs);
        const rows = await runsOf(alice);
        const res = await submit(alice, payload({ tokSOut: 99 }), { 'Idempotency-Key': key });
        expect(res.status).to.equal(422);
        expect(res.body.error).to.be.a('string').that.is.not.empty;
        expect(await runsOf(alice)).to.equal(rows);
      });

      it('keeps keys per user: another user with the same key gets a run of their own', async () => {
        const key = randomUUID();
        const alices = await accepted(alice, payload(), { 'Idempotency-Key': key });
        const bobs = await accepted(bob, payload(), { 'Idempotency-Key': key });
        expect(bobs.headers).not.to.have.property('idempotent-replayed');
        expect(bobs.body.id).not.to.equal(alices.body.id);
        expect(bobs.body.userId).to.equal(bob.id);
      });

      it('does not keep the key of a refused submission: a retry after the window is a new run', async () => {
        await accepted(alice);
        const key = randomUUID();
        expect((await submit(alice, payload(), { 'Idempotency-Key': key })).status).to.equal(429);
        ctx.clock.advance(windowMs);
        const retried = await accepted(alice, payload(), { 'Idempotency-Key': key });
        expect(retried.headers).not.to.have.property('idempotent-replayed');
        expect(retried.body.createdAt).to.equal(ctx.clock.now().toISOString());
      });

      it('accepts a 255-character key and answers 400 for a longer one, writing nothing', async () => {
        const rows = await runsOf(alice);
        for (const key of ['k'.repeat(256), 'x'.repeat(300)]) {
          const res = await submit(alice, payload(), { 'Idempotency-Key': key });
          expect(res.status).to.equal(400);
          expect(res.body.error).to.be.a('string').that.is.not.empty;
        }
        expect(await runsOf(alice)).to.equal(rows);
        await accepted(alice, payload(), { 'Idempotency-Key': 'k'.repeat(255) });
      });
    });

    describe('authentication', () => {
      it('accepts a signed-in browser session with its X-CSRF-Token', async () => {
        const res = await alice.agent.post(path).set('X-CSRF-Token', alice.csrf).send(payload());
        expect(res.status).to.equal(201);
        expect(res.body.user).to.include({ id: alice.id, username: alice.username });
      });

      it('refuses a session submission without the CSRF token with 403, writing nothing and leaving the window open', async () => {
        const rows = await runsOf(alice);
        const res = await alice.agent.post(path).send(payload());
        expect(res.status).to.equal(403);
        expect(res.body).to.deep.equal({ error: 'Invalid CSRF token' });
        expect(await runsOf(alice)).to.equal(rows);
        await accepted(alice);
      });

      it('answers 401 with the spec body without credentials or with an invalid key, even next to a session', async () => {
        const rows = await count(ctx, 'speed_test_runs');
        const anonymous = await request(ctx.app).post(path).send(payload());
        const badKey = await post(ctx, path, `bhk_${'0'.repeat(40)}`, payload());
        const badKeyWithSession = await alice.agent
          .post(path)
          .set({ Authorization: 'Bearer nope', 'X-CSRF-Token': alice.csrf })
          .send(payload());
        for (const res of [anonymous, badKey, badKeyWithSession]) {
          expect(res.status).to.equal(401);
          expect(res.body).to.deep.equal(AUTH_REQUIRED);
        }
        expect(await count(ctx, 'speed_test_runs')).to.equal(rows);
      });
    });

    if (revision === 3) {
      describe('revision-2 aliases under /api/benchmarks', () => {
        it('accepts POST /api/benchmarks with the revision-3 rules, marked deprecated, and stores a normal run', async () => {
          // No secondary metric: revision 2 would answer 422, revision 3 accepts it.
          const res = await post(ctx, '/api/benchmarks', alice.key, payload({}, ['ttftMs']));
          expect(res.status, JSON.stringify(res.body)).to.equal(201);
          expectHeaders(res, { ...DEPRECATION_HEADERS, 'x-ratelimit-remaining': '0', location: `/api/speed-tests/${res.body.id}` });
          const shown = await request(ctx.app).get(`/api/speed-tests/${res.body.id}`).expect(200);
          expect(shown.body).to.deep.equal(res.body);
        });

        it('shares the 1-minute window with /api/speed-tests', async () => {
          await accepted(alice);
          const res = await post(ctx, '/api/benchmarks', alice.key, payload());
          expect(res.status).to.equal(429);
          expect(res.body).to.include({ error: rev.rateLimitMessage, retryAfterMs: MINUTE });
          expectHeaders(res, DEPRECATION_HEADERS);
        });

        it('answers POST /api/benchmarks/dry-run like the revision-3 dry-run, marked deprecated', async () => {
          const body = payload({}, ['ttftMs']);
          const alias = await post(ctx, '/api/benchmarks/dry-run', alice.key, body);
          const current = await post(ctx, '/api/speed-tests/dry-run', alice.key, body);
          expect(alias.status).to.equal(200);
          expect(alias.body).to.deep.equal(current.body);
          expect(alias.body.valid).to.equal(true);
          expectHeaders(alias, DEPRECATION_HEADERS);
          expectNoDeprecation(current);
        });

        it('lists through GET /api/benchmarks the same runs as GET /api/speed-tests, marked deprecated', async () => {
          await accepted(alice);
          const alias = await request(ctx.app).get('/api/benchmarks?limit=5').expect(200);
          const current = await request(ctx.app).get('/api/speed-tests?limit=5').expect(200);
          expect(alias.body).to.deep.equal(current.body);
          expect(alias.body.benchmarks).to.have.length.greaterThan(0);
          expectHeaders(alias, DEPRECATION_HEADERS);
          expectNoDeprecation(current);
        });

        it('answers alias requests without credentials with the 401 body', async () => {
          for (const aliasPath of ['/api/benchmarks', '/api/benchmarks/dry-run']) {
            const res = await request(ctx.app).post(aliasPath).send(payload());
            expect(res.status).to.equal(401);
            expect(res.body).to.deep.equal(AUTH_REQUIRED);
          }
        });
      });
    } else {
      describe('no revision-3 paths', () => {
        it('answers /api/speed-tests with a JSON 404 and writes nothing', async () => {
          const rows = await count(ctx, 'speed_test_runs');
          const responses = [
            await post(ctx, '/api/speed-tests', alice.key, payload()),
            await post(ctx, '/api/speed-tests/dry-run', alice.key, payload()),
            await request(ctx.app).get('/api/speed-tests'),
          ];
          for (const res of responses) {
            expect(res.status).to.equal(404);
            expect(res.body.error).to.be.a('string');
          }
          expect(await count(ctx, 'speed_test_runs')).to.equal(rows);
        });

        it('serves /api/benchmarks as the real results path, without deprecation headers', async () => {
          const submitted = await accepted(alice);
          expectNoDeprecation(submitted);
          const listed = await request(ctx.app).get('/api/benchmarks').expect(200);
          expectNoDeprecation(listed);
          expect(listed.body.benchmarks[0].id).to.equal(submitted.body.id);
        });
      });
    }
  });

  describe(`speed-test submission with HUB_MODE=offline, revision ${revision}`, () => {
    const ctx = useTestApp({ API_REVISION: String(revision), HUB_MODE: 'offline' }, { fakeHub: true });
    const catalogued = 'localorg/Catalogued-3B';
    let alice: Submitter;
    let modelId: string;

    before(async () => {
      alice = await newSubmitter(ctx);
      [{ id: modelId }] = await ctx
        .db('models')
        .insert({ hf_id: catalogued, display_name: 'Catalogued-3B', family: 'llama', params: 3 })
        .returning('id');
    });
    beforeEach(() => ctx.clock.advance(windowMs));

    it('accepts a catalogued model, in any spelling, without asking the hub', async () => {
      for (const hfId of [catalogued, catalogued.toUpperCase()]) {
        ctx.clock.advance(windowMs);
        const res = await post(ctx, path, alice.key, payload({ hfId }));
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body).to.include({ modelId, hfId: catalogued });
      }
      expect(ctx.hub.requests).to.deep.equal([]);
    });

    it('answers 404 naming the id for a model the catalogue lacks, even one the hub knows, writing nothing', async () => {
      const rows = await count(ctx, 'speed_test_runs');
      for (const hfId of [fakeHubModels.dense, 'someorg/Unknown-1B']) {
        const res = await post(ctx, path, alice.key, payload({ hfId }));
        expect(res.status).to.equal(404);
        expect(res.body).to.have.all.keys('error');
        expect(res.body.error).to.include(hfId);
        expect(await modelRow(ctx, hfId)).to.equal(undefined);
      }
      expect(await count(ctx, 'speed_test_runs')).to.equal(rows);
      expect(ctx.hub.requests).to.deep.equal([]);
      // The failures left the window open.
      expect((await post(ctx, path, alice.key, payload({ hfId: catalogued }))).status).to.equal(201);
    });
  });
}
