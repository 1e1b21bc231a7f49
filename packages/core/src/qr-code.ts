import { createHash } from "node:crypto";
import type QRCodeModule from "qrcode";

/** A rendered QR code image and its strong entity tag. */
export interface QrCodeImage {
  body: Uint8Array | string;
  contentType: string;
  /** A strong `ETag` (quoted): a digest of the image's bytes. */
  etag: string;
}

/** Rendered images kept per process, by default; past this many the least recently used goes. */
const MAX_CACHED_IMAGES = 1_000;

/** The QR encoder, loaded by the first image: only the public QR route uses it, so a process that serves none never loads it. */
let encoder: Promise<typeof QRCodeModule> | undefined;
const loadEncoder = () => (encoder ??= import("qrcode").then((module) => module.default));

/** Renders `text` as a QR code image: PNG (300 px) or SVG, error correction level M. */
export async function renderQrCode(text: string, format: "png" | "svg"): Promise<QrCodeImage> {
  const QRCode = await loadEncoder();
  const options = { errorCorrectionLevel: "M", margin: 2 } as const;
  const image =
    format === "svg"
      ? { body: await QRCode.toString(text, { ...options, type: "svg" }), contentType: "image/svg+xml" }
      : {
          body: new Uint8Array(await QRCode.toBuffer(text, { ...options, type: "png", width: 300 })),
          contentType: "image/png",
        };
  return { ...image, etag: `"${createHash("sha256").update(image.body).digest("base64url").slice(0, 32)}"` };
}

/**
 * {@link renderQrCode} memoised: an image depends on its text and format alone, so each is
 * rendered once (concurrent requests share the rendering) and kept in a least-recently-used
 * cache of at most `maxImages` images.
 */
export function createQrCodeRenderer(
  maxImages = MAX_CACHED_IMAGES,
): (text: string, format: "png" | "svg") => Promise<QrCodeImage> {
  const cache = new Map<string, Promise<QrCodeImage>>();
  return (text, format) => {
    const key = `${format}:${text}`;
    let image = cache.get(key);
    if (image) {
      cache.delete(key);
    } else {
      image = renderQrCode(text, format);
      image.catch(() => cache.delete(key));
      if (cache.size >= maxImages) cache.delete(cache.keys().next().value!);
    }
    cache.set(key, image);
    return image;
  };
}
