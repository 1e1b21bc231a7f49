import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { ServiceError } from "../errors.ts";

/** Addresses a webhook may not reach unless private networks are allowed (SSRF guard). */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata lives here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.88.99.0", 24], // deprecated 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["100::", 64], // discard-only
  ["2001:db8::", 32], // documentation
  ["64:ff9b::", 96], // NAT64 (maps IPv4, checked as such below)
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, "ipv6");
}

/** True when an IP address is loopback, private, link-local, CGNAT, multicast or otherwise not public. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, "ipv4");
  if (family !== 6) return true;
  const lower = address.toLowerCase();
  // Addresses that carry an IPv4 address are judged by it: IPv4-mapped (::ffff:a.b.c.d), the
  // deprecated IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002:AABB:CCDD::/16).
  const embedded = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (embedded) return NON_PUBLIC.check(embedded[1]!, "ipv4");
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4})(?::|$)/.exec(lower);
  if (sixToFour) {
    const [high, low] = [Number.parseInt(sixToFour[1]!, 16), Number.parseInt(sixToFour[2]!, 16)];
    return NON_PUBLIC.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, "ipv4");
  }
  return NON_PUBLIC.check(lower, "ipv6");
}

/** Resolves host names; injectable so tests can map names to addresses. */
export type HostResolver = (host: string) => Promise<string[]>;

/** The system resolver: every address of the host. */
export const systemResolver: HostResolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Throws `INVALID_URL` unless every address the URL's host is or resolves to is public. Run at
 * creation and again before each delivery (a name may be re-pointed after creation).
 */
export async function assertPublicHost(url: URL, resolve: HostResolver = systemResolver): Promise<void> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new ServiceError("INVALID_URL", { message: `url: the host ${host} cannot be resolved`, field: "url" });
    }
  }
  if (addresses.length === 0 || addresses.some(isNonPublicAddress)) {
    throw new ServiceError("INVALID_URL", {
      message: `url: ${host} is or resolves to a non-public address (loopback, private, link-local or reserved)`,
      field: "url",
    });
  }
}
