/**
 * What engine serves the base URL, its version, the models it serves and what it says
 * about them, read from the engine's own endpoints: Ollama `/api/version` (+ `/api/tags`,
 * `/api/show`), llama.cpp `/props`, vLLM / SGLang `/version`, TGI `/info`, and the
 * `owned_by` of `/v1/models`. Each probe is a short GET whose failure just means "not this".
 */
import { measurementFailed, networkReason, serverUnavailable } from './errors.ts';
import type { ApiKind } from './stream.ts';

export interface EngineInfo {
  api: ApiKind;
  engineName?: string;
  engineVersion?: string;
  /** The engine's git commit, where it names it (llama.cpp's build_info `b4500-1a2b3c4d`). */
  engineCommit?: string;
  /** How the engine was recognised, for the report. */
  detectedBy?: string;
  models: string[];
  /** The engine's context size (llama.cpp `n_ctx`). */
  contextLength?: number;
  /** A quantization named by the engine (Ollama details, a GGUF file name). */
  quantization?: string;
}

/** `owned_by` values of `/v1/models` and the engine they name. */
const OWNERS: Record<string, string> = {
  llamacpp: 'llama.cpp',
  'llama.cpp': 'llama.cpp',
  vllm: 'vllm',
  sglang: 'sglang',
  lmstudio: 'lmstudio',
  ollama: 'ollama',
  library: 'ollama',
  tgi: 'tgi',
  'text-generation-inference': 'tgi',
  mlx: 'mlx',
  'mlx-lm': 'mlx',
  lmdeploy: 'lmdeploy',
  exllamav2: 'exllamav2',
  tabbyapi: 'exllamav2',
};

const QUANT = /(?:^|[^A-Za-z0-9])((?:I?Q[1-8](?:_[0-9A-Z]+)*)|F16|BF16|F32|MXFP4|fp8|awq|gptq)(?=$|[^A-Za-z0-9])/i;

/** A quantization named in a model file or tag ('Qwen3-8B-Q4_K_M.gguf' -> 'Q4_K_M'). */
export function quantizationFromName(name: string): string | undefined {
  const match = QUANT.exec(name.split('/').at(-1) ?? name);
  if (!match) return undefined;
  const found = match[1]!;
  return /^(awq|gptq|fp8)$/i.test(found) ? (found.toLowerCase() === 'fp8' ? 'fp8' : found.toUpperCase()) : found.toUpperCase();
}

type Json = Record<string, any>;

async function getJson(url: string, apiKey: string | undefined, timeoutMs: number): Promise<Json | undefined> {
  try {
    const response = await fetch(url, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return undefined;
    }
    const parsed = (await response.json()) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** Fails fast, before any probe, when nothing listens at the base URL. */
async function reachable(baseUrl: string, timeoutMs: number): Promise<void> {
  try {
    const response = await fetch(baseUrl, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
  } catch (error) {
    throw serverUnavailable(`Cannot reach the engine at ${baseUrl} (${networkReason(error)}): is it running? Check --base-url.`);
  }
}

export async function detectEngine(
  baseUrl: string,
  options: { api?: ApiKind; apiKey?: string; timeoutMs?: number } = {},
): Promise<EngineInfo> {
  const info = await probe(baseUrl, options);
  // --api wins over what the probes suggest (an Ollama server asked through its /v1 API).
  return options.api ? { ...info, api: options.api } : info;
}

async function probe(baseUrl: string, options: { api?: ApiKind; apiKey?: string; timeoutMs?: number }): Promise<EngineInfo> {
  const timeoutMs = options.timeoutMs ?? 5000;
  await reachable(baseUrl, timeoutMs);
  const get = (path: string) => getJson(`${baseUrl}${path}`, options.apiKey, timeoutMs);

  const ollama = options.api === 'openai' ? undefined : await get('/api/version');
  if (ollama && typeof ollama.version === 'string') {
    const tags = await get('/api/tags');
    const models = Array.isArray(tags?.models)
      ? tags.models.map((m: Json) => m.name ?? m.model).filter((n: unknown): n is string => typeof n === 'string')
      : [];
    return { api: 'ollama', engineName: 'ollama', engineVersion: ollama.version, detectedBy: '/api/version', models };
  }

  const listing = await get('/v1/models');
  const entries: Json[] = Array.isArray(listing?.data) ? listing.data : Array.isArray(listing?.models) ? listing.models : [];
  const models = entries.map((entry) => entry.id ?? entry.name ?? entry.model).filter((id): id is string => typeof id === 'string');
  const info: EngineInfo = { api: 'openai', models };
  const owner = entries.map((entry) => OWNERS[String(entry.owned_by ?? '').toLowerCase()]).find(Boolean);

  const props = await get('/props');
  if (props && (props.build_info !== undefined || props.default_generation_settings !== undefined)) {
    const modelPath = typeof props.model_path === 'string' ? props.model_path : '';
    return {
      ...info,
      engineName: 'llama.cpp',
      engineVersion: typeof props.build_info === 'string' ? props.build_info : undefined,
      engineCommit: typeof props.build_info === 'string' ? /-([0-9a-f]{7,40})$/i.exec(props.build_info)?.[1]?.toLowerCase() : undefined,
      detectedBy: '/props',
      contextLength: props.default_generation_settings?.n_ctx ?? props.n_ctx,
      quantization: quantizationFromName(modelPath) ?? models.map(quantizationFromName).find(Boolean),
    };
  }
  const version = await get('/version');
  if (version && typeof version.version === 'string') {
    return { ...info, engineName: owner === 'sglang' ? 'sglang' : 'vllm', engineVersion: version.version, detectedBy: '/version' };
  }
  const tgi = await get('/info');
  if (tgi && typeof tgi.model_id === 'string' && typeof tgi.version === 'string') {
    return { ...info, engineName: 'tgi', engineVersion: tgi.version, detectedBy: '/info' };
  }
  if (owner) return { ...info, engineName: owner, detectedBy: '/v1/models owned_by' };
  if (!listing)
    throw measurementFailed(
      `The server at ${baseUrl} answers, but neither as Ollama (/api/version) nor as an OpenAI-compatible server (/v1/models): check --base-url.`,
    );
  return info;
}

/** The served model to measure: the one asked for if served, else the only one served. */
export function chooseModel(info: EngineInfo, asked: string | undefined): string {
  if (asked) {
    if (info.models.length && !info.models.includes(asked)) {
      throw measurementFailed(
        `The engine does not serve "${asked}"; it serves: ${info.models.slice(0, 10).join(', ')}. Pass one of them with --model.`,
      );
    }
    return asked;
  }
  if (info.models.length === 1) return info.models[0]!;
  if (!info.models.length) throw measurementFailed('The engine lists no models: pass the served model name with --model.');
  throw measurementFailed(`The engine serves several models (${info.models.slice(0, 10).join(', ')}): pick one with --model.`);
}

/** Ollama's quantization level of a model (`/api/show`), when it says. */
export async function ollamaQuantization(baseUrl: string, model: string, timeoutMs = 5000): Promise<string | undefined> {
  try {
    const response = await fetch(`${baseUrl}/api/show`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as Json;
    return typeof body.details?.quantization_level === 'string' ? body.details.quantization_level : undefined;
  } catch {
    return undefined;
  }
}
