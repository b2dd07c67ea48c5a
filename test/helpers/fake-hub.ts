/**
 * A fake Hugging Face-compatible model hub: a real HTTP server on 127.0.0.1 (random port)
 * that answers `GET /api/models/{org}/{model}` and `GET /{org}/{model}/resolve/main/config.json`
 * for a few fixture repos, like the real hub does (ids are matched case-insensitively and
 * answered with their canonical spelling). Every request is recorded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeHubRequest {
  method: string;
  /** The raw request path (as sent, still URL-encoded). */
  path: string;
  authorization?: string;
  accept?: string;
}

export interface FakeHub {
  /** e.g. http://127.0.0.1:43123 (no trailing slash): use as the client's endpoint. */
  url: string;
  requests: FakeHubRequest[];
  close(): Promise<void>;
}

export const fakeHubModels = {
  dense: 'fakeorg/Dense-7B',
  gated: 'fakeorg/Gated-13B',
  ggufQuant: 'quantco/Dense-7B-GGUF',
  finetune: 'tuners/Dense-7B-Chat',
  moeByArchitecture: 'fakeorg/Mixture-8x7B',
  moeByConfig: 'fakeorg/Sparse-30B',
  /** AWQ quant of `dense`: its safetensors total counts packed int32 elements (1.97 B, not 7.24 B). */
  awqQuant: 'quantco/Dense-7B-AWQ',
  /** GGUF of gpt-oss-20b without config.json: MoE facts and native MXFP4 from the curated table. */
  gptOssGguf: 'ggml-org/gpt-oss-20b-GGUF',
  /** Any id the fake does not know answers 401 + X-Error-Code: RepoNotFound; this is one. */
  missing: 'fakeorg/Does-Not-Exist',
  /** 404 + X-Error-Code: RepoNotFound. */
  deleted: 'fakeorg/Deleted',
  /** 429 with Retry-After: 42. */
  rateLimited: 'fakeorg/Busy',
  /** 429 with Retry-After: 3600 (a client caps it). */
  rateLimitedLong: 'fakeorg/Overloaded',
  /** 503 without Retry-After. */
  down: 'fakeorg/Down',
  /** Answers after 2 s. */
  slow: 'fakeorg/Slow',
  /** 502. */
  serverError: 'fakeorg/Broken',
  /** 200 with an HTML body. */
  notJson: 'fakeorg/NotJson',
  /** 200 with a JSON array body. */
  arrayBody: 'fakeorg/ArrayBody',
  /** Exists (llama, 1.24 B); its config.json answers 200 with a body that is not JSON. */
  badConfig: 'fakeorg/BadConfig-1B',
} as const;

/** How long the slow fixture waits before answering. */
export const FAKE_HUB_SLOW_MS = 2000;

function sha(seed: string): string {
  // A stable 40-hex "commit sha" per fixture.
  let hex = '';
  let h = 2166136261;
  for (let round = 0; hex.length < 40; round++) {
    for (const ch of `${seed}:${round}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    hex += h.toString(16).padStart(8, '0');
  }
  return hex.slice(0, 40);
}

function modelJson(id: string, fields: Record<string, unknown>): Record<string, unknown> {
  const [author] = id.split('/');
  return {
    _id: sha(`_id:${id}`).slice(0, 24),
    id,
    modelId: id,
    author,
    sha: sha(id),
    lastModified: '2026-10-02T12:34:56.000Z',
    createdAt: '2026-09-01T08:00:00.000Z',
    private: false,
    disabled: false,
    gated: false,
    downloads: 1234,
    likes: 56,
    library_name: 'transformers',
    pipeline_tag: 'text-generation',
    tags: ['transformers', 'safetensors', 'text-generation', 'conversational', 'en', 'license:apache-2.0', 'region:us'],
    siblings: [
      { rfilename: '.gitattributes' },
      { rfilename: 'README.md' },
      { rfilename: 'config.json' },
      { rfilename: 'model.safetensors' },
      { rfilename: 'tokenizer.json' },
    ],
    spaces: [],
    ...fields,
  };
}

const denseConfigJson = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  hidden_size: 4096,
  intermediate_size: 11008,
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 32,
  max_position_embeddings: 4096,
  rms_norm_eps: 1e-5,
  rope_theta: 10000,
  torch_dtype: 'bfloat16',
  vocab_size: 32000,
  transformers_version: '4.46.0',
};

/** The JSON each fixture's `GET /api/models/{id}` answers with, by canonical id. */
export const fakeHubApiResponses: Record<string, Record<string, unknown>> = {
  [fakeHubModels.dense]: modelJson(fakeHubModels.dense, {
    tags: ['transformers', 'safetensors', 'llama', 'text-generation', 'en', 'license:apache-2.0', 'region:us'],
    cardData: { license: 'apache-2.0', language: ['en'], pipeline_tag: 'text-generation' },
    config: { architectures: ['LlamaForCausalLM'], model_type: 'llama', tokenizer_config: { bos_token: '<s>', eos_token: '</s>' } },
    transformersInfo: { auto_model: 'AutoModelForCausalLM', pipeline_tag: 'text-generation', processor: 'AutoTokenizer' },
    safetensors: { parameters: { BF16: 7241732096 }, total: 7241732096 },
    usedStorage: 14483498048,
  }),
  [fakeHubModels.gated]: modelJson(fakeHubModels.gated, {
    gated: 'manual',
    tags: ['transformers', 'safetensors', 'llama', 'text-generation', 'license:other', 'region:us'],
    cardData: { license: 'other', extra_gated_prompt: 'You agree to the Fake Community License.', extra_gated_fields: { Name: 'text' } },
    config: { architectures: ['LlamaForCausalLM'], model_type: 'llama' },
    safetensors: { parameters: { BF16: 13015864320 }, total: 13015864320 },
    usedStorage: 26031728640,
  }),
  [fakeHubModels.ggufQuant]: modelJson(fakeHubModels.ggufQuant, {
    library_name: undefined,
    tags: [
      'gguf',
      'llama',
      'text-generation',
      'base_model:fakeorg/Dense-7B',
      'base_model:quantized:fakeorg/Dense-7B',
      'endpoints_compatible',
      'region:us',
    ],
    cardData: { base_model: 'fakeorg/Dense-7B', quantized_by: 'quantco', pipeline_tag: 'text-generation' },
    siblings: [
      { rfilename: '.gitattributes' },
      { rfilename: 'Dense-7B-Q4_K_M.gguf' },
      { rfilename: 'Dense-7B-Q8_0.gguf' },
      { rfilename: 'README.md' },
    ],
    gguf: { total: 7241732096, architecture: 'llama', context_length: 4096, bos_token: '<s>', eos_token: '</s>' },
    usedStorage: 11840000000,
  }),
  [fakeHubModels.finetune]: modelJson(fakeHubModels.finetune, {
    tags: [
      'transformers',
      'pytorch',
      'llama',
      'text-generation',
      'conversational',
      'base_model:fakeorg/Dense-7B',
      'base_model:finetune:fakeorg/Dense-7B',
      'region:us',
    ],
    cardData: { base_model: 'fakeorg/Dense-7B', license: 'apache-2.0', datasets: ['fakeorg/chat-mix'] },
    config: { architectures: ['LlamaForCausalLM'], model_type: 'llama' },
    siblings: [{ rfilename: 'config.json' }, { rfilename: 'pytorch_model.bin' }, { rfilename: 'README.md' }],
    // No safetensors: the parameter count must come from the base model.
  }),
  [fakeHubModels.moeByArchitecture]: modelJson(fakeHubModels.moeByArchitecture, {
    tags: ['transformers', 'safetensors', 'mixtral', 'text-generation', 'moe', 'license:apache-2.0', 'region:us'],
    cardData: { license: 'apache-2.0' },
    config: { architectures: ['MixtralForCausalLM'], model_type: 'mixtral' },
    safetensors: { parameters: { BF16: 46702792704 }, total: 46702792704 },
  }),
  [fakeHubModels.moeByConfig]: modelJson(fakeHubModels.moeByConfig, {
    tags: ['transformers', 'safetensors', 'custom', 'text-generation', 'custom_code', 'region:us'],
    cardData: { license: 'mit' },
    config: { architectures: ['CustomForCausalLM'], model_type: 'custom' },
    safetensors: { parameters: { BF16: 30500000000 }, total: 30500000000 },
  }),
  [fakeHubModels.awqQuant]: modelJson(fakeHubModels.awqQuant, {
    tags: [
      'transformers',
      'safetensors',
      'llama',
      'text-generation',
      '4-bit',
      'awq',
      'base_model:fakeorg/Dense-7B',
      'base_model:quantized:fakeorg/Dense-7B',
      'region:us',
    ],
    cardData: { base_model: 'fakeorg/Dense-7B', quantized_by: 'quantco' },
    config: { architectures: ['LlamaForCausalLM'], model_type: 'llama' },
    // int32 tensors each hold eight 4-bit weights: the hub's total is far below the real count.
    safetensors: { parameters: { I32: 905216000, F16: 1066536960 }, total: 1971752960 },
  }),
  [fakeHubModels.gptOssGguf]: modelJson(fakeHubModels.gptOssGguf, {
    library_name: undefined,
    tags: ['gguf', 'gpt-oss', 'text-generation', 'base_model:openai/gpt-oss-20b', 'base_model:quantized:openai/gpt-oss-20b', 'region:us'],
    cardData: { base_model: 'openai/gpt-oss-20b' },
    siblings: [{ rfilename: 'gpt-oss-20b-F16.gguf' }, { rfilename: 'gpt-oss-20b-Q8_0.gguf' }, { rfilename: 'README.md' }],
    gguf: { total: 20914757184, architecture: 'gpt-oss', context_length: 131072 },
  }),
  [fakeHubModels.badConfig]: modelJson(fakeHubModels.badConfig, {
    config: { architectures: ['LlamaForCausalLM'], model_type: 'llama' },
    safetensors: { parameters: { BF16: 1235814400 }, total: 1235814400 },
  }),
};

/** The config.json of the fixtures that serve one (others answer 404 EntryNotFound or 401 GatedRepo). */
export const fakeHubConfigs: Record<string, Record<string, unknown>> = {
  [fakeHubModels.dense]: denseConfigJson,
  [fakeHubModels.finetune]: { ...denseConfigJson, torch_dtype: 'float16' },
  [fakeHubModels.moeByArchitecture]: {
    architectures: ['MixtralForCausalLM'],
    model_type: 'mixtral',
    hidden_size: 4096,
    intermediate_size: 14336,
    num_attention_heads: 32,
    num_hidden_layers: 32,
    num_key_value_heads: 8,
    num_local_experts: 8,
    num_experts_per_tok: 2,
    vocab_size: 32000,
  },
  [fakeHubModels.awqQuant]: {
    ...denseConfigJson,
    torch_dtype: 'float16',
    quantization_config: { quant_method: 'awq', bits: 4, group_size: 128, zero_point: true, version: 'gemm' },
  },
  [fakeHubModels.moeByConfig]: {
    architectures: ['CustomForCausalLM'],
    model_type: 'custom',
    auto_map: { AutoModelForCausalLM: 'modeling_custom.CustomForCausalLM' },
    hidden_size: 2048,
    num_hidden_layers: 48,
    num_experts: 64,
    num_experts_per_tok: 8,
    vocab_size: 151936,
  },
};

type Handler = (res: http.ServerResponse) => void;

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendText(res: http.ServerResponse, status: number, body: string, contentType: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const repoNotFound: Handler = (res) =>
  sendJson(res, 401, { error: 'Repository not found' }, { 'X-Error-Code': 'RepoNotFound', 'X-Error-Message': 'Repository not found' });

export async function startFakeHub(): Promise<FakeHub> {
  const requests: FakeHubRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const canonical = new Map([...Object.keys(fakeHubApiResponses), ...Object.values(fakeHubModels)].map((id) => [id.toLowerCase(), id]));

  function apiAnswer(id: string, res: http.ServerResponse): void {
    switch (id) {
      case fakeHubModels.deleted:
        return sendJson(res, 404, { error: 'Repository not found' }, { 'X-Error-Code': 'RepoNotFound' });
      case fakeHubModels.rateLimited:
        return sendJson(res, 429, { error: 'Too many requests' }, { 'Retry-After': '42' });
      case fakeHubModels.rateLimitedLong:
        return sendJson(res, 429, { error: 'Too many requests' }, { 'Retry-After': '3600' });
      case fakeHubModels.down:
        return sendText(res, 503, 'Service Unavailable', 'text/plain');
      case fakeHubModels.serverError:
        return sendText(res, 502, '<html><body>502 Bad Gateway</body></html>', 'text/html');
      case fakeHubModels.notJson:
        return sendText(res, 200, '<!doctype html><html><body>Hello</body></html>', 'text/html');
      case fakeHubModels.arrayBody:
        return sendJson(res, 200, []);
      case fakeHubModels.slow: {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) sendJson(res, 200, modelJson(fakeHubModels.slow, {}));
        }, FAKE_HUB_SLOW_MS);
        timers.add(timer);
        res.on('close', () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return;
      }
    }
    const body = fakeHubApiResponses[id];
    if (!body) return repoNotFound(res);
    sendJson(res, 200, body);
  }

  function configAnswer(id: string, res: http.ServerResponse): void {
    if (!fakeHubApiResponses[id]) return repoNotFound(res);
    if (id === fakeHubModels.gated) {
      return sendJson(
        res,
        401,
        { error: `Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.` },
        { 'X-Error-Code': 'GatedRepo' },
      );
    }
    if (id === fakeHubModels.badConfig) return sendText(res, 200, '{"architectures": ["LlamaForCausalLM"', 'application/json');
    const config = fakeHubConfigs[id];
    if (!config) return sendJson(res, 404, { error: 'Entry not found' }, { 'X-Error-Code': 'EntryNotFound' });
    sendJson(res, 200, config);
  }

  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const { authorization, accept } = req.headers;
    requests.push({
      method: req.method ?? 'GET',
      path,
      ...(authorization === undefined ? {} : { authorization }),
      ...(accept === undefined ? {} : { accept }),
    });

    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'Method not allowed' });
    let segments: string[];
    try {
      segments = path
        .split('?')[0]!
        .split('/')
        .slice(1)
        .map((s) => decodeURIComponent(s));
    } catch {
      return sendJson(res, 400, { error: 'Bad path' });
    }
    const resolve = (org: string, model: string) => canonical.get(`${org}/${model}`.toLowerCase()) ?? `${org}/${model}`;

    if (segments.length === 4 && segments[0] === 'api' && segments[1] === 'models') {
      return apiAnswer(resolve(segments[2]!, segments[3]!), res);
    }
    if (segments.length === 5 && segments[2] === 'resolve' && segments[3] === 'main' && segments[4] === 'config.json') {
      return configAnswer(resolve(segments[0]!, segments[1]!), res);
    }
    sendJson(res, 404, { error: 'Not found' });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
