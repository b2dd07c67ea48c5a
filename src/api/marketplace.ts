import { DRAFT_LISTINGS_PER_ACCOUNT, IMAGES_PER_ACCOUNT } from '../constants.ts';
import { z } from 'zod';
import { NotFound } from '../lib/errors.ts';
import {
  IMAGE_CONTENT_TYPES,
  IMAGE_FIELD,
  IMAGE_MAX_BYTES_LABEL,
  IMAGE_MAX_PIXELS_LABEL,
  IMAGE_THUMB_MAX_WIDTH,
  imageContentPath,
  imageMessages,
  processImageUpload,
} from '../lib/image-pipeline.ts';
import { messages } from '../messages.ts';
import type { RevisionProfile } from '../revisions.ts';
import {
  feedQuerySchema,
  feedResponseSchema,
  LISTING_MAX_IMAGES,
  LISTING_MAX_PROOF_RUNS,
  listingCreateSchema,
  listingEnvelopeSchema,
  listingImageOrderSchema,
  listingImagePathParams,
  listingImageResponseSchema,
  listingPatchSchema,
  myListingsQuerySchema,
  myListingsResponseSchema,
} from '../schemas/marketplace.schema.ts';
import { idSchema } from '../schemas/path-params.schema.ts';
import { listingImageJson, listingJson } from '../serialisers/marketplace.ts';
import { answerOrigin } from '../serialisers/origin.ts';
import type { Listing } from '../services/marketplace.service.ts';
import { uploadedImage } from '../web/image-upload.ts';
import {
  badRequest,
  errorBody,
  example,
  formErrorExample,
  imagesBusy,
  invalidQuery,
  malformedJson,
  notFound,
  operation,
  type ApiCall,
  type ApiOperation,
  type ApiResource,
  type HeaderName,
  type ResponseSpec,
} from './operation.ts';

/** Headers of every image content answer (DECISIONS.md "Marketplace"): public, immutable, embeddable anywhere. */
export const IMAGE_CONTENT_HEADERS = {
  'Cache-Control': 'public, max-age=31536000, immutable',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Access-Control-Allow-Origin': '*',
  'X-Content-Type-Options': 'nosniff',
} as const;

const CONTENT_HEADER_NAMES: HeaderName[] = [
  'ETag',
  'Cache-Control',
  'Cross-Origin-Resource-Policy',
  'Access-Control-Allow-Origin',
  'X-Content-Type-Options',
];

/** Whether the request's If-None-Match names `etag` (a list, or `*`). */
function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim().replace(/^W\//, '');
    return trimmed === '*' || trimmed === etag;
  });
}

const imagePathParams = z.object({ imageId: idSchema(messages.imageNotFound, 'Image id (from a listing or an upload answer)') });
const imageContentQuery = z.strictObject({ variant: z.enum(['thumb']).optional() });

function imageOperations(): ApiOperation[] {
  return [
    operation({
      operationId: 'getMarketplaceImageContent',
      route: 'GET /api/marketplace/images/:imageId/content',
      summary: 'An image (listing photo or report image)',
      description:
        'The image bytes as uploaded and re-encoded (metadata stripped). Public by its unguessable id, cacheable for a year (the bytes under an id never change), ' +
        'embeddable from any origin. `variant=thumb` answers the thumbnail (at most 480 px wide). Send `If-None-Match` with the `ETag` to get a 304.',
      auth: 'public',
      pathParams: imagePathParams,
      query: { schema: imageContentQuery, descriptions: { variant: '`thumb` for the thumbnail; absent for the full image' } },
      responses: {
        200: {
          description: 'The image bytes.',
          alternatives: IMAGE_CONTENT_TYPES.map((mediaType) => ({ mediaType, description: `The image, as ${mediaType}.` })),
          headers: CONTENT_HEADER_NAMES,
        },
        304: { description: 'Not modified: the `If-None-Match` names this ETag.', headers: CONTENT_HEADER_NAMES },
        400: invalidQuery({ variant: ['Invalid option: expected "thumb"'] }),
        404: {
          description: 'No such image, or its listing was removed more than 24 hours ago.',
          body: 'Error',
          examples: { notFound: example('Unknown image', errorBody(messages.imageNotFound)) },
        },
        503: imagesBusy,
      },
      async handle({ req, res, app, params, query }) {
        const variant = query.variant ?? 'full';
        const ifNoneMatch = req.get('If-None-Match');
        // A revalidation reads only the ETag, not the bytes.
        const held = ifNoneMatch ? await app.services.images.etag(params.imageId, variant) : null;
        if (held && matchesEtag(ifNoneMatch, held)) {
          res.set(IMAGE_CONTENT_HEADERS).set('ETag', held).status(304).end();
          return;
        }
        const content = await app.services.images.content(params.imageId, variant);
        if (!content) throw new NotFound(messages.imageNotFound);
        res.set(IMAGE_CONTENT_HEADERS).set('ETag', content.etag).type(content.contentType).send(content.bytes);
      },
    }),
  ];
}

// ---------------------------------------------------------------------------
// Listings
// ---------------------------------------------------------------------------

const listingPathParams = z.object({ id: idSchema(messages.listingNotFound, 'Listing id') });

const exampleListing = {
  title: 'RTX 4090 Founders Edition, 14 months old',
  description: 'Used for inference only, never mined. Original box.',
  condition: 'LIKE_NEW',
  price: 1650,
  currency: 'EUR',
  hwClass: 'DISCRETE_GPU',
  hardwareName: 'NVIDIA GeForce RTX 4090',
  hardwareDetails: '24 GB GDDR6X, stock cooler',
  contactUrl: 'mailto:seller@example.com',
  benchmarkRunIds: ['3f6c1c8e-2a4b-4c5d-9e8f-0a1b2c3d4e5f'],
};

function publicOperations(profile: RevisionProfile): ApiOperation[] {
  const rules = profile.marketplace!;
  const missing = notFound('Listing', messages.listingNotFound);
  return [
    operation({
      operationId: 'getMarketplaceFeed',
      route: 'GET /api/marketplace/feed',
      summary: 'Active listings, in pages',
      description:
        'Every ACTIVE listing ordered by (`updatedAt`, `id`). Repeat with `cursor` = `pagination.nextCursor` while `hasMore` is true: no listing is skipped, and a listing ' +
        'updated while you page comes again later with its new content. `updatedSince` (inclusive) fetches only what changed since your last sync.',
      auth: 'public',
      query: {
        schema: feedQuerySchema(rules),
        descriptions: {
          limit: `Listings per page, ${rules.feedLimit.min}-${rules.feedLimit.max} (default ${rules.feedLimit.default})`,
          cursor: 'The opaque `pagination.nextCursor` of the previous page',
          updatedSince: 'ISO-8601 date-time with a timezone: only listings updated at or after it',
        },
      },
      responses: {
        200: { description: 'A page of the feed.', body: 'MarketplaceFeed' },
        400: invalidQuery({ cursor: [messages.listingCursorInvalid] }),
      },
      async handle({ req, res, app, query }) {
        const page = await app.services.marketplace.feed(query);
        const origin = answerOrigin(req, res, app.config);
        res.json({
          listings: page.listings.map((listing) => listingJson(listing, origin)),
          pagination: { limit: query.limit, nextCursor: page.nextCursor, hasMore: page.hasMore },
          generatedAt: page.generatedAt.toISOString(),
        });
      },
    }),
    operation({
      operationId: 'getMarketplaceListing',
      route: 'GET /api/marketplace/:id',
      summary: 'One active listing',
      auth: 'public',
      pathParams: listingPathParams,
      responses: {
        200: { description: 'The listing.', body: 'ListingEnvelope' },
        404: { ...missing, description: 'No such listing, or it is not active (draft, sold, removed).' },
      },
      async handle({ req, res, app, params }) {
        const listing = await app.services.marketplace.getActive(params.id);
        res.json({ listing: listingJson(listing, answerOrigin(req, res, app.config)) });
      },
    }),
  ];
}

function sellerOperations(): ApiOperation[] {
  const missing = notFound('Listing', messages.listingNotFound);
  const invalid = badRequest(
    'The body fails validation, or names runs that are not your approved speed-test runs.',
    { benchmarkRunIds: [messages.listingProofRunsNotYours(['3f6c1c8e-2a4b-4c5d-9e8f-0a1b2c3d4e5f'])] },
    { malformed: malformedJson },
  );
  const conflict = (action: string, status: string): ResponseSpec => ({
    description: `The listing is not in a state that can be ${action}.`,
    body: 'Error',
    examples: { state: example('Wrong state', errorBody(messages.listingCannot(status, action))) },
  });
  const answer = (res: ApiCall['res'], req: ApiCall['req'], app: ApiCall['app'], listing: Listing, status = 200) =>
    res.status(status).json({ listing: listingJson(listing, answerOrigin(req, res, app.config)) });
  const listingAnswer = { description: 'The listing as stored now.', body: 'ListingEnvelope' };
  return [
    operation({
      operationId: 'listMyListings',
      route: 'GET /api/marketplace/listings/mine',
      summary: 'Your listings, in every state',
      auth: 'key|session',
      query: {
        schema: myListingsQuerySchema,
        descriptions: { status: 'Only listings in this state', limit: '1-100 (default 50)', offset: 'Listings to skip' },
      },
      responses: {
        200: { description: 'Your listings, most recently changed first.', body: 'MyListings' },
        400: invalidQuery({ limit: ['Must be at most 100'] }),
      },
      async handle({ req, res, app, query, userId }) {
        const page = await app.services.marketplace.mine(userId(), query);
        const origin = answerOrigin(req, res, app.config);
        res.json({
          listings: page.listings.map((listing) => listingJson(listing, origin)),
          total: page.total,
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    operation({
      operationId: 'createListing',
      route: 'POST /api/marketplace/listings',
      summary: 'Create a listing (as a DRAFT)',
      description: `Publish it with POST /api/marketplace/listings/{id}/publish. Proof runs: up to ${LISTING_MAX_PROOF_RUNS} of your own APPROVED speed-test runs.`,
      auth: 'key|session',
      body: {
        component: 'ListingCreate',
        schema: listingCreateSchema,
        examples: { gpu: example('A used GPU with a proof run', exampleListing) },
      },
      responses: {
        201: { description: 'The DRAFT listing.', body: 'ListingEnvelope', headers: ['Location'] },
        400: {
          ...invalid,
          description: `${invalid.description} Or you already have ${DRAFT_LISTINGS_PER_ACCOUNT} draft listings (the most an account may have).`,
          examples: { ...invalid.examples, drafts: formErrorExample('Draft cap', messages.draftListingLimit(DRAFT_LISTINGS_PER_ACCOUNT)) },
        },
      },
      async handle({ req, res, app, body, userId }) {
        const listing = await app.services.marketplace.create(userId(), body);
        res.location(`/api/marketplace/listings/${listing.id}`);
        answer(res, req, app, listing, 201);
      },
    }),
    operation({
      operationId: 'getMyListing',
      route: 'GET /api/marketplace/listings/:id',
      summary: 'One of your listings, in any state',
      auth: 'key|session',
      pathParams: listingPathParams,
      responses: { 200: listingAnswer, 404: missing },
      async handle({ req, res, app, params, userId }) {
        answer(res, req, app, await app.services.marketplace.getOwn(userId(), params.id));
      },
    }),
    operation({
      operationId: 'updateListing',
      route: 'PATCH /api/marketplace/listings/:id',
      summary: 'Change some fields of your listing',
      description:
        'Only the fields given change; `benchmarkRunIds` replaces the proof runs; `listingUrl: null` clears it. A sold or removed listing cannot change.',
      auth: 'key|session',
      pathParams: listingPathParams,
      body: {
        component: 'ListingPatch',
        schema: listingPatchSchema,
        examples: { price: example('A lower price', { price: 1500, currency: 'EUR' }) },
      },
      responses: { 200: listingAnswer, 400: invalid, 404: missing, 409: conflict('edited', 'SOLD') },
      async handle({ req, res, app, params, body, userId }) {
        answer(res, req, app, await app.services.marketplace.update(userId(), params.id, body));
      },
    }),
    operation({
      operationId: 'publishListing',
      route: 'POST /api/marketplace/listings/:id/publish',
      summary: 'Publish a DRAFT (it becomes ACTIVE and public)',
      auth: 'key|session',
      pathParams: listingPathParams,
      responses: { 200: listingAnswer, 404: missing, 409: conflict('published', 'ACTIVE') },
      async handle({ req, res, app, params, userId }) {
        answer(res, req, app, await app.services.marketplace.publish(userId(), params.id));
      },
    }),
    operation({
      operationId: 'markListingSold',
      route: 'POST /api/marketplace/listings/:id/sold',
      summary: 'Mark an ACTIVE listing sold (it leaves the feed)',
      auth: 'key|session',
      pathParams: listingPathParams,
      responses: { 200: listingAnswer, 404: missing, 409: conflict('marked sold', 'DRAFT') },
      async handle({ req, res, app, params, userId }) {
        answer(res, req, app, await app.services.marketplace.markSold(userId(), params.id));
      },
    }),
    operation({
      operationId: 'removeListing',
      route: 'DELETE /api/marketplace/listings/:id',
      summary: 'Remove your listing',
      description:
        'It becomes REMOVED (kept, not public); its images are no longer served 24 hours later. Removing a removed listing again is a no-op.',
      auth: 'key|session',
      pathParams: listingPathParams,
      responses: { 204: { description: 'Removed (no body).' }, 404: missing },
      async handle({ res, app, params, userId }) {
        await app.services.marketplace.remove(userId(), params.id);
        res.status(204).end();
      },
    }),
    operation({
      operationId: 'uploadListingImage',
      route: 'POST /api/marketplace/listings/:id/images',
      summary: 'Add a photo to your listing',
      description:
        `\`multipart/form-data\` with one file in field \`${IMAGE_FIELD}\`: PNG, JPEG or WebP (judged by content), at most ${IMAGE_MAX_BYTES_LABEL} and ${IMAGE_MAX_PIXELS_LABEL}; ` +
        `re-encoded with all metadata (EXIF, GPS) removed and the EXIF rotation applied; a thumbnail at most ${IMAGE_THUMB_MAX_WIDTH} px wide is made. At most ${LISTING_MAX_IMAGES} per listing, added last.`,
      auth: 'key|session',
      upload: { field: IMAGE_FIELD, description: 'The image file (PNG, JPEG or WebP)' },
      pathParams: listingPathParams,
      responses: {
        201: { description: 'The stored image.', body: 'ListingImage', headers: ['Location'] },
        400: badRequest(
          `Not a PNG, JPEG or WebP by content, over 40 megapixels, undecodable, no file in \`image\`, the listing has 12 images, or you keep ${IMAGES_PER_ACCOUNT} images already.`,
          { image: [imageMessages.wrongType] },
        ),
        404: missing,
        409: conflict('edited', 'SOLD'),
        413: {
          description: `The file is larger than ${IMAGE_MAX_BYTES_LABEL}.`,
          body: 'Error',
          examples: { tooLarge: example('Too large', errorBody(imageMessages.tooLarge)) },
        },
        503: imagesBusy,
      },
      async handle({ req, res, app, params, userId }) {
        const sellerId = userId();
        // Refuse an unknown listing before spending time on the pixels.
        await app.services.marketplace.getOwn(sellerId, params.id);
        const image = await app.services.marketplace.addImage(sellerId, params.id, await processImageUpload(uploadedImage(req)));
        res
          .status(201)
          .location(imageContentPath(image.id))
          .json(listingImageJson(image, answerOrigin(req, res, app.config)));
      },
    }),
    operation({
      operationId: 'deleteListingImage',
      route: 'DELETE /api/marketplace/listings/:id/images/:imageId',
      summary: 'Delete a photo of your listing',
      auth: 'key|session',
      pathParams: listingImagePathParams,
      responses: {
        204: { description: 'Deleted (no body); it is no longer served.' },
        404: notFound('Listing or image', messages.imageNotFound),
      },
      async handle({ res, app, params, userId }) {
        await app.services.marketplace.deleteImage(userId(), params.id, params.imageId);
        res.status(204).end();
      },
    }),
    operation({
      operationId: 'reorderListingImages',
      route: 'POST /api/marketplace/listings/:id/images/order',
      summary: 'Put the photos of your listing in a new order',
      description: 'Give every image id of the listing exactly once; the first is the cover.',
      auth: 'key|session',
      pathParams: listingPathParams,
      body: {
        component: 'ListingImageOrder',
        schema: listingImageOrderSchema,
        examples: {
          order: example('Cover first', { imageIds: ['6a1e0c2b-9d8f-4e7a-b6c5-d4e3f2a1b0c9', '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e'] }),
        },
      },
      responses: {
        200: listingAnswer,
        400: badRequest('An id is missing, repeated, or not an image of this listing.', { imageIds: [messages.listingImagesNotOfListing] }),
        404: missing,
      },
      async handle({ req, res, app, params, body, userId }) {
        answer(res, req, app, await app.services.marketplace.reorderImages(userId(), params.id, body.imageIds));
      },
    }),
  ];
}

/** The hardware marketplace (revision 3): the public feed and listings, the sellers' listings and images. */
export const marketplaceApi: ApiResource = {
  tag: { name: 'Marketplace', description: 'Hardware listings backed by their sellers\u2019 own speed-test runs (revision 3).' },

  responses: (profile): Record<string, z.ZodType> =>
    profile.marketplace
      ? {
          MarketplaceFeed: feedResponseSchema,
          ListingEnvelope: listingEnvelopeSchema,
          MyListings: myListingsResponseSchema,
          ListingImage: listingImageResponseSchema,
        }
      : {},

  operations(profile) {
    if (!profile.marketplace) return [];
    // The seller's paths first: /api/marketplace/listings/... must not be read as a listing id.
    return [...sellerOperations(), ...publicOperations(profile), ...imageOperations()];
  },
};
