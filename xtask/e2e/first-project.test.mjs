// A new user's first project, exactly as a newcomer walks it (issue 12): a fresh profile
// with the demo seeded, Projects → new project → save, two prompts pasted, the mock as the
// base URL (proxy mode, no key), Run → start, the dashboard. The header's `project-select`
// is read but never touched: saving must make the new project the current one everywhere,
// its prompts and run must land in it, and the demo must stay as it was. A reload shows
// the same project, prompts, run and figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, freshPage, byId, dumpDb, until, headerReady, dataVersion } from './helpers.mjs';
import { startMock, progressOf } from './run-helpers.mjs';

const browser = fileBrowser();

const DEMO = 'proj_demo';
// Two prompts of fixtures/project.json, so the mock answers them with recorded responses:
// p01 names the brand first; p05 names 智谱营销 first and the brand third.
const PROMPTS = ['2026年国内有哪些靠谱的GEO（生成式引擎优化）服务商？', '中小企业做GEO优化有哪些服务商可选？'];

const value = async (page, id) => Number(await byId(page, id).getAttribute('data-value'));

async function dashboardOf(page, runId) {
  await page.locator(`[data-testid="dashboard"][data-state="ready"][data-run="${runId}"]`).waitFor({ timeout: 15000 });
  await byId(page, 'metric-success-count').waitFor();
  return {
    success: await value(page, 'metric-success-count'),
    mention: await value(page, 'metric-mention-rate'),
    first: await value(page, 'metric-first-mention-rate'),
    owned: await value(page, 'metric-owned-visibility'),
  };
}

test('a first project, its pasted prompts and its run land in it, not in the demo, and survive a reload', async () => {
  const mock = await startMock();
  try {
    const page = await freshPage(browser, '', { demo: true });
    const seeded = await until(async () => {
      const db = await dumpDb(page);
      return db.stores.settings.some((s) => s.key === 'demoSeeded' && s.value === true) && db.stores.probes.length ? db : null;
    }, 20000, 'demo seeded');
    const demoPrompts = seeded.stores.prompts.filter((p) => p.projectId === DEMO).map((p) => p.id).sort();
    await until(async () => (await byId(page, 'project-select').inputValue()) === DEMO, 5000, 'the demo is current');

    // Projects → new project → fill in → save.
    await byId(page, 'nav-projects').click();
    await byId(page, 'project-new').click();
    await byId(page, 'project-name').fill('我的品牌监测');
    await byId(page, 'brand-label').fill('元构场');
    await byId(page, 'brand-aliases').fill('元构场智能科技\nYuangouchang');
    await byId(page, 'brand-domains').fill('yuangouchang.com');
    await byId(page, 'competitor-add').click();
    await byId(page, 'competitor-label-0').fill('智谱营销');
    const before = await dataVersion(page);
    await byId(page, 'project-save').click();

    const mine = (await until(async () => {
      const db = await dumpDb(page);
      return db.stores.projects.find((p) => !p.isDemo);
    }, 5000, 'the new project stored'));
    // Current everywhere, and it stays so (the header re-reads its list after the save).
    await until(async () => (await byId(page, 'project-select').inputValue()) === mine.id, 5000, 'the new project is current');
    await headerReady(page, { above: before });
    assert.equal(await byId(page, 'project-select').inputValue(), mine.id, 'still current after the list was re-read');
    assert.equal(await byId(page, 'project-name').inputValue(), '我的品牌监测', 'the editor stays on the new project');
    assert.equal(await byId(page, 'brand-label').inputValue(), '元构场');
    // The next step has the focus: the first prompt.
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'prompt-text');

    // Paste two prompts.
    await byId(page, 'prompt-bulk').fill(PROMPTS.join('\n'));
    await byId(page, 'prompt-bulk-add').click();
    await until(async () => (await byId(page, 'prompt-row').count()) === 2, 5000, 'two prompt rows');
    let db = await dumpDb(page);
    assert.deepEqual(db.stores.prompts.filter((p) => p.projectId === mine.id).map((p) => p.text).sort(), [...PROMPTS].sort());
    assert.deepEqual(db.stores.prompts.filter((p) => p.projectId === DEMO).map((p) => p.id).sort(), demoPrompts, 'demo prompts untouched');

    // Settings: the mock as the base URL, no key (proxy mode).
    await byId(page, 'nav-settings').click();
    await byId(page, 'settings-base-url').fill(mock.url);
    await byId(page, 'settings-save').click();
    await page.locator('[data-testid="toast"][data-kind="ok"]').first().waitFor();

    // Run: the new project's two prompts, the defaults, start.
    await byId(page, 'nav-run').click();
    await until(async () => (await byId(page, 'run-prompt-toggle').count()) === 2, 5000, 'the new project\'s two prompts');
    const ids = await byId(page, 'run-prompt-toggle').evaluateAll((els) => els.map((e) => e.dataset.id).sort());
    assert.deepEqual(ids, db.stores.prompts.filter((p) => p.projectId === mine.id).map((p) => p.id).sort());
    await until(async () => !(await byId(page, 'run-start').isDisabled()), 5000, 'start enabled');
    await byId(page, 'run-start').click();
    const progress = await until(async () => {
      const p = await progressOf(page);
      return p && !p.running && p.planned > 0 && p.done === p.planned ? p : null;
    }, 60000, 'run finished');
    assert.equal(progress.planned, 6, '2 prompts × 3 repeats');
    db = await until(async () => {
      const d = await dumpDb(page);
      return d.stores.runs.some((r) => r.projectId === mine.id && r.status === 'completed') ? d : null;
    }, 10000, 'run stored');
    const run = db.stores.runs.find((r) => r.projectId === mine.id);
    assert.equal(db.stores.probes.filter((p) => p.runId === run.id && p.status === 'success').length, 6);
    assert.equal(db.stores.runs.filter((r) => r.projectId === DEMO).length, 10, 'the demo has its ten runs only');

    // Dashboard: that run's figures. p01 names the brand first, p05 names 智谱营销 first.
    await byId(page, 'nav-dashboard').click();
    const figures = await dashboardOf(page, run.id);
    assert.deepEqual(figures, { success: 6, mention: 1, first: 0.5, owned: 1 });
    assert.equal(await byId(page, 'run-select').inputValue(), run.id);

    // Reload: the same project, prompts, run and figures.
    await page.reload();
    await byId(page, 'nav-projects').waitFor();
    await until(async () => (await byId(page, 'project-select').inputValue()) === mine.id, 5000, 'current after reload');
    assert.deepEqual(await dashboardOf(page, run.id), figures);
    await byId(page, 'nav-projects').click();
    await until(async () => (await byId(page, 'prompt-row').count()) === 2, 5000, 'prompts after reload');
    assert.equal(await byId(page, 'project-name').inputValue(), '我的品牌监测');
    assert.deepEqual(page.errors, []);
  } finally {
    mock.stop();
  }
});

test('deleting the current project selects another one; the demo keeps its prompts', async () => {
  const page = await freshPage(browser, '', { demo: true });
  await until(async () => (await byId(page, 'project-select').inputValue()) === DEMO, 20000, 'the demo is current');
  // The demo's first view makes it current before it is stored (ADR 0024): count its prompts
  // once start-up, the seeding included, has settled.
  await headerReady(page);
  const before = (await dumpDb(page)).stores.prompts.filter((p) => p.projectId === DEMO).length;
  assert.ok(before > 0, 'the demo is stored with its prompts');
  await byId(page, 'nav-projects').click();
  await byId(page, 'project-new').click();
  await byId(page, 'project-name').fill('临时项目');
  await byId(page, 'brand-label').fill('临时品牌');
  await byId(page, 'project-save').click();
  const mine = await until(async () => (await dumpDb(page)).stores.projects.find((p) => !p.isDemo), 5000, 'stored');
  await until(async () => (await byId(page, 'project-select').inputValue()) === mine.id, 5000, 'new project current');
  await byId(page, 'prompt-text').fill('只属于临时项目的问题');
  await byId(page, 'prompt-text').press('Enter');
  await until(async () => (await byId(page, 'prompt-row').count()) === 1, 5000, 'one prompt');

  await page.locator(`[data-testid="project-delete"][data-id="${mine.id}"]`).click();
  await byId(page, 'confirm-ok').click();
  await until(async () => (await byId(page, 'project-select').inputValue()) === DEMO, 5000, 'the demo is current again');
  await until(async () => (await byId(page, 'project-name').inputValue()) !== '临时项目', 5000, 'the editor shows the demo');
  const db = await dumpDb(page);
  assert.equal(db.stores.projects.length, 1);
  assert.equal(db.stores.prompts.filter((p) => p.projectId === DEMO).length, before);
  assert.equal(db.stores.prompts.filter((p) => p.projectId === mine.id).length, 0, 'its prompts went with it');
  assert.deepEqual(page.errors, []);
});
