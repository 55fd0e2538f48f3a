// Settings › NFS-e: the provider's tax regime that every NFS-e's DPS carries in prest/regTrib (GET/PUT
// /v1/companies/:id/nfse-settings), with the names of the national layout 1.01, and the municipal inscription.
import { useEffect, useState } from 'react';
import { Banner, ErrorBanner, Field, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { fieldErrorsIn } from '../messages.ts';
import { href } from '../router.ts';
import { SettingsSaveFooter, useSettingsSave } from './settings-save.tsx';
import type { NfseSettingsViewBody } from '../../../src-shared/contracts/nfse-view.ts';

type OpSimpNac = 1 | 2 | 3;
type RegApTribSN = 1 | 2 | 3;

// The names are those of the XSD 1.01 annotations (TSOpSimpNac, TSRegimeApuracaoSimpNac, TSRegEspTrib).
const OP_SIMP_NAC_PT: Readonly<Record<OpSimpNac, string>> = {
  1: '1 – Não optante',
  2: '2 – Optante – Microempreendedor Individual (MEI)',
  3: '3 – Optante – Microempresa ou Empresa de Pequeno Porte (ME/EPP)',
};

const REG_AP_TRIB_SN_PT: Readonly<Record<RegApTribSN, string>> = {
  1: '1 – Tributos federais e municipal apurados pelo Simples Nacional',
  2: '2 – Tributos federais pelo Simples Nacional e ISSQN por fora, pela legislação municipal',
  3: '3 – Tributos federais e municipal por fora do Simples Nacional, pela legislação de cada um',
};

const REG_ESP_TRIB_PT: readonly (readonly [number, string])[] = [
  [0, '0 – Nenhum'],
  [1, '1 – Ato Cooperado (Cooperativa)'],
  [2, '2 – Estimativa'],
  [3, '3 – Microempresa Municipal'],
  [4, '4 – Notário ou Registrador'],
  [5, '5 – Profissional Autônomo'],
  [6, '6 – Sociedade de Profissionais'],
  [9, '9 – Outros'],
];

const CRT_PT: Readonly<Record<number, string>> = {
  1: 'CRT 1, Simples Nacional',
  2: 'CRT 2, Simples Nacional com excesso de sublimite',
  3: 'CRT 3, regime normal',
  4: 'CRT 4, MEI',
};

const FORM_FIELDS = ['op_simp_nac', 'reg_ap_trib_sn', 'reg_esp_trib'] as const;

/** The service's words for these fields (nfseSettingsSchema), said to the store owner. */
const FIELD_PT: readonly [RegExp, string][] = [
  [
    /^only with op_simp_nac 3/,
    'só existe para optante ME/EPP (opção 3 do Simples Nacional): escolha “Não informar” ou mude a opção',
  ],
  [/^must be 1, 2, 3 or null$/, 'escolha 1, 2, 3 ou “Não informar”'],
  [/^must be 1, 2 or 3$/, 'escolha 1, 2 ou 3'],
  [/^must be 0 to 6 or 9$/, 'escolha um código de 0 a 6 ou 9'],
];

const labelOf = (table: readonly (readonly [number, string])[], code: number) =>
  table.find(([c]) => c === code)?.[1] ?? String(code);

export function NfseSettingsSection() {
  const { api, company } = useApp();
  const settings = useLoad(() => api.companies.nfseSettings(company.id), [api, company.id]);
  const current = settings.data;
  return (
    <>
      <h1>NFS-e</h1>
      <p className="muted">
        A situação da empresa perante o Simples Nacional e o regime especial de tributação vão em toda NFS-e
        (grupo regTrib do prestador na DPS). Confira com o contador: o ambiente nacional recusa a nota quando
        eles não batem com o cadastro da empresa.
      </p>
      <section className="card" data-testid="nfse-settings-current">
        <h2>Prestador</h2>
        <ErrorBanner error={settings.error} />
        <dl className="props">
          <dt>Inscrição municipal</dt>
          <dd data-testid="nfse-settings-im">
            {company.im ?? <strong>não informada</strong>} (
            <a href={href('/configuracoes/empresa')}>alterar em Empresa</a>)
          </dd>
          <dt>Município</dt>
          <dd>
            {company.endereco.xMun}/{company.endereco.uf} (IBGE {company.endereco.cMun})
          </dd>
          {current === null ? null : (
            <>
              <dt>Simples Nacional</dt>
              <dd data-testid="nfse-settings-op">{OP_SIMP_NAC_PT[current.op_simp_nac as OpSimpNac]}</dd>
              <dt>Regime de apuração</dt>
              <dd data-testid="nfse-settings-apuracao">
                {current.reg_ap_trib_sn === null
                  ? 'não informado'
                  : REG_AP_TRIB_SN_PT[current.reg_ap_trib_sn as RegApTribSN]}
              </dd>
              <dt>Regime especial</dt>
              <dd data-testid="nfse-settings-especial">{labelOf(REG_ESP_TRIB_PT, current.reg_esp_trib)}</dd>
            </>
          )}
        </dl>
        {company.im === null ? (
          <Banner kind="warn" testId="nfse-settings-no-im">
            Sem inscrição municipal: o município do prestador a exige para a NFS-e. Informe-a em{' '}
            <a href={href('/configuracoes/empresa')}>Configurações › Empresa</a>.
          </Banner>
        ) : null}
        {current?.padrao === true ? (
          <Banner kind="info" testId="nfse-settings-padrao">
            Valores padrão, deduzidos do regime tributário da empresa (
            {CRT_PT[company.crt] ?? `CRT ${company.crt}`}
            ): ainda não foram salvos. Salve-os abaixo para fixá-los.
          </Banner>
        ) : null}
      </section>
      {current === null ? null : <NfseSettingsForm current={current} onSaved={settings.setData} />}
    </>
  );
}

function NfseSettingsForm(props: {
  current: NfseSettingsViewBody;
  onSaved: (view: NfseSettingsViewBody) => void;
}) {
  const { api, company } = useApp();
  const { current } = props;
  const [op, setOp] = useState(String(current.op_simp_nac));
  const [apuracao, setApuracao] = useState(
    current.reg_ap_trib_sn === null ? '' : String(current.reg_ap_trib_sn),
  );
  const [especial, setEspecial] = useState(String(current.reg_esp_trib));
  const { save, saved, edit, submit } = useSettingsSave(props.onSaved);
  const f = fieldErrorsIn(save.error, FIELD_PT);
  useEffect(() => {
    setOp(String(current.op_simp_nac));
    setApuracao(current.reg_ap_trib_sn === null ? '' : String(current.reg_ap_trib_sn));
    setEspecial(String(current.reg_esp_trib));
  }, [current]);
  // The regime of apuração exists only for the ME/EPP; a value chosen before the option changed stays in
  // sight (and is refused on save) rather than being dropped without a word.
  const showApuracao = op === '3' || apuracao !== '' || f['reg_ap_trib_sn'] !== undefined;
  const onSubmit = submit(() =>
    api.companies.saveNfseSettings(company.id, {
      op_simp_nac: Number(op) as OpSimpNac,
      reg_ap_trib_sn: apuracao === '' ? null : (Number(apuracao) as RegApTribSN),
      reg_esp_trib: Number(especial),
    }),
  );
  return (
    <section className="card">
      <h2>Regime tributário na NFS-e</h2>
      <form onSubmit={onSubmit} data-testid="nfse-settings-form">
        <div className="form-grid">
          <Field label="Opção pelo Simples Nacional" error={f['op_simp_nac']} wide>
            <select value={op} onChange={edit(setOp)} aria-label="Opção pelo Simples Nacional">
              {([1, 2, 3] as const).map((code) => (
                <option key={code} value={String(code)}>
                  {OP_SIMP_NAC_PT[code]}
                </option>
              ))}
            </select>
          </Field>
          {showApuracao ? (
            <Field
              label="Regime de apuração (ME/EPP)"
              error={f['reg_ap_trib_sn']}
              hint={
                op === '3'
                  ? 'para quem ultrapassou algum sublimite do Simples Nacional'
                  : 'só para optante ME/EPP: escolha “Não informar”'
              }
              wide
            >
              <select value={apuracao} onChange={edit(setApuracao)} aria-label="Regime de apuração">
                <option value="">Não informar</option>
                {([1, 2, 3] as const).map((code) => (
                  <option key={code} value={String(code)}>
                    {REG_AP_TRIB_SN_PT[code]}
                  </option>
                ))}
              </select>
            </Field>
          ) : null}
          <Field label="Regime especial de tributação" error={f['reg_esp_trib']} wide>
            <select value={especial} onChange={edit(setEspecial)} aria-label="Regime especial de tributação">
              {REG_ESP_TRIB_PT.map(([code, label]) => (
                <option key={code} value={String(code)}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <SettingsSaveFooter
          save={save}
          saved={saved}
          fields={FORM_FIELDS}
          testId="nfse-settings"
          savedText="Regime tributário da NFS-e salvo: as próximas NFS-e saem com estes dados."
        />
      </form>
    </section>
  );
}
