// Helpers of the run and XSS browser tests: the mock server and fixture-based exports.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { byId, open, until, dumpDb, DEADLINE_MS } from './helpers.mjs';

/** Starts geo-mock on a free port with `args`; resolves to { url, stop }. */
export async function startMock(args = []) {
  const bin = process.env.GEO_MOCK_BIN;
  if (!bin) throw new Error('GEO_MOCK_BIN is not set: run through `cargo xtask e2e`');
  const child = spawn(bin, ['--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`geo-mock exited with ${code}`)));
    setTimeout(() => reject(new Error('geo-mock did not start')), DEADLINE_MS);
  });
  return { url, stop: () => child.kill() };
}

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
