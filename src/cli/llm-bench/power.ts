/**
 * Power drawn while measuring, where the machine can say (issue 34, "measured, not typed,
 * power"): `nvidia-smi` (per card) or `rocm-smi` (per card) for discrete GPUs, macOS
 * `powermetrics` for an Apple chip (when permitted: it needs root), the RAPL energy
 * counters of the CPU packages (`/sys/class/powercap/intel-rapl:N/energy_uj`) for a
 * CPU-only run. The probe is polled every `intervalMs` from just before the first timed
 * request to the end; `summary` averages each device's readings inside the decode windows.
 * Nothing answers: nothing is measured (no error). Every outside read goes through
 * `PowerEnv`, so tests play tools (scripts on a temporary PATH) and a powercap directory.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseNvidiaPowerLine, summarisePower, type Hardware, type PowerSample, type RunTool } from './hardware.ts';

export interface PowerEnv {
  /** Runs a tool, answering its stdout (undefined when it is missing or fails). */
  run: RunTool;
  readFile(file: string): Promise<string | undefined>;
  readdir(dir: string): Promise<string[]>;
  /** Stands in for /sys/class/powercap. */
  powercapDir: string;
  nvidiaSmi: string;
  platform: NodeJS.Platform;
  intervalMs: number;
  now(): number;
}

/** The machine's power tools as the CLI's environment finds them (PATH, LLM_BENCH_NVIDIA_SMI, LLM_BENCH_POWERCAP_DIR, LLM_BENCH_POWER_INTERVAL_MS). */
export function powerEnv(env: NodeJS.ProcessEnv): PowerEnv {
  const toolEnv = { ...process.env, ...(env.PATH !== undefined ? { PATH: env.PATH } : {}) };
  const interval = Number(env.LLM_BENCH_POWER_INTERVAL_MS);
  return {
    run: (command, args) =>
      new Promise((resolve) => {
        execFile(command, args, { timeout: 10_000, maxBuffer: 1024 * 1024, env: toolEnv }, (error, stdout) =>
          resolve(error ? undefined : String(stdout)),
        );
      }),
    readFile: (file) => readFile(file, 'utf8').catch(() => undefined),
    readdir: (dir) => readdir(dir).catch(() => []),
    powercapDir: env.LLM_BENCH_POWERCAP_DIR || '/sys/class/powercap',
    nvidiaSmi: env.LLM_BENCH_NVIDIA_SMI || 'nvidia-smi',
    platform: process.platform,
    intervalMs: Number.isInteger(interval) && interval >= 10 && interval <= 10_000 ? interval : 200,
    now: () => performance.now(),
  };
}

/** One way of reading power: one reading per device (card, chip or CPU package) a call. */
export interface PowerProbe {
  name: 'nvidia-smi' | 'rocm-smi' | 'powermetrics' | 'RAPL';
  read(): Promise<PowerSample[]>;
}

/** `rocm-smi --showpower --json`: per card, its package power in W (older and newer key spellings). */
export function parseRocmPower(output: string, at: number): PowerSample[] {
  let parsed: Record<string, Record<string, string>>;
  try {
    parsed = JSON.parse(output);
  } catch {
    return [];
  }
  if (!parsed || typeof parsed !== 'object') return [];
  return Object.entries(parsed)
    .filter(([key, card]) => /^card\d+$/i.test(key) && card && typeof card === 'object')
    .map(([key, card]) => {
      const entry =
        Object.entries(card).find(([name]) => /package power \(w\)$/i.test(name)) ??
        Object.entries(card).find(([name]) => /power \(w\)$/i.test(name));
      const watts = Number(entry?.[1]);
      return { at, card: Number(key.slice(4)), ...(Number.isFinite(watts) && watts > 0 ? { watts } : {}) };
    })
    .sort((a, b) => a.card - b.card);
}

/** `powermetrics --samplers cpu_power,gpu_power -n 1`: the chip's combined power (CPU + GPU + ANE), mW to W. */
export function parsePowermetrics(output: string, at: number): PowerSample[] {
  const combined = /^Combined Power \(CPU \+ GPU \+ ANE\):\s*([\d.]+)\s*mW/m.exec(output)?.[1];
  if (combined !== undefined) return [{ at, card: 0, watts: Number(combined) / 1000 }];
  const parts = ['CPU', 'GPU', 'ANE'].map((unit) => new RegExp(`^${unit} Power:\\s*([\\d.]+)\\s*mW`, 'm').exec(output)?.[1]);
  if (parts[0] === undefined && parts[1] === undefined) return [];
  return [{ at, card: 0, watts: parts.reduce((sum, part) => sum + Number(part ?? 0), 0) / 1000 }];
}

/** A RAPL counter read: microjoules so far, when, and where the counter wraps. */
export interface EnergyReading {
  energyUj: number;
  at: number;
  maxUj: number;
}

/** Mean watts between two readings of one counter; the counter wraps to 0 past its maximum. */
export function raplWatts(before: EnergyReading, after: EnergyReading): number | undefined {
  const seconds = (after.at - before.at) / 1000;
  if (seconds <= 0) return undefined;
  const delta = after.energyUj >= before.energyUj ? after.energyUj - before.energyUj : after.energyUj + before.maxUj - before.energyUj;
  return delta / 1e6 / seconds;
}

function nvidiaProbe(env: PowerEnv): PowerProbe {
  return {
    name: 'nvidia-smi',
    async read() {
      const output = await env.run(env.nvidiaSmi, ['--query-gpu=index,power.draw,memory.used', '--format=csv,noheader,nounits']);
      const at = env.now();
      return (output ?? '')
        .split('\n')
        .map((line) => parseNvidiaPowerLine(line, at))
        .filter((sample): sample is PowerSample => sample !== undefined);
    },
  };
}

function rocmProbe(env: PowerEnv): PowerProbe {
  return {
    name: 'rocm-smi',
    async read() {
      const output = await env.run('rocm-smi', ['--showpower', '--json']);
      return parseRocmPower(output ?? '', env.now());
    },
  };
}

function powermetricsProbe(env: PowerEnv): PowerProbe {
  return {
    name: 'powermetrics',
    async read() {
      const started = env.now();
      const output = await env.run('powermetrics', ['--samplers', 'cpu_power,gpu_power', '-n', '1', '-i', String(env.intervalMs)]);
      // The figure is the mean over the sampled interval: it belongs to that interval's middle.
      return parsePowermetrics(output ?? '', (started + env.now()) / 2);
    },
  };
}

/** The CPU packages' energy counters (intel-rapl:N, not their sub-zones); watts from one read to the next. */
function raplProbe(env: PowerEnv): PowerProbe {
  const last = new Map<number, EnergyReading>();
  return {
    name: 'RAPL',
    async read() {
      const zones = (await env.readdir(env.powercapDir)).filter((name) => /^intel-rapl:\d+$/.test(name));
      const samples: PowerSample[] = [];
      for (const zone of zones) {
        const card = Number(zone.split(':')[1]);
        const counter = (await env.readFile(path.join(env.powercapDir, zone, 'energy_uj')))?.trim() ?? '';
        const max = Number((await env.readFile(path.join(env.powercapDir, zone, 'max_energy_range_uj')))?.trim());
        if (!/^\d+$/.test(counter)) continue;
        const energy = Number(counter);
        const reading = { energyUj: energy, at: env.now(), maxUj: Number.isFinite(max) && max > 0 ? max : 2 ** 32 };
        const before = last.get(card);
        last.set(card, reading);
        const watts = before ? raplWatts(before, reading) : undefined;
        // The mean since the last read belongs to the middle of that interval.
        samples.push({ at: before ? (before.at + reading.at) / 2 : reading.at, card, ...(watts !== undefined ? { watts } : {}) });
      }
      return samples;
    },
  };
}

/** The probes that can speak for this hardware, in the order they are tried. */
export function probesFor(hardware: Hardware, env: PowerEnv): PowerProbe[] {
  if (hardware.hwClass === 'DISCRETE_GPU') return [nvidiaProbe(env), rocmProbe(env)];
  if (hardware.hwClass === 'UNIFIED') return env.platform === 'darwin' ? [powermetricsProbe(env)] : [];
  return [raplProbe(env)];
}

/** Devices the hardware names: its cards (any number of CPU packages for a CPU-only run). */
function devicesOf(hardware: Hardware): number | undefined {
  const hw = hardware as { hwClass: string; gpus?: { count?: number }[]; gpuCount?: number };
  if (hw.hwClass === 'DISCRETE_GPU') return hw.gpus ? hw.gpus.reduce((sum, slot) => sum + (slot.count ?? 1), 0) : (hw.gpuCount ?? 1);
  if (hw.hwClass === 'UNIFIED') return 1;
  return undefined;
}

export interface PowerSummary {
  /** Mean watts per device over the decode windows. */
  gpuPowerWatts?: number[];
  peakVramGb?: number;
  /** The tool that measured. */
  probe?: PowerProbe['name'];
  /** Why no power is submitted although a probe answered. */
  note?: string;
}

export interface PowerSampler {
  probe: PowerProbe['name'];
  stop(): Promise<void>;
  summary(windows: { firstTokenAt: number; lastTokenAt: number }[]): PowerSummary;
}

/**
 * Starts polling the first probe that answers for this hardware (a counter probe answers
 * with devices and no watts yet); undefined when none does.
 */
export async function startPowerSampling(hardware: Hardware, env: PowerEnv): Promise<PowerSampler | undefined> {
  for (const probe of probesFor(hardware, env)) {
    const first = await probe.read();
    const works = first.length > 0 && (probe.name === 'RAPL' || first.some((sample) => sample.watts !== undefined));
    if (!works) continue;
    const samples = [...first];
    let stopped = false;
    let wake: (() => void) | undefined;
    const loop = (async () => {
      while (!stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, env.intervalMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        if (!stopped) samples.push(...(await probe.read()));
      }
    })();
    return {
      probe: probe.name,
      async stop() {
        stopped = true;
        wake?.();
        await loop;
      },
      summary(windows) {
        const measured = summarisePower(samples, windows);
        const devices = devicesOf(hardware);
        const watts = measured.gpuPowerWatts;
        if (watts && devices !== undefined && watts.length !== devices) {
          const { gpuPowerWatts: _dropped, ...rest } = measured;
          return {
            ...rest,
            probe: probe.name,
            note: `${probe.name} reads ${watts.length} device${watts.length === 1 ? '' : 's'} and the hardware has ${devices}: power not submitted`,
          };
        }
        return { ...measured, probe: probe.name };
      },
    };
  }
  return undefined;
}
