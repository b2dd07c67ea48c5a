import { z } from 'zod';
import { hwClasses } from '../constants.ts';
import { usdPerUnit } from '../data/fx-rates.ts';
import { IMAGE_CONTENT_TYPES } from '../lib/image-pipeline.ts';
import type { MarketplaceRules } from '../revisions.ts';
import { messages } from '../messages.ts';
import { idSchema } from './path-params.schema.ts';
import { queryText, wholeNumber } from './query-params.ts';
import { count, timestamp } from './responses.schema.ts';

/**
 * Marketplace listings (revision 3): what a seller sends, the feed's query and what the API
 * answers. Limits are DECISIONS.md "Limits not shown" (title 200, description 10,000,
 * hardwareDetails 2,000; 12 images; 10 proof runs).
 */

export const LISTING_TITLE_MAX = 200;
export const LISTING_DESCRIPTION_MAX = 10_000;
export const LISTING_HARDWARE_DETAILS_MAX = 2_000;
export const LISTING_HARDWARE_NAME_MAX = 200;
export const LISTING_URL_MAX = 2048;
export const LISTING_MAX_IMAGES = 12;
export const LISTING_MAX_PROOF_RUNS = 10;
/** Prices up to ten million in any currency: beyond that it is a typo. */
export const LISTING_PRICE_MAX = 10_000_000;

export const listingStatuses = ['DRAFT', 'ACTIVE', 'SOLD', 'REMOVED'] as const;
export type ListingStatus = (typeof listingStatuses)[number];
export const listingConditions = ['NEW', 'LIKE_NEW', 'USED', 'FOR_PARTS'] as const;
export type ListingCondition = (typeof listingConditions)[number];
export const listingCurrencies = Object.keys(usdPerUnit) as [string, ...string[]];

const text = (max: number) => z.string().trim().max(max, `Must be at most ${max} characters`);
const httpsUrl = z
  .url({ protocol: /^https$/, error: 'Must be an https URL' })
  .max(LISTING_URL_MAX, `Must be at most ${LISTING_URL_MAX} characters`);
const contactUrl = z
  .url({ protocol: /^(https|mailto)$/, error: 'Must be an https URL or a mailto: address' })
  .max(LISTING_URL_MAX, `Must be at most ${LISTING_URL_MAX} characters`);
const price = z
  .number()
  .min(0, 'Must be at least 0')
  .max(LISTING_PRICE_MAX, `Must be at most ${LISTING_PRICE_MAX}`)
  .refine((value) => Math.round(value * 100) === Number((value * 100).toFixed(6)), 'Must have at most 2 decimals');
const runIds = z
  .array(z.uuid({ error: 'Must be a speed-test run id' }))
  .max(LISTING_MAX_PROOF_RUNS, `At most ${LISTING_MAX_PROOF_RUNS} proof runs`)
  .refine((ids) => new Set(ids).size === ids.length, 'Must not repeat a run');

const listingFields = {
  title: text(LISTING_TITLE_MAX).min(1, 'Must not be empty'),
  description: text(LISTING_DESCRIPTION_MAX),
  condition: z.enum(listingConditions),
  price,
  currency: z.enum(listingCurrencies, { error: `Must be one of ${listingCurrencies.join(', ')}` }),
  hwClass: z.enum(hwClasses),
  hardwareName: text(LISTING_HARDWARE_NAME_MAX)
    .min(1, 'Must not be empty')
    .meta({ description: 'The GPU, chip or CPU sold, as the proof runs name it (e.g. "NVIDIA GeForce RTX 4090")' }),
  hardwareDetails: text(LISTING_HARDWARE_DETAILS_MAX),
  listingUrl: httpsUrl.nullable(),
  contactUrl,
  benchmarkRunIds: runIds.meta({ description: `Up to ${LISTING_MAX_PROOF_RUNS} of your own APPROVED speed-test runs, as proof` }),
};

/** POST /api/marketplace/listings: a new DRAFT. */
export const listingCreateSchema = z.strictObject({
  ...listingFields,
  description: listingFields.description.default(''),
  hardwareDetails: listingFields.hardwareDetails.default(''),
  listingUrl: listingFields.listingUrl.optional(),
  benchmarkRunIds: listingFields.benchmarkRunIds.default([]),
});
export type ListingCreate = z.output<typeof listingCreateSchema>;

/** PATCH: any subset; `listingUrl: null` clears it. */
export const listingPatchSchema = z.strictObject(
  Object.fromEntries(Object.entries(listingFields).map(([name, schema]) => [name, schema.optional()])) as {
    [K in keyof typeof listingFields]: z.ZodOptional<(typeof listingFields)[K]>;
  },
);
export type ListingPatch = z.output<typeof listingPatchSchema>;

/** PUT .../images/order: every image id of the listing, in the new order. */
export const listingImageOrderSchema = z.strictObject({
  imageIds: z.array(z.uuid({ error: 'Must be an image id' })).max(LISTING_MAX_IMAGES, `At most ${LISTING_MAX_IMAGES} images`),
});

/** `:id/images/:imageId` of the seller's paths (API and pages). */
export const listingImagePathParams = z.object({
  id: idSchema(messages.listingNotFound, 'Listing id'),
  imageId: idSchema(messages.imageNotFound, 'Image id of the listing'),
});

/** The feed's query. */
export function feedQuerySchema(rules: MarketplaceRules) {
  return z.strictObject({
    limit: wholeNumber(rules.feedLimit.min, rules.feedLimit.max).default(rules.feedLimit.default),
    cursor: queryText(512).optional(),
    updatedSince: z.iso.datetime({ offset: true, error: 'Must be an ISO-8601 date-time with a timezone (Z or +hh:mm)' }).optional(),
  });
}

/** The seller's own listings. */
export const myListingsQuerySchema = z.strictObject({
  status: z.enum(listingStatuses).optional(),
  limit: wholeNumber(1, 100).default(50),
  offset: wholeNumber(0, 100_000).default(0),
});

// ---------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------

export const listingImageResponseSchema = z.object({
  id: z.uuid(),
  url: z.url().meta({ description: 'The full image (absolute URL)' }),
  thumbnailUrl: z.url().meta({ description: 'The thumbnail, at most 480 px wide (the same address with `variant=thumb`)' }),
  contentType: z.enum(IMAGE_CONTENT_TYPES),
  width: z.int().min(1),
  height: z.int().min(1),
  sortOrder: z.int().min(0),
});

const proofSummary = z
  .object({
    bestTokSOut: z.number().nullable().meta({ description: 'The best output tok/s among the proof runs' }),
    bestRunId: z.uuid().nullable(),
    bestModel: z.string().nullable().meta({ description: 'hfId of the best proof run\u2019s model' }),
    usdPerTokSOut: z.number().nullable().meta({
      description:
        'priceUsd / the best output tok/s among the proof runs that ran on the listed hardware (the same device): dollars per output token per second; null when none did, and such listings sort last by value',
    }),
    matchesListing: z
      .boolean()
      .nullable()
      .meta({ description: 'Whether every proof run ran on the listed hardware (null without proof runs)' }),
  })
  .meta({ description: 'What the proof runs show, derived by the server' });

export const listingResponseSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(listingStatuses),
    title: z.string(),
    description: z.string(),
    condition: z.enum(listingConditions),
    price: z.number().meta({ description: 'The price as entered, in `currency`' }),
    currency: z.string(),
    priceUsd: z.number().meta({ description: 'price converted with the shipped FX table (see fxRatesDate)' }),
    fxRatesDate: z.iso.date().meta({ description: 'Date of the FX table priceUsd was converted with' }),
    hwClass: z.enum(hwClasses),
    hardwareName: z.string(),
    hardwareDetails: z.string(),
    seller: z.object({ username: z.string(), displayName: z.string(), profileUrl: z.url() }),
    images: z.array(listingImageResponseSchema),
    benchmarkRunIds: z.array(z.uuid()).meta({ description: 'The approved proof runs (a run rejected or withdrawn later drops out)' }),
    benchmarkRuns: z
      .array(z.record(z.string(), z.unknown()))
      .meta({ description: 'The approved proof runs, as stored runs (the results list\u2019s shape)' }),
    proof: proofSummary,
    listingUrl: z.url().meta({ description: 'The seller\u2019s external listing, or this listing\u2019s page here when none was given' }),
    contactUrl: z.url(),
    createdAt: timestamp,
    updatedAt: timestamp,
    publishedAt: timestamp.nullable(),
    soldAt: timestamp.nullable(),
    removedAt: timestamp.nullable(),
  })
  .meta({ description: 'A marketplace listing.' });

export const listingEnvelopeSchema = z.object({ listing: listingResponseSchema });

export const feedResponseSchema = z.object({
  listings: z.array(listingResponseSchema),
  pagination: z.object({
    limit: z.int().min(1),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page' }),
    hasMore: z.boolean(),
  }),
  generatedAt: timestamp,
});

export const myListingsResponseSchema = z.object({
  listings: z.array(listingResponseSchema),
  total: count,
  limit: z.int().min(1),
  offset: count,
});
