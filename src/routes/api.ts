import { Router } from 'express';
import { apiDocsController } from '../controllers/api/docs.ts';
import { apiKeysController } from '../controllers/api/keys.ts';
import { leaderboardController } from '../controllers/api/leaderboard.ts';
import { meController } from '../controllers/api/me.ts';
import { modelsController } from '../controllers/api/models.ts';
import { reactionsController } from '../controllers/api/reactions.ts';
import { setupsController } from '../controllers/api/setups.ts';
import { deprecatedAlias, speedTestsController } from '../controllers/api/speed-tests.ts';
import { requireAuth } from '../middleware/require-auth.ts';
import { validate } from '../middleware/validate.ts';
import { notFound } from '../middleware/errors.ts';
import { apiDocuments } from '../openapi/documents.ts';
import { createApiKeySchema } from '../schemas/api-key.schema.ts';
import { reactionSchema } from '../schemas/reaction.schema.ts';
import { setupSchemas } from '../schemas/setup.schema.ts';
import type { AppDeps } from '../app.ts';

/** Everything under /api. Unknown paths end in the JSON 404. */
export function apiRoutes({ db, profile, hub, clock, config }: AppDeps): Router {
  const router = Router();
  const keys = apiKeysController(db);
  const speedTests = speedTestsController({ db, profile, hub, clock, hubMode: config.hubMode });
  // Paths below are relative to /api.
  const resultsPath = profile.resultsPath.replace(/^\/api/, '');

  router.get('/me', requireAuth('key|session'), meController().show);

  router.get('/keys', requireAuth('session'), keys.list);
  router.post('/keys', requireAuth('session'), validate({ body: createApiKeySchema }), keys.create);
  router.delete('/keys/:id', requireAuth('session'), keys.revoke);

  // Saved setups: session only, and a Bearer key here is a 401 (issue 5), not the keys' 403.
  const setups = setupsController({ db, profile, clock });
  const setupSchema = setupSchemas(profile);
  const setupSession = requireAuth('session', { keyRefusal: 401 });
  router.get('/setups', setupSession, setups.list);
  router.post('/setups', setupSession, validate({ body: setupSchema.create }), setups.create);
  router.get('/setups/:id', setupSession, setups.show);
  router.patch('/setups/:id', setupSession, validate({ body: setupSchema.patch }), setups.update);
  router.delete('/setups/:id', setupSession, setups.remove);

  // Revision-2 paths a revision-3 deployment still answers, with the revision-3 rules.
  for (const alias of profile.legacyAliases.filter((a) => a.kind === 'results')) {
    const path = alias.path.replace(/^\/api/, '');
    const marked = deprecatedAlias(alias);
    if (path.endsWith('/dry-run')) router.post(path, marked, requireAuth('key|session'), speedTests.dryRun);
    else {
      router.get(path, marked, speedTests.list);
      router.post(path, marked, requireAuth('key|session'), speedTests.submit);
    }
  }
  router.get(resultsPath, speedTests.list);
  router.post(resultsPath, requireAuth('key|session'), speedTests.submit);
  if (profile.features.dryRun) router.post(`${resultsPath}/dry-run`, requireAuth('key|session'), speedTests.dryRun);
  router.get(`${resultsPath}/:id`, speedTests.show);

  // Reactions to speed-test runs: one per user per run; `null` takes it back.
  router.post('/runs/:id/react', requireAuth('key|session'), validate({ body: reactionSchema }), reactionsController({ db }).react);

  router.get('/leaderboard', leaderboardController({ db, profile, clock }).show);

  const models = modelsController(db, profile);
  router.get('/models', models.list);
  if (profile.features.modelSearch) router.get('/models/search', models.search);
  router.get('/models/:org/:model', models.show);

  // Generated from src/openapi/operations.ts and the schemas; the contract tests hold them to these routes.
  const docs = apiDocsController(apiDocuments(profile), config);
  if (profile.features.openApi) router.get('/openapi.json', docs.openApi);
  if (profile.features.agentMetadata) router.get('/agent-context', docs.agentContext);

  router.use(notFound);
  return router;
}
