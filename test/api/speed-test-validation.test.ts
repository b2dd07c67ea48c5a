/**
 * Validation and normalisation of speed-test submissions, run for each API revision.
 *
 * Sources: spec/interface.md "Speed-test run", "Hardware", "Engine flags", "Errors",
 * "Limits" (field bounds), "Versioning"; DECISIONS.md "Revisions", "Hardware and costs".
 * Revisions 2 and 3 are checked through `POST {results}/dry-run` (no write); revision 1
 * has no dry-run, so it is checked with real submissions, moving the clock past the
 * 5-minute window before each one.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp, type TestContext } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';

type Revision = 1 | 2 | 3;
type Body = Record<string, unknown>;
type Message = string | RegExp;

const REVISIONS = [1, 2, 3] as const;
const HF_ID = fakeHubModels.dense;
/** More than any revision's submission window (5 minutes in revisions 1 and 2, 1 in 3). */
const PAST_THE_WINDOW_MS = 6 * 60 * 1000;
const THIS_YEAR = new Date().getUTCFullYear();

const CORE_ENGINES = [
  'llama.cpp', 'vllm', 'sglang', 'ollama', 'lmstudio', 'exllamav2', 'tgi', 'tensorrt-llm',
  'mlx', 'text-generation-webui', 'lmdeploy', 'mlc-llm', 'hipfire', 'tinygrad',
];
const ENGINES: Record<Revision, string[]> = {
  1: [...CORE_ENGINES, 'candle', 'ctransformers'],
  2: CORE_ENGINES,
  3: [...CORE_ENGINES, 'exllamav3', 'bunn-llama', 'freetoken', 'llmd', 'ninfer', 'atlas', 'lucebox', 'dwarfstar', 'ember'],
};
/** Every name some revision accepts, plus spellings no revision accepts. */
const ENGINE_CANDIDATES = [...new Set([...ENGINES[1], ...ENGINES[3], 'LLAMA.CPP', 'Vllm', 'llamacpp'])];

const CANONICAL_REPOSITORIES = {
  freetoken: 'https://github.com/FlashML-org/FreeToken',
  ninfer: 'https://github.com/Neroued/ninfer',
} as const;

const SNIPPET = 'llama-server -m /models/dense-7b.Q4_K_M.gguf';
const COST_ITEM = { component: 'NVIDIA GeForce RTX 4090', condition: 'USED', yearPurchased: 2023, price: 1450, currency: 'USD' };
const REVISION_3_ONLY_RUN_FIELDS = ['engineRepository', 'engineBuild', 'engineCommit', 'gpuPowerWatts', 'totalPowerWatts', 'hardwareCost'];

const METRIC_422: Partial<Record<Revision, { error: string }>> = {
  1: { error: 'At least one performance metric (TTFT, tok/s output, or tok/s total) is required' },
  2: { error: 'At least one additional metric (TTFT, prefill tok/s, tok/s total, or peak VRAM) is required alongside tok/s output' },
};

// ---------------------------------------------------------------------------
// Payload builders
// ---------------------------------------------------------------------------

/** `validSubmission()` with this file's TTFT of 120 ms; `undefined` drops a field. */
function payload(overrides: Body = {}): Body {
  return validSubmission({ ttftMs: 120, ...overrides });
}

/**
 * `payload()` with one value set at a dotted path. `engineFlags.*` paths get the
 * commandSnippet that revisions 2 and 3 require; `hardwareCost.0.*` paths get a valid item.
 */
function withValue(path: string, value: unknown): Body {
  const body = structuredClone(payload());
  const keys = path.split('.');
  if (keys[0] === 'engineFlags') body.engineFlags = { commandSnippet: SNIPPET };
  if (keys[0] === 'hardwareCost' && keys.length > 1) body.hardwareCost = [{ ...COST_ITEM }];
  let target = body as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
  target[keys.at(-1)!] = value;
  return body;
}

/** The value at a dotted path of a response body. */
function valueAt(body: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], body);
}

function gpuSlots(n: number) {
  return Array.from({ length: n }, (_, i) => ({ gpuName: `Accelerator ${i}`, vramGb: 16 }));
}

function hexOf(length: number): string {
  return '0123456789abcdef'.repeat(5).slice(0, length);
}

/** Every engine flag of the spec at a valid value (vllm launch command). */
function maximalEngineFlags(revision: Revision): Body {
  return {
    commandSnippet: 'vllm serve fakeorg/Dense-7B --tensor-parallel-size 2 --gpu-memory-utilization 0.9 --quantization awq',
    tensorParallel: 2,
    pipelineParallel: 1,
    gpuLayers: 99,
    cpuLayers: 0,
    cpuOffloadGb: 0,
    splitMode: 'layer',
    gpuMemUtil: 0.9,
    kvCacheDtype: 'fp8',
    kvCacheSizeMb: 8192,
    prefixCaching: true,
    attentionBackend: 'flash_attn',
    flashAttn: true,
    chunkedPrefill: true,
    prefillChunkSize: 2048,
    contBatching: true,
    maxRunningSeqs: 64,
    schedulerDelayFactor: 0.5,
    ropeScaling: 'yarn',
    ropeScale: 4,
    yarnExtFactor: 1,
    engineQuant: 'awq',
    sglangQuant: 'fp8',
    concurrency: 8,
    numParallel: 4,
    specDecoding: true,
    specMethod: 'eagle',
    specModel: 'fakeorg/Draft-1B',
    specDraftModel: 'fakeorg/Draft-0.5B',
    specNumTokens: 5,
    specNgramSize: 3,
    specDraftTp: 1,
    ...(revision === 3 ? { specDraftWindowSize: 512 } : {}),
    mtpEnabled: true,
    mtpDraftLayers: 1,
    temperature: 0.7,
    topP: 0.95,
    topK: 40,
    minP: 0.05,
    repeatPenalty: 1.1,
    mirostat: 2,
    extraFlags: '--enforce-eager --disable-log-requests',
  };
}

/** Every submission field the revision has, each at a valid value. */
function maximalPayload(revision: Revision): Body {
  return {
    hfId: HF_ID,
    modelRevision: 'a1b2c3d4e5',
    hardware: {
      hwClass: 'DISCRETE_GPU',
      gpuName: 'NVIDIA GeForce RTX 4090',
      gpuCount: 2,
      vramGb: 24,
      cpu: 'AMD Ryzen 9 7950X',
      ramGb: 128,
      os: 'linux',
      powerWatts: 900,
    },
    engineName: 'vllm',
    engineVersion: '0.6.3.post1',
    quantization: 'AWQ',
    backend: 'cuda',
    tokSOut: 85.5,
    tokSTotal: 120.25,
    ttftMs: 95.5,
    peakVramGb: 21.75,
    promptTokens: 512,
    outputTokens: 256,
    contextLength: 8192,
    batchSize: 4,
    notes: 'Two cards, tensor parallel, warm cache.',
    engineFlags: maximalEngineFlags(revision),
    ...(revision >= 2 ? { tokSPrefill: 2400.5, prefillTokens: 1024 } : {}),
    ...(revision === 3
      ? {
          engineRepository: 'https://github.com/vllm-project/vllm',
          engineBuild: 'cu124-release',
          engineCommit: 'ABCDEF0123456789',
          gpuPowerWatts: [300, 250.5],
          hardwareCost: [COST_ITEM, { component: 'AMD Ryzen 9 7950X', condition: 'NEW', yearPurchased: THIS_YEAR, price: 549.99, currency: 'EUR' }],
        }
      : {}),
  };
}

// ---------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------

/** The contract's 400 body with errors on exactly the given paths, each carrying a message that matches. */
function expectFieldErrors(res: request.Response, expected: Record<string, Message | undefined>): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(400);
  expect(res.body.error).to.equal('Validation failed');
  expect(res.body.details.formErrors).to.deep.equal([]);
  expect(res.body.details.fieldErrors).to.have.all.keys(...Object.keys(expected));
  for (const [path, message] of Object.entries(expected)) {
    const messages: unknown[] = res.body.details.fieldErrors[path];
    expect(messages, path).to.be.an('array').that.is.not.empty;
    if (typeof message === 'string') expect(messages, path).to.include(message);
    else if (message) expect(messages.some((m) => message.test(String(m))), `${path}: ${JSON.stringify(messages)} ~ ${message}`).to.equal(true);
  }
}

function expectFieldError(res: request.Response, path: string, message?: Message): void {
  expectFieldErrors(res, { [path]: message });
}

function show(value: unknown): string {
  if (typeof value === 'string' && value.length > 24) return `a ${value.length}-char string`;
  return JSON.stringify(value);
}

const atMost = (n: number) => new RegExp(`at most ${n} characters`, 'i');

// ---------------------------------------------------------------------------
// Field bounds, as a table
// ---------------------------------------------------------------------------

interface BoundCase {
  /** Where the value goes and where its error must land. */
  path: string;
  ok: unknown[];
  bad: [value: unknown, message: Message][];
  /** Builds the body for a value when `withValue(path, value)` does not fit. */
  build?: (value: unknown) => Body;
  label?: (value: unknown) => string;
  revisions?: readonly Revision[];
}

function boundCases(revision: Revision): BoundCase[] {
  const temperatureMax = revision === 1 ? 2 : 100;
  const engineVersionMax = revision === 3 ? 512 : 64;
  const text = (path: string, max: number, revisions?: readonly Revision[]): BoundCase => ({
    path,
    ok: ['x'.repeat(max)],
    bad: [['x'.repeat(max + 1), atMost(max)]],
    ...(revisions ? { revisions } : {}),
  });
  const integer = (path: string, min: number, revisions?: readonly Revision[]): BoundCase => ({
    path,
    ok: [min],
    bad: [[min - 1, new RegExp(`at least ${min}`, 'i')], [min + 1.5, /integer/i]],
    ...(revisions ? { revisions } : {}),
  });
  const unitInterval = (flag: string): BoundCase => ({
    path: `engineFlags.${flag}`,
    ok: [0, 0.5, 1],
    bad: [[-0.01, /between 0 and 1/], [1.01, /between 0 and 1/]],
  });
  const tooLongUrl = (n: number) => `https://github.com/${'r'.repeat(n - 'https://github.com/'.length)}`;

  const cases: BoundCase[] = [
    { ...text('modelRevision', 128), bad: [['x'.repeat(129), atMost(128)], ['   ', /empty/i]] },
    { ...text('quantization', 64), bad: [['x'.repeat(65), atMost(64)], ['', /empty/i]] },
    text('backend', 64),
    text('engineVersion', engineVersionMax),
    text('notes', 2000),
    text('engineFlags.commandSnippet', 4000),
    text('engineFlags.extraFlags', 1000),
    text('engineFlags.specModel', 256),
    text('engineFlags.kvCacheDtype', 64),
    integer('contextLength', 1),
    integer('batchSize', 1),
    integer('hardware.gpuCount', 1),
    integer('promptTokens', 0),
    integer('outputTokens', 0),
    integer('prefillTokens', 0, [2, 3]),
    integer('engineFlags.tensorParallel', 1),
    integer('engineFlags.gpuLayers', 0),
    integer('engineFlags.topK', 0),
    integer('engineFlags.concurrency', 1),
    { path: 'hardware.vramGb', ok: [0.5, 80, 65_536], bad: [[0, /positive/i], [-8, /positive/i], ['24', /number/i], [65_537, /at most 65536/]] },
    { path: 'hardware.powerWatts', ok: [450, 100_000], bad: [[100_001, /at most 100000/]] },
    { path: 'tokSTotal', ok: [1e9], bad: [[1e308, /at most/]] },
    { path: 'tokSPrefill', ok: [0.5], bad: [[0, /positive/i], [-1, /positive/i]], revisions: [2, 3] },
    { path: 'tokSOut', ok: [0.01], bad: [[0, /positive/i], ['42', /number/i]] },
    unitInterval('gpuMemUtil'),
    unitInterval('topP'),
    unitInterval('minP'),
    {
      path: 'engineFlags.temperature',
      ok: [0, temperatureMax],
      bad: [
        [-0.01, new RegExp(`between 0 and ${temperatureMax}`)],
        [temperatureMax + 0.01, new RegExp(`between 0 and ${temperatureMax}`)],
      ],
    },
    { path: 'engineFlags.mirostat', ok: [0, 1, 2], bad: [[3, /0, 1 or 2/], [-1, /0, 1 or 2/], [1.5, /0, 1 or 2/]] },
    { path: 'engineFlags.flashAttn', ok: [false], bad: [['yes', /true or false/i]] },
    {
      path: 'hardware.gpus',
      ok: [1, 16],
      bad: [[17, /at most 16/i], [0, /at least one/i]],
      build: (n) => payload({ hardware: { hwClass: 'DISCRETE_GPU', gpus: gpuSlots(n as number) } }),
      label: (n) => `${String(n)} slots`,
    },
    // Revision 3 fields.
    {
      path: 'engineRepository',
      ok: [tooLongUrl(512), 'http://example.com/ember'],
      bad: [
        [tooLongUrl(513), atMost(512)],
        ['ftp://example.com/engine.git', /http/i],
        ['javascript:alert(1)', /http/i],
        ['github.com/ggml-org/llama.cpp', /http/i],
      ],
      revisions: [3],
    },
    text('engineBuild', 256, [3]),
    {
      path: 'engineCommit',
      ok: [hexOf(7), hexOf(40), hexOf(64)],
      bad: [
        [hexOf(6), /7-64 hex/],
        [hexOf(65), /7-64 hex/],
        ['abcdefg', /7-64 hex/],
        ['v1.2.3-abc', /7-64 hex/],
      ],
      revisions: [3],
    },
    {
      path: 'hardwareCost.0.condition',
      ok: ['NEW', 'USED', 'REFURBISHED'],
      bad: [['BROKEN', /NEW, USED, REFURBISHED/], ['new', /NEW, USED, REFURBISHED/]],
      revisions: [3],
    },
    { path: 'hardwareCost.0.currency', ok: ['USD', 'EUR', 'TWD'], bad: [['usd', /ISO 4217/], ['XYZ', /ISO 4217/]], revisions: [3] },
    {
      path: 'hardwareCost.0.yearPurchased',
      ok: [1990, THIS_YEAR],
      bad: [[1989, /at least 1990/i], [THIS_YEAR + 1, /future/i], [2020.5, /integer/i]],
      revisions: [3],
    },
    { path: 'hardwareCost.0.price', ok: [0.01, 25000], bad: [[0, /positive/i], [-5, /positive/i]], revisions: [3] },
    {
      path: 'hardwareCost.0.component',
      ok: ['NVIDIA GeForce RTX 3090', 'Apple M4 Max', 'AMD EPYC 9654'],
      bad: [['My custom rig', /canonical hardware name/], ['', /must not be empty/]],
      revisions: [3],
    },
    { path: 'gpuPowerWatts', ok: [[450], [300, 250.5]], bad: [[[], /one entry per GPU/i], [[300, 0], /positive/i]], revisions: [3] },
  ];
  return cases.filter((c) => !c.revisions || c.revisions.includes(revision));
}

/** Where a bad value's error lands when it is not the case's own path. */
function errorPath(path: string, value: unknown): string {
  if (path === 'gpuPowerWatts' && Array.isArray(value) && value.length > 0) return `gpuPowerWatts.${value.findIndex((w) => !(w > 0))}`;
  return path;
}

// ---------------------------------------------------------------------------
// The API as a revision exposes it
// ---------------------------------------------------------------------------

function speedTestApi(ctx: TestContext, revision: Revision) {
  const resultsPath = revision === 3 ? '/api/speed-tests' : '/api/benchmarks';
  const state = { key: '' };

  before(async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    state.key = (await createKey(agent, csrf, { name: `revision ${revision} validation` })).key;
  });

  const post = (url: string, body: unknown) => request(ctx.app).post(url).set('Authorization', `Bearer ${state.key}`).send(body as object);

  /** A real submission, with the submission window already passed. */
  function submit(body: Body) {
    ctx.clock.advance(PAST_THE_WINDOW_MS);
    return post(resultsPath, body);
  }

  /** The cheapest full validation the revision offers: dry-run, or a real submission in revision 1. */
  function validate(body: Body) {
    return revision === 1 ? submit(body) : post(`${resultsPath}/dry-run`, body);
  }

  /** Expects the body accepted and returns what the server made of it (the 201 run, or the dry-run's `parsed`). */
  async function accept(body: Body): Promise<Record<string, any>> {
    const res = await validate(body);
    if (revision === 1) {
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body;
    }
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.valid).to.equal(true);
    return res.body.parsed;
  }

  async function submitted(body: Body): Promise<Record<string, any>> {
    const res = await submit(body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  }

  return { resultsPath, post, submit, validate, accept, submitted };
}

async function rowCounts(ctx: TestContext): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['speed_test_runs', 'hardware_profiles', 'engines', 'models', 'submission_windows']) {
    const [{ count }] = await ctx.db(table).count('* as count');
    counts[table] = Number(count);
  }
  return counts;
}

// ---------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------

for (const revision of REVISIONS) {
  describe(`speed-test submission validation, API revision ${revision}`, () => {
    const ctx = useTestApp({ API_REVISION: String(revision) }, { fakeHub: true });
    const api = speedTestApi(ctx, revision);
    const notAccepted = `Not accepted in API revision ${revision}`;

    describe('minimal and maximal payloads', () => {
      // The required fields only, and a TTFT where revision 2's metric rule asks for a second metric.
      const minimal = validSubmission({
        hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 3060', vramGb: 12 },
        tokSOut: 30,
        ttftMs: revision === 2 ? 250 : undefined,
      });
      const defaults = {
        modelRevision: 'main',
        contextLength: 2048,
        batchSize: 1,
        promptTokens: 0,
        outputTokens: 0,
        ...(revision >= 2 ? { prefillTokens: 0 } : {}),
      };

      it('accepts the minimal payload and fills in the defaults', async () => {
        const echo = await api.accept(minimal);
        expect(echo).to.include({ hfId: HF_ID, engineName: 'llama.cpp', quantization: 'Q4_K_M', tokSOut: 30, ...defaults });
        expect(echo.hardware).to.include({ hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 3060', gpuCount: 1, vramGb: 12, isHeterogeneousGpu: false });
        if (revision === 1) expect(echo).not.to.have.any.keys('tokSPrefill', 'prefillTokens');
        else expect(echo).not.to.have.any.keys('engineFlags', 'commandSnippetFlags', 'totalPowerWatts');
      });

      if (revision >= 2) {
        it('stores the minimal payload with the same defaults on a real submission', async () => {
          const run = await api.submitted(minimal);
          expect(run).to.include({ hfId: HF_ID, tokSOut: 30, status: 'APPROVED', ...defaults });
        });
      }

      it('accepts every field of the revision and every engine flag at a valid value, and echoes them', async () => {
        const body = maximalPayload(revision);
        const { hardware, engineFlags, gpuPowerWatts, hardwareCost, engineCommit, ...scalars } = body;
        const { numParallel: _alias, specDraftModel: _draftAlias, ...expectedFlags } = engineFlags as Body;
        const expectEchoed = (echo: Record<string, any>) => {
          expect(echo).to.include(scalars);
          expect(echo.hardware).to.include({ ...(hardware as Body), totalVramGb: 48, isHeterogeneousGpu: false });
          // numParallel gives way to concurrency, specDraftModel to specModel.
          expect(echo.engineFlags).to.deep.equal(expectedFlags);
          if (revision === 3) {
            expect(echo).to.include({ engineCommit: 'abcdef0123456789', totalPowerWatts: 550.5 });
            expect(echo.gpuPowerWatts).to.deep.equal(gpuPowerWatts);
            expect(echo.hardwareCost).to.deep.equal(hardwareCost);
          } else {
            expect(echo).not.to.have.any.keys(...REVISION_3_ONLY_RUN_FIELDS);
          }
          if (revision === 1) expect(echo).not.to.have.any.keys('tokSPrefill', 'prefillTokens');
        };

        if (revision >= 2) {
          const parsed = await api.accept(body);
          expectEchoed(parsed);
          expect(parsed.commandSnippetFlags.unrecognised).to.deep.equal([]);
        }
        const run = await api.submitted(body);
        expectEchoed(run);
        expect(run).to.include({ hfId: HF_ID, status: 'APPROVED' });
        if (revision < 3) expect(run.engine).not.to.have.any.keys('repository', 'build', 'commit');
        else expect(run.engine).to.include({ repository: scalars.engineRepository, build: scalars.engineBuild, commit: 'abcdef0123456789' });
      });

      it('accepts a UNIFIED chip and a CPU_ONLY machine as given', async () => {
        const unified = { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max', unifiedMemoryGb: 128, npuTops: 18, cpu: '16-core', os: 'macos', powerWatts: 90 };
        const cpuOnly = { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 768, os: 'linux' };
        for (const hardware of [unified, cpuOnly]) {
          const echo = await api.accept(payload({ hardware }));
          expect(echo.hardware).to.include(hardware);
        }
      });
    });

    describe('field bounds', () => {
      for (const c of boundCases(revision)) {
        const build = c.build ?? ((value: unknown) => withValue(c.path, value));
        const label = c.label ?? show;
        for (const value of c.ok) {
          it(`accepts ${c.path} = ${label(value)}`, async () => {
            const echo = await api.accept(build(value));
            if (!c.build && typeof value !== 'object') expect(valueAt(echo, c.path)).to.equal(value);
          });
        }
        for (const [value, message] of c.bad) {
          it(`rejects ${c.path} = ${label(value)} with a field error at ${errorPath(c.path, value)}`, async () => {
            expectFieldError(await api.validate(build(value)), errorPath(c.path, value), message);
          });
        }
      }
    });

    describe('hfId', () => {
      it('lets a 256-character hfId through validation to the hub, which does not know it (404 naming the hub)', async () => {
        const hfId = `o/${'x'.repeat(254)}`;
        const res = await api.validate(payload({ hfId }));
        expect(res.status, JSON.stringify(res.body)).to.equal(404);
        expect(res.body.error).to.match(/not found on the model hub/).and.to.include(hfId.slice(0, 20));
      });

      const badIds: [label: string, hfId: unknown, message: Message][] = [
        ['a 257-character id', `o/${'x'.repeat(255)}`, atMost(256)],
        ['an id without an org', 'Dense-7B', /<org>\/<model>/],
        ['an id with two slashes', 'fakeorg/Dense-7B/main', /<org>\/<model>/],
        ['an empty id', '', /Required/],
        ['a number', 7, /string/i],
      ];
      for (const [label, hfId, message] of badIds) {
        it(`rejects ${label} with fieldErrors.hfId`, async () => {
          expectFieldError(await api.validate(payload({ hfId })), 'hfId', message);
        });
      }

      it('rejects a missing hfId with fieldErrors.hfId', async () => {
        expectFieldError(await api.validate(payload({ hfId: undefined })), 'hfId', 'Required');
      });
    });

    describe('engine names', () => {
      const accepted = ENGINES[revision];
      for (const engineName of ENGINE_CANDIDATES) {
        if (accepted.includes(engineName)) {
          it(`accepts engineName '${engineName}'`, async () => {
            expect((await api.accept(payload({ engineName }))).engineName).to.equal(engineName);
          });
        } else {
          it(`rejects engineName '${engineName}' with a message listing exactly the revision's engines`, async () => {
            const res = await api.validate(payload({ engineName }));
            expectFieldError(res, 'engineName');
            const [message] = res.body.details.fieldErrors.engineName as string[];
            const words = new Set(message!.split(/[\s,:;]+/));
            for (const name of accepted) expect(words, `lists ${name}`).to.include(name);
            for (const name of ENGINE_CANDIDATES.filter((n) => !accepted.includes(n))) expect(words, `does not list ${name}`).not.to.include(name);
          });
        }
      }

      it('rejects a 65-character engineName and a missing one', async () => {
        expectFieldError(await api.validate(payload({ engineName: 'x'.repeat(65) })), 'engineName');
        expectFieldError(await api.validate(payload({ engineName: undefined })), 'engineName', 'Required');
      });
    });

    describe('hardware', () => {
      const slot = { gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 };
      const cases: [label: string, hardware: unknown, errors: Record<string, Message>][] = [
        ['a missing hardware object', undefined, { hardware: 'Required' }],
        ['a string instead of an object', 'RTX 4090', { hardware: /object/i }],
        ['an unknown hwClass', { hwClass: 'TPU', gpuName: 'v5e', vramGb: 16 }, { 'hardware.hwClass': /DISCRETE_GPU, UNIFIED, CPU_ONLY/ }],
        ['a lower-case hwClass', { hwClass: 'discrete_gpu', gpuName: 'RTX 4090', vramGb: 24 }, { 'hardware.hwClass': /DISCRETE_GPU/ }],
        ['a missing hwClass', { gpuName: 'RTX 4090', vramGb: 24 }, { 'hardware.hwClass': /DISCRETE_GPU/ }],
        [
          'a DISCRETE_GPU with neither gpuName/vramGb nor gpus',
          { hwClass: 'DISCRETE_GPU', cpu: 'Ryzen 7' },
          { 'hardware.gpuName': 'Required unless gpus is given', 'hardware.vramGb': 'Required unless gpus is given' },
        ],
        ['a DISCRETE_GPU with gpuName but no vramGb', { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090' }, { 'hardware.vramGb': 'Required unless gpus is given' }],
        [
          'flat fields and gpus together',
          { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24, gpus: [slot] },
          { 'hardware.gpuName': /either/i, 'hardware.vramGb': /either/i },
        ],
        ['an empty gpus array', { hwClass: 'DISCRETE_GPU', gpus: [] }, { 'hardware.gpus': /at least one/i }],
        ['a bad second gpus slot', { hwClass: 'DISCRETE_GPU', gpus: [slot, { gpuName: 'RTX 3090', vramGb: -24 }] }, { 'hardware.gpus.1.vramGb': /positive/i }],
        ['a gpus slot without a name', { hwClass: 'DISCRETE_GPU', gpus: [{ vramGb: 24 }] }, { 'hardware.gpus.0.gpuName': 'Required' }],
        ['a gpus slot count of 0', { hwClass: 'DISCRETE_GPU', gpus: [{ ...slot, count: 0 }] }, { 'hardware.gpus.0.count': /at least 1/i }],
        ['an unknown gpus slot field', { hwClass: 'DISCRETE_GPU', gpus: [{ ...slot, tdp: 450 }] }, { 'hardware.gpus.0.tdp': 'Unknown field' }],
        ['a UNIFIED chip without chipVariant', { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', unifiedMemoryGb: 64 }, { 'hardware.chipVariant': 'Required' }],
        ['a UNIFIED chip without unifiedMemoryGb', { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Pro' }, { 'hardware.unifiedMemoryGb': 'Required' }],
        ['a CPU_ONLY machine without ramGb', { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654' }, { 'hardware.ramGb': 'Required' }],
        ['a CPU_ONLY machine without cpu', { hwClass: 'CPU_ONLY', ramGb: 512 }, { 'hardware.cpu': 'Required' }],
        ['an unknown hardware field', { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24, tpuCores: 8 }, { 'hardware.tpuCores': 'Unknown field' }],
        [
          'a field of another hardware class',
          { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 512, gpuName: 'RTX 4090' },
          { 'hardware.gpuName': 'Unknown field' },
        ],
      ];
      for (const [label, hardware, errors] of cases) {
        it(`rejects ${label} with errors at ${Object.keys(errors).join(', ')}`, async () => {
          expectFieldErrors(await api.validate(payload({ hardware })), errors);
        });
      }

      it('rejects unknown top-level and engineFlags fields, each with its own Unknown field error', async () => {
        const res = await api.validate(payload({ benchmarkScore: 99, engineFlags: { commandSnippet: SNIPPET, turboMode: true } }));
        expectFieldErrors(res, { benchmarkScore: 'Unknown field', 'engineFlags.turboMode': 'Unknown field' });
      });
    });

    describe('normalisation', () => {
      it('turns heterogeneous gpus into Multi-GPU with total VRAM and card count', async () => {
        const gpus = [
          { gpuName: 'NVIDIA GeForce RTX 4090', count: 1, vramGb: 24 },
          { gpuName: 'NVIDIA GeForce RTX 3090', count: 2, vramGb: 24 },
        ];
        const echo = await api.accept(payload({ hardware: { hwClass: 'DISCRETE_GPU', gpus, cpu: 'Threadripper 7960X' } }));
        expect(echo.hardware).to.include({ hwClass: 'DISCRETE_GPU', gpuName: 'Multi-GPU', isHeterogeneousGpu: true, vramGb: 72, gpuCount: 3, cpu: 'Threadripper 7960X' });
        expect(echo.hardware.gpus).to.deep.equal(gpus);
      });

      it('turns several slots of one card into the flat form', async () => {
        const gpus = [
          { gpuName: 'NVIDIA GeForce RTX 3090', count: 2, vramGb: 24 },
          { gpuName: 'NVIDIA GeForce RTX 3090', vramGb: 24 },
        ];
        const echo = await api.accept(payload({ hardware: { hwClass: 'DISCRETE_GPU', gpus } }));
        expect(echo.hardware).to.include({ gpuName: 'NVIDIA GeForce RTX 3090', gpuCount: 3, vramGb: 24, isHeterogeneousGpu: false });
        expect(echo.hardware).not.to.have.property('gpus');
      });

      it('counts a gpus slot without count as one card, and a flat profile without gpuCount as one', async () => {
        const slots = await api.accept(payload({ hardware: { hwClass: 'DISCRETE_GPU', gpus: [{ gpuName: 'A', vramGb: 8 }, { gpuName: 'B', vramGb: 16 }] } }));
        expect(slots.hardware).to.include({ gpuCount: 2, vramGb: 24, isHeterogeneousGpu: true });
        expect(slots.hardware.gpus.map((s: Body) => s.count)).to.deep.equal([1, 1]);
        const flat = await api.accept(payload());
        expect(flat.hardware).to.include({ gpuCount: 1, vramGb: 24 });
      });

      it('ignores a flat gpuCount given with gpus, deriving the count from the slots', async () => {
        const gpus = [{ gpuName: 'NVIDIA GeForce RTX 3090', count: 2, vramGb: 24 }];
        const echo = await api.accept(payload({ hardware: { hwClass: 'DISCRETE_GPU', gpuCount: 5, gpus } }));
        expect(echo.hardware).to.include({ gpuName: 'NVIDIA GeForce RTX 3090', gpuCount: 2, vramGb: 24, totalVramGb: 48 });
      });

      it('trims submitted names', async () => {
        const echo = await api.accept(payload({ quantization: '  Q8_0 ', hardware: { hwClass: 'DISCRETE_GPU', gpuName: '  NVIDIA GeForce RTX 4080 ', vramGb: 16 } }));
        expect(echo.quantization).to.equal('Q8_0');
        expect(echo.hardware.gpuName).to.equal('NVIDIA GeForce RTX 4080');
      });

      if (revision === 3) {
        it('sums gpuPowerWatts into totalPowerWatts', async () => {
          const echo = await api.accept(payload({ gpuPowerWatts: [300, 250.5] }));
          expect(echo.gpuPowerWatts).to.deep.equal([300, 250.5]);
          expect(echo.totalPowerWatts).to.equal(550.5);
        });

        for (const [engineName, repository] of Object.entries(CANONICAL_REPOSITORIES)) {
          it(`fills in ${repository} as engineRepository for ${engineName} when it is left out, also in the stored run`, async () => {
            expect((await api.accept(payload({ engineName }))).engineRepository).to.equal(repository);
            const run = await api.submitted(payload({ engineName }));
            expect(run.engineRepository).to.equal(repository);
            expect(run.engine).to.include({ name: engineName, repository });
          });

          it(`keeps an explicit engineRepository for ${engineName}`, async () => {
            const fork = `https://github.com/someone/${engineName}-fork`;
            expect((await api.accept(payload({ engineName, engineRepository: fork }))).engineRepository).to.equal(fork);
          });
        }

        it('gives no engineRepository to an engine without a canonical one', async () => {
          expect(await api.accept(payload({ engineName: 'ember' }))).not.to.have.property('engineRepository');
        });

        it('stores engineCommit in lower case', async () => {
          expect((await api.accept(payload({ engineCommit: 'DEADBEEF12' }))).engineCommit).to.equal('deadbeef12');
        });
      }
    });

    describe('engine flags and commandSnippet', () => {
      const flagsOf = async (engineName: string, engineFlags: Body) => (await api.accept(payload({ engineName, engineFlags }))).engineFlags as Body;

      if (revision === 1) {
        it('accepts engineFlags without commandSnippet', async () => {
          expect(await flagsOf('llama.cpp', { gpuLayers: 99 })).to.deep.equal({ gpuLayers: 99 });
        });
      } else {
        for (const [label, engineFlags] of [
          ['no commandSnippet', { gpuLayers: 99 }],
          ['a blank commandSnippet', { commandSnippet: '   ', gpuLayers: 99 }],
          ['an empty engineFlags object', {}],
        ] as const) {
          it(`requires commandSnippet when engineFlags is given (${label})`, async () => {
            expectFieldError(await api.validate(payload({ engineFlags })), 'engineFlags.commandSnippet', /Required/);
          });
        }
      }

      it('parses llama.cpp flags from the snippet, -np feeding concurrency', async () => {
        const commandSnippet = 'llama-server -m /models/dense-7b.gguf -ngl 99 -fa --temp 0.7 --top-k 40 --mirostat 2 -np 4 --kv-cache-dtype q8_0';
        expect(await flagsOf('llama.cpp', { commandSnippet })).to.deep.equal({
          commandSnippet,
          gpuLayers: 99,
          flashAttn: true,
          temperature: 0.7,
          topK: 40,
          mirostat: 2,
          concurrency: 4,
          kvCacheDtype: 'q8_0',
        });
      });

      it('parses vllm flags from the snippet, a draft model becoming specModel with specDecoding', async () => {
        const commandSnippet =
          'vllm serve fakeorg/Dense-7B --tensor-parallel-size 2 --gpu-memory-utilization 0.85 --enable-prefix-caching --max-num-seqs 128 --speculative-model fakeorg/Draft-1B --num-speculative-tokens 5';
        expect(await flagsOf('vllm', { commandSnippet })).to.deep.equal({
          commandSnippet,
          tensorParallel: 2,
          gpuMemUtil: 0.85,
          prefixCaching: true,
          maxRunningSeqs: 128,
          specModel: 'fakeorg/Draft-1B',
          specNumTokens: 5,
          specDecoding: true,
        });
      });

      it('lets explicit fields override values parsed from the snippet, even out-of-range ones', async () => {
        const commandSnippet = 'llama-server -m m.gguf -ngl 99 --temp 0.7 --gpu-memory-utilization 1.5';
        const flags = await flagsOf('llama.cpp', { commandSnippet, gpuLayers: 40, temperature: 0.2, gpuMemUtil: 0.9 });
        expect(flags).to.include({ gpuLayers: 40, temperature: 0.2, gpuMemUtil: 0.9 });
      });

      const concurrencyCases: [label: string, engineFlags: Body, concurrency: number][] = [
        ['explicit numParallel and concurrency', { numParallel: 4, concurrency: 8 }, 8],
        ['-np in the snippet and an explicit concurrency', { commandSnippet: 'llama-server -m m.gguf -np 4', concurrency: 2 }, 2],
        ['--concurrency and --parallel in the snippet', { commandSnippet: 'llama-server -m m.gguf --parallel 4 --concurrency 16' }, 16],
        ['numParallel alone', { numParallel: 6 }, 6],
      ];
      for (const [label, engineFlags, concurrency] of concurrencyCases) {
        it(`resolves ${label} to concurrency ${concurrency} and drops numParallel`, async () => {
          const flags = await flagsOf('llama.cpp', { commandSnippet: SNIPPET, ...engineFlags });
          expect(flags.concurrency).to.equal(concurrency);
          expect(flags).not.to.have.property('numParallel');
        });
      }

      it('turns specDraftModel into specModel, and keeps an explicit specModel over it', async () => {
        const alias = await flagsOf('vllm', { commandSnippet: 'vllm serve fakeorg/Dense-7B', specDraftModel: 'fakeorg/Draft-1B' });
        expect(alias).to.include({ specModel: 'fakeorg/Draft-1B', specDecoding: true });
        expect(alias).not.to.have.property('specDraftModel');
        const both = await flagsOf('vllm', { commandSnippet: 'vllm serve fakeorg/Dense-7B', specDraftModel: 'fakeorg/Draft-1B', specModel: 'fakeorg/Draft-3B' });
        expect(both).to.include({ specModel: 'fakeorg/Draft-3B' });
        expect(both).not.to.have.property('specDraftModel');
      });

      const speculativeFields: [field: string, value: unknown][] = [
        ['specMethod', 'eagle'],
        ['specModel', 'fakeorg/Draft-1B'],
        ['specDraftModel', 'fakeorg/Draft-1B'],
        ['specNumTokens', 4],
        ['specNgramSize', 3],
        ['specDraftTp', 1],
        ...(revision === 3 ? ([['specDraftWindowSize', 256]] as [string, unknown][]) : []),
      ];
      for (const [field, value] of speculativeFields) {
        it(`sets specDecoding when ${field} is given`, async () => {
          expect((await flagsOf('vllm', { commandSnippet: 'vllm serve fakeorg/Dense-7B', [field]: value })).specDecoding).to.equal(true);
        });
      }

      it('keeps an explicit specDecoding or mtpEnabled false even with speculative or MTP fields', async () => {
        const flags = await flagsOf('vllm', { commandSnippet: 'vllm serve fakeorg/Dense-7B', specDecoding: false, specNumTokens: 3, mtpEnabled: false, mtpDraftLayers: 1 });
        expect(flags).to.include({ specDecoding: false, mtpEnabled: false, specNumTokens: 3 });
      });

      it('does not set specDecoding without a speculative field', async () => {
        expect((await flagsOf('vllm', { commandSnippet: 'vllm serve fakeorg/Dense-7B', tensorParallel: 1 })).specDecoding).to.equal(undefined);
      });

      it('accepts unknown flags in the snippet, reporting them as unrecognised', async () => {
        const body = payload({ engineFlags: { commandSnippet: 'llama-server -m m.gguf --mystery-flag 3 --turbo -ngl 20' } });
        const echo = await api.accept(body);
        expect(echo.engineFlags).to.deep.equal({ commandSnippet: (body.engineFlags as Body).commandSnippet, gpuLayers: 20 });
        if (revision >= 2) {
          expect(echo.commandSnippetFlags.unrecognised).to.include.members(['--mystery-flag', '--turbo']).and.not.to.include('-ngl');
          expect(echo.commandSnippetFlags.recognised).to.deep.equal(['-ngl']);
        }
      });

      const outOfRange: [commandSnippet: string, path: string][] = [
        ['vllm serve fakeorg/Dense-7B --gpu-memory-utilization 1.5', 'engineFlags.gpuMemUtil'],
        ['vllm serve fakeorg/Dense-7B --tensor-parallel-size 0', 'engineFlags.tensorParallel'],
        ['llama-server -m m.gguf --mirostat 3', 'engineFlags.mirostat'],
        ['llama-server -m m.gguf --temp 150', 'engineFlags.temperature'],
        ['llama-server -m m.gguf --top-p 1.2', 'engineFlags.topP'],
      ];
      for (const [commandSnippet, path] of outOfRange) {
        it(`rejects an out-of-range value parsed from '${commandSnippet.split(' ').slice(-2).join(' ')}' at ${path}`, async () => {
          expectFieldError(await api.validate(payload({ engineName: 'vllm', engineFlags: { commandSnippet } })), path);
        });
      }
    });

    describe('metric rule', () => {
      const noMetrics = { tokSOut: undefined, ttftMs: undefined };
      type Outcome = 'accepted' | '422' | 'tokSOut required';
      const rules: Record<Revision, [metrics: Body, outcome: Outcome][]> = {
        1: [
          [{}, '422'],
          [{ peakVramGb: 20 }, '422'],
          [{ tokSOut: 40 }, 'accepted'],
          [{ tokSTotal: 55 }, 'accepted'],
          [{ ttftMs: 180 }, 'accepted'],
        ],
        2: [
          [{}, 'tokSOut required'],
          [{ ttftMs: 180, tokSTotal: 55 }, 'tokSOut required'],
          [{ tokSOut: 40 }, '422'],
          [{ tokSOut: 40, ttftMs: 180 }, 'accepted'],
          [{ tokSOut: 40, tokSPrefill: 900 }, 'accepted'],
          [{ tokSOut: 40, tokSTotal: 55 }, 'accepted'],
          [{ tokSOut: 40, peakVramGb: 20 }, 'accepted'],
        ],
        3: [
          [{}, 'tokSOut required'],
          [{ ttftMs: 180, tokSTotal: 55, tokSPrefill: 900, peakVramGb: 20 }, 'tokSOut required'],
          [{ tokSOut: 40 }, 'accepted'],
        ],
      };
      for (const [metrics, outcome] of rules[revision]) {
        const given = Object.keys(metrics).join(' + ') || 'no metric';
        it(`${outcome === 'accepted' ? 'accepts' : 'rejects'} ${given}${outcome === 'accepted' ? '' : ` (${outcome})`}`, async () => {
          const res = await api.validate(payload({ ...noMetrics, ...metrics }));
          if (outcome === 'accepted') expect(res.status, JSON.stringify(res.body)).to.equal(revision === 1 ? 201 : 200);
          else if (outcome === '422') {
            expect(res.status).to.equal(422);
            expect(res.body).to.deep.equal(METRIC_422[revision]);
          } else expectFieldErrors(res, { tokSOut: 'Required' });
        });
      }
    });

    describe('fields of other revisions', () => {
      const gated: [path: string, value: unknown, since: Revision][] = [
        ['tokSPrefill', 1500, 2],
        ['prefillTokens', 0, 2],
        ['engineRepository', 'https://github.com/ggml-org/llama.cpp', 3],
        ['engineBuild', 'b4500', 3],
        ['engineCommit', 'abcdef1', 3],
        ['gpuPowerWatts', [300], 3],
        ['hardwareCost', [COST_ITEM], 3],
        ['engineFlags.specDraftWindowSize', 256, 3],
      ];
      for (const [path, value, since] of gated) {
        if (revision < since) {
          it(`rejects ${path} with '${notAccepted}'`, async () => {
            expectFieldErrors(await api.validate(withValue(path, value)), { [path]: notAccepted });
          });
        } else {
          it(`accepts ${path} (since revision ${since})`, async () => {
            expect(valueAt(await api.accept(withValue(path, value)), path)).to.deep.equal(value);
          });
        }
      }

      if (revision < 3) {
        it('names every gated field at once', async () => {
          const body = withValue('engineFlags.specDraftWindowSize', 64);
          const fields = gated.filter(([path, , since]) => since > revision && !path.includes('.'));
          for (const [path, value] of fields) body[path] = value;
          const expected = Object.fromEntries([...fields.map(([path]) => path), 'engineFlags.specDraftWindowSize'].map((p) => [p, notAccepted]));
          expectFieldErrors(await api.validate(body), expected);
        });
      }
    });

    describe('de-duplication of hardware and engines', () => {
      const rig = { hwClass: 'DISCRETE_GPU', gpuName: 'AMD Radeon RX 7900 XTX', gpuCount: 2, vramGb: 24, cpu: 'Ryzen 7 7800X3D', os: 'linux' };
      const sameRig = payload({ hardware: rig, engineName: 'llama.cpp', engineVersion: 'b4500' });

      it('gives identical hardware and engine the same hardwareId and engineId', async () => {
        const first = await api.submitted(sameRig);
        const second = await api.submitted({ ...sameRig, tokSOut: 50 });
        expect(second.id).not.to.equal(first.id);
        expect(second.hardwareId).to.equal(first.hardwareId);
        expect(second.engineId).to.equal(first.engineId);
      });

      it('ignores the order of hardware fields', async () => {
        const reordered = Object.fromEntries(Object.entries(rig).reverse());
        const first = await api.submitted(sameRig);
        const second = await api.submitted(payload({ hardware: reordered, engineName: 'llama.cpp', engineVersion: 'b4500' }));
        expect(second.hardwareId).to.equal(first.hardwareId);
      });

      it('gives homogeneous gpus and the equivalent flat form one hardwareId', async () => {
        const flat = await api.submitted(payload({ hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA A100', gpuCount: 4, vramGb: 80 } }));
        const slots = await api.submitted(
          payload({ hardware: { hwClass: 'DISCRETE_GPU', gpus: [{ gpuName: 'NVIDIA A100', count: 3, vramGb: 80 }, { gpuName: 'NVIDIA A100', vramGb: 80 }] } }),
        );
        expect(slots.hardwareId).to.equal(flat.hardwareId);
      });

      it('gives different hardware a different hardwareId and a different engine version a different engineId', async () => {
        const base = await api.submitted(sameRig);
        const moreVram = await api.submitted({ ...sameRig, hardware: { ...rig, vramGb: 48 } });
        expect(moreVram.hardwareId).not.to.equal(base.hardwareId);
        expect(moreVram.engineId).to.equal(base.engineId);
        const newerEngine = await api.submitted({ ...sameRig, engineVersion: 'b4600' });
        expect(newerEngine.engineId).not.to.equal(base.engineId);
        expect(newerEngine.hardwareId).to.equal(base.hardwareId);
      });
    });

    describe('rejected submissions write nothing', () => {
      const metricFailure: [Body, number] =
        revision === 1 ? [payload({ tokSOut: undefined, ttftMs: undefined }), 422] : revision === 2 ? [payload({ ttftMs: undefined }), 422] : [payload({ tokSOut: undefined }), 400];
      const rejected: [label: string, body: Body, status: number][] = [
        ['a bound', payload({ contextLength: 0 }), 400],
        ['an unknown hwClass', payload({ hardware: { hwClass: 'TPU' } }), 400],
        ['an unknown engine', payload({ engineName: 'LLAMA.CPP' }), 400],
        ['an unknown field', payload({ surprise: true }), 400],
        ['an out-of-range snippet value', payload({ engineName: 'vllm', engineFlags: { commandSnippet: 'vllm serve x --gpu-memory-utilization 1.5' } }), 400],
        ['a gated or malformed revision-3 field', revision === 3 ? payload({ engineCommit: 'xyz' }) : payload({ engineBuild: 'b1' }), 400],
        ['the metric rule', ...metricFailure],
      ];

      it('leaves runs, hardware, engines, models and the submission window untouched on every 400 and 422', async () => {
        ctx.clock.advance(PAST_THE_WINDOW_MS);
        const before = await rowCounts(ctx);
        const windowBefore = await ctx.db('submission_windows').orderBy('user_id').select();
        for (const [label, body, status] of rejected) {
          const res = await api.post(api.resultsPath, body);
          expect(res.status, `${label}: ${JSON.stringify(res.body)}`).to.equal(status);
          if (status === 422) expect(res.body).to.deep.equal(METRIC_422[revision]);
        }
        expect(await rowCounts(ctx)).to.deep.equal(before);
        expect(await ctx.db('submission_windows').orderBy('user_id').select()).to.deep.equal(windowBefore);
        // The window was not used up by the rejections.
        expect((await api.post(api.resultsPath, payload())).status).to.equal(201);
      });

      if (revision >= 2) {
        it('writes nothing on a valid dry-run and leaves the submission window free', async () => {
          ctx.clock.advance(PAST_THE_WINDOW_MS);
          const before = await rowCounts(ctx);
          await api.accept(payload({ hardware: { hwClass: 'CPU_ONLY', cpu: 'Intel Xeon w9-3495X', ramGb: 512 } }));
          expect(await rowCounts(ctx)).to.deep.equal(before);
          expect((await api.post(api.resultsPath, payload())).status).to.equal(201);
        });
      } else {
        it('has no dry-run: 404, nothing written', async () => {
          const before = await rowCounts(ctx);
          const res = await api.post(`${api.resultsPath}/dry-run`, payload());
          expect(res.status).to.equal(404);
          expect(await rowCounts(ctx)).to.deep.equal(before);
        });
      }
    });
  });
}
