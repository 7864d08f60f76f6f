//! The answer-link checker's decisions (`geo_core::actions::check`), driven by a scripted
//! server on a virtual clock: every class, HEAD then GET, redirects (kept, bounded, never to
//! a non-http(s) URL, recorded without their query), no userinfo ever requested, no private
//! address ever requested, the per-host delay, the concurrency and the time budget.

use geo_core::actions::check::{
    CheckConfig, CheckRequest, LinkChecker, Method, Poll, Reply, NOT_CHECKED, PRIVATE_ADDRESS,
};
use geo_core::model::{LinkCheck, LinkClass, LinkResult};
use std::collections::BTreeMap;

/// What the scripted server answers for a (method, url); anything unscripted is a 200.
type Script = BTreeMap<(&'static str, String), Reply>;

fn response(status: u16, location: Option<&str>) -> Reply {
    Reply::Response { status, location: location.map(str::to_string) }
}

/// A request as the server saw it: start time, method, url, and when its reply came.
#[derive(Debug, Clone)]
struct Seen {
    start: u64,
    end: u64,
    method: &'static str,
    url: String,
}

/// Runs a check of `urls` against `script`, each request taking `latency` ms.
fn drive(urls: &[&str], script: &Script, config: CheckConfig, latency: u64) -> (LinkCheck, Vec<Seen>) {
    let mut checker = LinkChecker::new(urls.iter().map(|u| u.to_string()), config);
    let mut now = 0u64;
    let mut in_flight: Vec<(u64, CheckRequest, usize)> = Vec::new();
    let mut seen: Vec<Seen> = Vec::new();
    for _ in 0..10_000 {
        match checker.poll(now) {
            Poll::Start(req) => {
                let method = req.method.as_str();
                seen.push(Seen { start: now, end: 0, method, url: req.url.clone() });
                in_flight.push((now + latency, req, seen.len() - 1));
            }
            Poll::Done => {
                assert!(in_flight.is_empty());
                return (checker.finish("run", "2026-12-01T00:00:00.000Z"), seen);
            }
            Poll::Wait(until) => {
                let next = in_flight.iter().map(|(t, _, _)| *t).min();
                now = next.map_or(until, |a| a.min(until)).max(now);
                while let Some(i) = in_flight.iter().position(|(t, _, _)| *t <= now) {
                    let (_, req, k) = in_flight.remove(i);
                    seen[k].end = now;
                    let key = (req.method.as_str(), req.url.clone());
                    let reply = script.get(&key).cloned().unwrap_or_else(|| response(200, None));
                    checker.on_reply(req.id, now, reply);
                }
            }
        }
    }
    panic!("the check never ended");
}

fn quick() -> CheckConfig {
    CheckConfig { concurrency: 4, host_delay_ms: 0, ..CheckConfig::default() }
}

/// A check of `concurrency` requests at a time, `host_delay_ms` apart per host.
fn paced(concurrency: usize, host_delay_ms: u64) -> CheckConfig {
    CheckConfig { concurrency, host_delay_ms, ..CheckConfig::default() }
}

fn script(rows: &[(&'static str, &str, Reply)]) -> Script {
    rows.iter().map(|(m, u, r)| ((*m, u.to_string()), r.clone())).collect()
}

#[track_caller]
fn one(url: &str, rows: &[(&'static str, &str, Reply)]) -> (LinkResult, Vec<Seen>) {
    let (check, seen) = drive(&[url], &script(rows), quick(), 10);
    assert_eq!(check.links.len(), 1);
    (check.links[0].clone(), seen)
}

#[test]
fn every_status_class() {
    let table: [(LinkClass, &[u16]); 4] = [
        (LinkClass::Ok, &[200, 204]),
        (LinkClass::NotFound, &[404, 410]),
        (LinkClass::Blocked, &[401, 403, 429]),
        (LinkClass::Error, &[500, 503, 400, 304, 300]),
    ];
    for (class, statuses) in table {
        for &status in statuses {
            let url = "https://a.example/page";
            let (r, seen) = one(url, &[("HEAD", url, response(status, None))]);
            assert_eq!((r.class, r.status), (class, Some(status)), "{status}");
            assert_eq!(seen.len(), 1, "one HEAD for {status}");
            assert_eq!(r.error.is_some(), class == LinkClass::Error, "{status}: {r:?}");
            assert_eq!((r.final_url, r.hops.len()), (None, 0));
        }
    }
}

#[test]
fn a_failure_without_a_reply_is_an_error_with_its_reason() {
    let url = "https://gone.example/";
    let (r, _) = one(url, &[("HEAD", url, Reply::Failed { error: "dns lookup failed".into() })]);
    assert_eq!((r.class, r.status, r.error.as_deref()), (LinkClass::Error, None, Some("dns lookup failed")));
    let long = "x".repeat(10_000);
    let (r, _) = one(url, &[("HEAD", url, Reply::Failed { error: long })]);
    assert!(r.error.unwrap().chars().count() <= geo_core::limits::MAX_LINK_URL_CHARS + 1, "cut");
}

#[test]
fn head_refused_is_asked_again_with_get() {
    for refused in [405, 501] {
        let url = "https://a.example/x";
        let (r, seen) = one(url, &[("HEAD", url, response(refused, None)), ("GET", url, response(404, None))]);
        assert_eq!((r.class, r.status), (LinkClass::NotFound, Some(404)));
        let methods: Vec<&str> = seen.iter().map(|s| s.method).collect();
        assert_eq!(methods, ["HEAD", "GET"]);
    }
    // Any other refusal of HEAD is the answer: no GET.
    let url = "https://a.example/y";
    let (r, seen) = one(url, &[("HEAD", url, response(403, None))]);
    assert_eq!((r.class, seen.len()), (LinkClass::Blocked, 1));
    // A GET that answers 405 is an error, not a loop.
    let (r, seen) = one(url, &[("HEAD", url, response(405, None)), ("GET", url, response(405, None))]);
    assert_eq!((r.class, seen.len()), (LinkClass::Error, 2));
}

#[test]
fn redirects_are_followed_and_kept() {
    let start = "http://a.example/old";
    let (r, seen) = one(
        start,
        &[
            ("HEAD", start, response(301, Some("https://a.example/new"))),
            ("HEAD", "https://a.example/new", response(302, Some("/newer?x=1#top"))),
            ("HEAD", "https://a.example/newer?x=1", response(307, Some("https://b.example/final"))),
        ],
    );
    assert_eq!((r.class, r.status), (LinkClass::Redirect, Some(200)));
    assert_eq!(r.final_url.as_deref(), Some("https://b.example/final"));
    let hops: Vec<(&str, u16, Option<&str>)> =
        r.hops.iter().map(|h| (h.url.as_str(), h.status, h.location.as_deref())).collect();
    assert_eq!(
        hops,
        [
            ("http://a.example/old", 301, Some("https://a.example/new")),
            // security-3 M2: learned URLs are recorded without their query and fragment…
            ("https://a.example/new", 302, Some("/newer")),
            ("https://a.example/newer", 307, Some("https://b.example/final")),
        ]
    );
    // …and requested with their query.
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[2].url, "https://a.example/newer?x=1");
    // A redirect to a page that does not exist: not found, with the hops that led there.
    let (r, _) = one(
        start,
        &[
            ("HEAD", start, response(308, Some("https://a.example/moved"))),
            ("HEAD", "https://a.example/moved", response(404, None)),
        ],
    );
    assert_eq!(
        (r.class, r.hops.len(), r.final_url.as_deref()),
        (LinkClass::NotFound, 1, Some("https://a.example/moved"))
    );
}

#[test]
fn a_sixth_redirect_is_never_followed() {
    let url = |i: usize| format!("https://loop.example/{i}");
    let rows: Vec<(&'static str, String, Reply)> =
        (0..20).map(|i| ("HEAD", url(i), response(302, Some(&url(i + 1))))).collect();
    let script: Script = rows.into_iter().map(|(m, u, r)| ((m, u), r)).collect();
    let (check, seen) = drive(&["https://loop.example/0"], &script, quick(), 10);
    let r = &check.links[0];
    assert_eq!(r.class, LinkClass::Error);
    assert_eq!(seen.len(), 6, "the first request and five redirects followed");
    assert_eq!(r.hops.len(), 6, "every redirect reply kept, the sixth too");
    assert_eq!(r.final_url.as_deref(), Some("https://loop.example/5"));
    assert!(r.error.as_deref().unwrap().contains("more than 5 redirects"), "{r:?}");
    // A loop to itself ends the same way.
    let me = "https://self.example/";
    let (r, seen) = one(me, &[("HEAD", me, response(301, Some(me)))]);
    assert_eq!((r.class, seen.len()), (LinkClass::Error, 6));
}

#[test]
fn redirects_to_other_schemes_or_nowhere_are_never_followed() {
    for target in
        ["file:///etc/passwd", "javascript:alert(1)", "ftp://a.example/x", "data:text/html,hi", "mailto:a@b.c"]
    {
        let url = "https://a.example/r";
        let (r, seen) = one(url, &[("HEAD", url, response(302, Some(target)))]);
        assert_eq!((r.class, r.status), (LinkClass::Error, Some(302)), "{target}");
        assert_eq!(seen.len(), 1, "{target} is never requested");
        assert!(r.error.as_deref().unwrap().contains("non-http(s)"), "{target}: {r:?}");
        assert_eq!(r.hops[0].location.as_deref(), Some(target));
        assert_eq!(r.final_url, None);
    }
    let url = "https://a.example/nowhere";
    let (r, seen) = one(url, &[("HEAD", url, response(301, None))]);
    assert_eq!((r.class, seen.len()), (LinkClass::Error, 1));
    assert!(r.error.unwrap().contains("location"));
    // A Location header of any length is kept cut.
    let huge = format!("/{}", "a".repeat(100_000));
    let (r, _) = one(url, &[("HEAD", url, response(301, Some(&huge)))]);
    assert!(r.hops[0].location.as_ref().unwrap().chars().count() <= geo_core::limits::MAX_LINK_URL_CHARS + 1);
}

#[test]
fn credentials_are_never_requested() {
    let (r, seen) = one("https://user:secret@a.example/x#frag", &[]);
    assert_eq!(r.url, "https://a.example/x");
    assert_eq!(seen[0].url, "https://a.example/x");
    let url = "https://b.example/";
    let (r, seen) = one(url, &[("HEAD", url, response(302, Some("https://u:p@c.example/next")))]);
    assert_eq!(seen[1].url, "https://c.example/next");
    assert_eq!(r.final_url.as_deref(), Some("https://c.example/next"));
    assert_eq!(r.hops[0].location.as_deref(), Some("https://c.example/next"), "recorded without them too");
    assert!(seen.iter().all(|s| !s.url.contains('@')));
}

#[test]
fn links_that_cannot_be_requested_are_errors_without_a_request() {
    let (check, seen) = drive(&["mailto:a@b.c", "not a url", "ftp://a.example/"], &Script::new(), quick(), 10);
    assert!(seen.is_empty());
    assert!(check.links.iter().all(|l| l.class == LinkClass::Error && l.status.is_none()));
    assert_eq!(check.links.len(), 3);
}

#[test]
fn each_link_once_in_the_order_given() {
    let urls = ["https://b.example/1", "https://a.example/1", "https://b.example/1", "https://a.example/2"];
    let (check, seen) = drive(&urls, &Script::new(), quick(), 10);
    let got: Vec<&str> = check.links.iter().map(|l| l.url.as_str()).collect();
    assert_eq!(got, ["https://b.example/1", "https://a.example/1", "https://a.example/2"]);
    assert_eq!(seen.len(), 3);
    assert_eq!((check.run_id.as_str(), check.checked_at.as_str()), ("run", "2026-12-01T00:00:00.000Z"));
}

#[test]
fn one_request_per_host_at_a_time_with_the_delay_between() {
    let urls: Vec<String> =
        (0..4).flat_map(|i| [format!("https://a.example/{i}"), format!("https://b.example/{i}")]).collect();
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let config = paced(8, 1_000);
    let (check, seen) = drive(&urls, &Script::new(), config, 250);
    assert_eq!(check.links.len(), 8);
    assert_eq!(check.links.iter().filter(|l| l.class == LinkClass::Ok).count(), 8);
    for host in ["a.example", "b.example"] {
        let mine: Vec<&Seen> = seen.iter().filter(|s| s.url.contains(host)).collect();
        for w in mine.windows(2) {
            assert!(w[1].start >= w[0].end + 1_000, "{host}: {:?} then {:?}", w[0], w[1]);
        }
    }
    // The two hosts go side by side: 4 requests each, 250 ms + 1 s apart.
    let last = seen.iter().map(|s| s.end).max().unwrap();
    assert_eq!(last, 3 * 1_250 + 250);
    // The delay is at most one second, whatever is asked.
    let config = paced(8, 60_000);
    let (_, seen) = drive(&urls, &Script::new(), config, 250);
    assert_eq!(seen.iter().map(|s| s.end).max().unwrap(), 3 * 1_250 + 250);
}

#[test]
fn at_most_the_concurrency_in_flight() {
    let urls: Vec<String> = (0..12).map(|i| format!("https://h{i}.example/")).collect();
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    for concurrency in [1, 3, 16] {
        let (check, seen) = drive(&urls, &Script::new(), paced(concurrency, 0), 100);
        assert_eq!(check.links.len(), 12);
        let most = seen.iter().map(|s| seen.iter().filter(|o| o.start <= s.start && s.start < o.end).count()).max();
        assert_eq!(most, Some(concurrency.min(12)), "concurrency {concurrency}");
    }
    // Zero means one; more than the cap means the cap.
    let (_, seen) = drive(&urls, &Script::new(), paced(0, 0), 100);
    assert_eq!(seen.iter().map(|s| s.end).max(), Some(1_200));
}

#[test]
fn a_stray_reply_changes_nothing() {
    let mut checker = LinkChecker::new(["https://a.example/".to_string()], quick());
    checker.on_reply(0, 0, response(404, None));
    checker.on_reply(7, 0, response(404, None));
    let Poll::Start(req) = checker.poll(0) else { panic!("a request") };
    assert_eq!((req.method, req.url.as_str()), (Method::Head, "https://a.example/"));
    checker.on_reply(req.id, 5, response(200, None));
    checker.on_reply(req.id, 6, response(404, None));
    assert_eq!(checker.poll(6), Poll::Done);
    assert_eq!(checker.finish("r", "t").links[0].class, LinkClass::Ok);
}

/// A link's `(class, status, error)`.
fn outcome(r: &LinkResult) -> (LinkClass, Option<u16>, Option<&str>) {
    (r.class, r.status, r.error.as_deref())
}

// security-3 M2: a link whose host is a private address in any spelling, or a loopback name,
// is an error and never requested; `allow_private` asks them all.
#[test]
fn private_destinations_are_never_requested() {
    let urls = [
        "http://127.0.0.1:18912/admin/direct",
        "http://2130706433:18912/a",
        "http://0x7f000001:18912/b",
        "http://127.1:18912/c",
        "http://[::ffff:127.0.0.1]:18912/d",
        "http://localhost:18912/e",
        "http://0.0.0.0/f",
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/x",
        "http://10.0.0.1/g",
        "http://172.16.0.1/h",
        "http://192.168.1.1/i",
        "http://100.64.0.1/j",
        "http://198.18.0.1/k",
        "http://224.0.0.1/l",
        "http://255.255.255.255/m",
        "http://[::]/n",
        "http://[::1]/o",
        "http://[fc00::1]/p",
        "http://[fe80::1]/q",
        "http://[::127.0.0.1]/r",
        "http://[64:ff9b::a00:1]/s",
    ];
    let (check, seen) = drive(&urls, &Script::new(), quick(), 10);
    assert!(seen.is_empty(), "requested: {seen:?}");
    assert_eq!(check.links.len(), urls.len());
    for r in &check.links {
        assert_eq!(outcome(r), (LinkClass::Error, None, Some(PRIVATE_ADDRESS)), "{}", r.url);
        assert!(r.hops.is_empty() && r.final_url.is_none());
    }
    let intranet = CheckConfig { allow_private: true, ..quick() };
    let (check, seen) = drive(&urls, &Script::new(), intranet, 10);
    assert_eq!(seen.len(), urls.len(), "--allow-private asks every one");
    assert!(check.links.iter().all(|l| l.class == LinkClass::Ok));
    assert!(seen.iter().any(|s| s.url == "http://127.0.0.1:18912/a"), "asked as parsed: {seen:?}");
}

// security-3 M2: a redirect to a private address is recorded and not followed, at any hop.
#[test]
fn a_redirect_to_a_private_address_is_never_followed() {
    let url = "https://a.example/r";
    let metadata = "http://169.254.169.254/latest/meta-data/?token=t";
    let (r, seen) = one(url, &[("HEAD", url, response(302, Some(metadata)))]);
    assert_eq!(outcome(&r), (LinkClass::Error, Some(302), Some(PRIVATE_ADDRESS)));
    assert_eq!(seen.len(), 1);
    assert_eq!(r.hops[0].location.as_deref(), Some("http://169.254.169.254/latest/meta-data/"));
    assert_eq!(r.final_url, None, "never requested, so never the final URL");
    // A second hop: the final URL is the last one requested.
    let (r, seen) = one(
        url,
        &[
            ("HEAD", url, response(301, Some("https://b.example/next?k=v"))),
            ("HEAD", "https://b.example/next?k=v", response(302, Some("http://127.1:8080/admin"))),
        ],
    );
    assert_eq!(outcome(&r), (LinkClass::Error, Some(302), Some(PRIVATE_ADDRESS)));
    let urls: Vec<&str> = seen.iter().map(|s| s.url.as_str()).collect();
    assert_eq!(urls, [url, "https://b.example/next?k=v"]);
    assert_eq!(r.final_url.as_deref(), Some("https://b.example/next"));
    assert_eq!(r.hops[1].location.as_deref(), Some("http://127.1:8080/admin"));
    // With allow_private the same redirect is followed.
    let intranet = CheckConfig { allow_private: true, ..quick() };
    let (check, seen) = drive(&[url], &script(&[("HEAD", url, response(302, Some(metadata)))]), intranet, 10);
    assert_eq!(check.links[0].class, LinkClass::Redirect);
    assert_eq!(seen[1].url, "http://169.254.169.254/latest/meta-data/?token=t");
}

// security-3 M2: a name the shell's resolver finds private (rebinding included) ends the same way.
#[test]
fn the_shells_refusal_of_a_private_address_is_recorded() {
    let url = "https://intranet.example/";
    let (r, seen) = one(url, &[("HEAD", url, Reply::PrivateAddress)]);
    assert_eq!(outcome(&r), (LinkClass::Error, None, Some(PRIVATE_ADDRESS)));
    assert_eq!(seen.len(), 1);
    let start = "https://a.example/";
    let (r, _) = one(
        start,
        &[
            ("HEAD", start, response(307, Some("https://rebind.example/x?secret=1"))),
            ("HEAD", "https://rebind.example/x?secret=1", Reply::PrivateAddress),
        ],
    );
    assert_eq!(outcome(&r), (LinkClass::Error, Some(307), Some(PRIVATE_ADDRESS)));
    assert_eq!(r.final_url, None, "nothing was sent to it");
    assert_eq!(r.hops[0].location.as_deref(), Some("https://rebind.example/x"));
}

// security-3 M2: an internal `Location` with a code in its query never reaches the record;
// the answer's own URL keeps its query (it is what the answer wrote).
#[test]
fn urls_learned_from_redirects_are_recorded_without_query_or_fragment() {
    let url = "https://a.example/x?id=7";
    let sso = "https://sso.corp.example/cb?code=SECRET&state=s#frag";
    let (check, seen) = drive(
        &[url],
        &script(&[
            ("HEAD", url, response(302, Some(sso))),
            ("HEAD", "https://sso.corp.example/cb?code=SECRET&state=s", response(302, Some("/done?code=SECRET"))),
        ]),
        quick(),
        10,
    );
    let r = &check.links[0];
    assert_eq!((r.class, r.url.as_str()), (LinkClass::Redirect, url));
    let urls: Vec<&str> = seen.iter().map(|s| s.url.as_str()).collect();
    assert_eq!(
        urls,
        [url, "https://sso.corp.example/cb?code=SECRET&state=s", "https://sso.corp.example/done?code=SECRET"]
    );
    let hops: Vec<(&str, Option<&str>)> = r.hops.iter().map(|h| (h.url.as_str(), h.location.as_deref())).collect();
    assert_eq!(hops, [(url, Some("https://sso.corp.example/cb")), ("https://sso.corp.example/cb", Some("/done"))]);
    assert_eq!(r.final_url.as_deref(), Some("https://sso.corp.example/done"));
    let record = serde_json::to_string(&check).unwrap();
    assert!(!record.contains("SECRET") && !record.contains("state=") && !record.contains("frag"), "{record}");
}

// security-3 L5: the whole check stops when its budget is spent; what is left is an error.
#[test]
fn the_time_budget_ends_the_check() {
    let urls: Vec<String> = (0..5).map(|i| format!("https://a.example/{i}")).collect();
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let config = CheckConfig { budget_ms: 2_500, ..paced(4, 1_000) };
    let (check, seen) = drive(&urls, &Script::new(), config, 100);
    // One host: requests at 0, 1,100 and 2,200; the next one would start at 3,300.
    assert_eq!(seen.iter().map(|s| s.start).collect::<Vec<_>>(), [0, 1_100, 2_200]);
    let got: Vec<(LinkClass, Option<&str>)> = check.links.iter().map(|l| (l.class, l.error.as_deref())).collect();
    let ok = (LinkClass::Ok, None);
    let late = (LinkClass::Error, Some(NOT_CHECKED));
    assert_eq!(got, [ok, ok, ok, late, late]);
}

// security-3 L5: a request still out when the budget ends is not waited for, and the budget
// counts from the first poll.
#[test]
fn a_request_out_at_the_deadline_is_not_waited_for() {
    let urls = ["https://a.example/", "https://hangs.example/"].map(String::from);
    let mut checker = LinkChecker::new(urls, CheckConfig { budget_ms: 1_000, ..quick() });
    let Poll::Start(a) = checker.poll(5_000) else { panic!("a request") };
    let Poll::Start(hangs) = checker.poll(5_000) else { panic!("a second request") };
    assert_eq!(checker.poll(5_000), Poll::Wait(6_000));
    checker.on_reply(a.id, 5_010, response(200, None));
    assert_eq!(checker.done(), 1);
    assert_eq!(checker.poll(5_010), Poll::Wait(6_000));
    assert_eq!(checker.poll(6_000), Poll::Done);
    assert_eq!(checker.done(), 2);
    checker.on_reply(hangs.id, 9_000, response(404, None));
    let links = checker.finish("r", "t").links;
    assert_eq!(outcome(&links[0]), (LinkClass::Ok, Some(200), None));
    assert_eq!(outcome(&links[1]), (LinkClass::Error, None, Some(NOT_CHECKED)));
}

// security-3 L5: hosts of one registrable domain are paced as one; an IP address is its own.
#[test]
fn pacing_is_per_registrable_domain() {
    let urls = [
        "https://a.example.com/1",
        "https://b.example.com/2",
        "https://example.com/3",
        "https://news.sina.com.cn/4",
        "https://www.sina.com.cn/5",
        "https://me.github.io/6",
        "https://you.github.io/7",
    ];
    let (_, seen) = drive(&urls, &Script::new(), paced(8, 1_000), 250);
    let starts: Vec<(&str, u64)> = seen.iter().map(|s| (s.url.as_str(), s.start)).collect();
    let at = |url: &str| starts.iter().find(|(u, _)| *u == url).map(|(_, t)| *t).unwrap();
    assert_eq!(
        [at(urls[0]), at(urls[1]), at(urls[2]), at(urls[3]), at(urls[4]), at(urls[5]), at(urls[6])],
        [0, 1_250, 2_500, 0, 1_250, 0, 0],
        "github.io is a public suffix, so me. and you. are two sites"
    );
}
