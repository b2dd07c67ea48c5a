import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';

const AUTH_REQUIRED = { error: 'Authentication required. Use a session cookie or Authorization: Bearer <api_key>' };
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

describe('Authentication: Bearer API keys and sessions', () => {
  const ctx = useTestApp();

  // The key owner, with a live, an expired and a revoked key; a second user whose cookie rides along.
  type User = Awaited<ReturnType<typeof signedUpAgent>> & { id: string };
  let owner: User;
  let bystander: User;
  let liveKey: string;
  let expiredKey: string;
  let revokedKey: string;

  async function signedUpUser(): Promise<User> {
    const signedUp = await signedUpAgent(ctx.app);
    const me = await signedUp.agent.get('/api/me').expect(200);
    return { ...signedUp, id: me.body.id as string };
  }

  before(async () => {
    owner = await signedUpUser();
    bystander = await signedUpUser();
    liveKey = (await createKey(owner.agent, owner.csrf, { name: 'live' })).key;
    const expired = await createKey(owner.agent, owner.csrf, { name: 'expired' });
    await ctx
      .db('api_keys')
      .where({ id: expired.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expiredKey = expired.key;
    const revoked = await createKey(owner.agent, owner.csrf, { name: 'revoked' });
    await owner.agent.delete(`/api/keys/${revoked.id}`).set('X-CSRF-Token', owner.csrf).expect(200);
    revokedKey = revoked.key;
  });

  describe('GET /api/me', () => {
    const ownerAs = (authenticatedWith: 'api_key' | 'session') => ({
      id: owner.id,
      username: owner.username,
      displayName: `Display ${owner.username}`,
      isVerified: false,
      isAdmin: false,
      authenticatedWith,
    });

    it('answers a valid key with its owner and authenticatedWith "api_key"', async () => {
      const res = await request(ctx.app).get('/api/me').set('Authorization', `Bearer ${liveKey}`).expect(200);
      expect(res.body).to.deep.equal(ownerAs('api_key'));
    });

    it('answers a signed-in session with the user and authenticatedWith "session"', async () => {
      const res = await owner.agent.get('/api/me').expect(200);
      expect(res.body).to.deep.equal(ownerAs('session'));
    });

    it('reflects the verified and admin flags of the account', async () => {
      await ctx.db('users').where({ id: bystander.id }).update({ is_verified: true, is_admin: true });
      try {
        const res = await bystander.agent.get('/api/me').expect(200);
        expect(res.body).to.include({ isVerified: true, isAdmin: true });
      } finally {
        await ctx.db('users').where({ id: bystander.id }).update({ is_verified: false, is_admin: false });
      }
    });

    it('answers 401 with the exact body when no credentials are given', async () => {
      const res = await request(ctx.app).get('/api/me').expect(401);
      expect(res.body).to.deep.equal(AUTH_REQUIRED);
      expect(res.type).to.equal('application/json');
    });

    it('authenticates as the key’s user when a valid key comes with another user’s session cookie', async () => {
      const res = await bystander.agent.get('/api/me').set('Authorization', `Bearer ${liveKey}`).expect(200);
      expect(res.body).to.include({ id: owner.id, username: owner.username, authenticatedWith: 'api_key' });
    });
  });

  describe('unusable Authorization headers', () => {
    const cases: [string, () => string][] = [
      ['"Bearer" with no key', () => 'Bearer'],
      ['"Bearer " with a blank key', () => 'Bearer '],
      ['a short opaque token', () => 'Bearer abc'],
      ['an upper-case copy of a valid key', () => `Bearer bhk_${liveKey.slice(4).toUpperCase()}`],
      ['an upper-case prefix', () => `Bearer BHK_${liveKey.slice(4)}`],
      ['a key one hex digit short', () => `Bearer ${liveKey.slice(0, -1)}`],
      ['a key one hex digit long', () => `Bearer ${liveKey}0`],
      ['a key with non-hex characters', () => `Bearer bhk_${'xyz0'.repeat(10)}`],
      ['a key with trailing junk', () => `Bearer ${liveKey} extra`],
      ['a bare key without the Bearer scheme', () => liveKey],
      ['Basic credentials', () => 'Basic dXNlcjpwYXNz'],
      ['a well-formed key that was never issued', () => `Bearer bhk_${hex(20)}`],
      ['an expired key', () => `Bearer ${expiredKey}`],
      ['a revoked key', () => `Bearer ${revokedKey}`],
    ];

    for (const [label, header] of cases) {
      it(`answers 401 for ${label}`, async () => {
        const res = await request(ctx.app).get('/api/me').set('Authorization', header()).expect(401);
        expect(res.body).to.deep.equal(AUTH_REQUIRED);
      });

      it(`answers 401 for ${label} even with a valid session cookie (no fall back)`, async () => {
        const res = await owner.agent.get('/api/me').set('Authorization', header()).expect(401);
        expect(res.body).to.deep.equal(AUTH_REQUIRED);
      });
    }

    it('refuses a key that expired a moment ago even though it worked before', async () => {
      const created = await createKey(owner.agent, owner.csrf, { name: 'short-lived' });
      await request(ctx.app).get('/api/me').set('Authorization', `Bearer ${created.key}`).expect(200);
      await ctx
        .db('api_keys')
        .where({ id: created.id })
        .update({ expires_at: new Date(Date.now() - 1000) });
      await request(ctx.app).get('/api/me').set('Authorization', `Bearer ${created.key}`).expect(401);
    });

    it('does not let a bad header plus a session cookie and CSRF token revoke a key', async () => {
      const target = await createKey(owner.agent, owner.csrf, { name: 'target' });
      const res = await owner.agent
        .delete(`/api/keys/${target.id}`)
        .set('X-CSRF-Token', owner.csrf)
        .set('Authorization', `Bearer ${revokedKey}`)
        .expect(401);
      expect(res.body).to.deep.equal(AUTH_REQUIRED);
      expect((await ctx.db('api_keys').where({ id: target.id }).first()).revoked_at).to.equal(null);
    });
  });

  describe('CSRF and Bearer keys', () => {
    it('needs no CSRF token for a Bearer POST: /api/keys answers with the session-only 403', async () => {
      const res = await request(ctx.app).post('/api/keys').set('Authorization', `Bearer ${liveKey}`).send({ name: 'via key' }).expect(403);
      expect(res.body.error).to.be.a('string').and.not.equal('Invalid CSRF token');
      expect(res.body.error).to.match(/session/i);
    });

    it('needs no CSRF token for a Bearer POST to an unknown /api path: plain JSON 404', async () => {
      const res = await request(ctx.app).post('/api/no-such-endpoint').set('Authorization', `Bearer ${liveKey}`).send({}).expect(404);
      expect(res.body).to.deep.equal({ error: 'Not found' });
    });

    it('lets the key, not the cookie, decide: no CSRF token needed when both are sent', async () => {
      const res = await owner.agent.post('/api/no-such-endpoint').set('Authorization', `Bearer ${liveKey}`).send({}).expect(404);
      expect(res.body).to.deep.equal({ error: 'Not found' });
    });

    it('still demands the CSRF token from a session-only POST to the same path', async () => {
      const res = await owner.agent.post('/api/no-such-endpoint').send({}).expect(403);
      expect(res.body).to.deep.equal({ error: 'Invalid CSRF token' });
    });

    it('answers an anonymous POST with the 401, not a CSRF error', async () => {
      const res = await request(ctx.app).post('/api/keys').send({ name: 'anonymous' }).expect(401);
      expect(res.body).to.deep.equal(AUTH_REQUIRED);
    });
  });

  describe('sessions that end', () => {
    it('stops authenticating a session, and the user’s keys, once the user is deleted', async () => {
      const doomed = await signedUpAgent(ctx.app);
      const key = (await createKey(doomed.agent, doomed.csrf, { name: 'doomed' })).key;
      await doomed.agent.get('/api/me').expect(200);

      await ctx.db('users').where({ username: doomed.username }).del();

      const me = await doomed.agent.get('/api/me').expect(401);
      expect(me.body).to.deep.equal(AUTH_REQUIRED);
      const page = await doomed.agent.get('/settings/keys').expect(303);
      expect(page.headers.location).to.equal('/signin?next=%2Fsettings%2Fkeys');
      const byKey = await request(ctx.app).get('/api/me').set('Authorization', `Bearer ${key}`).expect(401);
      expect(byKey.body).to.deep.equal(AUTH_REQUIRED);
    });

    it('stops authenticating a session after sign-out', async () => {
      const leaving = await signedUpAgent(ctx.app);
      await leaving.agent.get('/api/me').expect(200);
      await leaving.agent.post('/signout').type('form').send({ _csrf: leaving.csrf }).expect(303);
      const res = await leaving.agent.get('/api/me').expect(401);
      expect(res.body).to.deep.equal(AUTH_REQUIRED);
    });
  });
});
