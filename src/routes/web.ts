import { Router } from 'express';
import { adminUsersController } from '../controllers/web/admin-users.ts';
import { authController } from '../controllers/web/auth.ts';
import { cataloguePagesController } from '../controllers/web/catalogue.ts';
import { leaderboardPagesController } from '../controllers/web/leaderboard.ts';
import { settingsKeysController } from '../controllers/web/keys.ts';
import { speedTestPagesController } from '../controllers/web/speed-tests.ts';
import { requireAdmin, requireAuth } from '../middleware/require-auth.ts';
import type { AppDeps } from '../app.ts';

/** Server-rendered pages. */
export function webRoutes({ db, profile, config, hub, clock }: AppDeps): Router {
  const router = Router();
  const speedTestDeps = { db, profile, hub, clock, hubMode: config.hubMode };
  const leaderboard = leaderboardPagesController({ db, profile, clock });
  const catalogue = cataloguePagesController(speedTestDeps, config.hfEndpoint);
  const auth = authController(db);
  const keys = settingsKeysController(db);
  const adminUsers = adminUsersController(db);
  const runs = speedTestPagesController(speedTestDeps, config.hfEndpoint);

  router.get('/', leaderboard.show);
  router.get('/models', catalogue.models);
  router.get('/models/:org/:model', catalogue.model);
  router.get('/hardware/:id', catalogue.hardware);
  router.get('/methodology', catalogue.methodology);

  router.get('/signup', auth.signUpForm);
  router.post('/signup', auth.signUp);
  router.get('/signin', auth.signInForm);
  router.post('/signin', auth.signIn);
  router.post('/signout', auth.signOut);

  router.get('/settings/keys', requireAuth('session'), keys.show);
  router.post('/settings/keys', requireAuth('session'), keys.create);
  router.post('/settings/keys/:id/revoke', requireAuth('session'), keys.revoke);

  router.get('/submit', requireAuth('session'), runs.form);
  router.post('/submit', requireAuth('session'), runs.submit);
  router.get('/submit/hardware-fields', requireAuth('session'), runs.hardwareFields);
  router.post('/submit/parse-command', requireAuth('session'), runs.parseCommand);
  router.post('/submit/validate', requireAuth('session'), runs.validate);
  router.get('/runs/:id', runs.show);

  router.get('/admin/users', requireAdmin, adminUsers.list);
  router.post('/admin/users/:id/verification', requireAdmin, adminUsers.setVerified);

  return router;
}
