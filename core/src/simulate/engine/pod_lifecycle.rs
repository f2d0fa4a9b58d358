//! A Pod's end: its terminal phase, the podFailurePolicy decision its failure gets, and when the
//! simulator may forget it (the newest Pod of each index is kept for the controllers).

use super::*;

impl Engine<'_> {
    pub(super) fn pod_terminal(
        &mut self,
        p: usize,
        phase: &'static str,
        reason: Option<&'static str>,
    ) -> Result<(), Diagnostic> {
        self.record(Obj::Pod(p), None, phase, reason.unwrap_or(phase), || None);
        // The podFailurePolicy decides from the containers' states before the kill; a Pod the
        // controller already counted (deleted with its Job) is not asked again.
        let decide = phase == "Failed"
            && self
                .pods
                .get(p)
                .is_some_and(|x| x.job.is_some() && !x.counted);
        let outcome = if decide {
            Some(self.pod_failure_outcome(p)?)
        } else {
            None
        };
        self.kill_pod(p);
        let now = self.now;
        if let Some(pod) = self.pods.get_mut(p) {
            pod.phase = phase;
            pod.reason = reason;
            pod.finished_ms = now;
            pod.outcome = outcome;
        }
        if let Some(j) = self.pods.get(p).and_then(|x| x.job) {
            // A Pod of a Job in deletion whose finalizer its controller already removed goes at
            // once; the garbage collector then removes the Job if it was the last, before the
            // Job controller syncs again (the oracle's harness order; in a cluster, a race).
            if self.pods.get(p).is_some_and(|x| x.counted)
                && self.jobs.get(j).is_some_and(|x| x.deleting)
            {
                self.collect_job_if_gone(j);
            }
            self.enqueue_job_sync(j, now);
        }
        Ok(())
    }

    /// The Job's podFailurePolicy decision for failed Pod `p` from the compiled table: container
    /// statuses, then init container statuses (the order upstream searches), a terminated
    /// container's exit code, and the Pod's conditions (all status True).
    pub(super) fn compiled_pod_failure(&self, p: usize) -> Option<Decision> {
        let pod = self.pods.get(p)?;
        let t = self.templates.get(pod.tmpl)?;
        let policy = t.pfp.as_ref()?;
        let mut statuses = Vec::with_capacity(pod.containers.len());
        for regular in [true, false] {
            for (i, ct) in pod.containers.iter().enumerate() {
                if (t.kinds.get(i) == Some(&Kind::Regular)) == regular {
                    let code = if ct.running { None } else { ct.last_exit };
                    statuses.push((
                        t.pfp_index.get(i).copied().unwrap_or(UNKNOWN_CONTAINER),
                        code,
                    ));
                }
            }
        }
        // A condition no pattern names can never match: left out.
        let conditions: Vec<usize> = pod
            .conditions
            .iter()
            .filter_map(|c| policy.condition_index(c, "True"))
            .collect();
        Some(policy.decide(&statuses, &conditions))
    }

    /// The shape of failed Pod `p` (what its policy decision depends on).
    pub(super) fn failure_shape(&self, p: usize) -> Option<FailureShape> {
        let pod = self.pods.get(p)?;
        Some(FailureShape {
            containers: pod
                .containers
                .iter()
                .map(|ct| match (ct.running, ct.last_exit) {
                    (true, _) => ContainerShape::Running,
                    (false, Some(code)) => ContainerShape::Exited(code),
                    (false, None) => ContainerShape::NotStarted,
                })
                .collect(),
            conditions: pod.conditions.clone(),
        })
    }

    /// Failed Pod `p` as the Job controller reads it: the template's Pod with its name and
    /// the statuses it ended with.
    pub(super) fn failed_pod(&self, p: usize) -> Option<Pod> {
        let pod = self.pods.get(p)?;
        let t = self.templates.get(pod.tmpl)?;
        let mut regular = Vec::new();
        let mut init = Vec::new();
        for (i, ct) in pod.containers.iter().enumerate() {
            let state = match (ct.running, ct.last_exit) {
                (true, _) => ContainerState {
                    running: Some(ContainerStateRunning::default()),
                    ..Default::default()
                },
                (false, Some(code)) => ContainerState {
                    terminated: Some(ContainerStateTerminated {
                        exit_code: code,
                        ..Default::default()
                    }),
                    ..Default::default()
                },
                (false, None) => ContainerState {
                    waiting: Some(ContainerStateWaiting {
                        reason: Some("PodInitializing".into()),
                        ..Default::default()
                    }),
                    ..Default::default()
                },
            };
            let status = ContainerStatus {
                name: t.names.get(i).cloned().unwrap_or_default(),
                state: Some(state),
                restart_count: i32::try_from(ct.restart_count).unwrap_or(i32::MAX),
                ..Default::default()
            };
            if t.kinds.get(i) == Some(&Kind::Regular) {
                regular.push(status)
            } else {
                init.push(status)
            }
        }
        let conditions = pod
            .conditions
            .iter()
            .map(|c| Condition {
                type_: (*c).to_owned(),
                status: "True".into(),
                ..Default::default()
            })
            .collect();
        Some(Pod {
            metadata: ObjectMeta {
                name: Some(pod.name.clone()),
                namespace: Some(self.namespace()),
                ..Default::default()
            },
            status: Some(PodStatus {
                phase: Some("Failed".into()),
                conditions,
                container_statuses: regular,
                init_container_statuses: init,
                ..Default::default()
            }),
            ..t.pod.clone()
        })
    }

    /// Whether Pod `p` is the newest of its Job index (`results` reports it).
    pub(super) fn is_newest_pod(&self, p: usize) -> bool {
        let Some(pod) = self.pods.get(p) else {
            return false;
        };
        let Some(name) = pod
            .job
            .and_then(|j| self.jobs.get(j))
            .map(|j| j.name.as_str())
        else {
            return true;
        };
        self.newest_pods
            .get(name)
            .and_then(|v| v.get(pod.index as usize))
            == Some(&p)
    }

    /// Pod `p` (ended, of a gone Job, and not the newest of its index) is of no further
    /// interest: its slot is used again. Not a Pod whose node was lost: the node's lifecycle
    /// (node.rs) lives in it and goes on.
    pub(super) fn free_pod(&mut self, p: usize) {
        if let Some(pod) = self.pods.get_mut(p)
            && !pod.freed
            && !pod.alive
            && pod.node.is_none()
        {
            pod.freed = true;
            // Its name and outcome go now; the containers stay until the slot is used again
            // (their epochs carry over).
            pod.name = String::new();
            pod.outcome = None;
            let job = pod.job;
            self.free_pods.push(p);
            if let Some(j) = job {
                if let Some(x) = self.jobs.get_mut(j) {
                    x.pods_left = x.pods_left.saturating_sub(1);
                }
                self.free_job_if_done(j);
            }
        }
    }

    /// The Pods of live Job `j` that ended, were counted by its controller and are no longer
    /// the newest of their index (a replacement exists) are of no further interest but for the
    /// `Deleted` event the Job's deletion gives each (`collect_pods_of`): that much goes to
    /// `JobState::retired` and their slots are used again. Not a Pod whose node was lost (its
    /// node's lifecycle goes on in it).
    pub(super) fn retire_replaced_pods(&mut self, j: usize) {
        let Some(job) = self.jobs.get(j) else {
            return;
        };
        let newest = self.newest_pods.get(&job.name);
        let retirable = |p: usize| {
            self.pods.get(p).is_some_and(|x| {
                !x.alive
                    && x.counted
                    && !x.freed
                    && x.node.is_none()
                    && newest.and_then(|v| v.get(x.index as usize)) != Some(&p)
            })
        };
        if !job.all_pods.iter().any(|&p| retirable(p)) {
            return;
        }
        let (gone, kept): (Vec<usize>, Vec<usize>) =
            job.all_pods.iter().partition(|&&p| retirable(p));
        let room = self.timeline.len() < self.max_timeline;
        let mut named = Vec::new();
        let mut unnamed = 0;
        for &p in &gone {
            // A Pod in deletion already is passed over by the Job's deletion.
            if let Some(pod) = self.pods.get_mut(p).filter(|x| !x.deleting) {
                if room {
                    named.push(RetiredPod {
                        created: pod.created,
                        index: pod.index,
                        name: std::mem::take(&mut pod.name),
                    });
                } else {
                    unnamed += 1;
                }
            }
        }
        if let Some(job) = self.jobs.get_mut(j) {
            job.all_pods = kept;
            job.pods.retain(|p| !gone.contains(p));
            job.retired.append(&mut named);
            job.retired_unnamed += unnamed;
        }
        for p in gone {
            self.free_pod(p);
        }
    }

    /// Records Pod `p` as the newest of index `index` of Job `j`; the Pod it replaces there is
    /// freed once its Job is gone.
    pub(super) fn set_newest_pod(&mut self, j: usize, index: u32, p: usize) {
        let Some(name) = self.jobs.get(j).map(|x| x.name.as_str()) else {
            return;
        };
        let slot = index as usize;
        let previous = match self.newest_pods.get_mut(name) {
            Some(v) => {
                if v.len() <= slot {
                    v.resize(slot + 1, usize::MAX);
                }
                v.get_mut(slot).map(|x| std::mem::replace(x, p))
            }
            None => {
                let mut v = vec![usize::MAX; slot + 1];
                if let Some(x) = v.get_mut(slot) {
                    *x = p;
                }
                let name = name.to_owned();
                self.newest_pods.insert(name, v);
                None
            }
        };
        if let Some(q) = previous.filter(|&q| q != usize::MAX && q != p)
            && self
                .pods
                .get(q)
                .and_then(|x| x.job)
                .and_then(|x| self.jobs.get(x))
                .is_some_and(|x| x.phase == "Deleted")
        {
            self.free_pod(q);
        }
    }
}
