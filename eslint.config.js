import js from '@eslint/js'
import globals from 'globals'

export default [
  // test/fixtures/workloads/syntax-error.js is broken on purpose: a module that fails to load.
  { ignores: ['node_modules/', '.pgloadgen/', '.tap/', 'coverage/', 'test/fixtures/workloads/syntax-error.js'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'prefer-const': 'error',
      'no-var': 'error',
      eqeqeq: ['error', 'always']
    }
  }
]
