import express, { type Request, type RequestHandler } from 'express';
import type { ApiOperation } from '../api/operation.ts';
import type { AppContext } from '../app-context.ts';
import { PayloadTooLarge } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import { refuseDeepJson } from './validate.ts';

/**
 * Which request bodies are read at all, and how much of them. Mounted after authentication,
 * so a body is buffered and parsed only for someone the route would serve:
 *
 * - API: only a declared operation with a JSON body, with that operation's limit, and for an
 *   operation that needs credentials only when some were given (without, its 401 is answered
 *   unread; an unknown path's 404 likewise), and for a raw upload only when its capability
 *   admits it (a storage PUT's signature). Image uploads are parsed by their own routes.
 * - Pages: forms (and JSON) up to 1 MB for a signed-in user, 64 KB for anyone else (the
 *   anonymous forms, sign-in and sign-up, are a few hundred bytes).
 *
 * A declared `Content-Length` over the limit is a 413 before a byte is read (checked here:
 * body-parser reads the whole body before it answers its own 413); a body left unread is
 * discarded by Node as the answer ends.
 */

interface BodyLimit {
  bytes: number;
  /** As the 413 says it: `16 MB`. */
  label: string;
}

const MB = 1024 * 1024;
/** The limit of pages for signed-in users, and of API operations that declare none. */
const DEFAULT_BODY_LIMIT: BodyLimit = { bytes: MB, label: '1 MB' };
/** The pages' limit for everyone else. */
export const ANONYMOUS_BODY_LIMIT: BodyLimit = { bytes: 64 * 1024, label: '64 KB' };

/** A declared limit (`'16 MB'`) in bytes. */
const declaredLimit = (label: `${number} MB`): BodyLimit => ({ bytes: Number.parseFloat(label) * MB, label });

/** The parsers of one limit, refusing a declared length over it before reading. */
function parsersOf(limit: BodyLimit, kinds: ('json' | 'form' | 'raw')[]): RequestHandler {
  const parsers: RequestHandler[] = kinds.map((kind) =>
    kind === 'json'
      ? express.json({ limit: limit.bytes, verify: refuseDeepJson })
      : kind === 'raw'
        ? // A raw body (a storage upload) is bytes of any type, never parsed.
          express.raw({ type: () => true, limit: limit.bytes })
        : express.urlencoded({ extended: false, limit: limit.bytes }),
  );
  return (req, res, next) => {
    const declared = Number(req.get('content-length'));
    if (declared > limit.bytes) throw new PayloadTooLarge(messages.payloadTooLargeOf(limit.label));
    const run = (index: number) => (error?: unknown) => {
      if (error || index === parsers.length) return next(error);
      parsers[index]!(req, res, run(index + 1));
    };
    run(0)();
  };
}

/** `/api/setups/:id` as a pattern of whole paths (declarations use plain segments and `:name`). */
function pathPattern(path: string): RegExp {
  const escaped = path.replace(/[.+*?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

/** The parser of each declared operation that takes a JSON (or raw) body, found by method and path. */
function operationParsers(operations: readonly ApiOperation[]) {
  const byLimit = new Map<string, RequestHandler>();
  const entries = operations
    .filter((op) => (op.body || op.rawBody) && !op.upload)
    .map((op) => {
      const kind = op.rawBody ? 'raw' : 'json';
      const limit = op.rawBody
        ? { bytes: op.rawBody.maxBytes, label: `${Math.round(op.rawBody.maxBytes / MB)} MB` }
        : op.bodyLimit
          ? declaredLimit(op.bodyLimit)
          : DEFAULT_BODY_LIMIT;
      const key = `${kind} ${limit.label}`;
      if (!byLimit.has(key)) byLimit.set(key, parsersOf(limit, [kind]));
      return {
        method: op.method.toUpperCase(),
        pattern: pathPattern(op.path),
        auth: op.auth,
        admits: op.rawBody?.admits,
        parse: byLimit.get(key)!,
      };
    });
  return (req: Request) => entries.find((entry) => entry.method === req.method && entry.pattern.test(req.path));
}

const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/');

/** The body parsing of the app (see above); `operations` are the deployment's API operations. */
export function parseBodies(operations: readonly ApiOperation[], app: AppContext): RequestHandler {
  const findOperation = operationParsers(operations);
  const pages = parsersOf(DEFAULT_BODY_LIMIT, ['json', 'form']);
  const anonymousPages = parsersOf(ANONYMOUS_BODY_LIMIT, ['json', 'form']);
  return (req, res, next) => {
    if (!isApiPath(req.path)) return (req.actor ? pages : anonymousPages)(req, res, next);
    const op = findOperation(req);
    if (!op || (op.auth !== 'public' && !req.actor) || (op.admits && !op.admits(req, app))) return next();
    op.parse(req, res, next);
  };
}
