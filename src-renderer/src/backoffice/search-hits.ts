// The catalogue search of the back-office forms (customers, services, products): what the operator types
// and the hits the API returns, asked when the typing pauses.
import { useEffect, useState } from 'react';

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
