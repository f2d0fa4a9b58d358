//! The compiled pod failure policy on the largest legal policy: 20 onExitCodes rules of 255
//! values each, a template of 10 containers, a failed Pod whose 10 containers all terminated.

use criterion::{Criterion, criterion_group, criterion_main};
use restartkit::eval::job_compiled::CompiledPodFailurePolicy;
use restartkit::{FeatureGates, api::Job};
use serde_json::json;
use std::hint::black_box;

fn largest_policy() -> Job {
    let containers: Vec<_> = (0..10)
        .map(|i| json!({"name": format!("c{i}"), "image": "busybox"}))
        .collect();
    let rules: Vec<_> = (0..20)
        .map(|r| {
            // Rule r lists 255 codes starting at 1000*r+1 (none 0..=255 except in rule 19), so the
            // Pod below only matches late rules: the worst case for a rule-by-rule matcher.
            let base = if r == 19 { 1 } else { 1000 * (r + 1) };
            let values: Vec<i32> = (base..base + 255).collect();
            let mut e = json!({"operator": "In", "values": values});
            if r % 2 == 1
                && let Some(m) = e.as_object_mut()
            {
                m.insert("containerName".into(), json!(format!("c{}", r % 10)));
            }
            json!({"action": if r == 19 { "FailJob" } else { "Ignore" }, "onExitCodes": e})
        })
        .collect();
    serde_json::from_value(json!({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "big"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": containers}},
                 "podFailurePolicy": {"rules": rules}}
    }))
    .unwrap_or_default()
}

fn bench(c: &mut Criterion) {
    let job = largest_policy();
    let Ok(policy) = CompiledPodFailurePolicy::from_job(&job, &FeatureGates::default()) else {
        return;
    };
    // Nine containers exit with codes no rule lists; the last exits 7 (rule 19, FailJob).
    let mut statuses: Vec<(usize, Option<i32>)> = (0..9)
        .map(|i| (i, Some(300 + i32::try_from(i).unwrap_or(0))))
        .collect();
    statuses.push((9, Some(7)));
    let windows: Vec<(usize, Option<i32>)> = (0..10).map(|i| (i, Some(-1_073_741_510))).collect();
    c.bench_function("pfp_decide_20x255_10_containers", |b| {
        b.iter(|| policy.decide(black_box(&statuses), black_box(&[])))
    });
    c.bench_function("pfp_decide_20x255_windows_codes", |b| {
        b.iter(|| policy.decide(black_box(&windows), black_box(&[])))
    });
    c.bench_function("pfp_compile_20x255", |b| {
        b.iter(|| CompiledPodFailurePolicy::from_job(black_box(&job), &FeatureGates::default()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
