// A TCP relay between a service and its PostgreSQL server that a test can make fail the way networks do: go
// silent (packets dropped both ways, connections left open, as in a partition) or reset every connection.
import net, { type AddressInfo } from 'node:net';

export interface StoreProxy {
  /** The database URL through the relay. */
  url: string;
  /** From now on nothing is relayed either way, on open connections and new ones; nothing is closed. */
  silence(): void;
  /** Relays again. Connections opened or silenced meanwhile are reset: their protocol state is lost. */
  resume(): void;
  /** Resets every connection now (RST), as a restarted server or a dropped route does. */
  reset(): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  server: net.Socket | null;
}

export async function startStoreProxy(databaseUrl: string): Promise<StoreProxy> {
  const target = new URL(databaseUrl);
  const pairs = new Set<Pair>();
  let silent = false;

  const drop = (pair: Pair): void => {
    pairs.delete(pair);
    pair.client.resetAndDestroy();
    pair.server?.resetAndDestroy();
  };

  const relay = (pair: Pair): void => {
    const server = net.connect(Number(target.port), target.hostname);
    pair.server = server;
    server.on('error', () => drop(pair));
    // Not pipe(): a silenced relay must hold what arrives instead of passing it on later.
    pair.client.on('data', (chunk) => {
      if (!silent) server.write(chunk);
    });
    server.on('data', (chunk) => {
      if (!silent) pair.client.write(chunk);
    });
    server.on('close', () => drop(pair));
  };

  const listener = net.createServer((client) => {
    const pair: Pair = { client, server: null };
    pairs.add(pair);
    client.on('error', () => drop(pair));
    client.on('close', () => {
      // A client that goes away while the relay is silent leaves its server side open: the server must not
      // learn of it (a partition), until resume().
      if (!silent) drop(pair);
    });
    if (!silent) relay(pair);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as AddressInfo).port;
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  return {
    url: url.toString(),
    silence: () => {
      silent = true;
    },
    resume: () => {
      for (const pair of [...pairs]) drop(pair);
      silent = false;
    },
    reset: () => {
      for (const pair of [...pairs]) drop(pair);
    },
    close: () => {
      for (const pair of [...pairs]) drop(pair);
      return new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
