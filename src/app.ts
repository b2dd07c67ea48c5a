import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import connectPgSimple from 'connect-pg-simple';
import express from 'express';
import session from 'express-session';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import { createAppContext, type AppDepsInput } from './app-context.ts';
import { healthController } from './controllers/health.ts';
import { authenticate } from './middleware/authenticate.ts';
import { verifyCsrf } from './middleware/csrf.ts';
import { errorHandler, notFound } from './middleware/errors.ts';
import { readLimits } from './middleware/read-limits.ts';
import { refuseDeepJson, rejectUnstorableInput } from './middleware/validate.ts';
import { apiRoutes } from './routes/api.ts';
import { webRoutes } from './routes/web.ts';
import { createViewEngine } from './web/views.ts';

const SESSION_COOKIE = 'bh.sid';
const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60_000;
const publicDirectory = fileURLToPath(new URL('../public', import.meta.url));
const htmxDirectory = path.dirname(createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js'));

/** Id from a trusted-looking incoming X-Request-Id, else a new one; echoed in the response. */
function requestId(req: express.Request, res: express.Response): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

// No page needs these powerful features; saying so keeps an injected frame or script from asking.
const PERMISSIONS_POLICY = 'camera=(), microphone=(), geolocation=(), payment=(), usb=()';

const permissionsPolicy: express.RequestHandler = (_req, res, next) => {
  res.setHeader('Permissions-Policy', PERMISSIONS_POLICY);
  next();
};

/**
 * An answer to a signed-in request (session or key) may carry who they are, their keys or
 * their reactions: no cache may keep it. A handler whose answer is the same for everyone
 * (the agent documents) sets its own Cache-Control over this.
 */
const privateWhenSignedIn: express.RequestHandler = (req, res, next) => {
  if (req.actor) res.setHeader('Cache-Control', 'private, no-store');
  next();
};

/** Builds the Express app (never listens). `app.locals.close()` releases what it opened. */
export function createApp(input: AppDepsInput): express.Express {
  const context = createAppContext(input);
  const { config, logger, profile, services } = context;
  const production = config.nodeEnv === 'production';
  const app = express();

  app.set('trust proxy', config.trustProxy);
  app.set('x-powered-by', false);
  // Express's fallback handler prints stack traces outside 'production'; ours never should.
  app.set('env', 'production');
  app.locals.eta = createViewEngine(production);
  app.locals.profile = profile;

  app.use(pinoHttp({ logger, genReqId: requestId, customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info') }));
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'"],
          connectSrc: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          ...(production ? { upgradeInsecureRequests: [] } : {}),
        },
      },
      strictTransportSecurity: production,
      // The CSP's frame-ancestors 'none' forbids every frame; the legacy header must say the same.
      xFrameOptions: { action: 'deny' },
    }),
  );
  app.use(permissionsPolicy);

  app.use(express.static(publicDirectory, { maxAge: production ? '1h' : 0, index: false }));
  app.use('/vendor/htmx', express.static(htmxDirectory, { maxAge: production ? '1d' : 0, index: false }));

  app.get('/healthz', healthController(context).show);
  // Before the session: a client over its budget costs no database work.
  for (const limiter of readLimits(config, logger)) app.use(limiter);

  const PgSessionStore = connectPgSimple(session);
  const sessionStore = new PgSessionStore({
    conString: context.databaseUrl,
    tableName: 'sessions',
    createTableIfMissing: false,
    // Expired rows are removed by the store; tests build many apps, so they turn it off.
    pruneSessionInterval: config.nodeEnv === 'test' ? false : 15 * 60,
    errorLog: (...args: unknown[]) => logger.error({ args }, 'session store error'),
  });
  app.locals.close = async () => {
    sessionStore.close();
  };
  app.use(
    session({
      name: SESSION_COOKIE,
      secret: config.sessionSecret,
      store: sessionStore,
      resave: false,
      saveUninitialized: false,
      rolling: true,
      cookie: { httpOnly: true, sameSite: 'lax', secure: production, maxAge: SESSION_LIFETIME_MS },
    }),
  );

  app.use(express.json({ limit: '1mb', verify: refuseDeepJson }));
  app.use(express.urlencoded({ extended: false, limit: '1mb' }));
  app.use(rejectUnstorableInput);
  app.use(authenticate(services));
  app.use(privateWhenSignedIn);
  app.use(verifyCsrf);

  app.use('/api', apiRoutes(context));
  app.use(webRoutes(context));
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
