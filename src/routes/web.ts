import { Router } from 'express';
import { adminUsersController } from '../controllers/web/admin-users.ts';
import { authController } from '../controllers/web/auth.ts';
import { homeController } from '../controllers/web/home.ts';
import { settingsKeysController } from '../controllers/web/keys.ts';
import { requireAdmin, requireAuth } from '../middleware/require-auth.ts';
import type { AppDeps } from '../app.ts';

/** Server-rendered pages. */
export function webRoutes({ db, profile, config }: AppDeps): Router {
  const router = Router();
  const home = homeController(profile, config.publicUrl);
  const auth = authController(db);
  const keys = settingsKeysController(db);
  const adminUsers = adminUsersController(db);

  router.get('/', home.show);

  router.get('/signup', auth.signUpForm);
  router.post('/signup', auth.signUp);
  router.get('/signin', auth.signInForm);
  router.post('/signin', auth.signIn);
  router.post('/signout', auth.signOut);

  router.get('/settings/keys', requireAuth('session'), keys.show);
  router.post('/settings/keys', requireAuth('session'), keys.create);
  router.post('/settings/keys/:id/revoke', requireAuth('session'), keys.revoke);

  router.get('/admin/users', requireAdmin, adminUsers.list);
  router.post('/admin/users/:id/verification', requireAdmin, adminUsers.setVerified);

  return router;
}
