//! Throughput of the paths users hit: validating a typical Job from YAML, and the JSON contract.
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "shared/typical_job.rs"]
mod typical_job;
use serde_json::json;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    typical_job::bench_validate_yaml(c, "validate typical Job from YAML");
    typical_job::bench_parser_floor(c, "yaml events only (parser floor)");
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"restartPolicy": "Never",
        "containers": [{"name": "c", "image": "i", "restartPolicy": "Never",
          "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]}]}});
    let req =
        json!({"op": "containerRestart", "input": {"pod": pod, "container": "c", "exitCode": 42}})
            .to_string();
    c.bench_function("handle_json containerRestart", |b| {
        b.iter(|| black_box(restartkit::handle_json(black_box(&req))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
