import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { HtmlValidate, type ConfigData } from 'html-validate';
import type { Page } from 'playwright-core';
import { createOfflineServices } from '../../src/services/index.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { useE2eApp } from './harness.ts';
import { deviceOf } from '../../src/lib/hardware-devices.ts';
import { axeProblems, validityProblems } from './page-checks.ts';

const deviceSlugOf = (details: Parameters<typeof deviceOf>[0]) => deviceOf(details).slug;

/** Form controls a person can use that have no label of any kind. */
async function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea')]
      .filter((el) => !['hidden', 'submit', 'button', 'reset', 'image'].includes((el as HTMLInputElement).type))
      .filter((el) => {
        const control = el as HTMLInputElement;
        const labelled = (control.labels?.length ?? 0) > 0 && [...control.labels!].some((label) => label.textContent!.trim() !== '');
        return !labelled && !control.getAttribute('aria-label') && !control.getAttribute('aria-labelledby');
      })
      .map((el) => el.outerHTML.slice(0, 120)),
  );
}

/** The focused element shows a ring: a visible outline (or box-shadow) while :focus-visible. */
async function focusRing(page: Page): Promise<{ tag: string; text: string; visible: boolean; style: string }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 1;
    const shadow = style.boxShadow !== 'none';
    return {
      tag: el.tagName.toLowerCase(),
      text: (el.textContent ?? '').trim().slice(0, 40),
      visible: el.matches(':focus-visible') && (outline || shadow),
      style: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor} / ${style.boxShadow}`,
    };
  });
}

describe('e2e: accessibility and validity of every page type', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 40 });
  const pages: { name: string; path: string; as: 'visitor' | 'user' | 'admin' }[] = [];
  let username = '';
  let adminPage: Page;
  let userPage: Page;

  before(async function () {
    this.timeout(60_000);
    // A user with a run, a key and a setup; an admin with one action in the audit log.
    userPage = await e2e.newPage({}, true);
    username = await e2e.signUp(userPage);
    await userPage.goto('/settings/keys');
    await userPage.getByLabel('Name').fill('a11y key');
    await userPage.getByRole('button', { name: 'Create key' }).click();
    await userPage.locator('#new-key').waitFor();
    await userPage.goto('/settings/setups');
    const setupForm = userPage.locator('form.setup-form').last();
    await setupForm.getByLabel('Name', { exact: true }).fill('Desk box');
    await setupForm.getByLabel('Hardware class').selectOption('CPU_ONLY');
    await setupForm.getByLabel('CPU', { exact: true }).fill('AMD Ryzen 9 7950X');
    await setupForm.getByLabel('RAM (GB)').fill('64');
    await setupForm.getByRole('button', { name: 'Save setup' }).click();
    await userPage.getByText('Setup “Desk box” saved.').waitFor();
    adminPage = await e2e.newPage({}, true);
    await e2e.signInAsAdmin(adminPage);
    await adminPage.goto(`/admin/users?q=${username}`);
    await adminPage
      .locator('tbody tr', { hasText: `@${username}` })
      .getByRole('button', { name: 'Verify' })
      .click();
    await adminPage
      .locator('tbody tr', { hasText: `@${username}` })
      .getByRole('button', { name: 'Unverify' })
      .waitFor();

    const top = await e2e.db('speed_test_runs').first('id', 'hardware_id').orderBy('created_at', 'desc');
    const model = 'Qwen/Qwen2.5-7B';
    // An execution of the user's (written directly: no workers run here), for its page.
    const user = await e2e.db('users').where({ username }).first('id');
    const demoSuite = await e2e.db('quality_suites').where({ slug: 'arithmetic-qa-mini' }).first('id');
    const [execution] = await e2e
      .db('quality_executions')
      .insert({
        user_id: user.id,
        suite_id: demoSuite.id,
        status: 'RUNNING',
        total: 12,
        done: 5,
        request: JSON.stringify({
          suiteSlug: 'arithmetic-qa-mini',
          baseUrl: 'https://llm.example.net',
          model: 'demo',
          hfId: 'Qwen/Qwen2.5-7B',
          autoSubmit: false,
          hardware: null,
          quantization: null,
          modelRevision: 'main',
          notes: null,
          taskKeys: null,
          tasks: [{ key: 'arithmetic', displayName: 'Arithmetic word problems', weight: 1, total: 12 }],
          aggregation: 'weighted_mean',
          judged: false,
        }),
      })
      .returning('id');
    // Two demo runs made the user's: one fresh (correctable), one withdrawn, for the owner's pages.
    const [own, withdrawn] = await e2e
      .db('speed_test_runs')
      .where({ status: 'APPROVED' })
      .orderBy('created_at', 'asc')
      .limit(2)
      .pluck('id');
    await e2e.db('speed_test_runs').where({ id: own }).update({ user_id: user.id, created_at: e2e.clock.now() });
    await e2e
      .db('speed_test_runs')
      .where({ id: withdrawn })
      .update({ user_id: user.id, status: 'WITHDRAWN', withdrawn_at: e2e.clock.now() });
    // A draft listing of the user's with their run as proof; a demo listing for the public page.
    const ownListing = await createOfflineServices(e2e.db, getRevisionProfile(3), e2e.clock).marketplace.create(user.id, {
      title: 'Desk box GPU',
      description: 'For the accessibility pass.',
      condition: 'USED',
      price: 700,
      currency: 'EUR',
      hwClass: 'DISCRETE_GPU',
      hardwareName: 'RTX 4090',
      hardwareDetails: '',
      contactUrl: 'mailto:a11y@example.com',
      benchmarkRunIds: [own],
    });
    const demoListing = await e2e.db('marketplace_listings').where({ status: 'ACTIVE' }).first('id');
    // A published report of the user's (table, task list, footnote, a live card) and a draft, for the report pages.
    const csrf = (await userPage.locator('meta[name="csrf-token"]').getAttribute('content'))!;
    const writeReport = async (published: boolean) => {
      const content = `## Results\n\n| quant | tok/s |\n|:--|--:|\n| Q4_K_M | 48 |\n\n- [x] flash attention\n\nMeasured twice[^1].\n\n## Card\n\n[[report-embed:${encodeURIComponent(`${e2e.config.publicUrl}/models/${model}`)}]]\n\n## Notes\n\n[^1]: Same prompt.`;
      const res = await userPage.request.post(`/api/models/${model}/reports`, {
        headers: { 'X-CSRF-Token': csrf },
        data: { title: published ? 'Qwen2.5 on a desk box' : 'Draft notes', content, tags: ['desk'], published },
      });
      return ((await res.json()) as { report: { id: string } }).report.id;
    };
    const [report, draft] = [await writeReport(true), await writeReport(false)];
    const qualityRun = await e2e
      .db('quality_runs as q')
      .join('models as m', 'm.id', 'q.model_id')
      .where('q.status', 'APPROVED')
      .first('q.id', 'm.hf_id');
    pages.push(
      { name: 'leaderboard', path: '/', as: 'visitor' },
      { name: 'leaderboard, filtered and signed in', path: '/?hwClass=DISCRETE_GPU&sort=ttftMs', as: 'user' },
      { name: 'leaderboard with invalid filters', path: '/?memTier=7', as: 'visitor' },
      { name: 'models', path: '/models', as: 'visitor' },
      { name: 'models as a tree', path: '/models?tree=true', as: 'visitor' },
      { name: 'model', path: `/models/${model}`, as: 'visitor' },
      { name: 'hardware', path: `/hardware/${top.hardware_id}`, as: 'visitor' },
      { name: 'hardware index', path: '/hardware', as: 'visitor' },
      {
        name: 'hardware device',
        path: `/hardware/${deviceSlugOf((await e2e.db('hardware_profiles').where({ id: top.hardware_id }).first('details')).details)}`,
        as: 'visitor',
      },
      { name: 'model, with its finetunes', path: `/models/${model}?scope=tree`, as: 'visitor' },
      {
        name: 'compare runs',
        path: `/compare?runs=${(await e2e.db('speed_test_runs').where({ status: 'APPROVED' }).orderBy('tok_s_out', 'desc').limit(3).pluck('id')).join(',')}`,
        as: 'user',
      },
      { name: 'compare, bad address', path: '/compare?runs=nope', as: 'visitor' },
      { name: 'will it run?', path: '/predict', as: 'visitor' },
      {
        name: 'will it run? answered',
        path: `/predict?hfId=${encodeURIComponent(model)}&quantization=Q4_K_M&hardwareName=RTX%204090`,
        as: 'visitor',
      },
      { name: 'run', path: `/runs/${top.id}`, as: 'user' },
      { name: 'run, signed out', path: `/runs/${top.id}`, as: 'visitor' },
      { name: 'own run (correct, withdraw)', path: `/runs/${own}`, as: 'user' },
      { name: 'own withdrawn run', path: `/runs/${withdrawn}`, as: 'user' },
      { name: 'correct own run', path: `/runs/${own}/correct`, as: 'user' },
      { name: 'own runs', path: '/settings/runs', as: 'user' },
      { name: 'profile', path: `/u/${username}`, as: 'visitor' },
      { name: 'methodology', path: '/methodology', as: 'visitor' },
      { name: 'API reference', path: '/docs/api', as: 'visitor' },
      { name: 'guide for agents', path: '/docs/agents', as: 'visitor' },
      { name: 'sign in', path: '/signin', as: 'visitor' },
      { name: 'sign up', path: '/signup', as: 'visitor' },
      { name: 'not found', path: '/no/such/page', as: 'visitor' },
      { name: 'submit', path: '/submit', as: 'user' },
      { name: 'submit, signed out (what it takes)', path: '/submit', as: 'visitor' },
      { name: 'submit, unified memory', path: '/submit?setup=&hwClass=UNIFIED', as: 'user' },
      { name: 'API keys', path: '/settings/keys', as: 'user' },
      { name: 'setups', path: '/settings/setups', as: 'user' },
      { name: 'profile settings', path: '/settings/profile', as: 'user' },
      { name: 'admin', path: '/admin', as: 'admin' },
      { name: 'admin users', path: '/admin/users', as: 'admin' },
      { name: 'admin runs', path: '/admin/runs', as: 'admin' },
      { name: 'admin hardware names', path: '/admin/hardware', as: 'admin' },
      { name: 'admin audit log', path: '/admin/audit', as: 'admin' },
      { name: 'quality review', path: '/admin/quality', as: 'admin' },
      { name: 'evals', path: '/evals', as: 'visitor' },
      { name: 'eval suite', path: '/evals/arithmetic-qa-mini', as: 'visitor' },
      { name: 'quality run', path: `/evals/runs/${qualityRun.id}`, as: 'user' },
      { name: 'model with quality runs', path: `/models/${qualityRun.hf_id}`, as: 'visitor' },
      { name: 'register a suite', path: '/evals/new?example=custom', as: 'user' },
      { name: 'quality submissions', path: '/settings/submissions', as: 'user' },
      { name: 'run a suite', path: '/evals/arithmetic-qa-mini/run', as: 'user' },
      { name: 'an execution', path: `/evals/executions/${execution.id}`, as: 'user' },
      { name: 'marketplace', path: '/marketplace', as: 'visitor' },
      { name: 'marketplace, filtered', path: '/marketplace?hwClass=DISCRETE_GPU&sort=usd_per_tok_s', as: 'user' },
      { name: 'a listing', path: `/marketplace/${demoListing.id}`, as: 'visitor' },
      { name: 'own listings', path: '/settings/listings', as: 'user' },
      { name: 'edit own listing', path: `/settings/listings/${ownListing.id}`, as: 'user' },
      { name: 'admin listings', path: '/admin/listings', as: 'admin' },
      { name: 'report', path: `/reports/${report}`, as: 'visitor' },
      { name: 'report, as an admin', path: `/reports/${report}`, as: 'admin' },
      { name: 'own draft report', path: `/reports/${draft}`, as: 'user' },
      { name: 'report editor', path: `/reports/${draft}/edit`, as: 'user' },
      { name: 'new report', path: `/reports/new?model=${model}`, as: 'user' },
      { name: 'reports on a model', path: `/models/${model}/reports`, as: 'visitor' },
      { name: 'own reports', path: '/settings/reports', as: 'user' },
    );
  });

  it('every page type: no serious or critical axe violation, valid HTML, labelled controls, visible focus', async function () {
    // Over forty page types, each validated, checked by axe and tabbed through.
    this.timeout(240_000);
    const visitor = await e2e.newPage();
    const problems: string[] = [];
    const pageFor = { visitor, user: userPage, admin: adminPage };
    for (const { name, path, as } of pages) {
      const page = pageFor[as];
      await page.goto(path);
      for (const problem of await validityProblems(page, path)) problems.push(`${name} (${path}) html-validate: ${problem}`);
      for (const problem of await axeProblems(page)) problems.push(`${name} (${path}) axe: ${problem}`);
      for (const control of await unlabelledControls(page)) problems.push(`${name} (${path}) unlabelled control: ${control}`);

      // Keyboard focus: the first Tab lands on a link with a visible ring; so does a button.
      await page.locator('body').focus();
      await page.keyboard.press('Tab');
      const link = await focusRing(page);
      if (!link.visible) problems.push(`${name} (${path}) focus not visible on <${link.tag}> “${link.text}”: ${link.style}`);
      const button = page.locator('main button:visible').first();
      if (await button.count()) {
        await button.focus();
        const ring = await focusRing(page);
        if (ring.tag !== 'button' || !ring.visible)
          problems.push(`${name} (${path}) focus not visible on <${ring.tag}> “${ring.text}”: ${ring.style}`);
      }
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('the pages people read most pass axe in the dark colour scheme too', async function () {
    this.timeout(60_000);
    const dark = await e2e.newPage({ colorScheme: 'dark' });
    await e2e.signIn(dark, username);
    const problems: string[] = [];
    for (const { name, path } of pages.filter((p) => ['leaderboard', 'model', 'run', 'submit', 'API keys', 'setups'].includes(p.name))) {
      await dark.goto(path);
      for (const problem of await axeProblems(dark)) problems.push(`${name} (${path}) dark axe: ${problem}`);
    }
    await dark.goto('/');
    await e2e.screenshot(dark, 'leaderboard-dark');
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('htmx fragments are valid markup on their own', async () => {
    const page = userPage;
    const fragments = [
      '/?hwClass=CPU_ONLY',
      '/models?search=qwen',
      '/submit/hardware-fields?hardware.hwClass=UNIFIED',
      '/submit/hardware-fields?hardware.hwClass=DISCRETE_GPU',
      '/models/Qwen/Qwen2.5-7B?scope=tree&offset=1',
    ];
    const problems: string[] = [];
    // A fragment is swapped into a page that has the doctype; every other rule applies.
    const fragmentValidator = new HtmlValidate({
      ...(JSON.parse(readFileSync('.htmlvalidate.json', 'utf8')) as ConfigData),
      rules: { 'missing-doctype': 'off' },
    });
    for (const path of fragments) {
      const response = await page.context().request.get(path, { headers: { 'HX-Request': 'true' } });
      const html = await response.text();
      expect(html, path).not.to.include('<html');
      const report = await fragmentValidator.validateString(html, path);
      for (const result of report.results)
        for (const m of result.messages) if (m.severity === 2) problems.push(`${path}: ${m.ruleId} at ${m.line}:${m.column}: ${m.message}`);
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });
});
