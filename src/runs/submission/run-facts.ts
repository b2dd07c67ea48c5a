import { convertToUsd } from '../../data/fx-rates.ts';
import { deviceOf, type DeviceFacts } from '../../lib/hardware-devices.ts';
import { findCpu, findGpu } from '../../lib/hardware-lookup.ts';
import type { NormalisedSpeedTest } from './normalise.ts';
import { deviceKeyOf } from './verdict.ts';

/**
 * The columns a run carries besides what was submitted: copies of the hardware, model,
 * engine-flag and user facts that lists filter and sort on, so the leaderboard reads one
 * table with the right indexes instead of joining four on every request.
 */
export interface SpeedTestFacets {
  hw_class: string;
  memory_gb: number | null;
  hardware_search: string;
  os_family: 'windows' | 'linux' | 'macos' | null;
  engine_name: string;
  model_params: number | null;
  model_family: string | null;
  model_is_moe: boolean;
  user_verified: boolean;
  concurrency: number | null;
  kv_cache_dtype: string | null;
  attention_backend: string | null;
  gpu_layers: number | null;
  tensor_parallel: number | null;
  spec_decoding: boolean;
  mtp_enabled: boolean;
  power_watts: number | null;
  hardware_cost_usd: number | null;
  /** The device and card count (`deviceKeyOf`) of every run: replications are runs of one recipe on one such key. */
  recipe_device_key: string | null;
}

/**
 * Free-text OS names folded onto the leaderboard's three values (DECISIONS.md "Hardware
 * identity"): `linux` for Linux and its distributions (Raspberry Pi OS and Debian's release
 * names included) and WSL, `macos` for macOS / OS X / Darwin and its release names, `windows`
 * for Windows. WSL runs on Windows but is a Linux user space, so it is linux.
 */
export function osFamily(os: string | undefined): SpeedTestFacets['os_family'] {
  const value = os?.toLowerCase() ?? '';
  if (LINUX.test(value)) return 'linux';
  // macOS before Windows: "darwin" contains "win".
  if (MACOS.test(value)) return 'macos';
  if (/\bwin(?:dows|\d|\b)|windows/.test(value)) return 'windows';
  return null;
}

const LINUX =
  /linux|ubuntu|kubuntu|xubuntu|debian|raspberry ?pi ?os|raspbian|bookworm|bullseye|buster|trixie|fedora|\barch\b|archlinux|cachyos|centos|rhel|red ?hat|rocky|alma|nixos|\bwsl|pop!?[_ ]?os|\bmint\b|suse|gentoo|alpine|kali|endeavour|manjaro|void|slackware|elementary|zorin|garuda|bazzite|steamos|proxmox|unraid|truenas|jetpack|l4t|dgx ?os|chromeos|android/;
const MACOS = /mac ?os|\bmac\b|darwin|os ?x\b|sequoia|sonoma|ventura|monterey|big ?sur|tahoe/;

/**
 * The text `hardwareName` searches: GPU names, chip vendor/family/variant and the CPU as
 * written, then the catalogue names they resolve to (through an admin's mapping too), so a
 * search by the device's name finds every spelling of it ('RX 9070 GRE' finds
 * 'AMD Radeon Graphics (RADV GFX1201)'). A catalogue name the written text already holds is
 * not repeated.
 */
export function hardwareSearchText(hw: NormalisedSpeedTest['hardware']): string {
  const parts: (string | undefined)[] = [];
  const resolved: (string | undefined)[] = [deviceOf(hw as DeviceFacts).catalogue?.spec.name];
  if (hw.hwClass === 'DISCRETE_GPU') {
    const slots = (hw.gpus ?? []).map((slot) => slot.gpuName);
    parts.push(hw.gpuName, ...slots, hw.cpu);
    resolved.push(...slots.map((name) => findGpu(name)?.spec.name));
  } else if (hw.hwClass === 'UNIFIED') parts.push(hw.chipVendor, hw.chipFamily, hw.chipVariant, hw.cpu);
  else parts.push(hw.cpu);
  if (hw.hwClass !== 'CPU_ONLY' && hw.cpu) resolved.push(findCpu(hw.cpu)?.spec.name);
  const written = parts.filter(Boolean).join(' | ').toLowerCase();
  const added = [...new Set(resolved.filter((name): name is string => !!name).map((name) => name.toLowerCase()))].filter(
    (name) => !written.includes(name),
  );
  return [written, ...added].filter(Boolean).join(' | ');
}

/** Memory that decides the tier: VRAM across cards, unified memory, or system RAM. */
export function memoryGb(hw: NormalisedSpeedTest['hardware']): number | null {
  if (hw.hwClass === 'DISCRETE_GPU') return hw.totalVramGb;
  if (hw.hwClass === 'UNIFIED') return hw.unifiedMemoryGb;
  return hw.ramGb;
}

export function speedTestFacets(
  run: NormalisedSpeedTest,
  model: { params: number | null; family: string | null; is_moe: boolean },
  userVerified: boolean,
): SpeedTestFacets {
  const flags = run.engineFlags ?? {};
  const hw = run.hardware;
  const systemPower = 'powerWatts' in hw ? hw.powerWatts : undefined;
  const costs = run.hardwareCost?.map((item) => convertToUsd(item.price, item.currency));
  return {
    hw_class: hw.hwClass,
    memory_gb: memoryGb(hw),
    hardware_search: hardwareSearchText(hw),
    os_family: osFamily(hw.os),
    engine_name: run.engineName,
    model_params: model.params,
    model_family: model.family?.toLowerCase() ?? null,
    model_is_moe: model.is_moe,
    user_verified: userVerified,
    concurrency: flags.concurrency ?? null,
    kv_cache_dtype: flags.kvCacheDtype ?? null,
    attention_backend: flags.attentionBackend ?? null,
    gpu_layers: flags.gpuLayers ?? null,
    tensor_parallel: flags.tensorParallel ?? null,
    spec_decoding: flags.specDecoding === true,
    mtp_enabled: flags.mtpEnabled === true,
    // Measured watts win over the declared figure.
    power_watts: run.totalPowerWatts ?? systemPower ?? null,
    hardware_cost_usd: costs && costs.length > 0 && costs.every((c) => c !== null) ? costs.reduce((a, b) => a! + b!, 0) : null,
    recipe_device_key: deviceKeyOf(hw),
  };
}

/** The hardware_profiles row of a normalised profile (without its content hash). */
export function hardwareProfileRow(hw: NormalisedSpeedTest['hardware']) {
  const get = <K extends string>(key: K) => (hw as Record<string, unknown>)[key] ?? null;
  return {
    hw_class: hw.hwClass,
    gpu_name: get('gpuName'),
    gpu_count: get('gpuCount'),
    vram_gb: get('vramGb'),
    total_vram_gb: get('totalVramGb'),
    is_heterogeneous_gpu: get('isHeterogeneousGpu') ?? false,
    chip_vendor: get('chipVendor'),
    chip_family: get('chipFamily'),
    chip_variant: get('chipVariant'),
    unified_memory_gb: get('unifiedMemoryGb'),
    cpu: get('cpu'),
    ram_gb: get('ramGb'),
    os: get('os'),
    // What the hardware filters match profiles on (runs carry the same copies).
    memory_gb: memoryGb(hw),
    os_family: osFamily(hw.os),
    hardware_search: hardwareSearchText(hw),
    recipe_device_key: deviceKeyOf(hw),
    details: JSON.stringify(hw),
  };
}
