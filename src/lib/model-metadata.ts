/**
 * Pure mapping from a hub model answer to a catalogue entry (DECISIONS.md, "Models and
 * the hub"). No I/O: the caller looks the base model up in the catalogue.
 */
import type { HubModelInfo } from '../clients/hub.ts';
import { curatedModelFacts } from './curated-models.ts';

export type BaseRelation = 'quantized' | 'finetune' | 'adapter' | 'merge';
export const BASE_RELATIONS: readonly BaseRelation[] = ['quantized', 'finetune', 'adapter', 'merge'];

export interface CatalogueEntry {
  hfId: string;
  /** The repo name: the part after the slash. */
  displayName: string;
  family: string | null;
  /** Billions of parameters. */
  params: number | null;
  /** True when params were guessed from the name. */
  paramsApproximate: boolean;
  /**
   * Billions of parameters active per token (MoE): the smallest of what the name, the
   * config.json (see `moeParamsFromConfig`) and the curated table tell.
   */
  activeParams: number | null;
  isMoE: boolean;
  /**
   * Bits per weight the repo's weights are stored in when it says so (quantization_config,
   * MLX `quantization`, or the curated table): a run's quantization label cannot mean more.
   * Not part of the API's model answers.
   */
  nativeBitsPerWeight: number | null;
  base: { hfId: string; relation: BaseRelation } | null;
  hubSha: string | null;
  gated: boolean;
}

const HF_ID_PART = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,95}$/;

/** `<org>/<model>`, each part 1-96 chars of [A-Za-z0-9._-], not starting with '.' or '-'. */
export function isValidHfId(hfId: string): boolean {
  const parts = hfId.split('/');
  return parts.length === 2 && parts.every((part) => HF_ID_PART.test(part));
}

/**
 * Architecture / model_type / GGUF architecture fragments that mean mixture-of-experts.
 * Compared case-insensitively with '_' and '-' ignored, as substrings ('moe' covers
 * qwen2_moe, qwen3_moe, olmoe, granitemoe, phimoe, glm4_moe, Qwen3MoeForCausalLM...).
 */
export const MOE_ARCHITECTURE_MARKERS: readonly string[] = [
  'moe',
  'mixtral',
  'deepseek_v2',
  'deepseek_v3',
  'deepseek2', // GGUF architecture of DeepSeek V2/V3
  'qwen2_moe',
  'qwen3_moe',
  'qwen3_next',
  'dbrx',
  'jamba',
  'gpt_oss',
  'grok',
  'arctic',
  'olmoe',
  'granitemoe',
  'phimoe',
  'llama4',
  'minimax',
  'dots1',
];

/** config.json keys that give the number of experts (MoE when > 1). */
export const EXPERT_COUNT_KEYS: readonly string[] = ['num_experts', 'num_local_experts', 'n_routed_experts', 'moe_num_experts'];

/** Tags that mark a repo as a quantization of its base. */
const QUANT_TAGS = new Set(['gguf', 'awq', 'gptq', 'exl2', 'exl3', 'mlx', 'bitsandbytes', '4-bit', '8-bit', 'fp8', 'compressed-tensors']);
/** Name fragments (between separators) that mark a repo as a quantization. */
const QUANT_NAME = /(?:^|[-_.])(?:gguf|awq|gptq|exl2|exl3|mlx|bnb|[2-8]-?bit|fp8|int4|int8|nf4|w4a16|w8a8|w8a16)(?=$|[-_.])/i;

function normalizeArch(value: string): string {
  return value.toLowerCase().replace(/[-_\s]/g, '');
}

const NORMALIZED_MOE_MARKERS = MOE_ARCHITECTURE_MARKERS.map(normalizeArch);

/** True when an architecture, model_type or GGUF architecture name means MoE. */
export function isMoEArchitecture(name: string): boolean {
  const normalized = normalizeArch(name);
  return NORMALIZED_MOE_MARKERS.some((marker) => normalized.includes(marker));
}

/** Raw parameter count -> billions, 2 decimals (at least 0.01 for a positive count). */
export function billions(count: number): number {
  const rounded = Math.round(count / 1e7) / 100;
  return rounded === 0 && count > 0 ? 0.01 : rounded;
}

function sizeInBillions(amount: string, unit: string): number {
  const value = Number(amount) * (unit.toLowerCase() === 'm' ? 1e6 : 1e9);
  return billions(value);
}

// Separators around a size token: start/end, '-', '_', whitespace ('.' may follow, as in 7B.gguf).
const SIZE = String.raw`(\d+(?:\.\d+)?)([BbMm])`;
const EXPERTS_PATTERN = new RegExp(String.raw`(?:^|[-_\s])(\d+)[xX]${SIZE}(?=$|[-_.\s])`);
const ACTIVE_PATTERN = new RegExp(String.raw`(?:^|[-_\s])[Aa]${SIZE}(?=$|[-_.\s])`);
const PLAIN_SIZE_PATTERN = new RegExp(String.raw`(?:^|[-_\s])${SIZE}(?=$|[-_.\s])`);
const MOE_NAME_TOKEN = /(?:^|[-_\s])moe(?=$|[-_.\s])/i;
/** Llama 4's `17B-16E`: the size is the ACTIVE count, the experts follow. */
const ACTIVE_EXPERTS_PATTERN = new RegExp(String.raw`(?:^|[-_\s])${SIZE}-(\d+)E(?=$|[-_.\s])`);

/**
 * Parameters as the model name states them: `7B`, `0.5B`, `1.5b`, `405B`, `270M` (0.27).
 * `8x7B` means MoE with an unknown total (experts share layers, so 8*7 would be wrong):
 * params null; so does Llama 4's `17B-16E` (17 B active, 16 experts). `30B-A3B` means MoE with 30 B total and 3 B active. Accepts a full
 * `<org>/<model>` id or just the repo name.
 */
export function paramsFromName(name: string): { params: number | null; activeParams: number | null; isMoE: boolean } {
  const repoName = name.slice(name.lastIndexOf('/') + 1);
  const experts = EXPERTS_PATTERN.exec(repoName);
  if (experts && Number(experts[1]) > 1) return { params: null, activeParams: null, isMoE: true };
  const activeExperts = ACTIVE_EXPERTS_PATTERN.exec(repoName);
  if (activeExperts && Number(activeExperts[3]) > 1) {
    return { params: null, activeParams: sizeInBillions(activeExperts[1]!, activeExperts[2]!), isMoE: true };
  }

  const active = ACTIVE_PATTERN.exec(repoName);
  const activeParams = active ? sizeInBillions(active[1]!, active[2]!) : null;
  const plain = PLAIN_SIZE_PATTERN.exec(repoName);
  const params = plain ? sizeInBillions(plain[1]!, plain[2]!) : null;
  return { params, activeParams, isMoE: activeParams !== null || MOE_NAME_TOKEN.test(repoName) };
}

function expertCount(config: Record<string, unknown> | undefined): number {
  if (!config) return 0;
  let max = 0;
  for (const source of [config, config.text_config]) {
    if (typeof source !== 'object' || source === null || Array.isArray(source)) continue;
    for (const key of EXPERT_COUNT_KEYS) {
      const value = (source as Record<string, unknown>)[key];
      if (typeof value === 'number' && Number.isFinite(value)) max = Math.max(max, value);
    }
  }
  return max;
}

function architectureNames(info: HubModelInfo): string[] {
  const names = [...(info.config?.architectures ?? [])];
  if (info.config?.model_type) names.push(info.config.model_type);
  if (info.gguf?.architecture) names.push(info.gguf.architecture);
  const json = info.configJson;
  if (json) {
    if (typeof json.model_type === 'string') names.push(json.model_type);
    if (Array.isArray(json.architectures)) names.push(...json.architectures.filter((a): a is string => typeof a === 'string'));
  }
  return names;
}

function looksQuantized(info: HubModelInfo, repoName: string): boolean {
  if (info.gguf) return true;
  if (info.tags.some((tag) => QUANT_TAGS.has(tag.toLowerCase()))) return true;
  if (info.configJson && typeof info.configJson.quantization_config === 'object' && info.configJson.quantization_config !== null) {
    return true;
  }
  return QUANT_NAME.test(repoName);
}

function sameId(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function baseFromHub(info: HubModelInfo, ownIds: string[], repoName: string): CatalogueEntry['base'] {
  const isSelf = (id: string) => ownIds.some((own) => sameId(own, id));

  // Tags: `base_model:<relation>:<id>` (and the plain `base_model:<id>` the hub adds too).
  const tagged: { hfId: string; relation: BaseRelation | null }[] = [];
  for (const tag of info.tags) {
    if (!tag.startsWith('base_model:')) continue;
    const rest = tag.slice('base_model:'.length);
    const relation = BASE_RELATIONS.find((r) => rest.startsWith(`${r}:`)) ?? null;
    const hfId = (relation ? rest.slice(relation.length + 1) : rest).trim();
    if (isValidHfId(hfId) && !isSelf(hfId)) tagged.push({ hfId, relation });
  }

  const cardBase = info.cardData?.base_model;
  const cardIds = (Array.isArray(cardBase) ? cardBase : cardBase === undefined ? [] : [cardBase])
    .map((id) => id.trim())
    .filter((id) => isValidHfId(id) && !isSelf(id));
  const cardId = cardIds[0];

  const hfId = cardId ?? tagged.find((t) => t.relation)?.hfId ?? tagged[0]?.hfId;
  if (!hfId) return null;
  const relation =
    tagged.find((t) => t.relation && sameId(t.hfId, hfId))?.relation ?? (looksQuantized(info, repoName) ? 'quantized' : 'finetune');
  return { hfId, relation };
}

// ---------------------------------------------------------------------------
// Mixture-of-experts parameter counts from config.json
// ---------------------------------------------------------------------------

type Config = Record<string, unknown>;

function isRecord(value: unknown): value is Config {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A positive finite number (the first of an array, as Hunyuan writes `moe_topk: [8]`), else undefined. */
function positiveNumber(value: unknown): number | undefined {
  const number = Array.isArray(value) ? value[0] : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : undefined;
}

function firstNumber(config: Config, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = positiveNumber(config[key]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The language model's part of a multimodal config (Llama 4, Qwen-VL...), else the config itself. */
function languageConfig(config: Config): Config {
  for (const key of ['text_config', 'llm_config', 'language_config']) {
    const inner = config[key];
    if (isRecord(inner) && positiveNumber(inner.hidden_size) !== undefined) return inner;
  }
  return config;
}

/** config.json keys for the number of experts each token is routed to. */
export const EXPERTS_PER_TOKEN_KEYS: readonly string[] = [
  'num_experts_per_tok',
  'num_experts_per_token',
  'experts_per_token',
  'moe_topk',
  'moe_k',
];

/**
 * model_types whose layers the formula below describes (standard or multi-head latent
 * attention, gated MLP experts). Others (hybrid linear attention, Mamba layers, ungated
 * experts) would be miscounted, so they fall back to the curated table.
 */
const FORMULA_MODEL_TYPES = new Set([
  'mixtral',
  'qwen2_moe',
  'qwen3_moe',
  'deepseek_v2',
  'deepseek_v3',
  'kimi_k2',
  'gpt_oss',
  'llama4',
  'llama4_text',
  'glm4_moe',
  'olmoe',
  'phimoe',
  'dots1',
]);
/** model_types whose MoE layers carry one always-on shared expert that no config key names. */
const IMPLIED_SHARED_EXPERT = new Set(['llama4', 'llama4_text']);

/** Which of `layers` layers are MoE layers, per the keys each family uses. */
function moeLayerCount(config: Config, layers: number): number {
  const explicit = config.moe_layers;
  if (Array.isArray(explicit) && explicit.every((i) => typeof i === 'number')) return new Set(explicit).size;
  const firstDense = positiveNumber(config.first_k_dense_replace) ?? 0; // DeepSeek, GLM, Kimi
  const frequency = positiveNumber(config.moe_layer_freq) ?? 1; // DeepSeek
  const sparseStep = positiveNumber(config.decoder_sparse_step) ?? positiveNumber(config.interleave_moe_layer_step) ?? 1; // Qwen-MoE, Llama 4
  const denseOnly = new Set(Array.isArray(config.mlp_only_layers) ? config.mlp_only_layers : []); // Qwen-MoE
  let count = 0;
  for (let i = 0; i < layers; i++) {
    if (i < firstDense || i % frequency !== 0 || (i + 1) % sparseStep !== 0 || denseOnly.has(i)) continue;
    count++;
  }
  return count;
}

export interface MoEParams {
  /** All parameters of the language model, billions (embeddings included, vision towers and MTP layers not). */
  totalB: number;
  /**
   * Parameters read per generated token, billions: attention, router, the routed and shared
   * experts a token uses, dense layers and the output head. The input embedding is left out
   * (one row of it is read per token) unless tied to the head, so this is at most the
   * published active count (Qwen counts the input embedding, OpenAI and DeepSeek do not).
   */
  activeB: number;
}

/**
 * Total and per-token parameters of a mixture-of-experts model from its config.json, or
 * null when the config is not an MoE one the formula knows or lacks a dimension. Per layer:
 *   attention = q + k + v + o projections (H*nH*hd + 2*H*nKV*hd + nH*hd*H), or for
 *               multi-head latent attention (kv_lora_rank) the low-rank q/kv projections;
 *   expert    = 3*H*I (gate, up, down), I = moe_intermediate_size, else intermediate_size;
 *   MoE layer = k routed experts (k = num_experts_per_tok...) + shared experts
 *               (n_shared_experts*expert, or 3*H*shared_expert_intermediate_size) + router H*E;
 *   dense layer (first_k_dense_replace, interleaved layers) = 3*H*intermediate_size(_mlp).
 * Embeddings: V*H in, V*H out unless tie_word_embeddings (which transformers defaults to true).
 */
export function moeParamsFromConfig(json: Config | undefined): MoEParams | null {
  if (!json) return null;
  const config = languageConfig(json);
  const modelType = [config.model_type, json.model_type].find((t): t is string => typeof t === 'string');
  if (!modelType || !FORMULA_MODEL_TYPES.has(modelType)) return null;

  const hidden = positiveNumber(config.hidden_size);
  const layers = positiveNumber(config.num_hidden_layers);
  const heads = positiveNumber(config.num_attention_heads);
  const vocab = positiveNumber(config.vocab_size);
  const experts = firstNumber(config, EXPERT_COUNT_KEYS);
  const perToken = firstNumber(config, EXPERTS_PER_TOKEN_KEYS);
  const expertSize = firstNumber(config, ['moe_intermediate_size', 'intermediate_size']);
  if (!hidden || !layers || !heads || !vocab || !experts || experts <= 1 || !perToken || !expertSize) return null;

  let attention: number;
  const kvLoraRank = positiveNumber(config.kv_lora_rank);
  if (kvLoraRank) {
    const nope = positiveNumber(config.qk_nope_head_dim);
    const rope = positiveNumber(config.qk_rope_head_dim);
    const valueDim = positiveNumber(config.v_head_dim);
    if (!nope || !rope || !valueDim) return null;
    const qLoraRank = positiveNumber(config.q_lora_rank);
    const query = qLoraRank ? hidden * qLoraRank + qLoraRank * heads * (nope + rope) : hidden * heads * (nope + rope);
    attention = query + hidden * (kvLoraRank + rope) + kvLoraRank * heads * (nope + valueDim) + heads * valueDim * hidden;
  } else {
    const kvHeads = positiveNumber(config.num_key_value_heads) ?? heads;
    const headDim = positiveNumber(config.head_dim) ?? hidden / heads;
    attention = 2 * hidden * heads * headDim + 2 * hidden * kvHeads * headDim;
  }

  const expert = 3 * hidden * expertSize;
  const sharedSize = positiveNumber(config.shared_expert_intermediate_size);
  const shared = sharedSize
    ? 3 * hidden * sharedSize
    : (positiveNumber(config.n_shared_experts) ?? (IMPLIED_SHARED_EXPERT.has(modelType) ? 1 : 0)) * expert;
  const router = hidden * experts;
  const denseSize = firstNumber(config, ['intermediate_size_mlp', 'intermediate_size']) ?? expertSize;
  const moeLayers = moeLayerCount(config, layers);
  const denseLayers = layers - moeLayers;
  const dense = 3 * hidden * denseSize;

  const embedding = vocab * hidden;
  const tied = config.tie_word_embeddings !== false && json.tie_word_embeddings !== false;
  const common = layers * attention + denseLayers * dense + moeLayers * (shared + router);
  const total = common + moeLayers * experts * expert + (tied ? embedding : 2 * embedding);
  const active = common + moeLayers * Math.min(perToken, experts) * expert + embedding;
  return { totalB: billions(total), activeB: billions(active) };
}

// ---------------------------------------------------------------------------
// Native bits per weight and packed parameter counts
// ---------------------------------------------------------------------------

/** N-bit integers with one 16-bit scale per `group` weights (per-channel when group <= 0). */
function groupedBits(bits: number, group: number | undefined, scaleBits = 16): number {
  return group && group > 0 ? bits + scaleBits / group : bits;
}

/** The smallest positive figure known, or null: a smaller count or fewer bits gives a higher bound. */
export function lowest(values: (number | null | undefined)[]): number | null {
  const known = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0);
  return known.length === 0 ? null : Math.min(...known);
}

/** MLX `quantization`: { group_size, bits } plus per-layer overrides; scale and bias are 16-bit each. */
function mlxBits(quantization: Config): number | null {
  const entries = [quantization, ...Object.values(quantization).filter(isRecord)];
  return lowest(
    entries.map((entry) => {
      const bits = positiveNumber(entry.bits);
      return bits === undefined ? null : groupedBits(bits, positiveNumber(entry.group_size) ?? 64, 32);
    }),
  );
}

/** compressed-tensors: the lowest weight format over its config groups. */
function compressedTensorsBits(config: Config): number | null {
  const groups = isRecord(config.config_groups) ? Object.values(config.config_groups).filter(isRecord) : [];
  return lowest(
    groups.map((group) => {
      const weights = isRecord(group.weights) ? group.weights : undefined;
      const bits = positiveNumber(weights?.num_bits);
      if (!weights || bits === undefined) return null;
      // FP4 is NVFP4 here: 16-element blocks with an FP8 scale (4 + 8/16).
      if (weights.type === 'float') return bits <= 4 ? 4.5 : bits;
      return groupedBits(bits, weights.strategy === 'channel' ? undefined : positiveNumber(weights.group_size));
    }),
  );
}

function quantizationConfigBits(config: Config): number | null {
  const method = typeof config.quant_method === 'string' ? config.quant_method.toLowerCase() : '';
  switch (method) {
    case 'mxfp4':
      return 4.25;
    case 'fp8':
    case 'fbgemm_fp8':
      return 8;
    case 'awq':
    case 'gptq':
    case 'auto-round':
    case 'autoround': {
      const bits = positiveNumber(config.bits) ?? positiveNumber(config.w_bit);
      return bits === undefined ? null : groupedBits(bits, positiveNumber(config.group_size) ?? positiveNumber(config.q_group_size));
    }
    case 'bitsandbytes':
      // 4-bit: 64-weight blocks with a double-quantized absmax (QLoRA paper, 0.127 bit).
      return config.load_in_4bit === true ? 4.127 : config.load_in_8bit === true ? 8 : null;
    case 'compressed-tensors':
      return compressedTensorsBits(config);
    case 'modelopt': {
      const algo = String(config.quant_algo ?? '').toUpperCase();
      return algo.includes('FP4') ? 4.5 : algo.includes('FP8') ? 8 : null;
    }
    case '':
      // mlx-lm copies its `quantization` here without a method.
      return mlxBits(config);
    default:
      return null;
  }
}

/**
 * Bits per weight the repo's weights are stored in, from config.json: quantization_config
 * (AWQ/GPTQ with their group size, bitsandbytes, compressed-tensors, MXFP4, FP8, ModelOpt)
 * or MLX's `quantization`, the lowest where several parts differ. Null for 16-bit weights
 * or a config that does not say.
 */
export function nativeBitsPerWeightFromConfig(json: Config | undefined): number | null {
  if (!json) return null;
  const config = languageConfig(json);
  const candidates: (number | null)[] = [];
  for (const source of new Set([json, config])) {
    if (isRecord(source.quantization_config)) candidates.push(quantizationConfigBits(source.quantization_config));
    if (isRecord(source.quantization)) candidates.push(mlxBits(source.quantization));
  }
  return lowest(candidates);
}

/** Native bits from config.json, else from the hub's summary of it (all a gated repo shows). */
function nativeBitsOfRepo(info: HubModelInfo): number | null {
  const summary = info.config?.quantization_config;
  return lowest([
    nativeBitsPerWeightFromConfig(info.configJson),
    summary ? nativeBitsPerWeightFromConfig({ quantization_config: summary }) : null,
  ]);
}

/** safetensors dtypes that hold several quantized weights per element (AWQ/GPTQ/compressed-tensors int32, MLX uint32). */
const PACKED_DTYPES = new Set(['I32', 'U32']);
/** Tags of formats whose weights are always packed into int32. */
const PACKED_TAGS = new Set(['awq', 'gptq']);

/**
 * True when the hub's parameter count counts packed elements rather than weights (4-8x
 * too low): int32/uint32 tensors, a sub-8-bit quantization in config.json, or AWQ/GPTQ tags.
 */
export function hasPackedParameterCount(info: HubModelInfo): boolean {
  const dtypes = Object.keys(info.safetensors?.parameters ?? {});
  if (dtypes.some((dtype) => PACKED_DTYPES.has(dtype.toUpperCase()))) return true;
  const native = nativeBitsOfRepo(info);
  if (native !== null && native < 8) return true;
  return info.tags.some((tag) => PACKED_TAGS.has(tag.toLowerCase()));
}

// ---------------------------------------------------------------------------
// The catalogue entry
// ---------------------------------------------------------------------------

/** A known exact total also bounds the active count (a small model distilled from a curated family). */
function exactParams(params: number | null, approximate: boolean): number | null {
  return approximate ? null : params;
}

/** The parameter count of a model without a usable one of its own and without a catalogued base. */
export function fallbackParams(
  hfId: string,
  baseHfId: string | null,
  family: string | null,
): { params: number | null; approximate: boolean } {
  const curated = curatedModelFacts(hfId, baseHfId, family);
  if (curated) return { params: curated.totalB, approximate: false };
  const fromName = paramsFromName(hfId).params;
  return { params: fromName, approximate: fromName !== null };
}

/**
 * The catalogue entry for a model the hub answered for. The hub's parameter count is not
 * used when it counts packed elements (AWQ, GPTQ, MLX, bitsandbytes, compressed-tensors).
 * Without a usable count and with a base, `params` stays null: the caller takes the base
 * model's params when the base is catalogued, else `fallbackParams` (curated table, else
 * the size in the name, approximate).
 */
export function catalogueEntryFromHub(info: HubModelInfo, requestedHfId: string): CatalogueEntry {
  const hfId = info.id?.includes('/') ? info.id : requestedHfId;
  const displayName = hfId.includes('/') ? hfId.slice(hfId.indexOf('/') + 1) : hfId;
  const family = info.config?.model_type || info.gguf?.architecture || null;
  const fromName = paramsFromName(displayName);
  const base = baseFromHub(info, [hfId, requestedHfId], displayName);

  const total = hasPackedParameterCount(info)
    ? undefined
    : [info.safetensors?.total, info.gguf?.total].find(
        (count): count is number => typeof count === 'number' && Number.isFinite(count) && count > 0,
      );
  let params: number | null = null;
  let paramsApproximate = false;
  if (total !== undefined) {
    params = billions(total);
  } else if (!base) {
    ({ params, approximate: paramsApproximate } = fallbackParams(hfId, null, family));
  }

  const fromConfig = moeParamsFromConfig(info.configJson);
  const curated = curatedModelFacts(hfId, base?.hfId ?? null, family, params);
  const isMoE =
    architectureNames(info).some(isMoEArchitecture) ||
    info.tags.some((tag) => tag.toLowerCase() === 'moe') ||
    expertCount(info.configJson) > 1 ||
    fromName.isMoE ||
    curated !== null;

  return {
    hfId,
    displayName,
    family,
    params,
    paramsApproximate,
    activeParams: isMoE
      ? lowest([fromName.activeParams, fromConfig?.activeB, curated?.activeB, exactParams(params, paramsApproximate)])
      : null,
    isMoE,
    nativeBitsPerWeight: lowest([nativeBitsOfRepo(info), curated?.nativeBitsPerWeight]),
    base,
    hubSha: info.sha || null,
    gated: Boolean(info.gated),
  };
}

/** The entry as the API shows a model it has not catalogued yet (the dry-run answers). */
export function publicCatalogueEntry(entry: CatalogueEntry): Omit<CatalogueEntry, 'nativeBitsPerWeight'> {
  const { nativeBitsPerWeight: _internal, ...shown } = entry;
  return shown;
}

/** What a catalogued base row passes on to a model being catalogued. */
export interface BaseModelFacts {
  params: number | null;
  params_approximate: boolean;
  active_params: number | null;
  is_moe: boolean;
  native_bits_per_weight?: number | null;
}

/**
 * The facts stored for a new catalogue row: the entry's own, else its catalogued base's
 * (a quantization inherits the base's MoE facts and native bits), else the curated table's,
 * else the name's. Active counts and native bits take the lowest figure known: a smaller
 * active count or fewer bits give a higher decode bound, which must stay an upper limit.
 */
export function catalogueFacts(entry: CatalogueEntry, base: BaseModelFacts | undefined) {
  const quantized = entry.base?.relation === 'quantized';
  let params = entry.params;
  let paramsApproximate = entry.paramsApproximate;
  if (params === null && base?.params != null) {
    params = base.params;
    paramsApproximate = base.params_approximate;
  } else if (params === null) {
    ({ params, approximate: paramsApproximate } = fallbackParams(entry.hfId, entry.base?.hfId ?? null, entry.family));
  }
  const curated = curatedModelFacts(entry.hfId, entry.base?.hfId ?? null, entry.family, params);
  const inheritsExperts = base !== undefined && (quantized || entry.params === null);
  const isMoE = entry.isMoE || curated !== null || Boolean(base?.is_moe && quantized);
  return {
    params,
    paramsApproximate,
    isMoE,
    activeParams: isMoE
      ? lowest([entry.activeParams, curated?.activeB, inheritsExperts ? base.active_params : null, exactParams(params, paramsApproximate)])
      : null,
    nativeBitsPerWeight: lowest([entry.nativeBitsPerWeight, curated?.nativeBitsPerWeight, quantized ? base?.native_bits_per_weight : null]),
  };
}
