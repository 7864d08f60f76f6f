//! The fault schedule's draws: [`geo_core::prng::SplitMix64`] (the workspace's one PRNG)
//! seeded per request.
//!
//! Faults must be reproducible: `--seed 7` gives the same outcome for the same prompt and
//! attempt on every machine and whatever order concurrent requests arrive in. So a draw is
//! not taken from one shared stream (arrival order would change it) but derived from
//! `(seed, prompt text, attempt index)` with [`for_request`].

pub use geo_core::prng::SplitMix64 as Prng;

/// The generator for one request: the seed mixed with an FNV-1a hash of the prompt text
/// and the 0-based attempt index of that prompt.
pub fn for_request(seed: u64, prompt: &str, attempt: u32) -> Prng {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in prompt.as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut p = Prng::new(seed ^ hash ^ (u64::from(attempt) << 32 | u64::from(attempt)));
    // Two warm-up rounds so that nearby seeds do not give nearby first draws.
    p.next_u64();
    p.next_u64();
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_request_draws_are_reproducible_and_distinct() {
        let draw = |seed, prompt: &str, attempt| for_request(seed, prompt, attempt).next_f64();
        assert_eq!(draw(7, "问题", 0), draw(7, "问题", 0));
        assert_ne!(draw(7, "问题", 0), draw(7, "问题", 1));
        assert_ne!(draw(7, "问题", 0), draw(7, "问题二", 0));
        assert_ne!(draw(7, "问题", 0), draw(8, "问题", 0));
    }
}
