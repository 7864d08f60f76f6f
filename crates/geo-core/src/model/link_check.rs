//! The answer-link check of a run (`geo-probe links`, `shared/spec/cli.md`): what was found
//! at each Answer Link ([`LinkResult`], [`LinkClass`]) and its counts by class
//! ([`LinkCounts`], read by metrics, compare and actions alike).

use serde::{Deserialize, Serialize};

/// What `geo-probe links` found at an Answer Link (`shared/spec/cli.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkClass {
    /// A 2xx reply without a redirect.
    Ok,
    /// A 2xx reply after at least one redirect.
    Redirect,
    /// 404 or 410: the page does not exist (a likely invented link).
    NotFound,
    /// 401, 403 or 429: a login or bot wall answered, the page may exist.
    Blocked,
    /// No usable reply: DNS, TLS, a timeout, a refused connection, any other status, too many
    /// redirects or a redirect to a non-http(s) URL.
    Error,
}

wire_names!(LinkClass {
    Ok => "ok",
    Redirect => "redirect",
    NotFound => "not_found",
    Blocked => "blocked",
    Error => "error",
});

/// One redirect followed while checking a link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkHop {
    /// The URL requested.
    pub url: String,
    /// The redirect's status (3xx).
    pub status: u16,
    /// Its `Location` header as sent, without userinfo (cut to
    /// [`crate::limits::MAX_LINK_URL_CHARS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
}

/// One checked link of a [`LinkCheck`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkResult {
    /// The Answer Link's `canonicalUrl` without userinfo: the URL requested first.
    pub url: String,
    /// What was found.
    pub class: LinkClass,
    /// The last response's HTTP status, when there was a response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The URL of the last response, present when a redirect was followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// Every redirect followed, in order.
    #[serde(default)]
    pub hops: Vec<LinkHop>,
    /// What went wrong, for `error` (and a status outside the classes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The answer-link check of one run: a `linkChecks` record of the export envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkCheck {
    /// The run whose Answer Links were checked (one record per run).
    pub run_id: String,
    /// ISO 8601 UTC, when the check ended.
    pub checked_at: String,
    /// Every distinct link, once.
    #[serde(default)]
    pub links: Vec<LinkResult>,
}

/// The run's answer-link check, counted by class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkCounts {
    /// Links checked (each distinct answer link once).
    pub checked: u32,
    /// `ok`.
    pub ok: u32,
    /// `redirect`.
    pub redirect: u32,
    /// `not_found` (404/410: likely invented).
    pub not_found: u32,
    /// `blocked` (401/403/429).
    pub blocked: u32,
    /// `error`.
    pub error: u32,
}

impl LinkCounts {
    /// The counts of `check`'s links.
    pub fn of(check: &LinkCheck) -> LinkCounts {
        let mut c = LinkCounts { checked: check.links.len() as u32, ..LinkCounts::default() };
        for link in &check.links {
            match link.class {
                LinkClass::Ok => c.ok += 1,
                LinkClass::Redirect => c.redirect += 1,
                LinkClass::NotFound => c.not_found += 1,
                LinkClass::Blocked => c.blocked += 1,
                LinkClass::Error => c.error += 1,
            }
        }
        c
    }
}
