//! The JobSet controller: the success and failure policies over the Jobs' conditions, deleting
//! and recreating the Jobs of a restart, and freeing the Jobs that are gone.

use super::*;

impl Engine<'_> {
    pub(super) fn jobset_name(&self) -> String {
        format!(
            "jobset/{}/{}",
            self.namespace(),
            self.sc
                .workload
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("")
        )
    }

    /// A Job of the JobSet completed: the JobSet completes when its success policy is met
    /// (upstream `executeSuccessPolicy`): with operator `All`, every Job of this run of the
    /// targeted replicatedJobs (all when none is named) is complete; with `Any`, one is.
    /// A Job of the JobSet finished: its controller reconciles after the Job syncs of this
    /// instant.
    pub(super) fn enqueue_jobset_reconcile(&mut self) {
        if self.jobset.is_none() || self.js_reconcile_at == Some(self.now) {
            return;
        }
        self.js_reconcile_at = Some(self.now);
        self.schedule(self.now, Ev::ReconcileJobSet);
    }

    /// The JobSet controller's reconcile (jobset_controller.go `reconcile`): the failure policy
    /// when a Job of this run has failed, else the success policy when one has completed.
    pub(super) fn reconcile_jobset(&mut self) -> Result<(), Diagnostic> {
        self.js_reconcile_at = None;
        if self.js_phase != "Running" {
            return Ok(());
        }
        // Jobs of an earlier run (restart-attempt label below status.restarts) or restarted by
        // RestartJob are deleted first (`deleteJobs(ownedJobs.previous)`); the garbage
        // collector acts on them once this reconcile is over.
        let previous: Vec<usize> = self
            .live_jobs
            .iter()
            .copied()
            .filter(|&x| {
                self.jobs.get(x).is_some_and(|y| {
                    self.marked_for_recreation(y) && !y.deleting && y.phase != "Deleted"
                })
            })
            .collect();
        let mut deleted = Vec::with_capacity(previous.len());
        for x in previous {
            if self.delete_job(x) {
                deleted.push(x);
            }
        }
        let r = self.reconcile_policies();
        for x in deleted {
            self.collect_pods_of(x);
        }
        r
    }

    /// The rest of a reconcile: the failure policy, else the success policy, else the missing
    /// Jobs.
    pub(super) fn reconcile_policies(&mut self) -> Result<(), Diagnostic> {
        // Upstream lists the Jobs by name (the fake API's order; a cluster's cache has none).
        let mut failed: Vec<usize> = self
            .live_jobs
            .iter()
            .copied()
            .filter(|&x| {
                self.jobs
                    .get(x)
                    .is_some_and(|y| y.epoch == self.attempt && !y.deleting && y.phase == "Failed")
            })
            .collect();
        failed.sort_by(|a, b| {
            let name = |x: &usize| self.jobs.get(*x).map(|y| y.name.as_str());
            name(a).cmp(&name(b))
        });
        if !failed.is_empty() {
            // The status update (a restart, or the JobSet's end) makes it reconcile again.
            self.jobset_jobs_failed(&failed)?;
            self.enqueue_jobset_reconcile();
            return Ok(());
        }
        if !self.jobset_success_policy() {
            self.create_missing_jobs();
        }
        Ok(())
    }

    /// Whether the JobSet completed.
    pub(super) fn jobset_success_policy(&mut self) -> bool {
        let Some(js) = self.jobset.as_ref() else {
            return false;
        };
        let policy = js.spec.success_policy.as_ref();
        let any = policy
            .and_then(|p| p.get("operator"))
            .and_then(Value::as_str)
            == Some("Any");
        let targets: Vec<&str> = policy
            .and_then(|p| p.get("targetReplicatedJobs"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let targeted =
            |rj: Option<&str>| targets.is_empty() || rj.is_some_and(|r| targets.contains(&r));
        let succeeded = self
            .live_jobs
            .iter()
            .filter_map(|&x| self.jobs.get(x))
            .filter(|x| x.epoch == self.attempt && !x.deleting && x.phase == "Complete")
            .filter(|x| {
                targeted(
                    self.templates
                        .get(x.tmpl)
                        .and_then(|t| t.replicated_job.as_deref()),
                )
            })
            .count() as u64;
        let expected: u64 = if any {
            1
        } else {
            self.templates
                .iter()
                .filter(|t| targeted(t.replicated_job.as_deref()))
                .map(|t| u64::from(t.replicas))
                .sum()
        };
        if succeeded >= expected {
            self.js_phase = "Completed";
            self.js_reason = Some("AllJobsCompleted".into());
            self.js_message = Some("jobset completed successfully".into());
            self.record(Obj::JobSet, None, "Completed", "AllJobsCompleted", || {
                Some("jobset completed successfully".into())
            });
            return true;
        }
        false
    }

    /// The failure policy for the failed Jobs `failed` of this run (in upstream's list order),
    /// each with its Failed condition and the time it got it.
    pub(super) fn jobset_jobs_failed(&mut self, failed: &[usize]) -> Result<(), Diagnostic> {
        let mut failed_jobs = Vec::with_capacity(failed.len());
        for &x in failed {
            let (Some(mut job), Some(state)) = (self.job_object(x), self.jobs.get(x)) else {
                continue;
            };
            job.status = Some(JobStatus {
                failed: Some(i32::try_from(state.failed).unwrap_or(i32::MAX)),
                conditions: vec![Condition {
                    type_: "Failed".into(),
                    status: "True".into(),
                    reason: state.reason.clone(),
                    message: state.message.clone(),
                    last_transition_time: Some(condition_time(state.failed_ms)),
                    ..Default::default()
                }],
                ..Default::default()
            });
            failed_jobs.push(job);
        }
        // The controller computes a replicatedJobsStatus entry for every replicatedJob before its
        // failure policy runs, keeping the per-Job restart counters.
        let rj_status: Vec<ReplicatedJobStatus> = self
            .templates
            .iter()
            .filter_map(|t| t.replicated_job.as_deref())
            .map(|name| {
                self.js_rj_status
                    .iter()
                    .find(|e| e.name == name)
                    .cloned()
                    .unwrap_or_else(|| ReplicatedJobStatus {
                        name: name.to_owned(),
                        ..Default::default()
                    })
            })
            .collect();
        let Some(mut js) = self.jobset.clone() else {
            return Ok(());
        };
        js.status = Some(crate::api::JobSetStatus {
            restarts: i32::try_from(self.js_restarts).unwrap_or(i32::MAX),
            restarts_count_towards_max: i32::try_from(self.js_restarts_towards_max)
                .unwrap_or(i32::MAX),
            replicated_jobs_status: rj_status,
            ..Default::default()
        });
        let r = self.decider.jobset(&js, &failed_jobs)?;
        let action = r.action.clone().unwrap_or_default();
        let is_true = |c: &&Condition, type_: &str| c.type_ == type_ && c.status == "True";
        if let Some(c) = r.conditions.iter().find(|c| is_true(c, "Failed")) {
            self.js_phase = "Failed";
            self.js_reason = c.reason.clone();
            self.js_message = c.message.clone();
            let (reason, msg) = (
                self.js_reason.clone().unwrap_or_default(),
                self.js_message.clone(),
            );
            self.record(Obj::JobSet, None, "Failed", &reason, || msg);
            for p in 0..self.pods.len() {
                if self.pods.get(p).is_some_and(|x| x.alive) {
                    self.kill_pod(p);
                }
            }
            return Ok(());
        }
        let st = &r.jobset_status;
        self.js_restarts = i64::from(st.restarts);
        self.js_restarts_towards_max = i64::from(st.restarts_count_towards_max);
        // (An empty list is absent from the op's answer and left the counters as they were.)
        if !st.replicated_jobs_status.is_empty() {
            self.js_rj_status = st.replicated_jobs_status.clone();
        }
        // The Restarting condition the step set (reason FailurePolicy_<rule> or
        // DefaultFailurePolicy) is the event; RestartJob actions set none.
        let restarting = r
            .conditions
            .iter()
            .find(|c| is_true(c, crate::eval::jobset::CONDITION_RESTARTING));
        let (reason, msg) = match restarting {
            Some(c) => (
                c.reason.clone().unwrap_or_else(|| action.clone()),
                c.message.clone(),
            ),
            None => (action.clone(), r.events.first().map(|e| e.message.clone())),
        };
        let event = if restarting.is_some() {
            "Restarting"
        } else {
            action.as_str()
        };
        self.record(Obj::JobSet, None, event, &reason, || msg);
        match action.as_str() {
            "RestartJob" | "RestartJobAndIgnoreMaxRestarts" => {
                // Only the matched failed Job is deleted, and created again once it is gone.
                self.summary.job_restarts += 1;
                let matched = r.matched_job.as_deref();
                let j = failed
                    .iter()
                    .copied()
                    .find(|&x| self.jobs.get(x).map(|y| y.name.as_str()) == matched);
                // Its job-restart-attempt label is now below the target: the next reconcile
                // deletes it.
                if let Some(job) = j.and_then(|j| self.jobs.get_mut(j)) {
                    job.restart_pending = true;
                }
            }
            _ => {
                // RestartJobSet(…): the Jobs of the run now have a restart-attempt label below
                // status.restarts; the next reconcile deletes them, finished ones included.
                self.summary.jobset_restarts += 1;
                self.attempt += 1;
            }
        }
        Ok(())
    }

    /// The JobSet controller deletes Job `j` with foreground propagation: the garbage collector
    /// deletes its Pods — finished ones at once, running ones each with its grace period (the
    /// kubelet kills what still runs at its end; one with nothing running ends at once) — and
    /// the Job goes when none is left (`collect_job_if_gone`), to be created again.
    /// (`delete_job` marks the Job deleted; `collect_pods_of` is the collector's part, which
    /// acts once the controller's reconcile is over.)
    pub(super) fn delete_job(&mut self, j: usize) -> bool {
        match self.jobs.get_mut(j) {
            Some(job) if !job.deleting => {
                job.deleting = true;
                job.deleted_ms = self.now;
                job.recreate_when_gone = true;
                self.awaiting_recreation.push(j);
            }
            _ => return false,
        };
        self.record(Obj::Job(j), None, "Deleted", "Deleting", || None);
        true
    }

    pub(super) fn collect_pods_of(&mut self, j: usize) {
        let now = self.now;
        let pods = self
            .jobs
            .get(j)
            .map(|x| x.all_pods.clone())
            .unwrap_or_default();
        // The retired Pods (ended and replaced, their slots used again) are deleted with the
        // rest, in creation order: one event each, nothing left to stop.
        let (retired, unnamed) = self
            .jobs
            .get_mut(j)
            .map(|x| {
                (
                    std::mem::take(&mut x.retired),
                    std::mem::take(&mut x.retired_unnamed),
                )
            })
            .unwrap_or_default();
        let mut retired = retired.into_iter().peekable();
        for p in pods {
            let created = self.pods.get(p).map_or(u64::MAX, |x| x.created);
            while let Some(r) = retired.next_if(|r| r.created < created) {
                self.record_retired_pod_deleted(&r);
            }
            let Some(pod) = self.pods.get_mut(p) else {
                continue;
            };
            if pod.deleting {
                continue;
            }
            pod.deleting = true;
            let (alive, tmpl, pgen, index) = (pod.alive, pod.tmpl, pod.epoch, pod.index);
            let running = pod.containers.iter().any(|c| c.running);
            if let Some(ix) = self
                .jobs
                .get_mut(j)
                .and_then(|x| x.indexes.get_mut(index as usize))
                && ix.active == Some(p)
            {
                ix.active = None;
            }
            self.record(Obj::Pod(p), None, "Deleted", "Terminating", || None);
            if alive {
                let grace = self.templates.get(tmpl).map_or(30_000, |t| t.grace_ms);
                let at = if running { now + grace } else { now };
                self.schedule(at, Ev::Kill { pod: p, pgen });
            }
        }
        for r in retired {
            self.record_retired_pod_deleted(&r);
        }
        // Retired while the timeline was full (it stays full): their events are counted only.
        if unnamed > 0 {
            self.summary.events += unnamed;
            self.summary.timeline_truncated = true;
            self.last_event_ms = now;
        }
        // The Job's update (its deletionTimestamp) makes the Job controller sync it.
        self.enqueue_job_sync(j, now);
    }

    /// A gone Job whose successor exists and whose Pods are all freed is of no further
    /// interest: its slot is used again.
    pub(super) fn free_job_if_done(&mut self, j: usize) {
        if let Some(job) = self.jobs.get_mut(j)
            && job.phase == "Deleted"
            && !job.recreate_when_gone
            && job.pods_left == 0
            && job.tmpl != usize::MAX
        {
            // Marks the slot free (no template), and lets its heap go.
            job.tmpl = usize::MAX;
            job.name = String::new();
            job.indexes = Vec::new();
            self.free_jobs.push(j);
        }
    }

    /// A Job in deletion whose Pods are all gone is removed by the garbage collector (checked
    /// after its syncs, which drop its Pods' finalizers, and when one of its Pods ends); its
    /// JobSet controller then reconciles and creates it again (`create_missing_jobs`).
    pub(super) fn collect_job_if_gone(&mut self, j: usize) {
        let Some(job) = self.jobs.get(j) else {
            return;
        };
        if !job.deleting || job.phase == "Deleted" {
            return;
        }
        if job
            .all_pods
            .iter()
            .any(|&p| self.pods.get(p).is_some_and(|x| x.alive))
        {
            return;
        }
        let mut pods = Vec::new();
        if let Some(job) = self.jobs.get_mut(j) {
            job.phase = "Deleted";
            // Nothing looks at a gone Job's Pods again but `results`, for the newest of each index.
            pods = std::mem::take(&mut job.all_pods);
            job.pods = Vec::new();
        }
        self.live_jobs.retain(|&x| x != j);
        for p in pods {
            if !self.is_newest_pod(p) {
                self.free_pod(p);
            }
        }
        self.record(Obj::Job(j), None, "Gone", "Deleted", || None);
        // The Job's removal makes its JobSet controller reconcile (Owns(Job)): it creates the
        // Jobs that are missing.
        self.enqueue_jobset_reconcile();
    }

    /// The JobSet controller creates the Jobs of this run that do not exist (upstream
    /// `reconcileReplicatedJobs`): after a restart, each Job once its predecessor is gone, Pods
    /// at once; an index that had a Pod before gets a replacement (it waits
    /// podRescheduleSeconds), and its slot has waited since the deletion.
    pub(super) fn create_missing_jobs(&mut self) {
        // BlockingRecreate (jobset_controller.go `constructJobsFromTemplate`): while any Job
        // marked for recreation still exists — in deletion or not yet deleted, of an earlier
        // run or restarted by RestartJob — no Job is created at all; Recreate creates each Job
        // again as soon as its own predecessor is gone.
        if self.blocking_recreate() && self.previous_job_exists() {
            return;
        }
        // In creation order, as a reconcile lists them.
        let jobs = &self.jobs;
        self.awaiting_recreation
            .sort_unstable_by_key(|&x| jobs.get(x).map_or(u32::MAX, |y| y.creation));
        self.awaiting_recreation.dedup();
        let is_gone = |x: usize| self.jobs.get(x).is_none_or(|y| y.phase == "Deleted");
        let missing: Vec<usize> = self
            .awaiting_recreation
            .iter()
            .copied()
            .filter(|&x| {
                self.jobs.get(x).is_some_and(|y| {
                    y.phase == "Deleted"
                        && y.recreate_when_gone
                        && self
                            .newest_job_by_name
                            .get(&y.name)
                            .is_none_or(|&z| is_gone(z))
                })
            })
            .collect();
        self.awaiting_recreation.retain(|x| !missing.contains(x));
        for j in missing {
            let Some(job) = self.jobs.get_mut(j) else {
                continue;
            };
            job.recreate_when_gone = false;
            let (tmpl, ji, name, since) =
                (job.tmpl, job.job_index, job.name.clone(), job.deleted_ms);
            let had_pod: Vec<bool> = job.indexes.iter().map(|ix| ix.started).collect();
            // The gone Job is of no further interest: its successor carries on.
            job.indexes = Vec::new();
            job.failure_target = None;
            job.success_target = None;
            self.create_job(tmpl, ji, name, self.now);
            self.free_job_if_done(j);
            let n = self.live_jobs.last().copied().unwrap_or(usize::MAX);
            if let Some(job) = self.jobs.get_mut(n) {
                for (ix, &had) in job.indexes.iter_mut().zip(&had_pod) {
                    if had {
                        ix.started = true;
                        ix.last_finish_ms = Some(since);
                    }
                }
            }
        }
    }

    /// Whether the JobSet's `failurePolicy.restartStrategy` is `BlockingRecreate`.
    fn blocking_recreate(&self) -> bool {
        self.jobset
            .as_ref()
            .and_then(|js| js.spec.failure_policy.as_ref())
            .and_then(|fp| fp.restart_strategy.as_deref())
            == Some("BlockingRecreate")
    }

    /// Whether a Job of `ownedJobs.previous` is still in the API (not gone).
    fn previous_job_exists(&self) -> bool {
        self.live_jobs.iter().any(|&x| {
            self.jobs
                .get(x)
                .is_some_and(|y| self.marked_for_recreation(y) && y.phase != "Deleted")
        })
    }

    /// Whether Job `y` is in upstream's `ownedJobs.previous`: its restart-attempt label is
    /// below `status.restarts`, or its job-restart-attempt label below its target (RestartJob).
    fn marked_for_recreation(&self, y: &JobState) -> bool {
        y.epoch < self.attempt || y.restart_pending
    }
}
