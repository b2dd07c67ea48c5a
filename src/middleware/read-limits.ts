import type { Request, RequestHandler } from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { RateLimited } from '../lib/errors.ts';
import { messages } from '../messages.ts';

/**
 * Per-address limits on reads, so one client cannot take the service from everyone else.
 * Generous by design: a person browsing never meets them (a page is one request; assets
 * are served before this). Exports stream every matching run, so they have a tighter budget
 * of their own. Counters live in this process (express-rate-limit's memory store): with N
 * instances behind a balancer an address may make up to N times the limit, which is fine
 * for a guard against floods; a shared store can be plugged in if that ever matters.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

const isRead = (req: Request) => req.method === 'GET' || req.method === 'HEAD';
const isAnonymousWrite = (req: Request) => !req.actor && !isRead(req) && req.method !== 'OPTIONS';

/** A CSV or JSON Lines export (leaderboard and run list, API and pages), by its `format`. */
export function isExportRequest(req: Request): boolean {
  const format = req.query.format;
  return isRead(req) && (format === 'csv' || format === 'jsonl');
}

function limiter(
  logger: Logger,
  options: { name: string; limit: number; windowMs: number; applies: (req: Request) => boolean; message: (retryAfterMs: number) => string },
): RequestHandler {
  const settings: Partial<Options> = {
    limit: options.limit,
    windowMs: options.windowMs,
    // The IETF draft's `RateLimit` and `RateLimit-Policy` headers; not the older X-RateLimit-*.
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: options.name,
    skip: (req) => !options.applies(req),
    logger: { warn: (message) => logger.warn(message), error: (message) => logger.error(message) },
    handler(req, _res, next) {
      const resetAt = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const retryAfterMs = Math.max(1000, (resetAt?.getTime() ?? Date.now() + options.windowMs) - Date.now());
      next(new RateLimited(options.message(retryAfterMs), retryAfterMs, { retryAfterMs }));
    },
  };
  return rateLimit(settings);
}

/** The read and export limiters a deployment configured; a limit of 0 is no limiter. */
export function readLimits(config: Pick<Config, 'readLimits'>, logger: Logger): RequestHandler[] {
  const { perMinute, exportsPerHour } = config.readLimits;
  return [
    ...(perMinute > 0
      ? [
          limiter(logger, {
            name: 'reads',
            limit: perMinute,
            windowMs: MINUTE_MS,
            applies: isRead,
            message: (ms) => messages.tooManyReads(Math.ceil(ms / 1000)),
          }),
        ]
      : []),
    ...(exportsPerHour > 0
      ? [
          limiter(logger, {
            name: 'exports',
            limit: exportsPerHour,
            windowMs: HOUR_MS,
            applies: isExportRequest,
            message: (ms) => messages.tooManyExports(Math.ceil(ms / MINUTE_MS)),
          }),
        ]
      : []),
  ];
}

/**
 * Writes without credentials (sign-in and sign-up forms, and anything answered 401 or 404):
 * their own per-address budget, so a flood of anonymous bodies costs one counter each and no
 * parsing past it (mounted after authentication, before the body parsers). The account
 * limits of sign-in and sign-up (in Postgres) still apply beneath it.
 */
export function anonymousWriteLimit(config: Pick<Config, 'anonymousWritesPerMinute'>, logger: Logger): RequestHandler[] {
  if (config.anonymousWritesPerMinute <= 0) return [];
  return [
    limiter(logger, {
      name: 'anonymous-writes',
      limit: config.anonymousWritesPerMinute,
      windowMs: MINUTE_MS,
      applies: isAnonymousWrite,
      message: (ms) => messages.tooManyAnonymousWrites(Math.ceil(ms / 1000)),
    }),
  ];
}
