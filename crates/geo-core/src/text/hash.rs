//! The 64-bit FNV-1a hash, the one non-cryptographic hash of the workspace: a run's file
//! stem when its id must be told apart ([`crate::export::warehouse::file_stem`]), the demo
//! file's fingerprint (geo-web's `demo_fingerprint`), and xtask's ETags and content-hashed
//! file names. One definition, so a page's fingerprint and the first view's, or two builds'
//! file names, can never disagree because two copies of the hash did.
//!
//! Not for anything an adversary chooses to collide: FNV-1a is fast and stable, not secure.

/// The FNV-1a offset basis for 64 bits.
const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// The FNV prime for 64 bits (2^40 + 2^8 + 0xb3).
const PRIME: u64 = 0x0100_0000_01b3;

/// The 64-bit FNV-1a hash of `bytes`: for each byte, XOR it in, then multiply by the FNV
/// prime (wrapping).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(OFFSET_BASIS, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// [`fnv1a64`] of `bytes` as 16 lower-case hex digits, zero-padded.
pub fn fnv1a64_hex(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a64(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_fnv1a_64_test_vectors() {
        // From the FNV reference test suite (Fowler, Noll, Vo: `test_fnv.c`, FNV1a_64).
        for (input, want) in [
            ("", 0xcbf2_9ce4_8422_2325_u64),
            ("a", 0xaf63_dc4c_8601_ec8c),
            ("b", 0xaf63_df4c_8601_f1a5),
            ("foo", 0xdcb2_7518_fed9_d577),
            ("foobar", 0x8594_4171_f739_67e8),
        ] {
            assert_eq!(fnv1a64(input.as_bytes()), want, "fnv1a64({input:?})");
        }
    }

    #[test]
    fn hex_is_sixteen_zero_padded_digits() {
        assert_eq!(fnv1a64_hex(b""), "cbf29ce484222325");
        assert_eq!(fnv1a64_hex(b"foobar"), "85944171f73967e8");
        // A hash with a leading zero nibble keeps its width.
        assert_eq!(fnv1a64_hex(b"aa"), "089c4307b54596b7");
    }
}
