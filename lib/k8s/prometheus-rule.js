// The recording rules of deploy/prometheus/pgloadgen-rules.yml as the
// Prometheus operator's PrometheusRule: the same groups, so that a cluster's
// Prometheus records what the compose lab's records.
import { readFile } from 'node:fs/promises'
import { parse, stringify } from 'yaml'

export const RULES_FILE = new URL('../../deploy/prometheus/pgloadgen-rules.yml', import.meta.url)

/**
 * The PrometheusRule's YAML for a rules file's text.
 * @param {string} rulesText
 */
export function prometheusRuleYaml(rulesText) {
  const { groups } = parse(rulesText)
  const rule = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'pgloadgen' },
    spec: { groups }
  }
  return [
    '# deploy/prometheus/pgloadgen-rules.yml as a PrometheusRule, written by',
    '# `pgloadgen k8s render` (test/k8s-manifests.test.js checks that this copy',
    '# is what it writes). Edit the rules file, not this one.',
    stringify(rule, { lineWidth: 0 })
  ].join('\n')
}

/** The PrometheusRule of the shipped rules file. */
export async function shippedPrometheusRule() {
  return prometheusRuleYaml(await readFile(RULES_FILE, 'utf8'))
}
