import type { Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { Conflict, ValidationFailed } from '../../lib/errors.ts';
import { hardwareNames } from '../../lib/hardware-lookup.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { setupSchemas } from '../../schemas/setup.schema.ts';
import { SetupLimitReached, type Setup } from '../../services/setups.service.ts';
import { HW_CLASS_OPTIONS, knownHwClass, postedFields, postedValues } from '../../web/forms.ts';
import { FORM_FLAGS, otherFlagNames, setupFormValues, setupFromForm, setupSummary } from '../../web/setup-form.ts';
import { render } from '../../web/views.ts';
import { formProblems as plainProblems, plainFormErrors, SETUP_FIELD_LABELS } from '../../web/field-messages.ts';

/** A setup need not name its class: the setup forms offer "not saved" first. */
const SETUP_HW_CLASS_OPTIONS = [{ value: '', label: 'Not saved' }, ...HW_CLASS_OPTIONS];

const knownClass = (value: unknown): string => knownHwClass(value) ?? '';

interface FormProblems {
  fieldErrors: Record<string, string[]>;
  formErrors: string[];
  message: string;
  status: number;
}

/** The API's errors as a form shows them: validation inline, a taken name on the name field. */
function formProblems(error: unknown): FormProblems {
  if (error instanceof ValidationFailed) {
    return { ...error.details, message: 'Some fields need attention.', status: 400 };
  }
  if (error instanceof SetupLimitReached)
    return { fieldErrors: {}, formErrors: [error.message], message: 'The setup was not saved.', status: 409 };
  if (error instanceof Conflict) return { fieldErrors: { name: [error.message] }, formErrors: [], message: error.message, status: 409 };
  throw error;
}

/** /settings/setups and "save as setup" on a run page. */
export function settingsSetupsController({ services, profile }: AppContext) {
  const { setups } = services;
  const schemas = setupSchemas(profile);
  const { configFields, classFields } = schemas;
  const fromForm = (req: Request, mode: 'create' | 'edit') => setupFromForm(postedFields(req), { mode, configFields, classFields });

  /** What a setup form shows: its values, errors and the class whose inputs it holds. */
  function formState(values: Record<string, string>, problems?: Partial<FormProblems>) {
    // The API's messages as plain sentences about the setup form's fields.
    const plain = plainProblems(problems?.fieldErrors ?? {}, SETUP_FIELD_LABELS);
    return {
      values,
      fieldErrors: plain.fieldErrors,
      problems: plain.problems,
      formErrors: plainFormErrors(problems?.formErrors ?? [], SETUP_FIELD_LABELS),
      message: problems?.message,
      hwClass: knownClass(values.hwClass),
      otherFlags: otherFlagNames(values, '', configFields),
    };
  }
  const formChrome = () => ({ engines: profile.speedTests.engines, hwClassOptions: SETUP_HW_CLASS_OPTIONS, formFlags: FORM_FLAGS });
  const rowView = (setup: Setup) => ({ setup, summary: setupSummary(setup, configFields) });
  const editForm = (setup: Setup, hwClass?: unknown) => {
    const values = setupFormValues(setup, configFields);
    if (knownClass(hwClass)) values.hwClass = knownClass(hwClass);
    return formState(values);
  };

  interface PanelState {
    create?: ReturnType<typeof formState>;
    editing?: { id: string; form: ReturnType<typeof formState> };
    notice?: string;
  }

  /** The page, or for htmx only its panel (list and new-setup form). */
  async function showPanel(req: Request, res: Response, state: PanelState = {}, status = 200) {
    ensureCsrfToken(req);
    const { setups: list } = await setups.list(req.actor!.user.id);
    render(
      res,
      isHtmxRequest(req) ? 'partials/setups/panel' : 'pages/settings/setups',
      {
        title: 'Saved setups',
        ...formChrome(),
        rows: list.map(rowView),
        create: state.create ?? formState(req.query.hwClass ? { hwClass: knownClass(req.query.hwClass) } : {}),
        editing: state.editing,
        notice: state.notice,
        hardwareNames: hardwareNames(),
      },
      status,
    );
  }

  function renderEditRow(req: Request, res: Response, setup: Setup, form: ReturnType<typeof formState>, status = 200) {
    ensureCsrfToken(req);
    render(res, 'partials/setups/edit-row', { ...formChrome(), setup, form }, status);
  }

  function renderRow(req: Request, res: Response, setup: Setup, status = 200) {
    ensureCsrfToken(req);
    render(res, 'partials/setups/row', rowView(setup), status);
  }

  const userId = (req: Request) => req.actor!.user.id;
  const setupId = (req: Request) => String(req.params.id);

  return {
    async show(req: Request, res: Response) {
      await showPanel(req, res);
    },

    async create(req: Request, res: Response) {
      const values = postedValues(req.body);
      try {
        const setup = await setups.create(userId(req), parseOrThrow(schemas.create, fromForm(req, 'create')));
        if (!isHtmxRequest(req)) return res.redirect(303, '/settings/setups');
        await showPanel(req, res, { notice: `Setup “${setup.name}” saved.` }, 201);
      } catch (error) {
        const problems = formProblems(error);
        await showPanel(req, res, { create: formState(values, problems) }, problems.status);
      }
    },

    /** The inline editor: a fragment for htmx, else the page with that setup open for editing. */
    async edit(req: Request, res: Response) {
      const setup = await setups.get(userId(req), setupId(req));
      const form = editForm(setup, req.query.hwClass);
      if (isHtmxRequest(req)) return renderEditRow(req, res, setup, form);
      await showPanel(req, res, { editing: { id: setup.id, form } });
    },

    /** One setup card (htmx "Cancel"); without JavaScript the list is the place to see it. */
    async row(req: Request, res: Response) {
      const setup = await setups.get(userId(req), setupId(req));
      if (!isHtmxRequest(req)) return res.redirect(303, '/settings/setups');
      renderRow(req, res, setup);
    },

    async update(req: Request, res: Response) {
      const setup = await setups.get(userId(req), setupId(req));
      const values = postedValues(req.body);
      try {
        const updated = await setups.update(userId(req), setup.id, parseOrThrow(schemas.patch, fromForm(req, 'edit')));
        if (!isHtmxRequest(req)) return res.redirect(303, '/settings/setups');
        renderRow(req, res, updated);
      } catch (error) {
        const problems = formProblems(error);
        const form = formState(values, problems);
        if (isHtmxRequest(req)) return renderEditRow(req, res, setup, form, problems.status);
        await showPanel(req, res, { editing: { id: setup.id, form } }, problems.status);
      }
    },

    async makeDefault(req: Request, res: Response) {
      const setup = await setups.update(userId(req), setupId(req), { isDefault: true });
      if (!isHtmxRequest(req)) return res.redirect(303, '/settings/setups');
      await showPanel(req, res, { notice: `“${setup.name}” is now your default setup.` });
    },

    async remove(req: Request, res: Response) {
      await setups.remove(userId(req), setupId(req));
      // htmx removes the card itself (hx-swap="delete"); without JavaScript, back to the list.
      if (isHtmxRequest(req)) res.status(200).end();
      else res.redirect(303, '/settings/setups');
    },

    /** htmx: the hardware inputs of the class just chosen, for the new-setup form or one editor. */
    hardwareFields(req: Request, res: Response) {
      const key = req.params.id ?? 'new';
      render(res, 'partials/setups/hardware-fields', {
        hwClass: knownClass(req.query.hwClass),
        values: {},
        fieldErrors: {},
        idPrefix: key === 'new' ? 'f-' : `s-${key}-`,
        gpus: null,
      });
    },

    /** "Save as setup" on a run page: the run's hardware, engine and flags under a new name. */
    async saveFromRun(req: Request, res: Response) {
      const run = await services.speedTests.get(setupId(req));
      const values = postedValues(req.body);
      const form = { runId: run.id, values, fieldErrors: {}, formErrors: [] as string[] };
      const fragment = isHtmxRequest(req);
      try {
        const { name, description, isDefault } = setupFromForm(postedFields(req), { mode: 'create', configFields: [], classFields });
        const saved = await setups.saveFromRun(userId(req), run, { name, description, isDefault });
        if (!fragment) return res.redirect(303, '/settings/setups');
        render(res, 'partials/setups/save-from-run', { ...form, values: {}, saved }, 201);
      } catch (error) {
        const problems = formProblems(error);
        render(res, fragment ? 'partials/setups/save-from-run' : 'pages/setups/from-run', { ...form, ...problems }, problems.status);
      }
    },
  };
}
