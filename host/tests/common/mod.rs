#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    dead_code
)]

use std::path::PathBuf;

/// The release build of the policy module (`make plugin`).
pub fn plugin_path() -> PathBuf {
    restartkit_host::default_plugin_path()
        .filter(|p| p.is_file())
        .expect("restartkit_plugin.wasm not found: run `make plugin` (or set RESTARTKIT_PLUGIN)")
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn vector_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo_root().join("conformance/vectors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no vector files");
    v
}

fn pack(ptr: u32, len: usize) -> i64 {
    ((u64::from(ptr) << 32) | len as u64) as i64
}

const CONTAINERS: &str = r#"["app","sidecar"]"#;
const DESCRIBE: &str = r#"{"abi":{"major":1,"minor":0},"module":"fake"}"#;

/// A hand-written module that implements the policy-module ABI trivially (bump allocator, fixed
/// answers), with the body of `restartkit_evaluate` and `restartkit_decide_exit` and the ABI
/// major chosen by the test. Used to test the host on its own (timeouts, memory caps, the decider
/// chain) independently of the core.
pub fn fake_policy(abi_major: i32, evaluate_body: &str, decide_body: &str) -> String {
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    format!(
        r#"(module
  (memory (export "memory") 1)
  (global $bump (mut i32) (i32.const 4096))
  (data (i32.const 16) "{containers}")
  (data (i32.const 256) "{describe}")
  (func (export "restartkit_abi_version") (result i32) (i32.const {abi_major}))
  (func (export "restartkit_abi_minor_version") (result i32) (i32.const 0))
  (func (export "restartkit_alloc") (param $len i32) (result i32) (local $p i32)
    (local.set $p (global.get $bump))
    (global.set $bump (i32.add (global.get $bump) (local.get $len)))
    (local.get $p))
  (func (export "restartkit_free") (param i32 i32) (global.set $bump (i32.const 4096)))
  (func (export "restartkit_describe") (result i64) (i64.const {describe_packed}))
  (func (export "restartkit_evaluate") (param i32 i32) (result i64) {evaluate_body})
  (func (export "restartkit_error_detail") (result i64) (i64.const 0))
  (func (export "restartkit_prepare") (param i32 i32) (result i32) (i32.const 1))
  (func (export "restartkit_prepared_containers") (param i32) (result i64) (i64.const {containers_packed}))
  (func (export "restartkit_decide_exit") (param i32 i32 i32) (result i32) {decide_body})
  (func (export "restartkit_release") (param i32) (result i32) (i32.const 0)))"#,
        containers = esc(CONTAINERS),
        describe = esc(DESCRIBE),
        describe_packed = pack(256, DESCRIBE.len()),
        containers_packed = pack(16, CONTAINERS.len()),
    )
}

/// `evaluate` answers the describe text; `decide_exit` answers DoNotRestart (0) for exit 0 and
/// Count (6) otherwise.
pub fn well_behaved() -> String {
    fake_policy(
        1,
        &format!("(i64.const {})", pack(256, DESCRIBE.len())),
        "(select (i32.const 0) (i32.const 6) (i32.eqz (local.get 2)))",
    )
}

pub const SPIN: &str = "(loop $l (br $l)) (i64.const 0)";
/// Grows memory a page at a time until refused, then aborts as a Rust guest would.
pub const GROW_UNTIL_REFUSED: &str =
    "(loop $l (br_if $l (i32.ne (memory.grow (i32.const 1)) (i32.const -1)))) (unreachable)";
