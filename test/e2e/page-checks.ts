/** Checks e2e journeys run on pages: axe-core in the page, html-validate on the HTML as sent. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { HtmlValidate, type ConfigData } from 'html-validate';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const htmlvalidate = new HtmlValidate(JSON.parse(readFileSync('.htmlvalidate.json', 'utf8')) as ConfigData);

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe-core in the page: serious and critical violations, one line each. */
export async function axeProblems(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (script-src 'self') stays on.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} at ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')}${v.nodes[0]?.failureSummary ? ` (${v.nodes[0].failureSummary.replace(/\s+/g, ' ').slice(0, 200)})` : ''}`,
    );
}

/** html-validate on the HTML exactly as the server sent it. */
export async function validityProblems(page: Page, path: string): Promise<string[]> {
  const response = await page.context().request.get(path, { maxRedirects: 0 });
  expect(response.headers()['content-type'], path).to.match(/^text\/html/);
  const report = await htmlvalidate.validateString(await response.text(), path);
  return report.results.flatMap((result) =>
    result.messages
      .filter((m) => m.severity === 2)
      .map((m) => `${m.ruleId} at ${m.line}:${m.column}: ${m.message}${m.selector ? ` (${m.selector})` : ''}`),
  );
}
