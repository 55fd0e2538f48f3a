// The one classification of network addresses: what an IP literal or host name is (loopback, link-local, a
// cloud metadata service, the shop's LAN, reserved...). Webhooks and network printers apply their own policy
// over it, so a range is added in one place for both.

/**
 * - `public`: a global unicast address, or a host name that says nothing until it is resolved.
 * - `lan`: RFC 1918 private ranges and IPv6 unique-local (fc00::/7): where receipt printers live.
 * - `shared`: carrier-grade NAT (100.64.0.0/10, RFC 6598).
 * - `loopback`: 127.0.0.0/8, ::1, `localhost` and names under `.localhost` (RFC 6761).
 * - `link-local`: 169.254.0.0/16 and fe80::/10.
 * - `metadata`: the instance metadata services of cloud hosts (credentials live there).
 * - `local-name`: a name that only resolves inside a network (single label, `.local`, `.lan`...).
 * - `reserved`: never a unicast host: this-network, multicast, broadcast, documentation and benchmarking
 *   ranges, IETF protocol assignments, future use.
 */
export type AddressKind =
  'public' | 'lan' | 'shared' | 'loopback' | 'link-local' | 'metadata' | 'local-name' | 'reserved';

function parseIpv4(host: string): number[] | null {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? bytes : null;
}

/** AWS/GCP/Azure/OpenStack (169.254.169.254), AWS ECS task metadata, Alibaba Cloud. */
const IPV4_METADATA = ['169.254.169.254', '169.254.170.2', '100.100.100.200'];

function classifyIpv4(bytes: number[]): AddressKind {
  const [a, b, c, d] = bytes;
  if (a === undefined || b === undefined || c === undefined || d === undefined) return 'reserved';
  if (IPV4_METADATA.includes(`${a}.${b}.${c}.${d}`)) return 'metadata';
  // RFC 6890: "this network" (0/8), multicast (224/4), future use (240/4) and broadcast.
  if (a === 0 || a >= 224) return 'reserved';
  if (a === 127) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'lan';
  if (a === 100 && b >= 64 && b <= 127) return 'shared';
  if (a === 192 && b === 0 && c === 0) return 'reserved'; // IETF protocol assignments (RFC 6890)
  // RFC 5737 documentation (TEST-NET-1/2/3): examples in books and manuals, never a real host.
  if (
    (a === 192 && b === 0 && c === 2) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113)
  )
    return 'reserved';
  if (a === 198 && (b === 18 || b === 19)) return 'reserved'; // benchmarking (RFC 2544)
  if (a === 192 && b === 88 && c === 99) return 'reserved'; // deprecated 6to4 relay anycast (RFC 7526)
  return 'public';
}

/** Expands an IPv6 text (with an optional dotted IPv4 tail) into its eight 16-bit groups. */
function parseIpv6(text: string): number[] | null {
  let host = text.replace(/%.*$/, ''); // a zone id (fe80::1%eth0) names the interface, not the address
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  if (dotted !== null) {
    const v4 = parseIpv4(dotted[2] ?? '');
    if (v4 === null) return null;
    const [a = 0, b = 0, c = 0, d = 0] = v4;
    host = `${dotted[1] ?? ''}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = host.split('::');
  if (halves.length > 2) return null;
  const toGroups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = toGroups(halves[0] ?? '');
  const rest = halves.length === 2 ? toGroups(halves[1] ?? '') : [];
  if (![...head, ...rest].every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  const known = head.length + rest.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return null;
  const zeros = new Array<number>(8 - known).fill(0);
  return [...head, ...zeros.map(String), ...rest].map((g) => parseInt(g, 16));
}

function classifyIpv6(groups: number[]): AddressKind {
  const [g0 = 0, g1 = 0, g2 = 0, , , g5 = 0, g6 = 0, g7 = 0] = groups;
  const embedded = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
  const firstFiveZero = groups.slice(0, 5).every((g) => g === 0);
  if (firstFiveZero && g5 === 0xffff) return classifyIpv4(embedded); // IPv4-mapped
  if (groups.slice(0, 7).every((g) => g === 0)) return g7 === 1 ? 'loopback' : 'reserved'; // ::1 and ::
  if (g0 === 0x64 && g1 === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return classifyIpv4(embedded);
  if (g0 === 0x2002) return classifyIpv4([g1 >> 8, g1 & 0xff, g2 >> 8, g2 & 0xff]); // 6to4
  // AWS's IPv6 instance metadata endpoint, fd00:ec2::254.
  if (g0 === 0xfd00 && g1 === 0x0ec2 && groups.slice(2, 7).every((g) => g === 0) && g7 === 0x254)
    return 'metadata';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xfe00) === 0xfc00) return 'lan'; // unique local
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved'; // documentation (RFC 3849)
  if (g0 === 0x3fff && g1 < 0x1000) return 'reserved'; // documentation (RFC 9637, 3fff::/20)
  if (g0 === 0x2001 && g1 < 0x0200) return 'reserved'; // IETF protocol assignments (2001::/23)
  // Global unicast is 2000::/3; multicast and the unassigned rest are never a host.
  return (g0 & 0xe000) === 0x2000 ? 'public' : 'reserved';
}

/** Names that only resolve inside a network: single labels, mDNS and private-use suffixes. */
const LOCAL_SUFFIXES = ['.local', '.internal', '.lan', '.home.arpa'];

/** Classifies a literal address or host name as it appears in a URL or a setting (IPv6 with or without []). */
export function addressKind(hostname: string): AddressKind {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  const v4 = parseIpv4(host);
  if (v4 !== null) return classifyIpv4(v4);
  if (host.includes(':')) {
    const v6 = parseIpv6(host);
    return v6 === null ? 'reserved' : classifyIpv6(v6);
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  if (!host.includes('.') || LOCAL_SUFFIXES.some((s) => host.endsWith(s))) return 'local-name';
  return 'public';
}
