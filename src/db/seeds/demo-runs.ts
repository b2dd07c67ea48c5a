import type { Db } from '../knex.ts';
import { bitsPerWeight } from '../../lib/roofline.ts';
import { submissionVerdict } from '../../runs/submission/verdict.ts';
import { normaliseSubmission } from '../../runs/submission/normalise.ts';
import type { RevisionProfile } from '../../revisions.ts';
import type { ModelRow } from '../../services/models.service.ts';
import { createSpeedTestWriter } from '../../runs/submission/speed-tests.service.ts';
import { writeVisibly } from '../../services/visible-writes.ts';

/**
 * Sample runs from demo users across every hardware class, so a newcomer's quick start
 * shows a living leaderboard that teaches what real ones look like: machines, engines,
 * models and quantizations in the proportions people use them, each run's launch command
 * the one its engine would be started with, single-stream speeds drawn below the run's
 * own decode-speed bound (the plausibility check's), and throughput runs (several
 * requests in flight, marked "×N streams") and speculative runs as what they are.
 * Deterministic (seeded), idempotent (skipped when demo users exist), never used in
 * production.
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

/**
 * A machine people benchmark on, how often it shows up (`weight`: relative share of the
 * sample, after what real boards show: RTX 4090/3090 and Apple Silicon dominate, a few
 * servers and CPU boxes), and the engines and quantizations run on it.
 */
type Setup = {
  hardware: Record<string, unknown>;
  memoryGb: number;
  weight: number;
  engines: readonly Weighted<string>[];
  backend: string;
  os: string;
};
type Weighted<T> = readonly [value: T, weight: number];

/** Engines people run on one NVIDIA card; servers (vLLM, SGLang) take over on several. */
const CUDA_ENGINES: Weighted<string>[] = [
  ['llama.cpp', 5],
  ['ollama', 3],
  ['vllm', 2],
  ['sglang', 1],
  ['lmstudio', 1],
];
const MULTI_CUDA_ENGINES: Weighted<string>[] = [
  ['vllm', 4],
  ['sglang', 2],
  ['llama.cpp', 3],
];
const SETUPS: Setup[] = [
  ...(
    [
      ['NVIDIA GeForce RTX 4090', 24, 1, 14],
      ['NVIDIA GeForce RTX 4090', 24, 2, 3],
      ['NVIDIA GeForce RTX 3090', 24, 1, 12],
      ['NVIDIA GeForce RTX 3090', 24, 4, 3],
      ['NVIDIA GeForce RTX 5090', 32, 1, 8],
      ['NVIDIA GeForce RTX 4060 Ti', 16, 1, 5],
      ['NVIDIA H100 SXM', 80, 1, 3],
      ['NVIDIA A100 80GB PCIe', 80, 2, 2],
    ] as const
  ).map(([gpuName, vramGb, gpuCount, weight]) => ({
    hardware: { hwClass: 'DISCRETE_GPU', gpuName, vramGb, gpuCount, cpu: 'AMD Ryzen 9 7950X', ramGb: 128 },
    memoryGb: vramGb * gpuCount,
    weight,
    engines: gpuCount > 1 || vramGb >= 80 ? MULTI_CUDA_ENGINES : CUDA_ENGINES,
    backend: 'cuda',
    os: 'Ubuntu 24.04',
  })),
  {
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'AMD Radeon RX 7900 XTX', vramGb: 24 },
    memoryGb: 24,
    weight: 4,
    engines: [
      ['llama.cpp', 3],
      ['ollama', 1],
    ],
    backend: 'rocm',
    os: 'Fedora 41',
  },
  ...(
    [
      ['M4', 'Max', 128, 8],
      ['M3', 'Ultra', 192, 4],
      ['M2', 'Pro', 32, 3],
      ['M4', 'Pro', 48, 5],
    ] as const
  ).map(([chipFamily, chipVariant, unifiedMemoryGb, weight]) => ({
    hardware: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily, chipVariant, unifiedMemoryGb },
    memoryGb: unifiedMemoryGb,
    weight,
    engines: [
      ['mlx', 3],
      ['llama.cpp', 3],
      ['ollama', 2],
      ['lmstudio', 1],
    ] as Weighted<string>[],
    backend: 'metal',
    os: 'macOS 15',
  })),
  {
    hardware: { hwClass: 'UNIFIED', chipVendor: 'AMD', chipFamily: 'Ryzen AI Max+', chipVariant: '395', unifiedMemoryGb: 128 },
    memoryGb: 128,
    weight: 6,
    engines: [
      ['llama.cpp', 4],
      ['ollama', 1],
    ],
    backend: 'vulkan',
    os: 'Ubuntu 24.04',
  },
  ...(
    [
      ['AMD EPYC 9654', 384, 2],
      ['AMD Ryzen 9 7950X', 64, 2],
      ['Intel Xeon Platinum 8480+', 512, 1],
    ] as const
  ).map(([cpu, ramGb, weight]) => ({
    hardware: { hwClass: 'CPU_ONLY', cpu, ramGb },
    memoryGb: ramGb,
    weight,
    engines: [
      ['llama.cpp', 3],
      ['ollama', 1],
    ] as Weighted<string>[],
    backend: 'cpu',
    os: 'Debian 12',
  })),
];

/** Quantizations each engine loads, weighted as people pick them (Q4_K_M first by far). */
const GGUF: Weighted<string>[] = [
  ['Q4_K_M', 8],
  ['Q5_K_M', 2],
  ['Q6_K', 1],
  ['Q8_0', 3],
  ['IQ4_XS', 1],
];
const QUANTS_BY_ENGINE: Record<string, Weighted<string>[]> = {
  'llama.cpp': GGUF,
  ollama: [
    ['Q4_K_M', 6],
    ['Q8_0', 1],
  ],
  lmstudio: GGUF,
  vllm: [
    ['AWQ', 3],
    ['GPTQ', 1],
    ['fp8', 2],
    ['bf16', 2],
  ],
  sglang: [
    ['AWQ', 2],
    ['fp8', 2],
    ['bf16', 1],
  ],
  mlx: [
    ['mlx-4bit', 4],
    ['mlx-8bit', 1],
  ],
};

/** Models weighted by how often people benchmark them: 7-8B and small MoE models lead. */
const MODEL_WEIGHTS: Record<string, number> = {
  'meta-llama/Llama-3.1-8B-Instruct': 8,
  'bartowski/Meta-Llama-3.1-8B-Instruct-GGUF': 4,
  'Qwen/Qwen3-8B': 6,
  'Qwen/Qwen3-30B-A3B': 6,
  'unsloth/Qwen3-30B-A3B-GGUF': 4,
  'openai/gpt-oss-20b': 6,
  'openai/gpt-oss-120b': 4,
  'meta-llama/Llama-3.3-70B-Instruct': 3,
  'google/gemma-3-27b-it': 3,
  'mistralai/Mistral-7B-Instruct-v0.3': 3,
  'Qwen/Qwen2.5-7B-Instruct': 3,
};

/** A file name people give a GGUF on disk: the repo's name and the quantization. */
const ggufFile = (hfId: string, quantization: string) =>
  `models/${hfId.slice(hfId.indexOf('/') + 1).replace(/-GGUF$/i, '')}-${quantization}.gguf`;

interface CommandShape {
  hfId: string;
  quantization: string;
  contextLength: number;
  gpuCount: number;
  /** Requests in flight for a throughput run, 1 otherwise. */
  streams: number;
  /** A speculative-decoding run with this draft model. */
  draft: string | null;
}

/**
 * The launch command the engine would really be started with, so what the command says
 * (engine binary, context, tensor parallelism, parallel slots, draft model) agrees with
 * the run's fields: the parsed flags are the run's engine flags.
 */
function demoCommand(engineName: string, run: CommandShape): string {
  const { hfId, quantization, contextLength, gpuCount, streams, draft } = run;
  switch (engineName) {
    case 'vllm':
      return [
        `vllm serve ${hfId} --max-model-len ${contextLength} --gpu-memory-utilization 0.9`,
        gpuCount > 1 ? ` --tensor-parallel-size ${gpuCount}` : '',
        streams > 1 ? ` --max-num-seqs ${Math.max(streams, 64)}` : '',
      ].join('');
    case 'sglang':
      return `python -m sglang.launch_server --model-path ${hfId} --context-length ${contextLength}${gpuCount > 1 ? ` --tp ${gpuCount}` : ''}`;
    case 'ollama':
      return `${streams > 1 ? `OLLAMA_NUM_PARALLEL=${streams} ` : ''}OLLAMA_FLASH_ATTENTION=1 ollama run ${hfId.slice(hfId.indexOf('/') + 1).toLowerCase()} --verbose`;
    case 'mlx':
      return `mlx_lm.server --model mlx-community/${hfId.slice(hfId.indexOf('/') + 1)}-${quantization.replace(/^mlx-/, '')}`;
    case 'lmstudio':
      return `lms load ${hfId.slice(hfId.indexOf('/') + 1).toLowerCase()} --gpu max --context-length ${contextLength}`;
    default:
      return [
        `llama-server -m ${ggufFile(hfId, quantization)} -ngl 99 -fa on -c ${contextLength}`,
        streams > 1 ? ` -np ${streams}` : '',
        draft ? ` --model-draft ${draft} --draft-max 16` : '',
      ].join('');
  }
}

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
    /** One of the items, each as likely as its weight. */
    weighted: <T>(items: readonly (readonly [T, number])[]): T => {
      let left = next() * items.reduce((sum, [, weight]) => sum + weight, 0);
      for (const [item, weight] of items) if ((left -= weight) < 0) return item;
      return items.at(-1)![0];
    },
  };
}

/** Builds the demo's llama.cpp runs were measured with. */
const LLAMA_CPP_BUILDS = ['b6940', 'b7112', 'b7290', 'b7455'] as const;

/** A draft model for the speculative-decoding runs (llama.cpp only). */
const DRAFT_MODEL = 'models/Llama-3.2-1B-Instruct-Q8_0.gguf';

export async function seedDemoRuns(
  db: Db,
  profile: RevisionProfile,
  { runs = 300, now = new Date(), seed = 20261121 }: { runs?: number; now?: Date; seed?: number } = {},
): Promise<{ users: number; runs: number }> {
  if (await db('users').where({ is_demo: true }).first('id')) return { users: 0, runs: 0 };
  const models: ModelRow[] = await db('models').whereNotNull('params').orderBy('hf_id');
  if (models.length === 0) return { users: 0, runs: 0 };
  const rng = random(seed);
  const weightedModels = models.map((model) => [model, MODEL_WEIGHTS[model.hf_id] ?? 1] as const);
  const engines = new Set<string>(profile.speedTests.engines);
  // The run writer takes only visible writes; a seed has no read index of its own to wait for.
  return writeVisibly({ db }, async (trx) => {
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
      const setup = rng.weighted(SETUPS.map((s) => [s, s.weight] as const));
      const model = rng.weighted(weightedModels);
      const engineName = rng.weighted(setup.engines.filter(([engine]) => engines.has(engine)));
      const drawn = rng.weighted(QUANTS_BY_ENGINE[engineName] ?? GGUF);
      // Servers load a natively quantized release (gpt-oss: MXFP4) as published.
      const quantization = model.native_bits_per_weight != null && (engineName === 'vllm' || engineName === 'sglang') ? 'MXFP4' : drawn;
      const bits = bitsPerWeight(quantization)!;
      const weightsGb = (model.params! * bits) / 8;
      if (weightsGb > setup.memoryGb * 0.9) continue; // would not fit
      const gpuCount = Number(setup.hardware.gpuCount ?? 1);
      // About one run in eight measures aggregate throughput with several requests in
      // flight (servers and llama.cpp's parallel slots); a few llama.cpp runs decode
      // speculatively with a draft model. Everything else is single-stream, as most are.
      const throughput =
        ['vllm', 'sglang', 'llama.cpp', 'ollama'].includes(engineName) &&
        rng.next() < (engineName === 'vllm' || engineName === 'sglang' ? 0.45 : 0.05);
      const streams = throughput ? rng.pick(engineName === 'vllm' || engineName === 'sglang' ? [8, 16, 32, 64] : [2, 4, 8]) : 1;
      const draft = !throughput && engineName === 'llama.cpp' && setup.backend !== 'cpu' && rng.next() < 0.04 ? DRAFT_MODEL : null;
      const contextLength = rng.weighted([
        [4096, 3],
        [8192, 4],
        [16384, 2],
        [32768, 2],
        [131072, 1],
      ]);
      const commandSnippet = demoCommand(engineName, { hfId: model.hf_id, quantization, contextLength, gpuCount, streams, draft });
      const outputTokens = rng.pick([128, 256, 512]);
      const body = {
        hfId: model.hf_id,
        hardware: { ...setup.hardware, os: setup.os },
        engineName,
        // llama.cpp runs name a recent build, as llama-bench prints it: a build after b2000
        // splits layers across cards by default, so several cards decode at one card's speed
        // (without it the bound sums the cards, and the demo drew 4× RTX 3090 at 1,300 tok/s).
        // Taken by position, not from the generator, so the rest of the sample stays the same.
        ...(engineName === 'llama.cpp' ? { engineVersion: LLAMA_CPP_BUILDS[attempt % LLAMA_CPP_BUILDS.length] } : {}),
        quantization,
        backend: setup.backend,
        tokSOut: 1, // replaced below, once the run's own bound is known
        ttftMs: Math.round(rng.between(40, 900)),
        peakVramGb: Math.round(weightsGb * rng.between(1.05, 1.3) * 10) / 10,
        promptTokens: 512,
        outputTokens,
        contextLength,
        batchSize: 1,
        notes: 'Demo run: sample data generated for the quick start.',
        engineFlags: { commandSnippet, ...(streams > 1 ? { concurrency: streams } : {}) },
      };
      const allowed = Object.fromEntries(
        Object.entries(body).filter(([key]) => !profile.speedTests.revisionOnlyFields.includes(key as never)),
      );
      const normalised = normaliseSubmission(profile, allowed);
      const { boundTokS } = submissionVerdict(normalised, model);
      if (!boundTokS) continue; // a setup the roofline cannot judge teaches nothing
      // Real single-stream decoding reaches about half to four fifths of the bound; several
      // streams add up to less than their number times one stream; a draft model that is
      // accepted often gives 1.3-1.8x.
      const singleStream = boundTokS * rng.between(0.45, 0.8);
      const tokSOut =
        Math.round(singleStream * (throughput ? streams * rng.between(0.35, 0.7) : draft ? rng.between(1.3, 1.8) : 1) * 10) / 10;
      normalised.tokSOut = tokSOut;
      normalised.tokSPrefill = Math.round(singleStream * rng.between(8, 30));
      // Older runs are rarer: the sample grows towards today, as a live board does.
      const createdAt = new Date(now.getTime() - 90 * (1 - Math.sqrt(rng.next())) * 86_400_000);
      await writer.store({ normalised, model, userId: rng.pick(users).id, createdAt });
      stored += 1;
    }
    return { users: users.length, runs: stored };
  });
}
