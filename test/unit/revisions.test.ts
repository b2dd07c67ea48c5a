import { expect } from 'chai';
import {
  allEngineNames,
  API_KEYS_PER_ACCOUNT,
  buckets,
  deprecationHeaders,
  hardwareCostRules,
  reactionEmojis,
} from '../../src/constants.ts';
import {
  acceptsEngine,
  getRevisionProfile,
  isRevisionNumber,
  legacyAliasesOf,
  revision1Profile,
  revision2Profile,
  revision3Profile,
  revisionNumbers,
  revisionProfiles,
} from '../../src/revisions.ts';
import type { RevisionNumber, RevisionProfile } from '../../src/revisions.ts';
import { leaderboardQuerySchema } from '../../src/runs/reads/leaderboard-query.schema.ts';
import { speedTestListQuerySchema } from '../../src/runs/reads/speed-test-query.schema.ts';

// Texts copied from the spec's Errors table; the service must answer them verbatim.
const REV1_METRIC_MESSAGE = 'At least one performance metric (TTFT, tok/s output, or tok/s total) is required';
const REV2_METRIC_MESSAGE =
  'At least one additional metric (TTFT, prefill tok/s, tok/s total, or peak VRAM) is required alongside tok/s output';
const FIVE_MINUTE_429 = 'Rate limit exceeded. You may submit once every 5 minutes.';
const ONE_MINUTE_429 = 'Rate limit exceeded. You may submit once every 1 minute.';

const all: readonly RevisionNumber[] = [1, 2, 3];

describe('revision profiles', () => {
  describe('lookup', () => {
    it('returns the profile whose revision matches the number asked for', () => {
      for (const n of all) {
        expect(getRevisionProfile(n)).to.equal(revisionProfiles[n]);
        expect(getRevisionProfile(n).revision).to.equal(n);
      }
      expect(getRevisionProfile(1)).to.equal(revision1Profile);
      expect(getRevisionProfile(2)).to.equal(revision2Profile);
      expect(getRevisionProfile(3)).to.equal(revision3Profile);
    });

    it('throws for a revision that does not exist', () => {
      expect(() => getRevisionProfile(4 as RevisionNumber)).to.throw(RangeError, /4/);
    });

    it('lists exactly revisions 1, 2 and 3', () => {
      expect(revisionNumbers).to.deep.equal([1, 2, 3]);
      expect(Object.keys(revisionProfiles)).to.deep.equal(['1', '2', '3']);
      expect(isRevisionNumber(3)).to.equal(true);
      expect(isRevisionNumber('3')).to.equal(false);
      expect(isRevisionNumber(0)).to.equal(false);
    });

    it('is frozen all the way down so no caller can change a profile', () => {
      for (const n of all) {
        const p = getRevisionProfile(n);
        expect(Object.isFrozen(p)).to.equal(true);
        expect(Object.isFrozen(p.speedTests.engines)).to.equal(true);
        expect(Object.isFrozen(p.models.listLimit)).to.equal(true);
        expect(Object.isFrozen(p.speedTests)).to.equal(true);
        expect(Object.isFrozen(p.apiDocuments)).to.equal(true);
        expect(() => {
          (p.speedTests.engines as string[]).push('made-up');
        }).to.throw(TypeError);
      }
      expect(Object.isFrozen(revisionProfiles)).to.equal(true);
      expect(Object.isFrozen(buckets.memTier)).to.equal(true);
    });
  });

  describe('paths', () => {
    it('serves speed-test results at /api/benchmarks in revisions 1 and 2 and /api/speed-tests in 3', () => {
      expect(revision1Profile.speedTests.resultsPath).to.equal('/api/benchmarks');
      expect(revision2Profile.speedTests.resultsPath).to.equal('/api/benchmarks');
      expect(revision3Profile.speedTests.resultsPath).to.equal('/api/speed-tests');
    });

    it('has no quality root in revision 1, /api/evals in 2 and /api/benchmarks in 3', () => {
      expect(revision1Profile.quality).to.equal(null);
      expect(revision2Profile.quality?.root).to.equal('/api/evals');
      expect(revision3Profile.quality?.root).to.equal('/api/benchmarks');
    });

    it('keeps legacy aliases only in revision 3', () => {
      expect(legacyAliasesOf(revision1Profile)).to.have.length(0);
      expect(legacyAliasesOf(revision2Profile)).to.have.length(0);
      const kinds = [
        ...revision3Profile.speedTests.legacyAliases.map((a) => ({ kind: 'results', ...a })),
        ...(revision3Profile.quality?.legacyAliases ?? []).map((a) => ({ kind: 'quality', ...a })),
      ];
      expect(legacyAliasesOf(revision3Profile)).to.have.length(kinds.length);
      const aliases = kinds.map((a) => ({
        kind: a.kind,
        path: a.path,
        target: a.target,
        match: a.match,
      }));
      expect(aliases).to.have.deep.members([
        { kind: 'results', path: '/api/benchmarks', target: '/api/speed-tests', match: 'exact' },
        { kind: 'results', path: '/api/benchmarks/dry-run', target: '/api/speed-tests/dry-run', match: 'exact' },
        { kind: 'quality', path: '/api/evals', target: '/api/benchmarks', match: 'prefix' },
      ]);
    });

    it('marks every legacy alias as deprecated with its own successor link', () => {
      const links = legacyAliasesOf(revision3Profile).map((alias) => [alias.path, deprecationHeaders(alias.successor)]);
      expect(links).to.deep.equal([
        ['/api/benchmarks', { Deprecation: 'true', Link: '</api/speed-tests>; rel="successor-version"' }],
        ['/api/benchmarks/dry-run', { Deprecation: 'true', Link: '</api/speed-tests>; rel="successor-version"' }],
        ['/api/evals', { Deprecation: 'true', Link: '</api/benchmarks>; rel="successor-version"' }],
      ]);
    });

    it('never aliases the quality sub-paths of /api/benchmarks as results', () => {
      const resultsAliases = revision3Profile.speedTests.legacyAliases;
      expect(resultsAliases.every((a) => a.match === 'exact')).to.equal(true);
    });
  });

  describe('engines', () => {
    it('accepts llama.cpp, vllm and tinygrad in every revision', () => {
      for (const n of all) {
        for (const engine of ['llama.cpp', 'vllm', 'tinygrad', 'exllamav2', 'text-generation-webui']) {
          expect(getRevisionProfile(n).speedTests.engines, `rev ${n} ${engine}`).to.include(engine);
        }
      }
    });

    it('accepts candle and ctransformers only in revision 1', () => {
      expect(revision1Profile.speedTests.engines).to.include.members(['candle', 'ctransformers']);
      expect(revision2Profile.speedTests.engines).to.not.include('candle');
      expect(revision2Profile.speedTests.engines).to.not.include('ctransformers');
      expect(revision3Profile.speedTests.engines).to.not.include('candle');
      expect(revision3Profile.speedTests.engines).to.not.include('ctransformers');
    });

    it('accepts exllamav3 and the other additions only in revision 3', () => {
      const rev3Only = ['exllamav3', 'bunn-llama', 'freetoken', 'llmd', 'ninfer', 'atlas', 'lucebox', 'dwarfstar', 'ember'];
      expect(revision3Profile.speedTests.engines).to.include.members(rev3Only);
      for (const engine of rev3Only) {
        expect(revision1Profile.speedTests.engines, engine).to.not.include(engine);
        expect(revision2Profile.speedTests.engines, engine).to.not.include(engine);
      }
    });

    it('has the exact list sizes the spec gives (14 shared, +2 in rev 1, +9 in rev 3)', () => {
      expect(revision1Profile.speedTests.engines).to.have.length(16);
      expect(revision2Profile.speedTests.engines).to.have.length(14);
      expect(revision3Profile.speedTests.engines).to.have.length(23);
      expect(allEngineNames).to.have.length(25);
      for (const n of all) {
        const engines = getRevisionProfile(n).speedTests.engines;
        expect(new Set(engines).size).to.equal(engines.length);
        for (const e of engines) expect(e).to.equal(e.toLowerCase());
      }
    });

    it('matches engine names exactly, without case folding', () => {
      expect(acceptsEngine(revision3Profile, 'ember')).to.equal(true);
      expect(acceptsEngine(revision2Profile, 'ember')).to.equal(false);
      expect(acceptsEngine(revision3Profile, 'Llama.cpp')).to.equal(false);
      expect(acceptsEngine(revision1Profile, 'candle')).to.equal(true);
    });

    it('gives canonical repositories for freetoken and ninfer in revision 3 only', () => {
      expect(revision3Profile.speedTests.canonicalEngineRepositories).to.deep.equal({
        freetoken: 'https://github.com/FlashML-org/FreeToken',
        ninfer: 'https://github.com/Neroued/ninfer',
      });
      expect(revision1Profile.speedTests.canonicalEngineRepositories).to.deep.equal({});
      expect(revision2Profile.speedTests.canonicalEngineRepositories).to.deep.equal({});
    });
  });

  describe('bounds', () => {
    it('caps temperature at 2 in revision 1 and 100 afterwards', () => {
      expect(revision1Profile.speedTests.bounds.temperature).to.deep.equal({ min: 0, max: 2 });
      expect(revision2Profile.speedTests.bounds.temperature).to.deep.equal({ min: 0, max: 100 });
      expect(revision3Profile.speedTests.bounds.temperature).to.deep.equal({ min: 0, max: 100 });
    });

    it('caps engineVersion at 64 chars, 512 in revision 3', () => {
      expect(revision1Profile.speedTests.bounds.maxLength.engineVersion).to.equal(64);
      expect(revision2Profile.speedTests.bounds.maxLength.engineVersion).to.equal(64);
      expect(revision3Profile.speedTests.bounds.maxLength.engineVersion).to.equal(512);
    });

    it('shares the field bounds table across revisions', () => {
      for (const n of all) {
        const p = getRevisionProfile(n);
        const b = p.speedTests.bounds;
        expect(b.maxLength).to.include({
          hfId: 256,
          modelRevision: 128,
          engineName: 64,
          quantization: 64,
          backend: 64,
          engineRepository: 512,
          engineBuild: 256,
          notes: 2000,
          commandSnippet: 4000,
          extraFlags: 1000,
        });
        expect(b.engineCommitLength).to.deep.equal({ min: 7, max: 64 });
        expect(b.gpusMaxItems).to.equal(16);
        expect(b.mirostatValues).to.deep.equal([0, 1, 2]);
        expect(p.speedTests.resultsList.limit).to.deep.equal({ min: 1, max: 100, default: 20 });
        expect(p.speedTests.leaderboard.limit).to.include({ max: 200, default: 50 });
        expect(p.models.searchLimit).to.deep.equal({ min: 1, max: 25, default: 10 });
      }
      expect(API_KEYS_PER_ACCOUNT).to.equal(10);
      expect(revision1Profile.marketplace).to.equal(null);
      expect(revision2Profile.marketplace).to.equal(null);
      expect(revision3Profile.marketplace?.feedLimit).to.deep.equal({ min: 1, max: 100, default: 50 });
    });

    it('defaults GET /api/models to 20 in revision 1 and 200 in revisions 2 and 3', () => {
      expect(revision1Profile.models.listLimit.default).to.equal(20);
      expect(revision2Profile.models.listLimit.default).to.equal(200);
      expect(revision3Profile.models.listLimit.default).to.equal(200);
      for (const n of all) {
        const models = getRevisionProfile(n).models.listLimit;
        expect(models.default).to.be.at.most(models.max);
      }
    });
  });

  describe('metric rule', () => {
    it('revision 1: any one of tokSOut, tokSTotal, ttftMs, else 422 with the spec text', () => {
      const rule = revision1Profile.speedTests.metricRule;
      expect(rule.kind).to.equal('anyOf');
      if (rule.kind !== 'anyOf') return;
      expect(rule.fields).to.have.members(['tokSOut', 'tokSTotal', 'ttftMs']);
      expect(rule.status).to.equal(422);
      expect(rule.message).to.equal(REV1_METRIC_MESSAGE);
    });

    it('revision 2: tokSOut plus one secondary metric, else 422 with the spec text', () => {
      const rule = revision2Profile.speedTests.metricRule;
      expect(rule.kind).to.equal('requiredPlusOneOf');
      if (rule.kind !== 'requiredPlusOneOf') return;
      expect(rule.required).to.equal('tokSOut');
      expect(rule.oneOf).to.have.members(['ttftMs', 'tokSPrefill', 'tokSTotal', 'peakVramGb']);
      expect(rule.status).to.equal(422);
      expect(rule.message).to.equal(REV2_METRIC_MESSAGE);
    });

    it('revision 3: only tokSOut is required', () => {
      expect(revision3Profile.speedTests.metricRule).to.deep.equal({ kind: 'required', required: 'tokSOut' });
    });
  });

  describe('rate limits', () => {
    it('allows one speed-test submission per 5 minutes in revisions 1 and 2', () => {
      for (const p of [revision1Profile, revision2Profile]) {
        expect(p.speedTests.submissionLimit).to.include({
          windowMs: 5 * 60 * 1000,
          maxPerWindow: 1,
          message: FIVE_MINUTE_429,
        });
      }
    });

    it('allows one speed-test submission per minute in revision 3, and says so', () => {
      expect(revision3Profile.speedTests.submissionLimit).to.include({
        windowMs: 60 * 1000,
        maxPerWindow: 1,
        message: ONE_MINUTE_429,
      });
    });

    it('keeps quality submissions in their own 5-minute bucket', () => {
      for (const n of all) {
        const p = getRevisionProfile(n);
        if (!p.quality) continue;
        const qualitySubmission = p.quality.submissionLimit;
        expect(qualitySubmission.windowMs).to.equal(5 * 60 * 1000);
        expect(qualitySubmission.maxPerWindow).to.equal(1);
        expect(qualitySubmission.bucket).to.not.equal(p.speedTests.submissionLimit.bucket);
      }
    });
  });

  describe('features', () => {
    /** The profile's switches, each under one name, wherever its resource keeps it. */
    const features = (p: RevisionProfile) => ({
      dryRun: p.speedTests.dryRun,
      prefillFields: p.speedTests.prefillFields,
      modelSearch: p.models.search,
      agentMetadata: p.apiDocuments.agentContext,
      openApi: p.apiDocuments.openApi,
      qualityEvals: p.quality !== null,
      qualitySuiteDryRun: p.quality?.suiteDryRun ?? false,
      qualitySubmissions: p.quality?.submissions ?? false,
      qualityRunsPerShardDataset: p.quality?.runsPerShardDataset ?? false,
      marketplace: p.marketplace !== null,
      modelReports: p.reports !== null,
      revision3Fields: p.speedTests.revision3Fields,
      commandSnippetRequiredWithFlags: p.speedTests.commandSnippetRequiredWithFlags,
      batchSizeTimesConcurrency: p.speedTests.batchSizeTimesConcurrency,
      extendedLeaderboardFilters: p.speedTests.leaderboard.extendedFilters,
      resultsListUserAndDateFilters: p.speedTests.resultsList.userAndDateFilters,
    });

    it('revision 1 lacks dry-run, prefill fields, model search, agent metadata and quality evals', () => {
      expect(features(revision1Profile)).to.include({
        dryRun: false,
        prefillFields: false,
        modelSearch: false,
        agentMetadata: false,
        qualityEvals: false,
        marketplace: false,
        modelReports: false,
        revision3Fields: false,
        commandSnippetRequiredWithFlags: false,
        extendedLeaderboardFilters: false,
        resultsListUserAndDateFilters: false,
      });
    });

    it('revision 2 adds dry-run, prefill, search, agent metadata, quality evals and filters, not the rev-3 extras', () => {
      expect(features(revision2Profile)).to.include({
        dryRun: true,
        prefillFields: true,
        modelSearch: true,
        agentMetadata: true,
        qualityEvals: true,
        commandSnippetRequiredWithFlags: true,
        extendedLeaderboardFilters: true,
        resultsListUserAndDateFilters: true,
        qualitySuiteDryRun: false,
        qualitySubmissions: false,
        marketplace: false,
        modelReports: false,
        revision3Fields: false,
      });
    });

    it('revision 3 has every feature', () => {
      for (const [name, on] of Object.entries(features(revision3Profile))) {
        expect(on, name).to.equal(true);
      }
    });
  });

  describe('revision-gated fields', () => {
    const evidence = [
      'prompt',
      'outputText',
      'promptSha256',
      'promptSample',
      'outputSha256',
      'outputSample',
      'engineTimingsRaw',
      'samples',
      'sampleStats',
    ];
    const rev3Fields = [
      'engineRepository',
      'engineBuild',
      'engineCommit',
      'gpuPowerWatts',
      'powerSource',
      'hardwareCost',
      'replicates',
      ...evidence,
    ];
    // What answers leave out: the stored evidence (the whole texts are never stored) and the verdict on it.
    const rev3Answered = [
      'engineRepository',
      'engineBuild',
      'engineCommit',
      'gpuPowerWatts',
      'powerSource',
      'hardwareCost',
      'replicates',
      ...evidence.filter((field) => field !== 'prompt' && field !== 'outputText'),
      'verifiedRun',
      'verificationIssues',
      'recipe',
      'replications',
    ];

    it('revision 1 accepts neither the prefill fields nor the revision-3 fields', () => {
      expect(revision1Profile.speedTests.revisionOnlyFields).to.have.members(['tokSPrefill', 'prefillTokens', ...rev3Fields]);
    });

    it('revision 2 accepts the prefill fields but not the revision-3 fields', () => {
      expect(revision2Profile.speedTests.revisionOnlyFields).to.have.members(rev3Fields);
    });

    it('revision 3 accepts every field and flag', () => {
      expect(revision3Profile.speedTests.revisionOnlyFields).to.have.length(0);
      expect(revision3Profile.speedTests.engineFlagFieldsUnavailable).to.have.length(0);
    });

    it('leaves totalPowerWatts out of the answers of every revision without gpuPowerWatts', () => {
      expect(revision1Profile.speedTests.omittedRunFields).to.have.members([
        'tokSPrefill',
        'prefillTokens',
        ...rev3Answered,
        'totalPowerWatts',
      ]);
      expect(revision2Profile.speedTests.omittedRunFields).to.have.members([...rev3Answered, 'totalPowerWatts']);
      expect(revision3Profile.speedTests.omittedRunFields).to.have.length(0);
    });

    it('marks tokSOut required on the submit form where the metric rule names it', () => {
      expect(revision1Profile.speedTests.tokSOutRequired).to.equal(false);
      expect(revision2Profile.speedTests.tokSOutRequired).to.equal(true);
      expect(revision3Profile.speedTests.tokSOutRequired).to.equal(true);
    });

    it('specDraftWindowSize, warmup and the spec-decoding counters are revision-3 engine flags', () => {
      const rev3Flags = [
        'specDraftWindowSize',
        'warmup',
        'specDraftTokens',
        'specAcceptedTokens',
        'specAcceptanceRate',
        'specMeanAcceptedLength',
      ];
      expect(revision1Profile.speedTests.engineFlagFieldsUnavailable).to.deep.equal(rev3Flags);
      expect(revision2Profile.speedTests.engineFlagFieldsUnavailable).to.deep.equal(rev3Flags);
    });
  });

  describe('query parameters', () => {
    // What each revision's query schema accepts: its filters (the facet registry) and how to page, rank and format.
    const leaderboardParams = (p: RevisionProfile) => Object.keys(leaderboardQuerySchema(p).shape);
    const listParams = (p: RevisionProfile) => Object.keys(speedTestListQuerySchema(p).shape);
    const shortLeaderboard = ['hfId', 'hwClass', 'memTier', 'engineName', 'quantization', 'verified', 'since', 'limit', 'offset'];
    const extraLeaderboard = ['hardwareName', 'paramSize', 'os', 'backend', 'modelFamily', 'isMoE', 'batchSize', 'contextLen'];
    const beyondSpec = ['sort', 'bestPer', 'format', 'plausible'];
    const userAndDate = ['date', 'dateFrom', 'dateTo', 'userId', 'username'];

    it('revision 1 has the shorter leaderboard parameter list', () => {
      expect(leaderboardParams(revision1Profile)).to.have.members([...shortLeaderboard, ...beyondSpec]);
    });

    it('revisions 2 and 3 add the extended leaderboard filters', () => {
      for (const p of [revision2Profile, revision3Profile]) {
        // Beyond the spec too, with the extended filters (issue 36): the model tree and "what fits my memory";
        // revision 3, which takes `replicates`, also filters on replication (issue 34).
        const replication = p === revision3Profile ? ['replicated'] : [];
        expect(leaderboardParams(p)).to.have.members([
          ...shortLeaderboard,
          ...extraLeaderboard,
          ...beyondSpec,
          'scope',
          'memoryAtMost',
          ...replication,
        ]);
      }
    });

    it('the results list takes date and user filters only from revision 2 on', () => {
      for (const name of userAndDate) {
        expect(listParams(revision1Profile), name).to.not.include(name);
        expect(listParams(revision2Profile), name).to.include(name);
        expect(listParams(revision3Profile), name).to.include(name);
      }
      for (const n of all) {
        expect(listParams(getRevisionProfile(n))).to.include.members([
          'hfId',
          'gpuName',
          'specOnly',
          'mtpOnly',
          'verified',
          'limit',
          'offset',
        ]);
      }
    });
  });

  describe('shared value lists', () => {
    it('has the bucket values of DECISIONS.md', () => {
      expect(buckets.memTier).to.deep.equal([8, 12, 16, 24, 32, 48, 80, 96, 128]);
      expect(buckets.paramSize.map((b) => b.bucket)).to.deep.equal([1, 3, 7, 13, 30, 70, 110]);
      expect(buckets.paramSize.at(-1)).to.deep.equal({ bucket: 110, aboveB: 90, upToB: null });
      expect(buckets.contextLen).to.deep.equal([2048, 4096, 8192, 16384, 32768, 65536, 131072]);
      expect(buckets.batchSizeOpenEnded).to.equal(8);
      expect(Object.keys(buckets.since)).to.deep.equal(['7d', '30d']);
      expect(buckets.since['7d']).to.equal(7 * 86_400_000);
      expect(buckets.os).to.deep.equal(['windows', 'linux', 'macos']);
    });

    it('paramSize buckets are contiguous', () => {
      for (let i = 1; i < buckets.paramSize.length; i++) {
        expect(buckets.paramSize[i]!.aboveB).to.equal(buckets.paramSize[i - 1]!.upToB);
      }
    });

    it('has the five reaction emojis', () => {
      expect(reactionEmojis).to.deep.equal(['fire', 'rocket', '100', 'brain', 'chad']);
    });

    it('has the hardwareCost conditions and 20 upper-case currencies', () => {
      expect(hardwareCostRules.conditions).to.deep.equal(['NEW', 'USED', 'REFURBISHED']);
      expect(hardwareCostRules.currencies).to.have.length(20);
      expect(hardwareCostRules.currencies).to.include.members(['USD', 'EUR', 'GBP', 'JPY', 'TWD']);
      for (const c of hardwareCostRules.currencies) expect(c).to.match(/^[A-Z]{3}$/);
      expect(hardwareCostRules.yearPurchasedMin).to.equal(1990);
    });
  });
});
