//! The path-recording decoder (`restartkit::decode`) against `serde_path_to_error`, which wrote
//! every decode error before: for every object of the conformance and real-world inputs, every
//! node replaced in turn by values of each JSON type must give the same value, or the same path
//! and message.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use restartkit::api::{
    batch::Job, core::Pod, core::PodTemplateSpec, jobset::JobSet, kruise::ContainerRecreateRequest,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn old<T: DeserializeOwned + Serialize>(v: &Value) -> Result<Value, (String, String)> {
    serde_path_to_error::deserialize::<_, T>(v)
        .map(|t| serde_json::to_value(t).unwrap())
        .map_err(|e| (e.path().to_string(), e.inner().to_string()))
}

fn new<T: DeserializeOwned + Serialize>(v: &Value) -> Result<Value, (String, String)> {
    restartkit::decode::from_value_ref::<T>(v)
        .map(|t| serde_json::to_value(t).unwrap())
        .map_err(|(p, e)| (p, e.to_string()))
}

fn objects(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Object(m) => {
            if m.contains_key("kind") || m.contains_key("spec") {
                out.push(v.clone());
            }
            m.values().for_each(|c| objects(c, out));
        }
        Value::Array(a) => a.iter().for_each(|c| objects(c, out)),
        _ => {}
    }
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// Every variant of `v` with one node replaced.
fn mutations(v: &Value, out: &mut Vec<Value>) {
    let replacements = [
        json!(null),
        json!("x"),
        json!(-1),
        json!(1.5),
        // Out of range for i32 (and for u32, on the negative side): the visitors' own errors.
        json!(3_000_000_000_u64),
        json!(-3_000_000_000_i64),
        json!(true),
        json!([]),
        json!({}),
        json!([{"a": 1}]),
        json!({"name": 3}),
    ];
    // Paths as lists of keys/indexes.
    fn walk(v: &Value, path: &mut Vec<Value>, all: &mut Vec<Vec<Value>>) {
        all.push(path.clone());
        match v {
            Value::Object(m) => m.iter().for_each(|(k, c)| {
                path.push(json!(k));
                walk(c, path, all);
                path.pop();
            }),
            Value::Array(a) => a.iter().enumerate().for_each(|(i, c)| {
                path.push(json!(i));
                walk(c, path, all);
                path.pop();
            }),
            _ => {}
        }
    }
    let mut stack = Vec::new();
    walk(v, &mut Vec::new(), &mut stack);
    for p in stack {
        for r in &replacements {
            let mut m = v.clone();
            let mut node = &mut m;
            for seg in &p {
                node = match seg {
                    Value::String(k) => node.get_mut(k.as_str()).unwrap(),
                    Value::Number(i) => node.get_mut(i.as_u64().unwrap() as usize).unwrap(),
                    _ => panic!("a path holds keys and indexes"),
                };
            }
            *node = r.clone();
            out.push(m);
        }
    }
}

#[test]
fn same_values_paths_and_messages_as_serde_path_to_error() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance");
    let mut paths = Vec::new();
    files(&root, &mut paths);
    let mut objs = Vec::new();
    for p in paths {
        if let Ok(v) = serde_json::from_str::<Value>(&std::fs::read_to_string(&p).unwrap()) {
            objects(&v, &mut objs);
        }
    }
    objs.sort_by_key(|v| v.to_string());
    objs.dedup();
    let mut checked = 0usize;
    let mut errors = 0usize;
    for o in objs.iter().take(120) {
        let mut ms = vec![o.clone()];
        mutations(o, &mut ms);
        for m in &ms {
            macro_rules! cmp {
                ($t:ty) => {{
                    let (a, b) = (old::<$t>(m), new::<$t>(m));
                    assert_eq!(a, b, "{} on {m}", stringify!($t));
                    errors += usize::from(a.is_err());
                    checked += 1;
                }};
            }
            cmp!(Pod);
            cmp!(Job);
            cmp!(JobSet);
            cmp!(PodTemplateSpec);
            cmp!(ContainerRecreateRequest);
        }
    }
    assert!(
        checked > 1000 && errors > 100,
        "checked {checked}, errors {errors}"
    );
    eprintln!("checked {checked} decodes, {errors} errors");
}

/// Maps keyed by integers are written with string keys (`{"0": …}`); serde_json reads them back
/// as integers, and so must this decoder (the wasm package has no other: `sweepMerge` of the
/// partials `sweepChunk` returned failed with `invalid type: string "0", expected usize`). The
/// same keys decode, the same keys fail (a failing key's path is the key here, `?` there, as for
/// every key error before).
#[test]
fn integer_map_keys_as_serde_json_reads_them() {
    use std::collections::BTreeMap;
    fn same<T: DeserializeOwned + PartialEq + std::fmt::Debug>(v: &Value) -> bool {
        let old = serde_path_to_error::deserialize::<_, T>(v).ok();
        let new = restartkit::decode::from_value_ref::<T>(v).ok();
        assert_eq!(old, new, "{v} as {}", std::any::type_name::<T>());
        new.is_some()
    }
    let mut decoded = 0;
    for v in [
        json!({"0": 1, "7": 2, "18446744073709551615": 3}),
        json!({"0": 1, "-7": 2}),
        json!({"-1": 1}),
        json!({"x": 1}),
        json!({"+1": 1}),
        json!({"01": 1}),
        json!({"": 1}),
        json!({"1.5": 1}),
        json!({"300": 1}),
    ] {
        decoded += usize::from(same::<BTreeMap<u64, u8>>(&v));
        decoded += usize::from(same::<BTreeMap<usize, u8>>(&v));
        decoded += usize::from(same::<BTreeMap<i32, u8>>(&v));
        decoded += usize::from(same::<BTreeMap<u8, u8>>(&v));
    }
    // u64 and usize: the first map and {"300"}; i32: {"0", "-7"}, {"-1"}, {"300"}; u8: none.
    assert_eq!(decoded, 7, "the keys that fit decode, the others fail");
    let ok: BTreeMap<usize, u8> =
        restartkit::decode::from_value_ref(&json!({"0": 1, "7": 2})).unwrap();
    assert_eq!(ok, BTreeMap::from([(0, 1), (7, 2)]));
    // String keys stay strings.
    let names: BTreeMap<String, u8> =
        restartkit::decode::from_value_ref(&json!({"0": 1, "a": 2})).unwrap();
    assert_eq!(names.len(), 2);
}
