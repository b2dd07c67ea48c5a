import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp, type Agent } from '../helpers/app.ts';
import { validSubmission } from '../helpers/fixtures.ts';

describe('error handling', () => {
  const ctx = useTestApp();

  it('answers an unknown /api path with a JSON 404', async () => {
    const res = await request(ctx.app).get('/api/no-such-thing').expect(404);
    expect(res.type).to.equal('application/json');
    expect(res.body).to.deep.equal({ error: 'Not found' });
  });

  it('answers an unknown page with an HTML 404 page', async () => {
    const res = await request(ctx.app).get('/no/such/page').expect(404);
    expect(res.type).to.equal('text/html');
    expect(res.text).to.include('Page not found');
    expect(res.text).to.include('<nav');
  });

  it('answers an htmx request for an unknown page with a fragment, not a page', async () => {
    const res = await request(ctx.app).get('/no/such/page').set('HX-Request', 'true').expect(404);
    expect(res.text).to.include('alert-error');
    expect(res.text).not.to.include('<html');
  });

  /** A signed-in browser's POST /api/keys (bodies are read only for callers the route serves). */
  const postKey = async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    return () => agent.post('/api/keys').set('X-CSRF-Token', csrf);
  };

  it('answers malformed JSON with 400 { error }', async () => {
    const res = await (await postKey())().set('Content-Type', 'application/json').send('{"name": ').expect(400);
    expect(res.body).to.deep.equal({ error: 'Malformed JSON body' });
  });

  it('answers a body over 1 MB with 413 { error }; without credentials, 401 before the body is read', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const res = await (await postKey())().set('Content-Type', 'application/json').send(big).expect(413);
    expect(res.body).to.deep.equal({ error: 'Request body is larger than 1 MB' });
    const anonymous = await request(ctx.app).post('/api/keys').set('Content-Type', 'application/json').send(big).expect(401);
    expect(anonymous.body.error).to.match(/^Authentication required/);
  });

  it('answers a NUL character in a body or query with the 400 validation shape, not a database 500', async () => {
    const body = await (await postKey())().send({ name: 'a\u0000b' }).expect(400);
    expect(body.body).to.deep.equal({
      error: 'Validation failed',
      details: { fieldErrors: { name: ['Must not contain NUL characters'] }, formErrors: [] },
    });
    const query = await request(ctx.app).get('/api/keys?name=%00').expect(400);
    expect(query.body.details.fieldErrors).to.deep.equal({ name: ['Must not contain NUL characters'] });
    const path = await request(ctx.app).get('/api/models/org/model%00').expect(400);
    expect(path.body.details.formErrors).to.deep.equal(['path: Must not contain NUL characters']);
    const page = await request(ctx.app).get('/models/org/model%00').expect(400);
    expect(page.type).to.equal('text/html');
  });

  describe('text that cannot be stored, and deep nesting (checked before any route reads the body)', () => {
    // Its own app with the fake hub, so a run that slips through would really be stored.
    const app = useTestApp({}, { fakeHub: true });
    const NOT_WELL_FORMED = ['Must be well-formed Unicode (no lone surrogates)'];
    const TOO_DEEP = {
      error: 'Validation failed',
      details: { fieldErrors: {}, formErrors: ['body: Must not be nested deeper than 64 levels'] },
    };
    let browser: { agent: Agent; csrf: string };
    let key: string;

    before(async () => {
      browser = await signedUpAgent(app.app);
      key = (await createKey(browser.agent, browser.csrf)).key;
    });

    /** `levels` arrays nested in each other, as JSON text (the way an attacker sends it). */
    const nestedJson = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const count = async (table: string) => Number((await app.db(table).count('* as n'))[0]!.n);

    it('lets 64 levels of nesting through to the schema and refuses 65 with 400, signed in or not', async () => {
      // {"name", "extra": 63 arrays} is 64 levels: past the check, the schema names the unknown field.
      const deepest = await browser.agent
        .post('/api/keys')
        .set('X-CSRF-Token', browser.csrf)
        .type('json')
        .send(`{"name":"deep","extra":${nestedJson(63)}}`);
      expect(deepest.status).to.equal(400);
      expect(deepest.body.details).to.deep.equal({ fieldErrors: { extra: ['Unknown field'] }, formErrors: [] });
      const tooDeep = await browser.agent
        .post('/api/keys')
        .set('X-CSRF-Token', browser.csrf)
        .type('json')
        .send(`{"name":"deep","extra":${nestedJson(64)}}`);
      expect(tooDeep.status).to.equal(400);
      expect(tooDeep.body).to.deep.equal(TOO_DEEP);
      // Without credentials the body is never read: the route's 401.
      const anonymous = await request(app.app)
        .post('/api/speed-tests')
        .type('json')
        .send(`{"hardware":${nestedJson(64)}}`);
      expect(anonymous.status).to.equal(401);
      expect(await count('api_keys')).to.equal(1);
    });

    it('answers the issue’s 100,000-level body with 400 where a body is read, JSON or page, never a 500', async () => {
      const body = `{"a":${nestedJson(100_000)}}`;
      const api = await request(app.app).post('/api/speed-tests').set('Authorization', `Bearer ${key}`).type('json').send(body);
      expect(api.status).to.equal(400);
      expect(api.body).to.deep.equal(TOO_DEEP);
      const page = await browser.agent.put('/anything').type('json').send(body);
      expect(page.status).to.equal(400);
      expect(page.type).to.equal('text/html');
      expect(page.text).to.include('400 Validation failed');
      // An unknown API path reads no body at all: its 404.
      expect((await request(app.app).post('/api/anything').set('Authorization', `Bearer ${key}`).type('json').send(body)).status).to.equal(
        404,
      );
      // An anonymous page write is held to 64 KB.
      expect((await request(app.app).put('/anything').type('json').send(body)).status).to.equal(413);
    });

    it('measures the depth of a JSON body before parsing it: a deep body refused even where its JSON breaks later', async () => {
      // Parsed first, this would be the malformed-JSON 400; read first, the depth is what fails.
      const submit = () => request(app.app).post('/api/speed-tests').set('Authorization', `Bearer ${key}`).type('json');
      const res = await submit().send(`${'['.repeat(500_000)} not json`);
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal(TOO_DEEP);
      // Brackets inside strings are text, not nesting: the schema's answer.
      const inString = await submit().send(JSON.stringify({ note: '['.repeat(1000) }));
      expect(inString.status).to.equal(400);
      expect(inString.body.details.fieldErrors.note).to.deep.equal(['Unknown field']);
    });

    it('refuses a lone surrogate anywhere in a run with 400 naming the field, and stores nothing', async () => {
      const submit = (overrides: Record<string, unknown>) =>
        request(app.app).post('/api/speed-tests').set('Authorization', `Bearer ${key}`).send(validSubmission(overrides));
      const cases: [string, Record<string, unknown>][] = [
        ['hardware.gpuName', { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX\ud800', vramGb: 24 } }],
        ['engineFlags.commandSnippet', { engineFlags: { commandSnippet: './llama-server -m m.gguf \udc00' } }],
        // Text columns used to store these as U+FFFD without a word.
        ['engineVersion', { engineVersion: 'b4500\ud83d' }],
        ['notes', { notes: 'quiet \ude00 machine' }],
      ];
      for (const [field, overrides] of cases) {
        const res = await submit(overrides);
        expect(res.status, field).to.equal(400);
        expect(res.body, field).to.deep.equal({
          error: 'Validation failed',
          details: { fieldErrors: { [field]: NOT_WELL_FORMED }, formErrors: [] },
        });
      }
      expect(await count('speed_test_runs')).to.equal(0);
    });

    it('refuses a lone surrogate in a saved setup, from the API (JSON 400) and from the settings page (400 page)', async () => {
      const viaApi = (body: Record<string, unknown>) => browser.agent.post('/api/setups').set('X-CSRF-Token', browser.csrf).send(body);
      const rig = { name: 'Rig', hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 };
      for (const [field, value] of [
        ['name', 'Rig \ud800'],
        ['gpuName', 'RTX\udfff'],
        ['commandSnippet', 'vllm serve \ud800m'],
      ] as const) {
        const res = await viaApi({ ...rig, [field]: value });
        expect(res.status, field).to.equal(400);
        expect(res.body.details, field).to.deep.equal({ fieldErrors: { [field]: NOT_WELL_FORMED }, formErrors: [] });
      }
      const page = await browser.agent
        .post('/settings/setups')
        .set('X-CSRF-Token', browser.csrf)
        .send({ ...rig, vramGb: '24', description: 'under \udc00 the desk' });
      expect(page.status).to.equal(400);
      expect(page.type).to.equal('text/html');
      expect(page.text).to.include('400 Validation failed');
      expect(await count('setups')).to.equal(0);
    });

    it('answers /submit with a JSON body holding a lone surrogate like one holding a NUL: the 400 error page', async () => {
      const fields = {
        hfId: validSubmission().hfId,
        quantization: 'Q4_K_M',
        engineName: 'llama.cpp',
        'hardware.hwClass': 'DISCRETE_GPU',
        'hardware.gpuName': 'RTX 4090',
        'hardware.vramGb': '24',
        tokSOut: '42',
      };
      for (const engineVersion of ['b4500\ud800', 'b4500\u0000']) {
        const res = await browser.agent
          .post('/submit')
          .set('X-CSRF-Token', browser.csrf)
          .send({ ...fields, engineVersion });
        expect(res.status).to.equal(400);
        expect(res.type).to.equal('text/html');
        expect(res.text).to.include('400 Validation failed');
      }
      expect(await count('speed_test_runs')).to.equal(0);
    });

    it('never lets bytes that are not UTF-8 reach a handler as a lone surrogate: a path is 400, a query value U+FFFD', async () => {
      // %ED%A0%80 is U+D800 encoded as if it were a character: invalid UTF-8.
      for (const path of ['/api/models/org/x%ED%A0%80', '/api/no-such-thing%ED%A0%80']) {
        const res = await request(app.app).get(path);
        expect(res.status, path).to.equal(400);
        expect(res.body, path).to.deep.equal({ error: 'Malformed URL encoding' });
      }
      const page = await request(app.app).get('/no/such/page%ED%A0%80');
      expect(page.status).to.equal(400);
      expect(page.type).to.equal('text/html');
      // The query parser decodes such bytes to U+FFFD, which is well-formed: an ordinary search.
      const query = await request(app.app).get('/api/leaderboard?hardwareName=%ED%A0%80');
      expect(query.status).to.equal(200);
      expect(query.body.rows).to.deep.equal([]);
    });
  });

  it('answers a malformed percent-encoding in a path parameter with 400, on the API and on pages', async () => {
    const api = await request(ctx.app).get('/api/models/org/%E0%A4%A').expect(400);
    expect(api.body).to.deep.equal({ error: 'Malformed URL encoding' });
    await request(ctx.app).get('/api/speed-tests/abc%ZZ').expect(400);
    const page = await request(ctx.app).get('/runs/%E0%A4%A').expect(400);
    expect(page.type).to.equal('text/html');
  });

  it('sends an X-Request-Id on every response and keeps a well-formed incoming one', async () => {
    const generated = await request(ctx.app).get('/api/no-such-thing');
    expect(generated.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    const kept = await request(ctx.app).get('/api/no-such-thing').set('X-Request-Id', 'trace-abc.123');
    expect(kept.headers['x-request-id']).to.equal('trace-abc.123');
    const replaced = await request(ctx.app).get('/api/no-such-thing').set('X-Request-Id', 'bad id <script>');
    expect(replaced.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
  });

  it('sets security headers with a self-only CSP', async () => {
    const res = await request(ctx.app).get('/');
    const csp = res.headers['content-security-policy'];
    expect(csp).to.include("default-src 'self'");
    expect(csp).to.include("script-src 'self'");
    expect(csp).to.include("style-src 'self'");
    expect(csp).to.include("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers).not.to.have.property('x-powered-by');
    // The legacy frame header agrees with frame-ancestors 'none'.
    expect(res.headers['x-frame-options']).to.equal('DENY');
    expect(res.headers['permissions-policy']).to.equal('camera=(), microphone=(), geolocation=(), payment=(), usb=()');
  });

  it('answers signed-in requests with Cache-Control: private, no-store, and leaves public answers to anonymous ones cacheable', async () => {
    const browser = await signedUpAgent(ctx.app);
    const { key } = await createKey(browser.agent, browser.csrf);
    for (const path of ['/', '/models', '/settings/keys', '/settings/setups', '/submit']) {
      const page = await browser.agent.get(path).expect(200);
      expect(page.headers['cache-control'], path).to.equal('private, no-store');
    }
    for (const path of ['/api/me', '/api/keys', '/api/setups']) {
      const res = await browser.agent.get(path).expect(200);
      expect(res.headers['cache-control'], path).to.equal('private, no-store');
    }
    const viaKey = await request(ctx.app).get('/api/me').set('Authorization', `Bearer ${key}`).expect(200);
    expect(viaKey.headers['cache-control']).to.equal('private, no-store');
    const anonymous = await request(ctx.app).get('/models').expect(200);
    expect(anonymous.headers['cache-control'] ?? '').not.to.include('no-store');
  });

  describe('an unexpected failure', () => {
    // A real fault: the table behind API-key authentication disappears under the app.
    before(async () => {
      await ctx.db.schema.dropTable('api_keys');
    });

    it('answers 500 { error: "Internal server error" } without a stack trace, and logs it with the request id', async () => {
      const res = await request(ctx.app)
        .get('/api/me')
        .set('Authorization', `Bearer bhk_${'a'.repeat(40)}`)
        .expect(500);
      expect(res.body).to.deep.equal({ error: 'Internal server error' });
      expect(res.text).not.to.match(/at .*\.ts:\d+|relation|stack/i);
      const requestId = res.headers['x-request-id'];
      const logged = ctx.logs.find((line) => line.msg === 'unhandled error' && line.requestId === requestId);
      expect(logged, 'error log line with the request id').to.exist;
      expect(JSON.stringify(logged)).to.include('api_keys');
    });

    it('renders a 500 page without a stack trace for a page request', async () => {
      const res = await request(ctx.app)
        .get('/')
        .set('Authorization', `Bearer bhk_${'b'.repeat(40)}`)
        .expect(500);
      expect(res.type).to.equal('text/html');
      expect(res.text).to.include('Internal server error');
      expect(res.text).not.to.match(/node_modules|\.ts:\d+|relation "api_keys"/);
    });
  });
});
