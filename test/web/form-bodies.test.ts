import { expect } from 'chai';
import request from 'supertest';
import { csrfFrom, signedUpAgent, useTestApp } from '../helpers/app.ts';

// Only urlencoded and JSON bodies are parsed; any other content type leaves the body unread.
// A form posted that way is an empty form (found by `npm run fuzz`: these were 500s).
describe('Forms posted with a content type the app does not parse', () => {
  const ctx = useTestApp();

  for (const path of ['/signup', '/signin']) {
    it(`POST ${path} as text/plain is a 400 page with the form again`, async () => {
      const agent = request.agent(ctx.app);
      const form = await agent.get(path).expect(200);
      const res = await agent
        .post(path)
        .set('X-CSRF-Token', csrfFrom(form.text))
        .set('Content-Type', 'text/plain')
        .send('username=someone&password=long enough password');
      expect(res.status).to.equal(400);
      expect(res.type).to.equal('text/html');
      expect(res.text).to.include(`method="post" action="${path}"`);
    });
  }

  it('POST /settings/keys as text/plain is a 400 page asking for the name, and creates no key', async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    const res = await agent.post('/settings/keys').set('X-CSRF-Token', csrf).set('Content-Type', 'text/plain').send('name=my key');
    expect(res.status).to.equal(400);
    expect(res.type).to.equal('text/html');
    expect(res.text).to.include('Name is required');
    const keys = await agent.get('/api/keys').expect(200);
    expect(keys.body).to.deep.equal([]);
  });
});
