/**
 * CPU families by how their model numbers are written: a CPU the catalogue does not list by
 * name is read from its family's numbering (Intel Core 'i5-8500T' is an 8th-generation
 * desktop part; AMD 'Ryzen 5 7535HS' a Ryzen 7035 laptop part; Xeon 'Gold 6342' the third
 * Xeon Scalable generation; EPYC '7352' a second-generation EPYC), and its memory is the
 * generation's. Where a generation's parts differ (a laptop CPU's DDR or LPDDR, a desktop's
 * i5 and i9), the fastest memory the generation supports is taken: the bound on a run must
 * err high. Last-level cache: the generation's largest L3.
 *
 * Each family reads the words of a name as src/lib/hardware-names.ts cuts them ('Intel(R)
 * Core(TM) i5-8500T CPU @ 2.10GHz' -> 'i 5 8500 t'), and names the CPU canonically.
 * Sources: Intel ARK (memory types, channels, speeds per generation), AMD product
 * specifications (amd.com), Wikipedia's lists of Intel Core, Xeon and AMD Ryzen / EPYC
 * processors (generation by model number).
 */

export interface CpuGeneration {
  /** 64-bit memory channels per socket. */
  channels: number;
  /** The generation's fastest officially supported memory, e.g. 'DDR4-2666', 'LPDDR5X-6400'. */
  memoryType: string;
  llcMb: number;
  segment: 'desktop' | 'workstation' | 'server';
}

export interface CpuFamily {
  vendor: 'Intel' | 'AMD';
  /** Matches the words of a name; the groups feed `generation` and `name`. */
  pattern: RegExp;
  generation: (match: RegExpExecArray) => CpuGeneration | null;
  name: (match: RegExpExecArray) => string;
  source: string;
}

const gen = (channels: number, memoryType: string, llcMb: number, segment: CpuGeneration['segment'] = 'desktop'): CpuGeneration => ({
  channels,
  memoryType,
  llcMb,
  segment,
});

const INTEL = 'Intel ARK memory specifications per generation; Wikipedia "List of Intel Core processors"';
const XEON = 'Intel ARK memory specifications per generation; Wikipedia "List of Intel Xeon processors"';
const AMD = 'AMD product specifications (amd.com); Wikipedia "List of AMD Ryzen processors" and "EPYC"';

/** Intel Core i3/i5/i7/i9 by generation; laptops (U, Y, H, P, G-suffixed) take the generation's LPDDR where faster. */
function intelCoreGeneration(generation: number, suffix: string): CpuGeneration | null {
  const laptop = /^(?:u|y|h|hq|hk|hs|hx|m|qm|mq|xm|p|g)$/.test(suffix);
  const table: Record<number, CpuGeneration> = {
    2: gen(2, 'DDR3-1600', 8),
    3: gen(2, 'DDR3-1600', 8),
    4: gen(2, 'DDR3-1600', 8),
    5: gen(2, 'LPDDR3-1866', 8),
    6: gen(2, 'DDR4-2133', 8),
    7: gen(2, 'DDR4-2400', 8),
    8: gen(2, 'DDR4-2666', 16),
    9: gen(2, 'DDR4-2666', 16),
    10: laptop ? gen(2, 'LPDDR4X-3733', 20) : gen(2, 'DDR4-2933', 20),
    11: laptop ? gen(2, 'LPDDR4X-4267', 24) : gen(2, 'DDR4-3200', 16),
    12: laptop ? gen(2, 'LPDDR5-5200', 24) : gen(2, 'DDR5-4800', 30),
    13: laptop ? gen(2, 'LPDDR5X-6400', 24) : gen(2, 'DDR5-5600', 36),
    14: laptop ? gen(2, 'LPDDR5X-6400', 24) : gen(2, 'DDR5-5600', 36),
  };
  // HX parts are desktop silicon with DDR5-5600 SO-DIMMs.
  if (suffix === 'hx' && generation >= 12) return gen(2, 'DDR5-5600', 36);
  return table[generation] ?? null;
}

export const cpuFamilies: readonly CpuFamily[] = [
  {
    // 'i5 8500 t', 'i7 10850 h', 'i7 3720 qm', 'i5 1135 g 7' (Ice / Tiger Lake: 10xx / 11xx + G), 'i7 1265 u'.
    vendor: 'Intel',
    pattern: /(?:^| )i ([3579]) (\d{4,5}) ?(k|kf|ks|f|t|te|s|p|u|y|h|hq|hk|hs|hx|m|qm|mq|xm|g)?(?: (\d))?(?= |$)/,
    generation: (m) => {
      const number = m[2]!;
      const suffix = m[3] ?? '';
      // 4-digit laptop numbers from 10 on: 1035G1 (10th), 1135G7 (11th), 1265U (12th), 1355U (13th).
      const generation = number.length === 5 || (/^1[0-4]/.test(number) && /^[gupy]$/.test(suffix)) ? Number(number.slice(0, 2)) : Number(number[0]);
      return intelCoreGeneration(generation, suffix);
    },
    name: (m) => `Intel Core i${m[1]}-${m[2]}${(m[3] ?? '').toUpperCase()}${m[4] ?? ''}`,
    source: INTEL,
  },
  {
    // Core M and Y-series: 'm 5 y 71', 'i5 7 y 54' (the generation is the digit before Y).
    vendor: 'Intel',
    pattern: /(?:^| )(?:m|i [357]) ([5-8]) y (\d{2})(?= |$)/,
    generation: (m) => intelCoreGeneration(Number(m[1]), 'y'),
    name: (m) => `Intel Core ${m[1]}Y${m[2]}`,
    source: INTEL,
  },
  {
    // Pentium / Celeron desktop: 'pentium g 4600', 'pentium gold g 6405', 'celeron g 5905'.
    vendor: 'Intel',
    pattern: /(?:^| )(pentium|celeron)(?: (?:gold|silver))? g ?(\d)(\d{3})(?: t| te)?(?= |$)/,
    generation: (m) =>
      ({ 1: gen(2, 'DDR3-1333', 3), 3: gen(2, 'DDR3-1600', 3), 4: gen(2, 'DDR4-2400', 3), 5: gen(2, 'DDR4-2400', 4), 6: gen(2, 'DDR4-2666', 4), 7: gen(2, 'DDR5-4800', 6) })[
        Number(m[2])
      ] ?? null,
    name: (m) => `Intel ${m[1] === 'pentium' ? 'Pentium' : 'Celeron'} G${m[2]}${m[3]}`,
    source: INTEL,
  },
  {
    // Xeon E5 v1-v4 (four channels per socket): 'e 5 2690 v 4', 'e 5 1620 v 4', 'e 5 2670' (v1).
    vendor: 'Intel',
    // The first generation is also written 'v0' or a bare '0' ('E5-2687W 0').
    pattern: /(?:^| )e 5 (\d{4}) ?(?:([a-z]) )?(?:v ?([0-4])|0)?(?= |$)/,
    generation: (m) => {
      const memory: Record<string, string> = { '0': 'DDR3-1600', '1': 'DDR3-1600', '2': 'DDR3-1866', '3': 'DDR4-2133', '4': 'DDR4-2400' };
      return gen(4, memory[m[3] ?? '1']!, 55, 'server');
    },
    name: (m) => `Intel Xeon E5-${m[1]}${(m[2] ?? '').toUpperCase()}${m[3] && m[3] !== '0' ? ` v${m[3]}` : ''}`,
    source: XEON,
  },
  {
    // Xeon E3 v1-v6 (two channels): 'e 3 1245 v 2', 'e 3 1260 l v 5'.
    vendor: 'Intel',
    pattern: /(?:^| )e 3 (\d{4}) ?(?:([a-z]) )?(?:v ([1-6]))?(?= |$)/,
    generation: (m) => {
      const memory: Record<string, string> = { '1': 'DDR3-1333', '2': 'DDR3-1600', '3': 'DDR3-1600', '5': 'DDR4-2133', '6': 'DDR4-2400' };
      const type = memory[m[3] ?? '1'];
      return type ? gen(2, type, 8, 'server') : null;
    },
    name: (m) => `Intel Xeon E3-${m[1]}${(m[2] ?? '').toUpperCase()}${m[3] ? ` v${m[3]}` : ''}`,
    source: XEON,
  },
  {
    // Xeon W-1x00 / W-2x00 / W-3x00: 'w 2235', 'w 2150 b', 'w 3175 x'.
    vendor: 'Intel',
    pattern: /(?:^| )w ([123])([1-3])(\d{2}) ?([a-z])?(?= |$)/,
    generation: (m) => {
      const line = `${m[1]}${m[2]}`;
      const table: Record<string, CpuGeneration> = {
        '12': gen(2, 'DDR4-2933', 20, 'workstation'),
        '13': gen(2, 'DDR4-3200', 16, 'workstation'),
        '21': gen(4, 'DDR4-2666', 25, 'workstation'),
        '22': gen(4, 'DDR4-2933', 25, 'workstation'),
        '31': gen(6, 'DDR4-2666', 39, 'workstation'),
        '32': gen(6, 'DDR4-2933', 39, 'workstation'),
        '33': gen(8, 'DDR4-3200', 60, 'workstation'),
      };
      return table[line] ?? null;
    },
    name: (m) => `Intel Xeon W-${m[1]}${m[2]}${m[3]}${(m[4] ?? '').toUpperCase()}`,
    source: XEON,
  },
  {
    // Laptop Xeon W-10000M / W-11000M: the Core generation of the same number ('w 11855 m').
    vendor: 'Intel',
    pattern: /(?:^| )w (1[01])(\d{3}) m(?= |$)/,
    generation: (m) => intelCoreGeneration(Number(m[1]), 'm'),
    name: (m) => `Intel Xeon W-${m[1]}${m[2]}M`,
    source: XEON,
  },
  {
    // Xeon E-2100 / E-2200 / E-2300 / E-2400: 'e 2236', 'e 2388 g'.
    vendor: 'Intel',
    pattern: /(?:^| )e ?2([1-4])(\d{2}) ?([a-z])?(?= |$)/,
    generation: (m) =>
      ({ 1: gen(2, 'DDR4-2666', 12, 'server'), 2: gen(2, 'DDR4-2666', 16, 'server'), 3: gen(2, 'DDR4-3200', 16, 'server'), 4: gen(2, 'DDR5-4800', 24, 'server') })[
        Number(m[1])
      ] ?? null,
    name: (m) => `Intel Xeon E-2${m[1]}${m[2]}${(m[3] ?? '').toUpperCase()}`,
    source: XEON,
  },
  {
    // Xeon Scalable by the generation digit: 'gold 6342', 'silver 4214 r', 'platinum 8352 y'
    // (x1xx Skylake, x2xx Cascade Lake, x3xx Ice Lake, x4xx Sapphire Rapids, x5xx Emerald
    // Rapids). Platinum 9200 (twelve channels) is another socket and not read.
    vendor: 'Intel',
    pattern: /(?:^| )(bronze|silver|gold|platinum) ([3-8])([1-5])(\d{2}) ?([a-z]{1,2})?(?: plus)?(?= |$)/,
    generation: (m) =>
      ({
        1: gen(6, 'DDR4-2666', 39, 'server'),
        2: gen(6, 'DDR4-2933', 39, 'server'),
        3: gen(8, 'DDR4-3200', 60, 'server'),
        4: gen(8, 'DDR5-4800', 113, 'server'),
        5: gen(8, 'DDR5-5600', 320, 'server'),
      })[Number(m[3])] ?? null,
    name: (m) => `Intel Xeon ${m[1]![0]!.toUpperCase()}${m[1]!.slice(1)} ${m[2]}${m[3]}${m[4]}${(m[5] ?? '').toUpperCase()}`,
    source: XEON,
  },
  {
    // Xeon 5500 / 5600 (Nehalem / Westmere-EP, three channels): 'x 5675', 'e 5645', 'l 5640'.
    vendor: 'Intel',
    pattern: /(?:^| )([xel]) ?(5[56]\d{2})(?= |$)/,
    generation: () => gen(3, 'DDR3-1333', 12, 'server'),
    name: (m) => `Intel Xeon ${m[1]!.toUpperCase()}${m[2]}`,
    source: XEON,
  },
  {
    // Ryzen by series digit and suffix: 'ryzen 5 8500 g', 'ryzen 7 pro 4750 g', 'ryzen 5 7535 hs', 'ryzen 9 pro 3900'.
    vendor: 'AMD',
    pattern: /(?:^| )ryzen ([3579])(?: pro)? ([1-9])(\d{3}) ?(x 3 d|xt|x|g|ge|gt|f|e|u|h|hs|hx|c|z)?(?= |$)/,
    generation: (m) => {
      const series = Number(m[2]);
      const suffix = (m[4] ?? '').replace(/ /g, '');
      // Z: Rembrandt parts made for one laptop line ('Ryzen 7 PRO 6860Z'), with its LPDDR5.
      const laptop = /^(?:u|h|hs|hx|c|z)$/.test(suffix);
      if (laptop) {
        if (suffix === 'hx' && series >= 7) return gen(2, 'DDR5-5200', 128);
        return ({ 2: gen(2, 'DDR4-2400', 4), 3: gen(2, 'DDR4-2400', 4), 4: gen(2, 'LPDDR4X-4266', 8), 5: gen(2, 'LPDDR4X-4266', 16), 6: gen(2, 'LPDDR5-6400', 16), 7: gen(2, 'LPDDR5X-7500', 16), 8: gen(2, 'LPDDR5X-7500', 16) } as Record<number, CpuGeneration>)[series] ?? null;
      }
      return ({ 1: gen(2, 'DDR4-2666', 16), 2: gen(2, 'DDR4-2933', 16), 3: gen(2, 'DDR4-3200', 64), 4: gen(2, 'DDR4-3200', 8), 5: gen(2, 'DDR4-3200', 96), 7: gen(2, 'DDR5-5200', 128), 8: gen(2, 'DDR5-5200', 16), 9: gen(2, 'DDR5-5600', 128) } as Record<number, CpuGeneration>)[series] ?? null;
    },
    name: (m) => `AMD Ryzen ${m[1]} ${m[2]}${m[3]}${(m[4] ?? '').replace(/ /g, '').toUpperCase()}`,
    source: AMD,
  },
  {
    // EPYC by the generation digit: 7xx1 Naples, 7xx2 Rome, 7xx3 Milan, 9xx4 Genoa, 9xx5 Turin, 8xx4 Siena, 4xx4 / 4xx5 AM5.
    // Parts made for cloud providers put a letter second and keep the generation digit last
    // ('EPYC 7R32', '7K62', '7B13': 'epyc 7 r 32').
    vendor: 'AMD',
    pattern: /(?:^| )epyc ([4789])(\d| [a-z] )(\d)([1-5]) ?([a-z]{1,2})?(?= |$)/,
    generation: (m) => {
      const key = `${m[1]}${m[4]}`;
      const table: Record<string, CpuGeneration> = {
        '71': gen(8, 'DDR4-2666', 64, 'server'),
        '72': gen(8, 'DDR4-3200', 256, 'server'),
        '73': gen(8, 'DDR4-3200', 768, 'server'),
        '94': gen(12, 'DDR5-4800', 1152, 'server'),
        '95': gen(12, 'DDR5-6000', 512, 'server'),
        '84': gen(6, 'DDR5-4800', 128, 'server'),
        '44': gen(2, 'DDR5-5200', 128, 'server'),
        '45': gen(2, 'DDR5-5600', 128, 'server'),
      };
      return table[key] ?? null;
    },
    name: (m) => `AMD EPYC ${m[1]}${m[2]!.trim().toUpperCase()}${m[3]}${m[4]}${(m[5] ?? '').toUpperCase()}`,
    source: AMD,
  },
  {
    // AM3+ FX (two channels DDR3-1866) and Opteron 6200 / 6300 (four channels DDR3-1866).
    vendor: 'AMD',
    pattern: /(?:^| )(fx|opteron) ?(\d{4})(?= |$)/,
    generation: (m) => (m[1] === 'fx' ? gen(2, 'DDR3-1866', 8) : /^6[23]/.test(m[2]!) ? gen(4, 'DDR3-1866', 16, 'server') : null),
    name: (m) => `AMD ${m[1] === 'fx' ? 'FX' : 'Opteron'}-${m[2]}`,
    source: AMD,
  },
];
