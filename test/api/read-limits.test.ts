import { expect } from 'chai';
import request from 'supertest';
import { loadConfig } from '../../src/config.ts';
import { useTestApp } from '../helpers/app.ts';
import { validSubmission } from '../helpers/fixtures.ts';

/**
 * The per-address limits on reads and exports (src/middleware/read-limits.ts), with small
 * budgets so a test can exhaust them. Addresses come from X-Forwarded-For behind a trusted proxy.
 */
describe('per-address read limit', () => {
  const ctx = useTestApp({ READ_LIMIT_PER_MINUTE: '5', EXPORT_LIMIT_PER_HOUR: '2', TRUST_PROXY: 'true' });
  const from = (address: string) => ({ 'X-Forwarded-For': address });

  it('sends the RateLimit headers, then answers the sixth GET with 429, Retry-After and the JSON shape', async () => {
    const address = from('203.0.113.10');
    for (let i = 1; i <= 5; i += 1) {
      const res = await request(ctx.app).get('/api/leaderboard').set(address).expect(200);
      expect(res.headers['ratelimit-policy']).to.match(/^"reads"; q=5; w=60; pk=:[^:;]+:$/);
      expect(res.headers.ratelimit).to.match(new RegExp(`^"reads"; r=${5 - i}; t=\\d+$`));
    }
    const limited = await request(ctx.app).get('/api/models').set(address).expect(429);
    expect(limited.headers['content-type']).to.match(/^application\/json/);
    expect(limited.body).to.have.all.keys('error', 'retryAfterMs');
    expect(limited.body.error).to.match(/^Too many requests from your address\. Retry in \d+ seconds?\.$/);
    expect(limited.body.retryAfterMs).to.be.within(1000, 60_000);
    expect(Number(limited.headers['retry-after'])).to.be.within(1, 60);
    expect(limited.headers.ratelimit).to.match(/^"reads"; r=0; t=\d+$/);

    // Pages share the budget and get the HTML error page.
    const page = await request(ctx.app).get('/models').set(address).expect(429);
    expect(page.headers['content-type']).to.match(/^text\/html/);
    expect(page.text).to.include('Too many requests from your address.');
  });

  it('keeps each address to its own budget and leaves writes, assets and the health probe alone', async () => {
    const busy = from('203.0.113.20');
    for (let i = 0; i < 6; i += 1) await request(ctx.app).get('/api/leaderboard').set(busy);
    await request(ctx.app).get('/api/leaderboard').set(busy).expect(429);
    await request(ctx.app).get('/api/leaderboard').set(from('203.0.113.21')).expect(200);

    // A POST is no read: it gets its own answer (401 here), not the read limit's 429.
    await request(ctx.app).post('/api/speed-tests').set(busy).send(validSubmission()).expect(401);
    await request(ctx.app).get('/css/site.css').set(busy).expect(200);
    const health = await request(ctx.app).get('/healthz').set(busy);
    expect(health.status).to.equal(200);
  });

  it('limits exports separately: the third CSV or JSON Lines export in an hour is a 429 while JSON reads go on', async () => {
    const address = from('203.0.113.30');
    await request(ctx.app).get('/api/leaderboard?format=csv').set(address).expect(200);
    await request(ctx.app).get('/api/leaderboard?format=jsonl').set(address).expect(200);
    const limited = await request(ctx.app).get('/api/leaderboard?format=csv').set(address).expect(429);
    expect(limited.body.error).to.match(/^Too many exports from your address\. Retry in \d+ minutes?\.$/);
    expect(Number(limited.headers['retry-after'])).to.be.within(1, 3600);
    expect(limited.headers['ratelimit-policy']).to.include('"exports"; q=2; w=3600');
    await request(ctx.app).get('/api/leaderboard').set(address).expect(200);
  });
});

describe('read limit defaults', () => {
  it('are generous (600 reads a minute, 60 exports an hour) and can be turned off with 0', () => {
    const env = { SESSION_SECRET: 's'.repeat(40) };
    expect(loadConfig(env).readLimits).to.deep.equal({ perMinute: 600, exportsPerHour: 60 });
    expect(loadConfig({ ...env, READ_LIMIT_PER_MINUTE: '0', EXPORT_LIMIT_PER_HOUR: '0' }).readLimits).to.deep.equal({
      perMinute: 0,
      exportsPerHour: 0,
    });
    expect(() => loadConfig({ ...env, READ_LIMIT_PER_MINUTE: '-1' })).to.throw(/^READ_LIMIT_PER_MINUTE: /);
  });
});
