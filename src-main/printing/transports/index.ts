// Picks the transport for a printer's connection; tests and the service pass timeouts and device finders.
import type { PrinterConnection } from '../../../src-shared/contracts/printers.ts';
import type { PrinterTransport } from './channel.ts';
import { networkTransport, type NetworkOptions } from './network.ts';
import { serialTransport, type SerialOptions } from './serial.ts';
import { usbTransport, type UsbOptions } from './usb.ts';

export interface TransportOptions {
  network?: Partial<NetworkOptions>;
  serial?: Partial<SerialOptions>;
  usb?: Partial<UsbOptions>;
}

export type TransportFactory = (connection: PrinterConnection) => PrinterTransport;

export function transportFactory(options: TransportOptions = {}): TransportFactory {
  return (connection) => {
    switch (connection.tipo) {
      case 'rede':
        return networkTransport(connection.conexao, options.network);
      case 'usb':
        return usbTransport(connection.conexao, options.usb);
      case 'serial':
        return serialTransport(connection.conexao, options.serial);
    }
  };
}

export { PrintError, type PrinterTransport } from './channel.ts';
