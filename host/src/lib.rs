//! `restartkit-host`: runs the restartkit policy module (plugin ABI v1, `plugin/ABI.md`) in
//! wasmtime, and chains custom decider plugins in front of its built-in rules.
//!
//! ```no_run
//! use restartkit_host::{Host, Limits};
//! let mut host = Host::load("restartkit_plugin.wasm", Limits::default())?;
//! let answer = host.handle_json(r#"{"op":"describe","input":{}}"#)?;
//! # Ok::<(), restartkit_host::HostError>(())
//! ```
//!
//! Every call runs under a wall-clock deadline (epoch interruption), optional fuel and a memory
//! cap. A trap, a timeout or exhausted fuel becomes a typed [`HostError`]; the instance that
//! trapped is discarded and the next call gets a fresh one (prepared policies are re-prepared
//! on it transparently).

mod cache;
pub mod conformance;
mod error;
mod runtime;

pub use cache::{Cache, CacheHit};
pub use error::{HostError, Status};
pub use restartkit::prepared::Action;
pub use runtime::{DecidedBy, Decision, Evaluation, ExitEvent, Host, Limits, Prepared};

/// The plugin ABI's versions, from the one place the plugin reads them too: the major this host
/// speaks (policy modules and deciders alike), the minor that added
/// `restartkit_prepared_warnings`, and the newest minor this host knows (modules with a higher
/// minor still load).
pub use restartkit::contract::plugin_abi::{ABI_MAJOR, ABI_MINOR, ABI_MINOR_PREPARED_WARNINGS};
/// The decider ABI major this host speaks.
pub const DECIDER_ABI_MAJOR: i32 = 1;

/// The action with code `code` (plugin ABI "Action codes").
pub fn action_from_code(code: i32) -> Option<Action> {
    u8::try_from(code).ok().and_then(Action::from_code)
}

/// Where the policy module is looked for when no path is given: `$RESTARTKIT_PLUGIN`, then
/// `restartkit_plugin.wasm` beside the running executable, then the cargo layout
/// `<target>/wasm32-unknown-unknown/release/restartkit_plugin.wasm` seen from
/// `<target>/<profile>/<exe>`.
pub fn default_plugin_path() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("RESTARTKIT_PLUGIN") {
        return Some(p.into());
    }
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    let candidates = [
        dir.join("restartkit_plugin.wasm"),
        dir.join("../wasm32-unknown-unknown/release/restartkit_plugin.wasm"),
        dir.join("../../wasm32-unknown-unknown/release/restartkit_plugin.wasm"),
    ];
    candidates.into_iter().find(|p| p.is_file())
}
