import { expect } from 'chai';
import request from 'supertest';
import { createKey, csrfFrom, signedUpAgent, useTestApp } from '../helpers/app.ts';

/**
 * A password change leaves API keys valid (README "Accounts, sessions and API keys"); the
 * profile settings offer "Revoke all API keys" beside it: session and CSRF only, audited.
 */
describe('revoke all API keys from the profile settings', () => {
  const ctx = useTestApp();
  const FORM = '/settings/profile/keys/revoke-all';

  it('revokes every live key of the account at once (and no one else’s), audited, behind the session and its CSRF token', async () => {
    const owner = await signedUpAgent(ctx.app);
    const other = await signedUpAgent(ctx.app);
    const keys = [await createKey(owner.agent, owner.csrf), await createKey(owner.agent, owner.csrf, { name: 'second' })];
    const otherKey = await createKey(other.agent, other.csrf);
    const usable = (key: string) => request(ctx.app).post('/api/speed-tests').set('Authorization', `Bearer ${key}`).send({});

    const page = await owner.agent.get('/settings/profile').expect(200);
    expect(page.text).to.include(`action="${FORM}"`);
    expect(page.text).to.include('leaves your API keys working');
    await owner.agent.post(FORM).type('form').send({}).expect(403);
    await request(ctx.app).post(FORM).set('Authorization', `Bearer ${keys[0]!.key}`).expect(403);
    for (const { key } of keys) await usable(key).expect(400);

    const done = await owner.agent
      .post(FORM)
      .type('form')
      .send({ _csrf: csrfFrom(page.text) })
      .expect(303);
    expect(done.headers.location).to.equal('/settings/profile?saved=keys');
    for (const { key } of keys) await usable(key).expect(401);
    await usable(otherKey.key).expect(400);

    const audit = await ctx.db('admin_audit_log').where({ action: 'api_keys.revoke_all' });
    expect(audit).to.have.length(1);
    expect(audit[0]).to.include({
      actor_username: owner.username,
      target_kind: 'user',
      target_label: owner.username,
      reason: '2 live keys revoked by the owner',
    });
  });
});
