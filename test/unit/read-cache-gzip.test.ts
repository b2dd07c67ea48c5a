/**
 * The answer cache keeps pages gzipped (src/middleware/read-cache.ts): once compressed on the
 * thread pool, a kept page costs about a seventh of its bytes, goes out as those bytes to a
 * client that accepts gzip and inflated, byte for byte, to one that does not.
 */
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { systemClock } from '../../src/lib/clock.ts';
import { compress } from '../../src/middleware/compression.ts';
import { readCache } from '../../src/middleware/read-cache.ts';
import type { RunIndex } from '../../src/runs/read-index/run-index.ts';
import { noReadIndex } from '../../src/runs/read-index/read-index.ts';

describe('anonymous answers kept gzipped', () => {
  const rows = Array.from({ length: 400 }, (_, i) => ({ rank: i + 1, id: `run-${i}`, tokSOut: 10 + (i % 37) / 7, device: 'RTX 4090' }));
  const page = JSON.stringify({ rows, total: rows.length });
  let computed = 0;
  const cache = readCache({
    readIndex: { ...noReadIndex, current: async () => ({}) as RunIndex, changes: () => 1 },
    paths: new Set(['/page', '/small']),
    clockMoved: new Set(),
    clock: systemClock,
    maxBytes: 1 << 20,
  });
  const app = express();
  app.use(compress());
  app.use(cache);
  app.get('/page', (_req, res) => {
    computed += 1;
    res.type('application/json').send(page);
  });
  app.get('/small', (_req, res) => res.json({ ok: true }));

  /** An answer's bytes (supertest inflates gzip), with its headers as sent. */
  const raw = (accept: string) =>
    request(app)
      .get('/page')
      .set('Accept-Encoding', accept)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });

  it('keeps a page in under a quarter of its bytes and serves it gzipped, inflated or as brotli as the client takes it', async () => {
    const first = await raw('identity').expect(200);
    expect(first.headers['x-read-cache']).to.equal('miss');
    expect((first.body as Buffer).toString()).to.equal(page);
    // Compressed on the thread pool after the answer went out.
    for (let i = 0; i < 100 && cache.keptBytes() > page.length / 4; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(cache.keptBytes()).to.be.below(page.length / 4);

    const plain = await raw('identity').expect(200);
    expect(plain.headers['x-read-cache']).to.equal('hit');
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect((plain.body as Buffer).equals(first.body as Buffer)).to.equal(true);

    const gzipped = await raw('gzip, deflate').expect(200);
    expect(gzipped.headers['x-read-cache']).to.equal('hit');
    expect(gzipped.headers['content-encoding']).to.equal('gzip');
    expect(gzipped.headers.vary).to.match(/Accept-Encoding/i);
    // (supertest inflates what it receives)
    expect((gzipped.body as Buffer).toString()).to.equal(page);
    expect(gzipped.headers.etag).to.equal(first.headers.etag);
    // A client that takes brotli too gets it, as the compression middleware prefers it.
    const brotli = await raw('gzip, deflate, br').expect(200);
    expect(brotli.headers['x-read-cache']).to.equal('hit');
    expect(brotli.headers['content-encoding']).to.equal('br');
    expect((brotli.body as Buffer).toString()).to.equal(page);
    expect(computed).to.equal(1);
  });

  it('inflates for every client that does not take gzip when no inflated copy fits, each getting every byte', async () => {
    // Room for the page as sent (then gzipped), none for an inflated copy (a quarter of the budget).
    expect(page.length)
      .to.be.above((64 << 10) / 4)
      .and.below((64 << 10) - 1024);
    const small = readCache({
      readIndex: { ...noReadIndex, current: async () => ({}) as RunIndex, changes: () => 1 },
      paths: new Set(['/page']),
      clockMoved: new Set(),
      clock: systemClock,
      maxBytes: 64 << 10,
    });
    let made = 0;
    const tight = express();
    tight.use(small);
    tight.get('/page', (_req, res) => {
      made += 1;
      res.type('application/json').send(page);
    });
    await request(tight).get('/page').expect(200);
    for (let i = 0; i < 100 && small.keptBytes() > page.length / 4; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(small.keptBytes(), 'kept gzipped').to.be.below(page.length / 4);
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
