/**
 * The app the fuzzer drives: one per API revision, on its own cloned test database, with a
 * fake model hub, listening on a random loopback port, plus the accounts and rows the
 * fuzzed requests point at (a run, a setup, a key to revoke, a user to moderate) and the
 * credentials they carry. Fuzzed writes can sign the session out, change the password,
 * delete the setup or revoke the key; `restore()` puts all of that back, so every case
 * reaches the validation and service layers instead of a 401 or a 404.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { Writable } from 'node:stream';
import { createApp } from '../../src/app.ts';
import { createHubClient } from '../../src/clients/hub.ts';
import { seedDemoCatalogue } from '../../src/db/seeds/demo-models.ts';
import { createLogger } from '../../src/logger.ts';
import type { RevisionNumber } from '../../src/revisions.ts';
import { csrfFrom, testConfig, TEST_PASSWORD, uniqueUsername } from '../helpers/app.ts';
import { TestClock } from '../helpers/clock.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startFakeHub, type FakeHub } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { deviceOf, type DeviceFacts } from '../../src/lib/hardware-devices.ts';
import { demoSuiteBodies } from '../../src/db/seeds/demo-suites.ts';
import { exampleQualityRun } from '../../src/openapi/quality-examples.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { processImageUpload } from '../../src/lib/image-pipeline.ts';
import { createOfflineServices } from '../../src/services/index.ts';
import sharp from 'sharp';
import { HttpClient, jsonOf, sessionCookieOf, type RawResponse } from './http.ts';

/** Longer than every submission window the app's clock measures (1 h at most). */
const PAST_EVERY_WINDOW_MS = 61 * 60_000;

interface Account {
  id: string;
  username: string;
}

/** The ids a route's path parameters are filled with when a case uses a real one. */
export interface FixtureIds {
  runId: string;
  hardwareId: string;
  /** The device page's slug of the fixture run's hardware (`/hardware/:device`). */
  deviceSlug: string;
  setupId: string;
  /** A published report of the fuzz account's (revision 3; empty elsewhere). */
  reportId: string;
  /** A key of the fuzz account that is not the one its requests authenticate with. */
  spareKeyId: string;
  /** Another account, for the admin actions on users. */
  otherUserId: string;
  username: string;
  modelOrg: string;
  modelName: string;
  /** Quality fixtures (revisions with quality evaluations; empty strings elsewhere). */
  quality: {
    suiteSlug: string;
    datasetSlug: string;
    runId: string;
    suiteSubmissionId: string;
    datasetSubmissionId: string;
    /** Pending items the admin review pages act on. */
    reviewSuiteId: string;
    reviewRunId: string;
    reviewDatasetId: string;
    /** A queued execution of the fuzz account's (no workers run in the fuzz app). */
    executionId: string;
  };
  /** An ACTIVE listing of the fuzz account's with one photo (revision 3; empty strings elsewhere). */
  marketplace: { listingId: string; imageId: string };
}

export class FuzzApp {
  readonly http: HttpClient;
  ids!: FixtureIds;
  private admin!: Account & { passwordHash: string };
  private apiKey!: { id: string; key: string };
  private cookie = '';
  private csrf = '';

  private constructor(
    readonly revision: RevisionNumber,
    /** The app's clock: the fuzzer moves it past the throttles' windows. */
    readonly clock: TestClock,
    /** Why an answer was a 500, by request id (the app's error log lines). */
    readonly errorsByRequest: ReadonlyMap<string, string>,
    /** The app itself, for its router stack. */
    readonly express: Express,
    private readonly database: TestDatabase,
    private readonly hub: FakeHub,
    private readonly server: Server,
    private readonly closeApp: () => Promise<void>,
    timeoutMs: number,
  ) {
    const { port } = server.address() as AddressInfo;
    this.http = new HttpClient(`http://127.0.0.1:${port}`, timeoutMs);
  }

  static async start(revision: RevisionNumber, timeoutMs: number): Promise<FuzzApp> {
    const database = await createTestDatabase();
    // The API's worked examples name demo-catalogue models.
    await seedDemoCatalogue(database.db);
    const hub = await startFakeHub();
    const errorsByRequest = new Map<string, string>();
    const clock = new TestClock();
    const config = testConfig({ API_REVISION: String(revision), HF_ENDPOINT: hub.url });
    const app = createApp({
      db: database.db,
      config,
      logger: createLogger('error', errorLogSink(errorsByRequest)),
      databaseUrl: database.url,
      clock,
      hub: createHubClient({ endpoint: hub.url, timeoutMs: 1000 }),
    });
    const server = await new Promise<Server>((resolve, reject) => {
      const listening = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(listening)));
    });
    const fuzzApp = new FuzzApp(
      revision,
      clock,
      errorsByRequest,
      app,
      database,
      hub,
      server,
      app.locals.close as () => Promise<void>,
      timeoutMs,
    );
    await fuzzApp.createFixtures();
    return fuzzApp;
  }

  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
    await this.closeApp();
    await this.hub.close();
    await this.database.drop();
  }

  private get db() {
    return this.database.db;
  }

  /**
   * Lets the next write through every throttle, so it reaches validation instead of a 429:
   * the submission windows follow the app's clock, the sign-in and sign-up counters
   * Postgres's (rate_limit_counters).
   */
  async forgetThrottles(): Promise<void> {
    this.clock.advance(PAST_EVERY_WINDOW_MS);
    await this.db('rate_limit_counters').delete();
  }

  /** Headers that make a request the fuzz admin's browser session (cookie and CSRF token). */
  sessionHeaders(): Record<string, string> {
    return { Cookie: this.cookie, 'X-CSRF-Token': this.csrf };
  }

  keyHeaders(): Record<string, string> {
    return { Authorization: `Bearer ${this.apiKey.key}` };
  }

  private async createFixtures(): Promise<void> {
    // The fuzz account: signed up through the form, then made admin so every page answers it.
    const username = uniqueUsername('fuzz');
    const form = await this.anonymousForm('/signup');
    const signedUp = await this.http.postForm('/signup', { username, password: TEST_PASSWORD, _csrf: form.csrf }, { Cookie: form.cookie });
    expectStatus(signedUp, 303, 'sign-up');
    this.cookie = sessionCookieOf(signedUp)!;
    const row = await this.db('users').where({ username }).first('id', 'password_hash');
    await this.db('users').where({ id: row.id }).update({ is_admin: true });
    this.admin = { id: row.id, username, passwordHash: row.password_hash };
    await this.refreshCsrf();

    this.apiKey = await this.createKey('fuzz agent');
    const spare = await this.createKey('spare key');

    const otherName = uniqueUsername('other');
    const otherForm = await this.anonymousForm('/signup');
    expectStatus(
      await this.http.postForm(
        '/signup',
        { username: otherName, password: TEST_PASSWORD, _csrf: otherForm.csrf },
        { Cookie: otherForm.cookie },
      ),
      303,
      'second sign-up',
    );
    const other = await this.db('users').where({ username: otherName }).first('id');

    const submitted = await this.http.postJson(this.speedTestsPath(), validSubmission(), this.keyHeaders());
    expectStatus(submitted, 201, 'submission');
    const run = jsonOf(submitted) as { id: string; hardwareId: string };
    const [modelOrg, modelName] = String(validSubmission().hfId).split('/') as [string, string];

    this.ids = {
      runId: run.id,
      hardwareId: run.hardwareId,
      deviceSlug: deviceOf(validSubmission().hardware as DeviceFacts).slug,
      setupId: await this.createSetup(),
      reportId: await this.createReport(),
      spareKeyId: spare.id,
      otherUserId: other.id,
      username,
      modelOrg,
      modelName,
      quality: await this.createQualityFixtures(),
      marketplace: await this.createMarketplaceFixtures(run.id),
    };
  }

  /** A listing of the fuzz account's with the fuzz run as proof and one photo, published. */
  private async createMarketplaceFixtures(runId: string): Promise<FixtureIds['marketplace']> {
    if (!getRevisionProfile(this.revision).marketplace) return { listingId: '', imageId: '' };
    const listing = jsonOf(
      await this.expectCreated(
        '/api/marketplace/listings',
        {
          title: 'Fuzz GPU',
          condition: 'USED',
          price: 100,
          currency: 'USD',
          hwClass: 'DISCRETE_GPU',
          hardwareName: 'RTX 4090',
          contactUrl: 'mailto:fuzz@example.com',
          benchmarkRunIds: [runId],
        },
        'listing',
      ),
    ) as { listing: { id: string } };
    const id = listing.listing.id;
    // Written through the service: the fuzz client sends no multipart bodies.
    const { marketplace } = createOfflineServices(this.db, getRevisionProfile(this.revision), this.clock);
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#468' } })
      .png()
      .toBuffer();
    const image = await marketplace.addImage(this.admin.id, id, await processImageUpload(photo));
    await marketplace.publish(this.admin.id, id);
    return { listingId: id, imageId: image.id };
  }

  /**
   * An approved suite with an approved run, an approved dataset (revision 3), and a pending
   * suite and dataset of the fuzz account's own for the submission routes.
   */
  private async createQualityFixtures(): Promise<FixtureIds['quality']> {
    const quality = getRevisionProfile(this.revision).quality;
    const none = {
      suiteSlug: '',
      datasetSlug: '',
      runId: '',
      suiteSubmissionId: '',
      datasetSubmissionId: '',
      reviewSuiteId: '',
      reviewRunId: '',
      reviewDatasetId: '',
      executionId: '',
    };
    if (!quality) return none;
    const root = quality.root;
    const suite = (slug: string) => ({ ...demoSuiteBodies[0], slug });
    // The worked examples' own suite and dataset, so fuzzed examples reach the scoring and the writes.
    const registered = jsonOf(await this.expectCreated(`${root}/suites`, demoSuiteBodies[0], 'suite')) as { id: string; slug: string };
    await this.db('quality_suites').where({ id: registered.id }).update({ status: 'APPROVED' });
    const run = jsonOf(await this.expectCreated(`${root}/runs`, { ...exampleQualityRun, suiteSlug: registered.slug }, 'quality run')) as {
      id: string;
    };
    await this.db('quality_runs').where({ id: run.id }).update({ status: 'APPROVED' });
    const pending = jsonOf(
      await this.expectCreated(`${root}/suites`, suite(`fuzz-pending-${randomUUID().slice(0, 8)}`), 'pending suite'),
    ) as { id: string };
    const reviewSuite = jsonOf(
      await this.expectCreated(`${root}/suites`, suite(`fuzz-review-${randomUUID().slice(0, 8)}`), 'suite to review'),
    ) as { id: string };
    const reviewRun = jsonOf(
      await this.expectCreated(`${root}/runs`, { ...exampleQualityRun, suiteSlug: registered.slug }, 'run to review'),
    ) as { id: string };
    // Written directly: POST /execute would need an allow-listed target, and nothing runs it here.
    const [execution] = await this.db('quality_executions')
      .insert({
        user_id: this.admin.id,
        suite_id: registered.id,
        total: 1,
        request: JSON.stringify({
          suiteSlug: registered.slug,
          baseUrl: 'https://llm.example.net',
          model: 'fuzz',
          hfId: 'fuzz/model',
          autoSubmit: false,
          hardware: null,
          quantization: null,
          modelRevision: 'main',
          notes: null,
          taskKeys: null,
          tasks: [],
          aggregation: 'mean',
          judged: false,
        }),
      })
      .returning('id');
    const review = { reviewSuiteId: reviewSuite.id, reviewRunId: reviewRun.id, executionId: execution.id as string };
    if (!quality.submissions) return { ...none, ...review, suiteSlug: registered.slug, runId: run.id, suiteSubmissionId: pending.id };
    const dataset = (slug: string) => ({ slug, name: 'Fuzz dataset', shards: [{ items: [{ input: '1+1?', gold: 2 }] }] });
    const approvedDataset = jsonOf(await this.expectCreated(`${root}/datasets`, dataset('arithmetic-shards'), 'dataset')) as {
      id: string;
      slug: string;
    };
    await this.db('quality_datasets').where({ id: approvedDataset.id }).update({ status: 'APPROVED' });
    const pendingDataset = jsonOf(
      await this.expectCreated(`${root}/datasets`, dataset(`fuzz-pdata-${randomUUID().slice(0, 8)}`), 'pending dataset'),
    ) as { id: string };
    const reviewDataset = jsonOf(
      await this.expectCreated(`${root}/datasets`, dataset(`fuzz-rdata-${randomUUID().slice(0, 8)}`), 'dataset to review'),
    ) as { id: string };
    return {
      ...review,
      reviewDatasetId: reviewDataset.id,
      suiteSlug: registered.slug,
      datasetSlug: approvedDataset.slug,
      runId: run.id,
      suiteSubmissionId: pending.id,
      datasetSubmissionId: pendingDataset.id,
    };
  }

  private async expectCreated(path: string, body: unknown, what: string): Promise<RawResponse> {
    this.clock.advance(PAST_EVERY_WINDOW_MS);
    const res = await this.http.postJson(path, body, this.keyHeaders());
    expectStatus(res, 201, what);
    return res;
  }

  private speedTestsPath(): string {
    return this.revision === 3 ? '/api/speed-tests' : '/api/benchmarks';
  }

  /** An anonymous session that has been shown a form (so it holds a CSRF token). */
  private async anonymousForm(path: string): Promise<{ cookie: string; csrf: string }> {
    const page = await this.http.get(path);
    expectStatus(page, 200, `GET ${path}`);
    return { cookie: sessionCookieOf(page)!, csrf: csrfFrom(page.body.toString('utf8')) };
  }

  private async refreshCsrf(): Promise<void> {
    const page = await this.http.get('/settings/keys', { Cookie: this.cookie });
    expectStatus(page, 200, 'GET /settings/keys');
    this.csrf = csrfFrom(page.body.toString('utf8'));
  }

  private async createKey(name: string): Promise<{ id: string; key: string }> {
    const res = await this.http.postJson('/api/keys', { name }, this.sessionHeaders());
    expectStatus(res, 201, 'key creation');
    return jsonOf(res) as { id: string; key: string };
  }

  /** A published report with a table, a task list and an embed, where the revision has reports. */
  private async createReport(): Promise<string> {
    if (!getRevisionProfile(this.revision).reports) return '';
    const content = '## Results\n\n| a | b |\n|--|--:|\n| 1 | 2 |\n\n- [x] done\n\n[[report-embed:https%3A%2F%2Fexample.com%2F]]';
    const res = await this.http.postJson(
      `/api/models/${String(validSubmission().hfId)}/reports`,
      { title: 'Fuzz report', content, published: true },
      this.keyHeaders(),
    );
    expectStatus(res, 201, 'report creation');
    return (jsonOf(res) as { report: { id: string } }).report.id;
  }

  private async createSetup(): Promise<string> {
    const res = await this.http.postJson(
      '/api/setups',
      { name: `fuzz setup ${randomUUID()}`, hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 9 7950X', ramGb: 64 },
      this.sessionHeaders(),
    );
    expectStatus(res, 201, 'setup creation');
    return (jsonOf(res) as { id: string }).id;
  }

  /**
   * Puts back what a fuzzed write that succeeded may have changed: the fuzz account's admin
   * role and password, its session, the setup and the spare key, and room under the
   * per-account key limit for the next key.
   */
  async restore(): Promise<void> {
    await this.db('users').where({ id: this.admin.id }).update({ is_admin: true, password_hash: this.admin.passwordHash });
    const me = await this.http.get('/api/me', this.sessionHeaders());
    if (me.status !== 200 || (jsonOf(me) as { id?: string }).id !== this.admin.id) await this.signIn();

    if (!(await this.db('setups').where({ id: this.ids.setupId }).first('id'))) this.ids.setupId = await this.createSetup();
    if (this.ids.reportId && !(await this.db('model_reports').where({ id: this.ids.reportId, published: true }).first('id'))) {
      await this.db('model_reports').where({ id: this.ids.reportId }).delete();
      this.ids.reportId = await this.createReport();
    }

    const spare = await this.db('api_keys').where({ id: this.ids.spareKeyId }).first('revoked_at');
    const live = this.db('api_keys').where({ user_id: this.admin.id }).whereNull('revoked_at');
    const [{ count }] = (await live.clone().count({ count: '*' })) as [{ count: string }];
    if (!spare?.revoked_at && Number(count) < 9) return;
    // Fuzzed key creations fill the account's limit; revoke all but the fixtures' own keys.
    await live.clone().whereNotIn('id', [this.apiKey.id, this.ids.spareKeyId]).update({ revoked_at: this.clock.now() });
    if (spare?.revoked_at) this.ids.spareKeyId = (await this.createKey('spare key')).id;
  }

  private async signIn(): Promise<void> {
    await this.forgetThrottles();
    const form = await this.anonymousForm('/signin');
    const res = await this.http.postForm(
      '/signin',
      { username: this.admin.username, password: TEST_PASSWORD, _csrf: form.csrf },
      { Cookie: form.cookie },
    );
    expectStatus(res, 303, 'sign-in');
    this.cookie = sessionCookieOf(res)!;
    await this.refreshCsrf();
  }
}

/** A pino destination that keeps, per request id, the first error logged while answering it. */
function errorLogSink(errorsByRequest: Map<string, string>): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) {
        if (!line.trim()) continue;
        const entry = JSON.parse(line) as {
          requestId?: string;
          req?: { id?: string };
          err?: { type?: string; message?: string; stack?: string };
        };
        const id = entry.requestId ?? entry.req?.id;
        if (id && entry.err && !errorsByRequest.has(id)) errorsByRequest.set(id, describeError(entry.err));
      }
      done();
    },
  });
}

function describeError(err: { type?: string; message?: string; stack?: string }): string {
  const where = err.stack
    ?.split('\n')
    .find((line) => line.includes('/src/'))
    ?.trim();
  return `${err.type ?? 'Error'}: ${(err.message ?? '').slice(0, 200)}${where ? ` (${where})` : ''}`;
}

function expectStatus(res: RawResponse, status: number, what: string): void {
  if (res.status !== status)
    throw new Error(`fuzz set-up: ${what} answered ${res.status}, not ${status}: ${res.body.toString('utf8').slice(0, 300)}`);
}
