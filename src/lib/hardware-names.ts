/**
 * Reading a hardware name as people and tools write it (DECISIONS.md "Hardware identity"):
 * the text is cut into words, the decoration around a name is set aside, and the catalogue's
 * names (src/data/hardware-catalogue.ts, read the same way) are looked for as runs of
 * consecutive words in what is left. No alias list: the rules follow how names are written.
 *
 * - Decoration: vendor and brand words (NVIDIA, GeForce, AMD, Radeon, Intel, Apple...),
 *   trademarks, generic words ("Graphics", "GPU", "Processor", "Series", "Edition"), memory
 *   sizes ("24G", "32 GB", read as a hint for the memory bin), clock speeds ("@ 3.00GHz"),
 *   core counts ("16-Core", "40-core GPU", "12P+4E+40GPU", read as the bin they select), Mac
 *   model names ("Mac Studio", "MacBook Pro 14"), llama.cpp's backend and driver tags
 *   ("RADV", "(NVIDIA)", "ggml_vulkan: 0 ="), and cloud instance labels (an instance type
 *   names no device, so such a text stays unknown on purpose).
 * - "Laptop GPU", "Mobile", "Max-Q" and a GeForce number's trailing "M" are one word,
 *   `laptop`, which the catalogue's laptop cards carry: a laptop card is never read as the
 *   desktop card of the same number.
 * - Words repeated across the vendor/family/variant fields count once.
 * - A catalogue name is found where its words occur in a row. Its line words (RTX/GTX/RX, a
 *   CPU's "Ryzen 9" or "Core i9") may be left out when the model number says the rest; a
 *   name without a model number of three or more digits ("M1", "P40", "Pi 5") must start a
 *   part of the text, so it is never read out of the middle of another name ("Orange Pi 5").
 * - A name followed by a word that makes another product of it (its catalogue siblings'
 *   next words, or "Ti", "SUPER", "XT", "laptop"...) is not that name: "RTX 4070 Ti" with no
 *   Ti catalogued is unknown, never the RTX 4070.
 * - Several names in one text (a device line naming chip and iGPU; a machine and its chip)
 *   must agree: the longest readings win and the products they share are the answer; names
 *   that disagree leave the text unknown.
 * A name several products share (a GPU target such as "gfx1100", "A100" without its form
 * factor, a machine sold with several chips) stands for all of them; callers take the slower
 * to name the device and the faster to bound a run, so no guess can raise a false alarm.
 */
import { cpuFamilies } from '../data/cpu-families.ts';
import { mappedEntry } from './hardware-mappings.ts';
import { cpus, gpus, sharedNames, unifiedChips, type CpuSpec, type GpuSpec, type UnifiedChipSpec } from '../data/hardware-catalogue.ts';

export type Entry = { kind: 'gpu'; spec: GpuSpec } | { kind: 'chip'; spec: UnifiedChipSpec } | { kind: 'cpu'; spec: CpuSpec };
export type Kind = Entry['kind'];

/** Core counts read from a name: 'M3 Max 16-core CPU 40-core GPU', 'M1 Pro 8P+2E+16GPU'. */
export interface CoreCounts {
  cpu: number[];
  gpu: number[];
  /** Counts without 'CPU' / 'GPU' ('M3 Max 40-core'). */
  either: number[];
}

/** What a text names: the products every naming part agrees on, with the hints it gives. */
export interface Resolved {
  /** One product, or the members of a shared name still possible. */
  entries: Entry[];
  /** A memory size written in the text. */
  memoryGb: number | undefined;
  cores: CoreCounts;
}

// ---------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------

/** Vendor and brand words that do not tell models apart. */
const VENDOR_WORDS = new Set(['nvidia', 'geforce', 'amd', 'ati', 'radeon', 'intel', 'arc', 'apple', 'tesla', 'aws', 'qualcomm', 'ampere']);

/** Words that never tell hardware apart. */
const GENERIC_WORDS = new Set([
  'graphics',
  'gpu',
  'gpus',
  'cpu',
  'processor',
  'soc',
  'chip',
  'silicon',
  'apu',
  'igpu',
  'dgpu',
  'series',
  'edition',
  'founders',
  'design',
  'with',
  'mainboard',
  'motherboard',
  'core',
  'unified',
  'memory',
  'vram',
  'ram',
  'ecc',
  'ssd',
  'device',
  'corporation',
  'inc',
  'ltd',
  'co',
  'the',
  'and',
  'of',
  // Backends and drivers llama.cpp and other tools print around a device.
  'radv',
  'anv',
  'nvk',
  'mesa',
  'amdvlk',
  'proprietary',
  'driver',
  'open',
  'source',
  'vulkan',
  'cuda',
  'rocm',
  'metal',
  'sycl',
  'hip',
  'opencl',
  'ggml',
  'backend',
  // Words that describe a board or a machine around its chip ('Raspberry Pi 5 Model B Rev 1.0').
  'model',
  'rev',
  'revision',
  'board',
  'kit',
  'module',
  'developer',
  'dev',
  'workstation',
  'server',
]);

/** Words after a name that make another product of it (besides the catalogue's own siblings). */
const PRODUCT_SUFFIXES = new Set(['ti', 'super', 'xt', 'xtx', 'gre', 'laptop', 'max', 'ultra', 'pro', 'plus']);

/** Memory sizes written with a bare 'G' ('24G'); other numbers before a 'G' are model numbers ('5700G'). */
const MEMORY_SIZES_GB = new Set([1, 2, 3, 4, 6, 8, 10, 11, 12, 16, 20, 24, 32, 36, 40, 48, 64, 80, 94, 96, 128, 141, 144, 192, 256, 512]);

/** Lower case, trademarks dropped, '+' as the word 'plus' (it names a product: 'Max+ 395', '8480+'). */
function plainText(text: string): string {
  return text
    .toLowerCase()
    .replace(/\((?:tm|r|c)\)|[™®©]/g, ' ')
    .replace(/\+/g, ' plus ');
}

/** Words of a plain text: letters and digits apart ('rtx4090' = 'rtx 4090'), punctuation gone. */
function wordsOf(plain: string): string[] {
  return plain
    .replace(/[^a-z0-9]+/g, ' ')
    .replace(/([a-z])(\d)/g, '$1 $2')
    .replace(/(\d)([a-z])/g, '$1 $2')
    .split(' ')
    .filter((word) => word !== '');
}

/**
 * Lower-case words without vendor and brand words, trademarks and punctuation: 'NVIDIA
 * GeForce RTX 4090' and 'rtx4090' are both 'rtx 4090'. '+' is kept as the word 'plus'.
 */
export function normaliseHardwareName(name: string): string {
  return wordsOf(plainText(name))
    .filter((word) => !VENDOR_WORDS.has(word))
    .join(' ');
}

// ---------------------------------------------------------------------------------------
// Decoration set aside from the raw text
// ---------------------------------------------------------------------------------------

/** Core counts in every way they are written; each match is removed from the text. */
const CORE_PATTERNS: { pattern: RegExp; read: (match: RegExpMatchArray, counts: CoreCounts) => void }[] = [
  {
    // '8P+2E+16GPU', '12P+4E+40GPU', '4p plus 6e' (after '+' became ' plus ').
    pattern: /\b(\d{1,2})\s*p\s*plus\s*(\d{1,2})\s*e\b(?:\s*plus\s*(\d{1,3})\s*(?:-?\s*cores?\s*)?gpu\b)?/g,
    read: (m, counts) => {
      counts.cpu.push(Number(m[1]) + Number(m[2]));
      if (m[3]) counts.gpu.push(Number(m[3]));
    },
  },
  {
    // '16-core CPU', '40-Core GPU', '16 cores', '40c', '40c GPU'.
    pattern: /\b(\d{1,3})\s*-?\s*(?:cores?|c)\b(?:\s*(cpu|gpu)\b)?/g,
    read: (m, counts) => (m[2] === 'cpu' ? counts.cpu : m[2] === 'gpu' ? counts.gpu : counts.either).push(Number(m[1])),
  },
  {
    // '64 GPU Core', '16 CPU cores', '40GPU', '16-GPU'.
    pattern: /\b(\d{1,3})\s*-?\s*(cpu|gpu)\b(?:\s*cores?\b)?/g,
    read: (m, counts) => (m[2] === 'cpu' ? counts.cpu : counts.gpu).push(Number(m[1])),
  },
];

/**
 * Cloud instance types: they name a rented machine, not a device ('g5.xlarge', 'n2-standard-32',
 * 'Standard_NC24ads_A100_v4'), so they are removed and what is left must name the device.
 */
const CLOUD_LABELS = [
  /\b[a-z]{1,3}\d[a-z0-9-]*\.(?:\d*x?large|medium|small|micro|nano|metal(?:-\d+xl)?)\b/g,
  /\b[a-z]\d[a-z]?-(?:standard|highcpu|highmem|highgpu|ultragpu|megagpu|custom|edgegpu)-\d+[a-z]*\b/g,
  /\bstandard_[a-z0-9_]+/g,
];

/** Clock speeds and power limits: '@ 3.00GHz', '2.4 GHz', '450W' (a 4-digit number before W is a model: 'E5-2687W'). */
const CLOCKS = /\b\d+(?:\.\d+)?\s*(?:ghz|mhz|watts?)\b|\b\d{2,3}w\b/g;

/** Memory sizes: '24GB', '32 GB', '24G', '80 GiB', '1TB'. The first is a hint for the memory bin. */
const MEMORY_SIZE = /\b(\d+(?:\.\d+)?)\s*(gb|gib|g|gigabytes?|tb|mb)\b/g;

/** 'with Max-Q Design', 'Max-Q', 'Max Q': NVIDIA's laptop design (also on a workstation card's name). */
const MAX_Q = /\b(?:with\s+)?max[\s-]?q\b(?:\s+design)?/g;

/** A board's model and revision ('Raspberry Pi 5 Model B Rev 1.0'): they name no other product. */
const BOARD_REVISION = /\bmodel\s+[a-z0-9]\b|\brev(?:ision)?\.?\s*\d+(?:\.\d+)*\b/g;

/**
 * Part separators: brackets, ',', '|', ';', ':', '=', '@', ' / ', ' w/ ', ' with ', ' + ', ' - ',
 * and a bare 'w' before the integrated graphics where a file name dropped the '/' ('Ryzen 7
 * 255 w Radeon 780M Graphics').
 */
const SEPARATORS = /[()[\]{},|;:=@]|\s\/\s|\s(?:w\/|with|-)\s|\sw\s+(?=radeon\b)/;

/** Mac model names before their chip ('MacBook Pro 14', 'Mac Studio', 'iMac 24"'). */
const MAC_MODEL =
  /\b(?:macbook(?:\s+(?:pro|air))?|mac\s*(?:studio|mini|pro)|imac|mac)\b(?:\s+(?:1[3-6]|2[47])\b(?:\s*(?:inch|in|"|'')\b)?)?/g;

interface Read {
  /** The parts of the text, each as its words. */
  parts: string[][];
  memoryGb: number | undefined;
  cores: CoreCounts;
}

/** A text with its decoration set aside, cut into parts of words. */
export function readText(text: string): Read {
  const cores: CoreCounts = { cpu: [], gpu: [], either: [] };
  let memoryGb: number | undefined;
  // ' + ' joins two devices; a '+' inside a name is the word 'plus' ('Max+ 395').
  // A card count before the name ('2xGH200', '8xMI355X', '2 * A10G') is no part of it.
  let plain = plainText(text.replace(/\s\+\s/g, ' , ').replace(/^\s*\d{1,2}\s*[x×*](?=\s*[a-z])/i, ' ')).replace(
    /ggml_\w+\s*:\s*\d+\s*=/g,
    ' ',
  );
  for (const label of CLOUD_LABELS) plain = plain.replace(label, ' ');
  plain = plain.replace(BOARD_REVISION, ' ').replace(MAX_Q, ' laptop ').replace(MAC_MODEL, ' , ').replace(CLOCKS, ' ');
  plain = plain.replace(MEMORY_SIZE, (match, size: string, unit: string) => {
    const value = Number(size) * (unit === 'tb' ? 1024 : unit === 'mb' ? 1 / 1024 : 1);
    // A bare 'G' after a model number is part of the name ('5700G').
    if (unit === 'g' && !MEMORY_SIZES_GB.has(value)) return match;
    if (unit !== 'mb' && unit !== 'tb') memoryGb ??= value;
    return ' ';
  });
  for (const { pattern, read } of CORE_PATTERNS) {
    plain = plain.replace(pattern, (...args) => {
      read(args.slice(0, -2) as unknown as RegExpMatchArray, cores);
      return ' ';
    });
  }
  const parts = plain
    .split(SEPARATORS)
    .map(wordsOfPart)
    .filter((words) => words.length > 0);
  return { parts, memoryGb, cores };
}

/** One part's words: vendor and generic words out, laptop words as one, repeats once. */
function wordsOfPart(part: string): string[] {
  const words = wordsOf(part)
    .map((word) => (word === 'mobile' || word === 'mobility' || word === 'notebook' ? 'laptop' : word))
    .filter((word) => !VENDOR_WORDS.has(word) && !GENERIC_WORDS.has(word));
  // A GeForce number's trailing 'M' is its laptop card ('RTX 4090M', 'GTX 1060 M').
  for (let i = 2; i < words.length; i += 1) {
    if (words[i] === 'm' && /^\d{3,4}$/.test(words[i - 1]!) && /^(?:rtx|gtx)$/.test(words[i - 2]!)) words[i] = 'laptop';
  }
  return words.filter((word, i) => word !== words[i - 1] || /^\d/.test(word));
}

/** The words of the parts of a catalogue name: its text read like any other. */
function keyWords(name: string): string[] {
  return readText(name).parts.flat();
}

// ---------------------------------------------------------------------------------------
// The index
// ---------------------------------------------------------------------------------------

interface Key {
  words: string[];
  /** Where the name's own words start once its line words are left out (0: none may be). */
  core: number;
  target: Entry[];
  /** Without a model number of 3+ digits the name must start a part ('M1', 'P40', 'Pi 5'). */
  anchored: boolean;
}

const entries: Entry[] = [
  ...gpus.map((spec) => ({ kind: 'gpu' as const, spec })),
  ...unifiedChips.map((spec) => ({ kind: 'chip' as const, spec })),
  ...cpus.map((spec) => ({ kind: 'cpu' as const, spec })),
];

/** GeForce / Radeon / Arc series words a name may be written without ('4090', 'A770'). */
const SERIES_WORDS = new Set(['rtx', 'gtx', 'gt', 'rx']);

/**
 * Where a name's own words start. GPUs: after a leading series word before a number ('RTX'
 * 4090). CPUs and chips: at the model number (3+ digits), with a single letter right before
 * it ('i9-13900K' -> '13900 k'; 'N100' keeps its 'n'; 'Max+ 395' -> '395').
 */
function coreStart(words: string[], kind: Kind): number {
  if (kind === 'gpu') return SERIES_WORDS.has(words[0] ?? '') && words.length > 2 - Number(/^\d/.test(words[1] ?? '')) ? 1 : 0;
  const number = words.findIndex((word) => /^\d{3,}$/.test(word));
  if (number <= 0) return 0;
  return /^[a-z]$/.test(words[number - 1]!) ? number - 1 : number;
}

/**
 * Words of a catalogue name people leave out: the generation ('Ada Generation', 'Blackwell')
 * and the old line word 'Quadro'. A name without them is a key too, shared with every other
 * product it then spells ('RTX 6000' is the Quadro RTX 6000 or the RTX 6000 Ada).
 */
const OPTIONAL_NAME_WORDS = new Set(['generation', 'ada', 'blackwell', 'quadro', 'pascal', 'turing', 'volta']);

function buildKeys(): Key[] {
  const byName = new Map(entries.map((entry) => [entry.spec.name, entry]));
  const built = new Map<string, { words: string[]; target: Entry[] }>();
  const add = (words: string[], target: Entry[]) => {
    const id = words.join(' ');
    if (words.length === 0) return;
    const known = built.get(id);
    // The same words for several products: a name they share (read as any of them).
    if (!known) {
      built.set(id, { words, target: [...target] });
      return;
    }
    for (const entry of target) if (!known.target.some((other) => other.spec === entry.spec)) known.target.push(entry);
  };
  const addName = (text: string, target: Entry[]) => {
    const words = keyWords(text);
    add(words, target);
    add(
      words.filter((word) => word !== 'generation'),
      target,
    );
    add(
      words.filter((word) => !OPTIONAL_NAME_WORDS.has(word)),
      target,
    );
  };
  for (const shared of sharedNames) {
    addName(
      shared.name,
      shared.members.map((name) => byName.get(name)).filter((entry) => entry !== undefined),
    );
  }
  for (const entry of entries) for (const text of [entry.spec.name, ...(entry.spec.aliases ?? [])]) addName(text, [entry]);
  // A laptop-only card is often written without 'Laptop' ('GeForce GTX 1650 Ti', 'RTX 2050'):
  // its name without the word is a key too, where no other product has that name.
  for (const { words, target } of [...built.values()]) {
    const desktopWords = words.filter((word) => word !== 'laptop');
    if (desktopWords.length < words.length && !built.has(desktopWords.join(' ')))
      built.set(desktopWords.join(' '), { words: desktopWords, target });
  }
  return [...built.values()].map(({ words, target }) => {
    const kinds = new Set(target.map((entry) => entry.kind));
    const core = kinds.size === 1 ? coreStart(words, target[0]!.kind) : 0;
    return { words, core, target, anchored: !words.some((word) => /^\d{3,}$/.test(word)) };
  });
}

const keys: Key[] = buildKeys();

/** Words that follow a catalogue name in a longer catalogue name: what makes a sibling of it. */
const siblingWords: Map<string, Set<string>> = (() => {
  const next = new Map<string, Set<string>>();
  for (const key of keys) {
    for (let start = 0; start <= key.core; start += 1) {
      for (let end = start + 1; end < key.words.length; end += 1) {
        const prefix = key.words.slice(start, end).join(' ');
        const set = next.get(prefix) ?? new Set<string>();
        set.add(key.words[end]!);
        next.set(prefix, set);
      }
    }
  }
  return next;
})();

/** Keys by their first core word, for the scan. */
const keysByWord: Map<string, Key[]> = (() => {
  const map = new Map<string, Key[]>();
  for (const key of keys) {
    for (let start = 0; start <= key.core; start += 1) {
      const word = key.words[start]!;
      map.set(word, [...(map.get(word) ?? []), key]);
    }
  }
  return map;
})();

// ---------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------

interface Match {
  /** Position in the text's words (parts joined) and length. */
  at: number;
  length: number;
  target: Entry[];
}

/** Every catalogue name found in one part, as runs of words. */
function matchesIn(words: string[], offset: number, kinds: readonly Kind[]): Match[] {
  const found: Match[] = [];
  for (let at = 0; at < words.length; at += 1) {
    for (const key of keysByWord.get(words[at]!) ?? []) {
      const target = key.target.filter((entry) => kinds.includes(entry.kind));
      if (target.length === 0) continue;
      // Written in full, or from any start up to its core (its line words left out).
      for (let start = 0; start <= key.core; start += 1) {
        if (key.words[start] !== words[at]) continue;
        const own = key.words.slice(start);
        if (own.some((word, i) => words[at + i] !== word)) continue;
        if (key.anchored && at !== 0) continue;
        if (makesAnotherProduct(key, own, words.slice(at + own.length))) continue;
        if (contradictsGeneration(target, words)) continue;
        // A single letter or digit right before a bare model number belongs to another name:
        // 'A4000' is not the '4000', and 'i7-6600U' ('i 7 6600 u') not the Ryzen 5 '6600U'.
        if (start > 0 && at > 0 && /^(?:[a-z]|\d)$/.test(words[at - 1]!) && key.words[start - 1] !== words[at - 1]) continue;
        found.push({ at: offset + at, length: own.length, target });
      }
    }
  }
  return found;
}

/** Architecture words people add to a workstation card's name ('RTX 6000 Ada', 'RTX PRO 6000 Blackwell'). */
const GENERATION_WORDS = new Set(['ada', 'lovelace', 'blackwell', 'hopper', 'turing', 'pascal', 'volta']);

/**
 * Whether a part names a workstation card's generation that the matched cards do not have:
 * 'Ada A6000' is not the RTX A6000 (an Ampere card), whatever the RTX 6000 Ada is called.
 * GeForce names are left alone ('RTX 4090 (Ada Lovelace)').
 */
function contradictsGeneration(target: Entry[], words: string[]): boolean {
  const generations = words.filter((word) => GENERATION_WORDS.has(word));
  if (generations.length === 0 || !target.every((entry) => entry.kind === 'gpu' && entry.spec.segment === 'workstation')) return false;
  const namesOf = (entry: Entry) => [entry.spec.name, ...(entry.spec.aliases ?? [])].flatMap(keyWords);
  return target.every((entry) => !generations.some((word) => namesOf(entry).includes(word)));
}

/** Memory types after a name say which memory, never which product ('RTX 3060 Ti GDDR6'). */
const MEMORY_TYPE_WORDS = new Set(['gddr', 'hbm', 'lpddr', 'ddr']);

/**
 * Whether the word after a name makes another product of it: a word its catalogue siblings
 * add ('ti' after 'rtx 4070'), a product suffix ('super', 'xt', 'laptop'...), or a letter
 * right after a model number ('RX 6800M', 'Ryzen 7 5800H', 'RTX 4090 D').
 */
function makesAnotherProduct(key: Key, own: string[], rest: string[]): boolean {
  const after = rest[0];
  if (after === undefined || MEMORY_TYPE_WORDS.has(after)) return false;
  // 'Laptop' makes a laptop card of a GPU; a chip or CPU in a laptop is the same chip.
  if (after === 'laptop') return key.target.some((entry) => entry.kind === 'gpu');
  if (PRODUCT_SUFFIXES.has(after) || siblingWords.get(own.join(' '))?.has(after)) return true;
  const last = own[own.length - 1]!;
  if (/^[a-z]$/.test(after) && /^\d{3,}$/.test(last)) return true;
  // A CPU's model number takes suffixes of two letters too ('12600KF', '13500HX', '6700HQ').
  if (/^[a-z]{2}$/.test(after) && /^\d{3,}$/.test(last) && key.target.every((entry) => entry.kind !== 'gpu')) return true;
  // A revision after a card's name is another card ('RTX 5090 D v2': 24 GB on a narrower bus).
  if (after === 'v' && key.target.some((entry) => entry.kind === 'gpu')) return true;
  // A part number after a name without one ('Snapdragon X Elite X1E78100': 'x 1 e 78100') names the same chip.
  // (A letter, a digit and a long number: 'M-5Y71' is the Core M 5Y71, not an 'M5' with a word.)
  if (key.anchored && /^[a-z]$/.test(after) && /^\d/.test(rest[1] ?? '') && rest.slice(2, 4).some((word) => /^\d{3,}$/.test(word)))
    return false;
  // A name without a model number followed by a word of its own is a name not catalogued ('M4 Mega').
  return key.anchored && /^[a-z]+$/.test(after);
}

/**
 * The products a text names, of the kinds asked for: the longest readings of each part (a
 * reading inside a longer one gives way), and the products they all agree on; null when
 * nothing is named or the names disagree.
 */
export function resolveName(text: string, kinds: readonly Kind[]): Resolved | null {
  const read = readText(text);
  // An admin's mapping of this exact name wins (src/lib/hardware-mappings.ts); the hints still come from the text.
  const mapped = mappedEntry(text, kinds);
  if (mapped) return { entries: [mapped], memoryGb: read.memoryGb, cores: read.cores };
  const matches: Match[] = [];
  /** Parts no catalogue name was found in. */
  const unnamed: string[][] = [];
  let offset = 0;
  for (const words of read.parts) {
    const found = matchesIn(words, offset, kinds);
    matches.push(...found);
    if (found.length === 0) unnamed.push(words);
    offset += words.length + 1;
  }
  const longest = matches.filter(
    (match) =>
      !matches.some(
        (other) =>
          other !== match && other.length > match.length && other.at <= match.at && other.at + other.length >= match.at + match.length,
      ),
  );
  // A CPU model the catalogue does not list, beside the integrated graphics it carries
  // ('Ryzen 7 8745H with Radeon 780M Graphics'): the graphics name is shared by every chip
  // that carries it and only says the family; the model number says which, read from its
  // family's numbering (which takes the generation's fastest memory, so no bound is lowered).
  if (kinds.includes('cpu') && longest.length > 0 && longest.every((match) => match.target.length > 1)) {
    const cpu = cpuByFamily(unnamed);
    if (cpu) return { entries: [{ kind: 'cpu', spec: cpu }], memoryGb: read.memoryGb, cores: read.cores };
  }
  let agreed: Entry[] | null = null;
  for (const match of longest) {
    agreed = agreed === null ? match.target : agreed.filter((entry) => match.target.some((other) => other.spec === entry.spec));
    if (agreed.length === 0) return null;
  }
  if (agreed === null) {
    // No catalogue name at all: a CPU read from its family's numbering, if one reads it.
    const cpu = kinds.includes('cpu') ? cpuByFamily(read.parts) : null;
    return cpu ? { entries: [{ kind: 'cpu', spec: cpu }], memoryGb: read.memoryGb, cores: read.cores } : null;
  }
  return { entries: agreed, memoryGb: read.memoryGb, cores: read.cores };
}

/** CPUs read from their family's numbering, one object per name (device identity compares them). */
const cpusByFamily = new Map<string, CpuSpec>();

/**
 * A CPU the catalogue does not list, read from how its family numbers models
 * (src/data/cpu-families.ts); null when no family reads the text, or two read it differently.
 */
function cpuByFamily(parts: string[][]): CpuSpec | null {
  const found = new Map<string, CpuSpec>();
  for (const words of parts) {
    const text = words.join(' ');
    for (const family of cpuFamilies) {
      const match = family.pattern.exec(text);
      const generation = match && family.generation(match);
      if (!match || !generation) continue;
      const name = family.name(match);
      const transfers = Number(/-(\d+)$/.exec(generation.memoryType)?.[1]);
      const spec = cpusByFamily.get(name) ?? {
        name,
        vendor: family.vendor,
        memoryChannels: generation.channels,
        memoryType: generation.memoryType,
        bandwidthGBs: Math.round(generation.channels * transfers * 8) / 1000,
        segment: generation.segment,
        llcMb: generation.llcMb,
        source: `${family.source} (read from the model number)`,
      };
      cpusByFamily.set(name, spec);
      found.set(name, spec);
    }
  }
  return found.size === 1 ? [...found.values()][0]! : null;
}

/**
 * The fields of a unified chip joined into one text, each word once (a family 'M1 Max
 * 32-Core GPU' with the variant 'Max'); a variant of 'Base' means no tier.
 */
export function chipText(vendor: string, family: string, variant: string): string {
  const seen = new Set(wordsOf(plainText(`${vendor} ${family}`)));
  const rest = variant
    .split(/\s+/)
    .filter((word) => {
      const words = wordsOf(plainText(word));
      return !(words.length > 0 && words.every((w) => seen.has(w)));
    })
    .join(' ');
  return `${vendor} ${family} ${rest}`.replace(/(?<=^|\s)base(?=\s|$)/gi, ' ');
}
