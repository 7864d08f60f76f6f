// What they say (issue 36): on the demo project a first visit shows what its answers say,
// equal to `geo-probe claims` on the demo file; runs made by `geo-probe run` against geo-mock
// from the fixture project with a fact sheet of this test's are imported, and the claims page's figures (`claims-fact-row`,
// `claim-row`, `risk-flag-row`, `risk-target-row`) equal `geo-probe claims` on the page's own
// IndexedDB; a quote opens the probe drawer with its sentence marked. The fact editor by
// keyboard (a fact refused beside its field, then saved; the next run freezes it),
// `claims-apply-facts` on a run that has no sheet (and the full export carrying both sheets), probes stored before claims existed getting
// their flags, both languages, 390 px without sideways scroll and axe-core.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launch, freshPage, open, byId, dumpDb, until, headerReady, cli, buildCli, ROOT, num } from './helpers.mjs';
import { startMock, importEnvelope, exportWithPrompts, saveBases, startRun, storedRuns, envelopeOf, fixtureProject, CN_PROMPTS } from './run-helpers.mjs';
import { axeViolations, demoSeeded, horizontalOverflow, setLang } from './a11y-helpers.mjs';

const DEMO_FILE = path.join(ROOT, 'demo/demo-data.json');

const PROJECT = 'proj_yuangouchang';
const BRAND = 'tgt_yuangouchang';
const PROMPTS = 'p01,p06,p08,p21,p26';
// A fact sheet about what the fixture answers say: the founding year they give (2023, so
// consistent), a headquarters they get wrong (杭州 is listed as wrong), a staff size they only
// describe in words (unverified), and two watch terms they contain.
const FACTS = [
  { id: 'f_founded', targetId: BRAND, label: '成立年份', kind: 'year', cues: ['成立', 'founded'], value: 2023 },
  { id: 'f_hq', targetId: BRAND, label: '总部', kind: 'text', cues: ['总部', 'headquartered'], accepted: ['上海'], rejected: ['杭州'] },
  { id: 'f_staff', targetId: BRAND, label: '员工人数', kind: 'number', cues: ['规模', '员工'], value: 300, tolerance: 0.1 },
];
const WATCH = ['百人以内', '出海企业'];
// A sentence with built-in risk cues (投诉 negative, 价格偏高 caution), added to one answer.
const RISKY = '\n\n也有用户投诉元构场的客服响应慢，价格偏高。';

let browser;
let mock;
let dir;
let withSheet;
let withoutSheet;

/** The fixture project with `sheet` as its fact sheet (none when `null`). */
function fixtureWith(sheet) {
  const env = fixtureProject();
  delete env.projects[0].facts;
  delete env.projects[0].watchTerms;
  if (sheet) Object.assign(env.projects[0], sheet);
  return env;
}

/** `geo-probe run` of PROMPTS from the fixture project with `sheet` (none when `null`). */
function runExport(name, sheet) {
  const env = fixtureWith(sheet);
  const input = path.join(dir, `${name}-in.json`);
  const out = path.join(dir, `${name}.json`);
  writeFileSync(input, JSON.stringify(env));
  cli(['run', input, '--project', PROJECT, '--prompts', PROMPTS, '--repeats', '2', '--base-url', mock.url, '--timeout-secs', '10', '--out', out]);
  const made = JSON.parse(readFileSync(out, 'utf8'));
  const p08 = made.probes.find((p) => p.promptId === 'p08' && p.repeatIndex === 0);
  p08.rawAnswer += RISKY;
  return made;
}

before(async () => {
  buildCli();
  mock = await startMock();
  dir = mkdtempSync(path.join(tmpdir(), 'geo-claims-'));
  withSheet = runExport('with-sheet', { facts: FACTS, watchTerms: WATCH });
  assert.deepEqual(withSheet.runs[0].factSnapshot, { facts: FACTS, watchTerms: WATCH }, 'geo-probe run froze the sheet');
  withoutSheet = runExport('without-sheet', null);
  assert.equal(withoutSheet.runs[0].factSnapshot ?? null, null);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  mock?.stop();
});

/** `geo-probe claims` of run `runId` over the page's IndexedDB. */
async function claimsOfPage(page, runId) {
  const file = path.join(dir, `db-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(envelopeOf(await dumpDb(page))));
  return { file, want: JSON.parse(cli(['claims', file, '--run', runId])) };
}

/** Opens the claims page and waits until it shows run `runId`. */
async function openClaims(page, runId) {
  await byId(page, 'nav-claims').click();
  await page.locator(`[data-testid="claims"][data-state="ready"][data-run="${runId}"]`).waitFor();
}

/** The `data-*` values `attrs` of every element `testid` (under `within` when given). */
const attrsOf = (page, testid, attrs) => byId(page, testid).evaluateAll(
  (els, attrs) => els.map((e) => Object.fromEntries(attrs.map((a) => [a, e.getAttribute(`data-${a}`)]))), attrs);

/** Every `risk-flag-row` over every page of its pager. */
async function flagRows(page) {
  const out = [];
  for (;;) {
    out.push(...await attrsOf(page, 'risk-flag-row', ['probe', 'target', 'kind', 'cue']));
    const next = page.locator('[data-testid="pager"][data-pager="flags"] [data-testid="pager-next"]');
    if ((await next.count()) === 0 || (await next.getAttribute('aria-disabled')) === 'true') return out;
    const first = await byId(page, 'risk-flag-row').first().getAttribute('data-probe');
    await next.click();
    await until(async () => (await byId(page, 'risk-flag-row').first().getAttribute('data-probe')) !== first, 5000, 'the next page');
  }
}

const sortRows = (rows) => rows.map((r) => JSON.stringify(r)).sort();

/** The page's facts, quotes, flags and rates equal the CLI's object `want`. */
async function assertPageEquals(page, want) {
  const facts = await attrsOf(page, 'claims-fact-row', ['fact', 'with-claim', 'contradicts', 'consistent', 'unverified', 'value']);
  assert.deepEqual(facts.map((f) => [f.fact, num(f['with-claim']), num(f.contradicts), num(f.consistent), num(f.unverified), num(f.value)]),
    want.facts.map((f) => [f.factId, f.probesWithClaim, f.contradicts, f.consistent, f.unverified, f.contradictionRate]));
  for (const more of await byId(page, 'claims-show-all').all()) await more.click();
  const quoted = await attrsOf(page, 'claim-row', ['probe', 'verdict', 'fact']);
  const wanted = want.facts.flatMap((f) => ['contradicts', 'unverified'].flatMap((v) => f.claims
    .filter((c) => c.verdict === v).map((c) => ({ probe: c.probeId, verdict: v, fact: f.factId }))));
  assert.deepEqual(quoted, wanted, 'every contradicting and unverified sentence, fact by fact');
  assert.deepEqual(sortRows(await flagRows(page)),
    sortRows(want.riskFlags.map((f) => ({ probe: f.probeId, target: f.targetId, kind: f.kind, cue: f.cue }))));
  const rates = await attrsOf(page, 'risk-target-row', ['target', 'value', 'low', 'high', 'mentioning', 'flagged']);
  assert.deepEqual(rates.map((r) => [r.target, num(r.value), num(r.low), num(r.high), num(r.mentioning), num(r.flagged)]),
    want.flagCounts.map((c) => [c.targetId, c.flaggedRate, c.flaggedLow, c.flaggedHigh, c.mentioningCount, c.flaggedCount]));
}

test('the page equals geo-probe claims on its own data; a quote opens the drawer with its sentence marked', async () => {
  const page = await freshPage(browser);
  await importEnvelope(page, withSheet);
  await headerReady(page);
  const runId = withSheet.runs[0].id;
  await openClaims(page, runId);
  const { want } = await claimsOfPage(page, runId);
  assert.equal(want.factsFrom, 'run');
  assert.equal(await byId(page, 'claims-sheet').getAttribute('data-value'), 'run');
  assert.ok(want.facts.some((f) => f.contradicts > 0) && want.facts.some((f) => f.unverified > 0), 'contradicting and unverified claims');
  assert.ok(want.riskFlags.some((f) => f.kind === 'negative') && want.riskFlags.some((f) => f.kind === 'watch'), 'built-in and watch flags');
  await assertPageEquals(page, want);

  // A contradicting sentence opens its answer with the sentence marked, and its claims listed.
  const claim = want.facts.flatMap((f) => f.claims).find((c) => c.verdict === 'contradicts');
  const quote = page.locator(`[data-testid="claim-row"][data-probe="${claim.probeId}"][data-verdict="contradicts"] [data-testid="claim-quote"]`).first();
  assert.equal(await quote.getAttribute('data-open-mark'), `${claim.start}-${claim.end}`);
  await quote.focus();
  await page.keyboard.press('Enter');
  const drawer = page.locator(`[data-testid="probe-drawer"][data-id="${claim.probeId}"]`);
  await drawer.waitFor();
  const marked = await drawer.getByTestId('probe-marked').evaluateAll((els) => els.map((e) => e.textContent).join(''));
  assert.equal(marked, claim.sentence.replaceAll('**', ''), 'the sentence is marked in the answer');
  const inProbe = want.facts.flatMap((f) => f.claims).filter((c) => c.probeId === claim.probeId);
  const listed = await drawer.getByTestId('probe-claim').evaluateAll((els) => els.map((e) => `${e.dataset.fact}:${e.dataset.verdict}`));
  assert.deepEqual(listed.sort(), inProbe.map((c) => `${c.factId}:${c.verdict}`).sort());
  const current = await drawer.locator('[data-testid="probe-claim"].current').evaluateAll((els) => els.map((e) => e.dataset.start));
  assert.ok(current.length > 0 && current.every((s) => s === String(claim.start)), 'the claim that opened it stands out');
  await page.keyboard.press('Escape');
  await drawer.waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement?.dataset?.openMark), `${claim.start}-${claim.end}`, 'focus back on the quote');

  // A flagged sentence opens its answer with the sentence marked too.
  const flag = want.riskFlags.find((f) => f.kind === 'negative');
  await page.locator(`[data-testid="risk-flag-row"][data-probe="${flag.probeId}"][data-kind="negative"] [data-testid="risk-quote"]`).first().click();
  await page.locator(`[data-testid="probe-drawer"][data-id="${flag.probeId}"] [data-testid="probe-marked"]`).first().waitFor();
  assert.match(await byId(page, 'probe-marked').first().textContent(), /投诉/);
  await page.keyboard.press('Escape');
  await byId(page, 'probe-drawer').waitFor({ state: 'detached' });
  assert.deepEqual(page.errors, []);
});

test('the demo project: a first visit shows what the answers say, equal to geo-probe claims on the demo file', async () => {
  const page = await freshPage(browser, '', { demo: true });
  await demoSeeded(page);
  const want = JSON.parse(cli(['claims', DEMO_FILE]));
  assert.equal(want.factsFrom, 'run', 'the demo runs carry the starter sheet');
  await openClaims(page, want.runId);
  assert.ok(want.facts.some((f) => f.probesWithClaim > 0), 'the demo answers speak of its facts');
  await assertPageEquals(page, want);
  // The demo's own database says the same as its file.
  assert.deepEqual((await claimsOfPage(page, want.runId)).want, want);
  assert.deepEqual(page.errors, []);
});

test('the fact editor by keyboard: a fact refused beside its field, then saved; the next run freezes it', async () => {
  const page = await freshPage(browser);
  const start = exportWithPrompts(CN_PROMPTS.filter((p) => p.id === 'p08'));
  start.projects = fixtureWith(null).projects;
  await importEnvelope(page, start);
  await saveBases(page, mock.url, []);
  await open(page, 'projects');
  await byId(page, 'fact-empty').waitFor();
  const active = () => page.evaluate(() => document.activeElement?.dataset?.testid ?? null);

  await byId(page, 'fact-add').focus();
  await page.keyboard.press('Enter');
  await until(async () => (await active()) === 'fact-label', 5000, 'the new fact\'s label has the focus');
  await page.keyboard.type('成立年份');
  for (const next of ['fact-target', 'fact-kind', 'fact-cues']) {
    await page.keyboard.press('Tab');
    assert.equal(await active(), next);
  }
  await page.keyboard.type('成立，founded');
  await page.keyboard.press('Tab');
  assert.equal(await active(), 'fact-value');
  await page.keyboard.type('二〇二三');
  await page.keyboard.press('Enter');
  // Refused: the message beside the value, which has the focus; nothing stored.
  await byId(page, 'fact-refused').waitFor();
  const row = byId(page, 'fact-row').first();
  const problem = row.locator('[data-testid="fact-problem"][data-field="value"]');
  await problem.waitFor();
  assert.equal(await active(), 'fact-value');
  assert.equal(await byId(page, 'fact-value').getAttribute('aria-describedby'), await problem.getAttribute('id'));
  assert.equal(await byId(page, 'fact-value').getAttribute('aria-invalid'), 'true');
  assert.deepEqual((await dumpDb(page)).stores.projects[0].facts ?? [], []);

  await page.keyboard.press('Control+A');
  await page.keyboard.type('2023');
  await problem.waitFor({ state: 'detached' });
  await until(async () => {
    await page.keyboard.press('Tab');
    return (await active()) === 'watch-terms';
  }, 5000, 'Tab reaches the watch terms');
  await page.keyboard.type('百人以内');
  await page.keyboard.press('Tab');
  assert.equal(await active(), 'fact-save');
  await page.keyboard.press('Enter');
  await page.locator('[data-testid="toast"][data-kind="ok"]').first().waitFor();
  const project = await until(async () => {
    const p = (await dumpDb(page)).stores.projects[0];
    return p.facts?.length === 1 ? p : null;
  }, 5000, 'the fact stored');
  assert.match(project.facts[0].id, /^fact_/);
  assert.deepEqual({ ...project.facts[0], id: 'x' }, { id: 'x', targetId: BRAND, label: '成立年份', kind: 'year', cues: ['成立', 'founded'], value: 2023 });
  assert.deepEqual(project.watchTerms, ['百人以内']);
  // A fact added by mistake goes by keyboard too, and the focus lands on "add".
  await byId(page, 'fact-add').focus();
  await page.keyboard.press('Enter');
  await until(async () => (await active()) === 'fact-label', 5000, 'the second fact\'s label has the focus');
  await byId(page, 'fact-remove').nth(1).focus();
  await page.keyboard.press('Enter');
  await until(async () => (await byId(page, 'fact-row').count()) === 1, 5000, 'the second fact removed');
  await until(async () => (await active()) === 'fact-add', 5000, 'the focus on add');

  // The next run freezes the sheet, and the page shows what it says.
  await startRun(page, { repeats: '1', concurrency: '1' });
  const db = await storedRuns(page, 1);
  const run = db.stores.runs[0];
  assert.deepEqual(run.factSnapshot, { facts: project.facts, watchTerms: project.watchTerms });
  await openClaims(page, run.id);
  const { want } = await claimsOfPage(page, run.id);
  assert.equal(want.facts[0].probesWithClaim, 1, 'the answer states the founding year');
  await assertPageEquals(page, want);
  assert.deepEqual(page.errors, []);
});

test('claims-apply-facts freezes the current sheet into a run that has none and analyses its answers again', async () => {
  const page = await freshPage(browser);
  const env = structuredClone(withoutSheet);
  Object.assign(env.projects[0], { facts: FACTS, watchTerms: WATCH });
  await importEnvelope(page, env);
  await headerReady(page);
  const runId = env.runs[0].id;
  await openClaims(page, runId);
  assert.equal(await byId(page, 'claims-sheet').getAttribute('data-value'), 'none');
  assert.equal(await byId(page, 'claims-fact-row').count(), 0);
  const before = await claimsOfPage(page, runId);
  assert.equal(before.want.factsFrom, 'none');
  await assertPageEquals(page, before.want);

  await byId(page, 'claims-apply-facts').focus();
  await page.keyboard.press('Enter');
  await until(async () => (await byId(page, 'claims-fact-row').count()) === FACTS.length, 10000, 'the facts of the applied sheet');
  const db = await dumpDb(page);
  const run = db.stores.runs.find((r) => r.id === runId);
  assert.deepEqual(run.factSnapshot, { facts: FACTS, watchTerms: WATCH });
  assert.ok(db.stores.probes.some((p) => p.claims?.length > 0), 'the stored answers were analysed with the sheet');
  const { file, want } = await claimsOfPage(page, runId);
  assert.equal(want.factsFrom, 'run');
  assert.ok(want.facts.some((f) => f.probesWithClaim > 0));
  await assertPageEquals(page, want);
  // The stored summary was recomputed in the same write.
  const metrics = JSON.parse(cli(['metrics', file, '--run', runId]))[0];
  const stored = db.stores.runMetrics.find((m) => m.runId === runId).metrics;
  assert.deepEqual(stored.facts, metrics.facts);
  assert.deepEqual(stored.riskFlags, metrics.riskFlags);
  assert.equal(await byId(page, 'claims-apply-facts').count(), 0, 'a run with a sheet keeps it');

  // The full export carries the project's sheet and the run's frozen copy, and passes
  // `geo-probe validate`.
  await open(page, 'export');
  const [download] = await Promise.all([page.waitForEvent('download'), byId(page, 'export-full-json').click()]);
  const exported = path.join(dir, 'exported.json');
  await download.saveAs(exported);
  const back = JSON.parse(readFileSync(exported, 'utf8'));
  const project = back.projects.find((p) => p.id === PROJECT);
  assert.deepEqual([project.facts, project.watchTerms], [FACTS, WATCH]);
  assert.deepEqual(back.runs.find((r) => r.id === runId).factSnapshot, { facts: FACTS, watchTerms: WATCH });
  cli(['validate', exported]);
  assert.deepEqual(page.errors, []);
});

test('probes stored before claims existed get their claims and flags when their summary is recomputed', async () => {
  const page = await freshPage(browser);
  await importEnvelope(page, withSheet);
  await headerReady(page);
  const runId = withSheet.runs[0].id;
  const current = await dumpDb(page);
  assert.ok(current.stores.probes.some((p) => p.riskFlags?.length > 0));
  // The records as the previous release stored them: no claims and flags on the probes, a
  // summary of format 2 without the facts and riskFlags rows.
  const old = structuredClone(current.stores);
  for (const p of old.probes) { delete p.claims; delete p.riskFlags; }
  for (const s of old.runSummaries) s.format = 2;
  for (const m of old.runMetrics) { delete m.metrics.facts; delete m.metrics.riskFlags; }
  await page.evaluate((records) => new Promise((resolve, reject) => {
    const req = indexedDB.open('geo-probe');
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const tx = req.result.transaction(Object.keys(records), 'readwrite');
      for (const [name, list] of Object.entries(records)) for (const r of list) tx.objectStore(name).put(r);
      tx.oncomplete = () => { req.result.close(); resolve(); };
      tx.onerror = () => reject(tx.error);
    };
  }), { probes: old.probes, runSummaries: old.runSummaries, runMetrics: old.runMetrics });
  await open(page, '');
  await headerReady(page);
  await openClaims(page, runId);
  await until(async () => (await byId(page, 'risk-flag-row').count()) > 0, 10000, 'flags on the page');
  const after = await dumpDb(page);
  const byId_ = (list) => Object.fromEntries(list.map((p) => [p.id, p]));
  const want = byId_(current.stores.probes);
  for (const p of after.stores.probes) {
    assert.deepEqual(p.riskFlags ?? [], want[p.id].riskFlags ?? [], p.id);
    assert.deepEqual(p.claims ?? [], want[p.id].claims ?? [], p.id);
  }
  assert.ok(after.stores.runSummaries.every((s) => s.format === 4 && s.fresh), "summary format 4 (geo-core's SUMMARY_FORMAT)");
  assert.deepEqual(after.stores.runMetrics[0].metrics.riskFlags, current.stores.runMetrics[0].metrics.riskFlags);
  await assertPageEquals(page, (await claimsOfPage(page, runId)).want);
  assert.deepEqual(page.errors, []);
});

test('both languages, axe-core and 390 px: the page, the drawer and the fact editor', async () => {
  const problems = [];
  for (const width of [1280, 390]) {
    const page = await freshPage(browser, '', { viewport: { width, height: 860 } });
    await importEnvelope(page, withSheet);
    await headerReady(page);
    const runId = withSheet.runs[0].id;
    for (const [lang, title, nav] of [['zh', '回答说了什么', '说了什么'], ['en', 'What the answers say', 'What they say']]) {
      await setLang(page, lang);
      await open(page, 'claims');
      await page.locator(`[data-testid="claims"][data-state="ready"][data-run="${runId}"] [data-testid="claims-fact-row"]`).first().waitFor();
      await headerReady(page);
      assert.equal((await page.locator('[data-testid="claims"] h1').textContent()).trim(), title);
      assert.equal((await byId(page, 'nav-claims').textContent()).trim(), nav);
      const check = async (what) => {
        if (width === 1280) for (const v of await axeViolations(page)) problems.push(`${lang} ${what}: ${v}`);
        const o = await horizontalOverflow(page);
        if (o.over > 0) problems.push(`${lang} ${what} at ${width}: ${o.over} px too wide (${o.offenders.join('; ')})`);
      };
      await check('claims page');
      await byId(page, 'claim-quote').first().click();
      await byId(page, 'probe-marked').first().waitFor();
      await check('drawer');
      const inside = await byId(page, 'probe-drawer').evaluate((d) => d.scrollWidth - d.clientWidth);
      if (inside > 0) problems.push(`${lang} drawer at ${width}: ${inside} px wider than the drawer`);
      await page.keyboard.press('Escape');
      await byId(page, 'probe-drawer').waitFor({ state: 'detached' });
      // The fact editor with its facts, one of them showing a problem.
      await open(page, 'projects');
      await until(async () => (await byId(page, 'fact-row').count()) === FACTS.length, 5000, 'the facts in the editor');
      const value = byId(page, 'fact-row').first().getByTestId('fact-value');
      await value.fill('not a year');
      await byId(page, 'fact-row').first().locator('[data-testid="fact-problem"][data-field="value"]').waitFor();
      await check('fact editor');
      await value.fill('2023');
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
  assert.deepEqual(problems, []);
});
