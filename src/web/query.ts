import type { Request, Response } from 'express';
import { isHtmxRequest } from '../middleware/request-kind.ts';

/** A GET form sends every field; an empty one means "not filtered". */
export function filledParams(query: Request['query']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([key, value]) => value !== '' && key !== 'format'));
}

/** The query string of the current filters, for links that keep them (pagination, export). */
export function queryString(params: Record<string, unknown>, overrides: Record<string, unknown> = {}): string {
  const merged = { ...params, ...overrides };
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(merged)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  return search.toString();
}

/**
 * GET forms send empty fields; the address people share should not carry them. Plain
 * requests are redirected to the clean URL (true when answered); htmx gets it as the URL
 * to push.
 */
export function cleanFilterUrl(req: Request, res: Response, params: Record<string, unknown>): boolean {
  if (Object.keys(req.query).length === Object.keys(params).length) return false;
  const clean = `${req.path}${Object.keys(params).length ? `?${queryString(params)}` : ''}`;
  if (isHtmxRequest(req)) {
    res.set('HX-Push-Url', clean);
    return false;
  }
  res.redirect(302, clean);
  return true;
}

/** Only same-site paths: an open redirect after sign-in (or any "back" link) would help phishing. */
export function safeNextPath(next: unknown, fallback = '/'): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : fallback;
}
