// The customer a document is made out to, picked from the catalogue as the operator types (NF-e recipient,
// CT-e taker): the chosen one with a button to change it, or the search with its hits and "+ Novo cliente".
import { useCallback, useEffect } from 'react';
import type { CustomerView } from '../../../src-shared/contracts/customers.ts';
import { Field } from '../components.tsx';
import { useApp } from '../context.ts';
import { taxIdBr } from '../format.ts';
import { HitList, useSearchHits } from './search-hits.tsx';

/**
 * The new-customer dialog stays with the caller (`onNew`): it holds a form of its own, and this picker sits
 * inside the document's form, where a nested form's submit would also submit the document.
 */
export function CustomerPicker(props: {
  customer: CustomerView | null;
  /** The search field's label. */
  label: string;
  error: string | undefined;
  onChoose: (customer: CustomerView) => void;
  onClear: () => void;
  onNew: () => void;
}) {
  const { api } = useApp();
  const search = useCallback((q: string) => api.customers.list({ q, limit: 8 }).then((r) => r.data), [api]);
  const { query, setQuery, hits } = useSearchHits(search, 2);
  // A customer chosen here or made in the caller's dialog: the next "Trocar" starts from an empty search.
  useEffect(() => {
    if (props.customer !== null) setQuery('');
  }, [props.customer]);

  const c = props.customer;
  if (c !== null)
    return (
      <div className="chosen" data-testid="chosen-customer">
        <strong>{c.xNome}</strong> · {taxIdBr(c.cnpj ?? c.cpf)}
        {c.endereco !== null ? ` · ${c.endereco.xMun ?? ''}/${c.endereco.uf ?? ''}` : ''}{' '}
        <button type="button" className="small" onClick={props.onClear}>
          Trocar
        </button>
      </div>
    );
  return (
    <div className="picker">
      <Field label={props.label} error={props.error}>
        <input
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          aria-label="Buscar cliente"
          autoComplete="off"
        />
      </Field>
      <HitList
        label="Clientes encontrados"
        hits={hits}
        text={(hit) => `${hit.xNome} · ${taxIdBr(hit.cnpj ?? hit.cpf ?? hit.idEstrangeiro)}`}
        onChoose={props.onChoose}
      />
      <button type="button" className="small" onClick={props.onNew}>
        + Novo cliente
      </button>
    </div>
  );
}
