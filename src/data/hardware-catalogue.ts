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
 *
 * Peak FP16 (`peakFp16Tflops`, GPUs and chips): see `PeakFp16`. A figure that could not be
 * sourced is left out, never estimated; test/unit/hardware-fp16.test.ts names every GPU and chip
 * without one, with the reason.
 */

/**
 * Peak dense FP16 throughput in TFLOPS (no structured sparsity), at the vendor's boost clock: the
 * figure that bounds prompt processing (prefill), which is matrix multiplication.
 * - Where the GPU has matrix units (NVIDIA Tensor Cores from Volta on, AMD WMMA on RDNA 3 / 3.5
 *   / 4 and MFMA on CDNA, Intel XMX), their FP16 rate with FP32 accumulate: the precision
 *   inference engines' matrix kernels use by default. NVIDIA GeForce cards run FP16 x FP16 + FP32
 *   at half their FP16-accumulate rate (TITAN V, TITAN RTX and professional / data-center cards
 *   at the full rate); the half figure is the one held (RTX 4090: 165.2, not 330.3).
 * - Without matrix units, the shader FP16 rate (packed, twice FP32, where the GPU has it: GTX
 *   16, Vega, RDNA 1 / 2; equal to FP32 on Polaris and on Apple GPUs, whose FP16 runs at the FP32
 *   rate).
 * - Pascal GP102 to GP108 (GeForce GTX 10, TITAN X / Xp, Quadro P, Tesla P4 / P40) run FP16 at
 *   1/64 of FP32, so engines compute in FP32 there: no FP16 figure would describe their prefill,
 *   and none is held. GP100 (Tesla P100, Quadro GP100) runs it at twice FP32 and has one.
 * Where a product is sold in several forms of one name (PCIe / SXM, 6 / 12 GB), the faster form's
 * figure is held, as for bandwidth (a bound errs high).
 */
export type PeakFp16 = number;

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
  /** Last-level cache (L2, or AMD's Infinity Cache), MB: weights that fit it need not be read from memory. */
  llcMb?: number;
  /** Peak dense FP16 TFLOPS (`PeakFp16`); absent where no sourced figure exists. */
  peakFp16Tflops?: PeakFp16;
  /** Where the figures come from. */
  source: string;
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
  /** Last-level (system-level) cache, MB. */
  llcMb?: number;
  /** Peak dense FP16 TFLOPS of the chip's GPU, largest bin (`PeakFp16`); absent where no sourced figure exists. */
  peakFp16Tflops?: PeakFp16;
  /** Where the figures come from. */
  source: string;
}

export type CpuVendor = 'AMD' | 'Intel' | 'Ampere' | 'AWS' | 'NVIDIA' | 'Raspberry Pi' | 'Rockchip';
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
  /** Last-level cache (L3), MB. */
  llcMb?: number;
  /**
   * Peak FP16 TFLOPS of the CPU's vector units. Held for no CPU so far, on purpose: vendors
   * publish no such figure, a line here groups models of different core counts and clocks, and
   * the all-core clock under wide vector load (below the advertised boost, AVX-512 offsets) is
   * not published for most parts, so cores x clock x FLOPs per cycle would be an estimate. A
   * figure derived from published fixed clocks may be added with its formula as the source.
   */
  peakFp16Tflops?: PeakFp16;
  /** Where the figures come from. */
  source: string;
}

// ---------------------------------------------------------------------------------------
// GPUs
// ---------------------------------------------------------------------------------------

// Every GPU is written as `card(name, memory sizes, bandwidth, last-level cache, peak FP16)`:
// one bandwidth, or one per memory size ({ 3: 192, 6: 216 }) where the sizes sold differ in
// bus or data rate. The last-level cache is the L2 (NVIDIA, Intel, AMD before RDNA 2) or
// the Infinity Cache (AMD RDNA 2 and later, MI300), in MB; left out where not certain. Peak
// FP16 is dense TFLOPS as `PeakFp16` defines it; left out where not sourced.
// Each group says where its figures come from (`source` on every entry).

type CardRow = Omit<GpuSpec, 'vendor' | 'segment' | 'source'>;

function card(
  name: string,
  vramGb: number[],
  bandwidth: number | Record<number, number>,
  llcMb?: number,
  peakFp16Tflops?: PeakFp16,
  extra: Partial<CardRow> = {},
): CardRow {
  const perSize = typeof bandwidth === 'number' ? null : bandwidth;
  const variants = perSize ? vramGb.map((size) => ({ vramGb: size, bandwidthGBs: perSize[size]! })) : undefined;
  const distinct = variants && new Set(variants.map((v) => v.bandwidthGBs)).size > 1;
  return {
    name,
    vramGb,
    bandwidthGBs: perSize ? perSize[vramGb[vramGb.length - 1]!]! : (bandwidth as number),
    ...(distinct ? { variants } : {}),
    ...(llcMb === undefined ? {} : { llcMb }),
    ...(peakFp16Tflops === undefined ? {} : { peakFp16Tflops }),
    ...extra,
  };
}

function cards(vendor: GpuVendor, segment: GpuSegment, source: string, rows: CardRow[]): GpuSpec[] {
  return rows.map((row) => ({ ...row, vendor, segment, source }));
}

const NVIDIA_SPECS =
  'NVIDIA product pages and specifications (memory interface x data rate); L2 sizes from the architecture whitepapers (Pascal, Turing, Ampere GA102, Ada, Blackwell) and the TechPowerUp GPU database';

// Peak FP16 of GeForce cards: Tensor Core FP16 with FP32 accumulate, dense. The architecture
// whitepapers tabulate it ('Peak FP16 Tensor TFLOPS with FP32 Accumulate': RTX 2070 29.9, 2080
// 40.3, 2080 Ti 53.8 in Turing's; 3070 40.6, 3080 59.5, 3090 71 in GA102's; 4070 Ti 80.2, 4080
// 97.5, 4090 165.2 in Ada's; 5090 209.5 in Blackwell's); the other cards are SMs x boost clock x
// the per-SM rate those tables give (512 FLOPs per clock per SM for GeForce Turing, Ampere, Ada
// and Blackwell; 1024 for TITAN RTX and TITAN V). GTX 16 (no Tensor Cores): CUDA cores x boost
// clock x 4 (packed FP16). Where the sizes sold are different chips (RTX 2060 12 GB: 34 SMs; RTX
// 3050 8 GB: 20; RTX 3080 12 GB: 70), the larger size's figure is held. Pascal: see `PeakFp16`.
const NVIDIA_FP16 =
  'peak FP16: NVIDIA Turing / GA102 / Ada / Blackwell architecture whitepapers (Tensor FP16 with FP32 accumulate, dense), or SMs x boost clock x their per-SM rate';

const nvidiaConsumer = cards('NVIDIA', 'consumer', `${NVIDIA_SPECS}; ${NVIDIA_FP16}; TITAN V: NVIDIA's 110 Tensor TFLOPS`, [
  // Pascal
  // GT 1030: 48 GB/s with GDDR5; a DDR4 edition (16.8 GB/s) shares the name and size, so the
  // faster figure bounds both (never a false alarm).
  card('NVIDIA GeForce GT 1030', [2], 48, 0.5),
  card('NVIDIA GeForce GTX 1050', [2, 3], { 2: 112, 3: 84 }, 1),
  card('NVIDIA GeForce GTX 1050 Ti', [4], 112, 1),
  card('NVIDIA GeForce GTX 1060', [3, 6], { 3: 192, 6: 216 }, 1.5),
  card('NVIDIA GeForce GTX 1070', [8], 256, 2),
  card('NVIDIA GeForce GTX 1070 Ti', [8], 256, 2),
  card('NVIDIA GeForce GTX 1080', [8], 320, 2),
  card('NVIDIA GeForce GTX 1080 Ti', [11], 484, 2.75),
  card('NVIDIA TITAN X Pascal', [12], 480, 3),
  card('NVIDIA TITAN Xp', [12], 547.7, 3),
  // Volta / Turing
  card('NVIDIA TITAN V', [12], 652.8, 4.5, 110),
  card('NVIDIA GeForce GTX 1650', [4], 192, 1, 5.97),
  card('NVIDIA GeForce GTX 1650 SUPER', [4], 192, 1, 8.83),
  card('NVIDIA GeForce GTX 1660', [6], 192, 1.5, 10.05),
  card('NVIDIA GeForce GTX 1660 SUPER', [6], 336, 1.5, 10.05),
  card('NVIDIA GeForce GTX 1660 Ti', [6], 288, 1.5, 10.87),
  card('NVIDIA GeForce RTX 2060', [6, 12], 336, 3, 28.7),
  card('NVIDIA GeForce RTX 2060 SUPER', [8], 448, 4, 28.7),
  card('NVIDIA GeForce RTX 2070', [8], 448, 4, 29.9),
  card('NVIDIA GeForce RTX 2070 SUPER', [8], 448, 4, 36.3),
  card('NVIDIA GeForce RTX 2080', [8], 448, 4, 40.3),
  card('NVIDIA GeForce RTX 2080 SUPER', [8], 496, 4, 44.6),
  card('NVIDIA GeForce RTX 2080 Ti', [11], 616, 5.5, 53.8),
  card('NVIDIA TITAN RTX', [24], 672, 6, 130.5),
  // Ampere
  card('NVIDIA GeForce RTX 3050', [6, 8], { 6: 168, 8: 224 }, 2, 18.2),
  card('NVIDIA GeForce RTX 3060', [8, 12], { 8: 240, 12: 360 }, 3, 25.5),
  card('NVIDIA GeForce RTX 3060 Ti', [8], 448, 4, 32.4),
  card('NVIDIA GeForce RTX 3060 Ti GDDR6X', [8], 608, 4, 32.4),
  card('NVIDIA GeForce RTX 3070', [8], 448, 4, 40.6),
  card('NVIDIA GeForce RTX 3070 Ti', [8], 608, 4, 43.5),
  card('NVIDIA GeForce RTX 3080', [10, 12], { 10: 760, 12: 912 }, 6, 61.3),
  card('NVIDIA GeForce RTX 3080 Ti', [12], 912, 6, 68.2),
  card('NVIDIA GeForce RTX 3090', [24], 936, 6, 71.2),
  card('NVIDIA GeForce RTX 3090 Ti', [24], 1008, 6, 80),
  // Ada Lovelace
  card('NVIDIA GeForce RTX 4060', [8], 272, 24, 30.2),
  card('NVIDIA GeForce RTX 4060 Ti', [8, 16], 288, 32, 44.1),
  card('NVIDIA GeForce RTX 4070', [12], 504, 36, 58.3),
  card('NVIDIA GeForce RTX 4070 SUPER', [12], 504, 48, 71),
  card('NVIDIA GeForce RTX 4070 Ti', [12], 504, 48, 80.2),
  card('NVIDIA GeForce RTX 4070 Ti SUPER', [16], 672, 48, 88.2),
  card('NVIDIA GeForce RTX 4080', [16], 716.8, 64, 97.5),
  card('NVIDIA GeForce RTX 4080 SUPER', [16], 736, 64, 104.4),
  card('NVIDIA GeForce RTX 4090', [24], 1008, 72, 165.2),
  card('NVIDIA GeForce RTX 4090 D', [24], 1008, 72, 147.1),
  // Blackwell
  card('NVIDIA GeForce RTX 5050', [8], 320, 32, 26.3),
  card('NVIDIA GeForce RTX 5060', [8], 448, 32, 38.4),
  card('NVIDIA GeForce RTX 5060 Ti', [8, 16], 448, 32, 47.4),
  card('NVIDIA GeForce RTX 5070', [12], 672, 48, 61.7),
  card('NVIDIA GeForce RTX 5070 Ti', [16], 896, 64, 87.9),
  card('NVIDIA GeForce RTX 5080', [16], 960, 64, 112.6),
  card('NVIDIA GeForce RTX 5090', [32], 1792, 96, 209.5),
  card('NVIDIA GeForce RTX 5090 D', [32], 1792, 96, 209.5),
  // 5090 D v2: 24 GB of GDDR7 at 28 Gbps on a 384-bit bus (the 5090 D's is 512-bit), 96 MB L2
  // (Tom's Hardware, 2025-08-12, 'Nvidia RTX 5090D V2 limits AI performance even more'). Its
  // table gives the 5090 D's GB202 unchanged (170 SMs, 2,407 MHz boost, 2,375 AI TOPS), so the
  // 5090 D's peak FP16 is held.
  card('NVIDIA GeForce RTX 5090 D v2', [24], 1344, 96, 209.5),
]);

// Peak FP16 of laptop GPUs: NVIDIA publishes a range of boost clocks for each (the laptop's
// power limit picks the clock); the top of the range is held, the fastest laptop's figure (a
// bound errs high): SMs x top boost x 512, as for the desktop GeForce cards. RTX 40: 4090 76 SMs
// 2040 MHz, 4080 58 / 2280, 4070 36 / 2175, 4060 24 / 2370, 4050 20 / 2370 MHz; RTX 30: 3080 Ti
// 58 / 1590, 3080 48 / 1710, 3070 Ti 46 / 1485, 3070 40 / 1620, 3060 30 / 1703, 3050 Ti 20 / 1695
// MHz. RTX 50: NVIDIA's 'AI TOPS' (FP4 with sparsity) / 16, the ratio the desktop cards' figures
// keep (RTX 5090: 3,352 / 16 = 209.5): 5090 Laptop 1,824 -> 114, 5080 1,334 -> 83.4, 5070 Ti 992
// -> 62, 5070 798 -> 49.9, 5060 572 -> 35.7. RTX 20: NVIDIA's laptop specifications as the press
// printed them: 2080 46 SMs, boost 1,380-1,590 MHz (notebookcheck.net, game-debate.com) -> 37.4;
// 2060 30 SMs, 1,560 MHz top of the 2020 refresh's 1,005-1,560 MHz range (notebookcheck.net; the
// 2019 launch part tops at 1,200 MHz, techquila.co.in) -> 24; 2070 36 SMs, 1,440 MHz, and 2050
// (Ampere GA107) 2,048 CUDA cores = 16 SMs, 1,155-1,477 MHz, both in NVIDIA's comparison table at
// the RTX 2050 launch (notebookcheck.com, techchacho.com, 2021-12) -> 26.5 and 12.1. GTX 16 (no
// Tensor Cores): CUDA cores x top boost x 4 (packed FP16), from NVIDIA's laptop datasheets as
// printed by computerbase.de and hardwareluxx.de (2019-04): 1660 Ti 1,536 cores, 1,335-1,590 MHz
// -> 9.77; 1650 1,024 cores, 1,245-1,560 MHz -> 6.39 (the later 896-core GDDR6 part is slower).
// Not held (no range or figure checked): GTX 10 laptops (Pascal, see `PeakFp16`), GTX 1650 Ti,
// RTX 2070 SUPER and 2080 SUPER laptops, RTX 3050 Laptop (4 GB and 6 GB are different chips),
// RTX 5050 Laptop, MX; professional laptop GPUs also lack a stated FP32-accumulate rate (full,
// as the workstation cards, or half, as GeForce).
// NVIDIA does not publish laptop memory data rates; the rate is the one the shipped GPUs run
// (TechPowerUp GPU database, GPU-Z): RTX 20 / 30 laptop GDDR6 14 Gbps (3080 Ti: 16 Gbps), RTX
// 40 laptop GDDR6 16 Gbps (4080 / 4090: 18 Gbps), RTX 50 laptop GDDR7 28 Gbps (5060 / 5070
// ship at 24 Gbps in most laptops; 28 Gbps, the higher reading, is kept). A laptop GPU is a
// different chip or bus from the desktop card of the same number and is never matched as it.
// Max-Q designs share the laptop GPU's memory bus (some clock it lower; the higher is kept).
const NVIDIA_LAPTOP_FP16 =
  "peak FP16: SMs x the top of NVIDIA's laptop boost-clock range x 512, or NVIDIA's AI TOPS / 16 for RTX 50 (GeForce Tensor FP16 with FP32 accumulate); GTX 16 laptops CUDA cores x top boost x 4 (packed FP16); RTX 20 / GTX 16 laptop clock ranges from NVIDIA's specifications as printed by notebookcheck.net, computerbase.de and hardwareluxx.de";
const nvidiaLaptop = cards('NVIDIA', 'laptop', `${NVIDIA_SPECS}; laptop data rates from the TechPowerUp GPU database; ${NVIDIA_LAPTOP_FP16}`, [
  card('NVIDIA GeForce GTX 1050 Laptop GPU', [4], 112, 1),
  card('NVIDIA GeForce GTX 1050 Ti Laptop GPU', [4], 112, 1),
  card('NVIDIA GeForce GTX 1060 Laptop GPU', [6], 192, 1.5),
  card('NVIDIA GeForce GTX 1070 Laptop GPU', [8], 256, 2),
  card('NVIDIA GeForce GTX 1080 Laptop GPU', [8], 320, 2),
  card('NVIDIA GeForce GTX 1650 Laptop GPU', [4], 192, 1, 6.39),
  card('NVIDIA GeForce GTX 1650 Ti Laptop GPU', [4], 192, 1),
  card('NVIDIA GeForce GTX 1660 Ti Laptop GPU', [6], 288, 1.5, 9.77),
  card('NVIDIA GeForce RTX 2050 Laptop GPU', [4], 112, 2, 12.1),
  card('NVIDIA GeForce RTX 2060 Laptop GPU', [6], 336, 3, 24),
  card('NVIDIA GeForce RTX 2070 Laptop GPU', [8], 448, 4, 26.5),
  card('NVIDIA GeForce RTX 2070 SUPER Laptop GPU', [8], 448, 4),
  card('NVIDIA GeForce RTX 2080 Laptop GPU', [8], 448, 4, 37.4),
  card('NVIDIA GeForce RTX 2080 SUPER Laptop GPU', [8], 448, 4),
  card('NVIDIA GeForce RTX 3050 Laptop GPU', [4, 6], 192, 2),
  card('NVIDIA GeForce RTX 3050 Ti Laptop GPU', [4], 192, 2, 17.4),
  card('NVIDIA GeForce RTX 3060 Laptop GPU', [6], 336, 3, 26.2),
  card('NVIDIA GeForce RTX 3070 Laptop GPU', [8], 448, 4, 33.2),
  card('NVIDIA GeForce RTX 3070 Ti Laptop GPU', [8], 448, 4, 35),
  card('NVIDIA GeForce RTX 3080 Laptop GPU', [8, 16], 448, 4, 42),
  card('NVIDIA GeForce RTX 3080 Ti Laptop GPU', [16], 512, 4, 47.2),
  card('NVIDIA GeForce RTX 4050 Laptop GPU', [6], 192, 24, 24.3),
  card('NVIDIA GeForce RTX 4060 Laptop GPU', [8], 256, 32, 29.1),
  card('NVIDIA GeForce RTX 4070 Laptop GPU', [8], 256, 32, 40.1),
  card('NVIDIA GeForce RTX 4080 Laptop GPU', [12], 432, 48, 67.7),
  card('NVIDIA GeForce RTX 4090 Laptop GPU', [16], 576, 64, 79.4),
  card('NVIDIA GeForce RTX 5050 Laptop GPU', [8], 384, 32),
  card('NVIDIA GeForce RTX 5060 Laptop GPU', [8], 448, 32, 35.7),
  card('NVIDIA GeForce RTX 5070 Laptop GPU', [8], 448, 32, 49.9),
  card('NVIDIA GeForce RTX 5070 Ti Laptop GPU', [12], 672, 48, 62),
  card('NVIDIA GeForce RTX 5080 Laptop GPU', [16], 896, 64, 83.4),
  card('NVIDIA GeForce RTX 5090 Laptop GPU', [24], 896, 64, 114),
  card('NVIDIA GeForce MX150', [2, 4], 48, 0.5),
  card('NVIDIA GeForce MX250', [2, 4], 56, 0.5),
  card('NVIDIA GeForce MX350', [2], 56, 0.5),
  card('NVIDIA GeForce MX450', [2], 96, 1),
  card('NVIDIA GeForce MX550', [2, 4], 96, 1),
  card('NVIDIA GeForce MX570', [2, 4], 96, 2),
  // Professional laptop GPUs (NVIDIA RTX / T-series laptop datasheets).
  card('NVIDIA T600 Laptop GPU', [4], 192, 1),
  card('NVIDIA T1200 Laptop GPU', [4], 192, 1),
  card('NVIDIA RTX A1000 Laptop GPU', [4, 6], 192, 2),
  card('NVIDIA RTX A2000 Laptop GPU', [4, 8], 224, 2),
  card('NVIDIA RTX A3000 Laptop GPU', [6, 12], 336, 3),
  card('NVIDIA RTX A4000 Laptop GPU', [8], 448, 4),
  card('NVIDIA RTX A5000 Laptop GPU', [16], 448, 4),
  card('NVIDIA RTX A5500 Laptop GPU', [16], 448, 4),
  card('NVIDIA RTX 2000 Ada Generation Laptop GPU', [8], 256, 32),
  card('NVIDIA RTX 3000 Ada Generation Laptop GPU', [8], 256, 32),
  card('NVIDIA RTX 3500 Ada Generation Laptop GPU', [12], 432, 48),
  card('NVIDIA RTX 4000 Ada Generation Laptop GPU', [12], 432, 48),
  card('NVIDIA RTX 5000 Ada Generation Laptop GPU', [16], 576, 64),
]);

// RTX PRO Blackwell (GTC 2025 launch and product pages): 6000 96 GB GDDR7 512-bit 1792 GB/s
// (Workstation, Max-Q Workstation and Server Editions read at the same, higher, figure).
// Peak FP16: the datasheets' Tensor performance, dense (Quadro RTX 4000 57.0, 5000 89.2, 6000 /
// 8000 130.5; GV100 118.5; GP100 20.7 FP16); professional cards run FP32 accumulate at the full
// rate, 1024 FLOPs per clock per SM, so the others are SMs x boost clock x 1024 (RTX A6000: 84 x
// 1.80 GHz = 154.8; RTX 6000 Ada: 142 x 2.505 GHz = 364.2; RTX PRO 6000 Blackwell: 188 x 2.617 GHz
// = 503.8). RTX A400: half the datasheet's 21.7 FP16 Tensor TFLOPS, which is with sparsity (6
// SMs x 1.77 GHz x 1024 = 10.85); RTX A1000 the same way: 2,304 CUDA cores and 72 Tensor Cores =
// 18 SMs x 1.46 GHz x 1024 = 26.9 (NVIDIA's launch figures, avalanchenoticias.com.br, 2024-04).
// T400 / T600 / T1000 (no Tensor Cores): CUDA cores x boost clock x 4. Not held: RTX PRO 5000 /
// 4500 / 4000 / 2000 Blackwell (no datasheet figure found; third-party boost clocks disagree with
// NVIDIA's AI TOPS), and Pascal Quadro P (see `PeakFp16`).
const NVIDIA_PRO_FP16 = "peak FP16: the datasheets' Tensor TFLOPS (dense), or SMs x boost clock x 1024";
const nvidiaWorkstation = cards('NVIDIA', 'workstation', `${NVIDIA_SPECS}; Quadro / RTX professional datasheets; ${NVIDIA_PRO_FP16}`, [
  card('NVIDIA Quadro P1000', [4], 82, 1),
  card('NVIDIA Quadro P2000', [5], 140, 1.25),
  card('NVIDIA Quadro P4000', [8], 243, 2),
  card('NVIDIA Quadro P5000', [16], 288, 2),
  card('NVIDIA Quadro P6000', [24], 432, 3),
  card('NVIDIA Quadro GP100', [16], 717, 4, 20.7),
  card('NVIDIA Quadro GV100', [32], 870, 6, 118.5),
  card('NVIDIA T400', [2, 4], 80, 1, 2.19),
  card('NVIDIA T600', [4], 160, 1, 3.42),
  card('NVIDIA T1000', [4, 8], 160, 1, 5),
  card('NVIDIA Quadro RTX 4000', [8], 416, 4, 57),
  card('NVIDIA Quadro RTX 5000', [16], 448, 4, 89.2),
  card('NVIDIA Quadro RTX 6000', [24], 672, 6, 130.5, { aliases: ['RTX 6000 Turing'] }),
  card('NVIDIA Quadro RTX 8000', [48], 672, 6, 130.5, { aliases: ['RTX 8000'] }),
  card('NVIDIA RTX A400', [4], 96, 1, 10.85),
  card('NVIDIA RTX A1000', [8], 192, 2, 26.9),
  card('NVIDIA RTX A2000', [6, 12], 288, 3, 32),
  card('NVIDIA RTX A4000', [16], 448, 4, 76.7),
  card('NVIDIA RTX A4500', [20], 640, 5, 94.6),
  card('NVIDIA RTX A5000', [24], 768, 6, 111.1),
  card('NVIDIA RTX A5500', [24], 768, 6, 136.4),
  card('NVIDIA RTX A6000', [48], 768, 6, 154.8),
  card('NVIDIA RTX 2000 Ada Generation', [16], 224, 12, 48),
  card('NVIDIA RTX 4000 SFF Ada Generation', [20], 280, 48, 76.9),
  card('NVIDIA RTX 4000 Ada Generation', [20], 360, 48, 106.9),
  card('NVIDIA RTX 4500 Ada Generation', [24], 432, 48, 158.5),
  card('NVIDIA RTX 5000 Ada Generation', [32], 576, 64, 261.1),
  card('NVIDIA RTX 6000 Ada Generation', [48], 960, 96, 364.2),
  card('NVIDIA RTX PRO 6000 Blackwell', [96], 1792, 128, 503.8, {
    aliases: ['RTX PRO 6000 Blackwell Workstation Edition', 'RTX PRO 6000 Blackwell Max-Q', 'RTX PRO 6000 Blackwell Server Edition'],
  }),
  card('NVIDIA RTX PRO 5000 Blackwell', [48, 72], 1344, 96),
  card('NVIDIA RTX PRO 4500 Blackwell', [32], 896, 64),
  card('NVIDIA RTX PRO 4000 Blackwell', [24], 672, 48),
  card('NVIDIA RTX PRO 2000 Blackwell', [16], 288, 32),
]);

// Data-center cards (NVIDIA datasheets). A bare 'A100' / 'H100' (no form factor) is either
// card: see `sharedNames`. GH200: HBM3 96 GB 4 TB/s, HBM3e 144 GB 4.9 TB/s (GPU memory; the
// Grace CPU's LPDDR5X is not counted). B200: 8 TB/s.
// Peak FP16: the datasheets' 'FP16 Tensor Core' figure without sparsity (half the starred
// figure: H100 SXM 1,979* -> 989.5; HGX B200 / B300 36 PFLOPS* for eight GPUs -> 2,250 each).
// P100: SXM2 21.2 (PCIe 18.7); V100: SXM2 125 (PCIe 112); A16: per GPU of the four on a board
// (4x 17.9); L40: 'with FP32 accumulate' 181.05 (FP16 accumulate 362.1). Not held: L20 (no
// datasheet figure found; the L40 runs FP32 accumulate at half rate and the L40S at full, so its
// 92 SMs and 2.52 GHz do not settle it), Tesla P4 / P40 (Pascal, see `PeakFp16`).
const nvidiaDatacenter = cards('NVIDIA', 'datacenter', `${NVIDIA_SPECS}; data-center datasheets (peak FP16: FP16 Tensor Core, dense)`, [
  card('NVIDIA Tesla P4', [8], 192, 2),
  card('NVIDIA Tesla P40', [24], 346, 3),
  card('NVIDIA Tesla P100', [12, 16], { 12: 549, 16: 732 }, 4, 21.2, { aliases: ['P100 PCIe', 'P100 SXM2'] }),
  card('NVIDIA Tesla V100', [16, 32], 900, 6, 125, { aliases: ['V100 PCIe', 'V100 SXM2', 'V100 SXM3'] }),
  card('NVIDIA Tesla V100S', [32], 1134, 6, 130, { aliases: ['V100S PCIe'] }),
  card('NVIDIA Tesla T4', [16], 320, 4, 65),
  card('NVIDIA A2', [16], 200, 2, 18),
  card('NVIDIA A10', [24], 600, 6, 125, { aliases: ['A10G'] }),
  card('NVIDIA A16', [16], 200, 2, 17.9),
  card('NVIDIA A30', [24], 933, 24, 165),
  card('NVIDIA A40', [48], 696, 6, 149.7),
  card('NVIDIA A100 PCIe', [40, 80], { 40: 1555, 80: 1935 }, 40, 312, { aliases: ['A800 PCIe'] }),
  card('NVIDIA A100 SXM', [40, 80], { 40: 1555, 80: 2039 }, 40, 312, { aliases: ['A100 SXM4', 'A800 SXM4'] }),
  card('NVIDIA L4', [24], 300, 48, 121),
  card('NVIDIA L20', [48], 864, 96),
  card('NVIDIA L40', [48], 864, 96, 181.05),
  card('NVIDIA L40S', [48], 864, 96, 362.05),
  card('NVIDIA H20', [96], 4000, 60, 148),
  card('NVIDIA H100 PCIe', [80], 2000, 50, 756.5, { aliases: ['H800 PCIe'] }),
  card('NVIDIA H100 SXM', [80], 3350, 50, 989.5, { aliases: ['H100 SXM5', 'H100 HBM3', 'H800 SXM5'] }),
  card('NVIDIA H100 NVL', [94], 3900, 50, 835.5),
  card('NVIDIA H200', [141], 4800, 50, 989.5, { aliases: ['H200 SXM', 'H200 NVL'] }),
  card('NVIDIA GH200', [96, 144], { 96: 4000, 144: 4900 }, 50, 989.5, { aliases: ['GH200 Grace Hopper'] }),
  card('NVIDIA B200', [180, 192], 8000, 126, 2250),
  card('NVIDIA B300', [288], 8000, 126, 2250),
]);

const AMD_SPECS =
  'AMD Radeon / Radeon PRO / Instinct product pages and specifications (memory interface x data rate; Infinity Cache sizes; peak FP16); TechPowerUp GPU database';

// Peak FP16 (AMD specifications' 'Peak Half Precision' figures, or the same arithmetic from
// compute units and boost clock): Polaris FP16 at the FP32 rate (stream processors x boost x 2);
// Vega, Radeon VII, RDNA 1 and 2 packed FP16 (x 4); RDNA 3 WMMA / dual-issue 512 FLOPs per clock
// per CU (RX 7900 XTX: 96 x 2.5 GHz = 122.8); RDNA 4 WMMA 1024 per CU, dense (RX 9070 XT: 64 x 2.97
// GHz = 194.6, AMD's 'Peak Half Precision Matrix' 389 with sparsity); Instinct: the datasheets'
// matrix FP16, dense (MI300X 1307.4). RX 6750 GRE: the 12 GB card's 40 CUs x 2.581 GHz x 256 =
// 26.4 (the 10 GB card is the slower; cputronic.com, TechPowerUp-derived); Radeon PRO W7600: 32
// CUs x 2.44 GHz x 512 = 40.0 (cputronic.com). Not held: RX 7700 (only a partner card's clock
// found), RX 7650 GRE, Radeon PRO W7700 and Radeon Pro WX 5100 / 7100 (no boost clock checked).

const amdGpus = cards('AMD', 'consumer', AMD_SPECS, [
  // Polaris / Vega (L2)
  card('AMD Radeon RX 460', [2, 4], 112, 1, 2.15),
  card('AMD Radeon RX 470', [4, 8], { 4: 211, 8: 224 }, 2, 4.94),
  card('AMD Radeon RX 480', [4, 8], { 4: 224, 8: 256 }, 2, 5.83),
  card('AMD Radeon RX 550', [2, 4], 112, 0.5, 1.21),
  card('AMD Radeon RX 560', [2, 4], 112, 1, 2.61),
  card('AMD Radeon RX 570', [4, 8], 224, 2, 5.1),
  card('AMD Radeon RX 580', [4, 8], { 4: 224, 8: 256 }, 2, 6.17),
  card('AMD Radeon RX 590', [8], 256, 2, 7.12),
  card('AMD Radeon RX Vega 56', [8], 409.6, 4, 21.1),
  card('AMD Radeon RX Vega 64', [8], 483.8, 4, 25.3),
  card('AMD Radeon VII', [16], 1024, 4, 26.9),
  // RDNA (L2); RDNA 2 and later: Infinity Cache
  card('AMD Radeon RX 5500 XT', [4, 8], 224, 2, 10.4),
  card('AMD Radeon RX 5600 XT', [6], 336, 3, 14.4),
  card('AMD Radeon RX 5700', [8], 448, 4, 15.9),
  card('AMD Radeon RX 5700 XT', [8], 448, 4, 19.5),
  card('AMD Radeon RX 6400', [4], 128, 16, 7.13),
  card('AMD Radeon RX 6500 XT', [4, 8], 144, 16, 11.5),
  card('AMD Radeon RX 6600', [8], 224, 32, 17.9),
  card('AMD Radeon RX 6600 XT', [8], 256, 32, 21.2),
  card('AMD Radeon RX 6650 XT', [8], 280, 32, 21.6),
  card('AMD Radeon RX 6700', [10], 320, 80, 22.6),
  card('AMD Radeon RX 6700 XT', [12], 384, 96, 26.4),
  card('AMD Radeon RX 6750 XT', [12], 432, 96, 26.6),
  // 6750 GRE: 10 GB on 160-bit at 16 Gbps (80 MB Infinity Cache), 12 GB on 192-bit at 18 Gbps (96 MB).
  card('AMD Radeon RX 6750 GRE', [10, 12], { 10: 320, 12: 432 }, 96, 26.4),
  card('AMD Radeon RX 6800', [16], 512, 128, 32.3),
  card('AMD Radeon RX 6800 XT', [16], 512, 128, 41.5),
  card('AMD Radeon RX 6900 XT', [16], 512, 128, 46.1),
  card('AMD Radeon RX 6950 XT', [16], 576, 128, 47.3),
  card('AMD Radeon RX 7600', [8], 288, 32, 43.5),
  card('AMD Radeon RX 7600 XT', [16], 288, 32, 45.1),
  // 7650 GRE: Navi 33, 8 GB on 128-bit at 18 Gbps, 32 MB Infinity Cache.
  card('AMD Radeon RX 7650 GRE', [8], 288, 32),
  card('AMD Radeon RX 7700', [16], 576, 48),
  card('AMD Radeon RX 7700 XT', [12], 432, 48, 70.3),
  card('AMD Radeon RX 7800 XT', [16], 624, 64, 74.6),
  card('AMD Radeon RX 7900 GRE', [16], 576, 64, 92),
  card('AMD Radeon RX 7900 XT', [20], 800, 80, 103.2),
  card('AMD Radeon RX 7900 XTX', [24], 960, 96, 122.8),
  card('AMD Radeon RX 9060 XT', [8, 16], 320, 32, 102.6),
  card('AMD Radeon RX 9070 GRE', [12], 432, 48, 137.1),
  card('AMD Radeon RX 9070', [16], 640, 64, 144.5),
  card('AMD Radeon RX 9070 XT', [16], 640, 64, 194.6),
]);

// Laptop peak FP16, the desktop rows' arithmetic at the boost clock (the laptop's power limit may
// hold it lower; the bound errs high): RX 6700M 36 CUs x 2.40 GHz x 256 = 22.1; RX 6800M 40 x
// 2.39 = 24.5 (AMD: 2,300 MHz game clock at 145 W); RX 6850M XT 40 x 2.581 = 26.4 (data-check.eu,
// fpsbench.com); RX 7600M XT (RDNA 3) 32 x 2.469 GHz x 512 = 40.5; RX 7900M 72 x 2.09 GHz x 512 =
// 77.0 (AMD's launch: 1,825 MHz game, 2,090 MHz boost, abadiadigital.com, data-check.eu). CU
// counts and boost clocks as the TechPowerUp GPU database lists them (fpsbench.com, cputronic.com).
const amdLaptop = cards(
  'AMD',
  'laptop',
  `${AMD_SPECS}; laptop peak FP16: CUs x boost clock x 256 (RDNA 2, packed FP16) or x 512 (RDNA 3), clocks from the TechPowerUp GPU database (fpsbench.com, data-check.eu)`,
  [
    card('AMD Radeon RX 6700M', [10], 320, 80, 22.1),
    card('AMD Radeon RX 6800M', [12], 384, 96, 24.5),
    card('AMD Radeon RX 6850M XT', [12], 432, 96, 26.4),
    card('AMD Radeon RX 7600M XT', [8], 288, 32, 40.5),
    card('AMD Radeon RX 7900M', [16], 576, 64, 77),
  ],
);

const amdWorkstation = cards('AMD', 'workstation', AMD_SPECS, [
  // Radeon Pro WX 5100 (Polaris 10): 8 GB GDDR5 on 256-bit, up to 160 GB/s; 2 MB L2.
  card('AMD Radeon Pro WX 5100', [8], 160, 2, undefined, { aliases: ['WX 5100'] }),
  // Radeon Pro WX 7100 (Polaris 10): 8 GB GDDR5 on 256-bit at 7 Gbps = 224 GB/s; 2 MB L2.
  card('AMD Radeon Pro WX 7100', [8], 224, 2, undefined, { aliases: ['WX 7100'] }),
  card('AMD Radeon PRO W6800', [32], 512, 128, 35.7, { aliases: ['W6800'] }),
  card('AMD Radeon PRO V620', [32], 512, 128, 40.5, { aliases: ['V620'] }),
  card('AMD Radeon PRO W6600', [8], 224, 32, 20.8, { aliases: ['W6600'] }),
  card('AMD Radeon PRO W7600', [8], 288, 32, 40, { aliases: ['W7600'] }),
  card('AMD Radeon PRO W7700', [16], 576, 64, undefined, { aliases: ['W7700'] }),
  card('AMD Radeon PRO W7800', [32], 576, 64, 90.5, { aliases: ['W7800'] }),
  card('AMD Radeon PRO W7900', [48], 864, 96, 122.6, { aliases: ['W7900'] }),
  card('AMD Radeon AI PRO R9700', [32], 640, 64, 191.4, { aliases: ['R9700'] }),
]);

const amdDatacenter = cards('AMD', 'datacenter', AMD_SPECS, [
  card('AMD Instinct MI50', [16, 32], 1024, 4, 26.5, { aliases: ['MI50'] }),
  card('AMD Instinct MI60', [32], 1024, 4, 29.5, { aliases: ['MI60'] }),
  card('AMD Instinct MI100', [32], 1228.8, 8, 184.6, { aliases: ['MI100'] }),
  card('AMD Instinct MI210', [64], 1638.4, 8, 181, { aliases: ['MI210'] }),
  card('AMD Instinct MI250', [128], 3276.8, 16, 362.1, { aliases: ['MI250'] }),
  card('AMD Instinct MI250X', [128], 3276.8, 16, 383, { aliases: ['MI250X'] }),
  card('AMD Instinct MI300X', [192], 5300, 256, 1307.4, { aliases: ['MI300X'] }),
  card('AMD Instinct MI325X', [256], 6000, 256, 1307.4, { aliases: ['MI325X'] }),
  card('AMD Instinct MI355X', [288], 8000, 256, 2516.6, { aliases: ['MI355X'] }),
]);

// Peak FP16 (XMX, dense): Alchemist (A series) 2048 FP16 FLOPs per clock per Xe-core (Intel
// Architecture Day 2021, Xe-HPG) x Xe-cores x graphics clock (A770: 32 x 2.1 GHz = 137.6);
// Battlemage (B series) half of Intel's 'Peak TOPS (INT8)' (B580 233, B570 203, Pro B60 197, Pro
// B50 170), XMX running FP16 at half the INT8 rate. Laptop A730M / A770M: not held (clock set by
// the laptop's power limit; no Intel figure).
const INTEL_SPECS =
  'Intel Arc / Arc Pro product specifications (ark.intel.com; peak FP16 from Xe-cores x clock x the Xe-HPG XMX rate, or half the stated INT8 TOPS); L2 sizes from the TechPowerUp GPU database';

const intelGpus = [
  ...cards('Intel', 'consumer', INTEL_SPECS, [
    card('Intel Arc A310', [4], 124, 4, 24.6),
    card('Intel Arc A380', [6], 186, 6, 32.8),
    card('Intel Arc A580', [8], 512, 8, 83.6),
    card('Intel Arc A750', [8], 512, 16, 117.6),
    card('Intel Arc A770', [8, 16], { 8: 512, 16: 560 }, 16, 137.6),
    card('Intel Arc B570', [10], 380, 18, 101.5),
    card('Intel Arc B580', [12], 456, 18, 116.5),
  ]),
  ...cards('Intel', 'laptop', INTEL_SPECS, [card('Intel Arc A730M', [12], 336, 12), card('Intel Arc A770M', [16], 512, 16)]),
  ...cards('Intel', 'workstation', INTEL_SPECS, [
    card('Intel Arc Pro B50', [16], 224, 16, 85, { aliases: ['B50'] }),
    card('Intel Arc Pro B60', [24], 456, 18, 98.5, { aliases: ['B60'] }),
  ]),
  // Data Center GPU Max (Ponte Vecchio), HBM2e: 1550 with 128 GB at 3.2768 TB/s, 1100 with 48 GB
  // at 1.2288 TB/s (ark.intel.com); the L2 ('Rambo' cache) sizes are not certain and left out.
  // Peak FP16 (XMX, dense): Max 1550 = 128 Xe-cores x 8 matrix engines x 512 FP16 FLOPs per clock
  // (a 4,096-bit engine: 256 FP16 lanes, multiply-add) x 1.6 GHz = 838.9; the same count gives
  // Intel's 52 TFLOPS FP32 vector figure (1,024 engines x 16 lanes x 2 x 1.6 GHz). Core counts,
  // engine width and 1.6 GHz peak: ark.intel.com via glennklockwood.com/garden/processors/pvc.
  // Max 1100 (56 Xe-cores): not held, its peak clock not checked.
  ...cards(
    'Intel',
    'datacenter',
    'Intel Data Center GPU Max Series product specifications (ark.intel.com); peak FP16: Xe-cores x 8 XMX engines x 512 FP16 FLOPs per clock x peak clock',
    [
      card('Intel Data Center GPU Max 1550', [128], 3276.8, undefined, 838.9),
      card('Intel Data Center GPU Max 1100', [48], 1228.8),
    ],
  ),
];

export const gpus: readonly GpuSpec[] = [
  ...nvidiaConsumer,
  ...nvidiaLaptop,
  ...nvidiaWorkstation,
  ...nvidiaDatacenter,
  ...amdGpus,
  ...amdLaptop,
  ...amdWorkstation,
  ...amdDatacenter,
  ...intelGpus,
];


// ---------------------------------------------------------------------------------------
// Unified-memory chips
// ---------------------------------------------------------------------------------------

type ChipRow = Omit<UnifiedChipSpec, 'source'>;
const chipsFrom = (source: string, rows: ChipRow[]): UnifiedChipSpec[] => rows.map((row) => ({ ...row, source }));

/** An Apple chip whose bins share one bandwidth: one bin listing every core count sold. */
function apple(
  family: string,
  variant: string,
  memoryGb: number[],
  bandwidthGBs: number,
  cpuCores: number[],
  gpuCores: number[],
  llcMb: number,
  peakFp16Tflops?: PeakFp16,
): ChipRow {
  const name = `Apple ${family}${variant === 'Base' ? '' : ` ${variant}`}`;
  const variants = [{ memoryGb, bandwidthGBs, cpuCores, gpuCores }];
  return { vendor: 'Apple', family, variant, name, memoryGb, bandwidthGBs, variants, llcMb, ...(peakFp16Tflops === undefined ? {} : { peakFp16Tflops }) };
}

// Apple newsroom announcements and Mac technical specifications (memory, bandwidth, CPU and
// GPU core counts of every bin). M3 Max and M4 Max come in two bins with different memory
// bus widths; each memory size is sold on one bin only, and the core counts name the bin.
// M5 (October 2025): 153 GB/s; M5 Pro 307 GB/s and M5 Max 614 GB/s (Apple newsroom, March
// 2026). Last-level cache: the system level cache Apple does not publish; the figures are
// die-shot and microbenchmark readings (8 MB base, 24 MB Pro, 48 MB Max, 96 MB Ultra),
// taken at the larger where readings differ.
// Peak FP16 (the largest GPU bin; Apple GPUs run FP16 at the FP32 rate, no matrix units): M1
// family as Apple states it (M1 2.6, M1 Pro 5.2, M1 Max 10.4, M1 Ultra 21 TFLOPS); M2 from Apple's
// 3.6 TFLOPS for the 10-core M2, the same clock (1.398 GHz) and 128 FP32 lanes per GPU core in
// every M2 (cores x 128 x 2 x 1.398 GHz: M2 Pro 19 cores 6.8, Max 38 cores 13.6, Ultra 76 cores
// 27.2). M3, M4 and M5: not held (Apple states no TFLOPS or GPU clock for them).
const APPLE_FP16 =
  'peak FP16 (= FP32 on Apple GPUs): Apple newsroom TFLOPS for M1 / M1 Pro / M1 Max / M1 Ultra and M2; other M2 tiers: GPU cores x 128 lanes x 2 x 1.398 GHz';
const appleChips = chipsFrom(`Apple newsroom and Mac technical specifications; SLC sizes from die-shot analyses; ${APPLE_FP16}`, [
  apple('M1', 'Base', [8, 16], 68.25, [8], [7, 8], 8, 2.6),
  apple('M1', 'Pro', [16, 32], 200, [8, 10], [14, 16], 24, 5.2),
  apple('M1', 'Max', [32, 64], 400, [10], [24, 32], 48, 10.4),
  apple('M1', 'Ultra', [64, 128], 800, [20], [48, 64], 96, 21),
  apple('M2', 'Base', [8, 16, 24], 100, [8], [8, 10], 8, 3.6),
  apple('M2', 'Pro', [16, 32], 200, [10, 12], [16, 19], 24, 6.8),
  apple('M2', 'Max', [32, 64, 96], 400, [12], [30, 38], 48, 13.6),
  apple('M2', 'Ultra', [64, 128, 192], 800, [24], [60, 76], 96, 27.2),
  apple('M3', 'Base', [8, 16, 24], 100, [8], [8, 10], 8),
  apple('M3', 'Pro', [18, 36], 150, [11, 12], [14, 18], 24),
  {
    vendor: 'Apple', family: 'M3', variant: 'Max', name: 'Apple M3 Max', memoryGb: [36, 48, 64, 96, 128], bandwidthGBs: 400, llcMb: 48,
    variants: [
      { memoryGb: [36, 96], bandwidthGBs: 300, cpuCores: [14], gpuCores: [30], note: '14-core CPU, 30-core GPU' },
      { memoryGb: [48, 64, 128], bandwidthGBs: 400, cpuCores: [16], gpuCores: [40], note: '16-core CPU, 40-core GPU' },
    ],
  },
  apple('M3', 'Ultra', [96, 256, 512], 819, [28, 32], [60, 80], 96),
  apple('M4', 'Base', [16, 24, 32], 120, [8, 10], [8, 10], 8),
  apple('M4', 'Pro', [24, 48, 64], 273, [12, 14], [16, 20], 24),
  {
    vendor: 'Apple', family: 'M4', variant: 'Max', name: 'Apple M4 Max', memoryGb: [36, 48, 64, 128], bandwidthGBs: 546, llcMb: 48,
    variants: [
      { memoryGb: [36], bandwidthGBs: 410, cpuCores: [14], gpuCores: [32], note: '14-core CPU, 32-core GPU' },
      { memoryGb: [48, 64, 128], bandwidthGBs: 546, cpuCores: [16], gpuCores: [40], note: '16-core CPU, 40-core GPU' },
    ],
  },
  apple('M5', 'Base', [16, 24, 32], 153, [10], [10], 8),
  apple('M5', 'Pro', [24, 48, 64], 307, [15, 18], [16, 20], 24),
  apple('M5', 'Max', [36, 48, 64, 128], 614, [18], [32, 40], 48),
]);

// AMD Ryzen AI / Ryzen mobile product pages. Strix Halo (Ryzen AI Max / Max+, PRO included;
// iGPU Radeon 8060S / 8050S, gfx1151): 256-bit LPDDR5X-8000 = 256 GB/s, 32 MB Infinity Cache
// (MALL) for the GPU. Strix Point (Ryzen AI 9 HX 370/375, 365; Radeon 890M / 880M, gfx1150)
// and Phoenix / Hawk Point (Ryzen 7040 / 8040 mobile; Radeon 780M, gfx1103): 128-bit, up to
// LPDDR5X-7500 = 120 GB/s (laptops built with DDR5-5600 SO-DIMMs get 89.6 GB/s; not told
// apart by name, the higher is kept); their last level is the CPU's L3 (16-24 MB).
// Peak FP16 of the integrated Radeon (RDNA 3 / 3.5, WMMA: 512 FP16 FLOPs per clock per CU, as
// for the RX 7000 cards) = CUs x graphics clock from AMD's specifications x 512: Radeon 8060S 40 x
// 2.9 GHz = 59.4; 8050S 32 x 2.8 = 45.9; 890M 16 x 2.9 = 23.8; 880M 12 x 2.9 = 17.8; 860M 8 x 3.0
// = 12.3; 840M 4 x 2.9 = 5.9; 780M 12 x 2.7 = 16.6 (2.8 GHz in the Ryzen 9 parts: 17.2); 760M 8 x
// 2.6 = 10.6; Ryzen Z1 Extreme twice AMD's 8.6 FP32 TFLOPS. Ryzen AI Max+ 392 / 388: not held
// (no AMD graphics clock checked).
/** Phoenix / Hawk Point peak FP16 by line: Radeon 760M (8 CUs, 2.6 GHz) in the Ryzen 5, 780M (12 CUs) at 2.7 GHz in the Ryzen 7 and 2.8 GHz in the Ryzen 9. */
const PHOENIX_FP16: Record<string, PeakFp16> = { 'Ryzen 5': 10.6, 'Ryzen 7': 16.6, 'Ryzen 9': 17.2 };

const amdChips = chipsFrom('AMD Ryzen processor specifications (amd.com): memory type, speed and bus width; cache sizes; GPU CUs and clock (peak FP16 = CUs x clock x 512)', [
  {
    vendor: 'AMD', family: 'Ryzen AI Max+', variant: '395', name: 'AMD Ryzen AI Max+ 395', memoryGb: [32, 64, 128], bandwidthGBs: 256, llcMb: 64, peakFp16Tflops: 59.4,
    aliases: ['Ryzen AI Max 395', 'Ryzen AI Max+ PRO 395', 'Radeon 8060S', 'GMKtec EVO-X2'],
  },
  { vendor: 'AMD', family: 'Ryzen AI Max', variant: '390', name: 'AMD Ryzen AI Max 390', memoryGb: [32, 64, 128], bandwidthGBs: 256, llcMb: 64, peakFp16Tflops: 45.9 },
  { vendor: 'AMD', family: 'Ryzen AI Max', variant: '385', name: 'AMD Ryzen AI Max 385', memoryGb: [32, 64, 128], bandwidthGBs: 256, llcMb: 32, peakFp16Tflops: 45.9 },
  { vendor: 'AMD', family: 'Ryzen AI Max+', variant: '392', name: 'AMD Ryzen AI Max+ 392', memoryGb: [32, 64, 128], bandwidthGBs: 256, llcMb: 64 },
  { vendor: 'AMD', family: 'Ryzen AI Max+', variant: '388', name: 'AMD Ryzen AI Max+ 388', memoryGb: [32, 64, 128], bandwidthGBs: 256, llcMb: 64 },
  { vendor: 'AMD', family: 'Ryzen AI 9', variant: 'HX 370', name: 'AMD Ryzen AI 9 HX 370', memoryGb: [16, 32, 64], bandwidthGBs: 120, llcMb: 24, peakFp16Tflops: 23.8 },
  { vendor: 'AMD', family: 'Ryzen AI 9', variant: 'HX 375', name: 'AMD Ryzen AI 9 HX 375', memoryGb: [16, 32, 64], bandwidthGBs: 120, llcMb: 24, peakFp16Tflops: 23.8 },
  { vendor: 'AMD', family: 'Ryzen AI 9', variant: '365', name: 'AMD Ryzen AI 9 365', memoryGb: [16, 32, 64], bandwidthGBs: 120, llcMb: 24, peakFp16Tflops: 17.8 },
  { vendor: 'AMD', family: 'Ryzen AI 7', variant: '350', name: 'AMD Ryzen AI 7 350', memoryGb: [16, 32], bandwidthGBs: 128, llcMb: 16, peakFp16Tflops: 12.3, aliases: ['Radeon 860M'] },
  { vendor: 'AMD', family: 'Ryzen AI 5', variant: '340', name: 'AMD Ryzen AI 5 340', memoryGb: [16, 32], bandwidthGBs: 128, llcMb: 16, peakFp16Tflops: 5.9, aliases: ['Radeon 840M'] },
  ...['7840U', '7840HS', '7640U', '7640HS', '7840H', '8840U', '8840HS', '8845HS', '8845H', '8640U', '8645HS'].map((model) =>
    amdMobile(model.startsWith('76') || model.startsWith('86') ? 'Ryzen 5' : 'Ryzen 7', model),
  ),
  ...['7940HS', '7940H', '8945HS'].map((model) => amdMobile('Ryzen 9', model)),
  // Ryzen 200 (2025): Hawk Point renamed, the same memory (LPDDR5X-7500 / DDR5-5600) and Radeon 780M.
  amdMobile('Ryzen 7', '255'),
  { vendor: 'AMD', family: 'Ryzen Z1', variant: 'Extreme', name: 'AMD Ryzen Z1 Extreme', memoryGb: [16], bandwidthGBs: 120, llcMb: 16, peakFp16Tflops: 17.2 },
]);

function amdMobile(family: string, variant: string): ChipRow {
  const peakFp16Tflops = PHOENIX_FP16[family]!;
  return { vendor: 'AMD', family, variant, name: `AMD ${family} ${variant}`, memoryGb: [16, 32, 64], bandwidthGBs: 120, llcMb: 16, peakFp16Tflops };
}

// Intel product specifications (ark.intel.com). Lunar Lake (Core Ultra 200V; Arc 140V /
// 130V): on-package LPDDR5X-8533, 128-bit = 136.5 GB/s, 8 MB side cache. Meteor Lake (Core
// Ultra 100H / 100U): up to LPDDR5X-7467, 128-bit = 119.5 GB/s; Arrow Lake H (Core Ultra
// 200H): up to LPDDR5X-8400 = 134.4 GB/s (DDR5-5600 SO-DIMM builds: 89.6 GB/s; the higher is
// kept). Their last level is the CPU's L3 (up to 24 MB). Their iGPU's own name, 'Intel Arc
// Graphics', does not tell the chip and is not matched. Peak FP16: not held (Intel states GPU
// TOPS for a few Lunar Lake models only, and no clock-by-clock figure for the rest).
const intelChips = chipsFrom('Intel product specifications (ark.intel.com)', [
  ...['226V', '228V', '236V', '238V'].map((model) => intelChip('Core Ultra 5', model, [16, 32], 136.5)),
  ...['256V', '258V', '266V', '268V'].map((model) => intelChip('Core Ultra 7', model, [16, 32], 136.5)),
  intelChip('Core Ultra 9', '288V', [32], 136.5),
  ...['125H', '135H', '125U', '135U'].map((model) => intelChip('Core Ultra 5', model, [16, 32, 64], 119.5)),
  ...['155H', '165H', '155U', '165U'].map((model) => intelChip('Core Ultra 7', model, [16, 32, 64], 119.5)),
  intelChip('Core Ultra 9', '185H', [16, 32, 64], 119.5),
  intelChip('Core Ultra 5', '225H', [16, 32, 64], 134.4),
  intelChip('Core Ultra 7', '255H', [16, 32, 64], 134.4),
  intelChip('Core Ultra 9', '285H', [16, 32, 64], 134.4),
]);

function intelChip(family: string, variant: string, memoryGb: number[], bandwidthGBs: number): ChipRow {
  return { vendor: 'Intel', family, variant, name: `Intel ${family} ${variant}`, memoryGb, bandwidthGBs, llcMb: 24 };
}

// Qualcomm Snapdragon X Elite / X Plus product briefs (LPDDR5X-8448, 128-bit; 6 MB system cache).
// Peak FP16: not held (Qualcomm states the Adreno X1's FP32 TFLOPS, up to 4.6, and no FP16 rate).
const qualcommChips = chipsFrom('Qualcomm Snapdragon X product briefs', [
  { vendor: 'Qualcomm', family: 'Snapdragon X', variant: 'Elite', name: 'Qualcomm Snapdragon X Elite', memoryGb: [16, 32, 64], bandwidthGBs: 135, llcMb: 42 },
  { vendor: 'Qualcomm', family: 'Snapdragon X', variant: 'Plus', name: 'Qualcomm Snapdragon X Plus', memoryGb: [16, 32, 64], bandwidthGBs: 135, llcMb: 42 },
]);

// NVIDIA DGX Spark and Jetson module datasheets. Jetson Orin Nano "Super" is the same module
// with the JetPack 6.1+ MAXN SUPER mode (faster memory clock). GB10: 24 MB L2 for the GPU,
// 32 MB L3 for the CPU, 16 MB system cache; the larger is kept.
// Peak FP16 (GPU Tensor Cores, dense): Jetson Orin from NVIDIA's sparse INT8 TOPS of the GPU / 4
// (Ampere's dense FP16 rate is a quarter of its sparse INT8 rate): AGX Orin 64 GB 170 -> 42.5,
// Orin Nano 8 GB 40 -> 10, Orin Nano Super 8 GB 67 -> 16.75; Orin NX 16 GB (no GPU-only TOPS
// stated) 8 SMs x 0.918 GHz x 2048 (the AGX Orin's per-SM rate) = 15.0; AGX Xavier: NVIDIA's 11
// FP16 TFLOPS. GB10 and Jetson AGX Thor: not held (NVIDIA states FP4 with sparsity only).
const nvidiaChips = chipsFrom('NVIDIA DGX Spark and Jetson module datasheets (peak FP16: GPU sparse INT8 TOPS / 4, or as stated)', [
  {
    vendor: 'NVIDIA', family: 'GB10', variant: 'Base', name: 'NVIDIA GB10', memoryGb: [128], bandwidthGBs: 273, llcMb: 32,
    aliases: [
      'DGX Spark',
      'GB10 Grace Blackwell',
      'ASUS Ascent GX10',
      'Lenovo ThinkStation PGX',
      'MSI EdgeXpert',
      'Acer Veriton GN100',
      'Gigabyte AI TOP ATOM',
      'HP ZGX Nano G1n',
    ],
  },
  { vendor: 'NVIDIA', family: 'Jetson AGX Orin', variant: 'Base', name: 'NVIDIA Jetson AGX Orin', memoryGb: [32, 64], bandwidthGBs: 204.8, llcMb: 4, peakFp16Tflops: 42.5 },
  { vendor: 'NVIDIA', family: 'Jetson Orin NX', variant: 'Base', name: 'NVIDIA Jetson Orin NX', memoryGb: [8, 16], bandwidthGBs: 102.4, llcMb: 4, peakFp16Tflops: 15 },
  {
    vendor: 'NVIDIA', family: 'Jetson Orin Nano', variant: 'Base', name: 'NVIDIA Jetson Orin Nano', memoryGb: [4, 8], bandwidthGBs: 68, llcMb: 4, peakFp16Tflops: 10,
    variants: [
      { memoryGb: [4], bandwidthGBs: 34, note: '64-bit LPDDR5' },
      { memoryGb: [8], bandwidthGBs: 68, note: '128-bit LPDDR5' },
    ],
  },
  {
    vendor: 'NVIDIA', family: 'Jetson Orin Nano', variant: 'Super', name: 'NVIDIA Jetson Orin Nano Super', memoryGb: [4, 8], bandwidthGBs: 102, llcMb: 4, peakFp16Tflops: 16.75,
    variants: [
      { memoryGb: [4], bandwidthGBs: 51, note: '64-bit LPDDR5, MAXN SUPER' },
      { memoryGb: [8], bandwidthGBs: 102, note: '128-bit LPDDR5, MAXN SUPER' },
    ],
  },
  { vendor: 'NVIDIA', family: 'Jetson AGX Thor', variant: 'Base', name: 'NVIDIA Jetson AGX Thor', memoryGb: [128], bandwidthGBs: 273, llcMb: 32 },
  { vendor: 'NVIDIA', family: 'Jetson AGX Xavier', variant: 'Base', name: 'NVIDIA Jetson AGX Xavier', memoryGb: [16, 32, 64], bandwidthGBs: 136.5, llcMb: 4, peakFp16Tflops: 11 },
]);

export const unifiedChips: readonly UnifiedChipSpec[] = [...appleChips, ...amdChips, ...intelChips, ...qualcommChips, ...nvidiaChips];

// ---------------------------------------------------------------------------------------
// CPUs (for CPU-only inference): peak = channels x MT/s x 8 bytes, officially supported
// memory speed at one DIMM per channel. Laptop CPUs take the fastest memory they support
// (LPDDR where offered): a laptop's own memory is not told by the CPU's name, and the
// higher reading is the one the roofline needs. Last-level cache: the L3 of the line's
// largest model (the same reading).
// ---------------------------------------------------------------------------------------

/**
 * CPUs of one line sharing a memory interface and cache: peak = channels x MT/s x 8 bytes.
 * An entry is a name, or a name followed by its aliases.
 */
function cpuLine(
  vendor: CpuVendor,
  segment: CpuSegment,
  memory: { channels: number; type: string; llcMb: number; source: string },
  names: (string | [string, ...string[]])[],
): CpuSpec[] {
  const transfers = Number(/-(\d+)$/.exec(memory.type)?.[1]);
  const bandwidthGBs = Math.round(memory.channels * transfers * 8) / 1000;
  return names.map((entry) => {
    const [name, ...aliases] = typeof entry === 'string' ? [entry] : entry;
    return {
      name,
      vendor,
      memoryChannels: memory.channels,
      memoryType: memory.type,
      bandwidthGBs,
      segment,
      llcMb: memory.llcMb,
      source: memory.source,
      ...(aliases.length > 0 ? { aliases } : {}),
    };
  });
}

const AMD_CPU = 'AMD Ryzen / Ryzen Threadripper / EPYC product specifications (amd.com): memory channels, officially supported speed, L3';
const amd = (channels: number, type: string, llcMb: number) => ({ channels, type, llcMb, source: AMD_CPU });

// EPYC 9005 (Turin): DDR5-6000 (6400 only on qualified platforms); Threadripper 9000: DDR5-6400.
const amdCpus: CpuSpec[] = [
  ...cpuLine('AMD', 'desktop', amd(2, 'DDR4-2666', 16), ['AMD Ryzen 5 1600', 'AMD Ryzen 5 1600X', 'AMD Ryzen 7 1700', 'AMD Ryzen 7 1700X', 'AMD Ryzen 7 1800X']),
  ...cpuLine('AMD', 'desktop', amd(2, 'DDR4-2933', 16), [
    'AMD Ryzen 5 2600', 'AMD Ryzen 5 2600X', 'AMD Ryzen 7 2700', 'AMD Ryzen 7 2700X', 'AMD Ryzen 5 2400G', 'AMD Ryzen 3 2200G',
    'AMD Ryzen 5 3400G', 'AMD Ryzen 3 3200G',
  ]),
  ...cpuLine('AMD', 'desktop', amd(2, 'DDR4-3200', 64), [
    'AMD Ryzen 5 3600', 'AMD Ryzen 5 3600X', 'AMD Ryzen 7 3700X', 'AMD Ryzen 7 3800X', 'AMD Ryzen 9 3900X', 'AMD Ryzen 9 3950X',
    'AMD Ryzen 5 5500', 'AMD Ryzen 5 5600', 'AMD Ryzen 5 5600X', 'AMD Ryzen 5 5600G', 'AMD Ryzen 7 5700G', 'AMD Ryzen 7 5700X', 'AMD Ryzen 7 5800X',
    'AMD Ryzen 9 5900X', 'AMD Ryzen 9 5950X',
  ]),
  ...cpuLine('AMD', 'desktop', amd(2, 'DDR4-3200', 96), ['AMD Ryzen 5 5600X3D', 'AMD Ryzen 7 5700X3D', 'AMD Ryzen 7 5800X3D']),
  ...cpuLine('AMD', 'desktop', amd(2, 'DDR5-5200', 64), [
    'AMD Ryzen 5 7600', 'AMD Ryzen 5 7600X', 'AMD Ryzen 7 7700', 'AMD Ryzen 7 7700X', 'AMD Ryzen 9 7900', 'AMD Ryzen 9 7900X', 'AMD Ryzen 9 7950X',
    'AMD Ryzen 5 8600G', 'AMD Ryzen 7 8700G', 'AMD Ryzen 5 8500G',
  ]),
  ...cpuLine('AMD', 'desktop', amd(2, 'DDR5-5200', 128), ['AMD Ryzen 5 7600X3D', 'AMD Ryzen 7 7800X3D', 'AMD Ryzen 9 7900X3D', 'AMD Ryzen 9 7950X3D']),
  ...cpuLine('AMD', 'desktop', amd(2, 'DDR5-5600', 128), [
    'AMD Ryzen 5 9600', 'AMD Ryzen 5 9600X', 'AMD Ryzen 7 9700X', 'AMD Ryzen 9 9900X', 'AMD Ryzen 9 9950X', 'AMD Ryzen 7 9800X3D',
    'AMD Ryzen 9 9900X3D', 'AMD Ryzen 9 9950X3D',
  ]),
  // Laptop Ryzen: Renoir / Lucienne / Cezanne up to LPDDR4X-4266, Rembrandt (6000, 7035) LPDDR5-6400, Dragon Range DDR5-5200.
  ...cpuLine('AMD', 'desktop', amd(2, 'LPDDR4X-4266', 16), [
    'AMD Ryzen 5 4500U', 'AMD Ryzen 5 4600H', 'AMD Ryzen 7 4700U', 'AMD Ryzen 7 4800U', 'AMD Ryzen 7 4800H', 'AMD Ryzen 7 4800HS',
    'AMD Ryzen 9 4900H', 'AMD Ryzen 9 4900HS', 'AMD Ryzen 5 5500U', 'AMD Ryzen 5 5600U', 'AMD Ryzen 5 5600H', 'AMD Ryzen 7 5700U',
    'AMD Ryzen 7 5800U', 'AMD Ryzen 7 5800H', 'AMD Ryzen 7 5800HS', 'AMD Ryzen 9 5900HS', 'AMD Ryzen 9 5900HX', 'AMD Ryzen 9 5980HX',
  ]),
  ...cpuLine('AMD', 'desktop', amd(2, 'LPDDR5-6400', 16), [
    'AMD Ryzen 5 6600U', 'AMD Ryzen 5 6600H', 'AMD Ryzen 7 6800U', 'AMD Ryzen 7 6800H', 'AMD Ryzen 7 6800HS', 'AMD Ryzen 9 6900HS',
    'AMD Ryzen 9 6900HX', 'AMD Ryzen 5 7535U', 'AMD Ryzen 7 7735U', 'AMD Ryzen 7 7735HS', 'AMD Ryzen 5 7530U', 'AMD Ryzen 7 7730U',
  ]),
  ...cpuLine('AMD', 'desktop', amd(2, 'DDR5-5200', 128), ['AMD Ryzen 9 7945HX', 'AMD Ryzen 9 7940HX', 'AMD Ryzen 9 7845HX', 'AMD Ryzen 9 7945HX3D']),
  ...cpuLine('AMD', 'workstation', amd(4, 'DDR4-2666', 32), ['AMD Ryzen Threadripper 1920X', 'AMD Ryzen Threadripper 1950X']),
  ...cpuLine('AMD', 'workstation', amd(4, 'DDR4-2933', 64), ['AMD Ryzen Threadripper 2950X', 'AMD Ryzen Threadripper 2970WX', 'AMD Ryzen Threadripper 2990WX']),
  ...cpuLine('AMD', 'workstation', amd(4, 'DDR4-3200', 256), ['AMD Ryzen Threadripper 3960X', 'AMD Ryzen Threadripper 3970X', 'AMD Ryzen Threadripper 3990X']),
  ...cpuLine('AMD', 'workstation', amd(8, 'DDR4-3200', 256), [
    'AMD Ryzen Threadripper PRO 3955WX', 'AMD Ryzen Threadripper PRO 3975WX', 'AMD Ryzen Threadripper PRO 3995WX',
    'AMD Ryzen Threadripper PRO 5955WX', 'AMD Ryzen Threadripper PRO 5965WX', 'AMD Ryzen Threadripper PRO 5975WX', 'AMD Ryzen Threadripper PRO 5995WX',
  ]),
  ...cpuLine('AMD', 'workstation', amd(4, 'DDR5-5200', 256), ['AMD Ryzen Threadripper 7960X', 'AMD Ryzen Threadripper 7970X', 'AMD Ryzen Threadripper 7980X']),
  ...cpuLine('AMD', 'workstation', amd(8, 'DDR5-5200', 384), [
    'AMD Ryzen Threadripper PRO 7955WX', 'AMD Ryzen Threadripper PRO 7965WX', 'AMD Ryzen Threadripper PRO 7975WX', 'AMD Ryzen Threadripper PRO 7985WX',
    'AMD Ryzen Threadripper PRO 7995WX',
  ]),
  ...cpuLine('AMD', 'workstation', amd(4, 'DDR5-6400', 256), ['AMD Ryzen Threadripper 9960X', 'AMD Ryzen Threadripper 9970X', 'AMD Ryzen Threadripper 9980X']),
  ...cpuLine('AMD', 'workstation', amd(8, 'DDR5-6400', 384), [
    'AMD Ryzen Threadripper PRO 9955WX', 'AMD Ryzen Threadripper PRO 9965WX', 'AMD Ryzen Threadripper PRO 9975WX', 'AMD Ryzen Threadripper PRO 9985WX',
    'AMD Ryzen Threadripper PRO 9995WX',
  ]),
  ...cpuLine('AMD', 'server', amd(2, 'DDR5-5200', 128), ['AMD EPYC 4124P', 'AMD EPYC 4244P', 'AMD EPYC 4344P', 'AMD EPYC 4464P', 'AMD EPYC 4564P', 'AMD EPYC 4584PX']),
  ...cpuLine('AMD', 'server', amd(8, 'DDR4-2666', 64), [
    'AMD EPYC 7251', 'AMD EPYC 7261', 'AMD EPYC 7281', 'AMD EPYC 7301', 'AMD EPYC 7351', 'AMD EPYC 7371', 'AMD EPYC 7401', 'AMD EPYC 7451',
    'AMD EPYC 7501', 'AMD EPYC 7551', 'AMD EPYC 7601', 'AMD EPYC 7351P', 'AMD EPYC 7401P', 'AMD EPYC 7551P',
  ]),
  ...cpuLine('AMD', 'server', amd(8, 'DDR4-3200', 256), [
    'AMD EPYC 7252', 'AMD EPYC 7262', 'AMD EPYC 7272', 'AMD EPYC 7282', 'AMD EPYC 7302', 'AMD EPYC 7302P', 'AMD EPYC 7352', 'AMD EPYC 7402',
    'AMD EPYC 7402P', 'AMD EPYC 7452', 'AMD EPYC 7502', 'AMD EPYC 7502P', 'AMD EPYC 7532', 'AMD EPYC 7542', 'AMD EPYC 7552', 'AMD EPYC 7642',
    'AMD EPYC 7662', 'AMD EPYC 7702', 'AMD EPYC 7702P', 'AMD EPYC 7742', 'AMD EPYC 7H12', 'AMD EPYC 7313', 'AMD EPYC 7313P', 'AMD EPYC 7343',
    'AMD EPYC 7413', 'AMD EPYC 7443', 'AMD EPYC 7443P', 'AMD EPYC 7453', 'AMD EPYC 7513', 'AMD EPYC 7543', 'AMD EPYC 7543P', 'AMD EPYC 7643',
    'AMD EPYC 7663', 'AMD EPYC 7713', 'AMD EPYC 7713P', 'AMD EPYC 7763', 'AMD EPYC 7B12', 'AMD EPYC 7B13', 'AMD EPYC 7R13', 'AMD EPYC 7V12',
    'AMD EPYC 7V13', 'AMD EPYC 7J13',
  ]),
  ...cpuLine('AMD', 'server', amd(8, 'DDR4-3200', 768), ['AMD EPYC 7373X', 'AMD EPYC 7473X', 'AMD EPYC 7573X', 'AMD EPYC 7773X', 'AMD EPYC 7V73X']),
  ...cpuLine('AMD', 'server', amd(12, 'DDR5-4800', 384), [
    'AMD EPYC 9124', 'AMD EPYC 9174F', 'AMD EPYC 9224', 'AMD EPYC 9254', 'AMD EPYC 9274F', 'AMD EPYC 9334', 'AMD EPYC 9354', 'AMD EPYC 9354P',
    'AMD EPYC 9374F', 'AMD EPYC 9454', 'AMD EPYC 9454P', 'AMD EPYC 9474F', 'AMD EPYC 9534', 'AMD EPYC 9554', 'AMD EPYC 9554P', 'AMD EPYC 9634',
    'AMD EPYC 9654', 'AMD EPYC 9654P', 'AMD EPYC 9734', 'AMD EPYC 9754', 'AMD EPYC 9R14', 'AMD EPYC 9B14', 'AMD EPYC 9V74',
  ]),
  ...cpuLine('AMD', 'server', amd(12, 'DDR5-4800', 1152), ['AMD EPYC 9184X', 'AMD EPYC 9384X', 'AMD EPYC 9684X', 'AMD EPYC 9V33X', 'AMD EPYC 9V84X']),
  ...cpuLine('AMD', 'server', amd(6, 'DDR5-4800', 128), ['AMD EPYC 8124P', 'AMD EPYC 8224P', 'AMD EPYC 8324P', 'AMD EPYC 8434P', 'AMD EPYC 8534P']),
  ...cpuLine('AMD', 'server', amd(12, 'DDR5-6000', 512), [
    'AMD EPYC 9015', 'AMD EPYC 9115', 'AMD EPYC 9135', 'AMD EPYC 9175F', 'AMD EPYC 9255', 'AMD EPYC 9275F', 'AMD EPYC 9335', 'AMD EPYC 9355',
    'AMD EPYC 9355P', 'AMD EPYC 9365', 'AMD EPYC 9375F', 'AMD EPYC 9455', 'AMD EPYC 9455P', 'AMD EPYC 9475F', 'AMD EPYC 9535', 'AMD EPYC 9555',
    'AMD EPYC 9555P', 'AMD EPYC 9565', 'AMD EPYC 9575F', 'AMD EPYC 9645', 'AMD EPYC 9655', 'AMD EPYC 9655P', 'AMD EPYC 9745', 'AMD EPYC 9755',
    'AMD EPYC 9825', 'AMD EPYC 9845', 'AMD EPYC 9965', 'AMD EPYC 9B45',
  ]),
];

const INTEL_CPU = 'Intel product specifications (ark.intel.com): memory channels, officially supported speed, cache';
const intel = (channels: number, type: string, llcMb: number) => ({ channels, type, llcMb, source: INTEL_CPU });

// 12th-14th gen Core at DDR5; the Core i5-13400 / 14400 are Alder Lake silicon at DDR5-4800.
// Xeon 6900P: DDR5-6400 RDIMM figure (MRDIMM-8800 would give 844.8 GB/s). N-series (N97,
// N100, N150, N200, Core i3-N300/N305): one 64-bit channel, DDR5-4800 = 38.4 GB/s. An 'F'
// after the model (no integrated graphics) is the same CPU for memory.
const intelCpus: CpuSpec[] = [
  ...cpuLine('Intel', 'desktop', intel(2, 'DDR4-2133', 8), ['Intel Core i5-6500', 'Intel Core i5-6600K', 'Intel Core i7-6700', 'Intel Core i7-6700K']),
  ...cpuLine('Intel', 'desktop', intel(2, 'DDR4-2400', 8), [
    'Intel Core i5-7500', 'Intel Core i5-7600K', 'Intel Core i7-7700', 'Intel Core i7-7700K', 'Intel Core i7-7700HQ', 'Intel Core i7-7820HQ',
    'Intel Core i5-8250U', 'Intel Core i7-8550U', 'Intel Core i7-8650U', 'Intel Core i5-8265U', 'Intel Core i7-8565U',
  ]),
  ...cpuLine('Intel', 'desktop', intel(2, 'DDR4-2666', 16), [
    'Intel Core i3-8100', 'Intel Core i5-8400', 'Intel Core i5-8500', 'Intel Core i5-8600K', 'Intel Core i7-8700', 'Intel Core i7-8700K',
    'Intel Core i5-9400', 'Intel Core i5-9600K', 'Intel Core i7-9700', 'Intel Core i7-9700K', 'Intel Core i9-9900', 'Intel Core i9-9900K',
    'Intel Core i9-9900KS', 'Intel Core i7-8750H', 'Intel Core i7-9750H', 'Intel Core i9-9880H', 'Intel Core i5-10400', 'Intel Core i5-10500',
    'Intel Core i5-10600K', 'Intel Core i3-10100',
  ]),
  ...cpuLine('Intel', 'desktop', intel(2, 'DDR4-2933', 20), [
    'Intel Core i7-10700', 'Intel Core i7-10700K', 'Intel Core i9-10850K', 'Intel Core i9-10900', 'Intel Core i9-10900K', 'Intel Core i7-10750H',
    'Intel Core i7-10870H', 'Intel Core i9-10885H', 'Intel Core i5-10210U', 'Intel Core i7-10510U', 'Intel Core i7-10710U',
  ]),
  ...cpuLine('Intel', 'desktop', intel(2, 'DDR4-3200', 24), [
    'Intel Core i5-11400', 'Intel Core i5-11600K', 'Intel Core i7-11700', 'Intel Core i7-11700K', 'Intel Core i9-11900K', 'Intel Core i5-11400H',
    'Intel Core i7-11800H', 'Intel Core i9-11900H', 'Intel Core i9-11980HK',
  ]),
  // Ice Lake U (LPDDR4X-3733), Tiger Lake U and H35 (LPDDR4X-4267), 128-bit.
  ...cpuLine('Intel', 'desktop', intel(2, 'LPDDR4X-3733', 8), ['Intel Core i5-1035G1', 'Intel Core i5-1035G7', 'Intel Core i7-1065G7']),
  ...cpuLine('Intel', 'desktop', intel(2, 'LPDDR4X-4267', 12), [
    'Intel Core i3-1115G4', 'Intel Core i5-1135G7', 'Intel Core i5-1145G7', 'Intel Core i7-1165G7', 'Intel Core i7-1185G7', 'Intel Core i7-1195G7',
    'Intel Core i5-11300H', 'Intel Core i7-11370H', 'Intel Core i7-11375H',
  ]),
  ...cpuLine('Intel', 'desktop', intel(2, 'DDR5-4800', 30), [
    'Intel Core i3-12100', 'Intel Core i5-12400', 'Intel Core i5-12500', 'Intel Core i5-12600', 'Intel Core i5-12600K', 'Intel Core i7-12700',
    'Intel Core i7-12700K', 'Intel Core i9-12900', 'Intel Core i9-12900K', 'Intel Core i9-12900KS', 'Intel Core i5-13400', 'Intel Core i5-14400',
    'Intel Core i9-12900HX', 'Intel Core i7-12800HX',
  ]),
  // Alder Lake P / U / H laptops: LPDDR5-5200.
  ...cpuLine('Intel', 'desktop', intel(2, 'LPDDR5-5200', 24), [
    'Intel Core i5-1235U', 'Intel Core i7-1255U', 'Intel Core i5-1240P', 'Intel Core i7-1260P', 'Intel Core i7-1280P', 'Intel Core i5-12450H',
    'Intel Core i5-12500H', 'Intel Core i7-12650H', 'Intel Core i7-12700H', 'Intel Core i7-12800H', 'Intel Core i9-12900H', 'Intel Core i9-12900HK',
  ]),
  ...cpuLine('Intel', 'desktop', intel(2, 'DDR5-5600', 36), [
    'Intel Core i5-13500', 'Intel Core i5-13600', 'Intel Core i5-13600K', 'Intel Core i7-13700', 'Intel Core i7-13700K', 'Intel Core i9-13900',
    'Intel Core i9-13900K', 'Intel Core i9-13900KS', 'Intel Core i5-14500', 'Intel Core i5-14600K', 'Intel Core i7-14700', 'Intel Core i7-14700K',
    'Intel Core i9-14900', 'Intel Core i9-14900K', 'Intel Core i9-14900KS', 'Intel Core i7-13650HX', 'Intel Core i7-13700HX', 'Intel Core i9-13900HX',
    'Intel Core i9-13950HX', 'Intel Core i9-13980HX', 'Intel Core i7-14650HX', 'Intel Core i7-14700HX', 'Intel Core i9-14900HX',
  ]),
  // Raptor Lake P / U / H laptops: LPDDR5X-6400.
  ...cpuLine('Intel', 'desktop', intel(2, 'LPDDR5X-6400', 24), [
    'Intel Core i5-1335U', 'Intel Core i7-1355U', 'Intel Core i7-1365U', 'Intel Core i5-1340P', 'Intel Core i7-1360P', 'Intel Core i5-13420H',
    'Intel Core i5-13500H', 'Intel Core i7-13620H', 'Intel Core i7-13700H', 'Intel Core i7-13800H', 'Intel Core i9-13900H', 'Intel Core i9-13900HK',
    'Intel Core 5 120U', 'Intel Core 7 150U',
  ]),
  ...cpuLine('Intel', 'desktop', intel(2, 'DDR5-6400', 36), [
    'Intel Core Ultra 5 225', 'Intel Core Ultra 5 245K', 'Intel Core Ultra 7 265', 'Intel Core Ultra 7 265K', 'Intel Core Ultra 9 285',
    'Intel Core Ultra 9 285K',
  ]),
  // Arrow Lake HX laptops (Core Ultra 200HX): desktop silicon with DDR5-6400 SO-DIMMs, up to 36 MB L3.
  ...cpuLine('Intel', 'desktop', intel(2, 'DDR5-6400', 36), [
    'Intel Core Ultra 5 245HX', 'Intel Core Ultra 7 251HX', 'Intel Core Ultra 7 255HX', 'Intel Core Ultra 9 275HX', 'Intel Core Ultra 9 285HX',
  ]),
  ...cpuLine('Intel', 'desktop', intel(1, 'DDR5-4800', 6), [
    'Intel Processor N97', 'Intel Processor N100', 'Intel Processor N150', 'Intel Processor N200', 'Intel Core i3-N300', 'Intel Core i3-N305',
  ]),
  ...cpuLine('Intel', 'workstation', intel(4, 'DDR4-2666', 25), ['Intel Core i9-7900X', 'Intel Core i9-7980XE', 'Intel Core i9-9980XE']),
  ...cpuLine('Intel', 'workstation', intel(4, 'DDR4-2933', 25), ['Intel Core i9-10900X', 'Intel Core i9-10940X', 'Intel Core i9-10980XE']),
  ...cpuLine('Intel', 'workstation', intel(8, 'DDR5-4800', 105), [
    'Intel Xeon w5-3425', 'Intel Xeon w5-3435X', 'Intel Xeon w7-3445', 'Intel Xeon w7-3465X', 'Intel Xeon w9-3475X', 'Intel Xeon w9-3495X',
    'Intel Xeon w5-3535X', 'Intel Xeon w7-3565X', 'Intel Xeon w9-3595X',
  ]),
  ...cpuLine('Intel', 'workstation', intel(4, 'DDR5-4800', 45), ['Intel Xeon w3-2423', 'Intel Xeon w5-2455X', 'Intel Xeon w5-2465X', 'Intel Xeon w7-2495X']),
  // Xeon E5 v2 (DDR3-1866), v3 (DDR4-2133), v4 (DDR4-2400): four channels.
  ...cpuLine('Intel', 'server', intel(4, 'DDR3-1866', 30), [
    'Intel Xeon E5-2650 v2', 'Intel Xeon E5-2660 v2', 'Intel Xeon E5-2670 v2', 'Intel Xeon E5-2680 v2', 'Intel Xeon E5-2690 v2', 'Intel Xeon E5-2695 v2',
    'Intel Xeon E5-2697 v2',
  ]),
  ...cpuLine('Intel', 'server', intel(4, 'DDR4-2133', 45), [
    'Intel Xeon E5-2620 v3', 'Intel Xeon E5-2650 v3', 'Intel Xeon E5-2660 v3', 'Intel Xeon E5-2670 v3', 'Intel Xeon E5-2680 v3', 'Intel Xeon E5-2690 v3',
    'Intel Xeon E5-2697 v3', 'Intel Xeon E5-2698 v3', 'Intel Xeon E5-2699 v3',
  ]),
  ...cpuLine('Intel', 'server', intel(4, 'DDR4-2400', 55), [
    'Intel Xeon E5-2620 v4', 'Intel Xeon E5-2630 v4', 'Intel Xeon E5-2640 v4', 'Intel Xeon E5-2650 v4', 'Intel Xeon E5-2660 v4', 'Intel Xeon E5-2667 v4',
    'Intel Xeon E5-2673 v4', 'Intel Xeon E5-2680 v4', 'Intel Xeon E5-2682 v4', 'Intel Xeon E5-2683 v4', 'Intel Xeon E5-2686 v4', 'Intel Xeon E5-2690 v4',
    'Intel Xeon E5-2695 v4', 'Intel Xeon E5-2696 v4', 'Intel Xeon E5-2697 v4', 'Intel Xeon E5-2698 v4', 'Intel Xeon E5-2699 v4',
  ]),
  // Xeon Scalable 1st / 2nd gen (Skylake-SP DDR4-2666, Cascade Lake DDR4-2933): six channels.
  ...cpuLine('Intel', 'server', intel(6, 'DDR4-2666', 39), [
    'Intel Xeon Gold 6126', 'Intel Xeon Gold 6130', 'Intel Xeon Gold 6132', 'Intel Xeon Gold 6138', 'Intel Xeon Gold 6140', 'Intel Xeon Gold 6148',
    'Intel Xeon Gold 6150', 'Intel Xeon Gold 6152', 'Intel Xeon Gold 6154', 'Intel Xeon Platinum 8124M', 'Intel Xeon Platinum 8151',
    'Intel Xeon Platinum 8160', 'Intel Xeon Platinum 8168', 'Intel Xeon Platinum 8170', 'Intel Xeon Platinum 8175M', 'Intel Xeon Platinum 8176',
    'Intel Xeon Platinum 8180',
  ]),
  ...cpuLine('Intel', 'server', intel(6, 'DDR4-2933', 39), [
    'Intel Xeon Gold 6226R', 'Intel Xeon Gold 6230', 'Intel Xeon Gold 6230R', 'Intel Xeon Gold 6238', 'Intel Xeon Gold 6238R', 'Intel Xeon Gold 6240',
    'Intel Xeon Gold 6242', 'Intel Xeon Gold 6246', 'Intel Xeon Gold 6248', 'Intel Xeon Gold 6248R', 'Intel Xeon Gold 6252', 'Intel Xeon Gold 6254',
    'Intel Xeon Gold 6258R', 'Intel Xeon Platinum 8252C', 'Intel Xeon Platinum 8259CL', 'Intel Xeon Platinum 8260', 'Intel Xeon Platinum 8268',
    'Intel Xeon Platinum 8270', 'Intel Xeon Platinum 8275CL', 'Intel Xeon Platinum 8280', 'Intel Xeon Platinum 8275L',
  ]),
  ...cpuLine('Intel', 'server', intel(6, 'DDR4-2400', 22), [
    'Intel Xeon Silver 4110', 'Intel Xeon Silver 4114', 'Intel Xeon Silver 4116', 'Intel Xeon Silver 4208', 'Intel Xeon Silver 4210',
    'Intel Xeon Silver 4210R', 'Intel Xeon Silver 4214', 'Intel Xeon Silver 4214R', 'Intel Xeon Silver 4216',
  ]),
  // 3rd gen (Ice Lake-SP): eight channels DDR4-3200.
  ...cpuLine('Intel', 'server', intel(8, 'DDR4-3200', 60), [
    'Intel Xeon Gold 6326', 'Intel Xeon Gold 6330', 'Intel Xeon Gold 6338', 'Intel Xeon Gold 6342', 'Intel Xeon Gold 6348', 'Intel Xeon Gold 6354',
    'Intel Xeon Platinum 8358', 'Intel Xeon Platinum 8360Y', 'Intel Xeon Platinum 8362', 'Intel Xeon Platinum 8368', 'Intel Xeon Platinum 8370C',
    'Intel Xeon Platinum 8375C', 'Intel Xeon Platinum 8380',
  ]),
  // 4th gen (Sapphire Rapids) and 5th gen (Emerald Rapids) Xeon Scalable.
  ...cpuLine('Intel', 'server', intel(8, 'DDR5-4800', 113), [
    'Intel Xeon Gold 6430', 'Intel Xeon Gold 6438Y+', 'Intel Xeon Gold 6442Y', 'Intel Xeon Gold 6448Y', 'Intel Xeon Gold 6454S', 'Intel Xeon Gold 6458Q',
    'Intel Xeon Platinum 8452Y', 'Intel Xeon Platinum 8458P', 'Intel Xeon Platinum 8460Y+', 'Intel Xeon Platinum 8462Y+', 'Intel Xeon Platinum 8468',
    'Intel Xeon Platinum 8470', 'Intel Xeon Platinum 8480+', 'Intel Xeon Platinum 8480C', 'Intel Xeon Platinum 8481C', 'Intel Xeon Platinum 8488C',
    'Intel Xeon Platinum 8490H',
  ]),
  ...cpuLine('Intel', 'server', intel(8, 'DDR5-5600', 320), [
    'Intel Xeon Gold 6530', 'Intel Xeon Gold 6548Y+', 'Intel Xeon Platinum 8558', 'Intel Xeon Platinum 8562Y+', 'Intel Xeon Platinum 8568Y+',
    'Intel Xeon Platinum 8570', 'Intel Xeon Platinum 8580', 'Intel Xeon Platinum 8592+',
  ]),
  ...cpuLine('Intel', 'server', intel(12, 'DDR5-6400', 504), [
    'Intel Xeon 6952P', 'Intel Xeon 6960P', 'Intel Xeon 6972P', 'Intel Xeon 6979P', 'Intel Xeon 6980P',
  ]),
  ...cpuLine('Intel', 'server', intel(8, 'DDR5-6400', 288), ['Intel Xeon 6767P', 'Intel Xeon 6787P', 'Intel Xeon 6747P']),
];

const ARM_CPU =
  'Ampere Altra / AmpereOne product briefs; AWS Graviton pages; NVIDIA Grace datasheet; Raspberry Pi product briefs; Rockchip RK3588 datasheet';
const arm = (channels: number, type: string, llcMb: number) => ({ channels, type, llcMb, source: ARM_CPU });

// Ampere Altra / Altra Max (8-channel DDR4-3200); AmpereOne (8-channel DDR5-5200); AWS
// Graviton2 (8-channel DDR4-3200), Graviton3 (8-channel DDR5-4800), Graviton4 (12-channel
// DDR5-5600); NVIDIA Grace (up to 512 GB/s LPDDR5X per Grace CPU). Raspberry Pi 5 / 500 /
// 500+ (BCM2712) 32-bit LPDDR4X-4267; Pi 4 Model B / Pi 400 (BCM2711) 32-bit LPDDR4-3200
// (half a 64-bit channel); Pi 3 (BCM2837) 32-bit LPDDR2-900. RK3588 boards (Orange Pi 5, Rock
// 5B): 64-bit LPDDR4X / LPDDR5 up to 5500 MT/s (the higher kept).
const armCpus: CpuSpec[] = [
  ...cpuLine('Ampere', 'server', arm(8, 'DDR4-3200', 32), [
    'Ampere Altra Q32-17', 'Ampere Altra Q64-22', 'Ampere Altra Q64-30', 'Ampere Altra Q80-28', 'Ampere Altra Q80-30',
    'Ampere Altra Max M96-28', 'Ampere Altra Max M128-26', 'Ampere Altra Max M128-30',
  ]),
  ...cpuLine('Ampere', 'server', arm(8, 'DDR5-5200', 64), [
    'AmpereOne A96-36X', 'AmpereOne A128-34X', 'AmpereOne A144-33X', 'AmpereOne A160-30X', 'AmpereOne A192-26X', 'AmpereOne A192-32X',
  ]),
  ...cpuLine('AWS', 'server', arm(8, 'DDR4-3200', 32), ['AWS Graviton2']),
  ...cpuLine('AWS', 'server', arm(8, 'DDR5-4800', 32), ['AWS Graviton3']),
  ...cpuLine('AWS', 'server', arm(12, 'DDR5-5600', 36), ['AWS Graviton4']),
  { name: 'NVIDIA Grace', vendor: 'NVIDIA', memoryChannels: 0, memoryType: 'LPDDR5X', bandwidthGBs: 512, segment: 'server', llcMb: 117, source: ARM_CPU, aliases: ['Grace CPU'] },
  ...cpuLine('Raspberry Pi', 'embedded', arm(0.5, 'LPDDR4X-4267', 2), [
    ['Raspberry Pi 5', 'Pi 5', 'RPi 5'],
    ['Raspberry Pi 500', 'Pi 500'],
    ['Raspberry Pi 500+', 'Pi 500+'],
  ]),
  ...cpuLine('Raspberry Pi', 'embedded', arm(0.5, 'LPDDR4-3200', 1), [
    ['Raspberry Pi 4 Model B', 'Raspberry Pi 4', 'Pi 4', 'RPi 4'],
    ['Raspberry Pi 400', 'Pi 400'],
  ]),
  ...cpuLine('Raspberry Pi', 'embedded', arm(0.5, 'LPDDR2-900', 0.5), [['Raspberry Pi 3 Model B', 'Raspberry Pi 3', 'Pi 3', 'RPi 3']]),
  // Steam Deck (LCD 'Custom APU 0405': LPDDR5-5500; OLED 'Custom APU 0932': LPDDR5-6400), 128-bit.
  ...cpuLine('AMD', 'embedded', amd(2, 'LPDDR5-6400', 4), ['AMD Custom APU 0932', 'AMD Custom APU 0405']),
  ...cpuLine('Rockchip', 'embedded', arm(1, 'LPDDR5-5500', 3), [['Rockchip RK3588', 'Orange Pi 5', 'Orange Pi 5 Plus', 'Orange Pi 5 Max', 'Rock 5B', 'RK3588S']]),
];

export const cpus: readonly CpuSpec[] = [...amdCpus, ...intelCpus, ...armCpus];

// ---------------------------------------------------------------------------------------
// Names shared by several products
// ---------------------------------------------------------------------------------------

/**
 * A name several catalogued products are sold or shown under: a bare name without the form
 * factor or memory type that sets the bandwidth ('A100'), a chip family ('Strix Halo'), a GPU
 * target or die that ROCm, Vulkan or Mesa prints instead of the card ('gfx1100', 'NAVI31'),
 * an integrated GPU inside several chips ('Radeon 780M'), a machine sold with several chips
 * ('Framework Desktop'). The resolver reads it as any of its members: the device is named as
 * the slowest member, the roofline bound takes the fastest, and a text that also names one
 * member ('Framework Desktop (Ryzen AI Max+ 395)') narrows it to that member. Members are
 * canonical names. Targets and dies: LLVM AMDGPU processor table and Mesa's RADV device list.
 */
export interface SharedName {
  name: string;
  members: string[];
}

const strixHalo = ['AMD Ryzen AI Max+ 395', 'AMD Ryzen AI Max 390', 'AMD Ryzen AI Max 385', 'AMD Ryzen AI Max+ 392', 'AMD Ryzen AI Max+ 388'];
const strixPoint = ['AMD Ryzen AI 9 HX 370', 'AMD Ryzen AI 9 HX 375', 'AMD Ryzen AI 9 365'];
// The desktop Ryzen 7 8700G / Ryzen 5 8600G (CPU entries: DDR5-5200 DIMMs) carry the same iGPU.
const phoenixHawkPoint = [
  'AMD Ryzen 7 7840U', 'AMD Ryzen 7 7840HS', 'AMD Ryzen 7 7840H', 'AMD Ryzen 9 7940HS', 'AMD Ryzen 9 7940H', 'AMD Ryzen 7 8840U', 'AMD Ryzen 7 8840HS',
  'AMD Ryzen 7 8845HS', 'AMD Ryzen 7 8845H', 'AMD Ryzen 9 8945HS', 'AMD Ryzen 7 255', 'AMD Ryzen Z1 Extreme', 'AMD Ryzen 7 8700G',
];
const lunarLake140V = ['Intel Core Ultra 7 256V', 'Intel Core Ultra 7 258V', 'Intel Core Ultra 7 266V', 'Intel Core Ultra 7 268V', 'Intel Core Ultra 9 288V'];
const lunarLake130V = ['Intel Core Ultra 5 226V', 'Intel Core Ultra 5 228V', 'Intel Core Ultra 5 236V', 'Intel Core Ultra 5 238V'];
const radeon = (...models: string[]) => models.map((model) => `AMD ${model}`);
const polaris = radeon('Radeon RX 470', 'Radeon RX 480', 'Radeon RX 570', 'Radeon RX 580', 'Radeon RX 590');
const navi10 = radeon('Radeon RX 5600 XT', 'Radeon RX 5700', 'Radeon RX 5700 XT');
const navi21 = radeon('Radeon RX 6800', 'Radeon RX 6800 XT', 'Radeon RX 6900 XT', 'Radeon RX 6950 XT', 'Radeon PRO W6800', 'Radeon PRO V620');
const navi22 = radeon('Radeon RX 6700', 'Radeon RX 6700 XT', 'Radeon RX 6750 XT', 'Radeon RX 6750 GRE', 'Radeon RX 6700M', 'Radeon RX 6800M', 'Radeon RX 6850M XT');
const navi23 = radeon('Radeon RX 6600', 'Radeon RX 6600 XT', 'Radeon RX 6650 XT', 'Radeon PRO W6600');
const navi24 = radeon('Radeon RX 6400', 'Radeon RX 6500 XT');
const navi31 = radeon('Radeon RX 7900 XTX', 'Radeon RX 7900 XT', 'Radeon RX 7900 GRE', 'Radeon PRO W7900', 'Radeon PRO W7800');
const navi32 = radeon('Radeon RX 7800 XT', 'Radeon RX 7700 XT', 'Radeon RX 7700', 'Radeon PRO W7700', 'Radeon RX 7900M');
const navi33 = radeon('Radeon RX 7600', 'Radeon RX 7600 XT', 'Radeon RX 7650 GRE', 'Radeon PRO W7600', 'Radeon RX 7600M XT');
const navi44 = radeon('Radeon RX 9060 XT');
const navi48 = radeon('Radeon RX 9070', 'Radeon RX 9070 XT', 'Radeon RX 9070 GRE', 'Radeon AI PRO R9700');

export const sharedNames: readonly SharedName[] = [
  { name: 'A100', members: ['NVIDIA A100 PCIe', 'NVIDIA A100 SXM'] },
  { name: 'A800', members: ['NVIDIA A100 PCIe', 'NVIDIA A100 SXM'] },
  { name: 'H100', members: ['NVIDIA H100 PCIe', 'NVIDIA H100 SXM'] },
  { name: 'H800', members: ['NVIDIA H100 PCIe', 'NVIDIA H100 SXM'] },
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
  { name: 'Radeon 760M', members: ['AMD Ryzen 5 7640U', 'AMD Ryzen 5 7640HS', 'AMD Ryzen 5 8640U', 'AMD Ryzen 5 8645HS', 'AMD Ryzen 5 8600G'] },
  { name: 'gfx1103', members: [...phoenixHawkPoint, 'AMD Ryzen 5 7640U', 'AMD Ryzen 5 7640HS', 'AMD Ryzen 5 8640U', 'AMD Ryzen 5 8645HS', 'AMD Ryzen 5 8600G'] },
  { name: 'Lunar Lake', members: [...lunarLake130V, ...lunarLake140V] },
  { name: 'Arc 140V', members: lunarLake140V },
  { name: 'Arc 130V', members: lunarLake130V },
  {
    name: 'Meteor Lake',
    members: ['125H', '135H', '125U', '135U'].map((m) => `Intel Core Ultra 5 ${m}`).concat(['155H', '165H', '155U', '165U'].map((m) => `Intel Core Ultra 7 ${m}`), ['Intel Core Ultra 9 185H']),
  },
  { name: 'gfx803', members: polaris },
  // 'Orin' as NVIDIA's tools print it on any Jetson Orin module.
  {
    name: 'Orin',
    members: ['NVIDIA Jetson AGX Orin', 'NVIDIA Jetson Orin NX', 'NVIDIA Jetson Orin Nano', 'NVIDIA Jetson Orin Nano Super'],
  },
  {
    name: 'Jetson Orin',
    members: ['NVIDIA Jetson AGX Orin', 'NVIDIA Jetson Orin NX', 'NVIDIA Jetson Orin Nano', 'NVIDIA Jetson Orin Nano Super'],
  },
  { name: 'Polaris 20', members: radeon('Radeon RX 570', 'Radeon RX 580') },
  { name: 'gfx900', members: radeon('Radeon RX Vega 56', 'Radeon RX Vega 64') },
  { name: 'gfx906', members: radeon('Radeon VII', 'Instinct MI50', 'Instinct MI60') },
  { name: 'gfx908', members: radeon('Instinct MI100') },
  { name: 'gfx90a', members: radeon('Instinct MI210', 'Instinct MI250', 'Instinct MI250X') },
  { name: 'gfx942', members: radeon('Instinct MI300X', 'Instinct MI325X') },
  { name: 'gfx950', members: radeon('Instinct MI355X') },
  { name: 'gfx1010', members: navi10 },
  { name: 'NAVI10', members: navi10 },
  { name: 'gfx1012', members: radeon('Radeon RX 5500 XT') },
  { name: 'NAVI14', members: radeon('Radeon RX 5500 XT') },
  { name: 'gfx1030', members: navi21 },
  { name: 'NAVI21', members: navi21 },
  { name: 'gfx1031', members: navi22 },
  { name: 'NAVI22', members: navi22 },
  { name: 'gfx1032', members: navi23 },
  { name: 'NAVI23', members: navi23 },
  { name: 'gfx1034', members: navi24 },
  { name: 'NAVI24', members: navi24 },
  { name: 'gfx1100', members: navi31 },
  { name: 'NAVI31', members: navi31 },
  { name: 'gfx1101', members: navi32 },
  { name: 'NAVI32', members: navi32 },
  { name: 'gfx1102', members: navi33 },
  { name: 'NAVI33', members: navi33 },
  { name: 'gfx1200', members: navi44 },
  { name: 'NAVI44', members: navi44 },
  { name: 'gfx1201', members: navi48 },
  { name: 'NAVI48', members: navi48 },
];
