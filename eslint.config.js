import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Import rules (docs/architecture.md "Import rules"): libraries never import apps; an app never imports
 * another app; the sandbox takes only types and constants from #venue-api (it must stay an independent
 * reading of the spec); apps never import the NATS client (libs/bus returns its own handles); test support
 * (#testing, testing/ and test-support/ folders) only in tests.
 */
const APPS = readdirSync(fileURLToPath(new globalThis.URL('./apps', import.meta.url)), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const TEST_FILES = ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', 'bench/**/*.ts'];
const TEST_SUPPORT = ['**/testing/**', '**/test-support/**', 'libs/testing/**'];
const SANDBOX_VENUE_API_VALUES = [
  'ClientMessageType',
  'IDENTIFIER_FORBIDDEN',
  'IDENTIFIER_MAX_LENGTH',
  'ServiceMessageType',
  'RestPath',
  'SandboxCode',
  'VenueCloseCode',
  'WS_CLIENT_PATH',
];
const testSupportPatterns = [
  { regex: '^#testing$', message: 'Test support is for tests only.' },
  { regex: '/(testing|test-support)/', message: 'Test support is for tests only.' },
];
const natsClientPattern = {
  regex: '^@nats-io/',
  message: 'Apps use the handles of libs/bus (#bus), never the NATS client itself.',
};
const appPattern = (apps) => ({
  regex: `(^|/)(apps/)?(${apps.join('|')})/src/`,
  message: 'An app never imports another app (nor a library an app): share through libs/.',
});

export default tseslint.config(
  { ignores: ['dist/**', 'dist-bench/**', 'dist-client/**', 'data/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
      // Money never passes through a JavaScript number.
      'no-restricted-globals': [
        'error',
        { name: 'parseFloat', message: 'Parse money with decimal.js from the string.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Number', property: 'parseFloat', message: 'Parse money with decimal.js from the string.' },
      ],
    },
  },
  {
    files: ['libs/**/*.ts'],
    ignores: [...TEST_FILES, ...TEST_SUPPORT],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [appPattern(APPS), ...testSupportPatterns] }],
    },
  },
  ...APPS.map((app) => ({
    files: [`apps/${app}/**/*.ts`],
    ignores: [...TEST_FILES, ...TEST_SUPPORT],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [appPattern(APPS.filter((other) => other !== app)), natsClientPattern, ...testSupportPatterns],
          ...(app === 'sandbox-venue'
            ? {
                paths: [
                  {
                    name: '#venue-api',
                    allowImportNames: SANDBOX_VENUE_API_VALUES,
                    allowTypeImports: true,
                    message: 'The sandbox takes only types and protocol constants from #venue-api.',
                  },
                  {
                    name: 'decimal.js',
                    message: 'Take Decimal from the sandbox money module: decimal.js as imported rounds to 20 digits.',
                  },
                ],
              }
            : {}),
        },
      ],
    },
  })),
  {
    // The launcher and the packer start apps by their built path; they never import one.
    files: ['tools/**/*.ts'],
    ignores: TEST_FILES,
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [appPattern(APPS), ...testSupportPatterns] }],
    },
  },
  {
    // The plain-NATS examples prove the contract needs no code of this project: only a NATS client.
    files: ['examples/plain-nats/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^#', message: 'A plain-NATS example uses no code of this project.' },
            { regex: '^\\.\\./', message: 'A plain-NATS example uses no code of this project.' },
          ],
        },
      ],
    },
  },
  {
    files: TEST_FILES,
    rules: { 'no-console': 'off' },
  },
);
