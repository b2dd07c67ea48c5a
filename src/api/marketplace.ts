import { z } from 'zod';
import { NotFound } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import { IMAGE_CONTENT_TYPES } from '../lib/image-pipeline.ts';
import { idSchema } from '../schemas/path-params.schema.ts';
import { errorBody, example, invalidQuery, operation, type ApiOperation, type ApiResource, type HeaderName } from './operation.ts';

/** Headers of every image content answer (DECISIONS.md "Marketplace"): public, immutable, embeddable anywhere. */
export const IMAGE_CONTENT_HEADERS = {
  'Cache-Control': 'public, max-age=31536000, immutable',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Access-Control-Allow-Origin': '*',
  'X-Content-Type-Options': 'nosniff',
} as const;

const CONTENT_HEADER_NAMES: HeaderName[] = ['ETag', 'Cache-Control', 'Cross-Origin-Resource-Policy', 'Access-Control-Allow-Origin', 'X-Content-Type-Options'];

/** `/api/marketplace/images/{id}/content` of an image, with `?variant=thumb` for its thumbnail. */
export const imageContentPath = (imageId: string, variant: 'full' | 'thumb' = 'full') =>
  `/api/marketplace/images/${imageId}/content${variant === 'thumb' ? '?variant=thumb' : ''}`;

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
        404: { description: 'No such image, or its listing was removed more than 24 hours ago.', body: 'Error', examples: { notFound: example('Unknown image', errorBody(messages.imageNotFound)) } },
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

/** The hardware marketplace (revision 3): the public feed and listings, the sellers' listings and images. */
export const marketplaceApi: ApiResource = {
  tag: { name: 'Marketplace', description: 'Hardware listings backed by their sellers\u2019 own speed-test runs (revision 3).' },

  responses: () => ({}),

  operations(profile) {
    if (!profile.marketplace) return [];
    return [...imageOperations()];
  },
};
