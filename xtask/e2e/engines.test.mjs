// Engines in the browser against geo-mock (proxy mode, no key): a two-engine run from one
// click on the run page (one run per engine, one groupId), the engine labels on the runs list
// and run detail, cited marks in the probe drawer, the Engines page whose data-values equal
// `geo-probe engines` on the same data, the sources page's cited rates (`geo-probe metrics`),
// per-engine settings, and a browser-blocked request
// that points to the proxy base URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileBrowser, freshPage, open, byId, dumpDb, until, cli, num } from './helpers.mjs';
import { startMock, exportWithPrompts, importEnvelope, saveBases, storedRuns, envelopeOf, ENGINE_PROMPTS, engineRows } from './run-helpers.mjs';

const FIXTURES = process.env.FIXTURES_DIR ?? path.resolve('fixtures');
// Prompts with a recorded answer from every engine.
const PROMPTS = ENGINE_PROMPTS;

const browser = fileBrowser({ cli: true });

test('one click runs two engines; labels, cited marks and the Engines page agree with geo-probe engines', async () => {
  const mock = await startMock(['--latency-ms', '50']);
  try {
    const page = await freshPage(browser);
    await importEnvelope(page, exportWithPrompts(PROMPTS));
    await saveBases(page, mock.url, ['openai']);

    await byId(page, 'nav-run').click();
    await until(async () => (await byId(page, 'run-engine').count()) === 9, 5000, 'nine engine boxes');
    const box = (e) => page.locator(`[data-testid="run-engine"][data-engine="${e}"]`);
    assert.ok(await box('deepseek').isChecked(), 'DeepSeek is ticked by default');
    assert.ok(!(await box('openai').isChecked()));
    // An engine without key or base URL cannot start.
    await box('gemini').check();
    await until(async () => await byId(page, 'run-start').isDisabled(), 3000, 'start disabled without a gemini key');
    assert.match(await byId(page, 'run-start-reason').textContent(), /Gemini/);
    await box('gemini').uncheck();
    await box('openai').check();
    assert.equal(await byId(page, 'run-model-openai').inputValue(), 'gpt-5-mini');
    await byId(page, 'run-repeats').fill('2');
    const est = byId(page, 'run-estimate');
    await until(async () => (await est.getAttribute('data-engines')) === '2', 3000, 'estimate of two engines');
    const parts = await byId(page, 'run-estimate-engine').all();
    assert.equal(parts.length, 2);
    const sum = (await Promise.all(parts.map((p) => p.getAttribute('data-cost-usd')))).reduce((a, c) => a + Number(c), 0);
    assert.ok(Math.abs(Number(await est.getAttribute('data-cost-usd')) - sum) < 1e-9, 'the batch costs the sum');
    await until(async () => !(await byId(page, 'run-start').isDisabled()), 5000, 'start enabled');
    await byId(page, 'run-start').click();

    await until(async () => (await byId(page, 'run-live').count()) === 2, 5000, 'two live runs');
    const db = await storedRuns(page, 2);
    const runs = db.stores.runs;
    assert.deepEqual(runs.map((r) => r.config.engine).sort(), ['deepseek', 'openai']);
    assert.ok(runs[0].groupId && runs[0].groupId === runs[1].groupId, 'one shared groupId');
    for (const r of runs) {
      assert.equal(r.status, 'completed', r.config.engine);
      assert.equal(db.stores.probes.filter((p) => p.runId === r.id).length, 4);
    }
    const openaiRun = runs.find((r) => r.config.engine === 'openai');
    const deepseekRun = runs.find((r) => r.config.engine === 'deepseek');
    assert.equal(openaiRun.config.model, 'gpt-5-mini');

    // Runs list and run detail show the engine.
    await byId(page, 'nav-runs').click();
    await until(async () => (await byId(page, 'run-row').count()) === 2, 5000, 'two run rows');
    for (const r of runs) {
      const label = page.locator(`[data-testid="run-row"][data-id="${r.id}"] [data-testid="run-engine-label"]`);
      assert.equal(await label.getAttribute('data-value'), r.config.engine);
    }
    await open(page, `runs/${openaiRun.id}`);
    await byId(page, 'run-status').waitFor();
    assert.equal(await byId(page, 'run-engine-label').first().getAttribute('data-value'), 'openai');

    // Cited marks in the drawer: OpenAI's url_citation marks, DeepSeek's none.
    const cited = db.stores.probes.find((p) => p.runId === openaiRun.id && p.sources.some((s) => s.cited === true));
    assert.ok(cited, 'an openai probe with a cited source');
    await page.locator(`[data-testid="probe-open"][data-open-probe="${cited.id}"]`).click();
    await byId(page, 'probe-drawer').waitFor();
    const marks = await page.locator('[data-testid="probe-source"]').evaluateAll((rows) => rows.map((r) => [r.dataset.url, r.dataset.cited]));
    assert.deepEqual(marks, cited.sources.map((s) => [s.url, s.cited ? 'true' : 'false']));
    assert.equal(await byId(page, 'probe-cited-count').getAttribute('data-value'), String(cited.sources.filter((s) => s.cited).length));
    await page.keyboard.press('Escape');
    const plain = db.stores.probes.find((p) => p.runId === deepseekRun.id && p.sources.length > 0);
    await open(page, `runs/${deepseekRun.id}`);
    await page.locator(`[data-testid="probe-open"][data-open-probe="${plain.id}"]`).click();
    await byId(page, 'probe-drawer').waitFor();
    const none = await page.locator('[data-testid="probe-source"]').evaluateAll((rows) => rows.map((r) => r.dataset.cited));
    assert.ok(none.length > 0 && none.every((c) => c === ''), 'no citation data: data-cited is empty');
    await page.keyboard.press('Escape');

    // The Engines page equals geo-probe engines on the same data.
    const dir = mkdtempSync(path.join(tmpdir(), 'geo-engines-'));
    const file = path.join(dir, 'export.json');
    writeFileSync(file, JSON.stringify(envelopeOf(await dumpDb(page))));
    const cmp = JSON.parse(cli(['engines', file, '--project', db.stores.projects[0].id]));
    assert.deepEqual(cmp.engines.map((e) => e.engine), ['deepseek', 'openai']);
    for (const [e, row] of await engineRows(page, cmp)) {
      assert.equal(num(await row.getAttribute('data-mention-rate')), e.mentionRate, `${e.engine} mention rate`);
      assert.equal(num(await row.getAttribute('data-first-mention-rate')), e.firstMentionRate);
      assert.equal(num(await row.getAttribute('data-owned-visibility')), e.ownedVisibility);
      assert.equal(num(await row.getAttribute('data-owned-citation-rate')), e.ownedCitationRate);
      const interval = row.locator('[data-testid="engine-interval"]');
      assert.equal(num(await interval.getAttribute('data-low')), e.mentionRateLow);
      assert.equal(num(await interval.getAttribute('data-high')), e.mentionRateHigh);
    }
    assert.equal(cmp.engines.find((e) => e.engine === 'deepseek').ownedCitationRate, null);
    assert.equal(await byId(page, 'engine-prompt-cell').count(), cmp.prompts.length * cmp.engines.length);
    for (const row of cmp.prompts) {
      for (const [engine, rate] of Object.entries(row.mentionRate)) {
        const cell = page.locator(`[data-testid="engine-prompt-cell"][data-engine="${engine}"][data-prompt="${row.promptId}"]`);
        assert.equal(num(await cell.getAttribute('data-value')), rate, `${row.promptId} × ${engine}`);
      }
    }

    // The sources page shows each domain's cited rate: the figures of geo-probe metrics.
    const [metrics] = JSON.parse(cli(['metrics', file, '--run', openaiRun.id]));
    const citedRate = new Map(metrics.domains.map((d) => [d.domain, d.citedRate]));
    assert.ok(metrics.domains.some((d) => d.citedRate > 0), 'some domain of the openai run is cited');
    await byId(page, 'nav-sources').click();
    await byId(page, 'run-select').selectOption(openaiRun.id);
    const cells = () => page.locator('[data-testid="source-row"]').evaluateAll((rows) => rows.map((r) => [r.dataset.domain, r.dataset.citedRate]));
    const shown = await until(async () => {
      const c = await cells();
      return c.length > 0 && c.every(([d]) => citedRate.has(d)) && c.some(([, v]) => v !== '') ? c : null;
    }, 5000, 'the openai run on the sources page');
    // One row per domain: the deepseek run's table left no row behind (an unkeyed list did).
    assert.equal(new Set(shown.map(([d]) => d)).size, shown.length, `one row per domain: ${JSON.stringify(shown)}`);
    for (const [domain, value] of shown) assert.equal(num(value), citedRate.get(domain), `${domain} cited rate`);
    await byId(page, 'run-select').selectOption(deepseekRun.id);
    await until(async () => {
      const c = await cells();
      return c.length > 0 && c.every(([, v]) => v === '');
    }, 5000, 'no cited rate without citation data');
    assert.deepEqual(page.errors.filter((e) => !/Failed to load resource/.test(e)), []);
  } finally { mock.stop(); }
});

test('each engine keeps its own key and base URL; a blocked browser request points to the proxy', async () => {
  const page = await freshPage(browser);
  await open(page, 'settings');
  for (const e of ['anthropic', 'openai', 'gemini', 'perplexity']) {
    await byId(page, `settings-api-key-${e}`).fill(`sk-${e}-key`);
  }
  await byId(page, 'settings-base-url-gemini').fill('http://127.0.0.1:9/');
  // DeepSeek's fields answer to both their old and their per-engine test ids.
  await byId(page, 'settings-api-key-deepseek').fill('sk-deepseek-key');
  assert.equal(await byId(page, 'settings-api-key').inputValue(), 'sk-deepseek-key');
  await byId(page, 'settings-save').click();
  await page.locator('[data-testid="toast"][data-kind="ok"]').first().waitFor();
  // Kept for the session only, the default (docs/security.md, finding 19).
  const stored = await page.evaluate(() => Object.fromEntries(Object.keys(sessionStorage).filter((k) => k.startsWith('geo-probe.apiKey')).map((k) => [k, sessionStorage.getItem(k)])));
  assert.deepEqual(stored, {
    'geo-probe.apiKey': 'sk-deepseek-key',
    'geo-probe.apiKey.anthropic': 'sk-anthropic-key',
    'geo-probe.apiKey.openai': 'sk-openai-key',
    'geo-probe.apiKey.gemini': 'sk-gemini-key',
    'geo-probe.apiKey.perplexity': 'sk-perplexity-key',
  });
  const db = await dumpDb(page);
  const text = JSON.stringify(db);
  for (const e of ['deepseek', 'anthropic', 'openai', 'gemini', 'perplexity']) assert.ok(!text.includes(`sk-${e}-key`), `${e} key in IndexedDB`);
  assert.ok(db.stores.settings.some((s) => JSON.stringify(s).includes('http://127.0.0.1:9')), 'gemini base url saved');
  // Reload: the fields come back from storage.
  await open(page, 'settings');
  await until(async () => (await byId(page, 'settings-base-url-gemini').inputValue()) === 'http://127.0.0.1:9', 5000, 'base url reloaded');
  assert.equal(await byId(page, 'settings-api-key-openai').inputValue(), 'sk-openai-key');
  // A request that gets no HTTP status: the verdict says CORS and the proxy base URL.
  await byId(page, 'settings-test-key-gemini').click();
  const verdict = byId(page, 'settings-key-verdict-gemini');
  await verdict.waitFor({ timeout: 35000 });
  assert.equal(await verdict.getAttribute('data-verdict'), 'unreachable');
  assert.match(await verdict.textContent(), /CORS/);
  assert.match(await verdict.textContent(), /代理/);
});
