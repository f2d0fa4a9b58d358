//! The plugin, through the wasmtime host, answers every op of the core's table, and refuses each
//! op's malformed input with an error response naming the field, never a trap.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

mod common;
use common::*;
use restartkit_host::{Host, Limits};
use serde_json::{Value, json};

#[test]
fn every_op_of_the_table_is_answered_and_names_the_bad_field() {
    let mut host = Host::load(plugin_path(), Limits::default()).unwrap();
    let d: Value = serde_json::from_str(&host.describe().unwrap()).unwrap();
    let table: Vec<&str> = restartkit::contract::OPS.iter().map(|o| o.name).collect();
    assert_eq!(d["operations"], json!(table));
    let actions: Vec<Value> = restartkit::contract::actions()
        .map(|a| json!({"code": a.code(), "name": a.name()}))
        .collect();
    assert_eq!(d["actions"], json!(actions));
    for (i, a) in restartkit::contract::actions().enumerate() {
        assert_eq!(
            restartkit_host::action_from_code(i32::try_from(i).unwrap()),
            Some(a)
        );
    }
    assert_eq!(restartkit_host::action_from_code(7), None);
    for op in table.iter().filter(|o| **o != "describe") {
        for input in [json!({"notAMember": 1}), json!(5)] {
            let req = json!({"op": op, "input": input}).to_string();
            let r: Value = serde_json::from_str(&host.handle_json(&req).unwrap()).unwrap();
            assert_eq!(r["status"], "error", "{req}: {r}");
            let e = &r["errors"][0];
            let m = e["message"].as_str().unwrap();
            let f = e["field"].as_str().unwrap();
            assert!(
                m.contains("notAMember")
                    || m.contains("missing field `")
                    || f.starts_with("input")
                    || e["code"] == "op-not-built",
                "{req}: {r}"
            );
        }
    }
}
