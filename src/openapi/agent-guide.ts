import { RUN_CORRECTION_WINDOW_HOURS } from '../constants.ts';
import type { RevisionProfile } from '../revisions.ts';
import { METHODOLOGY_TIPS } from './agent-context.ts';
import { curlExample, submissionExamples } from './examples.ts';
import { qualityGuide } from './quality-guide.ts';
import { apiOperations, openApiPath } from '../api/index.ts';

/** What the /docs/agents page shows for a revision, with absolute URLs of this deployment. */
export function agentGuide(profile: RevisionProfile, baseUrl: string) {
  const operations = apiOperations(profile);
  const url = (id: string) => {
    const op = operations.find((o) => o.operationId === id);
    return op ? `${baseUrl}${openApiPath(op.path)}` : undefined;
  };
  const example = submissionExamples(profile).minimal.DISCRETE_GPU;
  const limit = profile.speedTests.submissionLimit;
  const minutes = limit.windowMs / 60_000;
  const submit = url('submitSpeedTest')!;
  const dryRun = url('dryRunSpeedTest');
  return {
    revision: profile.revision,
    agentContextUrl: url('getAgentContext'),
    openApiUrl: url('getOpenApiDocument')!,
    meUrl: url('getMe')!,
    submitUrl: submit,
    dryRunUrl: dryRun,
    keysPage: `${baseUrl}/settings/keys`,
    window: `${minutes} minute${minutes === 1 ? '' : 's'}`,
    rateLimitMessage: limit.message,
    dryRunCurl: dryRun ? curlExample('POST', dryRun, example) : undefined,
    submitCurl: curlExample('POST', submit, example, { 'Idempotency-Key': 'qwen3-8b-4090-2026-01-31-1' }),
    /** Correct (PATCH, within the window) and withdraw (DELETE) a run: `{id}` stands for its id. */
    ownRunUrl: `${baseUrl}${profile.speedTests.resultsPath}/{id}`,
    mineUrl: url('listMySpeedTests')!,
    correctionHours: RUN_CORRECTION_WINDOW_HOURS,
    tips: METHODOLOGY_TIPS,
    /** The same quality guide as the agent-context's `quality` section; null without quality evaluations. */
    quality: qualityGuide(profile, baseUrl),
  };
}
