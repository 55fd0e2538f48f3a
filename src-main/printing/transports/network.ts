// Network printers: a raw TCP socket to host:porta (9100, "JetDirect"/AppSocket), which every Ethernet and
// Wi-Fi ESC/POS printer offers; status answers come back on the same socket.
import net from 'node:net';
import { printerAddressProblem } from '../../../src-shared/contracts/printers.ts';
import { lookupRefusing } from '../../net-lookup.ts';
import { ChannelTransport, IncomingBytes, PrintError, withTimeout, type Channel } from './channel.ts';

export interface NetworkOptions {
  connectTimeoutMs: number;
  /** Base time for a write to leave this machine; a printer that stops reading (full buffer) times out. */
  writeTimeoutMs: number;
  statusTimeoutMs: number;
  /** How long close waits for the printer to take the last bytes and close its side. */
  closeTimeoutMs: number;
}

export const NETWORK_DEFAULTS: NetworkOptions = {
  connectTimeoutMs: 3000,
  writeTimeoutMs: 15_000,
  statusTimeoutMs: 1000,
  closeTimeoutMs: 2000,
};

const errorText = (error: NodeJS.ErrnoException) => error.code ?? error.message;

/**
 * Opens the socket only to an address the printer may have: a literal is checked here (Node skips the lookup
 * for it), a name on every address it resolves to, so nothing is ever sent to a refused address.
 */
export function openNetworkChannel(
  host: string,
  port: number,
  options: NetworkOptions,
  permitirRedeLocal = false,
): Promise<Channel> {
  const target = `${host}:${port}`;
  if (net.isIP(host) !== 0) {
    const problem = printerAddressProblem(host, permitirRedeLocal);
    if (problem !== null) return Promise.reject(new PrintError('offline', `${target}: refused: ${problem}`));
  }
  return new Promise<Channel>((resolve, reject) => {
    const socket = net.connect({
      host,
      port,
      lookup: lookupRefusing((address) => {
        const problem = printerAddressProblem(address, permitirRedeLocal);
        return problem === null ? null : `resolves to a refused address (${problem})`;
      }),
    });
    const incoming = new IncomingBytes();
    let failure: PrintError | undefined;
    const connectTimer = setTimeout(() => {
      socket.destroy();
      reject(new PrintError('offline', `${target}: no answer within ${options.connectTimeoutMs} ms`));
    }, options.connectTimeoutMs);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(connectTimer);
      failure = new PrintError('offline', `${target}: ${errorText(error)}`);
      incoming.end();
      reject(failure);
    });
    socket.on('data', (chunk: Buffer) => incoming.push(chunk));
    socket.on('end', () => incoming.end());
    socket.once('connect', () => {
      clearTimeout(connectTimer);
      socket.setNoDelay(true);
      resolve({
        write: (bytes) => {
          if (failure !== undefined) return Promise.reject(failure);
          const sent = new Promise<void>((done, fail) => {
            socket.write(bytes, (error) =>
              error ? fail(failure ?? new PrintError('offline', `${target}: ${error.message}`)) : done(),
            );
          });
          return withTimeout(sent, options.writeTimeoutMs, `sending to ${target}`, () => socket.destroy());
        },
        read: (length, timeoutMs) => incoming.read(length, timeoutMs),
        close: () =>
          new Promise<void>((done) => {
            if (socket.destroyed) return done();
            const timer = setTimeout(() => {
              socket.destroy();
              done();
            }, options.closeTimeoutMs);
            socket.once('close', () => {
              clearTimeout(timer);
              done();
            });
            // end() flushes what is queued, then half-closes; the printer closes its side when it has it all.
            socket.end();
          }),
      });
    });
  });
}

export function networkTransport(
  conexao: { host: string; porta: number; permitirRedeLocal?: boolean },
  options: Partial<NetworkOptions> = {},
): ChannelTransport {
  const o = { ...NETWORK_DEFAULTS, ...options };
  return new ChannelTransport(
    `${conexao.host}:${conexao.porta}`,
    () => openNetworkChannel(conexao.host, conexao.porta, o, conexao.permitirRedeLocal === true),
    { statusMs: o.statusTimeoutMs },
  );
}
