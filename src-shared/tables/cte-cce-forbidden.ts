// What a CT-e carta de correção (event 110110) may not change, as data: Convênio SINIEF 06/89 art. 58-B (the
// text the CC-e's own xCondUso quotes) forbids correcting the values that determine the tax, the parties'
// identity and the dates; the key fields cannot change either, since the key names the document.
// Shared by the CT-e kind (refuses locally) and the sandbox authority (rejects like the real one).

export type CceForbiddenReason = 'tax' | 'party' | 'date' | 'key';

export interface CceForbiddenRule {
  /** grupoAlterado: the CT-e 4.00 group's tag (case as in the schema). */
  grupo: string;
  /** campoAlterado: the field's tag, or '*' for every field of the group. */
  campo: string;
  reason: CceForbiddenReason;
}

// Art. 58-B I: "as variáveis que determinam o valor do imposto tais como: base de cálculo, alíquota,
// diferença de preço, quantidade, valor da prestação".
const TAX_GROUPS = [
  'imp',
  'ICMS',
  'ICMS00',
  'ICMS20',
  'ICMS45',
  'ICMS60',
  'ICMS90',
  'ICMSOutraUF',
  'ICMSSN',
  'ICMSUFFim',
  'IBSCBS',
  'gIBSCBS',
  'gIBSUF',
  'gIBSMun',
  'gCBS',
  'gRed',
  'gTribRegular',
  'gIBSCredPres',
  'gCBSCredPres',
  'gTribCompraGov',
  'vPrest',
  'Comp',
  'infTribFed',
] as const;

// Art. 58-B II: "dados cadastrais que impliquem mudança do emitente, tomador, remetente ou do destinatário";
// the expedidor and the recebedor are parties of the CT-e too (MOC CT-e 4.00, groups exped and receb).
const PARTY_GROUPS = ['emit', 'rem', 'dest', 'exped', 'receb', 'toma', 'toma4'] as const;
const PARTY_FIELDS = ['CNPJ', 'CPF', 'IE', 'IEST'] as const;

export const CTE_CCE_FORBIDDEN: readonly CceForbiddenRule[] = Object.freeze([
  ...TAX_GROUPS.map((grupo) => ({ grupo, campo: '*', reason: 'tax' as const })),
  // Fields of the tax groups named on their own, whatever group the caller says they are in.
  ...['vBC', 'pICMS', 'vICMS', 'pRedBC', 'vBCSTRet', 'vICMSSTRet', 'pICMSSTRet', 'vCred', 'vTotTrib']
    .concat(['vTPrest', 'vRec', 'vComp', 'vBCUFFim', 'pICMSUFFim', 'vICMSUFFim', 'vTotDFe'])
    .map((campo) => ({ grupo: '*', campo, reason: 'tax' as const })),
  ...PARTY_GROUPS.flatMap((grupo) =>
    PARTY_FIELDS.map((campo) => ({ grupo, campo, reason: 'party' as const })),
  ),
  // Who the taker is (ide/toma3/toma, ide/toma4/toma) is the taker's identity.
  { grupo: 'toma3', campo: 'toma', reason: 'party' },
  { grupo: 'toma4', campo: 'toma', reason: 'party' },
  // Art. 58-B III: "a data de emissão ou de saída".
  { grupo: 'ide', campo: 'dhEmi', reason: 'date' },
  ...['cUF', 'cCT', 'mod', 'serie', 'nCT', 'cDV', 'tpAmb', 'tpEmis'].map((campo) => ({
    grupo: 'ide',
    campo,
    reason: 'key' as const,
  })),
]);

const REASON_TEXT: Readonly<Record<CceForbiddenReason, string>> = {
  tax: 'a value that determines the tax (Convênio SINIEF 06/89 art. 58-B I)',
  party: "a party's identity: emitter, taker, sender, recipient, dispatcher or receiver (art. 58-B II)",
  date: 'the date of emission (art. 58-B III)',
  key: 'a field of the access key, which names the document',
};

/**
 * The rule that forbids correcting `campoAlterado` of `grupoAlterado` by CC-e, or undefined when the
 * correction is allowed. Tags are compared without case, so a differently cased tag does not slip through.
 */
export function cteCceForbidden(grupoAlterado: string, campoAlterado: string): CceForbiddenRule | undefined {
  const grupo = grupoAlterado.trim().toLowerCase();
  const campo = campoAlterado.trim().toLowerCase();
  return CTE_CCE_FORBIDDEN.find(
    (r) =>
      (r.grupo === '*' || r.grupo.toLowerCase() === grupo) &&
      (r.campo === '*' || r.campo.toLowerCase() === campo),
  );
}

/** Why a rule forbids the correction, for error messages. */
export function cteCceForbiddenText(rule: CceForbiddenRule): string {
  return `${rule.grupo === '*' ? '' : `${rule.grupo}/`}${rule.campo === '*' ? '*' : rule.campo} cannot be corrected by CC-e: it is ${REASON_TEXT[rule.reason]}`;
}
