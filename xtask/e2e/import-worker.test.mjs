// Importing keeps the page responsive (issue 16, deliverable 5; docs/adr/0015-import-worker.md):
// the settings import is read, checked, re-analysed and saved in a module Web Worker that
// runs the app's own wasm module, the page shows each stage, and the stored records and the
// merge report are exactly those of the same import run on the page itself (the fallback
// when no worker can start).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launch, byId, dumpDb, BASE_URL, newContext, withoutDemo, fromMissingDemo } from './helpers.mjs';
import { bigExport } from './webpages-helpers.mjs';

let browser;
let dir;
before(async () => { browser = await launch(); dir = mkdtempSync(path.join(tmpdir(), 'geo-import-worker-')); });
after(async () => { await browser?.close(); rmSync(dir, { recursive: true, force: true }); });

/** Before the app loads: long tasks, the workers started, and every text `import-result` shows. */
const OBSERVE = ({ noWorker }) => {
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration }); })
    .observe({ type: 'longtask', buffered: true });
  window.__workers = [];
  if (noWorker) {
    // A browser without workers: the page must import by itself.
    window.Worker = undefined;
  } else {
    const Native = window.Worker;
    window.Worker = class extends Native {
      constructor(url, options) { super(url, options); window.__workers.push({ url: String(url), type: options?.type ?? 'classic' }); }
    };
  }
  window.__importTexts = [];
  new MutationObserver(() => {
    const el = document.querySelector('[data-testid="import-result"]');
    if (!el) return;
    const seen = `${el.dataset.status}|${el.textContent}`;
    if (window.__importTexts.at(-1) !== seen) window.__importTexts.push(seen);
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
};

async function importPage({ noWorker = false } = {}) {
  const context = await newContext(browser);
  await withoutDemo(context);
  await context.addInitScript(OBSERVE, { noWorker });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !fromMissingDemo(m)) page.errors.push(m.text()); });
  await page.goto(new URL('settings', BASE_URL).href);
  await byId(page, 'lang-toggle').waitFor();
  await page.evaluate(() => localStorage.setItem('geo-probe.lang', 'en'));
  await page.reload();
  await byId(page, 'settings-import-file').waitFor();
  return { context, page };
}

async function importFile(page, text) {
  // Handed over as a path: a buffer would be decoded by script in the page, a long task of its own.
  const file = path.join(dir, 'history.json');
  writeFileSync(file, text);
  const from = await page.evaluate(() => performance.now());
  await byId(page, 'settings-import-file').setInputFiles(file);
  await page.locator('[data-testid="import-result"]:not([data-status="pending"])').waitFor({ timeout: 300000 });
  return {
    status: await byId(page, 'import-result').getAttribute('data-status'),
    text: await byId(page, 'import-result').textContent(),
    seen: await page.evaluate(() => window.__importTexts),
    workers: await page.evaluate(() => window.__workers),
    longest: await page.evaluate((f) => Math.max(0, ...window.__longTasks.filter((t) => t.start + t.duration >= f).map((t) => t.duration)), from),
    tasks: await page.evaluate((f) => window.__longTasks.filter((t) => t.start + t.duration >= f).map((t) => [Math.round(t.start - f), Math.round(t.duration)]), from),
    measures: await page.evaluate((f) => performance.getEntriesByType('measure').filter((m) => m.name.startsWith('geo:') && m.startTime + m.duration >= f)
      .map((m) => [m.name, Math.round(m.startTime - f), Math.round(m.duration)]), from),
    from,
  };
}

// About 1,000 probes, 8 MB: checking and re-analysing it held a release page for about a
// second and a debug one for many; in the worker the page's longest task stays far below.
const { env, composition } = bigExport({ prompts: 20, repeats: 50, prevRepeats: 2, domainPool: 200 });
const TEXT = JSON.stringify(env);

test('an 8 MB import runs in a module worker with no long task on the page, showing each stage', async () => {
  const { context, page } = await importPage();
  const r = await importFile(page, TEXT);
  assert.equal(r.status, 'ok', r.text);
  assert.equal(r.workers.length, 1, 'one worker for the import');
  assert.match(r.workers[0].url, /\/import-worker-[0-9a-f]+\.js$/);
  assert.equal(r.workers[0].type, 'module');
  // No task of the page over 1 s from handing over the file to the outcome: the threshold of
  // the target, far above the page's share of the work, so a loaded machine does not fail it.
  assert.ok(r.longest < 1000, `longest main-thread task ${Math.round(r.longest)} ms; long tasks [start, ms] ${JSON.stringify(r.tasks)}, measures ${JSON.stringify(r.measures)}`);
  const stages = r.seen.filter((s) => s.startsWith('pending|')).map((s) => s.slice('pending|'.length));
  const order = [/^Reading history\.json/, /^Checking 8\.\d MB/, /^Checked; re-analysing 1040 probes/, /^Checked; saving 1040 probes/];
  let at = 0;
  for (const s of stages) if (at < order.length && order[at].test(s)) at++;
  assert.equal(at, order.length, `every stage shown in order: ${JSON.stringify(stages)}`);
  assert.equal(composition.probes + composition.prevProbes, 1040);
  const db = await dumpDb(page);
  assert.equal(db.stores.probes.length, 1040);
  assert.equal(db.stores.runSummaries.length, 2, 'the summaries were written with the runs');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the worker stores exactly what the page itself stores, with the same report and the same refusals', async () => {
  const results = [];
  for (const noWorker of [false, true]) {
    const { context, page } = await importPage({ noWorker });
    const first = await importFile(page, TEXT);
    const again = await importFile(page, TEXT);
    const broken = await importFile(page, TEXT.slice(0, 5000));
    const db = await dumpDb(page);
    results.push({ first, again, broken, db, errors: page.errors });
    await context.close();
  }
  const [worker, inPage] = results;
  assert.equal(worker.broken.workers.length, 3, 'each import had its worker');
  assert.equal(inPage.broken.workers.length, 0, 'no worker in the fallback');
  for (const k of ['first', 'again', 'broken']) {
    assert.equal(worker[k].status, inPage[k].status, k);
    assert.equal(worker[k].text, inPage[k].text, k);
  }
  assert.equal(worker.first.status, 'ok');
  assert.equal(worker.broken.status, 'error');
  assert.match(worker.again.text, /unchanged/i);
  assert.deepEqual(worker.db, inPage.db, 'the same records in every store');
  assert.deepEqual(worker.errors, []);
  assert.deepEqual(inPage.errors, []);
});
