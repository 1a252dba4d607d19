// The demo page. Plain ES module, no build step: it imports the package's browser build, which
// `make demo` copies into www-demo/pkg/ (git-ignored), and uses only toolwire's public API.
import {
  initAsync,
  version,
  convertMcpTools,
  checkTools,
  NameMap,
  McpClient,
  flattenContent,
  toolResultMessage,
} from "./pkg/web.mjs";

const $ = (id) => document.getElementById(id);

/**
 * Characters that show nothing themselves but change what is shown: bidi controls (U+202E would show
 * "evil\u202Etxt.exe" as "evilexe.txt", and run on over the page's own words after it), other format characters
 * (zero-width spaces and joiners, U+FEFF, the soft hyphen, and the tag characters U+E0020-E007F, which spell text a
 * model reads and a person does not see), control characters but tab, line feed and carriage return, and line and
 * paragraph separators: Unicode's categories Cf, Cc, Zl and Zp. With them every other character Unicode says to
 * show as nothing (Default_Ignorable_Code_Point: the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the combining
 * grapheme joiner U+034F, the Khmer inherent vowels U+17B4-17B5...), and so the variation selectors that carry
 * bytes, which hide text as the tag characters do (one byte a selector, after an emoji): U+E0100-E01EF always, and
 * U+FE00-FE0F and the Mongolian ones (U+180B-180D, U+180F) when they follow nothing they could vary (the start of
 * the text, a space or line break, another variation selector, or a character escaped here). A single one after a
 * character is kept, as an emoji's U+FE0F is, so that emoji still look as they should:
 * it hides one byte at most, beside a character that is seen. Every text of a server's (and the page's own) is
 * shown with them as visible escapes, \u202E, one past U+FFFF as its two UTF-16 halves (\uDB40\uDC41 for U+E0041):
 * in JSON an escape means the same string, so JSON shown that way is still the same JSON.
 */
const HIDDEN = String.raw`\p{Cf}\p{Cc}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}`;
const SELECTORS = String.raw`\uFE00-\uFE0F\u180B-\u180D\u180F`;
const INVISIBLE = new RegExp(String.raw`(?![\t\n\r${SELECTORS}])[${HIDDEN}]|(?<![^\s\p{Variation_Selector}${HIDDEN}])[${SELECTORS}]`, "gu");
const escapeUnit = (unit) => `\\u${unit.toString(16).toUpperCase().padStart(4, "0")}`;
const visible = (text) => String(text).replace(INVISIBLE, (c) => c.split("").map((u) => escapeUnit(u.charCodeAt(0))).join(""));

/** A text cut to `max` characters (an option's or a status line's: a server's name may be megabytes long). */
const clip = (text, max = 200) => {
  const t = String(text);
  return t.length > max ? `${t.slice(0, max)}… (${(t.length - max).toLocaleString("en")} more characters)` : t;
};

/**
 * How much of an output an output box shows (its Copy button copies all of it): laying out megabytes of text holds
 * the page for seconds.
 */
const SHOW_MAX = 100_000;
function showText(id, text) {
  const t = String(text);
  $(id).textContent =
    t.length > SHOW_MAX ? `${visible(t.slice(0, SHOW_MAX))}\n… (${(t.length - SHOW_MAX).toLocaleString("en")} more characters not shown: Copy copies all of it)` : visible(t);
}

/** Sets an own property, even one named __proto__ (which `o[k] = v` would take as the object's prototype). */
const put = (o, k, v) => Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });

/** Creates an element: el("td", {class: "path"}, child, "text", ...). Text is shown with its invisible characters visible. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) node.append(typeof c === "string" ? visible(c) : c);
  return node;
}

/**
 * Server requests: an elicitation in form mode becomes a form; anything else is not something this page does. The
 * page declares URL mode too (`elicitation: {form: {}, url: {}}`), so that a URL-mode question (a page to open)
 * reaches it rather than being answered -32602 by McpClient unseen: it is declined at once, and the status says so.
 * The page never answers a question it did not show without saying so.
 */
function onRequest({ method, params }, context) {
  if (method !== "elicitation/create") throw Object.assign(new Error(`Method not found: ${method}`), { code: -32601 });
  const mode = params?.mode ?? "form";
  if (mode !== "form") {
    let what = `a question of mode ${clip(JSON.stringify(mode), 60)}`;
    if (mode === "url") {
      let host = "(not a URL)";
      try {
        host = new URL(params.url).host || host;
      } catch {
        // said as it is
      }
      what = `to open a page on ${clip(host, 100)} (a URL-mode question)`;
    }
    setStatus("elicit-status", `The server asked ${what}, which this page does not do: it declined, showing nothing.`);
    return { action: "decline" };
  }
  return askUser(params, context?.signal, context?.related);
}

/**
 * Where a question came from: McpClient's onRequest is told the request it came for (`related`: the call whose
 * stream brought it, with its tool), or null for one the server sent on its own (on the standalone stream). The
 * call's timeout stands while the question is open (McpClient does not count the time onRequest takes), so a
 * person may take their time.
 */
const NOT_TIED = "From the server, not tied to a call.";
const NOT_TOLD = "From the server: over the old HTTP+SSE transport, the page cannot tell whether it is for a call.";
function questionSource(related) {
  if (related?.tool) return `For the call of the tool ${related.tool}.`;
  if (related) return `For the ${related.method} request.`;
  return client?.transport === "sse" ? NOT_TOLD : NOT_TIED;
}

let fieldIds = 0; // the question form's fields are numbered: see showQuestion
let questions = Promise.resolve(); // the questions asked so far, answered one after the other
const waiting = new Set(); // the questions not yet shown whose answer is still wanted
let shownRelated = null; // the open form's `related`, for its source line

/** The open form's source line: where its question came from, and how many wait after it (kept up to date). */
function showSource() {
  const more = waiting.size ? ` ${waiting.size} more question${waiting.size === 1 ? "" : "s"} after this one.` : "";
  $("elicit-source").textContent = visible(questionSource(shownRelated) + more);
}

/**
 * One form at a time: a question asked while another is open waits for its turn (answered one after the
 * other, in the order asked), and is shown only if its answer is still wanted then. The open form's count of
 * those waiting follows new questions and withdrawn ones.
 */
function askUser(params, signal, related) {
  if (signal?.aborted) return Promise.resolve({ action: "cancel" }); // withdrawn before it was asked: never counted
  const entry = {};
  waiting.add(entry);
  const withdrawn = () => {
    waiting.delete(entry);
    if ($("elicit").open) showSource();
  };
  signal?.addEventListener("abort", withdrawn, { once: true });
  if ($("elicit").open) showSource();
  const turn = questions.then(() => {
    waiting.delete(entry);
    signal?.removeEventListener("abort", withdrawn);
    if (signal?.aborted) return { action: "cancel" }; // withdrawn while it waited: never shown
    return showQuestion(params, signal, related);
  });
  questions = turn.catch(() => {});
  return turn;
}

/**
 * Shows an elicitation's fields (text, number, checkbox, a list for a choice; defaults filled in, descriptions below) in a dialog: accept (Send),
 * decline or cancel (Cancel, Escape), with where it came from (`related`, see questionSource). When `signal`
 * aborts (the call timed out or was cancelled, or the server withdrew the question), the dialog closes and
 * says so: no answer is wanted any more.
 */
/**
 * The choices of an enum schema, or null: `enum` (with the legacy `enumNames` for their titles), or `oneOf`/`anyOf`
 * of `const`s with titles. For a single choice it is the field's schema, for a multiple one its `items`.
 */
function choicesOf(s) {
  if (!s || typeof s !== "object") return null;
  if (Array.isArray(s.enum)) return s.enum.map((v, i) => ({ value: v, text: String(s.enumNames?.[i] ?? v) }));
  const branch = s.oneOf ?? s.anyOf;
  if (Array.isArray(branch) && branch.length && branch.every((o) => o && typeof o === "object" && o.const !== undefined)) {
    return branch.map((o) => ({ value: o.const, text: String(o.title ?? o.const) }));
  }
  return null;
}

/** Whether a text is a valid calendar date YYYY-MM-DD (RFC 3339 full-date). */
function isDate(text) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = m.slice(1).map(Number);
  const day = new Date(Date.UTC(y, mo - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
}

/**
 * The string formats of an elicitation's requestedSchema (MCP's StringSchema: email, uri, date, date-time): how to
 * check a value, and what to say of one that is not. The answer is checked against them before it is sent (MCP:
 * clients SHOULD validate the content against the schema); a format the page does not know is not checked.
 */
const FORMATS = {
  email: { ok: (v) => /^[^\s@]+@[^\s@]+$/.test(v), expected: "an email address (name@example.com)" },
  uri: {
    // RFC 3986: an absolute URI, its scheme first.
    ok: (v) => {
      if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(v)) return false;
      try {
        return !!new URL(v);
      } catch {
        return false;
      }
    },
    expected: "a URI with its scheme (https://example.com/page)",
  },
  date: { ok: isDate, expected: "a date, YYYY-MM-DD (2025-01-31)" },
  "date-time": {
    // RFC 3339 date-time: a full date, T, the time with seconds, and its offset (Z or ±hh:mm).
    ok: (v) => {
      const m = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(v);
      return !!m && isDate(m[1]) && +m[2] < 24 && +m[3] < 60 && +m[4] <= 60 && (m[7] === undefined || (+m[7] < 24 && +m[8] < 60));
    },
    expected: "a date and time with its offset, RFC 3339 (2025-01-31T09:30:00Z)",
  },
};

/**
 * What is wrong with a text field's value for its schema (minLength, maxLength, format), or "". The browser checks
 * minlength only once the user edits the field: a default left as it is must be checked all the same. Lengths are
 * in characters (code points), as JSON Schema counts them.
 */
function textProblem(value, s) {
  if (value === "") return "";
  const n = [...value].length;
  if (Number.isInteger(s.minLength) && n < s.minLength) return `At least ${s.minLength} characters (${n} now).`;
  if (Number.isInteger(s.maxLength) && n > s.maxLength) return `At most ${s.maxLength} character${s.maxLength === 1 ? "" : "s"} (${n} now).`;
  const format = typeof s.format === "string" ? FORMATS[s.format] : undefined;
  if (format && !format.ok(value)) return `Expected ${format.expected}.`;
  return "";
}

/**
 * One field of a question: its row and how to read its answer (`read()`: the value, or undefined to leave the field
 * out). The kinds are those of a 2025-11-25 requestedSchema: text, number or integer, boolean, a single choice (a
 * list) and a multiple one (type array of an enum: checkboxes, the answer an array). Any other schema is a field the
 * page cannot show: said in the form; when it is required, Send is off (the question can be declined or cancelled).
 */
function questionField(name, s, required) {
  const id = `elicit-field-${++fieldIds}`;
  const title = s && typeof s === "object" && s.title !== undefined ? String(s.title) : name;
  const hintId = s?.description !== undefined ? `${id}-hint` : undefined;
  const hint = hintId ? el("p", { id: hintId, class: "hint" }, String(s.description)) : null;
  const must = required.has(name);
  const mark = (on) => (on ? el("span", { class: "required", "aria-hidden": "true" }, " *") : null);
  const type = s?.type;
  const choices = type === "array" ? null : choicesOf(s);
  const multi = type === "array" ? choicesOf(s.items) : null;
  if (!s || typeof s !== "object" || (!choices && !multi && !["string", "number", "integer", "boolean", undefined].includes(type))) {
    const what = s && typeof s === "object" ? `a ${type === "array" ? "list" : `field of type ${clip(JSON.stringify(type) ?? "?", 40)}`}` : "a field with no schema";
    const note = must ? "which this page cannot show, and the question needs it: it can only be declined or cancelled" : "which this page cannot show: it is left out of the answer";
    return { name, unsupported: must, read: () => undefined, row: el("div", { class: "field" }, el("p", { class: "unsupported" }, el("strong", {}, title), mark(must), `: ${what}, ${note}.`), hint) };
  }
  if (multi) {
    // A group of checkboxes: at least minItems (1 when required), at most maxItems.
    const min = Math.max(must ? 1 : 0, Number.isInteger(s.minItems) ? s.minItems : 0);
    const max = Number.isInteger(s.maxItems) ? s.maxItems : Infinity;
    const chosen = Array.isArray(s.default) ? s.default : [];
    const boxes = multi.map((c, i) => {
      const box = el("input", { type: "checkbox", id: `${id}-${i}` });
      box.checked = chosen.includes(c.value);
      return el("div", { class: "check" }, box, el("label", { for: `${id}-${i}` }, c.text));
    });
    const inputs = () => [...group.querySelectorAll("input")];
    const group = el("fieldset", { class: "field choices", "data-field": name, "aria-describedby": hintId }, el("legend", {}, title, mark(min > 0)), boxes, hint);
    return {
      name,
      group,
      // The count is checked on Send: its message is set on the first box, which the browser points to.
      check() {
        const n = inputs().filter((b) => b.checked).length;
        const message = n < min ? `Choose at least ${min}.` : n > max ? `Choose at most ${max}.` : "";
        inputs()[0]?.setCustomValidity(message);
      },
      read: () => multi.filter((_c, i) => inputs()[i].checked).map((c) => c.value),
      row: group,
    };
  }
  let input;
  let read;
  if (choices) {
    // Not required: an empty choice leaves the field out of the answer.
    const blank = must ? [] : [el("option", { value: "" }, "(none)")];
    input = el("select", { id, required: must, "data-field": name, "aria-describedby": hintId }, blank, choices.map((c, i) => el("option", { value: String(i) }, clip(c.text))));
    const at = choices.findIndex((c) => c.value === s.default);
    input.value = at >= 0 ? String(at) : must ? "0" : "";
    read = () => (input.value === "" ? undefined : choices[Number(input.value)].value);
  } else if (type === "boolean") {
    input = el("input", { id, type: "checkbox", "data-field": name, "aria-describedby": hintId });
    input.checked = s.default === true;
    read = () => input.checked;
  } else {
    // A number takes decimals, an integer whole numbers only.
    const numeric = type === "number" || type === "integer";
    input = el("input", { id, type: numeric ? "number" : "text", required: must, "data-field": name, "aria-describedby": hintId });
    if (numeric) {
      input.step = type === "integer" ? "1" : "any";
      if (typeof s.minimum === "number") input.min = String(s.minimum);
      if (typeof s.maximum === "number") input.max = String(s.maximum);
    } else {
      if (Number.isInteger(s.minLength)) input.minLength = s.minLength;
      if (Number.isInteger(s.maxLength)) input.maxLength = s.maxLength;
    }
    if (typeof s.default === "string" || typeof s.default === "number") input.value = String(s.default);
    read = () => (input.value === "" ? undefined : numeric ? Number(input.value) : input.value);
  }
  const checkbox = type === "boolean";
  const label = el("label", { for: id }, title, mark(must && !checkbox));
  const parts = checkbox ? [input, label] : [label, input];
  // A text field's value is checked against its schema on Send (see textProblem), and again as it is edited once
  // found wrong: the message is the field's own (the browser's bubble points to it), and said below it.
  const text = !choices && !checkbox && type !== "number" && type !== "integer";
  const problem = text ? el("p", { id: `${id}-problem`, class: "field-problem", hidden: true }) : null;
  if (text && FORMATS[s.format]) input.placeholder = FORMATS[s.format].expected.replace(/^.*\((.*)\)$/, "$1");
  const check = () => {
    const message = textProblem(input.value, s);
    input.setCustomValidity(message);
    problem.textContent = message;
    problem.hidden = message === "";
    if (message) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    input.setAttribute("aria-describedby", [hintId, message ? problem.id : undefined].filter(Boolean).join(" "));
    if (!input.getAttribute("aria-describedby")) input.removeAttribute("aria-describedby");
  };
  if (text) input.addEventListener("input", () => problem.hidden || check());
  return {
    name,
    input,
    read,
    check: text ? check : undefined,
    row: checkbox && hint ? el("div", { class: "field" }, el("div", { class: "check" }, parts), hint) : el("div", { class: checkbox ? "field check" : "field" }, parts, problem, hint),
  };
}

/**
 * Shows an elicitation's fields (see questionField; defaults filled in, descriptions below) in a dialog: accept
 * (Send), decline or cancel (Cancel, Escape), with where it came from (`related`, see questionSource). When `signal`
 * aborts (the call timed out or was cancelled, or the server withdrew the question), the dialog closes and says so:
 * no answer is wanted any more.
 */
function showQuestion({ message, requestedSchema } = {}, signal, related) {
  const required = new Set(Array.isArray(requestedSchema?.required) ? requestedSchema.required : []);
  const properties = requestedSchema?.properties && typeof requestedSchema.properties === "object" ? requestedSchema.properties : {};
  // A field's id is a counter's, never its name: a field named accept, title or message would take the id of the
  // dialog's own button or text (and the Send button's handler would go to the field). data-field names it.
  const fields = Object.entries(properties).map(([name, s]) => questionField(name, s, required));
  const answerable = !fields.some((f) => f.unsupported);
  // Named as the connect status names it: the dialog's title is its accessible name.
  const tool = related?.tool;
  $("elicit-title").textContent = visible(`${connected?.title ?? "The server"} asks`);
  shownRelated = related;
  showSource();
  $("elicit-message").textContent = visible(message ?? "");
  $("elicit-fields").replaceChildren(...fields.map((f) => f.row));
  $("elicit-required").hidden = !$("elicit-fields").querySelector(".required");
  $("elicit-accept").disabled = !answerable;
  setStatus("elicit-status", "");
  const dialog = $("elicit");
  return new Promise((resolve) => {
    const before = document.activeElement;
    let settled = false;
    const done = (action) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", withdrawn);
      dialog.close();
      // The dialog gives the focus back to what had it; if that is gone or cannot take it, to the call button.
      if (document.activeElement === document.body || !document.activeElement) (before?.isConnected ? before : $("call-btn")).focus();
      if (action !== "accept") return resolve({ action });
      // put: a field named __proto__ is a field like any other.
      const content = {};
      for (const f of fields) {
        const value = f.read();
        if (value !== undefined) put(content, f.name, value);
      }
      resolve({ action: "accept", content });
    };
    // Nobody waits for the answer any more: close the form, and say why (the call's own error follows).
    const withdrawn = () => {
      const asker = tool ? `The server's question (for the call of ${tool})` : "The server's question";
      setStatus("elicit-status", `${asker} was withdrawn: the server no longer waits for an answer (the call ended, timed out or was cancelled). The form was closed.`);
      done("cancel");
    };
    $("elicit-accept").onclick = (e) => {
      e.preventDefault();
      if (!answerable) return;
      for (const f of fields) f.check?.();
      if ($("elicit-form").reportValidity()) done("accept");
    };
    $("elicit-decline").onclick = () => done("decline");
    $("elicit-cancel").onclick = () => done("cancel");
    dialog.oncancel = (e) => {
      e.preventDefault();
      done("cancel");
    };
    if (signal?.aborted) return withdrawn();
    signal?.addEventListener("abort", withdrawn, { once: true });
    dialog.showModal();
  });
}

/** Base64 of bytes (a Bedrock result's image and document bytes). */
function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/**
 * JSON text of a value, its invisible characters escaped (the same JSON: see INVISIBLE). Bytes (Bedrock's
 * `source.bytes`, a Uint8Array for the AWS SDK) are written as base64, as the Converse API's JSON body carries them,
 * so what Copy gives is a message that API takes.
 */
const json = (value) => visible(JSON.stringify(value, (_k, v) => (v instanceof Uint8Array ? base64(v) : v), 2));

// What each Copy button copies.
const copyText = { tools: "", report: "", names: "", raw: "", flat: "", message: "" };

// ---------------------------------------------------------------------------------------------
// Errors: one box per panel, role="alert", with the ToolwireError code, message and what helps.

const HINTS = {
  // The message says what fetch said, and what a server used from a browser needs (CORS).
  NETWORK: "Check the URL, and that the server is running.",
  TIMEOUT: "The server did not answer in time. Raise the timeout, or try again.",
  INVALID_JSON: "Fix the JSON and try again.",
  INVALID_ARGUMENTS: "A tool's arguments are one JSON object, {\"name\": value, …}: fix them and try again.",
  JSONRPC_ERROR: "The server refused the request (often: arguments that do not match the tool's input schema).",
};

/** What helps with an error: by its code, and for UNAUTHORIZED by how the server wants credentials. */
function hintFor(err) {
  if (typeof err?.hint === "string") return err.hint;
  if (err?.code !== "UNAUTHORIZED") return HINTS[err?.code];
  if (err.oauthStep) {
    if (err.oauthError === "access_denied") return "Signing in was denied. Connect again to sign in again.";
    if (err.oauthStep === "authorization") return "Signing in did not finish (the sign-in window was closed or blocked). Connect again to sign in again.";
    return `Signing in failed at its ${err.oauthStep} step (see the details). Connect again to try again.`;
  }
  // A challenge naming resource_metadata: the server signs in with OAuth, not with a typed header.
  if (err.challenge?.resource_metadata) {
    return $("mcp-oauth").checked
      ? "The server did not take the token signing in gave. Connect again to sign in again."
      : "This server signs in with OAuth (its challenge names its resource_metadata): tick “Sign in with OAuth” and connect again.";
  }
  const auth = $("mcp-auth").value.trim();
  // One word: a token without its scheme, or a scheme without its token (schemes are case-insensitive).
  const scheme = typeof err.challenge?.scheme === "string" && err.challenge.scheme ? err.challenge.scheme : "Bearer";
  if (auth && !/\s/.test(auth)) {
    if (auth.toLowerCase() === scheme.toLowerCase() || /^(bearer|basic|digest|dpop)$/i.test(auth)) {
      return `The Authorization header holds only its scheme, ${auth}: put the token after it (${auth} <token>).`;
    }
    return `An Authorization header starts with its scheme: ${scheme} ${auth}`;
  }
  if (auth) return "The server refused these credentials: check the Authorization header field.";
  return "The server wants credentials: put them in the Authorization header field (e.g. Bearer <token>).";
}

function showError(boxId, err) {
  const box = $(boxId);
  const code = err?.code ?? err?.name ?? "ERROR";
  // The same error again (a conversion repeated) is left as it is: a rewritten alert is announced again.
  const key = `${code}\n${err?.message}`;
  if (!box.hidden && box.dataset.shown === key) return;
  box.dataset.shown = key;
  const parts = [el("strong", { class: "code" }, code), ": ", el("span", {}, err?.message ?? String(err))];
  const hint = hintFor(err);
  if (hint) parts.push(el("p", {}, hint));
  // Each <pre> is a named region (a plain <pre> may not carry a name), named by the line before it.
  const block = (name, label, text) => [el("p", { id: `${boxId}-${name}` }, label), el("pre", { role: "region", "aria-labelledby": `${boxId}-${name}`, tabindex: "0" }, text)];
  if (err?.challenge) parts.push(...block("challenge", "WWW-Authenticate challenge:", json(err.challenge)));
  const details = {};
  for (const key of ["status", "rpcCode", "tool", "path", "data", "bodyPreview"]) {
    if (err?.[key] !== undefined) details[key] = err[key];
  }
  if (Object.keys(details).length) parts.push(...block("details", "Error details:", json(details)));
  box.replaceChildren(...parts);
  box.hidden = false;
}

function clearError(boxId) {
  $(boxId).hidden = true;
  $(boxId).replaceChildren();
}

const statusSaid = {}; // what each status line says, as given to setStatus (shown with visible())

function setStatus(id, text, ok = false) {
  statusSaid[id] = text;
  $(id).textContent = visible(text);
  $(id).classList.toggle("ok", ok);
}

// ---------------------------------------------------------------------------------------------
// Convert panel.

const SAMPLE_SERVER = { filesystem: "filesystem", github: "github", mongodb: "mongodb", airtable: "airtable", notion: "notion" };
let serverTools = null; // the tools of the connected server, when the Convert panel shows them
let loaded = null; // {server, names}: the sample (or server) whose tools were put in the field, and the server name it set

function remember(tools, server = $("server-name").value) {
  loaded = { server, names: new Set(tools.map((t) => t?.name)) };
}

function parseTools(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw Object.assign(new Error(`The tools are not valid JSON: ${e.message}`), { code: "INVALID_JSON" });
  }
  const tools = Array.isArray(doc) ? doc : Array.isArray(doc?.tools) ? doc.tools : Array.isArray(doc?.result?.tools) ? doc.result.tools : null;
  // A JSON-RPC error response (the server failed to list its tools): its code and message are what to say.
  const error = !tools && doc && typeof doc === "object" ? doc.error : undefined;
  if (error && typeof error === "object" && !Array.isArray(error)) {
    const code = typeof error.code === "number" ? ` ${error.code}` : "";
    const message = typeof error.message === "string" ? clip(error.message, 2000) : "(no message)";
    throw Object.assign(new Error(`The pasted response is the server's JSON-RPC error${code}: ${message}`), {
      code: "JSONRPC_ERROR",
      rpcCode: error.code,
      data: error.data,
      hint: "The server failed to list its tools: there are no tools in this response to convert.",
    });
  }
  if (!tools) {
    throw Object.assign(new Error('Expected a tools array, {"tools": [...]} or a tools/list response ({"result": {"tools": [...]}})'), {
      code: "INVALID_INPUT",
    });
  }
  return tools;
}

function convertOptions() {
  const options = { naming: $("naming").value, geminiMode: $("gemini-mode").value };
  if ($("strict").checked) options.strict = true;
  const server = $("server-name").value.trim();
  if (server) options.server = server;
  return options;
}

function count(report, key) {
  return report.tools.reduce((n, t) => n + t[key].length, 0);
}

/** A path or rule that may wrap after each "/" (and only there, unless a part alone is too wide). */
function breakable(text) {
  return text.split(/(?<=\/)/).flatMap((part, i) => (i === 0 ? [part] : [el("wbr"), part]));
}

/**
 * How much of the report is laid out at once. A pasted listing may be hundreds of tools (ms-365-mcp-server's 344 are
 * some 27,500 changes for Gemini): every row laid out held the page for seconds after each pause in typing. The
 * summary counts them all, and Copy JSON copies them all; on the page a tool's rows are laid out only once its entry
 * is open, REPORT_ROWS at a time (a button shows more), the entries REPORT_TOOLS at a time, and at most REPORT_OPEN
 * of them open at first.
 */
const REPORT_ROWS = 50;
const REPORT_TOOLS = 100;
const REPORT_OPEN = 10;

/** A button after a list shown in part: each click shows the next `step` (see showMore). */
function moreButton(left, step, what, onClick) {
  const label = (n) => `Show ${Math.min(n, step).toLocaleString("en")} more ${what} (${n.toLocaleString("en")} not shown)`;
  const button = el("button", { type: "button", class: "secondary more" }, label(left));
  button.addEventListener("click", () => onClick(button, label));
  return button;
}

/**
 * Lays out `items` (made by `make`) in `parent` `step` at a time: the first `step` now, then a "Show more" button
 * that adds the next ones before itself. When the last are shown the button goes, and the focus it had goes to
 * `home` (a keyboard user is not dropped to the top of the page).
 */
function showMore(parent, items, step, what, make, home) {
  let shown = Math.min(step, items.length);
  parent.append(...items.slice(0, shown).map(make));
  if (shown === items.length) return null;
  return moreButton(items.length - shown, step, what, (button, label) => {
    const next = items.slice(shown, shown + step);
    shown += next.length;
    parent.append(...next.map(make));
    const left = items.length - shown;
    if (left > 0) return void (button.textContent = label(left));
    const focus = document.activeElement === button;
    button.remove();
    if (focus) home.focus();
  });
}

function diagnosticRow({ kind, d }) {
  return el(
    "tr",
    { class: kind },
    el("td", {}, kind),
    el("td", { class: "path" }, el("code", {}, d.path === "" ? "(root)" : breakable(d.path))),
    el("td", { class: "rule" }, el("code", {}, breakable(d.rule))),
    el("td", {}, d.message),
  );
}

/** The table of a tool's (or the whole set's) problems then changes, REPORT_ROWS rows at a time. */
function diagnosticTable(changes, problems) {
  const rows = [...problems.map((d) => ({ kind: "problem", d })), ...changes.map((d) => ({ kind: "change", d }))];
  const body = el("tbody", {});
  const table = el(
    "table",
    {},
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Kind"), el("th", { scope: "col" }, "Path"), el("th", { scope: "col" }, "Rule"), el("th", { scope: "col" }, "Message"))),
    body,
  );
  const more = showMore(body, rows, REPORT_ROWS, "rows", diagnosticRow, $("out-report"));
  return more ? [table, el("p", { class: "more" }, more)] : [table];
}

/** A report entry whose content is made only once it is opened (a closed one costs its summary alone). */
function lazyDetails(attrs, summary, content) {
  const details = el("details", attrs, summary);
  if (attrs.open) details.append(...content());
  else details.addEventListener("toggle", () => details.open && details.childElementCount === 1 && details.append(...content()));
  return details;
}

function renderReport(report, strictRequested) {
  const nChanges = count(report, "changes");
  const nProblems = count(report, "problems") + report.problems.length;
  const plural = (n, word) => `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;
  const items = [
    el("p", { class: "summary" }, `${report.provider}: ${plural(report.tools.length, "tool")}, ${plural(nChanges, "change")}, ${plural(nProblems, "problem")}`),
  ];
  if (report.problems.length) {
    items.push(el("details", { open: true }, el("summary", {}, el("strong", {}, "The whole set"), el("span", { class: "badge problem" }, plural(report.problems.length, "problem"))), diagnosticTable([], report.problems)));
  }
  const anyProblem = report.tools.some((t) => t.problems.length);
  let opened = 0;
  const entry = (t, i) => {
    const badges = [];
    if (strictRequested && t.strict !== undefined) {
      badges.push(el("span", { class: t.strict ? "badge ok" : "badge problem" }, t.strict ? "strict" : "not strict"));
    }
    badges.push(el("span", { class: "badge" }, plural(t.changes.length, "change")));
    if (t.problems.length) badges.push(el("span", { class: "badge problem" }, plural(t.problems.length, "problem")));
    const open = (t.problems.length > 0 || (!anyProblem && i === 0)) && opened++ < REPORT_OPEN;
    return lazyDetails(
      { open, "data-tool": t.tool },
      el("summary", {}, el("code", {}, t.tool), el("span", { class: "arrow", "aria-hidden": "true" }, "→"), el("code", {}, t.name), badges),
      () => (t.changes.length || t.problems.length ? diagnosticTable(t.changes, t.problems) : [el("p", { class: "none" }, "Accepted as it is: nothing changed.")]),
    );
  };
  const withProblems = report.tools.filter((t) => t.problems.length).length;
  if (withProblems > REPORT_OPEN || report.tools.length > REPORT_TOOLS) {
    const open = withProblems > REPORT_OPEN ? ` The first ${REPORT_OPEN} of the ${withProblems.toLocaleString("en")} tools with problems are open; open another to see its rows.` : "";
    items.push(el("p", { class: "hint" }, `A big report: it is laid out in parts (rows ${REPORT_ROWS} at a time, tools ${REPORT_TOOLS} at a time).${open} Copy JSON copies all of it.`));
  }
  const list = el("div", {});
  const more = showMore(list, report.tools.map((t, i) => [t, i]), REPORT_TOOLS, "tools", ([t, i]) => entry(t, i), $("out-report"));
  items.push(list);
  if (more) items.push(el("p", { class: "more" }, more));
  $("out-report").replaceChildren(...items);
}

/** The name map's rows laid out at once (a button shows more): see REPORT_ROWS. */
const NAME_ROWS = 200;

function renderNames(nameMap) {
  const row = (e) =>
    // A provider name may wrap after each "__" (and inside a part only when the part alone is too wide).
    el("tr", {}, el("td", {}, el("code", {}, e.name.split(/(?<=__)/).flatMap((part, i) => (i === 0 ? [part] : [el("wbr"), part])))), el("td", {}, e.server === null ? el("span", { class: "hint" }, "(none)") : e.server), el("td", {}, e.tool));
  const body = el("tbody", {});
  const more = showMore(body, nameMap.entries, NAME_ROWS, "names", row, $("out-names"));
  $("out-names").replaceChildren(
    el("table", {}, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Provider name"), el("th", { scope: "col" }, "Server"), el("th", { scope: "col" }, "Tool"))), body),
    ...(more ? [el("p", { class: "more" }, more)] : []),
  );
}

/**
 * The tools that convert (`fit`), converted, and an error naming those the library refuses (a schema past its limits,
 * a tool it cannot read), or null: converting the set would throw the first one's error for all of them. They are
 * left out, as McpHub leaves them out, and the others converted; the report, made of the whole set, says what each
 * refused one meets. An error that is no one tool's (the set's as a whole, the options') is thrown.
 */
function convertible(tools, provider, options) {
  try {
    return { fit: tools, refused: null, converted: convertMcpTools(tools, provider, options) };
  } catch (err) {
    const converts = (t) => {
      try {
        convertMcpTools([t], provider, options);
        return true;
      } catch {
        return false;
      }
    };
    const fit = tools.filter(converts);
    if (fit.length === tools.length) throw err;
    const left = tools.flatMap((t, i) => (fit.includes(t) ? [] : [typeof t?.name === "string" ? t.name : `the tool at index ${i}`]));
    const rest =
      fit.length === 0
        ? "No other tool is left to convert"
        : `${fit.length === 1 ? "The other tool is" : `The other ${fit.length.toLocaleString("en")} tools are`} converted, as McpHub converts them`;
    const refused = {
      code: err.code,
      message: `Left out of the provider tools and the name map: ${someNames(left)}, which the library refuses (${err.message}). ${rest}; the report says what each left out meets.`,
    };
    if (err.tool !== undefined) refused.tool = err.tool;
    if (err.path !== undefined) refused.path = err.path;
    return { fit, refused, converted: convertMcpTools(fit, provider, options) };
  }
}

function clearConvertOutputs() {
  shownKey = null;
  shownRefused = null;
  $("out-tools").textContent = "";
  $("out-report").replaceChildren();
  $("out-names").replaceChildren();
  copyText.tools = copyText.report = copyText.names = "";
}

/**
 * Converts the tools as they stand. `typing`: the text is being typed, and an error (half-typed JSON is
 * invalid most of the time) is shown only once the text settles (ERROR_SETTLE_MS without a keystroke) or
 * the field is left, not at every pause: the error box is an alert, announced each time it is shown.
 */
function convert({ typing = false } = {}) {
  try {
    convertNow(typing);
  } finally {
    if (lastCall) renderCall(); // the tool-result message follows the provider, whatever the tools field holds
  }
}

function convertNow(typing) {
  clearTimeout(errorSoon);
  errorSoon = undefined;
  if (!typing) clearError("convert-error");
  const provider = $("provider").value;
  $("tools-heading").textContent = `Provider tools: ${provider}`;
  let tools;
  try {
    tools = parseTools($("tools-input").value);
  } catch (err) {
    clearConvertOutputs();
    reportConvertError(err, typing);
    return;
  }
  // Tools of one's own in place of a sample's (none of its names left): the sample's server name, still as it
  // set it, is not theirs.
  if (loaded && $("server-name").value === loaded.server && tools.length > 0 && !tools.some((t) => loaded.names.has(t?.name))) {
    $("server-name").value = "";
    loaded = null;
  }
  const options = convertOptions();
  // The same tools with the same options (a space typed between two tokens, a sample chosen again): what is shown
  // is already theirs, and converting and laying out a big listing again would hold the page for nothing.
  const key = JSON.stringify([tools, provider, options]);
  if (key === shownKey) {
    if (shownRefused) reportConvertError(shownRefused, typing);
    else clearError("convert-error");
    return;
  }
  const started = performance.now();
  try {
    const report = checkTools(tools, provider, options);
    renderReport(report, options.strict === true);
    copyText.report = json(report);

    const { fit, refused, converted } = convertible(tools, provider, options);
    const names = NameMap.fromTools(fit, provider, options);
    const nameJson = names.toJSON();
    names.free();
    renderNames(nameJson);
    copyText.names = json(nameJson);

    copyText.tools = json(converted);
    showText("out-tools", copyText.tools);
    shownKey = key;
    shownRefused = refused;
    if (refused) reportConvertError(refused, typing);
    else clearError("convert-error");
  } catch (err) {
    clearConvertOutputs();
    reportConvertError(err, typing);
  } finally {
    lastConvertMs = performance.now() - started;
  }
}

const ERROR_SETTLE_MS = 1250; // after the 250 ms debounce: 1.5 s after the last keystroke
let errorSoon; // the timer of an error held back while typing
let showHeldError = () => {};

function reportConvertError(err, typing) {
  if (!typing) return showError("convert-error", err);
  showHeldError = () => {
    clearTimeout(errorSoon);
    errorSoon = undefined;
    showError("convert-error", err);
  };
  errorSoon = setTimeout(showHeldError, ERROR_SETTLE_MS);
}

let shownKey = null; // the tools and options whose conversion is shown (JSON), or null
let shownRefused = null; // what that conversion left out (see convertible), said in the error box, or null
let lastConvertMs = 0; // how long the last conversion took

let debounce;
/**
 * Converts once typing pauses: 250 ms, or longer for tools that take long to convert (twice the last conversion's
 * time, at most 2 s), so that a big listing is not converted again at every short pause while it is edited.
 */
function convertSoon() {
  clearTimeout(debounce);
  clearTimeout(errorSoon); // a keystroke: the text has not settled yet
  debounce = setTimeout(
    () => {
      debounce = undefined;
      convert({ typing: true });
    },
    Math.min(2000, Math.max(250, 2 * lastConvertMs)),
  );
}

/** Leaving a field being typed in: the conversion and its error, if any, at once. */
function settleNow() {
  if (debounce !== undefined) {
    clearTimeout(debounce);
    debounce = undefined;
    convert({ typing: true });
  }
  if (errorSoon !== undefined) showHeldError();
}

let sampleLoads = 0; // samples chosen (and texts typed in their place): only the latest choice is shown

async function loadSample(id) {
  // A file that comes after another choice (a sample, Custom, the connected server, text typed in the field) is
  // not shown: it would replace what the Sample list says is there.
  const mine = ++sampleLoads;
  const current = () => mine === sampleLoads && $("sample").value === id;
  if (!id) {
    $("sample-source").textContent = "";
    return;
  }
  if (id === "server") {
    showServerTools();
    return;
  }
  clearError("convert-error");
  try {
    const res = await fetch(new URL(`samples/${id}.json`, import.meta.url));
    if (!current()) return;
    if (!res.ok) throw Object.assign(new Error(`samples/${id}.json: HTTP ${res.status}`), { code: "HTTP_STATUS" });
    const sample = await res.json();
    if (!current()) return;
    const s = sample.source;
    $("sample-source").textContent = `${s.package} ${s.version}: ${sample.tools.length} of its real tools, verbatim (captured ${s.capturedAt?.slice(0, 10) ?? "?"}).`;
    $("tools-input").value = JSON.stringify(sample.tools, null, 2);
    $("server-name").value = sample.serverName ?? SAMPLE_SERVER[id] ?? "";
    remember(sample.tools);
    convert();
  } catch (err) {
    if (current()) showError("convert-error", err);
  }
}

/**
 * How much of a server's listing the Convert panel takes: converting, reporting on and laying out thousands of
 * tools (or a description of megabytes) holds the page for seconds. The tools are taken in order up to these
 * bounds, a tool that would take them past the size bound left out (the next ones may fit), and the panel says
 * which were left out; tools pasted by hand are converted whole.
 */
const FEED_MAX_TOOLS = 200;
const FEED_MAX_CHARS = 1_000_000;

/** Up to 10 names, each clipped, and how many more. */
function someNames(list) {
  return list.slice(0, 10).map((n) => clip(n, 100)).join(", ") + (list.length > 10 ? ` and ${(list.length - 10).toLocaleString("en")} more` : "");
}

/**
 * Puts the connected server's tools in the Convert panel, with its name as the Server name. `relisted`: the server's
 * tool list changed, and a Server name the user typed since (not the one the page set) is theirs, and stays.
 */
function showServerTools({ relisted = false } = {}) {
  if (!serverTools) return;
  const all = serverTools.tools;
  const tools = [];
  const tooBig = []; // the names of those left out for their size
  let size = 0;
  let i = 0;
  for (; i < all.length && tools.length < FEED_MAX_TOOLS; i++) {
    const n = JSON.stringify(all[i]).length;
    if (size + n > FEED_MAX_CHARS) {
      tooBig.push(typeof all[i]?.name === "string" ? all[i].name : `the tool at index ${i}`);
      continue;
    }
    size += n;
    tools.push(all[i]);
  }
  const rest = all.length - i; // not looked at: the count was reached
  const from = `of ${serverTools.url}, from tools/list`;
  const bounds = `the Convert panel takes at most ${FEED_MAX_TOOLS} tools, and ${(FEED_MAX_CHARS / 1e6).toLocaleString("en")} MB of them, from a server at once (the page would freeze for seconds).`;
  let status;
  if (tools.length === all.length) status = `The ${all.length} tools ${from}.`;
  else if (tooBig.length === 0) status = `The first ${tools.length} of the ${all.length} tools ${from}: ${bounds} Paste others to convert them.`;
  else {
    const more = rest > 0 ? `, and the last ${rest.toLocaleString("en")} for their number` : "";
    status = `${tools.length} of the ${all.length} tools ${from}: ${bounds} Left out for their size: ${someNames(tooBig)}${more}. Paste others to convert them.`;
  }
  setStatus("sample-source", status);
  $("tools-input").value = json(tools);
  const typed = relisted && loaded && $("server-name").value !== loaded.server;
  if (!typed) $("server-name").value = serverTools.server;
  remember(tools, serverTools.server);
  convert();
}

// ---------------------------------------------------------------------------------------------
// Connect panel.

let client = null;
let connected = null; // {url, server (the naming token), title (the name shown), tools}
let lastCall = null; // {tool, result, tools, server}: the call shown, with its server's tools and name at the time

/** The result panels: emptied when what they showed is no longer the page's last call (see callTool, connect). */
function clearCall() {
  lastCall = null;
  for (const id of ["out-raw", "out-flat", "out-message"]) $(id).textContent = "";
  $("out-images").replaceChildren();
  $("out-images").hidden = true;
  $("message-heading").textContent = "Tool-result message";
  copyText.raw = copyText.flat = copyText.message = "";
}

/**
 * The timeout field's value: a whole number of milliseconds, at least 100 (as the field's min and step say), checked
 * for every request, a call's and a read's as a connection's; anything else is an INVALID_TIMEOUT error the page
 * shows, never a silent 30000 nor an option error of the library's about a `timeoutMs` the user never saw.
 */
function timeoutMs() {
  const raw = $("mcp-timeout").value.trim(); // "" too for text that is no number
  const n = Number(raw);
  if (raw !== "" && Number.isSafeInteger(n) && n >= 100) return n;
  const held = raw === "" ? "no number" : clip(raw, 40);
  throw Object.assign(
    new Error(`The timeout per request must be a whole number of milliseconds, at least 100 (and at most 2^53 - 1): the field holds ${held}.`),
    { code: "INVALID_TIMEOUT" },
  );
}

/** The timeout field's value, or null after showing its error in the alert `errorId`. */
function timeoutOr(errorId) {
  try {
    return timeoutMs();
  } catch (err) {
    showError(errorId, err);
    return null;
  }
}

/** A person signing in has up to 5 minutes. */
const PERSON_MS = 300_000;

function slug(name) {
  const s = String(name ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return s || "server";
}

async function dropClient() {
  const old = client;
  client = null;
  if (!old) return;
  try {
    await Promise.race([old.close(), new Promise((r) => setTimeout(r, 1000))]);
  } catch {
    // closing a session that is gone is fine
  }
}

let listings = 0; // tool listings started: only the latest one is shown
let changedWhileListing = false; // a change announced before the first listing was shown

/** The server announced a changed tool list: list again, keep the call panel and the Convert panel true. */
async function toolsChanged(c) {
  if (client !== c) return;
  if (!connected) {
    changedWhileListing = true; // the first listing is not shown yet: list again once it is
    return;
  }
  const mine = ++listings;
  let tools;
  try {
    tools = await c.listTools();
  } catch (err) {
    if (client === c && mine === listings) showError("connect-error", err);
    return;
  }
  // A listing that started later (a second change) is the one to show.
  if (client !== c || mine !== listings) return;
  const before = new Set(connected.tools.map((t) => t.name));
  const after = new Set(tools.map((t) => t.name));
  const added = [...after].filter((n) => !before.has(n));
  const removed = [...before].filter((n) => !after.has(n));
  connected.tools = tools;
  const chosen = $("call-tool").value;
  $("call-tool").replaceChildren(...tools.map(toolOption));
  // The chosen tool stays chosen, its arguments as they are; a removed one gives way to the first.
  if (after.has(chosen)) $("call-tool").value = chosen;
  else selectTool();
  const names = (list) => clip(list.slice(0, 10).join(", ") + (list.length > 10 ? ` and ${list.length - 10} more` : ""), 1000);
  const change = [added.length ? `added ${names(added)}` : "", removed.length ? `removed ${names(removed)}` : ""].filter(Boolean).join("; ");
  setStatus("tools-changed", `The server's tool list changed (${change || "same names"}): ${tools.length} tools now.`, true);
  // The connection's status counts the tools too: it says the new count (unless it says the server is down).
  // The texts as given, not as shown: a server's name with an invisible character is shown escaped.
  const wasConnected = statusSaid["connect-status"] === connectedStatus;
  connectedStatus = statusOf(c, tools);
  if (wasConnected) setStatus("connect-status", connectedStatus, true);
  const option = $("sample").querySelector('option[value="server"]');
  if (option) option.textContent = `The connected server (${tools.length} tools)`;
  if (serverTools === connected && $("sample").value === "server") showServerTools({ relisted: true });
}

/**
 * A button whose work is under way: aria-disabled, not disabled, so that it keeps the focus (a disabled
 * button drops it to <body>, and a keyboard user starts over from the top). Its handler ignores it meanwhile.
 */
function setBusy(id, busy) {
  if (busy) $(id).setAttribute("aria-disabled", "true");
  else $(id).removeAttribute("aria-disabled");
}

const isBusy = (id) => $(id).getAttribute("aria-disabled") === "true";

function setCallEnabled(on) {
  for (const id of ["call-tool", "call-args", "call-btn"]) $(id).disabled = !on;
}

/**
 * McpClient's `oauth` option for a server: the user signs in in a popup, which comes back to
 * oauth-callback.html; the registration and tokens are kept in sessionStorage, per server, so that
 * connecting again (or reloading) does not ask again while they last.
 *
 * The popup has no opener: it is opened blank (of this origin), disowned, and only then sent to the
 * authorization server, whose pages therefore cannot reach or navigate this one. The page keeps its
 * handle (to close the popup, to see it closed); the callback, of this origin, hands its URL back on a
 * BroadcastChannel, and only a URL of this origin carrying this sign-in's state is taken.
 */
/** The channel oauth-callback.html hands the URL it was sent back to on. */
const OAUTH_CHANNEL = "toolwire-demo-oauth";

/** Ends the sign-in under way (closes its popup): Cancel calls it. */
let endSignIn = null;
let signInLeftOpen = false; // Cancel could not close the sign-in window
let signIns = 0; // sign-ins started: a request that spans one is told apart (see signInHint)

/**
 * A TIMEOUT of a request during which the user was asked to sign in (`before`: signIns when it started): the
 * sign-in's time counts against the request's timeoutMs (McpClient's documented behaviour: the user has the
 * requests' timeoutMs to sign in), so the hint says so rather than blame the server. Other errors are as they are.
 */
function signInHint(err, before, timeout, what) {
  if (err?.code !== "TIMEOUT" || (signIns === before && !endSignIn)) return err;
  const next = endSignIn ? `finish signing in in the popup, then ${what} again` : `${what} again`;
  return withHint(err, `The ${what} waited for signing in (the popup), and that time counts against the timeout per request (${timeout.toLocaleString("en")} ms), not the server's alone: ${next}, or raise the timeout.`);
}

/**
 * A call's TIMEOUT (one signInHint said nothing of): the page's calls reset their timeout on each progress
 * notification, so the hint says which silence ran it out, all of the call's or the one after its last progress.
 */
function callTimeoutHint(err, timeout, progressed) {
  if (err?.code !== "TIMEOUT" || typeof err.hint === "string") return err;
  const ms = `${timeout.toLocaleString("en")} ms`;
  return withHint(
    err,
    progressed
      ? `The server reported progress, then sent nothing more for the timeout per request (${ms}, which each progress report starts again). Raise the timeout, or try again.`
      : `The server neither answered nor reported progress within the timeout per request (${ms}). Raise the timeout, or try again.`,
  );
}

/** `err` with `hint` (what showError says under the message), or an object of its prototype if it is frozen. */
function withHint(err, hint) {
  try {
    err.hint = hint;
    return err;
  } catch {
    return Object.assign(Object.create(err), { hint });
  }
}

function oauthFor(url) {
  const key = `toolwire-demo-oauth:${url}`;
  return {
    redirectUrl: new URL("oauth-callback.html", location.href).href,
    clientMetadata: { client_name: "toolwire demo page" },
    saved: JSON.parse(sessionStorage.getItem(key) ?? "null") ?? undefined,
    onSaved: (saved) => sessionStorage.setItem(key, JSON.stringify(saved)),
    authorize: ({ url: at, state, signal }) =>
      new Promise((resolve, reject) => {
        signIns++;
        // Asked in the middle of a session (a call, a read or the listening stream met a 401 its tokens could not
        // answer: the server restarted, or they expired): once it ends, the status says the connection again, or
        // that the sign-in did not finish. Asked by connect(), connect() says what came of it.
        const again = !connecting;
        const asking = again ? "Signing in again (the server asked for it): allow the demo page in the popup…" : "Signing in: allow the demo page in the popup…";
        setStatus("connect-status", asking);
        const after = (signedIn, why) => {
          if (!again || statusSaid["connect-status"] !== asking) return; // something since said more
          if (signedIn && connected) setStatus("connect-status", connectedStatus, true);
          else if (!signedIn) setStatus("connect-status", `Not signed in again: ${why}. The next call or read asks again.`);
        };
        // A new window each time ("_blank"): a named one left open on the authorization server's page (a sign-in
        // cancelled there) is no longer this page's to navigate, and reusing it would fail.
        const popup = window.open("about:blank", "_blank", "popup,width=520,height=640");
        if (!popup) {
          after(false, "the sign-in popup was blocked (allow popups for this page)");
          return reject(new Error("the sign-in popup was blocked: allow popups for this page"));
        }
        popup.opener = null;
        popup.location.replace(at);
        const channel = new BroadcastChannel(OAUTH_CHANNEL);
        // The page can close the popup while it shows a page of this origin (blank, or the callback), not while
        // it shows the authorization server's: disowned, it is not this page's any more.
        const closable = () => {
          try {
            return popup.location.origin === location.origin || popup.location.href === "about:blank";
          } catch {
            return false;
          }
        };
        const end = (settle, value) => {
          clearInterval(watch);
          channel.close();
          const open = !popup.closed && !closable();
          if (!open) popup.close();
          endSignIn = null;
          after(settle === resolve, settle === resolve ? "" : value.message);
          settle(value);
          return open;
        };
        endSignIn = () => end(reject, new Error("signing in was cancelled"));
        channel.onmessage = (e) => {
          if (e.origin !== location.origin || typeof e.data !== "string") return;
          let back;
          try {
            back = new URL(e.data);
          } catch {
            return;
          }
          if (back.origin !== location.origin || back.searchParams.get("state") !== state) return;
          // The callback says "Signed in" (or "refused") only once a page took its URL: see oauth-callback.html.
          channel.postMessage({ taken: e.data });
          end(resolve, e.data);
        };
        const watch = setInterval(() => popup.closed && end(reject, new Error("the sign-in window was closed")), 500);
        signal.addEventListener("abort", () => end(reject, new Error("no request waits for the sign-in any more")));
      }),
  };
}

let connectedStatus = ""; // what #connect-status says while the server answers
let listening = false; // the standalone stream is open, or being opened
let listenErrorShown = false; // #connect-error says why the page stopped listening

/** No HTTP response: the server went away (or restarts). The status says so until it answers again. */
function connectionLost(c, err) {
  if (client !== c || !connected) return;
  setStatus("connect-status", `The server does not answer (${err.code}): it is down or restarting. The next call or read tries again.`);
}

/** The server answered again: the status says connected, and the page listens again if it had stopped. */
function connectionBack(c) {
  if (client !== c || !connected) return;
  setStatus("connect-status", connectedStatus, true);
  if (!listening) {
    // A session renewed by the call listens by itself (the `listen` option); this one shares that listening
    // if it runs, or opens it again when the server kept the session.
    listening = true;
    c.listen().then(
      (offered) => listenEnded(c, { offered }),
      (error) => listenEnded(c, { error }),
    );
  }
  if (listenErrorShown) {
    listenErrorShown = false;
    clearError("connect-error");
  }
}

/** The standalone stream ended: at close(), for want of one (405), or with an error, which is said. */
function listenEnded(c, end) {
  if (client !== c) return;
  if (end.offered === false) return; // the server offers no stream: not asked again
  listening = false;
  if (!end.error) return;
  const err = end.error;
  const lost = err.code === "NETWORK" || err.status === undefined;
  showError(
    "connect-error",
    Object.assign(new Error(`The page stopped listening to the server, so a changed tool list is not heard until a call or a read reaches it again. (${err.message})`), {
      code: err.code,
      status: err.status,
    }),
  );
  listenErrorShown = true;
  if (lost) connectionLost(c, err);
}

/** A tool in the call panel's list: its name, and its title when it has another (a server's title may be long). */
function toolOption(t) {
  return el("option", { value: t.name }, clip(typeof t.title === "string" && t.title && t.title !== t.name ? `${t.name}: ${t.title}` : t.name));
}

/** A string with something in it, else undefined. */
const said = (v) => (typeof v === "string" && v.trim() !== "" ? v : undefined);

/** The name the page gives a server (serverInfo's title, else its name; clipped), or undefined where it has none. */
function serverTitle(info) {
  const who = said(info?.title) ?? said(info?.name);
  return who === undefined ? undefined : clip(who);
}

/**
 * What #connect-status says while the server answers: who (its title, else its name; an empty one says nothing), the
 * protocol, how many tools, and which the library left out. A server's strings are clipped: its name may be
 * megabytes long.
 */
function statusOf(c, tools) {
  const info = c.serverInfo;
  const who = serverTitle(info) ?? "the server";
  const version = said(info?.version) === undefined ? "" : ` ${clip(info.version, 100)}`;
  // Entries that are no tools (no name: named by their index), and a 2026-07-28 server's tools whose x-mcp-header
  // marks break the rules: left out, and said so.
  const dropped = c.droppedTools;
  const what = (d) => (said(d.name) !== undefined ? clip(d.name, 100) : Number.isInteger(d.index) ? `the entry at index ${d.index}` : "an entry without a name");
  const left =
    dropped
      .slice(0, 10)
      .map((d) => ` Left out ${what(d)}: ${clip(d.reason, 300)}.`)
      .join("") + (dropped.length > 10 ? ` And ${(dropped.length - 10).toLocaleString("en")} more left out.` : "");
  return `Connected to ${who}${version} (protocol ${c.protocolVersion}): ${tools.length} tools.${left}`;
}

let connecting = null; // the AbortController of the connect under way: Cancel aborts it

async function connect(event) {
  event?.preventDefault();
  if (isBusy("connect-btn")) return;
  // Before the connection is left: a timeout the field cannot give keeps it.
  clearError("connect-error");
  const timeout = timeoutOr("connect-error");
  if (timeout === null) return;
  setBusy("connect-btn", true);
  const abort = new AbortController();
  connecting = abort;
  $("connect-cancel").hidden = false;
  const url = $("mcp-url").value.trim();
  // At once: the status of the connection being left must not stand for the new one meanwhile.
  setStatus("connect-status", `Connecting to ${url}…`);
  clearError("connect-error");
  clearError("call-error");
  setCallEnabled(false);
  resetResources();
  $("call-tool").replaceChildren();
  $("tool-description").textContent = "";
  connected = null;
  // The last call was another session's: its result, and its provider message, are not this connection's; nor
  // are what the call panel said of it (a tool "returned" that the next server has too, a question declined).
  clearCall();
  setStatus("call-status", "");
  setStatus("elicit-status", "");
  // The Sample list offers a connected server's tools only while it is connected: its tools stay in the field,
  // as tools of one's own (Custom), and the line that said whose they were goes.
  serverTools = null;
  if ($("sample").value === "server") {
    $("sample").value = "";
    $("sample-source").textContent = "";
  }
  $("sample").querySelector('option[value="server"]')?.remove();
  listenErrorShown = false;
  setStatus("tools-changed", "");
  await dropClient();
  const headers = {};
  const auth = $("mcp-auth").value.trim();
  if (auth) headers.authorization = auth;
  const oauth = $("mcp-oauth").checked ? oauthFor(url) : undefined;
  let c;
  try {
    // The page can answer a server's questions (elicitation) with a form: it says so, and answers them.
    // It listens too, so that a server that changes its tool list is heard and listed again: on the
    // standalone stream (opt-in: it holds a connection open), opened after every handshake, the first and
    // any that renews a session the server forgot (it restarted). A server that offers none answers the GET
    // with 405, and the page simply does without.
    listening = true;
    c = new McpClient(url, {
      listen: { onEnd: (end) => listenEnded(c, end) },
      headers,
      oauth,
      // Signing in takes a person: the handshake that meets the 401 waits for the popup up to 5 minutes.
      timeoutMs: oauth ? Math.max(timeout, PERSON_MS) : timeout,
      // Both modes: a URL-mode question comes to onRequest, which declines it and says so (form mode alone, McpClient
      // would answer it -32602 itself, and the page would say nothing).
      capabilities: { elicitation: { form: {}, url: {} } },
      onRequest,
      onToolListChanged: () => toolsChanged(c),
    });
    await c.connect({ signal: abort.signal });
    client = c;
    changedWhileListing = false;
    const tools = await c.listTools();
    abort.signal.throwIfAborted();
    const info = c.serverInfo;
    connected = { url, server: slug(info?.name), title: serverTitle(info), tools };
    serverTools = connected;
    connectedStatus = statusOf(c, tools);
    setStatus("connect-status", connectedStatus, true);
    $("call-tool").replaceChildren(...tools.map(toolOption));
    const echo = tools.find((t) => t.name === "echo");
    if (echo) $("call-tool").value = "echo";
    selectTool();
    setCallEnabled(tools.length > 0);
    listResources(c).catch((err) => {
      if (client !== c) return;
      setStatus("resource-status", "The resources could not be listed.");
      showError("connect-error", err);
    });

    // Feed the Convert panel.
    let option = $("sample").querySelector('option[value="server"]');
    if (!option) {
      option = el("option", { value: "server" });
      $("sample").append(option);
    }
    option.textContent = `The connected server (${tools.length} tools)`;
    $("sample").value = "server";
    showServerTools();
    if (changedWhileListing) toolsChanged(c);
  } catch (err) {
    if (abort.signal.aborted) {
      // Cancelled: said in the status, not as an error.
      setStatus("connect-status", `Not connected: connecting to ${url} was cancelled.${signInLeftOpen ? " Close the sign-in window too." : ""}`);
      signInLeftOpen = false;
      if (client === c) await dropClient();
    } else {
      setStatus("connect-status", "Not connected.");
      showError("connect-error", err);
    }
    if (c && client !== c) {
      try {
        c.free();
      } catch {
        // already freed
      }
    }
  } finally {
    connecting = null;
    // The focus on Cancel, which goes away, moves to the button that connects.
    const hadFocus = document.activeElement === $("connect-cancel");
    $("connect-cancel").hidden = true;
    setBusy("connect-btn", false);
    if (hadFocus || document.activeElement === document.body) $("connect-btn").focus();
  }
}

/**
 * A value of each string format a tool's argument commonly names, for its pre-filled arguments: a blank would be
 * refused by a server that checks the format (a required URL as "" is a validation error, not a call).
 */
const FORMAT_EXAMPLES = {
  uri: "https://example.com",
  url: "https://example.com",
  iri: "https://example.com",
  "uri-reference": "https://example.com",
  "iri-reference": "https://example.com",
  email: "name@example.com",
  "idn-email": "name@example.com",
  date: "2025-01-31",
  "date-time": "2025-01-31T09:30:00Z",
  time: "09:30:00Z",
  uuid: "123e4567-e89b-42d3-a456-426614174000",
  hostname: "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
};

/** An example string for a string schema: of its format (FORMAT_EXAMPLES), else its minLength of "a"s, else "". */
function exampleString(schema) {
  const example = typeof schema.format === "string" && Object.hasOwn(FORMAT_EXAMPLES, schema.format) ? FORMAT_EXAMPLES[schema.format] : "";
  const min = Number.isInteger(schema.minLength) ? Math.min(schema.minLength, 1000) : 0;
  return [...example].length >= min ? example : example + "a".repeat(min - [...example].length);
}

/**
 * An example value for a JSON Schema: default, example, first enum value or const, else a typed blank (a string of
 * its format or minimum length); of an object, its required properties and the optional ones that have a default,
 * an example or a const.
 */
function exampleFor(schema, depth = 0) {
  if (!schema || typeof schema !== "object" || depth > 6) return null;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const branch = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branch) && branch.length) return exampleFor(branch.find((b) => b?.type !== "null") ?? branch[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type ?? (schema.properties ? "object" : undefined)) {
    case "object": {
      // An optional property is left out unless its schema suggests a value: a blank or a minimum would
      // override the server's own default (slow's steps became 1, fail's reason "").
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      const suggests = (v) => v && typeof v === "object" && (v.default !== undefined || (Array.isArray(v.examples) && v.examples.length > 0) || v.const !== undefined);
      const out = {};
      const properties = schema.properties && typeof schema.properties === "object" ? schema.properties : {};
      for (const [k, v] of Object.entries(properties)) if (required.has(k) || suggests(v)) put(out, k, exampleFor(v, depth + 1));
      return out;
    }
    case "array":
      return [];
    case "string":
      return exampleString(schema);
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "boolean":
      return false;
    default:
      return null;
  }
}

function selectTool() {
  const tool = connected?.tools.find((t) => t.name === $("call-tool").value);
  if (!tool) return;
  // A description of megabytes is cut (its start is what a person reads), and said so.
  $("tool-description").textContent = typeof tool.description === "string" ? visible(clip(tool.description, 5000)) : "";
  const args = exampleFor({ type: "object", ...(tool.inputSchema ?? {}) }) ?? {};
  $("call-args").value = json(args);
}

/** Resources of the connected server, through McpClient.request: only when its handshake declared them. */
function resetResources() {
  $("resource").replaceChildren();
  $("resource").disabled = $("read-btn").disabled = true;
  $("out-resource").hidden = true;
  setStatus("resource-status", "");
}

async function listResources(c) {
  resetResources();
  if (!c.capabilities?.resources) {
    setStatus("resource-status", "The server declares no resources.");
    return;
  }
  // Every page (the bundled server lists one resource per page). The library refuses a page with an entry that is
  // no Resource (one without a uri or a name), as the MCP SDK's client does: that rejects, and is said.
  const resources = await c.listAll("resources/list", {}, { timeoutMs: timeoutMs() });
  if (client !== c) return;
  const label = (r) => [r.title, r.name].find((t) => typeof t === "string" && t !== "");
  $("resource").replaceChildren(...resources.map((r) => el("option", { value: r.uri }, clip(label(r) ? `${label(r)} (${r.uri})` : r.uri))));
  $("resource").disabled = $("read-btn").disabled = resources.length === 0;
  setStatus("resource-status", `${resources.length} resource${resources.length === 1 ? "" : "s"}.`, true);
}

async function readResource(event) {
  event?.preventDefault();
  if (isBusy("read-btn")) return;
  clearError("call-error");
  const c = client;
  if (!c) return;
  const uri = $("resource").value;
  const timeout = timeoutOr("call-error");
  if (timeout === null) {
    // What was read before is not this resource's read: it goes, as a call not made clears the last call.
    $("out-resource").hidden = true;
    $("out-resource").textContent = "";
    setStatus("resource-status", `${clip(uri)} was not read: the timeout field is not valid.`);
    return;
  }
  setBusy("read-btn", true);
  const signInsBefore = signIns;
  try {
    const answer = await c.request("resources/read", { uri }, { timeoutMs: timeout });
    if (client !== c) return; // the page connected elsewhere meanwhile
    connectionBack(c);
    // The answer's shape is the server's to get right: checked, never assumed.
    const contents = answer?.contents;
    if (!Array.isArray(contents)) {
      throw Object.assign(new Error(`The server's resources/read answer for ${clip(uri)} has no contents array`), { code: "INVALID_RESPONSE", data: answer });
    }
    const text = (x) =>
      typeof x?.text === "string"
        ? x.text
        : typeof x?.blob === "string"
          ? `[${typeof x.mimeType === "string" ? x.mimeType : "binary"}: ${x.blob.length} base64 characters]`
          : "[an entry with neither text nor blob]";
    showText("out-resource", contents.map(text).join("\n"));
    $("out-resource").hidden = false;
    setStatus("resource-status", `${clip(uri)} read.`, true);
  } catch (err) {
    if (client !== c) return;
    // What was read before is not this resource's: it goes.
    $("out-resource").hidden = true;
    $("out-resource").textContent = "";
    setStatus("resource-status", `${clip(uri)} could not be read.`);
    showError("call-error", signInHint(err, signInsBefore, timeout, "read"));
    if (err?.code === "NETWORK") connectionLost(c, err);
  } finally {
    setBusy("read-btn", false);
  }
}

let calling = null; // the AbortController of the call under way: its Cancel aborts it

async function callTool(event) {
  event?.preventDefault();
  if (isBusy("call-btn")) return;
  clearError("call-error");
  const c = client;
  if (!c || !connected) return;
  const name = $("call-tool").value;
  // A call not made leaves no earlier call's status or result standing under this tool's name.
  const notCalled = (why) => {
    clearCall();
    setStatus("call-status", `${name} was not called: ${why}.`);
  };
  // JSON that is no object (an array, a number) is the library's to refuse: callTool rejects it with
  // INVALID_ARGUMENTS before anything is sent (and takes null as no arguments, as an empty field).
  let args;
  try {
    args = JSON.parse($("call-args").value || "{}");
  } catch (err) {
    notCalled("the arguments are not valid JSON");
    showError("call-error", Object.assign(new Error(`Arguments: ${err.message}`), { code: "INVALID_JSON" }));
    return;
  }
  const timeout = timeoutOr("call-error");
  if (timeout === null) {
    notCalled("the timeout field is not valid");
    return;
  }
  const progress = $("call-progress");
  progress.hidden = false;
  progress.removeAttribute("value");
  setBusy("call-btn", true);
  const abort = new AbortController();
  calling = abort;
  $("call-cancel").hidden = false;
  let progressed = false;
  const signInsBefore = signIns;
  setStatus("call-status", `Calling ${name}…`);
  setStatus("elicit-status", "");
  try {
    // The timeout bounds the server's silence: McpClient holds it while the page answers the call's questions,
    // and each progress notification starts it again (a tool that reports its steps may run longer than it).
    const result = await c.callTool(name, args, {
      timeoutMs: timeout,
      resetTimeoutOnProgress: true,
      signal: abort.signal,
      onProgress: (p) => {
        progressed = true;
        if (p.total) {
          progress.max = p.total;
          progress.value = p.progress;
        }
        setStatus("call-status", `Calling ${name}: ${p.message ?? `${p.progress}${p.total ? ` of ${p.total}` : ""}`}`);
      },
    });
    if (client !== c) return abandoned(name); // the page connected again meanwhile: not this session's result
    connectionBack(c);
    lastCall = { tool: name, result, tools: connected.tools, server: connected.server };
    setStatus("call-status", `${name} returned${result.isError ? " a tool error (isError: true)" : ""}.`, !result.isError);
    renderCall();
  } catch (err) {
    // Connecting again closed the old client, which abandons its calls: not an error of the new session.
    if (client !== c) return abandoned(name);
    // The result of an earlier call must not stand for this one's.
    clearCall();
    if (err?.code === "INVALID_ARGUMENTS") {
      // Refused before anything was sent (arguments that are no JSON object): said as the library says it.
      notCalled("the library refused its arguments");
      showError("call-error", err);
      return;
    }
    if (abort.signal.aborted && err?.code === "ABORTED") {
      // Cancelled: said in the status, not as an error.
      setStatus("call-status", `The call of ${name} was cancelled; the server was told to stop it.`);
      return;
    }
    setStatus("call-status", `${name} failed.`);
    showError("call-error", callTimeoutHint(signInHint(err, signInsBefore, timeout, "call"), timeout, progressed));
    if (err?.code === "NETWORK") connectionLost(c, err);
  } finally {
    if (calling === abort) calling = null;
    // The focus on Cancel, which goes away, moves to the button that calls.
    const hadFocus = document.activeElement === $("call-cancel");
    $("call-cancel").hidden = true;
    progress.hidden = true;
    setBusy("call-btn", false);
    if (hadFocus) $("call-btn").focus();
  }
}

/** A call of a session the page has left (it connected again): said in the status, not as an error. */
function abandoned(name) {
  setStatus("call-status", `The call of ${name} was left: the page connected again.`);
}

/**
 * The provider name of the called tool, exactly as the Convert panel's options name it (Gemini and Vertex match a
 * functionResponse to the call by this name), among the tools its server listed when it was called. While the
 * Convert panel shows another sample, its "Server name" is that sample's: the called server's own name stands in
 * for it. A tool the library refuses (a schema past its limits...) makes NameMap.fromTools throw for the whole
 * listing: the names are then those of the tools that convert, the others left out, as McpHub leaves them out, so
 * that one such tool does not take every other tool's message with it. Throws what NameMap throws for the called
 * tool itself (the message then says it, rather than a name the library would not give).
 */
function providerName({ tool, tools, server }, provider) {
  const options = convertOptions();
  if ($("sample").value !== "server") options.server = server;
  let names;
  try {
    names = NameMap.fromTools(tools, provider, options);
  } catch (err) {
    const converts = (t) => {
      try {
        NameMap.fromTools([t], provider, options).free();
        return true;
      } catch {
        return false;
      }
    };
    // The called tool's own error (or the options'), if it is one the library refuses.
    for (const t of tools) if (t?.name === tool && !converts(t)) NameMap.fromTools([t], provider, options);
    const fit = tools.filter(converts);
    if (fit.length === tools.length) throw err; // not one tool's: the listing's as a whole
    names = NameMap.fromTools(fit, provider, options);
  }
  try {
    const entry = names.toJSON().entries.find((e) => e.tool === tool);
    if (!entry) throw Object.assign(new Error(`${tool} is not among the tools its server listed`), { code: "UNKNOWN_TOOL" });
    return entry.name;
  } finally {
    names.free();
  }
}

/** Image types shown inline. Others (SVG above all: rendered on the page's own thread, a few KB can hold it for good) are not. */
const INLINE_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

function renderCall() {
  if (!lastCall) return;
  const { result } = lastCall;
  const provider = $("provider").value;
  copyText.raw = json(result);
  showText("out-raw", copyText.raw);

  // Images of the raster types are shown; any other is named, not rendered (its data is in the raw result).
  const images = (Array.isArray(result.content) ? result.content : []).filter((b) => b?.type === "image" && typeof b.data === "string");
  $("out-images").replaceChildren(
    ...images.map((b, i) => {
      const type = typeof b.mimeType === "string" ? b.mimeType.trim().toLowerCase() : "";
      const named = clip(typeof b.mimeType === "string" ? b.mimeType : "no mimeType", 80);
      if (INLINE_IMAGES.has(type)) {
        return el("figure", {}, el("img", { src: `data:${type};base64,${b.data}`, alt: `Image ${i + 1} of the result (${visible(named)})` }), el("figcaption", {}, named));
      }
      return el(
        "figure",
        { class: "not-shown" },
        el("div", { class: "placeholder" }, "not shown"),
        el("figcaption", {}, `${named}: only PNG, JPEG, GIF and WebP images are shown (an SVG can hold the page); its data is in the raw result.`),
      );
    }),
  );
  $("out-images").hidden = images.length === 0;

  try {
    copyText.flat = flattenContent(result);
    showText("out-flat", copyText.flat);
  } catch (err) {
    copyText.flat = "";
    showText("out-flat", `${err.code ?? err.name}: ${err.message}`);
  }

  $("message-heading").textContent = `Tool-result message: ${provider}${provider === "bedrock" ? " (bytes as base64, as in the Converse API's JSON; the AWS SDK takes the Uint8Array toolResultMessage returns)" : ""}`;
  try {
    const name = providerName(lastCall, provider);
    copyText.message = json(toolResultMessage({ id: "call_demo", name }, result, provider));
    showText("out-message", copyText.message);
  } catch (err) {
    copyText.message = "";
    showText("out-message", `${err.code ?? err.name}: ${err.message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Copy buttons.

async function copy(button) {
  const text = copyText[button.dataset.copy] ?? "";
  // The button's own text and name, kept from before a copy changed them (a second click may come first).
  const label = (button.dataset.text ??= button.textContent);
  const name = (button.dataset.label ??= button.getAttribute("aria-label") ?? label);
  const what = name.replace(/^Copy\s*/, "");
  if (text === "") {
    // Nothing shown yet (no call made, or an error in place of the output): nothing copied, and said so.
    $("copy-status").textContent = `Nothing to copy: ${what} is empty.`;
    clearTimeout(copy.quiet);
    copy.quiet = setTimeout(() => ($("copy-status").textContent = ""), 5000);
    return;
  }
  // A button's new text is not announced: the status region says what was copied (or that it was not), and
  // the button's name follows its text meanwhile (the visible words stay part of the name).
  const show = (ok) => {
    button.textContent = ok ? "Copied" : "Copy failed";
    button.setAttribute("aria-label", ok ? `Copied ${what}` : `Copy failed: ${what}`);
    $("copy-status").textContent = ok ? `Copied ${what} to the clipboard.` : `Could not copy ${what}: the browser refused.`;
    clearTimeout(copy.quiet);
    copy.quiet = setTimeout(() => ($("copy-status").textContent = ""), 5000);
  };
  try {
    await navigator.clipboard.writeText(text);
    show(true);
  } catch {
    // No clipboard permission (or not a secure context): fall back to a selection copy.
    const area = el("textarea", { "aria-hidden": "true", style: "position:fixed;opacity:0" });
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand?.("copy");
    area.remove();
    show(ok);
  }
  button.classList.add("copied");
  clearTimeout(button.restore);
  button.restore = setTimeout(() => {
    button.textContent = label;
    button.setAttribute("aria-label", name);
    button.classList.remove("copied");
  }, 1200);
}

// ---------------------------------------------------------------------------------------------
// Start.

async function main() {
  try {
    await initAsync();
  } catch (err) {
    setStatus("load-status", "");
    showError("load-error", Object.assign(err instanceof Error ? err : new Error(String(err)), { code: err?.code ?? "LOAD_FAILED" }));
    return;
  }
  $("version").textContent = `v${version()}`;
  setStatus("load-status", "WebAssembly module loaded.");

  // The MCP server to connect to: ?mcp=URL, else www-demo/config.js (written by `make demo`), else the default port.
  const config = await import("./config.js").then(
    (m) => m.default ?? {},
    () => ({}),
  );
  const params = new URLSearchParams(location.search);
  $("mcp-url").value = params.get("mcp") ?? config.mcpUrl ?? "http://127.0.0.1:8081/mcp";
  if (config.authUrl) {
    $("auth-hint").replaceChildren(
      "The bundled server also answers at ",
      el("code", {}, config.authUrl),
      ", which returns 401 unless the Authorization header is ",
      el("code", {}, `Bearer ${config.authToken}`),
      ...(config.oauthUrl ? [", and at ", el("code", {}, config.oauthUrl), ", behind OAuth (tick the box)"] : []),
      ".",
    );
  }

  $("sample").addEventListener("change", () => loadSample($("sample").value));
  $("tools-input").addEventListener("input", () => {
    sampleLoads++; // a sample still loading is not shown over the text typed
    $("sample").value = "";
    $("sample-source").textContent = "";
    convertSoon();
  });
  for (const id of ["provider", "naming", "gemini-mode", "strict"]) $(id).addEventListener("change", convert);
  $("server-name").addEventListener("input", convertSoon);
  for (const id of ["tools-input", "server-name"]) $(id).addEventListener("blur", settleNow);
  $("connect-form").addEventListener("submit", connect);
  $("connect-cancel").addEventListener("click", () => {
    signInLeftOpen = endSignIn?.() ?? false;
    connecting?.abort(new Error("cancelled by the user"));
  });
  $("call-form").addEventListener("submit", callTool);
  $("call-cancel").addEventListener("click", () => calling?.abort(new Error("cancelled by the user")));
  $("resource-form").addEventListener("submit", readResource);
  $("call-tool").addEventListener("change", selectTool);
  for (const b of document.querySelectorAll("button[data-copy]")) b.addEventListener("click", () => copy(b));
  addEventListener("pagehide", () => client?.close().catch(() => {}));

  // ?sample=ID: one of the list's samples (empty: Custom); another ID shows the default sample, and says so.
  const wanted = params.get("sample");
  const samples = [...$("sample").options].map((o) => o.value).filter((v) => v !== "server");
  const known = wanted === null || samples.includes(wanted);
  $("sample").value = known ? (wanted ?? "github") : "github";
  await loadSample($("sample").value);
  if (!known) {
    const list = samples.filter(Boolean).join(", ");
    showError("convert-error", Object.assign(new Error(`?sample=${wanted} names no sample (there are ${list}): the github sample is shown.`), { code: "UNKNOWN_SAMPLE" }));
  }
  document.body.dataset.ready = "true";
}

main();
