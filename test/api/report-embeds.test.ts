import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';
import { bearer } from '../helpers/quality.ts';
import { activeHtmlProblems } from '../fixtures/report-xss-corpus.ts';
import { seedDemoCatalogue } from '../../src/db/seeds/demo-models.ts';
import { seedDemoReport } from '../../src/db/seeds/demo-reports.ts';
import { seedDemoRuns } from '../../src/db/seeds/demo-runs.ts';
import { getRevisionProfile } from '../../src/revisions.ts';

const DENSE = fakeHubModels.dense;
const embed = (url: string) => `[[report-embed:${encodeURIComponent(url)}]]`;

describe('Model reports: live cards of embedded pages', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let author: Account;
  const runs: Record<string, any>[] = [];
  before(async () => {
    author = await account(ctx, 'embedder');
    // Six runs of one model on one GPU, 10 to 60 tok/s; the board's top five leaves out the slowest.
    for (const tokSOut of [10, 20, 30, 40, 50, 60]) runs.push(await submitRun(ctx, author, { hfId: DENSE, tokSOut }));
  });

  async function rendered(content: string, who = author): Promise<{ id: string; html: string }> {
    const res = await request(ctx.app)
      .post(`/api/models/${DENSE}/reports`)
      .set(bearer(who))
      .send({ title: 'Embeds', content, published: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(activeHtmlProblems(res.body.report.contentHtml, { allowSvgCharts: true })).to.deep.equal([]);
    return { id: res.body.report.id, html: res.body.report.contentHtml };
  }
  const own = (path: string) => `${ctx.config.publicUrl}${path}`;

  it('a run: model, hardware, tok/s and verdict, linked to the run; never an iframe', async () => {
    const run = runs[2]!;
    const { html } = await rendered(embed(own(`/runs/${run.id}`)));
    expect(html).to.contain('report-card-run').and.contain(`href="/runs/${run.id}"`).and.contain('<strong>30</strong> tok/s out');
    expect(html).to.contain(run.model.displayName).and.contain('RTX 4090 · 24 GB');
    expect(html).to.match(/report-card-note">[A-Z]/);
    expect(html).to.not.contain('<iframe');
  });

  it('a run rejected later: the next read shows it is no longer public (the cached HTML is refreshed)', async () => {
    const run = await submitRun(ctx, author, { hfId: DENSE, tokSOut: 33.3 });
    const { id, html } = await rendered(embed(own(`/runs/${run.id}`)));
    expect(html).to.contain('33.3');
    await ctx.db('speed_test_runs').where({ id: run.id }).update({ status: 'REJECTED' });
    const after = (await request(ctx.app).get(`/api/reports/${id}`).expect(200)).body.report.contentHtml;
    expect(after).to.contain('report-card-gone').and.contain('no longer public').and.not.contain('33.3');
    await ctx.db('speed_test_runs').where({ id: run.id }).update({ status: 'APPROVED' });
    expect((await request(ctx.app).get(`/api/reports/${id}`).expect(200)).body.report.contentHtml).to.contain('33.3');
  });

  it("a model's report list: the cited runs' statuses read in one query for the whole page, a rejected run refreshed there too", async () => {
    const cited = [];
    for (const tokSOut of [7.7, 8.8, 8.1, 8.2]) cited.push(await submitRun(ctx, author, { hfId: DENSE, tokSOut }));
    for (const run of cited) await rendered(embed(own(`/runs/${run.id}`)));
    await ctx.db('speed_test_runs').where({ id: cited[0]!.id }).update({ status: 'REJECTED' });

    const statusReads: string[] = [];
    const count = (query: { sql: string }) => {
      if (/from "speed_test_runs" where "id" in/.test(query.sql) && /select "id", "status"/.test(query.sql)) statusReads.push(query.sql);
    };
    ctx.db.on('query', count);
    let list: Record<string, any>[];
    try {
      list = (await request(ctx.app).get(`/api/models/${DENSE}/reports?limit=100`).expect(200)).body.reports;
    } finally {
      ctx.db.removeListener('query', count);
    }
    const html = list.map((report) => report.contentHtml as string).join('\n');
    expect(html).to.contain('<strong>8.8</strong>').and.contain('report-card-gone').and.not.contain('<strong>7.7</strong>');
    // One read of the cached pages' cited runs, plus one for the page re-rendered (its run was rejected).
    expect(list.length).to.be.at.least(4);
    expect(statusReads).to.have.length(2);
  });

  it('a leaderboard address: its top five with the filters, fastest first', async () => {
    const { html } = await rendered(embed(own(`/?hfId=${encodeURIComponent(DENSE)}&hwClass=DISCRETE_GPU`)));
    expect(html).to.contain('report-card-leaderboard').and.contain(`hfId=${DENSE}`).and.contain('hwClass=DISCRETE_GPU');
    const figures = [...html.matchAll(/href="\/runs\/[^"]+">([\d.]+)<\/a><\/td>/g)].map((m) => Number(m[1]));
    expect(figures).to.have.length(5);
    expect(figures.slice(0, 3)).to.deep.equal([60, 50, 40]);
    expect(figures).to.deep.equal([...figures].sort((a, b) => b - a));
    expect(figures).to.not.include(10);
  });

  it('a leaderboard address with words in its model box: the model they name, as its page reads them (issue 36)', async () => {
    const words = DENSE.split('/')[1]!.toLowerCase().replace(/-/g, ' ');
    const figuresOf = async (query: string) =>
      [...(await rendered(embed(own(`/?${query}`)))).html.matchAll(/href="\/runs\/[^"]+">([\d.]+)<\/a><\/td>/g)].map((m) => Number(m[1]));
    const byWords = await figuresOf(`hfId=${encodeURIComponent(words)}`);
    expect(byWords, words).to.have.length(5);
    expect(byWords.slice(0, 3)).to.deep.equal([60, 50, 40]);
    expect(byWords).to.deep.equal(await figuresOf(`hfId=${encodeURIComponent(DENSE)}&scope=tree`));
  });

  it('a leaderboard card is live: a new top run shows once the cached HTML ages out (five minutes)', async () => {
    const { id, html } = await rendered(embed(own(`/?hfId=${encodeURIComponent(DENSE)}&engineName=vllm`)));
    expect(html).to.contain('No runs match these filters yet.');
    // Another account submits (the helper's clock jump would age the cache out by itself).
    const submitter = await account(ctx, 'vllmuser');
    await request(ctx.app)
      .post('/api/speed-tests')
      .set(bearer(submitter))
      .send({
        hfId: DENSE,
        hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 },
        engineName: 'vllm',
        quantization: 'AWQ',
        tokSOut: 15.5,
        ttftMs: 90,
      })
      .expect(201);
    expect((await request(ctx.app).get(`/api/reports/${id}`).expect(200)).body.report.contentHtml).to.contain(
      'No runs match these filters yet.',
    );
    ctx.clock.advance(6 * 60_000);
    expect((await request(ctx.app).get(`/api/reports/${id}`).expect(200)).body.report.contentHtml)
      .to.contain('>15.5</a>')
      .and.not.contain('No runs match');
  });

  it('a leaderboard address whose filters fail validation: a plain link card', async () => {
    const { html } = await rendered(embed(own('/?memTier=7')));
    expect(html).to.contain('report-card-link').and.not.contain('report-card-leaderboard');
  });

  it('a model page: best run by hardware class and a bar chart of its hardware', async () => {
    const { html } = await rendered(embed(own(`/models/${DENSE}`)));
    expect(html).to.contain('report-card-model').and.contain('DISCRETE_GPU').and.contain('<svg').and.contain('Output tok/s by hardware');
    expect(html).to.match(/<td class="num">60<\/td>/);
  });

  it('a hardware page: its best runs', async () => {
    const { html } = await rendered(embed(own(`/hardware/${runs[0]!.hardwareId}`)));
    expect(html).to.contain('report-card-hardware').and.contain('RTX 4090');
    const first = /href="\/runs\/[^"]+">([\d.]+)<\/a><\/td>/.exec(html);
    expect(Number(first?.[1])).to.equal(60);
  });

  it('another https address: a plain link card; an http one: a plain link; an unknown run of ours: a link card', async () => {
    const { html } = await rendered(
      `${embed('https://example.com/notes?a=1')}\n\n${embed('http://example.com/insecure')}\n\n${embed(own('/runs/00000000-0000-4000-8000-000000000000'))}`,
    );
    expect(html).to.contain('<div class="report-card report-card-link">').and.contain('href="https://example.com/notes?a=1"');
    expect(html).to.contain('<p><a href="http://example.com/insecure" rel="nofollow ugc noopener" class="report-embed-link">');
    expect(html.match(/report-card-link/g)).to.have.length(2);
  });

  it('hostile addresses of our own pages render inert cards', async () => {
    const hostile = [
      '/?hfId="><script>alert(1)</script>&engineName=<img src=x onerror=alert(1)>',
      '/models/"><svg onload=alert(1)>/x',
      '/hardware/%E0%A4%A',
      `/runs/${runs[0]!.id}?"><script>`,
      '/?hwClass=DISCRETE_GPU&hwClass=CPU_ONLY',
    ];
    const { html } = await rendered(hostile.map((path) => embed(own(path))).join('\n\n'));
    // rendered() has checked the HTML for active content; the hostile text is there only as escaped text.
    expect(html).to.not.contain('<script').and.not.contain('<img src=x').and.not.contain('<svg');
    // A path with broken percent-encoding names no page: a plain link; the others get link or run cards.
    expect(html.match(/class="report-card /g)).to.have.length(hostile.length - 1);
    expect(html.match(/class="report-embed-link"/g)).to.have.length(1);
  });

  it('the same content from a draft is not shown to others, and a card never leaks a draft', async () => {
    const res = await request(ctx.app).post(`/api/models/${DENSE}/reports`).set(bearer(author)).send({ title: 'Draft', content: 'secret' });
    const { html } = await rendered(embed(own(`/reports/${res.body.report.id}`)));
    expect(html).to.contain('report-card-link').and.not.contain('secret');
  });
});

describe('Model reports: the demo report of the quick start', () => {
  const ctx = useTestApp();

  it('is seeded once, published, and shows a table, a task list, the image, a footnote and live cards', async () => {
    const profile = getRevisionProfile(3);
    await seedDemoCatalogue(ctx.db);
    await seedDemoRuns(ctx.db, profile, { runs: 40, now: ctx.clock.now() });
    expect(await seedDemoReport(ctx.db, profile, ctx.config.publicUrl, ctx.clock)).to.deep.equal({ reports: 1 });
    expect(await seedDemoReport(ctx.db, profile, ctx.config.publicUrl, ctx.clock)).to.deep.equal({ reports: 0 });
    const { id } = await ctx.db('model_reports').first('id');
    const { report } = (await request(ctx.app).get(`/api/reports/${id}`).expect(200)).body;
    expect(report.status).to.equal('published');
    const html: string = report.contentHtml;
    expect(html)
      .to.contain('<table>')
      .and.contain('task-list-item-checkbox')
      .and.contain('<figure class="report-figure">')
      .and.contain('footnote-ref');
    expect(html).to.contain('report-card-leaderboard').and.contain('report-card-run');
    expect(activeHtmlProblems(html, { allowSvgCharts: true })).to.deep.equal([]);
    const image = /<img src="([^"]+)"/.exec(html)![1]!;
    expect((await request(ctx.app).get(image).expect(200)).headers['content-type']).to.equal('image/png');
  });
});
