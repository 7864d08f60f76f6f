//! Interface text: `t(lang, key)` over one table, Chinese first, English beside it.
//!
//! Keys are dotted (`nav.projects`). An unknown key renders as itself, so a typo shows on
//! screen instead of panicking; the tidy test below checks that every `t(…, "key")` in the
//! sources has a row here, and that no row is defined twice.

use geo_core::model::Lang;
use geo_core::text::packed::{fields, pack, packed_len};

/// `(key, zh, en)` rows.
const TABLE: &[(&str, &str, &str)] = &[
    ("app.title", "GEO 探针", "GEO Probe"),
    ("app.skip", "跳到正文", "Skip to content"),
    ("app.tagline", "AI 搜索可见度监测", "AI search visibility monitor"),
    ("nav.label", "主导航", "Main navigation"),
    ("nav.dashboard", "仪表盘", "Dashboard"),
    ("nav.projects", "项目", "Projects"),
    ("nav.run", "运行探测", "New run"),
    ("nav.runs", "批次", "Runs"),
    ("nav.engines", "引擎对比", "Engines"),
    ("nav.sources", "来源", "Sources"),
    ("nav.actions", "行动", "Actions"),
    ("nav.claims", "说了什么", "What they say"),
    ("nav.lists", "推荐榜", "Lists"),
    ("nav.export", "导出", "Export"),
    ("nav.settings", "设置", "Settings"),
    ("nav.chat", "文档问答", "Docs chat"),
    ("lang.toggle", "English", "中文"),
    ("lang.toggle_label", "Switch to English", "切换到中文"),
    ("project.select", "当前项目", "Current project"),
    ("project.none", "（无项目）", "(no project)"),
    ("run.select", "当前批次", "Current run"),
    ("run.none", "（无批次）", "(no runs)"),
    ("storage.opening", "正在打开本地数据…", "Opening local data…"),
    ("common.loading", "加载中…", "Loading…"),
    ("summaries.progress", "正在为更快的页面准备各批次的汇总：{done} / {total} 个批次", "Preparing run summaries for faster pages: {done} / {total} runs"),
    ("common.cancel", "取消", "Cancel"),
    ("common.delete", "删除", "Delete"),
    ("common.dismiss", "关闭", "Dismiss"),
    ("common.notifications", "通知", "Notifications"),
    ("common.not_found", "页面不存在", "Page not found"),
    ("common.go_home", "返回仪表盘", "Back to the dashboard"),
    ("dashboard.title", "仪表盘", "Dashboard"),
    ("dashboard.empty", "还没有批次——先创建项目并开始一次运行。", "No runs yet — create a project and start a run."),
    ("dashboard.no_project", "还没有项目——先创建品牌、竞品和提示词。", "No project yet — create a brand, its competitors and prompts."),
    ("dashboard.runs_count", "本项目共有 {n} 个批次。", "This project has {n} runs."),
    ("dashboard.open_runs", "查看批次", "Open the runs"),
    ("run.title", "运行探测", "New run"),
    ("run.no_project", "还没有项目——先在“项目”页创建品牌、竞品和提示词。", "No project yet — create one with a brand, competitors and prompts on the Projects page."),
    ("run.no_prompts", "这个项目还没有提示词——先在“项目”页添加。", "This project has no prompts yet — add some on the Projects page."),
    ("run.prompts", "本项目的提示词（{n} 条）", "Prompts of this project ({n})"),
    ("facts.title", "事实表", "Fact sheet"),
    ("facts.help", "回答中关于品牌和竞品的句子会按这些事实核对：线索词让一句话落在某条事实的话题上（如「成立」「创立」），再与正确的值比较。关注词在谈到品牌或竞品的句子里出现时即被标出。新批次开始时会冻结当时的事实表。", "Sentences of the answers about the brand and its competitors are checked against these facts: the cues put a sentence on a fact's topic (such as “founded”, “established”), then its values are compared with the right one. Watch terms are flagged wherever a target is discussed. Each new run freezes the sheet as it is when it starts."),
    ("facts.empty", "还没有事实：添加成立年份、价格、总部等，回答里相关的说法就会被逐句核对。", "No facts yet: add the founding year, a price, the headquarters … and every sentence of the answers on their topic is checked."),
    ("facts.n", "事实 {n}", "Fact {n}"),
    ("facts.label", "名称（如「成立年份」）", "Label (such as “founding year”)"),
    ("facts.target", "关于", "About"),
    ("facts.kind", "类型", "Kind"),
    ("facts.kind_year", "年份", "Year"),
    ("facts.kind_number", "数字", "Number"),
    ("facts.kind_money", "金额", "Money"),
    ("facts.kind_text", "文字", "Text"),
    ("facts.cues", "线索词（用逗号或换行分隔）", "Cues (separated by commas or lines)"),
    ("facts.value_year", "正确的年份", "The right year"),
    ("facts.value", "正确的数值", "The right number"),
    ("facts.value_money", "正确的金额", "The right amount"),
    ("facts.currency", "币种", "Currency"),
    ("facts.tolerance", "容差（相对值，0.1 表示 ±10%，可不填）", "Tolerance (relative: 0.1 means ±10 %; optional)"),
    ("facts.accepted", "正确的说法（用逗号或换行分隔）", "Right values (separated by commas or lines)"),
    ("facts.rejected", "已知错误的说法（可不填）", "Known wrong values (optional)"),
    ("facts.remove", "删除这条事实", "Remove this fact"),
    ("facts.remove_n", "删除这条事实：{n}", "Remove this fact: {n}"),
    ("facts.add", "添加事实", "Add a fact"),
    ("facts.watch", "关注词（每行一个）", "Watch terms (one a line)"),
    ("facts.save", "保存事实表", "Save the fact sheet"),
    ("facts.saved", "事实表已保存：之后开始的批次会据此核对", "Fact sheet saved: runs started from now on are checked against it"),
    ("facts.refused", "事实表有 {n} 处问题，未保存：请修改标出的字段。", "The fact sheet has {n} problems and was not saved: fix the marked fields."),
    ("facts.refused_one", "事实表有 1 处问题，未保存：请修改标出的字段。", "The fact sheet has a problem and was not saved: fix the marked field."),
    ("facts.unknown_target", "（已不在项目中：{id}）", "(no longer in the project: {id})"),
    ("said.title", "回答说了什么", "What the answers say"),
    ("said.help", "按规则核对回答中关于品牌和竞品的句子：与事实表一致、矛盾还是无法核对，以及哪些句子值得人工复查；与 geo-probe claims 一致。不用任何模型做判断。", "The sentences of the answers about the brand and its competitors, checked by stated rules: consistent with the fact sheet, contradicting it or unverified, and which sentences deserve a read; as geo-probe claims prints it. No language model judges anything."),
    ("said.sheet_run", "按本批次开始时冻结的事实表核对", "Checked against the fact sheet frozen when this run started"),
    ("said.sheet_none", "本批次没有事实表：只列出内置风险词标出的句子", "This run has no fact sheet: only the sentences flagged by the built-in risk cues are listed"),
    ("said.facts", "事实核对", "Fact check"),
    ("said.facts_help", "每条事实：有相关陈述的成功回答数，以及其中一致、矛盾、无法核对的回答数；矛盾率 = 矛盾 ÷ 有陈述的回答。一条回答对同一事实只算一次（有矛盾即算矛盾）。", "Per fact: the successful answers with a sentence on it, and how many of them are consistent, contradict or cannot be checked; contradiction rate = contradicting ÷ answers with a sentence. An answer counts once per fact (as contradicting when any sentence contradicts)."),
    ("said.no_sheet", "还没有事实表：在项目页添加事实（成立年份、价格、总部……）后，之后开始的批次会逐句核对相关陈述。", "No fact sheet yet: add facts on the projects page (founding year, price, headquarters …) and runs started afterwards check every sentence on their topic."),
    ("said.to_projects", "去项目页添加事实", "Add facts on the projects page"),
    ("said.apply_help", "这个批次开始时项目还没有事实表。可以把项目当前的事实表（{n} 条事实、{w} 个关注词）应用到本批次：已存的回答会据此重新分析。", "This run started before the project had a fact sheet. Apply the project's current sheet ({n} facts, {w} watch terms) to it: its stored answers are analysed again with it."),
    ("said.apply", "应用当前事实表", "Apply the current fact sheet"),
    ("said.applied", "事实表已应用到本批次，回答已重新分析", "Fact sheet applied to this run; its answers were analysed again"),
    ("said.watch_only", "本批次的事实表只有关注词，没有事实。", "This run's fact sheet holds watch terms only, no facts."),
    ("said.fact", "事实", "Fact"),
    ("said.with_claim", "有陈述的回答", "Answers with a sentence on it"),
    ("said.consistent", "一致", "Consistent"),
    ("said.contradicts", "矛盾", "Contradicts"),
    ("said.unverified", "无法核对", "Unverified"),
    ("said.rate", "矛盾率", "Contradiction rate"),
    ("said.n_of", "{n} / {d}", "{n} of {d}"),
    ("said.quotes_of", "「{f}」：矛盾和无法核对的句子", "“{f}”: contradicting and unverified sentences"),
    ("said.show_all", "显示全部 {n} 句", "Show all {n} sentences"),
    ("said.open_quote", "「{s}」：在回答中查看这句话", "「{s}」: show this sentence in its answer"),
    ("said.sources", "这句话背后的网页", "The pages behind this sentence"),
    ("said.queue", "待复查的句子", "Sentences to review"),
    ("said.queue_help", "谈到某个品牌或竞品、且含有风险词（内置的负面词、谨慎词或项目的关注词）的句子，按对象和类型排列。这是需要人读的句子，不是结论：规则不理解否定（「没有投诉」也会被标出）。", "Sentences about a target that hold a risk cue (a built-in negative or caution cue, or one of the project's watch terms), by target and kind. A sentence to read, not a verdict: the rules do not read negation (“no complaints” is flagged)."),
    ("said.queue_none", "没有句子被标出。", "No sentence is flagged."),
    ("said.kind", "类型", "Kind"),
    ("said.target", "对象", "Target"),
    ("said.all", "全部", "All"),
    ("said.cue", "风险词「{c}」", "cue “{c}”"),
    ("said.rates", "被标出的比例", "How often a target is flagged"),
    ("said.rates_help", "提到该对象的成功回答中，至少有一句关于它的句子被标出的比例（95% Wilson 区间），以及各类标记的回答数。", "Of the successful answers mentioning a target, the share with at least one flagged sentence about it (95% Wilson interval), and the answers with a flag of each kind."),
    ("said.flagged", "被标出", "Flagged"),
    ("said.negative", "负面", "Negative"),
    ("said.caution", "谨慎", "Caution"),
    ("said.watch", "关注词", "Watch terms"),
    ("drawer.said", "这次回答说了什么", "What this answer says"),
    ("drawer.values", "取值：{v}", "values: {v}"),
    ("act.title", "下一步行动", "What to do next"),
    ("act.help", "当前批次的待办清单：每项由规则算出并附有依据的回答，与 geo-probe actions 一致。", "A to-do list from the current run: each item follows from a rule and comes with the answers behind it, as geo-probe actions prints it."),
    ("act.no_project", "还没有项目——先创建品牌、竞品和提示词。", "No project yet — create a brand, its competitors and prompts."),
    ("act.no_run", "这个项目还没有批次——先运行一次探测。", "This project has no run yet — start one."),
    ("act.against", "对比上一批次（{d}）", "Compared with the previous run ({d})"),
    ("act.no_previous", "没有上一批次可对比", "No previous run to compare with"),
    ("act.lost", "失分的提示词（{n}）", "Prompts you lose ({n})"),
    ("act.lost_help", "竞品在至少三分之一的成功回答中被提到且多于品牌；按可争取的回答数排序，区间为 Wilson 95%。", "A competitor named in at least a third of the successful answers and more often than the brand; by the answers at stake, with the 95% Wilson interval."),
    ("act.lost_none", "没有失分的提示词。", "No prompt is lost."),
    ("act.lost_caption", "失分的提示词及其竞品", "Lost prompts and their competitors"),
    ("act.no_success", "这个批次没有成功的探测。", "This run has no successful probe."),
    ("act.prompt", "提示词", "Prompt"),
    ("act.brand_rate", "品牌提及率", "Brand mention rate"),
    ("act.competitors", "领先的竞品", "Competitors ahead"),
    ("act.behind", "品牌落后", "Brand behind"),
    ("act.stake", "可争取", "At stake"),
    ("act.evidence", "依据", "Evidence"),
    ("act.answer", "回答 {r}", "answer {r}"),
    ("act.open_answer", "{a}：打开「{p}」的这次回答", "{a}: open this answer to “{p}”"),
    ("act.list_pos", "平均榜单第 {p} 位", "list position {p}"),
    ("act.queries", "引擎运行的搜索", "The searches the engine ran"),
    ("act.queries_help", "{n} 条不同的搜索词（已归一化），其中 {u} 条从未带回自有网站的页面。", "{n} distinct searches (normalised); {u} of them never brought back a page of the own site."),
    ("act.unowned_only", "只看从未带回自有页面的搜索", "Only the searches where the own site never appears"),
    ("act.no_query_strings", "这些回答没有附带搜索词（如 Perplexity）。", "No search query strings came with these answers (Perplexity gives none)."),
    ("act.no_searches", "这个批次的成功回答没有运行任何搜索。", "The successful answers of this run ran no search."),
    ("act.query", "搜索词", "Query"),
    ("act.probes", "回答数", "Answers"),
    ("act.prompts", "提示词", "Prompts"),
    ("act.n_prompts", "{n} 条", "{n}"),
    ("act.domains", "来源域名", "Domains"),
    ("act.owned", "自有页面", "Own site"),
    ("act.competitor", "竞品页面", "Competitor"),
    ("act.yes", "有", "yes"),
    ("act.no", "无", "no"),
    ("act.pages", "值得出现的页面（{n}）", "Pages to be on ({n})"),
    ("act.pages_help", "失分提示词的回答检索到的第三方页面。", "Third-party pages the answers of the lost prompts retrieved."),
    ("act.pages_no_lost", "没有失分的提示词，也就没有要争取的页面。", "No prompt is lost, so no page to win."),
    ("act.pages_none", "失分提示词的回答没有检索到第三方页面。", "The answers of the lost prompts retrieved no third-party page."),
    ("act.pages_caption", "值得出现的页面", "Pages to be on"),
    ("act.by_domain", "Gemini 只给出跳转链接，这些页面按域名汇总。", "Gemini gives only redirect links: those pages are counted by domain."),
    ("act.by_domain_short", "按域名汇总", "by domain"),
    ("act.page", "页面", "Page"),
    ("act.cited", "被引用", "Cited"),
    ("act.names_competitor", "标题提到竞品", "Title names a competitor"),
    ("act.names_brand", "标题提到品牌", "Title names the brand"),
    ("act.links", "回答里的链接是否存在", "Do the answers' links exist?"),
    ("act.links_none", "尚未检查：在终端运行 geo-probe links，再导入它写出的文件。", "Not checked yet: run geo-probe links in a terminal, then import the file it writes."),
    ("act.link_ok", "正常", "ok"),
    ("act.link_redirect", "跳转后正常", "ok after a redirect"),
    ("act.link_not_found", "不存在（404/410）", "not found (404/410)"),
    ("act.link_blocked", "被拦截（401/403/429）", "blocked (401/403/429)"),
    ("act.link_error", "出错（DNS、TLS、超时等）", "error (DNS, TLS, timeout, …)"),
    ("act.not_found_list", "不存在的链接及写出它们的回答", "Links that do not exist and the answers that wrote them"),
    ("act.solved", "已解决", "Solved"),
    ("act.solved_none", "与上一批次相比，还没有已解决的项。", "Nothing solved since the previous run yet."),
    ("act.solved_lost", "不再失分的提示词", "Prompts no longer lost"),
    ("act.solved_queries", "现在带回自有页面的搜索", "Searches that now bring back an own page"),
    ("act.wrong_facts", "与事实表矛盾的说法及其来源（{n}）", "Wrong facts and the pages behind them ({n})"),
    ("act.wrong_facts_help", "回答中与事实表矛盾的句子，以及这些句子引用的页面：请这些页面更正，或在引擎会读到的地方发布正确的数字。", "Sentences that contradict the fact sheet and the pages those sentences cite: ask them for a correction, or publish the right figure where the engines read."),
    ("act.wrong_facts_no_sheet", "这个批次没有事实表：在项目页添加事实后，新批次会据此核对回答。", "This run has no fact sheet: add facts on the projects page and new runs check the answers against them."),
    ("act.wrong_facts_none", "没有句子与事实表矛盾。", "No sentence contradicts the fact sheet."),
    ("act.wrong_facts_caption", "与事实表矛盾的说法", "Facts the answers state wrongly"),
    ("act.fact", "事实", "Fact"),
    ("act.claims", "矛盾的句子", "Contradicting sentences"),
    ("act.values", "说成", "Stated as"),
    ("act.pages_behind", "背后的页面（句子数）", "Pages behind them (sentences)"),
    ("act.unsourced", "{n} 句没有标明来源", "{n} with no source named"),
    ("act.solved_facts", "不再被说错的事实", "Facts no longer stated wrongly"),
    ("act.solved_pages", "不再需要争取的页面", "Pages no longer to be on"),
    ("engines.title", "引擎对比", "Engines side by side"),
    ("engines.help", "每个引擎取本项目最新一次完成（或部分完成）的批次并排比较。数字与 geo-probe engines 输出一致。", "Each engine's newest completed (or partial) run of this project, side by side. The figures are those of geo-probe engines."),
    ("engines.no_project", "还没有项目——先创建品牌、竞品和提示词。", "No project yet — create a brand, its competitors and prompts."),
    ("engines.empty", "还没有可比较的批次——在“运行探测”页勾选一个或多个引擎开始运行。", "No runs to compare yet — tick one or more engines on the New run page and start."),
    ("engines.gaps", "谁漏掉了{brand}", "Who leaves {brand} out"),
    ("engines.gap_line", "在 {n} 条提示词上从未提到{brand}，而其他引擎至少一半的回答提到了：", "never names {brand} on {n} prompt(s) that another engine names it on in at least half of its answers:"),
    ("engines.gap_real", "它的提及率 95% 区间整体低于 {engines}：这不是随机波动。", "Its mention rate's 95% interval lies wholly below that of {engines}: this is not noise."),
    ("engines.gap_noise", "它的提及率区间与其他引擎重叠：可能只是随机波动，增加重复次数再看。", "Its mention rate's interval overlaps the other engines': it may be noise; run more repeats to tell."),
    ("engines.chart", "各引擎的品牌提及率（95% 区间）", "Brand mention rate per engine (95% interval)"),
    ("engines.chart_desc", "每个引擎最新批次中提到品牌的成功探测占比，括号内为 Wilson 95% 置信区间。", "Share of each engine's newest run's successful probes that mention the brand, with the 95% Wilson interval."),
    ("engines.bar_title", "分母：{n} 次成功探测", "denominator: {n} successful probes"),
    ("engines.table", "各引擎最新批次的核心指标", "Core figures of each engine's newest run"),
    ("engines.mention_rate", "提及率", "Mention rate"),
    ("engines.first_mention", "首位提及率", "First-mention rate"),
    ("engines.owned_visibility", "官网可见度", "Owned visibility"),
    ("engines.owned_citation", "官网被引用率", "Owned citation rate"),
    ("engines.sov_brand", "品牌声量占比", "Brand share of voice"),
    ("engines.brand_flagged", "品牌被标记待读", "Brand flagged to read"),
    ("engines.brand_flagged_title", "提及品牌的成功回答中，有关于品牌的句子含风险词或关注词的占比（“说了什么”页列出这些句子）", "Of the successful answers naming the brand, the share with a sentence about it holding a risk cue or watch term (the What they say page lists them)"),
    ("engines.top_domains", "高频来源域名", "Top domains"),
    ("engines.success_n", "{n} 次成功", "{n} succeeded"),
    ("engines.interval_title", "Wilson 95% 置信区间", "95% Wilson interval"),
    ("engines.no_citations", "该引擎不提供引用数据", "this engine gives no citation data"),
    ("engines.no_citation_data", "无引用数据", "no citation data"),
    ("engines.sov", "声量占比（各引擎）", "Share of voice per engine"),
    ("engines.target", "品牌 / 竞品", "Brand / competitor"),
    ("engines.matrix", "提示词 × 引擎：品牌提及率", "Prompt × engine: brand mention rate"),
    ("engines.matrix_help", "空白表示该引擎的批次没有问这条提示词，或没有成功的探测。", "A blank means that engine's run did not ask the prompt or had no successful probe of it."),
    ("engines.prompt", "提示词", "Prompt"),
    ("engines.links", "不存在的回答链接", "Answer links that do not exist"),
    ("engines.links_value", "{n} / {m}", "{n} of {m}"),
    ("engines.links_unchecked", "未检查", "not checked"),
    ("runs.title", "批次", "Runs"),
    ("runs.empty", "还没有批次——创建项目后开始一次运行。", "No runs yet — create a project and start a run."),
    ("runs.created", "创建时间", "Created"),
    ("runs.status", "状态", "Status"),
    ("runs.model", "模型", "Model"),
    ("runs.engine", "引擎", "Engine"),
    ("runs.planned", "计划探测数", "Planned probes"),
    ("runs.open", "查看", "Open"),
    ("status.running", "运行中", "Running"),
    ("status.completed", "已完成", "Completed"),
    ("status.partial", "部分完成", "Partial"),
    ("status.failed", "失败", "Failed"),
    ("status.cancelled", "已取消", "Cancelled"),
    ("detail.truncated", "被截断的回答", "Truncated answers"),
    ("detail.truncated_badge", "已截断", "truncated"),
    ("detail.cost", "估算费用", "Estimated cost"),
    ("detail.title", "批次详情", "Run detail"),
    ("detail.not_found", "找不到这个批次——它可能已被删除。", "This run does not exist — it may have been deleted."),
    ("detail.probes", "已保存的探测：{n} / 计划 {m}", "Probes saved: {n} of {m} planned"),
    ("detail.no_probes", "这个批次还没有保存任何探测结果。", "This run has no saved probes yet."),
    ("detail.repeats", "每条重复次数", "Repeats per prompt"),
    ("sources.title", "来源", "Sources"),
    ("sources.empty", "还没有来源数据——完成一次运行后，这里会列出搜索工具返回的网页域名。", "No sources yet — after a run, the domains returned by web search are listed here."),
    ("lists.title", "推荐榜", "Lists"),
    ("lists.empty", "还没有推荐榜——完成一次运行后，这里会列出回答里推荐列表的位次。", "No lists yet — after a run, the positions in the answers' recommendation lists are shown here."),
    ("export.title", "导出", "Export"),
    ("export.empty", "还没有可导出的数据——创建项目或完成一次运行后再来。", "Nothing to export yet — create a project or finish a run first."),
    ("export.full_json", "下载全量 JSON", "Download full JSON"),
    ("export.full_help", "包含所有项目、提示词、批次和探测；不含 API Key 和设置。分享前请检查其中的回答和来源。", "Holds every project, prompt, run and probe; never the API key or settings. Check answers and sources before sharing."),
    ("export.counts", "{p} 个项目 · {q} 条提示词 · {r} 个批次 · {s} 条探测", "{p} projects · {q} prompts · {r} runs · {s} probes"),
    ("export.done", "已生成导出文件", "Export file created"),
    ("chat.title", "文档问答", "Docs chat"),
    ("chat.empty", "还没有加载文档——加载文档后，可以基于文档内容提问。", "No documents loaded yet — load documents to ask questions about them."),
    ("settings.title", "设置", "Settings"),
    ("settings.key_section", "DeepSeek API Key", "DeepSeek API key"),
    ("settings.api_key", "API Key", "API key"),
    ("settings.api_key_help", "Key 只保存在本浏览器的 localStorage 或 sessionStorage 中，绝不写入 IndexedDB，也不会进入导出文件。", "The key stays in this browser's localStorage or sessionStorage only: never in IndexedDB, never in an export."),
    ("settings.key_present", "已保存一个 Key。", "A key is saved."),
    ("settings.key_absent", "尚未保存 Key。", "No key saved."),
    ("settings.key_storage", "Key 保存位置", "Where to keep the key"),
    ("settings.storage_local", "本地保存（关闭浏览器后仍在）", "This browser (kept after closing)"),
    ("settings.storage_session", "仅本次会话", "This session only"),
    ("settings.origin_own", "Key 保存在本浏览器中 {origin} 的存储里，只有这个来源的页面能读取。", "Keys are kept in this browser's storage for {origin}; only pages of this origin can read them."),
    ("settings.origin_pages", "Key 保存在 {origin} 的存储里，而 {owner} 的每个 GitHub Pages 站点都使用这个来源，都能读取这些 Key。请只在本次会话保存（默认），或把本应用部署到自己的域名。", "Keys are kept in the storage of {origin}, which every GitHub Pages site of {owner} shares: any of them can read these keys. Keep them for this session only (the default), or deploy the app on a domain of its own."),
    ("settings.origin_plain_http", "Key 保存在 {origin} 的存储里，而这个页面通过不加密的 http:// 提供：网络上的任何人都能改写页面并读取它们。请通过 https:// 或本机地址打开本应用。", "Keys are kept in the storage of {origin}, and this page is served over plain http://: anyone on the network can change the page and read them. Open the app over https:// or on this machine."),
    ("settings.origin_loopback", "Key 保存在本机地址 {origin} 的存储里：以后在这个地址上提供的任何页面（另一个开发服务器、用本地服务器打开的下载网页）都能读取它们。", "Keys are kept in the storage of {origin}, an address on this machine: any page served on it later (another development server, downloaded HTML opened through a local server) can read them."),
    ("settings.origin_path", "Key 保存在 {origin} 的存储里；这个来源下的其他页面（不只是本应用）也能读取它们。", "Keys are kept in the storage of {origin}; every other page this origin serves, not only this app, can read them."),
    ("settings.base_url", "自定义 API 地址（可选）", "Custom API base URL (optional)"),
    ("settings.base_url_help", "留空则直连 DeepSeek。填写代理地址后可以不填 Key（代理模式），请求经过代理，请自行评估其可信度。", "Leave empty to call DeepSeek directly. With a proxy URL the key may stay empty (proxy mode); requests then pass through the proxy, so trust it first."),
    ("settings.save", "保存设置", "Save settings"),
    ("settings.engines_section", "其他引擎：Claude、ChatGPT、Gemini、Perplexity、通义千问、豆包、文心、混元", "Other engines: Claude, ChatGPT, Gemini, Perplexity, Qwen, Doubao, ERNIE, Hunyuan"),
    ("settings.proxy_section", "本地代理（geo-probe proxy）", "Local proxy (geo-probe proxy)"),
    ("settings.proxy_help", "geo-probe proxy 在本机运行，从环境变量读取各引擎的 Key 并转发请求：浏览器里没有 Key。开启后，凡是本页没有 Key、也没有自定义 API 地址的引擎都经它调用；通义千问、豆包、文心和混元只能这样从浏览器调用。", "geo-probe proxy runs on this machine, reads each engine's key from its environment variable and forwards the requests: no key in the browser. When it is on, every engine with neither a key nor a custom base URL on this page goes through it; Qwen, Doubao, ERNIE and Hunyuan can be reached from a browser only this way."),
    ("settings.proxy_use", "使用本地代理", "Use a local proxy"),
    ("settings.proxy_url", "本地代理地址", "Local proxy address"),
    ("settings.proxy_token", "代理口令（token）", "Proxy token"),
    ("settings.proxy_token_help", "代理每次启动时在终端打印一行 token: …，把它粘贴到这里；它和 Key 一样只保存在本浏览器的 Web Storage 中。", "The proxy prints a line token: … each time it starts; paste it here. Like the keys it stays in this browser's Web Storage only."),
    ("settings.proxy_command", "在终端设置要用的引擎的 Key（{vars}），然后运行：", "In a terminal, set the keys of the engines you use ({vars}), then run:"),
    ("settings.engines_help", "每个引擎有自己的 Key 和可选的 API 地址，保存规则与 DeepSeek 相同：Key 只在本浏览器的 Web Storage 中。只填 API 地址不填 Key 即代理模式，请求不带 Key。", "Each engine has its own key and optional API base URL, kept like DeepSeek's: the key stays in this browser's Web Storage only. A base URL without a key is proxy mode: requests carry no key."),
    ("settings.engine_key", "{engine} API Key", "{engine} API key"),
    ("settings.key_env", "命令行读取环境变量 {var}。", "The command line reads {var}."),
    ("settings.get_key", "获取 Key", "Get a key"),
    ("settings.browser_direct", "{engine} 允许浏览器直接调用；若请求被拦截，可填写代理 API 地址。留空则直连官方地址。", "{engine} can be called from a browser; if the browser blocks it, set a proxy base URL. Leave empty to call it directly."),
    ("settings.browser_proxy", "{engine} 不允许浏览器直接调用（CORS）：请在本机运行 geo-probe proxy，由它带上 Key 转发。", "{engine} does not allow calls from a browser (CORS): run geo-probe proxy on this machine, which forwards the requests with the key."),
    ("settings.browser_cors", "{engine} 不一定允许浏览器直接调用（CORS）；请求被拦截时，请填写代理 API 地址。留空则直连官方地址。", "{engine} may not allow calls from a browser (CORS); when requests are blocked, set a proxy base URL. Leave empty to call it directly."),
    ("settings.saved", "设置已保存", "Settings saved"),
    ("settings.data", "本地数据", "Local data"),
    ("settings.data_help", "项目、提示词、批次和探测结果都只保存在本浏览器的 IndexedDB 中；换浏览器或清除站点数据后不可恢复，请先导出备份。", "Projects, prompts, runs and probes live only in this browser's IndexedDB; another browser or clearing site data loses them, so export a backup first."),
    ("import.reading", "正在读取 {f}（{mb} MB）…", "Reading {f} ({mb} MB)…"),
    ("import.checking", "正在检查 {mb} MB 数据…", "Checking {mb} MB…"),
    ("import.analysing", "已检查，正在重新分析 {n} 条探测…", "Checked; re-analysing {n} probes…"),
    ("import.saving", "已检查，正在保存 {n} 条探测…", "Checked; saving {n} probes…"),
    ("import.stopped", "导入中断（{e}），没有完成保存：请重新加载页面，确认数据后再试", "the import stopped ({e}) before it finished saving: reload the page, check your data and try again"),
    ("settings.import", "导入全量 JSON（按 ID 合并，同 ID 覆盖）", "Import a full JSON export (merged by id; the same id overwrites)"),
    ("settings.clear", "清除全部数据", "Clear all data"),
    ("settings.clear_title", "清除全部数据？", "Clear all data?"),
    ("settings.clear_body", "将删除所有项目、提示词、批次、探测结果和设置，并移除已保存的 API Key。此操作无法撤销。", "This deletes every project, prompt, run, probe and setting, and removes the saved API key. It cannot be undone."),
    ("settings.cleared", "已清除全部数据", "All data cleared"),
    ("projects.title", "项目", "Projects"),
    ("projects.new", "新建项目", "New project"),
    ("projects.empty", "还没有项目——点击“新建项目”，填写品牌、竞品和提示词。", "No projects yet — choose “New project” and enter a brand, competitors and prompts."),
    ("projects.list", "项目列表", "Project list"),
    ("projects.edit", "编辑", "Edit"),
    ("projects.editing", "编辑项目", "Edit project"),
    ("projects.creating", "新建项目", "New project"),
    ("projects.name", "项目名称（留空则用品牌名）", "Project name (the brand name when empty)"),
    ("projects.brand", "品牌", "Brand"),
    ("projects.label", "名称", "Name"),
    ("projects.aliases", "别名（每行一个，名称本身也会匹配）", "Aliases (one per line; the name itself is matched too)"),
    ("projects.domains", "域名（每行一个，如 example.com）", "Domains (one per line, e.g. example.com)"),
    ("projects.competitors", "竞品", "Competitors"),
    ("projects.competitor_n", "竞品 {n}", "Competitor {n}"),
    ("projects.competitor_add", "添加竞品", "Add competitor"),
    ("projects.competitor_remove", "移除这个竞品", "Remove this competitor"),
    ("projects.save", "保存项目", "Save project"),
    ("projects.saved", "项目已保存", "Project saved"),
    ("projects.delete", "删除项目", "Delete project"),
    ("projects.delete_title", "删除项目“{name}”？", "Delete project “{name}”?"),
    ("projects.delete_body", "将同时删除它的提示词、批次和探测结果，无法撤销。", "Its prompts, runs and probes are deleted too. This cannot be undone."),
    ("projects.deleted", "项目已删除", "Project deleted"),
    ("projects.summary", "{c} 个竞品 · {p} 条提示词", "{c} competitors · {p} prompts"),
    ("projects.prompts", "提示词", "Prompts"),
    ("projects.save_first", "保存项目后即可添加提示词。", "Save the project to add prompts."),
    ("projects.prompt_text", "新提示词", "New prompt"),
    ("projects.prompt_tags", "标签（可多选）", "Tags (choose any)"),
    ("projects.prompt_add", "添加提示词", "Add prompt"),
    ("projects.prompt_bulk", "批量粘贴（每行一条）", "Paste in bulk (one per line)"),
    ("projects.prompt_bulk_add", "批量添加", "Add all"),
    ("projects.prompts_added", "已添加 {n} 条提示词", "{n} prompts added"),
    ("projects.prompts_none_new", "没有新的提示词：空行和重复内容已跳过", "no new prompts: blank lines and duplicates were skipped"),
    ("projects.prompts_empty", "还没有提示词——逐条添加，或每行一条批量粘贴。", "No prompts yet — add them one by one or paste one per line."),
    ("projects.prompt_delete", "删除提示词", "Delete prompt"),
    ("projects.prompt_delete_title", "删除这条提示词？", "Delete this prompt?"),
    ("projects.prompt_delete_body", "已有批次保留它的快照，不受影响。", "Existing runs keep their own snapshot of it."),
    ("projects.prompt_deleted", "提示词已删除", "Prompt deleted"),
    // ---- run page, runs list, run detail and probe drawer: rows added by that work go below this line ----
    ("run.need_key", "请先在设置中填写 API Key，或填写自定义 API 地址（代理模式）", "set an api key in settings, or a custom api base url (proxy mode)"),
    ("run.need_key_engine", "请先在设置中填写 {engine} 的 API Key，或它的自定义 API 地址（代理模式）", "set the {engine} api key in settings, or its custom api base url (proxy mode)"),
    ("run.already_running", "本标签页已有一个批次在运行：等它结束或先取消", "a run is already running in this tab: wait for it or cancel it first"),
    ("run.reason_running", "正在运行——完成或取消后才能开始新的批次。", "A run is in progress — finish or cancel it before starting another."),
    ("run.reason_no_prompt", "请至少勾选一条提示词。", "Select at least one prompt."),
    ("run.reason_numbers", "重复次数、并发数和最大搜索次数都必须是正整数。", "Repeats, concurrency and max searches must be positive whole numbers."),
    ("run.reason_temperature", "temperature 必须是 0 到 2 之间的数。", "The temperature must be a number from 0 to 2."),
    ("run.budget", "输出预算与推理", "Output budget and reasoning"),
    ("run.max_tokens", "输出上限（tokens，含思考）", "Max output tokens (thinking included)"),
    ("run.engine_default", "按引擎和模型的默认值", "Each engine's and model's default"),
    ("run.reasoning_effort", "推理强度", "Reasoning effort"),
    ("run.temperature", "temperature", "Temperature"),
    ("run.effort_low", "低", "low"),
    ("run.effort_medium", "中", "medium"),
    ("run.effort_high", "高", "high"),
    ("run.temperature_ignored", "{engines} 不接收 temperature，此设置对其无效。", "{engines} take no temperature: it does not apply to them."),
    ("run.budget_tokens", "输出上限 {n} tokens", "{n} output tokens"),
    ("run.budget_effort", "推理强度 {e}", "effort {e}"),
    ("run.budget_thinking", "思考预算 {n}", "thinking budget {n}"),
    ("run.select_all", "全选", "Select all"),
    ("run.select_none", "全不选", "Select none"),
    ("run.concurrency", "并发数（1–3）", "Concurrency (1–3)"),
    ("run.max_searches", "每次最多搜索", "Max searches per probe"),
    ("run.estimate", "预计 {probes} 次探测，约 ${cost}，约 {time}", "About {probes} probes, ~${cost}, ~{time}"),
    ("run.estimate_no_price", "预计 {probes} 次探测，约 {time}；价格表中没有该模型，无法估算费用", "About {probes} probes, ~{time}; no price for this model, so no cost estimate"),
    ("run.estimate_history", "依据：上一批次 {n} 次成功探测的平均值，每次约 {latency}、{searches} 次联网搜索；{workers} 个同时进行，共 {waves} 轮。", "Based on the last run's {n} successful probes: about {latency} and {searches} web searches each; {workers} at a time, {waves} rounds."),
    ("run.estimate_defaults", "依据：还没有批次可参考，按默认值估算：每次探测约 {latency}（联网搜索的回答通常要几十秒）、{searches} 次联网搜索；{workers} 个同时进行，共 {waves} 轮。", "Based on defaults (no run yet): about {latency} per probe (web-search answers take tens of seconds) and {searches} web searches each; {workers} at a time, {waves} rounds."),
    ("run.start", "开始运行", "Start run"),
    ("run.start_many", "开始运行（{n} 个引擎）", "Start runs ({n} engines)"),
    ("run.started_many", "已开始 {n} 个批次，每个引擎一个", "Started {n} runs, one per engine"),
    ("run.engines", "引擎", "Engines"),
    ("run.engines_help", "每个勾选的引擎各运行一个批次，提示词和次数相同，便于在“引擎”页并排比较。", "Each ticked engine gets a run of its own with the same prompts and repeats, to compare them side by side on the Engines page."),
    ("run.model_of", "{engine} 的模型", "Model of {engine}"),
    ("run.engine_needs_proxy", "需在设置中开启本地代理（geo-probe proxy）", "needs the local proxy (geo-probe proxy) in settings"),
    ("run.engine_via_proxy", "经本地代理 geo-probe proxy", "through geo-probe proxy"),
    ("run.need_proxy_engine", "{engine} 不允许浏览器直接调用：请在本机运行 geo-probe proxy，并在设置中开启“使用本地代理”", "{engine} does not allow calls from a browser: run geo-probe proxy on this machine and turn on “use a local proxy” in settings"),
    ("run.engine_no_key", "需要在设置中填写 Key 或 API 地址", "needs a key or a base URL in settings"),
    ("run.engine_cors", "浏览器可能被拦截，可用代理地址", "a browser may be blocked; a proxy base URL helps"),
    ("run.reason_no_engine", "请至少勾选一个引擎。", "Tick at least one engine."),
    ("run.no_price", "无价格", "no price"),
    ("run.duration", "约 {time}", "~{time}"),
    ("run.price_as_of", "价格截至 {d}", "price as of {d}"),
    ("run.cancel", "取消运行", "Cancel run"),
    ("run.started", "已开始运行", "Run started"),
    ("run.open_detail", "查看批次详情", "Open the run detail"),
    ("run.progress_label", "进度 {done} / {planned}", "Progress {done} of {planned}"),
    ("run.progress_text", "已完成 {done} / {planned} · 成功 {ok} · 失败 {failed}", "{done} of {planned} done · {ok} succeeded · {failed} failed"),
    ("run.in_flight", "{n} 个进行中", "{n} in flight"),
    ("detail.mention_rate", "提及率", "Mention rate"),
    ("detail.first_mention", "首位提及率", "First-mention rate"),
    ("detail.owned_visibility", "自有来源可见度", "Owned visibility"),
    ("detail.success_failed", "成功 / 失败", "Succeeded / failed"),
    ("detail.continue", "继续运行", "Continue run"),
    ("detail.continue_help", "补跑尚未成功的探测（使用批次冻结的配置）", "Run the probes not yet successful, with the run's frozen settings"),
    ("detail.retry_failed", "重试失败项", "Retry failed"),
    ("detail.retry_help", "逐个重试出错或空回答的探测", "Retry every error or empty probe, one at a time"),
    ("detail.filter_prompt", "按提示词筛选", "Filter by prompt"),
    ("detail.filter_status", "按状态筛选", "Filter by status"),
    ("detail.all", "全部", "All"),
    ("detail.st_success", "成功", "Success"),
    ("detail.st_failed", "失败（出错或空）", "Failed (error or empty)"),
    ("detail.st_error", "出错", "Error"),
    ("detail.st_empty", "空回答", "Empty"),
    ("detail.prompt", "提示词", "Prompt"),
    ("detail.mentions", "提及", "Mentions"),
    ("detail.sources", "来源", "Sources"),
    ("detail.open", "查看详情", "Details"),
    ("detail.no_match", "没有符合筛选条件的探测——换一个筛选条件试试。", "No probe matches these filters — try other filters."),
    ("drawer.billed", "计费用量", "Billed"),
    ("drawer.billed_tokens", "全部尝试：输入 {input} / 输出 {output} tokens", "All attempts: {input} in / {output} out tokens"),
    ("drawer.continuations", "续写 {n} 次（pause_turn）", "{n} continuation(s) after pause_turn"),
    ("drawer.truncated", "回答达到输出上限被截断，可能不完整", "Answer cut off at the output limit: it may be incomplete"),
    ("drawer.close", "关闭", "Close"),
    ("drawer.status", "状态", "Status"),
    ("drawer.repeat", "第几次", "Repeat"),
    ("drawer.attempts", "尝试次数", "Attempts"),
    ("drawer.latency", "耗时", "Latency"),
    ("drawer.answer", "回答", "Answer"),
    ("drawer.no_answer", "没有回答文本。", "No answer text."),
    ("drawer.mentions", "提及的目标", "Mentioned targets"),
    ("drawer.no_mentions", "回答中没有提到任何跟踪的目标。", "The answer names no tracked target."),
    ("drawer.mention_facts", "第 {order} 位提及，共 {count} 次", "mentioned #{order}, {count} time(s)"),
    ("drawer.list_pos", "榜单第 {n} 位", "list position {n}"),
    ("drawer.queries", "搜索", "Searches"),
    ("drawer.no_queries", "这次回答没有搜索。", "No search was made."),
    ("drawer.internal", "「内部检索」", "internal search"),
    ("drawer.sources", "来源（{n}）", "Sources ({n})"),
    ("drawer.source", "来源", "Source"),
    ("drawer.platform", "平台", "Platform"),
    ("drawer.channel", "渠道", "Channel"),
    ("drawer.ownership", "归属", "Ownership"),
    ("drawer.cited", "被引用", "Cited"),
    ("drawer.cited_yes", "已引用", "cited"),
    ("drawer.cited_no", "未引用", "not cited"),
    ("drawer.cited_count", "其中 {n} / {m} 个来源被回答引用（引擎自带的引用数据）。", "{n} of {m} sources are cited by the answer (the engine's own citation data)."),
    ("drawer.no_citation_data", "该引擎不提供引用数据：只能看到检索到的来源，看不到回答用了哪些。", "This engine gives no citation data: the retrieved sources are known, not which of them the answer used."),
    ("drawer.ranks", "排名", "Ranks"),
    ("drawer.owned", "自有", "Owned"),
    ("drawer.competitor", "竞品", "Competitor"),
    ("drawer.third_party", "第三方", "Third party"),
    ("drawer.list", "解析出的推荐列表", "Parsed list"),
    ("drawer.no_list", "回答中没有推荐列表。", "No list in the answer."),
    ("drawer.links", "回答中的链接", "Links in the answer"),
    ("drawer.no_links", "回答中没有链接。", "No links in the answer."),
    ("drawer.in_sources", "在来源中", "in sources"),
    ("drawer.not_in_sources", "不在来源中", "not in sources"),
    ("settings.test_key", "测试 Key", "Test key"),
    ("settings.testing", "测试中…", "Testing…"),
    //
    //
    //
    // ---- dashboard, sources, lists and export: rows added by that work go below this line ----
    ("dash.run_line", "批次 {id} · {at} · 模型 {model} · {n} 条探测", "Run {id} · {at} · model {model} · {n} probes"),
    ("dash.no_success", "这个批次没有成功的探测（共 {n} 条，失败 {f} 条），暂无指标——打开批次详情，重试失败的探测。", "This run has no successful probes ({n} probes, {f} failed), so there are no figures yet — open the run and retry the failed probes."),
    ("dash.open_run", "打开批次详情", "Open the run"),
    ("dash.mention_rate", "品牌提及率", "Mention rate"),
    ("dash.first_mention_rate", "首位提及率", "First-mention rate"),
    ("dash.avg_order", "平均提及顺位", "Average mention order"),
    ("dash.avg_order_hint", "被提及时排第几个品牌，越小越靠前", "Which target the brand is when mentioned; lower is earlier"),
    ("dash.avg_list_position", "平均榜单位次", "Average list position"),
    ("dash.avg_list_hint", "出现在推荐列表时的平均名次", "Mean position in the answers' lists"),
    ("dash.owned_visibility", "官网可见度", "Owned visibility"),
    ("dash.owned_best_rank", "官网最佳排名", "Best owned rank"),
    ("dash.owned_best_rank_hint", "自有域名在搜索结果中的最好名次", "Best search rank of an owned domain"),
    ("dash.source_stability", "来源稳定性", "Source stability"),
    ("dash.source_stability_hint", "同一提示词重复时来源域名的重合度（Jaccard）", "Overlap of source domains across repeats (Jaccard)"),
    ("dash.unique_domains", "来源域名数", "Unique domains"),
    ("dash.answer_link_overlap", "回答链接命中来源", "Answer links in sources"),
    ("dash.success_count", "成功 / 全部", "Successes / all"),
    ("dash.success_title", "成功 {s} · 失败 {f} · 取消 {c}", "{s} succeeded · {f} failed · {c} cancelled"),
    ("dash.failed_n", "失败 {n} 条", "{n} failed"),
    ("dash.cost", "估算费用（美元）", "Estimated cost (USD)"),
    ("dash.cost_unknown", "价格表中没有该模型，无法估算费用", "No price for this model, so no cost estimate"),
    ("dash.cost_hint", "按 token 与搜索次数估算，非账单", "Estimated from tokens and searches, not a bill"),
    ("dash.mean_over", "平均值，分母 {n}", "mean, denominator {n}"),
    ("dash.over_prompts", "按提示词平均，分母 {n} 条提示词", "mean over prompts, denominator {n} prompts"),
    ("dash.occurrences_total", "来源出现共 {n} 次", "{n} source occurrences in all"),
    ("dash.insights", "洞察", "Insights"),
    ("dash.trend", "跨批次趋势", "Trend across runs"),
    ("dash.trend_desc", "本项目在 {engine} 上 {n} 个批次的品牌提及率、首位提及率和官网可见度（0–100%）；提及率周围的色带是每个批次的 95% Wilson 区间。其他引擎的批次见「引擎对比」。", "Mention rate, first-mention rate and owned visibility (0–100%) of this project's {n} runs on {engine}; the band around the mention rate is each run's 95% Wilson interval. Other engines' runs are on the Engines page."),
    ("run.precision", "精度：{n} 次探测的比率，95% 区间最宽约 ±{hw} 个百分点（比率为 50% 时）。", "Precision: a rate over {n} probes has a 95% interval of at most ±{hw} points (at a rate of 50%)."),
    ("run.precision_needs", "每个问题重复 {r} 次可达到 ±10 个百分点。", "{r} repeats per prompt would give ±10 points."),
    ("run.precision_enough", "已达到 ±10 个百分点以内。", "That is within ±10 points."),
    ("run.precision_none", "选择问题和重复次数后，这里显示结果的精度。", "Choose prompts and repeats to see how precise the results will be."),
    ("diff.title", "与上一批次对比", "Compared with the previous run"),
    ("diff.none", "这个批次没有上一批次可对比：同一项目、同一引擎再完成一次运行后，这里会显示哪些变化是真实的、哪些只是波动。", "This run has no previous run to compare with: after another completed run of the same project and engine, this shows which changes are real and which are noise."),
    ("diff.against", "对照批次 {id}（{at}）。", "Against run {id} ({at})."),
    ("diff.metric", "指标", "Metric"),
    ("diff.previous", "上一批次", "Previous"),
    ("diff.current", "本批次", "This run"),
    ("diff.delta", "变化", "Change"),
    ("diff.interval", "95% 区间", "95% interval"),
    ("diff.reading", "判断", "Assessment"),
    ("dash.trend_engine_note", "趋势只含 {engine} 的批次；另有 {n} 个其他引擎的批次，见", "The trend holds {engine}'s runs only; {n} runs of other engines are on"),
    ("dash.trend_one", "只有一个批次——再运行一次即可看到趋势。", "Only one run so far — run again to see a trend."),
    ("dash.sov", "声量占比", "Share of voice"),
    ("dash.sov_desc", "每个目标被提及的成功探测数，占所有目标提及总数的比例。", "Each target's mentioning probes as a share of all targets' mentions."),
    ("dash.top_sources", "主要来源", "Top sources"),
    ("dash.all_sources", "查看全部来源", "All sources"),
    ("dash.no_sources", "这个批次的成功探测没有检索到来源。", "The successful probes of this run retrieved no sources."),
    ("dash.by_tag", "按提示词类型", "By prompt tag"),
    ("dash.no_tags", "提示词还没有标签——在“项目”页给提示词加上通用词、品牌词等标签。", "No prompt has a tag yet — tag prompts (generic, brand…) on the Projects page."),
    ("dash.tag", "类型", "Tag"),
    ("dash.prompts", "各提示词结果", "Per prompt"),
    ("dash.prompt", "提示词", "Prompt"),
    ("src.none_in_run", "这个批次没有检索到来源——可能都失败了，或模型没有搜索。运行新批次或重试失败的探测。", "This run retrieved no sources — its probes may have failed or not searched. Start a run or retry the failed probes."),
    ("src.filter", "筛选域名或平台", "Filter domain or platform"),
    ("src.all", "全部", "All"),
    ("src.channel", "渠道", "Channel"),
    ("src.ownership", "归属", "Ownership"),
    ("src.owned", "自有", "Owned"),
    ("src.competitor", "竞品", "Competitor"),
    ("src.third_party", "第三方", "Third party"),
    ("src.shown", "显示 {n} / {m} 个域名", "Showing {n} of {m} domains"),
    ("src.caption", "来源域名，点击表头排序", "Source domains; click a column header to sort"),
    ("src.domain", "域名", "Domain"),
    ("src.probe_rate", "探测覆盖率", "Probe rate"),
    ("src.occurrences", "出现次数", "Occurrences"),
    ("src.share", "出现占比", "Share"),
    ("src.avg_rank", "平均排名", "Avg rank"),
    ("src.best_rank", "最佳排名", "Best rank"),
    ("src.platform", "平台", "Platform"),
    ("src.cited_rate", "被引用率", "Cited rate"),
    ("src.no_match", "没有符合筛选条件的域名——清空筛选试试。", "No domain matches the filters — clear them to see all."),
    ("src.in_probe", "提示词：{p}（第 {r} 次）", "Prompt: {p} (repeat {r})"),
    ("src.occurrence", "搜索词“{q}”，第 {r} 名", "query “{q}”, rank {r}"),
    ("src.urls_of", "{d} 的网页", "Pages of {d}"),
    ("src.channels", "渠道分布（出现次数）", "Channels (occurrences)"),
    ("src.channels_desc", "按渠道汇总的来源出现次数。", "Source occurrences summed by channel."),
    ("src.new_lost", "与上一批次相比", "Compared with the previous run"),
    ("src.no_previous", "没有上一批次可比较——再运行一次后这里会列出新增和消失的域名。", "No previous run to compare with — after another run, new and lost domains are listed here."),
    ("src.new", "新增域名（{n}）", "New domains ({n})"),
    ("src.lost", "消失域名（{n}）", "Lost domains ({n})"),
    ("src.gap", "外联机会", "Outreach gap"),
    ("src.gap_help", "提到竞品的 {c} 条探测检索到、但提到品牌的 {b} 条探测从未检索到的域名：值得投放或联系的渠道。", "Domains retrieved by the {c} probes mentioning a competitor but by none of the {b} probes mentioning the brand: places to publish or reach out."),
    ("src.gap_none", "没有外联缺口。", "No outreach gap."),
    ("src.gap_count", "{n} 条探测", "{n} probes"),
    ("lst.stability", "榜单顺序稳定性（RBO）", "List-order stability (RBO)"),
    ("lst.stability_hint", "同一提示词重复时推荐列表顺序的相似度", "How alike the lists' order is across repeats"),
    ("lst.no_lists", "这个批次的回答里没有解析出推荐列表。", "No recommendation lists were parsed from this run's answers."),
    ("lst.brand_positions", "{b} 在各次回答列表中的位次", "Positions of {b} in each answer's list"),
    ("lst.repeat", "第 {n} 次", "Repeat {n}"),
    ("lst.rbo", "RBO", "RBO"),
    ("lst.failed", "失败", "failed"),
    ("lst.untracked", "未跟踪的实体", "Untracked entities"),
    ("lst.untracked_help", "列表中出现、但不是品牌或已知竞品的名称。加为竞品会更新项目，之后的批次才会跟踪它；已有批次不变。", "Names in the lists that are neither the brand nor a known competitor. Adding one updates the project so later runs track it; past runs stay unchanged."),
    ("lst.untracked_none", "没有未跟踪的实体。", "No untracked entities."),
    ("lst.times", "{n} 次", "{n}×"),
    ("lst.add", "加为竞品", "Add as competitor"),
    ("lst.add_label", "加为竞品：{n}", "Add as competitor: {n}"),
    ("lst.added", "已把 {n} 加为竞品", "{n} added as a competitor"),
    ("lst.already", "{n} 已在跟踪中", "{n} is already tracked"),
    ("lst.per_probe", "各次回答的推荐列表", "Each answer's list"),
    ("lst.no_list", "这次回答没有推荐列表。", "No list in this answer."),
    ("exp.full_title", "全量备份", "Full backup"),
    ("exp.run_title", "当前批次", "Selected run"),
    ("exp.run_line", "项目 {p} · {d} · 批次 {id}", "Project {p} · {d} · run {id}"),
    ("exp.no_run", "还没有批次——完成一次运行后可以导出单批次文件。", "No run yet — finish a run to export its files."),
    ("exp.run_json", "下载批次 JSON", "Download run JSON"),
    ("exp.run_json_help", "这个批次、它的探测、所属项目和用到的提示词；可再次导入。", "This run, its probes, its project and the prompts it used; can be imported again."),
    ("exp.probes_csv", "下载探测 CSV", "Download probes CSV"),
    ("exp.probes_csv_help", "每条探测一行：提示词、状态、是否提及、顺位、来源数等。", "One row per probe: prompt, status, mention, order, source counts…"),
    ("exp.sources_csv", "下载来源 CSV", "Download sources CSV"),
    ("exp.sources_csv_help", "每个检索到的来源一行：网址、标题、域名、平台、渠道、排名。", "One row per retrieved source: URL, title, domain, platform, channel, rank."),
    ("exp.markdown", "下载 Markdown 报告", "Download Markdown report"),
    ("exp.markdown_help", "当前界面语言的可读报告：指标、洞察、来源和各提示词结果。", "A readable report in the interface language: figures, insights, sources, prompts."),
    ("exp.privacy", "隐私提示：导出文件包含模型回答和第三方网页来源，分享前请检查；API Key 和设置永远不会被导出。", "Privacy: exports hold the model's answers and third-party sources — check them before sharing; the API key and settings are never exported."),
    //
    //
    //
    // ---- docs chat: rows added by that work go below this line ----
    ("chat.memory_note", "Key、资料和对话只保存在当前页面的内存中，不写入浏览器存储、Cookie 或网址；刷新页面（或离开本页）会清除 Key、资料和对话，需要保留请先导出。", "The key, documents and conversation live only in this page's memory — never in browser storage, cookies or the URL; refreshing the page (or leaving it) clears the key, documents and conversation, so export first to keep them."),
    ("chat.docs", "资料", "Documents"),
    ("chat.samples_failed", "示例文档加载失败（{detail}）；请检查网络后重试，或选择自己的文件", "the sample documents could not be loaded ({detail}); check the connection and try again, or choose your own files"),
    ("chat.pick", "选择 TXT / Markdown 文件（可多选）", "Choose TXT / Markdown files (several allowed)"),
    ("chat.drop_help", "也可以把文件拖到这里。只接受 TXT 和 Markdown；单个文件最大 5 MB，全部资料合计最大 20 MB。", "Or drop files here. Only TXT and Markdown; at most 5 MB per file and 20 MB in total."),
    ("chat.load_sample", "载入示例资料", "Load sample docs"),
    ("chat.file_not_text", "{name} 不是 TXT 或 Markdown 文件，已跳过；请选择 .txt 或 .md 文件", "{name} is not a txt or markdown file and was skipped; choose .txt or .md files"),
    ("chat.file_too_big", "{name} 有 {mb} MB，超过单个文件 5 MB 的上限，已跳过；请拆分后再载入", "{name} is {mb} mb, over the 5 mb limit per file, and was skipped; split it and load the parts"),
    ("chat.total_too_big", "载入 {name} 会使资料合计超过 20 MB（已载入 {mb} MB），已跳过；请先移除一些资料", "loading {name} would take the documents over 20 mb in total ({mb} mb loaded) and it was skipped; remove some documents first"),
    ("chat.file_unreadable", "无法读取 {name}；请确认文件可以打开后重试", "cannot read {name}; check that the file opens and try again"),
    ("chat.doc_meta", "{chunks} 块 · {kb} KB", "{chunks} chunks · {kb} KB"),
    ("chat.remove", "移除", "Remove"),
    ("chat.remove_doc", "移除 {name}", "Remove {name}"),
    ("chat.ask", "提问", "Ask"),
    ("chat.key", "DeepSeek API Key（只在本页内存中）", "DeepSeek API key (page memory only)"),
    ("chat.key_help", "Key 只用于本页发出的请求，不会保存；刷新页面后需要重新输入。", "The key is only used for this page's requests and is never saved; enter it again after a refresh."),
    ("chat.model", "模型", "Model"),
    ("chat.advanced", "高级：API 地址（代理或测试）", "Advanced: API base URL (proxy or tests)"),
    ("chat.base_url", "API 基础地址", "API base URL"),
    ("chat.base_url_help", "留空时请求 https://api.deepseek.com/chat/completions；填写代理地址时会请求 <地址>/chat/completions，代理可以代为添加 Key。", "Empty: requests go to https://api.deepseek.com/chat/completions; with a proxy address they go to <address>/chat/completions and the proxy may add the key."),
    ("chat.question", "问题（最多 4000 字符）", "Question (at most 4000 characters)"),
    ("chat.question_placeholder", "例如：RAG 分块和检索有什么关系？", "e.g. How do chunking and retrieval relate in RAG?"),
    ("chat.send", "发送", "Send"),
    ("chat.retrieve_only", "只看检索", "Retrieve only"),
    ("chat.stop", "停止生成", "Stop"),
    ("chat.export", "导出对话（Markdown）", "Export conversation (Markdown)"),
    ("chat.need_key", "请输入 DeepSeek API Key，或在“高级”中填写会代为添加 Key 的代理地址，或在“设置”中启用本地代理（geo-probe proxy）", "enter your DeepSeek api key, set the base url of a proxy that adds it under advanced, or turn on the local proxy (geo-probe proxy) in settings"),
    ("chat.via_proxy", "本页不填 Key 和代理地址时，问题经本地代理 {url}（geo-probe proxy，设置中已启用）发送，由它添加 DeepSeek 的 Key。", "With no key and no base URL here, questions go through the local proxy {url} (geo-probe proxy, on in Settings), which adds DeepSeek's key."),
    ("chat.no_docs", "还没有载入资料；请先选择文件或载入示例资料", "no documents loaded yet; choose files or load the sample docs first"),
    ("chat.hits_title", "检索结果：{q}", "Retrieved passages: {q}"),
    ("chat.no_hits", "没有检索到与问题相关的资料片段：已载入的资料不包含问题中的关键词。可以换个说法，或载入更多资料。", "No passage matched the question: the loaded documents do not contain its keywords. Rephrase it or load more documents."),
    ("chat.hit_label", "{name} · 第 {chunk} 块 · 分数 {score}", "{name} · chunk {chunk} · score {score}"),
    ("chat.test_timeout", "测试模式：网址参数 chatTimeoutMs 把回答时限从 120 秒缩短为 {ms} 毫秒", "Test mode: the chatTimeoutMs URL parameter shortens the answer time limit from 120 s to {ms} ms"),
    ("chat.sources", "本轮资料片段（点击查看原文）", "Sources of this turn (click to read the text)"),
    //
    //
    //
    // ---- demo data and settings additions: rows added by that work go below this line ----
    ("demo.section", "示例数据", "Demo data"),
    ("demo.help", "首次访问时会自动载入示例项目：两周的 DeepSeek 批次，以及最新一周其他 8 个引擎各一个批次（由录制的回答生成，分析口径与真实探测相同；引擎对比页可以看到 Gemini 漏掉了品牌）。删除后刷新也不会再出现，可随时恢复。", "On a first visit the example project is loaded: two weekly DeepSeek runs and, in the newest week, one run of each of the eight other engines (built from recorded answers, analysed like a live probe; the Engines page shows Gemini leaving the brand out). Once deleted it stays away after a reload; restore it at any time."),
    ("demo.restore", "恢复示例数据", "Restore demo data"),
    ("demo.delete", "删除示例数据", "Delete demo data"),
    ("demo.restored", "已恢复示例数据", "Demo data restored"),
    ("demo.deleted", "已删除示例数据", "Demo data deleted"),
    ("demo.delete_title", "删除示例数据？", "Delete the demo data?"),
    ("demo.delete_body", "示例项目及其提示词、批次和探测结果将被删除，刷新后不会自动恢复；可在此处再次恢复。", "The example project with its prompts, runs and probes is deleted and does not come back on reload; you can restore it here."),
    ("demo.fetch_failed", "无法加载示例数据，未做任何更改；请检查网络后重试", "cannot load the demo data, nothing was changed: check the connection and try again"),
    ("demo.bad_file", "示例数据文件无效，未做任何更改；请重新部署 demo/demo-data.json", "the demo data file is invalid, nothing was changed: redeploy demo/demo-data.json"),
    ("demo.missing", "此部署没有示例数据（demo/demo-data.json）；运行 cargo xtask demo 生成后重新部署", "this deployment has no demo data (demo/demo-data.json): run cargo xtask demo and deploy again"),
    //
    //
    //
    // ---- storage errors (quota and other refusals, in both languages): rows added by that work go below this line ----
    ("repo.open", "无法打开本地存储（{m}）：请允许此网站保存数据后刷新页面", "cannot open local storage ({m}): allow site data for this page and reload"),
    ("repo.quota", "浏览器存储空间已满，未保存任何内容：请导出并删除旧批次后重试", "browser storage is full, nothing was saved: export and delete old runs, then try again"),
    ("repo.write", "未保存任何内容（{m}）：请重试", "nothing was saved ({m}): try again"),
    ("repo.read", "无法读取本地数据（{m}）：请刷新页面", "cannot read local data ({m}): reload the page"),
    ("repo.refused", "未保存任何内容：{m}", "nothing was saved: {m}"),
    ("repo.decode", "存储的数据格式异常（{m}）：请导出数据并报告此问题", "stored data has an unexpected shape ({m}): export it and report the problem"),
    //
    //
    //
    // ---- webpages (pagination, drill-down to the probe drawer): rows added by that work go below this line ----
    ("pager.prev", "上一页", "Previous"),
    ("pager.next", "下一页", "Next"),
    ("pager.status", "第 {x}–{y} 行，共 {n} 行", "Rows {x}–{y} of {n}"),
    ("pager.page", "第 {p} / {m} 页", "page {p} of {m}"),
    ("pager.probes", "探测表分页", "Probe table pages"),
    ("pager.domains", "域名表分页", "Domain table pages"),
    ("pager.urls", "{d} 的网址分页", "Pages of the URLs of {d}"),
    ("pager.lists", "逐条探测榜单分页", "Pages of the per-probe lists"),
    ("pager.prompts", "提示词表分页", "Prompt table pages"),
    ("pager.brand_positions", "品牌榜单位置表分页", "Brand list position table pages"),
    ("pg.open_probe", "打开探测详情：{x}", "Open the probe: {x}"),
    //
    //
    //
    // ---- issue 38, web part 1: a location per run (run page, probe drawer, run detail) ----
    ("run.location", "位置（可选）", "Location (optional)"),
    ("run.location_help", "联网搜索的结果因地区而异：在这里设定提问者所在的位置，每个引擎按它支持的方式接收。国家留空即不设位置。", "Web search is local: say where the asker is, and each engine gets it the one way it has. Leave the country empty for no location."),
    ("run.location_country", "国家或地区（名称或代码）", "Country (name or code)"),
    ("run.location_region", "省 / 州（可选）", "Region or state (optional)"),
    ("run.location_city", "城市（可选）", "City (optional)"),
    ("run.timezone", "时区（IANA，可选）", "Time zone (IANA, optional)"),
    ("run.location_prompt", "对没有位置字段的引擎，在系统提示词末尾加一行 “User location: …”", "Add the line “User location: …” to the system prompt of engines without a location field"),
    ("run.location_recent", "最近使用：", "Recent:"),
    ("run.location_use", "使用位置 {x}", "Use the location {x}"),
    ("run.location_unknown_country", "国家列表中没有 “{given}”：请从列表中选择，或输入国家名称或两个字母的 ISO 代码（如 CN、US）", "“{given}” is not a country of the list: pick one, or type its name or its two-letter ISO code (such as CN or US)"),
    ("run.location_no_country", "请先选择国家：地区、城市和时区都需要国家", "Choose a country first: a region, city or time zone needs one"),
    ("run.location_unknown_zone", "本浏览器的时区数据库中没有 “{given}”：请从列表中选择一个时区", "“{given}” is not a time zone of this browser's database: pick one from the list"),
    ("run.location_reason", "位置有误，未发送任何请求：{why}", "The location is not valid, so nothing is sent: {why}"),
    ("drawer.location", "位置", "Location"),
    ("drawer.location_request", "写入请求的 user_location 字段", "sent in the request's user_location field"),
    ("drawer.location_prompt", "以系统提示词末尾的一行 “User location: …” 发送", "sent as the system prompt's line “User location: …”"),
    ("drawer.location_not_sent", "未发送：该引擎没有位置字段，且本批次关闭了系统提示词中的位置行", "not sent: this engine has no location field and the run switched the system-prompt line off"),
    ("drawer.location_app", "在应用中采集回答时的位置", "where the app's answers were captured"),
    ("drawer.location_none", "本批次未设置位置", "This run set no location"),
    ("detail.location", "位置与来源", "Location and surface"),
    ("detail.no_location", "未设置位置", "no location"),
    //
    //
    //
];

/// [`TABLE`] as one list of fields: key, Chinese, English.
// A `const` on purpose: it is only read at compile time, by `PACKED`, and never lands in the
// module (a `static` would, with the pointers the packing exists to drop).
#[allow(clippy::large_const_arrays)]
const FIELDS: [&str; TABLE.len() * 3] = {
    let mut out = [""; TABLE.len() * 3];
    let mut i = 0;
    while i < TABLE.len() {
        (out[3 * i], out[3 * i + 1], out[3 * i + 2]) = TABLE[i];
        i += 1;
    }
    out
};

/// The texts as one block (geo-core's `text::packed`): the table itself is only read at
/// compile time, so the wasm module holds one string instead of three pointers per row as
/// well (`docs/adr/0014-site-size.md`); [`rows`] splits it once, on first use.
static PACKED: [u8; packed_len(&FIELDS)] = pack(&FIELDS);

/// The rows of [`TABLE`], split from [`PACKED`] on first use.
fn rows() -> &'static [(&'static str, &'static str, &'static str)] {
    static ROWS: std::sync::OnceLock<Vec<(&'static str, &'static str, &'static str)>> = std::sync::OnceLock::new();
    ROWS.get_or_init(|| {
        let mut f = fields(&PACKED);
        let mut rows = Vec::with_capacity(TABLE.len());
        while let (Some(key), Some(zh), Some(en)) = (f.next(), f.next(), f.next()) {
            rows.push((key, zh, en));
        }
        rows
    })
}

/// The text of `key` in `lang`; the key itself when the table has no such row.
pub fn t(lang: Lang, key: &str) -> &str {
    match rows().iter().find(|(k, _, _)| *k == key) {
        Some((_, zh, en)) => match lang {
            Lang::Zh => zh,
            Lang::En => en,
        },
        None => key,
    }
}

/// `t` with `{name}` placeholders replaced by `args`.
pub fn tf(lang: Lang, key: &str, args: &[(&str, &str)]) -> String {
    let mut out = t(lang, key).to_string();
    for (name, value) in args {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn lookups_and_placeholders() {
        assert_eq!(t(Lang::Zh, "nav.projects"), "项目");
        assert_eq!(t(Lang::En, "nav.projects"), "Projects");
        assert_eq!(t(Lang::En, "no.such.key"), "no.such.key");
        assert_eq!(tf(Lang::En, "projects.prompts_added", &[("n", "3")]), "3 prompts added");
    }

    #[test]
    fn the_packed_rows_are_the_table() {
        assert_eq!(rows(), TABLE);
    }

    #[test]
    fn rows_are_unique_and_complete() {
        let mut seen = BTreeSet::new();
        for (k, zh, en) in TABLE {
            assert!(seen.insert(*k), "duplicate key {k}");
            assert!(!zh.is_empty() && !en.is_empty(), "empty text for {k}");
        }
    }

    /// Every literal key passed to `t(`/`tf(` in the crate has a row.
    #[test]
    fn every_used_key_has_a_row() {
        let keys: BTreeSet<&str> = TABLE.iter().map(|(k, _, _)| *k).collect();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut missing = Vec::new();
        let mut used = 0;
        let mut stack = vec![dir];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.ends_with("i18n.rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for (i, _) in text.match_indices(", \"") {
                    let before = &text[..i];
                    let Some(open) = before.rfind('(') else { continue };
                    let ident = before[..open].rsplit(|c: char| !(c.is_alphanumeric() || c == '_')).next();
                    let args = &before[open..];
                    if !matches!(ident, Some("t" | "tf")) || args.contains([')', '\n', ';', '"']) {
                        continue;
                    }
                    let rest = &text[i + 3..];
                    let key = &rest[..rest.find('"').unwrap_or(0)];
                    if key.contains('.') && !key.contains(' ') {
                        used += 1;
                        if !keys.contains(key) {
                            missing.push(format!("{}: {key}", path.display()));
                        }
                    }
                }
            }
        }
        assert!(missing.is_empty(), "keys without a row: {missing:?}");
        assert!(used > 80, "the scan found only {used} uses: is it still matching `t(lang, \"key\")`?");
    }
}
