import type { Db } from '../knex.ts';
import { memoryBandwidthUpperBoundOf } from '../../lib/hardware-lookup.ts';
import { bitsPerWeight, decodeBoundTokS } from '../../lib/roofline.ts';
import { normaliseSubmission } from '../../lib/speed-test-normalise.ts';
import type { RevisionProfile } from '../../revisions.ts';
import type { ModelRow } from '../../services/models.service.ts';
import { createSpeedTestWriter } from '../../services/speed-tests.service.ts';

/**
 * Sample runs from demo users across every hardware class, so a newcomer's quick start
 * shows a living leaderboard. Speeds are drawn below each setup's decode-speed bound, so
 * the sample looks like real measurements. Deterministic (seeded), idempotent (skipped
 * when demo users exist), and never used in production.
 */

const DEMO_USERS = [
  ['demo_ada', 'Ada (demo)', true],
  ['demo_grace', 'Grace (demo)', true],
  ['demo_linus', 'Linus (demo)', false],
  ['demo_margaret', 'Margaret (demo)', false],
  ['demo_alan', 'Alan (demo)', true],
  ['demo_barbara', 'Barbara (demo)', false],
  ['demo_dennis', 'Dennis (demo)', false],
  ['demo_frances', 'Frances (demo)', false],
] as const;

type Setup = { hardware: Record<string, unknown>; memoryGb: number; engines: string[]; quants: string[]; backend: string; os: string };

const GGUF = ['Q4_K_M', 'Q5_K_M', 'Q6_K', 'Q8_0', 'IQ4_XS'];
const SETUPS: Setup[] = [
  ...[
    ['NVIDIA GeForce RTX 4090', 24, 1],
    ['NVIDIA GeForce RTX 4090', 24, 2],
    ['NVIDIA GeForce RTX 3090', 24, 1],
    ['NVIDIA GeForce RTX 3090', 24, 4],
    ['NVIDIA GeForce RTX 5090', 32, 1],
    ['NVIDIA GeForce RTX 4060 Ti', 16, 1],
    ['NVIDIA H100 SXM', 80, 1],
    ['NVIDIA A100 80GB PCIe', 80, 2],
  ].map(([gpuName, vramGb, gpuCount]) => ({
    hardware: { hwClass: 'DISCRETE_GPU', gpuName, vramGb, gpuCount, cpu: 'AMD Ryzen 9 7950X', ramGb: 128 },
    memoryGb: (vramGb as number) * (gpuCount as number),
    engines: ['llama.cpp', 'vllm', 'sglang', 'ollama', 'exllamav2'],
    quants: [...GGUF, 'AWQ', 'GPTQ', 'fp8'],
    backend: 'cuda',
    os: 'Ubuntu 24.04',
  })),
  {
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'AMD Radeon RX 7900 XTX', vramGb: 24 },
    memoryGb: 24,
    engines: ['llama.cpp', 'ollama'],
    quants: GGUF,
    backend: 'rocm',
    os: 'Fedora 41',
  },
  ...[
    ['M4', 'Max', 128],
    ['M3', 'Ultra', 192],
    ['M2', 'Pro', 32],
    ['M4', 'Pro', 48],
  ].map(([chipFamily, chipVariant, unifiedMemoryGb]) => ({
    hardware: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily, chipVariant, unifiedMemoryGb },
    memoryGb: unifiedMemoryGb as number,
    engines: ['mlx', 'llama.cpp', 'ollama', 'lmstudio'],
    quants: ['Q4_K_M', 'Q8_0', 'mlx-4bit', 'mlx-8bit'],
    backend: 'metal',
    os: 'macOS 15',
  })),
  {
    hardware: { hwClass: 'UNIFIED', chipVendor: 'AMD', chipFamily: 'Ryzen AI Max+', chipVariant: '395', unifiedMemoryGb: 128 },
    memoryGb: 128,
    engines: ['llama.cpp', 'ollama'],
    quants: GGUF,
    backend: 'vulkan',
    os: 'Ubuntu 24.04',
  },
  ...[
    ['AMD EPYC 9654', 384],
    ['AMD Ryzen 9 7950X', 64],
    ['Intel Xeon Platinum 8480+', 512],
  ].map(([cpu, ramGb]) => ({
    hardware: { hwClass: 'CPU_ONLY', cpu, ramGb },
    memoryGb: ramGb as number,
    engines: ['llama.cpp', 'ollama'],
    quants: GGUF,
    backend: 'cpu',
    os: 'Debian 12',
  })),
];

/** mulberry32: a small seeded generator, so every quick start shows the same sample. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    between: (low: number, high: number) => low + next() * (high - low),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}

const engineFits = (engine: string, quant: string) =>
  engine === 'vllm' || engine === 'sglang' ? !/^(Q\d|IQ)/.test(quant) || quant === 'Q8_0' : engine === 'mlx' ? quant.startsWith('mlx') : !quant.startsWith('mlx') && !['AWQ', 'GPTQ', 'fp8'].includes(quant);

export async function seedDemoRuns(
  db: Db,
  profile: RevisionProfile,
  { runs = 300, now = new Date(), seed = 20261121 }: { runs?: number; now?: Date; seed?: number } = {},
): Promise<{ users: number; runs: number }> {
  if (await db('users').where({ is_demo: true }).first('id')) return { users: 0, runs: 0 };
  const models: ModelRow[] = await db('models').whereNotNull('params');
  if (models.length === 0) return { users: 0, runs: 0 };
  const rng = random(seed);
  return db.transaction(async (trx) => {
    const writer = createSpeedTestWriter({ db: trx });
    const users = await trx('users')
      .insert(
        DEMO_USERS.map(([username, displayName, verified]) => ({
          username,
          display_name: displayName,
          // Not an argon2 hash: nobody can sign in as a demo user.
          password_hash: '!demo-account',
          is_verified: verified,
          is_demo: true,
        })),
      )
      .returning('id');
    let stored = 0;
    for (let attempt = 0; stored < runs && attempt < runs * 20; attempt += 1) {
      const setup = rng.pick(SETUPS);
      const model = rng.pick(models);
      const engineName = rng.pick(setup.engines.filter((e) => profile.speedTests.engines.includes(e as never)));
      const quantization = rng.pick(setup.quants.filter((q) => engineFits(engineName, q)));
      if (!engineName || !quantization) continue;
      const bits = bitsPerWeight(quantization)!;
      const weightsGb = (model.params! * bits) / 8;
      if (weightsGb > setup.memoryGb * 0.9) continue; // would not fit
      const hardware = { ...setup.hardware, os: setup.os };
      const bandwidth = memoryBandwidthUpperBoundOf(hardware as never, { engineName });
      if (!bandwidth) continue;
      const batched = rng.next() < 0.12;
      const batchSize = batched ? rng.pick([4, 8, 16]) : 1;
      const active = model.is_moe ? (model.active_params ?? model.params!) : model.params!;
      const singleStream = decodeBoundTokS(bandwidth, active, bits) * rng.between(0.45, 0.85);
      const tokSOut = Math.round((batched ? singleStream * batchSize * rng.between(0.4, 0.7) : singleStream) * 10) / 10;
      const contextLength = rng.pick([2048, 4096, 8192, 16384, 32768]);
      const body = {
        hfId: model.hf_id,
        hardware,
        engineName,
        quantization,
        backend: setup.backend,
        tokSOut,
        tokSPrefill: Math.round(tokSOut * rng.between(8, 30)),
        ttftMs: Math.round(rng.between(40, 900)),
        peakVramGb: Math.round(weightsGb * rng.between(1.05, 1.3) * 10) / 10,
        promptTokens: 512,
        outputTokens: 256,
        contextLength,
        batchSize,
        notes: 'Demo run: sample data generated for the quick start.',
        ...(engineName === 'vllm' || engineName === 'sglang'
          ? { engineFlags: { commandSnippet: `${engineName} serve ${model.hf_id} --max-num-seqs ${Math.max(batchSize, 1)}${setup.hardware.gpuCount && (setup.hardware.gpuCount as number) > 1 ? ` --tensor-parallel-size ${setup.hardware.gpuCount}` : ''}` } }
          : { engineFlags: { commandSnippet: `llama-server -m model.gguf -ngl 99 -fa on -c ${contextLength}` } }),
      };
      const allowed = Object.fromEntries(Object.entries(body).filter(([key]) => !profile.speedTests.revisionOnlyFields.includes(key as never)));
      const normalised = normaliseSubmission(profile, allowed);
      const createdAt = new Date(now.getTime() - rng.between(0, 90) * 86_400_000);
      await writer.store({ normalised, model, userId: rng.pick(users).id, createdAt });
      stored += 1;
    }
    return { users: users.length, runs: stored };
  });
}
