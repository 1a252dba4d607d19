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
use std::fmt;
use std::rc::Rc;

use crate::model::Borrowed as _;

/// What all responses being read at once may hold: 256 MiB (four of the largest response a
/// client takes by default).
pub const MAX_HELD_BYTES: usize = 256 << 20;

/// What the responses of one server (an origin) being read at once may hold: 128 MiB, half of
/// [`MAX_HELD_BYTES`] (two of the largest response a client takes by default).
pub const MAX_SERVER_HELD_BYTES: usize = MAX_HELD_BYTES / 2;

thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
    /// What each server's reads hold, and how many reads hold something, by server, kept
    /// sorted by server (a `BTreeMap`'s order, without its code: a few KB of wasm per map).
    static SERVERS: RefCell<Servers> = const { RefCell::new(Vec::new()) };
}

/// [`SERVERS`]: `(server, (bytes held, reads holding something))`, sorted by server.
type Servers = Vec<(Rc<str>, (usize, usize))>;

/// The server a URL reaches, for the budget: its origin (`scheme://host:port`, lower-cased), or
/// the URL itself when it has none (a page-relative URL the host could not resolve: the client
/// resolves one first, [`crate::protocol::transport::Transport::resolve_url`], so that every
/// client of the page's origin shares its share).
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

/// `n` bytes in MiB to one decimal, as `format!("{:.1} MiB", n as f64 / (1 << 20) as f64)` writes
/// it (ties to even, the quotient being exact), in integers: Rust's float formatting is not
/// otherwise in the module.
fn mib(n: usize) -> String {
    let n = n as u64;
    let (whole, part) = (n >> 20, (n & 0xF_FFFF) * 10);
    let (mut tenths, rest) = (whole * 10 + (part >> 20), part & 0xF_FFFF);
    if rest > 0x8_0000 || (rest == 0x8_0000 && tenths % 2 == 1) {
        tenths += 1;
    }
    format!("{}.{} MiB", tenths / 10, tenths % 10)
}

impl Held {
    /// Nothing held yet, for a read of this server ([`server_of`]).
    pub fn of(server: Rc<str>) -> Self {
        Self { n: 0, server: Some(server) }
    }

    /// Holds `n` bytes now, in place of what it held. Refused (and nothing changed) when that
    /// would take its server's reads past [`MAX_SERVER_HELD_BYTES`], or every read's together
    /// past [`MAX_HELD_BYTES`]: the [`Refusal`] says which, and who holds the most. Holding less
    /// never fails.
    pub fn set(&mut self, n: usize) -> Result<(), Refusal> {
        if n == self.n {
            return Ok(());
        }
        let grows = n > self.n;
        let total = HELD.with(Cell::get) - self.n;
        if let Some(server) = &self.server {
            let (ours, _) = SERVERS.with(|s| {
                let s = s.borrowed();
                find(&s, server).ok().map(|i| s[i].1).unwrap_or_default()
            });
            let others = ours - self.n;
            if grows && others.saturating_add(n) > MAX_SERVER_HELD_BYTES {
                return Err(Refusal::Share { server: server.clone(), held: others });
            }
        }
        if grows && total.saturating_add(n) > MAX_HELD_BYTES {
            return Err(Refusal::Budget { holders: holders() });
        }
        HELD.with(|held| held.set(total + n));
        if let Some(server) = &self.server {
            SERVERS.with(|s| {
                let mut s = s.borrowed_mut();
                let i = find(&s, server).unwrap_or_else(|i| {
                    s.insert(i, (server.clone(), (0, 0)));
                    i
                });
                let entry = &mut s[i].1;
                entry.0 = entry.0 - self.n + n;
                entry.1 = entry.1 - usize::from(self.n > 0) + usize::from(n > 0);
                if entry.1 == 0 {
                    s.remove(i);
                }
            });
        }
        self.n = n;
        Ok(())
    }

    /// Holds at least `n` bytes (what it holds, when that is more), refused as [`Held::set`] is:
    /// after a step that may have grown what the read holds (a buffer grown by doubling).
    pub fn at_least(&mut self, n: usize) -> Result<(), Refusal> {
        self.set(self.n.max(n))
    }

    /// What this read holds.
    pub fn get(&self) -> usize {
        self.n
    }

    /// What every read holds now.
    pub fn total() -> usize {
        HELD.with(Cell::get)
    }
}

/// A body read whole (up to a bound the reader keeps: an error body, a refused request's), counted
/// as it comes: its chunks are kept as they came and joined once at the end, counted twice while
/// they are joined. A `Vec` grown by appending each chunk would hold up to twice the body (its
/// capacity doubles) while only its length was counted.
#[derive(Debug)]
pub struct Collected {
    chunks: Vec<Vec<u8>>,
    held: Held,
}

impl Collected {
    /// Nothing read yet, of this server ([`server_of`]).
    pub fn of(server: Rc<str>) -> Self {
        Self { chunks: Vec::new(), held: Held::of(server) }
    }

    /// The bytes read so far.
    pub fn len(&self) -> usize {
        self.held.get()
    }

    /// Whether nothing was read.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps one more chunk, refused (and the chunk dropped) past the budget or the server's share.
    pub fn push(&mut self, chunk: Vec<u8>) -> Result<(), Refusal> {
        self.held.set(self.held.get().saturating_add(chunk.len()))?;
        self.chunks.push(chunk);
        Ok(())
    }

    /// The body, and what holds it in the budget: the one chunk as it came, or the chunks joined
    /// into a buffer of exactly their length (refused when the budget has no room for the body
    /// twice, the chunks being held until they are joined).
    pub fn join(mut self) -> Result<(Vec<u8>, Held), Refusal> {
        let total = self.held.get();
        let bytes = match self.chunks.len() {
            0 => Vec::new(),
            1 => self.chunks.pop().unwrap_or_default(),
            _ => {
                self.held.set(total.saturating_mul(2))?;
                let mut bytes = Vec::with_capacity(total);
                for c in self.chunks.drain(..) {
                    bytes.extend_from_slice(&c);
                }
                // Holding less never fails.
                let _ = self.held.set(total);
                bytes
            }
        };
        Ok((bytes, std::mem::take(&mut self.held)))
    }
}

/// Why [`Held::set`] refused to hold more, with the figures it went by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Past the server's share ([`MAX_SERVER_HELD_BYTES`]): the server, and what its other reads
    /// hold already.
    Share {
        /// The server ([`server_of`]).
        server: Rc<str>,
        /// What its other reads hold.
        held: usize,
    },
    /// Past the budget ([`MAX_HELD_BYTES`]): the servers whose reads hold the most (at most
    /// three), each with what its reads hold and how many reads hold something.
    Budget {
        /// `(server, bytes held, reads holding something)`, the most held first.
        holders: Vec<(Rc<str>, usize, usize)>,
    },
}

impl fmt::Display for Refusal {
    /// `the responses of http://a:1 being read at once would hold more than 128 MiB, ...`, or
    /// `the responses being read at once would hold more than 256 MiB (http://a:1 holds 120.0 MiB
    /// in 8 responses, ...)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Share { server, held } => write!(
                f,
                "the responses of {server} being read at once would hold more than {} MiB, a server's share of the {} MiB all clients may hold ({} held already)",
                MAX_SERVER_HELD_BYTES >> 20,
                MAX_HELD_BYTES >> 20,
                mib(*held)
            ),
            Self::Budget { holders } => {
                write!(f, "the responses being read at once would hold more than {} MiB (", MAX_HELD_BYTES >> 20)?;
                if holders.is_empty() {
                    f.write_str("held by reads of no client")?;
                }
                for (i, (k, n, reads)) in holders.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{k} holds {} in {reads} response{}", mib(*n), if *reads == 1 { "" } else { "s" })?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Where `server` is in [`SERVERS`], or where it would go.
fn find(servers: &Servers, server: &str) -> Result<usize, usize> {
    servers.binary_search_by(|(k, _)| (**k).cmp(server))
}

/// The servers whose reads hold the most, at most three, with what they hold and in how many
/// reads.
fn holders() -> Vec<(Rc<str>, usize, usize)> {
    SERVERS.with(|s| {
        let s = s.borrowed();
        // The most held first, as much held in server order (a stable sort), with the crate's
        // one `(usize, usize)` sort.
        let mut order: Vec<(usize, usize)> = s.iter().enumerate().map(|(i, (_, (n, _)))| (usize::MAX - n, i)).collect();
        crate::model::sort_pairs(&mut order);
        order.iter().take(3).map(|&(_, i)| {
            let (k, (n, reads)) = &s[i];
            (k.clone(), *n, *reads)
        }).collect()
    })
}

impl Drop for Held {
    fn drop(&mut self) {
        // Holding less never fails.
        let _ = self.set(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mib` writes what `{:.1}` of the quotient writes, ties (a twentieth of a MiB, odd and
    /// even tenths) and carries into the whole MiB included.
    #[test]
    fn mib_is_the_float_formatting_of_the_quotient() {
        let m = 1usize << 20;
        let near = |k: usize| [k.saturating_sub(1), k, k + 1];
        for n in (0..4 * m).step_by(997).chain((0..200).flat_map(|i| near(i * m / 20))).chain([m * 1000 - 1, usize::MAX >> 12]) {
            assert_eq!(mib(n), format!("{:.1} MiB", n as f64 / m as f64), "{n}");
        }
    }

    #[test]
    fn reads_together_stay_within_the_budget_and_give_back_what_they_held() {
        let start = Held::total();
        let mut a = Held::default();
        let mut b = Held::default();
        assert!(a.set(MAX_HELD_BYTES / 2).is_ok());
        assert!(b.set(MAX_HELD_BYTES / 2 - start).is_ok());
        assert!(a.set(MAX_HELD_BYTES / 2 + 1).is_err(), "past the budget together");
        assert!(a.set(10).is_ok(), "holding less never fails");
        assert_eq!(Held::total(), start + 10 + MAX_HELD_BYTES / 2 - start);
        drop(b);
        assert!(a.set(MAX_HELD_BYTES - start).is_ok());
        drop(a);
        assert_eq!(Held::total(), start);
    }

    /// A body collected in chunks is counted as they come, twice while they are joined, and the
    /// joined body is exactly as long as it is (what is counted is what is held).
    #[test]
    fn a_collected_body_is_counted_as_held() {
        let start = Held::total();
        let mut read = Collected::of(server_of("http://c.example/mcp"));
        assert!(read.push(vec![1; 1000]).is_ok());
        assert!(read.push(vec![2; 3000]).is_ok());
        assert_eq!((read.len(), Held::total() - start), (4000, 4000));
        let mut others = Held::default();
        assert!(others.set(MAX_HELD_BYTES - Held::total() - 3999).is_ok());
        assert!(read.push(vec![3; 4000]).is_err(), "past the budget");
        assert_eq!(read.len(), 4000, "the refused chunk is not kept");
        assert!(read.join().is_err(), "no room for the body twice while it is joined");
        assert_eq!(Held::total(), start + others.get(), "what it held is given back");
        drop(others);
        let mut read = Collected::of(server_of("http://c.example/mcp"));
        assert!(read.push(vec![1; 1000]).is_ok());
        assert!(read.push(vec![2; 3000]).is_ok());
        let (bytes, held) = read.join().unwrap();
        assert_eq!((bytes.len(), bytes.capacity(), held.get()), (4000, 4000, 4000));
        assert_eq!(Held::total() - start, 4000);
        drop(held);
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
        let mut refused = Vec::new();
        for _ in 0..18 {
            let mut h = Held::of(bad.clone());
            match h.set(15 << 20) {
                Ok(()) => stalled.push(h),
                Err(r) => refused.push(r),
            }
        }
        assert_eq!((stalled.len(), refused.len()), (8, 10), "8 x 15 MiB fit in 128 MiB, the others are refused");
        assert_eq!(refused[0], Refusal::Share { server: bad.clone(), held: 120 << 20 });
        assert_eq!(
            refused[0].to_string(),
            "the responses of http://bad.example:8000 being read at once would hold more than 128 MiB, a server's share of the 256 MiB all clients may hold (120.0 MiB held already)"
        );
        let mut good = Held::of(server_of("http://good.example/mcp"));
        assert!(good.set(100 << 20).is_ok(), "another server's read fits");
        let mut third = Held::of(server_of("http://third.example/mcp"));
        let past = third.set(40 << 20).unwrap_err();
        assert!(matches!(&past, Refusal::Budget { holders } if holders.len() == 2), "{past:?}");
        assert_eq!(
            past.to_string(),
            "the responses being read at once would hold more than 256 MiB (http://bad.example:8000 holds 120.0 MiB in 8 responses, http://good.example holds 100.0 MiB in 1 response)"
        );
        drop(stalled);
        assert!(third.set(40 << 20).is_ok());
        drop((good, third));
        SERVERS.with(|s| assert!(s.borrow().is_empty(), "every server's count given back"));
    }
}
