//! `restartkit validate` at scale: files read piece by piece (forced on small files with
//! `RESTARTKIT_STREAM_BYTES`), List items refused by name, many files validated in parallel with
//! their output in order, directories and `--files-from`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str], stream_bytes: Option<usize>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_restartkit"));
    c.args(args).current_dir(root());
    match stream_bytes {
        Some(n) => c.env("RESTARTKIT_STREAM_BYTES", n.to_string()),
        None => c.env_remove("RESTARTKIT_STREAM_BYTES"),
    };
    c.output().expect("run restartkit")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "restartkit-stream-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn realworld() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("conformance/realworld"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}

/// Piece by piece, `--output json` gives what reading the file whole gives (a stream without a
/// TrainJob or a List: their reading differs, see docs/performance.md).
#[test]
fn a_file_read_piece_by_piece_gives_the_same_json() {
    let files: Vec<String> = realworld()
        .into_iter()
        .filter(|f| {
            let t = std::fs::read_to_string(root().join(f)).unwrap();
            !t.contains("TrainJob") && !t.contains("\nitems:")
        })
        .collect();
    assert!(files.len() > 20);
    let mut args = vec!["validate", "-o", "json"];
    args.extend(files.iter().map(String::as_str));
    let whole = run(&args, None);
    let streamed = run(&args, Some(0));
    assert_eq!(whole.status.code(), streamed.status.code());
    assert_eq!(
        String::from_utf8_lossy(&streamed.stdout),
        String::from_utf8_lossy(&whole.stdout)
    );
}

/// Many files validated together: the output is each file's, in file order, exactly as one
/// run per file prints it.
#[test]
fn parallel_files_print_in_file_order_as_serial_runs_do() {
    let mut files = realworld();
    files.extend(files.clone());
    files.extend(files.clone());
    files.retain(|f| {
        !std::fs::read_to_string(root().join(f))
            .unwrap()
            .contains("TrainJob")
    });
    assert!(files.len() > 64, "more than one batch");
    for output in ["human", "json"] {
        let mut args = vec!["validate", "-o", output];
        args.extend(files.iter().map(String::as_str));
        let together = run(&args, None);
        let mut serial_out = Vec::new();
        let mut serial_err = String::new();
        for f in &files {
            let o = run(&["validate", "-o", output, f], None);
            if output == "json" {
                let v: Value = serde_json::from_slice(&o.stdout).unwrap();
                serial_out.extend(v.as_array().unwrap().clone());
            } else {
                let e = String::from_utf8_lossy(&o.stderr).into_owned();
                // Without its summary line.
                let body = e.trim_end_matches('\n');
                let body = body.rsplit_once('\n').map_or("", |(b, _)| b);
                serial_err.push_str(body);
                if !body.is_empty() {
                    serial_err.push('\n');
                }
            }
        }
        if output == "json" {
            let v: Value = serde_json::from_slice(&together.stdout).unwrap();
            assert_eq!(v, Value::Array(serial_out));
        } else {
            let e = String::from_utf8_lossy(&together.stderr).into_owned();
            let body = e.trim_end_matches('\n');
            let body = body.rsplit_once('\n').map_or("", |(b, _)| b);
            assert_eq!(format!("{body}\n"), serial_err);
        }
    }
}

fn job(name: &str, restart: &str, pad: usize) -> String {
    format!(
        "{{\"apiVersion\": \"batch/v1\", \"kind\": \"Job\", \"metadata\": {{\"name\": \"{name}\", \"annotations\": {{\"a\": \"{}\"}}}},\n \"spec\": {{\"template\": {{\"spec\": {{\"restartPolicy\": \"{restart}\",\n  \"containers\": [{{\"name\": \"c\", \"image\": \"busybox\"}}]}}}}}}}}",
        "x".repeat(pad)
    )
}

/// A List item over 3 MiB is an error naming it; the items after it are still validated, at
/// their own lines.
#[test]
fn a_list_item_over_the_limit_is_refused_by_name() {
    let dir = temp_dir("list");
    let list = format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n{},\n{},\n{}\n]}}\n",
        job("a", "Never", 0),
        job("big", "Never", 3 * 1024 * 1024),
        job("c", "Sometimes", 0)
    );
    let path = dir.join("list.json");
    std::fs::write(&path, list).unwrap();
    let o = run(&["validate", "-o", "json", path.to_str().unwrap()], Some(0));
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let errors = v[0]["result"]["errors"].as_array().unwrap().clone();
    let first = &errors[0];
    assert_eq!(first["code"], "too-large");
    assert_eq!(first["field"], "items[1]");
    assert_eq!(first["line"], 5);
    assert!(first["message"].as_str().unwrap().contains("items[1]"));
    let later: Vec<(&str, u64)> = errors[1..]
        .iter()
        .map(|e| (e["field"].as_str().unwrap(), e["line"].as_u64().unwrap()))
        .collect();
    assert!(
        later.contains(&("items[2].spec.template.spec.restartPolicy", 9)),
        "{later:?}"
    );
    assert_eq!(v[0]["result"]["documents"][0]["kind"], "List");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A directory stands for its manifests; `--files-from` names more.
#[test]
fn directories_and_files_from() {
    let dir = temp_dir("dirs");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  restartPolicy: Sometimes\n  containers:\n  - name: c\n    image: i\n";
    std::fs::write(dir.join("b.yaml"), pod).unwrap();
    std::fs::write(dir.join("sub/a.yml"), pod).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a manifest").unwrap();
    let o = run(&["validate", "-o", "json", dir.to_str().unwrap()], None);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].ends_with("b.yaml") && names[1].ends_with("sub/a.yml"));
    let list = dir.join("files.txt");
    std::fs::write(
        &list,
        format!(
            "{}\n\n{}\n",
            dir.join("sub/a.yml").display(),
            dir.join("b.yaml").display()
        ),
    )
    .unwrap();
    let o = run(&["validate", "--files-from", list.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).ends_with("2 file(s): 2 error(s), 0 warning(s)\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--output jsonl`: a line per document, each with its file and summary and the findings
/// placed in it: the same documents and findings `--output json` gives, in order, whether the
/// file is read whole or piece by piece.
#[test]
fn json_lines_give_each_document_as_json_does() {
    let files: Vec<String> = realworld()
        .into_iter()
        .filter(|f| {
            let t = std::fs::read_to_string(root().join(f)).unwrap();
            !t.contains("TrainJob") && !t.contains("\nitems:")
        })
        .collect();
    let mut args = vec!["validate", "-o", "json"];
    args.extend(files.iter().map(String::as_str));
    let json = run(&args, None);
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    // What json says, as (file, document index, errors, warnings), document by document.
    let mut expected = Vec::new();
    for element in report.as_array().unwrap() {
        let file = element["file"].as_str().unwrap().to_owned();
        let result = &element["result"];
        for doc in result["documents"].as_array().unwrap() {
            let index = doc["index"].as_u64().unwrap();
            let count = |key: &str| {
                result[key]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|d| d["document"].as_u64() == Some(index))
                    .count()
            };
            expected.push((file.clone(), index, count("errors"), count("warnings")));
        }
    }
    assert!(
        expected.iter().any(|e| e.2 > 0),
        "some document has an error"
    );
    args[2] = "jsonl";
    for stream_bytes in [None, Some(0)] {
        let lines = run(&args, stream_bytes);
        assert_eq!(lines.status.code(), json.status.code());
        let got: Vec<(String, u64, usize, usize)> = String::from_utf8_lossy(&lines.stdout)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|v| {
                (
                    v["file"].as_str().unwrap().to_owned(),
                    v["document"]["index"].as_u64().unwrap(),
                    v["errors"].as_array().unwrap().len(),
                    v["warnings"].as_array().unwrap().len(),
                )
            })
            .collect();
        assert_eq!(got, expected, "piece by piece: {stream_bytes:?}");
    }
}

/// A List read piece by piece: an item with an error gets a line of its own as it is done,
/// before the List's line.
#[test]
fn json_lines_give_a_list_item_with_an_error_as_it_is_done() {
    let dir = temp_dir("jsonl-list");
    let path = dir.join("list.yaml");
    let list = format!(
        "apiVersion: v1\nkind: List\nitems:\n{}{}",
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ok\n",
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: bad\n  data:\n    k: 5\n"
    );
    std::fs::write(&path, list).unwrap();
    let out = run(
        &["validate", "-o", "jsonl", path.to_str().unwrap()],
        Some(0),
    );
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0]["document"].is_null());
    assert_eq!(lines[0]["errors"][0]["field"], "items[1].data[k]");
    assert_eq!(lines[1]["document"]["kind"], "List");
}
