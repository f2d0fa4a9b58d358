//! `restartkit sweep`: the core's sweep, its chunks run on every core (rayon) and merged exactly.

use crate::{load_scenario, print_json};
use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;
use rayon::prelude::*;
use restartkit::Diagnostic;
use restartkit::sweep::{GridAxis, Prepared, SweepInput, SweepOutput, SweepPartial, Variant};
use serde_json::{Value, json};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum SweepFormat {
    Table,
    Json,
    /// One line per variant and measure (or per run with --runs).
    Csv,
}

#[derive(clap::Args)]
pub struct SweepArgs {
    pub scenario: PathBuf,
    /// Seeds per variant (1 … 1,000,000).
    #[arg(long)]
    pub seeds: u64,
    /// The first seed (default: the scenario's `seed`).
    #[arg(long)]
    pub first_seed: Option<u64>,
    /// A named variant: NAME=PATCH, PATCH a JSON Merge Patch of the scenario as JSON or YAML
    /// text or @FILE (repeatable), e.g. `five={workload: {spec: {failurePolicy: {maxRestarts: 5}}}}`.
    #[arg(long = "variant", value_name = "NAME=PATCH")]
    pub variants: Vec<String>,
    /// A grid axis: PATH=V1,V2,... (dotted path, numbers index arrays; each value JSON, else
    /// a string; or PATH=[JSON array]), e.g. `faults.0.ratePerHour=0.5,1,2` (repeatable).
    #[arg(long = "vary", value_name = "PATH=V1,V2,...")]
    pub vary: Vec<String>,
    /// Worker threads (default: every core).
    #[arg(short, long)]
    pub jobs: Option<usize>,
    #[arg(short, long, value_enum, default_value_t = SweepFormat::Table)]
    pub output: SweepFormat,
    /// Also output one row per run (JSON `rows`; CSV: one line per run).
    #[arg(long)]
    pub runs: bool,
    /// Also write an SVG of the distributions per variant.
    #[arg(long)]
    pub svg: Option<PathBuf>,
}

/// `NAME=PATCH`: PATCH is JSON or YAML text, or `@FILE`.
fn parse_variant(s: &str) -> Result<Variant, String> {
    let (name, patch) = s
        .split_once('=')
        .ok_or_else(|| format!("--variant {s:?}: expected NAME=PATCH (a JSON Merge Patch)"))?;
    let text = match patch.strip_prefix('@') {
        Some(file) => {
            std::fs::read_to_string(file).map_err(|e| format!("--variant {name}: {file}: {e}"))?
        }
        None => patch.to_owned(),
    };
    let doc = restartkit::source::parse_documents(&text)
        .map_err(|d| format!("--variant {name}: {}", d.message))?
        .into_iter()
        .next()
        .ok_or_else(|| format!("--variant {name}: the patch is empty"))?;
    Ok(Variant {
        name: name.to_owned(),
        patch: doc.value,
    })
}

/// `PATH=V1,V2,...` (each value JSON, else a string) or `PATH=[JSON array]`.
fn parse_vary(s: &str) -> Result<GridAxis, String> {
    let (path, values) = s
        .split_once('=')
        .ok_or_else(|| format!("--vary {s:?}: expected PATH=V1,V2,..."))?;
    let values = match serde_json::from_str::<Value>(values) {
        Ok(Value::Array(a)) => a,
        _ => values
            .split(',')
            .map(|v| serde_json::from_str(v.trim()).unwrap_or_else(|_| json!(v.trim())))
            .collect(),
    };
    Ok(GridAxis {
        path: path.to_owned(),
        values,
    })
}

fn cancelled() -> Diagnostic {
    Diagnostic::request(
        "cancelled",
        "",
        "interrupted: the sweep stopped before it finished",
    )
}

/// Runs every (variant, seed) on the pool, stopping at the next run once `stop` is set.
fn run_parallel(
    prepared: &Prepared,
    jobs: Option<usize>,
    stop: &AtomicBool,
    bar: &ProgressBar,
) -> Result<SweepOutput, Diagnostic> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(j) = jobs {
        pool = pool.num_threads(j);
    }
    let pool = pool
        .build()
        .map_err(|e| Diagnostic::request("internal", "", format!("thread pool: {e}")))?;
    // Run i is variant i / seeds, seed offset i % seeds: no list of runs is kept.
    let seeds = prepared.seeds();
    let total = prepared.variant_names().len() as u64 * seeds;
    let merged: SweepPartial = pool.install(|| {
        (0..total)
            .into_par_iter()
            .map(|i| {
                let (v, s) = ((i / seeds) as usize, i % seeds);
                if stop.load(Ordering::Relaxed) {
                    return Err(cancelled());
                }
                let p = prepared.run(v, s, 1)?;
                bar.inc(1);
                Ok(p)
            })
            .try_reduce(
                || prepared.empty(),
                |mut a, b| {
                    a.merge(b)?;
                    Ok(a)
                },
            )
    })?;
    merged.finish()
}

pub fn sweep(args: SweepArgs) -> ExitCode {
    let scenario = match load_scenario(&args.scenario) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let parsed: Result<(Vec<Variant>, Vec<GridAxis>), String> = (|| {
        let v = args
            .variants
            .iter()
            .map(|s| parse_variant(s))
            .collect::<Result<Vec<_>, _>>()?;
        let g = args
            .vary
            .iter()
            .map(|s| parse_vary(s))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((v, g))
    })();
    let (variants, grid) = match parsed {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if args.jobs == Some(0) {
        eprintln!("error: --jobs: at least 1");
        return ExitCode::from(2);
    }
    let input = SweepInput {
        scenario,
        seeds: args.seeds,
        first_seed: args.first_seed,
        variants,
        grid,
        runs: args.runs,
    };
    let prepared = match restartkit::sweep::prepare(&input) {
        Ok(p) => p,
        Err(d) => return crate::report_errors(&[d]),
    };
    let total = prepared.variant_names().len() as u64 * prepared.seeds();
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(total);
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} runs (eta {eta})",
        ) {
            b.set_style(style);
        }
        b
    } else {
        ProgressBar::hidden()
    };
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    // The first Ctrl-C stops the sweep after the runs in flight; a second one exits at once.
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
    let result = run_parallel(&prepared, args.jobs, &stop, &bar);
    bar.finish_and_clear();
    let out = match result {
        Ok(o) => o,
        Err(d) if d.code.as_deref() == Some("cancelled") => {
            eprintln!("error: {}", d.message);
            return ExitCode::from(130);
        }
        Err(d) => return crate::report_errors(&[d]),
    };
    if let Some(path) = &args.svg {
        if let Err(e) = sweep_svg(&out, path) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(2);
        }
        eprintln!("wrote {}", path.display());
    }
    match args.output {
        SweepFormat::Json => print_json(&out),
        SweepFormat::Csv => csv(&out, args.runs),
        SweepFormat::Table => table(&out),
    }
    ExitCode::SUCCESS
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

fn csv(out: &SweepOutput, runs: bool) {
    if runs {
        outln!(
            "variant,seed,phase,timeLostSeconds,containerExits,inPlaceRestarts,podsReplaced,jobFailures,jobsetRestarts,faults,timeToFinishSeconds,endSeconds,allPodsRunningSeconds"
        );
        for v in &out.variants {
            for r in &v.rows {
                outln!(
                    "{},{},{},{},{},{},{},{},{},{},{},{},{}",
                    csv_field(&v.name),
                    r.seed,
                    r.phase,
                    r.time_lost_seconds,
                    r.container_exits,
                    r.in_place_restarts,
                    r.pods_replaced,
                    r.job_failures,
                    r.jobset_restarts,
                    r.faults,
                    r.time_to_finish_seconds
                        .map(|t| t.to_string())
                        .unwrap_or_default(),
                    r.end_seconds,
                    r.all_pods_running_seconds
                );
            }
        }
        return;
    }
    outln!("variant,kind,name,runs,mean,stdDev,min,p25,p50,p75,p90,p99,max,probability,low,high");
    for v in &out.variants {
        let name = csv_field(&v.name);
        for (m, s) in &v.measures {
            outln!(
                "{name},measure,{m},{},{},{},{},{},{},{},{},{},{},,,",
                s.runs,
                s.mean,
                s.std_dev,
                s.min,
                s.p25,
                s.p50,
                s.p75,
                s.p90,
                s.p99,
                s.max
            );
        }
        for (p, s) in &v.phases {
            outln!(
                "{name},phase,{p},{},,,,,,,,,,{},{},{}",
                s.runs,
                s.probability,
                s.low,
                s.high
            );
        }
    }
}

fn short(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    }
}

fn table(out: &SweepOutput) {
    outln!(
        "{} seeds per variant ({} … {})",
        out.seeds,
        out.first_seed,
        out.first_seed + out.seeds - 1
    );
    for v in &out.variants {
        outln!();
        outln!("variant {} ({} runs)", v.name, v.runs);
        let phases: Vec<String> = v
            .phases
            .iter()
            .map(|(p, s)| {
                format!(
                    "{p} {:.1}% [{:.1}%, {:.1}%]",
                    s.probability * 100.0,
                    s.low * 100.0,
                    s.high * 100.0
                )
            })
            .collect();
        outln!("  final phase (95% Wilson): {}", phases.join("  "));
        outln!(
            "  {:<22} {:>6} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10} {:>12}",
            "measure",
            "runs",
            "mean",
            "std dev",
            "min",
            "p50",
            "p90",
            "p99",
            "max"
        );
        for (m, s) in &v.measures {
            outln!(
                "  {:<22} {:>6} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10} {:>12}",
                m,
                s.runs,
                short(s.mean),
                short(s.std_dev),
                short(s.min),
                short(s.p50),
                short(s.p90),
                short(s.p99),
                short(s.max)
            );
        }
    }
}

const BLUE_: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
const RED_: RGBColor = RGBColor(0xd6, 0x27, 0x28);

/// Two panels per variant row: the distribution of time lost (box p25–p75, median, whiskers
/// min–max, ticks at p90 and p99) and the probability that the workload failed with its 95 %
/// Wilson interval.
pub fn sweep_svg(out: &SweepOutput, path: &Path) -> Result<(), String> {
    let n = out.variants.len().max(1);
    let height = (120 + 48 * n) as u32;
    let root = SVGBackend::new(path, (1100, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let root = root
        .titled(
            &format!("restartkit sweep: {} seeds per variant", out.seeds),
            ("sans-serif", 20),
        )
        .map_err(|e| e.to_string())?;
    let (left, right) = root.split_horizontally(700);
    let hours = |v: f64| v / 3600.0;
    let max_lost = out
        .variants
        .iter()
        .filter_map(|v| v.measures.get("timeLostSeconds").map(|s| hours(s.max)))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let label_of = |i: usize| {
        out.variants
            .get(i)
            .map(|v| v.name.clone())
            .unwrap_or_default()
    };
    let mut lost = ChartBuilder::on(&left)
        .caption(
            "time lost (slot-hours): box p25–p75, median, whiskers min–max, ticks p90 and p99",
            ("sans-serif", 13),
        )
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(230)
        .build_cartesian_2d(0f64..max_lost * 1.05, -0.5f64..(n as f64 - 0.5))
        .map_err(|e| e.to_string())?;
    lost.configure_mesh()
        .y_labels(n)
        .y_label_formatter(&|y| {
            let i = y.round();
            if (y - i).abs() < 1e-6 && i >= 0.0 {
                label_of(n - 1 - i as usize)
            } else {
                String::new()
            }
        })
        .x_desc("slot-hours lost per run")
        .disable_y_mesh()
        .draw()
        .map_err(|e| e.to_string())?;
    let mut fail = ChartBuilder::on(&right)
        .caption(
            "P(workload Failed), 95% Wilson interval",
            ("sans-serif", 13),
        )
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(10)
        .build_cartesian_2d(0f64..1f64, -0.5f64..(n as f64 - 0.5))
        .map_err(|e| e.to_string())?;
    fail.configure_mesh()
        .y_labels(0)
        .x_label_formatter(&|x| format!("{:.0}%", x * 100.0))
        .x_desc("probability")
        .disable_y_mesh()
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, v) in out.variants.iter().enumerate() {
        // The first variant at the top.
        let y = (n - 1 - i) as f64;
        if let Some(s) = v.measures.get("timeLostSeconds") {
            let h = 0.3;
            let series: Vec<PathElement<(f64, f64)>> = vec![
                PathElement::new(
                    vec![(hours(s.min), y), (hours(s.p25), y)],
                    BLACK.stroke_width(1),
                ),
                PathElement::new(
                    vec![(hours(s.p75), y), (hours(s.max), y)],
                    BLACK.stroke_width(1),
                ),
                PathElement::new(
                    vec![(hours(s.p50), y - h), (hours(s.p50), y + h)],
                    BLACK.stroke_width(3),
                ),
                PathElement::new(
                    vec![(hours(s.p90), y - h / 2.0), (hours(s.p90), y + h / 2.0)],
                    RED_.stroke_width(2),
                ),
                PathElement::new(
                    vec![(hours(s.p99), y - h / 2.0), (hours(s.p99), y + h / 2.0)],
                    RED_.stroke_width(2),
                ),
            ];
            lost.draw_series(std::iter::once(Rectangle::new(
                [(hours(s.p25), y - h), (hours(s.p75), y + h)],
                BLUE_.mix(0.35).filled(),
            )))
            .map_err(|e| e.to_string())?;
            lost.draw_series(series).map_err(|e| e.to_string())?;
        }
        if let Some(f) = v.phases.get("Failed") {
            fail.draw_series(std::iter::once(Rectangle::new(
                [(0.0, y - 0.25), (f.probability, y + 0.25)],
                RED_.mix(0.5).filled(),
            )))
            .map_err(|e| e.to_string())?;
            fail.draw_series(vec![
                PathElement::new(vec![(f.low, y), (f.high, y)], BLACK.stroke_width(2)),
                PathElement::new(
                    vec![(f.low, y - 0.15), (f.low, y + 0.15)],
                    BLACK.stroke_width(2),
                ),
                PathElement::new(
                    vec![(f.high, y - 0.15), (f.high, y + 0.15)],
                    BLACK.stroke_width(2),
                ),
            ])
            .map_err(|e| e.to_string())?;
        }
    }
    root.present().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn vary_values_are_json_or_strings() {
        let a = parse_vary("workload.spec.failurePolicy.maxRestarts=1,3,5").unwrap();
        assert_eq!(a.values, vec![json!(1), json!(3), json!(5)]);
        let b = parse_vary("kubernetesVersion=\"1.35\",\"1.36\"").unwrap();
        assert_eq!(b.values, vec![json!("1.35"), json!("1.36")]);
        let c = parse_vary("faults.0.exitCodes=[[1],[42]]").unwrap();
        assert_eq!(c.values, vec![json!([1]), json!([42])]);
        assert!(parse_vary("nothing").is_err());
    }

    #[test]
    fn variant_patch_is_yaml_or_json() {
        let v =
            parse_variant("five={workload: {spec: {failurePolicy: {maxRestarts: 5}}}}").unwrap();
        assert_eq!(v.name, "five");
        assert_eq!(
            v.patch["workload"]["spec"]["failurePolicy"]["maxRestarts"],
            json!(5)
        );
        assert!(parse_variant("no-equals-sign").is_err());
    }
}
