// Helpers of guards.test.mjs: starting a run from the run page, counting the requests a
// page sends to the mock, and an import envelope big enough to overflow a small quota.
import { byId, until } from './helpers.mjs';
import { fixtureProject, mockedPage, progressOf, startRun } from './run-helpers.mjs';

/** Opens the run page of the selected project and starts a run of every prompt, once each by default. */
export function startRunAll(page, { repeats = '1', concurrency = '3' } = {}) {
  return startRun(page, { repeats, concurrency });
}

/** Resolves once the live progress says the session ended (finished or cancelled). */
export async function sessionEnded(page, ms = 30000) {
  return until(async () => {
    const p = await progressOf(page);
    return p && !p.running ? p : null;
  }, ms, 'session ended');
}

/** Records the POST bodies `page` sends to `baseUrl`; `count(marker)` counts those
 * containing `marker`. */
export function recordPosts(page, baseUrl) {
  const bodies = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().startsWith(baseUrl)) bodies.push(r.postData() ?? '');
  });
  return { bodies, count: (marker) => bodies.filter((b) => b.includes(marker)).length };
}

/** Collects the types of every dialog of `page` and dismisses it (a dismissed
 * `beforeunload` keeps the page). */
export function recordDialogs(page) {
  const types = [];
  page.on('dialog', (d) => {
    types.push(d.type());
    d.dismiss().catch(() => {});
  });
  return types;
}

/** A page of `prompts` whose run of them is in flight against `mock` (started by a click:
 * the user gesture Chromium wants before it shows a `beforeunload` prompt), and the types
 * of the dialogs it raises from then on. */
export async function pageWithRunInFlight(browser, mock, prompts) {
  const page = await mockedPage(browser, mock, prompts);
  const dialogs = recordDialogs(page);
  await startRunAll(page, { concurrency: '1' });
  await until(async () => (await progressOf(page))?.running, 5000, 'run in progress');
  return { page, dialogs };
}

/** A second project with `n` prompts of `size` characters each: one import, many records. */
export function bigEnvelope(n = 300, size = 4000) {
  const env = fixtureProject();
  const project = { ...env.projects[0], id: 'proj_quota', name: '配额测试项目' };
  const base = env.prompts[0];
  // Chromium compresses IndexedDB values: the text is pseudo-random (a fixed LCG seed, so
  // the file is the same every time) to keep its stored size close to its length.
  let seed = 12345;
  const next = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed; };
  const text = () => Array.from({ length: size }, () => String.fromCharCode(0x4e00 + (next() % 0x5000))).join('');
  const prompts = Array.from({ length: n }, (_, i) => ({
    ...base, id: `prm_quota_${i}`, projectId: project.id, text: `${i} ${text()}`,
  }));
  return { ...env, projects: [project], prompts, runs: [], probes: [] };
}
