// Real screenshots from Chromium as an MCP browser server returns them: a full-page shot of a long page is over
// the 8000 px a side Anthropic and Bedrock take, and a tool result carrying it must describe it rather than send
// it (the provider's 400 would stay in the conversation). A viewport shot goes as an image.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import * as tw from "../../pkg/index.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"];

let browser;
let page;
before(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.setContent(`<body style="margin:0"><div style="height:9000px;background:linear-gradient(red,blue)">a long page</div></body>`);
});
after(() => browser?.close());

for (const type of ["png", "jpeg"]) {
  test(`a full-page ${type} over 8000 px is described for Anthropic and Bedrock, sent to OpenAI; a viewport shot is sent`, async () => {
    const result = (buf) => ({ content: [{ type: "text", text: "shot" }, { type: "image", data: buf.toString("base64"), mimeType: `image/${type}` }] });
    const call = { id: "toolu_1", name: "screenshot" };
    const full = result(await page.screenshot({ fullPage: true, type }));
    for (const [provider, text] of [
      ["anthropic", (m) => m.content[0].text],
      ["bedrock", (m) => m.toolResult.content[0].text],
    ]) {
      const label = provider === "anthropic" ? "Anthropic" : "Bedrock";
      assert.equal(text(tw.toolResultMessage(call, full, provider)), `shot\n[Image: image/${type}, 1280x9000 px (not sent: ${label} takes at most 8000 px a side)]`);
    }
    assert.equal(tw.toolResultMessage(call, full, "openai-responses", { multimodal: true }).output[1].type, "input_image");
    const viewport = result(await page.screenshot({ type }));
    assert.equal(tw.toolResultMessage(call, viewport, "anthropic").content[1].type, "image");
    assert.ok(tw.toolResultMessage(call, viewport, "bedrock").toolResult.content[1].image.source.bytes instanceof Uint8Array);
  });
}
