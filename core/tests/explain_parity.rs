//! The snapshots every front end explains (conformance/explain-parity.json): each entry's
//! `output` is the core's answer to its `input`, and the Node, wasm and Python tests check that
//! their `explain` gives exactly that answer. `RESTARTKIT_BLESS=1` rewrites the outputs after a
//! change of the answers (review the diff).
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use restartkit::{Request, Response, handle};
use serde_json::Value;
use std::path::PathBuf;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/explain-parity.json")
}

#[test]
fn the_parity_snapshots_hold_the_cores_answers() {
    let path = fixture();
    let mut entries: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(
        entries.len() >= 4,
        "the three worked cases and a Pod snapshot"
    );
    let bless = std::env::var_os("RESTARTKIT_BLESS").is_some();
    for e in &mut entries {
        let id = e["id"].as_str().unwrap().to_owned();
        let got = match handle(Request {
            op: "explain".into(),
            input: e["input"].clone(),
        }) {
            Response::Ok { result, .. } => result,
            Response::Error { errors, .. } => panic!("{id}: {errors:?}"),
        };
        assert!(
            got["text"].is_string(),
            "{id}: every entry asks for the text too"
        );
        if bless {
            e["output"] = got;
        } else {
            assert_eq!(
                e["output"], got,
                "{id}: the core's answer changed (RESTARTKIT_BLESS=1 to rewrite)"
            );
        }
    }
    if bless {
        let mut text = serde_json::to_string_pretty(&entries).unwrap();
        text.push('\n');
        std::fs::write(&path, text).unwrap();
    }
}
