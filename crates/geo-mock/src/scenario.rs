//! What the mock answers to one Messages request: [`Outcome`], the per-prompt script marker,
//! and the fault schedule (`--fault KIND:P`, `--fail-first N`).
//!
//! # The marker
//!
//! A prompt whose text contains `[mock:A,B,C]` is answered by script: the mock counts the
//! requests it has received for that prompt text (0-based), answers request `i` with entry
//! `i`, and repeats the last entry once the script is used up. `[mock:429,429,ok]` fails
//! twice with HTTP 429 and succeeds from the third request on; `[mock:401]` always fails;
//! `[mock:ok,ok=23]` answers the first request with the prompt's own fixture and every later
//! one with fixture 23 (another recorded answer to the same question).
//! The count is per prompt *text*, so with several repeats the script runs across all the
//! probes of that prompt (use one repeat for a per-probe script). The marker is removed
//! before the text is matched against the fixture prompts.

use std::fmt;

use crate::prng::for_request;

/// One answer of the Messages endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// HTTP 200 with the recorded fixture for the prompt.
    Ok,
    /// An HTTP error status with its recorded body: 401, 402, 403, 408, 429, 500 or 503.
    Status(u16),
    /// HTTP 200 whose body is cut-off JSON.
    InvalidJson,
    /// HTTP 200 with searches and sources but no text block (fixture 12).
    Empty,
    /// HTTP 200 whose only text is a 「让我先搜索一下」 preamble (fixture 15).
    Preamble,
    /// No response: the mock sleeps `--hang-secs` and closes the connection.
    Hang,
    /// HTTP 200 with the fixture, its first search result replaced by an error object.
    SearchError,
    /// A hostile proxy: HTTP 500 whose error message echoes the request's key and carries
    /// terminal escapes (clear screen, a fake success line) and a carriage return.
    Hostile,
    /// A gateway that echoes the request (`echo=STATUS`, `echo` = 400): HTTP STATUS with the
    /// engine's error body for it, every `message` of which quotes the request's auth header
    /// value and path (security review 3, M1: what `geo-probe proxy` must hand back redacted).
    Echo(u16),
    /// HTTP 200 with fixture number N (`ok=N`, e.g. `ok=23` for `23_…`) instead of the
    /// prompt's own: a later answer to the same question (the demo's second week).
    Answer(u16),
    /// The prompt's answer as a Messages turn that pauses N times (`pause` = 1, `pause=N`):
    /// `stop_reason: pause_turn` until a continuation sends the paused content back
    /// (DeepSeek and Anthropic; the other engines answer as `ok`).
    Pause(u16),
    /// The engine's content filter declines, the way each engine says so: Qwen HTTP 400
    /// `DataInspectionFailed`, Doubao HTTP 400 `SensitiveContentDetected`, ERNIE HTTP 200 with
    /// `finish_reason: content_filter`, Hunyuan HTTP 200 with `finish_reason: sensitive`
    /// (the other engines document no such refusal and answer as `ok`).
    Refused,
}

/// An outcome that takes a number: its prefix (`pause=`), the numbers it takes, the outcome of
/// a number, and what to write (for the error message).
type Numbered = (&'static str, fn(u16) -> bool, fn(u16) -> Outcome, &'static str);

/// The statuses the mock can fail with (each has a recorded body).
pub const STATUSES: &[u16] = &[401, 402, 403, 408, 429, 500, 503];

impl Outcome {
    /// Parses one outcome name: `ok`, `ok=N` (fixture N), a status of [`STATUSES`],
    /// `invalid_json` (or `json`), `empty`, `preamble`, `hang`, `search_error`, `hostile`,
    /// `echo`, `echo=STATUS` or `refused`.
    pub fn parse(text: &str) -> Result<Outcome, String> {
        let t = text.trim().to_ascii_lowercase();
        let numbered: [Numbered; 3] = [
            ("pause=", |n| n > 0, Outcome::Pause, "a number of pauses such as pause=5"),
            ("echo=", |s| (400..=599).contains(&s), Outcome::Echo, "an error status such as echo=401"),
            ("ok=", |_| true, Outcome::Answer, "a fixture number such as ok=23"),
        ];
        for (prefix, takes, outcome, what) in numbered {
            if let Some(n) = t.strip_prefix(prefix) {
                return n
                    .trim()
                    .parse::<u16>()
                    .ok()
                    .filter(|n| takes(*n))
                    .map(outcome)
                    .ok_or_else(|| format!("mock outcome {text:?}: {prefix} takes {what}"));
            }
        }
        let outcome = match t.as_str() {
            "ok" => Outcome::Ok,
            "pause" | "pause_turn" => Outcome::Pause(1),
            "invalid_json" | "json" => Outcome::InvalidJson,
            "empty" => Outcome::Empty,
            "preamble" => Outcome::Preamble,
            "hang" => Outcome::Hang,
            "search_error" => Outcome::SearchError,
            "refused" => Outcome::Refused,
            "hostile" => Outcome::Hostile,
            "echo" => Outcome::Echo(400),
            _ => match t.parse::<u16>() {
                Ok(s) if STATUSES.contains(&s) => Outcome::Status(s),
                _ => {
                    return Err(format!(
                        "unknown mock outcome {text:?}; use ok, ok=N, pause, pause=N, 401, 402, 403, 408, 429, 500, 503, invalid_json, empty, preamble, hang, search_error, hostile, echo or echo=STATUS"
                    ))
                }
            },
        };
        Ok(outcome)
    }

    /// Whether this outcome is a fault (anything but an answer: [`Outcome::Ok`],
    /// [`Outcome::Answer`] or [`Outcome::Pause`]).
    pub fn is_fault(self) -> bool {
        !matches!(self, Outcome::Ok | Outcome::Answer(_) | Outcome::Pause(_))
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Ok => f.write_str("ok"),
            Outcome::Status(s) => write!(f, "{s}"),
            Outcome::InvalidJson => f.write_str("invalid_json"),
            Outcome::Empty => f.write_str("empty"),
            Outcome::Preamble => f.write_str("preamble"),
            Outcome::Hang => f.write_str("hang"),
            Outcome::SearchError => f.write_str("search_error"),
            Outcome::Hostile => f.write_str("hostile"),
            Outcome::Echo(s) => write!(f, "echo={s}"),
            Outcome::Answer(n) => write!(f, "ok={n}"),
            Outcome::Pause(n) => write!(f, "pause={n}"),
            Outcome::Refused => f.write_str("refused"),
        }
    }
}

/// A prompt text split into its script marker (if any) and the text without it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    /// The outcomes of `[mock:…]`, in order; empty when there is no marker.
    pub script: Vec<Outcome>,
    /// The text with the marker removed and trimmed.
    pub text: String,
}

/// Finds a `[mock:…]` marker in `text`. A marker whose entries do not parse is an error (the
/// mock then answers HTTP 400 so a typo in a test prompt is loud).
pub fn parse_marker(text: &str) -> Result<Marked, String> {
    let Some(start) = text.find("[mock:") else {
        return Ok(Marked { script: Vec::new(), text: text.trim().to_string() });
    };
    let rest = &text[start + "[mock:".len()..];
    let Some(end) = rest.find(']') else {
        return Err("unterminated [mock:…] marker; close it with ]".to_string());
    };
    let script =
        rest[..end].split(',').filter(|s| !s.trim().is_empty()).map(Outcome::parse).collect::<Result<Vec<_>, _>>()?;
    if script.is_empty() {
        return Err("empty [mock:] marker; list outcomes such as [mock:429,ok]".to_string());
    }
    let stripped = format!("{}{}", &text[..start], &rest[end + 1..]);
    Ok(Marked { script, text: stripped.trim().to_string() })
}

/// The script entry for the `attempt`-th request (0-based): the last entry repeats.
pub fn script_step(script: &[Outcome], attempt: u32) -> Option<Outcome> {
    let last = script.len().checked_sub(1)?;
    Some(script[(attempt as usize).min(last)])
}

/// A fault with its probability per request, from `--fault KIND:P`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fault {
    /// What happens.
    pub outcome: Outcome,
    /// Probability in `0..=1`.
    pub probability: f64,
}

/// Parses `KIND:P`, e.g. `429:0.2` or `invalid_json:0.05`.
pub fn parse_fault(spec: &str) -> Result<Fault, String> {
    let Some((kind, p)) = spec.rsplit_once(':') else {
        return Err(format!("--fault {spec:?} must be KIND:PROBABILITY, e.g. 429:0.2"));
    };
    let outcome = Outcome::parse(kind)?;
    if !outcome.is_fault() {
        return Err("--fault ok is not a fault; name a failure such as 500".to_string());
    }
    let probability: f64 = p
        .trim()
        .parse()
        .ok()
        .filter(|x: &f64| (0.0..=1.0).contains(x))
        .ok_or_else(|| format!("--fault {spec:?}: the probability must be a number in 0..=1"))?;
    Ok(Fault { outcome, probability })
}

/// Everything that decides a Messages answer apart from the fixture itself.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Schedule {
    /// `--fault` entries; their probabilities must sum to at most 1.
    pub faults: Vec<Fault>,
    /// `--seed`.
    pub seed: u64,
    /// `--fail-first N`: each prompt's first N requests fail.
    pub fail_first: u32,
    /// `--fail-kind`: what those failures are (default HTTP 500).
    pub fail_kind: Option<Outcome>,
}

impl Schedule {
    /// Checks that the fault probabilities sum to at most 1.
    pub fn validate(&self) -> Result<(), String> {
        let total: f64 = self.faults.iter().map(|f| f.probability).sum();
        if total > 1.0 + 1e-9 {
            return Err(format!("--fault probabilities sum to {total}, more than 1; lower them"));
        }
        Ok(())
    }

    /// The outcome of request number `attempt` (0-based) for a prompt: the marker's script
    /// first, then `--fail-first`, then one seeded draw against the fault table.
    pub fn decide(&self, script: &[Outcome], prompt: &str, attempt: u32) -> Outcome {
        if let Some(step) = script_step(script, attempt) {
            return step;
        }
        if attempt < self.fail_first {
            return self.fail_kind.unwrap_or(Outcome::Status(500));
        }
        if self.faults.is_empty() {
            return Outcome::Ok;
        }
        let x = for_request(self.seed, prompt, attempt).next_f64();
        let mut acc = 0.0;
        for f in &self.faults {
            acc += f.probability;
            if x < acc {
                return f.outcome;
            }
        }
        Outcome::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_marker(text: &str, script: &[Outcome], rest: &str) {
        let m = parse_marker(text).unwrap();
        assert_eq!(m.script, script, "{text}");
        assert_eq!(m.text, rest, "{text}");
    }

    #[test]
    fn markers() {
        use Outcome::*;
        check_marker("plain question", &[], "plain question");
        check_marker("[mock:429,429,ok] 有哪些公司？", &[Status(429), Status(429), Ok], "有哪些公司？");
        check_marker("问题 [mock: hang , json,empty]", &[Hang, InvalidJson, Empty], "问题");
        check_marker(
            "a [mock:preamble,search_error,401,402,403,408,500,503] b",
            &[Preamble, SearchError, Status(401), Status(402), Status(403), Status(408), Status(500), Status(503)],
            "a  b",
        );
        assert!(parse_marker("x [mock:429").unwrap_err().contains("unterminated"));
        assert!(parse_marker("x [mock:]").unwrap_err().contains("empty"));
        assert!(parse_marker("x [mock:418]").unwrap_err().contains("unknown mock outcome"));
        check_marker("[mock:ok=23,500, OK=7] 问题", &[Answer(23), Status(500), Answer(7)], "问题");
        assert!(parse_marker("x [mock:ok=x]").unwrap_err().contains("fixture number"));
        check_marker("[mock:pause, pause=5,ok] q", &[Pause(1), Pause(5), Ok], "q");
        assert!(parse_marker("x [mock:pause=0]").unwrap_err().contains("pauses"));
        assert!(!Pause(1).is_fault());
        assert!(!Answer(23).is_fault() && Status(500).is_fault());
        assert_eq!(Answer(23).to_string(), "ok=23");
    }

    #[test]
    fn scripts_repeat_their_last_entry() {
        use Outcome::*;
        let s = [Status(429), Ok];
        let got: Vec<_> = (0..4).map(|i| script_step(&s, i).unwrap()).collect();
        assert_eq!(got, [Status(429), Ok, Ok, Ok]);
        assert_eq!(script_step(&[], 0), None);
    }

    #[test]
    fn fault_specs() {
        assert_eq!(parse_fault("429:0.2").unwrap(), Fault { outcome: Outcome::Status(429), probability: 0.2 });
        assert_eq!(parse_fault("invalid_json:1").unwrap().outcome, Outcome::InvalidJson);
        for bad in ["429", "429:1.5", "429:x", "ok:0.1", "ok=3:0.1", "418:0.1"] {
            assert!(parse_fault(bad).is_err(), "{bad}");
        }
        let s = Schedule {
            faults: vec![parse_fault("500:0.7").unwrap(), parse_fault("503:0.7").unwrap()],
            ..Schedule::default()
        };
        assert!(s.validate().is_err());
    }

    #[test]
    fn decisions_follow_script_then_fail_first_then_draws() {
        let s = Schedule { fail_first: 2, fail_kind: Some(Outcome::Status(503)), ..Schedule::default() };
        assert_eq!(s.decide(&[Outcome::Empty], "q", 0), Outcome::Empty);
        assert_eq!(s.decide(&[], "q", 0), Outcome::Status(503));
        assert_eq!(s.decide(&[], "q", 1), Outcome::Status(503));
        assert_eq!(s.decide(&[], "q", 2), Outcome::Ok);
        let default_kind = Schedule { fail_first: 1, ..Schedule::default() };
        assert_eq!(default_kind.decide(&[], "q", 0), Outcome::Status(500));
    }

    #[test]
    fn seeded_schedule_is_deterministic_and_near_its_rates() {
        let s = Schedule {
            faults: vec![parse_fault("429:0.2").unwrap(), parse_fault("500:0.1").unwrap()],
            seed: 7,
            ..Schedule::default()
        };
        let run = |s: &Schedule| -> Vec<Outcome> {
            (0..3000).map(|i| s.decide(&[], &format!("prompt {}", i / 3), i % 3)).collect()
        };
        let a = run(&s);
        assert_eq!(a, run(&s));
        let rate = |o| a.iter().filter(|x| **x == o).count() as f64 / a.len() as f64;
        assert!((rate(Outcome::Status(429)) - 0.2).abs() < 0.03);
        assert!((rate(Outcome::Status(500)) - 0.1).abs() < 0.03);
        let other = Schedule { seed: 8, ..s.clone() };
        assert_ne!(a, run(&other));
    }
}
