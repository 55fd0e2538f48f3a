// /v1/companies: read, create, config, numbering, certificate upload and status.
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import multer from 'multer';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseOrThrow } from '../validation.ts';
import { ApiError, forbidden, notFound, validationError } from '../errors.ts';
import { pageList, pageQuery, parseQuery } from '../pagination.ts';
import {
  companyForAuth,
  createCompany,
  getCertificateStatus,
  listSequences,
  municipioDetails,
  toCompanyView,
  updateCompany,
  updateCompanyConfig,
  uploadCertificate,
} from '../../companies/service.ts';
import { companiesRepository } from '../../companies/repository.ts';
import { respTecRepository, respTecView } from '../../companies/resp-tec.ts';
import { inspectLogo, logoRepository, MAX_LOGO_BYTES, MAX_LOGO_TEXT } from '../../companies/logo.ts';
import {
  companyConfigSchema,
  companyCreateSchema,
  companyUpdateSchema,
  sequencesQuerySchema,
  type NfeSequences,
} from '../../../src-shared/contracts/companies.ts';
import { certificateJsonSchema } from '../../../src-shared/contracts/requests.ts';

const MAX_PFX_BYTES = 64 * 1024;

export function companyRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: MAX_PFX_BYTES, files: 1, fields: 4 },
  });

  router.get('/', async (req, res) => {
    const auth = authOf(res);
    const { page, pageSize } = pageQuery(req);
    const { rows, total } = await companiesRepository.listByOrganization(
      db,
      auth.organizationId,
      auth.scope === 'company' ? auth.companyId : null,
      page,
      pageSize,
    );
    const views = [];
    for (const row of rows)
      views.push(toCompanyView(row, respTecView(await respTecRepository.find(db, row.id))));
    res.json(pageList(views, total, page, pageSize));
  });

  router.post('/', async (req, res) => {
    const auth = authOf(res);
    if (auth.scope !== 'organization') throw forbidden('Only an organization key can create companies.');
    const input = parseOrThrow(companyCreateSchema, req.body, [], (raw) =>
      municipioDetails(raw, ['endereco', 'cMun']),
    );
    const view = await createCompany(deps, auth.organizationId, input);
    // A CSC given at creation is registered with the embedded sandbox authority at once, as PUT …/config
    // does: otherwise the company's first NFC-e gets 462/464 until something else syncs it.
    await deps.hooks.companyChanged(view.id);
    res.status(201).json(view);
  });

  router.get('/:id', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params.id);
    res.json(toCompanyView(company, respTecView(await respTecRepository.find(db, company.id))));
  });

  router.put('/:id', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params.id);
    const input = parseOrThrow(companyUpdateSchema, req.body, [], (raw) =>
      municipioDetails(raw, ['endereco', 'cMun']),
    );
    const view = await updateCompany(deps, company, input);
    await deps.hooks.companyChanged(company.id);
    res.json(view);
  });

  router.put('/:id/config', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params.id);
    const config = parseOrThrow(companyConfigSchema, req.body);
    const answer = await updateCompanyConfig(deps, company, config);
    await deps.hooks.companyChanged(company.id);
    res.json(answer);
  });

  router.get('/:id/nfe-sequences', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params.id);
    const { environment } = parseQuery(req, sequencesQuerySchema);
    const answer: NfeSequences = {
      sequences: await listSequences(db, company.id, environment ?? company.ambiente),
    };
    res.json(answer);
  });

  router.get('/:id/certificate', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params.id);
    const status = await getCertificateStatus(db, deps.clock, company.id);
    if (status === null) throw notFound('Certificate');
    res.json(status);
  });

  // Accepts multipart/form-data (fields `certificate` file and `password`) or JSON with base64.
  router.post('/:id/certificate', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params.id);
    let pfx: Uint8Array;
    let password: string;
    if (req.is('multipart/form-data')) {
      await new Promise<void>((resolve, reject) =>
        upload.single('certificate')(req, res, (e) => (e ? reject(e) : resolve())),
      );
      const details = [];
      if (req.file === undefined) details.push({ field: 'certificate', error: 'the .pfx file is required' });
      const body = req.body as Record<string, unknown> | undefined;
      const pwd = body?.['password'];
      if (typeof pwd !== 'string' || pwd === '')
        details.push({ field: 'password', error: 'the password is required' });
      if (details.length > 0) throw validationError(details);
      pfx = (req.file as Express.Multer.File).buffer;
      password = pwd as string;
    } else {
      const input = parseOrThrow(certificateJsonSchema, req.body);
      pfx = Buffer.from(input.certificate, 'base64');
      if (pfx.length > MAX_PFX_BYTES)
        throw validationError([{ field: 'certificate', error: 'file larger than 64 KiB' }]);
      password = input.password;
    }
    res.status(201).json(await uploadCertificate(deps, company, pfx, password));
  });

  // The logo of the DANFE/DANFCe: the image itself as the body (image/png or image/jpeg), or multipart
  // with the file in the field `logo` (what a browser form sends).
  const rawImage = express.raw({ type: ['image/png', 'image/jpeg'], limit: MAX_LOGO_BYTES });
  const logoUpload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: MAX_LOGO_BYTES, files: 1, fields: 0 },
  });
  // The generic 413 names the JSON body limit and multer's names none; the caller is told the logo's own.
  const logoTooLarge = (e: unknown): ApiError | undefined => {
    const { code, type } = (e ?? {}) as { code?: string; type?: string };
    if (code !== 'LIMIT_FILE_SIZE' && type !== 'entity.too.large') return undefined;
    return new ApiError(413, 'payload_too_large', `The logo is larger than the ${MAX_LOGO_TEXT} limit.`, [
      { field: 'logo', error: `larger than ${MAX_LOGO_TEXT}` },
    ]);
  };
  const rawLogo = (req: Request, res: Response, next: NextFunction) =>
    rawImage(req, res, (e?: unknown) => next(e === undefined ? undefined : (logoTooLarge(e) ?? e)));
  router.put('/:id/logo', rawLogo);
  router.put('/:id/logo', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params.id);
    let bytes: Buffer | undefined;
    if (req.is('multipart/form-data')) {
      await new Promise<void>((resolve, reject) =>
        logoUpload.single('logo')(req, res, (e: unknown) =>
          e ? reject(logoTooLarge(e) ?? (e as Error)) : resolve(),
        ),
      );
      bytes = req.file?.buffer;
    } else if (Buffer.isBuffer(req.body)) bytes = req.body;
    if (bytes === undefined)
      throw validationError([
        {
          field: 'logo',
          error: 'send the image as image/png or image/jpeg, or multipart with the field logo',
        },
      ]);
    const inspected = inspectLogo(bytes);
    if (!inspected.ok) throw validationError(inspected.details);
    await logoRepository.put(db, company.id, inspected.info, bytes, deps.clock.now().toISOString());
    res.json({ ...inspected.info, bytes: bytes.length });
  });

  router.get('/:id/logo', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params.id);
    const logo = await logoRepository.find(db, company.id);
    if (logo === undefined) throw notFound('Logo');
    res.type(logo.media_type).send(logo.data);
  });

  router.delete('/:id/logo', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params.id);
    if (!(await logoRepository.remove(db, company.id))) throw notFound('Logo');
    res.status(204).end();
  });

  return router;
}
