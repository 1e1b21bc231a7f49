import QRCode from "qrcode";

/** Renders `text` as a QR code image: PNG (300 px) or SVG, error correction level M. */
export async function renderQrCode(text: string, format: "png" | "svg"): Promise<{ body: Uint8Array | string; contentType: string }> {
  const options = { errorCorrectionLevel: "M", margin: 2 } as const;
  if (format === "svg") return { body: await QRCode.toString(text, { ...options, type: "svg" }), contentType: "image/svg+xml" };
  return { body: new Uint8Array(await QRCode.toBuffer(text, { ...options, type: "png", width: 300 })), contentType: "image/png" };
}
