/**
 * Speed-test submission validation, per API revision: field bounds, hfId, engine names and
 * the hardware object, each bad value with the field error it must produce.
 *
 * Sources: spec/interface.md "Speed-test run", "Hardware", "Engine flags", "Errors",
 * "Limits" (field bounds), "Versioning"; DECISIONS.md "Revisions", "Hardware and costs".
 */
import { expect } from 'chai';
import {
  describeEachRevision,
  expectFieldError,
  expectFieldErrors,
  payload,
  SNIPPET,
  THIS_YEAR,
  valueAt,
  withValue,
  type Body,
  type Message,
  type Revision,
} from '../helpers/speed-test-validation.ts';

const CORE_ENGINES = [
  'llama.cpp',
  'vllm',
  'sglang',
  'ollama',
  'lmstudio',
  'exllamav2',
  'tgi',
  'tensorrt-llm',
  'mlx',
  'text-generation-webui',
  'lmdeploy',
  'mlc-llm',
  'hipfire',
  'tinygrad',
];
const ENGINES: Record<Revision, string[]> = {
  1: [...CORE_ENGINES, 'candle', 'ctransformers'],
  2: CORE_ENGINES,
  3: [...CORE_ENGINES, 'exllamav3', 'bunn-llama', 'freetoken', 'llmd', 'ninfer', 'atlas', 'lucebox', 'dwarfstar', 'ember'],
};
/** Every name some revision accepts, plus spellings no revision accepts. */
const ENGINE_CANDIDATES = [...new Set([...ENGINES[1], ...ENGINES[3], 'LLAMA.CPP', 'Vllm', 'llamacpp'])];

function gpuSlots(n: number) {
  return Array.from({ length: n }, (_, i) => ({ gpuName: `Accelerator ${i}`, vramGb: 16 }));
}

function hexOf(length: number): string {
  return '0123456789abcdef'.repeat(5).slice(0, length);
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
    bad: [
      [min - 1, new RegExp(`at least ${min}`, 'i')],
      [min + 1.5, /integer/i],
    ],
    ...(revisions ? { revisions } : {}),
  });
  const unitInterval = (flag: string): BoundCase => ({
    path: `engineFlags.${flag}`,
    ok: [0, 0.5, 1],
    bad: [
      [-0.01, /between 0 and 1/],
      [1.01, /between 0 and 1/],
    ],
  });
  const tooLongUrl = (n: number) => `https://github.com/${'r'.repeat(n - 'https://github.com/'.length)}`;

  const cases: BoundCase[] = [
    {
      ...text('modelRevision', 128),
      bad: [
        ['x'.repeat(129), atMost(128)],
        ['   ', /empty/i],
      ],
    },
    {
      ...text('quantization', 64),
      bad: [
        ['x'.repeat(65), atMost(64)],
        ['', /empty/i],
      ],
    },
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
    {
      path: 'hardware.vramGb',
      ok: [0.5, 80, 65_536],
      bad: [
        [0, /positive/i],
        [-8, /positive/i],
        ['24', /number/i],
        [65_537, /at most 65536/],
      ],
    },
    { path: 'hardware.powerWatts', ok: [450, 100_000], bad: [[100_001, /at most 100000/]] },
    { path: 'tokSTotal', ok: [1e9], bad: [[1e308, /at most/]] },
    {
      path: 'tokSPrefill',
      ok: [0.5],
      bad: [
        [0, /positive/i],
        [-1, /positive/i],
      ],
      revisions: [2, 3],
    },
    {
      path: 'tokSOut',
      ok: [0.01],
      bad: [
        [0, /positive/i],
        ['42', /number/i],
      ],
    },
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
    {
      path: 'engineFlags.mirostat',
      ok: [0, 1, 2],
      bad: [
        [3, /0, 1 or 2/],
        [-1, /0, 1 or 2/],
        [1.5, /0, 1 or 2/],
      ],
    },
    { path: 'engineFlags.flashAttn', ok: [false], bad: [['yes', /true or false/i]] },
    {
      path: 'hardware.gpus',
      ok: [1, 16],
      bad: [
        [17, /at most 16/i],
        [0, /at least one/i],
      ],
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
      bad: [
        ['BROKEN', /NEW, USED, REFURBISHED/],
        ['new', /NEW, USED, REFURBISHED/],
      ],
      revisions: [3],
    },
    {
      path: 'hardwareCost.0.currency',
      ok: ['USD', 'EUR', 'TWD'],
      bad: [
        ['usd', /ISO 4217/],
        ['XYZ', /ISO 4217/],
      ],
      revisions: [3],
    },
    {
      path: 'hardwareCost.0.yearPurchased',
      ok: [1990, THIS_YEAR],
      bad: [
        [1989, /at least 1990/i],
        [THIS_YEAR + 1, /future/i],
        [2020.5, /integer/i],
      ],
      revisions: [3],
    },
    {
      path: 'hardwareCost.0.price',
      ok: [0.01, 25000],
      bad: [
        [0, /positive/i],
        [-5, /positive/i],
      ],
      revisions: [3],
    },
    {
      path: 'hardwareCost.0.component',
      ok: ['NVIDIA GeForce RTX 3090', 'Apple M4 Max', 'AMD EPYC 9654'],
      bad: [
        ['My custom rig', /canonical hardware name/],
        ['', /must not be empty/],
      ],
      revisions: [3],
    },
    {
      path: 'gpuPowerWatts',
      ok: [[450], [300, 250.5]],
      bad: [
        [[], /one entry per GPU/i],
        [[300, 0], /positive/i],
      ],
      revisions: [3],
    },
  ];
  return cases.filter((c) => !c.revisions || c.revisions.includes(revision));
}

/** Where a bad value's error lands when it is not the case's own path. */
function errorPath(path: string, value: unknown): string {
  if (path === 'gpuPowerWatts' && Array.isArray(value) && value.length > 0) return `gpuPowerWatts.${value.findIndex((w) => !(w > 0))}`;
  return path;
}

describeEachRevision((revision, api) => {
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
      expect(res.body.error)
        .to.match(/not found on the model hub/)
        .and.to.include(hfId.slice(0, 20));
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
          for (const name of ENGINE_CANDIDATES.filter((n) => !accepted.includes(n)))
            expect(words, `does not list ${name}`).not.to.include(name);
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
      [
        'a DISCRETE_GPU with gpuName but no vramGb',
        { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090' },
        { 'hardware.vramGb': 'Required unless gpus is given' },
      ],
      [
        'flat fields and gpus together',
        { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24, gpus: [slot] },
        { 'hardware.gpuName': /either/i, 'hardware.vramGb': /either/i },
      ],
      ['an empty gpus array', { hwClass: 'DISCRETE_GPU', gpus: [] }, { 'hardware.gpus': /at least one/i }],
      [
        'a bad second gpus slot',
        { hwClass: 'DISCRETE_GPU', gpus: [slot, { gpuName: 'RTX 3090', vramGb: -24 }] },
        { 'hardware.gpus.1.vramGb': /positive/i },
      ],
      ['a gpus slot without a name', { hwClass: 'DISCRETE_GPU', gpus: [{ vramGb: 24 }] }, { 'hardware.gpus.0.gpuName': 'Required' }],
      ['a gpus slot count of 0', { hwClass: 'DISCRETE_GPU', gpus: [{ ...slot, count: 0 }] }, { 'hardware.gpus.0.count': /at least 1/i }],
      [
        'an unknown gpus slot field',
        { hwClass: 'DISCRETE_GPU', gpus: [{ ...slot, tdp: 450 }] },
        { 'hardware.gpus.0.tdp': 'Unknown field' },
      ],
      [
        'a UNIFIED chip without chipVariant',
        { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', unifiedMemoryGb: 64 },
        { 'hardware.chipVariant': 'Required' },
      ],
      [
        'a UNIFIED chip without unifiedMemoryGb',
        { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Pro' },
        { 'hardware.unifiedMemoryGb': 'Required' },
      ],
      ['a CPU_ONLY machine without ramGb', { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654' }, { 'hardware.ramGb': 'Required' }],
      ['a CPU_ONLY machine without cpu', { hwClass: 'CPU_ONLY', ramGb: 512 }, { 'hardware.cpu': 'Required' }],
      [
        'an unknown hardware field',
        { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24, tpuCores: 8 },
        { 'hardware.tpuCores': 'Unknown field' },
      ],
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
});
