// The IndexedDB upgrade path: a version-1 database with a record is upgraded through a
// test-only version-2 migration (a new index) and the record is still there, read via it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, freshPage } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('version 1 → 2 keeps the stored project', async () => {
  const page = await freshPage(browser);
  const result = await page.evaluate(async () => {
    const glue = document.querySelector('link[rel="modulepreload"]').href;
    const app = await import(glue);
    return app.migrationSelfTest('geo-probe-migration-check');
  });
  assert.equal(result.versionBefore, 1);
  assert.equal(result.versionAfter, 2);
  assert.equal(result.project.id, 'proj_migration');
  assert.deepEqual(result.project.brand.aliases, ['元构场', 'yuangouchang']);
  const refused = await page.evaluate(async () => {
    const app = await import(document.querySelector('link[rel="modulepreload"]').href);
    try { await app.migrationSelfTest('geo-probe'); return 'accepted'; } catch (e) { return String(e); }
  });
  assert.match(refused, /scratch database/);
  const names = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name).sort());
  assert.deepEqual(names, ['geo-probe'], 'the scratch database was deleted');
});
