import { expect } from 'chai';
import request from 'supertest';
import sharp from 'sharp';
import {
  DRAFT_LISTINGS_PER_ACCOUNT,
  IMAGES_PER_ACCOUNT,
  REPORTS_PER_ACCOUNT,
  UNUSED_REPORT_IMAGES_PER_ACCOUNT,
} from '../../src/constants.ts';
import { messages } from '../../src/messages.ts';
import { createImagesService, UNUSED_IMAGE_GRACE_MS } from '../../src/services/images.service.ts';
import { useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { account, type Account } from '../helpers/moderation.ts';
import { bearer } from '../helpers/quality.ts';

/**
 * Issue 32 finding 7: one account could store images, draft listings and reports without
 * end (10 x 5 MB report images no report used were kept for ever). Each now has a cap, taken
 * under a lock on the account, and unused report images are swept a day after upload.
 */

const REPORTS = `/api/models/${fakeHubModels.dense}/reports`;
const reportBody = (content = 'Numbers below.') => ({ title: 'Dense-7B on a 4090', summary: 'Fast.', content, tags: [] });
const listingBody = {
  title: 'RTX 4090, lightly used',
  description: 'Inference only.',
  condition: 'USED',
  price: 1500,
  currency: 'EUR',
  hwClass: 'DISCRETE_GPU',
  hardwareName: 'NVIDIA GeForce RTX 4090',
  hardwareDetails: '24 GB, stock cooler',
  contactUrl: 'mailto:seller@example.com',
};
const formError = (message: string) => ({ error: 'Validation failed', details: { fieldErrors: {}, formErrors: [message] } });
const imageError = (message: string) => ({ error: 'Validation failed', details: { fieldErrors: { image: [message] }, formErrors: [] } });

describe('per-account caps and the sweep of unused report images (issue 32 finding 7)', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let png: Buffer;
  before(async () => {
    png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
  });

  const uploadReportImage = (who: Account) =>
    request(ctx.app).post('/api/reports/images').set(bearer(who)).attach('image', png, 'chart.png');
  /** `count` more copies of `imageId`'s row for its owner (as `purpose`), without the pipeline. */
  const copyImage = (imageId: string, count: number, purpose: 'listing' | 'report') =>
    ctx.db.raw(
      `insert into images (owner_user_id, purpose, content_type, width, height, bytes, etag, thumb_width, thumb_height, thumb_bytes, thumb_etag)
       select owner_user_id, ?, content_type, width, height, bytes, etag, thumb_width, thumb_height, thumb_bytes, thumb_etag
       from images, generate_series(1, ?) where id = ?`,
      [purpose, count, imageId],
    );

  it(`refuses report number ${REPORTS_PER_ACCOUNT + 1} of an account with 400 saying the cap`, async () => {
    const author = await account(ctx, 'reporter');
    await request(ctx.app).post(REPORTS).set(bearer(author)).send(reportBody()).expect(201);
    const first = await ctx.db('model_reports').where({ user_id: author.id }).first('id');
    await ctx.db.raw(
      `insert into model_reports (user_id, model_id, title, summary, content_format, content, tags)
       select user_id, model_id, title, summary, content_format, content, tags from model_reports, generate_series(2, ?) where id = ?`,
      [REPORTS_PER_ACCOUNT, first.id],
    );
    const over = await request(ctx.app).post(REPORTS).set(bearer(author)).send(reportBody()).expect(400);
    expect(over.body).to.deep.equal(formError(messages.reportLimit(REPORTS_PER_ACCOUNT)));
    // Another author is not held back.
    await request(ctx.app)
      .post(REPORTS)
      .set(bearer(await account(ctx, 'other')))
      .send(reportBody())
      .expect(201);
  });

  it(`lets exactly one of five concurrent creations take the last of ${DRAFT_LISTINGS_PER_ACCOUNT} draft listings`, async () => {
    const seller = await account(ctx, 'seller');
    const create = () => request(ctx.app).post('/api/marketplace/listings').set(bearer(seller)).send(listingBody);
    for (let i = 1; i < DRAFT_LISTINGS_PER_ACCOUNT; i += 1) await create().expect(201);
    const answers = await Promise.all(Array.from({ length: 5 }, create));
    expect(answers.map((answer) => answer.status).sort()).to.deep.equal([201, 400, 400, 400, 400]);
    expect(answers.find((answer) => answer.status === 400)!.body).to.deep.equal(
      formError(messages.draftListingLimit(DRAFT_LISTINGS_PER_ACCOUNT)),
    );
    const [{ n }] = await ctx.db('marketplace_listings').where({ seller_id: seller.id, status: 'DRAFT' }).count('* as n');
    expect(Number(n)).to.equal(DRAFT_LISTINGS_PER_ACCOUNT);
  });

  it(`keeps at most ${UNUSED_REPORT_IMAGES_PER_ACCOUNT} report images waiting unused, and sweeps them a day after upload while used ones stay`, async () => {
    const author = await account(ctx, 'illustrator');
    const first = await uploadReportImage(author).expect(201);
    await copyImage(first.body.id, UNUSED_REPORT_IMAGES_PER_ACCOUNT - 1, 'report');
    const over = await uploadReportImage(author).expect(400);
    expect(over.body).to.deep.equal(imageError(messages.unusedReportImageLimit(UNUSED_REPORT_IMAGES_PER_ACCOUNT)));
    // Used in a report's content, the first no longer waits: there is room for one more.
    await request(ctx.app)
      .post(REPORTS)
      .set(bearer(author))
      .send(reportBody(`A chart:\n\n[[report-image:${first.body.id}]]`))
      .expect(201);
    const another = await uploadReportImage(author).expect(201);

    const sweep = () => createImagesService({ db: ctx.db, clock: ctx.clock }).sweepUnused(ctx.clock.now());
    expect(await sweep(), 'nothing is a day old yet').to.equal(0);
    ctx.clock.advance(UNUSED_IMAGE_GRACE_MS + 60_000);
    expect(await sweep()).to.equal(UNUSED_REPORT_IMAGES_PER_ACCOUNT);
    await request(ctx.app)
      .get(first.body.url.replace(/^https?:\/\/[^/]+/, ''))
      .expect(200);
    await request(ctx.app)
      .get(another.body.url.replace(/^https?:\/\/[^/]+/, ''))
      .expect(404);
    const left = await ctx.db('images').where({ owner_user_id: author.id }).pluck('id');
    expect(left).to.deep.equal([first.body.id]);
  });

  it(`refuses image number ${IMAGES_PER_ACCOUNT + 1} of an account, whatever it is for`, async () => {
    const seller = await account(ctx, 'photographer');
    const first = await uploadReportImage(seller).expect(201);
    await copyImage(first.body.id, IMAGES_PER_ACCOUNT - 2, 'listing');
    await uploadReportImage(seller).expect(201);
    const over = await uploadReportImage(seller).expect(400);
    expect(over.body).to.deep.equal(imageError(messages.imageLimit(IMAGES_PER_ACCOUNT)));
  });
});
