//! Static string tables packed into one block of bytes at compile time.
//!
//! A `&[(&str, &str, …)]` table costs, in a wasm32 build, a pointer and a length per string
//! besides the text, and those numbers compress badly: the web app's interface text and the
//! platform table lose them by being flattened ([`pack`]) into `field NUL field NUL …` at
//! compile time and split ([`fields`]) once, on first use (`docs/adr/0014-site-size.md`).
//! The source tables stay as they are; only const code reads them.

/// Bytes [`pack`] needs for `fields`: each field and a NUL after it.
pub const fn packed_len(fields: &[&str]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < fields.len() {
        n += fields[i].len() + 1;
        i += 1;
    }
    n
}

/// `fields` joined, a NUL after each; `N` must be [`packed_len`] of them.
pub const fn pack<const N: usize>(fields: &[&str]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut at = 0;
    let mut i = 0;
    while i < fields.len() {
        let bytes = fields[i].as_bytes();
        let mut j = 0;
        while j < bytes.len() {
            out[at] = bytes[j];
            at += 1;
            j += 1;
        }
        at += 1;
        i += 1;
    }
    out
}

/// The fields of a [`pack`]ed block, in order (none contains a NUL: the tables' tests
/// compare the split rows with the source table).
pub fn fields(packed: &'static [u8]) -> impl Iterator<Item = &'static str> {
    // Valid UTF-8: whole `&str`s joined by NULs; a final NUL ends the last field.
    let text = std::str::from_utf8(packed).unwrap_or_default();
    text.strip_suffix('\0').unwrap_or(text).split('\0').filter(move |_| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: [&str; 4] = ["a", "", "中文", "b"];
    static PACKED: [u8; packed_len(&FIELDS)] = pack(&FIELDS);

    #[test]
    fn fields_come_back_in_order() {
        assert_eq!(&PACKED, b"a\0\0\xe4\xb8\xad\xe6\x96\x87\0b\0");
        assert_eq!(fields(&PACKED).collect::<Vec<_>>(), FIELDS);
        static EMPTY: [u8; 0] = pack(&[]);
        assert_eq!(fields(&EMPTY).count(), 0);
    }
}
