// Reads the IBPT approximate-tax table (Lei 12.741/2012, Decreto 8.264/2014) in the CSV the IBPT publishes
// per UF: `codigo;ex;tipo;descricao;nacionalfederal;importadosfederal;estadual;municipal;vigenciainicio;
// vigenciafim;chave;versao;fonte`, Latin-1 or UTF-8. Pure: every faulty line is reported at once.
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';

/** The rates of one NCM (+ex) for the tributos line, percentages as decimal text. */
export interface IbptRates {
  nacionalfederal: string;
  importadosfederal: string;
  estadual: string;
  municipal: string;
}

/** What a sale needs of the company's IBPT table (loaded by store.ts). */
export interface IbptLookup {
  chave: string;
  versao: string;
  fonte: string;
  vigenciaFim: string;
  rates(ncm: string, ex: string | null): IbptRates | undefined;
}

export const IBPT_COLUMNS = [
  'codigo',
  'ex',
  'tipo',
  'descricao',
  'nacionalfederal',
  'importadosfederal',
  'estadual',
  'municipal',
  'vigenciainicio',
  'vigenciafim',
  'chave',
  'versao',
  'fonte',
] as const;

export interface IbptRate {
  codigo: string;
  /** '' when the line has no ex-tarifário. */
  ex: string;
  /** 0 NCM (goods), 1 NBS (services), 2 LC 116 (services). */
  tipo: 0 | 1 | 2;
  descricao: string;
  /** Percentages as exact decimal text ("13.45"). */
  nacionalfederal: string;
  importadosfederal: string;
  estadual: string;
  municipal: string;
}

export interface IbptFile {
  versao: string;
  chave: string;
  fonte: string;
  /** ISO dates (yyyy-mm-dd). */
  vigenciaInicio: string;
  vigenciaFim: string;
  rates: IbptRate[];
}

/** Beyond this many faulty lines the answer says how many more there are instead of listing them. */
const MAX_REPORTED = 200;

/** UTF-8 when the bytes are valid UTF-8 (with or without BOM), else Latin-1, the encoding IBPT ships. */
export function decodeIbptBytes(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return new TextDecoder('latin1').decode(bytes);
  }
}

function isoDate(text: string): string | null {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text) ?? /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (m === null) return null;
  const [y, mo, d] = text.includes('/') ? [m[3], m[2], m[1]] : [m[1], m[2], m[3]];
  const date = new Date(`${y}-${mo}-${d}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return null;
  return `${y}-${mo}-${d}`;
}

/** A percentage with at most 4 decimals (the rate scale of the layout); a decimal comma is accepted. */
function percent(text: string): string | null {
  const t = text.replace(',', '.');
  if (!/^\d{1,3}(\.\d{1,4})?$/.test(t)) return null;
  return Number.parseFloat(t) > 100 ? null : t;
}

export function parseIbptCsv(
  text: string,
): { ok: true; file: IbptFile } | { ok: false; errors: ErrorDetail[] } {
  const lines = text.split(/\r?\n/);
  const errors: ErrorDetail[] = [];
  let extra = 0;
  const fault = (line: number, column: string, error: string) => {
    if (errors.length < MAX_REPORTED) errors.push({ field: `linhas[${line}].${column}`, error });
    else extra++;
  };
  const header = (lines[0] ?? '').split(';').map((c) => c.trim().toLowerCase());
  if (IBPT_COLUMNS.some((c, i) => header[i] !== c)) {
    return {
      ok: false,
      errors: [{ field: 'linhas[1]', error: `expected the IBPT header ${IBPT_COLUMNS.join(';')}` }],
    };
  }
  const rates: IbptRate[] = [];
  const seen = new Set<string>();
  let meta: Omit<IbptFile, 'rates'> | undefined;
  lines.forEach((raw, i) => {
    const n = i + 1;
    if (i === 0 || raw.trim() === '') return;
    const cells = raw.split(';').map((c) => c.trim());
    if (cells.length < IBPT_COLUMNS.length) {
      fault(n, 'codigo', `expected ${IBPT_COLUMNS.length} columns separated by ';', found ${cells.length}`);
      return;
    }
    const [codigo = '', ex = '', tipo = '', descricao = ''] = cells;
    const [nf = '', imf = '', est = '', mun = '', ini = '', fim = '', chave = '', versao = '', fonte = ''] =
      cells.slice(4);
    const before = errors.length + extra;
    if (!['0', '1', '2'].includes(tipo)) fault(n, 'tipo', 'must be 0 (NCM), 1 (NBS) or 2 (LC 116)');
    else if (tipo === '0' && !/^\d{8}$/.test(codigo)) fault(n, 'codigo', 'an NCM (tipo 0) has 8 digits');
    else if (!/^\d{1,9}$/.test(codigo)) fault(n, 'codigo', 'must be digits');
    if (!/^\d{0,3}$/.test(ex)) fault(n, 'ex', 'must be empty or up to 3 digits');
    const values = [
      ['nacionalfederal', percent(nf)],
      ['importadosfederal', percent(imf)],
      ['estadual', percent(est)],
      ['municipal', percent(mun)],
    ] as const;
    for (const [column, value] of values) {
      if (value === null) fault(n, column, 'must be a percentage such as 13.45 (0 to 100, up to 4 decimals)');
    }
    const inicio = isoDate(ini);
    const fimIso = isoDate(fim);
    if (inicio === null) fault(n, 'vigenciainicio', 'must be a date dd/mm/aaaa');
    if (fimIso === null) fault(n, 'vigenciafim', 'must be a date dd/mm/aaaa');
    if (chave === '') fault(n, 'chave', 'required');
    if (versao === '') fault(n, 'versao', 'required');
    const key = `${tipo}|${codigo}|${ex}`;
    if (seen.has(key)) fault(n, 'codigo', `${codigo}${ex === '' ? '' : ` ex ${ex}`} is listed twice`);
    if (errors.length + extra > before || inicio === null || fimIso === null) return;
    seen.add(key);
    if (meta === undefined) {
      meta = {
        versao,
        chave,
        fonte: fonte === '' ? 'IBPT' : fonte,
        vigenciaInicio: inicio,
        vigenciaFim: fimIso,
      };
    } else if (meta.chave !== chave || meta.versao !== versao) {
      fault(
        n,
        'chave',
        `every line of one table has the same chave and versao (line 2 has ${meta.chave} ${meta.versao})`,
      );
      return;
    }
    rates.push({
      codigo,
      ex,
      tipo: Number(tipo) as 0 | 1 | 2,
      descricao,
      nacionalfederal: values[0][1] as string,
      importadosfederal: values[1][1] as string,
      estadual: values[2][1] as string,
      municipal: values[3][1] as string,
    });
  });
  if (extra > 0) errors.push({ field: 'linhas', error: `and ${extra} more faults not listed` });
  if (errors.length === 0 && (meta === undefined || rates.length === 0)) {
    errors.push({ field: 'linhas', error: 'the table has no lines after the header' });
  }
  if (errors.length > 0 || meta === undefined) return { ok: false, errors };
  return { ok: true, file: { ...meta, rates } };
}
