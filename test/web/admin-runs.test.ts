import { expect } from 'chai';
import request from 'supertest';
import { csrfFrom, useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { account, auditRowsFor, submitRun, type Account } from '../helpers/moderation.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('admin: speed-test runs, overview and audit log', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let admin: Account;
  let member: Account;
  let other: Account;
  /** member's runs: on an RTX 4090 (Dense-7B) and an RTX 3090 (Dense-7B); other's: Mixture-8x7B. */
  let runA: Record<string, any>;
  let runB: Record<string, any>;
  let runC: Record<string, any>;

  before(async () => {
    admin = await account(ctx, 'boss', { admin: true });
    member = await account(ctx, 'member');
    other = await account(ctx, 'other');
    runA = await submitRun(ctx, member, { tokSOut: 99.5 });
    runB = await submitRun(ctx, member, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3090', vramGb: 24 }, tokSOut: 20 });
    runC = await submitRun(ctx, other, { hfId: fakeHubModels.moeByArchitecture, tokSOut: 30 });
  });

  const reject = (who: Account, id: string, body: Record<string, unknown>) =>
    who.agent
      .post(`/admin/runs/${id}/reject`)
      .type('form')
      .send({ _csrf: who.csrf, ...body });
  const restore = (who: Account, id: string, body: Record<string, unknown> = {}) =>
    who.agent
      .post(`/admin/runs/${id}/restore`)
      .type('form')
      .send({ _csrf: who.csrf, ...body });
  const statusOf = async (id: string) => (await ctx.db('speed_test_runs').where({ id }).first('status')).status;
  const benchmarkCount = async (hfId: string) => (await request(ctx.app).get(`/api/models/${hfId}`).expect(200)).body.benchmarkCount;

  /** Where a run can be seen by the public. */
  async function publicSightings(id: string) {
    const list = await request(ctx.app).get('/api/speed-tests').expect(200);
    const filtered = await request(ctx.app).get('/api/speed-tests').query({ hfId: fakeHubModels.dense }).expect(200);
    const board = await request(ctx.app).get('/api/leaderboard').expect(200);
    const home = await request(ctx.app).get('/').expect(200);
    const single = await request(ctx.app).get(`/api/speed-tests/${id}`);
    const page = await request(ctx.app).get(`/runs/${id}`);
    // Signed in, but not the run's owner (the owner sees their run in any status).
    const otherPage = await other.agent.get(`/runs/${id}`);
    const profile = await request(ctx.app).get(`/u/${member.username}`).expect(200);
    return {
      list: list.body.benchmarks.some((r: { id: string }) => r.id === id),
      listTotal: list.body.total,
      filtered: filtered.body.benchmarks.some((r: { id: string }) => r.id === id),
      board: board.body.rows.some((r: { id: string }) => r.id === id),
      boardTotal: board.body.total,
      home: home.text.includes(`/runs/${id}`),
      apiStatus: single.status,
      pageStatus: page.status,
      otherPageStatus: otherPage.status,
      profile: profile.text.includes(`/runs/${id}`),
    };
  }

  describe('access', () => {
    for (const path of ['/admin', '/admin/runs', '/admin/audit', '/admin/users']) {
      it(`GET ${path}: anonymous → sign-in redirect, user → 403, admin → 200`, async () => {
        const anonymous = await request(ctx.app).get(path).expect(303);
        expect(anonymous.headers.location).to.equal(`/signin?next=${encodeURIComponent(path)}`);
        const refused = await member.agent.get(path).expect(403);
        expect(refused.text).to.include('Admins only');
        const page = await admin.agent.get(path).expect(200);
        expect(page.type).to.equal('text/html');
        expect(page.text).to.include('<nav class="admin-nav"');
      });
    }

    for (const action of ['reject', 'restore']) {
      it(`POST /admin/runs/:id/${action}: anonymous → sign-in redirect, user → 403, nothing changes`, async () => {
        const anonymous = request.agent(ctx.app);
        const csrf = csrfFrom((await anonymous.get('/signin').expect(200)).text);
        const res = await anonymous.post(`/admin/runs/${runA.id}/${action}`).type('form').send({ reason: 'spam', _csrf: csrf }).expect(303);
        expect(res.headers.location).to.equal(`/signin?next=${encodeURIComponent(`/admin/runs/${runA.id}/${action}`)}`);
        await member.agent.post(`/admin/runs/${runA.id}/${action}`).type('form').send({ reason: 'spam', _csrf: member.csrf }).expect(403);
        expect(await statusOf(runA.id)).to.equal('APPROVED');
        expect(await auditRowsFor(ctx, runA.id)).to.have.length(0);
      });
    }

    it('shows the Admin nav link (to /admin) to admins only', async () => {
      expect((await admin.agent.get('/').expect(200)).text).to.include('<a href="/admin"');
      expect((await member.agent.get('/').expect(200)).text).not.to.include('<a href="/admin"');
    });
  });

  describe('search', () => {
    const listed = (html: string) => [runA, runB, runC].filter((r) => html.includes(`id="run-${r.id}"`)).map((r) => r.id);

    it('lists runs of every status, newest first, with reject forms', async () => {
      const res = await admin.agent.get('/admin/runs').expect(200);
      expect(listed(res.text)).to.have.members([runA.id, runB.id, runC.id]);
      expect(res.text.indexOf(`id="run-${runC.id}"`)).to.be.lessThan(res.text.indexOf(`id="run-${runA.id}"`));
      expect(res.text).to.include(`action="/admin/runs/${runA.id}/reject"`);
      expect(res.text).to.include('3 runs.');
    });

    it('filters by model id, username, hardware text and status (case-insensitive substrings)', async () => {
      const by = async (query: Record<string, string>) => listed((await admin.agent.get('/admin/runs').query(query).expect(200)).text);
      expect(await by({ model: 'MIXTURE' })).to.deep.equal([runC.id]);
      expect(await by({ model: 'dense-7b' })).to.have.members([runA.id, runB.id]);
      expect(await by({ user: member.username.toUpperCase() })).to.have.members([runA.id, runB.id]);
      expect(await by({ hardware: '3090' })).to.deep.equal([runB.id]);
      expect(await by({ user: member.username, hardware: '4090' })).to.deep.equal([runA.id]);
      expect(await by({ status: 'REJECTED' })).to.deep.equal([]);
      expect(await by({ model: '', user: '', hardware: '', status: '' })).to.have.length(3);
      expect(await by({ model: '%' })).to.deep.equal([]);
    });

    it('answers bad search parameters with a 400 page, not a 500', async () => {
      for (const query of [{ status: 'BOGUS' }, { page: '0' }, { page: 'x' }, { model: 'x'.repeat(300) }]) {
        const res = await admin.agent.get('/admin/runs').query(query);
        expect(res.status, JSON.stringify(query)).to.equal(400);
        expect(res.type).to.equal('text/html');
      }
    });
  });

  describe('rejecting and restoring', () => {
    it('needs a reason: 400 with the error inline in the row, nothing written (plain and htmx)', async () => {
      const plain = await reject(admin, runA.id, { reason: '   ' }).expect(400);
      expect(plain.type).to.equal('text/html');
      expect(plain.text).to.include(`id="run-${runA.id}"`);
      expect(plain.text).to.match(/<p class="field-error" id="reason-[^"]+-error">A reason is required<\/p>/);
      const htmx = await admin.agent
        .post(`/admin/runs/${runA.id}/reject`)
        .set('HX-Request', 'true')
        .set('X-CSRF-Token', admin.csrf)
        .type('form')
        .send({})
        .expect(400);
      expect(htmx.text.trim()).to.match(/^<tr id="run-/);
      expect(htmx.text).to.include('A reason is required');
      const tooLong = await reject(admin, runA.id, { reason: 'x'.repeat(501) }).expect(400);
      expect(tooLong.text).to.include('Reason must be at most 500 characters');
      expect(await statusOf(runA.id)).to.equal('APPROVED');
      expect(await auditRowsFor(ctx, runA.id)).to.have.length(0);
    });

    it('answers a post without a form body, or with the reason twice, with 400 (never a 500), nothing written', async () => {
      for (const action of ['reject', 'restore']) {
        const bare = await admin.agent.post(`/admin/runs/${runA.id}/${action}`).set('X-CSRF-Token', admin.csrf);
        // Without a body: reject misses its reason; restore has none to miss and finds the run approved.
        expect(bare.status, `${action} without a body`).to.equal(action === 'reject' ? 400 : 409);
        const twice = await admin.agent
          .post(`/admin/runs/${runA.id}/${action}`)
          .type('form')
          .send(`_csrf=${encodeURIComponent(admin.csrf)}&reason=a&reason=b`);
        expect(twice.status, `${action} with two reasons`).to.equal(400);
      }
      expect(await statusOf(runA.id)).to.equal('APPROVED');
      expect(await auditRowsFor(ctx, runA.id)).to.have.length(0);
    });

    it('answers 404 for an id that is not a uuid or not a run, and 403 without the CSRF token', async () => {
      await reject(admin, 'not-a-uuid', { reason: 'spam' }).expect(404);
      await reject(admin, UNKNOWN_ID, { reason: 'spam' }).expect(404);
      await restore(admin, 'not-a-uuid').expect(404);
      await restore(admin, UNKNOWN_ID).expect(404);
      await admin.agent.post(`/admin/runs/${runA.id}/reject`).type('form').send({ reason: 'spam' }).expect(403);
      expect(await statusOf(runA.id)).to.equal('APPROVED');
      // The run page answers an admin the same way for ids that name no run.
      await admin.agent.get('/runs/not-a-uuid').expect(404);
      await admin.agent.get(`/runs/${UNKNOWN_ID}`).expect(404);
    });

    it('a rejected run leaves every public list, the leaderboard, the model count and its page; restore brings it back', async () => {
      const before = await publicSightings(runA.id);
      expect(before).to.deep.include({
        list: true,
        filtered: true,
        board: true,
        home: true,
        apiStatus: 200,
        pageStatus: 200,
        otherPageStatus: 200,
        profile: true,
      });
      const countBefore = await benchmarkCount(fakeHubModels.dense);
      expect(countBefore).to.equal(2);

      const res = await reject(admin, runA.id, {
        reason: 'Impossible numbers for this card',
        back: `user=${member.username}&status=APPROVED`,
      }).expect(303);
      expect(res.headers.location).to.equal(`/admin/runs?user=${member.username}&status=APPROVED`);
      expect(await statusOf(runA.id)).to.equal('REJECTED');
      const hidden = await publicSightings(runA.id);
      expect(hidden).to.deep.equal({
        list: false,
        listTotal: before.listTotal - 1,
        filtered: false,
        board: false,
        boardTotal: before.boardTotal - 1,
        home: false,
        apiStatus: 404,
        pageStatus: 404,
        otherPageStatus: 404,
        profile: false,
      });
      expect(await benchmarkCount(fakeHubModels.dense)).to.equal(countBefore - 1);

      // Its owner still opens it: the status and the admin's reason instead of a 404.
      const ownerPage = await member.agent.get(`/runs/${runA.id}`).expect(200);
      expect(ownerPage.text).to.include('id="status-banner"');
      expect(ownerPage.text).to.include('This run is rejected');
      expect(ownerPage.text).to.include('Impossible numbers for this card');

      // Admins still open it, with a banner that gives the reason.
      const adminPage = await admin.agent.get(`/runs/${runA.id}`).expect(200);
      expect(adminPage.text).to.include('id="moderation-banner"');
      expect(adminPage.text).to.include('Impossible numbers for this card');
      expect(adminPage.text).to.include(`@${admin.username}`);
      // An approved run has no banner.
      expect((await admin.agent.get(`/runs/${runB.id}`).expect(200)).text).not.to.include('id="moderation-banner"');

      const row = await admin.agent
        .post(`/admin/runs/${runA.id}/restore`)
        .set('HX-Request', 'true')
        .set('X-CSRF-Token', admin.csrf)
        .type('form')
        .send({ reason: 'Re-measured, fine' })
        .expect(200);
      expect(row.text.trim()).to.match(/^<tr id="run-/);
      expect(row.text).to.include('badge-ok">approved');
      expect(row.text).to.include(`action="/admin/runs/${runA.id}/reject"`);
      expect(await publicSightings(runA.id)).to.deep.equal(before);
      expect(await benchmarkCount(fakeHubModels.dense)).to.equal(countBefore);
      expect(await ctx.db('speed_test_runs').where({ id: runA.id }).first('rejected_reason', 'rejected_at', 'rejected_by')).to.deep.equal({
        rejected_reason: null,
        rejected_at: null,
        rejected_by: null,
      });
    });

    it('writes one audit row per action, with actor, target, label and reason', async () => {
      const rows = await auditRowsFor(ctx, runA.id);
      expect(rows.map((r) => [r.action, r.reason])).to.deep.equal([
        ['run.reject', 'Impossible numbers for this card'],
        ['run.restore', 'Re-measured, fine'],
      ]);
      for (const r of rows) {
        expect(r).to.include({ actor_id: admin.id, actor_username: admin.username, target_kind: 'speed_test_run', target_id: runA.id });
        expect(r.target_label).to.include(fakeHubModels.dense).and.to.include(`@${member.username}`);
      }
    });

    it('answers the htmx reject with the row showing the rejection; a second reject or restore of the wrong state is a 409', async () => {
      const row = await admin.agent
        .post(`/admin/runs/${runC.id}/reject`)
        .set('HX-Request', 'true')
        .set('X-CSRF-Token', admin.csrf)
        .type('form')
        .send({ reason: 'Duplicate' })
        .expect(200);
      expect(row.text).to.include('badge-warn">rejected');
      expect(row.text).to.include('Duplicate');
      expect(row.text).to.include(`action="/admin/runs/${runC.id}/restore"`);

      const again = await reject(admin, runC.id, { reason: 'Again' }).expect(409);
      expect(again.text).to.include('cannot be rejected');
      const notRejected = await restore(admin, runB.id).expect(409);
      expect(notRejected.text).to.include('nothing to restore');
      expect(await statusOf(runB.id)).to.equal('APPROVED');
      expect((await auditRowsFor(ctx, runC.id)).map((r) => r.action)).to.deep.equal(['run.reject']);
      expect(await auditRowsFor(ctx, runB.id)).to.have.length(0);
      // The status filter finds it.
      const rejected = await admin.agent.get('/admin/runs').query({ status: 'REJECTED' }).expect(200);
      expect(rejected.text).to.include(`id="run-${runC.id}"`);
      expect(rejected.text).not.to.include(`id="run-${runA.id}"`);
    });

    it('falls back to the plain list when the posted back link is not a valid list query', async () => {
      await restore(admin, runC.id, { back: 'status=NOPE&page=-1' }).expect(303).expect('Location', '/admin/runs');
      expect(await statusOf(runC.id)).to.equal('APPROVED');
    });
  });

  describe('overview and audit log pages', () => {
    it('/admin shows the counts', async () => {
      await reject(admin, runB.id, { reason: 'Wrong model' }).expect(303);
      const res = await admin.agent.get('/admin').expect(200);
      const count = (id: string) => Number(new RegExp(`id="${id}">(\\d+)<`).exec(res.text)?.[1]);
      expect(count('count-users')).to.equal(3);
      expect(count('count-verified-users')).to.equal(0);
      expect(count('count-admins')).to.equal(1);
      expect(count('count-approved-runs')).to.equal(2);
      expect(count('count-rejected-runs')).to.equal(1);
      expect(count('count-audit-entries')).to.equal(5);
      expect(res.text).to.include('href="/admin/users"').and.to.include('href="/admin/runs"').and.to.include('href="/admin/audit"');
    });

    it('/admin/audit lists every action newest first, with who, what, target and reason', async () => {
      const res = await admin.agent.get('/admin/audit').expect(200);
      const order = [...res.text.matchAll(/<code>(run\.[a-z_]+|user\.[a-z_]+)<\/code>/g)].map((m) => m[1]);
      expect(order).to.deep.equal(['run.reject', 'run.restore', 'run.reject', 'run.restore', 'run.reject']);
      expect(res.text.indexOf('Wrong model')).to.be.lessThan(res.text.indexOf('Impossible numbers for this card'));
      expect(res.text).to.include(`>@${admin.username}</a>`);
      expect(res.text).to.include(`href="/runs/${runB.id}"`);
      expect(res.text).to.include('5 entries.');
      await admin.agent.get('/admin/audit').query({ page: '0' }).expect(400);
      const beyond = await admin.agent.get('/admin/audit').query({ page: '2' }).expect(200);
      expect(beyond.text).to.include('No entries on this page.');
    });
  });

  describe('concurrent moderation', () => {
    it('rejects a run once when five rejections race: one 303, the rest 409, one count change, one audit row', async () => {
      const countBefore = await benchmarkCount(fakeHubModels.dense);
      const auditBefore = (await auditRowsFor(ctx, runA.id)).length;
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => reject(admin, runA.id, { reason: `race ${i}` })));
      expect(results.map((r) => r.status).sort()).to.deep.equal([303, 409, 409, 409, 409]);
      expect(await statusOf(runA.id)).to.equal('REJECTED');
      expect(await benchmarkCount(fakeHubModels.dense)).to.equal(countBefore - 1);
      expect((await auditRowsFor(ctx, runA.id)).slice(auditBefore).map((r) => r.action)).to.deep.equal(['run.reject']);
    });
  });
});
