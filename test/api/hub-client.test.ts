import { expect } from 'chai';
import { HttpError, NotFound, Unavailable } from '../../src/lib/errors.ts';
import { messages } from '../../src/messages.ts';
import { createHubClient, hubModelInfoFromJson, createOfflineHubClient, offlineHubClient, type HubClient } from '../../src/clients/hub.ts';
import { fakeHubApiResponses, fakeHubConfigs, fakeHubModels, startFakeHub, type FakeHub } from '../helpers/fake-hub.ts';

async function rejection(promise: Promise<unknown>): Promise<HttpError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(HttpError);
    return error as HttpError;
  }
  expect.fail('expected the promise to reject');
}

describe('hub client against a fake hub', () => {
  let hub: FakeHub;
  let client: HubClient;

  before(async () => {
    hub = await startFakeHub();
    client = createHubClient({ endpoint: hub.url, timeoutMs: 2000 });
  });

  after(async () => {
    await hub.close();
  });

  beforeEach(() => {
    hub.requests.length = 0;
  });

  function expectNotFound(error: HttpError, hfId: string, endpoint = hub.url): void {
    expect(error).to.be.instanceOf(NotFound);
    expect(error.status).to.equal(404);
    expect(error.message).to.include(hfId).and.to.include(endpoint).and.to.include('not found');
  }

  function expectUnavailable(error: HttpError, retryAfter: string): void {
    expect(error).to.be.instanceOf(Unavailable);
    expect(error.status).to.equal(503);
    expect(error.message).to.equal(messages.hubUnavailable);
    expect(error.headers).to.deep.equal({ 'Retry-After': retryAfter });
    expect(error.toJSON()).to.deep.equal({ error: 'Model hub unavailable, retry later' });
  }

  describe('found', () => {
    it('returns the model info with its config.json', async () => {
      const info = await client.getModel(fakeHubModels.dense);
      const raw = fakeHubApiResponses[fakeHubModels.dense]!;
      expect(info).to.include({ id: 'fakeorg/Dense-7B', sha: raw.sha, gated: false, private: false });
      expect(info.tags).to.include('llama');
      expect(info.config).to.deep.equal({ architectures: ['LlamaForCausalLM'], model_type: 'llama' });
      expect(info.safetensors).to.deep.equal({ total: 7241732096, parameters: { BF16: 7241732096 } });
      expect(info.gguf).to.equal(undefined);
      expect(info.configJson).to.deep.equal(fakeHubConfigs[fakeHubModels.dense]);
      expect(info.configJson).to.have.property('hidden_size', 4096);
      expect(hub.requests.map((r) => `${r.method} ${r.path}`)).to.deep.equal([
        'GET /api/models/fakeorg/Dense-7B',
        'GET /fakeorg/Dense-7B/resolve/main/config.json',
      ]);
    });

    it('finds a gated model; its config.json (401 GatedRepo) is left out', async () => {
      const info = await client.getModel(fakeHubModels.gated);
      expect(info).to.include({ id: 'fakeorg/Gated-13B', gated: 'manual' });
      expect(info.safetensors?.total).to.be.closeTo(13e9, 1e8);
      expect(info).not.to.have.property('configJson');
    });

    it('finds a GGUF quant with its base model; no config.json (404)', async () => {
      const info = await client.getModel(fakeHubModels.ggufQuant);
      expect(info.gguf).to.deep.equal({ total: 7241732096, architecture: 'llama' });
      expect(info.tags).to.include.members(['gguf', 'base_model:quantized:fakeorg/Dense-7B']);
      expect(info.cardData?.base_model).to.equal('fakeorg/Dense-7B');
      expect(info.configJson).to.equal(undefined);
    });

    it('finds the finetune and the config-only MoE with their config.json', async () => {
      const finetune = await client.getModel(fakeHubModels.finetune);
      expect(finetune.safetensors).to.equal(undefined);
      expect(finetune.tags).to.include('base_model:finetune:fakeorg/Dense-7B');
      const sparse = await client.getModel(fakeHubModels.moeByConfig);
      expect(sparse.configJson).to.include({ num_experts: 64, num_experts_per_tok: 8 });
      const mixture = await client.getModel(fakeHubModels.moeByArchitecture);
      expect(mixture.config?.architectures).to.deep.equal(['MixtralForCausalLM']);
    });

    it("keeps an AWQ repo's element counts by dtype (int32 = packed weights) and its quantization_config", async () => {
      const info = await client.getModel(fakeHubModels.awqQuant);
      expect(info.safetensors).to.deep.equal({ total: 1971752960, parameters: { I32: 905216000, F16: 1066536960 } });
      expect(info.configJson?.quantization_config).to.include({ quant_method: 'awq', bits: 4, group_size: 128 });
    });

    it('drops dtype counts that are not numbers and dtype names that are not names', () => {
      const info = hubModelInfoFromJson({
        id: 'a/b',
        safetensors: { total: 10, parameters: { BF16: 6, I32: '4', 'F16; drop': 1, U8: null } },
      });
      expect(info?.safetensors).to.deep.equal({ total: 10, parameters: { BF16: 6 } });
      expect(hubModelInfoFromJson({ id: 'a/b', safetensors: { parameters: ['BF16'] } })?.safetensors).to.deep.equal({});
    });

    it("keeps the config summary's quantization_config (a gated repo's only word on it), and drops one that is not an object", () => {
      const summary = { quant_method: 'fp8', weight_block_size: [128, 128] };
      expect(hubModelInfoFromJson({ id: 'a/b', config: { model_type: 'llama', quantization_config: summary } })?.config).to.deep.equal({
        model_type: 'llama',
        quantization_config: summary,
      });
      expect(hubModelInfoFromJson({ id: 'a/b', config: { model_type: 'llama', quantization_config: 'fp8' } })?.config).to.deep.equal({
        model_type: 'llama',
      });
    });

    it('returns the canonical id when asked with another case', async () => {
      const info = await client.getModel('FAKEORG/dense-7b');
      expect(info.id).to.equal('fakeorg/Dense-7B');
    });

    it('leaves configJson out when config.json is not valid JSON', async () => {
      const info = await client.getModel(fakeHubModels.badConfig);
      expect(info.id).to.equal(fakeHubModels.badConfig);
      expect(info.configJson).to.equal(undefined);
    });

    it('ignores a trailing slash on the endpoint', async () => {
      const info = await createHubClient({ endpoint: `${hub.url}/` }).getModel(fakeHubModels.dense);
      expect(info.id).to.equal(fakeHubModels.dense);
      expect(hub.requests[0]!.path).to.equal('/api/models/fakeorg/Dense-7B');
    });
  });

  describe('not found', () => {
    it('401 RepoNotFound -> NotFound naming the id and the hub', async () => {
      const error = await rejection(client.getModel(fakeHubModels.missing));
      expectNotFound(error, fakeHubModels.missing);
      expect(error.message).to.equal(`Model 'fakeorg/Does-Not-Exist' not found on the model hub (${hub.url})`);
      expect(hub.requests).to.have.length(1);
    });

    it('404 RepoNotFound -> NotFound', async () => {
      expectNotFound(await rejection(client.getModel(fakeHubModels.deleted)), fakeHubModels.deleted);
    });

    it('odd ids -> NotFound without any request reaching the hub', async () => {
      for (const odd of [
        '../etc',
        'a/b/c',
        'nope',
        '',
        '/',
        'a/',
        '/b',
        '.x/y',
        'x/..',
        'x/-y',
        'a b/c',
        'a/b%2F..',
        'a/b?x=1',
        'a/b#c',
        'org/mödel',
        `${'a'.repeat(97)}/b`,
      ]) {
        const error = await rejection(client.getModel(odd));
        expect(error, odd).to.be.instanceOf(NotFound);
        expect(error.status).to.equal(404);
        expect(error.message).to.include(hub.url);
      }
      expect(hub.requests).to.deep.equal([]);
    });
  });

  describe('unavailable', () => {
    it("429 -> Unavailable 503 with the hub's Retry-After", async () => {
      expectUnavailable(await rejection(client.getModel(fakeHubModels.rateLimited)), '42');
    });

    it('caps a long Retry-After at 300 s', async () => {
      expectUnavailable(await rejection(client.getModel(fakeHubModels.rateLimitedLong)), '300');
    });

    it('5xx -> Unavailable with Retry-After 30 when the hub gives none', async () => {
      expectUnavailable(await rejection(client.getModel(fakeHubModels.serverError)), '30');
      expectUnavailable(await rejection(client.getModel(fakeHubModels.down)), '30');
    });

    it('times out a slow hub quickly', async () => {
      const fast = createHubClient({ endpoint: hub.url, timeoutMs: 200 });
      const started = Date.now();
      const error = await rejection(fast.getModel(fakeHubModels.slow));
      expect(Date.now() - started).to.be.lessThan(1500);
      expectUnavailable(error, '30');
    });

    it('an unreachable hub -> Unavailable', async () => {
      const unreachable = createHubClient({ endpoint: 'http://127.0.0.1:1', timeoutMs: 2000 });
      expectUnavailable(await rejection(unreachable.getModel(fakeHubModels.dense)), '30');
    });

    it('a 200 whose body is not a JSON object -> Unavailable', async () => {
      expectUnavailable(await rejection(client.getModel(fakeHubModels.notJson)), '30');
      expectUnavailable(await rejection(client.getModel(fakeHubModels.arrayBody)), '30');
    });
  });

  describe('requests', () => {
    it('sends the token as Bearer on both calls when set, and Accept: application/json', async () => {
      const withToken = createHubClient({ endpoint: hub.url, token: 'hf_fake_token_123' });
      await withToken.getModel(fakeHubModels.dense);
      expect(hub.requests).to.have.length(2);
      for (const request of hub.requests) {
        expect(request.authorization).to.equal('Bearer hf_fake_token_123');
        expect(request.accept).to.equal('application/json');
      }
    });

    it('sends no Authorization header without a token', async () => {
      await client.getModel(fakeHubModels.dense);
      expect(hub.requests).to.have.length(2);
      for (const request of hub.requests) expect(request).not.to.have.property('authorization');
    });

    it('keeps the slash between org and model and encodes each segment', async () => {
      // Unknown to the fake (so NotFound), but the request shows the path that went out.
      expect(await rejection(client.getModel('Fake.Org_1/Model-v1.5_x'))).to.be.instanceOf(NotFound);
      expect(hub.requests[0]!.path).to.equal('/api/models/Fake.Org_1/Model-v1.5_x');
      expect(hub.requests[0]!.path).not.to.include('%2F');
    });
  });

  describe('offline client', () => {
    it('never finds a model and says the hub is offline', async () => {
      for (const offline of [offlineHubClient, createOfflineHubClient()]) {
        const error = await rejection(offline.getModel(fakeHubModels.dense));
        expect(error).to.be.instanceOf(NotFound);
        expect(error.status).to.equal(404);
        expect(error.message).to.include(fakeHubModels.dense).and.to.include('offline').and.to.include('HUB_MODE=offline');
      }
      expect(hub.requests).to.deep.equal([]);
    });
  });
});
