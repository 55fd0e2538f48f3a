// Settings, one section per concern (#/configuracoes/<section>): company, certificate, NFC-e CSC, series,
// environment, printers, API keys, webhooks, this terminal and the sandbox authority.
import type { ReactNode } from 'react';
import { href } from '../router.ts';
import { ApiKeysSection } from './ApiKeys.tsx';
import { CertificateSection } from './Certificate.tsx';
import { CompanySection, CscSection, EnvironmentSection, SeriesSection } from './Company.tsx';
import { PrintersSection } from './Printers.tsx';
import { SandboxSection, TerminalSection } from './Terminal.tsx';
import { WebhooksSection } from './Webhooks.tsx';

const SECTIONS: readonly { id: string; label: string; render: () => ReactNode }[] = [
  { id: 'empresa', label: 'Empresa', render: () => <CompanySection /> },
  { id: 'certificado', label: 'Certificado digital', render: () => <CertificateSection /> },
  { id: 'nfce', label: 'NFC-e (CSC)', render: () => <CscSection /> },
  { id: 'series', label: 'Séries e numeração', render: () => <SeriesSection /> },
  { id: 'ambiente', label: 'Ambiente', render: () => <EnvironmentSection /> },
  { id: 'impressoras', label: 'Impressoras', render: () => <PrintersSection /> },
  { id: 'chaves', label: 'Chaves de API', render: () => <ApiKeysSection /> },
  { id: 'webhooks', label: 'Webhooks', render: () => <WebhooksSection /> },
  { id: 'terminal', label: 'Este terminal', render: () => <TerminalSection /> },
  { id: 'sandbox', label: 'SEFAZ de testes', render: () => <SandboxSection /> },
];

export function Settings(props: { section: string }) {
  const current = SECTIONS.find((s) => s.id === props.section) ?? SECTIONS[0];
  return (
    <div className="settings">
      <nav className="settings-nav" aria-label="Seções de configuração">
        {SECTIONS.map((s) => (
          <a
            key={s.id}
            href={href(`/configuracoes/${s.id}`)}
            className={s.id === current?.id ? 'active' : ''}
          >
            {s.label}
          </a>
        ))}
      </nav>
      <div className="page" data-testid={`settings-${current?.id ?? ''}`}>
        {current?.render()}
      </div>
    </div>
  );
}
