// A dns.lookup for sockets that may reach only some addresses: every address a name resolves to is checked
// when the connection is made, so a harmless-looking name cannot point at loopback or a metadata service
// (DNS rebinding). Webhooks and network printers pass their own rule.
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';

export class RefusedAddress extends Error {}

/** `problemOf(address)` says why an address may not be reached, or null when it may. */
export function lookupRefusing(
  problemOf: (address: string) => string | null,
  resolve: typeof dns.lookup = dns.lookup,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) {
        callback(error, '', 0);
        return;
      }
      const list = addresses as dns.LookupAddress[];
      const refused = list.map((a) => problemOf(a.address)).find((p) => p !== null);
      const first = list[0];
      if (refused !== undefined || first === undefined) {
        callback(new RefusedAddress(`${hostname} ${refused ?? 'resolves to no address'}`), '', 0);
        return;
      }
      if (options.all === true) callback(null, list);
      else callback(null, first.address, first.family);
    });
  };
}
