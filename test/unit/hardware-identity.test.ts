/**
 * Hardware identity (issue 33, DECISIONS.md "Hardware identity"): names as people and tools
 * write them, the multi-card vramGb total, OS families and the last-level cache rule.
 */
import { expect } from 'chai';
import { deviceOf } from '../../src/lib/hardware-devices.ts';
import { findCpu, findGpu, findUnifiedChip, isVramTotalOfCards, memoryBandwidthUpperBoundOf } from '../../src/lib/hardware-lookup.ts';
import { normaliseHardware, submittedHardware } from '../../src/runs/submission/normalise.ts';
import { memoryGb, osFamily } from '../../src/runs/submission/run-facts.ts';
import { runVerdict } from '../../src/runs/submission/verdict.ts';
import { realRuns } from '../fixtures/real-runs/runs.ts';

/** Names from the issue's sample of 1,154 published runs (LocalScore results, llama.cpp scoreboards) that no device matched before. */
const ISSUE_SPELLINGS: [kind: 'gpu' | 'cpu' | 'chip', text: string, device: string][] = [
  ['chip', 'Apple M1 Pro 8P+2E+16GPU', 'Apple M1 Pro'],
  ['chip', 'Apple M4 Max 12P+4E+40GPU', 'Apple M4 Max'],
  ['cpu', 'AMD Ryzen 9 5950X 16-Core Processor (znver3)', 'AMD Ryzen 9 5950X'],
  ['cpu', '11th Gen Intel Core i7-1185G7 @ 3.00GHz (tigerlake)', 'Intel Core i7-1185G7'],
  ['gpu', 'Tesla V100-PCIE-16GB', 'NVIDIA Tesla V100'],
  ['gpu', 'NVIDIA RTX A5000', 'NVIDIA RTX A5000'],
  ['gpu', 'AMD Radeon RX 6650 XT', 'AMD Radeon RX 6650 XT'],
  ['gpu', 'NVIDIA GeForce GTX 1070 Ti', 'NVIDIA GeForce GTX 1070 Ti'],
  ['cpu', 'Raspberry Pi 5 Model B Rev 1.0', 'Raspberry Pi 5'],
  ['gpu', 'RTX 4090 24G', 'NVIDIA GeForce RTX 4090'],
  ['gpu', 'AMD Radeon RX 580 Series', 'AMD Radeon RX 580'],
  ['gpu', 'NVIDIA GeForce RTX 2070 with Max-Q Design', 'NVIDIA GeForce RTX 2070 Laptop GPU'],
  ['chip', 'Dell Pro Max with GB10', 'NVIDIA GB10'],
  ['cpu', 'AmpereOne A192-32X', 'AmpereOne A192-32X'],
  // The slowest card built on the die names it; the bound takes the fastest (see below).
  ['gpu', 'AMD Radeon Graphics (RADV GFX1201)', 'AMD Radeon RX 9070 GRE'],
  ['gpu', 'gfx1100', 'AMD Radeon RX 7900 GRE'],
  // Held out (not used while the resolver was written), as llama.cpp's backends print them:
  // ggml-org/llama.cpp#2059, #15410, #13324, #18764 and geerlingguy/ai-benchmarks#20, #23.
  ['gpu', 'AMD RX 6800 XT', 'AMD Radeon RX 6800 XT'],
  ['gpu', 'AMD Radeon RX 580 Series (RADV POLARIS10) (radv)', 'AMD Radeon RX 580'],
  ['gpu', 'NVIDIA GeForce RTX 4070 (NVIDIA)', 'NVIDIA GeForce RTX 4070'],
  ['gpu', 'NVIDIA GeForce RTX 2070 (NVIDIA)', 'NVIDIA GeForce RTX 2070'],
  ['gpu', 'AMD Radeon RX 7900 XT (RADV NAVI31) (radv)', 'AMD Radeon RX 7900 XT'],
  // Unknown there: a Pascal card the catalogue lacked (added since).
  ['gpu', 'NVIDIA GeForce GT 1030', 'NVIDIA GeForce GT 1030'],
];

function resolved(kind: 'gpu' | 'cpu' | 'chip', text: string): string | undefined {
  if (kind === 'gpu') return findGpu(text)?.spec.name;
  if (kind === 'cpu') return findCpu(text)?.spec.name;
  return findUnifiedChip('', text, '')?.spec.name;
}

describe('hardware identity', () => {
  describe('names as written', () => {
    for (const [kind, text, device] of ISSUE_SPELLINGS) {
      it(`'${text}' is the ${device}`, () => expect(resolved(kind, text)).to.equal(device));
    }

    it('reads a chip written as family and variant with a word repeated across them', () => {
      expect(findUnifiedChip('Apple', 'M1 Max 32-Core GPU', 'Max')?.spec.name).to.equal('Apple M1 Max');
      expect(findUnifiedChip('Apple', 'M4 Max', 'M4 Max')?.spec.name).to.equal('Apple M4 Max');
      expect(findUnifiedChip('Apple', 'Apple M3', 'Pro')?.spec.name).to.equal('Apple M3 Pro');
    });

    it('selects the bin the core counts name, however they are written', () => {
      expect(findUnifiedChip('Apple', 'M4 Max 10P+4E+32GPU', '')?.bandwidthGBs).to.equal(410);
      expect(findUnifiedChip('Apple', 'M4 Max 12P+4E+40GPU', '')?.bandwidthGBs).to.equal(546);
      expect(findUnifiedChip('Apple', 'M3 Max (16 CPU cores, 40 GPU cores)', '')?.bandwidthGBs).to.equal(400);
    });

    it('leaves cloud instance labels unknown on purpose, and never reads a machine name out of another', () => {
      for (const text of ['g5.xlarge', 'n2-standard-32', 'c7g.16xlarge', 'Standard_NC24ads_A100_v4']) {
        expect(findGpu(text), text).to.equal(null);
        expect(findCpu(text), text).to.equal(null);
      }
      expect(findCpu('Banana Pi M5')).to.equal(null);
      expect(findUnifiedChip('Apple', 'M4', 'Mega')).to.equal(null);
    });

    it('names an ambiguous name by its slowest product and bounds runs by its fastest', () => {
      expect(findGpu('NVIDIA RTX 6000')?.spec.name).to.equal('NVIDIA Quadro RTX 6000');
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA RTX 6000', vramGb: 1 })).to.equal(960);
      expect(memoryBandwidthUpperBoundOf({ hwClass: 'DISCRETE_GPU', gpuName: 'gfx1100', vramGb: 1 })).to.equal(960);
      expect(deviceOf({ hwClass: 'DISCRETE_GPU', gpuName: 'AMD Radeon Graphics (RADV GFX1100)' }).name).to.equal('AMD Radeon RX 7900 GRE');
    });

    it('finds a device for nearly every hardware spelling of the 221-run real set (each run cites its source)', () => {
      const spellings = new Map<string, string>();
      for (const run of realRuns) {
        const hw = run.hardware;
        if (hw.hwClass === 'DISCRETE_GPU') {
          for (const slot of 'gpus' in hw ? hw.gpus : [hw]) spellings.set(`gpu|${slot.gpuName}`, run.source.url);
        } else if (hw.hwClass === 'UNIFIED') spellings.set(`chip|${hw.chipVendor} ${hw.chipFamily} ${hw.chipVariant}`, run.source.url);
        else spellings.set(`cpu|${hw.cpu}`, run.source.url);
      }
      const unknown = [...spellings.keys()].filter((key) => {
        const [kind, text] = key.split('|') as ['gpu' | 'cpu' | 'chip', string];
        // A GPU or CPU name may be an integrated GPU's or a CPU's chip (the bandwidth path reads it so).
        return resolved(kind, text) === undefined && (kind === 'chip' || findUnifiedChip('', text, '') === undefined);
      });
      console.log(`      ${spellings.size - unknown.length}/${spellings.size} spellings found; unknown: ${unknown.join('; ')}`);
      expect(unknown.length / spellings.size).to.be.at.most(0.1);
    });
  });

  describe('a multi-card vramGb that is the total of the cards', () => {
    it('reads 2x RTX 4090 with vramGb 48 as 24 GB per card, says so, and keeps the tier at 48 GB', () => {
      const hardware = normaliseHardware({ hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: 2, vramGb: 48 });
      expect(hardware).to.deep.include({ vramGb: 24, totalVramGb: 48, gpuCount: 2, vramGbReadAsTotal: true });
      expect(memoryGb(hardware)).to.equal(48);
      // What was submitted is given back as submitted.
      expect(submittedHardware(hardware)).to.deep.equal({
        hwClass: 'DISCRETE_GPU',
        gpuName: 'NVIDIA GeForce RTX 4090',
        gpuCount: 2,
        vramGb: 48,
      });
    });

    it('keeps a per-card size as it is, and a value that is no multiple of a size sold', () => {
      expect(isVramTotalOfCards('RTX 3090', 2, 24)).to.equal(false);
      expect(isVramTotalOfCards('RTX 4060 Ti', 2, 16)).to.equal(false); // 16 GB is a size of the card itself
      expect(isVramTotalOfCards('RTX 3060', 2, 24)).to.equal(true); // 2 x 12 GB
      expect(isVramTotalOfCards('RTX 4090', 2, 40)).to.equal(false);
      expect(isVramTotalOfCards('RTX 4090', 1, 48)).to.equal(false);
      expect(isVramTotalOfCards('Unknown Card', 2, 48)).to.equal(false);
      const perCard = normaliseHardware({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 3090', gpuCount: 2, vramGb: 24 });
      expect(perCard).to.deep.include({ vramGb: 24, totalVramGb: 48 });
      expect(perCard).to.not.have.property('vramGbReadAsTotal');
    });
  });

  describe('operating-system families', () => {
    it('folds distributions, WSL and release names onto linux, macos and windows', () => {
      const cases: [string, string | null][] = [
        ['Raspberry Pi OS (Bookworm)', 'linux'],
        ['Debian GNU/Linux 12 (bookworm)', 'linux'],
        ['Pop!_OS 22.04', 'linux'],
        ['NixOS 24.05', 'linux'],
        ['Fedora 40', 'linux'],
        ['Arch', 'linux'],
        ['Windows 11 + WSL2', 'linux'],
        ['Ubuntu 22.04 (WSL)', 'linux'],
        ['macOS Sequoia 15.2', 'macos'],
        ['Sonoma', 'macos'],
        ['Darwin', 'macos'],
        ['Windows 10 Pro', 'windows'],
        ['FreeBSD 14', null],
      ];
      for (const [os, family] of cases) expect(osFamily(os), os).to.equal(family);
    });
  });

  describe('the last-level cache rule', () => {
    const llama1B = { params: 1.24, active_params: null, is_moe: false };
    const on = (gpuName: string, tokSOut: number) =>
      runVerdict({
        tokSOut,
        batchSize: 1,
        quantization: 'Q4_K_M',
        engineName: 'llama.cpp',
        engineFlags: null,
        model: llama1B,
        hardware: { hwClass: 'DISCRETE_GPU', gpuName, vramGb: 24 },
      });

    it('judges Llama 3.2 1B Q4_K_M (0.75 GB) on an RTX 3090, whose 6 MB L2 cannot hold it', () => {
      expect(on('NVIDIA GeForce RTX 3090', 300).plausibility).to.equal('plausible');
      expect(on('NVIDIA GeForce RTX 3090', 3000).plausibility).to.equal('suspect');
    });
  });
});

describe('CPUs read from their family numbering', () => {
  const rows: [text: string, name: string, bandwidthGBs: number][] = [
    ['Intel Core i5-8500T CPU @ 2.10GHz (skylake)', 'Intel Core i5-8500T', 42.656],
    ['11th Gen Intel Core i7-11700F @ 2.50GHz (rocketlake)', 'Intel Core i7-11700F', 51.2],
    ['12th Gen Intel Core i7-12700T (alderlake)', 'Intel Core i7-12700T', 76.8],
    ['13th Gen Intel Core i5-13450HX (alderlake)', 'Intel Core i5-13450HX', 89.6],
    ['Intel Core i5-10310U CPU @ 1.70GHz (skylake)', 'Intel Core i5-10310U', 59.728],
    ['Intel Core i7-3720QM CPU @ 2.60GHz (ivybridge)', 'Intel Core i7-3720QM', 25.6],
    ['Intel Core M-5Y71 CPU @ 1.20GHz (broadwell)', 'Intel Core 5Y71', 29.856],
    ['Intel Xeon CPU E5-1620 v4 @ 3.50GHz (broadwell)', 'Intel Xeon E5-1620 v4', 76.8],
    ['Intel Xeon CPU E3-1240L v3 @ 2.00GHz (haswell)', 'Intel Xeon E3-1240L v3', 25.6],
    ['Intel Xeon CPU E5-2687W 0 @ 3.10GHz (sandybridge)', 'Intel Xeon E5-2687W', 51.2],
    ['Intel Xeon W-11855M CPU @ 3.20GHz (tigerlake)', 'Intel Xeon W-11855M', 68.272],
    ['Intel Xeon W-2235 CPU @ 3.80GHz (cascadelake)', 'Intel Xeon W-2235', 93.856],
    ['Intel Xeon Gold 5218 CPU @ 2.30GHz (cascadelake)', 'Intel Xeon Gold 5218', 140.784],
    ['Intel Pentium CPU G4600 @ 3.60GHz (skylake)', 'Intel Pentium G4600', 38.4],
    ['AMD Ryzen 5 7535HS with Radeon Graphics (znver3)', 'AMD Ryzen 5 7535HS', 120],
    ['AMD Ryzen 7 PRO 4750G with Radeon Graphics (znver2)', 'AMD Ryzen 7 4750G', 51.2],
    ['AMD FX(tm)-8320 Eight-Core Processor (bdver2)', 'AMD FX-8320', 29.856],
  ];
  for (const [text, name, bandwidthGBs] of rows) {
    it(`'${text}' is the ${name} at its generation's ${bandwidthGBs} GB/s`, () => {
      expect(findCpu(text)).to.deep.include({ bandwidthGBs });
      expect(findCpu(text)?.spec.name).to.equal(name);
    });
  }

  it('reads nothing from a virtual CPU, a cloud label or a name without a model number', () => {
    for (const text of [
      'Intel Core Processor (Haswell, no TSX) (haswell)',
      'DO-Premium-Intel (skylake-avx512)',
      'Intel Xeon Platinum 9242',
    ]) {
      expect(findCpu(text), text).to.equal(null);
    }
  });
});
