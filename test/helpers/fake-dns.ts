/**
 * A fake DNS server: UDP on 127.0.0.1 (random port), answering A and AAAA queries from a
 * table a test changes at will, with TTL 0. An answer may depend on how many times the
 * name was asked (the DNS-rebinding case: public first, loopback afterwards).
 */
import dgram from 'node:dgram';
import { Resolver as DnsResolver } from 'node:dns/promises';
import * as packet from 'dns-packet';
import type { Resolver } from '../../src/clients/outbound.ts';

type Answers = string[] | ((queryCount: number) => string[]);

export interface FakeDns {
  port: number;
  /** The addresses a name resolves to (IPv4 and IPv6 mixed; A queries get the IPv4 ones, AAAA the IPv6 ones). */
  setAnswers(name: string, answers: Answers): void;
  /** How many lookups of the name were made (an A and an AAAA query count as one lookup each, so about 2 per resolution). */
  queries(name: string): number;
  close(): Promise<void>;
}

export async function startFakeDns(): Promise<FakeDns> {
  const table = new Map<string, Answers>();
  const counts = new Map<string, number>();
  const socket = dgram.createSocket('udp4');
  socket.on('message', (message, remote) => {
    let query: packet.Packet;
    try {
      query = packet.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    const count = (counts.get(name) ?? 0) + 1;
    counts.set(name, count);
    const entry = table.get(name);
    // One resolution asks A and AAAA: count resolutions by A queries.
    const addresses = entry === undefined ? null : typeof entry === 'function' ? entry(Math.ceil(count / 2)) : entry;
    const wanted = question.type === 'AAAA' ? (a: string) => a.includes(':') : (a: string) => !a.includes(':');
    const answers = (addresses ?? [])
      .filter(wanted)
      .map((data) => ({ type: question.type as 'A' | 'AAAA', name: question.name, ttl: 0, class: 'IN' as const, data }));
    const response = packet.encode({
      type: 'response',
      id: query.id,
      flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | (addresses === null ? 3 : 0), // rcode 3: NXDOMAIN
      questions: query.questions,
      answers,
    });
    socket.send(response, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = socket.address().port;
  return {
    port,
    setAnswers(name, answers) {
      table.set(name.toLowerCase(), answers);
      counts.delete(name.toLowerCase());
    },
    queries: (name) => counts.get(name.toLowerCase()) ?? 0,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** A resolver asking only the fake server (A and AAAA; a family with no answer is skipped). */
export function resolverFor(dns: FakeDns): Resolver {
  const resolver = new DnsResolver({ timeout: 500, tries: 1 });
  resolver.setServers([`127.0.0.1:${dns.port}`]);
  const ask = async (family: 4 | 6, hostname: string) => {
    try {
      const addresses = family === 4 ? await resolver.resolve4(hostname) : await resolver.resolve6(hostname);
      return addresses.map((address) => ({ address, family }));
    } catch {
      return [];
    }
  };
  return async (hostname) => {
    const all = [...(await ask(4, hostname)), ...(await ask(6, hostname))];
    if (all.length === 0) throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return all;
  };
}
