// Navigation, language toggle, SPA deep links and the CSP of the app shell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, freshPage, open, byId, BASE_URL, headerReady } from './helpers.mjs';

const NAV = ['dashboard', 'projects', 'run', 'runs', 'sources', 'lists', 'export', 'settings', 'chat'];
const browser = fileBrowser();

test('every nav link is present and routes without a reload, but the Docs chat\'s', async () => {
  const page = await freshPage(browser);
  await headerReady(page);
  // Nothing to choose yet: both selectors say so, and keep their place in the Tab order.
  assert.equal(await byId(page, 'project-select').getAttribute('aria-disabled'), 'true', 'no projects yet');
  assert.equal(await byId(page, 'run-select').getAttribute('aria-disabled'), 'true', 'no runs yet');
  assert.equal(await byId(page, 'project-select').inputValue(), '');
  await page.evaluate(() => { window.__marker = 1; });
  for (const name of NAV) {
    await byId(page, `nav-${name}`).click();
    await page.waitForFunction((n) => document.querySelector(`[data-testid="nav-${n}"]`)?.getAttribute('aria-current') === 'page', name);
    const path = new URL(page.url()).pathname;
    assert.equal(path, name === 'dashboard' ? '/' : `/${name}`);
    // From the dashboard entry the first other page is a handover (ADR 0025): the app entry
    // mounts its header before its storage is open and its page is drawn, so the heading is
    // waited for, not counted at once.
    await page.locator('main h1').first().waitFor();
    assert.ok(await page.locator('h1').count() >= 1, `${name} renders a heading`);
    // The Docs chat, a separate tool, is the one link that loads a document of its own (ADR 0025).
    const marker = name === 'chat' ? undefined : 1;
    assert.equal(await page.evaluate(() => window.__marker), marker, `${name}: the same document unless the chat`);
  }
  assert.deepEqual(page.errors, []);
});

test('Chinese by default, English after one click, remembered after reload', async () => {
  const page = await freshPage(browser);
  assert.equal(await page.locator('html').getAttribute('lang'), 'zh');
  assert.equal(await byId(page, 'lang-toggle').getAttribute('data-value'), 'zh');
  assert.equal(await byId(page, 'nav-projects').textContent(), '项目');
  await byId(page, 'lang-toggle').click();
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await byId(page, 'lang-toggle').getAttribute('data-value'), 'en');
  assert.equal(await byId(page, 'nav-projects').textContent(), 'Projects');
  assert.equal(await page.evaluate(() => localStorage.getItem('geo-probe.lang')), 'en');
  await page.reload();
  await byId(page, 'nav-projects').waitFor();
  assert.equal(await byId(page, 'nav-projects').textContent(), 'Projects');
  await byId(page, 'lang-toggle').click();
  await page.waitForFunction(() => document.documentElement.lang === 'zh');
  assert.equal(await byId(page, 'lang-toggle').getAttribute('data-value'), 'zh');
  assert.equal(await byId(page, 'nav-settings').textContent(), '设置');
});

test('deep links load through the SPA fallback; empty pages say what to do', async () => {
  const page = await freshPage(browser, 'projects');
  assert.equal(await byId(page, 'nav-projects').getAttribute('aria-current'), 'page');
  await byId(page, 'project-new').waitFor();
  for (const path of ['runs', 'sources', 'lists', 'run', 'runs/run_missing']) {
    await open(page, path);
    await byId(page, 'empty-state').first().waitFor();
  }
  const res = await page.request.get(new URL('missing-file.js', BASE_URL).href);
  assert.equal(res.status(), 404, 'a missing asset is a 404, not index.html');
  const wasm = await page.evaluate(() => performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'))?.name);
  assert.ok(wasm, 'the wasm module was fetched');
  const head = await page.request.get(wasm);
  assert.equal(head.headers()['content-type'], 'application/wasm');
  assert.deepEqual(page.errors, []);
});

test('the CSP meta tag allows no third-party scripts', async () => {
  const page = await freshPage(browser);
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  // Besides the site's own scripts, one inline script by its hash (404.html's preloads, ADR 0025).
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/]+=*';/);
  assert.match(csp, /object-src 'none'/);
  const external = await page.evaluate(() => [...document.scripts].map((s) => s.src).filter((s) => s && !s.startsWith(location.origin)));
  assert.deepEqual(external, []);
});
