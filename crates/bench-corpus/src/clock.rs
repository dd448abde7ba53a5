//! The simulated wall clock of a generated session: advances a few seconds per record and
//! renders RFC 3339 timestamps the way the harnesses write them.

use chrono::{DateTime, Utc};

use crate::rng::Rng;

pub struct Clock {
    millis: i64,
}

impl Clock {
    pub fn starting_at(unix_seconds: i64) -> Clock {
        Clock {
            millis: unix_seconds * 1000,
        }
    }

    /// Moves forward between 0.2 and 6 seconds.
    pub fn tick(&mut self, rng: &mut Rng) -> &mut Clock {
        self.millis += rng.between(200, 6_000) as i64;
        self
    }

    /// `2026-03-14T10:00:04.190Z`.
    pub fn iso(&self) -> String {
        DateTime::<Utc>::from_timestamp_millis(self.millis)
            .unwrap_or_default()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    }

    /// Whole seconds since the epoch.
    pub fn unix_seconds(&self) -> i64 {
        self.millis / 1000
    }

    /// A formatted form of the current time (for file names).
    pub fn format(&self, pattern: &str) -> String {
        DateTime::<Utc>::from_timestamp_millis(self.millis)
            .unwrap_or_default()
            .format(pattern)
            .to_string()
    }
}
