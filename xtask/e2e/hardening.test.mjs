// Security review II in the browser (docs/security.md, "Hardening II"): a run session
// redacts like the CLI (a local server echoes the key into a 200 answer and the base URL's
// `?token=` into a 500 body: neither reaches IndexedDB or an export), no key follows a
// redirect (a 302 to a second local server that logs every request it gets), a crafted
// import cannot put stored data out of step (the web's own export then passes
// `geo-probe validate` and its figures equal `geo-probe metrics`), and keys are kept for the
// session only by default, with the settings page saying which origin holds them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileBrowser, freshPage, open, byId, dumpDb, until, cli, CLI, BASE_URL } from './helpers.mjs';
import { startMock, exportWithPrompts, importEnvelope, saveSettings, progressOf, startRun } from './run-helpers.mjs';

const FIXTURES = process.env.FIXTURES_DIR ?? path.resolve('fixtures');
const PROJECT = 'proj_yuangouchang';
const KEY = 'sk-echo-key-7f3a9c2e51';
const TOKEN = 'tok-echo-4b8d1f';

const browser = fileBrowser({ cli: true });
let dir;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'geo-hardening-'));
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** An HTTP server on 127.0.0.1 calling `handle(req, body, res)` for every request after
 * answering CORS preflights; `log` holds every request it got (method, url, headers). */
async function serve(handle) {
  const log = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      log.push({ method: req.method, url: req.url, headers: req.headers });
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('access-control-expose-headers', '*');
      if (req.method === 'OPTIONS') {
        res.setHeader('access-control-allow-methods', 'POST');
        res.setHeader('access-control-allow-headers', req.headers['access-control-request-headers'] ?? '*');
        res.writeHead(204).end();
        return;
      }
      handle(req, body, res);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, log, close: () => server.close() };
}

const json = (res, status, value) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};

async function finished(page) {
  return until(async () => {
    const p = await progressOf(page);
    return p && !p.running && p.done === p.planned ? p : null;
  }, 60000, 'run finished');
}

async function downloadFullExport(page) {
  await open(page, 'export');
  await byId(page, 'export-full-json').waitFor();
  const [dl] = await Promise.all([page.waitForEvent('download'), byId(page, 'export-full-json').click()]);
  return readFileSync(await dl.path(), 'utf8');
}

test('a run session redacts the key and the base URL token from every record and export', async () => {
  const echo = await serve((req, body, res) => {
    const prompt = JSON.stringify(JSON.parse(body).messages ?? '');
    const key = req.headers['x-api-key'] ?? '';
    const token = new URL(req.url, 'http://x').searchParams.get('token') ?? '';
    if (prompt.includes('ECHO-KEY')) {
      json(res, 200, {
        id: 'msg_echo', type: 'message', role: 'assistant', model: 'deepseek-v4-flash', stop_reason: 'end_turn',
        content: [{ type: 'text', text: `元构场 is fine. Your key is ${key} and your token is ${token}. Answer format: json.` }],
        usage: { input_tokens: 1, output_tokens: 1 },
      });
    } else {
      json(res, 500, { type: 'error', error: { type: 'api_error', message: `proxy failed for token=${token} key ${key}` } });
    }
  });
  try {
    const page = await freshPage(browser);
    await importEnvelope(page, exportWithPrompts([{ id: 'p01', text: 'ECHO-KEY 哪些GEO服务商靠谱？' }, { id: 'p02', text: 'ECHO-TOKEN 推荐几家公司' }]));
    // An ordinary `alt=json` beside the token: it must stay a word, not become a secret.
    await saveSettings(page, { baseUrl: `${echo.url}/?alt=json&token=${TOKEN}`, key: KEY });
    await startRun(page, { repeats: '1', concurrency: '1' });
    await finished(page);
    assert.ok(echo.log.some((r) => r.headers['x-api-key'] === KEY), 'the key was sent to the echo server');
    const db = await until(async () => {
      const d = await dumpDb(page);
      return d.stores.runs.length && d.stores.runs.every((r) => r.status !== 'running') && d.stores.probes.length === 2 ? d : null;
    }, 10000, 'both probes and the run stored');
    const stored = JSON.stringify(db);
    assert.ok(!stored.includes(KEY), 'the key is in no IndexedDB store');
    assert.ok(!stored.includes(TOKEN), 'the token is in no IndexedDB store');
    const ok = db.stores.probes.find((p) => p.status === 'success');
    assert.match(ok.rawAnswer, /Your key is \[redacted\] and your token is \[redacted\]/);
    const failed = db.stores.probes.find((p) => p.status === 'error');
    assert.match(failed.error.message, /token=\[redacted\] key \[redacted\]/);
    const exported = await downloadFullExport(page);
    assert.ok(!exported.includes(KEY) && !exported.includes(TOKEN), 'the export holds no key and no token');
    assert.ok(exported.includes('Answer format: json.'), 'an ordinary query value (alt=json) is not a secret: the word stays');
    // The echo server's 500s are logged by the browser itself; nothing else may be.
    assert.deepEqual(page.errors.filter((e) => !/Failed to load resource/.test(e)), []);
  } finally {
    echo.close();
  }
});

test('no key follows a redirect: the second server hears nothing and the probe says why', async () => {
  const logger = await serve((req, body, res) => json(res, 200, { ok: true }));
  const redirector = await serve((req, body, res) => {
    res.writeHead(302, { location: `${logger.url}/anthropic/v1/messages?token=${TOKEN}` });
    res.end();
  });
  try {
    const page = await freshPage(browser);
    await importEnvelope(page, exportWithPrompts([{ id: 'p01', text: '哪些GEO服务商靠谱？' }]));
    await saveSettings(page, { baseUrl: redirector.url, key: KEY });
    await startRun(page, { repeats: '1', concurrency: '1' });
    await finished(page);
    assert.ok(redirector.log.some((r) => r.method === 'POST'), 'the request reached the first server');
    assert.deepEqual(logger.log, [], 'the second server got no request at all');
    const db = await dumpDb(page);
    const probe = db.stores.probes[0];
    assert.equal(probe.status, 'error');
    assert.equal(probe.error.kind, 'http');
    assert.equal(probe.attempts, 1, 'a redirect is not retried');
    assert.match(probe.error.message, /redirected the request/);
    assert.deepEqual(page.errors, []);
  } finally {
    logger.close();
    redirector.close();
  }
});

test('the browser reads no reply past 10 MiB', async () => {
  const endless = await serve((req, body, res) => {
    // Chunked, with no length announced: the reader itself must stop.
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    const more = () => {
      while (sent < 11 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return res.once('drain', more);
      }
      res.end();
    };
    res.on('error', () => {});
    more();
  });
  try {
    const page = await freshPage(browser);
    await importEnvelope(page, exportWithPrompts([{ id: 'p01', text: '哪些GEO服务商靠谱？' }]));
    await saveSettings(page, { baseUrl: endless.url });
    await startRun(page, { repeats: '1', concurrency: '1' });
    await finished(page);
    const probe = (await dumpDb(page)).stores.probes[0];
    assert.equal(probe.status, 'error');
    assert.equal(probe.error.kind, 'http');
    assert.equal(probe.attempts, 1, 'not retried');
    assert.match(probe.error.message, /longer than 10 MiB/);
  } finally {
    endless.close();
  }
});

/** `geo-probe ARGS` → { status, stdout, stderr }, without any engine key. */
function cliRaw(args) {
  const env = { ...process.env };
  for (const e of ['DEEPSEEK', 'ANTHROPIC', 'OPENAI', 'GEMINI', 'PERPLEXITY']) delete env[`${e}_API_KEY`];
  return spawnSync(CLI, args, { encoding: 'utf8', env, maxBuffer: 64 << 20 });
}

async function importText(page, text) {
  await open(page, 'settings');
  await byId(page, 'settings-import-file').setInputFiles({ name: 'crafted.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  await page.locator('[data-testid="import-result"]:not([data-status="pending"])').waitFor();
  return { status: await byId(page, 'import-result').getAttribute('data-status'), text: await byId(page, 'import-result').textContent() };
}

const num = (s) => (s === '' || s === null ? null : Number(s));
const CARDS = {
  'metric-mention-rate': 'mentionRate', 'metric-first-mention-rate': 'firstMentionRate',
  'metric-owned-visibility': 'ownedVisibility', 'metric-success-count': 'successCount',
};

test('a crafted import cannot desynchronise stored data: the export validates and equals geo-probe metrics', async () => {
  const mock = await startMock();
  try {
    const first = path.join(dir, 'one.json');
    cli(['run', path.join(FIXTURES, 'project.json'), '--project', PROJECT, '--prompts', 'p01,p03', '--repeats', '2',
      '--base-url', mock.url, '--timeout-secs', '10', '--out', first]);
    const original = JSON.parse(readFileSync(first, 'utf8'));
    const run = original.runs[0];
    const page = await freshPage(browser);
    assert.equal((await importText(page, JSON.stringify(original))).status, 'ok');

    // 1. The run again with other aliases for the brand and only one of its probes: the
    // stored probes it leaves out are analysed again with the new aliases.
    const renamed = structuredClone(original);
    renamed.runs[0].aliasSnapshot = renamed.runs[0].aliasSnapshot.map((t) => (t.kind === 'brand' ? { ...t, aliases: ['一个从未被提到的新名字'] } : t));
    renamed.probes = renamed.probes.slice(0, 1);
    assert.equal((await importText(page, JSON.stringify(renamed))).status, 'ok');

    // 2. The same run id under another project: refused.
    const moved = structuredClone(original);
    moved.projects[0] = { ...moved.projects[0], id: 'proj_elsewhere', name: 'elsewhere' };
    moved.prompts = moved.prompts.map((p) => ({ ...p, id: `${p.id}_x`, projectId: 'proj_elsewhere' }));
    moved.runs[0].projectId = 'proj_elsewhere';
    moved.probes = [];
    const refusedRun = await importText(page, JSON.stringify(moved));
    assert.equal(refusedRun.status, 'error', refusedRun.text);
    assert.match(refusedRun.text, /never moves/);

    // 3. A stored probe's id in another run: refused, inside the write's transaction.
    const stolen = structuredClone(original);
    stolen.runs[0] = { ...stolen.runs[0], id: 'run_other', createdAt: '2027-01-01T00:00:00.000Z' };
    stolen.probes = [{ ...original.probes[0], runId: 'run_other' }];
    const refusedProbe = await importText(page, JSON.stringify(stolen));
    assert.equal(refusedProbe.status, 'error', refusedProbe.text);
    assert.match(refusedProbe.text, /never moves/);

    // The web's own export passes `geo-probe validate`, and its figures are geo-probe's.
    const file = path.join(dir, 'web.json');
    writeFileSync(file, await downloadFullExport(page));
    const valid = cliRaw(['validate', file]);
    assert.equal(valid.status, 0, `geo-probe validate: ${valid.stderr}`);
    const [m] = JSON.parse(cli(['metrics', file, '--run', run.id]));
    assert.equal(m.mentionRate, 0, 'the new aliases are never mentioned');
    await open(page, '');
    await until(async () => (await byId(page, 'project-select').locator(`option[value="${PROJECT}"]`).count()) > 0, 5000, 'project');
    await byId(page, 'project-select').selectOption(PROJECT);
    await until(async () => (await byId(page, 'run-select').locator(`option[value="${run.id}"]`).count()) > 0, 5000, 'run');
    await byId(page, 'run-select').selectOption(run.id);
    await page.locator(`[data-testid="dashboard"][data-state="ready"][data-run="${run.id}"]`).waitFor();
    for (const [id, field] of Object.entries(CARDS)) {
      const v = num(await byId(page, id).getAttribute('data-value'));
      assert.equal(v, m[field] ?? null, `${id} equals geo-probe metrics ${field}`);
    }
    assert.deepEqual(page.errors, []);
  } finally {
    mock.stop();
  }
});

test('keys are kept for the session only by default, and the page says which origin holds them', async () => {
  const page = await freshPage(browser, 'settings');
  assert.equal(await byId(page, 'settings-key-storage').inputValue(), 'session');
  const note = byId(page, 'settings-key-origin');
  assert.equal(await note.getAttribute('data-origin'), new URL(BASE_URL).origin);
  assert.equal(await note.getAttribute('data-shared'), 'loopback', 'served on this machine, where other local pages may share the origin');
  await byId(page, 'settings-api-key').fill(KEY);
  await byId(page, 'settings-save').click();
  await page.locator('[data-testid="toast"][data-kind="ok"]').first().waitFor();
  const where = await page.evaluate(() => ({
    local: localStorage.getItem('geo-probe.apiKey'), session: sessionStorage.getItem('geo-probe.apiKey'),
  }));
  assert.deepEqual(where, { local: null, session: KEY });
  assert.deepEqual(page.errors, []);
});
