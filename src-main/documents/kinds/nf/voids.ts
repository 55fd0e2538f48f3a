// Inutilização de numeração of the NF-e 4.00 family (MOC 7.0 §5.5, NFeInutilizacao4) as the kinds' VoidRule:
// the signed inutNFe for a range of one model and series. Faults are named with the generic range fields
// (modelo, serie, numeroInicial, numeroFinal, justificativa), which documents/inutilizar.ts renames to the
// caller's spelling.
import { DomainError, validationError } from '../../../errors.ts';
import { buildInutilizacao, InutilizacaoError, signInutilizacao } from '../../../fiscal/inutilizacao.ts';
import { ufBySigla } from '../../../../src-shared/uf.ts';
import type { VoidRule } from '../../kind.ts';
import { MAX_RANGE } from '../../inutilizar.ts';

const INPUT_FIELD: Readonly<Record<string, string>> = {
  mod: 'modelo',
  serie: 'serie',
  nNFIni: 'numeroInicial',
  nNFFin: 'numeroFinal',
  xJust: 'justificativa',
};

/** The 2-digit year of `now` in the emitter's UF (the authority refuses a year ahead of its own, 453). */
function yearIn(now: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone, year: '2-digit' }).format(now);
}

export function nfVoidRule(modelo: 55 | 65): VoidRule {
  return {
    maxRange: MAX_RANGE,
    build({ fiscal, serie, from, to, justificativa, now }) {
      const uf = ufBySigla(fiscal.emit.enderEmit.UF);
      if (uf === undefined) throw new Error(`company ${fiscal.company.id} has an unknown UF`);
      let built;
      try {
        built = buildInutilizacao({
          tpAmb: fiscal.tpAmb,
          cUF: uf.cUF,
          ano: yearIn(now, uf.timeZone),
          CNPJ: fiscal.emit.CNPJ,
          mod: modelo,
          serie,
          nNFIni: from,
          nNFFin: to,
          xJust: justificativa,
        });
      } catch (error) {
        if (!(error instanceof InutilizacaoError)) throw error;
        throw validationError(
          error.details.map((d) => ({ field: INPUT_FIELD[d.field] ?? d.field, error: d.error })),
        );
      }
      const signed = signInutilizacao(built.xml, fiscal.certificate);
      if (signed.errors.length > 0) {
        throw new DomainError(
          'fiscal_rejection',
          'The inutilização does not validate against the schema.',
          signed.errors.map((e) => ({ field: e.field ?? 'xml', error: e.message })),
        );
      }
      return signed.xml;
    },
  };
}
