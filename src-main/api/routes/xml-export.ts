// GET /v1/companies/:id/xml-export?mes=AAAA-MM: the month's XML as one zip for the accountant, streamed
// as it is built (a browser link with ?api_key= downloads it).
import { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseQuery } from '../pagination.ts';
import { companyForAuth } from '../../companies/service.ts';
import { writeMonthExport } from '../../exports/xml-export.ts';
import { xmlExportQuerySchema } from '../../../src-shared/contracts/requests.ts';

export function xmlExportRoutes(deps: ApiDeps): Router {
  const { db, logger } = deps;
  const router = Router();

  router.get('/companies/:id/xml-export', async (req, res) => {
    const { mes } = parseQuery(req, xmlExportQuerySchema);
    const company = await companyForAuth(db, authOf(res), String(req.params['id']));
    res
      .status(200)
      .type('application/zip')
      .setHeader('Content-Disposition', `attachment; filename="xml-${company.cnpj}-${mes}.zip"`);
    try {
      await writeMonthExport(db, company, mes, async (chunk) => {
        if (!res.write(chunk)) {
          await new Promise<void>((resolve, reject) => {
            const drained = () => {
              res.off('close', gone);
              resolve();
            };
            const gone = () => {
              res.off('drain', drained);
              reject(new Error('the client went away'));
            };
            res.once('drain', drained);
            res.once('close', gone);
          });
        }
      });
      res.end();
    } catch (error) {
      // The status line is already sent: a cut connection is the only way left to say the zip is not whole.
      logger.error('xml export failed', { companyId: company.id, mes, error: String(error) });
      res.destroy();
    }
  });

  return router;
}
