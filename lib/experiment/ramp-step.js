import { ConcurrencyRamp } from '../config/stages.js'

// A plan's load step with a ramp ({ load: 2m, ramp: 32 }): the clients go
// from those running to the target in a straight line over the step, as
// --stages moves them, and the step ends at the target whatever the timer
// managed. The ramp is one event from its start to its end, so that the
// report marks it as it marks an action.

/**
 * @param {import('../generator/generator.js').LoadGenerator} generator
 * @param {{ to: number, seconds: number }} ramp
 * @param {{ events: import('../recorder/event-log.js').EventLog, log: import('../log.js').Logger,
 *     stop: import('../capacity/capacity-run.js').Stop }} context
 */
export async function rampStep(generator, { to, seconds }, { events, log, stop }) {
  const from = generator.concurrency
  log.info(`concurrency ${from} → ${to} over ${seconds} s`)
  await events.timed({ action: 'ramp', detail: { from, to, seconds } }, async () => {
    const ramp = new ConcurrencyRamp({
      profile: [
        { atS: 0, value: from },
        { atS: seconds, value: to }
      ],
      apply: clients => generator.setConcurrency(clients),
      current: () => generator.concurrency
    }).start()
    try {
      await stop.wait(seconds)
    } finally {
      ramp.stop()
    }
    if (!stop.requested) generator.setConcurrency(to)
  })
}
