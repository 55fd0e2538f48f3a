// What the national environment's answers mean to the queue, read from the one code table: every code of the
// table gets the meaning the table gives it, and a code the table does not know settles nothing.
import { describe, expect, it } from 'vitest';
import { NFSE_CODES } from '../../../../src-shared/tables/nfse-codes.ts';
import { nfseProtocol } from './protocol.ts';

describe('NFS-e protocol', () => {
  it('reads each code of the table by its meaning', () => {
    for (const entry of Object.values(NFSE_CODES)) {
      const outcome = nfseProtocol.protocolOutcome(entry.code);
      if (entry.meaning === 'authorized') expect(outcome).toBe('authorized');
      else if (entry.meaning === 'duplicate') expect(outcome).toBe('duplicate');
      else expect(outcome).toBe('rejected');
      expect(nfseProtocol.messageOutcome(entry.code)).toBe(
        entry.meaning === 'authorized' ? 'processed' : 'rejected',
      );
      expect(nfseProtocol.consultOutcome(entry.code)).toBe(
        entry.meaning === 'not_found' ? 'not_found' : 'unknown',
      );
      expect(nfseProtocol.eventDone(entry.code)).toBe(entry.meaning === 'event_done');
      expect(nfseProtocol.answerText?.(entry.code)).toBe(entry.text);
    }
    // Both the 1.01 note (100) and layout 1.00's substitute (101) settle the document.
    expect(nfseProtocol.protocolOutcome(NFSE_CODES.gerada.code)).toBe('authorized');
    expect(nfseProtocol.protocolOutcome(NFSE_CODES.substituta.code)).toBe('authorized');
    expect(nfseProtocol.protocolOutcome(NFSE_CODES.dpsDuplicada.code)).toBe('duplicate');
    expect(nfseProtocol.consultOutcome(NFSE_CODES.dpsInexistente.code)).toBe('not_found');
  });

  it('an unknown code settles nothing, and there is no inutilização', () => {
    expect(nfseProtocol.protocolOutcome('E999')).toBe('rejected');
    expect(nfseProtocol.consultOutcome('E999')).toBe('unknown');
    expect(nfseProtocol.eventDone('E999')).toBe(false);
    expect(nfseProtocol.answerText?.('E999')).toBeNull();
    expect(nfseProtocol.voidDone(NFSE_CODES.gerada.code, true)).toBe(false);
  });

  it('the note as received is the document of record (it embeds the signed DPS)', () => {
    const nfse = '<NFSe versao="1.01"><infNFSe Id="NFS1"><DPS/></infNFSe></NFSe>';
    expect(nfseProtocol.proc('<DPS/>', nfse)).toBe(nfse);
    expect(nfseProtocol.eventProc?.('<pedRegEvento/>', '<evento/>')).toBe('<evento/>');
  });
});
