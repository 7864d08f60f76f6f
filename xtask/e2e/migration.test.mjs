// The IndexedDB upgrade path: a version-1 database with a record is upgraded through a
// test-only version-2 migration (a new index) and the record is still there, read via it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, freshPage, newContext, withoutDemo } from './helpers.mjs';

const browser = fileBrowser();

test('version 1 → 2 keeps the stored project', async () => {
  const page = await freshPage(browser);
  const result = await page.evaluate(async () => {
    const glue = document.querySelector('link[rel="modulepreload"]').href;
    const app = await import(glue);
    return app.migrationSelfTest('geo-probe-migration-check');
  });
  assert.equal(result.versionBefore, 1);
  assert.equal(result.versionAfter, 2);
  assert.equal(result.project.id, 'proj_migration');
  assert.deepEqual(result.project.brand.aliases, ['元构场', 'yuangouchang']);
  const refused = await page.evaluate(async () => {
    const app = await import(document.querySelector('link[rel="modulepreload"]').href);
    try { await app.migrationSelfTest('geo-probe'); return 'accepted'; } catch (e) { return String(e); }
  });
  assert.match(refused, /scratch database/);
  const names = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name).sort());
  assert.deepEqual(names, ['geo-probe'], 'the scratch database was deleted');
});

// The app's own database at version 1 (records as version 1 stored them, no summaries) is
// upgraded to the current version (4: the summaries of version 2, the empty link-check store
// of version 3, the page figures of version 4) when the app opens: the records stay, every
// run gets its summary (format 5) and page figures from its probes on first read, and the
// dashboard's figures and comparison are those of `geo-probe diff` on the same data.
test('the app upgrades a version-1 database and computes the summaries of its runs', async () => {
  const path = await import('node:path');
  const { readFileSync } = await import('node:fs');
  const { open, byId, dumpDb, until, BASE_URL, cli, buildCli } = await import('./helpers.mjs');
  const FIXTURES = process.env.FIXTURES_DIR ?? path.resolve('fixtures');
  const file = path.join(FIXTURES, 'exports', 'mixed.json');

  // The records exactly as the app stores them (analysed on import).
  const source = await freshPage(browser, 'settings');
  await byId(source, 'settings-import-file').setInputFiles({ name: 'mixed.json', mimeType: 'application/json', buffer: readFileSync(file) });
  await source.locator('[data-testid="import-result"][data-status="ok"]').waitFor();
  const { stores } = await dumpDb(source);
  await source.context().close();

  const context = await newContext(browser);
  await withoutDemo(context);
  await context.route('**/__blank__', (r) => r.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>blank</title>' }));
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(new URL('__blank__', BASE_URL).href);
  await page.evaluate((records) => new Promise((resolve, reject) => {
    const V1 = [
      ['projects', 'id', ['updatedAt']],
      ['prompts', 'id', ['projectId', 'createdAt', 'updatedAt']],
      ['runs', 'id', ['projectId', 'createdAt', 'status']],
      ['probes', 'id', ['runId', 'projectId', 'promptId', 'status', 'createdAt']],
      ['settings', 'key', []],
    ];
    const req = indexedDB.open('geo-probe', 1);
    req.onupgradeneeded = () => {
      for (const [name, keyPath, indexes] of V1) {
        const store = req.result.createObjectStore(name, { keyPath });
        for (const i of indexes) store.createIndex(i, i, { unique: false });
      }
    };
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const db = req.result;
      const tx = db.transaction(['projects', 'prompts', 'runs', 'probes'], 'readwrite');
      for (const [name, list] of Object.entries(records)) for (const r of list) tx.objectStore(name).put(r);
      tx.oncomplete = () => { db.close(); resolve(); };
      tx.onerror = () => reject(tx.error);
    };
  }), { projects: stores.projects, prompts: stores.prompts, runs: stores.runs, probes: stores.probes });

  await open(page, '');
  const project = stores.projects[0].id;
  await until(async () => (await byId(page, 'project-select').locator(`option[value="${project}"]`).count()) > 0, 10000, 'project option');
  await byId(page, 'project-select').selectOption(project);
  await page.locator('[data-testid="dashboard"][data-state="ready"][data-run="run_mixed_b"]').waitFor({ timeout: 30000 });
  const db = await dumpDb(page);
  assert.equal(db.version, 4);
  assert.deepEqual(db.stores.linkChecks, [], 'the link-check store of version 3, empty');
  for (const name of ['projects', 'prompts', 'runs', 'probes']) assert.equal(db.stores[name].length, stores[name].length, `${name} kept`);
  assert.deepEqual(db.stores.runSummaries.map((s) => s.id).sort(), stores.runs.map((r) => r.id).sort(), 'a summary per run');
  // The format the app writes now (SUMMARY_FORMAT: 5 since the page figures), as it wrote
  // the summaries of the same file in a fresh profile.
  assert.ok(db.stores.runSummaries.every((s) => s.fresh && s.format === stores.runSummaries[0].format));
  assert.ok(stores.runSummaries[0].format >= 5);
  // Per run its three parts: positions, own actions and item keys (ADR 0023).
  const parts = stores.runs.flatMap((r) => ['positions', 'actions', 'keys'].map((p) => `${p}:${r.id}`)).sort();
  assert.deepEqual(db.stores.runPages.map((s) => s.id).sort(), parts, 'page figures per run');

  buildCli();
  const run = (args) => JSON.parse(cli(args));
  const diff = run(['diff', file, '--run', 'run_mixed_b']);
  const metrics = run(['metrics', file, '--run', 'run_mixed_b']);
  const m = Array.isArray(metrics) ? metrics[0] : metrics;
  assert.equal(await byId(page, 'metric-success-count').getAttribute('data-value'), String(m.successCount));
  assert.equal(Number(await byId(page, 'metric-mention-rate').getAttribute('data-value')), m.mentionRate);
  assert.equal(await byId(page, 'diff-verdict').getAttribute('data-value'), diff.verdict);
  const deltas = await byId(page, 'diff-row').evaluateAll((els) => els.map((e) => (e.dataset.delta === '' ? null : Number(e.dataset.delta))));
  assert.deepEqual(deltas, diff.metrics.map((x) => x.delta));
  assert.equal(await byId(page, 'trend-chart').getAttribute('data-points'), '2');
  assert.deepEqual(page.errors, []);
  await context.close();
});
