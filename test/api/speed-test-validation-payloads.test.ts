/**
 * Speed-test submission validation, per API revision: what an accepted submission becomes.
 * The minimal and maximal payloads with their defaults, normalisation (GPU slots, trimmed
 * names, revision-3 derived fields) and engine flags parsed from the commandSnippet.
 *
 * Sources: spec/interface.md "Speed-test run", "Hardware", "Engine flags", "Errors",
 * "Limits" (field bounds), "Versioning"; DECISIONS.md "Revisions", "Hardware and costs".
 */
import { expect } from 'chai';
import { validSubmission } from '../helpers/fixtures.ts';
import {
  COST_ITEM,
  describeEachRevision,
  expectFieldError,
  HF_ID,
  payload,
  SNIPPET,
  THIS_YEAR,
  type Body,
  type Revision,
} from '../helpers/speed-test-validation.ts';

const CANONICAL_REPOSITORIES = {
  freetoken: 'https://github.com/FlashML-org/FreeToken',
  ninfer: 'https://github.com/Neroued/ninfer',
} as const;

const REVISION_3_ONLY_RUN_FIELDS = ['engineRepository', 'engineBuild', 'engineCommit', 'gpuPowerWatts', 'totalPowerWatts', 'hardwareCost'];

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
          hardwareCost: [
            COST_ITEM,
            { component: 'AMD Ryzen 9 7950X', condition: 'NEW', yearPurchased: THIS_YEAR, price: 549.99, currency: 'EUR' },
          ],
        }
      : {}),
  };
}

describeEachRevision((revision, api) => {
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
      expect(echo.hardware).to.include({
        hwClass: 'DISCRETE_GPU',
        gpuName: 'NVIDIA GeForce RTX 3060',
        gpuCount: 1,
        vramGb: 12,
        isHeterogeneousGpu: false,
      });
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
      const unified = {
        hwClass: 'UNIFIED',
        chipVendor: 'Apple',
        chipFamily: 'M3',
        chipVariant: 'Max',
        unifiedMemoryGb: 128,
        npuTops: 18,
        cpu: '16-core',
        os: 'macos',
        powerWatts: 90,
      };
      const cpuOnly = { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 768, os: 'linux' };
      for (const hardware of [unified, cpuOnly]) {
        const echo = await api.accept(payload({ hardware }));
        expect(echo.hardware).to.include(hardware);
      }
    });
  });

  describe('normalisation', () => {
    it('turns heterogeneous gpus into Multi-GPU with total VRAM and card count', async () => {
      const gpus = [
        { gpuName: 'NVIDIA GeForce RTX 4090', count: 1, vramGb: 24 },
        { gpuName: 'NVIDIA GeForce RTX 3090', count: 2, vramGb: 24 },
      ];
      const echo = await api.accept(payload({ hardware: { hwClass: 'DISCRETE_GPU', gpus, cpu: 'Threadripper 7960X' } }));
      expect(echo.hardware).to.include({
        hwClass: 'DISCRETE_GPU',
        gpuName: 'Multi-GPU',
        isHeterogeneousGpu: true,
        vramGb: 72,
        gpuCount: 3,
        cpu: 'Threadripper 7960X',
      });
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
      const slots = await api.accept(
        payload({
          hardware: {
            hwClass: 'DISCRETE_GPU',
            gpus: [
              { gpuName: 'A', vramGb: 8 },
              { gpuName: 'B', vramGb: 16 },
            ],
          },
        }),
      );
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
      const echo = await api.accept(
        payload({ quantization: '  Q8_0 ', hardware: { hwClass: 'DISCRETE_GPU', gpuName: '  NVIDIA GeForce RTX 4080 ', vramGb: 16 } }),
      );
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
    const flagsOf = async (engineName: string, engineFlags: Body) =>
      (await api.accept(payload({ engineName, engineFlags }))).engineFlags as Body;

    if (revision === 1) {
      it('accepts engineFlags without commandSnippet', async () => {
        expect(await flagsOf('llama.cpp', { gpuLayers: 99 })).to.deep.equal({ gpuLayers: 99 });
      });
    } else {
      for (const [label, engineFlags] of [
        ['no commandSnippet', { gpuLayers: 99 }],
        ['a blank commandSnippet', { commandSnippet: '   ', gpuLayers: 99 }],
      ] as const) {
        it(`requires commandSnippet when engineFlags is given (${label})`, async () => {
          expectFieldError(await api.validate(payload({ engineFlags })), 'engineFlags.commandSnippet', /Required/);
        });
      }
      it('takes an empty engineFlags object as not supplied (DECISIONS.md "Real clients")', async () => {
        expect(await api.accept(payload({ engineFlags: {} }))).not.to.have.property('engineFlags');
      });
    }

    it('parses llama.cpp flags from the snippet, -np feeding concurrency', async () => {
      const commandSnippet =
        'llama-server -m /models/dense-7b.gguf -ngl 99 -fa --temp 0.7 --top-k 40 --mirostat 2 -np 4 --kv-cache-dtype q8_0';
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
      const both = await flagsOf('vllm', {
        commandSnippet: 'vllm serve fakeorg/Dense-7B',
        specDraftModel: 'fakeorg/Draft-1B',
        specModel: 'fakeorg/Draft-3B',
      });
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
      const flags = await flagsOf('vllm', {
        commandSnippet: 'vllm serve fakeorg/Dense-7B',
        specDecoding: false,
        specNumTokens: 3,
        mtpEnabled: false,
        mtpDraftLayers: 1,
      });
      expect(flags).to.include({ specDecoding: false, mtpEnabled: false, specNumTokens: 3 });
    });

    it('does not set specDecoding without a speculative field', async () => {
      expect((await flagsOf('vllm', { commandSnippet: 'vllm serve fakeorg/Dense-7B', tensorParallel: 1 })).specDecoding).to.equal(
        undefined,
      );
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
});
