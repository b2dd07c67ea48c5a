import type { Db } from '../db/knex.ts';
import { contentHash } from '../lib/canonical-json.ts';
import { NotFound } from '../lib/errors.ts';
import { hardwareProfileRow } from '../lib/speed-test-facets.ts';
import type { NormalisedHardware } from '../lib/speed-test-normalise.ts';
import { messages } from '../messages.ts';
import type { ServiceDeps } from './deps.ts';
import { createSpeedTestReads, type Page, type SpeedTestFilter } from './speed-test-reads.ts';

/** Identical setups share one row: insert by content hash, or find the existing one. */
export async function upsertByContentHash(trx: Db, table: 'hardware_profiles' | 'engines', row: Record<string, unknown>, content: unknown): Promise<string> {
  const hash = contentHash(content);
  await trx(table).insert({ ...row, content_hash: hash }).onConflict('content_hash').ignore();
  return (await trx(table).where({ content_hash: hash }).first('id')).id;
}

/** The id of the hardware profile of `hardware` (speed-test and quality runs share profiles). */
export function upsertHardwareProfile(trx: Db, hardware: NormalisedHardware): Promise<string> {
  return upsertByContentHash(trx, 'hardware_profiles', hardwareProfileRow(hardware), hardware);
}

/** Hardware profiles: the de-duplicated machines runs were measured on. */
export function createHardwareService(deps: Pick<ServiceDeps, 'db' | 'profile'>) {
  const { db } = deps;
  const reads = createSpeedTestReads(deps);
  return {
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
