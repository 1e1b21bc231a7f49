import assert from "node:assert/strict";
import { test } from "node:test";
import { ServiceError } from "../src/errors.ts";
import { assertPublicHost, isNonPublicAddress } from "../src/webhooks/ssrf.ts";

test("non-public addresses, IPv4 and IPv6", () => {
  for (const address of [
    "127.0.0.1", "127.255.255.254", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1",
    "100.127.255.255", "0.0.0.0", "224.0.0.1", "239.255.255.255", "255.255.255.255", "198.18.0.1", "192.0.0.8",
    "::1", "::", "fd12:3456::1", "fc00::1", "fe80::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1", "not-an-ip",
    "192.0.2.1", "198.51.100.7", "203.0.113.9", "2001:db8::1", "::127.0.0.1", "::10.1.2.3", "2002:7f00:1::", "2002:c0a8:0101::1", "100::1",
  ]) {
    assert.equal(isNonPublicAddress(address), true, address);
  }
  for (const address of [
    "93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "192.169.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2002:0808:0808::1",
  ]) {
    assert.equal(isNonPublicAddress(address), false, address);
  }
});

const rejects = (url: string, resolver: (host: string) => Promise<string[]>, message: RegExp) =>
  assert.rejects(assertPublicHost(new URL(url), resolver), (error: unknown) => ServiceError.is(error) && error.code === "INVALID_URL" && error.field === "url" && message.test(error.message));

test("hosts are judged by every address they resolve to", async () => {
  const dns: Record<string, string[]> = { "public.test": ["93.184.216.34"], "sneaky.test": ["93.184.216.34", "127.0.0.1"], "v6.test": ["::1"] };
  const resolver = async (host: string) => {
    const found = dns[host];
    if (!found) throw new Error("ENOTFOUND");
    return found;
  };
  await assertPublicHost(new URL("https://public.test/hook"), resolver);
  await assertPublicHost(new URL("https://93.184.216.34:8443/hook"), resolver);
  await rejects("https://sneaky.test/", resolver, /non-public/);
  await rejects("https://v6.test/", resolver, /non-public/);
  await rejects("https://[::1]/", resolver, /non-public/);
  await rejects("https://127.0.0.1/", resolver, /non-public/);
  await rejects("https://missing.test/", resolver, /cannot be resolved/);
});

test("the system resolver: localhost is loopback", async () => {
  await assert.rejects(assertPublicHost(new URL("https://localhost/x")), (error: unknown) => ServiceError.is(error) && error.code === "INVALID_URL");
});
