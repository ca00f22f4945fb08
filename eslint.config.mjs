// ESLint flat config. Formatting is Prettier's job: nothing here checks layout, so the two never
// disagree. Type-unaware typescript-eslint rules keep the whole run quick on a small machine.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, flatConfigs as importX } from 'eslint-plugin-import-x';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '.cache/**', 'coverage/**', '.local/**', '.scratch/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // a leading underscore names what is there only to be left out (`{ v: _v, ...rest }`)
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // input validation matches control characters on purpose
      'no-control-regex': 'off',
      // a variable a callback reads before its one assignment (a server handler defined before the object) stays `let`
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // tests and their harnesses read untyped JSON answers and reach into driver objects
    files: ['**/*.test.ts', '**/test-support/**/*.ts', 'services/*/test/**/*.ts', 'packages/testkit/src/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['jest.config.js', 'jest.summary-reporter.js'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    // the pixel runs in the host page
    files: ['packages/pixel/src/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // An import cycle makes module start-up order decide which binding is still undefined.
    files: ['services/*/src/**/*.ts', 'packages/*/src/**/*.ts'],
    plugins: importX.recommended.plugins,
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
);
