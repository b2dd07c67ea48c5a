/** GET /api/leaderboard, revision 3: every filter and the edges of each bucket (memory, parameters, context, batch). */
import { expect } from 'chai';
import { signedUpAgent, useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { allBut, atTime, boardLabels, createSeeder, DAY, filterCases, page, revision, type Body } from '../helpers/leaderboard.ts';

describe('GET /api/leaderboard, revision 3: filters and bucket edges', () => {
  // strict: a run is rejected straight in the database (seeder.reject), and no read may show it
  // (today the admin's verification after it happens to catch the index up; the tests must not rely on that).
  const ctx = useTestApp({ API_REVISION: '3', READ_INDEX_FRESHNESS: 'strict' }, { fakeHub: true });
  const PLAIN = 'handorg/Plain-Model';
  const seeder = createSeeder(ctx, revision(3), {
    hfId: PLAIN,
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA RTX A6000', vramGb: 48 },
    contextLength: 8192,
  });

  /** Catalogued by hand (never looked up on the hub): one per paramSize edge. */
  const PARAM_MODELS: [label: string, params: number][] = [
    ['p2', 2],
    ['p2_01', 2.01],
    ['p5', 5],
    ['p10', 10],
    ['p20', 20],
    ['p50', 50],
    ['p90', 90],
    ['p90_5', 90.5],
  ];
  const paramModel = (label: string) => `handorg/Params-${label.slice(1).replace('_', '.')}B`;

  const HARDWARE: [label: string, hardware: Body][] = [
    ['m24', { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, os: 'Ubuntu 24.04' }],
    ['m24_5', { hwClass: 'DISCRETE_GPU', gpuName: 'Odd Card', vramGb: 24.5 }],
    ['m16_5', { hwClass: 'DISCRETE_GPU', gpuName: 'Odd Card', vramGb: 16.5 }],
    ['m16', { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4060 Ti', vramGb: 16, cpu: 'AMD Threadripper 7980X' }],
    ['m2x12', { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3060', gpuCount: 2, vramGb: 12 }],
    [
      'mhet',
      {
        hwClass: 'DISCRETE_GPU',
        gpus: [
          { gpuName: 'RTX 3090', count: 1, vramGb: 24 },
          { gpuName: 'Tesla P40', count: 2, vramGb: 24 },
        ],
        os: 'Arch Linux',
      },
    ],
    ['mmac', { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max', unifiedMemoryGb: 128, os: 'macOS 15' }],
    [
      'mstrix',
      { hwClass: 'UNIFIED', chipVendor: 'AMD', chipFamily: 'Ryzen AI Max', chipVariant: '395', unifiedMemoryGb: 96, os: 'Windows 11' },
    ],
    ['mcpu129', { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 129, os: 'Debian 12' }],
    ['mcpu8', { hwClass: 'CPU_ONLY', cpu: 'Intel Core i5-12400', ramGb: 8 }],
    // A distribution named as its users write it (DECISIONS.md "Hardware identity": os families).
    ['mpi', { hwClass: 'CPU_ONLY', cpu: 'Raspberry Pi 5 Model B Rev 1.0', ramGb: 7.9, os: 'Raspberry Pi OS (Bookworm)' }],
  ];
  const hardwareOf = (label: string) => HARDWARE.find(([l]) => l === label)![1];
  const OWN_HARDWARE = [...HARDWARE.map(([label]) => label), 'v2'];
  const CONTEXT: [string, number][] = [
    ['c1', 1],
    ['c2048', 2048],
    ['c2049', 2049],
    ['c4096', 4096],
    ['c131072', 131072],
    ['c131073', 131073],
    ['c1m', 1_000_000],
  ];
  const BATCH: [string, number][] = [
    ['b2', 2],
    ['b7', 7],
    ['b8', 8],
    ['b16', 16],
  ];
  /** Runs with more than one request in flight: one stream per request, several at once. */
  const STREAMS: [string, number, Record<string, number>][] = [
    ['conc8', 1, { concurrency: 8 }],
    ['np4', 2, { numParallel: 4 }],
    ['conc2', 2, { concurrency: 2 }],
  ];
  const PLAIN_MODEL_RUNS = allBut(...PARAM_MODELS.map(([l]) => l), 'llama', 'tune', 'mix', 'sparse', 'qmoe');

  before(async () => {
    await ctx.db('models').insert([
      { hf_id: PLAIN, display_name: 'Plain-Model', family: 'qwen2', params: null, is_moe: false },
      { hf_id: 'handorg/Qwen3-MoE', display_name: 'Qwen3-MoE', family: 'qwen3_moe', params: 30.5, is_moe: true },
      ...PARAM_MODELS.map(([label, params]) => ({
        hf_id: paramModel(label),
        display_name: paramModel(label).split('/')[1],
        family: 'phi3',
        params,
        is_moe: false,
      })),
    ]);
    const main = await seeder.signUp('main');
    const vera = await seeder.signUp('vera');
    for (const [label, hardware] of HARDWARE) await seeder.seedRun(label, main, { hardware });
    for (const [label] of PARAM_MODELS) await seeder.seedRun(label, main, { hfId: paramModel(label) });
    await seeder.seedRun('llama', main, { hfId: fakeHubModels.dense });
    await seeder.seedRun('tune', main, { hfId: fakeHubModels.finetune });
    await seeder.seedRun('mix', main, { hfId: fakeHubModels.moeByArchitecture });
    await seeder.seedRun('sparse', main, { hfId: fakeHubModels.moeByConfig });
    await seeder.seedRun('qmoe', main, { hfId: 'handorg/Qwen3-MoE' });
    for (const [label, contextLength] of CONTEXT) await seeder.seedRun(label, main, { contextLength });
    for (const [label, batchSize] of BATCH) await seeder.seedRun(label, main, { batchSize });
    // Revision 3 buckets on aggregate active sequences: batchSize x concurrency (numParallel without it).
    for (const [label, batchSize, flags] of STREAMS)
      await seeder.seedRun(label, main, { batchSize, engineFlags: { ...flags, commandSnippet: 'llama-server -m model.gguf' } });
    await seeder.seedRun('vllm', main, { engineName: 'vllm', backend: 'cuda' });
    await seeder.seedRun('ember', main, { engineName: 'ember' });
    await seeder.seedRun('q8', main, { quantization: 'Q8_0' });
    await seeder.seedRun('rocm', main, { backend: 'rocm' });
    await seeder.seedRun('cuda2', main, { backend: 'cuda', quantization: 'Q8_0' });
    await seeder.seedRun('v1', vera);
    await seeder.seedRun('v2', vera, { hardware: hardwareOf('mmac') });
    // The fastest run, on hardware that many filters match: hidden once rejected.
    await seeder.seedRun('rej', main, { hardware: hardwareOf('m24'), tokSOut: 10_000 });
    await seeder.reject('rej');

    // vera becomes verified after her runs: through the admin page, which updates them too.
    const boss = await signedUpAgent(ctx.app, 'boss');
    await ctx.db('users').where({ username: 'boss' }).update({ is_admin: true });
    await boss.agent.post(`/admin/users/${vera.id}/verification`).type('form').send({ verified: 'true', _csrf: boss.csrf }).expect(303);
  });

  describe('memTier: (previous tier, T] of total memory', () => {
    filterCases(ctx, seeder, [
      ['8: 8 GB of RAM', { memTier: '8' }, ['mcpu8', 'mpi']],
      ['12: nothing', { memTier: '12' }, []],
      ['16: exactly 16 GB', { memTier: '16' }, ['m16']],
      ['24: exactly 24 GB, 16.5 GB, and 2 x 12 GB cards', { memTier: '24' }, ['m24', 'm16_5', 'm2x12']],
      ['32: 24.5 GB', { memTier: '32' }, ['m24_5']],
      ['48: the 48 GB card of every other run', { memTier: '48' }, allBut(...OWN_HARDWARE)],
      ['80: the sum over heterogeneous gpus slots (24 + 2 x 24)', { memTier: '80' }, ['mhet']],
      ['96: unified memory', { memTier: '96' }, ['mstrix']],
      ['128: unified memory', { memTier: '128' }, ['mmac', 'v2']],
      ['24 with os linux', { memTier: '24', os: 'linux' }, ['m24']],
    ]);

    it('puts memory above 128 GB in no tier', async () => {
      const seen: string[] = [];
      for (const tier of ['8', '12', '16', '24', '32', '48', '80', '96', '128'])
        seen.push(...(await boardLabels(ctx, seeder, { memTier: tier })));
      expect(seen).to.have.lengthOf(seeder.approved().length - 1);
      expect(seen).not.to.include('mcpu129');
    });
  });

  describe('hardware', () => {
    filterCases(ctx, seeder, [
      ['hwClass UNIFIED', { hwClass: 'UNIFIED' }, ['mmac', 'mstrix', 'v2']],
      ['hwClass CPU_ONLY', { hwClass: 'CPU_ONLY' }, ['mcpu129', 'mcpu8', 'mpi']],
      ['hwClass DISCRETE_GPU', { hwClass: 'DISCRETE_GPU' }, allBut('mmac', 'mstrix', 'v2', 'mcpu129', 'mcpu8', 'mpi')],
      ['hardwareName: one slot of a heterogeneous setup', { hardwareName: 'p40' }, ['mhet']],
      ['hardwareName: another slot, any case', { hardwareName: 'TESLA p4' }, ['mhet']],
      ['hardwareName: the first slot', { hardwareName: 'rtx 3090' }, ['mhet']],
      ['hardwareName: chip family', { hardwareName: 'm3' }, ['mmac', 'v2']],
      ['hardwareName: chip vendor', { hardwareName: 'Apple' }, ['mmac', 'v2']],
      ['hardwareName: chip family with a space', { hardwareName: 'ryzen ai' }, ['mstrix']],
      ['hardwareName: chip variant and family', { hardwareName: 'MAX' }, ['mmac', 'v2', 'mstrix']],
      ['hardwareName: chip vendor and CPU names', { hardwareName: 'amd' }, ['m16', 'mstrix', 'mcpu129']],
      ['hardwareName: the CPU of a GPU setup', { hardwareName: 'threadripper' }, ['m16']],
      ['hardwareName: a CPU-only setup', { hardwareName: 'i5-12400' }, ['mcpu8']],
      ['hardwareName: GPU name part', { hardwareName: 'odd card' }, ['m24_5', 'm16_5']],
      ['hardwareName: a GPU name, not the rejected run on the same card', { hardwareName: 'RTX 4090' }, ['m24']],
      ['hardwareName: words in any order', { hardwareName: '4090 rtx' }, ['m24']],
      ['hardwareName: chip family and variant, stored apart', { hardwareName: 'M3 Max' }, ['mmac', 'v2']],
      ['hardwareName: with the vendor', { hardwareName: 'Apple M3 Max' }, ['mmac', 'v2']],
      ['hardwareName: a vendor the name does not carry is optional', { hardwareName: 'nvidia 4060' }, ['m16']],
      ['hardwareName: a vendor alone still filters', { hardwareName: 'intel' }, ['mcpu8']],
      ['hardwareName: every word must match', { hardwareName: 'm3 epyc' }, []],
      ['hardwareName: % is a literal character', { hardwareName: '%' }, []],
      ['hardwareName: _ is a literal character', { hardwareName: '_' }, []],
      ['hardwareName with no match', { hardwareName: 'h100' }, []],
      [
        'os linux: "Ubuntu 24.04", "Arch Linux", "Debian 12", "Raspberry Pi OS (Bookworm)"',
        { os: 'linux' },
        ['m24', 'mhet', 'mcpu129', 'mpi'],
      ],
      ['os macos: "macOS 15"', { os: 'macos' }, ['mmac', 'v2']],
      ['os windows: "Windows 11"', { os: 'windows' }, ['mstrix']],
    ]);
  });

  describe('model', () => {
    filterCases(ctx, seeder, [
      ['paramSize 1: (0, 2], 2.0 B included', { paramSize: '1' }, ['p2']],
      ['paramSize 3: (2, 5], 2.01 B and 5 B', { paramSize: '3' }, ['p2_01', 'p5']],
      ['paramSize 7: (5, 10], 10 B and 7.24 B (the finetune has its base size)', { paramSize: '7' }, ['p10', 'llama', 'tune']],
      ['paramSize 13: (10, 20]', { paramSize: '13' }, ['p20']],
      ['paramSize 30: (20, 50], 50 B, 46.7 B, 30.5 B', { paramSize: '30' }, ['p50', 'mix', 'sparse', 'qmoe']],
      ['paramSize 70: (50, 90]', { paramSize: '70' }, ['p90']],
      ['paramSize 110: above 90', { paramSize: '110' }, ['p90_5']],
      ['hfId: exactly that model, not its finetune', { hfId: fakeHubModels.dense }, ['llama']],
      ['hfId: case-insensitive', { hfId: 'FAKEORG/dense-7b' }, ['llama']],
      ['hfId of the finetune', { hfId: fakeHubModels.finetune }, ['tune']],
      ['hfId is not a prefix match', { hfId: 'handorg/Params-2B' }, ['p2']],
      ['scope=tree: the base with its finetune', { hfId: fakeHubModels.dense, scope: 'tree' }, ['llama', 'tune']],
      ['scope=tree of the finetune: no base', { hfId: fakeHubModels.finetune, scope: 'tree' }, ['tune']],
      ['scope=model: exactly that model', { hfId: fakeHubModels.dense, scope: 'model' }, ['llama']],
      ['scope=tree with another filter', { hfId: 'FAKEORG/dense-7b', scope: 'tree', paramSize: '7' }, ['llama', 'tune']],
      ['scope alone narrows nothing', { scope: 'tree' }, allBut()],
      ['modelFamily, any case', { modelFamily: 'LLAMA' }, ['llama', 'tune']],
      ['modelFamily substring', { modelFamily: 'tral' }, ['mix']],
      ['modelFamily qwen3', { modelFamily: 'qwen3' }, ['qmoe']],
      ['modelFamily qwen: qwen2 and qwen3_moe', { modelFamily: 'Qwen' }, (s) => [...PLAIN_MODEL_RUNS(s), 'qmoe']],
      ['modelFamily qwen3moe as GGUF spells it: separators ignored', { modelFamily: 'qwen3moe' }, ['qmoe']],
      ['modelFamily qwen3-moe', { modelFamily: 'QWEN3-MOE' }, ['qmoe']],
      ['modelFamily custom', { modelFamily: 'custom' }, ['sparse']],
      ['modelFamily: % is literal', { modelFamily: '%' }, []],
      ['modelFamily: _ is literal', { modelFamily: '_' }, ['qmoe']],
      ['isMoE=true: by architecture, by config, and catalogued', { isMoE: 'true' }, ['mix', 'sparse', 'qmoe']],
      ['isMoE=false', { isMoE: 'false' }, allBut('mix', 'sparse', 'qmoe')],
      ['isMoE and paramSize together', { isMoE: 'false', paramSize: '30' }, ['p50']],
    ]);

    it('puts a model without params in no paramSize bucket', async () => {
      const seen: string[] = [];
      for (const size of ['1', '3', '7', '13', '30', '70', '110']) seen.push(...(await boardLabels(ctx, seeder, { paramSize: size })));
      expect(seen.sort()).to.deep.equal([...PARAM_MODELS.map(([l]) => l), 'llama', 'tune', 'mix', 'sparse', 'qmoe'].sort());
    });
  });

  describe('run settings', () => {
    filterCases(ctx, seeder, [
      ['batchSize 1: single-stream runs only', { batchSize: '1' }, allBut('b2', 'b7', 'b8', 'b16', 'conc8', 'np4', 'conc2')],
      ['batchSize 2, exactly', { batchSize: '2' }, ['b2']],
      ['batchSize 3: nothing', { batchSize: '3' }, []],
      ['batchSize 4: batch 2 x concurrency 2', { batchSize: '4' }, ['conc2']],
      ['batchSize 7, exactly', { batchSize: '7' }, ['b7']],
      [
        'batchSize 8: 8 and more, batch 1 x concurrency 8 and batch 2 x numParallel 4 included',
        { batchSize: '8' },
        ['b8', 'b16', 'conc8', 'np4'],
      ],
      ['contextLen 2048: (0, 2048]', { contextLen: '2048' }, ['c1', 'c2048']],
      ['contextLen 4096: 2049 and 4096', { contextLen: '4096' }, ['c2049', 'c4096']],
      ['contextLen 8192', { contextLen: '8192' }, allBut(...CONTEXT.map(([l]) => l))],
      ['contextLen 65536: nothing', { contextLen: '65536' }, []],
      ['contextLen 131072: and everything above', { contextLen: '131072' }, ['c131072', 'c131073', 'c1m']],
      ['engineName vllm', { engineName: 'vllm' }, ['vllm']],
      ['engineName ember (revision 3 only)', { engineName: 'ember' }, ['ember']],
      ['engineName llama.cpp', { engineName: 'llama.cpp' }, allBut('vllm', 'ember')],
      ['quantization, exactly', { quantization: 'Q8_0' }, ['q8', 'cuda2']],
      ['quantization, case-sensitive', { quantization: 'q8_0' }, []],
      ['quantization Q4_K_M', { quantization: 'Q4_K_M' }, allBut('q8', 'cuda2')],
      ['backend, exactly', { backend: 'cuda' }, ['vllm', 'cuda2']],
      ['backend, case-sensitive', { backend: 'CUDA' }, []],
      ['backend rocm', { backend: 'rocm' }, ['rocm']],
      ['backend and quantization together', { backend: 'cuda', quantization: 'Q8_0' }, ['cuda2']],
    ]);
  });

  describe('submitter', () => {
    filterCases(ctx, seeder, [
      ['verified=true, set by an admin after the runs', { verified: 'true' }, ['v1', 'v2']],
      ['verified=false', { verified: 'false' }, allBut('v1', 'v2')],
      ['verified and hwClass together', { verified: 'true', hwClass: 'UNIFIED' }, ['v2']],
    ]);

    it('shows the submitter as verified on the rows', async () => {
      const { rows } = await page(ctx, { verified: 'true' });
      for (const row of rows) expect(row.user).to.include({ username: 'vera', verified: true });
    });
  });

  it('since: the 30-day and 7-day windows at their edges', async () => {
    const all = seeder.ranked(seeder.approved());
    const first = seeder.order[0]!;
    const start = seeder.createdAt(first);
    const at = (ms: number, since: string) => atTime(ctx, ms, () => boardLabels(ctx, seeder, { since }));
    expect(await at(start + 7 * DAY - 1, '7d')).to.deep.equal(all);
    expect(await at(start + 7 * DAY + 1, '7d')).to.deep.equal(all.filter((l) => l !== first));
    expect(await at(start + 30 * DAY + 1, '30d')).to.deep.equal(all.filter((l) => l !== first));
    expect(await at(start + 30 * DAY + 1, '7d')).to.deep.equal([]);
  });
});
