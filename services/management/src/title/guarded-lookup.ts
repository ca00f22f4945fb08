import dns, { type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isAllowedAddress, type AddressPolicy } from './address-policy';

export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

/**
 * A `lookup` for http(s).request: resolves as usual, then keeps only addresses the policy allows,
 * so the check happens on the very address the socket connects to (no gap between check and
 * connect for DNS rebinding). A name with no allowed address fails the request.
 */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      const allowed = addresses.filter((a) => isAllowedAddress(a.address, policy));
      const first = allowed[0];
      if (!first) {
        callback(new RefusedAddressError(`${hostname} resolves only to addresses that are not fetched`), '', 0);
        return;
      }
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}
