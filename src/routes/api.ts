import { Router } from 'express';
import { apiKeysController } from '../controllers/api/keys.ts';
import { meController } from '../controllers/api/me.ts';
import { requireAuth } from '../middleware/require-auth.ts';
import { validate } from '../middleware/validate.ts';
import { notFound } from '../middleware/errors.ts';
import { createApiKeySchema } from '../schemas/api-key.schema.ts';
import type { AppDeps } from '../app.ts';

/** Everything under /api. Unknown paths end in the JSON 404. */
export function apiRoutes({ db }: AppDeps): Router {
  const router = Router();
  const keys = apiKeysController(db);

  router.get('/me', requireAuth('key|session'), meController().show);

  router.get('/keys', requireAuth('session'), keys.list);
  router.post('/keys', requireAuth('session'), validate({ body: createApiKeySchema }), keys.create);
  router.delete('/keys/:id', requireAuth('session'), keys.revoke);

  router.use(notFound);
  return router;
}
