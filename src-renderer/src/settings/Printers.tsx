// Receipt printers of the company (/v1/companies/:id/printers): network, USB or serial, paper width, QR
// mode, code page, automatic printing after each sale, the default one, the cash drawer on its kick
// connector; live status, a test page and a drawer opening.
import { useState } from 'react';
import {
  DEFAULT_GAVETA,
  DRAWER_PULSE_MAX_MS,
  DRAWER_PULSE_MIN_MS,
  DEFAULT_BAUD_RATE,
  DEFAULT_NETWORK_PORT,
  PRINTER_CODE_PAGES,
  SERIAL_BAUD_RATES,
  type PrinterStatusView,
  type PrinterTipo,
  type PrinterView,
} from '../../../src-shared/contracts/printers.ts';
import {
  Banner,
  EmptyRow,
  ErrorBanner,
  Field,
  Modal,
  StatusBadge,
  useAction,
  useLoad,
} from '../components.tsx';
import { useApp } from '../context.ts';
import { dateTimeBr } from '../format.ts';
import { errorMessage, otherDetails, printerStateText } from '../messages.ts';
import { refreshStatus } from '../StatusBar.tsx';

const TIPO_PT: Readonly<Record<PrinterTipo, string>> = {
  rede: 'Rede (TCP 9100)',
  usb: 'USB',
  serial: 'Serial',
};
const JOB_STATUS_PT: Readonly<Record<string, string>> = {
  pending: 'Na fila',
  printing: 'Imprimindo',
  done: 'Impresso',
  failed: 'Falhou',
  cancelled: 'Cancelado',
};
const JOB_KIND_PT: Readonly<Record<string, string>> = {
  receipt: 'Cupom',
  test: 'Teste',
  ticket: 'Comprovante',
  drawer: 'Gaveta',
};

function drawerText(p: PrinterView): string {
  return p.gaveta.ativa ? `Pino ${p.gaveta.pino} · ${p.gaveta.pulso_ms} ms` : 'Desativada';
}

function connectionText(p: PrinterView): string {
  const c = p.conexao;
  if ('host' in c) return `${c.host}:${c.porta}`;
  if ('vendorId' in c) return `USB ${c.vendorId}:${c.productId}`;
  return `${c.caminho} @ ${c.baudRate}`;
}

export function PrintersSection() {
  const { api, company, prefs, setPrefs } = useApp();
  const printers = useLoad(() => api.printers.list(company.id).then((r) => r.items), [api, company.id]);
  const jobs = useLoad(() => api.printJobs.list({ pageSize: 10 }).then((r) => r.items), [api, company.id]);
  const [editing, setEditing] = useState<PrinterView | 'new' | null>(null);
  const [statuses, setStatuses] = useState<Record<string, PrinterStatusView | string>>({});
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();

  const check = async (p: PrinterView) => {
    setStatuses((s) => ({ ...s, [p.id]: 'verificando…' }));
    try {
      const st = await api.printers.status(company.id, p.id);
      setStatuses((s) => ({ ...s, [p.id]: st }));
    } catch (e) {
      setStatuses((s) => ({ ...s, [p.id]: errorMessage(e) }));
    }
  };
  const test = async (p: PrinterView) => {
    const queued = await action.run(() => api.printers.test(company.id, p.id));
    if (queued !== undefined) {
      setNotice(`Página de teste enviada para ${p.nome}.`);
      setTimeout(() => void jobs.reload(), 1500);
    }
  };
  const openDrawer = async (p: PrinterView) => {
    const queued = await action.run(() => api.printers.drawer(company.id, p.id));
    if (queued !== undefined) {
      setNotice(`Gaveta de ${p.nome}: comando de abertura enviado.`);
      setTimeout(() => void jobs.reload(), 1500);
    }
  };
  const remove = async (p: PrinterView) => {
    if (!window.confirm(`Excluir a impressora ${p.nome}?`)) return;
    await action.run(() => api.printers.remove(company.id, p.id));
    void printers.reload();
  };

  return (
    <>
      <div className="page-head">
        <h1>Impressoras</h1>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          Nova impressora
        </button>
      </div>
      {notice !== null ? <Banner kind="ok">{notice}</Banner> : null}
      <ErrorBanner error={action.error ?? printers.error} />
      <table className="grid" data-testid="printers">
        <thead>
          <tr>
            <th>Nome</th>
            <th>Conexão</th>
            <th className="num">Papel</th>
            <th>Automática</th>
            <th>Gaveta</th>
            <th>Situação</th>
            <th>Ações</th>
          </tr>
        </thead>
        <tbody>
          {(printers.data ?? []).map((p) => {
            const st = statuses[p.id];
            return (
              <tr key={p.id}>
                <td>
                  <strong>{p.nome}</strong> {p.padrao ? <span className="tag">padrão</span> : null}
                  {prefs.printerId === p.id ? <span className="tag">este terminal</span> : null}
                </td>
                <td>
                  {TIPO_PT[p.tipo]} · <span className="mono small">{connectionText(p)}</span>
                </td>
                <td className="num">{p.largura} mm</td>
                <td>{p.impressaoAutomatica ? 'Sim' : 'Não'}</td>
                <td>{drawerText(p)}</td>
                <td>{st === undefined ? '—' : typeof st === 'string' ? st : printerStateText(st)}</td>
                <td className="actions">
                  <button type="button" className="small" onClick={() => void check(p)}>
                    Verificar
                  </button>
                  <button type="button" className="small" onClick={() => void test(p)}>
                    Imprimir teste
                  </button>
                  <button
                    type="button"
                    className="small"
                    disabled={!p.gaveta.ativa}
                    title={p.gaveta.ativa ? undefined : 'A gaveta desta impressora está desativada'}
                    onClick={() => void openDrawer(p)}
                  >
                    Abrir gaveta
                  </button>
                  <button type="button" className="small" onClick={() => setEditing(p)}>
                    Editar
                  </button>
                  <button
                    type="button"
                    className="small"
                    onClick={() => {
                      setPrefs({ ...prefs, printerId: prefs.printerId === p.id ? null : p.id });
                      refreshStatus();
                    }}
                  >
                    {prefs.printerId === p.id ? 'Usar a padrão' : 'Usar neste terminal'}
                  </button>
                  <button type="button" className="small ghost" onClick={() => void remove(p)}>
                    Excluir
                  </button>
                </td>
              </tr>
            );
          })}
          <EmptyRow rows={printers.data} colSpan={7}>
            Nenhuma impressora cadastrada.
          </EmptyRow>
        </tbody>
      </table>

      <section className="card" style={{ marginTop: '1rem' }}>
        <h2>Últimas impressões</h2>
        <table className="grid">
          <thead>
            <tr>
              <th>Quando</th>
              <th>Impressora</th>
              <th>Motivo</th>
              <th>Situação</th>
              <th className="num">Tentativas</th>
              <th>Erro</th>
            </tr>
          </thead>
          <tbody>
            {(jobs.data ?? []).map((j) => (
              <tr key={j.id}>
                <td>{dateTimeBr(j.createdAt)}</td>
                <td>{j.printerNome}</td>
                <td>
                  {JOB_KIND_PT[j.kind] ?? j.kind} ({j.reason})
                </td>
                <td>
                  <StatusBadge
                    status={
                      j.status === 'done' ? 'autorizada' : j.status === 'failed' ? 'erro' : 'processando'
                    }
                    label={JOB_STATUS_PT[j.status] ?? j.status}
                  />
                </td>
                <td className="num">{j.attempts}</td>
                <td>{j.lastError ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      {editing !== null ? (
        <PrinterDialog
          printer={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void printers.reload();
            refreshStatus();
          }}
        />
      ) : null}
    </>
  );
}

function PrinterDialog(props: { printer: PrinterView | null; onClose: () => void; onSaved: () => void }) {
  const { api, company } = useApp();
  const p = props.printer;
  const c = p?.conexao;
  const [form, setForm] = useState({
    nome: p?.nome ?? '',
    tipo: (p?.tipo ?? 'rede') as PrinterTipo,
    host: c !== undefined && 'host' in c ? c.host : '',
    porta: String(c !== undefined && 'porta' in c ? c.porta : DEFAULT_NETWORK_PORT),
    permitirRedeLocal: c !== undefined && 'permitirRedeLocal' in c ? c.permitirRedeLocal : false,
    vendorId: c !== undefined && 'vendorId' in c ? c.vendorId : '',
    productId: c !== undefined && 'productId' in c ? c.productId : '',
    caminho: c !== undefined && 'caminho' in c ? c.caminho : '',
    baudRate: String(c !== undefined && 'baudRate' in c ? c.baudRate : DEFAULT_BAUD_RATE),
    largura: String(p?.largura ?? 80),
    qr: p?.qr ?? 'nativo',
    codePage: p?.codePage ?? 'pc850',
    impressaoAutomatica: p?.impressaoAutomatica ?? true,
    padrao: p?.padrao ?? true,
    gavetaAtiva: p?.gaveta.ativa ?? DEFAULT_GAVETA.ativa,
    gavetaPino: String(p?.gaveta.pino ?? DEFAULT_GAVETA.pino),
    gavetaPulso: String(p?.gaveta.pulso_ms ?? DEFAULT_GAVETA.pulso_ms),
  });
  const action = useAction();
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  const f = action.fields;
  const conexao =
    form.tipo === 'rede'
      ? { host: form.host, porta: Number(form.porta), permitirRedeLocal: form.permitirRedeLocal }
      : form.tipo === 'usb'
        ? { vendorId: form.vendorId, productId: form.productId }
        : { caminho: form.caminho, baudRate: Number(form.baudRate) };
  const submit = async () => {
    const body = {
      nome: form.nome,
      tipo: form.tipo,
      conexao,
      largura: Number(form.largura),
      qr: form.qr,
      codePage: form.codePage,
      impressaoAutomatica: form.impressaoAutomatica,
      padrao: form.padrao,
      gaveta: {
        ativa: form.gavetaAtiva,
        pino: Number(form.gavetaPino),
        // Text the service cannot read as a number is sent as is, so the answer names the field.
        pulso_ms: /^\d+$/.test(form.gavetaPulso.trim()) ? Number(form.gavetaPulso) : form.gavetaPulso,
      },
    };
    const saved = await action.run(() =>
      p === null ? api.printers.create(company.id, body) : api.printers.update(company.id, p.id, body),
    );
    if (saved !== undefined) props.onSaved();
  };
  const shown = [
    'nome',
    'tipo',
    'conexao',
    'conexao.host',
    'conexao.porta',
    'conexao.vendorId',
    'conexao.productId',
    'conexao.caminho',
    'conexao.baudRate',
    'largura',
    'qr',
    'codePage',
    'gaveta',
    'gaveta.ativa',
    'gaveta.pino',
    'gaveta.pulso_ms',
  ];
  return (
    <Modal title={p === null ? 'Nova impressora' : `Impressora ${p.nome}`} onClose={props.onClose} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <div className="form-grid">
          <Field label="Nome" error={f['nome']}>
            <input value={form.nome} onChange={set('nome')} aria-label="Nome da impressora" />
          </Field>
          <Field label="Conexão" error={f['tipo'] ?? f['conexao']}>
            <select value={form.tipo} onChange={set('tipo')} aria-label="Tipo de conexão">
              {(Object.keys(TIPO_PT) as PrinterTipo[]).map((t) => (
                <option key={t} value={t}>
                  {TIPO_PT[t]}
                </option>
              ))}
            </select>
          </Field>
          {form.tipo === 'rede' ? (
            <>
              <Field label="Endereço IP ou nome" error={f['conexao.host']}>
                <input value={form.host} onChange={set('host')} aria-label="Endereço da impressora" />
              </Field>
              <Field label="Porta" error={f['conexao.porta']}>
                <input value={form.porta} onChange={set('porta')} inputMode="numeric" aria-label="Porta" />
              </Field>
              <label className="check">
                <input
                  type="checkbox"
                  checked={form.permitirRedeLocal}
                  onChange={(e) => setForm({ ...form, permitirRedeLocal: e.target.checked })}
                  aria-label="Permitir endereço local"
                />{' '}
                Permitir endereço desta máquina (127.0.0.1, localhost) ou link-local (169.254.x.x)
              </label>
            </>
          ) : form.tipo === 'usb' ? (
            <>
              <Field label="Vendor ID" error={f['conexao.vendorId']} hint="como o lsusb mostra, ex.: 0x0416">
                <input value={form.vendorId} onChange={set('vendorId')} />
              </Field>
              <Field label="Product ID" error={f['conexao.productId']}>
                <input value={form.productId} onChange={set('productId')} />
              </Field>
            </>
          ) : (
            <>
              <Field label="Porta serial" error={f['conexao.caminho']} hint="COM3, /dev/ttyUSB0">
                <input value={form.caminho} onChange={set('caminho')} />
              </Field>
              <Field label="Velocidade (baud)" error={f['conexao.baudRate']}>
                <select value={form.baudRate} onChange={set('baudRate')}>
                  {SERIAL_BAUD_RATES.map((b) => (
                    <option key={b} value={b}>
                      {b}
                    </option>
                  ))}
                </select>
              </Field>
            </>
          )}
          <Field label="Largura do papel" error={f['largura']}>
            <select value={form.largura} onChange={set('largura')}>
              <option value="80">80 mm</option>
              <option value="58">58 mm</option>
            </select>
          </Field>
          <Field label="QR Code" error={f['qr']}>
            <select value={form.qr} onChange={set('qr')}>
              <option value="nativo">Nativo (a impressora desenha)</option>
              <option value="raster">Imagem (impressoras sem QR nativo)</option>
            </select>
          </Field>
          <Field label="Página de código" error={f['codePage']}>
            <select value={form.codePage} onChange={set('codePage')}>
              {PRINTER_CODE_PAGES.map((cp) => (
                <option key={cp} value={cp}>
                  {cp.toUpperCase()}
                </option>
              ))}
            </select>
          </Field>
          <label className="check">
            <input
              type="checkbox"
              checked={form.impressaoAutomatica}
              onChange={(e) => setForm({ ...form, impressaoAutomatica: e.target.checked })}
            />{' '}
            Imprimir o cupom automaticamente após cada venda
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={form.padrao}
              onChange={(e) => setForm({ ...form, padrao: e.target.checked })}
            />{' '}
            Impressora padrão da empresa
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={form.gavetaAtiva}
              onChange={(e) => setForm({ ...form, gavetaAtiva: e.target.checked })}
              aria-label="Gaveta ativa"
            />{' '}
            Gaveta de dinheiro ligada a esta impressora (abre nas vendas em dinheiro, sangrias e suprimentos)
          </label>
          <Field label="Pino da gaveta" error={f['gaveta.pino'] ?? f['gaveta']}>
            <select value={form.gavetaPino} onChange={set('gavetaPino')} aria-label="Pino da gaveta">
              <option value="2">Pino 2 (o mais comum)</option>
              <option value="5">Pino 5</option>
            </select>
          </Field>
          <Field
            label="Pulso (ms)"
            error={f['gaveta.pulso_ms']}
            hint={`de ${DRAWER_PULSE_MIN_MS} a ${DRAWER_PULSE_MAX_MS} ms`}
          >
            <input
              value={form.gavetaPulso}
              onChange={set('gavetaPulso')}
              inputMode="numeric"
              aria-label="Pulso da gaveta"
            />
          </Field>
        </div>
        <ErrorBanner error={action.error} extra={otherDetails(action.error, shown)} />
        <div className="actions">
          <button type="submit" className="primary" disabled={action.pending}>
            Salvar
          </button>
          <button type="button" onClick={props.onClose}>
            Voltar
          </button>
        </div>
      </form>
    </Modal>
  );
}
