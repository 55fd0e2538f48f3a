// Settings, one section per concern (#/configuracoes/<section>): the first-setup guide, company, certificate,
// NFC-e CSC, the NFS-e tax regime, series, environment, printers, this terminal and the sandbox authority;
// what connects other systems (API keys, webhooks) is grouped apart under "Integrações", away from the
// store's own settings.
import type { ReactNode } from 'react';
import { href } from '../router.ts';
import { ApiKeysSection } from './ApiKeys.tsx';
import { CertificateSection } from './Certificate.tsx';
import { CompanySection, CscSection, EnvironmentSection, SeriesSection } from './Company.tsx';
import { DceSettingsSection } from './DceSettings.tsx';
import { NfseSettingsSection } from './NfseSettings.tsx';
import { PixSection } from './Pix.tsx';
import { PrintersSection } from './Printers.tsx';
import { SetupGuide } from './SetupGuide.tsx';
import { SandboxSection, TerminalSection } from './Terminal.tsx';
import { WebhooksSection } from './Webhooks.tsx';

const SECTIONS: readonly {
  id: string;
  label: string;
  group?: 'Integrações';
  render: () => ReactNode;
}[] = [
  { id: 'inicio', label: 'Primeiros passos', render: () => <SetupGuide /> },
  { id: 'empresa', label: 'Empresa', render: () => <CompanySection /> },
  { id: 'certificado', label: 'Certificado digital', render: () => <CertificateSection /> },
  { id: 'nfce', label: 'NFC-e (CSC)', render: () => <CscSection /> },
  // The provider's tax regime that every NFS-e's DPS carries (regTrib).
  { id: 'nfse', label: 'NFS-e', render: () => <NfseSettingsSection /> },
  // How the company issues its content declarations (tpEmit, marketplace site, series).
  { id: 'dce', label: 'DC-e', render: () => <DceSettingsSection /> },
  { id: 'series', label: 'Séries e numeração', render: () => <SeriesSection /> },
  { id: 'ambiente', label: 'Ambiente', render: () => <EnvironmentSection /> },
  // Payments the store receives: where an owner looks for the bank's PIX settings, not among integrations.
  { id: 'pix', label: 'PIX', render: () => <PixSection /> },
  { id: 'impressoras', label: 'Impressoras', render: () => <PrintersSection /> },
  { id: 'terminal', label: 'Este terminal', render: () => <TerminalSection /> },
  { id: 'sandbox', label: 'SEFAZ de testes', render: () => <SandboxSection /> },
  { id: 'chaves', label: 'Chaves de API', group: 'Integrações', render: () => <ApiKeysSection /> },
  { id: 'webhooks', label: 'Webhooks', group: 'Integrações', render: () => <WebhooksSection /> },
];

export function Settings(props: { section: string }) {
  // Without a section: the store's data first (the guide while something is still missing).
  const current = SECTIONS.find((s) => s.id === props.section) ?? SECTIONS[1];
  const link = (s: (typeof SECTIONS)[number]) => (
    <a key={s.id} href={href(`/configuracoes/${s.id}`)} className={s.id === current?.id ? 'active' : ''}>
      {s.label}
    </a>
  );
  return (
    <div className="settings">
      <nav className="settings-nav" aria-label="Seções de configuração">
        {SECTIONS.filter((s) => s.group === undefined).map(link)}
        <span className="settings-nav-group" data-testid="settings-integrations">
          Integrações
        </span>
        {SECTIONS.filter((s) => s.group === 'Integrações').map(link)}
      </nav>
      <div className="page" data-testid={`settings-${current?.id ?? ''}`}>
        {current?.render()}
      </div>
    </div>
  );
}
