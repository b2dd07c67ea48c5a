import { expect } from 'chai';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app.ts';
import { createHubClient } from '../../src/clients/hub.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createDb, migrateLatest, type Db } from '../../src/db/knex.ts';
import { createLogger } from '../../src/logger.ts';
import { createKey, logSink, signedUpAgent, testConfig } from '../helpers/app.ts';
import { TestClock } from '../helpers/clock.ts';
import { startFakeHub, type FakeHub } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';

/**
 * The fault test: the app on a Postgres of its own (embedded, in a temporary data dir),
 * under a steady load of API reads, session page views and submissions, while that Postgres
 * is stopped (fast shutdown) for a few seconds and started again on the same port.
 */

const UNAVAILABLE = { error: 'Service temporarily unavailable, retry later' };
/** A request still unanswered after this long counts as hung. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Each load loop's pause between requests: steady, not a flood. */
const PAUSE_MS = 20;
/** The load runs this long after every loop has had a success, before Postgres is stopped. */
const WARM_UP_MS = 500;
const OUTAGE_MS = 3_000;
const AFTER_RESTART_MS = 5_000;
const READERS = 2;
const SUBMITTERS = 3;
/** Revision 3 lets a user submit once a minute; each submitter moves the app's clock past it. */
const SUBMISSION_WINDOW_MS = 60_000;

type Kind = 'api read' | 'page' | 'submission';

interface Outcome {
  kind: Kind;
  /** 0 when no answer came (timeout or connection error). */
  status: number;
  retryAfter: string | null;
  contentType: string;
  body: string;
  error?: string;
  startedAt: number;
  endedAt: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a database outage under load (fault test)', function () {
  this.timeout(90_000);

  let dataDir: string;
  let postgres: EmbeddedDatabase;
  let db: Db;
  let hub: FakeHub;
  let app: ReturnType<typeof createApp>;
  let server: Server;
  let base: string;
  const clock = new TestClock();
  const logs: Record<string, unknown>[] = [];

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'bh-outage-'));
    // As root the embedded server runs as `postgres`, which must be able to enter the dir.
    chmodSync(dataDir, 0o755);
    postgres = await startEmbeddedPostgres(path.join(dataDir, 'db'));
    const logger = createLogger('info', logSink(logs));
    db = createDb(postgres.url, {}, logger);
    await migrateLatest(db);
    hub = await startFakeHub();
    app = createApp({
      db,
      config: testConfig({ HF_ENDPOINT: hub.url }),
      logger,
      databaseUrl: postgres.url,
      clock,
      hub: createHubClient({ endpoint: hub.url, timeoutMs: 1000 }),
    });
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    if (server) await new Promise((resolve) => server.close(resolve));
    await app?.locals.close();
    await db?.destroy();
    await hub?.close();
    await postgres?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function call(kind: Kind, urlPath: string, init: RequestInit = {}): Promise<Outcome> {
    const startedAt = Date.now();
    try {
      const res = await fetch(`${base}${urlPath}`, { ...init, redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const body = await res.text();
      const answer = {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        contentType: res.headers.get('content-type') ?? '',
        body,
      };
      return { kind, ...answer, startedAt, endedAt: Date.now() };
    } catch (error) {
      return {
        kind,
        status: 0,
        retryAfter: null,
        contentType: '',
        body: '',
        error: `${String(error)} ${String((error as Error).cause ?? '')}`,
        startedAt,
        endedAt: Date.now(),
      };
    }
  }

  it('answers 503 with Retry-After during the outage, never 500 or a hung request, is back within 5 s, and stores exactly the runs it answered 201 to', async () => {
    const keys: string[] = [];
    for (let i = 0; i < SUBMITTERS; i++) {
      const { agent, csrf } = await signedUpAgent(app);
      keys.push((await createKey(agent, csrf)).key);
    }
    // A session of its own (the sign-up form stores one), so page views load it from the store.
    const signUpForm = await request(app).get('/signup').expect(200);
    const sessionCookie = signUpForm.headers['set-cookie']![0]!.split(';')[0]!;

    const outcomes: Outcome[] = [];
    let loading = true;
    async function loop(next: () => Promise<Outcome>): Promise<void> {
      while (loading) {
        outcomes.push(await next());
        await sleep(PAUSE_MS);
      }
    }
    const submit = (key: string) => () => {
      clock.advance(SUBMISSION_WINDOW_MS + 1_000);
      return call('submission', '/api/speed-tests', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(validSubmission()),
      });
    };
    const loops = [
      ...Array.from({ length: READERS }, () => loop(() => call('api read', '/api/leaderboard'))),
      loop(() => call('page', '/', { headers: { cookie: sessionCookie } })),
      ...keys.map((key) => loop(submit(key))),
    ];

    // Warm: every submitter has had a run accepted and each kind of read an answer.
    while (
      outcomes.filter((o) => o.status === 201).length < SUBMITTERS ||
      !outcomes.some((o) => o.kind === 'page' && o.status === 200) ||
      !outcomes.some((o) => o.kind === 'api read' && o.status === 200)
    ) {
      expect(
        outcomes.filter((o) => o.status !== 200 && o.status !== 201).map((o) => o.body),
        'answers before the outage',
      ).to.deep.equal([]);
      await sleep(50);
    }
    await sleep(WARM_UP_MS);
    // Nothing may reach the console either (Express prints the errors it is left with).
    const printed: unknown[][] = [];
    const consoleMethods = { log: console.log, warn: console.warn, error: console.error };
    for (const name of ['log', 'warn', 'error'] as const) console[name] = (...args: unknown[]) => printed.push(args);
    let stopping: number, down: number, starting: number, accepting: number;
    try {
      stopping = Date.now();
      await postgres.stopServer();
      down = Date.now();
      await sleep(OUTAGE_MS);
      starting = Date.now();
      await postgres.startServer();
      accepting = Date.now();
      await sleep(AFTER_RESTART_MS);
    } finally {
      loading = false;
      await Promise.all(loops);
      Object.assign(console, consoleMethods);
    }
    expect(
      printed.map((args) => args.map(String).join(' ')),
      'printed to the console',
    ).to.deep.equal([]);

    const show = (o: Outcome) =>
      `${o.kind} ${o.status}${o.error ? ` (${o.error})` : ''} at +${o.startedAt - stopping} ms: ${o.body.slice(0, 200)}`;

    // Every request got an answer in time, and only the ones expected.
    const allowed: Record<Kind, number[]> = { 'api read': [200, 503], page: [200, 503], submission: [201, 503] };
    const unexpected = outcomes.filter((o) => !allowed[o.kind].includes(o.status));
    expect(unexpected.map(show), 'answers other than 2xx/503 (500s, hung or dropped requests)').to.deep.equal([]);

    // Every 503 is the contract's.
    const unavailable = outcomes.filter((o) => o.status === 503);
    for (const o of unavailable) {
      expect(o.retryAfter, show(o)).to.equal('5');
      if (o.kind === 'page') {
        expect(o.contentType, show(o)).to.match(/^text\/html/);
        expect(o.body, show(o)).to.include('We can&#39;t reach our database right now.');
      } else {
        expect(JSON.parse(o.body), show(o)).to.deep.equal(UNAVAILABLE);
      }
    }
    // While Postgres was down, everything that needs it was a 503.
    const duringOutage = outcomes.filter((o) => o.startedAt >= down && o.endedAt <= starting);
    expect(duringOutage.length, 'requests made while Postgres was down').to.be.greaterThan(10);
    expect(duringOutage.filter((o) => o.status !== 503).map(show)).to.deep.equal([]);
    for (const kind of ['api read', 'page', 'submission'] as const) {
      expect(
        duringOutage.some((o) => o.kind === kind),
        `a ${kind} during the outage`,
      ).to.equal(true);
    }

    // Back within 5 s of Postgres accepting connections.
    const firstReadBack = outcomes.find((o) => o.kind === 'api read' && o.startedAt >= accepting && o.status === 200);
    expect(firstReadBack, 'a successful read after the restart').to.exist;
    expect(firstReadBack!.endedAt - accepting).to.be.below(5_000);
    expect(
      outcomes.some((o) => o.kind === 'submission' && o.startedAt >= accepting && o.status === 201),
      'a submission accepted after the restart',
    ).to.equal(true);

    // Every 201 is stored, and nothing is stored without its 201. A submission cut before its
    // COMMIT is rolled back by Postgres, and nothing runs after the COMMIT that could fail the
    // request (the run is read back inside the transaction). What no server can rule out is a
    // COMMIT that succeeds while its reply is lost; Idempotency-Key retries cover that case.
    const answeredCreated = outcomes.filter((o) => o.status === 201).map((o) => (JSON.parse(o.body) as { id: string }).id);
    const stored = (await db('speed_test_runs').select('id')).map((row: { id: string }) => row.id);
    expect(new Set(stored)).to.deep.equal(new Set(answeredCreated));
    expect(stored.length).to.equal(answeredCreated.length);

    // The outage is logged once as it starts and once as it ends; no request logs an error or a stack.
    const messages = logs.map((line) => String(line.msg));
    expect(
      messages.filter((m) => m.startsWith('database unavailable: ')),
      'outage lines',
    ).to.have.length(1);
    expect(
      messages.filter((m) => m === 'database available again'),
      'recovery lines',
    ).to.have.length(1);
    expect(messages.indexOf('database available again')).to.be.greaterThan(
      messages.findIndex((m) => m.startsWith('database unavailable: ')),
    );
    expect(
      logs.filter((line) => 'err' in line).map((line) => line.msg),
      'log lines with an error object',
    ).to.deep.equal([]);
    expect(JSON.stringify(logs)).not.to.include('"stack"');
    // The 503s answered during the outage are counted on the recovery line, not logged one by
    // one; the few answered before the outage was noticed or after it ended are warnings.
    const recovery = logs.find((line) => line.msg === 'database available again')!;
    const requestLines = logs.filter((line) => (line.res as { statusCode?: number } | undefined)?.statusCode === 503);
    expect(recovery.refusedRequests, 'the outage counts its 503s').to.be.greaterThan(10);
    expect(requestLines.length + Number(recovery.refusedRequests)).to.equal(unavailable.length);
    expect(requestLines.length, '503 request lines outside the counted outage').to.be.below(unavailable.length / 10);
    expect(
      requestLines.every((line) => line.level === 40),
      '503s are logged as warnings',
    ).to.equal(true);
  });
});
