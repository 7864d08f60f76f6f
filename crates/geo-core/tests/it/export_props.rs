//! Properties: export → parse_export → export is the identity for arbitrary small
//! envelopes, and parse_export never panics, whatever the text.

use crate::builders::usage;
use std::sync::OnceLock;

use crate::export_support::{sample_store, EXPORTED_AT};
use geo_core::export::{full_export, parse_export, run_export, to_json_pretty, ImportLimits};
use geo_core::model::*;
use proptest::collection::vec;
use proptest::option::of;
use proptest::prelude::*;

/// Short arbitrary Unicode, control characters and quotes included.
fn s() -> impl Strategy<Value = String> {
    vec(any::<char>(), 0..6).prop_map(String::from_iter)
}

fn strs() -> impl Strategy<Value = Vec<String>> {
    vec(s(), 0..2)
}

fn target() -> impl Strategy<Value = Target> {
    (s(), prop::sample::select(TargetKind::ALL.to_vec()), s(), strs(), strs())
        .prop_map(|(id, kind, label, aliases, domains)| Target { id, kind, label, aliases, domains })
}

fn prompt() -> impl Strategy<Value = Prompt> {
    (s(), s(), s(), strs(), s(), s()).prop_map(|(id, project_id, text, tags, created_at, updated_at)| Prompt {
        id,
        project_id,
        text,
        tags,
        created_at,
        updated_at,
    })
}

fn project() -> impl Strategy<Value = Project> {
    (s(), s(), target(), vec(target(), 0..2), any::<bool>(), s(), s()).prop_map(
        |(id, name, brand, competitors, is_demo, created_at, updated_at)| Project {
            id,
            name,
            brand,
            competitors,
            is_demo,
            created_at,
            updated_at,
            facts: Vec::new(),
            watch_terms: Vec::new(),
        },
    )
}

fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![(0u32..=20).prop_map(|t| f64::from(t) / 10.0), any::<f64>().prop_filter("finite", |f| f.is_finite()),]
}

/// Locations a run may carry, each keeping the rule of `Location::check`.
static LOCATIONS: std::sync::LazyLock<[Location; 3]> = std::sync::LazyLock::new(|| {
    let l = |loc: &str, tz: Option<&str>| Location::from_flags(Some(loc), tz).unwrap().unwrap();
    [l("CN/浙江/杭州", Some("Asia/Shanghai")), l("US", None), l("DE/Berlin", Some("Etc/GMT-1"))]
});

fn run() -> impl Strategy<Value = Run> {
    let status = prop::sample::select(RunStatus::ALL.to_vec());
    let config = (s(), any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>(), finite_f64(), s()).prop_map(
        |(model, repeats, concurrency, max_searches, max_tokens, temperature, system_prompt_version)| RunConfig {
            engine: EngineId::Deepseek,
            model,
            repeats,
            concurrency,
            max_searches,
            max_tokens,
            temperature,
            system_prompt_version,
            reasoning_effort: (max_tokens % 4 != 0).then(|| ReasoningEffort::ALL[(max_tokens % 3) as usize]),
            thinking_budget: (max_tokens % 2 == 0).then_some(max_tokens / 2),
            location: (max_tokens % 5 == 0).then(|| LOCATIONS[(repeats % 3) as usize].clone()),
            location_prompt: max_tokens % 7 != 0,
        },
    );
    (
        (s(), s(), status, s(), of(s()), of(s())),
        (s(), any::<u32>(), config, vec(target(), 0..2), vec(prompt(), 0..2), any::<u32>()),
    )
        .prop_map(
            |(
                (id, project_id, status, created_at, finished_at, previous_run_id),
                (app_version, schema_version, config, alias_snapshot, prompt_snapshot, planned_probe_count),
            )| Run {
                id,
                project_id,
                status,
                created_at,
                finished_at,
                previous_run_id,
                app_version,
                schema_version,
                config,
                alias_snapshot,
                prompt_snapshot,
                planned_probe_count,
                group_id: None,
                fact_snapshot: None,
                surface: if planned_probe_count % 4 == 0 { Surface::App } else { Surface::Api },
            },
        )
}

fn ownership() -> impl Strategy<Value = Ownership> {
    prop::sample::select(Ownership::ALL.to_vec())
}

/// answer, sources, mentions, listItems, otherEntities, answerLinks.
type Derived = (String, Vec<SearchSource>, Vec<Mention>, Vec<ListItem>, Vec<String>, Vec<AnswerLink>);

fn derived() -> impl Strategy<Value = Derived> {
    let occurrence = (any::<u32>(), of(s()), any::<u32>()).prop_map(|(query_index, query, rank)| Occurrence {
        query_index,
        query,
        rank,
    });
    let source = (
        (s(), s(), s(), s(), s(), of(s()), s()),
        (s(), ownership(), of(s()), vec(occurrence, 0..2), any::<u32>(), strs()),
    )
        .prop_map(
            |(
                (id, url, host, domain, title, page_age, platform),
                (channel, ownership, competitor_id, occurrences, best_rank, title_mentions),
            )| {
                SearchSource {
                    id,
                    url,
                    host,
                    domain,
                    title,
                    page_age,
                    platform,
                    channel,
                    ownership,
                    competitor_id,
                    occurrences,
                    best_rank,
                    title_mentions,
                    cited: None,
                }
            },
        );
    let mention = (s(), any::<u32>(), any::<u32>(), any::<u32>(), s(), strs(), of(any::<u32>())).prop_map(
        |(target_id, count, order, first_index, context, matched_aliases, list_position)| Mention {
            target_id,
            count,
            order,
            first_index,
            context,
            matched_aliases,
            list_position,
            position_adjusted_word_count: None,
        },
    );
    let item = (any::<u32>(), s(), s(), of(s())).prop_map(|(position, title, text, matched_target_id)| ListItem {
        position,
        title,
        text,
        matched_target_id,
    });
    let link = (s(), s(), s(), of(s()), any::<bool>()).prop_map(|(url, canonical_url, domain, text, in_sources)| {
        AnswerLink { url, canonical_url, domain, text, in_sources }
    });
    (s(), vec(source, 0..2), vec(mention, 0..2), vec(item, 0..2), strs(), vec(link, 0..2))
}

fn probe() -> impl Strategy<Value = Probe> {
    let status = prop::sample::select(ProbeStatus::ALL.to_vec());
    let kind = prop::sample::select(ErrorKind::ALL.to_vec());
    let error = of((kind, of(any::<u16>()), s()).prop_map(|(kind, http_status, message)| ProbeError {
        kind,
        http_status,
        message,
    }));
    let usage = any::<[u64; 4]>().prop_map(|u| usage(u[0], u[1], u[2], u[3]));
    let query = (any::<u32>(), of(s()), any::<bool>(), of(s())).prop_map(|(index, query, internal, error)| Query {
        index,
        query,
        internal,
        error,
    });
    let raw_source =
        (any::<u32>(), any::<u32>(), s(), s(), of(s())).prop_map(|(query_index, rank, title, url, page_age)| {
            RawSource { query_index, rank, title, url, page_age, site_name: None }
        });
    (
        (s(), s(), s(), s(), any::<u32>(), status, s(), s()),
        (any::<u32>(), any::<u64>(), error, of(s()), of(s()), usage, s()),
        (vec(query, 0..2), vec(raw_source, 0..2), derived()),
    )
        .prop_map(
            |(
                (id, run_id, project_id, prompt_id, repeat_index, status, created_at, model),
                (attempts, latency_ms, error, request_id, stop_reason, usage, raw_answer),
                (queries, raw_sources, (answer, sources, mentions, list_items, other_entities, answer_links)),
            )| Probe {
                id,
                run_id,
                project_id,
                prompt_id,
                repeat_index,
                status,
                created_at,
                model,
                attempts,
                latency_ms,
                error,
                request_id,
                stop_reason,
                usage,
                truncated: false,
                billed_usage: None,
                continuations: 0,
                cost_usd: None,
                raw_answer,
                queries,
                raw_sources,
                raw_citations: None,
                answer,
                sources,
                mentions,
                list_items,
                other_entities,
                answer_links,
                claims: Vec::new(),
                risk_flags: Vec::new(),
                location_applied: LocationApplied::ALL[(attempts % 3) as usize],
            },
        )
}

/// Makes ids unique per kind (duplicates are refused by design) by prefixing the index.
fn unique<T>(mut items: Vec<T>, id: impl Fn(&mut T) -> &mut String) -> Vec<T> {
    for (i, item) in items.iter_mut().enumerate() {
        let slot = id(item);
        *slot = format!("{i}{slot}");
    }
    items
}

fn envelope() -> impl Strategy<Value = ExportEnvelope> {
    (vec(project(), 0..3), vec(prompt(), 0..3), vec(run(), 0..3), vec(probe(), 0..3)).prop_map(
        |(projects, prompts, runs, probes)| {
            let mut projects = unique(projects, |p| &mut p.id);
            for p in &mut projects {
                // Target ids are unique within a project.
                p.brand.id = format!("b{}", p.brand.id);
                p.competitors = unique(std::mem::take(&mut p.competitors), |t| &mut t.id);
            }
            full_export(
                projects,
                unique(prompts, |p| &mut p.id),
                unique(runs, |r| &mut r.id),
                unique(probes, |p| &mut p.id),
                EXPORTED_AT,
            )
        },
    )
}

fn valid_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        // The older run of the fixture: one probe, every kind of record, about 4 KB.
        to_json_pretty(&run_export(&sample_store(), "run_a", EXPORTED_AT).unwrap())
    })
}

/// Applies edits at char positions: (position, 0 delete | 1 insert | 2 replace, char).
fn mutate(text: &str, edits: &[(usize, u8, char)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for &(pos, op, c) in edits {
        if chars.is_empty() {
            chars.push(c);
            continue;
        }
        let at = pos % chars.len();
        match op % 3 {
            0 => {
                chars.remove(at);
            }
            1 => chars.insert(at, c),
            _ => chars[at] = c,
        }
    }
    chars.into_iter().collect()
}

fn json_char() -> impl Strategy<Value = char> {
    prop_oneof![
        prop::sample::select(vec!['{', '}', '[', ']', '"', ':', ',', '\\', '0', '-', '.', 'e', 'n', 't', ' ', '1']),
        any::<char>(),
    ]
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn export_parse_export_is_identity(env in envelope()) {
        let text = to_json_pretty(&env);
        let back = parse_export(&text, &ImportLimits::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &env);
        let again = full_export(back.projects, back.prompts, back.runs, back.probes, EXPORTED_AT);
        prop_assert_eq!(to_json_pretty(&again), text);
    }

    #[test]
    fn parse_export_never_panics_on_arbitrary_text(text in any::<String>()) {
        if let Err(e) = parse_export(&text, &ImportLimits::default()) {
            prop_assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn parse_export_never_panics_on_damaged_exports(edits in vec((any::<usize>(), any::<u8>(), json_char()), 1..6)) {
        let text = mutate(valid_text(), &edits);
        match parse_export(&text, &ImportLimits::default()) {
            Ok(env) => {
                // Whatever was accepted exports and parses again.
                let again = to_json_pretty(&env);
                prop_assert!(parse_export(&again, &ImportLimits::default()).is_ok());
            }
            Err(e) => prop_assert!(!e.to_string().contains('\n')),
        }
    }
}
