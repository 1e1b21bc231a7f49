import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { test } from "node:test";
import { ServiceError } from "../src/errors.ts";
import { createEventService } from "../src/service.ts";
import {
  assertPublicHost,
  checkedAddresses,
  DNS_TIMEOUT_MS,
  isNonPublicAddress,
  pinnedLookup,
} from "../src/webhooks/ssrf.ts";
import { sqliteStorage } from "./_sqlite.ts";

/** Every spelling a resolver or a URL may hand the guard, with what makes it non-public. */
const NON_PUBLIC: Array<[address: string, why: string]> = [
  ["127.0.0.1", "IPv4 loopback"],
  ["127.255.255.254", "loopback, all of 127/8"],
  ["10.0.0.1", "private 10/8"],
  ["172.16.0.1", "private 172.16/12"],
  ["172.31.255.255", "private 172.16/12, upper end"],
  ["192.168.1.1", "private 192.168/16"],
  ["169.254.169.254", "link-local (cloud metadata)"],
  ["100.64.0.1", "CGNAT"],
  ["100.127.255.255", "CGNAT, upper end"],
  ["0.0.0.0", "this network"],
  ["0.1.2.3", "this network 0/8"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.255", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["240.0.0.1", "reserved 240/4"],
  ["198.18.0.1", "benchmarking"],
  ["192.0.0.8", "IETF assignments"],
  ["192.0.2.1", "TEST-NET-1"],
  ["198.51.100.7", "TEST-NET-2"],
  ["203.0.113.9", "TEST-NET-3"],
  ["192.88.99.1", "6to4 relay anycast"],
  ["::1", "IPv6 loopback"],
  ["0:0:0:0:0:0:0:1", "IPv6 loopback, long form"],
  ["::", "unspecified"],
  ["fd12:3456::1", "unique local"],
  ["fc00::1", "unique local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local with a zone"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation (RFC 9637)"],
  ["100::1", "discard-only"],
  ["2001::1", "Teredo"],
  ["2001:10::1", "ORCHID"],
  ["fec0::1", "deprecated site-local"],
  ["4000::1", "outside 2000::/3 (not allocated)"],
  // IPv4-mapped, in every spelling.
  ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
  ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
  ["::FFFF:7F00:0001", "IPv4-mapped, upper case"],
  ["0:0:0:0:0:ffff:127.0.0.1", "IPv4-mapped, long form"],
  ["::ffff:10.0.0.1", "IPv4-mapped private"],
  ["::ffff:a9fe:a9fe", "IPv4-mapped metadata"],
  ["::ffff:0:127.0.0.1", "SIIT-translated loopback"],
  // IPv4-compatible (deprecated): never a destination, whatever it carries.
  ["::127.0.0.1", "IPv4-compatible loopback"],
  ["::7f00:1", "IPv4-compatible loopback, hex (how URL stores [::127.0.0.1])"],
  ["::10.1.2.3", "IPv4-compatible private"],
  ["::8.8.8.8", "IPv4-compatible, even of a public address"],
  // IPv6 forms that route to an embedded IPv4 address.
  ["64:ff9b::a00:1", "NAT64 of 10.0.0.1"],
  ["64:ff9b::127.0.0.1", "NAT64 of loopback"],
  ["64:ff9b:1::808:808", "local-use NAT64 prefix"],
  ["2002:7f00:1::", "6to4 of loopback"],
  ["2002:c0a8:0101::1", "6to4 of 192.168.1.1"],
  // Not addresses.
  ["not-an-ip", "a name"],
  ["2130706433", "a decimal number (URL parsing turns it into 127.0.0.1 first)"],
  ["0x7f.1", "hex shorthand"],
  ["017700000001", "octal"],
  ["127.1", "short form"],
  ["", "empty"],
];

const PUBLIC = [
  "93.184.216.34",
  "8.8.8.8",
  "1.1.1.1",
  "172.32.0.1",
  "100.128.0.1",
  "192.169.0.1",
  "2606:4700:4700::1111",
  "2a00:1450:4001::1",
  "::ffff:8.8.8.8",
  "::ffff:808:808",
  "2002:0808:0808::1",
  "64:ff9b::808:808",
];

test("non-public addresses: every spelling of IPv4 and IPv6, IPv4-mapped and IPv4-compatible included", () => {
  for (const [address, why] of NON_PUBLIC) assert.equal(isNonPublicAddress(address), true, `${address} (${why})`);
  for (const address of PUBLIC) assert.equal(isNonPublicAddress(address), false, address);
});

test("URL spellings of private hosts all end up refused: the URL parser normalises, the guard judges", async () => {
  const noDns = async () => {
    throw new Error("no DNS in this test");
  };
  for (const url of [
    "https://[::127.0.0.1]/hook",
    "https://[::ffff:7f00:1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://2130706433/",
    "https://0x7f.1/",
    "https://017700000001/",
    "https://0177.0.0.1/",
    "https://127.1/",
    "https://0x7f000001/",
    "https://[0:0:0:0:0:ffff:7f00:1]/",
    "https://[::]/",
    "https://[64:ff9b::7f00:1]/",
    "https://[2002:a9fe:a9fe::]/",
    "https://169.254.169.254./",
  ]) {
    await assert.rejects(
      assertPublicHost(new URL(url), noDns),
      (error: unknown) => ServiceError.is(error) && error.code === "INVALID_URL" && /non-public/.test(error.message),
      url,
    );
  }
  await assertPublicHost(new URL("https://[2606:4700:4700::1111]/"), noDns);
  await assertPublicHost(new URL("https://93.184.216.34:8443/hook"), noDns);
});

const rejects = (url: string, resolver: (host: string) => Promise<string[]>, message: RegExp) =>
  assert.rejects(
    assertPublicHost(new URL(url), resolver),
    (error: unknown) =>
      ServiceError.is(error) && error.code === "INVALID_URL" && error.field === "url" && message.test(error.message),
  );

test("hosts are judged by every address they resolve to", async () => {
  const dns: Record<string, string[]> = {
    "public.test": ["93.184.216.34"],
    "sneaky.test": ["93.184.216.34", "127.0.0.1"],
    "v6.test": ["::1"],
    "mapped.test": ["::ffff:7f00:1"],
    "empty.test": [],
  };
  const resolver = async (host: string) => {
    const found = dns[host];
    if (!found) throw new Error("ENOTFOUND");
    return found;
  };
  await assertPublicHost(new URL("https://public.test/hook"), resolver);
  await rejects("https://sneaky.test/", resolver, /non-public/);
  await rejects("https://v6.test/", resolver, /non-public/);
  await rejects("https://mapped.test/", resolver, /non-public/);
  await rejects("https://empty.test/", resolver, /no address/);
  await rejects("https://[::1]/", resolver, /non-public/);
  await rejects("https://127.0.0.1/", resolver, /non-public/);
  await rejects("https://missing.test/", resolver, /cannot be resolved/);
});

test("a resolver that never answers is refused after 2 s, not waited on", async () => {
  const hanging = () => new Promise<string[]>(() => {});
  const started = Date.now();
  await rejects("https://slow.test/", hanging, /took longer than 2 s/);
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= DNS_TIMEOUT_MS - 50 && elapsed < DNS_TIMEOUT_MS + 3_000, `settled after ${elapsed} ms`);
  // The timeout is a parameter: a short one settles sooner.
  await assert.rejects(checkedAddresses("slow.test", { resolve: hanging, timeoutMs: 50 }), /took longer than 0.05 s/);
});

test("the system resolver: localhost is loopback", async () => {
  await assert.rejects(
    assertPublicHost(new URL("https://localhost/x")),
    (error: unknown) => ServiceError.is(error) && error.code === "INVALID_URL",
  );
});

test("private networks allowed: still resolved once, with the timeout, but not judged", async () => {
  assert.deepEqual(
    await checkedAddresses("hook.test", { resolve: async () => ["127.0.0.1"], allowPrivateNetworks: true }),
    ["127.0.0.1"],
  );
  await assert.rejects(
    checkedAddresses("hook.test", { resolve: () => new Promise(() => {}), allowPrivateNetworks: true, timeoutMs: 50 }),
    /took longer/,
  );
});

/** A TCP server on 127.0.0.1 counting the connections it gets. */
async function countingServer(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port, connections: () => connections };
}

const lookupOnce = (
  lookup: ReturnType<typeof pinnedLookup>,
  host: string,
  options: { all?: boolean; family?: number } = {},
) =>
  new Promise<unknown>((resolve, reject) => {
    lookup(host, options as never, (error: NodeJS.ErrnoException | null, address: unknown, family?: number) =>
      error ? reject(error) : resolve(options.all ? address : [address, family]),
    );
  });

test("the pinned lookup hands the socket only checked addresses, in both of net.connect's forms", async () => {
  const lookup = pinnedLookup({ resolve: async () => ["93.184.216.34", "2606:4700:4700::1111"] });
  assert.deepEqual(await lookupOnce(lookup, "hook.test"), ["93.184.216.34", 4]);
  assert.deepEqual(await lookupOnce(lookup, "hook.test", { family: 6 }), ["2606:4700:4700::1111", 6]);
  assert.deepEqual(await lookupOnce(lookup, "hook.test", { all: true }), [
    { address: "93.184.216.34", family: 4 },
    { address: "2606:4700:4700::1111", family: 6 },
  ]);
  const sneaky = pinnedLookup({ resolve: async () => ["93.184.216.34", "::ffff:7f00:1"] });
  await assert.rejects(
    lookupOnce(sneaky, "hook.test", { all: true }),
    (error: unknown) => ServiceError.is(error) && /non-public/.test(error.message),
  );
});

test("no rebinding: a name answering public then private is connected to once, at the address that was checked", async () => {
  const { server, port, connections } = await countingServer();
  try {
    const { connect } = await import("node:net");
    let calls = 0;
    // A rebinding DNS server: the first answer passes the check, every later one points at the private receiver.
    const rebinding = async () => (++calls === 1 ? ["93.184.216.34"] : ["127.0.0.1"]);
    const lookup = pinnedLookup({ resolve: rebinding });
    const socket = connect({ host: "rebind.test", port, lookup, timeout: 500 });
    const outcome = await new Promise<string>((resolve) => {
      socket.once("lookup", (error, address) => resolve(error ? `error ${error.message}` : `connecting to ${address}`));
    });
    socket.destroy();
    assert.equal(outcome, "connecting to 93.184.216.34", "the socket connects to the address the guard judged");
    assert.equal(calls, 1, "one look-up per connection: nothing for the DNS server to answer differently");
    // The next connection's look-up gets the private answer, and is refused before connecting.
    const refused = connect({ host: "rebind.test", port, lookup });
    const error = await new Promise<Error>((resolve) => refused.once("error", resolve));
    assert.match(error.message, /non-public/);
    assert.equal(calls, 2);
    assert.equal(connections(), 0, "the private receiver got no connection");
  } finally {
    server.close();
  }
});

test("a webhook URL's port is 443 or 1024-65535 and it carries no credentials: 400 INVALID_URL otherwise, at create and at update", async () => {
  const storage = await sqliteStorage();
  // Private networks allowed: the address is not what is judged here.
  const service = createEventService({ storage, webhooks: { allowPrivateNetworks: true } });
  const { accountId } = await service.keys.create({ account: "Acme" });
  const account = service.forAccount(accountId);
  const accepted: Array<[string, string]> = [
    ["https://93.184.216.34/a", "https://93.184.216.34/a"],
    ["https://93.184.216.34:443/b", "https://93.184.216.34/b"],
    ["https://93.184.216.34:1024/c", "https://93.184.216.34:1024/c"],
    ["https://93.184.216.34:8443/d", "https://93.184.216.34:8443/d"],
    ["https://93.184.216.34:65535/e", "https://93.184.216.34:65535/e"],
  ];
  for (const [url, stored] of accepted)
    assert.equal((await account.webhooks.create({ url, events: ["*"] })).url, stored, url);
  const hook = await account.webhooks.create({ url: "https://93.184.216.34/kept", events: ["*"] });
  const refused: Array<[string, RegExp]> = [
    ["https://93.184.216.34:22/", /^url: port 22 is not allowed; use 443 or a port from 1024 to 65535$/],
    ["https://93.184.216.34:0/", /^url: port 0 is not allowed/],
    ["https://93.184.216.34:1/", /^url: port 1 is not allowed/],
    ["https://93.184.216.34:80/", /^url: port 80 is not allowed/],
    ["https://93.184.216.34:1023/", /^url: port 1023 is not allowed/],
    ["https://93.184.216.34:65536/", /^url: not a valid absolute URL$/],
    ["https://user:pw@93.184.216.34/", /^url: must not carry credentials \(user or password\)$/],
    ["https://user@93.184.216.34/", /^url: must not carry credentials/],
    ["https://:pw@93.184.216.34:8443/", /^url: must not carry credentials/],
  ];
  for (const [url, message] of refused) {
    const invalid = (error: unknown) =>
      ServiceError.is(error) && error.code === "INVALID_URL" && error.field === "url" && message.test(error.message);
    await assert.rejects(account.webhooks.create({ url, events: ["*"] }), invalid, url);
    await assert.rejects(account.webhooks.update(hook.id, { url }), invalid, url);
  }
  assert.equal((await account.webhooks.get(hook.id)).url, "https://93.184.216.34/kept");
  assert.equal((await account.webhooks.list({ limit: "100" })).pagination.total, accepted.length + 1);
  await storage.close();
});
