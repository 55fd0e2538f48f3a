// The services the shop sells (installation, repair, delivery as a service): the catalogue the NFS-e form
// picks from, each with its national tax code and, when the shop knows it, its ISS rate.
import { useState } from 'react';
import type { ServiceView } from '../../../src-shared/contracts/services.ts';
import { nationalServiceCodeFault } from '../../../src-shared/nfse-service-code.ts';
import { NFSE_IND_OP_CODES, defaultIndOp } from '../../../src-shared/nfse-ibscbs.ts';
import {
  ActiveField,
  EmptyRow,
  ErrorBanner,
  Field,
  Modal,
  Pager,
  useAction,
  useLoad,
} from '../components.tsx';
import { useApp } from '../context.ts';
import { brlText, decimalToBr, parseBrDecimal } from '../format.ts';
import { detailPt, fieldErrors, otherDetails } from '../messages.ts';

const PAGE_SIZE = 20;

type Situacao = 'todos' | 'ativos' | 'inativos';

/** "140101" → "14.01.01": item, subitem and desdobro as the national list prints them. */
export function nationalCodeBr(code: string): string {
  return /^\d{6}$/.test(code) ? `${code.slice(0, 2)}.${code.slice(2, 4)}.${code.slice(4, 6)}` : code;
}

/** The API's field messages of this resource in pt-BR; the others go through the shared table. */
const SERVICE_DETAILS: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => string]> = [
  [/^must be between 2\.00 and 5\.00/, () => 'deve estar entre 2,00% e 5,00% (LC 116/2003)'],
  [/^must be a percentage with up to/, () => 'informe um percentual com até 2 casas decimais'],
  [/^must be an amount with up to/, () => 'informe um valor com até 2 casas decimais'],
  [
    /^must be the 6-digit national tax code/,
    () => 'deve ter os 6 dígitos do código de tributação nacional (item, subitem, desdobro)',
  ],
  [
    /^item (\d\d) is not in the national list$/,
    (m) => `o item ${m[1]} não está na lista nacional de serviços`,
  ],
  [/^(subitem|desdobro) 00 is not in the national list$/, (m) => `${m[1]} 00 não está na lista nacional`],
  [/^already used$/, () => 'já usado por outro serviço'],
  [/^must be the 3-digit IBS\/CBS CST$/, () => 'informe os 3 dígitos do CST do IBS/CBS'],
  [/^must be the 6-digit cClassTrib$/, () => 'informe os 6 dígitos do cClassTrib'],
  [/^is required with cstIbsCbs$/, () => 'informe o cClassTrib junto com o CST'],
  [/^belongs to CST (\d{3})/, (m) => `pertence ao CST ${m[1]}`],
  [/^not in the IBS\/CBS table (.+)$/, (m) => `não consta da tabela do IBS/CBS ${m[1]}`],
  [/^must be a cIndOp code of annex C/, () => 'escolha um indicador da operação do anexo C'],
  [/^must be a PIS\/COFINS CST of the layout/, () => 'CST de PIS/COFINS inexistente no leiaute'],
  [
    /^differs from (\S+) of service (.+)$/,
    (m) =>
      `outro serviço ativo (${m[2]}) tem o mesmo código nacional com ${decimalToBr(m[1] ?? '', 2)}%: um código, uma alíquota`,
  ],
];

function servicePt(text: string): string {
  for (const [pattern, translate] of SERVICE_DETAILS) {
    const m = pattern.exec(text);
    if (m !== null) return translate(m);
  }
  return detailPt(text);
}

export function ServicesScreen() {
  const { api } = useApp();
  const [q, setQ] = useState('');
  const [situacao, setSituacao] = useState<Situacao>('ativos');
  const [page, setPage] = useState(1);
  const list = useLoad(
    () =>
      api.services.list({
        page,
        limit: PAGE_SIZE,
        ...(q.trim() === '' ? {} : { q: q.trim() }),
        ...(situacao === 'todos' ? {} : { ativo: situacao === 'ativos' ? 'true' : 'false' }),
      }),
    [api, page, q, situacao],
  );
  const [editing, setEditing] = useState<ServiceView | 'new' | null>(null);

  return (
    <div className="page">
      <div className="page-head">
        <h1>Serviços</h1>
        <div className="actions">
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            Novo serviço
          </button>
        </div>
      </div>
      <div className="filters card">
        <Field label="Buscar (descrição, código ou código nacional)">
          <input
            value={q}
            onChange={(e) => {
              setPage(1);
              setQ(e.target.value);
            }}
          />
        </Field>
        <Field label="Situação">
          <select
            aria-label="Situação"
            value={situacao}
            onChange={(e) => {
              setPage(1);
              setSituacao(e.target.value as Situacao);
            }}
          >
            <option value="ativos">Ativos</option>
            <option value="inativos">Inativos</option>
            <option value="todos">Todos</option>
          </select>
        </Field>
      </div>
      <ErrorBanner error={list.error} />
      <table className="grid" data-testid="services">
        <thead>
          <tr>
            <th>Código</th>
            <th>Descrição</th>
            <th>Código nacional</th>
            <th className="num">Alíquota ISS</th>
            <th className="num">Preço</th>
            <th>Ativo</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((s) => (
            <tr key={s.id} className="clickable" data-service-id={s.id} onClick={() => setEditing(s)}>
              <td>{s.codigo}</td>
              <td>{s.descricao}</td>
              <td className="mono">{nationalCodeBr(s.codigoTributacaoNacional)}</td>
              <td className="num">
                {s.aliquotaIss === null ? (
                  <span className="muted">do município</span>
                ) : (
                  `${decimalToBr(s.aliquotaIss, 2)}%`
                )}
              </td>
              <td className="num">{brlText(s.valor)}</td>
              <td>{s.ativo ? 'Sim' : 'Não'}</td>
            </tr>
          ))}
          <EmptyRow rows={list.data?.data} colSpan={6}>
            {q.trim() === '' && situacao === 'ativos'
              ? 'Nenhum serviço. Cadastre os serviços que a loja presta para emitir NFS-e.'
              : 'Nenhum serviço encontrado.'}
          </EmptyRow>
        </tbody>
      </table>
      {list.data !== null ? (
        <Pager page={page} pageSize={PAGE_SIZE} total={list.data.meta.total} onPage={setPage} />
      ) : null}
      {editing !== null ? (
        <ServiceDialog
          service={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void list.reload();
          }}
        />
      ) : null}
    </div>
  );
}

/** Decimal text from the API ("3.50") → what the field shows ("3,50"); empty for null. */
const inputBr = (text: string | null) => (text === null ? '' : decimalToBr(text, 2).replace(/\./g, ''));

function ServiceDialog(props: { service: ServiceView | null; onClose: () => void; onSaved: () => void }) {
  const { api } = useApp();
  const s = props.service;
  const [form, setForm] = useState({
    codigo: s?.codigo ?? '',
    descricao: s?.descricao ?? '',
    codigoTributacaoNacional: s?.codigoTributacaoNacional ?? '',
    aliquotaIss: inputBr(s?.aliquotaIss ?? null),
    valor: inputBr(s?.valor ?? null),
    cstIbsCbs: s?.cstIbsCbs ?? '',
    cClassTrib: s?.cClassTrib ?? '',
    cIndOp: s?.cIndOp ?? '',
    cstPisCofins: s?.cstPisCofins ?? '',
    ativo: s?.ativo ?? true,
  });
  const action = useAction();
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  const f = fieldErrors(action.error, servicePt);
  const code = form.codigoTributacaoNacional.replace(/\D/g, '');
  // Said while typing, with the same structural check the API applies; the API still has the last word.
  const codeFault = code.length === 6 ? nationalServiceCodeFault(code) : null;
  const body = (): Record<string, unknown> => ({
    codigo: form.codigo,
    descricao: form.descricao,
    codigoTributacaoNacional: code === '' ? form.codigoTributacaoNacional : code,
    aliquotaIss:
      form.aliquotaIss.trim() === '' ? null : (parseBrDecimal(form.aliquotaIss) ?? form.aliquotaIss),
    valor: form.valor.trim() === '' ? null : (parseBrDecimal(form.valor) ?? form.valor),
    // Blank: the default the NFS-e applies (CST 000 / 000001, cIndOp by the nature, PIS/COFINS 01).
    cstIbsCbs: form.cstIbsCbs.trim() === '' ? null : form.cstIbsCbs.trim(),
    cClassTrib: form.cClassTrib.trim() === '' ? null : form.cClassTrib.trim(),
    cIndOp: form.cIndOp === '' ? null : form.cIndOp,
    cstPisCofins: form.cstPisCofins.trim() === '' ? null : form.cstPisCofins.trim(),
    ativo: form.ativo,
  });
  const save = async () => {
    const saved = await action.run(() =>
      s === null ? api.services.create(body()) : api.services.update(s.id, body()),
    );
    if (saved !== undefined) props.onSaved();
  };
  const deactivate = async () => {
    if (s === null) return;
    const done = await action.run(() => api.services.remove(s.id));
    if (done !== undefined) props.onSaved();
  };
  const fields = [
    'codigo',
    'descricao',
    'codigoTributacaoNacional',
    'aliquotaIss',
    'valor',
    'cstIbsCbs',
    'cClassTrib',
    'cIndOp',
    'cstPisCofins',
  ];
  return (
    <Modal title={s === null ? 'Novo serviço' : `Serviço ${s.codigo}`} onClose={props.onClose} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div className="form-grid">
          <Field label="Código" error={f['codigo']}>
            <input value={form.codigo} onChange={set('codigo')} />
          </Field>
          <Field
            label="Código de tributação nacional"
            error={f['codigoTributacaoNacional'] ?? (codeFault === null ? undefined : servicePt(codeFault))}
            hint="6 dígitos: item, subitem e desdobro da lista nacional (ex.: 14.01.01)"
          >
            <input
              value={form.codigoTributacaoNacional}
              onChange={set('codigoTributacaoNacional')}
              inputMode="numeric"
            />
          </Field>
          <Field label="Descrição" error={f['descricao']} wide>
            <textarea value={form.descricao} onChange={set('descricao')} rows={3} />
          </Field>
          <Field
            label="Alíquota ISS (%)"
            error={f['aliquotaIss']}
            hint="De 2,00 a 5,00. Em branco: a alíquota cadastrada pelo município."
          >
            <input value={form.aliquotaIss} onChange={set('aliquotaIss')} inputMode="decimal" />
          </Field>
          <Field label="Preço (R$)" error={f['valor']} hint="Opcional: sugerido na NFS-e.">
            <input value={form.valor} onChange={set('valor')} inputMode="decimal" />
          </Field>
          <Field
            label="cClassTrib (IBS/CBS)"
            error={f['cClassTrib']}
            hint="Em branco: 000001, tributação integral."
          >
            <input value={form.cClassTrib} onChange={set('cClassTrib')} inputMode="numeric" maxLength={6} />
          </Field>
          <Field
            label="CST (IBS/CBS)"
            error={f['cstIbsCbs']}
            hint="Em branco: os 3 primeiros dígitos do cClassTrib."
          >
            <input value={form.cstIbsCbs} onChange={set('cstIbsCbs')} inputMode="numeric" maxLength={3} />
          </Field>
          <Field label="Indicador da operação (cIndOp)" error={f['cIndOp']}>
            <select value={form.cIndOp} onChange={set('cIndOp')}>
              <option value="">
                Pela natureza do serviço{code.length === 6 ? ` (${defaultIndOp(code)})` : ''}
              </option>
              {NFSE_IND_OP_CODES.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label="CST PIS/COFINS"
            error={f['cstPisCofins']}
            hint="Só fora do Simples Nacional. Em branco: 01."
          >
            <input
              value={form.cstPisCofins}
              onChange={set('cstPisCofins')}
              inputMode="numeric"
              maxLength={2}
            />
          </Field>
          <ActiveField value={form.ativo} onChange={(ativo) => setForm({ ...form, ativo })} />
        </div>
        <ErrorBanner error={action.error} extra={otherDetails(action.error, fields)} />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.pending}>
            Salvar
          </button>
          {s !== null && s.ativo ? (
            <button type="button" disabled={action.pending} onClick={() => void deactivate()}>
              Desativar
            </button>
          ) : null}
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}
