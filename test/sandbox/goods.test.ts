// The sandbox authority's goods rules (src-main/sandbox/rules/goods.ts) over real HTTPS: every item's NCM
// must exist in the NCM table in force (778, with the item in the text); 00 stays allowed for non-goods.
import { afterEach, describe, expect, it } from 'vitest';
import { CSTAT } from '../../src-main/sandbox/cstat.ts';
import { ncmTableOf, publishNcmTable, shippedNcmTable } from '../../src-main/reference/ncm.ts';
import { SHIPPED_CODES } from '../fixtures/ncm.ts';
import { answerFor, expectRejection, nfce, nfe, resign, useSandbox } from './harness.ts';

const sb = useSandbox();
afterEach(() => publishNcmTable(shippedNcmTable()));

/** The fixtures' coffee (0901.21.00, in every table). */
const NCM = '<NCM>09012100</NCM>';

describe('goods rules of the sandbox authority', () => {
  it('authorizes notes whose NCMs are in the table', async () => {
    expect((await answerFor(sb(), nfe().xml)).cStat).toBe('100');
    expect((await answerFor(sb(), nfce().xml)).cStat).toBe('100');
  });

  it('778 for an NCM the table does not have, naming the item', async () => {
    await expectRejection(
      sb(),
      resign(nfce().xml, (x) => x.replace(NCM, '<NCM>12345678</NCM>')),
      778,
      ' [nItem:1]',
    );
    expect(CSTAT[778]).toBe('Rejeição: Informado NCM inexistente');
  });

  it('778 on an NF-e too, for a code created after the shipped table (until a newer table is in force)', async () => {
    const xml = () => resign(nfe().xml, (x) => x.replace(NCM, '<NCM>02109911</NCM>'));
    expect((await answerFor(sb(), xml())).cStat).toBe('778');
    // The service published an imported table with the code: the authority, in the same process, knows it.
    publishNcmTable(ncmTableOf('Siscomex test', 'importada', [...SHIPPED_CODES, '02109911']));
    expect((await answerFor(sb(), xml())).cStat).toBe('100');
  });

  it('NCM 00 (an item that is not goods) passes', async () => {
    const xml = resign(nfce().xml, (x) => x.replace(NCM, '<NCM>00</NCM>'));
    expect((await answerFor(sb(), xml)).cStat).toBe('100');
  });
});
