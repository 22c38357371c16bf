// ESLint: the recommended rules of ESLint and of typescript-eslint (without
// type information, to stay fast). A rule is turned off only with its reason.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Node's globals that our plain JavaScript files use (TypeScript files are checked by tsc). */
const nodeGlobals = {
  process: 'readonly',
  console: 'readonly',
  require: 'readonly',
  module: 'writable',
  __dirname: 'readonly',
  __filename: 'readonly',
  Buffer: 'readonly',
  URL: 'readonly',
};

export default defineConfig(
  // test/clients/.run-*/ holds clients the suite generates from the contract.
  globalIgnores([
    'generated/',
    'dist/',
    'web/dist/',
    'node_modules/',
    'coverage/',
    'data/',
    'test/clients/.run-*/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // Leaving fields out of a copy (`const { flags: _flags, ...rest } = x`) names them without using them.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // A function longer than a screenful does several things: split it into named steps.
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read JSON answers the harness has already checked against openapi.yaml; retyping them would restate the contract.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: nodeGlobals },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: {
      // jest.config.js and the test setup files are CommonJS, which Jest loads.
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
);
