// The dashboard and sources pages at scale, measured inside the app: a generated export
// whose big run holds 5,000 probes (50 prompts × 100 repeats, then 500 prompts × 10
// repeats; each with a previous run of 2 repeats) is imported in settings; the dashboard and the sources page are opened for the big
// run and the User Timing measures the app records around its work
// (`geo:dashboard-metrics`: reading the stored run summaries and building the figures, of
// which `geo:load` reads the records and `geo:trend` builds the trend; no probe is read, the
// per-tag rows are part of the stored metrics; `geo:sources-metrics`: the figures with the
// stored metrics of the run and its previous run, as the dashboard's; `geo:lists-metrics` and
// `geo:actions-metrics`: the page figures stored beside the run's summary (ADR 0023); the
// figures are read once per run and data version) are read from
// `performance.getEntriesByType('measure')`, with the time from navigation until the
// dashboard cards show the big run's figures. With more than 50 prompts the dashboard's
// prompt table and the lists page's brand-position table come 50 prompts a page.
// The figures are printed; the assertions only check that the work completed and the
// figures are present (speed targets belong to benchmarks, not tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, freshPage, open, byId, until, BASE_URL, headerReady } from './helpers.mjs';
import { bigExport, historyExport, importText, selectRun, pager, pagerStatus, BIG_RUN, PREV_RUN } from './webpages-helpers.mjs';

const browser = fileBrowser();

/** The durations (ms) of every User Timing measure named `name` in the page. */
const measures = (page, name) => page.evaluate((n) => performance.getEntriesByType('measure').filter((e) => e.name === n).map((e) => e.duration), name);

async function measurePages(shape) {
  const { env, composition: c } = bigExport(shape);
  const text = JSON.stringify(env);
  const page = await freshPage(browser, 'settings');
  const t0 = Date.now();
  const handed = await page.evaluate(() => performance.now());
  await page.getByTestId('settings-import-file').setInputFiles({ name: 'perf-5000.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  // A long import says what it is doing, and a second file cannot be chosen meanwhile.
  await page.locator('[data-testid="import-result"][data-status="pending"]').waitFor({ timeout: 10000 });
  assert.ok(await byId(page, 'settings-import-file').isDisabled(), 'file input disabled during the import');
  await page.locator('[data-testid="import-result"][data-status="ok"]').waitFor({ timeout: 120000 });
  const importMs = Date.now() - t0;
  assert.ok(await byId(page, 'settings-import-file').isEnabled());
  const [iRead, iParse, iAnalyse, iWrite] = [await measures(page, 'geo:import-read'), await measures(page, 'geo:import-parse'), await measures(page, 'geo:import-analyse'), await measures(page, 'geo:import-write')];
  // Until the first stage: Playwright handing the file's bytes to the page (a buffer of this
  // size crosses the DevTools protocol) and the worker starting.
  const handOver = await page.evaluate((t) => performance.getEntriesByName('geo:import-read').pop().startTime - t, handed);
  await selectRun(page, BIG_RUN);

  // A fresh navigation to the dashboard: the page timeline starts at 0 there.
  await page.goto(new URL('', BASE_URL).href);
  const shownAt = await page.waitForFunction((want) => {
    const el = document.querySelector('[data-testid="metric-success-count"]');
    return el && el.dataset.value === want ? performance.now() : false;
  }, String(c.successes), { polling: 'raf', timeout: 120000 }).then((h) => h.jsonValue());
  assert.equal(await byId(page, 'trend-chart').getAttribute('data-points'), '2');
  await until(async () => (await byId(page, 'tag-row').count()) >= 1, 60000, 'per-tag rows');
  const dash = await until(async () => { const d = await measures(page, 'geo:dashboard-metrics'); return d.length ? d : null; }, 10000, 'dashboard measure');
  const [load, decode] = [await measures(page, 'geo:load'), await measures(page, 'geo:idb-decode')];
  // The project is read once, though the run selector settles on a run while it is read.
  assert.equal(load.length, 1, 'one read of the project for the dashboard');
  const trend = await measures(page, 'geo:trend');
  assert.ok(trend.length, 'the parts are measured');
  // The dashboard reads no probe: its figures are the stored summaries.
  assert.equal((await measures(page, 'geo:summary')).length, 0, 'nothing recomputed on the way to the cards');

  // The first computation after loading the page runs on freshly compiled (baseline) wasm;
  // switching to the previous run and back recomputes the dashboard on warm code.
  await byId(page, 'run-select').selectOption(PREV_RUN);
  await until(async () => (await byId(page, 'metric-success-count').getAttribute('data-value')) === String(c.prevSuccesses), 60000, 'previous run figures');
  await byId(page, 'run-select').selectOption(BIG_RUN);
  await until(async () => (await byId(page, 'metric-success-count').getAttribute('data-value')) === String(c.successes), 60000, 'big run figures again');
  const warm = await until(async () => { const d = await measures(page, 'geo:dashboard-metrics'); return d.length >= dash.length + 2 ? d : null; }, 10000, 'warm dashboard measure');

  // The sources page reads the probes of the shown run and its previous run (the dashboard
  // read none); the lists page then reuses them.
  await byId(page, 'nav-sources').click();
  await byId(page, 'source-row').first().waitFor({ timeout: 120000 });
  assert.equal((await measures(page, 'geo:sources-metrics')).length, 1, 'one read for the sources page');

  // Opened directly (a fresh page), the sources page computes its figures: cold, then warm
  // after switching runs.
  await page.goto(new URL('sources', BASE_URL).href);
  await byId(page, 'source-row').first().waitFor({ timeout: 120000 });
  const src = await until(async () => { const d = await measures(page, 'geo:sources-metrics'); return d.length ? d : null; }, 10000, 'sources measure');
  // Only one page of rows is in the document; the pager tells the whole.
  assert.equal(await byId(page, 'source-row').count(), 50);
  assert.deepEqual(await pagerStatus(page, 'domains'), { start: 1, end: 50, total: c.domains });
  await byId(page, 'run-select').selectOption(PREV_RUN);
  await until(async () => (await measures(page, 'geo:sources-metrics')).length >= src.length + 1, 60000, 'previous run sources');
  await byId(page, 'run-select').selectOption(BIG_RUN);
  const srcWarm = await until(async () => { const d = await measures(page, 'geo:sources-metrics'); return d.length >= src.length + 2 ? d : null; }, 60000, 'warm sources measure');
  await until(async () => (await pagerStatus(page, 'domains')).total === c.domains, 60000, 'big run domains again');

  await page.goto(new URL(`runs/${BIG_RUN}`, BASE_URL).href);
  await byId(page, 'probe-row').first().waitFor({ timeout: 120000 });
  assert.equal(await byId(page, 'probe-row').count(), 50);
  assert.equal((await pagerStatus(page, 'probes')).total, c.probes);
  const detail = await until(async () => { const d = await measures(page, 'geo:run-detail-metrics'); return d.length ? d : null; }, 10000, 'run detail measure');
  assert.ok(await pager(page, 'probes').isVisible());

  // The per-prompt tables of the dashboard and the lists page hold one page of prompts.
  const rowsShown = Math.min(50, c.prompts);
  const promptPages = async (testid, scope) => {
    await until(async () => (await byId(page, testid).count()) === rowsShown, 60000, `${testid} rows`);
    if (c.prompts <= 50) { assert.equal(await pager(page, scope).count(), 0); return; }
    assert.deepEqual(await pagerStatus(page, scope), { start: 1, end: 50, total: c.prompts });
    const first = await byId(page, testid).first().getAttribute('data-prompt');
    await pager(page, scope).getByTestId('pager-next').click();
    await until(async () => (await pagerStatus(page, scope)).start === 51, 10000, `second page of ${scope}`);
    assert.notEqual(await byId(page, testid).first().getAttribute('data-prompt'), first);
  };
  await byId(page, 'nav-dashboard').click();
  await promptPages('prompt-metric-row', 'prompts');
  await byId(page, 'nav-lists').click();
  await promptPages('list-prompt-row', 'brand-positions');
  const lists = await until(async () => { const d = await measures(page, 'geo:lists-metrics'); return d.length ? d : null; }, 10000, 'lists measure');
  await byId(page, 'nav-actions').click();
  await page.locator(`[data-testid="actions"][data-state="ready"][data-run="${BIG_RUN}"]`).waitFor({ timeout: 120000 });
  const actions = await until(async () => { const d = await measures(page, 'geo:actions-metrics'); return d.length ? d : null; }, 10000, 'actions measure');
  assert.deepEqual(page.errors, []);

  const last = (a) => a[a.length - 1].toFixed(1);
  console.log(
    `browser page figures for ${c.probes.toLocaleString('en')} probes (${c.prompts} prompts × ${c.repeats} repeats, ` +
      `${c.successes} successes, ${c.sources} sources over ${c.domains} domains; previous run ${c.prevProbes} probes; ` +
      `${(text.length / 1e6).toFixed(1)} MB export): dashboard figures ${last(dash)} ms (geo:dashboard-metrics, ` +
      `${dash.length} read(s), trend ${last(trend)} ms; per-tag rows included); ` +
      `warm re-read of the dashboard figures ${last(warm)} ms; ` +
      `sources figures ${src[0].toFixed(1)} ms on a fresh page, ${last(srcWarm)} ms warm (geo:sources-metrics); ` +
      `lists figures ${last(lists)} ms (geo:lists-metrics); actions figures ${last(actions)} ms (geo:actions-metrics); run detail ${last(detail)} ms; ` +
      `navigation to dashboard cards ${shownAt.toFixed(0)} ms (reading the project ${last(load)} ms, geo:load, of which decoding ` +
      `${decode.reduce((a, b) => a + b, 0).toFixed(0)} ms, geo:idb-decode); import ${importMs} ms from handing the file to the page (handing over ${handOver.toFixed(0)} ms, reading it ${last(iRead)} ms, checking ${last(iParse)} ms, ` +
      `re-analysis ${last(iAnalyse)} ms, saving ${last(iWrite)} ms)`,
  );
}

// The worst case for the per-prompt pairwise stability figures (4,950 pairs a prompt)…
test('dashboard and sources figures of a 5,000-probe run (50 prompts × 100 repeats), timed in the browser', async () => {
  await measurePages({ prompts: 50, repeats: 100 });
});

// …and the same number of probes spread over many prompts with few repeats each.
test('dashboard and sources figures of a 5,000-probe run (500 prompts × 10 repeats), timed in the browser', async () => {
  await measurePages({ prompts: 500, repeats: 10 });
});

// A long history: the run selector lists every run, the newest first and the rest once the
// selector is used (or a moment later), so a year of options never holds up the cards.
test('the run selector of 40 daily runs lists them all once used, and an old run can be shown', async () => {
  const h = historyExport({ runs: 40, prompts: 2, repeats: 1 });
  const page = await freshPage(browser, 'settings');
  await importText(page, JSON.stringify(h.env), 'history-40.json');
  await selectRun(page, h.newest);
  const select = byId(page, 'run-select');
  const options = () => select.locator('option').count();
  const listed = (by) => page.locator(`[data-testid="run-select"][data-listed="all"][data-listed-by="${by}"]`);
  // By itself, a moment after the page has its figures (nothing touches the selector)…
  await open(page, '');
  await byId(page, 'metric-success-count').waitFor();
  await listed('timer').waitFor();
  assert.equal(await options(), 40, 'every run listed by the timer');
  // …and at once when the selector gets the focus: with the timer put off beyond the test,
  // only the focus can list them.
  await open(page, '?runListDelayMs=3600000');
  await page.locator('[data-testid="dashboard"][data-state="ready"] [data-testid="metric-success-count"]').waitFor();
  await headerReady(page);
  assert.equal(await select.getAttribute('data-listed'), 'newest');
  assert.equal(await options(), 30, 'the newest 30 before the selector is used');
  await select.focus();
  await listed('use').waitFor();
  assert.equal(await options(), 40, 'every run listed on focus');
  await select.selectOption('run_day_000');
  await page.locator('[data-testid="dashboard"][data-run="run_day_000"][data-state="ready"]').waitFor();
  assert.equal(await byId(page, 'trend-chart').getAttribute('data-points'), '40');
  assert.deepEqual(page.errors, []);
});
