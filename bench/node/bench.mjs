// Node harness: the leasekit binding against a plain JS RegExp glob (with
// path.posix.normalize), on the shared inputs. Subset and budget ops are timed for leasekit
// only (no JS peer was asked for); they give the binding overhead over the core.
//
// Usage: node bench.mjs INPUTS_JSON OUT_JSON
//        node bench.mjs --adv IMPL SIZE INPUTS_JSON   (one adversarial point; prints JSON)
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const lk = createRequire(import.meta.url)(path.join(here, '..', '..', 'bindings', 'node', 'index.js'))

const SAMPLES = 11
const BATCH_NS = 10_000_000n

/** Runs f n times; the elapsed nanoseconds (bigint). */
function runBatch(f, n) {
  const t = process.hrtime.bigint()
  for (let i = 0; i < n; i++) f()
  return process.hrtime.bigint() - t
}

/** Iterations for a batch of about BATCH_NS. */
function calibrate(f) {
  let iters = 1
  for (;;) {
    let el = runBatch(f, iters)
    if (el >= BATCH_NS / 4n) {
      const again = runBatch(f, iters) // the faster of two: a stalled batch must not shrink the rest
      if (again < el) el = again
      if (el < BATCH_NS) iters = Math.max(1, Math.floor((iters * Number(BATCH_NS)) / Number(el)))
      return iters
    }
    iters *= 4
  }
}

/**
 * Median ns per call of each function in `fs`, their batches interleaved (sample s of every
 * function runs before sample s+1 of any), so a machine that speeds up or slows down during
 * the run weighs on leasekit and the peers alike. Returns [[median, iters], ...].
 */
function medianNsPerCallInterleaved(fs) {
  const iters = fs.map(calibrate)
  const perCall = fs.map(() => [])
  for (let s = 0; s < SAMPLES; s++) {
    fs.forEach((f, k) => perCall[k].push(Number(runBatch(f, iters[k])) / iters[k]))
  }
  return perCall.map((xs, k) => {
    xs.sort((a, b) => a - b)
    return [xs[SAMPLES >> 1], iters[k]]
  })
}

/** Median ns per call of f: a batch calibrated to ~10 ms, SAMPLES batches. */
function medianNsPerCall(f) {
  return medianNsPerCallInterleaved([f])[0]
}

function peakRssKb() {
  try {
    const m = readFileSync('/proc/self/status', 'utf8').match(/^VmHWM:\s+(\d+)/m)
    return m ? Number(m[1]) : 0
  } catch {
    return 0
  }
}

// ---- implementations: (patterns, capability) -> authorize(target) -> bool, plus .hot ----
function lkAuthorizer(patterns, cap) {
  const guard = new lk.LeaseGuard({ [cap]: patterns })
  const authorize = (target) => {
    try {
      guard.authorize(cap, target)
      return true
    } catch (e) {
      if (e instanceof lk.LeaseError) return false
      throw e
    }
  }
  authorize.hot = (target) => () => guard.authorize(cap, target) // the bare binding call
  return authorize
}

/** The usual hand-written glob: `**` -> `.*`, `*` -> `[^/]*`, the rest escaped. */
function globRegExp(pattern) {
  const esc = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  const body = pattern
    .split('**')
    .map((part) => part.split('*').map(esc).join('[^/]*'))
    .join('.*')
  return new RegExp(`^(?:${body})$`)
}

function regexAuthorizer(patterns, cap) {
  const compiled = patterns.map(globRegExp)
  return (target) => {
    const t = cap.startsWith('fs.') ? path.posix.normalize(target) : target
    return compiled.some((r) => r.test(t))
  }
}

const AUTHORIZERS = { leasekit: lkAuthorizer, regexp: regexAuthorizer }

function advPoint(impl, size, inputs) {
  const adv = inputs.adversarial
  const authorize = AUTHORIZERS[impl]([adv.pattern], adv.capability)
  const target = 'a'.repeat(size)
  const t = process.hrtime.bigint()
  const answer = authorize(target)
  const first = Number(process.hrtime.bigint() - t)
  const ns = first > 50e6 ? first : medianNsPerCall(() => authorize(target))[0]
  return { ns, answer, peak_rss_kb: peakRssKb() }
}

function advSeries(impl, inputsPath, inputs) {
  const adv = inputs.adversarial
  const out = []
  for (const size of adv.sizes) {
    const rec = { kind: 'adv', impl, series: 'star-a', n: size }
    const p = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--adv', impl, String(size), inputsPath], {
      encoding: 'utf8',
      timeout: adv.timeout_s * 1000,
      killSignal: 'SIGKILL',
    })
    if (p.error?.code === 'ETIMEDOUT' || p.signal === 'SIGKILL') {
      out.push({ ...rec, ns: null, timed_out: true, timeout_s: adv.timeout_s })
      break
    }
    if (p.status !== 0) {
      out.push({ ...rec, error: (p.stderr || '').trim().split('\n').slice(-1) })
      break
    }
    out.push({ ...rec, ...JSON.parse(p.stdout), timed_out: false })
  }
  return out
}

function main() {
  const argv = process.argv.slice(2)
  if (argv[0] === '--adv') {
    const inputs = JSON.parse(readFileSync(argv[3], 'utf8'))
    console.log(JSON.stringify(advPoint(argv[1], Number(argv[2]), inputs)))
    return
  }
  const [inputsPath, outPath] = argv
  const inputs = JSON.parse(readFileSync(inputsPath, 'utf8'))
  const cap = inputs.capability
  const records = []
  const timed = (impl, op, f) => {
    const [ns, iters] = medianNsPerCall(f)
    records.push({ kind: 'time', impl, op, median_ns: ns, iters, samples: SAMPLES })
  }

  const auths = {}
  for (const [impl, mk] of Object.entries(AUTHORIZERS)) {
    auths[impl] = {}
    for (const n of inputs.sizes) auths[impl][n] = mk(inputs.leases[n], cap)
  }
  for (const [impl, bySize] of Object.entries(auths)) {
    for (const n of inputs.sizes) {
      for (const [target, want] of [[inputs.targets[n], true], [inputs.denied[n], false]]) {
        if (bySize[n](target) !== want || auths.leasekit[n](target) !== want)
          throw new Error(`${impl}: timed input disagrees: lease ${n}, ${target}`)
      }
    }
    let agree = 0
    let disagree = 0
    const examples = []
    for (const [n, target] of inputs.probes) {
      const a = auths.leasekit[n](target)
      const b = bySize[n](target)
      if (a === b) agree++
      else {
        disagree++
        examples.push(`${target} (lease of ${n}): leasekit ${a}, ${impl} ${b}`)
      }
    }
    records.push({ kind: 'check', impl, op: 'authorize', agree, disagree, examples })
  }
  // authorize: leasekit and every peer timed with interleaved batches, per lease size.
  for (const n of inputs.sizes) {
    const impls = Object.keys(auths)
    const target = inputs.targets[n]
    const fs = impls.map((impl) => {
      const f = auths[impl][n]
      return f.hot ? f.hot(target) : () => f(target)
    })
    medianNsPerCallInterleaved(fs).forEach(([ns, iters], k) => {
      records.push({ kind: 'time', impl: impls[k], op: `authorize/${n}`, median_ns: ns, iters, samples: SAMPLES, interleaved: true })
    })
  }

  const sub = inputs.subset
  if (lk.isLeaseSubset(sub.child, sub.parent) !== sub.expect) throw new Error('subset answer')
  // Compiled once, as the Python harness passes lk.Lease objects (plain objects would be
  // walked and compiled on every call).
  const subChild = new lk.CompiledLease(sub.child)
  const subParent = new lk.CompiledLease(sub.parent)
  if (lk.isLeaseSubset(subChild, subParent) !== sub.expect) throw new Error('subset answer')
  timed('leasekit', 'subset', () => lk.isLeaseSubset(subChild, subParent))

  const b = inputs.budget
  const e = lk.parseBudgetAmount(b.entry)
  if (e.currency !== b.currency || e.amount !== b.amount) throw new Error(`budget parse ${JSON.stringify(e)}`)
  timed('leasekit', 'budget_parse', () => lk.parseBudgetAmount(b.entry))
  const [name, value, unit] = b.metric
  const spender = new lk.LeaseGuard({ 'cost.budget': [b.lease_budget] })
  timed('leasekit', 'budget_spend', () => spender.recordMetric(name, value, unit))

  for (const impl of Object.keys(AUTHORIZERS)) records.push(...advSeries(impl, inputsPath, inputs))

  writeFileSync(outPath, JSON.stringify({ lang: 'node', node: process.version,
    peers: { regexp: 'RegExp glob + path.posix.normalize' }, records }, null, 1))
}

main()
