//! What every native front end (the Node addon, the Python extension) wraps a call into the core
//! in, so that no panic crosses the FFI boundary: the panic becomes an `internal` diagnostic and,
//! where a response is due, a contract-shaped error response.

use crate::diag::Diagnostic;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `f`, turning a panic into an `internal` diagnostic that quotes the panic's message.
pub fn guarded<T>(f: impl FnOnce() -> Result<T, Diagnostic>) -> Result<T, Diagnostic> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(Diagnostic::request(
                "internal",
                "",
                format!("internal error in restartkit: {what}"),
            ))
        }
    }
}

/// The JSON text of an error response holding `d` (`{"status": "error", "errors": [d]}`); a
/// fixed `internal` one in the unlikely case `d` does not serialize.
pub fn error_response_text(d: &Diagnostic) -> String {
    serde_json::to_string(&serde_json::json!({"status": "error", "errors": [d]})).unwrap_or_else(|_| {
        r#"{"status":"error","errors":[{"severity":"error","field":"","type":null,"message":"internal error","origin":"restartkit","code":"internal"}]}"#.to_owned()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_error_response() {
        let r: Result<(), Diagnostic> = guarded(|| panic!("boom {}", 7));
        let d = r.unwrap_err();
        assert_eq!(d.code.as_deref(), Some("internal"));
        assert!(d.message.contains("boom 7"), "{}", d.message);
        let resp: serde_json::Value = serde_json::from_str(&error_response_text(&d)).unwrap();
        assert_eq!(resp["status"], "error");
        assert_eq!(resp["errors"][0]["code"], "internal");
        assert_eq!(guarded(|| Ok::<_, Diagnostic>(3)).unwrap(), 3);
    }
}
