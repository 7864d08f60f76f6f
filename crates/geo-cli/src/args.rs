//! A small command-line parser: positionals, `--flag value`, `--flag=value`, multi-value flags.
//!
//! Hand-written because the surface is small and fixed by `shared/spec/cli.md`; every
//! unknown flag or missing value is an input error (exit 2), never a panic.

use std::collections::BTreeMap;

/// Parsed arguments of one command.
#[derive(Debug, Default)]
pub struct Args {
    /// Arguments that are not flags, in order.
    pub positionals: Vec<String>,
    flags: BTreeMap<String, Vec<String>>,
}

/// How a flag takes values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// `--flag VALUE`.
    One,
    /// `--flag V1 V2 …` until the next flag.
    Many,
    /// `--flag` alone, a switch.
    Flag,
}

impl Args {
    /// Parses `raw` against the allowed `spec` (name without dashes, arity).
    pub fn parse(raw: &[String], spec: &[(&str, Arity)]) -> Result<Args, String> {
        let mut args = Args::default();
        let mut i = 0;
        while i < raw.len() {
            let a = &raw[i];
            i += 1;
            if a == "--" {
                args.positionals.extend(raw[i..].iter().cloned());
                break;
            }
            let Some(name_part) = a.strip_prefix("--") else {
                args.positionals.push(a.clone());
                continue;
            };
            let (name, inline) = match name_part.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (name_part, None),
            };
            let Some(&(_, arity)) = spec.iter().find(|(n, _)| *n == name) else {
                return Err(format!("unknown flag --{name}; see `geo-probe help`"));
            };
            let entry = args.flags.entry(name.to_string()).or_default();
            match arity {
                Arity::One => {
                    let value = match inline {
                        Some(v) => v,
                        None if i < raw.len() => {
                            i += 1;
                            raw[i - 1].clone()
                        }
                        None => return Err(format!("--{name} needs a value")),
                    };
                    entry.push(value);
                }
                Arity::Flag => {
                    if inline.is_some() {
                        return Err(format!("--{name} takes no value"));
                    }
                    entry.push(String::new());
                }
                Arity::Many => {
                    if let Some(v) = inline {
                        entry.push(v);
                    }
                    while i < raw.len() && !(raw[i].starts_with("--") && raw[i].len() > 2) {
                        entry.push(raw[i].clone());
                        i += 1;
                    }
                    if entry.is_empty() {
                        return Err(format!("--{name} needs at least one value"));
                    }
                }
            }
        }
        Ok(args)
    }

    /// The last value of a one-value flag.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.flags.get(name).and_then(|v| v.last()).map(String::as_str)
    }

    /// Whether a switch was given.
    pub fn flag(&self, name: &str) -> bool {
        self.flags.contains_key(name)
    }

    /// Every value of a flag.
    pub fn values(&self, name: &str) -> &[String] {
        self.flags.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// A numeric flag, `None` when absent.
    pub fn number<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, String> {
        match self.value(name) {
            None => Ok(None),
            Some(v) => v.trim().parse().map(Some).map_err(|_| format!("--{name} must be a whole number, got {v:?}")),
        }
    }

    /// Exactly `n` positionals, named for the error message.
    pub fn expect_positionals(&self, names: &[&str]) -> Result<(), String> {
        if self.positionals.len() != names.len() {
            return Err(format!(
                "expected {} ({}), got {} argument(s)",
                names.len(),
                names.join(" "),
                self.positionals.len()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_values_switches_and_lists() {
        let spec = [("run", Arity::One), ("docs", Arity::Many), ("all", Arity::Flag)];
        let a = Args::parse(&s(&["f.json", "--docs", "a.md", "b.md", "--run=r1", "--all"]), &spec).unwrap();
        assert!(a.flag("all") && !a.flag("run-x"));
        assert!(Args::parse(&s(&["--all=yes"]), &spec).unwrap_err().contains("takes no value"));
        assert_eq!(a.positionals, vec!["f.json"]);
        assert_eq!(a.value("run"), Some("r1"));
        assert_eq!(a.values("docs"), &["a.md".to_string(), "b.md".to_string()]);
    }

    #[test]
    fn rejects_unknown_and_missing() {
        let spec = [("run", Arity::One)];
        assert!(Args::parse(&s(&["--nope"]), &spec).unwrap_err().contains("unknown flag --nope"));
        assert!(Args::parse(&s(&["--run"]), &spec).unwrap_err().contains("needs a value"));
        let a = Args::parse(&s(&["--run", "x"]), &spec).unwrap();
        assert!(a.number::<u32>("run").is_err());
    }
}
