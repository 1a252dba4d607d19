//! The JS operations that may throw (a getter, a Proxy trap, a `toJSON`, a caller's callback, a
//! constructor refusing its argument), caught without leaking: every import of the binding that
//! is declared `catch` and gives a JS value back is here, behind a thin safe wrapper.
//!
//! Why: with reference types, wasm-bindgen 0.2's code for a `catch` import returning a JS value
//! (`JsValue`, `Array`, `JsString`...) puts what the JS side returned into the externref table
//! before it looks for the exception (wasm-bindgen-macro-support's codegen: `let ret = shim();
//! take_last_exception()?; Ok(from_abi(ret))`). On a throw the JS side returns `undefined`, which
//! still takes a slot, and the early return never frees it: one slot a caught exception, for
//! good; at about 2^23 the table cannot grow and every call into the module traps
//! (`unreachable`). js_sys's `Reflect::get`, `Function::call1`, `JSON::stringify`,
//! `Reflect::construct` and the like are all declared that way.
//!
//! What does not leak: an import returning `Option<T>` is converted in the JS glue, inside the
//! `try` (`isLikeNone(ret) ? 0 : addToExternrefTable0(ret)`), so a throw puts nothing in the
//! table. That loses `null` against `undefined`, which is kept where either may come back (a
//! getter's value, a callback's result) by wrapping the value in an array first, with builtins
//! only: `Array.prototype.map.call([[f, this, args]], Reflect.apply.bind(undefined,
//! Reflect.apply, undefined))` is `[f.apply(this, args)]`, or what `f` threw. An array is never
//! nullish, so `None` is a throw. Imports returning a `bool`, a number or nothing take no slot
//! and may stay where they are used.
//!
//! Nothing else in src/wasm calls a `catch` import that returns a JS value: tests/caught_imports.rs
//! fails on `Reflect::get`, `.call1(`, `JSON::stringify` and the like outside this file, and on a
//! `catch` import returning a JS value without `Option`.

use js_sys::{Array, Function, JsString, Object};
use wasm_bindgen::prelude::*;

type Caught<T> = Result<T, JsValue>;

#[wasm_bindgen]
extern "C" {
    /// `Array.prototype.map.call(list, f)`: `None` is never a success (an array is not nullish).
    #[wasm_bindgen(catch, js_namespace = ["Array", "prototype", "map"], js_name = call)]
    fn map_js(list: &Array, f: &Function) -> Caught<Option<Array>>;
    /// `Function.prototype.bind.call(f, this, a, b)`.
    #[wasm_bindgen(js_namespace = ["Function", "prototype", "bind"], js_name = call)]
    fn bind2(f: &Function, this: &JsValue, a: &JsValue, b: &JsValue) -> Function;
    #[wasm_bindgen(thread_local_v2, js_namespace = Reflect, js_name = apply)]
    static REFLECT_APPLY: Function;
    #[wasm_bindgen(thread_local_v2, js_namespace = Reflect, js_name = get)]
    static REFLECT_GET: Function;

    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = get)]
    fn get_js(o: &JsValue, key: &JsValue) -> Caught<Option<JsValue>>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = get)]
    fn get_index_js(o: &JsValue, i: u32) -> Caught<Option<JsValue>>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = construct)]
    fn construct_js(ctor: &JsValue, args: &Array) -> Caught<Option<Object>>;
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = stringify)]
    fn stringify_js(v: &JsValue) -> Caught<Option<JsString>>;
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = parse)]
    fn parse_js(text: &str) -> Caught<Option<JsValue>>;

    #[wasm_bindgen(catch, js_namespace = Object, js_name = entries)]
    fn entries_js(o: &JsValue) -> Caught<Option<Array>>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = fromEntries)]
    fn from_entries_js(entries: &Array) -> Caught<Option<Object>>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn keys_js(o: &JsValue) -> Caught<Option<Array>>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = getOwnPropertyNames)]
    fn own_names_js(o: &JsValue) -> Caught<Option<Array>>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = ownKeys)]
    fn own_keys_js(o: &JsValue) -> Caught<Option<Array>>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = getOwnPropertyDescriptor)]
    fn own_descriptor_js(o: &JsValue, key: &JsValue) -> Caught<Option<JsValue>>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = getPrototypeOf)]
    fn prototype_of_js(o: &JsValue) -> Caught<Option<JsValue>>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = assign)]
    fn assign_js(target: &JsValue, source: &JsValue) -> Caught<Option<JsValue>>;
    #[wasm_bindgen(catch, js_namespace = Array, js_name = from)]
    fn array_from_js(v: &JsValue) -> Caught<Option<Array>>;
    #[wasm_bindgen(catch, js_namespace = ["Object", "prototype", "toString"], js_name = call)]
    fn tag_js(o: &JsValue) -> Caught<Option<JsString>>;
    #[wasm_bindgen(catch, js_namespace = ["String", "prototype", "valueOf"], js_name = call)]
    fn string_data_js(o: &JsValue) -> Caught<Option<JsString>>;
}

thread_local! {
    /// `(element) => Reflect.apply(...element)`, of builtins only.
    static APPLIER: Function = REFLECT_APPLY.with(|apply| bind2(apply, &JsValue::UNDEFINED, apply, &JsValue::UNDEFINED));
    /// `(element) => Reflect.get(...element)`, of builtins only.
    static GETTER: Function = REFLECT_APPLY.with(|apply| REFLECT_GET.with(|get| bind2(apply, &JsValue::UNDEFINED, get, &JsValue::UNDEFINED)));
}

/// A fresh array of `items`, made with `new Array()` and `push`: not with `Array::of*`, whose
/// `Array.of(...)` takes about 1.4 us in V8 (Node 20, Chromium), 50 times an empty `new Array()`
/// and a few pushes; every guarded read here makes two.
pub(crate) fn list(items: &[&JsValue]) -> Array {
    let list = Array::new();
    for item in items {
        list.push(item);
    }
    list
}

/// What `via` (a bound `Reflect.apply`) gives for the one element `args`, `null` and `undefined`
/// told apart, or what it threw.
fn one(via: &'static std::thread::LocalKey<Function>, args: &Array) -> Caught<JsValue> {
    let out = via.with(|via| map_js(&list(&[args]), via))?;
    Ok(out.map_or(JsValue::UNDEFINED, |out| out.get(0)))
}

/// `f.apply(this, args)` (`f` any value: one that is not a function throws a TypeError).
pub(crate) fn apply(f: &JsValue, this: &JsValue, args: &Array) -> Caught<JsValue> {
    one(&APPLIER, &list(&[f, this, args]))
}

/// `f.call(this)`.
pub(crate) fn call0(f: &Function, this: &JsValue) -> Caught<JsValue> {
    apply(f, this, &Array::new())
}

/// `f.call(this, a)`.
pub(crate) fn call1(f: &Function, this: &JsValue, a: &JsValue) -> Caught<JsValue> {
    apply(f, this, &list(&[a]))
}

/// `f.call(this, a, b)`.
pub(crate) fn call2(f: &Function, this: &JsValue, a: &JsValue, b: &JsValue) -> Caught<JsValue> {
    apply(f, this, &list(&[a, b]))
}

/// `f.call(this, a, b, c)`.
#[cfg(feature = "client")]
pub(crate) fn call3(f: &Function, this: &JsValue, a: &JsValue, b: &JsValue, c: &JsValue) -> Caught<JsValue> {
    apply(f, this, &list(&[a, b, c]))
}

/// `Reflect.get(o, key)`: what a getter or a Proxy's trap threw, and a TypeError for `o` not an
/// object (a string, `undefined`).
pub(crate) fn get(o: &JsValue, key: &JsValue) -> Caught<JsValue> {
    one(&GETTER, &list(&[o, key]))
}

/// [`get`] where `null` and `undefined` mean the same (no object, no `toJSON`): `None` for
/// both. Without [`get`]'s wrapping array: the object API reads each tool's fields this way.
pub(crate) fn get_some(o: &JsValue, key: &JsValue) -> Caught<Option<JsValue>> {
    get_js(o, key)
}

/// `Reflect.get(o, i)`, `null` and `undefined` alike ([`get_some`]).
pub(crate) fn get_index_some(o: &JsValue, i: u32) -> Caught<Option<JsValue>> {
    get_index_js(o, i)
}

/// `Reflect.construct(ctor, args)` (`new URL(text)` throws on text that is no URL).
pub(crate) fn construct(ctor: &JsValue, args: &Array) -> Caught<Object> {
    Ok(construct_js(ctor, args)?.unwrap_or_default())
}

/// `JSON.stringify(v)`; `None` where it gives `undefined` (a function, a symbol, `undefined`).
pub(crate) fn stringify(v: &JsValue) -> Caught<Option<JsString>> {
    stringify_js(v)
}

/// `JSON.parse(text)` (which never gives `undefined`: `None` is `null`).
pub(crate) fn parse(text: &str) -> Caught<JsValue> {
    Ok(parse_js(text)?.unwrap_or(JsValue::NULL))
}

/// `Object.entries(o)`: fresh `[key, value]` arrays.
pub(crate) fn entries(o: &JsValue) -> Caught<Array> {
    Ok(entries_js(o)?.unwrap_or_default())
}

/// `Object.fromEntries(entries)`: a fresh plain object of those data properties.
pub(crate) fn from_entries(entries: &Array) -> Caught<Object> {
    Ok(from_entries_js(entries)?.unwrap_or_default())
}

/// `Object.keys(o)`.
pub(crate) fn keys(o: &JsValue) -> Caught<Array> {
    Ok(keys_js(o)?.unwrap_or_default())
}

/// `Object.getOwnPropertyNames(o)`.
pub(crate) fn own_names(o: &JsValue) -> Caught<Array> {
    Ok(own_names_js(o)?.unwrap_or_default())
}

/// `Reflect.ownKeys(o)`: every own key, strings and symbols, enumerable or not.
pub(crate) fn own_keys(o: &JsValue) -> Caught<Array> {
    Ok(own_keys_js(o)?.unwrap_or_default())
}

/// `Object.getOwnPropertyDescriptor(o, key)` (`undefined` for a key `o` has not as its own).
pub(crate) fn own_descriptor(o: &JsValue, key: &JsValue) -> Caught<JsValue> {
    Ok(own_descriptor_js(o, key)?.unwrap_or(JsValue::UNDEFINED))
}

/// `Object.getPrototypeOf(o)` (`null` at the end of the chain).
pub(crate) fn prototype_of(o: &JsValue) -> Caught<JsValue> {
    Ok(prototype_of_js(o)?.unwrap_or(JsValue::NULL))
}

/// `Object.assign(target, source)`: `target`.
pub(crate) fn assign(target: &JsValue, source: &JsValue) -> Caught<JsValue> {
    Ok(assign_js(target, source)?.unwrap_or_else(|| target.clone()))
}

/// `Array.from(v)`.
pub(crate) fn array_from(v: &JsValue) -> Caught<Array> {
    Ok(array_from_js(v)?.unwrap_or_default())
}

/// `Object.prototype.toString.call(o)`: `[object Number]` for a boxed Number of any realm (the
/// class its internal slot gives, unless a `Symbol.toStringTag` names another), `[object Object]`
/// for a plain object; or what a getter of that tag or a Proxy's trap threw.
pub(crate) fn tag(o: &JsValue) -> Caught<Option<JsString>> {
    tag_js(o)
}

/// `String.prototype.valueOf.call(o)`: the string a boxed String holds; it throws for anything else.
pub(crate) fn string_data(o: &JsValue) -> Caught<Option<JsString>> {
    string_data_js(o)
}
