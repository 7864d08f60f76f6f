// The site's wasm entries (issue 39, deliverable 1; docs/adr/0025-entries.md): a first visit
// to the dashboard downloads the dashboard entry alone before its first figure; any other page
// but the Docs chat is handed over to the app entry in the same document, with a loading state,
// by mouse and by keyboard; the Docs chat is the chat entry's, a document of its own, reached
// from every page and reaching every page by a page load; deep links load their entry straight
// away; the import worker runs from an app that was handed over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { fileBrowser, newContext, byId, headerReady, withoutDemo, fromMissingDemo, BASE_URL, FIXTURES } from './helpers.mjs';

const browser = fileBrowser();

// Every navigation entry (ui-testids.md) of the app entry's pages.
const NAV = ['projects', 'run', 'runs', 'engines', 'sources', 'actions', 'claims', 'lists', 'export', 'settings'];
const isDashboardWasm = (url) => /\/geo_web_dashboard_bg-[0-9a-f]+\.wasm$/.test(url);
const isAppWasm = (url) => /\/geo_web_bg-[0-9a-f]+\.wasm$/.test(url);
const isAppGlue = (url) => /\/geo_web-[0-9a-f]+\.js$/.test(url);
const isChatWasm = (url) => /\/geo_web_chat_bg-[0-9a-f]+\.wasm$/.test(url);
const isChatGlue = (url) => /\/geo_web_chat-[0-9a-f]+\.js$/.test(url);
const isDemo = (url) => /\/demo\/demo-(data|first-view)\.json$/.test(url);

/** A fresh context and page that records every request's URL (in order) and page errors;
 * `holdApp` holds the app entry's module until `page.releaseApp()`; `init` runs before the
 * page's scripts. */
async function entryPage(route, { demo = true, holdApp = false, viewport, init } = {}) {
  const context = await newContext(browser, viewport ? { viewport } : {});
  if (!demo) await withoutDemo(context);
  if (init) await context.addInitScript(init);
  let releaseApp = () => {};
  if (holdApp) {
    const gate = new Promise((r) => { releaseApp = r; });
    await context.route(/\/geo_web_bg-[0-9a-f]+\.wasm$/, async (r) => { await gate; await r.continue(); });
  }
  const page = await context.newPage();
  page.releaseApp = releaseApp;
  page.requests = [];
  page.on('request', (r) => page.requests.push(r.url()));
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !(!demo && fromMissingDemo(m))) page.errors.push(m.text());
  });
  await page.goto(new URL(route, BASE_URL).href);
  await byId(page, 'nav-projects').waitFor();
  return page;
}

/** The loading state of a handover, then the page of the app entry in the same document. */
async function handsOver(page, name, shot) {
  const loading = page.locator('main .entry-loading[aria-busy="true"]');
  await loading.waitFor();
  assert.equal(await loading.locator('[role="status"]').count(), 1, `${name}: the loading state says so`);
  assert.equal(await page.locator('main h1').count(), 1, `${name}: the page's name is its heading while it loads`);
  if (shot) await page.screenshot({ path: shot });
  page.releaseApp();
  await page.waitForFunction(() => !document.querySelector('.entry-loading') && document.querySelectorAll('main h1').length >= 1);
  await page.waitForFunction((n) => document.querySelector(`[data-testid="nav-${n}"]`)?.getAttribute('aria-current') === 'page', name);
  assert.equal(new URL(page.url()).pathname, `/${name}`);
  assert.equal(await page.evaluate(() => window.__marker), 1, `${name}: the same document`);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'main', `${name}: the focus is on the page`);
  assert.ok(page.requests.some(isAppWasm), `${name}: the app entry was loaded`);
}

/** Before the page's scripts: the moment (page clock) `metric-mention-rate` first carries its value. */
const FIRST_FIGURE = () => {
  new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid="metric-mention-rate"][data-value]')) {
      window.__figureAt = performance.now();
      observer.disconnect();
    }
  }).observe(document, { subtree: true, childList: true, attributes: true });
};

test('a first visit to the dashboard fetches the dashboard entry alone before its first figure, then prefetches the app entry', async () => {
  const context = await newContext(browser);
  await context.addInitScript(FIRST_FIGURE);
  const page = await context.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(BASE_URL);
  await page.waitForFunction(() => window.__figureAt !== undefined);
  // Once the start-up has settled, the app entry is fetched in the background (low priority).
  await headerReady(page);
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /\/geo_web_bg-[0-9a-f]+\.wasm$/.test(e.name)));
  // Requests on the page's clock: each one's start against the first figure's moment.
  const { figureAt, fetched } = await page.evaluate(() => ({
    figureAt: window.__figureAt,
    fetched: performance.getEntriesByType('resource').map((e) => ({ url: e.name, start: e.startTime })),
  }));
  const before = fetched.filter((r) => r.start < figureAt).map((r) => r.url);
  assert.equal(before.filter(isDashboardWasm).length, 1, 'the dashboard entry is fetched before the first figure');
  assert.deepEqual(before.filter((u) => isAppWasm(u) || isAppGlue(u)), [], 'nothing of the app entry before the first figure');
  assert.equal(before.filter((u) => u.endsWith('.wasm')).length, 1, 'one module before the first figure');
  // The demo's first view before it (checked against the page's fingerprint), the demo file after it (ADR 0024).
  assert.equal(before.filter((u) => u.endsWith('/demo/demo-first-view.json')).length, 1, 'the first view before the first figure');
  assert.deepEqual(before.filter((u) => u.endsWith('/demo/demo-data.json')), [], 'the demo file after the first figure');
  assert.ok(fetched.some((r) => r.url.endsWith('/demo/demo-data.json') && r.start > figureAt), 'the demo file after it');
  assert.ok(fetched.some((r) => isAppGlue(r.url) && r.start > figureAt), 'the app entry\'s glue after it');
  assert.equal(requests.filter(isDashboardWasm).length, 1, 'the dashboard entry once');
  assert.equal(requests.filter(isAppWasm).length, 1, 'the app entry once');
  assert.deepEqual(requests.filter((u) => isChatWasm(u) || isChatGlue(u)), [], 'nothing of the chat entry');
  assert.deepEqual(errors, []);
  await context.close();
});

test('every navigation link hands the dashboard over to the app entry with a loading state', async () => {
  const shots = process.env.GEO_SCREENSHOT_DIR;
  if (shots) mkdirSync(shots, { recursive: true });
  for (const name of NAV) {
    const page = await entryPage('', { holdApp: true });
    await headerReady(page);
    await page.evaluate(() => { window.__marker = 1; });
    await byId(page, `nav-${name}`).click();
    await handsOver(page, name, shots && name === 'settings' ? path.join(shots, 'handover-1280.png') : null);
    assert.deepEqual(page.errors, [], name);
    await page.context().close();
  }
});

test('by keyboard: Enter on a navigation link hands over, in Chinese and at 390 px', async () => {
  const shots = process.env.GEO_SCREENSHOT_DIR;
  for (const name of ['settings', 'runs']) {
    const page = await entryPage('', { holdApp: true, viewport: { width: 390, height: 844 } });
    await headerReady(page);
    await page.evaluate(() => { window.__marker = 1; });
    await byId(page, `nav-${name}`).focus();
    await page.keyboard.press('Enter');
    await handsOver(page, name, shots && name === 'runs' ? path.join(shots, 'handover-390.png') : null);
    assert.equal(await page.locator('html').getAttribute('lang'), 'zh');
    // The page works from the keyboard after the handover: from `main`, Shift+Tab is back on
    // the navigation, at the link that was pressed's row (the last link, Docs chat).
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'nav-chat');
    assert.deepEqual(page.errors, [], name);
    await page.context().close();
  }
});

test('the run chosen on the dashboard is still chosen after the handover, and through the Docs chat', async () => {
  const page = await entryPage('');
  await headerReady(page);
  const runs = await byId(page, 'run-select').locator('option').evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
  assert.ok(runs.length > 1, 'the demo has several runs');
  const older = runs.at(-1) === (await byId(page, 'run-select').inputValue()) ? runs[0] : runs.at(-1);
  await byId(page, 'run-select').selectOption(older);
  await page.locator(`[data-testid="dashboard"][data-state="ready"][data-run="${older}"]`).waitFor();
  await byId(page, 'nav-sources').click();
  await page.waitForFunction(() => !document.querySelector('.entry-loading') && document.querySelector('[data-testid="nav-sources"]')?.getAttribute('aria-current') === 'page');
  await headerReady(page);
  assert.equal(await byId(page, 'run-select').inputValue(), older);
  // Through the Docs chat's own document and back, by its links (the tab's session storage).
  await byId(page, 'nav-chat').click();
  await loadsDocument(page, 'chat');
  await headerReady(page);
  assert.equal(await byId(page, 'run-select').inputValue(), older, 'in the chat\'s document');
  await byId(page, 'nav-sources').click();
  await loadsDocument(page, 'sources');
  await headerReady(page);
  assert.equal(await byId(page, 'run-select').inputValue(), older, 'back on the sources page');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('deep links load the app entry straight into their page', async () => {
  const demo = await (await fetch(new URL('demo/demo-data.json', BASE_URL))).json();
  const runId = demo.runs.at(-1).id;
  for (const [route, ready] of [['settings', 'settings-import-file'], [`runs/${runId}`, 'run-status'], ['projects', 'project-new']]) {
    const page = await entryPage(route);
    await byId(page, ready).first().waitFor();
    assert.equal(page.requests.filter(isDashboardWasm).length, 0, `${route}: no dashboard entry`);
    assert.equal(page.requests.filter(isAppWasm).length, 1, `${route}: the app entry once`);
    assert.equal(page.requests.filter(isChatWasm).length, 0, `${route}: no chat entry`);
    assert.equal(await page.locator('.entry-loading').count(), 0);
    assert.deepEqual(page.errors, [], route);
    await page.context().close();
  }
});

test('the import worker runs from an app the dashboard handed over', async () => {
  const context = await newContext(browser);
  await withoutDemo(context);
  await context.addInitScript(() => {
    window.__workers = [];
    const Native = window.Worker;
    window.Worker = class extends Native {
      constructor(url, options) { super(url, options); window.__workers.push(String(url)); }
    };
  });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(BASE_URL);
  await headerReady(page);
  await byId(page, 'nav-settings').click();
  await byId(page, 'settings-import-file').setInputFiles(path.join(FIXTURES, 'exports', 'engines.json'));
  const result = page.locator('[data-testid="import-result"]:not([data-status="pending"])');
  await result.waitFor();
  assert.equal(await result.getAttribute('data-status'), 'ok', await result.textContent());
  const workers = await page.evaluate(() => window.__workers);
  assert.equal(workers.length, 1, 'one import worker');
  assert.match(workers[0], /\/import-worker-[0-9a-f]+\.js$/);
  assert.deepEqual(page.errors, []);
  await context.close();
});

/** Waits for the page `name` (a navigation entry, or `dashboard`) of a new document, after a
 * link that loads one: the link current, the page drawn, the focus on it, the document new. */
async function loadsDocument(page, name) {
  await page.waitForFunction((n) => document.querySelector(`[data-testid="nav-${n}"]`)?.getAttribute('aria-current') === 'page', name);
  if (name === 'chat') await byId(page, 'chat-question').waitFor();
  else if (name === 'dashboard') await page.locator('[data-testid="dashboard"][data-state="ready"]').waitFor();
  else await page.waitForFunction(() => !document.querySelector('.entry-loading') && document.querySelectorAll('main h1').length >= 1);
  assert.equal(new URL(page.url()).pathname, name === 'dashboard' ? '/' : `/${name}`);
  assert.equal(await page.evaluate(() => window.__marker), undefined, `${name}: a document of its own`);
  await page.waitForFunction(() => document.activeElement?.id === 'main');
}

test('a deep link to the Docs chat loads the chat entry alone, with a query too, and no demo', async () => {
  for (const route of ['chat', 'chat?chatTimeoutMs=1500']) {
    const page = await entryPage(route);
    await byId(page, 'chat-question').waitFor();
    await headerReady(page);
    assert.equal(await byId(page, 'nav-chat').getAttribute('aria-current'), 'page');
    assert.equal(page.requests.filter(isChatWasm).length, 1, `${route}: the chat entry once (its preload is used)`);
    assert.equal(page.requests.filter(isChatGlue).length, 1, `${route}: its glue once`);
    assert.deepEqual(page.requests.filter((u) => isAppWasm(u) || isAppGlue(u) || isDashboardWasm(u)), [], `${route}: no other entry`);
    assert.deepEqual(page.requests.filter(isDemo), [], `${route}: the chat entry seeds no demo`);
    assert.equal(await page.locator('.entry-loading').count(), 0);
    assert.deepEqual(page.errors, [], route);
    await page.context().close();
  }
  // `/chat/`: the router reads it as the chat's route, the bootstrap as another path (the app
  // entry's); the app entry loads the chat's own path, once, not the same URL again.
  const page = await entryPage('chat/?chatTimeoutMs=1500');
  await byId(page, 'chat-question').waitFor();
  const url = new URL(page.url());
  assert.equal(url.pathname + url.search, '/chat?chatTimeoutMs=1500');
  assert.equal(page.requests.filter(isChatWasm).length, 1, 'the chat entry once');
  assert.equal(page.requests.filter(isAppWasm).length, 1, 'the app entry once');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('from the dashboard, the Docs chat loads its own document, by mouse and by keyboard, in the language chosen', async () => {
  for (const how of ['mouse', 'keyboard']) {
    const page = await entryPage('');
    await headerReady(page);
    if (how === 'keyboard') {
      await byId(page, 'lang-toggle').click();
      await page.waitForFunction(() => document.documentElement.lang === 'en');
    }
    await page.evaluate(() => { window.__marker = 1; });
    const before = page.requests.length;
    if (how === 'mouse') await byId(page, 'nav-chat').click();
    else {
      await byId(page, 'nav-chat').focus();
      await page.keyboard.press('Enter');
    }
    await loadsDocument(page, 'chat');
    const loaded = page.requests.slice(before);
    assert.equal(loaded.filter(isChatWasm).length, 1, `${how}: the chat entry`);
    assert.equal(loaded.filter(isDashboardWasm).length, 0, `${how}: no dashboard entry in the chat's document`);
    const lang = how === 'keyboard' ? 'en' : 'zh';
    assert.equal(await page.locator('html').getAttribute('lang'), lang, `${how}: the language chosen`);
    assert.equal(await byId(page, 'nav-chat').textContent(), lang === 'en' ? 'Docs chat' : '文档问答');
    // From `main`, Shift+Tab is back on the navigation, at the Docs chat's link.
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'nav-chat');
    // And back to the dashboard, by the same means.
    await page.evaluate(() => { window.__marker = 1; });
    if (how === 'mouse') await byId(page, 'nav-dashboard').click();
    else {
      await byId(page, 'nav-dashboard').focus();
      await page.keyboard.press('Enter');
    }
    await loadsDocument(page, 'dashboard');
    assert.equal(await page.locator('html').getAttribute('lang'), lang);
    assert.deepEqual(page.errors, [], how);
    await page.context().close();
  }
});

/** A first visit whose demo file `answer(route)` holds (it is called when the page asks for
 * it), with the page's timers on Playwright's clock when `clock`: after the first figure (from
 * the first view) the Docs chat's link is clicked and waits, busy, in the dashboard's document. */
async function chatClickWhileDemoHeld(answer, { clock = false } = {}) {
  const context = await newContext(browser);
  let held;
  const holding = new Promise((r) => { held = r; });
  await context.route(/\/demo\/demo-data\.json$/, (r) => { held(); return answer(r); });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // The clock flows in real time until fast-forwarded.
  if (clock) await page.clock.install();
  await page.goto(BASE_URL);
  await page.locator('[data-testid="metric-mention-rate"][data-value]').waitFor();
  await holding;
  await page.evaluate(() => { window.__marker = 1; });
  await byId(page, 'nav-chat').click();
  await page.locator('[data-testid="nav-chat"][aria-busy="true"]').waitFor();
  assert.equal(await page.evaluate(() => window.__marker), 1, 'the dashboard waits while the demo is seeded');
  assert.equal(new URL(page.url()).pathname, '/');
  return { context, page, errors };
}

test('a Docs chat click before the demo is stored waits for the seeding, so the chat finds the demo', async () => {
  // Found walking issue 39: the link loaded the chat at once and the page load aborted the
  // demo's seeding (one transaction), so the chat showed no project.
  let release;
  const gate = new Promise((r) => { release = r; });
  const { context, page, errors } = await chatClickWhileDemoHeld(async (r) => { await gate; await r.continue(); });
  release();
  await loadsDocument(page, 'chat');
  await headerReady(page);
  assert.equal(await byId(page, 'project-select').inputValue(), 'proj_demo', 'the chat finds the demo, selected');
  assert.ok(await byId(page, 'run-select').inputValue(), 'and its newest run');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a demo file that never comes frees the waiting Docs chat link once the fetch gives up (fake clock)', async () => {
  // A stalled connection: the request is never answered.
  const { context, page, errors } = await chatClickWhileDemoHeld(() => {}, { clock: true });
  // The demo fetch's bound is 30 s: past it the seeding ends with an error and the link goes on.
  await page.clock.fastForward(31_000);
  await loadsDocument(page, 'chat');
  assert.deepEqual(errors, []);
  await context.close();
});

test('from the Docs chat every navigation link reaches its page, and each page\'s Docs chat link comes back', async () => {
  const page = await entryPage('chat');
  for (const name of ['dashboard', ...NAV]) {
    await page.evaluate(() => { window.__marker = 1; });
    await byId(page, `nav-${name}`).click();
    await loadsDocument(page, name);
    await page.evaluate(() => { window.__marker = 1; });
    await byId(page, 'nav-chat').click();
    await loadsDocument(page, 'chat');
  }
  assert.equal(page.requests.filter(isDashboardWasm).length, 1, 'the dashboard entry for the dashboard only');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a route of another document reached by the history loads that document', async () => {
  // The app entry's document at /settings; the Docs chat pushed by script (not a link).
  const page = await entryPage('settings');
  await byId(page, 'settings-import-file').waitFor();
  await page.evaluate(() => { window.__marker = 1; history.pushState(null, '', '/chat'); dispatchEvent(new PopStateEvent('popstate')); });
  await byId(page, 'chat-question').waitFor();
  assert.equal(await page.evaluate(() => window.__marker), undefined, 'the chat\'s own document');
  assert.equal(page.requests.filter(isChatWasm).length, 1);
  // And from the chat's document to a page of the app entry.
  await page.evaluate(() => { window.__marker = 1; history.pushState(null, '', '/settings'); dispatchEvent(new PopStateEvent('popstate')); });
  await byId(page, 'settings-import-file').waitFor();
  assert.equal(await page.evaluate(() => window.__marker), undefined, 'the app entry\'s document');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

/** Before the page's scripts: `__holdStorage()` makes every later `indexedDB.open` answer its
 * opener only at `__releaseStorage()` (the database opens; the app hears of it then), as a busy
 * machine's slow open would. */
const HOLD_LATER_STORAGE = () => {
  const open = IDBFactory.prototype.open;
  let gate = null;
  let release = () => {};
  window.__holdStorage = () => { gate = new Promise((r) => { release = r; }); };
  window.__releaseStorage = () => release();
  IDBFactory.prototype.open = function (...args) {
    const req = open.apply(this, args);
    const held = gate;
    if (!held) return req;
    let handler = null;
    Object.defineProperty(req, 'onsuccess', { configurable: true, get: () => handler, set: (h) => { handler = h; } });
    req.addEventListener('success', (e) => { held.then(() => handler?.call(req, e)); });
    return req;
  };
};

test('after a handover the page\'s heading stays on screen while the app entry opens its storage', async () => {
  const page = await entryPage('', { init: HOLD_LATER_STORAGE });
  await headerReady(page);
  await page.evaluate(() => {
    window.__holdStorage();
    // Every frame painted from here on: whether it had no heading in `main` (a mutation's
    // state confirmed at the next animation frame, so only what reaches the screen counts).
    window.__framesWithoutHeading = 0;
    window.__framesSeen = 0;
    const atFrame = () => requestAnimationFrame(() => {
      window.__framesSeen++;
      if (!document.querySelector('main h1')) window.__framesWithoutHeading++;
    });
    new MutationObserver(atFrame).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await byId(page, 'nav-settings').click();
  // The app entry has mounted and drawn its first frame (its `start_app` and first render,
  // after the dashboard entry's), and waits for its storage; two frames later it is painted.
  await page.waitForFunction(() => performance.getEntriesByName('geo:first-render').length === 2);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.equal(await page.locator('main h1').count(), 1, 'the heading while storage opens');
  assert.equal(await page.locator('main .entry-loading[aria-busy="true"] [role="status"]').count(), 1, 'still loading, and saying so');
  await page.evaluate(() => window.__releaseStorage());
  await byId(page, 'settings-import-file').waitFor();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const { without, seen } = await page.evaluate(() => ({ without: window.__framesWithoutHeading, seen: window.__framesSeen }));
  assert.ok(seen > 0, 'frames were watched');
  assert.equal(without, 0, `frames without a heading in main between the click and the page (of ${seen})`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
