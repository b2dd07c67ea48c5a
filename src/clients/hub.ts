/**
 * Client of the upstream model hub (Hugging Face compatible). It answers one question:
 * does `<org>/<model>` exist, and what does the hub say about it. See DECISIONS.md,
 * "Models and the hub": 200 = exists (also when gated), 401/404 = not found (our 404),
 * 429 / 5xx / timeout / network error = hub unavailable (our 503 with Retry-After).
 */
import { NotFound, Unavailable } from '../lib/errors.ts';
import { isValidHfId } from '../lib/model-metadata.ts';
import { messages } from '../messages.ts';

/** Retry-After (seconds) we send when the hub gave none we can use. */
export const HUB_DEFAULT_RETRY_AFTER_SECONDS = 30;
/** Upper bound for a Retry-After taken over from the hub. */
export const HUB_MAX_RETRY_AFTER_SECONDS = 300;
export const HUB_DEFAULT_TIMEOUT_MS = 5000;

/** config.json bodies larger than this are ignored (best effort data only). */
const MAX_CONFIG_JSON_BYTES = 1024 * 1024;

/** The subset of `GET {endpoint}/api/models/{org}/{model}` that the service uses. */
export interface HubModelInfo {
  /** The hub's canonical id (case and renames resolved); absent when the hub gave none. */
  id?: string;
  /** Commit sha of the repo's main revision. */
  sha?: string;
  gated: false | 'auto' | 'manual' | true;
  private?: boolean;
  tags: string[];
  cardData?: { base_model?: string | string[]; [key: string]: unknown };
  /** The hub's summary of config.json; its quantization_config is there even when config.json is gated. */
  config?: { architectures?: string[]; model_type?: string; quantization_config?: Record<string, unknown> };
  /** `parameters`: element counts by dtype (I32/U32 mean packed quantized weights, see `hasPackedParameterCount`). */
  safetensors?: { total?: number; parameters?: Record<string, number> };
  gguf?: { total?: number; architecture?: string };
  /** The repo's config.json when it could be fetched (not for gated repos, GGUF-only repos...). */
  configJson?: Record<string, unknown>;
}

export interface HubClient {
  /**
   * Resolves with what the hub knows about `hfId`.
   * @throws NotFound (404) when the hub does not know the model or the id is not `<org>/<model>`.
   * @throws Unavailable (503, with Retry-After) when the hub cannot answer now.
   */
  getModel(hfId: string): Promise<HubModelInfo>;
}

export interface HubClientOptions {
  /** e.g. https://huggingface.co (a trailing slash is ignored). */
  endpoint: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token?: string;
  /** Budget for the whole lookup (model info and config.json together). Default 5000. */
  timeoutMs?: number;
}

/** The hub's Retry-After when it is a positive integer number of seconds (capped), else the default. */
export function retryAfterFromHub(header: string | null): number {
  const value = header?.trim();
  if (value && /^\d+$/.test(value)) {
    const seconds = Number(value);
    if (Number.isSafeInteger(seconds) && seconds > 0) return Math.min(seconds, HUB_MAX_RETRY_AFTER_SECONDS);
  }
  return HUB_DEFAULT_RETRY_AFTER_SECONDS;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * Picks the fields we use out of a hub model answer, checking their types (the hub is
 * another service: anything of the wrong type is dropped). Returns null when the body
 * is not a JSON object.
 */
export function hubModelInfoFromJson(body: unknown): HubModelInfo | null {
  if (!isRecord(body)) return null;
  const info: HubModelInfo = { gated: false, tags: [] };

  const id = nonEmptyString(body.id) ?? nonEmptyString(body.modelId);
  if (id && isValidHfId(id)) info.id = id;
  const sha = nonEmptyString(body.sha);
  if (sha) info.sha = sha;

  const gated = body.gated;
  if (gated === true || gated === 'auto' || gated === 'manual') info.gated = gated;
  else if (typeof gated === 'string' && gated !== '' && gated !== 'false') info.gated = true;
  if (typeof body.private === 'boolean') info.private = body.private;
  if (Array.isArray(body.tags)) info.tags = body.tags.filter((t): t is string => typeof t === 'string');

  if (isRecord(body.cardData)) {
    const { base_model: baseModel, ...rest } = body.cardData;
    const cardData: NonNullable<HubModelInfo['cardData']> = { ...rest };
    if (typeof baseModel === 'string') cardData.base_model = baseModel;
    else if (Array.isArray(baseModel)) cardData.base_model = baseModel.filter((b): b is string => typeof b === 'string');
    info.cardData = cardData;
  }

  if (isRecord(body.config)) {
    const config: NonNullable<HubModelInfo['config']> = {};
    if (Array.isArray(body.config.architectures)) {
      config.architectures = body.config.architectures.filter((a): a is string => typeof a === 'string');
    }
    const modelType = nonEmptyString(body.config.model_type);
    if (modelType) config.model_type = modelType;
    if (isRecord(body.config.quantization_config)) config.quantization_config = body.config.quantization_config;
    info.config = config;
  }

  if (isRecord(body.safetensors)) {
    const safetensors: NonNullable<HubModelInfo['safetensors']> = {};
    const total = finiteNumber(body.safetensors.total);
    if (total !== undefined) safetensors.total = total;
    if (isRecord(body.safetensors.parameters)) {
      const byDtype = Object.entries(body.safetensors.parameters).filter(
        (entry): entry is [string, number] => /^[A-Za-z0-9_]{1,16}$/.test(entry[0]) && finiteNumber(entry[1]) !== undefined,
      );
      if (byDtype.length > 0) safetensors.parameters = Object.fromEntries(byDtype);
    }
    info.safetensors = safetensors;
  }

  if (isRecord(body.gguf)) {
    const gguf: NonNullable<HubModelInfo['gguf']> = {};
    const total = finiteNumber(body.gguf.total);
    if (total !== undefined) gguf.total = total;
    const architecture = nonEmptyString(body.gguf.architecture);
    if (architecture) gguf.architecture = architecture;
    info.gguf = gguf;
  }

  return info;
}

async function discardBody(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Nothing to free.
  }
}

export function createHubClient(options: HubClientOptions): HubClient {
  const endpoint = options.endpoint.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? HUB_DEFAULT_TIMEOUT_MS;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;

  const unavailable = (retryAfterSeconds = HUB_DEFAULT_RETRY_AFTER_SECONDS) => new Unavailable(messages.hubUnavailable, retryAfterSeconds);

  /** Best effort: the repo's config.json, or undefined on any failure. */
  async function fetchConfigJson(repoPath: string, signal: AbortSignal): Promise<Record<string, unknown> | undefined> {
    try {
      const response = await fetch(`${endpoint}/${repoPath}/resolve/main/config.json`, { headers, signal });
      if (response.status !== 200) {
        await discardBody(response);
        return undefined;
      }
      const length = Number(response.headers.get('content-length'));
      if (Number.isFinite(length) && length > MAX_CONFIG_JSON_BYTES) {
        await discardBody(response);
        return undefined;
      }
      const text = await response.text();
      if (text.length > MAX_CONFIG_JSON_BYTES) return undefined;
      const parsed: unknown = JSON.parse(text);
      return isRecord(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    async getModel(hfId: string): Promise<HubModelInfo> {
      if (typeof hfId !== 'string' || !isValidHfId(hfId)) {
        throw new NotFound(messages.hubNotFound(String(hfId), endpoint));
      }
      const [org, model] = hfId.split('/') as [string, string];
      const repoPath = `${encodeURIComponent(org)}/${encodeURIComponent(model)}`;
      // One budget for the whole lookup.
      const signal = AbortSignal.timeout(timeoutMs);

      let response: Response;
      try {
        response = await fetch(`${endpoint}/api/models/${repoPath}`, { headers, signal });
      } catch {
        // Timeout, refused connection, DNS failure, TLS error...
        throw unavailable();
      }

      if (response.status === 401 || response.status === 404) {
        // 401 is what the hub answers for a repo that does not exist or that we may not
        // see (private); both are "not found" for us, with or without X-Error-Code: RepoNotFound.
        await discardBody(response);
        throw new NotFound(messages.hubNotFound(hfId, endpoint));
      }
      if (response.status === 429 || response.status >= 500) {
        await discardBody(response);
        throw unavailable(retryAfterFromHub(response.headers.get('retry-after')));
      }
      if (response.status !== 200) {
        // Any other answer does not tell us whether the model exists.
        await discardBody(response);
        throw unavailable();
      }

      let body: unknown;
      try {
        body = JSON.parse(await response.text());
      } catch {
        // Not JSON, or the body did not arrive within the budget.
        throw unavailable();
      }
      const info = hubModelInfoFromJson(body);
      if (!info) throw unavailable();

      const configJson = await fetchConfigJson(repoPath, signal);
      if (configJson) info.configJson = configJson;
      return info;
    },
  };
}

/** For HUB_MODE=offline: no model is ever found on the hub; only catalogued models are accepted. */
export function createOfflineHubClient(): HubClient {
  return {
    async getModel(hfId: string): Promise<HubModelInfo> {
      throw new NotFound(messages.hubOffline(String(hfId)));
    },
  };
}

export const offlineHubClient: HubClient = createOfflineHubClient();
