/**
 * The machine's hardware in the submission's shape, read from the tools that exist:
 * `nvidia-smi`, `rocm-smi`, macOS `system_profiler` / `sysctl` (Apple silicon: a UNIFIED
 * chip), else `/proc/cpuinfo` and `/proc/meminfo` (CPU only). Each tool's output is read by
 * a pure parser (tested on recorded outputs); several cards keep their per-card VRAM, and
 * mixed cards become a `gpus` list.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import type { SubmittedHardware } from '../../runs/submission/speed-test.schema.ts';

export interface Gpu {
  name: string;
  vramGb: number;
}

export type Hardware = SubmittedHardware;

const MIB_PER_GIB = 1024;

/** Memory sizes as sold: a reading a little under one (reserved memory) is that size. */
const SOLD_SIZES = [
  1, 2, 3, 4, 6, 8, 10, 11, 12, 16, 20, 24, 32, 36, 40, 48, 64, 80, 94, 96, 128, 141, 144, 192, 256, 288, 384, 512, 768, 1024, 1536, 2048,
];

export function soldSize(gib: number): number {
  const size = SOLD_SIZES.find((candidate) => candidate >= gib - 0.05);
  if (size !== undefined && gib >= size * 0.9) return size;
  return Math.round(gib * 10) / 10;
}

/** `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits`: one card a line. */
export function parseNvidiaSmi(output: string): Gpu[] {
  return output
    .split('\n')
    .map((line) => line.split(',').map((cell) => cell.trim()))
    .filter((cells) => cells.length >= 2 && cells[0] && Number.isFinite(Number(cells[1])))
    .map(([name, mib]) => ({ name: name!, vramGb: soldSize(Number(mib) / MIB_PER_GIB) }));
}

export interface PowerSample {
  at: number;
  card: number;
  watts?: number;
  usedMiB?: number;
}

/** One line of `nvidia-smi --query-gpu=index,power.draw,memory.used --format=csv,noheader,nounits -lms N`. */
export function parseNvidiaPowerLine(line: string, at: number): PowerSample | undefined {
  const [card, watts, used] = line.split(',').map((cell) => cell.trim());
  if (card === undefined || !/^\d+$/.test(card)) return undefined;
  const number = (text: string | undefined) => (text !== undefined && /^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined);
  return { at, card: Number(card), watts: number(watts), usedMiB: number(used) };
}

/** `rocm-smi --showproductname --showmeminfo vram --json`: one entry per card. */
export function parseRocmSmi(output: string): Gpu[] {
  let parsed: Record<string, Record<string, string>>;
  try {
    parsed = JSON.parse(output);
  } catch {
    return [];
  }
  return Object.entries(parsed)
    .filter(([key]) => /^card\d+$/i.test(key))
    .map(([, card]) => {
      const field = (pattern: RegExp) => Object.entries(card).find(([key]) => pattern.test(key))?.[1];
      const name = field(/^card series$/i) ?? field(/^device name$/i) ?? field(/^card model$/i) ?? 'AMD GPU';
      const bytes = Number(field(/^vram total memory \(b\)$/i));
      return { name: name.trim(), vramGb: Number.isFinite(bytes) ? soldSize(bytes / 1024 ** 3) : NaN };
    })
    .filter((gpu) => Number.isFinite(gpu.vramGb) && gpu.vramGb > 0);
}

export interface Chip {
  chipVendor: string;
  chipFamily: string;
  chipVariant: string;
  unifiedMemoryGb: number;
}

/** 'Apple M3 Max' -> Apple / M3 / Max; 'Apple M2' -> variant Base. */
function appleChip(name: string, memoryGb: number): Chip | undefined {
  const match = /Apple\s+(M\d+)(?:\s+(Pro|Max|Ultra))?/i.exec(name);
  if (!match) return undefined;
  return {
    chipVendor: 'Apple',
    chipFamily: match[1]!.toUpperCase(),
    chipVariant: match[2] ? match[2][0]!.toUpperCase() + match[2].slice(1).toLowerCase() : 'Base',
    unifiedMemoryGb: memoryGb,
  };
}

/** `system_profiler SPHardwareDataType`: the Chip and Memory lines. */
export function parseSystemProfiler(output: string): Chip | undefined {
  const chip = /^\s*Chip:\s*(.+)$/m.exec(output)?.[1];
  const memory = /^\s*Memory:\s*([\d.]+)\s*(GB|TB)/m.exec(output);
  if (!chip || !memory) return undefined;
  return appleChip(chip, Number(memory[1]) * (memory[2] === 'TB' ? 1024 : 1));
}

/** `sysctl -n machdep.cpu.brand_string hw.memsize`: the brand, then memory in bytes. */
export function parseSysctl(output: string): Chip | undefined {
  const [brand, bytes] = output.split('\n').map((line) => line.trim());
  if (!brand || !bytes || !/^\d+$/.test(bytes)) return undefined;
  return appleChip(brand, soldSize(Number(bytes) / 1024 ** 3));
}

/** `/proc/cpuinfo`: the first `model name` (x86) or `Model` (some ARM boards). */
export function parseCpuinfo(text: string): string | undefined {
  const name = /^model name\s*:\s*(.+)$/m.exec(text)?.[1] ?? /^Model\s*:\s*(.+)$/m.exec(text)?.[1];
  return name?.replace(/\s+/g, ' ').trim() || undefined;
}

/** `/proc/meminfo`: MemTotal in GB, as sold. */
export function parseMeminfo(text: string): number | undefined {
  const kb = /^MemTotal:\s*(\d+)\s*kB/m.exec(text)?.[1];
  return kb ? soldSize(Number(kb) / 1024 ** 2) : undefined;
}

/** Cards as the submission takes them: one name (flat fields, per-card VRAM) or a `gpus` list for mixed cards. */
export function discreteHardware(gpus: Gpu[], host: { cpu?: string; ramGb?: number; os?: string }): Hardware {
  const groups = new Map<string, { gpuName: string; count: number; vramGb: number }>();
  for (const gpu of gpus) {
    const key = `${gpu.name}|${gpu.vramGb}`;
    const group = groups.get(key) ?? { gpuName: gpu.name, count: 0, vramGb: gpu.vramGb };
    group.count += 1;
    groups.set(key, group);
  }
  const slots = [...groups.values()];
  const extras = {
    ...(host.cpu ? { cpu: host.cpu } : {}),
    ...(host.ramGb ? { ramGb: host.ramGb } : {}),
    ...(host.os ? { os: host.os } : {}),
  };
  if (slots.length === 1) {
    const [only] = slots;
    return { hwClass: 'DISCRETE_GPU', gpuName: only!.gpuName, gpuCount: only!.count, vramGb: only!.vramGb, ...extras } as Hardware;
  }
  return { hwClass: 'DISCRETE_GPU', gpus: slots, ...extras } as Hardware;
}

/** Runs a tool, answering its stdout, or undefined when it is missing or fails. */
export type RunTool = (command: string, args: string[]) => Promise<string | undefined>;

export const runTool: RunTool = (command, args) =>
  new Promise((resolve) => {
    execFile(command, args, { timeout: 10_000, maxBuffer: 4 * 1024 * 1024 }, (error, stdout) =>
      resolve(error ? undefined : String(stdout)),
    );
  });

export const nvidiaSmi = () => process.env.LLM_BENCH_NVIDIA_SMI || 'nvidia-smi';

async function osName(): Promise<string> {
  if (process.platform === 'darwin') return `macOS ${os.release()}`;
  if (process.platform === 'win32') return `Windows ${os.release()}`;
  try {
    const release = await readFile('/etc/os-release', 'utf8');
    const pretty = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(release)?.[1];
    if (pretty) return pretty.slice(0, 64);
  } catch {
    // no os-release: the kernel's name
  }
  return `Linux ${os.release()}`.slice(0, 64);
}

export interface DetectedHardware {
  hardware: Hardware;
  /** Which tool said so. */
  source: string;
  /** The backend the hardware suggests (cuda, rocm, metal, cpu). */
  backend: string;
}

/** Detects the machine this runs on; `run` is swappable so tests can play recorded outputs. */
export async function detectHardware(
  run: RunTool = runTool,
  read = (path: string) => readFile(path, 'utf8').catch(() => undefined),
): Promise<DetectedHardware> {
  const cpu = parseCpuinfo((await read('/proc/cpuinfo')) ?? '') ?? os.cpus()[0]?.model?.trim();
  const ramGb = parseMeminfo((await read('/proc/meminfo')) ?? '') ?? soldSize(os.totalmem() / 1024 ** 3);
  const host = { cpu, ramGb, os: await osName() };

  const nvidia = parseNvidiaSmi((await run(nvidiaSmi(), ['--query-gpu=name,memory.total', '--format=csv,noheader,nounits'])) ?? '');
  if (nvidia.length) return { hardware: discreteHardware(nvidia, host), source: 'nvidia-smi', backend: 'cuda' };
  const amd = parseRocmSmi((await run('rocm-smi', ['--showproductname', '--showmeminfo', 'vram', '--json'])) ?? '');
  if (amd.length) return { hardware: discreteHardware(amd, host), source: 'rocm-smi', backend: 'rocm' };
  if (process.platform === 'darwin') {
    const chip =
      parseSystemProfiler((await run('system_profiler', ['SPHardwareDataType'])) ?? '') ??
      parseSysctl((await run('sysctl', ['-n', 'machdep.cpu.brand_string', 'hw.memsize'])) ?? '');
    if (chip) return { hardware: { hwClass: 'UNIFIED', ...chip, os: host.os } as Hardware, source: 'system_profiler', backend: 'metal' };
  }
  return {
    hardware: { hwClass: 'CPU_ONLY', cpu: cpu ?? 'Unknown CPU', ramGb, os: host.os } as Hardware,
    source: '/proc/cpuinfo',
    backend: 'cpu',
  };
}

/**
 * Mean watts per card over the samples inside the decode windows (every card must have
 * some, above 0), and the peak VRAM used by all cards together over the whole session.
 */
export function summarisePower(
  samples: PowerSample[],
  windows: { firstTokenAt: number; lastTokenAt: number }[],
): { gpuPowerWatts?: number[]; peakVramGb?: number } {
  const inDecode = samples.filter((s) => s.watts !== undefined && windows.some((w) => s.at >= w.firstTokenAt && s.at <= w.lastTokenAt));
  const cards = [...new Set(samples.map((s) => s.card))].sort((a, b) => a - b);
  const watts = cards.map((card) => {
    const mine = inDecode.filter((s) => s.card === card).map((s) => s.watts!);
    return mine.length ? Math.round((mine.reduce((a, b) => a + b, 0) / mine.length) * 10) / 10 : undefined;
  });
  const usedByTime = new Map<number, number>();
  for (const s of samples) if (s.usedMiB !== undefined) usedByTime.set(s.at, (usedByTime.get(s.at) ?? 0) + s.usedMiB);
  const peakMiB = Math.max(0, ...usedByTime.values());
  return {
    ...(watts.length && watts.every((w) => w !== undefined && w > 0) ? { gpuPowerWatts: watts as number[] } : {}),
    ...(peakMiB > 0 ? { peakVramGb: Math.round((peakMiB / MIB_PER_GIB) * 100) / 100 } : {}),
  };
}
