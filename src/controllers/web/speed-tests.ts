import type { Request, Response } from 'express';
import { HttpError, ValidationFailed } from '../../lib/errors.ts';
import { parseCommandSnippet } from '../../lib/command-snippet.ts';
import { normaliseSubmission, resolveFlagAliases } from '../../lib/speed-test-normalise.ts';
import { hardwareNames } from '../../lib/hardware-lookup.ts';
import { hardwareLabel } from '../../lib/labels.ts';
import { otherFlagNames, submitFormValues } from '../../lib/setup-form.ts';
import { submissionFromForm } from '../../lib/submission-form.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { hwClasses, type HwClass } from '../../revisions.ts';
import { setupSchemas } from '../../schemas/setup.schema.ts';
import { findDefaultSetup, getSetup, listSetups, type Setup } from '../../services/setups.service.ts';
import {
  getSpeedTest,
  submissionWindowState,
  submitSpeedTest,
  type SpeedTestDeps,
} from '../../services/speed-tests.service.ts';
import { getRunForAdmin } from '../../services/moderation.service.ts';
import { render } from '../../views.ts';

function hwClassFrom(value: unknown): HwClass {
  return hwClasses.includes(value as HwClass) ? (value as HwClass) : 'DISCRETE_GPU';
}

/** The form's own values, as posted, for re-rendering it. */
function formValues(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object') return {};
  return Object.fromEntries(Object.entries(body).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}

/** The launch command's flags as form values (`engineFlags.gpuLayers` → '99'). */
function flagValues(flags: object): Record<string, string> {
  return Object.fromEntries(Object.entries(flags).map(([key, value]) => [`engineFlags.${key}`, String(value)]));
}

interface FormState {
  values?: Record<string, string>;
  fieldErrors?: Record<string, string[]>;
  formErrors?: string[];
  message?: string;
  /** The saved setup the values came from, selected in the picker. */
  setupId?: string;
}

export function speedTestPagesController(deps: SpeedTestDeps, hubUrl: string) {
  const { profile } = deps;

  const { configFields } = setupSchemas(profile);

  async function showForm(req: Request, res: Response, state: FormState = {}, status = 200, template = 'pages/submit/form') {
    ensureCsrfToken(req);
    const values = state.values ?? {};
    render(
      res,
      template,
      {
        title: 'Submit a run',
        values,
        setups: await listSetups(deps, req.actor!.user.id),
        setupId: state.setupId ?? '',
        otherFlags: otherFlagNames(values, 'engineFlags.', configFields),
        fieldErrors: state.fieldErrors ?? {},
        formErrors: state.formErrors ?? [],
        message: state.message,
        hwClass: hwClassFrom(values['hardware.hwClass'] ?? req.query.hwClass),
        hwClassOptions: [
          { value: 'DISCRETE_GPU', label: 'Discrete GPU(s)' },
          { value: 'UNIFIED', label: 'Unified memory chip (Apple, Ryzen AI, …)' },
          { value: 'CPU_ONLY', label: 'CPU only' },
        ],
        engines: profile.engines,
        features: profile.features,
        resultsPath: profile.resultsPath,
        hardwareNames: hardwareNames(),
        window: await submissionWindowState(deps, req.actor!.user.id),
        now: deps.clock.now(),
      },
      status,
    );
  }

  return {
    /**
     * The form, filled from a saved setup: `?setup=<id>` picks one (empty: a blank form),
     * otherwise the default setup. The picker asks with htmx and gets the form alone.
     */
    async form(req: Request, res: Response) {
      const userId = req.actor!.user.id;
      const chosen = req.query.setup;
      let setup: Setup | undefined;
      if (typeof chosen === 'string' && chosen !== '') setup = await getSetup(deps, userId, chosen);
      else if (chosen === undefined) setup = await findDefaultSetup(deps, userId);
      const state: FormState = setup ? { values: submitFormValues(setup, configFields), setupId: setup.id } : {};
      await showForm(req, res, state, 200, isHtmxRequest(req) ? 'partials/submit/form' : 'pages/submit/form');
    },

    /** htmx: the fieldset of one hardware class. */
    hardwareFields(req: Request, res: Response) {
      render(res, 'partials/submit/hardware-fields', { hwClass: hwClassFrom(req.query['hardware.hwClass'] ?? req.query.hwClass), values: {}, fieldErrors: {} });
    },

    /** htmx: "paste your launch command" fills the flag fields. */
    parseCommand(req: Request, res: Response) {
      const values = formValues(req.body);
      const parse = parseCommandSnippet(values['engineFlags.commandSnippet'] ?? '', values.engineName ?? '');
      const filled = { ...values, ...flagValues(resolveFlagAliases(parse.flags)) };
      render(res, 'partials/submit/flag-fields', {
        values: filled,
        otherFlags: otherFlagNames(filled, 'engineFlags.', configFields),
        fieldErrors: {},
        recognised: parse.recognised,
        unrecognised: parse.unrecognised,
      });
    },

    /** htmx: the whole validation of the form as it stands (no hub lookup while typing). */
    validate(req: Request, res: Response) {
      try {
        const parsed = normaliseSubmission(profile, submissionFromForm(formValues(req.body)));
        render(res, 'partials/submit/validation', { ok: true, parsed });
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        const details = error instanceof ValidationFailed ? error.details : { fieldErrors: {}, formErrors: [error.message] };
        render(res, 'partials/submit/validation', { ok: false, ...details });
      }
    },

    async submit(req: Request, res: Response) {
      const values = formValues(req.body);
      try {
        const { run } = await submitSpeedTest(deps, req.actor!.user.id, submissionFromForm(values));
        res.redirect(303, `/runs/${run.id}`);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        if (error instanceof ValidationFailed) {
          return showForm(req, res, { values, ...error.details, message: 'Some fields need attention.' }, 400);
        }
        await showForm(req, res, { values, message: error.message }, error.status);
      }
    },

    async show(req: Request, res: Response) {
      // Admins also see rejected runs, with their moderation facts; everyone else only approved ones.
      const viewerId = req.actor?.user.id ?? null;
      const { run, moderation } = req.actor?.user.isAdmin
        ? await getRunForAdmin(deps, String(req.params.id), viewerId)
        : { run: await getSpeedTest(deps, String(req.params.id), viewerId), moderation: undefined };
      render(res, 'pages/runs/show', {
        title: `${run.hfId} · ${hardwareLabel(run.hardware as { hwClass: string })}`,
        run,
        moderation,
        hubUrl,
        resultsPath: profile.resultsPath,
        hardwareNames: hardwareNames(),
      });
    },
  };
}
