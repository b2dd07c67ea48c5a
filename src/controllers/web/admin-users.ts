import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { Conflict, NotFound } from '../../lib/errors.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { messages } from '../../messages.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { ADMIN_USERS_PAGE_SIZE, adminUsersQuerySchema, userAdminRoleSchema, userVerificationSchema } from '../../schemas/admin.schema.ts';
import type { User } from '../../services/users.service.ts';
import { render } from '../../web/views.ts';

/**
 * Admins mark accounts verified (the leaderboard's `verified` filter reads that flag) and
 * grant or revoke the admin role. Every change is written to the audit log by the service.
 */
export function adminUsersController({ services }: AppContext) {
  const { users } = services;

  /** htmx gets the row back (with the refusal in it, if any); a plain form post goes back to the list. */
  function answer(req: Request, res: Response, user: User, message?: string, status = 200) {
    if (isHtmxRequest(req)) {
      ensureCsrfToken(req);
      render(
        res,
        'partials/admin/user-row',
        { user, csrfToken: req.session.csrfToken, currentUserId: req.actor!.user.id, message },
        status,
      );
    } else {
      // An admin who gave up the role can no longer read the list.
      const demotedSelf = user.id === req.actor!.user.id && !user.isAdmin;
      res.redirect(303, demotedSelf ? '/' : '/admin/users');
    }
  }

  return {
    async list(req: Request, res: Response) {
      const { q, page } = parseOrThrow(adminUsersQuerySchema, req.query);
      const { users: rows, total } = await users.list({
        search: q,
        limit: ADMIN_USERS_PAGE_SIZE,
        offset: (page - 1) * ADMIN_USERS_PAGE_SIZE,
      });
      ensureCsrfToken(req);
      const pages = Math.max(1, Math.ceil(total / ADMIN_USERS_PAGE_SIZE));
      render(res, 'pages/admin/users', { title: 'Users', users: rows, total, q: q ?? '', page, pages, currentUserId: req.actor!.user.id });
    },

    async setVerified(req: Request, res: Response) {
      const { verified } = parseOrThrow(userVerificationSchema, req.body);
      answer(req, res, await users.setVerified(req.actor!.user, String(req.params.id), verified));
    },

    async setAdmin(req: Request, res: Response) {
      const id = String(req.params.id);
      const { admin } = parseOrThrow(userAdminRoleSchema, req.body);
      try {
        answer(req, res, await users.setAdmin(req.actor!.user, id, admin));
      } catch (error) {
        // The refusal (last admin) shows in the row for htmx; a plain post gets the error page.
        if (!(error instanceof Conflict) || !isHtmxRequest(req)) throw error;
        const user = await users.findById(id);
        if (!user) throw new NotFound(messages.userNotFound);
        answer(req, res, user, error.message, error.status);
      }
    },
  };
}
