// The files a note is printed or handed over as: DANFE / DANFCe PDFs and the ESC/POS receipt with its PNG
// preview. Handlers parse, load the note and call the pure renderers in src-main/outputs.
import { Router, type Request, type Response } from 'express';
import type { z } from 'zod';
import type { ApiDeps } from '../context.ts';
import { ApiError, invalidState } from '../errors.ts';
import { parseQuery } from '../pagination.ts';
import { documentOfRequest, NF_MODELOS } from './scoping.ts';
import type { DocumentRow } from '../../documents/repository.ts';
import { isPrintable, outputDocumentOf } from '../../outputs/document.ts';
import { logoRepository } from '../../companies/logo.ts';
import { renderNotePdf } from '../../workers/pdf.ts';
import { WorkerCrashed } from '../../workers/pool.ts';
import {
  CODE_PAGE_IDS,
  COLUMNS,
  DEFAULT_PROFILE,
  buildNfceReceipt,
  decodeEscpos,
  receiptText,
  renderReceiptPng,
  type EscposProfile,
  type Largura,
} from '../../outputs/escpos/index.ts';
import {
  danfeQuerySchema,
  escposQuerySchema,
  receiptQuerySchema,
} from '../../../src-shared/contracts/requests.ts';

const danfeQuery = danfeQuerySchema;
const receiptQuery = receiptQuerySchema(CODE_PAGE_IDS as [string, ...string[]]);
const escposQuery = escposQuerySchema(CODE_PAGE_IDS as [string, ...string[]]);

function profileOf(query: z.output<typeof receiptQuery>): EscposProfile {
  return {
    qr: query.qr === undefined ? DEFAULT_PROFILE.qr : query.qr === 'raster' ? 'raster' : 'native',
    codePage: (query.code_page ?? DEFAULT_PROFILE.codePage) as EscposProfile['codePage'],
  };
}

export function documentFileRoutes(deps: ApiDeps, modelo: 55 | 65): Router {
  const { db } = deps;
  const router = Router();

  async function printable(req: Request, res: Response, what: string): Promise<DocumentRow> {
    const doc = await documentOfRequest(db, req, res, modelo === 65 ? 65 : NF_MODELOS);
    if (!isPrintable(doc)) throw invalidState(doc.status, what);
    return doc;
  }

  function receipt(
    doc: DocumentRow,
    query: z.output<typeof receiptQuery>,
  ): { bytes: Uint8Array; size: Largura } {
    const size = Number(query.largura) as Largura;
    const bytes = buildNfceReceipt(outputDocumentOf(doc), {
      largura: size,
      cut: query.cut === 'true',
      profile: profileOf(query),
    });
    return { bytes, size };
  }

  // /v1/nfe/:id/danfe serves both models (an NFC-e gets its DANFCe); /v1/nfce/:id/danfe only NFC-e.
  router.get('/:id/danfe', async (req, res) => {
    const query = parseQuery(req, danfeQuery);
    const doc = await printable(req, res, 'print the DANFE of');
    const output = outputDocumentOf(doc);
    const logo = (await logoRepository.find(db, doc.company_id))?.data;
    // Drawn on the worker pool: the request thread goes on with other requests (the sales) meanwhile.
    const pdf = await renderNotePdf(output, Number(query.largura) as 80 | 58, logo).catch(
      (error: unknown) => {
        // The render's worker died (it is replaced): nothing was lost, the caller may ask again.
        if (error instanceof WorkerCrashed)
          throw new ApiError(
            503 as number,
            'internal_error',
            'The PDF renderer stopped; retry.',
            [],
            {},
            {
              'Retry-After': '1',
            },
          );
        throw error;
      },
    );
    res
      .type('application/pdf')
      .setHeader('Content-Disposition', `inline; filename="${doc.chave}-danfe.pdf"`)
      .send(pdf);
  });

  if (modelo === 65) {
    router.get('/:id/escpos', async (req, res) => {
      const query = parseQuery(req, escposQuery);
      const doc = await printable(req, res, 'print the receipt of');
      const { bytes, size } = receipt(doc, query);
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (query.format === 'raw') {
        res
          .type('application/octet-stream')
          .setHeader('Content-Disposition', `attachment; filename="${doc.chave}-${size}mm.bin"`)
          .send(buffer);
        return;
      }
      if (query.format === 'base64') {
        res.type('text/plain').send(buffer.toString('base64'));
        return;
      }
      res.json({
        id: doc.id,
        chave_acesso: doc.chave,
        largura: size,
        colunas: COLUMNS[size],
        cut: query.cut === 'true',
        qr: profileOf(query).qr === 'native' ? 'nativo' : 'raster',
        code_page: profileOf(query).codePage,
        tamanho: buffer.length,
        base64: buffer.toString('base64'),
        // What the printer prints, as text: for logs, tests and integrators without a printer at hand.
        texto: receiptText(decodeEscpos(bytes, { columns: COLUMNS[size] })),
      });
    });

    router.get('/:id/escpos/preview.png', async (req, res) => {
      const query = parseQuery(req, receiptQuery);
      const doc = await printable(req, res, 'print the receipt of');
      const { bytes, size } = receipt(doc, query);
      res.type('image/png').send(renderReceiptPng(bytes, { largura: size }));
    });
  }

  return router;
}
