import { BadRequest, Conflict, DatabaseUnavailable, type HttpError } from '../lib/errors.ts';
import { messages } from '../messages.ts';

/**
 * Postgres errors as the typed errors the API answers with, in one place. The error handler
 * translates whatever reaches it; a service whose caller must see the typed error in its
 * own flow (a form that shows "name taken" inline) rethrows through `rethrowDbError`.
 */

/** Unique indexes whose violation has a message of its own (any other is the generic conflict). */
const UNIQUE_MESSAGES: Readonly<Record<string, string>> = {
  setups_user_name_lower_unique: messages.setupNameTaken,
  // Two registrations of one slug at once: the loser of the race gets the same 409 as a later one.
  quality_suites_slug_unique: messages.qualitySlugTakenRace,
  quality_datasets_slug_unique: messages.qualityDatasetSlugTakenRace,
  users_username_lower_unique: messages.usernameTaken,
};

const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

interface DbErrorLike {
  code?: unknown;
  constraint?: unknown;
  name?: unknown;
  message?: unknown;
}

/** The database could not be reached, or dropped the connection: an outage, not a bad query. */
export function isConnectionFailure(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const dbError = error as DbErrorLike;
  const code = typeof dbError.code === 'string' ? dbError.code : '';
  // Class 08: connection exception; 57P01-03: the server is shutting down or starting; 53300: too many connections.
  if (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code) || NETWORK_ERRORS.has(code)) return true;
  if (dbError.name === 'KnexTimeoutError') return true;
  // Errors of the driver and of pg's pool (the session store's), which carry no code.
  return (
    typeof dbError.message === 'string' &&
    /Connection terminated|connection is closed|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
      dbError.message,
    )
  );
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
  if (isConnectionFailure(dbError)) return new DatabaseUnavailable(error);
  return undefined;
}

/** For a service's catch: throws the translated error, or the original one when there is none. */
export function rethrowDbError(error: unknown): never {
  throw translateDbError(error) ?? error;
}
