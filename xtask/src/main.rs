//! Project automation: `cargo xtask <command>`; run without a command for the list.

mod bench;
mod bench_first_visit;
mod bench_warehouse;
mod demo;
mod demo_fingerprint;
mod dist;
mod e2e;
mod entries;
mod mock;
mod npm;
mod python;
mod serve;
mod serve_headers;
mod sys;
mod test;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  test     run every test: fmt, clippy, tidy, unit, golden, property, CLI and browser tests
  dist     build the web app into dist/   [--base-path /geo-probe/] [--dev]
  size-floor  build xtask/size-floor (the required dependencies, no product code) and print its sizes
  serve    build dist/ and serve it on 127.0.0.1, gzip-encoded   [--port 8080] [--base-path P] [--dev] [--pages: max-age=600 as GitHub Pages] [--mock [--mock-port 8787]]
  e2e      browser tests in headless Chrome/Chromium ($CHROME_PATH or found)   [--dev] [FILE-FILTER] [--repeat N] [--busy K]; --bench: the browser benchmarks (figures)
  mock     run the mock of all nine engines, geo-mock (flags: cargo xtask mock --help)
  demo     regenerate demo/demo-data.json from the recorded fixtures   [--real: the DeepSeek API]
  screenshot  refresh docs/screenshots/dashboard.png from the dashboard's browser test   [--dev]
  bench-analyze  time `geo-probe analyze` against `jq -c .` on a 5,040-probe export   [--rounds N]
  bench-warehouse  a year of daily runs of nine engines (1,001,925 probes) written by `geo-probe warehouse`
                 day after day into one folder, then DuckDB's run_metrics over it   [--days N]
  bench-first-visit  a first and a return visit of the optimised site at 5 Mbps / 1 Mbps / 150 ms, served as
                 GitHub Pages serves it: time to the dashboard's first figure, bytes before it, where the time
                 goes; median of 3 rounds   [--rounds N] [--dev: the debug build, to check the bench]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test::run(&args[1..]),
        Some("dist") => dist::run(&args[1..]),
        Some("size-floor") => dist::size_floor(&args[1..]),
        Some("serve") => serve::run(&args[1..]),
        Some("e2e") => e2e::run(&args[1..]),
        Some("mock") => mock::run(&args[1..]),
        Some("demo") => demo::run(&args[1..]),
        Some("screenshot") => test::screenshot(&args[1..]),
        Some("bench-analyze") => bench::analyze(&args[1..]),
        Some("bench-warehouse") => bench_warehouse::run(&args[1..]),
        Some("bench-first-visit") => bench_first_visit::run(&args[1..]),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
