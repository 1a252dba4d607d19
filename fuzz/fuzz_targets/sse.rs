//! The SSE parser on any bytes, fed whole and split anywhere.
//!
//! Input layout: `[cap, n, (lo, hi) x (n % 8), body...]`: `cap + 1` is a small event-size cap,
//! the `(lo, hi)` pairs are split points (little-endian u16, modulo the body length + 1).
//!
//! - With the default cap, feeding the body whole, in the chunks given by the split points, and
//!   (for short bodies) one byte at a time never fails and gives the same items and last id.
//! - With the small cap, whole and split feeding may fail (an error, never a panic) and are
//!   compared only when both succeed; every dispatched event then fits the cap.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire::protocol::sse::{SseItem, SseParser, SseTooLarge, DEFAULT_MAX_EVENT_BYTES};

type Fed = Result<(Vec<SseItem>, Option<String>), SseTooLarge>;

fn feed_chunks<'a>(cap: usize, chunks: impl IntoIterator<Item = &'a [u8]>) -> Fed {
    let mut p = SseParser::new(cap);
    let mut items = Vec::new();
    for c in chunks {
        items.extend(p.feed(c)?);
    }
    Ok((items, p.last_event_id().map(str::to_owned)))
}

fn chunks<'a>(body: &'a [u8], splits: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    for &s in splits {
        out.push(&body[at..s]);
        at = s;
    }
    out.push(&body[at..]);
    out
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let cap = usize::from(data[0]) + 1;
    let n = usize::from(data[1] % 8);
    let header = 2 + 2 * n;
    if data.len() < header {
        return;
    }
    let body = &data[header..];
    let mut splits: Vec<usize> =
        data[2..header].chunks(2).map(|p| usize::from(u16::from_le_bytes([p[0], p[1]])) % (body.len() + 1)).collect();
    splits.sort_unstable();
    let parts = chunks(body, &splits);

    // Default cap: the body is far smaller, so nothing may fail, and every split agrees.
    let whole = feed_chunks(DEFAULT_MAX_EVENT_BYTES, [body]).expect("default cap: whole body rejected");
    let split = feed_chunks(DEFAULT_MAX_EVENT_BYTES, parts.iter().copied()).expect("default cap: split body rejected");
    assert_eq!(split, whole, "default cap: split at {splits:?} differs from whole");
    if body.len() <= 2048 {
        let bytewise = feed_chunks(DEFAULT_MAX_EVENT_BYTES, body.chunks(1)).expect("default cap: byte-at-a-time rejected");
        assert_eq!(bytewise, whole, "default cap: one byte at a time differs from whole");
    }

    // Small cap: an error is fine, a panic is not; when both succeed they agree.
    let whole_capped = feed_chunks(cap, [body]);
    let split_capped = feed_chunks(cap, parts.iter().copied());
    for r in [&whole_capped, &split_capped] {
        match r {
            Ok((items, _)) => {
                for item in items {
                    if let SseItem::Event(e) = item {
                        assert!(e.data.len() <= cap, "cap {cap}: dispatched an event of {} data bytes", e.data.len());
                    }
                }
            }
            Err(e) => assert_eq!(e.limit, cap, "the error names another cap"),
        }
    }
    if let (Ok(w), Ok(s)) = (&whole_capped, &split_capped) {
        assert_eq!(s, w, "cap {cap}: split at {splits:?} differs from whole");
    }
    // When the capped parse succeeds, it saw the same stream as the uncapped one.
    if let Ok(w) = &whole_capped {
        assert_eq!(w, &whole, "cap {cap}: a successful capped parse differs from the uncapped one");
    }
});
