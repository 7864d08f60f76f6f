//! Project automation: `cargo xtask test` (and later `dist`, `serve`, `mock`, `bench`).

fn main() -> anyhow::Result<()> {
    Ok(())
}
