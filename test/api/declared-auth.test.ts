import { expect } from 'chai';
import request from 'supertest';
import { apiOperations } from '../../src/api/index.ts';
import { messages } from '../../src/messages.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';

// Routes are mounted from their declarations, auth included: whatever an operation declares
// is what a caller meets, so no route can be documented as public and served as private.
const MISSING_ID = '00000000-0000-4000-8000-000000000000';

for (const revision of [1, 2, 3] as const) {
  describe(`declared auth is the mounted auth, revision ${revision}`, () => {
    const ctx = useTestApp({ API_REVISION: String(revision) });
    const operations = apiOperations(getRevisionProfile(revision));
    let key: string;

    before(async () => {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      key = (await createKey(agent, csrf)).key;
    });

    const pathOf = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => (name === 'id' ? MISSING_ID : 'x'));

    it('answers every operation that needs credentials with 401 when there are none, and no public one', async () => {
      for (const op of operations) {
        const res = await request(ctx.app)[op.method](pathOf(op.path)).send({});
        const label = `${op.method.toUpperCase()} ${op.path} (${op.auth})`;
        if (op.auth === 'public') expect(res.status, label).not.to.equal(401);
        else expect(res.body, label).to.deep.equal({ error: messages.authenticationRequired });
      }
    });

    it('refuses an API key with 403 on every session-only operation, and takes it everywhere else', async () => {
      for (const op of operations) {
        const res = await request(ctx.app)[op.method](pathOf(op.path)).set('Authorization', `Bearer ${key}`).send({});
        const label = `${op.method.toUpperCase()} ${op.path} (${op.auth})`;
        if (op.auth === 'session') expect(res.body, label).to.deep.equal({ error: messages.sessionOnly });
        else expect([401, 403], label).not.to.include(res.status);
      }
    });
  });
}
