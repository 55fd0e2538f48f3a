// Company data (read from GET /v1/companies/:id), the environment, the NFC-e CSC and QR version
// (PUT /v1/companies/:id/config), and the numbering: series in use and reserved numbers never issued.
import { useEffect, useState, type FormEvent } from 'react';
import { Banner, ErrorBanner, Field, FileInput, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { dateTimeBr, taxIdBr } from '../format.ts';
import { fieldErrors, otherDetails } from '../messages.ts';
import { refreshStatus } from '../StatusBar.tsx';
import { href } from '../router.ts';

const CRT_PT: Readonly<Record<number, string>> = {
  1: '1 – Simples Nacional',
  2: '2 – Simples Nacional, excesso de sublimite',
  3: '3 – Regime normal',
  4: '4 – MEI',
};

/** The default profile taxes items that name none (simple mode); it is chosen on the products screen. */
function DefaultProfileName() {
  const { api, company } = useApp();
  const id = company.defaultFiscalProfileId;
  const profile = useLoad(
    () => (id === null ? Promise.resolve(null) : api.fiscalProfiles.get(id)),
    [api, id],
  );
  if (id === null) return <>nenhum</>;
  return <strong data-testid="default-profile">{profile.data?.name ?? '…'}</strong>;
}

export function CompanySection() {
  const { company } = useApp();
  const e = company.endereco;
  return (
    <>
      <h1>Empresa</h1>
      <section className="card">
        <dl className="props">
          <dt>Razão social</dt>
          <dd>{company.xNome}</dd>
          <dt>Nome fantasia</dt>
          <dd>{company.xFant ?? '—'}</dd>
          <dt>CNPJ</dt>
          <dd>{taxIdBr(company.cnpj)}</dd>
          <dt>Inscrição estadual</dt>
          <dd>{company.ie}</dd>
          <dt>Inscrição municipal</dt>
          <dd>{company.im ?? '—'}</dd>
          <dt>Regime tributário</dt>
          <dd>{CRT_PT[company.crt] ?? company.crt}</dd>
          <dt>Perfil fiscal padrão</dt>
          <dd>
            <DefaultProfileName /> (<a href={href('/produtos')}>ver e alterar em Produtos</a>)
          </dd>
          <dt>Endereço</dt>
          <dd>
            {e.xLgr}, {e.nro}
            {e.xCpl === null ? '' : ` – ${e.xCpl}`} – {e.xBairro}
            <br />
            {e.xMun}/{e.uf} – CEP {e.cep.replace(/^(\d{5})(\d{3})$/, '$1-$2')} (IBGE {e.cMun})
          </dd>
          <dt>Telefone</dt>
          <dd>{e.fone ?? '—'}</dd>
          <dt>E-mail</dt>
          <dd>{company.email ?? '—'}</dd>
          <dt>Ambiente</dt>
          <dd>{company.ambiente === 'producao' ? 'Produção' : 'Homologação'}</dd>
          <dt>Autorizador</dt>
          <dd>{company.authority === 'sandbox' ? 'SEFAZ de testes embutida (sandbox)' : 'SEFAZ'}</dd>
          <dt>Cadastrada em</dt>
          <dd>{dateTimeBr(company.createdAt)}</dd>
        </dl>
      </section>
      <CompanyEditCard />
      <LogoCard />
    </>
  );
}

/**
 * The owner keeps the registration data up to date here (PUT /v1/companies/:id); the emitter of the next
 * notes uses exactly these data. CNPJ, regime and environment are not edited: they change what a note is.
 */
function CompanyEditCard() {
  const { api, company, refreshCompany } = useApp();
  const e = company.endereco;
  const initial = {
    xNome: company.xNome,
    xFant: company.xFant ?? '',
    ie: company.ie,
    im: company.im ?? '',
    email: company.email ?? '',
    xLgr: e.xLgr,
    nro: e.nro,
    xCpl: e.xCpl ?? '',
    xBairro: e.xBairro,
    cMun: e.cMun,
    uf: e.uf,
    cep: e.cep,
    fone: e.fone ?? '',
  };
  const [form, setForm] = useState(initial);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const errors = fieldErrors(action.error);
  const set = (key: keyof typeof initial) => (ev: { target: { value: string } }) => {
    setSaved(false);
    setForm((f) => ({ ...f, [key]: ev.target.value }));
  };
  const opt = (text: string) => (text.trim() === '' ? null : text.trim());
  const save = async (ev: FormEvent) => {
    ev.preventDefault();
    const view = await action.run(() =>
      api.companies.update(company.id, {
        xNome: form.xNome.trim(),
        xFant: opt(form.xFant),
        ie: form.ie,
        im: opt(form.im),
        email: opt(form.email),
        endereco: {
          xLgr: form.xLgr,
          nro: form.nro,
          ...(opt(form.xCpl) === null ? {} : { xCpl: form.xCpl.trim() }),
          xBairro: form.xBairro,
          cMun: form.cMun.trim(),
          uf: form.uf.trim().toUpperCase(),
          cep: form.cep,
          ...(opt(form.fone) === null ? {} : { fone: form.fone }),
        },
      }),
    );
    if (view === undefined) return;
    setSaved(true);
    await refreshCompany();
  };
  const field = (key: keyof typeof initial, label: string, path: string = key) => (
    <Field label={label} error={errors[path]}>
      <input value={form[key]} onChange={set(key)} aria-label={label} />
    </Field>
  );
  return (
    <section className="card" data-testid="company-edit">
      <h2>Editar dados da empresa</h2>
      <p className="muted">O emitente das próximas notas usa exatamente estes dados.</p>
      <form onSubmit={(ev) => void save(ev)}>
        <div className="form-grid">
          {field('xNome', 'Razão social')}
          {field('xFant', 'Nome fantasia')}
          {field('ie', 'Inscrição estadual')}
          {field('im', 'Inscrição municipal')}
          {field('email', 'E-mail')}
          {field('fone', 'Telefone', 'endereco.fone')}
          {field('xLgr', 'Logradouro', 'endereco.xLgr')}
          {field('nro', 'Número', 'endereco.nro')}
          {field('xCpl', 'Complemento', 'endereco.xCpl')}
          {field('xBairro', 'Bairro', 'endereco.xBairro')}
          {field('cMun', 'Código IBGE do município', 'endereco.cMun')}
          {field('uf', 'UF', 'endereco.uf')}
          {field('cep', 'CEP', 'endereco.cep')}
        </div>
        <button type="submit" className="primary" disabled={action.pending}>
          Salvar dados da empresa
        </button>
      </form>
      {saved ? <Banner kind="ok">Dados da empresa salvos.</Banner> : null}
      <ErrorBanner error={action.error} extra={otherDetails(action.error, Object.keys(errors))} />
    </section>
  );
}

export function EnvironmentSection() {
  const { api, company, refreshCompany } = useApp();
  const [ambiente, setAmbiente] = useState(company.ambiente);
  const action = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <>
      <h1>Ambiente</h1>
      <section className="card">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void action
              .run(() => api.companies.config(company.id, { ambiente }))
              .then(async (r) => {
                if (r === undefined) return;
                setSaved('Ambiente alterado.');
                await refreshCompany();
                refreshStatus();
              });
          }}
        >
          <fieldset className="radios">
            <legend>Ambiente de emissão</legend>
            <label>
              <input
                type="radio"
                name="ambiente"
                checked={ambiente === 'homologacao'}
                onChange={() => setAmbiente('homologacao')}
              />{' '}
              Homologação (testes, notas sem valor fiscal)
            </label>
            <label>
              <input
                type="radio"
                name="ambiente"
                checked={ambiente === 'producao'}
                onChange={() => setAmbiente('producao')}
              />{' '}
              Produção (notas com valor fiscal)
            </label>
          </fieldset>
          {ambiente === 'producao' && company.ambiente !== 'producao' ? (
            <Banner kind="warn">
              Em produção as notas têm valor fiscal. Confira certificado, CSC de produção e séries antes de
              vender.
            </Banner>
          ) : null}
          {action.fields['ambiente'] !== undefined ? (
            <p className="field-error">{action.fields['ambiente']}</p>
          ) : null}
          <ErrorBanner error={action.error} extra={otherDetails(action.error, ['ambiente'])} />
          {saved !== null ? <Banner kind="ok">{saved}</Banner> : null}
          <button
            type="submit"
            className="primary"
            disabled={action.pending || ambiente === company.ambiente}
          >
            Salvar ambiente
          </button>
        </form>
      </section>
    </>
  );
}

export function CscSection() {
  const { api, company, refreshCompany } = useApp();
  const [idCsc, setIdCsc] = useState(company.csc?.id ?? '');
  const [token, setToken] = useState('');
  const [qr, setQr] = useState<2 | 3>(company.nfceQrVersion);
  const action = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  const f = action.fields;
  return (
    <>
      <h1>NFC-e: CSC e QR Code</h1>
      <section className="card">
        <p className="muted">
          O CSC (código de segurança do contribuinte) é gerado no portal da SEFAZ da UF e entra no hash do QR
          Code da NFC-e. O token nunca é mostrado de volta.
        </p>
        <p>
          CSC atual:{' '}
          {company.csc === null ? (
            <strong>não configurado</strong>
          ) : (
            <strong>id {company.csc.id} (configurado)</strong>
          )}
        </p>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const body: { id_csc?: string; csc_nfce?: string; versao_qrcode?: 2 | 3 } = { versao_qrcode: qr };
            if (token.trim() !== '' || idCsc !== (company.csc?.id ?? '')) {
              body.id_csc = idCsc;
              body.csc_nfce = token.trim();
            }
            void action
              .run(() => api.companies.config(company.id, body))
              .then(async (r) => {
                if (r === undefined) return;
                setToken('');
                setSaved('Configuração da NFC-e salva.');
                await refreshCompany();
              });
          }}
        >
          <div className="form-grid">
            <Field label="Identificador do CSC (idCSC)" error={f['id_csc']}>
              <input value={idCsc} onChange={(e) => setIdCsc(e.target.value)} inputMode="numeric" />
            </Field>
            <Field label="Token do CSC" error={f['csc_nfce']} hint="16 a 36 letras ou dígitos">
              <input
                value={token}
                onChange={(e) => setToken(e.target.value)}
                autoComplete="off"
                spellCheck={false}
                placeholder={company.csc === null ? '' : '(mantido; preencha para trocar)'}
              />
            </Field>
            <Field label="Versão do QR Code" error={f['versao_qrcode']}>
              <select value={qr} onChange={(e) => setQr(e.target.value === '3' ? 3 : 2)}>
                <option value={2}>2 (hash com CSC)</option>
                <option value={3}>3 (NT 2025.001)</option>
              </select>
            </Field>
          </div>
          <ErrorBanner
            error={action.error}
            extra={otherDetails(action.error, ['id_csc', 'csc_nfce', 'versao_qrcode'])}
          />
          {saved !== null ? <Banner kind="ok">{saved}</Banner> : null}
          <button type="submit" className="primary" disabled={action.pending}>
            Salvar
          </button>
        </form>
      </section>
    </>
  );
}

export function SeriesSection() {
  const { api, company } = useApp();
  const sequences = useLoad(
    () => api.companies.sequences(company.id).then((r) => r.sequences),
    [api, company.id],
  );
  const abandoned = useLoad(() => api.companies.abandonedNumbers(company.id), [api, company.id]);
  return (
    <>
      <h1>Séries e numeração</h1>
      <section className="card">
        <h2>Séries em uso</h2>
        <ErrorBanner error={sequences.error} />
        <table className="grid">
          <thead>
            <tr>
              <th>Modelo</th>
              <th className="num">Série</th>
              <th>Ambiente</th>
              <th className="num">Último número</th>
              <th className="num">Próximo número</th>
            </tr>
          </thead>
          <tbody>
            {(sequences.data ?? []).map((s) => (
              <tr key={`${s.modelo}-${s.serie}-${s.environment}`}>
                <td>{s.modelo === '65' ? 'NFC-e (65)' : 'NF-e (55)'}</td>
                <td className="num">{s.serie}</td>
                <td>{s.environment === 'producao' ? 'Produção' : 'Homologação'}</td>
                <td className="num">{s.last_numero}</td>
                <td className="num">{s.proximo_numero}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="card">
        <h2>Números reservados e não emitidos</h2>
        <p className="muted">
          Números reservados há mais de 24 horas que nunca foram autorizados devem ser inutilizados para a
          série não ter lacunas. Use “Inutilizar numeração” na lista de documentos.
        </p>
        <ErrorBanner error={abandoned.error} />
        {abandoned.data !== null && abandoned.data.total === 0 ? <p>Nenhum número pendente.</p> : null}
        {abandoned.data !== null && abandoned.data.total > 0 ? (
          <ul>
            {abandoned.data.items.map((n) => (
              <li key={n.id}>
                {n.modelo === 65 ? 'NFC-e' : 'NF-e'} série {n.serie} nº {n.numero}
              </li>
            ))}
          </ul>
        ) : null}
      </section>
    </>
  );
}

/** The logo printed on the DANFE and the DANFCe (PUT /v1/companies/:id/logo, PNG or JPEG up to 256 KiB). */
function LogoCard() {
  const { api, company } = useApp();
  const logo = useLoad(() => api.companies.logo(company.id), [api, company.id]);
  const [url, setUrl] = useState<string | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [pickerKey, setPickerKey] = useState(0);
  const action = useAction();
  useEffect(() => {
    if (logo.data === null) {
      setUrl(null);
      return;
    }
    const objectUrl = URL.createObjectURL(logo.data);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [logo.data]);
  return (
    <section className="card">
      <h2>Logotipo do DANFE</h2>
      {url === null ? (
        <p className="muted">Nenhum logotipo: o DANFE e o DANFCe saem sem imagem.</p>
      ) : (
        <img
          src={url}
          alt="Logotipo atual"
          data-testid="company-logo"
          style={{ maxWidth: 240, maxHeight: 120 }}
        />
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void action
            .run(async () => {
              if (file === null) throw new Error('Escolha uma imagem PNG ou JPEG.');
              await api.companies.uploadLogo(company.id, file, file.name);
              return api.companies.logo(company.id);
            })
            .then((blob) => {
              if (blob === undefined) return;
              logo.setData(blob);
              setFile(null);
              setPickerKey((k) => k + 1);
            });
        }}
      >
        <Field label="Imagem (PNG ou JPEG, até 256 KiB e 2000×2000 px)" error={action.fields['logo']}>
          <FileInput
            key={pickerKey}
            accept="image/png,image/jpeg"
            aria-label="Imagem do logotipo"
            onFile={setFile}
          />
        </Field>
        <ErrorBanner error={action.error} extra={otherDetails(action.error, ['logo'])} />
        <button type="submit" className="primary" disabled={action.pending}>
          Enviar logotipo
        </button>{' '}
        {url === null ? null : (
          <button
            type="button"
            disabled={action.pending}
            onClick={() =>
              void action.run(() => api.companies.removeLogo(company.id)).then(() => logo.setData(null))
            }
          >
            Remover logotipo
          </button>
        )}
      </form>
    </section>
  );
}
