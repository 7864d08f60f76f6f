//! One module per command family; each command is `fn(rest: &[String]) -> Result<ExitCode>`.

pub mod probe;
pub mod export;
pub mod chat;
