import { expect } from 'chai';
import request from 'supertest';
import { createKey, csrfFrom, signedUpAgent, uniqueUsername, useTestApp, type Agent } from '../helpers/app.ts';

describe('admin: users page', () => {
  const ctx = useTestApp();
  let admin: { agent: Agent; csrf: string; username: string };
  let member: { agent: Agent; csrf: string; username: string };
  let memberId: string;

  before(async () => {
    admin = await signedUpAgent(ctx.app, uniqueUsername('boss'));
    await ctx.db('users').whereRaw('lower(username) = lower(?)', [admin.username]).update({ is_admin: true });
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
  });

  it('refuses a non-admin verification attempt and changes nothing', async () => {
    await member.agent.post(`/admin/users/${memberId}/verification`).type('form').send({ verified: 'true', _csrf: member.csrf }).expect(403);
    expect(await isVerified()).to.equal(false);
  });

  it('lists accounts for an admin, with search, and links Admin in the nav', async () => {
    const res = await admin.agent.get('/admin/users').expect(200);
    expect(res.text).to.include(`<td>@${member.username}</td>`);
    expect(res.text).to.include(`<td>@${admin.username}</td>`);
    expect(res.text).to.include('href="/admin/users"');
    const searched = await admin.agent.get('/admin/users').query({ q: member.username.slice(0, 10).toUpperCase() }).expect(200);
    expect(searched.text).to.include(`<td>@${member.username}</td>`);
    expect(searched.text).not.to.include(`<td>@${admin.username}</td>`);
    const none = await admin.agent.get('/admin/users').query({ q: '%' }).expect(200);
    expect(none.text).to.include('No users found.');
  });

  it('marks a user verified and back with plain form posts (303 to the list)', async () => {
    const res = await admin.agent.post(`/admin/users/${memberId}/verification`).type('form').send({ verified: 'true', _csrf: admin.csrf }).expect(303);
    expect(res.headers.location).to.equal('/admin/users');
    expect(await isVerified()).to.equal(true);
    await admin.agent.post(`/admin/users/${memberId}/verification`).type('form').send({ verified: 'false', _csrf: admin.csrf }).expect(303);
    expect(await isVerified()).to.equal(false);
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
    const bad = await admin.agent.post(`/admin/users/${memberId}/verification`).type('form').send({ verified: 'maybe', _csrf: admin.csrf }).expect(400);
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
});
