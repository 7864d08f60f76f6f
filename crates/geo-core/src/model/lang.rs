//! The two interface languages ([`Lang`]), a message in both ([`Localized`]) and the
//! `localized_error!` impls of an error whose message is one.

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

/// `Display` (the English text of the type's [`Localized`] message, from its `localized`
/// method or the one named) and `std::error::Error`, for an error whose message is in both
/// interface languages.
macro_rules! localized_error {
    ($ty:ty) => {
        $crate::model::localized_error!($ty, localized);
    };
    ($ty:ty, $message:ident) => {
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.$message().en)
            }
        }

        impl std::error::Error for $ty {}
    };
}
pub(crate) use localized_error;
