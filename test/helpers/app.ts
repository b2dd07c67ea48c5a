import { Writable } from 'node:stream';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import supertest from 'supertest';
import { createApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createHubClient } from '../../src/clients/hub.ts';
import type { OutboundClient } from '../../src/clients/outbound.ts';
import type { ExecutionTiming } from '../../src/services/execution-runtime.ts';
import { TestClock } from './clock.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { startFakeHub, type FakeHub } from './fake-hub.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';
import { LISTENER_APPLICATION_NAME } from '../../src/runs/read-index/read-index.ts';

export interface TestContext {
  app: Express;
  db: TestDatabase['db'];
  /** Connection string of `db`. */
  databaseUrl: string;
  config: Config;
  /** Every JSON log line the app wrote. */
  logs: Record<string, unknown>[];
  /** The app's clock; tests move it instead of sleeping. */
  clock: TestClock;
  /** The fake model hub the app talks to (with `{ fakeHub: true }`). */
  hub: FakeHub;
  /** Another app on the same database, clock and hub, with `env` over this one's settings. */
  appWith(env: Record<string, string>): Express;
}

export interface TestAppOptions {
  /** Start a fake model hub on loopback and point the app at it. */
  fakeHub?: boolean;
  /** Hub request timeout; short so the slow fixture times out quickly. */
  hubTimeoutMs?: number;
  /** Execution worker timings (polls and heartbeats shortened so jobs finish in test time). */
  executionTiming?: Partial<ExecutionTiming>;
  /** The outbound client of executions (one with a fake DNS resolver, or short timeouts). */
  outbound?: () => OutboundClient;
  /**
   * The read index's listener hears the database this many ms late (a proxy in front of its
   * connection): a write answered before its own change reached the index is then read
   * stale every time, not just when the race goes that way.
   */
  readIndexListenerDelayMs?: number;
}

/** A pino destination that parses each JSON log line into `lines`. */
export function logSink(lines: Record<string, unknown>[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
}

/** Config as a deployment would parse it, with test defaults and `env` on top. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    SESSION_SECRET: 'test-session-secret-that-is-long-enough-0123456789',
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'bh-test-')),
    LOG_LEVEL: 'info',
    // A test file makes hundreds of requests from one address in seconds; the limits have
    // tests of their own, and the browser tests run with the defaults.
    READ_LIMIT_PER_MINUTE: '0',
    EXPORT_LIMIT_PER_HOUR: '0',
    ANONYMOUS_WRITE_LIMIT_PER_MINUTE: '0',
    // Execution workers poll the database; only the files that run executions start them.
    EXECUTE_WORKERS: '0',
    // Runs whose peers changed are re-judged when a test asks (`app.locals.rejudgePeers`), never by a timer mid-test.
    PEER_REJUDGE_INTERVAL_MS: '0',
    // As deployed: the app's own writes are read back at once because each waits for the
    // read index after its commit. A test that writes to the database directly and reads
    // through the app at once asks for `strict` (every read waits for every committed change).
    READ_INDEX_FRESHNESS: 'notify',
    ...env,
  });
}

/**
 * Registers mocha hooks that give the file a fresh database and an app on it.
 * The returned object is filled in `before`, so read it inside tests.
 */
export function useTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): TestContext {
  const ctx = {} as TestContext;
  let database: TestDatabase;
  const apps: Express[] = [];
  let listenerProxy: TcpProxy | undefined;
  before(async () => {
    database = await createTestDatabase();
    // The app's databaseUrl serves only the session store and the listener; the proxy slows the listener alone.
    if (options.readIndexListenerDelayMs) {
      listenerProxy = await startTcpProxy(database.url);
      listenerProxy.delayAnswers(LISTENER_APPLICATION_NAME, options.readIndexListenerDelayMs);
    }
    if (options.fakeHub) ctx.hub = await startFakeHub();
    ctx.logs = [];
    const sink = logSink(ctx.logs);
    const settings = options.fakeHub ? { HF_ENDPOINT: ctx.hub.url, ...env } : env;
    ctx.db = database.db;
    ctx.databaseUrl = database.url;
    ctx.clock = new TestClock();
    const build = (config: Config) => {
      const app = createApp({
        db: database.db,
        config,
        logger: createLogger('info', sink),
        databaseUrl: listenerProxy?.url ?? database.url,
        clock: ctx.clock,
        ...(options.executionTiming ? { executionTiming: options.executionTiming } : {}),
        ...(options.outbound ? { outbound: options.outbound() } : {}),
        ...(options.fakeHub && config.hubMode === 'online'
          ? { hub: createHubClient({ endpoint: ctx.hub.url, timeoutMs: options.hubTimeoutMs ?? 1000 }) }
          : {}),
      });
      apps.push(app);
      return app;
    };
    ctx.config = testConfig(settings);
    ctx.app = build(ctx.config);
    ctx.appWith = (more) => build(testConfig({ ...settings, ...more }));
  });
  after(async () => {
    for (const app of apps) await (app.locals.close as (() => Promise<void>) | undefined)?.();
    await listenerProxy?.close();
    await ctx.hub?.close();
    await database?.drop();
  });
  return ctx;
}

export type Agent = ReturnType<typeof supertest.agent>;

/** The CSRF token a page hands to the browser (from its <meta> tag). */
export function csrfFrom(html: string): string {
  const match = /<meta name="csrf-token" content="([^"]+)">/.exec(html);
  if (!match) throw new Error('page has no csrf-token meta tag');
  return match[1]!;
}

let userCounter = 0;
export function uniqueUsername(prefix = 'user'): string {
  userCounter += 1;
  return `${prefix}${Date.now().toString(36)}${userCounter}`;
}

export const TEST_PASSWORD = 'correct horse battery';

/** A browser-like agent signed up (and so signed in) through the real form; returns its CSRF token. */
export async function signedUpAgent(app: Express, username = uniqueUsername()): Promise<{ agent: Agent; csrf: string; username: string }> {
  const agent = supertest.agent(app);
  const form = await agent.get('/signup').expect(200);
  const res = await agent
    .post('/signup')
    .type('form')
    .send({ username, displayName: `Display ${username}`, password: TEST_PASSWORD, _csrf: csrfFrom(form.text) });
  if (res.status !== 303) throw new Error(`sign-up failed with ${res.status}: ${res.text.slice(0, 300)}`);
  const page = await agent.get('/settings/keys').expect(200);
  return { agent, csrf: csrfFrom(page.text), username };
}

/** Creates an API key through the API for a signed-in agent and returns the secret. */
export async function createKey(agent: Agent, csrf: string, body: Record<string, unknown> = { name: 'agent key' }) {
  const res = await agent.post('/api/keys').set('X-CSRF-Token', csrf).send(body);
  if (res.status !== 201) throw new Error(`key creation failed with ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as { id: string; name: string; prefix: string; createdAt: string; expiresAt: string | null; key: string };
}
