//! `esker usage`: token usage by day, week, month, session, model, source or project over the
//! token columns of `events` (`queries/usage_by_key.sql`), within `--since/--until`, with a
//! cost column when a price table is given (`--cost` for the bundled `data/prices.json`,
//! `--prices FILE` for another; nothing is fetched at run time).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use chrono::Utc;
use datafusion::scalar::ScalarValue;
use serde_json::{Map, Value, json};

use crate::cli::style::{self, paint};
use crate::cli::window::Window;
use crate::cli::{CliError, Outcome, Reader, print_json};
use crate::service::catalog::{NamedQuery, text_parameter, timestamp_parameter};
use crate::service::rows::Row;

const USAGE_BY_KEY: NamedQuery = NamedQuery {
    name: "usage_by_key",
    sql: include_str!("../../queries/usage_by_key.sql"),
};

/// The bundled price table (USD per million tokens; its date is in the file and README).
pub const DEFAULT_PRICES: &str = include_str!("../../data/prices.json");

pub const GROUPINGS: [&str; 7] = [
    "day", "week", "month", "session", "model", "source", "project",
];

#[derive(Debug, Clone, Default)]
pub struct UsageOptions {
    pub by: String,
    pub since: Option<String>,
    pub until: Option<String>,
    /// A price table file; `Some("")` means the bundled one.
    pub prices: Option<String>,
    pub json: bool,
}

/// Token sums of one group.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub input_tokens: i64,
    pub cached_input_tokens: i64,
    pub output_tokens: i64,
    pub reasoning_tokens: i64,
    pub total_tokens: i64,
    pub cost_usd: f64,
    pub sessions: BTreeSet<String>,
    pub title: Option<String>,
    /// Models of this group the price table has no price for (their tokens cost nothing).
    pub unpriced_models: BTreeSet<String>,
}

impl Totals {
    fn add(&mut self, other: &Totals) {
        self.input_tokens += other.input_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
        self.output_tokens += other.output_tokens;
        self.reasoning_tokens += other.reasoning_tokens;
        self.total_tokens += other.total_tokens;
        self.cost_usd += other.cost_usd;
        self.sessions.extend(other.sessions.iter().cloned());
        self.unpriced_models
            .extend(other.unpriced_models.iter().cloned());
        if self.title.is_none() {
            self.title.clone_from(&other.title);
        }
    }
}

/// Per-million-token prices of one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub cached_input: f64,
    pub output: f64,
}

/// A price table: model-name prefixes to prices; the longest prefix that ends the name or is
/// followed by `-`, `@` or `:` wins (`gpt-5` prices `gpt-5-2025-08-07`, not `gpt-5.4`).
#[derive(Debug, Clone, Default)]
pub struct Prices {
    by_prefix: Vec<(String, Price)>,
}

impl Prices {
    pub fn parse(text: &str) -> Result<Prices, CliError> {
        let table: Map<String, Value> = serde_json::from_str(text)
            .map_err(|error| CliError::Usage(format!("cannot read the price table: {error}")))?;
        let mut by_prefix: Vec<(String, Price)> = table
            .iter()
            .filter(|(model, _)| !model.starts_with('_'))
            .map(|(model, price)| {
                let rate = |name: &str| price[name].as_f64().unwrap_or(0.0);
                let price = Price {
                    input: rate("input"),
                    cached_input: price["cached_input"].as_f64().unwrap_or(rate("input")),
                    output: rate("output"),
                };
                (model.to_lowercase(), price)
            })
            .collect();
        by_prefix.sort_by_key(|(prefix, _)| std::cmp::Reverse(prefix.len()));
        Ok(Prices { by_prefix })
    }

    pub fn load(file: &str) -> Result<Prices, CliError> {
        if file.is_empty() {
            return Prices::parse(DEFAULT_PRICES);
        }
        let text = std::fs::read_to_string(Path::new(file))
            .map_err(|error| CliError::Usage(format!("cannot read {file}: {error}")))?;
        Prices::parse(&text)
    }

    pub fn for_model(&self, model: &str) -> Option<Price> {
        let model = model.to_lowercase();
        self.by_prefix
            .iter()
            .find(|(prefix, _)| {
                model
                    .strip_prefix(prefix.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '@', ':']))
            })
            .map(|(_, price)| *price)
    }

    /// Cached input at the cached rate, the rest of input at the input rate, output (which
    /// includes reasoning) at the output rate.
    pub fn cost(&self, model: &str, totals: &Totals) -> f64 {
        let Some(price) = self.for_model(model) else {
            return 0.0;
        };
        let cached = totals.cached_input_tokens.max(0) as f64;
        let uncached = (totals.input_tokens - totals.cached_input_tokens).max(0) as f64;
        let output = totals.output_tokens.max(0) as f64;
        (uncached * price.input + cached * price.cached_input + output * price.output) / 1_000_000.0
    }
}

/// Usage grouped as asked, with the sum of every group.
#[derive(Debug, Clone)]
pub struct Report {
    pub by: String,
    pub groups: BTreeMap<String, Totals>,
    pub total: Totals,
    pub with_cost: bool,
}

impl Report {
    /// What `esker usage --json` prints (and `esker ui` charts).
    pub fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .groups
            .iter()
            .map(|(key, totals)| totals_json(Some(key), totals, self.with_cost))
            .collect();
        json!({
            "by": self.by,
            "rows": rows,
            "total": totals_json(None, &self.total, self.with_cost),
        })
    }
}

/// The usage `options` asks for (grouping, window, prices); `options.json` is not read.
pub async fn report(reader: &Reader, options: &UsageOptions) -> Result<Report, CliError> {
    if !GROUPINGS.contains(&options.by.as_str()) {
        return Err(CliError::Usage(format!(
            "--by must be one of {}",
            GROUPINGS.join(", ")
        )));
    }
    let window = Window::parse(
        options.since.as_deref(),
        options.until.as_deref(),
        Utc::now(),
    )?;
    let prices = options.prices.as_deref().map(Prices::load).transpose()?;
    let groups = usage_groups(reader, &options.by, &window, prices.as_ref()).await?;
    let mut total = Totals::default();
    for totals in groups.values() {
        total.add(totals);
    }
    Ok(Report {
        by: options.by.clone(),
        groups,
        total,
        with_cost: prices.is_some(),
    })
}

pub async fn run(reader: &Reader, options: &UsageOptions) -> Result<Outcome, CliError> {
    let report = report(reader, options).await?;
    let outcome = Outcome::of_count(report.groups.len());
    if options.json {
        print_json(&report.to_json())?;
        return Ok(outcome);
    }
    if report.groups.is_empty() {
        eprintln!("no token usage recorded in this window");
        return Ok(outcome);
    }
    print!(
        "{}",
        render_table(
            &options.by,
            &report.groups,
            &report.total,
            report.with_cost,
            style::stdout_colors()
        )
    );
    Ok(outcome)
}

/// The groups in key order, each with its sums (and cost, given prices).
pub async fn usage_groups(
    reader: &Reader,
    by: &str,
    window: &Window,
    prices: Option<&Prices>,
) -> Result<BTreeMap<String, Totals>, CliError> {
    let bound = |time: Option<chrono::DateTime<Utc>>| {
        let nanos = time.and_then(|time| time.timestamp_nanos_opt());
        (
            ScalarValue::Boolean(Some(nanos.is_some())),
            timestamp_parameter(nanos.unwrap_or_default()),
        )
    };
    let (has_since, since) = bound(window.since);
    let (has_until, until) = bound(window.until);
    let snapshot = reader.catalog.snapshot().await?;
    let rows = snapshot
        .run(
            USAGE_BY_KEY,
            vec![text_parameter(by), has_since, since, has_until, until],
        )
        .await?;
    let mut groups: BTreeMap<String, Totals> = BTreeMap::new();
    for row in rows.iter() {
        let (key, model, totals) =
            row_totals(&row).map_err(|error| CliError::Usage(format!("usage_by_key: {error}")))?;
        let mut totals = totals;
        if let Some(prices) = prices {
            totals.cost_usd = prices.cost(&model, &totals);
            if prices.for_model(&model).is_none() {
                totals.unpriced_models.insert(model.clone());
            }
        }
        groups.entry(key).or_default().add(&totals);
    }
    Ok(groups)
}

fn row_totals(row: &Row<'_>) -> Result<(String, String, Totals), crate::service::rows::RowError> {
    let sum = |name: &str| row.opt_i64(name).map(Option::unwrap_or_default);
    let totals = Totals {
        input_tokens: sum("input_tokens")?,
        cached_input_tokens: sum("cached_input_tokens")?,
        output_tokens: sum("output_tokens")?,
        reasoning_tokens: sum("reasoning_tokens")?,
        total_tokens: sum("total_tokens")?,
        cost_usd: 0.0,
        sessions: BTreeSet::from([row.string("session_id")?.to_owned()]),
        title: row.opt_string("title")?.map(str::to_owned),
        unpriced_models: BTreeSet::new(),
    };
    Ok((
        row.string("key")?.to_owned(),
        row.string("model")?.to_owned(),
        totals,
    ))
}

fn totals_json(key: Option<&str>, totals: &Totals, with_cost: bool) -> Value {
    let mut value = json!({
        "sessions": totals.sessions.len(),
        "input_tokens": totals.input_tokens,
        "cached_input_tokens": totals.cached_input_tokens,
        "output_tokens": totals.output_tokens,
        "reasoning_tokens": totals.reasoning_tokens,
        "total_tokens": totals.total_tokens,
    });
    if let Some(key) = key {
        value["key"] = json!(key);
    }
    if with_cost {
        value["cost_usd"] = json!((totals.cost_usd * 10_000.0).round() / 10_000.0);
        value["unpriced_models"] = json!(totals.unpriced_models);
    }
    value
}

fn render_table(
    by: &str,
    groups: &BTreeMap<String, Totals>,
    total: &Totals,
    with_cost: bool,
    colors: bool,
) -> String {
    let mut header = vec![
        by.to_uppercase(),
        "SESSIONS".into(),
        "INPUT".into(),
        "CACHED".into(),
        "OUTPUT".into(),
        "REASONING".into(),
        "TOTAL".into(),
    ];
    if with_cost {
        header.push("COST USD".into());
    }
    let cells = |key: String, totals: &Totals| {
        let mut row = vec![
            key,
            totals.sessions.len().to_string(),
            style::thousands(totals.input_tokens),
            style::thousands(totals.cached_input_tokens),
            style::thousands(totals.output_tokens),
            style::thousands(totals.reasoning_tokens),
            style::thousands(totals.total_tokens),
        ];
        if with_cost {
            row.push(cost_cell(totals));
        }
        row
    };
    let mut rows: Vec<Vec<String>> = groups
        .iter()
        .map(|(key, totals)| {
            let label = match (by, &totals.title) {
                ("session", Some(title)) => format!("{} {key}", style::one_line(title, 40)),
                _ => key.clone(),
            };
            cells(label, totals)
        })
        .collect();
    rows.push(cells("TOTAL".to_owned(), total));
    let mut widths: Vec<usize> = header.iter().map(|cell| style::width(cell)).collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(style::width(cell));
        }
    }
    let mut out = String::new();
    let last_row = rows.len() - 1;

    for (index, row) in std::iter::once(&header).chain(rows.iter()).enumerate() {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(column, cell)| {
                let padding = " ".repeat(widths[column] - style::width(cell));
                if column == 0 {
                    format!("{cell}{padding}")
                } else {
                    format!("{padding}{cell}")
                }
            })
            .collect();
        let line = cells.join("  ");
        let line_style = match index {
            0 => style::DIM,
            _ if index == last_row + 1 => style::TITLE,
            _ => anstyle::Style::new(),
        };
        out.push_str(&paint(line_style, line.trim_end(), colors));
        out.push('\n');
    }
    if with_cost && !total.unpriced_models.is_empty() {
        let models: Vec<&str> = total.unpriced_models.iter().map(String::as_str).collect();
        out.push_str(&paint(
            style::DIM,
            &format!(
                "* no price for {}: their tokens are not in the cost (add them with --prices FILE)\n",
                models.join(", ")
            ),
            colors,
        ));
    }
    out
}

/// `12.34`, `12.34*` when some models of the group have no price, `-` when none has.
fn cost_cell(totals: &Totals) -> String {
    match (totals.unpriced_models.is_empty(), totals.cost_usd > 0.0) {
        (true, _) => format!("{:.2}", totals.cost_usd),
        (false, true) => format!("{:.2}*", totals.cost_usd),
        (false, false) => "-*".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::prelude::SessionContext;

    /// The query with its parameters bound, over small tables with the columns it reads.
    async fn usage_rows(by: &str, since: Option<&str>) -> Vec<(String, String, i64)> {
        let context = SessionContext::new();
        for statement in [
            "CREATE TABLE sessions (session_id VARCHAR, title VARCHAR, project VARCHAR)",
            "INSERT INTO sessions VALUES ('s1', 'one', 'alpha'), ('s2', 'two', NULL)",
            "CREATE TABLE events (session_id VARCHAR, source VARCHAR, model VARCHAR, originating_model VARCHAR, \
             timestamp TIMESTAMP WITH TIME ZONE, input_tokens BIGINT, cached_input_tokens BIGINT, \
             output_tokens BIGINT, reasoning_tokens BIGINT, total_tokens BIGINT)",
            "INSERT INTO events VALUES \
             ('s1', 'codex', 'gpt-5', NULL, TIMESTAMP '2026-03-02T10:00:00Z', 100, 40, 10, 5, 110), \
             ('s1', 'codex', NULL, NULL, TIMESTAMP '2026-03-02T10:01:00Z', NULL, NULL, NULL, NULL, NULL), \
             ('s2', 'claude', 'claude-sonnet-4', NULL, TIMESTAMP '2026-04-10T08:00:00Z', 200, 0, 20, 0, 220)",
        ] {
            context
                .sql(statement)
                .await
                .unwrap()
                .collect()
                .await
                .unwrap();
        }
        let nanos = since.map(|text| {
            style::parse_time(text)
                .unwrap()
                .timestamp_nanos_opt()
                .unwrap()
        });
        let parameters = vec![
            text_parameter(by),
            ScalarValue::Boolean(Some(nanos.is_some())),
            timestamp_parameter(nanos.unwrap_or_default()),
            ScalarValue::Boolean(Some(false)),
            timestamp_parameter(0),
        ];
        let batches = context
            .sql(USAGE_BY_KEY.sql)
            .await
            .unwrap()
            .with_param_values(parameters)
            .unwrap()
            .collect()
            .await
            .unwrap();
        let rows = crate::service::rows::Rows::from_batches(&batches).unwrap();
        rows.iter()
            .map(|row| {
                (
                    row.string("key").unwrap().to_owned(),
                    row.string("model").unwrap().to_owned(),
                    row.opt_i64("total_tokens").unwrap().unwrap_or_default(),
                )
            })
            .collect()
    }

    #[tokio::test]
    async fn every_grouping_sums_the_events_with_usage() {
        let expect = |key: &str, model: &str, total: i64| (key.to_owned(), model.to_owned(), total);
        assert_eq!(
            usage_rows("day", None).await,
            [
                expect("2026-03-02", "gpt-5", 110),
                expect("2026-04-10", "claude-sonnet-4", 220)
            ]
        );
        assert_eq!(usage_rows("week", None).await[0].0, "2026-03-02");
        assert_eq!(usage_rows("month", None).await[1].0, "2026-04");
        assert_eq!(usage_rows("session", None).await[0].0, "s1");
        assert_eq!(usage_rows("model", None).await[0].0, "claude-sonnet-4");
        assert_eq!(usage_rows("source", None).await[0].0, "claude");
        let by_project: Vec<String> = usage_rows("project", None)
            .await
            .into_iter()
            .map(|row| row.0)
            .collect();
        assert_eq!(by_project, ["(none)", "alpha"]);
        assert_eq!(
            usage_rows("day", Some("2026-04-01T00:00:00Z")).await,
            [expect("2026-04-10", "claude-sonnet-4", 220)]
        );
    }

    #[test]
    fn the_bundled_prices_match_by_longest_prefix() {
        let prices = Prices::parse(DEFAULT_PRICES).unwrap();
        let mini = prices.for_model("gpt-5-mini-2025-08-07").unwrap();
        assert_eq!(mini.output, 2.0);
        let sonnet = prices.for_model("claude-sonnet-4-5-20250929").unwrap();
        assert_eq!(sonnet.input, 3.0);
        let opus = prices.for_model("claude-opus-4-5-20251101").unwrap();
        assert_eq!(opus.output, 25.0);
        assert_eq!(prices.for_model("gpt-5-2025-08-07").unwrap().output, 10.0);
        assert!(prices.for_model("gpt-5.4").is_none());
        assert!(prices.for_model("llama-3").is_none());
    }

    #[test]
    fn cost_bills_cached_input_at_its_own_rate() {
        let prices =
            Prices::parse(r#"{"m": {"input": 2.0, "cached_input": 0.5, "output": 8.0}}"#).unwrap();
        let totals = Totals {
            input_tokens: 1_000_000,
            cached_input_tokens: 400_000,
            output_tokens: 100_000,
            ..Totals::default()
        };
        let cost = prices.cost("m-1", &totals);
        assert!((cost - (0.6 * 2.0 + 0.4 * 0.5 + 0.1 * 8.0)).abs() < 1e-9);
    }
}
