//! The host on its own, with hand-written modules: deadlines, fuel, memory caps, bad modules,
//! the module cache and the decider chain.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;
use common::*;
use restartkit_host::{Action, Cache, CacheHit, DecidedBy, ExitEvent, Host, HostError, Limits};
use std::time::{Duration, Instant};

fn limits() -> Limits {
    Limits {
        memory_bytes: 4 << 20,
        timeout: Duration::from_millis(50),
        fuel: None,
    }
}

/// A runaway guest must be stopped at the 50 ms deadline. The lower bounds (45 ms) are exact;
/// the upper bound only has to tell "stopped" from "never stopped", and is loose because a
/// loaded CI machine (make test runs the front ends side by side) delays the epoch ticker and
/// this thread by hundreds of milliseconds.
const STOPPED_WITHIN: Duration = Duration::from_secs(2);

fn load(wat: &str, limits: Limits) -> Result<Host, HostError> {
    Host::from_bytes(wat.as_bytes(), limits, Cache::Disabled)
}

#[test]
fn runaway_guest_is_stopped_at_its_deadline_and_the_instance_rebuilt() {
    let mut host = load(&fake_policy(1, SPIN, "(i32.const 0)"), limits()).unwrap();
    for round in 1..=3 {
        let t = Instant::now();
        let err = host.evaluate(b"{}").unwrap_err();
        let took = t.elapsed();
        assert!(matches!(err, HostError::Timeout { .. }), "{err}");
        assert!(took < STOPPED_WITHIN, "stopped after {took:?}");
        assert!(
            took >= Duration::from_millis(45),
            "stopped too early, after {took:?}"
        );
        assert_eq!(host.rebuilds(), round);
        assert!(
            host.memory_size().is_none(),
            "the trapped instance must be discarded"
        );
        // The next call runs on a fresh instance.
        assert!(host.describe().unwrap().contains("\"fake\""));
    }
}

#[test]
fn hosts_sharing_an_engine_keep_their_deadlines() {
    // Hosts with the same engine configuration share one engine and one epoch ticker: with
    // three alive the deadline must neither shrink (one ticker per host would advance the shared
    // epoch three times as fast) nor stretch.
    let others: Vec<Host> = (0..2)
        .map(|_| load(&well_behaved(), limits()).unwrap())
        .collect();
    let mut host = load(&fake_policy(1, SPIN, "(i32.const 0)"), limits()).unwrap();
    let t = Instant::now();
    let err = host.evaluate(b"{}").unwrap_err();
    let took = t.elapsed();
    assert!(matches!(err, HostError::Timeout { .. }), "{err}");
    assert!(
        (Duration::from_millis(45)..STOPPED_WITHIN).contains(&took),
        "stopped after {took:?}"
    );
    drop(others);
    // The last host alive keeps the ticker running.
    let t = Instant::now();
    assert!(matches!(
        host.evaluate(b"{}"),
        Err(HostError::Timeout { .. })
    ));
    assert!(
        t.elapsed() < STOPPED_WITHIN,
        "stopped after {:?}",
        t.elapsed()
    );
}

#[test]
fn fuel_stops_a_runaway_guest() {
    let l = Limits {
        fuel: Some(1_000_000),
        timeout: Duration::from_secs(10),
        ..limits()
    };
    let mut host = load(&fake_policy(1, SPIN, "(i32.const 0)"), l).unwrap();
    let err = host.evaluate(b"{}").unwrap_err();
    assert!(
        matches!(err, HostError::OutOfFuel { fuel: 1_000_000 }),
        "{err}"
    );
    // Fuel is per call: a normal call afterwards has its full budget again.
    assert!(host.describe().is_ok());
}

#[test]
fn memory_bomb_is_stopped_at_the_cap() {
    let mut host = load(
        &fake_policy(1, GROW_UNTIL_REFUSED, "(i32.const 0)"),
        limits(),
    )
    .unwrap();
    let err = host.evaluate(b"{}").unwrap_err();
    assert!(
        matches!(err, HostError::MemoryLimit { limit_bytes } if limit_bytes == 4 << 20),
        "{err}"
    );
    assert!(
        err.to_string().contains("memory cap of 4194304 bytes"),
        "{err}"
    );
    assert_eq!(host.rebuilds(), 1);
    assert_eq!(
        host.describe().unwrap(),
        r#"{"abi":{"major":1,"minor":0},"module":"fake"}"#
    );
}

#[test]
fn one_huge_growth_is_refused_without_a_trap() {
    // memory.grow of 1 GiB returns -1 to the guest; this guest reports it as its answer length.
    let body = "(i64.extend_i32_u (memory.grow (i32.const 16384)))";
    let mut host = load(&fake_policy(1, body, "(i32.const 0)"), limits()).unwrap();
    let e = host.evaluate(b"{}").unwrap();
    // ptr 0, low half 0xffffffff: a status the host does not know, passed on as such.
    assert_eq!(e.status.code(), -1);
    assert_eq!(host.rebuilds(), 0);
    assert_eq!(host.memory_size(), Some(65536));
}

#[test]
fn garbage_is_not_a_module() {
    let err = Host::from_bytes(b"\0asm\x01\0\0\0garbage", limits(), Cache::Disabled)
        .err()
        .unwrap();
    assert!(matches!(err, HostError::InvalidModule(_)), "{err}");
    let err = Host::from_bytes(b"definitely not wasm", limits(), Cache::Disabled)
        .err()
        .unwrap();
    assert!(matches!(err, HostError::InvalidModule(_)), "{err}");
    assert!(
        err.to_string()
            .starts_with("not a valid WebAssembly module"),
        "{err}"
    );
}

#[test]
fn wrong_abi_major_is_refused_clearly() {
    let err = load(&fake_policy(2, "(i64.const 0)", "(i32.const 0)"), limits())
        .err()
        .unwrap();
    assert!(
        matches!(
            err,
            HostError::AbiMismatch {
                found: 2,
                expected: 1,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "policy module ABI major version mismatch: the module speaks 2, this host speaks 1"
    );
}

#[test]
fn modules_with_imports_or_missing_exports_are_refused() {
    let err = load(r#"(module (import "env" "clock" (func)))"#, limits())
        .err()
        .unwrap();
    assert!(
        matches!(&err, HostError::HasImports(v) if v == &["env::clock".to_owned()]),
        "{err}"
    );
    let err = load("(module)", limits()).err().unwrap();
    assert!(
        matches!(&err, HostError::NotAPlugin { export, .. } if export == "restartkit_abi_version"),
        "{err}"
    );
    // The right names with the wrong types.
    let err = load(
        r#"(module (func (export "restartkit_abi_version") (result i64) (i64.const 1)))"#,
        limits(),
    )
    .err()
    .unwrap();
    assert!(matches!(err, HostError::NotAPlugin { .. }), "{err}");
}

#[test]
fn initial_memory_over_the_cap_fails_instantiation() {
    let wat = well_behaved().replace(
        "(memory (export \"memory\") 1)",
        "(memory (export \"memory\") 100)",
    );
    let err = load(&wat, limits()).err().unwrap();
    assert!(
        matches!(
            err,
            HostError::Instantiate(_) | HostError::MemoryLimit { .. }
        ),
        "{err}"
    );
}

#[test]
fn module_cache_is_written_then_used() {
    let dir = std::env::temp_dir().join(format!("restartkit-host-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let wat = well_behaved();
    let a = Host::from_bytes(wat.as_bytes(), limits(), Cache::Dir(dir.clone())).unwrap();
    assert!(!a.from_cache());
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].extension().is_some_and(|e| e == "cwasm"));
    let mut b = Host::from_bytes(wat.as_bytes(), limits(), Cache::Dir(dir.clone())).unwrap();
    assert!(b.from_cache());
    assert!(b.describe().unwrap().contains("fake"));
    // A corrupt cache file is ignored and replaced. (Cache files are mapped into memory by
    // the hosts that loaded them, so they are replaced by rename, never rewritten in place.)
    drop((a, b));
    let tmp = dir.join("junk.tmp");
    std::fs::write(&tmp, b"junk").unwrap();
    std::fs::rename(&tmp, &files[0]).unwrap();
    let c = Host::from_bytes(wat.as_bytes(), limits(), Cache::Dir(dir.clone())).unwrap();
    assert!(!c.from_cache());
    let d = Host::from_bytes(wat.as_bytes(), limits(), Cache::Dir(dir.clone())).unwrap();
    assert!(d.from_cache());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Loading from a file: once the file has settled, a load hits the identity key (no read, no
/// hash); a changed file misses it and gets its own module, never the stale one.
#[test]
fn module_cache_by_file_identity_follows_changes_to_the_file() {
    let dir = std::env::temp_dir().join(format!("restartkit-host-idcache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let module = dir.join("policy.wat");
    let cache = Cache::Dir(dir.join("cache"));
    let load = || Host::load_with_cache(&module, limits(), cache.clone()).unwrap();
    let entries = || std::fs::read_dir(dir.join("cache")).unwrap().count();
    let said = |h: &mut Host| h.describe().unwrap();

    std::fs::write(&module, well_behaved()).unwrap();
    let a = load();
    assert_eq!(a.cache_hit(), None);
    assert_eq!(
        entries(),
        1,
        "a fresh file gets no identity key (its timestamps may not move yet)"
    );
    // Rewritten at once with the same length: hashed, so the new content is seen.
    std::fs::write(&module, well_behaved().replace("fake", "FAKE")).unwrap();
    let mut b = load();
    assert_eq!(b.cache_hit(), None);
    assert!(said(&mut b).contains("FAKE"));
    std::fs::write(&module, well_behaved()).unwrap();
    let mut c = load();
    assert_eq!(c.cache_hit(), Some(CacheHit::Content));
    assert!(said(&mut c).contains("fake"));

    // Settled: the identity key is linked, then used.
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(load().cache_hit(), Some(CacheHit::Content));
    assert_eq!(entries(), 3, "two content keys and one identity key");
    let mut d = load();
    assert_eq!(d.cache_hit(), Some(CacheHit::FileIdentity));
    assert!(said(&mut d).contains("fake"));

    // Changed with the same length and its old mtime put back: ctime still moves.
    let mtime = std::fs::metadata(&module).unwrap().modified().unwrap();
    std::fs::write(&module, well_behaved().replace("fake", "FAKE")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&module)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let mut e = load();
    assert_eq!(e.cache_hit(), Some(CacheHit::Content));
    assert!(said(&mut e).contains("FAKE"));
    // Replaced by rename: a new inode.
    let tmp = dir.join("next.wat");
    std::fs::write(&tmp, well_behaved()).unwrap();
    std::fs::rename(&tmp, &module).unwrap();
    let mut f = load();
    assert_eq!(f.cache_hit(), Some(CacheHit::Content));
    assert!(said(&mut f).contains("fake"));
    drop((a, b, c, d, e, f));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn ev(container_index: u32, exit_code: i32, restart_count: u32) -> ExitEvent {
    ExitEvent {
        container_index,
        exit_code,
        restart_count,
    }
}

#[test]
fn decider_chain_custom_first_builtin_when_it_abstains() {
    let mut host = load(&well_behaved(), limits()).unwrap();
    let p = host.prepare(r#"{"object":{}}"#).unwrap();
    assert_eq!(p.container_names(), ["app", "sidecar"]);
    assert_eq!(p.container_index("sidecar"), Some(1));
    // No decider: the built-in answer.
    assert_eq!(
        host.decide(&p, &ev(0, 137, 0)).unwrap().action,
        Action::Count
    );

    let example = repo_root().join("plugin/examples/deciders/oom-retry.wat");
    host.add_decider(&example, None).unwrap();
    assert_eq!(host.deciders(), ["oom-retry"]);
    let by_plugin = DecidedBy::Decider("oom-retry".to_owned());
    let d = host.decide(&p, &ev(0, 137, 0)).unwrap();
    assert_eq!((d.action, &d.decided_by), (Action::Restart, &by_plugin));
    let d = host.decide(&p, &ev(0, 137, 3)).unwrap();
    assert_eq!(
        (d.action, &d.decided_by),
        (Action::DoNotRestart, &by_plugin)
    );
    let d = host.decide(&p, &ev(1, 3, 0)).unwrap();
    assert_eq!(
        (d.action, &d.decided_by),
        (Action::DoNotRestart, &by_plugin)
    );
    // Abstain: the built-in rules decide.
    let d = host.decide(&p, &ev(0, 1, 0)).unwrap();
    assert_eq!(
        (d.action, &d.decided_by),
        (Action::Count, &DecidedBy::BuiltIn)
    );
    let d = host.decide(&p, &ev(0, 0, 0)).unwrap();
    assert_eq!(
        (d.action, &d.decided_by),
        (Action::DoNotRestart, &DecidedBy::BuiltIn)
    );
    // decide_exit alone never asks the decider.
    assert_eq!(host.decide_exit(&p, 0, 137).unwrap(), Action::Count);
    // An index outside the container list reaches no decider.
    let err = host.decide(&p, &ev(2, 137, 0)).unwrap_err();
    assert!(
        matches!(
            err,
            HostError::Status {
                status: restartkit_host::Status::OutOfRange,
                ..
            }
        ),
        "{err}"
    );
}

const CONFIGURABLE: &str = r#"(module
  (memory (export "memory") 1)
  (global $configured (mut i32) (i32.const 0))
  (func (export "restartkit_decider_abi_version") (result i32) (i32.const 1))
  (func (export "restartkit_decider_alloc") (param i32) (result i32) (i32.const 1024))
  ;; Accepts a configuration whose first byte is '{' and remembers its length.
  (func (export "restartkit_decider_configure") (param $p i32) (param $n i32) (result i32)
    (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 123)) (then (return (i32.const 1))))
    (global.set $configured (local.get $n))
    (i32.const 0))
  ;; Restart when configured, DoNotRestart otherwise; exit code 99 loops forever.
  (func (export "restartkit_decide") (param i32 i32 i32) (result i32)
    (if (i32.eq (local.get 1) (i32.const 99)) (then (loop $l (br $l))))
    (select (i32.const 1) (i32.const 0) (i32.gt_u (global.get $configured) (i32.const 0)))))"#;

#[test]
fn decider_is_configured_before_it_decides_and_rebuilt_after_a_timeout() {
    let mut host = load(&well_behaved(), limits()).unwrap();
    let p = host.prepare("{}").unwrap();
    host.add_decider_bytes(
        "configurable",
        CONFIGURABLE.as_bytes(),
        Some(r#"{"maxRestarts": 2}"#),
    )
    .unwrap();
    assert_eq!(
        host.decide(&p, &ev(0, 1, 0)).unwrap().action,
        Action::Restart
    );
    let t = Instant::now();
    let err = host.decide(&p, &ev(0, 99, 0)).unwrap_err();
    assert!(matches!(err, HostError::Timeout { .. }), "{err}");
    assert!(
        t.elapsed() < STOPPED_WITHIN,
        "stopped after {:?}",
        t.elapsed()
    );
    // A fresh decider instance, configured again before deciding.
    assert_eq!(
        host.decide(&p, &ev(0, 1, 0)).unwrap().action,
        Action::Restart
    );
}

#[test]
fn decider_returning_nonsense_is_an_error() {
    let mut host = load(&well_behaved(), limits()).unwrap();
    let p = host.prepare("{}").unwrap();
    let bad = r#"(module
      (func (export "restartkit_decider_abi_version") (result i32) (i32.const 1))
      (func (export "restartkit_decide") (param i32 i32 i32) (result i32) (i32.const 7)))"#;
    host.add_decider_bytes("bad", bad.as_bytes(), None).unwrap();
    let err = host.decide(&p, &ev(0, 1, 0)).unwrap_err();
    assert!(
        matches!(&err, HostError::InvalidDecision { code: 7, .. }),
        "{err}"
    );
}

#[test]
fn decider_with_wrong_abi_major_is_refused() {
    let mut host = load(&well_behaved(), limits()).unwrap();
    let wrong = r#"(module
      (func (export "restartkit_decider_abi_version") (result i32) (i32.const 3))
      (func (export "restartkit_decide") (param i32 i32 i32) (result i32) (i32.const -1)))"#;
    let err = host
        .add_decider_bytes("wrong", wrong.as_bytes(), None)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "decider ABI major version mismatch: the module speaks 3, this host speaks 1"
    );
    assert!(host.deciders().is_empty());
}

#[test]
fn prepared_policies_survive_an_instance_rebuild() {
    let mut host = load(
        &fake_policy(
            1,
            SPIN,
            "(select (i32.const 0) (i32.const 6) (i32.eqz (local.get 2)))",
        ),
        limits(),
    )
    .unwrap();
    let p = host.prepare("{}").unwrap();
    assert_eq!(host.decide_exit(&p, 0, 1).unwrap(), Action::Count);
    assert!(matches!(
        host.evaluate(b"{}"),
        Err(HostError::Timeout { .. })
    ));
    // Re-prepared on the new instance without the caller noticing.
    assert_eq!(host.decide_exit(&p, 0, 0).unwrap(), Action::DoNotRestart);
    host.release(p).unwrap();
}

#[test]
fn a_prepared_policy_belongs_to_its_host() {
    let mut a = load(&well_behaved(), limits()).unwrap();
    let mut b = load(&well_behaved(), limits()).unwrap();
    let p = a.prepare("{}").unwrap();
    assert!(matches!(
        b.decide_exit(&p, 0, 0),
        Err(HostError::UnknownPrepared)
    ));
    a.release(p).unwrap();
}
