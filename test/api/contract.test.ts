import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { seedDemoCatalogue } from '../../src/db/seeds/demo-models.ts';
import { contentHash } from '../../src/lib/canonical-json.ts';
import { submissionExamples } from '../../src/openapi/examples.ts';
import { apiOperations, openApiPath } from '../../src/api/index.ts';
import { responseHeaders, type ApiOperation, type HeaderName } from '../../src/api/operation.ts';
import { getRevisionProfile, type RevisionNumber } from '../../src/revisions.ts';
import { createKey, signedUpAgent, useTestApp, type Agent, type TestContext } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { schemaChecker, type SchemaChecker } from '../helpers/openapi.ts';

/**
 * "Every documented response status for a route is produced by some test": this file has a
 * producer for each (operation, status) pair of the route table and runs them all, per
 * revision, against the real app. Each answer must have the documented status, a body that
 * validates (ajv, JSON Schema 2020-12) against the schema the served OpenAPI document gives
 * for that status, and the headers it documents. A documented status without a producer,
 * or a producer for a status that is not documented, fails the first test. So the document
 * can neither promise an answer the app never gives nor leave one out that a test knows.
 */

type Body = Record<string, unknown>;

interface Account {
  id: string;
  agent: Agent;
  csrf: string;
  key: string;
}

interface Fixtures {
  owner: Account;
  runId: string;
  setups: { alpha: string; beta: string };
}

interface Call {
  ctx: TestContext;
  fx: Fixtures;
  op: ApiOperation;
  revision: RevisionNumber;
  /** The operation's path with its parameters filled in. */
  path(params?: Record<string, string>): string;
}

type Producer = (call: Call) => Promise<request.Response>;

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

const metricRuleStatus = (call: Call) => {
  const rule = getRevisionProfile(call.revision).speedTests.metricRule;
  return 'status' in rule ? rule.status : undefined;
};

/** A submission that meets everything but the revision's any-of metric rule (a 422). */
function failingMetricRule(call: Call): Body {
  const rule = getRevisionProfile(call.revision).speedTests.metricRule;
  const body = validSubmission({ tokSOut: 42.5, ttftMs: undefined });
  if (rule.kind === 'anyOf') for (const field of rule.fields) delete body[field];
  return body;
}

const bearer = (call: Call) => ({ Authorization: `Bearer ${call.fx.owner.key}` });
const windowMs = (call: Call) => getRevisionProfile(call.revision).speedTests.submissionLimit.windowMs;

/** The next submission is outside the rate-limit window. */
function nextWindow(call: Call): void {
  call.ctx.clock.advance(windowMs(call) + 1000);
}

function submit(call: Call, body: Body = validSubmission(), headers: Record<string, string> = {}) {
  return request(call.ctx.app).post(call.path()).set({ ...bearer(call), ...headers }).send(body);
}

const anonymous = (call: Call, body?: Body) => {
  const req = request(call.ctx.app)[call.op.method](call.path({ id: MISSING_ID }));
  return body ? req.send(body) : req;
};
/** A signed-in browser request without the CSRF token. */
const withoutCsrf = (call: Call, path: string, body: Body = {}) => call.fx.owner.agent[call.op.method](path).send(body);
const withCsrf = (call: Call) => call.fx.owner.agent[call.op.method](call.path({ id: MISSING_ID })).set('X-CSRF-Token', call.fx.owner.csrf);

const cachedDocument = (path: string) => ({
  200: (call: Call) => request(call.ctx.app).get(path).set('Host', 'contract.test'),
  304: async (call: Call) => {
    const first = await request(call.ctx.app).get(path).set('Host', 'contract.test').expect(200);
    return request(call.ctx.app).get(path).set('Host', 'contract.test').set('If-None-Match', first.headers.etag);
  },
});

async function newAccount(ctx: TestContext): Promise<Account> {
  const { agent, csrf, username } = await signedUpAgent(ctx.app);
  const { key } = await createKey(agent, csrf);
  const { id } = await ctx.db('users').where({ username }).first('id');
  return { id, agent, csrf, key };
}

/** Keyed by operationId (an alias uses its operation's producers) and status. */
const producers: Record<string, Producer> = {
  'listSpeedTests 200': (call) => request(call.ctx.app).get(call.path()),
  'listSpeedTests 400': (call) => request(call.ctx.app).get(call.path()).query({ limit: '0' }),

  'submitSpeedTest 201': (call) => {
    nextWindow(call);
    return submit(call);
  },
  'submitSpeedTest 400': (call) => submit(call, { hfId: fakeHubModels.dense }),
  'submitSpeedTest 401': (call) => anonymous(call, validSubmission()),
  'submitSpeedTest 403': (call) => withoutCsrf(call, call.path(), validSubmission()),
  'submitSpeedTest 404': (call) => submit(call, validSubmission({ hfId: fakeHubModels.missing })),
  'submitSpeedTest 409': async (call) => {
    // A request with this key is "in flight": its row exists with no stored answer yet.
    const key = `in-flight-${randomUUID()}`;
    const body = validSubmission();
    await call.ctx.db('idempotency_keys').insert({ user_id: call.fx.owner.id, scope: 'speed-test', key, request_hash: contentHash(body) });
    return submit(call, body, { 'Idempotency-Key': key });
  },
  'submitSpeedTest 422': async (call) => {
    if (metricRuleStatus(call)) return submit(call, failingMetricRule(call));
    nextWindow(call);
    const key = `reused-${randomUUID()}`;
    expect((await submit(call, validSubmission(), { 'Idempotency-Key': key })).status).to.equal(201);
    return submit(call, validSubmission({ tokSOut: 43 }), { 'Idempotency-Key': key });
  },
  'submitSpeedTest 429': async (call) => {
    nextWindow(call);
    expect((await submit(call)).status).to.equal(201);
    return submit(call);
  },
  'submitSpeedTest 503': (call) => submit(call, validSubmission({ hfId: fakeHubModels.rateLimited })),

  'dryRunSpeedTest 200': (call) => submit(call, submissionExamples(getRevisionProfile(call.revision)).minimal.DISCRETE_GPU),
  'dryRunSpeedTest 400': (call) => submit(call, validSubmission({ hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090' } })),
  'dryRunSpeedTest 401': (call) => anonymous(call, validSubmission()),
  'dryRunSpeedTest 403': (call) => withoutCsrf(call, call.path(), validSubmission()),
  'dryRunSpeedTest 404': (call) => submit(call, validSubmission({ hfId: fakeHubModels.deleted })),
  'dryRunSpeedTest 422': (call) => submit(call, failingMetricRule(call)),
  'dryRunSpeedTest 503': (call) => submit(call, validSubmission({ hfId: fakeHubModels.down })),

  'getSpeedTest 200': (call) => request(call.ctx.app).get(call.path({ id: call.fx.runId })),
  'getSpeedTest 404': (call) => request(call.ctx.app).get(call.path({ id: MISSING_ID })),

  'getLeaderboard 200': (call) => request(call.ctx.app).get(call.path()).query({ hwClass: 'DISCRETE_GPU' }),
  'getLeaderboard 400': (call) => request(call.ctx.app).get(call.path()).query({ memTier: '7' }),

  'listModels 200': (call) => request(call.ctx.app).get(call.path()).query({ tree: 'true' }),
  'listModels 400': (call) => request(call.ctx.app).get(call.path()).query({ limit: '0' }),
  'searchModels 200': (call) => request(call.ctx.app).get(call.path()).query({ q: 'qwen' }),
  'searchModels 400': (call) => request(call.ctx.app).get(call.path()),
  'getModel 200': (call) => request(call.ctx.app).get(call.path({ org: 'Qwen', model: 'Qwen3-8B' })),
  'getModel 404': (call) => request(call.ctx.app).get(call.path({ org: 'nobody', model: 'nothing' })),

  'reactToRun 200': (call) => request(call.ctx.app).post(call.path({ id: call.fx.runId })).set(bearer(call)).send({ emoji: 'fire' }),
  'reactToRun 400': (call) => request(call.ctx.app).post(call.path({ id: call.fx.runId })).set(bearer(call)).send({ emoji: 'heart' }),
  'reactToRun 401': (call) => anonymous(call, { emoji: 'fire' }),
  'reactToRun 403': (call) => withoutCsrf(call, call.path({ id: call.fx.runId }), { emoji: 'fire' }),
  'reactToRun 404': (call) => request(call.ctx.app).post(call.path({ id: MISSING_ID })).set(bearer(call)).send({ emoji: 'fire' }),

  'getMe 200': (call) => request(call.ctx.app).get(call.path()).set(bearer(call)),
  'getMe 401': (call) => request(call.ctx.app).get(call.path()).set('Authorization', 'Bearer bhk_0000000000000000000000000000000000000000'),

  'listApiKeys 200': (call) => call.fx.owner.agent.get(call.path()),
  'listApiKeys 401': (call) => anonymous(call),
  'listApiKeys 403': (call) => request(call.ctx.app).get(call.path()).set(bearer(call)),
  'createApiKey 201': (call) => call.fx.owner.agent.post(call.path()).set('X-CSRF-Token', call.fx.owner.csrf).send({ name: `key ${randomUUID()}` }),
  'createApiKey 400': (call) => call.fx.owner.agent.post(call.path()).set('X-CSRF-Token', call.fx.owner.csrf).send({ name: '' }),
  'createApiKey 401': (call) => anonymous(call, { name: 'k' }),
  'createApiKey 403': (call) => withoutCsrf(call, call.path(), { name: 'k' }),
  'createApiKey 409': async (call) => {
    const full = await newAccount(call.ctx);
    for (let i = 1; i < 10; i += 1) await createKey(full.agent, full.csrf, { name: `key ${i}` });
    return full.agent.post(call.path()).set('X-CSRF-Token', full.csrf).send({ name: 'one too many' });
  },
  'revokeApiKey 200': async (call) => {
    const { id } = await createKey(call.fx.owner.agent, call.fx.owner.csrf, { name: 'to revoke' });
    return call.fx.owner.agent.delete(call.path({ id })).set('X-CSRF-Token', call.fx.owner.csrf);
  },
  'revokeApiKey 401': (call) => anonymous(call),
  'revokeApiKey 403': (call) => withoutCsrf(call, call.path({ id: MISSING_ID })),
  'revokeApiKey 404': (call) => withCsrf(call),

  'listSetups 200': (call) => call.fx.owner.agent.get(call.path()),
  'listSetups 400': (call) => call.fx.owner.agent.get(`${call.path()}?limit=51`),
  'listSetups 401': (call) => anonymous(call),
  'listSetups 403': (call) => request(call.ctx.app).get(call.path()).set(bearer(call)),
  'createSetup 201': (call) => call.fx.owner.agent.post(call.path()).set('X-CSRF-Token', call.fx.owner.csrf).send({ name: `setup ${randomUUID()}`, hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 9 7950X', ramGb: 64 }),
  'createSetup 400': (call) => call.fx.owner.agent.post(call.path()).set('X-CSRF-Token', call.fx.owner.csrf).send({ name: 'x', hwClass: 'CPU_ONLY', gpuName: 'RTX 4090' }),
  'createSetup 401': (call) => anonymous(call, { name: 'x' }),
  'createSetup 403': (call) => withoutCsrf(call, call.path(), { name: 'x' }),
  'createSetup 409': (call) => call.fx.owner.agent.post(call.path()).set('X-CSRF-Token', call.fx.owner.csrf).send({ name: 'alpha' }),
  'getSetup 200': (call) => call.fx.owner.agent.get(call.path({ id: call.fx.setups.alpha })),
  'getSetup 401': (call) => anonymous(call),
  'getSetup 403': (call) => request(call.ctx.app).get(call.path({ id: call.fx.setups.alpha })).set(bearer(call)),
  'getSetup 404': (call) => call.fx.owner.agent.get(call.path({ id: MISSING_ID })),
  'updateSetup 200': (call) => call.fx.owner.agent.patch(call.path({ id: call.fx.setups.alpha })).set('X-CSRF-Token', call.fx.owner.csrf).send({ description: 'updated' }),
  'updateSetup 400': (call) => call.fx.owner.agent.patch(call.path({ id: call.fx.setups.alpha })).set('X-CSRF-Token', call.fx.owner.csrf).send({ gpuCount: 0 }),
  'updateSetup 401': (call) => anonymous(call, { name: 'x' }),
  'updateSetup 403': (call) => withoutCsrf(call, call.path({ id: call.fx.setups.alpha }), { name: 'x' }),
  'updateSetup 404': (call) => withCsrf(call).send({ name: 'x' }),
  'updateSetup 409': (call) => call.fx.owner.agent.patch(call.path({ id: call.fx.setups.beta })).set('X-CSRF-Token', call.fx.owner.csrf).send({ name: 'ALPHA' }),
  'deleteSetup 204': async (call) => {
    const created = await call.fx.owner.agent.post('/api/setups').set('X-CSRF-Token', call.fx.owner.csrf).send({ name: `doomed ${randomUUID()}` }).expect(201);
    return call.fx.owner.agent.delete(call.path({ id: created.body.id })).set('X-CSRF-Token', call.fx.owner.csrf);
  },
  'deleteSetup 401': (call) => anonymous(call),
  'deleteSetup 403': (call) => withoutCsrf(call, call.path({ id: call.fx.setups.alpha })),
  'deleteSetup 404': (call) => withCsrf(call),

  'getOpenApiDocument 200': cachedDocument('/api/openapi.json')[200],
  'getOpenApiDocument 304': cachedDocument('/api/openapi.json')[304],
  'getAgentContext 200': cachedDocument('/api/agent-context')[200],
  'getAgentContext 304': cachedDocument('/api/agent-context')[304],
};

// Every GET counts against the per-address read limit: an app whose limit is one read
// answers the second with the 429 (before any route, so any path will do).
const readLimitedApps = new WeakMap<TestContext, Express>();
function overReadLimit(call: Call) {
  let app = readLimitedApps.get(call.ctx);
  if (!app) readLimitedApps.set(call.ctx, (app = call.ctx.appWith({ API_REVISION: String(call.revision), READ_LIMIT_PER_MINUTE: '1' })));
  const path = call.path(Object.fromEntries([...call.op.path.matchAll(/:(\w+)/g)].map(([, name]) => [name!, MISSING_ID])));
  return request(app).get(path).then(() => request(app).get(path));
}
for (const revision of [1, 2, 3] as const) {
  for (const op of apiOperations(getRevisionProfile(revision))) {
    if (op.method === 'get' && !op.aliasOf) producers[`${op.operationId} 429`] ??= overReadLimit;
  }
}

const producerKey = (op: ApiOperation, status: string | number) => `${op.aliasOf ?? op.operationId} ${status}`;

function fillPath(op: ApiOperation, params: Record<string, string> = {}): string {
  return op.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${op.operationId}: no value for :${name}`);
    return encodeURIComponent(value);
  });
}

function expectDocumentedAnswer(res: request.Response, op: ApiOperation, status: number, document: Record<string, any>, checker: SchemaChecker) {
  const label = `${op.method.toUpperCase()} ${op.path} -> ${status}`;
  expect(res.status, `${label}: ${res.text.slice(0, 400)}`).to.equal(status);
  const documented = document.paths[openApiPath(op.path)][op.method].responses[String(status)];
  const json = documented.content?.['application/json'];
  if (json) {
    expect(res.headers['content-type'], label).to.match(/^application\/json/);
    checker.expectValid(String(json.schema.$ref).replace('#/components/schemas/', ''), res.body, label);
  } else {
    expect(res.text ?? '', `${label} has no body`).to.equal('');
  }
  for (const name of Object.keys(documented.headers ?? {}) as HeaderName[]) {
    if ('optional' in responseHeaders[name]) continue;
    expect(res.headers, `${label} sends ${name}`).to.have.property(name.toLowerCase());
  }
}

for (const revision of [1, 2, 3] as const) {
  const operations = apiOperations(getRevisionProfile(revision));

  describe(`API contract, revision ${revision}: every documented status is produced`, () => {
    const ctx = useTestApp({ API_REVISION: String(revision) }, { fakeHub: true, hubTimeoutMs: 300 });
    let document: Record<string, any>;
    let checker: SchemaChecker;
    let fx: Fixtures;

    before(async () => {
      document = (await request(ctx.app).get('/api/openapi.json').expect(200)).body;
      checker = schemaChecker(document);
      await seedDemoCatalogue(ctx.db);
      const owner = await newAccount(ctx);
      const run = await request(ctx.app).post(getRevisionProfile(revision).speedTests.resultsPath).set('Authorization', `Bearer ${owner.key}`).send(validSubmission()).expect(201);
      const setup = (name: string) => owner.agent.post('/api/setups').set('X-CSRF-Token', owner.csrf).send({ name }).expect(201);
      fx = { owner, runId: run.body.id, setups: { alpha: (await setup('alpha')).body.id, beta: (await setup('beta')).body.id } };
    });

    it('has a producer for every documented status and none for an undocumented one', () => {
      const documented = new Set(operations.flatMap((op) => Object.keys(op.responses).map((status) => producerKey(op, status))));
      const missing = [...documented].filter((key) => !producers[key]);
      expect(missing, 'documented statuses nobody produces').to.deep.equal([]);
      // Producers of operations other revisions have are fine; of statuses no revision documents, not.
      const everywhere = new Set(([1, 2, 3] as const).flatMap((r) => apiOperations(getRevisionProfile(r)).flatMap((op) => Object.keys(op.responses).map((status) => producerKey(op, status)))));
      expect(Object.keys(producers).filter((key) => !everywhere.has(key)), 'producers of undocumented statuses').to.deep.equal([]);
    });

    for (const op of operations) {
      for (const status of Object.keys(op.responses).map(Number)) {
        it(`${op.method.toUpperCase()} ${op.path} answers ${status} as documented`, async function () {
          const produce = producers[producerKey(op, status)];
          if (!produce) this.skip();
          const call: Call = { ctx, fx, op, revision, path: (params) => fillPath(op, params) };
          expectDocumentedAnswer(await produce!(call), op, status, document, checker);
        });
      }
    }
  });
}
