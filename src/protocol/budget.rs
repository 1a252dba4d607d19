//! The bytes of responses that every client of the module holds at once while reading them.
//!
//! Each response is bounded on its own (`max_body_bytes`, `max_event_bytes`), but many read at
//! once were not: 128 calls answering 60 MB each took a wasm32 module past its 4 GiB, where an
//! allocation that fails aborts, which in wasm is a trap that leaves every client of the module
//! broken. A read holds its bytes through a [`Held`]; one that would take all of them past
//! [`MAX_HELD_BYTES`] is `LIMIT_EXCEEDED` instead, and the module keeps working.
//!
//! The budget is shared, and a server may hold its reads open without end (an SSE event left
//! unfinished): so the reads of one server (the origin of its URL, however many clients speak to
//! it) hold at most [`MAX_SERVER_HELD_BYTES`], half of the budget. One server that takes all it
//! may cannot make another server's responses fail: at least as much is left for the others.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// What all responses being read at once may hold: 256 MiB (four of the largest response a
/// client takes by default).
pub const MAX_HELD_BYTES: usize = 256 << 20;

/// What the responses of one server (an origin) being read at once may hold: 128 MiB, half of
/// [`MAX_HELD_BYTES`] (two of the largest response a client takes by default).
pub const MAX_SERVER_HELD_BYTES: usize = MAX_HELD_BYTES / 2;

thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
    /// What each server's reads hold, and how many reads hold something, by server.
    static SERVERS: RefCell<BTreeMap<Rc<str>, (usize, usize)>> = const { RefCell::new(BTreeMap::new()) };
    /// Why the last read refused was refused.
    static REFUSAL: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The server a URL reaches, for the budget: its origin (`scheme://host:port`, lower-cased), or
/// the URL itself when it has none (a page-relative URL: the page's server).
pub fn server_of(url: &str) -> Rc<str> {
    let Some(scheme_end) = url.find("://") else { return Rc::from(url) };
    let rest = &url[scheme_end + 3..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    // Credentials are no part of the server, nor anything to repeat in an error.
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    Rc::from(format!("{}://{}", &url[..scheme_end], host).to_ascii_lowercase())
}

/// The bytes one read holds, given back when it is dropped.
#[derive(Debug, Default)]
pub struct Held {
    n: usize,
    /// The server read from (`None`: counted in the total only).
    server: Option<Rc<str>>,
}

fn mib(n: usize) -> String {
    format!("{:.1} MiB", n as f64 / (1 << 20) as f64)
}

impl Held {
    /// Nothing held yet, for a read of this server ([`server_of`]).
    pub fn of(server: Rc<str>) -> Self {
        Self { n: 0, server: Some(server) }
    }

    /// Holds `n` bytes now, in place of what it held. `false` (and nothing changed) when that
    /// would take every read's together past [`MAX_HELD_BYTES`], or its server's past
    /// [`MAX_SERVER_HELD_BYTES`] ([`refusal`] says which, and who holds the most); holding less
    /// never fails.
    pub fn set(&mut self, n: usize) -> bool {
        if n == self.n {
            return true;
        }
        let grows = n > self.n;
        let total = HELD.with(Cell::get) - self.n;
        if let Some(server) = &self.server {
            let (ours, _) = SERVERS.with(|s| s.borrow().get(server).copied().unwrap_or_default());
            let others = ours - self.n;
            if grows && others.saturating_add(n) > MAX_SERVER_HELD_BYTES {
                refuse(format!(
                    "the responses of {server} being read at once would hold more than {} MiB, a server's share of the {} MiB all clients may hold ({} held already)",
                    MAX_SERVER_HELD_BYTES >> 20,
                    MAX_HELD_BYTES >> 20,
                    mib(others)
                ));
                return false;
            }
        }
        if grows && total.saturating_add(n) > MAX_HELD_BYTES {
            refuse(format!("the responses being read at once would hold more than {} MiB ({})", MAX_HELD_BYTES >> 20, holders()));
            return false;
        }
        HELD.with(|held| held.set(total + n));
        if let Some(server) = &self.server {
            SERVERS.with(|s| {
                let mut s = s.borrow_mut();
                let entry = s.entry(server.clone()).or_default();
                entry.0 = entry.0 - self.n + n;
                entry.1 = entry.1 - usize::from(self.n > 0) + usize::from(n > 0);
                if entry.1 == 0 {
                    s.remove(server);
                }
            });
        }
        self.n = n;
        true
    }

    /// What every read holds now.
    pub fn total() -> usize {
        HELD.with(Cell::get)
    }
}

fn refuse(why: String) {
    REFUSAL.with(|r| *r.borrow_mut() = why);
}

/// Why the last read refused ([`Held::set`] returned `false`) was refused: past its server's
/// share, or past the budget, naming the servers that hold the most.
pub fn refusal() -> String {
    REFUSAL.with(|r| r.borrow().clone())
}

/// The servers whose reads hold the most, at most three: `http://a:1 holds 120.0 MiB in 8
/// responses, ...`.
fn holders() -> String {
    SERVERS.with(|s| {
        let s = s.borrow();
        let mut all: Vec<_> = s.iter().collect();
        all.sort_by_key(|(_, (n, _))| std::cmp::Reverse(*n));
        let named: Vec<String> = all.iter().take(3).map(|(k, (n, reads))| format!("{k} holds {} in {reads} response{}", mib(*n), if *reads == 1 { "" } else { "s" })).collect();
        if named.is_empty() { "held by reads of no client".to_owned() } else { named.join(", ") }
    })
}

impl Drop for Held {
    fn drop(&mut self) {
        self.set(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_together_stay_within_the_budget_and_give_back_what_they_held() {
        let start = Held::total();
        let mut a = Held::default();
        let mut b = Held::default();
        assert!(a.set(MAX_HELD_BYTES / 2));
        assert!(b.set(MAX_HELD_BYTES / 2 - start));
        assert!(!a.set(MAX_HELD_BYTES / 2 + 1), "past the budget together");
        assert!(a.set(10), "holding less never fails");
        assert_eq!(Held::total(), start + 10 + MAX_HELD_BYTES / 2 - start);
        drop(b);
        assert!(a.set(MAX_HELD_BYTES - start));
        drop(a);
        assert_eq!(Held::total(), start);
    }

    /// One server's reads, however many, hold at most its share: another server's read still
    /// fits beside them, and the refusal names who holds what.
    #[test]
    fn one_server_holds_at_most_its_share() {
        let bad = server_of("http://Bad.example:8000/mcp?x=1");
        assert_eq!(&*bad, "http://bad.example:8000");
        assert_eq!(&*server_of("https://user:pw@h.example/mcp"), "https://h.example");
        let mut stalled: Vec<Held> = Vec::new();
        let mut refused = 0;
        for _ in 0..18 {
            let mut h = Held::of(bad.clone());
            if h.set(15 << 20) {
                stalled.push(h);
            } else {
                refused += 1;
            }
        }
        assert_eq!((stalled.len(), refused), (8, 10), "8 x 15 MiB fit in 128 MiB, the others are refused");
        assert!(refusal().contains("the responses of http://bad.example:8000 being read at once would hold more than 128 MiB"), "{}", refusal());
        let mut good = Held::of(server_of("http://good.example/mcp"));
        assert!(good.set(100 << 20), "another server's read fits");
        let mut third = Held::of(server_of("http://third.example/mcp"));
        assert!(!third.set(40 << 20), "past the budget");
        assert!(refusal().contains("would hold more than 256 MiB (http://bad.example:8000 holds 120.0 MiB in 8 responses, http://good.example holds 100.0 MiB in 1 response)"), "{}", refusal());
        drop(stalled);
        assert!(third.set(40 << 20));
        drop((good, third));
        SERVERS.with(|s| assert!(s.borrow().is_empty(), "every server's count given back"));
    }
}
