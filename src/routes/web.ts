import { Router } from 'express';
import { adminOverviewController } from '../controllers/web/admin-overview.ts';
import { adminRunsController } from '../controllers/web/admin-runs.ts';
import { adminUsersController } from '../controllers/web/admin-users.ts';
import { authController } from '../controllers/web/auth.ts';
import { cataloguePagesController } from '../controllers/web/catalogue.ts';
import { docsPagesController } from '../controllers/web/docs.ts';
import { leaderboardPagesController } from '../controllers/web/leaderboard.ts';
import { profilesController } from '../controllers/web/profiles.ts';
import { reactionPagesController } from '../controllers/web/reactions.ts';
import { settingsKeysController } from '../controllers/web/keys.ts';
import { settingsSetupsController } from '../controllers/web/setups.ts';
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
  const adminRuns = adminRunsController({ db, profile });
  const adminOverview = adminOverviewController(db);
  const profiles = profilesController({ db, profile });
  const runs = speedTestPagesController(speedTestDeps, config.hfEndpoint);
  const setups = settingsSetupsController(speedTestDeps);

  router.get('/', leaderboard.show);
  router.get('/models', catalogue.models);
  router.get('/models/:org/:model', catalogue.model);
  router.get('/hardware/:id', catalogue.hardware);
  router.get('/methodology', catalogue.methodology);

  const docs = docsPagesController({ profile, config });
  router.get('/docs', docs.index);
  router.get('/docs/api', docs.api);
  router.get('/docs/agents', docs.agents);

  router.get('/signup', auth.signUpForm);
  router.post('/signup', auth.signUp);
  router.get('/signin', auth.signInForm);
  router.post('/signin', auth.signIn);
  router.post('/signout', auth.signOut);

  router.get('/settings/keys', requireAuth('session'), keys.show);
  router.post('/settings/keys', requireAuth('session'), keys.create);
  router.post('/settings/keys/:id/revoke', requireAuth('session'), keys.revoke);

  router.get('/settings/setups', requireAuth('session'), setups.show);
  router.post('/settings/setups', requireAuth('session'), setups.create);
  router.get('/settings/setups/:id/hardware-fields', requireAuth('session'), setups.hardwareFields);
  router.get('/settings/setups/:id/edit', requireAuth('session'), setups.edit);
  router.get('/settings/setups/:id', requireAuth('session'), setups.row);
  router.post('/settings/setups/:id', requireAuth('session'), setups.update);
  router.post('/settings/setups/:id/default', requireAuth('session'), setups.makeDefault);
  router.post('/settings/setups/:id/delete', requireAuth('session'), setups.remove);

  router.get('/submit', requireAuth('session'), runs.form);
  router.post('/submit', requireAuth('session'), runs.submit);
  router.get('/submit/hardware-fields', requireAuth('session'), runs.hardwareFields);
  router.post('/submit/parse-command', requireAuth('session'), runs.parseCommand);
  router.post('/submit/validate', requireAuth('session'), runs.validate);
  router.get('/runs/:id', runs.show);
  router.post('/runs/:id/setup', requireAuth('session'), setups.saveFromRun);
  router.post('/runs/:id/react', requireAuth('session'), reactionPagesController({ db }).react);

  router.get('/u/:username', profiles.show);
  router.get('/settings/profile', requireAuth('session'), profiles.settings);
  router.post('/settings/profile', requireAuth('session'), profiles.updateProfile);
  router.post('/settings/profile/password', requireAuth('session'), profiles.changePassword);

  router.get('/admin', requireAdmin, adminOverview.overview);
  router.get('/admin/audit', requireAdmin, adminOverview.audit);
  router.get('/admin/users', requireAdmin, adminUsers.list);
  router.post('/admin/users/:id/verification', requireAdmin, adminUsers.setVerified);
  router.post('/admin/users/:id/admin', requireAdmin, adminUsers.setAdmin);
  router.get('/admin/runs', requireAdmin, adminRuns.list);
  router.post('/admin/runs/:id/reject', requireAdmin, adminRuns.reject);
  router.post('/admin/runs/:id/restore', requireAdmin, adminRuns.restore);

  return router;
}
