import { type Device, type DeviceFacts, deviceOf } from './hardware-devices.ts';

/**
 * Pure rules of the marketplace: the feed's cursor, and what a listing's proof runs show
 * (best output tok/s, dollars per output tok/s, whether they ran on the listed hardware).
 */

// ---------------------------------------------------------------------------
// Feed cursor
// ---------------------------------------------------------------------------

/** The feed's position: the exact stored `updated_at` text (microseconds, UTC) and the id of the last listing given. */
export interface FeedPosition {
  updatedAt: string;
  id: string;
}

// What to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') writes.
const STORED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Opaque to clients: base64url of the JSON pair. */
export function encodeFeedCursor(position: FeedPosition): string {
  return Buffer.from(JSON.stringify([position.updatedAt, position.id]), 'utf8').toString('base64url');
}

/** The position a cursor names, or null when it is not one this feed gave out (tampered, truncated, made up). */
export function decodeFeedCursor(cursor: string): FeedPosition | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  let pair: unknown;
  try {
    pair = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(pair) || pair.length !== 2) return null;
  const [updatedAt, id] = pair as unknown[];
  if (typeof updatedAt !== 'string' || typeof id !== 'string' || !STORED_TIMESTAMP.test(updatedAt) || !UUID.test(id)) return null;
  // A real instant (not 30 February, which Date.parse rolls over but Postgres refuses).
  const instant = Date.parse(updatedAt);
  if (Number.isNaN(instant) || new Date(instant).toISOString().slice(0, 19) !== updatedAt.slice(0, 19)) return null;
  return { updatedAt, id };
}

// ---------------------------------------------------------------------------
// Proof runs
// ---------------------------------------------------------------------------

/** What the proof rules read of a stored run (its document). */
export interface ProofRun {
  id: string;
  tokSOut?: number | null;
  model?: { hfId?: string } | null;
  hardware?: Record<string, unknown> | null;
}

export interface ProofSummary {
  bestTokSOut: number | null;
  bestRunId: string | null;
  bestModel: string | null;
  usdPerTokSOut: number | null;
  matchesListing: boolean | null;
}

/** The names of the hardware a run ran on: its GPU (each card of a mixed set), its chip, its CPU. */
export function runHardwareNames(hardware: Record<string, unknown> | null | undefined): string[] {
  if (!hardware) return [];
  const names: string[] = [];
  const add = (value: unknown) => typeof value === 'string' && value.trim() !== '' && names.push(value);
  add(hardware.gpuName);
  if (Array.isArray(hardware.gpus)) for (const slot of hardware.gpus) add((slot as Record<string, unknown> | null)?.gpuName);
  if (hardware.chipFamily) add([hardware.chipVendor, hardware.chipFamily, hardware.chipVariant].filter(Boolean).join(' '));
  add(hardware.cpu);
  return names;
}

/** What a listing says it sells: its class and the name of its GPU, chip or CPU. */
export interface ListedHardware {
  hwClass: string;
  hardwareName: string;
}

/** The device a listing names, resolved as a run's hardware is (the catalogue's name, or the name as written). */
export function listedDevice(listing: ListedHardware): Device | null {
  const name = listing.hardwareName.trim();
  if (name === '') return null;
  // The name goes in every field its class reads: a chip's three fields are joined before matching.
  return deviceOf({ hwClass: listing.hwClass, gpuName: name, chipFamily: name, cpu: name });
}

/** The devices a run ran on: its device (as its device page names it) and each card of a mixed set. */
export function runDeviceSlugs(hardware: Record<string, unknown> | null | undefined): string[] {
  if (!hardware) return [];
  const slugs = [deviceOf(hardware as unknown as DeviceFacts).slug];
  if (Array.isArray(hardware.gpus)) {
    for (const slot of hardware.gpus) {
      const gpuName = (slot as Record<string, unknown> | null)?.gpuName;
      if (typeof gpuName === 'string' && gpuName.trim() !== '') slugs.push(deviceOf({ hwClass: 'DISCRETE_GPU', gpuName }).slug);
    }
  }
  return slugs;
}

/**
 * Whether a run ran on the listed hardware: the listing's name and the run's hardware resolve
 * to the same device (the hardware catalogue's entry, so case, brand words and "RTX4090" vs
 * "RTX 4090" do not matter; a name it does not know compares by its address form).
 */
export function ranOnListedHardware(listing: ListedHardware, hardware: Record<string, unknown> | null | undefined): boolean {
  const device = listedDevice(listing);
  return device !== null && runDeviceSlugs(hardware).includes(device.slug);
}

/**
 * What the proof shows. The best figure is over every proof run; the value (USD per output
 * tok/s) only over runs on the listed hardware, so a listing is never ranked by a card it
 * does not sell (null when none of its proof ran on it).
 */
export function summariseProof(runs: readonly ProofRun[], listing: ListedHardware & { priceUsd: number }): ProofSummary {
  const best = fastest(runs);
  const onListed = runs.filter((run) => ranOnListedHardware(listing, run.hardware));
  const bestOnListed = fastest(onListed);
  return {
    bestTokSOut: best ? (best.tokSOut as number) : null,
    bestRunId: best?.id ?? null,
    bestModel: best?.model?.hfId ?? null,
    usdPerTokSOut: bestOnListed ? Math.round((listing.priceUsd / (bestOnListed.tokSOut as number)) * 100) / 100 : null,
    matchesListing: runs.length === 0 ? null : onListed.length === runs.length,
  };
}

/** The run with the highest positive output tok/s (the first of equals), or null. */
function fastest(runs: readonly ProofRun[]): ProofRun | null {
  let best: ProofRun | null = null;
  for (const run of runs) {
    if (typeof run.tokSOut === 'number' && run.tokSOut > 0 && (!best || run.tokSOut > (best.tokSOut as number))) best = run;
  }
  return best;
}
