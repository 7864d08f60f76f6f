//! The values of rule 4 (data-model.md, "What the answers say"): the numbers, amounts of
//! money and years a sentence's text states, read in its matching normal form (NFKC +
//! lower-case, so `２０１５` is `2015` and `￥` is `¥`).
//!
//! A number is `[0-9]+(,[0-9]{3})*(\.[0-9]+)?`, read greedily from a digit that no ASCII
//! letter or digit precedes, then:
//! * times 10⁴ when `万` follows it directly, 10⁸ for `亿`, 10³ for `千`, or `k` with no letter
//!   after it, 10⁶ for ` million`, 10⁹ for ` billion` (one space, no letter after);
//! * money when a currency sign precedes it (spaces between allowed: `¥`, `$`, `US$`, `€`; a
//!   `$` after the whole word `HK`, `C`, `A`, `S`, `NT`, `NZ`, `R` or `MX` is another dollar)
//!   or a currency word follows it (spaces allowed, after its multiplier: `元`, `块`, `人民币`,
//!   `RMB`, `CNY`; `美元`, `USD`, `dollar(s)`; `欧元`, `EUR`, `euro(s)`), the sign winning;
//! * no number at all when a digit follows it, or an ASCII letter that does not start its
//!   multiplier or currency word (`5km`, `1,2345`); what follows those is not read
//!   (`99元Pro版` is 99 yuan).
//!
//! A year is a number of exactly four digits from 1000 to 2999 with no group, decimals,
//! multiplier, sign or currency word, and no `%`, `万`, `亿` or `k` (the multiplier: no letter
//! after it) after it (spaces allowed).
//! One pass; each position looks at most a few bytes ahead.

use std::borrow::Cow;

use crate::model::Currency;
use crate::text::normalize_for_match;

/// Characters other than `,` that NFKC folds to `,` (the full-width `，`, the small and the
/// vertical comma): they do not group digits (data-model.md: "groups use `,` only (a full-width
/// `，` ends the number)"), so values are read with each one as `、`, which folds to itself and
/// has the same length in UTF-8 (offsets stay those of the text).
pub const OTHER_COMMAS: [char; 3] = ['，', '﹐', '︐'];

/// The numbers of a sentence's text and the text and normal form they were read in.
#[derive(Debug, Clone)]
pub struct SentenceNumbers<'t> {
    /// The text, with [`OTHER_COMMAS`] as `、`: byte for byte where the text's are.
    pub text: Cow<'t, str>,
    /// Its matching normal form, in which [`Number`]'s offsets are.
    pub norm: Cow<'t, str>,
    /// Every number, in order.
    pub numbers: Vec<Number>,
}

/// The numbers of `text`, a sentence's text whose matching normal form is `norm`.
pub fn sentence_numbers<'t>(text: &'t str, norm: &'t str) -> SentenceNumbers<'t> {
    let (text, norm) = if text.contains(OTHER_COMMAS) {
        let text = text.replace(OTHER_COMMAS, "、");
        let norm = normalize_for_match(&text);
        (Cow::Owned(text), Cow::Owned(norm))
    } else {
        (Cow::Borrowed(text), Cow::Borrowed(norm))
    };
    let numbers = numbers(&norm);
    SentenceNumbers { text, norm, numbers }
}

/// The currency of a money value: one of the three a fact can hold, or another one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Money {
    /// CNY, USD or EUR.
    Known(Currency),
    /// Another dollar (`HK$`, `A$`, …).
    Other,
}

/// One number of a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Number {
    /// Byte range of the value as written (sign or first digit to multiplier or currency word).
    pub start: usize,
    /// End of that range (exclusive).
    pub end: usize,
    /// The number times its multiplier.
    pub value: f64,
    /// `Some` for an amount of money.
    pub money: Option<Money>,
    /// Whether it is a year.
    pub year: bool,
}

/// Multipliers, in the order they are tried: (as written after the number, factor, whether
/// no ASCII letter may follow).
const MULTIPLIERS: &[(&str, f64, bool)] = &[
    ("万", 1e4, false),
    ("亿", 1e8, false),
    ("千", 1e3, false),
    ("k", 1e3, true),
    (" million", 1e6, true),
    (" billion", 1e9, true),
];

/// Currency words after a number (lower-case), longest of a family first.
const CURRENCY_WORDS: &[(&str, Currency)] = &[
    ("人民币", Currency::Cny),
    ("美元", Currency::Usd),
    ("欧元", Currency::Eur),
    ("元", Currency::Cny),
    ("块", Currency::Cny),
    ("rmb", Currency::Cny),
    ("cny", Currency::Cny),
    ("dollars", Currency::Usd),
    ("dollar", Currency::Usd),
    ("usd", Currency::Usd),
    ("euros", Currency::Eur),
    ("euro", Currency::Eur),
    ("eur", Currency::Eur),
];

/// Words before `$` that make it another dollar (a whole word: no letter or digit before).
const OTHER_DOLLARS: &[&str] = &["hk", "nt", "nz", "mx", "c", "a", "s", "r"];

fn is_alnum(b: Option<&u8>) -> bool {
    b.is_some_and(u8::is_ascii_alphanumeric)
}

fn is_letter(b: Option<&u8>) -> bool {
    b.is_some_and(u8::is_ascii_alphabetic)
}

/// Bytes of spaces (Unicode white space) from `i`.
fn spaces(t: &str, i: usize) -> usize {
    t[i..].chars().take_while(|c| c.is_whitespace()).map(char::len_utf8).sum()
}

/// The greedy number token at `i` (a digit): its end.
fn token_end(b: &[u8], i: usize) -> usize {
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut j = i + digits(i);
    while b.get(j) == Some(&b',') && b.len() >= j + 4 && b[j + 1..j + 4].iter().all(u8::is_ascii_digit) {
        j += 4;
    }
    if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
        j += 1 + digits(j + 1);
    }
    j
}

/// The multiplier right after the token ending at `j`: (its end, factor).
fn multiplier(t: &str, j: usize) -> (usize, f64) {
    let b = t.as_bytes();
    for (word, factor, no_letter_after) in MULTIPLIERS {
        if t[j..].starts_with(word) && !(*no_letter_after && is_letter(b.get(j + word.len()))) {
            return (j + word.len(), *factor);
        }
    }
    (j, 1.0)
}

/// A currency word at `i` (after optional spaces): (its start, its end, currency).
fn currency_word(t: &str, i: usize) -> Option<(usize, usize, Currency)> {
    let at = i + spaces(t, i);
    let b = t.as_bytes();
    CURRENCY_WORDS.iter().find_map(|(word, currency)| {
        let end = at + word.len();
        let whole = !word.is_ascii() || !is_letter(b.get(end));
        (t[at..].starts_with(word) && whole).then_some((at, end, *currency))
    })
}

/// A currency sign before the number at `i` (spaces between allowed): (where the value as
/// written starts, its money).
fn currency_sign(t: &str, i: usize) -> Option<(usize, Money)> {
    let head = t[..i].trim_end_matches(char::is_whitespace);
    if let Some(rest) = head.strip_suffix('¥') {
        return Some((rest.len(), Money::Known(Currency::Cny)));
    }
    if let Some(rest) = head.strip_suffix('€') {
        return Some((rest.len(), Money::Known(Currency::Eur)));
    }
    let rest = head.strip_suffix('$')?;
    let word = |w: &str| rest.strip_suffix(w).filter(|before| !is_alnum(before.as_bytes().last()));
    if let Some(before) = word("us") {
        return Some((before.len(), Money::Known(Currency::Usd)));
    }
    if let Some(before) = OTHER_DOLLARS.iter().find_map(|w| word(w)) {
        return Some((before.len(), Money::Other));
    }
    Some((rest.len(), Money::Known(Currency::Usd)))
}

/// Whether the plain number `token` (digits only) ending at `end` of `t` is a year.
fn is_year(t: &str, token: &str, end: usize) -> bool {
    let after = &t[end + spaces(t, end)..];
    // `k` is the multiplier only with no letter after it: "2015 known as" states a year.
    let k = after.starts_with('k') && !is_letter(after.as_bytes().get(1));
    token.len() == 4
        && token.bytes().all(|c| c.is_ascii_digit())
        && matches!(token.as_bytes()[0], b'1' | b'2')
        && !k
        && !["%", "万", "亿"].iter().any(|w| after.starts_with(w))
}

/// Every number of `t` (a text in the matching normal form), in order.
pub fn numbers(t: &str) -> Vec<Number> {
    let b = t.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        let j = token_end(b, i);
        let (m_end, factor) = multiplier(t, j);
        let word = currency_word(t, m_end);
        let end = word.map_or(m_end, |(_, e, _)| e);
        // The number is followed by no digit, and by a letter only where its multiplier or
        // currency word starts (`5k`, `5usd`; not `5km`); what follows those does not matter
        // (`99元Pro版` states 99元).
        let follows = match b.get(j) {
            Some(c) if c.is_ascii_digit() => false,
            Some(c) if c.is_ascii_alphabetic() => m_end > j || word.is_some_and(|(at, _, _)| at == j),
            _ => true,
        };
        if !follows {
            i = j;
            continue;
        }
        let sign = currency_sign(t, i);
        let digits: String = t[i..j].chars().filter(|c| *c != ',').collect();
        let value = digits.parse::<f64>().unwrap_or(f64::NAN) * factor;
        let money = sign.map(|(_, m)| m).or(word.map(|(_, _, c)| Money::Known(c)));
        let year = money.is_none() && m_end == j && is_year(t, &t[i..j], j);
        out.push(Number { start: sign.map_or(i, |(s, _)| s), end, value, money, year });
        i = end.max(j);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each number as `written=value kind`, kind `y` (year), `n` (plain), a currency code or
    /// `other`.
    #[track_caller]
    fn check(text: &str, expect: &[&str]) {
        let got: Vec<String> = numbers(text)
            .iter()
            .map(|n| {
                let kind = match (n.money, n.year) {
                    (Some(Money::Known(c)), _) => c.as_str().to_string(),
                    (Some(Money::Other), _) => "other".into(),
                    (None, true) => "y".into(),
                    (None, false) => "n".into(),
                };
                format!("{}={} {kind}", &text[n.start..n.end], n.value)
            })
            .collect();
        assert_eq!(got, expect, "{text:?}");
    }

    #[test]
    fn years() {
        check("元构场成立于2015年", &["2015=2015 y"]);
        check("founded in 1998, moved in 2003.", &["1998=1998 y", "2003=2003 y"]);
        check("2015-2020", &["2015=2015 y", "2020=2020 y"]);
        check("3000 users, 0999", &["3000=3000 n", "0999=999 n"]);
        check(
            "2015万 2015 % 2015 k 2,015 2015.5",
            &["2015万=20150000 n", "2015=2015 n", "2015=2015 n", "2,015=2015 n", "2015.5=2015.5 n"],
        );
        check("¥2015 2015元", &["¥2015=2015 CNY", "2015元=2015 CNY"]);
        // `k` excludes a year only as the multiplier (no letter after it).
        check("founded in 2015 known as", &["2015=2015 y"]);
        check("2015 k", &["2015=2015 n"]);
    }

    #[test]
    fn multipliers_and_boundaries() {
        check("员工500人，营收3.5亿，用户1.2 million", &["500=500 n", "3.5亿=350000000 n", "1.2 million=1200000 n"]);
        check("12k stars, 5km, v2, 1,2345, iphone15", &["12k=12000 n"]);
        check("30% 和 4千", &["30=30 n", "4千=4000 n"]);
        check("3 millions", &["3=3 n"]);
        check("１２３ 个", &[]);
        // What follows a number's multiplier or currency word is not read; a digit or letter
        // right after the number is (found by tests/it/claims_oracle.rs).
        let full_width = sentence_numbers("4，999元 2015，2016", "4,999元 2015,2016");
        let read: Vec<&str> = full_width.numbers.iter().map(|n| &full_width.norm[n.start..n.end]).collect();
        assert_eq!(read, ["4", "999元", "2015", "2016"], "a full-width comma ends the number");
        check("99元pro版 5万2 5k2 5usd 5usdx", &["99元=99 CNY", "5万=50000 n", "2=2 n", "5k=5000 n", "5usd=5 USD"]);
    }

    #[test]
    fn money() {
        check("¥ 4,999 或 99元 或 3万元", &["¥ 4,999=4999 CNY", "99元=99 CNY", "3万元=30000 CNY"]);
        check(
            "us$ 99, $1.5 billion, 20 dollars, 5 euro, €30, 100 rmb",
            &[
                "us$ 99=99 USD",
                "$1.5 billion=1500000000 USD",
                "20 dollars=20 USD",
                "5 euro=5 EUR",
                "€30=30 EUR",
                "100 rmb=100 CNY",
            ],
        );
        check("hk$100 a$5 pixel 9a$499 \\$20", &["hk$100=100 other", "a$5=5 other", "$499=499 USD", "$20=20 USD"]);
        check(
            "100美元 100欧元 100人民币 5 eurostar",
            &["100美元=100 USD", "100欧元=100 EUR", "100人民币=100 CNY", "5=5 n"],
        );
    }
}
