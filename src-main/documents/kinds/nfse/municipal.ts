// The municipal parameters the NFS-e kind asks before a DPS is numbered (convênio E004, ISS rate E012), as the
// national environment's parameters service answers them through the NFS-e authority port.
export type { AliquotaLookup, NfseMunicipalParams } from '../../../authority/nfse/port.ts';
