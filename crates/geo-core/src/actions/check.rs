//! The answer-link checker's decisions (`geo-probe links`, `shared/spec/cli.md`): which
//! request goes next and what each reply means, with no I/O, no clock and no threads.
//!
//! The shell (the CLI) asks [`LinkChecker::poll`] with the current time for the next
//! [`CheckRequest`], performs it with its HTTP client, and hands the outcome back to
//! [`LinkChecker::on_reply`]; [`LinkChecker::finish`] then gives the `linkChecks` record.
//! Like the runner, it is driven in tests by a scripted "server" and a virtual clock.
//!
//! The rules, for each distinct link:
//! - it is recorded as its canonical URL (`analysis::urls`, as Answer Links hold it) and
//!   requested at its URL without userinfo or fragment, first with `HEAD`; a `405` or
//!   `501` to `HEAD` is asked again with `GET`;
//! - a redirect (301, 302, 303, 307, 308 with a `Location`) is followed up to
//!   [`MAX_LINK_REDIRECTS`] times with the same method, each hop kept as `{url, status,
//!   location}`; a 6th redirect, a redirect without a `Location` and one to a URL that is not
//!   http(s) (`file:`, `javascript:`, `ftp:`…) are never followed: the link is an `error`;
//! - 2xx → `ok` (or `redirect` after a redirect), 404/410 → `not_found`, 401/403/429 →
//!   `blocked`, any other status and any failure without a reply → `error`;
//! - at most `concurrency` requests are in flight, at most one per host, and a host is asked
//!   again no sooner than `host_delay_ms` after its previous reply; a "host" here is the
//!   registrable domain (`analysis::urls::registrable_domain`: `a.example.com` and
//!   `b.example.com` are one host), so a wildcard DNS name cannot multiply one server into
//!   many hosts (security-3 L5; pacing on the resolved address as well would need the shell
//!   to resolve before the core decides, and the address is only known inside the request);
//! - a destination that is not a public address ([`address`](super::address)) is never
//!   requested unless `allow_private`: an IP literal or a loopback name is refused here, at
//!   the first request and at every redirect, and the shell refuses every other name whose
//!   addresses are not public ([`Reply::PrivateAddress`]); either way the link is an `error`
//!   with `error: "private address"` (security-3 M2);
//! - no URL learned from a redirect (a hop's `location`, the next hop's `url`, `finalUrl`) is
//!   recorded with its query or fragment, since an internal `Location` may carry a code or a
//!   token; the request still goes to the whole URL (security-3 M2);
//! - the whole check has a time budget (`budget_ms`, counted from the first poll): once it is
//!   spent, every link not yet checked, in flight or queued, is an `error` with
//!   `error: "not checked: time budget"` and the check is done (security-3 L5).

use super::address::is_private_host;
use crate::limits::{
    DEFAULT_LINK_CHECK_SECS, MAX_LINK_CONCURRENCY, MAX_LINK_HOST_DELAY_MS, MAX_LINK_REDIRECTS, MAX_LINK_URL_CHARS,
};
use crate::model::{LinkCheck, LinkClass, LinkHop, LinkResult};
use rustc_hash::FxHashMap;
use std::collections::{BTreeSet, VecDeque};

/// The `error` of a link whose destination is not a public address.
pub const PRIVATE_ADDRESS: &str = "private address";

/// The `error` of a link the time budget left unchecked.
pub const NOT_CHECKED: &str = "not checked: time budget";

/// The HTTP method of a check request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `HEAD`: the first try.
    Head,
    /// `GET`: when `HEAD` is refused (405, 501).
    Get,
}

impl Method {
    /// `HEAD` or `GET`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Head => "HEAD",
            Method::Get => "GET",
        }
    }
}

/// One request the shell must perform: no body, no credentials, no cookies, no redirects of
/// its own (every redirect comes back here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRequest {
    /// Which link (pass it back to [`LinkChecker::on_reply`]).
    pub id: usize,
    /// The method.
    pub method: Method,
    /// The absolute http(s) URL, without userinfo.
    pub url: String,
}

/// What came back for a [`CheckRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A response: its status and its `Location` header (the body is never read).
    Response {
        /// The HTTP status.
        status: u16,
        /// The `Location` header, when present.
        location: Option<String>,
    },
    /// No response: DNS, TLS, a refused connection, the time limit; the message says which.
    Failed {
        /// What failed, for the record (lowercase, no secrets: the URL has no userinfo).
        error: String,
    },
    /// Nothing sent: every address the host resolved to is not public (the shell's resolver
    /// checks each with [`is_public`](super::address::is_public) unless `allow_private`).
    PrivateAddress,
}

/// What the shell does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Poll {
    /// Perform this request (then poll again: more may be ready).
    Start(CheckRequest),
    /// Nothing can start now: wait for a reply, or until this time (ms), when a host's delay
    /// ends or the time budget is spent, whichever comes first.
    Wait(u64),
    /// Every link is checked.
    Done,
}

/// How a check runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckConfig {
    /// Requests in flight at most (clamped to 1..=[`MAX_LINK_CONCURRENCY`]).
    pub concurrency: usize,
    /// The politeness delay per host in ms (at most [`MAX_LINK_HOST_DELAY_MS`]).
    pub host_delay_ms: u64,
    /// The time budget of the whole check in ms, from the first [`LinkChecker::poll`].
    pub budget_ms: u64,
    /// Whether destinations that are not public addresses are requested too
    /// (`--allow-private`, for an intranet).
    pub allow_private: bool,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            concurrency: 4,
            host_delay_ms: MAX_LINK_HOST_DELAY_MS,
            budget_ms: DEFAULT_LINK_CHECK_SECS * 1_000,
            allow_private: false,
        }
    }
}

/// Where one link stands.
#[derive(Debug)]
enum State {
    /// Waiting in its host's queue for its next request.
    Queued,
    /// A request is out.
    InFlight,
    /// Checked.
    Done(LinkResult),
}

#[derive(Debug)]
struct Link {
    /// The canonical URL (the record's `url`).
    url: String,
    /// The URL of the next or current request.
    current: String,
    method: Method,
    hops: Vec<LinkHop>,
    /// The last response's status.
    status: Option<u16>,
    /// Whether `current` came from a redirect.
    redirected: bool,
    /// The last URL requested after a redirect, as recorded (the record's `finalUrl`).
    final_url: Option<String>,
    /// Index of its host in `hosts`.
    host: usize,
    state: State,
}

#[derive(Debug, Default)]
struct Host {
    queue: VecDeque<usize>,
    busy: bool,
    /// No request to this host starts before this time (ms).
    ready_at: u64,
}

/// The sans-IO checker of a run's answer links.
#[derive(Debug)]
pub struct LinkChecker {
    links: Vec<Link>,
    hosts: Vec<Host>,
    /// Each host's index in `hosts`, by the key pacing is done on ([`pace_key`]).
    host_index: FxHashMap<String, usize>,
    /// The hosts that are idle and have a link queued, as `(ready_at, index)`: the first
    /// one is the next to ask, or the time to wait for.
    ready: BTreeSet<(u64, usize)>,
    in_flight: usize,
    /// Links checked so far.
    done: usize,
    /// When the time budget is spent (ms), fixed by the first poll.
    deadline: Option<u64>,
    config: CheckConfig,
}

/// `text` cut to [`MAX_LINK_URL_CHARS`] characters (what a server sends is never kept whole).
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_LINK_URL_CHARS) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// `raw` as an absolute http(s) URL without userinfo or fragment, or why it cannot be requested.
pub fn request_url(raw: &str) -> Result<url::Url, String> {
    let mut url = url::Url::parse(raw).map_err(|e| format!("not a valid url ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("not an http(s) url (scheme {}:), never requested", cut(url.scheme())));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("the url has no host".into());
    }
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_fragment(None);
    Ok(url)
}

/// A `Location` as recorded: as sent, but an absolute URL loses its userinfo (a record never
/// holds credentials, whoever sent them).
fn without_userinfo(location: &str) -> String {
    match url::Url::parse(location.trim()) {
        Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.into()
        }
        _ => location.to_string(),
    }
}

/// A URL learned from a redirect (a `Location`, or a request URL that came from one) as
/// recorded: without its query and fragment, without userinfo, cut. Userinfo cannot hold a
/// raw `?` or `#`, so the first one ends the part that is kept in every form of URL.
fn learned(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    cut(&without_userinfo(&url[..end]))
}

/// The key pacing is done on: the registrable domain of the URL's host (an IP address is
/// its own key; the port does not count).
fn pace_key(url: &str) -> String {
    let host = url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_default();
    crate::analysis::urls::registrable_domain(&host)
}

impl LinkChecker {
    /// A checker of `urls` (each checked once, in the order given; duplicates dropped).
    pub fn new(urls: impl IntoIterator<Item = String>, config: CheckConfig) -> LinkChecker {
        let config = CheckConfig {
            concurrency: config.concurrency.clamp(1, MAX_LINK_CONCURRENCY),
            host_delay_ms: config.host_delay_ms.min(MAX_LINK_HOST_DELAY_MS),
            ..config
        };
        let mut checker = LinkChecker {
            links: Vec::new(),
            hosts: Vec::new(),
            host_index: FxHashMap::default(),
            ready: BTreeSet::new(),
            in_flight: 0,
            done: 0,
            deadline: None,
            config,
        };
        let mut seen = std::collections::BTreeSet::new();
        for raw in urls {
            let first = request_url(&raw);
            // Recorded as the Answer Link's canonical URL (which has no userinfo), so that the
            // record finds the answers that wrote it.
            let url = crate::analysis::urls::normalize_url(&raw).map_or_else(|| cut(&raw), |u| u.canonical);
            if !seen.insert(url.clone()) {
                continue;
            }
            let id = checker.links.len();
            checker.links.push(Link {
                url,
                current: first.as_ref().map(url::Url::to_string).unwrap_or_default(),
                method: Method::Head,
                hops: Vec::new(),
                status: None,
                redirected: false,
                final_url: None,
                host: 0,
                state: State::Queued,
            });
            match first {
                Ok(url) if !checker.config.allow_private && is_private_host(&url) => {
                    checker.finish_link(id, LinkClass::Error, Some(PRIVATE_ADDRESS.into()))
                }
                Ok(_) => checker.enqueue(id),
                Err(error) => checker.finish_link(id, LinkClass::Error, Some(error)),
            }
        }
        checker
    }

    /// Links in all.
    pub fn total(&self) -> usize {
        self.links.len()
    }

    /// Links checked so far.
    pub fn done(&self) -> usize {
        self.done
    }

    /// Puts link `id` in the queue of the host of its current URL.
    fn enqueue(&mut self, id: usize) {
        let next = self.hosts.len();
        let h = *self.host_index.entry(pace_key(&self.links[id].current)).or_insert(next);
        if h == next {
            self.hosts.push(Host::default());
        }
        let host = &mut self.hosts[h];
        if !host.busy && host.queue.is_empty() {
            self.ready.insert((host.ready_at, h));
        }
        host.queue.push_back(id);
        let link = &mut self.links[id];
        link.host = h;
        link.state = State::Queued;
    }

    /// The next thing the shell should do at time `now_ms`.
    pub fn poll(&mut self, now_ms: u64) -> Poll {
        let deadline = *self.deadline.get_or_insert(now_ms.saturating_add(self.config.budget_ms));
        if self.done == self.links.len() {
            return Poll::Done;
        }
        if now_ms >= deadline {
            self.out_of_time();
            return Poll::Done;
        }
        if self.in_flight >= self.config.concurrency {
            return Poll::Wait(deadline);
        }
        // The idle host with work whose delay ended first (then the first one used).
        let Some(&(ready_at, h)) = self.ready.first() else { return Poll::Wait(deadline) };
        if ready_at > now_ms {
            return Poll::Wait(ready_at.min(deadline));
        }
        self.ready.remove(&(ready_at, h));
        let host = &mut self.hosts[h];
        let Some(id) = host.queue.pop_front() else { return Poll::Wait(deadline) };
        host.busy = true;
        self.in_flight += 1;
        let link = &mut self.links[id];
        link.state = State::InFlight;
        Poll::Start(CheckRequest { id, method: link.method, url: link.current.clone() })
    }

    /// The time budget is spent: every link not checked yet, in flight or queued, is an
    /// error, and a late reply for one of them is ignored.
    fn out_of_time(&mut self) {
        for id in 0..self.links.len() {
            if !matches!(self.links[id].state, State::Done(_)) {
                self.finish_link(id, LinkClass::Error, Some(NOT_CHECKED.into()));
            }
        }
        self.ready.clear();
        self.in_flight = 0;
    }

    /// Takes the outcome of link `id`'s request at time `now_ms`. A reply for a link without
    /// a request out is ignored.
    pub fn on_reply(&mut self, id: usize, now_ms: u64, reply: Reply) {
        let Some(link) = self.links.get(id) else { return };
        if !matches!(link.state, State::InFlight) {
            return;
        }
        let h = link.host;
        let host = &mut self.hosts[h];
        host.busy = false;
        host.ready_at = now_ms.saturating_add(self.config.host_delay_ms);
        if !host.queue.is_empty() {
            self.ready.insert((host.ready_at, h));
        }
        self.in_flight -= 1;
        let link = &mut self.links[id];
        if link.redirected && !matches!(reply, Reply::PrivateAddress) {
            // Requested (a refused address never is), so it is the final URL so far.
            link.final_url = Some(learned(&link.current));
        }
        match reply {
            Reply::PrivateAddress => self.finish_link(id, LinkClass::Error, Some(PRIVATE_ADDRESS.into())),
            Reply::Failed { error } => self.finish_link(id, LinkClass::Error, Some(cut(&error))),
            Reply::Response { status, location } => self.on_response(id, status, location),
        }
    }

    fn on_response(&mut self, id: usize, status: u16, location: Option<String>) {
        let link = &mut self.links[id];
        link.status = Some(status);
        match status {
            405 | 501 if link.method == Method::Head => {
                link.method = Method::Get;
                self.enqueue(id);
            }
            301 | 302 | 303 | 307 | 308 => self.on_redirect(id, status, location),
            200..=299 => {
                let class = if link.hops.is_empty() { LinkClass::Ok } else { LinkClass::Redirect };
                self.finish_link(id, class, None);
            }
            404 | 410 => self.finish_link(id, LinkClass::NotFound, None),
            401 | 403 | 429 => self.finish_link(id, LinkClass::Blocked, None),
            other => self.finish_link(id, LinkClass::Error, Some(format!("http status {other}"))),
        }
    }

    fn on_redirect(&mut self, id: usize, status: u16, location: Option<String>) {
        let allow_private = self.config.allow_private;
        let link = &mut self.links[id];
        // The first request's URL is the answer's own; every later one was learned.
        let url = if link.redirected { learned(&link.current) } else { link.current.clone() };
        link.hops.push(LinkHop { url, status, location: location.as_deref().map(learned) });
        let Some(location) = location else {
            return self.finish_link(id, LinkClass::Error, Some("a redirect without a location header".into()));
        };
        if link.hops.len() > MAX_LINK_REDIRECTS {
            let error = format!("more than {MAX_LINK_REDIRECTS} redirects, the next one was not followed");
            return self.finish_link(id, LinkClass::Error, Some(error));
        }
        let next = url::Url::parse(&link.current).and_then(|base| base.join(location.trim()));
        match next.as_ref().map(|u| u.scheme()) {
            Ok("http" | "https") => match request_url(next.as_ref().map(|u| u.as_str()).unwrap_or_default()) {
                Ok(url) if !allow_private && is_private_host(&url) => {
                    self.finish_link(id, LinkClass::Error, Some(PRIVATE_ADDRESS.into()))
                }
                Ok(url) => {
                    link.current = url.into();
                    link.redirected = true;
                    self.enqueue(id);
                }
                Err(error) => self.finish_link(id, LinkClass::Error, Some(format!("a redirect to {error}"))),
            },
            Ok(scheme) => {
                let error = format!("a redirect to a non-http(s) url (scheme {}:) was not followed", cut(scheme));
                self.finish_link(id, LinkClass::Error, Some(error));
            }
            Err(e) => {
                self.finish_link(id, LinkClass::Error, Some(format!("a redirect to an unreadable location ({e})")))
            }
        }
    }

    fn finish_link(&mut self, id: usize, class: LinkClass, error: Option<String>) {
        let link = &mut self.links[id];
        if !matches!(link.state, State::Done(_)) {
            self.done += 1;
        }
        link.state = State::Done(LinkResult {
            url: link.url.clone(),
            class,
            status: link.status,
            final_url: link.final_url.take(),
            hops: std::mem::take(&mut link.hops),
            error,
        });
    }

    /// The `linkChecks` record: every link in the order given, checked at `checked_at`.
    /// Links still unchecked (a cancelled check) are left out.
    pub fn finish(self, run_id: &str, checked_at: &str) -> LinkCheck {
        let links = self
            .links
            .into_iter()
            .filter_map(|l| match l.state {
                State::Done(result) => Some(result),
                _ => None,
            })
            .collect();
        LinkCheck { run_id: run_id.to_string(), checked_at: checked_at.to_string(), links }
    }
}
