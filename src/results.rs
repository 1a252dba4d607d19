//! MCP tool results to each provider's tool-result message (`toolResultMessage` in JS).
//!
//! * OpenAI Chat: `{role:"tool", tool_call_id, content}`: text only (images and documents become
//!   placeholders; with `imageMessage` a following `user` message carries images as `image_url`
//!   parts and PDFs as `file` parts).
//! * OpenAI Responses: `{type:"function_call_output", call_id, output}`: text, or with
//!   `multimodal` an array of `input_text` / `input_image` / `input_file`.
//! * Anthropic: `{type:"tool_result", tool_use_id, content:[text|image|document blocks], is_error}`.
//! * Gemini: `{functionResponse:{name, id?, response:{output}|{error}}}`, `structuredContent` as
//!   the output when present (the rest of the content, but a text that only repeats it, beside
//!   it as `content`); with `multimodal`, images and PDFs in `parts` (Gemini 3).
//! * Bedrock: `{toolResult:{toolUseId, content:[{text}|{image}|{document}|{json}], status}}`, an
//!   object `structuredContent` as the `json` block (and a text that only repeats it left out).
//!
//! `structuredContent` is never dropped. Gemini (but in an error, or a structure with a `$ref` key,
//! which Gemini reads as a reference to a part) and Bedrock (an object) take it in a place of its
//! own when its JSON fits `max_chars`; otherwise, and for OpenAI, Responses and Anthropic, it is
//! sent as JSON text after the content, unless a text block already is that JSON (as MCP asks
//! servers to add). Its JSON (or that text block) is reserved first: kept whole when
//! it fits `max_chars`, the rest of the text cut to what it leaves; a longer one is cut like text.
//!
//! Images are checked before they are sent: a `data:` URL prefix is stripped, the base64 is
//! validated, the real format is read from the magic bytes (servers often mislabel screenshots),
//! only formats the provider takes ([`ResultFormat::image_formats`]: PNG, JPEG, GIF, WebP; for
//! Gemini and Vertex AI PNG, JPEG, WebP) are sent, and only up to the size the
//! provider takes inline ([`ResultFormat::max_image_bytes`]) and with sides no longer than it
//! takes ([`ResultFormat::max_image_side`], read from the image's header); an empty, invalid,
//! unsupported or too large image becomes a text placeholder. Text, the structured JSON included, is capped at
//! `max_chars` as in `flattenContent`, with one marker where the cut falls (`[Truncated: 60 of
//! 5000 characters shown]`): the marker, OpenAI's `Error: ` and placeholders are within the cap.
//!
//! Embedded resources with a `blob`: an image goes as images go (under its `[Resource: uri
//! (mime)]` line); a document where the provider takes one (`DOCS`: a PDF to Anthropic, to
//! Responses and Gemini with `multimodal`, to OpenAI Chat with `imageMessage`; Office files to
//! Bedrock and Responses), checked by its
//! first bytes and against [`ResultFormat::max_document_bytes`]; text (`text/*`, JSON, XML...)
//! decoded into the text when it is UTF-8. Any other is described with its size and why it was
//! not sent: `[Resource: uri (mime), 12 KB, not sent: text only]`.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::calls::Parallel;
use crate::content::{block_text, repeats, utf16_len, Cut, FlattenOptions, SHORT_MARKER};
use crate::error::{Error, ErrorCode, Result};
use crate::model::{object, string, CallToolResult, ContentBlock, Put as _, ResourceContents};
use crate::text::Owned as _;

/// Providers that take tool results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultFormat {
    /// OpenAI Chat Completions (and compatible APIs, Ollama's `/v1` included).
    OpenAi,
    /// OpenAI Responses.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini API.
    Gemini,
    /// Gemini on Vertex AI: Gemini's message, with Vertex's smaller inline image limit.
    Vertex,
    /// Bedrock Converse.
    Bedrock,
    /// Ollama's own `/api/chat`: `{role:"tool", tool_name, content}`, images as `images`.
    Ollama,
}

impl ResultFormat {
    /// Parses the provider string.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "openai" | "openai-chat" => Self::OpenAi,
            "ollama" => Self::Ollama,
            "openai-responses" => Self::OpenAiResponses,
            "anthropic" => Self::Anthropic,
            "gemini" | "google" => Self::Gemini,
            "vertex" => Self::Vertex,
            "bedrock" => Self::Bedrock,
            other => return Err(Error::new(ErrorCode::UnknownProvider, crate::error::unknown_provider(other, &["openai", "openai-responses", "anthropic", "gemini", "vertex", "bedrock", "ollama"]))),
        })
    }

    /// The largest image, in decoded bytes, the provider takes inline in a tool result; a larger
    /// one is described instead of sent. Where a source gives "MB" without saying which, 10^6.
    pub const fn max_image_bytes(self) -> usize {
        match self {
            // "Up to 20MB per image" (and 50 MB of image bytes per request): OpenAI, Images and
            // vision guide, "Image input requirements" (platform.openai.com/docs/guides/images-vision).
            // Ollama states no limit; OpenAI's is used.
            Self::OpenAi | Self::OpenAiResponses | Self::Ollama => 20_000_000,
            // 5 MB of base64 per image (5,242,880 characters, which decode to 3,932,160 bytes):
            // Claude Code's API_IMAGE_MAX_BASE64_SIZE ("API enforced"); an image over it is a 400
            // that stays in the conversation (github.com/shellicar/claude-cli/issues/323).
            Self::Anthropic => 5 * 1024 * 1024 / 4 * 3,
            // "If your total request size exceeds 20 MB, use the Files API" (ai.google.dev, image
            // understanding): a request, base64 included, of 20 MB; 100 MB since January 2026
            // ("base64 encoded, with varying limits based on data types", blog.google,
            // gemini-api-new-file-limits), but the conversation shares the request: 20 MB of base64.
            Self::Gemini => 20_000_000 / 4 * 3,
            // "Maximum file size per file for inline data ...: 7 MB" (Vertex AI, Image understanding,
            // docs.cloud.google.com/vertex-ai/generative-ai/docs/multimodal/image-understanding).
            Self::Vertex => 7_000_000,
            // "Each image's size, height, and width must be no more than 3.75 MB, 8000 px, and
            // 8000 px" (Bedrock API reference, Message.content: docs.aws.amazon.com/bedrock/latest/
            // APIReference/API_runtime_Message.html).
            Self::Bedrock => 3_750_000,
        }
    }

    /// The most image and document bytes (decoded) sent in one request's tool results, the
    /// conversation's other content aside: what one result sends by default (media past it are
    /// described). OpenAI: "50 MB of image bytes per request" (Images and vision guide). Anthropic:
    /// three quarters of the 32 MB request ("Request size limits", Anthropic API errors), 24 MB of
    /// base64. Gemini and Vertex AI: the 20 MB of base64 a request takes inline (see
    /// `max_image_bytes`). Bedrock: no size given beyond each image's and document's, so 20 of its
    /// 3.75 MB images' worth; it counts images and documents instead ([`Self::max_media_count`]).
    pub const fn max_media_bytes(self) -> usize {
        match self {
            Self::OpenAi | Self::OpenAiResponses | Self::Ollama => 50_000_000,
            Self::Anthropic => 24_000_000 / 4 * 3,
            Self::Gemini | Self::Vertex => 20_000_000 / 4 * 3,
            Self::Bedrock => 20 * 3_750_000,
        }
    }

    /// The most images and documents one request takes: Bedrock's "up to 20 images" and "up to
    /// five documents" (Bedrock API reference, Message.content); Anthropic's 100 images a request
    /// (Vision guide); no count elsewhere.
    pub const fn max_media_count(self) -> (usize, usize) {
        match self {
            Self::Bedrock => (20, 5),
            Self::Anthropic => (100, usize::MAX),
            Self::OpenAi | Self::OpenAiResponses | Self::Gemini | Self::Vertex | Self::Ollama => (usize::MAX, usize::MAX),
        }
    }

    /// The image formats the provider takes in a tool result, as MIME types: Google's "image/png,
    /// image/jpeg, image/webp" for the images of a function response's `parts` (Gemini API, Function
    /// calling, "Multimodal function responses": narrower than the PNG, JPEG, WebP, HEIC and HEIF
    /// of a user turn's images, and checked: "the mime_type ... is not supported in
    /// function_response.parts", google-gemini/gemini-cli#16995); Anthropic's "image/jpeg,
    /// image/png, image/gif, image/webp" (`Base64ImageSource.media_type`); Bedrock's `ImageFormat`
    /// (gif, jpeg, png, webp); OpenAI's PNG, JPEG, WebP and non-animated GIF (Images and vision
    /// guide); Ollama's PNG, JPEG and WebP (the decoders its server registers: WebP since
    /// ollama/ollama#10653, and transcoded to PNG for its llama.cpp runner since #17755; its
    /// vision guide names no list).
    pub const fn image_formats(self) -> &'static [&'static str] {
        match self {
            Self::Gemini | Self::Vertex | Self::Ollama => &["image/png", "image/jpeg", "image/webp"],
            Self::OpenAi | Self::OpenAiResponses | Self::Anthropic | Self::Bedrock => &["image/png", "image/jpeg", "image/gif", "image/webp"],
        }
    }

    /// The image formats the provider takes, as the placeholder names them: `PNG, JPEG, GIF and WebP`.
    fn image_format_names(self) -> String {
        let names: Vec<&str> = self
            .image_formats()
            .iter()
            .map(|m| match *m {
                "image/png" => "PNG",
                "image/jpeg" => "JPEG",
                "image/gif" => "GIF",
                _ => "WebP",
            })
            .collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.concat(),
        }
    }

    /// The longest side, in pixels, of an image the provider takes; a larger one is described
    /// instead of sent.
    pub const fn max_image_side(self) -> Option<u32> {
        match self {
            // Anthropic's vision guide rejects images over 8000 px a side (2000 px when a request
            // holds over 20 images: [`Self::many_images`]); a full-page screenshot over it is
            // a 400 ("At least one of the image dimensions exceed max allowed size: 8000 pixels")
            // that stays in the conversation (github.com/anthropics/claude-code/issues/5147).
            Self::Anthropic => Some(8000),
            // "8000 px, and 8000 px": the Bedrock API reference quoted at `max_image_bytes`.
            Self::Bedrock => Some(8000),
            // OpenAI scales large images down; Gemini's documents no limit in pixels.
            Self::OpenAi | Self::OpenAiResponses | Self::Gemini | Self::Vertex | Self::Ollama => None,
        }
    }

    /// Over how many images in one request the provider takes smaller ones, and the longest side,
    /// in pixels, it then takes: Anthropic's 2000 px in a request of over 20 images ("At least one
    /// of the image dimensions exceed max allowed size for many-image requests: 2000 pixels",
    /// anthropics/claude-code#49537). Claude on Bedrock takes 20 images a request at most
    /// ([`Self::max_media_count`]).
    const fn many_images(self) -> Option<(usize, u32)> {
        match self {
            Self::Anthropic => Some((20, 2000)),
            Self::OpenAi | Self::OpenAiResponses | Self::Gemini | Self::Vertex | Self::Bedrock | Self::Ollama => None,
        }
    }

    /// The provider's name in placeholders.
    const fn label(self) -> &'static str {
        match self {
            Self::OpenAi | Self::OpenAiResponses => "OpenAI",
            Self::Anthropic => "Anthropic",
            Self::Gemini => "Gemini",
            Self::Vertex => "Vertex AI",
            Self::Bedrock => "Bedrock",
            Self::Ollama => "Ollama",
        }
    }
}

/// Options for result messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultOptions {
    /// Cap on text, in UTF-16 code units.
    pub max_chars: usize,
    /// OpenAI Chat: also return a `user` message carrying the images.
    pub image_message: bool,
    /// Responses and Gemini: send images inside the result.
    pub multimodal: bool,
    /// Bedrock: send `toolResult.status`, which only Amazon Nova and Anthropic Claude 3 and 4
    /// models take (others fail with "This model doesn't support the status field"). Without it
    /// an error's text starts with `Error: `.
    pub bedrock_status: bool,
    /// The most image and document bytes (decoded) one result sends, or one call of
    /// [`tool_result_messages`] for all its results; `None` for the provider's
    /// ([`ResultFormat::max_media_bytes`]). Media past it are described instead.
    pub max_media_bytes: Option<usize>,
    /// The longest side, in pixels, of an image sent; `None` for the provider's
    /// ([`ResultFormat::max_image_side`]). A larger image is described instead. Anthropic takes
    /// 2000 px, not 8000, in a request of over 20 images ([`ResultFormat::many_images`]): the
    /// images of one result, or of one call of [`tool_result_messages`], are held to it when they
    /// are over 20 (or to this, when smaller), or the first 20 sent at full size and the rest
    /// described, where that sends more; those of the conversation's earlier messages only the
    /// caller knows, who passes 2000 then. `u32::MAX` is no limit, the many-image side's included.
    pub max_image_side: Option<u32>,
}

impl Default for ResultOptions {
    fn default() -> Self {
        Self {
            max_chars: FlattenOptions::default().max_chars,
            image_message: false,
            multimodal: false,
            bedrock_status: true,
            max_media_bytes: None,
            max_image_side: None,
        }
    }
}

/// An image checked and ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedImage {
    /// The MIME type read from the bytes.
    pub mime_type: &'static str,
    /// Raw base64 (no `data:` prefix, no whitespace).
    pub data: String,
}

/// Why an image cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageProblem {
    /// No data.
    Empty,
    /// Not base64.
    InvalidBase64,
    /// A format providers do not take (or unrecognisable bytes).
    Unsupported,
    /// A format providers take whose header says no size, or a side of 0 px: bytes no decoder
    /// reads (a truncated file, a signature alone), which Anthropic refuses with "Could not
    /// process image", a 400 that stays in the conversation (anthropics/claude-code#15809).
    Unreadable,
    /// Larger than the provider takes inline.
    TooLarge {
        /// The image's size, decoded.
        bytes: usize,
        /// The provider's limit ([`ResultFormat::max_image_bytes`]).
        limit: usize,
    },
    /// A side longer than the provider takes.
    TooLong {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// The limit: the provider's ([`ResultFormat::max_image_side`]) or the caller's.
        limit: u32,
    },
}

/// The standard base64 alphabet (`A-Z a-z 0-9 + /`), by byte.
static BASE64: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'+' as usize || b == b'/' as usize;
        b += 1;
    }
    table
};

/// Checks an MCP image: strips a `data:` prefix, validates base64, sniffs the format.
pub fn check_image(data: &str) -> std::result::Result<CheckedImage, ImageProblem> {
    check_image_within(data, usize::MAX)
}

/// [`check_image`], and no larger than `max_bytes` decoded (checked before the data is copied).
pub fn check_image_within(data: &str, max_bytes: usize) -> std::result::Result<CheckedImage, ImageProblem> {
    let body = base64_body(data)?;
    let head = decode_prefix(&body, 16);
    let mime = sniff(&head).ok_or(ImageProblem::Unsupported)?;
    let bytes = decoded_len(&body);
    if bytes > max_bytes {
        return Err(ImageProblem::TooLarge { bytes, limit: max_bytes });
    }
    Ok(CheckedImage { mime_type: mime, data: padded(&body) })
}

/// The standard base64 of `data`, without its padding: a `data:` prefix stripped; line breaks,
/// spaces and the URL-safe alphabet cleaned (text that needs none is borrowed as it is).
pub(crate) fn base64_body(data: &str) -> std::result::Result<Cow<'_, str>, ImageProblem> {
    let mut d = data.trim();
    // A URL's scheme has no case (RFC 3986): `DATA:image/png;BASE64,...` is one too.
    if d.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("data:")) {
        d = d[5..].split_once(',').map_or("", |(_, b)| b);
    }
    // Standard base64 without whitespace, as images almost always come, is taken as it is;
    // anything else is cleaned character by character.
    let standard = d.bytes().all(|b| BASE64[usize::from(b)] || b == b'=');
    let clean: Cow<str> = if standard {
        Cow::Borrowed(d)
    } else {
        Cow::Owned(
            d.chars()
                .filter(|c| !c.is_ascii_whitespace())
                .map(|c| match c {
                    '-' => '+',
                    '_' => '/',
                    c => c,
                })
                .collect(),
        )
    };
    if clean.is_empty() {
        return Err(ImageProblem::Empty);
    }
    let body_len = clean.trim_end_matches('=').len();
    let body = &clean[..body_len];
    // Taken as it is, it holds only the alphabet and `=`: no `=` but at the end is left to check.
    let alphabet = match standard {
        true => !body.as_bytes().contains(&b'='),
        false => body.bytes().all(|b| BASE64[usize::from(b)]),
    };
    if clean.len() - body_len > 2 || !alphabet || body_len % 4 == 1 {
        return Err(ImageProblem::InvalidBase64);
    }
    Ok(match clean {
        Cow::Borrowed(d) => Cow::Borrowed(&d[..body_len]),
        Cow::Owned(mut d) => {
            d.truncate(body_len);
            Cow::Owned(d)
        }
    })
}

/// How many bytes unpadded base64 holds: four characters hold three bytes; a last group of two
/// or three holds one or two.
pub(crate) fn decoded_len(body: &str) -> usize {
    body.len() / 4 * 3 + (body.len() % 4).saturating_sub(1)
}

/// Unpadded base64 with its padding.
fn padded(body: &str) -> String {
    let mut padded = String::with_capacity(body.len() + 3);
    padded.push_str(body);
    while padded.len() % 4 != 0 {
        padded.push('=');
    }
    padded
}

/// Decodes standard base64 (as [`check_image`] returns it).
pub fn decode_base64(b64: &str) -> Vec<u8> {
    decode_prefix(b64.trim_end_matches('='), usize::MAX - 3)
}

pub(crate) fn decode_prefix(b64: &str, max_bytes: usize) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            _ => 63,
        }
    };
    let mut out = Vec::with_capacity((b64.len() / 4 * 3 + 3).min(max_bytes.saturating_add(3)));
    for chunk in b64.as_bytes().chunks(4) {
        if out.len() >= max_bytes {
            break;
        }
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= val(*c) << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1).clamp(1, 3)]);
    }
    out
}

/// `len` bytes from byte `offset` of standard base64 text (fewer where it ends first).
fn decode_at(b64: &str, offset: usize, len: usize) -> Vec<u8> {
    let b64 = b64.trim_end_matches('=');
    let skip = offset % 3;
    let mut out = b64.get(offset / 3 * 4..).map_or_else(Vec::new, |rest| decode_prefix(rest, skip + len));
    out.truncate(skip + len);
    out.drain(..skip.min(out.len()));
    out
}

/// An image's width and height in pixels, from its header (a JPEG's frame header, found by
/// walking its segments; a GIF's first frame where its logical screen has a side of 0 px);
/// `None` where the bytes do not say.
fn dimensions(b64: &str, mime: &str) -> Option<(u32, u32)> {
    let be = |b: &[u8]| b.iter().fold(0u32, |n, &x| n << 8 | u32::from(x));
    let le = |b: &[u8]| b.iter().rev().fold(0u32, |n, &x| n << 8 | u32::from(x));
    let at = |offset, len| Some(decode_at(b64, offset, len)).filter(|h| h.len() == len);
    match mime {
        "image/png" => at(16, 8).map(|h| (be(&h[..4]), be(&h[4..]))),
        "image/gif" => {
            let h = at(6, 5)?;
            let screen = (le(&h[..2]), le(&h[2..4]));
            if screen.0 > 0 && screen.1 > 0 {
                return Some(screen);
            }
            // A logical screen of 0 px, which some encoders write: decoders (browsers, libvips)
            // show the first frame at its own size. It follows the global color table and any
            // extensions (each sub-blocks, ended by an empty one).
            let mut pos = 13 + if h[4] & 0x80 != 0 { 3 << ((h[4] & 7) + 1) } else { 0 };
            let mut in_extension = false;
            // Bounded, as a JPEG's segments are.
            for _ in 0..4096 {
                let b = at(pos, 1)?[0];
                match (in_extension, b) {
                    (true, 0) => (in_extension, pos) = (false, pos + 1),
                    (true, n) => pos += 1 + usize::from(n),
                    (false, 0x21) => (in_extension, pos) = (true, pos + 2),
                    (false, 0x2C) => return at(pos + 5, 4).map(|f| (le(&f[..2]), le(&f[2..]))),
                    (false, _) => return None,
                }
            }
            None
        }
        "image/webp" => {
            // The first chunk (offset 12) says where the size is.
            match &at(12, 4)?[..] {
                b"VP8X" => at(24, 6).map(|h| (le(&h[..3]) + 1, le(&h[3..]) + 1)),
                b"VP8L" => at(21, 4).map(|h| le(&h)).map(|bits| ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)),
                b"VP8 " => at(26, 4).map(|h| (le(&h[..2]) & 0x3FFF, le(&h[2..]) & 0x3FFF)),
                _ => None,
            }
        }
        "image/jpeg" => {
            let mut pos = 2;
            // Bounded: a segment is at least two bytes, and real files have a few dozen.
            for _ in 0..4096 {
                let h = at(pos, 4)?;
                match h[..] {
                    [0xFF, 0xFF, ..] => pos += 1,
                    [0xFF, 0x01 | 0xD0..=0xD7, ..] => pos += 2,
                    // A frame header (SOF0-SOF15 but DHT, JPG and DAC): precision, height, width.
                    [0xFF, m @ 0xC0..=0xCF, ..] if !matches!(m, 0xC4 | 0xC8 | 0xCC) => {
                        let f = at(pos + 5, 4)?;
                        return Some((be(&f[2..]), be(&f[..2])));
                    }
                    [0xFF, 0xD9 | 0xDA, ..] => return None,
                    // A zero after 0xFF is no marker: skipped with the stray bytes.
                    [0xFF, 0x00, ..] => pos += 2,
                    [0xFF, _, hi, lo] => pos += 2 + usize::from(u16::from_be_bytes([hi, lo])),
                    // A stray byte between segments, which libjpeg skips ("Corrupt JPEG data: N
                    // extraneous bytes before marker").
                    _ => pos += 1,
                }
            }
            None
        }
        _ => None,
    }
}

/// `img`, unless its header says no size or a side of 0 px, or a side is longer than `limit`
/// pixels.
fn within_side(img: CheckedImage, limit: Option<u32>) -> std::result::Result<CheckedImage, ImageProblem> {
    match dimensions(&img.data, img.mime_type) {
        None | Some((0, _) | (_, 0)) => Err(ImageProblem::Unreadable),
        Some((width, height)) => match limit {
            Some(limit) if width > limit || height > limit => Err(ImageProblem::TooLong { width, height, limit }),
            _ => Ok(img),
        },
    }
}

fn sniff(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(&[0x89, b'P', b'N', b'G']) {
        Some("image/png")
    } else if b.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if b.starts_with(b"GIF8") {
        Some("image/gif")
    } else if b.len() >= 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        Some("image/webp")
    } else if b.len() >= 12 && &b[4..8] == b"ftyp" {
        // ISO base media: the major brand says HEIC (HEVC-coded) or HEIF.
        match &b[8..12] {
            b"heic" | b"heix" | b"hevc" | b"hevx" | b"heim" | b"heis" => Some("image/heic"),
            b"mif1" | b"msf1" | b"heif" => Some("image/heif"),
            _ => None,
        }
    } else {
        None
    }
}

/// A document format some provider takes inside a tool result.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct DocKind {
    /// Its MIME type.
    pub(crate) mime: &'static str,
    /// Its file extension.
    ext: &'static str,
    /// The bytes every such file starts with.
    magic: &'static [u8],
    /// Bedrock's `DocumentFormat` for it, where Bedrock takes it.
    bedrock: Option<&'static str>,
    /// Whether Responses takes it as an `input_file`.
    responses: bool,
}

/// An OLE2 compound file (`.doc`, `.xls`).
const OLE: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
/// A ZIP archive (`.docx`, `.xlsx`, `.pptx`).
const ZIP: &[u8] = b"PK\x03\x04";

/// The documents some provider takes in a tool result: Anthropic a PDF (`document` block, base64
/// source: anthropic-sdk-typescript `ToolResultBlockParam.content`, `Base64PDFSource`); Gemini 3
/// a PDF in the function response's `parts` (Vertex AI, "multimodal function responses");
/// Responses an `input_file` (openai-node `ResponseFunctionCallOutputItem`: PDFs, and the text of
/// Office files; `.xls` among the spreadsheets it reads, "such as .xlsx, .xls, .csv, .tsv, and
/// .iif", OpenAI File inputs guide); Bedrock a `document` block (its `DocumentFormat`: pdf, doc, docx, xls, xlsx,
/// and csv, html, md, txt, which go as text here). Text formats are decoded into the text.
static DOCS: [DocKind; 6] = [
    DocKind { mime: "application/pdf", ext: "pdf", magic: b"%PDF-", bedrock: Some("pdf"), responses: true },
    DocKind {
        mime: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        ext: "docx",
        magic: ZIP,
        bedrock: Some("docx"),
        responses: true,
    },
    DocKind { mime: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ext: "xlsx", magic: ZIP, bedrock: Some("xlsx"), responses: true },
    DocKind { mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation", ext: "pptx", magic: ZIP, bedrock: None, responses: true },
    DocKind { mime: "application/msword", ext: "doc", magic: OLE, bedrock: Some("doc"), responses: false },
    DocKind { mime: "application/vnd.ms-excel", ext: "xls", magic: OLE, bedrock: Some("xls"), responses: true },
];

impl ResultFormat {
    /// Whether the message carries images (else they are described in its text).
    fn sends_images(self, opts: &ResultOptions) -> bool {
        match self {
            Self::OpenAi => opts.image_message,
            Self::OpenAiResponses | Self::Gemini | Self::Vertex | Self::Ollama => opts.multimodal,
            Self::Anthropic | Self::Bedrock => true,
        }
    }

    /// Whether the message carries `doc` (else it is described in the text). OpenAI Chat's tool
    /// messages take text only, but with `image_message` the `user` message after them takes a
    /// PDF as a `file` part (openai-node `ChatCompletionContentPart.File`: `{filename,
    /// file_data}`; PDFs alone in Chat, File inputs guide).
    fn sends_document(self, doc: &DocKind, opts: &ResultOptions) -> bool {
        match self {
            Self::OpenAi => opts.image_message && doc.ext == "pdf",
            Self::Ollama => false,
            Self::OpenAiResponses => opts.multimodal && doc.responses,
            Self::Gemini | Self::Vertex => opts.multimodal && doc.ext == "pdf",
            Self::Anthropic => doc.ext == "pdf",
            Self::Bedrock => doc.bedrock.is_some(),
        }
    }

    /// Whether an error result may carry images and documents. Anthropic refuses any but text
    /// blocks in a `tool_result` whose `is_error` is true (400 "all content must be type `text` if
    /// `is_error` is true", github.com/vellum-ai/vellum-assistant/pull/18387; the rule names all
    /// content, documents too), and so does Claude on Bedrock for a `toolResult`
    /// whose `status` is `"error"`, which it reads as `is_error`
    /// (github.com/can1357/oh-my-pi/issues/12809): there an error's media are described instead,
    /// and, for Bedrock, its structure goes as JSON text rather than as a `json` block. Without
    /// `status` (`bedrock_status: false`) nothing marks the result as an error. Elsewhere an error
    /// has no flag of its own beside the media (Responses, Ollama: `Error: ` text) or none has been
    /// seen refused (Gemini's `{error}` beside `parts`).
    fn error_takes_media(self, opts: &ResultOptions) -> bool {
        match self {
            Self::Anthropic => false,
            Self::Bedrock => !opts.bedrock_status,
            Self::OpenAi | Self::OpenAiResponses | Self::Gemini | Self::Vertex | Self::Ollama => true,
        }
    }

    /// The most document bytes (decoded) one request takes, all its documents together: OpenAI's
    /// 32 MB ("Up to 100 pages and 32MB of total content in a single request", across its file
    /// inputs: File inputs guide), shared by the documents of a result, or of one call of
    /// [`tool_result_messages`]. Elsewhere documents share the media budget alone
    /// ([`Self::max_media_bytes`]).
    const fn max_request_document_bytes(self) -> usize {
        match self {
            Self::OpenAi | Self::OpenAiResponses | Self::Ollama => 32_000_000,
            Self::Anthropic | Self::Gemini | Self::Vertex | Self::Bedrock => usize::MAX,
        }
    }

    /// The largest document, in decoded bytes, the provider takes inline in a tool result.
    pub const fn max_document_bytes(self) -> usize {
        match self {
            // "Up to 100 pages and 32MB of total content in a single request" (OpenAI, File
            // inputs guide): the most one document can be; documents together are held to it
            // too ([`Self::max_request_document_bytes`]).
            Self::OpenAi | Self::OpenAiResponses | Self::Ollama => 32_000_000,
            // A request of 32 MB ("Maximum request size", Anthropic PDF support), base64 included:
            // its media budget, three quarters of it (see `max_media_bytes`).
            Self::Anthropic => self.max_media_bytes(),
            // Inline data as images are (see `max_image_bytes`).
            Self::Gemini | Self::Vertex => self.max_image_bytes(),
            // "Each document's size must be no more than 4.5 MB" (Bedrock API reference,
            // Message.content).
            Self::Bedrock => 4_500_000,
        }
    }
}

/// A document checked and ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Document {
    kind: &'static DocKind,
    /// Raw base64, padded.
    data: String,
    /// A file name that ends with the kind's extension.
    file_name: String,
}

/// One piece of a result, ready for a provider.
enum Part {
    Text(String),
    Image(CheckedImage),
    Document(Document),
}

/// What a result sends: its pieces and, where the provider has a place for it, its structure.
struct Body<'a> {
    parts: Vec<Part>,
    /// `structuredContent`, for the provider's own slot (Gemini's `output`, Bedrock's `json`).
    structured: Option<&'a Value>,
}

/// Why a piece of content was not sent: a detail (its size) and the reason.
struct NotSent {
    detail: Option<String>,
    reason: String,
}

/// What is left of the media budget of a request ([`ResultFormat::max_media_bytes`],
/// [`ResultFormat::max_media_count`]), shared by the results of one turn.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Media {
    bytes: usize,
    images: usize,
    documents: usize,
    /// Document bytes left of what a request takes of them ([`ResultFormat::max_request_document_bytes`]).
    document_bytes: usize,
    /// The budget in bytes, as the placeholder names it.
    limit: usize,
    /// Whether the budget is the caller's (`max_media_bytes`), which the placeholder names
    /// rather than the provider.
    caller: bool,
    /// Images taken.
    images_sent: usize,
    /// Whether the request holds more images than the provider takes at full size
    /// ([`ResultFormat::many_images`]): images are held to the smaller side it then takes.
    many_images: bool,
    /// Whether `images` is the count the provider takes at full size
    /// ([`ResultFormat::many_images`]), rather than its most.
    full_size_count: bool,
}

impl Media {
    fn new(format: ResultFormat, opts: &ResultOptions) -> Self {
        let limit = opts.max_media_bytes.unwrap_or(format.max_media_bytes());
        let (images, documents) = format.max_media_count();
        let document_bytes = format.max_request_document_bytes();
        Self { bytes: limit, images, documents, document_bytes, limit, caller: opts.max_media_bytes.is_some(), images_sent: 0, many_images: false, full_size_count: false }
    }

    /// No budget (for text alone, which sends no media).
    fn none() -> Self {
        Self {
            bytes: usize::MAX,
            images: usize::MAX,
            documents: usize::MAX,
            document_bytes: usize::MAX,
            limit: usize::MAX,
            caller: false,
            images_sent: 0,
            many_images: false,
            full_size_count: false,
        }
    }

    /// What [`write`](Self::within) writes with a request's budget. When the images it sent are
    /// more than the provider takes at full size ([`ResultFormat::many_images`]), a request the
    /// provider takes is written in one of two ways, whichever sends more images: every image
    /// held to the provider's many-image side, or the first `count` images at full size and the
    /// rest described (21 screenshots over 2000 px: 20 sent, not none).
    fn within<T>(format: ResultFormat, opts: &ResultOptions, mut write: impl FnMut(&mut Self) -> Result<T>) -> Result<T> {
        let mut media = Self::new(format, opts);
        let out = write(&mut media)?;
        // A caller's side of no limit (`u32::MAX`, `Infinity`) lifts the many-image side too.
        let Some((count, _)) = format.many_images().filter(|_| opts.max_image_side != Some(u32::MAX)) else {
            return Ok(out);
        };
        if media.images_sent <= count {
            return Ok(out);
        }
        let mut held = Self { many_images: true, ..Self::new(format, opts) };
        let held_out = write(&mut held)?;
        if held.images_sent > count {
            return Ok(held_out);
        }
        let full = Self::new(format, opts);
        let mut first = Self { images: full.images.min(count), full_size_count: true, ..full };
        let first_out = write(&mut first)?;
        Ok(if first.images_sent >= held.images_sent { first_out } else { held_out })
    }

    /// Takes `bytes` of an image (or a document) from what is left, or says why it cannot.
    fn take(&mut self, format: ResultFormat, bytes: usize, document: bool) -> std::result::Result<(), String> {
        let label = format.label();
        let count = if document { &mut self.documents } else { &mut self.images };
        if *count == 0 {
            let (images, documents) = format.max_media_count();
            return Err(match (document, format.many_images()) {
                (true, _) => format!("{label} takes at most {documents} documents a request"),
                (false, Some((count, side))) if self.full_size_count => {
                    format!("{label} takes at most {count} images in a request with one over {side} px a side")
                }
                (false, _) => format!("{label} takes at most {images} images a request"),
            });
        }
        if bytes > self.bytes {
            let limit = size_text(self.limit);
            return Err(match self.caller {
                true => format!("over the {limit} of images and documents of maxMediaBytes"),
                false => format!("over the {limit} of images and documents {label} takes a request"),
            });
        }
        if document && bytes > self.document_bytes {
            return Err(format!("over the {} of documents {label} takes a request", size_text(format.max_request_document_bytes())));
        }
        *count -= 1;
        self.bytes -= bytes;
        if document {
            self.document_bytes -= bytes;
        } else {
            self.images_sent += 1;
        }
        Ok(())
    }
}

/// The pieces of a result as they are built: text joined to the text before it.
struct Builder<'o> {
    /// `None`: text alone (`flattenContent`).
    format: Option<ResultFormat>,
    opts: &'o ResultOptions,
    parts: Vec<Part>,
    /// The index in `parts` of the first text, which a detached message's text joins.
    first_text: Option<usize>,
    /// What is left of the request's media budget.
    media: Media,
    /// An error result for a provider that takes text alone in one
    /// ([`ResultFormat::error_takes_media`]): its images and documents are described.
    text_only_error: bool,
    /// The most UTF-16 units of text kept: the cap and a little more ([`KEPT_PAST_CAP`]), so that
    /// a cut under the cap falls in text kept, and can look at the character after it.
    limit: usize,
    /// UTF-16 units of text in `parts`.
    kept: usize,
    /// UTF-16 units of the text past `limit` (line breaks included), counted, never written: what
    /// a result of gigabytes needs of memory is then what it holds and the cap (F1, s24e).
    unkept: usize,
    /// `parts.len()` when text was last counted in `unkept`.
    unkept_at: usize,
}

/// How many UTF-16 units of text past the cap a [`Builder`] keeps.
const KEPT_PAST_CAP: usize = 16;

/// The pieces a [`Builder`] made, the units of text it counted but did not keep (after the text
/// of `parts`), and whether text added next would join the text before it.
struct Built {
    parts: Vec<Part>,
    unkept: usize,
    joins: bool,
}

impl Built {
    /// The UTF-16 length of all the text, kept or not.
    fn units(&self) -> usize {
        text_units(&self.parts) + self.unkept
    }

    /// The parts, their text cut to `max` as [`cap_text`] cuts it (`max` under the builder's
    /// limit, where any text is unkept: the cut falls in what is kept).
    fn capped(mut self, max: usize) -> Vec<Part> {
        let total = self.units();
        cap_text(&mut self.parts, total, max);
        self.parts
    }
}

impl<'o> Builder<'o> {
    fn new(format: Option<ResultFormat>, opts: &'o ResultOptions, parts: Vec<Part>, media: Media) -> Self {
        let first_text = parts.iter().position(|p| matches!(p, Part::Text(_)));
        let kept = text_units(&parts);
        let limit = opts.max_chars.saturating_add(KEPT_PAST_CAP);
        Self { format, opts, parts, first_text, media, text_only_error: false, limit, kept, unkept: 0, unkept_at: 0 }
    }

    /// What was built.
    fn built(mut self) -> (Built, Media) {
        let joins = self.joins();
        (Built { parts: self.parts, unkept: self.unkept, joins }, self.media)
    }

    /// Why media are not sent in this message although the provider takes them in a result: the
    /// result is an error, which it takes as text alone.
    fn error_reason(&self, format: ResultFormat) -> Option<String> {
        self.text_only_error.then(|| format!("{} error results take text only", format.label()))
    }

    /// Whether the message keeps its text apart from its media (one text, the media elsewhere:
    /// OpenAI's user message, Gemini's `parts`), rather than in order among them.
    fn detached(&self) -> bool {
        matches!(self.format, None | Some(ResultFormat::OpenAi | ResultFormat::Gemini | ResultFormat::Vertex | ResultFormat::Ollama))
    }

    /// The text new text joins (after a line break), if any: the first text of a detached
    /// message (kept in `first_text`, not searched for: a result of many media stays linear), else
    /// the last part when it is text.
    fn joined(&mut self) -> Option<&mut String> {
        let at = match self.detached() {
            true => self.first_text,
            false => self.parts.len().checked_sub(1),
        };
        match self.parts.get_mut(at?) {
            Some(Part::Text(t)) => Some(t),
            _ => None,
        }
    }

    /// Whether text added now joins the text before it (after a line break), kept or not.
    fn joins(&mut self) -> bool {
        let unkept_last = self.unkept > 0 && (self.detached() || self.parts.len() == self.unkept_at);
        unkept_last || self.joined().is_some()
    }

    fn text(&mut self, t: String) {
        self.add(&t, 0);
    }

    /// Adds `s` and `more` units of text after it that were never written (past the limit),
    /// joined to the text before it where [`Builder::joined`], else as a part of its own: what
    /// is within `limit` kept, the rest counted.
    fn add(&mut self, s: &str, more: usize) {
        let line_break = usize::from(self.joins());
        if self.unkept > 0 || self.kept + line_break > self.limit {
            self.unkept += line_break + utf16_len(s) + more;
            self.unkept_at = self.parts.len();
            return;
        }
        let (bytes, units) = crate::content::prefix_chars(s, self.limit - self.kept - line_break);
        let kept = &s[..bytes];
        match self.joined() {
            Some(prev) => {
                prev.push('\n');
                prev.push_str(kept);
            }
            None => {
                self.parts.push(Part::Text(kept.owned()));
                self.first_text = self.first_text.or(Some(self.parts.len() - 1));
            }
        }
        self.kept += line_break + units;
        let rest = if bytes == s.len() { 0 } else { utf16_len(&s[bytes..]) } + more;
        if rest > 0 {
            self.unkept += rest;
            self.unkept_at = self.parts.len();
        }
    }

    /// A block's text ([`block_text`]), of which only what is within the limit is written.
    fn block(&mut self, block: &ContentBlock) {
        match block {
            ContentBlock::Text(t) => self.add(&t.text, 0),
            ContentBlock::Resource(r) => {
                let res = &r.resource;
                self.text(resource_header(&res.uri, res.mime_type.as_deref().unwrap_or("")));
                if let Some(text) = &res.text {
                    self.add(text, 0);
                }
            }
            ContentBlock::Unknown(v) if !v.is_null() => {
                let (line, json) = crate::content::unknown_lines(v);
                self.text(line);
                self.json(&json);
            }
            other => self.text(block_text(other)),
        }
    }

    /// `v` as JSON text (as `JSON.stringify` writes it), of which only what is within the limit
    /// is written.
    fn json(&mut self, v: &Value) {
        let keep = self.limit.saturating_sub(self.kept);
        let (json, units) = crate::text::to_string_js_within(v, keep);
        let more = units - utf16_len(&json);
        self.add(&json, more);
    }

    /// An image for the provider, or why it cannot be sent.
    fn check_image(&self, format: ResultFormat, data: &str) -> std::result::Result<CheckedImage, NotSent> {
        let checked = check_image_within(data, format.max_image_bytes());
        if let Ok(img) = &checked {
            if !format.image_formats().contains(&img.mime_type) {
                return Err(NotSent { detail: None, reason: format!("{} takes {}", format.label(), format.image_format_names()) });
            }
        }
        let own = self.opts.max_image_side.or(format.max_image_side());
        // In a request of many images, the provider's smaller side where it is under that.
        let many = format.many_images().filter(|_| self.media.many_images).filter(|&(_, side)| own.is_none_or(|own| own > side));
        let side = many.map(|(_, side)| side).or(own);
        checked.and_then(|ok| within_side(ok, side)).map_err(|problem| match problem {
            ImageProblem::Empty => NotSent { detail: None, reason: "empty image".owned() },
            ImageProblem::InvalidBase64 => NotSent { detail: None, reason: "invalid base64 data".owned() },
            ImageProblem::Unsupported => NotSent { detail: None, reason: "format not supported".owned() },
            ImageProblem::Unreadable => NotSent { detail: None, reason: "unreadable image data".owned() },
            ImageProblem::TooLarge { bytes, limit } => NotSent {
                detail: Some(over(bytes, limit).0),
                reason: format!("larger than the {} {} takes inline", over(bytes, limit).1, format.label()),
            },
            ImageProblem::TooLong { width, height, limit } => NotSent {
                detail: Some(format!("{width}x{height} px")),
                reason: match (many, self.opts.max_image_side) {
                    (Some((count, _)), _) => format!("{} takes at most {limit} px a side in a request of over {count} images", format.label()),
                    (None, Some(_)) => format!("over the {limit} px a side of maxImageSide"),
                    (None, None) => format!("{} takes at most {limit} px a side", format.label()),
                },
            },
        })
    }

    /// An image block: sent where the message carries images and the provider takes it, else
    /// described with why it was not sent (`text only` where the message carries no images).
    fn image(&mut self, img: &crate::model::MediaContent) {
        let mime = if img.mime_type.is_empty() { "unknown type" } else { img.mime_type.as_str() };
        // An image type that is XML text (SVG, which no provider takes as an image) is its text,
        // as an embedded blob of it is ([`classify`]), unless its bytes are an image's.
        let declared = essence(&img.mime_type);
        if declared.starts_with("image/") && is_textual(&declared) {
            if let Ok(body) = base64_body(&img.data) {
                if sniff(&decode_prefix(&body, 16)).is_none() {
                    return match text_of_bytes(format!("[Image: {declared}, as text]"), Some(&img.mime_type), &body) {
                        Ok(out) => self.text(out),
                        Err(reason) => self.text(format!("[Image: {mime} (not sent: {reason})]")),
                    };
                }
            }
        }
        if let Some(url) = url_in_data(&img.data) {
            return self.text(format!("[Image: {mime}, {url} (not sent: a URL, not base64 data)]"));
        }
        // Named by its bytes where they say (servers mislabel screenshots, a phone's HEIC photo
        // comes as image/jpeg): the reason it is not sent is then about the type named.
        let named = base64_body(&img.data).ok().and_then(|body| sniff(&decode_prefix(&body, 16))).unwrap_or(mime);
        let Some(format) = self.format.filter(|f| f.sends_images(self.opts)) else {
            return self.text(format!("[Image: {named} (not sent: text only)]"));
        };
        if let Some(reason) = self.error_reason(format) {
            return self.text(format!("[Image: {named} (not sent: {reason})]"));
        }
        let checked = self.check_image(format, &img.data).and_then(|ok| {
            // Within what is left of the request's media budget.
            let bytes = decoded_len(ok.data.trim_end_matches('='));
            match self.media.take(format, bytes, false) {
                Ok(()) => Ok(ok),
                Err(reason) => Err(NotSent { detail: Some(size_text(bytes)), reason }),
            }
        });
        match checked {
            Ok(ok) => {
                // OpenAI's tool message says where the image was (it goes in the user message).
                if format == ResultFormat::OpenAi {
                    self.text(format!("[Image: {}]", ok.mime_type));
                }
                self.parts.push(Part::Image(ok));
            }
            Err(NotSent { detail, reason }) => {
                let detail = detail.map_or_else(String::new, |d| format!(", {d}"));
                self.text(format!("[Image: {named}{detail} (not sent: {reason})]"));
            }
        }
    }

    /// An audio block: never sent (no provider takes audio in a tool result), so described.
    fn audio(&mut self, audio: &crate::model::MediaContent) {
        let mime = if audio.mime_type.is_empty() { "unknown type" } else { audio.mime_type.as_str() };
        let reason = match self.format.filter(|f| f.sends_images(self.opts)) {
            Some(format) => format!("{} tool results take no audio", format.label()),
            None => "text only".owned(),
        };
        let url = url_in_data(&audio.data).map_or_else(String::new, |u| format!(", {u}"));
        self.text(format!("[Audio: {mime}{url} (not sent: {reason})]"));
    }

    /// An embedded blob: an image as images are sent, a document the provider takes as one, text
    /// decoded into the text; anything else described, with why it was not sent.
    fn blob(&mut self, res: &ResourceContents, blob: &str) {
        let declared = res.mime_type.as_deref().map(essence).unwrap_or_default();
        let header = |mime: &str| resource_header(&res.uri, mime);
        let not_sent = |mime: &str, bytes: Option<usize>, reason: &str| {
            let mut out = resource_header(&res.uri, mime);
            out.pop();
            if let Some(bytes) = bytes {
                out.push_str(", ");
                out.push_str(&size_text(bytes));
            }
            out.push_str(", not sent: ");
            out.push_str(reason);
            out.push(']');
            out
        };
        let body = match base64_body(blob) {
            Ok(body) => body,
            // Nothing: an empty text, or an empty file.
            Err(ImageProblem::Empty) if is_textual(&declared) => return self.text(header(&declared)),
            Err(ImageProblem::Empty) => return self.text(not_sent(&declared, None, "empty")),
            Err(_) => match url_in_data(blob) {
                Some(url) => return self.text(not_sent(&declared, None, &format!("its blob is a URL, not base64 data: {url}"))),
                None => return self.text(not_sent(&declared, None, "invalid base64 data")),
            },
        };
        let bytes = decoded_len(&body);
        let head = decode_prefix(&body, 16);
        let format = match (self.format, classify(&declared, &head)) {
            (_, Blob::Text) => {
                return match text_of_bytes(header(&declared), res.mime_type.as_deref(), &body) {
                    Ok(out) => self.text(out),
                    Err(reason) => self.text(not_sent(&declared, Some(bytes), &reason)),
                };
            }
            (_, Blob::Other) => return self.text(not_sent(&declared, Some(bytes), "format not supported")),
            (_, Blob::Document(kind)) if !head.starts_with(kind.magic) => {
                return self.text(not_sent(&declared, Some(bytes), &format!("the bytes are not a {} file", kind.ext.to_ascii_uppercase())));
            }
            (None, Blob::Document(kind)) => return self.text(not_sent(kind.mime, Some(bytes), "text only")),
            // An image is named by its bytes where they say, as one sent is.
            (None, Blob::Image) => return self.text(not_sent(sniff(&head).unwrap_or(&declared), Some(bytes), "text only")),
            (Some(format), _) => format,
        };
        match classify(&declared, &head) {
            Blob::Image => {
                let named = sniff(&head).unwrap_or(&declared);
                if !format.sends_images(self.opts) {
                    return self.text(not_sent(named, Some(bytes), "text only"));
                }
                if let Some(reason) = self.error_reason(format) {
                    return self.text(not_sent(named, Some(bytes), &reason));
                }
                match self.check_image(format, &body).and_then(|img| self.media.take(format, bytes, false).map(|()| img).map_err(|reason| NotSent { detail: None, reason })) {
                    Ok(img) => {
                        self.text(header(img.mime_type));
                        self.parts.push(Part::Image(img));
                    }
                    Err(NotSent { reason, .. }) => self.text(not_sent(named, Some(bytes), &reason)),
                }
            }
            Blob::Document(kind) if !format.sends_document(kind, self.opts) => {
                // Documents of other kinds go where this one does not; text only is text only.
                let reason = match DOCS.iter().any(|d| format.sends_document(d, self.opts)) {
                    true => format!("{} takes no {} files here", format.label(), kind.ext.to_ascii_uppercase()),
                    false => "text only".owned(),
                };
                self.text(not_sent(kind.mime, Some(bytes), &reason))
            }
            Blob::Document(kind) if self.text_only_error => {
                let reason = self.error_reason(format).unwrap_or_default();
                self.text(not_sent(kind.mime, Some(bytes), &reason))
            }
            Blob::Document(kind) if bytes > format.max_document_bytes() => {
                let limit = format.max_document_bytes();
                self.text(not_sent(kind.mime, Some(bytes), &format!("larger than the {} {} takes inline", megabytes(limit), format.label())))
            }
            Blob::Document(kind) => match self.media.take(format, bytes, true) {
                Ok(()) => {
                    self.text(header(kind.mime));
                    self.parts.push(Part::Document(Document { kind, data: padded(&body), file_name: file_name(&res.uri, kind.ext) }));
                }
                Err(reason) => self.text(not_sent(kind.mime, Some(bytes), &reason)),
            },
            Blob::Text | Blob::Other => {}
        }
    }
}

/// `header` (a line in brackets) and the text of the base64 `body`, in the charset `mime` declares
/// (UTF-8 without one), or why it is not sent: text in another charset is described, never sent
/// garbled. A few bytes that are not of the charset (a Latin-1 character in a log) are U+FFFD, the
/// header saying so.
fn text_of_bytes(mut header: String, mime: Option<&str>, body: &str) -> std::result::Result<String, String> {
    let charset = match mime.and_then(charset_param) {
        None => Charset::Utf8,
        Some(name) => Charset::named(name).ok_or_else(|| format!("charset {} not supported", crate::text::excerpt(name, 40)))?,
    };
    let label = charset.label();
    let (text, invalid) = charset.decode(body).ok_or_else(|| format!("not {label} text"))?;
    if invalid > 0 {
        header.pop();
        header.push_str(&format!(", {invalid} {} not {label} shown as U+FFFD]", if invalid == 1 { "byte" } else { "bytes" }));
    }
    header.push('\n');
    header.push_str(&text);
    Ok(header)
}

/// What an embedded blob holds, by its MIME type (or, without a useful one, its first bytes).
enum Blob {
    Image,
    Document(&'static DocKind),
    Text,
    Other,
}

fn classify(declared: &str, head: &[u8]) -> Blob {
    if let Some(kind) = DOCS.iter().find(|d| d.mime == declared) {
        return Blob::Document(kind);
    }
    if declared.starts_with("image/") {
        // An image type that is XML text (SVG, which no provider takes as an image) is its
        // text, unless its bytes are an image's.
        if is_textual(declared) && sniff(head).is_none() {
            return Blob::Text;
        }
        return Blob::Image;
    }
    if is_textual(declared) {
        return Blob::Text;
    }
    // A PDF under another name (`application/x-pdf`, `application/acrobat`, `binary/octet-stream`):
    // its bytes say what it is.
    if head.starts_with(b"%PDF-") {
        return Blob::Document(&DOCS[0]);
    }
    if declared.is_empty() || declared == "application/octet-stream" {
        // No type worth the name: the bytes say what they are.
        if sniff(head).is_some() {
            return Blob::Image;
        }
        // Without a type, bytes without control characters are read as text (if UTF-8).
        if declared.is_empty() && !head.iter().any(|&b| b < 0x09 || (0x0e..0x20).contains(&b)) {
            return Blob::Text;
        }
    }
    Blob::Other
}

/// A MIME type as compared: its parameters (`; charset=utf-8`) dropped, in lower case.
pub(crate) fn essence(mime: &str) -> String {
    mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// Whether a MIME type (an [`essence`]) is text: `text/*`, JSON and XML (`+json` and `+xml`
/// too), YAML, JavaScript.
pub(crate) fn is_textual(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(
            mime,
            "application/json" | "application/xml" | "application/yaml" | "application/x-yaml" | "application/javascript" | "application/x-ndjson" | "application/toml"
        )
}

/// A charset an embedded text blob may declare (`text/plain; charset=utf-16le`), which its bytes
/// are read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Charset {
    Utf8,
    Utf16Le,
    Utf16Be,
    /// UTF-16 by its byte order mark, little-endian without one (as the WHATWG Encoding standard
    /// reads the label `utf-16`, and as Windows writes it).
    Utf16,
    /// windows-1252, which the WHATWG Encoding standard (and so every browser) reads for the
    /// labels ISO-8859-1, Latin-1 and US-ASCII too: what servers writing those labels mean
    /// (`“hi” €5`, where strict Latin-1 would give C1 control characters).
    Windows1252,
}

/// windows-1252's characters for the bytes 0x80 to 0x9F (the five it leaves undefined are the
/// C1 control of their value, as WHATWG's table has them); the other bytes are their code point.
const WINDOWS_1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}', '\u{2C6}', '\u{2030}', '\u{160}',
    '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}', '\u{8F}', '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}',
    '\u{2013}', '\u{2014}', '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}', '\u{178}',
];

impl Charset {
    /// The charset of a name (IANA's, or an alias of it, in any case), if it is one read here.
    fn named(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "utf-8" | "utf8" | "unicode-1-1-utf-8" => Self::Utf8,
            "utf-16le" => Self::Utf16Le,
            "utf-16be" => Self::Utf16Be,
            "utf-16" => Self::Utf16,
            "windows-1252" | "cp1252" | "x-cp1252" | "iso-8859-1" | "iso8859-1" | "iso_8859-1" | "iso_8859-1:1987" | "latin1"
            | "latin-1" | "l1" | "iso-ir-100" | "cp819" | "ibm819" | "csisolatin1" | "us-ascii" | "ascii" | "us" | "iso646-us"
            | "iso-ir-6" | "ansi_x3.4-1968" | "cp367" | "ibm367" | "csascii" => Self::Windows1252,
            _ => return None,
        })
    }

    fn label(self) -> &'static str {
        match self {
            Self::Utf8 => "UTF-8",
            Self::Utf16Le => "UTF-16LE",
            Self::Utf16Be => "UTF-16BE",
            Self::Utf16 => "UTF-16",
            Self::Windows1252 => "windows-1252",
        }
    }

    /// The text of base64 bytes in this charset, as [`decode_text`] gives UTF-8's: with how many
    /// bytes were not of it (U+FFFD in the text), `None` when over one in a hundred are not. A
    /// byte order mark of the charset is not text.
    fn decode(self, body: &str) -> Option<(String, usize)> {
        let bytes = match self {
            Self::Utf8 => return decode_text(body).map(|(t, bad)| (if t.starts_with('\u{FEFF}') { t['\u{FEFF}'.len_utf8()..].to_owned() } else { t }, bad)),
            Self::Windows1252 => {
                let text = decode_base64(body).into_iter().map(|b| if (0x80..0xA0).contains(&b) { WINDOWS_1252_HIGH[usize::from(b - 0x80)] } else { char::from(b) });
                return Some((text.collect(), 0));
            }
            Self::Utf16Le | Self::Utf16Be | Self::Utf16 => decode_base64(body),
        };
        let little = match self {
            Self::Utf16Be => false,
            Self::Utf16 => !bytes.starts_with(&[0xFE, 0xFF]),
            _ => true,
        };
        // The byte order mark of `utf-16` says the order, and is not text.
        let bom: &[u8] = if little { &[0xFF, 0xFE] } else { &[0xFE, 0xFF] };
        let skip = if bytes.starts_with(bom) { 2 } else { 0 };
        let pairs = bytes[skip..].chunks_exact(2);
        // A last byte alone is half a character: U+FFFD.
        let half = !pairs.remainder().is_empty();
        let mut invalid = usize::from(half);
        let units = pairs.map(|p| if little { u16::from_le_bytes([p[0], p[1]]) } else { u16::from_be_bytes([p[0], p[1]]) });
        let mut text: String = char::decode_utf16(units)
            .map(|c| {
                c.unwrap_or_else(|_| {
                    // A lone surrogate: two bytes.
                    invalid += 2;
                    char::REPLACEMENT_CHARACTER
                })
            })
            .collect();
        if half {
            text.push(char::REPLACEMENT_CHARACTER);
        }
        (invalid.saturating_mul(100) <= bytes.len()).then_some((text, invalid))
    }
}

/// The `charset` parameter of a MIME type (`text/plain; charset="utf-16le"`), unquoted, if it has
/// one that is not empty.
fn charset_param(mime: &str) -> Option<&str> {
    mime.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim().eq_ignore_ascii_case("charset").then(|| v.trim().trim_matches('"').trim()).filter(|v| !v.is_empty())
    })
}

/// The text of base64 UTF-8 bytes, all of it (the cap cuts it after, and its marker counts the
/// whole: `[Truncated: 58 of 10039 characters shown]`), with how many bytes were not UTF-8 and are
/// U+FFFD in it; `None` when over one in a hundred are not (not text).
pub(crate) fn decode_text(body: &str) -> Option<(String, usize)> {
    let bytes = decode_base64(body);
    match String::from_utf8(bytes) {
        Ok(text) => Some((text, 0)),
        Err(e) => {
            let bytes = e.into_bytes();
            let invalid: usize = bytes.utf8_chunks().map(|c| c.invalid().len()).sum();
            (invalid.saturating_mul(100) <= bytes.len()).then(|| (String::from_utf8_lossy(&bytes).into_owned(), invalid))
        }
    }
}

/// A URI as a placeholder shows it: a `data:` URL (whose data is the resource itself, sent or
/// described apart) by its head only, `data:application/pdf;base64,…`.
pub(crate) fn shown_uri(uri: &str) -> std::borrow::Cow<'_, str> {
    const LONGEST: usize = 64;
    if uri.len() <= LONGEST || !uri.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("data:")) {
        return std::borrow::Cow::Borrowed(uri);
    }
    let head = uri.find(',').map_or(uri, |i| &uri[..=i]);
    let mut cut = head.len().min(LONGEST);
    while !head.is_char_boundary(cut) {
        cut -= 1;
    }
    std::borrow::Cow::Owned(format!("{}…", &head[..cut]))
}

/// The URL a media block's `data` (or a resource's `blob`) holds in place of base64 data, as some
/// servers send an image's (`https://...`, `file://...`; agentscope-java#3052): shown in its
/// placeholder, which is all the model then has of it. A `data:` URL is read as its data.
pub(crate) fn url_in_data(data: &str) -> Option<String> {
    let d = data.trim();
    let (scheme, rest) = d.split_once("://")?;
    let scheme_ok = scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    // Never a data URL's head, as base64 has no `:`.
    (scheme_ok && !rest.is_empty()).then(|| crate::text::excerpt(d, 2048))
}

/// `[Resource: uri (mime)]`, or `[Resource: uri]` without a MIME type.
pub(crate) fn resource_header(uri: &str, mime: &str) -> String {
    let uri = shown_uri(uri);
    match mime.is_empty() {
        true => format!("[Resource: {uri}]"),
        false => format!("[Resource: {uri} ({mime})]"),
    }
}

/// A size over a limit and the limit, in MB, or in bytes where the MB would read the same
/// (`3932161 bytes` over `3932160 bytes`, not `3.93 MB` over `3.93 MB`).
fn over(bytes: usize, limit: usize) -> (String, String) {
    match megabytes(bytes) == megabytes(limit) {
        true => (format!("{bytes} bytes"), format!("{limit} bytes")),
        false => (megabytes(bytes), megabytes(limit)),
    }
}

/// A size, short: `512 bytes`, `12 KB`, `3.75 MB`.
pub(crate) fn size_text(bytes: usize) -> String {
    size_text_u64(bytes as u64)
}

/// [`size_text`] of any size (MCP's `size` of a resource, which may pass 4 GB): in the larger
/// unit where rounding reaches the next (999,600 bytes are 1 MB, not 1000 KB), GB past 1,000 MB.
pub(crate) fn size_text_u64(bytes: u64) -> String {
    if bytes < 1000 {
        return format!("{bytes} bytes");
    }
    let kb = bytes.saturating_add(500) / 1000;
    if kb < 1000 {
        return format!("{kb} KB");
    }
    let mb_hundredths = bytes.saturating_add(5_000) / 10_000;
    if mb_hundredths < 100_000 {
        return hundredths(mb_hundredths, "MB");
    }
    hundredths(bytes.saturating_add(5_000_000) / 10_000_000, "GB")
}

/// The last segment of a URI's path (before any query), with `ext` unless it has it:
/// `file:///a/inv.pdf` is `inv.pdf`, `mem://x?id=1` `x.pdf`, `urn:uuid:1` `document.pdf`, a
/// `data:` URL (its bytes, not a name) `document.pdf`. At most [`MAX_FILE_NAME`] characters, the
/// extension kept.
fn file_name(uri: &str, ext: &str) -> String {
    let path = uri.split(['?', '#']).next().unwrap_or("");
    // The last segment's own text (`Q3%20report.pdf` is `Q3 report.pdf`), without what would make it a path or
    // a line of its own once decoded (`%2F`, a control character).
    let last: String = crate::schema::refs::percent_decode(path.rsplit('/').next().unwrap_or(""), false)
        .chars()
        .map(|c| if c == '/' || c == '\\' || c.is_control() { '_' } else { c })
        .collect();
    let last = last.trim();
    // A URI without a path (`urn:uuid:...`) names no file, nor does a `data:` URL.
    let data = uri.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("data:"));
    let stem = if data || !path.contains('/') || last.is_empty() { "document" } else { last };
    let dotted = format!(".{ext}");
    // The extension as the name writes it (`INV.PDF` stays), else added.
    let (stem, dotted) = match stem.len().checked_sub(dotted.len()) {
        Some(n) if stem.get(n..).is_some_and(|e| e.eq_ignore_ascii_case(&dotted)) => stem.split_at(n),
        _ => (stem, dotted.as_str()),
    };
    let room = MAX_FILE_NAME.saturating_sub(dotted.chars().count());
    let stem: String = stem.chars().take(room).collect();
    format!("{stem}{dotted}")
}

/// The longest file name sent (Responses' `filename`, the stem of Bedrock's document `name`, which
/// [`bedrock_name`] holds to 100): 200 characters, taken as Bedrock's `DocumentBlock.name` limit.
const MAX_FILE_NAME: usize = 200;

/// A Bedrock document name from a file name: its stem, with only what Bedrock allows ("alphanumeric
/// characters, whitespace characters (no more than one in a row), hyphens, parentheses, square
/// brackets": `DocumentBlock.name`; ASCII letters and digits, as it refuses others), the rest as
/// spaces; `document` when nothing is left.
fn bedrock_name(file_name: &str) -> String {
    let stem = file_name.rsplit_once('.').map_or(file_name, |(s, _)| s);
    let mut out = String::new();
    for c in stem.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '-' | '(' | ')' | '[' | ']') { c } else { ' ' };
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        out.push(c);
        if out.len() >= 100 {
            break;
        }
    }
    let out = out.trim_end();
    if out.is_empty() {
        "document".owned()
    } else {
        out.owned()
    }
}

/// A Bedrock document name's tag for the call it answers: 8 hex digits of a hash (FNV-1a) of its
/// `toolUseId`. Bedrock refuses a request whose messages repeat a document name, and the whole
/// conversation is resent with each request: `report` answered in two turns would be one name
/// twice. A call's id is unique in the conversation, so its tag makes names unique without
/// knowing those of other turns (two of 4 billion tags alike at worst); and it is only letters
/// and digits, as the name must be.
fn id_tag(id: &str) -> String {
    let hash = id.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    format!("{hash:08x}")
}

/// The pieces of a result, for `format` (`None`: text alone, as `flattenContent` writes it).
///
/// `structuredContent` goes in the provider's slot when it has one ([`Body::structured`]) and its
/// JSON is within `max_chars`; then a text block that only repeats it is left out, and the rest of
/// the text gets what the JSON leaves of the cap. Otherwise it is sent as JSON text after the
/// content, unless a text block already is that JSON. Either way its JSON (or the text block that
/// is it) is kept whole when it fits the cap: the rest of the text gets what it leaves. A text
/// block that is it but does not fit (pretty-printed) gives way to the compact JSON, when that
/// fits. One cap over all the text: where it falls the text is cut and marked, and the text after
/// it is dropped.
fn body<'a>(result: &'a CallToolResult, format: Option<ResultFormat>, opts: &ResultOptions, is_error: bool, media: &mut Media) -> Body<'a> {
    let content = &result.content;
    let sc = result.structured_content.as_ref();
    // As JavaScript spells its numbers (`0.0000025`, not `2.5e-6`): the structure is sent as the
    // JS value `JSON.stringify` writes so, and its text is read as that. Only what a cap needs
    // is written (the whole where it fits), with the length of the whole (F1, s24e).
    let json = sc.map(|sc| crate::text::to_string_js_within(sc, opts.max_chars.saturating_add(KEPT_PAST_CAP)));
    let json_len = json.as_ref().map_or(0, |(_, units)| *units);
    // An error where the provider takes text alone has no slot but its text.
    let text_only_error = is_error && format.is_some_and(|f| !f.error_takes_media(opts));
    let has_slot = |sc: &&Value| match format {
        Some(ResultFormat::Gemini | ResultFormat::Vertex) => !is_error && !holds_ref(sc),
        Some(ResultFormat::Bedrock) => sc.is_object() && !text_only_error,
        Some(ResultFormat::OpenAi | ResultFormat::OpenAiResponses | ResultFormat::Anthropic | ResultFormat::Ollama) | None => false,
    };
    let slot = sc.filter(has_slot).filter(|_| json_len <= opts.max_chars);
    let repeated: Vec<bool> = match sc {
        Some(sc) => content.iter().map(|b| repeats(b, sc)).collect(),
        None => vec![false; content.len()],
    };
    // What the structure sent as data makes redundant: a repeat that says no more than it.
    let redundant: Vec<bool> = match slot {
        Some(_) => content.iter().zip(&repeated).map(|(b, &r)| r && !crate::content::holds_long_number(b)).collect(),
        None => repeated.clone(),
    };
    // The content but the block at `skip`, and the structure's JSON after it when `json` is given.
    let start = *media;
    // From the media budget as it was: the reservation builds again.
    // `in_slot`: the structure goes as data, and the blocks it makes redundant are left out.
    // `json`: the text written after the content, and the units of it past what was written.
    let build = |in_slot: bool, skip: Option<usize>, json: Option<(&str, usize)>, media: &mut Media| {
        *media = start;
        let mut b = Builder::new(format, opts, Vec::new(), start);
        b.text_only_error = text_only_error;
        for (i, (block, &redundant)) in content.iter().zip(&redundant).enumerate() {
            if (redundant && in_slot) || skip == Some(i) {
                continue;
            }
            match block {
                ContentBlock::Image(img) => b.image(img),
                ContentBlock::Audio(audio) => b.audio(audio),
                // A resource of text and blob (which MCP does not allow): both, the text first.
                ContentBlock::Resource(r) => {
                    let res = &r.resource;
                    if res.text.is_some() || res.blob.is_none() {
                        b.block(block);
                    }
                    match res.blob.as_deref() {
                        Some(blob) if res.text.is_none() || !blob.is_empty() => b.blob(res, blob),
                        _ => {}
                    }
                }
                other => b.block(other),
            }
        }
        if let Some((json, more)) = json {
            b.add(json, more);
        }
        let (built, left) = b.built();
        *media = left;
        built
    };
    if slot.is_some() {
        let built = build(true, None, None, media);
        let room = opts.max_chars - json_len;
        // Where the text must be cut, the structure leaves room for the cut's marker, or it goes
        // as text, cut with the rest: text is never cut without a word.
        if built.units() <= room || room >= SHORT_MARKER.len() {
            return Body { parts: built.capped(room), structured: slot };
        }
    }
    let structured = None;
    if is_error && sc.is_none() && content.iter().all(|b| matches!(b, ContentBlock::Text(t) if t.text.trim().is_empty())) {
        // An error that says nothing still says it is one.
        let line = fitting(&EMPTY_ERRORS, opts.max_chars);
        let parts = if line.is_empty() { Vec::new() } else { vec![Part::Text(line.owned())] };
        return Body { parts, structured };
    }
    // Sent as text: the JSON after the content, or the text block that already is it. A block
    // that is it over the cap (pretty-printed, as the Python SDK writes it) gives way to the
    // compact JSON when that fits: cut, it would be JSON no longer, and the rest of the structure
    // lost. One that writes a number past a double's digits says more than the JSON, and stays.
    // `skip`: the block the text stands for; `after`: the text goes after the content, in place
    // of that block (rather than the block where it is).
    // The text: the JSON (what was written of it, and the units past that), or the block's own.
    // Only a text block repeats the structure.
    let repeat = repeated.iter().position(|&r| r).and_then(|i| match &content[i] {
        ContentBlock::Text(t) => Some((i, t.text.as_str())),
        _ => None,
    });
    let as_text: Option<(Option<usize>, bool, &str, usize)> = match repeat {
        Some((i, block)) => match &json {
            Some((json, _)) if utf16_len(block) > opts.max_chars && json_len <= opts.max_chars && !crate::content::holds_long_number(&content[i]) => {
                Some((Some(i), true, json.as_str(), 0))
            }
            _ => Some((Some(i), false, block, 0)),
        },
        None => json.as_ref().map(|(json, units)| (None, true, json.as_str(), units - utf16_len(json))),
    };
    let Some((skip, after, text, more)) = as_text else {
        let parts = build(false, None, None, media).capped(opts.max_chars);
        return Body { parts, structured };
    };
    let left_out = skip.filter(|_| after);
    let built = build(false, left_out, after.then_some((text, more)), media);
    let text_len = utf16_len(text) + more;
    let parts = if built.units() > opts.max_chars && text_len <= opts.max_chars {
        // Over the cap, but the structure fits: it is kept whole, at the end, and the rest of the
        // text has what it leaves (less the line break before it), when that is room for the
        // cut's marker at least; else all is cut where the cap falls, and marked.
        let rest = build(false, skip, None, media);
        let line_break = usize::from(rest.joins);
        let room = opts.max_chars.saturating_sub(text_len + line_break);
        if room >= SHORT_MARKER.len() {
            // Indexed again: the cap may have dropped text.
            let mut b = Builder::new(format, opts, rest.capped(room), *media);
            b.text(text.owned());
            b.parts
        } else {
            build(false, left_out, after.then_some((text, more)), media).capped(opts.max_chars)
        }
    } else {
        built.capped(opts.max_chars)
    };
    Body { parts, structured }
}

/// Whether `v` has a `$ref` key at any depth (a JSON Schema or an OpenAPI fragment). Gemini reads
/// a `$ref` in `functionResponse.response` as a reference to one of the `parts` by its display
/// name, and refuses the request when none has it (400 "The referenced name `#/$defs/X` in
/// function_response.response does not match to a display_name in the function_response.parts",
/// vercel/ai#14369): such a structure goes as its JSON text.
fn holds_ref(v: &Value) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if o.contains_key("$ref") {
                    return true;
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    false
}

/// The text of an error result without content.
pub const EMPTY_ERROR: &str = "The tool reported an error with no content.";

/// The text of an error result whose content is media alone (sent beside the text: Gemini's
/// `parts`, Ollama's `images`).
const MEDIA_ERROR: &str = "The tool reported an error with no text; its content is the attached media.";

/// [`EMPTY_ERROR`] and shorter sentences saying the same, for smaller caps: toolwire's own
/// sentence is never cut (a cut would have no room for its marker beside it).
const EMPTY_ERRORS: [&str; 4] = [EMPTY_ERROR, "Error with no content.", "Error.", "Error"];

/// [`MEDIA_ERROR`] and shorter sentences saying the same.
const MEDIA_ERRORS: [&str; 6] = [MEDIA_ERROR, "Error with no text; see the attached media.", "Error; see the attached media.", "Error; see media.", "Error.", "Error"];

/// The longest of `lines` (ASCII, longest first) within `max` units, or none.
fn fitting(lines: &[&'static str], max: usize) -> &'static str {
    lines.iter().copied().find(|l| l.len() <= max).unwrap_or_default()
}

/// An error's text where the message keeps text apart from media, never empty: `text`, or, when it
/// says nothing, [`MEDIA_ERROR`] (media sent) or [`EMPTY_ERROR`], or a shorter sentence saying the
/// same where that is over `max` (never one cut: [`fitting`]).
fn error_text(text: String, parts: &[Part], max: usize) -> String {
    if !text.trim().is_empty() {
        return text;
    }
    let lines: &[&str] = match parts.iter().any(|p| !matches!(p, Part::Text(_))) {
        true => &MEDIA_ERRORS,
        false => &EMPTY_ERRORS,
    };
    fitting(lines, max).owned()
}

/// The UTF-16 length of the text of `parts`.
fn text_units(parts: &[Part]) -> usize {
    parts.iter().map(|p| if let Part::Text(t) = p { utf16_len(t) } else { 0 }).sum()
}

/// `result` as text: its content, then its `structuredContent` as JSON unless a text block is
/// that JSON, capped as [`body`] caps it (`flattenContent`); an error starts with `Error: `, as
/// OpenAI's tool message does.
pub(crate) fn flatten(result: &CallToolResult, max_chars: usize) -> String {
    let is_error = result.is_error == Some(true);
    // The prefix is within the cap.
    let cap = max_chars;
    let max_chars = if is_error { max_chars.saturating_sub(ERROR_PREFIX.len()) } else { max_chars };
    let opts = ResultOptions { max_chars, ..ResultOptions::default() };
    let Body { parts, .. } = body(result, None, &opts, is_error, &mut Media::none());
    let text = text_of(&parts);
    if is_error {
        with_prefix(text, cap)
    } else {
        text
    }
}

/// `Error: ` and `text`, held to `max`. Where there is no text, or no room for the prefix and
/// the text (a cap under 7 units), the longest of `Error.` and `Error` that fits, or nothing:
/// toolwire's own words are never cut (`Err`, `Error:`).
fn with_prefix(text: String, max: usize) -> String {
    // toolwire's own short forms say it already ("Error; see media.", not "Error: Error; see media."),
    // and so does a tool's text that starts with the prefix ("Error: disk full", not "Error: Error: ...").
    if text.starts_with("Error") && utf16_len(&text) <= max && (text.starts_with(ERROR_PREFIX) || EMPTY_ERRORS.iter().chain(&MEDIA_ERRORS).any(|l| *l == text)) {
        return text;
    }
    if text.is_empty() || ERROR_PREFIX.len() + utf16_len(&text) > max {
        return fitting(&["Error.", "Error"], max).owned();
    }
    format!("{ERROR_PREFIX}{text}")
}

/// The text of an Anthropic or Bedrock result where none is left (both refuse a result without
/// text): `(no output)` where the result said nothing, `[Truncated]` where the cap left nothing of
/// what it said. Either is the one text sent past a `max_chars` under its 11 units.
fn no_text(result: &CallToolResult) -> &'static str {
    let said = result.structured_content.is_some() || result.content.iter().any(|b| !matches!(b, ContentBlock::Text(t) if t.text.trim().is_empty()));
    match said {
        true => SHORT_MARKER.trim_start(),
        false => "(no output)",
    }
}

/// An error's text among the media of a Responses output, within `max` units (its parts' text
/// held to `capped`, `max` less the prefix): `Error: ` before the first item when it is text;
/// before media, `Error:` alone where text follows them, and where none does the media-error
/// sentence after `Error: ` (as Ollama's), or the longest shorter form that fits, or nothing
/// (never toolwire's own words cut).
fn responses_error_text(parts: &mut Vec<Part>, capped: usize, max: usize) {
    if let Some(Part::Text(t)) = parts.first_mut() {
        *t = with_prefix(std::mem::take(t), max);
        if t.is_empty() {
            parts.remove(0);
        }
        return;
    }
    let text = match parts.iter().any(|p| matches!(p, Part::Text(_))) {
        true if max >= ERROR_PREFIX.trim_end().len() => ERROR_PREFIX.trim_end().owned(),
        true => with_prefix(String::new(), max),
        false => with_prefix(error_text(String::new(), parts, capped), max),
    };
    if !text.is_empty() {
        parts.insert(0, Part::Text(text));
    }
}

/// What OpenAI's text (and `flattenContent`'s) starts with for an error.
const ERROR_PREFIX: &str = "Error: ";

/// Cuts the text of `parts` to `max` UTF-16 code units in all, the marker included, in order:
/// the text where the cap falls is cut and ends with the marker, which says how much of it all was
/// shown (alone, without its line break, when nothing of that text is left), and the text after
/// it is dropped. Images and documents stay: the cap is on text.
/// `total`: the units of their text, some of them past what they hold where a [`Builder`] left
/// them unwritten (the cut falls before those).
fn cap_text(parts: &mut Vec<Part>, total: usize, max: usize) {
    if total <= max {
        return;
    }
    let mut cut = Cut::new(max, total);
    parts.retain_mut(|p| match p {
        Part::Text(t) => cut.keep(t) && !t.is_empty(),
        _ => true,
    });
}

/// `bytes` in MB (10^6), to two decimals at most: `3.75 MB`, `20 MB`.
fn megabytes(bytes: usize) -> String {
    hundredths((bytes as u64).saturating_add(5_000) / 10_000, "MB")
}

/// A count of hundredths of `unit`, its trailing zeros left out: `3.75 MB`, `1.5 MB`, `20 MB`.
fn hundredths(n: u64, unit: &str) -> String {
    let (whole, frac) = (n / 100, n % 100);
    match frac {
        0 => format!("{whole} {unit}"),
        f if f % 10 == 0 => format!("{whole}.{} {unit}", f / 10),
        f => format!("{whole}.{f:02} {unit}"),
    }
}

/// The text of `parts`, joined by line breaks (media left out: their placeholders, where the
/// message has them, are text already).
fn text_of(parts: &[Part]) -> String {
    let mut out = String::new();
    for p in parts {
        if let Part::Text(t) = p {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(t);
        }
    }
    out
}

fn data_url(mime: &str, data: &str) -> String {
    format!("data:{mime};base64,{data}")
}

/// [`CallRef::from_value`]'s error for a value without a call's name: what it is instead when it
/// is what goes beside a call (a tool's result, given first with the arguments' order mistaken)
/// or what holds calls (a provider's response or message, whose calls `parseToolCalls` gives).
#[cold]
#[inline(never)]
fn not_a_call(v: &Value) -> Error {
    const MISSING: &str = "call must have a string `providerName` (or `name`, `function.name` or `custom.name`)";
    let has = |k: &str| v.get(k).is_some_and(|x| !x.is_null());
    let holds = ["choices", "candidates", "output", "tool_calls", "role", "stopReason", "stop_reason"].into_iter().find(|k| has(k));
    let message = if let Some(key) = holds {
        format!("{MISSING}; got a provider's response or message (it has `{key}`), which holds calls: parseToolCalls(response, provider, nameMap) gives them, to answer one at a time")
    } else if let Some(key) = ["content", "structuredContent", "isError"].into_iter().find(|k| has(k)) {
        format!("{MISSING}; got what looks like a tool's result (it has `{key}`): the arguments' order? toolResultMessage(call, result, provider), toolResultMessages(calls, results, provider)")
    } else {
        MISSING.owned()
    };
    Error::new(ErrorCode::InvalidInput, message)
}

/// The call fields a result message needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallRef {
    /// The provider's call id (an empty one counts as none).
    pub id: Option<String>,
    /// The name the provider used.
    pub name: String,
    /// A tool use of OpenAI's parallel wrapper ([`crate::calls::Parallel`]): OpenAI Responses
    /// takes one output for the wrapper, which [`tool_result_messages`] writes of all its calls'
    /// results.
    pub parallel: Option<Parallel>,
    /// A call of an OpenAI custom tool (free-form input): the Responses API takes its output as a
    /// `custom_tool_call_output`, not a `function_call_output`.
    pub custom: bool,
}

impl CallRef {
    /// Reads an entry of `parseToolCalls` (`{id, providerName}`), `{id, name}`, or a call as the
    /// provider's SDK gives it: a Responses `function_call` item (its `call_id`, not its item
    /// `id`), a Chat `tool_call` (`{id, function: {name}}`, or a custom tool's `{id, custom:
    /// {name}}`), a Responses `custom_tool_call` item, a Bedrock `toolUse` (`{toolUseId, name}`,
    /// or the content block that holds it), an Anthropic `tool_use` block, a Gemini `functionCall`
    /// (or the part that holds it, `{functionCall, thoughtSignature}`). The id is `call_id`, else
    /// `toolUseId`, else `id`. A custom tool's call is one of `custom: true` (as `parseToolCalls`
    /// marks it), of `type: "custom_tool_call"`, or with a `custom` object. The name may be empty
    /// (a call the model sent without one, an error answered under its id): only the formats that
    /// write it refuse that ([`message`]).
    pub fn from_value(v: &Value) -> Result<Self> {
        let v = match v.get("toolUse").or_else(|| v.get("functionCall")) {
            Some(inner @ Value::Object(_)) if v.get("name").is_none() && v.get("providerName").is_none() => inner,
            _ => v,
        };
        let name = v
            .get("providerName")
            .or_else(|| v.get("name"))
            .or_else(|| v.get("function").and_then(|f| f.get("name")))
            .or_else(|| v.get("custom").and_then(|f| f.get("name")))
            .and_then(Value::as_str)
            .ok_or_else(|| not_a_call(v))?;
        let kind = v.get("type").and_then(Value::as_str);
        let custom = v.get("custom").is_some_and(|c| *c == Value::Bool(true) || c.is_object()) || kind == Some("custom_tool_call");
        // An empty id is no id: no provider takes one (Bedrock's toolUseId is 1-64 characters).
        // A Responses item's `id` is the item's, never a call id.
        let keys: &[&str] = match kind {
            Some("function_call" | "custom_tool_call") => &["call_id"],
            _ => &["call_id", "toolUseId", "id"],
        };
        let mut id = None;
        for &key in keys {
            match v.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) if s.is_empty() => {}
                Some(Value::String(s)) => {
                    id = Some(s.clone());
                    break;
                }
                Some(_) => return Err(Error::new(ErrorCode::InvalidInput, format!("call.{key} must be a string"))),
            }
        }
        Ok(Self { id, name: name.owned(), parallel: parallel_of(v)?, custom })
    }

    /// The id, if it has one that is not empty.
    fn id(&self) -> Option<&str> {
        self.id.as_deref().filter(|id| !id.is_empty())
    }

    fn require_id(&self, provider: &str) -> Result<&str> {
        self.id().ok_or_else(|| {
            Error::new(ErrorCode::InvalidInput, format!("{provider} tool results need the call's id; call \"{}\" has none", self.name))
        })
    }
}

/// A call's `parallel` (as [`crate::calls::ToolCall`] writes it), if it has one.
fn parallel_of(v: &Value) -> Result<Option<Parallel>> {
    let p = match v.get("parallel") {
        None | Some(Value::Null) => return Ok(None),
        Some(p) => p,
    };
    let bad = || Error::new(ErrorCode::InvalidInput, "call.parallel must be {id, name, index, count} as parseToolCalls gives it, index below count");
    let id = match p.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()).filter(|s| !s.is_empty()),
        Some(_) => return Err(bad()),
    };
    let name = p.get("name").and_then(Value::as_str).ok_or_else(bad)?.owned();
    let number = |k: &str| p.get(k).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok()).ok_or_else(bad);
    let (index, count) = (number("index")?, number("count")?);
    if index >= count {
        return Err(bad());
    }
    Ok(Some(Parallel { id, name, index, count }))
}

/// The provider message (or, for OpenAI Chat with `image_message`, messages) for a result.
///
/// OpenAI Responses: a tool use of a parallel wrapper of more than one (`call.parallel`) is
/// `INVALID_INPUT`: the API takes one output for the wrapper, of all its results, which
/// [`tool_result_messages`] writes.
pub fn tool_result_message(call: &CallRef, result: &CallToolResult, format: ResultFormat, opts: &ResultOptions) -> Result<Value> {
    match &call.parallel {
        Some(p) if format == ResultFormat::OpenAiResponses => {
            if p.count > 1 {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "call \"{}\" is tool use {} of the {} of OpenAI's parallel wrapper call {}: the Responses API takes one function_call_output for the wrapper, with every tool use's result: give all {} calls and results to toolResultMessages",
                        call.name,
                        p.index,
                        p.count,
                        p.id.as_deref().unwrap_or("(no id)"),
                        p.count
                    ),
                ));
            }
            Media::within(format, opts, |media| wrapper_output(p, &[(call, result)], opts, media, &mut Vec::new()))
        }
        _ => Media::within(format, opts, |media| message(call, result, format, opts, media, &mut Vec::new())),
    }
}

/// OpenAI Responses: the one `function_call_output` for the parallel wrapper `p`, of the results
/// of its tool uses (`uses`, in index order, all of them): each one's output as
/// [`tool_result_message`] writes it, under a line naming it (`tool_uses[0] (NAME):`, or
/// `tool_uses[0]:` for a tool use without a name), the
/// texts joined with a blank line (with `multimodal` and media, the items in order, each use's
/// line an `input_text`).
fn wrapper_output(p: &Parallel, uses: &[(&CallRef, &CallToolResult)], opts: &ResultOptions, media: &mut Media, names: &mut Vec<String>) -> Result<Value> {
    let format = ResultFormat::OpenAiResponses;
    let id = CallRef { id: p.id.clone(), name: p.name.clone(), parallel: None, custom: false }.require_id("OpenAI Responses")?.owned();
    let labels: Vec<String> =
        uses.iter()
            .map(|(tool_use, _)| {
                let index = tool_use.parallel.as_ref().map_or(0, |p| p.index);
                match tool_use.name.is_empty() {
                    true => format!("tool_uses[{index}]:"),
                    false => format!("tool_uses[{index}] ({}):", tool_use.name),
                }
            })
            .collect();
    let write = |caps: &[usize], media: &mut Media, names: &mut Vec<String>| -> Result<Vec<Value>> {
        uses.iter()
            .zip(caps)
            .map(|((tool_use, result), &max_chars)| {
                let call = CallRef { id: Some(id.clone()), name: tool_use.name.clone(), parallel: None, custom: false };
                let mut m = message(&call, result, format, &ResultOptions { max_chars, ..*opts }, media, names)?;
                Ok(m.get_mut("output").map(Value::take).expect("a function_call_output has its output"))
            })
            .collect()
    };
    // One cap over the whole output, as over one result's: each result written uncapped first (on
    // copies of the budgets), then given what it needs of what the labels leave, the longest cut
    // to equal shares.
    let (mut scratch_media, mut scratch_names) = (*media, names.clone());
    let whole = write(&vec![usize::MAX; uses.len()], &mut scratch_media, &mut scratch_names)?;
    let multimodal = whole.iter().any(Value::is_array);
    // Each label, the line break after it where the output is text, and the blank line between
    // texts where all are.
    let labels_len: usize = labels.iter().zip(&whole).map(|(l, w)| utf16_len(l) + usize::from(!w.is_array())).sum::<usize>()
        + if multimodal { 0 } else { 2 * uses.len().saturating_sub(1) };
    let lengths: Vec<usize> = whole.iter().map(output_units).collect();
    let caps = shares(&lengths, opts.max_chars.saturating_sub(labels_len));
    // Shares that leave a cut result room for its marker, under lines that fit the cap; else the
    // results whole, and one cut where the cap falls over all of it, as over one result's text.
    // Where nothing is cut, the results written whole are the output (their budgets with them).
    let whole_fit = labels_len <= opts.max_chars && caps.iter().zip(&lengths).all(|(&cap, &len)| cap >= len);
    // A cut result's share holds its marker after the `Error: ` of an error, which [`message`]
    // takes out of it.
    let marker_room = |(_, result): &(&CallRef, &CallToolResult)| SHORT_MARKER.len() + if result.is_error == Some(true) { ERROR_PREFIX.len() } else { 0 };
    let shared = labels_len <= opts.max_chars
        && caps.iter().zip(&lengths).zip(uses).all(|((&cap, &len), tool_use)| cap >= len || cap >= marker_room(tool_use));
    let outputs = match shared && !whole_fit {
        true => write(&caps, media, names)?,
        false => {
            (*media, *names) = (scratch_media, scratch_names);
            whole
        }
    };
    let mut output = if outputs.iter().any(Value::is_array) {
        let mut items = Vec::new();
        for (label, output) in labels.into_iter().zip(outputs) {
            match output {
                Value::Array(output) => {
                    items.push(object([("type", string("input_text")), ("text", Value::String(label))]));
                    items.extend(output);
                }
                other => {
                    let text = other.as_str().unwrap_or_default();
                    items.push(object([("type", string("input_text")), ("text", Value::String(format!("{label}\n{text}")))]));
                }
            }
        }
        Value::Array(items)
    } else {
        let texts: Vec<String> = labels.into_iter().zip(outputs).map(|(label, text)| format!("{label}\n{}", text.as_str().unwrap_or_default())).collect();
        Value::String(texts.join("\n\n"))
    };
    if !shared {
        cap_output(&mut output, opts.max_chars);
    }
    Ok(object([("type", string("function_call_output")), ("call_id", Value::String(id)), ("output", output)]))
}

/// A Responses output cut once where `max` UTF-16 units of its text fall, and marked; the text
/// items after the cut are dropped, the others (images, files) kept.
fn cap_output(output: &mut Value, max: usize) {
    let total = output_units(output);
    if total <= max {
        return;
    }
    match output {
        Value::String(s) => *s = crate::content::truncate_utf16(std::mem::take(s), max),
        Value::Array(items) => {
            let mut cut = Cut::new(max, total);
            items.retain_mut(|item| match item.get_mut("text") {
                Some(Value::String(t)) => cut.keep(t),
                _ => true,
            });
        }
        _ => {}
    }
}

/// The text of a Responses output, in UTF-16 units: a string, or its items' texts.
fn output_units(output: &Value) -> usize {
    match output {
        Value::String(s) => utf16_len(s),
        Value::Array(items) => items.iter().filter_map(|i| i.get("text").and_then(Value::as_str)).map(utf16_len).sum(),
        _ => 0,
    }
}

/// `budget` shared among texts of `lengths`: each short one whole, the rest in equal shares of
/// what those leave (the first ones a unit more where it does not divide).
fn shares(lengths: &[usize], budget: usize) -> Vec<usize> {
    // (length, index) pairs: the shortest first, as many units long in their order (a stable
    // sort by length), with the crate's one `(usize, usize)` sort.
    let mut order: Vec<(usize, usize)> = lengths.iter().copied().zip(0..).collect();
    crate::model::sort_pairs(&mut order);
    let mut caps = vec![0; lengths.len()];
    let mut left = budget;
    for (k, &(_, i)) in order.iter().enumerate() {
        let rest = lengths.len() - k;
        if lengths[i] <= left / rest {
            caps[i] = lengths[i];
            left -= lengths[i];
            continue;
        }
        // This one and all longer: equal shares, the first (in the wrapper's order) a unit more.
        let mut longer = vec![false; lengths.len()];
        for &(_, i) in &order[k..] {
            longer[i] = true;
        }
        for (j, i) in (0..lengths.len()).filter(|&i| longer[i]).enumerate() {
            caps[i] = left / rest + usize::from(j < left % rest);
        }
        break;
    }
    caps
}

/// [`tool_result_message`] within what is left of a media budget; `names` holds the Bedrock
/// document names the turn has used (lower case: Bedrock refuses duplicates across the request's
/// messages, compared without case).
fn message(call: &CallRef, result: &CallToolResult, format: ResultFormat, opts: &ResultOptions, media: &mut Media, names: &mut Vec<String>) -> Result<Value> {
    let is_error = result.is_error == Some(true);
    // The id first: a call without one is refused before any work on the result.
    let id = match format {
        ResultFormat::OpenAi => Some(call.require_id("OpenAI")?),
        ResultFormat::OpenAiResponses => Some(call.require_id("OpenAI Responses")?),
        ResultFormat::Anthropic => Some(call.require_id("Anthropic")?),
        ResultFormat::Bedrock => Some(call.require_id("Bedrock")?),
        // Ollama's own calls have no id (parseToolCalls makes `call_{n}` up): the name answers.
        ResultFormat::Gemini | ResultFormat::Vertex | ResultFormat::Ollama => call.id(),
    };
    // Gemini's `functionResponse.name` and Ollama's `tool_name` answer by the name; the other
    // formats by the id alone, so that a call the model sent without a name (an error) is answered.
    if call.name.is_empty() && matches!(format, ResultFormat::Gemini | ResultFormat::Vertex | ResultFormat::Ollama) {
        let what = if format == ResultFormat::Ollama { "Ollama's tool message (`tool_name`)" } else { "Gemini's functionResponse" };
        return Err(Error::new(ErrorCode::InvalidInput, format!("call has an empty name: {what} needs the name the provider called")));
    }
    // OpenAI's `Error: ` prefix is within the cap.
    let prefixed = is_error && (matches!(format, ResultFormat::OpenAi | ResultFormat::OpenAiResponses | ResultFormat::Ollama) || (format == ResultFormat::Bedrock && !opts.bedrock_status));
    let capped = ResultOptions { max_chars: opts.max_chars.saturating_sub(if prefixed { ERROR_PREFIX.len() } else { 0 }), ..*opts };
    let Body { parts, structured } = body(result, Some(format), &capped, is_error, media);
    Ok(match format {
        ResultFormat::OpenAi => {
            let id = id.unwrap_or_default();
            let mut text = text_of(&parts);
            if is_error {
                text = with_prefix(text, opts.max_chars);
            }
            let msg = object([("role", string("tool")), ("tool_call_id", id.into()), ("content", Value::String(text))]);
            // What the tool message cannot hold, for the user message after it: images, and PDFs
            // as `file` parts ([`ResultFormat::sends_document`]).
            let media: Vec<Value> = parts
                .into_iter()
                .filter_map(|p| match p {
                    Part::Image(i) => Some(object([("type", string("image_url")), ("image_url", object([("url", Value::String(data_url(i.mime_type, &i.data)))]))])),
                    Part::Document(d) => {
                        let file = object([("filename", Value::String(d.file_name)), ("file_data", Value::String(data_url(d.kind.mime, &d.data)))]);
                        Some(object([("type", string("file")), ("file", file)]))
                    }
                    Part::Text(_) => None,
                })
                .collect();
            if opts.image_message && !media.is_empty() {
                let named = if call.name.is_empty() { String::new() } else { format!(" ({})", call.name) };
                let what = match (media.iter().any(|m| m["type"] == "image_url"), media.iter().any(|m| m["type"] == "file")) {
                    (true, true) => "Images and files",
                    (false, _) => "Files",
                    (true, false) => "Images",
                };
                let mut content = vec![object([("type", string("text")), ("text", Value::String(format!("{what} returned by the tool call {id}{named}:")))])];
                content.extend(media);
                Value::Array(vec![msg, object([("role", string("user")), ("content", Value::Array(content))])])
            } else {
                msg
            }
        }
        ResultFormat::Ollama => {
            let mut text = text_of(&parts);
            if is_error {
                text = with_prefix(error_text(text, &parts, capped.max_chars), opts.max_chars);
            }
            let mut msg = Map::new();
            msg.put("role", string("tool"));
            msg.put("tool_name", string(&call.name));
            msg.put("content", Value::String(text));
            // Ollama's OpenAI-compatible endpoint (and newer /api/chat) reads the id; others ignore it.
            if let Some(id) = id {
                msg.put("tool_call_id", id.into());
            }
            let images: Vec<Value> = parts
                .into_iter()
                .filter_map(|p| match p {
                    Part::Image(i) => Some(Value::String(i.data)),
                    Part::Text(_) | Part::Document(_) => None,
                })
                .collect();
            if !images.is_empty() {
                msg.put("images", Value::Array(images));
            }
            Value::Object(msg)
        }
        ResultFormat::OpenAiResponses => {
            let has_media = parts.iter().any(|p| !matches!(p, Part::Text(_)));
            let output = if opts.multimodal && has_media {
                let mut items = Vec::new();
                let mut parts = parts;
                if is_error {
                    responses_error_text(&mut parts, capped.max_chars, opts.max_chars);
                }
                for p in parts {
                    items.push(match p {
                        Part::Text(t) => object([("type", string("input_text")), ("text", Value::String(t))]),
                        // A custom tool's output takes the input message's image, whose
                        // `detail` the openai SDK types as required.
                        Part::Image(i) if call.custom => {
                            object([("type", string("input_image")), ("image_url", Value::String(data_url(i.mime_type, &i.data))), ("detail", string("auto"))])
                        }
                        Part::Image(i) => object([("type", string("input_image")), ("image_url", Value::String(data_url(i.mime_type, &i.data)))]),
                        Part::Document(d) => object([
                            ("type", string("input_file")),
                            ("filename", Value::String(d.file_name)),
                            ("file_data", Value::String(data_url(d.kind.mime, &d.data))),
                        ]),
                    });
                }
                Value::Array(items)
            } else {
                let text = text_of(&parts);
                Value::String(if is_error { with_prefix(text, opts.max_chars) } else { text })
            };
            // A custom tool's call is answered by its own kind of output (of the same shape).
            let kind = if call.custom { "custom_tool_call_output" } else { "function_call_output" };
            object([("type", string(kind)), ("call_id", id.unwrap_or_default().into()), ("output", output)])
        }
        ResultFormat::Anthropic => {
            let mut content: Vec<Value> = parts
                .into_iter()
                .map(|p| match p {
                    Part::Text(t) => object([("type", string("text")), ("text", Value::String(t))]),
                    Part::Image(i) => {
                        let source = object([("type", string("base64")), ("media_type", i.mime_type.into()), ("data", Value::String(i.data))]);
                        object([("type", string("image")), ("source", source)])
                    }
                    Part::Document(d) => {
                        let source = object([("type", string("base64")), ("media_type", d.kind.mime.into()), ("data", Value::String(d.data))]);
                        object([("type", string("document")), ("source", source)])
                    }
                })
                // Both refuse a text block of whitespace alone ("text content blocks must contain
                // non-whitespace text").
                .filter(|b| !b.get("text").and_then(Value::as_str).is_some_and(|t| t.trim().is_empty()))
                .collect();
            if content.is_empty() {
                content.push(object([("type", string("text")), ("text", string(no_text(result)))]));
            }
            let id = id.unwrap_or_default();
            object([("type", string("tool_result")), ("tool_use_id", id.into()), ("content", Value::Array(content)), ("is_error", is_error.into())])
        }
        ResultFormat::Gemini | ResultFormat::Vertex => {
            // Without `multimodal`, images are named in the text.
            let text = text_of(&parts);
            let response = match structured {
                _ if is_error => object([("error", Value::String(error_text(text, &parts, opts.max_chars)))]),
                // The structure is the output; the rest of the content (links, resources, images'
                // placeholders) beside it.
                Some(sc) => {
                    let mut r = Map::new();
                    r.put("output", sc.clone());
                    if !text.is_empty() {
                        r.put("content", Value::String(text));
                    }
                    Value::Object(r)
                }
                None => object([("output", Value::String(text))]),
            };
            let mut fr = Map::new();
            fr.put("name", string(&call.name));
            if let Some(id) = id {
                fr.put("id", id.into());
            }
            fr.put("response", response);
            if opts.multimodal {
                let inline: Vec<Value> = parts
                    .into_iter()
                    .filter_map(|p| match p {
                        Part::Image(i) => Some(object([("inlineData", object([("mimeType", i.mime_type.into()), ("data", Value::String(i.data))]))])),
                        Part::Document(d) => Some(object([("inlineData", object([("mimeType", d.kind.mime.into()), ("data", Value::String(d.data))]))])),
                        Part::Text(_) => None,
                    })
                    .collect();
                if !inline.is_empty() {
                    fr.put("parts", Value::Array(inline));
                }
            }
            object([("functionResponse", Value::Object(fr))])
        }
        ResultFormat::Bedrock => {
            // Names unique within the turn (`names`), without case, and across the conversation by
            // the call's id, which is unique in it ([`id_tag`]).
            let tag = call.id.as_deref().filter(|id| !id.is_empty()).map(id_tag);
            let mut content: Vec<Value> = parts
                .into_iter()
                .map(|p| match p {
                    Part::Text(t) => object([("text", Value::String(t))]),
                    Part::Image(i) => {
                        let source = object([("bytes", Value::String(i.data))]);
                        object([("image", object([("format", i.mime_type.trim_start_matches("image/").into()), ("source", source)]))])
                    }
                    Part::Document(d) => {
                        let stem = match &tag {
                            Some(tag) => format!("{} ({tag})", bedrock_name(&d.file_name)),
                            None => bedrock_name(&d.file_name),
                        };
                        let mut name = stem.clone();
                        for n in 2.. {
                            if !names.contains(&name.to_ascii_lowercase()) {
                                break;
                            }
                            name = format!("{stem} ({n})");
                        }
                        names.push(name.to_ascii_lowercase());
                        let source = object([("bytes", Value::String(d.data))]);
                        let format = d.kind.bedrock.unwrap_or(d.kind.ext);
                        object([("document", object([("format", format.into()), ("name", Value::String(name)), ("source", source)]))])
                    }
                })
                // Both refuse a text block of whitespace alone ("text content blocks must contain
                // non-whitespace text").
                .filter(|b| !b.get("text").and_then(Value::as_str).is_some_and(|t| t.trim().is_empty()))
                .collect();
            if let Some(sc) = structured {
                content.push(object([("json", sc.clone())]));
            }
            let id = id.unwrap_or_default();
            if !opts.bedrock_status {
                // The error said in the text: `Error: ` before the first text (in the cap), or alone
                // (where a cap under 7 units cuts the first text to nothing, too).
                if prefixed {
                    // The error alone: `Error:` before media, where it fits; else the longest of
                    // `Error.` and `Error` that does, and `Error` past a cap under 5 units (Bedrock
                    // refuses an empty text).
                    let max = opts.max_chars;
                    let alone = |media: bool| {
                        let text = if media && max >= ERROR_PREFIX.trim_end().len() { ERROR_PREFIX.trim_end().owned() } else { with_prefix(String::new(), max.max(5)) };
                        object([("text", Value::String(text))])
                    };
                    // Media and no text at all: the sentence saying so, as Responses' and Ollama's
                    // messages have it (a bare `Error:` would say nothing of them).
                    let media_alone = content.iter().any(|b| b.get("image").or(b.get("document")).or(b.get("video")).is_some()) && !content.iter().any(|b| b.get("text").is_some());
                    match content.first_mut().and_then(|b| b.get_mut("text")) {
                        Some(Value::String(t)) if !with_prefix(t.clone(), max).trim().is_empty() => {
                            *t = with_prefix(std::mem::take(t), max);
                        }
                        Some(Value::String(_)) => content[0] = alone(content.len() > 1),
                        _ if media_alone => {
                            // The longest that fits: the sentence after the prefix, or a short form
                            // (its own `Error`) alone.
                            let fits = |l: &&&str| l.len() + if l.starts_with("Error") { 0 } else { ERROR_PREFIX.len() } <= max;
                            let sentence = with_prefix(MEDIA_ERRORS.iter().find(fits).copied().unwrap_or_default().owned(), max);
                            content.insert(0, if sentence.is_empty() { alone(true) } else { object([("text", Value::String(sentence))]) });
                        }
                        _ => content.insert(0, alone(!content.is_empty())),
                    }
                }
                if content.is_empty() {
                    content.push(object([("text", string(no_text(result)))]));
                }
                return Ok(object([("toolResult", object([("toolUseId", id.into()), ("content", Value::Array(content))]))]));
            }
            if content.is_empty() {
                content.push(object([("text", string(no_text(result)))]));
            }
            let status = if is_error { "error" } else { "success" };
            object([("toolResult", object([("toolUseId", id.into()), ("content", Value::Array(content)), ("status", status.into())]))])
        }
    })
}

/// The messages for the results of several calls of one model turn, in order: each call's message
/// as [`tool_result_message`] writes it, but for OpenAI Chat with `image_message` the tool messages
/// first and then one `user` message with every call's images (OpenAI wants the tool messages right
/// after the assistant message that made the calls: a user message between them is refused).
///
/// OpenAI Responses: the calls of one parallel wrapper (`parallel`, of the same wrapper id) are
/// answered by one `function_call_output` for the wrapper, where the first of them is, of all their
/// results in index order ([`wrapper_output`]); `INVALID_INPUT` when some of its tool uses are
/// missing or given twice.
pub fn tool_result_messages(calls: &[CallRef], results: &[CallToolResult], format: ResultFormat, opts: &ResultOptions) -> Result<Vec<Value>> {
    if calls.len() != results.len() {
        let (c, r) = (calls.len(), results.len());
        return Err(Error::new(ErrorCode::InvalidInput, format!("{c} calls but {r} results: one result for each call, in order")));
    }
    // One request: one media budget.
    Media::within(format, opts, |media| turn_messages(calls, results, format, opts, media))
}

/// [`tool_result_messages`] for as many results as calls, within `media`.
fn turn_messages(calls: &[CallRef], results: &[CallToolResult], format: ResultFormat, opts: &ResultOptions, media: &mut Media) -> Result<Vec<Value>> {
    let mut messages = Vec::with_capacity(calls.len() + 1);
    let mut images: Vec<Value> = Vec::new();
    // One turn: Bedrock's document names unique across its results (numbered), as they are
    // across the conversation's turns (each named by its call's id, [`id_tag`]).
    let mut names = Vec::new();
    // Responses: each parallel wrapper's tool uses (their places in `calls`, by the wrapper's
    // id), taken out when the wrapper is answered, where the first of them is.
    let mut wrappers: std::collections::HashMap<Option<&str>, Vec<usize>> = std::collections::HashMap::new();
    if format == ResultFormat::OpenAiResponses {
        for (j, call) in calls.iter().enumerate() {
            if let Some(p) = &call.parallel {
                wrappers.entry(p.id.as_deref()).or_default().push(j);
            }
        }
    }
    for (i, (call, result)) in calls.iter().zip(results).enumerate() {
        let at = |mut e: Error| {
            e.message = format!("calls[{i}]: {}", e.message);
            e
        };
        let message = match &call.parallel {
            Some(p) if format == ResultFormat::OpenAiResponses => {
                let Some(group) = wrappers.remove(&p.id.as_deref()) else { continue };
                let uses = wrapper_uses(p, calls, results, &group).map_err(at)?;
                wrapper_output(p, &uses, opts, media, &mut names).map_err(at)?
            }
            _ => message(call, result, format, opts, media, &mut names).map_err(at)?,
        };
        match message {
            // OpenAI Chat's [tool, user]: the user message's parts wait for the end.
            Value::Array(pair) => {
                let mut pair = pair.into_iter();
                messages.extend(pair.next());
                if let Some(Value::Array(parts)) = pair.next().and_then(|mut user| user.get_mut("content").map(Value::take)) {
                    images.extend(parts);
                }
            }
            message => messages.push(message),
        }
    }
    if !images.is_empty() {
        messages.push(object([("role", string("user")), ("content", Value::Array(images))]));
    }
    Ok(messages)
}

/// The calls at `group` (the places of the wrapper's tool uses in `calls`, the first of them
/// first) of the parallel wrapper `p`, with their results, in index order: all `p.count` of them,
/// each once, or `INVALID_INPUT` saying which are not. A `count` past the calls given is missing
/// some: only the first few missing are named, and nothing `count` long is made.
fn wrapper_uses<'a>(p: &Parallel, calls: &'a [CallRef], results: &'a [CallToolResult], group: &[usize]) -> Result<Vec<(&'a CallRef, &'a CallToolResult)>> {
    const NAMED: usize = 8;
    let first = group[0];
    let id = p.id.as_deref().unwrap_or("(no id)");
    let mut uses: Vec<Option<(&CallRef, &CallToolResult)>> = vec![None; p.count.min(group.len())];
    // Indices past `uses` (which is no longer than the calls given).
    let mut beyond = std::collections::HashSet::new();
    for &j in group {
        let Some(q) = calls[j].parallel.as_ref() else { continue };
        let bad = || {
            Error::new(
                ErrorCode::InvalidInput,
                format!("calls[{j}] is tool use {} of {} of the parallel wrapper call {id}, which calls[{first}] says has {}: each tool use once, as parseToolCalls gave them", q.index, q.count, p.count),
            )
        };
        if q.count != p.count || q.name != p.name || q.index >= p.count {
            return Err(bad());
        }
        match uses.get_mut(q.index) {
            Some(slot @ None) => *slot = Some((&calls[j], &results[j])),
            None if beyond.insert(q.index) => {}
            _ => return Err(bad()),
        }
    }
    if uses.len() < p.count || uses.iter().any(Option::is_none) {
        // Fewer calls than tool uses, or some index twice: the first few absent indices.
        let present = |k: usize| uses.get(k).is_some_and(Option::is_some) || beyond.contains(&k);
        let missing: Vec<String> = (0..p.count).filter(|&k| !present(k)).take(NAMED).map(|k| k.to_string()).collect();
        let absent = p.count - uses.iter().flatten().count() - beyond.len();
        let more = if absent > missing.len() { format!(" and {} more", absent - missing.len()) } else { String::new() };
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!(
                "the call \"{}\" is a tool use of OpenAI's parallel wrapper call {id}, whose tool uses {}{more} have no result here: the Responses API takes one function_call_output for the wrapper, with all {} results",
                calls[first].name,
                missing.join(", "),
                p.count
            ),
        ));
    }
    Ok(uses.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // 1x1 PNG
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    // JPEG magic, labelled PNG by a server
    const JPEG: &str = "/9j/4AAQSkZJRgABAQAAAQABAAD/wAALCAABAAEBAREA/9oACAEBAAA/AP/Z";

    fn result(v: Value) -> CallToolResult {
        CallToolResult::from_value(v).unwrap()
    }

    fn call() -> CallRef {
        CallRef { id: Some("call_1".into()), name: "mcp__s__t".into(), parallel: None, custom: false }
    }

    #[test]
    fn base64_round_trip() {
        assert_eq!(decode_base64("aGVsbG8="), b"hello");
        assert_eq!(decode_base64("aGVsbG8h"), b"hello!");
        assert_eq!(decode_base64("aGk="), b"hi");
        assert_eq!(&decode_base64(PNG)[1..4], b"PNG");
    }

    #[test]
    fn images_are_checked() {
        assert_eq!(check_image(PNG).unwrap().mime_type, "image/png");
        assert_eq!(check_image(&format!("data:image/png;base64,{PNG}")).unwrap().data, PNG);
        assert_eq!(check_image(&format!("DATA:image/PNG;BASE64,{PNG}")).unwrap().data, PNG);
        assert_eq!(check_image(&format!("Data:,{PNG}")).unwrap().data, PNG);
        assert_eq!(check_image("dätä:,x"), Err(ImageProblem::InvalidBase64));
        // https://github.com/anthropics/claude-code/issues/11975: the bytes decide
        assert_eq!(check_image(JPEG).unwrap().mime_type, "image/jpeg");
        assert_eq!(check_image(""), Err(ImageProblem::Empty));
        assert_eq!(check_image("not base64!"), Err(ImageProblem::InvalidBase64));
        assert_eq!(check_image("PHN2Zz48L3N2Zz4="), Err(ImageProblem::Unsupported)); // <svg></svg>
        // Standard base64 is taken as it is; `=` only at the end, two at most; padding restored.
        let body = PNG.trim_end_matches('=');
        assert_eq!(check_image(body).unwrap().data, PNG);
        let (a, b) = body.split_at(8);
        assert_eq!(check_image(&format!("{a}={b}")), Err(ImageProblem::InvalidBase64));
        assert_eq!(check_image(&format!("{body}===")), Err(ImageProblem::InvalidBase64));
        // Line breaks and the URL-safe alphabet are cleaned first.
        let wrapped = format!("{a}\r\n {b}");
        assert_eq!(check_image(&wrapped).unwrap().data, PNG);
        let url_safe = PNG.replace('+', "-").replace('/', "_");
        assert_eq!(check_image(&url_safe).unwrap().data, PNG);
        assert_eq!(check_image(&format!("{a}\n={b}")), Err(ImageProblem::InvalidBase64));
        assert_eq!(check_image(&format!("{a}é{b}")), Err(ImageProblem::InvalidBase64));
    }

    #[test]
    fn anthropic_tool_result() {
        let r = result(json!({"content":[{"type":"text","text":"shot"},{"type":"image","data":format!("data:image/jpeg;base64,{JPEG}"),"mimeType":"image/png"},{"type":"image","data":"","mimeType":"image/png"}],"isError":false}));
        let m = tool_result_message(&call(), &r, ResultFormat::Anthropic, &ResultOptions::default()).unwrap();
        assert_eq!(m["type"], "tool_result");
        assert_eq!(m["tool_use_id"], "call_1");
        assert_eq!(m["is_error"], false);
        assert_eq!(m["content"][0], json!({"type":"text","text":"shot"}));
        assert_eq!(m["content"][1]["source"]["media_type"], "image/jpeg");
        assert!(!m["content"][1]["source"]["data"].as_str().unwrap().starts_with("data:"));
        assert_eq!(m["content"][2]["text"], "[Image: image/png (not sent: empty image)]");
    }

    #[test]
    fn openai_chat_text_only_with_optional_image_message() {
        let r = result(json!({"content":[{"type":"text","text":"a"},{"type":"image","data":PNG,"mimeType":"image/png"}]}));
        let m = tool_result_message(&call(), &r, ResultFormat::OpenAi, &ResultOptions::default()).unwrap();
        // Not sent, and saying so.
        assert_eq!(m, json!({"role":"tool","tool_call_id":"call_1","content":"a\n[Image: image/png (not sent: text only)]"}));
        let both = tool_result_message(&call(), &r, ResultFormat::OpenAi, &ResultOptions { image_message: true, ..ResultOptions::default() }).unwrap();
        // Sent in the user message: the tool message says where it was.
        assert_eq!(both[0]["content"], "a\n[Image: image/png]");
        assert_eq!(both[1]["role"], "user");
        assert!(both[1]["content"][1]["image_url"]["url"].as_str().unwrap().starts_with("data:image/png;base64,"));
        let err = result(json!({"content":[{"type":"text","text":"boom"}],"isError":true}));
        let m = tool_result_message(&call(), &err, ResultFormat::OpenAi, &ResultOptions::default()).unwrap();
        assert_eq!(m["content"], "Error: boom");
    }

    /// OpenAI Chat with `imageMessage`: a PDF goes in the `user` message after the tool messages as
    /// a `file` part, as Chat takes it there (it was described as "not sent: text only", s29b F1);
    /// other documents are described, and without `imageMessage` a PDF is too.
    #[test]
    fn openai_chat_image_message_carries_pdfs_as_file_parts() {
        let pdf = b64s("%PDF-1.4\n%%EOF");
        let docx = b64(b"PK\x03\x04rest");
        let r = result(json!([
            {"type":"text","text":"Invoice rendered"},
            {"type":"image","data":PNG,"mimeType":"image/png"},
            {"type":"resource","resource":{"uri":"file:///invoice.pdf","mimeType":"application/pdf","blob":pdf}},
            {"type":"resource","resource":{"uri":"file:///notes.docx","mimeType":"application/vnd.openxmlformats-officedocument.wordprocessingml.document","blob":docx}},
        ]));
        let opts = ResultOptions { image_message: true, ..ResultOptions::default() };
        let both = tool_result_message(&call(), &r, ResultFormat::OpenAi, &opts).unwrap();
        assert_eq!(
            both[0]["content"],
            "Invoice rendered\n[Image: image/png]\n[Resource: file:///invoice.pdf (application/pdf)]\n\
             [Resource: file:///notes.docx (application/vnd.openxmlformats-officedocument.wordprocessingml.document), 8 bytes, not sent: OpenAI takes no DOCX files here]"
        );
        let user = &both[1]["content"];
        assert_eq!(user[0]["text"], "Images and files returned by the tool call call_1 (mcp__s__t):");
        assert_eq!(user[1]["type"], "image_url");
        assert_eq!(user[2], json!({"type":"file","file":{"filename":"invoice.pdf","file_data":format!("data:application/pdf;base64,{pdf}")}}));
        assert_eq!(user.as_array().unwrap().len(), 3);
        // A PDF alone makes the user message too.
        let alone = result(json!([{"type":"resource","resource":{"uri":"file:///invoice.pdf","mimeType":"application/pdf","blob":pdf}}]));
        let m = tool_result_message(&call(), &alone, ResultFormat::OpenAi, &opts).unwrap();
        assert_eq!(m[1]["content"][0]["text"], "Files returned by the tool call call_1 (mcp__s__t):");
        assert_eq!(m[1]["content"][1]["type"], "file");
        // Without `imageMessage`, text only.
        let m = tool_result_message(&call(), &alone, ResultFormat::OpenAi, &ResultOptions::default()).unwrap();
        assert_eq!(m["content"], "[Resource: file:///invoice.pdf (application/pdf), 14 bytes, not sent: text only]");
        // Held to OpenAI's 32 MB of documents a request, across the results of a turn.
        let capped = ResultOptions { max_media_bytes: Some(20), ..opts };
        let m = tool_result_messages(&[call(), call()], &[alone.clone(), alone], ResultFormat::OpenAi, &capped).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m[2]["content"].as_array().unwrap().len(), 2);
        assert!(m[1]["content"].as_str().unwrap().contains("not sent: over the 20 bytes"), "{}", m[1]["content"]);
    }

    /// A URL in an image's or audio's `data`, or a resource's `blob`, in place of base64 data (as
    /// some servers send an image's) is kept in the placeholder, for every provider and
    /// `flattenContent`: it is all the model has of it (s29b F3: "invalid base64 data" alone).
    #[test]
    fn a_url_in_place_of_data_is_kept_in_the_text() {
        let url = "https://charts.example.com/render/q3.png?sig=abc";
        let r = result(json!([
            {"type":"image","data":url,"mimeType":"image/png"},
            {"type":"audio","data":"file:///tmp/a.mp3","mimeType":"audio/mpeg"},
            {"type":"resource","resource":{"uri":"file:///r.pdf","mimeType":"application/pdf","blob":"https://x.example/r.pdf"}},
        ]));
        let image = format!("[Image: image/png, {url} (not sent: a URL, not base64 data)]");
        let resource = "[Resource: file:///r.pdf (application/pdf), not sent: its blob is a URL, not base64 data: https://x.example/r.pdf]";
        let flat = flatten(&r, usize::MAX);
        assert_eq!(flat, format!("{image}\n[Audio: audio/mpeg, file:///tmp/a.mp3 (not sent: text only)]\n{resource}"));
        let opts = ResultOptions { multimodal: true, image_message: true, ..ResultOptions::default() };
        for format in [ResultFormat::OpenAi, ResultFormat::OpenAiResponses, ResultFormat::Anthropic, ResultFormat::Gemini, ResultFormat::Vertex, ResultFormat::Bedrock, ResultFormat::Ollama] {
            let m = message(&r, format, opts);
            let text = m.to_string();
            for kept in [url, "file:///tmp/a.mp3", "https://x.example/r.pdf"] {
                assert!(text.contains(kept), "{format:?}: {text}");
            }
            assert!(!text.contains("invalid base64"), "{format:?}: {text}");
        }
        // A `data:` URL is its data; text that is no URL is invalid base64 as before.
        assert_eq!(url_in_data(&format!("data:image/png;base64,{PNG}")), None);
        assert_eq!(url_in_data("not base64: at all"), None);
        assert_eq!(url_in_data("  HTTPS://x.example/a.png\n"), Some("HTTPS://x.example/a.png".to_owned()));
        let bad = result(json!([{"type":"image","data":"@@@","mimeType":"image/png"}]));
        assert_eq!(message(&bad, ResultFormat::Anthropic, opts)["content"][0]["text"], "[Image: image/png (not sent: invalid base64 data)]");
    }

    /// Beside `structuredContent` (the output), the rest of the content goes as `content`:
    /// links, resources and image placeholders, but not the text that repeats the structure.
    #[test]
    fn gemini_structured_output_keeps_the_rest_of_the_content() {
        let r: CallToolResult = CallToolResult::from_value(json!({
            "content": [
                {"type": "text", "text": "{\"rows\": 2}"},
                {"type": "resource_link", "uri": "file:///report.csv", "name": "report.csv"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "body text"}}
            ],
            "structuredContent": {"rows": 2}
        }))
        .unwrap();
        let m = tool_result_message(&call(), &r, ResultFormat::Gemini, &ResultOptions::default()).unwrap();
        let response = &m["functionResponse"]["response"];
        assert_eq!(response["output"], json!({"rows": 2}));
        let content = response["content"].as_str().unwrap();
        assert!(content.contains("report.csv") && content.contains("body text"), "{content}");
        assert!(!content.contains("rows"), "{content}");
        // Only the repeated text: nothing beside the output.
        let r = CallToolResult::from_value(json!({"content": [{"type": "text", "text": "{\"rows\":2}"}], "structuredContent": {"rows": 2}})).unwrap();
        let m = tool_result_message(&call(), &r, ResultFormat::Gemini, &ResultOptions::default()).unwrap();
        assert_eq!(m["functionResponse"]["response"], json!({"output": {"rows": 2}}));
        let r = CallToolResult::from_value(json!({"content": [], "structuredContent": {"rows": 2}})).unwrap();
        let m = tool_result_message(&call(), &r, ResultFormat::Gemini, &ResultOptions::default()).unwrap();
        assert_eq!(m["functionResponse"]["response"], json!({"output": {"rows": 2}}));
    }

    /// A structure holding a `$ref` key, at any depth, goes to Gemini and Vertex AI as its JSON
    /// text, never in `output`, where Gemini reads `$ref` as a reference to a part and refuses the
    /// request (s26c F1); the text that repeats it stays. Without one it is the output.
    #[test]
    fn a_structure_holding_a_ref_goes_to_gemini_as_text() {
        let schema = json!({"type":"object","properties":{"cookies":{"$ref":"#/$defs/Cookie"}},"$defs":{"Cookie":{"type":"object"}}});
        let json = crate::text::to_string(&schema);
        for format in [ResultFormat::Gemini, ResultFormat::Vertex] {
            let r = CallToolResult::from_value(json!({"content": [{"type":"text","text": json}], "structuredContent": schema})).unwrap();
            assert_eq!(message(&r, format, ResultOptions::default())["functionResponse"]["response"], json!({"output": json}));
            let r = CallToolResult::from_value(json!({"content": [], "structuredContent": {"items": [{"a": 1}, {"$ref": "x"}]}})).unwrap();
            assert_eq!(message(&r, format, ResultOptions::default())["functionResponse"]["response"], json!({"output": r#"{"items":[{"a":1},{"$ref":"x"}]}"#}));
            let r = CallToolResult::from_value(json!({"content": [], "structuredContent": {"ref": "$ref", "refs": ["$ref"]}})).unwrap();
            assert_eq!(message(&r, format, ResultOptions::default())["functionResponse"]["response"], json!({"output": {"ref": "$ref", "refs": ["$ref"]}}));
        }
        // Bedrock's `json` block has no such reading.
        let r = CallToolResult::from_value(json!({"content": [], "structuredContent": schema})).unwrap();
        assert_eq!(message(&r, ResultFormat::Bedrock, ResultOptions::default())["toolResult"]["content"][0]["json"], schema);
    }

    #[test]
    fn gemini_response_is_always_an_object() {
        let r = result(json!({"content":[{"type":"text","text":"{\"t\":1}"}],"structuredContent":{"t":1}}));
        let m = tool_result_message(&CallRef { id: None, name: "t".into(), parallel: None, custom: false }, &r, ResultFormat::Gemini, &ResultOptions::default()).unwrap();
        assert_eq!(m, json!({"functionResponse":{"name":"t","response":{"output":{"t":1}}}}));
        let e = result(json!({"content":[{"type":"text","text":"bad"}],"isError":true}));
        let m = tool_result_message(&call(), &e, ResultFormat::Gemini, &ResultOptions::default()).unwrap();
        assert_eq!(m["functionResponse"]["response"], json!({"error":"bad"}));
        assert_eq!(m["functionResponse"]["id"], "call_1");
    }

    #[test]
    fn bedrock_and_responses() {
        let r = result(json!({"content":[{"type":"text","text":"x"},{"type":"image","data":PNG,"mimeType":"image/png"}],"structuredContent":{"k":2},"isError":true}));
        let m = tool_result_message(&call(), &r, ResultFormat::Bedrock, &ResultOptions::default()).unwrap();
        assert_eq!(m["toolResult"]["status"], "error");
        // An error is text alone for Claude on Bedrock: the image described, the structure as JSON text.
        assert_eq!(m["toolResult"]["content"], json!([{"text":"x\n[Image: image/png (not sent: Bedrock error results take text only)]\n{\"k\":2}"}]));
        let ok = result(json!({"content":[{"type":"text","text":"x"},{"type":"image","data":PNG,"mimeType":"image/png"}],"structuredContent":{"k":2}}));
        let m = tool_result_message(&call(), &ok, ResultFormat::Bedrock, &ResultOptions::default()).unwrap();
        assert_eq!(m["toolResult"]["content"][1]["image"]["format"], "png");
        assert_eq!(m["toolResult"]["content"][2], json!({"json":{"k":2}}));
        let m = tool_result_message(&call(), &r, ResultFormat::OpenAiResponses, &ResultOptions { multimodal: true, ..ResultOptions::default() }).unwrap();
        assert_eq!(m["type"], "function_call_output");
        assert_eq!(m["output"][0], json!({"type":"input_text","text":"Error: x"}));
        assert_eq!(m["output"][1]["type"], "input_image");
    }

    /// The marker is within the cap and says how much was shown.
    #[test]
    fn text_is_capped() {
        let r = result(json!({"content":[{"type":"text","text":"y".repeat(500)}]}));
        let m = tool_result_message(&call(), &r, ResultFormat::OpenAi, &capped(100)).unwrap();
        assert_eq!(m["content"], format!("{}\n[Truncated: 60 of 500 characters shown]", "y".repeat(60)));
        assert_eq!(utf16_len(m["content"].as_str().unwrap()), 100);
    }
    const ALL: [ResultFormat; 7] = [
        ResultFormat::OpenAi,
        ResultFormat::OpenAiResponses,
        ResultFormat::Anthropic,
        ResultFormat::Gemini,
        ResultFormat::Vertex,
        ResultFormat::Bedrock,
        ResultFormat::Ollama,
    ];

    fn message(r: &CallToolResult, format: ResultFormat, opts: ResultOptions) -> Value {
        tool_result_message(&call(), r, format, &opts).unwrap()
    }

    fn capped(max_chars: usize) -> ResultOptions {
        ResultOptions { max_chars, ..ResultOptions::default() }
    }

    /// A PNG of 9 + `n` bytes (`n` rounded down to threes, 15 at least): its signature and an
    /// IHDR of 1x1 px, then zeros, as base64.
    fn png_of(n: usize) -> String {
        format!("iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB{}", "A".repeat((n / 3).saturating_sub(5) * 4))
    }

    /// `maxChars` bounds the structured JSON in Gemini's output and Bedrock's json block: over the
    /// cap it is sent as JSON text, cut and marked as text is.
    #[test]
    fn structured_content_is_capped() {
        let rows: Vec<Value> = (0..20_000).map(|i| json!({"id": i, "name": format!("row {i}")})).collect();
        let r = result(json!({"content":[{"type":"text","text":"20000 rows"}],"structuredContent":{"rows": rows}}));
        let m = message(&r, ResultFormat::Gemini, capped(100));
        let output = m["functionResponse"]["response"]["output"].as_str().expect("the JSON as text");
        assert!(output.starts_with("20000 rows\n{\"rows\":[{\"id\":0,"), "{output}");
        assert!(output.ends_with(" characters shown]"), "{output}");
        assert!(utf16_len(output) <= 100, "{output}");
        assert!(m["functionResponse"]["response"].get("content").is_none());
        let m = message(&r, ResultFormat::Bedrock, capped(100));
        let content = m["toolResult"]["content"].as_array().unwrap();
        assert_eq!(content.len(), 1, "no json block: {content:?}");
        assert_eq!(content[0]["text"], output);
        // The default cap (100,000) applies too: the rows are some 550,000 characters of JSON.
        let m = message(&r, ResultFormat::Gemini, ResultOptions::default());
        let m2 = message(&r, ResultFormat::Bedrock, ResultOptions::default());
        for text in [&m["functionResponse"]["response"]["output"], &m2["toolResult"]["content"][0]["text"]] {
            let text = text.as_str().unwrap();
            assert!((99_990..=100_000).contains(&utf16_len(text)));
            assert!(text.ends_with(" characters shown]"));
        }
        // Within the cap, the structure is sent as it is and the text has what it leaves.
        let r = result(json!({"content":[{"type":"text","text":"x".repeat(100)}],"structuredContent":{"k":1}}));
        let cut = format!("{}\n[Truncated: 10 of 100 characters shown]", "x".repeat(10));
        let m = message(&r, ResultFormat::Gemini, capped(57));
        assert_eq!(m["functionResponse"]["response"], json!({"output":{"k":1},"content":cut}));
        let m = message(&r, ResultFormat::Bedrock, capped(57));
        assert_eq!(m["toolResult"]["content"], json!([{"text":cut},{"json":{"k":1}}]));
        let m = message(&r, ResultFormat::Bedrock, capped(107));
        assert_eq!(m["toolResult"]["content"], json!([{"text":"x".repeat(100)},{"json":{"k":1}}]));
    }

    /// A result far over the cap is flattened without writing more of it than the cap needs (F1,
    /// s24e: 500 MiB of text and the same as structuredContent ran wasm32 out of memory, a trap):
    /// the text kept, and its buffers, are about the cap, whatever the result's size; the marker
    /// counts the whole.
    #[test]
    fn a_large_result_is_not_copied_past_the_cap() {
        let big = "x".repeat(8_000_000);
        let r = result(json!({"content":[{"type":"text","text":big},{"type":"text","text":"after"},{"type":"hologram","data":{"rows":big}}],"structuredContent":big}));
        // The text, `after`, the unknown block's line and JSON, the structure's JSON, and the line breaks.
        let total = 8_000_000 + 1 + 5 + 1 + "[Unsupported content: hologram]\n".len() + r#"{"type":"hologram","data":{"rows":""}}"#.len() + 8_000_000 + 1 + 8_000_002;
        for is_error in [false, true] {
            for format in [None, Some(ResultFormat::Anthropic), Some(ResultFormat::OpenAi), Some(ResultFormat::Gemini), Some(ResultFormat::Bedrock)] {
                for max_chars in [0, 50, 1000] {
                    let opts = ResultOptions { max_chars, ..ResultOptions::default() };
                    let Body { parts, .. } = body(&r, format, &opts, is_error, &mut Media::none());
                    let capacity: usize = parts.iter().map(|p| if let Part::Text(t) = p { t.capacity() } else { 0 }).sum();
                    assert!(capacity <= 2 * max_chars + 256, "{format:?} {max_chars}: {capacity}");
                    let text = text_of(&parts);
                    assert!(utf16_len(&text) <= max_chars, "{format:?} {max_chars}: {text}");
                    if max_chars == 1000 {
                        assert!(text.ends_with(&format!(" of {total} characters shown]")), "{format:?}: {}", &text[text.len() - 60..]);
                    }
                }
            }
        }
        let flat = flatten(&r, 100);
        assert!(flat.starts_with("xxxx") && flat.ends_with(&format!(" of {total} characters shown]")) && utf16_len(&flat) <= 100, "{flat}");
    }

    /// The structure's JSON is measured and written as `JSON.stringify` writes it (F2, s24e): a
    /// number is spelled as JavaScript spells it, both for the cap and in the text.
    #[test]
    fn structured_content_is_measured_as_javascript_writes_it() {
        let r = result(json!({"content":[],"structuredContent":{"p":vec![0.0000025; 100]}}));
        // `{"p":[0.0000025,...]}`: 1007 units, as JSON.stringify counts (707 as `2.5e-6`).
        let js_len = 6 + 100 * 9 + 99 + 2;
        assert_eq!(crate::text::to_string_js(&r.structured_content.clone().unwrap()).len(), js_len);
        for format in [ResultFormat::Gemini, ResultFormat::Bedrock] {
            let m = message(&r, format, capped(750));
            let sent = if format == ResultFormat::Gemini { &m["functionResponse"]["response"]["output"] } else { &m["toolResult"]["content"][0]["text"] };
            assert!(sent.as_str().is_some_and(|t| t.starts_with(r#"{"p":[0.0000025,"#) && utf16_len(t) <= 750), "{format:?}: over the cap as JS writes it, sent as text: {m}");
            let m = message(&r, format, capped(js_len));
            let sent = if format == ResultFormat::Gemini { &m["functionResponse"]["response"]["output"] } else { &m["toolResult"]["content"][0]["json"] };
            assert!(sent.is_object(), "{format:?}: {m}");
        }
        assert!(crate::content::flatten_result(&r, crate::content::FlattenOptions::default()).starts_with(r#"{"p":[0.0000025,0.0000025,"#));
        // The other way: 1.2345678901234568e+20 is 21 digits in JS.
        let r = result(json!({"content":[],"structuredContent":{"n":123456789012345680000.0}}));
        let m = message(&r, ResultFormat::Gemini, capped(27));
        assert_eq!(m["functionResponse"]["response"]["output"], json!({"n":123456789012345680000.0}));
        assert_eq!(crate::content::flatten_result(&r, crate::content::FlattenOptions { max_chars: 27 }), "{\"n\":123456789012345680000}");
    }

    /// structuredContent reaches every provider, errors included, unless a text block already is
    /// its JSON (compared as JSON, however the text is spaced), where the output stays as it was.
    #[test]
    fn structured_content_is_never_dropped() {
        let r = result(json!({"content":[{"type":"text","text":"2 rows"}],"structuredContent":{"rows":2}}));
        assert_eq!(message(&r, ResultFormat::OpenAi, ResultOptions::default())["content"], "2 rows\n{\"rows\":2}");
        assert_eq!(message(&r, ResultFormat::OpenAiResponses, ResultOptions::default())["output"], "2 rows\n{\"rows\":2}");
        assert_eq!(message(&r, ResultFormat::Anthropic, ResultOptions::default())["content"], json!([{"type":"text","text":"2 rows\n{\"rows\":2}"}]));
        assert_eq!(message(&r, ResultFormat::Gemini, ResultOptions::default())["functionResponse"]["response"], json!({"output":{"rows":2},"content":"2 rows"}));
        assert_eq!(message(&r, ResultFormat::Bedrock, ResultOptions::default())["toolResult"]["content"], json!([{"text":"2 rows"},{"json":{"rows":2}}]));
        // The serialized copy MCP asks for: nothing added.
        let r = result(json!({"content":[{"type":"text","text":"{\n  \"rows\": 2\n}"}],"structuredContent":{"rows":2}}));
        assert_eq!(message(&r, ResultFormat::OpenAi, ResultOptions::default())["content"], "{\n  \"rows\": 2\n}");
        assert_eq!(message(&r, ResultFormat::Anthropic, ResultOptions::default())["content"], json!([{"type":"text","text":"{\n  \"rows\": 2\n}"}]));
        assert_eq!(message(&r, ResultFormat::Gemini, ResultOptions::default())["functionResponse"]["response"], json!({"output":{"rows":2}}));
        assert_eq!(message(&r, ResultFormat::Bedrock, ResultOptions::default())["toolResult"]["content"], json!([{"json":{"rows":2}}]));
        // Errors: the code reaches the model everywhere.
        let e = result(json!({"isError":true,"content":[{"type":"text","text":"bad"}],"structuredContent":{"code":42}}));
        for format in ALL {
            let sent = message(&e, format, ResultOptions::default()).to_string();
            assert!(sent.contains("42"), "{format:?}: {sent}");
        }
        assert_eq!(message(&e, ResultFormat::OpenAi, ResultOptions::default())["content"], "Error: bad\n{\"code\":42}");
        assert_eq!(message(&e, ResultFormat::Gemini, ResultOptions::default())["functionResponse"]["response"], json!({"error":"bad\n{\"code\":42}"}));
        let m = message(&e, ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!((&m["content"][0]["text"], &m["is_error"]), (&json!("bad\n{\"code\":42}"), &json!(true)));
        // Bedrock's error is text alone (Claude reads its `status` as `is_error`).
        assert_eq!(message(&e, ResultFormat::Bedrock, ResultOptions::default())["toolResult"]["content"], json!([{"text":"bad\n{\"code\":42}"}]));
        // Bedrock's json block holds objects; another value goes as text.
        let r = result(json!({"content":[{"type":"text","text":"two"}],"structuredContent":[1,2]}));
        assert_eq!(message(&r, ResultFormat::Bedrock, ResultOptions::default())["toolResult"]["content"], json!([{"text":"two\n[1,2]"}]));
    }

    /// Long text does not push the structure out: its JSON (or the text block that is it) is kept
    /// whole when it fits `maxChars`, for every provider and flattenContent, and the rest of the
    /// text gets what it leaves.
    #[test]
    fn structured_content_is_reserved_before_the_text() {
        let r = result(json!({"content":[{"type":"text","text":"Log line\n".repeat(20)}],"structuredContent":{"total":42,"status":"PASS"}}));
        let json = r#"{"total":42,"status":"PASS"}"#;
        // 100 units: the JSON (28) and its line break, and 71 for the log and its marker.
        let expected = format!("{}\n[Truncated: 31 of 180 characters shown]\n{json}", &"Log line\n".repeat(20)[..31]);
        assert_eq!(message(&r, ResultFormat::OpenAi, capped(100))["content"], expected);
        assert_eq!(message(&r, ResultFormat::OpenAiResponses, capped(100))["output"], expected);
        assert_eq!(message(&r, ResultFormat::Anthropic, capped(100))["content"], json!([{"type":"text","text":expected}]));
        assert_eq!(crate::content::flatten_result(&r, crate::content::FlattenOptions { max_chars: 100 }), expected);
        for format in ALL {
            let sent = message(&r, format, capped(100)).to_string();
            assert!(sent.contains(r#""total":42"#) || sent.contains(r#"\"total\":42"#), "{format:?}: {sent}");
        }
        // The text block that already is the JSON is what is kept (at the end).
        let r = result(json!({"content":[{"type":"text","text":"{ \"total\": 42 }"},{"type":"text","text":"x".repeat(100)}],"structuredContent":{"total":42}}));
        let expected = format!("{}\n[Truncated: 24 of 100 characters shown]\n{{ \"total\": 42 }}", "x".repeat(24));
        assert_eq!(message(&r, ResultFormat::OpenAi, capped(80))["content"], expected);
        // Within the cap, nothing moves.
        assert_eq!(message(&r, ResultFormat::OpenAi, capped(200))["content"], format!("{{ \"total\": 42 }}\n{}", "x".repeat(100)));
        // A structure longer than the cap is cut like any text, after the content.
        let r = result(json!({"content":[{"type":"text","text":"ab"}],"structuredContent":{"k":"x".repeat(100)}}));
        let expected = format!("ab\n{{\"k\":\"{}\n[Truncated: 20 of 111 characters shown]", "x".repeat(11));
        assert_eq!(message(&r, ResultFormat::Anthropic, capped(60))["content"][0]["text"], expected);
    }

    /// Images over what the provider takes inline are described, not sent.
    #[test]
    fn oversized_images_are_described() {
        assert_eq!(decode_base64(&png_of(30)).len(), 39);
        assert_eq!(check_image_within(&png_of(30), 39).unwrap().mime_type, "image/png");
        assert_eq!(check_image_within(&png_of(30), 38), Err(ImageProblem::TooLarge { bytes: 39, limit: 38 }));
        // Unpadded: 2 and 3 characters in the last group hold 1 and 2 bytes.
        assert_eq!(check_image_within("iVBORw0KGgoAAA", 10), Ok(CheckedImage { mime_type: "image/png", data: "iVBORw0KGgoAAA==".into() }));
        assert_eq!(check_image_within("iVBORw0KGgoAAA", 9), Err(ImageProblem::TooLarge { bytes: 10, limit: 9 }));
        assert_eq!(check_image_within("iVBORw0KGgoAAAA", 11).map(|i| i.data.len()), Ok(16));

        // 4 MB: over Anthropic's 5 MB of base64 and Bedrock's 3.75 MB; OpenAI and Gemini take it.
        let four = result(json!({"content":[{"type":"text","text":"shot"},{"type":"image","data":png_of(4_000_000),"mimeType":"image/png"}]}));
        let m = message(&four, ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(m["content"], json!([{"type":"text","text":"shot\n[Image: image/png, 4 MB (not sent: larger than the 3.93 MB Anthropic takes inline)]"}]));
        let m = message(&four, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"], json!([{"text":"shot\n[Image: image/png, 4 MB (not sent: larger than the 3.75 MB Bedrock takes inline)]"}]));
        // One byte over: sizes that would read the same in MB are given in bytes.
        let just_over = result(json!([{"type":"image","data":png_of(3_750_001),"mimeType":"image/png"}]));
        let m = message(&just_over, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"], json!([{"text":"[Image: image/png, 3750009 bytes (not sent: larger than the 3750000 bytes Bedrock takes inline)]"}]));
        let m = message(&four, ResultFormat::OpenAiResponses, ResultOptions { multimodal: true, ..ResultOptions::default() });
        assert_eq!(m["output"][1]["type"], "input_image");
        let m = message(&four, ResultFormat::Gemini, ResultOptions { multimodal: true, ..ResultOptions::default() });
        assert!(m["functionResponse"]["parts"][0]["inlineData"].is_object());
        // Vertex takes 7 MB inline, Gemini's API 20 MB of base64 (15 MB), OpenAI 20 MB.
        let eight = result(json!([{"type":"image","data":png_of(8_000_000),"mimeType":"image/png"}]));
        let m = message(&eight, ResultFormat::Vertex, ResultOptions { multimodal: true, ..ResultOptions::default() });
        assert_eq!(m["functionResponse"]["response"]["output"], "[Image: image/png, 8 MB (not sent: larger than the 7 MB Vertex AI takes inline)]");
        assert!(m["functionResponse"].get("parts").is_none());
        let m = message(&eight, ResultFormat::Gemini, ResultOptions { multimodal: true, ..ResultOptions::default() });
        assert!(m["functionResponse"]["parts"][0]["inlineData"].is_object());
        let twenty = result(json!([{"type":"image","data":png_of(20_000_001),"mimeType":"image/png"}]));
        let m = message(&twenty, ResultFormat::OpenAi, ResultOptions { image_message: true, ..ResultOptions::default() });
        assert_eq!(m["content"], "[Image: image/png, 20000010 bytes (not sent: larger than the 20000000 bytes OpenAI takes inline)]", "no user message: {m}");
        let m = message(&twenty, ResultFormat::Gemini, ResultOptions { multimodal: true, ..ResultOptions::default() });
        assert_eq!(m["functionResponse"]["response"]["output"], "[Image: image/png, 20 MB (not sent: larger than the 15 MB Gemini takes inline)]");
    }

    /// Standard base64, for images built byte by byte.
    fn b64(bytes: &[u8]) -> String {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for c in bytes.chunks(3) {
            let n = c.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
            for i in 0..=c.len() {
                out.push(char::from(A[(n >> (18 - 6 * i) & 63) as usize]));
            }
            out.push_str(&"=".repeat(3 - c.len()));
        }
        out
    }

    /// The headers of images `w` by `h` pixels, as each format writes its size.
    fn headers(w: u32, h: u32) -> Vec<(&'static str, Vec<u8>)> {
        let png = [&b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR"[..], &w.to_be_bytes(), &h.to_be_bytes(), &[8, 6, 0, 0, 0]].concat();
        let gif = [&b"GIF89a"[..], &(w as u16).to_le_bytes(), &(h as u16).to_le_bytes(), &[0; 8]].concat();
        let riff = |chunk: &[u8]| [&b"RIFF\0\0\0\0WEBP"[..], chunk].concat();
        let vp8x = riff(&[&b"VP8X\x0a\0\0\0\0\0\0\0"[..], &(w - 1).to_le_bytes()[..3], &(h - 1).to_le_bytes()[..3]].concat());
        let vp8l = riff(&[&b"VP8L\0\0\0\0\x2f"[..], &((w - 1) | (h - 1) << 14).to_le_bytes()].concat());
        let vp8 = riff(&[&b"VP8 \0\0\0\0\0\0\0\x9d\x01\x2a"[..], &(w as u16).to_le_bytes(), &(h as u16).to_le_bytes()].concat());
        // JPEG: its frame header after an APP0, a long APP1 (as EXIF is), fill bytes and a table.
        let segment = |marker: u8, body: &[u8]| [&[0xFF, marker][..], &((body.len() + 2) as u16).to_be_bytes(), body].concat();
        let jpeg = [
            &[0xFF, 0xD8][..],
            &segment(0xE0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"),
            &segment(0xE1, &[7; 40_000]),
            &[0xFF, 0xFF],
            &segment(0xDB, &[1; 65]),
            &segment(0xC2, &[&[8][..], &(h as u16).to_be_bytes(), &(w as u16).to_be_bytes(), &[3, 1, 0x22, 0]].concat()),
            &[0xFF, 0xDA, 0, 2, 0xFF, 0xD9],
        ]
        .concat();
        vec![("image/png", png), ("image/gif", gif), ("image/webp", vp8x), ("image/webp", vp8l), ("image/webp", vp8), ("image/jpeg", jpeg)]
    }

    /// An image with a side over what the provider takes (8000 px for Anthropic and Bedrock) is
    /// described, not sent: the size is read from each format's header.
    #[test]
    fn images_with_a_side_too_long_are_described() {
        for (w, h) in [(1280, 16_383), (8001, 600), (9000, 9000)] {
            for (mime, bytes) in headers(w, h) {
                let data = b64(&bytes);
                assert_eq!(dimensions(&data, mime), Some((w, h)), "{mime}");
                let shot = result(json!({"content":[{"type":"text","text":"page"},{"type":"image","data":data,"mimeType":mime}]}));
                let m = message(&shot, ResultFormat::Anthropic, ResultOptions::default());
                assert_eq!(m["content"], json!([{"type":"text","text":format!("page\n[Image: {mime}, {w}x{h} px (not sent: Anthropic takes at most 8000 px a side)]")}]));
                let m = message(&shot, ResultFormat::Bedrock, ResultOptions::default());
                assert_eq!(m["toolResult"]["content"][0]["text"], format!("page\n[Image: {mime}, {w}x{h} px (not sent: Bedrock takes at most 8000 px a side)]"));
                let m = message(&shot, ResultFormat::OpenAiResponses, ResultOptions { multimodal: true, ..ResultOptions::default() });
                assert_eq!(m["output"][1]["type"], "input_image", "OpenAI scales large images down");
            }
        }
        for (mime, bytes) in headers(8000, 8000) {
            let shot = result(json!([{"type":"image","data":b64(&bytes),"mimeType":mime}]));
            assert_eq!(message(&shot, ResultFormat::Anthropic, ResultOptions::default())["content"][0]["type"], "image", "{mime}");
        }
        // Where the header does not say (cut short, a JPEG without a frame header), no size.
        assert_eq!(dimensions(&b64(&headers(9000, 9000)[0].1[..20]), "image/png"), None);
        assert_eq!(dimensions(&b64(&[0xFF, 0xD8, 0xFF, 0xDA, 0, 2]), "image/jpeg"), None);
        assert_eq!(dimensions(&b64(&[0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF]), "image/jpeg"), None);
        assert_eq!(dimensions(&png_of(30), "image/png"), Some((1, 1)));
        assert_eq!(decode_at(&b64(b"0123456789"), 4, 5), b"45678");
        assert_eq!(decode_at(&b64(b"0123456789"), 8, 5), b"89");
        assert_eq!(decode_at(&b64(b"0123456789"), 20, 5), b"");
    }

    /// An image whose header says no size (a signature alone, a file cut short, a JPEG without a
    /// frame header) or a side of 0 px is bytes no decoder reads: described, never sent, for every
    /// provider (Anthropic refuses it, "Could not process image", and the refusal stays in the
    /// conversation).
    #[test]
    fn unreadable_images_are_described() {
        let png = headers(100, 100)[0].1.clone();
        let mut zero = png.clone();
        zero[16..24].fill(0);
        let cases: [(&str, Vec<u8>); 7] = [
            ("image/png", png[..8].to_vec()),
            ("image/png", png[..20].to_vec()),
            ("image/png", zero),
            ("image/jpeg", [&[0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0][..], &[0; 24]].concat()),
            ("image/gif", b"GIF89a".to_vec()),
            ("image/webp", b"RIFF\0\0\0\0WEBP".to_vec()),
            ("image/webp", b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0".to_vec()),
        ];
        let multimodal = ResultOptions { multimodal: true, image_message: true, ..ResultOptions::default() };
        for (mime, bytes) in cases {
            let r = result(json!([{"type":"image","data":b64(&bytes),"mimeType":mime}]));
            let text = format!("[Image: {mime} (not sent: unreadable image data)]");
            assert_eq!(message(&r, ResultFormat::Anthropic, multimodal)["content"], json!([{"type":"text","text":text}]), "{bytes:?}");
            assert_eq!(message(&r, ResultFormat::Bedrock, multimodal)["toolResult"]["content"], json!([{"text":text}]), "{bytes:?}");
            assert_eq!(message(&r, ResultFormat::OpenAiResponses, multimodal)["output"], text, "{bytes:?}");
            if mime != "image/gif" {
                assert_eq!(message(&r, ResultFormat::Gemini, multimodal)["functionResponse"]["response"]["output"], text, "{bytes:?}");
            }
            assert_eq!(message(&r, ResultFormat::OpenAi, multimodal)["content"], text, "{bytes:?}");
            // An embedded blob of it too.
            let r = result(json!([{"type":"resource","resource":{"uri":"file:///s","mimeType":mime,"blob":b64(&bytes)}}]));
            let text = format!("[Resource: file:///s ({mime}), {} bytes, not sent: unreadable image data]", bytes.len());
            assert_eq!(message(&r, ResultFormat::Anthropic, multimodal)["content"], json!([{"type":"text","text":text}]), "{bytes:?}");
        }
        // A GIF whose logical screen is 0x0 (some encoders write it) is read at its first
        // frame's size, after its color table and extensions; a JPEG with stray bytes between
        // segments (libjpeg skips them) at its frame header's.
        let frame = [&[0x2C, 0, 0, 0, 0][..], &40u16.to_le_bytes(), &30u16.to_le_bytes(), &[0]].concat();
        let gif = [&b"GIF89a\0\0\0\0\x81\0\0"[..], &[9; 12], b"\x21\xF9\x04\0\0\0\0\0", b"\x21\xFE\x02hi\x01!\0", &frame].concat();
        assert_eq!(dimensions(&b64(&gif), "image/gif"), Some((40, 30)));
        let r = result(json!([{"type":"image","data":b64(&gif),"mimeType":"image/gif"}]));
        assert_eq!(message(&r, ResultFormat::Anthropic, ResultOptions::default())["content"][0]["type"], "image");
        assert_eq!(dimensions(&b64(&gif[..gif.len() - 5]), "image/gif"), None, "cut short");
        let jpeg = headers(120, 90).pop().unwrap().1;
        let stray = [&jpeg[..20], &[0, 0, 0xFF, 0x00, 7][..], &jpeg[20..]].concat();
        assert_eq!(dimensions(&b64(&stray), "image/jpeg"), Some((120, 90)));
        // A header alone with a size is read, and sent.
        let r = result(json!([{"type":"image","data":b64(&png),"mimeType":"image/png"}]));
        assert_eq!(message(&r, ResultFormat::Anthropic, ResultOptions::default())["content"][0]["type"], "image");
    }

    /// `max_image_side` replaces the provider's limit: Anthropic's 2000 px for a request of over
    /// 20 images, a limit for a provider that has none, or none at all (`u32::MAX`).
    #[test]
    fn the_callers_side_limit_replaces_the_providers() {
        let side = |n| ResultOptions { max_image_side: Some(n), multimodal: true, ..ResultOptions::default() };
        for (mime, bytes) in headers(2001, 1200) {
            let shot = result(json!([{"type":"image","data":b64(&bytes),"mimeType":mime}]));
            assert_eq!(message(&shot, ResultFormat::Anthropic, ResultOptions::default())["content"][0]["type"], "image", "{mime}");
            let m = message(&shot, ResultFormat::Anthropic, side(2000));
            assert_eq!(m["content"], json!([{"type":"text","text":format!("[Image: {mime}, 2001x1200 px (not sent: over the 2000 px a side of maxImageSide)]")}]));
            assert_eq!(message(&shot, ResultFormat::Anthropic, side(2001))["content"][0]["type"], "image", "{mime}");
            let m = message(&shot, ResultFormat::OpenAiResponses, side(2000));
            assert_eq!(m["output"], format!("[Image: {mime}, 2001x1200 px (not sent: over the 2000 px a side of maxImageSide)]"));
        }
        for (mime, bytes) in headers(9000, 9000) {
            let shot = result(json!([{"type":"image","data":b64(&bytes),"mimeType":mime}]));
            assert_eq!(message(&shot, ResultFormat::Bedrock, side(u32::MAX))["toolResult"]["content"][0]["image"]["format"], mime.trim_start_matches("image/"), "{mime}");
        }
    }

    /// Anthropic takes 2000 px a side in a request of over 20 images: when a result (or one turn's
    /// results) sends more than 20, each is held to 2000 px, as to 8000 px otherwise, unless the
    /// caller's side is smaller still; or, where that sends more, 20 are sent at full size and the
    /// rest described.
    #[test]
    fn over_20_images_are_held_to_anthropics_2000_px() {
        let big = b64(&headers(2500, 2500)[0].1);
        let small = b64(&headers(1000, 1000)[0].1);
        let image = |data: &str| json!({"type":"image","data":data,"mimeType":"image/png"});
        let many = "[Image: image/png, 2500x2500 px (not sent: Anthropic takes at most 2000 px a side in a request of over 20 images)]";
        let past = format!("[Image: image/png, {} (not sent: Anthropic takes at most 20 images in a request with one over 2000 px a side)]", size_text(decoded_len(big.trim_end_matches('='))));
        let types = |m: &Value| m["content"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap().owned()).collect::<Vec<_>>();
        // 20 images: sent at 2500 px.
        let r = result(Value::Array(vec![image(&big); 20]));
        let m = message(&r, ResultFormat::Anthropic, ResultOptions::default());
        assert!(m["content"].as_array().unwrap().iter().all(|b| b["type"] == "image"));
        // 21, 20 of them over 2000 px and one under: the 20 over it are described and the other
        // sent, or 20 are sent and the 21st described, whichever sends more: the second.
        let mut blocks = vec![image(&big); 21];
        blocks[0] = image(&small);
        let m = message(&result(Value::Array(blocks)), ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(types(&m), [vec!["image".owned(); 20], vec!["text".owned()]].concat());
        assert_eq!(m["content"][20]["text"], past);
        // 25, 21 of them under 2000 px: those over it are described, the 21 others sent.
        let mut blocks = vec![image(&big); 25];
        blocks[..21].fill(image(&small));
        let m = message(&result(Value::Array(blocks.clone())), ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(types(&m), [vec!["image".owned(); 21], vec!["text".owned()]].concat());
        assert_eq!(m["content"][21]["text"], [many; 4].join("\n"));
        // 21 all under 2000 px: all sent.
        let m = message(&result(Value::Array(vec![image(&small); 21])), ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(types(&m), vec!["image".owned(); 21]);
        // A caller's side over 2000 gives way to it; one under stays.
        let m = message(&result(Value::Array(blocks)), ResultFormat::Anthropic, ResultOptions { max_image_side: Some(4000), ..ResultOptions::default() });
        assert_eq!(m["content"][21]["text"], [many; 4].join("\n"));
        let m = message(&result(Value::Array(vec![image(&small); 21])), ResultFormat::Anthropic, ResultOptions { max_image_side: Some(500), ..ResultOptions::default() });
        assert!(m["content"][0]["text"].as_str().unwrap().starts_with("[Image: image/png, 1000x1000 px (not sent: over the 500 px a side of maxImageSide)]"));
        // No limit (`Infinity`) lifts it: all sent.
        let m = message(&result(Value::Array(vec![image(&big); 21])), ResultFormat::Anthropic, ResultOptions { max_image_side: Some(u32::MAX), ..ResultOptions::default() });
        assert_eq!(types(&m), vec!["image".owned(); 21]);
        // Across one turn's results: 7 results of 3 images, the first 20 sent.
        let calls: Vec<CallRef> = (0..7).map(|i| CallRef { id: Some(format!("c{i}")), ..call() }).collect();
        let results: Vec<CallToolResult> = (0..7).map(|_| result(Value::Array(vec![image(&big); 3]))).collect();
        let ms = tool_result_messages(&calls, &results, ResultFormat::Anthropic, &ResultOptions::default()).unwrap();
        assert!(ms[..6].iter().all(|m| types(m) == ["image"; 3]), "{ms:?}");
        assert_eq!(types(&ms[6]), ["image", "image", "text"]);
        assert_eq!(ms[6]["content"][2]["text"], past);
        // 20 in one result and 1 in the next: the 20 sent.
        let ms = tool_result_messages(&calls[..2], &[result(Value::Array(vec![image(&big); 20])), result(Value::Array(vec![image(&big)]))], ResultFormat::Anthropic, &ResultOptions::default()).unwrap();
        assert_eq!(types(&ms[0]), vec!["image".owned(); 20]);
        assert_eq!(ms[1]["content"], json!([{"type":"text","text":past}]));
        let ms = tool_result_messages(&calls[..6], &results[..6], ResultFormat::Anthropic, &ResultOptions::default()).unwrap();
        assert!(ms.iter().all(|m| m["content"].as_array().unwrap().iter().all(|b| b["type"] == "image")));
        // Elsewhere, no such limit.
        let m = message(&result(Value::Array(vec![image(&big); 21])), ResultFormat::OpenAiResponses, ResultOptions { multimodal: true, ..ResultOptions::default() });
        assert_eq!(m["output"].as_array().unwrap().len(), 21);
    }

    #[test]
    fn megabytes_are_short() {
        assert_eq!(megabytes(3_750_000), "3.75 MB");
        assert_eq!(megabytes(3_932_160), "3.93 MB");
        assert_eq!(megabytes(20_000_000), "20 MB");
        assert_eq!(megabytes(125_829_120), "125.83 MB");
        assert_eq!(megabytes(1_500_000), "1.5 MB");
        assert_eq!(megabytes(1_234), "0 MB");
        // Sizes of any magnitude, each in the unit its rounding reaches.
        for (bytes, text) in [
            (999, "999 bytes"),
            (999_499, "999 KB"),
            (999_600, "1 MB"),
            (999_994_999, "999.99 MB"),
            (999_995_000, "1 GB"),
            (4_294_967_296, "4.29 GB"),
            (10_000_000_000, "10 GB"),
            (5_000_000_000_000, "5000 GB"),
            (u64::MAX, "18446744073.7 GB"),
        ] {
            assert_eq!(size_text_u64(bytes), text, "{bytes}");
        }
    }

    /// A value without a call's name says what it is when it is a tool's result (the arguments'
    /// order mistaken) or what holds calls (a response, a message).
    #[test]
    fn a_result_or_a_response_in_the_calls_place_is_named() {
        // What goes beside a call, or holds calls, given in its place: said what it is.
        for (v, said) in [
            (json!({"content": [{"type": "text", "text": "x"}], "isError": false}), "looks like a tool's result (it has `content`): the arguments' order?"),
            (json!({"structuredContent": {"n": 1}}), "it has `structuredContent`"),
            (json!({"choices": [{"message": {"tool_calls": []}}]}), "a provider's response or message (it has `choices`), which holds calls: parseToolCalls"),
            (json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "n", "input": {}}]}), "(it has `role`)"),
            (json!({"candidates": []}), "(it has `candidates`)"),
        ] {
            let e = CallRef::from_value(&v).unwrap_err();
            assert!(e.message.starts_with("call must have a string `providerName`") && e.message.contains(said), "{v}: {}", e.message);
        }
        assert_eq!(CallRef::from_value(&json!({"id": "c"})).unwrap_err().message, "call must have a string `providerName` (or `name`, `function.name` or `custom.name`)");
    }

    /// An empty id is no id: refused where the provider needs one, left out of Gemini's message.
    #[test]
    fn empty_call_id_is_no_id() {
        let empty = CallRef::from_value(&json!({"id": "", "name": "t"})).unwrap();
        assert_eq!(empty.id, None);
        let r = result(json!({"content":[{"type":"text","text":"ok"}]}));
        for format in [ResultFormat::OpenAi, ResultFormat::OpenAiResponses, ResultFormat::Anthropic, ResultFormat::Bedrock] {
            let e = tool_result_message(&empty, &r, format, &ResultOptions::default()).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput, "{format:?}");
            // Built in Rust with an empty id: the same.
            let direct = CallRef { id: Some(String::new()), name: "t".into(), parallel: None, custom: false };
            assert!(tool_result_message(&direct, &r, format, &ResultOptions::default()).is_err(), "{format:?}");
        }
        let m = tool_result_message(&empty, &r, ResultFormat::Gemini, &ResultOptions::default()).unwrap();
        assert_eq!(m, json!({"functionResponse":{"name":"t","response":{"output":"ok"}}}));
    }

    /// Base64 of text.
    fn b64s(text: &str) -> String {
        b64(text.as_bytes())
    }

    /// A resource with both `text` and `blob` (which MCP does not allow) loses neither: its text
    /// under its line, then its blob as any blob (sent where the provider takes it, else described).
    #[test]
    fn a_resource_with_text_and_blob_keeps_both() {
        let pdf = b64s("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
        let r = result(json!([{"type":"resource","resource":{"uri":"file:///report.pdf","mimeType":"application/pdf","text":"Summary: see attached","blob":pdf}}]));
        let text = "[Resource: file:///report.pdf (application/pdf)]\nSummary: see attached";
        let m = message(&r, ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(
            m["content"],
            json!([{"type":"text","text":format!("{text}\n[Resource: file:///report.pdf (application/pdf)]")},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":pdf}}])
        );
        assert_eq!(flatten(&r, usize::MAX), format!("{text}\n[Resource: file:///report.pdf (application/pdf), 45 bytes, not sent: text only]"));
        // A text blob's text too; an empty blob beside a text adds nothing.
        let r = result(json!([{"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","text":"one","blob":b64s("two")}}]));
        assert_eq!(flatten(&r, usize::MAX), "[Resource: file:///a.txt (text/plain)]\none\n[Resource: file:///a.txt (text/plain)]\ntwo");
        let r = result(json!([{"type":"resource","resource":{"uri":"file:///a.txt","text":"one","blob":""}}]));
        assert_eq!(flatten(&r, usize::MAX), "[Resource: file:///a.txt]\none");
    }

    /// Embedded blobs are not dropped: a PDF goes where the provider takes documents (Anthropic's
    /// `document`, Responses' `input_file`, Bedrock's `document`, Gemini's `parts`), an image as
    /// images go, text decoded into the text; anything else is described with why it was not sent.
    #[test]
    fn embedded_blobs_are_sent_or_described() {
        let pdf = b64s("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF");
        let r = result(json!([
            {"type":"text","text":"Here is the invoice"},
            {"type":"resource","resource":{"uri":"file:///docs/inv 2024?.pdf","mimeType":"application/pdf","blob":pdf}}
        ]));
        let header = "Here is the invoice\n[Resource: file:///docs/inv 2024?.pdf (application/pdf)]";
        let m = message(&r, ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(m["content"], json!([{"type":"text","text":header},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":pdf}}]));
        let multimodal = ResultOptions { multimodal: true, ..ResultOptions::default() };
        let m = message(&r, ResultFormat::OpenAiResponses, multimodal);
        assert_eq!(
            m["output"],
            json!([{"type":"input_text","text":header},{"type":"input_file","filename":"inv 2024.pdf","file_data":format!("data:application/pdf;base64,{pdf}")}])
        );
        let m = message(&r, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"], json!([{"text":header},{"document":{"format":"pdf","name":"inv 2024 (a6591209)","source":{"bytes":pdf}}}]));
        let m = message(&r, ResultFormat::Gemini, multimodal);
        assert_eq!(m["functionResponse"]["response"]["output"], header);
        assert_eq!(m["functionResponse"]["parts"], json!([{"inlineData":{"mimeType":"application/pdf","data":pdf}}]));
        // Where the message takes text only, the placeholder says so (and how big it was).
        let not_sent = "Here is the invoice\n[Resource: file:///docs/inv 2024?.pdf (application/pdf), 44 bytes, not sent: text only]";
        assert_eq!(message(&r, ResultFormat::OpenAi, ResultOptions::default())["content"], not_sent);
        assert_eq!(message(&r, ResultFormat::OpenAiResponses, ResultOptions::default())["output"], not_sent);
        assert_eq!(message(&r, ResultFormat::Gemini, ResultOptions::default())["functionResponse"]["response"]["output"], not_sent);
        assert_eq!(crate::content::flatten_result(&r, crate::content::FlattenOptions::default()), not_sent);

        // Text formats are decoded into the text, for every provider.
        let csv = result(json!([{"type":"resource","resource":{"uri":"file:///d.csv","mimeType":"text/csv","blob":b64s("a,b\n1,2")}}]));
        for format in ALL {
            assert!(message(&csv, format, multimodal).to_string().contains(r#"[Resource: file:///d.csv (text/csv)]\na,b\n1,2"#), "{format:?}");
        }
        let json_blob = result(json!([{"type":"resource","resource":{"uri":"x://j","mimeType":"application/vnd.api+json","blob":b64s("{\"a\":\"é\"}")}}]));
        assert_eq!(message(&json_blob, ResultFormat::OpenAi, ResultOptions::default())["content"], "[Resource: x://j (application/vnd.api+json)]\n{\"a\":\"é\"}");
        let latin1 = result(json!([{"type":"resource","resource":{"uri":"x://t","mimeType":"text/plain","blob":b64(b"caf\xe9")}}]));
        assert_eq!(message(&latin1, ResultFormat::OpenAi, ResultOptions::default())["content"], "[Resource: x://t (text/plain), 4 bytes, not sent: not UTF-8 text]");
        // A long log with a byte or two that is not UTF-8 is text, and says so.
        let mut log = "line\n".repeat(40_000).into_bytes();
        log.extend_from_slice(b"caf\xe9\n");
        let r = result(json!([{"type":"resource","resource":{"uri":"x://log","mimeType":"text/plain","blob":b64(&log)}}]));
        let text = message(&r, ResultFormat::OpenAi, ResultOptions { max_chars: 200, ..ResultOptions::default() })["content"].as_str().unwrap().owned();
        assert!(text.starts_with("[Resource: x://log (text/plain), 1 byte not UTF-8 shown as U+FFFD]\nline\nline\n"), "{text}");
        assert!(text.ends_with(" of 200072 characters shown]"), "{text}");
        assert!(flatten(&r, usize::MAX).ends_with("caf\u{FFFD}\n"));

        // An image blob goes as images go.
        let png = result(json!([{"type":"resource","resource":{"uri":"file:///s.png","mimeType":"image/png","blob":PNG}}]));
        let m = message(&png, ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(m["content"][0]["text"], "[Resource: file:///s.png (image/png)]");
        assert_eq!(m["content"][1]["source"]["data"], PNG);
        let m = message(&png, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"][1]["image"]["format"], "png");
        let m = message(&png, ResultFormat::Gemini, multimodal);
        assert_eq!(m["functionResponse"]["parts"][0]["inlineData"]["mimeType"], "image/png");
        assert_eq!(message(&png, ResultFormat::OpenAi, ResultOptions::default())["content"], "[Resource: file:///s.png (image/png), 70 bytes, not sent: text only]");

        // Anything else: described, never the bare header an embedded text has.
        let zip = result(json!([
            {"type":"resource","resource":{"uri":"file:///a.zip","mimeType":"application/zip","blob":b64(&[b'P', b'K', 3, 4, 0, 0, 0, 0])}},
            {"type":"resource","resource":{"uri":"file:///b","mimeType":"application/pdf","blob":"not base64!"}},
            {"type":"resource","resource":{"uri":"file:///c.pdf","mimeType":"application/pdf","blob":b64s("<html>")}}
        ]));
        assert_eq!(
            message(&zip, ResultFormat::Anthropic, ResultOptions::default())["content"][0]["text"],
            "[Resource: file:///a.zip (application/zip), 8 bytes, not sent: format not supported]\n\
             [Resource: file:///b (application/pdf), not sent: invalid base64 data]\n\
             [Resource: file:///c.pdf (application/pdf), 6 bytes, not sent: the bytes are not a PDF file]"
        );
    }

    /// Responses takes 32 MB of documents a request, all of them together: a document that would
    /// take a result's (or a turn's) documents past it is described, not sent.
    #[test]
    fn responses_documents_share_32_mb_a_request() {
        // "%PDF-1" and zeros: 20 MB.
        let pdf = format!("JVBERi0x{}", "A".repeat((20_000_000 - 6) / 3 * 4));
        let blob = |uri: &str| json!({"type":"resource","resource":{"uri":uri,"mimeType":"application/pdf","blob":pdf}});
        let multimodal = ResultOptions { multimodal: true, ..ResultOptions::default() };
        let r = result(json!([blob("file:///a.pdf"), blob("file:///b.pdf")]));
        let m = message(&r, ResultFormat::OpenAiResponses, multimodal);
        let out = m["output"].as_array().unwrap();
        assert_eq!(out.iter().filter(|p| p["type"] == "input_file").count(), 1);
        assert_eq!(
            out.last().unwrap()["text"],
            "[Resource: file:///b.pdf (application/pdf), 20 MB, not sent: over the 32 MB of documents OpenAI takes a request]"
        );
        // Across one turn's results too.
        let calls = [CallRef { id: Some("a".into()), ..call() }, CallRef { id: Some("b".into()), ..call() }];
        let results = [result(json!([blob("file:///a.pdf")])), result(json!([blob("file:///b.pdf")]))];
        let ms = tool_result_messages(&calls, &results, ResultFormat::OpenAiResponses, &multimodal).unwrap();
        assert_eq!(ms[0]["output"][1]["type"], "input_file");
        assert_eq!(ms[1]["output"], "[Resource: file:///b.pdf (application/pdf), 20 MB, not sent: over the 32 MB of documents OpenAI takes a request]");
        // Documents within it together are all sent.
        let small = format!("JVBERi0x{}", "A".repeat((10_000_000 - 6) / 3 * 4));
        let small = |uri: &str| json!({"type":"resource","resource":{"uri":uri,"mimeType":"application/pdf","blob":small}});
        let m = message(&result(json!([small("file:///a.pdf"), small("file:///b.pdf"), small("file:///c.pdf")])), ResultFormat::OpenAiResponses, multimodal);
        assert_eq!(m["output"].as_array().unwrap().iter().filter(|p| p["type"] == "input_file").count(), 3);
    }

    /// Office files go to Bedrock (and Responses) as documents; other providers say they take
    /// none. Bedrock's names keep only the characters it allows, and stay unique.
    #[test]
    fn documents_follow_each_provider() {
        let docx = b64(&[b'P', b'K', 3, 4, 20, 0, 6, 0]);
        let mime = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
        let r = result(json!([
            {"type":"resource","resource":{"uri":"s3://b/Q3_report:final.docx","mimeType":mime,"blob":docx}},
            {"type":"resource","resource":{"uri":"s3://b/Q3 report final.docx","mimeType":mime,"blob":docx}}
        ]));
        let m = message(&r, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"][1]["document"], json!({"format":"docx","name":"Q3 report final (a6591209)","source":{"bytes":docx}}));
        assert_eq!(m["toolResult"]["content"][3]["document"]["name"], "Q3 report final (a6591209) (2)", "the call's id tagged ([`id_tag`])");
        let m = message(&r, ResultFormat::Anthropic, ResultOptions::default());
        assert!(m["content"][0]["text"].as_str().unwrap().starts_with(&format!("[Resource: s3://b/Q3_report:final.docx ({mime}), 8 bytes, not sent: Anthropic takes no DOCX files here]")), "{m}");
        let m = message(&r, ResultFormat::OpenAiResponses, ResultOptions { multimodal: true, ..ResultOptions::default() });
        assert_eq!(m["output"][1]["filename"], "Q3_report:final.docx");
        // A legacy Excel file goes to Responses too, which reads .xls as a spreadsheet.
        let xls = b64(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]);
        let r = result(json!([{"type":"resource","resource":{"uri":"file:///reports/q3.xls","mimeType":"application/vnd.ms-excel","blob":xls}}]));
        let m = message(&r, ResultFormat::OpenAiResponses, ResultOptions { multimodal: true, ..ResultOptions::default() });
        assert_eq!(m["output"][1], json!({"type":"input_file","filename":"q3.xls","file_data":format!("data:application/vnd.ms-excel;base64,{xls}")}));
        assert_eq!(bedrock_name("..."), "document");
        assert_eq!(bedrock_name("a__b  c.d.pdf"), "a b c d");
        assert_eq!(file_name("mem://x?id=1", "pdf"), "x.pdf");
        assert_eq!(file_name("urn:uuid:1", "pdf"), "document.pdf");
        // Over Bedrock's 4.5 MB.
        let big = format!("JVBERi0x{}", "A".repeat(6_000_000));
        let r = result(json!([{"type":"resource","resource":{"uri":"file:///big.pdf","mimeType":"application/pdf","blob":big}}]));
        let m = message(&r, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"], json!([{"text":"[Resource: file:///big.pdf (application/pdf), 4.5 MB, not sent: larger than the 4.5 MB Bedrock takes inline]"}]));
    }

    /// The call as each SDK gives it: a Responses item's `call_id` (not its item `id`), a Chat
    /// tool call's `function.name`, Bedrock's `toolUseId`.
    #[test]
    fn calls_as_the_sdks_give_them() {
        let read = |v: Value| CallRef::from_value(&v).map(|c| (c.id, c.name));
        let some = |id: &str, name: &str| Ok((Some(id.owned()), name.owned()));
        assert_eq!(read(json!({"type":"function_call","id":"fc_68a1","call_id":"call_XYZ","name":"t","arguments":"{}"})), some("call_XYZ", "t"));
        assert_eq!(read(json!({"id":"call_abc","type":"function","function":{"name":"t","arguments":"{}"}})), some("call_abc", "t"));
        assert_eq!(read(json!({"toolUseId":"tooluse_1","name":"t","input":{}})), some("tooluse_1", "t"));
        assert_eq!(read(json!({"toolUse":{"toolUseId":"tooluse_1","name":"t","input":{}}})), some("tooluse_1", "t"));
        assert_eq!(read(json!({"type":"tool_use","id":"toolu_01","name":"t","input":{}})), some("toolu_01", "t"));
        assert_eq!(read(json!({"id":"call_1","providerName":"mcp__s__t","name":"other"})), some("call_1", "mcp__s__t"));
        assert_eq!(read(json!({"function":{"name":"t","arguments":{}}})), Ok((None, "t".owned())));
        // A Gemini part, as message().parts and candidate.content.parts hold it.
        assert_eq!(read(json!({"functionCall":{"name":"t","args":{}},"thoughtSignature":"c2ln"})), Ok((None, "t".owned())));
        assert_eq!(read(json!({"functionCall":{"id":"fc_1","name":"t","args":{}}})), some("fc_1", "t"));
        // An empty name is read (the formats that write it refuse it: see
        // `a_call_without_a_name_is_answered_under_its_id`).
        assert_eq!(read(json!({"functionCall":{"name":""}})), Ok((None, String::new())));
        // A Responses item without `call_id` has none (its `id` is the item's).
        assert_eq!(read(json!({"type":"function_call","id":"fc_1","name":"t"})), Ok((None, "t".owned())));
        // An empty call_id is none: the next key is read.
        assert_eq!(read(json!({"call_id":"","id":"fc_1","name":"t"})), some("fc_1", "t"));
        for bad in [json!({"id":"c"}), json!({"call_id":5,"name":"t"}), json!({"id":"c","name":5})] {
            assert_eq!(read(bad.clone()).unwrap_err().code, ErrorCode::InvalidInput, "{bad}");
        }
        let m = tool_result_message(
            &CallRef::from_value(&json!({"type":"function_call","id":"fc_68a1","call_id":"call_XYZ","name":"t"})).unwrap(),
            &result(json!([{"type":"text","text":"ok"}])),
            ResultFormat::OpenAiResponses,
            &ResultOptions::default(),
        )
        .unwrap();
        assert_eq!(m["call_id"], "call_XYZ");
    }

    /// Anthropic and Bedrock refuse text blocks of whitespace alone: they are left out, and a
    /// result with nothing else says so.
    #[test]
    fn whitespace_text_blocks_are_left_out_where_refused() {
        let r = result(json!([{"type":"text","text":" \n\t"},{"type":"image","data":PNG,"mimeType":"image/png"},{"type":"text","text":"\u{3000}"}]));
        let m = message(&r, ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(m["content"].as_array().unwrap().len(), 1, "{m}");
        assert_eq!(m["content"][0]["type"], "image");
        let m = message(&r, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"].as_array().unwrap().len(), 1, "{m}");
        let blank = result(json!([{"type":"text","text":"   "}]));
        assert_eq!(message(&blank, ResultFormat::Anthropic, ResultOptions::default())["content"], json!([{"type":"text","text":"(no output)"}]));
        assert_eq!(message(&blank, ResultFormat::Bedrock, ResultOptions::default())["toolResult"]["content"], json!([{"text":"(no output)"}]));
        // Text with something in it goes as it is.
        let r = result(json!([{"type":"text","text":" a "}]));
        assert_eq!(message(&r, ResultFormat::Anthropic, ResultOptions::default())["content"], json!([{"type":"text","text":" a "}]));
    }

    /// Anthropic and Bedrock refuse a result without text: where the cap leaves none of a result
    /// that had some, they get `[Truncated]`, not `(no output)` (which would say the tool said
    /// nothing): the one text, of 11 units, sent past a cap under 11. Never a blank text block.
    #[test]
    fn a_cap_that_leaves_no_text_says_so_where_text_is_required() {
        let said = [
            result(json!([{"type":"text","text":"hello"}])),
            result(json!({"content":[],"structuredContent":{"k":1}})),
            result(json!({"content":[{"type":"resource_link","uri":"file:///x","name":"x"}],"isError":true})),
        ];
        let silent = [result(json!([])), result(json!([{"type":"text","text":" "}])), result(json!({"content":[],"isError":true}))];
        for (results, text) in [(&said, "[Truncated]"), (&silent, "(no output)")] {
            for r in results {
                for max in [0, 1, 5] {
                    let opts = ResultOptions { max_chars: max, ..ResultOptions::default() };
                    let a = message(r, ResultFormat::Anthropic, opts);
                    let b = message(r, ResultFormat::Bedrock, opts);
                    let (a, b) = (&a["content"], &b["toolResult"]["content"]);
                    let words = |v: &Value| v.as_array().unwrap().iter().filter_map(|b| b["text"].as_str().map(str::to_owned)).collect::<Vec<_>>();
                    for w in words(a).into_iter().chain(words(b)) {
                        assert!(!w.trim().is_empty(), "{max} {r:?}: {a} {b}");
                        assert!(utf16_len(&w) <= max || w == text, "{max} {r:?}: {a} {b}");
                    }
                    if max == 0 {
                        assert_eq!(*a, json!([{"type":"text","text":text}]), "{r:?}");
                        assert_eq!(*b, json!([{"text":text}]), "{r:?}");
                    }
                }
            }
        }
        // Bedrock without status: an error's `Error:` is there, never cut to a blank block.
        let opts = ResultOptions { max_chars: 0, bedrock_status: false, ..ResultOptions::default() };
        for r in [&said[0], &said[2], &silent[2]] {
            let m = message(r, ResultFormat::Bedrock, opts);
            let content = m["toolResult"]["content"].as_array().unwrap();
            assert!(content.iter().all(|b| b["text"].as_str().is_none_or(|t| !t.trim().is_empty())), "{m}");
        }
    }

    /// An error is marked in flattenContent as in OpenAI's message, and an error with no content
    /// says it is one, for every provider.
    #[test]
    fn errors_are_marked_and_never_empty() {
        let flat = |v: Value| crate::content::flatten_result(&result(v), crate::content::FlattenOptions::default());
        assert_eq!(flat(json!({"isError":true,"content":[{"type":"text","text":"Permission denied"}]})), "Error: Permission denied");
        // A text that says it already is not prefixed again; one that only starts with the word is.
        assert_eq!(flat(json!({"isError":true,"content":[{"type":"text","text":"Error: disk full"}]})), "Error: disk full");
        assert_eq!(flat(json!({"isError":true,"content":[{"type":"text","text":"Errors: 3"}]})), "Error: Errors: 3");
        assert_eq!(flat(json!({"isError":true,"content":[]})), format!("Error: {EMPTY_ERROR}"));
        assert_eq!(flat(json!({"isError":true,"content":[{"type":"text","text":" "}]})), format!("Error: {EMPTY_ERROR}"));
        assert_eq!(flat(json!({"isError":false,"content":[]})), "");
        let empty = result(json!({"isError":true}));
        assert_eq!(message(&empty, ResultFormat::OpenAi, ResultOptions::default())["content"], format!("Error: {EMPTY_ERROR}"));
        assert_eq!(message(&empty, ResultFormat::OpenAiResponses, ResultOptions::default())["output"], format!("Error: {EMPTY_ERROR}"));
        assert_eq!(message(&empty, ResultFormat::Anthropic, ResultOptions::default())["content"], json!([{"type":"text","text":EMPTY_ERROR}]));
        assert_eq!(message(&empty, ResultFormat::Gemini, ResultOptions::default())["functionResponse"]["response"], json!({"error":EMPTY_ERROR}));
        assert_eq!(message(&empty, ResultFormat::Bedrock, ResultOptions::default())["toolResult"]["content"], json!([{"text":EMPTY_ERROR}]));
    }

    /// An image or audio the message does not carry is marked as not sent, with why, so that the
    /// model does not describe what it never saw.
    #[test]
    fn media_not_sent_says_so() {
        let r = result(json!([{"type":"image","data":PNG,"mimeType":"image/png"},{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}]));
        let text_only = "[Image: image/png (not sent: text only)]\n[Audio: audio/wav (not sent: text only)]";
        assert_eq!(message(&r, ResultFormat::OpenAi, ResultOptions::default())["content"], text_only);
        assert_eq!(message(&r, ResultFormat::OpenAiResponses, ResultOptions::default())["output"], text_only);
        assert_eq!(message(&r, ResultFormat::Gemini, ResultOptions::default())["functionResponse"]["response"]["output"], text_only);
        assert_eq!(crate::content::flatten_result(&r, crate::content::FlattenOptions::default()), text_only);
        let m = message(&r, ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(m["content"][0]["type"], "image");
        assert_eq!(m["content"][1]["text"], "[Audio: audio/wav (not sent: Anthropic tool results take no audio)]");
        let m = message(&r, ResultFormat::Gemini, ResultOptions { multimodal: true, ..ResultOptions::default() });
        assert_eq!(m["functionResponse"]["response"]["output"], "[Audio: audio/wav (not sent: Gemini tool results take no audio)]");
        let m = message(&r, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"][1]["text"], "[Audio: audio/wav (not sent: Bedrock tool results take no audio)]");
    }

    /// An image whose `mimeType` is `null` is read from its bytes and sent; an unknown block's JSON
    /// reaches the model.
    #[test]
    fn null_mime_types_and_unknown_blocks() {
        let r = result(json!([{"type":"image","data":PNG,"mimeType":null},{"type":"hologram","depth":3}]));
        let m = message(&r, ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(m["content"][0]["source"]["media_type"], "image/png");
        assert_eq!(m["content"][1]["text"], "[Unsupported content: hologram]\n{\"type\":\"hologram\",\"depth\":3}");
    }

    /// Each provider's image formats: Google takes no GIF, nor HEIC and HEIF in a function
    /// response's `parts` (s26c F2), the others GIF and no HEIC; what a provider does not take is
    /// described, with what it takes.
    #[test]
    fn image_formats_follow_each_provider() {
        let gif = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";
        let heic = b64(&[0, 0, 0, 24, b'f', b't', b'y', b'p', b'h', b'e', b'i', b'c', 0, 0, 0, 0]);
        let multimodal = ResultOptions { multimodal: true, ..ResultOptions::default() };
        let r = result(json!([{"type":"image","data":gif,"mimeType":"image/gif"}]));
        for format in [ResultFormat::Gemini, ResultFormat::Vertex] {
            let m = message(&r, format, multimodal);
            assert!(m["functionResponse"].get("parts").is_none(), "{m}");
            let label = format.label();
            assert_eq!(m["functionResponse"]["response"]["output"], format!("[Image: image/gif (not sent: {label} takes PNG, JPEG and WebP)]"));
        }
        assert_eq!(message(&r, ResultFormat::Anthropic, multimodal)["content"][0]["source"]["media_type"], "image/gif");
        assert_eq!(message(&r, ResultFormat::Bedrock, multimodal)["toolResult"]["content"][0]["image"]["format"], "gif");
        let heif = b64(&[0, 0, 0, 24, b'f', b't', b'y', b'p', b'm', b'i', b'f', b'1', 0, 0, 0, 0]);
        let r = result(json!([{"type":"image","data":heic,"mimeType":"image/heic"},{"type":"resource","resource":{"uri":"file:///p.heif","mimeType":"image/heif","blob":heif}}]));
        for format in [ResultFormat::Gemini, ResultFormat::Vertex] {
            let m = message(&r, format, multimodal);
            assert!(m["functionResponse"].get("parts").is_none(), "{m}");
            let label = format.label();
            let want = format!("[Image: image/heic (not sent: {label} takes PNG, JPEG and WebP)]\n[Resource: file:///p.heif (image/heif), 16 bytes, not sent: {label} takes PNG, JPEG and WebP]");
            assert_eq!(m["functionResponse"]["response"]["output"], want);
        }
        assert!(message(&r, ResultFormat::Anthropic, multimodal)["content"][0]["text"].as_str().unwrap().starts_with("[Image: image/heic (not sent: Anthropic takes PNG, JPEG, GIF and WebP)]\n"));
        assert_eq!(check_image(&heic).unwrap().mime_type, "image/heic");
    }

    /// An image whose label is wrong (a phone's HEIC photo labelled image/jpeg, a GIF labelled
    /// image/png) is named by its bytes in the note that says why it was not sent, so the reason
    /// agrees with the type (s26r F5: it said a JPEG was not sent because Gemini takes JPEG).
    #[test]
    fn mislabelled_image_not_sent_is_named_by_its_bytes() {
        let heic = b64(&[0, 0, 0, 24, b'f', b't', b'y', b'p', b'h', b'e', b'i', b'c', 0, 0, 0, 0]);
        let gif = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";
        let multimodal = ResultOptions { multimodal: true, ..ResultOptions::default() };
        let r = result(json!([{"type":"image","data":heic,"mimeType":"image/jpeg"},{"type":"resource","resource":{"uri":"file:///p.jpg","mimeType":"image/jpeg","blob":heic}}]));
        let m = message(&r, ResultFormat::Gemini, multimodal);
        let want = "[Image: image/heic (not sent: Gemini takes PNG, JPEG and WebP)]\n[Resource: file:///p.jpg (image/heic), 16 bytes, not sent: Gemini takes PNG, JPEG and WebP]";
        assert_eq!(m["functionResponse"]["response"]["output"], want);
        let r = result(json!([{"type":"image","data":gif,"mimeType":"image/png"}]));
        assert_eq!(message(&r, ResultFormat::Ollama, multimodal)["content"], "[Image: image/gif (not sent: Ollama takes PNG, JPEG and WebP)]");
    }

    /// Bedrock's `status` can be left out (most models refuse it): an error then says so in its text.
    #[test]
    fn bedrock_status_can_be_left_out() {
        let no_status = ResultOptions { bedrock_status: false, ..ResultOptions::default() };
        let ok = result(json!({"content":[{"type":"text","text":"done"}]}));
        assert_eq!(message(&ok, ResultFormat::Bedrock, no_status), json!({"toolResult":{"toolUseId":"call_1","content":[{"text":"done"}]}}));
        let err = result(json!({"isError":true,"content":[{"type":"text","text":"boom"}]}));
        assert_eq!(message(&err, ResultFormat::Bedrock, no_status), json!({"toolResult":{"toolUseId":"call_1","content":[{"text":"Error: boom"}]}}));
        assert_eq!(message(&err, ResultFormat::Bedrock, ResultOptions::default())["toolResult"]["status"], "error");
        // Media and no text (an image): the sentence saying so before it, as Responses' and
        // Ollama's messages have it, shorter within a smaller cap; with text after the media,
        // `Error:` alone before them.
        let shot = result(json!({"isError":true,"content":[{"type":"image","data":PNG,"mimeType":"image/png"}]}));
        let m = message(&shot, ResultFormat::Bedrock, no_status);
        assert_eq!(m["toolResult"]["content"][0], json!({"text":format!("Error: {MEDIA_ERROR}")}));
        assert_eq!(m["toolResult"]["content"][1]["image"]["format"], "png");
        assert_eq!(message(&shot, ResultFormat::Bedrock, ResultOptions { max_chars: 30, ..no_status })["toolResult"]["content"][0], json!({"text":"Error; see the attached media."}));
        assert_eq!(message(&shot, ResultFormat::Bedrock, ResultOptions { max_chars: 20, ..no_status })["toolResult"]["content"][0], json!({"text":"Error; see media."}));
        let said = result(json!({"isError":true,"content":[{"type":"image","data":PNG,"mimeType":"image/png"},{"type":"text","text":"the screen"}]}));
        assert_eq!(message(&said, ResultFormat::Bedrock, no_status)["toolResult"]["content"][0], json!({"text":"Error:"}));
        // Within the cap, as OpenAI's prefix is.
        let long = result(json!({"isError":true,"content":[{"type":"text","text":"x".repeat(500)}]}));
        let m = message(&long, ResultFormat::Bedrock, ResultOptions { max_chars: 100, ..no_status });
        assert_eq!(utf16_len(m["toolResult"]["content"][0]["text"].as_str().unwrap()), 100);
        // A cap with no room for the text: the error's whole words, never `Error:` with nothing after it
        // (s22r F4); `Error` past a cap under 5, as Bedrock refuses an empty text.
        for (max, text) in [(0, "Error"), (4, "Error"), (5, "Error"), (6, "Error."), (7, "Error.")] {
            let m = message(&err, ResultFormat::Bedrock, ResultOptions { max_chars: max, ..no_status });
            assert_eq!(m["toolResult"]["content"][0]["text"], text, "{max}");
        }
        assert_eq!(message(&err, ResultFormat::Bedrock, ResultOptions { max_chars: 11, ..no_status })["toolResult"]["content"][0]["text"], "Error: boom");
    }

    /// The results of parallel calls: OpenAI Chat's tool messages all first, then one user message
    /// with the images of every call (a user message between tool messages is refused).
    #[test]
    fn parallel_results_keep_the_tool_messages_together() {
        let calls = [CallRef { id: Some("call_A".into()), name: "shot".into(), parallel: None, custom: false }, CallRef { id: Some("call_B".into()), name: "shot".into(), parallel: None, custom: false }, CallRef { id: Some("call_C".into()), name: "t".into(), parallel: None, custom: false }];
        let results = [
            result(json!([{"type":"image","data":PNG,"mimeType":"image/png"}])),
            result(json!([{"type":"text","text":"done"}])),
            result(json!([{"type":"text","text":"two"},{"type":"image","data":PNG,"mimeType":"image/png"}])),
        ];
        let opts = ResultOptions { image_message: true, ..ResultOptions::default() };
        let m = tool_result_messages(&calls, &results, ResultFormat::OpenAi, &opts).unwrap();
        let roles: Vec<&str> = m.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["tool", "tool", "tool", "user"]);
        assert_eq!(m[0], json!({"role":"tool","tool_call_id":"call_A","content":"[Image: image/png]"}));
        let parts = m[3]["content"].as_array().unwrap();
        assert_eq!(parts.len(), 4);
        assert_eq!(parts[0]["text"], "Images returned by the tool call call_A (shot):");
        assert_eq!(parts[2]["text"], "Images returned by the tool call call_C (t):");
        assert_eq!(parts[3]["type"], "image_url");
        // Without images, or for other providers: one message per call.
        assert_eq!(tool_result_messages(&calls, &results, ResultFormat::OpenAi, &ResultOptions::default()).unwrap().len(), 3);
        let m = tool_result_messages(&calls, &results, ResultFormat::Anthropic, &ResultOptions::default()).unwrap();
        assert_eq!(m.iter().map(|b| b["tool_use_id"].as_str().unwrap()).collect::<Vec<_>>(), ["call_A", "call_B", "call_C"]);
        // One result for each call; a bad call is named.
        assert_eq!(tool_result_messages(&calls[..2], &results, ResultFormat::OpenAi, &opts).unwrap_err().code, ErrorCode::InvalidInput);
        let no_id = [calls[0].clone(), CallRef { id: None, name: "t".into(), parallel: None, custom: false }];
        let e = tool_result_messages(&no_id, &results[..2], ResultFormat::Bedrock, &opts).unwrap_err();
        assert!(e.message.starts_with("calls[1]: "), "{}", e.message);
    }

    /// Every image of a result counts toward what one request takes: nine 3.8 MB PNGs would make
    /// 45 MB of Anthropic request (it takes 32 MB), so those past its 18 MB budget are described; the
    /// results of one turn share the budget; Bedrock counts images.
    #[test]
    fn a_result_holds_to_a_media_budget() {
        let shots: Vec<Value> = (0..9).map(|_| json!({"type":"image","data":png_of(3_800_000),"mimeType":"image/png"})).collect();
        let r = result(Value::Array(shots));
        let m = message(&r, ResultFormat::Anthropic, ResultOptions::default());
        let blocks = m["content"].as_array().unwrap();
        assert_eq!(blocks.iter().filter(|b| b["type"] == "image").count(), 4);
        assert_eq!(blocks[4]["text"], ["[Image: image/png, 3.8 MB (not sent: over the 18 MB of images and documents Anthropic takes a request)]"; 5].join("\n"));
        assert!(m.to_string().len() < 24_000_000);
        // Raised: all nine.
        let m = message(&r, ResultFormat::Anthropic, ResultOptions { max_media_bytes: Some(usize::MAX), ..ResultOptions::default() });
        assert_eq!(m["content"].as_array().unwrap().len(), 9);
        // Gemini: 15 MB of image a request (20 MB of base64).
        let two = result(json!([{"type":"image","data":png_of(8_000_000),"mimeType":"image/png"},{"type":"image","data":png_of(8_000_000),"mimeType":"image/png"}]));
        let m = message(&two, ResultFormat::Gemini, ResultOptions { multimodal: true, ..ResultOptions::default() });
        assert_eq!(m["functionResponse"]["parts"].as_array().unwrap().len(), 1);
        assert_eq!(m["functionResponse"]["response"]["output"], "[Image: image/png, 8 MB (not sent: over the 15 MB of images and documents Gemini takes a request)]");
        // One turn, one budget.
        let calls = [call(), CallRef { id: Some("call_2".into()), name: "t".into(), parallel: None, custom: false }];
        let halves = [result(json!([{"type":"image","data":png_of(10_000_000),"mimeType":"image/png"}])), result(json!([{"type":"image","data":png_of(10_000_000),"mimeType":"image/png"}]))];
        let m = tool_result_messages(&calls, &halves, ResultFormat::Gemini, &ResultOptions { multimodal: true, ..ResultOptions::default() }).unwrap();
        assert!(m[0]["functionResponse"]["parts"].is_array());
        assert!(m[1]["functionResponse"].get("parts").is_none(), "{}", m[1]);
        // Bedrock: 20 images a request.
        let many: Vec<Value> = (0..21).map(|_| json!({"type":"image","data":PNG,"mimeType":"image/png"})).collect();
        let m = message(&result(Value::Array(many)), ResultFormat::Bedrock, ResultOptions::default());
        let content = m["toolResult"]["content"].as_array().unwrap();
        assert_eq!(content.iter().filter(|b| b.get("image").is_some()).count(), 20);
        assert_eq!(content[20]["text"], "[Image: image/png, 70 bytes (not sent: Bedrock takes at most 20 images a request)]");
    }

    /// `ollama` is Ollama's own `/api/chat` (as parseToolCalls reads it): the tool message names
    /// the tool, needs no id, and carries images (with `multimodal`) as base64 in `images`.
    #[test]
    fn ollama_tool_messages_are_its_own() {
        let r = result(json!({"content":[{"type":"text","text":"22°C"},{"type":"image","data":PNG,"mimeType":"image/png"}]}));
        let no_id = CallRef { id: None, name: "get_temperature".into(), parallel: None, custom: false };
        let m = tool_result_message(&no_id, &r, ResultFormat::Ollama, &ResultOptions::default()).unwrap();
        assert_eq!(m, json!({"role":"tool","tool_name":"get_temperature","content":"22°C\n[Image: image/png (not sent: text only)]"}));
        let m = tool_result_message(&call(), &r, ResultFormat::Ollama, &ResultOptions { multimodal: true, ..ResultOptions::default() }).unwrap();
        assert_eq!(m, json!({"role":"tool","tool_name":"mcp__s__t","content":"22°C","tool_call_id":"call_1","images":[PNG]}));
        // PNG, JPEG and WebP (s26a F5) only; errors said in the text; structure as JSON text.
        let gif = result(json!([{"type":"image","data":"R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7","mimeType":"image/gif"}]));
        let m = tool_result_message(&no_id, &gif, ResultFormat::Ollama, &ResultOptions { multimodal: true, ..ResultOptions::default() }).unwrap();
        assert_eq!(m["content"], "[Image: image/gif (not sent: Ollama takes PNG, JPEG and WebP)]");
        let webp = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==";
        let r = result(json!([{"type":"text","text":"Here is the page."},{"type":"image","data":webp,"mimeType":"image/webp"}]));
        let m = tool_result_message(&no_id, &r, ResultFormat::Ollama, &ResultOptions { multimodal: true, ..ResultOptions::default() }).unwrap();
        assert_eq!(m, json!({"role":"tool","tool_name":"get_temperature","content":"Here is the page.","images":[webp]}));
        let e = result(json!({"isError":true,"content":[{"type":"text","text":"bad"}],"structuredContent":{"code":42}}));
        assert_eq!(tool_result_message(&no_id, &e, ResultFormat::Ollama, &ResultOptions::default()).unwrap()["content"], "Error: bad\n{\"code\":42}");
        assert_eq!(ResultFormat::parse("ollama").unwrap(), ResultFormat::Ollama);
    }

    /// Where the cap falls the text is cut and marked once, within the cap; text after it is
    /// dropped, images stay.
    #[test]
    fn one_truncation_marker() {
        let r = result(json!([
            {"type":"text","text":"a".repeat(100)},
            {"type":"image","data":PNG,"mimeType":"image/png"},
            {"type":"text","text":"more"}
        ]));
        let cut = |shown: usize, total: usize| format!("{}\n[Truncated: {shown} of {total} characters shown]", "a".repeat(shown));
        // OpenAI Chat: the image is described in the text (40 units), so cut with it.
        assert_eq!(message(&r, ResultFormat::OpenAi, capped(50))["content"], cut(10, 146));
        let m = message(&r, ResultFormat::Anthropic, capped(50));
        assert_eq!(m["content"].as_array().unwrap().len(), 2, "{m}");
        assert_eq!(m["content"][0], json!({"type":"text","text":cut(10, 104)}));
        assert_eq!(m["content"][1]["type"], "image");
        let m = message(&r, ResultFormat::Bedrock, capped(50));
        assert_eq!(m["toolResult"]["content"].as_array().unwrap().len(), 2, "{m}");
        assert_eq!(m["toolResult"]["content"][0], json!({"text":cut(10, 104)}));
        let m = message(&r, ResultFormat::OpenAiResponses, ResultOptions { multimodal: true, ..capped(50) });
        assert_eq!(m["output"], json!([{"type":"input_text","text":cut(10, 104)},{"type":"input_image","image_url":format!("data:image/png;base64,{PNG}")}]));
        // The cap met exactly by the first text: the marker stands alone where the next was.
        let r = result(json!([
            {"type":"text","text":"a".repeat(20)},
            {"type":"image","data":PNG,"mimeType":"image/png"},
            {"type":"text","text":"b".repeat(40)},
            {"type":"text","text":"c".repeat(40)}
        ]));
        let m = message(&r, ResultFormat::Anthropic, capped(60));
        assert_eq!(m["content"][0], json!({"type":"text","text":"a".repeat(20)}));
        assert_eq!(m["content"][2], json!({"type":"text","text":"[Truncated: 20 of 101 characters shown]"}));
        assert_eq!(m["content"].as_array().unwrap().len(), 3);
        for format in ALL {
            let sent = message(&r, format, capped(60)).to_string();
            assert_eq!(sent.matches("[Truncated").count(), 1, "{format:?}: {sent}");
        }
    }

    /// Everything counts in `maxChars`: the marker, OpenAI's `Error: ` prefix, the placeholders of
    /// images sent in OpenAI's user message. A cap too small for the counts takes the short marker,
    /// one smaller than that none.
    #[test]
    fn the_cap_holds_the_marker_the_prefix_and_the_placeholders() {
        let r = result(json!({"isError":true,"content":[{"type":"text","text":"x".repeat(300)},{"type":"image","data":PNG,"mimeType":"image/png"}]}));
        for max in [0, 5, 11, 12, 13, 30, 45, 47, 48, 100, 299, 300, 310, 400] {
            for (format, opts) in [
                (ResultFormat::OpenAi, capped(max)),
                (ResultFormat::OpenAi, ResultOptions { image_message: true, ..capped(max) }),
                (ResultFormat::OpenAiResponses, capped(max)),
                (ResultFormat::Gemini, capped(max)),
            ] {
                let m = message(&r, format, opts);
                let m = if m.is_array() { m[0].clone() } else { m };
                let text = [&m["content"], &m["output"], &m["functionResponse"]["response"]["error"]].into_iter().find_map(|v| v.as_str()).unwrap();
                assert!(utf16_len(text) <= max, "{format:?} {max}: {text:?}");
            }
            let flat = crate::content::flatten_result(&r, crate::content::FlattenOptions { max_chars: max });
            assert!(utf16_len(&flat) <= max, "{max}: {flat:?}");
        }
        let m = message(&r, ResultFormat::OpenAi, ResultOptions { image_message: true, ..capped(400) });
        assert_eq!(m[0]["content"], format!("Error: {}\n[Image: image/png]", "x".repeat(300)));
        assert_eq!(message(&r, ResultFormat::OpenAi, capped(25))["content"], "Error: xxxxxx\n[Truncated]");
        assert_eq!(message(&r, ResultFormat::OpenAi, capped(12))["content"], "Error: xxxxx");
        assert_eq!(crate::content::flatten_result(&r, crate::content::FlattenOptions { max_chars: 60 }), format!("Error: {}\n[Truncated: 13 of 341 characters shown]", "x".repeat(13)));
    }

    /// Bedrock refuses a request whose messages repeat a document name ("Messages can't contain
    /// duplicate document names"), compared without case, and the whole conversation is resent
    /// with each request: names are unique across the turn (numbered), and across turns by the
    /// call's id (a tag of its hash).
    #[test]
    fn bedrock_document_names_are_unique_across_the_conversation() {
        let pdf = b64s("%PDF-1.4\n%%EOF");
        let doc = |uri: &str| result(json!([{"type":"resource","resource":{"uri":uri,"mimeType":"application/pdf","blob":pdf}}]));
        let results = [doc("file:///a/report.pdf"), doc("file:///b/report.pdf"), doc("file:///c/REPORT.pdf"), doc("file:///d/Report (2).pdf")];
        let names_of = |m: &[Value]| -> Vec<String> { m.iter().map(|m| m["toolResult"]["content"][1]["document"]["name"].as_str().unwrap().to_owned()).collect() };
        let same: Vec<CallRef> = (0..4).map(|_| CallRef { id: Some("tooluse_1".into()), name: "t".into(), parallel: None, custom: false }).collect();
        let m = tool_result_messages(&same, &results, ResultFormat::Bedrock, &ResultOptions::default()).unwrap();
        let tag = id_tag("tooluse_1");
        assert_eq!(names_of(&m), [format!("report ({tag})"), format!("report ({tag}) (2)"), format!("REPORT ({tag}) (3)"), format!("Report (2) ({tag})")]);
        // The same document answering calls of two turns, each written alone.
        let mut seen = std::collections::HashSet::new();
        for turn in 0..50 {
            let calls: Vec<CallRef> = (0..4).map(|i| CallRef { id: Some(format!("tooluse_{turn}_{i}")), name: "t".into(), parallel: None, custom: false }).collect();
            let m = tool_result_messages(&calls, &results, ResultFormat::Bedrock, &ResultOptions::default()).unwrap();
            for name in names_of(&m) {
                assert!(name.len() <= MAX_FILE_NAME && name.chars().all(|c| c.is_ascii_alphanumeric() || " -()[]".contains(c)) && !name.contains("  "), "{name}");
                assert!(seen.insert(name.to_ascii_lowercase()), "{name} twice in the conversation");
            }
        }
        assert_eq!(id_tag("tooluse_1"), id_tag("tooluse_1"));
        assert_eq!(id_tag("tooluse_1").len(), 8);
        // Two turns, each one call of its own id and the same file, written apart: two names,
        // each the file's with its call's tag. The same call's result written again: the same
        // name (the tag is the id's alone).
        let one = |id: &str| {
            let call = CallRef { id: Some(id.into()), name: "t".into(), parallel: None, custom: false };
            names_of(&tool_result_messages(&[call], &results[..1], ResultFormat::Bedrock, &ResultOptions::default()).unwrap()).remove(0)
        };
        let (a, b) = (one("tooluse_a"), one("tooluse_b"));
        assert_ne!(a.to_ascii_lowercase(), b.to_ascii_lowercase());
        assert_eq!((a.as_str(), b.as_str()), (format!("report ({})", id_tag("tooluse_a")).as_str(), format!("report ({})", id_tag("tooluse_b")).as_str()));
        assert_eq!(one("tooluse_a"), a);
        // There is no call without an id to name a file for: Bedrock's results need it.
        let none = CallRef { id: None, name: "t".into(), parallel: None, custom: false };
        let e = tool_result_messages(&[none], &results[..1], ResultFormat::Bedrock, &ResultOptions::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(e.message.contains("need the call's id"), "{}", e.message);
        let long = doc(&format!("file:///{}.pdf", "x".repeat(500)));
        let m = tool_result_messages(&same[..1], &[long], ResultFormat::Bedrock, &ResultOptions::default()).unwrap();
        assert_eq!(names_of(&m)[0], format!("{} ({tag})", "x".repeat(100)));
    }

    /// Bedrock's document names take ASCII letters and digits only.
    #[test]
    fn bedrock_names_are_ascii() {
        assert_eq!(bedrock_name("Résumé über.pdf"), "R sum ber");
        assert_eq!(bedrock_name("日本語.pdf"), "document");
        assert_eq!(bedrock_name("Q3 (v2) [final]-x.pdf"), "Q3 (v2) [final]-x");
    }

    /// An error whose content is media alone still says something where the text is apart from
    /// the media (Gemini's `response.error`, Ollama's `content`).
    #[test]
    fn media_only_errors_say_so() {
        let r = result(json!({"isError":true,"content":[{"type":"image","data":PNG,"mimeType":"image/png"}]}));
        let multimodal = ResultOptions { multimodal: true, ..ResultOptions::default() };
        for format in [ResultFormat::Gemini, ResultFormat::Vertex] {
            let m = message(&r, format, multimodal);
            assert_eq!(m["functionResponse"]["response"], json!({"error":MEDIA_ERROR}), "{format:?}");
            assert_eq!(m["functionResponse"]["parts"][0]["inlineData"]["data"], PNG);
        }
        let m = message(&r, ResultFormat::Ollama, multimodal);
        assert_eq!(m["content"], format!("Error: {MEDIA_ERROR}"));
        assert_eq!(m["images"], json!([PNG]));
        // Within the cap, never cut: a shorter sentence where it does not fit, down to none.
        // toolwire's own short forms are not prefixed again ("Error: Error").
        let m = message(&r, ResultFormat::Ollama, ResultOptions { max_chars: 12, ..multimodal });
        assert_eq!(m["content"], "Error");
        let m = message(&r, ResultFormat::Gemini, ResultOptions { max_chars: 5, ..multimodal });
        assert_eq!(m["functionResponse"]["response"], json!({"error":"Error"}));
        let m = message(&r, ResultFormat::Gemini, ResultOptions { max_chars: 40, ..multimodal });
        assert_eq!(m["functionResponse"]["response"], json!({"error":"Error; see the attached media."}));
        let whole = [MEDIA_ERROR, "Error with no text; see the attached media.", "Error; see the attached media.", "Error; see media.", "Error.", "Error", ""];
        let empty = [EMPTY_ERROR, "Error with no content.", "Error.", "Error", ""];
        let blank = result(json!({"isError":true,"content":[]}));
        for max in 0..=90 {
            let opts = ResultOptions { max_chars: max, ..multimodal };
            for (r, sentences) in [(&r, &whole[..]), (&blank, &empty[..])] {
                let gemini = message(r, ResultFormat::Gemini, opts);
                let ollama = message(r, ResultFormat::Ollama, opts);
                let texts = [
                    gemini["functionResponse"]["response"]["error"].as_str().unwrap(),
                    ollama["content"].as_str().map(|c| c.strip_prefix("Error: ").unwrap_or(c)).unwrap(),
                ];
                assert!(!ollama["content"].as_str().unwrap().starts_with("Error: Error"), "{max}: {ollama}");
                for t in texts {
                    assert!(sentences.contains(&t), "{max}: {t:?}");
                    assert!(utf16_len(t) <= max, "{max}: {t:?}");
                }
                // The longest that fits.
                assert_eq!(texts[0], *sentences.iter().find(|s| s.len() <= max).unwrap(), "{max}");
            }
            // flattenContent describes the image: only the empty error is its sentence.
            let flat = flatten(&blank, max);
            let t = flat.strip_prefix("Error: ").unwrap_or(&flat);
            assert!(empty.contains(&t) && utf16_len(&flat) <= max, "{max}: {flat:?}");
            // The prefix is never cut (`Err`, `Error:`) nor left bare: under its room, the longest
            // of "Error." and "Error" that fits (s22d F6); likewise for OpenAI's and Ollama's text.
            let said = result(json!({"isError":true,"content":[{"type":"text","text":"disk full"}]}));
            let openai = message(&said, ResultFormat::OpenAi, opts);
            let ollama = message(&blank, ResultFormat::Ollama, opts);
            for t in [flat.as_str(), &flatten(&said, max), openai["content"].as_str().unwrap(), ollama["content"].as_str().unwrap()] {
                // toolwire's own short forms stand alone ("Error with no content.", not after "Error: ").
                let own = t.starts_with("Error") && EMPTY_ERRORS.contains(&t);
                let whole = t.strip_prefix("Error: ").is_some_and(|rest| !rest.is_empty() && !rest.starts_with("Error")) || own || t.is_empty();
                assert!(whole && utf16_len(t) <= max, "{max}: {t:?}");
                assert_eq!(t.is_empty(), max < 5, "{max}: {t:?}");
            }
        }
        // OpenAI Responses with media (F3, s24e): the media-only error says so as Ollama's does,
        // within the cap (its shorter forms, or nothing), never a bare `Error:` past it.
        let image = json!({"type":"input_image","image_url":format!("data:image/png;base64,{PNG}")});
        let m = message(&r, ResultFormat::OpenAiResponses, multimodal);
        assert_eq!(m["output"], json!([{"type":"input_text","text":format!("Error: {MEDIA_ERROR}")}, image]));
        for max in 0..=90 {
            let m = message(&r, ResultFormat::OpenAiResponses, ResultOptions { max_chars: max, ..multimodal });
            let items = m["output"].as_array().unwrap();
            assert_eq!(items.last(), Some(&image), "{max}");
            let texts: Vec<&str> = items.iter().filter_map(|i| i["text"].as_str()).collect();
            assert_eq!(texts.iter().map(|t| utf16_len(t)).sum::<usize>(), texts.first().map_or(0, |t| utf16_len(t)));
            let t = texts.first().copied().unwrap_or_default();
            assert!(utf16_len(t) <= max && (t.is_empty() == (max < 5)), "{max}: {t:?}");
            assert_eq!(t, message(&r, ResultFormat::Ollama, ResultOptions { max_chars: max, ..multimodal })["content"], "{max}");
        }
        // Text after the media: `Error:` before them; text first: `Error: ` before it, one cap over both.
        let after = result(json!({"isError":true,"content":[{"type":"image","data":PNG,"mimeType":"image/png"},{"type":"text","text":"disk full"}]}));
        let m = message(&after, ResultFormat::OpenAiResponses, multimodal);
        assert_eq!(m["output"], json!([{"type":"input_text","text":"Error:"}, image, {"type":"input_text","text":"disk full"}]));
        let first = result(json!({"isError":true,"content":[{"type":"text","text":"disk full"},{"type":"image","data":PNG,"mimeType":"image/png"}]}));
        let m = message(&first, ResultFormat::OpenAiResponses, multimodal);
        assert_eq!(m["output"], json!([{"type":"input_text","text":"Error: disk full"}, image]));
        for max in 0..=30 {
            for r in [&after, &first] {
                let m = message(r, ResultFormat::OpenAiResponses, ResultOptions { max_chars: max, ..multimodal });
                let units: usize = m["output"].as_array().unwrap().iter().filter_map(|i| i["text"].as_str()).map(utf16_len).sum();
                assert!(units <= max, "{max}: {m}");
            }
        }
        // Text beside the media is the error.
        let r = result(json!({"isError":true,"content":[{"type":"image","data":PNG,"mimeType":"image/png"},{"type":"text","text":"bad"}]}));
        assert_eq!(message(&r, ResultFormat::Gemini, multimodal)["functionResponse"]["response"], json!({"error":"bad"}));
    }

    /// Anthropic refuses an error `tool_result` holding anything but text ("all content must be
    /// type `text` if `is_error` is true"), and Claude on Bedrock a `toolResult` of `status:
    /// "error"` likewise: an error's images and documents are described in its text, with why,
    /// and take nothing of the media budget. A result that is not an error, Bedrock without
    /// `status`, and the providers without the rule keep them.
    #[test]
    fn errors_carry_text_only_where_the_provider_requires_it() {
        let pdf = b64(b"%PDF-1.4\n");
        let content = json!([
            {"type":"text","text":"page failed"},
            {"type":"image","data":PNG,"mimeType":"image/png"},
            {"type":"resource","resource":{"uri":"file:///shot.png","mimeType":"image/png","blob":PNG}},
            {"type":"resource","resource":{"uri":"file:///r.pdf","mimeType":"application/pdf","blob":pdf}}
        ]);
        let error = result(json!({"isError":true,"content":content}));
        let text = |provider: &str| {
            format!(
                "page failed\n[Image: image/png (not sent: {provider} error results take text only)]\n\
                 [Resource: file:///shot.png (image/png), 70 bytes, not sent: {provider} error results take text only]\n\
                 [Resource: file:///r.pdf (application/pdf), 9 bytes, not sent: {provider} error results take text only]"
            )
        };
        let m = message(&error, ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(m["content"], json!([{"type":"text","text":text("Anthropic")}]));
        assert_eq!(m["is_error"], true);
        let m = message(&error, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"], json!([{"text":text("Bedrock")}]));
        assert_eq!(m["toolResult"]["status"], "error");
        // Media alone: the description is the error's text.
        let alone = result(json!({"isError":true,"content":[{"type":"image","data":PNG,"mimeType":"image/jpeg"}]}));
        let m = message(&alone, ResultFormat::Anthropic, ResultOptions::default());
        assert_eq!(m["content"], json!([{"type":"text","text":"[Image: image/png (not sent: Anthropic error results take text only)]"}]));
        // Bedrock's structure goes as JSON text in an error, not as a `json` block.
        let structured = result(json!({"isError":true,"content":[{"type":"text","text":"bad"}],"structuredContent":{"code":7}}));
        let m = message(&structured, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"], json!([{"text":"bad\n{\"code\":7}"}]));
        let ok = result(json!({"content":[{"type":"text","text":"bad"}],"structuredContent":{"code":7}}));
        assert_eq!(message(&ok, ResultFormat::Bedrock, ResultOptions::default())["toolResult"]["content"], json!([{"text":"bad"},{"json":{"code":7}}]));
        // Not an error: sent as before.
        let success = result(json!({"content":content}));
        let kinds = |blocks: &Value| blocks.as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap_or("").to_owned()).collect::<Vec<_>>();
        assert_eq!(kinds(&message(&success, ResultFormat::Anthropic, ResultOptions::default())["content"]), ["text", "image", "text", "image", "text", "document"]);
        let m = message(&success, ResultFormat::Bedrock, ResultOptions::default());
        assert!(m["toolResult"]["content"][1]["image"].is_object() && m["toolResult"]["content"][5]["document"].is_object(), "{m}");
        // Bedrock without `status` says the error in its text, and nothing refuses its media.
        let m = message(&error, ResultFormat::Bedrock, ResultOptions { bedrock_status: false, ..ResultOptions::default() });
        assert_eq!(m["toolResult"]["content"][0]["text"], "Error: page failed");
        assert!(m["toolResult"]["content"][1]["image"].is_object(), "{m}");
        // Gemini's error beside its parts, Responses' `Error: ` before its first text: unchanged.
        let multimodal = ResultOptions { multimodal: true, ..ResultOptions::default() };
        let m = message(&error, ResultFormat::Gemini, multimodal);
        assert_eq!(m["functionResponse"]["parts"].as_array().map(Vec::len), Some(3));
        let m = message(&error, ResultFormat::OpenAiResponses, multimodal);
        assert_eq!(m["output"][0], json!({"type":"input_text","text":"Error: page failed"}));
        assert_eq!(m["output"][1]["type"], "input_image");
        // What an error did not send leaves the request's budget to the results after it.
        let one_image = ResultOptions { max_media_bytes: Some(decode_base64(PNG).len()), ..ResultOptions::default() };
        let image = json!([{"type":"image","data":PNG,"mimeType":"image/png"}]);
        let turn = [result(json!({"isError":true,"content":image})), result(json!({"content":image}))];
        let m = tool_result_messages(&[call(), call()], &turn, ResultFormat::Anthropic, &one_image).unwrap();
        assert_eq!(m[0]["content"][0]["type"], "text");
        assert_eq!(m[1]["content"][0]["type"], "image");
    }

    /// Many media before the text: each text joins the first (kept, not searched for each time).
    #[test]
    fn many_media_then_many_texts() {
        const N: usize = 20_000;
        let mut content: Vec<Value> = (0..N).map(|_| json!({"type":"image","data":PNG,"mimeType":"image/png"})).collect();
        content.extend((0..N).map(|i| json!({"type":"text","text":format!("t{i}")})));
        let r = result(json!({"content":content}));
        let opts = ResultOptions { multimodal: true, max_chars: usize::MAX / 2, ..ResultOptions::default() };
        let m = message(&r, ResultFormat::Gemini, opts);
        let text: Vec<String> = (0..N).map(|i| format!("t{i}")).collect();
        assert_eq!(m["functionResponse"]["response"]["output"], text.join("\n"));
        let parts = m["functionResponse"]["parts"].as_array().unwrap();
        assert_eq!(parts.len(), N);
        assert!(parts.iter().all(|p| p == &json!({"inlineData":{"mimeType":"image/png","data":PNG}})));
        // The same with the structure's JSON after the text (the second build, reindexed after the cap).
        let mut v = json!({"content":content, "structuredContent":{"a":1}, "isError":true});
        v["content"].as_array_mut().unwrap().truncate(N + 8);
        let m = message(&result(v), ResultFormat::Gemini, ResultOptions { max_chars: 24, ..opts });
        assert_eq!(m["functionResponse"]["response"]["error"], "t0\nt\n[Truncated]\n{\"a\":1}");
        assert_eq!(m["functionResponse"]["parts"].as_array().unwrap().len(), N);
    }

    /// A PDF sent under another type is sent as the PDF it is.
    #[test]
    fn pdfs_are_known_by_their_bytes() {
        let pdf = b64s("%PDF-1.4\n%%EOF");
        for mime in ["application/x-pdf", "application/acrobat", "binary/octet-stream", "application/octet-stream", ""] {
            let r = result(json!([{"type":"resource","resource":{"uri":"file:///a.pdf","mimeType":mime,"blob":pdf}}]));
            let m = message(&r, ResultFormat::Anthropic, ResultOptions::default());
            assert_eq!(m["content"][1], json!({"type":"document","source":{"type":"base64","media_type":"application/pdf","data":pdf}}), "{mime}");
            assert_eq!(m["content"][0]["text"], "[Resource: file:///a.pdf (application/pdf)]", "{mime}");
        }
        // Not a PDF under that name: described as before.
        let zip = result(json!([{"type":"resource","resource":{"uri":"file:///a.bin","mimeType":"binary/octet-stream","blob":b64(b"PK\x03\x04")}}]));
        assert_eq!(message(&zip, ResultFormat::Anthropic, ResultOptions::default())["content"][0]["text"], "[Resource: file:///a.bin (binary/octet-stream), 4 bytes, not sent: format not supported]");
    }

    /// A budget under a megabyte is named in bytes or KB, not "0 MB".
    #[test]
    fn small_budgets_are_named() {
        let r = result(json!([{"type":"image","data":PNG,"mimeType":"image/png"}]));
        let m = message(&r, ResultFormat::Anthropic, ResultOptions { max_media_bytes: Some(50), ..ResultOptions::default() });
        assert_eq!(m["content"][0]["text"], "[Image: image/png, 70 bytes (not sent: over the 50 bytes of images and documents of maxMediaBytes)]");
    }

    /// A budget the caller set (`maxMediaBytes`) is named as the option's, not as what the
    /// provider takes (Anthropic takes 18 MB, not 50 bytes); the provider's own is named as its.
    #[test]
    fn a_callers_media_budget_names_the_option() {
        let r = result(json!([{"type":"image","data":PNG,"mimeType":"image/png"}, {"type":"image","data":PNG,"mimeType":"image/png"}]));
        let one = ResultOptions { max_media_bytes: Some(decode_base64(PNG).len()), ..ResultOptions::default() };
        let text = "[Image: image/png, 70 bytes (not sent: over the 70 bytes of images and documents of maxMediaBytes)]";
        assert_eq!(message(&r, ResultFormat::Anthropic, one)["content"][1]["text"], text);
        assert_eq!(message(&r, ResultFormat::Bedrock, one)["toolResult"]["content"][1]["text"], text);
        let gemini = message(&r, ResultFormat::Gemini, ResultOptions { multimodal: true, ..one });
        assert_eq!(gemini["functionResponse"]["response"]["output"], text);
        // Across one turn's results too.
        let calls = [CallRef { id: Some("a".into()), ..call() }, CallRef { id: Some("b".into()), ..call() }];
        let one_each = [result(json!([{"type":"image","data":PNG,"mimeType":"image/png"}])), result(json!([{"type":"image","data":PNG,"mimeType":"image/png"}]))];
        let ms = tool_result_messages(&calls, &one_each, ResultFormat::Anthropic, &one).unwrap();
        assert_eq!(ms[1]["content"][0]["text"], text);
    }

    /// A `data:` URL is bytes, not a name; a long name is cut, its extension kept.
    #[test]
    fn data_urls_are_shown_by_their_head() {
        let long = format!("data:application/pdf;base64,{}", "A".repeat(10_000));
        assert_eq!(shown_uri(&long), "data:application/pdf;base64,…");
        assert_eq!(shown_uri("data:text/plain,hi"), "data:text/plain,hi");
        assert_eq!(shown_uri(&format!("DATA:{}", "é".repeat(60))), format!("DATA:{}…", "é".repeat(29)));
        assert_eq!(shown_uri(&format!("file:///{}", "a".repeat(100))), format!("file:///{}", "a".repeat(100)));
        let r = result(json!({"content": [{"type": "resource", "resource": {"uri": long, "mimeType": "application/zip", "blob": "UEsDBA=="}}]}));
        let m = message(&r, ResultFormat::OpenAi, ResultOptions::default());
        assert!(m["content"].as_str().unwrap().starts_with("[Resource: data:application/pdf;base64,… (application/zip)"), "{m}");
        let r = result(json!({"content": [{"type": "resource", "resource": {"uri": format!("data:text/plain,{}", "x".repeat(100)), "text": "t"}}]}));
        assert_eq!(flatten(&r, 1000).lines().next(), Some("[Resource: data:text/plain,…]"));
    }

    #[test]
    fn file_names_are_names() {
        let pdf = b64s("%PDF-1.4\n%%EOF");
        let uri = format!("data:application/pdf;base64,{pdf}");
        assert_eq!(file_name(&uri, "pdf"), "document.pdf");
        assert_eq!(file_name("DATA:application/pdf;base64,QUJD/x", "pdf"), "document.pdf");
        let long = file_name(&format!("file:///{}.PDF", "é".repeat(300)), "pdf");
        assert_eq!(long.chars().count(), MAX_FILE_NAME);
        assert!(long.ends_with(".PDF"));
        assert_eq!(file_name(&format!("file:///{}", "a".repeat(300)), "pdf"), format!("{}.pdf", "a".repeat(196)));
        // A segment's escapes are its text; a decoded separator or control character is no part of a name.
        assert_eq!(file_name("file:///Q3%20report.pdf", "pdf"), "Q3 report.pdf");
        assert_eq!(file_name("file:///r%C3%A9sum%C3%A9", "pdf"), "résumé.pdf");
        assert_eq!(file_name("https://x.example/a%2Fb%5Cc%0Ad.pdf?v=1", "pdf"), "a_b_c_d.pdf");
        assert_eq!(file_name("file:///%20%20", "pdf"), "document.pdf");
        assert_eq!(file_name("file:///bad%ZZ%C3.pdf", "pdf"), "bad%ZZ\u{FFFD}.pdf");
        assert_eq!(bedrock_name(&file_name("file:///Q3%20report.pdf", "pdf")), "Q3 report");
        let r = result(json!([{"type":"resource","resource":{"uri":uri,"mimeType":"application/pdf","blob":pdf}}]));
        let m = message(&r, ResultFormat::OpenAiResponses, ResultOptions { multimodal: true, ..ResultOptions::default() });
        assert_eq!(m["output"][1]["filename"], "document.pdf");
        let m = message(&r, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"][1]["document"]["name"], "document (a6591209)");
    }

    /// The calls `parseToolCalls` gives for `response`, as `toolResultMessages` reads them back.
    fn refs(response: &Value, format: crate::calls::CallFormat) -> Vec<CallRef> {
        let calls = crate::calls::parse_tool_calls(response, format, None).unwrap();
        calls.iter().map(|c| CallRef::from_value(&c.to_value()).unwrap()).collect()
    }

    const WRAPPER_ARGS: &str = r#"{"tool_uses":[{"recipient_name":"functions.weather","parameters":{"city":"Paris"}},{"recipient_name":"functions.attractions","parameters":{"city":"Rome"}}]}"#;

    /// Responses: the API knows the wrapper's `call_id` alone (and with `previous_response_id`
    /// holds the wrapper item itself), so its tool uses' results go back as one output for it, each
    /// under a line naming it, where the first of them is; the other calls as they are.
    #[test]
    fn responses_answer_a_parallel_wrapper_once_for_all_its_tool_uses() {
        let resp = json!({"output":[
            {"type":"function_call","call_id":"call_p","name":"parallel","arguments":WRAPPER_ARGS,"status":"completed"},
            {"type":"function_call","call_id":"call_n","name":"t","arguments":"{}","status":"completed"}
        ]});
        let calls = refs(&resp, crate::calls::CallFormat::OpenAiResponses);
        assert_eq!(calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(), [Some("call_p_0"), Some("call_p_1"), Some("call_n")]);
        let results = [
            result(json!({"content":[{"type":"text","text":"18 C"}]})),
            result(json!({"content":[{"type":"text","text":"museum closed"}],"isError":true})),
            result(json!({"content":[{"type":"text","text":"ok"}]})),
        ];
        let opts = ResultOptions::default();
        let out = tool_result_messages(&calls, &results, ResultFormat::OpenAiResponses, &opts).unwrap();
        assert_eq!(out, [
            json!({"type":"function_call_output","call_id":"call_p","output":"tool_uses[0] (weather):\n18 C\n\ntool_uses[1] (attractions):\nError: museum closed"}),
            json!({"type":"function_call_output","call_id":"call_n","output":"ok"}),
        ]);
        // Given in another order, the output is where the first of them is, in the wrapper's order.
        let shuffled = [calls[2].clone(), calls[1].clone(), calls[0].clone()];
        let reversed = [results[2].clone(), results[1].clone(), results[0].clone()];
        let out2 = tool_result_messages(&shuffled, &reversed, ResultFormat::OpenAiResponses, &opts).unwrap();
        assert_eq!(out2, [out[1].clone(), out[0].clone()]);
        // One output for the wrapper needs every result: one missing, or given twice, is refused.
        let e = tool_result_messages(&calls[..1], &results[..1], ResultFormat::OpenAiResponses, &opts).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(e.message.starts_with("calls[0]: the call \"weather\" is a tool use of OpenAI's parallel wrapper call call_p, whose tool uses 1 have no result here"), "{}", e.message);
        let twice = [calls[0].clone(), calls[1].clone(), calls[1].clone()];
        let e = tool_result_messages(&twice, &results, ResultFormat::OpenAiResponses, &opts).unwrap_err();
        assert!(e.message.starts_with("calls[0]: calls[2] is tool use 1 of 2"), "{}", e.message);
        // A count no call list could hold is refused at once, naming a few of the missing.
        let mut huge = calls[0].clone();
        huge.parallel.as_mut().unwrap().count = usize::MAX;
        let e = tool_result_messages(&[huge], &results[..1], ResultFormat::OpenAiResponses, &opts).unwrap_err();
        assert!(e.message.contains(&format!("whose tool uses 1, 2, 3, 4, 5, 6, 7, 8 and {} more have no result here", usize::MAX - 9)), "{}", e.message);
        // Many wrappers: each answered in one pass over its own tool uses.
        let many: Vec<CallRef> = (0..20_000)
            .map(|k| CallRef { id: Some(format!("c{k}_0")), name: "t".into(), parallel: Some(Parallel { id: Some(format!("c{k}")), name: "parallel".into(), index: 0, count: 1 }), custom: false })
            .collect();
        let texts: Vec<CallToolResult> = (0..20_000).map(|_| results[2].clone()).collect();
        assert_eq!(tool_result_messages(&many, &texts, ResultFormat::OpenAiResponses, &opts).unwrap().len(), 20_000);
        // One result alone: toolResultMessage cannot answer the wrapper with it.
        let e = tool_result_message(&calls[0], &results[0], ResultFormat::OpenAiResponses, &opts).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert!(e.message.contains("give all 2 calls and results to toolResultMessages"), "{}", e.message);
        // A wrapper of one tool use: toolResultMessage answers it.
        let one = json!({"type":"function_call","call_id":"call_1","name":"parallel","arguments":r#"{"tool_uses":[{"recipient_name":"functions.weather","parameters":{}}]}"#});
        let call = &refs(&one, crate::calls::CallFormat::OpenAiResponses)[0];
        let m = tool_result_message(call, &results[0], ResultFormat::OpenAiResponses, &opts).unwrap();
        assert_eq!(m, json!({"type":"function_call_output","call_id":"call_1","output":"tool_uses[0] (weather):\n18 C"}));
    }

    /// With `multimodal`, a tool use's media make the wrapper's output a list of items, each use's
    /// line an `input_text` before its own.
    #[test]
    fn a_parallel_wrappers_multimodal_output_labels_each_tool_use() {
        let resp = json!({"type":"function_call","call_id":"call_p","name":"parallel","arguments":WRAPPER_ARGS});
        let calls = refs(&resp, crate::calls::CallFormat::OpenAiResponses);
        let results = [
            result(json!({"content":[{"type":"text","text":"map"},{"type":"image","data":PNG,"mimeType":"image/png"}]})),
            result(json!({"content":[{"type":"text","text":"none"}]})),
        ];
        let opts = ResultOptions { multimodal: true, ..ResultOptions::default() };
        let out = tool_result_messages(&calls, &results, ResultFormat::OpenAiResponses, &opts).unwrap();
        assert_eq!(out, [json!({"type":"function_call_output","call_id":"call_p","output":[
            {"type":"input_text","text":"tool_uses[0] (weather):"},
            {"type":"input_text","text":"map"},
            {"type":"input_image","image_url":format!("data:image/png;base64,{PNG}")},
            {"type":"input_text","text":"tool_uses[1] (attractions):\nnone"}
        ]})]);
    }

    /// The wrapper's one output is held to `maxChars` as a whole, labels and blank lines included:
    /// short results whole, the long ones cut to equal shares of what is left, each marked; where a
    /// share would leave no room for a marker, or the lines do not fit, one cut over all of it.
    #[test]
    fn a_parallel_wrappers_output_is_within_the_cap() {
        let resp = json!({"type":"function_call","call_id":"call_p","name":"parallel","arguments":WRAPPER_ARGS});
        let calls = refs(&resp, crate::calls::CallFormat::OpenAiResponses);
        let long = |c: &str| result(json!({"content":[{"type":"text","text":c.repeat(200)}]}));
        for max in [0usize, 11, 12, 30, 50, 60, 79, 80, 100, 150, 300, 1000] {
            for (results, multimodal) in [([long("a"), long("b")], false), ([long("a"), result(json!({"content":[{"type":"text","text":"open"}]}))], false)] {
                let opts = ResultOptions { max_chars: max, multimodal, ..ResultOptions::default() };
                let out = tool_result_messages(&calls, &results, ResultFormat::OpenAiResponses, &opts).unwrap();
                let text = out[0]["output"].as_str().unwrap();
                assert!(utf16_len(text) <= max, "{max}: {} units: {text}", utf16_len(text));
                // Marked where cut (a marker needs 12 units).
                let whole: usize = 54 + results.iter().map(|r| utf16_len(&flatten(r, usize::MAX))).sum::<usize>();
                assert_eq!(text.contains("[Truncated"), whole > max && max >= 12, "{max}: {text}");
                // The lines (54 units) and a marker for each cut result (12): both results labelled.
                if max >= 54 + 24 {
                    assert!(text.starts_with("tool_uses[0] (weather):\n") && text.contains("\n\ntool_uses[1] (attractions):\n"), "{text}");
                }
            }
        }
        // An error's share holds its `Error: ` and the marker: a share that holds the marker
        // alone is no share for it, and its cut is marked all the same.
        let error = |c: &str| result(json!({"content":[{"type":"text","text":c.repeat(190)}],"isError":true}));
        let ok = result(json!({"content":[{"type":"text","text":"ok"}]}));
        for max in 0usize..=300 {
            for results in [[error("a"), ok.clone()], [ok.clone(), error("b")], [error("a"), error("b")], [error("a"), long("b")]] {
                let opts = ResultOptions { max_chars: max, ..ResultOptions::default() };
                let out = tool_result_messages(&calls, &results, ResultFormat::OpenAiResponses, &opts).unwrap();
                let text = out[0]["output"].as_str().unwrap();
                assert!(utf16_len(text) <= max, "{max}: {} units: {text}", utf16_len(text));
                let whole: usize = 54 + results.iter().map(|r| utf16_len(&flatten(r, usize::MAX))).sum::<usize>();
                assert_eq!(text.contains("[Truncated"), whole > max && max >= 12, "{max}: {text}");
            }
        }
        // A short result is whole; the long one has the rest.
        let results = [long("a"), result(json!({"content":[{"type":"text","text":"open"}]}))];
        let opts = ResultOptions { max_chars: 150, ..ResultOptions::default() };
        let out = tool_result_messages(&calls, &results, ResultFormat::OpenAiResponses, &opts).unwrap();
        let text = out[0]["output"].as_str().unwrap();
        assert!(text.ends_with("\n\ntool_uses[1] (attractions):\nopen"), "{text}");
        assert_eq!(utf16_len(text), 150, "{text}");
        // With media, the texts of the items.
        let results = [
            result(json!({"content":[{"type":"text","text":"m".repeat(300)},{"type":"image","data":PNG,"mimeType":"image/png"}]})),
            long("b"),
        ];
        let opts = ResultOptions { max_chars: 200, multimodal: true, ..ResultOptions::default() };
        let out = tool_result_messages(&calls, &results, ResultFormat::OpenAiResponses, &opts).unwrap();
        let items = out[0]["output"].as_array().unwrap();
        assert_eq!(output_units(&out[0]["output"]), 200, "{items:?}");
        assert_eq!(items.iter().filter(|i| i["type"] == "input_image").count(), 1);
        // Under the lines: one cut over the items' text, marked, the image kept.
        let opts = ResultOptions { max_chars: 40, multimodal: true, ..ResultOptions::default() };
        let out = tool_result_messages(&calls, &results, ResultFormat::OpenAiResponses, &opts).unwrap();
        let items = out[0]["output"].as_array().unwrap();
        assert_eq!(output_units(&out[0]["output"]), 40, "{items:?}");
        assert_eq!(items.iter().filter(|i| i["type"] == "input_image").count(), 1);
        assert!(items.iter().rev().find_map(|i| i["text"].as_str()).unwrap().ends_with(" characters shown]"), "{items:?}");
    }

    /// A structure kept whole never leaves the rest of the text cut without its marker: where it
    /// would leave less room than the marker, all is cut where the cap falls, and marked.
    #[test]
    fn a_structure_kept_whole_leaves_room_for_the_texts_marker() {
        let sc = json!({"k": "v".repeat(83)});
        let json_len = crate::text::to_string(&sc).len();
        assert_eq!(json_len, 91);
        let r = result(json!({"content":[{"type":"text","text":format!("IMPORTANT {}", "x".repeat(1027))}],"structuredContent":sc}));
        let opts = ResultOptions { max_chars: 100, ..ResultOptions::default() };
        let text_of = |m: &Value, format: ResultFormat| -> String {
            match format {
                ResultFormat::Gemini | ResultFormat::Vertex => m["functionResponse"]["response"]["content"].as_str().or(m["functionResponse"]["response"]["output"].as_str()).unwrap_or_default().owned(),
                ResultFormat::Bedrock => m["toolResult"]["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n"),
                ResultFormat::Anthropic => m["content"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect::<Vec<_>>().join("\n"),
                ResultFormat::OpenAiResponses => m["output"].as_str().unwrap().owned(),
                _ => m["content"].as_str().unwrap().owned(),
            }
        };
        for format in ALL {
            let m = message(&r, format, opts);
            let text = text_of(&m, format);
            assert!(text.starts_with("IMPORTANT xx") && text.contains("[Truncated: "), "{format:?}: {m}");
            assert!(utf16_len(&text) <= 100, "{format:?}: {text}");
        }
        assert!(flatten(&r, 100).contains("[Truncated: "));
        // Room for the marker: the structure is kept whole and the text cut before it, marked.
        let m = message(&r, ResultFormat::OpenAi, ResultOptions { max_chars: 91 + 1 + 12, ..opts });
        assert_eq!(m["content"], format!("\n[Truncated]\n{}", crate::text::to_string(&sc)).trim_start_matches('\n'));
        // A structure as long as the cap is kept whole (as text, and in Gemini's slot).
        let alone = result(json!({"content":[{"type":"text","text":"note"}],"structuredContent":sc}));
        let m = message(&alone, ResultFormat::OpenAi, ResultOptions { max_chars: 91, ..opts });
        // The note and the structure do not fit 91 with a marker: the cap cuts, marked.
        let text = m["content"].as_str().unwrap();
        assert!(text.starts_with("note\n{\"k\":\"vvv") && text.ends_with("\n[Truncated: 52 of 96 characters shown]") && utf16_len(text) == 91, "{text}");
        let exact = result(json!({"content":[{"type":"text","text":crate::text::to_string(&sc)}],"structuredContent":sc}));
        let m = message(&exact, ResultFormat::OpenAi, ResultOptions { max_chars: 91, ..opts });
        assert_eq!(m["content"], crate::text::to_string(&sc));
        let m = message(&exact, ResultFormat::Gemini, ResultOptions { max_chars: 91, ..opts });
        assert_eq!(m["functionResponse"]["response"], json!({"output": sc}));
    }

    /// A text resource sent as a blob is counted whole in the marker, as its text would be.
    #[test]
    fn a_cut_text_blob_counts_all_its_text() {
        let text = "line\n".repeat(2000);
        let as_text = result(json!({"content":[{"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","text":text}}]}));
        let as_blob = result(json!({"content":[{"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","blob":b64(text.as_bytes())}}]}));
        for format in ALL {
            let opts = ResultOptions { max_chars: 100, ..ResultOptions::default() };
            assert_eq!(message(&as_text, format, opts), message(&as_blob, format, opts), "{format:?}");
        }
        assert!(flatten(&as_blob, 100).ends_with("\nline\n[Truncated: 58 of 10039 characters shown]"), "{}", flatten(&as_blob, 100));
    }

    /// A text with an integer past 2^53 beside the structure `JSON.parse` rounded is not left out
    /// for the structure sent as data: it has the digits the structure lost.
    #[test]
    fn a_text_with_exact_big_integers_is_kept_beside_the_structure() {
        let r = result(json!({"content":[{"type":"text","text":"{\"id\":1234567890123456789}"}],"structuredContent":{"id":1234567890123456800u64}}));
        let m = message(&r, ResultFormat::Gemini, ResultOptions::default());
        assert_eq!(m["functionResponse"]["response"], json!({"content":"{\"id\":1234567890123456789}","output":{"id":1234567890123456800u64}}));
        let m = message(&r, ResultFormat::Bedrock, ResultOptions::default());
        assert_eq!(m["toolResult"]["content"][0]["text"], "{\"id\":1234567890123456789}");
        // The text path sends the text alone, as before: it is the structure, with more digits.
        assert_eq!(flatten(&r, usize::MAX), "{\"id\":1234567890123456789}");
        // Without such numbers, the repeat is left out as ever.
        let r = result(json!({"content":[{"type":"text","text":"{\"id\": 12.0}"}],"structuredContent":{"id":12}}));
        assert_eq!(message(&r, ResultFormat::Gemini, ResultOptions::default())["functionResponse"]["response"], json!({"output":{"id":12}}));
    }

    #[test]
    fn shares_give_short_texts_whole_and_split_the_rest() {
        assert_eq!(shares(&[10, 500, 20], 100), [10, 70, 20]);
        assert_eq!(shares(&[500, 500, 20], 101), [41, 40, 20]);
        assert_eq!(shares(&[5, 5], 100), [5, 5]);
        assert_eq!(shares(&[5, 500], 0), [0, 0]);
        assert_eq!(shares(&[], 10), Vec::<usize>::new());
        assert_eq!(shares(&[usize::MAX, 3], usize::MAX), [usize::MAX - 3, 3]);
    }

    /// Chat (and Ollama): the turn lists the tool uses as calls of their own (the accumulator's
    /// `message()`; Chat refuses the wrapper's name sent back), so each is answered under its own id.
    #[test]
    fn chat_answers_each_tool_use_of_a_parallel_wrapper_under_its_id() {
        let resp = json!({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[
            {"id":"call_w","type":"function","function":{"name":"multi_tool_use.parallel","arguments":WRAPPER_ARGS}}]}}]});
        let calls = refs(&resp, crate::calls::CallFormat::OpenAi);
        let results = [result(json!({"content":[{"type":"text","text":"18 C"}]})), result(json!({"content":[{"type":"text","text":"open"}]}))];
        let out = tool_result_messages(&calls, &results, ResultFormat::OpenAi, &ResultOptions::default()).unwrap();
        assert_eq!(out, [
            json!({"role":"tool","tool_call_id":"call_w_0","content":"18 C"}),
            json!({"role":"tool","tool_call_id":"call_w_1","content":"open"}),
        ]);
        let m = tool_result_message(&calls[1], &results[1], ResultFormat::OpenAi, &ResultOptions::default()).unwrap();
        assert_eq!(m, out[1]);
        let calls = refs(&resp, crate::calls::CallFormat::Ollama);
        let out = tool_result_messages(&calls, &results, ResultFormat::Ollama, &ResultOptions::default()).unwrap();
        assert_eq!(out[1], json!({"role":"tool","tool_name":"attractions","content":"open","tool_call_id":"call_w_1"}));
    }

    /// Ollama pairs a tool message with its call by name: each call of the turn `message()` gives
    /// is answered under the name the turn lists it by (`functions.get_weather` as sent, a tool
    /// use's recipient without `functions.`).
    #[test]
    fn ollama_answers_each_call_under_the_name_its_turn_lists() {
        let line = json!({"model":"m","message":{"role":"assistant","content":"","tool_calls":[
            {"function":{"name":"functions.get_weather","arguments":{"city":"x"}}},
            {"function":{"name":"get weather","arguments":{}}},
            {"function":{"name":"multi_tool_use.parallel","arguments":serde_json::from_str::<Value>(WRAPPER_ARGS).unwrap()}}
        ]},"done":true});
        let mut acc = crate::calls::Accumulator::new(crate::calls::CallFormat::Ollama);
        let calls = acc.push(&line, None).unwrap();
        let turn = acc.message().unwrap();
        let listed: Vec<&str> = turn["tool_calls"].as_array().unwrap().iter().map(|c| c["function"]["name"].as_str().unwrap()).collect();
        assert_eq!(listed, ["functions.get_weather", "get weather", "weather", "attractions"]);
        let ok = result(json!({"content":[{"type":"text","text":"ok"}]}));
        let answered: Vec<Value> = calls
            .iter()
            .map(|c| tool_result_message(&CallRef::from_value(&c.to_value()).unwrap(), &ok, ResultFormat::Ollama, &ResultOptions::default()).unwrap()["tool_name"].clone())
            .collect();
        assert_eq!(answered, listed);
    }

    #[test]
    fn a_malformed_parallel_marker_is_invalid_input() {
        for bad in [json!("x"), json!({"id":"c","name":"parallel","index":2,"count":2}), json!({"id":"c","index":0,"count":1}), json!({"id":1,"name":"p","index":0,"count":1}), json!({"id":"c","name":"p","index":-1,"count":1})] {
            let e = CallRef::from_value(&json!({"id":"c_0","providerName":"t","parallel":bad})).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput);
        }
        assert_eq!(CallRef::from_value(&json!({"id":"c","providerName":"t","parallel":null})).unwrap().parallel, None);
    }

    /// A text block that is the structure pretty-printed (as the Python SDK writes it) over the
    /// cap gives way to the structure's compact JSON when that fits: never JSON cut in the middle.
    #[test]
    fn a_pretty_printed_structure_over_the_cap_gives_way_to_its_compact_json() {
        let sc = json!({"items":[{"id":1,"name":"alpha"},{"id":2,"name":"beta"},{"id":3,"name":"gamma"}]});
        let pretty = serde_json::to_string_pretty(&sc).unwrap();
        let compact = crate::text::to_string(&sc);
        assert_eq!((compact.len(), pretty.len() > 120), (82, true));
        let r = result(json!({"content":[{"type":"text","text":pretty}],"structuredContent":sc}));
        assert_eq!(message(&r, ResultFormat::OpenAi, capped(120))["content"], compact.as_str());
        assert_eq!(message(&r, ResultFormat::OpenAiResponses, capped(120))["output"], compact.as_str());
        assert_eq!(message(&r, ResultFormat::Ollama, capped(120))["content"], compact.as_str());
        assert_eq!(message(&r, ResultFormat::Anthropic, capped(120))["content"], json!([{"type":"text","text":compact}]));
        assert_eq!(flatten(&r, 120), compact);
        // Gemini's error has no slot: the same there.
        let mut e = r.clone();
        e.is_error = Some(true);
        assert_eq!(message(&e, ResultFormat::Gemini, capped(120))["functionResponse"]["response"]["error"], compact.as_str());
        assert_eq!(flatten(&e, 127), format!("Error: {compact}"));
        // Gemini and Bedrock (not errors) send it in their slot, the block left out, as before.
        assert_eq!(message(&r, ResultFormat::Gemini, capped(120))["functionResponse"]["response"], json!({"output":sc}));
        // Within the cap the block goes as it is.
        assert_eq!(message(&r, ResultFormat::OpenAi, capped(1000))["content"], pretty.as_str());
        // Other text keeps its place before it, cut to what the JSON leaves when it must be.
        let r2 = result(json!({"content":[{"type":"text","text":"Found 3."},{"type":"text","text":pretty}],"structuredContent":sc}));
        assert_eq!(message(&r2, ResultFormat::OpenAi, capped(120))["content"], format!("Found 3.\n{compact}"));
        let long = result(json!({"content":[{"type":"text","text":"x".repeat(100)},{"type":"text","text":pretty}],"structuredContent":sc}));
        let text = message(&long, ResultFormat::OpenAi, capped(120))["content"].as_str().unwrap().owned();
        assert!(text.ends_with(&format!("\n{compact}")) && text.contains("[Truncated"), "{text}");
        assert_eq!(utf16_len(&text), 120);
        // A block that writes a number past a double's digits says more than the JSON: it stays (cut).
        let big = json!({"id":12_345_678_901_234_567_890_u64,"rows":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25]});
        let r3 = result(json!({"content":[{"type":"text","text":serde_json::to_string_pretty(&big).unwrap()}],"structuredContent":big}));
        let text = message(&r3, ResultFormat::OpenAi, capped(120))["content"].as_str().unwrap().owned();
        assert!(text.starts_with("{\n  \"id\": 12345678901234567890,") && text.contains("[Truncated"), "{text}");
    }

    /// A call the model sent without a name (an error call of parseToolCalls) is answered under
    /// its id, where the result carries the id alone; Gemini and Ollama, which answer by the name,
    /// refuse it, saying so.
    #[test]
    fn a_call_without_a_name_is_answered_under_its_id() {
        let resp = json!({"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[
            {"id":"call_a","type":"function","function":{"name":"t","arguments":"{}"}},
            {"id":"call_b","type":"function","function":{"name":"","arguments":"{}"}}]}}]});
        let calls = refs(&resp, crate::calls::CallFormat::OpenAi);
        assert_eq!(calls[1].name, "");
        let results = [result(json!([{"type":"text","text":"ok"}])), result(json!({"content":[{"type":"text","text":"no tool named"}],"isError":true}))];
        let out = tool_result_messages(&calls, &results, ResultFormat::OpenAi, &ResultOptions::default()).unwrap();
        assert_eq!(out[1], json!({"role":"tool","tool_call_id":"call_b","content":"Error: no tool named"}));
        let out = tool_result_messages(&calls, &results, ResultFormat::OpenAiResponses, &ResultOptions::default()).unwrap();
        assert_eq!(out[1], json!({"type":"function_call_output","call_id":"call_b","output":"Error: no tool named"}));
        let m = tool_result_message(&calls[1], &results[1], ResultFormat::Anthropic, &ResultOptions::default()).unwrap();
        assert_eq!((&m["tool_use_id"], &m["is_error"]), (&json!("call_b"), &json!(true)));
        let m = tool_result_message(&calls[1], &results[1], ResultFormat::Bedrock, &ResultOptions::default()).unwrap();
        assert_eq!(m["toolResult"]["toolUseId"], "call_b");
        // OpenAI's image message names the call by its id alone.
        let shot = result(json!([{"type":"image","data":PNG,"mimeType":"image/png"}]));
        let m = tool_result_message(&calls[1], &shot, ResultFormat::OpenAi, &ResultOptions { image_message: true, ..ResultOptions::default() }).unwrap();
        assert_eq!(m[1]["content"][0]["text"], "Images returned by the tool call call_b:");
        // A tool use of OpenAI's parallel wrapper without a name: its line in the wrapper's output says its index alone.
        let args = r#"{"tool_uses":[{"recipient_name":"functions.weather","parameters":{}},{"parameters":{}}]}"#;
        let resp = json!({"output":[{"type":"function_call","call_id":"call_p","name":"multi_tool_use.parallel","arguments":args}]});
        let uses = refs(&resp, crate::calls::CallFormat::OpenAiResponses);
        let out = tool_result_messages(&uses, &results, ResultFormat::OpenAiResponses, &ResultOptions::default()).unwrap();
        assert_eq!(out, [json!({"type":"function_call_output","call_id":"call_p","output":"tool_uses[0] (weather):\nok\n\ntool_uses[1]:\nError: no tool named"})]);
        for (format, says) in [(ResultFormat::Gemini, "Gemini's functionResponse"), (ResultFormat::Vertex, "Gemini's functionResponse"), (ResultFormat::Ollama, "Ollama's tool message")] {
            let e = tool_result_message(&calls[1], &results[1], format, &ResultOptions::default()).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidInput);
            assert!(e.message.contains("empty name") && e.message.contains(says), "{}", e.message);
            let e = tool_result_messages(&calls, &results, format, &ResultOptions::default()).unwrap_err();
            assert!(e.message.starts_with("calls[1]: call has an empty name"), "{}", e.message);
        }
    }

    /// A custom tool's call (free-form input) is answered in the Responses API by a
    /// `custom_tool_call_output`: from parseToolCalls' call (`custom: true`) or the SDK's item; on
    /// Chat, a Chat custom `tool_call` (`custom: {name}`) is read as a call like any other.
    #[test]
    fn a_custom_tool_call_is_answered_as_one() {
        let item = json!({"type":"custom_tool_call","id":"ctc_1","call_id":"call_c","name":"apply_patch","input":"*** patch"});
        let resp = json!({"output":[item, {"type":"function_call","id":"fc_1","call_id":"call_f","name":"t","arguments":"{}"}]});
        let calls = refs(&resp, crate::calls::CallFormat::OpenAiResponses);
        assert_eq!(calls.iter().map(|c| (c.id.as_deref(), c.custom)).collect::<Vec<_>>(), [(Some("call_c"), true), (Some("call_f"), false)]);
        let results = [result(json!({"content":[{"type":"text","text":"not run"}],"isError":true})), result(json!([{"type":"text","text":"ok"}]))];
        let out = tool_result_messages(&calls, &results, ResultFormat::OpenAiResponses, &ResultOptions::default()).unwrap();
        assert_eq!(out, [
            json!({"type":"custom_tool_call_output","call_id":"call_c","output":"Error: not run"}),
            json!({"type":"function_call_output","call_id":"call_f","output":"ok"}),
        ]);
        // The SDK's item itself (its `id` is the item's, not the call's).
        let direct = CallRef::from_value(&item).unwrap();
        assert_eq!((direct.id.as_deref(), direct.name.as_str(), direct.custom), (Some("call_c"), "apply_patch", true));
        assert_eq!(tool_result_message(&direct, &results[0], ResultFormat::OpenAiResponses, &ResultOptions::default()).unwrap(), out[0]);
        let no_call_id = CallRef::from_value(&json!({"type":"custom_tool_call","id":"ctc_1","name":"apply_patch"})).unwrap();
        assert_eq!(no_call_id.id, None);
        // Chat's custom tool_call, as the openai SDK types `message.tool_calls[i]`.
        let chat = CallRef::from_value(&json!({"id":"call_1","type":"custom","custom":{"name":"apply_patch","input":"*** patch"}})).unwrap();
        assert_eq!((chat.id.as_deref(), chat.name.as_str(), chat.custom), (Some("call_1"), "apply_patch", true));
        assert_eq!(tool_result_message(&chat, &results[1], ResultFormat::OpenAi, &ResultOptions::default()).unwrap(), json!({"role":"tool","tool_call_id":"call_1","content":"ok"}));
        // With media, the items are the same as a function call's.
        let shot = result(json!([{"type":"text","text":"see"},{"type":"image","data":PNG,"mimeType":"image/png"}]));
        let m = tool_result_message(&direct, &shot, ResultFormat::OpenAiResponses, &ResultOptions { multimodal: true, ..ResultOptions::default() }).unwrap();
        assert_eq!((&m["type"], &m["output"][1]["type"], &m["output"][1]["detail"]), (&json!("custom_tool_call_output"), &json!("input_image"), &json!("auto")));
    }

    /// A text blob is read in the charset its type declares: UTF-16 (either order, or by its
    /// byte order mark), ISO-8859-1, US-ASCII, UTF-8; another is described, never sent garbled.
    #[test]
    fn a_text_blob_is_read_in_its_declared_charset() {
        let blob = |mime: &str, bytes: &[u8]| result(json!([{"type":"resource","resource":{"uri":"file:///n.txt","mimeType":mime,"blob":b64(bytes)}}]));
        let utf16 = |s: &str, little: bool| s.encode_utf16().flat_map(|u| if little { u.to_le_bytes() } else { u.to_be_bytes() }).collect::<Vec<u8>>();
        let text = |r: &CallToolResult| flatten(r, usize::MAX);
        assert_eq!(text(&blob("text/plain; charset=utf-16le", &utf16("hello wörld 😀", true))), "[Resource: file:///n.txt (text/plain)]\nhello wörld 😀");
        assert_eq!(text(&blob("text/plain;charset=\"UTF-16BE\"", &utf16("hello", false))), "[Resource: file:///n.txt (text/plain)]\nhello");
        // `utf-16`: by the byte order mark, little-endian without one.
        let mut be = vec![0xFE, 0xFF];
        be.extend(utf16("hi", false));
        assert_eq!(text(&blob("text/plain; charset=utf-16", &be)), "[Resource: file:///n.txt (text/plain)]\nhi");
        assert_eq!(text(&blob("text/plain; charset=utf-16", &utf16("hi", true))), "[Resource: file:///n.txt (text/plain)]\nhi");
        assert_eq!(text(&blob("text/csv; charset=ISO-8859-1", b"caf\xe9;1")), "[Resource: file:///n.txt (text/csv)]\ncafé;1");
        assert_eq!(text(&blob("text/plain; charset=latin1", b"\xa9 2024")), "[Resource: file:///n.txt (text/plain)]\n© 2024");
        assert_eq!(text(&blob("text/plain; charset=us-ascii", b"plain")), "[Resource: file:///n.txt (text/plain)]\nplain");
        assert_eq!(text(&blob("text/plain; charset=utf-8", "é".as_bytes())), "[Resource: file:///n.txt (text/plain)]\né");
        // Bytes that are not of the charset: a few are U+FFFD, said; many, described.
        let mut log = utf16(&"line\n".repeat(100), true);
        log.extend([0x00, 0xD8]);
        let r = blob("text/plain; charset=utf-16le", &log);
        assert!(text(&r).starts_with("[Resource: file:///n.txt (text/plain), 2 bytes not UTF-16LE shown as U+FFFD]\nline\n"), "{}", text(&r));
        assert!(text(&r).ends_with("line\n\u{FFFD}"));
        assert_eq!(text(&blob("text/plain; charset=utf-16le", b"abc")), "[Resource: file:///n.txt (text/plain), 3 bytes, not sent: not UTF-16LE text]");
        // Latin-1 and ASCII labels read as windows-1252 (WHATWG's reading, and what such servers mean).
        assert_eq!(text(&blob("text/plain; charset=us-ascii", b"caf\xe9")), "[Resource: file:///n.txt (text/plain)]\ncafé");
        assert_eq!(text(&blob("text/plain; charset=iso-8859-1", b"\x93hi\x94 \x805 \x81")), "[Resource: file:///n.txt (text/plain)]\n\u{201C}hi\u{201D} \u{20AC}5 \u{81}");
        assert_eq!(text(&blob("text/plain; charset=Windows-1252", b"\x9f")), "[Resource: file:///n.txt (text/plain)]\n\u{178}");
        // A byte order mark of the declared charset is not text.
        let mut le = vec![0xFF, 0xFE];
        le.extend(utf16("hi", true));
        assert_eq!(text(&blob("text/plain; charset=utf-16le", &le)), "[Resource: file:///n.txt (text/plain)]\nhi");
        let mut be = vec![0xFE, 0xFF];
        be.extend(utf16("hi", false));
        assert_eq!(text(&blob("text/plain; charset=utf-16be", &be)), "[Resource: file:///n.txt (text/plain)]\nhi");
        assert_eq!(text(&blob("text/plain; charset=utf-8", b"\xEF\xBB\xBFhi")), "[Resource: file:///n.txt (text/plain)]\nhi");
        // Another charset is not guessed at.
        let r = blob("text/plain; charset=koi8-r", b"\xf0\xd2\xc9\xd7\xc5\xd4");
        for format in ALL {
            assert!(message(&r, format, ResultOptions::default()).to_string().contains("[Resource: file:///n.txt (text/plain), 6 bytes, not sent: charset koi8-r not supported]"), "{format:?}");
        }
        assert_eq!(text(&r), "[Resource: file:///n.txt (text/plain), 6 bytes, not sent: charset koi8-r not supported]");
    }

    /// An SVG blob is the XML text it is (no provider takes SVG as an image), for every provider;
    /// bytes of an image under that type go as the image.
    #[test]
    fn an_svg_blob_is_its_text() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg"><text x="0" y="10">Q3 revenue: 42</text></svg>"#;
        let r = result(json!([{"type":"resource","resource":{"uri":"file:///chart.svg","mimeType":"image/svg+xml","blob":b64s(svg)}}]));
        let want = format!("[Resource: file:///chart.svg (image/svg+xml)]\n{svg}");
        assert_eq!(flatten(&r, usize::MAX), want);
        let multimodal = ResultOptions { multimodal: true, ..ResultOptions::default() };
        for format in ALL {
            let m = message(&r, format, multimodal).to_string();
            assert!(m.contains(&crate::text::to_string(&json!(want)).trim_matches('"').to_owned()), "{format:?}: {m}");
        }
        let png = result(json!([{"type":"resource","resource":{"uri":"file:///x.svg","mimeType":"image/svg+xml","blob":PNG}}]));
        assert_eq!(message(&png, ResultFormat::Anthropic, ResultOptions::default())["content"][1]["type"], "image");
    }

    /// An SVG in an image block (as chart and diagram servers send it) is its text too, for every
    /// provider and `flattenContent`, not a placeholder (s26c F4); one whose bytes are an image's
    /// is that image, and one that is not UTF-8 is described.
    #[test]
    fn an_svg_image_block_is_its_text() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg"><text x="0" y="10">Q3 revenue: 42</text></svg>"#;
        let r = result(json!([{"type":"image","data":b64s(svg),"mimeType":"image/svg+xml"}]));
        let want = format!("[Image: image/svg+xml, as text]\n{svg}");
        assert_eq!(flatten(&r, usize::MAX), want);
        for opts in [ResultOptions::default(), ResultOptions { multimodal: true, image_message: true, ..ResultOptions::default() }] {
            for format in ALL {
                let m = message(&r, format, opts).to_string();
                assert!(m.contains(&crate::text::to_string(&json!(want)).trim_matches('"').to_owned()), "{format:?}: {m}");
            }
        }
        let e = result(json!({"content":[{"type":"image","data":b64s(svg),"mimeType":"IMAGE/SVG+XML; charset=utf-8"}],"isError":true}));
        assert_eq!(message(&e, ResultFormat::Anthropic, ResultOptions::default())["content"][0]["text"], want);
        let png = result(json!([{"type":"image","data":PNG,"mimeType":"image/svg+xml"}]));
        assert_eq!(message(&png, ResultFormat::Anthropic, ResultOptions::default())["content"][0]["type"], "image");
        let latin1 = result(json!([{"type":"image","data":b64(&[0xff; 40]),"mimeType":"image/svg+xml"}]));
        assert_eq!(flatten(&latin1, usize::MAX), "[Image: image/svg+xml (not sent: not UTF-8 text)]");
    }

    /// `isError` that is not a boolean: one rule everywhere. Only what plainly says no is no error.
    #[test]
    fn is_error_of_another_type_is_an_error_unless_it_plainly_says_no() {
        for yes in [json!(true), json!("true"), json!("TRUE"), json!("True"), json!(1), json!(-1), json!(0.5), json!("yes"), json!("1"), json!({}), json!([])] {
            let r = result(json!({"content":[{"type":"text","text":"disk full"}],"isError":yes}));
            assert_eq!(flatten(&r, usize::MAX), "Error: disk full", "{yes}");
            assert_eq!(message(&r, ResultFormat::Anthropic, ResultOptions::default())["is_error"], true, "{yes}");
            assert_eq!(message(&r, ResultFormat::Bedrock, ResultOptions::default())["toolResult"]["status"], "error", "{yes}");
        }
        for no in [json!(false), json!(null), json!(0), json!("false"), json!(" False "), json!("")] {
            let r = result(json!({"content":[{"type":"text","text":"fine"}],"isError":no}));
            assert_eq!(flatten(&r, usize::MAX), "fine", "{no}");
            assert_eq!(message(&r, ResultFormat::Anthropic, ResultOptions::default())["is_error"], false, "{no}");
        }
        // A result of `isError` alone, whatever its type, is an error without content.
        assert_eq!(flatten(&result(json!({"isError":"true"})), usize::MAX), format!("Error: {EMPTY_ERROR}"));
        assert_eq!(flatten(&result(json!({"isError":1,"_meta":{}})), usize::MAX), format!("Error: {EMPTY_ERROR}"));
    }
}
