import { expect } from 'chai';
import request from 'supertest';
import { demoModels, seedDemoCatalogue } from '../../src/db/seeds/demo-models.ts';
import { isCanonicalComponentName } from '../../src/lib/hardware-lookup.ts';
import { normaliseSubmission } from '../../src/lib/speed-test-normalise.ts';
import { submissionExamples } from '../../src/openapi/examples.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';
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
    engines: ['llama.cpp', 'vllm', 'sglang', 'ollama', 'lmstudio', 'exllamav2', 'tgi', 'tensorrt-llm', 'mlx', 'text-generation-webui', 'lmdeploy', 'mlc-llm', 'hipfire', 'tinygrad'],
    costs: false,
  },
  {
    revision: 3,
    results: '/api/speed-tests',
    windowSeconds: 60,
    engines: [
      'llama.cpp', 'vllm', 'sglang', 'ollama', 'lmstudio', 'exllamav2', 'tgi', 'tensorrt-llm', 'mlx', 'text-generation-webui', 'lmdeploy', 'mlc-llm', 'hipfire', 'tinygrad',
      'exllamav3', 'bunn-llama', 'freetoken', 'llmd', 'ninfer', 'atlas', 'lucebox', 'dwarfstar', 'ember',
    ],
    costs: true,
  },
] as const;

describe('agent-context, revision 1', () => {
  const ctx = useTestApp({ API_REVISION: '1' });

  it('does not exist (agent metadata came with revision 2)', async () => {
    const res = await request(ctx.app).get('/api/agent-context').expect(404);
    expect(res.body).to.deep.equal({ error: 'Not found' });
  });

  it('would show worked examples that pass the revision-1 submission schema and metric rule', () => {
    const profile = getRevisionProfile(1);
    const examples = submissionExamples(profile);
    for (const [kind, byClass] of Object.entries(examples)) {
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
      expect(hardwareOptions.unifiedChips).to.deep.include({ name: 'Apple M4 Max', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Max', memoryGb: [36, 48, 64, 128] });
      expect(hardwareOptions.cpus.map((c: Json) => c.name)).to.include('AMD Ryzen 9 7950X');
      if (rev.costs) {
        expect(hardwareOptions.hardwareCostComponentNames.length).to.equal(hardwareOptions.gpus.length + hardwareOptions.unifiedChips.length + hardwareOptions.cpus.length);
        for (const name of hardwareOptions.hardwareCostComponentNames) expect(isCanonicalComponentName(name), name).to.equal(true);
      } else {
        expect(hardwareOptions).not.to.have.property('hardwareCostComponentNames');
      }
    });

    it('carries the JSON Schema of every request body, the same as the OpenAPI document', () => {
      expect(Object.keys(context.schemas.requestBodies).sort()).to.deep.equal(['CreateApiKey', 'Reaction', 'SetupCreate', 'SetupPatch', 'SpeedTestSubmission']);
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
      else expect(full).to.include.keys('tokSPrefill', 'prefillTokens').and.not.to.have.any.keys('hardwareCost', 'gpuPowerWatts', 'engineCommit');
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

    it('shows a dry-run call with curl and a parsed launch command', async () => {
      const curl: string = context.examples.dryRunCurl;
      expect(curl).to.match(new RegExp(`^curl -sS -X POST '${BASE}${rev.results}/dry-run'`));
      expect(curl).to.include("-H 'Authorization: Bearer bhk_");
      const sent = JSON.parse(/-d '(.*)'$/s.exec(curl)![1]!);
      expect(sent).to.deep.equal(context.examples.minimal.DISCRETE_GPU);
      expect(context.examples.submitCurl).to.include("-H 'Idempotency-Key: ");

      const { engineName, commandSnippet, parsed } = context.examples.commandSnippet;
      expect(parsed.flags).to.deep.include({ tensorParallel: 2, gpuMemUtil: 0.9, kvCacheDtype: 'fp8', prefixCaching: true, maxRunningSeqs: 64 });
      expect(parsed.unrecognised).to.include('--max-model-len');
      const body = { ...context.examples.minimal.DISCRETE_GPU, engineName, engineFlags: { commandSnippet } };
      const res = await request(ctx.app).post(`${rev.results}/dry-run`).set('Authorization', `Bearer ${key}`).send(body).expect(200);
      expect(res.body.parsed.engineFlags).to.deep.include(parsed.flags);
    });

    it('explains methodology, rate limits, idempotency, bucket rules, the plausibility formula and error shapes', () => {
      const tips = context.methodology.tips.join('\n');
      for (const word of [/warm-up|warm up/i, /prompt and output lengths/i, /batch 1/i, /prefillTokens/, /concurrency/, /power/i, /engineCommit/, /commandSnippet/]) {
        expect(tips).to.match(word);
      }
      expect(context.methodology.plausibility.formula).to.match(/memory bandwidth/);
      expect(context.methodology.plausibility.suspectFactor).to.equal(1.25);
      expect(context.rateLimits.speedTestSubmission).to.deep.include({ maxPerWindow: 1, windowSeconds: rev.windowSeconds, dryRunsCount: false });
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
