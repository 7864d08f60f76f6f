// The lists page (issue 12): every item of every parsed list shows its number, the
// highlighted brand and competitor items too (the header's `.brand` rule once turned the
// brand's item into a flex box and its "1." disappeared).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, freshPage } from './helpers.mjs';
import { PAGES, demoSeeded, openPage } from './a11y-helpers.mjs';

const browser = fileBrowser();

test('every list item shows its position, tracked and brand items included', async () => {
  const page = await freshPage(browser, '', { demo: true });
  await demoSeeded(page);
  await openPage(page, PAGES.find((p) => p.name === 'lists'));
  const rows = await page.locator('[data-testid="list-row"]').evaluateAll((els) => els.map((el) => {
    const rank = el.querySelector('.rank');
    const r = rank?.getBoundingClientRect();
    return {
      position: el.dataset.position,
      target: el.dataset.target,
      text: el.innerText.trim(),
      shown: !!r && r.width > 0 && r.height > 0 && getComputedStyle(rank).visibility === 'visible',
    };
  }));
  assert.ok(rows.length > 10, `${rows.length} rows`);
  const brand = rows.filter((r) => r.target === 'tgt_demo_yuangouchang');
  const competitors = rows.filter((r) => r.target && r.target !== 'tgt_demo_yuangouchang');
  assert.ok(brand.length > 0 && competitors.length > 0, 'brand and competitor items are highlighted');
  for (const r of rows) {
    assert.ok(r.text.startsWith(`${r.position}.`), `"${r.text}" starts with ${r.position}.`);
    assert.ok(r.shown, `the number of "${r.text}" is visible`);
  }
  assert.deepEqual(page.errors, []);
});
