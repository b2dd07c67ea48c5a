import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { HttpError } from '../../lib/errors.ts';
import { hardwareNames } from '../../lib/hardware-lookup.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import {
  ADMIN_HARDWARE_NAMES_PAGE_SIZE,
  adminHardwareQuerySchema,
  hardwareNameMapSchema,
  hardwareNameUnmapSchema,
} from '../../schemas/admin.schema.ts';
import { hardwareKindLabels } from '../../services/hardware-names.service.ts';
import { render } from '../../web/views.ts';

/** What a map or unmap left to say: done (a status line) or refused (an alert), with the row it concerns. */
interface Outcome {
  message: string;
  error: boolean;
  kind?: string;
  name?: string;
}

/**
 * /admin/hardware: the names no catalogue device matched (most runs first) and the admins'
 * mappings of them. Mapping and unmapping are audited by the service, which re-resolves and
 * re-judges the runs written with the name.
 */
export function adminHardwareController({ services }: AppContext) {
  const { hardwareNames: names } = services;

  async function show(req: Request, res: Response, page: number, outcome?: Outcome, status = 200) {
    const [unresolved, mapped] = await Promise.all([names.unresolved(), names.mapped()]);
    const pages = Math.max(1, Math.ceil(unresolved.length / ADMIN_HARDWARE_NAMES_PAGE_SIZE));
    const current = Math.min(page, pages);
    ensureCsrfToken(req);
    const data = {
      title: 'Hardware names',
      unresolved: unresolved.slice((current - 1) * ADMIN_HARDWARE_NAMES_PAGE_SIZE, current * ADMIN_HARDWARE_NAMES_PAGE_SIZE),
      unresolvedTotal: unresolved.length,
      unresolvedRuns: unresolved.reduce((sum, entry) => sum + entry.runs, 0),
      mapped,
      page: current,
      pages,
      kindLabels: hardwareKindLabels,
      outcome,
      csrfToken: req.session.csrfToken,
      catalogue: hardwareNames(),
    };
    if (isHtmxRequest(req)) return render(res, 'partials/admin/hardware-names', data, status);
    render(res, 'pages/admin/hardware', data, status);
  }

  /** A refusal the admin can act on (unknown device, name already resolved, no such mapping) is shown on the page. */
  async function attempt(req: Request, res: Response, page: number, action: () => Promise<string>, row: { kind: string; name: string }) {
    let message: string;
    try {
      message = await action();
    } catch (error) {
      if (!(error instanceof HttpError) || error.status >= 500) throw error;
      return show(req, res, page, { message: error.message, error: true, ...row }, error.status);
    }
    if (!isHtmxRequest(req)) return res.redirect(303, `/admin/hardware${page > 1 ? `?page=${page}` : ''}`);
    await show(req, res, page, { message, error: false });
  }

  const verdicts = (n: number) => `${n} verdict${n === 1 ? '' : 's'} changed`;

  return {
    async page(req: Request, res: Response) {
      const { page } = parseOrThrow(adminHardwareQuerySchema, req.query);
      await show(req, res, page);
    },

    async map(req: Request, res: Response) {
      const { kind, name, device, page } = parseOrThrow(hardwareNameMapSchema, req.body);
      await attempt(
        req,
        res,
        page,
        async () => {
          const { rejudged } = await names.map(req.actor!.user, { kind, name, deviceName: device });
          return `Mapped “${name}” to ${device}: its runs follow the device now (${verdicts(rejudged)}).`;
        },
        { kind, name },
      );
    },

    async unmap(req: Request, res: Response) {
      const { kind, name, page } = parseOrThrow(hardwareNameUnmapSchema, req.body);
      await attempt(
        req,
        res,
        page,
        async () => {
          const { rejudged } = await names.unmap(req.actor!.user, { kind, name });
          return `Removed the mapping of “${name}”: it is unresolved again (${verdicts(rejudged)}).`;
        },
        { kind, name },
      );
    },
  };
}
