//! The explanation as `restartkit explain` prints it: a header, then one block per workload,
//! indented by what owns what. Every front end gets this same text (`text: true` in the input).

use super::types::{
    ContainerExplained, ExplainOutput, JobExplained, JobSetExplained, PodCreationBackOff,
    PodExplained, Workload,
};

fn secs(s: f64) -> String {
    let r = s.round();
    if (s - r).abs() < 1e-9 {
        format!("{r:.0}s")
    } else {
        format!("{s}s")
    }
}

fn relative(s: f64) -> String {
    if s > 0.0 {
        format!("in {}", secs(s))
    } else if s == 0.0 {
        "now".to_owned()
    } else {
        format!("{} ago: due, at the next sync", secs(-s))
    }
}

/// The text `restartkit explain` prints: a header, then one block per workload.
pub fn render(o: &ExplainOutput) -> String {
    let mut out = String::new();
    let mut line = |indent: usize, s: &str| {
        out.push_str(&" ".repeat(indent));
        out.push_str(s);
        out.push('\n');
    };
    line(
        0,
        &format!(
            "Kubernetes {} · now {} ({}) · CrashLoopBackOff {}",
            o.kubernetes_version,
            o.now,
            if o.now_from == "input" {
                "given"
            } else {
                "newest timestamp in the input"
            },
            o.crash_loop_curve
        ),
    );
    for w in &o.workloads {
        line(0, "");
        workload(&mut line, w);
    }
    let global: Vec<&String> = o
        .notes
        .iter()
        .filter(|n| !n.starts_with("now is "))
        .collect();
    if !global.is_empty() {
        line(0, "");
        for n in global {
            line(0, &format!("note: {n}"));
        }
    }
    out
}

fn workload(line: &mut impl FnMut(usize, &str), w: &Workload) {
    line(
        0,
        &format!(
            "{} {}/{}{}",
            w.kind,
            w.namespace,
            w.name,
            if w.present { "" } else { " (not in the input)" }
        ),
    );
    for n in &w.notes {
        line(2, &format!("cannot know: {n}"));
    }
    if let Some(js) = &w.jobset {
        jobset(line, js);
    }
    for j in &w.jobs {
        job(line, j, w.kind == "JobSet");
    }
    for p in &w.pods {
        pod(line, p, 2);
    }
}

fn jobset(line: &mut impl FnMut(usize, &str), js: &JobSetExplained) {
    let max = js
        .max_restarts
        .map_or("no failurePolicy (maxRestarts 0)".to_owned(), |m| {
            format!("maxRestarts {m}")
        });
    line(
        2,
        &format!(
            "{} · restarts {} ({} counting towards the max) of {max}",
            js.phase, js.restarts, js.restarts_count_towards_max
        ),
    );
    for n in &js.next_failure {
        let rule = n
            .matched_rule
            .as_deref()
            .map_or("no rule matches".to_owned(), |r| format!("rule {r}"));
        line(
            2,
            &format!(
                "next {} failure of a {} Job: {} ({rule}) → {}",
                n.job_failure_reason,
                n.replicated_job,
                n.action.as_deref().unwrap_or("none"),
                n.outcome
            ),
        );
    }
    job_restarts(line, js);
}

fn job_restarts(line: &mut impl FnMut(usize, &str), js: &JobSetExplained) {
    for r in &js.job_restarts {
        line(
            2,
            &format!(
                "{} Job {}: restarted alone {} time(s) by RestartJob ({} counting towards the max)",
                r.replicated_job, r.job_index, r.restarts, r.count_towards_max
            ),
        );
    }
}

fn creation(b: &PodCreationBackOff) -> String {
    format!(
        "{} failure(s) since the last success, the last at {}: back-off {} → next Pod at {} ({})",
        b.failures,
        b.last_failure_at,
        secs(b.delay_seconds),
        b.next_pod_at,
        if b.next_pod_in_seconds > 0.0 {
            format!("in {}", secs(b.next_pod_in_seconds))
        } else {
            "may be created now".to_owned()
        }
    )
}

fn job(line: &mut impl FnMut(usize, &str), j: &JobExplained, under_jobset: bool) {
    let at = if under_jobset {
        line(2, &format!("Job {}", j.name));
        4
    } else {
        2
    };
    if j.present {
        line(
            at,
            &format!(
                "{} · active {} · succeeded {} · failed {} (counted) of backoffLimit {}{}",
                j.phase,
                j.active,
                j.succeeded,
                j.failed,
                j.backoff_limit,
                j.failures_left.map_or(String::new(), |l| if l > 0 {
                    format!(" · {l} more counted failure(s) absorbed, the one after fails the Job")
                } else {
                    " · the next counted failure fails the Job".to_owned()
                })
            ),
        );
    }
    if let Some(limit) = j.backoff_limit_per_index {
        line(at, &format!("backoffLimitPerIndex {limit}"));
        for ix in &j.indexes {
            line(
                at + 2,
                &format!(
                    "index {}: {} counted failure(s), {} more absorbed before the index fails",
                    ix.index, ix.failures, ix.failures_left
                ),
            );
            if let Some(b) = &ix.pod_creation_back_off {
                line(at + 4, &creation(b));
            }
        }
    }
    if let Some(b) = &j.pod_creation_back_off {
        line(at, &format!("Pod creation: {}", creation(b)));
    }
    for c in &j.conditions {
        line(
            at,
            &format!(
                "condition {}={}{}: {}",
                c.type_,
                c.status,
                c.reason
                    .as_deref()
                    .map_or(String::new(), |r| format!(" ({r})")),
                c.meaning
            ),
        );
    }
    for n in &j.notes {
        line(at, &format!("note: {n}"));
    }
    for p in &j.pods {
        pod(line, p, at);
    }
}

fn pod(line: &mut impl FnMut(usize, &str), p: &PodExplained, at: usize) {
    let index = p
        .completion_index
        .map_or(String::new(), |i| format!(" · index {i}"));
    line(at, &format!("Pod {} · {}{index}", p.name, p.phase));
    if let Some(f) = &p.failure {
        let rule = match (f.rule_index, f.action.as_deref()) {
            (Some(k), Some(a)) => format!("podFailurePolicy rule {k} ({a})"),
            _ => "no podFailurePolicy rule".to_owned(),
        };
        line(
            at + 2,
            &format!(
                "failed at {}: {rule} → {} · {}",
                f.finished_at,
                if f.counted {
                    "counts against the limit"
                } else {
                    "not counted"
                },
                f.reason
            ),
        );
    }
    for c in &p.containers {
        container(line, c, at + 2);
    }
    for n in &p.notes {
        line(at + 2, &format!("assumed / cannot know: {n}"));
    }
}

fn container(line: &mut impl FnMut(usize, &str), c: &ContainerExplained, at: usize) {
    line(
        at,
        &format!(
            "container {} · {} · restartCount {}",
            c.name, c.state, c.restart_count
        ),
    );
    if let Some(t) = &c.last_termination {
        let signal = match (t.signal, t.signal_name.as_deref()) {
            (Some(n), Some(name)) => format!(", signal {n} ({name})"),
            (Some(n), None) => format!(", signal {n}"),
            _ => String::new(),
        };
        line(
            at + 2,
            &format!(
                "last termination: exit code {}{signal}, {} at {}",
                t.exit_code,
                t.reason.as_deref().unwrap_or("(no reason)"),
                t.finished_at.as_deref().unwrap_or("(no finishedAt)")
            ),
        );
    }
    if let Some(d) = &c.decision {
        line(at + 2, &format!("kubelet: {} — {}", d.action, d.reason));
    }
    if let Some(b) = &c.crash_loop_back_off {
        let when = match (&b.next_restart_at, b.next_restart_in_seconds) {
            (Some(at), Some(s)) => match &b.next_restart_latest_at {
                Some(latest) => format!(
                    "next restart after {at} ({}) and by {latest}, at the kubelet's next housekeeping (every 2 s)",
                    relative(s)
                ),
                None => format!("next restart at {at} ({})", relative(s)),
            },
            _ => "next restart instant unknown".to_owned(),
        };
        line(
            at + 2,
            &format!(
                "CrashLoopBackOff: wait {} ({:?}) → {when}; a crash right after waits {}",
                secs(b.delay_seconds),
                b.why,
                secs(b.following_delay_seconds)
            ),
        );
    }
}
