import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { projectRoot } from './lib/project-root.ts';
import { BytesByTicket } from './lib/byte-file.ts';
import express from 'express';
import helmet from 'helmet';
import { PREDICTION_LIMITS } from './services/predictions.service.ts';
import { createAppContext, type AppDepsInput } from './app-context.ts';
import { createExecutionWorkers } from './services/execution-worker.ts';
import { healthController } from './controllers/health.ts';
import { authenticate } from './middleware/authenticate.ts';
import { verifyCsrf } from './middleware/csrf.ts';
import { REPORT_IMAGE_FORM_PATH } from './controllers/web/reports.ts';
import { errorHandler, notFound } from './middleware/errors.ts';
import { anonymousWriteLimit, readLimits } from './middleware/read-limits.ts';
import { parseBodies } from './middleware/body-parsing.ts';
import { compress } from './middleware/compression.ts';
import { createStaticAssets, PLAIN_STATIC_MAX_AGE_SECONDS, publicAssetSources } from './web/assets.ts';
import { apiOperations } from './api/index.ts';
import { SUITE_FORM_PATHS, suiteFormUpload, uploadError } from './web/suite-form.ts';
import { imageFormUpload, LISTING_IMAGE_FORM_PATH } from './web/image-upload.ts';
import { sessions } from './middleware/session.ts';
import { isApiRequest } from './middleware/request-kind.ts';
import { readCache } from './middleware/read-cache.ts';
import { requestLogging } from './middleware/request-logging.ts';
import { clockMovedParameters } from './runs/facets.ts';
import { rejectUnstorableInput } from './middleware/validate.ts';
import { apiRoutes } from './routes/api.ts';
import { webRoutes } from './routes/web.ts';
import { reloadHardwareMappings } from './services/hardware-names.service.ts';
import { createViewEngine } from './web/views.ts';

const publicDirectory = path.join(projectRoot, 'public');
const htmxDirectory = path.dirname(createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js'));

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

/**
 * How often stored bytes that lost their use are deleted: images of removed listings past
 * their grace period (they stop being served at once), report images no report used within
 * a day of upload, and storage uploads never completed within 24 hours.
 */
const SWEEP_INTERVAL_MS = 10 * 60_000;

function startSweeps({ services, clock, logger, profile }: ReturnType<typeof createAppContext>): NodeJS.Timeout {
  const sweeps = [
    ...(profile.marketplace ? [{ what: 'images of removed listings', sweep: services.images.sweepRemoved }] : []),
    ...(profile.reports ? [{ what: 'report images no report used', sweep: services.images.sweepUnused }] : []),
    ...(profile.quality ? [{ what: 'storage uploads never completed', sweep: services.storage.sweepUnfinished }] : []),
  ];
  const timer = setInterval(() => {
    for (const { what, sweep } of sweeps) {
      sweep(clock.now()).then(
        (deleted) => deleted > 0 && logger.info({ deleted }, `Sweep: deleted ${what}`),
        (error: unknown) => logger.warn({ err: error }, `Sweep of ${what} failed; it runs again later`),
      );
    }
  }, SWEEP_INTERVAL_MS);
  timer.unref();
  return timer;
}

/** Calls of `rejudgeQueued` per tick at most: each takes a bounded batch of devices in its own transaction. */
const PEER_REJUDGE_CALLS_PER_TICK = 10;

/**
 * Re-judges, in the background, the runs whose peers changed: a run joined or left their
 * device's board. Reads never wait for it; the pages show the stored verdicts meanwhile.
 * Returns the timer and one pass (what a test calls instead of waiting).
 */
function startPeerRejudging({ services, logger }: ReturnType<typeof createAppContext>, intervalMs: number) {
  let running: Promise<number> | undefined;
  const pass = () =>
    (running ??= (async () => {
      let changed = 0;
      try {
        for (let call = 0; call < PEER_REJUDGE_CALLS_PER_TICK; call++) {
          const done = await services.plausibility.rejudgeQueued();
          changed += done.changed;
          if (done.devices === 0) break;
        }
      } finally {
        running = undefined;
      }
      return changed;
    })());
  // 0: this instance leaves the queue to the others (tests work it off through `pass`).
  const timer =
    intervalMs > 0
      ? setInterval(() => {
          pass().then(
            (changed) => changed > 0 && logger.info({ changed }, 'verdicts re-judged after their peers changed'),
            (error: unknown) => logger.warn({ err: error }, 're-judging runs whose peers changed failed; it is tried again'),
          );
        }, intervalMs)
      : undefined;
  timer?.unref();
  return { timer, pass };
}

/** Builds the Express app (never listens). `app.locals.close()` releases what it opened. */
export function createApp(input: AppDepsInput): express.Express {
  const context = createAppContext(input);
  const { config, logger, profile, services, databaseHealth } = context;
  const production = config.nodeEnv === 'production';
  const app = express();

  app.set('trust proxy', config.trustProxy);
  app.set('x-powered-by', false);
  // Express's fallback handler prints stack traces outside 'production'; ours never should.
  app.set('env', 'production');
  app.locals.eta = createViewEngine(production);
  app.locals.profile = profile;
  // Fingerprints from the files' content; during development an edited file gets a new one.
  const assets = createStaticAssets(
    [...publicAssetSources(publicDirectory), { path: '/vendor/htmx/htmx.min.js', file: path.join(htmxDirectory, 'htmx.min.js') }],
    { recheck: !production },
  );
  app.locals.assets = assets;

  app.use(requestLogging(logger, databaseHealth));
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

  // Before everything that answers: pages, JSON, CSV and static files all go out compressed.
  app.use(compress());
  // Pages link the fingerprinted addresses (kept a year); the plain ones are for anything linking by name.
  app.use('/static', assets.handler);
  const plainStatic = { maxAge: PLAIN_STATIC_MAX_AGE_SECONDS * 1000, index: false };
  // Each entry of public/ under its own address, so an API call or a page never costs a file lookup.
  for (const entry of readdirSync(publicDirectory, { withFileTypes: true })) {
    const file = path.join(publicDirectory, entry.name);
    if (entry.isDirectory()) app.use(`/${entry.name}`, express.static(file, plainStatic));
    // sendFile calls back when done too: only a failure before anything was sent goes on (to the error page).
    else
      app.get(`/${entry.name}`, (_req, res, next) =>
        res.sendFile(file, { maxAge: plainStatic.maxAge }, (error) => error && !res.headersSent && next(error)),
      );
  }
  app.use('/vendor/htmx', express.static(htmxDirectory, plainStatic));

  app.get('/healthz', healthController(context).show);
  // Before the session: a client over its budget costs no database work.
  for (const limiter of readLimits(config, logger)) app.use(limiter);
  /** Large anonymous answers kept as made (closed with the app). */
  let answerFile: BytesByTicket | null = null;
  // Before the session too: an anonymous read answered from memory needs none of what follows.
  if (context.readIndexKeeper) {
    const paths = new Set(['/', ...apiOperations(profile).flatMap((op) => (op.method === 'get' && op.followsReadIndex ? [op.path] : []))]);
    const clockMoved = clockMovedParameters();
    const { answerCacheBytes, answerFileBytes, documentDirectory } = config.readIndex;
    answerFile = answerFileBytes > 0 ? new BytesByTicket(answerFileBytes, documentDirectory) : null;
    app.use(
      readCache({
        readIndex: context.readIndexKeeper,
        paths,
        clockMoved,
        clock: context.clock,
        maxBytes: answerCacheBytes,
        answerFile,
      }),
    );
  }

  const { middleware: session, close: closeSessions } = sessions(context);
  const workers = createExecutionWorkers({ ...context, hubMode: config.hubMode, qualityRuns: context.services.qualityRuns });
  if (profile.quality && config.execute.workers > 0) workers.start(config.execute.workers);
  if (production && config.execute.allowHosts.length > 0) {
    logger.warn(
      { allowHosts: config.execute.allowHosts },
      'EXECUTE_ALLOW_HOSTS is set: executions may reach these hosts even on private addresses',
    );
  }
  context.readIndexKeeper?.start();
  // The keeper loads the hardware name mappings with each build; without one, once here.
  if (!context.readIndexKeeper)
    reloadHardwareMappings(context.db).catch((error: unknown) => logger.warn({ err: error }, 'hardware name mappings not loaded'));
  const sweeps = profile.marketplace || profile.reports || profile.quality ? startSweeps(context) : undefined;
  const peerRejudging = startPeerRejudging(context, config.peerRejudgeIntervalMs);
  /** One pass over the queue of devices whose runs' peers changed; resolves to the verdicts changed. */
  app.locals.rejudgePeers = peerRejudging.pass;
  // Predictions follow new runs (scored against earlier predictions, learned from) once asked for.
  const predictionRefresh = setInterval(
    () =>
      void services.predictions
        .refreshIfLoaded()
        .catch((error: unknown) => logger.warn({ err: error }, 'Prediction refresh failed; it runs again later')),
    PREDICTION_LIMITS.REFRESH_MS,
  );
  predictionRefresh.unref();
  let closing: Promise<void> | undefined;
  app.locals.close = () =>
    (closing ??= (async () => {
      // Running executions go back to the queue before the database goes.
      clearInterval(sweeps);
      clearInterval(peerRejudging.timer);
      clearInterval(predictionRefresh);
      await workers.stop();
      await context.readIndexKeeper?.close();
      answerFile?.close();
      if (context.ownsOutbound) await context.outbound.close();
      closeSessions();
      databaseHealth.close();
    })());
  // An API request without a cookie has no session to read, and the API never starts one:
  // express-session would draw a random id and build an empty session for every such call.
  app.use((req, res, next) => (req.headers.cookie === undefined && isApiRequest(req) ? next() : session(req, res, next)));

  // Who is asking comes first: bodies are read only for requests the route would serve (src/middleware/body-parsing.ts),
  // and anonymous writes have a per-address budget before any of that.
  app.use(authenticate(services));
  for (const limiter of anonymousWriteLimit(config, logger)) app.use(limiter);
  app.use(parseBodies(apiOperations(profile), context));
  app.use(rejectUnstorableInput);
  // The suite forms may upload a file: parsed before the CSRF check reads their `_csrf` field, and only for
  // signed-in users (the pages need one; nobody else gets to make the server buffer a file).
  if (profile.quality) {
    app.use(SUITE_FORM_PATHS, (req, res, next) => {
      if (!req.actor) return next();
      suiteFormUpload(req, res, (error?: unknown) => next(error ? uploadError(error) : undefined));
    });
  }
  // The listing page's photo form and the report editor's image upload are multipart: parsed the same way
  // (signed-in users only), before the CSRF check reads their `_csrf` field.
  if (profile.marketplace) app.use(LISTING_IMAGE_FORM_PATH, imageFormUpload);
  if (profile.reports) app.use(REPORT_IMAGE_FORM_PATH, imageFormUpload);
  app.use(privateWhenSignedIn);
  app.use(verifyCsrf);

  app.use('/api', apiRoutes(context));
  app.use(webRoutes(context));
  app.use(notFound);
  app.use(errorHandler(context));
  return app;
}
