// USB printers through the usb package: find the device by vendorId/productId, claim its printer-class
// interface (detaching the operating system's driver where it holds it), write on the bulk OUT endpoint and
// read status answers on bulk IN. The package is loaded only when a USB printer is used.
import { ChannelTransport, IncomingBytes, PrintError, type Channel } from './channel.ts';

/** USB base class 07h: printer (USB Device Class Definition for Printing Devices 1.1 §4.1). */
const PRINTER_CLASS = 0x07;

interface UsbEndpointLike {
  endpointNumber: number;
  direction: 'in' | 'out';
  type: 'bulk' | 'interrupt' | 'isochronous';
}
interface UsbInterfaceLike {
  interfaceNumber: number;
  alternate: { interfaceClass: number; endpoints: UsbEndpointLike[] };
}
/** The part of the usb package's device we use (its own typings lean on the WebUSB DOM types). */
export interface UsbDeviceLike {
  readonly configuration: { interfaces: UsbInterfaceLike[] } | null;
  open(): Promise<void>;
  close(): Promise<void>;
  selectConfiguration(value: number): Promise<void>;
  claimInterface(n: number): Promise<void>;
  releaseInterface(n: number): Promise<void>;
  detachKernelDriver(n: number): Promise<void>;
  attachKernelDriver(n: number): Promise<void>;
  nativeTransferOut(endpoint: number, timeoutMs: number, data: Uint8Array): Promise<number>;
  nativeTransferIn(endpoint: number, timeoutMs: number, length: number): Promise<Uint8Array | null>;
}

export type UsbFinder = (vendorId: number, productId: number) => Promise<UsbDeviceLike | undefined>;

export interface UsbOptions {
  writeTimeoutMs: number;
  statusTimeoutMs: number;
  find: UsbFinder;
}

const systemFinder: UsbFinder = async (vendorId, productId) => {
  const { usb } = await import('usb');
  return (await usb.findDeviceByIds(vendorId, productId)) as unknown as UsbDeviceLike | undefined;
};

export const USB_DEFAULTS: UsbOptions = { writeTimeoutMs: 15_000, statusTimeoutMs: 1000, find: systemFinder };

export const usbTarget = (vendorId: number, productId: number) =>
  `USB ${vendorId.toString(16).padStart(4, '0')}:${productId.toString(16).padStart(4, '0')}`;

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The printer-class interface, or else the first one with a bulk OUT endpoint (vendor-class printers). */
function printerInterface(device: UsbDeviceLike): UsbInterfaceLike | undefined {
  const interfaces = device.configuration?.interfaces ?? [];
  const bulkOut = (i: UsbInterfaceLike) =>
    i.alternate.endpoints.some((e) => e.direction === 'out' && e.type === 'bulk');
  return (
    interfaces.find((i) => i.alternate.interfaceClass === PRINTER_CLASS && bulkOut(i)) ??
    interfaces.find(bulkOut)
  );
}

export async function openUsbChannel(
  vendorId: number,
  productId: number,
  options: UsbOptions,
): Promise<Channel> {
  const target = usbTarget(vendorId, productId);
  let device: UsbDeviceLike | undefined;
  try {
    device = await options.find(vendorId, productId);
  } catch (error) {
    // No USB subsystem to look in (a container, missing permissions to list devices) is "not found" too.
    throw new PrintError('device_not_found', `${target}: device not found (${message(error)})`);
  }
  if (device === undefined) throw new PrintError('device_not_found', `${target}: device not found`);
  const dev = device;
  try {
    await dev.open();
    if (dev.configuration === null) await dev.selectConfiguration(1);
  } catch (error) {
    throw new PrintError('offline', `${target}: cannot open the device (${message(error)})`);
  }
  const iface = printerInterface(dev);
  const out = iface?.alternate.endpoints.find((e) => e.direction === 'out' && e.type === 'bulk');
  if (iface === undefined || out === undefined) {
    await dev.close().catch(() => undefined);
    throw new PrintError('device_not_found', `${target}: the device has no printer interface`);
  }
  const inEndpoint = iface.alternate.endpoints.find((e) => e.direction === 'in' && e.type === 'bulk');
  // Linux binds usblp to printer-class interfaces; it must let go before we can claim the interface.
  let detached = false;
  try {
    await dev.detachKernelDriver(iface.interfaceNumber);
    detached = true;
  } catch {
    // No driver attached, or not Linux.
  }
  try {
    await dev.claimInterface(iface.interfaceNumber);
  } catch (error) {
    await dev.close().catch(() => undefined);
    throw new PrintError(
      'offline',
      `${target}: interface ${iface.interfaceNumber} is busy (${message(error)})`,
    );
  }
  const incoming = new IncomingBytes();
  return {
    write: async (bytes) => {
      try {
        await dev.nativeTransferOut(out.endpointNumber, options.writeTimeoutMs, bytes);
      } catch (error) {
        const text = message(error);
        throw new PrintError(/timed? ?out/i.test(text) ? 'timeout' : 'io_error', `${target}: ${text}`);
      }
    },
    read: async (length, timeoutMs) => {
      if (inEndpoint === undefined) return null;
      const buffered = await incoming.read(length, 0);
      if (buffered !== null) return buffered;
      try {
        const data = await dev.nativeTransferIn(inEndpoint.endpointNumber, timeoutMs, 64);
        if (data !== null) incoming.push(data);
      } catch {
        // A timeout: the printer did not answer.
      }
      return incoming.read(length, 0);
    },
    close: async () => {
      await dev.releaseInterface(iface.interfaceNumber).catch(() => undefined);
      if (detached) await dev.attachKernelDriver(iface.interfaceNumber).catch(() => undefined);
      await dev.close().catch(() => undefined);
    },
  };
}

export function usbTransport(
  conexao: { vendorId: number; productId: number },
  options: Partial<UsbOptions> = {},
): ChannelTransport {
  const o = { ...USB_DEFAULTS, ...options };
  return new ChannelTransport(
    usbTarget(conexao.vendorId, conexao.productId),
    () => openUsbChannel(conexao.vendorId, conexao.productId, o),
    { statusMs: o.statusTimeoutMs },
  );
}
