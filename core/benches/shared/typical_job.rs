//! The typical Job manifest the YAML validation target is stated for, and its benchmark, shared
//! by `engine` (the system allocator) and `engine_mimalloc` (the allocator the CLI ships with).
use criterion::{BatchSize, Criterion};
use serde_json::json;
use std::hint::black_box;

pub const JOB_YAML: &str = r#"apiVersion: batch/v1
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

/// Validation of the text (parse, decode, checks, unknown-field walk) as the CLI and every
/// binding call it; the request is built outside the timing.
pub fn bench_validate_yaml(c: &mut Criterion, name: &str) {
    let input = json!({"source": JOB_YAML});
    c.bench_function(name, |b| {
        b.iter_batched(
            || serde_json::from_value(input.clone()).unwrap_or_default(),
            |request| {
                let r = restartkit::validate::run(black_box(request));
                black_box(r.map(|o| o.valid).unwrap_or(false))
            },
            BatchSize::SmallInput,
        )
    });
}

/// The floor under the validation: the YAML parser's events alone, with nothing built.
pub fn bench_parser_floor(c: &mut Criterion, name: &str) {
    c.bench_function(name, |b| {
        b.iter(|| {
            let mut n = 0usize;
            for ev in saphyr_parser::Parser::new_from_str(black_box(JOB_YAML)) {
                n += usize::from(ev.is_ok());
            }
            black_box(n)
        })
    });
}
