/**
 * Pure mapping from a hub model answer to a catalogue entry (DECISIONS.md, "Models and
 * the hub"). No I/O: the caller looks the base model up in the catalogue.
 */
import type { HubModelInfo } from '../clients/hub.ts';

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
  /** Billions of parameters active per token (MoE), when the name tells. */
  activeParams: number | null;
  isMoE: boolean;
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

/**
 * Parameters as the model name states them: `7B`, `0.5B`, `1.5b`, `405B`, `270M` (0.27).
 * `8x7B` means MoE with an unknown total (experts share layers, so 8*7 would be wrong):
 * params null. `30B-A3B` means MoE with 30 B total and 3 B active. Accepts a full
 * `<org>/<model>` id or just the repo name.
 */
export function paramsFromName(name: string): { params: number | null; activeParams: number | null; isMoE: boolean } {
  const repoName = name.slice(name.lastIndexOf('/') + 1);
  const experts = EXPERTS_PATTERN.exec(repoName);
  if (experts && Number(experts[1]) > 1) return { params: null, activeParams: null, isMoE: true };

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
    tagged.find((t) => t.relation && sameId(t.hfId, hfId))?.relation ??
    (looksQuantized(info, repoName) ? 'quantized' : 'finetune');
  return { hfId, relation };
}

/**
 * The catalogue entry for a model the hub answered for. When neither safetensors nor GGUF
 * give a parameter count and the model has a base, `params` stays null: the caller takes
 * the base model's params when the base is catalogued, else falls back to
 * `paramsFromName(displayName)` (approximate).
 */
export function catalogueEntryFromHub(info: HubModelInfo, requestedHfId: string): CatalogueEntry {
  const hfId = info.id && info.id.includes('/') ? info.id : requestedHfId;
  const displayName = hfId.includes('/') ? hfId.slice(hfId.indexOf('/') + 1) : hfId;
  const family = info.config?.model_type || info.gguf?.architecture || null;
  const fromName = paramsFromName(displayName);
  const base = baseFromHub(info, [hfId, requestedHfId], displayName);

  const total = [info.safetensors?.total, info.gguf?.total].find(
    (count): count is number => typeof count === 'number' && Number.isFinite(count) && count > 0,
  );
  let params: number | null = null;
  let paramsApproximate = false;
  if (total !== undefined) {
    params = billions(total);
  } else if (!base && fromName.params !== null) {
    params = fromName.params;
    paramsApproximate = true;
  }

  const isMoE =
    architectureNames(info).some(isMoEArchitecture) ||
    info.tags.some((tag) => tag.toLowerCase() === 'moe') ||
    expertCount(info.configJson) > 1 ||
    fromName.isMoE;

  return {
    hfId,
    displayName,
    family,
    params,
    paramsApproximate,
    activeParams: fromName.activeParams,
    isMoE,
    base,
    hubSha: info.sha || null,
    gated: Boolean(info.gated),
  };
}
