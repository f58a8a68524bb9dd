import { createSocket, type Socket } from 'node:dgram';
import dnsPacket from 'dns-packet';

/** Records a test DNS server answers: name → type → values (TXT values are whole strings). */
export type Zone = Record<string, { TXT?: string[]; A?: string[]; AAAA?: string[]; MX?: Array<{ exchange: string; priority: number }> }>;

/** A DNS server on loopback UDP for tests; never the internet. */
export interface TestDnsServer {
  /** `127.0.0.1:PORT`, for `--dns-server` and `dnsServer`. */
  address: string;
  /** The zone, changed in place by tests. */
  zone: Zone;
  /** Questions asked so far, `name TYPE`. */
  asked: string[];
  close(): Promise<void>;
}

/** Splits a TXT value into character-strings of at most 255 bytes, as a zone would publish it. */
function txtStrings(value: string): Buffer[] {
  const bytes = Buffer.from(value);
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length || parts.length === 0; at += 255) parts.push(bytes.subarray(at, at + 255));
  return parts;
}

/**
 * Starts a DNS server (packets by the `dns-packet` library) that answers from `zone`: the records
 * of a name and type, NOERROR without records when the name has others, NXDOMAIN otherwise. With
 * `silent` it reads every question and answers none (a resolver that times out).
 */
export async function startDnsServer(zone: Zone = {}, options: { silent?: boolean } = {}): Promise<TestDnsServer> {
  const socket: Socket = createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (message, remote) => {
    let query;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    asked.push(`${question.name} ${question.type}`);
    if (options.silent) return;
    const entry = Object.entries(zone).find(([name]) => name.toLowerCase() === question.name.toLowerCase())?.[1];
    const answers: dnsPacket.Answer[] = [];
    const base = { name: question.name, ttl: 60, class: 'IN' as const };
    if (entry && question.type === 'TXT') for (const value of entry.TXT ?? []) answers.push({ ...base, type: 'TXT', data: txtStrings(value) });
    if (entry && question.type === 'A') for (const value of entry.A ?? []) answers.push({ ...base, type: 'A', data: value });
    if (entry && question.type === 'AAAA') for (const value of entry.AAAA ?? []) answers.push({ ...base, type: 'AAAA', data: value });
    if (entry && question.type === 'MX') for (const value of entry.MX ?? []) answers.push({ ...base, type: 'MX', data: { exchange: value.exchange, preference: value.priority } });
    const response = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | dnsPacket.AUTHORITATIVE_ANSWER,
      rcode: entry ? 'NOERROR' : 'NXDOMAIN',
      questions: [question],
      answers,
    } as dnsPacket.Packet);
    socket.send(response, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    zone,
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
