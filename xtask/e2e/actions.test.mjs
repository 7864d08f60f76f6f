// The Actions page: on the demo project its data-values equal `geo-probe actions` on the same
// data (every lost prompt, search and page to be on, with the status against the previous
// run); evidence opens the probe drawer and Escape gives the focus back; after
// `geo-probe links` on an export (its answers' links served by a local server) and an import
// of its output, `links-health` and the Engines page's `engine-links` equal the CLI's counts;
// a project without runs shows its empty state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileBrowser, freshPage, open, byId, headerReady, until, cli, ROOT, CLI, num, keylessEnv } from './helpers.mjs';
import { demoSeeded } from './a11y-helpers.mjs';
import { exportWithPrompts, importEnvelope, engineRows } from './run-helpers.mjs';

const DEMO_FILE = path.join(ROOT, 'demo/demo-data.json');

const browser = fileBrowser({ cli: true });

/** Opens the Actions page and waits until it shows run `runId`. */
async function openActions(page, runId) {
  await byId(page, 'nav-actions').click();
  await page.locator(`[data-testid="actions"][data-state="ready"][data-run="${runId}"]`).waitFor();
}

/** Every row of `testid` over every page of the table's pager (`scope`), as its attributes. */
async function rows(page, testid, scope, attrs) {
  const out = [];
  for (;;) {
    for (const row of await byId(page, testid).all()) {
      const values = {};
      for (const a of attrs) values[a] = await row.getAttribute(`data-${a}`);
      out.push(values);
    }
    const next = page.locator(`[data-testid="pager"][data-pager="${scope}"] [data-testid="pager-next"]`);
    if ((await next.count()) === 0 || (await next.getAttribute('aria-disabled')) === 'true') return out;
    const before = await byId(page, testid).first().getAttribute(`data-${attrs[0]}`);
    await next.click();
    await until(async () => (await byId(page, testid).first().getAttribute(`data-${attrs[0]}`)) !== before, 5000, 'the next page');
  }
}

test('the demo project: every item equals geo-probe actions, evidence opens the drawer', async () => {
  const page = await freshPage(browser, '', { demo: true });
  await demoSeeded(page);
  const want = JSON.parse(cli(['actions', DEMO_FILE]));
  await openActions(page, want.runId);
  assert.equal(await byId(page, 'actions-against').getAttribute('data-value'), want.againstId);

  const lost = await rows(page, 'lost-prompt-row', 'lost', ['prompt', 'stake', 'brand-rate', 'behind', 'status']);
  assert.ok(want.lostPrompts.length > 0, 'the demo brand loses some prompts');
  assert.deepEqual(lost.map((r) => r.prompt), want.lostPrompts.map((l) => l.promptId));
  lost.forEach((r, i) => {
    const l = want.lostPrompts[i];
    assert.equal(num(r.stake), l.stake, r.prompt);
    assert.equal(num(r['brand-rate']), l.brandMentionRate, r.prompt);
    assert.equal(num(r.behind), l.behindShare, r.prompt);
    assert.equal(r.status, l.status ?? '', r.prompt);
  });
  for (const [i, l] of want.lostPrompts.entries()) {
    const competitors = byId(page, 'lost-prompt-row').nth(i).getByTestId('lost-competitor');
    assert.deepEqual(await competitors.evaluateAll((els) => els.map((e) => [e.dataset.target, Number(e.dataset.value)])),
      l.competitors.map((c) => [c.targetId, c.mentionRate]));
  }

  const queries = await rows(page, 'fanout-query-row', 'queries', ['query', 'probes', 'owned', 'status']);
  assert.deepEqual(queries.map((q) => q.query), want.queries.map((q) => q.query));
  queries.forEach((q, i) => {
    assert.equal(num(q.probes), want.queries[i].probeCount, q.query);
    assert.equal(q.owned, String(want.queries[i].owned), q.query);
    assert.equal(q.status, want.queries[i].status ?? '', q.query);
  });
  assert.ok(want.queries.some((q) => !q.owned), 'searches where the own site never appears');
  // Only the searches without an own page, on request.
  await byId(page, 'fanout-unowned').check();
  await until(async () => (await byId(page, 'fanout-query-row').evaluateAll((els) => els.every((e) => e.dataset.owned === 'false'))), 5000, 'only unowned searches');
  await byId(page, 'fanout-unowned').uncheck();

  const pages = await rows(page, 'page-to-be-on-row', 'pages', ['url', 'probes', 'status']);
  assert.deepEqual(pages.map((p) => p.url), want.pages.map((p) => p.url));
  pages.forEach((p, i) => assert.equal(num(p.probes), want.pages[i].probeCount, p.url));
  assert.ok(want.pages.length > 0, 'pages to be on');
  assert.equal(await byId(page, 'links-health').count(), 0, 'no link check yet');

  // Evidence: the first lost prompt's first answer opens in the drawer; Escape closes it and
  // the focus comes back to the button.
  const evidence = byId(page, 'lost-prompt-row').first().getByTestId('probe-link').first();
  const probeId = await evidence.getAttribute('data-open-probe');
  assert.equal(probeId, want.lostPrompts[0].probeIds[0]);
  await evidence.focus();
  await page.keyboard.press('Enter');
  await byId(page, 'probe-drawer').waitFor();
  await page.keyboard.press('Escape');
  await byId(page, 'probe-drawer').waitFor({ state: 'detached' });
  await until(async () => page.evaluate(() => document.activeElement?.dataset?.openProbe), 5000, 'focus back')
    .then((id) => assert.equal(id, probeId));
  assert.deepEqual(page.errors, []);
});

test('wrong facts: the demo ERNIE run\'s contradicted facts and the pages behind them equal geo-probe actions; the Engines page shows the brand\'s flagged rate of geo-probe engines', async () => {
  const page = await freshPage(browser, '', { demo: true });
  await demoSeeded(page);
  const demo = JSON.parse(readFileSync(DEMO_FILE, 'utf8'));
  const ernie = demo.runs.find((r) => r.config.engine === 'ernie');
  const want = JSON.parse(cli(['actions', DEMO_FILE, '--run', ernie.id]));
  assert.ok(want.wrongFacts.length > 0, 'ERNIE contradicts the demo fact sheet');
  await until(async () => (await byId(page, 'run-select').locator(`option[value="${ernie.id}"]`).count()) > 0, 5000, 'the ERNIE run listed');
  await byId(page, 'run-select').selectOption(ernie.id);
  await openActions(page, ernie.id);
  const got = await byId(page, 'wrong-fact-row').evaluateAll((els) => els.map((e) => ({
    fact: e.dataset.fact, claims: Number(e.dataset.claims), probes: Number(e.dataset.probes),
    pages: [...e.querySelectorAll('[data-testid="wrong-fact-page"]')].map((p) => [p.dataset.url, Number(p.dataset.value)]),
  })));
  assert.deepEqual(got, want.wrongFacts.map((f) => ({
    fact: f.factId, claims: f.claimCount, probes: f.probeCount, pages: f.pages.slice(0, 5).map((p) => [p.url, p.claimCount]),
  })));
  // The Engines page: each engine's brand flagged rate is geo-probe engines'.
  for (const [e, row] of await engineRows(page, JSON.parse(cli(['engines', DEMO_FILE])))) {
    assert.equal(num(await row.getAttribute('data-brand-flagged-rate')), e.brandFlaggedRate ?? null, e.engine);
  }
  assert.deepEqual(page.errors, []);
});

/** `geo-probe ARGS` without blocking this process (the link server below answers from it),
 * with no engine key in its environment. */
function cliAsync(args) {
  return new Promise((resolve, reject) => {
    execFile(CLI, args, { env: keylessEnv(), maxBuffer: 64 << 20 }, (error, stdout, stderr) => (error ? reject(new Error(`geo-probe ${args.join(' ')}: ${stderr}`)) : resolve(stdout)));
  });
}

/** A local server for the answers' links: /ok 200, /gone 404, /wall 403, /moved 301 → /ok. */
async function linkServer() {
  const server = http.createServer((req, res) => {
    const routes = { '/ok': [200], '/gone': [404], '/wall': [403], '/moved': [301, { location: '/ok' }] };
    const [status, headers] = routes[req.url] ?? [404];
    res.writeHead(status, headers ?? {});
    res.end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

test('after geo-probe links and an import, the link health equals the CLI per engine', async () => {
  const server = await linkServer();
  try {
    // The demo export with the newest run's answers linking to the local server only (this
    // machine reaches no other site).
    const env = JSON.parse(readFileSync(DEMO_FILE, 'utf8'));
    const newest = env.runs.reduce((a, b) => (a.createdAt > b.createdAt ? a : b)).id;
    const links = ['/ok', '/gone', '/wall', '/moved'].map((p) => `${server.url}${p}`);
    const probes = env.probes.filter((p) => p.runId === newest && p.status === 'success');
    for (const p of probes) p.rawAnswer = p.rawAnswer.replace(/https?:\/\/[^\s)\]）》」>"']+/g, '');
    probes.slice(0, 4).forEach((p, i) => { p.rawAnswer += `\n\n参考：${links[i]}\n另见：${links[(i + 1) % 4]}`; });
    const dir = mkdtempSync(path.join(tmpdir(), 'geo-actions-'));
    const input = path.join(dir, 'in.json');
    const checked = path.join(dir, 'checked.json');
    writeFileSync(input, JSON.stringify(env));
    // The answers' links point at this machine, which `geo-probe links` refuses without --allow-private.
    await cliAsync(['links', input, '--out', checked, '--host-delay-ms', '0', '--timeout-secs', '10', '--allow-private']);
    const want = JSON.parse(cli(['actions', checked]));
    assert.deepEqual(want.links, { checked: 4, ok: 1, redirect: 1, notFound: 1, blocked: 1, error: 0 });

    const page = await freshPage(browser);
    await importEnvelope(page, JSON.parse(readFileSync(checked, 'utf8')));
    await headerReady(page);
    await openActions(page, want.runId);
    const health = byId(page, 'links-health');
    const attrs = { checked: 'checked', ok: 'ok', redirect: 'redirect', notFound: 'not-found', blocked: 'blocked', error: 'error' };
    for (const [key, attr] of Object.entries(attrs)) {
      assert.equal(num(await health.getAttribute(`data-${attr}`)), want.links[key], key);
    }
    const missing = await byId(page, 'not-found-link').evaluateAll((els) => els.map((e) => e.dataset.url));
    assert.deepEqual(missing, want.notFoundLinks.map((l) => l.url));

    await byId(page, 'nav-engines').click();
    const cell = page.locator('[data-testid="engines-page"][data-state="ready"] [data-testid="engine-links"]').first();
    await cell.waitFor();
    assert.equal(num(await cell.getAttribute('data-not-found')), 1);
    assert.equal(num(await cell.getAttribute('data-checked')), 4);
    assert.deepEqual(page.errors, []);
  } finally {
    server.close();
  }
});

test('a project without runs shows the empty state', async () => {
  const page = await freshPage(browser);
  await importEnvelope(page, exportWithPrompts([{ id: 'p01', text: '有哪些GEO服务商？' }]));
  await headerReady(page);
  await byId(page, 'nav-actions').click();
  await page.locator('[data-testid="actions"][data-state="ready"] [data-testid="empty-state"]').waitFor();
  assert.equal(await byId(page, 'lost-prompt-row').count(), 0);
  await open(page, 'actions');
  await page.locator('[data-testid="actions"][data-state="ready"] [data-testid="empty-state"]').waitFor();
  assert.deepEqual(page.errors, []);
});
