/**
 * The server's email transport: nodemailer over SMTP, from `SMTP_URL` (`smtp://user:pass@host:587`
 * upgrades with STARTTLS when the server offers it, `smtps://...:465` is TLS from the start).
 * Core knows only the `EmailTransport` shape; this is where nodemailer lives.
 */
import type { EmailTransport } from "@event-service/core";
import { onFirstUse } from "@event-service/core/internal";
import type { Transporter } from "nodemailer";

/** Waits of one SMTP conversation: well inside the email worker's lease, so a hung server never lets a second worker send. */
const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

/**
 * An email transport that sends through the SMTP server of `smtpUrl`, one connection per message.
 * nodemailer is loaded by the first message, not at start: until an email is due, the process
 * does not hold it. A load that fails fails that attempt, which the email worker retries.
 */
export function smtpTransport(smtpUrl: URL): EmailTransport & { close(): void } {
  let made: Transporter | undefined;
  const transporter = onFirstUse(async () => {
    const { default: nodemailer } = await import("nodemailer");
    made = nodemailer.createTransport({
      url: smtpUrl.href,
      ...SMTP_TIMEOUTS,
      // nodemailer logs nothing of its own: the worker logs each attempt without the address.
      logger: false,
    });
    return made;
  });
  return {
    async send(message) {
      await (await transporter()).sendMail({
        from: message.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    },
    close: () => made?.close(),
  };
}

/** `SMTP_URL` as it may be logged: without its password. */
export function redactSmtpUrl(url: URL): string {
  if (!url.password) return url.href;
  const shown = new URL(url.href);
  shown.password = "***";
  return shown.href;
}
