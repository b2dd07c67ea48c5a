import { expect } from 'chai';
import request from 'supertest';
import type { Express } from 'express';
import { csrfFrom, useTestApp } from '../helpers/app.ts';

/** Eleven wrong sign-ins for one username, each claiming a different client address. */
async function statusesWithSpoofedAddresses(app: Express): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 11; i += 1) {
    const agent = request.agent(app);
    const csrf = csrfFrom((await agent.get('/signin')).text);
    const res = await agent
      .post('/signin')
      .set('X-Forwarded-For', `203.0.113.${i + 1}`)
      .type('form')
      .send({ username: 'victim', password: 'wrong password!', _csrf: csrf });
    statuses.push(res.status);
  }
  return statuses;
}

describe('TRUST_PROXY', () => {
  describe('unset (the default)', () => {
    const ctx = useTestApp();
    it('ignores X-Forwarded-For, so a client cannot dodge the sign-in limit by inventing addresses', async () => {
      const statuses = await statusesWithSpoofedAddresses(ctx.app);
      expect(statuses.slice(0, 10)).to.deep.equal(Array(10).fill(401));
      expect(statuses[10]).to.equal(429);
    });
  });

  describe('set to true behind a proxy', () => {
    const ctx = useTestApp({ TRUST_PROXY: 'true' });
    it('takes the client address from X-Forwarded-For, so each address has its own limit', async () => {
      const statuses = await statusesWithSpoofedAddresses(ctx.app);
      expect(statuses).to.deep.equal(Array(11).fill(401));
    });
  });
});
