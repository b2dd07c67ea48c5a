import type { Db } from '../db/knex.ts';
import { contentHash } from '../lib/canonical-json.ts';
import { deviceFactsOfRow, deviceOf, type Device, type DeviceColumns } from '../lib/hardware-devices.ts';
import { NotFound } from '../lib/errors.ts';
import { hardwareProfileRow } from '../runs/submission/run-facts.ts';
import type { NormalisedHardware } from '../runs/submission/normalise.ts';
import { messages } from '../messages.ts';
import type { ServiceDeps } from './deps.ts';
import type { Page, SpeedTestDocumentRow, SpeedTestFilter, SpeedTestReads, SpeedTestRun } from '../runs/reads/speed-test-reads.ts';
import { toSpeedTestRun } from '../runs/run-json.ts';

/** Identical setups share one row: insert by content hash, or find the existing one. */
export async function upsertByContentHash(
  trx: Db,
  table: 'hardware_profiles' | 'engines',
  row: Record<string, unknown>,
  content: unknown,
): Promise<string> {
  const hash = contentHash(content);
  await trx(table)
    .insert({ ...row, content_hash: hash })
    .onConflict('content_hash')
    .ignore();
  return (await trx(table).where({ content_hash: hash }).first('id')).id;
}

/** The id of the hardware profile of `hardware` (speed-test and quality runs share profiles). */
export function upsertHardwareProfile(trx: Db, hardware: NormalisedHardware): Promise<string> {
  return upsertByContentHash(trx, 'hardware_profiles', hardwareProfileRow(hardware), hardware);
}

/** A hardware profile under its device: the facts that tell it from its siblings. */
export interface DeviceProfile {
  id: string;
  details: Record<string, unknown>;
  runs: number;
}

/** A device with its profiles (those with approved runs), as the index and its page list them. */
export interface DeviceEntry extends Device {
  profiles: DeviceProfile[];
  runs: number;
}

/** Hardware profiles: the de-duplicated machines runs were measured on, and the devices they run on. */
export function createHardwareService({
  db,
  profile,
  readIndex,
  reads,
}: Pick<ServiceDeps, 'db' | 'profile' | 'readIndex'> & { reads: SpeedTestReads }) {
  /**
   * Every profile with its device, kept per instance while the catalogue is unchanged (new
   * profiles drop it: see "Names resolved through the catalogue" in README); the run counts
   * come fresh from the count table kept by triggers.
   */
  async function devices(): Promise<DeviceEntry[]> {
    const profiles = await (readIndex?.resolved('hardware-devices', loadProfiles) ?? loadProfiles());
    const counts: { value: string; n: string }[] = await db('speed_test_run_counts').where('dimension', 'hardwareId').select('value', 'n');
    const runsOf = new Map(counts.map((row) => [row.value, Number(row.n)]));
    const bySlug = new Map<string, DeviceEntry>();
    for (const { device, id, details } of profiles) {
      const runs = runsOf.get(id) ?? 0;
      if (runs === 0) continue;
      const entry = bySlug.get(device.slug) ?? { ...device, profiles: [], runs: 0 };
      entry.profiles.push({ id, details, runs });
      entry.runs += runs;
      bySlug.set(device.slug, entry);
    }
    for (const entry of bySlug.values()) entry.profiles.sort((a, b) => b.runs - a.runs || a.id.localeCompare(b.id));
    return [...bySlug.values()].sort((a, b) => b.runs - a.runs || a.name.localeCompare(b.name));
  }

  async function loadProfiles() {
    const rows = await db('hardware_profiles').select(
      'id',
      'hw_class',
      'gpu_name',
      'chip_vendor',
      'chip_family',
      'chip_variant',
      'cpu',
      'details',
    );
    return rows.map((row) => ({
      id: row.id as string,
      details: row.details as Record<string, unknown>,
      device: deviceOf(deviceFactsOfRow(row as DeviceColumns)),
    }));
  }

  return {
    /** Devices with approved runs, most runs first. */
    devices,

    /**
     * One device by its slug, and a page of its best single-stream run per model (fastest
     * first; the leaderboard's default view), with the number of models. NotFound when no
     * approved run is on it.
     */
    async device(
      slug: string,
      page: Page,
      viewerId: string | null = null,
    ): Promise<{ device: DeviceEntry; best: SpeedTestRun[]; models: number }> {
      const device = (await devices()).find((entry) => entry.slug === slug);
      if (!device) throw new NotFound(messages.hardwareDeviceNotFound);
      const ids = device.profiles.map((p) => p.id);
      const bestPerModel = db.raw(
        `select distinct on (r.model_id) r.id, r.tok_s_out, r.created_at from speed_test_runs r
         where r.hardware_id = any(?::uuid[]) and r.status = 'APPROVED' and r.active_sequences = 1
         order by r.model_id, r.tok_s_out desc nulls last, r.created_at asc, r.id asc`,
        [ids],
      );
      const [rows, [{ models }]] = await Promise.all([
        reads
          .withDocuments()
          .select(reads.documentColumns(viewerId))
          .join(db.raw('(?) as b', [bestPerModel]), 'b.id', 'r.id')
          .orderByRaw('r.tok_s_out desc nulls last, r.created_at asc, r.id asc')
          .limit(page.limit)
          .offset(page.offset),
        db.from(db.raw('(?) as b', [bestPerModel])).count<{ models: number }[]>('* as models'),
      ]);
      return { device, best: (rows as SpeedTestDocumentRow[]).map((row) => toSpeedTestRun(profile, row)), models: Number(models) };
    },

    /** One hardware profile (as stored) and a page of its approved runs across models, newest first. */
    async get(id: string, page: Page, viewerId: string | null = null) {
      const row = await db('hardware_profiles').where({ id }).first('details');
      if (!row) throw new NotFound(messages.hardwareProfileNotFound);
      const filter: SpeedTestFilter = (q) => q.where('r.hardware_id', id).where('r.status', 'APPROVED');
      const [runs, [{ total }]] = await Promise.all([
        reads.find(filter, page, viewerId),
        db('speed_test_runs as r').modify(filter).count<{ total: number }[]>('* as total'),
      ]);
      return { hardware: { id, ...row.details }, runs, total };
    },
  };
}
