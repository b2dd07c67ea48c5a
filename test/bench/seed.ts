/**
 * Seeds the benchmark database: users, a model catalogue in base/finetune/quant trees,
 * hardware profiles from the hardware catalogue, engines, and N speed-test runs.
 *
 * Small tables (models, hardware, engines) are built in TypeScript with a seeded PRNG so
 * their JSON matches what the app stores (normaliseHardware, hardwareSearchText, ...). The
 * runs are one INSERT ... SELECT over generate_series, joining weighted "slot" tables
 * (temporary) so that popular models, GPUs and engines get most runs. Every denormalised
 * column of a run is filled from the row it copies. The migrations' secondary indexes on
 * speed_test_runs are dropped for the bulk insert and recreated from their own definitions
 * afterwards (same indexes, bulk-built); no index is added.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { cpus, gpus, unifiedChips, type CpuSpec, type GpuSpec, type UnifiedChipSpec } from '../../src/data/hardware-catalogue.ts';
import type { Db } from '../../src/db/knex.ts';
import { contentHash } from '../../src/lib/canonical-json.ts';
import { rebuildReadModels } from '../../src/runs/read-models/index.ts';
import { hardwareProfileRow, hardwareSearchText, memoryGb, osFamily } from '../../src/runs/submission/run-facts.ts';
import { normaliseHardware, type NormalisedHardware } from '../../src/runs/submission/normalise.ts';
import type { ModelRow } from '../../src/services/models.service.ts';
import type { RevisionProfile } from '../../src/revisions.ts';
import type { SubmittedHardware } from '../../src/runs/submission/speed-test.schema.ts';

export interface SeedOptions {
  runs: number;
  users: number;
  models: number;
  hardwareProfiles: number;
  days: number;
  log: (message: string) => void;
}

export interface SeedSummary {
  runs: number;
  users: number;
  models: number;
  hardwareProfiles: number;
  engines: number;
  seconds: number;
  steps: Record<string, number>;
}

// ---------------------------------------------------------------------------------------
// Deterministic randomness
// ---------------------------------------------------------------------------------------

export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rng: () => number, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

export function weightedPick<T>(rng: () => number, items: readonly T[], weight: (item: T) => number): T {
  const total = items.reduce((sum, item) => sum + weight(item), 0);
  let r = rng() * total;
  for (const item of items) {
    r -= weight(item);
    if (r < 0) return item;
  }
  return items.at(-1)!;
}

/**
 * Exactly `slots` entries spread over `items` in proportion to their weights (largest
 * remainder), each item with a weight above zero getting at least one: a uniform pick of a
 * slot is a weighted pick.
 */
function slotsFor<T>(items: readonly T[], weight: (item: T) => number, slots: number): T[] {
  const weighted = items.filter((item) => weight(item) > 0);
  if (weighted.length > slots) throw new Error(`${weighted.length} items do not fit in ${slots} slots`);
  const total = weighted.reduce((sum, item) => sum + weight(item), 0);
  const spare = slots - weighted.length;
  const shares = weighted.map((item) => (weight(item) / total) * spare);
  const counts = shares.map((share) => 1 + Math.floor(share));
  let left = slots - counts.reduce((a, b) => a + b, 0);
  const byRemainder = shares.map((share, i) => [share - Math.floor(share), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of byRemainder) {
    if (left <= 0) break;
    counts[i]! += 1;
    left -= 1;
  }
  return weighted.flatMap((item, i) => Array.from({ length: counts[i]! }, () => item));
}

// ---------------------------------------------------------------------------------------
// Models: base models, their finetunes (and finetunes of those), quantized uploads
// ---------------------------------------------------------------------------------------

/** Size in billions, or [total, active] for a mixture of experts. */
type Size = number | [number, number];
interface ModelLine {
  org: string;
  family: string;
  line: string;
  sizes: Size[];
  instruct: boolean;
}

const LINES: ModelLine[] = [
  { org: 'meta-llama', family: 'Llama', line: 'Llama-2', sizes: [7, 13, 70], instruct: true },
  { org: 'meta-llama', family: 'Llama', line: 'Meta-Llama-3', sizes: [8, 70], instruct: true },
  { org: 'meta-llama', family: 'Llama', line: 'Llama-3.1', sizes: [8, 70, 405], instruct: true },
  { org: 'meta-llama', family: 'Llama', line: 'Llama-3.2', sizes: [1.2, 3.2], instruct: true },
  { org: 'meta-llama', family: 'Llama', line: 'Llama-3.3', sizes: [70], instruct: false },
  { org: 'meta-llama', family: 'Llama', line: 'Llama-4-Scout', sizes: [[109, 17]], instruct: true },
  { org: 'meta-llama', family: 'Llama', line: 'Llama-4-Maverick', sizes: [[400, 17]], instruct: true },
  { org: 'Qwen', family: 'Qwen', line: 'Qwen2.5', sizes: [0.5, 1.5, 3.1, 7.6, 14.7, 32.8, 72.7], instruct: true },
  { org: 'Qwen', family: 'Qwen', line: 'Qwen2.5-Coder', sizes: [1.5, 7.6, 14.7, 32.8], instruct: true },
  { org: 'Qwen', family: 'Qwen', line: 'Qwen3', sizes: [0.6, 1.7, 4, 8.2, 14.8, 32.8, [30.5, 3.3], [235, 22]], instruct: false },
  {
    org: 'Qwen',
    family: 'Qwen',
    line: 'Qwen3-Coder',
    sizes: [
      [30.5, 3.3],
      [480, 35],
    ],
    instruct: true,
  },
  { org: 'Qwen', family: 'Qwen', line: 'QwQ', sizes: [32.8], instruct: false },
  { org: 'mistralai', family: 'Mistral', line: 'Mistral', sizes: [7.2], instruct: true },
  { org: 'mistralai', family: 'Mistral', line: 'Mistral-Nemo', sizes: [12.2], instruct: true },
  { org: 'mistralai', family: 'Mistral', line: 'Mistral-Small', sizes: [22.2, 23.6], instruct: true },
  { org: 'mistralai', family: 'Mistral', line: 'Mistral-Large', sizes: [123], instruct: true },
  { org: 'mistralai', family: 'Mistral', line: 'Mixtral-8x7B', sizes: [[46.7, 12.9]], instruct: true },
  { org: 'mistralai', family: 'Mistral', line: 'Mixtral-8x22B', sizes: [[141, 39]], instruct: true },
  { org: 'mistralai', family: 'Mistral', line: 'Devstral-Small', sizes: [23.6], instruct: false },
  { org: 'google', family: 'Gemma', line: 'gemma-2', sizes: [2.6, 9.2, 27.2], instruct: true },
  { org: 'google', family: 'Gemma', line: 'gemma-3', sizes: [1, 4.3, 12.2, 27.4], instruct: true },
  { org: 'microsoft', family: 'Phi', line: 'Phi-3-mini', sizes: [3.8], instruct: true },
  { org: 'microsoft', family: 'Phi', line: 'Phi-3.5-MoE', sizes: [[41.9, 6.6]], instruct: true },
  { org: 'microsoft', family: 'Phi', line: 'phi-4', sizes: [14.7], instruct: false },
  { org: 'deepseek-ai', family: 'DeepSeek', line: 'DeepSeek-V3', sizes: [[671, 37]], instruct: false },
  { org: 'deepseek-ai', family: 'DeepSeek', line: 'DeepSeek-R1', sizes: [[671, 37]], instruct: false },
  { org: 'deepseek-ai', family: 'DeepSeek', line: 'DeepSeek-R1-Distill-Qwen', sizes: [1.5, 7.6, 14.8, 32.8], instruct: false },
  { org: 'deepseek-ai', family: 'DeepSeek', line: 'DeepSeek-R1-Distill-Llama', sizes: [8, 70.6], instruct: false },
  { org: 'deepseek-ai', family: 'DeepSeek', line: 'DeepSeek-Coder-V2-Lite', sizes: [[15.7, 2.4]], instruct: true },
  { org: 'zai-org', family: 'GLM', line: 'glm-4', sizes: [9.4], instruct: true },
  { org: 'zai-org', family: 'GLM', line: 'GLM-4.5-Air', sizes: [[106, 12]], instruct: false },
  { org: 'zai-org', family: 'GLM', line: 'GLM-4.5', sizes: [[355, 32]], instruct: false },
  {
    org: 'openai',
    family: 'gpt-oss',
    line: 'gpt-oss',
    sizes: [
      [21, 3.6],
      [117, 5.1],
    ],
    instruct: false,
  },
  { org: 'CohereForAI', family: 'Command', line: 'c4ai-command-r', sizes: [35, 104], instruct: false },
  { org: '01-ai', family: 'Yi', line: 'Yi-1.5', sizes: [6, 8.8, 34.4], instruct: true },
  { org: 'tiiuae', family: 'Falcon', line: 'Falcon3', sizes: [1, 3.2, 7.5, 10.3], instruct: true },
  { org: 'HuggingFaceTB', family: 'SmolLM', line: 'SmolLM2', sizes: [0.135, 0.36, 1.7], instruct: true },
  { org: 'ibm-granite', family: 'Granite', line: 'granite-3.3', sizes: [2.5, 8.2], instruct: true },
  { org: 'allenai', family: 'OLMo', line: 'OLMo-2', sizes: [7.3, 13.7, 32.2], instruct: true },
  { org: 'nvidia', family: 'Nemotron', line: 'Llama-3.3-Nemotron-Super', sizes: [49.9], instruct: false },
  { org: 'moonshotai', family: 'Kimi', line: 'Kimi-K2', sizes: [[1000, 32]], instruct: true },
  { org: 'MiniMaxAI', family: 'MiniMax', line: 'MiniMax-M2', sizes: [[230, 10]], instruct: false },
  { org: 'internlm', family: 'InternLM', line: 'internlm3', sizes: [8.8], instruct: true },
  { org: 'bigcode', family: 'StarCoder', line: 'starcoder2', sizes: [3, 7, 15], instruct: false },
];

const FINETUNE_ORGS = [
  'NousResearch',
  'cognitivecomputations',
  'teknium',
  'mlabonne',
  'huihui-ai',
  'Sao10K',
  'TheDrummer',
  'arcee-ai',
  'allura-org',
  'open-thoughts',
  'bespokelabs',
  'migtissera',
  'jondurbin',
  'abacusai',
  'upstage',
  'WizardLMTeam',
  'HuggingFaceH4',
  'Gryphe',
  'anthracite-org',
  'VAGOsolutions',
  'failspy',
  'Undi95',
  'EVA-UNIT-01',
  'nbeerbower',
];
const FINETUNE_TAGS = [
  'abliterated',
  'Hermes',
  'dolphin',
  'uncensored',
  'RP',
  'Coder',
  'Math',
  'DPO',
  'SFT',
  'Reasoning',
  'Roleplay',
  'Storywriter',
  'Tool-Use',
  'Distill',
  'Chat',
  'ORPO',
  'Magnum',
  'Celeste',
  'Lexi',
  'German',
  'Japanese',
  'Medical',
];
const QUANT_UPLOADS: { org: string; suffix: string }[] = [
  { org: 'bartowski', suffix: 'GGUF' },
  { org: 'unsloth', suffix: 'GGUF' },
  { org: 'unsloth', suffix: 'bnb-4bit' },
  { org: 'TheBloke', suffix: 'GGUF' },
  { org: 'TheBloke', suffix: 'AWQ' },
  { org: 'TheBloke', suffix: 'GPTQ' },
  { org: 'mradermacher', suffix: 'GGUF' },
  { org: 'mradermacher', suffix: 'i1-GGUF' },
  { org: 'lmstudio-community', suffix: 'GGUF' },
  { org: 'QuantFactory', suffix: 'GGUF' },
  { org: 'mlx-community', suffix: '4bit' },
  { org: 'mlx-community', suffix: '8bit' },
  { org: 'casperhansen', suffix: 'awq' },
  { org: 'RedHatAI', suffix: 'FP8-dynamic' },
];

/** A models row as stored (without hub facts), with its share of the runs (not stored). */
export type SeedModel = Omit<ModelRow, 'hub_sha' | 'gated' | 'family' | 'params'> & { family: string; params: number; weight: number };

function sizeLabel(size: Size): string {
  const b = (n: number) => (n < 1 ? `${Math.round(n * 1000)}M` : `${Number.isInteger(n) ? n : Math.round(n)}B`);
  return Array.isArray(size) ? `${b(size[0])}-A${b(size[1])}` : b(size);
}

export function buildModels(count: number, rng: () => number): SeedModel[] {
  const models: SeedModel[] = [];
  const taken = new Set<string>();
  const unique = (hfId: string) => {
    let id = hfId;
    for (let k = 2; taken.has(id.toLowerCase()); k += 1) id = `${hfId}-v${k}`;
    taken.add(id.toLowerCase());
    return id;
  };
  // Heavy-tailed popularity: most runs go to a few models, every model gets some.
  const popularity = () => 1 / (0.02 + rng()) ** 1.6;

  for (const line of LINES) {
    for (const size of line.sizes) {
      for (const variant of line.instruct ? ['', '-Instruct'] : ['']) {
        const name = `${line.line}-${sizeLabel(size)}${variant}`;
        const [params, active] = Array.isArray(size) ? size : [size, null];
        models.push({
          id: randomUUID(),
          hf_id: unique(`${line.org}/${name}`),
          display_name: name,
          family: line.family,
          params,
          params_approximate: false,
          active_params: active,
          is_moe: active !== null,
          base_model_id: null,
          base_hf_id: null,
          base_relation: null,
          weight: popularity() * (variant ? 1.5 : 1) * (params <= 35 ? 2 : 1),
        });
      }
    }
  }
  const bases = models.length;
  const finetunes = Math.round((count - bases) * 0.5);
  const derive = (parent: SeedModel, org: string, name: string, relation: string, weightFactor: number): SeedModel => ({
    ...parent,
    id: randomUUID(),
    hf_id: unique(`${org}/${name}`),
    display_name: name,
    base_model_id: parent.id,
    base_hf_id: parent.hf_id,
    base_relation: relation,
    weight: popularity() * weightFactor,
  });
  while (models.length < bases + finetunes) {
    // A finetune of a base (mostly) or of another finetune, popular parents more often.
    const parent = weightedPick(rng, rng() < 0.8 ? models.slice(0, bases) : models, (m) => Math.sqrt(m.weight));
    const tag = pick(rng, FINETUNE_TAGS);
    const r = rng();
    const relation = r < 0.75 ? 'finetune' : r < 0.9 ? 'merge' : 'adapter';
    models.push(derive(parent, pick(rng, FINETUNE_ORGS), `${parent.display_name}-${tag}`, relation, 0.5));
  }
  const quantParents = models.slice();
  while (models.length < count) {
    // Quantized uploads of a base or a finetune (not of another quant).
    const parent = weightedPick(rng, quantParents, (m) => Math.sqrt(m.weight));
    const upload = pick(rng, QUANT_UPLOADS);
    models.push(derive(parent, upload.org, `${parent.display_name}-${upload.suffix}`, 'quantized', 2));
  }
  return models;
}

// ---------------------------------------------------------------------------------------
// Hardware profiles
// ---------------------------------------------------------------------------------------

export interface SeedHardware {
  id: string;
  details: NormalisedHardware;
  row: Record<string, unknown>;
  /** Facts the run generator needs (not stored as such). */
  facts: {
    hwClass: string;
    memoryGb: number | null;
    hardwareSearch: string;
    osFamily: string | null;
    backend: string;
    bandwidthGBs: number;
    gpuCount: number;
    cardWatts: number;
    profileWatts: number | null;
    costComponent: string;
    costUsd: number;
    weight: number;
  };
}

const LINUX = ['Ubuntu 24.04', 'Ubuntu 22.04', 'Debian 12', 'Arch Linux', 'Fedora 41', 'Pop!_OS 22.04', 'NixOS 24.11'];
const WINDOWS = ['Windows 11', 'Windows 10', 'Windows 11 (WSL2 Ubuntu)'];
const MACOS = ['macOS 15.3', 'macOS 14.6', 'macOS 15.5'];

function gpuBandwidth(gpu: GpuSpec, vram: number): number {
  return gpu.variants?.find((v) => v.vramGb === vram)?.bandwidthGBs ?? gpu.bandwidthGBs;
}

function gpuPopularity(gpu: GpuSpec): number {
  if (/\b(4090|3090|5090)\b/.test(gpu.name)) return 12;
  if (/\b(3060|4060|4070|4080|5070|5080|3080|7900 XTX)\b/.test(gpu.name)) return 5;
  if (gpu.segment === 'consumer') return 2;
  if (/\b(A100|H100|P40|MI50)\b/.test(gpu.name)) return 3;
  return 1;
}

function gpuCardWatts(gpu: GpuSpec): number {
  if (gpu.segment === 'datacenter') return 300 + Math.round(gpu.bandwidthGBs / 10);
  return Math.round(120 + gpu.bandwidthGBs * 0.3);
}

function gpuBackend(gpu: GpuSpec): string {
  return gpu.vendor === 'NVIDIA' ? 'CUDA' : gpu.vendor === 'AMD' ? 'ROCm' : 'SYCL';
}

function discreteProfile(
  rng: () => number,
  heterogeneous: boolean,
): { submitted: SubmittedHardware; gpu: GpuSpec; bandwidth: number; count: number } {
  const gpu = weightedPick(rng, gpus, gpuPopularity);
  const vram = pick(rng, gpu.vramGb);
  const cpu = weightedPick(rng, cpus, (c) => (c.segment === 'desktop' ? 4 : 1));
  const r = rng();
  const os = r < 0.55 ? pick(rng, LINUX) : r < 0.9 ? pick(rng, WINDOWS) : undefined;
  const ramGb = pick(rng, [16, 32, 64, 64, 128, 192, 256, 512]);
  const powerWatts = rng() < 0.3 ? Math.round(250 + rng() * 900) : undefined;
  if (heterogeneous) {
    const other = weightedPick(
      rng,
      gpus.filter((g) => g.vendor === gpu.vendor && g.name !== gpu.name),
      gpuPopularity,
    );
    const otherVram = pick(rng, other.vramGb);
    const submitted = {
      hwClass: 'DISCRETE_GPU' as const,
      gpus: [
        { gpuName: gpu.name, count: 1 + Math.floor(rng() * 2), vramGb: vram },
        { gpuName: other.name, count: 1, vramGb: otherVram },
      ],
      cpu: cpu.name,
      ramGb,
      ...(os ? { os } : {}),
      ...(powerWatts ? { powerWatts } : {}),
    };
    const count = submitted.gpus.reduce((sum, slot) => sum + slot.count, 0);
    return {
      submitted: submitted as SubmittedHardware,
      gpu,
      bandwidth: Math.min(gpuBandwidth(gpu, vram), gpuBandwidth(other, otherVram)),
      count,
    };
  }
  const c = rng();
  const count = gpu.segment === 'datacenter' ? pick(rng, [1, 1, 2, 4, 8]) : c < 0.8 ? 1 : c < 0.93 ? 2 : c < 0.98 ? 3 : 4;
  const submitted = {
    hwClass: 'DISCRETE_GPU' as const,
    gpuName: gpu.name,
    gpuCount: count,
    vramGb: vram,
    cpu: cpu.name,
    ramGb,
    ...(os ? { os } : {}),
    ...(powerWatts ? { powerWatts } : {}),
  };
  return { submitted: submitted as SubmittedHardware, gpu, bandwidth: gpuBandwidth(gpu, vram), count };
}

function unifiedProfile(rng: () => number): { submitted: SubmittedHardware; chip: UnifiedChipSpec; bandwidth: number } {
  const chip = weightedPick(rng, unifiedChips, (c) => (c.vendor === 'Apple' ? 3 : 1));
  const memory = pick(rng, chip.memoryGb);
  const bandwidth = chip.variants?.find((v) => v.memoryGb.includes(memory))?.bandwidthGBs ?? chip.bandwidthGBs;
  const os = chip.vendor === 'Apple' ? pick(rng, MACOS) : rng() < 0.7 ? pick(rng, LINUX) : pick(rng, WINDOWS);
  const submitted = {
    hwClass: 'UNIFIED' as const,
    chipVendor: chip.vendor,
    chipFamily: chip.family,
    chipVariant: chip.variant,
    unifiedMemoryGb: memory,
    ...(rng() < 0.5 ? { os } : {}),
    ...(rng() < 0.2 ? { powerWatts: Math.round(30 + rng() * 200) } : {}),
  };
  return { submitted: submitted as SubmittedHardware, chip, bandwidth };
}

function cpuProfile(rng: () => number): { submitted: SubmittedHardware; cpu: CpuSpec } {
  const cpu = pick(rng, cpus);
  const ramGb = cpu.segment === 'desktop' ? pick(rng, [16, 32, 64, 96, 128, 192]) : pick(rng, [128, 256, 384, 512, 768, 1024]);
  const os = rng() < 0.75 ? pick(rng, LINUX) : pick(rng, WINDOWS);
  return { submitted: { hwClass: 'CPU_ONLY', cpu: cpu.name, ramGb, ...(rng() < 0.8 ? { os } : {}) } as SubmittedHardware, cpu };
}

export function buildHardware(count: number, rng: () => number): SeedHardware[] {
  const out: SeedHardware[] = [];
  const hashes = new Set<string>();
  const quota = {
    discrete: Math.round(count * 0.65),
    heterogeneous: Math.max(3, Math.round(count * 0.025)),
    unified: Math.round(count * 0.22),
  };
  for (let attempt = 0; out.length < count && attempt < count * 50; attempt += 1) {
    const i = out.length;
    let submitted: SubmittedHardware;
    let facts: Omit<SeedHardware['facts'], 'hwClass' | 'memoryGb' | 'hardwareSearch' | 'osFamily' | 'profileWatts'>;
    if (i < quota.discrete) {
      const p = discreteProfile(rng, i < quota.heterogeneous);
      submitted = p.submitted;
      facts = {
        backend: rng() < 0.1 ? 'Vulkan' : gpuBackend(p.gpu),
        // Layer split reads each card's share; tensor parallel adds cards' bandwidth.
        bandwidthGBs: p.bandwidth * (p.count > 1 ? 1.6 : 1),
        gpuCount: p.count,
        cardWatts: gpuCardWatts(p.gpu),
        costComponent: p.gpu.name,
        costUsd: Math.round(200 + p.bandwidth * (p.gpu.segment === 'datacenter' ? 12 : 1.6)),
        weight: gpuPopularity(p.gpu),
      };
    } else if (i < quota.discrete + quota.unified) {
      const p = unifiedProfile(rng);
      submitted = p.submitted;
      facts = {
        backend: p.chip.vendor === 'Apple' ? 'Metal' : 'Vulkan',
        bandwidthGBs: p.bandwidth,
        gpuCount: 0,
        cardWatts: 0,
        costComponent: p.chip.name,
        costUsd: Math.round(600 + p.bandwidth * 5),
        weight: p.chip.vendor === 'Apple' ? 6 : 3,
      };
    } else {
      const p = cpuProfile(rng);
      submitted = p.submitted;
      facts = {
        backend: 'CPU',
        bandwidthGBs: p.cpu.bandwidthGBs,
        gpuCount: 0,
        cardWatts: 0,
        costComponent: p.cpu.name,
        costUsd: Math.round(300 + p.cpu.bandwidthGBs * 8),
        weight: 1,
      };
    }
    const details = normaliseHardware(submitted);
    const hash = contentHash(details);
    if (hashes.has(hash)) continue;
    hashes.add(hash);
    out.push({
      id: randomUUID(),
      details,
      row: { content_hash: hash, ...hardwareProfileRow(details) },
      facts: {
        ...facts,
        hwClass: details.hwClass,
        memoryGb: memoryGb(details),
        hardwareSearch: hardwareSearchText(details),
        osFamily: osFamily(details.os),
        profileWatts: ('powerWatts' in details ? details.powerWatts : undefined) ?? null,
      },
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Engines and quantizations
// ---------------------------------------------------------------------------------------

type EngineKind = 'gguf' | 'server' | 'mlx' | 'other';
const ENGINE_KIND: Record<string, EngineKind> = {
  'llama.cpp': 'gguf',
  ollama: 'gguf',
  lmstudio: 'gguf',
  'text-generation-webui': 'gguf',
  hipfire: 'gguf',
  'bunn-llama': 'gguf',
  ember: 'gguf',
  dwarfstar: 'gguf',
  ctransformers: 'gguf',
  vllm: 'server',
  sglang: 'server',
  tgi: 'server',
  'tensorrt-llm': 'server',
  lmdeploy: 'server',
  exllamav2: 'server',
  exllamav3: 'server',
  llmd: 'server',
  atlas: 'server',
  ninfer: 'server',
  lucebox: 'server',
  freetoken: 'server',
  mlx: 'mlx',
};
const engineKind = (name: string): EngineKind => ENGINE_KIND[name] ?? 'other';

/** Relative popularity of each engine per hardware class (unlisted engines: a trickle). */
const ENGINE_WEIGHTS: Record<string, Record<string, number>> = {
  DISCRETE_GPU: {
    'llama.cpp': 28,
    ollama: 18,
    vllm: 14,
    lmstudio: 7,
    exllamav2: 5,
    exllamav3: 3,
    sglang: 5,
    tgi: 2,
    'tensorrt-llm': 2,
    'text-generation-webui': 3,
    lmdeploy: 1,
    'mlc-llm': 1,
    tinygrad: 0.5,
    hipfire: 0.5,
    mlx: 0,
  },
  UNIFIED: { mlx: 35, 'llama.cpp': 28, ollama: 20, lmstudio: 12, vllm: 0.5 },
  CPU_ONLY: { 'llama.cpp': 50, ollama: 30, lmstudio: 6, mlx: 0 },
};
const TRICKLE = 0.3;

const VERSIONS: Record<string, string[]> = {
  'llama.cpp': ['b5200', 'b5600', 'b6100'],
  ollama: ['0.6.8', '0.9.6', '0.11.4'],
  vllm: ['0.8.5', '0.9.2', '0.10.1'],
  mlx: ['0.25.2', '0.26.3', '0.28.0'],
};

/** Weighted quantization picks per engine kind (names from the spec's common list). */
const QUANTS: Record<EngineKind, [string, number][]> = {
  gguf: [
    ['Q4_K_M', 34],
    ['Q5_K_M', 12],
    ['Q6_K', 8],
    ['Q8_0', 14],
    ['IQ4_XS', 6],
    ['IQ4_NL', 3],
    ['IQ3_M', 5],
    ['fp16', 4],
    ['bf16', 3],
  ],
  server: [
    ['AWQ', 22],
    ['GPTQ', 12],
    ['fp8', 20],
    ['bf16', 22],
    ['fp16', 6],
    ['int4', 5],
    ['INT4', 2],
    ['NVFP4', 5],
    ['bnb-nf4', 3],
    ['int8', 3],
  ],
  mlx: [
    ['int4', 45],
    ['int8', 20],
    ['bf16', 20],
    ['fp16', 10],
    ['Q4_K_M', 5],
  ],
  other: [
    ['Q4_K_M', 20],
    ['int4', 20],
    ['fp16', 20],
    ['bf16', 20],
    ['int8', 20],
  ],
};
/** Bits per weight for the roofline; null: no verdict (the run is 'unknown'). */
const BITS: Record<string, number | null> = {
  Q4_K_M: 4.8,
  Q5_K_M: 5.65,
  Q6_K: 6.56,
  Q8_0: 8.5,
  IQ4_XS: 4.25,
  IQ4_NL: 4.5,
  IQ3_M: 3.66,
  fp16: 16,
  bf16: 16,
  AWQ: 4.25,
  GPTQ: 4.25,
  fp8: 8,
  int4: 4.25,
  INT4: 4.25,
  NVFP4: null,
  'bnb-nf4': null,
  int8: 8,
};

export interface SeedEngine {
  id: string;
  name: string;
  version: string;
  kind: EngineKind;
  row: Record<string, unknown>;
}

export function buildEngines(profile: RevisionProfile): SeedEngine[] {
  return profile.speedTests.engines.flatMap((name) =>
    (VERSIONS[name] ?? ['0.3.0', '0.4.1', '1.0.0']).map((version) => {
      const repository = (profile.speedTests.canonicalEngineRepositories as Record<string, string | undefined>)[name] ?? null;
      const engine = { name, version, repository, build: null, commit: null };
      return { id: randomUUID(), name, version, kind: engineKind(name), row: { ...engine, content_hash: contentHash(engine) } };
    }),
  );
}

// ---------------------------------------------------------------------------------------
// The seeding itself
// ---------------------------------------------------------------------------------------

const MODEL_SLOTS = 100_000;
const HARDWARE_SLOTS = 20_000;
const ENGINE_SLOTS = 1000;
const QUANT_SLOTS = 1000;

async function insertChunks(trx: Knex.Transaction, table: string, rows: Record<string, unknown>[], size = 500): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await trx(table).insert(rows.slice(i, i + size));
}

/** The SQL that writes `runs` rows; expects the bench_* temp tables. */
function runsInsertSql(runs: number, users: number, days: number): string {
  return `
with picks as materialized (
  select g,
    1 + floor(random() * ${MODEL_SLOTS})::int as ms,
    1 + floor(random() * ${HARDWARE_SLOTS})::int as hs,
    1 + floor(random() * ${ENGINE_SLOTS})::int as es,
    1 + floor(random() * ${QUANT_SLOTS})::int as qs,
    1 + floor(power(random(), 2.2) * ${users})::int as un,
    random() as r_tok, random() as r_cheat, random() as r_cheat_x, random() as r_unknown, random() as r_batch,
    random() as r_ctx, random() as r_when, random() as r_status, random() as r_power, random() as r_cost,
    random() as r_flags, random() as r_flag_v, random() as r_misc, random() as r_prefill
  from generate_series(1, ${runs}) g
),
j as (
  select p.*,
    bm.id as model_id, bm.hf_id, bm.params, bm.active_params, bm.family, bm.is_moe,
    bh.id as hardware_id, bh.hw_class, bh.memory_gb, bh.hardware_search, bh.os_family, bh.backend, bh.bw,
    bh.gpu_count, bh.card_watts, bh.profile_watts, bh.cost_component, bh.cost_usd,
    be.engine_id, be.engine_name, be.kind, bq.quant, bq.bits,
    bu.id as user_id, bu.verified,
    case when r_batch < 0.84 then 1 when r_batch < 0.9 then 2 when r_batch < 0.94 then 4 when r_batch < 0.98 then 8 else 16 end as batch,
    (array[2048, 4096, 4096, 8192, 8192, 8192, 16384, 16384, 32768, 32768, 65536, 131072, 3000, 12000, 200000])[1 + floor(r_ctx * 15)::int] as ctx,
    bh.bw / (coalesce(bm.active_params, bm.params) * coalesce(bq.bits, 4.5) / 8) as roof
  from picks p
  join bench_model_slots msl on msl.slot = p.ms
  join bench_models bm on bm.n = msl.n
  join bench_hw_slots hsl on hsl.slot = p.hs
  join bench_hw bh on bh.n = hsl.n
  join bench_engine_slots be on be.hw_class = bh.hw_class and be.slot = p.es
  join bench_quant_slots bq on bq.kind = be.kind and bq.slot = p.qs
  join bench_users bu on bu.n = p.un
),
k as (
  select j.*,
    greatest(0.05, least(20000, round((roof * (0.25 + 0.55 * r_tok) * power(batch, 0.75)
      * case when r_cheat < 0.025 then 1.6 + 2 * r_cheat_x else 1 end)::numeric, 2)))::float8 as tok,
    case when r_flags >= 0.3 then null
      when kind = 'server' then jsonb_build_object(
        'commandSnippet', engine_name || ' serve ' || hf_id,
        'concurrency', (array[1, 4, 8, 16, 32])[1 + floor(r_flag_v * 5)::int],
        'tensorParallel', greatest(gpu_count, 1))
        || case when r_flag_v < 0.1 then '{"specDecoding": true}'::jsonb else '{}'::jsonb end
      else jsonb_build_object(
        'commandSnippet', 'llama-server -m model.gguf -c ' || ctx,
        'gpuLayers', case when hw_class = 'CPU_ONLY' then 0 else 99 end,
        'kvCacheDtype', (array['f16', 'q8_0', 'q4_0'])[1 + floor(r_flag_v * 3)::int])
        || case when r_flag_v < 0.3 then '{"attentionBackend": "flash-attn"}'::jsonb else '{}'::jsonb end
    end as flags,
    case when r_power < 0.12 and hw_class = 'DISCRETE_GPU' then card_watts * gpu_count end as total_watts,
    case when r_cost < 0.15 then cost_usd end as cost
  from j
)
insert into speed_test_runs (
  user_id, model_id, hardware_id, engine_id, status, quantization, model_revision, backend,
  tok_s_out, tok_s_prefill, tok_s_total, ttft_ms, peak_vram_gb, prompt_tokens, output_tokens, context_length,
  batch_size, prefill_tokens, gpu_power_watts, total_power_watts, hardware_cost, notes, engine_flags, created_at,
  hw_class, memory_gb, hardware_search, os_family, engine_name, model_params, model_family, model_is_moe, user_verified,
  concurrency, kv_cache_dtype, attention_backend, gpu_layers, tensor_parallel, spec_decoding, mtp_enabled,
  power_watts, hardware_cost_usd, plausibility, decode_bound_tok_s, plausibility_reason)
select
  user_id, model_id, hardware_id, engine_id,
  case when r_status < 0.01 then 'REJECTED' else 'APPROVED' end,
  quant,
  case when r_misc < 0.9 then 'main' else md5(g::text) end,
  backend,
  tok,
  round((tok * (6 + 30 * r_prefill))::numeric, 2)::float8,
  case when r_misc < 0.3 then round((tok * 1.05)::numeric, 2)::float8 end,
  round((30 + 2500 * power(r_prefill, 2))::numeric, 1)::float8,
  case when hw_class <> 'CPU_ONLY' then round(least(memory_gb, params * coalesce(bits, 4.5) / 8 * 1.1 + 0.5)::numeric, 2)::float8 end,
  case when ctx <= 2048 then 256 else 512 end,
  (array[128, 256, 512])[1 + floor(r_misc * 3)::int],
  ctx,
  batch,
  case when ctx <= 2048 then 256 else 512 end,
  case when total_watts is not null then to_jsonb(array_fill(card_watts, array[greatest(gpu_count, 1)])) end,
  total_watts,
  case when cost is not null then jsonb_build_array(jsonb_build_object(
    'component', cost_component, 'condition', 'NEW', 'yearPurchased', 2024, 'price', cost, 'currency', 'USD')) end,
  case when r_misc > 0.95 then 'Seeded run ' || g end,
  flags,
  now() - power(r_when, 1.2) * interval '${days} days',
  hw_class, memory_gb, hardware_search, os_family, engine_name, params, lower(family), is_moe, verified,
  coalesce((flags->>'concurrency')::int, (flags->>'numParallel')::int),
  flags->>'kvCacheDtype',
  flags->>'attentionBackend',
  (flags->>'gpuLayers')::int,
  (flags->>'tensorParallel')::int,
  coalesce((flags->>'specDecoding')::boolean, false),
  coalesce((flags->>'mtpEnabled')::boolean, false),
  coalesce(total_watts, profile_watts),
  cost,
  case when bits is null or batch > 1 or r_unknown < 0.05 then 'unknown'
       when tok > roof then 'suspect' else 'plausible' end,
  case when bits is not null and batch = 1 and r_unknown >= 0.05 then round(roof::numeric, 2)::float8 end,
  case when bits is not null and batch = 1 and r_unknown >= 0.05 and tok > roof
       then 'tokSOut is above the decode-speed bound of ' || round(roof::numeric, 1) || ' tok/s' end
from k`;
}

/** Secondary indexes of speed_test_runs that no constraint owns: name and definition. */
async function droppableIndexes(trx: Knex.Transaction): Promise<{ name: string; def: string }[]> {
  const { rows } = await trx.raw<{ rows: { name: string; def: string }[] }>(`
    select i.relname as name, pg_get_indexdef(i.oid) as def
    from pg_index x join pg_class i on i.oid = x.indexrelid
    where x.indrelid = 'speed_test_runs'::regclass
      and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid)
    order by i.relname`);
  return rows;
}

export async function seedDatabase(db: Db, profile: RevisionProfile, options: SeedOptions): Promise<SeedSummary> {
  const started = Date.now();
  const steps: Record<string, number> = {};
  let stepStart = Date.now();
  const step = (name: string) => {
    steps[name] = (Date.now() - stepStart) / 1000;
    options.log(`  ${name}: ${steps[name]!.toFixed(1)} s`);
    stepStart = Date.now();
  };
  const rng = prng(20261121);
  const models = buildModels(options.models, rng);
  const hardware = buildHardware(options.hardwareProfiles, rng);
  const engines = buildEngines(profile);
  step('build catalogue in memory');

  await db.transaction(async (trx) => {
    await trx.raw('set local synchronous_commit = off');
    await trx.raw("set local work_mem = '256MB'");
    await trx.raw("set local maintenance_work_mem = '1GB'");
    await trx.raw('set local max_parallel_maintenance_workers = 2');
    // random() is seeded per session: the same plan writes the same runs.
    await trx.raw('select setseed(0.42)');
    const { rows: su } = await trx.raw<{ rows: { rolsuper: boolean }[] }>('select rolsuper from pg_roles where rolname = current_user');
    // Foreign keys of the bulk insert hold by construction; skip their per-row triggers when allowed.
    if (su[0]?.rolsuper) await trx.raw('set local session_replication_role = replica');

    await trx.raw(`create temp table bench_users on commit drop as
      select g as n, gen_random_uuid() as id, (g % 12 = 0) as verified from generate_series(1, ${options.users}) g`);
    await trx.raw(`insert into users (id, username, display_name, password_hash, is_verified, created_at, updated_at)
      select id, 'bench_user_' || n, 'Bench User ' || n, '!bench-seed-no-login', verified,
             now() - interval '${options.days + 30} days' + n * interval '1 minute', now()
      from bench_users`);
    step(`users (${options.users})`);

    await insertChunks(
      trx,
      'models',
      models.map(({ weight: _weight, ...row }) => row),
    );
    await trx.raw(
      'create temp table bench_models (n int primary key, id uuid, hf_id text, params float8, active_params float8, family text, is_moe boolean) on commit drop',
    );
    await insertChunks(
      trx,
      'bench_models',
      models.map((m, i) => ({
        n: i + 1,
        id: m.id,
        hf_id: m.hf_id,
        params: m.params,
        active_params: m.active_params,
        family: m.family,
        is_moe: m.is_moe,
      })),
    );
    await trx.raw('create temp table bench_model_slots (slot int primary key, n int) on commit drop');
    const modelIndex = new Map(models.map((m, i) => [m, i + 1]));
    await insertChunks(
      trx,
      'bench_model_slots',
      slotsFor(models, (m) => m.weight, MODEL_SLOTS).map((m, i) => ({ slot: i + 1, n: modelIndex.get(m)! })),
      5000,
    );
    step(`models (${models.length})`);

    await insertChunks(
      trx,
      'hardware_profiles',
      hardware.map((h) => ({ id: h.id, ...h.row })),
    );
    await trx.raw(`create temp table bench_hw (n int primary key, id uuid, hw_class text, memory_gb float8, hardware_search text,
      os_family text, backend text, bw float8, gpu_count int, card_watts float8, profile_watts float8, cost_component text, cost_usd float8) on commit drop`);
    await insertChunks(
      trx,
      'bench_hw',
      hardware.map((h, i) => ({
        n: i + 1,
        id: h.id,
        hw_class: h.facts.hwClass,
        memory_gb: h.facts.memoryGb,
        hardware_search: h.facts.hardwareSearch,
        os_family: h.facts.osFamily,
        backend: h.facts.backend,
        bw: h.facts.bandwidthGBs,
        gpu_count: h.facts.gpuCount,
        card_watts: h.facts.cardWatts,
        profile_watts: h.facts.profileWatts,
        cost_component: h.facts.costComponent,
        cost_usd: h.facts.costUsd,
      })),
    );
    await trx.raw('create temp table bench_hw_slots (slot int primary key, n int) on commit drop');
    const hwIndex = new Map(hardware.map((h, i) => [h, i + 1]));
    await insertChunks(
      trx,
      'bench_hw_slots',
      slotsFor(hardware, (h) => h.facts.weight, HARDWARE_SLOTS).map((h, i) => ({ slot: i + 1, n: hwIndex.get(h)! })),
      5000,
    );
    step(`hardware profiles (${hardware.length})`);

    await insertChunks(
      trx,
      'engines',
      engines.map((e) => ({ id: e.id, ...e.row })),
    );
    await trx.raw(
      'create temp table bench_engine_slots (hw_class text, slot int, engine_id uuid, engine_name text, kind text, primary key (hw_class, slot)) on commit drop',
    );
    for (const hwClass of ['DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY']) {
      const weights = ENGINE_WEIGHTS[hwClass]!;
      // Each version of an engine (listed oldest first): the latest most used.
      const versionShare = [0.15, 0.35, 0.5];
      const weightOf = (e: SeedEngine) => {
        const version = engines.filter((x) => x.name === e.name).indexOf(e);
        return (weights[e.name] ?? TRICKLE) * (versionShare[version] ?? 0.1);
      };
      const slots = slotsFor(engines, weightOf, ENGINE_SLOTS);
      await insertChunks(
        trx,
        'bench_engine_slots',
        slots.map((e, i) => ({ hw_class: hwClass, slot: i + 1, engine_id: e.id, engine_name: e.name, kind: e.kind })),
      );
    }
    await trx.raw(
      'create temp table bench_quant_slots (kind text, slot int, quant text, bits float8, primary key (kind, slot)) on commit drop',
    );
    for (const [kind, quants] of Object.entries(QUANTS)) {
      const slots = slotsFor(quants, ([, w]) => w, QUANT_SLOTS);
      await insertChunks(
        trx,
        'bench_quant_slots',
        slots.map(([quant], i) => ({ kind, slot: i + 1, quant, bits: BITS[quant] ?? null })),
      );
    }
    await trx.raw(
      'analyze bench_users; analyze bench_models; analyze bench_model_slots; analyze bench_hw; analyze bench_hw_slots; analyze bench_engine_slots; analyze bench_quant_slots',
    );
    step(`engines (${engines.length})`);

    const indexes = await droppableIndexes(trx);
    for (const index of indexes) await trx.raw(`drop index ${index.name}`);
    step(`drop ${indexes.length} secondary indexes of speed_test_runs for the bulk load`);

    await trx.raw(runsInsertSql(options.runs, options.users, options.days));
    step(`runs (${options.runs.toLocaleString('en')}, one INSERT ... SELECT)`);

    for (const index of indexes) await trx.raw(index.def);
    step(`recreate ${indexes.length} indexes (${indexes.map((i) => i.name).join(', ')})`);

    await trx.raw(`update models m set benchmark_count = c.n
      from (select model_id, count(*)::int as n from speed_test_runs where status = 'APPROVED' group by model_id) c
      where c.model_id = m.id`);
    step('models.benchmark_count');
    // The count, cube and document triggers did not fire under session_replication_role = replica.
    await rebuildReadModels(trx, step);
  });

  // Outside the transaction: set hint bits and the visibility map, as autovacuum would.
  await db.raw('vacuum (analyze) speed_test_runs, models, hardware_profiles, engines, users');
  step('vacuum analyze');

  const { rows: orphans } = await db.raw<{ rows: { n: number }[] }>(`
    select count(*)::int as n from speed_test_runs r
    where not exists (select 1 from models m where m.id = r.model_id)
       or not exists (select 1 from hardware_profiles h where h.id = r.hardware_id)
       or not exists (select 1 from engines e where e.id = r.engine_id)
       or not exists (select 1 from users u where u.id = r.user_id)`);
  if (orphans[0]!.n !== 0) throw new Error(`seeding left ${orphans[0]!.n} runs with a dangling reference`);
  step('check references');

  return {
    runs: options.runs,
    users: options.users,
    models: models.length,
    hardwareProfiles: hardware.length,
    engines: engines.length,
    seconds: (Date.now() - started) / 1000,
    steps,
  };
}
