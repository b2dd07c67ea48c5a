/** Short human labels shared by pages. */
import type { HardwareForBandwidth } from './hardware-lookup.ts';
import { reactionEmojis, type ReactionEmoji } from '../constants.ts';

/** What a label needs of a hardware profile: the lookup's facts plus total VRAM and RAM. */
type HardwareLike = HardwareForBandwidth & { totalVramGb?: number; ramGb?: number };

/** Hardware classes as people say them (the API's codes stay in URLs and exports). */
const HW_CLASS_LABELS: Readonly<Record<string, string>> = { DISCRETE_GPU: 'Discrete GPU', UNIFIED: 'Unified memory', CPU_ONLY: 'CPU only' };

export function hwClassLabel(hwClass: string): string {
  return HW_CLASS_LABELS[hwClass] ?? hwClass;
}

export function hardwareLabel(hw: HardwareLike): string {
  if (hw.hwClass === 'UNIFIED') return `${hw.chipVendor} ${hw.chipFamily} ${hw.chipVariant} · ${formatNumber(hw.unifiedMemoryGb)} GB`;
  if (hw.hwClass === 'CPU_ONLY') return `${hw.cpu} · ${formatNumber(hw.ramGb)} GB RAM`;
  if (hw.isHeterogeneousGpu && hw.gpus) return hw.gpus.map((slot) => gpusLabel(slot.count, slot.gpuName, slot.vramGb)).join(' + ');
  return gpusLabel(hw.gpuCount ?? 1, hw.gpuName, hw.vramGb);
}

/** Makers' and brand names that tight spaces leave out (the model names say enough). */
const MAKER_WORDS = /\b(NVIDIA|GeForce|AMD|Radeon|Apple|Intel)\s+/g;

/** The hardware label without makers' names, for table cells and chart labels: "4× RTX 3090 · 24 GB each". */
export function shortHardwareLabel(hw: HardwareLike): string {
  return hardwareLabel(hw).replace(MAKER_WORDS, '');
}

/** "RTX 4090 · 24 GB", or "2× RTX 4090 · 24 GB each": vramGb is per card. */
function gpusLabel(count: number, gpuName: string | undefined, vramGb: number | undefined): string {
  return count > 1 ? `${count}× ${gpuName} · ${formatNumber(vramGb)} GB each` : `${gpuName} · ${formatNumber(vramGb)} GB`;
}

/** What `activeSequences` reads of a run (as the API returns it). */
type StreamsLike = Record<string, unknown> & { batchSize?: unknown; engineFlags?: unknown };
const positiveInt = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined);

/**
 * Sequences a run generated at once: batchSize x concurrency (numParallel when concurrency
 * is absent; 1 when neither), as the run's `active_sequences` column and revision 3's
 * batchSize bucket count them (DECISIONS.md "Buckets"). More than 1 makes it a throughput run.
 */
export function activeSequences(run: StreamsLike): number {
  const flags = (run.engineFlags ?? {}) as { concurrency?: unknown; numParallel?: unknown };
  return (positiveInt(run.batchSize) ?? 1) * (positiveInt(flags.concurrency) ?? positiveInt(flags.numParallel) ?? 1);
}

/** "×8 streams" for a throughput run, "" for a single-stream one. */
export function streamsLabel(run: StreamsLike): string {
  const n = activeSequences(run);
  return n > 1 ? `×${n} streams` : '';
}

/**
 * Whether the submitter left `field` out, so the run holds the spec's default (pages and
 * the CSV show "not stated"). Runs stored before this was recorded (`defaultedFields`
 * null) are unknown, and show their stored values.
 */
export function notStated(run: object, field: string): boolean {
  const { defaultedFields } = run as { defaultedFields?: unknown };
  return Array.isArray(defaultedFields) && defaultedFields.includes(field);
}

// One formatter per precision: toLocaleString builds a new Intl.NumberFormat on every
// call, which was a fifth of the leaderboard page's CPU time.
const numberFormats = new Map<number, Intl.NumberFormat>();

export function formatNumber(value: unknown, digits = 2): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  let format = numberFormats.get(digits);
  if (!format) numberFormats.set(digits, (format = new Intl.NumberFormat('en-US', { maximumFractionDigits: digits })));
  return format.format(value);
}

/** How each reaction looks and what a screen reader calls it. */
const reactionLooks: Readonly<Record<ReactionEmoji, { glyph: string; label: string }>> = {
  fire: { glyph: '🔥', label: 'Fire' },
  rocket: { glyph: '🚀', label: 'Rocket' },
  '100': { glyph: '💯', label: 'Hundred points' },
  brain: { glyph: '🧠', label: 'Brain' },
  chad: { glyph: '🗿', label: 'Chad' },
};

/** The reactions in display order, for the reaction bar. */
export const reactionChoices = reactionEmojis.map((emoji) => ({ emoji, ...reactionLooks[emoji] }));

const VERDICT_LABELS: Record<string, string> = { plausible: 'Plausible', suspect: 'Suspect', outlier: 'Outlier', unknown: 'Not judged' };

/** A plausibility verdict as pages name it ('unknown' reads "Not judged": nothing was flagged). */
export function verdictLabel(plausibility: string): string {
  return VERDICT_LABELS[plausibility] ?? plausibility;
}

/**
 * The verdict's reason as a sentence after its label: capitalised, without a leading "not
 * judged:" the label already says ("Not judged. Speculative decoding can accept ...").
 */
export function verdictReason(reason: string | null | undefined): string {
  const text = (reason ?? '').replace(/^not judged:\s*/i, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The engines most runs use, in the order people look for them. */
const COMMON_ENGINES = ['llama.cpp', 'ollama', 'vllm', 'lmstudio', 'mlx', 'sglang', 'exllamav2', 'tensorrt-llm', 'tgi'];

/** Engine choices for a picker: the common ones first (in that order), then the rest alphabetically. */
export function engineChoices(engines: readonly string[]): { common: string[]; others: string[] } {
  return {
    common: COMMON_ENGINES.filter((name) => engines.includes(name)),
    others: engines.filter((name) => !COMMON_ENGINES.includes(name)).sort((a, b) => a.localeCompare(b)),
  };
}

/** How a quality run was run, as people say it (the API's codes stay in the API and exports). */
const EXECUTION_MODE_LABELS: Readonly<Record<string, string>> = {
  CUSTOM_LOCAL: 'on the submitter’s machine, with the suite’s runner',
  LM_EVAL_LOCAL: 'on the submitter’s machine, with lm-evaluation-harness',
  SERVER_EXECUTE: 'by this server, against the submitter’s model server',
};
export function executionModeLabel(mode: string): string {
  return EXECUTION_MODE_LABELS[mode] ?? mode;
}

const JUDGE_MODE_LABELS: Readonly<Record<string, string>> = {
  NONE: 'no judge model: scored by the suite’s rule',
  LOCAL_REPORTED: 'a judge model run by the submitter, scores reported',
};
export function judgeModeLabel(mode: string): string {
  return JUDGE_MODE_LABELS[mode] ?? mode;
}

const SCORING_METHOD_LABELS: Readonly<Record<string, string>> = {
  exact_match: 'exact match of the expected answer',
  f1: 'F1: word overlap with the expected answer',
  pass_at_k: 'pass@k: the code passes the tests',
  llm_judge: 'graded by a judge model',
};
export function scoringMethodLabel(method: string): string {
  return SCORING_METHOD_LABELS[method] ?? method;
}

const AGGREGATION_LABELS: Readonly<Record<string, string>> = {
  weighted_mean: 'weighted mean',
  mean: 'mean',
  min: 'lowest task',
  max: 'highest task',
};
export function aggregationLabel(aggregation: string): string {
  return AGGREGATION_LABELS[aggregation] ?? aggregation;
}

/** A run-config setting's name as people say it ('maxNewTokens' -> 'Max new tokens'). */
const RUN_CONFIG_LABELS: Readonly<Record<string, string>> = {
  temperature: 'Temperature',
  topP: 'Top p',
  fewShot: 'Examples in the prompt (few-shot)',
  nShots: 'Examples in the prompt (few-shot)',
  maxNewTokens: 'Max new tokens',
  seed: 'Seed',
  concurrency: 'Items sent at once',
};
export function settingLabel(name: string): string {
  if (RUN_CONFIG_LABELS[name]) return RUN_CONFIG_LABELS[name];
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A setting's value as text: lists joined, objects as "name: value" pairs, nothing as "—". */
export function settingValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map(settingValue).join(', ');
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => `${settingLabel(key)}: ${settingValue(item)}`)
      .join('; ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}
