import { messages } from '../messages.ts';

/**
 * Typed errors thrown by services and middleware. The one error handler turns them into
 * the contract's JSON bodies under /api and into pages or fragments elsewhere.
 */
export interface ValidationDetails {
  fieldErrors: Record<string, string[]>;
  formErrors: string[];
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra top-level fields of the JSON body, next to `error`. */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  toJSON(): Record<string, unknown> {
    return { error: this.message, ...this.extra };
  }
}

export class BadRequest extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}

export class ValidationFailed extends HttpError {
  constructor(readonly details: ValidationDetails) {
    super(400, 'Validation failed', { details });
  }
}

export class Unauthorized extends HttpError {
  constructor(message: string = messages.authenticationRequired) {
    super(401, message);
  }
}

export class Forbidden extends HttpError {
  constructor(message = 'Forbidden') {
    super(403, message);
  }
}

export class NotFound extends HttpError {
  constructor(message: string = messages.notFound) {
    super(404, message);
  }
}

export class Conflict extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLarge extends HttpError {
  constructor(message: string = messages.payloadTooLarge) {
    super(413, message);
  }
}

export class RateLimited extends HttpError {
  constructor(message: string, retryAfterMs: number, extra: Record<string, unknown> = {}) {
    super(429, message, extra, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) });
  }
}

export class Unavailable extends HttpError {
  constructor(message: string, retryAfterSeconds?: number) {
    super(503, message, {}, retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {});
  }
}

/** Seconds a client should wait after a database outage answer before retrying. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The database could not be reached: a 503 with Retry-After. Its own class so the error
 * handler can tell an outage (logged once, a friendly page) from other 503s such as the hub's.
 */
export class DatabaseUnavailable extends Unavailable {
  constructor(readonly cause: unknown) {
    super(messages.databaseUnavailable, DATABASE_RETRY_AFTER_SECONDS);
  }
}
