/**
 * Which addresses server-side execution may call: the pure half of the SSRF guard (the
 * outbound client, src/clients/outbound.ts, applies it to every connection). A target must
 * be http or https, carry no credentials, use port 80, 443 or >= 1024, and its host must be
 * (or resolve only to) public unicast addresses, unless EXECUTE_ALLOW_HOSTS names it.
 * Range classification is ipaddr.js's, so no range list is written by hand here.
 */
import ipaddr from 'ipaddr.js';

export type TargetRule = 'url' | 'scheme' | 'userinfo' | 'port' | 'address';

export interface TargetRefusal {
  rule: TargetRule;
  /** One sentence for a person: the rule broken, never what an internal address holds. */
  message: string;
}

export interface CheckedTarget {
  /** WHATWG-parsed: 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 all read as 127.0.0.1. */
  url: URL;
  /** Lowercased, without brackets or a trailing dot. */
  hostname: string;
  port: number;
  /** The canonical address when the host is an IP literal. */
  literal: string | null;
  allowListed: boolean;
}

export const isRefusal = (value: CheckedTarget | TargetRefusal): value is TargetRefusal => 'rule' in value;

/** How each non-public range is named in a refusal. */
const RANGE_NAMES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address (this includes cloud metadata services)',
  cloudPlatform: 'a cloud platform service address',
  carrierGradeNat: 'a carrier-grade NAT address',
  unspecified: 'the unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved or documentation address',
  uniqueLocal: 'a unique-local (private) IPv6 address',
  ipv4Mapped: 'an IPv4-mapped IPv6 address',
  ipv4Compatible: 'an IPv4-compatible IPv6 address',
  rfc6145: 'an IPv4-translated IPv6 address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  deprecatedSiteLocal: 'a site-local IPv6 address',
};
/**
 * Cloud platform endpoints that sit in otherwise public ranges: reachable only from inside
 * the provider's network, where they answer with the instance's own secrets or control it.
 * Every other documented metadata address is already in a non-public range, and the tests
 * hold that too: 169.254.169.254 (AWS, Google Cloud, Azure IMDS, Oracle, OpenStack,
 * DigitalOcean, Hetzner, Linode), 169.254.170.2 (AWS ECS), 169.254.0.23 (Tencent),
 * 169.254.42.42 (Scaleway), fd00:ec2::254 (AWS IPv6), fd20:ce::254 (Google Cloud IPv6),
 * 100.100.100.200 (Alibaba Cloud), 192.0.0.192 (Oracle Cloud, legacy).
 */
export const CLOUD_PLATFORM_ADDRESSES: readonly { address: string; what: string; source: string }[] = [
  {
    address: '168.63.129.16',
    what: 'Azure platform address (WireServer: DHCP, DNS, health probes, the VM agent)',
    source: 'https://learn.microsoft.com/en-us/azure/virtual-network/what-is-ip-address-168-63-129-16',
  },
];
/** Platform endpoints known by name whose addresses are public (the address depends on where it is asked). */
export const CLOUD_PLATFORM_NAMES: readonly { name: string; what: string; source: string }[] = [
  {
    name: 'metadata.platformequinix.com',
    what: 'Equinix Metal instance metadata and user data',
    source: 'https://deploy.equinix.com/developers/docs/metal/server-metadata/metadata',
  },
  {
    name: 'metadata.packet.net',
    what: 'Equinix Metal (formerly Packet) instance metadata, older name',
    source: 'https://deploy.equinix.com/developers/docs/metal/server-metadata/metadata',
  },
];
const cloudPlatformAddresses = new Set(CLOUD_PLATFORM_ADDRESSES.map((entry) => ipaddr.parse(entry.address).toString()));
const cloudPlatformNames = new Set(CLOUD_PLATFORM_NAMES.map((entry) => entry.name));

const rangeName = (range: string) => RANGE_NAMES[range] ?? `a non-public address (${range})`;

/** EXECUTE_ALLOW_HOSTS: `host[:port],...` (IPv6 as `[::1]:8080`), lowercased, empties dropped. */
export function parseAllowHosts(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((entry) =>
      entry
        .trim()
        .toLowerCase()
        .replace(/\.$/, '')
        .replace(/\.(:\d+)$/, '$1'),
    )
    .filter(Boolean);
}

/**
 * How the allow-list exempts a host on a port: `host` on any allowed port, `host:port` on that
 * port, even one the port rule refuses (an entry's port is its own: it exempts no other host).
 */
export function allowListing(hostname: string, port: number, allowHosts: readonly string[]): 'host' | 'hostAndPort' | null {
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  if (allowHosts.includes(`${host}:${port}`)) return 'hostAndPort';
  return allowHosts.includes(host) || allowHosts.includes(hostname) ? 'host' : null;
}

/**
 * ipaddr.js's range of an address. IPv6 that embeds an IPv4 address (mapped ::ffff:a.b.c.d,
 * compatible ::a.b.c.d) gets a range of its own: it is never public, whatever it embeds.
 */
export function addressRange(ip: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(ip.replace(/^\[|\]$/g, ''));
  } catch {
    return 'invalid';
  }
  if (cloudPlatformAddresses.has(parsed.toString())) return 'cloudPlatform';
  if (parsed.kind() === 'ipv6') {
    const parts = (parsed as ipaddr.IPv6).parts;
    // ::/96 other than :: and ::1: the deprecated IPv4-compatible form.
    if (parts.slice(0, 6).every((part) => part === 0) && !(parts[6] === 0 && parts[7]! <= 1)) return 'ipv4Compatible';
  }
  return parsed.range();
}

export function isPublicAddress(ip: string): boolean {
  return addressRange(ip) === 'unicast';
}

/** Names that are never public, whatever DNS says: localhost and single-label (intranet) names. */
function internalName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || !hostname.includes('.');
}

/**
 * Checks a base URL before any DNS: scheme, credentials, port, and (unless allow-listed)
 * an IP literal's range or an internal name. Returns the target or the refusal.
 */
export function checkTargetUrl(raw: string, allowHosts: readonly string[]): CheckedTarget | TargetRefusal {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { rule: 'url', message: 'Must be an absolute http(s) URL, e.g. https://my-server.example.net' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { rule: 'scheme', message: `Only http and https are allowed, not ${url.protocol.slice(0, -1)}` };
  if (url.username || url.password) return { rule: 'userinfo', message: 'Must not contain a user name or password: send a key as apiKey' };
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const hostname = url.hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (!hostname) return { rule: 'url', message: 'Must name a host' };
  const listing = allowListing(hostname, port, allowHosts);
  const allowListed = listing !== null;
  if (!(port === 80 || port === 443 || port >= 1024) && listing !== 'hostAndPort')
    return { rule: 'port', message: `Port ${port} is not allowed: use 80, 443 or 1024-65535` };
  const literal =
    ipaddr.isValid(hostname) && (hostname.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(hostname))
      ? ipaddr.parse(hostname).toString()
      : null;
  if (!allowListed) {
    if (literal && !isPublicAddress(literal))
      return { rule: 'address', message: `${url.hostname} is ${rangeName(addressRange(literal))}; only public addresses can be reached` };
    if (!literal && cloudPlatformNames.has(hostname))
      return { rule: 'address', message: `${hostname} is ${rangeName('cloudPlatform')}; only public addresses can be reached` };
    if (!literal && internalName(hostname))
      return { rule: 'address', message: `${hostname} is a local or intranet name; only public addresses can be reached` };
  }
  return { url, hostname, port, literal, allowListed };
}

/** The refusal of a name whose addresses are not all public (null when they all are). */
export function checkResolvedAddresses(addresses: readonly string[]): TargetRefusal | null {
  if (addresses.length === 0) return { rule: 'url', message: 'The host name does not resolve' };
  const bad = addresses.find((address) => !isPublicAddress(address));
  if (!bad) return null;
  return { rule: 'address', message: `The host resolves to ${rangeName(addressRange(bad))}; only public addresses can be reached` };
}
