import { expect } from 'chai';
import request from 'supertest';
import sharp from 'sharp';
import { useTestApp } from '../helpers/app.ts';
import { account, auditRowsFor, submitRun, type Account } from '../helpers/moderation.ts';

/**
 * The marketplace pages: a seller's whole journey through plain forms (no JS: create, upload
 * photos as multipart with the CSRF field, reorder, publish), the public /marketplace with its
 * filters and sorts, the listing page with its proof badge, and admin removal with a reason.
 */

type Body = Record<string, any>;

const png = (colour: string) =>
  sharp({ create: { width: 900, height: 600, channels: 3, background: colour } })
    .png()
    .toBuffer();

function form(who: Account, path: string, fields: Record<string, unknown> = {}) {
  return who.agent
    .post(path)
    .type('form')
    .send({ _csrf: who.csrf, ...fields });
}

const listingFields = (overrides: Record<string, unknown> = {}) => ({
  title: 'RTX 4090 from my test bench',
  description: 'Runs cool.',
  condition: 'LIKE_NEW',
  price: '1400',
  currency: 'GBP',
  hwClass: 'DISCRETE_GPU',
  hardwareName: 'RTX 4090',
  hardwareDetails: '',
  contactUrl: 'mailto:me@example.com',
  listingUrl: '',
  ...overrides,
});

describe('marketplace pages', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let admin: Account;
  let seller: Account;
  let run: Body;

  before(async () => {
    admin = await account(ctx, 'boss', { admin: true });
    seller = await account(ctx, 'seller');
    run = await submitRun(ctx, seller, { tokSOut: 123.4 });
  });

  /** Creates a listing through the form; answers its id (from the redirect). */
  async function createdByForm(fields: Record<string, unknown> = {}): Promise<string> {
    const res = await form(seller, '/settings/listings', { ...listingFields(), benchmarkRunIds: run.id, ...fields }).expect(303);
    const match = /^\/settings\/listings\/([0-9a-f-]{36})\?done=created$/.exec(res.headers.location);
    expect(match, res.headers.location).to.not.equal(null);
    return match![1]!;
  }

  it('takes a seller from the form to a published listing with ordered photos, without JavaScript', async () => {
    const newPage = await seller.agent.get('/settings/listings').expect(200);
    expect(newPage.text).to.include('name="benchmarkRunIds"').and.include(`value="${run.id}"`);
    const id = await createdByForm();
    const edit = await seller.agent.get(`/settings/listings/${id}?done=created`).expect(200);
    expect(edit.text).to.include('Listing saved as a draft').and.include('enctype="multipart/form-data"');

    // Photos: a multipart form whose CSRF token is a field of the form itself.
    for (const colour of ['#aa0000', '#00aa00']) {
      const upload = await seller.agent
        .post(`/settings/listings/${id}/images`)
        .field('_csrf', seller.csrf)
        .attach('image', await png(colour), 'photo.jpg')
        .expect(303);
      expect(upload.headers.location).to.equal(`/settings/listings/${id}?done=uploaded`);
    }
    await seller.agent
      .post(`/settings/listings/${id}/images`)
      .attach('image', await png('#0000aa'), 'photo.png')
      .expect(403);
    const images = async () =>
      (
        await request(ctx.app).get(`/api/marketplace/listings/${id}`).set('Authorization', `Bearer ${seller.key}`).expect(200)
      ).body.listing.images.map((i: Body) => i.id);
    const [first, second] = await images();
    await form(seller, `/settings/listings/${id}/images/${second}/move`, { direction: 'up' }).expect(303);
    expect(await images()).to.deep.equal([second, first]);

    const bad = await seller.agent
      .post(`/settings/listings/${id}/images`)
      .field('_csrf', seller.csrf)
      .attach('image', Buffer.from('GIF89a not really'), 'x.png')
      .expect(400);
    expect(bad.text).to.include('PNG, JPEG or WebP');

    await form(seller, `/settings/listings/${id}/publish`).expect(303);
    const market = await request(ctx.app).get('/marketplace').expect(200);
    expect(market.text).to.include(`href="/marketplace/${id}"`).and.include('1,400 GBP').and.include('≈ 1,778 USD');
    expect(market.text).to.include(`/api/marketplace/images/${second}/content?variant=thumb`);
    const page = await request(ctx.app).get(`/marketplace/${id}`).expect(200);
    expect(page.text).to.include('Proof matches listing').and.include(`/runs/${run.id}`).and.include('mailto:me@example.com');
    expect(page.text.indexOf(second)).to.be.below(page.text.indexOf(first));
  });

  it('shows the form again with each error next to its field, storing nothing', async () => {
    const before = await ctx.db('marketplace_listings').count<{ n: string }[]>('* as n');
    const res = await form(seller, '/settings/listings', listingFields({ price: 'cheap', contactUrl: 'call me', title: '' })).expect(400);
    expect(res.text).to.include('id="f-price-error"').and.include('id="f-contactUrl-error"').and.include('id="f-title-error"');
    expect(res.text).to.include('value="call me"');
    expect(await ctx.db('marketplace_listings').count<{ n: string }[]>('* as n')).to.deep.equal(before);
  });

  it('filters by class, condition and USD price, and sorts by USD per output tok/s', async () => {
    const cheapFast = await createdByForm({ title: 'Cheap fast card', price: '500', currency: 'USD' });
    const noProof = await createdByForm({
      title: 'No proof card',
      price: '100',
      currency: 'USD',
      benchmarkRunIds: undefined,
      condition: 'FOR_PARTS',
    });
    // Cheaper still, but its proof ran on a 4090 while it sells a 3090: no value, so not first.
    const otherCard = await createdByForm({ title: 'Cheap other card', price: '50', currency: 'USD', hardwareName: 'RTX 3090' });
    for (const id of [cheapFast, noProof, otherCard]) await form(seller, `/settings/listings/${id}/publish`).expect(303);

    const titles = async (query: string) =>
      [
        ...(await request(ctx.app).get(`/marketplace${query}`).expect(200)).text.matchAll(
          /<h3><a href="\/marketplace\/[^"]+">([^<]+)<\/a><\/h3>/g,
        ),
      ].map((m) => m[1]);
    expect(await titles('?condition=FOR_PARTS')).to.deep.equal(['No proof card']);
    expect(await titles('?priceMax=600&sort=price_asc')).to.deep.equal(['Cheap other card', 'No proof card', 'Cheap fast card']);
    expect(await titles('?hwClass=UNIFIED')).to.deep.equal([]);
    const byValue = await titles('?sort=usd_per_tok_s');
    expect(byValue[0]).to.equal('Cheap fast card');
    expect(byValue.slice(-2)).to.have.members(['No proof card', 'Cheap other card']);
    const page = (await request(ctx.app).get('/marketplace?sort=usd_per_tok_s').expect(200)).text;
    const otherCardHtml = page.slice(page.indexOf('Cheap other card'));
    expect(otherCardHtml.slice(0, otherCardHtml.indexOf('</article>'))).to.include(
      'Not ranked by USD per tok/s: no proof run ran on a RTX 3090.',
    );
    const shown = (await request(ctx.app).get(`/marketplace/${otherCard}`).expect(200)).text;
    expect(shown).to.include('No USD per output tok/s: no proof run ran on a RTX 3090');
    await request(ctx.app).get('/marketplace?sort=cheapest').expect(400);
    const fragment = await request(ctx.app).get('/marketplace?condition=FOR_PARTS').set('HX-Request', 'true').expect(200);
    expect(fragment.text)
      .to.match(/^<div id="listing-results">/)
      .and.not.include('<html');
  });

  it('pages through the cards, keeping the filters in the page links', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => ({
      seller_id: seller.id,
      status: 'ACTIVE',
      title: `Paged card ${i}`,
      condition: 'NEW',
      price: 10 + i,
      currency: 'USD',
      price_usd: 10 + i,
      hw_class: 'CPU_ONLY',
      hardware_name: 'Ryzen 9 7950X',
      contact_url: 'mailto:paged@example.com',
      published_at: ctx.db.fn.now(),
    }));
    await ctx.db('marketplace_listings').insert(rows);
    const cards = (html: string) => [...html.matchAll(/<article class="listing-card">/g)].length;
    const first = (await request(ctx.app).get('/marketplace?hwClass=CPU_ONLY&sort=price_asc').expect(200)).text;
    expect(cards(first)).to.equal(24);
    expect(first).to.include('Page 1 of 2').and.include('href="/marketplace?hwClass=CPU_ONLY&amp;sort=price_asc&amp;page=2"');
    const second = (await request(ctx.app).get('/marketplace?hwClass=CPU_ONLY&sort=price_asc&page=2').expect(200)).text;
    expect(cards(second)).to.equal(6);
    expect(second).to.include('Paged card 29').and.not.include('Paged card 0<');
  });

  it('keeps drafts and other sellers\u2019 pages private', async () => {
    const id = await createdByForm({ title: 'Secret draft' });
    await request(ctx.app).get(`/marketplace/${id}`).expect(404);
    expect((await seller.agent.get(`/marketplace/${id}`).expect(200)).text).to.include('This listing is <strong>draft</strong>');
    const stranger = await account(ctx, 'stranger');
    await stranger.agent.get(`/settings/listings/${id}`).expect(404);
    await form(stranger, `/settings/listings/${id}/publish`).expect(404);
    expect((await request(ctx.app).get('/settings/listings').expect(303)).headers.location).to.match(/^\/signin/);
  });

  it('lets an admin remove a listing with a reason, audited, and shows the reason to the seller', async () => {
    const id = await createdByForm({ title: 'Counterfeit card' });
    await form(seller, `/settings/listings/${id}/publish`).expect(303);
    await form(seller, `/admin/listings/${id}/remove`, { reason: 'not mine to remove' }).expect(403);

    const missing = await form(admin, `/admin/listings/${id}/remove`, { reason: '' }).expect(400);
    expect(missing.text).to.include(`id="reason-${id}-error"`);
    expect(await auditRowsFor(ctx, id)).to.deep.equal([]);

    await form(admin, `/admin/listings/${id}/remove`, { reason: 'Counterfeit photos' }).expect(303);
    await request(ctx.app).get(`/api/marketplace/${id}`).expect(404);
    const [entry] = await auditRowsFor(ctx, id);
    expect(entry).to.include({
      action: 'listing.remove',
      target_kind: 'marketplace_listing',
      reason: 'Counterfeit photos',
      actor_username: admin.username,
      target_label: 'Counterfeit card',
    });
    await form(admin, `/admin/listings/${id}/remove`, { reason: 'again' }).expect(409);
    expect((await seller.agent.get(`/settings/listings/${id}`).expect(200)).text).to.include('Counterfeit photos');
    expect((await admin.agent.get('/admin/listings?status=REMOVED').expect(200)).text).to.include('Counterfeit card');
  });

  it('does not exist in revisions 1 and 2', async () => {
    for (const revision of ['1', '2']) {
      const app = ctx.appWith({ API_REVISION: revision });
      await request(app).get('/marketplace').expect(404);
      expect((await request(app).get('/').expect(200)).text).to.not.include('href="/marketplace"');
    }
  });
});
