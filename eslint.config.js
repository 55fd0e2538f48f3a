// ESLint flat config: typescript-eslint recommended rules plus the import boundaries of CONVENTIONS.md and the
// layer seams of docs/architecture.md ("Errors and layers"), which test/contract/seams.test.ts keeps honest.
import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const electronOnlyInDesktop = {
  name: 'electron',
  message: 'Only src-main/desktop/ may import electron (CONVENTIONS.md §1).',
};
const sqliteOnlyInDb = {
  name: 'better-sqlite3',
  message: 'Only src-main/db/ opens the database driver (CONVENTIONS.md §1).',
};
const fiscalForbidden = [
  'express',
  'multer',
  'kysely',
  'better-sqlite3',
  'electron',
  'node:http',
  'node:https',
  'node:net',
  'node:tls',
  'http',
  'https',
  'net',
  'tls',
].map((name) => ({ name, message: 'src-main/fiscal/ is pure: no HTTP, database, network or Electron.' }));

// The layer seams, as a second rule (typescript-eslint's no-restricted-imports) so that they add to the package
// boundaries above instead of replacing them. Relative imports only: `regex` sees the specifier as written.
const relativeTo = (target) => `^(\\.\\.?/)+(.*/)?${target}(/|$)`;
const noApi = {
  regex: relativeTo('api'),
  message: 'Only src-main/api/ knows HTTP: services throw DomainError (src-main/errors.ts) and api/ maps it.',
};
const noKinds = {
  regex: relativeTo('kinds'),
  message: 'Generic lifecycle code imports no document kind: it finds kinds through documents/registry.ts.',
};
const noKindFiscal = {
  regex: relativeTo('fiscal/(nfe|cte)'),
  message: "Generic lifecycle code imports no kind's fiscal model: the kind plugs it in (documents/kind.ts).",
};
const noNfeCteFromTaxes = {
  regex: `${relativeTo('fiscal/(nfe|cte)')}|^\\.\\./(nfe|cte)(/|$)`,
  message:
    'fiscal/taxes reads its own input types (taxes/types.ts); fiscal/nfe imports taxes, never the reverse.',
};
/** Kinds (one folder each under documents/kinds/) and the family folders a kind may share. */
const KINDS_DIR = path.join(import.meta.dirname, 'src-main/documents/kinds');
const KINDS = fs.existsSync(KINDS_DIR)
  ? fs
      .readdirSync(KINDS_DIR, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
  : [];
/** nfe and nfce are one family (layout 4.00, the same events and protocol): kinds/nf/ is their shared code. */
const KIND_FAMILY = { nfe: ['nf'], nfce: ['nf'] };
const otherKinds = (kind) => {
  const others = KINDS.filter((k) => k !== kind && !(KIND_FAMILY[kind] ?? []).includes(k)).join('|');
  return {
    regex: `^(\\.\\./)+(kinds/)?(${others})(/|$)|(^|/)kinds/(${others})(/|$)`,
    message: `documents/kinds/${kind}/ imports no other kind: what two kinds share belongs to the generic code.`,
  };
};
/** A kind's printed document: its XML reader (model.ts is the NF family's) and its renderers. */
const noKindOutput = {
  regex:
    '^(\\.\\.?/)+((pdf|escpos)/)?(model|cte-model|nfse-model|dce-model|danfe|danfce|dacte|danfse|dace|receipt|ticket)\\.ts$',
  message:
    "The shared drawing kits (barcodes, PDF, ESC/POS) know no kind's printed document; kinds use them.",
};
const seamRule = (...patterns) => ['error', { patterns }];
const SEAM_RULE = '@typescript-eslint/no-restricted-imports';
/** Tests drive every layer; the seams hold for the code they test. */
const TESTS = ['**/*.test.ts', '**/*.test.tsx'];

const seams = [
  {
    files: ['src-main/**/*.ts'],
    // service.ts is the composition root: it starts the HTTP app that api/ builds.
    ignores: ['src-main/api/**', 'src-main/service.ts', ...TESTS],
    rules: { [SEAM_RULE]: seamRule(noApi) },
  },
  {
    files: ['src-main/documents/*.ts', 'src-main/outbox/**/*.ts', 'src-main/webhooks/**/*.ts'],
    ignores: [
      ...TESTS,
      // issue.ts is the NF family's facade for its existing callers (it names the NF kinds).
      'src-main/documents/issue.ts',
    ],
    rules: { [SEAM_RULE]: seamRule(noApi, noKinds, noKindFiscal) },
  },
  ...KINDS.map((kind) => ({
    files: [`src-main/documents/kinds/${kind}/**/*.ts`],
    ignores: TESTS,
    rules: { [SEAM_RULE]: seamRule(noApi, otherKinds(kind)) },
  })),
  {
    // The shared parts of outputs/: what every kind's printed document is drawn with.
    files: [
      'src-main/outputs/barcode/**/*.ts',
      'src-main/outputs/pdf/{draw,fonts,format,document,form}.ts',
      'src-main/outputs/escpos/{code-pages,commands,decoder,font,layout,preview}.ts',
    ],
    ignores: TESTS,
    rules: { [SEAM_RULE]: seamRule(noApi, noKinds, noKindFiscal, noKindOutput) },
  },
  {
    files: ['src-main/fiscal/taxes/**/*.ts'],
    // test-model.ts builds whole NF-e models for the tests of taxes and of the NF-e writer.
    ignores: [...TESTS, 'src-main/fiscal/taxes/test-model.ts'],
    rules: { [SEAM_RULE]: seamRule(noApi, noNfeCteFromTaxes) },
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'coverage/', 'src-renderer/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', { paths: [electronOnlyInDesktop, sqliteOnlyInDb] }],
    },
  },
  {
    files: ['src-main/desktop/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [sqliteOnlyInDb] }] },
  },
  {
    files: ['src-main/db/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [electronOnlyInDesktop] }] },
  },
  {
    files: ['src-main/fiscal/**', 'src-shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: fiscalForbidden,
          patterns: [
            {
              group: ['**/db/**', '**/api/**', '**/authority/**', '**/desktop/**'],
              message: 'fiscal code is pure.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src-renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  ...seams,
);
