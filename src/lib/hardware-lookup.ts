/**
 * Matching free-text hardware names against the canonical catalogue
 * (src/data/hardware-catalogue.ts) and the memory bandwidth that bounds single-stream decode.
 *
 * Matching is exact after normalisation (canonical name, alias, or a GeForce/Radeon name
 * without its RTX/GTX/RX prefix): never a fuzzy guess between models, so '4070' is the
 * RTX 4070 and never the 4070 Ti. All indexes are built once at module load.
 *
 * Two readings of the same hardware:
 * - `findGpu` / `findUnifiedChip` / `memoryBandwidthOf`: when a name or memory size leaves
 *   the bandwidth ambiguous (memory size unknown or between two configurations, a chip sold
 *   on two bins, a bare 'A100' that may be PCIe or SXM) the LOWER bandwidth, and for several
 *   cards the slowest card: the figure the hardware surely reaches.
 * - `memoryBandwidthUpperBoundOf`: the HIGHER reading of every ambiguity, summed over all
 *   cards: what the hardware could at most stream. This is the input for a plausibility
 *   roofline that flags runs ABOVE the bound (src/lib/roofline.ts), whose bound must err
 *   high; the lower reading there would flag honest runs.
 */
import {
  cpus,
  gpus,
  unifiedChips,
  type CpuSpec,
  type GpuSpec,
  type UnifiedChipSpec,
} from '../data/hardware-catalogue.ts';

/** Vendor and brand words that do not tell models apart. */
const DROPPED_WORDS = new Set(['nvidia', 'geforce', 'amd', 'radeon', 'intel', 'arc', 'apple', 'tesla']);

/** GeForce / Radeon series prefixes a user may leave out ('4090' for 'RTX 4090'). */
const SERIES_PREFIXES = new Set(['rtx', 'gtx', 'rx']);

/**
 * Lower-case; drop '(TM)', '(R)', punctuation, vendor/brand words (NVIDIA, GeForce, AMD,
 * Radeon, Intel, Arc, Apple, Tesla) and extra spaces; split letters from digits so 'rtx4090'
 * and 'RTX 4090' agree. '+' is kept as the word 'plus' because it names a different product
 * ('Ryzen AI Max+ 395', 'Xeon Platinum 8480+').
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
  return { key: stripped.split(' ').filter(Boolean).join(' '), memoryGb };
}

/** Reported sizes drift from marketing sizes (24564 MiB = 23.99 GB, 81251 MiB = 79.3 GiB). */
function sameMemorySize(reported: number, catalogued: number): boolean {
  return Math.abs(reported - catalogued) <= Math.max(0.5, catalogued * 0.05);
}

function buildIndex<T extends { name: string; aliases?: string[] }>(specs: readonly T[]): Map<string, T> {
  const index = new Map<string, T>();
  for (const spec of specs) {
    for (const text of [spec.name, ...(spec.aliases ?? [])]) {
      const key = normaliseHardwareName(text);
      // Duplicates are a catalogue error (the unit tests reject them); the first entry wins.
      if (key !== '' && !index.has(key)) index.set(key, spec);
    }
  }
  return index;
}

const gpuIndex = buildIndex(gpus);
addSeriesShorthands(gpuIndex);
const chipIndex = buildIndex(unifiedChips);
const cpuIndex = buildIndex(cpus);

/** Index 'rtx 4090' also as '4090' unless that shorthand would be ambiguous or taken. */
function addSeriesShorthands(index: Map<string, GpuSpec>): void {
  const shorthands = new Map<string, GpuSpec | null>();
  for (const [key, spec] of index) {
    const [first, ...rest] = key.split(' ');
    if (first === undefined || !SERIES_PREFIXES.has(first) || !/^\d/.test(rest[0] ?? '')) continue;
    const shorthand = rest.join(' ');
    const seen = shorthands.get(shorthand);
    shorthands.set(shorthand, seen === undefined || seen === spec ? spec : null);
  }
  for (const [shorthand, spec] of shorthands) {
    if (spec && !index.has(shorthand)) index.set(shorthand, spec);
  }
}

/** Exact key, else the key with memory sizes removed (the size becomes the memory hint). */
function lookup<T>(
  index: Map<string, T>,
  key: string,
): { spec: T; key: string; memoryHint: number | undefined } | null {
  const exact = index.get(key);
  if (exact) return { spec: exact, key, memoryHint: undefined };
  const split = splitMemoryFromName(key);
  if (split.key === key) return null;
  const spec = index.get(split.key);
  return spec ? { spec, key: split.key, memoryHint: split.memoryGb } : null;
}

/**
 * Bare names that cards with different bandwidth are sold under (form factor or memory type
 * not in the name). The first name is what the bare name finds (the lower reading); the
 * upper bound considers them all.
 */
const SHARED_GPU_NAMES: readonly { bare: string; names: readonly string[] }[] = [
  { bare: 'A100', names: ['NVIDIA A100 PCIe', 'NVIDIA A100 SXM'] },
  { bare: 'H100', names: ['NVIDIA H100 PCIe', 'NVIDIA H100 SXM'] },
  { bare: 'RTX 3060 Ti', names: ['NVIDIA GeForce RTX 3060 Ti', 'NVIDIA GeForce RTX 3060 Ti GDDR6X'] },
];

const sharedGpuKeys = new Map<string, GpuSpec[]>();
for (const { bare, names } of SHARED_GPU_NAMES) {
  const specs = names.map((name) => gpus.find((spec) => spec.name === name)).filter((spec) => spec !== undefined);
  const key = normaliseHardwareName(bare);
  const [first, ...rest] = key.split(' ');
  sharedGpuKeys.set(key, specs);
  if (first !== undefined && SERIES_PREFIXES.has(first)) sharedGpuKeys.set(rest.join(' '), specs);
}

type Reading = 'lower' | 'upper';

function pick(values: number[], reading: Reading): number {
  return reading === 'lower' ? Math.min(...values) : Math.max(...values);
}

function gpuBandwidth(spec: GpuSpec, vramGb: number | undefined, reading: Reading = 'lower'): number {
  if (!spec.variants || spec.variants.length === 0) return spec.bandwidthGBs;
  const matching = vramGb === undefined ? [] : spec.variants.filter((v) => sameMemorySize(vramGb, v.vramGb));
  const candidates = matching.length > 0 ? matching : spec.variants;
  return pick(candidates.map((v) => v.bandwidthGBs), reading);
}

/** The highest bandwidth a card of this name and size can have, or null when unknown. */
function gpuUpperBandwidth(name: string, vramGb: number | undefined): number | null {
  const found = lookup(gpuIndex, normaliseHardwareName(name));
  if (!found) return null;
  const memory = validMemory(vramGb) ?? found.memoryHint;
  const specs = sharedGpuKeys.get(found.key) ?? [found.spec];
  return Math.max(...specs.map((spec) => gpuBandwidth(spec, memory, 'upper')));
}

/**
 * A GPU by canonical name or alias. With `vramGb` (per card) the matching memory variant's
 * bandwidth; without it, or when no variant matches, the lowest variant's. A memory size in
 * the name ('A100 80GB') is used when `vramGb` is not given.
 */
export function findGpu(name: string, vramGb?: number): { spec: GpuSpec; bandwidthGBs: number } | null {
  const found = lookup(gpuIndex, normaliseHardwareName(name));
  if (!found) return null;
  return { spec: found.spec, bandwidthGBs: gpuBandwidth(found.spec, validMemory(vramGb) ?? found.memoryHint) };
}

function chipBandwidth(spec: UnifiedChipSpec, memoryGb: number | undefined, reading: Reading = 'lower'): number {
  if (!spec.variants || spec.variants.length === 0) return spec.bandwidthGBs;
  const matching =
    memoryGb === undefined ? [] : spec.variants.filter((v) => v.memoryGb.some((size) => sameMemorySize(memoryGb, size)));
  const candidates = matching.length > 0 ? matching : spec.variants;
  return pick(candidates.map((v) => v.bandwidthGBs), reading);
}

function chipKey(vendor: string, family: string, variant: string): string {
  return normaliseHardwareName(`${vendor} ${family} ${variant}`)
    .split(' ')
    .filter((word) => word !== 'base')
    .join(' ');
}

/**
 * A unified-memory chip from the three submitted fields, case-insensitive. The fields are
 * joined before matching, so any split of the name works ('M4' + 'Max', 'M4 Max' + '');
 * a variant of 'Base' or '' means the base chip. With `memoryGb` the bin that sells that
 * size (M3 Max 36 GB -> 300 GB/s, 128 GB -> 400 GB/s); unknown or ambiguous -> the lower.
 */
export function findUnifiedChip(
  vendor: string,
  family: string,
  variant: string,
  memoryGb?: number,
): { spec: UnifiedChipSpec; bandwidthGBs: number } | null {
  const found = lookup(chipIndex, chipKey(vendor, family, variant));
  if (!found) return null;
  return { spec: found.spec, bandwidthGBs: chipBandwidth(found.spec, validMemory(memoryGb) ?? found.memoryHint) };
}

/**
 * Strip what OS tools add around a CPU model: '13th Gen Intel(R) Core(TM) i9-13900K',
 * 'AMD Ryzen 9 7950X 16-Core Processor', '... CPU @ 2.30GHz', '... w/ Radeon 890M Graphics'.
 */
function cleanCpuKey(name: string): string {
  const withoutGraphics = name.replace(/\s+(?:w\/|with)\s.*$/i, '');
  return normaliseHardwareName(withoutGraphics)
    .replace(/(?:^| )\d+ (?:st|nd|rd|th) gen(?:eration)?(?= |$)/g, ' ')
    .replace(/(?:^| )\d+ cores?(?= |$)/g, ' ')
    .replace(/(?:^| )\d+(?: \d+)? ghz(?= |$)/g, ' ')
    .replace(/(?:^| )(?:processor|cpu)(?= |$)/g, ' ')
    .split(' ')
    .filter(Boolean)
    .join(' ');
}

/** A CPU by canonical name or alias, with or without vendor prefix and OS decorations. */
export function findCpu(name: string): { spec: CpuSpec; bandwidthGBs: number } | null {
  const spec = cpuIndex.get(normaliseHardwareName(name)) ?? cpuIndex.get(cleanCpuKey(name));
  return spec ? { spec, bandwidthGBs: spec.bandwidthGBs } : null;
}

function validMemory(value: number | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

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

/**
 * Memory bandwidth (GB/s) of ONE device, the bound on single-stream decode, or null when
 * the hardware is not in the catalogue.
 * - DISCRETE_GPU: one card's bandwidth, never multiplied by the card count: with layers
 *   split across cards the cards run one after another, each streaming its own share. With
 *   several models of card (`gpus` slots) it is the slowest card's bandwidth, the
 *   conservative bound; any unknown slot makes the whole answer null. For a homogeneous
 *   profile `vramGb` is per card; for a heterogeneous one (where the parent `vramGb` is the
 *   total) only the slots' per-card sizes are used.
 * - UNIFIED: the chip (bin chosen by `unifiedMemoryGb`). CPU_ONLY: the CPU's socket peak.
 */
export function memoryBandwidthOf(hardware: HardwareForBandwidth): number | null {
  switch (hardware.hwClass) {
    case 'DISCRETE_GPU': {
      if (hardware.gpus && hardware.gpus.length > 0) {
        let slowest: number | null = null;
        for (const slot of hardware.gpus) {
          const found = findGpu(slot.gpuName, slot.vramGb);
          if (!found) return null;
          slowest = slowest === null ? found.bandwidthGBs : Math.min(slowest, found.bandwidthGBs);
        }
        return slowest;
      }
      if (hardware.isHeterogeneousGpu || !hardware.gpuName) return null;
      return findGpu(hardware.gpuName, hardware.vramGb)?.bandwidthGBs ?? null;
    }
    case 'UNIFIED': {
      if (!hardware.chipFamily) return null;
      return (
        findUnifiedChip(
          hardware.chipVendor ?? '',
          hardware.chipFamily,
          hardware.chipVariant ?? '',
          hardware.unifiedMemoryGb,
        )?.bandwidthGBs ?? null
      );
    }
    case 'CPU_ONLY':
      return hardware.cpu ? (findCpu(hardware.cpu)?.bandwidthGBs ?? null) : null;
    default:
      return null;
  }
}

/**
 * The most memory bandwidth (GB/s) the weights could be streamed from, summed over all
 * devices, or null when any device is unknown: the input of a roofline that must err high.
 * Every ambiguity takes the higher reading (memory size unknown or between configurations,
 * chip bin, a bare 'A100' / 'H100' counted as SXM, 'RTX 3060 Ti' as the GDDR6X card).
 * - DISCRETE_GPU: sum over cards (`gpuCount`, or each slot's `count`) of each card's bandwidth,
 *   the bound for tensor-parallel splits (a layer split is slower, never faster).
 * - UNIFIED: the chip. CPU_ONLY: one socket's theoretical peak at the officially supported
 *   memory speed (the schema does not record a socket count; a dual-socket server or
 *   overclocked memory can exceed it).
 */
export function memoryBandwidthUpperBoundOf(hardware: HardwareForBandwidth): number | null {
  switch (hardware.hwClass) {
    case 'DISCRETE_GPU': {
      const slots =
        hardware.gpus && hardware.gpus.length > 0
          ? hardware.gpus
          : hardware.gpuName && !hardware.isHeterogeneousGpu
            ? [{ gpuName: hardware.gpuName, count: hardware.gpuCount ?? 1, vramGb: hardware.vramGb }]
            : [];
      if (slots.length === 0) return null;
      let total = 0;
      for (const slot of slots) {
        const perCard = gpuUpperBandwidth(slot.gpuName, slot.vramGb);
        const count = Number.isInteger(slot.count) && slot.count > 0 ? slot.count : 1;
        if (perCard === null) return null;
        total += perCard * count;
      }
      return total;
    }
    case 'UNIFIED': {
      if (!hardware.chipFamily) return null;
      const found = lookup(chipIndex, chipKey(hardware.chipVendor ?? '', hardware.chipFamily, hardware.chipVariant ?? ''));
      if (!found) return null;
      return chipBandwidth(found.spec, validMemory(hardware.unifiedMemoryGb) ?? found.memoryHint, 'upper');
    }
    case 'CPU_ONLY':
      return hardware.cpu ? (findCpu(hardware.cpu)?.bandwidthGBs ?? null) : null;
    default:
      return null;
  }
}

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

const canonicalNames = new Set(
  [...sortedNames.gpus, ...sortedNames.unifiedChips, ...sortedNames.cpus].map(canonicalKey),
);

/** True for an exact canonical GPU / chip / CPU name (case-insensitive, trimmed); not aliases. */
export function isCanonicalComponentName(name: string): boolean {
  return canonicalNames.has(canonicalKey(name));
}
