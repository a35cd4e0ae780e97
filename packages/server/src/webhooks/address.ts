// Which addresses a webhook may be sent to. Deny by default: only what ipaddr.js calls `unicast`
// (globally routable) passes; loopback, private, link-local, unspecified, CGNAT, unique-local,
// multicast, reserved, documentation, and the v6 forms that embed a v4 address (mapped, NAT64,
// 6to4, Teredo) are refused. A name is checked in the request's own `lookup`, so the address
// checked is the address connected to: a second resolution cannot swap it (DNS rebinding).
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/** The range an address is in, as ipaddr.js names it (`unicast` for a public one); `undefined` for no address. */
export function addressRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is the IPv4 address it maps, and is judged as one.
  return ipaddr.process(address).range();
}

/** Whether a webhook may be sent to `address`: a public unicast address, and nothing else. */
export function isPublicAddress(address: string): boolean {
  return addressRange(address) === "unicast";
}

/** The host of a URL as an IP address when it is one (`[::1]` without its brackets), else `undefined`. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return ipaddr.isValid(host) ? host : undefined;
}

/** A webhook target's address that is not a public one: the error a refused send fails with. */
export class PrivateAddressError extends Error {
  override name = "PrivateAddressError";
  readonly code = "WEBHOOK_PRIVATE_ADDRESS";

  constructor(host: string, address: string) {
    super(
      `${host} resolves to ${address} (${addressRange(address)}), a non-public address: refused (webhookTargets.allowPrivate)`,
    );
  }
}

type Resolve = (
  hostname: string,
  options: LookupAllOptions,
  done: (error: Error | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * The `lookup` of a webhook's request: resolves every address of the name and fails, connecting
 * to none, when any is not public. `resolve` is the system resolver (tests give their own).
 */
export function publicOnlyLookup(resolve: Resolve = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, "", 0);
      const refused = addresses.find(({ address }) => !isPublicAddress(address));
      if (refused !== undefined) return callback(new PrivateAddressError(hostname, refused.address), "", 0);
      if ((options as { all?: boolean }).all === true) {
        return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      }
      const [first] = addresses;
      if (first === undefined) return callback(new Error(`${hostname} resolves to no address`), "", 0);
      return callback(null, first.address, first.family);
    });
  };
}
