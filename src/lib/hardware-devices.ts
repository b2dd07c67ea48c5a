/**
 * Devices: the GPU, unified-memory chip or CPU a hardware profile runs on, named as the
 * hardware catalogue names it (a name the catalogue does not know is kept as submitted), with
 * a readable address (`/hardware/nvidia-rtx-4090`). Many profiles (one card with different
 * CPUs, RAM or OS; one, two or four cards) share one device.
 */
import type { CpuSpec, GpuSpec, UnifiedChipSpec } from '../data/hardware-catalogue.ts';
import { findDevice } from './hardware-lookup.ts';
import { hardwareNameKey } from './hardware-mappings.ts';
import { chipText, type Kind } from './hardware-names.ts';

export type DeviceKind = 'GPU' | 'chip' | 'CPU';

export type DeviceSpec = { kind: 'GPU'; spec: GpuSpec } | { kind: 'chip'; spec: UnifiedChipSpec } | { kind: 'CPU'; spec: CpuSpec };

export interface Device {
  slug: string;
  name: string;
  kind: DeviceKind;
  /** The catalogue's entry, when it knows the device. */
  catalogue: DeviceSpec | null;
}

/** The facts of a profile that name its device (the profile columns, camel-cased). */
export interface DeviceFacts {
  hwClass: string;
  gpuName?: string | null;
  chipVendor?: string | null;
  chipFamily?: string | null;
  chipVariant?: string | null;
  cpu?: string | null;
}

/** A `hardware_profiles` row's device-naming columns, as stored. */
export interface DeviceColumns {
  hw_class: string;
  gpu_name: string | null;
  chip_vendor: string | null;
  chip_family: string | null;
  chip_variant: string | null;
  cpu: string | null;
}

/** The device facts of a stored profile row. */
export const deviceFactsOfRow = (row: DeviceColumns): DeviceFacts => ({
  hwClass: row.hw_class,
  gpuName: row.gpu_name,
  chipVendor: row.chip_vendor,
  chipFamily: row.chip_family,
  chipVariant: row.chip_variant,
  cpu: row.cpu,
});

/** Brand words that only lengthen an address ('NVIDIA GeForce RTX 4090' -> nvidia-rtx-4090). */
const BRAND_WORDS = /\b(geforce|radeon)\b|\((tm|r)\)|[™®©]/gi;

/** `nvidia-rtx-4090`: lower case letters and digits joined by single dashes. */
export function deviceSlug(name: string): string {
  return name
    .replace(BRAND_WORDS, ' ')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\+/g, ' plus ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** A slug as `deviceSlug` writes them (anything else names no device). */
export const DEVICE_SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

function named(name: string, kind: DeviceKind, catalogue: DeviceSpec | null): Device {
  return { slug: deviceSlug(name) || 'unnamed', name, kind, catalogue };
}

/** The kind a catalogue entry is shown as. */
const KIND_OF_ENTRY = { gpu: 'GPU', chip: 'chip', cpu: 'CPU' } as const;

/**
 * The device of a hardware profile: whatever kind of catalogue device its name stands for,
 * read as the bandwidth path reads it (`findDevice`), so an integrated GPU given as a card or
 * a CPU-only run on a unified chip names that chip.
 */
export function deviceOf(facts: DeviceFacts): Device {
  if (facts.hwClass === 'UNIFIED') {
    const [vendor, family, variant] = [facts.chipVendor ?? '', facts.chipFamily ?? '', facts.chipVariant ?? ''];
    const found = family.trim() ? findDevice('UNIFIED', chipText(vendor, family, variant)) : null;
    if (found) return catalogued(found);
    return named([vendor, family, variant === 'Base' ? '' : variant].filter(Boolean).join(' ').trim() || 'Unknown chip', 'chip', null);
  }
  if (facts.hwClass === 'CPU_ONLY') {
    const cpu = (facts.cpu ?? '').trim();
    const found = cpu ? findDevice('CPU_ONLY', cpu) : null;
    if (found) return catalogued(found);
    return named(cpu || 'Unknown CPU', 'CPU', null);
  }
  const gpu = (facts.gpuName ?? '').trim();
  const found = gpu ? findDevice('DISCRETE_GPU', gpu) : null;
  if (found) return catalogued(found);
  return named(gpu || 'Unknown GPU', 'GPU', null);
}

function catalogued(entry: NonNullable<ReturnType<typeof findDevice>>): Device {
  const kind = KIND_OF_ENTRY[entry.kind];
  return named(entry.spec.name, kind, { kind, spec: entry.spec } as DeviceSpec);
}

/** A name as a profile writes it, with the kind of device it names (what an admin maps on /admin/hardware). */
export interface WrittenName {
  kind: Kind;
  name: string;
}

/**
 * The names a profile writes, the device's first: its GPU name (and each card of a mixed
 * profile), a chip's vendor/family/variant joined as the resolver reads them, the CPU. Each
 * is what a mapping of that kind matches (`hardwareNameKey`); empty names are left out.
 */
export function writtenNamesOf(facts: DeviceFacts & { gpus?: { gpuName: string }[] | null }): WrittenName[] {
  const names: WrittenName[] = [];
  const add = (kind: Kind, name: string | null | undefined) => {
    const written = (name ?? '').trim().replace(/\s+/g, ' ');
    if (written && !names.some((other) => other.kind === kind && hardwareNameKey(other.name) === hardwareNameKey(written)))
      names.push({ kind, name: written });
  };
  if (facts.hwClass === 'UNIFIED') add('chip', chipText(facts.chipVendor ?? '', facts.chipFamily ?? '', facts.chipVariant ?? ''));
  else if (facts.hwClass === 'DISCRETE_GPU') {
    add('gpu', facts.gpuName);
    for (const slot of facts.gpus ?? []) add('gpu', slot.gpuName);
  }
  add('cpu', facts.cpu);
  return names;
}
