/**
 * The answer cache keeps pages brotli-compressed (src/middleware/read-cache.ts): a kept page costs
 * about a seventh of its bytes, goes out as those bytes to a client that takes brotli, gzipped to
 * one that takes only gzip and plain, byte for byte, to one that takes neither. With an answer
 * file, a page is kept there as made and compressed only when a client that takes brotli asks.
 */
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { BytesByTicket } from '../../src/lib/byte-file.ts';
import { SendBuffers } from '../../src/lib/send-buffers.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { compress } from '../../src/middleware/compression.ts';
import { answerStableUntil, readCache } from '../../src/middleware/read-cache.ts';
import type { RunIndex } from '../../src/runs/read-index/run-index.ts';
import { noReadIndex } from '../../src/runs/read-index/read-index.ts';
import { useTempDirectory } from '../helpers/temp-directory.ts';

/** The options of an answer cache over a ready index whose change count `changes` gives, for these paths. */
const cacheOptions = (
  paths: string[],
  {
    maxBytes = 1 << 20,
    changes = () => 1,
    answerFile = null,
  }: { maxBytes?: number; changes?: () => number; answerFile?: BytesByTicket | null } = {},
) => ({
  readIndex: { ...noReadIndex, current: async () => ({}) as RunIndex, changes },
  paths: new Set(paths),
  clockMoved: new Set<string>(),
  clock: systemClock,
  maxBytes,
  answerFile,
});
const cacheOf = (...args: Parameters<typeof cacheOptions>) => readCache(cacheOptions(...args));

/** An answer's bytes as sent (supertest inflates gzip and brotli), with its headers. */
const rawFrom = (app: express.Express, path: string, accept: string) =>
  request(app)
    .get(path)
    .set('Accept-Encoding', accept)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });

describe('anonymous answers kept compressed', () => {
  const rows = Array.from({ length: 400 }, (_, i) => ({ rank: i + 1, id: `run-${i}`, tokSOut: 10 + (i % 37) / 7, device: 'RTX 4090' }));
  const page = JSON.stringify({ rows, total: rows.length });
  let computed = 0;
  const cache = cacheOf(['/page', '/small']);
  const app = express();
  app.use(compress());
  app.use(cache);
  app.get('/page', (_req, res) => {
    computed += 1;
    res.type('application/json').send(page);
  });
  app.get('/small', (_req, res) => res.json({ ok: true }));

  const raw = (accept: string) => rawFrom(app, '/page', accept);

  it('keeps a page in under a quarter of its bytes and serves it as brotli, gzipped or plain as the client takes it', async () => {
    const first = await raw('identity').expect(200);
    expect(first.headers['x-read-cache']).to.equal('miss');
    expect(first.headers['content-encoding']).to.equal(undefined);
    expect((first.body as Buffer).toString()).to.equal(page);
    expect(cache.keptBytes()).to.be.below(page.length / 4);

    const plain = await raw('identity').expect(200);
    expect(plain.headers['x-read-cache']).to.equal('hit');
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect((plain.body as Buffer).equals(first.body as Buffer)).to.equal(true);

    // The copies for clients that do not take brotli are made once (then kept apart), the same each time.
    for (let i = 0; i < 2; i += 1) {
      const gzipped = await raw('gzip, deflate').expect(200);
      expect(gzipped.headers['x-read-cache']).to.equal('hit');
      expect(gzipped.headers['content-encoding']).to.equal('gzip');
      expect(gzipped.headers.vary).to.match(/Accept-Encoding/i);
      // (supertest inflates what it receives)
      expect((gzipped.body as Buffer).toString()).to.equal(page);
      expect(gzipped.headers.etag).to.equal(first.headers.etag);
    }
    // A client that takes brotli too gets the kept bytes, as the compression middleware prefers it.
    const brotli = await raw('gzip, deflate, br').expect(200);
    expect(brotli.headers['x-read-cache']).to.equal('hit');
    expect(brotli.headers['content-encoding']).to.equal('br');
    expect(brotli.headers.vary).to.match(/Accept-Encoding/i);
    expect((brotli.body as Buffer).toString()).to.equal(page);
    // The kept bytes hold no more memory than their length (not zlib's 16 KB chunk), plus the
    // allowance for key and headers: the cache's budget is what the page costs.
    expect(cache.keptBytes()).to.equal(Number(brotli.headers['content-length']) + 1024);
    // ... unless it prefers gzip.
    const prefersGzip = await raw('br;q=0.5, gzip').expect(200);
    expect(prefersGzip.headers['content-encoding']).to.equal('gzip');
    expect((prefersGzip.body as Buffer).toString()).to.equal(page);
    expect(computed).to.equal(1);
  });

  it('sends a browser the brotli bytes it keeps when it makes the page, and gives every answer of one version one weak ETag', async () => {
    const browserPage = `<!doctype html><title>t</title>${'<p>row</p>'.repeat(500)}`;
    let versions = 1;
    const pages = cacheOf(['/'], { changes: () => versions });
    const site = express();
    site.use(compress());
    site.use(pages);
    site.get('/', (_req, res) => res.send(browserPage));
    const miss = await request(site).get('/').set('Accept-Encoding', 'gzip, deflate, br').expect(200);
    expect(miss.headers['x-read-cache']).to.equal('miss');
    expect(miss.headers['content-encoding']).to.equal('br');
    expect(miss.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(miss.text).to.equal(browserPage);
    expect(miss.headers.etag).to.match(/^W\/"[\w-]+"$/);
    // A client that takes gzip only gets gzip on its own miss too, made from the page as made.
    const gzipMiss = await request(site).get('/?gzip').set('Accept-Encoding', 'gzip').expect(200);
    expect(gzipMiss.headers['x-read-cache']).to.equal('miss');
    expect(gzipMiss.headers['content-encoding']).to.equal('gzip');
    expect(gzipMiss.text).to.equal(browserPage);
    const hit = await request(site).get('/').set('Accept-Encoding', 'br').expect(200);
    expect(hit.headers['x-read-cache']).to.equal('hit');
    expect(hit.headers['content-length']).to.equal(miss.headers['content-length']);
    expect(hit.headers.etag).to.equal(miss.headers.etag);
    await request(site).get('/').set('If-None-Match', miss.headers.etag).expect(304);
    // A change moves the version: the same address answers with another ETag, and an old one is not fresh.
    versions = 2;
    const changed = await request(site).get('/').set('If-None-Match', miss.headers.etag).expect(200);
    expect(changed.headers['x-read-cache']).to.equal('miss');
    expect(changed.headers.etag).to.not.equal(miss.headers.etag);
    // Another process (another epoch) never repeats this one's ETags, though its change count starts anew.
    versions = 1;
    const restarted = express();
    restarted.use(cacheOf(['/']));
    restarted.get('/', (_req, res) => res.send(browserPage));
    const elsewhere = await request(restarted).get('/').expect(200);
    expect(elsewhere.headers.etag).to.match(/^W\//).and.not.equal(miss.headers.etag);
  });

  it('decompresses for every client that takes no compression when no plain copy fits, each getting every byte', async () => {
    // Room for the page compressed, none for a plain copy (an eighth of the budget). Each plain
    // answer is decompressed into one buffer sized to the page: every byte must still arrive.
    expect(page.length)
      .to.be.above((64 << 10) / 8)
      .and.below((64 << 10) - 1024);
    const small = cacheOf(['/page'], { maxBytes: 64 << 10 });
    let made = 0;
    const tight = express();
    tight.use(small);
    tight.get('/page', (_req, res) => {
      made += 1;
      res.type('application/json').send(page);
    });
    await request(tight).get('/page').expect(200);
    expect(small.keptBytes(), 'kept compressed').to.be.below(page.length / 4);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => request(tight).get('/page').set('Accept-Encoding', 'identity').expect(200)),
    );
    for (const answer of answers) {
      expect(answer.headers['x-read-cache']).to.equal('hit');
      expect(answer.headers['content-encoding']).to.equal(undefined);
      expect(answer.text).to.equal(page);
    }
    expect(made).to.equal(1);
  });

  it('serves no copy of an answer that moved with the clock once its moment has passed', async () => {
    // Same key (no change notice) before and after the moment: only the clock tells the answers apart.
    let now = 1_000;
    const until = 2_000;
    const windowed = readCache({
      readIndex: { ...noReadIndex, current: async () => ({}) as RunIndex, changes: () => 1 },
      paths: new Set(['/window']),
      clockMoved: new Set(['since']),
      clock: { now: () => new Date(now) },
      maxBytes: 1 << 20,
    });
    const site = express();
    site.use(windowed);
    site.get('/window', (_req, res) => {
      answerStableUntil(res, now <= until ? until : until + 1_000);
      // Both answers large enough to be kept compressed (and copied): the later one lacks the first row.
      const runs = now <= until ? rows : rows.slice(1);
      res.type('application/json').send(JSON.stringify({ runs, total: runs.length }));
    });
    for (const accept of ['identity', 'gzip']) {
      now = 1_000;
      const ask = () => request(site).get(`/window?since=7d&for=${accept}`).set('Accept-Encoding', accept).expect(200);
      expect((await ask()).headers['x-read-cache']).to.equal('miss');
      const before = await ask(); // the hit makes the copy for this encoding
      expect(before.headers['x-read-cache']).to.equal('hit');
      expect(before.body.total).to.equal(rows.length);
      now = until + 1;
      expect((await ask()).body.total, accept).to.equal(rows.length - 1);
      const again = await ask();
      expect(again.headers['x-read-cache']).to.equal('hit');
      expect(again.body.total, `${accept}: the copy of the answer before the moment is gone`).to.equal(rows.length - 1);
    }
  });

  it('keeps a small answer as it is', async () => {
    const first = await request(app).get('/small').expect(200);
    const before = cache.keptBytes();
    await new Promise((r) => setTimeout(r, 50));
    const again = await request(app).get('/small').set('Accept-Encoding', 'gzip').expect(200);
    expect(again.headers['x-read-cache']).to.equal('hit');
    expect(again.headers['content-encoding']).to.equal(undefined);
    expect(again.body).to.deep.equal(first.body);
    expect(cache.keptBytes()).to.equal(before);
  });
});

describe('anonymous answers kept as made in the answer file', () => {
  const rows = Array.from({ length: 400 }, (_, i) => ({ rank: i + 1, id: `run-${i}`, tokSOut: 10 + (i % 37) / 7, device: 'RTX 4090' }));
  const directory = useTempDirectory('answer-file-test-');
  let made = 0;
  /** A site whose `/page?n=N` pages are large enough to be kept in the file (each its own text). */
  function siteWith(cache: ReturnType<typeof cacheOf>) {
    const site = express();
    site.use(compress());
    site.use(cache);
    site.get('/page', (req, res) => {
      made += 1;
      res.type('application/json').send(JSON.stringify({ n: req.query.n ?? '0', rows }));
    });
    return site;
  }
  const pageText = (n: string) => JSON.stringify({ n, rows });
  const fileOf = (capacity: number) => directory.closeAfter(new BytesByTicket(capacity, directory.path()));

  beforeEach(() => {
    made = 0;
  });

  it('keeps a page as made in the file, compressing it only when a client that takes brotli asks, once', async () => {
    const answerFile = fileOf(1 << 20);
    const cache = cacheOf(['/page'], { answerFile });
    const site = siteWith(cache);
    const first = await rawFrom(site, '/page', 'identity').expect(200);
    expect(first.headers['x-read-cache']).to.equal('miss');
    expect((first.body as Buffer).toString()).to.equal(pageText('0'));
    // Nothing of the page in memory: only the allowance for its key and headers.
    expect(cache.keptBytes()).to.equal(1024);
    expect([answerFile.size, answerFile.heldBytes]).to.deep.equal([1, pageText('0').length]);
    const plain = await rawFrom(site, '/page', 'identity').expect(200);
    expect(plain.headers['x-read-cache']).to.equal('hit');
    expect((plain.body as Buffer).equals(first.body as Buffer)).to.equal(true);
    const gzipped = await rawFrom(site, '/page', 'gzip').expect(200);
    expect([gzipped.headers['x-read-cache'], gzipped.headers['content-encoding']]).to.deep.equal(['hit', 'gzip']);
    expect((gzipped.body as Buffer).toString()).to.equal(pageText('0'));
    expect(cache.keptBytes()).to.equal(1024);
    // The first client that takes brotli: compressed now and kept with the page, then served as kept.
    const brotli = await rawFrom(site, '/page', 'gzip, deflate, br').expect(200);
    expect([brotli.headers['x-read-cache'], brotli.headers['content-encoding']]).to.deep.equal(['hit', 'br']);
    expect((brotli.body as Buffer).toString()).to.equal(pageText('0'));
    const compressedLength = Number(brotli.headers['content-length']);
    expect(compressedLength).to.be.below(pageText('0').length / 4);
    expect(cache.keptBytes()).to.equal(compressedLength + 1024);
    const brotliAgain = await rawFrom(site, '/page', 'br').expect(200);
    expect(brotliAgain.headers['content-length']).to.equal(brotli.headers['content-length']);
    expect(cache.keptBytes()).to.equal(compressedLength + 1024);
    for (const res of [first, plain, gzipped, brotli, brotliAgain]) expect(res.headers.etag).to.equal(first.headers.etag);
    expect(made).to.equal(1);
  });

  it('sends plain hits from the file in buffers reused once sent, every client getting its own page whole', async () => {
    const sendBuffers = new SendBuffers();
    const site = siteWith(readCache({ ...cacheOptions(['/page']), answerFile: fileOf(1 << 20), sendBuffers }));
    const pages = ['1', '2', '3'];
    for (const n of pages) await rawFrom(site, `/page?n=${n}`, 'identity').expect(200);
    // Many at once, over pages of different bytes: a buffer reused before its response had gone would mix them.
    const hits = await Promise.all(Array.from({ length: 24 }, (_, i) => rawFrom(site, `/page?n=${pages[i % 3]}`, 'identity').expect(200)));
    hits.forEach((hit, i) =>
      expect([hit.headers['x-read-cache'], (hit.body as Buffer).toString()]).to.deep.equal(['hit', pageText(pages[i % 3]!)]),
    );
    const reusable = sendBuffers.kept;
    expect(reusable).to.be.within(1, 24);
    // One at a time, each takes a buffer given back and gives it back again.
    for (const n of pages) await rawFrom(site, `/page?n=${n}`, 'identity').expect(200);
    expect(sendBuffers.kept).to.equal(reusable);
    expect(made).to.equal(3);
  });

  it("sends a browser's miss compressed, and keeps that with the page", async () => {
    const cache = cacheOf(['/page'], { answerFile: fileOf(1 << 20) });
    const site = siteWith(cache);
    const miss = await rawFrom(site, '/page', 'gzip, br').expect(200);
    expect([miss.headers['x-read-cache'], miss.headers['content-encoding']]).to.deep.equal(['miss', 'br']);
    expect((miss.body as Buffer).toString()).to.equal(pageText('0'));
    expect(cache.keptBytes()).to.equal(Number(miss.headers['content-length']) + 1024);
    const plain = await rawFrom(site, '/page', 'identity').expect(200);
    expect([plain.headers['x-read-cache'], (plain.body as Buffer).toString()]).to.deep.equal(['hit', pageText('0')]);
    expect(made).to.equal(1);
  });

  it('makes a page again once the file has written another over it', async () => {
    // Room for one page: the second is written over the first.
    const length = pageText('1').length;
    const site = siteWith(cacheOf(['/page'], { answerFile: fileOf(length + length / 2) }));
    for (const n of ['1', '2'])
      expect((await rawFrom(site, `/page?n=${n}`, 'identity').expect(200)).headers['x-read-cache']).to.equal('miss');
    expect(made).to.equal(2);
    for (const accept of ['identity', 'br']) {
      const again = await rawFrom(site, '/page?n=1', accept).expect(200);
      expect((again.body as Buffer).toString(), accept).to.equal(pageText('1'));
    }
    expect(made, 'made again once, then served').to.equal(3);
  });

  it('keeps a page compressed in memory when the file cannot take it', async () => {
    const closed = fileOf(1 << 20);
    closed.close();
    const cache = cacheOf(['/page'], { answerFile: closed });
    const site = siteWith(cache);
    await rawFrom(site, '/page', 'identity').expect(200);
    expect(cache.keptBytes())
      .to.be.above(1024)
      .and.below(pageText('0').length / 4);
    const hit = await rawFrom(site, '/page', 'identity').expect(200);
    expect([hit.headers['x-read-cache'], (hit.body as Buffer).toString()]).to.deep.equal(['hit', pageText('0')]);
    expect(made).to.equal(1);
  });
});
