// The one place where document kinds are registered (the service imports it at start): generic code finds
// them through documents/registry.ts and never imports a kind.
import { registerKind } from '../registry.ts';
import { nfeKind } from './nfe/kind.ts';
import { nfceKind } from './nfce/kind.ts';
import { cteKind } from './cte/kind.ts';
import { nfseKind } from './nfse/kind.ts';
import { dceKind } from './dce/kind.ts';

registerKind(nfeKind);
registerKind(nfceKind);
registerKind(cteKind);
registerKind(nfseKind);
registerKind(dceKind);

export { nfeKind, nfceKind, cteKind, nfseKind, dceKind };
