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
import { cpus, gpus, sharedNames, unifiedChips, type CpuSpec, type GpuSpec, type UnifiedChipSpec } from '../data/hardware-catalogue.ts';

/** Vendor and brand words that do not tell models apart. */
const DROPPED_WORDS = new Set(['nvidia', 'geforce', 'amd', 'radeon', 'intel', 'arc', 'apple', 'tesla', 'aws', 'qualcomm']);

/** GeForce / Radeon series prefixes a user may leave out ('4090' for 'RTX 4090'). */
const SERIES_PREFIXES = new Set(['rtx', 'gtx', 'rx']);

/**
 * Lower-case; drop '(TM)', '(R)', punctuation, vendor/brand words (NVIDIA, GeForce, AMD,
 * Radeon, Intel, Arc, Apple, Tesla, AWS, Qualcomm) and extra spaces; split letters from
 * digits so 'rtx4090' and 'RTX 4090' agree. '+' is kept as the word 'plus' because it names a
 * different product ('Ryzen AI Max+ 395', 'Xeon Platinum 8480+').
 */
export function normaliseHardwareName(name: string): string {
  return name
    .toLowerCase()
    .replace(/\((?:tm|r|c)\)|[™®©]/g, ' ')
    .replace(/\+/g, ' plus ')
    .replace(/[^a-z0-9]+/g, ' ')
    .replace(/([a-z])(\d)/g, '$1 $2')
    .replace(/(\d)([a-z])/g, '$1 $2')
    .split(' ')
    .filter((word) => word !== '' && !DROPPED_WORDS.has(word))
    .join(' ');
}

/** A memory size written into a name ('RTX 3060 12GB', 'A100-SXM4-80GB'), normalised form. */
const MEMORY_IN_NAME = /(?:^| )(\d+(?:\.\d+)?) gb(?= |$)/g;

/** The normalised name without memory sizes, and the first size found. */
function splitMemoryFromName(key: string): { key: string; memoryGb: number | undefined } {
  let memoryGb: number | undefined;
  const stripped = key.replace(MEMORY_IN_NAME, (_match, size: string) => {
    memoryGb ??= Number(size);
    return ' ';
  });
  return { key: squash(stripped), memoryGb };
}

function squash(key: string): string {
  return key.split(' ').filter(Boolean).join(' ');
}

/** Reported sizes drift from marketing sizes (24564 MiB = 23.99 GB, 81251 MiB = 79.3 GiB). */
function sameMemorySize(reported: number, catalogued: number): boolean {
  return Math.abs(reported - catalogued) <= Math.max(0.5, catalogued * 0.05);
}

// ---------------------------------------------------------------------------------------
// What people write around a name
// ---------------------------------------------------------------------------------------

/** Core counts read from a name: 'M3 Max 16-core CPU 40-core GPU', 'M2 Ultra 76-Core GPU'. */
interface CoreCounts {
  cpu: number[];
  gpu: number[];
  /** Counts without 'CPU' / 'GPU' ('M3 Max 40-core'). */
  either: number[];
}

const CORE_COUNT = /(?:^| )(\d+) (?:cores?|c)(?: (cpu|gpu))?(?= |$)|(?:^| )(\d+) (cpu|gpu) cores?(?= |$)/g;

function coreCountsIn(key: string): CoreCounts {
  const counts: CoreCounts = { cpu: [], gpu: [], either: [] };
  for (const match of key.matchAll(CORE_COUNT)) {
    const count = Number(match[1] ?? match[3]);
    const unit = match[2] ?? match[4];
    (unit === 'cpu' ? counts.cpu : unit === 'gpu' ? counts.gpu : counts.either).push(count);
  }
  return counts;
}

/** Words that never tell hardware apart, as whole-word patterns on the normalised name. */
const NOISE = new RegExp(
  `(?<=^| )(?:${[
    // Memory types and sizes that are not the memory ('RTX 5090 32 GB GDDR7', 'A100 HBM2e').
    '(?:g|lp)?ddr \\d(?: x)?(?: \\d{4,5})?',
    'hbm \\d(?: e)?',
    'ecc',
    'unified memory',
    'memory',
    'vram',
    'ram',
    'ssd',
    '\\d+ tb',
    // Mac models ('MacBook Pro 14 M3 Max', 'Mac Studio (M3 Ultra 512GB)'); a screen size after one.
    '(?:macbook (?:pro|air)|macbook|mac (?:studio|mini|pro)|imac|mac)(?: (?:1[3-6]|2[47]))?(?: inch| in)?',
    '20[12]\\d',
    // Generic words and CPU decorations ('13th Gen', 'CPU @ 2.30GHz').
    'graphics',
    'gpu',
    'cpu',
    'processor',
    'soc',
    'chip',
    'silicon',
    'apu',
    'igpu',
    'founders edition',
    'with',
    'design',
    'mainboard',
    'motherboard',
    'developer kit',
    'dev kit',
    '\\d+ (?:st|nd|rd|th) gen(?:eration)?',
    '\\d+(?: \\d+)? ghz',
    // Backends and drivers llama.cpp prints after the device ('(RADV NAVI31)', '(NVIDIA)').
    'radv',
    'anv',
    'nvk',
    'mesa',
    'amdvlk',
    'proprietary',
    'open source',
    'driver',
    'corporation',
    'vulkan',
    'cuda',
    'rocm',
    'metal',
    'sycl',
    'hip',
    'opencl',
  ].join('|')})(?= |$)`,
  'g',
);

/** Words that make a GeForce number the laptop GPU, and how the catalogue spells it. */
const LAPTOP_WORDS = /(?<=^| )(?:laptop gpu|laptop|mobile|mobility|notebook)(?= |$)/g;
const LAPTOP_SUFFIX = ' laptop gpu';
const GEFORCE_NUMBER = /^(?:(?:rtx|gtx) )?\d{4}(?= |$)/;

/**
 * The name with what people write around it set aside: core counts, memory types, Mac
 * models, driver tags, generic words; and whether it says laptop ('Laptop' / 'Mobile', and
 * 'Max-Q' / a trailing 'M' after a GeForce number). Memory sizes stay (the lookup reads them).
 */
function cleanKey(key: string): { key: string; laptop: boolean } {
  let laptop = false;
  let text = key.replace(CORE_COUNT, ' ').replace(LAPTOP_WORDS, () => {
    laptop = true;
    return ' ';
  });
  if (GEFORCE_NUMBER.test(squash(text))) {
    text = text.replace(/(?<=^| )max q(?= |$)/g, () => {
      laptop = true;
      return ' ';
    });
    text = squash(text).replace(/^((?:(?:rtx|gtx) )?\d{4}(?: ti| super)?) m(?= |$)/, (_match, model: string) => {
      laptop = true;
      return model;
    });
  }
  return { key: squash(text.replace(NOISE, ' ')), laptop };
}

/**
 * The parts of a text that may each name hardware: outside and inside brackets, and the
 * pieces between ',', '|', ';', ':', '=', '@', ' / ', ' w/ ' and ' with ' (llama.cpp device
 * lines such as 'ggml_vulkan: 0 = AMD Radeon RX 7900 XTX (RADV NAVI31) (radv) | uma: 0',
 * 'CPU w/ iGPU', 'Machine (Chip, memory)').
 */
function partsOf(text: string): string[] {
  const plain = text.replace(/\((?:tm|r|c)\)|[™®©]/gi, ' ');
  const outside = plain.replace(/\([^)]*\)|\[[^\]]*\]/g, ' ');
  const inside = [...plain.matchAll(/\(([^)]*)\)|\[([^\]]*)\]/g)].map((match) => match[1] ?? match[2] ?? '');
  const parts = [outside, ...inside].flatMap((part) => part.split(/[,|;:=@]|\s\/\s|\s(?:w\/|with)\s/i));
  return [...new Set(parts.map((part) => part.trim()).filter((part) => part !== '' && part !== text.trim()))];
}

// ---------------------------------------------------------------------------------------
// The index
// ---------------------------------------------------------------------------------------

type Entry = { kind: 'gpu'; spec: GpuSpec } | { kind: 'chip'; spec: UnifiedChipSpec } | { kind: 'cpu'; spec: CpuSpec };
type Kind = Entry['kind'];

const entries: Entry[] = [
  ...gpus.map((spec) => ({ kind: 'gpu' as const, spec })),
  ...unifiedChips.map((spec) => ({ kind: 'chip' as const, spec })),
  ...cpus.map((spec) => ({ kind: 'cpu' as const, spec })),
];

/** Normalised name -> the products it names (one, or the members of a shared name). */
const index = buildIndex();

function buildIndex(): Map<string, Entry[]> {
  const byKey = new Map<string, Entry[]>();
  const byName = new Map(entries.map((entry) => [entry.spec.name, entry]));
  for (const entry of entries) {
    for (const text of [entry.spec.name, ...(entry.spec.aliases ?? [])]) {
      const key = normaliseHardwareName(text);
      // Duplicates are a catalogue error (the unit tests reject them); the first entry wins.
      if (key !== '' && !byKey.has(key)) byKey.set(key, [entry]);
    }
  }
  // A shared name replaces a member's own name of the same spelling (bare 'RTX 3060 Ti').
  for (const shared of sharedNames) {
    byKey.set(
      normaliseHardwareName(shared.name),
      shared.members.map((name) => byName.get(name)).filter((entry) => entry !== undefined),
    );
  }
  addShorthands(byKey);
  return byKey;
}

/**
 * Index each name also by its shorthands, unless that would be ambiguous within a kind or the
 * shorthand is itself a name: GeForce/Radeon names without 'RTX'/'GTX'/'RX' ('4090'), CPU and
 * chip names from a model number on ('7950 x', 'i 9 13900 k', '258 v', 'n 100'; never from a
 * digit right after a single letter, so 'N100' gives no '100'). A shorthand naming a CPU of
 * one model and a GPU of another ('7600') is kept for both; the hardware class picks one.
 */
function addShorthands(byKey: Map<string, Entry[]>): void {
  const found = new Map<string, Map<Kind, Entry[] | null>>();
  const offer = (shorthand: string, kind: Kind, target: Entry[]) => {
    if (byKey.has(shorthand)) return;
    const perKind = found.get(shorthand) ?? new Map<Kind, Entry[] | null>();
    const seen = perKind.get(kind);
    perKind.set(kind, seen === undefined || seen === target ? target : null);
    found.set(shorthand, perKind);
  };
  for (const [key, target] of byKey) {
    const kinds = new Set(target.map((entry) => entry.kind));
    const words = key.split(' ');
    for (const kind of kinds) {
      if (kind === 'gpu') {
        if (SERIES_PREFIXES.has(words[0] ?? '') && /^\d/.test(words[1] ?? '')) offer(words.slice(1).join(' '), kind, target);
        continue;
      }
      if (target.length > 1) continue; // a shared name ('gfx1151') gives no bare number
      for (let start = 1; start < words.length; start += 1) {
        const rest = words.slice(start);
        if (/^[a-z]$/.test(words[start - 1] ?? '') || !rest.some((word) => /^\d{3,}$/.test(word))) continue;
        offer(rest.join(' '), kind, target);
      }
    }
  }
  for (const [shorthand, perKind] of found) {
    const usable = [...perKind.values()].filter((target) => target !== null).flat();
    if (usable.length > 0) byKey.set(shorthand, usable);
  }
}

// ---------------------------------------------------------------------------------------
// Resolving a text
// ---------------------------------------------------------------------------------------

interface Resolved {
  /** One product, or the members of a shared name still possible. */
  entries: Entry[];
  /** A memory size written in the text. */
  memoryGb: number | undefined;
  cores: CoreCounts;
}

/** The key's products of the allowed kinds: as is, else with memory sizes set aside. */
function lookupKey(key: string, kinds: readonly Kind[]): { entries: Entry[]; memoryGb: number | undefined } | null {
  const allowed = (key: string) => (index.get(key) ?? []).filter((entry) => kinds.includes(entry.kind));
  const exact = allowed(key);
  if (exact.length > 0) return { entries: exact, memoryGb: undefined };
  const split = splitMemoryFromName(key);
  if (split.key === key) return null;
  const stripped = allowed(split.key);
  return stripped.length > 0 ? { entries: stripped, memoryGb: split.memoryGb } : null;
}

/**
 * A text's products: as written, else with its surroundings set aside, else (`tails`) by its
 * last words. A text that says laptop names a GPU only as the catalogue's 'Laptop GPU' (never
 * the desktop card), while a chip or CPU name keeps its meaning ('Ryzen AI 9 HX 370 laptop').
 */
function lookupText(text: string, kinds: readonly Kind[], tails: boolean) {
  const key = normaliseHardwareName(text);
  if (key === '') return null;
  const exact = lookupKey(key, kinds);
  if (exact) return exact;
  const cleaned = cleanKey(key);
  const readings = cleaned.laptop
    ? [
        { key: `${cleaned.key}${LAPTOP_SUFFIX}`, kinds },
        { key: cleaned.key, kinds: kinds.filter((kind) => kind !== 'gpu') },
      ]
    : [{ key: cleaned.key, kinds }];
  for (const reading of readings) {
    const found = lookupKey(reading.key, reading.kinds) ?? (tails ? lookupAfterLeadingWords(reading.key, reading.kinds) : null);
    if (found) return found;
  }
  return null;
}

/**
 * Words before a name that do not change the product (a board partner, a machine, a line
 * word people add or leave out: 'Sapphire Pulse RX 7900 XT', 'GMKtec EVO-X2 Ryzen AI Max+
 * 395', 'Ryzen 7950X' for the Ryzen 9 7950X): the longest tail that is a name with a model
 * number of three or more digits ('Orange Pi 5' is never the 'Pi 5'). Words after a name are
 * never dropped: they tell products apart ('RTX 4090 D', 'RX 6800M').
 */
function lookupAfterLeadingWords(key: string, kinds: readonly Kind[]) {
  const words = key.split(' ');
  for (let start = 1; start < words.length; start += 1) {
    const tail = words.slice(start);
    if (!tail.some((word) => /^\d{3,}$/.test(word))) return null;
    const found = lookupKey(tail.join(' '), kinds);
    if (found) return found;
  }
  return null;
}

/**
 * The products a text names: the whole text, else the products every naming part agrees on
 * (parts that name nothing are ignored; parts that disagree leave nothing, so null). Leading
 * words are dropped only within one part, never across a separator ('8700G w/ Radeon 780M'
 * is not the '780M').
 */
function resolve(text: string, kinds: readonly Kind[]): Resolved | null {
  const key = normaliseHardwareName(text);
  const cores = coreCountsIn(key);
  const parts = partsOf(text);
  const whole = lookupText(text, kinds, parts.length === 0);
  if (whole) return { ...whole, cores };
  // 'RTX 2070 with Max-Q Design': no part may be read as a desktop card.
  const laptop = cleanKey(key).laptop;
  let agreed: Entry[] | null = null;
  let memoryGb: number | undefined;
  for (const part of parts) {
    const found = lookupText(part, kinds, true);
    if (!found) continue;
    const named = laptop ? found.entries.filter((entry) => entry.kind !== 'gpu' || entry.spec.segment === 'laptop') : found.entries;
    agreed = agreed === null ? named : agreed.filter((entry) => named.some((other) => other.spec === entry.spec));
    if (agreed.length === 0) return null;
    memoryGb ??= found.memoryGb;
  }
  if (agreed === null) return null;
  return { entries: agreed, memoryGb: memoryGb ?? splitMemoryFromName(key).memoryGb, cores };
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
  const first = found?.entries[0];
  if (!found || first?.kind !== 'gpu') return null;
  return { spec: first.spec, bandwidthGBs: bandwidthOf(found, { vramGb }, 'lower') };
}

/** The fields of a unified chip joined into one text; a variant of 'Base' means no tier. */
function chipText(vendor: string, family: string, variant: string): string {
  return `${vendor} ${family} ${variant}`.replace(/(?<=^|\s)base(?=\s|$)/gi, ' ');
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
  const first = found?.entries[0];
  if (!found || first?.kind !== 'chip') return null;
  return { spec: first.spec, bandwidthGBs: bandwidthOf(found, { chipMemoryGb: memoryGb }, 'lower') };
}

/**
 * A CPU by canonical name, alias, model number, with or without vendor prefix and OS
 * decorations ('13th Gen Intel(R) Core(TM) i9-13900K', 'AMD EPYC 7763 64-Core Processor').
 */
export function findCpu(name: string): { spec: CpuSpec; bandwidthGBs: number } | null {
  const found = resolve(name, ['cpu']);
  const first = found?.entries[0];
  if (!found || first?.kind !== 'cpu') return null;
  return { spec: first.spec, bandwidthGBs: bandwidthOf(found, {}, 'lower') };
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
  const found = resolve(gpuName, ['gpu', 'chip']);
  // A chip's memory size is its system memory, never the VRAM share the driver reports.
  return found ? bandwidthOf(found, { vramGb }, reading) : null;
}

/** The device of a UNIFIED or CPU_ONLY profile, whatever kind of name it was given. */
function deviceBandwidth(hardware: HardwareForBandwidth, reading: Reading): number | null {
  if (hardware.hwClass === 'UNIFIED') {
    if (!hardware.chipFamily) return null;
    const found = resolve(chipText(hardware.chipVendor ?? '', hardware.chipFamily, hardware.chipVariant ?? ''), ['chip', 'cpu']);
    return found ? bandwidthOf(found, { chipMemoryGb: hardware.unifiedMemoryGb }, reading) : null;
  }
  if (hardware.hwClass === 'CPU_ONLY') {
    const found = hardware.cpu ? resolve(hardware.cpu, ['cpu', 'chip']) : null;
    return found ? bandwidthOf(found, {}, reading) : null;
  }
  return null;
}

/** A card count written into a GPU name: '2x RTX 3090', '4 x A100', 'RTX 4090 x2'. */
const CARDS_IN_NAME = /^\s*(\d{1,2})\s*[x×]\s+|\s+[x×]\s*(\d{1,2})\s*$/i;

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
  const cards = cardsOf(hardware);
  if (!cards) return null;
  const perCard: number[] = [];
  for (const card of cards) {
    const bandwidth = cardBandwidth(card.gpuName, card.vramGb, 'upper');
    if (bandwidth === null) return null;
    const count = Number.isInteger(card.count) && card.count > 0 ? card.count : 1;
    for (let i = 0; i < count; i += 1) perCard.push(bandwidth);
  }
  const streaming = parallelism ? cardsStreamingAtOnce(parallelism, perCard.length) : perCard.length;
  return perCard
    .sort((a, b) => b - a)
    .slice(0, streaming)
    .reduce((sum, bandwidth) => sum + bandwidth, 0);
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
