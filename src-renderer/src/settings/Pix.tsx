// Settings › PIX: the store's PSP for dynamic PIX at the counter (GET/PUT/DELETE /v1/companies/:id/pix), its
// secrets write-only (blank keeps the stored ones), the client certificate uploaded as a .pfx/.p12 file, and
// "Testar conexão", which asks the PSP for a token so a wrong secret shows here rather than at a sale.
import { useEffect, useState, type FormEvent } from 'react';
import { Banner, ErrorBanner, Field, FileInput, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { dateTimeBr, taxIdBr } from '../format.ts';
import { errorMessage, fieldErrorsIn, otherDetails } from '../messages.ts';
import { ApiRequestError } from '../../../src-shared/contracts/api-client.ts';
import type { PixConfigInput, PixConfigView } from '../../../src-shared/contracts/pix.ts';

type Provedor = PixConfigInput['provedor'];

const PROVEDOR_PT: Readonly<Record<Provedor, string>> = {
  sandbox: 'PSP de testes embutido (sandbox)',
  psp: 'PSP da loja (banco ou instituição de pagamento)',
};

const FORM_FIELDS = [
  'provedor',
  'chave',
  'base_url',
  'token_url',
  'client_id',
  'client_secret',
  'certificado_pfx',
  'senha_certificado',
  'cnpj_psp',
  'expiracao_segundos',
] as const;

/** The service's words for these fields, said to the store owner. */
const FIELD_PT: readonly [RegExp, string][] = [
  [/^required for provedor psp: the NFC-e/, 'obrigatório: a NFC-e informa quem recebeu o pagamento'],
  [/^required for provedor psp$/, 'obrigatório para o PSP da loja'],
  [/^the PSP requires a client certificate/, 'o PSP exige o certificado do cliente (TLS mútuo)'],
  [/^must be an https URL$/, 'informe um endereço https://'],
  [/^wrong certificate password$/, 'senha incorreta'],
  [/^(not a PKCS#12 file|unreadable PKCS#12)/, 'o arquivo não é um certificado .pfx/.p12 válido'],
  [/^(the file holds no|no certificate in the file)/, 'o arquivo não traz o certificado com a sua chave'],
  [/^sandbox is not available here/, 'o PSP de testes não roda neste serviço: configure o PSP da loja'],
];

/** The PSP's refusal is the point of the test: its own words, not the cashier's generic "try again". */
function pspMessage(error: unknown): string {
  if (error instanceof ApiRequestError && error.body.error.startsWith('psp_')) return error.body.message;
  return errorMessage(error);
}

async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function expiracaoPt(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

export function PixSection() {
  const { api, company } = useApp();
  const config = useLoad(
    () =>
      api.pix.config(company.id).catch((e: unknown) => {
        if (e instanceof ApiRequestError && e.status === 404) return null;
        throw e;
      }),
    [api, company.id],
  );
  const test = useAction();
  const [tested, setTested] = useState<string | null>(null);
  const remove = useAction();
  const current = config.data;
  const runTest = () => {
    setTested(null);
    void test
      .run(() => api.pix.testConnection(company.id))
      .then((r) => {
        if (r !== undefined)
          setTested(
            `Conexão com o PSP funcionando: token emitido, válido por ${expiracaoPt(r.expira_em_segundos)}.`,
          );
      });
  };
  return (
    <>
      <h1>PIX</h1>
      <p className="muted">
        Com um PSP (o banco ou a instituição que recebe o PIX da loja), o caixa mostra um QR de cobrança com o
        valor da venda e a venda termina sozinha quando o pagamento cai. Sem PSP, o PIX continua como PIX
        estático, conferido pelo operador.
      </p>
      <section className="card" data-testid="pix-current">
        <h2>PSP em uso</h2>
        <ErrorBanner error={config.error} />
        {config.loading && current === null ? (
          <p className="muted">Carregando…</p>
        ) : current === null ? (
          <p>Nenhum PSP configurado: o PIX é recebido como PIX estático.</p>
        ) : (
          <>
            <dl className="props">
              <dt>Provedor</dt>
              <dd data-testid="pix-provedor">{PROVEDOR_PT[current.provedor]}</dd>
              <dt>Chave PIX</dt>
              <dd>{current.chave}</dd>
              <dt>URL da API Pix</dt>
              <dd className="mono small">
                {current.base_url ?? (current.provedor === 'sandbox' ? 'embutido neste serviço' : '—')}
              </dd>
              <dt>URL do token</dt>
              <dd className="mono small">
                {current.token_url ?? (current.provedor === 'sandbox' ? 'embutido neste serviço' : '—')}
              </dd>
              <dt>Client ID</dt>
              <dd className="mono small">{current.client_id ?? '—'}</dd>
              <dt>Client secret</dt>
              <dd data-testid="pix-tem-secret">
                {current.tem_client_secret ? 'guardado (cifrado)' : 'não informado'}
              </dd>
              <dt>Certificado do cliente</dt>
              <dd data-testid="pix-tem-certificado">
                {current.tem_certificado ? 'guardado (cifrado)' : 'não enviado'}
              </dd>
              <dt>CNPJ do PSP</dt>
              <dd>{current.cnpj_psp === null ? '—' : taxIdBr(current.cnpj_psp)}</dd>
              <dt>Validade de cada cobrança</dt>
              <dd>{expiracaoPt(current.expiracao_segundos)}</dd>
              <dt>Alterado em</dt>
              <dd>{dateTimeBr(current.updated_at)}</dd>
            </dl>
            <div className="actions">
              <button
                type="button"
                className="primary"
                onClick={runTest}
                disabled={test.pending}
                data-testid="pix-test"
              >
                {test.pending ? 'Testando…' : 'Testar conexão'}
              </button>
              <button
                type="button"
                disabled={remove.pending}
                onClick={() => {
                  if (
                    !window.confirm('Remover o PSP? O PIX volta a ser estático, sem confirmação automática.')
                  )
                    return;
                  setTested(null);
                  void remove.run(() => api.pix.removeConfig(company.id)).then(() => config.reload());
                }}
              >
                Remover PSP
              </button>
            </div>
            {tested !== null ? (
              <Banner kind="ok" testId="pix-test-ok">
                {tested}
              </Banner>
            ) : null}
            {test.error !== null ? (
              <Banner kind="error" testId="pix-test-error">
                <strong>{pspMessage(test.error)}</strong>
              </Banner>
            ) : null}
            <ErrorBanner error={remove.error} />
          </>
        )}
      </section>
      {config.loading && current === null && config.error === null ? null : (
        <PixForm
          current={current}
          onSaved={(view) => {
            setTested(null);
            config.setData(view);
          }}
        />
      )}
    </>
  );
}

function PixForm(props: { current: PixConfigView | null; onSaved: (view: PixConfigView) => void }) {
  const { api, company } = useApp();
  const { current } = props;
  const [provedor, setProvedor] = useState<Provedor>(current?.provedor ?? 'psp');
  const [chave, setChave] = useState(current?.chave ?? '');
  const [baseUrl, setBaseUrl] = useState(current?.base_url ?? '');
  const [tokenUrl, setTokenUrl] = useState(current?.token_url ?? '');
  const [clientId, setClientId] = useState(current?.client_id ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [senha, setSenha] = useState('');
  const [cnpj, setCnpj] = useState(current?.cnpj_psp ?? '');
  const [expiracao, setExpiracao] = useState(String(current?.expiracao_segundos ?? 300));
  const [pickerKey, setPickerKey] = useState(0);
  const [saved, setSaved] = useState<string | null>(null);
  const save = useAction();
  const f = fieldErrorsIn(save.error, FIELD_PT);
  // Another config (saved, removed) becomes the form's starting point.
  useEffect(() => {
    setProvedor(current?.provedor ?? 'psp');
    setChave(current?.chave ?? '');
    setBaseUrl(current?.base_url ?? '');
    setTokenUrl(current?.token_url ?? '');
    setClientId(current?.client_id ?? '');
    setCnpj(current?.cnpj_psp ?? '');
    setExpiracao(String(current?.expiracao_segundos ?? 300));
  }, [current]);
  const real = provedor === 'psp';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(null);
    void save
      .run(async () => {
        const text = (v: string) => (v.trim() === '' ? undefined : v.trim());
        const seconds = text(expiracao);
        // Blank secrets and an unchosen file are left out: the PUT keeps what is stored.
        const body: PixConfigInput = {
          provedor,
          chave: chave.trim(),
          ...(real && text(baseUrl) !== undefined ? { base_url: text(baseUrl) } : {}),
          ...(real && text(tokenUrl) !== undefined ? { token_url: text(tokenUrl) } : {}),
          ...(text(clientId) !== undefined ? { client_id: text(clientId) } : {}),
          ...(clientSecret !== '' ? { client_secret: clientSecret } : {}),
          ...(real && file !== null
            ? { certificado_pfx: await base64Of(file), senha_certificado: senha }
            : {}),
          ...(real && text(cnpj) !== undefined ? { cnpj_psp: (text(cnpj) ?? '').replace(/\D/g, '') } : {}),
          ...(seconds !== undefined ? { expiracao_segundos: Number(seconds) } : {}),
        };
        return api.pix.saveConfig(company.id, body);
      })
      .then((view) => {
        if (view === undefined) return;
        setSaved('Configuração do PIX salva. Use “Testar conexão” para conferir as credenciais.');
        setClientSecret('');
        setSenha('');
        setFile(null);
        setPickerKey((k) => k + 1);
        props.onSaved(view);
      });
  };
  return (
    <section className="card">
      <h2>{current === null ? 'Configurar PSP' : 'Alterar PSP'}</h2>
      <form onSubmit={submit} data-testid="pix-form">
        <div className="form-grid">
          <Field label="Provedor" error={f['provedor']}>
            <select
              value={provedor}
              onChange={(e) => setProvedor(e.target.value as Provedor)}
              aria-label="Provedor"
            >
              <option value="psp">{PROVEDOR_PT.psp}</option>
              <option value="sandbox">{PROVEDOR_PT.sandbox}</option>
            </select>
          </Field>
          <Field
            label="Chave PIX da loja"
            error={f['chave']}
            hint="CNPJ, e-mail, telefone ou chave aleatória"
          >
            <input value={chave} onChange={(e) => setChave(e.target.value)} aria-label="Chave PIX" />
          </Field>
          {real ? (
            <>
              <Field
                label="URL da API Pix"
                error={f['base_url']}
                hint="https://…/api/v2, informada pelo PSP"
                wide
              >
                <input
                  value={baseUrl}
                  onChange={(e) => setBaseUrl(e.target.value)}
                  aria-label="URL da API Pix"
                />
              </Field>
              <Field
                label="URL do token (OAuth2)"
                error={f['token_url']}
                hint="em branco: <origem da API>/oauth/token"
                wide
              >
                <input
                  value={tokenUrl}
                  onChange={(e) => setTokenUrl(e.target.value)}
                  aria-label="URL do token"
                />
              </Field>
            </>
          ) : null}
          <Field
            label="Client ID"
            error={f['client_id']}
            hint={real ? undefined : 'em branco: o do PSP de testes'}
          >
            <input value={clientId} onChange={(e) => setClientId(e.target.value)} aria-label="Client ID" />
          </Field>
          <Field
            label="Client secret"
            error={f['client_secret']}
            hint={current?.tem_client_secret === true ? 'em branco mantém o guardado' : undefined}
          >
            <input
              type="password"
              value={clientSecret}
              onChange={(e) => setClientSecret(e.target.value)}
              aria-label="Client secret"
              autoComplete="off"
            />
          </Field>
          {real ? (
            <>
              <Field
                label="Certificado do cliente (.pfx ou .p12)"
                error={f['certificado_pfx']}
                hint={current?.tem_certificado === true ? 'sem arquivo mantém o guardado' : undefined}
              >
                <FileInput
                  key={pickerKey}
                  accept=".pfx,.p12,application/x-pkcs12"
                  aria-label="Certificado do cliente"
                  onFile={setFile}
                />
              </Field>
              <Field label="Senha do certificado" error={f['senha_certificado']}>
                <input
                  type="password"
                  value={senha}
                  onChange={(e) => setSenha(e.target.value)}
                  aria-label="Senha do certificado"
                  autoComplete="off"
                />
              </Field>
              <Field label="CNPJ do PSP" error={f['cnpj_psp']} hint="vai na NFC-e, no grupo do pagamento">
                <input value={cnpj} onChange={(e) => setCnpj(e.target.value)} aria-label="CNPJ do PSP" />
              </Field>
            </>
          ) : null}
          <Field
            label="Validade de cada cobrança (segundos)"
            error={f['expiracao_segundos']}
            hint="de 30 s a 24 h; 300 = 5 minutos"
          >
            <input
              inputMode="numeric"
              value={expiracao}
              onChange={(e) => setExpiracao(e.target.value)}
              aria-label="Validade da cobrança"
            />
          </Field>
        </div>
        {real ? null : (
          <p className="muted small">
            O PSP de testes gera client ID, client secret e certificado; os pagamentos são simulados na tela
            do PIX do caixa.
          </p>
        )}
        <ErrorBanner error={save.error} extra={otherDetails(save.error, FORM_FIELDS)} />
        {saved !== null ? (
          <Banner kind="ok" testId="pix-saved">
            {saved}
          </Banner>
        ) : null}
        <button type="submit" className="primary" disabled={save.pending} data-testid="pix-save">
          Salvar
        </button>
        <p className="muted small">
          O client secret, o certificado e a senha ficam guardados cifrados neste serviço e nunca são
          mostrados.
        </p>
      </form>
    </section>
  );
}
