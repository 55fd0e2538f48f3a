// Route → screen (hash routes, see router.ts).
import { BatchScreen } from './backoffice/Batch.tsx';
import { CteDetail } from './backoffice/CteDetail.tsx';
import { CteForm } from './backoffice/CteForm.tsx';
import { CteList } from './backoffice/CteList.tsx';
import { DceDetail } from './backoffice/DceDetail.tsx';
import { DceForm } from './backoffice/DceForm.tsx';
import { DceList } from './backoffice/DceList.tsx';
import { DocumentDetail } from './backoffice/DocumentDetail.tsx';
import { DocumentList } from './backoffice/Documents.tsx';
import { NfeForm } from './backoffice/NfeForm.tsx';
import { NfseDetail } from './backoffice/NfseDetail.tsx';
import { NfseForm } from './backoffice/NfseForm.tsx';
import { NfseList } from './backoffice/NfseList.tsx';
import { OperatorsScreen } from './backoffice/Operators.tsx';
import { ProductsScreen } from './backoffice/Products.tsx';
import { ReceivedScreen } from './backoffice/Received.tsx';
import { ReportsScreen } from './backoffice/Reports.tsx';
import { ServicesScreen } from './backoffice/Services.tsx';
import { SessionsScreen } from './backoffice/Sessions.tsx';
import { CashierGate } from './operators/CashierGate.tsx';
import { ApiReference } from './help/ApiReference.tsx';
import { Settings } from './settings/Settings.tsx';

export function Screen(props: { route: { path: string; parts: string[]; query: URLSearchParams } }) {
  const [first, second, third] = props.route.parts;
  switch (first) {
    case undefined:
    case 'caixa':
      return <CashierGate />;
    case 'documentos':
      if ((second === '55' || second === '65') && third !== undefined)
        return <DocumentDetail key={third} modelo={second === '55' ? 55 : 65} id={third} />;
      return <DocumentList query={props.route.query} />;
    case 'nfe':
      if (second === 'nova') return <NfeForm key="new" id={null} />;
      if (second !== undefined && third === 'editar') return <NfeForm key={second} id={second} />;
      return <DocumentList query={new URLSearchParams({ modelo: '55' })} />;
    case 'cte':
      if (second === 'novo') return <CteForm key="new" />;
      if (second !== undefined)
        return (
          <CteDetail key={second} id={second} sendFailed={props.route.query.get('envio') === 'falhou'} />
        );
      return <CteList query={props.route.query} />;
    case 'nfse':
      if (second === 'nova') return <NfseForm key="new" id={null} />;
      if (second !== undefined && third === 'editar') return <NfseForm key={`${second}-edit`} id={second} />;
      if (second !== undefined)
        return (
          <NfseDetail key={second} id={second} sendFailed={props.route.query.get('envio') === 'falhou'} />
        );
      return <NfseList query={props.route.query} />;
    case 'dce':
      if (second === 'nova') return <DceForm key="new" id={null} />;
      if (second !== undefined && third === 'editar') return <DceForm key={`${second}-edit`} id={second} />;
      if (second !== undefined)
        return (
          <DceDetail key={second} id={second} sendFailed={props.route.query.get('envio') === 'falhou'} />
        );
      return <DceList query={props.route.query} />;
    case 'lotes':
      return <BatchScreen batchId={second ?? null} />;
    case 'recebidas':
      return <ReceivedScreen />;
    case 'produtos':
      return <ProductsScreen />;
    case 'servicos':
      return <ServicesScreen />;
    case 'operadores':
      return <OperatorsScreen />;
    case 'caixas':
      return <SessionsScreen />;
    case 'relatorios':
      return <ReportsScreen />;
    case 'configuracoes':
      return <Settings section={second ?? 'empresa'} />;
    case 'ajuda':
      return <ApiReference />;
    default:
      return (
        <div className="page">
          <h1>Página não encontrada</h1>
          <p>
            <a href="#/caixa">Voltar ao caixa</a>
          </p>
        </div>
      );
  }
}
