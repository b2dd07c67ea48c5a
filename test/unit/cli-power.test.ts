import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Hardware } from '../../src/cli/llm-bench/hardware.ts';
import {
  parsePowermetrics,
  parseRocmPower,
  powerEnv,
  probesFor,
  raplWatts,
  startPowerSampling,
  type PowerEnv,
} from '../../src/cli/llm-bench/power.ts';
import { fakeNvidiaSmiDir } from '../helpers/llm-bench.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/cli/${name}`, import.meta.url), 'utf8');
const GPUS = (count: number): Hardware =>
  ({ hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: count, vramGb: 24 }) as Hardware;
const CPU: Hardware = { hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 9 7950X', ramGb: 64 } as Hardware;
const MAC: Hardware = { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max', unifiedMemoryGb: 64 } as Hardware;

/** A PowerEnv whose tools, files and clock are the test's: nothing real is read. */
function fakeEnv(overrides: Partial<PowerEnv> = {}): PowerEnv {
  return {
    run: async () => undefined,
    readFile: async () => undefined,
    readdir: async () => [],
    powercapDir: '/powercap',
    nvidiaSmi: 'nvidia-smi',
    platform: 'linux',
    intervalMs: 10,
    now: () => 0,
    ...overrides,
  };
}

describe('llm-bench power probes', () => {
  it('reads rocm-smi --showpower --json per card, in either key spelling', () => {
    expect(parseRocmPower(fixture('rocm-smi-power.json'), 5)).to.deep.equal([
      { at: 5, card: 0, watts: 241 },
      { at: 5, card: 1, watts: 198.5 },
    ]);
    expect(parseRocmPower('not json', 5)).to.deep.equal([]);
  });

  it("reads powermetrics' combined chip power in watts", () => {
    expect(parsePowermetrics(fixture('powermetrics.txt'), 7)).to.deep.equal([{ at: 7, card: 0, watts: 42.933 }]);
    expect(parsePowermetrics('powermetrics must be invoked as the superuser', 7)).to.deep.equal([]);
  });

  it('turns RAPL energy counter deltas into watts, across the wrap-around', () => {
    expect(raplWatts({ energyUj: 1_000_000, at: 0, maxUj: 2 ** 32 }, { energyUj: 31_000_000, at: 500, maxUj: 2 ** 32 })).to.equal(60);
    // 262143328850 µJ is a common max_energy_range_uj: the counter went past it and restarted.
    const max = 262_143_328_850;
    expect(raplWatts({ energyUj: max - 10_000_000, at: 1000, maxUj: max }, { energyUj: 20_000_000, at: 1500, maxUj: max })).to.equal(60);
    expect(raplWatts({ energyUj: 5, at: 10, maxUj: max }, { energyUj: 6, at: 10, maxUj: max })).to.equal(undefined);
  });

  it('asks the tools that speak for the hardware: GPUs nvidia-smi then rocm-smi, a Mac powermetrics, a CPU RAPL', () => {
    expect(probesFor(GPUS(1), fakeEnv()).map((probe) => probe.name)).to.deep.equal(['nvidia-smi', 'rocm-smi']);
    expect(probesFor(MAC, fakeEnv({ platform: 'darwin' })).map((probe) => probe.name)).to.deep.equal(['powermetrics']);
    expect(probesFor(MAC, fakeEnv({ platform: 'linux' }))).to.deep.equal([]);
    expect(probesFor(CPU, fakeEnv()).map((probe) => probe.name)).to.deep.equal(['RAPL']);
  });

  it('samples RAPL packages (not their sub-zones) and averages the watts inside the decode windows', async () => {
    let clock = 0;
    // Package 0 burns 50 W, package 1 30 W; package 0 wraps past its maximum on the way.
    const max = 100_000_000;
    const energy = (zone: string) => (zone === 'intel-rapl:0' ? (50 * clock * 1000 + 90_000_000) % max : 30 * clock * 1000);
    const env = fakeEnv({
      now: () => clock,
      readdir: async () => ['intel-rapl:0', 'intel-rapl:0:0', 'intel-rapl:1', 'intel-rapl-mmio:0'],
      readFile: async (file) => {
        const zone = path.basename(path.dirname(file));
        if (file.endsWith('max_energy_range_uj')) return `${max}\n`;
        return zone.startsWith('intel-rapl:') && zone.split(':').length === 2 ? `${energy(zone)}\n` : undefined;
      },
      intervalMs: 10,
    });
    const sampler = await startPowerSampling(CPU, env);
    expect(sampler?.probe).to.equal('RAPL');
    for (let step = 0; step < 10; step += 1) {
      clock += 100;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await sampler!.stop();
    const summary = sampler!.summary([{ firstTokenAt: 0, lastTokenAt: clock }]);
    expect(summary.probe).to.equal('RAPL');
    expect(summary.gpuPowerWatts).to.have.length(2);
    expect(summary.gpuPowerWatts![0]).to.be.closeTo(50, 0.1);
    expect(summary.gpuPowerWatts![1]).to.be.closeTo(30, 0.1);
  });

  it('runs nvidia-smi found on PATH (a script standing in for it), and drops power whose card count is not the hardware’s', async () => {
    const bin = fakeNvidiaSmiDir();
    const env = { ...powerEnv({ PATH: bin, LLM_BENCH_POWERCAP_DIR: '/nonexistent' }), intervalMs: 10 };
    const two = await startPowerSampling(GPUS(2), env);
    expect(two?.probe).to.equal('nvidia-smi');
    await new Promise((resolve) => setTimeout(resolve, 60));
    await two!.stop();
    const summary = two!.summary([{ firstTokenAt: 0, lastTokenAt: Number.MAX_SAFE_INTEGER }]);
    expect(summary).to.deep.include({ gpuPowerWatts: [250, 150], probe: 'nvidia-smi' });
    expect(summary.peakVramGb).to.equal(Math.round((38000 / 1024) * 100) / 100);

    const one = await startPowerSampling(GPUS(1), env);
    await one!.stop();
    const mismatch = one!.summary([{ firstTokenAt: 0, lastTokenAt: Number.MAX_SAFE_INTEGER }]);
    expect(mismatch.gpuPowerWatts).to.equal(undefined);
    expect(mismatch.note).to.equal('nvidia-smi reads 2 devices and the hardware has 1: power not submitted');
  });

  it('measures nothing, without an error, when no tool answers (no nvidia-smi, rocm-smi or powercap directory)', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'llm-bench-no-smi-'));
    const env = powerEnv({ PATH: empty, LLM_BENCH_POWERCAP_DIR: path.join(empty, 'powercap') });
    expect(await startPowerSampling(GPUS(1), env)).to.equal(undefined);
    expect(await startPowerSampling(CPU, env)).to.equal(undefined);
    // A powercap directory with no package zone, and an nvidia-smi that reports no power: nothing either.
    mkdirSync(path.join(empty, 'powercap', 'intel-rapl:0:0'), { recursive: true });
    expect(await startPowerSampling(CPU, env)).to.equal(undefined);
    const silent = fakeEnv({ run: async (command) => (command === 'nvidia-smi' ? '0, [N/A], 1000\n' : undefined) });
    expect(await startPowerSampling(GPUS(1), silent)).to.equal(undefined);
  });
});
