// Guards of the browser runner and of storage (issue #5): the beforeunload prompt during a
// run, the 180 s request timeout under a fake clock, a full storage quota, and the API key
// staying out of every download.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileBrowser, freshPage, open, byId, dumpDb, until, BASE_URL } from './helpers.mjs';
import { startMock, exportWithPrompts, importEnvelope, saveSettings, progressOf } from './run-helpers.mjs';
import { startRunAll, sessionEnded, recordPosts, recordDialogs, bigEnvelope, pageWithRunInFlight } from './guards-helpers.mjs';

const browser = fileBrowser();

const TWO = [{ id: 'p01', text: '2026年国内有哪些靠谱的GEO服务商？' }, { id: 'p02', text: '推荐几家做生成式引擎优化的公司' }];
const QUOTA_ZH = '浏览器存储空间已满，未保存任何内容：请导出并删除旧批次后重试';
const QUOTA_EN = 'browser storage is full, nothing was saved: export and delete old runs, then try again';
const errorToasts = (page) => page.locator('[data-testid="toast"][data-kind="error"] > span').allTextContents();
const unexpected = (page) => page.errors.filter((e) => !/Failed to load resource/.test(e));

test('beforeunload: closing or reloading asks while a run is in flight, not after it is cancelled', async () => {
  const mock = await startMock(['--latency-ms', '60000']);
  try {
    const { page, dialogs } = await pageWithRunInFlight(browser, mock, TWO);

    await page.close({ runBeforeUnload: true });
    await until(() => dialogs.length === 1, 5000, 'a dialog on close');
    await page.evaluate(() => { setTimeout(() => location.reload(), 0); });
    await until(() => dialogs.length === 2, 5000, 'a dialog on reload');
    assert.deepEqual(dialogs, ['beforeunload', 'beforeunload']);
    assert.ok(!page.isClosed(), 'dismissing the prompt keeps the page');
    const p = await progressOf(page);
    assert.ok(p.running && p.done === 0, `the run goes on: ${JSON.stringify(p)}`);

    await byId(page, 'run-cancel').click();
    await sessionEnded(page);
    await until(async () => (await dumpDb(page)).stores.runs[0]?.status === 'cancelled', 5000, 'cancelled run stored');
    assert.deepEqual(unexpected(page), []);
    await page.close({ runBeforeUnload: true });
    await until(() => page.isClosed(), 5000, 'the page closes without asking');
    assert.deepEqual(dialogs, ['beforeunload', 'beforeunload'], 'no prompt once the run ended');
  } finally { mock.stop(); }
});

test('the Docs chat link opens a new tab while a run is in flight, pop-ups blocked or not, so the run goes on; after it, the same tab', async () => {
  const mock = await startMock(['--latency-ms', '60000']);
  try {
    const { page, dialogs } = await pageWithRunInFlight(browser, mock, TWO);
    const runPath = new URL(page.url()).pathname;
    // A browser that blocks windows opened by script: the link opens its tab itself.
    await page.evaluate(() => { window.open = () => null; });

    // The chat is another document (ADR 0025): loading it here would end the run.
    const [chat] = await Promise.all([page.context().waitForEvent('page'), byId(page, 'nav-chat').click()]);
    await chat.waitForURL(/\/chat$/);
    await byId(chat, 'chat-question').waitFor();
    assert.equal(await chat.evaluate(() => window.opener), null, 'the new tab has no opener');
    assert.equal(new URL(page.url()).pathname, runPath, 'the running page stays where it was');
    assert.deepEqual(dialogs, [], 'no leave-this-page prompt');
    const p = await progressOf(page);
    assert.ok(p.running, `the run goes on: ${JSON.stringify(p)}`);
    await chat.close();

    await byId(page, 'run-cancel').click();
    await sessionEnded(page);
    // With no run in flight the link loads the chat in this tab, as any link would.
    const pages = page.context().pages().length;
    await byId(page, 'nav-chat').click();
    await page.waitForURL(/\/chat$/);
    await byId(page, 'chat-question').waitFor();
    assert.equal(page.context().pages().length, pages, 'no new tab once the run ended');
    assert.deepEqual(dialogs, []);
  } finally { mock.stop(); }
});

test('a hanging request fails as a timeout after 180 s (fake clock), is retried, and the run finishes', async () => {
  const mock = await startMock(['--hang-secs', '900']);
  try {
    const page = await freshPage(browser);
    const HANG = '推荐 GEO 服务商 [mock:hang]';
    const HANG_ONCE = '推荐几家做生成式引擎优化的公司 [mock:hang,ok]';
    await importEnvelope(page, exportWithPrompts([{ id: 'p01', text: TWO[0].text }, { id: 'p02', text: HANG }, { id: 'p03', text: HANG_ONCE }]));
    await saveSettings(page, { baseUrl: mock.url });
    // The app's timers (the fetch timeout, the engine's back-off) run on this clock; it
    // flows with real time until a test jumps it.
    await page.clock.install();
    await open(page, '');
    const posts = recordPosts(page, mock.url);
    const counts = () => [posts.count('[mock:hang]'), posts.count('[mock:hang,ok]')];
    await startRunAll(page, { concurrency: '3' });
    await until(async () => counts().join() === '1,1' && (await progressOf(page))?.done === 1, 10000, 'p01 answered, two requests hanging');

    // 170 s later (the clock also flows a little in real time): nothing gives up yet. A
    // timeout aborts its fetch at once, and the runner counts the request as answered within
    // the page's next task; the retry itself would wait for the back-off on this clock.
    await page.clock.fastForward(170_000);
    await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    assert.deepEqual(counts(), [1, 1], 'no timeout before 180 s');
    const held = await progressOf(page);
    assert.deepEqual([held.done, held.inFlight], [1, 2], 'both requests still in flight');

    // Past 180 s both requests time out and are retried after the error back-off; the
    // retry of p03 is answered.
    await page.clock.fastForward(11_000);
    await until(() => counts().join() === '2,2', 10000, 'both retried');
    await until(async () => (await progressOf(page))?.done === 2, 5000, 'p03 answered on its second attempt');
    // p02 hangs on every attempt: its second and third attempts time out too.
    await page.clock.fastForward(181_000);
    await until(() => counts()[0] === 3, 10000, 'third attempt of p02');
    await page.clock.fastForward(181_000);
    const p = await sessionEnded(page, 10000);
    assert.deepEqual([p.done, p.planned, p.failed], [3, 3, 1]);
    assert.equal(counts()[0], 3, 'at most three attempts');

    const db = await until(async () => {
      const d = await dumpDb(page);
      return d.stores.runs[0]?.status !== 'running' && d.stores.probes.length === 3 ? d : null;
    }, 5000, 'run stored');
    assert.equal(db.stores.runs[0].status, 'partial');
    const by = Object.fromEntries(db.stores.probes.map((x) => [x.promptId, x]));
    assert.deepEqual([by.p01.status, by.p01.attempts], ['success', 1]);
    assert.deepEqual([by.p03.status, by.p03.attempts], ['success', 2]);
    assert.deepEqual([by.p02.status, by.p02.attempts], ['error', 3]);
    assert.deepEqual(by.p02.error, { kind: 'timeout', message: 'no response within 180 s; retry in a moment' });
    assert.ok(by.p02.latencyMs >= 180_000, `latency ${by.p02.latencyMs}`);

    await open(page, `runs/${db.stores.runs[0].id}`);
    const row = page.locator('[data-testid="probe-row"][data-status="error"]');
    await until(async () => (await row.count()) === 1, 5000, 'one error row');
    assert.deepEqual(unexpected(page), []);
  } finally { mock.stop(); }
});

test('a full storage quota: an import and a run start fail with a localised message and write nothing', async () => {
  const page = await freshPage(browser);
  // Chromium caches an origin's remaining space from its first IndexedDB write and asks
  // the quota again only for a write larger than that: set the quota before any write.
  const origin = new URL(BASE_URL).origin;
  const cdp = await page.context().newCDPSession(page);
  const quota = (quotaSize) => cdp.send('Storage.overrideQuotaForOrigin', quotaSize === undefined ? { origin } : { origin, quotaSize });
  await quota(1024 * 1024);
  await importEnvelope(page, exportWithPrompts(TWO));
  await saveSettings(page, { baseUrl: 'http://127.0.0.1:9' });
  const before = await dumpDb(page);
  const big = bigEnvelope();
  const importBig = async () => {
    await open(page, 'settings');
    await byId(page, 'settings-import-file').setInputFiles({
      name: 'big.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(big)),
    });
  };
  try {
    // Now the origin is full: the import (one transaction of 301 records, larger than
    // the space cached above, so the quota is asked again) is refused whole.
    await quota(1);
    await importBig();
    const result = page.locator('[data-testid="import-result"][data-status="error"]');
    await result.waitFor();
    assert.equal(await result.textContent(), QUOTA_ZH);
    assert.deepEqual(await errorToasts(page), [QUOTA_ZH]);
    assert.deepEqual(await dumpDb(page), before, 'no record of the import was written');

    // A run stores its run record first: refused the same way, no session, nothing stored.
    await page.locator('[data-testid="toast"][data-kind="error"] button').click();
    await until(async () => (await errorToasts(page)).length === 0, 5000, 'toast dismissed');
    await startRunAll(page);
    await until(async () => (await errorToasts(page)).length === 1, 5000, 'an error toast on start');
    assert.deepEqual(await errorToasts(page), [QUOTA_ZH]);
    assert.equal(await progressOf(page), null, 'no session started');
    assert.deepEqual(await dumpDb(page), before, 'no run was written');

    // The same refusal in the English interface.
    await byId(page, 'lang-toggle').click();
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await importBig();
    await result.waitFor();
    assert.equal(await result.textContent(), QUOTA_EN);
    assert.deepEqual(await dumpDb(page), before);
  } finally {
    await quota(undefined);
  }
  // With the quota back, the same file imports whole: the failure was the quota.
  await importBig();
  await page.locator('[data-testid="import-result"][data-status="ok"]').waitFor();
  const afterDb = await dumpDb(page);
  assert.equal(afterDb.stores.prompts.length, before.stores.prompts.length + big.prompts.length);
  assert.deepEqual(unexpected(page), []);
});

test('a stored key appears in no download and no IndexedDB store', async () => {
  const KEY = 'sk-e2e-guard-5f3a9c1d7e2b';
  const mock = await startMock(['--require-key', KEY]);
  try {
    const page = await freshPage(browser);
    await importEnvelope(page, exportWithPrompts(TWO));
    await open(page, 'settings');
    await byId(page, 'settings-api-key').fill(KEY);
    await byId(page, 'settings-key-storage').selectOption('local');
    await byId(page, 'settings-base-url').fill(mock.url);
    await byId(page, 'settings-save').click();
    await until(async () => (await page.evaluate(() => localStorage.getItem('geo-probe.apiKey'))) === KEY, 5000, 'key remembered');
    const dialogs = recordDialogs(page);

    await startRunAll(page, { repeats: '2' });
    const p = await until(async () => {
      const x = await progressOf(page);
      return x && !x.running && x.done === x.planned ? x : null;
    }, 30000, 'run finished');
    assert.equal(p.failed, 0, 'the mock accepted the key on every request');
    const runId = (await until(async () => {
      const d = await dumpDb(page);
      return d.stores.runs[0]?.status === 'completed' ? d : null;
    }, 5000, 'run stored')).stores.runs[0].id;

    await byId(page, 'nav-export').click();
    await until(async () => !(await byId(page, 'export-run-json').isDisabled()), 5000, 'run exports enabled');
    const files = {};
    for (const id of ['export-full-json', 'export-run-json', 'export-probes-csv', 'export-sources-csv', 'export-markdown']) {
      const [dl] = await Promise.all([page.waitForEvent('download'), byId(page, id).click()]);
      files[id] = readFileSync(await dl.path(), 'utf8');
    }
    // Each file holds the run (so a leak would show), and none holds the key.
    for (const id of ['export-full-json', 'export-run-json', 'export-probes-csv']) assert.ok(files[id].includes(runId), `${id} holds the run`);
    assert.ok(files['export-sources-csv'].split('\n').length > 2, 'sources CSV has rows');
    assert.match(files['export-markdown'], /^#/);
    for (const [id, text] of Object.entries(files)) assert.ok(!text.includes(KEY), `the key is in ${id}`);
    assert.ok(!JSON.stringify(await dumpDb(page)).includes(KEY), 'the key is in no IndexedDB store');

    assert.deepEqual(unexpected(page), []);
    // The run finished: leaving the page asks nothing.
    await page.close({ runBeforeUnload: true });
    await until(() => page.isClosed(), 5000, 'closed without asking');
    assert.deepEqual(dialogs, []);
  } finally { mock.stop(); }
});
