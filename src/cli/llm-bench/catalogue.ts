/**
 * Detected hardware names mapped to the leaderboard's canonical names, from the catalogue
 * the server publishes (`hardwareOptions` of GET /api/agent-context). The matching rules are
 * the server's own (src/lib/hardware-lookup.ts); a name the server's catalogue does not list
 * is kept as detected, and said so.
 */
import { findCpu, findGpu, findUnifiedChip, normaliseHardwareName } from '../../lib/hardware-lookup.ts';
import type { Hardware } from './hardware.ts';

export interface HardwareOptions {
  gpus?: { name: string }[];
  unifiedChips?: { name: string; chipVendor: string; chipFamily: string; chipVariant: string }[];
  cpus?: { name: string }[];
}

export interface Mapped {
  hardware: Hardware;
  /** `detected -> canonical` for each renamed part, and names left as detected. */
  notes: string[];
}

function canonical(detected: string, found: string | undefined, listed: { name: string }[] | undefined): string | undefined {
  const names = listed ?? [];
  if (found && names.some((item) => item.name === found)) return found;
  const key = normaliseHardwareName(detected);
  return names.find((item) => normaliseHardwareName(item.name) === key)?.name;
}

export function mapToCatalogue(hardware: Hardware, options: HardwareOptions): Mapped {
  const notes: string[] = [];
  const rename = (detected: string, found: string | undefined, listed: { name: string }[] | undefined) => {
    const name = canonical(detected, found, listed);
    if (!name) notes.push(`"${detected}" is not in the leaderboard's catalogue: kept as detected`);
    else if (name !== detected) notes.push(`"${detected}" -> "${name}"`);
    return name ?? detected;
  };
  const hw = { ...hardware } as Record<string, any>;
  if (hw.cpu) hw.cpu = rename(hw.cpu, findCpu(hw.cpu)?.spec.name, options.cpus);
  if (hw.hwClass === 'DISCRETE_GPU') {
    if (hw.gpus)
      hw.gpus = hw.gpus.map((slot: Record<string, any>) => ({
        ...slot,
        gpuName: rename(slot.gpuName, findGpu(slot.gpuName, slot.vramGb)?.spec.name, options.gpus),
      }));
    else hw.gpuName = rename(hw.gpuName, findGpu(hw.gpuName, hw.vramGb)?.spec.name, options.gpus);
  }
  if (hw.hwClass === 'UNIFIED') {
    const found = findUnifiedChip(hw.chipVendor, hw.chipFamily, hw.chipVariant, hw.unifiedMemoryGb)?.spec;
    const chip = found && options.unifiedChips?.find((item) => item.name === found.name);
    if (chip) Object.assign(hw, { chipVendor: chip.chipVendor, chipFamily: chip.chipFamily, chipVariant: chip.chipVariant });
    else notes.push(`chip "${hw.chipVendor} ${hw.chipFamily} ${hw.chipVariant}" is not in the leaderboard's catalogue: kept as detected`);
  }
  return { hardware: hw as Hardware, notes };
}
