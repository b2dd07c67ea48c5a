import { RUN_CORRECTION_WINDOW_HOURS } from '../../constants.ts';
import { contentHash } from '../../lib/canonical-json.ts';
import { sendRunExport } from '../presentation/export.ts';
import { messages } from '../../messages.ts';
import { parameterDescriptions } from '../../openapi/descriptions.ts';
import { facetDescriptions, resultsListFacets } from '../facets.ts';
import { answerExamples, submissionExamples } from '../../openapi/examples.ts';
import type { RevisionProfile } from '../../revisions.ts';
import { submissionHeadersSchema } from '../../schemas/headers.schema.ts';
import { idParam } from '../../schemas/path-params.schema.ts';
import { dryRunResponseSchema, runResponseSchemas } from '../../schemas/responses.schema.ts';
import { ownSpeedTestsQuerySchema, speedTestListQuerySchema } from '../reads/speed-test-query.schema.ts';
import { speedTestCorrectionSchema, speedTestFlatCorrectionSchema, speedTestSubmissionSchema } from '../submission/speed-test.schema.ts';
import { speedTestJson } from '../run-json.ts';
import { speedTestListJson } from '../run-json.ts';
import {
  answerSubmission,
  badRequest,
  idempotencyInFlight,
  submissionRateLimited,
  SUBMISSION_CREATED_HEADERS,
  invalidQuery,
  errorBody,
  example,
  exportAlternatives,
  hubNotFound,
  hubUnavailable,
  malformedJson,
  notFound,
  operation,
  type ApiOperation,
  type ApiResource,
  type Example,
  type ResponseSpec,
} from '../../api/operation.ts';

/** Speed-test runs: submit, dry-run, list (with exports), one run, and the owner's list, correction and withdrawal, under the revision's results path. */
export const speedTestsApi: ApiResource = {
  tag: { name: 'Speed tests', description: 'Submit, dry-run and list speed-test runs; owners list, correct and withdraw their own.' },

  responses(profile) {
    const runs = runResponseSchemas(profile);
    return {
      SpeedTestRun: runs.run,
      SpeedTestList: runs.runList,
      DryRunResult: dryRunResponseSchema(profile),
      OwnSpeedTestRun: runs.ownRun,
      OwnSpeedTestList: runs.ownRunList,
    };
  },

  operations(profile) {
    const base = profile.speedTests.resultsPath;
    const rule = profile.speedTests.metricRule;
    const limit = profile.speedTests.submissionLimit;
    const answers = answerExamples(profile);
    const submission = { component: 'SpeedTestSubmission', schema: speedTestSubmissionSchema(profile), examples: bodyExamples(profile) };

    const metricExample: Record<string, Example> = 'status' in rule ? { metric: example('Metric rule', errorBody(rule.message)) } : {};
    const metricRuleResponse = (description: string): Record<number, ResponseSpec> =>
      'status' in rule ? { [rule.status]: { description, body: 'Error', examples: metricExample } } : {};
    const modelNotOnHub = hubNotFound('The model id does not exist on the hub (or the hub is offline and the model is not catalogued).');
    /** Both correction forms: not a run of the caller's, or the corrected model is not on the hub. */
    const correctionNotFound = {
      description:
        "No such run among yours (missing, or another user's, which is never revealed), or the corrected `hfId` does not exist on the hub.",
      body: 'Error',
      examples: { notFound: example('Unknown run', errorBody(messages.speedTestNotFound)), ...modelNotOnHub.examples },
    };
    const hubDown = hubUnavailable(' (rate limited, timed out); nothing was written');

    const ops: ApiOperation[] = [
      operation({
        operationId: 'listSpeedTests',
        followsReadIndex: true,
        route: `GET ${base}`,
        summary: 'List approved runs, newest first',
        description: 'Filters combine with AND; unknown parameters are a 400.',
        auth: 'public',
        query: {
          schema: speedTestListQuerySchema(profile),
          descriptions: { ...facetDescriptions(resultsListFacets), ...parameterDescriptions.results },
        },
        responses: {
          200: { description: 'One page of runs.', body: 'SpeedTestList', alternatives: exportAlternatives },
          400: invalidQuery({ limit: [`Must be at most ${profile.speedTests.resultsList.limit.max}`] }),
        },
        async handle({ res, app, query, viewerId }) {
          if (query.format !== 'json') {
            const day = app.clock.now().toISOString().slice(0, 10);
            return sendRunExport(res, query.format, `speed-tests-${day}`, app.services.speedTests.rows(query));
          }
          res.type('application/json').send(speedTestListJson(profile, await app.services.speedTests.list(query, viewerId)));
        },
      }),
      operation({
        operationId: 'submitSpeedTest',
        route: `POST ${base}`,
        summary: 'Submit a run',
        description:
          `Stored as APPROVED and public at once. ${limit.maxPerWindow} submission per ${limit.windowMs / 60_000} minute${limit.windowMs === 60_000 ? '' : 's'} per user; ` +
          `dry-run first (${profile.speedTests.dryRun ? `${base}/dry-run` : 'not in this revision'}). Send an Idempotency-Key to retry safely.`,
        auth: 'key|session',
        headers: submissionHeadersSchema,
        body: submission,
        responses: {
          201: {
            description: 'The stored run.',
            body: 'SpeedTestRun',
            examples: { stored: example('The full DISCRETE_GPU example, stored', answers.run) },
            headers: SUBMISSION_CREATED_HEADERS,
          },
          400: badRequest(
            'The body fails validation (see `details`), the body is not JSON, or the Idempotency-Key is malformed.',
            {
              'hardware.vramGb': ['Required unless gpus is given'],
              engineName: [`Must be one of: ${profile.speedTests.engines.slice(0, 3).join(', ')}, ...`],
            },
            { malformed: malformedJson },
          ),
          404: modelNotOnHub,
          409: idempotencyInFlight,
          422: {
            description:
              'status' in rule
                ? "The revision's metric rule is not met, or the Idempotency-Key was used with another body."
                : 'The Idempotency-Key was used with another body.',
            body: 'Error',
            examples: {
              ...metricExample,
              idempotency: example('Idempotency-Key reused with another body', errorBody(messages.idempotencyOtherBody)),
            },
          },
          429: submissionRateLimited(limit),
          503: hubDown,
        },
        async handle({ req, res, app, headers, body, userId }) {
          const key = headers['Idempotency-Key'];
          const result = await app.services.speedTests.submit(
            userId(),
            body,
            key === undefined ? undefined : { key, requestHash: contentHash(req.body) },
          );
          answerSubmission(res, `${profile.speedTests.resultsPath}/${result.run.id}`, result);
        },
      }),
    ];

    if (profile.speedTests.dryRun) {
      const errors: Record<number, ResponseSpec> = {
        400: badRequest(
          'The body fails validation (see `details`) or is not JSON.',
          { 'hardware.vramGb': ['Required unless gpus is given'] },
          { malformed: malformedJson },
        ),
        404: modelNotOnHub,
      };
      Object.assign(errors, metricRuleResponse("The revision's metric rule is not met."));
      errors[503] = hubDown;
      ops.push(
        operation({
          operationId: 'dryRunSpeedTest',
          route: `POST ${base}/dry-run`,
          summary: 'Validate a run without storing it',
          description:
            'Every check of a real submission (hub lookup included) and the normalised payload; writes nothing and does not use the rate limit.',
          auth: 'key|session',
          body: submission,
          responses: {
            200: {
              description: 'The submission is valid.',
              body: 'DryRunResult',
              examples: { valid: example('The full DISCRETE_GPU example, normalised', answers.dryRun) },
            },
            ...errors,
          },
          async handle({ res, app, body, userId }) {
            res.json(await app.services.speedTests.dryRun(body, userId()));
          },
        }),
      );
    }

    const ownRunId = idParam(messages.speedTestNotFound, 'Run id');
    ops.push(
      // Declared before `${base}/:id`, so `mine` is never read as a run id.
      operation({
        operationId: 'listMySpeedTests',
        route: `GET ${base}/mine`,
        summary: 'Your own runs, in every status',
        description:
          "The runs you submitted, newest first, whatever their status (APPROVED, REJECTED with the admin's reason, WITHDRAWN), " +
          'each with `correctableUntil` (PATCH it until then) and when it was corrected or withdrawn.',
        auth: 'key|session',
        query: {
          schema: ownSpeedTestsQuerySchema(profile),
          descriptions: { limit: parameterDescriptions.results.limit!, offset: parameterDescriptions.results.offset! },
        },
        responses: {
          200: { description: 'One page of your runs.', body: 'OwnSpeedTestList' },
          400: invalidQuery({ limit: [`Must be at most ${profile.speedTests.resultsList.limit.max}`] }),
        },
        async handle({ res, app, query, userId }) {
          res.json(await app.services.speedTestOwners.mine(userId(), query));
        },
      }),
      operation({
        operationId: 'correctSpeedTest',
        route: `PATCH ${base}/:id`,
        summary: `Correct your own run (within ${RUN_CORRECTION_WINDOW_HOURS} hours)`,
        description:
          `Within ${RUN_CORRECTION_WINDOW_HOURS} hours of submitting, the owner may correct an approved run: send any subset of the submission fields. ` +
          'Each field given replaces the stored one (`hardware` and `engineFlags` as a whole); `null` drops a field (a defaulted one goes back to its default, a required one is reported missing). ' +
          'The merged run goes through exactly the validation and normalisation of a submission (hub check included when `hfId` changes), and its plausibility verdict is recomputed. ' +
          'Audited; does not use the submission rate limit.',
        auth: 'key|session',
        pathParams: ownRunId,
        body: {
          component: 'SpeedTestCorrection',
          schema: speedTestCorrectionSchema(profile),
          examples: { tokSOut: example('A mistyped speed', { tokSOut: 38.2, notes: 'Measured again with llama-bench' }) },
        },
        responses: {
          200: { description: 'The corrected run.', body: 'OwnSpeedTestRun' },
          400: badRequest(
            'The merged run fails validation (see `details`), or the body is not JSON.',
            { tokSOut: ['Must be positive'] },
            { malformed: malformedJson },
          ),
          404: correctionNotFound,
          409: {
            description:
              `The run can no longer be corrected: it is older than ${RUN_CORRECTION_WINDOW_HOURS} hours, rejected or withdrawn (withdraw it and submit a new run instead); ` +
              'or another correction of it landed while this one was checked (load it again and retry).',
            body: 'Error',
            examples: {
              tooOld: example('Older than the window', errorBody(messages.correctionWindowClosed(RUN_CORRECTION_WINDOW_HOURS))),
              withdrawn: example('Withdrawn', errorBody(messages.cannotCorrect('WITHDRAWN'))),
            },
          },
          ...metricRuleResponse("The merged run does not meet the revision's metric rule."),
          503: hubDown,
        },
        async handle({ res, app, params, body, userId }) {
          res.json(await app.services.speedTestOwners.correct(userId(), params.id, body as Record<string, unknown>));
        },
      }),
      operation({
        operationId: 'correctSpeedTestFlat',
        route: 'PATCH /api/runs/:id',
        summary: 'Correct your own run, fields and engine flags flat',
        description:
          `The same correction as PATCH ${base}/{id}, in the flat form the LocalMaxxing Go CLI sends: engine flags beside the run's fields ` +
          '(`{ "tensorParallel": 2, "notes": "…" }`). Each flag given replaces that flag alone and `null` drops it; the stored flags not named stay.',
        auth: 'key|session',
        pathParams: ownRunId,
        body: {
          component: 'SpeedTestFlatCorrection',
          schema: speedTestFlatCorrectionSchema(profile),
          examples: { flags: example('Two engine flags and a note', { tensorParallel: 2, prefixCaching: false, notes: 'corrected' }) },
        },
        responses: {
          200: { description: 'The corrected run.', body: 'OwnSpeedTestRun' },
          400: badRequest(
            'The merged run fails validation (see `details`), or the body is not JSON.',
            { tensorParallel: ['Must be at least 1'] },
            { malformed: malformedJson },
          ),
          404: correctionNotFound,
          409: {
            description: `The run can no longer be corrected (older than ${RUN_CORRECTION_WINDOW_HOURS} hours, rejected or withdrawn), or another correction landed meanwhile.`,
            body: 'Error',
            examples: { tooOld: example('Older than the window', errorBody(messages.correctionWindowClosed(RUN_CORRECTION_WINDOW_HOURS))) },
          },
          ...metricRuleResponse("The merged run does not meet the revision's metric rule."),
          503: hubDown,
        },
        async handle({ res, app, params, body, userId }) {
          const { correction, engineFlagChanges } = body as {
            correction: Record<string, unknown>;
            engineFlagChanges: Record<string, unknown>;
          };
          res.json(await app.services.speedTestOwners.correct(userId(), params.id, correction, engineFlagChanges));
        },
      }),
      operation({
        operationId: 'withdrawSpeedTest',
        route: `DELETE ${base}/:id`,
        summary: 'Withdraw your own run',
        description:
          "At any time, the owner may withdraw a run: its status becomes WITHDRAWN and it leaves every public list, the leaderboard, the counts and its model's run count, " +
          `as a rejected run does. You still see it (${base}/mine and its page). Withdrawing it again answers the same. Audited.`,
        auth: 'key|session',
        pathParams: ownRunId,
        responses: {
          200: { description: 'The run, now WITHDRAWN.', body: 'OwnSpeedTestRun' },
          404: {
            description: "No such run among yours: missing, or another user's (which is never revealed).",
            body: 'Error',
            examples: { notFound: example('Unknown run', errorBody(messages.speedTestNotFound)) },
          },
        },
        async handle({ res, app, params, userId }) {
          res.json(await app.services.speedTestOwners.withdraw(userId(), params.id));
        },
      }),
      operation({
        operationId: 'getSpeedTest',
        route: `GET ${base}/:id`,
        summary: 'One approved run',
        auth: 'public',
        pathParams: idParam(messages.speedTestNotFound, 'Run id'),
        responses: {
          200: { description: 'The run.', body: 'SpeedTestRun', examples: { run: example('A stored run', answers.run) } },
          404: notFound('Run', messages.speedTestNotFound),
        },
        async handle({ res, app, params, viewerId }) {
          res.type('application/json').send(speedTestJson(profile, await app.services.speedTests.getDocument(params.id, viewerId)));
        },
      }),
    );
    return ops;
  },
};

/** The worked submission examples: minimal and full, per hardware class. */
function bodyExamples(profile: RevisionProfile): Record<string, Example> {
  const examples = submissionExamples(profile);
  const bodies: Record<string, Example> = {};
  for (const [hwClass, value] of Object.entries(examples.minimal)) bodies[`minimal_${hwClass}`] = example(`Minimal, ${hwClass}`, value);
  for (const [hwClass, value] of Object.entries(examples.full)) bodies[`full_${hwClass}`] = example(`Every field, ${hwClass}`, value);
  return bodies;
}
