//! The `restartkit` binary end to end: vectors, the real-world corpus, output formats, exit
//! codes and bad input.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_restartkit"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .current_dir(root())
        .output()
        .expect("run restartkit")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("restartkit-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn every_vector_passes_through_the_cli() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("conformance/vectors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    let mut args = vec!["conformance"];
    args.extend(files.iter().map(String::as_str));
    let o = run(&args);
    let out = stdout(&o);
    let last = out.lines().last().unwrap_or("");
    assert!(last.ends_with(" passed, 0 failed"), "{out}");
    assert!(o.status.success());
}

#[test]
fn conformance_reports_failures_and_exits_non_zero() {
    let v = r#"[{"id": "deliberately-wrong", "op": "describe", "input": {}, "expect": {"contractVersion": "0.0"}}]"#;
    let p = temp_file("wrong.json", v.as_bytes());
    let o = run(&["conformance", p.to_str().unwrap()]);
    let out = stdout(&o);
    assert!(
        out.contains("FAIL deliberately-wrong: contractVersion"),
        "{out}"
    );
    assert!(out.trim_end().ends_with("0 passed, 1 failed"), "{out}");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn real_world_manifests_give_the_exit_code_upstream_implies() {
    let dir = root().join("conformance/realworld");
    let index: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("INDEX.json")).unwrap()).unwrap();
    for e in &index {
        let file = dir.join(e["file"].as_str().unwrap());
        let (version, gates) = restartkit::conformance::realworld_target(e);
        let mut cmd = bin();
        cmd.arg("validate").arg(&file);
        // A TrainJob's runtime published in another file of the corpus.
        for rt in e["runtimes"].as_array().into_iter().flatten() {
            cmd.arg("--runtime").arg(dir.join(rt.as_str().unwrap()));
        }
        if let Some(v) = version {
            cmd.args(["-k", &v]);
        }
        if !gates.is_empty() {
            let g: Vec<String> = gates.iter().map(|(k, v)| format!("{k}={v}")).collect();
            cmd.args(["--feature-gates", &g.join(",")]);
        }
        let o = cmd.output().unwrap();
        let want = if e["expect"] == "valid" { 0 } else { 1 };
        assert_eq!(
            o.status.code(),
            Some(want),
            "{}: {}",
            file.display(),
            stderr(&o)
        );
    }
}

#[test]
fn human_output_shows_the_line_the_field_and_exits_1() {
    let p = temp_file(
        "bad-pod.yaml",
        b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  restartPolicy: Sometimes\n  containers:\n  - name: c\n    image: busybox\n",
    );
    let o = run(&["validate", p.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("spec.restartPolicy"), "{err}");
    assert!(err.contains(":6:"), "the source line is shown: {err}");
    assert!(err.contains("Sometimes"), "{err}");
}

#[test]
fn json_and_sarif_outputs_are_machine_readable() {
    let p = root().join("examples/pod-sidecar-keystone.yaml");
    let o = run(&["validate", "--output", "json", p.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["result"]["valid"], true);
    assert_eq!(v[0]["result"]["documents"][0]["kind"], "Pod");
    let o = run(&["validate", "--output", "sarif", p.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    assert!(v["runs"][0]["results"].is_array());
}

/// A Job with `restartPolicy: OnFailure` and a podFailurePolicy: the core's fix (set it to
/// Never) is a hint in human output and a SARIF fix object that rewrites that value.
const JOB_ON_FAILURE: &[u8] = b"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onExitCodes:\n        operator: In\n        values: [3]\n  template:\n    spec:\n      restartPolicy: OnFailure\n      containers:\n      - name: m\n        image: i\n";

#[test]
fn fixes_are_hints_in_human_output_and_fix_objects_in_sarif() {
    let p = temp_file("job-on-failure.yaml", JOB_ON_FAILURE);
    let o = run(&["validate", p.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(
        err.contains("= hint: set restartPolicy to \"Never\" (a podFailurePolicy needs it) (line 14 column 22: write `Never`)"),
        "{err}"
    );
    let o = run(&["validate", "--output", "sarif", p.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let fix = &v["runs"][0]["results"][0]["fixes"][0];
    assert_eq!(
        fix["description"]["text"],
        "set restartPolicy to \"Never\" (a podFailurePolicy needs it)"
    );
    let change = &fix["artifactChanges"][0];
    assert_eq!(
        change["artifactLocation"]["uri"],
        v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    );
    assert_eq!(
        change["replacements"][0],
        serde_json::json!({"deletedRegion": {"startLine": 14, "startColumn": 22, "endLine": 14, "endColumn": 31}, "insertedContent": {"text": "Never"}})
    );
}

#[test]
fn unmodelled_kinds_are_passed_over_not_errors() {
    let p = temp_file(
        "svc.yaml",
        b"apiVersion: v1\nkind: Node\nmetadata:\n  name: s\n",
    );
    let o = run(&["validate", "--output", "json", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["result"]["documents"][0]["modelled"], false);
    assert_eq!(v[0]["result"]["infos"][0]["code"], "kind-not-modelled");
}

fn validate_bytes(name: &str, bytes: &[u8]) -> (Option<i32>, String) {
    let p = temp_file(name, bytes);
    let o = run(&["validate", p.to_str().unwrap()]);
    (o.status.code(), stderr(&o))
}

#[test]
fn bad_input_gives_a_clear_error_never_a_crash() {
    let (code, err) = validate_bytes("syntax.yaml", b"kind: Pod\nspec: [unclosed\n");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("line"), "{err}");

    let (code, err) = validate_bytes(
        "dup.yaml",
        b"apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n  containers: []\n",
    );
    assert_eq!(code, Some(1));
    assert!(
        err.contains("duplicate key") && err.contains("line 5"),
        "{err}"
    );

    let (code, err) = validate_bytes("notutf8.yaml", b"kind: Pod\nmetadata: {name: \xff\xfe}\n");
    assert_eq!(code, Some(2));
    assert!(err.contains("not UTF-8"), "{err}");

    let deep = format!("a: {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    let (code, err) = validate_bytes("deep.yaml", deep.as_bytes());
    assert_eq!(code, Some(1));
    assert!(
        err.contains("nesting deeper") || err.contains("recursion limit"),
        "{err}"
    );

    let big = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n  - name: c\n    image: i\n    restartPolicy: Never\n    restartPolicyRules:\n    - action: Restart\n      exitCodes:\n        operator: In\n        values: [{}]\n",
        (0..100_000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let (code, err) = validate_bytes("huge.yaml", big.as_bytes());
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("restartPolicyRules[0].exitCodes.values"),
        "{err}"
    );

    let (code, err) = validate_bytes(
        "overflow.yaml",
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    restartPolicy: Never\n    restartPolicyRules:\n    - action: Restart\n      exitCodes: {operator: In, values: [4294967296]}\n",
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("spec.containers[0].restartPolicyRules[0].exitCodes.values[0]"),
        "{err}"
    );

    let (code, err) = validate_bytes(
        "nan.yaml",
        b"apiVersion: batch/v1\nkind: Job\nspec:\n  backoffLimit: .nan\n",
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("spec.backoffLimit"), "{err}");

    let (code, err) = validate_bytes(
        "wrongtype.yaml",
        b"apiVersion: batch/v1\nkind: Job\nspec:\n  backoffLimit: lots\n",
    );
    assert_eq!(code, Some(1));
    assert!(
        err.contains("spec.backoffLimit") && err.contains(":4:"),
        "{err}"
    );
}

#[test]
fn missing_file_exits_2() {
    let o = run(&["validate", "/nonexistent/restartkit.yaml"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn schema_lists_and_prints_json_schemas() {
    let o = run(&["schema"]);
    assert!(stdout(&o).lines().any(|l| l == "Pod"));
    let o = run(&["schema", "Job"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["properties"]["spec"].is_object(), "{v}");
    assert_eq!(run(&["schema", "Nope"]).status.code(), Some(2));
}

#[test]
fn batch_answers_one_line_per_request() {
    let mut child = bin()
        .arg("batch")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"op\":\"describe\",\"input\":{}}\nnot json\n{\"op\":\"nope\"}\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["status"], "ok");
    assert_eq!(lines[1]["errors"][0]["code"], "invalid-json");
    assert_eq!(lines[2]["errors"][0]["code"], "unknown-op");
}

#[test]
fn batch_stages_time_each_stage_on_the_inputs_it_was_sent() {
    let mut child = bin()
        .args(["batch", "--timing", "--stages"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let req = serde_json::json!({"op": "containerRestart", "input": {"container": "main", "exitCode": 1,
        "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"restartPolicy": "OnFailure", "containers": [{"name": "main", "image": "i"}]}}}});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{req}\n{{\"op\":\"describe\",\"input\":{{}}}}\n").as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    let answers: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        answers[0]["result"]["action"], "Restart",
        "the answers are unchanged: {answers:?}"
    );
    let err = stderr(&o);
    assert!(err.contains("timing: 2 requests, "), "{err}");
    // containerRestart has stages; describe has none.
    for stage in ["matcher", "decide", "compiled", "decode+decide"] {
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("stage {stage}: 1 inputs, "))
                    && l.ends_with(" ns/input")),
            "{stage}: {err}"
        );
    }
    assert_eq!(
        err.lines().filter(|l| l.starts_with("stage ")).count(),
        6,
        "{err}"
    );
}

#[test]
fn request_reads_a_contract_request() {
    let p = temp_file("req.json", br#"{"op": "describe", "input": {}}"#);
    let o = run(&["request", p.to_str().unwrap()]);
    assert!(o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["result"]["kubernetesVersions"],
        serde_json::json!(["1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37"])
    );
    assert_eq!(v["result"]["defaultKubernetesVersion"], "1.37");
    let _ = Path::new(&p);
}

#[test]
fn conformance_via_names_its_choices() {
    let o = run(&[
        "conformance",
        "--via",
        "wasm",
        "conformance/vectors/backoff.json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("expected native, plugin or plugin=PATH"),
        "{}",
        stderr(&o)
    );
}

#[cfg(not(feature = "plugin"))]
#[test]
fn conformance_via_plugin_without_the_host_says_how_to_get_it() {
    let o = run(&[
        "conformance",
        "--via",
        "plugin",
        "conformance/vectors/backoff.json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--features plugin"), "{}", stderr(&o));
}

#[cfg(feature = "plugin")]
#[test]
fn conformance_via_plugin_rejects_a_module_that_is_not_one() {
    let bad = temp_file("not-a-plugin.wasm", b"\0asm garbage");
    let arg = format!("plugin={}", bad.display());
    let o = run(&[
        "conformance",
        "--via",
        &arg,
        "conformance/vectors/backoff.json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not-a-plugin.wasm"), "{}", stderr(&o));
}

/// `--via plugin` runs every vector through the policy module (plugin/ABI.md) in wasmtime with
/// the native runner's exact output and exit code; `make test-plugin` runs this.
#[cfg(feature = "plugin")]
#[test]
fn conformance_via_plugin_gives_every_vector_the_native_output() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("conformance/vectors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    let mut native = vec!["conformance"];
    native.extend(files.iter().map(String::as_str));
    let mut plugin = vec!["conformance", "--via", "plugin"];
    plugin.extend(files.iter().map(String::as_str));
    let (n, p) = (run(&native), run(&plugin));
    assert!(
        stdout(&p).ends_with(" passed, 0 failed\n"),
        "{}{}",
        stdout(&p),
        stderr(&p)
    );
    assert_eq!(stdout(&p), stdout(&n));
    assert_eq!(p.status.code(), n.status.code());
}

#[test]
fn proposals_are_opt_in_marked_and_checked() {
    let example = "examples/proposals/kep-5307-four-containers.yaml";
    // Upstream rejects KEP-5307's future example; the proposal accepts it and says so.
    let o = run(&["validate", example]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = run(&[
        "validate",
        example,
        "--proposal",
        "RestartRulesFuture",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v[0]["result"]["proposals"][0], "RestartRulesFuture");
    // An unknown name is an error that lists the known ones.
    let o = run(&["validate", example, "--proposal", "Turbo"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown variant `Turbo`, expected one of `KEP4603Alternatives`"),
        "{}",
        stderr(&o)
    );
    // backoff --proposal implies --compare and shows the proposed curve beside upstream's.
    let o = run(&["backoff", "--proposal", "Rapid", "-o", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let labels: Vec<&str> = v["curves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"legacy 10s/300s") && labels.contains(&"Rapid (250ms/60s)"),
        "{labels:?}"
    );
    assert_eq!(v["kepLoadFigures"]["excessRequestsFirst5min"], 2750);
    // simulate --proposal applies to the scenario.
    let o = run(&[
        "simulate",
        "examples/scenarios/crashlooping-sidecar.yaml",
        "--proposal",
        "Rapid",
        "-o",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["proposals"][0], "Rapid");
}

/// `restartkit ... | head`: a reader that closes the pipe early must not make the command panic.
#[test]
fn closed_stdout_pipe_ends_quietly() {
    use std::process::Stdio;
    let mut child = bin()
        .args(["schema", "Scenario"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close our end of the pipe before the command writes: its first write meets EPIPE.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert!(
        out.status.success(),
        "status {:?}, stderr: {stderr}",
        out.status
    );
}

#[test]
fn batch_stages_time_validation_on_the_typed_object_too() {
    let mut child = bin()
        .args(["batch", "--stages"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pod = serde_json::json!({"op": "validate", "input": {"object": {"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p"}, "spec": {"containers": [{"name": "main", "image": "i"}]}}}});
    let job = serde_json::json!({"op": "validate", "input": {"object": {"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "j"}, "spec": {"template": {"spec": {"restartPolicy": "Never",
        "containers": [{"name": "main", "image": "i"}]}}}}}});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{pod}\n{job}\n").as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    let err = stderr(&o);
    // Both objects decode and default, so each stage runs over both.
    for stage in ["decide", "typed", "decode+decide"] {
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("stage {stage}: 2 inputs, "))),
            "{stage}: {err}"
        );
    }
}

/// `convert` prints what the API server decodes (YAML 1.1 scalars as sigs.k8s.io/yaml resolves
/// them), and `validate` judges that, so an unquoted `yes` in a string field is the error
/// kube-apiserver gives, and an octal exit code is the value it reads.
#[test]
fn convert_shows_what_the_api_server_reads_and_validate_judges_it() {
    let f = temp_file(
        "yaml11.yaml",
        b"kind: Job\napiVersion: batch/v1\nmetadata:\n  name: j\n  labels: {enabled: yes}\nspec:\n  backoffLimit: 6.0\n  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onExitCodes: {operator: In, values: [010, 0x1F, 1_2]}\n",
    );
    let path = f.to_str().unwrap_or_default();
    let o = run(&["convert", path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap_or_default();
    assert_eq!(
        doc["metadata"]["labels"]["enabled"],
        serde_json::json!(true)
    );
    assert_eq!(doc["spec"]["backoffLimit"], serde_json::json!(6));
    assert_eq!(
        doc["spec"]["podFailurePolicy"]["rules"][0]["onExitCodes"]["values"],
        serde_json::json!([8, 31, 12])
    );
    let v = run(&["validate", "--output", "json", path]);
    assert_eq!(v.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_str(&stdout(&v)).unwrap_or_default();
    let result = &report[0]["result"];
    assert_eq!(result["errors"][0]["field"], "metadata.labels[enabled]");
    // Each YAML 1.1 reading is a warning at its field and column.
    let readings: Vec<(String, u64)> = result["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|w| w["code"] == "yaml-1.1-reading")
        .map(|w| {
            (
                w["field"].as_str().unwrap_or("").to_owned(),
                w["column"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        readings,
        vec![
            ("metadata.labels.enabled".to_owned(), 21),
            (
                "spec.podFailurePolicy.rules[0].onExitCodes.values[0]".to_owned(),
                44
            ),
            (
                "spec.podFailurePolicy.rules[0].onExitCodes.values[2]".to_owned(),
                55
            ),
        ]
    );

    let mut child = bin()
        .args(["convert", "--jsonl"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write as _;
        let _ = stdin.write_all(b"\"a: 010\\n---\\nb: on\"\n\"<<: 5\"\n");
    }
    let out = child.wait_with_output().expect("wait");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0],
        serde_json::json!({"documents": [{"a": 8}, {"b": true}]})
    );
    assert_eq!(
        lines[1]["error"]["code"],
        serde_json::json!("invalid-merge")
    );
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn restartkit");
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input).expect("write stdin");
    }
    child.wait_with_output().expect("wait")
}

const POD: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"NAME"},"spec":{"restartPolicy":"POLICY","containers":[{"name":"c","image":"i"}]}}"#;

fn pod_json(name: &str, policy: &str) -> String {
    POD.replace("NAME", name).replace("POLICY", policy)
}

/// A file of concatenated JSON objects (`kubectl get -o json` output run through tools) is read
/// object by object, as kubectl reads it: each is validated, with its errors on its own line.
#[test]
fn concatenated_json_objects_are_validated_one_by_one() {
    let text = format!(
        "{}{}\n{}",
        pod_json("a", "Never"),
        pod_json("b", "Bad"),
        pod_json("c", "Worse")
    );
    let f = temp_file("stream.json", text.as_bytes());
    let o = run(&["validate", "--output", "json", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let result = &report[0]["result"];
    let names: Vec<&str> = result["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
    let errors: Vec<(u64, u64, &str)> = result["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["document"].as_u64().unwrap(),
                e["line"].as_u64().unwrap(),
                e["field"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        errors,
        [(1, 1, "spec.restartPolicy"), (2, 2, "spec.restartPolicy")]
    );
    // The second object starts on line 1 after the first: its column is counted from there.
    assert!(
        result["errors"][0]["column"].as_u64().unwrap() > POD.len() as u64,
        "{result}"
    );
}

/// JSON objects on standard input, one a line (a JSON Lines file), are read the same way.
#[test]
fn json_lines_on_stdin_are_validated_one_by_one() {
    let text = format!("{}\n{}\n", pod_json("a", "Bad"), pod_json("b", "Never"));
    let o = run_stdin(&["validate", "-"], text.as_bytes());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("-:1:"), "{err}");
    assert!(err.contains("1 file(s): 1 error(s)"), "{err}");
    let c = run_stdin(&["convert", "-"], text.as_bytes());
    assert_eq!(c.status.code(), Some(0), "{}", stderr(&c));
    assert_eq!(stdout(&c).lines().count(), 2);
}

/// A YAML stream with a broken document in the middle: that document's error names it (its
/// index and first line) and says kubectl stops there, and the documents around it are still
/// validated, their own errors reported.
#[test]
fn a_broken_yaml_document_does_not_hide_the_others() {
    let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  restartPolicy: Bad\n  containers: [{name: c, image: i}]\n---\nkind: Pod\nmetadata:\n  name: b\n  labels: {x: [\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  backoffLimit: -1\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: i}]\n";
    let f = temp_file("broken-middle.yaml", text.as_bytes());
    let o = run(&["validate", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("spec.restartPolicy"), "{err}");
    assert!(
        err.contains("document 1 (from line 8)") && err.contains("kubectl stops reading"),
        "{err}"
    );
    assert!(err.contains("spec.backoffLimit"), "{err}");
    assert!(err.contains("1 file(s): 3 error(s)"), "{err}");

    let j = run(&["validate", "--output", "json", f.to_str().unwrap()]);
    let report: Value = serde_json::from_str(&stdout(&j)).unwrap();
    let docs: Vec<(u64, bool)> = report[0]["result"]["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["line"].as_u64().unwrap(), d["valid"].as_bool().unwrap()))
        .collect();
    assert_eq!(docs, [(1, false), (8, false), (13, false)]);

    // A key written twice stops nothing: only that document is refused.
    let dup = "a: 1\n---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: x, name: y}\n---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: z}\n";
    let d = run_stdin(&["convert", "-"], dup.as_bytes());
    assert_eq!(d.status.code(), Some(1));
    assert_eq!(stdout(&d).lines().count(), 2, "{}", stdout(&d));
    let derr = stderr(&d);
    assert!(
        derr.contains("-:5:")
            && derr.contains("document 1 (from line 3)")
            && !derr.contains("stops"),
        "{derr}"
    );
}

/// The human output shows the line of standard input a syntax error is on, even when the
/// parser reports it past the end of the text.
#[test]
fn stdin_syntax_errors_show_their_line() {
    let o = run_stdin(&["validate", "-"], b"apiVersion: v1\nkind: Pod\nspec: [\n");
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("3 | spec: ["), "{err}");
    let o = run_stdin(&["validate", "-"], b"kind: Pod\nspec: {a: b: c}\n");
    assert!(stderr(&o).contains("2 | spec: {a: b: c}"), "{}", stderr(&o));
}

/// Every file named counts in the summary, those that could not be read too.
#[test]
fn summary_counts_every_file_named() {
    let ok = temp_file(
        "ok.yaml",
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers: [{name: c, image: i}]\n",
    );
    let o = run(&[
        "validate",
        ok.to_str().unwrap(),
        "/nonexistent/restartkit-a.yaml",
        ok.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("3 file(s) (1 could not be read): 0 error(s)"),
        "{err}"
    );
}

/// The oracle's stream answer: per document the value, or the error and whether kubectl stops.
#[test]
fn convert_jsonl_stream_answers_per_document() {
    let o = run_stdin(
        &["convert", "--jsonl", "--stream"],
        b"\"{\\\"a\\\":1}{\\\"b\\\":2}\"\n\"a: 1\\n---\\nb: [\\n---\\nc: 3\\n\"\n",
    );
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[0]["stream"],
        serde_json::json!([{"value": {"a": 1}}, {"value": {"b": 2}}])
    );
    assert_eq!(
        lines[1]["stream"][1]["stopsKubectl"],
        serde_json::json!(true)
    );
    assert_eq!(
        lines[1]["stream"][2],
        serde_json::json!({"value": {"c": 3}})
    );
    assert_eq!(lines[1]["error"]["document"], serde_json::json!(1));
}

/// A Job whose podFailurePolicy rule has the given action.
fn job_yaml(action: &str, rules: usize) -> String {
    let rule = format!(
        "    - action: {action}\n      onExitCodes:\n        containerName: m\n        operator: In\n        values: [3]\n"
    );
    format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  podFailurePolicy:\n    rules:\n{}  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: m\n        image: busybox\n",
        rule.repeat(rules)
    )
}

#[test]
fn evaluate_warns_about_an_object_the_api_server_would_refuse() {
    let bad = temp_file("bogus-action.yaml", job_yaml("Bogus", 1).as_bytes());
    let bad = bad.to_str().unwrap();
    let o = run(&["evaluate", bad, "--container", "m", "--exit-code", "3"]);
    // The decision is upstream's (the matcher skips the unknown action) and the exit status 0.
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("no podFailurePolicy rule matched"),
        "{}",
        stdout(&o)
    );
    let err = stderr(&o);
    assert!(
        err.contains("the API server would refuse this Job (1 validation error)"),
        "{err}"
    );
    assert!(
        err.contains("spec.podFailurePolicy.rules[0].action: Unsupported value: \"Bogus\""),
        "{err}"
    );
    assert!(
        err.contains(&format!("{bad}:8:7")),
        "line and column: {err}"
    );
    assert!(
        err.contains(&format!("run `restartkit validate {bad}`")),
        "{err}"
    );
    // JSON output carries them, with the position in the file.
    let o = run(&["evaluate", bad, "-c", "m", "-e", "3", "-o", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let r: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let w = &r["warnings"][0];
    assert_eq!(w["code"], "invalid-object");
    assert_eq!(w["severity"], "warning");
    assert_eq!(w["field"], "spec.podFailurePolicy.rules[0].action");
    assert_eq!(w["type"], "FieldValueNotSupported");
    assert_eq!(
        (w["line"].as_u64(), w["column"].as_u64()),
        (Some(8), Some(7))
    );
    assert!(stderr(&o).contains("would refuse this Job"));
}

#[test]
fn evaluate_shows_the_first_three_errors_and_counts_the_rest() {
    let bad = temp_file("five-bogus-actions.yaml", job_yaml("Bogus", 5).as_bytes());
    let bad = bad.to_str().unwrap();
    let o = run(&["evaluate", bad, "-c", "m", "-e", "3"]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(err.contains("(5 validation errors)"), "{err}");
    assert!(err.contains("rules[2].action"), "{err}");
    assert!(!err.contains("rules[3].action"), "{err}");
    assert!(
        err.contains(&format!("2 more; run `restartkit validate {bad}`")),
        "{err}"
    );
    let r: Value = serde_json::from_str(&stdout(&run(&[
        "evaluate", bad, "-c", "m", "-e", "3", "-o", "json",
    ])))
    .unwrap();
    assert_eq!(
        r["warnings"].as_array().unwrap().len(),
        5,
        "JSON has them all"
    );
}

#[test]
fn evaluate_says_nothing_more_about_a_valid_object() {
    let good = temp_file("valid-action.yaml", job_yaml("Ignore", 1).as_bytes());
    let good = good.to_str().unwrap();
    let o = run(&["evaluate", good, "-c", "m", "-e", "3"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("Ignore"), "{}", stdout(&o));
    assert_eq!(stderr(&o), "");
    let r: Value = serde_json::from_str(&stdout(&run(&[
        "evaluate", good, "-c", "m", "-e", "3", "-o", "json",
    ])))
    .unwrap();
    assert_eq!(r["warnings"], serde_json::json!([]));
}

/// Objects concatenated on one line give one diagnostic each on that line: the human output
/// shows a window of the line around each error, not the whole line every time.
#[test]
fn errors_on_one_long_line_show_a_window_of_it() {
    let n = 2_000;
    let line: String = (0..n).map(|i| pod_json(&format!("p{i}"), "Bad")).collect();
    let o = run_stdin(&["validate", "-"], format!("{line}\n").as_bytes());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.matches("FieldValueNotSupported").count(), n);
    // The excerpt of the last object's error: its own text, cut before and at the line's end.
    let last = err
        .lines()
        .rfind(|l| l.contains("\"name\":\"p1999\""))
        .expect("the last object's excerpt");
    assert!(last.contains('…'), "{last}");
    assert!(
        last.chars().count() < 300,
        "{} chars: the whole line was printed",
        last.chars().count()
    );
    let longest = err.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest < 300, "a line of {longest} chars");
}

const RULES_POD_YAML: &[u8] = b"apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox
    restartPolicy: Never
    restartPolicyRules:
    - action: Restart
      exitCodes: {operator: In, values: [42]}
";

/// kubectl's --validate: strict (its default) refuses a field the version does not know, warn
/// warns, ignore says nothing; 1.35 knows the field.
#[test]
fn validate_follows_kubectls_field_validation_for_the_chosen_version() {
    let p = temp_file("rules-pod.yaml", RULES_POD_YAML);
    let f = p.to_str().unwrap();
    let all = |o: &Output| stdout(o) + &stderr(o);
    let strict = run(&["validate", "-k", "1.33", f]);
    assert_eq!(strict.status.code(), Some(1), "{}", all(&strict));
    assert!(
        all(&strict).contains(
            "error: Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.containers[0].restartPolicyRules\""
        ),
        "{}",
        all(&strict)
    );
    let warn = run(&["validate", "-k", "1.33", "--validate", "warn", f]);
    // Dropped with a warning; what is left is a regular container's restartPolicy, forbidden in 1.33.
    assert_eq!(warn.status.code(), Some(1));
    assert!(
        all(&warn).contains("warning: unknown field"),
        "{}",
        all(&warn)
    );
    assert!(all(&warn).contains("error: spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers"), "{}", all(&warn));
    let ignore = run(&["validate", "-k", "1.33", "--validate", "ignore", f]);
    assert!(!all(&ignore).contains("unknown field"), "{}", all(&ignore));
    let new = run(&["validate", "-k", "v1.35.4", f]);
    assert_eq!(new.status.code(), Some(0), "{}", all(&new));
}

#[test]
fn a_gate_the_version_does_not_know_is_refused_with_the_components_message() {
    let p = temp_file("gate-pod.yaml", RULES_POD_YAML);
    let o = run(&[
        "validate",
        "-k",
        "1.33",
        "--feature-gates",
        "ContainerRestartRules=true",
        p.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o) + &stdout(&o);
    assert!(
        err.contains("unrecognized feature gate: ContainerRestartRules"),
        "{err}"
    );
    assert!(err.contains("first appears in 1.34"), "{err}");
    for (v, what) in [
        ("1.30", "not modelled"),
        ("1.3x", "not a Kubernetes version"),
    ] {
        let o = run(&["validate", "-k", v, p.to_str().unwrap()]);
        assert_ne!(o.status.code(), Some(0));
        let err = stderr(&o) + &stdout(&o);
        assert!(
            err.contains(what) && err.contains("1.31 to 1.37"),
            "{v}: {err}"
        );
    }
}

#[test]
fn compare_version_reports_the_upgrade_and_fails_on_changed_decisions() {
    let p = temp_file("upgrade-pod.yaml", RULES_POD_YAML);
    let f = p.to_str().unwrap();
    let o = run(&["validate", "-k", "1.33", "--compare-version", "1.35", f]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("Kubernetes 1.33 → 1.35"), "{out}");
    assert!(out.contains("newly admitted"), "{out}");
    assert!(
        out.contains("decision changed: container app exiting with 42: 1.33: kubelet DoNotRestart, Pod Failed; 1.35: kubelet Restart, Pod Running"),
        "{out}"
    );
    assert!(out.contains("why: KEP-5307"), "{out}");
    let json = run(&[
        "validate",
        "-k",
        "1.33",
        "--compare-version",
        "1.35",
        "-o",
        "json",
        f,
    ]);
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v[0]["comparison"]["decisionsChanged"], 1);
    // The same minor twice: nothing changes.
    let same = run(&["validate", "-k", "1.35", "--compare-version", "1.35", f]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
}

#[test]
fn a_kubelet_configuration_s_unknown_field_is_a_kubelet_warning_and_its_gates_are_checked() {
    // KEP-5593's own example spells the field `crashloopbackoff`: the kubelet decodes the file
    // leniently and ignores it; kubectl's --validate has no say over a file it never reads.
    let kep = b"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates:\n  KubeletCrashLoopBackOffMax: true\ncrashloopbackoff:\n  maxContainerRestartPeriod: 5s\n";
    let p = temp_file("kep-5593.yaml", kep);
    let o = run(&["validate", p.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning: unknown field \"crashloopbackoff\""),
        "{err}"
    );
    assert!(err.contains("falls back to lenient decoding"), "{err}");
    assert!(!err.contains("KubeApiserver"), "{err}");
    // 1.31's kubelet has no such gate and refuses to start.
    let o = run(&[
        "validate",
        "--kubernetes-version",
        "1.31",
        p.to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: failed to set feature gates from initial flags-based config: unrecognized feature gate: KubeletCrashLoopBackOffMax"),
        "{err}"
    );
}

#[test]
fn locked_gates_and_unmet_dependencies_on_the_command_line_are_refused() {
    let pod = temp_file(
        "gates-pod.yaml",
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: i}]}\n",
    );
    let p = pod.to_str().unwrap();
    let o = run(&[
        "validate",
        "--kubernetes-version",
        "1.36",
        "--feature-gates",
        "JobSuccessPolicy=false",
        p,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "error: cannot set feature gate JobSuccessPolicy to false, feature is locked to true"
        ),
        "{err}"
    );
    assert!(err.contains("featureGates[JobSuccessPolicy]"), "{err}");
    let o = run(&[
        "validate",
        "--kubernetes-version",
        "1.35",
        "--feature-gates",
        "RestartAllContainersOnContainerExits=true",
        p,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: RestartAllContainersOnContainerExits is enabled, but depends on features that are disabled: [NodeDeclaredFeatures]"),
        "{err}"
    );
    let o = run(&[
        "validate",
        "--kubernetes-version",
        "1.35",
        "--feature-gates",
        "RestartAllContainersOnContainerExits=true,NodeDeclaredFeatures=true",
        p,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// docs/explain.md shows the three worked cases as `restartkit explain` prints them: each
/// console block's command, run again, prints the block's text.
#[test]
fn the_worked_cases_in_docs_explain_are_what_explain_prints() {
    let doc = std::fs::read_to_string(root().join("docs/explain.md")).unwrap();
    let mut blocks = 0;
    for block in doc.split("```console\n").skip(1) {
        let block = block.split("```").next().unwrap();
        let (command, shown) = block.split_once('\n').unwrap();
        let args: Vec<&str> = command
            .strip_prefix("$ restartkit ")
            .unwrap()
            .split_whitespace()
            .collect();
        let o = run(&args);
        assert!(o.status.success(), "{command}: {}", stderr(&o));
        assert_eq!(stdout(&o), shown, "docs/explain.md: {command}");
        blocks += 1;
    }
    assert_eq!(blocks, 3, "the three worked cases");
}

#[test]
fn explain_tells_the_next_restart_and_the_jobs_budget() {
    let o = run(&[
        "explain",
        "examples/explain/crashloop-pod.yaml",
        "-k",
        "1.31",
        "--now",
        "2026-03-02T10:01:00Z",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("ReplicaSet shop/web-7d9f8b6c5"), "{out}");
    assert!(
        out.contains("wait 300s (BackOff) → next restart at 2026-03-02T10:05:05Z (in 245s)"),
        "{out}"
    );
    let o = run(&[
        "explain",
        "examples/explain/job-sweep-drained.yaml",
        "--now",
        "2026-03-02T09:05:10Z",
        "-o",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let job = &v["workloads"][0]["jobs"][0];
    assert_eq!(job["failuresLeft"], 2);
    assert_eq!(job["podCreationBackOff"]["nextPodAt"], "2026-03-02T09:05:20Z");
    assert_eq!(job["pods"][1]["failure"]["action"], "Ignore");
    assert_eq!(job["pods"][1]["failure"]["counted"], false);
    // Standard input, and input that cannot be explained: exit 1 with a message.
    let mut child = bin()
        .args(["explain", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no timestamp"), "{}", stderr(&o));
    assert_eq!(run(&["explain", "no/such/file.yaml"]).status.code(), Some(2));
}
