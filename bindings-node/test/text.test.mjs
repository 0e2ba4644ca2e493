// Every string a caller passes goes through one conversion (src/text.rs `read_text`): a
// string holding a lone surrogate has no UTF-8 form and is refused with InvalidRequestError
// everywhere (arguments, strings inside objects, the authorize fast path), never replaced by
// U+FFFD (docs/decisions.md, "Text crossing a binding").
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as lk from '../index.mjs'

const BAD = '/data/\uD800' // a lone high surrogate
const LOW = 'x\uDC00' // a lone low surrogate
const guard = new lk.LeaseGuard({ 'fs.read': ['/data/**'], 'model.use': ['gpt-*'], 'cost.budget': ['USD:5'] })
const agentfile = lk.Agentfile.parse('AGENT a\n')
const governor = lk.Governor.open('memory', {}, { manualClock: '2026-01-01T00:00:00Z' })

const CALLS = {
  isValidCapabilityName: () => lk.isValidCapabilityName(LOW),
  isReservedCapabilityName: () => lk.isReservedCapabilityName(LOW),
  'canonicalizeTarget.capability': () => lk.canonicalizeTarget(LOW, '/a'),
  'canonicalizeTarget.target': () => lk.canonicalizeTarget('fs.read', BAD),
  'validatePattern.capability': () => lk.validatePattern(LOW, '/a'),
  'validatePattern.pattern': () => lk.validatePattern('fs.read', BAD),
  'matchGlob.capability': () => lk.matchGlob(LOW, '/a', '/a'),
  'matchGlob.pattern': () => lk.matchGlob('fs.read', BAD, '/a'),
  'matchGlob.target': () => lk.matchGlob('fs.read', '/**', BAD),
  'validateLeaseShape.key': () => lk.validateLeaseShape({ [LOW]: ['/a'] }),
  'validateLeaseShape.pattern': () => lk.validateLeaseShape({ 'fs.read': [BAD] }),
  'validateLeaseShape.json': () => lk.validateLeaseShape(`{"fs.read": ["${BAD}"]}`),
  normalizeLease: () => lk.normalizeLease({ 'fs.read': [BAD] }),
  leaseToJson: () => lk.leaseToJson({ 'fs.read': [BAD] }),
  CompiledLease: () => new lk.CompiledLease({ 'fs.read': [BAD] }),
  'isLeaseSubset.child': () => lk.isLeaseSubset({ 'fs.read': [BAD] }, { 'fs.read': ['/**'] }),
  'isLeaseSubset.parentRemaining': () => lk.isLeaseSubset({}, {}, { parentRemaining: { [LOW]: '1' } }),
  'isLeaseSubset.optionKey': () => lk.isLeaseSubset({}, {}, { [LOW]: 1 }),
  'assertLeaseSubset.constraints': () => lk.assertLeaseSubset({}, {}, { childConstraints: { expires_at: LOW } }),
  narrowLease: () => lk.narrowLease({ 'fs.read': [BAD] }, { 'fs.read': ['/**'] }),
  narrowConstraints: () => lk.narrowConstraints({ expires_at: LOW }, null),
  parseBudgetAmount: () => lk.parseBudgetAmount('USD:1' + LOW),
  parseAmount: () => lk.parseAmount('1' + LOW),
  sumBudgetEntries: () => lk.sumBudgetEntries(['USD:1', LOW]),
  initialBudgetFromLease: () => lk.initialBudgetFromLease({ 'cost.budget': ['USD:1' + LOW] }),
  parseExpiresAt: () => lk.parseExpiresAt('2030-01-01T00:00:00Z' + LOW),
  'validateLeaseConstraints.constraints': () => lk.validateLeaseConstraints({ expires_at: LOW }),
  'validateLeaseConstraints.now': () => lk.validateLeaseConstraints(null, LOW),
  checkAgentfile: () => lk.checkAgentfile('AGENT ' + LOW),
  'LeaseGuard.lease': () => new lk.LeaseGuard({ 'fs.read': [BAD] }),
  'LeaseGuard.constraints': () => new lk.LeaseGuard({}, { expires_at: LOW }),
  'LeaseGuard.clock': () => new lk.LeaseGuard({}, null, { clock: () => LOW }),
  'authorize.capability': () => guard.authorize(LOW, '/data/x'),
  'authorize.target': () => guard.authorize('fs.read', BAD),
  'authorize.vendorTarget': () => guard.authorize('x-vendor.acme.thing', BAD),
  authorizeModel: () => guard.authorizeModel('gpt-' + LOW),
  'recordMetric.name': () => guard.recordMetric('cost.' + LOW, '1', 'USD'),
  'recordMetric.value': () => guard.recordMetric('cost.llm', '1' + LOW, 'USD'),
  'recordMetric.unit': () => guard.recordMetric('cost.llm', '1', LOW),
  'reserve.currency': () => guard.reserve(LOW, '1'),
  'reserve.amount': () => guard.reserve('USD', '1' + LOW),
  delegate: () => guard.delegate({ 'fs.read': [BAD] }),
  lintLease: () => lk.lintLease({ 'fs.read': [BAD] }),
  'isLeaseSubset.parentRemainingValue': () => lk.isLeaseSubset({}, {}, { parentRemaining: { USD: '1' + LOW } }),
  'Agentfile.parse': () => lk.Agentfile.parse('AGENT ' + LOW),
  'Agentfile.parse.options': () => lk.Agentfile.parse('AGENT a', { [LOW]: true }),
  'checkAgentfile.options': () => lk.checkAgentfile('AGENT a', { [LOW]: true }),
  'evaluatePolicy.principal': () => agentfile.evaluatePolicy(LOW, 'AgentRC::Action::"call"', 'AgentRC::Tool::"x"'),
  'evaluatePolicy.action': () => agentfile.evaluatePolicy('AgentRC::Agent::"a"', LOW, 'AgentRC::Tool::"x"'),
  'evaluatePolicy.resource': () => agentfile.evaluatePolicy('AgentRC::Agent::"a"', 'AgentRC::Action::"call"', LOW),
  'evaluatePolicy.context': () => agentfile.evaluatePolicy('AgentRC::Agent::"a"', 'AgentRC::Action::"call"', 'AgentRC::Tool::"x"', { k: LOW }),
  'Governor.open.store': () => lk.Governor.open(LOW),
  'Governor.open.policy': () => lk.Governor.open('memory', { [LOW]: 1 }),
  'Governor.call.command': () => governor.call(LOW, {}),
  'Governor.call.request': () => governor.call('Acquire', { actorId: LOW }),
  'Governor.handle.command': () => governor.handle(LOW, '{}'),
  'Governor.handle.payload': () => governor.handle('Acquire', '{"actorId": "a"}' + LOW),
  'Governor.setTime': () => governor.setTime('2030-01-01T00:00:00Z' + LOW),
  'GovernorClient.connect': () => lk.GovernorClient.connect('/tmp/' + LOW),
}

for (const [name, call] of Object.entries(CALLS)) {
  test(`lone surrogate -> InvalidRequestError: ${name}`, () => {
    assert.throws(call, (err) => err instanceof lk.InvalidRequestError && err.code === 'INVALID_REQUEST', name)
  })
}

test('valid non-ASCII text passes unchanged', () => {
  assert.equal(lk.canonicalizeTarget('fs.read', '/données/😀'), '/données/😀')
  assert.equal(guard.authorize('fs.read', '/data/é'), '/data/é')
  assert.deepEqual(lk.normalizeLease({ 'tool.call': ['é😀'] }), { 'tool.call': ['é😀'] })
})
