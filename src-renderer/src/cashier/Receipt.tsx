// The receipt of a finished sale: the service's own rendering of the printed receipt (the ESC/POS preview
// PNG, what the printer will print); when that image is not available, an HTML rendering of the same note.
import { useEffect, useState } from 'react';
import { toDataURL } from 'qrcode';
import type { DocumentView } from '../../../src-shared/contracts/api-client.ts';
import { useApp } from '../context.ts';
import { accessKeyBr, brlText, dateTimeBr, quantityBr } from '../format.ts';

export function Receipt(props: { doc: DocumentView }) {
  const { api, prefs } = useApp();
  const [imageFailed, setImageFailed] = useState(false);
  const src = api.nfce.previewUrl(props.doc.id, prefs.receiptWidth);
  useEffect(() => setImageFailed(false), [src]);
  if (!imageFailed) {
    return (
      <div className="receipt-preview" data-testid="receipt-preview">
        <img
          src={src}
          alt={`Cupom da NFC-e ${props.doc.numero}`}
          data-testid="receipt-image"
          onError={() => setImageFailed(true)}
        />
      </div>
    );
  }
  return <HtmlReceipt doc={props.doc} />;
}

function HtmlReceipt(props: { doc: DocumentView }) {
  const { company } = useApp();
  const { doc } = props;
  const [qr, setQr] = useState<string | null>(null);
  useEffect(() => {
    if (doc.qr_code === null) return;
    let live = true;
    void toDataURL(doc.qr_code, { margin: 1, width: 180, errorCorrectionLevel: 'M' }).then(
      (url) => live && setQr(url),
    );
    return () => {
      live = false;
    };
  }, [doc.qr_code]);
  return (
    <div className="receipt-preview receipt-html" data-testid="receipt-preview">
      <p className="center strong">{company.xFant ?? company.xNome}</p>
      <p className="center small">Documento Auxiliar da Nota Fiscal de Consumidor Eletrônica</p>
      {doc.ambiente === 'homologacao' ? (
        <p className="center small strong">EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO – SEM VALOR FISCAL</p>
      ) : null}
      {doc.tipo_emissao === 9 ? <p className="center small strong">EMITIDA EM CONTINGÊNCIA</p> : null}
      <table className="receipt-items">
        <tbody>
          {doc.itens.map((i) => (
            <tr key={i.nItem}>
              <td>{i.descricao}</td>
              <td className="num">
                {quantityBr(i.quantidade ?? '0')} × {brlText(i.valor_unitario)}
              </td>
              <td className="num">{brlText(i.valor_total)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="receipt-total">
        <span>Valor a pagar</span>
        <strong>{brlText(doc.valor_total)}</strong>
      </p>
      <p className="small">
        NFC-e nº {doc.numero} série {doc.serie} · {dateTimeBr(doc.dh_emissao)}
      </p>
      <p className="small mono">{accessKeyBr(doc.chave_acesso)}</p>
      {doc.protocolo !== null ? <p className="small">Protocolo {doc.protocolo}</p> : null}
      {qr !== null ? (
        <img className="receipt-qr" src={qr} alt="QR Code da NFC-e" data-testid="receipt-qr" />
      ) : null}
    </div>
  );
}
