// The service of an NFS-e picked from the shop's catalogue (GET /v1/services) as the operator types: the
// hit fills the national tax code, and the description and value when the form has none yet.
import { useCallback } from 'react';
import type { ServiceView } from '../../../src-shared/contracts/services.ts';
import { Field } from '../components.tsx';
import { useApp } from '../context.ts';
import { brlText } from '../format.ts';
import { HitList, useSearchHits } from './search-hits.tsx';

export function NfseServicePicker(props: { onChoose: (service: ServiceView) => void }) {
  const { api } = useApp();
  const search = useCallback(
    (q: string) => api.services.list({ q, ativo: 'true', limit: 8 }).then((r) => r.data),
    [api],
  );
  const { query, setQuery, hits, clear } = useSearchHits(search, 2);

  return (
    <div className="picker">
      <Field label="Serviço do catálogo (descrição ou código)" hint="ou digite o código nacional abaixo">
        <input
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          aria-label="Buscar serviço"
          autoComplete="off"
        />
      </Field>
      <HitList
        label="Serviços encontrados"
        hits={hits}
        text={(hit) =>
          `${hit.descricao} · ${hit.codigoTributacaoNacional}` +
          (hit.aliquotaIss === null ? '' : ` · ISS ${hit.aliquotaIss.replace('.', ',')} %`) +
          (hit.valor === null ? '' : ` · ${brlText(hit.valor)}`)
        }
        onChoose={(hit) => {
          clear();
          props.onChoose(hit);
        }}
      />
    </div>
  );
}
