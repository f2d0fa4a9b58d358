//! `restartkit validate --schema-location`: custom resources checked against CRD files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "restartkit-schema-location-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_restartkit"))
        .args(args)
        .output()
        .expect("run restartkit")
}

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1}
";

const WIDGET: &str = "apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec:
  size: 0
  colour: red
";

#[test]
fn a_crd_file_or_directory_checks_its_kind() {
    let d = dir("ok");
    let crds = d.join("crds");
    std::fs::create_dir_all(&crds).unwrap();
    std::fs::write(crds.join("widget.yaml"), CRD).unwrap();
    let w = d.join("widget.yaml");
    std::fs::write(&w, WIDGET).unwrap();
    let w = w.to_str().unwrap();

    // Without the CRD the kind is passed over.
    let o = run(&["validate", "-o", "json", w]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    for location in [crds.clone(), crds.join("widget.yaml")] {
        let o = run(&[
            "validate",
            "-o",
            "json",
            "--schema-location",
            location.to_str().unwrap(),
            w,
        ]);
        assert_eq!(o.status.code(), Some(1));
        let out: Value = serde_json::from_slice(&o.stdout).unwrap();
        let errors = out[0]["result"]["errors"].as_array().unwrap();
        let fields: Vec<&str> = errors
            .iter()
            .map(|e| e["field"].as_str().unwrap())
            .collect();
        // kubectl's default --validate=strict: the unknown field refuses the request (the
        // minimum's error follows as a warning).
        assert_eq!(fields, ["spec.colour"]);
        let warnings = out[0]["result"]["warnings"].as_array().unwrap();
        assert!(warnings.iter().any(|w| {
            w["message"]
                .as_str()
                .unwrap()
                .contains("spec.size in body should be greater than or equal to 1")
        }));
    }
    let o = run(&[
        "validate",
        "-o",
        "json",
        "--validate",
        "warn",
        "--schema-location",
        crds.to_str().unwrap(),
        w,
    ]);
    let out: Value = serde_json::from_slice(&o.stdout).unwrap();
    let errors = out[0]["result"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(
        errors[0]["message"],
        "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1"
    );
}

#[test]
fn unreadable_or_bad_crds_name_the_file() {
    let d = dir("bad");
    let w = d.join("widget.yaml");
    std::fs::write(&w, WIDGET).unwrap();
    let missing = d.join("nope.yaml");
    let o = run(&[
        "validate",
        "--schema-location",
        missing.to_str().unwrap(),
        w.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--schema-location") && err.contains("nope.yaml"),
        "{err}"
    );

    let bad = d.join("bad-crd.yaml");
    std::fs::write(&bad, CRD.replace("type: integer, ", "")).unwrap();
    let o = run(&[
        "validate",
        "-o",
        "json",
        "--schema-location",
        bad.to_str().unwrap(),
        w.to_str().unwrap(),
    ]);
    let out: Value = serde_json::from_slice(&o.stdout).unwrap();
    let errors = out[0]["result"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["code"], "invalid-crd");
    assert_eq!(errors[0]["file"], bad.to_str().unwrap());
    assert!(
        errors[0]["field"]
            .as_str()
            .unwrap()
            .ends_with("properties[size].type")
    );
}

#[test]
fn a_file_read_piece_by_piece_uses_the_crds_given_and_those_before() {
    let d = dir("stream");
    let crd_file = d.join("crd.yaml");
    std::fs::write(&crd_file, CRD).unwrap();
    // The same answer read whole and read piece by piece (a tiny streaming threshold), with the
    // CRD given apart or at the head of the stream.
    let both = d.join("both.yaml");
    std::fs::write(&both, format!("{CRD}---\n{WIDGET}")).unwrap();
    let alone = d.join("alone.yaml");
    std::fs::write(&alone, WIDGET).unwrap();
    for stream in ["100000000", "64"] {
        for (file, extra) in [(&both, None), (&alone, Some(&crd_file))] {
            let mut args = vec!["validate", "-o", "json", "--validate", "warn"];
            if let Some(c) = extra {
                args.extend(["--schema-location", c.to_str().unwrap()]);
            }
            args.push(file.to_str().unwrap());
            let o = Command::new(env!("CARGO_BIN_EXE_restartkit"))
                .args(&args)
                .env("RESTARTKIT_STREAM_BYTES", stream)
                .output()
                .unwrap();
            assert_eq!(
                o.status.code(),
                Some(1),
                "{}",
                String::from_utf8_lossy(&o.stderr)
            );
            let out: Value = serde_json::from_slice(&o.stdout).unwrap();
            let errors = out[0]["result"]["errors"].as_array().unwrap();
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert_eq!(errors[0]["field"], "spec.size");
        }
    }
}
