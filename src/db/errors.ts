import { BadRequest, Conflict, Unavailable, type HttpError } from '../lib/errors.ts';
import { messages } from '../messages.ts';

/**
 * Postgres errors as the typed errors the API answers with, in one place. The error handler
 * translates whatever reaches it; a service whose caller must see the typed error in its
 * own flow (a form that shows "name taken" inline) rethrows through `rethrowDbError`.
 */

/** Unique indexes whose violation has a message of its own (any other is the generic conflict). */
const UNIQUE_MESSAGES: Readonly<Record<string, string>> = {
  setups_user_name_lower_unique: messages.setupNameTaken,
  users_username_lower_unique: messages.usernameTaken,
};

/** Seconds a client should wait after a connection failure before retrying. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

interface DbErrorLike {
  code?: unknown;
  constraint?: unknown;
  name?: unknown;
  message?: unknown;
}

function isConnectionFailure(error: DbErrorLike): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  // Class 08: connection exception; 57P01-03: the server is shutting down or starting; 53300: too many connections.
  if (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code) || NETWORK_ERRORS.has(code)) return true;
  if (error.name === 'KnexTimeoutError') return true;
  return typeof error.message === 'string' && /Connection terminated|connection is closed|Client has encountered a connection error/i.test(error.message);
}

/** The typed error for a Postgres (or pool) failure, or undefined when it is not one we translate. */
export function translateDbError(error: unknown): HttpError | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const dbError = error as DbErrorLike;
  switch (dbError.code) {
    case '23505': // unique_violation
      return new Conflict((typeof dbError.constraint === 'string' && UNIQUE_MESSAGES[dbError.constraint]) || messages.conflict);
    case '22P02': // invalid_text_representation (e.g. a malformed uuid)
    case '22007': // invalid_datetime_format
    case '22008': // datetime_field_overflow
    case '22003': // numeric_value_out_of_range
      return new BadRequest(messages.invalidValue);
  }
  if (isConnectionFailure(dbError)) return new Unavailable(messages.databaseUnavailable, UNAVAILABLE_RETRY_AFTER_SECONDS);
  return undefined;
}

/** For a service's catch: throws the translated error, or the original one when there is none. */
export function rethrowDbError(error: unknown): never {
  throw translateDbError(error) ?? error;
}
