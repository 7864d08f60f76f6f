//! The fact sheet in an import (data-model.md, "What the answers say"): a project's `facts`
//! and `watchTerms` and a run's `factSnapshot` are read and checked like every other record,
//! by the one parser of `geo-probe validate` and the web import; an invalid fact is refused
//! with its path and named by its id. A `--facts` file (`parse_facts_file`) is refused or
//! taken exactly as the same sheet in an export is, and whatever either takes, `start_run`
//! takes too.

use crate::export_hostile::everything;
use geo_core::export::{parse_export, ImportLimits};
use geo_core::limits::{MAX_FACTS, MAX_WATCH_TERMS};
use geo_core::model::*;
use geo_core::project::{parse_facts_file, validate_fact_sheet};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use serde_json::{json, Value};

/// [`everything`] as JSON, changed by `edit`, then imported: `ok`, or every problem shown.
fn import(edit: impl FnOnce(&mut Value)) -> Vec<String> {
    let mut file = serde_json::to_value(everything()).unwrap();
    edit(&mut file);
    match parse_export(&file.to_string(), &ImportLimits::default()) {
        Ok(_) => vec!["ok".into()],
        Err(e) => e.problems.iter().map(|p| p.to_string()).collect(),
    }
}

#[track_caller]
fn check(edit: impl FnOnce(&mut Value), expect: &[&str]) {
    assert_eq!(import(edit), expect);
}

#[test]
fn a_project_s_sheet_and_a_run_s_snapshot_survive_the_import() {
    check(|_| {}, &["ok"]);
    let env = parse_export(&serde_json::to_string(&everything()).unwrap(), &ImportLimits::default()).unwrap();
    assert_eq!(env.projects[0].facts[0].id, "price");
    assert_eq!(env.projects[0].watch_terms, ["跑路"]);
    let snapshot = env.runs[0].fact_snapshot.as_ref().expect("the run's factSnapshot is kept");
    assert_eq!((snapshot.facts.len(), &snapshot.watch_terms[..]), (1, &["跑路".to_string()][..]));
    // Absent or null: an older export.
    check(
        |f| {
            f["projects"][0]["facts"] = Value::Null;
            f["projects"][0].as_object_mut().unwrap().remove("watchTerms");
            f["runs"][0]["factSnapshot"] = Value::Null;
        },
        &["ok"],
    );
}

#[test]
fn an_invalid_fact_is_refused_with_its_path_and_its_id() {
    let project = |edit: fn(&mut Value)| move |f: &mut Value| edit(&mut f["projects"][0]["facts"][0]);
    let run = |edit: fn(&mut Value)| move |f: &mut Value| edit(&mut f["runs"][0]["factSnapshot"]["facts"][0]);
    check(
        project(|fact| fact["kind"] = json!("date")),
        &[r#"projects[0].facts[0].kind: fact "price" has the unknown kind "date"; use year, number, money or text"#],
    );
    check(
        run(|fact| fact["kind"] = json!("date")),
        &[
            r#"runs[0].factSnapshot.facts[0].kind: fact "price" has the unknown kind "date"; use year, number, money or text"#,
        ],
    );
    check(
        run(|fact| {
            fact.as_object_mut().unwrap().remove("kind");
        }),
        &[r#"runs[0].factSnapshot.facts[0].kind: fact "price" has no kind; use year, number, money or text"#],
    );
    check(
        project(|fact| fact["currency"] = json!("GBP")),
        &[r#"projects[0].facts[0].currency: fact "price" has the unknown currency "GBP"; use CNY, USD or EUR"#],
    );
    check(
        project(|fact| fact["cues"] = json!([" "])),
        &[
            r#"projects[0].facts[0].cues: fact "price" has no cue; give at least one word that puts a sentence on its topic, such as 成立 or founded"#,
        ],
    );
    check(run(|fact| fact["kind"] = json!("text")), &["ok"]);
    check(
        run(|fact| (fact["kind"], fact["accepted"]) = (json!("text"), json!([]))),
        &[r#"runs[0].factSnapshot.facts[0].accepted: text fact "price" has no accepted value; give at least one"#],
    );
    check(
        run(|fact| (fact["kind"], fact["value"]) = (json!("year"), json!(999))),
        &[
            r#"runs[0].factSnapshot.facts[0].value: fact "price" has the year 999; give a whole number from 1000 to 2999"#,
        ],
    );
    check(
        project(|fact| fact["tolerance"] = json!(-0.1)),
        &[
            r#"projects[0].facts[0].tolerance: fact "price" has the tolerance -0.1; give a relative tolerance from 0 to 1 (0.1 = within 10 %)"#,
        ],
    );
    check(project(|fact| fact["cues"] = json!("售价")), &[r#"projects[0].facts[0].cues: expected array, got "售价""#]);
}

#[test]
fn a_fact_names_a_target_of_its_own_project_or_run() {
    // `rival` is a competitor of the project but not in the run's aliasSnapshot.
    let rival = |f: &mut Value| {
        f["projects"][0]["facts"][0]["targetId"] = json!("rival");
        f["runs"][0]["factSnapshot"]["facts"][0]["targetId"] = json!("rival");
    };
    check(
        rival,
        &[
            r#"runs[0].factSnapshot.facts[0].targetId: fact "price" is about "rival", which is neither the brand nor a competitor; choose the brand or a competitor"#,
        ],
    );
    check(
        |f| {
            f["projects"][0]["facts"][0]["targetId"] = json!("ghost");
            let twin = f["projects"][0]["facts"][0].clone();
            f["projects"][0]["facts"].as_array_mut().unwrap().push(twin);
        },
        &[
            r#"projects[0].facts[0].targetId: fact "price" is about "ghost", which is neither the brand nor a competitor; choose the brand or a competitor"#,
            r#"projects[0].facts[1].id: fact id "price" is used twice (also by fact 1); give every fact its own id"#,
            r#"projects[0].facts[1].targetId: fact "price" is about "ghost", which is neither the brand nor a competitor; choose the brand or a competitor"#,
        ],
    );
}

#[test]
fn a_sheet_past_its_limits_is_refused() {
    check(
        |f| {
            let fact = f["projects"][0]["facts"][0].clone();
            f["projects"][0]["facts"] = (0..=MAX_FACTS)
                .map(|i| {
                    let mut fact = fact.clone();
                    fact["id"] = json!(format!("f{i}"));
                    fact
                })
                .collect();
            f["runs"][0]["factSnapshot"]["watchTerms"] = json!(vec!["跑路"; MAX_WATCH_TERMS + 1]);
        },
        &[
            "projects[0].facts: the fact sheet has 201 facts, above the limit of 200; remove facts",
            "runs[0].factSnapshot.watchTerms: the fact sheet has 201 watch terms, above the limit of 200; remove watch terms",
        ],
    );
}

/// What `geo-probe validate` and the web import show: the headline and the problem in both
/// languages, the fact's path and id in each.
#[test]
fn the_import_error_names_the_fact_in_both_languages() {
    let mut file = serde_json::to_value(everything()).unwrap();
    file["runs"][0]["factSnapshot"]["facts"][0]["kind"] = json!("date");
    let e = parse_export(&file.to_string(), &ImportLimits::default()).unwrap_err();
    let shown = e.describe();
    let line = r#"runs[0].factSnapshot.facts[0].kind: fact "price" has the unknown kind "date""#;
    assert!(shown.zh.starts_with("导入失败") && shown.zh.contains(line), "{}", shown.zh);
    assert!(shown.en.contains("nothing was changed") && shown.en.contains(line), "{}", shown.en);
    assert!(e.to_string().contains(line), "{e}");
}

fn targets() -> Vec<Target> {
    everything().projects[0].targets()
}

/// JSON values shaped like a fact sheet, with every kind of damage: wrong types, unknown and
/// missing kinds and currencies, numbers of every size, blank and long strings.
fn sheet_json() -> impl Strategy<Value = Value> {
    let text = prop_oneof![
        prop::sample::select(vec![
            "year", "number", "money", "text", "date", "CNY", "USD", "GBP", "brand", "rival", "ghost", "", " ", "成立",
            "price",
        ])
        .prop_map(String::from),
        any::<String>(),
        (1usize..300).prop_map(|n| "成".repeat(n)),
    ];
    let number = prop_oneof![
        any::<f64>().prop_filter_map("finite", serde_json::Number::from_f64).prop_map(Value::Number),
        (990i64..3010).prop_map(Value::from),
        prop::sample::select(vec![-0.5, 0.0, 0.1, 1.0, 1.5, 999.0, 2015.5]).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number.clone(),
        text.clone().prop_map(Value::String)
    ];
    let keys = prop::sample::select(vec![
        "id",
        "targetId",
        "label",
        "kind",
        "cues",
        "value",
        "currency",
        "tolerance",
        "accepted",
        "rejected",
        "facts",
        "watchTerms",
        "other",
    ]);
    let tree_keys = keys.clone();
    let tree = leaf.prop_recursive(4, 64, 8, move |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            btree_map(tree_keys.clone(), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    });
    // Mostly facts that are nearly right, so that every rule is reached: a valid fact with a
    // few fields set to a value of the right type (any content), sometimes to any value.
    let strings = vec(text.clone().prop_map(Value::String), 0..4).prop_map(Value::Array);
    let edit = prop_oneof![
        6 => (prop::sample::select(vec!["id", "targetId", "label", "kind", "currency"]), text.clone())
            .prop_map(|(k, t)| (k, Value::String(t))),
        6 => (prop::sample::select(vec!["value", "tolerance"]), number.clone()),
        6 => (prop::sample::select(vec!["cues", "accepted", "rejected"]), strings.clone()),
        1 => (keys.clone(), tree.clone()),
    ];
    let fact = (vec(edit, 0..3), prop::sample::select(vec!["year", "number", "money", "text"]), any::<u8>()).prop_map(
        |(edits, kind, seed)| {
            let target = ["brand", "rival"][seed as usize % 2];
            let mut fact = json!({"id": format!("f{}", seed % 8), "targetId": target, "label": "l", "kind": kind,
                "cues": ["售价"], "value": 2015, "currency": "CNY", "accepted": ["a"]});
            for (key, value) in edits.into_iter().filter(|(k, _)| *k != "facts" && *k != "watchTerms") {
                fact[key] = value;
            }
            fact
        },
    );
    let terms = prop_oneof![4 => strings, 1 => tree.clone()];
    let sheet = (vec(fact, 0..5), proptest::option::of(terms)).prop_map(|(facts, terms)| {
        let mut sheet = json!({"facts": facts});
        if let Some(terms) = terms {
            sheet["watchTerms"] = terms;
        }
        sheet
    });
    prop_oneof![9 => sheet, 1 => tree.prop_map(|t| json!({"facts": t}))]
}

proptest! {
    #![proptest_config(crate::config())]

    /// Any fact sheet: the `--facts` reader and the import never panic and agree: a sheet one
    /// takes the other takes (in a project and in a run's snapshot), one refuses the other refuses
    /// at the same path; and whatever is taken `validate_fact_sheet`, and so `start_run`, takes.
    #[test]
    fn a_fact_sheet_is_taken_or_refused_alike_everywhere(sheet in sheet_json()) {
        let targets = targets();
        let from_file = parse_facts_file(&sheet.to_string(), &targets);
        let mut file = serde_json::to_value(everything()).unwrap();
        let object = sheet.as_object().unwrap();
        for key in ["facts", "watchTerms"] {
            let project = file["projects"][0].as_object_mut().unwrap();
            match object.get(key) {
                Some(v) => project.insert(key.into(), v.clone()),
                None => project.remove(key),
            };
        }
        file["runs"][0]["factSnapshot"] = sheet.clone();
        file["runs"][0]["aliasSnapshot"] = serde_json::to_value(&targets).unwrap();
        let from_export = parse_export(&file.to_string(), &ImportLimits::default());
        match (&from_file, &from_export) {
            (Ok(snapshot), Ok(env)) => {
                prop_assert_eq!(&env.projects[0].facts, &snapshot.facts);
                prop_assert_eq!(&env.projects[0].watch_terms, &snapshot.watch_terms);
                prop_assert_eq!(env.runs[0].fact_snapshot.as_ref(), Some(snapshot));
                prop_assert!(validate_fact_sheet(&snapshot.facts, &snapshot.watch_terms, &targets).is_ok());
            }
            (Err(problem), Err(e)) => {
                let want = match problem.path() {
                    p if p.is_empty() => "projects[0]".to_string(),
                    p => format!("projects[0].{p}"),
                };
                prop_assert_eq!(&e.problems[0].path, &want, "{} / {}", problem, e);
                prop_assert!(!problem.to_string().contains('\n'));
                prop_assert!(!problem.localized().zh.is_empty());
            }
            _ => prop_assert!(false, "the file says {:?}, the import {:?}", from_file, from_export.map(|_| "ok")),
        }
    }

    /// Any typed sheet, non-finite numbers included: the rule answers, never panics, and names a
    /// fact that is in the sheet.
    #[test]
    fn validate_fact_sheet_never_panics(
        facts in vec((any::<u8>(), any::<Option<f64>>(), any::<Option<f64>>(), vec(".{0,3}", 0..3), any::<bool>()), 0..6),
        watch_terms in vec(".{0,3}", 0..3),
    ) {
        let facts: Vec<Fact> = facts
            .into_iter()
            .map(|(seed, value, tolerance, cues, money)| Fact {
                id: format!("f{}", seed % 5),
                target_id: ["brand", "rival", "ghost"][seed as usize % 3].into(),
                label: String::new(),
                kind: FactKind::ALL[seed as usize % 4],
                cues: cues.clone(),
                value,
                currency: money.then_some(Currency::Usd),
                tolerance,
                accepted: cues,
                rejected: vec![],
            })
            .collect();
        if let Err(problem) = validate_fact_sheet(&facts, &watch_terms, &targets()) {
            if let Some(at) = problem.fact_index() {
                prop_assert!(at < facts.len());
            }
            prop_assert!(!problem.localized().en.is_empty());
        }
    }
}
