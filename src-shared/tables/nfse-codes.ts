// The national NFS-e environment's answer codes as one table, shared by the NFS-e kind (its local checks and
// what each answer means), the NFS-e authority port and the sandbox (the codes and texts it answers with).
// E001, E004 and E012 are the API specification's (§7); the other rejection codes are the sandbox's own
// numbering in the same style, since the national environment's own rule annex is not in our reference data.
// cStat 100 is the NFS-e's own infNFSe/cStat (TStat of the XSD 1.01, which also has 102, 103 and 107);
// 101 (substitute note) exists only in layout 1.00: a 1.01 substitute is a 100 whose DPS carries `subst`.
import { answerCodeLookup } from './answer-codes.ts';

export interface NfseCode {
  code: string;
  /** The text the national environment (and the sandbox) answer with, in Portuguese. */
  text: string;
  /** What it means for the DPS or event that got it. */
  meaning: 'authorized' | 'rejected' | 'duplicate' | 'not_found' | 'event_done';
}

export const NFSE_CODES = {
  /** infNFSe/cStat of a regular note. */
  gerada: { code: '100', text: 'NFS-e gerada', meaning: 'authorized' },
  /** infNFSe/cStat of a substitute note in layout 1.00 only; still read as authorized. */
  substituta: { code: '101', text: 'NFS-e de substituição gerada', meaning: 'authorized' },
  /** An event (cancellation) registered: what the port reports for POST /nfse/{chave}/eventos 201. */
  eventoRegistrado: { code: '135', text: 'Evento registrado e vinculado a NFS-e', meaning: 'event_done' },
  /** GET /dps/{id} answered 404: the DPS never became a note, so it may be sent (again). */
  dpsInexistente: { code: '404', text: 'DPS não encontrada', meaning: 'not_found' },

  // §7 of the API specification.
  codigoTributacao: {
    code: 'E001',
    text: 'Código de tributação nacional inválido (6 dígitos da lista nacional de serviços)',
    meaning: 'rejected',
  },
  municipioNaoConveniado: {
    code: 'E004',
    text: 'Município não aderente ao convênio do ambiente nacional da NFS-e',
    meaning: 'rejected',
  },
  aliquotaIss: {
    code: 'E012',
    text: 'Alíquota do ISS difere da cadastrada pelo município (mínimo 2%, máximo 5%)',
    meaning: 'rejected',
  },

  // The sandbox's numbering for the other rules it enforces.
  schema: { code: 'E101', text: 'Falha no esquema XML da DPS ou do pedido de evento', meaning: 'rejected' },
  assinatura: { code: 'E102', text: 'Assinatura digital inválida', meaning: 'rejected' },
  certificado: {
    code: 'E103',
    text: 'CNPJ do certificado de transmissão difere do prestador ou autor do evento',
    meaning: 'rejected',
  },
  ambiente: { code: 'E104', text: 'Tipo de ambiente difere do ambiente do serviço', meaning: 'rejected' },
  dataFutura: {
    code: 'E105',
    text: 'Data de emissão da DPS posterior à data de processamento',
    meaning: 'rejected',
  },
  dpsDuplicada: {
    code: 'E106',
    text: 'DPS já utilizada para gerar NFS-e (consulte por GET /dps/{id})',
    meaning: 'duplicate',
  },
  nfseInexistente: { code: 'E107', text: 'NFS-e não encontrada', meaning: 'rejected' },
  nfseCancelada: { code: 'E108', text: 'NFS-e já cancelada ou substituída', meaning: 'rejected' },
  substituidaInvalida: {
    code: 'E109',
    text: 'NFS-e a substituir inexistente, de outro prestador ou já cancelada',
    meaning: 'rejected',
  },
  mensagemInvalida: {
    code: 'E110',
    text: 'Mensagem JSON inválida ou sem o documento compactado em GZip/Base64',
    meaning: 'rejected',
  },
  prazoCancelamento: {
    code: 'E111',
    text: 'Prazo para cancelamento da NFS-e expirado',
    meaning: 'rejected',
  },
} as const satisfies Record<string, NfseCode>;

export type NfseCodeName = keyof typeof NFSE_CODES;

const LOOKUP = answerCodeLookup<NfseCode>(NFSE_CODES, 'rejected');

/** The entry of a code, or undefined for a code this table does not know (treated as a rejection). */
export const nfseCode = LOOKUP.entry;
/** What a code means; an unknown code is a rejection (the safe meaning: nothing is settled by it). */
export const nfseCodeMeaning = LOOKUP.meaning;
