/**
 * One streamed completion, timed: when it was sent, when the first and last generated
 * token arrived, how many content events carried them, the server's token counts and any
 * engine-side timings (llama.cpp `timings`, Ollama's `eval_count` / `eval_duration`).
 * OpenAI-compatible servers are asked for `stream_options.include_usage` (and `ignore_eos`,
 * so the output runs to max tokens); a server that refuses those (HTTP 400) is asked again
 * without them, once, and never again.
 */
import { performance } from 'node:perf_hooks';
import { openAiUrl } from '../../clients/openai-compatible.ts';
import { CliError, EXIT, errorExcerpt, measurementFailed, networkReason, serverUnavailable } from './errors.ts';

export type ApiKind = 'openai' | 'ollama';

export interface Target {
  /** The engine's address, without `/v1`. */
  baseUrl: string;
  api: ApiKind;
  model: string;
  /** The engine's own bearer key, when it needs one (not the leaderboard's). */
  apiKey?: string;
  timeoutMs: number;
}

export interface EngineTimings {
  source: 'llama.cpp timings' | 'Ollama eval counts';
  promptTokens?: number;
  promptMs?: number;
  decodeTokens: number;
  decodeMs: number;
  /** The engine's own object as it sent it (llama.cpp `timings`; Ollama's counts and durations), submitted as evidence. */
  raw: Record<string, unknown>;
}

/** The keys of Ollama's final event that are its timings and counts. */
export const OLLAMA_TIMING_KEYS = [
  'total_duration',
  'load_duration',
  'prompt_eval_count',
  'prompt_eval_duration',
  'eval_count',
  'eval_duration',
  'done_reason',
] as const;

export interface StreamSample {
  /** performance.now() readings, in ms. */
  startedAt: number;
  firstTokenAt: number;
  lastTokenAt: number;
  endedAt: number;
  /** Events that carried generated text. */
  contentEvents: number;
  /** Server-counted tokens (usage, or Ollama's counts), when it sent them. */
  promptTokens?: number;
  completionTokens?: number;
  /** Prompt tokens the server says came from its cache (`usage.prompt_tokens_details.cached_tokens`). */
  cachedTokens?: number;
  engine?: EngineTimings;
  /** The generated text as streamed (hashed as evidence, never submitted whole). */
  output: string;
}

interface Event {
  text: string;
  promptTokens?: number;
  completionTokens?: number;
  cachedTokens?: number;
  engine?: EngineTimings;
  error?: string;
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** What one OpenAI-compatible SSE event says. */
export function readOpenAiEvent(event: Record<string, any>): Event {
  if (event.error) return { text: '', error: errorExcerpt(JSON.stringify(event)) };
  const delta = event.choices?.[0]?.delta ?? {};
  const piece = [delta.content, delta.reasoning_content, delta.reasoning, event.choices?.[0]?.text]
    .filter((part) => typeof part === 'string')
    .join('');
  const timings = event.timings;
  const engine: EngineTimings | undefined =
    timings && num(timings.predicted_n) !== undefined && num(timings.predicted_ms) !== undefined
      ? {
          source: 'llama.cpp timings',
          promptTokens: num(timings.prompt_n),
          promptMs: num(timings.prompt_ms),
          decodeTokens: timings.predicted_n,
          decodeMs: timings.predicted_ms,
          raw: { ...timings },
        }
      : undefined;
  return {
    text: piece,
    promptTokens: num(event.usage?.prompt_tokens),
    completionTokens: num(event.usage?.completion_tokens),
    cachedTokens: num(event.usage?.prompt_tokens_details?.cached_tokens),
    engine,
  };
}

/** What one line of Ollama's native NDJSON stream says (durations are nanoseconds). */
export function readOllamaEvent(event: Record<string, any>): Event {
  if (event.error) return { text: '', error: errorExcerpt(JSON.stringify(event)) };
  const text = [event.message?.content, event.message?.thinking, event.response].filter((part) => typeof part === 'string').join('');
  if (!event.done) return { text };
  const evalCount = num(event.eval_count);
  const evalDuration = num(event.eval_duration);
  return {
    text,
    promptTokens: num(event.prompt_eval_count),
    completionTokens: evalCount,
    engine:
      evalCount !== undefined && evalDuration !== undefined
        ? {
            source: 'Ollama eval counts',
            promptTokens: num(event.prompt_eval_count),
            promptMs: num(event.prompt_eval_duration) !== undefined ? event.prompt_eval_duration / 1e6 : undefined,
            decodeTokens: evalCount,
            decodeMs: evalDuration / 1e6,
            raw: Object.fromEntries(OLLAMA_TIMING_KEYS.filter((key) => event[key] !== undefined).map((key) => [key, event[key]])),
          }
        : undefined,
  };
}

/** Splits a byte stream into lines as they arrive. */
async function* lines(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      yield buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
    }
  }
  buffered += decoder.decode();
  if (buffered) yield buffered;
}

export interface Streamer {
  run(prompt: string, maxTokens: number): Promise<StreamSample>;
  /** True once the server refused stream_options / ignore_eos and is asked without them. */
  readonly extrasRefused: boolean;
}

export function createStreamer(target: Target): Streamer {
  let extrasRefused = false;

  const request = (prompt: string, maxTokens: number) => {
    const messages = [{ role: 'user', content: prompt }];
    if (target.api === 'ollama') {
      return {
        url: `${target.baseUrl}/api/chat`,
        body: { model: target.model, messages, stream: true, options: { num_predict: maxTokens, temperature: 0 } },
      };
    }
    const extras = extrasRefused ? {} : { stream_options: { include_usage: true }, ignore_eos: true };
    return {
      url: openAiUrl(target.baseUrl, 'chat/completions'),
      body: { model: target.model, messages, max_tokens: maxTokens, temperature: 0, stream: true, ...extras },
    };
  };

  async function send(prompt: string, maxTokens: number): Promise<{ response: Response; startedAt: number }> {
    const { url, body } = request(prompt, maxTokens);
    const startedAt = performance.now();
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(target.timeoutMs),
      });
      return { response, startedAt };
    } catch (error) {
      throw serverUnavailable(`Cannot reach the engine at ${target.baseUrl} (${networkReason(error)}): is it running? Check --base-url.`);
    }
  }

  async function run(prompt: string, maxTokens: number): Promise<StreamSample> {
    let { response, startedAt } = await send(prompt, maxTokens);
    if (response.status === 400 && target.api === 'openai' && !extrasRefused) {
      // Servers that reject stream_options or ignore_eos: ask plainly (counts then come from usage if sent, else from events).
      await response.body?.cancel();
      extrasRefused = true;
      ({ response, startedAt } = await send(prompt, maxTokens));
    }
    if (!response.ok) {
      const excerpt = errorExcerpt(await response.text());
      if (response.status === 404 && /model/i.test(excerpt))
        throw measurementFailed(`The engine does not serve model "${target.model}" (${excerpt}): pass --model with a served name.`);
      if (response.status === 401 || response.status === 403)
        throw measurementFailed(`The engine refused the request (HTTP ${response.status}): pass its key with --engine-key.`);
      const exit = response.status >= 500 ? EXIT.serverUnavailable : EXIT.measurementFailed;
      throw new CliError(exit, `The engine answered HTTP ${response.status} to a completion (${excerpt || 'no message'}).`);
    }
    const contentType = response.headers.get('content-type') ?? '';
    const streamed = target.api === 'ollama' ? /ndjson|json/.test(contentType) : /event-stream/.test(contentType);
    if (!streamed || !response.body) {
      await response.body?.cancel();
      throw measurementFailed(
        `The engine at ${target.baseUrl} did not stream (content-type "${contentType || 'none'}"): it needs to support "stream": true; check --base-url and --api.`,
      );
    }

    const sample: StreamSample = { startedAt, firstTokenAt: NaN, lastTokenAt: NaN, endedAt: NaN, contentEvents: 0, output: '' };
    const read = target.api === 'ollama' ? readOllamaEvent : readOpenAiEvent;
    try {
      for await (const line of lines(response.body)) {
        const at = performance.now();
        const data = target.api === 'ollama' ? line.trim() : /^data:\s?(.*)$/.exec(line)?.[1]?.trim();
        if (!data) continue;
        if (data === '[DONE]') break;
        let event: Event;
        try {
          event = read(JSON.parse(data));
        } catch {
          throw measurementFailed(
            `The engine streamed something that is not JSON ("${data.slice(0, 60)}"): is --api right (openai or ollama)?`,
          );
        }
        if (event.error) throw measurementFailed(`The engine reported an error mid-stream: ${event.error}`);
        if (event.text) {
          if (!sample.contentEvents) sample.firstTokenAt = at;
          sample.lastTokenAt = at;
          sample.contentEvents += 1;
          sample.output += event.text;
        }
        sample.promptTokens = event.promptTokens ?? sample.promptTokens;
        sample.completionTokens = event.completionTokens ?? sample.completionTokens;
        sample.cachedTokens = event.cachedTokens ?? sample.cachedTokens;
        sample.engine = event.engine ?? sample.engine;
      }
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw serverUnavailable(`The engine's stream broke off (${networkReason(error)}).`);
    }
    sample.endedAt = performance.now();
    if (!sample.contentEvents || sample.completionTokens === 0) {
      throw measurementFailed(
        `The engine streamed no output tokens for model "${target.model}": check that the model is loaded and answers, and that --max-tokens is above 0.`,
      );
    }
    return sample;
  }

  return {
    run,
    get extrasRefused() {
      return extrasRefused;
    },
  };
}
