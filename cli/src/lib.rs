//! The `restartkit` command: a thin front end over the core's JSON contract.
//!
//! A library as well as the binary so that other front ends can run the very same command
//! in-process: the Python package's `restartkit` console command calls [`run`], which is why its
//! output and exit codes are the CLI's by construction rather than by imitation.

/// `println!` for the command's output. `println!` panics when stdout is a closed pipe
/// (`restartkit request F | head`); a reader that stopped reading is not an error, so the
/// command ends quietly there, and any other write error ends it with a message.
macro_rules! outln {
    () => {
        $crate::write_out(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::write_out(format_args!($($arg)*))
    };
}

mod chart;
mod compare;
mod explain;
mod files;
mod kubectl;
mod lsp;
mod render;
mod stages;
mod sweep;
mod trainer;

use clap::{Args, Parser, Subcommand, ValueEnum};
use restartkit::Diagnostic;
use restartkit::contract::{Request, Response, handle};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "restartkit",
    version,
    about = "Know how Kubernetes will restart and fail your containers, Pods, Jobs and JobSets — before you apply.",
    long_about = "restartkit validates manifests exactly as kube-apiserver (and the JobSet and OpenKruise webhooks) would, \
evaluates what the kubelet and the Job and JobSet controllers do when a container exits, and computes backoff curves — \
for the Kubernetes version and feature gates you name."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Clone)]
struct Target {
    /// Kubernetes version to model (1.31 … 1.37, or a full version such as v1.36.3; default: the newest).
    #[arg(short = 'k', long, global = true, value_name = "VERSION")]
    kubernetes_version: Option<String>,
    /// Feature-gate overrides, e.g. `ContainerRestartRules=true,RestartAllContainersOnContainerExits=false`.
    #[arg(long, global = true, value_name = "A=true,B=false", value_parser = parse_gates)]
    feature_gates: Option<BTreeMap<String, bool>>,
    /// Experimental semantics from a KEP upstream has not adopted (repeatable; docs/proposals.md),
    /// e.g. `--proposal Rapid`. Results made under one say so.
    #[arg(long = "proposal", global = true, value_name = "NAME")]
    proposals: Vec<String>,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Output {
    Human,
    Json,
    Sarif,
    /// `validate`: one JSON object a line for each document as it is done (its file, summary
    /// and findings); `whatif` and `backoff` print JSON; `--compare-version` refuses it.
    Jsonl,
}

/// kubectl's `--validate`: what the API server does with a field it does not know.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum FieldValidationArg {
    /// The document is refused (kubectl's default: `strict decoding error: unknown field`).
    #[value(alias = "true")]
    Strict,
    /// A warning; the API server drops the field.
    Warn,
    /// Nothing is said; the API server drops the field.
    #[value(alias = "false")]
    Ignore,
}

impl FieldValidationArg {
    fn api_value(self) -> &'static str {
        match self {
            FieldValidationArg::Strict => "Strict",
            FieldValidationArg::Warn => "Warn",
            FieldValidationArg::Ignore => "Ignore",
        }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum SimOutput {
    Table,
    Json,
    /// The timeline as JSON lines, then the summary.
    Jsonl,
}

#[derive(Subcommand)]
enum KubectlCommand {
    /// Explain a Pod, a Job (with its Pods) or a JobSet (with its Jobs and Pods) as
    /// `restartkit explain` does, fetched with kubectl (`RESTARTKIT_KUBECTL`, else `kubectl`),
    /// the user's kubeconfig and context; `now` is the instant they were read.
    ///
    /// Exit status: 0, 1 when the objects cannot be explained, 2 when kubectl fails or the
    /// workload is not TYPE/NAME of a Pod, Job or JobSet.
    Explain {
        /// The workload: pod/NAME, job/NAME or jobset/NAME.
        workload: String,
        /// The namespace (default: the context's).
        #[arg(short = 'n', long)]
        namespace: Option<String>,
        /// The kubeconfig context to use.
        #[arg(long)]
        context: Option<String>,
        /// The kubeconfig file to use.
        #[arg(long)]
        kubeconfig: Option<PathBuf>,
        /// The instant to explain at (RFC 3339; default: now, when the objects were read).
        #[arg(long)]
        now: Option<String>,
        /// The node's KubeletConfiguration file (its crashLoopBackOff and featureGates apply).
        #[arg(long)]
        kubelet_config: Option<PathBuf>,
        #[arg(short, long, value_enum, default_value_t = Output::Human)]
        output: Output,
        #[command(flatten)]
        target: Target,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Validate manifests (YAML or JSON, multi-document) as the API server and webhooks would.
    ///
    /// Exit status: 0 when no file has an error (warnings allowed), 1 when any has, 2 when a file
    /// cannot be read.
    Validate {
        /// Files to validate; `-` reads standard input; a directory stands for the `.yaml`,
        /// `.yml` and `.json` files under it. Files over 8 MiB are read piece by piece in
        /// bounded memory: one object (a document, or an item of a List) at a time, at most
        /// 3 MiB each, as kube-apiserver's request limit.
        #[arg(required_unless_present = "files_from")]
        files: Vec<PathBuf>,
        /// Also validate the files named in FILE, one path a line (`-`: standard input); for
        /// more files than a command line holds.
        #[arg(long = "files-from", value_name = "FILE")]
        files_from: Option<PathBuf>,
        #[arg(short, long, value_enum, default_value_t = Output::Human)]
        output: Output,
        /// Validate objects exactly as given, without upstream defaulting (as upstream unit tests do).
        #[arg(long)]
        skip_defaulting: bool,
        /// What a field the targeted Kubernetes version does not know costs, as kubectl's
        /// --validate: strict (kubectl's default) refuses the document, warn reports it, ignore
        /// says nothing; the API server drops the field under the last two.
        #[arg(long = "validate", value_enum, default_value_t = FieldValidationArg::Strict)]
        field_validation: FieldValidationArg,
        /// The upgrade check: judge the files by this Kubernetes version too (1.31 … 1.37) and
        /// report, per document, what changes from --kubernetes-version to it: admitted by one and
        /// refused by the other, errors and warnings that appear or go, and container exits
        /// decided differently, with the upstream change that explains each where known. Exit
        /// status 1 when the compared version refuses a document or decides an exit differently.
        #[arg(
            long = "compare-version",
            value_name = "VERSION",
            conflicts_with_all = ["skip_defaulting", "runtimes", "schema_locations"]
        )]
        compare_version: Option<String>,
        /// A TrainingRuntime or ClusterTrainingRuntime file the TrainJobs may name (repeatable;
        /// the runtimes in the other files given count too).
        #[arg(long = "runtime", value_name = "FILE")]
        runtimes: Vec<PathBuf>,
        /// CustomResourceDefinitions (apiextensions.k8s.io/v1 YAML or JSON; a file, or a
        /// directory of them) whose schemas check custom resources of their kinds as
        /// kube-apiserver does: types, formats, enums, limits, required fields, defaults, list
        /// types and unknown fields (CEL rules are not evaluated). Repeatable; CRDs among the
        /// files validated count too. A kind with no schema anywhere is passed over with an info.
        #[arg(long = "schema-location", value_name = "PATH")]
        schema_locations: Vec<PathBuf>,
        #[command(flatten)]
        target: Target,
    },
    /// The JobSet (and ConfigMaps, Secrets, PodGroups) Kubeflow Trainer creates for each TrainJob
    /// in the files, from its TrainingRuntime or ClusterTrainingRuntime (in the files or
    /// `--runtime FILE`), as github.com/kubeflow/trainer/v2 v2.3.0 builds them; the TrainJob's and
    /// runtime's admission errors and the JobSet's on stderr.
    ///
    /// Exit status: 0, 1 when a TrainJob or its JobSet has an error, 2 when a file cannot be read
    /// or holds no TrainJob.
    Resolve {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// A TrainingRuntime or ClusterTrainingRuntime file (repeatable).
        #[arg(long = "runtime", value_name = "FILE")]
        runtimes: Vec<PathBuf>,
        /// `json`: a List of the objects (kubectl reads it); `result`: the resolve op's result.
        #[arg(short, long, value_enum, default_value_t = trainer::ResolveOutput::Json)]
        output: trainer::ResolveOutput,
        #[command(flatten)]
        target: Target,
    },
    /// What happens when a container exits: the kubelet's decision, then the Job's outcome and the
    /// JobSet's action when the manifest is a Job or JobSet.
    ///
    /// An object the API server would refuse is still evaluated as upstream's code would, but its
    /// validation errors are printed on stderr as warnings (the first 3; `restartkit validate
    /// FILE` shows them all) and carried in the JSON output's `warnings`.
    ///
    /// Exit status: 0 when the decision was made (also for an object with warnings), 1 when the
    /// request cannot be answered (unknown container, unsupported kind, ...), 2 when the file
    /// cannot be read.
    Evaluate {
        /// A Pod, Job, JobSet or Kubeflow TrainJob manifest (a TrainJob is evaluated as the JobSet
        /// the trainer builds from it and its runtime: in the file or `--runtime FILE`).
        file: PathBuf,
        /// For a TrainJob: its TrainingRuntime or ClusterTrainingRuntime file (repeatable).
        #[arg(long = "runtime", value_name = "FILE")]
        runtimes: Vec<PathBuf>,
        /// The container that exits (default: the first regular container).
        #[arg(short, long)]
        container: Option<String>,
        /// Its exit code.
        #[arg(short = 'e', long, allow_negative_numbers = true)]
        exit_code: i32,
        /// In a JobSet: the replicatedJob whose Pod fails (default: the first).
        #[arg(long)]
        replicated_job: Option<String>,
        /// Pod conditions present when the Pod fails, e.g. `DisruptionTarget` (repeatable).
        #[arg(long = "condition")]
        conditions: Vec<String>,
        #[arg(short, long, value_enum, default_value_t = Output::Human)]
        output: Output,
        #[command(flatten)]
        target: Target,
    },
    /// Explain a running or failed workload from its live objects (what `kubectl get
    /// pod,job,jobset -o yaml|json` prints, status included): per container its last exit, the
    /// kubelet's decision and the next restart's CrashLoopBackOff instant; per failed Pod of a
    /// Job the podFailurePolicy rule it matched, what it cost of backoffLimit and when the next
    /// Pod is created; per JobSet its restarts and what the next Job failure does. What the
    /// objects cannot tell is said (docs/explain.md).
    ///
    /// Exit status: 0, 1 when the objects cannot be explained (no objects, no timestamp and no
    /// --now), 2 when a file cannot be read.
    Explain {
        /// The objects (YAML or JSON: a List, a stream of documents); `-` reads standard input.
        file: PathBuf,
        /// The instant to explain at (RFC 3339; default: the newest timestamp in the input).
        #[arg(long)]
        now: Option<String>,
        /// The node's KubeletConfiguration file (its crashLoopBackOff and featureGates apply).
        #[arg(long)]
        kubelet_config: Option<PathBuf>,
        #[arg(short, long, value_enum, default_value_t = Output::Human)]
        output: Output,
        #[command(flatten)]
        target: Target,
    },
    /// Fetch a workload's live objects with kubectl and explain them: `restartkit kubectl
    /// explain job/NAME -n NS`. Run as `kubectl-restartkit` (a copy or link of this binary on
    /// the PATH), this is kubectl's plugin: `kubectl restartkit explain job/NAME -n NS`.
    Kubectl {
        #[command(subcommand)]
        command: KubectlCommand,
    },
    /// The kubelet's CrashLoopBackOff curve for a version, gates and kubelet configuration.
    Backoff {
        /// How many restarts to list.
        #[arg(short = 'n', long, default_value_t = 10)]
        restarts: u32,
        /// A KubeletConfiguration file (its crashLoopBackOff and featureGates apply).
        #[arg(long)]
        kubelet_config: Option<PathBuf>,
        /// Compare curves side by side: legacy 10s/300s, KEP-4603's reduced 1s/60s, reduced with
        /// the per-node maximum (1s/300s), the target version's default, and --kubelet-config if
        /// given; with restarts per window, excess over legacy and the API load estimate.
        #[arg(long)]
        compare: bool,
        /// With --compare: crashing Pods on the node.
        #[arg(long, default_value_t = 110)]
        pods: u32,
        /// With --compare: API requests per restart.
        #[arg(long, default_value_t = 5)]
        requests_per_restart: u32,
        /// With --compare: also write an SVG chart of the curves.
        #[arg(long)]
        svg: Option<PathBuf>,
        #[arg(short, long, value_enum, default_value_t = Output::Human)]
        output: Output,
        #[command(flatten)]
        target: Target,
    },
    /// Simulate a restart timeline: a scenario (kind: Scenario) with a workload, scripted exits and
    /// faults, run deterministically over upstream's semantics.
    Simulate {
        scenario: PathBuf,
        /// A second scenario to run side by side (a counterfactual policy).
        #[arg(long)]
        compare: Option<PathBuf>,
        #[arg(short, long, value_enum, default_value_t = SimOutput::Table)]
        output: SimOutput,
        /// Simulate the scenario under an experimental proposal (repeatable; docs/proposals.md).
        #[arg(long = "proposal", value_name = "NAME")]
        proposals: Vec<String>,
    },
    /// Run a scenario over many seeds and variants, on every core, and summarise the
    /// distributions: per variant, each measure's mean, std dev, min, p25…p99, max, and the
    /// probability of each final phase with a 95 % Wilson interval (docs/sweeps.md).
    ///
    /// Exit status: 0, 1 when the sweep is refused (a variant the simulator would reject, too
    /// many seeds or variants), 2 when a file or argument cannot be read, 130 on Ctrl-C.
    Sweep(sweep::SweepArgs),
    /// Print a JSON Schema (for editors such as yaml-language-server, or code generators).
    Schema {
        /// Pod, Job, JobSet, ContainerRecreateRequest, KubeletConfiguration, Request, Response,
        /// Diagnostic, or `<Op>Input` / `<Op>Output`. Omit to list the names.
        kind: Option<String>,
    },
    /// Run conformance vectors (conformance/FORMAT.md): one `FAIL <id>: …` line per failure, then
    /// `N passed, M failed`; non-zero exit on any failure.
    Conformance {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Where the requests go: `native` (this binary's engine), or `plugin[=PATH]`: the
        /// WebAssembly policy module through the wasmtime host (PATH defaults to
        /// $RESTARTKIT_PLUGIN, then restartkit_plugin.wasm next to this binary or in the cargo
        /// target's wasm32-unknown-unknown/release). `plugin` needs a build with
        /// `--features plugin` (`make plugin` does it).
        #[arg(long, default_value = "native", value_name = "native|plugin[=PATH]")]
        via: String,
    },
    /// Send one raw contract request (JSON from a file or `-`) and print the response.
    Request { file: PathBuf },
    /// Print the JSON the API server decodes from each YAML document: scalars resolved as
    /// kubectl and kube-apiserver resolve them (`sigs.k8s.io/yaml`: `yes` is true, `010` is 8,
    /// `<<` merges, `6.0` is 6), one JSON document per line.
    ///
    /// Exit status: 0, or 1 when a document cannot be converted, 2 when a file cannot be read.
    Convert {
        /// Files to convert; `-` reads standard input.
        #[arg(required_unless_present = "jsonl")]
        files: Vec<PathBuf>,
        /// Read JSON lines from standard input, each a JSON string holding one YAML text, and
        /// answer each with a line `{"documents": [...]}` or `{"error": <diagnostic>}` (for the
        /// differential oracle, docs/oracle.md). Each text is read whole, as the API server reads
        /// a YAML request body.
        #[arg(long, conflicts_with = "files")]
        jsonl: bool,
        /// With --jsonl: read each text as kubectl reads a file (document by document, JSON
        /// streams too), and add `"stream"`: per document `{"value": …}` or `{"error": …,
        /// "stopsKubectl": true|false}`.
        #[arg(long, requires = "jsonl")]
        stream: bool,
        /// Read as the kubectl of this Kubernetes version reads a file (1.31 … 1.37, or a full
        /// version; default: the newest): before 1.33 a stream that starts with `{` is JSON to
        /// the end.
        #[arg(short = 'k', long = "kubernetes-version")]
        kubernetes_version: Option<String>,
    },
    /// Run the Language Server (LSP over standard input and output) for editors: diagnostics as
    /// `validate` gives them, quick fixes, hover, completion, and "what if" / CrashLoopBackOff
    /// commands (docs/integrations.md).
    Lsp {
        /// Accepted for editors that pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// JSON lines in, JSON lines out: one contract request per line of standard input.
    Batch {
        /// At the end, print to standard error `timing: N requests, T ns` (T: the time spent
        /// answering, parsing and encoding included, reading and writing excluded), for the
        /// differential oracle's speed comparison.
        #[arg(long)]
        timing: bool,
        /// After answering, time restartkit's stages (decide on decoded input, the compiled
        /// form, decode+decide) on the inputs of the podFailurePolicy, containerRestart and
        /// validate requests, and print `stage <name>: N inputs, T ns/input` to standard error
        /// (docs/oracle.md).
        #[arg(long)]
        stages: bool,
    },
}

fn parse_gates(s: &str) -> Result<BTreeMap<String, bool>, String> {
    let mut m = BTreeMap::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("{part:?}: expected NAME=true or NAME=false"))?;
        let on = match v.trim() {
            "true" | "True" | "TRUE" => true,
            "false" | "False" | "FALSE" => false,
            other => return Err(format!("{k}: {other:?} is not true or false")),
        };
        m.insert(k.trim().to_owned(), on);
    }
    Ok(m)
}

fn read_input(path: &PathBuf) -> Result<String, String> {
    if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("standard input: {e}"))?;
        Ok(s)
    } else {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        restartkit::source::text_from_bytes(&bytes)
            .map(str::to_owned)
            .map_err(|d| located(path, &d))
    }
}

fn options(target: &Target) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    if let Some(v) = &target.kubernetes_version {
        m.insert("kubernetesVersion".into(), json!(v));
    }
    if let Some(g) = &target.feature_gates {
        m.insert("featureGates".into(), json!(g));
    }
    m
}

/// Adds `proposals` to an op's input when any was named (absent otherwise, so the request is
/// exactly the upstream one).
fn with_proposals(input: &mut serde_json::Map<String, Value>, proposals: &[String]) {
    if !proposals.is_empty() {
        input.insert("proposals".into(), json!(proposals));
    }
}

fn call(op: &str, input: Value) -> Result<(Value, Vec<Diagnostic>), Vec<Diagnostic>> {
    match handle(Request {
        op: op.to_owned(),
        input,
    }) {
        Response::Ok {
            result, warnings, ..
        } => Ok((result, warnings)),
        Response::Error { errors, .. } => Err(errors),
    }
}

/// Prints request errors the contract returned and gives the exit status for them.
fn report_errors(errs: &[Diagnostic]) -> ExitCode {
    for e in errs {
        eprintln!("error: {}", e.message);
    }
    ExitCode::from(1)
}

fn print_json(v: &impl serde::Serialize) {
    outln!(
        "{}",
        serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    );
}

/// Writes `text` to the command's output as it is (no line break added); a closed pipe ends the
/// command quietly, as [`write_out`].
pub(crate) fn write_raw(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing output: {e}");
        std::process::exit(2);
    }
}

pub(crate) fn write_out(line: std::fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}") {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing output: {e}");
        std::process::exit(2);
    }
}

/// Runs the command line `args` (the program name first, as `std::env::args_os` gives it) and
/// returns the exit status: 0 fine, 1 errors found, 2 unreadable input or a usage error (clap's
/// own status; `--help` and `--version` are 0). Output goes to the process's stdout and stderr.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(as_kubectl_plugin(args)) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version are "errors" to clap too; it knows which stream each goes to.
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    status_of(dispatch(cli))
}

/// Run as `kubectl-restartkit` (kubectl runs a plugin `kubectl-NAME` with the words after
/// `kubectl NAME`), the command line is `restartkit kubectl …`.
fn as_kubectl_plugin<I, T>(args: I) -> Vec<std::ffi::OsString>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let mut args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let plugin = args
        .first()
        .and_then(|p| Path::new(p).file_stem())
        .is_some_and(|stem| stem == "kubectl-restartkit");
    if plugin {
        args.insert(1, "kubectl".into());
    }
    args
}

/// The number behind an `ExitCode`, which does not expose it (0, 1, 2, and 130 after Ctrl-C).
fn status_of(code: ExitCode) -> u8 {
    (0..=u8::MAX)
        .find(|c| ExitCode::from(*c) == code)
        .unwrap_or(1)
}

fn dispatch(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Validate {
            files,
            files_from,
            output,
            skip_defaulting,
            field_validation,
            compare_version,
            runtimes,
            schema_locations,
            target,
        } => {
            let files = match files::expand(&files, files_from.as_deref()) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            match compare_version {
                Some(to) => compare_versions(&files, output, field_validation, &to, &target),
                None => files::validate(
                    &files,
                    &runtimes,
                    &schema_locations,
                    output,
                    skip_defaulting,
                    field_validation,
                    &target,
                ),
            }
        }
        Command::Resolve {
            files,
            runtimes,
            output,
            target,
        } => trainer::resolve(&files, &runtimes, output, &target),
        Command::Evaluate {
            file,
            runtimes,
            container,
            exit_code,
            replicated_job,
            conditions,
            output,
            target,
        } => render::evaluate(
            &file,
            &runtimes,
            container,
            exit_code,
            replicated_job,
            &conditions,
            output == Output::Human,
            &target,
        ),
        Command::Explain {
            file,
            now,
            kubelet_config,
            output,
            target,
        } => explain::explain(
            &file,
            kubelet_config.as_ref(),
            now.as_deref(),
            output == Output::Human,
            &target,
        ),
        Command::Kubectl {
            command:
                KubectlCommand::Explain {
                    workload,
                    namespace,
                    context,
                    kubeconfig,
                    now,
                    kubelet_config,
                    output,
                    target,
                },
        } => kubectl::explain(
            &workload,
            &kubectl::Connection {
                namespace,
                context,
                kubeconfig,
            },
            kubelet_config.as_ref(),
            now.as_deref(),
            output == Output::Human,
            &target,
        ),
        Command::Backoff {
            restarts,
            kubelet_config,
            compare,
            pods,
            requests_per_restart,
            svg,
            output,
            target,
        } => {
            // A proposal's curves only exist beside upstream's: naming one implies --compare.
            if compare || !target.proposals.is_empty() {
                backoff_compare(
                    kubelet_config,
                    pods,
                    requests_per_restart,
                    svg,
                    output,
                    &target,
                )
            } else {
                backoff(restarts, kubelet_config, output, &target)
            }
        }
        Command::Schema { kind } => schema(kind),
        Command::Sweep(args) => sweep::sweep(args),
        Command::Simulate {
            scenario,
            compare,
            output,
            proposals,
        } => simulate(&scenario, compare.as_ref(), output, &proposals),
        Command::Conformance { files, via } => match via.as_str() {
            "native" => conformance(&files, &mut |v| {
                restartkit::conformance::run_vector(v, restartkit::handle)
            }),
            v if v == "plugin" || v.starts_with("plugin=") => {
                plugin::conformance(&files, v.strip_prefix("plugin="))
            }
            other => {
                eprintln!("error: --via {other:?}: expected native, plugin or plugin=PATH");
                ExitCode::from(2)
            }
        },
        Command::Request { file } => match read_input(&file) {
            Ok(text) => {
                let out = restartkit::handle_json(&text);
                outln!("{out}");
                if out.starts_with("{\"status\":\"ok\"") {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Command::Batch { timing, stages } => batch(timing, stages),
        Command::Lsp { stdio: _ } => lsp::serve(),
        Command::Convert {
            files,
            jsonl,
            stream,
            kubernetes_version,
        } => {
            let minor = match kubernetes_version
                .as_deref()
                .map(restartkit::KubeVersion::parse)
            {
                None => restartkit::KubeVersion::default().minor,
                Some(Ok(v)) => v.minor,
                Some(Err(d)) => {
                    eprintln!("error: {}", d.message);
                    return ExitCode::from(2);
                }
            };
            if jsonl {
                convert_lines(stream, minor)
            } else {
                convert(&files, minor)
            }
        }
    }
}

fn compare_versions(
    files: &[PathBuf],
    output: Output,
    field_validation: FieldValidationArg,
    to: &str,
    target: &Target,
) -> ExitCode {
    if matches!(output, Output::Sarif | Output::Jsonl) {
        eprintln!("error: --compare-version writes human or json output");
        return ExitCode::from(2);
    }
    let from = target
        .kubernetes_version
        .clone()
        .unwrap_or_else(|| restartkit::KubeVersion::default().as_string());
    let mut reports = Vec::new();
    for f in files {
        let name = f.display().to_string();
        let text = match read_input(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        let mut input = json!({"source": text, "fileName": name, "fromVersion": from,
            "toVersion": to, "fieldValidation": field_validation.api_value()});
        if let (Some(g), Some(m)) = (&target.feature_gates, input.as_object_mut()) {
            m.insert("featureGates".into(), json!(g));
        }
        let result = match call("compareVersions", input) {
            Ok((r, _)) => r,
            Err(errs) => return report_errors(&errs),
        };
        match serde_json::from_value::<restartkit::upgrade::CompareVersionsOutput>(result) {
            Ok(o) => reports.push((name, o)),
            Err(e) => {
                eprintln!("error: cannot read the comparison: {e}");
                return ExitCode::from(2);
            }
        }
    }
    match output {
        Output::Json => {
            if !print_line(&compare::json_report(&reports)) {
                return ExitCode::SUCCESS;
            }
        }
        _ => {
            for (name, o) in &reports {
                compare::print_human(name, o);
            }
        }
    }
    let outs: Vec<_> = reports.into_iter().map(|(_, o)| o).collect();
    compare::status(&outs)
}

/// `file:line:column: message [code]`, the way compilers name a place in a file.
fn located(path: &Path, d: &restartkit::Diagnostic) -> String {
    format!(
        "{}:{}:{}: {} [{}]",
        path.display(),
        d.line.unwrap_or(0),
        d.column.unwrap_or(0),
        d.message,
        d.code.as_deref().unwrap_or("")
    )
}

fn convert(files: &[PathBuf], minor: u32) -> ExitCode {
    let mut status = ExitCode::SUCCESS;
    for f in files {
        let text = match read_input(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        // Document by document, as kubectl reads the file: a broken one is reported and the
        // others are still converted.
        for entry in restartkit::source::read_stream_at(&text, minor) {
            match entry {
                Ok(d) => {
                    if !print_line(&d.value) {
                        return ExitCode::SUCCESS;
                    }
                }
                Err(b) => {
                    eprintln!("error: {}", located(f, &b.error));
                    status = ExitCode::from(1);
                }
            }
        }
    }
    status
}

fn convert_lines(stream: bool, minor: u32) -> ExitCode {
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else {
            return ExitCode::from(2);
        };
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<String>(&line) {
            Err(e) => {
                json!({"error": {"message": format!("each line must be a JSON string: {e}")}})
            }
            Ok(text) if stream => stream_answer(&text, minor),
            Ok(text) => match restartkit::source::parse_whole(&text) {
                Ok(docs) => {
                    json!({"documents": docs.into_iter().map(|d| d.value).collect::<Vec<_>>()})
                }
                Err(d) => json!({"error": d}),
            },
        };
        if !print_line(&answer) {
            break;
        }
    }
    ExitCode::SUCCESS
}

/// `{"documents": [values read], "error": the first error (absent when none), "stream": per
/// document {"value"} or {"error", "stopsKubectl"}}`.
fn stream_answer(text: &str, minor: u32) -> Value {
    let mut documents = Vec::new();
    let mut first_error = None;
    let mut stream = Vec::new();
    for entry in restartkit::source::read_stream_at(text, minor) {
        match entry {
            Ok(d) => {
                stream.push(json!({"value": d.value}));
                documents.push(d.value);
            }
            Err(b) => {
                stream.push(json!({"error": b.error, "stopsKubectl": b.stops_kubectl}));
                first_error.get_or_insert(b.error);
            }
        }
    }
    let mut answer = json!({"documents": documents, "stream": stream});
    if let (Some(e), Some(m)) = (first_error, answer.as_object_mut()) {
        m.insert("error".into(), json!(e));
    }
    answer
}

/// One JSON value on its own line; false when standard output is gone (`| head`).
fn print_line(v: &Value) -> bool {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, v).is_ok() && writeln!(out).is_ok()
}

fn first_document(p: &PathBuf) -> Result<Value, String> {
    let text = read_input(p)?;
    let docs = restartkit::source::parse_documents(&text)
        .map_err(|d| format!("{}: {}", p.display(), d.message))?;
    docs.into_iter()
        .next()
        .map(|d| d.value)
        .ok_or_else(|| format!("{}: no document", p.display()))
}

fn backoff_compare(
    kubelet_config: Option<PathBuf>,
    pods: u32,
    requests: u32,
    svg: Option<PathBuf>,
    output: Output,
    target: &Target,
) -> ExitCode {
    let gates = |reduce: bool, max: bool| json!({"ReduceDefaultCrashLoopBackOffDecay": reduce, "KubeletCrashLoopBackOffMax": max});
    let version = target.kubernetes_version.clone();
    let mut curves = vec![
        json!({"label": "legacy 10s/300s", "featureGates": gates(false, false)}),
        json!({"label": "KEP-4603 reduced (1s/60s)", "featureGates": gates(true, false)}),
        json!({"label": "reduced + node max default (1s/300s)", "featureGates": gates(true, true)}),
    ];
    let mut default = options(target);
    default.insert(
        "label".into(),
        json!(format!(
            "Kubernetes {} default",
            version.as_deref().unwrap_or("newest")
        )),
    );
    curves.push(Value::Object(default));
    if let Some(p) = &kubelet_config {
        match first_document(p) {
            Ok(cfg) => {
                let mut c = options(target);
                c.insert(
                    "label".into(),
                    json!(format!("node config {}", p.display())),
                );
                c.insert("kubeletConfig".into(), cfg);
                curves.push(Value::Object(c));
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut input = json!({"curves": curves, "pods": pods, "requestsPerRestart": requests});
    if let Some(m) = input.as_object_mut() {
        with_proposals(m, &target.proposals);
    }
    let r = match call("backoffCompare", input) {
        Ok((r, _)) => r,
        Err(errs) => return report_errors(&errs),
    };
    if let Some(path) = &svg {
        if let Err(e) = chart::backoff_svg(&r, 1800.0, path) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(2);
        }
        eprintln!("wrote {}", path.display());
    }
    if output == Output::Human {
        render::backoff_comparison(&r);
    } else {
        print_json(&r);
    }
    ExitCode::SUCCESS
}

fn backoff(
    restarts: u32,
    kubelet_config: Option<PathBuf>,
    output: Output,
    target: &Target,
) -> ExitCode {
    let mut input = options(target);
    input.insert("component".into(), json!("kubelet"));
    input.insert("restarts".into(), json!(restarts));
    if let Some(p) = kubelet_config {
        match first_document(&p) {
            Ok(v) => {
                input.insert("kubeletConfig".into(), v);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    match call("backoff", Value::Object(input)) {
        Ok((r, warnings)) => {
            if output == Output::Human {
                render::backoff_table(&r);
                for w in warnings {
                    eprintln!("warning: {}", w.message);
                }
            } else {
                print_json(&r);
            }
            ExitCode::SUCCESS
        }
        Err(errs) => report_errors(&errs),
    }
}

fn schema(kind: Option<String>) -> ExitCode {
    let all = restartkit::contract::json_schemas();
    match kind {
        None => {
            for k in all.keys() {
                outln!("{k}");
            }
            ExitCode::SUCCESS
        }
        Some(k) => match all.iter().find(|(n, _)| n.eq_ignore_ascii_case(&k)) {
            Some((_, s)) => {
                print_json(s);
                ExitCode::SUCCESS
            }
            None => {
                eprintln!(
                    "error: no schema named {k:?}; known: {}",
                    all.keys().copied().collect::<Vec<_>>().join(", ")
                );
                ExitCode::from(2)
            }
        },
    }
}

/// Runs vector files through `run` (a vector -> its notes, or the text of its FAIL line).
fn conformance(
    files: &[PathBuf],
    run: &mut dyn FnMut(&Value) -> Result<Vec<String>, String>,
) -> ExitCode {
    let (mut passed, mut failed) = (0usize, 0usize);
    for f in files {
        let vectors = match read_input(f).and_then(|t| {
            serde_json::from_str::<Vec<Value>>(&t).map_err(|e| format!("{}: {e}", f.display()))
        }) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        for v in &vectors {
            let id = v.get("id").and_then(Value::as_str).unwrap_or("?");
            match run(v) {
                Ok(notes) => {
                    passed += 1;
                    for n in notes {
                        outln!("NOTE {id}: {n}");
                    }
                }
                Err(e) => {
                    failed += 1;
                    outln!("FAIL {id}: {e}");
                }
            }
        }
    }
    outln!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `conformance --via plugin`: the same runner, with each request answered by the policy module.
#[cfg(feature = "plugin")]
mod plugin {
    use super::{ExitCode, PathBuf};

    pub fn conformance(files: &[PathBuf], path: Option<&str>) -> ExitCode {
        let Some(path) = path
            .map(PathBuf::from)
            .or_else(restartkit_host::default_plugin_path)
        else {
            eprintln!(
                "error: no plugin module: give --via plugin=PATH or set RESTARTKIT_PLUGIN (`make plugin` builds it)"
            );
            return ExitCode::from(2);
        };
        let mut host = match restartkit_host::Host::load(&path, restartkit_host::Limits::default())
        {
            Ok(h) => h,
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        // The host's runner mirrors restartkit::conformance::run_vector (divergence notes
        // included), so the output is the native runner's.
        super::conformance(files, &mut |v| {
            restartkit_host::conformance::run_vector(&mut host, v)
        })
    }
}

#[cfg(not(feature = "plugin"))]
mod plugin {
    use super::{ExitCode, PathBuf};

    pub fn conformance(_files: &[PathBuf], _path: Option<&str>) -> ExitCode {
        eprintln!(
            "error: this restartkit was built without the plugin host; build it with `cargo build -p restartkit-cli --features plugin` (or run `make plugin`)"
        );
        ExitCode::from(2)
    }
}

fn batch(timing: bool, stages: bool) -> ExitCode {
    let mut answered = 0u64;
    // --stages: each request's op and input text, kept for the stage timings at the end.
    let mut inputs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut spent = std::time::Duration::ZERO;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let Ok(line) = line else {
            eprintln!("error: standard input is not UTF-8 text");
            return ExitCode::from(2);
        };
        if line.trim().is_empty() {
            continue;
        }
        let start = std::time::Instant::now();
        let answer = restartkit::handle_json(&line);
        spent += start.elapsed();
        answered += 1;
        if stages
            && let Ok(v) = serde_json::from_str::<Value>(&line)
            && let (Some(op), Some(input)) = (v.get("op").and_then(Value::as_str), v.get("input"))
        {
            inputs
                .entry(op.to_owned())
                .or_default()
                .push(input.to_string());
        }
        if writeln!(out, "{answer}").is_err() {
            return ExitCode::from(2);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(2);
    }
    if timing {
        eprintln!("timing: {answered} requests, {} ns", spent.as_nanos());
    }
    for (op, texts) in &inputs {
        for l in stages::report(op, texts) {
            eprintln!("{l}");
        }
    }
    ExitCode::SUCCESS
}

/// Reads a scenario file; a `workloadFile` (and a TrainJob's `runtimeFile`) is read relative to
/// it and inlined.
fn load_scenario(path: &PathBuf) -> Result<Value, String> {
    let text = read_input(path)?;
    let mut doc = restartkit::source::parse_documents(&text)
        .map_err(|d| format!("{}: {}", path.display(), d.message))?
        .into_iter()
        .next()
        .ok_or_else(|| format!("{}: no document", path.display()))?
        .value;
    if let Some(wf) = doc
        .get("workloadFile")
        .and_then(Value::as_str)
        .map(str::to_owned)
    {
        let base = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
        let wp = base.join(&wf);
        let wtext = read_input(&wp)?;
        let w = restartkit::source::parse_documents(&wtext)
            .map_err(|d| format!("{}: {}", wp.display(), d.message))?
            .into_iter()
            .collect::<Vec<_>>();
        let w = w
            .iter()
            .find(|d| {
                matches!(
                    d.value.get("kind").and_then(Value::as_str),
                    Some("Pod" | "Job" | "JobSet" | "TrainJob")
                )
            })
            .ok_or_else(|| format!("{}: no Pod, Job, JobSet or TrainJob", wp.display()))?
            .value
            .clone();
        let docs = restartkit::source::parse_documents(&wtext).unwrap_or_default();
        if let Some(m) = doc.as_object_mut() {
            m.remove("workloadFile");
            m.insert("workload".into(), w);
        }
        let base = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
        trainer::scenario_runtime(&mut doc, &base, &docs)?;
    } else {
        let base = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
        trainer::scenario_runtime(&mut doc, &base, &[])?;
    }
    Ok(doc)
}

fn simulate(
    scenario: &PathBuf,
    compare: Option<&PathBuf>,
    output: SimOutput,
    proposals: &[String],
) -> ExitCode {
    // `--proposal` applies to the scenario (not to the counterfactual under --compare, so that
    // one file can be compared with itself under and without a proposal).
    let load = |p: &PathBuf| load_scenario(p);
    let mut input = serde_json::Map::new();
    match load(scenario) {
        Ok(mut v) => {
            if let (Some(m), false) = (v.as_object_mut(), proposals.is_empty()) {
                let mut named: Vec<Value> = m
                    .get("proposals")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                named.extend(proposals.iter().map(|p| json!(p)));
                m.insert("proposals".into(), Value::Array(named));
            }
            input.insert("scenario".into(), v)
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(c) = compare {
        match load(c) {
            Ok(v) => input.insert("compare".into(), v),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
    }
    match call("simulate", Value::Object(input)) {
        Ok((r, _)) => {
            match output {
                SimOutput::Json => print_json(&r),
                SimOutput::Jsonl => {
                    for e in r
                        .get("timeline")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        outln!("{e}");
                    }
                    outln!(
                        "{}",
                        json!({"summary": r.get("summary"), "pods": r.get("pods"), "jobs": r.get("jobs"), "jobset": r.get("jobset")})
                    );
                }
                SimOutput::Table => render::simulation(&r),
            }
            ExitCode::SUCCESS
        }
        Err(errs) => report_errors(&errs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_status_numbers_survive_the_library_boundary() {
        for n in [0u8, 1, 2, 130] {
            assert_eq!(status_of(ExitCode::from(n)), n);
        }
        assert_eq!(run(["restartkit", "--version"]), 0);
        assert_eq!(run(["restartkit", "no-such-command"]), 2);
    }
}
