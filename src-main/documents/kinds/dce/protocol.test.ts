// What the DC-e authority's answers mean to the queue, read from the one code table: every code gets the
// meaning the table gives it, and a code the table does not know settles nothing.
import { describe, expect, it } from 'vitest';
import { DCE_CODES } from '../../../../src-shared/tables/dce-codes.ts';
import { dceProtocol } from './protocol.ts';

describe('DC-e protocol', () => {
  it('reads each code of the table by its meaning', () => {
    for (const entry of Object.values(DCE_CODES)) {
      const { code, meaning } = entry;
      const protocol = dceProtocol.protocolOutcome(code);
      if (meaning === 'authorized') expect(protocol).toBe('authorized');
      else if (code === DCE_CODES.duplicate.code) expect(protocol).toBe('duplicate');
      else expect(protocol).toBe('rejected');
      const message = dceProtocol.messageOutcome(code);
      if (meaning === 'paused') expect(message).toBe('paused');
      else if (meaning === 'authorized' || code === DCE_CODES.duplicate.code)
        expect(message).toBe('processed');
      else expect(message).toBe('rejected');
      expect(dceProtocol.consultOutcome(code)).toBe(meaning === 'notFound' ? 'not_found' : 'unknown');
      expect(dceProtocol.inService(code)).toBe(meaning === 'inService');
      expect(dceProtocol.answerText?.(code)).toBe(entry.text);
    }
    // A repeated event (573) is on record at the authority as much as a new registration (135).
    expect(dceProtocol.eventDone(DCE_CODES.eventRegistered.code)).toBe(true);
    expect(dceProtocol.eventDone(DCE_CODES.duplicateEvent.code)).toBe(true);
    expect(dceProtocol.eventDone(DCE_CODES.alreadyCancelled.code)).toBe(false);
    expect(dceProtocol.eventDone(DCE_CODES.cancelDeadline.code)).toBe(false);
    // 539 (the same number under another key) is a refusal, not a lost answer to consult on.
    expect(dceProtocol.protocolOutcome(DCE_CODES.duplicateOtherKey.code)).toBe('rejected');
  });

  it('an unknown code settles nothing, and there is no inutilização', () => {
    expect(dceProtocol.protocolOutcome('999')).toBe('rejected');
    expect(dceProtocol.messageOutcome('999')).toBe('rejected');
    expect(dceProtocol.consultOutcome('999')).toBe('unknown');
    expect(dceProtocol.eventDone('999')).toBe(false);
    expect(dceProtocol.answerText?.('999')).toBeNull();
    expect(dceProtocol.voidDone(DCE_CODES.authorized.code, true)).toBe(false);
  });
});
