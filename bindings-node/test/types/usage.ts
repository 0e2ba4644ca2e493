// Type-checked (never run) by test/types.test.mjs: the checked-in index.d.ts must accept
// the documented uses and reject the wrong ones (each @ts-expect-error must be an error).
import {
  LeaseGuard, CompiledLease, LeaseError, PermissionDeniedError, LeaseSubsetViolationError, errorClasses,
  matchGlob, canonicalizeTarget, isLeaseSubset, assertLeaseSubset, validateLeaseShape,
  validateLeaseConstraints, initialBudgetFromLease, parseBudgetAmount, parseAmount,
  isReservedCapabilityName, isValidCapabilityName, narrowLease, checkAgentfile,
  type Lease, type ErrorCode, type Metric, type AgentfileReport,
  Governor, GovernorClient, decodeFrame, lintLease, type LeaseWarning, type GovernorMethods,
} from 'leasekit'
import * as compat from 'leasekit/arcp-compat'
import { checkBudgetRemaining } from 'leasekit'

const lease: Lease = { 'fs.read': ['/data/**'], 'cost.budget': ['USD:5'] }
const ok: boolean = matchGlob('fs.read', '/data/**', '/data/x')
const canonical: string = canonicalizeTarget('net.fetch', 'https://api.example.com')
const subset: boolean = isLeaseSubset(lease, lease, { parentRemaining: { USD: '5' }, childConstraints: { expires_at: new Date() } })
assertLeaseSubset(lease, '{"fs.read": ["/data/**"]}')
const compiled = new CompiledLease(lease)
const compiledSubset: boolean = isLeaseSubset(compiled, new CompiledLease('{"fs.read": ["/**"]}'))
const compiledRecord: Lease = compiled.toJSON()
new LeaseGuard(compiled).delegate(new CompiledLease(compiledRecord))
validateLeaseShape(lease)
validateLeaseConstraints({ expires_at: '2030-01-01T00:00:00Z' }, Date.now())
const budget: Record<string, string> = initialBudgetFromLease(lease)
const amount: string = parseBudgetAmount('USD:2.50').amount
const normalized: string[] = [parseAmount('1.50'), parseAmount(0.3), parseAmount(12n)]
const names: boolean = isReservedCapabilityName('fs.read') && isValidCapabilityName('x-vendor.a.b')
const narrowed: Lease = narrowLease(lease, lease).lease
const report: AgentfileReport = checkAgentfile('AGENT a\n', { compat: false })

const guard = new LeaseGuard(lease, { expires_at: new Date() }, { clock: () => new Date(), graceMillis: 0, allowAnyModel: false })
const target: string = guard.authorize('fs.read', '/data/x')
const emitted: Metric[] = guard.recordMetric('cost.llm', 0.1, 'USD')
const remaining: string | undefined = guard.remaining().USD
const child: LeaseGuard = guard.delegate({ 'fs.read': ['/data/a'] })
const expires: string | null = child.expiresAt()

try {
  guard.authorize('fs.read', '/etc/passwd')
} catch (e) {
  if (e instanceof PermissionDeniedError) {
    const code: ErrorCode = e.code
    const retry: boolean = e.retryable
    const details: Record<string, unknown> = e.details
    void [code, retry, details]
  }
  if (e instanceof LeaseError && e.code === 'LEASE_SUBSET_VIOLATION') void e.details.witness
}
const cls: typeof LeaseError = errorClasses.LEASE_SUBSET_VIOLATION
const isViolation: boolean = new LeaseSubsetViolationError('x') instanceof LeaseError

// Governor (embedded) and GovernorClient: the same typed methods.
const gov: GovernorMethods = Governor.open('memory', { maxInFlight: 4 }, { manualClock: new Date(), ids: 'deterministic' })
const client: GovernorMethods = GovernorClient.connect('/run/leasekit.sock', { timeoutMs: 500, fallback: 'off' })
for (const g of [gov, client]) {
  const grant = g.acquire({ actorId: 'a', estimatedCostCents: 3 })
  if (grant.granted) {
    const leaseId: string = grant.leaseId
    const cls2: string = g.release({ leaseId, actualCostCents: 2 }).classification
    void cls2
  }
  const active: number = g.metrics().activeLeases
  void active
}
async function viaPromises(g: Governor | GovernorClient): Promise<number> {
  const grant = await g.acquireAsync({ actorId: 'a' })
  if (grant.granted) await g.releaseAsync({ leaseId: grant.leaseId, actualCostCents: 1 })
  return (await g.callAsync('GetMetrics')).activeLeases
}
void viaPromises
const envelope: string = Governor.open('memory').handle('GetMetrics', '{}')
const frameOut: Uint8Array = Governor.open('memory').handleFrame(new Uint8Array(4))
const command: string = decodeFrame(frameOut).command
const warnings: LeaseWarning[] = lintLease(lease)
void [envelope, command, warnings]
// @ts-expect-error the fallback is off, dev or prod
GovernorClient.connect(null, { fallback: 'sometimes' })
// @ts-expect-error a release needs a leaseId
gov.release({ actualCostCents: 1 })

// @ts-expect-error matchGlob takes strings
matchGlob('fs.read', 1, '/x')
// @ts-expect-error a lease maps names to string arrays
validateLeaseShape({ 'fs.read': '/data' })
// @ts-expect-error amounts are strings, numbers or bigints
parseAmount(true)
// @ts-expect-error the clock returns a time value
new LeaseGuard(lease, null, { clock: () => true })
// @ts-expect-error an amount map takes decimal strings only
isLeaseSubset(lease, lease, { parentRemaining: { USD: 5 } })
checkBudgetRemaining({ USD: '1' })
// leasekit/arcp-compat: the ARCP TypeScript SDK's names and argument shapes
compat.validateLeaseOp({ lease, capability: 'fs.read', target: '/data/x', ctx: { now: Date.now(), budgetRemaining: new Map([['USD', '1']]) } })
const compatBudget: Map<string, string> = compat.initialBudgetFromLease(lease)
const compatSubset: boolean = compat.isLeaseSubset(lease, lease, new Map([['USD', '5']]))
compat.assertLeaseConstraintsSubset({ expires_at: '2030-01-01T00:00:00Z' }, undefined)
const compatExpiry: number | null = compat.validateLeaseConstraints({ expires_at: '2030-01-01T00:00:00Z' }, Date.now())
const compatMatch: boolean = compat.matchGlob('/data/**', '/data/x', 'fs.read')
// the TypeScript runtime's Map<string, number> budgets (read through String(n))
const compatNumbers: boolean = compat.isLeaseSubset(lease, lease, new Map([['USD', 5]]))
// @ts-expect-error numbers only in a Map: a plain object takes decimal strings
compat.isLeaseSubset(lease, lease, { USD: 5 })
compat.useSdkErrors(null)
// @ts-expect-error the SDK's error module has an ARCPError class
compat.useSdkErrors({})
const payload: { code: ErrorCode; message: string; retryable: boolean; details?: Record<string, unknown> } =
  new PermissionDeniedError('no').toPayload()
// @ts-expect-error not an ARCP code
const wrong: ErrorCode = 'NOT_A_CODE'

void [compatNumbers, payload, compatBudget, compatSubset, compatExpiry, compatMatch, ok, canonical, subset, compiledSubset, budget, amount, normalized, names, narrowed, report, target, emitted, remaining, expires, cls, isViolation, wrong]
