import { expect } from 'chai';
import { cpus, gpus, sharedNames, unifiedChips } from '../../src/data/hardware-catalogue.ts';
import {
  compareHardwareNames,
  findCpu,
  findGpu,
  findUnifiedChip,
  hardwareNames,
  isCanonicalComponentName,
  memoryBandwidthOf,
  memoryBandwidthUpperBoundOf,
  normaliseHardwareName,
} from '../../src/lib/hardware-lookup.ts';

const allEntries: { kind: string; name: string; aliases?: string[] }[] = [
  ...gpus.map((spec) => ({ kind: 'gpu', ...spec })),
  ...unifiedChips.map((spec) => ({ kind: 'chip', ...spec })),
  ...cpus.map((spec) => ({ kind: 'cpu', ...spec })),
];

function sortedUnique(values: number[]): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}

describe('hardware catalogue', () => {
  describe('data sanity', () => {
    it('has entries in every category', () => {
      expect(gpus.length).to.be.greaterThan(80);
      expect(unifiedChips.length).to.be.greaterThan(20);
      expect(cpus.length).to.be.greaterThan(25);
    });

    it('has no duplicate canonical names, even ignoring case', () => {
      const seen = new Set<string>();
      for (const entry of allEntries) {
        const key = entry.name.toLowerCase();
        expect(seen.has(key), `duplicate name ${entry.name}`).to.equal(false);
        seen.add(key);
      }
    });

    it('normalises every name and alias to a distinct, non-empty key across the catalogue', () => {
      const owners = new Map<string, string>();
      for (const entry of allEntries) {
        for (const text of [entry.name, ...(entry.aliases ?? [])]) {
          const key = normaliseHardwareName(text);
          expect(key, `${text} normalises to nothing`).to.not.equal('');
          const owner = owners.get(key);
          expect(owner, `${text} (${entry.name}) collides with ${owner} as '${key}'`).to.equal(undefined);
          owners.set(key, entry.name);
        }
      }
    });

    it('keeps names trimmed and single-spaced', () => {
      for (const entry of allEntries) {
        expect(entry.name).to.equal(entry.name.trim().replace(/\s+/g, ' '));
        for (const alias of entry.aliases ?? []) expect(alias).to.equal(alias.trim().replace(/\s+/g, ' '));
      }
    });

    it('has plausible GPU memory and bandwidth, with variants matching the sizes sold', () => {
      for (const gpu of gpus) {
        expect(gpu.bandwidthGBs, gpu.name).to.be.greaterThan(0).and.lessThan(10_000);
        expect(gpu.vramGb.length, gpu.name).to.be.greaterThan(0);
        for (const size of gpu.vramGb) expect(size, gpu.name).to.be.greaterThan(0);
        expect(gpu.vramGb, gpu.name).to.deep.equal(sortedUnique(gpu.vramGb));
        expect(gpu.name.startsWith(gpu.vendor === 'NVIDIA' ? 'NVIDIA ' : `${gpu.vendor} `), gpu.name).to.equal(true);
        if (gpu.variants) {
          expect(
            gpu.variants.map((v) => v.vramGb),
            gpu.name,
          ).to.deep.equal(gpu.vramGb);
          for (const v of gpu.variants) expect(v.bandwidthGBs, gpu.name).to.be.greaterThan(0).and.lessThan(10_000);
          const largest = gpu.variants[gpu.variants.length - 1];
          expect(gpu.bandwidthGBs, `${gpu.name} lists the largest configuration`).to.equal(largest?.bandwidthGBs);
          expect(new Set(gpu.variants.map((v) => v.bandwidthGBs)).size, `${gpu.name} variants differ`).to.be.greaterThan(1);
        }
      }
    });

    it('has plausible unified chips whose fields spell the name', () => {
      for (const chip of unifiedChips) {
        expect(chip.bandwidthGBs, chip.name).to.be.greaterThan(0).and.lessThan(10_000);
        expect(chip.memoryGb.length, chip.name).to.be.greaterThan(0);
        for (const size of chip.memoryGb) expect(size, chip.name).to.be.greaterThan(0);
        expect(chip.memoryGb, chip.name).to.deep.equal(sortedUnique(chip.memoryGb));
        const spelled = chip.variant === 'Base' ? `${chip.vendor} ${chip.family}` : `${chip.vendor} ${chip.family} ${chip.variant}`;
        expect(spelled).to.equal(chip.name);
        if (chip.variants) {
          const sizes = chip.variants.flatMap((v) => v.memoryGb);
          expect(sizes.length, `${chip.name}: a size is sold on one bin only`).to.equal(new Set(sizes).size);
          expect(sortedUnique(sizes), chip.name).to.deep.equal(chip.memoryGb);
          expect(chip.bandwidthGBs, chip.name).to.equal(Math.max(...chip.variants.map((v) => v.bandwidthGBs)));
          for (const v of chip.variants) expect(v.bandwidthGBs, chip.name).to.be.greaterThan(0).and.lessThan(10_000);
        }
      }
    });

    it('computes each CPU bandwidth from channels x MT/s x 8 bytes (soldered LPDDR: the vendor figure)', () => {
      for (const cpu of cpus) {
        if (/^LPDDR\d+X?$/.test(cpu.memoryType)) {
          expect(cpu.memoryChannels, cpu.name).to.equal(0);
          expect(cpu.bandwidthGBs, cpu.name).to.be.greaterThan(0).and.lessThan(10_000);
          continue;
        }
        const match = /^(?:LP)?DDR\dX?-(\d+)$/.exec(cpu.memoryType);
        expect(match, `${cpu.name} memory type ${cpu.memoryType}`).to.not.equal(null);
        const transfers = Number(match?.[1]);
        expect(cpu.bandwidthGBs, cpu.name).to.be.closeTo((cpu.memoryChannels * transfers * 8) / 1000, 1e-9);
        expect(cpu.bandwidthGBs, cpu.name).to.be.greaterThan(0).and.lessThan(10_000);
      }
    });

    it('has shared names whose members are catalogued and whose spelling names no other product', () => {
      const byName = new Map(allEntries.map((entry) => [entry.name, entry]));
      const owners = new Map<string, string>();
      for (const entry of allEntries) {
        for (const text of [entry.name, ...(entry.aliases ?? [])]) owners.set(normaliseHardwareName(text), entry.name);
      }
      const sharedKeys = new Set<string>();
      for (const shared of sharedNames) {
        expect(shared.members.length, shared.name).to.be.greaterThan(0);
        expect(new Set(shared.members).size, shared.name).to.equal(shared.members.length);
        for (const member of shared.members) expect(byName.has(member), `${shared.name}: ${member}`).to.equal(true);
        const key = normaliseHardwareName(shared.name);
        expect(sharedKeys.has(key), `duplicate shared name ${shared.name}`).to.equal(false);
        sharedKeys.add(key);
        const owner = owners.get(key);
        if (owner !== undefined) expect(shared.members, `${shared.name} is ${owner}'s name`).to.include(owner);
      }
    });
  });

  describe('known values', () => {
    it('has vendor figures for well-known parts', () => {
      expect(findGpu('NVIDIA GeForce RTX 4090')).to.deep.include({ bandwidthGBs: 1008 });
      expect(findGpu('RTX 4090')?.spec.vramGb).to.deep.equal([24]);
      expect(findGpu('RTX 3090')?.bandwidthGBs).to.equal(936);
      expect(findGpu('H100 SXM')?.bandwidthGBs).to.equal(3350);
      expect(findUnifiedChip('Apple', 'M4', 'Max', 128)?.bandwidthGBs).to.equal(546);
      expect(findUnifiedChip('Apple', 'M4', 'Max', 36)?.bandwidthGBs).to.equal(410);
      expect(findUnifiedChip('Apple', 'M2', 'Ultra', 192)?.bandwidthGBs).to.equal(800);
      expect(findUnifiedChip('AMD', 'Ryzen AI Max+', '395', 128)?.bandwidthGBs).to.equal(256);
      expect(findCpu('AMD EPYC 9654')?.bandwidthGBs).to.equal(460.8);
      expect(findCpu('AMD Ryzen 9 7950X')?.bandwidthGBs).to.equal(83.2);
    });
  });

  describe('normaliseHardwareName', () => {
    it('drops vendor words, trademarks, punctuation and extra spaces', () => {
      expect(normaliseHardwareName('  NVIDIA  GeForce RTX 4090 ')).to.equal('rtx 4090');
      expect(normaliseHardwareName('rtx4090')).to.equal(normaliseHardwareName('RTX 4090'));
      expect(normaliseHardwareName('Intel(R) Core(TM) i9-13900K')).to.equal(normaliseHardwareName('Core i9 13900K'));
      expect(normaliseHardwareName('AMD Radeon RX 7900 XTX')).to.equal('rx 7900 xtx');
      expect(normaliseHardwareName('Intel Arc A770')).to.equal(normaliseHardwareName('a770'));
      expect(normaliseHardwareName('Apple M4 Max')).to.equal(normaliseHardwareName('m4 max'));
    });

    it('keeps "+" as a distinguishing word', () => {
      expect(normaliseHardwareName('Ryzen AI Max+ 395')).to.not.equal(normaliseHardwareName('Ryzen AI Max 395'));
    });
  });

  describe('findGpu', () => {
    it('finds the RTX 4090 however it is written', () => {
      for (const name of ['RTX 4090', 'NVIDIA GeForce RTX 4090', 'geforce rtx4090', '4090', 'rtx 4090 24GB']) {
        expect(findGpu(name)?.spec.name, name).to.equal('NVIDIA GeForce RTX 4090');
      }
    });

    it('never confuses a model with its Ti / SUPER sibling', () => {
      expect(findGpu('4070')?.spec.name).to.equal('NVIDIA GeForce RTX 4070');
      expect(findGpu('RTX 4070 Ti')?.spec.name).to.equal('NVIDIA GeForce RTX 4070 Ti');
      expect(findGpu('rtx 4070 super')?.spec.name).to.equal('NVIDIA GeForce RTX 4070 SUPER');
      expect(findGpu('3090')?.spec.name).to.equal('NVIDIA GeForce RTX 3090');
      expect(findGpu('3090 Ti')?.spec.name).to.equal('NVIDIA GeForce RTX 3090 Ti');
      expect(findGpu('3090 Ti')?.bandwidthGBs).to.equal(1008);
      expect(findGpu('RX 7900 XT')?.spec.name).to.equal('AMD Radeon RX 7900 XT');
      expect(findGpu('7900 XTX')?.spec.name).to.equal('AMD Radeon RX 7900 XTX');
    });

    it('returns null for unknown or near-miss names', () => {
      expect(findGpu('RTX 9999')).to.equal(null);
      expect(findGpu('RTX 4090 Laptop GPU')?.spec.name).to.equal('NVIDIA GeForce RTX 4090 Laptop GPU');
      expect(findGpu('RTX 4090 Ti')).to.equal(null);
      expect(findGpu('')).to.equal(null);
      expect(findGpu('NVIDIA')).to.equal(null);
    });

    it('picks the bandwidth of the memory variant', () => {
      expect(findGpu('A100', 40)?.bandwidthGBs).to.equal(1555);
      expect(findGpu('A100', 80)?.bandwidthGBs).to.equal(1935);
      expect(findGpu('NVIDIA A100 SXM', 80)?.bandwidthGBs).to.equal(2039);
      expect(findGpu('NVIDIA A100-SXM4-80GB')).to.deep.include({ bandwidthGBs: 2039 });
      expect(findGpu('NVIDIA A100-PCIE-40GB')).to.deep.include({ bandwidthGBs: 1555 });
      expect(findGpu('RTX 3060', 12)?.bandwidthGBs).to.equal(360);
      expect(findGpu('RTX 3060', 8)?.bandwidthGBs).to.equal(240);
      expect(findGpu('RTX 3060 12GB')?.bandwidthGBs).to.equal(360);
      expect(findGpu('Arc A770', 16)?.bandwidthGBs).to.equal(560);
    });

    it('tolerates reported memory sizes and takes the lower bandwidth when unsure', () => {
      expect(findGpu('A100', 79.3)?.bandwidthGBs).to.equal(1935);
      expect(findGpu('A100')?.bandwidthGBs).to.equal(1555);
      expect(findGpu('RTX 3080', 11)?.bandwidthGBs).to.equal(760);
      expect(findGpu('RTX 4090', 23.99)?.bandwidthGBs).to.equal(1008);
    });

    it('understands nvidia-smi names', () => {
      expect(findGpu('NVIDIA H100 80GB HBM3')?.spec.name).to.equal('NVIDIA H100 SXM');
      expect(findGpu('Tesla V100-SXM2-16GB')?.spec.name).to.equal('NVIDIA Tesla V100');
      expect(findGpu('Tesla T4')?.spec.name).to.equal('NVIDIA Tesla T4');
      expect(findGpu('NVIDIA RTX 6000 Ada Generation')?.bandwidthGBs).to.equal(960);
      expect(findGpu('NVIDIA RTX A6000')?.bandwidthGBs).to.equal(768);
    });
  });

  describe('findUnifiedChip', () => {
    it('picks the M3 Max bin from the memory size', () => {
      expect(findUnifiedChip('Apple', 'M3', 'Max', 36)?.bandwidthGBs).to.equal(300);
      expect(findUnifiedChip('Apple', 'M3', 'Max', 96)?.bandwidthGBs).to.equal(300);
      expect(findUnifiedChip('Apple', 'M3', 'Max', 48)?.bandwidthGBs).to.equal(400);
      expect(findUnifiedChip('Apple', 'M3', 'Max', 128)?.bandwidthGBs).to.equal(400);
    });

    it('takes the lower bin when the memory size does not decide', () => {
      expect(findUnifiedChip('Apple', 'M3', 'Max')?.bandwidthGBs).to.equal(300);
      expect(findUnifiedChip('Apple', 'M4', 'Max', 72)?.bandwidthGBs).to.equal(410);
    });

    it('matches base chips with "Base" or an empty variant, case-insensitively', () => {
      expect(findUnifiedChip('Apple', 'M4', 'Base')?.spec.name).to.equal('Apple M4');
      expect(findUnifiedChip('apple', 'm4', '')?.spec.name).to.equal('Apple M4');
      expect(findUnifiedChip('APPLE', 'M1', 'base', 16)?.bandwidthGBs).to.equal(68.25);
      expect(findUnifiedChip('Apple', 'M4', 'Pro')?.bandwidthGBs).to.equal(273);
    });

    it('accepts other splits of the name', () => {
      expect(findUnifiedChip('Apple', 'M4 Max', '', 64)?.spec.name).to.equal('Apple M4 Max');
      expect(findUnifiedChip('AMD', 'Ryzen AI Max', '+ 395')?.spec.name).to.equal('AMD Ryzen AI Max+ 395');
      expect(findUnifiedChip('AMD', 'Ryzen AI Max', '390')?.spec.name).to.equal('AMD Ryzen AI Max 390');
      expect(findUnifiedChip('NVIDIA', 'DGX Spark', '')?.bandwidthGBs).to.equal(273);
      expect(findUnifiedChip('NVIDIA', 'Jetson AGX Orin', '64GB')?.bandwidthGBs).to.equal(204.8);
      expect(findUnifiedChip('NVIDIA', 'Jetson Orin Nano', 'Super', 8)?.bandwidthGBs).to.equal(102);
    });

    it('returns null for unknown chips', () => {
      expect(findUnifiedChip('Apple', 'M9', 'Max')).to.equal(null);
      expect(findUnifiedChip('Apple', 'M4', 'Mega')).to.equal(null);
      expect(findUnifiedChip('', '', '')).to.equal(null);
    });
  });

  describe('findCpu', () => {
    it('matches with and without the vendor prefix', () => {
      expect(findCpu('AMD Ryzen 9 7950X')?.spec.name).to.equal('AMD Ryzen 9 7950X');
      expect(findCpu('Ryzen 9 7950X')?.spec.name).to.equal('AMD Ryzen 9 7950X');
      expect(findCpu('7950X')?.spec.name).to.equal('AMD Ryzen 9 7950X');
      expect(findCpu('EPYC 9654')?.bandwidthGBs).to.equal(460.8);
      expect(findCpu('i9-13900K')?.spec.name).to.equal('Intel Core i9-13900K');
      expect(findCpu('Xeon Platinum 8480+')?.bandwidthGBs).to.equal(307.2);
    });

    it('matches names as operating systems report them', () => {
      expect(findCpu('AMD Ryzen 9 7950X 16-Core Processor')?.spec.name).to.equal('AMD Ryzen 9 7950X');
      expect(findCpu('13th Gen Intel(R) Core(TM) i9-13900K')?.spec.name).to.equal('Intel Core i9-13900K');
      expect(findCpu('AMD EPYC 7763 64-Core Processor')?.bandwidthGBs).to.equal(204.8);
      expect(findCpu('Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz')?.spec.name).to.equal('Intel Xeon Platinum 8380');
    });

    it('never confuses neighbouring models and returns null for unknown CPUs', () => {
      expect(findCpu('7950X3D')?.spec.name).to.equal('AMD Ryzen 9 7950X3D');
      // A model the catalogue does not list is read from its family's numbering, never as its neighbour.
      expect(findCpu('Ryzen 9 7950')?.spec.name).to.equal('AMD Ryzen 9 7950');
      expect(findCpu('Intel Core i5-12490')?.spec.name).to.equal('Intel Core i5-12490');
      expect(findCpu('Threadripper 7950')).to.equal(null);
    });
  });

  describe('memoryBandwidthOf', () => {
    it('gives one card for a discrete GPU, whatever the card count', () => {
      expect(memoryBandwidthOf({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 })).to.equal(1008);
      expect(
        memoryBandwidthOf({
          hwClass: 'DISCRETE_GPU',
          gpuName: 'RTX 3090',
          vramGb: 24,
          gpus: [{ gpuName: 'RTX 3090', count: 4, vramGb: 24 }],
        }),
      ).to.equal(936);
      expect(memoryBandwidthOf({ hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA A100 SXM', vramGb: 40 })).to.equal(1555);
    });

    it('gives the slowest card of a heterogeneous set, or null when a card is unknown', () => {
      const mixed = {
        hwClass: 'DISCRETE_GPU',
        gpuName: 'Multi-GPU',
        vramGb: 48,
        isHeterogeneousGpu: true,
        gpus: [
          { gpuName: 'RTX 4090', count: 1, vramGb: 24 },
          { gpuName: 'RTX 3090', count: 1, vramGb: 24 },
        ],
      };
      expect(memoryBandwidthOf(mixed)).to.equal(936);
      expect(memoryBandwidthOf({ ...mixed, gpus: [...mixed.gpus, { gpuName: 'Mystery Card', count: 1, vramGb: 8 }] })).to.equal(null);
      expect(memoryBandwidthOf({ hwClass: 'DISCRETE_GPU', gpuName: 'Multi-GPU', vramGb: 48, isHeterogeneousGpu: true })).to.equal(null);
    });

    it('gives the chip for unified memory and the socket for CPU-only', () => {
      expect(
        memoryBandwidthOf({ hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max', unifiedMemoryGb: 36 }),
      ).to.equal(300);
      expect(
        memoryBandwidthOf({ hwClass: 'UNIFIED', chipVendor: 'AMD', chipFamily: 'Ryzen AI Max+', chipVariant: '395', unifiedMemoryGb: 128 }),
      ).to.equal(256);
      expect(memoryBandwidthOf({ hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654' })).to.equal(460.8);
    });

    it('returns null for unknown hardware', () => {
      expect(memoryBandwidthOf({ hwClass: 'DISCRETE_GPU', gpuName: 'Voodoo 5', vramGb: 0.064 })).to.equal(null);
      expect(memoryBandwidthOf({ hwClass: 'DISCRETE_GPU' })).to.equal(null);
      expect(
        memoryBandwidthOf({ hwClass: 'UNIFIED', chipVendor: 'Acme', chipFamily: 'X1', chipVariant: 'Base', unifiedMemoryGb: 8 }),
      ).to.equal(null);
      expect(memoryBandwidthOf({ hwClass: 'UNIFIED' })).to.equal(null);
      expect(memoryBandwidthOf({ hwClass: 'CPU_ONLY', cpu: 'Pentium 4' })).to.equal(null);
      expect(memoryBandwidthOf({ hwClass: 'QUANTUM' })).to.equal(null);
    });
  });

  describe('memoryBandwidthUpperBoundOf (roofline input, errs high)', () => {
    it('sums every card when the caller does not say how the model was split', () => {
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', gpuCount: 2, vramGb: 24 })).to.equal(2016);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 })).to.equal(1008);
      expect(
        memoryBandwidthUpperBoundOf({
          hwClass: 'DISCRETE_GPU',
          gpuName: 'Multi-GPU',
          isHeterogeneousGpu: true,
          gpus: [
            { gpuName: 'RTX 4090', count: 1, vramGb: 24 },
            { gpuName: 'RTX 3090', count: 2, vramGb: 24 },
          ],
        }),
      ).to.equal(1008 + 2 * 936);
    });

    it('takes the higher reading of every ambiguity', () => {
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'A100', vramGb: 80 })).to.equal(2039);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'A100', vramGb: 40 })).to.equal(1555);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA A100 PCIe', vramGb: 80 })).to.equal(1935);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA H100 80GB' })).to.equal(3350);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3060 Ti', vramGb: 8 })).to.equal(608);
      expect(memoryBandwidthOf({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3060 Ti', vramGb: 8 })).to.equal(448);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3080' })).to.equal(912);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max' })).to.equal(400);
      expect(
        memoryBandwidthUpperBoundOf({ hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max', unifiedMemoryGb: 36 }),
      ).to.equal(300);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'CPU_ONLY', cpu: 'EPYC 9654' })).to.equal(460.8);
    });

    it('is never below the lower reading and null when anything is unknown', () => {
      for (const gpu of gpus) {
        for (const vramGb of gpu.vramGb) {
          const hw = { hwClass: 'DISCRETE_GPU', gpuName: gpu.name, vramGb };
          expect(memoryBandwidthUpperBoundOf(hw), gpu.name).to.be.at.least(memoryBandwidthOf(hw) ?? Infinity);
        }
      }
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'Multi-GPU', isHeterogeneousGpu: true })).to.equal(null);
      expect(
        memoryBandwidthUpperBoundOf({
          hwClass: 'DISCRETE_GPU',
          gpus: [
            { gpuName: 'RTX 4090', count: 1, vramGb: 24 },
            { gpuName: 'Mystery', count: 1, vramGb: 8 },
          ],
        }),
      ).to.equal(null);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'UNIFIED', chipVendor: 'Acme', chipFamily: 'X1', chipVariant: '' })).to.equal(null);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'CPU_ONLY', cpu: 'Pentium 4' })).to.equal(null);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'OTHER' })).to.equal(null);
    });
  });

  describe('hardwareNames and isCanonicalComponentName', () => {
    it('lists every canonical name, sorted, in each category', () => {
      const names = hardwareNames();
      expect(names.gpus).to.have.lengthOf(gpus.length);
      expect(names.unifiedChips).to.have.lengthOf(unifiedChips.length);
      expect(names.cpus).to.have.lengthOf(cpus.length);
      for (const list of [names.gpus, names.unifiedChips, names.cpus]) {
        expect(list.length).to.be.greaterThan(0);
        for (let i = 1; i < list.length; i += 1) {
          expect(compareHardwareNames(list[i - 1] ?? '', list[i] ?? ''), `${list[i - 1]} before ${list[i]}`).to.be.lessThan(0);
        }
      }
      expect(names.gpus).to.include('NVIDIA GeForce RTX 4090');
      expect(names.unifiedChips).to.include('Apple M4 Max');
      expect(names.cpus).to.include('AMD EPYC 9654');
      expect(compareHardwareNames('Apple M2', 'Apple M10')).to.be.lessThan(0);
    });

    it('returns copies that callers may change', () => {
      hardwareNames().gpus.length = 0;
      expect(hardwareNames().gpus.length).to.equal(gpus.length);
    });

    it('accepts canonical names only, case-insensitively and trimmed', () => {
      expect(isCanonicalComponentName('NVIDIA GeForce RTX 4090')).to.equal(true);
      expect(isCanonicalComponentName('  nvidia geforce rtx 4090 ')).to.equal(true);
      expect(isCanonicalComponentName('Apple M4 Max')).to.equal(true);
      expect(isCanonicalComponentName('AMD Ryzen 9 7950X')).to.equal(true);
      expect(isCanonicalComponentName('RTX 4090')).to.equal(false);
      expect(isCanonicalComponentName('4090')).to.equal(false);
      expect(isCanonicalComponentName('')).to.equal(false);
    });
  });
});
