//! The bytes of responses that every client of the module holds at once while reading them.
//!
//! Each response is bounded on its own (`max_body_bytes`, `max_event_bytes`), but many read at
//! once were not: 128 calls answering 60 MB each took a wasm32 module past its 4 GiB, where an
//! allocation that fails aborts, which in wasm is a trap that leaves every client of the module
//! broken. A read holds its bytes through a [`Held`]; one that would take all of them past
//! [`MAX_HELD_BYTES`] is `LIMIT_EXCEEDED` instead, and the module keeps working.

use std::cell::Cell;

/// What all responses being read at once may hold: 256 MiB (four of the largest response a
/// client takes by default).
pub const MAX_HELD_BYTES: usize = 256 << 20;

thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
}

/// The bytes one read holds, given back when it is dropped.
#[derive(Debug, Default)]
pub struct Held {
    n: usize,
}

impl Held {
    /// Holds `n` bytes now, in place of what it held. `false` (and nothing changed) when that
    /// would take every read's together past [`MAX_HELD_BYTES`]; holding less never fails.
    pub fn set(&mut self, n: usize) -> bool {
        HELD.with(|held| {
            let others = held.get() - self.n;
            if n > self.n && others.saturating_add(n) > MAX_HELD_BYTES {
                return false;
            }
            held.set(others + n);
            self.n = n;
            true
        })
    }

    /// What every read holds now.
    pub fn total() -> usize {
        HELD.with(Cell::get)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.with(|held| held.set(held.get() - self.n));
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
}
