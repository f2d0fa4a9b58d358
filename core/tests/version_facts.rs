//! docs/versions.md lists every version fact (restartkit::versions::FACTS) as the code has it.

use restartkit::versions::FACTS;

#[test]
fn the_docs_list_every_fact() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/versions.md");
    let doc = std::fs::read_to_string(path).unwrap_or_default();
    let mut missing = Vec::new();
    for f in FACTS {
        let row = format!("| 1.{} | `{:?}` | {} | {} |", f.since, f.change, f.what, f.upstream);
        if !doc.lines().any(|l| l == row) {
            missing.push(row);
        }
    }
    let rows = doc.lines().filter(|l| l.starts_with("| 1.")).count();
    assert!(
        missing.is_empty() && rows == FACTS.len(),
        "docs/versions.md: {rows} rows for {} facts; rows missing or different:\n{}",
        FACTS.len(),
        missing.join("\n")
    );
}
