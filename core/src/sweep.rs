//! Sweeps: one scenario run over many seeds and variants, summarised as distributions.
//!
//! A `simulate` run answers one draw of the faults; a sweep answers the question people bring to
//! it, a probability ("how likely is my JobSet to fail with maxRestarts 3?"). The core stays pure
//! and single-threaded: [`prepare`] checks every variant before any run, [`Prepared::run`] runs
//! one chunk (one variant, a range of seeds) into a [`SweepPartial`], [`SweepPartial::merge`]
//! joins two partials EXACTLY (the value counts percentiles need, not an approximation) and
//! [`SweepPartial::finish`] turns the merged partial into the [`SweepOutput`]. Front ends run
//! chunks in parallel in any order; the output is the same whatever the split (docs/sweeps.md).

use crate::diag::Diagnostic;
use crate::simulate::{Scenario, SimulateInput, SimulationRun};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The most seeds one sweep may ask for.
pub const MAX_SEEDS: u64 = 1_000_000;
/// The most variants one sweep may have (named variants × grid points).
pub const MAX_VARIANTS: usize = 1_024;
/// z for a two-sided 95 % interval (the normal distribution's 0.975 quantile).
const Z95: f64 = 1.959_963_984_540_054;

/// `sweep` op input: a scenario run for `seeds` seeds under each variant.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SweepInput {
    /// The scenario, as `simulate` takes it (its `seed` is replaced by each run's seed).
    #[schemars(with = "Scenario")]
    pub scenario: Value,
    /// How many seeds to run each variant with (1 … 1,000,000).
    pub seeds: u64,
    /// The first seed (default: the scenario's `seed`, or 0); runs use `firstSeed … firstSeed + seeds - 1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_seed: Option<u64>,
    /// Named changes to the scenario, each a JSON Merge Patch (RFC 7386). Absent: the scenario as
    /// given, named `baseline`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    /// Axes of a grid: every combination of their values is a variant (under each named variant,
    /// when both are given). At most 1,024 variants in all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grid: Vec<GridAxis>,
    /// Also return one row per run (memory grows with the seeds; off by default).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub runs: bool,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Variant {
    pub name: String,
    /// A JSON Merge Patch applied to the scenario: `{"workload": {"spec": {"failurePolicy":
    /// {"maxRestarts": 5}}}}`; `null` removes a member; an array replaces the whole array.
    pub patch: Value,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GridAxis {
    /// A dotted path into the scenario; a number indexes an array:
    /// `workload.spec.failurePolicy.maxRestarts`, `faults.0.ratePerHour`, `kubernetesVersion`.
    pub path: String,
    /// The values the path takes (JSON values; quote a version: `"1.36"`).
    pub values: Vec<Value>,
}

/// `sweepChunk` op input: one chunk of a sweep, for a front end that spreads chunks over
/// processes or machines and joins them with `sweepMerge`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SweepChunkInput {
    pub sweep: SweepInput,
    /// The variant's index in the sweep's variant list (`sweepPlan` lists them).
    pub variant: usize,
    /// The first run of the chunk, counted from `firstSeed` (0 … seeds − 1).
    pub start: u64,
    pub count: u64,
}

/// `sweepMerge` op input: the partial results of every chunk of one sweep, in any order.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SweepMergeInput {
    pub partials: Vec<SweepPartial>,
}

/// `sweepPlan` op output: the variants a sweep will run, without running or checking them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SweepPlan {
    pub variants: Vec<String>,
    pub first_seed: u64,
    pub seeds: u64,
}

/// The summary measures of a sweep, in the order of [`MEASURES`].
pub const MEASURES: [&str; 10] = [
    "timeLostSeconds",
    "containerExits",
    "inPlaceRestarts",
    "podsReplaced",
    "jobFailures",
    "jobsetRestarts",
    "faults",
    "timeToFinishSeconds",
    "endSeconds",
    "allPodsRunningSeconds",
];

/// One run's numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunRow {
    pub seed: u64,
    /// The workload's final phase (the JobSet's, Job's or Pod's).
    pub phase: String,
    pub time_lost_seconds: f64,
    pub container_exits: u64,
    pub in_place_restarts: u64,
    pub pods_replaced: u64,
    pub job_failures: u64,
    pub jobset_restarts: u64,
    pub faults: u64,
    /// When the workload finished (Completed, Complete, Succeeded or Failed); absent if it was
    /// still running at `runFor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_finish_seconds: Option<f64>,
    pub end_seconds: f64,
    /// Seconds during which every Pod of the workload ran ready on a live node (the summary's
    /// `allPodsRunningSeconds`).
    #[serde(default)]
    pub all_pods_running_seconds: f64,
}

impl RunRow {
    fn values(&self) -> [Option<f64>; 10] {
        [
            Some(self.time_lost_seconds),
            Some(self.container_exits as f64),
            Some(self.in_place_restarts as f64),
            Some(self.pods_replaced as f64),
            Some(self.job_failures as f64),
            Some(self.jobset_restarts as f64),
            Some(self.faults as f64),
            self.time_to_finish_seconds,
            Some(self.end_seconds),
            Some(self.all_pods_running_seconds),
        ]
    }
}

/// An exact multiset of values: each distinct value with how often it occurred. Merging two is
/// adding counts, so any split of the runs gives the same tally. Its size is the number of
/// distinct values (counts of events repeat a lot), never a timeline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally(BTreeMap<u64, u64>);

// The keys are the bits of non-negative finite f64s, whose order is the numbers' order.
impl Tally {
    fn add(&mut self, v: f64, n: u64) {
        let v = if v == 0.0 { 0.0 } else { v };
        *self.0.entry(v.to_bits()).or_insert(0) += n;
    }
    fn merge(&mut self, other: Tally) {
        for (k, n) in other.0 {
            *self.0.entry(k).or_insert(0) += n;
        }
    }
    fn count(&self) -> u64 {
        self.0.values().sum()
    }
    fn iter(&self) -> impl DoubleEndedIterator<Item = (f64, u64)> + '_ {
        self.0.iter().map(|(k, n)| (f64::from_bits(*k), *n))
    }
    /// Nearest rank: the smallest value with at least ⌈q·n⌉ values at or below it.
    fn quantile(&self, q: f64, n: u64) -> f64 {
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n.max(1));
        let mut seen = 0;
        for (v, c) in self.iter() {
            seen += c;
            if seen >= rank {
                return v;
            }
        }
        0.0
    }
    fn stats(&self) -> Option<Stats> {
        let n = self.count();
        let (min, _) = self.iter().next()?;
        let (max, _) = self.iter().next_back()?;
        // Sums in value order: the same numbers whatever order the runs came in.
        let mean = self.iter().map(|(v, c)| v * c as f64).sum::<f64>() / n as f64;
        let squares = self
            .iter()
            .map(|(v, c)| (v - mean) * (v - mean) * c as f64)
            .sum::<f64>();
        let std_dev = if n > 1 {
            (squares / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        Some(Stats {
            runs: n,
            mean,
            std_dev,
            min,
            p25: self.quantile(0.25, n),
            p50: self.quantile(0.5, n),
            p75: self.quantile(0.75, n),
            p90: self.quantile(0.9, n),
            p99: self.quantile(0.99, n),
            max,
        })
    }
}

// A value travels as a decimal string (Rust's shortest round-trip form), not a JSON number:
// serde_json's default number parser can be one ulp off (it lacks `float_roundtrip`), and
// JavaScript readers are not exact either, so a partial that went through JSON (a Ray task's
// answer) would tally a neighbouring value and the merge would no longer be exact.
// `str::parse::<f64>` is correctly rounded.
impl Serialize for Tally {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(|(v, n)| (v.to_string(), n)))
    }
}

impl<'de> Deserialize<'de> for Tally {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let pairs = Vec::<(String, u64)>::deserialize(d)?;
        let mut t = Tally::default();
        for (text, n) in pairs {
            let v: f64 = text.parse().map_err(|_| {
                serde::de::Error::custom(format!("a tally value is a decimal string, not {text:?}"))
            })?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(serde::de::Error::custom(format!(
                    "a tally holds non-negative numbers, not {v}"
                )));
            }
            t.add(v, n);
        }
        Ok(t)
    }
}

impl JsonSchema for Tally {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Tally".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut s = <Vec<(String, u64)>>::json_schema(generator);
        s.insert(
            "description".into(),
            "Each distinct value with how often it occurred: [[value, count], …], values ascending; a value is a decimal string so that it survives any JSON reader exactly."
                .into(),
        );
        s
    }
}

/// The runs of one variant done so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariantPartial {
    pub name: String,
    /// The seed offsets run, as half-open ranges `[start, end)` (sorted, disjoint).
    pub done: Vec<(u64, u64)>,
    /// One tally per measure, by name.
    pub measures: BTreeMap<String, Tally>,
    /// Runs that ended in each phase (every phase the workload can end in, also when 0).
    pub phases: BTreeMap<String, u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<RunRow>,
}

/// `sweepChunk` op output: what chunks of one sweep produced, to be merged exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SweepPartial {
    pub first_seed: u64,
    pub seeds: u64,
    /// Every variant of the sweep, by index in the plan.
    pub variant_names: Vec<String>,
    pub runs: bool,
    /// The variants this partial has runs of, by index.
    pub variants: BTreeMap<usize, VariantPartial>,
}

/// Summary statistics of one measure over the runs that have it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub runs: u64,
    pub mean: f64,
    /// Sample standard deviation (n − 1); 0 for one run.
    pub std_dev: f64,
    pub min: f64,
    /// Percentiles by nearest rank (a value some run had).
    pub p25: f64,
    pub p50: f64,
    pub p75: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

/// How often the workload ended in one phase, with a 95 % Wilson score interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PhaseShare {
    pub runs: u64,
    pub probability: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariantResult {
    pub name: String,
    pub runs: u64,
    /// Per measure (`timeLostSeconds`, `containerExits`, `inPlaceRestarts`, `podsReplaced`,
    /// `jobFailures`, `jobsetRestarts`, `faults`, `timeToFinishSeconds` over the runs that
    /// finished, `endSeconds`); a measure no run has is absent.
    pub measures: BTreeMap<String, Stats>,
    /// The workload's final phase: JobSet `Running`/`Completed`/`Failed`, Job
    /// `Running`/`Complete`/`Failed`, Pod `Pending`/`Running`/`Succeeded`/`Failed`.
    pub phases: BTreeMap<String, PhaseShare>,
    /// One row per run, by seed (only with `runs: true`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<RunRow>,
}

/// `sweep` (and `sweepMerge`) op output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SweepOutput {
    pub first_seed: u64,
    pub seeds: u64,
    pub variants: Vec<VariantResult>,
}

fn bad(field: &str, message: impl Into<String>) -> Diagnostic {
    Diagnostic::request("invalid-input", field, message)
}

/// Sets `value` at a dotted path, creating objects on the way; a number indexes an existing array.
fn set_path(doc: &mut Value, path: &str, value: Value) -> Result<(), String> {
    let segments: Vec<&str> = path.split('.').collect();
    if path.is_empty() || segments.iter().any(|s| s.is_empty()) {
        return Err(format!(
            "{path:?} is not a dotted path such as workload.spec.failurePolicy.maxRestarts"
        ));
    }
    let mut at = doc;
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        let here = segments.get(..i).unwrap_or_default().join(".");
        at = match at {
            Value::Object(m) => {
                if last {
                    m.insert((*seg).to_owned(), value);
                    return Ok(());
                }
                m.entry((*seg).to_owned())
                    .or_insert_with(|| Value::Object(Default::default()))
            }
            Value::Array(a) => {
                let len = a.len();
                let idx: usize = seg
                    .parse()
                    .map_err(|_| format!("{here:?} is an array: {seg:?} is not an index"))?;
                let slot = a
                    .get_mut(idx)
                    .ok_or_else(|| format!("{here:?} has {len} element(s): no index {idx}"))?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                slot
            }
            Value::Null => {
                *at = Value::Object(Default::default());
                match at {
                    Value::Object(m) => {
                        if last {
                            m.insert((*seg).to_owned(), value);
                            return Ok(());
                        }
                        m.entry((*seg).to_owned())
                            .or_insert_with(|| Value::Object(Default::default()))
                    }
                    _ => return Err(format!("{here:?} cannot be set")),
                }
            }
            other => {
                return Err(format!(
                    "{here:?} is {other}, not an object or array: cannot set {seg:?} in it"
                ));
            }
        };
    }
    Ok(())
}

fn label(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

struct Planned {
    names: Vec<String>,
    scenarios: Vec<Value>,
    first_seed: u64,
}

fn expand(input: &SweepInput) -> Result<Planned, Diagnostic> {
    if input.seeds == 0 {
        return Err(bad("seeds", "seeds: at least 1 seed is needed"));
    }
    if input.seeds > MAX_SEEDS {
        return Err(bad(
            "seeds",
            format!(
                "seeds: {} is more than the maximum of {MAX_SEEDS}",
                input.seeds
            ),
        ));
    }
    if !input.scenario.is_object() {
        return Err(bad("scenario", "scenario: expected a scenario object"));
    }
    let first_seed = match input.first_seed {
        Some(s) => s,
        None => match input.scenario.get("seed") {
            None | Some(Value::Null) => 0,
            Some(v) => v.as_u64().ok_or_else(|| {
                bad(
                    "scenario.seed",
                    "scenario.seed: expected a non-negative integer",
                )
            })?,
        },
    };
    if first_seed.checked_add(input.seeds - 1).is_none() {
        return Err(bad(
            "firstSeed",
            "firstSeed + seeds overflows a 64-bit seed",
        ));
    }
    let grid_points = input.grid.iter().try_fold(1usize, |n, axis| {
        if axis.values.is_empty() {
            return Err(bad(
                "grid",
                format!("grid axis {:?} has no values", axis.path),
            ));
        }
        Ok(n.saturating_mul(axis.values.len()))
    })?;
    let total = input.variants.len().max(1).saturating_mul(grid_points);
    if total > MAX_VARIANTS {
        return Err(bad(
            "grid",
            format!(
                "the sweep has {total} variants ({} named × {grid_points} grid points); the maximum is {MAX_VARIANTS}",
                input.variants.len().max(1)
            ),
        ));
    }
    let mut names = Vec::with_capacity(total);
    let mut scenarios = Vec::with_capacity(total);
    let baseline = [Variant {
        name: "baseline".into(),
        patch: Value::Object(Default::default()),
    }];
    let named: &[Variant] = if input.variants.is_empty() {
        &baseline
    } else {
        &input.variants
    };
    for (i, v) in named.iter().enumerate() {
        if v.name.trim().is_empty() {
            return Err(bad(
                &format!("variants[{i}].name"),
                format!("variants[{i}]: a variant needs a name"),
            ));
        }
        if named
            .get(..i)
            .unwrap_or_default()
            .iter()
            .any(|o| o.name == v.name)
        {
            return Err(bad(
                &format!("variants[{i}].name"),
                format!("variants[{i}]: the name {:?} is used twice", v.name),
            ));
        }
        if !v.patch.is_object() {
            return Err(bad(
                &format!("variants[{i}].patch"),
                format!(
                    "variant {:?}: a patch is a JSON object (a JSON Merge Patch of the scenario)",
                    v.name
                ),
            ));
        }
        let mut patched = input.scenario.clone();
        json_patch::merge(&mut patched, &v.patch);
        // Every combination of the grid's values, the last axis varying fastest.
        let mut combos: Vec<(Vec<String>, Value)> = vec![(Vec::new(), patched)];
        for (a, axis) in input.grid.iter().enumerate() {
            let mut next = Vec::with_capacity(combos.len() * axis.values.len());
            for (labels, doc) in &combos {
                for value in &axis.values {
                    let mut doc = doc.clone();
                    set_path(&mut doc, &axis.path, value.clone()).map_err(|e| {
                        bad(
                            &format!("grid[{a}].path"),
                            format!("grid axis {:?}: {e}", axis.path),
                        )
                    })?;
                    let mut labels = labels.clone();
                    labels.push(format!("{}={}", axis.path, label(value)));
                    next.push((labels, doc));
                }
            }
            combos = next;
        }
        for (labels, doc) in combos {
            let name = match (input.variants.is_empty(), labels.is_empty()) {
                (true, false) => labels.join(", "),
                (false, false) => format!("{} {}", v.name, labels.join(", ")),
                (_, true) => v.name.clone(),
            };
            names.push(name);
            scenarios.push(doc);
        }
    }
    Ok(Planned {
        names,
        scenarios,
        first_seed,
    })
}

/// The variants and seeds of a sweep, checked for shape and size only (no scenario is decoded or
/// run): what a front end needs to split the work.
pub fn plan(input: &SweepInput) -> Result<SweepPlan, Diagnostic> {
    let p = expand(input)?;
    Ok(SweepPlan {
        variants: p.names,
        first_seed: p.first_seed,
        seeds: input.seeds,
    })
}

/// A sweep whose every variant decoded and passed a zero-length run: ready to run chunks.
#[derive(Debug, Clone)]
pub struct Prepared {
    names: Vec<String>,
    scenarios: Vec<Scenario>,
    kinds: Vec<String>,
    first_seed: u64,
    seeds: u64,
    runs: bool,
}

/// Decodes a patched scenario, naming the field that did not fit (`scenario.<path>`).
fn decode_scenario(doc: &Value) -> Result<Scenario, Diagnostic> {
    if let Ok(sc) = Scenario::deserialize(doc) {
        return Ok(sc);
    }
    crate::decode::from_value_ref(doc).map_err(|(path, e)| {
        let field = if path == "." {
            "scenario".to_owned()
        } else {
            format!("scenario.{path}")
        };
        Diagnostic::request("invalid-input", &field, format!("{field}: {e}"))
    })
}

fn for_variant(name: &str, mut d: Diagnostic) -> Diagnostic {
    d.message = format!("variant {name:?}: {}", d.message);
    d
}

/// The phases a workload of this kind can end a run in.
fn phases_of(kind: &str) -> &'static [&'static str] {
    match kind {
        "JobSet" => &["Running", "Completed", "Failed"],
        "Job" | "TrainJob" => &["Running", "Complete", "Failed"],
        _ => &["Pending", "Running", "Succeeded", "Failed"],
    }
}

/// Checks every variant (decoding, admission, durations, selectors) before any run: a variant
/// the simulator would refuse is named with its field.
pub fn prepare(input: &SweepInput) -> Result<Prepared, Diagnostic> {
    let planned = expand(input)?;
    let mut scenarios = Vec::with_capacity(planned.scenarios.len());
    let mut kinds = Vec::with_capacity(planned.scenarios.len());
    for (name, doc) in planned.names.iter().zip(planned.scenarios) {
        let mut sc: Scenario = decode_scenario(&doc).map_err(|d| for_variant(name, d))?;
        // Timelines are not part of a sweep's answer: keep none (the summary counts every event).
        sc.max_timeline_events = Some(0);
        let mut dry = sc.clone();
        if let Some(r) = &dry.run_for {
            crate::simulate::scenario::parse_duration_ms(r).map_err(|mut d| {
                d.field = "scenario.runFor".into();
                for_variant(name, d)
            })?;
        }
        dry.run_for = Some("0s".into());
        crate::simulate::run(SimulateInput {
            scenario: dry,
            compare: None,
        })
        .map_err(|d| for_variant(name, d))?;
        kinds.push(
            sc.workload
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        );
        scenarios.push(sc);
    }
    Ok(Prepared {
        names: planned.names,
        scenarios,
        kinds,
        first_seed: planned.first_seed,
        seeds: input.seeds,
        runs: input.runs,
    })
}

fn final_phase(kind: &str, run: &SimulationRun) -> String {
    let phase = match kind {
        "JobSet" => run.jobset.as_ref().map(|j| j.phase.clone()),
        "Job" => run.jobs.first().map(|j| j.phase.clone()),
        "TrainJob" => run.train_job.as_ref().map(|t| t.phase.clone()),
        _ => run.pods.first().map(|p| p.phase.clone()),
    };
    phase.unwrap_or_else(|| "Running".into())
}

impl Prepared {
    pub fn variant_names(&self) -> &[String] {
        &self.names
    }
    pub fn seeds(&self) -> u64 {
        self.seeds
    }
    pub fn first_seed(&self) -> u64 {
        self.first_seed
    }

    /// A partial with no runs: the identity of [`SweepPartial::merge`].
    pub fn empty(&self) -> SweepPartial {
        SweepPartial {
            first_seed: self.first_seed,
            seeds: self.seeds,
            variant_names: self.names.clone(),
            runs: self.runs,
            variants: BTreeMap::new(),
        }
    }

    /// Runs variant `variant` for the seed offsets `start .. start + count`.
    pub fn run(&self, variant: usize, start: u64, count: u64) -> Result<SweepPartial, Diagnostic> {
        let (Some(name), Some(base), Some(kind)) = (
            self.names.get(variant),
            self.scenarios.get(variant),
            self.kinds.get(variant),
        ) else {
            return Err(bad(
                "variant",
                format!(
                    "variant: no variant {variant}; the sweep has {}",
                    self.names.len()
                ),
            ));
        };
        let end = start
            .checked_add(count)
            .filter(|e| *e <= self.seeds)
            .ok_or_else(|| {
                bad(
                    "count",
                    format!(
                        "runs {start} … {start}+{count} are outside the sweep's {} seeds",
                        self.seeds
                    ),
                )
            })?;
        let mut vp = VariantPartial {
            name: name.clone(),
            done: if count > 0 {
                vec![(start, end)]
            } else {
                vec![]
            },
            measures: BTreeMap::new(),
            phases: phases_of(kind)
                .iter()
                .map(|p| ((*p).to_owned(), 0))
                .collect(),
            rows: Vec::new(),
        };
        for offset in start..end {
            let seed = self.first_seed + offset;
            let mut sc = base.clone();
            sc.seed = seed;
            let out = crate::simulate::run(SimulateInput {
                scenario: sc,
                compare: None,
            })
            .map_err(|mut d| {
                d.message = format!("seed {seed}: {}", d.message);
                for_variant(name, d)
            })?;
            let row = row_of(seed, kind, &out.run);
            vp.add(&row);
            if self.runs {
                vp.rows.push(row);
            }
        }
        let mut p = self.empty();
        p.variants.insert(variant, vp);
        Ok(p)
    }

    /// The whole sweep, one run after the other (front ends split it and run chunks in parallel).
    pub fn run_all(&self) -> Result<SweepOutput, Diagnostic> {
        let mut total = self.empty();
        for v in 0..self.names.len() {
            total.merge(self.run(v, 0, self.seeds)?)?;
        }
        total.finish()
    }
}

fn row_of(seed: u64, kind: &str, run: &SimulationRun) -> RunRow {
    let phase = final_phase(kind, run);
    let s = &run.summary;
    let finished = !matches!(phase.as_str(), "Running" | "Pending");
    RunRow {
        seed,
        time_lost_seconds: s.time_lost_seconds,
        container_exits: s.container_exits,
        in_place_restarts: s.in_place_restarts,
        pods_replaced: s.pods_replaced,
        job_failures: s.job_failures,
        jobset_restarts: s.jobset_restarts,
        faults: s.faults,
        time_to_finish_seconds: finished.then_some(s.end_seconds),
        end_seconds: s.end_seconds,
        all_pods_running_seconds: s.all_pods_running_seconds,
        phase,
    }
}

impl VariantPartial {
    fn add(&mut self, row: &RunRow) {
        for (name, v) in MEASURES.iter().zip(row.values()) {
            let tally = self.measures.entry((*name).to_owned()).or_default();
            if let Some(v) = v {
                tally.add(v, 1);
            }
        }
        *self.phases.entry(row.phase.clone()).or_insert(0) += 1;
    }

    fn runs(&self) -> u64 {
        self.done.iter().map(|(a, b)| b - a).sum()
    }

    fn merge(&mut self, other: VariantPartial) -> Result<(), String> {
        let mut done = std::mem::take(&mut self.done);
        done.extend(other.done);
        done.sort_unstable();
        let mut joined: Vec<(u64, u64)> = Vec::with_capacity(done.len());
        for (a, b) in done {
            match joined.last_mut() {
                Some(last) if a < last.1 => {
                    return Err(format!(
                        "runs {a} … {} were counted twice",
                        b.min(last.1) - 1
                    ));
                }
                Some(last) if a == last.1 => last.1 = b,
                _ => joined.push((a, b)),
            }
        }
        self.done = joined;
        for (k, t) in other.measures {
            self.measures.entry(k).or_default().merge(t);
        }
        for (k, n) in other.phases {
            *self.phases.entry(k).or_insert(0) += n;
        }
        self.rows.extend(other.rows);
        Ok(())
    }
}

fn wilson(k: u64, n: u64) -> PhaseShare {
    if n == 0 {
        return PhaseShare {
            runs: 0,
            probability: 0.0,
            low: 0.0,
            high: 1.0,
        };
    }
    let (kf, nf) = (k as f64, n as f64);
    let p = kf / nf;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / nf;
    let center = (p + z2 / (2.0 * nf)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
    PhaseShare {
        runs: k,
        probability: p,
        // The interval's ends are exactly 0 and 1 at k = 0 and k = n; computed, they come out
        // a rounding error away (3e-18 for 0 of 100).
        low: if k == 0 {
            0.0
        } else {
            (center - half).max(0.0)
        },
        high: if k == n {
            1.0
        } else {
            (center + half).min(1.0)
        },
    }
}

impl SweepPartial {
    /// Joins another partial of the same sweep: exact, so any split and order gives one answer.
    pub fn merge(&mut self, other: SweepPartial) -> Result<(), Diagnostic> {
        if other.first_seed != self.first_seed
            || other.seeds != self.seeds
            || other.variant_names != self.variant_names
            || other.runs != self.runs
        {
            return Err(bad(
                "partials",
                "partials: these partial results come from different sweeps (seeds or variants differ)",
            ));
        }
        for (i, vp) in other.variants {
            match self.variants.get_mut(&i) {
                Some(mine) => {
                    let name = mine.name.clone();
                    mine.merge(vp)
                        .map_err(|e| bad("partials", format!("partials: variant {name:?}: {e}")))?
                }
                None => {
                    self.variants.insert(i, vp);
                }
            }
        }
        Ok(())
    }

    /// The sweep's answer, once every variant has every seed.
    pub fn finish(self) -> Result<SweepOutput, Diagnostic> {
        let mut variants = Vec::with_capacity(self.variant_names.len());
        let mut parts = self.variants;
        for (i, name) in self.variant_names.iter().enumerate() {
            let Some(mut vp) = parts.remove(&i) else {
                return Err(bad(
                    "partials",
                    format!("partials: variant {name:?} has no runs"),
                ));
            };
            let runs = vp.runs();
            if vp.done != [(0, self.seeds)] {
                return Err(bad(
                    "partials",
                    format!(
                        "partials: variant {name:?} has {runs} of its {} runs",
                        self.seeds
                    ),
                ));
            }
            vp.rows.sort_by_key(|r| r.seed);
            variants.push(VariantResult {
                name: name.clone(),
                runs,
                measures: vp
                    .measures
                    .iter()
                    .filter_map(|(k, t)| t.stats().map(|s| (k.clone(), s)))
                    .collect(),
                phases: vp
                    .phases
                    .iter()
                    .map(|(k, n)| (k.clone(), wilson(*n, runs)))
                    .collect(),
                rows: vp.rows,
            });
        }
        if let Some(i) = parts.keys().next() {
            return Err(bad(
                "partials",
                format!("partials: a variant {i} that the sweep does not have"),
            ));
        }
        Ok(SweepOutput {
            first_seed: self.first_seed,
            seeds: self.seeds,
            variants,
        })
    }
}

/// The `sweep` op: every variant, every seed, one after the other.
pub fn run(input: SweepInput) -> Result<SweepOutput, Diagnostic> {
    prepare(&input)?.run_all()
}

/// The `sweepPlan` op.
pub fn run_plan(input: SweepInput) -> Result<SweepPlan, Diagnostic> {
    plan(&input)
}

/// The `sweepChunk` op.
pub fn run_chunk(input: SweepChunkInput) -> Result<SweepPartial, Diagnostic> {
    prepare(&input.sweep)?.run(input.variant, input.start, input.count)
}

/// The `sweepMerge` op.
pub fn run_merge(input: SweepMergeInput) -> Result<SweepOutput, Diagnostic> {
    let mut parts = input.partials.into_iter();
    let Some(mut total) = parts.next() else {
        return Err(bad("partials", "partials: nothing to merge"));
    };
    for p in parts {
        total.merge(p)?;
    }
    total.finish()
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )]
    use super::*;
    use serde_json::json;

    /// A two-worker JobSet whose workers exit 42 about once an hour; every exit fails the Job and
    /// restarts the JobSet, up to maxRestarts.
    fn scenario() -> Value {
        json!({
            "kubernetesVersion": "1.35",
            "runFor": "6h",
            "startupSeconds": 20,
            "podRescheduleSeconds": 90,
            "seed": 3,
            "faults": [{"kind": "containerExit", "container": "trainer", "ratePerHour": 0.3, "exitCodes": [42]}],
            "exits": [{"container": "trainer", "afterSeconds": 7200, "exitCode": 0}],
            "workload": {
                "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                "metadata": {"name": "train", "namespace": "ml"},
                "spec": {
                    "failurePolicy": {"maxRestarts": 1},
                    "replicatedJobs": [{"name": "workers", "replicas": 1, "template": {"spec": {
                        "parallelism": 2, "completions": 2, "completionMode": "Indexed", "backoffLimit": 0,
                        "template": {"spec": {"restartPolicy": "Never", "containers": [
                            {"name": "trainer", "image": "trainer:1"}]}}}}}]
                }
            }
        })
    }

    fn input(seeds: u64) -> SweepInput {
        SweepInput {
            scenario: scenario(),
            seeds,
            first_seed: None,
            variants: vec![],
            grid: vec![GridAxis {
                path: "workload.spec.failurePolicy.maxRestarts".into(),
                values: vec![json!(0), json!(3)],
            }],
            runs: true,
        }
    }

    #[test]
    fn any_split_and_order_gives_the_same_answer() {
        let inp = input(24);
        let whole = run(inp.clone()).unwrap();
        let prepared = prepare(&inp).unwrap();
        // Uneven chunks, merged in reverse, each through its JSON form (as a Ray task returns it).
        let mut chunks = Vec::new();
        for v in 0..2 {
            for (start, count) in [(0, 5), (5, 1), (6, 11), (17, 7)] {
                let p = prepared.run(v, start, count).unwrap();
                let text = serde_json::to_string(&p).unwrap();
                chunks.push(serde_json::from_str::<SweepPartial>(&text).unwrap());
            }
        }
        chunks.reverse();
        let merged = run_merge(SweepMergeInput { partials: chunks }).unwrap();
        assert_eq!(merged, whole);
        assert_eq!(
            serde_json::to_string(&merged).unwrap(),
            serde_json::to_string(&whole).unwrap()
        );
        // The statistics equal those computed directly from the per-run rows.
        for v in &whole.variants {
            assert_eq!(v.rows.len(), 24);
            let mut lost: Vec<f64> = v.rows.iter().map(|r| r.time_lost_seconds).collect();
            lost.sort_by(f64::total_cmp);
            let s = &v.measures["timeLostSeconds"];
            assert_eq!(s.min, lost[0]);
            assert_eq!(s.max, lost[23]);
            assert_eq!(s.p50, lost[11]); // nearest rank: ⌈0.5·24⌉ = 12th
            assert_eq!(s.p90, lost[21]); // ⌈21.6⌉ = 22nd
            let mean = lost.iter().sum::<f64>() / 24.0;
            assert!((s.mean - mean).abs() < 1e-9 * mean.max(1.0));
            let failed = v.rows.iter().filter(|r| r.phase == "Failed").count() as u64;
            assert_eq!(v.phases["Failed"].runs, failed);
        }
        // The patch took effect: no JobSet restarts at maxRestarts 0, some at 3.
        assert_eq!(
            whole.variants[0].name,
            "workload.spec.failurePolicy.maxRestarts=0"
        );
        assert_eq!(whole.variants[0].measures["jobsetRestarts"].max, 0.0);
        assert!(whole.variants[1].measures["jobsetRestarts"].max > 0.0);
        assert!(
            whole.variants[1].phases["Failed"].probability
                < whole.variants[0].phases["Failed"].probability
        );
    }

    #[test]
    fn one_seed_is_the_simulate_run() {
        let mut inp = input(1);
        inp.grid.clear();
        let out = run(inp).unwrap();
        let mut sc: Scenario = serde_json::from_value(scenario()).unwrap();
        sc.max_timeline_events = Some(0);
        let sim = crate::simulate::run(SimulateInput {
            scenario: sc,
            compare: None,
        })
        .unwrap();
        let row = &out.variants[0].rows[0];
        assert_eq!(out.first_seed, 3, "the scenario's seed is the first");
        assert_eq!(row.seed, 3);
        assert_eq!(row.container_exits, sim.run.summary.container_exits);
        assert_eq!(row.time_lost_seconds, sim.run.summary.time_lost_seconds);
        assert_eq!(Some(&row.phase), sim.run.jobset.as_ref().map(|j| &j.phase));
        assert_eq!(out.variants[0].name, "baseline");
    }

    #[test]
    fn merge_refuses_overlaps_gaps_and_foreign_partials() {
        let inp = input(4);
        let p = prepare(&inp).unwrap();
        let mut a = p.run(0, 0, 3).unwrap();
        let err = a.merge(p.run(0, 2, 2).unwrap()).unwrap_err();
        assert!(err.message.contains("counted twice"), "{}", err.message);
        let mut b = p.run(0, 0, 3).unwrap();
        b.merge(p.run(1, 0, 4).unwrap()).unwrap();
        let err = b.finish().unwrap_err();
        assert!(
            err.message.contains("has 3 of its 4 runs"),
            "{}",
            err.message
        );
        let mut other = input(5);
        other.grid.clear();
        let foreign = prepare(&other).unwrap().run(0, 0, 1).unwrap();
        let mut c = p.run(0, 0, 1).unwrap();
        assert!(c.merge(foreign).is_err());
        assert!(p.run(0, 3, 2).is_err(), "past the last seed");
        assert!(p.run(2, 0, 1).is_err(), "no such variant");
    }

    #[test]
    fn wilson_interval() {
        // Reference values: Wilson's score interval at z = 1.96.
        let none = wilson(0, 10);
        assert_eq!((none.probability, none.low), (0.0, 0.0));
        assert!((none.high - 0.277_53).abs() < 1e-4, "{}", none.high);
        let half = wilson(5, 10);
        assert!((half.low - 0.236_59).abs() < 1e-4, "{}", half.low);
        assert!((half.high - 0.763_41).abs() < 1e-4, "{}", half.high);
        let zero = wilson(0, 100);
        assert_eq!(zero.low, 0.0, "not a rounding error above 0");
        assert!((zero.high - 0.036_993).abs() < 1e-5, "{}", zero.high);
        let all = wilson(100, 100);
        assert!((all.low - 0.963_01).abs() < 1e-4, "{}", all.low);
        assert_eq!(all.high, 1.0);
    }

    #[test]
    fn tally_statistics() {
        let mut t = Tally::default();
        for v in 1..=100 {
            t.add(v as f64, 1);
        }
        let s = t.stats().unwrap();
        assert_eq!(
            (s.min, s.p25, s.p50, s.p75, s.p90, s.p99, s.max),
            (1.0, 25.0, 50.0, 75.0, 90.0, 99.0, 100.0)
        );
        assert_eq!(s.mean, 50.5);
        assert!((s.std_dev - 29.011_491).abs() < 1e-6);
        let mut one = Tally::default();
        one.add(-0.0, 2);
        one.add(0.0, 1);
        assert_eq!(one.0.len(), 1, "-0 and 0 are one value");
        assert_eq!(one.stats().unwrap().std_dev, 0.0);
        assert!(serde_json::from_value::<Tally>(json!([["-1", 1]])).is_err());
        assert!(serde_json::from_value::<Tally>(json!([[1.5, 1]])).is_err());
        // Sums of milliseconds, as time lost is: every one comes back with the same bits.
        let mut many = Tally::default();
        let mut x = 0.0f64;
        for i in 0..20_000u64 {
            x += (i % 977) as f64 * 0.001 + 0.1;
            many.add(x * 1.000_000_1, 1);
        }
        let back: Tally = serde_json::from_str(&serde_json::to_string(&many).unwrap()).unwrap();
        assert_eq!(back, many);
    }

    #[test]
    fn bad_sweeps_are_refused_before_any_run() {
        let mut zero = input(0);
        zero.grid.clear();
        assert_eq!(plan(&zero).unwrap_err().field, "seeds");
        let too_many = input(MAX_SEEDS + 1);
        assert!(
            prepare(&too_many)
                .unwrap_err()
                .message
                .contains("maximum of 1000000")
        );
        let mut grid = input(1);
        grid.grid = (0..4)
            .map(|i| GridAxis {
                path: format!("x{i}"),
                values: (0..6).map(|v| json!(v)).collect(),
            })
            .collect();
        assert!(
            prepare(&grid)
                .unwrap_err()
                .message
                .contains("1296 variants")
        );
        let mut bad = input(3);
        bad.variants = vec![
            Variant {
                name: "fine".into(),
                patch: json!({}),
            },
            Variant {
                name: "unknown action".into(),
                patch: json!({"workload": {"spec": {"failurePolicy": {"rules": [{"name": "r", "action": "Explode"}]}}}}),
            },
        ];
        let e = prepare(&bad).unwrap_err();
        assert!(
            e.message.starts_with(
                "variant \"unknown action workload.spec.failurePolicy.maxRestarts=0\":"
            ),
            "{}",
            e.message
        );
        assert_eq!(e.field, "spec.failurePolicy.rules[0].action");
        bad.variants[1].patch = json!({"startupSeconds": "slow"});
        let e = prepare(&bad).unwrap_err();
        assert_eq!(e.field, "scenario.startupSeconds");
        bad.variants[1].patch = json!({"runFor": "soon"});
        assert_eq!(prepare(&bad).unwrap_err().field, "scenario.runFor");
        bad.variants[1].patch = json!([1]);
        assert_eq!(prepare(&bad).unwrap_err().field, "variants[1].patch");
        bad.variants[1] = bad.variants[0].clone();
        assert!(prepare(&bad).unwrap_err().message.contains("used twice"));
        let mut path = input(1);
        path.grid[0].path = "faults.4.ratePerHour".into();
        assert!(plan(&path).unwrap_err().message.contains("no index 4"));
        path.grid[0].path = "runFor.x".into();
        assert!(
            plan(&path)
                .unwrap_err()
                .message
                .contains("not an object or array")
        );
    }

    #[test]
    fn patches_merge_and_grid_paths_set() {
        let mut inp = input(1);
        inp.variants = vec![Variant {
            name: "rare".into(),
            patch: json!({"faults": [{"kind": "nodeFailure", "ratePerHour": 0.01}], "startupSeconds": null}),
        }];
        inp.grid = vec![GridAxis {
            path: "faults.0.ratePerHour".into(),
            values: vec![json!(0.01), json!(0.02)],
        }];
        let p = plan(&inp).unwrap();
        assert_eq!(
            p.variants,
            vec![
                "rare faults.0.ratePerHour=0.01",
                "rare faults.0.ratePerHour=0.02"
            ]
        );
        let planned = expand(&inp).unwrap();
        assert_eq!(
            planned.scenarios[1]["faults"],
            json!([{"kind": "nodeFailure", "ratePerHour": 0.02}])
        );
        assert!(
            planned.scenarios[1].get("startupSeconds").is_none(),
            "null removes"
        );
        let mut doc = json!({"a": null});
        set_path(&mut doc, "a.b.c", json!(1)).unwrap();
        assert_eq!(doc, json!({"a": {"b": {"c": 1}}}));
        assert!(set_path(&mut doc, "a..c", json!(1)).is_err());
    }
}
