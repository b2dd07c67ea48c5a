import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { parseCommandSnippet } from '../../lib/command-snippet.ts';
import { HttpError, ValidationFailed } from '../../lib/errors.ts';
import { hardwareNames } from '../../lib/hardware-lookup.ts';
import { hardwareLabel } from '../../lib/labels.ts';
import { normaliseSubmission, resolveFlagAliases } from '../../lib/speed-test-normalise.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { messages } from '../../messages.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { existingId } from '../../schemas/path-params.schema.ts';
import { setupSchemas } from '../../schemas/setup.schema.ts';
import { speedTestSubmissionSchema } from '../../schemas/speed-test.schema.ts';
import type { Setup } from '../../services/setups.service.ts';
import { HW_CLASS_OPTIONS, knownHwClass, parseForm, postedValues } from '../../web/forms.ts';
import { otherFlagNames, submitFormValues } from '../../web/setup-form.ts';
import { submissionFromForm, withCommandFields } from '../../web/submission-form.ts';
import { render } from '../../web/views.ts';

const hwClassFrom = (value: unknown) => knownHwClass(value) ?? 'DISCRETE_GPU';

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
  /** Fields left empty and filled from the launch command. */
  filledFromCommand?: string[];
}

/** The submit form (with its htmx helpers) and a run's page. */
export function speedTestPagesController({ services, profile, clock, config }: AppContext) {
  const { configFields } = setupSchemas(profile);

  async function showForm(req: Request, res: Response, state: FormState = {}, status = 200, template = 'pages/speed-tests/submit') {
    ensureCsrfToken(req);
    const values = state.values ?? {};
    render(
      res,
      template,
      {
        title: 'Submit a run',
        values,
        setups: (await services.setups.list(req.actor!.user.id)).setups,
        setupId: state.setupId ?? '',
        otherFlags: otherFlagNames(values, 'engineFlags.', configFields),
        fieldErrors: state.fieldErrors ?? {},
        formErrors: state.formErrors ?? [],
        message: state.message,
        filledFromCommand: state.filledFromCommand ?? [],
        hwClass: hwClassFrom(values['hardware.hwClass'] ?? req.query.hwClass),
        hwClassOptions: HW_CLASS_OPTIONS,
        engines: profile.speedTests.engines,
        rules: profile.speedTests,
        hardwareNames: hardwareNames(),
        window: await services.speedTests.windowState(req.actor!.user.id),
        now: clock.now(),
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
      if (typeof chosen === 'string' && chosen !== '') setup = await services.setups.get(userId, existingId(chosen, messages.setupNotFound));
      else if (chosen === undefined) setup = await services.setups.findDefault(userId);
      const state: FormState = setup ? { values: submitFormValues(setup, configFields), setupId: setup.id } : {};
      await showForm(req, res, state, 200, isHtmxRequest(req) ? 'partials/speed-tests/submit-form' : 'pages/speed-tests/submit');
    },

    /** htmx: the fieldset of one hardware class. */
    hardwareFields(req: Request, res: Response) {
      render(res, 'partials/speed-tests/hardware-fields', { hwClass: hwClassFrom(req.query['hardware.hwClass'] ?? req.query.hwClass), values: {}, fieldErrors: {} });
    },

    /** htmx: "paste your launch command" fills the flag fields. */
    parseCommand(req: Request, res: Response) {
      const values = postedValues(req.body);
      const parse = parseCommandSnippet(values['engineFlags.commandSnippet'] ?? '', values.engineName ?? '');
      const filled = { ...values, ...flagValues(resolveFlagAliases(parse.flags)) };
      render(res, 'partials/speed-tests/flag-fields', {
        values: filled,
        otherFlags: otherFlagNames(filled, 'engineFlags.', configFields),
        fieldErrors: {},
        recognised: parse.recognised,
        unrecognised: parse.unrecognised,
        stated: parse.fields,
      });
    },

    /** htmx: the whole validation of the form as it stands (no hub lookup while typing). */
    validate(req: Request, res: Response) {
      const { values, filled } = withCommandFields(postedValues(req.body));
      try {
        const parsed = normaliseSubmission(profile, submissionFromForm(values));
        render(res, 'partials/speed-tests/validation', { ok: true, parsed, filledFromCommand: [...filled, ...(parsed.commandSnippetFlags?.filledFields ?? [])] });
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        const details = error instanceof ValidationFailed ? error.details : { fieldErrors: {}, formErrors: [error.message] };
        render(res, 'partials/speed-tests/validation', { ok: false, ...details });
      }
    },

    async submit(req: Request, res: Response) {
      // An empty model id or engine comes from the launch command; the form shows which when it comes back.
      const { values, filled: filledFromCommand } = withCommandFields(postedValues(req.body));
      const parsed = parseForm(speedTestSubmissionSchema(profile), submissionFromForm(values));
      if (!parsed.ok) return showForm(req, res, { values, filledFromCommand, ...parsed, message: 'Some fields need attention.' }, 400);
      try {
        const { run } = await services.speedTests.submit(req.actor!.user.id, parsed.data);
        res.redirect(303, `/runs/${run.id}`);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        if (error instanceof ValidationFailed) return showForm(req, res, { values, filledFromCommand, ...error.details, message: 'Some fields need attention.' }, 400);
        await showForm(req, res, { values, filledFromCommand, message: error.message }, error.status);
      }
    },

    async show(req: Request, res: Response) {
      // Admins also see rejected runs, with their moderation facts; everyone else only approved ones.
      const id = String(req.params.id);
      const viewerId = req.actor?.user.id ?? null;
      const { run, moderation } = req.actor?.user.isAdmin
        ? await services.moderation.getSpeedTest(id, viewerId)
        : { run: await services.speedTests.get(id, viewerId), moderation: undefined };
      render(res, 'pages/speed-tests/show', {
        title: `${run.hfId} · ${hardwareLabel(run.hardware as { hwClass: string })}`,
        run,
        moderation,
        hubUrl: config.hfEndpoint,
        resultsPath: profile.speedTests.resultsPath,
        hardwareNames: hardwareNames(),
      });
    },
  };
}
