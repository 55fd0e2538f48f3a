// The catalogue search of the back-office forms (customers, services, products): what the operator types
// and the hits the API returns, asked when the typing pauses, listed under the field to choose from.
import { useEffect, useState, type ReactNode } from 'react';

/**
 * `search` must keep its identity between renders (useCallback): a new function asks again. A failed
 * search shows no hits rather than an error, as the form's own fields still work without the catalogue.
 */
export function useSearchHits<T>(search: (q: string) => Promise<T[]>, minLength: number) {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<T[]>([]);
  useEffect(() => {
    if (query.trim().length < minLength) {
      setHits([]);
      return;
    }
    // Asks once the operator pauses typing, not once per keystroke.
    const t = setTimeout(() => {
      search(query.trim()).then(setHits, () => setHits([]));
    }, 150);
    return () => clearTimeout(t);
  }, [search, query, minLength]);
  /** After a choice: the next search starts empty. */
  const clear = () => {
    setQuery('');
    setHits([]);
  };
  return { query, setQuery, hits, clear };
}

/** The hits under the search field, each a button that chooses it; nothing while there are none. */
export function HitList<T extends { id: string }>(props: {
  /** The list's accessible name ("Clientes encontrados"). */
  label: string;
  hits: readonly T[];
  text: (hit: T) => ReactNode;
  onChoose: (hit: T) => void;
}) {
  if (props.hits.length === 0) return null;
  return (
    <ul className="hits" role="listbox" aria-label={props.label}>
      {props.hits.map((hit) => (
        <li key={hit.id} role="option" aria-selected={false}>
          <button type="button" className="ghost" onClick={() => props.onChoose(hit)}>
            {props.text(hit)}
          </button>
        </li>
      ))}
    </ul>
  );
}
