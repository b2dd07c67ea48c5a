/**
 * The texts people and agents read in error answers, in one place: services, middleware
 * and the generated documents (OpenAPI examples, agent-context) all quote these, so a
 * documented error can never drift from the one the API gives. Validation messages stay
 * with their zod schemas; revision-specific texts (rate limits, the metric rule) live in
 * the revision profile.
 */

const quoteId = (hfId: string) => (hfId.length > 200 ? `${hfId.slice(0, 200)}…` : hfId);

export const messages = {
  // Requests
  notFound: 'Not found',
  malformedJson: 'Malformed JSON body',
  malformedUrlEncoding: 'Malformed URL encoding',
  malformedMultipart: 'Malformed multipart/form-data body',
  signedUrlInvalid: 'This link is not one this service signed, or it expired (links last 15 minutes): ask for a new one',
  payloadTooLarge: 'Request body is larger than 1 MB',
  payloadTooLargeOf: (limit: string) => `Request body is larger than ${limit}`,
  tooManyFormFields: 'Too many form fields',
  unsupportedEncoding: 'Unsupported content encoding or charset',
  requestAborted: 'Request aborted',
  internalError: 'Internal server error',
  noNulCharacters: 'Must not contain NUL characters',
  notWellFormedUnicode: 'Must be well-formed Unicode (no lone surrogates)',
  nestedTooDeep: (maxDepth: number) => `Must not be nested deeper than ${maxDepth} levels`,
  invalidValue: 'A value in the request is not valid for its field',

  // Database
  conflict: 'The request conflicts with data stored meanwhile; reload and try again',
  databaseUnavailable: 'Service temporarily unavailable, retry later',
  /** The error page's explanation of a database outage, for people rather than agents. */
  databaseUnavailablePage: "We can't reach our database right now. Please try again in a few seconds.",

  // Authentication and access
  authenticationRequired: 'Authentication required. Use a session cookie or Authorization: Bearer <api_key>',
  sessionOnly: 'This endpoint needs a signed-in browser session; API keys are not accepted here',
  invalidCsrf: 'Invalid CSRF token',
  signInRequired: 'Sign in required',
  adminsOnly: 'Admins only',

  // Accounts
  userNotFound: 'User not found',
  usernameTaken: 'That username is taken',
  wrongCredentials: 'Wrong username or password.',
  wrongCurrentPassword: 'Current password is wrong',
  tooManySignUps: (wait: string) => `Too many sign-ups from your address. Try again in ${wait}.`,
  tooManySignIns: (wait: string) => `Too many sign-in attempts. Try again in ${wait}.`,
  tooManyFailedSignInsFromAddress: (wait: string) => `Too many failed sign-ins from your address. Try again in ${wait}.`,
  tooManyReads: (seconds: number) => `Too many requests from your address. Retry in ${seconds} second${seconds === 1 ? '' : 's'}.`,
  tooManyAnonymousWrites: (seconds: number) =>
    `Too many requests without credentials from your address. Sign in or send your API key, or retry in ${seconds} second${seconds === 1 ? '' : 's'}.`,
  imagesBusy: 'Too many images are being read or processed right now. Retry in a few seconds.',
  tooManyExports: (minutes: number) => `Too many exports from your address. Retry in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
  tooManyPasswordAttempts: 'Too many attempts. Try again later.',
  lastAdmin: 'The last admin cannot lose the admin role: make another account admin first.',

  // API keys
  apiKeyNotFound: 'API key not found',
  apiKeyLimit: (max: number) => `API key limit reached (${max})`,

  // Speed tests
  speedTestNotFound: 'Speed-test run not found',
  replicatesNotFound: 'No approved run has this id: name the run you measured again (its id is in its address, /runs/<id>)',
  replicatesItself: 'A run cannot replicate itself: name the run you measured again',
  idempotencyKeyFormat: 'Idempotency-Key must be 1-255 visible ASCII characters',
  idempotencyOtherBody: 'Idempotency-Key was already used with a different request body',
  idempotencyInFlight: 'A request with this Idempotency-Key is still in progress; retry shortly',
  cannotReject: (status: string) => `This run is ${status.toLowerCase()}, not approved, so it cannot be rejected.`,
  cannotRestore: (status: string) => `This run is ${status.toLowerCase()}, not rejected, so there is nothing to restore.`,
  correctionWindowClosed: (hours: number) =>
    `Runs can be corrected within ${hours} hours of submitting, and this one is older. It can still be withdrawn (DELETE), and a new run submitted.`,
  runChangedMeanwhile: 'This run was corrected by another request meanwhile; load it again and retry.',
  cannotCorrect: (status: string) => `This run is ${status.toLowerCase()}, so it cannot be corrected. Submit a new run instead.`,

  // Predictions (GET /api/predictions, /predict)
  predictionUnknownModel: (typed: string) =>
    `Unknown model '${typed}': no catalogued model matches it (a model enters the catalogue with its first run)`,
  predictionUnknownDevice: (typed: string) =>
    `Unknown device '${typed}': no device in the hardware catalogue matches it, so its memory bandwidth is not known`,
  predictionUnknownQuantization: (label: string) => `Unknown quantization '${label}': its bits per weight are not known`,
  predictionUnknownModelSize: (hfId: string, reason: string) => `Model '${hfId}' cannot be predicted: ${reason}`,

  // Models, hardware and the hub
  modelNotCatalogued: (hfId: string) => `Model '${hfId}' is not in the catalogue`,
  modelNotCataloguedOffline: (hfId: string) =>
    `Model '${hfId}' is not in the catalogue, and the model hub is offline (HUB_MODE=offline): only catalogued models are accepted`,
  hubNotFound: (hfId: string, endpoint: string) => `Model '${quoteId(hfId)}' not found on the model hub (${endpoint})`,
  hubOffline: (hfId: string) =>
    `Model '${quoteId(hfId)}' not found: the model hub is offline (HUB_MODE=offline) and only models already in the catalogue are accepted`,
  hubUnavailable: 'Model hub unavailable, retry later',
  hardwareProfileNotFound: 'Hardware profile not found',

  // Saved setups
  setupNotFound: 'Setup not found',

  // Model reports
  reportNotFound: 'Report not found',
  reportRunNotAttachable: (what: string, hfId: string) =>
    `Must be an approved ${what} of ${hfId} or of one of its finetunes or quantizations`,
  reportImageNotYours: 'Must be an image you uploaded (POST /api/reports/images)',
  reportImageNotFound: 'Report image not found',
  reportImagesFull: (max: number) => `A report holds at most ${max} images: delete one first`,
  reportTooManyTokens: (kind: 'image' | 'embed', max: number) => `At most ${max} different report-${kind} tokens`,
  reportUnpublishedByAdmin: (reason: string) => `An admin unpublished this report (${reason}); edit it, but it cannot be published again`,
  setupNameTaken: 'You already have a setup with this name',
  setupLimit: (max: number) => `Setup limit reached (${max}): delete one you no longer use first`,
  setupFromOthersRun: 'Only the submitter of a run can save it as a setup',
  // Quality evaluations
  qualitySuiteNotFound: (slug: string) => `Quality suite '${quoteId(slug)}' not found`,
  qualitySuiteNotApproved: (slug: string, status: string) =>
    `Quality suite '${quoteId(slug)}' is ${status.toLowerCase()}, not approved: runs can only be submitted to approved suites`,
  qualitySlugTaken: (slug: string) => `A suite with the slug '${slug}' already exists`,
  qualityDatasetSlugTaken: (slug: string) => `A dataset with the slug '${slug}' already exists`,
  qualitySlugTakenRace: 'A suite with this slug already exists',
  qualityDatasetSlugTakenRace: 'A dataset with this slug already exists',
  qualityDatasetNotFound: (slug: string) => `Dataset '${quoteId(slug)}' not found`,
  qualityDatasetUnknown: (slug: string) => `No dataset named '${slug}': create it with POST /datasets first`,
  qualityDatasetNotUsable: (slug: string) => `Dataset '${slug}' is not approved and is not yours`,
  qualitySubmissionNotFound: 'Submission not found',
  qualitySubmissionNotEditable: (status: string) =>
    `This submission is ${status.toLowerCase()}: only pending or rejected submissions can be corrected`,
  qualitySubmissionNotWithdrawable: (status: string) =>
    `This submission is ${status.toLowerCase()}: only pending or rejected submissions can be withdrawn`,
  qualitySubmissionInUse: 'This submission is in use (by a run, or by a suite) and cannot be changed or withdrawn',
  qualityRunNotFound: 'Quality run not found',
  qualityUnknownTaskKey: (slug: string) => `Unknown task key: suite '${slug}' has no such task`,
  qualityMissingTaskKey: 'Required: the suite has this task, give its score',
  qualityArtifactUnknownTask: 'Not a task of this suite',
  qualityArtifactItemOutOfRange: (count: number) => `Must be below ${count}, the number of items of this task`,
  qualityCannotReview: (what: string, status: string, action: string) =>
    `This ${what} is ${status.toLowerCase()}, so it cannot be ${action}`,
  qualitySuiteDatasetsPending: (slugs: string[]) => `Approve the datasets this suite uses first: ${slugs.join(', ')}`,
  // Server-side execution
  executionNotFound: 'Execution not found',
  executionSuiteNotApproved: (slug: string, status: string) =>
    `Quality suite '${quoteId(slug)}' is ${status.toLowerCase()}, not approved: only approved suites can be executed`,
  executionSuiteNotCustom: (slug: string) =>
    `Quality suite '${quoteId(slug)}' is an lm-eval-harness suite: only CUSTOM suites (with their own prompts and items) can be executed here; run it locally with lm_eval and submit the run`,
  executionScoringNotSupported: (method: string) =>
    `This suite is scored with ${method}, which the server cannot run: executions support exact_match, f1 and llm_judge`,
  executionJudgeNotConfigured:
    'This suite needs an LLM judge, and this deployment has none configured (JUDGE_BASE_URL, JUDGE_MODEL and JUDGE_API_KEY)',
  executionTooManyItems: (count: number, max: number) =>
    `This selection has ${count} items; an execution runs at most ${max}: choose fewer tasks with taskKeys`,
  executionTooManyQueued: (max: number) => `You have ${max} executions waiting or running: wait for one to finish, or cancel one`,
  executionTooManyDryRuns: (max: number) => `Too many dry-runs: at most ${max} a minute; try again shortly`,
  executionDryRunDeadline: (ms: number) => `Not tried: the dry-run's ${ms / 1000} s deadline had passed`,
  executionKeyNeedsWorkers:
    'This server instance runs no execution workers, and a target API key never leaves the instance it was given to: send the execution again later, or without apiKey',
  executionFinished: (status: string) => `This execution is already ${status.toLowerCase()}`,
  executionDeadline: (minutes: number) => `The execution took longer than ${minutes} minutes and was stopped`,
  executionTooManyFailures: (failed: number, total: number) =>
    `The server gave no usable answer for ${failed} of ${total} items (more than 10%): the scores would measure the server, not the model`,
  executionJudgeUnparsed: (unparsed: number, total: number) =>
    `The judge's answer could not be read as a score for ${unparsed} of ${total} judged items (more than 10%)`,
  executionKeyLost: "The server instance holding this execution's API key stopped (keys are never stored): start the execution again",
  executionSuiteGone: 'The suite is no longer approved',
  // Marketplace (and the images it shares with reports)
  imageNotFound: 'Image not found',
  listingNotFound: 'Listing not found',
  imageLimit: (max: number) => `An account keeps at most ${max} images: delete some (or remove listings) first`,
  unusedReportImageLimit: (max: number) =>
    `At most ${max} report images may wait unused: put them in a report first (an unused one is deleted a day after its upload)`,
  draftListingLimit: (max: number) => `An account has at most ${max} draft listings: publish or delete one first`,
  reportLimit: (max: number) => `An account has at most ${max} reports: delete one first`,
  listingImageLimit: (max: number) => `A listing has at most ${max} images: delete one first`,
  listingProofRunsNotYours: (ids: string[]) => `Not your approved speed-test runs: ${ids.join(', ')}`,
  listingCannot: (status: string, action: string) => `This listing is ${status.toLowerCase()}, so it cannot be ${action}`,
  listingCursorInvalid: 'Not a cursor this feed gave out: start again without cursor',
  listingImagesNotOfListing: 'Give every image id of the listing exactly once',
  // Pages: model scope, compare view, hardware devices.
  modelScopeInvalid: "Must be 'model' (this model) or 'tree' (with its finetunes and quantizations); showing this model",
  compareNeedsRuns: (min: number, max: number) =>
    `Pick ${min} to ${max} runs to compare: tick "compare" in a table of runs, or list their ids as /compare?runs=<id>,<id>`,
  compareTooManyRuns: (max: number) => `At most ${max} runs side by side; remove some ids from the address`,
  compareBadIds: (ids: string) => `Not run ids: ${ids}`,
  compareUnknownRuns: (ids: string) => `No approved run has the id ${ids}`,
  hardwareDeviceNotFound: 'No runs on a device by that name: see the hardware index',
  // Admin: hardware names.
  hardwareMappingUnknownDevice: (kind: string, name: string) =>
    `"${name}" is not a ${kind} in the hardware catalogue: pick one of the suggested ${kind} names`,
  hardwareMappingAlreadyResolved: (name: string, device: string) =>
    `"${name}" already resolves to ${device}: only names no device matches can be mapped`,
  hardwareMappingNotFound: 'That name has no mapping',
} as const;
