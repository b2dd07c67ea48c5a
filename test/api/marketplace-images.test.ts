import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import sharp from 'sharp';
import { IMAGE_MAX_BYTES, IMAGE_MAX_PIXELS, IMAGE_THUMB_MAX_WIDTH, processImageUpload } from '../../src/lib/image-pipeline.ts';
import { HttpError } from '../../src/lib/errors.ts';
import { createImagesService } from '../../src/services/images.service.ts';
import { useTestApp, signedUpAgent } from '../helpers/app.ts';

/**
 * The image pipeline (src/lib/image-pipeline.ts) on real files made by sharp here, the image
 * store (src/services/images.service.ts) and the content route's headers.
 */

const GPS_MARK = 'WGS-84-GPS-FIXTURE';

/** A 60x40 JPEG (wider than tall) whose EXIF says "rotate 90° clockwise" (orientation 6) and carries a GPS position. */
async function rotatedJpegWithGps(): Promise<Buffer> {
  return sharp({ create: { width: 60, height: 40, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExif({
      IFD0: { Make: 'TestCam' },
      IFD3: {
        GPSLatitudeRef: 'N',
        GPSLatitude: '48/1 51/1 24/1',
        GPSLongitudeRef: 'E',
        GPSLongitude: '2/1 21/1 3/1',
        GPSMapDatum: GPS_MARK,
      },
    })
    .toBuffer();
}

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();

/** A PNG whose header declares `width` x `height` but whose pixel data is a few bytes: a decompression bomb. */
async function pngBomb(width: number, height: number): Promise<Buffer> {
  const small = await png(1, 1);
  const bomb = Buffer.from(small);
  // IHDR's width and height follow the 8-byte signature, the chunk length and the "IHDR" tag.
  bomb.writeUInt32BE(width, 16);
  bomb.writeUInt32BE(height, 20);
  // Correct the IHDR CRC so only the size is wrong (libpng would otherwise reject the chunk first).
  const { crc32 } = await import('node:zlib');
  bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)) >>> 0, 29);
  return bomb;
}

async function rejection(bytes: Buffer): Promise<HttpError> {
  try {
    await processImageUpload(bytes);
  } catch (error) {
    expect(error).to.be.instanceOf(HttpError);
    return error as HttpError;
  }
  throw new Error('the image was accepted');
}

describe('image pipeline', () => {
  it('applies the EXIF rotation and strips every piece of metadata (no GPS leaves)', async () => {
    const input = await rotatedJpegWithGps();
    const before = await sharp(input).metadata();
    expect(before.orientation, 'the fixture is rotated').to.equal(6);
    expect(input.includes(Buffer.from(GPS_MARK)), 'the fixture carries GPS').to.equal(true);

    const image = await processImageUpload(input);
    expect(image.contentType).to.equal('image/jpeg');
    expect([image.width, image.height]).to.deep.equal([40, 60]);
    for (const variant of [image, image.thumb]) {
      const meta = await sharp(variant.bytes).metadata();
      expect(meta.exif, 'no EXIF').to.equal(undefined);
      expect(meta.xmp, 'no XMP').to.equal(undefined);
      expect(meta.icc, 'no ICC').to.equal(undefined);
      expect(meta.orientation ?? 1).to.equal(1);
      expect(variant.bytes.includes(Buffer.from('TestCam'))).to.equal(false);
      expect(variant.bytes.includes(Buffer.from(GPS_MARK))).to.equal(false);
    }
  });

  it('makes a thumbnail at most 480 px wide, and never enlarges a small image', async () => {
    const wide = await processImageUpload(await png(1200, 600));
    expect([wide.width, wide.height]).to.deep.equal([1200, 600]);
    expect([wide.thumb.width, wide.thumb.height]).to.deep.equal([IMAGE_THUMB_MAX_WIDTH, 240]);
    expect((await sharp(wide.thumb.bytes).metadata()).width).to.equal(IMAGE_THUMB_MAX_WIDTH);

    const small = await processImageUpload(await png(100, 50));
    expect([small.thumb.width, small.thumb.height]).to.deep.equal([100, 50]);
  });

  it('judges the type by content: a PNG named .jpg is a PNG; text named .png is refused', async () => {
    const image = await processImageUpload(await png(20, 20));
    expect(image.contentType).to.equal('image/png');
    const gif = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
      .gif()
      .toBuffer();
    for (const bytes of [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), gif, Buffer.from('not an image at all')]) {
      const error = await rejection(bytes);
      expect(error.status).to.equal(400);
      expect(error.toJSON())
        .to.have.nested.property('details.fieldErrors.image[0]')
        .that.matches(/PNG, JPEG or WebP/);
    }
  });

  it('refuses a decompression bomb quickly, from its header', async () => {
    const bomb = await pngBomb(60_000, 60_000);
    expect(bomb.length).to.be.below(200);
    const started = process.hrtime.bigint();
    const error = await rejection(bomb);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(error.status).to.equal(400);
    expect(error.toJSON())
      .to.have.nested.property('details.fieldErrors.image[0]')
      .that.matches(/40 megapixels/);
    expect(ms, 'refused before decoding').to.be.below(500);
    expect(60_000 * 60_000).to.be.above(IMAGE_MAX_PIXELS);
  });

  it('refuses corrupt and truncated files with a 400 naming the rule', async () => {
    const jpeg = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#888' } })
      .jpeg()
      .toBuffer();
    const truncated = jpeg.subarray(0, Math.floor(jpeg.length / 2));
    const error = await rejection(truncated);
    expect(error.status).to.equal(400);
    expect(error.toJSON())
      .to.have.nested.property('details.fieldErrors.image[0]')
      .that.matches(/could not be decoded/);
  });

  it('refuses more than 8 MiB with a 413', async () => {
    const error = await rejection(Buffer.alloc(IMAGE_MAX_BYTES + 1));
    expect(error.status).to.equal(413);
    expect(error.message).to.match(/8 MiB/);
  });
});

describe('image store and content route', () => {
  const ctx = useTestApp();
  let ownerId = '';

  before(async () => {
    const { username } = await signedUpAgent(ctx.app);
    ownerId = (await ctx.db('users').where({ username }).first('id')).id;
  });

  const images = () => createImagesService({ db: ctx.db, clock: ctx.clock });

  it('serves the full image and the thumbnail with the contract headers, and a 304 on If-None-Match', async () => {
    const stored = await images().store(ownerId, 'listing', await processImageUpload(await png(1000, 500)));
    expect(stored.id).to.match(/^[0-9a-f-]{36}$/);
    expect([stored.width, stored.height, stored.thumbWidth, stored.thumbHeight]).to.deep.equal([1000, 500, 480, 240]);

    const full = await request(ctx.app).get(`/api/marketplace/images/${stored.id}/content`).buffer(true).expect(200);
    expect(full.headers['content-type']).to.equal('image/png');
    expect(full.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(full.headers['cross-origin-resource-policy']).to.equal('cross-origin');
    expect(full.headers['access-control-allow-origin']).to.equal('*');
    expect(full.headers['x-content-type-options']).to.equal('nosniff');
    expect(full.headers.etag).to.match(/^"[\w-]+"$/);
    expect((await sharp(full.body as Buffer).metadata()).width).to.equal(1000);

    const thumb = await request(ctx.app).get(`/api/marketplace/images/${stored.id}/content?variant=thumb`).buffer(true).expect(200);
    expect((await sharp(thumb.body as Buffer).metadata()).width).to.equal(480);
    expect(thumb.headers.etag).to.not.equal(full.headers.etag);

    const again = await request(ctx.app)
      .get(`/api/marketplace/images/${stored.id}/content`)
      .set('If-None-Match', full.headers.etag)
      .expect(304);
    expect(again.headers.etag).to.equal(full.headers.etag);
    expect(again.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    await request(ctx.app).get(`/api/marketplace/images/${stored.id}/content`).set('If-None-Match', '"other"').expect(200);
  });

  it('answers 404 for an unknown or malformed id, and 400 for an unknown variant', async () => {
    await request(ctx.app).get(`/api/marketplace/images/${randomUUID()}/content`).expect(404, { error: 'Image not found' });
    await request(ctx.app).get('/api/marketplace/images/not-a-uuid/content').expect(404, { error: 'Image not found' });
    const stored = await images().store(ownerId, 'report', await processImageUpload(await png(10, 10)));
    await request(ctx.app).get(`/api/marketplace/images/${stored.id}/content?variant=huge`).expect(400);
  });

  it('stops serving an expired image at once, and the sweep deletes it', async () => {
    const service = images();
    const stored = await service.store(ownerId, 'listing', await processImageUpload(await png(10, 10)));
    const now = ctx.clock.now();
    await service.expire([stored.id], new Date(now.getTime() + 1000));
    await request(ctx.app).get(`/api/marketplace/images/${stored.id}/content`).expect(200);
    expect(await service.sweepRemoved(now)).to.equal(0);
    ctx.clock.advance(1000);
    await request(ctx.app).get(`/api/marketplace/images/${stored.id}/content`).expect(404);
    expect(await service.describe([stored.id])).to.deep.equal([]);
    expect(await service.sweepRemoved(ctx.clock.now())).to.equal(1);
    expect(await ctx.db('images').where({ id: stored.id }).first()).to.equal(undefined);
  });

  it('is not there in revisions 1 and 2', async () => {
    const stored = await images().store(ownerId, 'listing', await processImageUpload(await png(10, 10)));
    for (const revision of ['1', '2']) {
      await request(ctx.appWith({ API_REVISION: revision }))
        .get(`/api/marketplace/images/${stored.id}/content`)
        .expect(404);
    }
  });
});
