//! Issue 40 item 4: the version facts live in one place. A check that differs by minor asks
//! `versions::Change::X.at(minor)` (a named fact with its upstream change) or
//! `FeatureGates::active` (a gate's presence comes from the generated tables), never compares the
//! minor with a literal. This test reads every source file of the crate and fails on such a
//! comparison outside versions.rs (the facts), features.rs (the gates' own machinery and its tests)
//! and the generated tables.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic, clippy::expect_used)]

use std::fs;
use std::path::Path;

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).expect("core/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "generated") {
                sources(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `minor <op> 3N` comparisons in `text`, as (line number, line).
fn literal_comparisons(text: &str) -> Vec<(usize, String)> {
    let re = regex_lite::Regex::new(r"\bminor(\(\))?\s*(>=|<=|<|>|==|!=)\s*3\d\b").expect("a valid regex");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//") && re.is_match(l))
        .map(|(i, l)| (i + 1, l.trim().to_owned()))
        .collect()
}

#[test]
fn no_check_compares_the_minor_with_a_literal() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() > 100, "read {} files", files.len());
    let mut found = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&root).expect("under src").to_string_lossy().into_owned();
        if rel == "versions.rs" || rel == "features.rs" {
            continue;
        }
        let text = fs::read_to_string(&f).expect("a source file");
        for (n, l) in literal_comparisons(&text) {
            found.push(format!("core/src/{rel}:{n}: {l}"));
        }
    }
    assert!(
        found.is_empty(),
        "compare through versions::Change or FeatureGates::active instead:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_finds_a_planted_comparison() {
    let planted = "fn f(minor: u32) -> bool {\n    // minor >= 34 in a comment is prose\n    minor >= 34 || opts.minor < 31\n}\n";
    let hits = literal_comparisons(planted);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].0, 3);
}

/// docs/versions.md lists every fact as the code has it, in `FACTS` order
/// (`RESTARTKIT_BLESS=1` rewrites its table from the code).
#[test]
fn the_docs_list_every_fact() {
    use restartkit::versions::FACTS;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/versions.md");
    let doc = fs::read_to_string(&path).unwrap_or_default();
    let rows: Vec<String> = FACTS
        .iter()
        .map(|f| format!("| 1.{} | `{:?}` | {} | {} |", f.since, f.change, f.what, f.upstream))
        .collect();
    let head: Vec<&str> = doc.lines().take_while(|l| !l.starts_with("| 1.")).collect();
    let table: Vec<&str> = doc.lines().filter(|l| l.starts_with("| 1.")).collect();
    if std::env::var_os("RESTARTKIT_BLESS").is_some() {
        let mut text = head.join("\n");
        text.push('\n');
        for r in &rows {
            text.push_str(r);
            text.push('\n');
        }
        fs::write(&path, text).expect("docs/versions.md is writable");
        return;
    }
    let missing: Vec<&String> = rows.iter().filter(|r| !table.contains(&r.as_str())).collect();
    assert!(
        missing.is_empty() && table.len() == rows.len(),
        "docs/versions.md: {} rows for {} facts (RESTARTKIT_BLESS=1 rewrites it); missing or different:\n{}",
        table.len(),
        rows.len(),
        missing.iter().map(|r| r.as_str()).collect::<Vec<_>>().join("\n")
    );
}
