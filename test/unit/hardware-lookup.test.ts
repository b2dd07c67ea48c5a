import { expect } from 'chai';
import { cpus, gpus, unifiedChips } from '../../src/data/hardware-catalogue.ts';
import {
  cardsStreamingAtOnce,
  findCpu,
  findGpu,
  findUnifiedChip,
  memoryBandwidthOf,
  memoryBandwidthUpperBoundOf,
  type HardwareForBandwidth,
} from '../../src/lib/hardware-lookup.ts';
import { runVerdict } from '../../src/runs/submission/verdict.ts';

/** [text as written, canonical product found, lower bandwidth, upper bandwidth]. */
type Row = [string, string, number, number];

function readings(hardware: HardwareForBandwidth): [number | null, number | null] {
  return [memoryBandwidthOf(hardware), memoryBandwidthUpperBoundOf(hardware)];
}

describe('hardware names as people write them', () => {
  describe('unified chips (chipFamily as written, any split)', () => {
    const rows: Row[] = [
      ['M2 Ultra 76-Core GPU', 'Apple M2 Ultra', 800, 800],
      ['M1 Ultra 48-core GPU', 'Apple M1 Ultra', 800, 800],
      ['M4 Max / 40-core GPU', 'Apple M4 Max', 546, 546],
      ['M4 Max 32-core GPU', 'Apple M4 Max', 410, 410],
      ['M4 Max', 'Apple M4 Max', 410, 546],
      ['Mac Studio (M3 Ultra 512GB)', 'Apple M3 Ultra', 819, 819],
      ['MacBook Pro M3 Max 16-core CPU 40-core GPU', 'Apple M3 Max', 400, 400],
      ['MacBook Pro 14" M3 Max 14-core CPU 30-core GPU', 'Apple M3 Max', 300, 300],
      ['Apple M3 Max (30-core GPU)', 'Apple M3 Max', 300, 300],
      ['M3 Max 40c', 'Apple M3 Max', 400, 400],
      ['Apple M1 Pro (10-core CPU, 16-core GPU)', 'Apple M1 Pro', 200, 200],
      ['Mac mini M4 Pro 64GB', 'Apple M4 Pro', 273, 273],
      ['Apple M5', 'Apple M5', 153, 153],
      ['MacBook Pro M5 Pro', 'Apple M5 Pro', 307, 307],
      ['M5 Max 40-core GPU', 'Apple M5 Max', 614, 614],
      ['Ryzen Max+ 395', 'AMD Ryzen AI Max+ 395', 256, 256],
      ['AMD Ryzen AI MAX+ PRO 395', 'AMD Ryzen AI Max+ 395', 256, 256],
      ['Strix Halo', 'AMD Ryzen AI Max+ 395', 256, 256],
      ['Radeon 8060S', 'AMD Ryzen AI Max+ 395', 256, 256],
      ['Radeon 8050S', 'AMD Ryzen AI Max 390', 256, 256],
      ['Framework Desktop', 'AMD Ryzen AI Max+ 395', 256, 256],
      ['Framework Desktop (Ryzen AI Max 385, 32GB)', 'AMD Ryzen AI Max 385', 256, 256],
      ['GMKtec EVO-X2', 'AMD Ryzen AI Max+ 395', 256, 256],
      ['Dell Pro Max with GB10', 'NVIDIA GB10', 273, 273],
      ['DGX Spark', 'NVIDIA GB10', 273, 273],
      ['ASUS Ascent GX10', 'NVIDIA GB10', 273, 273],
      ['NVIDIA DGX Spark (GB10, 128GB)', 'NVIDIA GB10', 273, 273],
      ['Jetson AGX Orin 64GB', 'NVIDIA Jetson AGX Orin', 204.8, 204.8],
      ['Core Ultra 7 258V', 'Intel Core Ultra 7 258V', 136.5, 136.5],
      ['Intel(R) Arc(TM) 140V GPU (16GB)', 'Intel Core Ultra 7 256V', 136.5, 136.5],
      ['Radeon 890M', 'AMD Ryzen AI 9 HX 370', 120, 120],
      ['GMKtec EVO-X2 Ryzen AI Max+ 395', 'AMD Ryzen AI Max+ 395', 256, 256],
      ['Framework Desktop Mainboard (395+)', 'AMD Ryzen AI Max+ 395', 256, 256],
      ['M4 Mac mini (10 core - 32GB)', 'Apple M4', 120, 120],
      ['M1 Ultra (64 GPU Core)', 'Apple M1 Ultra', 800, 800],
      ['Ryzen AI 5 340', 'AMD Ryzen AI 5 340', 128, 128],
    ];
    for (const [text, canonical, lower, upper] of rows) {
      it(`'${text}' is the ${canonical} (${lower}-${upper} GB/s)`, () => {
        expect(findUnifiedChip('', text, '')?.spec.name).to.equal(canonical);
        expect(readings({ hwClass: 'UNIFIED', chipVendor: '', chipFamily: text, chipVariant: '' })).to.deep.equal([lower, upper]);
      });
    }

    it('reads the same name split over vendor, family and variant', () => {
      expect(readings({ hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'Mac Studio', chipVariant: 'M2 Ultra 192GB' })).to.deep.equal([
        800, 800,
      ]);
      expect(readings({ hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3 Max', chipVariant: '40-core GPU' })).to.deep.equal([
        400, 400,
      ]);
      expect(
        readings({ hwClass: 'UNIFIED', chipVendor: 'AMD', chipFamily: 'Strix Halo', chipVariant: '', unifiedMemoryGb: 128 }),
      ).to.deep.equal([256, 256]);
      // A desktop APU sent as a unified chip is its CPU entry.
      expect(
        readings({ hwClass: 'UNIFIED', chipVendor: 'AMD', chipFamily: 'Ryzen 7', chipVariant: '8700G', unifiedMemoryGb: 64 }),
      ).to.deep.equal([83.2, 83.2]);
    });
  });

  describe('GPU names, device strings and memory types', () => {
    const rows: [string, number | undefined, string, number, number][] = [
      ['RTX 5090 32 GB GDDR7', undefined, 'NVIDIA GeForce RTX 5090', 1792, 1792],
      ['A100 80 GB HBM2e', undefined, 'NVIDIA A100 PCIe', 1935, 2039],
      ['NVIDIA A100-SXM4-80GB', undefined, 'NVIDIA A100 SXM', 2039, 2039],
      ['RTX 3090 24GB GDDR6X', undefined, 'NVIDIA GeForce RTX 3090', 936, 936],
      ['H100 PCIe 80GB HBM2e', undefined, 'NVIDIA H100 PCIe', 2000, 2000],
      ['AMD Radeon RX 7900 XTX (RADV NAVI31)', 24, 'AMD Radeon RX 7900 XTX', 960, 960],
      ['AMD Radeon RX 7900 XTX (AMD proprietary driver)', 24, 'AMD Radeon RX 7900 XTX', 960, 960],
      [
        'ggml_vulkan: 0 = AMD Radeon RX 7900 XTX (RADV NAVI31) (radv) | uma: 0 | fp16: 1 | warp size: 64',
        24,
        'AMD Radeon RX 7900 XTX',
        960,
        960,
      ],
      ['AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32', 24, 'AMD Radeon RX 7900 XTX', 960, 960],
      ['NVIDIA GeForce RTX 4090 (NVIDIA)', 24, 'NVIDIA GeForce RTX 4090', 1008, 1008],
      ['Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes', 24, 'NVIDIA GeForce RTX 4090', 1008, 1008],
      ['Intel(R) Arc(TM) A770 Graphics (DG2)', 16, 'Intel Arc A770', 560, 560],
      ['ggml_vulkan: 0 = Intel(R) Arc(TM) A770 Graphics (Intel Corporation) | uma: 0 | fp16: 1', 16, 'Intel Arc A770', 560, 560],
      ['AMD Radeon RX 5700 XT (AMD open-source driver)', 8, 'AMD Radeon RX 5700 XT', 448, 448],
      // llama-bench's gpu_info for two identical cards.
      ['NVIDIA GeForce RTX 3090, NVIDIA GeForce RTX 3090', 24, 'NVIDIA GeForce RTX 3090', 936, 936],
      ['NVIDIA GeForce RTX 4090 Laptop GPU', 16, 'NVIDIA GeForce RTX 4090 Laptop GPU', 576, 576],
      ['RTX 4090 Mobile', 16, 'NVIDIA GeForce RTX 4090 Laptop GPU', 576, 576],
      ['RTX 4090M', 16, 'NVIDIA GeForce RTX 4090 Laptop GPU', 576, 576],
      ['RTX 4070 Max-Q', 8, 'NVIDIA GeForce RTX 4070 Laptop GPU', 256, 256],
      ['NVIDIA GeForce RTX 3080 Ti Laptop GPU', 16, 'NVIDIA GeForce RTX 3080 Ti Laptop GPU', 512, 512],
      ['RTX 4080 Laptop GPU', 12, 'NVIDIA GeForce RTX 4080 Laptop GPU', 432, 432],
      ['RTX 4060 Laptop', 8, 'NVIDIA GeForce RTX 4060 Laptop GPU', 256, 256],
      ['RTX 5090 Laptop 24GB', undefined, 'NVIDIA GeForce RTX 5090 Laptop GPU', 896, 896],
      ['NVIDIA GeForce RTX 5080 Laptop GPU', 16, 'NVIDIA GeForce RTX 5080 Laptop GPU', 896, 896],
      ['NVIDIA RTX PRO 6000 Blackwell Workstation Edition', 96, 'NVIDIA RTX PRO 6000 Blackwell', 1792, 1792],
      ['NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition (NVIDIA)', 96, 'NVIDIA RTX PRO 6000 Blackwell', 1792, 1792],
      ['RTX PRO 6000 Blackwell Server Edition', 96, 'NVIDIA RTX PRO 6000 Blackwell', 1792, 1792],
      ['NVIDIA RTX PRO 5000 Blackwell', 48, 'NVIDIA RTX PRO 5000 Blackwell', 1344, 1344],
      ['RTX PRO 4500 Blackwell', 32, 'NVIDIA RTX PRO 4500 Blackwell', 896, 896],
      ['RTX PRO 4000 Blackwell', 24, 'NVIDIA RTX PRO 4000 Blackwell', 672, 672],
      ['AMD Radeon AI PRO R9700 (RADV GFX1201)', 32, 'AMD Radeon AI PRO R9700', 640, 640],
      ['AMD Radeon RX 5700 XT (RADV NAVI10)', 8, 'AMD Radeon RX 5700 XT', 448, 448],
      ['AMD Radeon VII', 16, 'AMD Radeon VII', 1024, 1024],
      ['AMD RX 580', 8, 'AMD Radeon RX 580', 256, 256],
      ['AMD Pro W7700', 16, 'AMD Radeon PRO W7700', 576, 576],
      ['Intel Arc Pro B50', 16, 'Intel Arc Pro B50', 224, 224],
      ['Sapphire Pulse RX 7900 XT', 20, 'AMD Radeon RX 7900 XT', 800, 800],
    ];
    for (const [text, vramGb, canonical, lower, upper] of rows) {
      it(`'${text}' is the ${canonical} (${lower}-${upper} GB/s)`, () => {
        expect(findGpu(text, vramGb)?.spec.name).to.equal(canonical);
        expect(readings({ hwClass: 'DISCRETE_GPU', gpuName: text, vramGb })).to.deep.equal([lower, upper]);
      });
    }
  });

  describe('an integrated GPU or a chip given as a discrete gpuName is its chip', () => {
    const rows: [string, number, number][] = [
      ['Radeon 8060S', 256, 256],
      ['AMD Radeon Graphics (RADV GFX1151)', 256, 256],
      ['AMD Radeon Graphics, gfx1151 (0x1151), VMM: no', 256, 256],
      ['AMD Radeon 890M Graphics', 120, 120],
      ['AMD Radeon 780M Graphics (AMD proprietary driver)', 120, 120],
      ['Radeon 780M', 120, 120],
      ['Apple M2 Max', 400, 400],
      ['ggml_metal_init: GPU name: Apple M2 Ultra', 800, 800],
      ['DGX Spark', 273, 273],
      ['Jetson AGX Orin 64GB', 204.8, 204.8],
    ];
    for (const [gpuName, lower, upper] of rows) {
      it(`'${gpuName}' -> ${lower}-${upper} GB/s`, () => {
        expect(readings({ hwClass: 'DISCRETE_GPU', gpuName, vramGb: 16 })).to.deep.equal([lower, upper]);
      });
    }

    it('never lets the VRAM share the driver reports choose a chip bin', () => {
      // A 128 GB M3 Max (400 GB/s) may report 96 GB of VRAM, a size the 300 GB/s bin sells.
      expect(readings({ hwClass: 'DISCRETE_GPU', gpuName: 'Apple M3 Max', vramGb: 96 })).to.deep.equal([300, 400]);
    });
  });

  describe('CPU names, and CPU-only runs on unified chips', () => {
    const rows: Row[] = [
      ['Apple M2 Max', 'Apple M2 Max', 400, 400],
      ['Mac Studio M2 Ultra', 'Apple M2 Ultra', 800, 800],
      ['AMD Ryzen AI Max+ 395 w/ Radeon 8060S', 'AMD Ryzen AI Max+ 395', 256, 256],
      ['AMD Ryzen AI 9 HX 370 w/ Radeon 890M', 'AMD Ryzen AI 9 HX 370', 120, 120],
      ['AMD Ryzen 7 8700G w/ Radeon 780M Graphics', 'AMD Ryzen 7 8700G', 83.2, 83.2],
      ['Intel(R) Core(TM) Ultra 7 258V', 'Intel Core Ultra 7 258V', 136.5, 136.5],
      ['Intel(R) N100', 'Intel Processor N100', 38.4, 38.4],
      ['Intel N150', 'Intel Processor N150', 38.4, 38.4],
      ['Intel(R) Core(TM) i3-N305', 'Intel Core i3-N305', 38.4, 38.4],
      ['AMD EPYC 9755 128-Core Processor', 'AMD EPYC 9755', 576, 576],
      ['AMD EPYC 9124 16-Core Processor', 'AMD EPYC 9124', 460.8, 460.8],
      ['AMD EPYC 8534P 64-Core Processor', 'AMD EPYC 8534P', 230.4, 230.4],
      ['AMD EPYC 7543 32-Core Processor', 'AMD EPYC 7543', 204.8, 204.8],
      ['AMD Ryzen Threadripper PRO 7985WX 64-Cores', 'AMD Ryzen Threadripper PRO 7985WX', 332.8, 332.8],
      ['AMD Ryzen Threadripper 7960X 24-Cores', 'AMD Ryzen Threadripper 7960X', 166.4, 166.4],
      ['Threadripper PRO 9995WX', 'AMD Ryzen Threadripper PRO 9995WX', 409.6, 409.6],
      ['Intel(R) Xeon(R) Platinum 8592+', 'Intel Xeon Platinum 8592+', 358.4, 358.4],
      ['Intel(R) Xeon(R) Platinum 8480+', 'Intel Xeon Platinum 8480+', 307.2, 307.2],
      ['Intel(R) Xeon(R) 6980P', 'Intel Xeon 6980P', 614.4, 614.4],
      ['Intel(R) Xeon(R) w7-3465X', 'Intel Xeon w7-3465X', 307.2, 307.2],
      ['AWS Graviton3', 'AWS Graviton3', 307.2, 307.2],
      ['Graviton4', 'AWS Graviton4', 537.6, 537.6],
      ['NVIDIA Grace', 'NVIDIA Grace', 512, 512],
      ['Ampere Altra Q64-22', 'Ampere Altra Q64-22', 204.8, 204.8],
      ['12th Gen Intel(R) Core(TM) i5-12400', 'Intel Core i5-12400', 76.8, 76.8],
      ['13th Gen Intel(R) Core(TM) i7-13700K', 'Intel Core i7-13700K', 89.6, 89.6],
      ['Intel(R) Core(TM) Ultra 7 265K', 'Intel Core Ultra 7 265K', 102.4, 102.4],
      ['AMD Ryzen 5 7600 6-Core Processor', 'AMD Ryzen 5 7600', 83.2, 83.2],
      ['AMD Ryzen 7 5700X 8-Core Processor', 'AMD Ryzen 7 5700X', 51.2, 51.2],
      ['Ryzen 9 9900X3D', 'AMD Ryzen 9 9900X3D', 89.6, 89.6],
      ['Ryzen 9 7950X DDR5-6000', 'AMD Ryzen 9 7950X', 83.2, 83.2],
      ['Ryzen-7950X', 'AMD Ryzen 9 7950X', 83.2, 83.2],
      ['AMD Ryzen Threadripper 3970X 32-Core Processor', 'AMD Ryzen Threadripper 3970X', 102.4, 102.4],
      ['Intel(R) Core(TM) i7-7820HQ CPU @ 2.90GHz', 'Intel Core i7-7820HQ', 38.4, 38.4],
      ['11th Gen Intel(R) Core(TM) i5-1135G7 @ 2.40GHz', 'Intel Core i5-1135G7', 68.272, 68.272],
      ['Pi 5', 'Raspberry Pi 5', 17.068, 17.068],
      ['Raspberry Pi 500+', 'Raspberry Pi 500+', 17.068, 17.068],
      ['Pi 400', 'Raspberry Pi 400', 12.8, 12.8],
    ];
    for (const [text, canonical, lower, upper] of rows) {
      it(`'${text}' is the ${canonical} (${lower} GB/s)`, () => {
        const found = findCpu(text) ?? findUnifiedChip('', text, '');
        expect(found?.spec.name).to.equal(canonical);
        expect(readings({ hwClass: 'CPU_ONLY', cpu: text })).to.deep.equal([lower, upper]);
      });
    }
  });

  describe('near misses', () => {
    it('never takes a neighbouring model', () => {
      expect(findGpu('RTX 4070')?.spec.name).to.equal('NVIDIA GeForce RTX 4070');
      expect(findGpu('RTX 4070 Ti')?.spec.name).to.equal('NVIDIA GeForce RTX 4070 Ti');
      expect(findGpu('4070 Ti SUPER 16GB GDDR6X')?.spec.name).to.equal('NVIDIA GeForce RTX 4070 Ti SUPER');
      // A model the catalogue does not list is read from its family's numbering, never as its neighbour.
      expect(findCpu('Ryzen 9 7950')?.spec.name).to.equal('AMD Ryzen 9 7950');
      expect(findCpu('Intel Core i5-12490')?.spec.name).to.equal('Intel Core i5-12490');
      expect(findCpu('Threadripper 7950')).to.equal(null);
      // N100's number alone names nothing.
      expect(findCpu('100')).to.equal(null);
    });

    it('drops words before a name but never after it, nor across a separator', () => {
      // A letter after a model number makes another product ('RX 7600S', 'Ryzen 7 5800HX' are not the 7600 / 5800X).
      expect(findGpu('RX 7600S')).to.equal(null);
      expect(findCpu('Ryzen 7 5800HX')?.spec.name).to.equal('AMD Ryzen 7 5800HX');
      // A name without a three-digit model number is never found inside a longer one.
      expect(findCpu('Orange Pi 5')?.spec.name).to.equal('Rockchip RK3588');
      expect(findCpu('Banana Pi 5')).to.equal(null);
      expect(readings({ hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 7 8700G w/ Radeon 780M Graphics' })).to.deep.equal([83.2, 83.2]);
    });

    it('never reads a laptop GPU as the desktop card, nor a laptop card that does not exist as one that does', () => {
      for (const name of ['RTX 4090 Laptop GPU', 'RTX 4090 Max-Q', 'GeForce RTX 4090 Mobile', 'RTX 4090M']) {
        expect(findGpu(name)?.spec.name, name).to.equal('NVIDIA GeForce RTX 4090 Laptop GPU');
      }
      expect(findGpu('RTX 3090 Laptop GPU')).to.equal(null);
      // No part of the name may stand for the desktop card either.
      expect(findGpu('NVIDIA GeForce RTX 3090 with Max-Q Design')).to.equal(null);
      expect(findGpu('NVIDIA GeForce RTX 2070 with Max-Q Design')?.spec.name).to.equal('NVIDIA GeForce RTX 2070 Laptop GPU');
      expect(findGpu('RTX A6000 Laptop GPU')).to.equal(null);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3090 Laptop GPU', vramGb: 16 })).to.equal(null);
      // 'Laptop' on a chip or CPU name changes nothing.
      expect(memoryBandwidthOf({ hwClass: 'CPU_ONLY', cpu: 'Ryzen AI 9 HX 370 laptop' })).to.equal(120);
      expect(memoryBandwidthOf({ hwClass: 'DISCRETE_GPU', gpuName: 'Radeon 780M (laptop)', vramGb: 8 })).to.equal(120);
    });

    it('tells the M3 Max and M4 Max bins apart by GPU cores, and keeps both when the name contradicts itself', () => {
      const m3 = (chipFamily: string, unifiedMemoryGb?: number) =>
        readings({ hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily, chipVariant: '', unifiedMemoryGb });
      expect(m3('M3 Max 30-core GPU')).to.deep.equal([300, 300]);
      expect(m3('M3 Max 40-core GPU')).to.deep.equal([400, 400]);
      expect(m3('M4 Max 32-core GPU')).to.deep.equal([410, 410]);
      expect(m3('M4 Max 40-core GPU')).to.deep.equal([546, 546]);
      expect(m3('M3 Max 40-core GPU', 36)).to.deep.equal([300, 400]);
      expect(m3('M3 Max 40-core GPU', 128)).to.deep.equal([400, 400]);
      // A core count no bin has decides nothing.
      expect(m3('M3 Max 35-core GPU')).to.deep.equal([300, 400]);
    });

    it('reads a GPU target or die as any card built on it: the slowest to name it, the fastest to bound a run', () => {
      for (const gpuName of ['gfx1100', 'AMD Radeon RX 7900 (RADV NAVI31)', 'AMD Radeon Graphics (RADV NAVI31)']) {
        expect(readings({ hwClass: 'DISCRETE_GPU', gpuName, vramGb: 16 }), gpuName).to.deep.equal([576, 960]);
      }
      expect(readings({ hwClass: 'DISCRETE_GPU', gpuName: 'AMD Radeon Graphics (RADV GFX1201)', vramGb: 16 })).to.deep.equal([432, 640]);
    });

    it('leaves names that several products with different bandwidths share unresolved', () => {
      for (const gpuName of [
        'NVIDIA GeForce RTX 3090, NVIDIA GeForce RTX 4090',
        'AMD Radeon Graphics',
        'Intel(R) Arc(TM) Graphics',
        'NVIDIA GeForce RTX',
      ]) {
        expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName, vramGb: 16 }), gpuName).to.equal(null);
      }
    });

    it('resolves nothing when the parts of a name contradict each other', () => {
      expect(findUnifiedChip('', 'Framework Desktop (Ryzen AI 9 HX 370)', '')).to.equal(null);
      expect(memoryBandwidthOf({ hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen AI Max+ 395 w/ Radeon 890M' })).to.equal(null);
    });

    it('lets the hardware class choose between a CPU and a GPU of the same number', () => {
      expect(memoryBandwidthOf({ hwClass: 'DISCRETE_GPU', gpuName: '7600', vramGb: 8 })).to.equal(288);
      expect(memoryBandwidthOf({ hwClass: 'CPU_ONLY', cpu: '7600' })).to.equal(83.2);
    });
  });

  describe('every catalogue name and alias finds its own entry', () => {
    it('for GPUs, chips and CPUs', () => {
      for (const gpu of gpus) {
        for (const text of [gpu.name, ...(gpu.aliases ?? [])]) {
          // A bare name several cards share ('RTX 3060 Ti') finds the first of them.
          const found = findGpu(text)?.spec;
          expect(found, text).to.not.equal(undefined);
          if (found !== gpu) expect(findGpu(text)?.spec.name, text).to.equal('NVIDIA GeForce RTX 3060 Ti');
        }
      }
      for (const chip of unifiedChips) {
        expect(findUnifiedChip(chip.vendor, chip.family, chip.variant)?.spec, chip.name).to.equal(chip);
        for (const alias of chip.aliases ?? []) expect(findUnifiedChip('', alias, '')?.spec, alias).to.equal(chip);
      }
      for (const cpu of cpus) {
        for (const text of [cpu.name, ...(cpu.aliases ?? [])]) expect(findCpu(text)?.spec, text).to.equal(cpu);
      }
    });
  });
});

describe('multi-GPU: bandwidth adds up only over a tensor split', () => {
  const fourCards: HardwareForBandwidth = { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3090', gpuCount: 4, vramGb: 24 };
  const rows: [string, string, Record<string, unknown>, number, string?][] = [
    ['llama.cpp default of a build since January 2024 (layer split)', 'llama.cpp', {}, 936, 'b6120'],
    ['llama.cpp default, build printed by llama-server (layer split)', 'llama.cpp', {}, 936, 'version: 4589 (1a2b3c4)'],
    ['llama.cpp default of an older build (row split then)', 'llama.cpp', {}, 4 * 936, 'b1618'],
    ['llama.cpp default, build not stated (may be row split)', 'llama.cpp', {}, 4 * 936],
    ['llama.cpp -sm layer', 'llama.cpp', { splitMode: 'layer' }, 936],
    ['llama.cpp -sm row (a tensor split)', 'llama.cpp', { splitMode: 'row' }, 4 * 936],
    ['llama.cpp -sm none (one card)', 'llama.cpp', { splitMode: 'none' }, 936],
    ['an unknown split mode counts every card', 'llama.cpp', { splitMode: 'graph' }, 4 * 936],
    ['Ollama (layer split)', 'ollama', {}, 936],
    ['LM Studio (layer split)', 'lmstudio', {}, 936],
    ['vLLM tensor parallel 2', 'vllm', { tensorParallel: 2 }, 2 * 936],
    ['vLLM tensor parallel 8 on 4 cards', 'vllm', { tensorParallel: 8 }, 4 * 936],
    ['vLLM pipeline parallel 4', 'vllm', { pipelineParallel: 4 }, 936],
    ['vLLM tensor 2 x pipeline 2', 'vllm', { tensorParallel: 2, pipelineParallel: 2 }, 2 * 936],
    ['vLLM tensor parallel 1', 'vllm', { tensorParallel: 1 }, 936],
    ['vLLM, split not stated (could be tensor parallel)', 'vllm', {}, 4 * 936],
    ['SGLang, split not stated', 'sglang', {}, 4 * 936],
    ['TGI, split not stated (shards by default)', 'tgi', {}, 4 * 936],
    ['ExLlamaV2, split not stated (has a tensor-parallel mode)', 'exllamav2', {}, 4 * 936],
  ];
  for (const [label, engineName, engineFlags, expected, engineVersion] of rows) {
    it(`${label}: ${expected} GB/s`, () => {
      expect(memoryBandwidthUpperBoundOf(fourCards, { engineName, engineVersion, engineFlags })).to.equal(expected);
    });
  }

  it('takes the fastest cards of a mixed set, and one card is one card whatever the engine says', () => {
    const mixed: HardwareForBandwidth = {
      hwClass: 'DISCRETE_GPU',
      gpuName: 'Multi-GPU',
      isHeterogeneousGpu: true,
      gpus: [
        { gpuName: 'RTX 3090', count: 2, vramGb: 24 },
        { gpuName: 'RTX 4090', count: 1, vramGb: 24 },
      ],
    };
    expect(memoryBandwidthUpperBoundOf(mixed, { engineName: 'llama.cpp', engineFlags: { splitMode: 'layer' } })).to.equal(1008);
    expect(memoryBandwidthUpperBoundOf(mixed, { engineName: 'vllm', engineFlags: { tensorParallel: 2 } })).to.equal(1008 + 936);
    const one: HardwareForBandwidth = { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 };
    expect(memoryBandwidthUpperBoundOf(one, { engineName: 'vllm', engineFlags: { tensorParallel: 4 } })).to.equal(1008);
    expect(cardsStreamingAtOnce({ engineName: 'llama.cpp', engineFlags: { splitMode: 'row' } }, 1)).to.equal(1);
  });

  it('reads a card count written into the name', () => {
    const named: HardwareForBandwidth = { hwClass: 'DISCRETE_GPU', gpuName: '2x RTX 3090', gpuCount: 1, vramGb: 24 };
    expect(memoryBandwidthUpperBoundOf(named, { engineName: 'vllm' })).to.equal(2 * 936);
    expect(memoryBandwidthUpperBoundOf(named, { engineName: 'ollama' })).to.equal(936);
    expect(memoryBandwidthOf(named)).to.equal(936);
    // Written with '*' or glued to the name (arc53/llm-price-compass#6, vllm-project/vllm#12717).
    expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: '2 * A10G (24GB)' }, { engineName: 'vllm' })).to.equal(2 * 600);
    expect(memoryBandwidthOf({ hwClass: 'DISCRETE_GPU', gpuName: '2xGH200' })).to.not.equal(null);
  });

  it('counts every card when the caller gives no engine', () => {
    expect(memoryBandwidthUpperBoundOf(fourCards)).to.equal(4 * 936);
  });

  it('holds a llama.cpp layer split to one card in the verdict, and a vLLM tensor split to their sum', () => {
    // Llama-3.1-8B at Q4_K_M on two 4090s: one card bounds it near 210 tok/s, two near 420.
    const run = (engineName: string, engineFlags: Record<string, unknown> | null) =>
      runVerdict({
        tokSOut: 300,
        batchSize: 1,
        quantization: 'Q4_K_M',
        engineName,
        engineVersion: engineName === 'llama.cpp' ? 'b6120' : null,
        engineFlags,
        model: { params: 8.03, active_params: null, is_moe: false },
        hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: 2, vramGb: 24 },
      });
    const layer = run('llama.cpp', null);
    const tensor = run('vllm', { tensorParallel: 2 });
    expect(tensor.boundTokS).to.be.closeTo(2 * (layer.boundTokS ?? 0), 1);
    expect(layer.plausibility).to.equal('suspect');
    expect(tensor.plausibility).to.equal('plausible');
  });
});
