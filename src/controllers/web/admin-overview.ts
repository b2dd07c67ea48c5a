import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { ADMIN_AUDIT_PAGE_SIZE, adminAuditQuerySchema } from '../../schemas/admin.schema.ts';
import { render } from '../../web/views.ts';

/** /admin (figures and the latest actions) and /admin/audit (every admin action, newest first). */
export function adminOverviewController({ services, profile }: AppContext) {
  return {
    async overview(_req: Request, res: Response) {
      const [overview, quality] = await Promise.all([
        services.moderation.overview(),
        profile.quality ? services.qualityReview.pendingCounts() : null,
      ]);
      render(res, 'pages/admin/index', { title: 'Admin', overview, quality, datasetsReviewed: Boolean(profile.quality?.submissions) });
    },

    async audit(req: Request, res: Response) {
      const { page } = parseOrThrow(adminAuditQuerySchema, req.query);
      const { entries, total } = await services.audit.list({ limit: ADMIN_AUDIT_PAGE_SIZE, offset: (page - 1) * ADMIN_AUDIT_PAGE_SIZE });
      render(res, 'pages/admin/audit', {
        title: 'Audit log',
        entries,
        total,
        page,
        pages: Math.max(1, Math.ceil(total / ADMIN_AUDIT_PAGE_SIZE)),
      });
    },
  };
}
