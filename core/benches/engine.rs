//! Throughput of the paths users hit: validating a typical Job from YAML, and the JSON contract.
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "shared/typical_job.rs"]
mod typical_job;
use serde_json::json;
use std::hint::black_box;
use typical_job::JOB_YAML;

fn bench(c: &mut Criterion) {
    typical_job::bench_validate_yaml(c, "validate typical Job from YAML");
    // The floor under the line above: the YAML parser's events alone, with nothing built.
    c.bench_function("yaml events only (parser floor)", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for ev in saphyr_parser::Parser::new_from_str(black_box(JOB_YAML)) {
                n += usize::from(ev.is_ok());
            }
            black_box(n)
        })
    });
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
