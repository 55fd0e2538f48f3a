// Settings: one section per concern, addressed as #/configuracoes/<section>.
export function Settings(props: { section: string }) {
  return <div className="page">Configurações: {props.section}</div>;
}
