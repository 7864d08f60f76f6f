// Dashboard, sources, lists and export against the CLI: two runs made by `geo-probe run`
// against the mock are imported, and every figure the pages show (data-value) must equal
// `geo-probe metrics FILE --run ID` for the selected run. Export downloads re-import to the
// same data; the language toggle changes the text; a screenshot is saved for the README.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launch, freshPage, open, byId, until, dumpDb, cli, buildCli, ROOT } from './helpers.mjs';
import { startMock } from './run-helpers.mjs';

const MOCK = process.env.GEO_MOCK_BIN;
const FIXTURES = process.env.FIXTURES_DIR ?? path.resolve('fixtures');
const PROJECT = 'proj_yuangouchang';
// The second run asks a partly different set, so domains come and go between the runs.
const PROMPTS = ['p01,p03,p06,p09', 'p01,p06,p08,p12,p15'];

let browser;
let mock;
let exportFile;
let env;

const metricsOf = (file, runId) => JSON.parse(cli(['metrics', file, '--run', runId]))[0];

before(async () => {
  assert.ok(MOCK, 'GEO_MOCK_BIN is set by `cargo xtask e2e`');
  buildCli();
  mock = await startMock();
  const dir = mkdtempSync(path.join(tmpdir(), 'geo-dash-'));
  const first = path.join(dir, 'one.json');
  exportFile = path.join(dir, 'two.json');
  const common = (prompts) => ['--project', PROJECT, '--prompts', prompts, '--repeats', '2', '--base-url', mock.url, '--timeout-secs', '10'];
  cli(['run', path.join(FIXTURES, 'project.json'), ...common(PROMPTS[0]), '--out', first]);
  cli(['run', first, ...common(PROMPTS[1]), '--out', exportFile]);
  env = JSON.parse(readFileSync(exportFile, 'utf8'));
  assert.equal(env.runs.length, 2, 'two runs in one file');
  browser = await launch();
});

after(async () => {
  await browser?.close();
  mock?.stop();
});

async function importFile(page, text, name = 'export.json') {
  await open(page, 'settings');
  await byId(page, 'settings-import-file').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  await page.locator('[data-testid="import-result"][data-status="ok"]').waitFor();
}

async function selectProjectAndRun(page, runId) {
  await until(async () => (await byId(page, 'project-select').locator(`option[value="${PROJECT}"]`).count()) > 0, 5000, 'project option');
  await byId(page, 'project-select').selectOption(PROJECT);
  await until(async () => (await byId(page, 'run-select').locator(`option[value="${runId}"]`).count()) > 0, 5000, 'run option');
  await byId(page, 'run-select').selectOption(runId);
}

const num = (s) => (s === '' || s === null ? null : Number(s));
const CARDS = {
  'metric-mention-rate': 'mentionRate', 'metric-first-mention-rate': 'firstMentionRate',
  'metric-avg-order': 'avgOrder', 'metric-avg-list-position': 'avgListPosition',
  'metric-owned-visibility': 'ownedVisibility', 'metric-owned-best-rank': 'ownedBestRank',
  'metric-source-stability': 'sourceStability', 'metric-unique-domains': 'uniqueDomains',
  'metric-answer-link-overlap': 'answerLinkOverlap', 'metric-success-count': 'successCount',
  'metric-estimated-cost': 'estimatedCostUsd',
};

async function checkDashboard(page, m) {
  await byId(page, 'metric-mention-rate').waitFor();
  await until(async () => num(await byId(page, 'metric-success-count').getAttribute('data-value')) === m.successCount, 5000, 'run figures');
  for (const [id, field] of Object.entries(CARDS)) {
    const v = await byId(page, id).getAttribute('data-value');
    const want = m[field] ?? null;
    if (want === null) assert.equal(v, '', `${id} is empty for null`);
    else assert.ok(Math.abs(num(v) - want) <= 1e-12 * Math.max(1, Math.abs(want)), `${id}: ${v} vs ${want}`);
  }
  const sov = await byId(page, 'sov-row').evaluateAll((els) => els.map((e) => [e.dataset.target, e.dataset.value]));
  assert.deepEqual(sov.map(([t]) => t), Object.keys(m.shareOfVoice), 'one sov row per target, in snapshot order');
  for (const [t, v] of sov) assert.equal(num(v), m.shareOfVoice[t], `sov ${t}`);
  const insights = await byId(page, 'insight').evaluateAll((els) => els.map((e) => e.dataset.kind));
  assert.deepEqual(insights, m.insights.map((i) => i.kind));
  // The per-tag breakdown is geo-core's `tags`, row for row.
  const tags = await byId(page, 'tag-row').evaluateAll((els) => els.map((e) => [e.dataset.tag, e.dataset.value]));
  assert.deepEqual(tags.map(([t]) => t), m.tags.map((t) => t.tag), 'one tag row per tag, in first-appearance order');
  for (const [[t, v], want] of tags.map((row, i) => [row, m.tags[i]])) assert.equal(num(v), want.mentionRate, `tag ${t}`);
  assert.equal(await byId(page, 'trend-chart').getAttribute('data-points'), '2');
}

test('dashboard and sources show exactly the CLI metrics of the selected run', async () => {
  const page = await freshPage(browser);
  await importFile(page, JSON.stringify(env));
  const runs = [...env.runs].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  for (const run of runs) {
    const m = metricsOf(exportFile, run.id);
    assert.ok(m.successCount > 0, 'the mock answers');
    if (run === runs[1]) assert.ok(m.newDomains.length + m.lostDomains.length > 0, 'the second run gains or loses domains');
    await open(page, '');
    await selectProjectAndRun(page, run.id);
    await checkDashboard(page, m);

    await byId(page, 'nav-sources').click();
    await until(async () => (await byId(page, 'source-row').count()) === m.domains.length, 5000, 'source rows');
    const rows = await byId(page, 'source-row').evaluateAll((els) => els.map((e) => [e.dataset.domain, e.dataset.occurrences, e.dataset.probeRate]));
    const byDomain = new Map(rows.map(([d, o, r]) => [d, [num(o), num(r)]]));
    for (const d of m.domains) assert.deepEqual(byDomain.get(d.domain), [d.occurrences, d.occurrenceRate], `domain ${d.domain}`);
    // The channel chart is geo-core's `channels`, in its order.
    const channels = await byId(page, 'channel-row').evaluateAll((els) => els.map((e) => [e.dataset.target, e.dataset.value]));
    assert.deepEqual(channels.map(([c, v]) => [c, num(v)]), m.channels.map((c) => [c.channel, c.occurrences]), 'channel rows');
    assert.equal(await byId(page, 'new-domain').count(), m.newDomains.length);
    assert.equal(await byId(page, 'lost-domain').count(), m.lostDomains.length);
    // Sorting by domain (keyboard) and filtering.
    await byId(page, 'sort-domain').focus();
    await page.keyboard.press('Enter');
    const sorted = await byId(page, 'source-row').evaluateAll((els) => els.map((e) => e.dataset.domain));
    assert.deepEqual(sorted, [...sorted].sort());
    const first = m.domains[0].domain;
    await byId(page, 'source-filter').fill(first);
    await until(async () => (await byId(page, 'source-row').count()) >= 1 && (await byId(page, 'source-row').count()) < m.domains.length + 1, 5000, 'filtered');
    await page.locator(`[data-testid="source-row"][data-domain="${first}"] [data-testid="source-open"]`).click();
    // The drill-down reads the run's probes when it opens (the table is the stored metrics).
    await byId(page, 'source-url').first().waitFor();
    assert.ok(await byId(page, 'source-url').count() >= 1, 'drill-down lists the URLs');

    await byId(page, 'nav-lists').click();
    await byId(page, 'list-stability').waitFor();
    assert.equal(num(await byId(page, 'list-stability').getAttribute('data-value')), m.listStability ?? null);
    const probes = env.probes.filter((p) => p.runId === run.id && p.status === 'success');
    const items = probes.reduce((n, p) => n + (p.listItems ?? []).length, 0);
    // The page of lists reads its probes after the stored figures are shown.
    await until(async () => (await byId(page, 'list-row').count()) === items, 5000, 'one list-row per parsed list item');
  }
  // "Add as competitor" updates the project, never a run.
  const entities = await byId(page, 'untracked-entity').count();
  if (entities > 0) {
    const name = await byId(page, 'untracked-entity').first().getAttribute('data-name');
    await byId(page, 'add-competitor').first().click();
    const db = await until(async () => {
      const d = await dumpDb(page);
      return d.stores.projects[0].competitors.some((c) => c.label === name) ? d : null;
    }, 5000, 'competitor added');
    const added = db.stores.projects[0].competitors.find((c) => c.label === name);
    assert.deepEqual(added.aliases, [name]);
    for (const r of db.stores.runs) assert.ok(!r.aliasSnapshot.some((t) => t.label === name), 'runs keep their snapshot');
  }
  assert.deepEqual(page.errors, []);
});

test('language toggle, screenshot, and exports that re-import to the same data', async () => {
  const page = await freshPage(browser);
  await importFile(page, JSON.stringify(env));
  const last = [...env.runs].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))[0];
  await open(page, '');
  await selectProjectAndRun(page, last.id);
  const m = metricsOf(exportFile, last.id);
  await checkDashboard(page, m);
  const zh = await byId(page, 'dashboard').innerText();
  await byId(page, 'lang-toggle').click();
  await until(async () => (await byId(page, 'dashboard').innerText()) !== zh, 5000, 'text changes language');
  const en = await byId(page, 'dashboard').innerText();
  assert.match(en, /Mention rate/);
  await checkDashboard(page, m);

  await page.setViewportSize({ width: 1280, height: 1400 });
  const shotDir = path.join(ROOT, 'target/e2e-artifacts');
  mkdirSync(shotDir, { recursive: true });
  const shot = path.join(shotDir, 'dashboard.png');
  await page.screenshot({ path: shot, fullPage: false });
  // Only `cargo xtask screenshot` refreshes the README's copy: a test run writes to target/ only.
  if (process.env.GEO_SCREENSHOT_OUT) copyFileSync(shot, process.env.GEO_SCREENSHOT_OUT);
  await byId(page, 'lang-toggle').click();

  await byId(page, 'nav-export').click();
  const grab = async (id) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), byId(page, id).click()]);
    const file = await dl.path();
    return { name: dl.suggestedFilename(), text: readFileSync(file, 'utf8') };
  };
  await byId(page, 'export-run-json').waitFor();
  await until(async () => !(await byId(page, 'export-run-json').isDisabled()), 5000, 'run exports enabled');
  const full = await grab('export-full-json');
  const runJson = await grab('export-run-json');
  const probesCsv = await grab('export-probes-csv');
  const sourcesCsv = await grab('export-sources-csv');
  const md = await grab('export-markdown');
  const date = last.createdAt.slice(0, 10);
  for (const f of [runJson, probesCsv, sourcesCsv, md]) assert.ok(f.name.startsWith('geo-probe-') && f.name.includes(date), f.name);
  assert.ok(probesCsv.name.endsWith('-probes.csv') && sourcesCsv.name.endsWith('-sources.csv') && md.name.endsWith('-report-zh.md'));
  assert.equal(probesCsv.text, cli(['csv', 'probes', exportFile, '--run', last.id]), 'probes CSV equals the CLI');
  assert.equal(sourcesCsv.text, cli(['csv', 'sources', exportFile, '--run', last.id]), 'sources CSV equals the CLI');
  assert.match(md.text, /^#/);
  const runEnv = JSON.parse(runJson.text);
  assert.deepEqual(runEnv.runs.map((r) => r.id), [last.id]);
  assert.equal(runEnv.probes.length, env.probes.filter((p) => p.runId === last.id).length);

  // The full export re-imports into an empty browser to identical data.
  const a = JSON.parse(full.text);
  assert.equal(a.runs.length, 2);
  assert.equal(a.probes.length, env.probes.length);
  const page2 = await freshPage(browser);
  await importFile(page2, full.text);
  await open(page2, 'export');
  await byId(page2, 'export-full-json').waitFor();
  const [dl] = await Promise.all([page2.waitForEvent('download'), byId(page2, 'export-full-json').click()]);
  const b = JSON.parse(readFileSync(await dl.path(), 'utf8'));
  delete a.exportedAt; delete b.exportedAt;
  assert.deepEqual(b, a, 'a re-imported export exports the same data');
  // The single-run JSON imports too and gives the same figures.
  const page3 = await freshPage(browser);
  await importFile(page3, runJson.text, 'run.json');
  await open(page3, '');
  await selectProjectAndRun(page3, last.id);
  await byId(page3, 'metric-success-count').waitFor();
  assert.equal(num(await byId(page3, 'metric-success-count').getAttribute('data-value')), m.successCount);
  assert.deepEqual([...page.errors, ...page2.errors, ...page3.errors], []);
});

test('empty states say what to do next', async () => {
  const page = await freshPage(browser);
  await byId(page, 'empty-state').waitFor();
  for (const p of ['sources', 'lists']) {
    await open(page, p);
    await byId(page, 'empty-state').waitFor();
  }
});
