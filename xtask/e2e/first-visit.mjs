// A first visit and a return visit of the site, as issue 39 measures them; run by
// `cargo xtask bench-first-visit`, which builds the site, serves it gzip-encoded with GitHub
// Pages' caching (`max-age=600` and validators), runs this script and prints the figures from
// what it writes to `$OUT`. Not a test: it asserts nothing, the figures are the result.
//
// Each round is a fresh browser context (empty HTTP cache, empty storage) under the network
// emulation of `NETWORK` (CDP `Network.emulateNetworkConditions`: 5 Mbps down, 1 Mbps up,
// 150 ms latency), HTTP cache on. It loads the site and records, on the page's own clock
// (0 = navigation start):
// - `figure`: when the dashboard's `metric-mention-rate` first carries its `data-value` (a
//   MutationObserver set before the page's own scripts);
// - `responses`: every response's URL, bytes on the wire (`Network.loadingFinished`'s
//   `encodedDataLength`: headers and the gzip body) and when it finished, moved onto the
//   page's clock through the request's `wallTime`;
// - `wasm`: the module's Resource Timing (request start, response end, bytes);
// - the app's User Timing: the marks `geo:start` (module instantiated) and `geo:first-render`,
//   the measures `geo:first-view` (the demo's first view fetched and checked), `geo:demo-fetch`
//   (after the figure on a page that names the demo's fingerprint, ADR 0024; before it on one
//   that does not), `geo:demo-parse`, `-analyse`, `-write`;
// then, once the header is ready, navigates the same page to the site again: the return
// visit (HTTP cache warm, IndexedDB filled), recorded the same way.
import { writeFileSync } from 'node:fs';
import { launch, BASE_URL } from './helpers.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const OUT = process.env.OUT;
/** Bytes per second: 5 Mbps down, 1 Mbps up. */
const NETWORK = { offline: false, latency: 150, downloadThroughput: 625000, uploadThroughput: 125000 };
/** How long one visit may take before the bench gives up (a broken build never shows the figure). */
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_MS ?? 600000);
const MEASURES = ['geo:demo-fetch', 'geo:first-view', 'geo:demo-parse', 'geo:demo-analyse', 'geo:demo-write'];
const MARKS = ['geo:start', 'geo:first-render'];

/** In every document, before its scripts: the moment the first figure carries its value. */
const WATCH = () => {
  const shown = () => {
    const el = document.querySelector('[data-testid="metric-mention-rate"]');
    return Boolean(el && el.dataset.value);
  };
  const observer = new MutationObserver(() => {
    if (window.__geoFigureAt === undefined && shown()) {
      window.__geoFigureAt = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-value'] });
};

/** The responses of `cdp`'s page as they finish, with their wall-clock end (ms since the epoch). */
function recorder(cdp) {
  const requests = new Map();
  let finished = [];
  cdp.on('Network.requestWillBeSent', (e) => {
    requests.set(e.requestId, { url: e.request.url, offset: e.wallTime * 1000 - e.timestamp * 1000 });
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = requests.get(e.requestId);
    if (!r) return;
    finished.push({ url: r.url, bytes: e.encodedDataLength, endWall: e.timestamp * 1000 + r.offset });
  });
  return {
    /** What finished since the last call. */
    take() {
      const out = finished;
      finished = [];
      return out;
    },
  };
}

/** The page's own figures of the visit that has just shown the figure. */
function pageFigures(args) {
  const [marks, measures] = args;
  const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'));
  const at = (name) => performance.getEntriesByName(name, 'mark')[0]?.startTime ?? null;
  const span = (name) => {
    const m = performance.getEntriesByName(name, 'measure')[0];
    return m ? [m.startTime, m.startTime + m.duration] : null;
  };
  return {
    figure: window.__geoFigureAt,
    timeOrigin: performance.timeOrigin,
    wasm: wasm ? { start: wasm.startTime, end: wasm.responseEnd, encoded: wasm.encodedBodySize, transfer: wasm.transferSize } : null,
    marks: Object.fromEntries(marks.map((n) => [n, at(n)])),
    measures: Object.fromEntries(measures.map((n) => [n, span(n)])),
  };
}

/** Loads the site in `page` until the figure shows; the visit's figures. */
async function visit(page, rec) {
  rec.take();
  page.errors = [];
  await page.goto(BASE_URL, { waitUntil: 'commit', timeout: DEADLINE_MS });
  await page.waitForFunction(() => window.__geoFigureAt !== undefined, null, { polling: 50, timeout: DEADLINE_MS });
  // Let the app finish what it does after the figure (on a first visit, seeding the demo
  // behind its first view) before its figures are read and the page is left.
  await page.waitForFunction(() => document.querySelector('[data-testid="app-header"]')?.dataset.state === 'ready', null,
    { timeout: DEADLINE_MS });
  const figures = await page.evaluate(pageFigures, [MARKS, MEASURES]);
  const responses = rec.take().map((r) => ({ url: r.url, bytes: r.bytes, end: r.endWall - figures.timeOrigin }));
  return { ...figures, responses, errors: page.errors };
}

const browser = await launch();
const rounds = [];
try {
  for (let i = 1; i <= ROUNDS; i++) {
    const context = await browser.newContext();
    context.setDefaultTimeout(DEADLINE_MS);
    await context.addInitScript(WATCH);
    const page = await context.newPage();
    page.on('pageerror', (e) => page.errors.push(String(e)));
    const cdp = await context.newCDPSession(page);
    const rec = recorder(cdp);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: false });
    await cdp.send('Network.emulateNetworkConditions', NETWORK);
    const first = await visit(page, rec);
    const again = await visit(page, rec);
    rounds.push({ first, again });
    console.error(`first-visit: round ${i} of ${ROUNDS}: first visit ${Math.round(first.figure)} ms, return ${Math.round(again.figure)} ms`);
    await context.close();
  }
} finally {
  await browser.close();
}
const result = { network: NETWORK, rounds };
if (OUT) writeFileSync(OUT, JSON.stringify(result, null, 1));
else console.log(JSON.stringify(result));
