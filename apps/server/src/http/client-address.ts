import type { IncomingMessage } from 'node:http';
import proxyAddress from 'proxy-addr';

/** Which hops are trusted to say who the client is: `TRUST_PROXY`, as Express reads its `trust proxy` setting. */
export type TrustRule = (address: string, hop: number) => boolean;

/**
 * `TRUST_PROXY` compiled once: `true` trusts every hop, a number that many hops, anything else is a
 * comma-separated list of addresses, subnets or proxy-addr's names (`loopback`, `uniquelocal`). Express is given
 * this same function, so `req.ip` and `clientAddress` never disagree.
 */
export function compileTrust(trustProxy: boolean | number | string): TrustRule {
  if (trustProxy === true) return () => true;
  if (typeof trustProxy === 'number') return (_address, hop) => hop < trustProxy;
  if (trustProxy === false) return proxyAddress.compile([]);
  return proxyAddress.compile(trustProxy.split(',').map((entry) => entry.trim()));
}

/**
 * The client's address, resolved once per request: the socket's peer, or the nearest untrusted address in
 * `X-Forwarded-For` when the peer is a trusted proxy. Rate limits and the failed-credential guard count by it.
 */
export function clientAddressResolver(trust: TrustRule): (req: IncomingMessage) => string {
  // Kept on the request under a key of this resolver's own (as admission keeps its decision: no WeakMap entry,
  // which the garbage collector traces as an ephemeron, per request).
  const resolved = Symbol('client address');
  return (req) => {
    const known = req as IncomingMessage & { [resolved]?: string };
    return (known[resolved] ??= proxyAddress(req, trust));
  };
}
