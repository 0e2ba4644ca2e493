//! `LeaseGuard`: the runtime enforcement object (expiry, budgets, patterns, delegation).
//!
//! Time: without a `clock` option the guard uses the system clock. With one, the guard
//! holds a core `ManualClock` and sets it from the JavaScript clock (called synchronously,
//! on the JavaScript thread) right before each time-gated operation.

use std::any::Any;
use std::cell::RefCell;
use std::sync::Arc;

use leasekit::{Clock, GuardOptions, SystemClock, wire};
use napi::Env;
use napi_derive::napi;
use serde_json::Value;

use crate::clock::JsClock;
use crate::convert::{AmountInput, JsArg, constraints_from_js, options_json};
use crate::error::{Result, run};
use crate::lease::{LeaseArg, lease_arg};
use crate::text::Text;

/// Enforces one lease at run time: `authorize` checks expiry, budget and patterns (in
/// that order), spend metrics decrement the exact budget counters, `reserve`
/// pre-authorizes spend, and `delegate` creates a child guard whose lease must be a
/// subset and whose budget is reserved from this guard's counters.
#[napi]
pub struct LeaseGuard {
    pub(crate) inner: leasekit::LeaseGuard,
    /// The JavaScript clock, if the guard was given one.
    pub(crate) clock: Option<Arc<JsClock>>,
    /// What another module ties to this guard object's lifetime, dropped with it: the
    /// registry slot of the authorize fast path (`fast/`), once `index.js` asked for it. Opaque
    /// here, so that the fast path depends on the guard and not the reverse.
    pub(crate) attachment: RefCell<Option<Box<dyn Any>>>,
}

/// Reads `{clock?, graceMillis?, allowAnyModel?}` (own keys only): the clock (a JavaScript
/// function) here, every other key through core's wire shape (which refuses unknown keys).
fn settings_from_js(
    options: Option<&JsArg>,
) -> leasekit::Result<(Option<Arc<JsClock>>, GuardOptions)> {
    let mut clock = None;
    let fields = options_json(options, "LeaseGuard options", |key, field| match key {
        _ if field.is_nullish() => Ok(None),
        "clock" => {
            clock = Some(Arc::new(JsClock::new(&field)?));
            Ok(None)
        }
        _ => field.json().map(Some),
    })?;
    let options = wire::GuardOptions::from_value(fields, wire::KeyStyle::Camel)?.to_core();
    Ok((clock, options))
}

impl LeaseGuard {
    /// A guard object for a core guard.
    fn wrap(inner: leasekit::LeaseGuard, clock: Option<Arc<JsClock>>) -> Self {
        let attachment = RefCell::default();
        LeaseGuard {
            inner,
            clock,
            attachment,
        }
    }
}

#[napi]
impl LeaseGuard {
    /// A guard for `lease` with optional `constraints` (`{expires_at}`) and options
    /// (`clock`: a function returning a `Date`, RFC 3339 string or epoch milliseconds;
    /// `graceMillis`; `allowAnyModel`). Throws `InvalidRequestError` for invalid input.
    #[napi(
        constructor,
        ts_args_type = "lease: LeaseInput, constraints?: ConstraintsInput | undefined | null, options?: GuardOptions | undefined | null"
    )]
    pub fn new(
        env: Env,
        lease: LeaseArg<'_>,
        constraints: Option<JsArg>,
        options: Option<JsArg>,
    ) -> Result<Self> {
        run(|| {
            let lease = lease_arg(&lease)?;
            let constraints = constraints_from_js(constraints.as_ref())?;
            let (js, options) = settings_from_js(options.as_ref())?;
            let clock: Arc<dyn Clock> = match &js {
                Some(js) => {
                    js.refresh(&env)?;
                    js.manual.clone()
                }
                None => Arc::new(SystemClock),
            };
            let inner = leasekit::LeaseGuard::with_options(lease, constraints, clock, options);
            Ok(LeaseGuard::wrap(inner, js))
        })
    }

    /// Runs `f` on the core guard, after setting the core clock from the JavaScript clock (if
    /// there is one).
    fn ticked<T>(
        &self,
        env: &Env,
        f: impl FnOnce(&leasekit::LeaseGuard) -> leasekit::Result<T>,
    ) -> Result<T> {
        run(|| {
            if let Some(js) = &self.clock {
                js.refresh(env)?;
            }
            f(&self.inner)
        })
    }

    /// Authorizes `target` for `capability` and returns the canonical target the
    /// operation should use. Throws `LeaseExpiredError`, `BudgetExhaustedError`,
    /// `InvalidRequestError` or `PermissionDeniedError`.
    #[napi]
    pub fn authorize(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] capability: Text,
        #[napi(ts_arg_type = "string")] target: Text,
    ) -> Result<String> {
        self.ticked(&env, |g| g.authorize(&capability, &target))
    }

    /// Authorizes the model `modelId` (`model.use`) and returns it.
    #[napi]
    pub fn authorize_model(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] model_id: Text,
    ) -> Result<String> {
        self.ticked(&env, |g| g.authorize_model(&model_id))
    }

    /// Records a metric; a spend metric (`cost.*` in a budgeted currency) decrements that
    /// counter. Returns the `cost.budget.remaining` metrics this emitted.
    #[napi(
        ts_args_type = "name: string, value: AmountInput, unit: string",
        ts_return_type = "Metric[]"
    )]
    pub fn record_metric(
        &self,
        env: Env,
        name: Text,
        value: AmountInput,
        unit: Text,
    ) -> Result<Value> {
        // A number goes as its shortest decimal text, the form core's `amount_from_f64` reads;
        // core ignores the value of a non-spend metric.
        self.ticked(&env, |g| {
            wire::metrics_value(&g.record_metric(&name, &value.text(), &unit)?)
        })
    }

    /// Pre-authorizes `amount` of `currency` (atomically; the counter never goes below
    /// zero). Throws `BudgetExhaustedError`, or `InvalidRequestError` for an unbudgeted
    /// currency. Returns the emitted `cost.budget.remaining` metrics.
    #[napi(
        ts_args_type = "currency: string, amount: AmountInput",
        ts_return_type = "Metric[]"
    )]
    pub fn reserve(&self, env: Env, currency: Text, amount: AmountInput) -> Result<Value> {
        self.ticked(&env, |g| {
            wire::metrics_value(&g.reserve(&currency, amount.decimal()?)?)
        })
    }

    /// The remaining budget per currency as exact decimal strings (may be negative after
    /// overspend).
    #[napi(ts_return_type = "Record<string, string>")]
    pub fn remaining(&self) -> Result<Value> {
        run(|| Ok(wire::amounts_value(&self.inner.remaining())))
    }

    /// A child guard for `child` (which must be a subset of this guard's lease); the
    /// child's budget is reserved from this guard at once and returned by `close()`.
    /// The child shares this guard's clock.
    #[napi(ts_args_type = "child: LeaseInput, constraints?: ConstraintsInput | undefined | null")]
    pub fn delegate(
        &self,
        env: Env,
        child: LeaseArg<'_>,
        constraints: Option<JsArg>,
    ) -> Result<LeaseGuard> {
        self.ticked(&env, |g| {
            let child = lease_arg(&child)?;
            let inner = g.delegate(child, constraints_from_js(constraints.as_ref())?)?;
            Ok(LeaseGuard::wrap(inner, self.clock.clone()))
        })
    }

    /// Closes the guard: a child returns its unspent budget to its parent. Idempotent.
    /// Returns the metrics this emitted.
    #[napi(ts_return_type = "Metric[]")]
    pub fn close(&self) -> Result<Value> {
        run(|| wire::metrics_value(&self.inner.close()))
    }

    /// Whether `close()` has been called.
    #[napi]
    pub fn is_closed(&self) -> Result<bool> {
        run(|| Ok(self.inner.is_closed()))
    }

    /// The guarded lease, in stored (canonical) form.
    #[napi(ts_return_type = "Lease")]
    pub fn lease(&self) -> Result<Value> {
        run(|| Ok(self.inner.lease().to_value()))
    }

    /// The effective (possibly inherited) expiry as an RFC 3339 string, or `null`.
    #[napi]
    pub fn expires_at(&self) -> Result<Option<String>> {
        run(|| Ok(self.inner.expires_at().map(|t| t.to_rfc3339())))
    }
}

/// The MCP guard's engine (core's `ClientGuard`): JSON text in and out. `leasekit/mcp` wraps it
/// in `McpGuard` (parsed objects, the stdio proxy); use that unless you need the raw JSON.
#[napi]
pub struct McpGuardCore {
    inner: leasekit::mcp::ClientGuard,
}

#[napi]
impl McpGuardCore {
    /// A guard from its configuration document (JSON text; see `McpGuard` in `mcp.d.ts`).
    #[napi(constructor)]
    pub fn new(#[napi(ts_arg_type = "string")] config_json: Text) -> Result<Self> {
        run(|| {
            let inner = leasekit::mcp::ClientGuard::from_json(&config_json)?;
            Ok(McpGuardCore { inner })
        })
    }

    /// The server name calls are checked against (`mcp:<server>.<tool>`).
    #[napi(getter)]
    pub fn server(&self) -> String {
        self.inner.server()
    }

    /// The decision on one `tools/call` (its params as JSON text), as JSON text.
    #[napi]
    pub fn decide_call(&self, #[napi(ts_arg_type = "string")] params_json: Text) -> Result<String> {
        run(|| Ok(self.inner.decide_call(&params_json)))
    }

    /// Reports the end of an allowed call (`success`, `toolError`, `error`, `cancelled`);
    /// the log lines as JSON text.
    #[napi]
    pub fn finish_call(
        &self,
        call_id: i64,
        #[napi(ts_arg_type = "string")] outcome: Text,
    ) -> Result<String> {
        run(|| {
            let id = u64::try_from(call_id)
                .map_err(|_| leasekit::Error::invalid("callId must not be negative"))?;
            let outcome = leasekit::mcp::CallOutcome::parse(&outcome)?;
            Ok(self.inner.finish_call(id, outcome))
        })
    }

    /// A `tools/list` result (JSON text) filtered to the allowed tools, as JSON text.
    #[napi]
    pub fn filter_tools(
        &self,
        #[napi(ts_arg_type = "string")] result_json: Text,
    ) -> Result<String> {
        run(|| self.inner.filter_tools(&result_json))
    }

    /// The decision on one `resources/read` URI, as JSON text.
    #[napi]
    pub fn decide_resource(&self, #[napi(ts_arg_type = "string")] uri: Text) -> Result<String> {
        run(|| Ok(self.inner.decide_resource(&uri)))
    }
}
