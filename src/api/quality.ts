import { contentHash } from '../lib/canonical-json.ts';
import { messages } from '../messages.ts';
import { qualityExamples } from '../openapi/quality-examples.ts';
import { submissionHeadersSchema } from '../schemas/headers.schema.ts';
import { idParam } from '../schemas/path-params.schema.ts';
import {
  artifactPageResponseSchema,
  bestQualityRunsResponseSchema,
  datasetResponseSchema,
  datasetSubmissionUpdateResponseSchema,
  datasetWithShardsResponseSchema,
  qualityRunDryRunResponseSchema,
  qualityRunResponseSchema,
  submissionListResponseSchema,
  suiteDryRunResponseSchema,
  suiteListResponseSchema,
  suiteResponseSchema,
  suiteSubmissionUpdateResponseSchema,
  withdrawnResponseSchema,
} from '../schemas/quality-responses.schema.ts';
import {
  artifactPageQuerySchema,
  bestRunsQuerySchema,
  datasetSchema,
  qualityRunSchema,
  slugParam,
  submissionParams,
  suiteListQuerySchema,
  suiteRegistrationSchema,
} from '../schemas/quality.schema.ts';
import { reactionSchema } from '../schemas/reaction.schema.ts';
import {
  answerSubmission,
  badRequest,
  errorBody,
  example,
  idempotencyInFlight,
  hubNotFound,
  hubUnavailable,
  invalidQuery,
  malformedJson,
  notFound,
  operation,
  submissionRateLimited,
  SUBMISSION_CREATED_HEADERS,
  type ApiCall,
  type ApiOperation,
  type ApiResource,
  type ResponseSpec,
} from './operation.ts';
import { answerOrigin } from '../serialisers/origin.ts';
import { urlMaker, withDatasetDownloadUrls } from '../serialisers/quality-downloads.ts';

/**
 * Quality evaluations under the revision's quality root (`/api/evals` in revision 2,
 * `/api/benchmarks` in revision 3, which also keeps `/api/evals/*` as a deprecated alias):
 * suites, sharded datasets and the owner's submissions (revision 3), quality runs and
 * their reactions. Revision 1 has none of it.
 */
export const qualityApi: ApiResource = {
  tag: {
    name: 'Quality evaluations',
    description:
      'Suites of tasks with answers, runs with per-task scores (the aggregate is computed by the server), and the review of both by admins.',
  },

  responses(profile) {
    if (!profile.quality) return {};
    return {
      QualitySuite: suiteResponseSchema,
      QualitySuiteList: suiteListResponseSchema,
      ...(profile.quality.suiteDryRun ? { QualitySuiteDryRun: suiteDryRunResponseSchema } : {}),
      ...(profile.quality.submissions
        ? {
            QualityDataset: datasetResponseSchema,
            QualityDatasetWithShards: datasetWithShardsResponseSchema,
            QualitySubmissionList: submissionListResponseSchema,
            QualitySuiteSubmissionUpdate: suiteSubmissionUpdateResponseSchema,
            QualityDatasetSubmissionUpdate: datasetSubmissionUpdateResponseSchema,
            QualitySubmissionWithdrawn: withdrawnResponseSchema,
          }
        : {}),
      QualityRun: qualityRunResponseSchema,
      QualityRunDryRun: qualityRunDryRunResponseSchema,
      BestQualityRuns: bestQualityRunsResponseSchema(profile),
      QualityArtifactPage: artifactPageResponseSchema,
    };
  },

  operations(profile) {
    const quality = profile.quality;
    if (!quality) return [];
    const root = quality.root;
    const examples = qualityExamples(profile);
    const limit = quality.submissionLimit;
    const suiteBody = { component: 'QualitySuiteRegistration', schema: suiteRegistrationSchema(profile), examples: examples.suiteBodies };
    const runBody = {
      component: 'QualityRunSubmission',
      schema: qualityRunSchema(profile),
      examples: { run: example('A run of the arithmetic suite with traces', examples.runBody) },
    };
    const suiteNotFound = notFound('Suite', messages.qualitySuiteNotFound('no-such-suite'));
    const runNotFound = notFound('Quality run', messages.qualityRunNotFound);
    const suiteInvalid = badRequest(
      'The body fails validation (see `details`: paths into the body such as `suiteDoc.tasks.3.dataset.items.12.gold`), or is not JSON.',
      examples.suiteFieldErrors,
      {
        malformed: malformedJson,
      },
    );
    const runInvalid = badRequest(
      'The body fails validation, a task key of the suite is missing or one is unknown (`results.<key>`), or an artifact names a task or item the suite does not have.',
      examples.runFieldErrors,
      { malformed: malformedJson },
    );
    const notApproved: ResponseSpec = {
      description: 'The suite exists but is not approved.',
      body: 'Error',
      examples: { pending: example('Pending suite', errorBody(messages.qualitySuiteNotApproved('my-new-suite', 'PENDING'))) },
    };
    const suiteOrModelUnknown = hubNotFound('The suite is unknown, or the model id does not exist on the hub.', {
      suite: example('Unknown suite', errorBody(messages.qualitySuiteNotFound('no-such-suite'))),
    });
    const hubDown = hubUnavailable('; nothing was written');
    const slugTaken = (what: 'suite' | 'dataset'): ResponseSpec => ({
      description: `Another live ${what} has this slug.`,
      body: 'Error',
      examples: {
        taken: example(
          'Slug taken',
          errorBody(what === 'suite' ? messages.qualitySlugTaken('gsm8k-mini') : messages.qualityDatasetSlugTaken('gsm8k-shards')),
        ),
      },
    });

    /** PATCH {root}/submissions/{kind}/{id}: one operation per kind, as each takes its own body. */
    const updateSubmission = (kind: 'suite' | 'dataset') => ({
      operationId: kind === 'suite' ? 'updateQualitySuiteSubmission' : 'updateQualityDatasetSubmission',
      bodyLimit: QUALITY_BODY_LIMITS.suite,
      route: `PATCH ${root}/submissions/${kind}/:id` as const,
      summary: `Correct and resubmit your pending or rejected ${kind}`,
      description: `Takes the whole ${kind === 'suite' ? 'registration' : 'dataset'} body (optionally wrapped as \`{ submission }\`); the ${kind} goes back to PENDING and its notes are cleared.`,
      auth: 'key|session' as const,
      pathParams: idParam(messages.qualitySubmissionNotFound, 'Submission id'),
      responses: {
        200: {
          description: `The ${kind}, PENDING again.`,
          body: kind === 'suite' ? 'QualitySuiteSubmissionUpdate' : 'QualityDatasetSubmissionUpdate',
        },
        400: badRequest(
          'The body fails validation.',
          { 'shards.0.items.3.gold': ['Each item needs gold (the accepted answers) or a rubric'] },
          { malformed: malformedJson },
        ),
        404: notFound('Submission', messages.qualitySubmissionNotFound),
        409: {
          description: 'The submission is approved (or in use), or the new slug is taken.',
          body: 'Error',
          examples: { approved: example('Approved already', errorBody(messages.qualitySubmissionNotEditable('APPROVED'))) },
        },
      } as Record<number, ResponseSpec>,
    });

    /** A suite document with each shard task's signed `dataset.downloadUrl` (DECISIONS.md "Real clients"). */
    const shardUrls =
      (call: ApiCall) =>
      <Doc extends { tasks: readonly { key?: unknown; dataset?: unknown }[] }>(doc: Doc) =>
        withDatasetDownloadUrls(
          doc,
          root,
          urlMaker(call.app.signer, answerOrigin(call.req, call.res, call.app.config), call.app.clock.now()),
        ).suiteDoc;

    const ops: ApiOperation[] = [
      operation({
        operationId: 'listQualitySuites',
        route: `GET ${root}/suites`,
        summary: 'List approved suites',
        description:
          'Official suites first, then the most run. Filters combine with AND; the list leaves out the documents (GET one suite for its items).',
        auth: 'public',
        query: { schema: suiteListQuerySchema, descriptions: QUERY_DESCRIPTIONS },
        responses: {
          200: { description: 'One page of approved suites.', body: 'QualitySuiteList' },
          400: invalidQuery({ runner: ['Must be one of: CUSTOM, LM_EVAL_HARNESS'] }),
        },
        async handle(call) {
          const list = await call.app.services.qualitySuites.list(call.query);
          const urls = shardUrls(call);
          call.res.json({ ...list, suites: list.suites.map((suite) => ({ ...suite, suiteDoc: urls(suite.suiteDoc) })) });
        },
      }),
      operation({
        operationId: 'getQualitySuite',
        route: `GET ${root}/suites/:slug`,
        summary: 'One approved suite with its whole document',
        description: 'Answers included, so a client can run and score the suite locally.',
        auth: 'public',
        pathParams: slugParam(messages.qualitySuiteNotFound('that slug'), 'Suite slug'),
        responses: {
          200: {
            description: 'The suite.',
            body: 'QualitySuite',
            examples: { suite: example('The arithmetic demo suite', examples.suiteAnswer) },
          },
          404: suiteNotFound,
        },
        async handle(call) {
          const suite = await call.app.services.qualitySuites.get(call.params.slug);
          call.res.json({ ...suite, suiteDoc: shardUrls(call)(suite.suiteDoc) });
        },
      }),
      operation({
        operationId: 'registerQualitySuite',
        bodyLimit: QUALITY_BODY_LIMITS.suite,
        route: `POST ${root}/suites`,
        summary: 'Register a suite (pending until an admin approves it)',
        description: `Dry-run first${quality.suiteDryRun ? ` (${root}/suites/dry-run)` : ''}. Bodies up to ${QUALITY_BODY_LIMITS.suite}.`,
        auth: 'key|session',
        body: suiteBody,
        responses: {
          201: { description: 'The registered suite, PENDING.', body: 'QualitySuite', headers: ['Location'] },
          400: suiteInvalid,
          409: slugTaken('suite'),
        },
        async handle({ res, app, body, userId }) {
          const suite = await app.services.qualitySuites.register(userId(), body);
          res.location(`${root}/submissions`).status(201).json(suite);
        },
      }),
    ];

    if (quality.suiteDryRun) {
      ops.push(
        operation({
          operationId: 'dryRunQualitySuite',
          bodyLimit: QUALITY_BODY_LIMITS.suite,
          route: `POST ${root}/suites/dry-run`,
          summary: 'Validate a suite registration without storing it',
          description:
            'The schema, slug availability and the shard datasets the tasks name (each must be approved or yours): every problem at once as field errors. Writes nothing.',
          auth: 'key|session',
          body: suiteBody,
          responses: {
            200: { description: 'The registration would be accepted.', body: 'QualitySuiteDryRun' },
            400: badRequest(
              'Every problem of the registration, including a taken slug and unusable dataset references.',
              { slug: [messages.qualitySlugTaken('gsm8k-mini')], ...examples.suiteFieldErrors },
              { malformed: malformedJson },
            ),
          },
          async handle({ res, app, body, userId }) {
            res.json(await app.services.qualitySuites.dryRun(userId(), body));
          },
        }),
      );
    }

    if (quality.submissions) {
      ops.push(
        operation({
          operationId: 'listQualitySubmissions',
          route: `GET ${root}/submissions`,
          summary: 'Your suite and dataset submissions with their review state',
          auth: 'key|session',
          responses: { 200: { description: 'Newest first; withdrawn ones are left out.', body: 'QualitySubmissionList' } },
          async handle({ res, app, userId }) {
            res.json(await app.services.qualitySuites.submissions(userId()));
          },
        }),
        operation({
          ...updateSubmission('suite'),
          body: suiteBody,
          responses: { ...updateSubmission('suite').responses, 400: suiteInvalid },
          async handle({ res, app, params, body, userId }) {
            res.json(await app.services.qualitySuites.patchSubmission(userId(), 'suite', params.id, body));
          },
        }),
        operation({
          ...updateSubmission('dataset'),
          body: { component: 'QualityDatasetSubmission', schema: datasetSchema },
          async handle({ res, app, params, body, userId }) {
            res.json(await app.services.qualitySuites.patchSubmission(userId(), 'dataset', params.id, body));
          },
        }),
        operation({
          operationId: 'withdrawQualitySubmission',
          route: `DELETE ${root}/submissions/:kind/:id`,
          summary: 'Withdraw your pending or rejected submission that nothing uses',
          description: 'The submission becomes WITHDRAWN and its slug is free again.',
          auth: 'key|session',
          pathParams: submissionParams,
          responses: {
            200: { description: 'Withdrawn.', body: 'QualitySubmissionWithdrawn' },
            404: notFound('Submission', messages.qualitySubmissionNotFound),
            409: {
              description: 'The submission is approved, or a run or suite uses it.',
              body: 'Error',
              examples: { inUse: example('In use', errorBody(messages.qualitySubmissionInUse)) },
            },
          },
          async handle({ res, app, params, userId }) {
            res.json(await app.services.qualitySuites.withdraw(userId(), params.kind, params.id));
          },
        }),
        operation({
          operationId: 'createQualityDataset',
          bodyLimit: QUALITY_BODY_LIMITS.suite,
          route: `POST ${root}/datasets`,
          summary: 'Register a sharded dataset (pending until an admin approves it)',
          description: `Up to 50 shards of up to 1000 items (the item shape of inline items). Suite tasks use it with \`{ source: "shard", datasetSlug }\`. Bodies up to ${QUALITY_BODY_LIMITS.suite}.`,
          auth: 'key|session',
          body: {
            component: 'QualityDatasetSubmission',
            schema: datasetSchema,
            examples: { dataset: example('Two shards', examples.datasetBody) },
          },
          responses: {
            201: { description: 'The dataset, PENDING.', body: 'QualityDataset', headers: ['Location'] },
            400: badRequest(
              'The body fails validation.',
              { 'shards.0.items.3.gold': ['Each item needs gold (the accepted answers) or a rubric'] },
              { malformed: malformedJson },
            ),
            409: slugTaken('dataset'),
          },
          async handle({ res, app, body, userId }) {
            const dataset = await app.services.qualitySuites.createDataset(userId(), body);
            res.location(`${root}/submissions`).status(201).json(dataset);
          },
        }),
        operation({
          operationId: 'getQualityDataset',
          route: `GET ${root}/datasets/:slug`,
          summary: 'One approved dataset with its shards',
          auth: 'public',
          pathParams: slugParam(messages.qualityDatasetNotFound('that slug'), 'Dataset slug'),
          responses: {
            200: { description: 'The dataset and its items.', body: 'QualityDatasetWithShards' },
            404: notFound('Dataset', messages.qualityDatasetNotFound('no-such-dataset')),
          },
          async handle({ res, app, params }) {
            res.json(await app.services.qualitySuites.getDataset(params.slug));
          },
        }),
      );
    }

    ops.push(
      operation({
        operationId: 'listBestQualityRuns',
        route: `GET ${root}/runs`,
        summary: quality.runsPerShardDataset
          ? 'Best approved run per suite and per shard dataset for a model'
          : 'Best approved run per suite for a model',
        description:
          'Highest score first, then the earliest. `modelId` is the model id or its hfId; a model with no runs answers empty lists.',
        auth: 'public',
        query: { schema: bestRunsQuerySchema, descriptions: QUERY_DESCRIPTIONS },
        responses: {
          200: { description: quality.runsPerShardDataset ? '`{ suites, datasets }`' : '`{ runs }`', body: 'BestQualityRuns' },
          400: invalidQuery({ modelId: ['Required'] }),
        },
        async handle({ res, app, query, viewerId }) {
          const best = await app.services.qualityRuns.bestForModel(query.modelId, viewerId);
          res.json(quality.runsPerShardDataset ? { suites: best.runs, datasets: best.datasets } : { runs: best.runs });
        },
      }),
      operation({
        operationId: 'dryRunQualityRun',
        bodyLimit: QUALITY_BODY_LIMITS.run,
        route: `POST ${root}/runs/dry-run`,
        summary: 'Validate a quality run without storing it',
        description:
          'Schema, suite approved, every task key covered, the re-scoring and the aggregate the run would get. Writes nothing and does not use the rate limit.',
        auth: 'key|session',
        body: runBody,
        responses: {
          200: { description: 'The run would be accepted with this score.', body: 'QualityRunDryRun' },
          400: runInvalid,
          404: suiteOrModelUnknown,
          422: notApproved,
          503: hubDown,
        },
        async handle({ res, app, body }) {
          res.json(await app.services.qualityRuns.dryRun(body));
        },
      }),
      operation({
        operationId: 'submitQualityRun',
        bodyLimit: QUALITY_BODY_LIMITS.run,
        route: `POST ${root}/runs`,
        summary: 'Submit a quality run (pending until an admin approves it)',
        description:
          `${limit.maxPerWindow} submission per ${limit.windowMs / 60_000} minutes per user, separate from speed tests. The aggregate \`score\` is the server's; ` +
          'client aggregates (`runConfig.aggregatePreview`) are ignored. Send an Idempotency-Key to retry safely.',
        auth: 'key|session',
        headers: submissionHeadersSchema,
        body: runBody,
        responses: {
          201: { description: 'The stored run, PENDING.', body: 'QualityRun', headers: SUBMISSION_CREATED_HEADERS },
          400: runInvalid,
          404: suiteOrModelUnknown,
          409: idempotencyInFlight,
          422: {
            description: 'The suite is not approved, or the Idempotency-Key was used with another body.',
            body: 'Error',
            examples: {
              ...notApproved.examples,
              idempotency: example('Idempotency-Key reused with another body', errorBody(messages.idempotencyOtherBody)),
            },
          },
          429: submissionRateLimited(limit),
          503: hubDown,
        },
        async handle({ req, res, app, headers, body, userId }) {
          const key = headers['Idempotency-Key'];
          const result = await app.services.qualityRuns.submit(
            userId(),
            body,
            key === undefined ? undefined : { key, requestHash: contentHash(req.body) },
          );
          answerSubmission(res, `${root}/runs/${result.run.id}`, result);
        },
      }),
      operation({
        operationId: 'getQualityRun',
        route: `GET ${root}/runs/:id`,
        summary: 'One quality run',
        description: 'Approved runs are public; the submitter also sees its own pending and rejected runs (with the admin notes).',
        auth: 'public',
        pathParams: idParam(messages.qualityRunNotFound, 'Quality run id'),
        responses: { 200: { description: 'The run.', body: 'QualityRun' }, 404: runNotFound },
        async handle({ res, app, params, viewerId }) {
          res.json(await app.services.qualityRuns.get(params.id, viewerId));
        },
      }),
      operation({
        operationId: 'listQualityRunArtifacts',
        route: `GET ${root}/runs/:id/artifacts`,
        summary: "A page of a run's per-item traces",
        auth: 'public',
        pathParams: idParam(messages.qualityRunNotFound, 'Quality run id'),
        query: { schema: artifactPageQuerySchema, descriptions: QUERY_DESCRIPTIONS },
        responses: {
          200: { description: 'Traces in upload order.', body: 'QualityArtifactPage' },
          400: invalidQuery({ limit: ['Must be at most 200'] }),
          404: runNotFound,
        },
        async handle({ res, app, params, query, viewerId }) {
          res.json(await app.services.qualityRuns.artifacts(params.id, query, viewerId));
        },
      }),
      operation({
        operationId: 'getQualityRunReactions',
        route: `GET ${root}/runs/:id/react`,
        summary: "An approved run's reactions",
        auth: 'public',
        pathParams: idParam(messages.qualityRunNotFound, 'Quality run id'),
        responses: {
          200: { description: 'Counts per emoji and your own reaction (null when anonymous).', body: 'ReactionState' },
          404: runNotFound,
        },
        async handle({ res, app, params, viewerId }) {
          res.json(await app.services.reactions.state('quality', params.id, viewerId));
        },
      }),
      operation({
        operationId: 'reactToQualityRun',
        route: `POST ${root}/runs/:id/react`,
        summary: 'React to an approved quality run, or take the reaction back',
        description:
          'One reaction per user per run; `null` removes it. Needs a signed-in session (the `POST /api/runs/{id}/react` alternative also takes an API key).',
        auth: 'session',
        pathParams: idParam(messages.qualityRunNotFound, 'Quality run id'),
        body: { component: 'Reaction', schema: reactionSchema },
        responses: {
          200: { description: "The run's reaction counts and yours.", body: 'ReactionState' },
          400: badRequest('The body is not `{ emoji }` with an accepted emoji or null.', {
            emoji: ['Must be one of fire, rocket, 100, brain, chad, or null to remove your reaction'],
          }),
          404: runNotFound,
        },
        async handle({ res, app, params, body, userId }) {
          res.json(await app.services.reactions.reactToQualityRun(params.id, userId(), body.emoji));
        },
      }),
    );
    return ops;
  },
};

/** Body size limits of the quality writes (the rest of the API takes 1 MB). */
export const QUALITY_BODY_LIMITS = { suite: '16 MB', run: '8 MB' } as const;

const QUERY_DESCRIPTIONS: Record<string, string> = {
  category: 'Suite category, case-insensitive (reasoning, math, coding, knowledge, commonsense, ...)',
  runner: '`CUSTOM` or `LM_EVAL_HARNESS`',
  official: '`true` for official suites only, `false` for the others',
  limit: 'Page size',
  offset: 'Rows to skip',
  modelId: "The model's id or its hfId",
};
