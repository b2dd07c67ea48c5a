/**
 * Real-browser test harness: each e2e file gets its own database (cloned from the migrated
 * template, like the main suite), the app listening on a random loopback port, a fake model
 * hub, and one headless Debian Chromium driven by playwright-core. Every test opens fresh
 * browser contexts (own cookies), so journeys never share a session.
 */
import http from 'node:http';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect } from 'chai';
import { createApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Db } from '../../src/db/knex.ts';
import { seedDemoCatalogue } from '../../src/db/seeds/demo-models.ts';
import { seedDemoQuality } from '../../src/db/seeds/demo-quality.ts';
import { seedDemoListings } from '../../src/db/seeds/demo-listings.ts';
import { seedDemoRuns } from '../../src/db/seeds/demo-runs.ts';
import { createLogger } from '../../src/logger.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { createHubClient } from '../../src/clients/hub.ts';
import { createOfflineServices } from '../../src/services/index.ts';
import type { ExecutionTiming } from '../../src/services/execution-runtime.ts';
import { TEST_PASSWORD, testConfig } from '../helpers/app.ts';
import { TestClock } from '../helpers/clock.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startFakeHub, type FakeHub } from '../helpers/fake-hub.ts';

export { TEST_PASSWORD };

/** Debian's Chromium (`apt-get install -y chromium`), never a downloaded browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const ARTIFACTS_DIR = path.resolve('test/e2e/artifacts');

export interface E2eOptions {
  /** Seed the demo catalogue and this many demo runs (0: an empty catalogue). */
  demoRuns?: number;
  /** Settings over the test defaults (e.g. execution workers and the hosts they may reach). */
  env?: Record<string, string>;
  /** Execution worker timings (short polls so a journey's job starts at once). */
  executionTiming?: Partial<ExecutionTiming>;
}

export interface E2eContext {
  baseUrl: string;
  /** The app under test (its router lists the pages). */
  app: Express;
  db: Db;
  config: Config;
  clock: TestClock;
  hub: FakeHub;
  browser: Browser;
  /** Lines the app logged at error level (a 500 anywhere fails the test in `afterEach`). */
  serverErrors: string[];
  /**
   * A fresh browser context (own cookies) with its first page; closed after the test, or
   * with `keepOpen` after the file (for pages set up in a `before` hook).
   */
  newPage(options?: BrowserContextOptions, keepOpen?: boolean): Promise<Page>;
  /** Signs up through the real form in `page`; returns the username. */
  signUp(page: Page, username?: string): Promise<string>;
  signIn(page: Page, username: string, password?: string): Promise<void>;
  /** An admin account (created directly in the database), signed in on `page`. */
  signInAsAdmin(page: Page): Promise<string>;
  /** A screenshot under test/e2e/artifacts/ (the whole page unless `fullPage` is false). */
  screenshot(page: Page, name: string, options?: { fullPage?: boolean }): Promise<void>;
}

let usernameCounter = 0;
export function uniqueName(prefix = 'e2e'): string {
  usernameCounter += 1;
  return `${prefix}_${Date.now().toString(36).slice(-5)}${usernameCounter}`;
}

/** A logged server error in one line: status, request and the error itself. */
function describeLogLine(line: string): string {
  try {
    const entry = JSON.parse(line) as {
      msg?: string;
      req?: { method?: string; url?: string };
      res?: { statusCode?: number };
      err?: { message?: string; stack?: string };
    };
    return `server error: ${entry.res?.statusCode ?? ''} ${entry.req?.method ?? ''} ${entry.req?.url ?? ''}: ${entry.msg ?? ''} ${entry.err?.stack ?? entry.err?.message ?? ''}`.slice(
      0,
      1500,
    );
  } catch {
    return `server error: ${line.slice(0, 500)}`;
  }
}

/** Browser problems that mean a broken page: uncaught errors and blocked (CSP) resources. */
function watchPage(page: Page, problems: string[]): void {
  page.on('pageerror', (error) => problems.push(`page error on ${page.url()}: ${error.message}`));
  page.on('console', (message) => {
    const text = message.text();
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(text))
      problems.push(`CSP on ${page.url()} (${JSON.stringify(message.location())}): ${text.slice(0, 160)}`);
  });
}

export function useE2eApp(file: string, options: E2eOptions = {}): E2eContext {
  const ctx = { serverErrors: [] as string[] } as E2eContext;
  let database: TestDatabase;
  let server: http.Server;
  let closeApp: (() => Promise<void>) | undefined;
  let contexts: BrowserContext[] = [];
  const fileContexts: BrowserContext[] = [];
  let problems: string[] = [];
  const prefix = path.basename(file).replace(/\.test\.ts$/, '');

  before(async function () {
    this.timeout(60_000);
    if (!existsSync(CHROMIUM_PATH)) throw new Error(`No Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const browserStarting = chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    browserStarting.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    database = await createTestDatabase();
    ctx.db = database.db;
    ctx.hub = await startFakeHub();
    // The deployment's read limits as shipped: browsing journeys must never meet them.
    ctx.config = testConfig({ HF_ENDPOINT: ctx.hub.url, READ_LIMIT_PER_MINUTE: '', EXPORT_LIMIT_PER_HOUR: '', ...options.env });
    ctx.clock = new TestClock();
    if (options.demoRuns !== undefined) {
      await seedDemoCatalogue(ctx.db);
      if (options.demoRuns > 0) {
        // As the quick start does: sample runs, then the demo quality suites and runs on their setups, and the demo listings.
        await seedDemoRuns(ctx.db, getRevisionProfile(ctx.config.revision), { runs: options.demoRuns, now: ctx.clock.now() });
        await seedDemoQuality(ctx.db, getRevisionProfile(ctx.config.revision), ctx.clock);
        await seedDemoListings(ctx.db, getRevisionProfile(ctx.config.revision), ctx.clock);
      }
    }
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line.trim()) ctx.serverErrors.push(line);
        done();
      },
    });
    const app = createApp({
      db: ctx.db,
      config: ctx.config,
      logger: createLogger('error', sink),
      databaseUrl: database.url,
      clock: ctx.clock,
      hub: createHubClient({ endpoint: ctx.hub.url, timeoutMs: 3000 }),
      ...(options.executionTiming ? { executionTiming: options.executionTiming } : {}),
    });
    ctx.app = app;
    closeApp = app.locals.close as () => Promise<void>;
    server = http.createServer(app);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    ctx.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ctx.browser = await browserStarting;
  });

  afterEach(async function () {
    for (const context of contexts) await context.close().catch(() => {});
    contexts = [];
    const found = [...problems, ...ctx.serverErrors.map(describeLogLine)];
    problems = [];
    ctx.serverErrors.length = 0;
    if (this.currentTest?.state === 'passed' && found.length) throw new Error(`browser or server problems:\n${found.join('\n')}`);
  });

  after(async function () {
    this.timeout(30_000);
    for (const context of fileContexts) await context.close().catch(() => {});
    await ctx.browser?.close();
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await closeApp?.();
    await ctx.hub?.close();
    await database?.drop();
  });

  ctx.newPage = async (contextOptions = {}, keepOpen = false) => {
    const context = await ctx.browser.newContext({ baseURL: ctx.baseUrl, viewport: { width: 1280, height: 900 }, ...contextOptions });
    context.setDefaultTimeout(10_000);
    (keepOpen ? fileContexts : contexts).push(context);
    const page = await context.newPage();
    watchPage(page, problems);
    context.on('page', (other) => watchPage(other, problems));
    return page;
  };

  ctx.signUp = async (page, username = uniqueName()) => {
    await page.goto('/signup');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Display name (optional)').fill(`Display ${username}`);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    expect(await page.locator('.nav-user').innerText()).to.include(`@${username}`);
    return username;
  };

  ctx.signIn = async (page, username, password = TEST_PASSWORD) => {
    await page.goto('/signin');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/signin');
    expect(await page.locator('.nav-user').innerText()).to.include(`@${username}`);
  };

  ctx.signInAsAdmin = async (page) => {
    const username = uniqueName('admin');
    await createOfflineServices(ctx.db, getRevisionProfile(3)).users.ensureAdmin(username, TEST_PASSWORD);
    await ctx.signIn(page, username);
    return username;
  };

  ctx.screenshot = async (page, name, { fullPage = true } = {}) => {
    // caret: 'initial' because hiding the caret leaves style="" on inputs, which htmx then
    // copies during a swap and the page's CSP (style-src 'self') reports.
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${prefix}-${name}.png`), fullPage, caret: 'initial' });
  };

  return ctx;
}

/** A marker on `window` that survives htmx swaps but not a page load. */
export async function markWindow(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __e2eMarker: boolean }).__e2eMarker = true;
  });
}

export async function windowStillMarked(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { __e2eMarker?: boolean }).__e2eMarker === true);
}

/** The submit form's usual fields for one run on one GPU (/submit must be open); a field left out stays as it is. */
export interface RunFormFields {
  hfId: string;
  quantization?: string;
  engine?: string;
  gpuName?: string;
  vramGb?: number;
  tokSOut?: number;
}

export async function fillRunForm(page: Page, run: RunFormFields): Promise<void> {
  await page.getByLabel('Model id on the hub').fill(run.hfId);
  if (run.quantization !== undefined) await page.getByLabel('Quantization', { exact: true }).fill(run.quantization);
  if (run.engine !== undefined) await page.getByLabel('Engine', { exact: true }).selectOption(run.engine);
  if (run.gpuName !== undefined) await page.getByLabel('GPU', { exact: true }).fill(run.gpuName);
  if (run.vramGb !== undefined) await page.getByLabel('VRAM per GPU (GB)').fill(String(run.vramGb));
  if (run.tokSOut !== undefined) await page.getByLabel('Output tokens per second').fill(String(run.tokSOut));
}

/** Submits a llama.cpp Q4_K_M run on an RTX 4090 through /submit and waits for its page; returns its address. */
export async function submitRunThroughForm(page: Page, run: RunFormFields): Promise<string> {
  await page.goto('/submit');
  await fillRunForm(page, { quantization: 'Q4_K_M', engine: 'llama.cpp', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, ...run });
  await page.getByRole('button', { name: 'Submit run' }).click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  return page.url();
}
