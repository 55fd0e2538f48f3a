// Serial printers (RS-232, or USB adapters seen as COMn / /dev/ttyUSBn) through the serialport package,
// loaded only when a serial printer is used so a machine without its native binding still runs.
import { ChannelTransport, IncomingBytes, PrintError, withTimeout, type Channel } from './channel.ts';

/** The part of serialport's stream we use; tests pass serialport's own mock binding through `openPort`. */
export interface SerialPortLike {
  readonly isOpen: boolean;
  open(callback: (error: Error | null) => void): void;
  write(data: Buffer, callback: (error: Error | null | undefined) => void): boolean;
  drain(callback: (error: Error | null) => void): void;
  close(callback: (error: Error | null) => void): void;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'error' | 'close', listener: (error?: Error | null) => void): unknown;
}

export type SerialPortFactory = (path: string, baudRate: number) => SerialPortLike | Promise<SerialPortLike>;

export interface SerialOptions {
  openTimeoutMs: number;
  /** Added to the time the bytes need on the wire at the port's rate (10 bits a byte). */
  writeTimeoutMs: number;
  statusTimeoutMs: number;
  openPort: SerialPortFactory;
}

const systemPort: SerialPortFactory = async (path, baudRate) => {
  const { SerialPort } = await import('serialport');
  return new SerialPort({ path, baudRate, autoOpen: false });
};

export const SERIAL_DEFAULTS: SerialOptions = {
  openTimeoutMs: 3000,
  writeTimeoutMs: 10_000,
  statusTimeoutMs: 1000,
  openPort: systemPort,
};

const MISSING = /no such file|does not exist|not found|cannot find|enoent|file ?not ?found/i;

function callback(run: (cb: (error: Error | null | undefined) => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => run((error) => (error ? reject(error) : resolve())));
}

export async function openSerialChannel(
  path: string,
  baudRate: number,
  options: SerialOptions,
): Promise<Channel> {
  let port: SerialPortLike;
  try {
    port = await options.openPort(path, baudRate);
    await withTimeout(
      callback((cb) => port.open(cb)),
      options.openTimeoutMs,
      `opening ${path}`,
    );
  } catch (error) {
    if (error instanceof PrintError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new PrintError(MISSING.test(message) ? 'device_not_found' : 'offline', `${path}: ${message}`);
  }
  const incoming = new IncomingBytes();
  port.on('data', (chunk) => incoming.push(chunk));
  port.on('error', () => incoming.end());
  port.on('close', () => incoming.end());
  return {
    write: async (bytes) => {
      const wireMs = Math.ceil(((bytes.length * 10) / baudRate) * 1000);
      const sent = (async () => {
        await callback((cb) => port.write(Buffer.from(bytes), cb));
        // drain waits for the operating system to hand every byte to the wire.
        await callback((cb) => port.drain(cb));
      })().catch((error: unknown) => {
        if (error instanceof PrintError) throw error;
        throw new PrintError(
          'io_error',
          `${path}: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
      await withTimeout(sent, options.writeTimeoutMs + wireMs, `sending to ${path}`);
    },
    read: (length, timeoutMs) => incoming.read(length, timeoutMs),
    close: async () => {
      if (!port.isOpen) return;
      await callback((cb) => port.close(cb)).catch(() => undefined);
    },
  };
}

export function serialTransport(
  conexao: { caminho: string; baudRate: number },
  options: Partial<SerialOptions> = {},
): ChannelTransport {
  const o = { ...SERIAL_DEFAULTS, ...options };
  return new ChannelTransport(
    conexao.caminho,
    () => openSerialChannel(conexao.caminho, conexao.baudRate, o),
    {
      statusMs: o.statusTimeoutMs,
    },
  );
}
