//! Creating the workload: the Pod, the Job or the JobSet's Jobs, and their Pods with the
//! selectors (replicatedJob, Job index, Pod index) scenarios address them by.

use super::*;

impl Engine<'_> {
    pub(super) fn start_workload(&mut self) -> Result<(), Diagnostic> {
        let kind = self
            .sc
            .workload
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        if kind == "Pod" {
            let name = self
                .sc
                .workload
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("pod")
                .to_owned();
            self.new_pod(0, None, 0, name, 0);
        } else {
            self.create_jobs(0);
        }
        Ok(())
    }

    pub(super) fn create_jobs(&mut self, t: u64) {
        let base = self
            .sc
            .workload
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("workload")
            .to_owned();
        let is_jobset = self.jobset.is_some();
        for ti in 0..self.templates.len() {
            let (replicas, rj) = match self.templates.get(ti) {
                Some(tm) => (tm.replicas, tm.replicated_job.clone()),
                None => continue,
            };
            for ji in 0..replicas {
                let name = if is_jobset {
                    format!("{base}-{}-{ji}", rj.as_deref().unwrap_or(""))
                } else {
                    base.clone()
                };
                self.create_job(ti, ji, name, t);
            }
        }
    }

    pub(super) fn create_job(&mut self, tmpl: usize, job_index: u32, name: String, t: u64) {
        let completions = match self.templates.get(tmpl) {
            Some(tm) => tm.completions,
            None => return,
        };
        // A recreated Job keeps its name; its Pods' names go on counting from its predecessor's,
        // as upstream's random suffixes would differ, so a timeline never shows two Pods of one name.
        let pods_before = self
            .newest_job_by_name
            .get(&name)
            .and_then(|&x| self.jobs.get(x))
            .map_or(0, |x| x.pods_created);
        let state = JobState {
            name: name.clone(),
            tmpl,
            job_index,
            creation: u32::try_from(self.summary.jobs_created).unwrap_or(u32::MAX),
            pods_left: 0,
            epoch: self.attempt,
            phase: "Running",
            reason: None,
            message: None,
            failed: 0,
            succeeded: 0,
            failed_indexes: 0,
            indexes: (0..completions)
                .map(|_| IndexState {
                    done: false,
                    failed: false,
                    failure_count: 0,
                    ignored: 0,
                    active: None,
                    started: false,
                    last_finish_ms: None,
                    last_failed: None,
                })
                .collect(),
            pods_created: pods_before,
            pods: Vec::new(),
            failure_target: None,
            success_target: None,
            backoff_failures: 0,
            last_failure_ms: None,
            start_ms: t,
            sync_at: None,
            sync_errors: 0,
            sync_failed: false,
            written: StatusCounts::default(),
            written_before: None,
            held: false,
            index_waiting: false,
            status_changed: false,
            stored_backoff: (0, None),
            unflushed: Vec::new(),
            all_pods: Vec::new(),
            deleting: false,
            deleted_ms: 0,
            recreate_when_gone: false,
            restart_pending: false,
            failed_ms: 0,
            finish_deferred: false,
            retired: Vec::new(),
            retired_unnamed: 0,
        };
        let j = match self.free_jobs.pop() {
            Some(j) if j < self.jobs.len() => {
                if let Some(old) = self.jobs.get_mut(j) {
                    *old = state;
                }
                j
            }
            _ => {
                self.jobs.push(state);
                self.jobs.len() - 1
            }
        };
        self.newest_job_by_name.insert(name.clone(), j);
        self.live_jobs.push(j);
        self.summary.jobs_created += 1;
        // A JobSet's Job carries the restart attempt it belongs to (label
        // jobset.sigs.k8s.io/restart-attempt = status.restarts when the controller created it).
        let attempt_label = self
            .jobset
            .is_some()
            .then(|| format!("jobset.sigs.k8s.io/restart-attempt={}", self.js_restarts));
        self.record(Obj::Job(j), None, "Created", "JobCreated", || attempt_label);
        // The controller's first sync (addJob) sets startTime, asks for the deadline's sync and
        // creates the first Pods.
        self.enqueue_job_sync(j, t);
    }

    pub(super) fn new_pod(
        &mut self,
        tmpl: usize,
        job: Option<usize>,
        index: u32,
        name: String,
        t: u64,
    ) -> usize {
        let n = self.templates.get(tmpl).map(|x| x.names.len()).unwrap_or(0);
        let created = self.summary.pods_created;
        let mut state = PodState {
            name,
            tmpl,
            job,
            index,
            created,
            freed: false,
            epoch: 0,
            alive: true,
            phase: "Pending",
            reason: None,
            containers: vec![Container::default(); n],
            conditions: Vec::new(),
            deleting: false,
            counted: false,
            finished_ms: 0,
            node: None,
            restart_all_pending: false,
            end_pending: None,
            end_held: false,
            end_check: false,
            starts: (0, 0),
            phase_at: 0,
            resets_at: (0, 0),
            // The kubelet's first status of the Pod: not ready yet.
            unready_since: Some(t),
            working: false,
            lost_until: 0,
            outcome: None,
        };
        let reused = self.free_pods.pop();
        let p = match reused.and_then(|p| self.pods.get_mut(p).map(|old| (p, old))) {
            Some((p, old)) => {
                // Events still queued for the slot's previous Pod carry its epochs: the new Pod's
                // (and its containers') go on from there, so none of them can match it.
                state.epoch = old.epoch.wrapping_add(1);
                let container_epoch = old.containers.iter().map(|c| c.epoch).max().unwrap_or(0);
                for c in &mut state.containers {
                    c.epoch = container_epoch;
                }
                *old = state;
                p
            }
            None => {
                self.pods.push(state);
                self.pods.len() - 1
            }
        };
        self.summary.pods_created += 1;
        self.record(Obj::Pod(p), None, "Scheduled", "Scheduled", || None);
        self.start_pod_sequence(p, t);
        // Faults are a Poisson process per running Pod.
        for fi in 0..self.sc.faults.len() {
            self.schedule_fault(p, fi, t);
        }
        p
    }

    pub(super) fn pod_identity(&self, p: usize) -> (Option<&str>, u32, u32) {
        let Some(pod) = self.pods.get(p) else {
            return (None, 0, 0);
        };
        let job_index = pod
            .job
            .and_then(|j| self.jobs.get(j))
            .map(|j| j.job_index)
            .unwrap_or(0);
        let rj = self
            .templates
            .get(pod.tmpl)
            .and_then(|t| t.replicated_job.as_deref());
        (rj, job_index, pod.index)
    }

    pub(super) fn job_obj(&self, j: usize) -> String {
        format!(
            "job/{}/{}",
            self.namespace(),
            self.jobs.get(j).map(|x| x.name.as_str()).unwrap_or("")
        )
    }

    /// Job `j` as its controllers see it: the template's Job with its name and, in a JobSet,
    /// the labels the JobSet controller gives it.
    pub(super) fn job_object(&self, j: usize) -> Option<Job> {
        let job = self.jobs.get(j)?;
        let t = self.templates.get(job.tmpl)?;
        let template = t.job.as_ref()?;
        let mut labels = std::collections::BTreeMap::new();
        if let Some(r) = &t.replicated_job {
            labels.insert(
                crate::eval::jobset::REPLICATED_JOB_NAME_KEY.to_owned(),
                r.clone(),
            );
            labels.insert(
                crate::eval::jobset::JOB_INDEX_KEY.to_owned(),
                job.job_index.to_string(),
            );
            if let Some(js) = self
                .sc
                .workload
                .pointer("/metadata/name")
                .and_then(Value::as_str)
            {
                labels.insert("jobset.sigs.k8s.io/jobset-name".into(), js.to_owned());
            }
        }
        Some(Job {
            metadata: ObjectMeta {
                name: Some(job.name.clone()),
                namespace: Some(self.namespace()),
                labels: Some(labels),
                ..Default::default()
            },
            ..template.clone()
        })
    }
}
