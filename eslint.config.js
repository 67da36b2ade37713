import js from '@eslint/js'
import stylistic from '@stylistic/eslint-plugin'
import globals from 'globals'

export default [
  // test/fixtures/workloads/syntax-error.js is broken on purpose: a module that fails to load.
  { ignores: ['node_modules/', '.pgloadgen/', '.tap/', 'coverage/', 'test/fixtures/workloads/syntax-error.js'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node } },
    plugins: { '@stylistic': stylistic },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'prefer-const': 'error',
      'no-var': 'error',
      eqeqeq: ['error', 'always'],
      // Prettier lays the code out within 120 columns but never breaks a string
      // or a comment: this holds comments to the same width. A string, a
      // template, a regular expression or a URL stays whole: a sentence cut
      // into pieces only to fit the width reads worse than a long line.
      '@stylistic/max-len': [
        'error',
        {
          code: 120,
          tabWidth: 2,
          ignoreUrls: true,
          ignoreRegExpLiterals: true,
          ignoreStrings: true,
          ignoreTemplateLiterals: true
        }
      ]
    }
  }
]
