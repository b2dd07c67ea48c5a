/**
 * Decode-speed roofline: a plausibility check on single-stream output tokens/s.
 *
 * With one sequence decoding (batch 1, one request in flight) every generated token
 * has to stream all active weights from memory once, so
 *
 *   max tok/s = memory bandwidth (GB/s) / (active params (B) x bits per weight / 8)
 *
 * A run reporting more than its hardware class's factor (SUSPECT_FACTORS) x that bound is
 * 'suspect'; N sequences decoding together (batch x requests in flight) share each pass
 * over the weights, so their aggregate is held to N x the bound. Every input the bound
 * depends on is chosen so the bound errs HIGH (it must stay an upper limit): bits per
 * weight take the lowest published figure, KV-cache and activation reads are ignored, and
 * anything not known (or a run shape no bound describes, such as speculative decoding)
 * gives 'unknown', never a flag. Pure: no I/O.
 */
import { CURATED_MODELS } from './curated-models.ts';

/** The hardware classes a run is submitted under (src/constants.ts `hwClasses`). */
export type RooflineHwClass = 'DISCRETE_GPU' | 'UNIFIED' | 'CPU_ONLY';

/**
 * A run is suspect when its output tok/s is above this multiple of the bound, per hardware
 * class. Chosen on the real-run set (test/fixtures/real-runs: published llama-bench and
 * similar runs, reported by test/unit/plausibility-real-runs.test.ts) with headroom over
 * the highest real ratio of tok/s to bound in each class; `SUSPECT_FACTOR_BASIS` says why.
 */
export const SUSPECT_FACTORS: Readonly<Record<RooflineHwClass, number>> = Object.freeze({
  DISCRETE_GPU: 1.1,
  UNIFIED: 1.1,
  CPU_ONLY: 1.5,
});

/** Why each factor is what it is (shown on /methodology). */
export const SUSPECT_FACTOR_BASIS: Readonly<Record<RooflineHwClass, string>> = Object.freeze({
  DISCRETE_GPU:
    'Across the real discrete-GPU runs (single cards and 2-8 card splits) the highest reached 0.91 × the bound (Llama 3 8B F16 on an RTX 4080); 1.1 leaves 20% over it for memory overclocks (about +10% on GDDR) and untied embedding tables, which the parameter count reads in full.',
  UNIFIED:
    'Apple M-series, AMD Strix Halo, NVIDIA GB10 and Jetson reached at most 0.90 × the bound (Qwen2.5-Coder 7B Q6_K on a Ryzen AI Max+ 395, 0.87 on a GB10); their soldered LPDDR runs at its rated speed, so 1.1 leaves 20%.',
  CPU_ONLY:
    "CPU runs reached at most 0.80 × the bound at the rated memory speed, and those were machines with RAM above it (a Threadripper 3970X noted as overclocked; a Ryzen 7950X with DDR5-5800 on a DDR5-5200 rating). XMP/EXPO kits run up to about 1.5 × the rated speed (DDR5-8000 on a DDR5-5200 platform), so the same efficiency could reach 1.2 × the rated bound; 1.5 keeps 25% over that. A dual-socket server can exceed one socket's bound further: the catalogue knows one socket.",
});

/** For a run whose hardware class is not one of the above: the loosest factor, so it is never held tighter. */
export const DEFAULT_SUSPECT_FACTOR = Math.max(...Object.values(SUSPECT_FACTORS));

export function suspectFactorFor(hwClass: string | null | undefined): number {
  return hwClass != null && Object.hasOwn(SUSPECT_FACTORS, hwClass) ? SUSPECT_FACTORS[hwClass as RooflineHwClass] : DEFAULT_SUSPECT_FACTOR;
}

/**
 * When the device's last-level cache is not catalogued: below this many GB of weights the
 * model might sit in on-chip cache (GPU last-level caches reach 256 MB on MI300X; server
 * CPUs such as AMD EPYC X-series carry ~1.1 GB of L3), so it is not judged.
 */
export const MIN_CACHE_SAFE_WEIGHT_GB = 1;

interface BitsRow {
  /** Display name for the methodology page. */
  quantization: string;
  /** Effective bits per weight, scale/min overhead included. */
  bits: number;
  /** Where the figure comes from. */
  source: string;
  /** Accepted spellings, already normalised (see `normaliseQuantization`). */
  aliases: readonly string[];
}

const LLAMA_CPP_TABLES = 'llama.cpp tools/quantize/README.md bits-per-weight tables (Llama 2 7B/13B/70B and Llama 3.1 8B), lowest figure';
const LLAMA_CPP_HELP = 'llama.cpp `llama-quantize --help` listing (nominal bpw of the mix)';
const GGML_BLOCK = 'ggml block layout (32 weights + fp16 scale[/min]); whole files are slightly larger';
const UNSLOTH_DYNAMIC =
  'unsloth Dynamic quants of DeepSeek-R1 / V3-0324 (docs.unsloth.ai): the average bits unsloth states for the 671B files, lowest of them';
const BARTOWSKI_L = 'bartowski "_L" files: the base mix with Q8_0 embeddings / output, so at least the base mix (its figure)';
const MLC_QUANT =
  'MLC LLM quantization modes (mlc_llm/quantization): qNfM_1 = N-bit groups of 32 (3-bit: 40) with one fp16 (f16) or fp32 (f32) scale';

/**
 * One row per quantization family. Where unsure, the LOWER bits figure is used: fewer
 * bits per weight means a higher bound, so a doubtful figure can only miss a flag,
 * never raise a false one.
 */
const BITS_TABLE: readonly BitsRow[] = [
  // --- GGUF k-quant mixes: whole-file bits per weight measured by llama.cpp. The
  // tables list Llama 2 7B/13B/70B (README up to 2024) and Llama 3.1 8B (current
  // README); each row takes the lowest of them (Q4_K_M: 4.84 / 4.83 / 4.80 / 4.89).
  { quantization: 'Q2_K_S', bits: 2.96, source: LLAMA_CPP_TABLES, aliases: ['Q2_K_S'] },
  // llama-bench prints Q2_K as "Q2_K - Medium"; bartowski's Q2_K_L is Q2_K with Q8_0 embeddings.
  { quantization: 'Q2_K', bits: 3.15, source: `${LLAMA_CPP_TABLES}; ${BARTOWSKI_L}`, aliases: ['Q2_K', 'Q2_K_M', 'Q2_K_L'] },
  { quantization: 'Q3_K_S', bits: 3.47, source: LLAMA_CPP_TABLES, aliases: ['Q3_K_S'] },
  { quantization: 'Q3_K_M', bits: 3.85, source: LLAMA_CPP_TABLES, aliases: ['Q3_K_M', 'Q3_K'] },
  { quantization: 'Q3_K_L', bits: 4.19, source: LLAMA_CPP_TABLES, aliases: ['Q3_K_L'] },
  { quantization: 'Q4_K_S', bits: 4.53, source: LLAMA_CPP_TABLES, aliases: ['Q4_K_S'] },
  { quantization: 'Q4_K_M', bits: 4.8, source: `${LLAMA_CPP_TABLES}; ${BARTOWSKI_L}`, aliases: ['Q4_K_M', 'Q4_K', 'Q4_K_L'] },
  // Q5_K_XL / Q6_K_XL / Q8_K_XL (unsloth Dynamic) raise some tensors above the base mix: its figure is the lower one.
  { quantization: 'Q5_K_S', bits: 5.5, source: `${LLAMA_CPP_TABLES}; unsloth Q5_K_XL at least Q5_K_S`, aliases: ['Q5_K_S', 'Q5_K_XL'] },
  { quantization: 'Q5_K_M', bits: 5.65, source: `${LLAMA_CPP_TABLES}; ${BARTOWSKI_L}`, aliases: ['Q5_K_M', 'Q5_K', 'Q5_K_L'] },
  {
    quantization: 'Q6_K',
    bits: 6.56,
    source: `${LLAMA_CPP_TABLES}; ${BARTOWSKI_L}; unsloth Q6_K_XL at least Q6_K`,
    aliases: ['Q6_K', 'Q6_K_L', 'Q6_K_XL'],
  },
  {
    quantization: 'Q8_0',
    bits: 8.5,
    source: `${LLAMA_CPP_TABLES}; ${GGML_BLOCK}; unsloth Q8_K_XL at least Q8_0`,
    aliases: ['Q8_0', 'Q8_K_XL'],
  },
  // --- unsloth Dynamic 2.0 "_K_XL" mixes (also sold as UD-*): lower layers and experts go below the
  // base mix, so the figure is unsloth's own average for DeepSeek (Q2_K_XL 2.51 on R1, 2.71 on V3-0324).
  // bartowski's Q3_K_XL (Q3_K_L with Q8_0 embeddings) is heavier; the lower figure is kept.
  { quantization: 'Q2_K_XL', bits: 2.51, source: UNSLOTH_DYNAMIC, aliases: ['Q2_K_XL'] },
  { quantization: 'Q3_K_XL', bits: 3.5, source: UNSLOTH_DYNAMIC, aliases: ['Q3_K_XL'] },
  { quantization: 'Q4_K_XL', bits: 4.5, source: `${UNSLOTH_DYNAMIC} (below Q4_K_S's 4.53)`, aliases: ['Q4_K_XL'] },
  // --- GGUF legacy quants: the block layout itself (32 weights per block).
  {
    quantization: 'Q4_0',
    bits: 4.5,
    source: `${GGML_BLOCK}; Q4_0_4_4 / 4_8 / 8_8 are the same blocks repacked for Arm`,
    aliases: ['Q4_0', 'Q4_0_4_4', 'Q4_0_4_8', 'Q4_0_8_8'],
  },
  { quantization: 'Q4_1', bits: 5, source: GGML_BLOCK, aliases: ['Q4_1'] },
  { quantization: 'Q5_0', bits: 5.5, source: GGML_BLOCK, aliases: ['Q5_0'] },
  { quantization: 'Q5_1', bits: 6, source: GGML_BLOCK, aliases: ['Q5_1'] },
  // --- GGUF i-quants and ternary: nominal bpw printed by llama-quantize (below the
  // whole-file figure, e.g. IQ4_XS 4.25 vs 4.46 measured on Llama 3.1 8B).
  { quantization: 'IQ1_S', bits: 1.56, source: LLAMA_CPP_HELP, aliases: ['IQ1_S'] },
  { quantization: 'IQ1_M', bits: 1.75, source: LLAMA_CPP_HELP, aliases: ['IQ1_M'] },
  { quantization: 'TQ1_0', bits: 1.69, source: LLAMA_CPP_HELP, aliases: ['TQ1_0'] },
  { quantization: 'TQ2_0', bits: 2.06, source: LLAMA_CPP_HELP, aliases: ['TQ2_0'] },
  { quantization: 'IQ2_XXS', bits: 2.06, source: LLAMA_CPP_HELP, aliases: ['IQ2_XXS'] },
  { quantization: 'IQ2_XS', bits: 2.31, source: LLAMA_CPP_HELP, aliases: ['IQ2_XS'] },
  { quantization: 'IQ2_S', bits: 2.5, source: LLAMA_CPP_HELP, aliases: ['IQ2_S'] },
  { quantization: 'IQ2_M', bits: 2.7, source: LLAMA_CPP_HELP, aliases: ['IQ2_M'] },
  { quantization: 'IQ3_XXS', bits: 3.06, source: LLAMA_CPP_HELP, aliases: ['IQ3_XXS'] },
  { quantization: 'IQ3_XS', bits: 3.3, source: LLAMA_CPP_HELP, aliases: ['IQ3_XS'] },
  { quantization: 'IQ3_S', bits: 3.44, source: LLAMA_CPP_HELP, aliases: ['IQ3_S'] },
  {
    quantization: 'IQ3_M',
    bits: 3.66,
    source: `${LLAMA_CPP_HELP}; llama-bench prints it "IQ3_S mix - 3.66 bpw"`,
    aliases: ['IQ3_M', 'IQ3_S_MIX'],
  },
  { quantization: 'IQ4_XS', bits: 4.25, source: LLAMA_CPP_HELP, aliases: ['IQ4_XS'] },
  { quantization: 'IQ4_NL', bits: 4.5, source: LLAMA_CPP_HELP, aliases: ['IQ4_NL'] },
  // --- Unquantized.
  { quantization: 'F32', bits: 32, source: 'IEEE float32 (MLC q0f32)', aliases: ['F32', 'FP32', 'FLOAT32', 'Q0F32'] },
  {
    quantization: 'F16 / BF16',
    bits: 16,
    source: 'IEEE float16 / bfloat16 (MLC q0f16 / q0bf16)',
    aliases: ['F16', 'FP16', 'FLOAT16', 'HALF', 'BF16', 'BFLOAT16', 'Q0F16', 'Q0BF16'],
  },
  // --- 8-bit weights. Per-tensor / per-channel / 128x128-block scales add < 0.01
  // bits; group-128 INT8 (GPTQ) adds 0.125, so 8 is the lower figure for all.
  {
    quantization: 'FP8 (E4M3 / E5M2)',
    bits: 8,
    source: 'FP8 weights; per-tensor, per-channel or 128x128-block scales add < 0.01 bit',
    aliases: ['FP8', 'FP8_E4M3', 'FP8_E5M2', 'E4M3', 'E5M2', 'FP8_DYNAMIC', 'W8A8_FP8', 'FP8_W8A8', 'F8'],
  },
  {
    quantization: 'INT8 / W8A8 / W8A16 / 8bit',
    bits: 8,
    source: 'INT8 weights; per-channel scales add < 0.01 bit (group-128 GPTQ-Int8 would be 8.125)',
    aliases: [
      'INT8',
      'W8A8',
      'W8A16',
      'W8A8_INT8',
      'INT8_W8A8',
      '8BIT',
      'Q8',
      'GPTQ_INT8',
      'GPTQ_8BIT',
      'INT8_GPTQ',
      'AWQ_INT8',
      'BNB_8BIT',
      'BNB_INT8',
      'BITSANDBYTES_8BIT',
      'LLM_INT8',
    ],
  },
  // --- Microscaling FP4: 4-bit elements plus one 8-bit scale per block.
  {
    quantization: 'MXFP4',
    bits: 4.25,
    source: 'OCP MX spec: 32-element blocks with an E8M0 scale (4 + 8/32)',
    aliases: ['MXFP4', 'MXFP4_MOE'],
  },
  {
    quantization: 'NVFP4',
    bits: 4.5,
    source: 'NVIDIA NVFP4: 16-element blocks with an FP8 E4M3 scale (4 + 8/16), plus one fp32 per tensor',
    aliases: ['NVFP4', 'NVFP4A16', 'W4A4_NVFP4', 'NVFP4_W4A4'],
  },
  {
    quantization: 'FP4 (block format not stated)',
    bits: 4.127,
    source: 'lowest of the FP4 block formats: bitsandbytes FP4 4.127, MXFP4 4.25, NVFP4 4.5',
    aliases: ['FP4', 'FLOAT4', 'FP4_E2M1', 'E2M1'],
  },
  // --- Group-wise integer 4-bit (AWQ, GPTQ, compressed-tensors W4A16): one fp16 scale
  // per group of 128 (4 + 16/128). Zero points (+4/128 when asymmetric) and the fp16
  // embeddings / lm_head these checkpoints keep are left out, so the figure is low.
  {
    quantization: 'AWQ / GPTQ / INT4 / W4A16 / 4bit (group 128)',
    bits: 4.125,
    source: 'AWQ/GPTQ group-size-128 layout: fp16 scale per 128 weights (4 + 16/128)',
    aliases: [
      'AWQ',
      'GPTQ',
      'INT4',
      'W4A16',
      'W4A8',
      '4BIT',
      'Q4',
      'AWQ_INT4',
      'AWQ_4BIT',
      'INT4_AWQ',
      'GPTQ_INT4',
      'GPTQ_4BIT',
      'INT4_GPTQ',
      'W4A16_AWQ',
      'W4A16_GPTQ',
      'AWQ_W4A16',
      'GPTQ_W4A16',
      'W4A16_G128',
      'INT4_G128',
    ],
  },
  // --- bitsandbytes 4-bit: blocks of 64 with a double-quantized absmax, 8/64 + 32/(64 x 256)
  // = 0.127 bits of overhead (QLoRA paper); without double quantization it is 0.5.
  {
    quantization: 'bitsandbytes NF4 / FP4',
    bits: 4.127,
    source: 'bitsandbytes: 64-weight blocks, double-quantized absmax (QLoRA paper, 0.127 bit overhead)',
    aliases: ['NF4', 'BNB_NF4', 'BNB_4BIT', 'BNB_FP4', 'BITSANDBYTES_4BIT', 'BITSANDBYTES_NF4', 'BITSANDBYTES'],
  },
  // --- Other bit widths without a format: the same fp16-scale-per-128 overhead.
  { quantization: '2bit', bits: 2.125, source: 'group-128 layout: fp16 scale per 128 weights', aliases: ['2BIT', 'INT2'] },
  {
    quantization: '3bit',
    bits: 3.125,
    source: 'group-128 layout: fp16 scale per 128 weights',
    aliases: ['3BIT', 'INT3', 'GPTQ_3BIT', 'GPTQ_INT3'],
  },
  { quantization: '5bit', bits: 5.125, source: 'group-128 layout: fp16 scale per 128 weights', aliases: ['5BIT'] },
  { quantization: '6bit', bits: 6.125, source: 'group-128 layout: fp16 scale per 128 weights', aliases: ['6BIT'] },
  // --- MLX affine quantization, default group size 64: an fp16 scale and bias per 64
  // weights (N + 32/64). mlx-lm reports e.g. "4.501 bits per weight". DWQ (distilled weight
  // quantization, mlx-lm's `mlx_lm.dwq`) keeps the same layout. Mixed recipes ("mixed_3_6",
  // "3bit-mixed") are read by their lowest width (see `mixedBits`).
  ...[2, 3, 4, 5, 6, 8].map(
    (n): BitsRow => ({
      quantization: `MLX ${n}bit (group 64)`,
      bits: n + 0.5,
      source: 'MLX affine quantization, group size 64: fp16 scale + bias per group (N + 32/64); DWQ the same',
      aliases: [
        `MLX_${n}BIT`,
        `${n}BIT_MLX`,
        `MLX_Q${n}`,
        `Q${n}_MLX`,
        `MLX_INT${n}`,
        `${n}BIT_DWQ`,
        `DWQ_${n}BIT`,
        `MLX_${n}BIT_DWQ`,
        `MLX_DWQ_${n}BIT`,
        `${n}BIT_DWQ_MLX`,
      ],
    }),
  ),
  {
    quantization: 'MLX DWQ (bits not stated)',
    bits: 3.5,
    source: 'lowest width mlx-community publishes DWQ models at (3bit), group 64: 3 + 32/64',
    aliases: ['DWQ', 'MLX_DWQ', 'DWQ_MLX'],
  },
  // --- MLC LLM (WebLLM, MLC Chat).
  { quantization: 'q3f16_1', bits: 3.4, source: `${MLC_QUANT}: 3 + 16/40`, aliases: ['Q3F16_0', 'Q3F16_1'] },
  { quantization: 'q4f16_1', bits: 4.5, source: `${MLC_QUANT}: 4 + 16/32`, aliases: ['Q4F16_0', 'Q4F16_1'] },
  { quantization: 'q4f32_1', bits: 5, source: `${MLC_QUANT}: 4 + 32/32`, aliases: ['Q4F32_0', 'Q4F32_1'] },
  {
    quantization: 'q4f16_ft',
    bits: 4,
    source: 'MLC LLM q4f16_ft: FasterTransformer per-channel int4 (scales under 0.01 bit)',
    aliases: ['Q4F16_FT'],
  },
  { quantization: 'q4f16_awq', bits: 4.125, source: 'MLC LLM q4f16_awq: AWQ, group 128 (4 + 16/128)', aliases: ['Q4F16_AWQ'] },
];

const BY_ALIAS: ReadonlyMap<string, BitsRow> = (() => {
  const map = new Map<string, BitsRow>();
  for (const row of BITS_TABLE) {
    for (const alias of row.aliases) {
      if (map.has(alias)) throw new Error(`roofline: duplicate quantization alias ${alias}`);
      map.set(alias, row);
    }
  }
  return map;
})();

/** Tokens around the quantization name that say nothing about its bits (GGUF container, imatrix / unsloth-dynamic markers). */
const WRAPPER_TOKENS = new Set(['GGUF', 'UD', 'I1', 'IMAT', 'IMATRIX']);

/**
 * Upper case, every run of separators (space _ - . / : + , parentheses) becomes one '_', and "4_BIT"
 * becomes "4BIT": 'q4-k-m', 'Q4 K M' and 'Q4_K_M' all read Q4_K_M.
 */
function normaliseQuantization(quantization: string): string {
  return quantization
    .trim()
    .toUpperCase()
    .replace(/[\s_\-./:+(),]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/(\d)_BIT(?=_|$)/g, '$1BIT');
}

/** 'exl2 4.65bpw', '4.0bpw', '5bpw-exl3', 'EXL2_4_65BPW' (separators already collapsed). */
const BPW_PATTERN = /^(?:EXL[23]_)?(\d{1,2})(?:[._](\d{1,3}))?_?BPW(?:_[HE]\d{1,2})?(?:_EXL[23])?$/;

/** llama-bench's size words: "Q4_K - Medium" is Q4_K_M. */
const SIZE_WORDS: Record<string, string> = { SMALL: 'S', MEDIUM: 'M', LARGE: 'L' };
/** llama-bench's "<name> - <n> bpw" (normalised): "IQ4_XS - 4.25 bpw", "TQ1_0 - 1.69 bpw ternary". */
const NAMED_BPW = /^(.+?)_(\d{1,2})(?:_(\d{1,4}))?_BPW(?:_TERNARY)?$/;
/** MLX mixed-precision recipes: "mixed_3_6", "mixed-2-6bit", "3bit-mixed", "mixed-3bit". */
const MIXED = [/(?:^|_)MIXED_(\d)_(\d)(?:BIT)?(?=_|$)/, /(?:^|_)(\d)BIT_MIXED(?=_|$)/, /(?:^|_)MIXED_(\d)BIT(?=_|$)/];

/** The lowest width of a mixed recipe, as MLX group-64 bits: the bound must err high. */
function mixedBits(key: string): number | null {
  for (const pattern of MIXED) {
    const match = pattern.exec(key);
    if (!match) continue;
    const lowest = Math.min(
      ...match
        .slice(1)
        .filter((g): g is string => g !== undefined)
        .map(Number),
    );
    return BY_ALIAS.get(`MLX_${lowest}BIT`)?.bits ?? null;
  }
  return null;
}

/**
 * The row of a normalised label: the label itself; a mixed recipe; llama-bench's
 * "<name> - <n> bpw" (the name's row, else n); the label without container / imatrix /
 * unsloth-dynamic markers ("UD-Q4_K_XL", "Q4_K_M-GGUF"); or its last tokens, as in
 * llama-bench's model column "qwen3moe 30B.A3B Q4_K - Medium".
 */
function bitsOfKey(key: string): number | null {
  const direct = BY_ALIAS.get(key);
  if (direct) return direct.bits;
  const mixed = mixedBits(key);
  if (mixed !== null) return mixed;
  const named = NAMED_BPW.exec(key);
  if (named) {
    const stated = Number(`${named[2]}.${named[3] ?? '0'}`);
    return bitsOfKey(named[1]!) ?? (stated > 0 && stated <= 32 ? stated : null);
  }
  const tokens = key.split('_');
  while (tokens.length > 1 && WRAPPER_TOKENS.has(tokens[0]!)) tokens.shift();
  while (tokens.length > 1 && WRAPPER_TOKENS.has(tokens[tokens.length - 1]!)) tokens.pop();
  for (let start = 0; start < tokens.length; start++) {
    const row = BY_ALIAS.get(tokens.slice(start).join('_'));
    if (row) return row.bits;
  }
  return null;
}

/**
 * The quantization a label names, for telling runs of the same weights apart: the table's
 * row name when the label is one it knows ("Q4_K - Medium", "q4_k_m", "UD-Q4_K_M" all read
 * Q4_K_M), else the label normalised (upper case, separators as '_').
 */
export function quantizationKey(quantization: string): string {
  const key = normaliseQuantization(quantization).replace(/_(SMALL|MEDIUM|LARGE)$/, (_, word: string) => `_${SIZE_WORDS[word]}`);
  const tokens = key.split('_');
  while (tokens.length > 1 && WRAPPER_TOKENS.has(tokens[0]!)) tokens.shift();
  while (tokens.length > 1 && WRAPPER_TOKENS.has(tokens[tokens.length - 1]!)) tokens.pop();
  const bare = tokens.join('_');
  return BY_ALIAS.get(bare)?.quantization ?? bare;
}

/** An engine that quantizes with MLX (mlx, mlx-lm, mlx_lm, ...): its bare "4bit" is MLX's layout. */
const MLX_ENGINE = /^mlx(?:[\s_-]?lm)?$/i;
/** A bare width, "4bit" once normalised. */
const BARE_WIDTH = /^(\d)BIT$/;

/**
 * Effective bits per weight (quantization scales included) for a quantization label,
 * or null when the label is not one this table knows. A bare width ("4bit") on an MLX
 * engine reads as MLX's group-64 layout (4.5 bits, what mlx-lm reports), elsewhere as the
 * group-128 layout of AWQ/GPTQ (4.125).
 */
export function bitsPerWeight(quantization: string, engineName?: string | null): number | null {
  if (typeof quantization !== 'string') return null;
  const raw = quantization.trim().toUpperCase().replace(/\s+/g, '_');
  // EXL2 / EXL3 and other "<n>bpw" labels: the number given (read before '.' is
  // folded into a separator).
  const bpw = BPW_PATTERN.exec(raw.replace(/-/g, '_'));
  if (bpw) {
    const bits = Number(`${bpw[1]}.${bpw[2] ?? '0'}`);
    return bits > 0 && bits <= 32 ? bits : null;
  }
  const key = normaliseQuantization(quantization).replace(/_(SMALL|MEDIUM|LARGE)$/, (_, word: string) => `_${SIZE_WORDS[word]}`);
  if (key === '') return null;
  if (typeof engineName === 'string' && MLX_ENGINE.test(engineName.trim()) && BARE_WIDTH.test(key)) {
    const mlx = BY_ALIAS.get(`MLX_${key}`);
    if (mlx) return mlx.bits;
  }
  return bitsOfKey(key);
}

/** tok/s ceiling for one stream: GB/s over GB read per token. Arguments must be positive. */
export function decodeBoundTokS(memoryBandwidthGBs: number, activeParamsB: number, bitsPerWeight: number): number {
  for (const [name, value] of [
    ['memoryBandwidthGBs', memoryBandwidthGBs],
    ['activeParamsB', activeParamsB],
    ['bitsPerWeight', bitsPerWeight],
  ] as const) {
    if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
  }
  const gbPerToken = (activeParamsB * bitsPerWeight) / 8;
  return memoryBandwidthGBs / gbPerToken;
}

export interface RooflineInput {
  tokSOut: number | null;
  batchSize: number;
  concurrency?: number | null;
  specDecoding?: boolean | null;
  mtpEnabled?: boolean | null;
  quantization: string;
  /** The engine that ran it: a bare "4bit" on MLX is MLX's layout (`bitsPerWeight`). */
  engineName?: string | null;
  /** Bits per weight the model's weights are stored in (models.native_bits_per_weight): the label cannot mean more. */
  nativeBitsPerWeight?: number | null;
  /** Total parameters, billions. */
  paramsB: number | null;
  /** Parameters active per token, billions (MoE). */
  activeParamsB: number | null;
  isMoE: boolean;
  /** Memory bandwidth the weights are streamed from, GB/s (sum over devices when split). */
  memoryBandwidthGBs: number | null;
  /** The run's hardware class: it picks the suspect factor (`SUSPECT_FACTORS`). */
  hwClass?: string | null;
  /**
   * The last-level cache the weights could be served from, MB (summed over cards streaming at
   * once); null when not catalogued, then `MIN_CACHE_SAFE_WEIGHT_GB` stands in for it.
   */
  lastLevelCacheMb?: number | null;
}

export interface RooflineVerdict {
  plausibility: 'plausible' | 'suspect' | 'unknown';
  /** Single-stream bound in tok/s, rounded to 1 decimal; null when it cannot be computed. */
  boundTokS: number | null;
  /** Short English explanation. */
  reason: string;
}

function positive(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/**
 * A format's native bits cap the label: gpt-oss experts stay MXFP4 in GGUF files labelled
 * F16 or Q8_0, an FP8 model is not read at 16 bits. An unknown label stays unknown (the
 * file may hold fewer bits than the native format).
 */
function cappedBits(labelBits: number | null, nativeBits: number | null | undefined): number | null {
  return labelBits !== null && positive(nativeBits) ? Math.min(labelBits, nativeBits) : labelBits;
}

/**
 * Verdict on a run's output tok/s. 'unknown' (with the reason) whenever the bound does
 * not apply or an input is missing; the bound is still returned when it can be computed.
 */
export function assessPlausibility(input: RooflineInput): RooflineVerdict {
  const bits = cappedBits(bitsPerWeight(input.quantization, input.engineName), input.nativeBitsPerWeight);
  // Dense: active = total (an explicit active count, if given, is used: it can only be smaller).
  // MoE: the active count only; total params would make the bound far too low.
  const activeB = input.isMoE ? input.activeParamsB : (input.activeParamsB ?? input.paramsB);
  const bandwidth = input.memoryBandwidthGBs;

  const exact = bits !== null && positive(activeB) && positive(bandwidth) ? decodeBoundTokS(bandwidth, activeB, bits) : null;
  const boundTokS = exact === null ? null : Math.round(exact * 10) / 10;
  const unknown = (reason: string): RooflineVerdict => ({ plausibility: 'unknown', boundTokS, reason });

  // Run shapes no weight-streaming bound describes: several tokens per pass over the weights.
  if (!positive(input.tokSOut)) return unknown('no output tokens/s reported');
  if (input.specDecoding === true) {
    return unknown('not judged: speculative decoding can accept several tokens per pass over the weights');
  }
  if (input.mtpEnabled === true) {
    return unknown('not judged: multi-token prediction (MTP) can emit several tokens per pass over the weights');
  }
  // Several sequences decoding together share each pass over the weights, so their
  // aggregate tok/s is bounded by the streams times the single-stream bound.
  const streams = activeStreams(input.batchSize, input.concurrency);
  if (streams === null) return unknown('not judged: batch size or concurrency is not a positive whole number');

  // Missing inputs.
  if (bits === null) return unknown(`unknown quantization "${typeof input.quantization === 'string' ? input.quantization.trim() : ''}"`);
  if (input.isMoE && !positive(input.activeParamsB)) {
    return unknown('MoE without an active-parameter count: total parameters would give a bound that is too low');
  }
  if (!positive(activeB)) return unknown('unknown parameter count');
  if (!positive(bandwidth)) return unknown('unknown memory bandwidth');
  if (exact === null || boundTokS === null) return unknown('bound not computable');

  // Small enough to live in on-chip cache: DRAM bandwidth is not the limit. For an MoE
  // the whole expert set has to fit, so the total count is used when known.
  const residentGB = (Math.max(activeB, positive(input.paramsB) ? input.paramsB : 0) * bits) / 8;
  if (positive(input.lastLevelCacheMb)) {
    if (residentGB * 1000 <= input.lastLevelCacheMb) {
      return unknown(`weights of ${Math.round(residentGB * 1000)} MB fit the device's ${input.lastLevelCacheMb} MB last-level cache`);
    }
  } else if (residentGB < MIN_CACHE_SAFE_WEIGHT_GB) {
    return unknown(
      `weights under ${MIN_CACHE_SAFE_WEIGHT_GB} GB can be served from on-chip cache (the device's last-level cache is not catalogued)`,
    );
  }

  const factor = suspectFactorFor(input.hwClass);
  const times = streams > 1 ? `${streams} streams × ` : '';
  const bound = `${factor} × ${times}the ${boundTokS.toFixed(1)} tok/s memory-bandwidth bound${classNote(input.hwClass)}`;
  return input.tokSOut > factor * streams * exact
    ? { plausibility: 'suspect', boundTokS, reason: `above ${bound}` }
    : { plausibility: 'plausible', boundTokS, reason: `within ${bound}` };
}

/** Sequences decoding at once (batch × requests in flight), or null when either is not a positive whole number. */
function activeStreams(batchSize: number, concurrency: number | null | undefined): number | null {
  const whole = (n: number) => Number.isSafeInteger(n) && n >= 1;
  if (!whole(batchSize) || (concurrency != null && !whole(concurrency))) return null;
  return batchSize * (concurrency ?? 1);
}

const CLASS_NAMES: Readonly<Record<RooflineHwClass, string>> = { DISCRETE_GPU: 'discrete GPU', UNIFIED: 'unified memory', CPU_ONLY: 'CPU' };

function classNote(hwClass: string | null | undefined): string {
  return hwClass != null && Object.hasOwn(CLASS_NAMES, hwClass) ? ` (${CLASS_NAMES[hwClass as RooflineHwClass]} factor)` : '';
}

/** For the /methodology page and the agent context. */
export const methodology: {
  formula: string;
  assumptions: string[];
  suspectFactors: { hwClass: RooflineHwClass; hardware: string; factor: number; basis: string }[];
  factorSource: string;
  bitsPerWeightTable: { quantization: string; bits: number; source: string }[];
  moeModelTable: { name: string; totalB: number; activeB: number; nativeBitsPerWeight: number | null; source: string }[];
} = {
  formula:
    'max single-stream decode tok/s = memory bandwidth (GB/s) ÷ (active parameters (billions) × bits per weight ÷ 8); ' +
    `a run is suspect when its output tok/s is above its hardware class's factor × this bound (discrete GPU ${SUSPECT_FACTORS.DISCRETE_GPU}, unified memory ${SUSPECT_FACTORS.UNIFIED}, CPU only ${SUSPECT_FACTORS.CPU_ONLY}), ` +
    'and N sequences decoding together (batch × requests in flight) are held to N × the bound',
  assumptions: [
    "One sequence decoding (batch 1, one request in flight): every generated token reads every active weight from memory once. With N sequences decoding together (batch size × concurrency) each pass over the weights serves all N, so the aggregate tok/s such a run reports is held to N × the bound; it can legitimately exceed one stream's bound, never N streams'.",
    "Speculative decoding and multi-token prediction (MTP) can accept several tokens per pass over the target's weights (a draft proposes, one pass verifies them all), so such runs are not judged: their reason says so.",
    'Only weight reads are counted. KV-cache and activation reads and compute time are ignored: they can only make the real ceiling lower, so the bound stays an upper limit.',
    'Bits per weight include quantization scale overhead and, where unsure, take the lowest published figure (fewer bits give a higher bound). GGUF k-quants use the lowest whole-file figure across the llama.cpp README tables (Llama 2 7B/13B/70B, Llama 3.1 8B); i-quants use the nominal bpw printed by llama-quantize; AWQ/GPTQ count one fp16 scale per 128 weights and leave out zero points and the fp16 embeddings / lm_head those checkpoints keep.',
    'EXL2 / EXL3 labels of the form "<n>bpw" use n as the bits per weight.',
    'A bare width ("4bit") on the MLX engine is MLX\'s affine layout at mlx-lm\'s default group size 64 (N + 0.5 bits: 4bit is 4.5, as mlx-lm reports); on any other engine it is the group-128 layout of AWQ/GPTQ (N + 0.125).',
    'Parameter counts include the input embedding table, of which only one row is read per token (tied embeddings are read in full as the output head). For untied models this over-counts bytes per token, typically by under 10% of the parameters, making the bound slightly too low; the per-class factors leave room for this.',
    'MoE models use the parameters a token reads. From the hub\'s config.json: attention (standard or multi-head latent), the routed experts a token is sent to (3 × hidden × expert size each: gate, up, down), shared experts, dense layers, the router and the output head; the input embedding, of which one row is read, is left out. For repos without a usable config.json (GGUF-only, gated) the published figures of the table below are used, and "A3B"-style names count too; when several are known the smallest is used. An MoE without a known active count is not judged: its total count would give a bound far too low.',
    "A model's native format caps the label: the weights cannot be read at more bits than they are stored in. gpt-oss experts stay MXFP4 (4.25 bits) in GGUF files labelled F16, BF16 or Q8_0, and FP8 releases (DeepSeek V3/R1, Kimi K2, MiniMax-M2) are read at 8 bits at most. The native bits come from config.json (quantization_config, MLX quantization) or the table below; a quantization inherits its base's.",
    'Packed quantized repos (AWQ, GPTQ, MLX, bitsandbytes, compressed-tensors) report the count of int32/uint32 elements to the hub, 4-8× below their real weight count: they are sized by their base model, else the table below, else the size in their name (marked approximate).',
    "Memory bandwidth is the theoretical peak of the memory holding the weights. Over several cards it is summed only over the cards that stream at once: every card of a tensor split (tensor parallel > 1, llama.cpp -sm row or tensor), the fastest single card of a layer split or pipeline parallelism (llama.cpp -sm layer, its default since build 2000 of January 2024 (PR #4606); Ollama and LM Studio). A split the run does not state counts every card: vLLM, SGLang and TGI shard by tensors, and older llama.cpp builds split by rows (published 4- and 6-card runs of them reach 1.4-1.7x one card's bound). Real kernels reach roughly 60-90% of peak, which the bound does not credit; partial CPU offload only lowers the real ceiling.",
    `Weights that fit the device's last-level cache (its L2, Infinity Cache, system-level cache or L3, from the hardware catalogue; summed over the cards that stream at once) are not judged: the cache can serve them without touching main memory. For an MoE the whole expert set must fit. Where the device's cache is not catalogued, models whose weights total under ${MIN_CACHE_SAFE_WEIGHT_GB} GB are not judged (on-chip caches reach 256 MB on GPUs and ~1.1 GB of L3 on some server CPUs).`,
    'Any unknown input (quantization, parameters, bandwidth, output tok/s) gives "unknown", never "suspect".',
  ],
  suspectFactors: (Object.keys(SUSPECT_FACTORS) as RooflineHwClass[]).map((hwClass) => ({
    hwClass,
    hardware: CLASS_NAMES[hwClass],
    factor: SUSPECT_FACTORS[hwClass],
    basis: SUSPECT_FACTOR_BASIS[hwClass],
  })),
  factorSource:
    "Measured on a set of 200+ published runs kept with the code (test/fixtures/real-runs): llama.cpp's own benches and scoreboards, llama-bench tables in llama.cpp pull requests and issues, Jeff Geerling's ai-benchmarks, XiongjieDai's GPU-Benchmarks-on-LLM-Inference, Strix Halo test repositories and community llama-bench submissions, each row with its source. For every run the bound is computed as above and the run's tok/s divided by it; each factor leaves headroom over the highest such ratio in its class.",
  bitsPerWeightTable: BITS_TABLE.map(({ quantization, bits, source }) => ({ quantization, bits, source })),
  moeModelTable: CURATED_MODELS.map(({ name, totalB, activeB, nativeBitsPerWeight, source }) => ({
    name,
    totalB,
    activeB,
    nativeBitsPerWeight,
    source,
  })),
};
