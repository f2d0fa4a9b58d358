//! The envelope every op travels in: a request (`op`, `input`) and its response (a result with
//! warnings, or errors). Its own file, below the op table, so the conformance runner can name it
//! without reaching the dispatcher.

use crate::diag::Diagnostic;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A request. `input` is decoded according to `op`; its schema is `restartkit schema <Op>Input`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Request {
    pub op: String,
    #[serde(default)]
    pub input: Value,
}

impl Request {
    /// A request for `op` with its input (the front ends that skip JSON text build it so).
    pub fn new(op: impl Into<String>, input: Value) -> Self {
        Request {
            op: op.into(),
            input,
        }
    }
}

/// The answer to any request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum Response {
    Ok {
        op: String,
        result: Value,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<Diagnostic>,
    },
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op: Option<String>,
        errors: Vec<Diagnostic>,
    },
}

impl Response {
    pub fn error(op: Option<&str>, d: Diagnostic) -> Self {
        Response::Error {
            op: op.map(str::to_owned),
            errors: vec![d],
        }
    }
    pub fn result(&self) -> Option<&Value> {
        match self {
            Response::Ok { result, .. } => Some(result),
            Response::Error { .. } => None,
        }
    }
}
