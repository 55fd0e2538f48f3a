// One NFS-e: the DPS and the note the national environment generated, the service and its taker, the
// answer and the cancellation, with only the actions its state allows (a draft is edited, sent or deleted;
// a rejected note edited and sent again; an authorized one cancelled or substituted; DANFSe and XML once
// authorized), and the links between a note and the one that substitutes it.
import { useState } from 'react';
import type { NfseCancelAnswer, NfseView } from '../../../src-shared/contracts/nfse-view.ts';
import { Banner, ErrorBanner, downloadText, newIdempotencyKey, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { dateTimeBr, taxIdBr } from '../format.ts';
import { otherDetails } from '../messages.ts';
import { href, navigate } from '../router.ts';
import { NfseCancelDialog, CANCEL_REASONS } from './NfseCancelDialog.tsx';
import { NfseStatusBadge, nfseMoney } from './NfseList.tsx';
import { NfseSubstituteDialog } from './NfseSubstituteDialog.tsx';
import { QueuedBanner, SendFailedBanner, usePollWhile } from './document-detail-parts.tsx';
import { DeleteDraftDialog } from './document-dialogs.tsx';

const CANCEL_STATUS_PT: Readonly<Record<string, string>> = {
  processando: 'aguardando o ambiente nacional',
  registrada: 'registrado',
  rejeitada: 'recusado',
};

/**
 * The national environment's text without the code it repeats: its answers list each error as "E004 text"
 * (several joined by "; "), and the code is already shown beside it.
 */
function reason(cStat: string | null, xMotivo: string | null): string {
  const text = xMotivo ?? '';
  return cStat === null ? text : text.replace(new RegExp(`^${cStat}[\\s:–-]+`), '');
}

/** "E012 – Alíquota do ISS difere…", the code alone when the text was not kept. */
function answerText(cStat: string | null, xMotivo: string | null): string {
  if (cStat === null) return '—';
  const text = reason(cStat, xMotivo);
  return text === '' ? cStat : `${cStat} – ${text}`;
}

/** The 50-digit key in groups of five, as the DANFSe prints it; the DPS Id as it is. */
function keyText(chave: string): string {
  return /^\d{50}$/.test(chave) ? (chave.match(/\d{5}/g) ?? []).join(' ') : chave;
}

type Dialog = 'cancel' | 'substitute' | 'delete' | null;

/** `sendFailed`: the form saved the note but its send was refused (the address says `?envio=falhou`). */
export function NfseDetail(props: { id: string; sendFailed?: boolean }) {
  const { api } = useApp();
  const doc = useLoad(() => api.nfse.get(props.id), [api, props.id]);
  const [dialog, setDialog] = useState<Dialog>(null);
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const d = doc.data;

  // Followed until it settles: on its way to the national environment, or a cancellation awaiting its answer.
  const settling = d !== null && (d.status === 'processando' || d.cancelamento?.status === 'processando');
  usePollWhile(settling, 1500, () => void doc.reload());

  if (d === null)
    return (
      <div className="page">{doc.error !== null ? <ErrorBanner error={doc.error} /> : 'Carregando…'}</div>
    );

  const editable = d.status === 'rascunho' || d.status === 'erro';
  // Only a note the national environment never answered may go (a draft, or an error found before it was
  // sent): the service refuses the others, so the button is not offered.
  const canDelete = d.status === 'rascunho' || (d.status === 'erro' && d.cStat === null);
  const authorized = d.status === 'authorized';
  const hasDanfse = authorized || d.status === 'cancelada' || d.status === 'substituida';
  const canCancel = authorized && d.cancelamento?.status !== 'processando';

  const send = async () => {
    setNotice(null);
    // Queued (202): the "na fila" banner and the polling follow it until the national environment answers.
    await action.run(() => api.nfse.send(d.id, newIdempotencyKey('nfse-envio')));
    await doc.reload();
  };
  const downloadXml = async () => {
    const xml = await action.run(() => api.nfse.xml(d.id));
    if (xml === undefined) return;
    if (xml.nfse_xml !== null) downloadText(`${d.chave_acesso_50 ?? d.dps_id}-NFSe.xml`, xml.nfse_xml);
    else downloadText(`${d.dps_id}-DPS.xml`, xml.dps_xml);
  };
  const cancelled = (answer: NfseCancelAnswer) => {
    setDialog(null);
    setNotice(
      answer.cancelamento?.status === 'registrada'
        ? 'Cancelamento registrado no ambiente nacional.'
        : 'Pedido de cancelamento na fila do ambiente nacional.',
    );
    void doc.reload();
  };

  return (
    <div className="page" data-testid="nfse-detail" data-status={d.status}>
      <p>
        <a href={href('/nfse')}>‹ NFS-e</a>
      </p>
      <div className="page-head">
        <h1>
          {d.numero_nfse !== null ? `NFS-e nº ${d.numero_nfse}` : 'NFS-e'}{' '}
          <span className="muted">
            DPS nº {d.numero} série {d.serie}
          </span>{' '}
          <NfseStatusBadge status={d.status} />
        </h1>
      </div>
      <div className="actions" aria-label="Ações">
        {editable ? (
          <>
            <button type="button" className="primary" onClick={() => void send()} disabled={action.pending}>
              {d.status === 'erro' ? 'Reenviar' : 'Enviar ao ambiente nacional'}
            </button>
            <a className="button" href={href(`/nfse/${d.id}/editar`)}>
              Editar
            </a>
          </>
        ) : null}
        {canDelete ? (
          <button type="button" className="danger" onClick={() => setDialog('delete')}>
            Excluir
          </button>
        ) : null}
        {d.status === 'processando' ? (
          <button type="button" onClick={() => void doc.reload()} disabled={doc.loading}>
            Atualizar
          </button>
        ) : null}
        {canCancel ? (
          <button type="button" className="danger" onClick={() => setDialog('cancel')}>
            Cancelar NFS-e
          </button>
        ) : null}
        {authorized ? (
          <button type="button" onClick={() => setDialog('substitute')}>
            Substituir
          </button>
        ) : null}
        {hasDanfse ? (
          <>
            <a className="button" href={api.nfse.danfseUrl(d.id)} target="_blank" rel="noreferrer">
              DANFSe (PDF)
            </a>
            <a className="button" href={api.nfse.danfseUrl(d.id, { download: true })} download>
              Baixar DANFSe
            </a>
            <button type="button" onClick={() => void downloadXml()}>
              Baixar XML
            </button>
          </>
        ) : null}
      </div>
      {notice !== null ? <Banner kind="ok">{notice}</Banner> : null}
      <ErrorBanner error={action.error} extra={otherDetails(action.error, [])} />
      <SendFailedBanner
        show={props.sendFailed === true && d.status === 'rascunho' && action.error === null}
        saved="A NFS-e foi salva"
        send="o envio"
        button="Enviar ao ambiente nacional"
      />
      {d.status === 'erro' && d.cStat !== null ? (
        <Banner kind="error" testId="rejection">
          Rejeição {d.cStat}: {reason(d.cStat, d.xMotivo)}. Corrija em “Editar” e reenvie.
        </Banner>
      ) : null}
      {d.cancelamento?.status === 'rejeitada' ? (
        <Banner kind="error" testId="cancel-rejected">
          Cancelamento recusado pelo ambiente nacional:{' '}
          {answerText(d.cancelamento.cStat, d.cancelamento.xMotivo)}.
        </Banner>
      ) : null}
      <QueuedBanner show={d.status === 'processando'} authority="o ambiente nacional" />
      {d.substituida_por_nfse_id !== null ? (
        <Banner kind="warn" testId="substituted-by">
          {d.status === 'substituida' ? 'Substituída pela ' : 'Substituição em andamento: '}
          <a href={href(`/nfse/${d.substituida_por_nfse_id}`)}>nova NFS-e</a>.
        </Banner>
      ) : null}
      {d.substitui_nfse_id !== null ? (
        <Banner kind="info" testId="substitutes">
          Esta NFS-e substitui <a href={href(`/nfse/${d.substitui_nfse_id}`)}>a nota anterior</a>
          {d.status === 'authorized' ? ', que passou a “Substituída”.' : '.'}
        </Banner>
      ) : null}

      <div className="two-col">
        <section className="card">
          <h2>Identificação</h2>
          <dl className="props">
            <dt>{d.chave_acesso_50 !== null ? 'Chave de acesso' : 'Id da DPS'}</dt>
            <dd className="mono small" data-testid="access-key">
              {keyText(d.chave_acesso_50 ?? d.dps_id)}
            </dd>
            <dt>Emissão da DPS</dt>
            <dd>{dateTimeBr(d.data_emissao)}</dd>
            <dt>Ambiente</dt>
            <dd>{d.ambiente === 'producao' ? 'Produção' : 'Homologação'}</dd>
            <dt>Número da NFS-e</dt>
            <dd data-testid="numero-nfse">{d.numero_nfse ?? '—'}</dd>
            <dt>Protocolo (nDFSe)</dt>
            <dd data-testid="protocol">{d.protocolo ?? '—'}</dd>
            <dt>Retorno</dt>
            <dd>{answerText(d.cStat, d.xMotivo)}</dd>
            {d.qr_code_url !== null ? (
              <>
                <dt>Consulta pública</dt>
                <dd>
                  <a href={d.qr_code_url} target="_blank" rel="noreferrer">
                    abrir no portal nacional
                  </a>
                </dd>
              </>
            ) : null}
          </dl>
        </section>
        <section className="card">
          <h2>Serviço</h2>
          <dl className="props">
            <dt>Código de tributação nacional</dt>
            <dd>{d.codigo_tributacao_nacional}</dd>
            <dt>Descrição</dt>
            <dd data-testid="nfse-descricao">{d.descricao_servico}</dd>
            <dt>Valor do serviço</dt>
            <dd className="num strong" data-testid="nfse-total">
              {nfseMoney(d.valor_servico)}
            </dd>
            <dt>ISS</dt>
            <dd>
              {d.aliquota_iss === null ? 'alíquota do município' : `${d.aliquota_iss.replace('.', ',')} %`}
              {d.iss_retido ? ' · retido pelo tomador' : ' · a recolher pelo prestador'}
            </dd>
          </dl>
        </section>
      </div>
      <div className="two-col">
        <TomadorCard tomador={d.tomador} />
        {d.cancelamento !== null ? (
          <section className="card" data-testid="nfse-cancelamento">
            <h2>Cancelamento</h2>
            <dl className="props">
              <dt>Situação</dt>
              <dd>{CANCEL_STATUS_PT[d.cancelamento.status] ?? d.cancelamento.status}</dd>
              <dt>Motivo</dt>
              <dd>
                {CANCEL_REASONS.find((r) => r.codigo === d.cancelamento?.codigo_motivo)?.label ??
                  d.cancelamento.codigo_motivo}
              </dd>
              <dt>Justificativa</dt>
              <dd>{d.cancelamento.justificativa}</dd>
              <dt>Protocolo</dt>
              <dd>{d.cancelamento.protocolo ?? '—'}</dd>
              <dt>Registrado em</dt>
              <dd>{dateTimeBr(d.cancelamento.registrado_em)}</dd>
            </dl>
          </section>
        ) : null}
      </div>

      {dialog === 'cancel' ? (
        <NfseCancelDialog nfse={d} onClose={() => setDialog(null)} onDone={cancelled} />
      ) : null}
      {dialog === 'substitute' ? (
        <NfseSubstituteDialog
          nfse={d}
          onClose={() => setDialog(null)}
          onDone={(created) => navigate(`/nfse/${created.id}`)}
        />
      ) : null}
      {dialog === 'delete' ? (
        <DeleteDialog nfse={d} onClose={() => setDialog(null)} onDone={() => navigate('/nfse')} />
      ) : null}
    </div>
  );
}

function TomadorCard(props: { tomador: NfseView['tomador'] }) {
  const t = props.tomador;
  const e = t?.endereco ?? null;
  return (
    <section className="card" data-testid="nfse-tomador-view">
      <h2>Tomador</h2>
      {t === null ? (
        <p className="muted">Sem tomador identificado.</p>
      ) : (
        <dl className="props">
          <dt>Nome</dt>
          <dd>{t.razao_social}</dd>
          <dt>CPF/CNPJ</dt>
          <dd>{taxIdBr(t.cpf_cnpj)}</dd>
          <dt>E-mail</dt>
          <dd>{t.email ?? '—'}</dd>
          <dt>Endereço</dt>
          <dd>
            {e === null
              ? '—'
              : `${e.logradouro}, ${e.numero} – ${e.bairro}, ${e.municipio}/${e.uf} – CEP ${e.cep}`}
          </dd>
        </dl>
      )}
    </section>
  );
}

function DeleteDialog(props: { nfse: NfseView; onClose: () => void; onDone: () => void }) {
  const { api } = useApp();
  return (
    <DeleteDraftDialog
      title={`Excluir a DPS nº ${props.nfse.numero}`}
      remove={() => api.nfse.remove(props.nfse.id)}
      onClose={props.onClose}
      onDone={props.onDone}
    >
      <p>A NFS-e ainda não emitida sai da lista; nada foi registrado no ambiente nacional.</p>
    </DeleteDraftDialog>
  );
}
