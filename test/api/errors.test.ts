import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';

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

  it('answers malformed JSON with 400 { error }', async () => {
    const res = await request(ctx.app).post('/api/keys').set('Content-Type', 'application/json').send('{"name": ').expect(400);
    expect(res.body).to.deep.equal({ error: 'Malformed JSON body' });
  });

  it('answers a body over 1 MB with 413 { error }', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const res = await request(ctx.app).post('/api/keys').set('Content-Type', 'application/json').send(big).expect(413);
    expect(res.body).to.deep.equal({ error: 'Request body is larger than 1 MB' });
  });

  it('answers a NUL character in a body or query with the 400 validation shape, not a database 500', async () => {
    const body = await request(ctx.app).post('/api/keys').send({ name: 'a\u0000b' }).expect(400);
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
      const res = await request(ctx.app).get('/api/me').set('Authorization', `Bearer bhk_${'a'.repeat(40)}`).expect(500);
      expect(res.body).to.deep.equal({ error: 'Internal server error' });
      expect(res.text).not.to.match(/at .*\.ts:\d+|relation|stack/i);
      const requestId = res.headers['x-request-id'];
      const logged = ctx.logs.find((line) => line.msg === 'unhandled error' && line.requestId === requestId);
      expect(logged, 'error log line with the request id').to.exist;
      expect(JSON.stringify(logged)).to.include('api_keys');
    });

    it('renders a 500 page without a stack trace for a page request', async () => {
      const res = await request(ctx.app).get('/').set('Authorization', `Bearer bhk_${'b'.repeat(40)}`).expect(500);
      expect(res.type).to.equal('text/html');
      expect(res.text).to.include('Internal server error');
      expect(res.text).not.to.match(/node_modules|\.ts:\d+|relation "api_keys"/);
    });
  });
});
