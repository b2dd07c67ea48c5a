import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Config } from '../config.ts';

/**
 * A generated document is built once, with a placeholder where its absolute URLs go, and
 * kept as JSON text. Each base URL it is served at gets a copy with the placeholder filled
 * in and a strong ETag (a hash of that text). With PUBLIC_URL set there is one base URL;
 * without it each origin the service is reached at gets its copy (a few are kept), and a
 * new one costs a string replacement, not a rebuild.
 */
export interface CachedDocument<T> {
  json: string;
  etag: string;
  /** The document as an object (parsed on first use). */
  readonly document: T;
}

const PLACEHOLDER = 'https://base-url.placeholder.invalid';
const MAX_BASE_URLS = 8;
// Host header values worth echoing back in absolute URLs: a name or address and a port.
const PLAIN_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** PUBLIC_URL when configured, else the request's own origin (trust proxy applies). */
export function baseUrlOf(req: Request, config: Config): string {
  if (config.publicUrlConfigured) return config.publicUrl;
  const host = req.get('host');
  return host && PLAIN_HOST.test(host) ? `${req.protocol}://${host}` : config.publicUrl;
}

/**
 * Who may keep an answer built on `baseUrlOf`: without PUBLIC_URL it names the request's Host,
 * so only the client may (a shared cache must never hand one client's Host to another).
 */
export const cacheScopeOf = (config: Config): 'public' | 'private' => (config.publicUrlConfigured ? 'public' : 'private');

/** A page built on `baseUrlOf`: private without PUBLIC_URL. (A signed-in answer is already private, no-store.) */
export function keepPrivateWithoutPublicUrl(res: Response, config: Config): void {
  if (cacheScopeOf(config) === 'private' && !res.get('Cache-Control')) res.set('Cache-Control', 'private');
}

export function documentCache<T>(build: (baseUrl: string) => T): (baseUrl: string) => CachedDocument<T> {
  let template: string | undefined;
  const copies = new Map<string, CachedDocument<T>>();
  return (baseUrl) => {
    let copy = copies.get(baseUrl);
    if (!copy) {
      template ??= JSON.stringify(build(PLACEHOLDER));
      // The base URL goes inside JSON strings: escape it like one.
      const json = template.split(PLACEHOLDER).join(JSON.stringify(baseUrl).slice(1, -1));
      let parsed: T | undefined;
      copy = {
        json,
        etag: `"${createHash('sha256').update(json).digest('base64url')}"`,
        get document() {
          return (parsed ??= JSON.parse(json) as T);
        },
      };
      if (copies.size >= MAX_BASE_URLS) copies.delete(copies.keys().next().value!);
      copies.set(baseUrl, copy);
    }
    return copy;
  };
}
