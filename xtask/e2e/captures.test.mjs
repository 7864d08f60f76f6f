// App answers beside API answers (issue 38): DeepSeek's and Doubao's API runs made by
// `geo-probe run` against geo-mock from the fixture project are imported; on the runs page the
// example capture files of `fixtures/captures/` (the CSV: UTF-8 with a BOM, CRLF, a quoted
// multi-line answer, a blank answer; the JSON) are imported as Doubao's and DeepSeek's app runs,
// each the very run `geo-probe import-captures` makes of it; the runs list, the header's run
// selector and the run detail's title mark them `app`; the Engines page's `engine-row`s (engine
// and surface) and `surface-gap-row`s equal `geo-probe engines` (its `surfaceGaps`) on the page's
// own IndexedDB. A broken capture file names its row and why and writes nothing; an unknown
// prompt is named; 10,000 captures import in the import worker with the page responsive.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileBrowser, freshPage, open, byId, dumpDb, until, cli, ROOT, num, headerReady } from './helpers.mjs';
import { startMock, importEnvelope, envelopeOf, fixtureProject, engineRows } from './run-helpers.mjs';
import { axeViolations, horizontalOverflow, setLang } from './a11y-helpers.mjs';

const PROJECT = 'proj_yuangouchang';
const CAPTURES = path.join(ROOT, 'fixtures/captures');
const CSV = path.join(CAPTURES, 'doubao-app.csv');
const JSON_FILE = path.join(CAPTURES, 'doubao-app.json');
// The prompts the example captures name (by id or by text).
const PROMPTS = 'p01,p02,p03,p04';

const browser = fileBrowser({ cli: true });
let mock;
let dir;
let apiFile;
let api;

before(async () => {
  mock = await startMock();
  dir = mkdtempSync(path.join(tmpdir(), 'geo-captures-'));
  const input = path.join(dir, 'project.json');
  apiFile = path.join(dir, 'api.json');
  writeFileSync(input, JSON.stringify(fixtureProject()));
  cli(['run', input, '--project', PROJECT, '--engine', 'deepseek,doubao', '--prompts', PROMPTS, '--repeats', '2',
    '--base-url', mock.url, '--timeout-secs', '10', '--out', apiFile]);
  api = JSON.parse(readFileSync(apiFile, 'utf8'));
  assert.deepEqual(api.runs.map((r) => r.config.engine).sort(), ['deepseek', 'doubao']);
});

after(async () => {
  mock?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A page in `lang` with the API runs imported and the fixture project selected, on the runs page. */
async function runsPage(lang = 'en') {
  const page = await freshPage(browser);
  await setLang(page, lang);
  await importEnvelope(page, api);
  await byId(page, 'nav-runs').click();
  await until(async () => (await byId(page, 'run-row').count()) === api.runs.length, undefined, 'the API runs listed');
  await byId(page, 'captures-import').waitFor();
  return page;
}

/** Imports the capture file `file` (a path, or `{ name, buffer }`) as `engine`'s app answers;
 * resolves to the outcome (`captures-result`: status and text). */
async function importCaptures(page, file, engine) {
  if (engine) await byId(page, 'captures-engine').selectOption(engine);
  const done = Number(await byId(page, 'captures-card').getAttribute('data-done'));
  await byId(page, 'captures-import').setInputFiles(file);
  await page.locator(`[data-testid="captures-card"][data-done="${done + 1}"]`).waitFor();
  const el = byId(page, 'captures-result');
  return { status: await el.getAttribute('data-status'), text: await el.textContent() };
}

/** The stored runs of surface `app`. */
async function appRuns(page) {
  return (await dumpDb(page)).stores.runs.filter((r) => r.surface === 'app');
}

/** `value` with every occurrence of run id `from` replaced by `to` (probe ids hold their run's). */
const renamed = (value, from, to) => JSON.parse(JSON.stringify(value).replaceAll(from, to));

test('captured answers import beside the API runs, marked app everywhere; the Engines page equals geo-probe engines', async () => {
  const page = await runsPage('en');
  // Doubao's app answers from the CSV, DeepSeek's from the JSON.
  const csv = await importCaptures(page, CSV, 'doubao');
  assert.equal(csv.status, 'ok', csv.text);
  assert.match(csv.text, /^4 captured answer\(s\) imported as Doubao's app run \(Completed\): run_/);
  const json = await importCaptures(page, JSON_FILE, 'deepseek');
  assert.equal(json.status, 'ok', json.text);
  assert.match(json.text, /^4 captured answer\(s\) imported as DeepSeek's app run \(Completed\): run_/);

  const db = await dumpDb(page);
  const apps = db.stores.runs.filter((r) => r.surface === 'app');
  assert.deepEqual(apps.map((r) => r.config.engine).sort(), ['deepseek', 'doubao']);
  for (const r of apps) assert.ok(csv.text.includes(r.id) || json.text.includes(r.id), `${r.id} named in its outcome`);

  // Each is the run `geo-probe import-captures` makes of the same file, with the CLI's defaults.
  let file = apiFile;
  for (const [engine, captures] of [['doubao', CSV], ['deepseek', JSON_FILE]]) {
    const out = path.join(dir, `cli-${engine}.json`);
    cli(['import-captures', file, '--project', PROJECT, '--engine', engine, '--captures', captures, '--out', out]);
    file = out;
  }
  const want = JSON.parse(readFileSync(file, 'utf8'));
  for (const mine of apps) {
    const theirs = want.runs.find((r) => r.surface === 'app' && r.config.engine === mine.config.engine);
    assert.deepEqual(renamed(theirs, theirs.id, mine.id), mine, `${mine.config.engine}'s app run`);
    const probes = (env, id) => env.probes.filter((p) => p.runId === id).sort((a, b) => a.id.localeCompare(b.id));
    const got = probes(db.stores, mine.id);
    assert.equal(got.length, 4);
    assert.deepEqual(renamed(probes(want, theirs.id), theirs.id, mine.id), got, `${mine.config.engine}'s probes`);
  }
  // The CSV's quoted multi-line answer arrived whole; its blank answer is an empty probe.
  const doubao = apps.find((r) => r.config.engine === 'doubao');
  const csvProbes = db.stores.probes.filter((p) => p.runId === doubao.id);
  assert.ok(csvProbes.some((p) => p.rawAnswer.includes('\n\n1. 元构场') && p.rawAnswer.includes('"口碑"')), 'the multi-line answer');
  assert.deepEqual(csvProbes.filter((p) => p.status === 'empty').map((p) => p.promptId), ['p04']);
  // Each run has its summary, as any run.
  for (const r of apps) assert.ok(db.stores.runSummaries.some((s) => s.id === r.id && s.surface === 'app'), `${r.id} summary`);

  // The runs list: data-surface on every row, the badge on the app rows only.
  await until(async () => (await byId(page, 'run-row').count()) === 4, undefined, 'four run rows');
  for (const r of db.stores.runs) {
    const row = page.locator(`[data-testid="run-row"][data-id="${r.id}"]`);
    assert.equal(await row.getAttribute('data-surface'), r.surface ?? 'api', r.id);
    assert.equal(await row.getByTestId('surface-badge').count(), r.surface === 'app' ? 1 : 0, r.id);
  }
  const badge = page.locator(`[data-testid="run-row"][data-id="${doubao.id}"] [data-testid="surface-badge"]`);
  assert.equal(await badge.textContent(), 'app');
  assert.equal(await badge.getAttribute('data-value'), 'app');
  // The header's run selector says so too, and the run detail's title.
  const option = byId(page, 'run-select').locator(`option[value="${doubao.id}"]`);
  assert.equal(await option.getAttribute('data-surface'), 'app');
  assert.match(await option.textContent(), / · Doubao · app · /);
  await page.locator(`[data-testid="run-row"][data-id="${doubao.id}"] a`).click();
  await page.locator('h1 [data-testid="surface-badge"][data-value="app"]').waitFor();
  // An app run is imported, not probed: no continue or retry, a line saying why.
  await byId(page, 'run-app-note').waitFor();
  assert.equal(await byId(page, 'run-continue').count(), 0);
  assert.equal(await byId(page, 'run-retry-failed').count(), 0);

  // The Engines page equals geo-probe engines on the page's own data.
  const exported = path.join(dir, 'db.json');
  writeFileSync(exported, JSON.stringify(envelopeOf(await dumpDb(page))));
  const cmp = JSON.parse(cli(['engines', exported, '--project', PROJECT]));
  assert.deepEqual(cmp.engines.map((e) => `${e.engine}:${e.surface}`), ['deepseek:api', 'deepseek:app', 'doubao:api', 'doubao:app']);
  for (const [e, row] of await engineRows(page, cmp)) {
    assert.equal(await row.getAttribute('data-surface'), e.surface);
    assert.equal(await row.getAttribute('data-model'), e.model, `${e.engine} ${e.surface} model`);
    assert.ok((await row.textContent()).includes(e.model), `${e.engine} ${e.surface} shows its model`);
    assert.equal(num(await row.getAttribute('data-mention-rate')), e.mentionRate, `${e.engine} ${e.surface} mention rate`);
    assert.equal(await row.getByTestId('surface-badge').count(), e.surface === 'app' ? 1 : 0);
  }
  assert.equal(cmp.surfaceGaps.length, 2);
  await until(async () => (await byId(page, 'surface-gap-row').count()) === cmp.surfaceGaps.length, undefined, 'the gap rows');
  for (const g of cmp.surfaceGaps) {
    const row = page.locator(`[data-testid="surface-gap-row"][data-engine="${g.engine}"]`);
    assert.equal(num(await row.getAttribute('data-delta')), g.mentionRate.delta, `${g.engine} delta`);
    assert.equal(num(await row.getAttribute('data-overlap')), g.domainOverlap, `${g.engine} overlap`);
    assert.equal(num(await row.getAttribute('data-low')), g.mentionRate.low);
    assert.equal(num(await row.getAttribute('data-high')), g.mentionRate.high);
    assert.equal(await row.getAttribute('data-app-run'), g.appRunId);
    assert.equal(await row.getAttribute('data-api-run'), g.apiRunId);
    const verdict = g.mentionRate.significant ? (g.mentionRate.delta > 0 ? 'up' : 'down') : 'noise';
    assert.equal(await row.getByTestId('surface-gap-verdict').getAttribute('data-value'), verdict, `${g.engine} verdict`);
    // The prompts that differ most: geo-core's order, their rates.
    const shown = await row.getByTestId('surface-gap-prompt').evaluateAll((els) => els.map((e) => [e.dataset.prompt, Number(e.dataset.delta)]));
    assert.deepEqual(shown, g.prompts.slice(0, 3).map((p) => [p.promptId, p.delta]), `${g.engine} prompts`);
  }
  // Every matrix cell, app columns keyed as the CLI keys them (`doubao:app`).
  for (const row of cmp.prompts) {
    for (const [key, rate] of Object.entries(row.mentionRate)) {
      const cell = page.locator(`[data-testid="engine-prompt-cell"][data-engine="${key}"][data-prompt="${row.promptId}"]`);
      assert.equal(num(await cell.getAttribute('data-value')), rate, `${row.promptId} × ${key}`);
    }
  }
  // Both pages in both languages: no serious axe-core violation, no sideways scroll at 390 px.
  for (const lang of ['en', 'zh']) {
    await setLang(page, lang);
    for (const [nav, ready] of [['nav-engines', 'surface-gap-row'], ['nav-runs', 'captures-import']]) {
      await page.setViewportSize({ width: 1280, height: 800 });
      await byId(page, nav).click();
      await byId(page, ready).first().waitFor();
      await headerReady(page);
      assert.deepEqual(await axeViolations(page), [], `${lang} ${nav}`);
      await page.setViewportSize({ width: 390, height: 800 });
      const o = await horizontalOverflow(page);
      assert.equal(o.over, 0, `${lang} ${nav} at 390 px: ${o.offenders.join('; ')}`);
    }
  }
  assert.deepEqual(page.errors, []);
});

test('a broken capture file names its row and why and writes nothing; an unknown prompt is named', async () => {
  const page = await runsPage('zh');
  const runsBefore = (await dumpDb(page)).stores.runs.length;
  const unchanged = async (what) => {
    const db = await dumpDb(page);
    assert.equal(db.stores.runs.length, runsBefore, `${what}: no run written`);
    assert.equal(db.stores.probes.length, api.probes.length, `${what}: no probe written`);
  };
  const csv = readFileSync(CSV, 'utf8');
  // No engine chosen: nothing is read.
  let r = await importCaptures(page, CSV, null);
  assert.deepEqual([r.status, r.text], ['error', '请先选择回答来自哪个引擎的应用；未导入任何内容']);
  await unchanged('no engine');
  // A time without a zone in the spreadsheet's row 3.
  const badTime = csv.replace('2026-12-01T10:05:00+08:00', '2026-12-01 10:05');
  r = await importCaptures(page, { name: 'bad-time.csv', mimeType: 'text/csv', buffer: Buffer.from(badTime) }, 'doubao');
  assert.equal(r.status, 'error');
  assert.match(r.text, /^row 3, captured_at：时间 "2026-12-01 10:05" 不是带时区的 ISO 8601 时间.*；未导入任何内容$/);
  await unchanged('a bad captured_at');
  // A row without its answer column (three commas, not four).
  const short = '\ufeffprompt,answer,captured_at,source_urls,cited_urls\r\np01,"好",2026-12-01T01:00:00Z,,\r\np02,2026-12-01T01:00:00Z,,\r\n';
  r = await importCaptures(page, { name: 'short.csv', mimeType: 'text/csv', buffer: Buffer.from(short) }, 'doubao');
  assert.equal(r.status, 'error');
  assert.match(r.text, /^row 3：CSV 格式有误：4 fields, expected 5/);
  await unchanged('a short row');
  // A prompt the project does not have is named.
  const unknown = JSON.stringify({ captures: [
    { prompt: 'p01', answer: '元构场。', capturedAt: '2026-12-01T01:00:00Z' },
    { prompt: '这条提示词项目里没有', answer: '……', capturedAt: '2026-12-01T01:01:00Z' },
  ] });
  r = await importCaptures(page, { name: 'unknown.json', mimeType: 'application/json', buffer: Buffer.from(unknown) }, 'doubao');
  assert.equal(r.status, 'error');
  assert.match(r.text, /^captures\[1\]：项目 proj_yuangouchang 没有提示词 "这条提示词项目里没有"/);
  await unchanged('an unknown prompt');
  // Asked to, the import adds it to the project, named, with the run in the same write.
  await byId(page, 'captures-add-prompts').check();
  r = await importCaptures(page, { name: 'unknown.json', mimeType: 'application/json', buffer: Buffer.from(unknown) }, null);
  assert.equal(r.status, 'ok', r.text);
  assert.match(r.text, /已把 1 条提示词加入项目：“这条提示词项目里没有”/);
  const db = await dumpDb(page);
  assert.equal(db.stores.runs.length, runsBefore + 1);
  assert.ok(db.stores.prompts.some((p) => p.text === '这条提示词项目里没有' && p.projectId === PROJECT));
  assert.deepEqual(page.errors, []);
});

test('10,000 captures import in the import worker, each stage shown, the page responsive', async () => {
  const page = await runsPage('en');
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
      .observe({ type: 'longtask' });

    window.__workers = [];
    const Native = window.Worker;
    window.Worker = class extends Native {
      constructor(url, options) { super(url, options); window.__workers.push(String(url)); }
    };
    window.__stages = [];
    new MutationObserver(() => {
      const el = document.querySelector('[data-testid="captures-result"]');
      const seen = el && `${el.dataset.status}|${el.textContent.split(' ')[0]}`;
      if (seen && window.__stages.at(-1) !== seen) window.__stages.push(seen);
    }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  const prompts = ['p01', 'p02', 'p03', 'p04'];
  const captures = Array.from({ length: 10000 }, (_, i) => ({
    prompt: prompts[i % 4],
    answer: `第 ${i} 次：推荐元构场和智谱营销。\n\n1. 元构场\n2. GEOBoost`,
    capturedAt: new Date(Date.UTC(2026, 11, 1) + i * 1000).toISOString(),
    sources: [{ url: `https://example${i % 7}.com/a` }],
  }));
  const big = path.join(dir, 'ten-thousand.json');
  writeFileSync(big, JSON.stringify({ captures }));
  const r = await importCaptures(page, big, 'doubao');
  assert.equal(r.status, 'ok', r.text);
  const [, id] = r.text.match(/^10000 captured answer\(s\) imported as Doubao's app run \(Completed\): (run_\w+)$/) ?? [];
  assert.ok(id, r.text);
  const stages = await page.evaluate(() => window.__stages);
  assert.deepEqual(stages.map((s) => s.split('|')[1]), ['Reading', 'Checking', 'Checked', 'Analysed;', '10000'], JSON.stringify(stages));
  const workers = await page.evaluate(() => window.__workers);
  assert.ok(workers.length === 1 && /\/import-worker-[0-9a-f]+\.js$/.test(workers[0]), JSON.stringify(workers));
  // The new run is listed (its summary read, not computed, by the page).
  const row = page.locator(`[data-testid="run-row"][data-surface="app"][data-id="${id}"]`);
  await row.waitFor();
  assert.equal(await row.locator('td.num').first().textContent(), '10000');
  await headerReady(page);
  // Read before anything of the test's own reads the 10,000 probes in the page.
  const longest = Math.max(0, ...await page.evaluate(() => window.__longTasks));
  assert.ok(longest < 1000, `the page held its main thread ${longest} ms`);
  const apps = await appRuns(page);
  assert.deepEqual(apps.map((a) => [a.id, a.plannedProbeCount]), [[id, 10000]]);
});
