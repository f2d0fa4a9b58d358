//! The front ends' generated op wrappers and lists are what tools/gen_bindings.rs writes from the
//! op table (`RESTARTKIT_BLESS=1 cargo test -p restartkit --test bindings` rewrites them).
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

#[path = "../../tools/gen_bindings.rs"]
mod gen_bindings;

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn bless() -> bool {
    std::env::var_os("RESTARTKIT_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn generated_bindings_are_current() {
    let mut stale = Vec::new();
    for (path, want) in gen_bindings::files() {
        let p = root().join(path);
        let have = std::fs::read_to_string(&p).unwrap_or_default();
        if have != want {
            if bless() {
                std::fs::write(&p, want).unwrap();
            } else {
                stale.push(path);
            }
        }
    }
    // docs/contract.md: the table of ops and their names per language, between its markers.
    let doc = root().join("docs/contract.md");
    let text = std::fs::read_to_string(&doc).unwrap();
    let table = gen_bindings::doc_table();
    let (a, b) = (
        text.find(gen_bindings::DOC_BEGIN),
        text.find(gen_bindings::DOC_END),
    );
    let current = match (a, b) {
        (Some(a), Some(b)) => text[a..b + gen_bindings::DOC_END.len()] == table,
        _ => false,
    };
    if !current {
        if bless() {
            let new = match (a, b) {
                (Some(a), Some(b)) => format!(
                    "{}{table}{}",
                    &text[..a],
                    &text[b + gen_bindings::DOC_END.len()..]
                ),
                _ => format!("{text}\n## Ops and their names in each front end\n\n{table}\n"),
            };
            std::fs::write(&doc, new).unwrap();
        } else {
            stale.push("docs/contract.md");
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files {stale:?}: run RESTARTKIT_BLESS=1 cargo test -p restartkit --test bindings"
    );
}

#[test]
fn every_op_has_one_name_per_language() {
    let mut py = std::collections::BTreeSet::new();
    for o in restartkit::contract::OPS {
        assert!(py.insert(gen_bindings::snake(o.name)), "{}", o.name);
        assert!(o.name.chars().next().unwrap().is_ascii_lowercase());
        assert!(
            o.name.chars().all(|c| c.is_ascii_alphanumeric()),
            "{}",
            o.name
        );
    }
    assert_eq!(
        gen_bindings::snake("jobsetFailurePolicy"),
        "jobset_failure_policy"
    );
    // The action list is the enum's, by code.
    let actions = gen_bindings::actions();
    assert_eq!(actions.len(), 7);
    for (i, a) in actions.iter().enumerate() {
        assert_eq!(usize::from(a.code()), i);
    }
}

/// `RESTARTKIT_DUMP_SCHEMAS=<file>`: writes the contract's JSON Schemas there (for
/// `python python/tools/gen_types.py --schemas <file>` without a built wheel).
#[test]
fn dump_schemas_when_asked() {
    if let Some(p) = std::env::var_os("RESTARTKIT_DUMP_SCHEMAS") {
        let all = restartkit::contract::json_schemas();
        std::fs::write(p, serde_json::to_string(&all).unwrap()).unwrap();
    }
}
