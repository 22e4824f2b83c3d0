/**
 * axe-core on the page as it is now, in the page itself.
 *
 * The dashboard's CSP (`script-src 'self'`) refuses an injected <script> (what
 * `page.addScriptTag` does). Playwright's `page.evaluate` hands the source to the DevTools
 * protocol (Runtime.evaluate), which the page's CSP does not govern, so axe runs in the very page
 * under test, in the state the journey left it (a dialog open, a reply half written), with the
 * CSP still in force for everything else. A second context with `bypassCSP` would have to rebuild
 * that state, and would check a page whose policy is off.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, ImpactValue, Result } from 'axe-core';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What fails a page: axe's two highest impacts. Moderate and minor findings are printed, not failed on. */
export const FAILING_IMPACTS: readonly ImpactValue[] = ['serious', 'critical'];

export interface AxeFinding {
  id: string;
  impact: ImpactValue | undefined;
  help: string;
  helpUrl: string;
  /** Each offending element: its selector and what axe says is wrong with it. */
  nodes: { target: string; summary: string }[];
}

/** Every axe violation on the page now (WCAG 2.x A/AA and axe's best practices), or those of the `rules` given. */
export async function runAxe(page: Page, rules?: string[]): Promise<AxeFinding[]> {
  const loaded = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const options = { resultTypes: ['violations'], ...(rules ? { runOnly: { type: 'rule', values: rules } } : {}) };
  const results = await page.evaluate((o) => (window as unknown as { axe: { run: (context: Document, options: object) => Promise<AxeResults> } }).axe.run(document, o), options);
  return results.violations.map((v: Result) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    helpUrl: v.helpUrl,
    nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: (n.failureSummary ?? '').replace(/\s*\n\s*/g, ' ') })),
  }));
}

/**
 * The page as it is, then its colours once more in the dark scheme (styles.css has one): a colour
 * that reads on white can fail on the dark surface. Then back to light, Playwright's default for a context.
 */
export async function runAxeInBothSchemes(page: Page): Promise<AxeFinding[]> {
  const light = await runAxe(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    const dark = await runAxe(page, ['color-contrast']);
    return [...light, ...dark.map((f) => ({ ...f, id: `${f.id} (dark scheme)` }))];
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
}

/** One block per violation: impact, rule, what it asks, and each element with axe's explanation. */
export function formatFindings(where: string, findings: AxeFinding[]): string {
  return findings
    .map((f) => [`[${f.impact}] ${f.id} on ${where}: ${f.help} (${f.helpUrl})`, ...f.nodes.map((n) => `    ${n.target}\n      ${n.summary}`)].join('\n'))
    .join('\n');
}
