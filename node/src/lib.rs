//! The native half of `@restartkit/node` (napi-rs). It only converts: JSON text in and out of the
//! core's contract (on the main thread or, for the async variants, on libuv's thread pool), YAML
//! parsing, and the compiled fast path. The JavaScript API (`index.js`) builds on it.
//!
//! No panic crosses into JavaScript: every call into the core runs under `catch_unwind`, and a
//! panic becomes a `status: "error"` response with code `internal`. Errors that must throw carry
//! their diagnostics as JSON after the marker [`MARK`], which `index.js` turns into a
//! `RestartkitError`.

use napi::bindgen_prelude::{AsyncTask, Int32Array, Uint8Array};
use napi::{Env, Error, Result, Status, Task};
use napi_derive::napi;
use restartkit::Diagnostic;
use restartkit::prepared::{PrepareOptions, PreparedPolicy};
use serde_json::Value;
use restartkit::contract::guard::{error_response_text as error_response, guarded};

/// Prefix of an error message that holds diagnostics as JSON.
const MARK: &str = "RESTARTKIT_DIAGNOSTICS:";


fn to_js_error(d: &Diagnostic) -> Error {
    let json = serde_json::to_string(&[d]).unwrap_or_else(|_| "[]".to_owned());
    Error::new(Status::GenericFailure, format!("{MARK}{json}"))
}

fn diag(code: &str, field: &str, message: impl Into<String>) -> Diagnostic {
    Diagnostic::request(code, field, message)
}

fn one(request: &str) -> String {
    match guarded(|| Ok(restartkit::handle_json(request))) {
        Ok(s) => s,
        Err(d) => error_response(&d),
    }
}

/// The raw JSON contract: a request `{"op": ..., "input": {...}}` as JSON text in, the response
/// as JSON text out. Never throws.
#[napi]
pub fn handle_json(request: String) -> String {
    one(&request)
}

pub struct HandleTask {
    requests: Vec<String>,
}

impl Task for HandleTask {
    type Output = Vec<String>;
    type JsValue = Vec<String>;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(self.requests.iter().map(|r| one(r)).collect())
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output)
    }
}

pub struct HandleOneTask {
    request: String,
}

impl Task for HandleOneTask {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(one(&self.request))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output)
    }
}

/// Like `handleJson`, on a worker thread of libuv's pool.
#[napi(ts_return_type = "Promise<string>")]
pub fn handle_json_async(request: String) -> AsyncTask<HandleOneTask> {
    AsyncTask::new(HandleOneTask { request })
}

/// Many requests on one worker thread: one response per request, in order.
#[napi(ts_return_type = "Promise<string[]>")]
pub fn handle_json_many_async(requests: Vec<String>) -> AsyncTask<HandleTask> {
    AsyncTask::new(HandleTask { requests })
}

/// YAML or JSON text (one or more documents) as a JSON array of documents, or the contract's
/// error shape (`{"status":"error","errors":[...]}`, with line and column) when unreadable.
#[napi]
pub fn parse_source(text: String) -> String {
    let r = guarded(|| {
        let docs = restartkit::source::parse_documents(&text)?;
        let values: Vec<&Value> = docs.iter().map(|d| &d.value).collect();
        serde_json::to_string(&serde_json::json!({"status": "ok", "documents": values}))
            .map_err(|e| diag("internal", "", format!("cannot encode documents: {e}")))
    });
    match r {
        Ok(s) => s,
        Err(d) => error_response(&d),
    }
}

/// UTF-8 text from bytes, or an error (diagnostics after [`MARK`], code `invalid-utf8`) naming
/// the line and column of the first byte that is not UTF-8: the core's check, as every front end
/// reports it.
#[napi]
pub fn text_from_bytes(bytes: Uint8Array) -> Result<String> {
    restartkit::source::text_from_bytes(&bytes)
        .map(str::to_owned)
        .map_err(|d| to_js_error(&d))
}

/// Every JSON Schema of the contract, as one JSON object text `{name: schema}`.
#[napi]
pub fn schemas_json() -> String {
    serde_json::to_string(&restartkit::contract::json_schemas()).unwrap_or_else(|_| "{}".to_owned())
}

/// restartkit's version.
#[napi]
pub fn version() -> String {
    restartkit::VERSION.to_owned()
}

/// Action names by code (the codes `decideMany` returns).
#[napi]
pub fn action_names() -> Vec<String> {
    restartkit::contract::actions()
        .map(|a| a.name().to_owned())
        .collect()
}

/// A Pod or Job compiled once for fast exit-code decisions.
#[napi]
pub struct NativePolicy {
    inner: PreparedPolicy,
}

#[napi]
impl NativePolicy {
    /// Compiles a Pod or Job (JSON text) with options (JSON text: kubernetesVersion, featureGates).
    #[napi(factory)]
    pub fn compile(object_json: String, options_json: String) -> Result<Self> {
        guarded(|| {
            let obj: Value = serde_json::from_str(&object_json).map_err(|e| {
                diag(
                    "invalid-input",
                    "object",
                    format!("object is not JSON: {e}"),
                )
            })?;
            let opts_value: Value = serde_json::from_str(&options_json).map_err(|e| {
                diag(
                    "invalid-input",
                    "options",
                    format!("options are not JSON: {e}"),
                )
            })?;
            let opts: PrepareOptions = restartkit::contract::decode(opts_value)?;
            PreparedPolicy::new(&obj, &opts)
        })
        .map(|inner| NativePolicy { inner })
        .map_err(|d| to_js_error(&d))
    }

    /// Container names in index order (containers, then init containers).
    #[napi(getter)]
    pub fn containers(&self) -> Vec<String> {
        self.inner.container_names().to_vec()
    }

    /// The compiled object's validation errors as warnings (code `invalid-object`), as JSON text
    /// of a Diagnostic array; found once when it was compiled, empty (`[]`) for a valid object.
    #[napi(getter)]
    pub fn warnings_json(&self) -> String {
        serde_json::to_string(self.inner.warnings()).unwrap_or_else(|_| "[]".to_owned())
    }

    /// The action code of container `index` exiting with `exitCode`.
    #[napi]
    pub fn decide_code(&self, index: u32, exit_code: i32) -> Result<u32> {
        guarded(|| self.inner.decide_checked(index as usize, exit_code))
            .map(|a| u32::from(a.code()))
            .map_err(|d| to_js_error(&d))
    }

    /// One action code per exit code.
    #[napi]
    pub fn decide_many(&self, index: u32, exit_codes: Int32Array) -> Result<Uint8Array> {
        let codes: &[i32] = &exit_codes;
        let out = guarded(|| self.inner.decide_codes(index as usize, codes))
            .map_err(|d| to_js_error(&d))?;
        Ok(Uint8Array::new(out))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;


    #[test]
    fn thrown_errors_carry_diagnostics_after_the_marker() {
        let e = to_js_error(&diag(
            "unknown-container",
            "container",
            "no container named \"x\"",
        ));
        let json = e.reason.strip_prefix(MARK).unwrap();
        let ds: Vec<Diagnostic> = serde_json::from_str(json).unwrap();
        assert_eq!(ds[0].field, "container");
    }

    #[test]
    fn parse_source_reports_documents_or_errors() {
        let ok: Value =
            serde_json::from_str(&parse_source("a: 1\n---\nb: 2\n".to_owned())).unwrap();
        assert_eq!(ok["documents"].as_array().unwrap().len(), 2);
        let bad: Value = serde_json::from_str(&parse_source("a: [1\n".to_owned())).unwrap();
        assert_eq!(bad["status"], "error");
    }
}
