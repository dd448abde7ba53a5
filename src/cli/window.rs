//! `--since` / `--until` as people write them: RFC 3339 (`2026-04-30T09:00:00-04:00`), a
//! date (`2026-04-30`, midnight UTC), `today`, `yesterday`, or an age (`90m`, `12h`, `7d`, `2w`).

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};

use crate::cli::CliError;

/// A half-open time window; either end may be open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window {
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
}

impl Window {
    pub fn parse(
        since: Option<&str>,
        until: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Window, CliError> {
        let window = Window {
            since: since.map(|text| parse_point(text, now)).transpose()?,
            until: until.map(|text| parse_point(text, now)).transpose()?,
        };
        if let (Some(since), Some(until)) = (window.since, window.until)
            && until <= since
        {
            return Err(CliError::Usage(
                "--until must be later than --since".to_owned(),
            ));
        }
        Ok(window)
    }

    /// Whether `time` falls inside; an unknown time only passes an open window.
    pub fn contains(&self, time: Option<DateTime<Utc>>) -> bool {
        match time {
            Some(time) => {
                self.since.is_none_or(|since| time >= since)
                    && self.until.is_none_or(|until| time < until)
            }
            None => self.since.is_none() && self.until.is_none(),
        }
    }

    /// Whether a span `[started, updated]` overlaps the window (list_sessions' rule).
    pub fn overlaps(&self, started: Option<DateTime<Utc>>, updated: Option<DateTime<Utc>>) -> bool {
        let after_since = match (self.since, updated) {
            (Some(since), Some(updated)) => updated >= since,
            (Some(_), None) => false,
            (None, _) => true,
        };
        let before_until = match (self.until, started) {
            (Some(until), Some(started)) => started < until,
            (Some(_), None) => false,
            (None, _) => true,
        };
        after_since && before_until
    }
}

fn parse_point(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, CliError> {
    let text = text.trim();
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Ok(time.with_timezone(&Utc));
    }
    let midnight = |date: NaiveDate| date.and_hms_opt(0, 0, 0).map(|time| time.and_utc());
    let today = now.date_naive();
    let named = match text {
        "today" => midnight(today),
        "yesterday" => today.pred_opt().and_then(midnight),
        _ => None,
    };
    if let Some(time) = named {
        return Ok(time);
    }
    if let Some(time) = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(midnight)
    {
        return Ok(time);
    }
    parse_age(text)
        .map(|age| now - age)
        .ok_or_else(|| {
            CliError::Usage(format!(
                "cannot read the time {text:?}: use 2026-04-30, 2026-04-30T09:00:00Z, today, yesterday or an age like 12h, 7d, 2w"
            ))
        })
}

fn parse_age(text: &str) -> Option<TimeDelta> {
    let unit_at = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(unit_at);
    let count: i64 = number.parse().ok()?;
    match unit {
        "m" | "min" => TimeDelta::try_minutes(count),
        "h" => TimeDelta::try_hours(count),
        "d" => TimeDelta::try_days(count),
        "w" => TimeDelta::try_weeks(count),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-05-10T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn people_write_times_several_ways() {
        let at = |text| parse_point(text, now()).unwrap().to_rfc3339();
        assert_eq!(at("2026-04-30"), "2026-04-30T00:00:00+00:00");
        assert_eq!(at("2026-04-30T09:00:00-04:00"), "2026-04-30T13:00:00+00:00");
        assert_eq!(at("yesterday"), "2026-05-09T00:00:00+00:00");
        assert_eq!(at("7d"), "2026-05-03T12:00:00+00:00");
        assert_eq!(at("12h"), "2026-05-10T00:00:00+00:00");
        assert!(parse_point("last tuesday", now()).is_err());
        assert!(Window::parse(Some("today"), Some("yesterday"), now()).is_err());
    }

    #[test]
    fn windows_hold_and_overlap() {
        let window = Window::parse(Some("2026-05-01"), Some("2026-05-02"), now()).unwrap();
        let time = |text| Some(parse_point(text, now()).unwrap());
        assert!(window.contains(time("2026-05-01T10:00:00Z")));
        assert!(!window.contains(time("2026-05-02T00:00:00Z")));
        assert!(!window.contains(None));
        assert!(Window::default().contains(None));
        assert!(window.overlaps(time("2026-04-20"), time("2026-05-01T01:00:00Z")));
        assert!(!window.overlaps(time("2026-04-20"), time("2026-04-30")));
    }
}
