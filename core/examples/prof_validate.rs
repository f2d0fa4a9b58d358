//! Profiling harness (not shipped): validates the file named on the command line 200,000 times,
//! for `perf record` on the YAML validation path (`FILE parse`: the YAML reader alone; `FILE json`:
//! FILE is a contract request, run through `handle_json`). `ITERATIONS` in the environment
//! overrides the count (callgrind wants a few thousand, not 200,000).
fn main() {
    let iterations: usize = std::env::var("ITERATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200_000);
    let path = std::env::args().nth(1).unwrap_or_default();
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let input = serde_json::json!({"source": text});
    if std::env::args().nth(2).as_deref() == Some("json") {
        // The file holds a whole contract request.
        let mut n = 0;
        for _ in 0..iterations {
            n += restartkit::handle_json(&text).len();
        }
        println!("{n}");
        return;
    }
    if std::env::args().nth(2).as_deref() == Some("events") {
        let mut n = 0;
        for _ in 0..iterations {
            let mut p = saphyr_parser::Parser::new_from_str(&text);
            while let Some(Ok(_)) = p.next_event() {
                n += 1;
            }
        }
        println!("{n}");
        return;
    }
    if std::env::args().nth(2).as_deref() == Some("parse") {
        let mut n = 0;
        for _ in 0..iterations {
            n += restartkit::source::parse_documents(&text)
                .map(|d| d.len())
                .unwrap_or(0);
        }
        println!("{n}");
        return;
    }
    let mut valid = 0;
    for _ in 0..iterations {
        let r =
            restartkit::validate::run(serde_json::from_value(input.clone()).unwrap_or_default());
        if r.map(|o| o.valid).unwrap_or(false) {
            valid += 1;
        }
    }
    println!("{valid}");
}
