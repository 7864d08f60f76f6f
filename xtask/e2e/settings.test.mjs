// Settings: the key lives in localStorage or sessionStorage and never in IndexedDB; the
// base URL is an IndexedDB setting; "clear all data" asks first and empties everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, freshPage, open, byId, dumpDb, until, newContext, BASE_URL } from './helpers.mjs';

const KEY = 'sk-test-0123456789abcdef';
const browser = fileBrowser();

const storages = (page) => page.evaluate(() => ({
  local: localStorage.getItem('geo-probe.apiKey'),
  session: sessionStorage.getItem('geo-probe.apiKey'),
}));

test('the key goes to localStorage or sessionStorage, never IndexedDB', async () => {
  const page = await freshPage(browser, 'settings');
  await byId(page, 'settings-api-key').fill(KEY);
  await byId(page, 'settings-key-storage').selectOption('local');
  await byId(page, 'settings-base-url').fill('http://127.0.0.1:9/proxy/');
  await byId(page, 'settings-save').click();
  await until(async () => (await storages(page)).local === KEY, 5000, 'key in localStorage');
  assert.equal((await storages(page)).session, null);
  const db = await until(async () => {
    const d = await dumpDb(page);
    return d.stores.settings.length ? d : null;
  }, 5000, 'base URL setting');
  assert.deepEqual(db.stores.settings, [{ key: 'baseUrl', value: 'http://127.0.0.1:9/proxy' }]);
  assert.ok(!JSON.stringify(db).includes(KEY), 'the key is in no IndexedDB store');

  await byId(page, 'settings-key-storage').selectOption('session');
  await byId(page, 'settings-save').click();
  await until(async () => (await storages(page)).session === KEY, 5000, 'key in sessionStorage');
  assert.equal((await storages(page)).local, null, 'moved out of localStorage');
  assert.ok(!JSON.stringify(await dumpDb(page)).includes(KEY));

  await page.reload();
  await byId(page, 'settings-api-key').waitFor();
  assert.equal(await byId(page, 'settings-key-storage').inputValue(), 'session');
  assert.equal(await byId(page, 'settings-api-key').inputValue(), KEY);
  await until(async () => (await byId(page, 'settings-base-url').inputValue()) === 'http://127.0.0.1:9/proxy', 5000, 'base URL shown');
  assert.deepEqual(page.errors, []);
});

test('a bad base URL is refused with a toast and nothing is saved', async () => {
  const page = await freshPage(browser, 'settings');
  await byId(page, 'settings-base-url').fill('ftp://nope');
  await byId(page, 'settings-save').click();
  await page.locator('[data-testid="toast"][data-kind="error"]').first().waitFor();
  assert.equal((await dumpDb(page)).stores.settings.length, 0);
});

test('clear all data asks for confirmation, then empties every store and the key', async () => {
  const page = await freshPage(browser, 'projects');
  await byId(page, 'project-new').click();
  await byId(page, 'brand-label').fill('品牌');
  await byId(page, 'project-save').click();
  await byId(page, 'prompt-bulk').fill('一\n二');
  await byId(page, 'prompt-bulk-add').click();
  await until(async () => (await byId(page, 'prompt-row').count()) === 2, 5000, 'prompts');

  await open(page, 'settings');
  await byId(page, 'settings-api-key').fill(KEY);
  await byId(page, 'settings-base-url').fill('https://proxy.example.com');
  await byId(page, 'settings-save').click();
  await until(async () => (await dumpDb(page)).stores.settings.length === 1, 5000, 'setting saved');

  await byId(page, 'data-clear').click();
  await byId(page, 'confirm-cancel').click();
  assert.equal((await dumpDb(page)).stores.projects.length, 1, 'cancel keeps data');

  await byId(page, 'data-clear').click();
  await byId(page, 'confirm-ok').click();
  const db = await until(async () => {
    const d = await dumpDb(page);
    return Object.values(d.stores).every((rows) => rows.length === 0) ? d : null;
  }, 5000, 'every store empty');
  for (const [name, rows] of Object.entries(db.stores)) assert.equal(rows.length, 0, `${name} is empty`);
  assert.deepEqual(await storages(page), { local: null, session: null });
  assert.equal(await byId(page, 'settings-api-key').inputValue(), '');
  await open(page, 'projects');
  await byId(page, 'empty-state').waitFor();
});

test('importing a full export merges by id; a bad file is reported', async () => {
  const page = await freshPage(browser, 'settings');
  const envelope = {
    format: 'geo-probe-export', version: 1, exportedAt: '2026-11-29T08:00:00.000Z', appVersion: '0.1.0',
    projects: [{ id: 'proj_x', name: '导入项目', brand: { id: 'brand', kind: 'brand', label: 'X', aliases: ['X'], domains: [] },
      competitors: [], isDemo: false, createdAt: '2026-11-29T08:00:00.000Z', updatedAt: '2026-11-29T08:00:00.000Z' }],
    prompts: [{ id: 'prm_1', projectId: 'proj_x', text: '问题', tags: ['generic'], createdAt: '2026-11-29T08:00:00.000Z', updatedAt: '2026-11-29T08:00:00.000Z' }],
    runs: [{ id: 'run_1', projectId: 'proj_x', status: 'partial', createdAt: '2026-11-29T09:00:00.000Z', appVersion: '0.1.0',
      schemaVersion: 1, config: { model: 'deepseek-v4-flash', repeats: 3, concurrency: 3, maxSearches: 5, maxTokens: 3000,
        temperature: 1, systemPromptVersion: 'neutral-zh-v1' }, aliasSnapshot: [], promptSnapshot: [], plannedProbeCount: 3 }],
    probes: [{ id: 'run_1__prm_1__0', runId: 'run_1', projectId: 'proj_x', promptId: 'prm_1', repeatIndex: 0, status: 'success',
      createdAt: '2026-11-29T09:00:01.000Z', rawAnswer: '答案', latencyMs: 1200 }],
  };
  await byId(page, 'settings-import-file').setInputFiles({ name: 'export.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(envelope)) });
  await page.locator('[data-testid="import-result"][data-status="ok"]').waitFor();
  // The outcome says what was merged, per kind (geo-core's merge report).
  assert.equal(await byId(page, 'import-result').textContent(),
    '已合并 1 个项目（新增 1，更新 0）、1 个提示词（新增 1，更新 0）、1 个批次（新增 1，更新 0）、1 个探测（新增 1，更新 0）');
  const db = await dumpDb(page);
  assert.equal(db.stores.projects[0].name, '导入项目');
  assert.equal(db.stores.prompts[0].text, '问题');
  assert.equal(db.stores.probes[0].latencyMs, 1200, 'numbers stay numbers');

  // The imported run shows in the runs list, the run selector and its detail page.
  await byId(page, 'nav-runs').click();
  const row = page.locator('[data-testid="run-row"][data-id="run_1"]');
  await row.waitFor();
  assert.equal(await row.getAttribute('data-status'), 'partial');
  assert.equal(await byId(page, 'run-select').inputValue(), 'run_1');
  await row.getByRole('link').click();
  assert.equal(await byId(page, 'run-status').getAttribute('data-value'), 'partial');
  assert.equal(new URL(page.url()).pathname, '/runs/run_1');
  await open(page, 'settings');

  // The same file again changes nothing, and says so.
  await byId(page, 'settings-import-file').setInputFiles({ name: 'export.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(envelope)) });
  await page.locator('[data-testid="import-result"][data-status="ok"]', { hasText: '未变 1）、1 个探测' }).waitFor();
  assert.match(await byId(page, 'import-result').textContent(), /^已合并 1 个项目（新增 0，更新 0，未变 1）/);

  await byId(page, 'settings-import-file').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"format":"other","version":1}') });
  await page.locator('[data-testid="import-result"][data-status="error"]').waitFor();
  assert.equal((await dumpDb(page)).stores.projects.length, 1);
});

test('a crafted file cannot plant analysis: derived fields are recomputed, an orphan probe is refused', async () => {
  const page = await freshPage(browser, 'settings', { demo: true });
  const before = await until(async () => {
    const db = await dumpDb(page);
    return db.stores.probes?.length > 0 ? db : null;
  }, 10000, 'the demo data');
  const honest = before.stores.probes.find((p) => p.sources?.length > 0 && p.answerLinks?.length >= 0);
  assert.ok(honest, 'a demo probe with sources');
  // The attack: the demo probe again, its analysis replaced by a javascript: source marked
  // owned, a javascript: answer link and a forged brand mention.
  const forged = structuredClone(honest);
  forged.sources = [...forged.sources, { ...forged.sources[0], id: 'src_forged', url: 'javascript:alert(1)', canonicalUrl: 'javascript:alert(1)', ownership: 'owned' }];
  forged.answerLinks = [...(forged.answerLinks ?? []), { url: 'javascript:alert(1)', canonicalUrl: 'javascript:alert(1)', domain: 'x', inSources: true }];
  forged.mentions = [{ targetId: 'forged', kind: 'brand', label: 'forged', count: 99, firstIndex: 0, order: 1 }];
  const envelope = (probes) => ({ format: 'geo-probe-export', version: 1, exportedAt: '2026-11-29T08:00:00.000Z', appVersion: '0.1.0', projects: [], prompts: [], runs: [], probes });
  await byId(page, 'settings-import-file').setInputFiles({ name: 'forged.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(envelope([forged]))) });
  await page.locator('[data-testid="import-result"][data-status="ok"]').waitFor();
  const stored = (await dumpDb(page)).stores.probes.find((p) => p.id === honest.id);
  assert.deepEqual([stored.sources, stored.mentions, stored.answerLinks], [honest.sources, honest.mentions, honest.answerLinks], 'recomputed from the raw answer');
  await byId(page, 'nav-sources').click();
  await page.locator('[data-testid="source-row"]').first().waitFor();
  assert.equal(await page.locator('a[href^="javascript:"]').count(), 0);

  // A probe whose run is neither in the file nor stored is refused, and nothing changes.
  await open(page, 'settings');
  const orphan = { ...structuredClone(honest), id: 'run_nowhere__p__0', runId: 'run_nowhere' };
  await byId(page, 'settings-import-file').setInputFiles({ name: 'orphan.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(envelope([orphan]))) });
  await page.locator('[data-testid="import-result"][data-status="error"]').waitFor();
  assert.match(await byId(page, 'import-result').textContent(), /probes\[0\]\.runId/);
  assert.equal((await dumpDb(page)).stores.probes.length, before.stores.probes.length);
  assert.deepEqual(page.errors.filter((e) => !/Failed to load resource/.test(e)), []);
});

/** A page of the app served as if from `origin` (a GitHub Pages user site, plain http on a
 * network host): every request to it is answered by the local server. */
async function pageAt(origin, path) {
  const context = await newContext(browser);
  await context.route(`${origin}/**`, async (route) => {
    const u = new URL(route.request().url());
    const response = await route.fetch({ url: new URL(u.pathname.slice(1) + u.search, BASE_URL).href });
    await route.fulfill({ response });
  });
  const page = await context.newPage();
  // Closing while a request is still being fetched must not turn the handler's late fulfil
  // into an unhandled rejection after the test has ended.
  page.closeContext = async () => {
    await context.unrouteAll({ behavior: 'ignoreErrors' });
    await context.close();
  };
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(`${origin}/${path}`);
  await byId(page, 'nav-projects').waitFor();
  return page;
}

test('the proxy token is warned about before it is saved where other content shares the origin', async () => {
  // security-3 L6 / issue 35 deliver 5: *.github.io and plain http:// away from this machine.
  for (const [origin, shared] of [['https://octo.github.io', 'github-pages'], ['http://geo.example', 'plain-http']]) {
    const page = await pageAt(origin, 'settings');
    const warning = byId(page, 'settings-proxy-origin-warning');
    await warning.waitFor();
    assert.equal(await warning.getAttribute('data-shared'), shared, origin);
    assert.equal(await byId(page, 'settings-key-origin').getAttribute('data-shared'), shared, origin);
    // Nothing typed or saved yet: the warning comes first, beside the token field it is about.
    assert.equal(await page.evaluate(() => sessionStorage.getItem('geo-probe.proxyToken') ?? localStorage.getItem('geo-probe.proxyToken')), null);
    const describedBy = await byId(page, 'settings-proxy-token').getAttribute('aria-describedby');
    assert.ok(describedBy.split(' ').includes('proxy-origin-warning'), describedBy);
    if (shared === 'github-pages') assert.match(await warning.textContent(), /octo/);
    assert.deepEqual(page.errors, []);
    await page.closeContext();
  }
  // Served on this machine: no warning; the origin note says who else may serve there.
  const page = await freshPage(browser, 'settings');
  await byId(page, 'settings-proxy-token').waitFor();
  assert.equal(await byId(page, 'settings-proxy-origin-warning').count(), 0);
  assert.equal(await byId(page, 'settings-key-origin').getAttribute('data-shared'), 'loopback');
});
