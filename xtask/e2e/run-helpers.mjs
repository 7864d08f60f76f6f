// Helpers of the run and XSS browser tests: the mock server and fixture-based exports.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { byId, open, until, dumpDb, freshPage, DEADLINE_MS, CLI, KEY_VARS } from './helpers.mjs';

/** Starts geo-mock on a free port with `args`; resolves to { url, stop }. */
export async function startMock(args = []) {
  const bin = process.env.GEO_MOCK_BIN;
  if (!bin) throw new Error('GEO_MOCK_BIN is not set: run through `cargo xtask e2e`');
  const child = spawn(bin, ['--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let deadline;
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`geo-mock exited with ${code}`)));
    deadline = setTimeout(() => reject(new Error('geo-mock did not start')), DEADLINE_MS);
  }).finally(() => clearTimeout(deadline));
  return { url, stop: () => child.kill() };
}

/** Starts `geo-probe proxy` ([`CLI`]: build it first with `buildCli`) on a free port in front
 * of `base` (a geo-mock URL) for `engines`, each with `key` in its key variable, allowing the
 * page's `origin`; resolves to { url, token, stderr: () => what it wrote, stop }. */
/** Opens the Engines page and waits for one row per engine and surface of `cmp` (`geo-probe
 * engines` on the same data); each column of `cmp` with its row, whose run and surface are the
 * column's. */
export async function engineRows(page, cmp) {
  await byId(page, 'nav-engines').click();
  await page.locator('[data-testid="engines-page"][data-state="ready"]').waitFor();
  const n = cmp.engines.length;
  await until(async () => (await byId(page, 'engine-row').count()) === n, DEADLINE_MS, `${n} engine rows`);
  const rows = [];
  for (const e of cmp.engines) {
    const row = page.locator(`[data-testid="engine-row"][data-engine="${e.engine}"][data-surface="${e.surface}"]`);
    assert.equal(await row.getAttribute('data-run'), e.runId, `${e.engine} ${e.surface}`);
    rows.push([e, row]);
  }
  return rows;
}

export async function startProxy({ engines, base, key, origin }) {
  const env = { ...process.env };
  for (const v of KEY_VARS) delete env[v];
  const vars = { qwen: 'DASHSCOPE_API_KEY', doubao: 'ARK_API_KEY', ernie: 'QIANFAN_API_KEY', hunyuan: 'HUNYUAN_API_KEY',
    deepseek: 'DEEPSEEK_API_KEY', anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY', gemini: 'GEMINI_API_KEY',
    perplexity: 'PERPLEXITY_API_KEY' };
  const args = ['proxy', '--port', '0', '--engine', engines.join(','), '--allow-origin', origin];
  for (const e of engines) {
    env[vars[e]] = key;
    args.push('--base-url', `${e}=${base}`);
  }
  const child = spawn(CLI, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
  let err = '';
  let deadline;
  const ready = new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      err += d;
      const url = err.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const token = err.match(/^token: (\S+)$/m);
      if (url && token) resolve({ url: url[1], token: token[1] });
    });
    child.on('exit', (code) => reject(new Error(`geo-probe proxy exited with ${code}: ${err}`)));
    deadline = setTimeout(() => reject(new Error(`geo-probe proxy did not start: ${err}`)), DEADLINE_MS);
  }).finally(() => clearTimeout(deadline));
  const { url, token } = await ready;
  return { url, token, stderr: () => err, stop: () => child.kill() };
}

/** The IndexedDB content (`dumpDb`) as a full export, for `geo-probe`. */
export function envelopeOf(db) {
  return {
    format: 'geo-probe-export', version: 1, exportedAt: '2026-11-29T08:00:00.000Z', appVersion: '0.1.0',
    projects: db.stores.projects, prompts: db.stores.prompts, runs: db.stores.runs, probes: db.stores.probes,
  };
}

// Chinese prompts with a recorded answer from DeepSeek and every Chinese engine
// (fixtures/responses/01_…, 08_…, 10_… and fixtures/engines/*/p01_…, p08_…, p10_…): a list with
// citations, a brand question answered without a search, a search that partly failed.
export const CN_PROMPTS = [
  { id: 'p01', text: '2026年国内有哪些靠谱的GEO（生成式引擎优化）服务商？' },
  { id: 'p08', text: '元构场智能科技是一家什么样的公司？' },
  { id: 'p10', text: 'GEO和SEO有什么区别？元构场提供哪些GEO服务？' },
];

// Prompts with a recorded answer from every engine (fixtures/engines/*/p01_…, p09_…).
export const ENGINE_PROMPTS = [
  { id: 'p01', text: '2026年国内有哪些靠谱的GEO（生成式引擎优化）服务商？' },
  { id: 'p09', text: 'What are the best GEO (generative engine optimization) agencies in 2026?' },
];

/** fixtures/project.json. */
export function fixtureProject() {
  const dir = process.env.FIXTURES_DIR ?? path.resolve('../../fixtures');
  return JSON.parse(readFileSync(path.join(dir, 'project.json'), 'utf8'));
}

/** An export of the fixture project with only `prompts` (objects with id and text). */
export function exportWithPrompts(prompts, extra = {}) {
  const env = fixtureProject();
  const project = env.projects[0];
  const base = env.prompts[0];
  return {
    ...env,
    runs: [],
    probes: [],
    prompts: prompts.map((p, i) => ({ ...base, id: p.id, text: p.text, createdAt: `2026-11-29T08:00:0${i}.000Z`, projectId: project.id })),
    ...extra,
  };
}

/** Imports `envelope` through the settings page and selects its first project. */
export async function importEnvelope(page, envelope) {
  await open(page, 'settings');
  await byId(page, 'settings-import-file').setInputFiles({
    name: 'export.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(envelope)),
  });
  await page.locator('[data-testid="import-result"][data-status="ok"]').waitFor();
  const id = envelope.projects[0].id;
  await until(async () => (await byId(page, 'project-select').locator(`option[value="${id}"]`).count()) > 0, 5000, 'project listed');
  await byId(page, 'project-select').selectOption(id);
}

/** Saves the base URL (and optionally a key) in settings. */
export async function saveSettings(page, { baseUrl = '', key = '' }) {
  await open(page, 'settings');
  await byId(page, 'settings-api-key').fill(key);
  await byId(page, 'settings-base-url').fill(baseUrl);
  await byId(page, 'settings-save').click();
  await page.locator('[data-testid="toast"][data-kind="ok"]').first().waitFor();
}

/** A fresh page with an export of `prompts` imported and the settings pointing at `mock` (with
 * `key`, none by default): where a run test against geo-mock starts. */
export async function mockedPage(browser, mock, prompts, key = '') {
  const page = await freshPage(browser);
  await importEnvelope(page, exportWithPrompts(prompts));
  await saveSettings(page, { baseUrl: mock.url, key });
  return page;
}

/** The progress attributes as numbers. */
export async function progressOf(page) {
  const el = byId(page, 'run-progress');
  if (!(await el.count())) return null;
  return {
    done: Number(await el.getAttribute('data-done')),
    planned: Number(await el.getAttribute('data-planned')),
    failed: Number(await el.getAttribute('data-failed')),
    running: (await el.getAttribute('data-running')) === 'true',
    inFlight: Number(await el.getAttribute('data-in-flight')),
  };
}

/** Opens the run page of the selected project and starts a run of every prompt. */
export async function startRun(page, { repeats = '3', concurrency = '3' } = {}) {
  await byId(page, 'nav-run').click();
  await until(async () => (await byId(page, 'run-prompt-toggle').count()) >= 1, 5000, 'prompt toggles');
  await byId(page, 'run-repeats').fill(repeats);
  await byId(page, 'run-concurrency').fill(concurrency);
  await until(async () => !(await byId(page, 'run-start').isDisabled()), 5000, 'start enabled');
  await byId(page, 'run-start').click();
}

/** Saves `baseUrl` (no key: proxy mode) for DeepSeek and each engine of `others`. */
export async function saveBases(page, baseUrl, others) {
  await open(page, 'settings');
  await byId(page, 'settings-base-url').fill(baseUrl);
  for (const e of others) await byId(page, `settings-base-url-${e}`).fill(baseUrl);
  await byId(page, 'settings-save').click();
  await page.locator('[data-testid="toast"][data-kind="ok"]').first().waitFor();
}

/** The IndexedDB dump once `n` runs are stored, none of them running. */
export const storedRuns = (page, n) => until(async () => {
  const d = await dumpDb(page);
  return d.stores.runs.length === n && d.stores.runs.every((r) => r.status !== 'running') ? d : null;
}, 60000, `${n} runs stored with their final status`);
