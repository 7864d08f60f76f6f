// The web app through `geo-probe proxy` (engines.md "The local proxy"): Settings turns the
// local proxy on with its address and token and shows the command that starts it; the run
// page offers the engines that refuse browser calls (Qwen, Doubao …) once it is on; DeepSeek
// and the four Chinese engines run the same Chinese prompts as `geo-probe run --engine
// deepseek,qwen,doubao,ernie,hunyuan` (issue 25's "done when") through the proxy in front of
// geo-mock, which answers only with the key (`--require-key`), so they succeed only when the
// proxy added it; the Engines page equals `geo-probe engines` on what the page stored; and no
// request the page made carried the key. Without the token the proxy refuses, and the probe
// says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileBrowser, freshPage, open, byId, dumpDb, until, cli, BASE_URL, num } from './helpers.mjs';
import { startMock, startProxy, exportWithPrompts, importEnvelope, storedRuns, envelopeOf, CN_PROMPTS, engineRows } from './run-helpers.mjs';

const KEY = 'sk-proxy-e2e-7f3a9c0d1e2b';
const PROMPTS = CN_PROMPTS;
const ENGINES = ['deepseek', 'qwen', 'doubao', 'ernie', 'hunyuan'];
const browser = fileBrowser({ cli: true });

const box = (page, e) => page.locator(`[data-testid="run-engine"][data-engine="${e}"]`);

/** Turns the local proxy on in Settings with `url` and `token`, and saves. */
async function useProxy(page, url, token) {
  await open(page, 'settings');
  const on = byId(page, 'settings-proxy');
  await on.waitFor();
  if (!(await on.isChecked())) await on.check();
  await byId(page, 'settings-proxy-url').fill(url);
  await byId(page, 'settings-proxy-token').fill(token);
  await byId(page, 'settings-save').click();
  await page.locator('[data-testid="toast"][data-kind="ok"]').first().waitFor();
}

/** Runs `body(page, proxy)` on a fresh page, with geo-mock (accepting [`KEY`] only, and
 * `flags`) behind geo-probe proxy for `engines`; stops both after. */
async function behindProxy(engines, flags, body) {
  const mock = await startMock(['--require-key', KEY, ...flags]);
  const proxy = await startProxy({ engines, base: mock.url, key: KEY, origin: new URL(BASE_URL).origin });
  try {
    await body(await freshPage(browser), proxy);
  } finally {
    proxy.stop();
    mock.stop();
  }
}

/** Asks the docs chat about the sample documents; the answer, once done. */
async function askTheSample(page) {
  await byId(page, 'nav-chat').click();
  await byId(page, 'chat-load-sample').click();
  await until(async () => (await byId(page, 'chat-doc-row').count()) === 2, 5000, 'sample rows');
  await byId(page, 'chat-question').fill('RAG 分块和检索有什么关系？');
  await byId(page, 'chat-send').click();
  const answer = byId(page, 'chat-answer').last();
  await until(async () => (await answer.getAttribute('data-state')) === 'done', 15000, 'the answer done');
  return answer;
}

test('DeepSeek and the Chinese engines run through geo-probe proxy with no key in any request of the page', async () => {
  await behindProxy(ENGINES, ['--latency-ms', '30'], async (page, proxy) => {
    const sent = [];
    page.on('request', (r) => sent.push({ url: r.url(), headers: r.headers(), body: r.postData() ?? '' }));
    await importEnvelope(page, exportWithPrompts(PROMPTS));

    // Without the proxy the run page offers Qwen but cannot start it, and says why.
    await byId(page, 'nav-run').click();
    await until(async () => (await byId(page, 'run-engine').count()) === 9, 5000, 'nine engine boxes');
    assert.match(await page.locator('[data-testid="run-engine-missing"][data-engine="qwen"]').textContent(), /geo-probe proxy/);
    if (await box(page, 'deepseek').isChecked()) await box(page, 'deepseek').uncheck();
    await box(page, 'qwen').check();
    await until(async () => await byId(page, 'run-start').isDisabled(), 5000, 'start disabled without the proxy');
    assert.match(await byId(page, 'run-start-reason').textContent(), /Qwen|通义/);
    assert.match(await byId(page, 'run-start-reason').textContent(), /geo-probe proxy/);

    // Settings: the command names the port and this page's origin when they differ from the defaults.
    await open(page, 'settings');
    assert.equal(await byId(page, 'settings-browser-qwen').getAttribute('data-value'), 'proxy');
    await byId(page, 'settings-proxy-url').fill('http://proxy.example.com:8788');
    await byId(page, 'settings-proxy').check();
    await byId(page, 'settings-save').click();
    await page.locator('[data-testid="toast"][data-kind="error"]').first().waitFor();
    await useProxy(page, proxy.url, proxy.token);
    const port = new URL(proxy.url).port;
    const origin = new URL(BASE_URL).origin;
    const expected = `geo-probe proxy --port ${port}${origin === 'http://127.0.0.1:8080' ? '' : ` --allow-origin ${origin}`}`;
    assert.equal(await byId(page, 'settings-proxy-command').getAttribute('data-value'), expected);
    // The saved token is kept like a key: in Web Storage, never in IndexedDB.
    const stored = await page.evaluate(() => sessionStorage.getItem('geo-probe.proxyToken'));
    assert.equal(stored, proxy.token);
    // Qwen's key test goes through the proxy: a search ran and sources came back.
    await byId(page, 'settings-test-key-qwen').click();
    const check = byId(page, 'settings-key-test-qwen');
    await check.waitFor();
    assert.equal(await byId(page, 'settings-key-verdict-qwen').getAttribute('data-verdict'), 'valid');
    assert.equal(await check.getAttribute('data-searched'), 'true');

    // The run page: the Chinese engines through the proxy, DeepSeek (no key, no base URL) too.
    await byId(page, 'nav-run').click();
    for (const e of ENGINES) {
      await until(async () => (await page.locator(`[data-testid="run-engine-proxy"][data-engine="${e}"]`).count()) === 1, 5000, `${e} through the proxy`);
      if (!(await box(page, e).isChecked())) await box(page, e).check();
    }
    await byId(page, 'run-repeats').fill('1');
    await until(async () => (await byId(page, 'run-estimate').getAttribute('data-engines')) === '5', 5000, 'estimate of five engines');
    await until(async () => !(await byId(page, 'run-start').isDisabled()), 5000, 'start enabled');
    await byId(page, 'run-start').click();
    const db = await storedRuns(page, ENGINES.length);
    assert.deepEqual(db.stores.runs.map((r) => r.config.engine).sort(), [...ENGINES].sort());
    for (const r of db.stores.runs) {
      const probes = db.stores.probes.filter((p) => p.runId === r.id);
      assert.equal(r.status, 'completed', r.config.engine);
      assert.equal(probes.length, PROMPTS.length, r.config.engine);
      assert.ok(probes.every((p) => p.status === 'success'), `${r.config.engine}: ${JSON.stringify(probes.map((p) => p.error))}`);
      if (r.config.engine === 'deepseek') continue; // DeepSeek returns no citation data
      assert.ok(probes.some((p) => p.sources.some((s) => s.cited === true)), `${r.config.engine}: cited sources`);
    }
    // The Engines page equals geo-probe engines on what the page stored.
    const dir = mkdtempSync(path.join(tmpdir(), 'geo-proxy-'));
    const file = path.join(dir, 'export.json');
    writeFileSync(file, JSON.stringify(envelopeOf(await dumpDb(page))));
    const want = JSON.parse(cli(['engines', file]));
    assert.deepEqual(want.engines.map((e) => e.engine), ENGINES);
    for (const [e, row] of await engineRows(page, want)) {
      assert.equal(num(await row.getAttribute('data-mention-rate')), e.mentionRate, `${e.engine} mention rate`);
      assert.equal(num(await row.getAttribute('data-owned-citation-rate')), e.ownedCitationRate, `${e.engine} owned citation rate`);
    }

    // No request of the page carried the key; every request to the proxy carried its token.
    assert.ok(!JSON.stringify(db).includes(KEY), 'the key in IndexedDB');
    const toProxy = sent.filter((r) => r.url.startsWith(proxy.url));
    assert.ok(toProxy.length >= ENGINES.length * PROMPTS.length, `requests through the proxy: ${toProxy.length}`);
    for (const r of sent) {
      assert.ok(!r.url.includes(KEY) && !r.body.includes(KEY) && !Object.values(r.headers).some((v) => v.includes(KEY)), `the key in ${r.url}`);
      for (const h of ['authorization', 'x-api-key', 'x-goog-api-key']) assert.ok(!(h in r.headers), `${h} sent to ${r.url}`);
    }
    for (const r of toProxy) assert.equal(r.headers['x-geo-probe-proxy-token'], proxy.token, r.url);
    assert.ok(!proxy.stderr().includes(KEY), 'the key in the proxy log');
    assert.deepEqual(page.errors.filter((e) => !/Failed to load resource/.test(e)), []);
  });
});

test('a wrong token: the proxy refuses and the probe says which token to paste', async () => {
  await behindProxy(['qwen'], [], async (page, proxy) => {
    await importEnvelope(page, exportWithPrompts([PROMPTS[0]]));
    await useProxy(page, proxy.url, 'not-the-token');
    await byId(page, 'settings-test-key-qwen').click();
    const verdict = byId(page, 'settings-key-verdict-qwen');
    await verdict.waitFor();
    assert.equal(await verdict.getAttribute('data-verdict'), 'invalid-key');
    assert.match(await verdict.textContent(), /geo-probe proxy/);
    assert.match(await verdict.textContent(), /token/);
    assert.ok(!(await verdict.textContent()).includes('not-the-token'), 'the token is never shown');
  });
});

test('the docs chat goes through geo-probe proxy when it is on: a streamed answer, no key in the page', async () => {
  // The mock answers the docs chat only with DeepSeek's key as Bearer (`--require-key`), so
  // the answer arrives only when the proxy added it.
  await behindProxy(['deepseek'], [], async (page, proxy) => {
    const sent = [];
    page.on('request', (r) => sent.push({ url: r.url(), headers: r.headers(), body: r.postData() ?? '' }));
    await useProxy(page, proxy.url, proxy.token);
    const answer = await askTheSample(page);
    assert.equal(await byId(page, 'chat-via-proxy').getAttribute('data-value'), proxy.url);
    assert.ok((await answer.innerText()).includes('[S1]'));
    const chats = sent.filter((r) => r.url === `${proxy.url}/deepseek/chat/completions`);
    assert.equal(chats.length, 1, JSON.stringify(sent.map((r) => r.url)));
    assert.equal(chats[0].headers['x-geo-probe-proxy-token'], proxy.token);
    for (const r of sent) {
      assert.ok(!('authorization' in r.headers), `authorization sent to ${r.url}`);
      assert.ok(!JSON.stringify(r).includes(KEY), `the key in ${r.url}`);
    }
    assert.ok(!proxy.stderr().includes(KEY), 'the key in the proxy log');
    assert.deepEqual(page.errors.filter((e) => !/Failed to load resource/.test(e)), []);
  });
});

test('an upstream that echoes the key behind geo-probe proxy leaves it nowhere: IndexedDB, the export, the docs-chat log', async () => {
  // security-3 M1 / issue 35: the page in proxy mode does not know the key, so only the proxy
  // can remove it. geo-mock echoes the request's auth header in a 400 error body (probes) and
  // in one SSE event written in two pieces inside the key (the docs chat).
  await behindProxy(['qwen', 'deepseek'], ['--fault', 'echo=400:1', '--chat', 'echo'], async (page, proxy) => {
    await importEnvelope(page, exportWithPrompts([PROMPTS[0]]));
    await useProxy(page, proxy.url, proxy.token);
    await byId(page, 'nav-run').click();
    await until(async () => (await page.locator('[data-testid="run-engine-proxy"][data-engine="qwen"]').count()) === 1, 5000, 'qwen through the proxy');
    for (const e of ['deepseek', 'qwen']) {
      if (!(await box(page, e).isChecked())) await box(page, e).check();
    }
    await byId(page, 'run-repeats').fill('1');
    await until(async () => !(await byId(page, 'run-start').isDisabled()), 5000, 'start enabled');
    await byId(page, 'run-start').click();
    const db = await until(async () => {
      const d = await dumpDb(page);
      return d.stores.runs.length === 2 && d.stores.runs.every((r) => r.status !== 'running') ? d : null;
    }, undefined, 'both runs ended');
    const errors = db.stores.probes.map((p) => p.error?.message ?? '');
    assert.equal(errors.length, 2);
    for (const m of errors) assert.match(m, /echo: .*\[redacted\]/, 'the echo reached the probe, without the key');
    assert.ok(!JSON.stringify(db).includes(KEY), 'the key in IndexedDB');

    await open(page, 'export');
    await byId(page, 'export-full-json').waitFor();
    const [dl] = await Promise.all([page.waitForEvent('download'), byId(page, 'export-full-json').click()]);
    const exported = readFileSync(await dl.path(), 'utf8');
    assert.ok(exported.includes('[redacted]') && !exported.includes(KEY), 'the key in the export');

    const answer = await askTheSample(page);
    assert.match(await answer.innerText(), /authorization=Bearer \[redacted\]/);
    const chatDl = page.waitForEvent('download');
    await byId(page, 'chat-export').click();
    const log = readFileSync(await (await chatDl).path(), 'utf8');
    assert.ok(log.includes('[redacted]') && !log.includes(KEY), 'the key in the docs-chat log');
    assert.ok(!proxy.stderr().includes(KEY), 'the key in the proxy log');
  });
});
