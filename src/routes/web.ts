import { Router } from 'express';
import type { AppContext } from '../app-context.ts';
import { adminHardwareController } from '../controllers/web/admin-hardware.ts';
import { adminOverviewController } from '../controllers/web/admin-overview.ts';
import { adminQualityController } from '../controllers/web/admin-quality.ts';
import { adminSpeedTestsController } from '../runs/http/admin-speed-tests.pages.ts';
import { adminUsersController } from '../controllers/web/admin-users.ts';
import { authController } from '../controllers/web/auth.ts';
import { cataloguePagesController } from '../controllers/web/catalogue.ts';
import { docsPagesController } from '../controllers/web/docs.ts';
import { devicePagesController } from '../controllers/web/device.ts';
import { comparePagesController } from '../runs/http/compare.pages.ts';
import { hardwarePagesController } from '../controllers/web/hardware.ts';
import { predictionPagesController } from '../controllers/web/predictions.ts';
import { leaderboardPagesController } from '../runs/http/leaderboard.pages.ts';
import { marketplacePagesController } from '../controllers/web/marketplace.ts';
import { profilesController } from '../controllers/web/profiles.ts';
import { qualitySubmissionsController } from '../controllers/web/quality-submissions.ts';
import { executionPagesController } from '../controllers/web/executions.ts';
import { qualityPagesController } from '../controllers/web/quality.ts';
import { reactionPagesController } from '../controllers/web/reactions.ts';
import { reportPagesController } from '../controllers/web/reports.ts';
import { settingsKeysController } from '../controllers/web/keys.ts';
import { settingsSetupsController } from '../controllers/web/setups.ts';
import { speedTestPagesController } from '../runs/http/speed-tests.pages.ts';
import { requireAdmin, requireAuth } from '../middleware/require-auth.ts';
import { validate } from '../middleware/validate.ts';
import { messages } from '../messages.ts';
import { idParam } from '../schemas/path-params.schema.ts';
import { slugParam } from '../schemas/quality.schema.ts';
import { listingImagePathParams } from '../schemas/marketplace.schema.ts';

/** A path id that names nothing is the resource's 404 page, before any other work. */
const id = {
  speedTest: validate({ params: idParam(messages.speedTestNotFound, 'Run id') }),
  hardware: validate({ params: idParam(messages.hardwareProfileNotFound, 'Hardware profile id') }),
  apiKey: validate({ params: idParam(messages.apiKeyNotFound, 'API key id') }),
  setup: validate({ params: idParam(messages.setupNotFound, 'Setup id') }),
  user: validate({ params: idParam(messages.userNotFound, 'User id') }),
  qualitySubmission: validate({ params: idParam(messages.qualitySubmissionNotFound, 'Quality suite or dataset id') }),
  qualityRun: validate({ params: idParam(messages.qualityRunNotFound, 'Quality run id') }),
  execution: validate({ params: idParam(messages.executionNotFound, 'Execution id') }),
  report: validate({ params: idParam(messages.reportNotFound, 'Report id') }),
  suiteSlug: validate({ params: slugParam(messages.qualitySuiteNotFound('that slug'), 'Suite slug') }),
  listing: validate({ params: idParam(messages.listingNotFound, 'Listing id') }),
  listingImage: validate({ params: listingImagePathParams }),
};

/** Server-rendered pages. */
export function webRoutes(app: AppContext): Router {
  const router = Router();
  const session = requireAuth('session');
  const leaderboard = leaderboardPagesController(app);
  const catalogue = cataloguePagesController(app);
  const docs = docsPagesController(app);
  const auth = authController(app);
  const keys = settingsKeysController(app);
  const setups = settingsSetupsController(app);
  const speedTests = speedTestPagesController(app);
  const reactions = reactionPagesController(app);
  const profiles = profilesController(app);
  const adminOverview = adminOverviewController(app);
  const adminUsers = adminUsersController(app);
  const adminSpeedTests = adminSpeedTestsController(app);
  const adminHardware = adminHardwareController(app);

  router.get('/', leaderboard.show);
  router.get('/leaderboard/model-suggestions', leaderboard.modelSuggestions);
  router.get('/models', catalogue.models);
  router.get('/models/:org/:model', catalogue.model);
  // A device's readable address (`/hardware/nvidia-rtx-4090`) and a profile's uuid share the path.
  const hardware = hardwarePagesController(app);
  router.get('/hardware', hardware.index);
  router.get('/hardware/:device', hardware.device);
  router.get('/hardware/:id', id.hardware, hardware.profile);
  router.get('/compare', comparePagesController(app).show);
  router.get('/predict', predictionPagesController(app).show);
  router.get('/methodology', catalogue.methodology);

  router.get('/docs', docs.index);
  router.get('/docs/api', docs.api);
  router.get('/docs/agents', docs.agents);

  router.get('/signup', auth.signUpForm);
  router.post('/signup', auth.signUp);
  router.get('/signin', auth.signInForm);
  router.post('/signin', auth.signIn);
  router.post('/signout', auth.signOut);

  // Device login (RFC 8628): a signed-in person approves a command-line client's code.
  const device = devicePagesController(app);
  router.get('/device', session, device.show);
  router.post('/device', session, device.decide);

  router.get('/settings/keys', session, keys.show);
  router.post('/settings/keys', session, keys.create);
  router.post('/settings/keys/:id/revoke', session, id.apiKey, keys.revoke);

  router.get('/settings/setups', session, setups.show);
  router.post('/settings/setups', session, setups.create);
  router.get('/settings/setups/new/hardware-fields', session, setups.hardwareFields);
  router.get('/settings/setups/:id/hardware-fields', session, id.setup, setups.hardwareFields);
  router.get('/settings/setups/:id/edit', session, id.setup, setups.edit);
  router.get('/settings/setups/:id', session, id.setup, setups.row);
  router.post('/settings/setups/:id', session, id.setup, setups.update);
  router.post('/settings/setups/:id/default', session, id.setup, setups.makeDefault);
  router.post('/settings/setups/:id/delete', session, id.setup, setups.remove);

  router.get('/submit', speedTests.introWhenSignedOut, session, speedTests.form);
  router.post('/submit', session, speedTests.submit);
  router.get('/submit/hardware-fields', session, speedTests.hardwareFields);
  router.post('/submit/parse-command', session, speedTests.parseCommand);
  router.post('/submit/validate', session, speedTests.validate);
  router.post('/submit/check-model', session, speedTests.checkModel);
  router.get('/runs/:id', id.speedTest, speedTests.show);
  router.get('/runs/:id/correct', session, id.speedTest, speedTests.correctForm);
  router.post('/runs/:id/correct', session, id.speedTest, speedTests.correct);
  router.post('/runs/:id/withdraw', session, id.speedTest, speedTests.withdraw);
  router.get('/settings/runs', session, speedTests.ownRuns);
  router.post('/runs/:id/setup', session, id.speedTest, setups.saveFromRun);
  router.post('/runs/:id/react', session, id.speedTest, reactions.react);

  // Quality submissions: register a suite (before `/evals/:slug`, which would take `new`), the owner's list, corrections.
  if (app.profile.quality) {
    const submissions = qualitySubmissionsController(app);
    router.get('/evals/new', session, submissions.newForm);
    router.post('/evals/new', session, submissions.register);
    router.post('/evals/new/check', session, submissions.check);
    router.get('/settings/submissions', session, submissions.submissions);
    router.get('/settings/submissions/suites/:id/edit', session, id.qualitySubmission, submissions.editForm);
    router.post('/settings/submissions/suites/:id/edit', session, id.qualitySubmission, submissions.update);
    router.post('/settings/submissions/suites/:id/check', session, id.qualitySubmission, submissions.checkEdit);
    router.post('/settings/submissions/:kind/:id/withdraw', session, id.qualitySubmission, submissions.withdraw);
  }

  // Quality pages (revisions with quality evaluations; elsewhere these addresses are 404).
  // `/evals/:slug` takes any one segment, so fixed `/evals/<word>` pages must be registered before this block.
  if (app.profile.quality) {
    const quality = qualityPagesController(app);
    router.get('/evals', quality.catalogue);
    router.get('/evals/runs/:id', id.qualityRun, quality.run);
    router.post('/evals/runs/:id/react', session, id.qualityRun, reactions.reactToQualityRun);
    router.get('/evals/:slug', id.suiteSlug, quality.suite);
    // Server-side execution: the run form of a suite, an execution's page and its cancel.
    const executions = executionPagesController(app);
    router.get('/evals/:slug/run', session, id.suiteSlug, executions.form);
    router.post('/evals/:slug/run', session, id.suiteSlug, executions.submit);
    router.get('/evals/executions/:id', session, id.execution, executions.page);
    router.post('/evals/executions/:id/cancel', session, id.execution, executions.cancel);
  }

  // Model reports (revision 3); `/reports/new` and `/reports/preview` before `/reports/:id`.
  if (app.profile.reports) {
    const reports = reportPagesController(app);
    router.get('/models/:org/:model/reports', reports.forModel);
    router.get('/reports/new', session, reports.newForm);
    router.post('/reports/new', session, reports.create);
    router.post('/reports/preview', session, reports.preview);
    router.get('/reports/:id', id.report, reports.show);
    router.get('/reports/:id/edit', session, id.report, reports.editForm);
    router.post('/reports/:id/edit', session, id.report, reports.update);
    router.post('/reports/:id/delete', session, id.report, reports.remove);
    router.post('/reports/:id/images', session, id.report, reports.uploadImage);
    router.get('/settings/reports', session, reports.own);
    router.post('/admin/reports/:id/unpublish', requireAdmin, id.report, reports.unpublish);
  }

  router.get('/u/:username', profiles.show);
  router.get('/settings/profile', session, profiles.settings);
  router.post('/settings/profile', session, profiles.updateProfile);
  router.post('/settings/profile/password', session, profiles.changePassword);
  router.post('/settings/profile/keys/revoke-all', session, profiles.revokeAllKeys);

  router.get('/admin', requireAdmin, adminOverview.overview);
  router.get('/admin/audit', requireAdmin, adminOverview.audit);
  router.get('/admin/users', requireAdmin, adminUsers.list);
  router.post('/admin/users/:id/verification', requireAdmin, id.user, adminUsers.setVerified);
  router.post('/admin/users/:id/admin', requireAdmin, id.user, adminUsers.setAdmin);
  router.get('/admin/runs', requireAdmin, adminSpeedTests.list);
  router.post('/admin/runs/:id/reject', requireAdmin, id.speedTest, adminSpeedTests.reject);
  router.post('/admin/runs/:id/restore', requireAdmin, id.speedTest, adminSpeedTests.restore);
  router.get('/admin/hardware', requireAdmin, adminHardware.page);
  router.post('/admin/hardware/map', requireAdmin, adminHardware.map);
  router.post('/admin/hardware/unmap', requireAdmin, adminHardware.unmap);

  // Quality review: only where the revision has quality evaluations (elsewhere these paths are unknown pages).
  if (app.profile.quality) {
    const adminQuality = adminQualityController(app);
    router.get('/admin/quality', requireAdmin, adminQuality.queues);
    router.post('/admin/quality/suites/:id/approve', requireAdmin, id.qualitySubmission, adminQuality.approveSuite);
    router.post('/admin/quality/suites/:id/reject', requireAdmin, id.qualitySubmission, adminQuality.rejectSuite);
    router.post('/admin/quality/suites/:id/official', requireAdmin, id.qualitySubmission, adminQuality.setSuiteOfficial);
    // Sharded datasets exist only where the revision has submissions.
    if (app.profile.quality.submissions) {
      router.post('/admin/quality/datasets/:id/approve', requireAdmin, id.qualitySubmission, adminQuality.approveDataset);
      router.post('/admin/quality/datasets/:id/reject', requireAdmin, id.qualitySubmission, adminQuality.rejectDataset);
    }
    router.post('/admin/quality/runs/:id/approve', requireAdmin, id.qualityRun, adminQuality.approveRun);
    router.post('/admin/quality/runs/:id/reject', requireAdmin, id.qualityRun, adminQuality.rejectRun);
  }

  // The hardware marketplace: only where the revision has it.
  if (app.profile.marketplace) {
    const market = marketplacePagesController(app);
    router.get('/marketplace', market.browse);
    router.get('/marketplace/:id', id.listing, market.show);
    router.get('/settings/listings', session, market.mine);
    router.post('/settings/listings', session, market.create);
    router.get('/settings/listings/:id', session, id.listing, market.edit);
    router.post('/settings/listings/:id', session, id.listing, market.update);
    router.post('/settings/listings/:id/publish', session, id.listing, market.publish);
    router.post('/settings/listings/:id/sold', session, id.listing, market.sold);
    router.post('/settings/listings/:id/remove', session, id.listing, market.remove);
    // Multipart: parsed in src/app.ts before the CSRF check (LISTING_IMAGE_FORM_PATH).
    router.post('/settings/listings/:id/images', session, id.listing, market.upload);
    router.post('/settings/listings/:id/images/:imageId/move', session, id.listingImage, market.moveImage);
    router.post('/settings/listings/:id/images/:imageId/delete', session, id.listingImage, market.deleteImage);
    router.get('/admin/listings', requireAdmin, market.adminList);
    router.post('/admin/listings/:id/remove', requireAdmin, id.listing, market.adminRemove);
  }

  return router;
}
