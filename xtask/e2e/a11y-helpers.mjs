// Helpers of the accessibility and layout tests: axe-core run inside the page, the list of
// pages with something on them (the demo project seeded), horizontal overflow.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { byId, dumpDb, headerReady, open, until } from './helpers.mjs';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const DEMO = 'proj_demo';
export const DEMO_RUN = 'run_20261129T020000_demo';

/** Every page of the app, with the element that says it has rendered its content. */
export const PAGES = [
  { name: 'dashboard', path: '', ready: `[data-testid="dashboard"][data-state="ready"] [data-testid="metric-mention-rate"]` },
  { name: 'projects', path: 'projects', ready: '[data-testid="prompt-row"]' },
  { name: 'run', path: 'run', ready: '[data-testid="run-estimate"]' },
  { name: 'runs', path: 'runs', ready: '[data-testid="run-row"]' },
  { name: 'run-detail', path: `runs/${DEMO_RUN}`, ready: '[data-testid="probe-row"]' },
  { name: 'engines', path: 'engines', ready: '[data-testid="engines-page"][data-state="ready"] [data-testid="engine-row"]' },
  { name: 'sources', path: 'sources', ready: '[data-testid="source-row"]' },
  { name: 'actions', path: 'actions', ready: '[data-testid="actions"][data-state="ready"] [data-testid="lost-prompt-row"]' },
  { name: 'claims', path: 'claims', ready: '[data-testid="claims"][data-state="ready"] [data-testid="risk-target-row"]' },
  { name: 'lists', path: 'lists', ready: '[data-testid="list-row"]' },
  { name: 'export', path: 'export', ready: '[data-testid="export-full-json"]' },
  { name: 'settings', path: 'settings', ready: '[data-testid="settings-save"]' },
  { name: 'chat', path: 'chat', ready: '[data-testid="chat-question"]' },
  { name: 'not-found', path: 'no-such-page', ready: 'main h1' },
];

/** Waits until the demo project is seeded and selected. */
export async function demoSeeded(page) {
  await until(async () => {
    const db = await dumpDb(page);
    return db.stores.settings.some((s) => s.key === 'demoSeeded' && s.value === true);
  }, 20000, 'demo seeded');
  await until(async () => (await byId(page, 'project-select').inputValue()) === DEMO, 5000, 'demo selected');
  await headerReady(page);
}

/** Opens `p` (one of PAGES) and waits for its content and a settled header. */
export async function openPage(page, p) {
  await open(page, p.path);
  await page.locator(p.ready).first().waitFor();
  await headerReady(page);
}

/** Switches the interface to `lang` (`zh` | `en`) with the header toggle. */
export async function setLang(page, lang) {
  if ((await byId(page, 'lang-toggle').getAttribute('data-value')) !== lang) await byId(page, 'lang-toggle').click();
  await page.waitForFunction((l) => document.documentElement.lang === l, lang);
}

/** axe-core's serious and critical violations of the page as it is now (WCAG 2.1 A/AA
 * and best practices), each as `rule (impact): target, target…` for a readable failure;
 * with `include` (CSS selectors), of those parts of the page only. */
export async function axeViolations(page, include = null) {
  // Evaluated through the DevTools protocol, so the app's CSP (no inline scripts) stays on.
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (include) => {
    const result = await window.axe.run(include ? { include: include.map((s) => [s]) } : document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  }, include);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}: ${v.help}): ${v.targets.join(', ')}`);
}

/** How far the page scrolls sideways (0 when it does not), and the widest offenders. */
export async function horizontalOverflow(page) {
  return page.evaluate(() => {
    const doc = document.documentElement;
    const over = Math.max(doc.scrollWidth, document.body.scrollWidth) - doc.clientWidth;
    const offenders = [];
    if (over > 0) {
      for (const el of document.body.querySelectorAll('*')) {
        const r = el.getBoundingClientRect();
        if (r.right > doc.clientWidth + 1 && r.width > 0) {
          const id = el.dataset?.testid ? `[data-testid=${el.dataset.testid}]` : '';
          offenders.push(`${el.tagName.toLowerCase()}${id}${el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : ''} right=${Math.round(r.right)}`);
          if (offenders.length >= 6) break;
        }
      }
    }
    return { over, width: doc.clientWidth, offenders };
  });
}
