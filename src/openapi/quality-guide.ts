import { QUALITY_BODY_LIMITS } from '../api/quality.ts';
import { MAX_SCORED_CHARS, MAX_USER_REGEX_LENGTH } from '../lib/quality-scoring.ts';
import { messages } from '../messages.ts';
import type { RevisionProfile } from '../revisions.ts';
import {
  aggregations,
  answerExtractions,
  ARTIFACT_PAGE_LIMIT,
  executionModes,
  judgeModes,
  QUALITY_LIMITS,
  RESERVED_SUITE_SLUGS,
  scoringMethods,
  SLUG_PATTERN,
  SUITE_LIST_LIMIT,
  suiteRunners,
  TASK_KEY_PATTERN,
  taskTypes,
} from '../schemas/quality.schema.ts';
import { curlExample } from './examples.ts';
import { qualityExamples } from './quality-examples.ts';
import { EXECUTE_LIMITS } from '../schemas/execute.schema.ts';

/**
 * The quality-evaluation part of the agent documents (the agent-context's `quality` section
 * and the /docs/agents page): how to author a suite, how runs are scored, worked examples,
 * limits and the review life cycle. Every bound comes from QUALITY_LIMITS, the body limits
 * and the profile, so the guide says what the validation does.
 */

const MEGABYTE = 1024 * 1024;
/** '16 MB' -> bytes, as the body parser counts them. */
const bodyBytes = (limit: string) => Number.parseInt(limit, 10) * MEGABYTE;
const L = QUALITY_LIMITS;
const COMMON_CATEGORIES = [
  'reasoning',
  'math',
  'coding',
  'knowledge',
  'commonsense',
  'chat',
  'instruction',
  'long-context',
  'multilingual',
  'safety',
  'tool-use',
];

/** Null where the revision has no quality evaluations. */
export function qualityGuide(profile: RevisionProfile, origin: string) {
  const quality = profile.quality;
  if (!quality) return null;
  const at = (path: string) => `${origin}${quality.root}${path}`;
  const datasets = quality.submissions;
  const examples = qualityExamples(profile);
  const limit = quality.submissionLimit;
  const windowSeconds = Math.round(limit.windowMs / 1000);
  const customSources = datasets ? 'inline or shard' : 'inline';

  const suiteBodies = Object.fromEntries(
    Object.entries(examples.suiteBodies).map(([name, { summary, value }]) => [name, { summary, body: value as Record<string, unknown> }]),
  );

  return {
    summary:
      'Quality evaluations answer "how good" for the same models, quantizations and hardware the speed tests measure. Authors register suites (tasks with their answers), ' +
      "admins approve them, and anyone runs an approved suite locally and uploads per-task scores with per-item traces. The score is the server's: it aggregates the task " +
      'scores itself and re-scores what it can from the traces.',
    root: `${origin}${quality.root}`,
    deprecatedRoots: quality.legacyAliases.map((alias) => ({
      path: `${origin}${alias.path}`,
      successor: `${origin}${alias.successor}`,
      note: "Kept for revision-2 clients with this revision's rules; answers carry Deprecation and Link headers.",
    })),
    quickStart: {
      runASuite: [
        `Pick an approved suite: GET ${at('/suites')} (filters category, runner, official), then GET ${at('/suites/{slug}')} for its whole document, answers included.`,
        'Run every task locally: render promptTemplate per item ({{input}}, {{choices}} as "A. x\\nB. y"), generate with the suite\'s runConfig, extract the answer as the task says and score it (see scoring); for an LM_EVAL_HARNESS suite run lm_eval on the task keys.',
        'Build the run body: every task key of the suite in results with its score as a fraction in [0, 1] (nSamples when you know it), and per-item traces in artifacts so the server can check the scores.',
        `POST it to ${at('/runs/dry-run')} until it answers 200: it shows the score the server would give and writes nothing (free, no rate limit).`,
        `POST it to ${at('/runs')} with an Idempotency-Key header: 201 with the run, PENDING until an admin approves it. One quality run per ${windowSeconds} s per account.`,
      ],
      authorASuite: [
        'Write the registration body (see suiteAuthoring and examples.suites; the JSON Schema is schemas.requestBodies.QualitySuiteRegistration).',
        ...(datasets
          ? [`Large item sets go in a sharded dataset first: POST ${at('/datasets')}, then tasks use { source: "shard", datasetSlug }.`]
          : []),
        quality.suiteDryRun
          ? `POST it to ${at('/suites/dry-run')}: 200 { valid, slugAvailable, taskKeys, itemCount, datasets }, or a 400 listing every problem at once (a taken slug and unusable datasets included).`
          : 'This revision has no suite dry-run: validate against the schema first; the registration answers every problem at once as a 400.',
        `POST it to ${at('/suites')}: 201 with the suite, PENDING until an admin approves it (then it is public and runs can be submitted).`,
        datasets
          ? `Follow the review at GET ${at('/submissions')}; correct a pending or rejected submission with PATCH ${at('/submissions/{kind}/{id}')}.`
          : `Follow the review on ${origin}/settings/submissions.`,
      ],
    },
    suiteAuthoring: {
      registration: {
        slug: `Required, ${L.slug.min}-${L.slug.max} characters matching ${SLUG_PATTERN.source} (lowercase words joined by single hyphens), unique among live suites: a taken slug is a 409${quality.suiteDryRun ? ' (a field error in the dry-run)' : ''}. A withdrawn suite's slug is free again; ${RESERVED_SUITE_SLUGS.join(' and ')} are reserved for pages.`,
        name: `Required, 1-${L.name} characters.`,
        description: `Optional, up to ${L.description} characters.`,
        category: `Required, 1-${L.category} characters of free text; common: ${COMMON_CATEGORIES.join(', ')}. GET /suites filters on it, case-insensitive.`,
        runner: `${suiteRunners.join(' or ')} (see runners).`,
        version: `Optional, up to ${L.version} characters; default "1.0".`,
        sourceUrl: 'Optional http(s) URL of where the suite comes from.',
        suiteDoc: 'Required: the suite document (see suiteDoc).',
        ...(datasets ? { submission: 'The whole body may also be sent wrapped as { "submission": <body> }.' } : {}),
      },
      suiteDoc: {
        version: "Optional; defaults to the registration's version.",
        runner: 'Required: "custom" for a CUSTOM suite, "lm-eval-harness" for an LM_EVAL_HARNESS suite (must match runner).',
        scoringMethod: `Required: ${scoringMethods.join(', ')}; perplexity is refused (see scoringMethods).`,
        higherIsBetter: 'Optional, default true.',
        aggregation: `Optional: ${aggregations.join(', ')}; default weighted_mean (see scoring.aggregation).`,
        runConfig:
          'Optional { temperature 0-2 (default 0), topP 0-1, fewShot, maxNewTokens 1-131072, seed, concurrency 1-8 }: how runs should generate; concurrency is how many items a server-side execution sends at once (default 1).',
        judge:
          "Optional { provider, model, baseUrl }: a hint for local llm_judge runs. The server never calls a judge named by a user (server-side executions use the deployment's own judge).",
        tasks: `Required: 1-${L.tasks} tasks (see task); task keys are unique.`,
      },
      task: {
        key: `Required, unique in the suite, matching ${TASK_KEY_PATTERN.source}. Runs report results under these keys; for LM_EVAL_HARNESS it is the lm-evaluation-harness task name (arc_challenge, hellaswag, ...).`,
        displayName: 'Optional label, up to 256 characters.',
        taskType: `${taskTypes.join(', ')}; default qa.`,
        weight: "Greater than 0 and at most 1000000, default 1: the task's weight in weighted_mean.",
        nShots: 'Optional, 0-1000.',
        higherIsBetter: 'Optional.',
        promptTemplate: `Required in CUSTOM suites, with {{input}} in it; {{choices}} renders the choices as "A. x\\nB. y". Up to ${L.promptTemplate} characters.`,
        maxNewTokens: 'Optional, 1-131072.',
        stopSequences: 'Optional: up to 16 strings of 1-64 characters.',
        answerExtraction: `${answerExtractions.join(', ')}; default none (see answerExtraction).`,
        answerRegex: `Required with answerExtraction "regex": an RE2 pattern (no backreferences or lookaround), up to ${MAX_USER_REGEX_LENGTH} characters; a pattern too complex to match cheaply is refused.`,
        scoring: 'Optional overrides of the answer normalisation (see scoringOverrides).',
        dataset: `Where the items come from (see datasetSources); CUSTOM tasks need ${customSources} items.`,
      },
      item: {
        input: `Required, 1-${L.itemText} characters: the question, put into {{input}}.`,
        gold: `The accepted answer: a string, a number, or a list of 1-${L.acceptedAnswers} accepted answers. Multiple choice: a letter, a 0-based index or the text of a choice.`,
        choices: `2-${L.choices} strings (letters A-Z); required for multiple_choice items.`,
        referenceAnswer: `Optional, up to ${L.itemText} characters.`,
        rubric: `For judged items, up to ${L.itemText} characters.`,
        id: 'Optional string or number, kept as given.',
        metadata: 'Optional object, kept as given.',
      },
      itemRules: [
        'Each item needs gold or a rubric.',
        'Multiple-choice items need choices, and their gold must name one of them.',
        `An inline dataset holds 1-${L.itemsPerTask} items.`,
        'Every object of these bodies is strict except item metadata: a misspelt field is a 400 that names it.',
        'A 400 names each problem by its path into the body, e.g. suiteDoc.tasks.3.dataset.items.12.gold.',
      ],
      runners: {
        CUSTOM: `suiteDoc.runner "custom": every task has a promptTemplate with {{input}} and ${customSources} items, so any client can run and score it from the suite document alone. Runs default to executionMode CUSTOM_LOCAL.`,
        LM_EVAL_HARNESS:
          'suiteDoc.runner "lm-eval-harness": task keys name lm-evaluation-harness tasks; no prompts or items. Run lm_eval locally and upload each task\'s metric as a fraction. Runs default to executionMode LM_EVAL_LOCAL.',
      },
      scoringMethods: {
        accepted: {
          exact_match:
            'The extracted answer equals an accepted answer after SQuAD normalisation (lower-case, punctuation and the articles a/an/the removed, whitespace collapsed). Re-scored by the server from traces.',
          f1: 'SQuAD token F1 between the extracted answer and the best accepted answer. Re-scored by the server from traces.',
          pass_at_k: 'The fraction of problems solved within k samples, computed by the client (not re-scored).',
          llm_judge: 'A judge model grades each answer against its rubric, run locally with judgeMode LOCAL_REPORTED (not re-scored).',
        },
        refused: { perplexity: 'perplexity is not supported: scores must be comparable fractions in [0, 1]' },
        multipleChoice:
          'In multiple_choice tasks the response and the gold are both reduced to a letter (an explicit "answer is (B)", a lone letter, or the text of a choice); the item scores 1 when they agree.',
        reasoning: `Reasoning in <think>...</think> is removed before the answer is extracted (an unclosed <think> means the answer never came), and only the first ${MAX_SCORED_CHARS} characters of what is left are scored.`,
      },
      answerExtraction: {
        none: 'The whole response, trimmed.',
        final_answer:
          'The last stated answer: \\boxed{...}, "#### x", "Final answer: x", "The answer is x" or "Answer: x" (to the end of its line); else the last non-empty line.',
        last_number: 'The last number in the response (1,234.50 -> 1234.5); numeric accepted answers are compared in the same form.',
        regex: 'The last match of answerRegex (its first group when it has one).',
      },
      scoringOverrides: {
        ignoreCase: 'Default true: compare lower-cased.',
        ignorePunctuation: 'Default true: ASCII punctuation is dropped (as SQuAD does).',
        regexesToIgnore: 'Up to 10 RE2 patterns removed from both answers before comparing.',
      },
      datasetSources: {
        inline: `{ source: "inline", items }: 1-${L.itemsPerTask} items in the document.`,
        url: '{ source: "url", url }: where the items live, for information; the server does not fetch it.',
        huggingface: '{ source: "huggingface", hfPath, hfName?, split? }: a hub dataset, for information.',
        ...(datasets
          ? {
              shard:
                '{ source: "shard", datasetSlug }: a sharded dataset that is APPROVED or your own (the suite dry-run reports any other); an admin approves the dataset before the suite.',
            }
          : {}),
      },
      ...(datasets
        ? {
            shardDatasets: {
              endpoint: `POST ${at('/datasets')}`,
              body: {
                slug: `Required, the suite slug rules, unique among live datasets (409 when taken).`,
                name: `Required, 1-${L.name} characters.`,
                description: `Optional, up to ${L.description} characters.`,
                license: 'Optional, up to 128 characters.',
                sourceUrl: 'Optional http(s) URL.',
                shards: `Required: 1-${L.shards} shards { name?, items }, each with 1-${L.itemsPerShard} items of the inline item shape.`,
              },
              rules: [
                'Registered PENDING: your own suites may use it at once, others once it is APPROVED.',
                `An approved dataset is readable at GET ${at('/datasets/{slug}')} so shard tasks can be scored locally.`,
                `It is kind "dataset" in GET ${at('/submissions')}; PATCH ${at('/submissions/dataset/{id}')} replaces it, DELETE withdraws it while no live suite uses it.`,
                `GET ${at('/runs')}?modelId= also ranks runs per shard dataset: the mean of a run's scores on the tasks reading it, x 100.`,
              ],
            },
          }
        : {}),
      enums: {
        runner: [...suiteRunners],
        scoringMethod: [...scoringMethods],
        aggregation: [...aggregations],
        taskType: [...taskTypes],
        answerExtraction: [...answerExtractions],
        datasetSource: datasets ? ['inline', 'url', 'huggingface', 'shard'] : ['inline', 'url', 'huggingface'],
        executionMode: [...executionModes],
        judgeMode: [...judgeModes],
      },
    },
    scoring: {
      taskScores:
        'Every task key of the suite, and no other, is in results, with its score as a fraction in [0, 1]: a bare number or { score, nShots, nSamples }. A missing or unknown key is a 400 naming results.<key>; a value above 1 is refused (divide a percentage by 100).',
      aggregation: {
        weighted_mean: 'sum(w * s) / sum(w) over the tasks, w being the task weight and s its score',
        mean: 'sum(s) / n over the n tasks',
        min: 'the lowest task score',
        max: 'the highest task score',
      },
      scale: "The run's score is the suite's aggregation of the task scores x 100, from 0 to 100.",
      clientAggregates:
        'Ignored: an aggregate sent by the client (runConfig.aggregatePreview and the like) is never used; the server computes the score.',
      rescoring: [
        "For exact_match and f1 suites the server re-scores each trace with a response whose taskKey and itemIndex point at an item with gold, using the task's extraction and normalisation; the first trace per item counts. Judge tasks, pass_at_k and llm_judge suites are not re-scored.",
        "When every item of a task has a response, the server's score is the task's score (nSamples becomes the item count); otherwise the client's score stays.",
        "Either way the run records rescored and the disagreement |server - client| over the re-scored items (against the client's item scores when each of those traces has one, else its task score), which admins see when they review.",
      ],
      standardError:
        'Per task where nSamples is known: sqrt(s(1 - s) / n). When the server re-scored every item: the standard error of the item scores (sample standard deviation / sqrt(n)).',
    },
    examples: {
      suites: suiteBodies,
      ...(datasets ? { dataset: examples.datasetBody } : {}),
      run: examples.runBody,
      runNote: `A run of ${String(examples.runBody.suiteSlug)} (examples.suites.custom) reporting 11 of 12 right, with two of its traces: too few to replace the task score, so the score is 91.67 and the disagreement of the two re-scored items is recorded.`,
      ...(quality.suiteDryRun ? { dryRunSuiteCurl: curlExample('POST', at('/suites/dry-run'), suiteBodies.custom!.body) } : {}),
      registerSuiteCurl: curlExample('POST', at('/suites'), suiteBodies.custom!.body),
      dryRunRunCurl: curlExample('POST', at('/runs/dry-run'), examples.runBody),
      submitRunCurl: curlExample('POST', at('/runs'), examples.runBody, { 'Idempotency-Key': 'arithmetic-qwen3-8b-4090-2026-01-31-1' }),
    },
    limits: {
      runSubmissions: `${limit.maxPerWindow} quality run per ${windowSeconds} s per user account (rateLimits.qualityRunSubmission), a window of its own: speed-test submissions do not use it. Dry-runs never count.`,
      tasksPerSuite: L.tasks,
      itemsPerTask: L.itemsPerTask,
      ...(datasets ? { shardsPerDataset: L.shards, itemsPerShard: L.itemsPerShard } : {}),
      choicesPerItem: L.choices,
      acceptedAnswersPerItem: L.acceptedAnswers,
      artifactsPerRun: L.artifacts,
      artifactTextBytes: L.artifactBytes,
      maxLength: {
        slug: L.slug.max,
        name: L.name,
        description: L.description,
        category: L.category,
        version: L.version,
        itemText: L.itemText,
        promptTemplate: L.promptTemplate,
        answerRegex: MAX_USER_REGEX_LENGTH,
        artifactText: L.artifactText,
        notes: L.notes,
      },
      requestBodyBytes: { suite: bodyBytes(QUALITY_BODY_LIMITS.suite), run: bodyBytes(QUALITY_BODY_LIMITS.run) },
      requestBodies: `Suite${datasets ? ' and dataset' : ''} bodies up to ${QUALITY_BODY_LIMITS.suite}, runs up to ${QUALITY_BODY_LIMITS.run}: larger is a 413 naming the limit.`,
      pageLimit: { suites: { ...SUITE_LIST_LIMIT }, artifacts: { ...ARTIFACT_PAGE_LIMIT } },
    },
    execute: executeGuide(at),
    lifecycle: {
      statuses: {
        suite: ['PENDING', 'APPROVED', 'REJECTED', 'WITHDRAWN'],
        ...(datasets ? { dataset: ['PENDING', 'APPROVED', 'REJECTED', 'WITHDRAWN'] } : {}),
        run: ['PENDING', 'APPROVED', 'REJECTED'],
      },
      transitions: [
        `Suites${datasets ? ', datasets' : ''} and runs start PENDING: not public yet (GET ${at('/runs/{id}')} answers you your own run in any state).`,
        'An admin approves (APPROVED: public at once) or rejects with notes (REJECTED: the notes are shown to you).',
        'Runs can only be submitted to APPROVED suites (422 otherwise); a run is never withdrawn.',
        ...(datasets
          ? [
              `PATCH ${at('/submissions/{kind}/{id}')} (kind suite or dataset) with the whole body corrects your PENDING or REJECTED submission: it is PENDING again with the notes cleared.`,
              `DELETE ${at('/submissions/{kind}/{id}')} withdraws your PENDING or REJECTED submission (WITHDRAWN, its slug free again) unless a run uses the suite or a live suite the dataset.`,
              'An approved submission, or one in use, cannot be changed or withdrawn: 409.',
            ]
          : [`Rejected suites can be corrected and resubmitted on ${origin}/settings/submissions.`]),
      ],
    },
    errors: [
      {
        status: 400,
        when: 'A suite, dataset or run body fails validation: every problem at once under details.fieldErrors, keyed by the path into the body.',
        body: { error: 'Validation failed', details: { fieldErrors: examples.suiteFieldErrors, formErrors: [] } },
      },
      {
        status: 400,
        when: 'A run misses a task key of the suite, names one it does not have, or sends a percentage.',
        body: { error: 'Validation failed', details: { fieldErrors: examples.runFieldErrors, formErrors: [] } },
      },
      {
        status: 404,
        when: 'An unknown suite slug (GET, or named by a run); also an hfId the model hub does not know.',
        body: { error: messages.qualitySuiteNotFound('no-such-suite') },
      },
      {
        status: 409,
        when: 'The slug is taken (or, for a submission, it is approved or in use; or the same Idempotency-Key is still in flight).',
        body: { error: messages.qualitySlugTaken('arithmetic-qa-mini') },
      },
      {
        status: 413,
        when: `A body over its limit (${QUALITY_BODY_LIMITS.suite} for suites${datasets ? ' and datasets' : ''}, ${QUALITY_BODY_LIMITS.run} for runs).`,
        body: { error: messages.payloadTooLargeOf(QUALITY_BODY_LIMITS.run) },
      },
      {
        status: 422,
        when: 'A run names a suite that is not approved.',
        body: { error: messages.qualitySuiteNotApproved('my-new-suite', 'PENDING') },
      },
      {
        status: 429,
        when: `A second quality run inside the ${windowSeconds} s window; also sends Retry-After (seconds).`,
        body: { error: limit.message, retryAfterMs: limit.windowMs - 5000, lastSubmittedAt: '2026-01-31T12:00:05.000Z' },
      },
    ],
  };
}

/**
 * Server-side execution: the server runs an approved CUSTOM suite against the caller's
 * OpenAI-compatible server and scores it itself. Bounds from EXECUTE_LIMITS.
 */
function executeGuide(at: (path: string) => string) {
  const E = EXECUTE_LIMITS;
  const body = {
    suiteSlug: 'arithmetic-qa-mini',
    baseUrl: 'https://my-llama.example.net',
    model: 'qwen3-8b-q4_k_m',
    hfId: 'Qwen/Qwen3-8B',
    autoSubmit: true,
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
    quantization: 'Q4_K_M',
  };
  return {
    summary:
      'Instead of running a suite locally, let the server run it: it sends every item of an approved CUSTOM suite to your OpenAI-compatible server (llama-server, vLLM, SGLang, Ollama, LM Studio...), ' +
      'scores the answers itself (reasoning in <think>...</think> stripped first) and, with autoSubmit, submits the run as PENDING with executionMode SERVER_EXECUTE: scores computed here, not reported.',
    steps: [
      'Serve the model with an OpenAI-compatible API (e.g. `llama-server -m model.gguf --port 8080`, `vllm serve Qwen/Qwen3-8B`, `ollama serve`).',
      'Make it reachable at a public address: the server only calls public http(s) addresses. Examples: `cloudflared tunnel --url http://localhost:8080` (prints an https://*.trycloudflare.com URL), `tailscale funnel 8080`, `ngrok http 8080`; protect it with a key (llama-server --api-key, vLLM --api-key) and send that key as apiKey.',
      `POST the request to ${at('/execute/dry-run')}: it checks everything POST /execute checks, resolves your host and shows the address verdict, lists the models your server serves (GET {baseUrl}/v1/models), sends one tiny chat completion and reports latencies. ready: true means go. Nothing is queued.`,
      `POST the same body to ${at('/execute')}: 202 { execution, statusUrl } at once.`,
      `Poll GET statusUrl (${at('/execute/{id}')}) every few seconds: status QUEUED -> RUNNING -> SUCCEEDED, FAILED or CANCELLED, progress { done, total, failed }, per-task scores so far, the aggregate when done, and runId when auto-submitted. The page /evals/executions/{id} shows the same with a progress bar.`,
      `DELETE ${at('/execute/{id}')} cancels: at once when queued, within one request timeout when running.`,
    ],
    request: {
      suiteSlug:
        'Required: an APPROVED CUSTOM suite (404 unknown; 422 not approved, lm-eval-harness, pass_at_k, or llm_judge without a judge configured on this deployment).',
      baseUrl:
        'Required: your server, with or without a trailing /v1 (the server calls {baseUrl}/v1/chat/completions). Must pass the address rules below.',
      hfId: "Required: the model on the hub (<org>/<model>), checked there like a run's.",
      model: 'Optional: the served model name sent as "model" (default hfId); dry-run lists what your server serves.',
      apiKey:
        "Optional: your server's bearer key, used for this execution only: kept in memory by the instance that accepted it, never stored or logged (such an execution cannot move to another instance; if that instance restarts, it fails and you start it again).",
      autoSubmit:
        'Optional, default false: submit the finished execution as a PENDING quality run (uses your quality submission window; needs hardware, and every task of the suite).',
      hardware: 'Required with autoSubmit: the hardware object of a speed test.',
      quantization: 'Optional, for the submitted run.',
      modelRevision: 'Optional, default main.',
      notes: `Optional, up to ${QUALITY_LIMITS.notes} characters.`,
      taskKeys: 'Optional: run only these tasks (not with autoSubmit).',
    },
    addressRules: [
      'Only http and https; no user name or password in the URL; port 80, 443 or 1024-65535.',
      'The host must resolve only to public unicast addresses: loopback, private (10/8, 172.16/12, 192.168/16), link-local (169.254/16, cloud metadata), CGNAT (100.64/10), unspecified, multicast, reserved and documentation ranges, IPv6 ULA and link-local, and IPv4-mapped, 6to4, Teredo and NAT64 forms are refused, as are localhost and single-label names.',
      'IP literals are checked in every spelling (decimal 2130706433, hex 0x7f000001, octal 0177.0.0.1, short 127.1, bracketed IPv6).',
      'The address vetted is the one connected to (checked again on every new connection), so a DNS answer that changes later cannot redirect the calls; redirects are never followed (a 3xx is an item error).',
      'A refusal is a 400 with details.fieldErrors.baseUrl naming the rule broken.',
    ],
    scoring: [
      "exact_match and f1 items are scored like runs' traces are re-scored (SQuAD normalisation, the task's answerExtraction, multiple choice reduced to a letter).",
      "llm_judge suites (and judge tasks) are scored by the deployment's own judge on 0-10 with the question, rubric, reference answer and your answer in its prompt; item score = judge score / 10. The execution fails when more than 10% of the judge's answers cannot be read.",
      `Each item's prompt hash, response, extracted answer, score, latency and error are kept; an item your server fails to answer (error status, timeout, refused redirect) scores 0 with its error, and the execution fails when more than ${Math.round(E.maxFailedItemShare * 100)}% of items fail.`,
      "Task score = mean item score; the aggregate uses the suite's aggregation, 0-100.",
    ],
    limits: {
      itemsPerExecution: E.items,
      requestTimeoutSeconds: E.requestTimeoutMs / 1000,
      maxDurationMinutes: E.maxDurationMs / 60_000,
      runningPerUser: E.runningPerUser,
      waitingOrRunningPerUser: E.queuedPerUser,
      maxConcurrency: E.maxConcurrency,
    },
    statuses: ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'],
    examples: {
      dryRunCurl: curlExample('POST', at('/execute/dry-run'), body),
      executeCurl: curlExample('POST', at('/execute'), body),
      pollCurl: `curl -sS ${at('/execute/{id}')} -H 'Authorization: Bearer bhk_<40 hex characters>'`,
    },
  };
}
