import type { Db } from '../db/knex.ts';
import { BadRequest, Conflict, NotFound } from '../lib/errors.ts';
import {
  deviceFactsOfRow,
  deviceOf,
  deviceSlug,
  writtenNamesOf,
  type DeviceColumns,
  type DeviceFacts,
  type WrittenName,
} from '../lib/hardware-devices.ts';
import { findCpu, findGpu, findUnifiedChip } from '../lib/hardware-lookup.ts';
import { catalogueEntry, hardwareNameKey, setHardwareMappings, type HardwareNameMapping } from '../lib/hardware-mappings.ts';
import type { Kind } from '../lib/hardware-names.ts';
import { messages } from '../messages.ts';
import { RUN_CHANGES_CHANNEL, HARDWARE_NAMES_NOTICE } from '../runs/read-index/read-index.ts';
import { refreshHardwareSearch } from '../runs/submission/hardware-search.ts';
import type { AdminActor } from './audit.service.ts';
import type { ServiceDeps, Transactional } from './deps.ts';
import { writeVisibly } from './visible-writes.ts';

/** One name no catalogue device matched, with the approved runs written with it. */
export interface UnresolvedName extends WrittenName {
  runs: number;
  profiles: number;
}

/** A stored mapping as the admin page lists it. */
export interface MappedName extends WrittenName {
  deviceName: string;
  deviceSlug: string;
  mappedBy: string;
  mappedAt: Date;
}

/** Each kind as the page and the audit log name it. */
export const hardwareKindLabels: Record<Kind, string> = { gpu: 'GPU', chip: 'Chip', cpu: 'CPU' };

interface MappingRow {
  id: string;
  kind: Kind;
  name_key: string;
  written_name: string;
  device_name: string;
  mapped_by_username: string;
  mapped_at: Date;
}

interface ProfileRow extends DeviceColumns {
  id: string;
  details: { gpus?: { gpuName: string }[] | null };
}

const mappingOf = (row: Pick<MappingRow, 'kind' | 'written_name' | 'device_name'>): HardwareNameMapping => ({
  kind: row.kind,
  writtenName: row.written_name,
  deviceName: row.device_name,
});

/**
 * Loads the stored mappings into the resolver's in-memory copy (src/lib/hardware-mappings.ts):
 * at start-up, after a write, and when an instance hears of another's write.
 */
export async function reloadHardwareMappings(db: Db): Promise<void> {
  setHardwareMappings((await db<MappingRow>('hardware_name_mappings').select('kind', 'written_name', 'device_name')).map(mappingOf));
}

const factsOf = (row: ProfileRow): DeviceFacts & { gpus?: { gpuName: string }[] | null } => ({
  ...deviceFactsOfRow(row),
  gpus: row.details?.gpus ?? null,
});

/** The catalogue name the resolver gives a written name of this kind by itself, or null. */
function resolvesTo(kind: Kind, name: string): string | null {
  if (kind === 'gpu') return findGpu(name)?.spec.name ?? null;
  if (kind === 'chip') return findUnifiedChip(name, '', '')?.spec.name ?? null;
  return findCpu(name)?.spec.name ?? null;
}

/**
 * Hardware names as runs write them, and the admins' mappings of names no catalogue device
 * matched (DECISIONS.md "Hardware identity"). A mapping changes how the name resolves
 * everywhere (device pages, filters, compare, charts, verdicts): the runs keep the name.
 */
export function createHardwareNamesService(deps: Pick<ServiceDeps, 'db' | 'readIndex'> & Transactional) {
  const { db, withTransaction } = deps;

  async function profiles(trx: Db = db): Promise<ProfileRow[]> {
    return trx('hardware_profiles').select('id', 'hw_class', 'gpu_name', 'chip_vendor', 'chip_family', 'chip_variant', 'cpu', 'details');
  }

  /** Profiles that write `name` as a name of this kind: their resolution follows its mapping. */
  async function profilesWriting(trx: Db, kind: Kind, name: string): Promise<string[]> {
    const key = hardwareNameKey(name);
    return (await profiles(trx))
      .filter((row) => writtenNamesOf(factsOf(row)).some((written) => written.kind === kind && hardwareNameKey(written.name) === key))
      .map((row) => row.id);
  }

  /**
   * One mapping change, in one transaction: the row, the audit entry, the resolver's copy, the
   * search text and verdicts of the runs written with the name, and a notice to the other
   * instances. The copy is set inside the transaction (the runs are re-judged by it); if the
   * transaction fails, it is loaded again from what is committed.
   */
  async function change(
    actor: AdminActor,
    kind: Kind,
    name: string,
    write: (trx: Db, existing: MappingRow | undefined) => Promise<{ id: string; before: string; after: string }>,
  ) {
    try {
      return await writeVisibly(deps, async (trx) => {
        const existing = await trx<MappingRow>('hardware_name_mappings')
          .where({ kind, name_key: hardwareNameKey(name) })
          .forUpdate()
          .first();
        const { id, before, after } = await write(trx, existing);
        await withTransaction(trx).audit.record(actor, {
          action: after === 'unresolved' ? 'hardware_name.unmap' : 'hardware_name.map',
          targetKind: 'hardware_name',
          targetId: id,
          targetLabel: `${hardwareKindLabels[kind]} ${existing?.written_name ?? name}`,
          reason: `before: ${before}; after: ${after}`,
        });
        await reloadHardwareMappings(trx);
        const affected = await profilesWriting(trx, kind, name);
        let rejudged = 0;
        if (affected.length > 0) {
          await refreshHardwareSearch(trx, affected);
          rejudged = await withTransaction(trx).plausibility.recompute({ hardwareIds: affected });
        }
        // Ordered with the run notices: other instances load the mappings before their next reads of these runs.
        await trx.raw('select pg_notify(?, ?)', [RUN_CHANGES_CHANNEL, HARDWARE_NAMES_NOTICE]);
        return { profiles: affected.length, rejudged };
      });
    } finally {
      // What is committed (the change, or what was there if it failed) is what this instance resolves by.
      await reloadHardwareMappings(db);
    }
  }

  return {
    /**
     * Names of devices no catalogue entry (or mapping) matched, per kind of device, with the
     * approved runs written with them, most runs first.
     */
    async unresolved(): Promise<UnresolvedName[]> {
      const [rows, counts] = await Promise.all([
        profiles(),
        db('speed_test_run_counts').where('dimension', 'hardwareId').select('value', 'n') as Promise<{ value: string; n: string }[]>,
      ]);
      const runsOf = new Map(counts.map((row) => [row.value, Number(row.n)]));
      const byName = new Map<string, UnresolvedName & { spelling: { name: string; runs: number } }>();
      for (const row of rows) {
        const runs = runsOf.get(row.id) ?? 0;
        if (runs === 0) continue;
        const facts = factsOf(row);
        if (deviceOf(facts).catalogue) continue;
        const written = writtenNamesOf(facts)[0];
        if (!written || (written.kind === 'cpu') !== (row.hw_class === 'CPU_ONLY')) continue;
        const key = `${written.kind}:${hardwareNameKey(written.name)}`;
        const entry = byName.get(key) ?? { ...written, runs: 0, profiles: 0, spelling: { name: written.name, runs } };
        entry.runs += runs;
        entry.profiles += 1;
        // Shown as its most common spelling (then the first in code-point order), whatever order the profiles come in.
        const { spelling } = entry;
        if (runs > spelling.runs || (runs === spelling.runs && written.name < spelling.name)) entry.spelling = { name: written.name, runs };
        entry.name = entry.spelling.name;
        byName.set(key, entry);
      }
      return [...byName.values()]
        .map(({ spelling: _spelling, ...entry }) => entry)
        .sort((a, b) => b.runs - a.runs || a.name.localeCompare(b.name));
    },

    /** The stored mappings, newest first. */
    async mapped(): Promise<MappedName[]> {
      const rows = await db<MappingRow>('hardware_name_mappings').orderBy([
        { column: 'mapped_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ]);
      return rows.map((row) => ({
        kind: row.kind,
        name: row.written_name,
        deviceName: row.device_name,
        deviceSlug: deviceSlug(row.device_name),
        mappedBy: row.mapped_by_username,
        mappedAt: row.mapped_at,
      }));
    },

    /**
     * Maps a written name to a catalogue device of its kind (or changes its mapping). A device
     * name the catalogue does not hold is a 400; a name the resolver already places is a 409.
     */
    async map(actor: AdminActor, input: { kind: Kind; name: string; deviceName: string }) {
      const device = catalogueEntry(input.kind, input.deviceName);
      if (!device) throw new BadRequest(messages.hardwareMappingUnknownDevice(hardwareKindLabels[input.kind], input.deviceName));
      return change(actor, input.kind, input.name, async (trx, existing) => {
        if (!existing) {
          const resolved = resolvesTo(input.kind, input.name);
          if (resolved) throw new Conflict(messages.hardwareMappingAlreadyResolved(input.name, resolved));
        }
        const [row] = await trx('hardware_name_mappings')
          .insert({
            kind: input.kind,
            name_key: hardwareNameKey(input.name),
            written_name: existing?.written_name ?? input.name.trim().replace(/\s+/g, ' '),
            device_name: device.spec.name,
            mapped_by: actor.id,
            mapped_by_username: actor.username,
            mapped_at: trx.fn.now(),
          })
          .onConflict(['kind', 'name_key'])
          .merge(['device_name', 'mapped_by', 'mapped_by_username', 'mapped_at'])
          .returning('id');
        return { id: row.id as string, before: existing?.device_name ?? 'unresolved', after: device.spec.name };
      });
    },

    /** Removes a name's mapping: it is unresolved again. NotFound when the name has none. */
    async unmap(actor: AdminActor, input: { kind: Kind; name: string }) {
      return change(actor, input.kind, input.name, async (trx, existing) => {
        if (!existing) throw new NotFound(messages.hardwareMappingNotFound);
        await trx('hardware_name_mappings').where({ id: existing.id }).delete();
        return { id: existing.id, before: existing.device_name, after: 'unresolved' };
      });
    },
  };
}

export type HardwareNamesService = ReturnType<typeof createHardwareNamesService>;
