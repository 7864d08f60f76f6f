// The dashboard's comparison with the previous run equals `geo-probe diff` on the same data:
// the fixture exports of fixtures/exports/ (a significant drop, noise only, improved, mixed)
// are imported, and for each current run the `diff-verdict` and every `diff-row` (delta,
// interval, significance) must be exactly what the CLI prints. Also: the trend chart's
// interval band, the empty state without a previous run, and the run page's `run-precision`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  fileBrowser, freshPage, byId, until, num, cli, FIXTURES, importFixtureExport as importFile, showRun,
} from './helpers.mjs';

const CASES = [
  ['drop.json', 'run_drop_b', 'regressed'],
  ['noise.json', 'run_noise_b', 'stable'],
  ['improved.json', 'run_improved_b', 'improved'],
  ['mixed.json', 'run_mixed_b', 'mixed'],
];

const browser = fileBrowser({ cli: true });

test('the dashboard comparison equals geo-probe diff, row by row', async () => {
  const page = await freshPage(browser);
  for (const [file] of CASES) await importFile(page, file);
  for (const [file, runId, verdict] of CASES) {
    const diff = JSON.parse(cli(['diff', path.join(FIXTURES, 'exports', file), '--run', runId]));
    assert.equal(diff.verdict, verdict, file);
    await showRun(page, runId);
    assert.equal(await byId(page, 'diff-verdict').getAttribute('data-value'), diff.verdict, `${file}: verdict`);
    const rows = await byId(page, 'diff-row').evaluateAll((els) => els.map((e) => ({
      name: e.dataset.metric, delta: e.dataset.delta, low: e.dataset.low, high: e.dataset.high, significant: e.dataset.significant,
    })));
    assert.deepEqual(rows.map((r) => r.name), diff.metrics.map((m) => m.name), `${file}: one row per headline metric`);
    for (const [i, m] of diff.metrics.entries()) {
      const r = rows[i];
      assert.equal(num(r.delta), m.delta, `${file} ${m.name} delta`);
      assert.equal(num(r.low), m.low, `${file} ${m.name} low`);
      assert.equal(num(r.high), m.high, `${file} ${m.name} high`);
      assert.equal(r.significant, String(m.significant), `${file} ${m.name} significant`);
    }
    // The trend draws each run's Wilson interval of the mention rate as a band.
    const bands = await byId(page, 'trend-chart').locator('g.series-0').getAttribute('data-band-points');
    assert.ok(Number(bands) >= 2, `${file}: a band point per run with successes (${bands})`);
    assert.ok(await byId(page, 'trend-chart').locator('g.series-0 path.band').count() >= 1, 'a band is drawn');
  }
  // The first run of a pair has nothing to compare with.
  await showRun(page, 'run_drop_a');
  await byId(page, 'diff-none').waitFor();
  assert.equal(await byId(page, 'diff-verdict').count(), 0);
  // English marks, same values.
  await showRun(page, 'run_drop_b');
  await byId(page, 'lang-toggle').click();
  await until(async () => /real change/.test(await byId(page, 'dashboard').innerText()), 5000, 'English marks');
  assert.equal(await byId(page, 'diff-verdict').getAttribute('data-value'), 'regressed');
  assert.deepEqual(page.errors, []);
});

test('the run page says how precise the planned run will be', async () => {
  const page = await freshPage(browser);
  await importFile(page, 'drop.json');
  await showRun(page, 'run_drop_b');
  await byId(page, 'nav-run').click();
  const precision = byId(page, 'run-precision');
  await precision.waitFor();
  const z = 1.959963984540054;
  const halfAt = (n) => z / (2 * Math.sqrt(n + z * z));
  const prompts = await byId(page, 'run-prompt-toggle').count();
  const repeats = Number(await byId(page, 'run-repeats').inputValue());
  const want = halfAt(prompts * repeats);
  assert.ok(Math.abs(num(await precision.getAttribute('data-half-width')) - want) < 1e-12, 'half-width at p = 0.5');
  // ±10 points: the fewest repeats with a half-width ≤ 0.10.
  let r = 1;
  while (halfAt(prompts * r) > 0.1) r += 1;
  assert.equal(Number(await precision.getAttribute('data-repeats-for-ten')), r);
  await byId(page, 'run-repeats').fill(String(r));
  await until(async () => Math.abs(num(await precision.getAttribute('data-half-width')) - halfAt(prompts * r)) < 1e-12, 5000, 'updates with repeats');
  assert.deepEqual(page.errors, []);
});
