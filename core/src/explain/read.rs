//! Reading what `kubectl get pod,job,jobset -o yaml|json` prints: a List, a stream of documents or
//! single objects, each Pod, Job and JobSet typed, the rest passed over with a note; and the
//! instants in it (the default `now` is the newest of them).

use crate::api::{Job, JobSet, Pod};
use crate::backoff::job::parse_rfc3339;
use crate::diag::Diagnostic;
use serde_json::Value;

/// Who owns an object, as its controller ownerReference (or, without one, the labels the Job
/// and JobSet controllers put on what they create) says.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Owner {
    pub kind: String,
    pub name: String,
}

/// One typed object with its owner and where it came from.
#[derive(Debug, Clone)]
pub struct Read<T> {
    pub object: T,
    pub owner: Option<Owner>,
}

/// Every object the input holds, by kind.
#[derive(Debug, Default)]
pub struct Objects {
    pub pods: Vec<Read<Pod>>,
    pub jobs: Vec<Read<Job>>,
    pub jobsets: Vec<Read<JobSet>>,
    /// What was passed over or could not be read, in words.
    pub notes: Vec<String>,
    /// The newest instant found in any object (nanoseconds since the epoch).
    pub newest: Option<i64>,
}

/// The label the Job controller puts on its Pods (the older `job-name` is read too).
const JOB_NAME_LABEL: &str = "batch.kubernetes.io/job-name";
const LEGACY_JOB_NAME_LABEL: &str = "job-name";
const JOBSET_NAME_LABEL: &str = "jobset.sigs.k8s.io/jobset-name";

/// Reads the input: `objects` (an object, a List, or an array of them) and/or `source` (YAML or
/// JSON text of any number of documents).
pub fn read(objects: Option<Value>, source: Option<&str>) -> Result<Objects, Diagnostic> {
    let mut out = Objects::default();
    let mut values: Vec<(String, Value)> = Vec::new();
    match objects {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (k, v) in items.into_iter().enumerate() {
                values.push((format!("input.objects[{k}]"), v));
            }
        }
        Some(v) => values.push(("input.objects".to_owned(), v)),
    }
    if let Some(text) = source {
        for doc in crate::source::read_stream(text) {
            match doc {
                Ok(d) => values.push((format!("document {} (line {})", d.index, d.line), d.value)),
                Err(b) => out.notes.push(format!(
                    "cannot read document {} (line {}): {}",
                    b.index, b.line, b.error.message
                )),
            }
        }
    }
    if values.is_empty() && out.notes.is_empty() {
        return Err(Diagnostic::request(
            "invalid-input",
            "input",
            "explain needs objects: give `objects` (a Pod, Job, JobSet, or a List of them) or `source` (what `kubectl get pod,job,jobset -o yaml` prints)",
        ));
    }
    for (at, v) in values {
        put(&mut out, &at, v);
    }
    Ok(out)
}

fn put(out: &mut Objects, at: &str, v: Value) {
    newest_in(&v, &mut out.newest);
    let kind = v
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if kind == "List" || (kind.ends_with("List") && v.get("items").is_some()) {
        if let Some(Value::Array(items)) = v.get("items") {
            for (k, item) in items.iter().enumerate() {
                put(out, &format!("{at}.items[{k}]"), item.clone());
            }
        }
        return;
    }
    let owner = owner_of(&v, &kind);
    let name = v
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let path = crate::FieldPath::new(at);
    match kind.as_str() {
        "Pod" => match crate::decode::input_at::<Pod>(&v, &path) {
            Ok(object) => out.pods.push(Read { object, owner }),
            Err(e) => out
                .notes
                .push(format!("cannot read Pod {name:?}: {}", e.message)),
        },
        "Job" => match crate::decode::input_at::<Job>(&v, &path) {
            Ok(object) => out.jobs.push(Read { object, owner }),
            Err(e) => out
                .notes
                .push(format!("cannot read Job {name:?}: {}", e.message)),
        },
        "JobSet" => match crate::decode::input_at::<JobSet>(&v, &path) {
            Ok(object) => out.jobsets.push(Read { object, owner }),
            Err(e) => out
                .notes
                .push(format!("cannot read JobSet {name:?}: {}", e.message)),
        },
        "" => out.notes.push(format!("{at} has no kind; passed over")),
        other => out.notes.push(format!(
            "{other} {name:?} passed over: explain reads Pods, Jobs and JobSets"
        )),
    }
}

/// The controller ownerReference, else the labels the Job and JobSet controllers set.
fn owner_of(v: &Value, kind: &str) -> Option<Owner> {
    let refs = v
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array);
    let pick = |r: &Value| -> Option<Owner> {
        Some(Owner {
            kind: r.get("kind")?.as_str()?.to_owned(),
            name: r.get("name")?.as_str()?.to_owned(),
        })
    };
    if let Some(refs) = refs {
        let controller = refs
            .iter()
            .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))
            .or_else(|| refs.first());
        if let Some(o) = controller.and_then(pick) {
            return Some(o);
        }
    }
    let label = |k: &str| {
        v.pointer("/metadata/labels")
            .and_then(|l| l.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    match kind {
        "Pod" => label(JOB_NAME_LABEL)
            .or_else(|| label(LEGACY_JOB_NAME_LABEL))
            .map(|name| Owner {
                kind: "Job".to_owned(),
                name,
            }),
        "Job" => label(JOBSET_NAME_LABEL).map(|name| Owner {
            kind: "JobSet".to_owned(),
            name,
        }),
        _ => None,
    }
}

/// Whether a member name holds an instant (`creationTimestamp`, `finishedAt`,
/// `lastTransitionTime`, managedFields' `time`, ...).
fn is_time_key(k: &str) -> bool {
    k == "time" || k.ends_with("Time") || k.ends_with("At") || k.ends_with("Timestamp")
}

fn newest_in(v: &Value, newest: &mut Option<i64>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if let (true, Value::String(s)) = (is_time_key(k), x) {
                    if let Ok(t) = parse_rfc3339(s)
                        && newest.is_none_or(|n| n < t)
                    {
                        *newest = Some(t);
                    }
                } else {
                    newest_in(x, newest);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| newest_in(x, newest)),
        _ => {}
    }
}
