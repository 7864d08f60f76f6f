//! `geo-mock`: the mock of every engine on 127.0.0.1 (see the library docs and `--help`).

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config = match geo_mock::MockConfig::from_args(&args) {
        Ok(c) => c,
        Err(e) if e == geo_mock::USAGE => {
            println!("{e}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let server = match geo_mock::MockServer::start(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot start the mock: {e}; pick another --port");
            return ExitCode::FAILURE;
        }
    };
    println!("geo-mock listening on {}", server.url());
    let _ = std::io::stdout().flush();
    server.wait();
    ExitCode::SUCCESS
}
