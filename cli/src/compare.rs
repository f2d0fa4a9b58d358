//! `restartkit validate --compare-version X`: the upgrade check (the `compareVersions` op) per
//! file, printed for a person or as JSON.

use restartkit::upgrade::{ChangeKind, CompareVersionsOutput};
use serde_json::{Value, json};
use std::process::ExitCode;

/// What a change is called in the report.
fn label(k: &ChangeKind) -> &'static str {
    match k {
        ChangeKind::Refused => "newly refused",
        ChangeKind::Admitted => "newly admitted",
        ChangeKind::ErrorAdded => "error added",
        ChangeKind::ErrorRemoved => "error gone",
        ChangeKind::WarningAdded => "warning added",
        ChangeKind::WarningRemoved => "warning gone",
        ChangeKind::Decision => "decision changed",
    }
}

/// Prints one file's comparison for a person.
pub fn print_human(file: &str, out: &CompareVersionsOutput) {
    println!(
        "{file}: Kubernetes {} → {}",
        out.from_version, out.to_version
    );
    for d in &out.documents {
        let what = match (&d.kind, &d.name) {
            (Some(k), Some(n)) => format!("{k} {n}"),
            (Some(k), None) => k.clone(),
            _ => "document".to_owned(),
        };
        if d.changes.is_empty() {
            println!(
                "  document {} ({what}, line {}): no change",
                d.index, d.line
            );
            continue;
        }
        println!("  document {} ({what}, line {}):", d.index, d.line);
        for c in &d.changes {
            let at = match (c.field.is_empty(), c.line) {
                (false, Some(l)) => format!(" at {} (line {l})", c.field),
                (false, None) => format!(" at {}", c.field),
                _ => String::new(),
            };
            println!("    - {}{at}: {}", label(&c.kind), c.message);
            if let Some(e) = &c.explanation {
                println!("      why: {e}");
            }
        }
    }
    for g in &out.gate_changes {
        println!("  gate {}: {} → {}", g.name, g.from, g.to);
    }
    println!(
        "  {} of {} document(s) newly refused by {}, {} container exit(s) decided differently",
        out.newly_refused,
        out.documents.len(),
        out.to_version,
        out.decisions_changed
    );
}

/// The exit status of a comparison: 1 when the target minor refuses a document the current one
/// admits, or decides an exit differently (what an upgrade gate must stop on).
pub fn status(outs: &[CompareVersionsOutput]) -> ExitCode {
    if outs
        .iter()
        .any(|o| o.newly_refused > 0 || o.decisions_changed > 0)
    {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The JSON report: one object per file.
pub fn json_report(files: &[(String, CompareVersionsOutput)]) -> Value {
    json!(
        files
            .iter()
            .map(|(f, o)| json!({"file": f, "comparison": o}))
            .collect::<Vec<_>>()
    )
}
