import { lookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { ServiceError } from "../errors.ts";

/** A host name that does not resolve within this long is refused: a slow DNS server cannot hold a request or a delivery slot. */
export const DNS_TIMEOUT_MS = 2_000;

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function lowIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const parts = address.parts;
  return new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 255, parts[7]! >> 8, parts[7]! & 255]);
}

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  // ipaddr.js names every special-purpose block (RFC 6890: private, loopback, link-local,
  // CGNAT, documentation, benchmarking, multicast, reserved, ...); only plain unicast is public.
  return address.range() === "unicast";
}

function isPublicIPv6(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  switch (address.range()) {
    // Addresses that carry an IPv4 address are judged by it: IPv4-mapped (::ffff:a.b.c.d, in
    // any spelling: ::ffff:7f00:1 is 127.0.0.1), the SIIT form (::ffff:0:a.b.c.d) and the
    // well-known NAT64 prefix 64:ff9b::/96 (64:ff9b:1::/48 is local-use: refused).
    case "ipv4Mapped":
    case "rfc6145":
      return isPublicIPv4(lowIPv4(address));
    case "rfc6052":
      return parts.slice(2, 6).every((part) => part === 0) && isPublicIPv4(lowIPv4(address));
    // 6to4 (2002:AABB:CCDD::/48) routes to the IPv4 address AA.BB.CC.DD.
    case "6to4":
      return isPublicIPv4(new ipaddr.IPv4([parts[1]! >> 8, parts[1]! & 255, parts[2]! >> 8, parts[2]! & 255]));
    case "unicast":
      // The deprecated IPv4-compatible form (::a.b.c.d, also spelled ::7f00:1) is never a real
      // destination; and only 2000::/3 is allocated as global unicast.
      if (parts.slice(0, 6).every((part) => part === 0)) return false;
      return (parts[0]! & 0xe000) === 0x2000;
    default:
      // loopback, unspecified, link-local, unique local, multicast, Teredo, documentation, ...
      return false;
  }
}

/**
 * True when an IP address is not a public unicast address: loopback, private, link-local,
 * CGNAT, multicast, documentation, reserved, or an IPv6 form that carries such an IPv4
 * address (IPv4-mapped, IPv4-compatible, NAT64, 6to4). Anything that is not an IP address
 * is non-public too.
 */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  // Zone ids (fe80::1%eth0) only ever occur on link-local addresses.
  if (family === 0 || address.includes("%")) return true;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // IPv6 goes through the WHATWG URL parser first, as a URL's host would: ipaddr.js reads a
    // dotted tail as IPv4-mapped even without ffff (::8.8.8.8), the URL parser as what it is.
    parsed = ipaddr.parse(family === 6 ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address);
  } catch {
    return true;
  }
  return parsed.kind() === "ipv4" ? !isPublicIPv4(parsed as ipaddr.IPv4) : !isPublicIPv6(parsed as ipaddr.IPv6);
}

/** Resolves host names; injectable so tests can map names to addresses. */
export type HostResolver = (host: string) => Promise<string[]>;

/** The system resolver: every address of the host. */
export const systemResolver: HostResolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** How {@link checkedAddresses} resolves and judges a host. */
export interface AddressCheck {
  /** The resolver; the system's by default. */
  resolve?: HostResolver | undefined;
  /** Skip the judgement (tests, private networks); the host is still resolved once, with the timeout. */
  allowPrivateNetworks?: boolean | undefined;
  /** Default {@link DNS_TIMEOUT_MS}. */
  timeoutMs?: number | undefined;
}

const invalidUrl = (message: string) => new ServiceError("INVALID_URL", { message: `url: ${message}`, field: "url" });

/** The host's addresses, resolved once; `INVALID_URL` when it cannot be resolved in time. */
async function resolveWithin(host: string, resolve: HostResolver, timeoutMs: number): Promise<string[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(invalidUrl(`resolving the host ${host} took longer than ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      resolve(host).catch(() => {
        throw invalidUrl(`the host ${host} cannot be resolved`);
      }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The addresses a host (a name or an IP literal, with or without IPv6 brackets) is or
 * resolves to, resolved once and each checked: `INVALID_URL` when one is non-public (unless
 * private networks are allowed), when there are none, or when the look-up fails or takes
 * longer than the timeout.
 */
export async function checkedAddresses(hostname: string, check: AddressCheck = {}): Promise<string[]> {
  const host = hostname.replace(/^\[(.*)\]$/, "$1");
  const addresses = isIP(host)
    ? [host]
    : await resolveWithin(host, check.resolve ?? systemResolver, check.timeoutMs ?? DNS_TIMEOUT_MS);
  if (addresses.length === 0) throw invalidUrl(`the host ${host} has no address`);
  if (!check.allowPrivateNetworks && addresses.some(isNonPublicAddress)) {
    throw invalidUrl(`${host} is or resolves to a non-public address (loopback, private, link-local or reserved)`);
  }
  return addresses;
}

/**
 * Throws `INVALID_URL` unless every address the URL's host is or resolves to is public. Run at
 * creation and update; deliveries check again in {@link pinnedLookup}, at the connect.
 */
export async function assertPublicHost(url: URL, resolve: HostResolver = systemResolver): Promise<void> {
  await checkedAddresses(url.hostname, { resolve });
}

/**
 * A `lookup` for `net.connect`/`tls.connect` (and so for a `node:https` `Agent`) that
 * resolves the name once, checks every address it got, and hands the socket only checked
 * addresses: the connection goes to the address that was judged, with no second look-up in
 * between for a rebinding DNS server to answer differently. Errors are `INVALID_URL`
 * {@link ServiceError}s.
 */
export function pinnedLookup(check: AddressCheck = {}): LookupFunction {
  return (hostname, options, callback) => {
    checkedAddresses(hostname, check).then(
      (addresses) => {
        const family = typeof options.family === "number" && options.family !== 0 ? options.family : null;
        const usable = family === null ? addresses : addresses.filter((address) => isIP(address) === family);
        if (usable.length === 0) {
          callback(
            Object.assign(invalidUrl(`the host ${hostname} has no IPv${family} address`), { code: "ENOTFOUND" }),
            "",
            0,
          );
          return;
        }
        if (options.all)
          (callback as unknown as (error: null, all: Array<{ address: string; family: number }>) => void)(
            null,
            usable.map((address) => ({ address, family: isIP(address) })),
          );
        else callback(null, usable[0]!, isIP(usable[0]!));
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, "", 0),
    );
  };
}
