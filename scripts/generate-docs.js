#!/usr/bin/env node
// npm run docs:generate: writes the reference pages generated from the code
// (scripts/docs/pages.js), so that they say what the code does.
import { writeFile } from 'node:fs/promises'
import { GENERATED_PAGES } from './docs/pages.js'

const ROOT = new URL('../', import.meta.url)

try {
  for (const page of GENERATED_PAGES) {
    await writeFile(new URL(page.file, ROOT), await page.render())
    process.stdout.write(`wrote ${page.file}\n`)
  }
} catch (err) {
  process.stderr.write(`docs:generate: ${/** @type {Error} */ (err).message.split('\n')[0]}\n`)
  process.exitCode = 1
}
