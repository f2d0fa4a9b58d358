//! Throughput of the paths users hit: validating a typical Job from YAML, and the JSON contract.
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;

const JOB_YAML: &str = r#"apiVersion: batch/v1
kind: Job
metadata:
  name: job-pod-failure-policy-example
spec:
  completions: 12
  parallelism: 3
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: docker.io/library/bash:5
        command: ["bash"]
        args:
        - -c
        - echo "Hello world!" && sleep 5 && exit 42
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes:
        containerName: main
        operator: In
        values: [42]
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
"#;

fn bench(c: &mut Criterion) {
    let input = json!({"source": JOB_YAML});
    c.bench_function("validate typical Job from YAML", |b| {
        b.iter(|| {
            let r = restartkit::validate::run(black_box(
                serde_json::from_value(input.clone()).unwrap_or_default(),
            ));
            black_box(r.map(|o| o.valid).unwrap_or(false))
        })
    });
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
