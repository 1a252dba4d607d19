//! The bindings, exercised in Node through wasm-bindgen-test: JS values in, JS values out,
//! typed errors for every bad input, and a module that keeps working after each.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Object, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

use toolwire::wasm::convert::{
    check_tools, convert_mcp_tools, convert_mcp_tools_json, flatten_content_js, parse_tool_name_js,
    prefix_tool_name_js, process_json_schema_js,
};
use toolwire::wasm::names::JsNameMap;
use toolwire::wasm::roundtrip::{parse_tool_calls_js, JsAccumulator};

fn js(text: &str) -> JsValue {
    JSON::parse(text).expect("test JSON")
}

fn text(v: &JsValue) -> String {
    JSON::stringify(v).expect("stringify").as_string().expect("string")
}

/// The `code` of an export's error as JS receives it (`Error`s become JS errors on the way out).
fn code<E: Clone + Into<JsValue>>(err: &E) -> String {
    let err: JsValue = err.clone().into();
    assert!(err.is_instance_of::<js_sys::Error>(), "errors are Error instances");
    Reflect::get(&err, &"code".into()).unwrap().as_string().unwrap_or_default()
}

const TOOL: &str = r#"[{"name":"search","description":"Search","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"serverName":"docs"}]"#;

#[wasm_bindgen_test]
fn converts_for_every_provider_shape() {
    let out = convert_mcp_tools(js(TOOL), "openai".into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(
        text(&out),
        r#"[{"type":"function","function":{"name":"mcp__docs__search","description":"Search","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}]"#
    );
    let out = convert_mcp_tools(js(TOOL), "gemini".into(), JsValue::UNDEFINED).unwrap();
    assert!(Array::is_array(&out));
    assert!(text(&out).starts_with(r#"[{"functionDeclarations":[{"name":"mcp__docs__search""#));
    let out = convert_mcp_tools_json(TOOL.into(), "bedrock".into(), JsValue::UNDEFINED).unwrap();
    assert!(out.as_string().unwrap().starts_with(r#"[{"toolSpec":{"name":"mcp__docs__search""#));
    // UTF-8 bytes in, bytes out.
    let bytes = js_sys::Uint8Array::from(TOOL.as_bytes());
    let out = convert_mcp_tools_json(bytes.into(), "bedrock".into(), JsValue::UNDEFINED).unwrap();
    let out = String::from_utf8(out.dyn_into::<js_sys::Uint8Array>().unwrap().to_vec()).unwrap();
    assert!(out.starts_with(r#"[{"toolSpec":{"name":"mcp__docs__search""#));
}

#[wasm_bindgen_test]
fn proto_keys_stay_own_properties() {
    let input = js(r#"[{"name":"x","inputSchema":{"type":"object","properties":{"__proto__":{"type":"string"}}}}]"#);
    let out = convert_mcp_tools(input, "anthropic".into(), JsValue::UNDEFINED).unwrap();
    let tool = Array::from(&out).get(0);
    let props = Reflect::get(&Reflect::get(&tool, &"input_schema".into()).unwrap(), &"properties".into()).unwrap();
    let own = Object::get_own_property_names(props.unchecked_ref::<Object>());
    assert_eq!(own.length(), 1);
    assert_eq!(own.get(0).as_string().as_deref(), Some("__proto__"));
    assert_eq!(Object::get_prototype_of(&props), Object::get_prototype_of(&Object::new()));
}

#[wasm_bindgen_test]
fn bad_inputs_are_typed_errors_and_the_module_survives() {
    let cases: Vec<(JsValue, JsValue, JsValue, &str)> = vec![
        (js(TOOL), "nope".into(), JsValue::UNDEFINED, "UNKNOWN_PROVIDER"),
        (js(TOOL), JsValue::from_f64(3.0), JsValue::UNDEFINED, "INVALID_INPUT"),
        (js("42"), "openai".into(), JsValue::UNDEFINED, "INVALID_INPUT"),
        (js(r#"[{"description":"no name"}]"#), "openai".into(), JsValue::UNDEFINED, "INVALID_TOOL"),
        (js(TOOL), "openai".into(), js(r#"{"strict":"yes"}"#), "INVALID_OPTIONS"),
        (js(TOOL), "openai".into(), js(r#"{"limits":{"maxDepth":-1}}"#), "INVALID_OPTIONS"),
    ];
    for (tools, provider, options, expected) in cases {
        let err = convert_mcp_tools(tools, provider, options).unwrap_err();
        assert_eq!(code(&err), expected);
        // Still works afterwards.
        assert!(convert_mcp_tools(js(TOOL), "openai".into(), JsValue::UNDEFINED).is_ok());
    }
    // A cycle and a BigInt cannot be JSON.
    let cyclic = Object::new();
    Reflect::set(&cyclic, &"self".into(), &cyclic).unwrap();
    assert_eq!(code(&convert_mcp_tools(cyclic.into(), "openai".into(), JsValue::UNDEFINED).unwrap_err()), "INVALID_JSON");
    let big = js_sys::BigInt::from(7u64);
    let arr = Array::of1(&big);
    assert_eq!(code(&convert_mcp_tools(arr.into(), "openai".into(), JsValue::UNDEFINED).unwrap_err()), "INVALID_JSON");
    assert_eq!(code(&convert_mcp_tools_json("{nope".into(), "openai".into(), JsValue::UNDEFINED).unwrap_err()), "INVALID_JSON");
    // Errors name the tool and path.
    let deep = js(r#"[{"name":"deep","inputSchema":{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"object"}}}}}}]"#);
    let err = JsValue::from(convert_mcp_tools(deep, "openai".into(), js(r#"{"limits":{"maxDepth":2}}"#)).unwrap_err());
    assert_eq!(code(&err), "LIMIT_EXCEEDED");
    assert_eq!(Reflect::get(&err, &"tool".into()).unwrap().as_string().as_deref(), Some("deep"));
    let msg = Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap();
    assert!(msg.contains("deep") && msg.contains("/properties/a"), "{msg}");
}

/// The message of an export's error as JS receives it.
fn message<E: Clone + Into<JsValue>>(err: &E) -> String {
    Reflect::get(&err.clone().into(), &"message".into()).unwrap().as_string().unwrap_or_default()
}

#[wasm_bindgen_test]
fn boxed_numbers_are_the_numbers_they_hold() {
    let tool = |extra: &str| js_sys::eval(&format!(r#"[{{name:"t",inputSchema:{{type:"object",properties:{{n:{{type:"number",{extra}}}}}}}}}]"#)).unwrap();
    // A boxed Infinity where its null would be taken as a value: refused, as Infinity is.
    for (extra, words) in [("default:new Number(Infinity)", ".default is Infinity,"), ("enum:[1,Object(NaN)]", ".enum[1] is NaN,")] {
        let err = convert_mcp_tools(tool(extra), "gemini".into(), JsValue::UNDEFINED).unwrap_err();
        assert_eq!(code(&err), "INVALID_JSON");
        assert!(message(&err).starts_with(&format!("tool at index 0.inputSchema.properties.n{words}")), "{}", message(&err));
        let schema = Reflect::get(&Array::from(&tool(extra)).get(0), &"inputSchema".into()).unwrap();
        assert_eq!(code(&process_json_schema_js(schema).unwrap_err()), "INVALID_JSON");
        let report = check_tools(tool(extra), "gemini".into(), JsValue::UNDEFINED).unwrap();
        assert!(text(&report).contains(r#""rule":"tool/invalid""#), "{}", text(&report));
    }
    // A bound given as a boxed Infinity is no bound, as Infinity is; a finite boxed number is its number.
    let out = convert_mcp_tools(tool("maximum:new Number(Infinity),default:new Number(5)"), "openai".into(), JsValue::UNDEFINED).unwrap();
    assert!(text(&out).contains(r#""n":{"type":"number","default":5}"#), "{}", text(&out));
    // A boxed BigInt, which JSON.stringify cannot write: INVALID_JSON.
    assert_eq!(code(&convert_mcp_tools(tool("default:Object(1n)"), "gemini".into(), JsValue::UNDEFINED).unwrap_err()), "INVALID_JSON");
}

#[wasm_bindgen_test]
fn boxed_numbers_are_told_by_their_slot_and_taken_by_options() {
    // Whatever its keys, prototype or tag, a boxed Infinity is what JSON writes as null.
    for boxed in [
        "Object.assign(new Number(Infinity),{a:1})",
        "Object.setPrototypeOf(new Number(Infinity),Object.prototype)",
        "Object.defineProperty(new Number(Infinity),Symbol.toStringTag,{value:'Object'})",
    ] {
        let tools = js_sys::eval(&format!(r#"[{{name:"t",inputSchema:{{type:"object",properties:{{n:{{default:{boxed}}}}}}}}}]"#)).unwrap();
        let err = convert_mcp_tools(tools, "openai".into(), JsValue::UNDEFINED).unwrap_err();
        assert_eq!(code(&err), "INVALID_JSON", "{boxed}: {}", message(&err));
        let map = JsNameMap::from_tools(js(r#"[{"name":"t","inputSchema":{"type":"object","properties":{"x":{}}}}]"#), "openai".into(), JsValue::UNDEFINED).unwrap();
        let err = map.prepare_arguments("t".into(), js_sys::eval(&format!("({{x:{boxed}}})")).unwrap()).unwrap_err();
        assert_eq!(code(&err), "INVALID_ARGUMENTS", "{boxed}: {}", message(&err));
    }
    // An option read from JS as it holds it takes a boxed Number as the number it holds.
    let flat = flatten_content_js(js(r#"[{"type":"text","text":"hello world"}]"#), js_sys::eval("({maxChars:new Number(5)})").unwrap()).unwrap();
    assert_eq!(flat, flatten_content_js(js(r#"[{"type":"text","text":"hello world"}]"#), js(r#"{"maxChars":5}"#)).unwrap());
}

#[wasm_bindgen_test]
fn name_map_round_trip_and_arguments() {
    let tools = js(r#"[{"name":"b__c","serverName":"a"},{"name":"c","serverName":"a__b"},
        {"name":"pick","serverName":"s","inputSchema":{"type":"object","properties":{"base":{"type":"integer","enum":[2,8,16]}}}}]"#);
    let map = JsNameMap::from_tools(tools.clone(), "gemini".into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(map.size(), 3);
    let names = Array::from(&map.names().unwrap());
    let n0 = names.get(0).as_string().unwrap();
    let n1 = names.get(1).as_string().unwrap();
    // The name that splits back at its first separator is a's; a__b's is hashed.
    assert_eq!(n0, "mcp__a__b__c");
    assert!(n1.starts_with("mcp__a__b__c_"), "{n1}");
    assert_eq!(text(&map.resolve(n0.clone().into()).unwrap()), format!(r#"{{"name":"{n0}","server":"a","tool":"b__c"}}"#));
    assert_eq!(code(&map.resolve("mcp__a__b".into()).unwrap_err()), "UNKNOWN_TOOL_NAME");
    let args = map.prepare_arguments("mcp__s__pick".into(), r#"{"base":"16"}"#.into()).unwrap();
    assert_eq!(text(&args), r#"{"base":16}"#);
    assert_eq!(code(&map.prepare_arguments("mcp__s__pick".into(), "{bad".into()).unwrap_err()), "INVALID_ARGUMENTS");
    let restored = JsNameMap::from_json(map.to_json().unwrap()).unwrap();
    assert_eq!(text(&restored.resolve(n1.into()).unwrap()), text(&map.resolve(names.get(1)).unwrap()));
}

#[wasm_bindgen_test]
fn helpers() {
    assert_eq!(prefix_tool_name_js("gh".into(), "list".into(), JsValue::UNDEFINED).unwrap(), "mcp__gh__list");
    assert_eq!(text(&parse_tool_name_js("mcp__gh__list".into(), JsValue::UNDEFINED).unwrap()), r#"{"server":"gh","tool":"list"}"#);
    // What the `mcp` format makes of a tool with no server reads back as that.
    assert_eq!(prefix_tool_name_js(JsValue::NULL, "x".into(), js(r#"{"naming":"mcp"}"#)).unwrap(), "mcp__x");
    assert_eq!(text(&parse_tool_name_js("mcp__x".into(), js(r#"{"naming":"mcp"}"#)).unwrap()), r#"{"server":null,"tool":"x"}"#);
    assert!(parse_tool_name_js("other".into(), js(r#"{"naming":"mcp"}"#)).unwrap().is_null());
    assert_eq!(text(&process_json_schema_js(JsValue::NULL).unwrap()), r#"{"type":"object","properties":{},"required":[]}"#);
    let flat = flatten_content_js(js(r#"{"content":[{"type":"text","text":"a"},{"type":"image","data":"","mimeType":"image/png"}]}"#), JsValue::UNDEFINED).unwrap();
    assert_eq!(flat, "a\n[Image: image/png (not sent: text only)]");
    let report = check_tools(js(r#"[{"name":"ok"},{"nope":1}]"#), "openai".into(), JsValue::UNDEFINED).unwrap();
    assert!(text(&report).contains("tool/invalid"));
}

#[wasm_bindgen_test]
fn provider_errors_carry_the_providers_error_and_the_accumulator_goes_on() {
    let mut acc = JsAccumulator::new("anthropic".into(), JsValue::UNDEFINED).unwrap();
    let sse = concat!(
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"t\",\"input\":{}}}\n\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
    );
    let err = JsValue::from(acc.push(sse.into()).unwrap_err());
    assert_eq!(code(&err), "PROVIDER_ERROR");
    let msg = Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap();
    assert_eq!(msg, "Anthropic stream error overloaded_error: Overloaded");
    assert_eq!(text(&Reflect::get(&err, &"providerError".into()).unwrap()), r#"{"type":"overloaded_error","message":"Overloaded"}"#);
    // The call completed before the error comes with the next push.
    assert_eq!(Array::from(&acc.push(": ping\n".into()).unwrap()).length(), 1);
    let body = js(r#"{"error":{"code":429,"message":"Resource exhausted.","status":"RESOURCE_EXHAUSTED"}}"#);
    let err = JsValue::from(parse_tool_calls_js(body, "vertex".into(), JsValue::UNDEFINED).unwrap_err());
    assert_eq!(code(&err), "PROVIDER_ERROR");
    assert_eq!(Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap(), "Gemini error RESOURCE_EXHAUSTED (429): Resource exhausted.");
}

mod bridge {
    //! The MCP client over a scripted JS fetch: real Promises, a streaming body read with
    //! getReader() in 3-byte chunks, AbortSignals observed.
    use super::*;
    use js_sys::{Function, Promise};
    use toolwire::wasm::mcp::JsMcpClient;
    use wasm_bindgen_futures::JsFuture;

    const FETCH: &str = r#"
      const log = globalThis.__twLog = globalThis.__twLog || [];
      const body = init.body ? JSON.parse(init.body) : null;
      log.push({ url, method: init.method, headers: init.headers, body });
      const enc = new TextEncoder();
      const respond = (status, ct, text, extra) => {
        const bytes = enc.encode(text);
        const chunks = [];
        for (let i = 0; i < bytes.length; i += 3) chunks.push(bytes.slice(i, i + 3));
        let i = 0;
        const reader = { read: () => Promise.resolve(i < chunks.length ? { done: false, value: chunks[i++] } : { done: true }), cancel: () => Promise.resolve() };
        const headers = Object.assign({ "content-type": ct }, extra || {});
        return Promise.resolve({ status, headers: { get: (n) => headers[n] ?? null }, body: { getReader: () => reader } });
      };
      if (!body || !("id" in body)) return respond(202, null, "");
      if (body.method === "initialize") {
        return respond(200, "application/json", JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "scripted", version: "1" } } }), { "mcp-session-id": "sess-9" });
      }
      if (body.method === "tools/list") {
        const msg = { jsonrpc: "2.0", id: body.id, result: { tools: [{ name: "echo", inputSchema: { type: "object" } }] } };
        return respond(200, "text/event-stream; charset=utf-8", ": hi\r\n\r\nevent: message\r\ndata: " + JSON.stringify(msg) + "\r\n\r\n");
      }
      if (body.params && body.params.name === "hang") {
        return new Promise((resolve, reject) => {
          init.signal.addEventListener("abort", () => { log.push({ aborted: true }); reject(Object.assign(new Error("aborted"), { name: "AbortError" })); });
        });
      }
      if (body.params && body.params.name === "cors") return Promise.reject(new TypeError("Failed to fetch"));
      return respond(200, "application/json", JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { content: [{ type: "text", text: "é" + body.params.arguments.m }] } }));
    "#;

    fn client() -> JsMcpClient {
        let _ = js_sys::eval("globalThis.__twLog = []");
        let fetch = Function::new_with_args("url, init", FETCH);
        let opts = js_sys::Object::new();
        Reflect::set(&opts, &"fetch".into(), &fetch).unwrap();
        JsMcpClient::new("http://127.0.0.1:1/mcp".into(), opts.into()).unwrap()
    }

    async fn wait(p: Promise) -> Result<JsValue, JsValue> {
        JsFuture::from(p).await
    }

    fn log() -> String {
        text(&js_sys::eval("globalThis.__twLog").unwrap())
    }

    #[wasm_bindgen_test]
    async fn handshake_list_and_call_through_a_js_fetch() {
        let c = client();
        wait(c.connect(JsValue::UNDEFINED)).await.unwrap();
        assert_eq!(c.session_id().as_deref(), Some("sess-9"));
        let tools = wait(c.list_tools(JsValue::UNDEFINED)).await.unwrap();
        assert_eq!(text(&tools), r#"[{"name":"echo","inputSchema":{"type":"object"}}]"#);
        let r = wait(c.call_tool("echo".into(), js(r#"{"m":"x"}"#), JsValue::UNDEFINED)).await.unwrap();
        assert_eq!(text(&r), r#"{"content":[{"type":"text","text":"éx"}]}"#);
        let l = log();
        assert!(l.contains(r#""mcp-session-id":"sess-9""#) && l.contains(r#""mcp-protocol-version":"2025-11-25""#), "{l}");
    }

    #[wasm_bindgen_test]
    async fn timeout_aborts_the_fetch_and_cancels() {
        let c = client();
        wait(c.connect(JsValue::UNDEFINED)).await.unwrap();
        let err = wait(c.call_tool("hang".into(), js("{}"), js(r#"{"timeoutMs":20}"#))).await.unwrap_err();
        assert_eq!(code(&err), "TIMEOUT");
        let l = log();
        assert!(l.contains(r#"{"aborted":true}"#), "the request's AbortController fired: {l}");
        // The rejection comes at the deadline; the cancellation follows in the background.
        wait(js_sys::eval("new Promise((r) => setTimeout(r, 50))").unwrap().into()).await.unwrap();
        let l = log();
        assert!(l.contains("notifications/cancelled"), "{l}");
        // Still usable afterwards.
        assert!(wait(c.call_tool("echo".into(), js(r#"{"m":"y"}"#), JsValue::UNDEFINED)).await.is_ok());
    }

    #[wasm_bindgen_test]
    async fn abort_signal_and_network_errors() {
        let c = client();
        wait(c.connect(JsValue::UNDEFINED)).await.unwrap();
        let controller = js_sys::eval("new AbortController()").unwrap();
        let opts = js_sys::Object::new();
        Reflect::set(&opts, &"signal".into(), &Reflect::get(&controller, &"signal".into()).unwrap()).unwrap();
        let pending = wait(c.call_tool("hang".into(), js("{}"), opts.into()));
        let abort: Function = Reflect::get(&controller, &"abort".into()).unwrap().unchecked_into();
        abort.call0(&controller).unwrap();
        assert_eq!(code(&pending.await.unwrap_err()), "ABORTED");
        let err = wait(c.call_tool("cors".into(), js("{}"), JsValue::UNDEFINED)).await.unwrap_err();
        assert_eq!(code(&err), "NETWORK");
        let msg = Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap();
        // Node has no CORS: the hint is about the server and the URL.
        assert!(!msg.contains("CORS") && msg.contains("unreachable"), "{msg}");
        // In a page (a runtime with a document), the CORS hint.
        js_sys::eval("globalThis.document = {}").unwrap();
        let page = client();
        js_sys::eval("delete globalThis.document").unwrap();
        wait(page.connect(JsValue::UNDEFINED)).await.unwrap();
        let err = wait(page.call_tool("cors".into(), js("{}"), JsValue::UNDEFINED)).await.unwrap_err();
        let msg = Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap();
        assert!(msg.contains("CORS") && msg.contains("mcp-session-id"), "{msg}");
    }
}
