//! Server-Sent Events parsed from raw bytes, as the HTML standard's event-stream interpretation
//! defines it: `\r\n`, `\r` and `\n` line ends (a `\r\n` split across chunks is one line end), a
//! leading BOM, comments (`:`), `data` lines joined with `\n`, `event`, `id` (ignored if it
//! contains NUL) and `retry` (digits only). Chunks may split anywhere, including inside a UTF-8
//! sequence: fields are kept as bytes until an event is dispatched. Events larger than the cap
//! are an error instead of unbounded memory.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// `event:` field (`None` means the default, `message`).
    pub event: Option<String>,
    /// `data:` lines joined with `\n`, as raw bytes (decoded by the consumer, which can then
    /// report invalid UTF-8 as such).
    pub data: Vec<u8>,
    /// The last event id in force when this event was dispatched.
    pub id: Option<String>,
    /// Whether the event's own lines set that id (an event without an `id:` line keeps the one
    /// before it, which then names an earlier event).
    pub own_id: bool,
}

impl SseEvent {
    /// Whether it carries a JSON-RPC message: data, under the default event type (not a
    /// priming event, a keep-alive or another event type). An empty `event:` is the default
    /// type, as in the HTML standard.
    pub fn is_message(&self) -> bool {
        !self.data.is_empty() && matches!(self.event.as_deref(), None | Some("" | "message"))
    }
}

/// What the parser yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    /// A complete event (empty-data events are dispatched too: they carry ids, e.g. priming events).
    Event(SseEvent),
    /// A `retry:` reconnection time in milliseconds.
    Retry(u64),
}

/// An event bigger than the configured cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseTooLarge {
    /// The cap, in bytes.
    pub limit: usize,
}

/// Incremental SSE parser.
#[derive(Debug, Clone)]
pub struct SseParser {
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    event: Option<String>,
    last_id: Option<String>,
    /// An `id:` line came since the last blank line.
    id_set: bool,
    started: bool,
    after_cr: bool,
    max_event_bytes: usize,
}

/// Default cap on one event's size: 16 MiB.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 << 20;

impl Default for SseParser {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_EVENT_BYTES)
    }
}

impl SseParser {
    /// A parser with a cap on event size.
    pub fn new(max_event_bytes: usize) -> Self {
        Self {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            event: None,
            last_id: None,
            id_set: false,
            started: false,
            after_cr: false,
            max_event_bytes,
        }
    }

    /// The bytes it holds of an event not yet complete: the capacity of its buffers, which grow
    /// by doubling as an event's chunks come (a line of 8.06 MiB holds 16 MiB), not only what
    /// they were given.
    pub fn buffered(&self) -> usize {
        self.line.capacity() + self.data.capacity()
    }

    /// The id buffer: the last `id:` line read, even of an event not yet complete (a client
    /// resuming takes the `id` of complete events, [`SseEvent::id`]).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// Feeds bytes; returns what they completed.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Result<Vec<SseItem>, SseTooLarge> {
        let mut out = Vec::new();
        if !self.started {
            // A BOM may be split across chunks too: wait for three bytes (or a mismatch).
            let need = 3usize.saturating_sub(self.line.len());
            let take = need.min(chunk.len());
            self.line.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            let bom = [0xEF, 0xBB, 0xBF];
            if self.line.len() < 3 && bom.starts_with(&self.line) {
                return Ok(out);
            }
            self.started = true;
            let pending = std::mem::take(&mut self.line);
            let rest: &[u8] = if pending.starts_with(&bom) { &pending[3..] } else { &pending };
            let rest = rest.to_vec();
            self.scan(&rest, &mut out)?;
        }
        self.scan(chunk, &mut out)?;
        Ok(out)
    }

    fn scan(&mut self, bytes: &[u8], out: &mut Vec<SseItem>) -> Result<(), SseTooLarge> {
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    start = i + 1;
                    continue;
                }
            }
            if b == b'\n' || b == b'\r' {
                self.line.extend_from_slice(&bytes[start..i]);
                let line = std::mem::take(&mut self.line);
                self.process_line(line, out)?;
                self.after_cr = b == b'\r';
                start = i + 1;
            }
        }
        self.line.extend_from_slice(&bytes[start..]);
        if self.line.len() + self.data.len() > self.max_event_bytes {
            return Err(SseTooLarge { limit: self.max_event_bytes });
        }
        Ok(())
    }

    fn process_line(&mut self, mut line: Vec<u8>, out: &mut Vec<SseItem>) -> Result<(), SseTooLarge> {
        if line.is_empty() {
            // Dispatch.
            if self.has_data || self.event.is_some() {
                out.push(SseItem::Event(SseEvent {
                    event: self.event.take(),
                    data: std::mem::take(&mut self.data),
                    id: self.last_id.clone(),
                    own_id: self.id_set,
                }));
            }
            self.id_set = false;
            self.has_data = false;
            self.event = None;
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(()); // comment
        }
        let (field_end, value_start) = match line.iter().position(|&b| b == b':') {
            Some(p) => (p, if line.get(p + 1) == Some(&b' ') { p + 2 } else { p + 1 }),
            None => (line.len(), line.len()),
        };
        if &line[..field_end] == b"data" {
            if self.has_data {
                self.data.push(b'\n');
                self.data.extend_from_slice(&line[value_start..]);
            } else {
                // The event's first data line (most often its only one) becomes its data, moved
                // rather than copied: a copy would hold the event twice.
                line.drain(..value_start);
                self.data = line;
            }
            self.has_data = true;
            if self.data.len() > self.max_event_bytes {
                return Err(SseTooLarge { limit: self.max_event_bytes });
            }
            return Ok(());
        }
        let (field, value) = (&line[..field_end], &line[value_start..]);
        match field {
            b"event" => self.event = Some(String::from_utf8_lossy(value).into_owned()),
            // An id with NUL is ignored (the spec); so is a retry that is not all digits.
            b"id" if !value.contains(&0) => {
                self.last_id = Some(String::from_utf8_lossy(value).into_owned());
                self.id_set = true;
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                if let Ok(ms) = std::str::from_utf8(value).unwrap_or("").parse::<u64>() {
                    out.push(SseItem::Retry(ms));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(items: &[SseItem]) -> Vec<(Option<String>, String, Option<String>)> {
        items
            .iter()
            .filter_map(|i| match i {
                SseItem::Event(e) => Some((e.event.clone(), String::from_utf8(e.data.clone()).unwrap(), e.id.clone())),
                SseItem::Retry(_) => None,
            })
            .collect()
    }

    /// A CR at the end of a chunk ends its line at once (a LF that may follow is skipped then):
    /// an event is dispatched by the chunk that completes it, not held for the next.
    #[test]
    fn an_event_ending_in_cr_at_a_chunk_end_is_dispatched_by_that_chunk() {
        let mut p = SseParser::default();
        let items = p.feed(b"data: x\r\r").unwrap();
        assert!(matches!(&items[..], [SseItem::Event(e)] if e.data == b"x"), "{items:?}");
        assert!(p.feed(b"\ndata: y\n\n").unwrap().len() == 1, "the LF after the CR is not another empty line");
    }

    /// Messages are the default event type, which an empty `event:` also names; other types
    /// (the old transport's `endpoint`, say) and data-less events are not messages.
    #[test]
    fn messages_are_events_of_the_default_type_with_data() {
        let items = SseParser::default().feed(b"event:\ndata: a\n\nevent: message\ndata: b\n\nevent: endpoint\ndata: /x\n\ndata: c\n\nid: 1\n\n").unwrap();
        let messages: Vec<&[u8]> = items
            .iter()
            .filter_map(|i| match i {
                SseItem::Event(e) if e.is_message() => Some(e.data.as_slice()),
                _ => None,
            })
            .collect();
        assert_eq!(messages, [&b"a"[..], b"b", b"c"]);
    }

    const STREAM: &[u8] = b"\xEF\xBB\xBF: comment\r\nid: 1\r\nretry: 50\r\ndata:\r\n\r\nevent: message\ndata: {\"a\":\ndata: \"\xC3\xA9\xF0\x9F\x98\x80\"}\n\nid: 2\rdata: x\r\r: keepalive\n\n";

    fn whole() -> Vec<SseItem> {
        SseParser::default().feed(STREAM).unwrap()
    }

    #[test]
    fn parses_every_line_ending_bom_comments_and_fields() {
        let items = whole();
        assert!(items.contains(&SseItem::Retry(50)));
        assert_eq!(
            events(&items),
            vec![
                (None, String::new(), Some("1".into())),
                (Some("message".into()), "{\"a\":\n\"é😀\"}".into(), Some("1".into())),
                (None, "x".into(), Some("2".into())),
            ]
        );
    }

    #[test]
    fn any_split_gives_the_same_events() {
        let expected = whole();
        for i in 0..=STREAM.len() {
            for j in i..=STREAM.len() {
                let mut p = SseParser::default();
                let mut got = p.feed(&STREAM[..i]).unwrap();
                got.extend(p.feed(&STREAM[i..j]).unwrap());
                got.extend(p.feed(&STREAM[j..]).unwrap());
                assert_eq!(got, expected, "split at {i},{j}");
            }
        }
        // One byte at a time.
        let mut p = SseParser::default();
        let mut got = Vec::new();
        for b in STREAM {
            got.extend(p.feed(std::slice::from_ref(b)).unwrap());
        }
        assert_eq!(got, expected);
    }

    /// An event's data line is not copied into its data: the event would be held twice, as
    /// the line read and as the data, where the budget counts it once.
    #[test]
    fn a_data_line_becomes_the_events_data_without_a_copy() {
        let mut p = SseParser::default();
        assert!(p.feed(format!("data: {}", "x".repeat(100_000)).as_bytes()).unwrap().is_empty());
        let line = p.line.as_ptr();
        let items = p.feed(b"\n\n").unwrap();
        let [SseItem::Event(e)] = &items[..] else { panic!("{items:?}") };
        assert_eq!(e.data.len(), 100_000);
        assert_eq!(e.data.as_ptr(), line, "the line's buffer, not a copy of it");
    }

    /// What it holds of an unfinished event is its buffers' capacity, which doubling takes past
    /// what they were given: 8 MiB and 64 KiB given in 64 KiB chunks are held in 16 MiB.
    #[test]
    fn what_it_holds_is_its_buffers_capacity() {
        let mut p = SseParser::default();
        let chunk = vec![b'x'; 64 << 10];
        let mut mirror: Vec<u8> = Vec::new();
        assert!(p.feed(b"data: ").unwrap().is_empty());
        mirror.extend_from_slice(b"data: ");
        for _ in 0..129 {
            assert!(p.feed(&chunk).unwrap().is_empty());
            mirror.extend_from_slice(&chunk);
        }
        assert_eq!(p.line.len(), mirror.len());
        assert_eq!(p.buffered(), p.line.capacity() + p.data.capacity());
        assert_eq!(p.buffered(), mirror.capacity(), "grown as any Vec grows");
        assert!(p.buffered() > p.line.len() * 3 / 2, "{} held for {} given", p.buffered(), p.line.len());
    }

    #[test]
    fn oversized_events_are_an_error() {
        let mut p = SseParser::new(16);
        assert!(p.feed(b"data: 0123456789").is_ok());
        assert_eq!(p.feed(b"0123456789\n").unwrap_err(), SseTooLarge { limit: 16 });
        let mut p = SseParser::new(16);
        assert!(p.feed(&[b'x'; 40]).is_err(), "an endless line is capped too");
    }

    #[test]
    fn retry_must_be_digits_and_ids_without_nul() {
        let items = SseParser::default().feed(b"retry: 5s\nid: a\0b\ndata: d\n\n").unwrap();
        assert_eq!(items, vec![SseItem::Event(SseEvent { event: None, data: b"d".to_vec(), id: None, own_id: false })]);
    }

    #[test]
    fn an_event_without_an_id_line_keeps_the_id_but_not_as_its_own() {
        let items = SseParser::default().feed(b"id: a
data: 1

data: 2

id: b

data: 3

").unwrap();
        let ids: Vec<(Option<&str>, bool)> = items
            .iter()
            .map(|i| match i {
                SseItem::Event(e) => (e.id.as_deref(), e.own_id),
                SseItem::Retry(_) => unreachable!(),
            })
            .collect();
        // `id: b` alone dispatches nothing; the event after it carries b, not as its own.
        assert_eq!(ids, [(Some("a"), true), (Some("a"), false), (Some("b"), false)]);
    }
}
