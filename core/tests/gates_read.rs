//! `features::VALIDATION_GATES` against the sources: every gate a validator reads (a
//! `.enabled("X")` or `.active("X")` call, or a `GATE…: &str = "X"` constant) is a modelled
//! gate or listed, and every listed one is read, so a request that sets a gate restartkit reads
//! never gets the "does not change any restart or failure behaviour" warning.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use restartkit::features::{GATES, VALIDATION_GATES};
use std::collections::BTreeSet;
use std::path::Path;

/// The quoted name right after `at` in `text`, if it is one.
fn quoted(text: &str) -> Option<&str> {
    let rest = text.strip_prefix('"')?;
    let end = rest.find('"')?;
    let name = &rest[..end];
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric())).then_some(name)
}

fn gates_in(text: &str, out: &mut BTreeSet<String>) {
    for pat in [".enabled(", ".active("] {
        for (i, _) in text.match_indices(pat) {
            if let Some(n) = quoted(&text[i + pat.len()..]) {
                out.insert(n.to_owned());
            }
        }
    }
    for line in text.lines() {
        let l = line.trim_start();
        let l = l.strip_prefix("pub(super) ").unwrap_or(l);
        if let Some(rest) = l.strip_prefix("const GATE")
            && let Some((_, value)) = rest.split_once(": &str = ")
            && let Some(n) = quoted(value)
        {
            out.insert(n.to_owned());
        }
    }
}

fn walk(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            if !p.ends_with("generated") {
                walk(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "rs") {
            gates_in(&std::fs::read_to_string(&p).unwrap(), out);
        }
    }
}

#[test]
fn the_gates_validation_reads_are_listed() {
    let mut read = BTreeSet::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut read,
    );
    let modelled: BTreeSet<&str> = GATES.iter().map(|g| g.name).collect();
    let controller = ["InPlaceRestart", "KruiseDaemon", "RestartJob"];
    let unlisted: Vec<&String> = read
        .iter()
        .filter(|n| {
            !modelled.contains(n.as_str())
                && !VALIDATION_GATES.contains(&n.as_str())
                && !controller.contains(&n.as_str())
        })
        .collect();
    assert!(
        unlisted.is_empty(),
        "read but not in VALIDATION_GATES: {unlisted:?}"
    );
    let unread: Vec<&&str> = VALIDATION_GATES
        .iter()
        .filter(|n| !read.contains(**n))
        .collect();
    assert!(
        unread.is_empty(),
        "in VALIDATION_GATES but read nowhere: {unread:?}"
    );
    assert!(
        VALIDATION_GATES.windows(2).all(|w| w[0] < w[1]),
        "keep the list sorted"
    );
}

#[test]
fn the_scan_finds_calls_and_constants() {
    let mut found = BTreeSet::new();
    gates_in(
        "if ctx.gates.enabled(\"Alpha\") {}\nconst GATE_B: &str = \"Beta\";\npub(super) const GATE: &str = \"Gamma\";\nx.active(GATE);\n",
        &mut found,
    );
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        ["Alpha", "Beta", "Gamma"]
    );
}
