//! SVG charts of backoff curves (plotters' SVG backend).

use plotters::prelude::*;
use serde_json::Value;

const COLORS: [RGBColor; 6] = [
    RGBColor(0x44, 0x44, 0x44),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0xff, 0x7f, 0x0e),
];

/// Cumulative restarts over time for each curve of a `backoffCompare` result, one step line per
/// curve with a marker at each restart.
pub fn backoff_svg(result: &Value, horizon: f64, path: &std::path::Path) -> Result<(), String> {
    let curves = result
        .get("curves")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let max_restarts = curves
        .iter()
        .map(|c| {
            c.get("restartTimesSeconds")
                .and_then(Value::as_array)
                .map(Vec::len)
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let root = SVGBackend::new(path, (960, 540)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "CrashLoopBackOff: restarts of a container that crashes at once",
            ("sans-serif", 20),
        )
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..horizon, 0f64..max_restarts * 1.05)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("seconds since the first crash")
        .y_desc("restarts")
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, c) in curves.iter().enumerate() {
        let color = COLORS.get(i % COLORS.len()).copied().unwrap_or(BLACK);
        let times: Vec<f64> = c
            .get("restartTimesSeconds")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_f64)
            .collect();
        let mut steps = Vec::new();
        for (n, t) in times.iter().enumerate() {
            steps.push((*t, n as f64));
            steps.push((*t, n as f64 + 1.0));
        }
        steps.push((horizon, times.len() as f64));
        let label = c
            .get("label")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        chart
            .draw_series(LineSeries::new(steps, color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(
                times
                    .iter()
                    .enumerate()
                    .map(|(n, t)| Circle::new((*t, n as f64 + 1.0), 3, color.filled())),
            )
            .map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}
