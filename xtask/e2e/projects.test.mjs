// Projects: brand and competitors, prompts one by one and in bulk, reload keeps it all
// (checked in the UI and in IndexedDB), cascade delete with confirmation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, freshPage, open, byId, dumpDb, dbIndexes, until } from './helpers.mjs';

const browser = fileBrowser();

/** Adds competitor row `i` and waits until the app has moved the focus to its label. The app
 * does so right after the render (the last test below); when it used a timer, the late focus
 * took typing meant for another field on a busy machine ('RivalA' landed in the label). */
async function addCompetitor(page, i) {
  await byId(page, 'competitor-add').click();
  await page.waitForFunction((id) => document.activeElement?.dataset?.testid === id, `competitor-label-${i}`);
}

async function createProject(page) {
  await open(page, 'projects');
  await byId(page, 'empty-state').waitFor();
  await byId(page, 'project-new').click();
  await byId(page, 'project-name').fill('元构场监测');
  await byId(page, 'brand-label').fill('元构场');
  await byId(page, 'brand-aliases').fill('元构场智能科技\nyuangouchang\n\n');
  await byId(page, 'brand-domains').fill('https://www.yuangouchang.com/\nyuangouchang.cn');
  await addCompetitor(page, 0);
  await byId(page, 'competitor-label-0').fill('对手甲');
  await byId(page, 'competitor-aliases-0').fill('RivalA');
  await byId(page, 'competitor-domains-0').fill('rival-a.com');
  await addCompetitor(page, 1);
  await byId(page, 'competitor-label-1').fill('对手乙');
  await byId(page, 'competitor-domains-1').fill('rival-b.cn');
  await byId(page, 'project-save').click();
  await byId(page, 'prompt-text').waitFor();
}

test('create a project, add prompts one by one and in bulk, reload keeps everything', async () => {
  const page = await freshPage(browser);
  await createProject(page);

  await byId(page, 'prompt-text').fill('有哪些靠谱的 GEO 优化公司？');
  await byId(page, 'prompt-tags').selectOption(['generic', 'scenario']);
  await byId(page, 'prompt-add').click();
  await until(async () => (await byId(page, 'prompt-row').count()) === 1, 5000, 'first prompt row');
  assert.equal(await byId(page, 'prompt-text').inputValue(), '', 'the input is cleared after adding');

  await byId(page, 'prompt-tags').selectOption(['brand']);
  await byId(page, 'prompt-text').fill('元构场怎么样？');
  await byId(page, 'prompt-text').press('Enter');
  await until(async () => (await byId(page, 'prompt-row').count()) === 2, 5000, 'second prompt row');

  await byId(page, 'prompt-tags').selectOption(['product']);
  await byId(page, 'prompt-bulk').fill('问题一\n\n问题二\n问题一\n元构场怎么样？\n问题三\n');
  await byId(page, 'prompt-bulk-add').click();
  await until(async () => (await byId(page, 'prompt-row').count()) === 5, 5000, 'bulk rows');

  await page.reload();
  await byId(page, 'nav-projects').waitFor();
  await until(async () => (await byId(page, 'prompt-row').count()) === 5, 5000, 'rows after reload');
  assert.equal(await byId(page, 'brand-label').inputValue(), '元构场');
  assert.equal(await byId(page, 'brand-aliases').inputValue(), '元构场\n元构场智能科技\nyuangouchang');
  assert.equal(await byId(page, 'brand-domains').inputValue(), 'yuangouchang.com\nyuangouchang.cn');
  assert.equal(await byId(page, 'competitor-label-1').inputValue(), '对手乙');
  const texts = await byId(page, 'prompt-row').locator('.prompt-text').allTextContents();
  assert.deepEqual(texts, ['有哪些靠谱的 GEO 优化公司？', '元构场怎么样？', '问题一', '问题二', '问题三']);

  const db = await dumpDb(page);
  assert.equal(db.version, 4);
  assert.deepEqual(Object.keys(db.stores).sort(), ['linkChecks', 'probes', 'projects', 'prompts', 'runMetrics', 'runPages', 'runSummaries', 'runs', 'settings']);
  const [project] = db.stores.projects;
  assert.equal(project.name, '元构场监测');
  assert.equal(project.brand.kind, 'brand');
  assert.deepEqual(project.brand.domains, ['yuangouchang.com', 'yuangouchang.cn']);
  assert.deepEqual(project.competitors.map((c) => [c.kind, c.label, c.aliases, c.domains]), [
    ['competitor', '对手甲', ['对手甲', 'RivalA'], ['rival-a.com']],
    ['competitor', '对手乙', ['对手乙'], ['rival-b.cn']],
  ]);
  assert.equal(project.isDemo, false);
  assert.match(project.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const prompts = db.stores.prompts;
  assert.equal(prompts.length, 5);
  assert.ok(prompts.every((p) => p.projectId === project.id));
  const byText = Object.fromEntries(prompts.map((p) => [p.text, p.tags]));
  assert.deepEqual(byText['有哪些靠谱的 GEO 优化公司？'], ['generic', 'scenario']);
  assert.deepEqual(byText['元构场怎么样？'], ['brand']);
  assert.deepEqual(byText['问题二'], ['product']);
  assert.equal(await byId(page, 'project-select').inputValue(), project.id);

  const indexes = await dbIndexes(page);
  assert.deepEqual(indexes.projects, { keyPath: 'id', indexes: ['updatedAt'] });
  assert.deepEqual(indexes.prompts.indexes, ['createdAt', 'projectId', 'updatedAt']);
  assert.deepEqual(indexes.runs.indexes, ['createdAt', 'projectId', 'status']);
  assert.deepEqual(indexes.probes.indexes, ['createdAt', 'projectId', 'promptId', 'runId', 'status']);
  assert.deepEqual(indexes.settings, { keyPath: 'key', indexes: [] });
  assert.deepEqual(indexes.runSummaries, { keyPath: 'id', indexes: ['previousRunId', 'projectId'] });
  assert.deepEqual(indexes.runMetrics, { keyPath: 'runId', indexes: ['projectId'] });
  assert.deepEqual(indexes.linkChecks, { keyPath: 'runId', indexes: ['projectId'] });
  assert.deepEqual(indexes.runPages, { keyPath: 'id', indexes: ['projectId'] });
  assert.deepEqual(page.errors, []);
});

test('editing keeps ids; deleting asks first and cascades', async () => {
  const page = await freshPage(browser);
  await createProject(page);
  await byId(page, 'prompt-bulk').fill('甲\n乙');
  await byId(page, 'prompt-bulk-add').click();
  await until(async () => (await byId(page, 'prompt-row').count()) === 2, 5000, 'rows');
  const before = (await dumpDb(page)).stores.projects[0];

  await byId(page, 'competitor-label-0').fill('对手甲（新）');
  await byId(page, 'project-save').click();
  await until(async () => (await dumpDb(page)).stores.projects[0].competitors[0].label === '对手甲（新）', 5000, 'edit saved');
  const after = (await dumpDb(page)).stores.projects[0];
  assert.equal(after.id, before.id);
  assert.equal(after.competitors[0].id, before.competitors[0].id);
  assert.equal(after.createdAt, before.createdAt);

  // Cancel leaves everything; confirm deletes the project with its prompts.
  await byId(page, 'project-delete').click();
  await byId(page, 'confirm-cancel').click();
  assert.equal((await dumpDb(page)).stores.projects.length, 1);
  await byId(page, 'project-delete').click();
  await byId(page, 'confirm-ok').click();
  await byId(page, 'empty-state').waitFor();
  const db = await dumpDb(page);
  assert.equal(db.stores.projects.length, 0);
  assert.equal(db.stores.prompts.length, 0);
  assert.deepEqual(page.errors, []);
});

test('another tab sees a new project without reloading (BroadcastChannel)', async () => {
  const page = await freshPage(browser);
  const other = await page.context().newPage();
  await open(other, 'projects');
  await byId(other, 'empty-state').waitFor();
  await createProject(page);
  await until(async () => (await byId(other, 'project-row').count()) === 1, 5000, 'project in the other tab');
});

test('a new competitor row has the focus on its label before the browser runs its next task', async () => {
  // The focus moves in the effect that follows the render (the same scheduler pass), so a key
  // pressed right after the click lands in the new label. A timer that focused "later" fired
  // after the next task and, on a slow machine, after the user had moved to another field.
  const page = await freshPage(browser);
  await open(page, 'projects');
  await byId(page, 'empty-state').waitFor();
  await byId(page, 'project-new').click();
  await byId(page, 'brand-label').fill('元构场');
  for (const i of [0, 1]) {
    const focused = await page.evaluate(() => new Promise((resolve) => {
      document.querySelector('[data-testid="competitor-add"]').click();
      // The next task after the click's own: a timer set now runs before any set later.
      setTimeout(() => resolve(document.activeElement?.dataset?.testid ?? null), 0);
    }));
    assert.equal(focused, `competitor-label-${i}`);
  }
  assert.deepEqual(page.errors, []);
});
