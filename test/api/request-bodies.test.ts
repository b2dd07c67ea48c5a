import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import request from 'supertest';
import { findInputProblem } from '../../src/lib/validation.ts';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';
import { worstHealthLatencyDuring } from '../helpers/stall.ts';

/**
 * Issue 32 finding 1: a request body is read only for someone the route would serve. An
 * anonymous 15 MB `{"x":[0,0,…]}` to a route that takes 16 MB from key holders used to be
 * buffered, parsed and scanned before its 401 (5.9 s of the event loop each); now the 401
 * comes before the body is read, and the service keeps answering meanwhile.
 */

const SUITES = '/api/benchmarks/suites';
/** The body: 15 MB, 7.9 million array elements. */
const HUGE = Buffer.from(`{"x":[${'0,'.repeat(7_900_000)}0]}`);

interface Answer {
  status: number;
  body: string;
  ms: number;
}

describe('request bodies are read only for callers the route serves (issue 32 finding 1)', () => {
  const ctx = useTestApp({});
  let server: http.Server;
  let port: number;

  before(async () => {
    server = await new Promise((resolve) => {
      const listening = ctx.app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /**
   * A request declaring `declared` bytes that sends only `sent` of them, unless `whole`: the
   * answer arrives only if the server answers without waiting for the rest.
   */
  function post(
    path: string,
    body: Buffer,
    { headers = {}, sendOnly, method = 'POST' }: { headers?: Record<string, string>; sendOnly?: number; method?: string } = {},
  ) {
    const start = performance.now();
    return new Promise<Answer>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent: false,
          headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length), ...headers },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            // The rest of a partly sent body will never come: hang up.
            if (sendOnly !== undefined) req.destroy();
            resolve({ status: res.statusCode!, body: text, ms: performance.now() - start });
          });
        },
      );
      // The server may close the connection after answering while this side still writes.
      req.on('error', (error) => ((error as { code?: string }).code === 'EPIPE' ? undefined : reject(error)));
      if (sendOnly === undefined) req.end(body);
      else req.write(body.subarray(0, sendOnly));
    });
  }

  /** Resolves with `promise`, or rejects after `ms` saying what did not come. */
  const within = <T>(ms: number, what: string, promise: Promise<T>) =>
    Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
    ]);

  it('answers an anonymous write its 401 before the body is sent, and an unknown path its 404', async () => {
    const anonymous = await within(3000, 'anonymous 15 MB write', post(SUITES, HUGE, { sendOnly: 64 * 1024 }));
    expect(anonymous.status).to.equal(401);
    expect(JSON.parse(anonymous.body).error).to.match(/^Authentication required/);
    const unknown = await within(3000, 'unknown path', post('/api/no-such-thing', HUGE, { sendOnly: 64 * 1024 }));
    expect(unknown.status).to.equal(404);
  });

  it('answers an unsigned storage upload its 403 before reading its bytes', async () => {
    const bytes = Buffer.alloc(60 * 1024 * 1024);
    const forged = `/api/benchmarks/storage/objects/some-key?expires=9999999999&signature=${'0'.repeat(64)}`;
    const res = await within(3000, 'unsigned 60 MB upload', post(forged, bytes, { method: 'PUT', sendOnly: 64 * 1024 }));
    expect(res.status).to.equal(403);
  });

  it('answers a declared length over the route’s limit with 413 in the error shape, unread, even to a key holder', async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    const { key } = await createKey(agent, csrf);
    const overSixteen = Buffer.alloc(17 * 1024 * 1024, 0x20);
    const res = await within(
      3000,
      'oversized write',
      post(SUITES, overSixteen, { headers: { Authorization: `Bearer ${key}` }, sendOnly: 1024 }),
    );
    expect(res.status).to.equal(413);
    expect(JSON.parse(res.body)).to.deep.equal({ error: 'Request body is larger than 16 MB' });
    // The 1 MB routes say 1 MB, whatever their neighbours take.
    const keys = await agent
      .post('/api/keys')
      .set('X-CSRF-Token', csrf)
      .type('json')
      .send(`{"name":"${'x'.repeat(1_100_000)}"}`);
    expect(keys.status).to.equal(413);
  });

  it('keeps /healthz under a second while four anonymous 15 MB bodies arrive at once', async () => {
    let answers: Answer[] = [];
    const worst = await worstHealthLatencyDuring(ctx.app, async () => {
      answers = await Promise.all(Array.from({ length: 4 }, () => post(SUITES, HUGE)));
    });
    expect(answers.map((answer) => answer.status)).to.deep.equal([401, 401, 401, 401]);
    expect(worst, 'slowest /healthz (ms)').to.be.below(1000);
  });

  describe('the per-address budget of anonymous writes', () => {
    const limited = useTestApp({ ANONYMOUS_WRITE_LIMIT_PER_MINUTE: '3' });

    it('answers the fourth anonymous write in a minute 429 with Retry-After; signed-in writes and reads are not counted', async () => {
      const { agent, csrf } = await signedUpAgent(limited.app);
      // Sign-up itself was one anonymous write (and its form read is free).
      for (let i = 0; i < 2; i += 1) await request(limited.app).post('/api/speed-tests').send({}).expect(401);
      const over = await request(limited.app).post('/api/speed-tests').send({}).expect(429);
      expect(over.body.error).to.match(/^Too many requests without credentials/);
      expect(Number(over.headers['retry-after'])).to.be.above(0);
      await agent.post('/api/keys').set('X-CSRF-Token', csrf).send({ name: 'still fine' }).expect(201);
      await request(limited.app).get('/healthz').expect(200);
    });
  });
});

describe('the input scan walks arrays by index (issue 32 finding 1)', () => {
  it('never lists an array’s keys (no string per element) and still names the element at fault', () => {
    const elements: unknown[] = [0, 'fine', { note: 'bad\u0000' }];
    const noKeyListing = new Proxy(elements, {
      ownKeys() {
        throw new Error('the scan listed the array’s keys');
      },
    });
    expect(findInputProblem({ x: noKeyListing })).to.deep.equal({ kind: 'nul', path: 'x.2.note' });
    expect(findInputProblem({ x: [0, ['ok', 'lone \ud800']] })).to.deep.equal({ kind: 'notWellFormed', path: 'x.1.1' });
  });
});
