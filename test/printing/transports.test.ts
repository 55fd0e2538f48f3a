// The printer transports against real endpoints: a TCP printer on 127.0.0.1, serialport's own mock binding
// for serial bytes, and the usb package on a machine with no such device. Status bits per ESC/POS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SerialPortMock } from 'serialport';
import {
  isStatusByte,
  parseStatusBytes,
  problemOf,
  unreachableStatus,
} from '../../src-main/printing/status.ts';
import { networkTransport } from '../../src-main/printing/transports/network.ts';
import { serialTransport, type SerialPortLike } from '../../src-main/printing/transports/serial.ts';
import { usbTransport } from '../../src-main/printing/transports/usb.ts';
import { PrintError } from '../../src-main/printing/transports/channel.ts';
import { closedPort, FakePrinter, STATUS } from './fake-printer.ts';

describe('DLE EOT status bytes', () => {
  it('reads the Epson bits: ready, paper near end, paper out, cover open, error', () => {
    expect(parseStatusBytes(STATUS.ready)).toMatchObject({
      online: true,
      paperOut: false,
      paperNearEnd: false,
      coverOpen: false,
      error: false,
    });
    expect(parseStatusBytes(STATUS.paperNearEnd)).toMatchObject({
      online: true,
      paperNearEnd: true,
      paperOut: false,
    });
    const out = parseStatusBytes(STATUS.paperOut);
    expect(out).toMatchObject({ online: false, paperOut: true, coverOpen: false });
    expect(problemOf(out)).toBe('paper_out');
    const cover = parseStatusBytes(STATUS.coverOpen);
    expect(cover).toMatchObject({ online: false, coverOpen: true, paperOut: false });
    expect(problemOf(cover)).toBe('cover_open');
    expect(problemOf(parseStatusBytes({ printer: 0x12, offline: 0x52, paper: 0x12 }))).toBe('printer_error');
    expect(problemOf(parseStatusBytes({ printer: 0x1a, offline: 0x12, paper: 0x12 }))).toBe('offline');
    expect(problemOf(parseStatusBytes(STATUS.paperNearEnd))).toBeNull();
    expect(problemOf(unreachableStatus('refused'))).toBe('offline');
    expect(problemOf(unreachableStatus('gone', 'device_not_found'))).toBe('device_not_found');
  });

  it('tells status bytes (0xx1xx10) from stray data', () => {
    for (const b of [0x12, 0x16, 0x1a, 0x1e, 0x32, 0x72, 0x52]) expect(isStatusByte(b)).toBe(true);
    for (const b of [0x00, 0x10, 0x13, 0x41, 0xff, 0x92]) expect(isStatusByte(b)).toBe(false);
  });
});

describe('network transport (TCP 9100)', () => {
  const printer = new FakePrinter();
  let port = 0;
  beforeAll(async () => {
    port = await printer.listen();
  });
  afterAll(() => printer.close());

  it('asks DLE EOT 1, 2, 4 and reports paper near end as printable', async () => {
    printer.status = STATUS.paperNearEnd;
    const status = await networkTransport({
      host: '127.0.0.1',
      porta: port,
      permitirRedeLocal: true,
    }).status();
    expect(status).toMatchObject({ reachable: true, statusReported: true, online: true, paperNearEnd: true });
    expect(printer.queries.slice(-3)).toEqual([1, 2, 4]);
    printer.status = STATUS.ready;
  });

  it('print: status first, then the bytes, exactly, on the same connection', async () => {
    const before = printer.jobs.length;
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7 + 3) % 256);
    bytes[0] = 0x1b; // ESC @ starts every job; the printer sees no stray status query in the data
    bytes[1] = 0x40;
    await networkTransport({ host: '127.0.0.1', porta: port, permitirRedeLocal: true }).print(bytes);
    const [job] = (await printer.waitForJobs(before + 1)).slice(before);
    expect(job?.equals(Buffer.from(bytes))).toBe(true);
  });

  it('paper out: PrintError paper_out and nothing sent', async () => {
    printer.status = STATUS.paperOut;
    const before = printer.jobs.length;
    const error = await networkTransport({ host: '127.0.0.1', porta: port, permitirRedeLocal: true })
      .print(Uint8Array.of(0x1b, 0x40, 0x41))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PrintError);
    expect((error as PrintError).problem).toBe('paper_out');
    expect(printer.jobs.length).toBe(before);
    printer.status = STATUS.ready;
  });

  it('a printer that does not answer status still prints (status not reported)', async () => {
    printer.answersStatus = false;
    try {
      const transport = networkTransport(
        { host: '127.0.0.1', porta: port, permitirRedeLocal: true },
        { statusTimeoutMs: 100 },
      );
      expect(await transport.status()).toMatchObject({
        reachable: true,
        statusReported: false,
        online: true,
      });
      const before = printer.jobs.length;
      await transport.print(Uint8Array.of(0x1b, 0x40, 0x42, 0x0a));
      const [job] = (await printer.waitForJobs(before + 1)).slice(before);
      expect([...(job ?? [])]).toEqual([0x1b, 0x40, 0x42, 0x0a]);
    } finally {
      printer.answersStatus = true;
    }
  });

  it('closed port: status offline (unreachable), print throws offline', async () => {
    const transport = networkTransport({
      host: '127.0.0.1',
      porta: await closedPort(),
      permitirRedeLocal: true,
    });
    const status = await transport.status();
    expect(status).toMatchObject({ reachable: false, online: false });
    expect(status.detail).toContain('ECONNREFUSED');
    expect(problemOf(status)).toBe('offline');
    await expect(transport.print(Uint8Array.of(1))).rejects.toMatchObject({ problem: 'offline' });
  });
});

describe('serial transport (serialport with its mock binding)', () => {
  const path = '/dev/ttyFAKEPRINTER';
  let status: { printer: number; offline: number; paper: number } = STATUS.ready;
  const ports: SerialPortMock[] = [];
  /** Plays the printer on the mock port: answers DLE EOT from `status`, records the rest. */
  const openPort = (p: string, baudRate: number): SerialPortLike => {
    const port = new SerialPortMock({ path: p, baudRate, autoOpen: false });
    port.on('open', () => {
      const binding = port.port;
      if (binding === undefined) return;
      const write = binding.write.bind(binding);
      binding.write = async (buffer: Buffer) => {
        await write(buffer);
        if (buffer.length === 3 && buffer[0] === 0x10 && buffer[1] === 0x04) {
          const answer = buffer[2] === 1 ? status.printer : buffer[2] === 2 ? status.offline : status.paper;
          binding.emitData(Buffer.of(answer));
        }
      };
    });
    ports.push(port);
    return port;
  };
  beforeAll(() => SerialPortMock.binding.createPort(path, { record: true }));
  afterAll(() => SerialPortMock.binding.reset());

  const recorded = () => ports.at(-1)?.port?.recording ?? Buffer.alloc(0);

  it('status over the serial line, at the configured rate', async () => {
    status = STATUS.coverOpen;
    const result = await serialTransport({ caminho: path, baudRate: 19200 }, { openPort }).status();
    expect(result).toMatchObject({ reachable: true, statusReported: true, coverOpen: true });
    expect(ports.at(-1)?.baudRate).toBe(19200);
    status = STATUS.ready;
  });

  it('print: the status queries, then the job bytes, reach the port', async () => {
    const bytes = Uint8Array.of(0x1b, 0x40, 0x1b, 0x74, 0x02, 0x4f, 0x4c, 0xc7, 0x0a, 0x1d, 0x56, 0x41, 0x03);
    await serialTransport({ caminho: path, baudRate: 9600 }, { openPort }).print(bytes);
    expect([...recorded()]).toEqual([0x10, 0x04, 0x01, 0x10, 0x04, 0x02, 0x10, 0x04, 0x04, ...bytes]);
    expect(ports.at(-1)?.isOpen).toBe(false);
  });

  it('paper out on the serial printer: nothing but the queries is sent', async () => {
    status = STATUS.paperOut;
    const error = await serialTransport({ caminho: path, baudRate: 9600 }, { openPort })
      .print(Uint8Array.of(0x1b, 0x40))
      .catch((e: unknown) => e);
    expect((error as PrintError).problem).toBe('paper_out');
    expect([...recorded()]).toEqual([0x10, 0x04, 0x01, 0x10, 0x04, 0x02, 0x10, 0x04, 0x04]);
    status = STATUS.ready;
  });

  it('a port that does not exist: device_not_found', async () => {
    const transport = serialTransport({ caminho: '/dev/ttyNOPE', baudRate: 9600 }, { openPort });
    await expect(transport.print(Uint8Array.of(1))).rejects.toMatchObject({ problem: 'device_not_found' });
    expect(await transport.status()).toMatchObject({ reachable: false, unreachable: 'device_not_found' });
  });
});

describe('USB transport', () => {
  it('no such device here: a clear device_not_found, for print and for status', async () => {
    const transport = usbTransport({ vendorId: 0x0416, productId: 0x5011 });
    const error = await transport.print(Uint8Array.of(0x1b, 0x40)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PrintError);
    expect((error as PrintError).problem).toBe('device_not_found');
    expect((error as PrintError).message).toMatch(/^USB 0416:5011: device not found/);
    const status = await transport.status();
    expect(status).toMatchObject({ reachable: false, online: false, unreachable: 'device_not_found' });
    expect(problemOf(status)).toBe('device_not_found');
  });
});
