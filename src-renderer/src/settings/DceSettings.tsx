// Settings › DC-e: how the company's content declarations are issued by default (GET/PUT
// /v1/companies/:id/dce-settings): as a marketplace / online shop, its own system or a carrier (tpEmit), the
// shop's site the Marketplace group carries, and the series; a DC-e may still choose otherwise.
import { useEffect, useState } from 'react';
import type { DceSettingsView, DceTipoEmitente } from '../../../src-shared/contracts/dce-view.ts';
import { Banner, ErrorBanner, Field, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { fieldErrorsIn } from '../messages.ts';
import { TipoEmitenteSelect } from '../backoffice/DceList.tsx';
import { SettingsSaveFooter, useSettingsSave } from './settings-save.tsx';

const FORM_FIELDS = ['tipo_emitente', 'site', 'serie'] as const;

/** The service's words for these fields (dceSettingsSchema), said to the store owner. */
const FIELD_PT: readonly [RegExp, string][] = [
  [/^must be an integer from 0 to 999$/, 'um número de 0 a 999'],
  [/^must be marketplace, proprio or transportadora$/, 'escolha um dos tipos de emitente'],
];

const TIPO_HINT: Readonly<Record<DceTipoEmitente, string>> = {
  marketplace:
    'a empresa é a loja virtual que emite a DC-e em nome do vendedor ou do consumidor que devolve (tpEmit 1)',
  proprio: 'a empresa declara o conteúdo que ela mesma envia, com o próprio sistema (tpEmit 2)',
  transportadora: 'a empresa é a transportadora que emite a DC-e em nome do remetente (tpEmit 3)',
};

export function DceSettingsSection() {
  const { api, company } = useApp();
  const settings = useLoad(() => api.companies.dceSettings(company.id), [api, company.id]);
  const current = settings.data;
  return (
    <>
      <h1>DC-e</h1>
      <p className="muted">
        A Declaração de Conteúdo eletrônica acompanha mercadoria transportada sem nota fiscal: vendas de quem
        não é contribuinte do ICMS e devoluções de consumidor final. Aqui fica como a empresa a emite, salvo
        quando a própria DC-e disser outra coisa.
      </p>
      <ErrorBanner error={settings.error} />
      {current?.padrao === true ? (
        <Banner kind="info" testId="dce-settings-padrao">
          Valores padrão: ainda não foram salvos. Salve-os abaixo para fixá-los.
        </Banner>
      ) : null}
      {current === null ? null : <DceSettingsForm current={current} onSaved={settings.setData} />}
    </>
  );
}

function DceSettingsForm(props: { current: DceSettingsView; onSaved: (view: DceSettingsView) => void }) {
  const { api, company } = useApp();
  const { current } = props;
  const [tipo, setTipo] = useState<DceTipoEmitente>(current.tipo_emitente);
  const [site, setSite] = useState(current.site ?? '');
  const [serie, setSerie] = useState(String(current.serie));
  const { save, saved, changed, edit, submit } = useSettingsSave(props.onSaved);
  const f = fieldErrorsIn(save.error, FIELD_PT);
  useEffect(() => {
    setTipo(current.tipo_emitente);
    setSite(current.site ?? '');
    setSerie(String(current.serie));
  }, [current]);
  const onSubmit = submit(() =>
    api.companies.saveDceSettings(company.id, {
      tipo_emitente: tipo,
      site: site.trim() === '' ? null : site.trim(),
      // Not a number: NaN goes as JSON null and the service names the field.
      serie: /^\d+$/.test(serie.trim()) ? Number(serie.trim()) : Number.NaN,
    }),
  );
  return (
    <section className="card">
      <h2>Emissão da DC-e</h2>
      <form onSubmit={onSubmit} data-testid="dce-settings-form">
        <div className="form-grid">
          <Field label="Emitida como" error={f['tipo_emitente']} hint={TIPO_HINT[tipo]} wide>
            <TipoEmitenteSelect value={tipo} onChange={changed(setTipo)} />
          </Field>
          <Field
            label="Site da loja (grupo Marketplace)"
            error={f['site']}
            hint={
              tipo === 'marketplace'
                ? 'obrigatório para emitir como marketplace'
                : 'usado só como marketplace'
            }
            wide
          >
            <input
              value={site}
              onChange={edit(setSite)}
              aria-label="Site da loja"
              placeholder="www.loja.com.br"
            />
          </Field>
          <Field label="Série" error={f['serie']} hint="0 a 999">
            <input value={serie} onChange={edit(setSerie)} aria-label="Série da DC-e" inputMode="numeric" />
          </Field>
        </div>
        <SettingsSaveFooter
          save={save}
          saved={saved}
          fields={FORM_FIELDS}
          testId="dce-settings"
          savedText="Configuração da DC-e salva: as próximas DC-e saem com estes dados."
        />
      </form>
    </section>
  );
}
