//! The proxy's five checks, as one pure decision: [`Gate::check`] takes a request head and
//! says what to do with it — refuse it (and why), answer its CORS preflight, or forward it to
//! an engine's path with a body of a given length. No socket, no clock: the connection
//! (`connection.rs`) reads the head, asks the gate, then performs the answer, the sans-IO
//! shape of geo-core's runner. So every refusal and every allow is tested here without a
//! socket (`check` below), and the integration tests (`tests/proxy.rs`) test the same rules
//! through real connections.
//!
//! The checks run in this order, and the first that fails decides
//! (`docs/adr/0020-local-proxy-threat-model.md`):
//! 1. the `Host` header names the proxy, else 403 (DNS rebinding);
//! 2. an `Origin` the proxy was not started for is refused, 403; an `OPTIONS` preflight is
//!    answered from an allowed origin only;
//! 3. the per-start token, compared in constant time, else 401;
//! 4. only `POST` on a served engine's own path, else 404;
//! 5. a `Content-Length` body (411 for a chunked one, 400 for a bad length) of at most
//!    [`MAX_BODY_BYTES`], else 413.

use geo_core::model::EngineId;
use geo_core::provider;

use super::http::Head;
use super::{MAX_BODY_BYTES, TOKEN_HEADER};

/// What the checks compare a request with, fixed at start.
pub(super) struct Gate {
    /// The port in every allowed `Host`.
    pub(super) port: u16,
    /// The per-start token.
    pub(super) token: String,
    /// The origins pages may call from (`--allow-origin`).
    pub(super) origins: Vec<String>,
    /// The engines served, each under `/{engine}`.
    pub(super) engines: Vec<EngineId>,
}

/// Where a forwarded request goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    /// The engine's table path, for this model (Gemini names it in the path).
    Probe { model: String },
    /// DeepSeek's `chat/completions` (the docs chat).
    DocsChat,
}

/// Why a request is refused: each check's own status and message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// 403: the `Host` header does not name the proxy.
    Host,
    /// 403: an origin the proxy was not started for (or a preflight without one).
    Origin,
    /// 401: no token, or a wrong one.
    Token,
    /// 404: not `POST` on a served engine's own path.
    Route,
    /// 411: a chunked body.
    Chunked,
    /// 413: a body over [`MAX_BODY_BYTES`].
    TooLarge,
    /// 400: `Content-Length` values that are not one number.
    BadLength,
}

impl Refusal {
    /// The status of the refusal.
    pub(super) fn status(self) -> u16 {
        match self {
            Refusal::Host | Refusal::Origin => 403,
            Refusal::Token => 401,
            Refusal::Route => 404,
            Refusal::Chunked => 411,
            Refusal::TooLarge => 413,
            Refusal::BadLength => 400,
        }
    }

    /// The message of the refusal's JSON body: what to do, never what the request held.
    pub(super) fn message(self) -> &'static str {
        match self {
            Refusal::Host => "geo-probe proxy: the Host header must be 127.0.0.1:PORT or localhost:PORT",
            Refusal::Origin => {
                "geo-probe proxy: this origin is not allowed; start the proxy with --allow-origin ORIGIN"
            }
            Refusal::Token => {
                "geo-probe proxy: missing or wrong x-geo-probe-proxy-token (printed as `token:` at start)"
            }
            Refusal::Route => "geo-probe proxy: only POST on an engine's own path is forwarded",
            Refusal::Chunked => "geo-probe proxy: send the body with a Content-Length",
            Refusal::TooLarge => "geo-probe proxy: request body over 1 MiB",
            Refusal::BadLength => "geo-probe proxy: bad Content-Length",
        }
    }
}

/// What to do with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Decision<'a> {
    /// Answer with the refusal's status and message; nothing goes upstream.
    Refuse(Refusal),
    /// Answer the CORS preflight of an allowed origin with 204.
    Preflight {
        /// The allowed origin, echoed in `Access-Control-Allow-Origin`.
        origin: &'a str,
        /// Chrome's Private Network Access asked (`Access-Control-Request-Private-Network: true`).
        private_network: bool,
    },
    /// Read a body of `length` bytes and send it to `engine`'s `target`.
    Forward { engine: EngineId, target: Target, length: usize },
}

/// The gate's answer about one request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Verdict<'a> {
    /// The served engine the path names, for the log line (also on a refusal).
    pub(super) engine: Option<EngineId>,
    /// The request's origin when it is allowed: whatever the answer, it gets the CORS headers.
    pub(super) origin: Option<&'a str>,
    /// What to do.
    pub(super) decision: Decision<'a>,
}

impl Gate {
    /// The five checks over `head`, in order; see the module docs.
    pub(super) fn check<'a>(&self, head: &'a Head) -> Verdict<'a> {
        let origin = head.header("origin");
        let allowed = origin.filter(|o| self.origins.iter().any(|a| a == o));
        let engine = self.named_engine(head.path());
        let verdict = |decision| Verdict { engine, origin: allowed, decision };
        if !self.host_ok(head) {
            return verdict(Decision::Refuse(Refusal::Host));
        }
        if origin.is_some() && allowed.is_none() {
            return verdict(Decision::Refuse(Refusal::Origin));
        }
        if head.method == "OPTIONS" {
            return verdict(match allowed {
                Some(origin) => Decision::Preflight {
                    origin,
                    private_network: head
                        .header("access-control-request-private-network")
                        .is_some_and(|v| v.eq_ignore_ascii_case("true")),
                },
                None => Decision::Refuse(Refusal::Origin),
            });
        }
        let token = (head.count(TOKEN_HEADER) == 1).then(|| head.header(TOKEN_HEADER)).flatten();
        if !token.is_some_and(|t| same_token(t.as_bytes(), self.token.as_bytes())) {
            return verdict(Decision::Refuse(Refusal::Token));
        }
        let route = if head.method == "POST" { self.route(head.path()) } else { None };
        let Some((engine, target)) = route else {
            return verdict(Decision::Refuse(Refusal::Route));
        };
        if head.header("transfer-encoding").is_some() {
            return verdict(Decision::Refuse(Refusal::Chunked));
        }
        verdict(match head.content_length() {
            Some(n) if n > MAX_BODY_BYTES as u64 => Decision::Refuse(Refusal::TooLarge),
            Some(n) => Decision::Forward { engine, target, length: n as usize },
            None => Decision::Refuse(Refusal::BadLength),
        })
    }

    /// Exactly one `Host` header, naming this proxy (`127.0.0.1`, `localhost` or `[::1]` with
    /// its port).
    fn host_ok(&self, head: &Head) -> bool {
        let Some(host) = head.header("host").filter(|_| head.count("host") == 1) else { return false };
        let host = host.to_ascii_lowercase();
        ["127.0.0.1", "localhost", "[::1]"].iter().any(|name| host == format!("{name}:{}", self.port))
    }

    /// The served engine a path's first segment names, for the log line.
    fn named_engine(&self, path: &str) -> Option<EngineId> {
        let first = path.strip_prefix('/')?.split('/').next()?;
        self.engines.iter().copied().find(|e| e.as_str() == first)
    }

    /// `/{engine}` + the engine's table path (or DeepSeek's docs chat) of a served engine.
    fn route(&self, path: &str) -> Option<(EngineId, Target)> {
        let engine = self.named_engine(path)?;
        let tail = &path[1 + engine.as_str().len()..];
        if engine == EngineId::Deepseek && tail == geo_core::chat::messages::CHAT_COMPLETIONS_PATH {
            return Some((engine, Target::DocsChat));
        }
        let model = match provider::spec(engine).path.split_once("{model}") {
            Some((before, after)) => {
                let model = tail.strip_prefix(before)?.strip_suffix(after)?;
                let safe = model.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
                if !safe || !model.starts_with(|c: char| c.is_ascii_alphanumeric()) || model.len() > 128 {
                    return None;
                }
                model.to_string()
            }
            None => String::new(),
        };
        (provider::engine_path(engine, &model) == tail).then_some((engine, Target::Probe { model }))
    }
}

/// Whether `given` is the token, in a time that does not depend on where they differ.
fn same_token(given: &[u8], token: &[u8]) -> bool {
    if given.len() != token.len() {
        // The length is public: every token is 43 characters.
        return false;
    }
    let diff = given.iter().zip(token).fold(0u8, |acc, (a, b)| acc | (a ^ b));
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::proxy::http::parse_head;

    const TOKEN: &str = "tok-0123456789abcdefghijklmnopqrstuvwxyzABCD";
    const ORIGIN: &str = "http://127.0.0.1:8080";

    fn gate() -> Gate {
        Gate {
            port: 8788,
            token: TOKEN.to_string(),
            origins: vec![ORIGIN.to_string()],
            engines: vec![EngineId::Deepseek, EngineId::Gemini, EngineId::Openai],
        }
    }

    /// A head of `request line` and `headers`: a POST to OpenAI's path with the right host
    /// and token unless the test says otherwise.
    fn head(line: &str, headers: &[&str]) -> Head {
        let lines: Vec<String> = std::iter::once(line).chain(headers.iter().copied()).map(str::to_string).collect();
        parse_head(&lines).unwrap()
    }

    /// The gate's verdict on `head` is `expect` (engine for the log line, allowed origin,
    /// decision).
    #[track_caller]
    fn check(head: Head, expect: (Option<EngineId>, Option<&str>, Decision)) {
        let verdict = gate().check(&head);
        assert_eq!((verdict.engine, verdict.origin, verdict.decision), expect, "{:?}", head.headers);
    }

    const POST_OPENAI: &str = "POST /openai/v1/responses HTTP/1.1";
    const HOST: &str = "Host: 127.0.0.1:8788";
    const WITH_TOKEN: &str = "X-Geo-Probe-Proxy-Token: tok-0123456789abcdefghijklmnopqrstuvwxyzABCD";

    fn refuse(r: Refusal) -> Decision<'static> {
        Decision::Refuse(r)
    }

    fn probe(engine: EngineId, model: &str, length: usize) -> Decision<'static> {
        Decision::Forward { engine, target: Target::Probe { model: model.to_string() }, length }
    }

    const OPENAI: Option<EngineId> = Some(EngineId::Openai);

    #[test]
    fn each_check_refuses_with_its_status_and_every_allow_is_one_decision() {
        use Refusal::*;
        let len = "Content-Length: 12";
        // 1. Host.
        check(head(POST_OPENAI, &[WITH_TOKEN, len]), (OPENAI, None, refuse(Host)));
        check(head(POST_OPENAI, &["Host: evil.example:8788", WITH_TOKEN]), (OPENAI, None, refuse(Host)));
        check(head(POST_OPENAI, &["Host: 127.0.0.1:9999", WITH_TOKEN]), (OPENAI, None, refuse(Host)));
        check(head(POST_OPENAI, &["Host: 127.0.0.1", WITH_TOKEN]), (OPENAI, None, refuse(Host)));
        check(head(POST_OPENAI, &[HOST, HOST, WITH_TOKEN]), (OPENAI, None, refuse(Host)));
        // A refused host still gets the CORS headers of an allowed origin (the page reads why).
        check(
            head(POST_OPENAI, &["Host: x:8788", "Origin: http://127.0.0.1:8080"]),
            (OPENAI, Some(ORIGIN), refuse(Host)),
        );
        for host in ["Host: localhost:8788", "Host: [::1]:8788", "Host: LOCALHOST:8788"] {
            check(head(POST_OPENAI, &[host, WITH_TOKEN, len]), (OPENAI, None, probe(EngineId::Openai, "", 12)));
        }
        // 2. Origin, and the preflight.
        check(head(POST_OPENAI, &[HOST, WITH_TOKEN, "Origin: https://evil.example"]), (OPENAI, None, refuse(Origin)));
        check(head(POST_OPENAI, &[HOST, WITH_TOKEN, "Origin: null"]), (OPENAI, None, refuse(Origin)));
        let options = "OPTIONS /openai/v1/responses HTTP/1.1";
        check(head(options, &[HOST]), (OPENAI, None, refuse(Origin)));
        check(head(options, &[HOST, "Origin: https://evil.example"]), (OPENAI, None, refuse(Origin)));
        let allowed = "Origin: http://127.0.0.1:8080";
        let preflight = |private_network| Decision::Preflight { origin: ORIGIN, private_network };
        check(head(options, &[HOST, allowed]), (OPENAI, Some(ORIGIN), preflight(false)));
        // A preflight needs no token and no known path.
        check(head("OPTIONS /nowhere HTTP/1.1", &[HOST, allowed]), (None, Some(ORIGIN), preflight(false)));
        let pna = "Access-Control-Request-Private-Network: TRUE";
        check(head(options, &[HOST, allowed, pna]), (OPENAI, Some(ORIGIN), preflight(true)));
        // 3. Token.
        check(head(POST_OPENAI, &[HOST, len]), (OPENAI, None, refuse(Token)));
        check(head(POST_OPENAI, &[HOST, "X-Geo-Probe-Proxy-Token: wrong", len]), (OPENAI, None, refuse(Token)));
        check(head(POST_OPENAI, &[HOST, WITH_TOKEN, WITH_TOKEN, len]), (OPENAI, None, refuse(Token)));
        let one_off = "X-Geo-Probe-Proxy-Token: tok-0123456789abcdefghijklmnopqrstuvwxyzABCE";
        check(head(POST_OPENAI, &[HOST, one_off, len]), (OPENAI, None, refuse(Token)));
        check(
            head(POST_OPENAI, &[HOST, WITH_TOKEN, allowed, len]),
            (OPENAI, Some(ORIGIN), probe(EngineId::Openai, "", 12)),
        );
        // 4. Route: POST on a served engine's own path only.
        check(head("GET /openai/v1/responses HTTP/1.1", &[HOST, WITH_TOKEN]), (OPENAI, None, refuse(Route)));
        check(head("POST /openai/v1/responses/ HTTP/1.1", &[HOST, WITH_TOKEN]), (OPENAI, None, refuse(Route)));
        check(
            head("POST /qwen/api/v1/services/aigc/text-generation/generation HTTP/1.1", &[HOST, WITH_TOKEN]),
            (None, None, refuse(Route)),
        );
        check(head("POST / HTTP/1.1", &[HOST, WITH_TOKEN]), (None, None, refuse(Route)));
        // The query string is not part of the path (and is never forwarded).
        check(
            head("POST /openai/v1/responses?key=x HTTP/1.1", &[HOST, WITH_TOKEN]),
            (OPENAI, None, probe(EngineId::Openai, "", 0)),
        );
        let gemini = "POST /gemini/v1beta/models/gemini-2.5-pro:generateContent HTTP/1.1";
        check(
            head(gemini, &[HOST, WITH_TOKEN, len]),
            (Some(EngineId::Gemini), None, probe(EngineId::Gemini, "gemini-2.5-pro", 12)),
        );
        let chat = "POST /deepseek/chat/completions HTTP/1.1";
        let docs_chat = Decision::Forward { engine: EngineId::Deepseek, target: Target::DocsChat, length: 12 };
        check(head(chat, &[HOST, WITH_TOKEN, len]), (Some(EngineId::Deepseek), None, docs_chat));
        // 5. Length.
        check(head(POST_OPENAI, &[HOST, WITH_TOKEN, "Transfer-Encoding: chunked"]), (OPENAI, None, refuse(Chunked)));
        check(head(POST_OPENAI, &[HOST, WITH_TOKEN, "Content-Length: 1048577"]), (OPENAI, None, refuse(TooLarge)));
        check(
            head(POST_OPENAI, &[HOST, WITH_TOKEN, "Content-Length: 99999999999999999999999"]),
            (OPENAI, None, refuse(BadLength)),
        );
        check(
            head(POST_OPENAI, &[HOST, WITH_TOKEN, "Content-Length: 1048576"]),
            (OPENAI, None, probe(EngineId::Openai, "", 1_048_576)),
        );
        check(
            head(POST_OPENAI, &[HOST, WITH_TOKEN, "Content-Length: 12", "Content-Length: 12"]),
            (OPENAI, None, probe(EngineId::Openai, "", 12)),
        );
        for bad in [
            &["Content-Length: 12", "Content-Length: 13"][..],
            &["Content-Length: -1"],
            &["Content-Length: 1 2"],
            &["Content-Length:"],
        ] {
            let headers: Vec<&str> = [HOST, WITH_TOKEN].into_iter().chain(bad.iter().copied()).collect();
            check(head(POST_OPENAI, &headers), (OPENAI, None, refuse(BadLength)));
        }
        // No Content-Length: an empty body.
        check(head(POST_OPENAI, &[HOST, WITH_TOKEN]), (OPENAI, None, probe(EngineId::Openai, "", 0)));
    }

    #[test]
    fn the_checks_run_in_order() {
        use Refusal::*;
        // Every check fails: the Host decides; then the origin; then the token; then the route.
        let all_bad = ["Origin: https://evil.example", "Transfer-Encoding: chunked", "Content-Length: 9999999"];
        check(head("GET /nowhere HTTP/1.1", &all_bad), (None, None, refuse(Host)));
        let with_host: Vec<&str> = [HOST].into_iter().chain(all_bad).collect();
        check(head("GET /nowhere HTTP/1.1", &with_host), (None, None, refuse(Origin)));
        check(
            head("GET /nowhere HTTP/1.1", &with_host[..1].iter().chain(&all_bad[1..]).copied().collect::<Vec<_>>()),
            (None, None, refuse(Token)),
        );
        check(head("GET /nowhere HTTP/1.1", &[HOST, WITH_TOKEN, all_bad[1], all_bad[2]]), (None, None, refuse(Route)));
        check(head(POST_OPENAI, &[HOST, WITH_TOKEN, all_bad[1], all_bad[2]]), (OPENAI, None, refuse(Chunked)));
        check(head(POST_OPENAI, &[HOST, WITH_TOKEN, all_bad[2]]), (OPENAI, None, refuse(TooLarge)));
    }

    #[test]
    fn refusals_have_their_statuses() {
        use Refusal::*;
        let statuses: Vec<u16> =
            [Host, Origin, Token, Route, Chunked, TooLarge, BadLength].map(Refusal::status).to_vec();
        assert_eq!(statuses, [403, 403, 401, 404, 411, 413, 400]);
        assert!([Host, Origin, Token, Route, Chunked, TooLarge, BadLength]
            .iter()
            .all(|r| r.message().starts_with("geo-probe proxy: ")));
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token(b"abc", b"abc"));
        assert!(!same_token(b"abd", b"abc"));
        assert!(!same_token(b"ab", b"abc"));
        assert!(!same_token(b"", b"abc"));
    }

    #[test]
    fn routes_are_the_engines_own_paths_only() {
        let gate = Gate {
            port: 1,
            token: String::new(),
            origins: Vec::new(),
            engines: vec![EngineId::Deepseek, EngineId::Gemini],
        };
        let probe = |path: &str| match gate.route(path) {
            Some((e, Target::Probe { model })) => Some((e, model)),
            _ => None,
        };
        assert_eq!(probe("/deepseek/anthropic/v1/messages"), Some((EngineId::Deepseek, String::new())));
        assert_eq!(gate.route("/deepseek/chat/completions"), Some((EngineId::Deepseek, Target::DocsChat)));
        assert_eq!(
            probe("/gemini/v1beta/models/gemini-2.5-pro:generateContent"),
            Some((EngineId::Gemini, "gemini-2.5-pro".to_string()))
        );
        for bad in [
            "/gemini/v1beta/models/:generateContent",
            "/gemini/v1beta/models/..%2Fx:generateContent",
            "/gemini/v1beta/models/a/b:generateContent",
            "/gemini/v1beta/models/.x:generateContent",
            "/gemini/chat/completions",
            "/deepseek/v1/messages",
            "/deepseek/anthropic/v1/messages/",
            "/deepseek",
            "/qwen/api/v1/services/aigc/text-generation/generation",
            "/",
        ] {
            assert!(gate.route(bad).is_none(), "{bad}");
        }
    }
}
