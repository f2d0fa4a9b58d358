//! The discrete-event loop: containers start and exit, the kubelet restarts them (with
//! CrashLoopBackOff), Pods end, the Job controller counts and replaces them, the JobSet
//! controller restarts or fails the set. Time is integer milliseconds; ties are broken by the
//! order events were scheduled, and randomness comes from one seeded generator, so the same
//! scenario always gives the same timeline.

use super::decide::{ContainerShape, Decider, FailureShape, PodFailureOutcome};
use super::scenario::{FaultKind, Scenario, Selector};
use super::{ContainerSummary, JobSetSummary, JobSummary, PodSummary, SimulationEvent, Summary};
use crate::api::{
    Condition, ContainerState, ContainerStateRunning, ContainerStateTerminated,
    ContainerStateWaiting, ContainerStatus, Job, JobSet, JobStatus, ObjectMeta, Pod, PodStatus,
    ReplicatedJobStatus,
};
use crate::diag::Diagnostic;
use crate::eval::job_compiled::{CompiledPodFailurePolicy, Decision, UNKNOWN_CONTAINER};
use crate::eval::kubelet::{CompiledContainerPolicy, KubeletDecision};
use crate::features::FeatureGates;
use dary_heap::QuaternaryHeap;
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::cmp::Reverse;

mod job_controller;

const RESET_AFTER_RUN_MS: u64 = 600_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Init,
    Sidecar,
    Regular,
}

/// A Pod template: the Pod itself, or the template of one replicatedJob / Job.
pub(super) struct Template {
    /// The Pod as the policies see it (a Job's: `v1` Pod named `pod` with the template's spec).
    pub pod: Pod,
    /// The defaulted Job (a replicatedJob's template as a `batch/v1` Job).
    pub job: Option<Job>,
    pub names: Vec<String>,
    kinds: Vec<Kind>,
    /// The kubelet's decision table of each container, in `names` order.
    policies: Vec<CompiledContainerPolicy>,
    pub replicated_job: Option<String>,
    /// Job shape (1 for a bare Pod).
    pub completions: u32,
    pub parallelism: u32,
    pub backoff_limit: i64,
    pub per_index: Option<i64>,
    pub max_failed_indexes: Option<i64>,
    pub on_failure: bool,
    pub replicas: u32,
    pub active_deadline_ms: Option<u64>,
    /// completionMode Indexed.
    pub indexed: bool,
    /// A Job without completions (a work queue).
    pub work_queue: bool,
    /// podReplacementPolicy Failed (explicit, or the default of a Job with a podFailurePolicy):
    /// a terminating Pod is neither replaced nor counted until it has failed.
    pub only_replace_failed: bool,
    /// The Pods' terminationGracePeriodSeconds (default 30 s), in ms.
    pub grace_ms: u64,
    /// successPolicy rules (Indexed Jobs).
    success_rules: Vec<job_controller::SuccessRule>,
    /// The Job's podFailurePolicy compiled (None for a bare Pod, or a policy the compiled form
    /// cannot hold: the policy's own function then answers), and each container's index in it.
    pfp: Option<CompiledPodFailurePolicy>,
    pfp_index: Vec<usize>,
    /// Proposal RestartRulesFuture: each container (in `names` order) whose rules the proposal
    /// decides, with the Pod's restartPolicy for when none of its rules matches.
    future: Vec<Option<(crate::api::Container, Option<String>)>>,
}

/// Proposal AlwaysPod's extra cost per whole-Pod restart, in ms (the sandbox's recreation).
#[derive(Debug, Clone, Copy)]
struct AlwaysPod {
    sandbox_ms: u64,
}

impl Template {
    pub fn new(
        pod: Pod,
        gates: &FeatureGates,
        job: Option<Job>,
        replicated_job: Option<String>,
        replicas: u32,
    ) -> Self {
        let spec = &pod.spec;
        let policies = spec
            .init_containers
            .iter()
            .chain(spec.containers.iter())
            .map(|c| CompiledContainerPolicy::new(c, spec, gates))
            .collect();
        let mut names = Vec::new();
        let mut kinds = Vec::new();
        for c in &spec.init_containers {
            names.push(c.name.clone());
            kinds.push(if c.restart_policy.as_deref() == Some("Always") {
                Kind::Sidecar
            } else {
                Kind::Init
            });
        }
        for c in &spec.containers {
            names.push(c.name.clone());
            kinds.push(Kind::Regular);
        }
        let js = job.as_ref().map(|j| &j.spec);
        let parallelism = js
            .and_then(|s| s.parallelism)
            .map_or(1, i64::from)
            .clamp(0, 1_000_000) as u32;
        let completions_set = js.and_then(|s| s.completions);
        // No completions (after defaulting): a work queue of `parallelism` Pods, done once one
        // has succeeded and none is active. Its slots are the parallel Pods.
        let work_queue = job.is_some() && completions_set.is_none();
        let completions = match completions_set {
            Some(c) => i64::from(c).clamp(1, 1_000_000) as u32,
            None => parallelism.max(1),
        };
        let per_index = js.and_then(|s| s.backoff_limit_per_index).map(i64::from);
        let default_limit = if per_index.is_some() {
            i64::from(i32::MAX)
        } else {
            6
        };
        let pfp = job
            .as_ref()
            .and_then(|j| CompiledPodFailurePolicy::from_job(j, gates).ok());
        let has_pfp = js.is_some_and(|s| s.pod_failure_policy.is_some());
        let only_replace_failed = match js.and_then(|s| s.pod_replacement_policy.as_deref()) {
            Some(p) => p == "Failed",
            None => has_pfp,
        };
        let success_rules = js
            .and_then(|s| s.success_policy.as_ref())
            .and_then(|p| p.rules.as_ref())
            .into_iter()
            .flatten()
            .filter_map(|r| {
                let count = r.succeeded_count.and_then(|c| u32::try_from(c).ok());
                match r.succeeded_indexes.as_deref() {
                    // A rule whose indexes do not parse is skipped, as upstream skips it.
                    Some(ix) => job_controller::parse_indexes(ix, completions).map(|indexes| {
                        job_controller::SuccessRule {
                            indexes: Some(indexes),
                            count,
                        }
                    }),
                    None => Some(job_controller::SuccessRule {
                        indexes: None,
                        count,
                    }),
                }
            })
            .collect();
        let grace_ms = spec.termination_grace_period_seconds.unwrap_or(30).max(0) as u64 * 1000;
        let pfp_index = pfp
            .as_ref()
            .map(|c| {
                names
                    .iter()
                    .map(|n| c.container_index(n).unwrap_or(UNKNOWN_CONTAINER))
                    .collect()
            })
            .unwrap_or_default();
        Template {
            pfp,
            pfp_index,
            future: Vec::new(),
            on_failure: spec.restart_policy.as_deref() == Some("OnFailure"),
            backoff_limit: js
                .and_then(|s| s.backoff_limit)
                .map_or(default_limit, i64::from),
            per_index,
            max_failed_indexes: js.and_then(|s| s.max_failed_indexes).map(i64::from),
            active_deadline_ms: js
                .and_then(|s| s.active_deadline_seconds)
                .map(|s| s.max(0) as u64 * 1000),
            indexed: js.and_then(|s| s.completion_mode.as_deref()) == Some("Indexed"),
            only_replace_failed,
            work_queue,
            grace_ms,
            success_rules,
            completions: if job.is_some() { completions } else { 1 },
            parallelism: if job.is_some() {
                parallelism.min(completions)
            } else {
                1
            },
            pod,
            job,
            names,
            kinds,
            policies,
            replicated_job,
            replicas,
        }
    }
}

/// Bits of an event key (see `Engine::queue`).
const SEQ_BITS: u32 = 40;
const SLOT_BITS: u32 = 24;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Start {
        pod: usize,
        c: usize,
        epoch: u32,
    },
    Exit {
        pod: usize,
        c: usize,
        epoch: u32,
        code: i32,
        reason: u8,
    },
    /// A sync of the Job by the Job controller (its work queue's entry for the Job).
    SyncJob {
        job: usize,
        jgen: u32,
    },
    /// The grace period of a deleted Pod is over.
    Kill {
        pod: usize,
        pgen: u32,
    },
    Fault {
        pod: usize,
        fault: usize,
        pgen: u32,
    },
    Crr {
        action: usize,
    },
    /// A reconcile of the JobSet by its controller, after the Job syncs of its instant (it sees
    /// every Job that finished then, as upstream's reconcile lists them).
    ReconcileJobSet,
    /// A scripted node failure (`exits[].nodeFailure`) for Pod `pod` while it is in `pgen`.
    NodeFailure {
        pod: usize,
        pgen: u32,
    },
}

#[derive(Debug, Clone, Copy)]
enum Obj {
    Pod(usize),
    Job(usize),
    JobSet,
}

const REASONS: [&str; 5] = [
    "Error",
    "Completed",
    "OOMKilled",
    "ContainerRecreateRequest",
    "Killed",
];

#[derive(Debug, Clone, Default)]
struct Container {
    restart_count: u32,
    running: bool,
    pending_start: bool,
    /// The pending start is a restart (restartCount goes up when it happens, as in Pod status).
    restarting: bool,
    last_exit: Option<i32>,
    /// CrashLoopBackOff entry: (current backoff ms, lastUpdate ms).
    backoff: Option<(u64, u64)>,
    epoch: u32,
}

#[derive(Debug, Clone)]
struct PodState {
    name: String,
    tmpl: usize,
    job: Option<usize>,
    index: u32,
    /// Creation order (a slot is used again once its Pod is of no further interest).
    created: u64,
    /// The slot is free (in `free_pods`).
    freed: bool,
    epoch: u32,
    alive: bool,
    phase: &'static str,
    reason: Option<&'static str>,
    containers: Vec<Container>,
    conditions: Vec<&'static str>,
    /// The Job controller deleted it; it terminates when its grace period is over.
    deleting: bool,
    /// The Job controller has accounted for it (upstream: removed its tracking finalizer).
    counted: bool,
    /// When it reached Succeeded or Failed, in ms.
    finished_ms: u64,
    /// The podFailurePolicy outcome, decided from its statuses when it failed.
    outcome: Option<PodFailureOutcome>,
}

#[derive(Debug, Clone)]
struct IndexState {
    done: bool,
    failed: bool,
    failure_count: u32,
    ignored: u32,
    active: Option<usize>,
    /// A Pod was created for this index before (the next one is a replacement).
    started: bool,
    /// When its last Pod failed, in ms (the per-index back-off runs from there).
    last_finish_ms: Option<u64>,
}

/// The Pod counts a Job's status carries: status.active, status.ready and status.terminating
/// (tracked while JobPodReplacementPolicy is on).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct StatusCounts {
    active: u32,
    ready: u32,
    terminating: Option<u32>,
}

#[derive(Debug, Clone)]
struct JobState {
    name: String,
    tmpl: usize,
    job_index: u32,
    /// Which Job of the run this is (its creation number): a queued sync names it, as the
    /// Job's slot is used again once the Job is gone and its Pods are of no further interest.
    creation: u32,
    /// Its Pods whose slots are still in use.
    pods_left: u32,
    /// The restart attempt it belongs to.
    epoch: u32,
    phase: &'static str,
    reason: Option<String>,
    message: Option<String>,
    failed: u32,
    succeeded: u32,
    failed_indexes: u32,
    indexes: Vec<IndexState>,
    pods_created: u32,
    /// Every Pod of this Job, in creation order.
    pods: Vec<usize>,
    /// The interim conditions: FailureTarget and SuccessCriteriaMet (reason, message).
    failure_target: Option<(String, String)>,
    success_target: Option<(String, String)>,
    /// The controller's pod-failure back-off record: failures since the last success and the
    /// last failure's finish time (ms).
    backoff_failures: u32,
    last_failure_ms: Option<u64>,
    /// status.startTime (ms): the Job's first sync.
    start_ms: u64,
    /// When the Job's pending sync is due (its work-queue entry), if any.
    sync_at: Option<u64>,
    /// Consecutive syncs that failed (the work queue's rate limiter: the next retry waits
    /// 1 s doubled per failure, at most 60 s); a sync that succeeds starts it over.
    sync_errors: u32,
    /// The sync now running failed (its status update was refused).
    sync_failed: bool,
    /// What the Job's status says (active, ready, terminating) as its last sync that wrote it
    /// left it: a sync writes only when something changed (upstream's needsFlush).
    written: StatusCounts,
    /// What `written` was before a Pod update at this instant took its sync as done (the
    /// instant, the status before): every update and sync of one instant are one sync in the
    /// controller's work queue, so when that sync is refused none of them wrote.
    written_before: Option<(u64, StatusCounts)>,
    /// The last sync held Pod creation back for the pod-failure back-off.
    held: bool,
    /// The last sync left an index waiting for its back-off (it may have created others): the
    /// next sync holds.
    index_waiting: bool,
    /// The sync counted something its status update has to carry (finished Pods, failed
    /// indexes, a condition); a refused sync leaves it set, as the retry counts them again.
    status_changed: bool,
    /// The back-off record in the controller's store: a sync stores its new record only when
    /// it writes the Job's status. `backoff_failures`/`last_failure_ms` are the record the next
    /// sync starts from (the store's, plus the Pods a refused sync found and the next finds
    /// again).
    stored_backoff: (u32, Option<u64>),
    /// Every Pod of this Job, in creation order, also those counted and gone (`pods` keeps
    /// only what a sync still has to look at): the garbage collector deletes what is left.
    all_pods: Vec<usize>,
    /// The JobSet controller deleted it (foreground propagation): its Pods are being deleted
    /// and it goes when none is left (`deleted_ms`: since when).
    deleting: bool,
    deleted_ms: u64,
    /// Its JobSet controller creates it again once it is gone (a restart).
    recreate_when_gone: bool,
    /// A RestartJob action chose it: the next reconcile deletes it.
    restart_pending: bool,
    /// When it got its Failed condition (ms).
    failed_ms: u64,
}

pub(super) struct Engine<'a> {
    sc: &'a Scenario,
    pub templates: Vec<Template>,
    /// The defaulted JobSet (its spec; the failure policy gets it with the run's status).
    jobset: Option<JobSet>,
    decider: Decider,
    initial_ms: u64,
    always_pod: Option<AlwaysPod>,
    max_ms: u64,
    startup_ms: u64,
    reschedule_ms: u64,
    end_ms: u64,
    /// Pending events, each one integer: time (high 64 bits), sequence number (next 40: keeps
    /// same-time events in scheduling order), slot in `events` (low 24). Popping the heap is
    /// most of a run's cost, and a primitive key compares and moves least.
    // A 4-ary heap: half the depth of a binary one, and popping is most of a run's time.
    queue: QuaternaryHeap<Reverse<u128>>,
    events: Vec<Ev>,
    free_slots: Vec<u32>,
    seq: u64,
    /// Set when the run outgrew the event key (see `queue`); the run then ends with an error.
    overflow: bool,
    now: u64,
    rng: u64,
    pods: Vec<PodState>,
    jobs: Vec<JobState>,
    /// The Jobs not yet gone (phase other than `Deleted`), in creation order: what a reconcile
    /// lists. A long run creates Jobs by the hundred thousand; the controllers look at these.
    live_jobs: Vec<usize>,
    /// The newest Job of each name: only it can exist (a Job is created again only once its
    /// predecessor is gone), and its Pod count is where its successor's Pod names go on.
    newest_job_by_name: FxHashMap<String, usize>,
    /// Jobs deleted to be created again once gone (`recreate_when_gone`).
    awaiting_recreation: Vec<usize>,
    /// The newest Pod of each Job index, by Job name (what `results` reports).
    newest_pods: FxHashMap<String, Vec<usize>>,
    /// Slots of Pods of no further interest, to be used again: a run that recreates a
    /// 1,024-Pod JobSet hundreds of times keeps only the Pods that still matter.
    free_pods: Vec<usize>,
    /// Slots of gone Jobs whose successor exists and whose Pods are all freed.
    free_jobs: Vec<usize>,
    /// Script cursors keyed by (template, job index, pod index, container) so they survive Pod
    /// replacement and JobSet restarts: the script is per container of the workload.
    cursors: FxHashMap<(usize, u32, u32, usize), (usize, u32)>,
    /// Scripted exits that can apply to each (template, container).
    scripts: Vec<Vec<Vec<usize>>>,
    pub summary: Summary,
    pub timeline: Vec<SimulationEvent>,
    max_timeline: usize,
    js_restarts: i64,
    js_restarts_towards_max: i64,
    js_phase: &'static str,
    js_reason: Option<String>,
    js_message: Option<String>,
    attempt: u32,
    /// The instant of the JobSet's pending reconcile, if any.
    js_reconcile_at: Option<u64>,
    /// status.replicatedJobsStatus as the failure policy last left it: the per-Job restart
    /// counters of RestartJob actions (one entry per replicatedJob, as the controller keeps).
    js_rj_status: Vec<ReplicatedJobStatus>,
}

fn matches(
    sel: &Selector,
    rj: Option<&str>,
    job_index: u32,
    pod_index: u32,
    container: Option<&str>,
) -> bool {
    sel.replicated_job.is_none_or(|r| Some(r) == rj)
        && sel.job_index.is_none_or(|j| j == job_index)
        && sel.pod_index.is_none_or(|p| p == pod_index)
        && match (sel.container, container) {
            (Some(want), Some(c)) => want == c,
            _ => true,
        }
}

impl<'a> Engine<'a> {
    pub fn new(
        sc: &'a Scenario,
        templates: Vec<Template>,
        jobset: Option<JobSet>,
        decider: Decider,
        end_ms: u64,
    ) -> Result<Self, Diagnostic> {
        let (initial_ms, max_ms) = decider.crash_loop(sc.kubelet_config.as_ref())?;
        let mut templates = templates;
        if sc
            .proposals
            .contains(&crate::proposals::Proposal::RestartRulesFuture)
        {
            for t in templates.iter_mut() {
                t.future = future_rules_of(&t.pod);
            }
        }
        // KEP-4603's Rapid curve replaces the node's: the Pod opted in (restartPolicy: Rapid in
        // the KEP; here the scenario's proposal, for every container of the workload).
        let (initial_ms, max_ms) = if sc.proposals.contains(&crate::proposals::Proposal::Rapid) {
            (250, 60_000)
        } else {
            (initial_ms, max_ms)
        };
        let scripts = templates
            .iter()
            .map(|t| {
                t.names
                    .iter()
                    .map(|n| {
                        sc.exits
                            .iter()
                            .enumerate()
                            .filter(|(_, e)| {
                                e.container.as_deref().is_none_or(|c| c == n)
                                    && e.replicated_job
                                        .as_deref()
                                        .is_none_or(|r| Some(r) == t.replicated_job.as_deref())
                            })
                            .map(|(i, _)| i)
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let ms = |s: f64| {
            super::scenario::secs_to_ms(s).ok_or_else(|| {
                Diagnostic::request(
                    "invalid-input",
                    "",
                    format!("{s} is not a duration in seconds"),
                )
            })
        };
        Ok(Engine {
            sc,
            templates,
            jobset,
            decider,
            initial_ms,
            always_pod: None,
            max_ms,
            startup_ms: ms(sc.startup_seconds)?,
            reschedule_ms: ms(sc.pod_reschedule_seconds)?,
            end_ms,
            queue: QuaternaryHeap::new(),
            events: Vec::new(),
            free_slots: Vec::new(),
            seq: 0,
            overflow: false,
            now: 0,
            rng: sc.seed ^ 0x9E37_79B9_7F4A_7C15,
            pods: Vec::new(),
            jobs: Vec::new(),
            live_jobs: Vec::new(),
            newest_job_by_name: FxHashMap::default(),
            awaiting_recreation: Vec::new(),
            newest_pods: FxHashMap::default(),
            free_pods: Vec::new(),
            free_jobs: Vec::new(),
            cursors: FxHashMap::default(),
            scripts,
            summary: Summary::default(),
            timeline: Vec::new(),
            max_timeline: sc.max_timeline_events.unwrap_or(10_000),
            js_restarts: 0,
            js_restarts_towards_max: 0,
            js_phase: "Running",
            js_reason: None,
            js_message: None,
            attempt: 0,
            js_reconcile_at: None,
            js_rj_status: Vec::new(),
        })
    }

    fn schedule(&mut self, t: u64, ev: Ev) {
        if t <= self.end_ms {
            self.seq += 1;
            let slot = match self.free_slots.pop() {
                Some(slot) => {
                    if let Some(e) = self.events.get_mut(slot as usize) {
                        *e = ev;
                    }
                    slot
                }
                None => {
                    self.events.push(ev);
                    // More pending events than u32 slots cannot fit in memory anyway.
                    u32::try_from(self.events.len() - 1).unwrap_or(u32::MAX)
                }
            };
            if self.seq >= 1 << (SEQ_BITS - 2) || slot >= 1 << SLOT_BITS {
                // Beyond any run that finishes in reasonable time; say so rather than misorder.
                self.overflow = true;
                return;
            }
            // A controller's sync runs after everything else that happens at its instant (the
            // top sequence bit): it sees every Pod change of that instant, as the oracle's
            // harness delivers them (docs/simulation.md, "Assumptions").
            let seq = match ev {
                Ev::SyncJob { .. } => self.seq | 1 << (SEQ_BITS - 2),
                // The JobSet controller reconciles after that still: after every Job sync of
                // its instant, also those the syncs cause (docs/simulation.md, "Assumptions").
                Ev::ReconcileJobSet => self.seq | 1 << (SEQ_BITS - 1),
                _ => self.seq,
            };
            self.queue.push(Reverse(
                u128::from(t) << 64 | u128::from(seq) << SLOT_BITS | u128::from(slot),
            ));
        }
    }

    fn next_event(&mut self) -> Option<(u64, Ev)> {
        loop {
            let Reverse(key) = self.queue.pop()?;
            let t = (key >> 64) as u64;
            let slot = (key & ((1 << SLOT_BITS) - 1)) as u32;
            self.free_slots.push(slot);
            if let Some(ev) = self.events.get(slot as usize) {
                return Some((t, *ev));
            }
        }
    }

    /// splitmix64: a small, well-known generator; seeded, so runs repeat exactly.
    fn next_u64(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Adds a timeline event; names and messages are only built while the timeline has room,
    /// so long runs pay for counting only.
    fn record(
        &mut self,
        object: Obj,
        container: Option<(usize, usize)>,
        event: &str,
        reason: &str,
        message: impl FnOnce() -> Option<String>,
    ) {
        self.summary.events += 1;
        if self.timeline.len() >= self.max_timeline {
            self.summary.timeline_truncated = true;
            return;
        }
        let pod_index = match object {
            Obj::Pod(p) => self
                .pods
                .get(p)
                .filter(|x| x.job.is_some())
                .map(|x| x.index),
            _ => None,
        };
        let object = self.obj_name(object);
        let container = container
            .and_then(|(t, c)| self.templates.get(t).and_then(|t| t.names.get(c)).cloned());
        self.timeline.push(SimulationEvent {
            t: self.now as f64 / 1000.0,
            object,
            container,
            pod_index,
            event: event.to_owned(),
            reason: reason.to_owned(),
            message: message(),
        });
    }

    fn obj_name(&self, o: Obj) -> String {
        match o {
            Obj::Pod(p) => self.pod_obj(p),
            Obj::Job(j) => self.job_obj(j),
            Obj::JobSet => self.jobset_name(),
        }
    }

    fn pod_obj(&self, p: usize) -> String {
        let ns = self.namespace();
        format!(
            "pod/{ns}/{}",
            self.pods.get(p).map(|x| x.name.as_str()).unwrap_or("")
        )
    }
    fn namespace(&self) -> String {
        let w = &self.sc.workload;
        w.pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("default")
            .to_owned()
    }

    pub fn run(&mut self) -> Result<(), Diagnostic> {
        self.start_workload()?;
        for (i, a) in self.sc.container_recreate_requests.iter().enumerate() {
            let t = super::scenario::secs_to_ms(a.at_seconds).unwrap_or(u64::MAX);
            self.schedule(t, Ev::Crr { action: i });
        }
        while let Some((t, ev)) = self.next_event() {
            if self.overflow {
                return Err(Diagnostic::request(
                    "too-large",
                    "scenario",
                    format!(
                        "the simulation needs more than {} pending events or {} events in all; shorten runFor or the workload",
                        1u64 << SLOT_BITS,
                        1u64 << SEQ_BITS
                    ),
                ));
            }
            self.now = t;
            self.step(ev)?;
            if self.js_phase != "Running" {
                break;
            }
        }
        // A workload still running when time runs out ran for the whole runFor; one that ended
        // earlier (everything terminal) ended at its last event.
        if self.pods.iter().any(|p| p.alive) && self.js_phase == "Running" {
            self.now = self.end_ms;
        }
        self.summary.end_seconds = self.now as f64 / 1000.0;
        Ok(())
    }

    fn start_workload(&mut self) -> Result<(), Diagnostic> {
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

    fn create_jobs(&mut self, t: u64) {
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

    fn create_job(&mut self, tmpl: usize, job_index: u32, name: String, t: u64) {
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
            all_pods: Vec::new(),
            deleting: false,
            deleted_ms: 0,
            recreate_when_gone: false,
            restart_pending: false,
            failed_ms: 0,
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

    fn new_pod(
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

    fn pod_identity(&self, p: usize) -> (Option<&str>, u32, u32) {
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

    fn schedule_fault(&mut self, p: usize, fi: usize, t: u64) {
        let Some(f) = self.sc.faults.get(fi) else {
            return;
        };
        if f.rate_per_hour.is_nan() || f.rate_per_hour <= 0.0 {
            return;
        }
        let rate = f.rate_per_hour;
        let sel = f.selector();
        let (rj, ji, pi) = self.pod_identity(p);
        if !matches(&sel, rj, ji, pi, None) {
            return;
        }
        let epoch = self.pods.get(p).map(|x| x.epoch).unwrap_or(0);
        let u = self.uniform();
        let wait_ms = (-u.ln() / rate * 3_600_000.0).min(1e15) as u64;
        self.schedule(
            t.saturating_add(wait_ms.max(1)),
            Ev::Fault {
                pod: p,
                fault: fi,
                pgen: epoch,
            },
        );
    }

    /// Starts init containers in order (sidecars keep running), then the regular containers.
    fn start_pod_sequence(&mut self, p: usize, t: u64) {
        let first = self
            .templates
            .get(self.pods.get(p).map(|x| x.tmpl).unwrap_or(0))
            .map(|tm| tm.kinds.iter().position(|k| *k != Kind::Regular));
        match first.flatten() {
            Some(i) => self.start_container(p, i, t + self.startup_ms),
            None => self.start_regulars(p, t + self.startup_ms),
        }
    }

    fn start_regulars(&mut self, p: usize, t: u64) {
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

    fn start_container(&mut self, p: usize, c: usize, t: u64) {
        let Some(pod) = self.pods.get_mut(p) else {
            return;
        };
        let epoch = pod.epoch;
        if let Some(ct) = pod.containers.get_mut(c) {
            ct.pending_start = true;
        }
        self.schedule(t, Ev::Start { pod: p, c, epoch });
    }

    fn step(&mut self, ev: Ev) -> Result<(), Diagnostic> {
        match ev {
            Ev::Start { pod, c, epoch } => self.on_start(pod, c, epoch),
            Ev::Exit {
                pod,
                c,
                epoch,
                code,
                reason,
            } => self.on_exit(pod, c, epoch, code, reason)?,
            Ev::SyncJob { job, jgen } => self.on_sync_event(job, jgen)?,
            Ev::Kill { pod, pgen } => self.on_kill(pod, pgen)?,
            Ev::Fault { pod, fault, pgen } => self.on_fault(pod, fault, pgen)?,
            Ev::Crr { action } => self.on_crr(action)?,
            Ev::ReconcileJobSet => self.reconcile_jobset()?,
            Ev::NodeFailure { pod, pgen } => {
                if self
                    .pods
                    .get(pod)
                    .is_some_and(|x| x.alive && x.epoch == pgen)
                {
                    self.node_failure(pod)?;
                }
            }
        }
        Ok(())
    }

    fn on_start(&mut self, p: usize, c: usize, epoch: u32) {
        let now = self.now;
        let Some(pod) = self.pods.get_mut(p) else {
            return;
        };
        // The kubelet starts nothing in a Pod that is being deleted.
        if !pod.alive || pod.epoch != epoch || pod.deleting {
            return;
        }
        pod.phase = "Running";
        let tmpl = pod.tmpl;
        let Some(ct) = pod.containers.get_mut(c) else {
            return;
        };
        ct.running = true;
        ct.pending_start = false;
        ct.epoch += 1;
        let restarted = std::mem::take(&mut ct.restarting);
        if restarted {
            ct.restart_count += 1;
            self.summary.in_place_restarts += 1;
        }
        let cgen = ct.epoch;
        // A restart shows in the Pod's status (restartCount): the Job controller syncs, and a
        // restartPolicy OnFailure Job checks its restarts against backoffLimit.
        let job = pod.job;
        if restarted
            && let Some(j) = job
            && self.templates.get(tmpl).is_some_and(|t| t.on_failure)
        {
            self.enqueue_job_sync(j, now);
        }
        let kind = self
            .templates
            .get(tmpl)
            .and_then(|t| t.kinds.get(c))
            .copied()
            .unwrap_or(Kind::Regular);
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
                    super::scenario::secs_to_ms(e.after_seconds).unwrap_or(0),
                    e.exit_code,
                    reason,
                    e.node_failure,
                ));
                break;
            }
            self.cursors.insert(key, (pos, used));
        }
        match (scheduled, kind) {
            (Some((after, _, _, true)), _) => {
                let pgen = self.pods.get(p).map_or(0, |x| x.epoch);
                self.schedule(now + after, Ev::NodeFailure { pod: p, pgen });
            }
            (Some((after, code, reason, false)), _) => self.schedule(
                now + after,
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
            (None, Kind::Init) => self.schedule(
                now,
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
    }

    /// After init container `c` completed (or sidecar `c` started), start the next one.
    fn advance_init(&mut self, p: usize, c: usize, t: u64) {
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

    fn on_exit(
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

    pub(super) fn set_always_pod(&mut self, sandbox_ms: u64) {
        self.always_pod = Some(AlwaysPod { sandbox_ms });
    }

    /// Proposal AlwaysPod: where Always would restart container `c`, the whole Pod restarts —
    /// after the container's CrashLoopBackOff delay (the restart it replaces), plus the sandbox's
    /// recreation when the sandbox is recreated; init containers run again.
    fn restart_pod_always_pod(
        &mut self,
        p: usize,
        c: usize,
        tmpl: usize,
        ap: AlwaysPod,
    ) -> Result<(), Diagnostic> {
        let now = self.now;
        let delay = self.backoff_delay(p, c, now);
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
        self.summary.time_lost_seconds += ((start_at + self.startup_ms)
            .min(self.end_ms)
            .saturating_sub(now)) as f64
            / 1000.0;
        self.start_pod_sequence(p, start_at);
        Ok(())
    }

    /// Proposal RestartRulesFuture: the decision of the container's rules for this exit, when
    /// the proposal decides this container.
    fn future_action(
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

    fn on_exit_future(
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
    fn on_exit_decided(
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
        self.summary.container_exits += 1;
        let (name, kind) = match self.templates.get(tmpl) {
            // The name only feeds timeline messages: a full timeline skips the copy.
            Some(t) => (
                if self.timeline.len() < self.max_timeline {
                    t.names.get(c).cloned().unwrap_or_default()
                } else {
                    String::new()
                },
                t.kinds.get(c).copied().unwrap_or(Kind::Regular),
            ),
            None => return Ok(()),
        };
        let reason_s = REASONS.get(reason as usize).copied().unwrap_or("Error");
        self.record(Obj::Pod(p), Some((tmpl, c)), "Terminated", reason_s, || {
            Some(format!("exit code {code}"))
        });
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
                let delay = self.backoff_delay(p, c, now);
                let start_at = now + delay;
                if let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) {
                    ct.restarting = true;
                }
                let resume = (start_at + self.startup_ms).min(self.end_ms);
                self.summary.time_lost_seconds += resume.saturating_sub(now) as f64 / 1000.0;
                if delay > 0 {
                    self.record(
                        Obj::Pod(p),
                        Some((tmpl, c)),
                        "BackOff",
                        "CrashLoopBackOff",
                        || {
                            Some(format!(
                                "back-off {}s restarting failed container={name}",
                                delay as f64 / 1000.0
                            ))
                        },
                    );
                }
                self.start_container(p, c, start_at + self.startup_ms);
            }
            KubeletDecision::RestartAllContainers => {
                self.summary.whole_pod_restarts += 1;
                self.record(Obj::Pod(p), Some((tmpl, c)), "RestartAllContainers", "AllContainersRestarting", || {
                    Some("a RestartAllContainers rule matched: every container restarts, init containers first".into())
                });
                if let Some(pod) = self.pods.get_mut(p) {
                    pod.epoch += 1;
                    for ct in pod.containers.iter_mut() {
                        ct.restarting = ct.running || ct.last_exit.is_some();
                        ct.running = false;
                        ct.pending_start = false;
                    }
                }
                self.summary.time_lost_seconds += self.startup_ms as f64 / 1000.0;
                self.start_pod_sequence(p, now);
            }
            KubeletDecision::DoNotRestart => match kind {
                Kind::Init if code == 0 => self.advance_init(p, c, now),
                Kind::Init => self.pod_terminal(p, "Failed", Some("InitContainerFailed"))?,
                _ => {
                    let done = self
                        .pods
                        .get(p)
                        .zip(self.templates.get(tmpl))
                        .map(|(pod, t)| {
                            pod.containers
                                .iter()
                                .zip(&t.kinds)
                                .filter(|(_, k)| **k == Kind::Regular)
                                .all(|(ct, _)| !ct.running && !ct.pending_start)
                        })
                        .unwrap_or(false);
                    if done {
                        let all_zero = self
                            .pods
                            .get(p)
                            .zip(self.templates.get(tmpl))
                            .map(|(pod, t)| {
                                pod.containers
                                    .iter()
                                    .zip(&t.kinds)
                                    .filter(|(_, k)| **k == Kind::Regular)
                                    .all(|(ct, _)| ct.last_exit == Some(0))
                            })
                            .unwrap_or(false);
                        self.pod_terminal(p, if all_zero { "Succeeded" } else { "Failed" }, None)?;
                    }
                }
            },
        }
        Ok(())
    }

    /// The kubelet's CrashLoopBackOff: the first restart (and the first after a run of more than
    /// 600 s) is immediate; then initial, doubling, capped at max. Updates the entry as
    /// flowcontrol.Backoff.Next does at the moment of the restart decision.
    fn backoff_delay(&mut self, p: usize, c: usize, finished: u64) -> u64 {
        let (initial, max) = (self.initial_ms, self.max_ms);
        let Some(ct) = self.pods.get_mut(p).and_then(|x| x.containers.get_mut(c)) else {
            return 0;
        };
        match ct.backoff {
            Some((b, last)) if finished.saturating_sub(last) <= RESET_AFTER_RUN_MS => {
                let restart_at = finished + b;
                ct.backoff = Some(((b.saturating_mul(2)).min(max), restart_at));
                b
            }
            _ => {
                ct.backoff = Some((initial, finished));
                0
            }
        }
    }

    fn kill_pod(&mut self, p: usize) {
        if let Some(pod) = self.pods.get_mut(p) {
            pod.alive = false;
            pod.epoch += 1;
            for ct in pod.containers.iter_mut() {
                ct.running = false;
                ct.pending_start = false;
            }
        }
    }

    fn pod_terminal(
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
    fn compiled_pod_failure(&self, p: usize) -> Option<Decision> {
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

    fn job_obj(&self, j: usize) -> String {
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

    fn jobset_name(&self) -> String {
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
    fn reconcile_jobset(&mut self) -> Result<(), Diagnostic> {
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
                    (y.epoch < self.attempt || y.restart_pending)
                        && !y.deleting
                        && y.phase != "Deleted"
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
    fn reconcile_policies(&mut self) -> Result<(), Diagnostic> {
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
    fn jobset_success_policy(&mut self) -> bool {
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
    fn jobset_jobs_failed(&mut self, failed: &[usize]) -> Result<(), Diagnostic> {
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
    fn delete_job(&mut self, j: usize) -> bool {
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

    fn collect_pods_of(&mut self, j: usize) {
        let now = self.now;
        let pods = self
            .jobs
            .get(j)
            .map(|x| x.all_pods.clone())
            .unwrap_or_default();
        for p in pods {
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
        // The Job's update (its deletionTimestamp) makes the Job controller sync it.
        self.enqueue_job_sync(j, now);
    }

    /// Whether Pod `p` is the newest of its Job index (`results` reports it).
    fn is_newest_pod(&self, p: usize) -> bool {
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
    /// interest: its slot is used again.
    fn free_pod(&mut self, p: usize) {
        if let Some(pod) = self.pods.get_mut(p)
            && !pod.freed
            && !pod.alive
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

    /// A gone Job whose successor exists and whose Pods are all freed is of no further
    /// interest: its slot is used again.
    fn free_job_if_done(&mut self, j: usize) {
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

    /// Records Pod `p` as the newest of index `index` of Job `j`; the Pod it replaces there is
    /// freed once its Job is gone.
    fn set_newest_pod(&mut self, j: usize, index: u32, p: usize) {
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
    fn create_missing_jobs(&mut self) {
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

    /// Adds the wait of `slots` Pod slots from `from` until `until` (capped at the run's end)
    /// to the time lost.
    fn lose(&mut self, slots: u32, from: u64, until: u64) {
        let ms = until.min(self.end_ms).saturating_sub(from);
        self.summary.time_lost_seconds += f64::from(slots) * ms as f64 / 1000.0;
    }

    fn on_fault(&mut self, p: usize, fi: usize, pgen: u32) -> Result<(), Diagnostic> {
        let now = self.now;
        let alive = self.pods.get(p).is_some_and(|x| x.alive && x.epoch == pgen);
        if !alive {
            return Ok(());
        }
        // Faults are the hottest event: nothing is cloned or collected here.
        let Some(kind) = self.sc.faults.get(fi).map(|f| f.kind) else {
            return Ok(());
        };
        self.summary.faults += 1;
        match kind {
            FaultKind::NodeFailure => self.node_failure(p)?,
            FaultKind::ContainerExit | FaultKind::OomKill => {
                let count = self.fault_targets(p, fi).count();
                if count > 0 {
                    let pick = (self.next_u64() % count as u64) as usize;
                    let (c, cgen) = self.fault_targets(p, fi).nth(pick).unwrap_or((0, 0));
                    let codes = self.sc.faults.get(fi).map_or(0, |f| f.exit_codes.len());
                    let (code, reason) = if kind == FaultKind::OomKill {
                        (137, 2)
                    } else if codes == 0 {
                        (1, 0)
                    } else {
                        let k = (self.next_u64() % codes as u64) as usize;
                        (
                            self.sc
                                .faults
                                .get(fi)
                                .and_then(|f| f.exit_codes.get(k))
                                .copied()
                                .unwrap_or(1),
                            0,
                        )
                    };
                    self.on_exit(p, c, cgen, code, reason)?;
                }
                if self.pods.get(p).is_some_and(|x| x.alive && x.epoch == pgen) {
                    self.schedule_fault(p, fi, now);
                }
            }
        }
        Ok(())
    }

    /// The Pod's node fails: the Pod gets DisruptionTarget=True and every container ends with 137.
    fn node_failure(&mut self, p: usize) -> Result<(), Diagnostic> {
        self.record(Obj::Pod(p), None, "NodeFailure", "DisruptionTarget", || {
            Some("the node failed; the Pod is deleted".into())
        });
        if let Some(pod) = self.pods.get_mut(p) {
            pod.conditions.push("DisruptionTarget");
            for ct in pod.containers.iter_mut() {
                if ct.running || ct.pending_start {
                    ct.last_exit = Some(137);
                    ct.running = false;
                    ct.pending_start = false;
                }
            }
        }
        self.pod_terminal(p, "Failed", Some("DisruptionTarget"))
    }

    /// The running containers of Pod `p` that fault `fi` may hit, as (index, container epoch):
    /// the named container, or any regular one.
    fn fault_targets(&self, p: usize, fi: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let want = self.sc.faults.get(fi).and_then(|f| f.container.as_deref());
        let pod = self.pods.get(p);
        let tmpl = pod.and_then(|x| self.templates.get(x.tmpl));
        pod.into_iter()
            .flat_map(|pod| pod.containers.iter().enumerate())
            .filter_map(move |(i, ct)| {
                let hit = ct.running
                    && match want {
                        Some(want) => {
                            tmpl.and_then(|t| t.names.get(i)).map(String::as_str) == Some(want)
                        }
                        None => tmpl.and_then(|t| t.kinds.get(i)) == Some(&Kind::Regular),
                    };
                hit.then_some((i, ct.epoch))
            })
    }

    fn on_crr(&mut self, ai: usize) -> Result<(), Diagnostic> {
        let Some(a) = self.sc.container_recreate_requests.get(ai).cloned() else {
            return Ok(());
        };
        let mut targets: Vec<usize> = (0..self.pods.len())
            .filter(|p| self.pods.get(*p).is_some_and(|x| x.alive))
            .filter(|p| {
                let (rj, ji, pi) = self.pod_identity(*p);
                matches(&a.selector(), rj, ji, pi, None)
            })
            .collect();
        targets.sort_unstable_by_key(|&p| self.pods.get(p).map_or(0, |x| x.created));
        for p in targets {
            self.record(
                Obj::Pod(p),
                None,
                "ContainerRecreateRequest",
                "Recreating",
                || Some(format!("recreate {}", a.containers.join(", "))),
            );
            self.summary.crr_recreations += 1;
            for name in &a.containers {
                let tmpl = self.pods.get(p).map(|x| x.tmpl).unwrap_or(0);
                let Some(c) = self
                    .templates
                    .get(tmpl)
                    .and_then(|t| t.names.iter().position(|n| n == name))
                else {
                    continue;
                };
                let Some((running, cgen)) = self
                    .pods
                    .get(p)
                    .and_then(|x| x.containers.get(c))
                    .map(|ct| (ct.running, ct.epoch))
                else {
                    continue;
                };
                if running {
                    // kruise-daemon stops the container; the kubelet restarts it as it would any exit.
                    self.on_exit(p, c, cgen, 137, 3)?;
                }
            }
        }
        Ok(())
    }

    pub fn results(&self) -> (Vec<PodSummary>, Vec<JobSummary>, Option<JobSetSummary>) {
        // The newest Pod of each Job index (or the bare Pod), with its containers, in creation
        // order. Keyed by the Job's name: a restarted Job (same name) replaces its predecessor's
        // Pods.
        let mut idx: Vec<usize> = self
            .newest_pods
            .values()
            .flatten()
            .copied()
            .filter(|&p| p != usize::MAX)
            .chain(
                self.pods
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.job.is_none())
                    .map(|(i, _)| i),
            )
            .collect();
        idx.sort_unstable_by_key(|&p| self.pods.get(p).map_or(0, |x| x.created));
        let pods = idx
            .into_iter()
            .filter_map(|i| self.pods.get(i))
            .map(|p| PodSummary {
                name: p.name.clone(),
                phase: p.phase.to_owned(),
                reason: p.reason.map(str::to_owned),
                containers: p
                    .containers
                    .iter()
                    .enumerate()
                    .map(|(i, c)| ContainerSummary {
                        name: self
                            .templates
                            .get(p.tmpl)
                            .and_then(|t| t.names.get(i))
                            .cloned()
                            .unwrap_or_default(),
                        restart_count: c.restart_count,
                        last_exit_code: c.last_exit,
                    })
                    .collect(),
            })
            .collect();
        let jobs = self
            .live_jobs
            .iter()
            .filter_map(|&j| self.jobs.get(j))
            .filter(|j| j.phase != "Deleted")
            .map(|j| JobSummary {
                name: j.name.clone(),
                phase: j.phase.to_owned(),
                reason: j.reason.clone(),
                message: j.message.clone(),
                failed: j.failed,
                succeeded: j.succeeded,
            })
            .collect();
        let jobset = self.jobset.as_ref().map(|_| JobSetSummary {
            name: self
                .sc
                .workload
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            phase: self.js_phase.to_owned(),
            reason: self.js_reason.clone(),
            message: self.js_message.clone(),
            restarts: self.js_restarts,
            restarts_count_towards_max: self.js_restarts_towards_max,
        });
        (pods, jobs, jobset)
    }
}

/// A decision under proposal RestartRulesFuture: the kubelet's, or one of the new actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KubeletDecisionOrFuture {
    Decision(KubeletDecision),
    Complete,
    TerminatePod,
}

/// The containers (init first, as `names`) whose rules RestartRulesFuture decides: those with
/// any rule, paired with the Pod's restartPolicy.
fn future_rules_of(pod: &Pod) -> Vec<Option<(crate::api::Container, Option<String>)>> {
    let spec = &pod.spec;
    let pod_policy = spec.restart_policy.clone();
    spec.init_containers
        .iter()
        .chain(spec.containers.iter())
        .map(|c| (!c.rules().is_empty()).then(|| (c.clone(), pod_policy.clone())))
        .collect()
}

/// A condition's `lastTransitionTime` for simulated time `ms`: the run starts at
/// 2026-01-01T00:00:00Z, and, as metav1.Time, in whole seconds.
fn condition_time(ms: u64) -> String {
    let secs = ms / 1000;
    // Days since 1970-01-01 to a civil date (Howard Hinnant's days_from_civil, inverted).
    let days = 20_454 + (secs / 86_400) as i64; // 2026-01-01
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let rem = secs % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod condition_time_tests {
    #[test]
    fn condition_times_are_civil_dates_from_the_run_start() {
        assert_eq!(super::condition_time(0), "2026-01-01T00:00:00Z");
        assert_eq!(super::condition_time(3_661_999), "2026-01-01T01:01:01Z");
        assert_eq!(
            super::condition_time(31 * 86_400_000),
            "2026-02-01T00:00:00Z"
        );
        assert_eq!(
            super::condition_time(365 * 86_400_000),
            "2027-01-01T00:00:00Z"
        );
    }
}
