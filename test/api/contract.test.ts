import { createHash, randomUUID } from 'node:crypto';
import { EXECUTE_LIMITS } from '../../src/schemas/execute.schema.ts';
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import sharp from 'sharp';
import { seedDemoCatalogue } from '../../src/db/seeds/demo-models.ts';
import { contentHash } from '../../src/lib/canonical-json.ts';
import { submissionExamples } from '../../src/openapi/examples.ts';
import { apiOperations, openApiPath } from '../../src/api/index.ts';
import { responseHeaders, type ApiOperation, type HeaderName } from '../../src/api/operation.ts';
import { QUALITY_BODY_LIMITS } from '../../src/api/quality.ts';
import { IMAGE_MAX_BYTES, imageProcessingQueue } from '../../src/lib/image-pipeline.ts';
import { imageReadQueue } from '../../src/services/images.service.ts';
import { getRevisionProfile, type RevisionNumber } from '../../src/revisions.ts';
import { createUrlSigner, type SignedGrant } from '../../src/lib/signed-urls.ts';
import { datasetGrant, storageGrant } from '../../src/serialisers/quality-downloads.ts';
import { createKey, signedUpAgent, useTestApp, type Agent, type TestContext } from '../helpers/app.ts';
import { executeBody } from '../helpers/executions.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { whileFull } from '../helpers/work-queue.ts';
import { schemaChecker, type SchemaChecker } from '../helpers/openapi.ts';
import {
  ARITHMETIC_ITEMS,
  approveQualityRun,
  approveSuite,
  customSuite,
  qualityRun,
  registerSuite,
  submitQualityRun,
  uniqueSlug,
} from '../helpers/quality.ts';

/**
 * "Every documented response status for a route is produced by some test": this file has a
 * producer for each (operation, status) pair of the route table and runs them all, per
 * revision, against the real app. Each answer must have the documented status, a body that
 * validates (ajv, JSON Schema 2020-12) against the schema the served OpenAPI document gives
 * for that status, and the headers it documents. A documented status without a producer,
 * or a producer for a status that is not documented, fails the first test. So the document
 * can neither promise an answer the app never gives nor leave one out that a test knows.
 */

type Body = Record<string, unknown>;

interface Account {
  id: string;
  username: string;
  agent: Agent;
  csrf: string;
  key: string;
}

/** What the quality producers need, all the owner's (revisions with quality evaluations). */
interface QualityFixtures {
  /** An approved suite; in revisions with datasets one of its tasks reads `approvedDataset`. */
  suite: { id: string; slug: string };
  /** A pending suite: runs against it are a 422. */
  pendingSuite: string;
  /** A run body covering `suite`, with traces the server re-scores. */
  runBody: Body;
  /** An approved run of `suite`, with its traces. */
  runId: string;
  /** Revisions with submissions: a rejected suite and the body that corrects it. */
  rejectedSuite?: { id: string; body: Body };
  approvedDataset?: { id: string; slug: string };
  pendingDataset?: { id: string; body: Body };
}

interface Fixtures {
  owner: Account;
  runId: string;
  setups: { alpha: string; beta: string };
  quality?: QualityFixtures;
  marketplace?: MarketplaceFixtures;
}

interface Call {
  ctx: TestContext;
  fx: Fixtures;
  op: ApiOperation;
  revision: RevisionNumber;
  /** The operation's path with its parameters filled in. */
  path(params?: Record<string, string>): string;
}

type Producer = (call: Call) => Promise<request.Response>;

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

/** The OpenAI-compatible server executions are aimed at (one for the whole file). */
let fakeTarget: FakeOpenAi;
after(() => fakeTarget?.close());

const metricRuleStatus = (call: Call) => {
  const rule = getRevisionProfile(call.revision).speedTests.metricRule;
  return 'status' in rule ? rule.status : undefined;
};

/** A submission that meets everything but the revision's any-of metric rule (a 422). */
function failingMetricRule(call: Call): Body {
  const rule = getRevisionProfile(call.revision).speedTests.metricRule;
  const body = validSubmission({ tokSOut: 42.5, ttftMs: undefined });
  if (rule.kind === 'anyOf') for (const field of rule.fields) delete body[field];
  return body;
}

const bearer = (call: Call) => ({ Authorization: `Bearer ${call.fx.owner.key}` });
const windowMs = (call: Call) => getRevisionProfile(call.revision).speedTests.submissionLimit.windowMs;

/** The next submission is outside the rate-limit window. */
function nextWindow(call: Call): void {
  call.ctx.clock.advance(windowMs(call) + 1000);
}

function submit(call: Call, body: Body = validSubmission(), headers: Record<string, string> = {}) {
  return request(call.ctx.app)
    .post(call.path())
    .set({ ...bearer(call), ...headers })
    .send(body);
}

/** A new run of the owner's (outside the window), for the operations that change one. */
async function freshRun(call: Call): Promise<string> {
  nextWindow(call);
  const res = await request(call.ctx.app)
    .post(getRevisionProfile(call.revision).speedTests.resultsPath)
    .set(bearer(call))
    .send(validSubmission())
    .expect(201);
  return res.body.id;
}

/** Path parameters that name nothing. */
const NOTHING = { id: MISSING_ID, imageId: MISSING_ID, kind: 'suite', slug: 'no-such-thing' };

const anonymous = (call: Call, body?: Body) => {
  const req = request(call.ctx.app)[call.op.method](call.path(NOTHING));
  return body ? req.send(body) : req;
};
/** A signed-in browser request without the CSRF token. */
const withoutCsrf = (call: Call, path: string, body: Body = {}) => call.fx.owner.agent[call.op.method](path).send(body);
const withCsrf = (call: Call) => call.fx.owner.agent[call.op.method](call.path(NOTHING)).set('X-CSRF-Token', call.fx.owner.csrf);

const cachedDocument = (path: string) => ({
  200: (call: Call) => request(call.ctx.app).get(path).set('Host', 'contract.test'),
  304: async (call: Call) => {
    const first = await request(call.ctx.app).get(path).set('Host', 'contract.test').expect(200);
    return request(call.ctx.app).get(path).set('Host', 'contract.test').set('If-None-Match', first.headers.etag);
  },
});

async function newAccount(ctx: TestContext): Promise<Account> {
  const { agent, csrf, username } = await signedUpAgent(ctx.app);
  const { key } = await createKey(agent, csrf);
  const { id } = await ctx.db('users').where({ username }).first('id');
  return { id, username, agent, csrf, key };
}

// ---------------------------------------------------------------------------
// Quality evaluations
// ---------------------------------------------------------------------------

const quality = (call: Call) => call.fx.quality!;
const qualityRoot = (revision: RevisionNumber) => getRevisionProfile(revision).quality!.root;

/** The next quality run is outside the user's quality window. */
function nextQualityWindow(call: Call): void {
  call.ctx.clock.advance(getRevisionProfile(call.revision).quality!.submissionLimit.windowMs + 1000);
}

const runBody = (call: Call, overrides: Body = {}): Body => ({ ...structuredClone(quality(call).runBody), ...overrides });

/** A sharded dataset of the arithmetic items, in two shards. */
const datasetBody = (overrides: Body = {}): Body => ({
  slug: uniqueSlug('shards'),
  name: 'Arithmetic in shards',
  license: 'CC0-1.0',
  shards: [
    { name: 'first', items: ARITHMETIC_ITEMS.slice(0, 2) },
    { name: 'second', items: ARITHMETIC_ITEMS.slice(2) },
  ],
  ...overrides,
});

// A body just over a limit ('16 MB'), built once per limit: the parser refuses it by its length.
const oversizedBodies = new Map<string, string>();
function overLimit(call: Call, limit: string, params: Record<string, string> = {}) {
  const bytes = Number.parseInt(limit, 10) * 1024 * 1024;
  let body = oversizedBodies.get(limit);
  if (!body) oversizedBodies.set(limit, (body = `{"pad":"${'y'.repeat(bytes)}"}`));
  return request(call.ctx.app)[call.op.method](call.path(params)).set(bearer(call)).set('Content-Type', 'application/json').send(body);
}

const asOwner = (call: Call, path: string) => request(call.ctx.app)[call.op.method](path).set(bearer(call));

/**
 * The quality fixtures of a revision: an approved dataset (where there are datasets), an
 * approved suite using it, a pending and a rejected suite, a pending dataset, and an
 * approved run with traces.
 */
async function qualityFixtures(ctx: TestContext, owner: Account, revision: RevisionNumber): Promise<QualityFixtures | undefined> {
  const rules = getRevisionProfile(revision).quality;
  if (!rules) return undefined;
  const root = rules.root;
  const create = async (path: string, body: Body) =>
    (await request(ctx.app).post(`${root}${path}`).set('Authorization', `Bearer ${owner.key}`).send(body).expect(201)).body;

  let approvedDataset: QualityFixtures['approvedDataset'];
  let pendingDataset: QualityFixtures['pendingDataset'];
  let rejectedSuite: QualityFixtures['rejectedSuite'];
  if (rules.submissions) {
    const approved = await create('/datasets', datasetBody());
    await ctx.db('quality_datasets').where({ id: approved.id }).update({ status: 'APPROVED', reviewed_at: ctx.db.fn.now() });
    approvedDataset = { id: approved.id, slug: approved.slug };
    const pendingBody = datasetBody();
    pendingDataset = { id: (await create('/datasets', pendingBody)).id, body: pendingBody };
    const rejectedBody = customSuite();
    const rejected = await registerSuite(ctx, root, owner, rejectedBody);
    await ctx
      .db('quality_suites')
      .where({ id: rejected.id })
      .update({ status: 'REJECTED', admin_notes: 'The colours task needs more items', reviewed_at: ctx.db.fn.now() });
    rejectedSuite = { id: rejected.id, body: { ...rejectedBody, description: 'Corrected after review' } };
  }

  const suiteBody = customSuite();
  const results: Body = { arith: 0.75, colours: { score: 0.5, nShots: 0, nSamples: 2 } };
  if (approvedDataset) {
    suiteBody.suiteDoc.tasks.push({
      key: 'shard',
      taskType: 'qa',
      promptTemplate: 'Q: {{input}}\nA:',
      answerExtraction: 'last_number',
      dataset: { source: 'shard', datasetSlug: approvedDataset.slug },
    });
    results.shard = { score: 1, nSamples: ARITHMETIC_ITEMS.length };
  }
  const suite = await registerSuite(ctx, root, owner, suiteBody);
  await approveSuite(ctx, suite.slug);
  const pendingSuite = (await registerSuite(ctx, root, owner, customSuite())).slug;

  const body = qualityRun(suite.slug, {
    results,
    runnerVersion: 'contract-test 1.0',
    artifacts: [
      { taskKey: 'arith', itemIndex: 0, question: ARITHMETIC_ITEMS[0]!.input, response: 'Two and two make 4.', score: 1, latencyMs: 120 },
      { taskKey: 'arith', itemIndex: 1, response: '<think>10 minus 3</think>6', score: 1, latencyMs: 95 },
    ],
  });
  const run = await submitQualityRun(ctx, root, owner, body);
  await approveQualityRun(ctx, run.id);
  return {
    suite: { id: suite.id, slug: suite.slug },
    pendingSuite,
    runBody: body,
    runId: run.id,
    rejectedSuite,
    approvedDataset,
    pendingDataset,
  };
}

// ---------------------------------------------------------------------------
// Marketplace (revision 3)
// ---------------------------------------------------------------------------

interface MarketplaceFixtures {
  /** A stored listing image of the owner's. */
  imageId: string;
  /** An ACTIVE listing of the owner's with a proof run and `imageId` as its photo. */
  listingId: string;
}

const listingBody = (runId: string): Body => ({
  title: 'RTX 4090',
  condition: 'USED',
  price: 1200,
  currency: 'EUR',
  hwClass: 'DISCRETE_GPU',
  hardwareName: 'RTX 4090',
  contactUrl: 'mailto:seller@example.com',
  benchmarkRunIds: [runId],
});
const smallPng = () =>
  sharp({ create: { width: 640, height: 320, channels: 3, background: '#2a6' } })
    .png()
    .toBuffer();

async function marketplaceFixtures(
  ctx: TestContext,
  owner: Account,
  runId: string,
  revision: RevisionNumber,
): Promise<MarketplaceFixtures | undefined> {
  if (!getRevisionProfile(revision).marketplace) return undefined;
  const auth = { Authorization: `Bearer ${owner.key}` };
  const listing = (await request(ctx.app).post('/api/marketplace/listings').set(auth).send(listingBody(runId)).expect(201)).body.listing;
  const image = await request(ctx.app)
    .post(`/api/marketplace/listings/${listing.id}/images`)
    .set(auth)
    .attach('image', await smallPng(), 'photo.png')
    .expect(201);
  await request(ctx.app).post(`/api/marketplace/listings/${listing.id}/publish`).set(auth).expect(200);
  return { imageId: image.body.id, listingId: listing.id };
}

const market = (call: Call) => call.fx.marketplace!;
const imageContent = (call: Call, query = '') => request(call.ctx.app).get(`${call.path({ imageId: market(call).imageId })}${query}`);
/** A new DRAFT listing of the owner's (published when asked), for the operations that change one. */
async function ownListing(call: Call, status: 'DRAFT' | 'ACTIVE' = 'DRAFT'): Promise<string> {
  const res = await request(call.ctx.app).post('/api/marketplace/listings').set(bearer(call)).send(listingBody(call.fx.runId)).expect(201);
  if (status === 'ACTIVE')
    await request(call.ctx.app).post(`/api/marketplace/listings/${res.body.listing.id}/publish`).set(bearer(call)).expect(200);
  return res.body.listing.id;
}
const onListing = async (call: Call, status: 'DRAFT' | 'ACTIVE' = 'DRAFT') =>
  asOwner(call, call.path({ id: await ownListing(call, status), imageId: MISSING_ID }));
const onActive = (call: Call) => asOwner(call, call.path({ id: market(call).listingId, imageId: market(call).imageId }));
const missingListing = (call: Call) => asOwner(call, call.path({ id: MISSING_ID, imageId: MISSING_ID }));
const uploadTo = (call: Call, id: string, bytes: Buffer, name = 'photo.png') =>
  asOwner(call, call.path({ id })).attach('image', bytes, name);

/** Keyed like `producers`: every documented answer of the marketplace operations. */
const marketplaceProducers: Record<string, Producer> = {
  'getMarketplaceImageContent 200': (call) => imageContent(call, '?variant=thumb'),
  'getMarketplaceImageContent 304': async (call) => {
    const first = await imageContent(call).expect(200);
    return imageContent(call).set('If-None-Match', first.headers.etag);
  },
  'getMarketplaceImageContent 400': (call) => imageContent(call, '?variant=large'),
  'getMarketplaceImageContent 404': (call) => request(call.ctx.app).get(call.path({ imageId: MISSING_ID })),
  // A fresh image (not yet in the cache) while the byte reads are all taken.
  'getMarketplaceImageContent 503': async (call) => {
    const listingId = await ownListing(call);
    const image = await request(call.ctx.app)
      .post(`/api/marketplace/listings/${listingId}/images`)
      .set(bearer(call))
      .attach('image', await smallPng(), 'photo.png')
      .expect(201);
    return whileFull(imageReadQueue, async () => request(call.ctx.app).get(call.path({ imageId: image.body.id })));
  },

  'getMarketplaceFeed 200': (call) => request(call.ctx.app).get(`${call.path()}?limit=1`),
  'getMarketplaceFeed 400': (call) => request(call.ctx.app).get(`${call.path()}?cursor=bm90LWEtY3Vyc29y`),
  'getMarketplaceListing 200': (call) => request(call.ctx.app).get(call.path({ id: market(call).listingId })),
  'getMarketplaceListing 404': async (call) => request(call.ctx.app).get(call.path({ id: await ownListing(call) })),

  'listMyListings 200': (call) => asOwner(call, `${call.path()}?status=ACTIVE`),
  'listMyListings 400': (call) => asOwner(call, `${call.path()}?limit=500`),
  'listMyListings 401': (call) => anonymous(call),
  'createListing 201': (call) => asOwner(call, call.path()).send(listingBody(call.fx.runId)),
  'createListing 400': (call) => asOwner(call, call.path()).send({ ...listingBody(call.fx.runId), benchmarkRunIds: [MISSING_ID] }),
  'createListing 401': (call) => anonymous(call, listingBody(call.fx.runId)),
  'createListing 403': (call) => withoutCsrf(call, call.path(), listingBody(call.fx.runId)),
  'getMyListing 200': (call) => onActive(call),
  'getMyListing 401': (call) => anonymous(call),
  'getMyListing 404': (call) => missingListing(call),
  'updateListing 200': (call) => onActive(call).send({ description: 'Updated' }),
  'updateListing 400': (call) => onActive(call).send({ condition: 'MINT' }),
  'updateListing 401': (call) => anonymous(call, { price: 1 }),
  'updateListing 403': (call) => withoutCsrf(call, call.path({ id: market(call).listingId }), { price: 1 }),
  'updateListing 404': (call) => missingListing(call).send({ price: 1 }),
  'updateListing 409': async (call) => {
    const id = await ownListing(call, 'ACTIVE');
    await request(call.ctx.app).post(`/api/marketplace/listings/${id}/sold`).set(bearer(call)).expect(200);
    return asOwner(call, call.path({ id })).send({ price: 1 });
  },
  'publishListing 200': (call) => onListing(call),
  'publishListing 401': (call) => anonymous(call),
  'publishListing 403': (call) => withoutCsrf(call, call.path({ id: market(call).listingId })),
  'publishListing 404': (call) => missingListing(call),
  'publishListing 409': (call) => onActive(call),
  'markListingSold 200': (call) => onListing(call, 'ACTIVE'),
  'markListingSold 401': (call) => anonymous(call),
  'markListingSold 403': (call) => withoutCsrf(call, call.path({ id: market(call).listingId })),
  'markListingSold 404': (call) => missingListing(call),
  'markListingSold 409': (call) => onListing(call),
  'removeListing 204': (call) => onListing(call),
  'removeListing 401': (call) => anonymous(call),
  'removeListing 403': (call) => withoutCsrf(call, call.path({ id: market(call).listingId })),
  'removeListing 404': (call) => missingListing(call),
  'uploadListingImage 201': async (call) => uploadTo(call, await ownListing(call), await smallPng()),
  'uploadListingImage 400': async (call) => uploadTo(call, await ownListing(call), Buffer.from('plain text, not an image'), 'photo.jpg'),
  'uploadListingImage 401': (call) => anonymous(call),
  'uploadListingImage 403': (call) => withoutCsrf(call, call.path({ id: market(call).listingId })),
  'uploadListingImage 404': async (call) => uploadTo(call, MISSING_ID, await smallPng()),
  'uploadListingImage 409': async (call) => {
    const id = await ownListing(call);
    await request(call.ctx.app).delete(`/api/marketplace/listings/${id}`).set(bearer(call)).expect(204);
    return uploadTo(call, id, await smallPng());
  },
  'uploadListingImage 413': async (call) => uploadTo(call, await ownListing(call), Buffer.alloc(IMAGE_MAX_BYTES + 1)),
  'uploadListingImage 503': async (call) => {
    const [listingId, png] = [await ownListing(call), await smallPng()];
    return whileFull(imageProcessingQueue, async () => uploadTo(call, listingId, png));
  },
  'deleteListingImage 204': async (call) => {
    const id = await ownListing(call);
    const image = await request(call.ctx.app)
      .post(`/api/marketplace/listings/${id}/images`)
      .set(bearer(call))
      .attach('image', await smallPng(), 'photo.png')
      .expect(201);
    return asOwner(call, call.path({ id, imageId: image.body.id }));
  },
  'deleteListingImage 401': (call) => anonymous(call),
  'deleteListingImage 403': (call) => withoutCsrf(call, call.path({ id: market(call).listingId, imageId: market(call).imageId })),
  'deleteListingImage 404': (call) => missingListing(call),
  'reorderListingImages 200': (call) => onActive(call).send({ imageIds: [market(call).imageId] }),
  'reorderListingImages 400': (call) => onActive(call).send({ imageIds: [] }),
  'reorderListingImages 401': (call) => anonymous(call, { imageIds: [] }),
  'reorderListingImages 403': (call) => withoutCsrf(call, call.path({ id: market(call).listingId }), { imageIds: [] }),
  'reorderListingImages 404': (call) => missingListing(call).send({ imageIds: [] }),
};

/** Keyed like `producers`: every documented answer of the quality operations. */
/** Owned storage and signed downloads: an object announced (and maybe put and completed) by the owner, URLs as the service signs them. */
const storageBytes = Buffer.from('contract storage bytes');
const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const searchOf = (url: string) => new URL(url).search;
/** A URL's query signed by the test app's own secret: for things that do not exist, which the service never signs. */
const signedSearch = (call: Call, grant: SignedGrant) => {
  const { expires, signature } = createUrlSigner(call.ctx.config.sessionSecret).sign(grant, call.ctx.clock.now());
  return `?expires=${expires}&signature=${signature}`;
};
const BAD_SIGNATURE = `?expires=4102444800&signature=${'0'.repeat(64)}`;
async function announcedObject(call: Call, who: Account = call.fx.owner): Promise<{ key: string; uploadSearch: string }> {
  const res = await request(call.ctx.app)
    .post(`${qualityRoot(call.revision)}/storage/upload-url`)
    .set('Authorization', `Bearer ${who.key}`)
    .send({
      kind: 'artifact',
      filename: 'traces.bin',
      contentType: 'application/octet-stream',
      format: 'bin',
      byteSize: storageBytes.length,
      sha256: sha256Of(storageBytes),
    })
    .expect(200);
  return { key: res.body.key, uploadSearch: searchOf(res.body.uploadUrl) };
}
const putBytes = (call: Call, path: string, bytes: Buffer = storageBytes) =>
  request(call.ctx.app).put(path).set('Content-Type', 'application/octet-stream').send(bytes);
async function uploadedObject(call: Call): Promise<string> {
  const { key, uploadSearch } = await announcedObject(call);
  await putBytes(call, `${qualityRoot(call.revision)}/storage/objects/${key}${uploadSearch}`).expect(200);
  return key;
}
async function completedObject(call: Call): Promise<string> {
  const key = await uploadedObject(call);
  await request(call.ctx.app)
    .post(`${qualityRoot(call.revision)}/storage/complete`)
    .set(bearer(call))
    .send({ storageRef: { key } })
    .expect(200);
  return key;
}
const storageUpload = {
  kind: 'artifact',
  filename: 'traces.jsonl',
  contentType: 'application/jsonl',
  format: 'jsonl',
  byteSize: 10,
  sha256: 'a'.repeat(64),
};
/** The signed download query of the approved shard dataset, as the suite answer hands it out. */
async function datasetItemsSearch(call: Call): Promise<string> {
  const suite = await request(call.ctx.app)
    .get(`${qualityRoot(call.revision)}/suites/${quality(call).suite.slug}`)
    .expect(200);
  const shard = suite.body.suiteDoc.tasks.find((task: Body) => (task.dataset as Body | undefined)?.downloadUrl);
  return searchOf(shard.dataset.downloadUrl);
}

/** Keyed like `producers`: run bundles, datasets as JSON Lines, owned storage. */
const downloadProducers: Record<string, Producer> = {
  'getQualitySuiteRunBundle 200': (call) => asOwner(call, call.path({ slug: quality(call).suite.slug })),
  'getQualitySuiteRunBundle 401': (call) => anonymous(call),
  'getQualitySuiteRunBundle 404': (call) => asOwner(call, call.path({ slug: 'no-such-suite' })),

  'requestQualityStorageUpload 200': (call) => asOwner(call, call.path()).send(storageUpload),
  'requestQualityStorageUpload 400': (call) => asOwner(call, call.path()).send({ ...storageUpload, kind: 'video' }),
  'requestQualityStorageUpload 401': (call) => anonymous(call, storageUpload),
  'requestQualityStorageUpload 403': (call) => withoutCsrf(call, call.path(), storageUpload),
  'requestQualityStorageUpload 409': async (call) => {
    const full = await newAccount(call.ctx);
    const row = {
      owner_user_id: full.id,
      kind: 'artifact',
      filename: 'f',
      content_type: 'a/b',
      format: 'bin',
      byte_size: 1,
      sha256: 'a'.repeat(64),
    };
    await call.ctx.db('storage_objects').insert(Array.from({ length: 200 }, () => row));
    return request(call.ctx.app).post(call.path()).set('Authorization', `Bearer ${full.key}`).send(storageUpload);
  },

  'putQualityStorageObject 200': async (call) => {
    const { key, uploadSearch } = await announcedObject(call);
    return putBytes(call, call.path({ key }) + uploadSearch);
  },
  'putQualityStorageObject 400': async (call) => {
    const { key, uploadSearch } = await announcedObject(call);
    return putBytes(call, call.path({ key }) + uploadSearch, Buffer.from('other bytes, same length'.slice(0, storageBytes.length)));
  },
  'putQualityStorageObject 403': async (call) => putBytes(call, call.path({ key: (await announcedObject(call)).key }) + BAD_SIGNATURE),
  'putQualityStorageObject 404': (call) =>
    putBytes(call, call.path({ key: MISSING_ID }) + signedSearch(call, storageGrant('PUT', MISSING_ID))),
  'putQualityStorageObject 409': async (call) => {
    const { key, uploadSearch } = await announcedObject(call);
    await putBytes(call, `${qualityRoot(call.revision)}/storage/objects/${key}${uploadSearch}`).expect(200);
    await request(call.ctx.app)
      .post(`${qualityRoot(call.revision)}/storage/complete`)
      .set(bearer(call))
      .send({ storageRef: { key } })
      .expect(200);
    return putBytes(call, call.path({ key }) + uploadSearch);
  },
  'putQualityStorageObject 413': async (call) => {
    const { key, uploadSearch } = await announcedObject(call);
    return putBytes(call, call.path({ key }) + uploadSearch, Buffer.alloc(64 * 1024 * 1024 + 1));
  },

  'completeQualityStorageUpload 200': async (call) => asOwner(call, call.path()).send({ storageRef: { key: await uploadedObject(call) } }),
  'completeQualityStorageUpload 400': (call) => asOwner(call, call.path()).send({}),
  'completeQualityStorageUpload 401': (call) => anonymous(call, { storageRef: { key: MISSING_ID } }),
  'completeQualityStorageUpload 403': (call) => withoutCsrf(call, call.path(), { storageRef: { key: MISSING_ID } }),
  'completeQualityStorageUpload 404': (call) => asOwner(call, call.path()).send({ storageRef: MISSING_ID }),
  'completeQualityStorageUpload 409': async (call) =>
    asOwner(call, call.path()).send({ storageRef: { key: (await announcedObject(call)).key } }),

  'getQualityStorageDownloadUrl 200': async (call) => asOwner(call, `${call.path()}?key=${await completedObject(call)}`),
  'getQualityStorageDownloadUrl 400': (call) => asOwner(call, call.path()),
  'getQualityStorageDownloadUrl 404': (call) => asOwner(call, `${call.path()}?key=${MISSING_ID}`),

  'getQualityStorageObject 200': async (call) => {
    const key = await completedObject(call);
    return request(call.ctx.app).get(call.path({ key }) + signedSearch(call, storageGrant('GET', key)));
  },
  'getQualityStorageObject 400': (call) => request(call.ctx.app).get(call.path({ key: MISSING_ID })),
  'getQualityStorageObject 403': async (call) => request(call.ctx.app).get(call.path({ key: await completedObject(call) }) + BAD_SIGNATURE),
  'getQualityStorageObject 404': (call) =>
    request(call.ctx.app).get(call.path({ key: MISSING_ID }) + signedSearch(call, storageGrant('GET', MISSING_ID))),

  'listQualityDatasets 200': (call) => request(call.ctx.app).get(call.path()),
  'listQualityDatasets 400': (call) => request(call.ctx.app).get(call.path()).query({ limit: '0' }),
  'getQualityDatasetItems 200': async (call) =>
    request(call.ctx.app).get(call.path({ slug: quality(call).approvedDataset!.slug }) + (await datasetItemsSearch(call))),
  'getQualityDatasetItems 400': (call) => request(call.ctx.app).get(call.path({ slug: quality(call).approvedDataset!.slug })),
  'getQualityDatasetItems 403': (call) =>
    request(call.ctx.app).get(call.path({ slug: quality(call).approvedDataset!.slug }) + BAD_SIGNATURE),
  'getQualityDatasetItems 404': (call) =>
    request(call.ctx.app).get(call.path({ slug: 'no-such-dataset' }) + signedSearch(call, datasetGrant('no-such-dataset'))),
};

const qualityProducers: Record<string, Producer> = {
  'listQualitySuites 200': (call) => request(call.ctx.app).get(call.path()).query({ runner: 'CUSTOM' }),
  'listQualitySuites 400': (call) => request(call.ctx.app).get(call.path()).query({ runner: 'SOMETHING_ELSE' }),
  'getQualitySuite 200': (call) => request(call.ctx.app).get(call.path({ slug: quality(call).suite.slug })),
  'getQualitySuite 404': (call) => request(call.ctx.app).get(call.path({ slug: 'no-such-suite' })),

  'registerQualitySuite 201': (call) => submit(call, customSuite()),
  'registerQualitySuite 400': (call) => submit(call, customSuite({ slug: 'Not_A_Slug' })),
  'registerQualitySuite 401': (call) => anonymous(call, customSuite()),
  'registerQualitySuite 403': (call) => withoutCsrf(call, call.path(), customSuite()),
  'registerQualitySuite 409': (call) => submit(call, customSuite({ slug: quality(call).suite.slug })),
  'registerQualitySuite 413': (call) => overLimit(call, QUALITY_BODY_LIMITS.suite),

  'dryRunQualitySuite 200': (call) => submit(call, customSuite()),
  'dryRunQualitySuite 400': (call) => submit(call, customSuite({ slug: quality(call).suite.slug })),
  'dryRunQualitySuite 401': (call) => anonymous(call, customSuite()),
  'dryRunQualitySuite 403': (call) => withoutCsrf(call, call.path(), customSuite()),
  'dryRunQualitySuite 413': (call) => overLimit(call, QUALITY_BODY_LIMITS.suite),

  'listQualitySubmissions 200': (call) => asOwner(call, call.path()),
  'listQualitySubmissions 401': (call) => anonymous(call),

  'updateQualitySuiteSubmission 200': (call) =>
    asOwner(call, call.path({ id: quality(call).rejectedSuite!.id })).send(quality(call).rejectedSuite!.body),
  'updateQualitySuiteSubmission 400': (call) =>
    asOwner(call, call.path({ id: quality(call).rejectedSuite!.id })).send({ ...quality(call).rejectedSuite!.body, runner: 'OTHER' }),
  'updateQualitySuiteSubmission 401': (call) => anonymous(call, customSuite()),
  'updateQualitySuiteSubmission 403': (call) => withoutCsrf(call, call.path({ id: quality(call).rejectedSuite!.id }), customSuite()),
  'updateQualitySuiteSubmission 404': (call) => asOwner(call, call.path({ id: MISSING_ID })).send(customSuite()),
  'updateQualitySuiteSubmission 409': (call) => asOwner(call, call.path({ id: quality(call).suite.id })).send(customSuite()),
  'updateQualitySuiteSubmission 413': (call) => overLimit(call, QUALITY_BODY_LIMITS.suite, { id: quality(call).rejectedSuite!.id }),

  'updateQualityDatasetSubmission 200': (call) =>
    asOwner(call, call.path({ id: quality(call).pendingDataset!.id })).send(quality(call).pendingDataset!.body),
  'updateQualityDatasetSubmission 400': (call) =>
    asOwner(call, call.path({ id: quality(call).pendingDataset!.id })).send({
      ...quality(call).pendingDataset!.body,
      shards: [{ items: [{ input: 'No answer given' }] }],
    }),
  'updateQualityDatasetSubmission 401': (call) => anonymous(call, datasetBody()),
  'updateQualityDatasetSubmission 403': (call) => withoutCsrf(call, call.path({ id: quality(call).pendingDataset!.id }), datasetBody()),
  'updateQualityDatasetSubmission 404': (call) => asOwner(call, call.path({ id: MISSING_ID })).send(datasetBody()),
  'updateQualityDatasetSubmission 409': (call) => asOwner(call, call.path({ id: quality(call).approvedDataset!.id })).send(datasetBody()),
  'updateQualityDatasetSubmission 413': (call) => overLimit(call, QUALITY_BODY_LIMITS.suite, { id: quality(call).pendingDataset!.id }),

  'withdrawQualitySubmission 200': async (call) => {
    const doomed = await registerSuite(call.ctx, qualityRoot(call.revision), call.fx.owner, customSuite());
    return asOwner(call, call.path({ kind: 'suite', id: doomed.id }));
  },
  'withdrawQualitySubmission 401': (call) => anonymous(call),
  'withdrawQualitySubmission 403': (call) => withoutCsrf(call, call.path({ kind: 'suite', id: MISSING_ID })),
  'withdrawQualitySubmission 404': (call) => asOwner(call, call.path({ kind: 'dataset', id: MISSING_ID })),
  'withdrawQualitySubmission 409': (call) => asOwner(call, call.path({ kind: 'suite', id: quality(call).suite.id })),

  'createQualityDataset 201': (call) => submit(call, datasetBody()),
  'createQualityDataset 400': (call) => submit(call, datasetBody({ shards: [] })),
  'createQualityDataset 401': (call) => anonymous(call, datasetBody()),
  'createQualityDataset 403': (call) => withoutCsrf(call, call.path(), datasetBody()),
  'createQualityDataset 409': (call) => submit(call, datasetBody({ slug: quality(call).approvedDataset!.slug })),
  'createQualityDataset 413': (call) => overLimit(call, QUALITY_BODY_LIMITS.suite),

  'getQualityDataset 200': (call) => request(call.ctx.app).get(call.path({ slug: quality(call).approvedDataset!.slug })),
  'getQualityDataset 404': (call) => request(call.ctx.app).get(call.path({ slug: 'no-such-dataset' })),

  'listBestQualityRuns 200': (call) => request(call.ctx.app).get(call.path()).query({ modelId: fakeHubModels.dense }),
  'listBestQualityRuns 400': (call) => request(call.ctx.app).get(call.path()),

  'dryRunQualityRun 200': (call) => submit(call, runBody(call)),
  'dryRunQualityRun 400': (call) => submit(call, runBody(call, { results: { arith: 75 } })),
  'dryRunQualityRun 401': (call) => anonymous(call, runBody(call)),
  'dryRunQualityRun 403': (call) => withoutCsrf(call, call.path(), runBody(call)),
  'dryRunQualityRun 404': (call) => submit(call, runBody(call, { suiteSlug: 'no-such-suite' })),
  'dryRunQualityRun 413': (call) => overLimit(call, QUALITY_BODY_LIMITS.run),
  'dryRunQualityRun 422': (call) => submit(call, runBody(call, { suiteSlug: quality(call).pendingSuite })),
  'dryRunQualityRun 503': (call) => submit(call, runBody(call, { hfId: fakeHubModels.down })),

  'submitQualityRun 201': (call) => {
    nextQualityWindow(call);
    return submit(call, runBody(call));
  },
  'submitQualityRun 400': (call) => submit(call, runBody(call, { results: { arith: 0.75, algebra: 0.5 } })),
  'submitQualityRun 401': (call) => anonymous(call, runBody(call)),
  'submitQualityRun 403': (call) => withoutCsrf(call, call.path(), runBody(call)),
  'submitQualityRun 404': (call) => submit(call, runBody(call, { hfId: fakeHubModels.missing })),
  'submitQualityRun 409': async (call) => {
    // A request with this key is "in flight": its row exists with no stored answer yet.
    const key = `in-flight-${randomUUID()}`;
    const body = runBody(call);
    await call.ctx.db('idempotency_keys').insert({ user_id: call.fx.owner.id, scope: 'quality', key, request_hash: contentHash(body) });
    return submit(call, body, { 'Idempotency-Key': key });
  },
  'submitQualityRun 413': (call) => overLimit(call, QUALITY_BODY_LIMITS.run),
  'submitQualityRun 422': (call) => submit(call, runBody(call, { suiteSlug: quality(call).pendingSuite })),
  'submitQualityRun 429': async (call) => {
    nextQualityWindow(call);
    expect((await submit(call, runBody(call))).status).to.equal(201);
    return submit(call, runBody(call));
  },
  'submitQualityRun 503': (call) => submit(call, runBody(call, { hfId: fakeHubModels.rateLimited })),

  'getQualityRun 200': (call) => request(call.ctx.app).get(call.path({ id: quality(call).runId })),
  'getQualityRun 404': (call) => request(call.ctx.app).get(call.path({ id: MISSING_ID })),
  'listQualityRunArtifacts 200': (call) =>
    request(call.ctx.app)
      .get(call.path({ id: quality(call).runId }))
      .query({ limit: '1', offset: '1' }),
  'listQualityRunArtifacts 400': (call) =>
    request(call.ctx.app)
      .get(call.path({ id: quality(call).runId }))
      .query({ limit: '201' }),
  'listQualityRunArtifacts 404': (call) => request(call.ctx.app).get(call.path({ id: MISSING_ID })),
  'getQualityRunReactions 200': (call) => call.fx.owner.agent.get(call.path({ id: quality(call).runId })),
  'getQualityRunReactions 404': (call) => request(call.ctx.app).get(call.path({ id: MISSING_ID })),
  'reactToQualityRun 200': (call) =>
    call.fx.owner.agent
      .post(call.path({ id: quality(call).runId }))
      .set('X-CSRF-Token', call.fx.owner.csrf)
      .send({ emoji: 'brain' }),
  'reactToQualityRun 400': (call) =>
    call.fx.owner.agent
      .post(call.path({ id: quality(call).runId }))
      .set('X-CSRF-Token', call.fx.owner.csrf)
      .send({ emoji: 'heart' }),
  'reactToQualityRun 401': (call) => anonymous(call, { emoji: 'fire' }),
  // Session only: an API key is refused.
  'reactToQualityRun 403': (call) => asOwner(call, call.path({ id: quality(call).runId })).send({ emoji: 'fire' }),
  'reactToQualityRun 404': (call) =>
    call.fx.owner.agent
      .post(call.path({ id: MISSING_ID }))
      .set('X-CSRF-Token', call.fx.owner.csrf)
      .send({ emoji: 'fire' }),
};

/** The body of an execution of the approved fixture suite against the fake OpenAI-compatible server. */
const executeBodyOf = (call: Call, overrides: Body = {}): Body => executeBody(quality(call).suite.slug, fakeTarget.url, overrides);
const startOwnExecution = async (call: Call) =>
  (
    await request(call.ctx.app)
      .post(`${qualityRoot(call.revision)}/execute`)
      .set(bearer(call))
      .send(executeBodyOf(call))
      .expect(202)
  ).body.execution.id as string;

/** Keyed like `producers`: every documented answer of server-side execution. */
const executeProducers: Record<string, Producer> = {
  'executeQualitySuite 202': (call) => submit(call, executeBodyOf(call)),
  'executeQualitySuite 400': (call) => submit(call, executeBodyOf(call, { baseUrl: 'http://10.0.0.1:8080' })),
  'executeQualitySuite 401': (call) => anonymous(call, executeBodyOf(call)),
  'executeQualitySuite 403': (call) => withoutCsrf(call, call.path(), executeBodyOf(call)),
  'executeQualitySuite 404': (call) => submit(call, executeBodyOf(call, { suiteSlug: 'no-such-suite' })),
  'executeQualitySuite 422': (call) => submit(call, executeBodyOf(call, { suiteSlug: quality(call).pendingSuite })),
  'executeQualitySuite 429': async (call) => {
    // Fill the owner's queue (no workers run here), ask, then empty it again for the producers after this one.
    const ids: string[] = [];
    while (
      Number(
        (await call.ctx
          .db('quality_executions')
          .where({ user_id: call.fx.owner.id })
          .whereIn('status', ['QUEUED', 'RUNNING'])
          .count('* as n')
          .first())!.n,
      ) < 10
    )
      ids.push(await startOwnExecution(call));
    const res = await submit(call, executeBodyOf(call));
    await call.ctx.db('quality_executions').whereIn('id', ids).update({ status: 'CANCELLED' });
    return res;
  },
  'executeQualitySuite 503': (call) => submit(call, executeBodyOf(call, { hfId: fakeHubModels.down })),

  'dryRunExecution 200': (call) => submit(call, executeBodyOf(call)),
  'dryRunExecution 400': (call) => submit(call, executeBodyOf(call, { autoSubmit: true })),
  'dryRunExecution 401': (call) => anonymous(call, executeBodyOf(call)),
  'dryRunExecution 403': (call) => withoutCsrf(call, call.path(), executeBodyOf(call)),
  'dryRunExecution 404': (call) => submit(call, executeBodyOf(call, { suiteSlug: 'no-such-suite' })),
  'dryRunExecution 422': (call) => submit(call, executeBodyOf(call, { suiteSlug: quality(call).pendingSuite })),
  'dryRunExecution 503': (call) => submit(call, executeBodyOf(call, { hfId: fakeHubModels.down })),
  'dryRunExecution 429': async (call) => {
    // The owner's dry-runs of this minute used up, then given back for the producers after this one.
    const spent = { bucket: 'execute-dry-run-user', key: call.fx.owner.id };
    await call.ctx
      .db('rate_limit_counters')
      .insert({ ...spent, window_start: call.ctx.db.fn.now(), count: EXECUTE_LIMITS.dryRunsPerUser.limit })
      .onConflict(['bucket', 'key'])
      .merge();
    const res = await submit(call, executeBodyOf(call));
    await call.ctx.db('rate_limit_counters').where(spent).delete();
    return res;
  },

  'getExecution 200': async (call) => asOwner(call, call.path({ id: await startOwnExecution(call) })),
  'getExecution 401': (call) => anonymous(call),
  'getExecution 404': (call) => asOwner(call, call.path({ id: MISSING_ID })),

  'cancelExecution 200': async (call) => asOwner(call, call.path({ id: await startOwnExecution(call) })),
  'cancelExecution 401': (call) => anonymous(call),
  'cancelExecution 403': (call) => withoutCsrf(call, call.path({ id: MISSING_ID })),
  'cancelExecution 404': (call) => asOwner(call, call.path({ id: MISSING_ID })),
  'cancelExecution 409': async (call) => {
    const id = await startOwnExecution(call);
    await asOwner(call, call.path({ id })).expect(200);
    return asOwner(call, call.path({ id }));
  },
};

/** Model reports (revision 3): a report of the owner's about the fake hub's dense model. */
const DENSE_REPORTS = `/api/models/${fakeHubModels.dense}/reports`;
const reportBody = (overrides: Body = {}): Body => ({
  title: `Contract report ${randomUUID()}`,
  content: '## Results\n\n- [x] measured',
  ...overrides,
});
async function ownReport(call: Call, overrides: Body = {}): Promise<string> {
  const res = await request(call.ctx.app).post(DENSE_REPORTS).set(bearer(call)).send(reportBody(overrides)).expect(201);
  return res.body.report.id;
}
const modelPath = (call: Call, hfId: string = fakeHubModels.dense) => call.path({ org: hfId.split('/')[0]!, model: hfId.split('/')[1]! });

/** A device login the account approved (as /device records it), polled once. */
async function approvedDeviceLogin(call: Call, who: Account) {
  const started = await request(call.ctx.app).post('/api/auth/device/code').send({ client_id: 'contract' }).expect(200);
  await call.ctx.db('device_logins').where({ status: 'PENDING' }).update({ status: 'APPROVED', user_id: who.id });
  return request(call.ctx.app)
    .post(call.path())
    .send({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: started.body.device_code });
}

/** Keyed like `producers`: every documented answer of the report operations. */
const reportProducers: Record<string, Producer> = {
  'createReport 201': (call) => request(call.ctx.app).post(modelPath(call)).set(bearer(call)).send(reportBody()),
  'createReport 400': (call) =>
    request(call.ctx.app)
      .post(modelPath(call))
      .set(bearer(call))
      .send(reportBody({ contentFormat: 'html' })),
  'createReport 401': (call) => request(call.ctx.app).post(modelPath(call)).send(reportBody()),
  'createReport 403': (call) => withoutCsrf(call, modelPath(call), reportBody()),
  'createReport 404': (call) => request(call.ctx.app).post(modelPath(call, fakeHubModels.missing)).set(bearer(call)).send(reportBody()),
  'createReport 503': (call) => request(call.ctx.app).post(modelPath(call, fakeHubModels.rateLimited)).set(bearer(call)).send(reportBody()),
  'listModelReports 200': async (call) => {
    await ownReport(call, { published: true });
    return request(call.ctx.app).get(modelPath(call));
  },
  'listModelReports 400': (call) => request(call.ctx.app).get(modelPath(call)).query({ limit: '0' }),
  'listModelReports 404': (call) => request(call.ctx.app).get(modelPath(call, 'nobody/nothing')),
  'getReport 200': async (call) => request(call.ctx.app).get(call.path({ id: await ownReport(call, { published: true }) })),
  'getReport 404': async (call) => request(call.ctx.app).get(call.path({ id: await ownReport(call) })),
  'updateReport 200': async (call) =>
    request(call.ctx.app)
      .patch(call.path({ id: await ownReport(call) }))
      .set(bearer(call))
      .send({ published: true }),
  'updateReport 400': async (call) =>
    request(call.ctx.app)
      .patch(call.path({ id: await ownReport(call) }))
      .set(bearer(call))
      .send({ tags: [''] }),
  'updateReport 401': (call) => anonymous(call, { title: 'x' }),
  'updateReport 403': async (call) => withoutCsrf(call, call.path({ id: await ownReport(call) }), { title: 'x' }),
  'updateReport 404': (call) => withCsrf(call).send({ title: 'x' }),
  'updateReport 409': async (call) => {
    const id = await ownReport(call);
    await call.ctx.db('model_reports').where({ id }).update({ unpublished_reason: 'spam', unpublished_at: call.ctx.db.fn.now() });
    return request(call.ctx.app).patch(call.path({ id })).set(bearer(call)).send({ published: true });
  },
  'deleteReport 204': async (call) =>
    request(call.ctx.app)
      .delete(call.path({ id: await ownReport(call) }))
      .set(bearer(call)),
  'deleteReport 401': (call) => anonymous(call),
  'deleteReport 403': async (call) => withoutCsrf(call, call.path({ id: await ownReport(call) })),
  'deleteReport 404': (call) => withCsrf(call),
  'getReportFormat 200': (call) => request(call.ctx.app).get(call.path()),
  'publishReport 200': async (call) => asOwner(call, call.path({ id: await ownReport(call) })),
  'publishReport 401': (call) => anonymous(call),
  'publishReport 403': async (call) => withoutCsrf(call, call.path({ id: await ownReport(call) })),
  'publishReport 404': (call) => withCsrf(call),
  'publishReport 409': async (call) => {
    const id = await ownReport(call);
    await call.ctx.db('model_reports').where({ id }).update({ unpublished_reason: 'spam', unpublished_at: call.ctx.db.fn.now() });
    return asOwner(call, call.path({ id }));
  },
  'unpublishReport 200': async (call) => asOwner(call, call.path({ id: await ownReport(call, { published: true }) })),
  'unpublishReport 401': (call) => anonymous(call),
  'unpublishReport 403': async (call) => withoutCsrf(call, call.path({ id: await ownReport(call) })),
  'unpublishReport 404': (call) => withCsrf(call),
  'attachReportImage 201': async (call) =>
    asOwner(call, call.path({ id: await ownReport(call) })).attach('file', await smallPng(), 'chart.png'),
  'attachReportImage 400': async (call) =>
    asOwner(call, call.path({ id: await ownReport(call) })).attach('file', Buffer.from('not an image at all'), 'chart.png'),
  'attachReportImage 401': (call) => request(call.ctx.app).post(call.path(NOTHING)).attach('file', Buffer.from('x'), 'chart.png'),
  'attachReportImage 403': async (call) =>
    call.fx.owner.agent.post(call.path({ id: await ownReport(call) })).attach('file', Buffer.from('x'), 'chart.png'),
  'attachReportImage 404': async (call) => asOwner(call, call.path(NOTHING)).attach('image', await smallPng(), 'chart.png'),
  'attachReportImage 409': async (call) => {
    const id = await ownReport(call);
    const full = Array.from({ length: 20 }, () => randomUUID());
    await call.ctx.db('model_reports').where({ id }).update({ image_ids: full });
    return asOwner(call, call.path({ id })).attach('file', await smallPng(), 'chart.png');
  },
  'attachReportImage 413': async (call) =>
    asOwner(call, call.path({ id: await ownReport(call) })).attach('file', Buffer.alloc(8 * 1024 * 1024 + 1), 'big.png'),
  'attachReportImage 503': async (call) => {
    const [id, png] = [await ownReport(call), await smallPng()];
    return whileFull(imageProcessingQueue, async () => asOwner(call, call.path({ id })).attach('file', png, 'chart.png'));
  },
  'deleteReportImage 204': async (call) => {
    const id = await ownReport(call);
    // A POST (asOwner would use this operation's DELETE).
    const image = await request(call.ctx.app)
      .post(`/api/reports/${id}/images`)
      .set(bearer(call))
      .attach('file', await smallPng(), 'chart.png')
      .expect(201);
    return request(call.ctx.app)
      .delete(call.path({ id, imageId: image.body.id }))
      .set(bearer(call));
  },
  'deleteReportImage 401': (call) => anonymous(call),
  'deleteReportImage 403': async (call) => withoutCsrf(call, call.path({ id: await ownReport(call), imageId: MISSING_ID })),
  'deleteReportImage 404': async (call) =>
    request(call.ctx.app)
      .delete(call.path({ id: await ownReport(call), imageId: MISSING_ID }))
      .set(bearer(call)),
  'uploadReportImage 201': async (call) =>
    request(call.ctx.app)
      .post(call.path())
      .set(bearer(call))
      .attach(
        'image',
        await sharp({ create: { width: 8, height: 6, channels: 3, background: '#336699' } })
          .png()
          .toBuffer(),
        'chart.png',
      ),
  'uploadReportImage 400': (call) =>
    request(call.ctx.app).post(call.path()).set(bearer(call)).attach('image', Buffer.from('not an image at all'), 'chart.png'),
  'uploadReportImage 401': (call) => request(call.ctx.app).post(call.path()).attach('image', Buffer.from('x'), 'chart.png'),
  'uploadReportImage 403': (call) => call.fx.owner.agent.post(call.path()).attach('image', Buffer.from('x'), 'chart.png'),
  'uploadReportImage 503': async (call) => {
    const png = await smallPng();
    return whileFull(imageProcessingQueue, async () =>
      request(call.ctx.app).post(call.path()).set(bearer(call)).attach('image', png, 'chart.png'),
    );
  },
  'uploadReportImage 413': (call) =>
    request(call.ctx.app)
      .post(call.path())
      .set(bearer(call))
      .attach('image', Buffer.alloc(8 * 1024 * 1024 + 1), 'big.png'),
};

/** Keyed by operationId (an alias uses its operation's producers) and status. */
const producers: Record<string, Producer> = {
  'listSpeedTests 200': (call) => request(call.ctx.app).get(call.path()),
  'listSpeedTests 400': (call) => request(call.ctx.app).get(call.path()).query({ limit: '0' }),

  'submitSpeedTest 201': (call) => {
    nextWindow(call);
    return submit(call);
  },
  'submitSpeedTest 400': (call) => submit(call, { hfId: fakeHubModels.dense }),
  'submitSpeedTest 401': (call) => anonymous(call, validSubmission()),
  'submitSpeedTest 403': (call) => withoutCsrf(call, call.path(), validSubmission()),
  'submitSpeedTest 404': (call) => submit(call, validSubmission({ hfId: fakeHubModels.missing })),
  'submitSpeedTest 409': async (call) => {
    // A request with this key is "in flight": its row exists with no stored answer yet.
    const key = `in-flight-${randomUUID()}`;
    const body = validSubmission();
    await call.ctx.db('idempotency_keys').insert({ user_id: call.fx.owner.id, scope: 'speed-test', key, request_hash: contentHash(body) });
    return submit(call, body, { 'Idempotency-Key': key });
  },
  'submitSpeedTest 422': async (call) => {
    if (metricRuleStatus(call)) return submit(call, failingMetricRule(call));
    nextWindow(call);
    const key = `reused-${randomUUID()}`;
    expect((await submit(call, validSubmission(), { 'Idempotency-Key': key })).status).to.equal(201);
    return submit(call, validSubmission({ tokSOut: 43 }), { 'Idempotency-Key': key });
  },
  'submitSpeedTest 429': async (call) => {
    nextWindow(call);
    expect((await submit(call)).status).to.equal(201);
    return submit(call);
  },
  'submitSpeedTest 503': (call) => submit(call, validSubmission({ hfId: fakeHubModels.rateLimited })),

  'dryRunSpeedTest 200': (call) => submit(call, submissionExamples(getRevisionProfile(call.revision)).minimal.DISCRETE_GPU),
  'dryRunSpeedTest 400': (call) => submit(call, validSubmission({ hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090' } })),
  'dryRunSpeedTest 401': (call) => anonymous(call, validSubmission()),
  'dryRunSpeedTest 403': (call) => withoutCsrf(call, call.path(), validSubmission()),
  'dryRunSpeedTest 404': (call) => submit(call, validSubmission({ hfId: fakeHubModels.deleted })),
  'dryRunSpeedTest 422': (call) => submit(call, failingMetricRule(call)),
  'dryRunSpeedTest 503': (call) => submit(call, validSubmission({ hfId: fakeHubModels.down })),

  'listMySpeedTests 200': (call) => asOwner(call, call.path()),
  'listMySpeedTests 400': (call) => asOwner(call, call.path()).query({ limit: '101' }),
  'listMySpeedTests 401': (call) => anonymous(call),

  'correctSpeedTest 200': async (call) => asOwner(call, call.path({ id: await freshRun(call) })).send({ tokSOut: 38.2 }),
  'correctSpeedTest 400': async (call) => asOwner(call, call.path({ id: await freshRun(call) })).send({ tokSOut: -1 }),
  'correctSpeedTest 401': (call) => anonymous(call, { tokSOut: 38.2 }),
  'correctSpeedTest 403': (call) => withoutCsrf(call, call.path({ id: call.fx.runId }), { tokSOut: 38.2 }),
  'correctSpeedTest 404': (call) => asOwner(call, call.path({ id: MISSING_ID })).send({ tokSOut: 38.2 }),
  'correctSpeedTest 409': async (call) => {
    const id = await freshRun(call);
    call.ctx.clock.advance(24 * 3_600_000 + 1000);
    return asOwner(call, call.path({ id })).send({ tokSOut: 38.2 });
  },
  'correctSpeedTest 422': async (call) => {
    // Every metric of the any-of rule dropped.
    const rule = getRevisionProfile(call.revision).speedTests.metricRule;
    const dropped = rule.kind === 'anyOf' ? rule.fields : rule.kind === 'requiredPlusOneOf' ? rule.oneOf : [];
    return asOwner(call, call.path({ id: await freshRun(call) })).send(Object.fromEntries(dropped.map((field) => [field, null])));
  },
  'correctSpeedTest 503': async (call) => asOwner(call, call.path({ id: await freshRun(call) })).send({ hfId: fakeHubModels.down }),

  'withdrawSpeedTest 200': async (call) => asOwner(call, call.path({ id: await freshRun(call) })),
  'withdrawSpeedTest 401': (call) => anonymous(call),
  'withdrawSpeedTest 403': (call) => withoutCsrf(call, call.path({ id: call.fx.runId })),
  'withdrawSpeedTest 404': (call) => asOwner(call, call.path({ id: MISSING_ID })),

  'getSpeedTest 200': (call) => request(call.ctx.app).get(call.path({ id: call.fx.runId })),
  'getSpeedTest 404': (call) => request(call.ctx.app).get(call.path({ id: MISSING_ID })),

  'getLeaderboard 200': (call) => request(call.ctx.app).get(call.path()).query({ hwClass: 'DISCRETE_GPU' }),
  'getLeaderboard 400': (call) => request(call.ctx.app).get(call.path()).query({ memTier: '7' }),

  'listModels 200': (call) => request(call.ctx.app).get(call.path()).query({ tree: 'true' }),
  'listModels 400': (call) => request(call.ctx.app).get(call.path()).query({ limit: '0' }),
  'searchModels 200': (call) => request(call.ctx.app).get(call.path()).query({ q: 'qwen' }),
  'searchModels 400': (call) => request(call.ctx.app).get(call.path()),
  'getModel 200': (call) => request(call.ctx.app).get(call.path({ org: 'Qwen', model: 'Qwen3-8B' })),
  'getModel 404': (call) => request(call.ctx.app).get(call.path({ org: 'nobody', model: 'nothing' })),
  'getPrediction 200': (call) =>
    request(call.ctx.app).get(call.path()).query({ hfId: 'Qwen/Qwen3-8B', quantization: 'Q4_K_M', hardwareName: 'RTX 4090' }),
  'getPrediction 400': (call) => request(call.ctx.app).get(call.path()).query({ hfId: 'Qwen/Qwen3-8B', quantization: 'Q4_K_M' }),
  'getPrediction 422': (call) =>
    request(call.ctx.app).get(call.path()).query({ hfId: 'Qwen/Qwen3-8B', quantization: 'Q4_K_M', hardwareName: 'Quantum Flux 9000' }),

  'reactToRun 200': (call) =>
    request(call.ctx.app)
      .post(call.path({ id: call.fx.runId }))
      .set(bearer(call))
      .send({ emoji: 'fire' }),
  'reactToRun 400': (call) =>
    request(call.ctx.app)
      .post(call.path({ id: call.fx.runId }))
      .set(bearer(call))
      .send({ emoji: 'heart' }),
  'reactToRun 401': (call) => anonymous(call, { emoji: 'fire' }),
  'reactToRun 403': (call) => withoutCsrf(call, call.path({ id: call.fx.runId }), { emoji: 'fire' }),
  'reactToRun 404': (call) =>
    request(call.ctx.app)
      .post(call.path({ id: MISSING_ID }))
      .set(bearer(call))
      .send({ emoji: 'fire' }),

  'getMe 200': (call) => request(call.ctx.app).get(call.path()).set(bearer(call)),
  'getMe 401': (call) => request(call.ctx.app).get(call.path()).set('Authorization', 'Bearer bhk_0000000000000000000000000000000000000000'),
  'startDeviceLogin 200': (call) => request(call.ctx.app).post(call.path()).send({ client_id: 'contract' }),
  'startDeviceLogin 400': (call) =>
    request(call.ctx.app)
      .post(call.path())
      .send({ client_id: 'x'.repeat(65) }),
  'startDeviceLogin 429': async (call) => {
    let res: request.Response;
    do res = await request(call.ctx.app).post(call.path()).send({});
    while (res.status === 200);
    // The window is per address and shared by the whole file: the next producers start afresh.
    await call.ctx.db('rate_limit_counters').where({ bucket: 'device-login' }).delete();
    return res;
  },
  'pollDeviceLogin 200': async (call) => approvedDeviceLogin(call, await newAccount(call.ctx)),
  'pollDeviceLogin 400': (call) =>
    request(call.ctx.app).post(call.path()).send({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'unknown' }),
  'pollDeviceLogin 409': async (call) => {
    const full = await newAccount(call.ctx);
    const keys = Array.from({ length: 9 }, (_, i) => ({ user_id: full.id, name: `k${i}`, prefix: 'bhk_0000', key_hash: randomUUID() }));
    await call.ctx.db('api_keys').insert(keys);
    return approvedDeviceLogin(call, full);
  },
  'getUser 200': (call) => request(call.ctx.app).get(call.path()).set(bearer(call)),
  'getUser 401': (call) => request(call.ctx.app).get(call.path()),

  'listApiKeys 200': (call) => call.fx.owner.agent.get(call.path()),
  'listApiKeys 401': (call) => anonymous(call),
  'listApiKeys 403': (call) => request(call.ctx.app).get(call.path()).set(bearer(call)),
  'createApiKey 201': (call) =>
    call.fx.owner.agent
      .post(call.path())
      .set('X-CSRF-Token', call.fx.owner.csrf)
      .send({ name: `key ${randomUUID()}` }),
  'createApiKey 400': (call) => call.fx.owner.agent.post(call.path()).set('X-CSRF-Token', call.fx.owner.csrf).send({ name: '' }),
  'createApiKey 401': (call) => anonymous(call, { name: 'k' }),
  'createApiKey 403': (call) => withoutCsrf(call, call.path(), { name: 'k' }),
  'createApiKey 409': async (call) => {
    const full = await newAccount(call.ctx);
    for (let i = 1; i < 10; i += 1) await createKey(full.agent, full.csrf, { name: `key ${i}` });
    return full.agent.post(call.path()).set('X-CSRF-Token', full.csrf).send({ name: 'one too many' });
  },
  'revokeApiKey 200': async (call) => {
    const { id } = await createKey(call.fx.owner.agent, call.fx.owner.csrf, { name: 'to revoke' });
    return call.fx.owner.agent.delete(call.path({ id })).set('X-CSRF-Token', call.fx.owner.csrf);
  },
  'revokeApiKey 401': (call) => anonymous(call),
  'revokeApiKey 403': (call) => withoutCsrf(call, call.path({ id: MISSING_ID })),
  'revokeApiKey 404': (call) => withCsrf(call),

  'listSetups 200': (call) => call.fx.owner.agent.get(call.path()),
  'listSetups 400': (call) => call.fx.owner.agent.get(`${call.path()}?limit=51`),
  'listSetups 401': (call) => anonymous(call),
  'listSetups 403': (call) => request(call.ctx.app).get(call.path()).set(bearer(call)),
  'createSetup 201': (call) =>
    call.fx.owner.agent
      .post(call.path())
      .set('X-CSRF-Token', call.fx.owner.csrf)
      .send({ name: `setup ${randomUUID()}`, hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 9 7950X', ramGb: 64 }),
  'createSetup 400': (call) =>
    call.fx.owner.agent
      .post(call.path())
      .set('X-CSRF-Token', call.fx.owner.csrf)
      .send({ name: 'x', hwClass: 'CPU_ONLY', gpuName: 'RTX 4090' }),
  'createSetup 401': (call) => anonymous(call, { name: 'x' }),
  'createSetup 403': (call) => withoutCsrf(call, call.path(), { name: 'x' }),
  'createSetup 409': (call) => call.fx.owner.agent.post(call.path()).set('X-CSRF-Token', call.fx.owner.csrf).send({ name: 'alpha' }),
  'getSetup 200': (call) => call.fx.owner.agent.get(call.path({ id: call.fx.setups.alpha })),
  'getSetup 401': (call) => anonymous(call),
  'getSetup 403': (call) =>
    request(call.ctx.app)
      .get(call.path({ id: call.fx.setups.alpha }))
      .set(bearer(call)),
  'getSetup 404': (call) => call.fx.owner.agent.get(call.path({ id: MISSING_ID })),
  'updateSetup 200': (call) =>
    call.fx.owner.agent
      .patch(call.path({ id: call.fx.setups.alpha }))
      .set('X-CSRF-Token', call.fx.owner.csrf)
      .send({ description: 'updated' }),
  'updateSetup 400': (call) =>
    call.fx.owner.agent
      .patch(call.path({ id: call.fx.setups.alpha }))
      .set('X-CSRF-Token', call.fx.owner.csrf)
      .send({ gpuCount: 0 }),
  'updateSetup 401': (call) => anonymous(call, { name: 'x' }),
  'updateSetup 403': (call) => withoutCsrf(call, call.path({ id: call.fx.setups.alpha }), { name: 'x' }),
  'updateSetup 404': (call) => withCsrf(call).send({ name: 'x' }),
  'updateSetup 409': (call) =>
    call.fx.owner.agent
      .patch(call.path({ id: call.fx.setups.beta }))
      .set('X-CSRF-Token', call.fx.owner.csrf)
      .send({ name: 'ALPHA' }),
  'deleteSetup 204': async (call) => {
    const created = await call.fx.owner.agent
      .post('/api/setups')
      .set('X-CSRF-Token', call.fx.owner.csrf)
      .send({ name: `doomed ${randomUUID()}` })
      .expect(201);
    return call.fx.owner.agent.delete(call.path({ id: created.body.id })).set('X-CSRF-Token', call.fx.owner.csrf);
  },
  'deleteSetup 401': (call) => anonymous(call),
  'deleteSetup 403': (call) => withoutCsrf(call, call.path({ id: call.fx.setups.alpha })),
  'deleteSetup 404': (call) => withCsrf(call),

  'getOpenApiDocument 200': cachedDocument('/api/openapi.json')[200],
  'getOpenApiDocument 304': cachedDocument('/api/openapi.json')[304],
  'getAgentContext 200': cachedDocument('/api/agent-context')[200],
  'getAgentContext 304': cachedDocument('/api/agent-context')[304],

  ...qualityProducers,
  ...downloadProducers,
  ...executeProducers,
  ...reportProducers,
  ...marketplaceProducers,
};
// The flat correction (PATCH /api/runs/{id}) answers as the correction does: its producers, on its own path.
for (const [key, produce] of Object.entries(producers)) {
  if (key.startsWith('correctSpeedTest ')) producers[key.replace('correctSpeedTest ', 'correctSpeedTestFlat ')] = produce;
}

// Every GET counts against the per-address read limit: an app whose limit is one read
// answers the second with the 429 (before any route, so any path will do).
const readLimitedApps = new WeakMap<TestContext, Express>();
function overReadLimit(call: Call) {
  let app = readLimitedApps.get(call.ctx);
  if (!app) readLimitedApps.set(call.ctx, (app = call.ctx.appWith({ API_REVISION: String(call.revision), READ_LIMIT_PER_MINUTE: '1' })));
  const path = call.path(Object.fromEntries([...call.op.path.matchAll(/:(\w+)/g)].map(([, name]) => [name!, MISSING_ID])));
  return request(app)
    .get(path)
    .then(() => request(app).get(path));
}
for (const revision of [1, 2, 3] as const) {
  for (const op of apiOperations(getRevisionProfile(revision))) {
    if (op.method === 'get' && !op.aliasOf) producers[`${op.operationId} 429`] ??= overReadLimit;
  }
}

const producerKey = (op: ApiOperation, status: string | number) => `${op.aliasOf ?? op.operationId} ${status}`;

function fillPath(op: ApiOperation, params: Record<string, string> = {}): string {
  return op.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${op.operationId}: no value for :${name}`);
    return encodeURIComponent(value);
  });
}

function expectDocumentedAnswer(
  res: request.Response,
  op: ApiOperation,
  status: number,
  document: Record<string, any>,
  checker: SchemaChecker,
) {
  const label = `${op.method.toUpperCase()} ${op.path} -> ${status}`;
  expect(res.status, `${label}: ${(res.text ?? '').slice(0, 400)}`).to.equal(status);
  const documented = document.paths[openApiPath(op.path)][op.method].responses[String(status)];
  const json = documented.content?.['application/json'];
  if (json) {
    expect(res.headers['content-type'], label).to.match(/^application\/json/);
    checker.expectValid(String(json.schema.$ref).replace('#/components/schemas/', ''), res.body, label);
  } else if (documented.content) {
    // A body in another media type (an image): one of those documented.
    expect(Object.keys(documented.content), label).to.include(String(res.headers['content-type']).split(';')[0]);
    expect(Number(res.headers['content-length']), `${label} has a body`).to.be.above(0);
  } else {
    expect(res.text ?? '', `${label} has no body`).to.equal('');
  }
  for (const name of Object.keys(documented.headers ?? {}) as HeaderName[]) {
    if ('optional' in responseHeaders[name]) continue;
    expect(res.headers, `${label} sends ${name}`).to.have.property(name.toLowerCase());
  }
}

for (const revision of [1, 2, 3] as const) {
  const operations = apiOperations(getRevisionProfile(revision));

  describe(`API contract, revision ${revision}: every documented status is produced`, () => {
    // Executions target a fake OpenAI-compatible server on loopback (allow-listed); no workers run them.
    const ctx = useTestApp({ API_REVISION: String(revision), EXECUTE_ALLOW_HOSTS: '127.0.0.1' }, { fakeHub: true, hubTimeoutMs: 300 });
    let document: Record<string, any>;
    let checker: SchemaChecker;
    let fx: Fixtures;

    before(async () => {
      fakeTarget ??= await startFakeOpenAi({ models: ['fake-model'], answer: () => 'ready' });
      document = (await request(ctx.app).get('/api/openapi.json').expect(200)).body;
      checker = schemaChecker(document);
      await seedDemoCatalogue(ctx.db);
      const owner = await newAccount(ctx);
      const run = await request(ctx.app)
        .post(getRevisionProfile(revision).speedTests.resultsPath)
        .set('Authorization', `Bearer ${owner.key}`)
        .send(validSubmission())
        .expect(201);
      const setup = (name: string) => owner.agent.post('/api/setups').set('X-CSRF-Token', owner.csrf).send({ name }).expect(201);
      fx = {
        owner,
        runId: run.body.id,
        setups: { alpha: (await setup('alpha')).body.id, beta: (await setup('beta')).body.id },
        quality: await qualityFixtures(ctx, owner, revision),
        marketplace: await marketplaceFixtures(ctx, owner, run.body.id, revision),
      };
    });

    it('has a producer for every documented status and none for an undocumented one', () => {
      const documented = new Set(operations.flatMap((op) => Object.keys(op.responses).map((status) => producerKey(op, status))));
      const missing = [...documented].filter((key) => !producers[key]);
      expect(missing, 'documented statuses nobody produces').to.deep.equal([]);
      // Producers of operations other revisions have are fine; of statuses no revision documents, not.
      const everywhere = new Set(
        ([1, 2, 3] as const).flatMap((r) =>
          apiOperations(getRevisionProfile(r)).flatMap((op) => Object.keys(op.responses).map((status) => producerKey(op, status))),
        ),
      );
      expect(
        Object.keys(producers).filter((key) => !everywhere.has(key)),
        'producers of undocumented statuses',
      ).to.deep.equal([]);
    });

    for (const op of operations) {
      for (const status of Object.keys(op.responses).map(Number)) {
        it(`${op.method.toUpperCase()} ${op.path} answers ${status} as documented`, async function () {
          const produce = producers[producerKey(op, status)];
          if (!produce) this.skip();
          const call: Call = { ctx, fx, op, revision, path: (params) => fillPath(op, params) };
          expectDocumentedAnswer(await produce!(call), op, status, document, checker);
        });
      }
    }
  });
}
