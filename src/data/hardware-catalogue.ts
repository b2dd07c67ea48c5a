/**
 * Canonical hardware catalogue (DECISIONS.md, "Hardware and costs"): GPU, unified-memory
 * chip and CPU names with vendor, memory sizes and peak memory bandwidth. It feeds form
 * auto-complete, `hardwareOptions` in the agent-context and `hardwareCostComponentNames`;
 * src/lib/hardware-lookup.ts matches free-text submitted names against it.
 *
 * Numbers are vendor-published peak figures in decimal GB/s. An item whose figures were not
 * certain was left out rather than guessed. Memory sizes are the configurations sold (for
 * laptops and boards: the common configurations), ascending.
 *
 * Canonical names are the vendor's product names. Aliases only need to cover spellings the
 * normaliser does not already fold: it lower-cases, drops vendor/brand words (NVIDIA,
 * GeForce, AMD, Radeon, Intel, Arc, Apple, Tesla), punctuation and '(TM)'/'(R)', and splits
 * letters from digits ('rtx4090' = 'RTX 4090'). The lookup also accepts GeForce/Radeon names
 * without their 'RTX'/'GTX'/'RX' prefix ('4090'), CPU and chip model numbers without their
 * line ('7950X', 'i9-13900K', '258V'), ignores a memory size, a memory type, core counts,
 * driver tags and Mac model names around a name ('RTX 3060 12GB GDDR6', 'MacBook Pro M3 Max
 * 16-core CPU 40-core GPU'), and reads 'Laptop GPU' / 'Mobile' / 'Max-Q' / a trailing 'M'
 * after a GeForce number as the laptop card. Aliases are for other names of ONE product
 * (machines built on one chip: 'DGX Spark', 'GMKtec EVO-X2'); a name several products are
 * sold or shown under goes in `sharedNames`.
 */

export type GpuVendor = 'NVIDIA' | 'AMD' | 'Intel';
export type GpuSegment = 'consumer' | 'laptop' | 'workstation' | 'datacenter';

export interface GpuSpec {
  /** Canonical name, e.g. 'NVIDIA GeForce RTX 4090'. */
  name: string;
  vendor: GpuVendor;
  /** Per-card memory sizes sold, ascending, e.g. [24] or [8, 16]. */
  vramGb: number[];
  /** GB/s of the listed (largest) memory configuration. */
  bandwidthGBs: number;
  /** Present only when memory configurations differ in bandwidth; one entry per size. */
  variants?: { vramGb: number; bandwidthGBs: number }[];
  aliases?: string[];
  segment: GpuSegment;
}

/**
 * A shared-memory chip. `${vendor} ${family} ${variant}` spells the canonical `name`, with
 * variant 'Base' for a chip sold without a tier (it is left out of the name):
 * - Apple: family = generation ('M4'), variant = tier ('Base', 'Pro', 'Max', 'Ultra').
 * - Others: family = the product line as printed before the model/tier ('Ryzen AI Max+',
 *   'Ryzen AI Max', 'Ryzen AI 9', 'Snapdragon X', 'Jetson Orin Nano', 'GB10'), variant = the
 *   model number or tier ('395', 'HX 370', 'Elite', 'Super', 'Base'). So AMD's
 *   'Ryzen AI Max+ 395' is family 'Ryzen AI Max+', variant '395' and 'Ryzen AI Max 390' is
 *   family 'Ryzen AI Max', variant '390'.
 * The lookup joins the three submitted fields before matching, so a user's different split
 * ('Ryzen AI Max' + '+ 395', 'M4 Max' + '') still finds the chip.
 */
export interface UnifiedChipSpec {
  vendor: string;
  family: string;
  variant: string;
  name: string;
  /** Memory sizes sold, ascending. */
  memoryGb: number[];
  /** GB/s of the listed (largest / fastest) configuration. */
  bandwidthGBs: number;
  /**
   * Present when configurations differ in bandwidth; a memory size may be in only one. The
   * core counts of each bin let a name such as 'M3 Max 40-core GPU' choose it.
   */
  variants?: { memoryGb: number[]; bandwidthGBs: number; cpuCores?: number[]; gpuCores?: number[]; note?: string }[];
  aliases?: string[];
}

export type CpuVendor = 'AMD' | 'Intel' | 'Ampere' | 'AWS' | 'NVIDIA' | 'Raspberry Pi';
export type CpuSegment = 'desktop' | 'workstation' | 'server' | 'embedded';

export interface CpuSpec {
  /** Canonical name, e.g. 'AMD Ryzen 9 7950X'. */
  name: string;
  vendor: CpuVendor;
  /**
   * 64-bit memory channels per socket (a 32-bit bus is 0.5; 0 when only the vendor's peak is
   * published, as for NVIDIA Grace).
   */
  memoryChannels: number;
  /** Officially supported memory type and speed, e.g. 'DDR5-5200', or 'LPDDR5X'. */
  memoryType: string;
  /** Theoretical peak per socket: channels x MT/s x 8 bytes (LPDDR: the vendor's figure). */
  bandwidthGBs: number;
  segment: CpuSegment;
  aliases?: string[];
}

// ---------------------------------------------------------------------------------------
// GPUs
// ---------------------------------------------------------------------------------------

// Source: NVIDIA GeForce product pages and specifications (memory interface x data rate).
// The RTX 3060 Ti GDDR6X (608 GB/s) is listed on its own; a plain 'RTX 3060 Ti' keeps the
// launch GDDR6 figure. The later RTX 4070 GDDR6 (480 GB/s) is left out: a plain 'RTX 4070'
// keeps the launch 504 GB/s.
const nvidiaConsumer: GpuSpec[] = [
  { name: 'NVIDIA GeForce GTX 1070', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 256, segment: 'consumer' },
  { name: 'NVIDIA GeForce GTX 1080', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 320, segment: 'consumer' },
  { name: 'NVIDIA GeForce GTX 1080 Ti', vendor: 'NVIDIA', vramGb: [11], bandwidthGBs: 484, segment: 'consumer' },
  { name: 'NVIDIA GeForce GTX 1660', vendor: 'NVIDIA', vramGb: [6], bandwidthGBs: 192, segment: 'consumer' },
  { name: 'NVIDIA GeForce GTX 1660 SUPER', vendor: 'NVIDIA', vramGb: [6], bandwidthGBs: 336, segment: 'consumer' },
  { name: 'NVIDIA GeForce GTX 1660 Ti', vendor: 'NVIDIA', vramGb: [6], bandwidthGBs: 288, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 2060', vendor: 'NVIDIA', vramGb: [6, 12], bandwidthGBs: 336, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 2060 SUPER', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 448, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 2070', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 448, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 2070 SUPER', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 448, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 2080', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 448, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 2080 SUPER', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 496, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 2080 Ti', vendor: 'NVIDIA', vramGb: [11], bandwidthGBs: 616, segment: 'consumer' },
  { name: 'NVIDIA TITAN RTX', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 672, segment: 'consumer' },
  {
    name: 'NVIDIA GeForce RTX 3050', vendor: 'NVIDIA', vramGb: [6, 8], bandwidthGBs: 224, segment: 'consumer',
    variants: [{ vramGb: 6, bandwidthGBs: 168 }, { vramGb: 8, bandwidthGBs: 224 }],
  },
  {
    name: 'NVIDIA GeForce RTX 3060', vendor: 'NVIDIA', vramGb: [8, 12], bandwidthGBs: 360, segment: 'consumer',
    variants: [{ vramGb: 8, bandwidthGBs: 240 }, { vramGb: 12, bandwidthGBs: 360 }],
  },
  { name: 'NVIDIA GeForce RTX 3060 Ti', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 448, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 3060 Ti GDDR6X', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 608, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 3070', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 448, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 3070 Ti', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 608, segment: 'consumer' },
  {
    name: 'NVIDIA GeForce RTX 3080', vendor: 'NVIDIA', vramGb: [10, 12], bandwidthGBs: 912, segment: 'consumer',
    variants: [{ vramGb: 10, bandwidthGBs: 760 }, { vramGb: 12, bandwidthGBs: 912 }],
  },
  { name: 'NVIDIA GeForce RTX 3080 Ti', vendor: 'NVIDIA', vramGb: [12], bandwidthGBs: 912, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 3090', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 936, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 3090 Ti', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 1008, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 4060', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 272, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 4060 Ti', vendor: 'NVIDIA', vramGb: [8, 16], bandwidthGBs: 288, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 4070', vendor: 'NVIDIA', vramGb: [12], bandwidthGBs: 504, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 4070 SUPER', vendor: 'NVIDIA', vramGb: [12], bandwidthGBs: 504, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 4070 Ti', vendor: 'NVIDIA', vramGb: [12], bandwidthGBs: 504, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 4070 Ti SUPER', vendor: 'NVIDIA', vramGb: [16], bandwidthGBs: 672, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 4080', vendor: 'NVIDIA', vramGb: [16], bandwidthGBs: 716.8, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 4080 SUPER', vendor: 'NVIDIA', vramGb: [16], bandwidthGBs: 736, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 4090', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 1008, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 5060', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 448, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 5060 Ti', vendor: 'NVIDIA', vramGb: [8, 16], bandwidthGBs: 448, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 5070', vendor: 'NVIDIA', vramGb: [12], bandwidthGBs: 672, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 5070 Ti', vendor: 'NVIDIA', vramGb: [16], bandwidthGBs: 896, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 5080', vendor: 'NVIDIA', vramGb: [16], bandwidthGBs: 960, segment: 'consumer' },
  { name: 'NVIDIA GeForce RTX 5090', vendor: 'NVIDIA', vramGb: [32], bandwidthGBs: 1792, segment: 'consumer' },
];

// Source: NVIDIA GeForce laptop comparison pages (memory size and interface width per GPU).
// NVIDIA does not publish laptop memory data rates; the rate is the one the shipped GPUs run
// (TechPowerUp GPU database, GPU-Z): RTX 30 laptop GDDR6 14 Gbps (3080 Ti: 16 Gbps), RTX 40
// laptop GDDR6 16 Gbps (4080 / 4090: 18 Gbps), RTX 50 laptop GDDR7 28 Gbps. A laptop GPU is a
// different chip or bus from the desktop card of the same number and is never matched as it.
// Max-Q designs share the laptop GPU's memory bus (some clock it lower; the catalogue keeps the
// higher figure, the reading the roofline needs). Left out: RTX 5070 / 5060 Laptop (data rate
// not certain).
const nvidiaLaptop: GpuSpec[] = [
  { name: 'NVIDIA GeForce RTX 3060 Laptop GPU', vendor: 'NVIDIA', vramGb: [6], bandwidthGBs: 336, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 3070 Laptop GPU', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 448, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 3070 Ti Laptop GPU', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 448, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 3080 Laptop GPU', vendor: 'NVIDIA', vramGb: [8, 16], bandwidthGBs: 448, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 3080 Ti Laptop GPU', vendor: 'NVIDIA', vramGb: [16], bandwidthGBs: 512, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 4050 Laptop GPU', vendor: 'NVIDIA', vramGb: [6], bandwidthGBs: 192, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 4060 Laptop GPU', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 256, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 4070 Laptop GPU', vendor: 'NVIDIA', vramGb: [8], bandwidthGBs: 256, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 4080 Laptop GPU', vendor: 'NVIDIA', vramGb: [12], bandwidthGBs: 432, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 4090 Laptop GPU', vendor: 'NVIDIA', vramGb: [16], bandwidthGBs: 576, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 5070 Ti Laptop GPU', vendor: 'NVIDIA', vramGb: [12], bandwidthGBs: 672, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 5080 Laptop GPU', vendor: 'NVIDIA', vramGb: [16], bandwidthGBs: 896, segment: 'laptop' },
  { name: 'NVIDIA GeForce RTX 5090 Laptop GPU', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 896, segment: 'laptop' },
];

// Source: NVIDIA RTX / Quadro professional product pages and datasheets. RTX PRO Blackwell
// (GTC 2025 launch and product pages): 6000 96 GB GDDR7 512-bit 1792 GB/s (Workstation and
// Max-Q Workstation Editions share it; the Server Edition's memory clock is not published
// apart, so it is read at the same, higher, figure), 5000 48 / 72 GB 384-bit 1344 GB/s, 4500
// 32 GB 256-bit 896 GB/s, 4000 24 GB 192-bit 672 GB/s.
const nvidiaWorkstation: GpuSpec[] = [
  { name: 'NVIDIA Quadro RTX 6000', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 672, segment: 'workstation', aliases: ['RTX 6000 Turing'] },
  { name: 'NVIDIA Quadro RTX 8000', vendor: 'NVIDIA', vramGb: [48], bandwidthGBs: 672, segment: 'workstation', aliases: ['RTX 8000'] },
  { name: 'NVIDIA RTX A2000', vendor: 'NVIDIA', vramGb: [6, 12], bandwidthGBs: 288, segment: 'workstation', aliases: ['A2000'] },
  { name: 'NVIDIA RTX A4000', vendor: 'NVIDIA', vramGb: [16], bandwidthGBs: 448, segment: 'workstation', aliases: ['A4000'] },
  { name: 'NVIDIA RTX A4500', vendor: 'NVIDIA', vramGb: [20], bandwidthGBs: 640, segment: 'workstation', aliases: ['A4500'] },
  { name: 'NVIDIA RTX A5000', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 768, segment: 'workstation', aliases: ['A5000'] },
  { name: 'NVIDIA RTX A6000', vendor: 'NVIDIA', vramGb: [48], bandwidthGBs: 768, segment: 'workstation', aliases: ['A6000'] },
  {
    name: 'NVIDIA RTX 4000 SFF Ada Generation', vendor: 'NVIDIA', vramGb: [20], bandwidthGBs: 280, segment: 'workstation',
    aliases: ['RTX 4000 SFF Ada'],
  },
  {
    name: 'NVIDIA RTX 4000 Ada Generation', vendor: 'NVIDIA', vramGb: [20], bandwidthGBs: 360, segment: 'workstation',
    aliases: ['RTX 4000 Ada'],
  },
  {
    name: 'NVIDIA RTX 5000 Ada Generation', vendor: 'NVIDIA', vramGb: [32], bandwidthGBs: 576, segment: 'workstation',
    aliases: ['RTX 5000 Ada'],
  },
  {
    name: 'NVIDIA RTX 6000 Ada Generation', vendor: 'NVIDIA', vramGb: [48], bandwidthGBs: 960, segment: 'workstation',
    aliases: ['RTX 6000 Ada'],
  },
  {
    name: 'NVIDIA RTX PRO 6000 Blackwell', vendor: 'NVIDIA', vramGb: [96], bandwidthGBs: 1792, segment: 'workstation',
    aliases: [
      'RTX PRO 6000',
      'RTX PRO 6000 Blackwell Workstation Edition',
      'RTX PRO 6000 Blackwell Max-Q Workstation Edition',
      'RTX PRO 6000 Blackwell Max-Q',
      'RTX PRO 6000 Max-Q',
      'RTX PRO 6000 Blackwell Server Edition',
      'RTX PRO 6000 Server Edition',
    ],
  },
  { name: 'NVIDIA RTX PRO 5000 Blackwell', vendor: 'NVIDIA', vramGb: [48, 72], bandwidthGBs: 1344, segment: 'workstation', aliases: ['RTX PRO 5000'] },
  { name: 'NVIDIA RTX PRO 4500 Blackwell', vendor: 'NVIDIA', vramGb: [32], bandwidthGBs: 896, segment: 'workstation', aliases: ['RTX PRO 4500'] },
  { name: 'NVIDIA RTX PRO 4000 Blackwell', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 672, segment: 'workstation', aliases: ['RTX PRO 4000'] },
];

// Source: NVIDIA data-center product pages and datasheets (Tesla P40/P100/V100/T4, A-, L-,
// H-, B-series, GH200). A bare 'A100' / 'H100' (no form factor) maps to the PCIe card, the
// lower-bandwidth form factor. GH200: HBM3 96 GB 4 TB/s, HBM3e 144 GB 4.9 TB/s (GPU memory;
// the Grace CPU's LPDDR5X is not counted). B200: 8 TB/s (HGX/DGX B200 expose 180 GB).
const nvidiaDatacenter: GpuSpec[] = [
  {
    name: 'NVIDIA Tesla P100', vendor: 'NVIDIA', vramGb: [12, 16], bandwidthGBs: 732, segment: 'datacenter',
    variants: [{ vramGb: 12, bandwidthGBs: 549 }, { vramGb: 16, bandwidthGBs: 732 }],
    aliases: ['P100 PCIe', 'P100 SXM2'],
  },
  { name: 'NVIDIA Tesla P40', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 346, segment: 'datacenter' },
  {
    name: 'NVIDIA Tesla V100', vendor: 'NVIDIA', vramGb: [16, 32], bandwidthGBs: 900, segment: 'datacenter',
    aliases: ['V100 PCIe', 'V100 SXM2'],
  },
  { name: 'NVIDIA Tesla V100S', vendor: 'NVIDIA', vramGb: [32], bandwidthGBs: 1134, segment: 'datacenter', aliases: ['V100S PCIe'] },
  { name: 'NVIDIA Tesla T4', vendor: 'NVIDIA', vramGb: [16], bandwidthGBs: 320, segment: 'datacenter' },
  { name: 'NVIDIA A10', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 600, segment: 'datacenter' },
  { name: 'NVIDIA A30', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 933, segment: 'datacenter' },
  { name: 'NVIDIA A40', vendor: 'NVIDIA', vramGb: [48], bandwidthGBs: 696, segment: 'datacenter' },
  {
    name: 'NVIDIA A100 PCIe', vendor: 'NVIDIA', vramGb: [40, 80], bandwidthGBs: 1935, segment: 'datacenter',
    variants: [{ vramGb: 40, bandwidthGBs: 1555 }, { vramGb: 80, bandwidthGBs: 1935 }],
  },
  {
    name: 'NVIDIA A100 SXM', vendor: 'NVIDIA', vramGb: [40, 80], bandwidthGBs: 2039, segment: 'datacenter',
    variants: [{ vramGb: 40, bandwidthGBs: 1555 }, { vramGb: 80, bandwidthGBs: 2039 }],
    aliases: ['A100 SXM4'],
  },
  { name: 'NVIDIA L4', vendor: 'NVIDIA', vramGb: [24], bandwidthGBs: 300, segment: 'datacenter' },
  { name: 'NVIDIA L40', vendor: 'NVIDIA', vramGb: [48], bandwidthGBs: 864, segment: 'datacenter' },
  { name: 'NVIDIA L40S', vendor: 'NVIDIA', vramGb: [48], bandwidthGBs: 864, segment: 'datacenter' },
  { name: 'NVIDIA H100 PCIe', vendor: 'NVIDIA', vramGb: [80], bandwidthGBs: 2000, segment: 'datacenter' },
  {
    name: 'NVIDIA H100 SXM', vendor: 'NVIDIA', vramGb: [80], bandwidthGBs: 3350, segment: 'datacenter',
    // 'NVIDIA H100 80GB HBM3' is how nvidia-smi names the SXM5 card.
    aliases: ['H100 SXM5', 'H100 HBM3'],
  },
  { name: 'NVIDIA H100 NVL', vendor: 'NVIDIA', vramGb: [94], bandwidthGBs: 3900, segment: 'datacenter' },
  { name: 'NVIDIA H200', vendor: 'NVIDIA', vramGb: [141], bandwidthGBs: 4800, segment: 'datacenter', aliases: ['H200 SXM', 'H200 NVL'] },
  {
    name: 'NVIDIA GH200', vendor: 'NVIDIA', vramGb: [96, 144], bandwidthGBs: 4900, segment: 'datacenter',
    variants: [{ vramGb: 96, bandwidthGBs: 4000 }, { vramGb: 144, bandwidthGBs: 4900 }],
    aliases: ['GH200 Grace Hopper'],
  },
  { name: 'NVIDIA B200', vendor: 'NVIDIA', vramGb: [180, 192], bandwidthGBs: 8000, segment: 'datacenter' },
];

// Source: AMD Radeon / Radeon PRO / Instinct product pages and specifications. Radeon AI PRO
// R9700: 32 GB GDDR6, 256-bit, 640 GB/s (AMD product page).
const amdGpus: GpuSpec[] = [
  {
    name: 'AMD Radeon RX 580', vendor: 'AMD', vramGb: [4, 8], bandwidthGBs: 256, segment: 'consumer',
    variants: [{ vramGb: 4, bandwidthGBs: 224 }, { vramGb: 8, bandwidthGBs: 256 }],
  },
  // Radeon VII: 16 GB HBM2, 4096-bit.
  { name: 'AMD Radeon VII', vendor: 'AMD', vramGb: [16], bandwidthGBs: 1024, segment: 'consumer' },
  { name: 'AMD Radeon RX 5700', vendor: 'AMD', vramGb: [8], bandwidthGBs: 448, segment: 'consumer' },
  { name: 'AMD Radeon RX 5700 XT', vendor: 'AMD', vramGb: [8], bandwidthGBs: 448, segment: 'consumer' },
  { name: 'AMD Radeon RX 6500 XT', vendor: 'AMD', vramGb: [4, 8], bandwidthGBs: 144, segment: 'consumer' },
  { name: 'AMD Radeon RX 6600', vendor: 'AMD', vramGb: [8], bandwidthGBs: 224, segment: 'consumer' },
  { name: 'AMD Radeon RX 6600 XT', vendor: 'AMD', vramGb: [8], bandwidthGBs: 256, segment: 'consumer' },
  { name: 'AMD Radeon RX 6650 XT', vendor: 'AMD', vramGb: [8], bandwidthGBs: 280, segment: 'consumer' },
  { name: 'AMD Radeon RX 6700 XT', vendor: 'AMD', vramGb: [12], bandwidthGBs: 384, segment: 'consumer' },
  { name: 'AMD Radeon RX 6750 XT', vendor: 'AMD', vramGb: [12], bandwidthGBs: 432, segment: 'consumer' },
  { name: 'AMD Radeon RX 6800', vendor: 'AMD', vramGb: [16], bandwidthGBs: 512, segment: 'consumer' },
  { name: 'AMD Radeon RX 6800 XT', vendor: 'AMD', vramGb: [16], bandwidthGBs: 512, segment: 'consumer' },
  { name: 'AMD Radeon RX 6900 XT', vendor: 'AMD', vramGb: [16], bandwidthGBs: 512, segment: 'consumer' },
  { name: 'AMD Radeon RX 6950 XT', vendor: 'AMD', vramGb: [16], bandwidthGBs: 576, segment: 'consumer' },
  { name: 'AMD Radeon RX 7600', vendor: 'AMD', vramGb: [8], bandwidthGBs: 288, segment: 'consumer' },
  { name: 'AMD Radeon RX 7600 XT', vendor: 'AMD', vramGb: [16], bandwidthGBs: 288, segment: 'consumer' },
  { name: 'AMD Radeon RX 7700 XT', vendor: 'AMD', vramGb: [12], bandwidthGBs: 432, segment: 'consumer' },
  { name: 'AMD Radeon RX 7800 XT', vendor: 'AMD', vramGb: [16], bandwidthGBs: 624, segment: 'consumer' },
  { name: 'AMD Radeon RX 7900 GRE', vendor: 'AMD', vramGb: [16], bandwidthGBs: 576, segment: 'consumer' },
  { name: 'AMD Radeon RX 7900 XT', vendor: 'AMD', vramGb: [20], bandwidthGBs: 800, segment: 'consumer' },
  { name: 'AMD Radeon RX 7900 XTX', vendor: 'AMD', vramGb: [24], bandwidthGBs: 960, segment: 'consumer' },
  { name: 'AMD Radeon RX 9060 XT', vendor: 'AMD', vramGb: [8, 16], bandwidthGBs: 320, segment: 'consumer' },
  { name: 'AMD Radeon RX 9070', vendor: 'AMD', vramGb: [16], bandwidthGBs: 640, segment: 'consumer' },
  { name: 'AMD Radeon RX 9070 XT', vendor: 'AMD', vramGb: [16], bandwidthGBs: 640, segment: 'consumer' },
  { name: 'AMD Radeon AI PRO R9700', vendor: 'AMD', vramGb: [32], bandwidthGBs: 640, segment: 'workstation', aliases: ['R9700'] },
  { name: 'AMD Radeon PRO W7700', vendor: 'AMD', vramGb: [16], bandwidthGBs: 576, segment: 'workstation', aliases: ['W7700'] },
  { name: 'AMD Radeon PRO W7800', vendor: 'AMD', vramGb: [32], bandwidthGBs: 576, segment: 'workstation', aliases: ['W7800'] },
  { name: 'AMD Radeon PRO W7900', vendor: 'AMD', vramGb: [48], bandwidthGBs: 864, segment: 'workstation', aliases: ['W7900'] },
  { name: 'AMD Instinct MI50', vendor: 'AMD', vramGb: [16, 32], bandwidthGBs: 1024, segment: 'datacenter', aliases: ['MI50'] },
  { name: 'AMD Instinct MI60', vendor: 'AMD', vramGb: [32], bandwidthGBs: 1024, segment: 'datacenter', aliases: ['MI60'] },
  { name: 'AMD Instinct MI100', vendor: 'AMD', vramGb: [32], bandwidthGBs: 1228.8, segment: 'datacenter', aliases: ['MI100'] },
  { name: 'AMD Instinct MI210', vendor: 'AMD', vramGb: [64], bandwidthGBs: 1638.4, segment: 'datacenter', aliases: ['MI210'] },
  // MI250 / MI250X: per OAM module (two GCDs, each with half the memory and bandwidth).
  { name: 'AMD Instinct MI250', vendor: 'AMD', vramGb: [128], bandwidthGBs: 3276.8, segment: 'datacenter', aliases: ['MI250'] },
  { name: 'AMD Instinct MI250X', vendor: 'AMD', vramGb: [128], bandwidthGBs: 3276.8, segment: 'datacenter', aliases: ['MI250X'] },
  { name: 'AMD Instinct MI300X', vendor: 'AMD', vramGb: [192], bandwidthGBs: 5300, segment: 'datacenter', aliases: ['MI300X'] },
  { name: 'AMD Instinct MI325X', vendor: 'AMD', vramGb: [256], bandwidthGBs: 6000, segment: 'datacenter', aliases: ['MI325X'] },
];

// Source: Intel Arc / Arc Pro product specifications (ark.intel.com).
const intelGpus: GpuSpec[] = [
  { name: 'Intel Arc A310', vendor: 'Intel', vramGb: [4], bandwidthGBs: 124, segment: 'consumer' },
  { name: 'Intel Arc A380', vendor: 'Intel', vramGb: [6], bandwidthGBs: 186, segment: 'consumer' },
  { name: 'Intel Arc A580', vendor: 'Intel', vramGb: [8], bandwidthGBs: 512, segment: 'consumer' },
  { name: 'Intel Arc A750', vendor: 'Intel', vramGb: [8], bandwidthGBs: 512, segment: 'consumer' },
  {
    name: 'Intel Arc A770', vendor: 'Intel', vramGb: [8, 16], bandwidthGBs: 560, segment: 'consumer',
    variants: [{ vramGb: 8, bandwidthGBs: 512 }, { vramGb: 16, bandwidthGBs: 560 }],
  },
  { name: 'Intel Arc B570', vendor: 'Intel', vramGb: [10], bandwidthGBs: 380, segment: 'consumer' },
  { name: 'Intel Arc B580', vendor: 'Intel', vramGb: [12], bandwidthGBs: 456, segment: 'consumer' },
  { name: 'Intel Arc Pro B50', vendor: 'Intel', vramGb: [16], bandwidthGBs: 224, segment: 'workstation', aliases: ['B50'] },
  { name: 'Intel Arc Pro B60', vendor: 'Intel', vramGb: [24], bandwidthGBs: 456, segment: 'workstation', aliases: ['B60'] },
];

export const gpus: readonly GpuSpec[] = [
  ...nvidiaConsumer,
  ...nvidiaLaptop,
  ...nvidiaWorkstation,
  ...nvidiaDatacenter,
  ...amdGpus,
  ...intelGpus,
];

// ---------------------------------------------------------------------------------------
// Unified-memory chips
// ---------------------------------------------------------------------------------------

// Source: Apple newsroom announcements and Mac technical specifications. M3 Max and M4 Max
// come in two bins with different memory bus widths; each memory size is sold on one bin
// only (M3 Max 36/96 GB: 14-core CPU, 300 GB/s; 48/64/128 GB: 16-core CPU, 400 GB/s), and
// the core counts name the bin. Bins of other chips (M1/M2 Ultra 48/60 vs 64/76-core GPU,
// M3 Pro, M4 Pro, ...) share one bandwidth. M5 (October 2025): 153 GB/s; M5 Pro 307 GB/s and
// M5 Max 614 GB/s (Apple newsroom, March 2026). Apple's figure for the 32-core-GPU M5 Max bin
// was not found; that bin reads as 614 GB/s (the higher reading).
const appleChips: UnifiedChipSpec[] = [
  { vendor: 'Apple', family: 'M1', variant: 'Base', name: 'Apple M1', memoryGb: [8, 16], bandwidthGBs: 68.25 },
  { vendor: 'Apple', family: 'M1', variant: 'Pro', name: 'Apple M1 Pro', memoryGb: [16, 32], bandwidthGBs: 200 },
  { vendor: 'Apple', family: 'M1', variant: 'Max', name: 'Apple M1 Max', memoryGb: [32, 64], bandwidthGBs: 400 },
  { vendor: 'Apple', family: 'M1', variant: 'Ultra', name: 'Apple M1 Ultra', memoryGb: [64, 128], bandwidthGBs: 800 },
  { vendor: 'Apple', family: 'M2', variant: 'Base', name: 'Apple M2', memoryGb: [8, 16, 24], bandwidthGBs: 100 },
  { vendor: 'Apple', family: 'M2', variant: 'Pro', name: 'Apple M2 Pro', memoryGb: [16, 32], bandwidthGBs: 200 },
  { vendor: 'Apple', family: 'M2', variant: 'Max', name: 'Apple M2 Max', memoryGb: [32, 64, 96], bandwidthGBs: 400 },
  { vendor: 'Apple', family: 'M2', variant: 'Ultra', name: 'Apple M2 Ultra', memoryGb: [64, 128, 192], bandwidthGBs: 800 },
  { vendor: 'Apple', family: 'M3', variant: 'Base', name: 'Apple M3', memoryGb: [8, 16, 24], bandwidthGBs: 100 },
  { vendor: 'Apple', family: 'M3', variant: 'Pro', name: 'Apple M3 Pro', memoryGb: [18, 36], bandwidthGBs: 150 },
  {
    vendor: 'Apple', family: 'M3', variant: 'Max', name: 'Apple M3 Max', memoryGb: [36, 48, 64, 96, 128], bandwidthGBs: 400,
    variants: [
      { memoryGb: [36, 96], bandwidthGBs: 300, cpuCores: [14], gpuCores: [30], note: '14-core CPU, 30-core GPU' },
      { memoryGb: [48, 64, 128], bandwidthGBs: 400, cpuCores: [16], gpuCores: [40], note: '16-core CPU, 40-core GPU' },
    ],
  },
  { vendor: 'Apple', family: 'M3', variant: 'Ultra', name: 'Apple M3 Ultra', memoryGb: [96, 256, 512], bandwidthGBs: 819 },
  { vendor: 'Apple', family: 'M4', variant: 'Base', name: 'Apple M4', memoryGb: [16, 24, 32], bandwidthGBs: 120 },
  { vendor: 'Apple', family: 'M4', variant: 'Pro', name: 'Apple M4 Pro', memoryGb: [24, 48, 64], bandwidthGBs: 273 },
  {
    vendor: 'Apple', family: 'M4', variant: 'Max', name: 'Apple M4 Max', memoryGb: [36, 48, 64, 128], bandwidthGBs: 546,
    variants: [
      { memoryGb: [36], bandwidthGBs: 410, cpuCores: [14], gpuCores: [32], note: '14-core CPU, 32-core GPU' },
      { memoryGb: [48, 64, 128], bandwidthGBs: 546, cpuCores: [16], gpuCores: [40], note: '16-core CPU, 40-core GPU' },
    ],
  },
  { vendor: 'Apple', family: 'M5', variant: 'Base', name: 'Apple M5', memoryGb: [16, 24, 32], bandwidthGBs: 153 },
  { vendor: 'Apple', family: 'M5', variant: 'Pro', name: 'Apple M5 Pro', memoryGb: [24, 48, 64], bandwidthGBs: 307 },
  { vendor: 'Apple', family: 'M5', variant: 'Max', name: 'Apple M5 Max', memoryGb: [36, 48, 64, 128], bandwidthGBs: 614 },
];

// Source: AMD Ryzen AI / Ryzen mobile product pages. Strix Halo (Ryzen AI Max / Max+, PRO
// included; iGPU Radeon 8060S / 8050S, gfx1151): 256-bit LPDDR5X-8000 = 256 GB/s. The boxes
// and laptops built on it (Framework Desktop, GMKtec EVO-X2, ...) are this memory. Strix Point
// (Ryzen AI 9 HX 370/375, 365; Radeon 890M / 880M, gfx1150) and Phoenix / Hawk Point (Ryzen
// 7040 / 8040 mobile; Radeon 780M, gfx1103): 128-bit, up to LPDDR5X-7500 = 120 GB/s (laptops
// built with DDR5-5600 SO-DIMMs get 89.6 GB/s; not told apart by name, the higher is kept).
const amdChips: UnifiedChipSpec[] = [
  {
    vendor: 'AMD', family: 'Ryzen AI Max+', variant: '395', name: 'AMD Ryzen AI Max+ 395', memoryGb: [32, 64, 128], bandwidthGBs: 256,
    aliases: ['Ryzen AI Max 395', 'Ryzen Max+ 395', 'Ryzen AI Max+ PRO 395', 'Radeon 8060S', 'GMKtec EVO-X2'],
  },
  {
    vendor: 'AMD', family: 'Ryzen AI Max', variant: '390', name: 'AMD Ryzen AI Max 390', memoryGb: [32, 64, 128], bandwidthGBs: 256,
    aliases: ['Ryzen AI Max PRO 390'],
  },
  {
    vendor: 'AMD', family: 'Ryzen AI Max', variant: '385', name: 'AMD Ryzen AI Max 385', memoryGb: [32, 64, 128], bandwidthGBs: 256,
    aliases: ['Ryzen AI Max PRO 385'],
  },
  { vendor: 'AMD', family: 'Ryzen AI 9', variant: 'HX 370', name: 'AMD Ryzen AI 9 HX 370', memoryGb: [16, 32, 64], bandwidthGBs: 120 },
  { vendor: 'AMD', family: 'Ryzen AI 9', variant: 'HX 375', name: 'AMD Ryzen AI 9 HX 375', memoryGb: [16, 32, 64], bandwidthGBs: 120 },
  { vendor: 'AMD', family: 'Ryzen AI 9', variant: '365', name: 'AMD Ryzen AI 9 365', memoryGb: [16, 32, 64], bandwidthGBs: 120 },
  // Krackan Point (Ryzen AI 7 350 / Ryzen AI 5 340; Radeon 860M / 840M): LPDDR5X-8000, 128-bit.
  { vendor: 'AMD', family: 'Ryzen AI 7', variant: '350', name: 'AMD Ryzen AI 7 350', memoryGb: [16, 32], bandwidthGBs: 128, aliases: ['Radeon 860M'] },
  { vendor: 'AMD', family: 'Ryzen AI 5', variant: '340', name: 'AMD Ryzen AI 5 340', memoryGb: [16, 32], bandwidthGBs: 128, aliases: ['Radeon 840M'] },
  { vendor: 'AMD', family: 'Ryzen 7', variant: '7840U', name: 'AMD Ryzen 7 7840U', memoryGb: [16, 32, 64], bandwidthGBs: 120 },
  { vendor: 'AMD', family: 'Ryzen 7', variant: '7840HS', name: 'AMD Ryzen 7 7840HS', memoryGb: [16, 32, 64], bandwidthGBs: 120 },
  { vendor: 'AMD', family: 'Ryzen 9', variant: '7940HS', name: 'AMD Ryzen 9 7940HS', memoryGb: [16, 32, 64], bandwidthGBs: 120 },
  { vendor: 'AMD', family: 'Ryzen 7', variant: '8840U', name: 'AMD Ryzen 7 8840U', memoryGb: [16, 32, 64], bandwidthGBs: 120 },
  { vendor: 'AMD', family: 'Ryzen 7', variant: '8845HS', name: 'AMD Ryzen 7 8845HS', memoryGb: [16, 32, 64], bandwidthGBs: 120 },
  { vendor: 'AMD', family: 'Ryzen 9', variant: '8945HS', name: 'AMD Ryzen 9 8945HS', memoryGb: [16, 32, 64], bandwidthGBs: 120 },
];

// Source: Intel product specifications (ark.intel.com). Lunar Lake (Core Ultra 200V; Arc
// 140V / 130V): on-package LPDDR5X-8533, 128-bit = 136.5 GB/s. Meteor Lake (Core Ultra 100H /
// 100U): up to LPDDR5X-7467, 128-bit = 119.5 GB/s; Arrow Lake H (Core Ultra 200H): up to
// LPDDR5X-8400 = 134.4 GB/s (DDR5-5600 SO-DIMM builds: 89.6 GB/s; the higher is kept). Their
// iGPU's own name, 'Intel Arc Graphics', does not tell the chip and is not matched.
const intelChips: UnifiedChipSpec[] = [
  ...['226V', '228V', '236V', '238V'].map((model) => intelChip('Core Ultra 5', model, [16, 32], 136.5)),
  ...['256V', '258V', '266V', '268V'].map((model) => intelChip('Core Ultra 7', model, [16, 32], 136.5)),
  intelChip('Core Ultra 9', '288V', [32], 136.5),
  intelChip('Core Ultra 5', '125H', [16, 32, 64], 119.5),
  intelChip('Core Ultra 7', '155H', [16, 32, 64], 119.5),
  intelChip('Core Ultra 7', '155U', [16, 32, 64], 119.5),
  intelChip('Core Ultra 7', '165H', [16, 32, 64], 119.5),
  intelChip('Core Ultra 9', '185H', [16, 32, 64], 119.5),
  intelChip('Core Ultra 7', '255H', [16, 32, 64], 134.4),
  intelChip('Core Ultra 9', '285H', [16, 32, 64], 134.4),
];

function intelChip(family: string, variant: string, memoryGb: number[], bandwidthGBs: number): UnifiedChipSpec {
  return { vendor: 'Intel', family, variant, name: `Intel ${family} ${variant}`, memoryGb, bandwidthGBs };
}

// Source: Qualcomm Snapdragon X Elite / X Plus product briefs (LPDDR5X-8448, 128-bit).
const qualcommChips: UnifiedChipSpec[] = [
  { vendor: 'Qualcomm', family: 'Snapdragon X', variant: 'Elite', name: 'Qualcomm Snapdragon X Elite', memoryGb: [16, 32, 64], bandwidthGBs: 135 },
  { vendor: 'Qualcomm', family: 'Snapdragon X', variant: 'Plus', name: 'Qualcomm Snapdragon X Plus', memoryGb: [16, 32, 64], bandwidthGBs: 135 },
];

// Source: NVIDIA DGX Spark and Jetson module datasheets. Jetson Orin Nano "Super" is the
// same module with the JetPack 6.1+ MAXN SUPER mode (faster memory clock).
const nvidiaChips: UnifiedChipSpec[] = [
  {
    vendor: 'NVIDIA', family: 'GB10', variant: 'Base', name: 'NVIDIA GB10', memoryGb: [128], bandwidthGBs: 273,
    // The GB10 boxes: NVIDIA's own and its partners' (all 128 GB LPDDR5X, 273 GB/s).
    aliases: [
      'DGX Spark',
      'GB10 Grace Blackwell',
      'Dell Pro Max with GB10',
      'Dell Pro Max GB10',
      'ASUS Ascent GX10',
      'Ascent GX10',
      'Lenovo ThinkStation PGX',
      'ThinkStation PGX',
      'MSI EdgeXpert',
      'Acer Veriton GN100',
      'Gigabyte AI TOP ATOM',
      'HP ZGX Nano G1n',
    ],
  },
  { vendor: 'NVIDIA', family: 'Jetson AGX Orin', variant: 'Base', name: 'NVIDIA Jetson AGX Orin', memoryGb: [32, 64], bandwidthGBs: 204.8 },
  { vendor: 'NVIDIA', family: 'Jetson Orin NX', variant: 'Base', name: 'NVIDIA Jetson Orin NX', memoryGb: [8, 16], bandwidthGBs: 102.4 },
  {
    vendor: 'NVIDIA', family: 'Jetson Orin Nano', variant: 'Base', name: 'NVIDIA Jetson Orin Nano', memoryGb: [4, 8], bandwidthGBs: 68,
    variants: [
      { memoryGb: [4], bandwidthGBs: 34, note: '64-bit LPDDR5' },
      { memoryGb: [8], bandwidthGBs: 68, note: '128-bit LPDDR5' },
    ],
  },
  {
    vendor: 'NVIDIA', family: 'Jetson Orin Nano', variant: 'Super', name: 'NVIDIA Jetson Orin Nano Super', memoryGb: [4, 8], bandwidthGBs: 102,
    variants: [
      { memoryGb: [4], bandwidthGBs: 51, note: '64-bit LPDDR5, MAXN SUPER' },
      { memoryGb: [8], bandwidthGBs: 102, note: '128-bit LPDDR5, MAXN SUPER' },
    ],
  },
  { vendor: 'NVIDIA', family: 'Jetson AGX Thor', variant: 'Base', name: 'NVIDIA Jetson AGX Thor', memoryGb: [128], bandwidthGBs: 273 },
];

export const unifiedChips: readonly UnifiedChipSpec[] = [...appleChips, ...amdChips, ...intelChips, ...qualcommChips, ...nvidiaChips];

// ---------------------------------------------------------------------------------------
// CPUs (for CPU-only inference): peak = channels x MT/s x 8 bytes, officially supported
// memory speed at one DIMM per channel.
// ---------------------------------------------------------------------------------------

/**
 * CPUs of one line sharing a memory interface: peak = channels x MT/s x 8 bytes. An entry is
 * a name, or a name followed by its aliases.
 */
function cpuLine(
  vendor: CpuVendor,
  segment: CpuSegment,
  memoryChannels: number,
  memoryType: string,
  names: (string | [string, ...string[]])[],
): CpuSpec[] {
  const transfers = Number(/-(\d+)$/.exec(memoryType)?.[1]);
  const bandwidthGBs = Math.round(memoryChannels * transfers * 8) / 1000;
  return names.map((entry) => {
    const [name, ...aliases] = typeof entry === 'string' ? [entry] : entry;
    return { name, vendor, memoryChannels, memoryType, bandwidthGBs, segment, ...(aliases.length > 0 ? { aliases } : {}) };
  });
}

// Source: AMD Ryzen / Ryzen Threadripper / EPYC product specifications (amd.com): channels
// and the officially supported memory speed. EPYC 9005 (Turin): DDR5-6000 (6400 only on
// qualified platforms); Threadripper 9000: DDR5-6400.
const amdCpus: CpuSpec[] = [
  { name: 'AMD Ryzen 9 5900X', vendor: 'AMD', memoryChannels: 2, memoryType: 'DDR4-3200', bandwidthGBs: 51.2, segment: 'desktop', aliases: ['5900X'] },
  { name: 'AMD Ryzen 9 5950X', vendor: 'AMD', memoryChannels: 2, memoryType: 'DDR4-3200', bandwidthGBs: 51.2, segment: 'desktop', aliases: ['5950X'] },
  { name: 'AMD Ryzen 7 5800X3D', vendor: 'AMD', memoryChannels: 2, memoryType: 'DDR4-3200', bandwidthGBs: 51.2, segment: 'desktop', aliases: ['5800X3D'] },
  ...cpuLine('AMD', 'desktop', 2, 'DDR4-3200', [
    'AMD Ryzen 5 3600', 'AMD Ryzen 7 3700X', 'AMD Ryzen 9 3900X', 'AMD Ryzen 9 3950X',
    'AMD Ryzen 5 5600', 'AMD Ryzen 5 5600X', 'AMD Ryzen 5 5600G', 'AMD Ryzen 7 5700G', 'AMD Ryzen 7 5700X', 'AMD Ryzen 7 5800X',
  ]),
  { name: 'AMD Ryzen 7 7800X3D', vendor: 'AMD', memoryChannels: 2, memoryType: 'DDR5-5200', bandwidthGBs: 83.2, segment: 'desktop', aliases: ['7800X3D'] },
  { name: 'AMD Ryzen 9 7900X', vendor: 'AMD', memoryChannels: 2, memoryType: 'DDR5-5200', bandwidthGBs: 83.2, segment: 'desktop', aliases: ['7900X'] },
  { name: 'AMD Ryzen 9 7950X', vendor: 'AMD', memoryChannels: 2, memoryType: 'DDR5-5200', bandwidthGBs: 83.2, segment: 'desktop', aliases: ['7950X'] },
  { name: 'AMD Ryzen 9 7950X3D', vendor: 'AMD', memoryChannels: 2, memoryType: 'DDR5-5200', bandwidthGBs: 83.2, segment: 'desktop', aliases: ['7950X3D'] },
  ...cpuLine('AMD', 'desktop', 2, 'DDR5-5200', [
    'AMD Ryzen 5 7600', 'AMD Ryzen 5 7600X', 'AMD Ryzen 7 7700', 'AMD Ryzen 7 7700X', 'AMD Ryzen 9 7900', 'AMD Ryzen 9 7900X3D',
    'AMD Ryzen 5 8600G', 'AMD Ryzen 7 8700G',
  ]),
  { name: 'AMD Ryzen 7 9800X3D', vendor: 'AMD', memoryChannels: 2, memoryType: 'DDR5-5600', bandwidthGBs: 89.6, segment: 'desktop', aliases: ['9800X3D'] },
  { name: 'AMD Ryzen 9 9900X', vendor: 'AMD', memoryChannels: 2, memoryType: 'DDR5-5600', bandwidthGBs: 89.6, segment: 'desktop', aliases: ['9900X'] },
  { name: 'AMD Ryzen 9 9950X', vendor: 'AMD', memoryChannels: 2, memoryType: 'DDR5-5600', bandwidthGBs: 89.6, segment: 'desktop', aliases: ['9950X'] },
  { name: 'AMD Ryzen 9 9950X3D', vendor: 'AMD', memoryChannels: 2, memoryType: 'DDR5-5600', bandwidthGBs: 89.6, segment: 'desktop', aliases: ['9950X3D'] },
  ...cpuLine('AMD', 'desktop', 2, 'DDR5-5600', ['AMD Ryzen 5 9600X', 'AMD Ryzen 7 9700X', 'AMD Ryzen 9 9900X3D']),
  {
    name: 'AMD Ryzen Threadripper 7970X', vendor: 'AMD', memoryChannels: 4, memoryType: 'DDR5-5200', bandwidthGBs: 166.4, segment: 'workstation',
    aliases: ['Threadripper 7970X', '7970X'],
  },
  {
    name: 'AMD Ryzen Threadripper 7980X', vendor: 'AMD', memoryChannels: 4, memoryType: 'DDR5-5200', bandwidthGBs: 166.4, segment: 'workstation',
    aliases: ['Threadripper 7980X', '7980X'],
  },
  ...cpuLine('AMD', 'workstation', 4, 'DDR5-5200', ['AMD Ryzen Threadripper 7960X']),
  ...cpuLine('AMD', 'workstation', 4, 'DDR4-3200', ['AMD Ryzen Threadripper 3960X', 'AMD Ryzen Threadripper 3970X', 'AMD Ryzen Threadripper 3990X']),
  ...cpuLine('AMD', 'workstation', 8, 'DDR4-3200', ['AMD Ryzen Threadripper PRO 3975WX', 'AMD Ryzen Threadripper PRO 3995WX']),
  {
    name: 'AMD Ryzen Threadripper PRO 5995WX', vendor: 'AMD', memoryChannels: 8, memoryType: 'DDR4-3200', bandwidthGBs: 204.8, segment: 'workstation',
    aliases: ['Threadripper PRO 5995WX', '5995WX'],
  },
  ...cpuLine('AMD', 'workstation', 8, 'DDR4-3200', ['AMD Ryzen Threadripper PRO 5965WX', 'AMD Ryzen Threadripper PRO 5975WX']),
  {
    name: 'AMD Ryzen Threadripper PRO 7995WX', vendor: 'AMD', memoryChannels: 8, memoryType: 'DDR5-5200', bandwidthGBs: 332.8, segment: 'workstation',
    aliases: ['Threadripper PRO 7995WX', '7995WX'],
  },
  ...cpuLine('AMD', 'workstation', 8, 'DDR5-5200', [
    'AMD Ryzen Threadripper PRO 7965WX', 'AMD Ryzen Threadripper PRO 7975WX', 'AMD Ryzen Threadripper PRO 7985WX',
  ]),
  ...cpuLine('AMD', 'workstation', 4, 'DDR5-6400', [
    'AMD Ryzen Threadripper 9960X', 'AMD Ryzen Threadripper 9970X', 'AMD Ryzen Threadripper 9980X',
  ]),
  ...cpuLine('AMD', 'workstation', 8, 'DDR5-6400', [
    'AMD Ryzen Threadripper PRO 9965WX', 'AMD Ryzen Threadripper PRO 9975WX', 'AMD Ryzen Threadripper PRO 9985WX',
    'AMD Ryzen Threadripper PRO 9995WX',
  ]),
  { name: 'AMD EPYC 7742', vendor: 'AMD', memoryChannels: 8, memoryType: 'DDR4-3200', bandwidthGBs: 204.8, segment: 'server' },
  { name: 'AMD EPYC 7763', vendor: 'AMD', memoryChannels: 8, memoryType: 'DDR4-3200', bandwidthGBs: 204.8, segment: 'server' },
  // EPYC 7002 (Rome) and 7003 (Milan).
  ...cpuLine('AMD', 'server', 8, 'DDR4-3200', [
    'AMD EPYC 7302', 'AMD EPYC 7402', 'AMD EPYC 7502', 'AMD EPYC 7542', 'AMD EPYC 7702',
    'AMD EPYC 7313', 'AMD EPYC 7413', 'AMD EPYC 7443', 'AMD EPYC 7513', 'AMD EPYC 7543', 'AMD EPYC 7643', 'AMD EPYC 7713', 'AMD EPYC 7773X',
  ]),
  { name: 'AMD EPYC 9554', vendor: 'AMD', memoryChannels: 12, memoryType: 'DDR5-4800', bandwidthGBs: 460.8, segment: 'server' },
  { name: 'AMD EPYC 9654', vendor: 'AMD', memoryChannels: 12, memoryType: 'DDR5-4800', bandwidthGBs: 460.8, segment: 'server' },
  { name: 'AMD EPYC 9754', vendor: 'AMD', memoryChannels: 12, memoryType: 'DDR5-4800', bandwidthGBs: 460.8, segment: 'server' },
  // EPYC 9004 (Genoa, Genoa-X, Bergamo).
  ...cpuLine('AMD', 'server', 12, 'DDR5-4800', [
    'AMD EPYC 9124', 'AMD EPYC 9174F', 'AMD EPYC 9224', 'AMD EPYC 9254', 'AMD EPYC 9274F', 'AMD EPYC 9334', 'AMD EPYC 9354',
    'AMD EPYC 9374F', 'AMD EPYC 9454', 'AMD EPYC 9474F', 'AMD EPYC 9534', 'AMD EPYC 9634', 'AMD EPYC 9684X', 'AMD EPYC 9734',
  ]),
  // EPYC 8004 (Siena): 6 channels.
  ...cpuLine('AMD', 'server', 6, 'DDR5-4800', ['AMD EPYC 8124P', 'AMD EPYC 8224P', 'AMD EPYC 8324P', 'AMD EPYC 8434P', 'AMD EPYC 8534P']),
  // EPYC 9005 (Turin, Turin Dense).
  ...cpuLine('AMD', 'server', 12, 'DDR5-6000', [
    'AMD EPYC 9015', 'AMD EPYC 9115', 'AMD EPYC 9135', 'AMD EPYC 9175F', 'AMD EPYC 9255', 'AMD EPYC 9275F', 'AMD EPYC 9335',
    'AMD EPYC 9355', 'AMD EPYC 9365', 'AMD EPYC 9375F', 'AMD EPYC 9455', 'AMD EPYC 9475F', 'AMD EPYC 9535', 'AMD EPYC 9555',
    'AMD EPYC 9565', 'AMD EPYC 9575F', 'AMD EPYC 9645', 'AMD EPYC 9655', 'AMD EPYC 9745', 'AMD EPYC 9755', 'AMD EPYC 9825',
    'AMD EPYC 9845', 'AMD EPYC 9965',
  ]),
];

// Source: Intel product specifications (ark.intel.com): channels and the officially
// supported memory speed (12th-14th gen Core at DDR5; the Core i5-13400 / 14400 are Alder
// Lake silicon at DDR5-4800). Xeon 6900P: DDR5-6400 RDIMM figure (MRDIMM-8800 would give
// 844.8 GB/s). N-series (N97, N100, N150, N200, Core i3-N300/N305): one 64-bit channel,
// DDR5-4800 = 38.4 GB/s.
const intelCpus: CpuSpec[] = [
  { name: 'Intel Core i9-13900K', vendor: 'Intel', memoryChannels: 2, memoryType: 'DDR5-5600', bandwidthGBs: 89.6, segment: 'desktop', aliases: ['i9-13900K', '13900K'] },
  { name: 'Intel Core i7-14700K', vendor: 'Intel', memoryChannels: 2, memoryType: 'DDR5-5600', bandwidthGBs: 89.6, segment: 'desktop', aliases: ['i7-14700K', '14700K'] },
  { name: 'Intel Core i9-14900K', vendor: 'Intel', memoryChannels: 2, memoryType: 'DDR5-5600', bandwidthGBs: 89.6, segment: 'desktop', aliases: ['i9-14900K', '14900K'] },
  ...cpuLine('Intel', 'desktop', 2, 'DDR5-4800', [
    'Intel Core i3-12100', 'Intel Core i5-12400', 'Intel Core i5-12600K', 'Intel Core i7-12700K', 'Intel Core i9-12900K',
    'Intel Core i5-13400', 'Intel Core i5-14400',
  ]),
  ...cpuLine('Intel', 'desktop', 2, 'DDR5-5600', [
    'Intel Core i5-13600K', 'Intel Core i7-13700K', 'Intel Core i9-13900KS', 'Intel Core i5-14600K', 'Intel Core i9-14900KS',
  ]),
  {
    name: 'Intel Core Ultra 9 285K', vendor: 'Intel', memoryChannels: 2, memoryType: 'DDR5-6400', bandwidthGBs: 102.4, segment: 'desktop',
    aliases: ['Ultra 9 285K', '285K'],
  },
  ...cpuLine('Intel', 'desktop', 2, 'DDR5-6400', ['Intel Core Ultra 5 245K', 'Intel Core Ultra 7 265K']),
  // Laptop CPUs seen in published runs: Kaby Lake H (DDR4-2400), Tiger Lake (LPDDR4X-4267, 128-bit).
  ...cpuLine('Intel', 'desktop', 2, 'DDR4-2400', ['Intel Core i7-7820HQ']),
  ...cpuLine('Intel', 'desktop', 2, 'LPDDR4X-4267', ['Intel Core i5-1135G7', 'Intel Core i7-1165G7']),
  ...cpuLine('Intel', 'desktop', 1, 'DDR5-4800', [
    'Intel Processor N97', 'Intel Processor N100', 'Intel Processor N150', 'Intel Processor N200', 'Intel Core i3-N300', 'Intel Core i3-N305',
  ]),
  { name: 'Intel Xeon w9-3495X', vendor: 'Intel', memoryChannels: 8, memoryType: 'DDR5-4800', bandwidthGBs: 307.2, segment: 'workstation', aliases: ['w9-3495X'] },
  ...cpuLine('Intel', 'workstation', 8, 'DDR5-4800', [
    'Intel Xeon w5-3435X', 'Intel Xeon w7-3465X', 'Intel Xeon w9-3475X', 'Intel Xeon w7-3565X', 'Intel Xeon w9-3595X',
  ]),
  ...cpuLine('Intel', 'workstation', 4, 'DDR5-4800', ['Intel Xeon w5-2455X', 'Intel Xeon w7-2495X']),
  {
    name: 'Intel Xeon Platinum 8380', vendor: 'Intel', memoryChannels: 8, memoryType: 'DDR4-3200', bandwidthGBs: 204.8, segment: 'server',
    aliases: ['Platinum 8380'],
  },
  {
    name: 'Intel Xeon Platinum 8480+', vendor: 'Intel', memoryChannels: 8, memoryType: 'DDR5-4800', bandwidthGBs: 307.2, segment: 'server',
    aliases: ['Platinum 8480+', 'Xeon 8480+'],
  },
  // 4th gen (Sapphire Rapids) and 5th gen (Emerald Rapids) Xeon Scalable.
  ...cpuLine('Intel', 'server', 8, 'DDR5-4800', ['Intel Xeon Platinum 8468', 'Intel Xeon Platinum 8470', 'Intel Xeon Platinum 8490H']),
  ...cpuLine('Intel', 'server', 8, 'DDR5-5600', [
    'Intel Xeon Platinum 8562Y+', 'Intel Xeon Platinum 8568Y+', 'Intel Xeon Platinum 8570', 'Intel Xeon Platinum 8580', 'Intel Xeon Platinum 8592+',
  ]),
  { name: 'Intel Xeon 6980P', vendor: 'Intel', memoryChannels: 12, memoryType: 'DDR5-6400', bandwidthGBs: 614.4, segment: 'server', aliases: ['6980P'] },
  ...cpuLine('Intel', 'server', 12, 'DDR5-6400', ['Intel Xeon 6952P', 'Intel Xeon 6960P', 'Intel Xeon 6972P', 'Intel Xeon 6979P']),
];

// Source: Ampere Altra / Altra Max product briefs (8-channel DDR4-3200); AWS Graviton pages
// (Graviton2: 8-channel DDR4-3200, Graviton3: 8-channel DDR5-4800, Graviton4: 12-channel
// DDR5-5600); NVIDIA Grace CPU datasheet (Grace Hopper: up to 480 GB LPDDR5X at up to
// 512 GB/s per Grace CPU; the two-CPU Grace CPU Superchip doubles it across its sockets).
// AmpereOne is left out (memory speed not certain).
const ampereCpus: CpuSpec[] = [
  { name: 'Ampere Altra Q80-30', vendor: 'Ampere', memoryChannels: 8, memoryType: 'DDR4-3200', bandwidthGBs: 204.8, segment: 'server', aliases: ['Altra Q80-30', 'Q80-30'] },
  { name: 'Ampere Altra Max M128-30', vendor: 'Ampere', memoryChannels: 8, memoryType: 'DDR4-3200', bandwidthGBs: 204.8, segment: 'server', aliases: ['Altra Max M128-30', 'M128-30'] },
  ...cpuLine('Ampere', 'server', 8, 'DDR4-3200', ['Ampere Altra Q32-17', 'Ampere Altra Q64-22', 'Ampere Altra Q80-28']),
];

// Source: Raspberry Pi product briefs: Pi 5 / Pi 500 / Pi 500+ (BCM2712) 32-bit LPDDR4X-4267;
// Pi 4 Model B / Pi 400 (BCM2711) 32-bit LPDDR4-3200 (half a 64-bit channel).
const otherArmCpus: CpuSpec[] = [
  ...cpuLine('Raspberry Pi', 'embedded', 0.5, 'LPDDR4X-4267', [
    ['Raspberry Pi 5', 'Pi 5', 'RPi 5'],
    ['Raspberry Pi 500', 'Pi 500'],
    ['Raspberry Pi 500+', 'Pi 500+'],
  ]),
  ...cpuLine('Raspberry Pi', 'embedded', 0.5, 'LPDDR4-3200', [
    ['Raspberry Pi 4 Model B', 'Raspberry Pi 4', 'Pi 4', 'RPi 4'],
    ['Raspberry Pi 400', 'Pi 400'],
  ]),
  ...cpuLine('AWS', 'server', 8, 'DDR4-3200', ['AWS Graviton2']),
  ...cpuLine('AWS', 'server', 8, 'DDR5-4800', ['AWS Graviton3']),
  ...cpuLine('AWS', 'server', 12, 'DDR5-5600', ['AWS Graviton4']),
  { name: 'NVIDIA Grace', vendor: 'NVIDIA', memoryChannels: 0, memoryType: 'LPDDR5X', bandwidthGBs: 512, segment: 'server', aliases: ['Grace CPU'] },
];

export const cpus: readonly CpuSpec[] = [...amdCpus, ...intelCpus, ...ampereCpus, ...otherArmCpus];

// ---------------------------------------------------------------------------------------
// Names shared by several products
// ---------------------------------------------------------------------------------------

/**
 * A name several catalogued products are sold or shown under: a bare name without the form
 * factor or memory type that sets the bandwidth ('A100'), a chip family ('Strix Halo'), an
 * integrated GPU or GPU target inside several chips ('Radeon 780M', 'gfx1151'), a machine
 * sold with several chips ('Framework Desktop'). The lookup reads it as any of its members:
 * the lower reading is the slowest member's bandwidth, the upper the fastest's, and a text
 * that also names one member ('Framework Desktop (Ryzen AI Max+ 395)') narrows it to that
 * member. The first member is what a bare lookup returns. Members are canonical names.
 */
export interface SharedName {
  name: string;
  members: string[];
}

const strixHalo = ['AMD Ryzen AI Max+ 395', 'AMD Ryzen AI Max 390', 'AMD Ryzen AI Max 385'];
const strixPoint = ['AMD Ryzen AI 9 HX 370', 'AMD Ryzen AI 9 HX 375', 'AMD Ryzen AI 9 365'];
// The desktop Ryzen 7 8700G (a CPU entry: DDR5-5200 DIMMs) carries the same 780M.
const phoenixHawkPoint = [
  'AMD Ryzen 7 7840U', 'AMD Ryzen 7 7840HS', 'AMD Ryzen 9 7940HS', 'AMD Ryzen 7 8840U', 'AMD Ryzen 7 8845HS', 'AMD Ryzen 9 8945HS',
  'AMD Ryzen 7 8700G',
];
const lunarLake140V = ['Intel Core Ultra 7 256V', 'Intel Core Ultra 7 258V', 'Intel Core Ultra 7 266V', 'Intel Core Ultra 7 268V', 'Intel Core Ultra 9 288V'];
const lunarLake130V = ['Intel Core Ultra 5 226V', 'Intel Core Ultra 5 228V', 'Intel Core Ultra 5 236V', 'Intel Core Ultra 5 238V'];

export const sharedNames: readonly SharedName[] = [
  { name: 'A100', members: ['NVIDIA A100 PCIe', 'NVIDIA A100 SXM'] },
  { name: 'H100', members: ['NVIDIA H100 PCIe', 'NVIDIA H100 SXM'] },
  { name: 'RTX 3060 Ti', members: ['NVIDIA GeForce RTX 3060 Ti', 'NVIDIA GeForce RTX 3060 Ti GDDR6X'] },
  { name: 'Strix Halo', members: strixHalo },
  { name: 'Ryzen AI Max', members: strixHalo },
  { name: 'gfx1151', members: strixHalo },
  { name: 'Radeon 8050S', members: ['AMD Ryzen AI Max 390', 'AMD Ryzen AI Max 385'] },
  // Framework sells the Desktop with the Ryzen AI Max 385 or the Ryzen AI Max+ 395.
  { name: 'Framework Desktop', members: ['AMD Ryzen AI Max+ 395', 'AMD Ryzen AI Max 385'] },
  { name: 'Strix Point', members: strixPoint },
  { name: 'gfx1150', members: strixPoint },
  { name: 'Radeon 890M', members: ['AMD Ryzen AI 9 HX 370', 'AMD Ryzen AI 9 HX 375'] },
  { name: 'Radeon 880M', members: ['AMD Ryzen AI 9 365'] },
  { name: 'Radeon 780M', members: phoenixHawkPoint },
  { name: 'gfx1103', members: phoenixHawkPoint },
  { name: 'Lunar Lake', members: [...lunarLake130V, ...lunarLake140V] },
  { name: 'Arc 140V', members: lunarLake140V },
  { name: 'Arc 130V', members: lunarLake130V },
  { name: 'Meteor Lake', members: ['Intel Core Ultra 5 125H', 'Intel Core Ultra 7 155H', 'Intel Core Ultra 7 155U', 'Intel Core Ultra 7 165H', 'Intel Core Ultra 9 185H'] },
];
