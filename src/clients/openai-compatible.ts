/**
 * The two calls server-side execution makes to an OpenAI-compatible server (llama.cpp's
 * llama-server, vLLM, SGLang, Ollama, LM Studio...): `GET /v1/models` and
 * `POST /v1/chat/completions`, always through the guarded outbound client. A base URL may
 * or may not end in `/v1`.
 */
import type { OutboundClient, OutboundResponse } from './outbound.ts';

/** The target answered, but not with something usable (an error status, a body we cannot read). */
export class TargetAnswerError extends Error {
  override name = 'TargetAnswerError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** `{base}/v1/<path>`, whether or not the base URL already ends in `/v1`. */
export function openAiUrl(baseUrl: string, path: 'models' | 'chat/completions'): string {
  const base = baseUrl.replace(/\/+$/, '');
  return `${/\/v1$/i.test(base) ? base : `${base}/v1`}/${path}`;
}

/**
 * The largest answers read. Honest ones are far smaller (a model list is a few KB, a
 * completion is capped by its max_tokens); the caps keep a hostile server's answer from
 * costing more than a few milliseconds of JSON parsing on the main thread.
 */
export const ANSWER_CAPS = { modelsBytes: 256 * 1024, chatBytes: 1024 * 1024 } as const;

/** Per call: an abort signal and a time budget (a dry-run's remaining deadline). */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ChatRequest extends CallOptions {
  model: string;
  prompt: string;
  temperature: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  /** The target's bearer key, when it needs one. */
  apiKey?: string;
}

export interface ChatAnswer {
  text: string;
  latencyMs: number;
}

const authorization = (apiKey: string | undefined): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {});

/** The first choice's text of a chat completion answer: JSON, or server-sent events when the server streams anyway. */
export function completionText(contentType: string, body: string): string {
  if (/text\/event-stream/i.test(contentType) || /^\s*data:/.test(body)) return streamedText(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new TargetAnswerError('The server did not answer JSON');
  }
  const choice = (parsed as { choices?: { message?: { content?: unknown }; text?: unknown }[] })?.choices?.[0];
  const content = choice?.message ? choice.message.content : choice?.text;
  if (typeof content === 'string') return content;
  // A message with no content (only reasoning or tool calls): an empty answer, scored as such.
  if (content === null && choice?.message) return '';
  throw new TargetAnswerError('The answer has no choices[0].message.content');
}

/** Joins the `delta.content` of every `data:` event up to `[DONE]`. */
function streamedText(body: string): string {
  let text = '';
  for (const line of body.split(/\r?\n/)) {
    const match = /^data:\s?(.*)$/.exec(line);
    if (!match) continue;
    const data = match[1]!.trim();
    if (data === '[DONE]') break;
    if (!data) continue;
    try {
      const event = JSON.parse(data) as { choices?: { delta?: { content?: unknown }; text?: unknown }[] };
      const piece = event.choices?.[0]?.delta?.content ?? event.choices?.[0]?.text;
      if (typeof piece === 'string') text += piece;
    } catch {
      throw new TargetAnswerError('The server streamed an event that is not JSON');
    }
  }
  return text;
}

/** A short description of a non-2xx answer, without echoing its body. */
function statusError(response: OutboundResponse): TargetAnswerError {
  return new TargetAnswerError(`The server answered HTTP ${response.status}`, response.status);
}

export function createOpenAiCompatibleClient(outbound: OutboundClient) {
  return {
    /** One chat completion (not streamed; a streamed answer is read too). */
    async chat(baseUrl: string, request: ChatRequest, field = 'baseUrl'): Promise<ChatAnswer> {
      const response = await outbound.request(openAiUrl(baseUrl, 'chat/completions'), {
        method: 'POST',
        field,
        headers: authorization(request.apiKey),
        signal: request.signal,
        timeoutMs: request.timeoutMs,
        maxBodyBytes: ANSWER_CAPS.chatBytes,
        json: {
          model: request.model,
          messages: [{ role: 'user', content: request.prompt }],
          temperature: request.temperature,
          ...(request.topP !== undefined ? { top_p: request.topP } : {}),
          ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
          ...(request.stop?.length ? { stop: request.stop } : {}),
          ...(request.seed !== undefined ? { seed: request.seed } : {}),
          stream: false,
        },
      });
      if (response.status < 200 || response.status >= 300) throw statusError(response);
      return { text: completionText(response.contentType, response.text), latencyMs: response.latencyMs };
    },

    /** The model names the server serves (`GET /v1/models`). */
    async models(baseUrl: string, apiKey?: string, options: CallOptions = {}): Promise<{ names: string[]; latencyMs: number }> {
      const response = await outbound.request(openAiUrl(baseUrl, 'models'), {
        method: 'GET',
        headers: authorization(apiKey),
        ...options,
        maxBodyBytes: ANSWER_CAPS.modelsBytes,
      });
      if (response.status < 200 || response.status >= 300) throw statusError(response);
      let parsed: unknown;
      try {
        parsed = JSON.parse(response.text);
      } catch {
        throw new TargetAnswerError('The model list is not JSON');
      }
      const data = (parsed as { data?: unknown })?.data ?? (parsed as { models?: unknown })?.models;
      if (!Array.isArray(data)) throw new TargetAnswerError('The model list has no data array');
      const names = data.flatMap((entry) => {
        const id =
          (entry as { id?: unknown; name?: unknown; model?: unknown })?.id ??
          (entry as { name?: unknown })?.name ??
          (entry as { model?: unknown })?.model;
        return typeof id === 'string' ? [id] : [];
      });
      return { names: names.slice(0, 200), latencyMs: response.latencyMs };
    },
  };
}

export type OpenAiCompatibleClient = ReturnType<typeof createOpenAiCompatibleClient>;
