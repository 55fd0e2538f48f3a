// The NFS-e view read back from the real national samples: the DPS fields from the signed DPS, the note's
// own (number, rate applied) from the authorized <NFSe>, the API's `authorized` for a stored `autorizada`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DocumentRow } from '../../repository.ts';
import type { DocumentEventRow } from '../../events-service.ts';
import { dpsIdOf, nfseStatusOf, nfseView, storedStatusOf } from './view.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const samples = path.resolve(here, '../../../../../shared/reference/samples/nfse');
const dpsXml = fs.readFileSync(
  path.join(samples, 'ExemploPisZeradoCofinsSobreFaturamentoPreenchido.xml'),
  'utf8',
);
const nfseXml = fs.readFileSync(path.join(samples, 'nfse.xml'), 'utf8');
const CHAVE = '15054862231305199000190000000000000225121645026250';
const DPS_ID = 'DPS330455721190597100010500333000000000000006';

function row(overrides: Partial<DocumentRow> = {}): DocumentRow {
  return {
    id: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
    company_id: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
    modelo: 98,
    serie: 333,
    n_nf: 6,
    ambiente: 'homologacao',
    tp_emis: 1,
    chave: CHAVE,
    status: 'autorizada',
    payload_json: '{}',
    xml: dpsXml,
    digest_value: '',
    v_nf: '10000.00',
    dh_emi: '2025-12-30T19:00:06-03:00',
    qr_code: null,
    url_chave: null,
    c_stat: '100',
    x_motivo: 'NFS-e gerada',
    n_prot: '9',
    authorized_at: '2025-12-03T09:51:59-03:00',
    prot_xml: nfseXml,
    proc_xml: nfseXml,
    replaced_by: null,
    replaces: null,
    created_at: '2025-12-30T22:00:06.000Z',
    updated_at: '2025-12-30T22:00:07.000Z',
    ...overrides,
  };
}

function cancelEvent(overrides: Partial<DocumentEventRow> = {}): DocumentEventRow {
  return {
    id: 'ev-1',
    document_id: row().id,
    company_id: row().company_id,
    tp_evento: '101101',
    n_seq: 1,
    status: 'registrada',
    payload: JSON.stringify({
      codigo_motivo: 2,
      justificativa: 'Servico nao prestado ao tomador',
      cMotivo: '2',
    }),
    xml: '<pedRegEvento/>',
    outbox_id: 1,
    c_stat: '135',
    x_motivo: 'Evento registrado',
    n_prot: 'EVT1',
    proc_xml: '<evento/>',
    registered_at: '2025-12-31T10:00:00-03:00',
    created_at: '2025-12-31T12:59:00.000Z',
    updated_at: '2025-12-31T13:00:00.000Z',
    ...overrides,
  };
}

describe('nfseView', () => {
  it('shows an authorized note as §2.8 answers it, with absolute links', () => {
    const view = nfseView(row(), { base: 'https://127.0.0.1:3000' });
    expect(view).toMatchObject({
      status: 'authorized',
      numero_nfse: 2,
      chave_acesso_50: CHAVE,
      data_emissao: '2025-12-30T19:00:06-03:00',
      valor_total: 10000,
      valor_servico: 10000,
      protocolo: '9',
      serie: 333,
      numero: 6,
      dps_id: DPS_ID,
      codigo_tributacao_nacional: '010101',
      descricao_servico: 'Analise e desenvolvimento de sistemas (MXM)',
      iss_retido: false,
      // The rate the national environment applied (pAliqAplic of the note).
      aliquota_iss: '5.00',
      cancelamento: null,
      substitui_nfse_id: null,
      substituida_por_nfse_id: null,
    });
    expect(view.danfse_url).toBe(`https://127.0.0.1:3000/v1/nfse/${view.id}/danfse`);
    expect(view.xml_url).toBe(`https://127.0.0.1:3000/v1/nfse/${view.id}/xml`);
    expect(view.qr_code_url).toContain(CHAVE);
    expect(view.tomador).toEqual({
      cpf_cnpj: '39847728000199',
      razao_social: 'MXM & JETTAX',
      email: 'SAU@mxm.com.br',
      // The DPS carries the IBGE code only; the name and UF are the IBGE table's for that code.
      endereco: {
        logradouro: 'AV RIO BRANCO',
        numero: '123',
        bairro: 'CENTRO',
        municipio: 'Niterói',
        uf: 'RJ',
        cep: '24020077',
      },
    });
  });

  it("names the taker's municipality by the IBGE table whether the integrator sent its code or a folded name", () => {
    for (const sent of ['3303302', 'niteroi']) {
      const payload = { tomador: { endereco: { municipio: sent, uf: 'rj' } } };
      const view = nfseView(row({ payload_json: JSON.stringify(payload) }));
      expect(view.tomador?.endereco).toMatchObject({ municipio: 'Niterói', uf: 'RJ' });
    }
  });

  it('before authorization: the DPS Id is the key, no note number, no QR code, the DPS rate', () => {
    const view = nfseView(
      row({
        status: 'processando',
        chave: DPS_ID,
        prot_xml: null,
        proc_xml: null,
        n_prot: null,
        c_stat: null,
      }),
    );
    expect(view).toMatchObject({
      status: 'processando',
      numero_nfse: null,
      chave_acesso_50: null,
      qr_code_url: null,
      protocolo: null,
      dps_id: DPS_ID,
      // The sample DPS writes no pAliq: the municipality's rate applies.
      aliquota_iss: null,
    });
    expect(view.danfse_url).toBe(`/v1/nfse/${view.id}/danfse`);
  });

  it('shows the cancellation, and processando while it waits for the national environment', () => {
    const waiting = nfseView(row(), {
      events: [
        cancelEvent({
          status: 'processando',
          c_stat: null,
          x_motivo: null,
          n_prot: null,
          registered_at: null,
        }),
      ],
      eventPending: true,
    });
    expect(waiting.status).toBe('processando');
    expect(waiting.cancelamento).toMatchObject({ status: 'processando', codigo_motivo: 2, protocolo: null });
    const done = nfseView(row({ status: 'cancelada' }), { events: [cancelEvent()] });
    expect(done.status).toBe('cancelada');
    expect(done.cancelamento).toEqual({
      codigo_motivo: 2,
      justificativa: 'Servico nao prestado ao tomador',
      status: 'registrada',
      protocolo: 'EVT1',
      cStat: '135',
      xMotivo: 'Evento registrado',
      registrado_em: '2025-12-31T10:00:00-03:00',
    });
  });

  it('links a substitute and the note it replaced', () => {
    const old = nfseView(row({ status: 'substituida' }), { replacedBy: 'new-id' });
    expect(old).toMatchObject({ status: 'substituida', substituida_por_nfse_id: 'new-id' });
    expect(nfseView(row({ replaces: 'old-id' })).substitui_nfse_id).toBe('old-id');
  });
});

describe('NFS-e statuses', () => {
  it('maps autorizada to authorized and back; rejeitada is erro', () => {
    expect(nfseStatusOf('autorizada')).toBe('authorized');
    expect(nfseStatusOf('rascunho')).toBe('rascunho');
    expect(storedStatusOf('authorized')).toBe('autorizada');
    expect(storedStatusOf('autorizada')).toBe('autorizada');
    expect(storedStatusOf('rejeitada')).toBe('erro');
    expect(storedStatusOf('substituida')).toBe('substituida');
  });

  it('reads the DPS Id from the signed DPS', () => {
    expect(dpsIdOf(dpsXml)).toBe(DPS_ID);
    expect(dpsIdOf('<x/>')).toBe('');
  });
});
