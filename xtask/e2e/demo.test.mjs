// Demo data (seed §8.2): the first visit seeds the demo project from demo/demo-data.json and
// re-analyses it; a reload does not duplicate it; demo-delete removes it for good (a reload
// keeps it gone); demo-restore brings it back; a broken file shows a toast and changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { fileBrowser, freshPage, open, byId, dumpDb, until, headerReady, newContext, cli, ROOT, BASE_URL } from './helpers.mjs';

const PROJECT = 'proj_demo';
const RUN1 = 'run_20261122T020000_demo';
const RUN2 = 'run_20261129T020000_demo';
// The other engines' runs of the newest week (`cargo xtask demo`), started together.
const ENGINES = ['anthropic', 'openai', 'gemini', 'perplexity', 'qwen', 'doubao', 'ernie', 'hunyuan'];
const ENGINE_RUNS = ENGINES.map((e) => `run_20261128T020000_${e}_demo`);
// Two DeepSeek weeks and eight engine runs, 7 prompts × 3 repeats each.
const COUNTS = { projects: 1, prompts: 7, runs: 10, probes: 210 };
const BRAND = 'tgt_demo_yuangouchang';
const browser = fileBrowser({ cli: true });

const counts = (db) => Object.fromEntries(['projects', 'prompts', 'runs', 'probes'].map((n) => [n, db.stores[n].length]));
const setting = (db, key) => db.stores.settings.find((s) => s.key === key)?.value;

async function seeded(page) {
  return until(async () => {
    const db = await dumpDb(page);
    return db.stores.probes.length >= COUNTS.probes && setting(db, 'demoSeeded') === true ? db : null;
  }, 15000, 'demo seeded');
}

test('the first visit seeds the demo project with analysed probes; a reload does not duplicate it', async () => {
  const page = await freshPage(browser, '', { demo: true });
  const db = await seeded(page);
  assert.deepEqual(counts(db), COUNTS);
  const [project] = db.stores.projects;
  assert.equal(project.id, PROJECT);
  assert.equal(project.isDemo, true);
  const byStatus = {};
  for (const p of db.stores.probes) byStatus[p.status] = (byStatus[p.status] ?? 0) + 1;
  assert.deepEqual(byStatus, { success: 208, error: 1, empty: 1 });

  // Derived fields were recomputed on seeding (the file holds raw results only).
  const prose = db.stores.probes.find((p) => p.id === `${RUN1}__prm_demo_05__0`);
  assert.match(prose.rawAnswer, /元构场/);
  assert.ok(prose.answer.length > 0, 'cleaned answer');
  assert.ok(prose.mentions.some((m) => m.targetId === BRAND && m.count > 0), 'brand mention');
  assert.ok(prose.sources.length > 0, 'normalised sources');
  const list = db.stores.probes.find((p) => p.id === `${RUN1}__prm_demo_04__0`);
  assert.ok(list.listItems.length >= 3, 'list items');
  assert.ok(list.mentions.length === 3, 'all three targets mentioned');
  // Week one's generic answers name competitors but not the brand.
  const generic = db.stores.probes.find((p) => p.id === `${RUN1}__prm_demo_01__0`);
  assert.ok(generic.mentions.length > 0 && !generic.mentions.some((m) => m.targetId === BRAND), 'a generic answer without the brand');
  const ok = db.stores.probes.filter((p) => p.status === 'success');
  assert.ok(ok.every((p) => p.answer.length > 0 && p.mentions.length > 0), 'every successful probe analysed');
  assert.ok(ok.every((p) => p.sources.length === 0 || p.rawSources.length > 0), 'sources only from raw sources');
  assert.ok(ok.filter((p) => p.rawSources.length > 0).every((p) => p.sources.length > 0), 'every raw source normalised');
  // Recorded latencies of DeepSeek's web-search answers: tens of seconds.
  const weeks = ok.filter((p) => p.runId === RUN1 || p.runId === RUN2);
  assert.equal(weeks.length, 40);
  assert.ok(weeks.every((p) => p.latencyMs >= 15000 && p.latencyMs <= 90000), 'latencies of tens of seconds');

  // The header lists the project and its runs.
  await until(async () => (await byId(page, 'project-select').inputValue()) === PROJECT, 5000, 'demo project selected');
  await headerReady(page);
  const runs = await byId(page, 'run-select').locator('option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(runs.sort(), [RUN1, ...ENGINE_RUNS, RUN2].sort());
  // The newest run is DeepSeek's week two: the header opens on it.
  assert.equal(await byId(page, 'run-select').inputValue(), RUN2);

  await page.reload();
  await byId(page, 'nav-projects').waitFor();
  await until(async () => (await byId(page, 'project-select').inputValue()) === PROJECT, 5000, 'selected after reload');
  // Settled: the start-up check of the demo has ended and the header lists what is stored.
  await headerReady(page);
  assert.deepEqual(counts(await dumpDb(page)), COUNTS, 'no duplicates');
  const options = await byId(page, 'project-select').locator('option').count();
  assert.equal(options, 1);
  assert.deepEqual(page.errors, []);
});

/** In every document, before its scripts: the first `metric-mention-rate` value the page
 * shows and when (the page's clock), as `window.__geoFirstFigure`. */
const WATCH_FIGURE = () => {
  const observer = new MutationObserver(() => {
    const el = document.querySelector('[data-testid="metric-mention-rate"]');
    if (el?.dataset.value && window.__geoFirstFigure === undefined) {
      window.__geoFirstFigure = { at: performance.now(), value: Number(el.dataset.value), run: el.closest('[data-testid="dashboard"]')?.dataset.run };
      observer.disconnect();
    }
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-value'] });
};

/** The first figure, the demo's write (`geo:demo-write`, start and end) and when each request
 * for the demo file started (Resource Timing: a preload's start, or the app's fetch's), once
 * seeded. */
async function firstFigureAndWrite(page) {
  await page.waitForFunction(() => window.__geoFirstFigure !== undefined && performance.getEntriesByName('geo:demo-write', 'measure').length > 0);
  return page.evaluate(() => {
    const [write] = performance.getEntriesByName('geo:demo-write', 'measure');
    const demoRequests = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/demo/demo-data.json')).map((e) => e.startTime);
    return { figure: window.__geoFirstFigure, write: [write.startTime, write.startTime + write.duration], demoRequests };
  });
}

/** The page's demo fingerprint (`<meta name="geo-demo-fingerprint">`, written by `cargo xtask dist`). */
const pageFingerprint = (page) => page.evaluate(() => document.querySelector('meta[name="geo-demo-fingerprint"]')?.content ?? null);

/** A first visit to the site's root page (`index.html`) answered with its demo fingerprint
 * replaced by `fingerprint` (`null`: the meta removed, a page from before it), until the demo
 * is seeded: the page's fingerprint, the first figure (checked against `geo-probe metrics` on
 * the demo file), the demo's write and the demo file's requests. */
async function visitWithPageFingerprint(fingerprint) {
  const [want] = JSON.parse(cli(['metrics', path.join(ROOT, 'demo/demo-data.json'), '--run', RUN2]));
  const context = await newContext(browser);
  await context.addInitScript(WATCH_FIGURE);
  const root = new URL(BASE_URL);
  await context.route((url) => url.origin === root.origin && url.pathname === root.pathname, async (r) => {
    const html = await (await r.fetch()).text();
    // (A page without the meta is answered as it is: the test then finds no fingerprint.)
    const meta = /<meta name="geo-demo-fingerprint" content="[^"]*">/;
    const body = html.replace(meta, fingerprint === null ? '' : `<meta name="geo-demo-fingerprint" content="${fingerprint}">`);
    await r.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body });
  });
  const page = await context.newPage();
  await open(page, '');
  const shown = await pageFingerprint(page);
  const seen = await firstFigureAndWrite(page);
  assert.equal(seen.figure.value, want.mentionRate);
  assert.deepEqual(counts(await seeded(page)), COUNTS);
  await context.close();
  return { shown, ...seen };
}

test('a first visit shows the newest run\'s figures from the demo\'s first view before the demo is stored, then stores the demo', async () => {
  const [want] = JSON.parse(cli(['metrics', path.join(ROOT, 'demo/demo-data.json'), '--run', RUN2]));
  const context = await newContext(browser);
  await context.addInitScript(WATCH_FIGURE);
  // The app's fetch takes the preloaded responses: each file is requested once.
  const requested = {};
  context.on('request', (r) => {
    const name = new URL(r.url()).pathname.split('/').pop();
    if (name.startsWith('demo-')) requested[name] = (requested[name] ?? 0) + 1;
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await open(page, '');
  const { figure, write, demoRequests } = await firstFigureAndWrite(page);
  // The figure came before the demo's write began: nothing of the demo was stored yet.
  assert.ok(figure.at < write[0], `the figure at ${figure.at} ms, the demo's write from ${write[0]} ms`);
  // The first view was checked against the page's fingerprint of the demo file, so the demo
  // file was asked for only after the figure (it is not preloaded): its bytes are not on the
  // first figure's path.
  assert.equal(demoRequests.length, 1, `one request for the demo file: ${demoRequests}`);
  assert.ok(demoRequests[0] > figure.at, `the demo file asked for at ${demoRequests[0]} ms, the figure at ${figure.at} ms`);
  assert.match(await pageFingerprint(page), /^fnv1a64:[0-9a-f]{16}$/);
  assert.equal(figure.run, RUN2);
  assert.equal(figure.value, want.mentionRate);
  // Then the demo is stored whole, and the page shows the stored figures: the same.
  const db = await seeded(page);
  assert.deepEqual(counts(db), COUNTS);
  await headerReady(page);
  await page.locator(`[data-testid="dashboard"][data-state="ready"][data-run="${RUN2}"]`).waitFor();
  assert.equal(Number(await byId(page, 'metric-mention-rate').getAttribute('data-value')), want.mentionRate);
  assert.deepEqual(requested, { 'demo-first-view.json': 1, 'demo-data.json': 1 });
  // The static frame of index.html is gone, its place taken by the app's.
  assert.equal(await page.locator('#boot-frame').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a first view made from another demo file than the page names is not used: the demo is seeded first, with the same figures', async () => {
  // The page names another demo file than the first view was made from (and than the demo file).
  const { shown, figure, write } = await visitWithPageFingerprint('fnv1a64:0000000000000000');
  assert.equal(shown, 'fnv1a64:0000000000000000');
  assert.ok(figure.at > write[0], `the figure at ${figure.at} ms, after the demo's write began at ${write[0]} ms`);
});

test('a page without the demo\'s fingerprint checks the first view against the demo file, as before: the figure before the write', async () => {
  const { shown, figure, write, demoRequests } = await visitWithPageFingerprint(null);
  assert.equal(shown, null);
  assert.ok(figure.at < write[0], `the figure at ${figure.at} ms, the demo's write from ${write[0]} ms`);
  assert.ok(demoRequests[0] < figure.at, 'the demo file is fetched before the figure, to check the first view');
});

test('a demo file that is not the one the page and the first view name is seeded as it is: its own figures are stored and shown', async () => {
  // An inconsistent deployment: the page and the first view agree, the demo file served is
  // another (the newest run's answers no longer name the brand).
  const text = readFileSync(path.join(ROOT, 'demo/demo-data.json'), 'utf8');
  const other = JSON.parse(text);
  for (const p of other.probes) if (p.runId === RUN2 && p.rawAnswer) p.rawAnswer = p.rawAnswer.replaceAll('元构场', '某品牌');
  const otherText = JSON.stringify(other, null, 2);
  const otherFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'geo-demo-')), 'demo-data.json');
  writeFileSync(otherFile, otherText);
  const [want] = JSON.parse(cli(['metrics', path.join(ROOT, 'demo/demo-data.json'), '--run', RUN2]));
  const [wantOther] = JSON.parse(cli(['metrics', otherFile, '--run', RUN2]));
  assert.notEqual(wantOther.mentionRate, want.mentionRate, 'the other file has other figures');
  const context = await newContext(browser);
  await context.addInitScript(WATCH_FIGURE);
  await context.route('**/demo/demo-data.json', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: otherText }));
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await open(page, '');
  // The first view is shown (it fits the page), then the demo file that came is seeded.
  const { figure } = await firstFigureAndWrite(page);
  assert.equal(figure.value, want.mentionRate);
  const db = await seeded(page);
  assert.deepEqual(counts(db), COUNTS);
  // What is stored is the file that came, analysed (its figures are read back below).
  assert.ok(db.stores.probes.filter((p) => p.runId === RUN2).every((p) => !(p.rawAnswer ?? '').includes('元构场')));
  await headerReady(page);
  await page.locator(`[data-testid="dashboard"][data-state="ready"][data-run="${RUN2}"]`).waitFor();
  await page.waitForFunction((v) => Number(document.querySelector('[data-testid="metric-mention-rate"]')?.dataset.value) === v, wantOther.mentionRate);
  // A reload reads storage only (no first view on a return visit): the other file's figures.
  await page.reload();
  await headerReady(page);
  await page.locator(`[data-testid="dashboard"][data-state="ready"][data-run="${RUN2}"]`).waitFor();
  assert.equal(Number(await byId(page, 'metric-mention-rate').getAttribute('data-value')), wantOther.mentionRate);
  assert.deepEqual(errors, []);
  await context.close();
});

test('demo-delete removes it and a reload keeps it gone; demo-restore brings it back', async () => {
  const page = await freshPage(browser, 'settings', { demo: true });
  await seeded(page);
  await byId(page, 'demo-delete').click();
  await byId(page, 'confirm-ok').click();
  const gone = await until(async () => {
    const db = await dumpDb(page);
    return db.stores.projects.length === 0 && setting(db, 'demoDeleted') === true ? db : null;
  }, 5000, 'demo deleted');
  assert.deepEqual(counts(gone), { projects: 0, prompts: 0, runs: 0, probes: 0 });

  await page.reload();
  await byId(page, 'demo-restore').waitFor();
  await headerReady(page);
  assert.equal((await dumpDb(page)).stores.projects.length, 0, 'a reload does not bring it back');
  // Nothing to choose: the selector says so and keeps its place in the Tab order.
  assert.equal(await byId(page, 'project-select').getAttribute('aria-disabled'), 'true');
  assert.equal(await byId(page, 'project-select').evaluate((el) => el.disabled), false);

  await byId(page, 'demo-restore').click();
  // Restored: the records are back and the deleted flag is cleared.
  const back = await until(async () => {
    const db = await dumpDb(page);
    return db.stores.probes.length === COUNTS.probes && setting(db, 'demoDeleted') === undefined ? db : null;
  }, 15000, 'demo restored');
  assert.deepEqual(counts(back), COUNTS);
  assert.equal(setting(back, 'demoSeeded'), true);
  await until(async () => (await byId(page, 'project-select').inputValue()) === PROJECT, 5000, 'restored project selected');
  await page.locator('[data-testid="toast"][data-kind="ok"]').first().waitFor();

  // Restoring again overwrites by id.
  const done = Number(await byId(page, 'demo-card').getAttribute('data-done'));
  await byId(page, 'demo-restore').click();
  await page.locator(`[data-testid="demo-card"][data-state="idle"][data-done="${done + 1}"]`).waitFor();
  assert.deepEqual(counts(await dumpDb(page)), COUNTS);
  assert.deepEqual(page.errors, []);
});

test('a broken demo file shows an error toast and changes nothing', async () => {
  const context = await newContext(browser);
  await context.route('**/demo/demo-data.json', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: '{"format":"geo-probe-export","version":1,"projects":[]}' }));
  const page = await context.newPage();
  await open(page, 'settings');
  const toast = page.locator('[data-testid="toast"][data-kind="error"]').first();
  await toast.waitFor();
  assert.match(await toast.textContent(), /示例数据/);
  const db = await dumpDb(page);
  assert.deepEqual(counts(db), { projects: 0, prompts: 0, runs: 0, probes: 0 });
  assert.deepEqual(db.stores.settings, [], 'no flag was set');
  await context.close();
});

test('the run page estimates the demo\'s next run from its last one: tens of seconds a probe, three at a time', async () => {
  const page = await freshPage(browser, '', { demo: true });
  await seeded(page);
  await until(async () => (await byId(page, 'project-select').inputValue()) === PROJECT, 5000, 'demo selected');
  await byId(page, 'nav-run').click();
  const est = byId(page, 'run-estimate');
  await page.locator('[data-testid="run-estimate"][data-basis="last_run"]').waitFor();
  assert.equal(await byId(page, 'run-concurrency').inputValue(), '3');
  const latency = Number(await est.getAttribute('data-latency-ms'));
  const seconds = Number(await est.getAttribute('data-seconds'));
  assert.ok(latency >= 20000 && latency <= 60000, `${latency} ms a probe`);
  // 7 prompts × 3 repeats, 3 at a time: 7 rounds of the average latency.
  assert.ok(Math.abs(seconds - 7 * latency / 1000) <= 1, `${seconds} s for 7 rounds of ${latency} ms`);
  assert.equal(await est.getAttribute('data-history-probes'), '19', 'the last run\'s successful probes');
  const basis = await byId(page, 'run-estimate-basis').textContent();
  assert.match(basis, /上一批次 19 次成功探测/);
  assert.match(basis, /3 个同时进行，共 7 轮/);
  assert.match(await est.textContent(), /约 \d+ 分/);
  assert.deepEqual(page.errors, []);
});

test('a first visit compares all nine engines: the Engines page equals geo-probe engines and shows Gemini leaving the brand out', async () => {
  const want = JSON.parse(cli(['engines', path.join(ROOT, 'demo/demo-data.json'), '--project', PROJECT]));
  assert.deepEqual(want.engines.map((e) => e.engine), ['deepseek', ...ENGINES]);
  const page = await freshPage(browser, '', { demo: true });
  await seeded(page);
  await until(async () => (await byId(page, 'project-select').inputValue()) === PROJECT, 5000, 'demo selected');
  await headerReady(page);

  // The dashboard opens on DeepSeek's week two; its trend is DeepSeek's two weeks and says
  // where the other engines' runs are.
  await byId(page, 'trend-chart').waitFor();
  assert.equal(await byId(page, 'trend-chart').getAttribute('data-points'), '2');
  const note = byId(page, 'trend-engine-note');
  assert.equal(await note.getAttribute('data-engine'), 'deepseek');
  assert.equal(await note.getAttribute('data-other-runs'), '8');

  await byId(page, 'nav-engines').click();
  await page.locator('[data-testid="engines-page"][data-state="ready"]').waitFor();
  const rows = await byId(page, 'engine-row').evaluateAll((els) => els.map((e) => ({
    engine: e.dataset.engine, run: e.dataset.run, rate: Number(e.dataset.mentionRate) })));
  assert.deepEqual(rows.map((r) => r.engine), want.engines.map((e) => e.engine));
  for (const e of want.engines) {
    const row = rows.find((r) => r.engine === e.engine);
    assert.equal(row.run, e.runId);
    assert.equal(row.rate, e.mentionRate, `${e.engine} mention rate`);
  }
  // Gemini leaves the brand out: the lowest mention rate, and no mention on either generic
  // prompt (the prompt × engine matrix).
  const lowest = rows.reduce((a, b) => (b.rate < a.rate ? b : a));
  assert.equal(lowest.engine, 'gemini');
  for (const prompt of ['prm_demo_01', 'prm_demo_02']) {
    const cell = page.locator(`[data-testid="engine-prompt-cell"][data-engine="gemini"][data-prompt="${prompt}"]`);
    assert.equal(Number(await cell.getAttribute('data-value')), 0, `gemini × ${prompt}`);
    const qwen = page.locator(`[data-testid="engine-prompt-cell"][data-engine="qwen"][data-prompt="${prompt}"]`);
    assert.equal(Number(await qwen.getAttribute('data-value')), 1, `qwen × ${prompt}`);
  }
  assert.equal(await byId(page, 'engine-prompt-cell').count(), want.prompts.length * want.engines.length);
  // The page says who leaves the brand out, as geo-probe engines' brandGaps: Gemini on three
  // prompts, clearly below seven engines; DeepSeek on one, within the noise.
  const gaps = await byId(page, 'engine-gap').evaluateAll((els) => els.map((e) => ({
    engine: e.dataset.engine, prompts: Number(e.dataset.prompts), below: e.dataset.clearlyBelow })));
  assert.deepEqual(gaps, want.brandGaps.map((g) => ({ engine: g.engine, prompts: g.promptIds.length, below: g.clearlyBelow.join(',') })));
  assert.equal(gaps[0].engine, 'gemini');
  assert.equal(gaps[0].prompts, 3);
  assert.match(await byId(page, 'engine-gaps').textContent(), /谁漏掉了元构场[\s\S]*Gemini[\s\S]*这不是随机波动/);

  // A Qwen answer's drawer marks the sources its [ref_n] markers cite.
  await byId(page, 'run-select').selectOption('run_20261128T020000_qwen_demo');
  await open(page, 'runs/run_20261128T020000_qwen_demo?probe=run_20261128T020000_qwen_demo__prm_demo_01__0');
  await byId(page, 'probe-drawer').waitFor();
  const cited = await byId(page, 'probe-source').evaluateAll((els) => els.map((e) => e.dataset.cited));
  assert.ok(cited.includes('true') && cited.every((c) => c === 'true' || c === 'false'), `cited marks ${cited}`);
  assert.deepEqual(page.errors, []);
});
