import ipaddr from "ipaddr.js";
import proxyaddr from "proxy-addr";

/**
 * Which proxies in front of the service are trusted to say who the client is and how it
 * connected (`X-Forwarded-For`, `-Proto`, `-Host`): `false` none, `true` exactly one hop (the
 * connection's peer, whatever its address), or a list of addresses and CIDR ranges (`10.0.0.0/8`,
 * `fd00::/8`, also `loopback`, `linklocal` and `uniquelocal`), as Express's `trust proxy` takes it.
 */
export type TrustProxy = boolean | readonly string[];

/** Whether the address at `hop` (0: the connection's peer, 1: the nearest `X-Forwarded-For` entry, ...) is a trusted proxy. */
export type ProxyTrust = (address: string, hop: number) => boolean;

const trustNone: ProxyTrust = () => false;
const trustOneHop: ProxyTrust = (_address, hop) => hop < 1;

/**
 * Compiles a {@link TrustProxy} setting into a trust function. Throws a `TypeError` naming the
 * first entry that is neither an address, a CIDR range nor a known range name.
 *
 * @example
 * const trust = compileTrustProxy(["10.0.0.0/8", "::1"]);
 * trust("10.1.2.3", 0); // true
 */
export function compileTrustProxy(setting: TrustProxy): ProxyTrust {
  if (setting === true) return trustOneHop;
  if (setting === false || setting.length === 0) return trustNone;
  for (const entry of setting) {
    try {
      proxyaddr.compile(entry);
    } catch {
      throw new TypeError(
        `not an IP address, CIDR range or one of loopback, linklocal, uniquelocal: ${JSON.stringify(entry)}`,
      );
    }
  }
  const trusted = proxyaddr.compile([...setting]);
  return (address) => trusted(address, 0);
}

/**
 * The client's address: the connection's `peer`, or, when the peer is a trusted proxy, the
 * nearest `X-Forwarded-For` entry that is not one (the leftmost when every entry is trusted).
 * `undefined` when the host did not say who the peer is and it cannot be learnt from a trusted proxy.
 */
export function resolveClientAddress(
  peer: string | undefined,
  forwardedFor: string | null,
  trust: ProxyTrust,
): string | undefined {
  if (trust === trustNone || !forwardedFor) return peer;
  // proxy-addr walks the hops from the peer outwards; it reads these two fields only.
  const request = { headers: { "x-forwarded-for": forwardedFor }, socket: { remoteAddress: peer ?? "" } };
  const address = proxyaddr(request as unknown as Parameters<typeof proxyaddr>[0], trust);
  return address === "" ? undefined : address;
}

/**
 * The bucket an address is counted in by the per-address limit: an IPv4 address (an IPv4-mapped
 * IPv6 one included) as itself, an IPv6 address by its `/64` network, since one subscriber
 * usually holds a whole `/64` and could otherwise rotate through it; anything else as given.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address.slice(0, 64);
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(":")}::/64`;
}
