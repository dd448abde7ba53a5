//! `get_ingest_status` and the `data.coverage` object of retrieval answers (Moraine's
//! additions to spec 000): the store's health, historical coverage, freshness and readiness,
//! derived from what the indexer reports ([`IngestMonitor`]) or, when another process
//! indexes, from the writer lock. Counts and times only: no paths, hosts or error text.
//!
//! `data` holds exactly Moraine's keys (its smoke test compares the key sets of `data` and of
//! each object in it, issue #48); esker's own indexer facts ([`Observation::indexer_json`]) go
//! in the result's `_meta` under [`INDEXER_META_KEY`], where MCP lets a server put what the
//! tool's contract does not name, and in the text summary.

use std::time::Duration;

use rmcp::model::MetaObject;
use serde_json::{Value, json};

use crate::indexer::status::{IngestSnapshot, PassRecord, Watching, unix_now_ms, writer_lock_held};
use crate::service::catalog::Catalog;
use crate::service::envelope::{SlaTarget, ToolError, ToolName, ToolReply, ToolSuccess};
use crate::service::handler::ToolHandler;
use crate::service::validate::Arguments;

const SLA: SlaTarget = SlaTarget::ms(100);
const DEADLINE: Duration = Duration::from_secs(2);
/// A watched store whose last pass ended longer ago than this is stale.
const STALE_AFTER_MS: i64 = 5 * 60 * 1000;

pub const COVERAGE_PARTIAL_WARNING: &str =
    "coverage_partial: historical ingestion is incomplete; retrieval results may be incomplete.";
/// The `_meta` key of `get_ingest_status`'s result holding esker's indexer facts.
pub const INDEXER_META_KEY: &str = "esker/indexer";

pub const COVERAGE_UNKNOWN_WARNING: &str =
    "coverage_unknown: ingestion coverage is unavailable; retrieval results may be incomplete.";

/// A three-state condition, as Moraine reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    True,
    False,
    Unknown,
}

impl State {
    fn as_str(self) -> &'static str {
        match self {
            State::True => "true",
            State::False => "false",
            State::Unknown => "unknown",
        }
    }
}

/// One condition: its state and a stable reason code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Condition {
    pub state: State,
    pub reason: &'static str,
}

const fn condition(state: State, reason: &'static str) -> Condition {
    Condition { state, reason }
}

/// Everything `get_ingest_status` and `coverage` are derived from, read at one moment.
#[derive(Debug, Clone)]
pub struct Observation {
    pub observed_at_unix_ms: i64,
    pub ingest: IngestSnapshot,
    /// Whether any process holds the writer lock (`None`: the platform does not tell).
    pub writer_active: Option<bool>,
    /// Whether the store has a committed generation to answer from.
    pub store_ready: bool,
}

impl Observation {
    pub fn of(catalog: &Catalog) -> Observation {
        let ingest = catalog.ingest_monitor().snapshot();
        let writer_active = if ingest.in_process {
            Some(ingest.current.is_some())
        } else {
            writer_lock_held(&catalog.store().lock_path())
        };
        Observation {
            observed_at_unix_ms: unix_now_ms(),
            ingest,
            writer_active,
            store_ready: catalog.store().current().is_ok(),
        }
    }

    pub fn health(&self) -> Condition {
        let ingest = &self.ingest;
        if !ingest.in_process {
            return condition(State::Unknown, "indexer_external");
        }
        if ingest.indexer_stopped {
            return condition(State::False, "indexer_stopped");
        }
        match ingest.last_pass() {
            Some(pass) if !pass.succeeded => condition(State::False, "last_pass_failed"),
            _ => condition(State::True, "indexer_running"),
        }
    }

    pub fn coverage(&self) -> Condition {
        let ingest = &self.ingest;
        if !self.store_ready {
            return condition(State::Unknown, "no_committed_generation");
        }
        if ingest.in_process {
            if !ingest.first_pass_finished {
                return if ingest.waiting_for_writer_lock {
                    condition(State::False, "waiting_for_writer_lock")
                } else {
                    condition(State::False, "initial_pass_running")
                };
            }
            if ingest.files_failed() > 0 {
                return condition(State::False, "files_failed");
            }
            return condition(State::True, "initial_pass_complete");
        }
        match self.writer_active {
            Some(true) => condition(State::False, "writer_active"),
            Some(false) => condition(State::True, "store_committed"),
            None => condition(State::Unknown, "writer_state_unavailable"),
        }
    }

    pub fn freshness(&self) -> Condition {
        let ingest = &self.ingest;
        if !ingest.in_process {
            return condition(State::Unknown, "indexer_external");
        }
        if ingest.watching == Watching::Off {
            return condition(State::Unknown, "not_watching");
        }
        match ingest.last_pass() {
            None => condition(State::Unknown, "no_pass_finished"),
            Some(pass) if self.observed_at_unix_ms - pass.finished_unix_ms > STALE_AFTER_MS => {
                condition(State::False, "last_pass_stale")
            }
            Some(_) => condition(State::True, "watching"),
        }
    }

    pub fn readiness(&self) -> Condition {
        if self.store_ready {
            condition(State::True, "store_ready")
        } else {
            condition(State::False, "no_committed_generation")
        }
    }

    /// `data.coverage` of a retrieval answer.
    pub fn coverage_json(&self) -> Value {
        let coverage = self.coverage();
        json!({
            "state": match coverage.state {
                State::True => "complete",
                State::False => "partial",
                State::Unknown => "unknown",
            },
            "reason": coverage.reason,
            "observed_at_unix_ms": self.observed_at_unix_ms,
        })
    }

    /// The warning a retrieval answer carries when coverage is not complete.
    pub fn coverage_warning(&self) -> Option<&'static str> {
        match self.coverage().state {
            State::True => None,
            State::False => Some(COVERAGE_PARTIAL_WARNING),
            State::Unknown => Some(COVERAGE_UNKNOWN_WARNING),
        }
    }

    /// The `data` of `get_ingest_status`, in Moraine's shape.
    pub fn status_json(&self) -> Value {
        let observed = self.observed_at_unix_ms;
        let conditions: Vec<Value> = [
            ("health", self.health()),
            ("coverage", self.coverage()),
            ("freshness", self.freshness()),
            ("readiness", self.readiness()),
        ]
        .into_iter()
        .map(|(kind, condition)| {
            json!({
                "condition_type": kind,
                "state": condition.state.as_str(),
                "reason": condition.reason,
                "observed_at_unix_ms": observed,
            })
        })
        .collect();
        json!({
            "observed_at_unix_ms": observed,
            "current": self.current_json(),
            "conditions": conditions,
            "alerts": self.alerts_json(),
            "rate": self.rate_json(),
            "eta": self.eta_json(),
            "history": self.ingest.history.iter().map(history_point).collect::<Vec<_>>(),
        })
    }

    fn current_json(&self) -> Value {
        let ingest = &self.ingest;
        if !ingest.in_process {
            return Value::Null;
        }
        let progress = ingest.current.map(|pass| {
            json!({
                "discovery_complete": true,
                "queue_capacity": 0,
                "sink_pending_rows": 0,
                "sink_pending_bytes": 0,
                "sink_retrying": false,
                "oldest_pending_unix_ms": pass.started_unix_ms,
                "last_durable_progress_unix_ms": ingest.last_commit_unix_ms.unwrap_or(0),
                "files_total": pass.files_total,
                "files_completed": pass.files_completed,
                "bytes_total": pass.bytes_total,
                "bytes_completed": pass.bytes_completed,
            })
        });
        let files_watched = ingest.last_pass().map_or(0, |pass| pass.files_seen);
        json!({
            "heartbeat_observed_at_unix_ms": self.observed_at_unix_ms,
            "queue_depth": ingest.current.map_or(0, |pass| pass.files_total - pass.files_completed),
            "files_active": u32::from(ingest.current.is_some()),
            "files_watched": files_watched,
            "progress": progress,
        })
    }

    fn alerts_json(&self) -> Vec<Value> {
        let mut alerts = Vec::new();
        if self.ingest.files_failed() > 0 {
            alerts.push(json!({"code": "coverage_degraded", "observed_at_unix_ms": self.observed_at_unix_ms}));
        }
        if self.ingest.waiting_for_writer_lock {
            alerts.push(
                json!({"code": "sink_retrying", "observed_at_unix_ms": self.observed_at_unix_ms}),
            );
        }
        alerts
    }

    /// Bytes per second of the last pass that read something.
    fn rate(&self) -> Option<(f64, u64)> {
        let pass = self
            .ingest
            .history
            .iter()
            .rev()
            .find(|pass| pass.succeeded && pass.bytes_read > 0 && pass.duration_ms > 0)?;
        let seconds = pass.duration_ms as f64 / 1000.0;
        Some((pass.bytes_read as f64 / seconds, seconds.ceil() as u64))
    }

    fn rate_json(&self) -> Value {
        self.rate().map_or(Value::Null, |(bytes_per_second, sample_seconds)| {
            json!({"bytes_per_second": bytes_per_second, "sample_seconds": sample_seconds})
        })
    }

    /// Time left in the running pass at the last pass's rate, with a conservative band.
    fn eta_json(&self) -> Value {
        let (Some(pass), Some((bytes_per_second, _))) = (self.ingest.current, self.rate()) else {
            return Value::Null;
        };
        let remaining = pass.bytes_total.saturating_sub(pass.bytes_completed) as f64;
        let seconds = remaining / bytes_per_second.max(1.0);
        json!({
            "scope": "current_pass",
            "low_seconds": (seconds * 0.8).floor() as u64,
            "high_seconds": (seconds * 2.0).ceil() as u64,
        })
    }

    /// esker's own counts, outside Moraine's shape: how the store is kept fresh and what the
    /// last pass did (`_meta["esker/indexer"]` of `get_ingest_status`).
    pub fn indexer_json(&self) -> Value {
        let ingest = &self.ingest;
        json!({
            "mode": if ingest.in_process { "in_process" } else { "external" },
            "watching": ingest.watching.as_str(),
            "pass_running": ingest.current.is_some() || (!ingest.in_process && self.writer_active == Some(true)),
            "passes": ingest.history.len(),
            "last_commit_unix_ms": ingest.last_commit_unix_ms,
            "last_pass": ingest.last_pass().map(pass_json),
        })
    }
}

fn pass_json(pass: &PassRecord) -> Value {
    json!({
        "finished_at_unix_ms": pass.finished_unix_ms,
        "duration_ms": pass.duration_ms,
        "succeeded": pass.succeeded,
        "files_seen": pass.files_seen,
        "files_ingested": pass.files_ingested,
        "files_unchanged": pass.files_unchanged,
        "files_held_back": pass.files_held_back,
        "files_failed": pass.files_failed,
        "bytes_read": pass.bytes_read,
        "new_events": pass.new_events,
    })
}

fn history_point(pass: &PassRecord) -> Value {
    json!({
        "ts_unix_ms": pass.finished_unix_ms,
        "queue_depth": 0,
        "files_active": 0,
        "queue_capacity": 0,
        "sink_pending_rows": 0,
        "sink_retrying": false,
        "discovery_complete": true,
        "files_total": pass.files_seen,
        "files_completed": pass.files_seen,
        "bytes_total": pass.bytes_total,
        "bytes_completed": pass.bytes_total,
    })
}

/// Adds `data.coverage` (and its warning) to a successful retrieval answer.
pub fn annotate_coverage(reply: &mut ToolReply, observation: &Observation) {
    if reply.is_error {
        return;
    }
    if let Some(data) = reply
        .envelope
        .get_mut("data")
        .and_then(Value::as_object_mut)
    {
        data.insert("coverage".to_string(), observation.coverage_json());
    }
    if let Some(warning) = observation.coverage_warning() {
        if let Some(warnings) = reply
            .envelope
            .get_mut("warnings")
            .and_then(Value::as_array_mut)
        {
            warnings.push(Value::String(warning.to_string()));
        }
        reply.text = format!("{}\nWarning: {warning}", reply.text);
    }
}

/// `get_ingest_status {}`.
pub struct GetIngestStatus;

impl ToolHandler for GetIngestStatus {
    type Request = ();

    const NAME: ToolName = ToolName::GetIngestStatus;

    fn parse(arguments: &Arguments) -> Result<(), ToolError> {
        match arguments.keys().next() {
            None => Ok(()),
            Some(field) => Err(ToolError::invalid_request(
                field,
                "get_ingest_status expects an empty JSON object",
            )),
        }
    }

    fn rejected_sla(_arguments: &Arguments) -> SlaTarget {
        SLA
    }

    /// Moraine rejects arguments "without reflection": its smoke test wants `request: {}` and
    /// no argument value anywhere in the answer.
    fn rejected_request(_arguments: &Arguments) -> Value {
        json!({})
    }

    fn canonical(_request: &()) -> Value {
        json!({})
    }

    fn sla(_request: &()) -> SlaTarget {
        SLA
    }

    fn deadline(_request: &()) -> Duration {
        DEADLINE
    }

    async fn execute(catalog: &Catalog, _request: &()) -> Result<ToolSuccess, ToolError> {
        let observation = Observation::of(catalog);
        let text = status_text(&observation);
        Ok(ToolSuccess::new(observation.status_json(), text))
    }
}

fn status_text(observation: &Observation) -> String {
    let parts: Vec<String> = [
        ("health", observation.health()),
        ("coverage", observation.coverage()),
        ("freshness", observation.freshness()),
        ("readiness", observation.readiness()),
    ]
    .into_iter()
    .map(|(name, condition)| {
        let state = match condition.state {
            State::True => "ok",
            State::False => "degraded",
            State::Unknown => "unknown",
        };
        format!("{name}={state} ({})", condition.reason)
    })
    .collect();
    let mut text = format!("Ingestion {}.", parts.join("; "));
    if let Some(pass) = observation.ingest.current {
        text.push_str(&format!(
            "\nCurrent pass: {}/{} files, {}/{} bytes.",
            pass.files_completed, pass.files_total, pass.bytes_completed, pass.bytes_total
        ));
    }
    text.push('\n');
    text.push_str(&indexer_text(&observation.ingest));
    text
}

/// esker's indexer facts in a sentence (the same as `_meta["esker/indexer"]`).
fn indexer_text(ingest: &IngestSnapshot) -> String {
    if !ingest.in_process {
        return "Indexer: another process (esker index) keeps this store.".to_owned();
    }
    let mut text = format!(
        "Indexer: in this process, watching {}, {} passes.",
        ingest.watching.as_str(),
        ingest.history.len()
    );
    if let Some(pass) = ingest.last_pass() {
        text.push_str(&format!(
            " Last pass {}: {} files seen, {} ingested, {} failed, {} bytes read, {} new events in {} ms.",
            if pass.succeeded { "succeeded" } else { "failed" },
            pass.files_seen,
            pass.files_ingested,
            pass.files_failed,
            pass.bytes_read,
            pass.new_events,
            pass.duration_ms
        ));
    }
    text
}

/// The `_meta` of a `get_ingest_status` result: esker's indexer facts, which Moraine's `data`
/// has no place for ([`INDEXER_META_KEY`]).
pub fn indexer_meta(catalog: &Catalog) -> MetaObject {
    let mut meta = MetaObject::new();
    meta.insert(
        INDEXER_META_KEY.to_owned(),
        Observation::of(catalog).indexer_json(),
    );
    meta
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexer::run::IndexSummary;
    use crate::indexer::status::IngestMonitor;

    fn observe(monitor: &IngestMonitor, store_ready: bool) -> Observation {
        let ingest = monitor.snapshot();
        Observation {
            observed_at_unix_ms: unix_now_ms(),
            writer_active: Some(ingest.current.is_some()),
            ingest,
            store_ready,
        }
    }

    #[test]
    fn coverage_is_partial_until_the_first_pass_ends_and_again_when_files_fail() {
        let monitor = IngestMonitor::in_process();
        monitor.pass_started(2, 10);
        let running = observe(&monitor, true);
        assert_eq!(running.coverage().reason, "initial_pass_running");
        assert_eq!(running.coverage_warning(), Some(COVERAGE_PARTIAL_WARNING));
        assert_eq!(running.coverage_json()["state"], "partial");
        monitor.pass_finished(&IndexSummary::default());
        let done = observe(&monitor, true);
        assert_eq!(done.coverage().state, State::True);
        assert_eq!(done.coverage_warning(), None);
        monitor.pass_started(1, 1);
        monitor.pass_finished(&IndexSummary {
            files_failed: 1,
            ..IndexSummary::default()
        });
        let failed = observe(&monitor, true);
        assert_eq!(failed.coverage().reason, "files_failed");
        assert_eq!(
            failed.status_json()["alerts"][0]["code"],
            "coverage_degraded"
        );
    }

    #[test]
    fn an_empty_store_has_unknown_coverage_and_is_not_ready() {
        let observation = observe(&IngestMonitor::external(), false);
        assert_eq!(observation.coverage().state, State::Unknown);
        assert_eq!(observation.readiness().state, State::False);
        assert_eq!(
            observation.coverage_warning(),
            Some(COVERAGE_UNKNOWN_WARNING)
        );
    }

    #[test]
    fn status_never_names_forbidden_keys() {
        const FORBIDDEN: [&str; 6] = [
            "host",
            "source_path",
            "credentials",
            "last_error",
            "sources",
            "heartbeat",
        ];
        let monitor = IngestMonitor::in_process();
        monitor.pass_started(3, 30);
        monitor.file_done(10);
        let status = observe(&monitor, true).status_json();
        let mut keys = Vec::new();
        collect_keys(&status, &mut keys);
        for key in keys {
            assert!(!FORBIDDEN.contains(&key.as_str()), "forbidden key {key}");
        }
        assert_eq!(status["current"]["progress"]["files_completed"], 1);
        assert_eq!(status["conditions"].as_array().unwrap().len(), 4);
    }

    fn key_set(value: &Value) -> Vec<&str> {
        let mut keys: Vec<&str> = value
            .as_object()
            .unwrap_or_else(|| panic!("not an object: {value}"))
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        keys
    }

    fn sorted(mut keys: Vec<&str>) -> Vec<&str> {
        keys.sort_unstable();
        keys
    }

    /// Moraine's smoke test (`scripts/ci/mcp_smoke.py`) compares these key sets exactly: one
    /// more key (esker's `indexer`, issue #48) fails it. Every optional object is present here:
    /// a pass in progress after one that read bytes and failed a file.
    #[test]
    fn status_data_holds_exactly_moraines_keys_at_every_level() {
        let monitor = IngestMonitor::in_process();
        monitor.pass_started(2, 4_096);
        monitor.file_done(4_096);
        monitor.pass_finished(&IndexSummary {
            files_seen: 2,
            files_failed: 1,
            bytes_read: 4_096,
            elapsed: Duration::from_millis(1_500),
            ..IndexSummary::default()
        });
        monitor.pass_started(3, 9_000);
        monitor.file_done(1_000);
        let status = observe(&monitor, true).status_json();
        assert_eq!(
            key_set(&status),
            sorted(vec![
                "observed_at_unix_ms",
                "current",
                "conditions",
                "alerts",
                "rate",
                "eta",
                "history",
            ])
        );
        for condition in status["conditions"].as_array().unwrap() {
            assert_eq!(
                key_set(condition),
                sorted(vec![
                    "condition_type",
                    "state",
                    "reason",
                    "observed_at_unix_ms"
                ])
            );
        }
        let alerts = status["alerts"].as_array().unwrap();
        assert!(!alerts.is_empty());
        for alert in alerts {
            assert_eq!(key_set(alert), sorted(vec!["code", "observed_at_unix_ms"]));
        }
        assert_eq!(
            key_set(&status["rate"]),
            sorted(vec!["bytes_per_second", "sample_seconds"])
        );
        assert_eq!(
            key_set(&status["eta"]),
            sorted(vec!["scope", "low_seconds", "high_seconds"])
        );
        let history = status["history"].as_array().unwrap();
        assert_eq!(history.len(), 1);
        assert_eq!(
            key_set(&history[0]),
            sorted(vec![
                "ts_unix_ms",
                "queue_depth",
                "files_active",
                "queue_capacity",
                "sink_pending_rows",
                "sink_retrying",
                "discovery_complete",
                "files_total",
                "files_completed",
                "bytes_total",
                "bytes_completed",
            ])
        );
        assert_eq!(
            key_set(&status["current"]),
            sorted(vec![
                "heartbeat_observed_at_unix_ms",
                "queue_depth",
                "files_active",
                "files_watched",
                "progress",
            ])
        );
        assert_eq!(
            key_set(&status["current"]["progress"]),
            sorted(vec![
                "discovery_complete",
                "queue_capacity",
                "sink_pending_rows",
                "sink_pending_bytes",
                "sink_retrying",
                "oldest_pending_unix_ms",
                "last_durable_progress_unix_ms",
                "files_total",
                "files_completed",
                "bytes_total",
                "bytes_completed",
            ])
        );
        let indexer = observe(&monitor, true).indexer_json();
        assert_eq!(indexer["last_pass"]["files_failed"], 1);
        assert_eq!(indexer["pass_running"], true);
    }

    fn collect_keys(value: &Value, keys: &mut Vec<String>) {
        match value {
            Value::Object(fields) => {
                for (key, value) in fields {
                    keys.push(key.clone());
                    collect_keys(value, keys);
                }
            }
            Value::Array(items) => items.iter().for_each(|item| collect_keys(item, keys)),
            _ => {}
        }
    }
}
