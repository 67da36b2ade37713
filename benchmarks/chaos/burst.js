// A burst of connections from a process of its own, as another
// application would open them: N at once to URL, held for MS, then
// closed. Prints how many were opened and how many refused, as JSON.
//   node benchmarks/chaos/burst.js URL N MS
import pg from 'pg'

const [url, count, holdMs] = process.argv.slice(2)
const clients = Array.from({ length: Number(count) }, () => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10000 })
  client.on('error', () => {})
  return client
})
const outcomes = await Promise.allSettled(clients.map(client => client.connect()))
const opened = outcomes.filter(o => o.status === 'fulfilled').length
await new Promise(resolve => setTimeout(resolve, Number(holdMs)))
await Promise.allSettled(clients.map(client => client.end()))
process.stdout.write(JSON.stringify({ opened, refused: outcomes.length - opened }) + '\n')
