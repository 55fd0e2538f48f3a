// The inputs the NFS-e form and the substitution dialog both show: the national tax code, digits only, and
// the value of the service; each caller wraps them in its Field with its own errors and hint.

/** cTribNac: six digits (item, subitem, desdobro); anything else typed is dropped as it is typed. */
export function NationalCodeInput(props: { value: string; onChange: (digits: string) => void }) {
  return (
    <input
      value={props.value}
      onChange={(e) => props.onChange(e.target.value.replace(/\D/g, ''))}
      aria-label="Código de tributação nacional"
      inputMode="numeric"
      maxLength={6}
    />
  );
}

/** The value as typed ("1.500,50"): the caller parses it when building the body. */
export function ServiceValueInput(props: { value: string; onChange: (text: string) => void }) {
  return (
    <input
      className="num"
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
      aria-label="Valor do serviço"
      inputMode="decimal"
    />
  );
}
