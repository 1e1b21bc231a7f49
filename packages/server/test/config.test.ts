import assert from "node:assert/strict";
import { resolve } from "node:path";
import { test } from "node:test";
import { loadConfig } from "../src/config.ts";
import { sqlitePath } from "../src/sqlite.ts";

test("defaults", () => {
  assert.deepEqual(loadConfig({}), {
    PORT: 3000,
    HOST: "127.0.0.1",
    DATABASE_URL: "./data/event-service.sqlite",
    PUBLIC_URL: undefined,
    TLS_CERT: undefined,
    TLS_KEY: undefined,
    HTTP_REDIRECT_PORT: undefined,
    TRUST_PROXY: false,
    LOG_LEVEL: "info",
    SHUTDOWN_TIMEOUT_MS: 10_000,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: false,
    CARBON_OFFSET_PRICE_USD_PER_TONNE: undefined,
    WEBHOOK_RETRY_DELAYS_MS: undefined,
    WEBHOOK_TIMEOUT_MS: 5_000,
    WEBHOOK_SECRET_OVERLAP_MS: 86_400_000,
  });
});

test("the offset price: a positive number of USD per tonne", () => {
  assert.equal(loadConfig({ CARBON_OFFSET_PRICE_USD_PER_TONNE: "30" }).CARBON_OFFSET_PRICE_USD_PER_TONNE, 30);
  assert.equal(loadConfig({ CARBON_OFFSET_PRICE_USD_PER_TONNE: "12.5" }).CARBON_OFFSET_PRICE_USD_PER_TONNE, 12.5);
  assert.throws(() => loadConfig({ CARBON_OFFSET_PRICE_USD_PER_TONNE: "0" }), /CARBON_OFFSET_PRICE_USD_PER_TONNE/);
  assert.throws(() => loadConfig({ CARBON_OFFSET_PRICE_USD_PER_TONNE: "cheap" }), /CARBON_OFFSET_PRICE_USD_PER_TONNE/);
});

test("webhook delivery options: the retry schedule as a list of milliseconds, the timeout", () => {
  const config = loadConfig({ WEBHOOK_RETRY_DELAYS_MS: "0, 100,2500", WEBHOOK_TIMEOUT_MS: "750" });
  assert.deepEqual(config.WEBHOOK_RETRY_DELAYS_MS, [0, 100, 2500]);
  assert.equal(config.WEBHOOK_TIMEOUT_MS, 750);
  assert.throws(() => loadConfig({ WEBHOOK_RETRY_DELAYS_MS: "1m,10m" }), /WEBHOOK_RETRY_DELAYS_MS: a comma-separated list of milliseconds/);
  assert.throws(() => loadConfig({ WEBHOOK_TIMEOUT_MS: "0" }), /WEBHOOK_TIMEOUT_MS/);
  assert.equal(loadConfig({ WEBHOOK_SECRET_OVERLAP_MS: "0" }).WEBHOOK_SECRET_OVERLAP_MS, 0);
  assert.throws(() => loadConfig({ WEBHOOK_SECRET_OVERLAP_MS: "-1" }), /WEBHOOK_SECRET_OVERLAP_MS/);
  assert.throws(() => loadConfig({ WEBHOOK_SECRET_OVERLAP_MS: "a day" }), /WEBHOOK_SECRET_OVERLAP_MS/);
});

test("values from the environment; empty means unset", () => {
  const config = loadConfig({ PORT: "8080", HOST: "0.0.0.0", DATABASE_URL: ":memory:", TRUST_PROXY: "true", LOG_LEVEL: "", PUBLIC_URL: "https://events.example.com" });
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
  assert.throws(() => loadConfig({ HTTP_REDIRECT_PORT: "8080" }), /HTTP_REDIRECT_PORT: redirects to HTTPS need TLS_CERT and TLS_KEY/);
});

test("DATABASE_URL forms", () => {
  assert.equal(sqlitePath(":memory:"), ":memory:");
  assert.equal(sqlitePath("./data/x.sqlite"), resolve("data/x.sqlite"));
  assert.equal(sqlitePath("sqlite:///tmp/x.sqlite"), "/tmp/x.sqlite");
  assert.equal(sqlitePath("file:/tmp/y.sqlite"), "/tmp/y.sqlite");
  assert.throws(() => sqlitePath("postgres://u@h/db"), /PostgreSQL is on the roadmap/);
});
