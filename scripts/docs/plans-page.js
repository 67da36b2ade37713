import { PLAN_SECTIONS } from '../../lib/experiment/plan-table.js'
import { code, generatedHeader, table } from './markdown.js'

// docs/plans.md: every field of an experiment plan, from the table the
// plan's parser takes its field names from (lib/experiment/plan-table.js).

/**
 * The whole page.
 * @returns {string}
 */
export function plansPage() {
  const lines = [
    generatedHeader('Plan reference', 'lib/experiment/plan-table.js'),
    'Every field of an experiment plan (`pgloadgen experiment PLAN`), JSON or YAML. The parser refuses any field',
    'not listed here, naming it (`variants[1].steps[2].wait: …`), and checks the whole plan before anything runs.',
    '',
    table(
      ['section', 'fields'],
      PLAN_SECTIONS.map(section => [
        `[${section.path}](#${anchor(section.path)})`,
        Object.keys(section.fields).map(code).join(', ')
      ])
    ),
    ''
  ]
  for (const section of PLAN_SECTIONS) {
    const rows = Object.entries(section.fields).map(([name, field]) => [
      code(name),
      field.type,
      field.required ? 'yes' : '',
      field.default ?? '',
      field.describe
    ])
    const columns = ['field', 'type', 'required', 'default', 'description']
    lines.push(`## ${section.path}`, '', section.describe, '', table(columns, rows), '')
  }
  return lines.join('\n').replace(/\n+$/, '') + '\n'
}

/**
 * The anchor GitHub gives a heading.
 * @param {string} heading
 */
function anchor(heading) {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-')
}
