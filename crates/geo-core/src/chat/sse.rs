//! A byte-level Server-Sent Events decoder that accepts the stream in arbitrary pieces.
//!
//! The network hands over bytes in whatever pieces it likes: a JSON chunk may arrive in two
//! halves and a Chinese character may be split between two reads. The decoder therefore
//! buffers an incomplete UTF-8 sequence and an unfinished line until the rest arrives, so
//! every way of splitting the same bytes yields the same events.
//!
//! Rules (WHATWG HTML, "Interpreting an event stream"):
//! - UTF-8, with invalid sequences replaced by U+FFFD (never an error, never a panic); a
//!   leading byte-order mark is dropped.
//! - Lines end in LF, CRLF or CR. A CR that ends one piece and an LF that starts the next
//!   are one line end.
//! - A line starting with `:` is a comment. DeepSeek sends `: keep-alive` while the request
//!   waits; comments are surfaced as [`SseEvent::Comment`] so a shell can show that the
//!   connection is alive, and [`super::stream::ChatStream`] ignores them.
//! - `field: value` (one space after the colon removed); `data` lines are joined with `\n`;
//!   `event` names the event; `id` and `retry` and unknown fields are ignored.
//! - A blank line dispatches the event if it has at least one `data` line. Data exactly
//!   `[DONE]` (OpenAI/DeepSeek's end marker) becomes [`SseEvent::Done`].
//! - Bounds (security review, finding 9): a line longer than
//!   [`crate::limits::MAX_SSE_LINE_BYTES`] or an event whose data grows past
//!   [`crate::limits::MAX_SSE_EVENT_BYTES`] ends the stream with [`SseEvent::TooLong`]; the
//!   decoder then ignores the rest, so one endless `data:` line costs at most the limit.
//! - At the end of the stream ([`SseDecoder::finish`]) a pending event whose blank line
//!   never came is still dispatched. The SSE spec would discard it; we keep it because a
//!   proxy that drops the final blank line would otherwise lose `[DONE]` and turn a
//!   complete answer into a network error.

/// One decoded event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseEvent {
    /// A `data` event: its `event:` name, if any, and its data lines joined with `\n`.
    Message {
        /// The `event:` field, `None` when absent (the default type, `message`).
        event: Option<String>,
        /// The data.
        data: String,
    },
    /// `data: [DONE]`, the end-of-answer marker.
    Done,
    /// A comment line without its leading `:` (e.g. ` keep-alive`).
    Comment(String),
    /// A line or an event's data went past its limit (in bytes): the stream is broken and
    /// nothing after it is decoded.
    TooLong {
        /// The limit that was passed.
        limit: usize,
    },
}

/// Incremental SSE decoder (see the module docs).
#[derive(Debug, Default, Clone)]
pub struct SseDecoder {
    /// Bytes of a UTF-8 sequence that is not complete yet (at most 3).
    pending: Vec<u8>,
    /// The current line, without its line end.
    line: String,
    /// The previous piece ended in CR, so an LF at the start of this one is skipped.
    after_cr: bool,
    /// Whether the start of the stream (and its possible BOM) has been seen.
    started: bool,
    /// Data of the event being built.
    data: String,
    /// Whether the event being built has at least one `data` line.
    has_data: bool,
    /// `event:` of the event being built.
    event: Option<String>,
    /// A limit was passed: [`SseEvent::TooLong`] was sent and the rest is ignored.
    broken: bool,
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next bytes of the stream; returns the events they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if self.broken {
            return events;
        }
        if self.pending.is_empty() {
            self.decode(bytes, &mut events);
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(bytes);
            self.decode(&joined, &mut events);
        }
        events
    }

    /// Ends the stream: an incomplete UTF-8 sequence becomes U+FFFD, an unterminated line
    /// is processed, and a pending event is dispatched.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if self.broken {
            return events;
        }
        if !self.pending.is_empty() {
            self.pending.clear();
            self.text("\u{fffd}", &mut events);
        }
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, &mut events);
        }
        self.dispatch(&mut events);
        self.after_cr = false;
        events
    }

    /// Decodes `bytes` as UTF-8, keeping an incomplete trailing sequence for later.
    fn decode(&mut self, mut bytes: &[u8], events: &mut Vec<SseEvent>) {
        loop {
            match std::str::from_utf8(bytes) {
                Ok(s) => {
                    self.text(s, events);
                    return;
                }
                Err(e) => {
                    let (valid, rest) = bytes.split_at(e.valid_up_to());
                    // The prefix was just validated, so this cannot fail.
                    self.text(std::str::from_utf8(valid).unwrap_or_default(), events);
                    match e.error_len() {
                        Some(n) => {
                            self.text("\u{fffd}", events);
                            bytes = &rest[n..];
                        }
                        None => {
                            self.pending.extend_from_slice(rest);
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Marks the stream broken by `limit`.
    fn overflow(&mut self, limit: usize, events: &mut Vec<SseEvent>) {
        self.broken = true;
        self.line = String::new();
        self.data = String::new();
        self.pending.clear();
        events.push(SseEvent::TooLong { limit });
    }

    /// Splits decoded text into lines.
    fn text(&mut self, mut s: &str, events: &mut Vec<SseEvent>) {
        if s.is_empty() || self.broken {
            return;
        }
        if !self.started {
            self.started = true;
            s = s.strip_prefix('\u{feff}').unwrap_or(s);
        }
        if self.after_cr {
            self.after_cr = false;
            s = s.strip_prefix('\n').unwrap_or(s);
        }
        while let Some(pos) = s.find(['\r', '\n']) {
            let ending_cr = s.as_bytes()[pos] == b'\r';
            let line_part = &s[..pos];
            let mut rest = &s[pos + 1..];
            if ending_cr {
                if rest.is_empty() {
                    self.after_cr = true;
                } else {
                    rest = rest.strip_prefix('\n').unwrap_or(rest);
                }
            }
            if self.line.len() + line_part.len() > crate::limits::MAX_SSE_LINE_BYTES {
                return self.overflow(crate::limits::MAX_SSE_LINE_BYTES, events);
            }
            if self.line.is_empty() {
                self.process_line(line_part, events);
            } else {
                self.line.push_str(line_part);
                let line = std::mem::take(&mut self.line);
                self.process_line(&line, events);
            }
            if self.broken {
                return;
            }
            s = rest;
        }
        if self.line.len() + s.len() > crate::limits::MAX_SSE_LINE_BYTES {
            return self.overflow(crate::limits::MAX_SSE_LINE_BYTES, events);
        }
        self.line.push_str(s);
    }

    fn process_line(&mut self, line: &str, events: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        if let Some(comment) = line.strip_prefix(':') {
            events.push(SseEvent::Comment(comment.to_string()));
            return;
        }
        let (field, value) = match line.find(':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.data.len() + value.len() + 1 > crate::limits::MAX_SSE_EVENT_BYTES {
                    return self.overflow(crate::limits::MAX_SSE_EVENT_BYTES, events);
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_string()),
            _ => {}
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if !self.has_data {
            return;
        }
        self.has_data = false;
        let data = std::mem::take(&mut self.data);
        if data == "[DONE]" {
            events.push(SseEvent::Done);
        } else {
            events.push(SseEvent::Message { event, data });
        }
    }
}

/// Decodes a whole byte stream at once (`push` of everything, then `finish`).
pub fn decode_all(bytes: &[u8]) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::new();
    let mut events = decoder.push(bytes);
    events.extend(decoder.finish());
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(data: &str) -> SseEvent {
        SseEvent::Message { event: None, data: data.to_string() }
    }

    /// Whole stream → expected events, also checked byte by byte.
    #[track_caller]
    fn check(input: &[u8], expect: &[SseEvent]) {
        assert_eq!(decode_all(input), expect, "whole {:?}", String::from_utf8_lossy(input));
        let mut d = SseDecoder::new();
        let mut events = Vec::new();
        for b in input {
            events.extend(d.push(std::slice::from_ref(b)));
        }
        events.extend(d.finish());
        assert_eq!(events, expect, "byte by byte {:?}", String::from_utf8_lossy(input));
    }

    #[test]
    fn sse_rules() {
        check(b"", &[]);
        check(b"data: a\n\n", &[msg("a")]);
        check(b"data:a\n\n", &[msg("a")]);
        check(b"data:  a\n\n", &[msg(" a")]);
        check(b"data: a\r\n\r\n", &[msg("a")]);
        check(b"data: a\r\rdata: b\r\n\r\n", &[msg("a"), msg("b")]);
        check(b"data: a\ndata: b\n\n", &[msg("a\nb")]);
        check(b"data\n\n", &[msg("")]);
        check(b"data: \n\n", &[msg("")]);
        check(b"\n\n\n", &[]);
        check(b"event: ping\n\n", &[]);
        check(
            b"event: update\ndata: x\n\ndata: y\n\n",
            &[SseEvent::Message { event: Some("update".into()), data: "x".into() }, msg("y")],
        );
        check(b"id: 7\nretry: 10\nfoo: bar\ndata: z\n\n", &[msg("z")]);
        check(
            b": keep-alive\n\ndata: {\"a\":1}\n\ndata: [DONE]\n\n",
            &[SseEvent::Comment(" keep-alive".into()), msg("{\"a\":1}"), SseEvent::Done],
        );
        check(b"data: [DONE] \n\n", &[msg("[DONE] ")]);
        check("\u{feff}data: bom\n\n".as_bytes(), &[msg("bom")]);
        check("data: \u{feff}x\n\n".as_bytes(), &[msg("\u{feff}x")]);
    }

    #[test]
    fn unterminated_last_event_is_dispatched_at_finish() {
        check(b"data: [DONE]", &[SseEvent::Done]);
        check(b"data: a\n", &[msg("a")]);
        check(b": only a comment", &[SseEvent::Comment(" only a comment".into())]);
    }

    #[test]
    fn utf8_split_across_pieces_is_rejoined() {
        let bytes = "data: 上下文😀\n\n".as_bytes();
        for cut in 0..=bytes.len() {
            let mut d = SseDecoder::new();
            let mut events = d.push(&bytes[..cut]);
            events.extend(d.push(&bytes[cut..]));
            events.extend(d.finish());
            assert_eq!(events, [msg("上下文😀")], "cut at {cut}");
        }
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        check(b"data: a\xffb\n\n", &[msg("a\u{fffd}b")]);
        check(b"data: \xe4\xb8\n\n", &[msg("\u{fffd}")]);
        check(b"data: x\xe4\xb8", &[msg("x\u{fffd}")]);
        check(b"data: \xc0\xaf\n\n", &[msg("\u{fffd}\u{fffd}")]);
    }

    /// Finding 9: one endless `data:` line (it was buffered to 2 GB) or an event of many
    /// lines stops at its limit with `TooLong`, whatever the pieces, and nothing follows.
    #[test]
    fn endless_lines_and_events_stop_at_their_limit() {
        use crate::limits::{MAX_SSE_EVENT_BYTES, MAX_SSE_LINE_BYTES};
        let mut d = SseDecoder::new();
        let mut events = d.push(
            b"data: a

data: ",
        );
        let piece = vec![b'x'; 64 * 1024];
        for _ in 0..(MAX_SSE_LINE_BYTES / piece.len() + 2) {
            events.extend(d.push(&piece));
            assert!(d.line.len() <= MAX_SSE_LINE_BYTES);
        }
        events.extend(d.push(
            b"

data: later

",
        ));
        events.extend(d.finish());
        assert_eq!(events, [msg("a"), SseEvent::TooLong { limit: MAX_SSE_LINE_BYTES }]);

        let line = format!(
            "data: {}
",
            "y".repeat(1000)
        );
        let many = line.repeat(MAX_SSE_EVENT_BYTES / 1000 + 1);
        let events = decode_all(many.as_bytes());
        assert_eq!(events, [SseEvent::TooLong { limit: MAX_SSE_EVENT_BYTES }]);
        // Just under the limits is fine.
        let ok = format!(
            "data: {}

",
            "z".repeat(MAX_SSE_LINE_BYTES - 7)
        );
        assert!(matches!(&decode_all(ok.as_bytes())[..], [SseEvent::Message { .. }]));
    }

    #[test]
    fn cr_at_the_end_of_a_piece_then_lf_is_one_line_end() {
        let mut d = SseDecoder::new();
        let mut events = d.push(b"data: a\r");
        events.extend(d.push(b"\ndata: b\r"));
        events.extend(d.push(b"\n\r"));
        events.extend(d.push(b"\n"));
        events.extend(d.finish());
        assert_eq!(events, [msg("a\nb")]);
    }
}
