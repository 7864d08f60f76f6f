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
//!   again no sooner than `host_delay_ms` after its previous reply.

use crate::limits::{MAX_LINK_CONCURRENCY, MAX_LINK_HOST_DELAY_MS, MAX_LINK_REDIRECTS, MAX_LINK_URL_CHARS};
use crate::model::{LinkCheck, LinkClass, LinkHop, LinkResult};
use std::collections::VecDeque;

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
}

/// What the shell does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Poll {
    /// Perform this request (then poll again: more may be ready).
    Start(CheckRequest),
    /// Nothing can start now: wait for a reply, or until this time (ms) when a host's delay
    /// ends, whichever comes first (`None`: only a reply can change anything).
    Wait(Option<u64>),
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
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig { concurrency: 4, host_delay_ms: MAX_LINK_HOST_DELAY_MS }
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
    /// Redirects followed (requested at their target).
    followed: usize,
    /// Index of its host in `hosts`.
    host: usize,
    state: State,
}

#[derive(Debug)]
struct Host {
    name: String,
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
    in_flight: usize,
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
pub fn request_url(raw: &str) -> Result<String, String> {
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
    Ok(url.into())
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

/// The host name pacing is keyed on (lower case, without the port).
fn host_of(url: &str) -> String {
    url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)).unwrap_or_default()
}

impl LinkChecker {
    /// A checker of `urls` (each checked once, in the order given; duplicates dropped).
    pub fn new(urls: impl IntoIterator<Item = String>, config: CheckConfig) -> LinkChecker {
        let config = CheckConfig {
            concurrency: config.concurrency.clamp(1, MAX_LINK_CONCURRENCY),
            host_delay_ms: config.host_delay_ms.min(MAX_LINK_HOST_DELAY_MS),
        };
        let mut checker = LinkChecker { links: Vec::new(), hosts: Vec::new(), in_flight: 0, config };
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
                current: first.clone().unwrap_or_default(),
                method: Method::Head,
                hops: Vec::new(),
                status: None,
                followed: 0,
                host: 0,
                state: State::Queued,
            });
            match first {
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
        self.links.iter().filter(|l| matches!(l.state, State::Done(_))).count()
    }

    /// Puts link `id` in the queue of the host of its current URL.
    fn enqueue(&mut self, id: usize) {
        let name = host_of(&self.links[id].current);
        let host = match self.hosts.iter().position(|h| h.name == name) {
            Some(h) => h,
            None => {
                self.hosts.push(Host { name, queue: VecDeque::new(), busy: false, ready_at: 0 });
                self.hosts.len() - 1
            }
        };
        self.hosts[host].queue.push_back(id);
        let link = &mut self.links[id];
        link.host = host;
        link.state = State::Queued;
    }

    /// The next thing the shell should do at time `now_ms`.
    pub fn poll(&mut self, now_ms: u64) -> Poll {
        if self.in_flight < self.config.concurrency {
            // The first host (in order of first use) that is idle, past its delay and has work.
            let ready = self.hosts.iter().position(|h| !h.busy && h.ready_at <= now_ms && !h.queue.is_empty());
            if let Some(h) = ready {
                let host = &mut self.hosts[h];
                let id = host.queue.pop_front().expect("the host has work");
                host.busy = true;
                self.in_flight += 1;
                let link = &mut self.links[id];
                link.state = State::InFlight;
                return Poll::Start(CheckRequest { id, method: link.method, url: link.current.clone() });
            }
        }
        let queued = self.hosts.iter().any(|h| !h.queue.is_empty());
        if !queued && self.in_flight == 0 {
            return Poll::Done;
        }
        if self.in_flight >= self.config.concurrency {
            return Poll::Wait(None);
        }
        Poll::Wait(self.hosts.iter().filter(|h| !h.busy && !h.queue.is_empty()).map(|h| h.ready_at).min())
    }

    /// Takes the outcome of link `id`'s request at time `now_ms`. A reply for a link without
    /// a request out is ignored.
    pub fn on_reply(&mut self, id: usize, now_ms: u64, reply: Reply) {
        let Some(link) = self.links.get(id) else { return };
        if !matches!(link.state, State::InFlight) {
            return;
        }
        let host = &mut self.hosts[link.host];
        host.busy = false;
        host.ready_at = now_ms.saturating_add(self.config.host_delay_ms);
        self.in_flight -= 1;
        match reply {
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
        let link = &mut self.links[id];
        let kept = location.as_deref().map(|l| cut(&without_userinfo(l)));
        link.hops.push(LinkHop { url: link.current.clone(), status, location: kept });
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
                Ok(url) => {
                    link.current = url;
                    link.followed += 1;
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
        // The URL of the last request, once a redirect was followed.
        let final_url = (link.followed > 0).then(|| link.current.clone());
        link.state = State::Done(LinkResult {
            url: link.url.clone(),
            class,
            status: link.status,
            final_url,
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
