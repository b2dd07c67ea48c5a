/**
 * The public LocalMaxxing clients (`LottoLottoLotto/localmaxxing-cli`: the TypeScript CLIs
 * `src/localmaxxing.ts` and `packages/localmaxxing-cli/src/index.ts`, the Go CLI `cmd/lmx`)
 * against this service (DECISIONS.md "Real clients"): each command that failed is replayed
 * here as the clients send it (method, path, headers, body, multipart fields) and must pass,
 * in revision 3 and, where the command exists there, revision 2.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import sharp from 'sharp';
import { getRevisionProfile } from '../../src/revisions.ts';
import { createOfflineServices } from '../../src/services/index.ts';
import { useTestApp, type TestContext } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { llmBench } from '../helpers/llm-bench.ts';
import { account, type Account } from '../helpers/moderation.ts';
import {
  ARITHMETIC_ITEMS,
  approveSuite,
  customSuite,
  QUALITY_REVISIONS,
  registeredApprovedSuite,
  registerSuite,
  uniqueSlug,
} from '../helpers/quality.ts';

type Body = Record<string, any>;

/** The headers the TypeScript clients send with a JSON write (`submitJson`). */
const jsonWrite = (who: Account) => ({ 'Content-Type': 'application/json', Authorization: `Bearer ${who.key}` });
/** The headers of an authenticated read (`fetchAuthedJson`). */
const authedRead = (who: Account) => ({ Authorization: `Bearer ${who.key}` });

/** A URL this service answered, requested on the test app (no credentials, as the clients fetch it). */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Every client talks to the revision-2 quality paths; revision 3 keeps them as an alias of its quality root. */
const CLIENT_QUALITY_ROOT = '/api/evals';

async function approvedShardSuite(ctx: TestContext, root: string, owner: Account) {
  const dataset = {
    slug: uniqueSlug('shards'),
    name: 'Arithmetic in shards',
    license: 'CC0-1.0',
    shards: [
      { name: 'first', items: ARITHMETIC_ITEMS.slice(0, 2) },
      { name: 'second', items: ARITHMETIC_ITEMS.slice(2) },
    ],
  };
  await request(ctx.app).post(`${root}/datasets`).set(jsonWrite(owner)).send(dataset).expect(201);
  await ctx.db('quality_datasets').where({ slug: dataset.slug }).update({ status: 'APPROVED' });
  const suite = customSuite();
  suite.suiteDoc.tasks[0].dataset = { source: 'shard', datasetSlug: dataset.slug };
  await registerSuite(ctx, root, owner, suite);
  await approveSuite(ctx, suite.slug);
  return { suite, dataset };
}

describe('Real clients, revision 3: speed tests and accounts', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  let ada: Account;

  before(async () => {
    ada = await account(ctx, 'ada');
  });

  it('auth whoami: GET /api/user answers what /api/me does', async () => {
    const user = await request(ctx.app).get('/api/user').set(authedRead(ada)).expect(200);
    const me = await request(ctx.app).get('/api/me').set(authedRead(ada)).expect(200);
    expect(user.body).to.deep.equal(me.body);
    expect(user.body).to.include({ username: ada.username, authenticatedWith: 'api_key' });
    expect((await request(ctx.app).get('/api/user')).status).to.equal(401);
  });

  describe('auth login: device login (RFC 8628) with its /device page', () => {
    const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
    const poll = (deviceCode: string) =>
      request(ctx.app).post('/api/auth/device/token').send({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: 'lmx' });

    it('approves at /device with the session and CSRF token; the poll gets a new key once', async () => {
      const code = await request(ctx.app).post('/api/auth/device/code').send({ client_id: 'lmx' });
      expect(code.status, JSON.stringify(code.body)).to.equal(200);
      expect(code.body).to.include({ expires_in: 600, interval: 5 });
      expect(code.body.user_code).to.match(/^[BCDFGHJKLMNPQRTVWX]{4}-[BCDFGHJKLMNPQRTVWX]{4}$/);
      expect(code.body.verification_uri).to.match(/\/device$/);
      expect(code.body.verification_uri_complete).to.equal(`${code.body.verification_uri}?user_code=${code.body.user_code}`);
      // Hashed at rest: neither code is stored as given.
      const stored = JSON.stringify(await ctx.db('device_logins').select('*'));
      expect(stored).not.to.include(code.body.device_code);
      expect(stored).not.to.include(code.body.user_code);

      expect((await poll(code.body.device_code)).body).to.deep.equal({ error: 'authorization_pending' });
      expect((await poll(code.body.device_code)).body, 'polled before the interval').to.deep.equal({ error: 'slow_down' });

      const page = await ada.agent.get(`/device?user_code=${code.body.user_code.toLowerCase().replace('-', '')}`);
      expect(page.status).to.equal(200);
      expect(page.text).to.include('lmx').and.to.include(code.body.user_code);
      expect(
        (await ada.agent.post('/device').type('form').send({ user_code: code.body.user_code, decision: 'approve' })).status,
        'no CSRF token',
      ).to.equal(403);
      const approved = await ada.agent
        .post('/device')
        .type('form')
        .send({ _csrf: ada.csrf, user_code: code.body.user_code, decision: 'approve' });
      expect(approved.status).to.equal(200);
      expect(approved.text).to.include('signed in as you');

      ctx.clock.advance(11_000);
      const token = await poll(code.body.device_code);
      expect(token.status, JSON.stringify(token.body)).to.equal(200);
      expect(token.body.token_type).to.equal('Bearer');
      const whoami = await request(ctx.app).get('/api/user').set('Authorization', `Bearer ${token.body.access_token}`).expect(200);
      expect(whoami.body.username).to.equal(ada.username);
      const keys = await ada.agent.get('/api/keys').expect(200);
      expect(keys.body.map((k: Body) => k.name)).to.include(`lmx (device login ${ctx.clock.now().toISOString().slice(0, 10)})`);
      expect((await poll(code.body.device_code)).body, 'single use').to.deep.equal({ error: 'invalid_grant' });
    });

    // `lmx auth login` of the Go CLI (cmd/lmx): it posts {} with JSON headers and no key, reads
    // the camelCase names, polls with { deviceCode } alone, keeps waiting on a 4xx whose error is
    // authorization_pending, and saves `key`.
    const goCliPoll = (deviceCode: string) =>
      request(ctx.app).post('/api/auth/device/token').set('Content-Type', 'application/json').send({ deviceCode });

    it('lmx auth login (Go CLI): camelCase codes, a { deviceCode } poll, `key` in the answer; whoami with it', async () => {
      const code = await request(ctx.app).post('/api/auth/device/code').set('Content-Type', 'application/json').send({});
      expect(code.status, JSON.stringify(code.body)).to.equal(200);
      expect(code.body).to.include({
        deviceCode: code.body.device_code,
        userCode: code.body.user_code,
        verificationUri: code.body.verification_uri,
        verificationUriComplete: code.body.verification_uri_complete,
        expiresIn: 600,
      });
      expect(code.body.verificationUri).to.match(/\/device$/);

      const pending = await goCliPoll(code.body.deviceCode);
      expect(pending.status).to.equal(400);
      expect(pending.body.error).to.equal('authorization_pending');

      await ada.agent
        .post('/device')
        .type('form')
        .send({ _csrf: ada.csrf, user_code: code.body.userCode, decision: 'approve' })
        .expect(200);
      ctx.clock.advance(6_000);
      const token = await goCliPoll(code.body.deviceCode);
      expect(token.status, JSON.stringify(token.body)).to.equal(200);
      expect(token.body.key).to.match(/^bhk_/);
      expect(token.body.access_token, 'the RFC name carries the same key').to.equal(token.body.key);
      const whoami = await request(ctx.app).get('/api/user').set('Authorization', `Bearer ${token.body.key}`).expect(200);
      expect(whoami.body.username).to.equal(ada.username);
      const keys = await ada.agent.get('/api/keys').expect(200);
      expect(keys.body.map((k: Body) => k.name)).to.include(
        `command-line client (device login ${ctx.clock.now().toISOString().slice(0, 10)})`,
      );

      const late = await request(ctx.app).post('/api/auth/device/code').send({}).expect(200);
      ctx.clock.advance(601_000);
      expect((await goCliPoll(late.body.deviceCode)).body).to.deep.equal({ error: 'expired_token' });
    });

    it('takes grant_type out only in the { deviceCode } form; a wrong grant_type stays a 400', async () => {
      const fieldErrors = async (body: Body) => {
        const res = await request(ctx.app).post('/api/auth/device/token').send(body);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        return res.body.details.fieldErrors;
      };
      expect(await fieldErrors({ device_code: 'x' })).to.deep.equal({ grant_type: ['Required'] });
      expect(await fieldErrors({ deviceCode: 'x', grant_type: 'password' })).to.have.keys('grant_type');
      expect(await fieldErrors({ deviceCode: 'x', device_code: 'x', grant_type: DEVICE_GRANT })).to.have.keys('deviceCode');
      expect(await fieldErrors({})).to.deep.equal({ device_code: ['Required'] });
      // An unknown code in either form is the RFC's invalid_grant.
      expect((await goCliPoll('no-such-code')).body).to.deep.equal({ error: 'invalid_grant' });
    });

    it('answers a full account with 409 key_limit_exceeded, which the Go CLI recognises; the login stays approved', async () => {
      const kim = await account(ctx, 'kim');
      await ctx.db('api_keys').insert(
        Array.from({ length: 9 }, (_, i) => ({
          user_id: kim.id,
          name: `filler ${i}`,
          prefix: 'bhk_fill',
          key_hash: sha256(`filler-${kim.id}-${i}`),
        })),
      );
      const code = await request(ctx.app).post('/api/auth/device/code').send({}).expect(200);
      await kim.agent
        .post('/device')
        .type('form')
        .send({ _csrf: kim.csrf, user_code: code.body.userCode, decision: 'approve' })
        .expect(200);
      const full = await goCliPoll(code.body.deviceCode);
      expect(full.status).to.equal(409);
      expect(full.body.error).to.equal('key_limit_exceeded');
      expect(full.body.error_description).to.match(/API key limit reached \(10\).*revoke one/);
      await ctx.db('api_keys').where({ user_id: kim.id, name: 'filler 0' }).update({ revoked_at: ctx.clock.now() });
      ctx.clock.advance(6_000);
      const token = await goCliPoll(code.body.deviceCode);
      expect(token.status, JSON.stringify(token.body)).to.equal(200);
      expect((await request(ctx.app).get('/api/user').set('Authorization', `Bearer ${token.body.key}`).expect(200)).body.username).to.equal(
        kim.username,
      );
    });

    it('llm-bench login: prints the address and code, polls, and saves the key it is given', async function () {
      this.timeout(30_000);
      const server = ctx.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const config = path.join(mkdtempSync(path.join(os.tmpdir(), 'llm-bench-login-')), 'config.json');
      let approval: Promise<unknown> | undefined;
      try {
        const cli = await llmBench(['login', '--leaderboard', appUrl], { LLM_BENCH_CONFIG: config }, (text) => {
          const userCode = /approve the code ([A-Z]{4}-[A-Z]{4})/.exec(text)?.[1];
          if (userCode)
            // .then() sends it now (supertest waits to be awaited otherwise).
            approval ??= ada.agent
              .post('/device')
              .type('form')
              .send({ _csrf: ada.csrf, user_code: userCode, decision: 'approve' })
              .then((res) => res);
        });
        expect(cli.code, cli.stderr).to.equal(0);
        expect(((await approval) as request.Response).status).to.equal(200);
        const saved = JSON.parse(readFileSync(config, 'utf8'));
        expect(saved.leaderboard).to.equal(appUrl);
        const whoami = await request(ctx.app).get('/api/user').set('Authorization', `Bearer ${saved.apiKey}`).expect(200);
        expect(whoami.body.username).to.equal(ada.username);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('answers access_denied after a denial and expired_token after 10 minutes; a signed-out visitor signs in first', async () => {
      const denied = await request(ctx.app).post('/api/auth/device/code').type('form').send({ client_id: 'lmx' }).expect(200);
      await ada.agent
        .post('/device')
        .type('form')
        .send({ _csrf: ada.csrf, user_code: denied.body.user_code, decision: 'deny' })
        .expect(200);
      expect((await poll(denied.body.device_code)).body).to.deep.equal({ error: 'access_denied' });
      const late = await request(ctx.app).post('/api/auth/device/code').send({}).expect(200);
      ctx.clock.advance(601_000);
      expect((await poll(late.body.device_code)).body).to.deep.equal({ error: 'expired_token' });
      expect((await ada.agent.get(`/device?user_code=${late.body.user_code}`)).status).to.equal(404);
      const signedOut = await request(ctx.app).get(`/device?user_code=${late.body.user_code}`);
      expect(signedOut.status).to.equal(303);
      expect(signedOut.headers.location).to.match(/^\/signin\?next=/);
      const badGrant = await request(ctx.app).post('/api/auth/device/token').send({ grant_type: 'password', device_code: 'x' });
      expect(badGrant.status).to.equal(400);
      expect(badGrant.body.details.fieldErrors.grant_type).to.have.length(1);
    });
  });

  // The newer client's `benchmark run --base-url ... --dry-run`: the measured prompt and output
  // whole, and without --command an engineFlags object whose every value is undefined.
  const measuredPayload = (overrides: Body = {}) =>
    validSubmission({
      modelRevision: 'main',
      engineVersion: 'b6120',
      promptTokens: 24,
      outputTokens: 256,
      tokSTotal: 40.1,
      prompt: 'Explain why local inference benchmarks should report prompt prefill throughput, decode throughput, and time to first token.',
      outputText: 'Because each one measures a different bottleneck. '.repeat(200),
      engineFlags: {},
      ...overrides,
    });

  it('benchmark run --dry-run: prompt/outputText become digest and sample, engineFlags {} is not supplied', async () => {
    const payload = measuredPayload();
    const res = await request(ctx.app).post('/api/benchmarks/dry-run').set(jsonWrite(ada)).send(payload);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const { parsed } = res.body;
    expect(parsed).not.to.have.property('prompt');
    expect(parsed).not.to.have.property('outputText');
    expect(parsed).not.to.have.property('engineFlags');
    expect(parsed.promptSha256).to.equal(sha256(payload.prompt as string));
    expect(parsed.promptSample).to.equal(payload.prompt);
    expect(parsed.outputSha256).to.equal(sha256(payload.outputText as string));
    expect(Buffer.byteLength(parsed.outputSample)).to.be.at.most(4096);
    expect((payload.outputText as string).startsWith(parsed.outputSample)).to.equal(true);
    expect(res.body.verification.verified).to.equal(false);
    expect(res.body.verification.issues.join(' ')).to.match(/engineTimingsRaw/);
  });

  it('benchmark run --command: engineFlags with settings still needs commandSnippet; spec counters alone do not', async () => {
    const settings = await request(ctx.app)
      .post('/api/benchmarks/dry-run')
      .set(jsonWrite(ada))
      .send(measuredPayload({ engineFlags: { concurrency: 2 } }));
    expect(settings.status).to.equal(400);
    expect(settings.body.details.fieldErrors).to.have.property('engineFlags.commandSnippet');
    const counters = await request(ctx.app)
      .post('/api/speed-tests/dry-run')
      .set(jsonWrite(ada))
      .send(measuredPayload({ engineFlags: { specDraftTokens: 400, specAcceptedTokens: 300, specAcceptanceRate: 0.75 } }));
    expect(counters.status, JSON.stringify(counters.body)).to.equal(200);
    expect(counters.body.parsed.engineFlags).to.include({ specAcceptedTokens: 300, specAcceptanceRate: 0.75 });
  });

  it('stores evidence as digests and samples, and a consistent run as verified', async () => {
    const prompt = 'Write a haiku about GPUs.';
    const consistent = validSubmission({
      tokSOut: 100,
      ttftMs: 200,
      engineCommit: 'abcdef1',
      prompt,
      outputSha256: sha256('silicon'),
      outputSample: 'silicon',
      engineTimingsRaw: { timings: { predicted_per_second: 101.5, prompt_ms: 196 } },
      samples: [{ tokSOut: 99 }, { tokSOut: 100 }, { tokSOut: 101 }],
      sampleStats: { median: 100, min: 99, max: 101 },
    });
    ctx.clock.advance(2 * 60_000);
    const stored = await request(ctx.app).post('/api/speed-tests').set(jsonWrite(ada)).send(consistent);
    expect(stored.status, JSON.stringify(stored.body)).to.equal(201);
    expect(stored.body).to.include({ verifiedRun: true });
    expect(stored.body.verificationIssues).to.deep.equal([]);
    const row = await ctx.db('speed_test_runs').where({ id: stored.body.id }).first();
    expect(row).to.include({ prompt_sha256: sha256(prompt), prompt_sample: prompt, output_sample: 'silicon' });
    expect(row.samples).to.have.length(3);
    expect(Object.keys(row)).not.to.include('prompt');

    // Timings 20% off tokSOut, a sample that does not hash to its digest, no build named: listed, not verified.
    const dry = await request(ctx.app)
      .post('/api/speed-tests/dry-run')
      .set(jsonWrite(ada))
      .send(
        validSubmission({
          tokSOut: 100,
          outputSha256: sha256('silicon'),
          outputSample: 'carbon',
          engineTimingsRaw: [{ n_prompt: 0, n_gen: 128, avg_ts: 80 }],
        }),
      )
      .expect(200);
    expect(dry.body.verification.verified).to.equal(false);
    const issues = dry.body.verification.issues.join('\n');
    expect(issues).to.match(/outputSample does not hash to outputSha256/);
    expect(issues).to.match(/80\.0 tok\/s decode, 20% from tokSOut 100/);
    expect(issues).to.match(/engineCommit nor engineBuild/);
  });

  it('lmx hardware on two RTX 5090s: the summed nvidia-smi MiB in GiB to a tenth (63.7, not 64) is read as the total', async () => {
    // Both TypeScript clients add memory.total over the cards (32607 MiB for a 5090) and round GiB to one decimal.
    const vramGb = Math.round(((2 * 32607) / 1024) * 10) / 10;
    expect(vramGb).to.equal(63.7);
    const hardware = {
      hwClass: 'DISCRETE_GPU',
      gpuName: 'NVIDIA GeForce RTX 5090',
      gpuCount: 2,
      vramGb,
      cpu: 'AMD Ryzen 9 9950X 16-Core Processor',
      ramGb: 125.4,
      os: 'linux 6.11.0-19-generic',
    };
    const res = await request(ctx.app).post('/api/benchmarks/dry-run').set(jsonWrite(ada)).send(validSubmission({ hardware }));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.parsed.hardware).to.deep.include({ gpuCount: 2, vramGb: 31.85, totalVramGb: 63.7, vramGbReadAsTotal: true });
  });

  it('refuses evidence out of bounds in the contract error shape', async () => {
    const res = await request(ctx.app)
      .post('/api/speed-tests/dry-run')
      .set(jsonWrite(ada))
      .send(validSubmission({ promptSample: 'x'.repeat(4097), samples: Array.from({ length: 101 }, () => ({})), promptSha256: 'nothex' }));
    expect(res.status).to.equal(400);
    expect(res.body.error).to.equal('Validation failed');
    expect(res.body.details.fieldErrors).to.have.keys('promptSample', 'samples', 'promptSha256');
  });
});

describe('Real clients, revision 3: lmx report publish|unpublish and report image upload|delete', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  let ada: Account;
  let bob: Account;

  before(async () => {
    ada = await account(ctx, 'ada');
    bob = await account(ctx, 'bob');
  });

  /** `lmx report create --draft`: the Go CLI's body. */
  async function draft(): Promise<string> {
    const res = await request(ctx.app)
      .post(`/api/models/${fakeHubModels.dense}/reports`)
      .set(jsonWrite(ada))
      .send({
        title: 'Dense on a 4090',
        summary: 'Measured twice.',
        content: '## Results',
        contentFormat: 'gfm',
        benchmarkRunIds: [],
        evalRunIds: [],
        published: false,
      })
      .expect(201);
    return res.body.report.id;
  }
  const png = () =>
    sharp({ create: { width: 12, height: 8, channels: 3, background: '#884422' } })
      .png()
      .toBuffer();

  it('publishes with POST /publication (no body) and unpublishes with DELETE', async () => {
    const id = await draft();
    expect((await request(ctx.app).get(`/api/reports/${id}`)).status, 'a draft is the author’s').to.equal(404);
    const published = await request(ctx.app).post(`/api/reports/${id}/publication`).set(authedRead(ada));
    expect(published.status, JSON.stringify(published.body)).to.equal(200);
    expect(published.body.report).to.include({ id, published: true });
    expect((await request(ctx.app).get(`/api/reports/${id}`)).status).to.equal(200);
    const unpublished = await request(ctx.app).delete(`/api/reports/${id}/publication`).set(authedRead(ada)).expect(200);
    expect(unpublished.body.report).to.include({ published: false });
    expect((await request(ctx.app).post(`/api/reports/${id}/publication`).set(authedRead(bob))).status, 'another user').to.equal(404);
  });

  it("keeps the upload's caption (caption or altText) as the image's alternative text in the report", async () => {
    const id = await draft();
    const upload = await request(ctx.app)
      .post(`/api/reports/${id}/images`)
      .set(authedRead(ada))
      .attach('file', await png(), { filename: 'depth.png', contentType: 'image/png' })
      .field('altText', '  Decode speed by context depth ');
    expect(upload.status, JSON.stringify(upload.body)).to.equal(201);
    expect(upload.body.caption).to.equal('Decode speed by context depth');
    const edited = await request(ctx.app)
      .patch(`/api/reports/${id}`)
      .set(jsonWrite(ada))
      .send({ content: `## Results\n\n[[report-image:${upload.body.id}]]\n` });
    expect(edited.status, JSON.stringify(edited.body)).to.equal(200);
    const report = await request(ctx.app).get(`/api/reports/${id}`).set(authedRead(ada)).expect(200);
    expect(report.body.report.contentHtml).to.include('alt="Decode speed by context depth"');
    // Without one the image says who put it there; one that is not a short line is a 400 naming the field.
    const plain = await request(ctx.app)
      .post(`/api/reports/${id}/images`)
      .set(authedRead(ada))
      .attach('file', await png(), 'p.png');
    expect(plain.body.caption).to.equal(null);
    const tooLong = await request(ctx.app)
      .post(`/api/reports/${id}/images`)
      .set(authedRead(ada))
      .attach('file', await png(), 'q.png')
      .field('caption', 'x'.repeat(301));
    expect(tooLong.status).to.equal(400);
    expect(tooLong.body.details.fieldErrors.caption).to.deep.equal(['Must be text of at most 300 characters']);
  });

  it('uploads an image onto the report (multipart file, altText, sortOrder) and deletes it', async () => {
    const id = await draft();
    const upload = await request(ctx.app)
      .post(`/api/reports/${id}/images`)
      .set(authedRead(ada))
      .attach('file', await png(), { filename: 'evidence.png', contentType: 'image/png' })
      .field('altText', 'Measured output')
      .field('sortOrder', '0');
    expect(upload.status, JSON.stringify(upload.body)).to.equal(201);
    expect(upload.body).to.include({ contentType: 'image/png', width: 12, height: 8 });
    const report = await request(ctx.app).get(`/api/reports/${id}`).set(authedRead(ada)).expect(200);
    expect(report.body.report.imageIds).to.deep.equal([upload.body.id]);
    // The field the pages and older clients use works too.
    const asImage = await request(ctx.app)
      .post(`/api/reports/${id}/images`)
      .set(authedRead(ada))
      .attach('image', await png(), 'b.png');
    expect(asImage.status).to.equal(201);
    expect(
      (
        await request(ctx.app)
          .post(`/api/reports/${id}/images`)
          .set(authedRead(bob))
          .attach('file', await png(), 'c.png')
      ).status,
    ).to.equal(404);

    expect((await request(ctx.app).delete(`/api/reports/${id}/images/${upload.body.id}`).set(authedRead(bob))).status).to.equal(404);
    await request(ctx.app).delete(`/api/reports/${id}/images/${upload.body.id}`).set(authedRead(ada)).expect(204);
    const after = await request(ctx.app).get(`/api/reports/${id}`).set(authedRead(ada)).expect(200);
    expect(after.body.report.imageIds).to.deep.equal([asImage.body.id]);
    expect((await request(ctx.app).get(`/api/marketplace/images/${upload.body.id}/content`)).status, 'the image is gone').to.equal(404);
    expect((await request(ctx.app).delete(`/api/reports/${id}/images/${upload.body.id}`).set(authedRead(ada))).status).to.equal(404);
  });
});

describe('Real clients, revision 2: evidence belongs to revision 3', () => {
  const ctx = useTestApp({ API_REVISION: '2' }, { fakeHub: true });

  it('refuses evidence fields and keeps runs without the verdict', async () => {
    const ada = await account(ctx, 'ada');
    const res = await request(ctx.app)
      .post('/api/benchmarks/dry-run')
      .set(jsonWrite(ada))
      .send(validSubmission({ prompt: 'hello' }));
    expect(res.status).to.equal(400);
    expect(res.body.details.fieldErrors.prompt).to.deep.equal(['Not accepted in API revision 2']);
    const stored = await request(ctx.app).post('/api/benchmarks').set(jsonWrite(ada)).send(validSubmission()).expect(201);
    expect(stored.body).not.to.have.property('verifiedRun');
    const dry = await request(ctx.app).post('/api/benchmarks/dry-run').set(jsonWrite(ada)).send(validSubmission()).expect(200);
    expect(dry.body).not.to.have.property('verification');
    // The Go CLI's engineFlags.warmup is revision 3's too.
    const warmup = await request(ctx.app)
      .post('/api/benchmarks/dry-run')
      .set(jsonWrite(ada))
      .send(validSubmission({ engineFlags: { commandSnippet: 'llama-bench -m m.gguf', warmup: 'llama-bench-default' } }));
    expect(warmup.status).to.equal(400);
    expect(warmup.body.details.fieldErrors['engineFlags.warmup']).to.deep.equal(['Not accepted in API revision 2']);
  });
});

for (const { revision, root } of QUALITY_REVISIONS) {
  describe(`Real clients, revision ${revision}: quality commands (client paths under ${CLIENT_QUALITY_ROOT})`, () => {
    let target: FakeOpenAi;
    after(() => target?.close());
    const ctx = useTestApp({ API_REVISION: String(revision), EXECUTE_ALLOW_HOSTS: '127.0.0.1', EXECUTE_WORKERS: '0' }, { fakeHub: true });
    let ada: Account;
    let bob: Account;

    before(async () => {
      target = await startFakeOpenAi({ models: [fakeHubModels.dense], answer: () => '4' });
      ada = await account(ctx, 'ada');
      bob = await account(ctx, 'bob');
    });

    it('eval execute <suite> --model <hub id>: model is the hub id and the served name', async () => {
      const suite = await registeredApprovedSuite(ctx, root, ada);
      const payload = { suiteSlug: suite.slug, model: fakeHubModels.dense, baseUrl: target.url, autoSubmit: false, modelRevision: 'main' };
      const res = await request(ctx.app).post(`${CLIENT_QUALITY_ROOT}/execute`).set(jsonWrite(ada)).send(payload);
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      expect(res.body.execution).to.include({ hfId: fakeHubModels.dense, model: fakeHubModels.dense });
      const served = await request(ctx.app)
        .post(`${CLIENT_QUALITY_ROOT}/execute`)
        .set(jsonWrite(ada))
        .send({ ...payload, servedModel: 'local-name' })
        .expect(202);
      expect(served.body.execution).to.include({ hfId: fakeHubModels.dense, model: 'local-name' });
      const neither = await request(ctx.app)
        .post(`${CLIENT_QUALITY_ROOT}/execute/dry-run`)
        .set(jsonWrite(ada))
        .send({ suiteSlug: suite.slug, baseUrl: target.url });
      expect(neither.status).to.equal(400);
      expect(neither.body.details.fieldErrors.hfId).to.deep.equal(['Required (or give model, the hub id of the model)']);
    });

    it('eval suite search: list items carry suiteDoc with task keys and no items', async () => {
      const suite = await registeredApprovedSuite(ctx, root, ada);
      const res = await request(ctx.app).get(`${CLIENT_QUALITY_ROOT}/suites`).expect(200);
      const listed = res.body.suites.find((s: Body) => s.slug === suite.slug);
      expect(listed.suiteDoc.tasks.map((task: Body) => task.key)).to.deep.equal(['arith', 'colours']);
      expect(listed.suiteDoc.tasks.map((task: Body) => task.itemCount)).to.deep.equal([4, 2]);
      expect(JSON.stringify(listed.suiteDoc)).not.to.include('forty-two');
    });

    it('eval storage upload / download and eval artifact upload: announce, PUT, complete, download', async () => {
      const bytes = Buffer.from(`${JSON.stringify({ taskKey: 'arith', itemIndex: 0, response: '4' })}\n`);
      const metadata = {
        kind: 'artifact',
        filename: 'traces.jsonl',
        contentType: 'application/jsonl',
        format: 'jsonl',
        byteSize: bytes.length,
        sha256: sha256(bytes),
      };
      const upload = await request(ctx.app).post(`${CLIENT_QUALITY_ROOT}/storage/upload-url`).set(jsonWrite(ada)).send(metadata);
      expect(upload.status, JSON.stringify(upload.body)).to.equal(200);
      expect(upload.body.storageRef).to.deep.equal({ key: upload.body.key });
      expect(upload.body.headers).to.deep.equal({ 'Content-Type': 'application/jsonl' });
      // The PUT carries only the signed URL's own credentials.
      const put = await request(ctx.app).put(pathOf(upload.body.uploadUrl)).set(upload.body.headers).send(bytes);
      expect(put.status, JSON.stringify(put.body)).to.equal(200);
      const notYet = await request(ctx.app).get(`${CLIENT_QUALITY_ROOT}/storage/download-url?key=${upload.body.key}`).set(authedRead(ada));
      expect(notYet.status, 'not downloadable before complete').to.equal(404);
      const completed = await request(ctx.app)
        .post(`${CLIENT_QUALITY_ROOT}/storage/complete`)
        .set(jsonWrite(ada))
        .send({ storageRef: upload.body.storageRef });
      expect(completed.status, JSON.stringify(completed.body)).to.equal(200);
      expect(completed.body.object).to.include({ key: upload.body.key, byteSize: bytes.length, sha256: sha256(bytes), uploaded: true });

      const signed = await request(ctx.app)
        .get(`${CLIENT_QUALITY_ROOT}/storage/download-url?key=${encodeURIComponent(upload.body.key)}`)
        .set(authedRead(ada))
        .expect(200);
      const download = await request(ctx.app).get(pathOf(signed.body.downloadUrl)).buffer(true).parse(binaryParser);
      expect(download.status).to.equal(200);
      expect(download.headers['content-type']).to.match(/^application\/octet-stream/);
      expect(Buffer.compare(download.body as Buffer, bytes)).to.equal(0);
      // Another user, or nobody, gets nothing for an object no approved suite uses.
      expect(
        (await request(ctx.app).get(`${CLIENT_QUALITY_ROOT}/storage/download-url?key=${upload.body.key}`).set(authedRead(bob))).status,
      ).to.equal(404);
      expect((await request(ctx.app).get(`${CLIENT_QUALITY_ROOT}/storage/download-url?key=${upload.body.key}`)).status).to.equal(404);
    });

    it('takes a JSON file as bytes (never parsed), and refuses other bytes, altered and expired URLs', async () => {
      const bytes = Buffer.from('{"items": [1, 2, 3]}');
      const announce = (body: Body) => request(ctx.app).post(`${root}/storage/upload-url`).set(jsonWrite(ada)).send(body);
      const upload = await announce({
        kind: 'dataset',
        filename: 'items.json',
        contentType: 'application/json',
        format: 'json',
        byteSize: bytes.length,
        sha256: sha256(bytes),
        itemCount: 3,
      }).expect(200);
      const url = pathOf(upload.body.uploadUrl);
      const other = await request(ctx.app).put(url).set('Content-Type', 'application/json').send('{"items": [1, 2, 4]}');
      expect(other.status).to.equal(400);
      expect(other.body.error).to.match(/SHA-256/);
      const altered = url.replace(/signature=([0-9a-f])/, (_, c: string) => `signature=${c === '0' ? '1' : '0'}`);
      // As text: supertest would turn a Buffer under a JSON content type into JSON of the Buffer.
      expect((await request(ctx.app).put(altered).set('Content-Type', 'application/json').send(bytes.toString())).status).to.equal(403);
      const put = await request(ctx.app).put(url).set('Content-Type', 'application/json').send(bytes.toString());
      expect(put.status, JSON.stringify(put.body)).to.equal(200);
      const later = await announce({
        kind: 'artifact',
        filename: 'x.bin',
        contentType: 'application/octet-stream',
        format: 'bin',
        byteSize: 1,
        sha256: sha256('x'),
      }).expect(200);
      ctx.clock.advance(16 * 60_000);
      const expired = await request(ctx.app)
        .put(pathOf(later.body.uploadUrl))
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from('x'));
      expect(expired.status).to.equal(403);
      expect(expired.body.error).to.match(/expired/);
      const tooBig = await announce({
        kind: 'artifact',
        filename: 'x',
        contentType: 'a/b',
        format: 'bin',
        byteSize: 64 * 1024 * 1024 + 1,
        sha256: sha256('x'),
      });
      expect(tooBig.status).to.equal(400);
      expect(tooBig.body.details.fieldErrors.byteSize).to.have.length(1);
    });

    it('keeps to 200 objects per user, and sweeps uploads never completed after 24 hours', async () => {
      const carol = await account(ctx, 'carol');
      const row = {
        owner_user_id: carol.id,
        kind: 'artifact',
        filename: 'f',
        content_type: 'a/b',
        format: 'bin',
        byte_size: 1,
        sha256: 'a'.repeat(64),
      };
      await ctx.db('storage_objects').insert(Array.from({ length: 200 }, () => row));
      const full = await request(ctx.app)
        .post(`${root}/storage/upload-url`)
        .set(jsonWrite(carol))
        .send({ kind: 'artifact', filename: 'f', contentType: 'a/b', format: 'bin', byteSize: 1, sha256: sha256('x') });
      expect(full.status).to.equal(409);
      expect(full.body.error).to.match(/200 objects/);
      await ctx
        .db('storage_objects')
        .where({ owner_user_id: carol.id })
        .update({ created_at: new Date(ctx.clock.now().getTime() - 25 * 3600_000) });
      const swept = await createOfflineServices(ctx.db, getRevisionProfile(revision), ctx.clock).storage.sweepUnfinished(ctx.clock.now());
      expect(swept).to.be.at.least(200);
      expect(await ctx.db('storage_objects').where({ owner_user_id: carol.id }).first('id')).to.equal(undefined);
    });

    it('eval run with a key: the run bundle carries the whole document and signed dataset URLs', async () => {
      const suite = await registeredApprovedSuite(ctx, root, ada);
      const res = await request(ctx.app).get(`${CLIENT_QUALITY_ROOT}/suites/${suite.slug}/run-bundle`).set(authedRead(ada));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ slug: suite.slug, name: suite.name, runner: 'CUSTOM' });
      expect(res.body.suite).to.deep.include({ slug: suite.slug, runner: 'CUSTOM' });
      expect(res.body.suiteDoc.tasks[0].dataset.items).to.have.length(4);
      expect(res.body.downloadUrls).to.deep.equal({});
      expect((await request(ctx.app).get(`${CLIENT_QUALITY_ROOT}/suites/${suite.slug}/run-bundle`)).status).to.equal(401);
      expect((await request(ctx.app).get(`${CLIENT_QUALITY_ROOT}/suites/no-such-suite/run-bundle`).set(authedRead(ada))).status).to.equal(
        404,
      );
    });

    if (getRevisionProfile(revision).quality!.submissions) {
      it('a shard task carries dataset.downloadUrl (JSON Lines) in the suite, the list and the run bundle', async () => {
        const { suite, dataset } = await approvedShardSuite(ctx, root, ada);
        const one = await request(ctx.app).get(`${CLIENT_QUALITY_ROOT}/suites/${suite.slug}`).expect(200);
        const shardTask = one.body.suiteDoc.tasks[0];
        expect(shardTask.dataset).to.include({ source: 'shard', datasetSlug: dataset.slug, format: 'jsonl' });
        const items = await request(ctx.app).get(pathOf(shardTask.dataset.downloadUrl));
        expect(items.status).to.equal(200);
        expect(items.headers['content-type']).to.match(/^application\/x-ndjson/);
        const lines = items.text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        expect(lines).to.deep.equal(ARITHMETIC_ITEMS);

        const bundle = await request(ctx.app)
          .get(`${CLIENT_QUALITY_ROOT}/suites/${suite.slug}/run-bundle`)
          .set(authedRead(ada))
          .expect(200);
        expect(Object.keys(bundle.body.downloadUrls)).to.deep.equal(['arith']);
        expect(bundle.body.suiteDoc.tasks[0].dataset.downloadUrl).to.equal(bundle.body.downloadUrls.arith);
        const list = await request(ctx.app).get(`${CLIENT_QUALITY_ROOT}/suites`).expect(200);
        const listed = list.body.suites.find((s: Body) => s.slug === suite.slug);
        expect(listed.suiteDoc.tasks[0]).to.include({ itemCount: 4 });
        expect(listed.suiteDoc.tasks[0].dataset.downloadUrl).to.be.a('string');

        // The URL grants that dataset alone, for 15 minutes.
        const other = pathOf(shardTask.dataset.downloadUrl).replace(dataset.slug, 'some-other-dataset');
        expect((await request(ctx.app).get(other)).status).to.equal(403);
        ctx.clock.advance(15 * 60_000 + 1000);
        expect((await request(ctx.app).get(pathOf(shardTask.dataset.downloadUrl))).status).to.equal(403);
      });

      it('eval dataset list: GET {root}/datasets lists approved datasets, paged', async () => {
        const { dataset } = await approvedShardSuite(ctx, root, ada);
        const pending = { slug: uniqueSlug('pending'), name: 'Pending', shards: [{ items: ARITHMETIC_ITEMS }] };
        await request(ctx.app).post(`${root}/datasets`).set(jsonWrite(ada)).send(pending).expect(201);
        const res = await request(ctx.app).get(`${root}/datasets`).expect(200);
        const slugs = res.body.datasets.map((d: Body) => d.slug);
        expect(slugs).to.include(dataset.slug);
        expect(slugs).not.to.include(pending.slug);
        expect(res.body).to.include({ limit: 20, offset: 0 });
        expect((await request(ctx.app).get(`${root}/datasets?limit=0`)).status).to.equal(400);
      });
    }

    if (revision === 3) {
      it('answers the /api/evals alias with its own successor link, the quality root', async () => {
        const res = await request(ctx.app).get(`${CLIENT_QUALITY_ROOT}/suites`).expect(200);
        expect(res.headers.deprecation).to.equal('true');
        expect(res.headers.link).to.equal('</api/benchmarks>; rel="successor-version"');
        const results = await request(ctx.app).get('/api/benchmarks').expect(200);
        expect(results.headers.link).to.equal('</api/speed-tests>; rel="successor-version"');
      });
    }
  });
}

/**
 * The Go CLI (`cmd/lmx` of LottoLottoLotto/localmaxxing-cli): its requests replayed as it
 * builds them (fetchJSON: JSON body with `Content-Type: application/json`, `Authorization:
 * Bearer` when a key is known). docs/real-clients.md lists every request it makes and how
 * this service answers it.
 */
describe('Real clients, revision 3: the Go CLI (lmx) replayed', () => {
  let target: FakeOpenAi;
  after(() => target?.close());
  const ctx = useTestApp({ API_REVISION: '3', EXECUTE_ALLOW_HOSTS: '127.0.0.1', EXECUTE_WORKERS: '0' }, { fakeHub: true });
  let ada: Account;

  before(async () => {
    target = await startFakeOpenAi({ models: [fakeHubModels.dense], answer: () => '4' });
    ada = await account(ctx, 'ada');
  });

  /** What `lmx hardware --out hardware.json` writes on a Linux machine with two cards (nvidia-smi). */
  const detectedHardware = () => ({
    hwClass: 'DISCRETE_GPU',
    cpu: 'AMD Ryzen 9 7950X 16-Core Processor',
    os: 'linux',
    cpuThreads: 32,
    gpuCount: 2,
    gpus: [
      { name: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
      { name: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
    ],
    gpuName: 'NVIDIA GeForce RTX 4090',
    vramGb: 24,
    totalVramGb: 48,
  });

  // toBenchmarkSubmit: the listed top-level fields, hardware through normalizeHardwareForSubmit,
  // engineFlags as commandSnippet plus the known flags (llama-bench's warmup among them).
  const localLlamaBench = () => ({
    hfId: fakeHubModels.dense,
    modelRevision: 'main',
    engineName: 'llama.cpp',
    quantization: 'Q4_K_M',
    backend: 'cuda',
    promptTokens: 512,
    outputTokens: 128,
    ttftMs: 204.8,
    tokSOut: 95.3,
    tokSPrefill: 2500.1,
    tokSTotal: 412.6,
    hardware: {
      hwClass: 'DISCRETE_GPU',
      gpuName: 'NVIDIA GeForce RTX 4090',
      vramGb: 24,
      gpuCount: 1,
      cpu: 'AMD Ryzen 9 7950X 16-Core Processor',
      os: 'linux',
    },
    engineFlags: { commandSnippet: 'llama-bench -m /models/dense-7b.Q4_K_M.gguf -p 512 -n 128', warmup: 'llama-bench-default' },
  });

  it('lmx benchmark dry-run|submit: the llama-bench payload, engineFlags.warmup included', async () => {
    const dry = await request(ctx.app).post('/api/benchmarks/dry-run').set(jsonWrite(ada)).send(localLlamaBench());
    expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
    expect(dry.body.parsed.engineFlags).to.include({ warmup: 'llama-bench-default' });
    ctx.clock.advance(2 * 60_000);
    const stored = await request(ctx.app).post('/api/benchmarks').set(jsonWrite(ada)).send(localLlamaBench());
    expect(stored.status, JSON.stringify(stored.body)).to.equal(201);
    const run = await request(ctx.app).get(`/api/speed-tests/${stored.body.id}`).expect(200);
    expect(run.body.engineFlags).to.include({ warmup: 'llama-bench-default' });
  });

  it('lmx benchmark submit: a remote endpoint run on two cards (gpus list, a warmup count)', async () => {
    const hardware = detectedHardware();
    const remote = {
      ...localLlamaBench(),
      promptTokens: 24,
      outputTokens: 256,
      tokSPrefill: undefined,
      ttftMs: 95.2,
      tokSOut: 88.4,
      tokSTotal: 80.1,
      // normalizeHardwareForSubmit with more than one card: the gpus list, no flat fields.
      hardware: {
        hwClass: 'DISCRETE_GPU',
        gpus: hardware.gpus.map((g) => ({ gpuName: g.name, vramGb: g.vramGb })),
        cpu: hardware.cpu,
        os: 'linux',
      },
      engineFlags: { commandSnippet: `# Remote endpoint: http://10.0.0.5:8080  servedModel: dense`, warmup: 1 },
    };
    ctx.clock.advance(2 * 60_000);
    const res = await request(ctx.app).post('/api/benchmarks').set(jsonWrite(ada)).send(remote);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.engineFlags).to.include({ warmup: 1 });
    expect(res.body.hardware).to.include({ gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: 2, vramGb: 24, totalVramGb: 48 });
  });

  it('speed-test submissions edit: PATCH /api/runs/{id} with flat fields edits single engine flags', async () => {
    ctx.clock.advance(2 * 60_000);
    const stored = await request(ctx.app).post('/api/benchmarks').set(jsonWrite(ada)).send(localLlamaBench()).expect(201);
    const edit = (body: Body, who = ada) => request(ctx.app).patch(`/api/runs/${stored.body.id}`).set(jsonWrite(who)).send(body);
    const edited = await edit({ tensorParallel: 2, prefixCaching: false, notes: 'corrected' });
    expect(edited.status, JSON.stringify(edited.body)).to.equal(200);
    expect(edited.body.notes).to.equal('corrected');
    expect(edited.body.engineFlags).to.deep.include({
      commandSnippet: localLlamaBench().engineFlags.commandSnippet,
      warmup: 'llama-bench-default',
      tensorParallel: 2,
      prefixCaching: false,
    });
    const dropped = await edit({ warmup: null }).expect(200);
    expect(dropped.body.engineFlags).not.to.have.property('warmup');
    expect(dropped.body.engineFlags).to.include({ tensorParallel: 2 });

    const unknown = await edit({ tensorParalel: 2 });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.details.fieldErrors).to.have.keys('tensorParalel');
    expect((await edit({ tensorParallel: 0 })).body.details.fieldErrors).to.have.keys('tensorParallel');
    const bob = await account(ctx, 'bob');
    expect((await edit({ notes: 'mine now' }, bob)).status, "another user's run").to.equal(404);
  });

  it('refuses a warmup that is neither a count nor a short label', async () => {
    const res = await request(ctx.app)
      .post('/api/benchmarks/dry-run')
      .set(jsonWrite(ada))
      .send({ ...localLlamaBench(), engineFlags: { commandSnippet: 'llama-bench -m m.gguf', warmup: -1 } });
    expect(res.status).to.equal(400);
    expect(res.body.details.fieldErrors).to.have.keys('engineFlags.warmup');
  });

  it('lmx context and lmx hardware validate: GET /api/agent-context without a key', async () => {
    const res = await request(ctx.app).get('/api/agent-context').expect(200);
    // hardware validate checks names against hardwareOptions.discreteGpuNames and .chipVendors when
    // present; names here are free text resolved to the catalogue, so the lists are not published.
    expect(res.body.hardwareOptions).to.be.an('object');
    expect(res.body.hardwareOptions).not.to.have.any.keys('discreteGpuNames', 'chipVendors');
  });

  it('lmx model search: GET /api/models/search?q=&limit= answers items carrying hfId', async () => {
    await request(ctx.app).post('/api/benchmarks').set(jsonWrite(ada)).send(localLlamaBench());
    const res = await request(ctx.app).get(`/api/models/search?q=${encodeURIComponent('dense')}&limit=10`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const items = Array.isArray(res.body) ? res.body : (res.body.models ?? res.body.results ?? res.body.data);
    expect(items.map((item: Body) => item.hfId ?? item.id ?? item.modelId)).to.include(fakeHubModels.dense);
  });

  it('lmx eval execute with --quantization and --notes left out (sent as empty strings)', async () => {
    const suite = await registeredApprovedSuite(ctx, '/api/benchmarks', ada);
    const body = {
      suiteSlug: suite.slug,
      model: fakeHubModels.dense,
      baseUrl: target.url,
      autoSubmit: false,
      quantization: '',
      modelRevision: 'main',
      notes: '',
    };
    const res = await request(ctx.app).post('/api/evals/execute').set(jsonWrite(ada)).send(body);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body.execution).to.include({ hfId: fakeHubModels.dense });
  });

  it('lmx eval run --dry-run|--submit with the hardware file lmx hardware writes', async () => {
    const suite = await registeredApprovedSuite(ctx, '/api/benchmarks', ada);
    // normalizeHardwarePayload renames gpus[].name to gpuName and keeps everything else.
    const raw = detectedHardware();
    const hardware = { ...raw, gpus: raw.gpus.map(({ name, ...gpu }) => ({ ...gpu, gpuName: name })) };
    const payload = {
      suiteSlug: suite.slug,
      hfId: fakeHubModels.dense,
      quantization: 'Q4_K_M',
      executionMode: 'CUSTOM_LOCAL',
      judgeMode: 'NONE',
      runnerVersion: 'localmaxxing-go custom-local',
      results: { arith: { score: 0.75, nSamples: 4, nShots: 0 }, colours: { score: 0.5, nSamples: 2, nShots: 0 } },
      artifacts: [
        {
          taskKey: 'arith',
          itemIndex: 0,
          promptHash: sha256('Q: What is 2 + 2?\nA:'),
          question: 'What is 2 + 2?',
          prompt: 'Q: What is 2 + 2?\nA:',
          response: '4',
          // Set when the task has answerExtraction (scoreCustomEvalItem).
          extractedAnswer: '4',
          score: 1,
          latencyMs: 120,
        },
      ],
      runConfig: { aggregatePreview: 0.6875 },
      hardware,
    };
    // Without --quantization the client sends it as "".
    const dry = await request(ctx.app)
      .post('/api/evals/runs/dry-run')
      .set(jsonWrite(ada))
      .send({ ...payload, quantization: '' });
    expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
    ctx.clock.advance(6 * 60_000);
    const stored = await request(ctx.app).post('/api/evals/runs').set(jsonWrite(ada)).send(payload);
    expect(stored.status, JSON.stringify(stored.body)).to.equal(201);
    const { details } = await ctx
      .db('quality_runs as r')
      .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
      .where('r.id', stored.body.id)
      .first('h.details');
    expect(details).to.include({ gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: 2, vramGb: 24 });
    expect(details).not.to.have.any.keys('cpuThreads', 'gpus');

    // A file whose flat fields disagree with its cards is refused, not guessed at.
    const mixed = await request(ctx.app)
      .post('/api/evals/runs/dry-run')
      .set(jsonWrite(ada))
      .send({ ...payload, hardware: { ...hardware, gpuName: 'NVIDIA GeForce RTX 3090' } });
    expect(mixed.status).to.equal(400);
    expect(mixed.body.details.fieldErrors).to.have.property('hardware.gpuName');
  });

  it('lmx eval execute --hardware sends the file as lmx hardware wrote it (gpus[].name)', async () => {
    const suite = await registeredApprovedSuite(ctx, '/api/benchmarks', ada);
    const body = {
      suiteSlug: suite.slug,
      model: fakeHubModels.dense,
      baseUrl: target.url,
      autoSubmit: true,
      quantization: 'Q4_K_M',
      modelRevision: 'main',
      notes: '',
      hardware: detectedHardware(),
    };
    const res = await request(ctx.app).post('/api/evals/execute/dry-run').set(jsonWrite(ada)).send(body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });

  it('lmx eval storage upload: complete takes the key string the client picks as storageRef', async () => {
    const bytes = Buffer.from('{"taskKey":"arith","itemIndex":0}\n');
    const metadata = {
      kind: 'artifact',
      filename: 'traces.jsonl',
      contentType: 'application/jsonl',
      format: 'jsonl',
      byteSize: bytes.length,
      sha256: sha256(bytes),
    };
    const upload = await request(ctx.app).post('/api/evals/storage/upload-url').set(jsonWrite(ada)).send(metadata).expect(200);
    // firstString(upload, "storageRef", "key"): storageRef is an object, so the client takes `key`.
    await request(ctx.app).put(pathOf(upload.body.uploadUrl)).set(upload.body.headers).send(bytes).expect(200);
    const completed = await request(ctx.app).post('/api/evals/storage/complete').set(jsonWrite(ada)).send({ storageRef: upload.body.key });
    expect(completed.status, JSON.stringify(completed.body)).to.equal(200);
    expect(completed.body.object).to.include({ key: upload.body.key, uploaded: true });
  });

  it('out of contract: eval shard and eval terminal publish answer 404 or 400 in the contract error shape', async () => {
    const shard = await request(ctx.app).get('/api/evals/gsm8k/shard?questions=200').set(authedRead(ada));
    const coverage = await request(ctx.app).get(`/api/evals/gsm8k/coverage?hfId=${fakeHubModels.dense}&harnessKey=x`).set(authedRead(ada));
    const submit = await request(ctx.app).post('/api/evals/gsm8k/submit').set(jsonWrite(ada)).send({ shardIndex: 1, results: [] });
    const importDry = await request(ctx.app).post('/api/benchmarks/import/dry-run').set(jsonWrite(ada)).send({ slug: 'tb', jsonl: '' });
    for (const [label, res] of Object.entries({ shard, coverage, submit, importDry })) {
      expect(res.status, label).to.equal(404);
      expect(res.body.error).to.be.a('string');
    }
    const kind = await request(ctx.app)
      .post('/api/benchmarks/storage/upload-url')
      .set(jsonWrite(ada))
      .send({
        kind: 'suite-dataset',
        filename: 'd.jsonl',
        contentType: 'application/x-ndjson',
        format: 'jsonl',
        byteSize: 10,
        sha256: sha256('x'),
        itemCount: 1,
      });
    expect(kind.status).to.equal(400);
    expect(kind.body.details.fieldErrors).to.have.keys('kind');
  });

  it('lmx setups and lmx auth keys with a key: 403, keys and setups are session-only by the spec', async () => {
    for (const [method, path] of [
      ['get', '/api/setups'],
      ['get', '/api/keys'],
      ['post', '/api/keys'],
    ] as const) {
      const res = await request(ctx.app)
        [method](path)
        .set(jsonWrite(ada))
        .send(method === 'post' ? { name: 'cli' } : undefined);
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.body.error).to.be.a('string');
    }
  });
});

/** supertest's parser for a body kept as bytes. */
function binaryParser(res: request.Response, done: (error: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  const stream = res as unknown as NodeJS.ReadableStream;
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}
