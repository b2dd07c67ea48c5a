import { createHash } from 'node:crypto';
import { BadRequest, Conflict, NotFound } from '../lib/errors.ts';
import type { ServiceDeps } from './deps.ts';
import type { z } from 'zod';
import { STORAGE_LIMITS, type StorageKind, type uploadRequestSchema } from '../schemas/storage.schema.ts';

/**
 * Owned storage for quality datasets and artifacts ("owned storage references" in the spec):
 * an upload is announced (kind, name, type, size, SHA-256), its bytes arrive on a signed PUT
 * and are checked against the announcement, and `complete` finishes it. The bytes are
 * Postgres `bytea` rows (table `storage_objects`), like the images service's; nothing outside
 * this service knows, so an object store could take its place behind the same interface.
 */

export type UploadAnnouncement = z.output<typeof uploadRequestSchema>;

interface StorageRow {
  id: string;
  owner_user_id: string;
  kind: StorageKind;
  filename: string;
  content_type: string;
  format: string;
  byte_size: string | number;
  sha256: string;
  item_count: number | null;
  uploaded_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
}

const DESCRIPTION_COLUMNS = [
  'id',
  'owner_user_id',
  'kind',
  'filename',
  'content_type',
  'format',
  'byte_size',
  'sha256',
  'item_count',
  'uploaded_at',
  'completed_at',
  'created_at',
] as const;

/** A stored object as the API describes it (never its bytes). */
function toStorageObject(row: StorageRow) {
  return {
    key: row.id,
    kind: row.kind,
    filename: row.filename,
    contentType: row.content_type,
    format: row.format,
    byteSize: Number(row.byte_size),
    sha256: row.sha256,
    itemCount: row.item_count,
    uploaded: row.uploaded_at !== null,
    completedAt: row.completed_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}
export type StorageObject = ReturnType<typeof toStorageObject>;

export const storageMessages = {
  notFound: 'Storage object not found',
  quotaObjects: `Storage limit reached: at most ${STORAGE_LIMITS.userObjects} objects per user`,
  quotaBytes: 'Storage limit reached: at most 1 GiB per user',
  sizeMismatch: (expected: number, got: number) => `The upload has ${got} bytes; upload-url announced ${expected}`,
  hashMismatch: 'The upload does not hash to the SHA-256 that upload-url announced',
  alreadyComplete: 'This object is complete; ask for a new upload URL to store other bytes',
  notUploaded: 'Nothing was uploaded to this object yet: PUT the bytes to its uploadUrl first',
} as const;

/** Keys are object ids: anything else names nothing (and never reaches Postgres as a bad uuid). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createStorageService({ db, clock }: Pick<ServiceDeps, 'db' | 'clock'>) {
  const byKey = (key: string) => (UUID.test(key) ? db<StorageRow>('storage_objects').where({ id: key }) : null);

  async function describe(key: string): Promise<StorageRow | undefined> {
    return byKey(key)?.first<StorageRow | undefined>([...DESCRIPTION_COLUMNS]);
  }

  return {
    /**
     * Announces an upload: within the per-user limits (objects and bytes, announced ones
     * counted), a new object that waits for its bytes. The user's row lock keeps two
     * announcements from passing the limits together.
     */
    async announce(userId: string, upload: UploadAnnouncement): Promise<StorageObject> {
      return db.transaction(async (trx) => {
        await trx('users').where({ id: userId }).forUpdate().first('id');
        const { count, bytes } = (await trx('storage_objects')
          .where({ owner_user_id: userId })
          .first(trx.raw('count(*)::int as count'), trx.raw('coalesce(sum(byte_size), 0)::bigint as bytes'))) as {
          count: number;
          bytes: string;
        };
        if (count >= STORAGE_LIMITS.userObjects) throw new Conflict(storageMessages.quotaObjects);
        if (Number(bytes) + upload.byteSize > STORAGE_LIMITS.userBytes) throw new Conflict(storageMessages.quotaBytes);
        const [row] = await trx('storage_objects')
          .insert({
            owner_user_id: userId,
            kind: upload.kind,
            filename: upload.filename,
            content_type: upload.contentType,
            format: upload.format,
            byte_size: upload.byteSize,
            sha256: upload.sha256.toLowerCase(),
            item_count: upload.itemCount ?? null,
          })
          .returning<StorageRow[]>([...DESCRIPTION_COLUMNS]);
        return toStorageObject(row!);
      });
    },

    /** The bytes of an announced upload, checked against its size and SHA-256 (a retry may send them again until it is completed). */
    async receive(key: string, bytes: Buffer): Promise<StorageObject> {
      const row = await describe(key);
      if (!row) throw new NotFound(storageMessages.notFound);
      if (row.completed_at) throw new Conflict(storageMessages.alreadyComplete);
      const size = Number(row.byte_size);
      if (bytes.length !== size) throw new BadRequest(storageMessages.sizeMismatch(size, bytes.length));
      if (createHash('sha256').update(bytes).digest('hex') !== row.sha256) throw new BadRequest(storageMessages.hashMismatch);
      const [updated] = await db('storage_objects')
        .where({ id: key })
        .whereNull('completed_at')
        .update({ bytes, uploaded_at: clock.now() })
        .returning<StorageRow[]>([...DESCRIPTION_COLUMNS]);
      if (!updated) throw new Conflict(storageMessages.alreadyComplete);
      return toStorageObject(updated);
    },

    /** Finishes the owner's uploaded object (again: the same answer). Another user's is not found. */
    async complete(userId: string, key: string): Promise<StorageObject> {
      const row = await describe(key);
      if (!row || row.owner_user_id !== userId) throw new NotFound(storageMessages.notFound);
      if (!row.uploaded_at) throw new Conflict(storageMessages.notUploaded);
      if (row.completed_at) return toStorageObject(row);
      const [updated] = await db('storage_objects')
        .where({ id: key })
        .update({ completed_at: clock.now() })
        .returning<StorageRow[]>([...DESCRIPTION_COLUMNS]);
      return toStorageObject(updated!);
    },

    /**
     * A completed object the caller may download: its owner's, or anyone's once an approved
     * suite or dataset names its key. Others are not found (never reveal existence).
     */
    async downloadable(viewerId: string | null, key: string): Promise<StorageObject> {
      const row = await describe(key);
      if (!row?.completed_at) throw new NotFound(storageMessages.notFound);
      if (row.owner_user_id === viewerId) return toStorageObject(row);
      const used =
        (await db('quality_suites').where({ status: 'APPROVED' }).whereRaw('position(? in suite_doc::text) > 0', [key]).first('id')) ??
        (await db('quality_datasets')
          .where({ status: 'APPROVED' })
          .whereRaw("position(? in coalesce(source_url, '')) > 0", [key])
          .first('id'));
      if (!used) throw new NotFound(storageMessages.notFound);
      return toStorageObject(row);
    },

    /** The bytes of a completed object (a signed URL was checked before). */
    async content(key: string): Promise<{ bytes: Buffer; contentType: string; filename: string } | null> {
      const row = await byKey(key)
        ?.whereNotNull('completed_at')
        .first<{ bytes: Buffer; content_type: string; filename: string } | undefined>('bytes', 'content_type', 'filename');
      return row ? { bytes: row.bytes, contentType: row.content_type, filename: row.filename } : null;
    },

    /** The scheduled sweep: deletes uploads never completed within 24 hours; returns how many went. */
    async sweepUnfinished(now: Date): Promise<number> {
      return db('storage_objects')
        .whereNull('completed_at')
        .where('created_at', '<', new Date(now.getTime() - STORAGE_LIMITS.unfinishedMs))
        .delete();
    },
  };
}

export type StorageService = ReturnType<typeof createStorageService>;
