// The layer seams of docs/architecture.md ("Errors and layers") are lint rules; this runs ESLint with the
// project's own config on a small file in each forbidden position, so that a seam cannot silently disappear
// (a rule deleted, a files pattern that no longer matches after a move).
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src-main/paths.ts';

const SEAM_RULE = '@typescript-eslint/no-restricted-imports';
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: projectRoot });
});

/** The seam messages ESLint gives for `code` placed at `file` (repository-relative; the file need not exist). */
async function seamFaults(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${projectRoot}/${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === SEAM_RULE).map((m) => m.message);
}

describe('nothing outside src-main/api/ imports it', () => {
  it.each([
    ['src-main/catalog/seam-fixture.ts', "import { ApiError } from '../api/errors.ts';"],
    ['src-main/documents/seam-fixture.ts', "import { authOf } from '../api/middleware/auth.ts';"],
    [
      'src-main/documents/kinds/cte/seam-fixture.ts',
      "import type { ApiDeps } from '../../../api/context.ts';",
    ],
    ['src-main/outbox/seam-fixture.ts', "export { parseOrThrow } from '../api/validation.ts';"],
    ['src-main/fiscal/taxes/seam-fixture.ts', "import { notFound } from '../../api/errors.ts';"],
    ['src-main/cli-fixture.ts', "import { createApp } from './api/server.ts';"],
  ])('%s', async (file, code) => {
    const faults = await seamFaults(file, code);
    expect(faults).toHaveLength(1);
    expect(faults[0]).toContain('Only src-main/api/ knows HTTP');
  });

  it('lets api/ itself, the composition root and tests import it, and services import the domain errors', async () => {
    expect(
      await seamFaults('src-main/api/routes/seam-fixture.ts', "import { ApiError } from '../errors.ts';"),
    ).toEqual([]);
    expect(await seamFaults('src-main/service.ts', "import { createApp } from './api/server.ts';")).toEqual(
      [],
    );
    expect(
      await seamFaults(
        'src-main/catalog/seam-fixture.test.ts',
        "import { ApiError } from '../api/errors.ts';",
      ),
    ).toEqual([]);
    expect(
      await seamFaults(
        'src-main/catalog/seam-fixture.ts',
        "import { DomainError } from '../errors.ts';\nimport { x } from '../api-keys/service.ts';",
      ),
    ).toEqual([]);
  });
});

describe('generic lifecycle code imports no kind', () => {
  it.each([
    [
      'src-main/documents/seam-fixture.ts',
      "import { cteKind } from './kinds/cte/kind.ts';",
      'no document kind',
    ],
    ['src-main/documents/seam-fixture.ts', "import './kinds/index.ts';", 'no document kind'],
    [
      'src-main/outbox/seam-fixture.ts',
      "import { nfeKind } from '../documents/kinds/nfe/kind.ts';",
      'no document kind',
    ],
    [
      'src-main/webhooks/seam-fixture.ts',
      "import type { NfeModel } from '../fiscal/nfe/model.ts';",
      "kind's fiscal model",
    ],
    [
      'src-main/documents/seam-fixture.ts',
      "import { prepareCte } from '../fiscal/cte/prepare.ts';",
      "kind's fiscal model",
    ],
  ])('%s: %s', async (file, code, message) => {
    const faults = await seamFaults(file, code);
    expect(faults).toHaveLength(1);
    expect(faults[0]).toContain(message);
  });

  it('lets the generic code use the registry and the kind-neutral fiscal modules', async () => {
    const code =
      "import { findKindById } from './registry.ts';\nimport { signXml } from '../fiscal/sign.ts';";
    expect(await seamFaults('src-main/documents/seam-fixture.ts', code)).toEqual([]);
  });
});

describe('a kind imports no other kind', () => {
  it.each([
    ['src-main/documents/kinds/cte/seam-fixture.ts', "import { nfeKind } from '../nfe/kind.ts';"],
    ['src-main/documents/kinds/cte/seam-fixture.ts', "import { nfProtocol } from '../nf/protocol.ts';"],
    ['src-main/documents/kinds/nfe/seam-fixture.ts', "import { cteKind } from '../cte/kind.ts';"],
    ['src-main/documents/kinds/nfe/seam-fixture.ts', "import { nfceKind } from '../../kinds/nfce/kind.ts';"],
    ['src-main/documents/kinds/nfce/sub/seam-fixture.ts', "import { nfeKind } from '../../nfe/kind.ts';"],
  ])('%s: %s', async (file, code) => {
    const faults = await seamFaults(file, code);
    expect(faults).toHaveLength(1);
    expect(faults[0]).toContain('imports no other kind');
  });

  it('lets NF-e and NFC-e share their family code (kinds/nf/) and every kind use the generic code', async () => {
    const code =
      "import { nfProtocol } from '../nf/protocol.ts';\nimport { registerKind } from '../../registry.ts';";
    expect(await seamFaults('src-main/documents/kinds/nfce/seam-fixture.ts', code)).toEqual([]);
    expect(await seamFaults('src-main/documents/kinds/nfe/seam-fixture.ts', code)).toEqual([]);
  });
});

describe('the shared drawing kits of outputs/ know no kind', () => {
  it.each([
    [
      'src-main/outputs/pdf/draw.ts',
      "import { parseOutputDocument } from '../model.ts';",
      "no kind's printed",
    ],
    ['src-main/outputs/pdf/fonts.ts', "import { renderDacte } from './dacte.ts';", "no kind's printed"],
    ['src-main/outputs/pdf/form.ts', "import { renderDanfe } from './danfe.ts';", "no kind's printed"],
    [
      'src-main/outputs/barcode/code128.ts',
      "import { parseCte } from '../cte-model.ts';",
      "no kind's printed",
    ],
    ['src-main/outputs/escpos/layout.ts', "import { receipt } from './receipt.ts';", "no kind's printed"],
    [
      'src-main/outputs/pdf/format.ts',
      "import { cteKind } from '../../documents/kinds/cte/kind.ts';",
      'no document kind',
    ],
    [
      'src-main/outputs/escpos/commands.ts',
      "import type { NfeModel } from '../../fiscal/nfe/model.ts';",
      "kind's fiscal model",
    ],
  ])('%s: %s', async (file, code, message) => {
    const faults = await seamFaults(file, code);
    expect(faults).toHaveLength(1);
    expect(faults[0]).toContain(message);
  });

  it("lets a kind's printed document use the kits", async () => {
    const code =
      "import { parseOutputDocument } from '../model.ts';\nimport { drawBarcode } from './draw.ts';";
    expect(await seamFaults('src-main/outputs/pdf/danfe.ts', code)).toEqual([]);
  });
});

describe('fiscal/taxes imports no document model', () => {
  it.each([
    "import type { NfeModel } from '../nfe/model.ts';",
    "import { idDestOf } from '../nfe/ide.ts';",
    "import type { CteModel } from '../cte/model.ts';",
  ])('%s', async (code) => {
    const faults = await seamFaults('src-main/fiscal/taxes/seam-fixture.ts', code);
    expect(faults).toHaveLength(1);
    expect(faults[0]).toContain('fiscal/taxes reads its own input types');
  });

  it('keeps the package boundaries of fiscal/ beside the seam', async () => {
    const [result] = await eslint.lintText("import express from 'express';", {
      filePath: `${projectRoot}/src-main/fiscal/taxes/seam-fixture.ts`,
    });
    expect(result?.messages.map((m) => m.ruleId)).toContain('no-restricted-imports');
  });
});
