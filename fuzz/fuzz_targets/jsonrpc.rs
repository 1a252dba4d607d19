//! JSON-RPC message handling.
//!
//! - Any bytes that are JSON: `classify_all` never panics and yields one message per batch item.
//! - The request / notification / response builders, on ids, methods, params and errors drawn
//!   from the same bytes, produce JSON that `classify` reads back as the same message.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Number, Value};
use toolwire::protocol::jsonrpc::{classify, classify_all, notification, request, response, Id, Incoming, RpcError};

/// A bounded arbitrary JSON value.
fn value(u: &mut Unstructured, depth: u32) -> arbitrary::Result<Value> {
    let pick = if depth == 0 { u.int_in_range(0..=5)? } else { u.int_in_range(0..=7)? };
    Ok(match pick {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::Number(Number::from(u.arbitrary::<i64>()?)),
        3 => Value::Number(Number::from(u.arbitrary::<u64>()?)),
        4 => Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        5 => Value::String(u.arbitrary()?),
        6 => {
            let n = u.int_in_range(0..=4)?;
            Value::Array((0..n).map(|_| value(u, depth - 1)).collect::<arbitrary::Result<_>>()?)
        }
        _ => {
            let n = u.int_in_range(0..=4)?;
            let mut m = Map::new();
            for _ in 0..n {
                let k: String = u.arbitrary()?;
                m.insert(k, value(u, depth - 1)?);
            }
            Value::Object(m)
        }
    })
}

/// JSON equality, with floats compared to within rounding: serde_json's default float parser is
/// not exactly round-trip (its `float_roundtrip` feature is off; subnormals lose most), which is
/// not toolwire's doing.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            let scale = x.abs().max(y.abs());
            x == y || (x - y).abs() <= 1e-12 * scale || scale < 1e-290
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn reparse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("builder wrote invalid JSON ({e}): {text}"))
}

fn id(u: &mut Unstructured) -> arbitrary::Result<Id> {
    Ok(if u.arbitrary()? { Id::Num(u.arbitrary()?) } else { Id::Str(u.arbitrary()?) })
}

fn builders(u: &mut Unstructured) -> arbitrary::Result<()> {
    let rid = id(u)?;
    let method: String = u.arbitrary()?;
    let params = value(u, 3)?;

    let text = request(&rid, &method, params.clone());
    match classify(reparse(&text)) {
        Incoming::Request { id: i, method: m, params: p } => {
            assert_eq!((&i, &m), (&rid, &method), "request read back with another id/method: {text}");
            assert!(same(&p, &params), "request params changed: {text}");
        }
        other => panic!("request read back as {other:?}: {text}"),
    }

    let text = notification(&method, params.clone());
    match classify(reparse(&text)) {
        Incoming::Notification { method: m, params: p } => {
            assert_eq!(m, method, "notification read back with another method: {text}");
            assert!(same(&p, &params), "notification params changed: {text}");
        }
        other => panic!("notification read back as {other:?}: {text}"),
    }

    let outcome = if u.arbitrary()? {
        Ok(value(u, 3)?)
    } else {
        let data = if u.arbitrary()? { Some(value(u, 2)?) } else { None };
        Err(RpcError { code: u.arbitrary()?, message: u.arbitrary()?, data })
    };
    let text = response(&rid, outcome.clone());
    match (classify(reparse(&text)), &outcome) {
        (Incoming::Response { id: i, outcome: Ok(r) }, Ok(want)) => {
            assert_eq!(i, rid, "response read back with another id: {text}");
            assert!(same(&r, want), "response result changed: {text}");
        }
        (Incoming::Response { id: i, outcome: Err(e) }, Err(want)) => {
            assert_eq!(i, rid, "error response read back with another id: {text}");
            assert_eq!((e.code, &e.message), (want.code, &want.message), "error changed: {text}");
            match (&e.data, &want.data) {
                (None, None) => {}
                (Some(a), Some(b)) => assert!(same(a, b), "error data changed: {text}"),
                _ => panic!("error data appeared or vanished: {text}"),
            }
        }
        (other, _) => panic!("response read back as {other:?}: {text}"),
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = serde_json::from_slice::<Value>(data) {
        let expected = match &v {
            Value::Array(a) => a.len(),
            _ => 1,
        };
        let got = classify_all(v);
        assert_eq!(got.len(), expected, "classify_all must yield one message per batch item");
    }
    let _ = builders(&mut Unstructured::new(data));
});
