'use strict'
// The governor's classes (Governor, GovernorClient; docs/governor.md): the typed methods of
// both, generated from core's command table (GOVERNOR_COMMANDS, scripts/gen-governor-methods.py),
// each one core's strict call of its command, and their Promise forms. index.js calls this once
// with the native module and its error helpers, then exports the classes. Nothing is decided
// here: every rule is core's.

// index.js's error conversions (set by installGovernor).
let convertError
let rethrow

// The typed methods: method name -> command (a plain request object in the protocol's field
// names in, the response payload as a plain object out).
// BEGIN generated (scripts/gen-governor-methods.py)
const GOVERNOR_COMMANDS = {
  acquire: 'Acquire',
  release: 'Release',
  requestApproval: 'RequestApproval',
  grantApproval: 'GrantApproval',
  denyApproval: 'DenyApproval',
  listPendingApprovals: 'ListPendingApprovals',
  reviewApproval: 'ReviewApproval',
  metrics: 'GetMetrics',
  status: 'GetStatus',
  exportDiagnostics: 'ExportDiagnostics',
  exportRunawayReport: 'ExportRunawayReport',
  stagePolicyBundle: 'StagePolicyBundle',
  activatePolicy: 'ActivatePolicy',
  requestToolSubLease: 'RequestToolSubLease',
  executeToolCall: 'ExecuteToolCall',
  authorize: 'Authorize',
  exportAudit: 'ExportAudit',
  verifyAudit: 'VerifyAudit',
  rollbackPolicy: 'RollbackPolicy',
  recordDecision: 'RecordDecision',
}
// END generated
// The Promise form of a strict call: the native task resolves to the JSON text
// `{"ok": response}` or `{"error": {code, message, retryable, details}}`.
function settle(text) {
  const r = JSON.parse(text)
  if (Object.hasOwn(r, 'error')) {
    const code = r.error && typeof r.error.code === 'string' ? r.error.code : 'INTERNAL_ERROR'
    throw convertError({ code, message: JSON.stringify(r.error) })
  }
  return r.ok
}
function addGovernorMethods(NativeClass, call, callAsync) {
  // `async`: an argument refused before the call is queued rejects the Promise too.
  const asyncCall = async function (command, request) {
    let pending
    try {
      pending = callAsync.call(this, command, request)
    } catch (err) {
      throw convertError(err)
    }
    return settle(await pending)
  }
  Object.defineProperty(NativeClass.prototype, 'callAsync', {
    value: async function callAsync(command, request) {
      return asyncCall.call(this, command, request)
    },
    writable: true,
    configurable: true,
  })
  for (const [name, command] of Object.entries(GOVERNOR_COMMANDS)) {
    Object.defineProperty(NativeClass.prototype, `${name}Async`, {
      value: { [`${name}Async`]: async function (request) { return asyncCall.call(this, command, request) } }[`${name}Async`],
      writable: true,
      configurable: true,
    })
  }
  // The native `call` answers core's JSON text: JSON.parse builds the plain object faster
  // than Node-API can.
  const parsedCall = function call(command, request) {
    try {
      return JSON.parse(nativeCall.call(this, command, request))
    } catch (err) {
      throw rethrow(err, parsedCall)
    }
  }
  const nativeCall = call
  Object.defineProperty(NativeClass.prototype, 'call', { value: parsedCall, writable: true, configurable: true })
  for (const [name, command] of Object.entries(GOVERNOR_COMMANDS)) {
    const method = {
      [name]: function (request) {
        try {
          return JSON.parse(nativeCall.call(this, command, request))
        } catch (err) {
          throw rethrow(err, method)
        }
      },
    }[name]
    Object.defineProperty(NativeClass.prototype, name, { value: method, writable: true, configurable: true })
  }
}

/** Wraps the native classes' methods (errors become LeaseErrors) and adds the typed ones. */
module.exports = function installGovernor(native, helpers) {
  convertError = helpers.convertError
  rethrow = helpers.rethrow
  const { wrapClass } = helpers
  for (const NativeClass of [native.Governor, native.GovernorClient]) {
    const { call, __callAsync: callAsync } = NativeClass.prototype
    delete NativeClass.prototype.__callAsync
    wrapClass(NativeClass)
    addGovernorMethods(NativeClass, call, callAsync)
  }
}
