// The NF-e 4.00 answers the queue acts on (MOC 7.0 annex: cStat table), as the NF kinds classify them.
import { describe, expect, it } from 'vitest';
import { nfProtocol } from './protocol.ts';

describe('NF-e 4.00 protocol classification', () => {
  it('protocols: 100/150 authorize, 110/301/302/303 deny, 204/539 are duplicates, the rest rejects', () => {
    const outcome = (codes: string[]) => codes.map((c) => nfProtocol.protocolOutcome(c));
    expect(outcome(['100', '150'])).toEqual(['authorized', 'authorized']);
    expect(outcome(['110', '301', '302', '303'])).toEqual(['denied', 'denied', 'denied', 'denied']);
    expect(outcome(['204', '539'])).toEqual(['duplicate', 'duplicate']);
    expect(outcome(['225', '539x', '', '999'])).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
  });

  it('messages: 108/109 pause, 103/104 were processed, anything else refused the message', () => {
    expect(['108', '109'].map((c) => nfProtocol.messageOutcome(c))).toEqual(['paused', 'paused']);
    expect(['103', '104'].map((c) => nfProtocol.messageOutcome(c))).toEqual(['processed', 'processed']);
    expect(['215', '656'].map((c) => nfProtocol.messageOutcome(c))).toEqual(['rejected', 'rejected']);
  });

  it('only 217 means a note never reached the authority; events and voids settle on their codes', () => {
    expect(nfProtocol.consultOutcome('217')).toBe('not_found');
    expect(nfProtocol.consultOutcome('101')).toBe('unknown');
    expect(nfProtocol.consultOutcome('656')).toBe('unknown');
    expect(['135', '136', '155', '573'].every((c) => nfProtocol.eventDone(c))).toBe(true);
    expect(['494', '580', '108'].some((c) => nfProtocol.eventDone(c))).toBe(false);
    expect(nfProtocol.voidDone('102', false)).toBe(true);
    expect(nfProtocol.voidDone('563', false)).toBe(true);
    // 256 "a number of the range is already void" proves the whole range only when it has one number.
    expect(nfProtocol.voidDone('256', false)).toBe(false);
    expect(nfProtocol.voidDone('256', true)).toBe(true);
    expect(nfProtocol.inService('107')).toBe(true);
    expect(nfProtocol.inService('108')).toBe(false);
  });
});
