// Small and large screens (issue 12): at 390 px (a phone) and 1400 px no page of the app
// scrolls sideways; wide tables scroll inside their own card, the navigation scrolls by
// itself, and the probe drawer fits the screen. Every page is checked with the demo
// project's data on it, in Chinese and in English (English labels are longer). At 390 px
// axe-core runs on every page too: a table that scrolls sideways there must be reachable by
// keyboard (axe's `scrollable-region-focusable`), which it is not at 1400 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, freshPage, byId } from './helpers.mjs';
import { PAGES, axeViolations, demoSeeded, openPage, setLang, horizontalOverflow } from './a11y-helpers.mjs';

const browser = fileBrowser();

for (const width of [390, 1400]) {
  test(`no page scrolls sideways at ${width} px; the drawer fits`, async () => {
    const page = await freshPage(browser, '', { demo: true, viewport: { width, height: 860 } });
    await demoSeeded(page);
    const problems = [];
    for (const lang of ['zh', 'en']) {
      await setLang(page, lang);
      for (const p of PAGES) {
        await openPage(page, p);
        const o = await horizontalOverflow(page);
        if (o.over > 0) problems.push(`${lang} ${p.name}: ${o.over} px too wide (${o.offenders.join('; ')})`);
        if (width === 390) for (const v of await axeViolations(page)) problems.push(`${lang} ${p.name} at 390 px: ${v}`);
      }
      // The navigation keeps to the screen's width and scrolls by itself.
      const nav = await page.locator('nav.nav').evaluate((n) => ({ width: n.getBoundingClientRect().width, scroll: n.scrollWidth }));
      assert.ok(nav.width <= width, `${lang}: the navigation is ${nav.width} px wide`);

      // The probe drawer of a run's probe fits the screen and does not widen the page.
      await openPage(page, PAGES.find((p) => p.name === 'run-detail'));
      await byId(page, 'probe-open').first().click();
      const drawer = byId(page, 'probe-drawer');
      await drawer.waitFor();
      const box = await drawer.boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= width + 0.5, `${lang}: drawer at ${box.x}..${box.x + box.width} of ${width}`);
      const inside = await drawer.evaluate((d) => d.scrollWidth - d.clientWidth);
      if (inside > 0) problems.push(`${lang} drawer: its content is ${inside} px wider than the drawer`);
      const o = await horizontalOverflow(page);
      if (o.over > 0) problems.push(`${lang} drawer open: ${o.over} px too wide`);
      await page.keyboard.press('Escape');
      await drawer.waitFor({ state: 'detached' });
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(page.errors, []);
  });
}
