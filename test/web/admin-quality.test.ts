import { expect } from 'chai';
import request from 'supertest';
import { csrfFrom, useTestApp, type TestContext } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { account, auditRowsFor, submitRun, type Account } from '../helpers/moderation.ts';
import { approveSuite, bearer, customSuite, qualityRun, registerSuite, submitQualityRun, uniqueSlug } from '../helpers/quality.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

type Body = Record<string, any>;

/** A review action posted as a plain form (`htmx`: as htmx posts it; `csrf: false`: without the token). */
function review(who: Account, path: string, fields: Record<string, unknown> = {}, { htmx = false, csrf = true } = {}) {
  const req = who.agent.post(path).type('form');
  if (htmx) req.set('HX-Request', 'true');
  if (htmx && csrf) req.set('X-CSRF-Token', who.csrf);
  return req.send(csrf && !htmx ? { _csrf: who.csrf, ...fields } : fields);
}

const suiteStatus = (ctx: TestContext, id: string) =>
  ctx.db('quality_suites').where({ id }).first('status', 'official', 'admin_notes', 'reviewed_by', 'run_count');
const datasetStatus = (ctx: TestContext, id: string) =>
  ctx.db('quality_datasets').where({ id }).first('status', 'admin_notes', 'reviewed_by');
const runStatus = (ctx: TestContext, id: string) => ctx.db('quality_runs').where({ id }).first('status', 'admin_notes', 'reviewed_by');
const auditActionsFor = async (ctx: TestContext, id: string) => (await auditRowsFor(ctx, id)).map((row) => row.action);

/** Responses to every arithmetic item (all right), so the server re-scores the task at 1 against the reported 0.75. */
const rightArithmetic = [
  { taskKey: 'arith', itemIndex: 0, question: 'What is 2 + 2?', response: 'The answer is 4' },
  { taskKey: 'arith', itemIndex: 1, response: '7' },
  { taskKey: 'arith', itemIndex: 2, response: '42' },
  { taskKey: 'arith', itemIndex: 3, response: '3' },
];

describe('admin: quality review (revision 3)', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  const root = '/api/benchmarks';
  let admin: Account;
  let member: Account;
  let other: Account;

  const datasetBody = () => ({
    slug: uniqueSlug('data'),
    name: 'Arithmetic shards',
    license: 'CC-BY-4.0',
    shards: [
      {
        name: 'first',
        items: [
          { input: 'What is 1 + 1?', gold: 2 },
          { input: '2+2?', gold: 4 },
        ],
      },
      { items: [{ input: '3+3?', gold: 6 }] },
    ],
  });
  async function createDataset(who: Account): Promise<Body> {
    const res = await request(ctx.app).post(`${root}/datasets`).set(bearer(who)).send(datasetBody());
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  }
  const shardSuite = (datasetSlug: string) => {
    const body = customSuite();
    body.suiteDoc.tasks[0].dataset = { source: 'shard', datasetSlug };
    return body;
  };
  /** A run of an approved suite by `who`, pending. */
  async function pendingRun(who: Account, overrides: Body = {}): Promise<{ suite: Body; run: Body }> {
    const suite = await registerSuite(ctx, root, other, customSuite());
    await approveSuite(ctx, suite.slug);
    const run = await submitQualityRun(ctx, root, who, qualityRun(suite.slug, { artifacts: rightArithmetic, ...overrides }));
    return { suite: { ...suite, status: 'APPROVED' }, run };
  }

  before(async () => {
    admin = await account(ctx, 'boss', { admin: true });
    member = await account(ctx, 'member');
    other = await account(ctx, 'other');
    // The member's record: one speed-test run.
    await submitRun(ctx, member);
  });

  describe('access', () => {
    it('GET /admin/quality: anonymous → sign-in redirect, user → 403, admin → 200 with the admin nav', async () => {
      const anonymous = await request(ctx.app).get('/admin/quality').expect(303);
      expect(anonymous.headers.location).to.equal(`/signin?next=${encodeURIComponent('/admin/quality')}`);
      expect((await member.agent.get('/admin/quality').expect(403)).text).to.include('Admins only');
      const page = await admin.agent.get('/admin/quality').expect(200);
      expect(page.type).to.equal('text/html');
      expect(page.text).to.include('<h1>Quality review</h1>');
      expect(page.text).to.match(/<a href="\/admin\/quality" aria-current="page">Quality review<\/a>/);
      // The other admin pages link to it too.
      expect((await admin.agent.get('/admin/runs').expect(200)).text).to.include('<a href="/admin/quality">Quality review</a>');
    });

    it('refuses every action to anonymous visitors (sign-in redirect) and users (403); nothing changes', async () => {
      const suite = await registerSuite(ctx, root, member, customSuite());
      const { run } = await pendingRun(member);
      const dataset = await createDataset(member);
      const anonymous = request.agent(ctx.app);
      const csrf = csrfFrom((await anonymous.get('/signin').expect(200)).text);
      for (const path of [
        `/admin/quality/suites/${suite.id}/approve`,
        `/admin/quality/suites/${suite.id}/reject`,
        `/admin/quality/suites/${suite.id}/official`,
        `/admin/quality/datasets/${dataset.id}/approve`,
        `/admin/quality/runs/${run.id}/approve`,
        `/admin/quality/runs/${run.id}/reject`,
      ]) {
        const res = await anonymous.post(path).type('form').send({ _csrf: csrf, notes: 'x', official: 'true' }).expect(303);
        expect(res.headers.location).to.equal(`/signin?next=${encodeURIComponent(path)}`);
        await review(member, path, { notes: 'x', official: 'true' }).expect(403);
      }
      expect((await suiteStatus(ctx, suite.id)).status).to.equal('PENDING');
      expect((await datasetStatus(ctx, dataset.id)).status).to.equal('PENDING');
      expect((await runStatus(ctx, run.id)).status).to.equal('PENDING');
      expect(await auditRowsFor(ctx, suite.id)).to.have.length(0);
      expect(await auditRowsFor(ctx, run.id)).to.have.length(0);
    });

    it('refuses a post without the CSRF token (plain and htmx); nothing changes', async () => {
      const suite = await registerSuite(ctx, root, member, customSuite());
      await review(admin, `/admin/quality/suites/${suite.id}/approve`, {}, { csrf: false }).expect(403);
      await review(admin, `/admin/quality/suites/${suite.id}/approve`, {}, { csrf: false, htmx: true }).expect(403);
      expect((await suiteStatus(ctx, suite.id)).status).to.equal('PENDING');
      expect(await auditRowsFor(ctx, suite.id)).to.have.length(0);
    });

    it('answers 404 for ids that are not uuids, name nothing, or name a withdrawn suite', async () => {
      for (const kind of ['suites', 'datasets', 'runs']) {
        await review(admin, `/admin/quality/${kind}/not-a-uuid/approve`).expect(404);
        await review(admin, `/admin/quality/${kind}/${UNKNOWN_ID}/reject`, { notes: 'spam' }).expect(404);
      }
      await review(admin, `/admin/quality/suites/${UNKNOWN_ID}/official`, { official: 'true' }).expect(404);
      const htmx = await review(admin, `/admin/quality/runs/${UNKNOWN_ID}/approve`, {}, { htmx: true }).expect(404);
      expect(htmx.text).to.include('Quality run not found');
      const suite = await registerSuite(ctx, root, member, customSuite());
      await request(ctx.app).delete(`${root}/submissions/suite/${suite.id}`).set(bearer(member)).expect(200);
      await review(admin, `/admin/quality/suites/${suite.id}/approve`).expect(404);
      expect((await suiteStatus(ctx, suite.id)).status).to.equal('WITHDRAWN');
    });
  });

  describe('the queues', () => {
    it('shows a pending suite with its tasks and sample items, a pending dataset, and a pending run with its scores, disagreement and the submitter’s record', async () => {
      const suite = await registerSuite(ctx, root, member, customSuite({ sourceUrl: 'https://example.org/arith' }));
      const dataset = await createDataset(member);
      const { run } = await pendingRun(member);
      const page = (await admin.agent.get('/admin/quality').expect(200)).text;

      const suiteCard = page.slice(page.indexOf(`id="quality-suite-${suite.id}"`));
      expect(suiteCard).to.include(`<code>${suite.slug}</code>`);
      expect(suiteCard).to.include('<code>arith</code>').and.to.include('<code>colours</code>');
      expect(suiteCard).to.include('What is 2 + 2?');
      expect(suiteCard).to.include('<code>42 | forty-two</code>');
      expect(suiteCard).to.include('Q: {{input}}');
      expect(suiteCard).to.include('https://example.org/arith');
      expect(suiteCard)
        .to.include(`action="/admin/quality/suites/${suite.id}/approve"`)
        .and.to.include(`action="/admin/quality/suites/${suite.id}/reject"`);

      const datasetCard = page.slice(page.indexOf(`id="quality-dataset-${dataset.id}"`));
      expect(datasetCard).to.include(`<code>${dataset.slug}</code>`);
      expect(datasetCard).to.include('What is 1 + 1?');
      expect(datasetCard).to.include('first (2), #1 (1)');
      expect(datasetCard).to.include(`action="/admin/quality/datasets/${dataset.id}/approve"`);

      const runCard = page.slice(page.indexOf(`id="quality-run-${run.id}"`));
      // Reported 0.75 on arithmetic, re-scored 1 on all four items: 87.5 = (3 × 1 + 1 × 0.5) / 4.
      expect(run.score).to.equal(87.5);
      expect(runCard).to.include('<span class="stat">87.5</span>');
      expect(runCard).to.include(fakeHubModels.dense).and.to.include('Q4_K_M').and.to.include('RTX 4090');
      expect(runCard).to.match(/<span class="badge badge-warn disagreement-flag">25 points<\/span>/);
      expect(runCard).to.include('4 of 4 items: 100');
      expect(runCard).to.include('<tr class="flagged">');
      expect(runCard).to.include('The answer is 4');
      expect(runCard).to.match(
        /quality runs: 0 approved · 0 rejected · [1-9]\d* pending; speed tests: 1 approved · 0 rejected · 0 pending/,
      );
      expect(runCard).to.include(`action="/admin/quality/runs/${run.id}/approve"`);
    });

    it('counts what waits on /admin and links the queue', async () => {
      const res = await admin.agent.get('/admin').expect(200);
      const count = (id: string) => Number(new RegExp(`id="${id}">(\\d+)<`).exec(res.text)?.[1]);
      const [suites, datasets, runs] = await Promise.all(
        ['quality_suites', 'quality_datasets', 'quality_runs'].map(async (table) =>
          Number((await ctx.db(table).where({ status: 'PENDING' }).count('* as n').first())!.n),
        ),
      );
      expect(suites).to.be.greaterThan(0);
      expect(count('count-pending-suites')).to.equal(suites);
      expect(count('count-pending-datasets')).to.equal(datasets);
      expect(count('count-pending-quality-runs')).to.equal(runs);
      expect(count('count-pending-quality')).to.equal(suites! + datasets! + runs!);
      expect(res.text).to.include('href="/admin/quality"');
    });
  });

  describe('suites', () => {
    it('approves with a plain post (303 back to the queue): the suite is public, reviewed and audited', async () => {
      const suite = await registerSuite(ctx, root, member, customSuite());
      const listed = async () =>
        (await request(ctx.app).get(`${root}/suites`).query({ limit: 100 }).expect(200)).body.suites.some(
          (s: Body) => s.slug === suite.slug,
        );
      expect(await listed()).to.equal(false);
      await review(admin, `/admin/quality/suites/${suite.id}/approve`, { notes: '' }).expect(303).expect('Location', '/admin/quality');
      expect(await suiteStatus(ctx, suite.id)).to.deep.include({ status: 'APPROVED', admin_notes: null, reviewed_by: admin.id });
      expect(await listed()).to.equal(true);
      const [row] = await auditRowsFor(ctx, suite.id);
      expect(row).to.include({
        action: 'suite.approve',
        target_kind: 'quality_suite',
        actor_id: admin.id,
        actor_username: admin.username,
        reason: null,
      });
      expect(row.target_label).to.include(suite.slug).and.to.include(`@${member.username}`);
      // It moved from the queue to the approved list, with an official form.
      const page = (await admin.agent.get('/admin/quality').expect(200)).text;
      expect(page).not.to.include(`id="quality-suite-${suite.id}"`);
      expect(page).to.include(`id="approved-suite-${suite.id}"`);
      expect(page).to.include(`action="/admin/quality/suites/${suite.id}/official"`);
    });

    it('rejects with htmx: the card comes back in its new state, the owner reads the notes', async () => {
      const suite = await registerSuite(ctx, root, member, customSuite());
      const res = await review(
        admin,
        `/admin/quality/suites/${suite.id}/reject`,
        { notes: 'Task 2 has only two items' },
        { htmx: true },
      ).expect(200);
      expect(res.text.trim()).to.match(new RegExp(`^<article class="card review-card" id="quality-suite-${suite.id}"`));
      expect(res.text).not.to.include('<html');
      expect(res.text).to.include('badge-warn">rejected').and.to.include('Task 2 has only two items');
      // A rejected suite can be approved again, not rejected twice.
      expect(res.text).to.include(`action="/admin/quality/suites/${suite.id}/approve"`);
      expect(res.text).not.to.include(`action="/admin/quality/suites/${suite.id}/reject"`);
      expect(await suiteStatus(ctx, suite.id)).to.deep.include({
        status: 'REJECTED',
        admin_notes: 'Task 2 has only two items',
        reviewed_by: admin.id,
      });
      const own = await request(ctx.app).get(`${root}/submissions`).set(bearer(member)).expect(200);
      expect(own.body.submissions.find((s: Body) => s.id === suite.id)).to.include({
        status: 'REJECTED',
        adminNotes: 'Task 2 has only two items',
      });
      const rows = await auditRowsFor(ctx, suite.id);
      expect(rows.map((row) => [row.action, row.reason])).to.deep.equal([['suite.reject', 'Task 2 has only two items']]);
    });

    it('needs notes to reject: 400 with the error inline in the card (plain and htmx), nothing written', async () => {
      const suite = await registerSuite(ctx, root, member, customSuite());
      const plain = await review(admin, `/admin/quality/suites/${suite.id}/reject`, { notes: '   ' }).expect(400);
      expect(plain.type).to.equal('text/html');
      expect(plain.text).to.include(`id="quality-suite-${suite.id}"`);
      expect(plain.text).to.match(new RegExp(`<p class="field-error" id="reject-suite-${suite.id}-error">Notes are required to reject`));
      const htmx = await review(admin, `/admin/quality/suites/${suite.id}/reject`, {}, { htmx: true }).expect(400);
      expect(htmx.text.trim()).to.match(/^<article class="card review-card"/);
      expect(htmx.text).to.include('Notes are required to reject');
      const tooLong = await review(admin, `/admin/quality/suites/${suite.id}/reject`, { notes: 'x'.repeat(2001) }).expect(400);
      expect(tooLong.text).to.include('Notes must be at most 2000 characters');
      const twice = await admin.agent
        .post(`/admin/quality/suites/${suite.id}/reject`)
        .type('form')
        .send(`_csrf=${encodeURIComponent(admin.csrf)}&notes=a&notes=b`);
      expect(twice.status).to.equal(400);
      const bare = await admin.agent.post(`/admin/quality/suites/${suite.id}/reject`).set('X-CSRF-Token', admin.csrf);
      expect(bare.status).to.equal(400);
      expect(await suiteStatus(ctx, suite.id)).to.deep.include({ status: 'PENDING', admin_notes: null, reviewed_by: null });
      expect(await auditRowsFor(ctx, suite.id)).to.have.length(0);
    });

    it('keeps 2000 characters of notes whole, in the suite and in the audit log', async () => {
      const suite = await registerSuite(ctx, root, member, customSuite());
      const notes = 'n'.repeat(2000);
      await review(admin, `/admin/quality/suites/${suite.id}/reject`, { notes }).expect(303);
      expect((await suiteStatus(ctx, suite.id)).admin_notes).to.equal(notes);
      expect((await auditRowsFor(ctx, suite.id))[0].reason).to.equal(notes);
    });

    it('answers a transition that is not allowed with 409 (plain: the page with the message; htmx: the card), nothing written', async () => {
      const suite = await registerSuite(ctx, root, member, customSuite());
      await review(admin, `/admin/quality/suites/${suite.id}/approve`).expect(303);
      const again = await review(admin, `/admin/quality/suites/${suite.id}/approve`).expect(409);
      expect(again.text).to.include('This suite is approved, so it cannot be approved');
      expect(again.text).to.include('class="alert alert-error"');
      const rejected = await registerSuite(ctx, root, member, customSuite());
      await review(admin, `/admin/quality/suites/${rejected.id}/reject`, { notes: 'No' }).expect(303);
      const twice = await review(admin, `/admin/quality/suites/${rejected.id}/reject`, { notes: 'Still no' }, { htmx: true }).expect(409);
      expect(twice.text.trim()).to.match(new RegExp(`^<article class="card review-card" id="quality-suite-${rejected.id}"`));
      expect(twice.text).to.include('This suite is rejected, so it cannot be rejected');
      expect(await auditActionsFor(ctx, suite.id)).to.deep.equal(['suite.approve']);
      expect(await auditActionsFor(ctx, rejected.id)).to.deep.equal(['suite.reject']);
      expect((await suiteStatus(ctx, rejected.id)).admin_notes).to.equal('No');
    });

    it('sets and clears official on an approved suite (plain and htmx), never on another', async () => {
      const suite = await registerSuite(ctx, root, member, customSuite());
      const pendingOfficial = await review(admin, `/admin/quality/suites/${suite.id}/official`, { official: 'true' }).expect(409);
      expect(pendingOfficial.text).to.include('This suite is pending, so it cannot be made official');
      await review(admin, `/admin/quality/suites/${suite.id}/approve`).expect(303);
      await review(admin, `/admin/quality/suites/${suite.id}/official`, { official: 'maybe' }).expect(400);

      await review(admin, `/admin/quality/suites/${suite.id}/official`, { official: 'true' })
        .expect(303)
        .expect('Location', '/admin/quality');
      expect((await suiteStatus(ctx, suite.id)).official).to.equal(true);
      const official = await request(ctx.app).get(`${root}/suites`).query({ official: 'true', limit: 100 }).expect(200);
      expect(official.body.suites.map((s: Body) => s.slug)).to.include(suite.slug);
      // The same value again changes and logs nothing.
      await review(admin, `/admin/quality/suites/${suite.id}/official`, { official: 'true' }).expect(303);

      const row = await review(
        admin,
        `/admin/quality/suites/${suite.id}/official`,
        { official: 'false', layout: 'row' },
        { htmx: true },
      ).expect(200);
      expect(row.text.trim()).to.match(new RegExp(`^<tr id="approved-suite-${suite.id}">`));
      expect(row.text).to.include('Make official');
      expect((await suiteStatus(ctx, suite.id)).official).to.equal(false);
      // From the card the card comes back.
      const card = await review(admin, `/admin/quality/suites/${suite.id}/official`, { official: 'true' }, { htmx: true }).expect(200);
      expect(card.text.trim()).to.match(new RegExp(`^<article class="card review-card" id="quality-suite-${suite.id}"`));
      expect(card.text).to.include('Remove official');
      expect(await auditActionsFor(ctx, suite.id)).to.deep.equal(['suite.approve', 'suite.official', 'suite.unofficial', 'suite.official']);
    });
  });

  describe('datasets', () => {
    it('a suite reading a pending dataset cannot be approved until the dataset is', async () => {
      const dataset = await createDataset(member);
      const suite = await registerSuite(ctx, root, member, shardSuite(dataset.slug));
      const queue = (await admin.agent.get('/admin/quality').expect(200)).text;
      const card = queue.slice(queue.indexOf(`id="quality-suite-${suite.id}"`));
      expect(card).to.include(`Approve ${dataset.slug} first`);
      // The shard task's sample comes from the dataset's first shard.
      expect(card).to.include('What is 1 + 1?');

      const refused = await review(admin, `/admin/quality/suites/${suite.id}/approve`).expect(409);
      expect(refused.text).to.include(`Approve the datasets this suite uses first: ${dataset.slug}`);
      expect((await suiteStatus(ctx, suite.id)).status).to.equal('PENDING');
      expect(await auditRowsFor(ctx, suite.id)).to.have.length(0);

      const approved = await review(
        admin,
        `/admin/quality/datasets/${dataset.id}/approve`,
        { notes: 'Checked the license' },
        { htmx: true },
      ).expect(200);
      expect(approved.text.trim()).to.match(new RegExp(`^<article class="card review-card" id="quality-dataset-${dataset.id}"`));
      expect(approved.text).to.include('badge-ok">approved').and.to.include('Checked the license');
      // The dataset's card names the suites that read it.
      expect(approved.text).to.include(`<code>${suite.slug}</code> <span class="muted">pending</span>`);
      expect(await datasetStatus(ctx, dataset.id)).to.deep.include({
        status: 'APPROVED',
        admin_notes: 'Checked the license',
        reviewed_by: admin.id,
      });
      await request(ctx.app).get(`${root}/datasets/${dataset.slug}`).expect(200);

      await review(admin, `/admin/quality/suites/${suite.id}/approve`).expect(303);
      expect((await suiteStatus(ctx, suite.id)).status).to.equal('APPROVED');
      expect((await auditRowsFor(ctx, dataset.id)).map((row) => [row.action, row.target_kind, row.reason])).to.deep.equal([
        ['dataset.approve', 'quality_dataset', 'Checked the license'],
      ]);
    });

    it('rejects a dataset with notes (plain), 400 without them, 409 twice', async () => {
      const dataset = await createDataset(member);
      const missing = await review(admin, `/admin/quality/datasets/${dataset.id}/reject`).expect(400);
      expect(missing.text).to.match(new RegExp(`id="reject-dataset-${dataset.id}-error">Notes are required to reject`));
      await review(admin, `/admin/quality/datasets/${dataset.id}/reject`, { notes: 'No license given' })
        .expect(303)
        .expect('Location', '/admin/quality');
      expect(await datasetStatus(ctx, dataset.id)).to.deep.include({ status: 'REJECTED', admin_notes: 'No license given' });
      await review(admin, `/admin/quality/datasets/${dataset.id}/reject`, { notes: 'Again' }).expect(409);
      expect(await auditActionsFor(ctx, dataset.id)).to.deep.equal(['dataset.reject']);
    });
  });

  describe('runs', () => {
    it('approving makes a run public at once and counts it on its suite; rejecting hides it, uncounts it and shows the owner the notes', async () => {
      const { suite, run } = await pendingRun(member);
      const publicRun = () => request(ctx.app).get(`${root}/runs/${run.id}`);
      const inModelRuns = async () =>
        (await request(ctx.app).get(`${root}/runs`).query({ modelId: fakeHubModels.dense }).expect(200)).body.suites.some(
          (r: Body) => r.id === run.id,
        );
      const runCount = async () => (await request(ctx.app).get(`${root}/suites/${suite.slug}`).expect(200)).body.runCount;
      expect((await publicRun()).status).to.equal(404);
      expect(await inModelRuns()).to.equal(false);
      expect(await runCount()).to.equal(0);

      const card = await review(admin, `/admin/quality/runs/${run.id}/approve`, {}, { htmx: true }).expect(200);
      expect(card.text.trim()).to.match(new RegExp(`^<article class="card review-card" id="quality-run-${run.id}"`));
      expect(card.text).to.include('badge-ok">approved');
      // It has left the queue: the swapped card offers no second decision (a scripted "first Reject" finds none).
      expect(card.text).to.include('Approved: it has left the queue.');
      expect(card.text).not.to.include(`action="/admin/quality/runs/${run.id}/reject"`);
      expect((await publicRun().expect(200)).body).to.include({ id: run.id, status: 'APPROVED', score: 87.5 });
      expect(await inModelRuns()).to.equal(true);
      expect(await runCount()).to.equal(1);

      await review(admin, `/admin/quality/runs/${run.id}/reject`, { notes: 'The traces were copied from another run' })
        .expect(303)
        .expect('Location', '/admin/quality');
      expect((await publicRun()).status).to.equal(404);
      expect(await inModelRuns()).to.equal(false);
      expect(await runCount()).to.equal(0);
      const own = await request(ctx.app).get(`${root}/runs/${run.id}`).set(bearer(member)).expect(200);
      expect(own.body).to.include({ status: 'REJECTED', adminNotes: 'The traces were copied from another run' });
      expect(await runStatus(ctx, run.id)).to.deep.include({ reviewed_by: admin.id });

      // Approved again from REJECTED: counted once more.
      await review(admin, `/admin/quality/runs/${run.id}/approve`, { notes: 'Re-checked with the submitter' }).expect(303);
      expect(await runCount()).to.equal(1);
      expect((await publicRun().expect(200)).body.adminNotes).to.equal('Re-checked with the submitter');

      const rows = await auditRowsFor(ctx, run.id);
      expect(rows.map((row) => [row.action, row.reason])).to.deep.equal([
        ['quality_run.approve', null],
        ['quality_run.reject', 'The traces were copied from another run'],
        ['quality_run.approve', 'Re-checked with the submitter'],
      ]);
      for (const row of rows) {
        expect(row).to.include({ target_kind: 'quality_run', actor_id: admin.id });
        expect(row.target_label).to.include(suite.slug).and.to.include(fakeHubModels.dense).and.to.include(`@${member.username}`);
      }
    });

    it('answers 400 without notes and 409 for a second rejection; nothing changes', async () => {
      const { suite, run } = await pendingRun(member);
      const missing = await review(admin, `/admin/quality/runs/${run.id}/reject`, { notes: '' }, { htmx: true }).expect(400);
      expect(missing.text).to.match(new RegExp(`id="reject-run-${run.id}-error">Notes are required to reject`));
      await review(admin, `/admin/quality/runs/${run.id}/reject`, { notes: 'Wrong quantization' }).expect(303);
      const again = await review(admin, `/admin/quality/runs/${run.id}/reject`, { notes: 'Still wrong' }).expect(409);
      expect(again.text).to.include('This run is rejected, so it cannot be rejected');
      expect(await runStatus(ctx, run.id)).to.deep.include({ status: 'REJECTED', admin_notes: 'Wrong quantization' });
      expect((await suiteStatus(ctx, suite.id)).run_count).to.equal(0);
      expect(await auditActionsFor(ctx, run.id)).to.deep.equal(['quality_run.reject']);
    });

    it('approves a run once when five approvals race: one 303, the rest 409, run_count 1, one audit row', async () => {
      const { suite, run } = await pendingRun(member);
      const results = await Promise.all(Array.from({ length: 5 }, () => review(admin, `/admin/quality/runs/${run.id}/approve`)));
      expect(results.map((res) => res.status).sort()).to.deep.equal([303, 409, 409, 409, 409]);
      expect((await suiteStatus(ctx, suite.id)).run_count).to.equal(1);
      expect(await auditActionsFor(ctx, run.id)).to.deep.equal(['quality_run.approve']);
    });
  });

  describe('audit log', () => {
    it('shows the quality actions with their labels', async () => {
      const res = await admin.agent.get('/admin/audit').expect(200);
      for (const [action, label] of [
        ['suite.approve', 'approved quality suite'],
        ['suite.official', 'made suite official'],
        ['dataset.approve', 'approved dataset'],
        ['quality_run.reject', 'rejected quality run'],
      ]) {
        expect(res.text).to.include(`<code>${action}</code> <span class="muted">${label}</span>`);
      }
      expect(res.text).to.include('quality_run</span>');
    });
  });
});

describe('admin: quality review (revision 2)', () => {
  const ctx = useTestApp({ API_REVISION: '2' }, { fakeHub: true });
  const root = '/api/evals';
  let admin: Account;
  let member: Account;

  before(async () => {
    admin = await account(ctx, 'boss', { admin: true });
    member = await account(ctx, 'member');
  });

  it('reviews suites and runs; there is no dataset queue', async () => {
    const suite = await registerSuite(ctx, root, member, customSuite());
    const page = (await admin.agent.get('/admin/quality').expect(200)).text;
    expect(page).to.include(`id="quality-suite-${suite.id}"`);
    expect(page).not.to.include('id="review-datasets"');
    await review(admin, `/admin/quality/datasets/${UNKNOWN_ID}/approve`).expect(404);

    await review(admin, `/admin/quality/suites/${suite.id}/approve`).expect(303);
    expect((await request(ctx.app).get(`${root}/suites`).expect(200)).body.suites.map((s: Body) => s.slug)).to.include(suite.slug);
    const run = await submitQualityRun(ctx, root, member, qualityRun(suite.slug));
    const card = await review(admin, `/admin/quality/runs/${run.id}/approve`, {}, { htmx: true }).expect(200);
    expect(card.text).to.include('badge-ok">approved');
    expect((await request(ctx.app).get(`${root}/runs/${run.id}`).expect(200)).body.status).to.equal('APPROVED');
    const best = await request(ctx.app).get(`${root}/runs`).query({ modelId: fakeHubModels.dense }).expect(200);
    expect(best.body.runs.map((r: Body) => r.id)).to.include(run.id);
    expect((await request(ctx.app).get(`${root}/suites/${suite.slug}`).expect(200)).body.runCount).to.equal(1);
    expect(await auditActionsFor(ctx, run.id)).to.deep.equal(['quality_run.approve']);
  });
});

describe('admin: quality review (revision 1, no quality evaluations)', () => {
  const ctx = useTestApp({ API_REVISION: '1' }, { fakeHub: true });
  let admin: Account;

  before(async () => {
    admin = await account(ctx, 'boss', { admin: true });
  });

  it('has no queue, no actions and no link', async () => {
    await admin.agent.get('/admin/quality').expect(404);
    await review(admin, `/admin/quality/suites/${UNKNOWN_ID}/approve`).expect(404);
    await review(admin, `/admin/quality/runs/${UNKNOWN_ID}/approve`).expect(404);
    const overview = await admin.agent.get('/admin').expect(200);
    expect(overview.text).not.to.include('/admin/quality');
  });
});
