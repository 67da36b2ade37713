import yargs from 'yargs'
import { parseDuration, parseInteger } from '../../config/number-flags.js'
import { quote } from '../../helpers/quote.js'
import { InputError } from '../../errors.js'
import { runBuilder } from '../run-options.js'
import { workloadOptionSpecs } from '../workload-flags.js'

// An Indexed Job holds at most 100000 completions.
const MAX_INSTANCES = 100000
// A DNS-1123 label (Secrets and namespaces are named so; 63 characters).
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/
// A DNS-1123 subdomain (PersistentVolumeClaims are named so; 253 characters).
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/

/**
 * pgloadgen k8s render: the subcommand sets the action the CLI runs after
 * parsing. The run's flags come after --, as `pgloadgen run` takes them.
 * @param {import('yargs').Argv} y
 * @param {(run: import('./action-commands.js').CommandRun, args: any) => void} choose
 */
export function k8sSubcommands(y, choose) {
  return y
    .command(
      'render',
      "write a kustomize directory that runs N instances of one load as an Indexed Job, all starting at one moment; the run's flags after --",
      r =>
        r
          .option('instances', {
            type: 'string',
            demandOption: 'give the number of instances with --instances N',
            describe: 'pods of the Job, each running --instance I/N'
          })
          .option('start-in', {
            type: 'string',
            default: '60s',
            describe: 'the load starts this long after the render (time to apply, schedule and pull): 90, 90s, 5m'
          })
          .option('out', {
            type: 'string',
            describe: 'new directory to write to; default: built with kubectl kustomize to stdout'
          })
          .option('image', {
            type: 'string',
            default: 'pgloadgen:local',
            describe: "pgloadgen's image (the repository's Dockerfile), as the nodes can pull it"
          })
          .option('url-secret', {
            type: 'string',
            default: 'pgloadgen-database',
            describe: 'Secret whose key "url" is the database URL'
          })
          .option('namespace', { type: 'string', describe: "namespace of every object (default: kubectl's)" })
          .option('results-claim', {
            type: 'string',
            describe:
              'PersistentVolumeClaim (ReadWriteMany) each pod records its run to, as instance-I, for pgloadgen merge'
          })
          .option('prometheus-operator', {
            type: 'boolean',
            default: false,
            describe: 'add a PodMonitor and the recording rules as a PrometheusRule (their CRDs must exist)'
          })
          .example('$0 k8s render --instances 3 --out run1 -- --workload ./my-workload.js -c 24 -R 30000 -d 10m', '')
          .example('$0 k8s render --instances 3 -- -b tpcb-like -c 24 -d 10m | kubectl apply -f -', ''),
      args => choose(renderCommand, args)
    )
    .demandCommand(1, 'give a subcommand: render')
}

/** @type {import('./action-commands.js').CommandRun} */
async function renderCommand(args, { stdout, argv = [] }) {
  const instances = parseInteger(args.instances, '--instances', { min: 1, max: MAX_INSTANCES })
  const startInS = parseDuration(args.startIn, '--start-in')
  const image = String(args.image)
  if (!/^[^\s"']+$/.test(image)) {
    throw new InputError(`--image must be an image reference, got ${quote(image)}`, { code: 'PGLG_INVALID_VALUE' })
  }
  const urlSecret = String(args.urlSecret)
  if (!DNS_LABEL.test(urlSecret)) {
    throw new InputError(
      `--url-secret must be a Secret's name (lower-case letters, digits and -), got ${quote(urlSecret)}`,
      { code: 'PGLG_INVALID_NAME' }
    )
  }
  const namespace = args.namespace === undefined ? null : String(args.namespace)
  if (namespace !== null && !DNS_LABEL.test(namespace)) {
    throw new InputError(
      `--namespace must be a namespace's name (lower-case letters, digits and -), got ${quote(namespace)}`,
      { code: 'PGLG_INVALID_NAME' }
    )
  }
  if (args.out === '') throw new InputError('--out needs a directory', { code: 'PGLG_MISSING_VALUE' })
  const resultsClaim = args.resultsClaim === undefined ? null : String(args.resultsClaim)
  if (resultsClaim !== null && !DNS_NAME.test(resultsClaim)) {
    throw new InputError(
      `--results-claim must be a PersistentVolumeClaim's name (lower-case letters, digits, - and .), got ${quote(resultsClaim)}`,
      { code: 'PGLG_INVALID_NAME' }
    )
  }

  const separator = argv.indexOf('--')
  const given = separator === -1 ? [] : argv.slice(separator + 1)
  const startAt = new Date(Math.ceil(Date.now() / 1000 + startInS) * 1000)
  await checkRunFlags(given, instances, startAt)
  const [{ podLoadArgs }, { renderManifests }, output] = await Promise.all([
    import('../../k8s/load-args.js'),
    import('../../k8s/render.js'),
    import('../../k8s/output.js')
  ])
  const { args: loadArgs, files } = podLoadArgs(given)
  if (args.out !== undefined) output.checkOutputDir(args.out)
  const manifests = await renderManifests({
    instances,
    startAt,
    image,
    urlSecret,
    namespace,
    prometheusOperator: args.prometheusOperator === true,
    resultsClaim,
    loadArgs,
    files,
    command: `pgloadgen ${argv.map(shellWord).join(' ')}`
  })
  if (args.out === undefined) await output.writeBuilt(manifests, stdout)
  else await output.writeDirectory(args.out, manifests)
  return 0
}

/**
 * Checks the run's flags as `pgloadgen run` checks them in a pod, as
 * instance 0 of N: an unknown flag, a bad value, a script that does not
 * parse, a workload module that does not load, fewer clients than
 * instances are refused here rather than in N pods.
 * @param {string[]} given
 * @param {number} instances
 * @param {Date} startAt
 */
async function checkRunFlags(given, instances, startAt) {
  const argv = ['run', ...given]
  const specs = await workloadOptionSpecs(argv)
  /** @type {string | null} */
  let problem = null
  /** @type {any} */
  let parsed = null
  await yargs(argv)
    .command(
      'run [pgUrl]',
      '',
      y => runBuilder(y, specs),
      args => {
        parsed = args
      }
    )
    .strict()
    .help(false)
    .version(false)
    .fail((message, err) => {
      if (err) throw err
      problem = message
    })
    .exitProcess(false)
    .parseAsync()
  if (problem !== null) throw new InputError(problem)
  if (parsed === null) throw new InputError("the run's flags after -- could not be read")
  const { validateRunArgs } = await import('../run-args.js')
  await validateRunArgs({ ...parsed, instance: `0/${instances}`, startAt: String(startAt.getTime() / 1000) }, argv)
}

/**
 * A word of the command line, quoted for a shell when it needs to be.
 * @param {string} word
 */
function shellWord(word) {
  return /^[-\w./:=@,%+]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`
}
