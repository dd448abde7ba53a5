//! Latency samples and their nearest-rank percentiles, shared by the bench binaries that
//! print p50/p95/p99 (`benches/scale`, `benches/recall_quality`) through `#[path]`.

use std::time::Duration;

/// Latencies of one workload, in milliseconds.
#[derive(Debug, Default, Clone)]
pub struct Samples {
    millis: Vec<f64>,
}

impl Samples {
    pub fn record(&mut self, elapsed: Duration) {
        self.millis.push(elapsed.as_secs_f64() * 1000.0);
    }

    pub fn len(&self) -> usize {
        self.millis.len()
    }

    /// The `fraction` percentile (nearest rank).
    pub fn percentile(&self, fraction: f64) -> f64 {
        if self.millis.is_empty() {
            return f64::NAN;
        }
        let mut sorted = self.millis.clone();
        sorted.sort_by(f64::total_cmp);
        let rank = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1]
    }

    /// Adds `other`'s samples to these.
    #[allow(dead_code)] // the scale bench merges rows; recall_quality does not
    pub fn extend(&mut self, other: &Samples) {
        self.millis.extend_from_slice(&other.millis);
    }
}
