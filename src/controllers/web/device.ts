import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { NotFound } from '../../lib/errors.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { postedFields } from '../../web/forms.ts';
import { render } from '../../web/views.ts';

const PAGE = 'pages/device/approve';
const codeOf = (value: unknown) => (typeof value === 'string' ? value.slice(0, 32) : '');

/**
 * /device: where a person approves or denies a device login (RFC 8628) of a command-line
 * client, signed in with a session (the form carries its CSRF token, checked before this).
 */
export function devicePagesController({ services }: AppContext) {
  const { deviceLogins } = services;

  return {
    /** The code form, or with `?user_code=` the client asking and the approve/deny buttons. */
    async show(req: Request, res: Response) {
      ensureCsrfToken(req);
      const userCode = codeOf(req.query.user_code);
      if (!userCode) return render(res, PAGE, { userCode: '' });
      try {
        render(res, PAGE, await deviceLogins.pending(userCode));
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
        render(res, PAGE, { userCode, message: error.message }, 404);
      }
    },

    async decide(req: Request, res: Response) {
      ensureCsrfToken(req);
      const body = postedFields(req);
      const userCode = codeOf(body.user_code);
      const approve = body.decision === 'approve';
      try {
        const { clientId } = await deviceLogins.decide(req.actor!.user.id, userCode, approve);
        res.set('Cache-Control', 'no-store');
        render(res, PAGE, { clientId, outcome: approve ? 'approved' : 'denied' });
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
        render(res, PAGE, { userCode, message: error.message }, 404);
      }
    },
  };
}
