//! The real policy module (`restartkit_plugin.wasm`, built by `make plugin`) through the host.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;
use common::*;
use restartkit_host::{Action, Host, HostError, Limits, Status};
use serde_json::{Value, json};

fn host() -> Host {
    Host::load(plugin_path(), Limits::default()).unwrap()
}

fn vectors() -> Vec<Value> {
    vector_files()
        .iter()
        .flat_map(|f| restartkit_host::conformance::read_vectors(f).unwrap())
        .collect()
}

fn request(v: &Value) -> String {
    json!({"op": v["op"], "input": v["input"]}).to_string()
}

#[test]
fn every_vector_answers_byte_for_byte_what_the_native_core_answers() {
    let mut host = host();
    let vs = vectors();
    assert!(vs.len() > 100, "only {} vectors", vs.len());
    for v in &vs {
        let req = request(v);
        assert_eq!(
            host.handle_json(&req).unwrap(),
            restartkit::handle_json(&req),
            "vector {}",
            v["id"]
        );
    }
}

/// All vectors through the plugin with FORMAT.md's comparison: each vector's verdict (pass, or
/// the FAIL text) must be the native core's. Until the op semantics are merged into the core many
/// vectors fail both ways; `conformance_vectors_all_pass` is the strict check.
#[test]
fn conformance_verdicts_through_the_plugin_equal_the_native_ones() {
    let mut host = host();
    let (mut passed, mut failed) = (0, 0);
    for v in vectors() {
        let via_plugin = restartkit_host::conformance::run_vector(&mut host, &v);
        let native = restartkit::conformance::run_vector(&v, restartkit::handle);
        assert_eq!(via_plugin, native, "vector {}", v["id"]);
        if via_plugin.is_ok() {
            passed += 1
        } else {
            failed += 1
        }
    }
    eprintln!("plugin conformance: {passed} passed, {failed} failed (same as native)");
}

/// Every vector passes through the plugin. Ignored until the core's op semantics are merged
/// (today most ops answer "not implemented yet"); run with `cargo test -- --include-ignored`.
#[test]
fn conformance_vectors_all_pass() {
    let mut host = host();
    let mut out = Vec::new();
    let (_, failed) = restartkit_host::conformance::run_files(&mut host, &vector_files(), &mut out);
    assert_eq!(failed, 0, "{}", String::from_utf8_lossy(&out));
}

#[test]
fn describe_reports_abi_and_the_core_capabilities() {
    let mut host = host();
    let d: Value = serde_json::from_str(&host.describe().unwrap()).unwrap();
    assert_eq!(d["abi"], json!({"major": 1, "minor": 1}));
    assert_eq!(host.abi_minor(), 1);
    assert!(
        d["exports"]
            .as_array()
            .unwrap()
            .contains(&json!("restartkit_prepared_warnings"))
    );
    let core = restartkit::contract::describe();
    assert_eq!(d["restartkitVersion"], restartkit::VERSION);
    assert_eq!(d["contractVersion"], core.contract_version);
    assert_eq!(d["operations"], json!(core.operations));
    assert_eq!(d["kubernetesVersions"], json!(core.kubernetes_versions));
    assert_eq!(
        d["featureGates"].as_array().unwrap().len(),
        core.feature_gates.len()
    );
    assert_eq!(d["actions"][6], json!({"code": 6, "name": "Count"}));
    assert_eq!(d["statusCodes"]["unknown-operation"], 4);
    assert_eq!(d["deterministic"], true);
}

#[test]
fn transport_statuses() {
    let mut host = host();
    // Invalid JSON: status 3, and the detail is the core's own error response.
    let e = host.evaluate(b"{\"op\": ").unwrap();
    assert_eq!(e.status, Status::InvalidJson);
    assert_eq!(e.body, restartkit::handle_json("{\"op\": "));
    assert!(e.body.contains("\"code\":\"invalid-json\""), "{}", e.body);
    // handle_json gives the same answer as the native function.
    assert_eq!(
        host.handle_json("{\"op\": ").unwrap(),
        restartkit::handle_json("{\"op\": ")
    );

    let e = host.evaluate(br#"{"op":"noSuchOp","input":{}}"#).unwrap();
    assert_eq!(e.status, Status::UnknownOperation);
    assert!(e.body.contains("unknown op \\\"noSuchOp\\\""), "{}", e.body);

    let e = host
        .evaluate(br#"{"op":"describe","input":{},"contractVersion":"2.0"}"#)
        .unwrap();
    assert_eq!(e.status, Status::UnsupportedVersion);
    assert!(
        e.body
            .contains("contract version \\\"2.0\\\" is not supported"),
        "{}",
        e.body
    );
    let e = host
        .evaluate(br#"{"op":"describe","input":{},"contractVersion":"1.0"}"#)
        .unwrap();
    assert_eq!(e.status, Status::Ok);
    assert_eq!(
        e.body,
        restartkit::handle_json(r#"{"op":"describe","input":{}}"#)
    );

    let e = host.evaluate(b"{\"op\":\"\xff\"}").unwrap();
    assert_eq!(e.status, Status::InvalidUtf8);
    let err = host
        .handle_json("{\"op\":\"describe\"}\u{0}")
        .map(|_| ())
        .err();
    assert!(
        err.is_none(),
        "a NUL inside the text is invalid JSON, not a transport failure"
    );

    // Buffers outside linear memory, or at address 0.
    let mem = host.memory_size().unwrap() as u32;
    for (p, l) in [(mem - 4, 16), (0, 10), (u32::MAX, 2)] {
        let e = host.raw_evaluate(p, l).unwrap();
        assert_eq!(e.status, Status::BadPointer, "({p}, {l})");
        assert!(e.body.contains("not inside linear memory"), "{}", e.body);
    }
    // A request-level problem that is not a transport failure stays a contract error response.
    let e = host.evaluate(br#"{"input":{}}"#).unwrap();
    assert_eq!(e.status, Status::Ok);
    assert_eq!(e.body, restartkit::handle_json(r#"{"input":{}}"#));
    assert_eq!(host.rebuilds(), 0);
}

#[test]
fn an_input_larger_than_the_memory_cap_is_refused_before_the_guest_runs() {
    let mut host = Host::load(
        plugin_path(),
        Limits {
            memory_bytes: 8 << 20,
            ..Limits::default()
        },
    )
    .unwrap();
    let big = format!(
        r#"{{"op":"describe","input":{{"pad":"{}"}}}}"#,
        "x".repeat(16 << 20)
    );
    let err = host.handle_json(&big).unwrap_err();
    assert!(
        matches!(err, HostError::MemoryLimit { limit_bytes } if limit_bytes == 8 << 20),
        "{err}"
    );
    // No trap happened: the same instance answers the next call.
    assert_eq!(host.rebuilds(), 0);
    let ok = r#"{"op":"describe","input":{}}"#;
    assert_eq!(host.handle_json(ok).unwrap(), restartkit::handle_json(ok));
}

#[test]
fn repeated_json_calls_do_not_grow_memory() {
    let mut host = host();
    let vs = vectors();
    let reqs: Vec<String> = vs.iter().map(request).collect();
    // Warm up: let the allocator reach its working size.
    for r in &reqs {
        host.handle_json(r).unwrap();
    }
    let before = host.memory_size().unwrap();
    for _ in 0..20 {
        for r in &reqs {
            host.handle_json(r).unwrap();
        }
        host.evaluate(b"not json").unwrap();
    }
    assert_eq!(host.memory_size().unwrap(), before);
}

const POD: &str = r#"{"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
  "spec":{"restartPolicy":"Never","containers":[{"name":"app","image":"busybox",
  "restartPolicy":"Never","restartPolicyRules":[{"action":"Restart","exitCodes":{"operator":"In","values":[42]}}]}]}},
  "featureGates":{"ContainerRestartRules":true}}"#;

/// One million prepared decisions with flat memory: the core's PreparedPolicy is the only path,
/// so a prepare that fails (a regression to a placeholder included) fails the test.
#[test]
fn a_million_prepared_calls_keep_memory_flat() {
    let mut host = host();
    let p = host
        .prepare(POD)
        .unwrap_or_else(|e| panic!("prepare failed: {e}"));
    assert_eq!(p.container_names(), ["app"]);
    let first = host.decide_exit(&p, 0, 42).unwrap();
    assert_eq!(first, Action::Restart);
    let before = host.memory_size().unwrap();
    for i in 0..1_000_000 {
        let code = if i % 2 == 0 { 42 } else { 1 };
        let a = host.decide_exit(&p, 0, code).unwrap();
        assert_eq!(a == Action::Restart, code == 42);
    }
    assert_eq!(host.memory_size().unwrap(), before);
    assert!(matches!(
        host.decide_exit(&p, 5, 0),
        Err(HostError::Status {
            status: Status::OutOfRange,
            ..
        })
    ));
    host.release(p).unwrap();
}

/// Handles the guest never gave out (or already released) are refused with -8, never decided.
#[test]
fn unknown_handles_are_refused_with_flat_memory() {
    let mut host = host();
    let p = host.prepare(POD).unwrap();
    host.release(p).unwrap();
    let before = host.memory_size().unwrap();
    for i in 0..100_000 {
        assert_eq!(host.raw_decide_exit(1 + (i % 3), 0, i).unwrap(), -8);
    }
    assert_eq!(host.memory_size().unwrap(), before);
}

#[test]
fn prepare_release_cycles_keep_memory_flat() {
    let mut host = host();
    let cycle = |host: &mut Host| {
        let p = host
            .prepare(POD)
            .unwrap_or_else(|e| panic!("prepare failed: {e}"));
        host.release(p).unwrap();
    };
    for _ in 0..100 {
        cycle(&mut host);
    }
    let before = host.memory_size().unwrap();
    for _ in 0..5_000 {
        cycle(&mut host);
    }
    assert_eq!(host.memory_size().unwrap(), before);
}

#[test]
fn prepare_refusals_carry_the_core_diagnostics() {
    let mut host = host();
    match host.prepare(r#"{"object":{},"kubernetesVersion":"1.35","noSuchOption":1}"#) {
        Err(HostError::Status {
            status: Status::Rejected,
            detail: Some(d),
        }) => {
            let r: restartkit::Response = serde_json::from_str(&d).unwrap();
            let restartkit::Response::Error { op, errors } = r else {
                panic!("{d}")
            };
            assert_eq!(op.as_deref(), Some("prepare"));
            assert!(errors[0].message.contains("noSuchOption"), "{d}");
        }
        other => panic!("{other:?}"),
    }
    let err = host.prepare("[1,").unwrap_err();
    assert!(
        matches!(
            err,
            HostError::Status {
                status: Status::InvalidJson,
                ..
            }
        ),
        "{err}"
    );
    let err = host
        .prepare(r#"{"object":{},"contractVersion":"9.1"}"#)
        .unwrap_err();
    assert!(
        matches!(
            err,
            HostError::Status {
                status: Status::UnsupportedVersion,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(host.raw_decide_exit(0, 0, 0).unwrap(), -8);
    assert_eq!(host.raw_decide_exit(-5, 0, 0).unwrap(), -8);
}

/// A Job the API server would refuse (podFailurePolicy rule `action: Bogus`): the plugin answers
/// as upstream's code does and carries the validation errors as warnings, in `evaluate`'s results
/// and on the prepared policy (ABI 1.1); a valid Job carries none.
#[test]
fn an_invalid_job_is_evaluated_as_upstream_with_its_errors_as_warnings() {
    let mut host = host();
    let job = |action: &str| {
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {
            "podFailurePolicy": {"rules": [{"action": action, "onExitCodes": {"containerName": "m", "operator": "In", "values": [3]}}]},
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "m", "image": "i"}]}}}})
    };
    let field = "spec.podFailurePolicy.rules[0].action";
    let what_if = |host: &mut Host, action: &str| -> Value {
        let req = json!({"op": "whatIf", "input": {"object": job(action), "container": "m", "exitCode": 3}}).to_string();
        let body = host.handle_json(&req).unwrap();
        assert_eq!(body, restartkit::handle_json(&req));
        serde_json::from_str(&body).unwrap()
    };
    let bad = what_if(&mut host, "Bogus");
    assert_eq!(bad["result"]["job"]["podFailurePolicy"]["matched"], false);
    assert_eq!(bad["result"]["warnings"][0]["field"], field);
    assert_eq!(bad["result"]["warnings"][0]["code"], "invalid-object");
    assert_eq!(
        what_if(&mut host, "FailJob")["result"]["warnings"],
        json!([])
    );

    let prepared = host
        .prepare(&json!({"object": job("Bogus")}).to_string())
        .unwrap();
    assert_eq!(host.decide_exit(&prepared, 0, 3).unwrap(), Action::Count);
    let w = prepared.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].field, field);
    assert_eq!(w[0].code.as_deref(), Some("invalid-object"));
    let valid = host
        .prepare(&json!({"object": job("FailJob")}).to_string())
        .unwrap();
    assert_eq!(host.decide_exit(&valid, 0, 3).unwrap(), Action::FailJob);
    assert!(valid.warnings().is_empty());
}

#[test]
fn cli_conformance_runner_prints_fail_lines_and_totals() {
    let dir = std::env::temp_dir().join(format!("restartkit-host-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("v.json");
    // `restartkit-host conformance --plugin P FILE` on `vectors`: its exit code and stdout.
    let run = |vectors: &str| {
        std::fs::write(&file, vectors).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_restartkit-host"))
            .args(["conformance", "--plugin"])
            .arg(plugin_path())
            .arg(&file)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, stdout) = run(
        r#"[{"id":"describe-ok","op":"describe","input":{},"expect":{"contractVersion":"1.3"}},
            {"id":"describe-wrong","op":"describe","input":{},"expect":{"contractVersion":"0.9"}}]"#,
    );
    assert_eq!(code, Some(1), "{stdout}");
    let got = restartkit::contract::CONTRACT_VERSION;
    assert!(
        stdout.contains(&format!(
            "FAIL describe-wrong: contractVersion: expected \"0.9\", got \"{got}\""
        )),
        "{stdout}"
    );
    assert!(!stdout.contains("describe-ok"), "{stdout}");
    assert!(
        stdout.trim_end().ends_with("1 passed, 1 failed"),
        "{stdout}"
    );
    let (code, stdout) = run(
        r#"[{"id":"describe-ok","op":"describe","input":{},"expect":{"contractVersion":"1.3"}}]"#,
    );
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(stdout.trim(), "1 passed, 0 failed");
    std::fs::remove_dir_all(&dir).unwrap();
}
