import { expect } from 'chai';
import request from 'supertest';
import { createKey, csrfFrom, signedUpAgent, TEST_PASSWORD, useTestApp } from '../helpers/app.ts';

describe('request logging', () => {
  const ctx = useTestApp();

  it('logs each request as JSON with its request id', async () => {
    const res = await request(ctx.app).get('/healthz').set('X-Request-Id', 'log-probe-1');
    expect(res.status).to.equal(200);
    const line = ctx.logs.find((l) => (l.req as { id?: string } | undefined)?.id === 'log-probe-1');
    expect(line, 'a request log line').to.exist;
    expect(line).to.have.nested.property('res.statusCode', 200);
    expect(line).to.have.property('responseTime');
  });

  it('redacts Authorization, Cookie, the CSRF header and Set-Cookie; never writes passwords or keys', async () => {
    const { agent, csrf, username } = await signedUpAgent(ctx.app);
    const { key } = await createKey(agent, csrf);
    await request(ctx.app).get('/api/me').set('Authorization', `Bearer ${key}`).set('X-Request-Id', 'log-probe-2').expect(200);
    await agent.get('/api/keys').set('X-CSRF-Token', csrf).set('X-Request-Id', 'log-probe-3').expect(200);
    const signIn = await request.agent(ctx.app).get('/signin');
    await request(ctx.app)
      .post('/signin')
      .set('Cookie', signIn.headers['set-cookie']!)
      .set('X-Request-Id', 'log-probe-4')
      .type('form')
      .send({ username, password: TEST_PASSWORD, _csrf: csrfFrom(signIn.text) });

    const text = JSON.stringify(ctx.logs);
    expect(text).not.to.include(key);
    expect(text).not.to.include(key.slice(4));
    expect(text).not.to.include(TEST_PASSWORD);
    expect(text).not.to.include(csrf);
    expect(text).not.to.match(/bh\.sid=s%3A/);

    const byId = (id: string) => ctx.logs.find((l) => (l.req as { id?: string } | undefined)?.id === id)!;
    expect(byId('log-probe-2')).to.have.nested.property('req.headers.authorization', '[Redacted]');
    expect(byId('log-probe-3')).to.have.nested.property('req.headers.cookie', '[Redacted]');
    expect(byId('log-probe-3')).to.have.nested.property('req.headers.x-csrf-token', '[Redacted]');
    expect(byId('log-probe-4')).to.have.nested.property('res.headers.set-cookie', '[Redacted]');
  });
});
