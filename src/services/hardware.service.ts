import { NotFound } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import type { ServiceDeps } from './deps.ts';
import { createSpeedTestReads, type Page, type SpeedTestFilter } from './speed-test-reads.ts';

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
