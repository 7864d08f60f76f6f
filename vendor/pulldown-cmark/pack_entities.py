#!/usr/bin/env python3
"""Writes GEO Probe's packed `src/entities.rs` from upstream pulldown-cmark's entity table.

Usage: python3 pack_entities.py UPSTREAM/src/entities.rs > src/entities.rs
Upstream keeps `ENTITIES: [(&[u8], &str); N]`, sorted by name; this keeps the same names
and values as one string of `name NUL value NUL` entries, in the same order, and the byte
offset where each first letter (A-Z, then a-z) begins.
"""
import re
import sys

src = open(sys.argv[1], encoding="utf-8").read()
header = src[: src.index("//! Expansions of HTML5 entities")]
rows = re.findall(r'\(b"([A-Za-z0-9]+)", "((?:\\u\{[0-9A-Fa-f]+\})+)"\)', src)
count = int(re.search(r"\[\(&\[u8\], &str\); (\d+)\]", src).group(1))
assert len(rows) == count, (len(rows), count)
names = [n for n, _ in rows]
assert names == sorted(names, key=lambda n: n.encode()), "upstream table is not sorted"
letters = [chr(c) for c in range(ord("A"), ord("Z") + 1)] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
offsets, at, pieces = {}, 0, []
for name, value in rows:
    offsets.setdefault(name[0], at)
    codepoints = re.findall(r"\\u\{([0-9A-Fa-f]+)\}", value)
    pieces.append((name, "".join("\\u{%s}" % c for c in codepoints)))
    at += len(name) + 1 + sum(len(chr(int(c, 16)).encode()) for c in codepoints) + 1
assert at < 65536
bounds, nxt = [], at
for letter in reversed(letters):
    nxt = offsets.get(letter, nxt)
    bounds.append(nxt)
bounds = list(reversed(bounds)) + [at]
out = [header.rstrip("\n"), "", "//! Expansions of HTML5 entities", "",
       "// Packed by GEO Probe's vendor/pulldown-cmark/pack_entities.py from upstream's table",
       "// (mk_entities.py): one string and a first-letter index instead of an array of",
       "// `(&[u8], &str)` pairs, whose pointers made most of the table's size in wasm.",
       "",
       "/// `name NUL value NUL` for every entity, sorted by name.",
       "const PACKED: &str = concat!("]
for name, value in pieces:
    out.append('    "%s\\0%s\\0",' % (name, value))
out.append(");")
out.append("")
out.append("/// Where the entities of each first letter begin in `PACKED` (`A`..=`Z`, `a`..=`z`), and its end.")
out.append("const BUCKETS: [u16; 53] = [%s];" % ", ".join(str(b) for b in bounds))
out.append("""
pub(crate) fn get_entity(bytes: &[u8]) -> Option<&'static str> {
    let first = *bytes.first()?;
    let k = match first {
        b'A'..=b'Z' => first - b'A',
        b'a'..=b'z' => first - b'a' + 26,
        _ => return None,
    } as usize;
    let mut rest = &PACKED[BUCKETS[k] as usize..BUCKETS[k + 1] as usize];
    while let Some((name, tail)) = rest.split_once('\\0') {
        let (value, tail) = tail.split_once('\\0')?;
        if name.as_bytes() == bytes {
            return Some(value);
        }
        rest = tail;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::get_entity;

    #[test]
    fn every_letter_and_shape() {
        assert_eq!(get_entity(b"AElig"), Some("\\u{00C6}"));
        assert_eq!(get_entity(b"amp"), Some("&"));
        assert_eq!(get_entity(b"AMP"), Some("&"));
        assert_eq!(get_entity(b"Tab"), Some("\\t"));
        assert_eq!(get_entity(b"NewLine"), Some("\\n"));
        assert_eq!(get_entity(b"nvlt"), Some("<\\u{20D2}"));
        assert_eq!(get_entity(b"zwnj"), Some("\\u{200C}"));
        assert_eq!(get_entity(b"Zscr"), Some("\\u{1D4B5}"));
        assert_eq!(get_entity(b"bogus"), None);
        assert_eq!(get_entity(b"am"), None);
        assert_eq!(get_entity(b"1"), None);
        assert_eq!(get_entity(b""), None);
    }
}""")
print("\n".join(out))
