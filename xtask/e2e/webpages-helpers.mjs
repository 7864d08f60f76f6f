// A deterministic generator of large exports for the page tests (the shape of
// crates/geo-core/benches/metrics.rs: tracked targets named in ~600-character answers,
// parsed lists, two searches of five results each over a skewed pool of domains, 1 probe
// in 20 failed), written straight as the export JSON of data-model.md with the derived
// fields filled in, so importing it costs no analysis. Plus import and selection helpers.
import { byId, open, until } from './helpers.mjs';

export const PROJECT = 'proj_perf';
export const PREV_RUN = 'run_perf_prev';
export const BIG_RUN = 'run_perf_big';
const AT = (day, s = 0) => new Date(Date.UTC(2026, 10, day, 8, 0, s)).toISOString();
const NAMES = ['Acme', 'Beta', 'Gamma', 'Delta', 'Epsilon'];
const UNTRACKED = ['Zeta', 'Eta', 'Theta', 'Iota', 'Kappa', 'Lambda'];
const TAGS = ['generic', 'brand', 'product', 'competitor', 'scenario'];
const CHANNELS = ['news', 'qa', 'encyclopedia', 'blog', 'tech_community', 'media_platform', 'forum', 'review'];

/** A small deterministic generator (mulberry32), so every test run sees the same data. */
function lcg(seed) {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
}

const targets = NAMES.map((n, i) => ({
  id: n.toLowerCase(), kind: i === 0 ? 'brand' : 'competitor', label: n, aliases: [n], domains: [`${n.toLowerCase()}.com`],
}));

function source(next, domainPool) {
  // Skewed: low indexes are drawn far more often, so a few domains recur in many probes.
  const r = next(1_000_000) / 1_000_000;
  const k = Math.floor(domainPool * r * r * r);
  if (k < NAMES.length && next(3) === 0) {
    const t = targets[k];
    return { domain: t.domains[0], ownership: k === 0 ? 'owned' : 'competitor', competitorId: k === 0 ? undefined : t.id, channel: 'official', k };
  }
  return { domain: `site${k}.com`, ownership: 'third_party', channel: CHANNELS[k % CHANNELS.length], k };
}

function probe(next, run, prompt, rep, domainPool) {
  const base = {
    id: `${run.id}__${prompt.id}__${rep}`, runId: run.id, projectId: PROJECT, promptId: prompt.id, repeatIndex: rep,
    createdAt: AT(run.day, rep % 60), model: run.config.model, attempts: 1, latencyMs: 800 + next(4000),
    usage: { inputTokens: 1200, outputTokens: 600, cacheReadInputTokens: 0, webSearchRequests: 2 },
  };
  if (next(20) === 0) {
    return { ...base, status: 'error', error: { kind: 'server', httpStatus: 500, message: 'overloaded' }, rawAnswer: '' };
  }
  let answer = '';
  const order = [];
  const first = new Map();
  for (let s = 0; s < 12; s++) {
    const t = next(8);
    if (t < NAMES.length) {
      if (!order.includes(t)) { order.push(t); first.set(t, answer.length); }
      answer += `${NAMES[t]} 是一个值得考虑的选择，适合中小企业的内容优化需求`;
    } else {
      answer += `第 ${s} 点：生成式搜索引擎优化需要关注来源质量与回答结构`;
    }
    answer += s % 3 === 2 ? '。\n' : '。';
  }
  answer = `${prompt.text}（第 ${rep + 1} 次）：${answer}`;
  // A list of five: tracked targets in mention order, then untracked names.
  const titles = [...order.map((t) => NAMES[t]), ...UNTRACKED.slice(next(3), next(3) + 6)].slice(0, 5);
  const listItems = titles.map((title, i) => {
    const t = NAMES.indexOf(title);
    return { position: i + 1, title, text: `${title}：适合中小企业`, ...(t >= 0 ? { matchedTargetId: targets[t].id } : {}) };
  });
  const mentions = order.map((t, i) => {
    const pos = titles.indexOf(NAMES[t]);
    return {
      targetId: targets[t].id, count: 1, order: i + 1, firstIndex: first.get(t), context: `${NAMES[t]} 是一个值得考虑的选择`,
      matchedAliases: [NAMES[t]], ...(pos >= 0 ? { listPosition: pos + 1 } : {}),
    };
  });
  const queries = [1, 2].map((index) => ({ index, query: `${prompt.text} 推荐 ${index}`, internal: false }));
  const rawSources = [];
  const byUrl = new Map();
  for (const q of queries) {
    for (let rank = 1; rank <= 5; rank++) {
      const s = source(next, domainPool);
      const url = `https://www.${s.domain}/a/${next(12)}`;
      const title = `${s.domain} 文章 ${url.split('/').pop()}`;
      rawSources.push({ queryIndex: q.index, rank, title, url });
      const occ = { queryIndex: q.index, query: q.query, rank };
      const have = byUrl.get(url);
      if (have) { have.occurrences.push(occ); have.bestRank = Math.min(have.bestRank, rank); continue; }
      byUrl.set(url, {
        url, host: `www.${s.domain}`, domain: s.domain, title, platform: s.domain, channel: s.channel, ownership: s.ownership,
        ...(s.competitorId ? { competitorId: s.competitorId } : {}), occurrences: [occ], bestRank: rank, titleMentions: [],
      });
    }
  }
  const sources = [...byUrl.values()].sort((a, b) => a.bestRank - b.bestRank || a.url.localeCompare(b.url))
    .map((s, i) => ({ id: `src_${i + 1}`, ...s }));
  const linked = sources[0].url;
  const answerLinks = [
    { url: linked, canonicalUrl: linked, domain: sources[0].domain, text: '来源', inSources: true },
    { url: 'https://elsewhere.example.org/x', canonicalUrl: 'https://elsewhere.example.org/x', domain: 'example.org', inSources: false },
  ];
  return {
    ...base, status: 'success', stopReason: 'end_turn', rawAnswer: answer, queries, rawSources, answer, sources, mentions,
    listItems, otherEntities: titles.filter((t) => !NAMES.includes(t)), answerLinks,
  };
}

/** An export of one project with a previous run (`prevRepeats` per prompt) and a big run
 * (`repeats` per prompt), over `prompts` prompts; returns the envelope and its composition. */
export function bigExport({ prompts = 50, repeats = 100, prevRepeats = 2, domainPool = 400, seed = 42 } = {}) {
  const now = AT(1);
  const promptList = Array.from({ length: prompts }, (_, i) => ({
    id: `prm_${String(i).padStart(3, '0')}`, projectId: PROJECT, text: `问题 ${i}：哪家 GEO 服务商值得选？`,
    tags: [TAGS[i % TAGS.length]], createdAt: now, updatedAt: now,
  }));
  const config = (r) => ({ model: 'deepseek-v4-flash', repeats: r, concurrency: 3, maxSearches: 5, maxTokens: 3000, temperature: 1, systemPromptVersion: 'neutral-zh-v1' });
  const run = (id, day, r, previousRunId) => ({
    id, projectId: PROJECT, status: 'completed', createdAt: AT(day), finishedAt: AT(day, 59), ...(previousRunId ? { previousRunId } : {}),
    appVersion: '0.1.0', schemaVersion: 1, config: config(r), aliasSnapshot: targets, promptSnapshot: promptList, plannedProbeCount: prompts * r,
  });
  const runs = [run(PREV_RUN, 1, prevRepeats), run(BIG_RUN, 2, repeats, PREV_RUN)];
  const next = lcg(seed);
  const probes = [];
  for (const [r, n] of [[runs[0], prevRepeats], [runs[1], repeats]]) {
    const meta = { ...r, day: r === runs[0] ? 1 : 2 };
    for (const p of promptList) for (let rep = 0; rep < n; rep++) probes.push(probe(next, meta, p, rep, domainPool));
  }
  const env = {
    format: 'geo-probe-export', version: 1, exportedAt: AT(3), appVersion: '0.1.0',
    projects: [{ id: PROJECT, name: '性能测试项目', brand: targets[0], competitors: targets.slice(1), isDemo: false, createdAt: now, updatedAt: now }],
    prompts: promptList, runs, probes,
  };
  const big = probes.filter((p) => p.runId === BIG_RUN);
  const composition = {
    prompts, repeats, prevRepeats, probes: big.length, successes: big.filter((p) => p.status === 'success').length,
    domains: new Set(big.flatMap((p) => (p.sources ?? []).map((s) => s.domain))).size,
    sources: big.reduce((n, p) => n + (p.sources?.length ?? 0), 0), prevProbes: probes.length - big.length,
    prevSuccesses: probes.filter((p) => p.runId === PREV_RUN && p.status === 'success').length,
  };
  return { env, composition };
}

/** Imports `text` in settings and waits for the result line. */
export async function importText(page, text, name = 'export.json') {
  await open(page, 'settings');
  await byId(page, 'settings-import-file').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  await page.locator('[data-testid="import-result"][data-status="ok"]').waitFor({ timeout: 120000 });
}

/** Selects the project and run in the header. */
export async function selectRun(page, runId, project = PROJECT) {
  await until(async () => (await byId(page, 'project-select').locator(`option[value="${project}"]`).count()) > 0, 10000, 'project option');
  await byId(page, 'project-select').selectOption(project);
  await until(async () => (await byId(page, 'run-select').locator(`option[value="${runId}"]`).count()) > 0, 10000, 'run option');
  await byId(page, 'run-select').selectOption(runId);
}

/** The pager of list `scope` (`probes`, `domains`, `urls`, `lists`) and its status. */
export const pager = (page, scope) => page.locator(`[data-testid="pager"][data-pager="${scope}"]`);
export async function pagerStatus(page, scope) {
  const s = pager(page, scope).getByTestId('pager-status');
  return { start: Number(await s.getAttribute('data-start')), end: Number(await s.getAttribute('data-end')), total: Number(await s.getAttribute('data-total')) };
}

/** The history of a project monitored daily: `runs` runs on consecutive days (each the
 * previous run of the next), `prompts` prompts × `repeats` repeats each; returns the
 * envelope, the newest run's id and its success count. */
export function historyExport({ runs = 365, prompts = 10, repeats = 5, domainPool = 200, seed = 7 } = {}) {
  const now = AT(1);
  const promptList = Array.from({ length: prompts }, (_, i) => ({
    id: `prm_${String(i).padStart(3, '0')}`, projectId: PROJECT, text: `问题 ${i}：哪家 GEO 服务商值得选？`,
    tags: [TAGS[i % TAGS.length]], createdAt: now, updatedAt: now,
  }));
  const config = { model: 'deepseek-v4-flash', repeats, concurrency: 3, maxSearches: 5, maxTokens: 3000, temperature: 1, systemPromptVersion: 'neutral-zh-v1' };
  const next = lcg(seed);
  const runList = [];
  const probes = [];
  for (let d = 0; d < runs; d++) {
    const id = `run_day_${String(d).padStart(3, '0')}`;
    const run = {
      id, projectId: PROJECT, status: 'completed', createdAt: AT(1 + d), finishedAt: AT(1 + d, 59),
      ...(d > 0 ? { previousRunId: runList[d - 1].id } : {}),
      appVersion: '0.1.0', schemaVersion: 1, config, aliasSnapshot: targets, promptSnapshot: promptList, plannedProbeCount: prompts * repeats,
    };
    runList.push(run);
    const meta = { ...run, day: 1 + d };
    for (const p of promptList) for (let rep = 0; rep < repeats; rep++) probes.push(probe(next, meta, p, rep, domainPool));
  }
  const newest = runList[runList.length - 1].id;
  const env = {
    format: 'geo-probe-export', version: 1, exportedAt: AT(runs + 2), appVersion: '0.1.0',
    projects: [{ id: PROJECT, name: '每日监测项目', brand: targets[0], competitors: targets.slice(1), isDemo: false, createdAt: now, updatedAt: now }],
    prompts: promptList, runs: runList, probes,
  };
  const successes = probes.filter((p) => p.runId === newest && p.status === 'success').length;
  return { env, newest, successes, probes: probes.length };
}
