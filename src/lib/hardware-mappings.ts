/**
 * Names an admin placed on a catalogue device (DECISIONS.md "Hardware identity": names no
 * device matched are mapped on /admin/hardware). The mappings live in Postgres
 * (`hardware_name_mappings`); this module is the in-memory copy the resolver reads
 * (`resolveName` in hardware-names.ts asks it first), so the resolver stays synchronous and
 * pure. The hardware-names service replaces the copy at start-up, after its own writes, and
 * when another instance notifies a change (src/runs/read-index/read-index.ts).
 */
import { cpus, gpus, unifiedChips } from '../data/hardware-catalogue.ts';
import type { Entry, Kind } from './hardware-names.ts';

/** One stored mapping: a name as written (of one kind of device) and the catalogue name it stands for. */
export interface HardwareNameMapping {
  kind: Kind;
  /** The name as runs write it: a GPU name, a chip's vendor/family/variant joined (`chipText`), a CPU. */
  writtenName: string;
  /** A canonical catalogue name of that kind. */
  deviceName: string;
}

/** How a written name is compared: case, surrounding and repeated white space ignored. */
export function hardwareNameKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

const catalogueByKind: Record<Kind, Map<string, Entry>> = {
  gpu: new Map(gpus.map((spec) => [hardwareNameKey(spec.name), { kind: 'gpu', spec }] as const)),
  chip: new Map(unifiedChips.map((spec) => [hardwareNameKey(spec.name), { kind: 'chip', spec }] as const)),
  cpu: new Map(cpus.map((spec) => [hardwareNameKey(spec.name), { kind: 'cpu', spec }] as const)),
};

/** The catalogue entry with exactly this canonical name (any case) of this kind, or null. */
export function catalogueEntry(kind: Kind, deviceName: string): Entry | null {
  return catalogueByKind[kind].get(hardwareNameKey(deviceName)) ?? null;
}

// One copy per process even if a test runner loads this module twice (ESM and CommonJS).
const overlayKey = Symbol.for('llm-bench.hardware-name-mappings');
type Overlay = Record<Kind, Map<string, Entry>>;
const store = globalThis as unknown as Record<symbol, Overlay | undefined>;
const emptyOverlay = (): Overlay => ({ gpu: new Map(), chip: new Map(), cpu: new Map() });

/**
 * Replaces the mappings the resolver applies. A mapping whose device the catalogue no longer
 * names is left out (the name is unresolved again, and the page shows it as such).
 */
export function setHardwareMappings(mappings: readonly HardwareNameMapping[]): void {
  const overlay = emptyOverlay();
  for (const mapping of mappings) {
    const entry = catalogueEntry(mapping.kind, mapping.deviceName);
    if (entry) overlay[mapping.kind].set(hardwareNameKey(mapping.writtenName), entry);
  }
  store[overlayKey] = overlay;
}

/** The device a written name is mapped to, among `kinds` (in their order), or null. */
export function mappedEntry(text: string, kinds: readonly Kind[]): Entry | null {
  const overlay = store[overlayKey];
  if (!overlay) return null;
  const key = hardwareNameKey(text);
  for (const kind of kinds) {
    const entry = overlay[kind].get(key);
    if (entry) return entry;
  }
  return null;
}
