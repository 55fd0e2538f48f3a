// The rejections Balcão refuses before signing answer with the same cStat and text as the sandbox authority,
// which keeps its own table (the fiscal core never imports the sandbox; only this test reads both).
import { describe, expect, it } from 'vitest';
import { CTE_CSTAT } from '../../sandbox/cte/cstat.ts';
import { CTE_REJECTIONS, checkAmountToReceive, checkCfop } from './rules.ts';

describe('CT-e rules table', () => {
  it('512, 522 and 529 have the sandbox authority texts', () => {
    const sandbox: Record<string, string> = CTE_CSTAT;
    for (const code of ['512', '522', '529'] as const) {
      expect(sandbox[code], `cStat ${code}`).toBe(CTE_REJECTIONS[code]);
    }
  });

  it('every rule the sandbox also answers has the same text there', () => {
    const sandbox: Record<string, string> = CTE_CSTAT;
    for (const [code, text] of Object.entries(CTE_REJECTIONS)) {
      if (sandbox[code] !== undefined) expect(sandbox[code], `cStat ${code}`).toBe(text);
    }
  });

  it('531: vRec may equal but not exceed vTPrest; 522 by the first digit of the CFOP', () => {
    expect(checkAmountToReceive(100n, 100n)).toEqual([]);
    expect(checkAmountToReceive(101n, 100n)).toEqual([
      { field: 'valorReceber', cStat: '531', error: CTE_REJECTIONS['531'] },
    ]);
    expect(checkCfop('5353', 'SP', 'SP')).toEqual([]);
    expect(checkCfop('6353', 'SP', 'SP').map((f) => f.cStat)).toEqual(['522']);
  });
});
