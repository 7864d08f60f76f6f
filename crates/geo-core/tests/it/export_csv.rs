//! RFC 4180 writing and reading, BOM, formula-injection neutralisation, the run lookup
//! of the CSV exports, and a round-trip property for arbitrary Unicode cells.

use crate::export_support::sample_store;
use geo_core::export::csv::{neutralize, parse_csv, quote, CsvWriter, PROBE_COLUMNS, SOURCE_COLUMNS};
use geo_core::export::{probes_csv, sources_csv, ExportError};
use proptest::prelude::*;

#[track_caller]
fn check_text_cell(input: &str, expect: &str) {
    let mut w = CsvWriter::new();
    w.text(input).end_row();
    assert_eq!(w.finish(), format!("\u{feff}{expect}\r\n"), "cell {input:?}");
}

#[test]
fn text_cells_are_quoted_and_neutralised() {
    check_text_cell("plain", "plain");
    check_text_cell("", "");
    check_text_cell("中文，全角逗号", "中文，全角逗号");
    check_text_cell("a,b", "\"a,b\"");
    check_text_cell("say \"hi\"", "\"say \"\"hi\"\"\"");
    check_text_cell("line\nbreak", "\"line\nbreak\"");
    check_text_cell("cr\rhere", "\"cr\rhere\"");
    check_text_cell("=1+1", "'=1+1");
    check_text_cell("+86 10", "'+86 10");
    check_text_cell("-1", "'-1");
    check_text_cell("@SUM(A1)", "'@SUM(A1)");
    check_text_cell("\tx", "'\tx");
    check_text_cell("\rx", "\"'\rx\"");
    check_text_cell("=HYPERLINK(\"u\",\"t\")", "\"'=HYPERLINK(\"\"u\"\",\"\"t\"\")\"");
    check_text_cell("a=b", "a=b");
    check_text_cell("'quoted", "'quoted");
}

#[test]
fn numbers_bypass_neutralisation() {
    let mut w = CsvWriter::new();
    w.number(0).number(u64::MAX).opt_number(None).opt_number(Some(7)).text("-3").end_row();
    assert_eq!(w.finish(), "\u{feff}0,18446744073709551615,,7,'-3\r\n");
}

#[test]
fn neutralize_and_quote_borrow_when_unchanged() {
    assert!(matches!(neutralize("ok"), std::borrow::Cow::Borrowed(_)));
    assert!(matches!(quote("ok"), std::borrow::Cow::Borrowed(_)));
}

#[test]
fn files_start_with_bom_and_end_rows_with_crlf() {
    let text = probes_csv(&sample_store(), "run_b").unwrap();
    assert!(text.starts_with("\u{feff}probeId,"));
    assert!(text.ends_with("\r\n"));
    let rows = parse_csv(&text).unwrap();
    assert_eq!(rows[0], PROBE_COLUMNS);
    assert_eq!(rows.len(), 5);
    let answer = &rows[2][PROBE_COLUMNS.iter().position(|c| *c == "answer").unwrap()];
    assert_eq!(answer, "'=HYPERLINK(\"http://evil.example\",\"点我\")\n-1 分，@all");
    let sources = parse_csv(&sources_csv(&sample_store(), "run_b").unwrap()).unwrap();
    assert_eq!(sources[0], SOURCE_COLUMNS);
    assert_eq!(sources.len(), 4);
}

#[test]
fn unknown_run_is_an_error_value() {
    let want = ExportError::RunNotFound { run_id: "nope".into() };
    assert_eq!(probes_csv(&sample_store(), "nope"), Err(want.clone()));
    assert_eq!(sources_csv(&sample_store(), "nope"), Err(want.clone()));
    assert!(want.to_string().starts_with("run \"nope\" is not in the data"));
    assert!(want.describe().zh.contains("nope"));
}

#[track_caller]
fn check_parse(input: &str, expect: Result<Vec<Vec<&str>>, &str>) {
    let got = parse_csv(input).map_err(|e| e.to_string());
    let want = expect
        .map(|rows| rows.into_iter().map(|r| r.into_iter().map(String::from).collect()).collect())
        .map_err(String::from);
    assert_eq!(got, want, "input {input:?}");
}

#[test]
fn reader_is_strict_rfc_4180() {
    check_parse("", Ok(vec![]));
    check_parse("\u{feff}", Ok(vec![]));
    check_parse("a,b\r\n", Ok(vec![vec!["a", "b"]]));
    check_parse("a,b", Ok(vec![vec!["a", "b"]]));
    check_parse("\r\n", Ok(vec![vec![""]]));
    check_parse(",\r\n", Ok(vec![vec!["", ""]]));
    check_parse("\"x\"\"y\",\"1,2\"\r\n\"l\r\nm\",z", Ok(vec![vec!["x\"y", "1,2"], vec!["l\r\nm", "z"]]));
    check_parse("a\nb", Err("csv record 1: a bare LF; records end with CRLF"));
    check_parse("a\rb", Err("csv record 1: a bare CR; records end with CRLF"));
    check_parse("a\"b", Err("csv record 1: a quote inside an unquoted field"));
    check_parse("\"ab", Err("csv record 1: a quoted field is not closed"));
    check_parse("\"a\"b", Err("csv record 1: unexpected 'b' after a quoted field"));
    check_parse("a,b\r\nc\r\n", Err("csv record 2: 1 fields, expected 2"));
}

fn write_rows(rows: &[Vec<String>]) -> String {
    let mut w = CsvWriter::new();
    for row in rows {
        for cell in row {
            w.text(cell);
        }
        w.end_row();
    }
    w.finish()
}

fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        proptest::collection::vec(
            prop_oneof![Just(','), Just('"'), Just('\r'), Just('\n'), Just('='), Just('-'), Just('中'), Just('a')],
            0..8
        )
        .prop_map(|cs| cs.into_iter().collect()),
    ]
}

proptest! {
    #![proptest_config(crate::config())]

    #[test]
    fn csv_round_trips_to_the_neutralised_cells(
        width in 1usize..5,
        cells in proptest::collection::vec(cell(), 0..20),
    ) {
        let rows: Vec<Vec<String>> = cells.chunks(width).filter(|c| c.len() == width).map(<[String]>::to_vec).collect();
        let text = write_rows(&rows);
        let expect: Vec<Vec<String>> = rows
            .iter()
            .map(|r| r.iter().map(|c| neutralize(c).into_owned()).collect())
            .collect();
        prop_assert_eq!(parse_csv(&text).unwrap(), expect);
    }

    #[test]
    fn parse_csv_never_panics(text in any::<String>()) {
        let _ = parse_csv(&text);
    }
}
