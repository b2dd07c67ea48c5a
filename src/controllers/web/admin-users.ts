import type { Request, Response } from 'express';
import type { Db } from '../../db/knex.ts';
import { Conflict, NotFound } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { ADMIN_USERS_PAGE_SIZE, adminUsersQuerySchema, userAdminRoleSchema, userVerificationSchema } from '../../schemas/admin.schema.ts';
import { findUserById, listUsers, setUserAdmin, setUserVerified, type User } from '../../services/users.service.ts';
import { render } from '../../views.ts';

function userIdParam(req: Request): string {
  const id = req.params.id;
  if (!isUuid(id)) throw new NotFound('User not found');
  return id;
}

/**
 * Admins mark accounts verified (the leaderboard's `verified` filter reads that flag) and
 * grant or revoke the admin role. Every change is written to the audit log by the service.
 */
export function adminUsersController(db: Db) {
  /** htmx gets the row back (with the refusal in it, if any); a plain form post goes back to the list. */
  function answer(req: Request, res: Response, user: User, message?: string, status = 200) {
    if (isHtmxRequest(req)) {
      ensureCsrfToken(req);
      render(res, 'partials/admin/user-row', { user, csrfToken: req.session.csrfToken, currentUserId: req.actor!.user.id, message }, status);
    } else {
      // An admin who gave up the role can no longer read the list.
      const demotedSelf = user.id === req.actor!.user.id && !user.isAdmin;
      res.redirect(303, demotedSelf ? '/' : '/admin/users');
    }
  }

  return {
    async list(req: Request, res: Response) {
      const { q, page } = parseOrThrow(adminUsersQuerySchema, req.query);
      const { users, total } = await listUsers(db, { search: q, limit: ADMIN_USERS_PAGE_SIZE, offset: (page - 1) * ADMIN_USERS_PAGE_SIZE });
      ensureCsrfToken(req);
      const pages = Math.max(1, Math.ceil(total / ADMIN_USERS_PAGE_SIZE));
      render(res, 'pages/admin/users', { title: 'Users', users, total, q: q ?? '', page, pages, currentUserId: req.actor!.user.id });
    },

    async setVerified(req: Request, res: Response) {
      const id = userIdParam(req);
      const { verified } = parseOrThrow(userVerificationSchema, req.body);
      answer(req, res, await setUserVerified(db, req.actor!.user, id, verified));
    },

    async setAdmin(req: Request, res: Response) {
      const id = userIdParam(req);
      const { admin } = parseOrThrow(userAdminRoleSchema, req.body);
      try {
        answer(req, res, await setUserAdmin(db, req.actor!.user, id, admin));
      } catch (error) {
        // The refusal (last admin) shows in the row for htmx; a plain post gets the error page.
        if (!(error instanceof Conflict) || !isHtmxRequest(req)) throw error;
        const user = await findUserById(db, id);
        if (!user) throw new NotFound('User not found');
        answer(req, res, user, error.message, error.status);
      }
    },
  };
}
