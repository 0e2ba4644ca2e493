// Helpers shared by the tests (not a test file itself).
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (bindings-node/..). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

/** A decimal string in normal form (no leading/trailing zeros, no "-0"), for comparing decimals exactly. */
export function normDecimal(value) {
  let s = String(value).trim()
  let negative = false
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-')
    s = s.slice(1)
  }
  if (!/^[0-9]+(\.[0-9]+)?$/.test(s)) throw new Error(`not a decimal: ${JSON.stringify(value)}`)
  let [int, frac = ''] = s.split('.')
  int = int.replace(/^0+/, '') || '0'
  frac = frac.replace(/0+$/, '')
  const out = frac ? `${int}.${frac}` : int
  return negative && out !== '0' ? `-${out}` : out
}

/** Whether two {key: decimal} maps have the same keys and equal decimals. */
export function sameDecimalMap(a, b) {
  const ka = Object.keys(a).sort()
  const kb = Object.keys(b).sort()
  if (JSON.stringify(ka) !== JSON.stringify(kb)) return false
  return ka.every((k) => normDecimal(a[k]) === normDecimal(b[k]))
}

/**
 * The subset options of a conformance `subset` vector (conformance/README.md): every input key
 * but `child` and `parent`, with its value unchanged. Keys are respelled in Node's camelCase
 * (`parent_remaining` -> `parentRemaining`), unknown ones included, so that core (which
 * refuses unknown keys) sees each of them; nothing is dropped here.
 */
export function subsetOptions(input) {
  const options = {}
  for (const [key, value] of Object.entries(input)) {
    if (key === 'child' || key === 'parent') continue
    options[key.replace(/_([a-z])/g, (_, c) => c.toUpperCase())] = value
  }
  return options
}
