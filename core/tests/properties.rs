//! Properties that hold for any input: YAML and JSON of the same object give the same answer,
//! and no input makes the contract panic.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use proptest::prelude::*;
use serde_json::{Value, json};

/// Block-style YAML for a JSON value (strings double-quoted, which YAML reads as JSON does).
fn to_yaml(v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                match x {
                    Value::Object(o) if !o.is_empty() => {
                        out.push_str(&format!("{pad}{k}:\n"));
                        to_yaml(x, indent + 2, out);
                    }
                    Value::Array(a) if !a.is_empty() => {
                        out.push_str(&format!("{pad}{k}:\n"));
                        to_yaml(x, indent, out);
                    }
                    _ => out.push_str(&format!("{pad}{k}: {}\n", scalar(x))),
                }
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for x in a {
                match x {
                    Value::Object(o) if !o.is_empty() => {
                        let mut inner = String::new();
                        to_yaml(x, indent + 2, &mut inner);
                        let trimmed = inner.trim_start_matches(' ');
                        out.push_str(&format!("{pad}- {trimmed}"));
                    }
                    Value::Array(b) if !b.is_empty() => {
                        out.push_str(&format!("{pad}- {}\n", serde_json::to_string(x).unwrap()));
                    }
                    _ => out.push_str(&format!("{pad}- {}\n", scalar(x))),
                }
            }
        }
        other => out.push_str(&format!("{pad}{}\n", scalar(other))),
    }
}

fn scalar(v: &Value) -> String {
    serde_json::to_string(v).unwrap()
}

fn rule() -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            Just("Restart"),
            Just("RestartAllContainers"),
            Just(""),
            Just("Bogus")
        ],
        prop_oneof![
            Just(Some("In")),
            Just(Some("NotIn")),
            Just(Some("")),
            Just(None)
        ],
        proptest::collection::vec(-3i64..300, 0..6),
    )
        .prop_map(|(action, op, values)| match op {
            Some(op) => json!({"action": action, "exitCodes": {"operator": op, "values": values}}),
            None => json!({"action": action}),
        })
}

fn container(name: String) -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            Just(None),
            Just(Some("Always")),
            Just(Some("OnFailure")),
            Just(Some("Never")),
            Just(Some("Sometimes"))
        ],
        proptest::collection::vec(rule(), 0..4),
    )
        .prop_map(move |(policy, rules)| {
            let mut c = json!({"name": name, "image": "busybox"});
            if let Some(p) = policy {
                c["restartPolicy"] = json!(p);
            }
            if !rules.is_empty() {
                c["restartPolicyRules"] = Value::Array(rules);
            }
            c
        })
}

fn pod() -> impl Strategy<Value = Value> {
    (
        prop_oneof![Just("Always"), Just("OnFailure"), Just("Never")],
        container("main".into()),
        proptest::option::of(container("init".into())),
    )
        .prop_map(|(policy, main, init)| {
            let mut p = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                "spec": {"restartPolicy": policy, "containers": [main]}});
            if let Some(i) = init {
                p["spec"]["initContainers"] = json!([i]);
            }
            p
        })
}

fn answer(input: Value) -> Value {
    let r = restartkit::handle(restartkit::Request {
        op: "validate".into(),
        input,
    });
    let res = r.result().cloned().unwrap_or(Value::Null);
    let keys = |k: &str| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = res[k]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|d| {
                (
                    d["field"].as_str().unwrap_or("").to_owned(),
                    d["message"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect();
        v.sort();
        v
    };
    json!({"valid": res["valid"], "errors": keys("errors"), "warnings": keys("warnings")})
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn yaml_json_and_object_give_the_same_answer(p in pod(), gate in any::<bool>()) {
        let gates = json!({"ContainerRestartRules": gate, "RestartAllContainersOnContainerExits": gate});
        let mut yaml = String::new();
        to_yaml(&p, 0, &mut yaml);
        let from_object = answer(json!({"object": p, "featureGates": gates}));
        let from_json = answer(json!({"source": serde_json::to_string_pretty(&p).unwrap(), "featureGates": gates}));
        let from_yaml = answer(json!({"source": yaml, "featureGates": gates}));
        prop_assert_eq!(&from_object, &from_json);
        prop_assert_eq!(&from_json, &from_yaml);
    }

    #[test]
    fn the_contract_never_panics_on_arbitrary_text(s in ".{0,200}") {
        let out = restartkit::handle_json(&s);
        let v: Value = serde_json::from_str(&out).unwrap();
        prop_assert_eq!(&v["status"], "error");
        let out = restartkit::handle_json(&json!({"op": "validate", "input": {"source": s}}).to_string());
        let v: Value = serde_json::from_str(&out).unwrap();
        prop_assert!(v["status"] == "ok" || v["status"] == "error");
    }
}
