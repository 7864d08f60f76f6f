//! One module per command family; each command is `fn(rest: &[String]) -> Result<ExitCode>`.

pub mod chat;
pub mod compare;
pub mod export;
pub mod mcp;
pub mod probe;
