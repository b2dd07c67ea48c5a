import { expect } from 'chai';
import { EXECUTE_LIMITS } from '../../src/schemas/execute.schema.ts';
import request from 'supertest';
import { demoModels, seedDemoCatalogue } from '../../src/db/seeds/demo-models.ts';
import { isCanonicalComponentName } from '../../src/lib/hardware-lookup.ts';
import { normaliseSubmission } from '../../src/runs/submission/normalise.ts';
import { submissionExamples } from '../../src/openapi/examples.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';
import { approveSuite } from '../helpers/quality.ts';
import { schemaChecker, type SchemaChecker } from '../helpers/openapi.ts';

type Json = Record<string, any>;
const HOST = 'agents.test';
const BASE = `http://${HOST}`;

// Expected values come from the spec ("Agent metadata", "Limits", "Errors") and DECISIONS.md.
const REVISIONS = [
  {
    revision: 2,
    results: '/api/benchmarks',
    windowSeconds: 300,
    engines: [
      'llama.cpp',
      'vllm',
      'sglang',
      'ollama',
      'lmstudio',
      'exllamav2',
      'tgi',
      'tensorrt-llm',
      'mlx',
      'text-generation-webui',
      'lmdeploy',
      'mlc-llm',
      'hipfire',
      'tinygrad',
    ],
    costs: false,
    requestBodies: [
      'CreateApiKey',
      'DeviceCodeRequest',
      'DeviceTokenRequest',
      'ExecuteRequest',
      'QualityRunSubmission',
      'QualitySuiteRegistration',
      'Reaction',
      'SetupCreate',
      'SetupPatch',
      'SpeedTestCorrection',
      'SpeedTestFlatCorrection',
      'SpeedTestSubmission',
      'StorageCompleteRequest',
      'StorageUploadRequest',
    ],
    quality: { root: '/api/evals', oldRoots: [], datasets: false },
  },
  {
    revision: 3,
    results: '/api/speed-tests',
    windowSeconds: 60,
    engines: [
      'llama.cpp',
      'vllm',
      'sglang',
      'ollama',
      'lmstudio',
      'exllamav2',
      'tgi',
      'tensorrt-llm',
      'mlx',
      'text-generation-webui',
      'lmdeploy',
      'mlc-llm',
      'hipfire',
      'tinygrad',
      'exllamav3',
      'bunn-llama',
      'freetoken',
      'llmd',
      'ninfer',
      'atlas',
      'lucebox',
      'dwarfstar',
      'ember',
    ],
    costs: true,
    requestBodies: [
      'CreateApiKey',
      'DeviceCodeRequest',
      'DeviceTokenRequest',
      'ExecuteRequest',
      'ListingCreate',
      'ListingImageOrder',
      'ListingPatch',
      'QualityDatasetSubmission',
      'QualityRunSubmission',
      'QualitySuiteRegistration',
      'Reaction',
      'ReportCreate',
      'ReportPatch',
      'SetupCreate',
      'SetupPatch',
      'SpeedTestCorrection',
      'SpeedTestFlatCorrection',
      'SpeedTestSubmission',
      'StorageCompleteRequest',
      'StorageUploadRequest',
    ],
    quality: { root: '/api/benchmarks', oldRoots: ['/api/evals'], datasets: true },
  },
] as const;

describe('agent-context, revision 1', () => {
  const ctx = useTestApp({ API_REVISION: '1' });

  it('does not exist (agent metadata came with revision 2)', async () => {
    const res = await request(ctx.app).get('/api/agent-context').expect(404);
    expect(res.body).to.deep.equal({ error: 'Not found' });
  });

  it('has no quality guide on /docs/agents (no quality evaluations in revision 1)', async () => {
    const html = (await request(ctx.app).get('/docs/agents').expect(200)).text;
    expect(html).to.include('<h1>For agents</h1>');
    expect(html).not.to.include('Quality evaluations');
    expect(html).not.to.include('suite-authoring');
  });

  it('would show worked examples that pass the revision-1 submission schema and metric rule', () => {
    const profile = getRevisionProfile(1);
    const { throughput, ...byKind } = submissionExamples(profile);
    expect(() => normaliseSubmission(profile, throughput), 'throughput').not.to.throw();
    for (const [kind, byClass] of Object.entries(byKind)) {
      for (const [hwClass, body] of Object.entries(byClass as Json)) {
        expect(() => normaliseSubmission(profile, body), `${kind} ${hwClass}`).not.to.throw();
        expect(body).not.to.have.any.keys('tokSPrefill', 'prefillTokens', 'engineCommit', 'hardwareCost', 'gpuPowerWatts');
      }
    }
  });
});

for (const rev of REVISIONS) {
  describe(`agent-context, revision ${rev.revision}`, () => {
    const ctx = useTestApp({ API_REVISION: String(rev.revision) }, { fakeHub: true });
    const get = (path: string) => request(ctx.app).get(path).set('Host', HOST);
    let context: Json;
    let document: Json;
    let checker: SchemaChecker;
    let key: string;

    before(async () => {
      await seedDemoCatalogue(ctx.db);
      const res = await get('/api/agent-context').expect(200);
      expect(res.headers['content-type']).to.match(/^application\/json/);
      context = res.body;
      document = (await get('/api/openapi.json').expect(200)).body;
      checker = schemaChecker(document);
      const { agent, csrf } = await signedUpAgent(ctx.app);
      key = (await createKey(agent, csrf)).key;
    });

    it('matches its documented schema', () => {
      checker.expectValid('AgentContext', context);
      expect(context.revision).to.equal(rev.revision);
      expect(context.baseUrl).to.equal(BASE);
    });

    it('is one cached answer: ETag, Cache-Control and 304 for If-None-Match', async () => {
      const first = await get('/api/agent-context').expect(200);
      expect(first.headers.etag).to.match(/^"[\w-]{20,}"$/);
      // No PUBLIC_URL here: the URLs come from the Host header, so only the client may keep it.
      expect(first.headers['cache-control']).to.equal('private, max-age=300');
      const second = await get('/api/agent-context').expect(200);
      expect(second.headers.etag).to.equal(first.headers.etag);
      expect(second.text).to.equal(first.text);
      const notModified = await get('/api/agent-context').set('If-None-Match', first.headers.etag).expect(304);
      expect(notModified.text).to.equal('');
    });

    it('lists every endpoint of the revision with its absolute URL, as the OpenAPI document has them', () => {
      const documented = Object.entries(document.paths as Json).flatMap(([path, item]) =>
        Object.entries(item as Json).map(([method, op]) => [op.operationId, `${method.toUpperCase()} ${BASE}${path}`]),
      );
      const listed = Object.entries(context.endpoints as Json).map(([id, e]) => [id, `${e.method} ${e.url}`]);
      expect(listed.sort()).to.deep.equal(documented.sort());
      expect(context.endpoints.submitSpeedTest).to.deep.include({ method: 'POST', url: `${BASE}${rev.results}`, auth: 'key|session' });
      expect(context.endpoints.dryRunSpeedTest).to.deep.include({ method: 'POST', url: `${BASE}${rev.results}/dry-run` });
      expect(context.endpoints.correctSpeedTest).to.deep.include({
        method: 'PATCH',
        url: `${BASE}${rev.results}/{id}`,
        auth: 'key|session',
      });
      expect(context.endpoints.withdrawSpeedTest).to.deep.include({
        method: 'DELETE',
        url: `${BASE}${rev.results}/{id}`,
        auth: 'key|session',
      });
      expect(context.endpoints.listMySpeedTests).to.deep.include({ method: 'GET', url: `${BASE}${rev.results}/mine`, auth: 'key|session' });
      expect(context.quickStart.join(' ')).to.include(`PATCH ${BASE}${rev.results}/{id}`);
      expect(context.documentation.openapi).to.equal(`${BASE}/api/openapi.json`);
    });

    it('gives every accepted enum value and the common values of the spec', () => {
      const { enums, commonValues } = context;
      expect(enums.engineName).to.deep.equal(rev.engines);
      expect(enums.hwClass).to.deep.equal(['DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY']);
      expect(enums.reactionEmoji).to.deep.equal(['fire', 'rocket', '100', 'brain', 'chad']);
      expect(enums.memTier).to.deep.equal([8, 12, 16, 24, 32, 48, 80, 96, 128]);
      expect(enums.paramSize).to.deep.equal([1, 3, 7, 13, 30, 70, 110]);
      expect(enums.contextLen).to.deep.equal([2048, 4096, 8192, 16384, 32768, 65536, 131072]);
      expect(enums.os).to.deep.equal(['windows', 'linux', 'macos']);
      expect(enums.since).to.deep.equal(['7d', '30d']);
      expect(enums.leaderboardSort).to.include('tokSOut');
      expect(enums.runStatus).to.include('APPROVED');
      if (rev.costs) {
        expect(enums.hardwareCostCondition).to.deep.equal(['NEW', 'USED', 'REFURBISHED']);
        expect(enums.currency).to.include.members(['USD', 'EUR', 'GBP', 'JPY', 'TWD']).and.have.length(20);
      } else {
        expect(enums).not.to.have.any.keys('hardwareCostCondition', 'currency');
      }
      expect(commonValues.quantization).to.include.members(['Q4_K_M', 'Q8_0', 'IQ4_XS', 'AWQ', 'GPTQ', 'fp8', 'bf16', 'NVFP4', 'bnb-nf4']);
      expect(commonValues.backend).to.deep.equal(['cuda', 'rocm', 'metal', 'vulkan', 'cpu', 'openvino', 'xpu', 'tt-metal']);
      expect(commonValues.kvCacheDtype).to.deep.equal(['q8_0', 'q4_0', 'fp8', 'fp16', 'auto']);
      expect(commonValues.attentionBackend).to.deep.equal(['flash_attn', 'xformers', 'sdpa', 'triton']);
    });

    it('offers the canonical hardware names, and hardwareCostComponentNames where costs are accepted', () => {
      const { hardwareOptions } = context;
      expect(hardwareOptions.gpus.map((g: Json) => g.name)).to.include('NVIDIA GeForce RTX 4090');
      expect(hardwareOptions.unifiedChips).to.deep.include({
        name: 'Apple M4 Max',
        chipVendor: 'Apple',
        chipFamily: 'M4',
        chipVariant: 'Max',
        memoryGb: [36, 48, 64, 128],
      });
      expect(hardwareOptions.cpus.map((c: Json) => c.name)).to.include('AMD Ryzen 9 7950X');
      if (rev.costs) {
        expect(hardwareOptions.hardwareCostComponentNames.length).to.equal(
          hardwareOptions.gpus.length + hardwareOptions.unifiedChips.length + hardwareOptions.cpus.length,
        );
        for (const name of hardwareOptions.hardwareCostComponentNames) expect(isCanonicalComponentName(name), name).to.equal(true);
      } else {
        expect(hardwareOptions).not.to.have.property('hardwareCostComponentNames');
      }
    });

    it('carries the JSON Schema of every request body, the same as the OpenAPI document', () => {
      expect(Object.keys(context.schemas.requestBodies).sort()).to.deep.equal(rev.requestBodies);
      for (const [name, schema] of Object.entries(context.schemas.requestBodies as Json)) {
        expect(schema, name).to.deep.equal(document.components.schemas[name]);
      }
      expect(context.schemas.queryParameters.getLeaderboard.properties.memTier.enum).to.deep.equal([8, 12, 16, 24, 32, 48, 80, 96, 128]);
    });

    it('has worked examples, minimal and full for each hardware class, that pass the dry-run endpoint', async () => {
      const catalogued = new Set(demoModels.map((m) => m.hfId));
      let count = 0;
      for (const kind of ['minimal', 'full'] as const) {
        for (const hwClass of ['DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY']) {
          const body = context.examples[kind][hwClass];
          expect(body.hardware.hwClass).to.equal(hwClass);
          expect(catalogued.has(body.hfId), `${body.hfId} is in the demo catalogue`).to.equal(true);
          const res = await request(ctx.app).post(`${rev.results}/dry-run`).set('Authorization', `Bearer ${key}`).send(body);
          expect(res.status, `${kind} ${hwClass}: ${JSON.stringify(res.body)}`).to.equal(200);
          checker.expectValid('DryRunResult', res.body, `dry-run of ${kind} ${hwClass}`);
          count += 1;
        }
      }
      expect(count).to.equal(6);
      const full = context.examples.full.DISCRETE_GPU;
      if (rev.costs) expect(full).to.include.keys('hardwareCost', 'gpuPowerWatts', 'engineCommit', 'tokSPrefill', 'prefillTokens');
      else
        expect(full)
          .to.include.keys('tokSPrefill', 'prefillTokens')
          .and.not.to.have.any.keys('hardwareCost', 'gpuPowerWatts', 'engineCommit');
    });

    it('has full examples that are stored as documented when really submitted', async () => {
      for (const hwClass of ['DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY']) {
        ctx.clock.advance(rev.windowSeconds * 1000 + 1000);
        const res = await request(ctx.app).post(rev.results).set('Authorization', `Bearer ${key}`).send(context.examples.full[hwClass]);
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        checker.expectValid('SpeedTestRun', res.body, `stored full ${hwClass}`);
        expect(res.body.plausibility, hwClass).to.equal('plausible');
      }
    });

    it('has a throughput example that is stored as a throughput run: in its streams bucket, held to 8 streams x the roofline', async () => {
      ctx.clock.advance(rev.windowSeconds * 1000 + 1000);
      const res = await request(ctx.app).post(rev.results).set('Authorization', `Bearer ${key}`).send(context.examples.throughput.body);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect([res.body.plausibility, res.body.plausibilityReason]).to.satisfy(
        ([verdict, reason]: string[]) => verdict === 'plausible' && reason.includes('8 streams'),
      );
      const inBucket = async (batchSize: string) =>
        (await request(ctx.app).get('/api/leaderboard').query({ batchSize, limit: '200' }).expect(200)).body.rows.map(
          (row: { id: string }) => row.id,
        );
      // Revision 3 buckets on batchSize x concurrency; revision 2 on batchSize alone, as its note says.
      const streamsBucket = rev.revision === 3;
      expect(await inBucket('1')).to.satisfy((ids: string[]) => ids.includes(res.body.id) !== streamsBucket);
      expect(await inBucket('8')).to.satisfy((ids: string[]) => ids.includes(res.body.id) === streamsBucket);
      expect(context.examples.throughput.note).to.include(streamsBucket ? 'batchSize x concurrency' : 'batchSize alone');
    });

    it('shows a dry-run call with curl and a parsed launch command', async () => {
      const curl: string = context.examples.dryRunCurl;
      expect(curl).to.match(new RegExp(`^curl -sS -X POST '${BASE}${rev.results}/dry-run'`));
      expect(curl).to.include("-H 'Authorization: Bearer bhk_");
      const sent = JSON.parse(/-d '(.*)'$/s.exec(curl)![1]!);
      expect(sent).to.deep.equal(context.examples.minimal.DISCRETE_GPU);
      expect(context.examples.submitCurl).to.include("-H 'Idempotency-Key: ");

      const { engineName, commandSnippet, parsed } = context.examples.commandSnippet;
      expect(parsed.flags).to.deep.include({
        tensorParallel: 2,
        gpuMemUtil: 0.9,
        kvCacheDtype: 'fp8',
        prefixCaching: true,
        maxRunningSeqs: 64,
      });
      expect(parsed.fields).to.deep.equal({ engineName: 'vllm', hfId: 'Qwen/Qwen3-8B', contextLength: 8192 });
      expect(parsed.recognised).to.include('--max-model-len');
      const body = { ...context.examples.minimal.DISCRETE_GPU, engineName, engineFlags: { commandSnippet } };
      expect(body).to.not.have.property('contextLength');
      const res = await request(ctx.app).post(`${rev.results}/dry-run`).set('Authorization', `Bearer ${key}`).send(body).expect(200);
      expect(res.body.parsed.engineFlags).to.deep.include(parsed.flags);
      // The example's promise: the command's context length fills the field the body left out.
      expect(res.body.parsed.contextLength).to.equal(8192);
      expect(res.body.parsed.commandSnippetFlags.filledFields).to.deep.equal(['contextLength']);
      expect(res.body.parsed.defaultedFields).to.not.include('contextLength');
    });

    it('has a quality section: the suite-authoring guide with its bounds, the aggregation rule, limits and the life cycle', () => {
      const { quality } = context;
      const root = `${BASE}${rev.quality.root}`;
      expect(quality.root).to.equal(root);
      expect(quality.deprecatedRoots.map((old: Json) => old.path)).to.deep.equal(rev.quality.oldRoots.map((path) => `${BASE}${path}`));
      expect(quality.quickStart.runASuite.join('\n')).to.include(`${root}/runs/dry-run`).and.include('Idempotency-Key');
      expect(quality.quickStart.authorASuite.join('\n')).to.include(`${root}/suites`);

      const authoring = quality.suiteAuthoring;
      expect(authoring.registration).to.include.keys(
        'slug',
        'name',
        'description',
        'category',
        'runner',
        'version',
        'sourceUrl',
        'suiteDoc',
      );
      expect(authoring.registration.slug).to.include('3-64').and.include('409');
      expect(authoring.registration.name).to.include('1-256');
      expect(authoring.registration.description).to.include('4000');
      expect(authoring.suiteDoc).to.include.keys('runner', 'scoringMethod', 'higherIsBetter', 'aggregation', 'runConfig', 'judge', 'tasks');
      expect(authoring.suiteDoc.tasks).to.include('1-100');
      expect(authoring.suiteDoc.judge).to.include('never calls');
      expect(authoring.task).to.include.keys(
        'key',
        'taskType',
        'weight',
        'promptTemplate',
        'answerExtraction',
        'answerRegex',
        'scoring',
        'dataset',
      );
      expect(authoring.task.promptTemplate).to.include('{{input}}').and.include('{{choices}}');
      expect(authoring.item.gold).to.include('list');
      expect(authoring.itemRules.join('\n'))
        .to.include('gold or a rubric')
        .and.include('1-1000 items')
        .and.include('suiteDoc.tasks.3.dataset.items.12.gold');
      expect(Object.keys(authoring.runners)).to.deep.equal(['CUSTOM', 'LM_EVAL_HARNESS']);
      expect(Object.keys(authoring.scoringMethods.accepted)).to.deep.equal(['exact_match', 'f1', 'pass_at_k', 'llm_judge']);
      expect(authoring.scoringMethods.refused).to.have.all.keys('perplexity');
      expect(authoring.enums.scoringMethod).not.to.include('perplexity');
      expect(Object.keys(authoring.answerExtraction)).to.deep.equal(['none', 'final_answer', 'last_number', 'regex']);
      expect(Object.keys(authoring.scoringOverrides)).to.deep.equal(['ignoreCase', 'ignorePunctuation', 'regexesToIgnore']);
      expect(Object.keys(authoring.datasetSources)).to.deep.equal(
        rev.quality.datasets ? ['inline', 'url', 'huggingface', 'shard'] : ['inline', 'url', 'huggingface'],
      );
      if (rev.quality.datasets) {
        expect(authoring.shardDatasets.endpoint).to.equal(`POST ${root}/datasets`);
        expect(authoring.shardDatasets.body.shards).to.include('1-50 shards').and.include('1-1000 items');
      } else {
        expect(authoring).not.to.have.property('shardDatasets');
      }

      expect(quality.scoring.aggregation).to.deep.equal({
        weighted_mean: 'sum(w * s) / sum(w) over the tasks, w being the task weight and s its score',
        mean: 'sum(s) / n over the n tasks',
        min: 'the lowest task score',
        max: 'the highest task score',
      });
      expect(quality.scoring.scale).to.include('x 100');
      expect(quality.scoring.clientAggregates).to.include('aggregatePreview').and.include('never used');
      expect(quality.scoring.rescoring.join('\n')).to.include('exact_match and f1').and.include('every item of a task has a response');
      expect(quality.scoring.standardError).to.include('sqrt(s(1 - s) / n)');

      expect(quality.limits).to.deep.include({
        tasksPerSuite: 100,
        itemsPerTask: 1000,
        artifactsPerRun: 5000,
        artifactTextBytes: 5 * 1024 * 1024,
      });
      expect(quality.limits.requestBodyBytes).to.deep.equal({ suite: 16 * 1024 * 1024, run: 8 * 1024 * 1024 });
      if (rev.quality.datasets) expect(quality.limits).to.deep.include({ shardsPerDataset: 50, itemsPerShard: 1000 });
      else expect(quality.limits).not.to.have.any.keys('shardsPerDataset', 'itemsPerShard');
      expect(context.rateLimits.qualityRunSubmission).to.deep.include({ maxPerWindow: 1, windowSeconds: 300, dryRunsCount: false });
      expect(context.rateLimits.qualityRunSubmission.appliesTo).to.deep.equal(
        [rev.quality.root, ...rev.quality.oldRoots].map((path) => `POST ${BASE}${path}/runs`),
      );
      expect(quality.limits.runSubmissions).to.include('speed-test submissions do not use it');

      expect(quality.lifecycle.statuses.suite).to.deep.equal(['PENDING', 'APPROVED', 'REJECTED', 'WITHDRAWN']);
      expect(quality.lifecycle.statuses.run).to.deep.equal(['PENDING', 'APPROVED', 'REJECTED']);
      const transitions = quality.lifecycle.transitions.join('\n');
      expect(transitions).to.include('rejects with notes');
      if (rev.quality.datasets) expect(transitions).to.include(`PATCH ${root}/submissions/{kind}/{id}`).and.include('WITHDRAWN');
      expect(quality.errors.map((e: Json) => e.status)).to.include.members([400, 404, 409, 413, 422, 429]);
    });

    it('has worked quality examples that the running app accepts: every suite registers, the run dry-runs to the stated score', async () => {
      const { quality } = context;
      const root = rev.quality.root;
      const post = (path: string, body: unknown) =>
        request(ctx.app)
          .post(`${root}${path}`)
          .set('Authorization', `Bearer ${key}`)
          .send(body as object);
      const suites = quality.examples.suites as Record<string, { body: Json }>;
      expect(Object.keys(suites)).to.deep.equal(
        rev.quality.datasets ? ['custom', 'multipleChoice', 'lmEval', 'shard'] : ['custom', 'multipleChoice', 'lmEval'],
      );
      expect(new Set(Object.values(suites).map(({ body }) => body.runner))).to.deep.equal(new Set(['CUSTOM', 'LM_EVAL_HARNESS']));
      if (rev.quality.datasets) {
        // The shard suite reads the worked dataset: the author's own until an admin approves it.
        const dataset = await post('/datasets', quality.examples.dataset);
        expect(dataset.status, JSON.stringify(dataset.body)).to.equal(201);
        checker.expectValid('QualityDataset', dataset.body, 'worked dataset');
      }
      for (const [name, { body }] of Object.entries(suites)) {
        if (rev.quality.datasets) {
          const dryRun = await post('/suites/dry-run', body);
          expect(dryRun.status, `dry-run of ${name}: ${JSON.stringify(dryRun.body)}`).to.equal(200);
          checker.expectValid('QualitySuiteDryRun', dryRun.body, `dry-run of ${name}`);
        }
        const registered = await post('/suites', body);
        expect(registered.status, `${name}: ${JSON.stringify(registered.body)}`).to.equal(201);
        checker.expectValid('QualitySuite', registered.body, `registered ${name}`);
      }

      const run = quality.examples.run;
      expect(run.suiteSlug).to.equal(suites.custom!.body.slug);
      await approveSuite(ctx, run.suiteSlug);
      const dryRun = await post('/runs/dry-run', run);
      expect(dryRun.status, JSON.stringify(dryRun.body)).to.equal(200);
      checker.expectValid('QualityRunDryRun', dryRun.body, 'dry-run of the worked run');
      // As the note says: 11 of 12 reported, two traces re-scored (too few to replace the task score).
      expect(quality.examples.runNote).to.include(String(dryRun.body.score));
      expect(dryRun.body.score).to.equal(91.67);
      expect(dryRun.body.tasks[0].rescored).to.deep.include({ items: 2, ofItems: 12 });

      const sent = (curl: string) => JSON.parse(/-d '(.*)'$/s.exec(curl)![1]!);
      expect(quality.examples.dryRunRunCurl).to.match(new RegExp(`^curl -sS -X POST '${BASE}${root}/runs/dry-run'`));
      expect(sent(quality.examples.dryRunRunCurl)).to.deep.equal(run);
      expect(sent(quality.examples.submitRunCurl)).to.deep.equal(run);
      expect(quality.examples.submitRunCurl).to.include("-H 'Idempotency-Key: ");
      expect(sent(quality.examples.registerSuiteCurl)).to.deep.equal(suites.custom!.body);
    });

    it('has the server-side execution guide: steps from a local server to a submitted run, the address rules and the limits', () => {
      const { execute } = context.quality;
      const root = `${BASE}${rev.quality.root}`;
      const steps = execute.steps.join('\n');
      expect(steps)
        .to.include(`${root}/execute/dry-run`)
        .and.include(`${root}/execute`)
        .and.include('cloudflared tunnel')
        .and.include('tailscale funnel');
      expect(execute.request).to.include.keys('suiteSlug', 'baseUrl', 'hfId', 'model', 'apiKey', 'autoSubmit', 'hardware', 'taskKeys');
      expect(execute.request.apiKey).to.include('never stored');
      expect(execute.addressRules.join('\n')).to.include('169.254').and.include('0x7f000001').and.include('redirects are never followed');
      expect(execute.limits).to.deep.equal({
        itemsPerExecution: EXECUTE_LIMITS.items,
        requestTimeoutSeconds: 60,
        maxDurationMinutes: 30,
        runningPerUser: EXECUTE_LIMITS.runningPerUser,
        waitingOrRunningPerUser: EXECUTE_LIMITS.queuedPerUser,
        maxConcurrency: EXECUTE_LIMITS.maxConcurrency,
      });
      expect(execute.examples.dryRunCurl).to.include(`${root}/execute/dry-run`);
    });

    it('shows the same quality guide on /docs/agents', async () => {
      const html = (await get('/docs/agents').expect(200)).text;
      expect(html).to.include('<h3 id="execute">Server-side execution</h3>');
      expect(html).to.include('<h2 id="quality">Quality evaluations</h2>');
      expect(html).to.include('<h3 id="suite-authoring">Authoring a suite</h3>');
      for (const id of ['quality-scoring', 'quality-limits', 'quality-review']) expect(html).to.include(`id="${id}"`);
      expect(html).to.include('sum(w * s) / sum(w)');
      expect(html).to.include('<dt><code>perplexity</code></dt>');
      expect(html).to.include(`${BASE}${rev.quality.root}/runs/dry-run`);
      expect(html.includes('Sharded datasets')).to.equal(rev.quality.datasets);
    });

    it('explains methodology, rate limits, idempotency, bucket rules, the plausibility formula and error shapes', () => {
      const tips = context.methodology.tips.join('\n');
      for (const word of [
        /warm-up|warm up/i,
        /prompt and output lengths/i,
        /batch 1/i,
        /prefillTokens/,
        /concurrency/,
        /power/i,
        /engineCommit/,
        /commandSnippet/,
      ]) {
        expect(tips).to.match(word);
      }
      expect(context.methodology.plausibility.formula).to.match(/memory bandwidth/);
      expect(context.methodology.plausibility.suspectFactor).to.equal(1.5);
      expect(context.methodology.plausibility.suspectFactors).to.deep.equal({ DISCRETE_GPU: 1.1, UNIFIED: 1.1, CPU_ONLY: 1.5 });
      expect(context.rateLimits.speedTestSubmission).to.deep.include({
        maxPerWindow: 1,
        windowSeconds: rev.windowSeconds,
        dryRunsCount: false,
      });
      expect(context.idempotency.header).to.equal('Idempotency-Key');
      expect(Object.keys(context.bucketRules)).to.include.members(['memTier', 'paramSize', 'batchSize', 'contextLen', 'since']);
      expect(context.bucketRules.memTier).to.include('(0, 8]');
      expect(context.bucketRules.paramSize).to.include('110 = above 90');
      expect(context.bucketRules.batchSize).to.include('8 or more');
      expect(context.metricRule.inWords).to.include('tokSOut');
      const statuses = context.errors.map((e: Json) => e.status);
      expect(statuses).to.include.members([400, 401, 403, 404, 409, 422, 429, 503]);
      const validation = context.errors.find((e: Json) => e.status === 400).body;
      expect(validation).to.have.all.keys('error', 'details');
      expect(validation.details).to.have.all.keys('fieldErrors', 'formErrors');
    });
  });
}
