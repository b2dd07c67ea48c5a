import { DRAFT_LISTINGS_PER_ACCOUNT } from '../constants.ts';
import type { Knex } from 'knex';
import { convertToUsd, fxRatesDate } from '../data/fx-rates.ts';
import { NotFound, Conflict, ValidationFailed } from '../lib/errors.ts';
import {
  decodeFeedCursor,
  encodeFeedCursor,
  summariseProof,
  type FeedPosition,
  type ProofRun,
  type ProofSummary,
} from '../lib/marketplace.ts';
import type { ProcessedImage } from '../lib/image-pipeline.ts';
import { messages } from '../messages.ts';
import {
  LISTING_MAX_IMAGES,
  type ListingCondition,
  type ListingCreate,
  type ListingPatch,
  type ListingStatus,
} from '../schemas/marketplace.schema.ts';
import type { HwClass } from '../constants.ts';
import type { AdminActor } from './audit.service.ts';
import type { ServiceDeps, Transactional } from './deps.ts';
import {
  DESCRIPTION_COLUMNS as IMAGE_COLUMNS,
  REMOVED_IMAGE_GRACE_MS,
  toStoredImage,
  type ImageRow,
  type StoredImage,
} from './images.service.ts';
import type { SpeedTestRun } from '../runs/reads/speed-test-reads.ts';

/**
 * Marketplace listings: sellers create DRAFTs, edit, publish (ACTIVE), mark SOLD and remove
 * them; admins remove them with a reason (audited). Photos are images of the image store
 * (src/services/images.service.ts) in the seller's order; proof runs are the seller's own
 * APPROVED speed-test runs (a run rejected or withdrawn later drops out when read). Only
 * ACTIVE listings are public; the feed pages through them by (updated_at, id).
 */

export interface ListingImage extends StoredImage {
  sortOrder: number;
}

export interface Listing {
  id: string;
  status: ListingStatus;
  title: string;
  description: string;
  condition: ListingCondition;
  price: number;
  currency: string;
  priceUsd: number;
  fxRatesDate: string;
  hwClass: HwClass;
  hardwareName: string;
  hardwareDetails: string;
  seller: { id: string; username: string; displayName: string };
  images: ListingImage[];
  benchmarkRunIds: string[];
  benchmarkRuns: SpeedTestRun[];
  proof: ProofSummary;
  listingUrl: string | null;
  contactUrl: string;
  createdAt: Date;
  updatedAt: Date;
  publishedAt: Date | null;
  soldAt: Date | null;
  removedAt: Date | null;
  removedReason: string | null;
}

interface ListingRow {
  id: string;
  seller_id: string;
  status: ListingStatus;
  title: string;
  description: string;
  condition: ListingCondition;
  price: string;
  currency: string;
  price_usd: string;
  hw_class: HwClass;
  hardware_name: string;
  hardware_details: string;
  listing_url: string | null;
  contact_url: string;
  created_at: Date;
  updated_at: Date;
  /** The exact stored updated_at (microseconds, UTC): the feed's cursor carries it. */
  updated_at_text: string;
  published_at: Date | null;
  sold_at: Date | null;
  removed_at: Date | null;
  removed_reason: string | null;
  seller_username: string;
  seller_display_name: string;
}

/** The sorts of the /marketplace page. */
export const browseSorts = ['newest', 'price_asc', 'price_desc', 'usd_per_tok_s'] as const;
export type BrowseSort = (typeof browseSorts)[number];

export interface BrowseQuery {
  hwClass?: HwClass;
  condition?: ListingCondition;
  /** In US dollars. */
  priceMin?: number;
  priceMax?: number;
  sort: BrowseSort;
  limit: number;
  offset: number;
}

/**
 * Every transaction that writes listings takes this lock first, before any listing row lock
 * and before its `clock_timestamp()` stamp, and holds it to commit, so stamps follow commit
 * order and a feed cursor never passes a listing that commits later with an earlier stamp
 * (migration 20261128010000).
 */
const lockListingWrites = (trx: Knex.Transaction) => trx.raw('select marketplace_listing_writes_lock()');

const UPDATED_AT_TEXT = `to_char(l.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as updated_at_text`;

function listingRows(db: Knex) {
  return db('marketplace_listings as l')
    .join('users as u', 'u.id', 'l.seller_id')
    .select('l.*', 'u.username as seller_username', 'u.display_name as seller_display_name', db.raw(UPDATED_AT_TEXT));
}

/** A price as the API gives it: the amount in USD of the shipped table. */
function usdOf(price: number, currency: string): number {
  const usd = convertToUsd(price, currency);
  // The schema accepts only the table's currencies.
  if (usd === null) throw new ValidationFailed({ fieldErrors: { currency: ['Unknown currency'] }, formErrors: [] });
  return usd;
}

export function createMarketplaceService(deps: Pick<ServiceDeps, 'db' | 'clock'> & Transactional) {
  const { db, clock, withTransaction } = deps;

  /** Everything a listing shows, for a page of rows at once (three reads whatever the count). */
  async function hydrate(rows: ListingRow[], conn: Knex = db): Promise<Listing[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const [imageRows, runRows] = await Promise.all([
      conn('marketplace_listing_images as li')
        .join('images as i', 'i.id', 'li.image_id')
        .whereIn('li.listing_id', ids)
        .orderBy([{ column: 'li.listing_id' }, { column: 'li.sort_order' }])
        .select<(ImageRow & { listing_id: string })[]>('li.listing_id', ...IMAGE_COLUMNS.map((column) => `i.${column}`)),
      conn('marketplace_listing_runs as lr')
        .join('marketplace_listings as l', 'l.id', 'lr.listing_id')
        .join('speed_test_runs as r', 'r.id', 'lr.run_id')
        .join('speed_test_run_documents as d', 'd.run_id', 'r.id')
        .whereIn('lr.listing_id', ids)
        .where('r.status', 'APPROVED')
        .whereRaw('r.user_id = l.seller_id')
        .orderBy([{ column: 'lr.listing_id' }, { column: 'lr.position' }])
        .select('lr.listing_id', 'lr.run_id', 'd.document'),
    ]);
    const imagesOf = new Map<string, ListingImage[]>();
    for (const row of imageRows) {
      const list = imagesOf.get(row.listing_id) ?? [];
      list.push({ ...toStoredImage(row), sortOrder: list.length });
      imagesOf.set(row.listing_id, list);
    }
    const runsOf = new Map<string, SpeedTestRun[]>();
    for (const row of runRows) {
      const list = runsOf.get(row.listing_id) ?? [];
      list.push(JSON.parse(row.document) as SpeedTestRun);
      runsOf.set(row.listing_id, list);
    }
    return rows.map((row) => {
      const runs = runsOf.get(row.id) ?? [];
      const priceUsd = Number(row.price_usd);
      return {
        id: row.id,
        status: row.status,
        title: row.title,
        description: row.description,
        condition: row.condition,
        price: Number(row.price),
        currency: row.currency,
        priceUsd,
        fxRatesDate,
        hwClass: row.hw_class,
        hardwareName: row.hardware_name,
        hardwareDetails: row.hardware_details,
        seller: { id: row.seller_id, username: row.seller_username, displayName: row.seller_display_name },
        images: imagesOf.get(row.id) ?? [],
        benchmarkRunIds: runs.map((run) => run.id),
        benchmarkRuns: runs,
        proof: summariseProof(runs as unknown as ProofRun[], { hwClass: row.hw_class, hardwareName: row.hardware_name, priceUsd }),
        listingUrl: row.listing_url,
        contactUrl: row.contact_url,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        publishedAt: row.published_at,
        soldAt: row.sold_at,
        removedAt: row.removed_at,
        removedReason: row.removed_reason,
      };
    });
  }

  /** The seller's listing, locked for the change (another user's, or none: 404). */
  async function lockOwn(trx: Knex.Transaction, sellerId: string, id: string): Promise<{ id: string; status: ListingStatus }> {
    await lockListingWrites(trx);
    const row = await trx('marketplace_listings').where({ id, seller_id: sellerId }).forUpdate().first('id', 'status');
    if (!row) throw new NotFound(messages.listingNotFound);
    return row;
  }

  /** The one listing matching `where`, or the listing 404. */
  async function readWhere(where: Record<string, string>, conn: Knex = db): Promise<Listing> {
    const [listing] = await hydrate(await listingRows(conn).where(where), conn);
    if (!listing) throw new NotFound(messages.listingNotFound);
    return listing;
  }

  const readOne = (id: string, conn: Knex = db) => readWhere({ 'l.id': id }, conn);

  /** Refuses run ids that are not the seller's APPROVED speed-test runs, naming them. */
  async function checkProofRuns(trx: Knex, sellerId: string, runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    const found = await trx('speed_test_runs').whereIn('id', runIds).where({ user_id: sellerId, status: 'APPROVED' }).pluck('id');
    const bad = runIds.filter((id) => !found.includes(id));
    if (bad.length > 0)
      throw new ValidationFailed({ fieldErrors: { benchmarkRunIds: [messages.listingProofRunsNotYours(bad)] }, formErrors: [] });
  }

  async function setProofRuns(trx: Knex, listingId: string, runIds: readonly string[]): Promise<void> {
    await trx('marketplace_listing_runs').where({ listing_id: listingId }).delete();
    if (runIds.length > 0)
      await trx('marketplace_listing_runs').insert(runIds.map((runId, position) => ({ listing_id: listingId, run_id: runId, position })));
  }

  /** A change feed clients should see again, stamped under the writes lock (`lockListingWrites`). */
  const touch = (trx: Knex, id: string, columns: Record<string, unknown> = {}) =>
    trx('marketplace_listings')
      .where({ id })
      .update({ ...columns, updated_at: trx.raw('clock_timestamp()') });

  /** The images of a listing, to expire or serve again with its status. */
  const imageIdsOf = (trx: Knex, listingId: string) =>
    trx('marketplace_listing_images').where({ listing_id: listingId }).pluck('image_id') as Promise<string[]>;

  /** Moves a listing to REMOVED: its images stop being served after the grace period. */
  async function markRemoved(trx: Knex.Transaction, id: string, columns: Record<string, unknown>): Promise<void> {
    const removedAt = clock.now();
    await touch(trx, id, { status: 'REMOVED', removed_at: removedAt, ...columns });
    await withTransaction(trx).images.expire(await imageIdsOf(trx, id), new Date(removedAt.getTime() + REMOVED_IMAGE_GRACE_MS));
  }

  /** A change of status by the seller, allowed only from `from`. */
  async function move(
    sellerId: string,
    id: string,
    from: readonly ListingStatus[],
    action: string,
    columns: (trx: Knex.Transaction) => Record<string, unknown>,
  ): Promise<Listing> {
    return db.transaction(async (trx) => {
      const row = await lockOwn(trx, sellerId, id);
      if (!from.includes(row.status)) throw new Conflict(messages.listingCannot(row.status, action));
      await touch(trx, id, columns(trx));
      return readOne(id, trx);
    });
  }

  /**
   * The /marketplace page by value (USD per output tok/s, lowest first). Whether a proof run
   * ran on the listed hardware is the device rule of src/lib/marketplace.ts, which SQL cannot
   * apply, so the filtered listings' prices and proof runs' hardware are read (two reads) and
   * ranked here; listings without a value (no proof on the listed hardware) come last.
   */
  async function browseByValue(filter: (q: Knex.QueryBuilder) => void, page: { limit: number; offset: number }) {
    const candidates = await db('marketplace_listings as l')
      .modify(filter)
      .select<{ id: string; price_usd: string; hw_class: string; hardware_name: string }[]>(
        'l.id',
        'l.price_usd',
        'l.hw_class',
        'l.hardware_name',
      );
    const proofRows = candidates.length
      ? await db('marketplace_listing_runs as lr')
          .join('marketplace_listings as l', 'l.id', 'lr.listing_id')
          .join('speed_test_runs as r', 'r.id', 'lr.run_id')
          .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
          .whereIn(
            'lr.listing_id',
            candidates.map((row) => row.id),
          )
          .where('r.status', 'APPROVED')
          .whereRaw('r.user_id = l.seller_id')
          .select<{ listing_id: string; run_id: string; tok_s_out: number | null; details: Record<string, unknown> }[]>(
            'lr.listing_id',
            'lr.run_id',
            'r.tok_s_out',
            'h.details',
          )
      : [];
    const proofOf = new Map<string, ProofRun[]>();
    for (const row of proofRows) {
      const list = proofOf.get(row.listing_id) ?? [];
      list.push({ id: row.run_id, tokSOut: row.tok_s_out, hardware: row.details });
      proofOf.set(row.listing_id, list);
    }
    const ranked = candidates
      .map((row) => ({
        id: row.id,
        value: summariseProof(proofOf.get(row.id) ?? [], {
          hwClass: row.hw_class,
          hardwareName: row.hardware_name,
          priceUsd: Number(row.price_usd),
        }).usdPerTokSOut,
      }))
      .sort(
        (a, b) => (a.value ?? Number.POSITIVE_INFINITY) - (b.value ?? Number.POSITIVE_INFINITY) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      );
    const ids = ranked.slice(page.offset, page.offset + page.limit).map((entry) => entry.id);
    const rows: ListingRow[] = ids.length ? await listingRows(db).whereIn('l.id', ids) : [];
    const byId = new Map(rows.map((row) => [row.id, row]));
    const ordered = ids.flatMap((id) => byId.get(id) ?? []);
    return { listings: await hydrate(ordered), total: candidates.length };
  }

  return {
    async create(sellerId: string, input: ListingCreate): Promise<Listing> {
      return db.transaction(async (trx) => {
        // Serialises one seller's creations so concurrent ones cannot overshoot the cap.
        await trx('users').where({ id: sellerId }).forUpdate().first('id');
        const [{ drafts }] = await trx('marketplace_listings')
          .where({ seller_id: sellerId, status: 'DRAFT' })
          .count<{ drafts: number }[]>('* as drafts');
        if (Number(drafts) >= DRAFT_LISTINGS_PER_ACCOUNT)
          throw new ValidationFailed({ fieldErrors: {}, formErrors: [messages.draftListingLimit(DRAFT_LISTINGS_PER_ACCOUNT)] });
        await lockListingWrites(trx);
        await checkProofRuns(trx, sellerId, input.benchmarkRunIds);
        const [{ id }] = await trx('marketplace_listings')
          .insert({
            seller_id: sellerId,
            status: 'DRAFT',
            title: input.title,
            description: input.description,
            condition: input.condition,
            price: input.price,
            currency: input.currency,
            price_usd: usdOf(input.price, input.currency),
            hw_class: input.hwClass,
            hardware_name: input.hardwareName,
            hardware_details: input.hardwareDetails,
            listing_url: input.listingUrl ?? null,
            contact_url: input.contactUrl,
            updated_at: trx.raw('clock_timestamp()'),
          })
          .returning<{ id: string }[]>('id');
        await setProofRuns(trx, id, input.benchmarkRunIds);
        return readOne(id, trx);
      });
    },

    async update(sellerId: string, id: string, patch: ListingPatch): Promise<Listing> {
      return db.transaction(async (trx) => {
        const row = await lockOwn(trx, sellerId, id);
        if (row.status === 'REMOVED' || row.status === 'SOLD') throw new Conflict(messages.listingCannot(row.status, 'edited'));
        const current = await trx('marketplace_listings').where({ id }).first('price', 'currency');
        const columns: Record<string, unknown> = {};
        const names: [keyof ListingPatch, string][] = [
          ['title', 'title'],
          ['description', 'description'],
          ['condition', 'condition'],
          ['price', 'price'],
          ['currency', 'currency'],
          ['hwClass', 'hw_class'],
          ['hardwareName', 'hardware_name'],
          ['hardwareDetails', 'hardware_details'],
          ['listingUrl', 'listing_url'],
          ['contactUrl', 'contact_url'],
        ];
        for (const [field, column] of names) if (patch[field] !== undefined) columns[column] = patch[field];
        if (patch.price !== undefined || patch.currency !== undefined) {
          columns.price_usd = usdOf(patch.price ?? Number(current.price), patch.currency ?? current.currency);
        }
        if (patch.benchmarkRunIds !== undefined) {
          await checkProofRuns(trx, sellerId, patch.benchmarkRunIds);
          await setProofRuns(trx, id, patch.benchmarkRunIds);
        }
        await touch(trx, id, columns);
        return readOne(id, trx);
      });
    },

    publish: (sellerId: string, id: string) =>
      move(sellerId, id, ['DRAFT'], 'published', (trx) => ({
        status: 'ACTIVE',
        published_at: trx.raw('coalesce(published_at, clock_timestamp())'),
      })),

    markSold: (sellerId: string, id: string) =>
      move(sellerId, id, ['ACTIVE'], 'marked sold', (trx) => ({ status: 'SOLD', sold_at: trx.raw('clock_timestamp()') })),

    /** DELETE by the seller: REMOVED (kept for the audit trail; images expire after the grace period). */
    async remove(sellerId: string, id: string): Promise<void> {
      await db.transaction(async (trx) => {
        const row = await lockOwn(trx, sellerId, id);
        if (row.status === 'REMOVED') return;
        await markRemoved(trx, id, { removed_by: sellerId });
      });
    },

    /** Admin removal with a reason, audited in the same transaction. */
    async adminRemove(actor: AdminActor, id: string, reason: string): Promise<void> {
      await db.transaction(async (trx) => {
        await lockListingWrites(trx);
        const row = await trx('marketplace_listings').where({ id }).forUpdate().first('id', 'status', 'title');
        if (!row) throw new NotFound(messages.listingNotFound);
        if (row.status === 'REMOVED') throw new Conflict(messages.listingCannot(row.status, 'removed'));
        await markRemoved(trx, id, { removed_by: actor.id, removed_reason: reason });
        await withTransaction(trx).audit.record(actor, {
          action: 'listing.remove',
          targetKind: 'marketplace_listing',
          targetId: id,
          targetLabel: row.title,
          reason,
        });
      });
    },

    /** The seller's own listing in any state (another user's: 404). */
    getOwn: (sellerId: string, id: string) => readWhere({ 'l.id': id, 'l.seller_id': sellerId }),

    /** Any listing, for admins. */
    get: (id: string) => readOne(id),

    /** A public listing: ACTIVE only, else 404. */
    getActive: (id: string) => readWhere({ 'l.id': id, 'l.status': 'ACTIVE' }),

    async mine(
      sellerId: string,
      query: { status?: ListingStatus; limit: number; offset: number },
    ): Promise<{ listings: Listing[]; total: number }> {
      const filter = (q: Knex.QueryBuilder) => {
        q.where('l.seller_id', sellerId);
        if (query.status) q.where('l.status', query.status);
      };
      const [rows, [{ total }]] = await Promise.all([
        listingRows(db)
          .modify(filter)
          .orderBy([
            { column: 'l.updated_at', order: 'desc' },
            { column: 'l.id', order: 'desc' },
          ])
          .limit(query.limit)
          .offset(query.offset),
        db('marketplace_listings as l').modify(filter).count<{ total: string }[]>('* as total'),
      ]);
      return { listings: await hydrate(rows), total: Number(total) };
    },

    /**
     * The public feed: ACTIVE listings in (updated_at, id) order after the cursor's position,
     * compared in SQL on the stored microseconds (a JS Date would round them to milliseconds
     * and skip or repeat rows). A listing updated while a client pages moves behind the
     * cursor and comes again, with its new content, on a later page.
     */
    async feed(query: {
      limit: number;
      cursor?: string;
      updatedSince?: string;
    }): Promise<{ listings: Listing[]; nextCursor: string | null; hasMore: boolean; generatedAt: Date }> {
      let after: FeedPosition | null = null;
      if (query.cursor !== undefined) {
        after = decodeFeedCursor(query.cursor);
        if (!after) throw new ValidationFailed({ fieldErrors: { cursor: [messages.listingCursorInvalid] }, formErrors: [] });
      }
      const generatedAt = clock.now();
      const rows: ListingRow[] = await listingRows(db)
        .where('l.status', 'ACTIVE')
        .modify((q) => {
          if (query.updatedSince) q.where('l.updated_at', '>=', db.raw('?::timestamptz', [query.updatedSince]));
          if (after) q.whereRaw('(l.updated_at, l.id) > (?::timestamptz, ?::uuid)', [after.updatedAt, after.id]);
        })
        .orderBy([{ column: 'l.updated_at' }, { column: 'l.id' }])
        .limit(query.limit + 1);
      const hasMore = rows.length > query.limit;
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      return {
        listings: await hydrate(page),
        nextCursor: hasMore && last ? encodeFeedCursor({ updatedAt: last.updated_at_text, id: last.id }) : null,
        hasMore,
        generatedAt,
      };
    },

    /** The /marketplace page: ACTIVE listings filtered and sorted, with the total. */
    async browse(query: BrowseQuery): Promise<{ listings: Listing[]; total: number }> {
      const filter = (q: Knex.QueryBuilder) => {
        q.where('l.status', 'ACTIVE');
        if (query.hwClass) q.where('l.hw_class', query.hwClass);
        if (query.condition) q.where('l.condition', query.condition);
        if (query.priceMin !== undefined) q.where('l.price_usd', '>=', query.priceMin);
        if (query.priceMax !== undefined) q.where('l.price_usd', '<=', query.priceMax);
      };
      if (query.sort === 'usd_per_tok_s') return browseByValue(filter, query);
      const orders: Record<Exclude<BrowseSort, 'usd_per_tok_s'>, string> = {
        newest: 'l.published_at desc nulls last, l.id desc',
        price_asc: 'l.price_usd asc, l.id',
        price_desc: 'l.price_usd desc, l.id',
      };
      const [rows, [{ total }]] = await Promise.all([
        listingRows(db).modify(filter).orderByRaw(orders[query.sort]).limit(query.limit).offset(query.offset),
        db('marketplace_listings as l').modify(filter).count<{ total: string }[]>('* as total'),
      ]);
      return { listings: await hydrate(rows), total: Number(total) };
    },

    /** Every listing for the admin page, newest change first, optionally of one status. */
    async adminList(query: { status?: ListingStatus; limit: number; offset: number }): Promise<{ listings: Listing[]; total: number }> {
      const filter = (q: Knex.QueryBuilder) => query.status && q.where('l.status', query.status);
      const [rows, [{ total }]] = await Promise.all([
        listingRows(db)
          .modify(filter)
          .orderBy([
            { column: 'l.updated_at', order: 'desc' },
            { column: 'l.id', order: 'desc' },
          ])
          .limit(query.limit)
          .offset(query.offset),
        db('marketplace_listings as l').modify(filter).count<{ total: string }[]>('* as total'),
      ]);
      return { listings: await hydrate(rows), total: Number(total) };
    },

    /** The seller's latest APPROVED runs, to choose proof from (the listing form). */
    async proofCandidates(sellerId: string, limit = 50): Promise<SpeedTestRun[]> {
      const rows = await db('speed_test_runs as r')
        .join('speed_test_run_documents as d', 'd.run_id', 'r.id')
        .where({ 'r.user_id': sellerId, 'r.status': 'APPROVED' })
        .orderBy([
          { column: 'r.created_at', order: 'desc' },
          { column: 'r.id', order: 'desc' },
        ])
        .limit(limit)
        .select('d.document');
      return rows.map((row: { document: string }) => JSON.parse(row.document) as SpeedTestRun);
    },

    /** Adds a photo at the end (at most 12; not to a removed or sold listing). */
    async addImage(sellerId: string, listingId: string, image: ProcessedImage): Promise<ListingImage> {
      return db.transaction(async (trx) => {
        const row = await lockOwn(trx, sellerId, listingId);
        if (row.status === 'REMOVED' || row.status === 'SOLD') throw new Conflict(messages.listingCannot(row.status, 'edited'));
        const [{ n }] = await trx('marketplace_listing_images').where({ listing_id: listingId }).count<{ n: string }[]>('* as n');
        if (Number(n) >= LISTING_MAX_IMAGES)
          throw new ValidationFailed({ fieldErrors: { image: [messages.listingImageLimit(LISTING_MAX_IMAGES)] }, formErrors: [] });
        const stored = await withTransaction(trx).images.store(sellerId, 'listing', image);
        await trx('marketplace_listing_images').insert({ listing_id: listingId, image_id: stored.id, sort_order: Number(n) });
        await touch(trx, listingId);
        return { ...stored, sortOrder: Number(n) };
      });
    },

    async deleteImage(sellerId: string, listingId: string, imageId: string): Promise<void> {
      await db.transaction(async (trx) => {
        await lockOwn(trx, sellerId, listingId);
        const deleted = await trx('marketplace_listing_images').where({ listing_id: listingId, image_id: imageId }).delete();
        if (deleted === 0) throw new NotFound(messages.imageNotFound);
        await withTransaction(trx).images.remove([imageId]);
        await renumber(
          trx,
          listingId,
          await trx('marketplace_listing_images').where({ listing_id: listingId }).orderBy('sort_order').pluck('image_id'),
        );
        await touch(trx, listingId);
      });
    },

    /** Puts the photos in the given order: every image id of the listing exactly once. */
    async reorderImages(sellerId: string, listingId: string, imageIds: readonly string[]): Promise<Listing> {
      return db.transaction(async (trx) => {
        await lockOwn(trx, sellerId, listingId);
        const current: string[] = await trx('marketplace_listing_images').where({ listing_id: listingId }).pluck('image_id');
        const same =
          current.length === imageIds.length && new Set(imageIds).size === imageIds.length && imageIds.every((id) => current.includes(id));
        if (!same) throw new ValidationFailed({ fieldErrors: { imageIds: [messages.listingImagesNotOfListing] }, formErrors: [] });
        await renumber(trx, listingId, imageIds);
        await touch(trx, listingId);
        return readOne(listingId, trx);
      });
    },

    /** Moves one photo a place earlier or later (the pages' buttons); at the end already: no change. */
    async moveImage(sellerId: string, listingId: string, imageId: string, direction: 'up' | 'down'): Promise<void> {
      await db.transaction(async (trx) => {
        await lockOwn(trx, sellerId, listingId);
        const order: string[] = await trx('marketplace_listing_images')
          .where({ listing_id: listingId })
          .orderBy('sort_order')
          .pluck('image_id');
        const at = order.indexOf(imageId);
        if (at < 0) throw new NotFound(messages.imageNotFound);
        const to = direction === 'up' ? at - 1 : at + 1;
        if (to < 0 || to >= order.length) return;
        [order[at], order[to]] = [order[to]!, order[at]!];
        await renumber(trx, listingId, order);
        await touch(trx, listingId);
      });
    },
  };
}

async function renumber(trx: Knex, listingId: string, imageIds: readonly string[]): Promise<void> {
  for (const [sortOrder, imageId] of imageIds.entries()) {
    await trx('marketplace_listing_images').where({ listing_id: listingId, image_id: imageId }).update({ sort_order: sortOrder });
  }
}
