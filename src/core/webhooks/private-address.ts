/** IPv4 ranges a public webhook must not reach: [first octets as a 32-bit base, prefix length]. */
const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
];

/** The 32-bit value of a dotted-quad IPv4 address, or undefined. */
export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

/** The eight 16-bit groups of an IPv6 address (with `::` and an embedded IPv4 tail), or undefined. */
export function parseIpv6(text: string): number[] | undefined {
  let address = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  let tail: number[] = [];
  const lastColon = address.lastIndexOf(':');
  if (address.includes('.')) {
    const v4 = parseIpv4(address.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    const prefix = address.slice(0, lastColon + 1);
    address = prefix.endsWith('::') ? prefix : prefix.slice(0, -1);
  }
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const group = (part: string) => (part === '' ? [] : part.split(':'));
  const head = group(halves[0]!);
  const rest = halves.length === 2 ? group(halves[1]!) : [];
  const words: number[] = [];
  for (const piece of [...head, ...rest]) {
    if (!/^[0-9a-f]{1,4}$/i.test(piece)) return undefined;
  }
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  words.push(...head.map((piece) => parseInt(piece, 16)));
  if (halves.length === 2) for (let i = given; i < 8; i++) words.push(0);
  words.push(...rest.map((piece) => parseInt(piece, 16)), ...tail);
  return words.length === 8 ? words : undefined;
}

function inV4Range(value: number, base: string, bits: number): boolean {
  const size = 2 ** (32 - bits);
  const start = parseIpv4(base)!;
  return value >= start && value < start + size;
}

/**
 * Whether an IP address (v4 or v6 text) is loopback, private, link-local, or otherwise not a
 * public unicast address. Text that is no IP address answers false (resolve names first).
 */
export function isPrivateAddress(address: string): boolean {
  const v4 = parseIpv4(address);
  if (v4 !== undefined) return BLOCKED_V4.some(([base, bits]) => inV4Range(v4, base, bits));
  const v6 = parseIpv6(address);
  if (!v6) return false;
  const [a, b, c, d, e, f, g, h] = v6 as [number, number, number, number, number, number, number, number];
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0) {
    // ::, ::1, and IPv4-mapped (::ffff:a.b.c.d) or -compatible addresses: judge the IPv4 part.
    if (f === 0xffff || f === 0) {
      if (f === 0 && g === 0 && (h === 0 || h === 1)) return true;
      return isPrivateAddress(`${g >> 8}.${g & 255}.${h >> 8}.${h & 255}`);
    }
  }
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return isPrivateAddress(`${g >> 8}.${g & 255}.${h >> 8}.${h & 255}`); // NAT64
  if ((a & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((a & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((a & 0xffc0) === 0xfec0) return true; // site-local (deprecated) fec0::/10
  if ((a & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/** Whether a URL's host is an IP literal (v4, or v6 in brackets); names need resolving. */
export function isIpLiteral(hostname: string): boolean {
  return parseIpv4(hostname) !== undefined || parseIpv6(hostname) !== undefined;
}

/** Names that always mean this machine, whatever DNS says (RFC 6761). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
