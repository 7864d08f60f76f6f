//! Shared harness of the runner tests: fixtures, a scripted fake transport and a virtual
//! clock that drive an [`Session`] to completion in memory.

#![allow(dead_code)]

use crate::builders::usage;
use std::collections::{BTreeMap, VecDeque};

use geo_core::model::{ErrorKind, Probe, ProbeError, Project, Prompt, Run, RunConfig, Target, TargetKind};
use geo_core::provider::ParsedResponse;
use geo_core::runner::{start_run, Action, AttemptOutcome, Progress, RunOutcome, SendRequest, Session, Slot};

/// Virtual start of every scripted session: 2026-11-29T08:00:00.000Z.
pub const T0: u64 = 1_795_939_200_000;
/// Latency of replies the script does not specify.
pub const DEFAULT_LATENCY: u64 = 100;

/// A target labelled with its first alias, without domains.
pub fn target(id: &str, kind: TargetKind, aliases: &[&str]) -> Target {
    crate::support::target(id, kind, aliases[0], aliases, &[])
}

pub fn project() -> Project {
    Project {
        id: "proj".into(),
        name: "元构场".into(),
        brand: target("brand", TargetKind::Brand, &["元构场", "yuangouchang"]),
        competitors: vec![target("comp", TargetKind::Competitor, &["竞品甲"])],
        is_demo: false,
        created_at: "2026-11-01T00:00:00.000Z".into(),
        updated_at: "2026-11-01T00:00:00.000Z".into(),
        facts: Vec::new(),
        watch_terms: Vec::new(),
    }
}

pub fn prompt(id: &str, project_id: &str, text: &str) -> Prompt {
    Prompt {
        id: id.into(),
        project_id: project_id.into(),
        text: text.into(),
        tags: vec![],
        created_at: "2026-11-01T00:00:00.000Z".into(),
        updated_at: "2026-11-01T00:00:00.000Z".into(),
    }
}

/// p1, p2, p3 of `proj`, and one prompt of another project.
pub fn prompts() -> Vec<Prompt> {
    vec![
        prompt("p1", "proj", "哪家 GEO 服务商最好？"),
        prompt("other", "proj_b", "别的项目的问题"),
        prompt("p2", "proj", "元构场怎么样？"),
        prompt("p3", "proj", "GEO 工具推荐"),
    ]
}

pub fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A fresh run of `proj` over `selected` with `repeats` and `concurrency`.
pub fn new_run(selected: &[&str], repeats: u32, concurrency: u32) -> Run {
    let config = RunConfig { repeats, concurrency, ..RunConfig::default() };
    start_run(&project(), &prompts(), &ids(selected), config, &[], "run1".into(), "2026-11-29T08:00:00.000Z".into())
        .expect("valid run")
}

/// One scripted reply of the fake transport.
#[derive(Debug, Clone)]
pub struct Reply {
    pub outcome: AttemptOutcome,
    pub latency_ms: u64,
}

impl Reply {
    pub fn after(mut self, latency_ms: u64) -> Reply {
        self.latency_ms = latency_ms;
        self
    }
}

pub fn response(answer: &str) -> ParsedResponse {
    ParsedResponse {
        raw_answer: answer.into(),
        usage: usage(10, 20, 0, 1),
        request_id: Some("msg_1".into()),
        stop_reason: Some("end_turn".into()),
        model: "deepseek-v4-flash-0901".into(),
        ..ParsedResponse::default()
    }
}

pub fn ok(answer: &str) -> Reply {
    Reply { outcome: Ok(response(answer)), latency_ms: DEFAULT_LATENCY }
}

pub fn empty() -> Reply {
    ok("让我搜索一下最新的信息。")
}

pub fn err(kind: ErrorKind, http_status: Option<u16>) -> Reply {
    Reply {
        outcome: Err(ProbeError { kind, http_status, message: format!("{kind:?} {http_status:?}") }),
        latency_ms: DEFAULT_LATENCY,
    }
}

/// Replies per probe id, consumed attempt by attempt; an unscripted attempt succeeds.
#[derive(Debug, Clone, Default)]
pub struct Script {
    replies: BTreeMap<String, VecDeque<Reply>>,
    pub default_latency: u64,
}

impl Script {
    pub fn new() -> Script {
        Script { replies: BTreeMap::new(), default_latency: DEFAULT_LATENCY }
    }

    pub fn on(mut self, probe_id: &str, replies: Vec<Reply>) -> Script {
        self.replies.entry(probe_id.into()).or_default().extend(replies);
        self
    }

    fn reply(&mut self, req: &SendRequest) -> Reply {
        self.replies
            .get_mut(&req.probe_id)
            .and_then(VecDeque::pop_front)
            .unwrap_or_else(|| ok(&format!("元构场 is the answer to {}", req.prompt_text)).after(self.default_latency))
    }
}

/// Everything the engine asked for, with the virtual time of each request.
#[derive(Debug, Default)]
pub struct Trace {
    pub sends: Vec<(u64, SendRequest)>,
    /// (time the back-off was decided, slot, probe id, until_ms)
    pub sleeps: Vec<(u64, Slot, String, u64)>,
    pub writes: Vec<(u64, Probe)>,
    pub progress: Vec<Progress>,
    pub finished: Option<(u64, RunOutcome)>,
    pub max_in_flight: usize,
    /// Actions returned after `Finished` (must stay empty).
    pub after_finish: Vec<Action>,
    /// Responses delivered after the engine finished (all dropped).
    pub late_responses: usize,
}

impl Trace {
    pub fn written_ids(&self) -> Vec<String> {
        self.writes.iter().map(|(_, p)| p.id.clone()).collect()
    }

    pub fn first_attempt_ids(&self) -> Vec<String> {
        self.sends.iter().filter(|(_, s)| s.attempt == 1).map(|(_, s)| s.probe_id.clone()).collect()
    }

    pub fn probe(&self, id: &str) -> &Probe {
        &self.writes.iter().find(|(_, p)| p.id == id).unwrap_or_else(|| panic!("{id} not written")).1
    }

    pub fn outcome(&self) -> &RunOutcome {
        &self.finished.as_ref().expect("finished").1
    }
}

/// How to drive a session.
pub struct Drive {
    pub script: Script,
    /// Cycled through for every `random` argument.
    pub randoms: Vec<u32>,
    /// Cancel at this virtual time (after responses due at the same time).
    pub cancel_at: Option<u64>,
}

impl Drive {
    pub fn new(script: Script) -> Drive {
        Drive { script, randoms: vec![0], cancel_at: None }
    }
}

/// Test-only helper: runs `engine` against the fake transport on a virtual clock starting
/// at [`T0`] until it finishes, then delivers every response still in flight.
pub fn drive_to_completion(engine: &mut Session, mut drive: Drive) -> Trace {
    let mut trace = Trace::default();
    let mut now = T0;
    let mut pending: Vec<(u64, Slot, AttemptOutcome)> = Vec::new();
    let mut random_index = 0usize;
    let mut cancelled = false;
    for _ in 0..100_000 {
        while let Some(action) = engine.poll(now) {
            match action {
                Action::Send(req) => {
                    assert!(
                        !pending.iter().any(|(_, s, _)| *s == req.slot),
                        "slot {:?} sent twice without a response",
                        req.slot
                    );
                    let reply = drive.script.reply(&req);
                    pending.push((now + reply.latency_ms, req.slot, reply.outcome));
                    trace.max_in_flight = trace.max_in_flight.max(pending.len());
                    trace.sends.push((now, req));
                }
                Action::Sleep { slot, probe_id, until_ms } => trace.sleeps.push((now, slot, probe_id, until_ms)),
                Action::Write(probe) => {
                    assert!(!trace.writes.iter().any(|(_, p)| p.id == probe.id), "{} written twice", probe.id);
                    trace.writes.push((now, *probe));
                }
                Action::Progress(p) => trace.progress.push(p),
                Action::Finished(outcome) => {
                    assert!(trace.finished.is_none(), "finished twice");
                    trace.finished = Some((now, outcome));
                }
            }
        }
        if trace.finished.is_some() {
            // In-flight requests may still answer: they must be dropped without effect.
            pending.sort_by_key(|(t, s, _)| (*t, *s));
            for (t, slot, outcome) in pending.drain(..) {
                engine.on_response(slot, t.max(now), outcome, 0).expect("late response is accepted");
                trace.late_responses += 1;
                trace.after_finish.extend(std::iter::from_fn(|| engine.poll(t.max(now))));
            }
            return trace;
        }
        let next_response = pending.iter().map(|(t, _, _)| *t).min();
        let next_cancel = drive.cancel_at.filter(|_| !cancelled);
        let next = [next_response, engine.next_wakeup(), next_cancel].into_iter().flatten().min();
        let Some(next) = next else { panic!("engine stalled at {now} with nothing pending") };
        assert!(next >= now, "time went backwards");
        now = next;
        match (next_cancel, next_response) {
            (Some(c), r) if c <= now && r.is_none_or(|r| r > c) => {
                engine.cancel();
                cancelled = true;
            }
            (_, Some(r)) if r <= now => {
                let i = pending
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, (t, s, _))| (*t, *s))
                    .map(|(i, _)| i)
                    .expect("a pending response");
                let (_, slot, outcome) = pending.remove(i);
                let random = drive.randoms[random_index % drive.randoms.len()];
                random_index += 1;
                engine.on_response(slot, now, outcome, random).expect("response for a sent slot");
            }
            _ => {} // a back-off ended: the next poll resends
        }
    }
    panic!("session did not finish within 100000 steps");
}
