import { randomUUID } from 'node:crypto';
import type express from 'express';
import { pinoHttp } from 'pino-http';
import type { DatabaseHealth } from '../db/health.ts';
import type { Logger } from '../logger.ts';

/** Id from a trusted-looking incoming X-Request-Id, else a new one; echoed in the response. */
function requestId(req: express.Request, res: express.Response): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

/**
 * How pino-http logs a finished request. A 503 is an expected answer (the database or the hub
 * is unavailable): a warning, without the error pino-http makes up for any status >= 500
 * ("failed with status code 503") and its stack. During a database outage the 503s are only
 * counted: the outage's start and end lines (src/db/health.ts) say it all.
 */
function requestLogLevel(databaseHealth: DatabaseHealth) {
  return (_req: unknown, res: { statusCode: number }, error?: Error) => {
    if (error) return 'error';
    if (res.statusCode === 503) return databaseHealth.countedAsOutage() ? 'silent' : 'warn';
    return res.statusCode >= 500 ? 'error' : 'info';
  };
}

/** See requestLogLevel: a 503's log line keeps no made-up error. */
function withoutMadeUpError(_req: unknown, res: { statusCode: number; err?: unknown }, _error: Error, fields: Record<string, unknown>) {
  if (res.statusCode !== 503 || res.err) return fields;
  const { err: _madeUp, ...rest } = fields;
  return rest;
}

/**
 * Every request gets its id (`req.id`, the X-Request-Id header) and `req.log`; with a logger
 * that writes, pino-http logs it when it finishes. A silent logger writes nothing, yet
 * pino-http would still serialise each request (headers, redaction) into a child logger's
 * bindings as it arrives: 7% of the app's thread on the leaderboard mix in `npm run bench`,
 * and garbage that outlived the request. So a silent logger gets the id and the logger alone.
 */
export function requestLogging(logger: Logger, databaseHealth: DatabaseHealth): express.RequestHandler {
  if (logger.level === 'silent')
    return (req, res, next) => {
      req.id = requestId(req, res);
      req.log = logger;
      next();
    };
  return pinoHttp({ logger, genReqId: requestId, customLogLevel: requestLogLevel(databaseHealth), customErrorObject: withoutMadeUpError });
}
