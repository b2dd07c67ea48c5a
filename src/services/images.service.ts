import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { IMAGES_PER_ACCOUNT, UNUSED_REPORT_IMAGES_PER_ACCOUNT } from '../constants.ts';
import type { Db } from '../db/knex.ts';
import { createByteCache, ownBytes, type ByteCache } from '../lib/byte-cache.ts';
import { Unavailable } from '../lib/errors.ts';
import { imageRuleBroken, type ImageContentType, type ProcessedImage } from '../lib/image-pipeline.ts';
import { createWorkQueue } from '../lib/work-queue.ts';
import { messages } from '../messages.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * The image store: images the pipeline (src/lib/image-pipeline.ts) re-encoded, by an
 * unguessable id. Today the bytes are Postgres `bytea` rows (table `images`); nothing outside
 * this service knows, so an object store could take its place behind the same interface.
 * An image that has lost its use (its listing was removed) gets an expiry: from then on it is
 * not served, and `sweepRemoved` deletes it.
 */

export type ImagePurpose = 'listing' | 'report';
export type ImageVariant = 'full' | 'thumb';

/** How long an image of a removed listing is still served (caches and open pages keep working a while). */
export const REMOVED_IMAGE_GRACE_MS = 24 * 60 * 60_000;
/** How long a report image may wait for a report to use it before the sweep deletes it. */
export const UNUSED_IMAGE_GRACE_MS = 24 * 60 * 60_000;

/**
 * Report images (table `images`, alias `i`) that no report uses: neither listed in a report's
 * `image_ids` nor named by a `[[report-image:<id>]]` token in its content. Whatever else comes
 * to hold report images must be added here, or the sweep deletes what it holds.
 */
function unusedReportImages(query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.where('i.purpose', 'report').whereNotExists(function usedByAReport() {
    this.from('model_reports as r')
      .whereRaw('r.user_id = i.owner_user_id')
      .where((used) =>
        used.whereRaw('i.id::text = any(r.image_ids)').orWhereRaw(`position('report-image:' || i.id::text in r.content) > 0`),
      );
  });
}

export interface StoredImage {
  id: string;
  ownerUserId: string;
  purpose: ImagePurpose;
  contentType: ImageContentType;
  width: number;
  height: number;
  thumbWidth: number;
  thumbHeight: number;
  /** What the uploader said the image shows (report images), or null. */
  caption: string | null;
  createdAt: Date;
}

export interface ImageContent {
  bytes: Buffer;
  contentType: ImageContentType;
  etag: string;
}

export interface ImageRow {
  id: string;
  owner_user_id: string;
  purpose: ImagePurpose;
  content_type: ImageContentType;
  width: number;
  height: number;
  thumb_width: number;
  thumb_height: number;
  caption: string | null;
  created_at: Date;
}

/** The columns that describe a stored image (everything but its bytes). */
export const DESCRIPTION_COLUMNS = [
  'id',
  'owner_user_id',
  'purpose',
  'content_type',
  'width',
  'height',
  'thumb_width',
  'thumb_height',
  'caption',
  'created_at',
] as const;

export function toStoredImage(row: ImageRow): StoredImage {
  return {
    id: row.id,
    ownerUserId: row.owner_user_id,
    purpose: row.purpose,
    contentType: row.content_type,
    width: row.width,
    height: row.height,
    thumbWidth: row.thumb_width,
    thumbHeight: row.thumb_height,
    caption: row.caption,
    createdAt: row.created_at,
  };
}

/** A strong validator of the bytes: they never change under an id. */
const etagOf = (bytes: Buffer) => `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;

/** Image bytes kept in memory: eight full-size images, or thousands of thumbnails. */
export const IMAGE_CACHE_BYTES = 64 * 1024 * 1024;
/** Image byte reads from the database at once (each holds a pooled connection while megabytes arrive), and waiting. */
export const IMAGE_READS_AT_ONCE = 2;
export const IMAGE_READS_WAITING = 32;
/** What an image answer that could not get a turn asks the client to wait. */
const IMAGES_BUSY_RETRY_SECONDS = 2;

/**
 * Reads of image bytes from the database, for the whole process: each holds a pooled
 * connection while megabytes arrive, so at most IMAGE_READS_AT_ONCE run at once and
 * IMAGE_READS_WAITING wait; past that the image path answers 503 for itself.
 */
export const imageReadQueue = createWorkQueue({
  concurrency: IMAGE_READS_AT_ONCE,
  maxWaiting: IMAGE_READS_WAITING,
  busy: () => new Unavailable(messages.imagesBusy, IMAGES_BUSY_RETRY_SECONDS),
});

/**
 * How stored bytes reach the answers, shared by every images service of a container (a
 * transaction's too). An image is served from the cache when its bytes under its current
 * ETag are there; otherwise one read per image (concurrent requests for it wait on the same
 * read) through `imageReadQueue`, so a crowd downloading an 8 MB image takes one pooled
 * connection for one read instead of every connection for seconds.
 */
export interface ImageDelivery {
  cache: ByteCache;
  inFlight: Map<string, Promise<Buffer | undefined>>;
}

export function createImageDelivery(cacheBytes = IMAGE_CACHE_BYTES): ImageDelivery {
  return { cache: createByteCache(cacheBytes), inFlight: new Map() };
}

export function createImagesService({
  db,
  clock,
  delivery = createImageDelivery(),
}: Pick<ServiceDeps, 'db' | 'clock'> & { delivery?: ImageDelivery }) {
  /** Rows still served at `now`. */
  const live = (now: Date) => db('images').where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now));

  return {
    /**
     * Stores an image of `ownerUserId`'s, within the account's caps (IMAGES_PER_ACCOUNT, and
     * UNUSED_REPORT_IMAGES_PER_ACCOUNT for report images): one more is a 400 naming the cap.
     * Joins the caller's transaction, if any.
     */
    async store(ownerUserId: string, purpose: ImagePurpose, image: ProcessedImage, caption: string | null = null): Promise<StoredImage> {
      const write = async (trx: Db) => {
        // Serialises one owner's uploads so concurrent ones cannot overshoot the caps.
        await trx('users').where({ id: ownerUserId }).forUpdate().first('id');
        const owned = () => trx('images as i').where('i.owner_user_id', ownerUserId);
        const count = async (query: Knex.QueryBuilder) => Number((await query.count<{ n: number }[]>('* as n'))[0]!.n);
        const now = clock.now();
        if ((await count(owned().where((q) => q.whereNull('i.expires_at').orWhere('i.expires_at', '>', now)))) >= IMAGES_PER_ACCOUNT)
          throw imageRuleBroken(messages.imageLimit(IMAGES_PER_ACCOUNT));
        if (purpose === 'report' && (await count(unusedReportImages(owned()))) >= UNUSED_REPORT_IMAGES_PER_ACCOUNT)
          throw imageRuleBroken(messages.unusedReportImageLimit(UNUSED_REPORT_IMAGES_PER_ACCOUNT));
        const [row] = await trx('images')
          .insert({
            owner_user_id: ownerUserId,
            purpose,
            content_type: image.contentType,
            width: image.width,
            height: image.height,
            bytes: image.bytes,
            etag: etagOf(image.bytes),
            thumb_width: image.thumb.width,
            thumb_height: image.thumb.height,
            thumb_bytes: image.thumb.bytes,
            thumb_etag: etagOf(image.thumb.bytes),
            caption,
          })
          .returning<ImageRow[]>([...DESCRIPTION_COLUMNS]);
        return toStoredImage(row);
      };
      return db.isTransaction ? write(db) : db.transaction(write);
    },

    /**
     * The bytes to serve, or null when the id is unknown, deleted or expired. The row is
     * looked up every time (a deleted or expired image stops being served at once); the bytes
     * come from the cache when it has them under this ETag (see ImageDelivery).
     */
    async content(id: string, variant: ImageVariant): Promise<ImageContent | null> {
      const [bytesColumn, etagColumn] = variant === 'thumb' ? ['thumb_bytes', 'thumb_etag'] : ['bytes', 'etag'];
      const row = await live(clock.now())
        .where({ id })
        .first<{ etag: string; content_type: ImageContentType } | undefined>(`${etagColumn} as etag`, 'content_type');
      if (!row) return null;
      const key = `${id}/${variant}/${row.etag}`;
      let bytes = delivery.cache.get(key);
      if (!bytes) {
        let read = delivery.inFlight.get(key);
        if (!read) {
          read = imageReadQueue
            .run(() => db('images').where({ id }).first<{ bytes: Buffer } | undefined>(`${bytesColumn} as bytes`))
            .then((found) => {
              if (found) delivery.cache.set(key, ownBytes(found.bytes));
              return found?.bytes;
            })
            .finally(() => delivery.inFlight.delete(key));
          delivery.inFlight.set(key, read);
        }
        bytes = await read;
      }
      return bytes ? { bytes, contentType: row.content_type, etag: row.etag } : null;
    },

    /** Just the ETag (a conditional request answers 304 without reading the bytes). */
    async etag(id: string, variant: ImageVariant): Promise<string | null> {
      const row = await live(clock.now())
        .where({ id })
        .first<{ etag: string } | undefined>(variant === 'thumb' ? 'thumb_etag as etag' : 'etag');
      return row?.etag ?? null;
    },

    /** The live images among `ids`, in the order given (unknown or expired ids are left out). */
    async describe(ids: readonly string[]): Promise<StoredImage[]> {
      if (ids.length === 0) return [];
      const rows = await live(clock.now())
        .whereIn('id', ids)
        .select<ImageRow[]>([...DESCRIPTION_COLUMNS]);
      const byId = new Map(rows.map((row) => [row.id, toStoredImage(row)]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },

    /** Deletes images at once (the owner deleted them). */
    async remove(ids: readonly string[]): Promise<number> {
      if (ids.length === 0) return 0;
      return db('images').whereIn('id', ids).delete();
    },

    /** Stops serving `ids` from `at` on (their listing was removed); the sweep deletes them later. */
    async expire(ids: readonly string[], at: Date): Promise<void> {
      if (ids.length === 0) return;
      await db('images').whereIn('id', ids).whereNull('expires_at').update({ expires_at: at });
    },

    /** Serves `ids` again (a removal was undone before the sweep). */
    async unexpire(ids: readonly string[]): Promise<void> {
      if (ids.length === 0) return;
      await db('images').whereIn('id', ids).update({ expires_at: null });
    },

    /** The scheduled sweep: deletes every image whose expiry has passed; returns how many went. */
    async sweepRemoved(now: Date): Promise<number> {
      return db('images').where('expires_at', '<=', now).delete();
    },

    /** The scheduled sweep of report images no report has used for UNUSED_IMAGE_GRACE_MS after upload; returns how many went. */
    async sweepUnused(now: Date): Promise<number> {
      const uploadedBefore = new Date(now.getTime() - UNUSED_IMAGE_GRACE_MS);
      return db('images')
        .whereIn('id', unusedReportImages(db('images as i').where('i.created_at', '<=', uploadedBefore)).select('i.id'))
        .delete();
    },
  };
}

export type ImagesService = ReturnType<typeof createImagesService>;
