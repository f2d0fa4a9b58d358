//! `restartkit sweep` end to end: parallel runs give the serial answer, output formats, the SVG,
//! refusals and Ctrl-C.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_restartkit"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run restartkit")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const SCENARIO: &str = "examples/scenarios/training-reschedule.yaml";
const VARY: &str = "--vary=workload.spec.failurePolicy.maxRestarts=0,3";

#[test]
fn any_number_of_jobs_gives_the_same_json() {
    let base = [
        "sweep",
        SCENARIO,
        "--seeds",
        "25",
        VARY,
        "--variant",
        "short={runFor: 2h}",
        "--variant",
        "as-is={}",
        "-o",
        "json",
    ];
    let one = run(&[&base[..], &["--jobs", "1"]].concat());
    let two = run(&[&base[..], &["--jobs", "2"]].concat());
    assert!(one.status.success(), "{}", text(&one.stderr));
    assert_eq!(one.stdout, two.stdout);
    // Not a terminal: no progress bar, nothing on stderr.
    assert_eq!(text(&one.stderr), "");
    let v: Value = serde_json::from_slice(&one.stdout).unwrap();
    let names: Vec<&str> = v["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "short workload.spec.failurePolicy.maxRestarts=0",
            "short workload.spec.failurePolicy.maxRestarts=3",
            "as-is workload.spec.failurePolicy.maxRestarts=0",
            "as-is workload.spec.failurePolicy.maxRestarts=3",
        ]
    );
    for variant in v["variants"].as_array().unwrap() {
        assert_eq!(variant["runs"], 25);
        let shares: u64 = variant["phases"]
            .as_object()
            .unwrap()
            .values()
            .map(|p| p["runs"].as_u64().unwrap())
            .sum();
        assert_eq!(shares, 25);
    }
    // A 2-hour run ends no later than 7,200 s; the 24-hour one may run longer.
    assert!(
        v["variants"][1]["measures"]["endSeconds"]["max"]
            .as_f64()
            .unwrap()
            <= 7200.0
    );
    assert_eq!(v["variants"][0]["measures"]["jobsetRestarts"]["max"], 0.0);
}

#[test]
fn blocking_recreate_is_swept_and_costs_the_slowest_jobs_grace_period() {
    // Four Jobs: under BlockingRecreate the failed Job, whose Pods have all ended, is created
    // again only once the other three (30 s grace period) are gone.
    let out = run(&[
        "sweep",
        SCENARIO,
        "--seeds",
        "4",
        "--vary=workload.spec.replicatedJobs.0.replicas=4",
        "--vary=workload.spec.failurePolicy.restartStrategy=Recreate,BlockingRecreate",
        "--variant",
        "day={runFor: 6h, workload: {spec: {failurePolicy: {maxRestarts: 1000}}}}",
        "-o",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let variants = v["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 2);
    assert!(
        variants[1]["name"]
            .as_str()
            .unwrap()
            .ends_with("restartStrategy=BlockingRecreate"),
        "{}",
        variants[1]["name"]
    );
    let measure = |i: usize, m: &str| variants[i]["measures"][m]["mean"].as_f64().unwrap();
    assert!(measure(0, "jobsetRestarts") > 0.0);
    assert!(
        measure(1, "timeLostSeconds") > measure(0, "timeLostSeconds"),
        "Recreate {} s, BlockingRecreate {} s",
        measure(0, "timeLostSeconds"),
        measure(1, "timeLostSeconds")
    );
}

#[test]
fn table_csv_and_svg() {
    let svg = std::env::temp_dir().join(format!("restartkit-sweep-{}.svg", std::process::id()));
    let t = run(&[
        "sweep",
        SCENARIO,
        "--seeds",
        "5",
        VARY,
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(t.status.success(), "{}", text(&t.stderr));
    let out = text(&t.stdout);
    assert!(
        out.contains("variant workload.spec.failurePolicy.maxRestarts=3 (5 runs)"),
        "{out}"
    );
    assert!(out.contains("final phase (95% Wilson): Completed"), "{out}");
    assert!(out.contains("timeLostSeconds"), "{out}");
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(
        drawn.starts_with("<svg") && drawn.contains("maxRestarts=3"),
        "{drawn:.200}"
    );
    std::fs::remove_file(&svg).ok();

    let c = run(&["sweep", SCENARIO, "--seeds", "5", VARY, "-o", "csv"]);
    let csv = text(&c.stdout);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "variant,kind,name,runs,mean,stdDev,min,p25,p50,p75,p90,p99,max,probability,low,high"
    );
    assert!(lines.iter().all(|l| l.split(',').count() == 16), "{csv}");
    assert!(lines.contains(&"workload.spec.failurePolicy.maxRestarts=3,measure,jobsetRestarts,5,3,0,3,3,3,3,3,3,3,,,"), "{csv}");

    let r = run(&[
        "sweep", SCENARIO, "--seeds", "5", VARY, "-o", "csv", "--runs",
    ]);
    let rows = text(&r.stdout);
    assert_eq!(rows.lines().count(), 1 + 2 * 5, "{rows}");
    assert!(
        rows.lines()
            .nth(1)
            .unwrap()
            .starts_with("workload.spec.failurePolicy.maxRestarts=0,7,"),
        "{rows}"
    );
}

#[test]
fn refusals() {
    let bad = run(&[
        "sweep",
        SCENARIO,
        "--seeds",
        "3",
        "--variant",
        "ok={}",
        "--variant",
        "typo={startupSeconds: slow}",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        text(&bad.stderr).trim(),
        "error: variant \"typo\": scenario.startupSeconds: invalid type: string \"slow\", expected f64"
    );
    let zero = run(&["sweep", SCENARIO, "--seeds", "0"]);
    assert_eq!(zero.status.code(), Some(1));
    assert!(text(&zero.stderr).contains("at least 1 seed"));
    let many = run(&["sweep", SCENARIO, "--seeds", "1000001"]);
    assert!(text(&many.stderr).contains("maximum of 1000000"));
    let grid = run(&[
        "sweep",
        SCENARIO,
        "--seeds",
        "1",
        "--vary",
        "a=[1,2,3,4,5,6,7,8,9,10,11]",
        "--vary",
        "b=[1,2,3,4,5,6,7,8,9,10]",
        "--vary",
        "c=[1,2,3,4,5,6,7,8,9,10]",
    ]);
    assert!(
        text(&grid.stderr).contains("1100 variants"),
        "{}",
        text(&grid.stderr)
    );
    let syntax = run(&["sweep", SCENARIO, "--seeds", "1", "--variant", "no-patch"]);
    assert_eq!(syntax.status.code(), Some(2));
    assert!(text(&syntax.stderr).contains("expected NAME=PATCH"));
    let jobs = run(&["sweep", SCENARIO, "--seeds", "1", "--jobs", "0"]);
    assert_eq!(jobs.status.code(), Some(2));
}

#[test]
fn ctrl_c_stops_promptly() {
    // A sweep of hours; SIGINT must end it within seconds, with status 130.
    let mut child = Command::new(env!("CARGO_BIN_EXE_restartkit"))
        .args(["sweep", SCENARIO, "--seeds", "1000000", "--jobs", "2"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let sent = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > Duration::from_secs(20) {
            child.kill().ok();
            panic!("the sweep did not stop within 20 s of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(130));
    let out = child.wait_with_output().unwrap();
    assert!(
        text(&out.stderr).contains("interrupted"),
        "{}",
        text(&out.stderr)
    );
}
