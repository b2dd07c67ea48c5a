import type { Request, Response } from 'express';
import type { Db } from '../../db/knex.ts';
import { NotFound } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { ADMIN_USERS_PAGE_SIZE, adminUsersQuerySchema, userVerificationSchema } from '../../schemas/admin.schema.ts';
import { listUsers, setUserVerified } from '../../services/users.service.ts';
import { render } from '../../views.ts';

/** Admins mark accounts verified; the leaderboard's `verified` filter reads that flag. */
export function adminUsersController(db: Db) {
  return {
    async list(req: Request, res: Response) {
      const { q, page } = parseOrThrow(adminUsersQuerySchema, req.query);
      const { users, total } = await listUsers(db, { search: q, limit: ADMIN_USERS_PAGE_SIZE, offset: (page - 1) * ADMIN_USERS_PAGE_SIZE });
      ensureCsrfToken(req);
      const pages = Math.max(1, Math.ceil(total / ADMIN_USERS_PAGE_SIZE));
      render(res, 'pages/admin/users', { title: 'Users', users, total, q: q ?? '', page, pages });
    },

    async setVerified(req: Request, res: Response) {
      const id = req.params.id;
      if (!isUuid(id)) throw new NotFound('User not found');
      const { verified } = parseOrThrow(userVerificationSchema, req.body);
      const user = await setUserVerified(db, id, verified);
      if (isHtmxRequest(req)) {
        ensureCsrfToken(req);
        render(res, 'partials/admin/user-row', { user, csrfToken: req.session.csrfToken });
      } else {
        res.redirect(303, '/admin/users');
      }
    },
  };
}
