//! Whether a schema node allows any value at all, from the keywords that limit it by
//! themselves: `type`, the numeric bounds, the length, item and property counts, and the
//! values of its `enum`/`const`.
//!
//! One reading serves both trees: the general path reads a [`serde_json::Value`] node (and
//! its `allOf` branches, [`Domain::meet`]) to report a node that allows none
//! (`schema/disjoint-values`, in [`crate::schema::lower`]); the pass-through path
//! ([`crate::fast`]) classes the same keywords ([`word`]) in its one match over a node's keys,
//! by length and first eight bytes, and leaves a node that allows none to the general path.

use serde_json::Number;

use crate::schema::walk::{head_of, rest_equal};

/// The JSON types as bits: a type set is their union. `number` is both [`FRACTION`] and
/// [`INTEGER`] (an integer is a number; `1.0` is an integer).
pub(crate) const NULL: u8 = 1;
pub(crate) const BOOLEAN: u8 = 2;
pub(crate) const OBJECT: u8 = 4;
pub(crate) const ARRAY: u8 = 8;
pub(crate) const FRACTION: u8 = 16;
pub(crate) const INTEGER: u8 = 32;
pub(crate) const STRING: u8 = 64;
/// Every type: a node without `type` (or with a name this module does not know).
pub(crate) const ANY: u8 = 127;

/// The bits of a `type` name; [`ANY`] for a name that is not one of the seven (the general
/// path removes it and says so: it limits nothing here).
pub(crate) fn type_bits(name: &str) -> u8 {
    match name {
        "null" => NULL,
        "boolean" => BOOLEAN,
        "object" => OBJECT,
        "array" => ARRAY,
        "number" => FRACTION | INTEGER,
        "integer" => INTEGER,
        "string" => STRING,
        _ => ANY,
    }
}

/// The type bit of a number value.
pub(crate) fn number_bits(n: &Number) -> u8 {
    match n.as_f64() {
        Some(f) if n.is_f64() && f.fract() != 0.0 => FRACTION,
        _ => INTEGER,
    }
}

/// What a keyword is to [`Domain`] ([`word`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Word {
    /// `enum`: its values are the caller's to check ([`Domain::admits`]).
    Enum,
    /// `const`: the same, one value.
    Const,
    /// A bound, for [`Domain::bound`]: `minimum`, `maximum`, `exclusiveMinimum`,
    /// `exclusiveMaximum`, then the least and most of a string's length, an array's items and
    /// an object's properties (0 to 9).
    Bound(u8),
    /// Anything else.
    Other,
}

/// What keyword `key` is, `head` its [`head`] (which the pass-through path has read already):
/// by length and first eight bytes, as `walk::keyword` (the whole key up to eight). Inlined
/// into that path's one match over a node's keys.
#[inline(always)]
pub(crate) fn word(key: &[u8], head: u64) -> Word {
    let (which, word): (u8, &[u8]) = match (key.len(), head) {
        (4, ENUM) => return Word::Enum,
        (5, CONST) => return Word::Const,
        (7, MINIMUM) => return Word::Bound(0),
        (7, MAXIMUM) => return Word::Bound(1),
        (16, EXCLUSIVE_HEAD) => (2, b"exclusiveMinimum"),
        (9, MIN_LENGTH_HEAD) => (4, b"minLength"),
        (9, MAX_LENGTH_HEAD) => (5, b"maxLength"),
        (8, MIN_ITEMS) => return Word::Bound(6),
        (8, MAX_ITEMS) => return Word::Bound(7),
        (13, MIN_PROPERTIES_HEAD) => (8, b"minProperties"),
        (13, MAX_PROPERTIES_HEAD) => (9, b"maxProperties"),
        _ => return Word::Other,
    };
    if which == 2 {
        // `exclusiveM` then `inimum` or `aximum`: the same length and head.
        return match &key[9..] {
            b"Minimum" => Word::Bound(2),
            b"Maximum" => Word::Bound(3),
            _ => Word::Other,
        };
    }
    if rest_equal(key, word) {
        Word::Bound(which)
    } else {
        Word::Other
    }
}

/// The limits one node (with its `allOf` branches, [`Domain::meet`]) puts on a value, as far
/// as telling "no value" goes: its types, and per type the range its bounds leave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Domain {
    /// The types allowed (bits above).
    pub(crate) types: u8,
    /// The lower bound of a number, and whether it is exclusive.
    low: (f64, bool),
    /// The upper bound, and whether it is exclusive.
    high: (f64, bool),
    /// (least, most) characters of a string, items of an array, properties of an object.
    counts: [(f64, f64); 3],
}

impl Default for Domain {
    fn default() -> Self {
        Self::ANY
    }
}

use crate::schema::walk::{
    ENUM, EXCLUSIVE_HEAD, MAXIMUM, MAX_ITEMS, MAX_LENGTH_HEAD, MAX_PROPERTIES_HEAD, MINIMUM, MIN_ITEMS, MIN_LENGTH_HEAD, MIN_PROPERTIES_HEAD,
};
const CONST: u64 = head_of(b"const");

impl Domain {
    /// No limit.
    pub(crate) const ANY: Domain = Domain {
        types: ANY,
        low: (f64::NEG_INFINITY, false),
        high: (f64::INFINITY, false),
        counts: [(0.0, f64::INFINITY); 3],
    };

    /// Takes in bound `which` ([`Word::Bound`]) of value `n`. Bounds of another kind of value
    /// limit nothing here (the general path removes them and says so).
    pub(crate) fn bound(&mut self, which: u8, n: &Number) {
        let Some(v) = n.as_f64() else { return };
        match which {
            0 => self.at_least(v, false),
            1 => self.at_most(v, false),
            2 => self.at_least(v, true),
            3 => self.at_most(v, true),
            _ => {
                let (i, most) = ((which - 4) as usize / 2, which % 2 == 1);
                let c = &mut self.counts[i];
                if most {
                    c.1 = c.1.min(v);
                } else {
                    c.0 = c.0.max(v);
                }
            }
        }
    }

    /// Limits the types to `bits`.
    pub(crate) fn only(&mut self, bits: u8) {
        self.types &= bits;
    }

    fn at_least(&mut self, v: f64, exclusive: bool) {
        if v > self.low.0 || (v == self.low.0 && exclusive) {
            self.low = (v, exclusive);
        }
    }

    fn at_most(&mut self, v: f64, exclusive: bool) {
        if v < self.high.0 || (v == self.high.0 && exclusive) {
            self.high = (v, exclusive);
        }
    }

    /// Both hold (an `allOf` branch's limits joining its node's).
    pub(crate) fn meet(&mut self, other: &Domain) {
        self.types &= other.types;
        self.at_least(other.low.0, other.low.1);
        self.at_most(other.high.0, other.high.1);
        for (c, o) in self.counts.iter_mut().zip(other.counts) {
            c.0 = c.0.max(o.0);
            c.1 = c.1.min(o.1);
        }
    }

    fn numbers(&self, n: f64) -> bool {
        let (lo, lx) = self.low;
        let (hi, hx) = self.high;
        (n > lo || (n == lo && !lx)) && (n < hi || (n == hi && !hx))
    }

    fn count(&self, i: usize, n: f64) -> bool {
        self.counts[i].0 <= n && n <= self.counts[i].1
    }

    /// Whether some value of its types fits its bounds (no `enum`/`const` limiting them).
    pub(crate) fn some_value(&self) -> bool {
        let t = self.types;
        if t & (NULL | BOOLEAN) != 0 {
            return true;
        }
        let fits = |i: usize| self.counts[i].0 <= self.counts[i].1;
        if (t & STRING != 0 && fits(0)) || (t & ARRAY != 0 && fits(1)) || (t & OBJECT != 0 && fits(2)) {
            return true;
        }
        let ((lo, lx), (hi, hx)) = (self.low, self.high);
        if t & FRACTION != 0 && (lo < hi || (lo == hi && !lx && !hx)) {
            return true;
        }
        if t & INTEGER != 0 {
            // The least and the greatest integer within the bounds.
            let least = if lx && lo.fract() == 0.0 { lo + 1.0 } else { lo.ceil() };
            let greatest = if hx && hi.fract() == 0.0 { hi - 1.0 } else { hi.floor() };
            return least <= greatest;
        }
        false
    }

    /// Whether it allows a value of type `bits` (one bit; for a number, [`number_bits`]),
    /// `number` its number, `len` its length (characters of a string, items of an array,
    /// properties of an object), read only when a count limits it (one function for every
    /// caller's closures: it is called once per value until one fits).
    pub(crate) fn admits(&self, bits: u8, number: Option<f64>, len: &dyn Fn() -> usize) -> bool {
        if self.types & bits == 0 {
            return false;
        }
        let i = match bits {
            FRACTION | INTEGER => return number.is_none_or(|n| self.numbers(n)),
            STRING => 0,
            ARRAY => 1,
            OBJECT => 2,
            _ => return true,
        };
        self.counts[i] == (0.0, f64::INFINITY) || self.count(i, len() as f64)
    }

    /// [`Domain::admits`] for a value of the general path's tree.
    pub(crate) fn admits_value(&self, v: &serde_json::Value) -> bool {
        use serde_json::Value;
        match v {
            Value::Null => self.admits(NULL, None, &|| 0),
            Value::Bool(_) => self.admits(BOOLEAN, None, &|| 0),
            Value::Number(n) => self.admits(number_bits(n), n.as_f64(), &|| 0),
            Value::String(s) => self.admits(STRING, None, &|| s.chars().count()),
            Value::Array(a) => self.admits(ARRAY, None, &|| a.len()),
            Value::Object(o) => self.admits(OBJECT, None, &|| o.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::walk::head;
    use serde_json::{json, Value};

    fn domain(v: Value) -> Domain {
        let mut d = Domain::ANY;
        let Value::Object(o) = v else { panic!() };
        for (k, v) in &o {
            if k == "type" {
                d.only(match v {
                    Value::String(t) => type_bits(t),
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).map(type_bits).fold(0, |a, b| a | b),
                    _ => ANY,
                });
            } else if let (Word::Bound(which), Some(n)) = (word(k.as_bytes(), head(k.as_bytes())), v.as_number()) {
                d.bound(which, n);
            }
        }
        d
    }

    #[test]
    fn bounds_that_leave_no_value() {
        for (schema, some) in [
            (json!({"type": "integer", "minimum": 10, "maximum": 5}), false),
            (json!({"type": "integer", "minimum": 5, "maximum": 5}), true),
            (json!({"type": "integer", "exclusiveMinimum": 5, "maximum": 5}), false),
            (json!({"type": "integer", "minimum": 1.5, "maximum": 1.9}), false),
            (json!({"type": "number", "minimum": 1.5, "maximum": 1.9}), true),
            (json!({"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 2}), false),
            (json!({"type": "number", "exclusiveMinimum": 1, "exclusiveMaximum": 2}), true),
            (json!({"type": "number", "exclusiveMinimum": 2, "maximum": 2}), false),
            // Other types are left: an untyped node allows them.
            (json!({"minimum": 10, "maximum": 5}), true),
            (json!({"type": ["integer", "null"], "minimum": 10, "maximum": 5}), true),
            (json!({"type": "string", "minLength": 4, "maxLength": 3}), false),
            (json!({"type": "string", "minLength": 3, "maxLength": 3}), true),
            (json!({"type": "array", "minItems": 2, "maxItems": 1}), false),
            (json!({"type": "object", "minProperties": 2, "maxProperties": 1}), false),
            (json!({"type": ["string", "array"], "minLength": 4, "maxLength": 3, "minItems": 2, "maxItems": 1}), false),
            (json!({"type": "string", "maxItems": -1, "minimumX": 3}), true),
        ] {
            assert_eq!(domain(schema.clone()).some_value(), some, "{schema}");
        }
    }

    #[test]
    fn values_that_fit_nothing() {
        let d = domain(json!({"type": "string", "maxLength": 2}));
        assert!(!d.admits_value(&json!(5)) && !d.admits_value(&json!("abc")) && d.admits_value(&json!("ab")));
        let d = domain(json!({"type": "integer", "minimum": 0}));
        assert!(d.admits_value(&json!(3)) && d.admits_value(&json!(3.0)) && !d.admits_value(&json!(3.5)) && !d.admits_value(&json!(-1)));
        let mut d = domain(json!({"type": ["number", "null"]}));
        assert!(d.admits_value(&json!(null)) && d.admits_value(&json!(0.5)));
        d.meet(&domain(json!({"type": "integer", "exclusiveMaximum": 3})));
        assert!(!d.admits_value(&json!(null)) && !d.admits_value(&json!(0.5)) && !d.admits_value(&json!(3)) && d.admits_value(&json!(2)));
    }
}
