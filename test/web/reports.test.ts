import { expect } from 'chai';
import request from 'supertest';
import sharp from 'sharp';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { account, auditRowsFor, submitRun, type Account } from '../helpers/moderation.ts';
import { bearer } from '../helpers/quality.ts';
import { activeHtmlProblems, reportXssCorpus } from '../fixtures/report-xss-corpus.ts';

const DENSE = fakeHubModels.dense;
const LONG_REPORT =
  '# Setup\n\ntext\n\n## Results\n\n| quant | tok/s |\n|--|--:|\n| Q4_K_M | 42.5 |\n\n## Verdict\n\n- [x] flash attention';

/** The report's own part of a page (the layout around it has the site's scripts and forms). */
const articleOf = (html: string) => /<article class="report">[\s\S]*<\/article>/.exec(html)?.[0] ?? '';

describe('Model report pages', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let author: Account;
  let other: Account;
  let admin: Account;
  let runId: string;
  before(async () => {
    author = await account(ctx, 'writer');
    other = await account(ctx, 'reader');
    admin = await account(ctx, 'boss', { admin: true });
    runId = (await submitRun(ctx, author, { hfId: DENSE, tokSOut: 42.5 })).id;
  });

  const postForm = (who: Account, path: string, fields: Record<string, unknown>) =>
    who.agent
      .post(path)
      .type('form')
      .send({ _csrf: who.csrf, ...fields });

  it('writes a report through the editor: a draft first, then published; the page shows contents, table and attached run', async () => {
    const form = await author.agent.get(`/reports/new?model=${encodeURIComponent(DENSE)}`).expect(200);
    expect(form.text).to.contain('name="content"').and.contain('hx-post="/reports/preview"').and.contain(`value="${runId}"`);

    const draft = await postForm(author, '/reports/new', {
      model: DENSE,
      title: 'Dense on a 4090',
      summary: 'Plenty fast',
      tags: 'gpu, 4090',
      content: LONG_REPORT,
      'benchmarkRunIds[]': runId,
      action: 'draft',
    });
    expect(draft.status, draft.text.slice(0, 500)).to.equal(303);
    const id = /\/reports\/([0-9a-f-]+)\/edit$/.exec(draft.headers.location)![1]!;
    expect((await request(ctx.app).get(`/reports/${id}`)).status).to.equal(404);
    expect((await other.agent.get(`/reports/${id}`)).status).to.equal(404);
    expect((await author.agent.get(`/reports/${id}`).expect(200)).text).to.contain('draft');
    expect((await author.agent.get('/settings/reports').expect(200)).text)
      .to.contain('Dense on a 4090')
      .and.contain('draft');

    const published = await postForm(author, `/reports/${id}/edit`, {
      title: 'Dense on a 4090',
      tags: 'gpu',
      content: LONG_REPORT,
      'benchmarkRunIds[]': runId,
      action: 'publish',
    });
    expect(published.status).to.equal(303);
    expect(published.headers.location).to.equal(`/reports/${id}`);
    const page = (await request(ctx.app).get(`/reports/${id}`).expect(200)).text;
    expect(page).to.contain('<nav class="report-toc" aria-label="Contents">').and.contain('href="#report-results"');
    expect(page).to.contain('<td class="report-align-right">42.5</td>').and.contain('task-list-item-checkbox');
    expect(page).to.contain('Attached runs').and.contain(`href="/runs/${runId}"`);
    expect(page).to.contain('published <time');

    const modelPage = (await request(ctx.app).get(`/models/${DENSE}`).expect(200)).text;
    expect(modelPage).to.contain('id="model-reports-heading"').and.contain(`href="/reports/${id}"`);
    expect((await request(ctx.app).get(`/models/${DENSE}/reports`).expect(200)).text).to.contain(`href="/reports/${id}"`);
  });

  it('uploads an image without JavaScript: the token is appended to the saved content', async () => {
    const { report } = (
      await request(ctx.app).post(`/api/models/${DENSE}/reports`).set(bearer(author)).send({ title: 'With a picture', content: 'Text' })
    ).body;
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#118844' } })
      .png()
      .toBuffer();
    const res = await author.agent.post(`/reports/${report.id}/images`).field('_csrf', author.csrf).attach('image', png, 'bench.png');
    expect(res.status, res.text.slice(0, 300)).to.equal(303);
    expect(res.headers.location).to.equal(`/reports/${report.id}/edit`);
    const stored = (await request(ctx.app).get(`/api/reports/${report.id}`).set(bearer(author)).expect(200)).body.report;
    expect(stored.content).to.match(/^Text\n\n\[\[report-image:[0-9a-f-]{36}\]\]\n$/);
    expect(stored.imageIds).to.have.length(1);
    expect(stored.contentHtml).to.contain('width="40" height="30" loading="lazy"');
    const notImage = await author.agent
      .post(`/reports/${report.id}/images`)
      .field('_csrf', author.csrf)
      .attach('image', Buffer.from('plain text'), 'x.png');
    expect(notImage.status).to.equal(400);
    expect(notImage.text).to.contain('PNG, JPEG or WebP');
    expect(
      (await other.agent.post(`/reports/${report.id}/images`).field('_csrf', other.csrf).attach('image', png, 'x.png')).status,
    ).to.equal(404);
    expect((await author.agent.post(`/reports/${report.id}/images`).attach('image', png, 'x.png')).status).to.equal(403);
  });

  it('lists an attached run only while it is approved', async () => {
    const run = await submitRun(ctx, author, { hfId: DENSE, tokSOut: 77.7 });
    const { report } = (
      await request(ctx.app)
        .post(`/api/models/${DENSE}/reports`)
        .set(bearer(author))
        .send({ title: 'Attached', content: 'x', benchmarkRunIds: [run.id], published: true })
    ).body;
    expect((await request(ctx.app).get(`/reports/${report.id}`).expect(200)).text).to.contain(`href="/runs/${run.id}"`);
    await ctx.db('speed_test_runs').where({ id: run.id }).update({ status: 'WITHDRAWN' });
    const page = (await request(ctx.app).get(`/reports/${report.id}`).expect(200)).text;
    expect(page).to.not.contain(`href="/runs/${run.id}"`).and.not.contain('Attached runs');
  });

  it('shows the form again with the field errors, writing nothing', async () => {
    const before = await ctx.db('model_reports').count<{ n: string }[]>('* as n');
    const res = await postForm(author, '/reports/new', { model: DENSE, title: '', content: 'x', tags: 'a'.repeat(40), action: 'publish' });
    expect(res.status).to.equal(400);
    expect(res.text).to.contain('The report was not saved').and.contain('Title is required').and.contain('at most 32 characters');
    expect(await ctx.db('model_reports').count<{ n: string }[]>('* as n')).to.deep.equal(before);
  });

  it('previews the content through the same renderer (htmx) and without JavaScript', async () => {
    const fragment = await author.agent
      .post('/reports/preview')
      .set('HX-Request', 'true')
      .set('X-CSRF-Token', author.csrf)
      .type('form')
      .send({ content: '~~x~~ <script>alert(1)</script>' })
      .expect(200);
    expect(fragment.text).to.contain('<s>x</s> &lt;script&gt;alert(1)&lt;/script&gt;').and.not.contain('<html');
    const page = await postForm(author, '/reports/new', { model: DENSE, title: 't', content: '| a |\n|---|\n| 1 |', action: 'preview' });
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('<td>1</td>');
  });

  it('renders the XSS corpus inert in the title, summary, tags and content of the page', async () => {
    for (const hostile of reportXssCorpus) {
      const oneLine = (text: string, max: number) =>
        text
          .replace(/[\u0000-\u001f]/g, ' ')
          .slice(0, max)
          .trim() || 'x';
      const res = await request(ctx.app)
        .post(`/api/models/${DENSE}/reports`)
        .set(bearer(author))
        .send({
          title: oneLine(hostile, 200),
          summary: hostile.slice(0, 500),
          tags: [oneLine(hostile, 32)],
          content: hostile,
          published: true,
        });
      expect(res.status, `${hostile}: ${JSON.stringify(res.body)}`).to.equal(201);
      const page = (await request(ctx.app).get(`/reports/${res.body.report.id}`).expect(200)).text;
      expect(activeHtmlProblems(articleOf(page)), hostile).to.deep.equal([]);
    }
    const list = (await request(ctx.app).get(`/models/${DENSE}/reports`).expect(200)).text;
    expect(activeHtmlProblems(/<ul class="report-list">[\s\S]*?<\/ul>/.exec(list)![0])).to.deep.equal([]);
  });

  it('lets an admin unpublish a report with a reason (audited); its author may edit but not publish it again', async () => {
    const { report } = (
      await request(ctx.app)
        .post(`/api/models/${DENSE}/reports`)
        .set(bearer(author))
        .send({ title: 'Spammy', content: 'buy now', published: true })
    ).body;
    expect((await postForm(other, `/admin/reports/${report.id}/unpublish`, { reason: 'spam' })).status).to.equal(403);
    expect((await postForm(admin, `/admin/reports/${report.id}/unpublish`, { reason: '' })).status).to.equal(400);
    const res = await postForm(admin, `/admin/reports/${report.id}/unpublish`, { reason: 'spam' });
    expect(res.status).to.equal(303);
    const [entry] = await auditRowsFor(ctx, report.id);
    expect(entry).to.include({ action: 'report.unpublish', target_kind: 'model_report', reason: 'spam', actor_id: admin.id });
    expect((await request(ctx.app).get(`/reports/${report.id}`)).status).to.equal(404);
    expect((await author.agent.get(`/reports/${report.id}`).expect(200)).text).to.contain('An admin unpublished this report: spam');
    const again = await postForm(author, `/reports/${report.id}/edit`, { title: 'Spammy', content: 'buy now', action: 'publish' });
    expect(again.status).to.equal(400);
    expect(again.text).to.contain('cannot be published again');
    expect((await ctx.db('model_reports').where({ id: report.id }).first()).published).to.equal(false);
  });

  it("answers 404 for another user's editor and delete, and deletes the author's", async () => {
    const { report } = (
      await request(ctx.app).post(`/api/models/${DENSE}/reports`).set(bearer(author)).send({ title: 'Mine', content: 'x' })
    ).body;
    expect((await other.agent.get(`/reports/${report.id}/edit`)).status).to.equal(404);
    expect((await postForm(other, `/reports/${report.id}/delete`, {})).status).to.equal(404);
    expect((await postForm(author, `/reports/${report.id}/delete`, {})).status).to.equal(303);
    expect(await ctx.db('model_reports').where({ id: report.id }).first()).to.equal(undefined);
  });

  it('has no report pages in revision 2', async () => {
    const app = ctx.appWith({ API_REVISION: '2' });
    expect((await request(app).get(`/models/${DENSE}/reports`)).status).to.equal(404);
  });
});
