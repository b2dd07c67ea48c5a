import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { cpus, gpus, unifiedChips } from '../../src/data/hardware-catalogue.ts';
import { mapToCatalogue } from '../../src/cli/llm-bench/catalogue.ts';
import {
  detectHardware,
  discreteHardware,
  parseCpuinfo,
  parseMeminfo,
  parseNvidiaPowerLine,
  parseNvidiaSmi,
  parseRocmSmi,
  parseSysctl,
  parseSystemProfiler,
  summarisePower,
  type RunTool,
} from '../../src/cli/llm-bench/hardware.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/cli/${name}`, import.meta.url), 'utf8');

describe('llm-bench hardware detection (recorded tool outputs)', () => {
  it('reads one NVIDIA card with its VRAM as sold (24564 MiB is 24 GB)', () => {
    expect(parseNvidiaSmi(fixture('nvidia-smi-one.txt'))).to.deep.equal([{ name: 'NVIDIA GeForce RTX 4090', vramGb: 24 }]);
  });

  it('keeps per-card VRAM for several identical cards, never the total', () => {
    const hardware = discreteHardware(parseNvidiaSmi(fixture('nvidia-smi-four-same.txt')), {});
    expect(hardware).to.deep.equal({ hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 3090', gpuCount: 4, vramGb: 24 });
  });

  it('lists mixed cards as gpus slots, each with its own per-card VRAM and count', () => {
    const hardware = discreteHardware(parseNvidiaSmi(fixture('nvidia-smi-mixed.txt')), {
      cpu: 'AMD Ryzen 9 7950X',
      ramGb: 64,
      os: 'Ubuntu 24.04',
    });
    expect(hardware).to.deep.equal({
      hwClass: 'DISCRETE_GPU',
      gpus: [
        { gpuName: 'NVIDIA GeForce RTX 4090', count: 1, vramGb: 24 },
        { gpuName: 'NVIDIA GeForce RTX 3060', count: 2, vramGb: 12 },
      ],
      cpu: 'AMD Ryzen 9 7950X',
      ramGb: 64,
      os: 'Ubuntu 24.04',
    });
  });

  it('reads rocm-smi JSON cards (either key spelling) and ignores the system entry', () => {
    expect(parseRocmSmi(fixture('rocm-smi.json'))).to.deep.equal([
      { name: 'Radeon RX 7900 XTX', vramGb: 24 },
      { name: 'Radeon RX 7900 XTX', vramGb: 24 },
    ]);
    expect(parseRocmSmi('not json')).to.deep.equal([]);
  });

  it('reads an Apple chip from system_profiler and from sysctl as a UNIFIED chip', () => {
    expect(parseSystemProfiler(fixture('system_profiler.txt'))).to.deep.equal({
      chipVendor: 'Apple',
      chipFamily: 'M3',
      chipVariant: 'Max',
      unifiedMemoryGb: 48,
    });
    expect(parseSysctl(fixture('sysctl.txt'))).to.deep.equal({
      chipVendor: 'Apple',
      chipFamily: 'M2',
      chipVariant: 'Base',
      unifiedMemoryGb: 24,
    });
  });

  it('reads the CPU model and the RAM as sold from /proc', () => {
    expect(parseCpuinfo(fixture('cpuinfo.txt'))).to.equal('AMD Ryzen 9 7950X 16-Core Processor');
    expect(parseMeminfo(fixture('meminfo.txt'))).to.equal(64);
  });

  it('detects a multi-GPU box through nvidia-smi and a CPU-only one when no GPU tool answers', async () => {
    const read = async (path: string) =>
      path === '/proc/cpuinfo' ? fixture('cpuinfo.txt') : path === '/proc/meminfo' ? fixture('meminfo.txt') : undefined;
    const withNvidia: RunTool = async (command) => (command === 'nvidia-smi' ? fixture('nvidia-smi-mixed.txt') : undefined);
    const gpuBox = await detectHardware(withNvidia, read);
    expect(gpuBox.source).to.equal('nvidia-smi');
    expect(gpuBox.backend).to.equal('cuda');
    expect((gpuBox.hardware as { gpus: unknown[] }).gpus).to.have.length(2);

    const withRocm: RunTool = async (command) => (command === 'rocm-smi' ? fixture('rocm-smi.json') : undefined);
    const amdBox = await detectHardware(withRocm, read);
    expect(amdBox).to.include({ source: 'rocm-smi', backend: 'rocm' });
    expect(amdBox.hardware).to.include({ gpuName: 'Radeon RX 7900 XTX', gpuCount: 2, vramGb: 24 });

    const cpuBox = await detectHardware(async () => undefined, read);
    expect(cpuBox.hardware).to.include({ hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 9 7950X 16-Core Processor', ramGb: 64 });
  });

  it('averages watts per card over the decode windows only, and takes the peak VRAM of all cards together', () => {
    const lines = fixture('nvidia-smi-power.txt').trim().split('\n');
    const samples = [
      parseNvidiaPowerLine(lines[0]!, 100)!,
      parseNvidiaPowerLine(lines[1]!, 100)!,
      parseNvidiaPowerLine(lines[2]!, 200)!,
      { at: 150, card: 0, watts: 300, usedMiB: 20480 },
      { at: 150, card: 1, watts: 150, usedMiB: 9216 },
      // Idle before the window: not in the average.
      { at: 10, card: 0, watts: 20, usedMiB: 1000 },
      { at: 10, card: 1, watts: 15, usedMiB: 1000 },
    ];
    expect(samples[2]).to.deep.equal({ at: 200, card: 0, watts: undefined, usedMiB: 20500 });
    const summary = summarisePower(samples, [{ firstTokenAt: 50, lastTokenAt: 250 }]);
    expect(summary.gpuPowerWatts).to.deep.equal([293.7, 146.6]);
    expect(summary.peakVramGb).to.equal(Math.round(((20480 + 9216) / 1024) * 100) / 100);
  });

  it("maps detected names to the catalogue's canonical names, and keeps unknown ones as detected", () => {
    const options = {
      gpus: gpus.map(({ name }) => ({ name })),
      cpus: cpus.map(({ name }) => ({ name })),
      unifiedChips: unifiedChips.map(({ name, vendor, family, variant }) => ({
        name,
        chipVendor: vendor,
        chipFamily: family,
        chipVariant: variant,
      })),
    };
    const mixed = mapToCatalogue(
      {
        hwClass: 'DISCRETE_GPU',
        gpus: [
          { gpuName: 'NVIDIA GeForce RTX 4090', count: 1, vramGb: 24 },
          { gpuName: 'Radeon RX 7900 XTX', count: 1, vramGb: 24 },
        ],
        cpu: 'AMD Ryzen 9 7950X 16-Core Processor',
      },
      options,
    );
    expect((mixed.hardware as any).gpus.map((slot: { gpuName: string }) => slot.gpuName)).to.deep.equal([
      'NVIDIA GeForce RTX 4090',
      'AMD Radeon RX 7900 XTX',
    ]);
    expect((mixed.hardware as any).cpu).to.equal('AMD Ryzen 9 7950X');
    expect(mixed.notes).to.include('"AMD Ryzen 9 7950X 16-Core Processor" -> "AMD Ryzen 9 7950X"');

    const chip = mapToCatalogue(
      { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max', unifiedMemoryGb: 48 },
      options,
    );
    expect(chip.hardware).to.include({ chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max' });
    expect(chip.notes).to.deep.equal([]);

    const unknown = mapToCatalogue({ hwClass: 'CPU_ONLY', cpu: 'Homebrew RISC-V 9000', ramGb: 8 }, options);
    expect((unknown.hardware as any).cpu).to.equal('Homebrew RISC-V 9000');
    expect(unknown.notes[0]).to.match(/not in the leaderboard's catalogue/);
  });
});
