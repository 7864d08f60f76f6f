// A comparison that notices when the method changed (issue 38): fixtures/exports/method.json
// (DeepSeek API runs whose served model changed, then whose location changed, an OpenAI run and
// an app run of each engine) is imported, and the dashboard must say what `geo-probe` says —
// `diff-not-comparable` opens the comparison card with the CLI report's first paragraph, above the
// verdict; its `diff-method-change` rows are `geo-probe diff`'s `methodChanges`; the trend holds
// the shown run's engine and surface only (an app run never joins an API trend) and marks with
// `trend-method-break` exactly the runs whose method differs from the run before, as
// `geo-probe diff` between consecutive runs finds them. A comparable pair (noise.json) shows no
// such block and no mark; the run detail's `run-method` is `geo-probe metrics`' `method`. At
// 390 px, in Chinese and English, both pages fit the screen and pass axe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileBrowser, freshPage, byId, until, cli, FIXTURES, importFixtureExport, showRun, open } from './helpers.mjs';
import { setLang, axeViolations, horizontalOverflow } from './a11y-helpers.mjs';

const FILE = path.join(FIXTURES, 'exports', 'method.json');

const browser = fileBrowser({ cli: true });

/** `geo-probe diff` of `run` (against `against`, default its previous run) on `file`, as JSON. */
const diffOf = (run, against, file = FILE) =>
  JSON.parse(cli(['diff', file, '--run', run, ...(against ? ['--against', against] : []), '--format', 'json']));

/** The Markdown report's paragraph that says the runs are not comparable, without its bold marks. */
function notComparableParagraph(run, lang) {
  const md = cli(['diff', FILE, '--run', run, '--format', 'markdown', '--lang', lang]);
  const para = md.split('\n\n').find((p) => p.startsWith('servedModels') || p.startsWith('location'));
  assert.ok(para, `the ${lang} report of ${run} opens with the changed fields:\n${md}`);
  return para.replaceAll('**', '');
}

/** The shown comparison's method-change rows, as `methodChanges` objects. */
const shownChanges = (page) => byId(page, 'diff-method-change').evaluateAll((els) => els.map((e) => ({
  field: e.dataset.field, against: JSON.parse(e.dataset.against), current: JSON.parse(e.dataset.current),
})));

/** The trend's method-break marks, once the (deferred) chart is drawn. */
async function shownBreaks(page) {
  await byId(page, 'trend-chart').waitFor();
  return byId(page, 'trend-method-break').evaluateAll((els) => els.map((e) => ({ run: e.dataset.run, fields: e.dataset.fields })));
}

/** What the CLI says the trend of `engine` and `surface` is and where its method changed: the
 * runs of that engine and surface in `geo-probe metrics`, in the export's time order; a break
 * wherever `geo-probe diff` of a completed or partial run against the one before it is not
 * comparable (its `methodChanges` fields). */
function cliTrend(engine, surface) {
  const env = JSON.parse(readFileSync(FILE, 'utf8'));
  const created = new Map(env.runs.map((r) => [r.id, r]));
  const runs = JSON.parse(cli(['metrics', FILE]))
    .filter((m) => m.method.engine === engine && m.surface === surface)
    .map((m) => created.get(m.runId))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const done = runs.filter((r) => ['completed', 'partial'].includes(r.status));
  const breaks = [];
  for (let i = 1; i < done.length; i += 1) {
    const d = diffOf(done[i].id, done[i - 1].id);
    if (!d.comparable) breaks.push({ run: done[i].id, fields: d.methodChanges.map((c) => c.field).join(',') });
  }
  return { points: runs.length, breaks };
}

test('the dashboard says first that runs measured differently are not comparable, as geo-probe diff does', async () => {
  const page = await freshPage(browser);
  await importFixtureExport(page, 'method.json');
  for (const run of ['run_m_b', 'run_m_c']) {
    const diff = diffOf(run);
    assert.equal(diff.comparable, false, `${run} is not comparable with its previous run`);
    await showRun(page, run);
    const block = byId(page, 'diff-not-comparable');
    await block.waitFor();
    assert.deepEqual(await shownChanges(page), diff.methodChanges, `${run}: one row per methodChanges entry, in order`);
    // Said first: the block comes before the verdict in the card.
    const follows = await block.evaluate((b) =>
      Boolean(b.compareDocumentPosition(document.querySelector('[data-testid="diff-verdict"]')) & Node.DOCUMENT_POSITION_FOLLOWING));
    assert.ok(follows, `${run}: the verdict follows the not-comparable block`);
    assert.equal(await byId(page, 'diff-verdict').getAttribute('data-value'), diff.verdict, `${run}: the verdict is still given`);
  }

  // The served model changed: the block names both models, and its paragraph is the CLI
  // report's, in Chinese and in English.
  await showRun(page, 'run_m_b');
  const block = byId(page, 'diff-not-comparable');
  const text = await block.innerText();
  for (const model of ['deepseek-v4-flash', 'deepseek-v4-flash-0601']) assert.ok(text.includes(model), `names ${model}: ${text}`);
  assert.equal((await block.locator('p').first().innerText()).trim(), notComparableParagraph('run_m_b', 'zh'));
  await setLang(page, 'en');
  await until(async () => (await block.locator('p').first().innerText()).trim() === notComparableParagraph('run_m_b', 'en'),
    5000, 'the English paragraph');
  assert.match(await byId(page, 'diff-method-change').first().innerText(), /Served models/);
  await setLang(page, 'zh');

  // The trend: DeepSeek's API runs only, marked where geo-probe finds the method changed.
  const api = cliTrend('deepseek', 'api');
  assert.deepEqual(api.breaks.map((b) => b.run), ['run_m_b', 'run_m_c'], 'the fixture changes the method twice');
  assert.equal(await byId(page, 'trend-chart').getAttribute('data-points'), String(api.points), 'no app run in the API trend');
  assert.deepEqual(await shownBreaks(page), api.breaks);
  const mark = byId(page, 'trend-method-break').first();
  assert.match(await mark.locator('title').textContent(), /实际应答的模型/, 'the mark names the changed field');
  assert.match(await byId(page, 'trend-method-note').innerText(), /虚线/);

  // The app run: its own trend (one point), no API run in it, no mark.
  const app = cliTrend('deepseek', 'app');
  await showRun(page, 'run_m_ds_app');
  await until(async () => (await byId(page, 'trend-chart').getAttribute('data-points').catch(() => null)) === String(app.points),
    5000, 'the app trend');
  assert.equal(app.points, 1);
  assert.deepEqual(await shownBreaks(page), app.breaks);
  assert.deepEqual(page.errors, []);
});

test('the run detail shows how the run measured, as geo-probe metrics gives its method', async () => {
  const page = await freshPage(browser);
  await importFixtureExport(page, 'method.json');
  for (const run of ['run_m_b', 'run_m_c', 'run_m_ds_app']) {
    const [m] = JSON.parse(cli(['metrics', FILE, '--run', run]));
    await open(page, `runs/${run}`);
    const block = byId(page, 'run-method');
    await block.waitFor();
    assert.equal(await block.getAttribute('data-engine'), m.method.engine);
    assert.equal(await block.getAttribute('data-surface'), m.method.surface);
    assert.equal(await block.getAttribute('data-served'), m.method.servedModels.join(','));
    const text = await block.innerText();
    assert.ok(text.includes(m.method.requestedModel), `${run}: requested model in ${text}`);
    if (m.method.location) assert.ok(text.includes(m.method.location.city), `${run}: location in ${text}`);
    if (m.method.systemPromptVersion) assert.ok(text.includes(m.method.systemPromptVersion), `${run}: prompt version`);
  }
  assert.deepEqual(page.errors, []);
});

test('a comparable pair shows no method block and no trend mark', async () => {
  const page = await freshPage(browser);
  await importFixtureExport(page, 'noise.json');
  const diff = diffOf('run_noise_b', null, path.join(FIXTURES, 'exports', 'noise.json'));
  assert.equal(diff.comparable, true);
  assert.deepEqual(diff.methodChanges, []);
  await showRun(page, 'run_noise_b');
  await byId(page, 'diff-verdict').waitFor();
  assert.equal(await byId(page, 'diff-not-comparable').count(), 0);
  assert.equal(await byId(page, 'diff-method-change').count(), 0);
  assert.deepEqual(await shownBreaks(page), []);
  assert.equal(await byId(page, 'trend-method-note').count(), 0);
  assert.deepEqual(page.errors, []);
});

test('on a phone, in Chinese and English, the method block and marks fit the screen and pass axe', async () => {
  const page = await freshPage(browser, '', { viewport: { width: 390, height: 860 } });
  await importFixtureExport(page, 'method.json');
  // axe looks at this work's parts of each page (the rest is the a11y test's).
  const pages = [
    ['dashboard', ['[data-testid="diff-not-comparable"]', '[data-testid="trend-chart"]', '[data-testid="trend-method-note"]'], async () => {
      await showRun(page, 'run_m_b');
      await byId(page, 'diff-not-comparable').waitFor();
      await byId(page, 'trend-method-break').first().waitFor();
    }],
    ['run detail', ['[data-testid="run-method"]'], async () => {
      await open(page, 'runs/run_m_c');
      await byId(page, 'run-method').waitFor();
    }],
  ];
  const problems = [];
  for (const lang of ['zh', 'en']) {
    await setLang(page, lang);
    for (const [where, parts, show] of pages) {
      await show();
      const o = await horizontalOverflow(page);
      if (o.over > 0) problems.push(`${lang} ${where}: ${o.over} px too wide (${o.offenders.join('; ')})`);
      for (const v of await axeViolations(page, parts)) problems.push(`${lang} ${where}: ${v}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(page.errors, []);
});
