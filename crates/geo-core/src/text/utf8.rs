//! Byte-level scanning of valid UTF-8: the hot loops of the analysis (matching, the
//! position-adjusted word count) walk bytes, not `char`s, and decode only where they must.
//!
//! Every function here takes text that is valid UTF-8 (a `&str`'s bytes) and an offset on a
//! character boundary; on such input none of them panics.

/// The character starting at byte `i` of valid UTF-8 `bytes`, and its length in bytes.
#[inline(always)]
pub(crate) fn decode_at(bytes: &[u8], i: usize) -> (char, usize) {
    let b0 = u32::from(bytes[i]);
    let cont = |k: usize| u32::from(bytes[i + k] & 0x3F);
    let (u, len) = match b0 {
        0..=0x7F => (b0, 1),
        0xC0..=0xDF => (((b0 & 0x1F) << 6) | cont(1), 2),
        0xE0..=0xEF => (((b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3),
        _ => (((b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3), 4),
    };
    // Valid UTF-8 always decodes to a scalar value; the fallback is never taken.
    (char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER), len)
}

/// Whether a CJK Unified Ideograph U+4E00..U+9FFF starts at byte `at` of valid UTF-8
/// `bytes` (three bytes long, lead byte 0xE4 with a second byte from 0xB8, or 0xE5..0xE9):
/// the bulk of a Chinese text, characters that fold to themselves and are words of their own.
#[inline(always)]
pub(crate) fn is_ideograph_at(bytes: &[u8], at: usize) -> bool {
    match bytes.get(at) {
        Some(0xE5..=0xE9) => true,
        Some(0xE4) => bytes.get(at + 1).is_some_and(|&b| b >= 0xB8),
        _ => false,
    }
}

/// The first UTF-8 byte of `c`.
#[inline(always)]
pub(crate) fn first_byte(c: char) -> u8 {
    let u = c as u32;
    (match u {
        0..=0x7F => u,
        0x80..=0x7FF => 0xC0 | (u >> 6),
        0x800..=0xFFFF => 0xE0 | (u >> 12),
        _ => 0xF0 | (u >> 18),
    }) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_agrees_with_std_on_every_scalar_value() {
        let mut buf = [0u8; 4];
        for u in (0..=0x10FFFFu32).step_by(7) {
            let Some(c) = char::from_u32(u) else { continue };
            let s = c.encode_utf8(&mut buf);
            assert_eq!(decode_at(s.as_bytes(), 0), (c, c.len_utf8()), "U+{u:04X}");
            assert_eq!(first_byte(c), s.as_bytes()[0], "U+{u:04X}");
            assert_eq!(is_ideograph_at(s.as_bytes(), 0), (0x4E00..=0x9FFF).contains(&u), "U+{u:04X}");
        }
    }
}
