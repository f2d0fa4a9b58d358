//! The kubelet inside one Pod: init containers in order, sidecars, regular containers; each
//! exit decided by the container's or the Pod's restart policy (and KEP-5307's rules), restarts
//! delayed by the CrashLoopBackOff curve, and the whole-Pod restarts of the AlwaysPod proposal.

use super::*;
use crate::versions::Change;

impl Engine<'_> {
    /// Starts init containers in order (sidecars keep running), then the regular containers.
    pub(super) fn start_pod_sequence(&mut self, p: usize, t: u64) {
        if let Some(pod) = self.pods.get_mut(p) {
            for ct in pod.containers.iter_mut() {
                ct.advanced = false;
            }
        }
        let first = self
            .templates
            .get(self.pods.get(p).map(|x| x.tmpl).unwrap_or(0))
            .map(|tm| tm.kinds.iter().position(|k| *k != Kind::Regular));
        match first.flatten() {
            Some(i) => self.start_container(p, i, t + self.startup_ms),
            None => self.start_regulars(p, t + self.startup_ms),
        }
    }

    pub(super) fn start_regulars(&mut self, p: usize, t: u64) {
        let Some(tmpl) = self.pods.get(p).map(|x| x.tmpl) else {
            return;
        };
        let count = self.templates.get(tmpl).map_or(0, |tm| tm.kinds.len());
        for i in 0..count {
            if self.templates.get(tmpl).and_then(|tm| tm.kinds.get(i)) == Some(&Kind::Regular) {
                self.start_container(p, i, t);
            }
        }
    }

    pub(super) fn start_container(&mut self, p: usize, c: usize, t: u64) {
        let Some(pod) = self.pods.get_mut(p) else {
            return;
        };
        let epoch = pod.epoch;
        if let Some(ct) = pod.containers.get_mut(c) {
            ct.pending_start = true;
        }
        self.schedule(t, Ev::Start { pod: p, c, epoch });
    }

    pub(super) fn on_start(&mut self, p: usize, c: usize, epoch: u32) {
        let now = self.now;
        let Some(pod) = self.pods.get(p) else {
            return;
        };
        // The kubelet starts nothing in a Pod that is being deleted.
        if !pod.alive || pod.epoch != epoch || pod.deleting {
            return;
        }
        let tmpl = pod.tmpl;
        let kind = self
            .templates
            .get(tmpl)
            .and_then(|t| t.kinds.get(c))
            .copied()
            .unwrap_or(Kind::Regular);
        // The sync at the end of the back-off restarts a regular container only if the Pod
        // counts as initialized then (up to 1.36, see regulars_may_start): else it waits, and
        // the entry stays as it was (the kubelet did not call Backoff.Next).
        let waited = pod
            .containers
            .get(c)
            .is_some_and(|ct| ct.restarting && ct.restart_waits);
        if kind == Kind::Regular && waited && !self.regulars_may_start(p) {
            if let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) {
                ct.pending_backoff = None;
                ct.restart_waits = false;
                ct.deferred_since = Some(now);
            }
            return;
        }
        let Some(pod) = self.pods.get_mut(p) else {
            return;
        };
        pod.starts = (pod.starts.0 + 1, now);
        let Some(ct) = pod.containers.get_mut(c) else {
            return;
        };
        ct.running = true;
        ct.removed_by_reset = false;
        ct.pending_start = false;
        ct.backoff_refused = false;
        ct.restart_waits = false;
        ct.epoch += 1;
        let restarted = std::mem::take(&mut ct.restarting);
        if let Some(entry) = ct.pending_backoff.take() {
            ct.backoff = Some(entry);
        }
        ct.instances += 1;
        if restarted {
            ct.restart_count += 1;
            self.summary.in_place_restarts += 1;
        }
        // After RestartAllContainers, the status keeps the larger of its own count and the
        // runtime's (convertToAPIContainerStatuses), which counts every instance so far.
        ct.restart_count = ct.restart_count.max(ct.instances - 1);
        let cgen = ct.epoch;
        // A restart shows in the Pod's status (restartCount): the Job controller syncs, and a
        // restartPolicy OnFailure Job checks its restarts against backoffLimit.
        let job = self.pods.get(p).and_then(|x| x.job);
        if restarted
            && let Some(j) = job
            && self.templates.get(tmpl).is_some_and(|t| t.on_failure)
        {
            self.enqueue_job_sync(j, now);
        }
        self.update_live_phase(p);
        self.record(Obj::Pod(p), Some((tmpl, c)), "Started", "Started", || None);
        if let Some(j) = job {
            self.pod_status_changed(j);
        }
        // The scripted exit for this run, if any. Containers without scripts (the common case
        // in fault-driven runs) skip the cursor table; nothing is cloned on this hot path.
        let (_, job_index, pod_index) = self.pod_identity(p);
        let mut scheduled = None;
        let candidates: &[usize] = self
            .scripts
            .get(tmpl)
            .and_then(|s| s.get(c))
            .map_or(&[], Vec::as_slice);
        if !candidates.is_empty() {
            let key = (tmpl, job_index, pod_index, c);
            let (mut pos, mut used) = self.cursors.get(&key).copied().unwrap_or((0, 0));
            let rj = self
                .templates
                .get(tmpl)
                .and_then(|t| t.replicated_job.as_deref());
            while let Some(&ei) = candidates.get(pos) {
                let Some(e) = self.sc.exits.get(ei) else {
                    break;
                };
                if !matches(&e.selector(), rj, job_index, pod_index, None) {
                    pos += 1;
                    used = 0;
                    continue;
                }
                if e.times.is_some_and(|n| used >= n) {
                    pos += 1;
                    used = 0;
                    continue;
                }
                used += 1;
                let reason = match e.reason.as_deref() {
                    Some("OOMKilled") => 2,
                    Some("Completed") => 1,
                    _ if e.exit_code == 0 => 1,
                    _ => 0,
                };
                scheduled = Some((
                    crate::simulate::scenario::secs_to_ms(e.after_seconds).unwrap_or(0),
                    e.exit_code,
                    reason,
                    if e.node_failure {
                        RunEnd::NodeLost
                    } else if let Some(d) = e.disruption {
                        RunEnd::Disrupted(d)
                    } else {
                        RunEnd::Exit
                    },
                ));
                break;
            }
            self.cursors.insert(key, (pos, used));
        }
        match (scheduled, kind) {
            (Some((after, _, _, RunEnd::NodeLost)), _) => {
                let pgen = self.pods.get(p).map_or(0, |x| x.epoch);
                self.schedule(now + after, Ev::NodeLost { pod: p, pgen });
            }
            (Some((after, _, _, RunEnd::Disrupted(by))), _) => {
                let pgen = self.pods.get(p).map_or(0, |x| x.epoch);
                self.schedule(now + after, Ev::Disrupt { pod: p, pgen, by });
            }
            (Some((after, code, reason, RunEnd::Exit)), _) => self.schedule_exit(
                after,
                Ev::Exit {
                    pod: p,
                    c,
                    epoch: cgen,
                    code,
                    reason,
                },
            ),
            // An init container with no script completes at once; a sidecar keeps running and
            // lets the next init container start.
            (None, Kind::Init) => self.schedule_exit(
                0,
                Ev::Exit {
                    pod: p,
                    c,
                    epoch: cgen,
                    code: 0,
                    reason: 1,
                },
            ),
            (None, Kind::Sidecar) => self.advance_init(p, c, now),
            (None, Kind::Regular) => {}
        }
        if kind == Kind::Sidecar && scheduled.is_some() {
            self.advance_init(p, c, now);
        }
        self.wake_deferred(p);
    }

    /// A run's end `after` ms from now; one of 0 s ends once the syncs of this round have
    /// settled (Engine::flush_round_exits).
    fn schedule_exit(&mut self, after: u64, exit: Ev) {
        if after == 0 {
            self.round_exits.push(exit);
        } else {
            self.schedule(self.now + after, exit);
        }
    }

    /// Whether the kubelet's sync may start the Pod's regular containers again. From 1.37 once
    /// one of them has started in the sandbox (HasAnyActiveRegularContainerStarted). Up to 1.36
    /// computeInitContainerActions (v1.36.3 kuberuntime_container.go:1070-1095) counts the Pod
    /// as initialized only while a regular container is created or running, or when its last
    /// init container is done — a sidecar running (:1160-1163), an init container completed
    /// (:1240-1242); otherwise computePodActions returns before the regular containers
    /// (kuberuntime_manager.go:1283-1288). So with every regular container stopped and the last
    /// sidecar waiting in its back-off, a regular container restarts only with that sidecar.
    fn regulars_may_start(&self, p: usize) -> bool {
        if Change::RegularsRestartPastSidecarBackoff.at(self.decider.minor()) {
            return true;
        }
        let Some(pod) = self.pods.get(p) else {
            return false;
        };
        let kinds = self
            .templates
            .get(pod.tmpl)
            .map(|t| t.kinds.as_slice())
            .unwrap_or(&[]);
        let mut last_init = None;
        for (ct, k) in pod.containers.iter().zip(kinds) {
            match k {
                Kind::Regular if ct.running => return true,
                Kind::Regular => {}
                _ => last_init = Some((ct, *k)),
            }
        }
        match last_init {
            None => true,
            Some((ct, Kind::Sidecar)) => ct.running,
            Some((ct, _)) => !ct.running && ct.instances > 0 && ct.last_exit == Some(0),
        }
    }

    /// Up to 1.36: the sync that follows a start, once the Pod counts as initialized again,
    /// considers the regular containers whose restart waited, or kills and ends the Pod whose
    /// regular containers are all done (computePodActions' KillPod). It sees the started
    /// container running even if its run lasts 0 s.
    fn wake_deferred(&mut self, p: usize) {
        let Some(pod) = self.pods.get(p) else {
            return;
        };
        let held = pod.end_held;
        let waiting: Vec<usize> = pod
            .containers
            .iter()
            .enumerate()
            .filter(|(_, ct)| ct.deferred_since.is_some())
            .map(|(c, _)| c)
            .collect();
        if (waiting.is_empty() && !held) || !self.regulars_may_start(p) {
            return;
        }
        let pgen = pod.epoch;
        // That sync kills what runs (KillPod): no exit of this instant comes after it.
        if held
            && self.release_held_end(p)
            && let Some(pod) = self.pods.get_mut(p)
        {
            for ct in pod.containers.iter_mut().filter(|ct| ct.running) {
                ct.epoch += 1;
            }
        }
        for c in waiting {
            self.on_restart_container(p, pgen, c);
        }
    }

    /// Up to 1.36, the sync after the exits that stopped the last regular container: the Pod
    /// ends, unless a running sidecar keeps it Running (getPhase) while the last one waits for
    /// its restart — then the sync that starts that one ends it (see regulars_may_start).
    pub(super) fn end_or_hold(&mut self, p: usize) -> Result<(), Diagnostic> {
        let Some(phase) = self.regulars_done(p) else {
            return Ok(());
        };
        if !self.regulars_may_start(p) && self.sidecar_running(p) {
            if let Some(pod) = self.pods.get_mut(p) {
                pod.end_held = true;
            }
            return Ok(());
        }
        self.pod_terminal(p, phase, None)
    }

    /// The Pod's terminal phase if every regular container has stopped and none restarts.
    fn regulars_done(&self, p: usize) -> Option<&'static str> {
        let pod = self.pods.get(p)?;
        let kinds = &self.templates.get(pod.tmpl)?.kinds;
        let mut regulars = pod
            .containers
            .iter()
            .zip(kinds)
            .filter(|(_, k)| **k == Kind::Regular)
            .map(|(ct, _)| ct);
        if !regulars.clone().all(|ct| !ct.running && !ct.pending_start) {
            return None;
        }
        Some(if regulars.all(|ct| ct.last_exit == Some(0)) {
            "Succeeded"
        } else {
            "Failed"
        })
    }

    /// Whether a sidecar of the Pod runs (getPhase then says Running, whatever the regular
    /// containers did).
    fn sidecar_running(&self, p: usize) -> bool {
        let Some(pod) = self.pods.get(p) else {
            return false;
        };
        let kinds = self
            .templates
            .get(pod.tmpl)
            .map(|t| t.kinds.as_slice())
            .unwrap_or(&[]);
        pod.containers
            .iter()
            .zip(kinds)
            .any(|(ct, k)| *k == Kind::Sidecar && ct.running)
    }

    /// A held end (up to 1.36) comes now: the sync ends the Pod (its regular containers are
    /// done). Whether it did.
    fn release_held_end(&mut self, p: usize) -> bool {
        if let Some(pod) = self.pods.get_mut(p) {
            pod.end_held = false;
        }
        let Some(phase) = self.regulars_done(p) else {
            return false;
        };
        self.end_pod_at_sync(p, phase, None);
        true
    }

    /// After init container `c` completed (or sidecar `c` started), start the next one.
    pub(super) fn advance_init(&mut self, p: usize, c: usize, t: u64) {
        // Once per start of the Pod: a sidecar that restarts, or an init container that runs
        // again, does not start the containers after it again (the kubelet's
        // computeInitContainerActions starts the next one only while the Pod initializes).
        match self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) {
            Some(ct) if !ct.advanced => ct.advanced = true,
            _ => return,
        }
        let kinds = match self.pods.get(p).and_then(|x| self.templates.get(x.tmpl)) {
            Some(tm) => tm.kinds.clone(),
            None => return,
        };
        let next = kinds
            .iter()
            .enumerate()
            .skip(c + 1)
            .find(|(_, k)| **k != Kind::Regular)
            .map(|(i, _)| i);
        match next {
            Some(i) => self.start_container(p, i, t + self.startup_ms),
            None => self.start_regulars(p, t + self.startup_ms),
        }
    }

    pub(super) fn on_exit(
        &mut self,
        p: usize,
        c: usize,
        epoch: u32,
        code: i32,
        reason: u8,
    ) -> Result<(), Diagnostic> {
        let exits = self.summary.container_exits;
        match self.future_action(p, c, epoch, code, reason) {
            Some(action) => self.on_exit_future(p, c, epoch, code, reason, action)?,
            None => self.on_exit_decided(p, c, epoch, code, reason, None, false)?,
        }
        // A container stopped in a Pod that goes on (a terminal Pod has its own sync; an exit
        // of a container already gone changed nothing).
        if self.summary.container_exits > exits
            && let Some(j) = self.pods.get(p).filter(|x| x.alive).and_then(|x| x.job)
        {
            self.pod_status_changed(j);
        }
        Ok(())
    }

    pub fn set_always_pod(&mut self, sandbox_ms: u64) {
        self.always_pod = Some(AlwaysPod { sandbox_ms });
    }

    /// Proposal AlwaysPod: where Always would restart container `c`, the whole Pod restarts —
    /// after the container's CrashLoopBackOff delay (the restart it replaces), plus the sandbox's
    /// recreation when the sandbox is recreated; init containers run again.
    pub(super) fn restart_pod_always_pod(
        &mut self,
        p: usize,
        c: usize,
        tmpl: usize,
        ap: AlwaysPod,
    ) -> Result<(), Diagnostic> {
        let now = self.now;
        let (delay, _, _) = self.backoff_delay(p, c, now, now);
        self.summary.whole_pod_restarts += 1;
        let how = if ap.sandbox_ms > 0 {
            format!(", sandbox recreated ({}s)", ap.sandbox_ms as f64 / 1000.0)
        } else {
            ", sandbox reused".to_owned()
        };
        self.record(Obj::Pod(p), Some((tmpl, c)), "RestartPod", "AlwaysPod", || {
            Some(format!("restartPolicy AlwaysPod (proposal): the whole Pod restarts, init containers first{how}; back-off {}s", delay as f64 / 1000.0))
        });
        if let Some(pod) = self.pods.get_mut(p) {
            pod.epoch += 1;
            for ct in pod.containers.iter_mut() {
                ct.restarting = ct.running || ct.last_exit.is_some();
                ct.running = false;
                ct.pending_start = false;
            }
        }
        let start_at = now + delay + ap.sandbox_ms;
        self.lose_pod_until(p, now, start_at + self.startup_ms);
        self.start_pod_sequence(p, start_at);
        Ok(())
    }

    /// Proposal RestartRulesFuture: the decision of the container's rules for this exit, when
    /// the proposal decides this container.
    pub(super) fn future_action(
        &self,
        p: usize,
        c: usize,
        epoch: u32,
        code: i32,
        reason: u8,
    ) -> Option<KubeletDecisionOrFuture> {
        let pod = self.pods.get(p)?;
        let ct = pod.containers.get(c)?;
        if !pod.alive || !ct.running || ct.epoch != epoch {
            return None;
        }
        let (fc, pod_policy) = self.templates.get(pod.tmpl)?.future.get(c)?.as_ref()?;
        let exit = crate::proposals::rules::Exit {
            code,
            restart_count: i64::from(ct.restart_count),
            oom_killed: REASONS.get(reason as usize).copied() == Some("OOMKilled"),
        };
        Some(
            match crate::proposals::rules::first_match(fc, exit).map(|(_, a)| a) {
                Some(crate::proposals::rules::ACTION_RESTART) => {
                    KubeletDecisionOrFuture::Decision(KubeletDecision::Restart)
                }
                Some(
                    crate::proposals::rules::ACTION_RESTART_POD
                    | crate::proposals::rules::ACTION_RESTART_ALL,
                ) => KubeletDecisionOrFuture::Decision(KubeletDecision::RestartAllContainers),
                Some(crate::proposals::rules::ACTION_COMPLETE) => KubeletDecisionOrFuture::Complete,
                Some(crate::proposals::rules::ACTION_TERMINATE_POD) => {
                    KubeletDecisionOrFuture::TerminatePod
                }
                // No rule matched: the container's restartPolicy, or the Pod's when it has none.
                _ => {
                    let policy = fc
                        .restart_policy
                        .as_deref()
                        .or(pod_policy.as_deref())
                        .unwrap_or("Always");
                    let restart = policy == "Always" || (policy == "OnFailure" && code != 0);
                    KubeletDecisionOrFuture::Decision(if restart {
                        KubeletDecision::Restart
                    } else {
                        KubeletDecision::DoNotRestart
                    })
                }
            },
        )
    }

    pub(super) fn on_exit_future(
        &mut self,
        p: usize,
        c: usize,
        epoch: u32,
        code: i32,
        reason: u8,
        action: KubeletDecisionOrFuture,
    ) -> Result<(), Diagnostic> {
        match action {
            KubeletDecisionOrFuture::Decision(d) => {
                self.on_exit_decided(p, c, epoch, code, reason, Some(d), false)
            }
            // Complete: the exit counts as a success (an init container lets the next one start).
            KubeletDecisionOrFuture::Complete => self.on_exit_decided(
                p,
                c,
                epoch,
                code,
                reason,
                Some(KubeletDecision::DoNotRestart),
                true,
            ),
            KubeletDecisionOrFuture::TerminatePod => {
                let tmpl = self.pods.get(p).map(|x| x.tmpl).unwrap_or(0);
                if let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) {
                    ct.running = false;
                    ct.last_exit = Some(code);
                }
                self.summary.container_exits += 1;
                let reason_s = REASONS.get(reason as usize).copied().unwrap_or("Error");
                self.record(Obj::Pod(p), Some((tmpl, c)), "Terminated", reason_s, || {
                    Some(format!("exit code {code}"))
                });
                self.record(Obj::Pod(p), Some((tmpl, c)), "RuleAction", "TerminatePod", || {
                    Some("a TerminatePod rule matched (proposal RestartRulesFuture): every container is killed and the Pod fails".into())
                });
                self.pod_terminal(p, "Failed", Some("TerminatePod"))
            }
        }
    }

    /// `completed`: a Complete rule (proposal RestartRulesFuture) matched, and the exit counts
    /// as exit 0 from here on.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_exit_decided(
        &mut self,
        p: usize,
        c: usize,
        epoch: u32,
        code: i32,
        reason: u8,
        decided: Option<KubeletDecision>,
        completed: bool,
    ) -> Result<(), Diagnostic> {
        let now = self.now;
        let Some(pod) = self.pods.get_mut(p) else {
            return Ok(());
        };
        if !pod.alive {
            return Ok(());
        }
        let tmpl = pod.tmpl;
        let Some(ct) = pod.containers.get_mut(c) else {
            return Ok(());
        };
        if !ct.running || ct.epoch != epoch {
            return Ok(());
        }
        ct.running = false;
        ct.last_exit = Some(code);
        ct.finished_at = now;
        self.summary.container_exits += 1;
        let kind = match self.templates.get(tmpl) {
            Some(t) => t.kinds.get(c).copied().unwrap_or(Kind::Regular),
            None => return Ok(()),
        };
        let reason_s = REASONS.get(reason as usize).copied().unwrap_or("Error");
        self.record(Obj::Pod(p), Some((tmpl, c)), "Terminated", reason_s, || {
            Some(format!("exit code {code}"))
        });
        // An exit at the instant the kubelet's sync resets or ends the Pod is seen by that sync:
        // it decides nothing for this container.
        if self
            .pods
            .get(p)
            .is_some_and(|x| x.restart_all_pending || x.end_pending.is_some())
        {
            return Ok(());
        }
        // A held end (up to 1.36): once no sidecar runs, getPhase gives the terminal phase.
        if kind == Kind::Sidecar
            && self.pods.get(p).is_some_and(|x| x.end_held)
            && !self.sidecar_running(p)
            && self.release_held_end(p)
        {
            return Ok(());
        }
        let code = if completed {
            self.record(Obj::Pod(p), Some((tmpl, c)), "RuleAction", "Complete", || {
                Some("a Complete rule matched (proposal RestartRulesFuture): the container counts as succeeded".into())
            });
            if let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) {
                ct.last_exit = Some(0);
            }
            0
        } else {
            code
        };
        let decided_always_pod = self.always_pod;
        let mut decision = match decided {
            Some(d) => d,
            None => self
                .templates
                .get(tmpl)
                .and_then(|t| t.policies.get(c))
                .map(|pol| pol.decide(code))
                .unwrap_or(KubeletDecision::DoNotRestart),
        };
        // An init container that succeeded is done whatever the Pod's restartPolicy (the
        // kubelet's computeInitContainerActions restarts only a failed one): without this, a
        // Pod with restartPolicy Always re-ran its succeeded init container for ever.
        if kind == Kind::Init && code == 0 && decision == KubeletDecision::Restart {
            decision = KubeletDecision::DoNotRestart;
        }
        if kind == Kind::Sidecar && decision == KubeletDecision::DoNotRestart {
            decision = KubeletDecision::Restart; // sidecars are always restarted
        }
        // The kubelet restarts nothing in a Pod being deleted: it ends when its containers have.
        if self.pods.get(p).is_some_and(|x| x.deleting) {
            decision = KubeletDecision::DoNotRestart;
        }
        if let (Some(ap), KubeletDecision::Restart) = (decided_always_pod, decision) {
            return self.restart_pod_always_pod(p, c, tmpl, ap);
        }
        match decision {
            KubeletDecision::Restart => {
                // The restart is the sync's, after every exit of this instant (a reset or the
                // Pod's end at this instant pre-empts it); meanwhile the container counts as
                // restarting.
                if let Some(pod) = self.pods.get_mut(p) {
                    let pgen = pod.epoch;
                    if let Some(ct) = pod.containers.get_mut(c) {
                        ct.pending_start = true;
                    }
                    self.schedule(now, Ev::RestartContainer { pod: p, pgen, c });
                }
            }
            KubeletDecision::RestartAllContainers => {
                // The kubelet acts at its sync, after every exit of this instant: other
                // containers that end now end first (and are reset with the rest).
                if let Some(pod) = self.pods.get_mut(p)
                    && !pod.restart_all_pending
                {
                    pod.restart_all_pending = true;
                    let pgen = pod.epoch;
                    self.schedule(now, Ev::RestartAll { pod: p, pgen, c });
                }
            }
            // The Pod is about to restart every container: nothing ends it now.
            KubeletDecision::DoNotRestart
                if self.pods.get(p).is_some_and(|x| x.restart_all_pending) => {}
            KubeletDecision::DoNotRestart => match kind {
                Kind::Init if code == 0 => self.advance_init(p, c, now),
                Kind::Init => self.end_pod_at_sync(p, "Failed", Some("InitContainerFailed")),
                _ if !Change::PodEndsAtExitSync.at(self.decider.minor()) => {
                    // Whether the Pod ends is the sync's, after every exit of this instant.
                    if self.regulars_done(p).is_some()
                        && let Some(pod) = self.pods.get_mut(p)
                        && !pod.end_check
                    {
                        pod.end_check = true;
                        let pgen = pod.epoch;
                        self.schedule(now, Ev::PodEnd { pod: p, pgen });
                    }
                }
                _ => {
                    if let Some(phase) = self.regulars_done(p) {
                        self.end_pod_at_sync(p, phase, None);
                    }
                }
            },
        }
        Ok(())
    }

    /// The kubelet's CrashLoopBackOff as its sync at `at` applies it to container `c`, whose
    /// last run ended at `finished`: the wait from `at` before the restart (0: it starts now),
    /// the back-off that refused the start now (doBackOff's IsInBackOffSince), and whether the
    /// housekeeping's garbage collection of the entry cuts the wait short. The first restart
    /// (and the first after a run of more than 600 s) is immediate; then initial, doubling,
    /// capped at max. The entry the restart will leave (flowcontrol.Backoff.Next at the start)
    /// is kept in `pending_backoff`.
    pub(super) fn backoff_delay(
        &mut self,
        p: usize,
        c: usize,
        finished: u64,
        at: u64,
    ) -> (u64, Option<u64>, bool) {
        let (initial, max) = (self.initial_ms, self.max_ms);
        let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) else {
            return (0, None, false);
        };
        match ct.backoff {
            Some((b, last)) if finished.saturating_sub(last) <= RESET_AFTER_RUN_MS => {
                let restart_at = finished + b;
                // The kubelet's housekeeping (every 2 s) drops back-off entries not updated for
                // more than 600 s (HandlePodCleanups → Backoff.GC). When that comes before the
                // back-off ends, the next sync finds no entry and starts the container at once,
                // with a fresh entry (client-go's Backoff.Next on a missing key). A pass at the
                // very instant the back-off ends runs before the sync.
                let gc_at = (last + RESET_AFTER_RUN_MS) / HOUSEKEEPING_MS * HOUSEKEEPING_MS
                    + HOUSEKEEPING_MS;
                if gc_at <= at {
                    ct.backoff = None;
                    ct.pending_backoff = Some((initial, at));
                    return (0, None, false);
                }
                if restart_at <= at {
                    ct.pending_backoff = Some(((b.saturating_mul(2)).min(max), at));
                    return (0, None, false);
                }
                // (The entry stays until that pass: a reset that pre-empts the restart leaves
                // it to the next exit.)
                if gc_at <= restart_at {
                    ct.pending_backoff = Some((initial, gc_at));
                    return (gc_at - at, Some(b), gc_at < restart_at);
                }
                ct.pending_backoff = Some(((b.saturating_mul(2)).min(max), restart_at));
                (restart_at - at, Some(b), false)
            }
            _ => {
                ct.pending_backoff = Some((initial, at));
                (0, None, false)
            }
        }
    }

    /// Pod `p` waits from `from` until `until` (capped at the run's end) for a whole-Pod
    /// restart: one slot's time lost.
    fn lose_pod_until(&mut self, p: usize, from: u64, until: u64) {
        let until = until.min(self.end_ms);
        self.lost_ms += until.saturating_sub(from);
        if let Some(pod) = self.pods.get_mut(p) {
            pod.lost_until = pod.lost_until.max(until);
        }
    }

    pub(super) fn kill_pod(&mut self, p: usize) {
        self.set_working(p, false);
        let now = self.now;
        if let Some(pod) = self.pods.get_mut(p) {
            // A wait counted past the Pod's end never happens: a back-off (a sidecar's, say)
            // still pending when the Pod ended is time lost only up to the end. What the slot
            // waits after that is its replacement's (counted when it is created).
            let after_end = pod
                .containers
                .iter()
                .map(|ct| ct.lost_until)
                .chain([pod.lost_until])
                .map(|until| until.saturating_sub(now))
                .sum::<u64>();
            self.lost_ms = self.lost_ms.saturating_sub(after_end);
            pod.lost_until = 0;
            for ct in pod.containers.iter_mut() {
                ct.lost_until = 0;
            }
            pod.alive = false;
            pod.epoch += 1;
            for ct in pod.containers.iter_mut() {
                ct.running = false;
                ct.pending_start = false;
            }
        }
    }

    /// The Pod's Ready condition after a container started or stopped: `unready_since` keeps
    /// when it last turned False (the finish time the Job controller reads for a Pod that
    /// never ends on its own, on a lost node).
    pub(super) fn track_readiness(&mut self, p: usize) {
        let now = self.now;
        self.update_live_phase(p);
        let ready = self
            .pods
            .get(p)
            .is_some_and(|x| x.alive && self.pod_ready(x));
        let on_live_node = self.pods.get(p).is_some_and(|x| x.node.is_none());
        self.set_working(p, ready && on_live_node);
        if let Some(pod) = self.pods.get_mut(p) {
            match (ready, pod.unready_since) {
                (true, Some(_)) => pod.unready_since = None,
                (false, None) => pod.unready_since = Some(now),
                _ => {}
            }
        }
    }

    /// Pod `p` starts or stops running ready on a live node: the time during which every slot
    /// of the workload has such a Pod is what a synchronous job (every worker needed) gets done.
    pub(super) fn set_working(&mut self, p: usize, working: bool) {
        let Some(pod) = self.pods.get_mut(p) else {
            return;
        };
        if pod.working == working {
            return;
        }
        pod.working = working;
        let was_all = self.slots > 0 && self.working == self.slots;
        if working {
            self.working += 1;
        } else {
            self.working = self.working.saturating_sub(1);
        }
        let is_all = self.slots > 0 && self.working == self.slots;
        match (was_all, is_all) {
            (false, true) => self.all_working_since = Some(self.now),
            (true, false) => {
                if let Some(since) = self.all_working_since.take() {
                    self.all_working_ms += self.now.min(self.end_ms).saturating_sub(since);
                }
            }
            _ => {}
        }
    }

    /// The phase of a Pod that has not ended, as the kubelet's getPhase gives it: Pending while
    /// a regular init container runs or has never run, or a container (a regular one, or a
    /// sidecar) has never run; else Running. A container that ran before waits with its last
    /// termination and counts as stopped, so a Pod whose init containers run again after a
    /// RestartAllContainers reset is Pending only while one of them runs.
    pub(super) fn update_live_phase(&mut self, p: usize) {
        self.live_phase_at(p, None);
    }

    /// The phase at the run's end (up to 1.32): the housekeeping's collections after the last
    /// sync that changed something may have synced the Pod again.
    pub(super) fn final_live_phase(&mut self, p: usize) {
        self.live_phase_at(p, Some(self.now));
    }

    /// `collected_until`: the phase as the last sync (at `phase_at`) computed it, and the syncs
    /// of the housekeeping's collections up to this instant.
    fn live_phase_at(&mut self, p: usize, collected_until: Option<u64>) {
        let Some(pod) = self.pods.get(p) else {
            return;
        };
        if !pod.alive || !matches!(pod.phase, "Pending" | "Running") {
            return;
        }
        let kinds = self
            .templates
            .get(pod.tmpl)
            .map(|t| t.kinds.as_slice())
            .unwrap_or(&[]);
        let mut pending = pod.containers.iter().zip(kinds).any(|(ct, k)| match k {
            Kind::Init => ct.running || ct.instances == 0,
            Kind::Sidecar | Kind::Regular => !ct.running && ct.instances == 0,
        });
        // Up to 1.32 getPhase runs before the prober sets a sidecar's `started`
        // (kubelet_pods.go:1779 and :1828 in v1.31.13), so a running sidecar counts as pending
        // initialization, and the Pod is Pending unless a regular container shows Running or
        // Terminated: one waiting in CrashLoopBackOff does not (HasAnyRegularContainerStarted,
        // container/helpers.go:396-416).
        if !Change::SidecarStartedBeforePhase.at(self.decider.minor()) && !pending {
            let sidecar_running = pod
                .containers
                .iter()
                .zip(kinds)
                .any(|(ct, k)| *k == Kind::Sidecar && ct.running);
            // The refusal is in the reason cache from the sync after it: one that follows a
            // later change, or the housekeeping's collection of a back-off entry.
            let now = if collected_until.is_some() {
                pod.phase_at
            } else {
                self.now
            };
            let gc_until = collected_until.unwrap_or(now);
            let collected_since = |t: u64| {
                pod.containers.iter().any(|ct| {
                    ct.backoff.is_some_and(|(_, last)| {
                        let gc_at = (last + RESET_AFTER_RUN_MS) / HOUSEKEEPING_MS * HOUSEKEEPING_MS
                            + HOUSEKEEPING_MS;
                        t < gc_at && gc_at <= gc_until
                    })
                })
            };
            let waiting_shown = |ct: &Container| {
                ct.backoff_refused
                    && (ct.refused_at.0 < now
                        || (pod.starts.1 == now && pod.starts.0 > ct.refused_at.1)
                        || collected_since(ct.refused_at.0))
            };
            let regular_shown = pod.containers.iter().zip(kinds).any(|(ct, k)| {
                *k == Kind::Regular && (ct.running || (ct.instances > 0 && !waiting_shown(ct)))
            });
            pending = sidecar_running && !regular_shown;
        }
        let phase = if pending { "Pending" } else { "Running" };
        let now = self.now;
        if let Some(pod) = self.pods.get_mut(p) {
            pod.phase = phase;
            if collected_until.is_none() {
                pod.phase_at = now;
            }
        }
    }

    /// The Pod ends at the kubelet's sync of this instant, after its other exits.
    fn end_pod_at_sync(&mut self, p: usize, phase: &'static str, reason: Option<&'static str>) {
        let now = self.now;
        if let Some(pod) = self.pods.get_mut(p)
            && pod.end_pending.is_none()
        {
            pod.end_pending = Some((phase, reason));
            let pgen = pod.epoch;
            self.schedule(now, Ev::PodEnd { pod: p, pgen });
        }
    }

    /// A RestartAllContainers rule matched container `c` at this instant: every container is
    /// stopped and removed, and the Pod starts again from its first init container.
    pub(super) fn on_restart_all(
        &mut self,
        p: usize,
        pgen: u32,
        c: usize,
    ) -> Result<(), Diagnostic> {
        let now = self.now;
        let Some(pod) = self.pods.get_mut(p) else {
            return Ok(());
        };
        if !pod.alive || pod.epoch != pgen || !pod.restart_all_pending {
            return Ok(());
        }
        // No back-off applies to a reset: runs of 0 s that end in one reset the Pod at the same
        // instant for ever (the kubelet would spin; real runs last longer than 0 s).
        pod.resets_at = match pod.resets_at {
            (t, n) if t == now => (t, n + 1),
            _ => (now, 1),
        };
        if pod.resets_at.1 > MAX_RESETS_AT_ONE_INSTANT {
            let name = pod.name.clone();
            return Err(Diagnostic::request(
                "no-progress",
                "exits",
                format!(
                    "Pod {name} makes no progress at t={}s: a RestartAllContainers rule resets it more than {MAX_RESETS_AT_ONE_INSTANT} times at this instant (runs of 0 s that end in a reset repeat for ever: no back-off applies to resets); give those runs a duration or a number of times",
                    now as f64 / 1000.0
                ),
            ));
        }
        pod.restart_all_pending = false;
        pod.end_held = false;
        pod.end_check = false;
        let tmpl = pod.tmpl;
        self.summary.whole_pod_restarts += 1;
        self.record(
            Obj::Pod(p),
            Some((tmpl, c)),
            "RestartAllContainers",
            "AllContainersRestarting",
            || {
                Some(
                    "a RestartAllContainers rule matched: every container restarts, init containers first"
                        .into(),
                )
            },
        );
        // The removed containers' restart counts go up now, for those whose status was
        // Running or Terminated (the kubelet's convertToAPIContainerStatuses: Waiting with
        // RestartingAllContainers, restartCount + 1); a container already waiting (its restart
        // refused by the back-off: the reason cache holds CrashLoopBackOff; or never started)
        // keeps its count, and a start after the reset adds none. An init container or sidecar
        // that exited 0 shows Terminated whatever the reason cache holds (that conversion
        // skips it: v1.37.2 kubelet_pods.go:2731-2737).
        let kinds = self
            .templates
            .get(tmpl)
            .map(|t| t.kinds.clone())
            .unwrap_or_default();
        if let Some(pod) = self.pods.get_mut(p) {
            pod.epoch += 1;
            for (ct, kind) in pod
                .containers
                .iter_mut()
                .zip(kinds.iter().chain(std::iter::repeat(&Kind::Regular)))
            {
                let shown_waiting =
                    ct.backoff_refused && !(*kind != Kind::Regular && ct.last_exit == Some(0));
                // (Removed by an earlier reset and not started since: Waiting already.)
                let waiting =
                    !ct.running && (shown_waiting || ct.last_exit.is_none() || ct.removed_by_reset);
                ct.removed_by_reset = true;
                if !waiting {
                    ct.restart_count += 1;
                    self.summary.in_place_restarts += 1;
                }
                ct.restarting = false;
                ct.running = false;
                ct.pending_start = false;
                ct.pending_backoff = None;
                ct.backoff_refused = false;
                ct.deferred_since = None;
                ct.restart_waits = false;
            }
        }
        self.lose_pod_until(p, now, now + self.startup_ms);
        self.start_pod_sequence(p, now);
        self.track_readiness(p);
        Ok(())
    }

    /// The kubelet's sync restarts container `c` after its exit (at this instant, or later when
    /// the restart waited for the Pod's initialization): its back-off (CrashLoopBackOff when it
    /// holds), then its start.
    pub(super) fn on_restart_container(&mut self, p: usize, pgen: u32, c: usize) {
        let now = self.now;
        let Some(pod) = self.pods.get(p) else {
            return;
        };
        if !pod.alive || pod.epoch != pgen || pod.restart_all_pending || pod.end_pending.is_some() {
            return;
        }
        let tmpl = pod.tmpl;
        let regular = self
            .templates
            .get(tmpl)
            .and_then(|t| t.kinds.get(c))
            .is_none_or(|k| *k == Kind::Regular);
        if regular && !self.regulars_may_start(p) {
            if let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) {
                ct.restarting = true;
                ct.restart_waits = false;
                ct.deferred_since.get_or_insert(now);
            }
            return;
        }
        let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) else {
            return;
        };
        let since = ct.deferred_since.take().unwrap_or(now);
        let finished = ct.finished_at;
        // The name only feeds timeline messages: a full timeline skips the copy.
        let name = if self.timeline.len() < self.max_timeline {
            self.templates
                .get(tmpl)
                .and_then(|t| t.names.get(c))
                .cloned()
                .unwrap_or_default()
        } else {
            String::new()
        };
        let (wait, refused, cut) = self.backoff_delay(p, c, finished, now);
        let start_at = now + wait;
        if let Some(pod) = self.pods.get_mut(p) {
            let starts = pod.starts.0;
            if let Some(ct) = pod.containers.get_mut(c) {
                ct.restarting = true;
                if refused.is_some() {
                    ct.backoff_refused = true;
                    ct.refused_at = (now, starts);
                }
                ct.restart_waits = wait > 0;
            }
        }
        let resume = (start_at + self.startup_ms).min(self.end_ms);
        self.lost_ms += resume.saturating_sub(since);
        if let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) {
            ct.lost_until = ct.lost_until.max(resume);
        }
        if let Some(b) = refused {
            self.record(
                Obj::Pod(p),
                Some((tmpl, c)),
                "BackOff",
                "CrashLoopBackOff",
                || {
                    Some(if cut {
                        format!(
                            "back-off {}s restarting failed container={name}; the kubelet's housekeeping drops the entry (unchanged for 600 s) after {}s",
                            b as f64 / 1000.0,
                            wait as f64 / 1000.0
                        )
                    } else {
                        format!(
                            "back-off {}s restarting failed container={name}",
                            b as f64 / 1000.0
                        )
                    })
                },
            );
        }
        self.start_container(p, c, start_at + self.startup_ms);
        // A refused restart shows the container Waiting (CrashLoopBackOff).
        self.update_live_phase(p);
    }
}

/// How a scripted run ends: the container exits, its node is lost, or the Pod is disrupted.
#[derive(Clone, Copy)]
enum RunEnd {
    Exit,
    NodeLost,
    Disrupted(crate::simulate::scenario::Disruption),
}
