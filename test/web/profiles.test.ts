import { expect } from 'chai';
import request from 'supertest';
import { csrfFrom, TEST_PASSWORD, useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';

describe('profiles and profile settings', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let owner: Account;
  let prolific: Account;
  let runs: Record<string, any>[];

  before(async () => {
    owner = await account(ctx, 'Owner');
    prolific = await account(ctx, 'prolific');
    runs = [
      await submitRun(ctx, owner, { tokSOut: 11 }),
      await submitRun(ctx, owner, { hfId: fakeHubModels.moeByArchitecture, tokSOut: 12 }),
      await submitRun(ctx, owner, {
        hfId: fakeHubModels.moeByArchitecture,
        hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3090', vramGb: 24 },
        tokSOut: 13,
      }),
    ];
  });

  /** A fresh browser that signs in; answers the sign-in status (303 = signed in) and the agent. */
  async function signIn(username: string, password: string) {
    const agent = request.agent(ctx.app);
    const form = await agent.get('/signin').expect(200);
    const res = await agent
      .post('/signin')
      .type('form')
      .send({ username, password, _csrf: csrfFrom(form.text) });
    return { status: res.status, agent };
  }

  describe('/u/:username', () => {
    it('shows the account, its join date, counts and approved runs, newest first', async () => {
      const res = await request(ctx.app).get(`/u/${owner.username}`).expect(200);
      const user = await ctx.db('users').where({ id: owner.id }).first();
      expect(res.text).to.include(`<h1>Display ${owner.username} <span class="muted">@${owner.username}</span></h1>`);
      expect(res.text).to.include(
        `Joined <time datetime="${user.created_at.toISOString()}">${user.created_at.toISOString().slice(0, 10)}</time>`,
      );
      expect(res.text).to.include('<span class="stat" id="count-runs">3</span> runs');
      expect(res.text).to.include('<span class="stat" id="count-models">2</span> models');
      expect(res.text).to.include('<span class="stat" id="count-hardware">2</span> hardware setups');
      const positions = runs.map((run) => res.text.indexOf(`href="/runs/${run.id}"`));
      expect(positions.every((p) => p > 0)).to.equal(true);
      expect(positions).to.deep.equal([...positions].sort((a, b) => b - a));
      expect(res.text).not.to.include('title="verified submitter">verified');
      expect(res.text).not.to.include(`href="/runs/${(await submitRun(ctx, prolific)).id}"`);
    });

    it('matches the username case-insensitively and shows it as registered', async () => {
      for (const variant of [owner.username.toLowerCase(), owner.username.toUpperCase()]) {
        const res = await request(ctx.app).get(`/u/${variant}`).expect(200);
        expect(res.text).to.include(`@${owner.username}</span></h1>`);
      }
    });

    it('shows the verified and admin badges', async () => {
      await ctx.db('users').where({ id: owner.id }).update({ is_verified: true, is_admin: true });
      try {
        const res = await request(ctx.app).get(`/u/${owner.username}`).expect(200);
        expect(res.text).to.include('title="verified submitter">verified');
        expect(res.text).to.include('<span class="badge badge-muted">admin</span>');
      } finally {
        await ctx.db('users').where({ id: owner.id }).update({ is_verified: false, is_admin: false });
      }
    });

    it('answers 404 pages for unknown usernames and names no account can have', async () => {
      for (const name of ['nobody-here', 'ab', 'x'.repeat(33), 'bad%20name', 'a.b.c']) {
        const res = await request(ctx.app).get(`/u/${name}`);
        expect(res.status, name).to.equal(404);
        expect(res.type).to.equal('text/html');
      }
    });

    it('leaves rejected runs out of the list and the counts', async () => {
      await ctx.db('speed_test_runs').where({ id: runs[2]!.id }).update({ status: 'REJECTED' });
      try {
        const res = await request(ctx.app).get(`/u/${owner.username}`).expect(200);
        expect(res.text).not.to.include(`href="/runs/${runs[2]!.id}"`);
        expect(res.text).to.include('<span class="stat" id="count-runs">2</span> runs');
        expect(res.text).to.include('<span class="stat" id="count-hardware">1</span> hardware setup<');
      } finally {
        await ctx.db('speed_test_runs').where({ id: runs[2]!.id }).update({ status: 'APPROVED' });
      }
    });

    it('pages the runs 25 at a time', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 26; i += 1) ids.push((await submitRun(ctx, prolific, { tokSOut: 50 + i })).id);
      // Plus the one submitted in the first test: 27 runs, newest first.
      const first = await request(ctx.app).get(`/u/${prolific.username}`).expect(200);
      const second = await request(ctx.app).get(`/u/${prolific.username}`).query({ page: '2' }).expect(200);
      const onPage = (html: string) => (html.match(/href="\/runs\/[0-9a-f-]+"/g) ?? []).length;
      expect(onPage(first.text)).to.equal(25);
      expect(onPage(second.text)).to.equal(2);
      expect(first.text).to.include(`href="/runs/${ids[25]}"`);
      expect(second.text).to.include(`href="/runs/${ids[0]}"`);
      expect(first.text).to.include(`href="/u/${prolific.username}?page=2"`);
      expect(first.text).to.include('Page 1 of 2');
      for (const page of ['0', 'x']) await request(ctx.app).get(`/u/${prolific.username}`).query({ page }).expect(400);
    });

    it('is linked from the run tables and the run page', async () => {
      const home = await request(ctx.app).get('/').expect(200);
      expect(home.text).to.include(`<a href="/u/${owner.username}">@${owner.username}</a>`);
      const hardware = await request(ctx.app).get(`/hardware/${runs[0]!.hardwareId}`).expect(200);
      expect(hardware.text).to.include(`<a href="/u/${owner.username}">@${owner.username}</a>`);
      const page = await request(ctx.app).get(`/runs/${runs[0]!.id}`).expect(200);
      expect(page.text).to.include(`<a href="/u/${owner.username}">`);
    });
  });

  describe('/settings/profile', () => {
    const displayNameOf = async () => (await ctx.db('users').where({ id: owner.id }).first('display_name')).display_name;
    const hashOf = async () => (await ctx.db('users').where({ id: owner.id }).first('password_hash')).password_hash;

    it('is for signed-in browser sessions only', async () => {
      const res = await request(ctx.app).get('/settings/profile').expect(303);
      expect(res.headers.location).to.equal('/signin?next=%2Fsettings%2Fprofile');
      await request(ctx.app).get('/settings/profile').set('Authorization', `Bearer ${owner.key}`).expect(403);
      const page = await owner.agent.get('/settings/profile').expect(200);
      expect(page.text).to.include('name="displayName"').and.to.include(`value="Display ${owner.username}"`);
      expect(page.text).to.include('name="currentPassword"').and.to.include('name="newPassword"');
      expect(page.text).to.include('action="/settings/profile/password"');
    });

    it('refuses both forms without the CSRF token and writes nothing', async () => {
      await owner.agent.post('/settings/profile').type('form').send({ displayName: 'Hijacked' }).expect(403);
      await owner.agent
        .post('/settings/profile/password')
        .type('form')
        .send({ currentPassword: TEST_PASSWORD, newPassword: 'hijacked-password' })
        .expect(403);
      await owner.agent.post('/settings/profile').type('form').send({ displayName: 'Hijacked', _csrf: 'wrong' }).expect(403);
      expect(await displayNameOf()).to.equal(`Display ${owner.username}`);
      expect((await signIn(owner.username, TEST_PASSWORD)).status).to.equal(303);
    });

    it('changes the display name (303, then a confirmation) and run JSON shows it at once', async () => {
      const res = await owner.agent
        .post('/settings/profile')
        .type('form')
        .send({ displayName: '  Renamed Runner  ', _csrf: owner.csrf })
        .expect(303);
      expect(res.headers.location).to.equal('/settings/profile?saved=profile');
      expect((await owner.agent.get(res.headers.location).expect(200)).text).to.include('Display name saved.');
      expect(await displayNameOf()).to.equal('Renamed Runner');
      const list = await request(ctx.app).get('/api/speed-tests').query({ username: owner.username }).expect(200);
      expect(list.body.benchmarks).to.have.length(3);
      for (const run of list.body.benchmarks) expect(run.user.displayName).to.equal('Renamed Runner');
      const board = await request(ctx.app).get('/api/leaderboard').expect(200);
      expect(board.body.rows.find((r: { id: string }) => r.id === runs[0]!.id).user.displayName).to.equal('Renamed Runner');
      expect((await request(ctx.app).get(`/u/${owner.username}`).expect(200)).text).to.include('<h1>Renamed Runner <span');
    });

    it('shows the sign-up rule inline for a too-long display name and writes nothing; empty falls back to the username', async () => {
      const long = 'x'.repeat(65);
      const res = await owner.agent.post('/settings/profile').type('form').send({ displayName: long, _csrf: owner.csrf }).expect(400);
      expect(res.text).to.match(/<p class="field-error" id="f-displayName-error">Display name must be at most 64 characters<\/p>/);
      expect(res.text).to.include(`value="${long}"`);
      expect(await displayNameOf()).to.equal('Renamed Runner');
      await owner.agent.post('/settings/profile').type('form').send({ displayName: '   ', _csrf: owner.csrf }).expect(303);
      expect(await displayNameOf()).to.equal(owner.username);
    });

    it('refuses a wrong current password inline and changes nothing', async () => {
      const hash = await hashOf();
      const res = await owner.agent
        .post('/settings/profile/password')
        .type('form')
        .send({ currentPassword: 'not the password', newPassword: 'a-brand-new-password', _csrf: owner.csrf })
        .expect(400);
      expect(res.text).to.match(/<p class="field-error" id="f-currentPassword-error">Current password is wrong<\/p>/);
      expect(await hashOf()).to.equal(hash);
      expect((await signIn(owner.username, 'a-brand-new-password')).status).to.equal(401);
    });

    it('checks the new password by the sign-up rule, inline, and needs the current one', async () => {
      const hash = await hashOf();
      const short = await owner.agent
        .post('/settings/profile/password')
        .type('form')
        .send({ currentPassword: TEST_PASSWORD, newPassword: 'short', _csrf: owner.csrf })
        .expect(400);
      expect(short.text).to.include('Password must be at least 10 characters');
      const missing = await owner.agent
        .post('/settings/profile/password')
        .type('form')
        .send({ newPassword: 'long-enough-password', _csrf: owner.csrf })
        .expect(400);
      expect(missing.text).to.include('Current password is required');
      expect(await hashOf()).to.equal(hash);
    });

    it('answers a password post without a form body with 400 inline errors, never a 500', async () => {
      const hash = await hashOf();
      const res = await owner.agent.post('/settings/profile/password').set('X-CSRF-Token', owner.csrf).expect(400);
      expect(res.text).to.include('Current password is required').and.to.include('Password is required');
      expect(await hashOf()).to.equal(hash);
    });

    it('changes the password: the new one signs in, the old one not, and other sessions are signed out', async () => {
      const elsewhere = await signIn(owner.username, TEST_PASSWORD);
      expect(elsewhere.status).to.equal(303);
      await elsewhere.agent.get('/settings/profile').expect(200);

      const res = await owner.agent
        .post('/settings/profile/password')
        .type('form')
        .send({ currentPassword: TEST_PASSWORD, newPassword: 'a-brand-new-password', _csrf: owner.csrf })
        .expect(303);
      expect(res.headers.location).to.equal('/settings/profile?saved=password');
      expect((await owner.agent.get(res.headers.location).expect(200)).text).to.include('Password changed.');

      expect((await signIn(owner.username, TEST_PASSWORD)).status).to.equal(401);
      expect((await signIn(owner.username, 'a-brand-new-password')).status).to.equal(303);
      await elsewhere.agent.get('/settings/profile').expect(303);
      await owner.agent.get('/settings/profile').expect(200);
    });
  });
});
