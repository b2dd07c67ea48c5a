/**
 * Published facts of common mixture-of-experts families, for when the hub's config.json
 * cannot tell them (GGUF-only repos, gated repos, packed quantizations whose parameter
 * count is wrong). Each row cites where its figures are published. Pure data and a pure
 * lookup: no I/O. The decode-speed roofline takes the SMALLER of these and any figure
 * computed from config.json, so a row can only raise a bound, never lower it.
 */

export interface CuratedModel {
  /** Display name for the methodology page. */
  name: string;
  /** Matched against the lower-cased repo name (the part after the slash) of the model or its base. */
  pattern: RegExp;
  /** model_type / GGUF architecture spellings (lower case, '_' and '-' removed) of the family. */
  families: readonly string[];
  /** Total parameters, billions, as published. */
  totalB: number;
  /** Parameters active per token, billions, as published. */
  activeB: number;
  /** Bits per weight the published weights are stored in (null: 16-bit release). */
  nativeBitsPerWeight: number | null;
  source: string;
}

const MXFP4_BITS = 4.25; // OCP MX: 4-bit elements, one E8M0 scale per 32 (4 + 8/32)
const FP8_BITS = 8;

/** Names of distilled dense models that carry a MoE family's name ("DeepSeek-R1-Distill-Llama-8B"). */
const NOT_DISTILLED = String.raw`(?![\w.-]*(?:distill|qwen|llama))`;

/** First match wins: more specific rows come before the rows their names contain. */
export const CURATED_MODELS: readonly CuratedModel[] = [
  {
    name: 'gpt-oss-20b',
    pattern: /gpt-oss-20b/,
    families: ['gptoss'],
    totalB: 20.91,
    activeB: 3.61,
    nativeBitsPerWeight: MXFP4_BITS,
    source:
      'OpenAI gpt-oss model card (arXiv:2508.10925), table 1: 20.91B total, 3.61B active; MoE weights MXFP4 (config.json quantization_config.quant_method "mxfp4")',
  },
  {
    name: 'gpt-oss-120b',
    pattern: /gpt-oss-120b/,
    families: ['gptoss'],
    totalB: 116.83,
    activeB: 5.13,
    nativeBitsPerWeight: MXFP4_BITS,
    source: 'OpenAI gpt-oss model card (arXiv:2508.10925), table 1: 116.83B total, 5.13B active; MoE weights MXFP4',
  },
  {
    name: 'DeepSeek-V3 / V3.1 / V3.2 / R1',
    pattern: new RegExp(`deepseek-(?:v3|r1)${NOT_DISTILLED}`),
    families: ['deepseekv3', 'deepseek2'],
    totalB: 671,
    activeB: 37,
    nativeBitsPerWeight: FP8_BITS,
    source:
      'deepseek-ai/DeepSeek-V3 model card: 671B total, 37B activated (README_WEIGHTS.md: 36.6B with the output head), FP8 weights with 128x128 block scales; R1, V3.1 and V3.2 share the architecture',
  },
  {
    name: 'DeepSeek-V2-Lite / Coder-V2-Lite',
    pattern: /deepseek-(?:coder-)?v2-lite/,
    families: ['deepseekv2', 'deepseek2'],
    totalB: 16,
    activeB: 2.4,
    nativeBitsPerWeight: null,
    source: 'deepseek-ai/DeepSeek-V2-Lite model card: 16B total, 2.4B activated',
  },
  {
    name: 'DeepSeek-V2 / V2.5 / Coder-V2',
    pattern: /deepseek-(?:coder-)?v2(?!-lite)/,
    families: ['deepseekv2', 'deepseek2'],
    totalB: 236,
    activeB: 21,
    nativeBitsPerWeight: null,
    source: 'deepseek-ai/DeepSeek-V2 model card: 236B total, 21B activated',
  },
  {
    name: 'Kimi K2 Thinking',
    pattern: /kimi-k2-thinking/,
    families: ['kimik2', 'deepseekv3', 'deepseek2'],
    totalB: 1000,
    activeB: 32,
    nativeBitsPerWeight: 4.5,
    source:
      'moonshotai/Kimi-K2-Thinking model card: 1T total, 32B activated, native INT4 (QAT; compressed-tensors int4, group 32 with a 16-bit scale: 4 + 16/32)',
  },
  {
    name: 'Kimi K2',
    pattern: /kimi-k2/,
    families: ['kimik2', 'deepseekv3', 'deepseek2'],
    totalB: 1000,
    activeB: 32,
    nativeBitsPerWeight: FP8_BITS,
    source: 'moonshotai/Kimi-K2-Instruct model card: 1T total, 32B activated; weights published in block FP8',
  },
  {
    name: 'Mixtral 8x7B',
    pattern: /mixtral-8x7b/,
    families: ['mixtral'],
    totalB: 46.7,
    activeB: 12.9,
    nativeBitsPerWeight: null,
    source: 'Mistral AI, "Mixtral of experts" (mistral.ai/news/mixtral-of-experts): 46.7B total, 12.9B used per token',
  },
  {
    name: 'Mixtral 8x22B',
    pattern: /mixtral-8x22b/,
    families: ['mixtral'],
    totalB: 141,
    activeB: 39,
    nativeBitsPerWeight: null,
    source: 'Mistral AI, "Cheaper, Better, Faster, Stronger" (mistral.ai/news/mixtral-8x22b): 39B active of 141B',
  },
  {
    name: 'Llama 4 Scout',
    pattern: /llama-4-scout/,
    families: ['llama4', 'llama4text'],
    totalB: 109,
    activeB: 17,
    nativeBitsPerWeight: null,
    source: 'meta-llama/Llama-4-Scout-17B-16E model card: 17B activated, 109B total',
  },
  {
    name: 'Llama 4 Maverick',
    pattern: /llama-4-maverick/,
    families: ['llama4', 'llama4text'],
    totalB: 400,
    activeB: 17,
    nativeBitsPerWeight: null,
    source: 'meta-llama/Llama-4-Maverick-17B-128E model card: 17B activated, 400B total',
  },
  {
    name: 'Qwen3-30B-A3B (and Coder-30B-A3B)',
    pattern: /qwen3-(?:coder-)?30b-a3b/,
    families: ['qwen3moe'],
    totalB: 30.5,
    activeB: 3.3,
    nativeBitsPerWeight: null,
    source: 'Qwen/Qwen3-30B-A3B and Qwen/Qwen3-Coder-30B-A3B-Instruct model cards: 30.5B total, 3.3B activated',
  },
  {
    name: 'Qwen3-235B-A22B',
    pattern: /qwen3-235b-a22b/,
    families: ['qwen3moe'],
    totalB: 235,
    activeB: 22,
    nativeBitsPerWeight: null,
    source: 'Qwen/Qwen3-235B-A22B model card: 235B total, 22B activated',
  },
  {
    name: 'Qwen3-Coder-480B-A35B',
    pattern: /qwen3-coder-480b-a35b/,
    families: ['qwen3moe'],
    totalB: 480,
    activeB: 35,
    nativeBitsPerWeight: null,
    source: 'Qwen/Qwen3-Coder-480B-A35B-Instruct model card: 480B total, 35B activated',
  },
  {
    name: 'Qwen3-Next-80B-A3B',
    pattern: /qwen3-next-80b-a3b/,
    families: ['qwen3next'],
    totalB: 80,
    activeB: 3,
    nativeBitsPerWeight: null,
    source: 'Qwen/Qwen3-Next-80B-A3B-Instruct model card: 80B total, 3B activated',
  },
  {
    name: 'Qwen2-57B-A14B',
    pattern: /qwen2-57b-a14b/,
    families: ['qwen2moe'],
    totalB: 57,
    activeB: 14,
    nativeBitsPerWeight: null,
    source: 'Qwen/Qwen2-57B-A14B model card: 57B total, 14B activated',
  },
  {
    name: 'Qwen1.5-MoE-A2.7B',
    pattern: /qwen1\.5-moe-a2\.7b/,
    families: ['qwen2moe'],
    totalB: 14.3,
    activeB: 2.7,
    nativeBitsPerWeight: null,
    source: 'Qwen/Qwen1.5-MoE-A2.7B model card: 14.3B total, 2.7B activated',
  },
  {
    name: 'GLM-4.5-Air',
    pattern: /glm-4\.5-air/,
    families: ['glm4moe'],
    totalB: 106,
    activeB: 12,
    nativeBitsPerWeight: null,
    source: 'zai-org/GLM-4.5-Air model card: 106B total, 12B active',
  },
  {
    name: 'GLM-4.5 / GLM-4.6',
    pattern: /glm-4\.[56](?!v|-?air)/,
    families: ['glm4moe'],
    totalB: 355,
    activeB: 32,
    nativeBitsPerWeight: null,
    source: 'zai-org/GLM-4.5 and zai-org/GLM-4.6 model cards: 355B total, 32B active',
  },
  {
    name: 'MiniMax-M2',
    pattern: /minimax-m2/,
    families: ['minimaxm2'],
    totalB: 230,
    activeB: 10,
    nativeBitsPerWeight: FP8_BITS,
    source: 'MiniMaxAI/MiniMax-M2 model card: 230B total, 10B active; weights published in FP8',
  },
];

function normaliseFamily(family: string): string {
  return family.toLowerCase().replace(/[-_\s]/g, '');
}

function repoName(hfId: string): string {
  return hfId
    .slice(hfId.lastIndexOf('/') + 1)
    .toLowerCase()
    .replace(/[_\s]+/g, '-');
}

/** A family row is taken from the total alone only when the totals agree this closely. */
const FAMILY_TOTAL_TOLERANCE = 0.1;
/**
 * A model clearly larger than the row its name matches is something else (an upscaled
 * merge): its own count wins. Smaller counts are allowed, packed quantizations report them.
 * A model matched by its base's name must have the row's size (within 15%) when its own
 * count is known: a small model distilled from a curated one names it as its base too.
 */
const MATCH_TOLERANCE = 0.15;

/**
 * The curated facts of a model: by its repo name, else its base's, else (a finetune with
 * another name) by its family and a total within 10% of the row's. Null when none fits.
 * `paramsB` is the model's own exact count when known.
 */
export function curatedModelFacts(
  hfId: string,
  baseHfId: string | null,
  family: string | null,
  paramsB: number | null = null,
): CuratedModel | null {
  const own = CURATED_MODELS.find((model) => model.pattern.test(repoName(hfId)));
  if (own) return paramsB !== null && paramsB > (1 + MATCH_TOLERANCE) * own.totalB ? null : own;
  const ofBase = baseHfId ? CURATED_MODELS.find((model) => model.pattern.test(repoName(baseHfId))) : undefined;
  if (ofBase) return paramsB !== null && Math.abs(paramsB - ofBase.totalB) > MATCH_TOLERANCE * ofBase.totalB ? null : ofBase;
  if (family && paramsB !== null && paramsB > 0) {
    const normalised = normaliseFamily(family);
    return (
      CURATED_MODELS.find(
        (model) => model.families.includes(normalised) && Math.abs(paramsB - model.totalB) <= FAMILY_TOTAL_TOLERANCE * model.totalB,
      ) ?? null
    );
  }
  return null;
}
