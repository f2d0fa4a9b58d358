//! The plugin's behaviour, in safe code: byte slices in, owned buffers or a status out.

use restartkit::contract::{CONTRACT_VERSION, Response};
use restartkit::diag::Diagnostic;
use restartkit::prepared::{PrepareOptions, PreparedPolicy};
use serde_json::{Map, Value, json};
use std::cell::RefCell;

pub use restartkit::contract::plugin_abi::{ABI_MAJOR, ABI_MINOR, Status};

/// A failed call: its status and the JSON error response that explains it (what
/// `restartkit_error_detail` hands out).
pub struct Failure {
    pub status: Status,
    pub detail: Box<[u8]>,
}

impl Failure {
    pub fn new(status: Status, op: Option<&str>, d: Diagnostic) -> Self {
        Failure {
            status,
            detail: encode_response(&Response::error(op, d)),
        }
    }
    pub fn plain(status: Status, message: &str) -> Self {
        Failure::new(
            status,
            None,
            Diagnostic::request(status.name(), "", message),
        )
    }
}

fn encode_response(r: &Response) -> Box<[u8]> {
    match serde_json::to_vec(r) {
        Ok(v) => v.into_boxed_slice(),
        // A Response always serializes; keep a fixed fallback rather than a panic.
        Err(_) => br#"{"status":"error","errors":[{"severity":"error","field":"","type":null,"message":"cannot encode the response","origin":"restartkit","code":"internal"}]}"#
            .to_vec()
            .into_boxed_slice(),
    }
}

thread_local! {
    /// The detail of the last failed call (guest-owned; replaced by the next call).
    static LAST_ERROR: RefCell<Option<Box<[u8]>>> = const { RefCell::new(None) };
    /// Prepared policies; handle `h` lives in slot `h - 1`. Freed slots are reused.
    static SLOTS: RefCell<Vec<Option<PreparedPolicy>>> = const { RefCell::new(Vec::new()) };
}

/// Forgets the previous call's error detail (every entry point that can fail starts with this).
pub fn clear_error() {
    LAST_ERROR.with(|e| e.borrow_mut().take());
}

/// Records a failure's detail and gives back its status.
pub fn record(f: Failure) -> Status {
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(f.detail));
    f.status
}

/// Runs `f` on the current error detail (if any).
pub fn with_error<R>(f: impl FnOnce(Option<&[u8]>) -> R) -> R {
    LAST_ERROR.with(|e| f(e.borrow().as_deref()))
}

fn as_text(bytes: &[u8]) -> Result<&str, Failure> {
    // The detail names the line and column of the first bad byte, as every front end does.
    restartkit::source::text_from_bytes(bytes).map_err(|mut d| {
        d.code = Some(Status::InvalidUtf8.name().to_owned());
        d.message = format!("the request is not valid UTF-8: {}", d.message);
        Failure::new(Status::InvalidUtf8, None, d)
    })
}

fn contract_major(v: &str) -> Option<&str> {
    v.split('.').next()
}

/// One-shot evaluation: the request JSON of the core contract in, its response JSON out.
/// Statuses other than `Ok` come with a contract-shaped error response as detail.
pub fn evaluate(bytes: &[u8]) -> Result<Box<[u8]>, Failure> {
    let text = as_text(bytes)?;
    let owned;
    let text = if text.contains("\"contractVersion\"") {
        owned = strip_version(text)?;
        owned.as_str()
    } else {
        text
    };
    let out = restartkit::handle_json(text);
    // Request-level failures get their own status; their response becomes the detail. Only
    // error responses (which serialize `status` first) are parsed again.
    if out.starts_with("{\"status\":\"error\"")
        && let Ok(Response::Error { op, errors }) = serde_json::from_str::<Response>(&out)
    {
        let code = errors.first().and_then(|d| d.code.as_deref());
        let status = match (op.is_none(), code) {
            (true, Some("invalid-json")) => Some(Status::InvalidJson),
            (_, Some("unknown-op")) => Some(Status::UnknownOperation),
            _ => None,
        };
        if let Some(status) = status {
            return Err(Failure {
                status,
                detail: out.into_bytes().into_boxed_slice(),
            });
        }
    }
    Ok(out.into_bytes().into_boxed_slice())
}

/// A request may name the contract version it was written for (`"contractVersion": "1.0"`);
/// a different major is refused, the key is removed before the core sees the request.
fn strip_version(text: &str) -> Result<String, Failure> {
    let mut v = restartkit::source::parse_json_strict(text)
        .map_err(|d| Failure::new(Status::InvalidJson, None, d))?;
    if let Some(obj) = v.as_object_mut() {
        let op = obj.get("op").and_then(Value::as_str).map(str::to_owned);
        check_version(obj, op.as_deref())?;
    }
    serde_json::to_string(&v).map_err(|e| {
        Failure::plain(
            Status::Internal,
            &format!("cannot re-encode the request: {e}"),
        )
    })
}

/// Removes `contractVersion` from a request object, refusing a major other than ours.
fn check_version(obj: &mut Map<String, Value>, op: Option<&str>) -> Result<(), Failure> {
    match obj.remove("contractVersion") {
        Some(asked)
            if asked.as_str().and_then(contract_major) != contract_major(CONTRACT_VERSION) =>
        {
            Err(Failure::new(
                Status::UnsupportedVersion,
                op,
                Diagnostic::request(
                    "unsupported-version",
                    "contractVersion",
                    format!(
                        "contract version {asked} is not supported; this plugin speaks {CONTRACT_VERSION}"
                    ),
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// `restartkit_prepare`: `{"object": Pod|Job, "kubernetesVersion"?, "featureGates"?}` in, a
/// handle (>= 1) out.
pub fn prepare(bytes: &[u8]) -> Result<i32, Failure> {
    let text = as_text(bytes)?;
    let mut v = restartkit::source::parse_json_strict(text)
        .map_err(|d| Failure::new(Status::InvalidJson, None, d))?;
    let Some(obj) = v.as_object_mut() else {
        return Err(Failure::new(
            Status::Rejected,
            Some("prepare"),
            Diagnostic::request(
                "invalid-input",
                "",
                "the prepare request must be a JSON object",
            ),
        ));
    };
    check_version(obj, Some("prepare"))?;
    let object = obj.remove("object").unwrap_or(Value::Null);
    let options: PrepareOptions = restartkit::contract::decode(Value::Object(std::mem::take(obj)))
        .map_err(|d| Failure::new(Status::Rejected, Some("prepare"), d))?;
    let policy = PreparedPolicy::new(&object, &options)
        .map_err(|d| Failure::new(Status::Rejected, Some("prepare"), d))?;
    SLOTS.with(|s| {
        let mut slots = s.borrow_mut();
        let index = match slots.iter().position(Option::is_none) {
            Some(free) => {
                if let Some(slot) = slots.get_mut(free) {
                    *slot = Some(policy);
                }
                free
            }
            None => {
                slots.push(Some(policy));
                slots.len().saturating_sub(1)
            }
        };
        i32::try_from(index + 1)
            .map_err(|_| Failure::plain(Status::Internal, "too many prepared policies"))
    })
}

fn slot_index(handle: i32) -> Option<usize> {
    usize::try_from(handle).ok().and_then(|h| h.checked_sub(1))
}

/// `restartkit_decide_exit`: an action code (0..=6) or a negated status. Allocates nothing.
pub fn decide_exit(handle: i32, container: i32, exit_code: i32) -> i32 {
    with_policy(handle, |policy| {
        let Some(policy) = policy else {
            return -Status::BadHandle.code();
        };
        let Ok(index) = usize::try_from(container) else {
            return -Status::OutOfRange.code();
        };
        match policy.decide_exit(index, exit_code) {
            Some(action) => i32::from(action.code()),
            None => -Status::OutOfRange.code(),
        }
    })
}

/// Runs `f` on the prepared policy `handle` names (None: it names none).
#[inline]
fn with_policy<R>(handle: i32, f: impl FnOnce(Option<&PreparedPolicy>) -> R) -> R {
    SLOTS.with(|s| {
        let slots = s.borrow();
        f(slot_index(handle)
            .and_then(|i| slots.get(i))
            .and_then(Option::as_ref))
    })
}

/// `restartkit_prepared_containers`: the container names of a prepared policy, as a JSON array.
pub fn prepared_containers(handle: i32) -> Result<Box<[u8]>, Failure> {
    encode_prepared(handle, "the container names", |p| {
        serde_json::to_vec(p.container_names())
    })
}

/// `restartkit_prepared_warnings` (ABI 1.1): the validation errors of a prepared policy's object,
/// as warnings (code `invalid-object`), as a JSON array of Diagnostics; `[]` for a valid object.
/// Found once by `prepare`; `decide_exit` never validates.
pub fn prepared_warnings(handle: i32) -> Result<Box<[u8]>, Failure> {
    encode_prepared(handle, "the warnings", |p| serde_json::to_vec(p.warnings()))
}

/// What one prepared policy holds, encoded by `encode` (`what` names it in an encoding error);
/// a handle that names no policy is BadHandle.
fn encode_prepared(
    handle: i32,
    what: &str,
    encode: impl FnOnce(&PreparedPolicy) -> serde_json::Result<Vec<u8>>,
) -> Result<Box<[u8]>, Failure> {
    with_policy(handle, |policy| {
        let Some(policy) = policy else {
            return Err(Failure::plain(
                Status::BadHandle,
                &format!("no prepared policy has handle {handle}"),
            ));
        };
        encode(policy)
            .map(Vec::into_boxed_slice)
            .map_err(|e| Failure::plain(Status::Internal, &format!("cannot encode {what}: {e}")))
    })
}

/// `restartkit_release`: 0, or `-BadHandle`.
pub fn release(handle: i32) -> i32 {
    SLOTS.with(|s| {
        let mut slots = s.borrow_mut();
        match slot_index(handle).and_then(|i| slots.get_mut(i)) {
            Some(slot @ Some(_)) => {
                *slot = None;
                // Trailing free slots are dropped so the table shrinks back.
                while matches!(slots.last(), Some(None)) {
                    slots.pop();
                }
                0
            }
            _ => -Status::BadHandle.code(),
        }
    })
}

/// `restartkit_describe`: the module's capabilities as JSON.
pub fn describe() -> Result<Box<[u8]>, Failure> {
    let core = restartkit::contract::describe();
    let mut statuses = Map::new();
    for s in Status::ALL.iter().copied() {
        statuses.insert(s.name().to_owned(), json!(s.code()));
    }
    let actions: Vec<Value> = restartkit::contract::actions()
        .map(|a| json!({"code": a.code(), "name": a.name()}))
        .collect();
    let d = json!({
        "abi": {"major": ABI_MAJOR, "minor": ABI_MINOR},
        "module": "restartkit-policy",
        "exports": [
            "restartkit_evaluate", "restartkit_error_detail", "restartkit_prepare",
            "restartkit_prepared_containers", "restartkit_prepared_warnings", "restartkit_decide_exit",
            "restartkit_release"
        ],
        "restartkitVersion": core.restartkit_version,
        "contractVersion": core.contract_version,
        "operations": core.operations,
        "kubernetesVersions": core.kubernetes_versions,
        "defaultKubernetesVersion": core.default_kubernetes_version,
        "featureGates": core.feature_gates,
        "actions": actions,
        "statusCodes": statuses,
        "deterministic": true,
    });
    serde_json::to_vec(&d)
        .map(Vec::into_boxed_slice)
        .map_err(|e| {
            Failure::plain(
                Status::Internal,
                &format!("cannot encode the description: {e}"),
            )
        })
}
