import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { HttpError, NotFound, ValidationFailed } from '../../lib/errors.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { messages } from '../../messages.ts';
import { existingId } from '../../schemas/path-params.schema.ts';
import { executeSchema } from '../../schemas/execute.schema.ts';
import { setupHardwareFields } from '../../schemas/setup.schema.ts';
import { FINISHED, type Execution } from '../../services/executions.service.ts';
import type { Setup } from '../../services/setups.service.ts';
import { render } from '../../web/views.ts';

/** What the run form sends (all text); the API key is never shown back. */
interface RunForm {
  baseUrl: string;
  model: string;
  hfId: string;
  quantization: string;
  setupId: string;
  autoSubmit: boolean;
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

function formValues(body: Record<string, unknown>): RunForm & { apiKey: string; action: string } {
  return {
    baseUrl: text(body.baseUrl),
    model: text(body.model),
    hfId: text(body.hfId),
    quantization: text(body.quantization),
    setupId: text(body.setupId),
    autoSubmit: body.autoSubmit === 'on' || body.autoSubmit === 'true',
    apiKey: text(body.apiKey),
    action: text(body.action) === 'check' ? 'check' : 'run',
  };
}

/** A saved setup's hardware fields, as the hardware object of a run. */
function hardwareOf(setup: Setup): Record<string, unknown> {
  return Object.fromEntries(
    setupHardwareFields.flatMap((field) => (setup[field] === null || setup[field] === undefined ? [] : [[field, setup[field]]])),
  );
}

/**
 * The execution pages: "Run this suite" (`/evals/{slug}/run`: a form that checks first or
 * queues an execution), the execution's own page with its progress (`/evals/executions/{id}`,
 * polled by htmx while unfinished, a refresh link without JavaScript) and cancel.
 */
export function executionPagesController({ services, profile }: AppContext) {
  /** An approved suite that can be executed: CUSTOM (others have no run form). */
  async function runnableSuite(slug: string) {
    const suite = await services.qualitySuites.get(slug);
    if (suite.runner !== 'CUSTOM') throw new NotFound(messages.qualitySuiteNotFound(slug));
    return suite;
  }

  async function showForm(
    req: Request,
    res: Response,
    values: Partial<RunForm>,
    extra: { fieldErrors?: Record<string, string[]>; formError?: string; report?: unknown } = {},
    status = 200,
  ) {
    const suite = await runnableSuite(String(req.params.slug));
    const { setups } = await services.setups.list(req.actor!.user.id);
    ensureCsrfToken(req);
    render(
      res,
      'pages/evals/execute',
      { title: `Run ${suite.name}`, suite, setups, values, fieldErrors: {}, formError: null, report: null, ...extra },
      status,
    );
  }

  return {
    async form(req: Request, res: Response) {
      await showForm(req, res, { autoSubmit: false });
    },

    /** "Check first" answers the dry-run report on the form; "Run" queues and goes to the execution's page. */
    async submit(req: Request, res: Response) {
      const userId = req.actor!.user.id;
      const values = formValues(req.body ?? {});
      const { apiKey, action, ...shown } = values;
      try {
        let hardware: Record<string, unknown> | undefined;
        if (values.setupId) hardware = hardwareOf(await services.setups.get(userId, existingId(values.setupId, messages.setupNotFound)));
        const body = parseOrThrow(executeSchema(profile), {
          suiteSlug: String(req.params.slug),
          baseUrl: values.baseUrl,
          hfId: values.hfId,
          ...(values.model ? { model: values.model } : {}),
          ...(apiKey ? { apiKey } : {}),
          ...(values.quantization ? { quantization: values.quantization } : {}),
          ...(hardware ? { hardware } : {}),
          autoSubmit: values.autoSubmit,
        });
        // The form's own checks first: a suite that cannot be executed is a 404/422 page, not a form error.
        await runnableSuite(String(req.params.slug));
        if (action === 'check')
          return await showForm(req, res, shown, { report: await services.executions.dryRun(userId, req.ip ?? 'unknown', body) });
        const execution = await services.executions.start(userId, body);
        res.redirect(303, execution.pageUrl);
      } catch (error) {
        if (error instanceof ValidationFailed) {
          const fieldErrors = { ...error.details.fieldErrors };
          // A missing hardware is the setup select's to say.
          if (fieldErrors.hardware) fieldErrors.setupId = fieldErrors.hardware;
          return showForm(req, res, shown, { fieldErrors }, 400);
        }
        if (error instanceof HttpError && error.status !== 404 && error.status < 500)
          return showForm(req, res, shown, { formError: error.message }, error.status);
        throw error;
      }
    },

    /** The owner's execution; htmx polls get the status part alone. */
    async page(req: Request, res: Response) {
      const execution = await services.executions.get(req.actor!.user.id, String(req.params.id));
      const finished = FINISHED.includes(execution.status);
      const data = { execution, finished, suiteName: execution.suiteSlug };
      ensureCsrfToken(req);
      if (isHtmxRequest(req)) return render(res, 'partials/evals/execution-status', data);
      render(res, 'pages/evals/execution', { title: `Execution of ${execution.suiteSlug}`, ...data });
    },

    async cancel(req: Request, res: Response) {
      let execution: Execution;
      try {
        execution = await services.executions.cancel(req.actor!.user.id, String(req.params.id));
      } catch (error) {
        // Finished meanwhile: the page shows how it ended.
        if (!(error instanceof HttpError && error.status === 409)) throw error;
        execution = await services.executions.get(req.actor!.user.id, String(req.params.id));
      }
      res.redirect(303, execution.pageUrl);
    },
  };
}
