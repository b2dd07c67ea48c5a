import connectPgSimple from 'connect-pg-simple';
import type { RequestHandler } from 'express';
import session from 'express-session';
import type { AppContext } from '../app-context.ts';
import { isConnectionFailure } from '../db/errors.ts';
import { ACQUIRE_CONNECTION_TIMEOUT_MS } from '../db/knex.ts';

const SESSION_COOKIE = 'bh.sid';
const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60_000;

export interface Sessions {
  middleware: RequestHandler;
  /** Ends the store's pool. */
  close(): void;
}

/**
 * Browser sessions, stored in Postgres by connect-pg-simple through a small pool of its own.
 * A failure to load the session goes to the error handler like any other (a 503 page during
 * an outage); the store's other complaints go to the log, an outage's to the database health.
 */
export function sessions({
  config,
  databaseUrl,
  databaseHealth,
  logger,
}: Pick<AppContext, 'config' | 'databaseUrl' | 'databaseHealth' | 'logger'>): Sessions {
  const PgSessionStore = connectPgSimple(session);
  const store = new PgSessionStore({
    // Bounded like the app's pool, so a session lookup cannot hang on an unreachable database.
    conObject: { connectionString: databaseUrl, connectionTimeoutMillis: ACQUIRE_CONNECTION_TIMEOUT_MS },
    tableName: 'sessions',
    createTableIfMissing: false,
    // Expired rows are removed by the store; tests build many apps, so they turn it off.
    pruneSessionInterval: config.nodeEnv === 'test' ? false : 15 * 60,
    // Called as (description, error), e.g. by its pool for each idle connection an outage cuts.
    errorLog: (description: unknown, error: unknown) => {
      if (isConnectionFailure(error)) databaseHealth.failed(error);
      else logger.error({ err: error }, `session store: ${String(description)}`);
    },
  });
  const handleSession = session({
    name: SESSION_COOKIE,
    secret: config.sessionSecret,
    store,
    resave: false,
    saveUninitialized: false,
    rolling: true,
    cookie: { httpOnly: true, sameSite: 'lax', secure: config.nodeEnv === 'production', maxAge: SESSION_LIFETIME_MS },
  });

  const middleware: RequestHandler = (req, res, next) => {
    let handedOn = false;
    handleSession(req, res, (error?: unknown) => {
      if (!handedOn) {
        handedOn = true;
        return next(error);
      }
      // express-session saves or touches the session as the response ends and reports a
      // failure by calling `next` again, after the request has left the middleware chain:
      // Express would print the stack and cut the response. An outage is logged once by the
      // database health and the response goes out whole (only the session's update is lost).
      if (isConnectionFailure(error)) databaseHealth.failed(error);
      else next(error);
    });
  };
  return { middleware, close: () => store.close() };
}
