//! `restartkit batch --stages`: after answering, times restartkit's stages on the inputs it was
//! sent, for the differential oracle's speed comparison (docs/oracle.md). Each stage is a loop
//! over all inputs repeated for at least 300 ms, as the oracle times upstream's side, so both
//! sides are measured the same way. Stages, per input:
//!
//! - `decide`: the op's engine call on input already decoded into restartkit's types, gates
//!   already resolved (upstream's feature gates are process-wide, set before its loop). For
//!   `validate` the decoded input is the parsed JSON tree: restartkit's validation reads its
//!   typed object from it (upstream's is handed its internal Go object).
//! - `typed`: `validate` only: the like-for-like counterpart of upstream's Strategy.Validate:
//!   the Pod or Job decoded into restartkit's types and defaulted (as upstream's admission did)
//!   outside the loop, then `validate_pod` / `validate_job` alone (no unknown-field walk, which
//!   works on the JSON tree and upstream does while decoding).
//! - `matcher`: `containerRestart` only: the bare yes/no function upstream's
//!   `ContainerShouldRestart` corresponds to, without the op's explanation.
//! - `compiled`: the prepared form (compiled once outside the loop, not timed), where restartkit
//!   has one; upstream has no counterpart.
//! - `decode+decide`: from the input's JSON text: parse, decode, resolve gates, decide; the
//!   result is not encoded (upstream's counterpart decodes, defaults and converts, then decides).
//!
//! Lines printed to standard error: `stage <name>: <n> inputs, <ns> ns/input`.

use restartkit::FeatureGates;
use restartkit::api::{Job, Pod};
use restartkit::contract::decode;
use restartkit::diag::{Diagnostic, Findings};
use restartkit::eval::job::{self, PodFailurePolicyInput};
use restartkit::eval::job_compiled::CompiledPodFailurePolicy;
use restartkit::eval::kubelet::{self, CompiledContainerPolicy, ContainerRestartInput};
use restartkit::validate::{self, Ctx, ValidateInput};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

const MIN_TIME: Duration = Duration::from_millis(300);

/// Runs `f` (one pass over `n` inputs) until 300 ms and 3 passes are spent; ns per input.
fn per_input(n: usize, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut reps = 0u32;
    while reps < 3 || start.elapsed() < MIN_TIME {
        f();
        reps += 1;
    }
    #[allow(clippy::cast_precision_loss)] // a ratio for a report
    let per = start.elapsed().as_nanos() as f64 / (f64::from(reps) * n.max(1) as f64);
    per
}

fn line(name: &str, n: usize, ns: f64) -> String {
    format!("stage {name}: {n} inputs, {ns:.1} ns/input")
}

fn gates(
    version: Option<&str>,
    overrides: Option<&std::collections::BTreeMap<String, bool>>,
) -> Option<FeatureGates> {
    FeatureGates::resolve(version, overrides)
        .ok()
        .map(|(g, _)| g)
}

/// The inputs decoded into the op's input type with their gates resolved (outside every loop);
/// inputs that do not decode or whose gates do not resolve are left out.
fn decoded<I: DeserializeOwned>(
    values: &[Value],
    version_and_gates: impl Fn(&I) -> (Option<&str>, Option<&BTreeMap<String, bool>>),
) -> Vec<(I, FeatureGates)> {
    values
        .iter()
        .filter_map(|v| {
            let i: I = decode(v.clone()).ok()?;
            let (version, overrides) = version_and_gates(&i);
            let g = gates(version, overrides)?;
            Some((i, g))
        })
        .collect()
}

/// The `decode+decide` stage: per JSON text, parse, decode with `decode_input`, then run `op`
/// (which resolves its gates itself); the result is not encoded.
fn decode_decide<I, O>(
    texts: &[String],
    decode_input: impl Fn(Value) -> Result<I, Diagnostic>,
    op: impl Fn(I) -> Result<O, Diagnostic>,
) -> String {
    line(
        "decode+decide",
        texts.len(),
        per_input(texts.len(), || {
            for t in texts {
                let r = restartkit::source::parse_json_strict(t)
                    .and_then(&decode_input)
                    .and_then(&op);
                black_box(r.is_ok());
            }
        }),
    )
}

/// The stage lines for the inputs (JSON texts) of one op; none for an op without stages.
pub fn report(op: &str, texts: &[String]) -> Vec<String> {
    let values: Vec<Value> = texts
        .iter()
        .filter_map(|t| restartkit::source::parse_json_strict(t).ok())
        .collect();
    match op {
        "podFailurePolicy" => pod_failure_policy(texts, &values),
        "containerRestart" => container_restart(texts, &values),
        "validate" => validate_stage(texts, &values),
        _ => Vec::new(),
    }
}

fn pod_failure_policy(texts: &[String], values: &[Value]) -> Vec<String> {
    let decoded: Vec<(PodFailurePolicyInput, FeatureGates)> =
        decoded(values, |i: &PodFailurePolicyInput| {
            (i.kubernetes_version.as_deref(), i.feature_gates.as_ref())
        });
    let mut out = vec![line(
        "decide",
        decoded.len(),
        per_input(decoded.len(), || {
            for (i, g) in &decoded {
                black_box(job::evaluate(&i.job, &i.pod, g));
            }
        }),
    )];
    let compiled: Vec<(CompiledPodFailurePolicy, &PodFailurePolicyInput)> = decoded
        .iter()
        .filter_map(|(i, g)| Some((CompiledPodFailurePolicy::from_job(&i.job, g).ok()?, i)))
        .collect();
    out.push(line(
        "compiled",
        compiled.len(),
        per_input(compiled.len(), || {
            for (c, i) in &compiled {
                black_box(c.decide_pod(&i.pod));
            }
        }),
    ));
    out.push(decode_decide(
        texts,
        decode::<PodFailurePolicyInput>,
        job::pod_failure_policy,
    ));
    out
}

fn container_restart(texts: &[String], values: &[Value]) -> Vec<String> {
    let decoded: Vec<(ContainerRestartInput, FeatureGates)> =
        decoded(values, |i: &ContainerRestartInput| {
            (i.kubernetes_version.as_deref(), i.feature_gates.as_ref())
        });
    // The container looked up outside the loop, as the oracle does for upstream.
    let found: Vec<(&restartkit::api::Container, &restartkit::api::PodSpec, i32)> = decoded
        .iter()
        .filter_map(|(i, _)| {
            kubelet::find_container(&i.pod.spec, &i.container)
                .map(|(c, _)| (c, &i.pod.spec, i.exit_code))
        })
        .collect();
    let mut out = vec![line(
        "matcher",
        found.len(),
        per_input(found.len(), || {
            for (c, spec, code) in &found {
                black_box(kubelet::container_should_restart(c, spec, *code));
            }
        }),
    )];
    // The op takes its input by value; the clone it needs here is timed on its own too.
    out.push(line(
        "decide",
        decoded.len(),
        per_input(decoded.len(), || {
            for (i, _) in &decoded {
                black_box(kubelet::container_restart(i.clone()).is_ok());
            }
        }),
    ));
    out.push(line(
        "input clone (inside decide)",
        decoded.len(),
        per_input(decoded.len(), || {
            for (i, _) in &decoded {
                black_box(i.clone());
            }
        }),
    ));
    // The op resolves its gates per request (the decide stage of the other ops does not).
    out.push(line(
        "gate resolution (inside decide)",
        decoded.len(),
        per_input(decoded.len(), || {
            for (i, _) in &decoded {
                black_box(gates(
                    i.kubernetes_version.as_deref(),
                    i.feature_gates.as_ref(),
                ));
            }
        }),
    ));
    let compiled: Vec<(CompiledContainerPolicy, i32)> = decoded
        .iter()
        .filter_map(|(i, g)| {
            let mut spec = i.pod.spec.clone();
            validate::pod::default_pod_spec(&mut spec);
            let (c, _) = kubelet::find_container(&spec, &i.container)?;
            Some((CompiledContainerPolicy::new(c, &spec, g), i.exit_code))
        })
        .collect();
    out.push(line(
        "compiled",
        compiled.len(),
        per_input(compiled.len(), || {
            for (c, code) in &compiled {
                black_box(c.decide(*code));
            }
        }),
    ));
    out.push(decode_decide(
        texts,
        decode::<ContainerRestartInput>,
        kubelet::container_restart,
    ));
    out
}

/// An admitted object for the `typed` stage.
enum Admitted {
    Pod(Box<Pod>),
    Job(Box<Job>),
}

fn validate_stage(texts: &[String], values: &[Value]) -> Vec<String> {
    let decoded: Vec<(Value, Ctx)> = decoded(values, |i: &ValidateInput| {
        (i.kubernetes_version.as_deref(), i.feature_gates.as_ref())
    })
    .into_iter()
    .filter_map(|(i, g)| {
        Some((
            i.object?,
            Ctx {
                gates: g,
                skip_defaulting: i.skip_defaulting,
                future_rules: false,
                always_pod: false,
                field_validation: i.field_validation,
            },
        ))
    })
    .collect();
    // Decoded and defaulted outside the loop, as upstream's admission (decode, default,
    // convert, PrepareForCreate) runs before its timed Strategy.Validate.
    let admitted: Vec<(Admitted, &Ctx)> = decoded
        .iter()
        .filter_map(|(obj, ctx)| {
            let root = restartkit::FieldPath::root();
            let a = match obj.get("kind").and_then(Value::as_str)? {
                "Pod" => {
                    let mut pod: Pod = validate::decode_at(obj, &root).ok()?;
                    if !ctx.skip_defaulting {
                        validate::pod::default_pod_spec(&mut pod.spec);
                    }
                    Admitted::Pod(Box::new(pod))
                }
                "Job" => {
                    let mut job: Job = validate::decode_at(obj, &root).ok()?;
                    if !ctx.skip_defaulting {
                        validate::job::default_job_spec(&mut job.spec);
                    }
                    Admitted::Job(Box::new(job))
                }
                _ => return None,
            };
            Some((a, ctx))
        })
        .collect();
    vec![
        line(
            "decide",
            decoded.len(),
            per_input(decoded.len(), || {
                for (obj, ctx) in &decoded {
                    black_box(validate::validate_value(obj, ctx));
                }
            }),
        ),
        line(
            "typed",
            admitted.len(),
            per_input(admitted.len(), || {
                for (a, ctx) in &admitted {
                    let mut out = Findings::default();
                    match a {
                        Admitted::Pod(p) => validate::pod::validate_pod(p, ctx, &mut out),
                        Admitted::Job(j) => validate::job::validate_job(j, ctx, &mut out),
                    }
                    black_box(out);
                }
            }),
        ),
        decode_decide(
            texts,
            |v| {
                restartkit::contract::decode_moving(v, "object", |i: &mut ValidateInput, o| {
                    i.object = (!o.is_null()).then_some(o)
                })
            },
            validate::run,
        ),
    ]
}
