//! The two interface languages ([`Lang`]) and a message in both ([`Localized`]).

use serde::{Deserialize, Serialize};

/// Interface language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    /// Chinese (default).
    #[default]
    Zh,
    /// English.
    En,
}

wire_names!(Lang { Zh => "zh", En => "en" });

impl Lang {
    /// The text in this language of the pair `(zh, en)`.
    pub fn pick<'a>(self, zh: &'a str, en: &'a str) -> &'a str {
        match self {
            Lang::Zh => zh,
            Lang::En => en,
        }
    }
}

/// A message in both interface languages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Localized {
    /// Chinese text.
    pub zh: String,
    /// English text.
    pub en: String,
}

impl Localized {
    /// Builds a message from its two texts.
    pub fn new(zh: impl Into<String>, en: impl Into<String>) -> Self {
        Localized { zh: zh.into(), en: en.into() }
    }

    /// The text in `lang`.
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::Zh => &self.zh,
            Lang::En => &self.en,
        }
    }
}
