// pt-BR texts for the API's error codes and its most common field messages. The API speaks English to
// integrators; the cashier reads Portuguese. Unknown texts are shown as the API wrote them.
import type { ErrorCode } from '../../src-shared/contracts/errors.ts';
import { ApiRequestError } from '../../src-shared/contracts/api-client.ts';
import type { PrintProblem, PrinterStatusView } from '../../src-shared/contracts/printers.ts';

export const ERROR_TITLES: Readonly<Record<ErrorCode, string>> = {
  invalid_json: 'O pedido não é um JSON válido.',
  validation_error: 'Há campos inválidos.',
  unauthorized: 'Chave de API recusada.',
  forbidden: 'Esta chave não tem acesso a esse recurso.',
  not_found: 'Não encontrado.',
  conflict: 'Conflito com um registro existente.',
  invalid_state: 'A ação não é permitida no estado atual do documento.',
  payload_too_large: 'Arquivo ou pedido grande demais.',
  unsupported_media_type: 'Formato de envio não suportado.',
  fiscal_rejection: 'Rejeição fiscal.',
  certificate_invalid: 'Certificado digital inválido.',
  rate_limited: 'Muitas requisições; aguarde alguns segundos.',
  authority_unavailable: 'A SEFAZ (autorizador) não respondeu.',
  insufficient_storage: 'O disco do serviço está cheio; libere espaço e tente de novo.',
  headers_too_large: 'O endereço ou os cabeçalhos do pedido são grandes demais.',
  internal_error: 'Erro interno do serviço.',
  service_starting: 'O serviço ainda está iniciando; envie de novo em um instante.',
  store_unavailable:
    'O banco de dados do servidor não respondeu. Envie de novo em um instante: uma venda reenviada não é emitida duas vezes.',
  sem_impressora:
    'Nenhuma impressora configurada: cadastre uma impressora e marque-a como padrão em Configurações › Impressoras.',
  gaveta_desativada: 'A gaveta desta impressora está desativada; ative-a no cadastro da impressora.',
  operador_nao_autenticado: 'O operador não está identificado; entre de novo com código e PIN.',
  pin_invalido: 'PIN incorreto.',
  operador_bloqueado: 'Operador bloqueado por tentativas erradas de PIN.',
  papel_insuficiente: 'Este operador não pode autorizar essa operação.',
  autorizacao_necessaria: 'Esta operação precisa da autorização de um supervisor.',
  caixa_fechado: 'O caixa está fechado: abra o caixa antes de vender.',
  caixa_ja_aberto: 'Este caixa já está aberto.',
  psp_unavailable: 'O banco (PSP) do PIX não respondeu; tente de novo ou use outra forma de pagamento.',
  psp_rejection: 'O banco (PSP) recusou a cobrança PIX.',
  pix_nao_pago: 'O PIX desta venda ainda não foi pago.',
};

/** A percentage as the API writes it ("2.50") the Brazilian way ("2,50"). */
function pctBr(text: string | undefined): string {
  return (text ?? '').replace('.', ',');
}

/** Whole messages the API sends that deserve a precise translation. */
const MESSAGES: Readonly<Record<string, string>> = {
  'The certificate password is wrong.':
    'A senha do certificado está errada. Confira a senha e tente de novo.',
  'The file is not a usable A1 certificate (PKCS#12 with private key).':
    'O arquivo não é um certificado A1 utilizável (PKCS#12 com chave privada).',
  'The certificate cannot sign for this company.': 'Este certificado não pode assinar por esta empresa.',
  'The API key is not valid.': 'A chave de API não é válida.',
  'The API key has expired.': 'A chave de API expirou.',
  'The API key has been revoked.': 'A chave de API foi revogada.',
  'Missing X-API-Key header.': 'Informe a chave de API.',
};

/** Field messages, by pattern (first match wins). */
const DETAILS: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => string]> = [
  [/^wrong password$/, () => 'senha incorreta'],
  [/^must be a PNG or JPEG image$/, () => 'deve ser uma imagem PNG ou JPEG'],
  [/^not a readable PNG/, () => 'PNG corrompido ou ilegível'],
  [
    /^at most 2000×2000 pixels \(got (\d+)×(\d+)\)$/,
    (m) => `no máximo 2000×2000 pixels (a imagem tem ${m[1]}×${m[2]})`,
  ],
  [/^required$/, () => 'obrigatório'],
  // NFS-e: the national tax code (E001) and the ISS rate (E012) as the service words them.
  [
    /^must be the 6-digit national tax code/,
    () => 'deve ter 6 dígitos (item, subitem e desdobro da lista nacional)',
  ],
  [
    /^(item|subitem|desdobro) (\d+) is not in the national list$/,
    (m) => `${m[1]} ${m[2]} não está na lista nacional de serviços`,
  ],
  [
    /^ISS rate (\S+) % of the catalogue service differs from the (\S+) % the municipality registers for (\d+)$/,
    (m) =>
      `a alíquota do ISS do serviço no catálogo (${pctBr(m[1])} %) difere da cadastrada pelo município para ${m[3]} (${pctBr(m[2])} %)`,
  ],
  [
    /^ISS rate (\S+) % is outside 2\.00 % to 5\.00 %$/,
    (m) => `alíquota do ISS de ${pctBr(m[1])} % fora do intervalo de 2 % a 5 %`,
  ],
  [/^municipality (\d+) not joined$/, (m) => `o município ${m[1]} não aderiu ao convênio da NFS-e nacional`],
  [/^too easy to guess/, () => 'fácil demais de adivinhar: nem um dígito repetido nem sequência como 1234'],
  [/^must be 4 to 8 digits$/, () => 'deve ter de 4 a 8 dígitos'],
  [/^must be 1 to 6 digits$/, () => 'deve ter de 1 a 6 dígitos'],
  [/^must be positive$/, () => 'deve ser maior que zero'],
  [/^an NF-e needs a recipient/, () => 'a NF-e precisa de um destinatário'],
  [/^the password is required$/, () => 'informe a senha'],
  [/^the \.pfx file is required$/, () => 'escolha o arquivo .pfx'],
  [/^must have at least (\d+) characters$/, (m) => `mínimo de ${m[1]} caracteres`],
  [/^must have at most (\d+) characters$/, (m) => `máximo de ${m[1]} caracteres`],
  [/^invalid CPF or CNPJ$/, () => 'CPF ou CNPJ inválido'],
  [/^invalid CPF/, () => 'CPF inválido'],
  [/^invalid CNPJ/, () => 'CNPJ inválido'],
  [/^must have (\d+) digits$/, (m) => `deve ter ${m[1]} dígitos`],
  [/^at least one payment is required$/, () => 'informe ao menos um pagamento'],
  [/^at least one item$/, () => 'inclua ao menos um item'],
  [/^current state is '(.+)'$/, (m) => `estado atual: ${m[1]}`],
  [/^certificate expired on (.+)$/, (m) => `certificado vencido em ${m[1]}`],
  [/^(.*) does not belong to company CNPJ (.*)$/, (m) => `${m[1]} não pertence ao CNPJ da empresa ${m[2]}`],
];

export function detailPt(text: string): string {
  for (const [pattern, translate] of DETAILS) {
    const m = pattern.exec(text);
    if (m !== null) return translate(m);
  }
  return text;
}

/** One line for a banner: the translated message, plus cStat/xMotivo of a fiscal rejection. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiRequestError) {
    const { body } = error;
    // The authority's texts open with "Rejeição:" themselves; the banner says it once, with the code.
    if (body.cStat !== undefined)
      return `Rejeição ${body.cStat}: ${(body.xMotivo ?? body.message).replace(/^Rejei[çc][ãa]o:\s*/i, '')}`;
    if (body.pending !== undefined) {
      return `A SEFAZ não respondeu; o pedido ${body.pending.id} foi guardado e será reenviado automaticamente.`;
    }
    return (
      MESSAGES[body.message] ??
      (error.status === 0 ? body.message : (ERROR_TITLES[body.error] ?? body.message))
    );
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The field errors of an API error, keyed by the request path (`itens[0].quantidade`), in pt-BR; a screen
 * whose service words some faults its own way gives its translation (which falls back to detailPt).
 */
export function fieldErrors(
  error: unknown,
  translate: (text: string) => string = detailPt,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(error instanceof ApiRequestError)) return out;
  for (const d of error.body.details) {
    const text = translate(d.error);
    out[d.field] = out[d.field] === undefined ? text : `${out[d.field]}; ${text}`;
  }
  return out;
}

/**
 * The field errors with a settings screen's own words: a field whose message matches a pattern of `table`
 * shows the words beside it, said to the store owner; the others as fieldErrors words them.
 */
export function fieldErrorsIn(
  error: unknown,
  table: readonly (readonly [RegExp, string])[],
): Record<string, string> {
  const out = fieldErrors(error);
  for (const [field, text] of Object.entries(out))
    out[field] = table.find(([pattern]) => pattern.test(text))?.[1] ?? text;
  return out;
}

/** Details that no field on screen shows, to list under the banner. */
export function otherDetails(error: unknown, shown: readonly string[]): string[] {
  if (!(error instanceof ApiRequestError)) return [];
  return error.body.details
    .filter((d) => !shown.includes(d.field))
    .map((d) => `${d.field}: ${detailPt(d.error)}`);
}

export const STATUS_PT: Readonly<Record<string, string>> = {
  rascunho: 'Rascunho',
  processando: 'Processando',
  contingencia: 'Contingência',
  autorizada: 'Autorizada',
  /** The NFS-e's authorized status as the API writes it (spec §3). */
  authorized: 'Autorizada',
  erro: 'Rejeitada',
  denegada: 'Denegada',
  cancelada: 'Cancelada',
  inutilizada: 'Inutilizada',
  substituida: 'Substituída',
};

export const PRINT_PROBLEM_PT: Readonly<Record<PrintProblem, string>> = {
  offline: 'desligada ou fora da rede',
  paper_out: 'sem papel',
  cover_open: 'tampa aberta',
  printer_error: 'em erro',
  timeout: 'sem resposta',
  device_not_found: 'não encontrada',
  io_error: 'falha de comunicação',
};

export function printerStateText(status: PrinterStatusView | null): string {
  if (status === null) return 'sem resposta';
  if (status.problem !== null) return PRINT_PROBLEM_PT[status.problem];
  if (status.paperNearEnd) return 'pronta (papel no fim)';
  return status.online ? 'pronta' : 'offline';
}
