//! [`SplitMix64`]: the one pseudo-random generator of the workspace, for everything that
//! needs reproducible or merely spread-out numbers: the CLI's back-off jitter and run-id
//! suffix (seeded from the operating system), the mock server's fault schedule (seeded per
//! request), and the synthetic data of benches and tests (fixed seeds).
//!
//! It lives in geo-core because it is a pure function of its state: geo-core itself never
//! seeds one (randomness stays an input of the runner), the shells do.

/// SplitMix64 (Steele, Lea, Flood 2014): one `u64` of state, full period, equidistributed
/// 64-bit outputs; good enough for jitter, fault spreading and test data, and small enough
/// to read at a glance. Not for secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The next 32 random bits (the high half of [`next_u64`](SplitMix64::next_u64)).
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A uniform number in `[0, 1)` (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in `0..n` (`0` when `n` is 0), by Lemire's multiply-shift: no division, and
    /// a bias below 2⁻³² for the small `n` of test data.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // First outputs of SplitMix64 seeded with 0 (the reference implementation).
        let mut p = SplitMix64::new(0);
        assert_eq!(p.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(p.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let mut q = SplitMix64::new(0);
        assert_eq!(q.next_u32(), 0xe220_a839);
    }

    #[test]
    fn same_seed_same_stream() {
        let draw = |seed| {
            let mut p = SplitMix64::new(seed);
            (0..100).map(|_| p.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7)[0], draw(8)[0]);
    }

    #[test]
    fn floats_and_ranges_are_uniform_enough() {
        let mut p = SplitMix64::new(42);
        let n = 20_000;
        let draws: Vec<f64> = (0..n).map(|_| p.next_f64()).collect();
        assert!(draws.iter().all(|x| (0.0..1.0).contains(x)));
        let below = draws.iter().filter(|x| **x < 0.2).count() as f64 / n as f64;
        assert!((below - 0.2).abs() < 0.02, "{below}");
        let mut counts = [0u32; 5];
        for _ in 0..n {
            counts[p.below(5) as usize] += 1;
        }
        assert!(counts.iter().all(|&c| (3600..4400).contains(&c)), "{counts:?}");
        assert_eq!(p.below(0), 0);
        assert_eq!(p.below(1), 0);
    }
}
