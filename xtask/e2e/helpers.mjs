// Shared set-up of the browser tests: one headless Chromium per test file, a fresh
// context (empty storage) per test, helpers to read IndexedDB and Web Storage, and the
// `geo-probe` CLI that tests compare the pages with.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { before, after } from 'node:test';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
const EXECUTABLE = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

if (process.env.EXTRA_CHROMIUM_ARGS) ARGS.push(...process.env.EXTRA_CHROMIUM_ARGS.split(' '));

export async function launch() {
  return chromium.launch({ executablePath: EXECUTABLE, headless: true, args: ARGS });
}

/** The one browser of a test file: launched before its tests (after building `geo-probe`
 * when `cli` is true) and closed after them. What it returns stands for that browser where a
 * test hands one on (`freshPage(browser)`, `newContext(browser)`). */
export function fileBrowser({ cli = false } = {}) {
  let browser;
  before(async () => {
    if (cli) buildCli();
    browser = await launch();
  });
  after(async () => { await browser?.close(); });
  return { newContext: (options) => browser.newContext(options) };
}

const DEMO_FILE = '/demo/demo-data.json';
/** The demo's files: the demo file and its first view (ADR 0024). */
const DEMO_FILES = [DEMO_FILE, '/demo/demo-first-view.json'];

/** A deployment without demo data: both demo files answer 404 in `context`. */
export async function withoutDemo(context) {
  for (const file of DEMO_FILES) await context.route(`**${file}`, (r) => r.fulfill({ status: 404, body: 'not found' }));
}

/** Whether a console message comes from a demo file that `withoutDemo` answered 404. */
export const fromMissingDemo = (message) => DEMO_FILES.some((f) => (message.location()?.url ?? '').endsWith(f));

/** How long any wait may last before the test fails: a wait ends when the page reaches the
 * state it waits for, so this deadline only decides how soon a broken test gives up. It is
 * long, because a cold, busy machine is slow, and never what makes a passing test pass
 * (`E2E_DEADLINE_MS` overrides it). A shorter deadline passed to a wait is raised to it. */
export const DEADLINE_MS = Number(process.env.E2E_DEADLINE_MS ?? 90000);

/** A new browser context whose waits have the suite's deadline ([`DEADLINE_MS`]). */
export async function newContext(browser, options = {}) {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(DEADLINE_MS);
  return context;
}

/** Holds `indexedDB.open` and the demo file until `page.release()`: the app starts with no
 * storage and no demo data, as on a cold, busy machine, and gets both when the test says. */
async function holdStartup(context) {
  let release;
  const gate = new Promise((r) => { release = r; });
  await context.route(`**${DEMO_FILE}`, async (r) => { await gate; await r.continue(); });
  await context.addInitScript(() => {
    // Only the first document is held; a reload after the release opens storage at once.
    if (sessionStorage.getItem('geoTestStorageReleased')) return;
    const open = IDBFactory.prototype.open;
    let released;
    const gate = new Promise((r) => { released = r; });
    window.__geoReleaseStorage = () => released();
    IDBFactory.prototype.open = function (...args) {
      const req = open.apply(this, args);
      // The app's success handler runs once the test releases storage: until then the
      // database is open but the app has not heard of it.
      let handler = null;
      Object.defineProperty(req, 'onsuccess', { configurable: true, get: () => handler, set: (h) => { handler = h; } });
      req.addEventListener('success', (e) => { gate.then(() => handler?.call(req, e)); });
      return req;
    };
  });
  return async (page) => {
    release();
    await page.evaluate(() => { sessionStorage.setItem('geoTestStorageReleased', '1'); window.__geoReleaseStorage(); });
  };
}

/** A new page in a fresh context, with console errors collected in `page.errors`.
 * Tests start from an empty database: unless `{ demo: true }`, the demo file answers 404
 * (a deployment without demo data), so the app seeds nothing and writes nothing.
 * `viewport` (`{ width, height }`) sets the window size (default 1280 × 720). */
export async function freshPage(browser, path = '', { demo = false, viewport, hold = false } = {}) {
  const context = await newContext(browser, viewport ? { viewport } : {});
  if (!demo) await withoutDemo(context);
  const release = hold ? await holdStartup(context) : null;
  const page = await context.newPage();
  if (release) page.release = () => release(page);
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => {
    const blockedDemo = !demo && fromMissingDemo(m);
    if (m.type() === 'error' && !blockedDemo) page.errors.push(m.text());
  });
  await open(page, path);
  return page;
}

/** Navigates to `path` (relative to BASE_URL) and waits for the app shell. */
export async function open(page, path = '') {
  await page.goto(new URL(path, BASE_URL).href);
  await page.getByTestId('nav-projects').waitFor();
}

/** Waits until the header says it is settled (`app-header` `data-state="ready"`: storage open,
 * start-up work done, both selectors showing lists read at the current data version), at a
 * data version above `above` when given (a write since then has been read back); returns
 * that version. */
export async function headerReady(page, { above = -1 } = {}) {
  const handle = await page.waitForFunction((above) => {
    const h = document.querySelector('[data-testid="app-header"]');
    // An object, since version 0 is falsy and would keep the wait going.
    return h && h.dataset.state === 'ready' && Number(h.dataset.version) > above ? { version: Number(h.dataset.version) } : false;
  }, above, { timeout: DEADLINE_MS });
  return (await handle.jsonValue()).version;
}

/** The header's data version now. */
export async function dataVersion(page) {
  return Number(await page.getByTestId('app-header').getAttribute('data-version'));
}

export const byId = (page, id) => page.getByTestId(id);

/** A `data-…` value as a number: null when it is empty or absent. */
export const num = (v) => (v === '' || v == null ? null : Number(v));

/** The `geo-probe` database read in the page, in one read-only transaction over every store:
 * its version and, per store, every record (`what` = `'records'`) or its key path and sorted
 * index names (`'indexes'`). */
function readDb(page, what) {
  return page.evaluate((what) => new Promise((resolve, reject) => {
    const req = indexedDB.open('geo-probe');
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const db = req.result;
      const names = [...db.objectStoreNames];
      const tx = db.transaction(names, 'readonly');
      const stores = {};
      for (const n of names) {
        const s = tx.objectStore(n);
        if (what === 'indexes') {
          stores[n] = { keyPath: s.keyPath, indexes: [...s.indexNames].sort() };
        } else {
          const r = s.getAll();
          r.onsuccess = () => { stores[n] = r.result; };
        }
      }
      tx.oncomplete = () => { db.close(); resolve({ version: db.version, stores }); };
      tx.onerror = () => reject(tx.error);
    };
  }), what);
}

/** Every record of every store of the `geo-probe` database, read in the page. */
export async function dumpDb(page) {
  return readDb(page, 'records');
}

/** Index names of each store. */
export async function dbIndexes(page) {
  return (await readDb(page, 'indexes')).stores;
}

/** Polls `fn` until it returns a truthy value (or throws after `ms`, at least [`DEADLINE_MS`]). */
export async function until(fn, ms = DEADLINE_MS, what = 'condition') {
  const end = Date.now() + Math.max(ms, DEADLINE_MS);
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(last)}`);
}

/** `promise`, or a rejection naming `what` once [`DEADLINE_MS`] has passed without it. */
export function withDeadline(promise, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), DEADLINE_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The workspace root (the parent of `FIXTURES_DIR`, which `cargo xtask e2e` sets). */
export const ROOT = path.resolve(process.env.FIXTURES_DIR ?? path.resolve('../../fixtures'), '..');
/** The fixtures folder (`FIXTURES_DIR`). */
export const FIXTURES = process.env.FIXTURES_DIR ?? path.join(ROOT, 'fixtures');
/** The project of the fixture exports (`fixtures/project.json`). */
export const FIXTURE_PROJECT = 'proj_yuangouchang';

/** Imports the fixture export `fixtures/exports/FILE` through the settings page. */
export async function importFixtureExport(page, file) {
  await open(page, 'settings');
  const text = readFileSync(path.join(FIXTURES, 'exports', file));
  await page.getByTestId('settings-import-file').setInputFiles({ name: file, mimeType: 'application/json', buffer: text });
  await page.locator('[data-testid="import-result"][data-status="ok"]').waitFor();
}

/** Opens the dashboard on run `runId` of `project` (picked in the header) and waits until it shows it. */
export async function showRun(page, runId, project = FIXTURE_PROJECT) {
  await open(page, '');
  const options = (id, value) => page.getByTestId(id).locator(`option[value="${value}"]`).count();
  await until(async () => (await options('project-select', project)) > 0, 5000, 'project option');
  await page.getByTestId('project-select').selectOption(project);
  await until(async () => (await options('run-select', runId)) > 0, 5000, 'run option');
  await page.getByTestId('run-select').selectOption(runId);
  await page.locator(`[data-testid="dashboard"][data-state="ready"][data-run="${runId}"]`).waitFor();
}

/** The debug `geo-probe`, beside the mock `cargo xtask e2e` builds (`GEO_MOCK_BIN`). */
export const CLI = path.join(path.dirname(process.env.GEO_MOCK_BIN ?? path.join(ROOT, 'target/debug/geo-mock')), 'geo-probe');

/** Builds the debug `geo-probe` ([`CLI`]) for the tests that compare the pages with it. */
export function buildCli() {
  const build = spawnSync('cargo', ['build', '-q', '-p', 'geo-cli'], { cwd: ROOT, stdio: 'inherit' });
  assert.equal(build.status, 0, 'building geo-probe failed');
}

/** Every engine's key variable (engines.md) and the proxy's token: no test passes one on. */
export const KEY_VARS = ['DEEPSEEK_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'PERPLEXITY_API_KEY',
  'DASHSCOPE_API_KEY', 'ARK_API_KEY', 'QIANFAN_API_KEY', 'HUNYUAN_API_KEY', 'GEO_PROBE_PROXY_TOKEN'];

/** This process's environment without [`KEY_VARS`]: what `geo-probe` runs with here. */
export function keylessEnv() {
  const env = { ...process.env };
  for (const v of KEY_VARS) delete env[v];
  return env;
}

/** Runs `geo-probe ARGS` with no engine's API key in its environment (a test never uses a
 * key) and returns its standard output; a non-zero exit fails the test with its stderr. */
export function cli(args) {
  const r = spawnSync(CLI, args, { encoding: 'utf8', env: keylessEnv(), maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `geo-probe ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}
