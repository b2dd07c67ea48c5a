/**
 * The part of negotiator 1.x the answer cache uses (src/middleware/read-cache.ts). Its DefinitelyTyped
 * types (0.6) lack the `preferred` option of `encoding`, the server's order among encodings the client
 * takes equally, which the compression middleware passes; the cache must choose as it does.
 */
declare module 'negotiator' {
  import type { IncomingMessage } from 'node:http';

  class Negotiator {
    constructor(request: IncomingMessage);
    encoding(available?: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
  }
  export default Negotiator;
}
