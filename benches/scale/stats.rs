//! Latency samples, percentiles and the figures table (measured p50/p95/p99 beside the spec's
//! SLA p50 and the targets), printed as Markdown.

use std::fmt::Write as _;

#[path = "../common/samples.rs"]
mod samples;
pub use samples::Samples;

/// The spec's p50 and the p50/p99 targets for one row, in ms.
#[derive(Debug, Clone, Copy)]
pub struct Targets {
    pub spec_p50: f64,
    pub target_p50: f64,
    pub target_p99: f64,
}

impl Targets {
    pub const fn new(spec_p50: f64, target_p50: f64, target_p99: f64) -> Targets {
        Targets {
            spec_p50,
            target_p50,
            target_p99,
        }
    }
}

/// One line of the figures table.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    pub samples: Samples,
    pub targets: Option<Targets>,
}

/// A free-form figure (ingest, sizes, RSS) with an optional target.
#[derive(Debug, Clone)]
pub struct Figure {
    pub name: String,
    pub value: String,
    pub target: String,
    pub verdict: String,
}

#[derive(Debug, Default)]
pub struct Report {
    pub rows: Vec<Row>,
    pub figures: Vec<Figure>,
}

impl Report {
    pub fn latency(&mut self, name: impl Into<String>, samples: Samples, targets: Option<Targets>) {
        let row = Row {
            name: name.into(),
            samples,
            targets,
        };
        eprintln!("{}", latency_line(&row));
        self.rows.push(row);
    }

    pub fn figure(&mut self, name: &str, value: String, target: &str, met: Option<bool>) {
        let verdict = match met {
            Some(true) => "met",
            Some(false) => "MISSED",
            None => "",
        };
        eprintln!("{name}: {value} (target {target}) {verdict}");
        self.figures.push(Figure {
            name: name.to_owned(),
            value,
            target: target.to_owned(),
            verdict: verdict.to_owned(),
        });
    }

    /// The whole report as Markdown tables.
    pub fn markdown(&self) -> String {
        let mut text = String::new();
        text.push_str("| request | n | p50 ms | p95 ms | p99 ms | spec p50 | target p50 / p99 | spec ÷ p50 | verdict |\n");
        text.push_str("|---|---|---|---|---|---|---|---|---|\n");
        for row in &self.rows {
            let _ = writeln!(text, "{}", latency_line(row));
        }
        text.push_str("\n| figure | value | target | verdict |\n|---|---|---|---|\n");
        for figure in &self.figures {
            let _ = writeln!(
                text,
                "| {} | {} | {} | {} |",
                figure.name, figure.value, figure.target, figure.verdict
            );
        }
        text
    }
}

fn latency_line(row: &Row) -> String {
    let [p50, p95, p99] = [0.50, 0.95, 0.99].map(|fraction| row.samples.percentile(fraction));
    let (spec, target, ratio, verdict) = match row.targets {
        Some(targets) => {
            let met = p50 <= targets.target_p50 && p99 <= targets.target_p99;
            (
                format!("{:.0}", targets.spec_p50),
                format!("≤ {:.0} / ≤ {:.0}", targets.target_p50, targets.target_p99),
                format!("{:.0}×", targets.spec_p50 / p50.max(0.001)),
                if met { "met" } else { "MISSED" },
            )
        }
        None => ("".into(), "".into(), "".into(), ""),
    };
    format!(
        "| {} | {} | {p50:.2} | {p95:.2} | {p99:.2} | {spec} | {target} | {ratio} | {verdict} |",
        row.name,
        row.samples.len()
    )
}
