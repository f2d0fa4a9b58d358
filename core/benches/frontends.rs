//! The calls the JavaScript packages are compared on (node/bench/compare.mjs, `make bench-node`),
//! timed in Rust on the same inputs (frontend_calls.json): the floor a binding adds its cost to.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
use criterion::{Criterion, criterion_group, criterion_main};
use restartkit::Request;
use restartkit::prepared::{PrepareOptions, PreparedPolicy};
use serde_json::{Value, json};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let calls: Value = serde_json::from_str(include_str!("frontend_calls.json")).unwrap();
    let req = calls["containerRestartRequest"].to_string();
    c.bench_function("frontends/handleJson containerRestart", |b| {
        b.iter(|| black_box(restartkit::handle_json(black_box(&req))))
    });
    // The same op without the check of the evaluated object (the engine's own path, which the
    // simulator takes): the difference is what the per-request `warnings` cost.
    let input = calls["containerRestartRequest"]["input"].clone();
    c.bench_function("frontends/containerRestart via call_op (no object check)", |b| {
        b.iter(|| {
            black_box(restartkit::contract::call_op(
                "containerRestart",
                black_box(input.clone()),
            ))
        })
    });
    c.bench_function("frontends/containerRestart via handle (object checked)", |b| {
        b.iter(|| {
            black_box(restartkit::handle(Request {
                op: "containerRestart".into(),
                input: black_box(input.clone()),
            }))
        })
    });
    let yaml = calls["jobYaml"].as_str().unwrap().to_owned();
    c.bench_function("frontends/validate Job YAML", |b| {
        b.iter(|| {
            black_box(restartkit::handle(Request {
                op: "validate".into(),
                input: json!({"source": black_box(&yaml)}),
            }))
        })
    });
    let job = calls["job"].clone();
    let opts = PrepareOptions::default();
    c.bench_function("frontends/compile Job", |b| {
        b.iter(|| black_box(PreparedPolicy::new(black_box(&job), &opts).unwrap()))
    });
    let policy = PreparedPolicy::new(&job, &opts).unwrap();
    let index = policy
        .container_index(calls["decideContainer"].as_str().unwrap())
        .unwrap();
    let code = calls["decideExitCode"].as_i64().unwrap() as i32;
    c.bench_function("frontends/decide", |b| {
        b.iter(|| black_box(policy.decide_exit(black_box(index), black_box(code))))
    });
    let n = calls["decideManyCount"].as_u64().unwrap() as usize;
    let codes: Vec<i32> = (0..n).map(|i| (i % 256) as i32).collect();
    let mut group = c.benchmark_group("frontends-batch");
    group.sample_size(10);
    group.bench_function("decideMany 1M", |b| {
        b.iter(|| {
            black_box(
                codes
                    .iter()
                    .map(|&x| policy.decide_exit(index, x).map(|a| a.code()))
                    .collect::<Option<Vec<u8>>>(),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
