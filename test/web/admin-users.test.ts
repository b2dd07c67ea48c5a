import { expect } from 'chai';
import request from 'supertest';
import { createKey, csrfFrom, signedUpAgent, uniqueUsername, useTestApp, type Agent } from '../helpers/app.ts';
import { account, auditRowsFor, submitRun, type Account } from '../helpers/moderation.ts';

describe('admin: users page', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let admin: { agent: Agent; csrf: string; username: string };
  let adminId: string;
  let member: { agent: Agent; csrf: string; username: string };
  let memberId: string;

  before(async () => {
    admin = await signedUpAgent(ctx.app, uniqueUsername('boss'));
    await ctx.db('users').whereRaw('lower(username) = lower(?)', [admin.username]).update({ is_admin: true });
    adminId = (await ctx.db('users').where({ username: admin.username }).first('id')).id;
    member = await signedUpAgent(ctx.app, uniqueUsername('member'));
    memberId = (await ctx.db('users').where({ username: member.username }).first('id')).id;
  });

  const isVerified = async () => (await ctx.db('users').where({ id: memberId }).first('is_verified')).is_verified;

  it('sends a signed-out visitor to sign in', async () => {
    const res = await request(ctx.app).get('/admin/users').expect(303);
    expect(res.headers.location).to.equal('/signin?next=%2Fadmin%2Fusers');
  });

  it('refuses a signed-in non-admin with a 403 page and no Admin link in the nav', async () => {
    const res = await member.agent.get('/admin/users').expect(403);
    expect(res.text).to.include('Admins only');
    const home = await member.agent.get('/').expect(200);
    expect(home.text).not.to.include('href="/admin/users"');
    expect(home.text).not.to.include('href="/admin"');
  });

  it('refuses a non-admin verification attempt and changes nothing', async () => {
    await member.agent
      .post(`/admin/users/${memberId}/verification`)
      .type('form')
      .send({ verified: 'true', _csrf: member.csrf })
      .expect(403);
    expect(await isVerified()).to.equal(false);
  });

  it('lists accounts for an admin, with search, and links Admin (/admin) in the nav', async () => {
    const res = await admin.agent.get('/admin/users').expect(200);
    expect(res.text).to.include(`<a href="/u/${member.username}">@${member.username}</a>`);
    expect(res.text).to.include(`<a href="/u/${admin.username}">@${admin.username}</a>`);
    expect(res.text).to.include('href="/admin"');
    expect(res.text).to.include('href="/admin/users"');
    const searched = await admin.agent
      .get('/admin/users')
      .query({ q: member.username.slice(0, 10).toUpperCase() })
      .expect(200);
    expect(searched.text).to.include(`<a href="/u/${member.username}">@${member.username}</a>`);
    expect(searched.text).not.to.include(`<a href="/u/${admin.username}">@${admin.username}</a>`);
    const none = await admin.agent.get('/admin/users').query({ q: '%' }).expect(200);
    expect(none.text).to.include('No users found.');
  });

  it('marks a user verified and back with plain form posts (303 to the list)', async () => {
    const res = await admin.agent
      .post(`/admin/users/${memberId}/verification`)
      .type('form')
      .send({ verified: 'true', _csrf: admin.csrf })
      .expect(303);
    expect(res.headers.location).to.equal('/admin/users');
    expect(await isVerified()).to.equal(true);
    await admin.agent.post(`/admin/users/${memberId}/verification`).type('form').send({ verified: 'false', _csrf: admin.csrf }).expect(303);
    expect(await isVerified()).to.equal(false);
  });

  it('writes an audit row for each verification change, with actor and target, and none for a no-op', async () => {
    const before = (await auditRowsFor(ctx, memberId)).length;
    await admin.agent.post(`/admin/users/${memberId}/verification`).type('form').send({ verified: 'true', _csrf: admin.csrf }).expect(303);
    // Already verified: nothing changes, so nothing is logged.
    await admin.agent.post(`/admin/users/${memberId}/verification`).type('form').send({ verified: 'true', _csrf: admin.csrf }).expect(303);
    await admin.agent.post(`/admin/users/${memberId}/verification`).type('form').send({ verified: 'false', _csrf: admin.csrf }).expect(303);
    const rows = (await auditRowsFor(ctx, memberId)).slice(before);
    expect(rows.map((r) => r.action)).to.deep.equal(['user.verify', 'user.unverify']);
    for (const row of rows) {
      expect(row).to.include({
        actor_id: adminId,
        actor_username: admin.username,
        target_kind: 'user',
        target_label: `@${member.username}`,
        reason: null,
      });
    }
  });

  it('answers an htmx toggle with the updated row only', async () => {
    const res = await admin.agent
      .post(`/admin/users/${memberId}/verification`)
      .set('HX-Request', 'true')
      .set('X-CSRF-Token', admin.csrf)
      .type('form')
      .send({ verified: 'true' })
      .expect(200);
    expect(res.text.trim()).to.match(/^<tr id="user-/);
    expect(res.text).to.include('badge-ok">verified');
    expect(res.text).to.include('name="verified" value="false"');
    expect(await isVerified()).to.equal(true);
    // The member sees it too.
    const me = await member.agent.get('/api/me').expect(200);
    expect(me.body.isVerified).to.equal(true);
  });

  it('needs the CSRF token, a known user id and a true/false value', async () => {
    await admin.agent.post(`/admin/users/${memberId}/verification`).type('form').send({ verified: 'false' }).expect(403);
    expect(await isVerified()).to.equal(true);
    await admin.agent.post('/admin/users/not-a-uuid/verification').type('form').send({ verified: 'true', _csrf: admin.csrf }).expect(404);
    await admin.agent
      .post('/admin/users/00000000-0000-4000-8000-000000000000/verification')
      .type('form')
      .send({ verified: 'true', _csrf: admin.csrf })
      .expect(404);
    const bad = await admin.agent
      .post(`/admin/users/${memberId}/verification`)
      .type('form')
      .send({ verified: 'maybe', _csrf: admin.csrf })
      .expect(400);
    expect(bad.type).to.equal('text/html');
  });

  it('accepts an admin API key on the page (no CSRF needed for Bearer)', async () => {
    const { key } = await createKey(admin.agent, admin.csrf);
    await request(ctx.app)
      .post(`/admin/users/${memberId}/verification`)
      .set('Authorization', `Bearer ${key}`)
      .type('form')
      .send({ verified: 'false' })
      .expect(303);
    expect(await isVerified()).to.equal(false);
    expect(csrfFrom((await admin.agent.get('/admin/users')).text)).to.equal(admin.csrf);
  });

  describe('verification and the verified filters', () => {
    let submitter: Account;
    let runId: string;

    before(async () => {
      submitter = await account(ctx, 'runner');
      runId = (await submitRun(ctx, submitter)).id;
    });

    const verifiedIds = async () => {
      const board = await request(ctx.app).get('/api/leaderboard').query({ verified: 'true' }).expect(200);
      const list = await request(ctx.app).get('/api/speed-tests').query({ verified: 'true' }).expect(200);
      return { board: board.body.rows.map((r: { id: string }) => r.id), list: list.body.benchmarks.map((r: { id: string }) => r.id) };
    };
    const unverifiedIds = async () => {
      const board = await request(ctx.app).get('/api/leaderboard').query({ verified: 'false' }).expect(200);
      const list = await request(ctx.app).get('/api/speed-tests').query({ verified: 'false' }).expect(200);
      return { board: board.body.rows.map((r: { id: string }) => r.id), list: list.body.benchmarks.map((r: { id: string }) => r.id) };
    };

    it('moves the user’s runs into verified=true at once, and back out on unverify', async () => {
      expect(await verifiedIds()).to.deep.equal({ board: [], list: [] });
      expect(await unverifiedIds()).to.deep.equal({ board: [runId], list: [runId] });

      await admin.agent
        .post(`/admin/users/${submitter.id}/verification`)
        .type('form')
        .send({ verified: 'true', _csrf: admin.csrf })
        .expect(303);
      expect(await verifiedIds()).to.deep.equal({ board: [runId], list: [runId] });
      expect(await unverifiedIds()).to.deep.equal({ board: [], list: [] });
      const run = await request(ctx.app).get(`/api/speed-tests/${runId}`).expect(200);
      expect(run.body.user.verified).to.equal(true);

      await admin.agent
        .post(`/admin/users/${submitter.id}/verification`)
        .set('HX-Request', 'true')
        .set('X-CSRF-Token', admin.csrf)
        .type('form')
        .send({ verified: 'false' })
        .expect(200);
      expect(await verifiedIds()).to.deep.equal({ board: [], list: [] });
      expect(await unverifiedIds()).to.deep.equal({ board: [runId], list: [runId] });
    });
  });

  describe('the admin role', () => {
    const isAdmin = async (id: string) => (await ctx.db('users').where({ id }).first('is_admin')).is_admin;
    const setRole = (who: { agent: Agent; csrf: string }, id: string, adminValue: 'true' | 'false') =>
      who.agent.post(`/admin/users/${id}/admin`).type('form').send({ admin: adminValue, _csrf: who.csrf });

    it('is refused to anonymous visitors (sign-in redirect) and non-admins (403), changing nothing', async () => {
      const anonymous = request.agent(ctx.app);
      const csrf = csrfFrom((await anonymous.get('/signin').expect(200)).text);
      const res = await anonymous.post(`/admin/users/${memberId}/admin`).type('form').send({ admin: 'true', _csrf: csrf }).expect(303);
      expect(res.headers.location).to.match(/^\/signin\?next=/);
      await setRole(member, memberId, 'true').expect(403);
      expect(await isAdmin(memberId)).to.equal(false);
    });

    it('needs the CSRF token, a known id and a true/false value', async () => {
      await admin.agent.post(`/admin/users/${memberId}/admin`).type('form').send({ admin: 'true' }).expect(403);
      expect(await isAdmin(memberId)).to.equal(false);
      await admin.agent.post('/admin/users/nope/admin').type('form').send({ admin: 'true', _csrf: admin.csrf }).expect(404);
      await admin.agent
        .post('/admin/users/00000000-0000-4000-8000-000000000000/admin')
        .type('form')
        .send({ admin: 'true', _csrf: admin.csrf })
        .expect(404);
      const bad = await admin.agent
        .post(`/admin/users/${memberId}/admin`)
        .type('form')
        .send({ admin: 'yes', _csrf: admin.csrf })
        .expect(400);
      expect(bad.type).to.equal('text/html');
      expect(await isAdmin(memberId)).to.equal(false);
    });

    it('grants and revokes admin (plain post: 303; htmx: the row), each with an audit row', async () => {
      const before = (await auditRowsFor(ctx, memberId)).length;
      const res = await setRole(admin, memberId, 'true').expect(303);
      expect(res.headers.location).to.equal('/admin/users');
      expect(await isAdmin(memberId)).to.equal(true);
      // The new admin can open the admin pages at once.
      await member.agent.get('/admin').expect(200);

      const row = await admin.agent
        .post(`/admin/users/${memberId}/admin`)
        .set('HX-Request', 'true')
        .set('X-CSRF-Token', admin.csrf)
        .type('form')
        .send({ admin: 'false' })
        .expect(200);
      expect(row.text.trim()).to.match(/^<tr id="user-/);
      expect(row.text).to.include('Make admin');
      expect(row.text).to.include('name="admin" value="true"');
      expect(await isAdmin(memberId)).to.equal(false);
      await member.agent.get('/admin').expect(403);

      const rows = (await auditRowsFor(ctx, memberId)).slice(before);
      expect(rows.map((r) => r.action)).to.deep.equal(['user.grant_admin', 'user.revoke_admin']);
      for (const r of rows)
        expect(r).to.include({ actor_id: adminId, actor_username: admin.username, target_kind: 'user', target_id: memberId });
    });

    it('never demotes the last admin: 409 with the reason (page and htmx row), nothing written', async () => {
      expect(await ctx.db('users').where({ is_admin: true }).pluck('id')).to.deep.equal([adminId]);
      const auditBefore = (await auditRowsFor(ctx, adminId)).length;
      const page = await setRole(admin, adminId, 'false').expect(409);
      expect(page.type).to.equal('text/html');
      expect(page.text).to.include('The last admin cannot lose the admin role');
      const row = await admin.agent
        .post(`/admin/users/${adminId}/admin`)
        .set('HX-Request', 'true')
        .set('X-CSRF-Token', admin.csrf)
        .type('form')
        .send({ admin: 'false' })
        .expect(409);
      expect(row.text.trim()).to.match(/^<tr id="user-/);
      expect(row.text).to.include('The last admin cannot lose the admin role');
      expect(row.text).to.include('Revoke admin');
      expect(await isAdmin(adminId)).to.equal(true);
      expect(await auditRowsFor(ctx, adminId)).to.have.length(auditBefore);
    });

    it('lets an admin give up the role while another admin remains, and sends them home', async () => {
      await setRole(admin, memberId, 'true').expect(303);
      const res = await setRole(member, memberId, 'false').expect(303);
      expect(res.headers.location).to.equal('/');
      expect(await isAdmin(memberId)).to.equal(false);
      expect((await auditRowsFor(ctx, memberId)).at(-1)).to.include({ action: 'user.revoke_admin', actor_id: memberId });
    });

    it('leaves one admin when two admins demote each other at the same moment', async () => {
      for (let round = 0; round < 3; round += 1) {
        await ctx.db('users').where({ id: memberId }).update({ is_admin: true });
        const [a, b] = await Promise.all([setRole(admin, memberId, 'false'), setRole(member, adminId, 'false')]);
        // One wins; the other is refused as the last admin (409), or, when it started after
        // the first committed, as no longer an admin (403).
        const statuses = [a.status, b.status].sort();
        expect(statuses[0]).to.equal(303);
        expect(statuses[1]).to.be.oneOf([403, 409]);
        const admins = await ctx.db('users').where({ is_admin: true }).pluck('id');
        expect(admins).to.have.length(1);
        // Put the original admin back for the next round and the other tests.
        if (admins[0] !== adminId) await ctx.db('users').where({ id: adminId }).update({ is_admin: true });
        await ctx.db('users').where({ id: memberId }).update({ is_admin: false });
      }
    });
  });
});
