/**
 * The author and owner pages of quality submissions: /evals/new (paste or upload, the live
 * check, registration) and /settings/submissions (status and admin notes, correct and
 * resubmit, withdraw), with and without htmx.
 */
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { account, type Account } from '../helpers/moderation.ts';
import { approveSuite, bearer, customSuite, qualityRun, registerSuite, submitQualityRun, uniqueSlug } from '../helpers/quality.ts';

const HTMX = { 'HX-Request': 'true' };

for (const revision of [3, 2] as const) {
  const root = revision === 3 ? '/api/benchmarks' : '/api/evals';

  describe(`Quality submission pages, revision ${revision}`, () => {
    const ctx = useTestApp({ API_REVISION: String(revision) }, { fakeHub: true });
    let ada: Account;
    let bob: Account;

    before(async () => {
      ada = await account(ctx, 'ada');
      bob = await account(ctx, 'bob');
    });

    /** A urlencoded post of the suite text from a signed-in browser. */
    const postText = (who: Account, path: string, suite: string, headers: Record<string, string> = {}) =>
      who.agent.post(path).set(headers).type('form').send({ suite, _csrf: who.csrf });

    it('shows the form to signed-in users only, with examples to start from', async () => {
      const anonymous = await request(ctx.app).get('/evals/new');
      expect(anonymous.status).to.equal(303);
      expect(anonymous.headers.location).to.match(/^\/signin/);
      const page = await ada.agent.get('/evals/new').expect(200);
      expect(page.text).to.include('name="suite"');
      expect(page.text).to.include('enctype="multipart/form-data"');
      const example = await ada.agent.get('/evals/new?example=custom').expect(200);
      expect(example.text).to.include('arithmetic-qa-mini');
    });

    it('checks the text live: problems with their paths, bad JSON, or a summary when valid', async () => {
      const broken = customSuite();
      broken.suiteDoc.tasks[0].dataset.items[1] = { input: 'no answer' };
      const problems = await postText(ada, '/evals/new/check', JSON.stringify(broken), HTMX).expect(200);
      expect(problems.text).to.include('id="suite-check"');
      expect(problems.text).to.include('<code>suiteDoc.tasks.0.dataset.items.1.gold</code>: Each item needs gold');
      expect(problems.text).not.to.include('<html');

      const json = await postText(ada, '/evals/new/check', '{"slug": ', HTMX).expect(200);
      expect(json.text).to.match(/Not valid JSON/);

      const valid = await postText(ada, '/evals/new/check', JSON.stringify(customSuite()), HTMX).expect(200);
      expect(valid.text).to.include('Valid: 2 tasks (<code>arith, colours</code>), 6 items.');

      // Without htmx the whole form comes back with the messages and the text kept.
      const page = await postText(ada, '/evals/new/check', JSON.stringify(broken));
      expect(page.status).to.equal(400);
      expect(page.text).to.include('<form class="suite-form"');
      expect(page.text).to.include('suiteDoc.tasks.0.dataset.items.1.gold');
      expect(page.text).to.include('no answer');
    });

    it('registers a pasted suite (no JavaScript: 303 to the submissions page) as PENDING', async () => {
      const body = customSuite();
      const res = await postText(ada, '/evals/new', JSON.stringify(body));
      expect(res.status).to.equal(303);
      expect(res.headers.location).to.equal(`/settings/submissions?registered=${body.slug}`);
      const row = await ctx.db('quality_suites').where({ slug: body.slug }).first();
      expect(row).to.include({ status: 'PENDING', name: body.name });
      const list = await ada.agent.get(res.headers.location).expect(200);
      expect(list.text).to.include(`Suite ${body.slug} registered`);
      expect(list.text).to.include(`<code>${body.slug}</code>`);
    });

    it('registers an uploaded .json file (multipart, CSRF token as a form field)', async () => {
      const body = customSuite();
      const res = await ada.agent
        .post('/evals/new')
        .field('_csrf', ada.csrf)
        .field('suite', '')
        .attach('file', Buffer.from(JSON.stringify(body)), { filename: 'suite.json', contentType: 'application/json' });
      expect(res.status, res.text.slice(0, 500)).to.equal(303);
      expect(await ctx.db('quality_suites').where({ slug: body.slug }).first('status')).to.deep.equal({ status: 'PENDING' });
      // A file saved with a byte-order mark is read like any other.
      const marked = customSuite();
      const withBom = await ada.agent
        .post('/evals/new')
        .field('_csrf', ada.csrf)
        .attach('file', Buffer.from(`\uFEFF${JSON.stringify(marked)}`), 'suite.json');
      expect(withBom.status, withBom.text.slice(0, 500)).to.equal(303);
      // htmx sends the token in X-CSRF-Token too: a multipart live check with the header alone passes.
      const live = await ada.agent
        .post('/evals/new/check')
        .set({ ...HTMX, 'X-CSRF-Token': ada.csrf })
        .field('suite', JSON.stringify(customSuite()));
      expect(live.status).to.equal(200);
      expect(live.text).to.include('Valid: 2 tasks');
      // Anonymous uploads are not even read: refused before any route.
      const anonymous = await request(ctx.app)
        .post('/evals/new')
        .field('suite', '')
        .attach('file', Buffer.from(JSON.stringify(customSuite())), 'suite.json');
      expect(anonymous.status).to.equal(403);
      // A multipart body the parser cannot read is a 400, not a failure.
      const malformed = await ada.agent.post('/evals/new').set('Content-Type', 'multipart/form-data').send('junk');
      expect(malformed.status).to.equal(400);
      // Without the token the upload is refused like any other post.
      const forged = await ada.agent
        .post('/evals/new')
        .field('suite', '')
        .attach('file', Buffer.from(JSON.stringify(customSuite())), 'suite.json');
      expect(forged.status).to.equal(403);
    });

    it('refuses a taken slug and an invalid suite with the messages inline, writing nothing', async () => {
      const taken = customSuite();
      await registerSuite(ctx, root, bob, taken);
      const res = await postText(ada, '/evals/new', JSON.stringify(customSuite({ slug: taken.slug })));
      expect(res.status).to.equal(409);
      expect(res.text).to.include(`<code>slug</code>: A suite with the slug &#39;${taken.slug}&#39; already exists`);
      expect(res.text, 'the pasted text is kept').to.include(`&quot;slug&quot;:&quot;${taken.slug}&quot;`);
      // Taken and another problem the service finds (a gold that is none of the choices): both listed, as a 400.
      const both = customSuite({ slug: taken.slug });
      both.suiteDoc.tasks[1].dataset.items[0].gold = 'Purple';
      const listed = await postText(ada, '/evals/new', JSON.stringify(both));
      expect(listed.status).to.equal(400);
      expect(listed.text).to.include('<code>slug</code>');
      expect(listed.text).to.include('<code>suiteDoc.tasks.1.dataset.items.0.gold</code>');
      const empty = await postText(ada, '/evals/new', '   ');
      expect(empty.status).to.equal(400);
      expect(empty.text).to.include('Paste the suite&#39;s JSON or choose a .json file');
      expect(
        Number(
          (await ctx.db('quality_suites').where({ created_by: ada.id }).whereRaw('slug = ?', [taken.slug]).count('* as n').first())!.n,
        ),
      ).to.equal(0);
    });

    it('lists suites, datasets and runs with status and admin notes; corrects a rejected suite back to PENDING', async () => {
      const carol = await account(ctx, 'carol');
      const suite = await registerSuite(ctx, root, carol, customSuite({ name: 'Carol suite' }));
      await ctx.db('quality_suites').where({ id: suite.id }).update({ status: 'REJECTED', admin_notes: 'Item 2 has two answers' });
      const approved = await registerSuite(ctx, root, carol, customSuite({ name: 'Carol approved' }));
      await approveSuite(ctx, approved.slug);
      const run = await submitQualityRun(ctx, root, carol, qualityRun(approved.slug));
      await ctx.db('quality_runs').where({ id: run.id }).update({ status: 'REJECTED', admin_notes: 'Traces missing' });

      let dataset: { id: string; slug: string } | undefined;
      if (revision === 3) {
        const created = await request(ctx.app)
          .post(`${root}/datasets`)
          .set(bearer(carol))
          .send({ slug: uniqueSlug('data'), name: 'Carol shards', shards: [{ items: [{ input: '1+1?', gold: 2 }] }] })
          .expect(201);
        dataset = created.body;
        await ctx
          .db('quality_datasets')
          .where({ id: dataset!.id })
          .update({ status: 'REJECTED', admin_notes: 'No license given', reviewed_at: new Date('2026-01-02T03:04:00Z') });
      }

      const page = await carol.agent.get('/settings/submissions').expect(200);
      expect(page.text).to.include('Item 2 has two answers');
      if (dataset) {
        expect(page.text).to.include(`<code>${dataset.slug}</code>`);
        expect(page.text).to.include('No license given');
        expect(page.text).to.include('reviewed <time datetime="2026-01-02T03:04:00.000Z">2026-01-02 03:04</time>');
        expect(page.text).to.include(`action="/settings/submissions/dataset/${dataset.id}/withdraw"`);
      }
      expect(page.text).to.include('Traces missing');
      expect(page.text).to.include(`href="/evals/runs/${run.id}"`);
      expect(page.text).to.include(`href="/settings/submissions/suites/${suite.id}/edit"`);
      expect(page.text).not.to.include(`href="/settings/submissions/suites/${approved.id}/edit"`);
      expect(page.text.includes('<h2 id="datasets">')).to.equal(revision === 3);

      const edit = await carol.agent.get(`/settings/submissions/suites/${suite.id}/edit`).expect(200);
      expect(edit.text).to.include(`&quot;slug&quot;: &quot;${suite.slug}&quot;`);
      // Its own slug is not "taken" when it is corrected.
      const check = await postText(
        carol,
        `/settings/submissions/suites/${suite.id}/check`,
        JSON.stringify(customSuite({ slug: suite.slug, name: 'Carol suite, fixed' })),
        HTMX,
      ).expect(200);
      expect(check.text).to.include('Valid:');
      const saved = await postText(
        carol,
        `/settings/submissions/suites/${suite.id}/edit`,
        JSON.stringify(customSuite({ slug: suite.slug, name: 'Carol suite, fixed' })),
      );
      expect(saved.status).to.equal(303);
      expect(await ctx.db('quality_suites').where({ id: suite.id }).first('status', 'name', 'admin_notes')).to.deep.equal({
        status: 'PENDING',
        name: 'Carol suite, fixed',
        admin_notes: null,
      });

      // Another user's suite is not found; an approved one cannot be corrected.
      expect((await bob.agent.get(`/settings/submissions/suites/${suite.id}/edit`)).status).to.equal(404);
      expect(
        (await postText(bob, `/settings/submissions/suites/${suite.id}/edit`, JSON.stringify(customSuite({ slug: suite.slug })))).status,
      ).to.equal(404);
      expect(
        (await postText(bob, `/settings/submissions/suites/${suite.id}/check`, JSON.stringify(customSuite({ slug: suite.slug })), HTMX))
          .status,
      ).to.equal(404);
      const approvedEdit = await carol.agent.get(`/settings/submissions/suites/${approved.id}/edit`);
      expect(approvedEdit.status).to.equal(409);
      expect(approvedEdit.text).to.match(/only pending or rejected submissions can be corrected/);
      const refused = await postText(
        carol,
        `/settings/submissions/suites/${approved.id}/edit`,
        JSON.stringify(customSuite({ slug: approved.slug })),
      );
      expect(refused.status).to.equal(409);
      expect(refused.text).to.match(/only pending or rejected submissions can be corrected/);
    });

    it('keeps page titles within 70 characters however long the suite name', async () => {
      const long = customSuite({ name: `A very long suite name ${'about arithmetic '.repeat(10)}` });
      await registerSuite(ctx, root, ada, long);
      await approveSuite(ctx, long.slug);
      const page = await request(ctx.app).get(`/evals/${long.slug}`).expect(200);
      const title = /<title>([^<]*)<\/title>/.exec(page.text)![1]!;
      expect([...title].length).to.be.at.most(70);
      expect(title).to.match(/^A very long suite name about arithmetic .*… · LLM Bench Leaderboard$/);
    });

    it('withdraws a pending suite and refuses to withdraw an approved one (409 inline)', async () => {
      const pending = await registerSuite(ctx, root, ada, customSuite());
      const res = await ada.agent.post(`/settings/submissions/suite/${pending.id}/withdraw`).type('form').send({ _csrf: ada.csrf });
      expect(res.status).to.equal(303);
      expect(await ctx.db('quality_suites').where({ id: pending.id }).first('status')).to.deep.equal({ status: 'WITHDRAWN' });

      // With htmx the list alone comes back, with the notice and without the withdrawn suite.
      const another = await registerSuite(ctx, root, ada, customSuite());
      const fragment = await ada.agent
        .post(`/settings/submissions/suite/${another.id}/withdraw`)
        .set(HTMX)
        .type('form')
        .send({ _csrf: ada.csrf })
        .expect(200);
      expect(fragment.text).not.to.include('<html');
      expect(fragment.text).to.match(/^\s*<div id="submissions">/);
      expect(fragment.text).to.include(`${another.slug} withdrawn.`);
      expect(fragment.text).not.to.include(`id="suite-${another.id}"`);

      const approved = await registerSuite(ctx, root, ada, customSuite());
      await approveSuite(ctx, approved.slug);
      const refused = await ada.agent
        .post(`/settings/submissions/suite/${approved.id}/withdraw`)
        .set(HTMX)
        .type('form')
        .send({ _csrf: ada.csrf });
      expect(refused.status).to.equal(409);
      expect(refused.text).to.match(/only pending or rejected submissions can be withdrawn/);
      expect(refused.text).not.to.include('<html');
      expect(
        (await bob.agent.post(`/settings/submissions/suite/${approved.id}/withdraw`).type('form').send({ _csrf: bob.csrf })).status,
      ).to.equal(404);
      expect((await ada.agent.post(`/settings/submissions/suite/${approved.id}/withdraw`).type('form').send({})).status).to.equal(403);
      expect(
        (await ada.agent.post(`/settings/submissions/other/${approved.id}/withdraw`).type('form').send({ _csrf: ada.csrf })).status,
      ).to.equal(404);
    });

    it('refuses every post without the session CSRF token', async () => {
      const pending = await registerSuite(ctx, root, ada, customSuite());
      const text = JSON.stringify(customSuite());
      const posts = [
        '/evals/new',
        '/evals/new/check',
        `/settings/submissions/suites/${pending.id}/edit`,
        `/settings/submissions/suites/${pending.id}/check`,
        `/settings/submissions/suite/${pending.id}/withdraw`,
      ];
      for (const path of posts) {
        expect((await ada.agent.post(path).type('form').send({ suite: text })).status, path).to.equal(403);
        expect((await ada.agent.post(path).set(HTMX).field('suite', text)).status, `${path} (multipart)`).to.equal(403);
        expect(
          (await ada.agent.post(path).type('form').send({ suite: text, _csrf: bob.csrf })).status,
          `${path} (another session's token)`,
        ).to.equal(403);
      }
      expect(await ctx.db('quality_suites').where({ id: pending.id }).first('status')).to.deep.equal({ status: 'PENDING' });
    });
  });
}

describe('Quality submission pages, revision 1', () => {
  const ctx = useTestApp({ API_REVISION: '1' });

  it('do not exist', async () => {
    const ada = await account(ctx, 'ada');
    expect((await ada.agent.get('/evals/new')).status).to.equal(404);
    expect((await ada.agent.get('/settings/submissions')).status).to.equal(404);
  });
});
