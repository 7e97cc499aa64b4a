// Lint rules that matter for async NATS/gRPC code: no floating promises, no console in
// library code, no `export *`, type-only imports marked.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '.tollgate/**', 'packages/contracts/src/gen/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'List exports by name; no `export *`.' },
      ],
    },
  },
  {
    files: [
      'packages/*/src/**/*.ts',
      'packages/connectors/*/src/**/*.ts',
      'services/*/src/**/*.ts',
    ],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      'no-console': 'error',
    },
  },
  {
    // The console's single-page app runs in the browser.
    files: ['services/console/web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The CLI talks to people on stdout/stderr.
    files: ['packages/cli/src/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
