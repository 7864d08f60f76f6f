// Runs in the browser against geo-mock in proxy mode (base URL, no key): progress, statuses,
// cancel, reload, continue, retry of failures, the settings key test, and the key staying
// out of IndexedDB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, open, byId, dumpDb, until } from './helpers.mjs';
import { startMock, mockedPage, progressOf, startRun } from './run-helpers.mjs';

const browser = fileBrowser();

const TWO = [{ id: 'p01', text: '2026年国内有哪些靠谱的GEO服务商？' }, { id: 'p02', text: '推荐几家做生成式引擎优化的公司' }];

async function finished(page, ms = 60000) {
  return until(async () => {
    const p = await progressOf(page);
    return p && !p.running && p.done === p.planned ? p : null;
  }, ms, 'run finished');
}

const storedRun = (page) => until(async () => {
  const d = await dumpDb(page);
  return d.stores.runs.length && d.stores.runs.every((r) => r.status !== 'running') ? d : null;
}, 10000, 'run stored with its final status');

const statusOf = async (page) => byId(page, 'run-status').getAttribute('data-value');

test('proxy mode without a key: 2 prompts × 3 repeats reach planned with the right statuses', async () => {
  const mock = await startMock(['--fault', '500:0.3', '--seed', '3', '--latency-ms', '200']);
  try {
    const page = await mockedPage(browser, mock, TWO);
    await byId(page, 'nav-run').click();
    await until(async () => (await byId(page, 'run-prompt-toggle').count()) === 2, 5000, 'two toggles');
    assert.equal(await byId(page, 'run-model').inputValue(), 'deepseek-v4-flash');
    assert.equal(await byId(page, 'run-repeats').inputValue(), '3');
    assert.equal(await byId(page, 'run-max-searches').inputValue(), '5');
    const est = byId(page, 'run-estimate');
    assert.ok(Number(await est.getAttribute('data-cost-usd')) > 0, 'a cost estimate');
    assert.ok(Number(await est.getAttribute('data-seconds')) > 0, 'a time estimate');
    // Nothing selected: start is disabled with a reason.
    for (const t of await byId(page, 'run-prompt-toggle').all()) await t.uncheck();
    assert.ok(await byId(page, 'run-start').isDisabled());
    await byId(page, 'run-start-reason').waitFor();
    for (const t of await byId(page, 'run-prompt-toggle').all()) await t.check();

    await startRun(page);
    const p = await finished(page);
    assert.equal(p.planned, 6);
    const db = await storedRun(page);
    assert.equal(db.stores.runs.length, 1);
    const run = db.stores.runs[0];
    const probes = db.stores.probes.filter((x) => x.runId === run.id);
    assert.equal(probes.length, 6);
    const failed = probes.filter((x) => x.status === 'error' || x.status === 'empty').length;
    assert.equal(p.failed, failed, 'data-failed counts error + empty');
    assert.equal(run.status, failed === 0 ? 'completed' : failed === 6 ? 'failed' : 'partial');
    assert.ok(run.finishedAt, 'finishedAt set');

    await page.getByRole('link', { name: /批次详情|run detail/i }).click();
    await byId(page, 'run-status').waitFor();
    assert.equal(await statusOf(page), run.status);
    assert.equal(await byId(page, 'probe-row').count(), 6);
    for (const row of await byId(page, 'probe-row').all()) {
      const rowId = await row.getAttribute('data-id');
      const x = probes.find((q) => q.id === rowId);
      assert.equal(await row.getAttribute('data-status'), x.status);
    }
    // The drawer: opens with focus inside, shows sources, Esc closes it.
    const ok = probes.find((x) => x.status === 'success');
    await page.locator(`[data-testid="probe-open"][data-open-probe="${ok.id}"]`).click();
    await byId(page, 'probe-drawer').waitFor();
    assert.ok(await page.evaluate(() => document.activeElement?.closest('[data-testid="probe-drawer"]') != null), 'focus in the drawer');
    assert.equal(await byId(page, 'probe-source').count(), ok.sources.length);
    await page.keyboard.press('Escape');
    await until(async () => (await byId(page, 'probe-drawer').count()) === 0, 3000, 'drawer closed');
    assert.deepEqual(page.errors.filter((e) => !/Failed to load resource/.test(e)), []);
  } finally { mock.stop(); }
});

test('cancel keeps finished probes; reload keeps them; continue completes the run', async () => {
  const mock = await startMock(['--latency-ms', '700']);
  try {
    const page = await mockedPage(browser, mock, TWO);
    await startRun(page, { concurrency: '1' });
    await until(async () => ((await progressOf(page))?.done ?? 0) >= 2, 20000, 'two probes done');
    await byId(page, 'run-cancel').click();
    const p = await until(async () => { const x = await progressOf(page); return x && !x.running ? x : null; }, 10000, 'cancelled');
    assert.ok(p.done >= 2 && p.done < 6, `done ${p.done}`);
    const db = await until(async () => { const d = await dumpDb(page); return d.stores.runs[0]?.status === 'cancelled' ? d : null; }, 5000, 'cancelled run stored');
    const runId = db.stores.runs[0].id;
    assert.equal(db.stores.probes.length, p.done, 'every finished probe kept, nothing half-made');

    await open(page, `runs/${runId}`);
    await byId(page, 'run-status').waitFor();
    await page.reload();
    await byId(page, 'run-status').waitFor();
    assert.equal(await statusOf(page), 'cancelled');
    await until(async () => (await byId(page, 'probe-row').count()) === p.done, 5000, 'rows after reload');

    await byId(page, 'run-continue').click();
    await until(async () => (await statusOf(page)) === 'completed', 30000, 'continued run completed');
    const after = await dumpDb(page);
    assert.equal(after.stores.probes.length, 6);
    assert.ok(after.stores.probes.every((x) => x.status === 'success'));
    await until(async () => (await byId(page, 'probe-row').count()) === 6, 5000, 'six rows');
    assert.ok(await byId(page, 'run-continue').isDisabled(), 'nothing left to continue');
  } finally { mock.stop(); }
});

test('retry failed repairs the failures, in proxy mode without a key', async () => {
  const mock = await startMock([]);
  try {
    const page = await mockedPage(browser, mock, [
      { id: 'p01', text: '2026年国内有哪些靠谱的GEO服务商？' },
      { id: 'p09', text: '推荐 GEO 服务商 [mock:500,500,500,ok]' },
    ]);
    await startRun(page, { repeats: '1' });
    const p = await finished(page, 30000);
    assert.equal(p.failed, 1);
    const db = await storedRun(page);
    const run = db.stores.runs[0];
    assert.equal(run.status, 'partial');
    const bad = db.stores.probes.find((x) => x.promptId === 'p09');
    assert.equal(bad.status, 'error');
    assert.equal(bad.attempts, 3);

    await open(page, `runs/${run.id}`);
    await until(async () => (await statusOf(page)) === 'partial', 5000, 'partial shown');
    await byId(page, 'run-retry-failed').click();
    await until(async () => (await statusOf(page)) === 'completed', 30000, 'repaired');
    const fixed = (await dumpDb(page)).stores.probes.find((x) => x.promptId === 'p09');
    assert.equal(fixed.status, 'success');
    assert.equal(await page.locator('[data-testid="probe-row"][data-status="error"]').count(), 0);
  } finally { mock.stop(); }
});

test('with a key: the key test, a run, and the key in no IndexedDB store', async () => {
  const KEY = 'sk-e2e-run-0123456789';
  const mock = await startMock(['--require-key', KEY]);
  try {
    const page = await mockedPage(browser, mock, [TWO[0]], 'sk-wrong');
    await byId(page, 'settings-test-key').click();
    await until(async () => (await byId(page, 'settings-key-verdict').getAttribute('data-verdict')) === 'invalid-key', 10000, 'invalid verdict');
    await byId(page, 'settings-api-key').fill(KEY);
    await byId(page, 'settings-save').click();
    await byId(page, 'settings-test-key').click();
    await until(async () => (await byId(page, 'settings-key-verdict').getAttribute('data-verdict')) === 'valid', 10000, 'valid verdict');

    await startRun(page, { repeats: '2' });
    const p = await finished(page, 30000);
    assert.equal(p.failed, 0);
    const db = await storedRun(page);
    assert.equal(db.stores.runs[0].status, 'completed');
    assert.ok(!JSON.stringify(db).includes(KEY), 'the key is in no IndexedDB store');
  } finally { mock.stop(); }
});
