// The answer of a printed document's route (DACTE, DANFSe, DACE): the PDF inline, or as an attachment when the
// caller asked to download it, with X-Cache telling a stored PDF from one drawn for this request.
import type { Response } from 'express';

export function sendPdf(
  res: Response,
  data: Buffer | Uint8Array,
  options: { filename: string; download: boolean; hit?: boolean },
): void {
  const disposition = options.download ? 'attachment' : 'inline';
  res
    .type('application/pdf')
    .setHeader('Content-Disposition', `${disposition}; filename="${options.filename}"`);
  if (options.hit !== undefined) res.setHeader('X-Cache', options.hit ? 'HIT' : 'MISS');
  res.send(data);
}
