//! The Job controller, as a sync: every Pod change of a Job (and every wake-up the controller asked
//! for: pod-failure back-off, activeDeadlineSeconds) runs one `sync_job`, which does what
//! upstream's `syncJob` does (pkg/controller/job/job_controller.go), in its order: count the
//! Pods that finished since the last sync, find the finished condition (FailureTarget or
//! SuccessCriteriaMet), delete the active Pods of a finished Job, or create the missing Pods once
//! the back-off allows; the terminal condition (Failed or Complete) comes only when no Pod of the
//! Job is still terminating. The oracle's timeline leg runs the real controller on the same
//! scenarios (docs/oracle.md).

use super::{Engine, Ev, Obj, PodFailureOutcome, PodState, StatusCounts};
use crate::diag::Diagnostic;
use crate::eval::job::PolicyAction;
use crate::versions::Change;

/// The message of the SuccessCriteriaMet and Complete conditions of a Job that reached its
/// completions (upstream's `newSuccessCondition`).
const COMPLETIONS_REACHED: &str = "Reached expected number of succeeded pods";

impl Engine<'_> {
    /// Asks for a sync of Job `j` at `t` (the earliest asked wins, as the controller's delaying
    /// work queue keeps it).
    pub(super) fn enqueue_job_sync(&mut self, j: usize, t: u64) {
        let Some(job) = self.jobs.get_mut(j) else {
            return;
        };
        if job.sync_at.is_some_and(|at| at <= t && at >= self.now) {
            return;
        }
        job.sync_at = Some(t);
        let jgen = job.creation;
        self.schedule(t, Ev::SyncJob { job: j, jgen });
    }

    pub(super) fn on_sync_event(&mut self, j: usize, jgen: u32) -> Result<(), Diagnostic> {
        let now = self.now;
        match self.jobs.get_mut(j) {
            // Only the Job's one pending entry runs; an event it replaced, or one already run at
            // this instant, is stale.
            Some(job) if job.creation == jgen && job.sync_at == Some(now) => {
                job.sync_at = None;
                job.sync_failed = false;
                job.held = false;
                job.index_waiting = false;
            }
            _ => return Ok(()),
        }
        self.sync_job(j)?;
        self.write_status(j);
        self.collect_job_if_gone(j);
        Ok(())
    }

    /// The end of a sync: its status update (upstream's flushUncountedAndRemoveFinalizers). The
    /// controller writes the Job's status only when something changed, the counts or what the
    /// sync counted, and stores the sync's pod-failure back-off record only then: a failure the
    /// podFailurePolicy ignores, found by a sync that writes nothing, is not remembered (its
    /// finalizer goes all the same). A refused update writes and stores nothing.
    fn write_status(&mut self, j: usize) {
        let counts = self.status_counts(j);
        let Some(job) = self.jobs.get_mut(j) else {
            return;
        };
        if job.sync_failed {
            return;
        }
        // The next sync does not find this one's Pods again: a write stores the record, and a
        // sync that writes nothing removed their finalizers all the same.
        job.unflushed.clear();
        job.sync_errors = 0; // the work queue's Forget
        let changed = std::mem::take(&mut job.status_changed);
        // A Pod update of this instant took its sync as done; this sync is that sync, so it
        // writes if the status differs from what was written before the instant.
        let before = match job.written_before.take() {
            Some((at, before)) if at == self.now => before,
            _ => job.written,
        };
        if changed || counts != before {
            job.written = counts;
            job.stored_backoff = (job.backoff_failures, job.last_failure_ms);
        } else if (job.backoff_failures, job.last_failure_ms) != job.stored_backoff {
            (job.backoff_failures, job.last_failure_ms) = job.stored_backoff;
            // The finalizers the sync removed are Pod updates: the Job syncs again at once, and
            // that sync, from the record without the forgotten failure, asks for an earlier
            // wake-up if its back-off ends sooner.
            let now = self.now;
            self.enqueue_job_sync(j, now);
        }
    }

    /// What a sync of Job `j` writes to status.active, status.ready and status.terminating now:
    /// its Pods neither finished nor being deleted (none, up to 1.35, while the pod-failure
    /// back-off holds a replacement back: see `status_refused_while_held`), the Ready ones among
    /// them, and those being deleted.
    fn status_counts(&self, j: usize) -> StatusCounts {
        let Some(job) = self.jobs.get(j) else {
            return StatusCounts::default();
        };
        let mut counts = StatusCounts::default();
        let mut terminating = 0;
        for p in job.pods.iter().filter_map(|&p| self.pods.get(p)) {
            if !p.alive {
                continue;
            }
            if p.deleting {
                terminating += 1;
                continue;
            }
            counts.active += 1;
            if self.pod_ready(p) {
                counts.ready += 1;
            }
        }
        if job.held && !Change::JobHeldStatusGone.at(self.decider.minor()) {
            counts.active = 0;
        }
        if self.decider.gate("JobPodReplacementPolicy") {
            counts.terminating = Some(terminating);
        }
        counts
    }

    /// Up to 1.35, while the pod-failure back-off holds a replacement back, manageJob reports no
    /// active Pod (it returns 0; 1.36 returns the active count, job_controller.go), so the
    /// status it writes says `active: 0`: with a ready Pod that is `ready > active`, which the
    /// API server refuses ("cannot set more ready pods than active") when JobManagedBy is on. The sync fails, and the
    /// work queue retries it, 1 s after the first failure and doubling (at most 60 s), until the
    /// back-off is over and the sync creates the Pods. Nothing the sync counted is lost (every
    /// retry finds the same finished Pods again, their finalizers still on), so only the
    /// failures themselves and their retries are told. True when this sync is refused.
    fn status_refused_while_held(&mut self, j: usize) -> bool {
        if let Some(job) = self.jobs.get_mut(j) {
            job.held = true;
        }
        // The API server checks ready against active only with JobManagedBy on (beta, on by
        // default from 1.32; pkg/registry/batch/job/strategy.go getStatusValidationOptions).
        if Change::JobHeldStatusGone.at(self.decider.minor()) || !self.decider.gate("JobManagedBy") {
            return false;
        }
        let ready = self.status_counts(j).ready;
        if ready == 0 {
            return false;
        }
        let Some(job) = self.jobs.get_mut(j) else {
            return false;
        };
        job.sync_failed = true;
        if let Some((at, before)) = job.written_before.take()
            && at == self.now
        {
            job.written = before;
        }
        let delay = 1000u64 << job.sync_errors.min(6);
        job.sync_errors = job.sync_errors.saturating_add(1);
        let name = job.name.clone();
        self.record(Obj::Job(j), None, "SyncError", "Invalid", || {
            Some(format!(
                "tracking status: adding uncounted pods to status: Job.batch {name:?} is invalid: status.ready: Invalid value: {ready}: cannot set more ready pods than active"
            ))
        });
        self.enqueue_job_sync(j, self.now + delay.min(60_000));
        true
    }

    /// A Pod of Job `j` changed in a way the kubelet writes to its status (a container started
    /// or stopped): the Job controller's pod handler queues a sync for every such update. Up to
    /// 1.35, while the back-off holds creation back or the Job's syncs keep failing, that sync
    /// is played: it writes `active: 0`, and is refused as soon as a Pod is ready. Otherwise the
    /// sync writes the status counts as they now are and does nothing the timeline shows, unless
    /// a sync of the same instant (the same sync, in the work queue) is refused.
    pub(super) fn pod_status_changed(&mut self, j: usize) {
        let counts = self.status_counts(j);
        let minor = self.decider.minor();
        let now = self.now;
        let Some(job) = self.jobs.get_mut(j) else {
            return;
        };
        if job.phase != "Running" {
            return;
        }
        if !Change::JobHeldStatusGone.at(minor)
            && (job.held || job.index_waiting || job.sync_errors > 0)
        {
            self.enqueue_job_sync(j, now);
        } else {
            if job.written_before.is_none_or(|(at, _)| at != now) {
                job.written_before = Some((now, job.written));
            }
            job.written = counts;
        }
    }

    /// Pod `p` is Ready (the kubelet's PodReady condition, with no probes): Running, every
    /// regular container and every sidecar running.
    pub(super) fn pod_ready(&self, p: &PodState) -> bool {
        let kinds = self
            .templates
            .get(p.tmpl)
            .map(|t| t.kinds.as_slice())
            .unwrap_or(&[]);
        p.phase == "Running"
            && p.node.as_deref().is_none_or(|n| !n.not_ready)
            && p.containers
                .iter()
                .zip(kinds)
                .all(|(c, k)| c.running || *k == super::Kind::Init)
    }

    /// The Pod's podFailurePolicy outcome while it still has its statuses (computed when it
    /// ends, or when a deleted Pod is counted as failed before it ends).
    pub(super) fn pod_failure_outcome(
        &mut self,
        p: usize,
    ) -> Result<PodFailureOutcome, Diagnostic> {
        let fast = self.compiled_pod_failure(p);
        let needs_object =
            cfg!(debug_assertions) || fast.is_none_or(|d| d.action == Some(PolicyAction::FailJob));
        let compiled = fast.map(|d| PodFailureOutcome {
            action: d.action.map(|a| a.name().to_owned()),
            count_failed: d.count_failed,
            message: None,
        });
        if !needs_object && let Some(c) = compiled {
            return Ok(c);
        }
        let Some((j, tmpl)) = self.pods.get(p).and_then(|x| x.job.map(|j| (j, x.tmpl))) else {
            return Ok(PodFailureOutcome {
                action: None,
                count_failed: true,
                message: None,
            });
        };
        if self
            .templates
            .get(tmpl)
            .is_none_or(|t| t.pfp.is_none() && t.job.is_none())
        {
            return Ok(compiled.unwrap_or(PodFailureOutcome {
                action: None,
                count_failed: true,
                message: None,
            }));
        }
        let op = match self.failure_shape(p).map(|shape| {
            let cached = self.decider.cached_pod_failure(tmpl, &shape);
            (shape, cached)
        }) {
            Some((_, Some(o))) => o,
            Some((shape, None)) => {
                let (Some(job), Some(pod)) = (self.job_object(j), self.failed_pod(p)) else {
                    return Ok(compiled.unwrap_or(PodFailureOutcome {
                        action: None,
                        count_failed: true,
                        message: None,
                    }));
                };
                self.decider.pod_failure(tmpl, shape, &job, &pod)
            }
            None => {
                return Ok(compiled.unwrap_or(PodFailureOutcome {
                    action: None,
                    count_failed: true,
                    message: None,
                }));
            }
        };
        if let Some(c) = compiled
            && (c.action != op.action || c.count_failed != op.count_failed)
        {
            return Err(Diagnostic::request(
                "internal",
                "",
                format!(
                    "the compiled podFailurePolicy answered {c:?}, the podFailurePolicy function {op:?}"
                ),
            ));
        }
        Ok(op)
    }

    /// Upstream's syncJob for Job `j` at the current instant.
    pub(super) fn sync_job(&mut self, j: usize) -> Result<(), Diagnostic> {
        let now = self.now;
        let Some(job) = self.jobs.get(j) else {
            return Ok(());
        };
        if job.phase != "Running" {
            return Ok(());
        }
        let tmpl = job.tmpl;
        let Some(t) = self.templates.get(tmpl) else {
            return Ok(());
        };
        let work_queue = t.work_queue;
        let (backoff_limit, per_index, max_failed, only_failed, indexed, completions, parallelism) = (
            t.backoff_limit,
            t.per_index,
            t.max_failed_indexes,
            t.only_replace_failed,
            t.indexed,
            t.completions,
            t.parallelism,
        );
        let deadline_ms = t.active_deadline_ms;

        // 1. The Pods that finished since the last sync (upstream: those still holding the
        // tracking finalizer), in creation order. A deleted Pod counts as failed at once unless
        // podReplacementPolicy is Failed. Pods counted and gone are dropped from the Job's list
        // first, so a sync costs what the Job has running, not its whole history.
        // (Syncs run once per Pod event: this path allocates only for what changed.)
        let pods = &self.pods;
        if let Some(job) = self.jobs.get_mut(j) {
            job.pods
                .retain(|&p| pods.get(p).is_some_and(|x| x.alive || !x.counted));
            job.finish_deferred = false;
        }
        self.retire_replaced_pods(j);
        // Upstream counts the terminating Pods once, at the start of the sync
        // (job_controller.go 1.37.2:1046, jobCtx.terminating): one this sync lets go (a lost
        // node's Pod deleted without a grace period, once its finalizer is dropped) still holds
        // the Job's Failed or Complete condition back until the next sync.
        let terminating_at_start = self.terminating_pods(j);
        let mut new_succeeded: Vec<usize> = Vec::new();
        let mut new_failed: Vec<usize> = Vec::new();
        let n_pods = self.jobs.get(j).map_or(0, |x| x.pods.len());
        for k in 0..n_pods {
            let Some(p) = self.jobs.get(j).and_then(|x| x.pods.get(k)).copied() else {
                continue;
            };
            let Some(pod) = self.pods.get(p) else {
                continue;
            };
            if pod.counted {
                continue;
            }
            if pod.phase == "Succeeded" {
                new_succeeded.push(p);
            } else if pod.phase == "Failed" || (pod.deleting && !only_failed) {
                new_failed.push(p);
            }
        }
        let mut fail_job_message = None;
        let mut outcomes = Vec::with_capacity(new_failed.len());
        for &p in &new_failed {
            let o = match self.pods.get_mut(p).and_then(|x| x.outcome.take()) {
                Some(o) => o,
                None => self.pod_failure_outcome(p)?,
            };
            if fail_job_message.is_none() && o.action.as_deref() == Some("FailJob") {
                fail_job_message = Some(o.message.clone().unwrap_or_default());
            }
            outcomes.push(o);
        }

        // The pod-failure back-off record (upstream's newBackoffRecord): failures since the
        // last success, and the last failure's finish time, from the stored record and the
        // Pods found since it was stored (this sync's, and those of refused syncs before it).
        let found: Vec<(bool, u64)> = new_succeeded
            .iter()
            .map(|&p| (true, self.finish_ms(p)))
            .chain(new_failed.iter().map(|&p| (false, self.finish_ms(p))))
            .collect();
        let Some(job) = self.jobs.get_mut(j) else {
            return Ok(());
        };
        job.unflushed.extend(found);
        let last_success = job.unflushed.iter().filter(|f| f.0).map(|f| f.1).max();
        // Failures that count for the record: all of them, or those after the last success.
        let (mut n_failures, mut last_failure) = (0u32, None::<u64>);
        for &(_, f) in job.unflushed.iter().filter(|f| !f.0) {
            if last_success.is_none_or(|ls| f > ls) {
                n_failures += 1;
                last_failure = Some(last_failure.map_or(f, |l| l.max(f)));
            }
        }
        let (stored_failures, stored_last) = job.stored_backoff;
        if last_success.is_some() {
            job.backoff_failures = n_failures;
            job.last_failure_ms = last_failure;
        } else if let Some(last) = last_failure {
            job.backoff_failures = stored_failures + n_failures;
            job.last_failure_ms = Some(last);
        } else {
            (job.backoff_failures, job.last_failure_ms) = (stored_failures, stored_last);
        }

        // Count them: succeeded indexes (or slots), failures the policy counts, failed indexes.
        for &p in &new_succeeded {
            let index = self.pods.get(p).map_or(0, |x| x.index);
            if let Some(pod) = self.pods.get_mut(p) {
                pod.counted = true;
            }
            let Some(job) = self.jobs.get_mut(j) else {
                return Ok(());
            };
            // A success is news for the status (uncountedTerminatedPods, completedIndexes)
            // unless its index had succeeded before.
            if !indexed {
                job.status_changed = true;
            }
            if let Some(ix) = job.indexes.get_mut(index as usize)
                && !ix.done
            {
                ix.done = true;
                job.succeeded += 1;
                job.status_changed = true;
            }
            if let Some(ix) = job.indexes.get_mut(index as usize)
                && ix.active == Some(p)
            {
                ix.active = None;
            }
        }
        for (&p, o) in new_failed.iter().zip(&outcomes) {
            let index = self.pods.get(p).map_or(0, |x| x.index);
            let fin = self.finish_ms(p);
            if let Some(pod) = self.pods.get_mut(p) {
                pod.counted = true;
            }
            self.finalizer_gone_on_lost_node(p);
            let action = o.action.as_deref().unwrap_or("Count");
            self.record(Obj::Job(j), None, "PodFailed", action, || o.message.clone());
            let Some(job) = self.jobs.get_mut(j) else {
                return Ok(());
            };
            if o.count_failed {
                job.failed += 1;
                job.status_changed = true;
            }
            if let Some(ix) = job.indexes.get_mut(index as usize) {
                if ix.active == Some(p) {
                    ix.active = None;
                }
                if o.count_failed {
                    ix.failure_count += 1;
                } else {
                    ix.ignored += 1;
                }
                ix.last_finish_ms = Some(fin);
                ix.last_failed = Some(p);
                if let Some(limit) = per_index
                    && !ix.failed
                    && !ix.done
                    && (action == "FailIndex"
                        || (o.count_failed && i64::from(ix.failure_count) > limit))
                {
                    ix.failed = true;
                    job.failed_indexes += 1;
                    job.status_changed = true;
                }
            }
        }

        // A Job being deleted drops the tracking finalizer of every Pod it has (upstream
        // `canRemoveFinalizer`: the whole Job is terminating): a Pod not counted now (one still
        // running when podReplacementPolicy is Failed) is never counted.
        if self.jobs.get(j).is_some_and(|x| x.deleting) {
            let pods: Vec<usize> = self.jobs.get(j).map(|x| x.pods.clone()).unwrap_or_default();
            for p in pods {
                if let Some(pod) = self.pods.get_mut(p) {
                    pod.counted = true;
                }
                self.finalizer_gone_on_lost_node(p);
            }
        }

        if self.terminating_pods(j) < terminating_at_start
            && let Some(job) = self.jobs.get_mut(j)
        {
            // The Pod's removal makes the Job sync again at this instant (unless the garbage
            // collector removes a Job in deletion first, as it does when that was its last Pod).
            job.finish_deferred = true;
            self.enqueue_job_sync(j, now);
        }

        // 2. The finished condition, in upstream's order.
        let Some(job) = self.jobs.get(j) else {
            return Ok(());
        };
        let start = job.start_ms;
        let mut new_failure: Option<(String, String)> = None;
        let mut new_success: Option<(String, String)> = None;
        if job.success_target.is_none() && job.failure_target.is_none() {
            if let Some(msg) = fail_job_message {
                new_failure = Some(("PodFailurePolicy".into(), msg));
            } else if i64::from(job.failed) > backoff_limit || self.past_backoff_limit_on_failure(j)
            {
                new_failure = Some((
                    "BackoffLimitExceeded".into(),
                    "Job has reached the specified backoff limit".into(),
                ));
            } else if deadline_ms.is_some_and(|d| now.saturating_sub(start) >= d) {
                new_failure = Some((
                    "DeadlineExceeded".into(),
                    "Job was active longer than specified deadline".into(),
                ));
            } else if let Some(d) = deadline_ms {
                self.enqueue_job_sync(j, start + d);
            }
            let Some(job) = self.jobs.get(j) else {
                return Ok(());
            };
            let finished = job.indexes.iter().filter(|i| i.done || i.failed).count() as u32;
            if new_failure.is_none() && per_index.is_some() {
                if max_failed.is_some_and(|m| i64::from(job.failed_indexes) > m) {
                    new_failure = Some((
                        "MaxFailedIndexesExceeded".into(),
                        "Job has exceeded the specified maximal number of failed indexes".into(),
                    ));
                } else if job.failed_indexes > 0 && finished >= completions {
                    new_failure = Some(("FailedIndexes".into(), "Job has failed indexes".into()));
                }
            }
            if new_failure.is_none()
                && indexed
                && let Some(msg) = self.success_policy_met(j)
            {
                new_success = Some(("SuccessPolicy".into(), msg));
            }
        }
        if let Some((reason, message)) = new_failure {
            return self.fail_job(j, &reason, message);
        }
        if let Some((reason, message)) = new_success {
            return self.succeed_job(j, &reason, message);
        }
        let Some(job) = self.jobs.get(j) else {
            return Ok(());
        };
        if job.failure_target.is_some() || job.success_target.is_some() {
            // Waiting for the deleted Pods to terminate.
            return self.finish_when_terminated(j);
        }

        // 3. manageJob: delete Pods beyond what is wanted, or create the missing ones — not
        // for a Job being deleted (upstream: `job.DeletionTimestamp == nil`).
        if job.deleting {
            return self.check_complete(j);
        }
        let n_active = job.indexes.iter().filter(|ix| ix.active.is_some()).count() as u32;
        let terminating = self.terminating_pods(j);
        let want = if !work_queue {
            completions.saturating_sub(job.succeeded).min(parallelism)
        } else if job.succeeded > 0 {
            // Once a Pod of a work queue succeeded, the others run out; none is added.
            n_active
        } else {
            parallelism
        };
        if n_active > want {
            // Upstream removes the newest first among equals (controller.ActivePods order).
            let mut rm: Vec<usize> = job.indexes.iter().filter_map(|ix| ix.active).collect();
            rm.sort_unstable_by_key(|&p| {
                std::cmp::Reverse(self.pods.get(p).map_or(0, |x| x.created))
            });
            rm.truncate((n_active - want) as usize);
            for p in rm {
                self.delete_pod(p);
            }
            return self.check_complete(j);
        }
        let busy_terminating = if only_failed { terminating } else { 0 };
        let diff = want.saturating_sub(busy_terminating + n_active);
        if diff > 0 {
            if per_index.is_none() {
                let remaining = self.job_backoff_remaining(j)?;
                if remaining > 0 {
                    self.enqueue_job_sync(j, now + remaining);
                    if self.status_refused_while_held(j) {
                        return Ok(());
                    }
                    return self.check_complete(j);
                }
            }
            let terminating_indexes: Vec<u32> = if only_failed {
                self.terminating_indexes(j)
            } else {
                Vec::new()
            };
            let Some(job) = self.jobs.get(j) else {
                return Ok(());
            };
            let mut pending: Vec<u32> = job
                .indexes
                .iter()
                .enumerate()
                .filter(|(i, ix)| {
                    !ix.done
                        && !ix.failed
                        && ix.active.is_none()
                        && !terminating_indexes.contains(&(*i as u32))
                })
                .map(|(i, _)| i as u32)
                .take(diff as usize)
                .collect();
            if per_index.is_some() {
                let mut ready = Vec::new();
                let mut soonest: Option<u64> = None;
                for &i in &pending {
                    let r = self.index_backoff_remaining(j, i)?;
                    if r == 0 {
                        ready.push(i);
                    } else {
                        soonest = Some(soonest.map_or(r, |s: u64| s.min(r)));
                    }
                }
                // Upstream asks for the wake-up of an index still in its back-off only when no
                // index is ready; creating the ready ones makes it sync again at once, and that
                // sync asks for it: the same wake-up, without the extra sync.
                if let Some(r) = soonest {
                    self.enqueue_job_sync(j, now + r);
                    if let Some(job) = self.jobs.get_mut(j) {
                        job.index_waiting = true;
                    }
                }
                if ready.is_empty() {
                    // Held back only when an index waits for its back-off (none pending: no
                    // hold, and the status written is right).
                    if soonest.is_some() && self.status_refused_while_held(j) {
                        return Ok(());
                    }
                    return self.check_complete(j);
                }
                pending = ready;
            }
            for index in pending {
                self.create_job_pod(j, index);
            }
            // The new Pods' add events queue a sync at once; up to 1.35 it is played when an
            // index still waits for its back-off (it holds, and its status may be refused).
            if !Change::JobHeldStatusGone.at(self.decider.minor())
                && self.jobs.get(j).is_some_and(|x| x.index_waiting)
            {
                self.enqueue_job_sync(j, now);
            }
        }
        self.check_complete(j)
    }

    /// Completions reached with no active Pod: SuccessCriteriaMet and Complete.
    fn check_complete(&mut self, j: usize) -> Result<(), Diagnostic> {
        let Some(job) = self.jobs.get(j) else {
            return Ok(());
        };
        let completions = job.indexes.len() as u32;
        let active = job.indexes.iter().any(|i| i.active.is_some());
        let work_queue = self.templates.get(job.tmpl).is_some_and(|t| t.work_queue);
        let done = if work_queue {
            job.succeeded > 0
        } else {
            job.succeeded >= completions
        };
        if done && !active {
            return self.succeed_job(j, "CompletionsReached", COMPLETIONS_REACHED.into());
        }
        Ok(())
    }

    /// Upstream's pastBackoffLimitOnFailure: restartPolicy OnFailure Pods whose restarts reach
    /// backoffLimit (any restart when it is 0).
    fn past_backoff_limit_on_failure(&self, j: usize) -> bool {
        let Some(job) = self.jobs.get(j) else {
            return false;
        };
        let Some(t) = self.templates.get(job.tmpl) else {
            return false;
        };
        if !t.on_failure {
            return false;
        }
        let restarts: i64 = job
            .pods
            .iter()
            .filter_map(|&p| self.pods.get(p))
            .filter(|p| p.phase == "Running" || p.phase == "Pending")
            .flat_map(|p| p.containers.iter())
            .map(|c| i64::from(c.restart_count))
            .sum();
        if t.backoff_limit == 0 {
            restarts > 0
        } else {
            restarts >= t.backoff_limit
        }
    }

    fn job_backoff_remaining(&mut self, j: usize) -> Result<u64, Diagnostic> {
        let Some(job) = self.jobs.get(j) else {
            return Ok(0);
        };
        let (failures, last) = (job.backoff_failures, job.last_failure_ms);
        let Some(last) = last else {
            return Ok(0);
        };
        let backoff = self.decider.job_backoff_ms(failures);
        Ok((last + backoff).saturating_sub(self.now))
    }

    fn index_backoff_remaining(&mut self, j: usize, index: u32) -> Result<u64, Diagnostic> {
        let Some(ix) = self.jobs.get(j).and_then(|x| x.indexes.get(index as usize)) else {
            return Ok(0);
        };
        let Some(mut last) = ix.last_finish_ms else {
            return Ok(0);
        };
        if let Some(p) = ix.last_failed
            && self.pods.get(p).is_some_and(|x| x.job == Some(j) && x.index == index)
        {
            last = self.finish_ms(p);
        }
        let backoff = self.decider.job_backoff_ms(ix.failure_count + ix.ignored);
        Ok((last + backoff).saturating_sub(self.now))
    }

    fn success_policy_met(&self, j: usize) -> Option<String> {
        let job = self.jobs.get(j)?;
        let rules = &self.templates.get(job.tmpl)?.success_rules;
        let succeeded: Vec<u32> = job
            .indexes
            .iter()
            .enumerate()
            .filter(|(_, i)| i.done)
            .map(|(n, _)| n as u32)
            .collect();
        if succeeded.is_empty() {
            return None;
        }
        rules.iter().enumerate().find_map(|(n, r)| {
            let met = match &r.indexes {
                Some(required) => {
                    let total: u32 = required.iter().map(|(a, b)| b - a + 1).sum();
                    let contains = succeeded
                        .iter()
                        .filter(|&&i| required.iter().any(|&(a, b)| a <= i && i <= b))
                        .count() as u32;
                    contains == total || r.count.is_some_and(|c| contains >= c)
                }
                None => r.count.is_some_and(|c| succeeded.len() as u32 >= c),
            };
            met.then(|| format!("Matched rules at index {n}"))
        })
    }

    fn terminating_pods(&self, j: usize) -> u32 {
        self.jobs.get(j).map_or(0, |job| {
            job.pods
                .iter()
                .filter_map(|&p| self.pods.get(p))
                .filter(|p| p.deleting && p.alive)
                .count() as u32
        })
    }

    fn terminating_indexes(&self, j: usize) -> Vec<u32> {
        self.jobs.get(j).map_or(Vec::new(), |job| {
            job.pods
                .iter()
                .filter_map(|&p| self.pods.get(p))
                .filter(|p| p.deleting && p.alive)
                .map(|p| p.index)
                .collect()
        })
    }

    /// The controller deletes Pod `p`: it is terminating until its grace period is over (the
    /// kubelet then kills what still runs); a Pod no container ever started goes at once.
    pub(super) fn delete_pod(&mut self, p: usize) {
        self.delete_pod_by(p, Deleter::Controller);
    }

    /// Pod `p` is deleted by `by`. Without a grace period a controller's delete (the Job's, the
    /// garbage collector's) removes the Pod once its finalizer is dropped, before the kubelet
    /// reports a phase; a preemption's or an eviction's leaves the live Job's finalizer on it,
    /// so the kubelet first kills it and reports it Failed.
    pub(super) fn delete_pod_by(&mut self, p: usize, by: Deleter) {
        let now = self.now;
        let Some(pod) = self.pods.get_mut(p) else {
            return;
        };
        if !pod.alive || pod.deleting {
            return;
        }
        pod.deleting = true;
        let (tmpl, pgen) = (pod.tmpl, pod.epoch);
        if let Some(job) = pod.job.and_then(|j| self.jobs.get_mut(j))
            && let Some(ix) = job.indexes.get_mut(pod.index as usize)
            && ix.active == Some(p)
        {
            ix.active = None;
        }
        self.record(Obj::Pod(p), None, "Deleted", "Terminating", || None);
        let grace = self.templates.get(tmpl).map_or(30_000, |t| t.grace_ms);
        // No kubelet finishes a graceful deletion on a lost node: the Pod stays Terminating
        // until Pod GC fails it. Without a grace period the API server removes it once its
        // finalizers are gone: a bare Pod at once (below), a Job's Pod when the Job controller
        // has counted it and dropped its finalizer (Pod GC, earlier in the instant, may fail
        // it first).
        let mut stays = false;
        if let Some(pod) = self.pods.get_mut(p)
            && let Some(n) = pod.node.as_deref_mut()
        {
            n.deleted_at = Some(now);
            stays = grace > 0 || pod.job.is_some();
        }
        if stays {
            self.lost_pod_deleted(p);
            if let Some(j) = self.pods.get(p).and_then(|x| x.job) {
                self.enqueue_job_sync(j, now);
            }
            return;
        }
        if grace == 0 && by == Deleter::Controller {
            // Deleted without a grace period: the API server removes it at once (once the
            // controller has dropped its finalizer), before the kubelet reports a phase.
            self.kill_pod(p);
            if let Some(pod) = self.pods.get_mut(p) {
                pod.phase = "Deleted";
                pod.finished_ms = now;
            }
            return;
        }
        // Running containers get the grace period; a Pod with none running (not started yet, or
        // waiting in CrashLoopBackOff) has nothing for the kubelet to stop and ends at once.
        let running = self
            .pods
            .get(p)
            .is_some_and(|x| x.containers.iter().any(|c| c.running));
        // Until the kubelet ends it, a Job that counts the deleted Pod as failed reads its
        // finish time from the deletion (getFinishedTime: no container has terminated, Ready
        // is still True, so deletionTimestamp − grace period), for its pod-failure back-off.
        if let Some(pod) = self.pods.get_mut(p) {
            pod.finished_ms = now;
        }
        let at = if running { now + grace } else { now };
        self.schedule(at, Ev::Kill { pod: p, pgen });
    }

    /// The grace period of a deleted Pod is over: the kubelet kills its containers (137).
    pub(super) fn on_kill(&mut self, p: usize, pgen: u32) -> Result<(), Diagnostic> {
        let Some(pod) = self.pods.get_mut(p) else {
            return Ok(());
        };
        if !pod.alive || pod.epoch != pgen {
            return Ok(());
        }
        for ct in pod.containers.iter_mut() {
            if ct.running {
                ct.last_exit = Some(137);
            }
            ct.running = false;
            ct.pending_start = false;
        }
        self.summary.container_exits += 1;
        self.pod_terminal(p, "Failed", Some("Killed"))
    }

    fn create_job_pod(&mut self, j: usize, index: u32) {
        let now = self.now;
        let Some(job) = self.jobs.get_mut(j) else {
            return;
        };
        let Some(ix) = job.indexes.get(index as usize) else {
            return;
        };
        let (replacement, waited_since) = (ix.started, ix.last_finish_ms);
        let name = format!("{}-{index}-{}", job.name, job.pods_created);
        job.pods_created += 1;
        let tmpl = job.tmpl;
        // A replacement starts podRescheduleSeconds after its creation.
        let start_at = if replacement {
            self.summary.pods_replaced += 1;
            now + self.reschedule_ms
        } else {
            now
        };
        if let Some(since) = waited_since {
            self.lose(1, since, start_at + self.startup_ms);
        }
        let p = self.new_pod(tmpl, Some(j), index, name, start_at);
        self.set_newest_pod(j, index, p);
        if let Some(job) = self.jobs.get_mut(j) {
            job.pods.push(p);
            job.all_pods.push(p);
            job.pods_left += 1;
            if let Some(ix) = job.indexes.get_mut(index as usize) {
                ix.active = Some(p);
                ix.started = true;
            }
        }
    }

    /// FailureTarget: the Job will fail; its active Pods are deleted (and counted as failed);
    /// the Failed condition waits until none is terminating.
    pub(super) fn fail_job(
        &mut self,
        j: usize,
        reason: &str,
        message: String,
    ) -> Result<(), Diagnostic> {
        let active: Vec<usize> = match self.jobs.get_mut(j) {
            Some(job) if job.phase == "Running" && job.failure_target.is_none() => {
                job.failure_target = Some((reason.to_owned(), message.clone()));
                job.status_changed = true;
                job.indexes.iter().filter_map(|i| i.active).collect()
            }
            _ => return Ok(()),
        };
        self.record(Obj::Job(j), None, "FailureTarget", reason, || {
            Some(message.clone())
        });
        for p in active {
            // "When the job is considered finished, every non-terminated pod is considered failed."
            let counts = self.pod_failure_outcome(p)?.count_failed;
            if let Some(pod) = self.pods.get_mut(p) {
                pod.counted = true;
            }
            if counts && let Some(job) = self.jobs.get_mut(j) {
                job.failed += 1;
            }
            self.delete_pod(p);
        }
        // ... also one still terminating that was not counted (on a lost node, waiting for a
        // Failed phase), and every Pod's finalizer goes.
        self.count_terminating_at_finish(j, true)?;
        self.finish_when_terminated(j)
    }

    /// SuccessCriteriaMet: the Job will complete; its active Pods are deleted; Complete waits
    /// until none is terminating.
    fn succeed_job(&mut self, j: usize, reason: &str, message: String) -> Result<(), Diagnostic> {
        let active: Vec<usize> = match self.jobs.get_mut(j) {
            Some(job) if job.phase == "Running" && job.success_target.is_none() => {
                job.success_target = Some((reason.to_owned(), message.clone()));
                job.status_changed = true;
                job.indexes.iter().filter_map(|i| i.active).collect()
            }
            _ => return Ok(()),
        };
        self.record(Obj::Job(j), None, "SuccessCriteriaMet", reason, || {
            Some(message.clone())
        });
        for p in active {
            if let Some(pod) = self.pods.get_mut(p) {
                pod.counted = true;
            }
            self.delete_pod(p);
        }
        self.count_terminating_at_finish(j, false)?;
        self.finish_when_terminated(j)
    }

    /// The Job has its finished condition: the controller removes every Pod's tracking
    /// finalizer (`canRemoveFinalizer`), counting a terminating Pod it had not counted as
    /// failed when the Job fails (job_controller.go 1.37.2:1359-1360). A Pod deleted without a
    /// grace period on a lost node then goes.
    fn count_terminating_at_finish(&mut self, j: usize, failing: bool) -> Result<(), Diagnostic> {
        // The sync counted the terminating Pods before it removed finalizers: one that goes
        // now is gone for the next sync, which the deletion triggers at this instant (one that
        // went earlier in the sync deferred the finish already).
        let terminating_before = self.terminating_pods(j);
        let pods: Vec<usize> = self.jobs.get(j).map(|x| x.pods.clone()).unwrap_or_default();
        for p in pods {
            let uncounted = self
                .pods
                .get(p)
                .is_some_and(|x| x.alive && x.deleting && !x.counted);
            if uncounted {
                let counts = failing && self.pod_failure_outcome(p)?.count_failed;
                if let Some(pod) = self.pods.get_mut(p) {
                    pod.counted = true;
                }
                if counts && let Some(job) = self.jobs.get_mut(j) {
                    job.failed += 1;
                    job.status_changed = true;
                }
            }
            self.finalizer_gone_on_lost_node(p);
        }
        if self.terminating_pods(j) < terminating_before
            && let Some(job) = self.jobs.get_mut(j)
        {
            job.finish_deferred = true;
            self.enqueue_job_sync(j, self.now);
        }
        Ok(())
    }

    /// A Pod on a lost node deleted without a grace period goes once its finalizer is gone.
    fn finalizer_gone_on_lost_node(&mut self, p: usize) {
        let now = self.now;
        let gone = self.pods.get(p).is_some_and(|x| {
            x.alive
                && x.deleting
                && x.counted
                && x.node.is_some()
                && self.templates.get(x.tmpl).is_some_and(|t| t.grace_ms == 0)
        });
        if gone {
            self.kill_pod(p);
            if let Some(pod) = self.pods.get_mut(p) {
                pod.phase = "Deleted";
                pod.finished_ms = now;
            }
        }
    }

    /// Failed or Complete, once no Pod of the Job is terminating.
    fn finish_when_terminated(&mut self, j: usize) -> Result<(), Diagnostic> {
        if let Some(job) = self.jobs.get_mut(j)
            && std::mem::take(&mut job.finish_deferred)
        {
            return Ok(());
        }
        if self.terminating_pods(j) > 0 {
            return Ok(());
        }
        let Some(job) = self.jobs.get_mut(j) else {
            return Ok(());
        };
        if let Some((reason, message)) = job.failure_target.clone() {
            job.phase = "Failed";
            job.reason = Some(reason.clone());
            job.message = Some(message.clone());
            self.summary.job_failures += 1;
            let m = message.clone();
            let deleting = job.deleting;
            job.failed_ms = self.now;
            self.record(Obj::Job(j), None, "Failed", &reason, || Some(m));
            // A Job of an earlier run (being deleted) is no longer the JobSet's concern.
            if !deleting {
                self.enqueue_jobset_reconcile();
            }
        } else if let Some((reason, message)) = job.success_target.clone() {
            job.phase = "Complete";
            job.reason = Some(reason.clone());
            job.message = Some(message.clone());
            let deleting = job.deleting;
            self.record(Obj::Job(j), None, "Complete", &reason, || Some(message));
            if !deleting {
                self.enqueue_jobset_reconcile();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::success_rule::parse_indexes;

    #[test]
    fn succeeded_indexes_parse_as_upstream_intervals() {
        assert_eq!(parse_indexes("0", 4), Some(vec![(0, 0)]));
        assert_eq!(parse_indexes("3,0-1,2", 4), Some(vec![(0, 3)]));
        assert_eq!(parse_indexes("1-9", 4), Some(vec![(1, 3)]));
        assert_eq!(parse_indexes("7", 4), None);
        assert_eq!(parse_indexes("x", 4), None);
    }
}

/// Who deletes a Pod (`Engine::delete_pod_by`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Deleter {
    /// The Job controller or the garbage collector.
    Controller,
    /// The scheduler's preemption or the Eviction API.
    Disruption,
}
