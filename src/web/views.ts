import { Eta } from 'eta';
import type { Response } from 'express';
import path from 'node:path';
import { projectRoot } from '../lib/project-root.ts';
import type { RevisionProfile } from '../revisions.ts';
import type { StaticAssets } from './assets.ts';
import { isHtmxRequest } from '../middleware/request-kind.ts';
import {
  activeSequences,
  aggregationLabel,
  executionModeLabel,
  formatNumber,
  hardwareLabel,
  hwClassLabel,
  judgeModeLabel,
  notStated,
  powerSourceLabel,
  reactionChoices,
  scoringMethodLabel,
  settingLabel,
  settingValue,
  shortHardwareLabel,
  streamsLabel,
  verdictLabel,
  verdictReason,
} from '../lib/labels.ts';
import { KNOWN_QUANTIZATIONS as knownQuantizations } from '../lib/quantization-labels.ts';

/** What a reaction bar needs of the page it is on: whether the reader may react, and where its form comes back to. */
function reactor(it: { currentUser?: unknown; csrfToken?: string; currentUrl: string }) {
  return { signedIn: Boolean(it.currentUser), csrfToken: it.csrfToken, back: it.currentUrl };
}

/** Small formatting functions templates may call as `it.h.*`. */
export const helpers = {
  activeSequences,
  aggregationLabel,
  executionModeLabel,
  formatNumber,
  hardwareLabel,
  hwClassLabel,
  judgeModeLabel,
  knownQuantizations,
  notStated,
  powerSourceLabel,
  reactionChoices,
  reactor,
  scoringMethodLabel,
  settingLabel,
  settingValue,
  shortHardwareLabel,
  streamsLabel,
  verdictLabel,
  verdictReason,
};

export const viewsDirectory = path.join(projectRoot, 'views');

export function createViewEngine(cache: boolean): Eta {
  return new Eta({ views: viewsDirectory, cache, defaultExtension: '.eta' });
}

/**
 * Renders a template with what every page needs (the signed-in user, the session's
 * CSRF token when there is one, the current path and URL, the revision and whether it has
 * quality evaluations) plus `data`, and sends it as HTML. Read at render time, so error
 * pages work at any stage.
 */
export function render(res: Response, template: string, data: Record<string, unknown> = {}, status = 200): void {
  const req = res.req;
  const eta = res.app.locals.eta as Eta;
  const profile = res.app.locals.profile as RevisionProfile;
  const assets = res.app.locals.assets as StaticAssets;
  // Shown once, on the first whole page after sign-up (never spent on an htmx fragment).
  const firstSteps = Boolean(req.session?.firstSteps) && !isHtmxRequest(req) && status < 300;
  if (firstSteps) delete req.session.firstSteps;
  const html = eta.render(template, {
    currentUser: req.actor?.via === 'session' ? req.actor.user : undefined,
    csrfToken: req.session?.csrfToken,
    currentPath: req.path,
    /** Path and query of this request, for forms that come back here. */
    currentUrl: req.originalUrl,
    revision: profile.revision,
    /** Resources this revision has, for the links to their pages. */
    features: { quality: profile.quality !== null, marketplace: profile.marketplace !== null, reports: profile.reports !== null },
    h: helpers,
    /** The fingerprinted address of a static file (`it.asset('/css/site.css')`). */
    asset: (assetPath: string) => assets.url(assetPath),
    firstSteps,
    ...data,
  });
  res.vary('HX-Request');
  res.status(status).type('html').send(html);
}
