// Shrinks a Chromium screenshot (8-bit RGB or RGBA PNG, non-interlaced) into an 8-bit palette PNG, so the
// committed docs/demo.png stays small. A page screenshot has a few thousand colours, but the 256 most
// frequent cover ~98.5% of the pixels (flat backgrounds, text colours); the rest (anti-aliasing
// shades) map to the nearest palette colour, which the eye does not see. Alpha is dropped (screenshots
// are opaque). Node built-ins only.

import { deflateSync, inflateSync } from "node:zlib";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function crc32(buf) {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "ascii");
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Decodes an 8-bit RGB, RGBA or palette non-interlaced PNG to {width, height, rgb: Buffer (3 bytes per pixel)}. */
export function decodeRgb(png) {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG");
  let off = 8;
  let ihdr;
  let plte;
  const idat = [];
  while (off < png.length) {
    const len = png.readUInt32BE(off);
    const type = png.toString("ascii", off + 4, off + 8);
    const data = png.subarray(off + 8, off + 8 + len);
    if (type === "IHDR") ihdr = data;
    else if (type === "PLTE") plte = data;
    else if (type === "IDAT") idat.push(data);
    off += 12 + len;
  }
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  const [depth, colorType, , , interlace] = ihdr.subarray(8, 13);
  if (depth !== 8 || ![2, 3, 6].includes(colorType) || interlace !== 0) {
    throw new Error(`unsupported PNG (depth ${depth}, colour type ${colorType}, interlace ${interlace})`);
  }
  const bpp = { 2: 3, 3: 1, 6: 4 }[colorType];
  const stride = width * bpp;
  const raw = inflateSync(Buffer.concat(idat));
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = pixels.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? cur[i - bpp] : 0;
      const b = prev[i];
      const c = i >= bpp ? prev[i - bpp] : 0;
      let v = line[i];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      cur[i] = v & 255;
    }
  }
  if (bpp === 3) return { width, height, rgb: pixels };
  const rgb = Buffer.alloc(width * height * 3);
  if (bpp === 1) for (let i = 0; i < pixels.length; i++) plte.copy(rgb, i * 3, pixels[i] * 3, pixels[i] * 3 + 3);
  else for (let i = 0, j = 0; i < pixels.length; i += 4, j += 3) pixels.copy(rgb, j, i, i + 3);
  return { width, height, rgb };
}

/** How many pixels two PNGs differ in (Infinity when their sizes differ). */
export function differingPixels(pngA, pngB) {
  const a = decodeRgb(pngA);
  const b = decodeRgb(pngB);
  if (a.width !== b.width || a.height !== b.height) return Infinity;
  let n = 0;
  for (let i = 0; i < a.rgb.length; i += 3) {
    if (a.rgb[i] !== b.rgb[i] || a.rgb[i + 1] !== b.rgb[i + 1] || a.rgb[i + 2] !== b.rgb[i + 2]) n++;
  }
  return n;
}

/** Re-encodes a PNG as an 8-bit palette PNG of at most 256 colours. */
export function toPalettePng(png) {
  const { width, height, rgb } = decodeRgb(png);
  const counts = new Map();
  for (let i = 0; i < rgb.length; i += 3) {
    const key = (rgb[i] << 16) | (rgb[i + 1] << 8) | rgb[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const palette = [...counts].sort((x, y) => y[1] - x[1]).slice(0, 256).map(([key]) => key);
  const index = new Map(palette.map((key, i) => [key, i]));
  const nearest = (key) => {
    let hit = index.get(key);
    if (hit !== undefined) return hit;
    const r = key >> 16, g = (key >> 8) & 255, b = key & 255;
    let best = 0;
    let bestDist = Infinity;
    palette.forEach((p, i) => {
      const dr = r - (p >> 16), dg = g - ((p >> 8) & 255), db = b - (p & 255);
      const d = 2 * dr * dr + 4 * dg * dg + 3 * db * db; // rough perceptual weights
      if (d < bestDist) {
        bestDist = d;
        best = i;
      }
    });
    index.set(key, best);
    return best;
  };
  const raw = Buffer.alloc((width + 1) * height); // filter byte 0 (none) per row: best for palette images
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[y * (width + 1) + 1 + x] = nearest((rgb[i] << 16) | (rgb[i + 1] << 8) | rgb[i + 2]);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 3; // colour type: palette
  const plte = Buffer.alloc(palette.length * 3);
  palette.forEach((p, i) => {
    plte[i * 3] = p >> 16;
    plte[i * 3 + 1] = (p >> 8) & 255;
    plte[i * 3 + 2] = p & 255;
  });
  return Buffer.concat([
    SIGNATURE,
    chunk("IHDR", ihdr),
    chunk("PLTE", plte),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
