// Conformance ops `governor` and `frame_decode` of the Node runner (conformance/README.md,
// docs/api.md "Governor conformance vectors"): every step goes through `leasekit.Governor`
// (the wire dispatcher `handle`), with deterministic ids and a manual clock. Not a test file.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as lk from '../index.mjs'
import { normDecimal } from './support.mjs'

function open(input, store, time) {
  let options = input.options ?? {}
  if (options && typeof options === 'object' && !Array.isArray(options)) {
    options = { ...options, manualClock: time, ids: 'deterministic' }
  }
  return lk.Governor.open(store, input.policy ?? {}, options)
}

/** Runs a `governor` vector: one result per step. */
export function opGovernor(input) {
  const kind = input.store ?? 'memory'
  if (kind !== 'memory' && kind !== 'sqlite') throw new Error(`unknown store ${JSON.stringify(kind)}`)
  const tmp = kind === 'sqlite' ? fs.mkdtempSync(path.join(os.tmpdir(), 'leasekit-node-gov-')) : null
  const store = tmp ? path.join(tmp, 'gov.db') : 'memory'
  let gov = open(input, store, input.start)
  const out = []
  try {
    for (const step of input.steps) {
      const at = step.at
      if (typeof at === 'string' && at.startsWith('+')) gov.advanceTime(Number(at.slice(1)))
      else if (at !== undefined) gov.setTime(at)
      if ('restart' in step) {
        if (kind !== 'sqlite') throw new Error('restart needs store sqlite')
        const now = gov.time()
        gov.close()
        gov = null
        gov = open(input, store, now)
        out.push('ok')
      } else if ('verify_audit' in step) {
        out.push(gov.verifyAudit())
      } else {
        const payload = step.payload ?? {}
        const text = typeof payload === 'string' ? payload : JSON.stringify(payload)
        const env = JSON.parse(gov.handle(step.command, text))
        out.push(env.success ? JSON.parse(env.payloadJson) : { success: false, error: env.error })
      }
    }
  } finally {
    if (gov) gov.close()
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true })
  }
  return out
}

/** Runs a `frame_decode` vector: the command of the decoded frame. */
export function opFrameDecode(input) {
  if (!/^([0-9a-fA-F]{2})*$/.test(input.hex)) throw new Error(`bad hex in vector: ${input.hex}`)
  return { command: lk.decodeFrame(Buffer.from(input.hex, 'hex')).command }
}

function isPlain(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function decimalOrNull(s) {
  try {
    return normDecimal(s)
  } catch {
    return null
  }
}

function sameSet(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b)) return false
  const sa = new Set(a.map((x) => JSON.stringify(x)))
  const sb = new Set(b.map((x) => JSON.stringify(x)))
  return sa.size === sb.size && [...sa].every((x) => sb.has(x))
}

function leaseSets(want, got) {
  if (!isPlain(want) || !isPlain(got)) return JSON.stringify(want) === JSON.stringify(got)
  const kw = Object.keys(want).sort()
  const kg = Object.keys(got).sort()
  return JSON.stringify(kw) === JSON.stringify(kg) && kw.every((k) => sameSet(want[k], got[k]))
}

/** Keys present in `want` only, recursively; lists whole; numbers as numbers; strings equal or
 * equal as decimals; `effectiveLease` pattern lists as sets. */
export function partial(want, got) {
  if (isPlain(want) && isPlain(got)) {
    return Object.entries(want).every(([k, v]) => Object.hasOwn(got, k) && (k === 'effectiveLease' ? leaseSets(v, got[k]) : partial(v, got[k])))
  }
  if (Array.isArray(want) && Array.isArray(got)) {
    return want.length === got.length && want.every((w, i) => partial(w, got[i]))
  }
  if (typeof want === 'boolean' || typeof got === 'boolean') return want === got
  if (typeof want === 'number' && typeof got === 'number') return want === got
  if (typeof want === 'string' && typeof got === 'string') {
    if (want === got) return true
    const a = decimalOrNull(want)
    const b = decimalOrNull(got)
    return a !== null && b !== null && a === b
  }
  return JSON.stringify(want) === JSON.stringify(got)
}

/** One expect entry per step; `{"success": false}` matches a failed command and only that.
 * Answers the index of the first mismatching step, or -1. */
export function governorMismatch(got, want) {
  if (!Array.isArray(want) || !Array.isArray(got)) return 0
  if (want.length !== got.length) return Math.min(want.length, got.length)
  for (let i = 0; i < want.length; i++) {
    const failed = isPlain(got[i]) && got[i].success === false
    const wantsFailure = isPlain(want[i]) && want[i].success === false
    if (failed !== wantsFailure || !partial(want[i], got[i])) return i
  }
  return -1
}
