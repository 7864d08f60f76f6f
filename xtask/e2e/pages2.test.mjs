// Long tables and drill-downs: with a 150-probe run the run-detail probe table, the sources
// domain table, a domain's URL list and the per-probe lists come 50 rows a page, with
// previous / next buttons usable from the keyboard and "rows X–Y of N"; the page goes back
// to the first one when a filter changes; a 10-probe run shows every row and no pager.
// Every place that names a probe opens that probe's drawer: a domain's URL row, a per-probe
// list, a dashboard prompt row (run detail filtered by the prompt) and `?probe=ID`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, freshPage, open, byId, until } from './helpers.mjs';
import { bigExport, importText, selectRun, pager, pagerStatus, BIG_RUN, PREV_RUN } from './webpages-helpers.mjs';

const { env, composition: c } = bigExport({ prompts: 5, repeats: 30, prevRepeats: 2, domainPool: 120, seed: 7 });
const probeById = new Map(env.probes.map((p) => [p.id, p]));
let browser;
let page;

before(async () => {
  browser = await launch();
  page = await freshPage(browser, 'settings');
  await importText(page, JSON.stringify(env));
  await selectRun(page, BIG_RUN);
});
after(async () => { await browser?.close(); });

const firstIds = (testid, attr) => byId(page, testid).evaluateAll((els, a) => els.map((e) => e.getAttribute(a)), attr);

/** Presses Enter on `scope`'s next button from the keyboard. */
async function keyNext(scope) {
  await pager(page, scope).getByTestId('pager-next').focus();
  await page.keyboard.press('Enter');
}

test('long tables show 50 rows a page with keyboard-usable previous / next', async () => {
  await open(page, `runs/${BIG_RUN}`);
  await byId(page, 'probe-row').first().waitFor();
  assert.equal(await byId(page, 'probe-row').count(), 50);
  assert.deepEqual(await pagerStatus(page, 'probes'), { start: 1, end: 50, total: c.probes });
  const prev = pager(page, 'probes').getByTestId('pager-prev');
  const next = pager(page, 'probes').getByTestId('pager-next');
  assert.equal(await prev.getAttribute('aria-disabled'), 'true');
  assert.ok((await pager(page, 'probes').getAttribute('aria-label')).length > 0, 'the pager is labelled');
  const page1 = await firstIds('probe-row', 'data-id');
  await keyNext('probes');
  await until(async () => (await pagerStatus(page, 'probes')).start === 51, 5000, 'second page');
  const page2 = await firstIds('probe-row', 'data-id');
  assert.equal(page2.length, 50);
  assert.ok(page2.every((id) => !page1.includes(id)), 'the second page holds other probes');
  await page.keyboard.press('Enter');
  await until(async () => (await pagerStatus(page, 'probes')).end === c.probes, 5000, 'last page');
  assert.equal(await next.getAttribute('aria-disabled'), 'true');
  await page.keyboard.press('Enter');
  assert.deepEqual(await pagerStatus(page, 'probes'), { start: 101, end: 150, total: c.probes }, 'next on the last page stays');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'pager-next', 'focus stays on the button');
  await prev.click();
  await until(async () => (await pagerStatus(page, 'probes')).start === 51, 5000, 'back one page');
  // A filter change starts again at the first page.
  await byId(page, 'probe-filter-status').selectOption('success');
  const ok = env.probes.filter((p) => p.runId === BIG_RUN && p.status === 'success').length;
  await until(async () => { const s = await pagerStatus(page, 'probes'); return s.start === 1 && s.total === ok; }, 5000, 'filter resets the page');

  // A small run shows every row and no pager, as before.
  await open(page, `runs/${PREV_RUN}`);
  await byId(page, 'probe-row').first().waitFor();
  assert.equal(await byId(page, 'probe-row').count(), c.prevProbes);
  assert.equal(await byId(page, 'pager').count(), 0);

  await open(page, 'sources');
  await byId(page, 'source-row').first().waitFor();
  assert.equal(await byId(page, 'source-row').count(), 50);
  assert.deepEqual(await pagerStatus(page, 'domains'), { start: 1, end: 50, total: c.domains });
  const domains1 = await firstIds('source-row', 'data-domain');
  await keyNext('domains');
  await until(async () => (await pagerStatus(page, 'domains')).start === 51, 5000, 'second page of domains');
  const domains2 = await firstIds('source-row', 'data-domain');
  assert.ok(domains2.every((d) => !domains1.includes(d)));
  await byId(page, 'source-filter').fill('site1');
  await until(async () => {
    const rows = await firstIds('source-row', 'data-domain');
    return rows.length > 0 && rows.every((d) => d.includes('site1'));
  }, 5000, 'filtered domains');
  const filtered = await byId(page, 'source-row').count();
  if (filtered > 50) assert.equal((await pagerStatus(page, 'domains')).start, 1, 'filter resets the page');
  else assert.equal(await pager(page, 'domains').count(), 0);

  await open(page, 'lists');
  await page.locator('.probe-list').first().waitFor();
  assert.equal(await page.locator('.probe-list').count(), 50);
  assert.deepEqual(await pagerStatus(page, 'lists'), { start: 1, end: 50, total: c.successes });
  await keyNext('lists');
  await until(async () => (await pagerStatus(page, 'lists')).start === 51, 5000, 'second page of lists');
  assert.deepEqual(page.errors, []);
});

/** Checks the open drawer shows probe `id`'s answer, closes it with Esc and checks focus. */
async function checkDrawer(id, focusBack = true) {
  const drawer = byId(page, 'probe-drawer');
  await drawer.waitFor();
  assert.equal(await drawer.getAttribute('data-id'), id);
  const answer = await drawer.getByTestId('probe-answer').textContent();
  const want = probeById.get(id).answer;
  assert.ok(answer.includes(want.slice(0, want.indexOf('：'))), `the drawer shows ${id}'s answer`);
  assert.ok(answer.includes(`（第 ${probeById.get(id).repeatIndex + 1} 次）`));
  await page.keyboard.press('Escape');
  await until(async () => (await byId(page, 'probe-drawer').count()) === 0, 5000, 'drawer closed');
  if (focusBack) assert.equal(await page.evaluate(() => document.activeElement?.dataset.openProbe), id, 'focus back on the link');
}

test('drill-down links open the probe drawer with that probe', async () => {
  // Sources: a domain's URL rows name their probe.
  await open(page, 'sources');
  await byId(page, 'source-open').first().click();
  await byId(page, 'source-url').first().waitFor();
  const urls = await byId(page, 'source-url').count();
  assert.ok(urls >= 1 && urls <= 50, `${urls} URL rows on the first page`);
  const top = await byId(page, 'source-row').first().getAttribute('data-domain');
  const pairs = env.probes.filter((p) => p.runId === BIG_RUN && p.status === 'success')
    .reduce((n, p) => n + p.sources.filter((s) => s.domain === top).length, 0);
  if (pairs > 50) assert.deepEqual(await pagerStatus(page, 'urls'), { start: 1, end: 50, total: pairs });
  const row = byId(page, 'source-url').nth(1);
  const id = await row.getAttribute('data-probe');
  const url = await row.getAttribute('data-url');
  assert.ok(probeById.get(id).sources.some((s) => s.url === url && s.domain === top), 'the row belongs to its probe');
  await row.getByTestId('probe-link').focus();
  await page.keyboard.press('Enter');
  await checkDrawer(id);

  // Lists: each per-probe list opens its probe.
  await open(page, 'lists');
  const card = page.locator('.probe-list').nth(3);
  await card.waitFor();
  const listed = await card.getAttribute('data-probe');
  await card.getByTestId('probe-link').click();
  await checkDrawer(listed);

  // Dashboard: a prompt row leads to the run's probes of that prompt.
  await open(page, '');
  const link = page.locator('[data-testid="prompt-metric-row"][data-prompt="prm_001"] [data-testid="prompt-probes-link"] a');
  await link.click();
  await until(async () => new URL(page.url()).pathname.endsWith(`/runs/${BIG_RUN}`), 5000, 'run detail');
  assert.equal(new URL(page.url()).searchParams.get('prompt'), 'prm_001');
  await byId(page, 'probe-row').first().waitFor();
  assert.equal(await byId(page, 'probe-filter-prompt').inputValue(), 'prm_001');
  const rows = await firstIds('probe-row', 'data-id');
  assert.equal(rows.length, c.repeats);
  assert.ok(rows.every((r) => r.includes('__prm_001__')));

  // A link with ?probe=ID opens that probe's drawer on arrival.
  const direct = env.probes.find((p) => p.runId === BIG_RUN && p.promptId === 'prm_002' && p.status === 'success' && p.repeatIndex > 5).id;
  await open(page, `runs/${BIG_RUN}?probe=${direct}`);
  await checkDrawer(direct, false);
  assert.deepEqual(page.errors, []);
});
