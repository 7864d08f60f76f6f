//! Interface text: `t(lang, key)` over one table, Chinese first, English beside it.
//!
//! Keys are dotted (`nav.projects`). An unknown key renders as itself, so a typo shows on
//! screen instead of panicking; the tidy test below checks that every `t(…, "key")` in the
//! sources has a row here, and that no row is defined twice.

use geo_core::model::Lang;

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
    ("nav.sources", "来源", "Sources"),
    ("nav.lists", "推荐榜", "Lists"),
    ("nav.export", "导出", "Export"),
    ("nav.settings", "设置", "Settings"),
    ("nav.chat", "文档问答", "Docs chat"),
    ("lang.toggle", "EN", "中文"),
    ("lang.toggle_label", "Switch to English", "切换到中文"),
    ("project.select", "当前项目", "Current project"),
    ("project.none", "（无项目）", "(no project)"),
    ("run.select", "当前批次", "Current run"),
    ("run.none", "（无批次）", "(no runs)"),
    ("storage.opening", "正在打开本地数据…", "Opening local data…"),
    ("common.loading", "加载中…", "Loading…"),
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
    ("runs.title", "批次", "Runs"),
    ("runs.empty", "还没有批次——创建项目后开始一次运行。", "No runs yet — create a project and start a run."),
    ("runs.created", "创建时间", "Created"),
    ("runs.status", "状态", "Status"),
    ("runs.model", "模型", "Model"),
    ("runs.planned", "计划探测数", "Planned probes"),
    ("runs.open", "查看", "Open"),
    ("status.running", "运行中", "Running"),
    ("status.completed", "已完成", "Completed"),
    ("status.partial", "部分完成", "Partial"),
    ("status.failed", "失败", "Failed"),
    ("status.cancelled", "已取消", "Cancelled"),
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
    ("settings.base_url", "自定义 API 地址（可选）", "Custom API base URL (optional)"),
    ("settings.base_url_help", "留空则直连 DeepSeek。填写代理地址后可以不填 Key（代理模式），请求经过代理，请自行评估其可信度。", "Leave empty to call DeepSeek directly. With a proxy URL the key may stay empty (proxy mode); requests then pass through the proxy, so trust it first."),
    ("settings.bad_url", "API 地址必须以 http:// 或 https:// 开头", "the base URL must start with http:// or https://"),
    ("settings.save", "保存设置", "Save settings"),
    ("settings.saved", "设置已保存", "Settings saved"),
    ("settings.data", "本地数据", "Local data"),
    ("settings.data_help", "项目、提示词、批次和探测结果都只保存在本浏览器的 IndexedDB 中；换浏览器或清除站点数据后不可恢复，请先导出备份。", "Projects, prompts, runs and probes live only in this browser's IndexedDB; another browser or clearing site data loses them, so export a backup first."),
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
    ("run.already_running", "本标签页已有一个批次在运行：等它结束或先取消", "a run is already running in this tab: wait for it or cancel it first"),
    ("run.reason_running", "正在运行——完成或取消后才能开始新的批次。", "A run is in progress — finish or cancel it before starting another."),
    ("run.reason_no_prompt", "请至少勾选一条提示词。", "Select at least one prompt."),
    ("run.reason_numbers", "重复次数、并发数和最大搜索次数都必须是正整数。", "Repeats, concurrency and max searches must be positive whole numbers."),
    ("run.select_all", "全选", "Select all"),
    ("run.select_none", "全不选", "Select none"),
    ("run.concurrency", "并发数（1–3）", "Concurrency (1–3)"),
    ("run.max_searches", "每次最多搜索", "Max searches per probe"),
    ("run.estimate", "预计 {probes} 次探测，约 ${cost}，约 {seconds} 秒", "About {probes} probes, ~${cost}, ~{seconds} s"),
    ("run.estimate_history", "（按上一批次的平均用量估算）", "(from the last run's averages)"),
    ("run.estimate_defaults", "（按默认用量估算）", "(from default averages)"),
    ("run.start", "开始运行", "Start run"),
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
    //
    //
    //
    // ---- docs chat: rows added by that work go below this line ----
    //
    //
    //
    // ---- demo data and settings additions: rows added by that work go below this line ----
    //
    //
    //
];

/// The text of `key` in `lang`; the key itself when the table has no such row.
pub fn t(lang: Lang, key: &str) -> &str {
    match TABLE.iter().find(|(k, _, _)| *k == key) {
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
