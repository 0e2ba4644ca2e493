// A short tour of the leasekit Node binding: guard a lease, spend an exact budget,
// delegate, and handle errors by class. Run: node examples/node/example.mjs
// (after `npm ci && npm run build` in bindings-node/). In your own project this import
// is `from 'leasekit'`.
import {
  LeaseGuard,
  LeaseError,
  PermissionDeniedError,
  assertLeaseSubset,
  matchGlob,
} from '../../bindings-node/index.mjs'

const lease = {
  'net.fetch': ['https://api.example.com/**'],
  'tool.call': ['web.*'],
  'cost.budget': ['USD:1.00'],
}
const guard = new LeaseGuard(lease, { expires_at: new Date(Date.now() + 60_000) })

// The guard canonicalizes the target; the runtime should use what it returns.
const target = guard.authorize('net.fetch', 'HTTPS://API.example.com:443/v1/../v2')
console.log(`authorized ${target}`)

try {
  guard.authorize('net.fetch', 'https://api.example.com@evil.example/')
} catch (err) {
  if (!(err instanceof LeaseError)) throw err
  console.log(`denied ${err.code}: ${err.message}`)
}
try {
  guard.authorize('tool.call', 'web.search.advanced') // `*` does not cross `.` for tool.call
} catch (err) {
  if (!(err instanceof PermissionDeniedError)) throw err
  console.log(`denied ${err.code} (retryable: ${err.retryable})`)
}

// Spend is exact: 0.1 + 0.2 is 0.3 here, not 0.30000000000000004.
guard.recordMetric('cost.llm.tokens', 0.1, 'USD')
guard.recordMetric('cost.llm.tokens', '0.2', 'USD')
console.log(`remaining USD ${guard.remaining().USD}`)

// Delegation only narrows; a violation names a witness the parent does not cover.
console.log(`web.* matches web.search: ${matchGlob('tool.call', 'web.*', 'web.search')}`)
try {
  assertLeaseSubset({ 'tool.call': ['web.**'] }, lease)
} catch (err) {
  console.log(`subset violation on ${err.details.capability}: witness ${JSON.stringify(err.details.witness)}`)
}
