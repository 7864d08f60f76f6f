//! `geo-probe`: the GEO Probe core driven from a terminal (see `shared/spec/cli.md`).

fn main() {
    eprintln!("error: not yet wired");
    std::process::exit(2);
}
