// Demo data (seed §8.2): the first visit seeds the demo project from demo/demo-data.json and
// re-analyses it; a reload does not duplicate it; demo-delete removes it for good (a reload
// keeps it gone); demo-restore brings it back; a broken file shows a toast and changes nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, freshPage, open, byId, dumpDb, until, headerReady, newContext } from './helpers.mjs';

const PROJECT = 'proj_demo';
const RUN1 = 'run_20261122T020000_demo';
const BRAND = 'tgt_demo_yuangouchang';
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const counts = (db) => Object.fromEntries(['projects', 'prompts', 'runs', 'probes'].map((n) => [n, db.stores[n].length]));
const setting = (db, key) => db.stores.settings.find((s) => s.key === key)?.value;

async function seeded(page) {
  return until(async () => {
    const db = await dumpDb(page);
    return db.stores.probes.length >= 30 && setting(db, 'demoSeeded') === true ? db : null;
  }, 15000, 'demo seeded');
}

test('the first visit seeds the demo project with analysed probes; a reload does not duplicate it', async () => {
  const page = await freshPage(browser, '', { demo: true });
  const db = await seeded(page);
  assert.deepEqual(counts(db), { projects: 1, prompts: 7, runs: 2, probes: 42 });
  const [project] = db.stores.projects;
  assert.equal(project.id, PROJECT);
  assert.equal(project.isDemo, true);
  const byStatus = {};
  for (const p of db.stores.probes) byStatus[p.status] = (byStatus[p.status] ?? 0) + 1;
  assert.deepEqual(byStatus, { success: 40, error: 1, empty: 1 });

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
  assert.ok(ok.every((p) => p.mentions.length > 0 && p.sources.length > 0), 'every successful probe analysed');
  // Recorded latencies are those of web-search answers: tens of seconds.
  assert.ok(ok.every((p) => p.latencyMs >= 15000 && p.latencyMs <= 90000), 'latencies of tens of seconds');

  // The header lists the project and its runs.
  await until(async () => (await byId(page, 'project-select').inputValue()) === PROJECT, 5000, 'demo project selected');
  await headerReady(page);
  const runs = await byId(page, 'run-select').locator('option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(runs.sort(), [RUN1, 'run_20261129T020000_demo']);

  await page.reload();
  await byId(page, 'nav-projects').waitFor();
  await until(async () => (await byId(page, 'project-select').inputValue()) === PROJECT, 5000, 'selected after reload');
  // Settled: the start-up check of the demo has ended and the header lists what is stored.
  await headerReady(page);
  assert.deepEqual(counts(await dumpDb(page)), { projects: 1, prompts: 7, runs: 2, probes: 42 }, 'no duplicates');
  const options = await byId(page, 'project-select').locator('option').count();
  assert.equal(options, 1);
  assert.deepEqual(page.errors, []);
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
    return db.stores.probes.length === 42 && setting(db, 'demoDeleted') === undefined ? db : null;
  }, 15000, 'demo restored');
  assert.deepEqual(counts(back), { projects: 1, prompts: 7, runs: 2, probes: 42 });
  assert.equal(setting(back, 'demoSeeded'), true);
  await until(async () => (await byId(page, 'project-select').inputValue()) === PROJECT, 5000, 'restored project selected');
  await page.locator('[data-testid="toast"][data-kind="ok"]').first().waitFor();

  // Restoring again overwrites by id.
  const done = Number(await byId(page, 'demo-card').getAttribute('data-done'));
  await byId(page, 'demo-restore').click();
  await page.locator(`[data-testid="demo-card"][data-state="idle"][data-done="${done + 1}"]`).waitFor();
  assert.deepEqual(counts(await dumpDb(page)), { projects: 1, prompts: 7, runs: 2, probes: 42 });
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
