// Lookup over an authority's table of answer codes (dce-codes.ts, nfse-codes.ts): each entry has its code, the
// text answered with it and what it means; a code the table does not know means a rejection.

export interface AnswerCode {
  code: string;
  text: string;
  meaning: string;
}

export interface AnswerCodeLookup<E extends AnswerCode> {
  /** The entry of a code, or undefined for a code this table does not know (treated as a rejection). */
  entry(code: string): E | undefined;
  /** What a code means; an unknown code is a rejection (the safe meaning: nothing is settled by it). */
  meaning(code: string): E['meaning'];
  /** The table's text of a code, or undefined when the table does not know it. */
  text(code: string): string | undefined;
}

export function answerCodeLookup<E extends AnswerCode>(
  table: Readonly<Record<string, E>>,
  rejected: E['meaning'],
): AnswerCodeLookup<E> {
  const byCode: ReadonlyMap<string, E> = new Map(Object.values(table).map((c) => [c.code, c]));
  return {
    entry: (code) => byCode.get(code),
    meaning: (code) => byCode.get(code)?.meaning ?? rejected,
    text: (code) => byCode.get(code)?.text,
  };
}
