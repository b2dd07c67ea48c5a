import { PEER_RULE, peerMethodology } from '../lib/peer-verdict.ts';
import { commonValues } from '../data/common-values.ts';
import { IMAGE_FIELD, imageRules } from '../lib/image-pipeline.ts';
import {
  LISTING_DESCRIPTION_MAX,
  LISTING_HARDWARE_DETAILS_MAX,
  LISTING_MAX_IMAGES,
  LISTING_MAX_PROOF_RUNS,
  LISTING_TITLE_MAX,
  listingConditions,
  listingCurrencies,
  listingStatuses,
} from '../schemas/marketplace.schema.ts';
import { cpus, gpus, unifiedChips } from '../data/hardware-catalogue.ts';
import { compareHardwareNames, hardwareNames } from '../lib/hardware-lookup.ts';
import { DEFAULT_SUSPECT_FACTOR, SUSPECT_FACTORS, methodology } from '../lib/roofline.ts';
import { MAX_INPUT_DEPTH } from '../lib/validation.ts';
import { API_KEYS_PER_ACCOUNT, buckets, hardwareCostRules, hwClasses, reactionEmojis, RUN_CORRECTION_WINDOW_HOURS } from '../constants.ts';
import type { MetricRule, RateLimitRule, RevisionProfile } from '../revisions.ts';
import { speedTestStatuses } from '../schemas/admin.schema.ts';
import { API_KEY_PATTERN } from '../schemas/api-key.schema.ts';
import { jsonSchemaOf } from '../schemas/json-schema.ts';
import { exportFormats, leaderboardSorts } from '../runs/reads/leaderboard-query.schema.ts';
import { facetEnums, facetRules } from '../runs/facets.ts';
import { messages } from '../messages.ts';
import { describeProperties } from './descriptions.ts';
import { commandSnippetExample, curlExample, submissionExamples } from './examples.ts';
import { qualityGuide } from './quality-guide.ts';
import { reportFormat } from './report-format.ts';
import { apiOperations, openApiPath, requestComponents } from '../api/index.ts';

/**
 * GET /api/agent-context: everything an agent needs to submit a correct run on its first
 * try, in one document. Built from the revision profile, the schemas, the route table and
 * the hardware catalogue, so it cannot disagree with what the API does.
 */

const seconds = (ms: number) => Math.round(ms / 1000);

function metricRuleInWords(rule: MetricRule): string {
  switch (rule.kind) {
    case 'anyOf':
      return `At least one of ${rule.fields.join(', ')} is required; otherwise ${rule.status} with the error "${rule.message}".`;
    case 'requiredPlusOneOf':
      return `${rule.required} is required (400 when missing), and at least one of ${rule.oneOf.join(', ')} alongside it; otherwise ${rule.status} with the error "${rule.message}".`;
    case 'required':
      return `${rule.required} is required (400 when missing); the other metrics are optional.`;
  }
}

/** A per-user submission window in the words and numbers agents need; `appliesTo` lists the operations (aliases too) that use it. */
function submissionLimitInfo(rule: RateLimitRule, appliesTo: string[]) {
  return {
    maxPerWindow: rule.maxPerWindow,
    windowSeconds: seconds(rule.windowMs),
    scope: 'per user account: every key and session of the account shares it',
    appliesTo,
    dryRunsCount: false,
    onSuccess: 'X-RateLimit-Remaining (0 or 1) and X-RateLimit-Reset (Unix seconds) on every 201',
    onLimit: `429 with Retry-After (seconds) and { error, retryAfterMs, lastSubmittedAt }; error is "${rule.message}"`,
  };
}

export const METHODOLOGY_TIPS = [
  'Warm up first: send 1-3 untimed requests (weights loaded, kernels compiled, caches filled) and discard them.',
  'Fix the prompt and output lengths: use the same promptTokens and outputTokens for runs you compare, force the output length (ignore EOS / fixed max tokens) and report both numbers.',
  'For decode speed use batch 1 with one request in flight (batchSize 1, concurrency 1): that is what tokSOut ranks and what the plausibility roofline checks.',
  'prefillTokens is the number of tokens already in the KV cache before generation (0 = fresh run); decode is slower deep into a long context, so report it when you measure there.',
  'batchSize (sequences generated together per request) and engineFlags.concurrency (simultaneous requests) raise aggregate throughput: tokSOut is then the aggregate output rate, such runs are compared through the batchSize filter, and the roofline holds them to N sequences x the single-stream bound. In revision 3 the aggregate active sequences are batchSize x concurrency.',
  'Measure ttftMs from sending the request to receiving the first token, and tokSPrefill as prompt tokens divided by prompt-processing time.',
  'Repeat the measurement (5-10 times) and report the median; note the spread and anything unusual in notes.',
  'Measure power during the timed window only (nvidia-smi --query-gpu=power.draw --format=csv -lms 100, rocm-smi --showpower --json, powermetrics on macOS, the RAPL energy counters of the CPU packages for a CPU-only run) and report the average per card in gpuPowerWatts with powerSource "measured" (revision 3; watts given without it are "stated", and pages say which); hardware.powerWatts is the whole machine.',
  "Send the evidence of what you measured (revision 3): promptSha256 and promptSample, outputSha256 and outputSample (or prompt and outputText, kept only as digest and sample), the engine's own timings in engineTimingsRaw (llama.cpp `timings`, Ollama eval_count/eval_duration, llama-bench JSON), per-iteration samples and sampleStats, and engineCommit or engineBuild: a run whose evidence agrees with itself (timings within 5% of tokSOut/ttftMs) is stored as verified (verifiedRun) and marked so on every page.",
  'Report the engine exactly: engineVersion, engineCommit and engineBuild (revision 3), and the full launch command in engineFlags.commandSnippet (flags are parsed from it; explicit flag fields override the parsed values).',
  'Use the hub id of the exact weights you ran (e.g. the GGUF repository) and the quantization as the engine names it (Q4_K_M, AWQ, fp8, ...).',
  'Give hardware names as the catalogue spells them (hardwareOptions): the roofline then knows the memory bandwidth and the run is judged instead of marked unknown.',
  'Close other GPU and CPU workloads while measuring, and mention power or thermal limits in notes.',
];

export function buildAgentContext(profile: RevisionProfile, origin: string) {
  const url = (path: string) => `${origin}${path}`;
  const operations = apiOperations(profile);
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const endpoint = (id: string) => {
    const op = byId.get(id);
    return op ? { method: op.method.toUpperCase(), url: url(openApiPath(op.path)) } : null;
  };
  const examples = submissionExamples(profile);
  const limit = profile.speedTests.submissionLimit;
  const accepts = (field: string) => !profile.speedTests.revisionOnlyFields.includes(field as never);
  const names = hardwareNames();
  const submit = endpoint('submitSpeedTest')!;
  const dryRun = endpoint('dryRunSpeedTest');
  const byName = <T extends { name: string }>(items: readonly T[]) => [...items].sort((a, b) => compareHardwareNames(a.name, b.name));
  const callsOf = (operationId: string) =>
    operations
      .filter((op) => (op.aliasOf ?? op.operationId) === operationId)
      .map((op) => `${op.method.toUpperCase()} ${url(openApiPath(op.path))}`);
  const quality = qualityGuide(profile, origin);

  const requestBodies = Object.fromEntries(
    Object.entries(requestComponents(profile)).map(([name, schema]) => [name, describeProperties(jsonSchemaOf(schema, 'input'))]),
  );
  const queryParameters = Object.fromEntries(
    operations
      .filter((op) => op.query && !op.aliasOf)
      .map((op) => [op.operationId, describeProperties(jsonSchemaOf(op.query!.schema, 'input'), op.query!.descriptions)]),
  );

  return {
    service: 'LLM Bench: a public leaderboard for local LLM inference speed tests',
    revision: profile.revision,
    baseUrl: origin,
    documentation: {
      openapi: url('/api/openapi.json'),
      agentContext: url('/api/agent-context'),
      apiReference: url('/docs/api'),
      agentGuide: url('/docs/agents'),
      methodology: url('/methodology'),
    },
    quickStart: [
      `Create an API key at ${url('/settings/keys')} (signed in) and send it as "Authorization: Bearer bhk_...".`,
      `Check it: GET ${url('/api/me')} answers who you are.`,
      'Build the body from examples.minimal (or examples.full) and schemas.requestBodies.SpeedTestSubmission; use enums, commonValues and hardwareOptions for exact spellings.',
      dryRun
        ? `POST it to ${dryRun.url} first: 200 { valid: true, parsed } shows how it will be stored; 400 lists every field error.`
        : 'This revision has no dry-run: validate against the schema before submitting.',
      `POST it to ${submit.url} with an Idempotency-Key header; retry with the same key and body after a network error.`,
      `One submission per ${seconds(limit.windowMs)} s per account: on 429 wait Retry-After seconds.`,
      `A mistake in a stored run? Within ${RUN_CORRECTION_WINDOW_HOURS} hours of submitting, PATCH ${url(`${profile.speedTests.resultsPath}/{id}`)} with the fields to change (the same validation as a submission; no rate-limit use); ` +
        `DELETE it to withdraw it at any time; GET ${url(`${profile.speedTests.resultsPath}/mine`)} lists your runs in every status, with the admin's reason for a rejected one.`,
      ...(profile.speedTests.revision3Fields
        ? [
            `To measure another user's run again: GET ${url(`${profile.speedTests.resultsPath}/{id}`)} and run its recipe (weights, engine build, engineFlags, workload: recipe.key names it), then submit with "replicates": "<its id>" (llm-bench reproduce <id> does both). ` +
              "It counts among that run's replications when the recipe key, the device and the card count match and you are another user; the leaderboard ranks replicated runs alone with replicated=true.",
          ]
        : []),
      ...(quality
        ? [
            'Quality evaluations (suites, runs with per-task scores): see quality, whose quickStart has the steps for running and for authoring a suite.',
          ]
        : []),
    ],
    endpoints: Object.fromEntries(
      operations.map((op) => [
        op.operationId,
        {
          method: op.method.toUpperCase(),
          url: url(openApiPath(op.path)),
          auth: op.auth,
          summary: op.summary,
          ...(op.aliasOf ? { deprecated: true } : {}),
        },
      ]),
    ),
    authentication: {
      header: 'Authorization: Bearer bhk_<40 hex characters>',
      keyPattern: API_KEY_PATTERN.source,
      obtainKey: url('/settings/keys'),
      checkKey: url('/api/me'),
      notes: [
        'A missing, malformed, expired or revoked key is a 401; an Authorization header is never ignored in favour of a session.',
        `At most ${API_KEYS_PER_ACCOUNT} live keys per account.`,
        'Browsers use the bh.sid session cookie instead; unsafe requests made with it need the X-CSRF-Token header. Bearer requests need no CSRF token.',
      ],
    },
    enums: {
      engineName: [...profile.speedTests.engines],
      hwClass: [...hwClasses],
      reactionEmoji: [...reactionEmojis],
      // The bucketed filters' values (the facet registry).
      ...facetEnums(),
      batchSizeBucket: { min: 1, openEndedFrom: buckets.batchSizeOpenEnded },
      leaderboardSort: [...leaderboardSorts],
      exportFormat: [...exportFormats],
      runStatus: [...speedTestStatuses],
      plausibility: ['plausible', 'suspect', 'outlier', 'unknown'],
      verdict: ['plausible', 'suspect', 'outlier', 'unknown', 'not judged'],
      mirostat: [...profile.speedTests.bounds.mirostatValues],
      ...(accepts('hardwareCost')
        ? { hardwareCostCondition: [...hardwareCostRules.conditions], currency: [...hardwareCostRules.currencies] }
        : {}),
    },
    commonValues: {
      quantization: [...commonValues.quantization],
      backend: [...commonValues.backend],
      kvCacheDtype: [...commonValues.kvCacheDtype],
      attentionBackend: [...commonValues.attentionBackend],
      ropeScaling: [...commonValues.ropeScaling],
      note: 'Free-text fields: any value is accepted, but these spellings group runs together on the leaderboard.',
    },
    hardwareOptions: {
      note: 'Canonical names from the hardware catalogue. Names are stored as given; a catalogue name lets the plausibility roofline find the memory bandwidth. UNIFIED chips are sent as chipVendor + chipFamily + chipVariant.',
      gpus: byName(gpus).map(({ name, vendor, vramGb }) => ({ name, vendor, vramGb: [...vramGb] })),
      unifiedChips: byName(unifiedChips).map(({ name, vendor, family, variant, memoryGb }) => ({
        name,
        chipVendor: vendor,
        chipFamily: family,
        chipVariant: variant,
        memoryGb: [...memoryGb],
      })),
      cpus: byName(cpus).map(({ name, vendor, memoryType }) => ({ name, vendor, memoryType })),
      ...(accepts('hardwareCost') ? { hardwareCostComponentNames: [...names.gpus, ...names.unifiedChips, ...names.cpus] } : {}),
    },
    schemas: { requestBodies, queryParameters },
    metricRule: { ...profile.speedTests.metricRule, inWords: metricRuleInWords(profile.speedTests.metricRule) },
    examples: {
      minimal: examples.minimal,
      full: examples.full,
      throughput: {
        body: examples.throughput,
        note: profile.speedTests.batchSizeTimesConcurrency
          ? 'A throughput run: 8 requests in flight (engineFlags.concurrency), tokSOut their aggregate output. It ranks among runs of 8+ streams (batchSize=8: aggregate active sequences = batchSize x concurrency), never among single-stream runs, is marked "x8 streams" on the pages, and is held to 8 x the single-stream roofline (8 sequences share each pass over the weights).'
          : 'A throughput run: 8 requests in flight (engineFlags.concurrency), tokSOut their aggregate output. Pages mark it, and it is held to 8 x the single-stream roofline; in this revision the batchSize filter buckets on batchSize alone.',
      },
      ...(dryRun ? { dryRunCurl: curlExample('POST', dryRun.url, examples.minimal.DISCRETE_GPU) } : {}),
      submitCurl: curlExample('POST', submit.url, examples.minimal.DISCRETE_GPU, { 'Idempotency-Key': 'run-2026-01-31-qwen3-8b-4090-1' }),
      commandSnippet: commandSnippetExample(),
    },
    methodology: {
      tips: METHODOLOGY_TIPS,
      plausibility: {
        formula: methodology.formula,
        suspectFactor: DEFAULT_SUSPECT_FACTOR,
        suspectFactors: SUSPECT_FACTORS,
        assumptions: methodology.assumptions,
        peers: {
          rule: peerMethodology.rule,
          thresholds: PEER_RULE,
          rejudging: peerMethodology.rejudging,
          verdictObject:
            'Each run (and the dry-run) carries `verdict`: { verdict, reason, decodeBoundTokS, peers: { count, bestTokS, ratio, basis } | null }; `plausibility` keeps the flat verdict (`not judged` reads `unknown` there).',
        },
        details: url('/methodology'),
      },
    },
    rateLimits: {
      speedTestSubmission: submissionLimitInfo(limit, callsOf('submitSpeedTest')),
      ...(profile.quality
        ? {
            qualityRunSubmission: {
              ...submissionLimitInfo(profile.quality.submissionLimit, callsOf('submitQualityRun')),
              separateFrom: 'speed-test submissions: each has its own window',
            },
          }
        : {}),
      reads:
        'Every GET counts against a generous per-address limit, and CSV / JSON Lines exports against a tighter one; the RateLimit and RateLimit-Policy headers of each answer say what is left. Over it: 429 with Retry-After (seconds) and { error, retryAfterMs }. Cache this document and /api/openapi.json with If-None-Match.',
    },
    idempotency: {
      header: 'Idempotency-Key',
      format: '1-255 visible ASCII characters',
      sameKeySameBody: 'The first 201 is answered again with Idempotent-Replayed: true; nothing is written and the rate limit is not used.',
      sameKeyOtherBody: `422 { error: "${messages.idempotencyOtherBody}" }`,
      sameKeyInFlight: '409: the first request is still running; retry shortly.',
    },
    bucketRules: facetRules(profile),
    predictions: {
      url: url('/api/predictions'),
      page: url('/predict'),
      what: 'Will it run, and how fast? GET with hfId (any spelling the leaderboard model box takes), quantization, and hardwareName (any device name the hardware resolver reads) or hwClass with the device fields; optional gpuCount, vramGb / unifiedMemoryGb / ramGb, engineName, contextDepth, concurrency.',
      answer:
        'prediction.tokSOut { estimate, low, high, level: 0.8 } (single-stream decode), tokSPrefill and ttftMs where runs allow, fits (true, false, or null when the memory is unknown) and memoryNeededGb; basis { method, runs, similar: run ids }; trackRecord { count, medianAbsError, intervalHitRate } of earlier predictions against runs measured later.',
      notARun:
        'Every answer is marked prediction.kind = "prediction"; predictions never appear on the leaderboard. Measure and submit a run to put a figure on the board.',
      unknown: '422 { error, unknown: "model" | "device" | "quantization" } names what could not be placed.',
      method:
        'Memory-bandwidth roofline times an efficiency learned from approved single-stream runs judged plausible (by hardware class, device, cards and model size, engine, quantization), shrunk toward broader groups where runs are few; the 80% interval is calibrated on runs the model did not see.',
    },
    limits: {
      maxLength: { ...profile.speedTests.bounds.maxLength },
      engineCommitHexLength: { ...profile.speedTests.bounds.engineCommitLength },
      gpusMaxItems: profile.speedTests.bounds.gpusMaxItems,
      temperature: { ...profile.speedTests.bounds.temperature },
      unitInterval: 'gpuMemUtil, topP and minP are between 0 and 1',
      pageLimit: {
        results: { ...profile.speedTests.resultsList.limit },
        leaderboard: { ...profile.speedTests.leaderboard.limit },
        models: { ...profile.models.listLimit },
        modelSearch: { ...profile.models.searchLimit },
        ...(profile.marketplace ? { marketplaceFeed: { ...profile.marketplace.feedLimit } } : {}),
      },
      requestBodyBytes: 1_048_576,
    },
    errors: [
      {
        status: 400,
        when: 'The body, query or path fails validation (dry-runs too). Unknown fields are errors.',
        body: {
          error: 'Validation failed',
          details: { fieldErrors: { 'hardware.vramGb': ['Required unless gpus is given'] }, formErrors: [] },
        },
      },
      { status: 400, when: 'The body is not JSON.', body: { error: messages.malformedJson } },
      {
        status: 400,
        when: `Any body nested deeper than ${MAX_INPUT_DEPTH} levels, or text (body, query or path) with NUL characters or lone surrogates; checked before authentication.`,
        body: {
          error: 'Validation failed',
          details: { fieldErrors: {}, formErrors: [`body: ${messages.nestedTooDeep(MAX_INPUT_DEPTH)}`] },
        },
      },
      { status: 401, when: 'Credentials missing, expired, revoked or invalid.', body: { error: messages.authenticationRequired } },
      {
        status: 403,
        when: 'A session request without the CSRF token, or a Bearer key on a session-only endpoint (API keys, saved setups).',
        body: { error: messages.invalidCsrf },
      },
      {
        status: 404,
        when: 'hfId does not exist on the model hub.',
        body: { error: messages.hubNotFound('someorg/No-Such-Model', 'https://huggingface.co') },
      },
      { status: 404, when: 'An unknown id or path.', body: { error: messages.notFound } },
      {
        status: 409,
        when: 'A name or limit conflict (setup name taken, key or setup limit), or the same Idempotency-Key still in flight.',
        body: { error: messages.apiKeyLimit(API_KEYS_PER_ACCOUNT) },
      },
      {
        status: 409,
        when: `A correction (PATCH) of a run older than ${RUN_CORRECTION_WINDOW_HOURS} hours, rejected or withdrawn.`,
        body: { error: messages.correctionWindowClosed(RUN_CORRECTION_WINDOW_HOURS) },
      },
      ...('status' in profile.speedTests.metricRule
        ? [
            {
              status: profile.speedTests.metricRule.status,
              when: 'The metric rule is not met.',
              body: { error: profile.speedTests.metricRule.message },
            },
          ]
        : []),
      { status: 422, when: 'Idempotency-Key reused with a different body.', body: { error: messages.idempotencyOtherBody } },
      {
        status: 429,
        when: 'A submission inside the rate-limit window; also sends Retry-After (seconds).',
        body: { error: limit.message, retryAfterMs: limit.windowMs - 5000, lastSubmittedAt: '2026-01-31T12:00:05.000Z' },
      },
      {
        status: 429,
        when: 'Too many reads from your address (every GET; CSV / JSON Lines exports have a tighter budget); also sends Retry-After (seconds).',
        body: { error: messages.tooManyReads(42), retryAfterMs: 41_250 },
      },
      {
        status: 503,
        when: 'The model hub could not answer; nothing was written. Also sends Retry-After.',
        body: { error: messages.hubUnavailable },
      },
      {
        status: 503,
        when: 'The database is briefly unreachable; nothing was written. Retry after Retry-After (seconds).',
        body: { error: messages.databaseUnavailable },
      },
    ],
    ...(quality ? { quality } : {}),
    ...(profile.reports ? { reports: reportFormat(profile.reports) } : {}),
    ...(profile.marketplace ? { marketplace: marketplaceGuide(url) } : {}),
  };
}

/** Revision 3's marketplace for agents: the feed's paging, the seller's steps and the listing and image rules. */
function marketplaceGuide(url: (path: string) => string) {
  return {
    feed: `GET ${url('/api/marketplace/feed')} (public): repeat with cursor = pagination.nextCursor while hasMore. updatedSince (ISO-8601 with a timezone, inclusive) fetches only what changed; a listing updated while you page comes again later with its new content.`,
    sell: [
      `POST ${url('/api/marketplace/listings')} creates a DRAFT (key or session); benchmarkRunIds: up to ${LISTING_MAX_PROOF_RUNS} of your own APPROVED speed-test runs as proof.`,
      `POST ${url('/api/marketplace/listings/{id}/images')} with multipart/form-data, one file in field "${IMAGE_FIELD}" per call; reorder with POST .../images/order, delete with DELETE .../images/{imageId}.`,
      `POST ${url('/api/marketplace/listings/{id}/publish')} makes it ACTIVE (public); POST .../sold marks it sold; DELETE removes it.`,
    ],
    states: [...listingStatuses],
    conditions: [...listingConditions],
    currencies: [...listingCurrencies],
    limits: {
      title: LISTING_TITLE_MAX,
      description: LISTING_DESCRIPTION_MAX,
      hardwareDetails: LISTING_HARDWARE_DETAILS_MAX,
      imagesPerListing: LISTING_MAX_IMAGES,
      proofRuns: LISTING_MAX_PROOF_RUNS,
    },
    images: {
      contentTypes: [...imageRules.contentTypes],
      maxBytes: imageRules.maxBytes,
      maxPixels: imageRules.maxPixels,
      thumbnailMaxWidth: imageRules.thumbMaxWidth,
      processing:
        'The type is judged by content; the image is re-encoded with the EXIF rotation applied and all metadata (EXIF, GPS) removed. Over the byte limit: 413; anything else refused: 400 naming the rule.',
    },
  };
}

export type AgentContext = ReturnType<typeof buildAgentContext>;
