import assert from "node:assert/strict";
import { resolve } from "node:path";
import { test } from "node:test";
import { loadConfig } from "../src/config.ts";
import { isPostgresUrl, redactDatabaseUrl } from "../src/database.ts";
import { sqlitePath } from "../src/sqlite.ts";

test("defaults", () => {
  assert.deepEqual(loadConfig({}), {
    PORT: 3000,
    HOST: "127.0.0.1",
    DATABASE_URL: "./data/event-service.sqlite",
    DATABASE_POOL_SIZE: 10,
    DATABASE_STATEMENT_TIMEOUT_MS: 5000,
    PUBLIC_URL: undefined,
    TLS_CERT: undefined,
    TLS_KEY: undefined,
    HTTP_REDIRECT_PORT: undefined,
    TRUST_PROXY: false,
    AUTH_FAILURE_LIMIT_PER_MINUTE: 60,
    DOOR_LINK_LIMIT_PER_MINUTE: 1_200,
    LOG_LEVEL: "info",
    SHUTDOWN_TIMEOUT_MS: 10_000,
    WORKERS: 1,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: false,
    CARBON_OFFSET_PRICE_USD_PER_TONNE: undefined,
    LOCAL_SOURCING_RADIUS_KM: undefined,
    LOCAL_SOURCING_TARGET_PERCENT: undefined,
    EMISSION_FACTORS_FILE: undefined,
    WEBHOOK_RETRY_DELAYS_MS: undefined,
    WEBHOOK_TIMEOUT_MS: 5_000,
    WEBHOOK_RETENTION_DAYS: 30,
    METRICS_TOKEN: undefined,
    CORS_ORIGINS: undefined,
    WEBHOOK_SECRET_OVERLAP_MS: 86_400_000,
    STRIPE_SECRET_KEY: undefined,
    STRIPE_WEBHOOK_SECRET: undefined,
    STRIPE_API_URL: undefined,
    PAYMENT_HOLD_MINUTES: 30,
    PAYMENT_WORKER_INTERVAL_MS: 5_000,
    SMTP_URL: undefined,
    EMAIL_FROM: undefined,
    EMAIL_RETRY_DELAYS_MS: undefined,
  });
});

test("email: SMTP_URL is smtp:// or smtps:// and needs EMAIL_FROM; the password never appears in an error; retries as milliseconds", () => {
  const email = loadConfig({
    SMTP_URL: "smtps://mailer:p%40ss@mail.example.com:465",
    EMAIL_FROM: "Green Events <events@example.com>",
    EMAIL_RETRY_DELAYS_MS: "1000, 5000",
  });
  assert.equal(email.SMTP_URL?.protocol, "smtps:");
  assert.equal(email.SMTP_URL?.password, "p%40ss");
  assert.deepEqual(email.EMAIL_RETRY_DELAYS_MS, [1000, 5000]);
  assert.equal(
    loadConfig({ SMTP_URL: "smtp://mail:587", EMAIL_FROM: "events@example.com" }).EMAIL_FROM,
    "events@example.com",
  );
  assert.throws(() => loadConfig({ SMTP_URL: "smtp://mail.example.com:587" }), /EMAIL_FROM: SMTP_URL needs EMAIL_FROM/);
  for (const bad of ["http://user:topSecretPw@mail.example.com", "mail.example.com:587", "smtp://"]) {
    assert.throws(
      () => loadConfig({ SMTP_URL: bad, EMAIL_FROM: "events@example.com" }),
      (error: Error) => /SMTP_URL: an SMTP URL/.test(error.message) && !error.message.includes("topSecretPw"),
    );
  }
  for (const bad of ["events", "a@b\r\nBcc: x@y.z", "<events@example.com"])
    assert.throws(() => loadConfig({ SMTP_URL: "smtp://mail:587", EMAIL_FROM: bad }), /EMAIL_FROM/);
  assert.throws(() => loadConfig({ EMAIL_RETRY_DELAYS_MS: "soon" }), /EMAIL_RETRY_DELAYS_MS/);
});

test("Stripe: a secret key needs the webhook secrets; several secrets, comma-separated; hold minutes may be fractions", () => {
  const stripe = loadConfig({
    STRIPE_SECRET_KEY: "sk_test_abc123",
    STRIPE_WEBHOOK_SECRET: "whsec_one, whsec_two",
    STRIPE_API_URL: "https://127.0.0.1:12112",
    PAYMENT_HOLD_MINUTES: "0.5",
  });
  assert.deepEqual(stripe.STRIPE_WEBHOOK_SECRET, ["whsec_one", "whsec_two"]);
  assert.equal(stripe.STRIPE_API_URL?.port, "12112");
  assert.equal(stripe.PAYMENT_HOLD_MINUTES, 0.5);
  assert.throws(() => loadConfig({ STRIPE_SECRET_KEY: "sk_test_abc123" }), /STRIPE_WEBHOOK_SECRET/);
  assert.throws(() => loadConfig({ STRIPE_SECRET_KEY: "pk_test_abc" }), /STRIPE_SECRET_KEY/);
  assert.throws(() => loadConfig({ STRIPE_WEBHOOK_SECRET: "secret" }), /STRIPE_WEBHOOK_SECRET/);
  for (const bad of ["0", "-1", "soon"])
    assert.throws(() => loadConfig({ PAYMENT_HOLD_MINUTES: bad }), /PAYMENT_HOLD_MINUTES/);
  // The key itself never appears in a configuration error.
  assert.throws(
    () => loadConfig({ STRIPE_SECRET_KEY: "sk_live_topSecret9", STRIPE_WEBHOOK_SECRET: "nope" }),
    (error: Error) => !error.message.includes("topSecret9"),
  );
});

test("WORKERS: a whole number of processes, 1 to 64", () => {
  assert.equal(loadConfig({ WORKERS: "4" }).WORKERS, 4);
  assert.equal(loadConfig({ WORKERS: "64" }).WORKERS, 64);
  for (const bad of ["0", "-1", "1.5", "65", "two"]) assert.throws(() => loadConfig({ WORKERS: bad }), /WORKERS/);
});

test("WEBHOOK_RETENTION_DAYS: whole days, 0 to 3650", () => {
  assert.equal(loadConfig({ WEBHOOK_RETENTION_DAYS: "7" }).WEBHOOK_RETENTION_DAYS, 7);
  assert.equal(loadConfig({ WEBHOOK_RETENTION_DAYS: "0" }).WEBHOOK_RETENTION_DAYS, 0);
  for (const bad of ["-1", "1.5", "a month", "3651"])
    assert.throws(() => loadConfig({ WEBHOOK_RETENTION_DAYS: bad }), /WEBHOOK_RETENTION_DAYS/);
});

test("METRICS_TOKEN: 16 to 1024 printable characters, and an error never shows it", () => {
  const token = "0123456789abcdef0123";
  assert.equal(loadConfig({ METRICS_TOKEN: token }).METRICS_TOKEN, token);
  assert.equal(loadConfig({ METRICS_TOKEN: "" }).METRICS_TOKEN, undefined);
  for (const bad of ["short-secret", "has a space in it, sixteen+", "x".repeat(1025)]) {
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: bad }),
      (error: Error) => {
        assert.match(error.message, /METRICS_TOKEN/);
        assert.ok(!error.message.includes(bad), "the token is not in the message");
        return true;
      },
    );
  }
});

test("CORS_ORIGINS: comma-separated origins or *, a malformed origin named", () => {
  assert.deepEqual(loadConfig({ CORS_ORIGINS: "https://app.example.com, http://localhost:5173/" }).CORS_ORIGINS, [
    "https://app.example.com",
    "http://localhost:5173",
  ]);
  assert.equal(loadConfig({ CORS_ORIGINS: "*" }).CORS_ORIGINS, "*");
  assert.equal(loadConfig({ CORS_ORIGINS: "" }).CORS_ORIGINS, undefined);
  assert.throws(
    () => loadConfig({ CORS_ORIGINS: "https://app.example.com,app.example.org" }),
    /Invalid configuration: CORS_ORIGINS: "app\.example\.org" is not an origin/,
  );
  assert.throws(
    () => loadConfig({ CORS_ORIGINS: "https://app.example.com/login" }),
    /CORS_ORIGINS: .*scheme:\/\/host\[:port\]/,
  );
  assert.throws(
    () => loadConfig({ CORS_ORIGINS: "*,https://app.example.com" }),
    /CORS_ORIGINS: \* allows every origin and stands alone/,
  );
});

test("the offset price: a positive number of USD per tonne", () => {
  assert.equal(loadConfig({ CARBON_OFFSET_PRICE_USD_PER_TONNE: "30" }).CARBON_OFFSET_PRICE_USD_PER_TONNE, 30);
  assert.equal(loadConfig({ CARBON_OFFSET_PRICE_USD_PER_TONNE: "12.5" }).CARBON_OFFSET_PRICE_USD_PER_TONNE, 12.5);
  assert.throws(() => loadConfig({ CARBON_OFFSET_PRICE_USD_PER_TONNE: "0" }), /CARBON_OFFSET_PRICE_USD_PER_TONNE/);
  assert.equal(loadConfig({ LOCAL_SOURCING_RADIUS_KM: "50" }).LOCAL_SOURCING_RADIUS_KM, 50);
  assert.throws(() => loadConfig({ LOCAL_SOURCING_RADIUS_KM: "0" }), /LOCAL_SOURCING_RADIUS_KM/);
  assert.equal(loadConfig({ LOCAL_SOURCING_TARGET_PERCENT: "75" }).LOCAL_SOURCING_TARGET_PERCENT, 75);
  assert.throws(() => loadConfig({ LOCAL_SOURCING_TARGET_PERCENT: "101" }), /LOCAL_SOURCING_TARGET_PERCENT/);
  assert.throws(() => loadConfig({ CARBON_OFFSET_PRICE_USD_PER_TONNE: "cheap" }), /CARBON_OFFSET_PRICE_USD_PER_TONNE/);
});

test("webhook delivery options: the retry schedule as a list of milliseconds, the timeout", () => {
  const config = loadConfig({ WEBHOOK_RETRY_DELAYS_MS: "0, 100,2500", WEBHOOK_TIMEOUT_MS: "750" });
  assert.deepEqual(config.WEBHOOK_RETRY_DELAYS_MS, [0, 100, 2500]);
  assert.equal(config.WEBHOOK_TIMEOUT_MS, 750);
  assert.throws(
    () => loadConfig({ WEBHOOK_RETRY_DELAYS_MS: "1m,10m" }),
    /WEBHOOK_RETRY_DELAYS_MS: a comma-separated list of milliseconds/,
  );
  assert.throws(() => loadConfig({ WEBHOOK_TIMEOUT_MS: "0" }), /WEBHOOK_TIMEOUT_MS/);
  assert.equal(loadConfig({ WEBHOOK_SECRET_OVERLAP_MS: "0" }).WEBHOOK_SECRET_OVERLAP_MS, 0);
  assert.throws(() => loadConfig({ WEBHOOK_SECRET_OVERLAP_MS: "-1" }), /WEBHOOK_SECRET_OVERLAP_MS/);
  assert.throws(() => loadConfig({ WEBHOOK_SECRET_OVERLAP_MS: "a day" }), /WEBHOOK_SECRET_OVERLAP_MS/);
});

test("values from the environment; empty means unset", () => {
  const config = loadConfig({
    PORT: "8080",
    HOST: "0.0.0.0",
    DATABASE_URL: ":memory:",
    TRUST_PROXY: "true",
    LOG_LEVEL: "",
    PUBLIC_URL: "https://events.example.com",
  });
  assert.equal(config.PORT, 8080);
  assert.equal(config.HOST, "0.0.0.0");
  assert.equal(config.DATABASE_URL, ":memory:");
  assert.equal(config.TRUST_PROXY, true);
  assert.equal(config.LOG_LEVEL, "info");
  assert.equal(config.PUBLIC_URL, "https://events.example.com");
});

test("bad values are named", () => {
  assert.throws(() => loadConfig({ PORT: "http" }), /Invalid configuration: PORT: /);
  assert.throws(() => loadConfig({ PORT: "70000", LOG_LEVEL: "loud" }), /PORT: .*; LOG_LEVEL: /);
  assert.throws(() => loadConfig({ TRUST_PROXY: "maybe" }), /TRUST_PROXY/);
  assert.throws(() => loadConfig({ PUBLIC_URL: "ftp://x" }), /PUBLIC_URL/);
  assert.throws(() => loadConfig({ TLS_CERT: "cert.pem" }), /TLS_KEY: TLS_CERT and TLS_KEY go together/);
  assert.throws(
    () => loadConfig({ HTTP_REDIRECT_PORT: "8080" }),
    /HTTP_REDIRECT_PORT: redirects to HTTPS need TLS_CERT and TLS_KEY/,
  );
});

test("TRUST_PROXY: a flag (one hop) or a list of trusted proxy addresses and CIDR ranges", () => {
  const accepted: [string, unknown][] = [
    ["true", true],
    ["1", true],
    ["yes", true],
    ["TRUE", true],
    ["false", false],
    ["0", false],
    ["no", false],
    ["10.0.0.1", ["10.0.0.1"]],
    ["10.0.0.0/8, 192.168.1.0/24", ["10.0.0.0/8", "192.168.1.0/24"]],
    ["172.16.0.0/255.240.0.0", ["172.16.0.0/255.240.0.0"]],
    ["::1", ["::1"]],
    ["fd00::/8,2001:db8::/32", ["fd00::/8", "2001:db8::/32"]],
    ["::ffff:10.0.0.0/104", ["::ffff:10.0.0.0/104"]],
    ["loopback,uniquelocal", ["loopback", "uniquelocal"]],
  ];
  for (const [value, expected] of accepted)
    assert.deepEqual(loadConfig({ TRUST_PROXY: value }).TRUST_PROXY, expected, value);
  for (const value of [
    "maybe",
    "10.0.0.0/33",
    "10.0.0.256",
    "fd00::/129",
    "10.0.0.0/8,,",
    "10.0.0.0/-1",
    "2001:db8::/abc",
    "localhost",
  ]) {
    assert.throws(
      () => loadConfig({ TRUST_PROXY: value }),
      /Invalid configuration: TRUST_PROXY: true, false, or a comma-separated list/,
      value,
    );
  }
});

test("AUTH_FAILURE_LIMIT_PER_MINUTE: a positive integer", () => {
  assert.equal(loadConfig({ AUTH_FAILURE_LIMIT_PER_MINUTE: "5" }).AUTH_FAILURE_LIMIT_PER_MINUTE, 5);
  for (const value of ["0", "-1", "1.5", "many"])
    assert.throws(() => loadConfig({ AUTH_FAILURE_LIMIT_PER_MINUTE: value }), /AUTH_FAILURE_LIMIT_PER_MINUTE/, value);
});

test("DOOR_LINK_LIMIT_PER_MINUTE: a positive integer", () => {
  assert.equal(loadConfig({ DOOR_LINK_LIMIT_PER_MINUTE: "100000" }).DOOR_LINK_LIMIT_PER_MINUTE, 100_000);
  for (const value of ["0", "-1", "1.5", "many"])
    assert.throws(() => loadConfig({ DOOR_LINK_LIMIT_PER_MINUTE: value }), /DOOR_LINK_LIMIT_PER_MINUTE/, value);
});

test("DATABASE_URL forms", () => {
  assert.equal(sqlitePath(":memory:"), ":memory:");
  assert.equal(sqlitePath("./data/x.sqlite"), resolve("data/x.sqlite"));
  assert.equal(sqlitePath("sqlite:///tmp/x.sqlite"), "/tmp/x.sqlite");
  assert.equal(sqlitePath("file:/tmp/y.sqlite"), "/tmp/y.sqlite");
  assert.throws(() => sqlitePath("postgres://u@h/db"), /not a SQLite file/);
  assert.equal(isPostgresUrl("postgres://u@h/db"), true);
  assert.equal(isPostgresUrl("postgresql://u:p@h:5433/db?sslmode=require"), true);
  assert.equal(isPostgresUrl("./postgres.sqlite"), false);
  assert.equal(
    redactDatabaseUrl("postgres://es:secret@db.example:5432/events"),
    "postgres://es:***@db.example:5432/events",
  );
});

test("DATABASE_POOL_SIZE: 1 to 1000 connections", () => {
  assert.equal(loadConfig({ DATABASE_POOL_SIZE: "25" }).DATABASE_POOL_SIZE, 25);
  for (const bad of ["0", "-1", "2.5", "many", "1001"])
    assert.throws(() => loadConfig({ DATABASE_POOL_SIZE: bad }), /DATABASE_POOL_SIZE/, bad);
});
