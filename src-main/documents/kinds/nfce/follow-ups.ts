// The signed follow-up messages the queue may need to resolve a doubtful NFC-e attempt: cancellation by
// substitution (NT 2018.004, event 110112) and inutilização of a number that never reached the authority.
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/client.ts';
import type { SecretBox } from '../../../security/secret-box.ts';
import { buildInutilizacao, signInutilizacao } from '../../../fiscal/inutilizacao.ts';
import type { FollowUps } from '../../../outbox/worker.ts';
import { ufBySigla } from '../../../../src-shared/uf.ts';
import { loadCompanyFiscal } from '../../context.ts';
import { nfceSubstitutionRule } from '../nf/events.ts';

function schemaProblem(kind: string, errors: { message: string }[]): Error {
  return new Error(`${kind} does not validate: ${errors.map((e) => e.message).join('; ')}`);
}

export function followUpsFor(db: Db, secrets: SecretBox, clock: Clock): FollowUps {
  return {
    async substitution(attempt, replacement) {
      const fiscal = await loadCompanyFiscal(db, secrets, attempt.company_id, clock.now(), attempt.ambiente);
      const built = await nfceSubstitutionRule.build({
        fiscal,
        doc: attempt,
        nSeq: 1,
        now: clock.now(),
        details: { chave: replacement.chave, numero: replacement.n_nf },
      });
      return { message: built.xml, tpEvento: nfceSubstitutionRule.tpEvento };
    },

    async voidNumber(attempt) {
      const fiscal = await loadCompanyFiscal(db, secrets, attempt.company_id, clock.now(), attempt.ambiente);
      const uf = ufBySigla(fiscal.emit.enderEmit.UF);
      if (uf === undefined) throw new Error(`unknown UF ${fiscal.emit.enderEmit.UF}`);
      const built = buildInutilizacao({
        tpAmb: fiscal.tpAmb,
        cUF: uf.cUF,
        ano: attempt.dh_emi.slice(2, 4),
        CNPJ: fiscal.emit.CNPJ,
        mod: attempt.modelo as 55 | 65,
        serie: attempt.serie,
        nNFIni: attempt.n_nf,
        nNFFin: attempt.n_nf,
        xJust: 'Numero nao transmitido: venda reemitida em contingencia off-line com outro numero',
      });
      const signed = signInutilizacao(built.xml, fiscal.certificate);
      if (signed.errors.length > 0) throw schemaProblem('inutilização', signed.errors);
      return signed.xml;
    },
  };
}
