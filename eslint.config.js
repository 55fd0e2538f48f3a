// ESLint flat config: typescript-eslint recommended rules plus the import boundaries of CONVENTIONS.md.
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
);
