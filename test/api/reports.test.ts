import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import sharp from 'sharp';
import { useTestApp } from '../helpers/app.ts';
import { expectValidationFailed } from '../helpers/assertions.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';
import { approveQualityRun, bearer, customSuite, qualityRun, registeredApprovedSuite, submitQualityRun } from '../helpers/quality.ts';

const DENSE = fakeHubModels.dense;
const reportsOf = (hfId: string) => `/api/models/${hfId}/reports`;

function reportBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Dense-7B on a 4090',
    summary: 'Q4_K_M is plenty.',
    content: '## Results\n\n| quant | tok/s |\n|--|--:|\n| Q4_K_M | 42.5 |',
    tags: ['4090'],
    ...overrides,
  };
}

describe('Model reports API (revision 3)', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let author: Account;
  let other: Account;
  before(async () => {
    author = await account(ctx, 'author');
    other = await account(ctx, 'other');
  });

  async function create(who: Account, body: Record<string, unknown> = reportBody(), hfId: string = DENSE) {
    return request(ctx.app).post(reportsOf(hfId)).set(bearer(who)).send(body);
  }

  describe('create', () => {
    it('stores a draft of a model new to the catalogue (looked up on the hub) and answers it rendered', async () => {
      const res = await create(author);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const { report } = res.body;
      expect(res.headers.location).to.equal(`/api/reports/${report.id}`);
      expect(report).to.include({
        title: 'Dense-7B on a 4090',
        summary: 'Q4_K_M is plenty.',
        contentFormat: 'gfm',
        published: false,
        status: 'draft',
        unpublishedReason: null,
        publishedAt: null,
      });
      expect(report.tags).to.deep.equal(['4090']);
      expect(report.author.username).to.equal(author.username);
      expect(report.model.hfId).to.equal(DENSE);
      // No PUBLIC_URL in the tests: addresses are on the origin the request came to.
      expect(report.url).to.equal(`${new URL(res.request.url).origin}/reports/${report.id}`);
      expect(report.contentHtml).to.contain('<h2 id="report-results">Results</h2>').and.contain('<td class="report-align-right">42.5</td>');
      expect(await ctx.db('models').where({ hf_id: DENSE }).first()).to.not.equal(undefined);
    });

    it('answers 404 for a model neither catalogued nor on the hub, and writes nothing', async () => {
      const before = await ctx.db('model_reports').count<{ n: string }[]>('* as n');
      const res = await create(author, reportBody(), fakeHubModels.missing);
      expect(res.status).to.equal(404);
      expect(res.body.error).to.contain(fakeHubModels.missing);
      expect(await ctx.db('model_reports').count<{ n: string }[]>('* as n')).to.deep.equal(before);
    });

    it('answers 503 with Retry-After when the hub cannot be asked', async () => {
      const res = await create(author, reportBody(), fakeHubModels.rateLimited);
      expect(res.status).to.equal(503);
      expect(res.headers['retry-after']).to.match(/^\d+$/);
    });

    it('requires credentials', async () => {
      const res = await request(ctx.app).post(reportsOf(DENSE)).send(reportBody());
      expect(res.status).to.equal(401);
    });

    it('rejects a contentFormat other than gfm', async () => {
      expectValidationFailed(await create(author, reportBody({ contentFormat: 'html' })), ['contentFormat']);
    });

    it('enforces every limit of DECISIONS.md with a field error', async () => {
      const res = await create(author, {
        title: 'x'.repeat(201),
        summary: 'y'.repeat(501),
        content: 'z'.repeat(100_001),
        tags: Array.from({ length: 11 }, (_, i) => `t${i}`),
        benchmarkRunIds: Array.from({ length: 51 }, () => randomUUID()),
        evalRunIds: Array.from({ length: 51 }, () => randomUUID()),
        imageIds: Array.from({ length: 21 }, () => randomUUID()),
        published: 'yes',
      });
      expectValidationFailed(res, ['title', 'summary', 'content', 'tags', 'benchmarkRunIds', 'evalRunIds', 'imageIds', 'published']);
    });

    it('rejects an empty title, an over-long tag and an unknown field', async () => {
      expectValidationFailed(await create(author, reportBody({ title: '  ', tags: ['ok', 'x'.repeat(33)], extra: 1 })), [
        'title',
        'tags.1',
        'extra',
      ]);
    });

    it('accepts exactly the limits', async () => {
      const res = await create(
        author,
        reportBody({
          title: 'x'.repeat(200),
          summary: 'y'.repeat(500),
          content: 'z'.repeat(100_000),
          tags: Array.from({ length: 10 }, (_, i) => `${'t'.repeat(31)}${i}`),
        }),
      );
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(201);
    });

    it('refuses more embed tokens than the limit', async () => {
      const content = Array.from({ length: 21 }, (_, i) => `[[report-embed:${encodeURIComponent(`https://example.com/${i}`)}]]`).join(
        '\n\n',
      );
      expectValidationFailed(await create(author, reportBody({ content })), ['content']);
    });
  });

  describe('attached runs', () => {
    it('accepts approved runs of the model and of its quantizations, and refuses others by index', async () => {
      const own = await submitRun(ctx, author, { hfId: DENSE });
      const quant = await submitRun(ctx, author, { hfId: fakeHubModels.ggufQuant });
      const unrelated = await submitRun(ctx, author, { hfId: fakeHubModels.moeByConfig });
      const rejected = await submitRun(ctx, author, { hfId: DENSE });
      await ctx.db('speed_test_runs').where({ id: rejected.id }).update({ status: 'REJECTED' });
      const ok = await create(author, reportBody({ benchmarkRunIds: [own.id, quant.id] }));
      expect(ok.status, JSON.stringify(ok.body)).to.equal(201);
      expect(ok.body.report.benchmarkRunIds).to.deep.equal([own.id, quant.id]);
      const bad = await create(author, reportBody({ benchmarkRunIds: [own.id, unrelated.id, rejected.id, randomUUID()] }));
      expectValidationFailed(bad, ['benchmarkRunIds.1', 'benchmarkRunIds.2', 'benchmarkRunIds.3']);
      expect(bad.body.details.fieldErrors['benchmarkRunIds.1'][0]).to.contain(DENSE);
    });

    it('accepts approved quality runs of the model only', async () => {
      const suite = await registeredApprovedSuite(ctx, '/api/benchmarks', author, customSuite());
      const pending = await submitQualityRun(ctx, '/api/benchmarks', author, qualityRun(suite.slug as string, { hfId: DENSE }));
      const approved = await submitQualityRun(ctx, '/api/benchmarks', author, qualityRun(suite.slug as string, { hfId: DENSE }));
      await approveQualityRun(ctx, approved.id as string);
      const res = await create(author, reportBody({ evalRunIds: [approved.id, pending.id] }));
      expectValidationFailed(res, ['evalRunIds.1']);
      expect((await create(author, reportBody({ evalRunIds: [approved.id] }))).status).to.equal(201);
    });
  });

  describe('visibility and PATCH', () => {
    it('shows a draft to its author only; publishing lists it under the model', async () => {
      const { report } = (await create(author)).body;
      expect((await request(ctx.app).get(`/api/reports/${report.id}`)).status).to.equal(404);
      expect((await request(ctx.app).get(`/api/reports/${report.id}`).set(bearer(other))).status).to.equal(404);
      expect((await request(ctx.app).get(`/api/reports/${report.id}`).set(bearer(author))).body.report.status).to.equal('draft');
      const listed = async () => (await request(ctx.app).get(reportsOf(DENSE)).expect(200)).body.reports.map((r: { id: string }) => r.id);
      expect(await listed()).to.not.include(report.id);

      const patched = await request(ctx.app).patch(`/api/reports/${report.id}`).set(bearer(author)).send({ published: true });
      expect(patched.status).to.equal(200);
      expect(patched.body.report).to.include({ status: 'published', published: true, title: report.title, content: report.content });
      expect(patched.body.report.publishedAt).to.be.a('string');
      expect((await request(ctx.app).get(`/api/reports/${report.id}`)).body.report.id).to.equal(report.id);
      expect(await listed()).to.include(report.id);
    });

    it('changes only the fields given, replaces lists whole and re-renders new content', async () => {
      const { report } = (await create(author, reportBody({ tags: ['a', 'b'] }))).body;
      const res = await request(ctx.app)
        .patch(`/api/reports/${report.id}`)
        .set(bearer(author))
        .send({ tags: ['c'], content: '~~old~~ new' });
      expect(res.status).to.equal(200);
      expect(res.body.report).to.include({ title: report.title, summary: report.summary, published: false });
      expect(res.body.report.tags).to.deep.equal(['c']);
      expect(res.body.report.contentHtml).to.equal('<p><s>old</s> new</p>\n');
      expect(Date.parse(res.body.report.updatedAt)).to.be.at.least(Date.parse(report.updatedAt));
    });

    it('changes nothing for an empty PATCH, and answers 400 for bad fields', async () => {
      const { report } = (await create(author)).body;
      const empty = await request(ctx.app).patch(`/api/reports/${report.id}`).set(bearer(author)).send({});
      expect(empty.status).to.equal(200);
      expect(empty.body.report.updatedAt).to.equal(report.updatedAt);
      expectValidationFailed(
        await request(ctx.app).patch(`/api/reports/${report.id}`).set(bearer(author)).send({ title: 'ok', contentFormat: 'markdown' }),
        ['contentFormat'],
      );
      expect((await ctx.db('model_reports').where({ id: report.id }).first()).title).to.equal(report.title);
    });

    it("answers 404 for another user's report on PATCH and DELETE, and deletes the author's", async () => {
      const { report } = (await create(author)).body;
      expect((await request(ctx.app).patch(`/api/reports/${report.id}`).set(bearer(other)).send({ title: 'mine' })).status).to.equal(404);
      expect((await request(ctx.app).delete(`/api/reports/${report.id}`).set(bearer(other))).status).to.equal(404);
      expect((await request(ctx.app).delete(`/api/reports/${report.id}`).set(bearer(author))).status).to.equal(204);
      expect((await request(ctx.app).get(`/api/reports/${report.id}`).set(bearer(author))).status).to.equal(404);
    });

    it('answers 404 for a path id that is not an id, and for the list of a model not catalogued', async () => {
      expect((await request(ctx.app).get('/api/reports/not-an-id')).body).to.deep.equal({ error: 'Report not found' });
      expect((await request(ctx.app).get(reportsOf('nobody/nothing'))).status).to.equal(404);
    });
  });

  describe('images', () => {
    const png = () =>
      sharp({ create: { width: 30, height: 20, channels: 3, background: '#cc3366' } })
        .png()
        .toBuffer();
    const upload = async (who: Account) =>
      request(ctx.app)
        .post('/api/reports/images')
        .set(bearer(who))
        .attach('image', await png(), 'x.png');

    it('uploads an image and answers its id, addresses, size and caption', async () => {
      const res = await upload(author);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body).to.have.all.keys('id', 'url', 'thumbnailUrl', 'contentType', 'width', 'height', 'caption');
      expect(res.body).to.include({
        contentType: 'image/png',
        width: 30,
        height: 20,
        url: `${new URL(res.request.url).origin}/api/marketplace/images/${res.body.id}/content`,
      });
      const bytes = await request(ctx.app).get(`/api/marketplace/images/${res.body.id}/content`).expect(200);
      expect(bytes.headers['content-type']).to.equal('image/png');
    });

    it('refuses a file that is not an image by its content', async () => {
      const res = await request(ctx.app)
        .post('/api/reports/images')
        .set(bearer(author))
        .attach('image', Buffer.from('<svg onload="alert(1)"></svg>'), 'x.png');
      expectValidationFailed(res, ['image']);
    });

    it("renders the author's own image as a lazy figure with its size; another user's stays text", async () => {
      const mine = (await upload(author)).body.id;
      const theirs = (await upload(other)).body.id;
      const res = await create(author, reportBody({ content: `[[report-image:${mine}]]\n\n[[report-image:${theirs}]]`, imageIds: [mine] }));
      expect(res.status).to.equal(201);
      expect(res.body.report.contentHtml).to.equal(
        `<figure class="report-figure"><a href="/api/marketplace/images/${mine}/content" rel="nofollow ugc noopener"><img src="/api/marketplace/images/${mine}/content" alt="Image uploaded by the author" width="30" height="20" loading="lazy" decoding="async" class="report-image"></a></figure>` +
          `<p>[[report-image:${theirs}]]</p>`,
      );
    });

    it("refuses another user's image in imageIds", async () => {
      const theirs = (await upload(other)).body.id;
      expectValidationFailed(await create(author, reportBody({ imageIds: [theirs] })), ['imageIds.0']);
    });
  });

  describe('addresses in answers (the URL policy listings follow)', () => {
    const png = () =>
      sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366cc' } })
        .png()
        .toBuffer();
    const addresses = (report: Record<string, any>) => ({
      url: report.url,
      profileUrl: report.author.profileUrl,
      modelUrl: report.model.url,
    });

    it('are on the request origin without PUBLIC_URL (the answer private), and on PUBLIC_URL whatever the Host when it is configured', async () => {
      const image = (
        await request(ctx.app)
          .post('/api/reports/images')
          .set(bearer(author))
          .attach('image', await png(), 'x.png')
          .expect(201)
      ).body;
      const created = await create(author, reportBody({ content: `[[report-image:${image.id}]]`, imageIds: [image.id], published: true }));
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const { id } = created.body.report;
      const on = (origin: string) => ({
        url: `${origin}/reports/${id}`,
        profileUrl: `${origin}/u/${author.username}`,
        modelUrl: `${origin}/models/${DENSE}`,
      });
      const ours = (body: { reports: { id: string }[] }) => body.reports.find((report) => report.id === id)!;

      // Without PUBLIC_URL: the Host the request came to, so no shared cache may keep the answer.
      const one = await request(ctx.app).get(`/api/reports/${id}`).set('Host', 'reports.test:8080').expect(200);
      expect(addresses(one.body.report)).to.deep.equal(on('http://reports.test:8080'));
      expect(one.headers['cache-control']).to.equal('private');
      const list = await request(ctx.app).get(reportsOf(DENSE)).set('Host', 'reports.test:8080').expect(200);
      expect(addresses(ours(list.body))).to.deep.equal(on('http://reports.test:8080'));
      expect(list.headers['cache-control']).to.equal('private');
      const uploaded = await request(ctx.app)
        .post('/api/reports/images')
        .set(bearer(author))
        .set('Host', 'reports.test:8080')
        .attach('image', await png(), 'y.png')
        .expect(201);
      const content = `http://reports.test:8080/api/marketplace/images/${uploaded.body.id}/content`;
      expect(uploaded.body).to.include({ url: content, thumbnailUrl: `${content}?variant=thumb` });
      expect(uploaded.headers.location).to.equal(content);
      // The HTML, cached on the row for every reader, names no origin: its image sources are paths.
      expect(one.body.report.contentHtml).to.contain(`src="/api/marketplace/images/${image.id}/content"`).and.not.contain('reports.test');

      // With PUBLIC_URL: always it, whatever the Host; nothing in the answer depends on the request.
      const deployed = ctx.appWith({ PUBLIC_URL: 'https://bench.example.org/' });
      const pub = await request(deployed).get(`/api/reports/${id}`).set('Host', 'evil.example').expect(200);
      expect(addresses(pub.body.report)).to.deep.equal(on('https://bench.example.org'));
      expect(pub.text).not.to.include('evil.example');
      expect(pub.headers['cache-control']).to.equal(undefined);
      expect(pub.body.report.contentHtml).to.equal(one.body.report.contentHtml);
      const pubList = await request(deployed).get(reportsOf(DENSE)).set('Host', 'evil.example').expect(200);
      expect(addresses(ours(pubList.body))).to.deep.equal(on('https://bench.example.org'));
      expect(pubList.headers['cache-control']).to.equal(undefined);
      const pubImage = await request(deployed)
        .post('/api/reports/images')
        .set(bearer(author))
        .set('Host', 'evil.example')
        .attach('image', await png(), 'z.png')
        .expect(201);
      expect(pubImage.body.url).to.equal(`https://bench.example.org/api/marketplace/images/${pubImage.body.id}/content`);
      expect(pubImage.headers.location).to.equal(pubImage.body.url);
    });
  });

  describe('report format', () => {
    it('states the limits the validation enforces', async () => {
      const res = await request(ctx.app).get('/api/report-format').expect(200);
      expect(res.body.contentFormat).to.equal('gfm');
      expect(res.body.limits).to.deep.include({
        summaryMax: 500,
        contentMax: 100_000,
        imagesMax: 20,
        embedsMax: 20,
        benchmarkRunIdsMax: 50,
        evalRunIdsMax: 50,
      });
      expect(res.body.limits.title).to.deep.equal({ min: 1, max: 200 });
      expect(res.body.tokens.image.syntax).to.equal('[[report-image:<image-id>]]');
      expect(res.body.lifecycle.create).to.contain('POST /api/models/{org}/{model}/reports');
    });

    it("is also the agent-context's reports section", async () => {
      const format = (await request(ctx.app).get('/api/report-format').expect(200)).body;
      expect((await request(ctx.app).get('/api/agent-context').expect(200)).body.reports).to.deep.equal(format);
      expect(
        (
          await request(ctx.appWith({ API_REVISION: '2' }))
            .get('/api/agent-context')
            .expect(200)
        ).body,
      ).to.not.have.property('reports');
    });

    it('renders each worked example exactly as it says', async () => {
      const { examples } = (await request(ctx.app).get('/api/report-format').expect(200)).body;
      const exact = examples.filter((e: { html?: string }) => e.html !== undefined);
      expect(exact.length).to.be.at.least(10);
      for (const example of exact) {
        const res = await create(author, reportBody({ content: example.content }));
        expect(res.body.report.contentHtml, example.name).to.equal(example.html);
      }
    });
  });

  describe('revisions without reports', () => {
    for (const revision of ['1', '2']) {
      it(`answers 404 in revision ${revision}`, async () => {
        const app = ctx.appWith({ API_REVISION: revision });
        expect((await request(app).get('/api/report-format')).status).to.equal(404);
        expect((await request(app).post(reportsOf(DENSE)).set(bearer(author)).send(reportBody())).status).to.equal(404);
      });
    }
  });
});
