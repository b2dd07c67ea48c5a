import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real Postgres, to cut the app off from its database
 * and reconnect it on cue: `forward` passes connections through, `refuse` closes the port
 * (and cuts the connections open through it), `silent` accepts connections and never
 * answers (a database host that stopped responding). In front of an HTTP server,
 * `cutAnswers` drops the connection instead of relaying an answer: the server did the work,
 * the client never hears of it. `delayAnswers` makes chosen connections hear the server late.
 */
export type ProxyMode = 'forward' | 'refuse' | 'silent';

export interface TcpProxy {
  /** The Postgres URL through the proxy (the target's, with the proxy's port). */
  url: string;
  setMode(mode: ProxyMode): Promise<void>;
  /** The next `count` requests whose first bytes are `requestStart` (e.g. 'POST /api/x ') get their connection cut when the answer arrives. */
  cutAnswers(requestStart: string, count?: number): void;
  /**
   * Connections whose client has sent `marker` (e.g. an application_name in the startup
   * message) get every answer relayed `ms` late, in order; the others are untouched.
   */
  delayAnswers(marker: string, ms: number): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  let mode: ProxyMode = 'forward';
  const cut = { requestStart: '', remaining: 0 };
  const delay = { marker: '', ms: 0 };
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (mode === 'refuse') return client.destroy(); // accepted just before the port closed
    if (mode === 'silent') return;
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    track(upstream);
    let cutting = false;
    let delayMs = 0;
    client.on('data', (chunk: Buffer) => {
      if (cut.remaining > 0 && chunk.toString('latin1').startsWith(cut.requestStart)) {
        cut.remaining -= 1;
        cutting = true;
      }
      if (delay.marker && chunk.includes(delay.marker)) delayMs = delay.ms;
    });
    // Answers are relayed here rather than piped, so one to cut is never relayed and one to
    // delay waits its turn (timers of one length fire in the order they were set).
    upstream.on('data', (chunk: Buffer) => {
      if (cutting) return client.destroy();
      if (delayMs > 0) setTimeout(() => client.write(chunk), delayMs);
      else client.write(chunk);
    });
    client.pipe(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stopListening = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };

  await listen(0);
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  return {
    url: url.toString(),
    cutAnswers(requestStart, count = 1) {
      Object.assign(cut, { requestStart, remaining: count });
    },
    delayAnswers(marker, ms) {
      Object.assign(delay, { marker, ms });
    },
    async setMode(next) {
      if (next === mode) return;
      const wasListening = mode !== 'refuse';
      mode = next;
      cutAll();
      if (next === 'refuse' && wasListening) await stopListening();
      if (next !== 'refuse' && !wasListening) await listen(port);
    },
    async close() {
      cutAll();
      if (mode !== 'refuse') await stopListening();
    },
  };
}
