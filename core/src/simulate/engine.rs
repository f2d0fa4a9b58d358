//! The discrete-event loop: containers start and exit, the kubelet restarts them (with
//! CrashLoopBackOff), Pods end, the Job controller counts and replaces them, the JobSet
//! controller restarts or fails the set. Time is integer milliseconds; ties are broken by the
//! order events were scheduled, and randomness comes from one seeded generator, so the same
//! scenario always gives the same timeline.
//!
//! This file holds the state and the loop; what each part of the cluster does is a file of its
//! own: `workload` (creating Pods and Jobs), `kubelet` (containers inside a Pod), `faults`
//! (faults and ContainerRecreateRequests), `pod_lifecycle` (a Pod's end),
//! `job_controller`, `jobset` (the JobSet controller) and `results`.

use super::decide::{ContainerShape, Decider, FailureShape, PodFailureOutcome};
use super::scenario::{FaultKind, Scenario, Selector};
use super::summary::{
    ContainerSummary, JobSetSummary, JobSummary, PodSummary, SimulationEvent, Summary,
};
use crate::api::{
    Condition, ContainerState, ContainerStateRunning, ContainerStateTerminated,
    ContainerStateWaiting, ContainerStatus, Job, JobSet, JobStatus, ObjectMeta, Pod, PodStatus,
    ReplicatedJobStatus,
};
use crate::diag::Diagnostic;
use crate::eval::job_compiled::{CompiledPodFailurePolicy, Decision, UNKNOWN_CONTAINER};
use crate::eval::kubelet::{CompiledContainerPolicy, KubeletDecision};
use crate::features::FeatureGates;
use crate::versions::Change;
use dary_heap::QuaternaryHeap;
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::cmp::Reverse;

mod faults;
mod job_controller;
mod jobset;
mod kubelet;
mod node;
mod node_state;
mod pod_lifecycle;
mod results;
mod success_rule;
mod workload;

const RESET_AFTER_RUN_MS: u64 = 600_000;
/// The kubelet's housekeeping period, on a grid from the run's start.
#[allow(clippy::as_conversions)] // 2,000: the period's milliseconds fit in u64
const HOUSEKEEPING_MS: u64 = crate::backoff::kubelet::HOUSEKEEPING_PERIOD.as_millis() as u64;
/// More resets of one Pod at one instant mean it never leaves that instant (see on_restart_all).
const MAX_RESETS_AT_ONE_INSTANT: u32 = 1_000;

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
    /// The Pod's tolerations after the DefaultTolerationSeconds admission plugin.
    pub tolerations: Vec<node_state::Toleration>,
    /// successPolicy rules (Indexed Jobs).
    success_rules: Vec<success_rule::SuccessRule>,
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
                    Some(ix) => success_rule::parse_indexes(ix, completions).map(|indexes| {
                        success_rule::SuccessRule {
                            indexes: Some(indexes),
                            count,
                        }
                    }),
                    None => Some(success_rule::SuccessRule {
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
            tolerations: node_state::tolerations_of(spec),
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
    /// Pod `pod`'s node is lost (`exits[].nodeFailure`, a nodeFailure fault) while the Pod is
    /// in `pgen`; the node lifecycle events that follow (node.rs) name the same Pod and `pgen`.
    NodeLost {
        pod: usize,
        pgen: u32,
    },
    NodeNotReady {
        pod: usize,
        pgen: u32,
    },
    /// Pod `pod` (while in `pgen`) is preempted or evicted (`exits[].disruption`).
    Disrupt {
        pod: usize,
        pgen: u32,
        by: super::scenario::Disruption,
    },
    /// The node lifecycle controller's NoExecute tainting pass over the zone's queue.
    TaintPass,
    /// The kubelet's sync restarts every container of Pod `pod` (a RestartAllContainers rule
    /// matched container `c`), after the other exits of the instant.
    RestartAll {
        pod: usize,
        pgen: u32,
        c: usize,
    },
    /// The kubelet's sync restarts container `c` of Pod `pod` (its back-off, then its start),
    /// unless the same sync reset or ended the Pod.
    RestartContainer {
        pod: usize,
        pgen: u32,
        c: usize,
    },
    /// The kubelet's sync ends Pod `pod` (`end_pending`), after every exit of the instant.
    PodEnd {
        pod: usize,
        pgen: u32,
    },
    Evict {
        pod: usize,
        pgen: u32,
    },
    NodeDeleted {
        pod: usize,
        pgen: u32,
    },
    OutOfService {
        pod: usize,
        pgen: u32,
    },
    PodGc {
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
    /// Instances of the container started in this Pod: the runtime's restart count is one less
    /// (read from the Pod's log directory after RestartAllContainers removed them).
    instances: u32,
    /// The entry once the restart now waiting happens: the kubelet updates it (Backoff.Next)
    /// only when it starts the container, so a restart the Pod's reset pre-empts leaves the
    /// entry as it was.
    pending_backoff: Option<(u64, u64)>,
    epoch: u32,
    /// The Pod's start sequence has gone past this init container or sidecar (it completed,
    /// or started, for a sidecar): its later runs start nothing else.
    advanced: bool,
    /// When the container's last run ended (the back-off counts from there).
    finished_at: u64,
    /// The kubelet's last attempt to restart it since it ran was refused by its back-off: the
    /// reason cache holds CrashLoopBackOff and the status shows it Waiting.
    backoff_refused: bool,
    /// When that refusal came, and how many starts the Pod had seen then: the status shows it
    /// only from the kubelet's next sync (after a later change).
    refused_at: (u64, u64),
    /// Up to 1.36: a regular container whose restart waits until the Pod counts as initialized
    /// again (since when it waits).
    deferred_since: Option<u64>,
    /// The pending restart comes at the end of a back-off wait: that sync decides again.
    restart_waits: bool,
    /// A RestartAllContainers reset removed it and it has not started since (its status shows
    /// Waiting, RestartingAllContainers).
    removed_by_reset: bool,
    /// Until when its current wait to run again (back-off and start-up) is counted in the time
    /// lost: the part after its Pod's end is taken back when the Pod ends (`kill_pod`).
    lost_until: u64,
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
    /// A RestartAllContainers rule matched at this instant; the reset comes after the
    /// instant's other exits (`Ev::RestartAll`).
    restart_all_pending: bool,
    /// Its containers' exits at this instant end the Pod (phase, reason): the kubelet's sync
    /// after every exit of the instant makes it terminal (`Ev::PodEnd`).
    end_pending: Option<(&'static str, Option<&'static str>)>,
    /// Up to 1.36: every regular container has stopped for good, but a sidecar still runs
    /// while the last one waits for its restart, so the Pod is not initialized for the kubelet
    /// and its sync neither kills nor ends it (see Engine::regulars_may_start).
    end_held: bool,
    /// Up to 1.36: the sync of this instant decides whether the Pod ends (end_or_hold).
    end_check: bool,
    /// Containers started in the Pod so far, and the instant of the last start.
    starts: (u64, u64),
    /// When the kubelet last computed the Pod's phase.
    phase_at: u64,
    /// RestartAllContainers resets at one instant: (instant, count).
    resets_at: (u64, u32),
    /// Its node was lost: what the node lifecycle has done since (node.rs).
    node: Option<Box<node_state::LostNode>>,
    /// Since when its Ready condition is False (None: Ready), as its status shows it.
    unready_since: Option<u64>,
    /// It runs, ready, on a live node (what `allPodsRunningSeconds` counts).
    working: bool,
    /// Until when its whole-Pod restart's wait (RestartAllContainers, AlwaysPod) is counted in
    /// the time lost (see `Container::lost_until`).
    lost_until: u64,
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
    /// That Pod: with backoffLimitPerIndex its deletion waits for its replacement
    /// (getPodsWithDelayedDeletionPerIndex), so each sync reads its finish time afresh — a
    /// Pod counted at its deletion finishes again when the kubelet ends it.
    last_failed: Option<usize>,
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
    /// The finish times (ms) of the Pods the syncs found since the record was last stored,
    /// succeeded ones `true`: refused syncs store nothing, so upstream's next sync finds those
    /// Pods again among its new ones and builds its record from the stored one and all of
    /// them together (newBackoffRecord sorts them by finish time; the last failure is the
    /// batch's latest, not the latest sync's).
    unflushed: Vec<(bool, u64)>,
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
    /// This sync removed a terminating Pod (a lost node's, without a grace period): the
    /// terminal condition waits for the next sync, as upstream counted it terminating.
    finish_deferred: bool,
    /// Pods of this Job that ended, were counted and have been replaced, whose slots are used
    /// again (`retire_replaced_pods`): what the Job's deletion still does with them is one
    /// `Deleted` event each, so only that is kept: their names while the timeline has room,
    /// then only how many (an event past the timeline's end is counted, not kept). A Job
    /// that replaces Pods all month long holds what it runs, not its history.
    retired: Vec<RetiredPod>,
    retired_unnamed: u64,
}

/// A finished Pod of a live Job, its slot used again: what its Job's deletion still shows.
#[derive(Debug, Clone)]
struct RetiredPod {
    /// Creation number (`PodState::created`): the deletion lists its Job's Pods in this order.
    created: u64,
    index: u32,
    name: String,
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
    /// Exits of runs of 0 s started at this instant: they happen once the kubelet's syncs of
    /// the round that started them have settled (the process outlives them), all of a round
    /// together, before the next round's syncs (see flush_round_exits).
    round_exits: Vec<Ev>,
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
    /// `summary.timeLostSeconds` in whole milliseconds while the run goes (exact, so the part
    /// after a Pod's end can be taken back; converted once at the end).
    lost_ms: u64,
    /// When the last timeline event happened (recorded or counted only): a workload that ends
    /// before runFor ends there, not at a later event that changed nothing (a sidecar's
    /// restart or a fault still queued for a Pod that has ended).
    last_event_ms: u64,
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
    /// The scenario's nodeLoss with upstream's defaults.
    node_loss: node_state::NodeLossConfig,
    /// When the zone's NoExecute taint queue last let a node through, and the nodes waiting in
    /// it: (queued at, lost at, their Pod's creation number, Pod, its epoch).
    last_taint_ms: Option<u64>,
    taint_waiting: Vec<(u64, u64, u64, usize, u32)>,
    /// Pods the workload runs at once when nothing has failed (the Pod, a Job's parallelism,
    /// the sum over a JobSet's Jobs), how many of them now run ready on a live node, and since
    /// when all of them have.
    slots: u64,
    working: u64,
    all_working_since: Option<u64>,
    all_working_ms: u64,
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
        if let Some(i) = sc
            .exits
            .iter()
            .position(|e| e.node_failure && e.disruption.is_some())
        {
            return Err(Diagnostic::request(
                "invalid-input",
                &format!("scenario.exits[{i}].disruption"),
                "a scripted run ends with a node failure or a disruption, not both: the disruption needs the node's kubelet to stop the Pod",
            ));
        }
        let node_loss = node_state::NodeLossConfig::new(sc.node_loss.as_ref(), decider.minor())?;
        let slots = templates
            .iter()
            .map(|t| u64::from(t.replicas) * u64::from(t.parallelism))
            .sum();
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
            round_exits: Vec::new(),
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
            lost_ms: 0,
            last_event_ms: 0,
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
            node_loss,
            last_taint_ms: None,
            taint_waiting: Vec::new(),
            slots,
            working: 0,
            all_working_since: None,
            all_working_ms: 0,
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
            if self.seq >= 1 << (SEQ_BITS - 4) || slot >= 1 << SLOT_BITS {
                // Beyond any run that finishes in reasonable time; say so rather than misorder.
                self.overflow = true;
                return;
            }
            // Within an instant, events run by tier, then in scheduling order: containers'
            // exits and what happens from outside (0); the kubelet's sync, which sees every exit
            // of the instant: a Pod reset by RestartAllContainers or ended (1), then the
            // containers it restarts or starts (2); the node lifecycle controller's monitor
            // (3), its NoExecute tainting pass (4), taint eviction (5) and Pod GC (6); then a
            // Job sync (7): it sees every Pod change of that instant, as the oracle's harness
            // delivers them; and the JobSet controller's reconcile after every Job sync of its
            // instant, also those the syncs cause (8) (docs/simulation.md, "Assumptions").
            let tier: u64 = match ev {
                Ev::RestartAll { .. } | Ev::PodEnd { .. } => 1,
                // (A deleted Pod's grace period ends after the exits of its instant too.)
                Ev::Start { .. } | Ev::RestartContainer { .. } | Ev::Kill { .. } => 2,
                Ev::NodeNotReady { .. } => 3,
                Ev::TaintPass => 4,
                Ev::Evict { .. } => 5,
                Ev::PodGc { .. } => 6,
                Ev::SyncJob { .. } => 7,
                Ev::ReconcileJobSet => 8,
                _ => 0,
            };
            let seq = self.seq | tier << (SEQ_BITS - 4);
            self.queue.push(Reverse(
                u128::from(t) << 64 | u128::from(seq) << SLOT_BITS | u128::from(slot),
            ));
        }
    }

    /// The exits of runs of 0 s wait until nothing else of the kubelet's is due at this
    /// instant (the next event is later, or a controller's: tier 3 and above).
    fn flush_round_exits(&mut self) {
        if self.round_exits.is_empty() {
            return;
        }
        let settled = match self.queue.peek() {
            None => true,
            Some(Reverse(key)) => {
                let t = (key >> 64) as u64;
                let tier = (key >> (SLOT_BITS + SEQ_BITS - 4)) as u64 & 0xf;
                t > self.now || tier >= 3
            }
        };
        if settled {
            let now = self.now;
            for ev in std::mem::take(&mut self.round_exits) {
                self.schedule(now, ev);
            }
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
        self.last_event_ms = self.now;
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

    /// Pod slots the run holds (in use or free to be used again).
    #[cfg(test)]
    pub(super) fn pod_slots(&self) -> usize {
        self.pods.len()
    }

    /// `record` of the `Deleted` event of a retired Pod (its slot holds another Pod now).
    fn record_retired_pod_deleted(&mut self, r: &RetiredPod) {
        self.summary.events += 1;
        self.last_event_ms = self.now;
        if self.timeline.len() >= self.max_timeline {
            self.summary.timeline_truncated = true;
            return;
        }
        let object = format!("pod/{}/{}", self.namespace(), r.name);
        self.timeline.push(SimulationEvent {
            t: self.now as f64 / 1000.0,
            object,
            container: None,
            pod_index: Some(r.index),
            event: "Deleted".to_owned(),
            reason: "Terminating".to_owned(),
            message: None,
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
        loop {
            self.flush_round_exits();
            let Some((t, ev)) = self.next_event() else {
                break;
            };
            if self.overflow {
                return Err(Diagnostic::request(
                    "too-large",
                    "scenario",
                    format!(
                        "the simulation needs more than {} pending events or {} events in all; shorten runFor or the workload",
                        1u64 << SLOT_BITS,
                        1u64 << (SEQ_BITS - 4)
                    ),
                ));
            }
            // A node lifecycle event for a Pod that has failed since changes nothing, and is
            // not the run's last moment either.
            if self.node_event_is_stale(ev) {
                continue;
            }
            self.now = t;
            self.step(ev)?;
            if self.js_phase != "Running" {
                break;
            }
        }
        // A workload still running when time runs out ran for the whole runFor; one that ended
        // earlier (everything terminal) ended at its last timeline event. Events popped after
        // that changed nothing (what the kubelet still had queued for an ended Pod).
        let running = self.pods.iter().any(|p| p.alive) && self.js_phase == "Running";
        if running {
            self.now = self.end_ms;
        }
        let end_ms = if running {
            self.end_ms
        } else {
            self.last_event_ms.min(self.now)
        };
        self.summary.end_seconds = end_ms as f64 / 1000.0;
        // Up to 1.32 the phase can change at a sync that changes nothing (see
        // update_live_phase): the last ones before the end.
        if !Change::SidecarStartedBeforePhase.at(self.decider.minor()) {
            // In creation order (slots are used again).
            let mut alive: Vec<usize> = (0..self.pods.len())
                .filter(|&p| self.pods.get(p).is_some_and(|x| x.alive))
                .collect();
            alive.sort_unstable_by_key(|&p| self.pods.get(p).map_or(0, |x| x.created));
            for p in alive {
                self.final_live_phase(p);
            }
        }
        self.finish_lost_nodes();
        if let Some(since) = self.all_working_since.take() {
            self.all_working_ms += self.now.saturating_sub(since);
        }
        // Summed in whole milliseconds, converted once: the figure survives a JSON round trip.
        self.summary.all_pods_running_seconds = self.all_working_ms as f64 / 1000.0;
        self.summary.time_lost_seconds = self.lost_ms as f64 / 1000.0;
        Ok(())
    }

    fn step(&mut self, ev: Ev) -> Result<(), Diagnostic> {
        match ev {
            // What the kubelet does for a Pod stops when its node is lost.
            Ev::Start { pod, .. }
            | Ev::Exit { pod, .. }
            | Ev::Kill { pod, .. }
            | Ev::Fault { pod, .. }
                if self.kubelet_gone(pod) => {}
            Ev::Start { pod, c, epoch } => {
                self.on_start(pod, c, epoch);
                self.track_readiness(pod);
            }
            Ev::Exit {
                pod,
                c,
                epoch,
                code,
                reason,
            } => {
                self.on_exit(pod, c, epoch, code, reason)?;
                self.track_readiness(pod);
            }
            Ev::SyncJob { job, jgen } => self.on_sync_event(job, jgen)?,
            Ev::Kill { pod, pgen } => self.on_kill(pod, pgen)?,
            Ev::Fault { pod, fault, pgen } => self.on_fault(pod, fault, pgen)?,
            Ev::Crr { action } => self.on_crr(action)?,
            Ev::ReconcileJobSet => self.reconcile_jobset()?,
            Ev::NodeLost { pod, pgen } => {
                if self
                    .pods
                    .get(pod)
                    .is_some_and(|x| x.alive && x.epoch == pgen)
                {
                    self.node_lost(pod)?;
                }
            }
            Ev::NodeNotReady { pod, pgen } => self.on_node_not_ready(pod, pgen),
            Ev::Disrupt { pod, pgen, by } => self.on_disrupt(pod, pgen, by),
            Ev::TaintPass => self.on_taint_pass(),
            Ev::RestartContainer { pod, pgen, c } => {
                if !self.kubelet_gone(pod) {
                    self.on_restart_container(pod, pgen, c);
                }
            }
            Ev::PodEnd { pod, pgen } => {
                let end = self
                    .pods
                    .get_mut(pod)
                    .filter(|x| x.alive && x.epoch == pgen)
                    .and_then(|x| x.end_pending.take());
                if let Some((phase, reason)) = end
                    && !self.kubelet_gone(pod)
                {
                    self.pod_terminal(pod, phase, reason)?;
                } else if let Some(x) = self
                    .pods
                    .get_mut(pod)
                    .filter(|x| x.alive && x.epoch == pgen && x.end_check)
                {
                    x.end_check = false;
                    if !self.kubelet_gone(pod) {
                        self.end_or_hold(pod)?;
                    }
                }
            }
            Ev::RestartAll { pod, pgen, c } => {
                if !self.kubelet_gone(pod) {
                    self.on_restart_all(pod, pgen, c)?;
                }
            }
            Ev::Evict { pod, pgen } => self.on_evict(pod, pgen),
            Ev::NodeDeleted { pod, pgen } => self.on_node_deleted(pod, pgen),
            Ev::OutOfService { pod, pgen } => self.on_out_of_service(pod, pgen),
            Ev::PodGc { pod, pgen } => self.on_pod_gc(pod, pgen)?,
        }
        Ok(())
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
