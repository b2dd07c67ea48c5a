import type { z } from 'zod';
import { messages } from '../messages.ts';
import { executionDryRunResponseSchema, executionResponseSchema } from '../schemas/execute-responses.schema.ts';
import { EXECUTE_LIMITS, executeSchema } from '../schemas/execute.schema.ts';
import { idParam } from '../schemas/path-params.schema.ts';
import {
  badRequest,
  errorBody,
  example,
  hubUnavailable,
  malformedJson,
  notFound,
  operation,
  type ApiResource,
  type ResponseSpec,
} from './operation.ts';

/**
 * Server-side execution under the quality root: run an approved CUSTOM suite against the
 * caller's public OpenAI-compatible server (POST /execute, 202), watch it (GET), cancel it
 * (DELETE), and check everything first without queuing anything (POST /execute/dry-run).
 */
export const executeApi: ApiResource = {
  tag: {
    name: 'Server-side execution',
    description:
      'The server runs an approved CUSTOM suite against your OpenAI-compatible server at a public address, scores it itself and can submit the run. ' +
      'Only public http(s) addresses on ports 80, 443 or 1024+ are reached; redirects are not followed.',
  },

  responses(profile): Record<string, z.ZodType> {
    if (!profile.quality) return {};
    return { Execution: executionResponseSchema, ExecutionDryRun: executionDryRunResponseSchema };
  },

  operations(profile) {
    const quality = profile.quality;
    if (!quality) return [];
    const root = quality.root;
    const body = {
      component: 'ExecuteRequest',
      schema: executeSchema(profile),
      examples: { execute: example('Run the demo arithmetic suite', EXECUTE_EXAMPLE) },
    };
    const executionNotFound = notFound('Execution', messages.executionNotFound);
    const invalid = badRequest(
      'The body fails validation, `baseUrl` breaks an address rule (`details.fieldErrors.baseUrl` names the rule: scheme, credentials, port, a loopback, private, link-local or otherwise internal address, or a name that resolves to one), a task key is unknown, or the selection has more than 200 items.',
      {
        baseUrl: ['The host resolves to a private address; only public addresses can be reached'],
        hardware: ['Required when autoSubmit is true: the submitted run names the hardware it ran on'],
      },
      { malformed: malformedJson },
    );
    const suiteNotFound = notFound('Suite (or model)', messages.qualitySuiteNotFound('no-such-suite'));
    const notExecutable: ResponseSpec = {
      description:
        'The suite is not approved, is not a CUSTOM suite, is scored with pass_at_k, or needs a judge and the deployment has none.',
      body: 'Error',
      examples: {
        notCustom: example('An lm-eval-harness suite', errorBody(messages.executionSuiteNotCustom('mmlu-lite'))),
        judge: example('No judge configured', errorBody(messages.executionJudgeNotConfigured)),
      },
    };
    const hubDown = hubUnavailable(' (hfId is checked first); nothing was queued');
    return [
      operation({
        operationId: 'executeQualitySuite',
        route: `POST ${root}/execute`,
        summary: 'Run an approved CUSTOM suite against your public OpenAI-compatible server',
        description:
          `Checks the request (dry-run it first: \`${root}/execute/dry-run\`), queues the job and answers 202 at once; poll \`statusUrl\`. ` +
          `At most ${EXECUTE_LIMITS.items} items per execution, ${EXECUTE_LIMITS.requestTimeoutMs / 1000} s per request, ${EXECUTE_LIMITS.maxDurationMs / 60_000} minutes in all, ` +
          `${EXECUTE_LIMITS.runningPerUser} running per user (more wait), ${EXECUTE_LIMITS.queuedPerUser} waiting or running. \`apiKey\` is the target's bearer: used for this execution only, kept in memory, never stored or logged. ` +
          'With `autoSubmit` (needs `hardware`), a successful execution becomes a PENDING quality run with executionMode SERVER_EXECUTE, using your quality submission window.',
        auth: 'key|session',
        body,
        responses: {
          202: { description: 'Queued.', body: 'Execution', headers: ['Location'] },
          400: invalid,
          404: suiteNotFound,
          422: notExecutable,
          429: {
            description: `You already have ${EXECUTE_LIMITS.queuedPerUser} executions waiting or running.`,
            body: 'Error',
            headers: ['Retry-After'],
            examples: { queue: example('Queue full', errorBody(messages.executionTooManyQueued(EXECUTE_LIMITS.queuedPerUser))) },
          },
          503: hubDown,
        },
        async handle({ res, app, body, userId }) {
          const execution = await app.services.executions.start(userId(), body);
          res.location(execution.statusUrl).status(202).json({ execution, statusUrl: execution.statusUrl });
        },
      }),
      operation({
        operationId: 'dryRunExecution',
        route: `POST ${root}/execute/dry-run`,
        summary: 'Check an execution before queuing it: the address verdict, the served models and one test completion',
        description:
          'Every check of POST /execute (the address rules included), then `GET {baseUrl}/v1/models` and one tiny chat completion: reachability, the served model names, ' +
          'whether `model` is among them, and latencies. An unreachable server is reported in the answer (`ready: false`), not as an error. Queues nothing. ' +
          `Both calls share one ${EXECUTE_LIMITS.dryRunDeadlineMs / 1000} s deadline; a model list over 256 KiB or a completion over 1 MiB is not read. ` +
          `At most ${EXECUTE_LIMITS.dryRunsPerUser.limit} dry-runs a minute per user and ${EXECUTE_LIMITS.dryRunsPerAddress.limit} per address (429).`,
        auth: 'key|session',
        body,
        responses: {
          200: { description: 'What the execution would run and what the target answered.', body: 'ExecutionDryRun' },
          400: invalid,
          404: suiteNotFound,
          422: notExecutable,
          429: {
            description: 'Too many dry-runs in the last minute, by you or from your address.',
            body: 'Error',
            headers: ['Retry-After'],
            examples: {
              dryRuns: example('Too many dry-runs', errorBody(messages.executionTooManyDryRuns(EXECUTE_LIMITS.dryRunsPerUser.limit))),
            },
          },
          503: hubDown,
        },
        async handle({ req, res, app, body, userId }) {
          res.json(await app.services.executions.dryRun(userId(), req.ip ?? 'unknown', body));
        },
      }),
      operation({
        operationId: 'getExecution',
        route: `GET ${root}/execute/:id`,
        summary: 'Your execution: status, progress, task scores so far, errors, the submitted run',
        auth: 'key|session',
        pathParams: idParam(messages.executionNotFound, 'Execution id'),
        responses: { 200: { description: 'The execution.', body: 'Execution' }, 404: executionNotFound },
        async handle({ res, app, params, userId }) {
          const execution = await app.services.executions.get(userId(), params.id);
          res.json({ execution, statusUrl: execution.statusUrl });
        },
      }),
      operation({
        operationId: 'cancelExecution',
        route: `DELETE ${root}/execute/:id`,
        summary: 'Cancel your execution',
        description:
          'A waiting execution is CANCELLED at once; a running one stops within one request timeout (its in-flight requests are aborted) and becomes CANCELLED.',
        auth: 'key|session',
        pathParams: idParam(messages.executionNotFound, 'Execution id'),
        responses: {
          200: { description: 'The execution, CANCELLED or with `cancelRequested` while it stops.', body: 'Execution' },
          404: executionNotFound,
          409: {
            description: 'The execution has already finished.',
            body: 'Error',
            examples: { finished: example('Finished', errorBody(messages.executionFinished('SUCCEEDED'))) },
          },
        },
        async handle({ res, app, params, userId }) {
          const execution = await app.services.executions.cancel(userId(), params.id);
          res.json({ execution, statusUrl: execution.statusUrl });
        },
      }),
    ];
  },
};

const EXECUTE_EXAMPLE = {
  suiteSlug: 'arithmetic-mini',
  baseUrl: 'https://my-llama.example.net',
  model: 'qwen2.5-7b-instruct-q4_k_m',
  hfId: 'Qwen/Qwen2.5-7B-Instruct',
  apiKey: 'sk-my-server-key',
  autoSubmit: true,
  hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
  quantization: 'Q4_K_M',
};
