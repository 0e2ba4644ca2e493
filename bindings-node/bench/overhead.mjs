// Per-call cost of the binding (JS -> native -> JS). Run: node bench/overhead.mjs (after npm run build).
import * as lk from '../index.mjs'
function bench(name, n, fn) { for (let i = 0; i < 1000; i++) fn(); const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) fn(); const ns = Number(process.hrtime.bigint() - t) / n; console.log(`${name}: ${(ns / 1000).toFixed(2)} us/call`) }
const g = new lk.LeaseGuard({ 'net.fetch': ['https://api.example.com/**'], 'cost.budget': ['USD:1000000'] })
bench('matchGlob fs.read', 200000, () => lk.matchGlob('fs.read', '/data/**', '/data/a/b/c.csv'))
bench('guard.authorize net.fetch', 200000, () => g.authorize('net.fetch', 'https://api.example.com/v1/x'))
bench('guard.recordMetric', 200000, () => g.recordMetric('cost.x', '0.000001', 'USD'))
bench('denied authorize (throws PermissionDeniedError)', 50000, () => { try { g.authorize('net.fetch', 'https://evil.example/') } catch {} })
const t = process.hrtime.bigint(); lk.matchGlob('tool.call', '*a*a*a*a*a*a*a*a*a*a*a*a*c', 'a'.repeat(10000)); console.log(`pathological match, 10000 chars: ${Number(process.hrtime.bigint() - t) / 1e6} ms`)
// Governor (embedded, memory store): one acquire + release pair through the typed methods
// (core's strict call_json plus the JS <-> native conversion), and the same pair through
// the wire dispatcher (JSON text in and out).
const gov = lk.Governor.open('memory', { maxInFlight: 1000, maxComputeUnits: 1000, dailyBudgetCents: 1e12 })
const ask = { actorId: 'bench', workspaceId: 'ws', modelId: 'm', estimatedCostCents: 1, maxOutputTokens: 10 }
bench('governor acquire+release (typed, memory)', 20000, () => gov.release({ leaseId: gov.acquire(ask).leaseId, actualCostCents: 1 }))
const askJson = JSON.stringify(ask)
bench('governor acquire+release (handle, memory)', 20000, () => {
  const lease = JSON.parse(JSON.parse(gov.handle('Acquire', askJson)).payloadJson).leaseId
  gov.handle('Release', `{"leaseId":"${lease}","actualCostCents":1}`)
})
gov.close()
