//! Every vector in conformance/vectors through the Rust API.

use std::path::PathBuf;

fn vector_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn all_vectors_pass_through_the_rust_api() {
    let files = vector_files();
    assert!(!files.is_empty(), "no vector files found");
    let filter = std::env::var("RESTARTKIT_VECTOR_FILTER").unwrap_or_default();
    let (mut passed, mut failed) = (0, Vec::new());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let vectors: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
        assert!(!vectors.is_empty(), "{} holds no vectors", f.display());
        for v in vectors {
            let id = v
                .get("id")
                .and_then(|x| x.as_str())
                .unwrap_or("?")
                .to_owned();
            if !filter.is_empty() && !id.contains(&filter) {
                continue;
            }
            match restartkit::conformance::run_vector(&v, restartkit::handle) {
                Ok(notes) => {
                    passed += 1;
                    for n in notes {
                        eprintln!("NOTE {id}: {n}");
                    }
                }
                Err(e) => failed.push(format!("FAIL {id}: {e}")),
            }
        }
    }
    for f in &failed {
        eprintln!("{f}");
    }
    eprintln!("{passed} passed, {} failed", failed.len());
    assert!(failed.is_empty(), "{} vectors failed", failed.len());
}
