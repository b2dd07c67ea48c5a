import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import express, { type Express } from 'express';
import request from 'supertest';
import { seedDemoCatalogue } from '../../src/db/seeds/demo-models.ts';
import { seedDemoRuns } from '../../src/db/seeds/demo-runs.ts';
import { COMPRESSION_THRESHOLD_BYTES, compress } from '../../src/middleware/compression.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { useTestApp } from '../helpers/app.ts';

/** What `/` may weigh on the wire with compression (the budget). */
const HOME_BUDGET_BYTES = 25 * 1024;

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they crossed the wire (still compressed). */
  wire: Buffer;
  /** The body decoded by its Content-Encoding. */
  text: string;
}

function decode(wire: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'br') return zlib.brotliDecompressSync(wire);
  if (encoding === 'gzip') return zlib.gunzipSync(wire);
  if (encoding === undefined) return wire;
  throw new Error(`unexpected Content-Encoding ${encoding}`);
}

/** A GET through a real socket, without any client-side decoding, so the bytes can be counted. */
async function rawGet(app: Express, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<RawAnswer>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const wire = Buffer.concat(chunks);
            const encoding = res.headers['content-encoding'];
            resolve({ status: res.statusCode!, headers: res.headers, wire, text: decode(wire, encoding).toString('utf8') });
          });
          res.on('error', reject);
        })
        .on('error', reject);
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('page weight: compression and static caching', () => {
  // strict: the demo runs are seeded straight into the database, and the first page must show them.
  const ctx = useTestApp({ READ_INDEX_FRESHNESS: 'strict' });

  before(async function () {
    this.timeout(60_000);
    // Demo data as the quick start seeds it: enough single-stream runs for a full first page of 50.
    await seedDemoCatalogue(ctx.db);
    await seedDemoRuns(ctx.db, getRevisionProfile(ctx.config.revision), { runs: 150, now: ctx.clock.now() });
  });

  for (const encoding of ['br', 'gzip'] as const) {
    it(`sends / with 50 runs in at most 25 KB with Accept-Encoding: ${encoding}`, async () => {
      const res = await rawGet(ctx.app, '/', { 'Accept-Encoding': encoding });
      expect(res.status).to.equal(200);
      expect(res.headers['content-encoding']).to.equal(encoding);
      expect(res.headers.vary).to.match(/Accept-Encoding/i);
      // The page's first 50 single-stream runs, as the API ranks them, are all on it.
      const { body } = await request(ctx.app).get('/api/leaderboard').query({ batchSize: 1, limit: 50 }).expect(200);
      const ids = body.rows as { id: string }[];
      expect(ids).to.have.length(50);
      for (const { id } of ids) expect(res.text, `run ${id} on the page`).to.include(`/runs/${id}`);
      expect(res.text).to.include('</html>');
      expect(res.wire.length, `bytes on the wire (${Buffer.byteLength(res.text)} uncompressed)`).to.be.at.most(HOME_BUDGET_BYTES);
    });
  }

  it('prefers brotli when the client takes both, and sends plain HTML to a client that asks for none', async () => {
    const both = await rawGet(ctx.app, '/', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(both.headers['content-encoding']).to.equal('br');
    const plain = await rawGet(ctx.app, '/', {});
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.text).to.equal(both.text);
    expect(plain.wire.length).to.be.above(HOME_BUDGET_BYTES);
  });

  it('compresses JSON answers and CSV exports, and leaves small answers alone', async () => {
    const json = await rawGet(ctx.app, '/api/leaderboard?limit=50', { 'Accept-Encoding': 'br' });
    expect(json.headers['content-encoding']).to.equal('br');
    expect(JSON.parse(json.text)).to.be.an('object');
    expect(json.wire.length).to.be.below(Buffer.byteLength(json.text) / 3);
    const csv = await rawGet(ctx.app, '/api/leaderboard?format=csv', { 'Accept-Encoding': 'gzip' });
    expect(csv.status).to.equal(200);
    expect(csv.headers['content-type']).to.match(/^text\/csv/);
    expect(csv.headers['content-encoding']).to.equal('gzip');
    expect(csv.text.split('\n')[0]).to.match(/^"?rank"?,/);
    const small = await rawGet(ctx.app, '/api/me', { 'Accept-Encoding': 'br' });
    expect(small.status).to.equal(401);
    expect(small.wire.length).to.be.below(1024);
    expect(small.headers['content-encoding']).to.equal(undefined);
  });

  it('links fingerprinted CSS and scripts, kept for a year, and the hash follows the content', async () => {
    const page = await rawGet(ctx.app, '/methodology', {});
    const css = /<link rel="stylesheet" href="(\/static\/css\/site\.([0-9a-f]+)\.css)">/.exec(page.text);
    expect(css, 'stylesheet link').to.not.equal(null);
    const content = readFileSync(new URL('../../public/css/site.css', import.meta.url));
    expect(createHash('sha256').update(content).digest('hex')).to.match(new RegExp(`^${css![2]}`));
    const scripts = [...page.text.matchAll(/<script src="([^"]+)" defer><\/script>/g)].map((m) => m[1]!);
    expect(scripts).to.have.length.greaterThan(1);
    for (const address of [css![1]!, ...scripts]) {
      expect(address).to.match(/^\/static\/.+\.[0-9a-f]{12}\.(css|js)$/);
      const res = await rawGet(ctx.app, address, { 'Accept-Encoding': 'br' });
      expect(res.status, address).to.equal(200);
      expect(res.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      if (res.wire.length > COMPRESSION_THRESHOLD_BYTES) expect(res.headers['content-encoding'], address).to.equal('br');
    }
    const served = await rawGet(ctx.app, css![1]!, {});
    expect(Buffer.from(served.text)).to.deep.equal(content);
  });

  it('answers 404 for a stale fingerprint, and serves plain addresses with a short cache', async () => {
    expect((await rawGet(ctx.app, '/static/css/site.000000000000.css')).status).to.equal(404);
    expect((await rawGet(ctx.app, '/static/css/site.css')).status).to.equal(404);
    const plain = await rawGet(ctx.app, '/css/site.css', {});
    expect(plain.status).to.equal(200);
    expect(plain.headers['cache-control']).to.equal('public, max-age=300');
  });
});

describe('compression of streamed answers', () => {
  it('delivers each piece of a compressed stream while the stream is still open', async function () {
    this.timeout(10_000);
    // A stream that writes one line and waits until the client has it: without a flush the
    // line would sit in the compressor and the stream would never end.
    let received: () => void = () => {};
    const clientHasFirstLine = new Promise<void>((resolve) => (received = resolve));
    const app = express();
    app.use(compress());
    app.get('/stream', async (_req, res) => {
      res.type('application/x-ndjson');
      res.write(`${JSON.stringify({ line: 1, padding: 'x'.repeat(2000) })}\n`);
      await clientHasFirstLine;
      res.end(`${JSON.stringify({ line: 2 })}\n`);
    });
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const lines = await new Promise<string[]>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/stream', headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
            expect(res.headers['content-encoding']).to.equal('gzip');
            const gunzip = zlib.createGunzip();
            let text = '';
            gunzip.on('data', (chunk: Buffer) => {
              text += chunk.toString('utf8');
              if (text.includes('"line":1')) received();
            });
            gunzip.on('end', () => resolve(text.trim().split('\n')));
            gunzip.on('error', reject);
            res.pipe(gunzip);
          })
          .on('error', reject);
      });
      expect(lines.map((line) => JSON.parse(line).line)).to.deep.equal([1, 2]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
