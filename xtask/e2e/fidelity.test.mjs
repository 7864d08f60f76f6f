// engines.md "Fidelity" in the browser against geo-mock (proxy mode, no key): the run page
// says what each engine is asked (budget, effort, thinking budget) and which engines ignore
// or refuse the temperature; models that think 8,000 tokens answer completely in one attempt
// with the default config; a pause_turn is continued; a small budget gives a truncated
// answer, shown as a badge in the runs list, the run detail and the drawer with its billed
// usage and cost; the figures equal `geo-probe metrics` and `geo-probe engines` on the same
// data; the settings page's key test says whether a search ran and how many sources came back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileBrowser, freshPage, open, byId, dumpDb, until, cli } from './helpers.mjs';
import { startMock, exportWithPrompts, importEnvelope, saveBases, storedRuns, engineRows } from './run-helpers.mjs';

const P01 = '2026年国内有哪些靠谱的GEO（生成式引擎优化）服务商？';
const PROMPTS = [
  { id: 'think', text: `[think:8000] ${P01}` },
  { id: 'pause', text: `[mock:pause] ${P01}` },
];
const ENGINES = ['deepseek', 'anthropic', 'openai', 'gemini', 'perplexity'];

const browser = fileBrowser({ cli: true });

function exportFile(db) {
  const dir = mkdtempSync(path.join(tmpdir(), 'geo-fidelity-'));
  const file = path.join(dir, 'export.json');
  writeFileSync(file, JSON.stringify({
    format: 'geo-probe-export', version: 1, exportedAt: '2026-11-29T08:00:00.000Z', appVersion: '0.1.0',
    projects: db.stores.projects, prompts: db.stores.prompts, runs: db.stores.runs, probes: db.stores.probes,
  }));
  return file;
}

const box = (page, e) => page.locator(`[data-testid="run-engine"][data-engine="${e}"]`);
const budgetOf = (page, e) => page.locator(`[data-testid="run-budget"][data-engine="${e}"]`);

test('budgets, the temperature note, one attempt at 8,000 tokens of thinking, pause_turn, truncation badges and costs equal geo-probe', async () => {
  const mock = await startMock();
  try {
    const page = await freshPage(browser);
    await importEnvelope(page, exportWithPrompts([...PROMPTS, { id: 'cut', text: `[think:2800] ${P01}` }]));
    await saveBases(page, mock.url, ENGINES.slice(1));

    // What each engine is asked with the default config.
    await byId(page, 'nav-run').click();
    await until(async () => (await byId(page, 'run-engine').count()) === 9, 5000, 'nine engine boxes');
    for (const e of ENGINES) if (!(await box(page, e).isChecked())) await box(page, e).check();
    await until(async () => (await byId(page, 'run-budget').count()) === 5, 5000, 'a budget per engine');
    assert.equal(await budgetOf(page, 'openai').getAttribute('data-max-tokens'), '16384');
    assert.equal(await budgetOf(page, 'openai').getAttribute('data-effort'), 'medium');
    assert.equal(await budgetOf(page, 'gemini').getAttribute('data-thinking-budget'), '8192');
    assert.equal(await budgetOf(page, 'deepseek').getAttribute('data-max-tokens'), '16384');
    assert.equal(await budgetOf(page, 'anthropic').getAttribute('data-effort'), '');
    // OpenAI and Perplexity ignore the temperature; Claude refuses 1.5 and the run cannot start.
    const note = byId(page, 'run-temperature-note');
    assert.equal(await note.getAttribute('data-engines'), 'openai,perplexity');
    await byId(page, 'run-temperature').fill('1.5');
    await until(async () => (await note.getAttribute('data-engines')) === 'openai,perplexity,anthropic', 5000, 'claude refuses 1.5');
    await until(async () => await byId(page, 'run-start').isDisabled(), 5000, 'start disabled');
    assert.match(await byId(page, 'run-start-reason').textContent(), /Claude/);
    await byId(page, 'run-temperature').fill('1');
    // Only the think and pause prompts, once each.
    await page.locator('[data-testid="run-prompt-toggle"][data-id="cut"]').uncheck();
    await byId(page, 'run-repeats').fill('1');
    await until(async () => !(await byId(page, 'run-start').isDisabled()), 5000, 'start enabled');
    await byId(page, 'run-start').click();
    let db = await storedRuns(page, 5);
    for (const r of db.stores.runs) {
      assert.equal(r.status, 'completed', r.config.engine);
      for (const p of db.stores.probes.filter((q) => q.runId === r.id)) {
        const what = `${r.config.engine} ${p.promptId}`;
        assert.equal(p.status, 'success', what);
        assert.equal(p.attempts, 1, what);
        assert.equal(p.truncated, false, what);
        const paused = p.promptId === 'pause' && ['anthropic', 'deepseek'].includes(r.config.engine);
        assert.equal(p.continuations, paused ? 1 : 0, what);
      }
    }
    const openaiConfig = db.stores.runs.find((r) => r.config.engine === 'openai').config;
    assert.equal(openaiConfig.maxTokens, 16384);
    assert.equal(openaiConfig.reasoningEffort, 'medium');

    // A small budget: the answer of a model thinking 2,800 tokens is cut off.
    await byId(page, 'nav-run').click();
    await until(async () => (await byId(page, 'run-engine').count()) === 9, 5000, 'engine boxes');
    for (const e of ENGINES) {
      if ((e === 'openai') !== (await box(page, e).isChecked())) await box(page, e).click();
    }
    for (const p of PROMPTS) await page.locator(`[data-testid="run-prompt-toggle"][data-id="${p.id}"]`).uncheck();
    await page.locator('[data-testid="run-prompt-toggle"][data-id="cut"]').check();
    await byId(page, 'run-max-tokens').fill('3000');
    await until(async () => (await budgetOf(page, 'openai').getAttribute('data-max-tokens')) === '3000', 5000, 'budget 3000');
    assert.equal(await byId(page, 'run-max-tokens').getAttribute('data-value'), '3000');
    await until(async () => !(await byId(page, 'run-start').isDisabled()), 5000, 'start enabled');
    await byId(page, 'run-start').click();
    db = await storedRuns(page, 6);
    const cutRun = db.stores.runs.find((r) => r.config.maxTokens === 3000);
    assert.ok(cutRun, 'the run records its budget');
    const cut = db.stores.probes.find((p) => p.runId === cutRun.id);
    assert.equal(cut.status, 'success');
    assert.equal(cut.truncated, true);

    const file = exportFile(db);
    const [m] = JSON.parse(cli(['metrics', file, '--run', cutRun.id]));
    assert.equal(m.truncatedCount, 1);

    // The runs list and the run detail show the badge; the drawer the cost of geo-probe metrics.
    await byId(page, 'nav-runs').click();
    const cell = page.locator(`[data-testid="run-row"][data-id="${cutRun.id}"] [data-testid="run-truncated"]`);
    await until(async () => (await cell.count()) === 1, 10000, 'the truncated cell of the run');
    assert.equal(await cell.getAttribute('data-value'), '1');
    await open(page, `runs/${cutRun.id}`);
    await byId(page, 'run-status').waitFor();
    await until(async () => (await byId(page, 'run-truncated').count()) === 1, 10000, 'the run detail figures');
    assert.equal(await byId(page, 'run-truncated').getAttribute('data-value'), '1');
    assert.equal(await byId(page, 'probe-truncated-badge').count(), 1);
    await page.locator(`[data-testid="probe-open"][data-open-probe="${cut.id}"]`).click();
    await byId(page, 'probe-drawer').waitFor();
    assert.equal(await byId(page, 'probe-truncated').count(), 1);
    const billed = byId(page, 'probe-billed');
    assert.equal(Number(await billed.getAttribute('data-input')), cut.billedUsage.inputTokens);
    assert.equal(Number(await billed.getAttribute('data-output')), cut.billedUsage.outputTokens);
    assert.equal(Number(await billed.getAttribute('data-cost')), m.estimatedCostUsd, 'one probe: its cost is the run\'s');
    await page.keyboard.press('Escape');

    // The Engines page's costs are those of geo-probe engines.
    const cmp = JSON.parse(cli(['engines', file, '--project', db.stores.projects[0].id]));
    assert.equal(cmp.engines.length, 5, 'five engines');
    for (const [e, row] of await engineRows(page, cmp)) {
      const cost = await row.getAttribute('data-cost-usd');
      assert.equal(cost === '' ? null : Number(cost), e.estimatedCostUsd, `${e.engine} cost`);
      assert.equal(Number(await row.getAttribute('data-truncated')), e.truncatedCount);
    }
    assert.equal(cmp.engines.find((e) => e.engine === 'openai').truncatedCount, 1);

    // The key test is the doctor's check: a search ran and sources came back.
    await open(page, 'settings');
    await byId(page, 'settings-test-key-openai').click();
    const check = byId(page, 'settings-key-test-openai');
    await check.waitFor();
    assert.equal(await check.getAttribute('data-searched'), 'true');
    assert.ok(Number(await check.getAttribute('data-sources')) > 0);
    assert.equal(await byId(page, 'settings-key-verdict-openai').getAttribute('data-verdict'), 'valid');
    assert.deepEqual(page.errors.filter((e) => !/Failed to load resource/.test(e)), []);
  } finally { mock.stop(); }
});
