// XSS: an imported export whose probes carry hostile answers. Every probe drawer must render
// the answer as inert, sanitised Markdown: no dialog, no injected element or handler, no
// javascript:/data: link, no request to the attacker's host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileBrowser, freshPage, open, byId, until } from './helpers.mjs';
import { fixtureProject, importEnvelope } from './run-helpers.mjs';

const browser = fileBrowser();

const EVIL = 'http://evil.invalid';
const PAYLOADS = [
  '<script>alert(1)</script>',
  '<script>window.__xss=1</script>',
  `<img src=x onerror="window.__xss=1;alert(1)">`,
  `<img src="${EVIL}/a.png">`,
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<iframe src="javascript:alert(1)"></iframe>',
  `<iframe srcdoc="<script>alert(1)</script>"></iframe>`,
  '[click](javascript:alert(1))',
  '[click](JAVASCRIPT:alert(1))',
  '[click](  javascript:alert(1))',
  '[click](java\tscript:alert(1))',
  '[click](jav&#x61;script:alert(1))',
  '[click](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;:alert(1))',
  '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[click](vbscript:msgbox(1))',
  '<javascript:alert(1)>',
  '<data:text/html,<script>alert(1)</script>>',
  `![x](${EVIL}/track.png)`,
  '![x](javascript:alert(1))',
  '![x"onerror="alert(1)](x)',
  '<a href="javascript:alert(1)">a</a>',
  '<a href="#" onclick="alert(1)">a</a>',
  '<div style="background:url(javascript:alert(1))">styled</div>',
  '<p style="position:fixed;inset:0" onmouseover="alert(1)">cover</p>',
  '<!-- <script>alert(1)</script> -->',
  '<!--><img src=x onerror=alert(1)>-->',
  '[[a](javascript:alert(1))](https://ok.example)',
  '[a]: javascript:alert(1)\n\nsee [a]',
  '[a][b]\n\n[b]: data:text/html,<script>alert(1)</script>',
  '&lt;script&gt;alert(1)&lt;/script&gt; and &#60;img src=x onerror=alert(1)&#62;',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<object data="javascript:alert(1)"></object><embed src="javascript:alert(1)">',
  '<form action="javascript:alert(1)"><button>go</button></form>',
  '<base href="javascript:alert(1)//">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '```html\n<script>alert(1)</script>\n```',
  '`<img src=x onerror=alert(1)>`',
  '<details open ontoggle=alert(1)>',
  '[ok](https://example.com/"onmouseover="alert(1))',
  '<https://example.com/" onmouseover="alert(1)>',
  '| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | [x](javascript:alert(1)) |',
];

function envelope() {
  const env = fixtureProject();
  const project = env.projects[0];
  const prompt = { ...env.prompts[0] };
  const runId = 'run_xss';
  const run = {
    id: runId, projectId: project.id, status: 'completed', createdAt: '2026-11-29T09:00:00.000Z',
    finishedAt: '2026-11-29T09:10:00.000Z', appVersion: '0.1.0', schemaVersion: 1,
    config: { model: 'deepseek-v4-flash', repeats: PAYLOADS.length, concurrency: 3, maxSearches: 5, maxTokens: 3000, temperature: 1, systemPromptVersion: 'neutral-zh-v1' },
    aliasSnapshot: [project.brand, ...project.competitors], promptSnapshot: [prompt], plannedProbeCount: PAYLOADS.length,
  };
  const probes = PAYLOADS.map((payload, i) => ({
    id: `${runId}__${prompt.id}__${i}`, runId, projectId: project.id, promptId: prompt.id, repeatIndex: i,
    status: 'success', createdAt: '2026-11-29T09:00:01.000Z', model: 'deepseek-v4-flash', attempts: 1, latencyMs: 100,
    rawAnswer: `第 ${i} 条：\n\n${payload}\n\n元构场 ${payload}`, answer: `第 ${i} 条：\n\n${payload}\n\n元构场 ${payload}`,
    sources: [{ id: `s${i}`, url: i % 2 ? 'javascript:alert(1)' : 'https://example.com/a', host: 'example.com', domain: 'example.com',
      title: payload, platform: 'x', channel: 'other', ownership: 'third_party', occurrences: [{ queryIndex: 0, rank: 1 }], bestRank: 1, titleMentions: [] }],
    answerLinks: [{ url: i % 2 ? 'data:text/html,<script>alert(1)</script>' : 'https://example.com/b', canonicalUrl: 'x', domain: 'example.com', text: payload, inSources: false }],
    queries: [{ index: 0, query: payload, internal: false, error: payload }],
  }));
  return { ...env, prompts: [prompt], runs: [run], probes };
}

test('at least 30 hostile answers render inert in the probe drawer', async () => {
  assert.ok(PAYLOADS.length >= 30);
  const page = await freshPage(browser);
  const dialogs = [];
  page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  const evilRequests = [];
  page.on('request', (r) => { if (/evil\.invalid|^javascript:|^data:text/.test(r.url())) evilRequests.push(r.url()); });
  const env = envelope();
  await importEnvelope(page, env);
  await open(page, 'runs/run_xss');
  await until(async () => (await byId(page, 'probe-row').count()) === PAYLOADS.length, 10000, 'all rows');

  for (const probe of env.probes) {
    await page.locator(`[data-testid="probe-open"][data-open-probe="${probe.id}"]`).click();
    const drawer = page.locator(`[data-testid="probe-drawer"][data-id="${probe.id}"]`);
    await drawer.waitFor();
    await until(async () => (await byId(page, 'probe-answer').innerHTML()).length > 0, 3000, 'answer rendered');
    const report = await page.evaluate(() => {
      const drawer = document.querySelector('[data-testid="probe-drawer"]');
      const answer = drawer.querySelector('[data-testid="probe-answer"]');
      const bad = [];
      const forbidden = 'script,img,svg,iframe,object,embed,style,link,meta,form,input,button,video,audio,math,base,details,frame,frameset,source,picture';
      for (const el of answer.querySelectorAll(forbidden)) bad.push(`element ${el.tagName}`);
      for (const el of drawer.querySelectorAll('*')) {
        for (const a of el.attributes) {
          if (/^on/i.test(a.name)) bad.push(`handler ${a.name} on ${el.tagName}`);
          if ((a.name === 'href' || a.name === 'src' || a.name === 'action' || a.name === 'data') && /^\s*(javascript|data|vbscript):/i.test(a.value)) bad.push(`${a.name}=${a.value}`);
        }
        if (el.closest('[data-testid="probe-answer"]') && el.hasAttribute('style')) bad.push(`style on ${el.tagName}`);
      }
      for (const a of answer.querySelectorAll('a')) {
        if (!/^(https?:|mailto:)/i.test(a.getAttribute('href') ?? '')) bad.push(`link ${a.getAttribute('href')}`);
        if (a.getAttribute('rel') !== 'noopener noreferrer nofollow' || a.getAttribute('target') !== '_blank') bad.push('link without rel/target');
      }
      return { bad, xss: window.__xss ?? null };
    });
    assert.deepEqual(report.bad, [], `probe ${probe.id}: ${probe.rawAnswer}`);
    assert.equal(report.xss, null, `script ran for ${probe.id}`);
    await page.keyboard.press('Escape');
    await until(async () => (await byId(page, 'probe-drawer').count()) === 0, 3000, 'drawer closed');
  }
  // No element of the payloads made it into the drawer (checked above for every probe), so
  // nothing is left to fire later; one more rendered frame lets a stray event arrive.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  assert.deepEqual(dialogs, [], 'no dialog fired');
  assert.deepEqual(evilRequests, [], 'nothing fetched from the attacker');
  // The text of the payloads is shown, escaped, not dropped.
  await page.locator(`[data-testid="probe-open"][data-open-probe="${env.probes[0].id}"]`).click();
  assert.match(await byId(page, 'probe-answer').innerText(), /<script>alert\(1\)<\/script>/);
});
