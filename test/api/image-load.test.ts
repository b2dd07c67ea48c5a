import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import sharp from 'sharp';
import { IMAGE_PROCESSING_AT_ONCE, IMAGE_PROCESSING_WAITING, imageContentPath } from '../../src/lib/image-pipeline.ts';
import { messages } from '../../src/messages.ts';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';

/**
 * Issue 32 findings 2 and 3, measured the way the probe did: a real listening server, the
 * attack from many connections at once, and the rest of the site probed meanwhile.
 * Finding 2: four concurrent uploads of large images used to hold all four libuv threads
 * (re-encoding) and stall every GET 8-30 s. Finding 3: 60 anonymous downloads of an 8 MB
 * image each held a pooled connection while the bytes arrived: 40 of 60 answered 503.
 */

interface Answer {
  status: number;
  bytes: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

describe('image work under load (issue 32 findings 2 and 3)', function () {
  this.timeout(180_000);
  const ctx = useTestApp();
  let port: number;
  let server: http.Server;
  let key: string;
  const agent = new http.Agent({ keepAlive: false, maxSockets: 500 });

  before(async () => {
    server = await new Promise((resolve) => {
      const listening = ctx.app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    port = (server.address() as AddressInfo).port;
    const { agent: browser, csrf } = await signedUpAgent(ctx.app);
    key = (await createKey(browser, csrf)).key;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** One request; the body is counted (kept as text only when small). */
  function send(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
        let bytes = 0;
        let text = '';
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (text.length < 4096) text += chunk.toString('utf8');
        });
        res.on('end', () => resolve({ status: res.statusCode!, bytes, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  function upload(image: Buffer): Promise<Answer> {
    const boundary = 'image-load-boundary';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="big"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      image,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return send(
      'POST',
      '/api/reports/images',
      { Authorization: `Bearer ${key}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body,
    );
  }

  /** The slowest of a few GETs of each of `paths` with nothing else going on: what the machine gives anyway. */
  async function baseline(paths: string[]): Promise<number> {
    let slowest = 0;
    for (let round = 0; round < 5; round += 1)
      for (const path of paths) {
        const start = performance.now();
        await send('GET', path);
        slowest = Math.max(slowest, performance.now() - start);
      }
    return slowest;
  }

  /** Runs `attack` while GETting each of `paths` in turn; the slowest answer per path, and their statuses. */
  async function probeDuring<T>(paths: string[], attack: Promise<T>) {
    let attacking = true;
    const settled = attack.finally(() => {
      attacking = false;
    });
    const slowest = new Map(paths.map((path) => [path, 0]));
    const statuses = new Set<number>();
    let rounds = 0;
    while (attacking || rounds < 2) {
      for (const path of paths) {
        const start = performance.now();
        statuses.add((await send('GET', path)).status);
        slowest.set(path, Math.max(slowest.get(path)!, performance.now() - start));
      }
      rounds += 1;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return { result: await settled, slowest: Object.fromEntries(slowest), statuses: [...statuses], rounds };
  }

  it('finding 2: while six large images are uploaded at once, /healthz and a static file answer within a second of their usual time; past the queue the upload path alone says 503', async () => {
    // 36 megapixels: seconds of libvips work each (a flat colour keeps the fixture cheap to make).
    const large = await sharp({ create: { width: 6000, height: 6000, channels: 3, background: '#557799' } })
      .jpeg({ quality: 90 })
      .toBuffer();
    // A second on top of what the same GETs take on this machine right now (a busy machine's slowness is not a stall).
    const allowed = 1000 + (await baseline(['/healthz', '/css/site.css']));
    const {
      result: answers,
      slowest,
      statuses,
    } = await probeDuring(['/healthz', '/css/site.css'], Promise.all(Array.from({ length: 6 }, () => upload(large))));
    expect(statuses).to.deep.equal([200]);
    expect(slowest['/healthz'], 'slowest /healthz (ms)').to.be.below(allowed);
    expect(slowest['/css/site.css'], 'slowest static file (ms)').to.be.below(allowed);
    const stored = answers.filter((answer) => answer.status === 201);
    const busy = answers.filter((answer) => answer.status === 503);
    expect(stored.length + busy.length, 'every upload stored or refused as busy').to.equal(6);
    expect(stored.length).to.be.at.least(IMAGE_PROCESSING_AT_ONCE + IMAGE_PROCESSING_WAITING);
    expect(busy.length, 'the sixth finds the queue full').to.be.at.least(1);
    expect(JSON.parse(busy[0]!.text)).to.deep.equal({ error: messages.imagesBusy });
    expect(Number(busy[0]!.headers['retry-after'])).to.be.above(0);
  });

  it('finding 3: 60 anonymous downloads of an 8 MB image at once all get the image (no 503), and the site keeps answering', async () => {
    // Noise does not compress: the stored PNG stays near 8 MB.
    const side = 1600;
    const noise = randomBytes(side * side * 3);
    const image = await sharp(noise, { raw: { width: side, height: side, channels: 3 } })
      .png({ compressionLevel: 1 })
      .toBuffer();
    const stored = await upload(image);
    expect(stored.status, stored.text).to.equal(201);
    const path = imageContentPath(JSON.parse(stored.text).id);
    const { result: downloads, statuses } = await probeDuring(
      ['/healthz', '/css/site.css'],
      Promise.all(Array.from({ length: 60 }, () => send('GET', path))),
    );
    const byStatus = downloads.reduce<Record<number, number>>((counts, answer) => {
      counts[answer.status] = (counts[answer.status] ?? 0) + 1;
      return counts;
    }, {});
    expect(byStatus).to.deep.equal({ 200: 60 });
    expect(downloads[0]!.bytes).to.be.above(7_000_000);
    expect(new Set(downloads.map((answer) => answer.bytes)).size, 'every download whole').to.equal(1);
    expect(statuses).to.deep.equal([200]);
  });
});
