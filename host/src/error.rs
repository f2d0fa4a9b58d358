use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Transport status codes of plugin ABI v1 (`plugin/ABI.md`, "Status codes"): the one list
/// the plugin answers with, `Status::Other` for a code of a newer minor.
pub use restartkit::contract::plugin_abi::Status;

/// Everything that can go wrong between the host and a plugin.
#[derive(Debug)]
pub enum HostError {
    /// The module file could not be read.
    Io { path: PathBuf, message: String },
    /// The bytes are not a WebAssembly module wasmtime accepts (garbage, truncated, bad WAT).
    InvalidModule(String),
    /// A required export is missing or has the wrong type: not a restartkit plugin.
    NotAPlugin { export: String, message: String },
    /// The module speaks another ABI major than this host.
    AbiMismatch {
        kind: &'static str,
        found: i32,
        expected: i32,
    },
    /// The module imports something; ABI v1 modules import nothing.
    HasImports(Vec<String>),
    /// Instantiation failed (e.g. its initial memory exceeds the cap).
    Instantiate(String),
    /// The call ran past its wall-clock deadline; the instance was discarded.
    Timeout { limit: Duration },
    /// The call used up its fuel; the instance was discarded.
    OutOfFuel { fuel: u64 },
    /// The guest asked for more memory than the cap; the instance was discarded (or, when the
    /// input buffer itself did not fit, nothing ran).
    MemoryLimit { limit_bytes: usize },
    /// The guest trapped (a panic in the guest is an abort, i.e. a trap): an internal error of the
    /// plugin. The instance was discarded.
    Trap(String),
    /// The guest reported a transport status; `detail` is its JSON error response, if any.
    Status {
        status: Status,
        detail: Option<String>,
    },
    /// The guest broke the ABI (a pointer outside memory, output that is not UTF-8, …).
    Protocol(String),
    /// A decider returned a code that is not Restart (1), DoNotRestart (0) or Abstain (-1).
    InvalidDecision { decider: String, code: i32 },
    /// A [`crate::Prepared`] of another host, or one already released.
    UnknownPrepared,
}

impl HostError {
    /// The stable short name of this error (for logs and CLI output).
    pub fn kind(&self) -> &'static str {
        match self {
            HostError::Io { .. } => "io",
            HostError::InvalidModule(_) => "invalid-module",
            HostError::NotAPlugin { .. } => "not-a-plugin",
            HostError::AbiMismatch { .. } => "abi-mismatch",
            HostError::HasImports(_) => "has-imports",
            HostError::Instantiate(_) => "instantiate",
            HostError::Timeout { .. } => "timeout",
            HostError::OutOfFuel { .. } => "out-of-fuel",
            HostError::MemoryLimit { .. } => "memory-limit",
            HostError::Trap(_) => "trap",
            HostError::Status { status, .. } => status.name(),
            HostError::Protocol(_) => "protocol",
            HostError::InvalidDecision { .. } => "invalid-decision",
            HostError::UnknownPrepared => "unknown-prepared",
        }
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::Io { path, message } => {
                write!(f, "cannot read {}: {message}", path.display())
            }
            HostError::InvalidModule(m) => write!(f, "not a valid WebAssembly module: {m}"),
            HostError::NotAPlugin { export, message } => {
                write!(f, "not a restartkit plugin: export {export:?}: {message}")
            }
            HostError::AbiMismatch {
                kind,
                found,
                expected,
            } => write!(
                f,
                "{kind} ABI major version mismatch: the module speaks {found}, this host speaks {expected}"
            ),
            HostError::HasImports(names) => {
                write!(
                    f,
                    "plugin ABI v1 modules import nothing, this one imports {}",
                    names.join(", ")
                )
            }
            HostError::Instantiate(m) => write!(f, "cannot instantiate the module: {m}"),
            HostError::Timeout { limit } => {
                write!(f, "the plugin call ran past its deadline of {limit:?}")
            }
            HostError::OutOfFuel { fuel } => write!(f, "the plugin call used up its fuel ({fuel})"),
            HostError::MemoryLimit { limit_bytes } => {
                write!(f, "the plugin hit its memory cap of {limit_bytes} bytes")
            }
            HostError::Trap(m) => write!(f, "the plugin trapped (internal error): {m}"),
            HostError::Status { status, detail } => {
                write!(
                    f,
                    "the plugin answered status {} ({})",
                    status.code(),
                    status.name()
                )?;
                if let Some(d) = detail {
                    write!(f, ": {d}")?;
                }
                Ok(())
            }
            HostError::Protocol(m) => write!(f, "the plugin broke the ABI: {m}"),
            HostError::InvalidDecision { decider, code } => {
                write!(
                    f,
                    "decider {decider} returned {code}, which is not 0, 1 or -1"
                )
            }
            HostError::UnknownPrepared => write!(
                f,
                "this prepared policy is not (or no longer) held by this host"
            ),
        }
    }
}

impl std::error::Error for HostError {}
