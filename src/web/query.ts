import type { Request, Response } from 'express';
import { isHtmxRequest } from '../middleware/request-kind.ts';

/**
 * A GET form sends every field; an empty one means "not filtered". A name sent twice with
 * one of them empty (a submit button that sets a filter its select left empty) keeps the filled one.
 */
export function filledParams(query: Request['query']): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query).flatMap(([key, value]) => {
      if (key === 'format' || value === '') return [];
      if (!Array.isArray(value) || !value.includes('')) return [[key, value]];
      const filled = value.filter((item) => item !== '');
      return filled.length === 0 ? [] : [[key, filled.length === 1 ? filled[0] : filled]];
    }),
  );
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
  if (Object.entries(req.query).every(([key, value]) => params[key] === value)) return false;
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
