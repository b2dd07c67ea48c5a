import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { demoSuiteBodies } from '../../db/seeds/demo-suites.ts';
import { Conflict, type HttpError, NotFound } from '../../lib/errors.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { messages } from '../../messages.ts';
import type { SubmissionKind, Suite } from '../../services/quality-suites.service.ts';
import { checkSuiteText, suiteFormText, type SuiteCheck } from '../../web/suite-form.ts';
import { render } from '../../web/views.ts';

/** The registration body of a stored suite: what its owner corrects and sends again. */
function registrationBody(suite: Suite) {
  return {
    slug: suite.slug,
    name: suite.name,
    ...(suite.description ? { description: suite.description } : {}),
    category: suite.category,
    runner: suite.runner,
    version: suite.version,
    ...(suite.sourceUrl ? { sourceUrl: suite.sourceUrl } : {}),
    suiteDoc: suite.suiteDoc,
  };
}

/** Examples the form can start from (`?example=`), the demo suites themselves. */
const EXAMPLES: Record<string, unknown> = {
  custom: demoSuiteBodies[0],
  'multiple-choice': demoSuiteBodies[1],
  'lm-eval': demoSuiteBodies[2],
};

/** Where the form posts: a new registration, or the correction of one of the user's suites. */
interface FormTarget {
  action: string;
  checkAction: string;
  /** The suite being corrected. */
  suite?: Suite;
}

/**
 * /evals/new (register a suite by pasting or uploading its JSON, checked live as the
 * API's dry-run checks it) and /settings/submissions (the user's suites, datasets and
 * quality runs with their review state; correct and resubmit a suite; withdraw).
 */
export function qualitySubmissionsController(app: AppContext) {
  const { qualitySuites, qualityRuns } = app.services;
  const hasDatasets = Boolean(app.profile.quality?.submissions);
  const apiRoot = app.profile.quality?.root;

  function showForm(req: Request, res: Response, target: FormTarget, text: string, check: SuiteCheck | null, status = 200) {
    ensureCsrfToken(req);
    render(
      res,
      'pages/evals/new',
      {
        title: target.suite ? `Correct ${target.suite.slug}` : 'Register a suite',
        ...target,
        text,
        check,
        examples: Object.keys(EXAMPLES),
        maxUpload: '16 MB',
      },
      status,
    );
  }

  /** The check's answer: the messages alone for htmx, else the whole form with them. */
  function answerCheck(req: Request, res: Response, target: FormTarget, check: SuiteCheck) {
    if (isHtmxRequest(req)) return render(res, 'partials/quality-submissions/check', { check });
    showForm(req, res, target, check.text, check, check.valid ? 200 : 400);
  }

  async function ownSuiteTarget(req: Request): Promise<FormTarget> {
    const id = String(req.params.id);
    const suite = await qualitySuites.ownSuite(req.actor!.user.id, id);
    return { action: `/settings/submissions/suites/${id}/edit`, checkAction: `/settings/submissions/suites/${id}/check`, suite };
  }

  const newTarget: FormTarget = { action: '/evals/new', checkAction: '/evals/new/check' };

  /** The page, or for htmx only its list (after a withdrawal). */
  async function showSubmissions(req: Request, res: Response, notice: { kind: 'ok' | 'error'; text: string } | null = null, status = 200) {
    const userId = req.actor!.user.id;
    const [{ submissions }, runs, executions] = await Promise.all([
      qualitySuites.submissions(userId),
      qualityRuns.listOwn(userId),
      app.services.executions.listOwn(userId),
    ]);
    ensureCsrfToken(req);
    const registered = typeof req.query.registered === 'string' ? req.query.registered : null;
    render(
      res,
      isHtmxRequest(req) ? 'partials/quality-submissions/list' : 'pages/settings/submissions',
      {
        title: 'Quality submissions',
        suites: submissions.filter((s) => s.kind === 'suite'),
        datasets: submissions.filter((s) => s.kind === 'dataset'),
        runs,
        executions,
        hasDatasets,
        apiRoot,
        notice:
          notice ??
          (registered ? { kind: 'ok', text: `Suite ${registered} registered: it is listed publicly once an admin approves it.` } : null),
      },
      status,
    );
  }

  return {
    async newForm(req: Request, res: Response) {
      const example = typeof req.query.example === 'string' ? EXAMPLES[req.query.example] : undefined;
      showForm(req, res, newTarget, example ? JSON.stringify(example, null, 2) : '', null);
    },

    async check(req: Request, res: Response) {
      answerCheck(req, res, newTarget, await checkSuiteText(app, req.actor!.user.id, suiteFormText(req)));
    },

    async register(req: Request, res: Response) {
      const check = await checkSuiteText(app, req.actor!.user.id, suiteFormText(req));
      if (!check.valid) return showForm(req, res, newTarget, check.text, check, check.status);
      try {
        const suite = await qualitySuites.register(req.actor!.user.id, check.suite);
        res.redirect(303, `/settings/submissions?registered=${encodeURIComponent(suite.slug)}`);
      } catch (error) {
        // The slug was taken between the check and the write.
        if (!(error instanceof Conflict)) throw error;
        showForm(
          req,
          res,
          newTarget,
          check.text,
          { valid: false, text: check.text, problems: [{ path: 'slug', message: error.message }], status: 409 },
          409,
        );
      }
    },

    async submissions(req: Request, res: Response) {
      await showSubmissions(req, res);
    },

    async editForm(req: Request, res: Response) {
      const target = await ownSuiteTarget(req);
      // An approved suite cannot be corrected: say so now rather than after the user edits it.
      const { status } = target.suite!;
      if (status !== 'PENDING' && status !== 'REJECTED') throw new Conflict(messages.qualitySubmissionNotEditable(status));
      showForm(req, res, target, JSON.stringify(registrationBody(target.suite!), null, 2), null);
    },

    async checkEdit(req: Request, res: Response) {
      const target = await ownSuiteTarget(req);
      answerCheck(req, res, target, await checkSuiteText(app, req.actor!.user.id, suiteFormText(req), target.suite!.id));
    },

    async update(req: Request, res: Response) {
      const target = await ownSuiteTarget(req);
      const check = await checkSuiteText(app, req.actor!.user.id, suiteFormText(req), target.suite!.id);
      if (!check.valid) return showForm(req, res, target, check.text, check, check.status);
      try {
        await qualitySuites.patchSubmission(req.actor!.user.id, 'suite', target.suite!.id, check.suite);
        res.redirect(303, '/settings/submissions');
      } catch (error) {
        if (!(error instanceof Conflict)) throw error;
        showForm(
          req,
          res,
          target,
          check.text,
          { valid: false, text: check.text, problems: [{ path: null, message: error.message }], status: 409 },
          409,
        );
      }
    },

    async withdraw(req: Request, res: Response) {
      const kind = req.params.kind;
      if (kind !== 'suite' && (kind !== 'dataset' || !hasDatasets)) throw new NotFound();
      try {
        const withdrawn = await qualitySuites.withdraw(req.actor!.user.id, kind as SubmissionKind, String(req.params.id));
        if (isHtmxRequest(req)) return showSubmissions(req, res, { kind: 'ok', text: `${withdrawn.slug} withdrawn.` });
        res.redirect(303, '/settings/submissions');
      } catch (error) {
        if (!(error instanceof Conflict)) throw error;
        await showSubmissions(req, res, { kind: 'error', text: error.message }, (error as HttpError).status);
      }
    },
  };
}
