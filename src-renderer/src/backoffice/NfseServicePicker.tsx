// The service of an NFS-e picked from the shop's catalogue (GET /v1/services) as the operator types: the
// hit fills the national tax code, and the description and value when the form has none yet.
import { useEffect, useState } from 'react';
import type { ServiceView } from '../../../src-shared/contracts/services.ts';
import { Field } from '../components.tsx';
import { useApp } from '../context.ts';
import { brlText } from '../format.ts';

export function NfseServicePicker(props: { onChoose: (service: ServiceView) => void }) {
  const { api } = useApp();
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<ServiceView[]>([]);

  useEffect(() => {
    if (query.trim().length < 2) {
      setHits([]);
      return;
    }
    // Asks once the operator pauses typing, not once per keystroke.
    const t = setTimeout(() => {
      api.services.list({ q: query.trim(), ativo: 'true', limit: 8 }).then(
        (r) => setHits(r.data),
        () => setHits([]),
      );
    }, 150);
    return () => clearTimeout(t);
  }, [api, query]);

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
      {hits.length > 0 ? (
        <ul className="hits" role="listbox" aria-label="Serviços encontrados">
          {hits.map((hit) => (
            <li key={hit.id} role="option" aria-selected={false}>
              <button
                type="button"
                className="ghost"
                onClick={() => {
                  setQuery('');
                  setHits([]);
                  props.onChoose(hit);
                }}
              >
                {hit.descricao} · {hit.codigoTributacaoNacional}
                {hit.aliquotaIss === null ? '' : ` · ISS ${hit.aliquotaIss.replace('.', ',')} %`}
                {hit.valor === null ? '' : ` · ${brlText(hit.valor)}`}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
