// Helpers shared by the tests (not a test file itself).
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (bindings/node/../..). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..')

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
