//! `retention_dry_run`: which entries a retention policy would delete, by reason — older than
//! `max_age_days`, or beyond the newest `max_entries_per_project` of their project. A report
//! only: nothing is deleted or written.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use super::entry::format_time;
use super::search::EntryKey;
use super::{ErrorCode, MemoryError};

/// The rules of one dry run (at least one is set).
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    pub now: DateTime<Utc>,
    pub max_age_days: Option<f64>,
    pub max_entries_per_project: Option<usize>,
}

/// What the input asks, before validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RetentionRequest {
    pub now: Option<String>,
    pub max_age_days: Option<f64>,
    pub max_entries_per_project: Option<i64>,
    pub project: Option<String>,
}

/// Candidates per reason (an entry may have both).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ByReason {
    pub age: usize,
    pub project_count: usize,
}

/// The seed's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RetentionReport {
    pub mode: &'static str,
    pub executed_at: String,
    pub total_candidates: usize,
    pub by_reason: ByReason,
    pub candidate_ids: Vec<String>,
}

impl RetentionRequest {
    /// The validated rules: `INVALID_ARGUMENT` for no rule, a rule ≤ 0 or an unreadable `now`.
    pub fn rules(&self) -> Result<Rules, MemoryError> {
        if self.max_age_days.is_none() && self.max_entries_per_project.is_none() {
            return Err(MemoryError::new(
                ErrorCode::InvalidArgument,
                "at least one retention rule must be set (max_age_days, max_entries_per_project)",
            ));
        }
        if let Some(days) = self.max_age_days
            && !(days > 0.0 && days.is_finite())
        {
            return Err(MemoryError::invalid(
                "max_age_days",
                "max_age_days must be greater than 0",
            ));
        }
        let max_entries_per_project = match self.max_entries_per_project {
            Some(count) if count <= 0 => {
                return Err(MemoryError::invalid(
                    "max_entries_per_project",
                    "max_entries_per_project must be greater than 0",
                ));
            }
            Some(count) => Some(usize::try_from(count).unwrap_or(usize::MAX)),
            None => None,
        };
        let now = match self.now.as_deref().map(str::trim) {
            None | Some("") => Utc::now(),
            Some(text) => parse_now(text).ok_or_else(|| {
                MemoryError::invalid("now", "now must be an ISO 8601 timestamp")
                    .with_detail("now", text)
            })?,
        };
        Ok(Rules {
            now,
            max_age_days: self.max_age_days,
            max_entries_per_project,
        })
    }
}

/// RFC 3339, or a date (midnight UTC).
fn parse_now(text: &str) -> Option<DateTime<Utc>> {
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Some(time.with_timezone(&Utc));
    }
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc())
}

/// The report for `keys` (every entry in scope) under `rules`.
pub fn evaluate(rules: &Rules, keys: &[EntryKey]) -> RetentionReport {
    let mut age = BTreeSet::new();
    if let Some(days) = rules.max_age_days {
        let max_age_micros = (days * 86_400_000_000.0) as i64;
        let cutoff = rules.now.timestamp_micros().saturating_sub(max_age_micros);
        age.extend(
            keys.iter()
                .filter(|key| key.position.created_at_micros < cutoff)
                .map(|key| key.id.clone()),
        );
    }
    let mut project_count = BTreeSet::new();
    if let Some(keep) = rules.max_entries_per_project {
        let mut by_project: BTreeMap<&str, Vec<&EntryKey>> = BTreeMap::new();
        for key in keys {
            by_project.entry(&key.project).or_default().push(key);
        }
        for entries in by_project.values_mut() {
            entries.sort_by_key(|key| std::cmp::Reverse(key.position));
            project_count.extend(entries.iter().skip(keep).map(|key| key.id.clone()));
        }
    }
    let candidate_ids: Vec<String> = age.union(&project_count).cloned().collect();
    RetentionReport {
        mode: "dry-run",
        executed_at: format_time(rules.now),
        total_candidates: candidate_ids.len(),
        by_reason: ByReason {
            age: age.len(),
            project_count: project_count.len(),
        },
        candidate_ids,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::search::Position;

    fn key(id: &str, project: &str, days_ago: i64, now: DateTime<Utc>) -> EntryKey {
        EntryKey {
            id: id.into(),
            project: project.into(),
            position: Position {
                created_at_micros: (now - chrono::Duration::days(days_ago)).timestamp_micros(),
                offset: 0,
            },
        }
    }

    #[test]
    fn candidates_by_age_and_by_project_count() {
        let now = parse_now("2026-05-01T00:00:00Z").unwrap();
        let keys = [
            key("a", "p", 40, now),
            key("b", "p", 20, now),
            key("c", "p", 1, now),
            key("d", "q", 50, now),
        ];
        let rules = Rules {
            now,
            max_age_days: Some(30.0),
            max_entries_per_project: Some(2),
        };
        let report = evaluate(&rules, &keys);
        assert_eq!(report.candidate_ids, ["a", "d"]);
        assert_eq!(
            report.by_reason,
            ByReason {
                age: 2,
                project_count: 1
            }
        );
        assert_eq!(report.total_candidates, 2);
        assert_eq!(report.executed_at, "2026-05-01T00:00:00.000Z");
    }

    #[test]
    fn rules_are_validated() {
        let none = RetentionRequest::default().rules().unwrap_err();
        assert_eq!(none.code, ErrorCode::InvalidArgument);
        let zero = RetentionRequest {
            max_entries_per_project: Some(0),
            ..RetentionRequest::default()
        };
        assert_eq!(
            zero.rules().unwrap_err().details["field"],
            "max_entries_per_project"
        );
        let bad_now = RetentionRequest {
            now: Some("yesterday-ish".into()),
            max_age_days: Some(1.0),
            ..RetentionRequest::default()
        };
        assert_eq!(bad_now.rules().unwrap_err().details["field"], "now");
        let date = RetentionRequest {
            now: Some("2026-01-02".into()),
            max_age_days: Some(1.0),
            ..RetentionRequest::default()
        };
        assert_eq!(
            format_time(date.rules().unwrap().now),
            "2026-01-02T00:00:00.000Z"
        );
    }
}
