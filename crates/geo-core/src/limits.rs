//! Every bound GEO Probe puts on untrusted input, in one place (`docs/security.md` lists
//! them with the reason for each number and the test that holds it).
//!
//! A limit is a refusal with a message that says what was refused and why, never a
//! silent cut of user data, except where noted (messages and displayed text are cut; the
//! data they describe is not).

/// Largest export file read (the CLI reads at most this many bytes, the browser checks the
/// file's size before reading it). An export GEO Probe wrote must always be read back: a
/// year of daily runs is about 85 MB, so the limit is three times that.
pub const MAX_EXPORT_BYTES: usize = 256 * 1024 * 1024;

/// Deepest nesting of arrays and objects in an export (a valid export needs 7).
pub const MAX_EXPORT_DEPTH: usize = 64;

/// Longest string in an export, in characters (an answer is well under 100,000).
pub const MAX_STRING_CHARS: usize = 1_000_000;

/// Most records in one export: projects + prompts + runs + probes.
pub const MAX_RECORDS: usize = 200_000;

/// Most probes one run plans (prompts × repeats), in `start_run` and in the engine, so a
/// crafted `repeats` cannot make `resume` allocate without end.
pub const MAX_PROBES_PER_RUN: u32 = 10_000;

/// Largest docs-chat document the CLI reads (the browser: 5 MiB a file, 20 MiB in all).
pub const MAX_DOC_BYTES: usize = 20 * 1024 * 1024;

/// Longest line the SSE decoder buffers, in bytes; a longer line ends the stream as an error.
pub const MAX_SSE_LINE_BYTES: usize = 1024 * 1024;

/// Largest data of one SSE event, in bytes (several `data:` lines joined).
pub const MAX_SSE_EVENT_BYTES: usize = 1024 * 1024;

/// Longest docs-chat answer (and reasoning) kept, in bytes; the stream ends as an error past it.
pub const MAX_CHAT_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// Characters of one object key or field name kept in a problem's JSON path.
pub const MAX_PATH_SEGMENT_CHARS: usize = 64;

/// Characters of a whole problem path; a deeper path keeps its start and its end.
pub const MAX_PROBLEM_PATH_CHARS: usize = 256;

/// Largest `temperature` a run may send (DeepSeek and OpenAI accept 0–2).
pub const MAX_TEMPERATURE: f64 = 2.0;

/// Most targets (brand + competitors) a run's `aliasSnapshot` may hold, and so a project
/// (checked on import and in `start_run`): every comparison of runs and engines, and each
/// run's metrics, look targets up by id in maps, so work stays linear up to this size.
pub const MAX_SNAPSHOT_TARGETS: usize = 10_000;

/// Most prompts a run's `promptSnapshot` may hold (checked on import; `start_run` cannot
/// exceed it, since a run plans at most [`MAX_PROBES_PER_RUN`] probes).
pub const MAX_SNAPSHOT_PROMPTS: usize = 10_000;

/// Most bytes of an engine's reply a transport reads (the CLI's `ureq` reads no more, the
/// browser stops its stream here); a longer reply is an error, never parsed.
pub const MAX_REPLY_BYTES: usize = 10 * 1024 * 1024;

/// Longest JSON-RPC line `geo-probe mcp` reads; a longer one is skipped (never buffered
/// whole) and answered with an error. Requests of its tools are a few hundred bytes.
pub const MAX_MCP_LINE_BYTES: usize = 1024 * 1024;

/// Longest base URL accepted (`provider::url`), in bytes.
pub const MAX_BASE_URL_BYTES: usize = 2048;

/// Longest API key accepted (`provider::url`), in characters (real keys are 30–200).
pub const MAX_KEY_CHARS: usize = 512;

/// Redirects `geo-probe links` follows from one Answer Link; the next one is an `error`.
pub const MAX_LINK_REDIRECTS: usize = 5;

/// Characters of a `Location` header, a link URL or a link error kept in a `linkChecks`
/// record (what a hostile server sends is cut, never kept whole).
pub const MAX_LINK_URL_CHARS: usize = 2_048;

/// The longest politeness delay between two requests of `geo-probe links` to one host, in
/// milliseconds (also its default).
pub const MAX_LINK_HOST_DELAY_MS: u64 = 1_000;

/// Most requests `geo-probe links` has in flight at once (`--concurrency`).
pub const MAX_LINK_CONCURRENCY: usize = 16;

/// Longest time one request of `geo-probe links` may take, in seconds (`--timeout-secs`).
pub const MAX_LINK_TIMEOUT_SECS: u64 = 120;

/// The time budget of a whole `geo-probe links` check by default, in seconds (`--max-secs`):
/// the links not checked by then are recorded as `error: "not checked: time budget"`
/// (security-3 L5).
pub const DEFAULT_LINK_CHECK_SECS: u64 = 600;

/// The longest time budget `--max-secs` may give a whole `geo-probe links` check, in seconds
/// (a day).
pub const MAX_LINK_CHECK_SECS: u64 = 86_400;

/// Most facts in a fact sheet (a project's `facts`, a run's `factSnapshot`, a `--facts`
/// file): a brand and a dozen competitors with fifteen facts each fit.
pub const MAX_FACTS: usize = 200;

/// Most cues of one fact: a topic in two languages with its synonyms takes a handful.
pub const MAX_FACT_CUES: usize = 20;

/// Most `accepted` values of one fact, and again most `rejected` values: the spellings of
/// one name, a city and its district.
pub const MAX_FACT_VALUES: usize = 20;

/// Most watch terms of a fact sheet.
pub const MAX_WATCH_TERMS: usize = 200;

/// Most cues, accepted and rejected values and watch terms of a fact sheet in all. The
/// claims engine compares every sentence about a target with each of them (a comparison
/// ends at the first differing character, so at most [`MAX_FACT_TEXT_CHARS`] of them), so
/// this bounds its work per character of a hostile answer; the per-list limits alone
/// would allow 12,200.
pub const MAX_FACT_SHEET_TERMS: usize = 2_000;

/// Longest fact id, label, cue, accepted or rejected value and watch term, in characters:
/// each is a word or a name, every claim copies its fact's id and every risk flag its cue,
/// and a cue's length bounds each comparison of [`MAX_FACT_SHEET_TERMS`].
pub const MAX_FACT_TEXT_CHARS: usize = 100;

/// Largest relative `tolerance` of a fact: 1 = within 100 %, a value from 0 to twice the
/// fact's. A larger one would take nearly any number for consistent, and it is most often
/// `10` written for 10 % (which is `0.1`).
pub const MAX_FACT_TOLERANCE: f64 = 1.0;

/// Largest `--facts` file `geo-probe claims` reads: a sheet at every limit above, each
/// string written with `\u` escapes, takes under half of it.
pub const MAX_FACTS_FILE_BYTES: usize = 4 * 1024 * 1024;
