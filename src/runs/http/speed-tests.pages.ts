import type { NextFunction, Request, Response } from 'express';
import type { AppContext } from '../../app-context.ts';
import { parseCommandSnippet } from '../../lib/command-snippet.ts';
import { Conflict, HttpError, NotFound, Unavailable, ValidationFailed } from '../../lib/errors.ts';
import { parseOrThrow } from '../../lib/validation.ts';
import { RUN_CORRECTION_WINDOW_HOURS } from '../../constants.ts';
import { deviceOf, type DeviceFacts } from '../../lib/hardware-devices.ts';
import { hardwareNames } from '../../lib/hardware-lookup.ts';
import { hardwareLabel } from '../../lib/labels.ts';
import { normaliseSubmission, resolveFlagAliases } from '../submission/normalise.ts';
import { ensureCsrfToken } from '../../middleware/csrf.ts';
import { baseUrlOf } from '../../openapi/cache.ts';
import { messages } from '../../messages.ts';
import { isHtmxRequest } from '../../middleware/request-kind.ts';
import { existingId } from '../../schemas/path-params.schema.ts';
import { setupSchemas } from '../../schemas/setup.schema.ts';
import { PROFILE_RUNS_PAGE_SIZE, profileQuerySchema } from '../../schemas/profile.schema.ts';
import { speedTestCorrectionSchema, speedTestSubmissionSchema } from '../submission/speed-test.schema.ts';
import type { OwnRun } from '../submission/owners.service.ts';
import type { SpeedTestRun } from '../submission/speed-tests.service.ts';
import type { Setup } from '../../services/setups.service.ts';
import { HW_CLASS_OPTIONS, knownHwClass, parseForm, postedValues } from '../../web/forms.ts';
import { otherFlagNames, submitFormValues } from '../../web/setup-form.ts';
import {
  compactRows,
  correctionFromForm,
  FORM_ROWS,
  formValuesOf,
  submissionFromForm,
  withCommandFields,
} from '../presentation/submission-form.ts';
import { formProblems, plainFormErrors, SUBMIT_FIELD_LABELS } from '../../web/field-messages.ts';
import { hardwareCostRules } from '../../constants.ts';
import { render } from '../../web/views.ts';

/** Runs like this one (same model, same class of hardware) listed on a run's page. */
const SIMILAR_RUNS = 5;

const hwClassFrom = (value: unknown) => knownHwClass(value) ?? 'DISCRETE_GPU';

/** How many rows of other GPUs and of purchases the form offers: the fixed number, or more when the values fill them. */
function rowCounts(values: Record<string, string>) {
  const highest = (pattern: RegExp) => Math.max(-1, ...Object.keys(values).map((name) => Number(pattern.exec(name)?.[1] ?? -1)));
  return {
    gpuRows: Math.max(FORM_ROWS.gpus, highest(/^hardware\.gpus\.(\d+)\./) + 1),
    costRows: Math.max(FORM_ROWS.hardwareCost, highest(/^hardwareCost\.(\d+)\./) + 2),
  };
}

/** The launch command's flags as form values (`engineFlags.gpuLayers` → '99'). */
function flagValues(flags: object): Record<string, string> {
  return Object.fromEntries(Object.entries(flags).map(([key, value]) => [`engineFlags.${key}`, String(value)]));
}

/** Where the form posts and what it says: the submit page, or an owner's correction of a run. */
interface FormTarget {
  template: string;
  title: string;
  formPath: string;
  submitLabel: string;
  /** The run being corrected. */
  run?: OwnRun;
}

const SUBMIT_TARGET: FormTarget = {
  template: 'pages/speed-tests/submit',
  title: 'Submit a run',
  formPath: '/submit',
  submitLabel: 'Submit run',
};

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

/** What a run's page says to its owner after a correction or a withdrawal (`?done=`). */
const WITHDRAWN_NOTICE = 'Run withdrawn: it is hidden from every public list, the leaderboard and the counts. You still see it here.';
const SUBMITTED_NOTICE = 'Run submitted: it is on the leaderboard now. Share its link below, or compare it with similar runs.';
const OWNER_NOTICES: Record<string, string> = {
  corrected: 'Correction saved: the run was checked again, and its plausibility verdict recomputed.',
  withdrawn: WITHDRAWN_NOTICE,
};

/** The submit form (with its htmx helpers), a run's page, and its owner's correction, withdrawal and list of runs. */
export function speedTestPagesController({ services, profile, clock, config }: AppContext) {
  const { configFields } = setupSchemas(profile);

  async function showForm(req: Request, res: Response, state: FormState = {}, status = 200, target: FormTarget = SUBMIT_TARGET) {
    ensureCsrfToken(req);
    const values = state.values ?? {};
    // The API's messages as plain sentences about the visible fields, inline and in a summary.
    const { fieldErrors, problems } = formProblems(state.fieldErrors ?? {});
    const formErrors = plainFormErrors(state.formErrors ?? []);
    render(
      res,
      target.template,
      {
        ...target,
        // The submit form posts back the saved setup it was filled from: a refused submission shows it still chosen in the picker.
        formPath:
          target.formPath === SUBMIT_TARGET.formPath && state.setupId
            ? `${target.formPath}?setup=${encodeURIComponent(state.setupId)}`
            : target.formPath,
        values,
        setups: (await services.setups.list(req.actor!.user.id)).setups,
        setupId: state.setupId ?? '',
        otherFlags: otherFlagNames(values, 'engineFlags.', configFields),
        fieldErrors,
        problems,
        formErrors,
        // After a submission with problems every field counts as visited: the live check keeps showing them all.
        touchedAll: problems.length > 0 || formErrors.length > 0,
        labels: SUBMIT_FIELD_LABELS,
        ...rowCounts(values),
        currencies: hardwareCostRules.currencies.map((code) => ({ value: code, label: code })),
        conditions: hardwareCostRules.conditions.map((condition) => ({
          value: condition,
          label: condition.charAt(0) + condition.slice(1).toLowerCase(),
        })),
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
    /** A signed-out visitor gets what submitting takes and the way in (sign up, or the agent guide) instead of the sign-in form. */
    introWhenSignedOut(req: Request, res: Response, next: NextFunction) {
      if (req.actor) return next();
      render(res, 'pages/start/submit-intro', { title: 'Submit a run' });
    },

    /**
     * The form, filled from a saved setup: `?setup=<id>` picks one (empty: a blank form),
     * otherwise the default setup. The picker asks with htmx and gets the form alone.
     */
    async form(req: Request, res: Response) {
      const userId = req.actor!.user.id;
      const chosen = req.query.setup;
      let setup: Setup | undefined;
      if (typeof chosen === 'string' && chosen !== '')
        setup = await services.setups.get(userId, existingId(chosen, messages.setupNotFound));
      else if (chosen === undefined) setup = await services.setups.findDefault(userId);
      const state: FormState = setup ? { values: submitFormValues(setup, configFields), setupId: setup.id } : {};
      await showForm(
        req,
        res,
        state,
        200,
        isHtmxRequest(req) ? { ...SUBMIT_TARGET, template: 'partials/speed-tests/submit-form' } : SUBMIT_TARGET,
      );
    },

    /** htmx: the fieldset of one hardware class. */
    hardwareFields(req: Request, res: Response) {
      render(res, 'partials/speed-tests/hardware-fields', {
        hwClass: hwClassFrom(req.query['hardware.hwClass'] ?? req.query.hwClass),
        values: {},
        fieldErrors: {},
        labels: SUBMIT_FIELD_LABELS,
        ...rowCounts({}),
      });
    },

    /** htmx, when the model field is left: what the model hub says about the id (the catalogue first, as a submission does). */
    async checkModel(req: Request, res: Response) {
      const hfId = (postedValues(req.body).hfId ?? '').trim();
      const syntax = speedTestSubmissionSchema(profile).shape.hfId.safeParse(hfId);
      if (!syntax.success) return render(res, 'partials/speed-tests/model-check', { state: 'not-asked' });
      try {
        await services.models.resolve(syntax.data);
        render(res, 'partials/speed-tests/model-check', { state: 'found', hfId: syntax.data });
      } catch (error) {
        if (error instanceof NotFound)
          return render(res, 'partials/speed-tests/model-check', { state: 'missing', hfId: syntax.data, message: error.message });
        if (error instanceof Unavailable)
          return render(res, 'partials/speed-tests/model-check', { state: 'unreachable', hfId: syntax.data });
        throw error;
      }
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

    /**
     * htmx: the whole validation of the form as it stands (no hub lookup while typing). Problems
     * are named only for the fields the person has left (`_touched`, kept by public/js/app.js;
     * `*` after a submission): nobody is told off about fields they have not reached yet.
     */
    validate(req: Request, res: Response) {
      const posted = compactRows(postedValues(req.body));
      // A form has a few dozen fields: a longer list is not a browser's, and is cut short.
      const touched = new Set((posted._touched ?? '').split(',', 200).filter(Boolean));
      const { values, filled } = withCommandFields(posted);
      let parsed: ReturnType<typeof normaliseSubmission> | undefined;
      let details: { fieldErrors: Record<string, string[]>; formErrors: string[] } = { fieldErrors: {}, formErrors: [] };
      try {
        parsed = normaliseSubmission(profile, submissionFromForm(values));
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        details = error instanceof ValidationFailed ? error.details : { fieldErrors: {}, formErrors: [error.message] };
      }
      const left = (field: string) => touched.has('*') || touched.has(field) || [...touched].some((name) => name.startsWith(`${field}.`));
      const { problems } = formProblems(details.fieldErrors);
      render(res, 'partials/speed-tests/validation', {
        state: 'checked',
        ok: parsed !== undefined,
        parsed,
        filledFromCommand: parsed ? [...filled, ...(parsed.commandSnippetFlags?.filledFields ?? [])] : [],
        problems: problems.filter((problem) => left(problem.field)),
        formErrors: touched.size > 0 ? plainFormErrors(details.formErrors) : [],
        waiting: problems.filter((problem) => !left(problem.field)).map((problem) => problem.label),
      });
    },

    async submit(req: Request, res: Response) {
      // An empty model id or engine comes from the launch command; the form shows which when it comes back.
      const { values, filled: filledFromCommand } = withCommandFields(compactRows(postedValues(req.body)));
      // A refused submission keeps the saved setup it was filled from chosen in the picker (the form posts to /submit?setup=<id>).
      const setupId = typeof req.query.setup === 'string' ? req.query.setup : '';
      const parsed = parseForm(speedTestSubmissionSchema(profile), submissionFromForm(values));
      if (!parsed.ok)
        return showForm(req, res, { values, filledFromCommand, setupId, ...parsed, message: 'Some fields need attention.' }, 400);
      try {
        const { run } = await services.speedTests.submit(req.actor!.user.id, parsed.data);
        // A one-time confirmation on the run's page (the session, not the address: a shared link says nothing).
        req.session.submittedRunId = run.id;
        res.redirect(303, `/runs/${run.id}`);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        if (error instanceof ValidationFailed)
          return showForm(req, res, { values, filledFromCommand, setupId, ...error.details, message: 'Some fields need attention.' }, 400);
        await showForm(req, res, { values, filledFromCommand, setupId, message: error.message }, error.status);
      }
    },

    async show(req: Request, res: Response) {
      // The owner sees their run in any status, with what only they see; admins see every
      // run with its moderation facts; everyone else only approved runs.
      const id = String(req.params.id);
      const viewerId = req.actor?.user.id ?? null;
      const { run, moderation, own } = req.actor?.user.isAdmin
        ? {
            ...(await services.moderation.getSpeedTest(id, viewerId)),
            own: viewerId ? await services.speedTestOwners.findOwnRun(viewerId, id) : null,
          }
        : await publicOrOwnRun(id, viewerId);
      const approved = run.status === 'APPROVED';
      const [standings, similar, evidence] = await Promise.all([
        approved ? services.speedTestContext.standings(id) : null,
        approved
          ? services.speedTestContext.similar(
              run as SpeedTestRun & { modelId: string; hardware: { hwClass: string } },
              SIMILAR_RUNS,
              viewerId,
            )
          : [],
        profile.speedTests.revision3Fields ? services.speedTestContext.evidence(id) : null,
      ]);
      ensureCsrfToken(req);
      // What the owner was just sent here after (?done=) comes first: it is newer than the one-time
      // submission notice, which a session saved by a request that overlapped its first view can bring back.
      const submitted = justSubmitted(req, id);
      const done = typeof req.query.done === 'string' ? OWNER_NOTICES[req.query.done] : undefined;
      render(res, 'pages/speed-tests/show', {
        title: `${run.hfId} · ${hardwareLabel(run.hardware as { hwClass: string })}`,
        run,
        moderation,
        own,
        notice: done ?? (submitted ? SUBMITTED_NOTICE : undefined),
        standings,
        similar,
        evidence,
        shareUrl: `${baseUrlOf(req, config)}/runs/${id}`,
        device: deviceOf(run.hardware as unknown as DeviceFacts),
        hubUrl: config.hfEndpoint,
        resultsPath: profile.speedTests.resultsPath,
        hardwareNames: hardwareNames(),
      });
    },

    /** The correction form of one of the viewer's runs, filled with what it holds (within the window). */
    async correctForm(req: Request, res: Response) {
      const target = await correctionTarget(req);
      const { submission } = await services.speedTestOwners.storedSubmission(req.actor!.user.id, target.run!.id);
      const values = formValuesOf(submission);
      // A class picked without JavaScript (the noscript links) starts that class's fields empty.
      const pickedClass = knownHwClass(req.query.hwClass);
      if (pickedClass && pickedClass !== values['hardware.hwClass']) {
        for (const name of Object.keys(values)) if (name.startsWith('hardware.')) delete values[name];
        values['hardware.hwClass'] = pickedClass;
      }
      await showForm(req, res, { values, otherFlags: otherFlagNames(values, 'engineFlags.', configFields) } as FormState, 200, target);
    },

    async correct(req: Request, res: Response) {
      const target = await correctionTarget(req);
      const values = compactRows(postedValues(req.body));
      const failed = (state: FormState, status: number) =>
        showForm(req, res, { values, message: 'Some fields need attention.', ...state }, status, target);
      const parsed = parseForm(speedTestCorrectionSchema(profile), correctionFromForm(values));
      if (!parsed.ok) return failed(parsed, 400);
      try {
        await services.speedTestOwners.correct(req.actor!.user.id, target.run!.id, parsed.data as Record<string, unknown>);
        res.redirect(303, `/runs/${target.run!.id}?done=corrected`);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        if (error instanceof ValidationFailed) return failed(error.details, 400);
        await failed({ message: error.message }, error.status);
      }
    },

    /**
     * Withdraws one of the viewer's runs. The forms ask first (htmx's confirm sends
     * `confirm=yes`); without JavaScript an unconfirmed post gets a page that asks.
     * From the runs list htmx gets the list back; otherwise the run's page (303, or
     * HX-Redirect for htmx).
     */
    async withdraw(req: Request, res: Response) {
      const userId = req.actor!.user.id;
      const id = String(req.params.id);
      const fromList = req.body?.from === 'list';
      if (req.body?.confirm !== 'yes') {
        const run = await services.speedTestOwners.ownRun(userId, id);
        ensureCsrfToken(req);
        return render(res, 'pages/speed-tests/withdraw', { title: 'Withdraw this run?', run, from: fromList ? 'list' : '' });
      }
      await services.speedTestOwners.withdraw(userId, id);
      if (isHtmxRequest(req) && fromList) return showOwnRuns(req, res, { kind: 'ok', text: WITHDRAWN_NOTICE });
      const next = fromList ? '/settings/runs?done=withdrawn' : `/runs/${id}?done=withdrawn`;
      if (isHtmxRequest(req)) {
        res.set('HX-Redirect', next);
        return void res.status(200).end();
      }
      res.redirect(303, next);
    },

    /** /settings/runs: the viewer's runs in every status with the admins' reasons (htmx: the list alone). */
    async ownRuns(req: Request, res: Response) {
      const notice = req.query.done === 'withdrawn' ? { kind: 'ok' as const, text: WITHDRAWN_NOTICE } : null;
      await showOwnRuns(req, res, notice);
    },
  };

  /** Whether this session just submitted run `id` (said once: the flag is dropped as it is read). */
  function justSubmitted(req: Request, id: string): boolean {
    if (!req.session || req.session.submittedRunId !== id) return false;
    delete req.session.submittedRunId;
    return true;
  }

  /**
   * An approved run as anyone sees it, with the owner-only facts when the viewer owns it;
   * a hidden run only for its owner (a 404 for everyone else). Non-owners cost one read.
   */
  async function publicOrOwnRun(
    id: string,
    viewerId: string | null,
  ): Promise<{ run: SpeedTestRun; moderation: undefined; own: OwnRun | null }> {
    try {
      const run = await services.speedTests.get(id, viewerId);
      const own = viewerId !== null && run.userId === viewerId ? await services.speedTestOwners.findOwnRun(viewerId, id) : null;
      return { run: own ?? run, moderation: undefined, own };
    } catch (error) {
      const own =
        error instanceof HttpError && error.status === 404 && viewerId !== null
          ? await services.speedTestOwners.findOwnRun(viewerId, id)
          : null;
      if (!own) throw error;
      return { run: own, moderation: undefined, own };
    }
  }

  /** The viewer's run to correct, as the correction form's target; 409 once it cannot be corrected. */
  async function correctionTarget(req: Request): Promise<FormTarget> {
    const run = await services.speedTestOwners.ownRun(req.actor!.user.id, String(req.params.id));
    if (!run.correctableUntil)
      throw new Conflict(
        run.status === 'APPROVED'
          ? messages.correctionWindowClosed(RUN_CORRECTION_WINDOW_HOURS)
          : messages.cannotCorrect(run.status as string),
      );
    return {
      template: 'pages/speed-tests/correct',
      title: 'Correct your run',
      formPath: `/runs/${run.id}/correct`,
      submitLabel: 'Save the correction',
      run,
    };
  }

  async function showOwnRuns(req: Request, res: Response, notice: { kind: 'ok' | 'error'; text: string } | null) {
    const { page } = parseOrThrow(profileQuerySchema, req.query);
    const list = await services.speedTestOwners.mine(req.actor!.user.id, {
      limit: PROFILE_RUNS_PAGE_SIZE,
      offset: (page - 1) * PROFILE_RUNS_PAGE_SIZE,
    });
    ensureCsrfToken(req);
    render(res, isHtmxRequest(req) ? 'partials/speed-tests/own-runs' : 'pages/settings/runs', {
      title: 'Your runs',
      runs: list.benchmarks,
      total: list.total,
      page,
      pages: Math.max(1, Math.ceil(list.total / PROFILE_RUNS_PAGE_SIZE)),
      notice,
      correctionHours: RUN_CORRECTION_WINDOW_HOURS,
      resultsPath: profile.speedTests.resultsPath,
    });
  }
}
