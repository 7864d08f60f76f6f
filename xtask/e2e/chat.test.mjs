// Docs chat: documents by picker, drop and samples; retrieve only; a streamed answer from the
// mock's /chat/completions (UTF-8 split across writes, keep-alive comments); stop, cut, timeout
// and HTTP errors end in their own states with the partial text kept; [S1] opens its source;
// the Markdown export; and the key never reaches storage, cookies, IndexedDB or the URL.
//
// The timeout test opens /chat?chatTimeoutMs=1500: the page reads that parameter once at load
// and it can only shorten the real 120 s limit (see crates/geo-web/src/pages/chat/mod.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileBrowser, freshPage, byId, dumpDb, until, withDeadline } from './helpers.mjs';

const KEY = 'sk-chat-test-9f8e7d6c5b4a';
const QUESTION = 'RAG 分块和检索有什么关系？';
const browser = fileBrowser();

/** Starts the mock with `flags`; resolves to { url, stop }. */
async function startMock(flags = []) {
  const bin = process.env.GEO_MOCK_BIN;
  assert.ok(bin, 'GEO_MOCK_BIN is set by cargo xtask e2e');
  const child = spawn(bin, ['--port', '0', ...flags], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`geo-mock exited with ${code}`)));
    lines.once('line', (line) => {
      const m = line.match(/listening on (http:\/\/\S+)/);
      m ? resolve(m[1]) : reject(new Error(`unexpected first line ${line}`));
    });
  });
  return { url, stop: () => child.kill() };
}

/** A chat page with the sample docs loaded and the base URL set (no key). */
async function chatWithMock(mockUrl, path = 'chat') {
  const page = await freshPage(browser, path);
  await byId(page, 'chat-load-sample').click();
  await until(async () => (await byId(page, 'chat-doc-row').count()) === 2, 5000, 'sample rows');
  await byId(page, 'chat-advanced').click();
  await byId(page, 'chat-base-url').fill(mockUrl);
  return page;
}

const answer = (page) => byId(page, 'chat-answer').last();
const stateOf = (page) => answer(page).getAttribute('data-state');

async function waitState(page, want, ms = 15000) {
  await until(async () => (await stateOf(page)) === want, ms, `answer state ${want}`);
}

test('sample docs, retrieve only with scores, no-match message and question limits', async () => {
  const page = await freshPage(browser, 'chat');
  await byId(page, 'chat-memory-note').waitFor();
  assert.equal(await byId(page, 'chat-test-timeout').count(), 0, 'the real 120 s limit');
  assert.match(await byId(page, 'chat-memory-note').innerText(), /刷新/);
  await byId(page, 'chat-load-sample').click();
  await until(async () => (await byId(page, 'chat-doc-row').count()) === 2, 5000, 'sample rows');
  for (const row of await byId(page, 'chat-doc-row').all()) {
    assert.match(await row.getAttribute('data-name'), /\.md$/);
    assert.ok(Number(await row.getAttribute('data-chunks')) >= 2, 'several chunks per sample');
  }

  await byId(page, 'chat-question').fill(QUESTION);
  await byId(page, 'chat-retrieve-only').click();
  await until(async () => (await byId(page, 'chat-hit').count()) > 0, 5000, 'hits');
  const hits = await byId(page, 'chat-hit').all();
  assert.ok(hits.length <= 8);
  assert.equal(await hits[0].getAttribute('data-source'), 'rag_zh.md');
  const scores = await Promise.all(hits.map(async (h) => Number(await h.getAttribute('data-score'))));
  assert.ok(scores.every((s) => s > 0), `scores ${scores}`);
  assert.deepEqual([...scores].sort((a, b) => b - a), scores, 'best first');
  await hits[0].locator('summary').click();
  assert.match(await hits[0].getByTestId('chat-hit-text').innerText(), /分块|检索/);

  await byId(page, 'chat-question').fill('quantum chromodynamics');
  await byId(page, 'chat-retrieve-only').click();
  await byId(page, 'chat-no-hits').waitFor();
  assert.equal(await byId(page, 'chat-hit').count(), 0);

  await byId(page, 'chat-question').fill('长'.repeat(4001));
  await byId(page, 'chat-send').click();
  assert.match(await byId(page, 'chat-error').innerText(), /4001.*4000/);
  await byId(page, 'chat-question').fill(QUESTION);
  await byId(page, 'chat-send').click();
  assert.match(await byId(page, 'chat-error').innerText(), /Key/);
  assert.equal(await byId(page, 'chat-answer').count(), 0, 'nothing sent without a key or proxy');
  assert.deepEqual(page.errors, []);
});

test('picker and drop load text files; non-text and oversized files are refused; rows can be removed', async () => {
  const page = await freshPage(browser, 'chat');
  await byId(page, 'chat-file-input').setInputFiles([
    { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('上下文压缩 context compression '.repeat(80)) },
    { name: 'b.md', mimeType: 'text/markdown', buffer: Buffer.from('# 标题\n检索 重叠') },
  ]);
  await until(async () => (await byId(page, 'chat-doc-row').count()) === 2, 5000, 'picked rows');
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['# 笔记\n分块 检索 重叠'], 'notes.md', { type: 'text/markdown' }));
    dt.items.add(new File([new Uint8Array([137, 80, 78, 71, 0, 0])], 'pic.png', { type: 'image/png' }));
    dt.items.add(new File(['x'.repeat(5 * 1024 * 1024 + 1)], 'big.txt', { type: 'text/plain' }));
    document.querySelector('[data-testid="chat-drop"]')
      .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await until(async () => (await byId(page, 'chat-doc-row').count()) === 3, 5000, 'dropped row');
  const errors = await byId(page, 'chat-file-errors').innerText();
  assert.match(errors, /pic\.png/);
  assert.match(errors, /big\.txt.*5 MB/);
  const names = await Promise.all((await byId(page, 'chat-doc-row').all()).map((r) => r.getAttribute('data-name')));
  assert.deepEqual(names, ['a.txt', 'b.md', 'notes.md']);

  // Document text is shown as text: markup in it never becomes elements or runs.
  await byId(page, 'chat-file-input').setInputFiles([{ name: 'x.md', mimeType: 'text/markdown',
    buffer: Buffer.from('注入测试 <img src=x onerror="window.__xss=1"><script>window.__xss=2</script>') }]);
  await until(async () => (await byId(page, 'chat-doc-row').count()) === 4, 5000, 'x.md row');
  await byId(page, 'chat-question').fill('注入测试');
  await byId(page, 'chat-retrieve-only').click();
  const hit = byId(page, 'chat-hit').first();
  await hit.locator('summary').click();
  assert.match(await hit.getByTestId('chat-hit-text').innerText(), /<img src=x/);
  assert.equal(await hit.locator('img, script').count(), 0);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  await page.locator('[data-testid="chat-doc-row"][data-name="x.md"] [data-testid="chat-doc-remove"]').click();
  await until(async () => (await byId(page, 'chat-doc-row').count()) === 3, 5000, 'x.md removed');
  await page.locator('[data-testid="chat-doc-row"][data-name="b.md"] [data-testid="chat-doc-remove"]').click();
  await until(async () => (await byId(page, 'chat-doc-row').count()) === 2, 5000, 'row removed');
  assert.deepEqual(page.errors, []);
});

test('a streamed answer from the mock: done, [S1] opens the source, history, export, key in memory only', async () => {
  const logFile = join(await mkdtemp(join(tmpdir(), 'geo-chat-')), 'mock.jsonl');
  const mock = await startMock(['--log', logFile]);
  try {
    const page = await chatWithMock(mock.url);
    await byId(page, 'chat-question').fill(QUESTION);
    await byId(page, 'chat-send').click();
    await waitState(page, 'done');
    const text = await answer(page).innerText();
    assert.ok(text.includes('GEO Probe 的分析全部在浏览器里完成'), `Chinese intact: ${text}`);
    assert.ok(text.includes('[S1]'));
    assert.ok(!text.includes('\uFFFD'), 'no replacement characters');
    assert.equal(await byId(page, 'chat-source-text').count(), 0, 'sources folded at first');
    await answer(page).getByTestId('chat-cite').first().click();
    const source = byId(page, 'chat-source-text').first();
    await source.waitFor();
    const shown = await source.innerText();
    assert.ok(shown.length > 50, 'the source text is shown');
    const firstSource = page.locator('[data-testid="chat-source"][data-n="1"]');
    assert.equal(await firstSource.getAttribute('data-source'), 'rag_zh.md');

    // A second turn with a key and the other model: the request carries the key and the
    // first (complete) turn as history; nothing stores the key.
    await byId(page, 'chat-key').fill(KEY);
    await byId(page, 'chat-model').selectOption('deepseek-v4-pro');
    await byId(page, 'chat-question').fill('上下文压缩');
    await byId(page, 'chat-send').click();
    await until(async () => (await byId(page, 'chat-answer').count()) === 2, 5000, 'second turn');
    await waitState(page, 'done');

    const logText = await readFile(logFile, 'utf8');
    const posts = logText.trim().split('\n').map((l) => JSON.parse(l))
      .filter((e) => e.method === 'POST' && e.path.endsWith('/chat/completions'));
    assert.equal(posts.length, 2);
    const auth = (e) => Object.entries(e.headers).find(([k]) => k.toLowerCase() === 'authorization')?.[1];
    assert.equal(auth(posts[0]), undefined, 'no key, no authorization header');
    // The header was sent; the mock's log keeps no credential (security review, finding 1).
    assert.equal(auth(posts[1]), '[redacted]');
    assert.ok(!logText.includes(KEY), 'the key is nowhere in the request log');
    const [first, second] = posts.map((e) => JSON.parse(e.body));
    assert.equal(first.model, 'deepseek-v4-flash');
    assert.equal(second.model, 'deepseek-v4-pro');
    assert.equal(first.stream, true);
    assert.deepEqual(second.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.equal(second.messages[1].content, QUESTION);
    assert.ok(second.messages[2].content.includes('[S1]'), 'the earlier answer as history');
    assert.ok(first.messages[1].content.includes('[S1] rag_zh.md'), 'numbered sources in the question');

    const download = page.waitForEvent('download');
    await byId(page, 'chat-export').click();
    const file = await download;
    assert.match(file.suggestedFilename(), /^docs-chat-\d+\.md$/);
    const md = await readFile(await file.path(), 'utf8');
    assert.ok(md.includes(QUESTION), 'the question');
    assert.ok(md.includes('上下文压缩'), 'the second question');
    assert.ok(md.includes('[S1] rag_zh.md'), 'the source labels');
    assert.ok(md.includes(shown.trim().slice(0, 40)), 'the snippet text');
    assert.ok(!md.includes(KEY), 'no key in the export');

    const stores = await page.evaluate(async () => ({
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
      cookie: document.cookie,
      url: location.href,
      dbs: (await indexedDB.databases()).map((d) => d.name),
    }));
    for (const [where, value] of Object.entries(stores)) {
      assert.ok(!JSON.stringify(value).includes(KEY), `no key in ${where}`);
    }
    for (const name of stores.dbs.filter((n) => n === 'geo-probe')) {
      assert.ok(!JSON.stringify(await dumpDb(page)).includes(KEY), `no key in IndexedDB ${name}`);
    }
    assert.deepEqual(page.errors, []);
  } finally {
    mock.stop();
  }
});

test('stop mid-stream keeps the partial text, labelled cancelled', async () => {
  const mock = await startMock(['--chat-delay-ms', '150']);
  try {
    const page = await chatWithMock(mock.url);
    await byId(page, 'chat-question').fill(`${QUESTION} [chat:slow]`);
    await byId(page, 'chat-send').click();
    await until(async () => (await answer(page).innerText()).length > 3, 15000, 'some streamed text');
    assert.equal(await stateOf(page), 'streaming');
    await byId(page, 'chat-stop').click();
    await waitState(page, 'cancelled');
    const partial = await answer(page).innerText();
    assert.ok(partial.length > 3, 'partial text kept');
    assert.ok(!partial.includes('最多 3 个并发'), 'the answer did not finish');
    assert.match(await byId(page, 'chat-answer-status').last().innerText(), /停止|stopped/);
    assert.equal(await byId(page, 'chat-send').isEnabled(), true, 'ready for the next question');

    // Leaving the page mid-stream stops the request; coming back starts empty, without errors.
    await byId(page, 'chat-question').fill(`上下文压缩 [chat:slow]`);
    const aborted = withDeadline(new Promise((resolve) => page.on('requestfailed', (r) => {
      if (r.url().startsWith(mock.url) && (r.postData() ?? '').includes('上下文压缩')) resolve(r.failure()?.errorText);
    })), 'the streamed request aborted');
    await byId(page, 'chat-send').click();
    await waitState(page, 'streaming');
    await byId(page, 'nav-projects').click();
    // The streamed request is aborted when the page goes.
    assert.match(await aborted, /ABORTED/);
    await byId(page, 'nav-chat').click();
    await byId(page, 'chat-load-sample').waitFor();
    assert.equal(await byId(page, 'chat-doc-row').count(), 0);
    assert.equal(await byId(page, 'chat-answer').count(), 0);
    assert.deepEqual(page.errors, []);
  } finally {
    mock.stop();
  }
});

test('a cut stream ends in error with the partial text; an HTTP 402 is explained', async () => {
  const mock = await startMock();
  try {
    const page = await chatWithMock(mock.url);
    await byId(page, 'chat-question').fill(`${QUESTION} [chat:cut]`);
    await byId(page, 'chat-send').click();
    await waitState(page, 'error');
    assert.equal(await answer(page).getAttribute('data-code'), 'network_error');
    assert.ok((await answer(page).innerText()).length > 0, 'partial text kept');
    assert.match(await byId(page, 'chat-answer-status').last().innerText(), /中断|connection/);

    await byId(page, 'chat-question').fill(`${QUESTION} [chat:error]`);
    await byId(page, 'chat-send').click();
    await until(async () => (await byId(page, 'chat-answer').count()) === 2, 5000, 'second turn');
    await waitState(page, 'error');
    assert.match(await byId(page, 'chat-answer-status').last().innerText(), /402/);
  } finally {
    mock.stop();
  }
});

test('the time limit aborts a slow stream as timeout', async () => {
  const mock = await startMock(['--chat-delay-ms', '400']);
  try {
    const page = await chatWithMock(mock.url, 'chat?chatTimeoutMs=1500');
    assert.match(await byId(page, 'chat-test-timeout').innerText(), /1500/);
    await byId(page, 'chat-question').fill(`${QUESTION} [chat:slow]`);
    const started = Date.now();
    await byId(page, 'chat-send').click();
    await waitState(page, 'timeout', 10000);
    assert.ok(Date.now() - started >= 1400, 'not before the limit');
    assert.match(await byId(page, 'chat-answer-status').last().innerText(), /超时|timed out/);
  } finally {
    mock.stop();
  }
});
