import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { sign as octokitSign, verify as octokitVerify } from "@octokit/webhooks-methods";
import {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  signPayload,
  signWebhook,
  verifySignature,
  verifyWebhook,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WEBHOOK_VERIFICATION_FAILURES,
  WebhookVerificationError,
  webhookSigningKey,
} from "@event-service/core/webhooks";
import { Webhook as StandardWebhook, WebhookVerificationError as StandardVerificationError } from "standardwebhooks";

const secret = "whsec_test_1234567890";
const body = JSON.stringify({
  id: "dlv_1",
  type: "event.created",
  createdAt: "2026-11-22T00:00:00.000Z",
  data: { event: { id: "evt_1", name: "Grüne Konferenz ✓" } },
});

test("signatures are GitHub's format: a third-party verifier accepts ours, and we accept theirs", async () => {
  const header = signPayload(secret, body);
  assert.match(header, /^sha256=[0-9a-f]{64}$/);
  assert.equal(await octokitVerify(secret, body, header), true);
  assert.equal(await octokitVerify("other secret", body, header), false);
  assert.equal(verifySignature(secret, body, await octokitSign(secret, body)), true);
  assert.equal(SIGNATURE_HEADER, "X-Service-Signature");
});

test("a known vector: HMAC-SHA256 of the exact bytes", () => {
  // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
  assert.equal(
    signPayload("Jefe", "what do ya want for nothing?"),
    "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  );
  assert.equal(signPayload(secret, new TextEncoder().encode(body)), signPayload(secret, body));
});

test("verification refuses anything but the exact signature", () => {
  const header = signPayload(secret, body);
  assert.equal(verifySignature(secret, body, header), true);
  assert.equal(verifySignature(secret, `${body} `, header), false);
  assert.equal(verifySignature(secret, body, header.toUpperCase()), false);
  assert.equal(verifySignature(secret, body, header.slice(7)), false);
  assert.equal(verifySignature(secret, body, `${header}00`), false);
  assert.equal(verifySignature(secret, body, "sha256=zz"), false);
  assert.equal(verifySignature(secret, body, ""), false);
  assert.equal(verifySignature(secret, body, undefined), false);
  assert.equal(verifySignature(secret, body, null), false);
});

test("the webhooks entry imports nothing but node:crypto", () => {
  // The build splits shared code into chunks: follow the entry's relative imports through them.
  const external = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(
      /^(?:import|export)\b[^;"]*?(?:from )?"([^"]+)";$/gm,
    )) {
      if (specifier!.startsWith(".")) visit(join(dirname(file), specifier!));
      else external.add(specifier!);
    }
  };
  visit(createRequire(import.meta.url).resolve("@event-service/core/webhooks"));
  assert.deepEqual([...external], ["crypto"]);
});

describe("Standard Webhooks", () => {
  const id = "dlv_0123456789abcdef01234567";
  const now = new Date("2026-11-23T12:00:00.000Z");
  const timestamp = Math.floor(now.getTime() / 1000);
  const current = `whsec_${randomBytes(32).toString("base64")}`;
  const previous = `whsec_${randomBytes(24).toString("base64")}`;
  const heads = (secrets: string[], at = timestamp, raw = body) => signWebhook(secrets, id, at, raw);

  test("our headers verify with the standardwebhooks library, and its signatures with ours", () => {
    const headers = heads([current]);
    assert.deepEqual(Object.keys(headers), [WEBHOOK_ID_HEADER, WEBHOOK_TIMESTAMP_HEADER, WEBHOOK_SIGNATURE_HEADER]);
    assert.equal(headers["webhook-id"], id);
    assert.equal(headers["webhook-timestamp"], String(timestamp));
    assert.match(headers["webhook-signature"]!, /^v1,[A-Za-z0-9+/]{43}=$/);
    // The library checks the timestamp against the real clock: sign with the real one for it.
    const live = signWebhook([current], id, Math.floor(Date.now() / 1000), body);
    assert.deepEqual(new StandardWebhook(current).verify(body, live), JSON.parse(body));
    assert.throws(() => new StandardWebhook(previous).verify(body, live), StandardVerificationError);
    const theirs = new StandardWebhook(current).sign(id, now, body);
    assert.equal(theirs, headers["webhook-signature"], "the same bytes, the same signature");
    const verified = verifyWebhook(current, { ...headers, "webhook-signature": theirs }, body, { now });
    assert.deepEqual(verified, { id, timestamp, payload: JSON.parse(body) });
  });

  test("a known vector from the Standard Webhooks reference libraries", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const headers = signWebhook([secret], "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}');
    assert.equal(headers["webhook-signature"], "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  test("during a rotation both secrets sign, and either verifies", () => {
    const headers = heads([current, previous]);
    const parts = headers["webhook-signature"]!.split(" ");
    assert.equal(parts.length, 2);
    assert.equal(parts[0], heads([current])["webhook-signature"]);
    assert.equal(parts[1], heads([previous])["webhook-signature"]);
    assert.equal(verifyWebhook(current, headers, body, { now }).id, id);
    assert.equal(verifyWebhook(previous, headers, body, { now }).id, id);
    assert.throws(
      () => verifyWebhook(`whsec_${randomBytes(32).toString("base64")}`, headers, body, { now }),
      refusal("invalid_signature"),
    );
  });

  const refusal = (reason: string) => (error: unknown) =>
    error instanceof WebhookVerificationError && error.reason === reason && error.name === "WebhookVerificationError";

  test("a replay outside the tolerance is refused, either way; inside it verifies", () => {
    const signedAt = (offsetSeconds: number) => heads([current], timestamp + offsetSeconds);
    assert.equal(verifyWebhook(current, signedAt(-300), body, { now }).timestamp, timestamp - 300);
    assert.equal(verifyWebhook(current, signedAt(300), body, { now }).timestamp, timestamp + 300);
    assert.throws(() => verifyWebhook(current, signedAt(-301), body, { now }), refusal("timestamp_too_old"));
    assert.throws(() => verifyWebhook(current, signedAt(301), body, { now }), refusal("timestamp_too_new"));
    // A captured delivery an hour later, with its signature intact.
    assert.throws(
      () => verifyWebhook(current, heads([current]), body, { now: new Date(now.getTime() + 3_600_000) }),
      refusal("timestamp_too_old"),
    );
    assert.equal(verifyWebhook(current, signedAt(-3_000), body, { now, toleranceSeconds: 3_600 }).id, id);
    assert.equal(DEFAULT_TOLERANCE_SECONDS, 300);
    // Moving the timestamp forward breaks the signature: it is signed too.
    assert.throws(
      () =>
        verifyWebhook(
          current,
          { ...heads([current], timestamp - 3_600), "webhook-timestamp": String(timestamp) },
          body,
          { now },
        ),
      refusal("invalid_signature"),
    );
  });

  test("tampering, missing or malformed headers are refused with their reason", () => {
    const headers = heads([current]);
    assert.throws(
      () => verifyWebhook(current, headers, body.replace("Konferenz", "Konferenx"), { now }),
      refusal("invalid_signature"),
    );
    assert.throws(
      () => verifyWebhook(current, { ...headers, "webhook-id": "dlv_other" }, body, { now }),
      refusal("invalid_signature"),
    );
    assert.throws(
      () =>
        verifyWebhook(
          current,
          { ...headers, "webhook-signature": headers["webhook-signature"]!.replace("v1,", "v2,") },
          body,
          { now },
        ),
      refusal("invalid_signature"),
    );
    assert.throws(
      () => verifyWebhook(current, { ...headers, "webhook-signature": "v1,AAAA" }, body, { now }),
      refusal("invalid_signature"),
    );
    for (const missing of [WEBHOOK_ID_HEADER, WEBHOOK_TIMESTAMP_HEADER, WEBHOOK_SIGNATURE_HEADER]) {
      const { [missing]: _gone, ...rest } = headers;
      assert.throws(() => verifyWebhook(current, rest, body, { now }), refusal("missing_headers"), missing);
    }
    for (const bad of ["soon", "-1", "1e9", "1614265330.5", "99999999999999"]) {
      assert.throws(
        () => verifyWebhook(current, { ...headers, "webhook-timestamp": bad }, body, { now }),
        refusal("invalid_timestamp"),
        bad,
      );
    }
    const nonJson = heads([current], timestamp, "not json");
    assert.throws(() => verifyWebhook(current, nonJson, "not json", { now }), refusal("invalid_payload"));
    assert.deepEqual(
      [...WEBHOOK_VERIFICATION_FAILURES],
      [
        "missing_headers",
        "invalid_timestamp",
        "timestamp_too_old",
        "timestamp_too_new",
        "invalid_signature",
        "invalid_payload",
      ],
    );
  });

  test("headers as a web Headers, as node:http's object (any case, arrays) and bytes as the body", () => {
    const headers = heads([current]);
    assert.equal(verifyWebhook(current, new Headers(headers), new TextEncoder().encode(body), { now }).id, id);
    const nodeStyle = {
      "Webhook-Id": [id],
      "WEBHOOK-TIMESTAMP": headers["webhook-timestamp"],
      "webhook-signature": headers["webhook-signature"],
    };
    assert.equal(verifyWebhook(current, nodeStyle, Buffer.from(body), { now }).id, id);
  });

  test("the key: the base64 after whsec_; older secrets keep working, and no secret decodes to a weak key", () => {
    assert.deepEqual(webhookSigningKey(current), Buffer.from(current.slice(6), "base64"));
    // Secrets generated before were whsec_ and 64 hex digits: valid base64 as they stand, so the library verifies them too.
    const older = `whsec_${randomBytes(32).toString("hex")}`;
    assert.equal(webhookSigningKey(older).length, 48);
    const live = signWebhook([older], id, Math.floor(Date.now() / 1000), body);
    assert.deepEqual(new StandardWebhook(older).verify(body, live), JSON.parse(body));
    // A secret given in a free form (allowed before) that is not base64 is keyed by its bytes, never decoded leniently to (almost) nothing.
    assert.deepEqual(webhookSigningKey("whsec_!!!!!!!!!!!!!!!!!!"), Buffer.from("whsec_!!!!!!!!!!!!!!!!!!"));
    assert.deepEqual(webhookSigningKey("my-own-secret_0123456789!~"), Buffer.from("my-own-secret_0123456789!~"));
    assert.equal(
      verifyWebhook(
        "my-own-secret_0123456789!~",
        signWebhook(["my-own-secret_0123456789!~"], id, timestamp, body),
        body,
        { now },
      ).id,
      id,
    );
  });
});
