// Accessibility (issue 12). axe-core (npm, pinned in package-lock.json) runs inside the page
// on every page of the app, in Chinese and in English, with the demo project's data shown,
// with the probe drawer open and with a confirmation dialog open: no violation of impact
// `serious` or `critical` (contrast, labels, names of buttons and links, headings,
// landmarks, ARIA). Then the keyboard: a sensible Tab order with a visible focus ring,
// Enter activates, Escape closes the drawer and the confirm dialog and gives the focus back
// to what opened them; `<html lang>` and `lang-toggle`'s `data-value` follow the language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, freshPage, byId, open, until, headerReady } from './helpers.mjs';
import { PAGES, DEMO, demoSeeded, openPage, setLang, axeViolations } from './a11y-helpers.mjs';

const browser = fileBrowser();

test('axe: no serious or critical violation on any page, in Chinese and English, drawer and dialog open', async () => {
  const page = await freshPage(browser, '', { demo: true });
  await demoSeeded(page);
  const found = [];
  for (const lang of ['zh', 'en']) {
    await setLang(page, lang);
    assert.equal(await page.locator('html').getAttribute('lang'), lang);
    assert.equal(await byId(page, 'lang-toggle').getAttribute('data-value'), lang);
    for (const p of PAGES) {
      await openPage(page, p);
      for (const v of await axeViolations(page)) found.push(`${lang} ${p.name}: ${v}`);
    }
    await openPage(page, PAGES.find((p) => p.name === 'run-detail'));
    await byId(page, 'probe-open').first().click();
    await byId(page, 'probe-drawer').waitFor();
    for (const v of await axeViolations(page)) found.push(`${lang} drawer: ${v}`);
    await page.keyboard.press('Escape');
    await byId(page, 'probe-drawer').waitFor({ state: 'detached' });

    await openPage(page, PAGES.find((p) => p.name === 'projects'));
    await page.locator(`[data-testid="project-delete"][data-id="${DEMO}"]`).click();
    await byId(page, 'confirm-dialog').waitFor();
    for (const v of await axeViolations(page)) found.push(`${lang} confirm dialog: ${v}`);
    await byId(page, 'confirm-cancel').click();
    await byId(page, 'confirm-dialog').waitFor({ state: 'detached' });
  }
  assert.deepEqual(found, []);
  assert.deepEqual(page.errors, []);
});

/** What has the focus: its test id, tag and whether a focus ring is drawn around it. */
const focused = (page) => page.evaluate(() => {
  const el = document.activeElement;
  const s = el ? getComputedStyle(el) : null;
  return {
    testid: el?.dataset?.testid ?? null,
    tag: el?.tagName.toLowerCase() ?? null,
    cls: el?.className ?? '',
    ring: !!s && s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2,
  };
});

/** The first `n` Tab stops from the top of the page, each checked for a focus ring. */
async function tabStops(page, n) {
  const order = [];
  for (let i = 0; i < n; i++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    assert.ok(f.ring, `tab stop ${i + 1} (${f.testid ?? f.tag}.${f.cls}) shows a focus ring`);
    order.push(f.testid ?? (f.cls.includes('skip') ? 'skip' : f.tag));
  }
  return order;
}

const TAB_ORDER = ['skip', 'project-select', 'run-select', 'lang-toggle', 'nav-dashboard', 'nav-projects', 'nav-run',
  'nav-runs', 'nav-engines', 'nav-sources', 'nav-actions', 'nav-claims', 'nav-lists', 'nav-export', 'nav-settings', 'nav-chat'];

test('keyboard: Tab order, visible focus ring, Enter activates', async () => {
  const page = await freshPage(browser, '', { demo: true });
  await demoSeeded(page);
  await open(page, '');
  // The header's lists are read anew on every page load: tab once they are on screen.
  await headerReady(page);
  assert.deepEqual(await tabStops(page, TAB_ORDER.length), TAB_ORDER);
  // The skip link goes to the page's content.
  for (let i = 0; i < TAB_ORDER.length - 1; i++) await page.keyboard.press('Shift+Tab');
  assert.equal((await focused(page)).cls, 'skip');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');

  // Enter on a navigation link opens its page; Enter on a button presses it.
  await byId(page, 'nav-projects').focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/projects$/);
  await byId(page, 'project-new').focus();
  await page.keyboard.press('Enter');
  await byId(page, 'project-name').waitFor();
  await until(async () => (await byId(page, 'project-name').inputValue()) === '', 3000, 'an empty draft');
  // The language toggle by keyboard.
  await byId(page, 'lang-toggle').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await byId(page, 'lang-toggle').getAttribute('data-value'), 'en');
  assert.deepEqual(page.errors, []);
});

test('keyboard: the header keeps its Tab order while storage and the demo data arrive late', async () => {
  // Storage and the demo file are held back, as on a cold, busy machine: the header's selects
  // are loading, and say so, but stay in the Tab order.
  const page = await freshPage(browser, '', { demo: true, hold: true });
  const header = byId(page, 'app-header');
  assert.equal(await header.getAttribute('data-state'), 'loading');
  for (const id of ['project-select', 'run-select']) {
    const select = byId(page, id);
    assert.equal(await select.getAttribute('aria-busy'), 'true', `${id} says it is loading`);
    assert.equal(await select.getAttribute('aria-disabled'), 'true', `${id} cannot be used yet`);
    assert.equal(await select.evaluate((el) => el.disabled), false, `${id} is not taken out of the Tab order`);
  }
  assert.deepEqual(await tabStops(page, 4), TAB_ORDER.slice(0, 4), 'the loading header in Tab order');
  // The data arrives while the focus is in the header; the same Tab order once it is settled.
  await page.release();
  await demoSeeded(page);
  for (const id of ['project-select', 'run-select']) {
    assert.equal(await byId(page, id).getAttribute('aria-busy'), null, `${id} is no longer busy`);
    assert.equal(await byId(page, id).getAttribute('aria-disabled'), null, `${id} can be used`);
  }
  for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+Tab');
  assert.equal((await focused(page)).cls, 'skip', 'back at the skip link');
  assert.deepEqual(await tabStops(page, TAB_ORDER.length - 1), TAB_ORDER.slice(1));
  assert.deepEqual(page.errors, []);
});

test('keyboard: the drawer and the confirm dialog close with Escape and give the focus back', async () => {
  const page = await freshPage(browser, '', { demo: true });
  await demoSeeded(page);
  await openPage(page, PAGES.find((p) => p.name === 'run-detail'));
  const opener = byId(page, 'probe-open').nth(2);
  const probeId = await opener.getAttribute('data-open-probe');
  await opener.focus();
  await page.keyboard.press('Enter');
  const drawer = page.locator(`[data-testid="probe-drawer"][data-id="${probeId}"]`);
  await drawer.waitFor();
  assert.equal((await focused(page)).testid, 'probe-drawer-close', 'focus moves into the drawer');
  // The page behind is inert: Tab stays in the drawer.
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press('Tab');
    assert.ok(await page.evaluate(() => !!document.activeElement?.closest('[data-testid="probe-drawer"]')), `tab ${i + 1} stays in the drawer`);
  }
  await page.keyboard.press('Escape');
  await drawer.waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.openProbe), probeId, 'focus back on the opener');
  // Enter on the close button closes it too.
  await page.keyboard.press('Enter');
  await drawer.waitFor();
  await page.keyboard.press('Enter');
  await drawer.waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.openProbe), probeId);

  await open(page, 'projects');
  const del = page.locator(`[data-testid="project-delete"][data-id="${DEMO}"]`);
  await del.focus();
  await page.keyboard.press('Enter');
  await byId(page, 'confirm-dialog').waitFor();
  assert.equal((await focused(page)).testid, 'confirm-cancel', 'the safe choice has the focus');
  await page.keyboard.press('Escape');
  await byId(page, 'confirm-dialog').waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'project-delete');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.id), DEMO);
  assert.equal(await page.locator('[data-testid="project-row"]').count(), 1, 'nothing was deleted');
  assert.deepEqual(page.errors, []);
});
