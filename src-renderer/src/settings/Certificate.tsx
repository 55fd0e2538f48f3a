// The company's A1 certificate: its status and the upload of a new .pfx with its password
// (POST /v1/companies/:id/certificate, multipart). A wrong password gets the API's clear answer.
import { useState } from 'react';
import { Banner, ErrorBanner, Field, FileInput, useAction, useLoad } from '../components.tsx';
import { useApp } from '../context.ts';
import { dateBr, dateTimeBr, taxIdBr } from '../format.ts';
import { otherDetails } from '../messages.ts';
import { refreshStatus } from '../StatusBar.tsx';
import { ApiRequestError } from '../../../src-shared/contracts/api-client.ts';

export function CertificateSection() {
  const { api, company } = useApp();
  const status = useLoad(
    () =>
      api.companies.certificate(company.id).catch((e: unknown) => {
        if (e instanceof ApiRequestError && e.status === 404) return null;
        throw e;
      }),
    [api, company.id],
  );
  const [file, setFile] = useState<File | null>(null);
  const [password, setPassword] = useState('');
  // Remounting the picker clears the chosen file after a successful upload.
  const [pickerKey, setPickerKey] = useState(0);
  const upload = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  const cert = status.data;
  const f = upload.fields;
  return (
    <>
      <h1>Certificado digital A1</h1>
      <section className="card" data-testid="certificate-status">
        <h2>Certificado em uso</h2>
        <ErrorBanner error={status.error} />
        {status.loading && cert === null ? (
          <p className="muted">Carregando…</p>
        ) : cert === null ? (
          <p>Nenhum certificado enviado: sem ele não é possível assinar notas.</p>
        ) : (
          <dl className="props">
            <dt>Titular</dt>
            <dd>{cert.subject}</dd>
            <dt>CNPJ</dt>
            <dd>{taxIdBr(cert.cnpj)}</dd>
            <dt>Emissor</dt>
            <dd>{cert.issuer}</dd>
            <dt>Número de série</dt>
            <dd className="mono small">{cert.serialNumber}</dd>
            <dt>Válido de</dt>
            <dd>
              {dateBr(cert.notBefore)} até {dateBr(cert.notAfter)}
            </dd>
            <dt>Situação</dt>
            <dd>
              {cert.expired ? (
                <strong className="text-bad">Vencido</strong>
              ) : cert.daysToExpiry <= 30 ? (
                <strong className="text-warn">Vence em {cert.daysToExpiry} dias</strong>
              ) : (
                <span>Válido por mais {cert.daysToExpiry} dias</span>
              )}
            </dd>
            <dt>Enviado em</dt>
            <dd>{dateTimeBr(cert.uploadedAt)}</dd>
          </dl>
        )}
      </section>
      <section className="card">
        <h2>Enviar novo certificado</h2>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setSaved(null);
            void upload
              .run(() => {
                if (file === null) throw new Error('Escolha o arquivo .pfx do certificado.');
                return api.companies.uploadCertificate(company.id, file, file.name, password);
              })
              .then((r) => {
                if (r === undefined) return;
                setSaved(`Certificado de ${r.subject} instalado; válido até ${dateBr(r.notAfter)}.`);
                setPassword('');
                setFile(null);
                setPickerKey((k) => k + 1);
                status.setData(r);
                refreshStatus();
              });
          }}
        >
          <div className="form-grid">
            <Field label="Arquivo do certificado (.pfx ou .p12)" error={f['certificate']}>
              <FileInput
                key={pickerKey}
                accept=".pfx,.p12,application/x-pkcs12"
                aria-label="Arquivo do certificado"
                onFile={setFile}
              />
            </Field>
            <Field label="Senha do certificado" error={f['password']}>
              <input
                type="password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                aria-label="Senha do certificado"
                autoComplete="off"
              />
            </Field>
          </div>
          <ErrorBanner error={upload.error} extra={otherDetails(upload.error, ['certificate', 'password'])} />
          {saved !== null ? <Banner kind="ok">{saved}</Banner> : null}
          <button type="submit" className="primary" disabled={upload.pending}>
            Enviar certificado
          </button>
        </form>
        <p className="muted small">
          O arquivo e a senha ficam guardados cifrados (AES-256-GCM) no diretório de dados deste serviço.
        </p>
      </section>
    </>
  );
}
