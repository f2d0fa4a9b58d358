//! Issue 44 item 0, guarded without a clock: reading a stream in bounded memory looks at each
//! byte a bounded number of times, whatever its layout. The splitter and the session count the
//! bytes their loops look at (`Splitter::scanned`, `Session::scanned`); a compact one-line List
//! once made the session copy each item with as many spaces as its column, which these counts
//! would show growing with the square of the List.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use restartkit::source::Splitter;
use restartkit::validate::ValidateInput;
use restartkit::validate::streaming::{Outcome, Session};

/// A ConfigMap with one bad data key (an error placed at its line and column) and a value that
/// pads it to about `size` bytes.
fn config_map(i: usize, size: usize) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"cm-{i}"}},"data":{{"bad key!":"x","v":"{}"}}}}"#,
        "a".repeat(size.saturating_sub(100))
    )
}

fn compact_list(items: usize, size: usize) -> String {
    let items: Vec<String> = (0..items).map(|i| config_map(i, size)).collect();
    format!(r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#, items.join(","))
}

fn indented_list(items: usize, size: usize) -> String {
    let items: Vec<String> = (0..items).map(|i| format!("    {}", config_map(i, size))).collect();
    format!(
        "{{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n{}\n  ]\n}}\n",
        items.join(",\n")
    )
}

fn yaml_stream(items: usize, size: usize) -> String {
    (0..items)
        .map(|i| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  bad key!: x\n  v: {}\n",
                "a".repeat(size.saturating_sub(80))
            )
        })
        .collect::<Vec<_>>()
        .join("---\n")
}

/// Reads `text` in 64 KiB chunks as the CLI does: (splitter's count, session's count, errors).
fn read(text: &str) -> (u64, u64, usize) {
    let input = ValidateInput::default();
    let Ok(Ok((mut session, _))) = Session::new(&input, text.get(..4096).unwrap_or(text)) else {
        panic!("a session for the default request");
    };
    let mut splitter = Splitter::new();
    let mut errors = 0;
    let mut take = |outcomes: Vec<Outcome>| {
        for o in outcomes {
            let f = match o {
                Outcome::Document { findings, .. }
                | Outcome::Item { findings }
                | Outcome::ListEnd { findings, .. } => findings,
            };
            errors += f.errors.len();
        }
    };
    for chunk in text.as_bytes().chunks(64 * 1024) {
        for piece in splitter.push(chunk) {
            take(session.piece(piece));
        }
    }
    for piece in splitter.finish() {
        take(session.piece(piece));
    }
    (splitter.scanned(), session.scanned(), errors)
}

/// Each layout, its bytes looked at per input byte by the splitter and by the session.
fn ratios(name: &str, text: &str, items: usize) -> (f64, f64) {
    let (split, session, errors) = read(text);
    assert_eq!(errors, items, "{name}: one error per item, each read and placed");
    let len = text.len() as f64;
    let r = (split as f64 / len, session as f64 / len);
    eprintln!(
        "{name}: {:.1} MB, splitter {:.2}, session {:.2} bytes looked at per byte",
        len / 1e6,
        r.0,
        r.1
    );
    r
}

/// The bounds, a few passes each (the quadratic reading gave thousands per byte at this size):
/// the splitter scans each byte for its structure, YAML's lines once more, and counts its
/// position (measured: 2.0 for JSON, 3.1 for YAML); the session checks UTF-8, reads each piece
/// and answers positions: the line starts, the ASCII check, each error's window within its item
/// (measured: 5.0 with one error per item).
const SPLITTER_BOUND: f64 = 4.0;
const SESSION_BOUND: f64 = 8.0;

#[test]
fn a_compact_32_mb_list_is_read_in_a_bounded_number_of_passes() {
    let (items, size) = (16_000, 2_000);
    let text = compact_list(items, size);
    assert!(text.len() > 32_000_000 && !text.contains('\n'));
    let (split, session) = ratios("compact List", &text, items);
    assert!(split <= SPLITTER_BOUND, "splitter: {split:.2} per byte");
    assert!(session <= SESSION_BOUND, "session: {session:.2} per byte");
}

#[test]
fn other_layouts_stay_within_the_same_bounds() {
    let (items, size) = (1_000, 4_000);
    for (name, text) in [
        ("indented List", indented_list(items, size)),
        ("YAML stream", yaml_stream(items, size)),
    ] {
        let (split, session) = ratios(name, &text, items);
        assert!(split <= SPLITTER_BOUND, "{name}: splitter {split:.2} per byte");
        assert!(session <= SESSION_BOUND, "{name}: session {session:.2} per byte");
    }
}
