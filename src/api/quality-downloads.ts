import { z } from 'zod';
import { Forbidden, NotFound } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import { datasetListResponseSchema } from '../schemas/quality-responses.schema.ts';
import { slugParam } from '../schemas/quality.schema.ts';
import { wholeNumber } from '../schemas/query-params.ts';
import {
  completeRequestSchema,
  downloadUrlResponseSchema,
  runBundleResponseSchema,
  SIGNED_QUERY_DESCRIPTIONS,
  signedQuerySchema,
  STORAGE_LIMITS,
  storageKeyQuerySchema,
  storedObjectResponseSchema,
  uploadRequestSchema,
  uploadUrlResponseSchema,
} from '../schemas/storage.schema.ts';
import { answerOrigin } from '../serialisers/origin.ts';
import {
  datasetGrant,
  datasetItemsPath,
  storageGrant,
  storageObjectPath,
  urlMaker,
  withDatasetDownloadUrls,
} from '../serialisers/quality-downloads.ts';
import { storageMessages } from '../services/storage.service.ts';
import type { SignedGrant } from '../lib/signed-urls.ts';
import type { AppContext } from '../app-context.ts';
import {
  badRequest,
  errorBody,
  example,
  invalidQuery,
  malformedJson,
  notFound,
  operation,
  type ApiCall,
  type ApiOperation,
  type ApiResource,
  type ResponseSpec,
} from './operation.ts';

/**
 * What the LocalMaxxing clients download and upload around quality runs (DECISIONS.md "Real
 * clients"): a suite's run bundle (its document with shard datasets as signed URLs), shard
 * datasets as JSON Lines, the list of approved datasets, and owned storage for datasets and
 * artifacts (announce, PUT the bytes to a signed URL, complete; download through a signed
 * URL). Signed URLs expire after 15 minutes and need no credentials.
 */

const DATASET_LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;
const datasetListQuerySchema = z.strictObject({
  limit: wholeNumber(DATASET_LIST_LIMIT.min, DATASET_LIST_LIMIT.max).default(DATASET_LIST_LIMIT.default),
  offset: wholeNumber(0, 1_000_000).default(0),
});

const storageKeyParam = z.object({
  key: z.string().max(64, storageMessages.notFound).meta({ description: 'The storage key upload-url answered' }),
});

const signedUrlRefused: ResponseSpec = {
  description: 'The URL is not one this service signed for this object, or it expired (after 15 minutes): ask for a new one.',
  body: 'Error',
  examples: { expired: example('Expired or altered link', errorBody(messages.signedUrlInvalid)) },
};
const badSignedQuery = invalidQuery({ signature: ['Must be the signature this service gave'] });
const storageNotFound = notFound('Storage object', storageMessages.notFound);

/** Refuses a request whose signed URL does not grant `grant` now. */
function requireSignature(app: AppContext, grant: SignedGrant, query: z.output<typeof signedQuerySchema>): void {
  if (!app.signer.verify(grant, query, app.clock.now())) throw new Forbidden(messages.signedUrlInvalid);
}

const urlsOf = ({ req, res, app }: ApiCall) => urlMaker(app.signer, answerOrigin(req, res, app.config), app.clock.now());

export const qualityDownloadsApi: ApiResource = {
  tag: {
    name: 'Quality downloads and storage',
    description:
      'Run bundles, shard datasets as JSON Lines, and owned storage for datasets and artifacts, through signed URLs that expire after 15 minutes.',
  },

  responses(profile) {
    if (!profile.quality) return {};
    return {
      QualityRunBundle: runBundleResponseSchema,
      StorageUploadUrl: uploadUrlResponseSchema,
      StoredObject: storedObjectResponseSchema,
      StorageDownloadUrl: downloadUrlResponseSchema,
      ...(profile.quality.submissions ? { QualityDatasetList: datasetListResponseSchema } : {}),
    };
  },

  operations(profile) {
    const quality = profile.quality;
    if (!quality) return [];
    const root = quality.root;
    const ops: ApiOperation[] = [
      operation({
        operationId: 'getQualitySuiteRunBundle',
        route: `GET ${root}/suites/:slug/run-bundle`,
        summary: 'Everything needed to run an approved suite',
        description:
          'The suite with its whole document (inline items included); each shard task carries `dataset.downloadUrl`, a signed JSON Lines download of its items, also listed by task key in `downloadUrls`. The URLs expire after 15 minutes.',
        auth: 'key|session',
        pathParams: slugParam(messages.qualitySuiteNotFound('that slug'), 'Suite slug'),
        responses: {
          200: { description: 'The run bundle.', body: 'QualityRunBundle' },
          404: notFound('Suite', messages.qualitySuiteNotFound('no-such-suite')),
        },
        async handle(call) {
          const suite = await call.app.services.qualitySuites.get(call.params.slug);
          const urls = urlsOf(call);
          const { suiteDoc, downloadUrls } = withDatasetDownloadUrls(suite.suiteDoc, root, urls);
          const expiresAt = urls.signed(datasetItemsPath(root, suite.slug), datasetGrant(suite.slug)).expiresAt.toISOString();
          const summary = { slug: suite.slug, name: suite.name, runner: suite.runner, suiteDoc };
          call.res.json({ ...summary, suite: summary, downloadUrls, expiresAt });
        },
      }),
      operation({
        operationId: 'requestQualityStorageUpload',
        route: `POST ${root}/storage/upload-url`,
        summary: 'Announce an upload to owned storage',
        description: `A dataset or artifact file up to 64 MiB (at most 1 GiB and ${STORAGE_LIMITS.userObjects} objects per user). PUT the bytes to \`uploadUrl\` with \`headers\` (size and SHA-256 are checked), then POST \`storageRef\` to ${root}/storage/complete. Uploads not completed within 24 hours are deleted.`,
        auth: 'key|session',
        body: {
          component: 'StorageUploadRequest',
          schema: uploadRequestSchema,
          examples: {
            artifact: example('A JSON Lines file of traces', {
              kind: 'artifact',
              filename: 'traces.jsonl',
              contentType: 'application/jsonl',
              format: 'jsonl',
              byteSize: 1024,
              sha256: 'a'.repeat(64),
              itemCount: 10,
            }),
          },
        },
        responses: {
          200: { description: 'Where to PUT the bytes, and the reference to complete.', body: 'StorageUploadUrl' },
          400: badRequest(
            'The body fails validation.',
            { byteSize: ['Must be at most 64 MiB (67108864 bytes)'] },
            { malformed: malformedJson },
          ),
          409: {
            description: 'The per-user storage limit (objects or bytes) is reached.',
            body: 'Error',
            examples: { full: example('Storage full', errorBody(storageMessages.quotaObjects)) },
          },
        },
        async handle(call) {
          const object = await call.app.services.storage.announce(call.userId(), call.body);
          const { url, expiresAt } = urlsOf(call).signed(storageObjectPath(root, object.key), storageGrant('PUT', object.key));
          call.res.json({
            uploadUrl: url,
            headers: { 'Content-Type': object.contentType },
            storageRef: { key: object.key },
            key: object.key,
            expiresAt: expiresAt.toISOString(),
          });
        },
      }),
      operation({
        operationId: 'putQualityStorageObject',
        route: `PUT ${root}/storage/objects/:key`,
        summary: 'The bytes of an announced upload (signed URL)',
        description:
          'The `uploadUrl` of upload-url: no credentials, the signature grants it for 15 minutes. The body must have exactly the announced size and SHA-256; it may be sent again until the object is completed.',
        auth: 'public',
        pathParams: storageKeyParam,
        query: { schema: signedQuerySchema, descriptions: SIGNED_QUERY_DESCRIPTIONS },
        rawBody: {
          maxBytes: STORAGE_LIMITS.objectBytes,
          description: 'The file, as announced (any content type).',
          // Unsigned or expired: the 403 is answered without reading up to 64 MiB first.
          admits: (req, app) => {
            const query = signedQuerySchema.safeParse(req.query);
            let key: string;
            try {
              key = decodeURIComponent(req.path.split('/').pop() ?? '');
            } catch {
              return false;
            }
            return query.success && app.signer.verify(storageGrant('PUT', key), query.data, app.clock.now());
          },
        },
        responses: {
          200: { description: 'Stored; now complete it.', body: 'StoredObject' },
          400: {
            ...badSignedQuery,
            description: 'The bytes differ from the announcement (size or SHA-256), or the query is not a signed one.',
            examples: { ...badSignedQuery.examples, hash: example('Other bytes', errorBody(storageMessages.hashMismatch)) },
          },
          403: signedUrlRefused,
          404: storageNotFound,
          409: {
            description: 'The object is already completed.',
            body: 'Error',
            examples: { complete: example('Completed already', errorBody(storageMessages.alreadyComplete)) },
          },
        },
        async handle({ req, res, app, params, query }) {
          requireSignature(app, storageGrant('PUT', params.key), query);
          const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
          res.json({ object: await app.services.storage.receive(params.key, bytes) });
        },
      }),
      operation({
        operationId: 'completeQualityStorageUpload',
        route: `POST ${root}/storage/complete`,
        summary: 'Finish an upload to owned storage',
        description:
          'After the PUT: the object is kept (unfinished uploads are deleted after 24 hours). Completing again answers the same.',
        auth: 'key|session',
        body: {
          component: 'StorageCompleteRequest',
          schema: completeRequestSchema,
          examples: { ref: example('The storageRef upload-url answered', { storageRef: { key: '00000000-0000-4000-8000-000000000000' } }) },
        },
        responses: {
          200: { description: 'The stored object.', body: 'StoredObject' },
          400: badRequest(
            'The body fails validation.',
            { storageRef: ['Must be the storageRef upload-url answered ({ key })'] },
            { malformed: malformedJson },
          ),
          404: storageNotFound,
          409: {
            description: 'Nothing was uploaded to the object yet.',
            body: 'Error',
            examples: { empty: example('Not uploaded', errorBody(storageMessages.notUploaded)) },
          },
        },
        async handle({ res, app, body, userId }) {
          const key = typeof body.storageRef === 'string' ? body.storageRef : body.storageRef.key;
          res.json({ object: await app.services.storage.complete(userId(), key) });
        },
      }),
      operation({
        operationId: 'getQualityStorageDownloadUrl',
        route: `GET ${root}/storage/download-url`,
        summary: 'A signed download URL of a stored object',
        description:
          'For its owner (key or session), or for anyone once an approved suite or dataset uses the object. The URL needs no credentials and expires after 15 minutes.',
        auth: 'public',
        query: { schema: storageKeyQuerySchema, descriptions: { key: 'The storage key upload-url answered' } },
        responses: {
          200: { description: 'Where to GET the bytes.', body: 'StorageDownloadUrl' },
          400: invalidQuery({ key: ['Required'] }),
          404: storageNotFound,
        },
        async handle(call) {
          const object = await call.app.services.storage.downloadable(call.viewerId, call.query.key);
          const { url, expiresAt } = urlsOf(call).signed(storageObjectPath(root, object.key), storageGrant('GET', object.key));
          call.res.json({ downloadUrl: url, expiresAt: expiresAt.toISOString(), object });
        },
      }),
      operation({
        operationId: 'getQualityStorageObject',
        route: `GET ${root}/storage/objects/:key`,
        summary: 'The bytes of a stored object (signed URL)',
        description:
          'The `downloadUrl` of download-url: no credentials, the signature grants it for 15 minutes. Always `application/octet-stream`, as an attachment.',
        auth: 'public',
        pathParams: storageKeyParam,
        query: { schema: signedQuerySchema, descriptions: SIGNED_QUERY_DESCRIPTIONS },
        responses: {
          200: { description: 'The bytes.', alternatives: [{ mediaType: 'application/octet-stream', description: 'The stored file.' }] },
          400: badSignedQuery,
          403: signedUrlRefused,
          404: storageNotFound,
        },
        async handle({ res, app, params, query }) {
          requireSignature(app, storageGrant('GET', params.key), query);
          const content = await app.services.storage.content(params.key);
          if (!content) throw new NotFound(storageMessages.notFound);
          // Never rendered by a browser as what it claims to be: bytes, to be saved.
          res.attachment(content.filename).type('application/octet-stream').send(content.bytes);
        },
      }),
    ];
    if (quality.submissions) {
      ops.push(
        operation({
          operationId: 'listQualityDatasets',
          route: `GET ${root}/datasets`,
          summary: 'List approved datasets',
          description: 'Newest first, without their items (GET one dataset for its shards).',
          auth: 'public',
          query: { schema: datasetListQuerySchema, descriptions: { limit: 'Page size', offset: 'Rows to skip' } },
          responses: {
            200: { description: 'One page of approved datasets.', body: 'QualityDatasetList' },
            400: invalidQuery({ limit: ['Must be at most 100'] }),
          },
          async handle({ res, app, query }) {
            res.json(await app.services.qualitySuites.listDatasets(query));
          },
        }),
        operation({
          operationId: 'getQualityDatasetItems',
          route: `GET ${root}/datasets/:slug/items`,
          summary: "A shard dataset's items as JSON Lines (signed URL)",
          description:
            'The `dataset.downloadUrl` of a shard task in a suite answer or run bundle: every item of every shard in order, one JSON object a line. No credentials; the signature grants it for 15 minutes.',
          auth: 'public',
          pathParams: slugParam(messages.qualityDatasetNotFound('that slug'), 'Dataset slug'),
          query: { schema: signedQuerySchema, descriptions: SIGNED_QUERY_DESCRIPTIONS },
          responses: {
            200: { description: 'The items.', alternatives: [{ mediaType: 'application/x-ndjson', description: 'One item a line.' }] },
            400: badSignedQuery,
            403: signedUrlRefused,
            404: notFound('Dataset', messages.qualityDatasetNotFound('no-such-dataset')),
          },
          async handle({ res, app, params, query }) {
            requireSignature(app, datasetGrant(params.slug), query);
            const items = await app.services.qualitySuites.datasetItems(params.slug);
            res.type('application/x-ndjson').send(items.map((item) => `${JSON.stringify(item)}\n`).join(''));
          },
        }),
      );
    }
    return ops;
  },
};
