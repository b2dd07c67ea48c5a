import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import sharp from 'sharp';
import { IMAGE_MAX_BYTES } from '../../src/lib/image-pipeline.ts';
import { encodeFeedCursor } from '../../src/lib/marketplace.ts';
import { useTestApp, type TestContext } from '../helpers/app.ts';
import { expectValidationFailed } from '../helpers/assertions.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';

/**
 * The marketplace API (revision 3): the seller's life cycle of a listing, proof runs, photos
 * through multipart, the public feed (keyset paging while listings change, updatedSince,
 * cursors) and the 404 of revisions 1 and 2.
 */

type Body = Record<string, any>;

function listingBody(overrides: Body = {}): Body {
  return {
    title: 'RTX 4090, lightly used',
    description: 'Inference only.',
    condition: 'USED',
    price: 1500,
    currency: 'EUR',
    hwClass: 'DISCRETE_GPU',
    hardwareName: 'NVIDIA GeForce RTX 4090',
    hardwareDetails: '24 GB, stock cooler',
    contactUrl: 'mailto:seller@example.com',
    ...overrides,
  };
}

const HOST = 'market.test';
const bearer = (who: Account) => ({ Authorization: `Bearer ${who.key}` });

function seller(ctx: TestContext, who: Account) {
  // One Host, so absolute URLs in answers compare equal across requests.
  const call = (method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
    request(ctx.app)[method](path).set(bearer(who)).set('Host', HOST);
  return {
    create: (body: Body = listingBody()) => call('post', '/api/marketplace/listings').send(body),
    async made(body: Body = listingBody()): Promise<Body> {
      const res = await call('post', '/api/marketplace/listings').send(body);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.listing;
    },
    async published(body: Body = listingBody()): Promise<Body> {
      const listing = await this.made(body);
      return (await call('post', `/api/marketplace/listings/${listing.id}/publish`).expect(200)).body.listing;
    },
    patch: (id: string, body: Body) => call('patch', `/api/marketplace/listings/${id}`).send(body),
    publish: (id: string) => call('post', `/api/marketplace/listings/${id}/publish`),
    sold: (id: string) => call('post', `/api/marketplace/listings/${id}/sold`),
    remove: (id: string) => call('delete', `/api/marketplace/listings/${id}`),
    get: (id: string) => call('get', `/api/marketplace/listings/${id}`),
    mine: (query = '') => call('get', `/api/marketplace/listings/mine${query}`),
    upload: (id: string, bytes: Buffer, filename = 'photo.jpg', field = 'image') =>
      call('post', `/api/marketplace/listings/${id}/images`).attach(field, bytes, filename),
    deleteImage: (id: string, imageId: string) => call('delete', `/api/marketplace/listings/${id}/images/${imageId}`),
    reorder: (id: string, imageIds: string[]) => call('post', `/api/marketplace/listings/${id}/images/order`).send({ imageIds }),
  };
}

const png = (width: number, height: number, colour = '#3366cc') =>
  sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();

describe('marketplace API', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let alice: Account;
  let bob: Account;

  before(async () => {
    alice = await account(ctx, 'alice');
    bob = await account(ctx, 'bob');
  });

  describe('a listing\u2019s life', () => {
    it('is created as a DRAFT, published, sold, and public only while ACTIVE', async () => {
      const run = await submitRun(ctx, alice);
      const created = await seller(ctx, alice)
        .create(listingBody({ benchmarkRunIds: [run.id] }))
        .expect(201);
      const draft = created.body.listing;
      expect(created.headers.location).to.equal(`/api/marketplace/listings/${draft.id}`);
      expect(draft).to.include({ status: 'DRAFT', price: 1500, currency: 'EUR', priceUsd: 1620, condition: 'USED' });
      expect(draft.fxRatesDate).to.match(/^\d{4}-\d{2}-\d{2}$/);
      expect(draft.seller).to.have.all.keys('username', 'displayName', 'profileUrl');
      expect(draft.seller.username).to.equal(alice.username);
      expect(draft.seller.profileUrl).to.equal(`http://${HOST}/u/${alice.username}`);
      expect(draft.listingUrl).to.equal(`http://${HOST}/marketplace/${draft.id}`);
      expect(draft.benchmarkRunIds).to.deep.equal([run.id]);
      expect(draft.benchmarkRuns.map((r: Body) => r.id)).to.deep.equal([run.id]);
      expect(draft.proof).to.deep.include({ bestTokSOut: run.tokSOut, bestRunId: run.id, matchesListing: true });
      expect(draft.proof.usdPerTokSOut).to.equal(Math.round((1620 / run.tokSOut) * 100) / 100);

      await request(ctx.app).get(`/api/marketplace/${draft.id}`).expect(404);
      const active = (await seller(ctx, alice).publish(draft.id).expect(200)).body.listing;
      expect(active.status).to.equal('ACTIVE');
      expect(active.publishedAt).to.be.a('string');
      const read = await request(ctx.app).get(`/api/marketplace/${draft.id}`).set('Host', HOST).expect(200);
      expect(read.body.listing).to.deep.equal(active);
      await seller(ctx, alice).publish(draft.id).expect(409);

      await seller(ctx, alice).sold(draft.id).expect(200);
      await request(ctx.app).get(`/api/marketplace/${draft.id}`).expect(404);
      await seller(ctx, alice).patch(draft.id, { price: 1 }).expect(409);
      expect((await seller(ctx, alice).get(draft.id).expect(200)).body.listing.status).to.equal('SOLD');
    });

    it('takes a PATCH of some fields, converts a new currency, and clears listingUrl with null', async () => {
      const listing = await seller(ctx, alice).made(listingBody({ listingUrl: 'https://example.com/ad/1' }));
      expect(listing.listingUrl).to.equal('https://example.com/ad/1');
      const patched = (await seller(ctx, alice).patch(listing.id, { price: 200000, currency: 'JPY', listingUrl: null }).expect(200)).body
        .listing;
      expect(patched).to.include({ price: 200000, currency: 'JPY', priceUsd: 1340, title: listing.title });
      expect(patched.listingUrl).to.match(new RegExp(`/marketplace/${listing.id}$`));
      expect(Date.parse(patched.updatedAt)).to.be.at.least(Date.parse(listing.updatedAt));
    });

    it('refuses bad bodies with the validation shape, storing nothing', async () => {
      const before = await ctx.db('marketplace_listings').count<{ n: string }[]>('* as n');
      const cases: [Body, string][] = [
        [listingBody({ condition: 'MINT' }), 'condition'],
        [listingBody({ currency: 'XYZ' }), 'currency'],
        [listingBody({ price: -1 }), 'price'],
        [listingBody({ price: 10.001 }), 'price'],
        [listingBody({ title: 'x'.repeat(201) }), 'title'],
        [listingBody({ description: 'x'.repeat(10_001) }), 'description'],
        [listingBody({ hardwareDetails: 'x'.repeat(2_001) }), 'hardwareDetails'],
        [listingBody({ contactUrl: 'javascript:alert(1)' }), 'contactUrl'],
        [listingBody({ listingUrl: 'http://example.com' }), 'listingUrl'],
        [listingBody({ benchmarkRunIds: Array.from({ length: 11 }, () => randomUUID()) }), 'benchmarkRunIds'],
        [listingBody({ surprise: 1 }), 'surprise'],
      ];
      for (const [body, field] of cases) {
        const res = await seller(ctx, alice).create(body);
        expectValidationFailed(res, [field]);
      }
      expect(await ctx.db('marketplace_listings').count<{ n: string }[]>('* as n')).to.deep.equal(before);
    });

    it('answers 404 for another user\u2019s listing on every seller path', async () => {
      const listing = await seller(ctx, alice).made();
      const other = seller(ctx, bob);
      await other.get(listing.id).expect(404, { error: 'Listing not found' });
      await other.patch(listing.id, { price: 1 }).expect(404);
      await other.publish(listing.id).expect(404);
      await other.sold(listing.id).expect(404);
      await other.remove(listing.id).expect(404);
      await other.upload(listing.id, await png(10, 10)).expect(404);
      await other.reorder(listing.id, []).expect(404);
      expect((await seller(ctx, alice).get(listing.id).expect(200)).body.listing.status).to.equal('DRAFT');
    });

    it('lists the seller\u2019s own listings in every state, and needs credentials', async () => {
      const carol = await account(ctx, 'carol');
      const draft = await seller(ctx, carol).made();
      const active = await seller(ctx, carol).published();
      const mine = (await seller(ctx, carol).mine().expect(200)).body;
      expect(mine.total).to.equal(2);
      expect(mine.listings.map((l: Body) => l.id).sort()).to.deep.equal([draft.id, active.id].sort());
      expect((await seller(ctx, carol).mine('?status=ACTIVE').expect(200)).body.listings.map((l: Body) => l.id)).to.deep.equal([active.id]);
      await request(ctx.app).get('/api/marketplace/listings/mine').expect(401);
      await request(ctx.app).post('/api/marketplace/listings').send(listingBody()).expect(401);
    });
  });

  describe('proof runs', () => {
    it('accepts only the seller\u2019s own APPROVED runs, naming the others', async () => {
      const own = await submitRun(ctx, alice);
      const bobs = await submitRun(ctx, bob);
      const unknown = randomUUID();
      const res = await seller(ctx, alice).create(listingBody({ benchmarkRunIds: [own.id, bobs.id, unknown] }));
      expectValidationFailed(res, ['benchmarkRunIds']);
      expect(res.body.details.fieldErrors.benchmarkRunIds[0]).to.include(bobs.id).and.include(unknown).and.not.include(own.id);

      await ctx.db('speed_test_runs').where({ id: own.id }).update({ status: 'REJECTED' });
      expectValidationFailed(await seller(ctx, alice).create(listingBody({ benchmarkRunIds: [own.id] })), ['benchmarkRunIds']);
    });

    it('drops a run that is later rejected or withdrawn from the proof', async () => {
      const first = await submitRun(ctx, alice, { tokSOut: 80 });
      const second = await submitRun(ctx, alice, { tokSOut: 120 });
      const listing = await seller(ctx, alice).published(listingBody({ benchmarkRunIds: [first.id, second.id] }));
      expect(listing.proof.bestTokSOut).to.equal(120);

      await ctx.db('speed_test_runs').where({ id: second.id }).update({ status: 'WITHDRAWN' });
      let read = (await request(ctx.app).get(`/api/marketplace/${listing.id}`).expect(200)).body.listing;
      expect(read.benchmarkRunIds).to.deep.equal([first.id]);
      // The listing changed with its proof: a client syncing with updatedSince fetches it again.
      expect(Date.parse(read.updatedAt)).to.be.above(Date.parse(listing.updatedAt));
      expect(read.proof.bestTokSOut).to.equal(80);

      await ctx.db('speed_test_runs').where({ id: first.id }).update({ status: 'REJECTED' });
      read = (await request(ctx.app).get(`/api/marketplace/${listing.id}`).expect(200)).body.listing;
      expect(read.benchmarkRuns).to.deep.equal([]);
      expect(read.proof).to.deep.equal({ bestTokSOut: null, bestRunId: null, bestModel: null, usdPerTokSOut: null, matchesListing: null });
    });

    it('says whether the proof ran on the listed hardware', async () => {
      const onA100 = await submitRun(ctx, alice, { hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA A100 80GB', vramGb: 80 } });
      const mismatched = await seller(ctx, alice).made(listingBody({ benchmarkRunIds: [onA100.id] }));
      expect(mismatched.proof.matchesListing).to.equal(false);
      const matched = (await seller(ctx, alice).patch(mismatched.id, { hardwareName: 'nvidia a100 80gb' }).expect(200)).body.listing;
      expect(matched.proof.matchesListing).to.equal(true);
    });
  });

  describe('photos', () => {
    it('uploads (a PNG named .jpg is a PNG), orders, reorders and deletes them', async () => {
      const listing = await seller(ctx, alice).made();
      const first = await seller(ctx, alice)
        .upload(listing.id, await png(800, 400), 'renamed.jpg')
        .expect(201);
      expect(first.body).to.include({ contentType: 'image/png', width: 800, height: 400, sortOrder: 0 });
      expect(first.body.thumbnailUrl).to.equal(`${first.body.url}?variant=thumb`);
      const second = (
        await seller(ctx, alice)
          .upload(listing.id, await png(300, 300, '#cc3333'))
          .expect(201)
      ).body;
      expect(second.sortOrder).to.equal(1);

      const thumb = await request(ctx.app)
        .get(`${new URL(first.body.thumbnailUrl).pathname}?variant=thumb`)
        .buffer(true)
        .expect(200);
      expect((await sharp(thumb.body as Buffer).metadata()).width).to.equal(480);

      const reordered = (await seller(ctx, alice).reorder(listing.id, [second.id, first.body.id]).expect(200)).body.listing;
      expect(reordered.images.map((i: Body) => [i.id, i.sortOrder])).to.deep.equal([
        [second.id, 0],
        [first.body.id, 1],
      ]);
      expectValidationFailed(await seller(ctx, alice).reorder(listing.id, [second.id]), ['imageIds']);
      expectValidationFailed(await seller(ctx, alice).reorder(listing.id, [second.id, second.id]), ['imageIds']);

      await seller(ctx, alice).deleteImage(listing.id, second.id).expect(204);
      await request(ctx.app).get(`/api/marketplace/images/${second.id}/content`).expect(404);
      const after = (await seller(ctx, alice).get(listing.id).expect(200)).body.listing;
      expect(after.images.map((i: Body) => [i.id, i.sortOrder])).to.deep.equal([[first.body.id, 0]]);
      await seller(ctx, alice).deleteImage(listing.id, second.id).expect(404);
    });

    it('refuses what is not an image, too large, or a 13th, storing nothing', async () => {
      const listing = await seller(ctx, alice).made();
      const count = async () => Number((await ctx.db('images').count<{ n: string }[]>('* as n'))[0]!.n);
      const before = await count();
      const notImage = await seller(ctx, alice).upload(listing.id, Buffer.from('%PDF-1.4 not a photo'), 'photo.png').expect(400);
      expect(notImage.body.details.fieldErrors.image[0]).to.match(/PNG, JPEG or WebP/);
      const tooLarge = await seller(ctx, alice)
        .upload(listing.id, Buffer.alloc(IMAGE_MAX_BYTES + 10, 1))
        .expect(413);
      expect(tooLarge.body).to.deep.equal({ error: 'Image is larger than 8 MiB' });
      const wrongField = await seller(ctx, alice)
        .upload(listing.id, await png(10, 10), 'a.png', 'photo')
        .expect(400);
      expect(wrongField.body.details.fieldErrors.image[0]).to.match(/field "image"/);
      await request(ctx.app).post(`/api/marketplace/listings/${listing.id}/images`).set(bearer(alice)).send({ image: 'x' }).expect(400);
      expect(await count()).to.equal(before);

      const rows = Array.from({ length: 12 }, (_, i) => ({ listing_id: listing.id, sort_order: i }));
      for (const row of rows) {
        const upload = await seller(ctx, alice).upload(listing.id, await png(8, 8));
        expect(upload.status).to.equal(201);
        expect(upload.body.sortOrder).to.equal(row.sort_order);
      }
      const thirteenth = await seller(ctx, alice)
        .upload(listing.id, await png(8, 8))
        .expect(400);
      expect(thirteenth.body.details.fieldErrors.image[0]).to.match(/at most 12 images/);
      expect(await count()).to.equal(before + 12);
    });

    it('stops serving the photos of a removed listing 24 hours after removal', async () => {
      const listing = await seller(ctx, alice).published();
      const image = (
        await seller(ctx, alice)
          .upload(listing.id, await png(20, 20))
          .expect(201)
      ).body;
      const content = new URL(image.url).pathname;
      await seller(ctx, alice).remove(listing.id).expect(204);
      await request(ctx.app).get(`/api/marketplace/${listing.id}`).expect(404);
      await request(ctx.app).get(content).expect(200);
      ctx.clock.advance(24 * 60 * 60_000 - 1000);
      await request(ctx.app).get(content).expect(200);
      ctx.clock.advance(2000);
      await request(ctx.app).get(content).expect(404);
      expect((await seller(ctx, alice).get(listing.id).expect(200)).body.listing.status).to.equal('REMOVED');
      await seller(ctx, alice).remove(listing.id).expect(204);
    });
  });

  describe('feed', () => {
    /** Inserts `n` ACTIVE listings of a fresh seller straight into the table. */
    async function manyActive(n: number): Promise<string[]> {
      const who = await account(ctx, 'bulk');
      const rows = Array.from({ length: n }, (_, i) => ({
        seller_id: who.id,
        status: 'ACTIVE',
        title: `Bulk listing ${i}`,
        condition: 'USED',
        price: 100 + i,
        currency: 'USD',
        price_usd: 100 + i,
        hw_class: 'DISCRETE_GPU',
        hardware_name: 'RTX 3090',
        contact_url: 'mailto:bulk@example.com',
        published_at: ctx.db.fn.now(),
      }));
      return (await ctx.db('marketplace_listings').insert(rows).returning('id')).map((row: { id: string }) => row.id);
    }

    const feed = (query: string) => request(ctx.app).get(`/api/marketplace/feed${query}`);
    const activeIds = async () => (await ctx.db('marketplace_listings').where({ status: 'ACTIVE' }).pluck('id')) as string[];

    it('pages through 250 listings while they change: none skipped, each version once', async () => {
      await manyActive(250);
      const expected = new Set(await activeIds());
      const seen: { id: string; updatedAt: string }[] = [];
      let cursor: string | null = null;
      let pages = 0;
      const updatedLater: string[] = [];
      const updatedEarlier: string[] = [];
      do {
        const res: request.Response = await feed(`?limit=40${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
        expect(res.body.pagination.limit).to.equal(40);
        expect(res.body.listings.length).to.be.at.most(40);
        seen.push(...res.body.listings.map((l: Body) => ({ id: l.id, updatedAt: l.updatedAt })));
        cursor = res.body.pagination.nextCursor;
        expect(res.body.pagination.hasMore).to.equal(cursor !== null);
        pages += 1;
        if (pages === 2) {
          // Between pages: two listings not seen yet and one already seen change.
          const unseen = [...expected].filter((id) => !seen.some((s) => s.id === id));
          updatedLater.push(unseen[0]!, unseen[5]!);
          updatedEarlier.push(seen[3]!.id);
          for (const id of [...updatedLater, ...updatedEarlier]) {
            await ctx
              .db('marketplace_listings')
              .where({ id })
              .update({ title: 'changed', updated_at: ctx.db.raw('clock_timestamp()') });
          }
        }
      } while (cursor && pages < 100);

      const ids = seen.map((s) => s.id);
      expect(new Set(ids), 'every active listing is seen').to.deep.equal(expected);
      // A listing changed after it was read comes again with its new version; every other one exactly once.
      const counts = new Map<string, number>();
      for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
      for (const [id, n] of counts) expect(n, id).to.equal(updatedEarlier.includes(id) ? 2 : 1);
      const versions = new Set(seen.map((s) => `${s.id}@${s.updatedAt}`));
      expect(versions.size, 'no version twice').to.equal(seen.length);
      for (let i = 1; i < seen.length; i += 1) expect(Date.parse(seen[i]!.updatedAt)).to.be.at.least(Date.parse(seen[i - 1]!.updatedAt));
    });

    it('never lets a client pass a listing that commits later with an earlier updatedAt', async () => {
      // X changes in a transaction that stays open (its proof run is rejected, as an admin
      // would), Y is edited by its seller meanwhile; a client reads the feed in between and
      // then polls from the newest updatedAt it saw. Stamped at write time without ordering,
      // Y would commit with a later stamp first and the poll would skip X's new version.
      const run = await submitRun(ctx, alice);
      const x = await seller(ctx, alice).published(listingBody({ title: 'X', benchmarkRunIds: [run.id] }));
      const y = await seller(ctx, bob).published(listingBody({ title: 'Y' }));
      const since = [x.updatedAt, y.updatedAt].sort()[0];

      const slow = await ctx.db.transaction();
      let editDone = false;
      try {
        await slow('speed_test_runs').where({ id: run.id }).update({ status: 'REJECTED' });
        const edit = seller(ctx, bob)
          .patch(y.id, { title: 'Y, edited' })
          .then((res) => {
            editDone = true;
            return res;
          });
        // Wait until the edit has either committed or is waiting for the listing writes lock.
        const waitingForLock = async () =>
          Number((await ctx.db.raw("select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted")).rows[0].n) > 0;
        for (let tries = 0; !editDone && !(await waitingForLock()) && tries < 200; tries += 1)
          await new Promise((resolve) => setTimeout(resolve, 10));

        const seen: Body[] = (await feed(`?updatedSince=${encodeURIComponent(since)}`).expect(200)).body.listings;
        await slow.commit();
        expect((await edit).status).to.equal(200);
        const newest = seen
          .map((l) => l.updatedAt)
          .sort()
          .at(-1);
        seen.push(...(await feed(`?updatedSince=${encodeURIComponent(newest)}`).expect(200)).body.listings);

        const now = (await request(ctx.app).get(`/api/marketplace/${x.id}`).expect(200)).body.listing;
        expect(now.updatedAt, 'the proof change moved X').to.not.equal(x.updatedAt);
        const versions = seen.map((l) => `${l.id}@${l.updatedAt}`);
        expect(versions, "X's new version reached the client").to.include(`${x.id}@${now.updatedAt}`);
        expect(
          seen.some((l) => l.id === y.id && l.title === 'Y, edited'),
          "Y's edit reached the client",
        ).to.equal(true);
      } finally {
        if (!slow.isCompleted()) await slow.rollback();
      }
    });

    it('keeps listings that share one updated_at (to the microsecond) apart by id', async () => {
      const ids = await manyActive(7);
      await ctx.db('marketplace_listings').whereIn('id', ids).update({ updated_at: '2031-01-01T00:00:00.123456Z' });
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: request.Response = await feed(
          `?limit=3&updatedSince=2031-01-01T00:00:00.123456Z${cursor ? `&cursor=${cursor}` : ''}`,
        ).expect(200);
        seen.push(...res.body.listings.map((l: Body) => l.id));
        cursor = res.body.pagination.nextCursor;
      } while (cursor);
      expect(seen).to.deep.equal([...ids].sort());
    });

    it('takes updatedSince inclusively, to the microsecond, in any timezone', async () => {
      const [id] = await manyActive(1);
      await ctx.db('marketplace_listings').where({ id }).update({ updated_at: '2032-05-05T10:00:00.000501Z' });
      const idsOf = async (since: string) =>
        (await feed(`?updatedSince=${encodeURIComponent(since)}`).expect(200)).body.listings.map((l: Body) => l.id);
      expect(await idsOf('2032-05-05T10:00:00.000501Z')).to.deep.equal([id]);
      expect(await idsOf('2032-05-05T12:00:00.000501+02:00')).to.deep.equal([id]);
      expect(await idsOf('2032-05-05T10:00:00.000502Z')).to.deep.equal([]);
      expect(await idsOf('2032-05-05T10:00:00.0005Z')).to.deep.equal([id]);
      expectValidationFailed(await feed('?updatedSince=2032-05-05T10:00:00'), ['updatedSince']);
      expectValidationFailed(await feed('?updatedSince=yesterday'), ['updatedSince']);
    });

    it('refuses a tampered, truncated or made-up cursor with a 400', async () => {
      await manyActive(3);
      const first = await feed('?limit=1').expect(200);
      const cursor: string = first.body.pagination.nextCursor;
      const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
      const bad = [
        cursor.slice(0, -3),
        `${cursor}!`,
        Buffer.from(JSON.stringify([decoded[0], 'not-a-uuid'])).toString('base64url'),
        Buffer.from(JSON.stringify(['2026-13-45T99:00:00.000000Z', decoded[1]])).toString('base64url'),
        Buffer.from(JSON.stringify({ updatedAt: decoded[0], id: decoded[1] })).toString('base64url'),
        Buffer.from('{"x":').toString('base64url'),
      ];
      for (const value of bad) expectValidationFailed(await feed(`?cursor=${encodeURIComponent(value)}`), ['cursor']);
      // A well-formed position anywhere is fine: it is only a place in the order.
      await feed(`?cursor=${encodeFeedCursor({ updatedAt: '2000-01-01T00:00:00.000000Z', id: randomUUID() })}`).expect(200);
      expectValidationFailed(await feed('?limit=0'), ['limit']);
      expectValidationFailed(await feed('?limit=101'), ['limit']);
      expect((await feed('').expect(200)).body.pagination.limit).to.equal(50);
    });

    it('shows only ACTIVE listings', async () => {
      const draft = await seller(ctx, bob).made();
      const sold = await seller(ctx, bob).published();
      await seller(ctx, bob).sold(sold.id).expect(200);
      const all: string[] = [];
      let cursor: string | null = null;
      do {
        const res: request.Response = await feed(`?limit=100${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
        all.push(...res.body.listings.map((l: Body) => l.id));
        for (const listing of res.body.listings) expect(listing.status).to.equal('ACTIVE');
        cursor = res.body.pagination.nextCursor;
      } while (cursor);
      expect(all).to.not.include(draft.id).and.not.include(sold.id);
      expect(new Set(all)).to.deep.equal(new Set(await activeIds()));
    });
  });

  it('tells agents the feed\u2019s paging, the seller\u2019s steps and the image rules in the agent-context', async () => {
    const context = (await request(ctx.app).get('/api/agent-context').expect(200)).body;
    expect(context.marketplace.images).to.include({ maxBytes: IMAGE_MAX_BYTES, maxPixels: 40_000_000, thumbnailMaxWidth: 480 });
    expect(context.marketplace.limits).to.deep.equal({
      title: 200,
      description: 10_000,
      hardwareDetails: 2_000,
      imagesPerListing: 12,
      proofRuns: 10,
    });
    expect(context.endpoints.uploadListingImage).to.include({ method: 'POST', auth: 'key|session' });
    const older = (
      await request(ctx.appWith({ API_REVISION: '2' }))
        .get('/api/agent-context')
        .expect(200)
    ).body;
    expect(older).to.not.have.property('marketplace');
  });

  describe('in revisions 1 and 2', () => {
    for (const revision of ['1', '2']) {
      it(`answers 404 on every marketplace path (revision ${revision})`, async () => {
        const app = ctx.appWith({ API_REVISION: revision });
        const listing = await seller(ctx, alice).published();
        await request(app).get('/api/marketplace/feed').expect(404);
        await request(app).get(`/api/marketplace/${listing.id}`).expect(404);
        await request(app).post('/api/marketplace/listings').set(bearer(alice)).send(listingBody()).expect(404);
        await request(app).get('/api/marketplace/listings/mine').set(bearer(alice)).expect(404);
      });
    }
  });
});
