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
  },
  {
    // A function does one job and reads on one screen: at most 80 lines,
    // blank lines and comments left out, a function called in place (an
    // IIFE) counted with the function around it (docs/development.md). A
    // longer one is cut along its jobs into named helpers; the few left
    // longer are named exceptions below.
    files: ['lib/**/*.js', 'bin/**/*.js'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }]
    }
  },
  {
    // The report page's scripts wrap themselves in a function called in
    // place, so that their names stay out of the page's global scope: that
    // wrapper is the script, not a function of it, and is not counted; the
    // functions inside it are.
    files: ['lib/report/client/*.js'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: false }]
    }
  }
]
