/**
 * Matching free-text hardware names against the canonical catalogue
 * (src/data/hardware-catalogue.ts) and the memory bandwidth that bounds single-stream decode.
 *
 * Matching is exact after normalisation (canonical name, alias, shared name, or a shorthand
 * the catalogue makes unambiguous: a GeForce/Radeon number without its RTX/GTX/RX prefix, a
 * CPU or chip model number without its line): never a fuzzy guess between models, so '4070'
 * is the RTX 4070 and never the 4070 Ti, and a laptop GPU is never the desktop card. What
 * people write around a name (memory size and type, core counts, Mac model, driver tags,
 * llama.cpp's device decorations) is set aside; a text made of several parts
 * ('AMD Radeon Graphics (RADV GFX1151)', 'Ryzen AI Max+ 395 w/ Radeon 8060S', 'Mac Studio
 * (M3 Ultra 512GB)') resolves when the parts that name hardware agree. Any hardware class
 * may carry any kind of name: an integrated GPU given as a discrete gpuName resolves to its
 * chip's memory, a CPU-only run on a unified chip to that chip. Indexes are built once at
 * module load.
 *
 * Two readings of the same hardware:
 * - `findGpu` / `findUnifiedChip` / `findCpu` / `memoryBandwidthOf`: when a name or memory
 *   size leaves the bandwidth ambiguous (memory size unknown or between two configurations,
 *   a chip sold on two bins, a name shared by several products) the LOWER bandwidth, and for
 *   several cards the slowest card: the figure the hardware surely reaches.
 * - `memoryBandwidthUpperBoundOf`: the HIGHER reading of every ambiguity, over the cards that
 *   stream weights at once: what the hardware could at most stream. This is the input for a
 *   plausibility roofline that flags runs ABOVE the bound (src/lib/roofline.ts), whose bound
 *   must err high; the lower reading there would flag honest runs.
 */
import { cpus, gpus, unifiedChips, type CpuSpec, type GpuSpec, type UnifiedChipSpec } from '../data/hardware-catalogue.ts';
import { chipText, resolveName, type CoreCounts, type Kind, type Resolved } from './hardware-names.ts';

export { normaliseHardwareName } from './hardware-names.ts';

const resolve = resolveName;

/** Reported sizes drift from marketing sizes (24564 MiB = 23.99 GB, 81251 MiB = 79.3 GiB). */
function sameMemorySize(reported: number, catalogued: number): boolean {
  return Math.abs(reported - catalogued) <= Math.max(0.5, catalogued * 0.05);
}

// ---------------------------------------------------------------------------------------
// Bandwidth of what was found
// ---------------------------------------------------------------------------------------

type Reading = 'lower' | 'upper';

function pick(values: number[], reading: Reading): number {
  return reading === 'lower' ? Math.min(...values) : Math.max(...values);
}

function gpuBandwidth(spec: GpuSpec, vramGb: number | undefined, reading: Reading): number {
  if (!spec.variants || spec.variants.length === 0) return spec.bandwidthGBs;
  const matching = vramGb === undefined ? [] : spec.variants.filter((v) => sameMemorySize(vramGb, v.vramGb));
  const candidates = matching.length > 0 ? matching : spec.variants;
  return pick(
    candidates.map((v) => v.bandwidthGBs),
    reading,
  );
}

type ChipVariant = NonNullable<UnifiedChipSpec['variants']>[number];

/** Whether a bin has every core count the name gives (null when no count could be checked). */
function binHasCores(variant: ChipVariant, cores: CoreCounts): boolean | null {
  const cpu = variant.cpuCores ?? [];
  const gpu = variant.gpuCores ?? [];
  const checks = [
    ...cores.cpu.map((count) => (cpu.length > 0 ? cpu.includes(count) : null)),
    ...cores.gpu.map((count) => (gpu.length > 0 ? gpu.includes(count) : null)),
    ...cores.either.map((count) => (cpu.length + gpu.length > 0 ? cpu.includes(count) || gpu.includes(count) : null)),
  ].filter((check) => check !== null);
  return checks.length === 0 ? null : checks.every(Boolean);
}

/**
 * The bin a memory size and core counts name (M3 Max 36 GB or 30-core GPU -> 300 GB/s). When
 * they name different bins, both stay possible; when neither names one, every bin does.
 */
function chipBandwidth(spec: UnifiedChipSpec, memoryGb: number | undefined, cores: CoreCounts, reading: Reading): number {
  if (!spec.variants || spec.variants.length === 0) return spec.bandwidthGBs;
  const byMemory = memoryGb === undefined ? [] : spec.variants.filter((v) => v.memoryGb.some((size) => sameMemorySize(memoryGb, size)));
  const byCores = spec.variants.filter((v) => binHasCores(v, cores) === true);
  const both = byMemory.filter((v) => byCores.includes(v));
  const candidates = both.length > 0 ? both : byMemory.length + byCores.length > 0 ? [...byMemory, ...byCores] : spec.variants;
  return pick(
    candidates.map((v) => v.bandwidthGBs),
    reading,
  );
}

/** Memory sizes that may choose a configuration: the card's VRAM for GPUs, system memory for chips. */
interface MemoryHints {
  vramGb?: number;
  chipMemoryGb?: number;
}

function bandwidthOf(found: Resolved, hints: MemoryHints, reading: Reading): number {
  return pick(
    found.entries.map((entry) => {
      switch (entry.kind) {
        case 'gpu':
          return gpuBandwidth(entry.spec, validMemory(hints.vramGb) ?? found.memoryGb, reading);
        case 'chip':
          return chipBandwidth(entry.spec, validMemory(hints.chipMemoryGb) ?? found.memoryGb, found.cores, reading);
        case 'cpu':
          return entry.spec.bandwidthGBs;
      }
    }),
    reading,
  );
}

function validMemory(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

// ---------------------------------------------------------------------------------------
// Lookups by kind
// ---------------------------------------------------------------------------------------

/**
 * A GPU by canonical name, alias or a name as people and tools write it. With `vramGb` (per
 * card) the matching memory variant's bandwidth; without it, or when no variant matches, the
 * lowest variant's. A memory size in the name ('A100 80GB') is used when `vramGb` is not
 * given. A name shared by several cards ('A100') returns the first and the lowest bandwidth.
 */
export function findGpu(name: string, vramGb?: number): { spec: GpuSpec; bandwidthGBs: number } | null {
  const found = resolve(name, ['gpu']);
  const slowest = found && slowestEntry(found, { vramGb });
  if (!found || slowest?.kind !== 'gpu') return null;
  return { spec: slowest.spec, bandwidthGBs: bandwidthOf(found, { vramGb }, 'lower') };
}

/**
 * The product a name stands for when it fits several: the slowest (the first of equals), so
 * a device page never claims more than the hardware surely has. Bounds take the fastest.
 */
function slowestEntry(found: Resolved, hints: MemoryHints): Resolved['entries'][number] | undefined {
  let slowest: { entry: Resolved['entries'][number]; bandwidth: number } | undefined;
  for (const entry of found.entries) {
    const bandwidth = bandwidthOf({ ...found, entries: [entry] }, hints, 'lower');
    if (!slowest || bandwidth < slowest.bandwidth) slowest = { entry, bandwidth };
  }
  return slowest?.entry;
}

/**
 * A unified-memory chip from the three submitted fields, case-insensitive. The fields are
 * joined before matching, so any split of the name works ('M4' + 'Max', 'M4 Max' + '',
 * 'Mac Studio' + 'M3 Ultra 512GB'); a variant of 'Base' or '' means the base chip. With
 * `memoryGb`, or core counts in the name, the bin that sells that size or has those cores
 * (M3 Max 36 GB -> 300 GB/s, 128 GB -> 400 GB/s); unknown or ambiguous -> the lower.
 */
export function findUnifiedChip(
  vendor: string,
  family: string,
  variant: string,
  memoryGb?: number,
): { spec: UnifiedChipSpec; bandwidthGBs: number } | null {
  const found = resolve(chipText(vendor, family, variant), ['chip']);
  const slowest = found && slowestEntry(found, { chipMemoryGb: memoryGb });
  if (!found || slowest?.kind !== 'chip') return null;
  return { spec: slowest.spec, bandwidthGBs: bandwidthOf(found, { chipMemoryGb: memoryGb }, 'lower') };
}

/**
 * A CPU by canonical name, alias, model number, with or without vendor prefix and OS
 * decorations ('13th Gen Intel(R) Core(TM) i9-13900K', 'AMD EPYC 7763 64-Core Processor').
 */
export function findCpu(name: string): { spec: CpuSpec; bandwidthGBs: number } | null {
  const found = resolve(name, ['cpu']);
  const slowest = found && slowestEntry(found, {});
  if (!found || slowest?.kind !== 'cpu') return null;
  return { spec: slowest.spec, bandwidthGBs: bandwidthOf(found, {}, 'lower') };
}

/** The kinds of device each hardware class's name may stand for: the bandwidth path and device naming read them alike. */
const KINDS_OF_CLASS: Record<string, readonly Kind[]> = {
  DISCRETE_GPU: ['gpu', 'chip'],
  UNIFIED: ['chip', 'cpu'],
  CPU_ONLY: ['cpu', 'chip'],
};

/**
 * The catalogue device a profile's name stands for, of any kind its class may carry (an
 * integrated GPU given as a discrete card is its chip; a CPU-only run on a unified chip is
 * that chip), the slowest where the name fits several; null when it names none. For
 * UNIFIED the name is `chipText` of the three fields.
 */
export function findDevice(hwClass: string, name: string): Resolved['entries'][number] | null {
  const kinds = KINDS_OF_CLASS[hwClass];
  const found = kinds && name.trim() !== '' ? resolve(name, kinds) : null;
  return (found && slowestEntry(found, {})) ?? null;
}

// ---------------------------------------------------------------------------------------
// Bandwidth of a hardware profile
// ---------------------------------------------------------------------------------------

export interface HardwareForBandwidth {
  hwClass: string;
  gpuName?: string;
  /** Used by `memoryBandwidthUpperBoundOf` only; default 1. */
  gpuCount?: number;
  vramGb?: number;
  isHeterogeneousGpu?: boolean;
  gpus?: { gpuName: string; count: number; vramGb: number }[];
  chipVendor?: string;
  chipFamily?: string;
  chipVariant?: string;
  unifiedMemoryGb?: number;
  cpu?: string;
}

/** One card of a discrete-GPU profile: a GPU, or an integrated GPU read as its chip's memory. */
function cardBandwidth(gpuName: string, vramGb: number | undefined, reading: Reading): number | null {
  const found = resolve(gpuName, KINDS_OF_CLASS.DISCRETE_GPU!);
  // A chip's memory size is its system memory, never the VRAM share the driver reports.
  return found ? bandwidthOf(found, { vramGb }, reading) : null;
}

/** The device of a UNIFIED or CPU_ONLY profile, whatever kind of name it was given. */
function deviceBandwidth(hardware: HardwareForBandwidth, reading: Reading): number | null {
  if (hardware.hwClass === 'UNIFIED') {
    if (!hardware.chipFamily) return null;
    const found = resolve(chipText(hardware.chipVendor ?? '', hardware.chipFamily, hardware.chipVariant ?? ''), KINDS_OF_CLASS.UNIFIED!);
    return found ? bandwidthOf(found, { chipMemoryGb: hardware.unifiedMemoryGb }, reading) : null;
  }
  if (hardware.hwClass === 'CPU_ONLY') {
    const found = hardware.cpu ? resolve(hardware.cpu, KINDS_OF_CLASS.CPU_ONLY!) : null;
    return found ? bandwidthOf(found, {}, reading) : null;
  }
  return null;
}

/** A card count written into a GPU name: '2x RTX 3090', '4 x A100', '2 * A10G', 'RTX 4090 x2'. */
const CARDS_IN_NAME = /^\s*(\d{1,2})\s*[x×*]\s+|\s+[x×]\s*(\d{1,2})\s*$/i;

/**
 * Each card of a discrete-GPU profile, or null when the profile names no card. A count in
 * the name counts when it is higher than `gpuCount` (the schema's default is 1).
 */
function cardsOf(hardware: HardwareForBandwidth): { gpuName: string; count: number; vramGb: number | undefined }[] | null {
  const slots =
    hardware.gpus && hardware.gpus.length > 0
      ? hardware.gpus
      : hardware.isHeterogeneousGpu || !hardware.gpuName
        ? null
        : [{ gpuName: hardware.gpuName, count: hardware.gpuCount ?? 1, vramGb: hardware.vramGb }];
  return (
    slots?.map((slot) => {
      const match = CARDS_IN_NAME.exec(slot.gpuName);
      if (!match) return slot;
      const named = Number(match[1] ?? match[2]);
      return { ...slot, gpuName: slot.gpuName.replace(CARDS_IN_NAME, ' ').trim(), count: Math.max(slot.count, named) };
    }) ?? null
  );
}

/** Cards of a profile: every slot's count, a count written in the name included (1 for a chip or a CPU, or a profile naming no card). */
export function cardCountOf(hardware: HardwareForBandwidth): number {
  if (hardware.hwClass !== 'DISCRETE_GPU') return 1;
  const cards = cardsOf(hardware);
  return cards ? cards.reduce((sum, card) => sum + (Number.isInteger(card.count) && card.count > 0 ? card.count : 1), 0) : 1;
}

/**
 * Memory bandwidth (GB/s) of ONE device, the bound on single-stream decode, or null when
 * the hardware is not in the catalogue.
 * - DISCRETE_GPU: one card's bandwidth, never multiplied by the card count. With several
 *   models of card (`gpus` slots) it is the slowest card's bandwidth, the conservative
 *   bound; any unknown slot makes the whole answer null. For a homogeneous profile `vramGb`
 *   is per card; for a heterogeneous one (where the parent `vramGb` is the total) only the
 *   slots' per-card sizes are used.
 * - UNIFIED: the chip (bin chosen by `unifiedMemoryGb` or core counts). CPU_ONLY: the CPU's
 *   socket peak, or the chip's when the CPU is a unified chip's.
 */
export function memoryBandwidthOf(hardware: HardwareForBandwidth): number | null {
  if (hardware.hwClass !== 'DISCRETE_GPU') return deviceBandwidth(hardware, 'lower');
  const cards = cardsOf(hardware);
  if (!cards) return null;
  let slowest: number | null = null;
  for (const card of cards) {
    const bandwidth = cardBandwidth(card.gpuName, card.vramGb, 'lower');
    if (bandwidth === null) return null;
    slowest = slowest === null ? bandwidth : Math.min(slowest, bandwidth);
  }
  return slowest;
}

/** How a run spread the model over several cards, as far as the submission tells. */
export interface ParallelismForBandwidth {
  engineName?: string | null;
  /** llama.cpp's build tells its default split (see `layerSplitByDefault`). */
  engineVersion?: string | null;
  engineFlags?: { tensorParallel?: number; pipelineParallel?: number; splitMode?: string } | null;
}

/**
 * Engines that split a model by layers across cards unless told otherwise: Ollama and LM
 * Studio run llama.cpp without a split-mode setting. Other engines need an explicit tensor-
 * or pipeline-parallel size to use several cards (vLLM, SGLang, TensorRT-LLM, LMDeploy),
 * shard by tensors by default (TGI), or offer a tensor-parallel mode the command parser does
 * not read (ExLlama, MLC); when such a run states neither, its cards are all counted: the
 * reading that cannot raise a false alarm.
 */
const LAYER_SPLIT_BY_DEFAULT = new Set(['ollama', 'lmstudio']);

/**
 * llama.cpp split by rows across cards (their bandwidths add up) until January 2024, when
 * `-sm layer` became the default (llama.cpp PR #4606; Ollama issue #2191 reports the change
 * on 2024-01-25). Builds were numbered b1800-b1900 then; from b2000 on the default is
 * surely layer. Published multi-card runs of older builds (4x RTX 4000 Ada at 1.66x one
 * card's bound, 6x RTX 4090 at 1.40x) show a run without a stated build must not be held to
 * one card.
 */
const LLAMA_CPP_LAYER_DEFAULT_BUILD = 2000;

function layerSplitByDefault(engineName: string, engineVersion: string | null | undefined): boolean {
  if (LAYER_SPLIT_BY_DEFAULT.has(engineName)) return true;
  if (engineName !== 'llama.cpp' || !engineVersion) return false;
  // 'b6120', 'version: 6120 (4f3a9c2)', '6120'
  const build = /(?:^|\bb|version:?\s*)(\d{4,6})\b/i.exec(engineVersion.trim());
  return build !== null && Number(build[1]) >= LLAMA_CPP_LAYER_DEFAULT_BUILD;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * How many cards stream weights at the same time in one decode step. With a tensor split
 * (tensor parallel > 1 over min(tp, cards) cards; llama.cpp `-sm row`, or any split mode but
 * 'layer' / 'none') each card streams its slice at once, so their bandwidths add up. With a
 * layer split or pipeline parallelism the cards take turns, so one card's bandwidth bounds
 * the step.
 */
export function cardsStreamingAtOnce(parallelism: ParallelismForBandwidth, cardCount: number): number {
  if (cardCount <= 1) return cardCount;
  const flags = parallelism.engineFlags ?? {};
  const tensorParallel = positiveInteger(flags.tensorParallel);
  if (tensorParallel !== undefined && tensorParallel > 1) return Math.min(tensorParallel, cardCount);
  const splitMode = typeof flags.splitMode === 'string' ? flags.splitMode.trim().toLowerCase() : '';
  if (splitMode === 'layer' || splitMode === 'none') return 1;
  if (splitMode !== '') return cardCount;
  if ((positiveInteger(flags.pipelineParallel) ?? 1) > 1 || tensorParallel === 1) return 1;
  return layerSplitByDefault((parallelism.engineName ?? '').trim().toLowerCase(), parallelism.engineVersion) ? 1 : cardCount;
}

/**
 * The most memory bandwidth (GB/s) the weights could be streamed from, or null when any
 * device is unknown: the input of a roofline that must err high. Every ambiguity takes the
 * higher reading (memory size unknown or between configurations, chip bin, a bare 'A100' /
 * 'H100' counted as SXM, 'RTX 3060 Ti' as the GDDR6X card, a shared name as its fastest
 * member).
 * - DISCRETE_GPU: the sum over the cards that stream at once (`cardsStreamingAtOnce`: all of
 *   them for a tensor split, one for a layer split or pipeline parallelism), taking the
 *   fastest cards. Without `parallelism` every card counts.
 * - UNIFIED: the chip. CPU_ONLY: one socket's theoretical peak at the officially supported
 *   memory speed (the schema does not record a socket count; a dual-socket server or
 *   overclocked memory can exceed it), or the chip's for a unified chip's CPU.
 */
export function memoryBandwidthUpperBoundOf(hardware: HardwareForBandwidth, parallelism?: ParallelismForBandwidth): number | null {
  if (hardware.hwClass !== 'DISCRETE_GPU') return deviceBandwidth(hardware, 'upper');
  return sumOverStreamingCards(hardware, parallelism, (card) => cardBandwidth(card.gpuName, card.vramGb, 'upper'));
}

/**
 * A per-card figure summed over the cards that stream at once, taking the largest cards
 * (`cardsStreamingAtOnce`; every card without `parallelism`), or null when any card's
 * figure is unknown.
 */
function sumOverStreamingCards(
  hardware: HardwareForBandwidth,
  parallelism: ParallelismForBandwidth | undefined,
  figureOf: (card: { gpuName: string; vramGb: number | undefined }) => number | null,
): number | null {
  const cards = cardsOf(hardware);
  if (!cards) return null;
  const perCard: number[] = [];
  for (const card of cards) {
    const figure = figureOf(card);
    if (figure === null) return null;
    const count = Number.isInteger(card.count) && card.count > 0 ? card.count : 1;
    for (let i = 0; i < count; i += 1) perCard.push(figure);
  }
  const streaming = parallelism ? cardsStreamingAtOnce(parallelism, perCard.length) : perCard.length;
  return perCard
    .sort((a, b) => b - a)
    .slice(0, streaming)
    .reduce((sum, figure) => sum + figure, 0);
}

/** The memory sizes a GPU name is sold with (every product it may be), or null when it names none. */
export function gpuMemorySizesOf(name: string): number[] | null {
  const found = resolve(name, ['gpu']);
  if (!found) return null;
  return [...new Set(found.entries.flatMap((entry) => (entry.kind === 'gpu' ? entry.spec.vramGb : [])))];
}

/**
 * Whether a flat multi-card profile's `vramGb` is the total over its cards (DECISIONS.md "Real
 * clients"): it equals the card count times a size the card is sold with, and is no size of
 * the card itself (2x RTX 4090 with 48: a total; 2x RTX 3060 with 12: one card's).
 */
export function isVramTotalOfCards(gpuName: string, gpuCount: number, vramGb: number): boolean {
  if (!Number.isInteger(gpuCount) || gpuCount < 2 || !(vramGb > 0)) return false;
  const sizes = gpuMemorySizesOf(gpuName);
  if (!sizes) return false;
  return !sizes.some((size) => sameMemorySize(vramGb, size)) && sizes.some((size) => sameMemorySize(vramGb, size * gpuCount));
}

// ---------------------------------------------------------------------------------------
// Last-level cache
// ---------------------------------------------------------------------------------------

/** The largest last-level cache (MB) of what a name may be, or null when any candidate's is not catalogued. */
function cacheOf(found: Resolved | null): number | null {
  if (!found) return null;
  const sizes = found.entries.map((entry) => entry.spec.llcMb);
  return sizes.every((size) => typeof size === 'number') ? Math.max(...(sizes as number[])) : null;
}

/**
 * The most last-level cache (MB) the weights could be served from, or null when a device or
 * its cache is not catalogued: the cards that stream at once add theirs up (each holds its
 * slice), a chip or CPU has its own. Every ambiguity takes the larger, so a model small
 * enough to be served from cache is never judged against memory bandwidth.
 */
export function lastLevelCacheUpperBoundOf(hardware: HardwareForBandwidth, parallelism?: ParallelismForBandwidth): number | null {
  if (hardware.hwClass === 'UNIFIED') {
    if (!hardware.chipFamily) return null;
    return cacheOf(resolve(chipText(hardware.chipVendor ?? '', hardware.chipFamily, hardware.chipVariant ?? ''), ['chip', 'cpu']));
  }
  if (hardware.hwClass === 'CPU_ONLY') return hardware.cpu ? cacheOf(resolve(hardware.cpu, ['cpu', 'chip'])) : null;
  return sumOverStreamingCards(hardware, parallelism, (card) => cacheOf(resolve(card.gpuName, ['gpu', 'chip'])));
}

// ---------------------------------------------------------------------------------------
// Canonical names
// ---------------------------------------------------------------------------------------

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Sort order of `hardwareNames()`: case-insensitive, numbers by value ('M2' before 'M10'). */
export function compareHardwareNames(a: string, b: string): number {
  return collator.compare(a, b);
}

const sortedNames = {
  gpus: gpus.map((spec) => spec.name).sort(compareHardwareNames),
  unifiedChips: unifiedChips.map((spec) => spec.name).sort(compareHardwareNames),
  cpus: cpus.map((spec) => spec.name).sort(compareHardwareNames),
};

/** Canonical names for auto-complete and `hardwareCostComponentNames`, each list sorted. */
export function hardwareNames(): { gpus: string[]; unifiedChips: string[]; cpus: string[] } {
  return {
    gpus: [...sortedNames.gpus],
    unifiedChips: [...sortedNames.unifiedChips],
    cpus: [...sortedNames.cpus],
  };
}

function canonicalKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

const canonicalNames = new Set([...sortedNames.gpus, ...sortedNames.unifiedChips, ...sortedNames.cpus].map(canonicalKey));

/** True for an exact canonical GPU / chip / CPU name (case-insensitive, trimmed); not aliases. */
export function isCanonicalComponentName(name: string): boolean {
  return canonicalNames.has(canonicalKey(name));
}
