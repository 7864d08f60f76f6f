// A location per run in the browser (issue 38, engines.md "Where and how an answer was
// measured"), against geo-mock in proxy mode: the run page's country picker (a name in either
// language, stored as the ISO code), region, city and time zone; a malformed country or time
// zone refused before anything is sent; per ticked engine how the location will reach it; the
// requests the mock received (OpenAI's user_location, DeepSeek's system-prompt line) and the
// stored runs and probes equal to `geo-probe run --location` on the same project; the drawer's
// `probe-location` and run detail's `detail-location`; the project's recent location as a
// one-click button that refills the fields; the prompt line switched off; a run without one;
// axe-core and a 390 px window on the block with a problem shown and with a recent location.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileBrowser, freshPage, open, byId, until, cli } from './helpers.mjs';
import { startMock, exportWithPrompts, importEnvelope, saveBases, storedRuns, envelopeOf, ENGINE_PROMPTS } from './run-helpers.mjs';
import { axeViolations, horizontalOverflow } from './a11y-helpers.mjs';

const browser = fileBrowser({ cli: true });

const HANGZHOU = { country: 'CN', region: 'Zhejiang', city: 'Hangzhou', timezone: 'Asia/Shanghai' };
const LABEL = 'Hangzhou, Zhejiang, CN (Asia/Shanghai)';
const LINE = `User location: ${LABEL}.`;

const field = (page, name) => byId(page, name === 'timezone' ? 'run-timezone' : `run-location-${name}`);
const note = (page, engine) => page.locator(`[data-testid="run-location-note"] li[data-engine="${engine}"]`);
const box = (page, engine) => page.locator(`[data-testid="run-engine"][data-engine="${engine}"]`);
const startEnabled = (page) => until(async () => !(await byId(page, 'run-start').isDisabled()), 5000, 'start enabled');

/** Types `value` into a location field. */
async function type(page, name, value) {
  await field(page, name).fill(value);
}

/** Waits until `locator`'s attribute `name` is `value` (the page re-rendered). */
const hasAttr = (locator, name, value) =>
  until(async () => (await locator.getAttribute(name)) === value, 5000, `${name} = ${value}`);

/** Ticks exactly `engines` on the run page. */
async function tick(page, engines) {
  for (const e of ['deepseek', 'openai']) {
    if (engines.includes(e)) await box(page, e).check(); else await box(page, e).uncheck();
  }
}

/** With `value` in field `name`, start is disabled with a reason naming it and the field is
 * marked invalid with the problem beside it. */
async function refused(page, name, value) {
  await type(page, name, value);
  await hasAttr(byId(page, 'run-location-problem'), 'data-field', name);
  await until(async () => (await byId(page, 'run-start-reason').textContent()).includes(value), 5000, `the reason names ${value}`);
  assert.ok(await byId(page, 'run-start').isDisabled(), `start disabled by ${name} ${value}`);
  assert.equal(await field(page, name).getAttribute('aria-invalid'), 'true', `${name} marked invalid`);
  assert.equal(await field(page, name).getAttribute('aria-describedby'), 'run-location-problem');
  const problem = byId(page, 'run-location-problem');
  assert.equal(await problem.getAttribute('data-field'), name);
  assert.ok((await problem.textContent()).includes(value));
}

/** No serious or critical axe-core violation on the run page as it is, and no sideways
 * scrolling at 390 px. */
async function accessible(page, what) {
  assert.deepEqual(await axeViolations(page), [], what);
  await page.setViewportSize({ width: 390, height: 800 });
  const overflow = await horizontalOverflow(page);
  await page.setViewportSize({ width: 1280, height: 720 });
  assert.equal(overflow.over, 0, `${what} at 390 px: ${overflow.offenders.join(', ')}`);
}

/** The probe-location of the drawer of `probe` on its run's detail page: [data-value, text]. */
async function drawerLocation(page, probe) {
  await open(page, `runs/${probe.runId}`);
  await page.locator(`[data-testid="probe-open"][data-open-probe="${probe.id}"]`).click();
  const cell = byId(page, 'probe-location');
  await cell.waitFor();
  const shown = [await cell.getAttribute('data-value'), await cell.textContent()];
  await page.keyboard.press('Escape');
  return shown;
}

/** Starts a run of the ticked engines and returns the dump once `n` runs are stored, with
 * the runs this start added. */
async function run(page, n) {
  await startEnabled(page);
  await byId(page, 'run-start').click();
  const db = await storedRuns(page, n);
  const runs = db.stores.runs.slice().sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return { db, runs };
}

/** The probe requests the mock logged, by engine. */
function requests(logFile) {
  const lines = readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return lines.filter((e) => e.method === 'POST' && e.engine).map((e) => ({ engine: e.engine, body: JSON.parse(e.body) }));
}

test('a location per run: picked, checked, sent the way each engine takes it, recorded, shown and remembered', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'geo-location-'));
  const logFile = path.join(dir, 'mock.jsonl');
  const mock = await startMock(['--log', logFile]);
  try {
    const page = await freshPage(browser);
    await importEnvelope(page, exportWithPrompts(ENGINE_PROMPTS));
    await saveBases(page, mock.url, ['openai']);
    await byId(page, 'nav-run').click();
    await byId(page, 'run-location-country').waitFor();
    await tick(page, ['deepseek', 'openai']);
    await byId(page, 'run-repeats').fill('1');

    // Without a location: no location for either, and OpenAI assumes the United States.
    assert.equal(await note(page, 'openai').getAttribute('data-value'), 'none');
    assert.match(await page.locator('[data-testid="run-location-note"] li[data-assumed="openai"]').textContent(), /美国/);
    assert.equal(await byId(page, 'run-location-recent').count(), 0, 'no recent location yet');
    assert.ok(await byId(page, 'run-location-prompt').isChecked(), 'the prompt line is on by default');

    // A malformed country or time zone disables start, with the reason, before anything is sent.
    await refused(page, 'country', 'ZZ');
    await refused(page, 'country', 'C1');
    await type(page, 'country', '中国');
    await hasAttr(field(page, 'country'), 'data-value', 'CN');
    assert.equal(await page.locator('#run-countries option[value="中国"]').count(), 1, 'the list names countries in Chinese');
    await refused(page, 'timezone', 'Asia/Nowhere');
    await accessible(page, 'zh, the time zone refused');
    await type(page, 'region', HANGZHOU.region);
    await type(page, 'city', HANGZHOU.city);
    await type(page, 'timezone', HANGZHOU.timezone);
    await startEnabled(page);
    assert.equal(await field(page, 'timezone').getAttribute('aria-invalid'), null);
    assert.equal(requests(logFile).length, 0, 'nothing was sent while the location was refused');
    assert.equal(await page.locator('#run-timezones option').first().getAttribute('value'), 'Asia/Shanghai', "China's zones first");

    // How the location reaches each ticked engine, in both languages.
    await hasAttr(note(page, 'openai'), 'data-value', 'request');
    assert.equal(await note(page, 'deepseek').getAttribute('data-value'), 'prompt');
    assert.equal((await note(page, 'openai').textContent()).trim(), 'ChatGPT：位置写入请求的 user_location 字段');
    await byId(page, 'lang-toggle').click();
    await page.locator('html[lang="en"]').waitFor();
    assert.equal((await note(page, 'openai').textContent()).trim(), "ChatGPT: the location goes in its request's user_location field");
    assert.equal((await note(page, 'deepseek').textContent()).trim(), 'DeepSeek: no location field; the location is one more system-prompt line, "User location: …"');
    assert.equal(await page.locator('[data-testid="run-location-note"] li[data-assumed]').count(), 0, 'no assumed country with a location');
    await type(page, 'country', 'Germany');
    await hasAttr(field(page, 'country'), 'data-value', 'DE');
    await type(page, 'country', 'china');
    await hasAttr(field(page, 'country'), 'data-value', 'CN');

    const { db, runs } = await run(page, 2);
    const sent = requests(logFile);
    assert.deepEqual([...new Set(sent.map((r) => r.engine))].sort(), ['deepseek', 'openai']);
    for (const { engine, body } of sent) {
      if (engine === 'openai') {
        const tool = body.tools.find((t) => t.user_location);
        assert.deepEqual(tool.user_location, { type: 'approximate', ...HANGZHOU }, "OpenAI's user_location");
        assert.ok(!JSON.stringify(body).includes('User location:'), 'no line for an engine with a field');
      } else {
        assert.ok(body.system.endsWith(`\n${LINE}`), `DeepSeek's system prompt ends with the line: ${body.system}`);
        assert.ok(!JSON.stringify(body).includes('user_location'));
      }
    }

    // The stored runs and probes say what `geo-probe run --location` says of the same project.
    const file = path.join(dir, 'export.json');
    writeFileSync(file, JSON.stringify({ ...envelopeOf(db), runs: [], probes: [] }));
    const out = path.join(dir, 'cli.json');
    cli(['run', file, '--project', db.stores.projects[0].id, '--engine', 'openai,deepseek', '--repeats', '1',
      '--location', 'CN/Zhejiang/Hangzhou', '--timezone', 'Asia/Shanghai', '--base-url', mock.url, '--out', out]);
    const theCli = JSON.parse(readFileSync(out, 'utf8'));
    const applied = (env, r) => env.probes.filter((p) => p.runId === r.id).map((p) => p.locationApplied ?? 'none');
    for (const engine of ['openai', 'deepseek']) {
      const web = runs.find((r) => r.config.engine === engine);
      const other = theCli.runs.find((r) => r.config.engine === engine);
      assert.deepEqual(web.config.location, HANGZHOU, `${engine}: config.location`);
      assert.deepEqual(web.config.location, other.config.location);
      assert.equal(web.config.locationPrompt, other.config.locationPrompt, `${engine}: locationPrompt absent (true)`);
      const want = engine === 'openai' ? 'request' : 'prompt';
      assert.deepEqual(applied(db.stores, web), [want, want], `${engine}: every stored probe is ${want}`);
      assert.deepEqual(applied(db.stores, web), applied(theCli, other), `${engine}: as the CLI records it`);
    }
    const cliSent = requests(logFile).slice(sent.length);
    assert.deepEqual(cliSent.find((r) => r.engine === 'openai').body.tools, sent.find((r) => r.engine === 'openai').body.tools,
      'the page sends OpenAI the tools the CLI sends');

    // The drawer and run detail say where and how.
    const probeOf = (engine) => db.stores.probes.find((p) => p.runId === runs.find((r) => r.config.engine === engine).id);
    const [openaiApplied, openaiText] = await drawerLocation(page, probeOf('openai'));
    assert.equal(openaiApplied, 'request');
    assert.equal(openaiText.trim(), `${LABEL} · sent in the request's user_location field`);
    const detail = byId(page, 'detail-location');
    assert.equal(await detail.getAttribute('data-value'), LABEL);
    assert.equal(await detail.getAttribute('data-surface'), 'api');
    assert.equal((await detail.textContent()).trim(), `${LABEL} · API`);
    const [deepseekApplied, deepseekText] = await drawerLocation(page, probeOf('deepseek'));
    assert.equal(deepseekApplied, 'prompt');
    assert.ok(deepseekText.includes(LABEL) && deepseekText.includes('system prompt'), deepseekText);

    // The recent location, after a reload too, refills the fields in one click; with the
    // prompt line off DeepSeek gets no location and OpenAI still its field.
    await page.reload();
    await byId(page, 'nav-run').click();
    const chip = byId(page, 'run-location-recent');
    await chip.waitFor();
    assert.equal(await chip.count(), 1);
    assert.equal(await chip.getAttribute('data-value'), LABEL);
    assert.equal(await field(page, 'country').inputValue(), '', 'a new run starts without a location');
    await chip.click();
    await hasAttr(field(page, 'country'), 'data-value', 'CN');
    assert.equal(await field(page, 'country').inputValue(), 'China', 'named in the interface language');
    assert.equal(await field(page, 'timezone').inputValue(), HANGZHOU.timezone);
    assert.equal(await field(page, 'region').inputValue(), HANGZHOU.region);
    assert.equal(await field(page, 'city').inputValue(), HANGZHOU.city);
    await accessible(page, 'en, a recent location');
    await tick(page, ['deepseek', 'openai']);
    await byId(page, 'run-repeats').fill('1');
    await byId(page, 'run-location-prompt').uncheck();
    await hasAttr(note(page, 'deepseek'), 'data-value', 'none');
    assert.match(await note(page, 'deepseek').textContent(), /not sent/);
    assert.equal(await note(page, 'openai').getAttribute('data-value'), 'request');
    const second = await run(page, 4);
    const [offDeepseek, offOpenai] = ['deepseek', 'openai'].map((e) => second.runs.slice(2).find((r) => r.config.engine === e));
    assert.equal(offDeepseek.config.locationPrompt, false);
    assert.deepEqual(applied(second.db.stores, offDeepseek), ['none', 'none']);
    assert.deepEqual(applied(second.db.stores, offOpenai), ['request', 'request']);
    const offProbe = second.db.stores.probes.find((p) => p.runId === offDeepseek.id);
    const [offApplied, offText] = await drawerLocation(page, offProbe);
    assert.equal(offApplied, 'none');
    assert.match(offText, /not sent/);

    // A run without a location: OpenAI's probes say what its search assumed.
    await byId(page, 'nav-run').click();
    await byId(page, 'run-location-recent').waitFor();
    await tick(page, ['openai']);
    await byId(page, 'run-repeats').fill('1');
    const third = await run(page, 5);
    const bare = third.runs[4];
    assert.equal(bare.config.location, undefined);
    const [bareApplied, bareText] = await drawerLocation(page, third.db.stores.probes.find((p) => p.runId === bare.id));
    assert.equal(bareApplied, 'none');
    assert.match(bareText, /assumes a user in the United States/);
    assert.equal((await byId(page, 'detail-location').textContent()).trim(), 'no location · API');
    assert.deepEqual(page.errors.filter((e) => !/Failed to load resource/.test(e)), []);
  } finally { mock.stop(); }
});
