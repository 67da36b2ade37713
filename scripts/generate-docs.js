#!/usr/bin/env node
// npm run docs:generate: writes the reference pages generated from the code
// (scripts/docs/pages.js), so that they say what the code does.
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { GENERATED_PAGES } from './docs/pages.js'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

for (const page of GENERATED_PAGES) {
  await writeFile(new URL(page.file, `file://${ROOT}`), await page.render())
  process.stdout.write(`wrote ${page.file}\n`)
}
