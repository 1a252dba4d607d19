//! JSON-RPC 2.0 messages, classified by shape: `method` + `id` is a request, `method` alone a
//! notification, `result`/`error` with an `id` a response. Ids are per direction: a server
//! request with id 2 is not the response to our id 2. Id `0` is a real id.

use serde_json::{Map, Value};

use crate::model::{object, string, Put as _};
use crate::text::Owned as _;

/// A request id (string or integer, never null).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Id {
    /// Integer id.
    Num(i64),
    /// String id.
    Str(String),
}

impl Id {
    /// Reads an id; `None` for null, floats and other types.
    pub fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Number(n) => n.as_i64().map(Self::Num),
            Value::String(s) => Some(Self::Str(s.clone())),
            _ => None,
        }
    }

    /// The id as JSON.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Num(n) => Value::from(*n),
            Self::Str(s) => string(s),
        }
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// Error code.
    pub code: i64,
    /// Message.
    pub message: String,
    /// Optional data.
    pub data: Option<Value>,
}

/// A classified incoming message.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A response to one of our requests.
    Response {
        /// The id it answers.
        id: Id,
        /// The result, or the error.
        outcome: Result<Value, RpcError>,
    },
    /// A request from the server (`ping`, `roots/list`, ...).
    Request {
        /// Its id (to answer with).
        id: Id,
        /// The method.
        method: String,
        /// Params.
        params: Value,
    },
    /// A notification from the server.
    Notification {
        /// The method.
        method: String,
        /// Params.
        params: Value,
    },
    /// An error response without a readable id (the server could not parse our message).
    OrphanError(RpcError),
    /// Something that is not a JSON-RPC message.
    Invalid(Value),
}

fn rpc_error(v: &Value) -> RpcError {
    RpcError {
        code: v.get("code").and_then(Value::as_i64).unwrap_or(0),
        message: v.get("message").and_then(Value::as_str).unwrap_or("").owned(),
        data: v.get("data").cloned(),
    }
}

/// Classifies one message.
pub fn classify(v: Value) -> Incoming {
    let Value::Object(mut o) = v else { return Incoming::Invalid(v) };
    let id = o.get("id").and_then(Id::from_value);
    if let Some(Value::String(method)) = o.get("method") {
        let method = method.clone();
        let params = o.remove("params").unwrap_or(Value::Null);
        return match id {
            Some(id) => Incoming::Request { id, method, params },
            None => Incoming::Notification { method, params },
        };
    }
    if let Some(err) = o.get("error") {
        let e = rpc_error(err);
        return match id {
            Some(id) => Incoming::Response { id, outcome: Err(e) },
            None => Incoming::OrphanError(e),
        };
    }
    match (id, o.remove("result")) {
        (Some(id), Some(result)) => Incoming::Response { id, outcome: Ok(result) },
        _ => Incoming::Invalid(Value::Object(o)),
    }
}

/// Classifies a body that may be one message or a batch array.
pub fn classify_all(v: Value) -> Vec<Incoming> {
    match v {
        Value::Array(items) => items.into_iter().map(classify).collect(),
        other => vec![classify(other)],
    }
}

/// A request body.
pub fn request(id: &Id, method: &str, params: Value) -> String {
    let mut o = Map::new();
    o.put("jsonrpc", string("2.0"));
    o.put("id", id.to_value());
    o.put("method", string(method));
    if !params.is_null() {
        o.put("params", params);
    }
    crate::text::to_string(&Value::Object(o))
}

/// A notification body.
pub fn notification(method: &str, params: Value) -> String {
    let mut o = Map::new();
    o.put("jsonrpc", string("2.0"));
    o.put("method", string(method));
    if !params.is_null() {
        o.put("params", params);
    }
    crate::text::to_string(&Value::Object(o))
}

/// A response body (to a server request).
pub fn response(id: &Id, outcome: Result<Value, RpcError>) -> String {
    match outcome {
        Ok(result) => crate::text::to_string(&object([("jsonrpc", string("2.0")), ("id", id.to_value()), ("result", result)])),
        Err(e) => {
            let mut err = crate::model::object([("code", e.code.into()), ("message", e.message.into())]);
            if let Some(d) = e.data {
                err["data"] = d;
            }
            crate::text::to_string(&object([("jsonrpc", string("2.0")), ("id", id.to_value()), ("error", err)]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classification() {
        assert_eq!(classify(json!({"jsonrpc":"2.0","id":0,"result":{}})), Incoming::Response { id: Id::Num(0), outcome: Ok(json!({})) });
        assert_eq!(classify(json!({"jsonrpc":"2.0","id":"a","method":"ping"})), Incoming::Request { id: Id::Str("a".into()), method: "ping".into(), params: Value::Null });
        assert!(matches!(classify(json!({"jsonrpc":"2.0","method":"notifications/progress","params":{}})), Incoming::Notification { .. }));
        assert!(matches!(classify(json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}})), Incoming::OrphanError(_)));
        assert!(matches!(classify(json!({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"m","data":1}})), Incoming::Response { outcome: Err(RpcError { code: -32602, .. }), .. }));
        assert!(matches!(classify(json!(5)), Incoming::Invalid(_)));
        assert_eq!(classify_all(json!([{"id":1,"result":1},{"method":"x"}])).len(), 2);
    }
}
