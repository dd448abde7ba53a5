//! Per-token limits of `esker serve --http` (issue #54): at most `max_concurrent` requests in
//! flight and `rate_per_second` requests a second (a token bucket holding one second's worth,
//! so a burst of that many passes at once). A request past either is refused with 429 and the
//! seconds to wait.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// `--max-concurrent` when not given.
pub const DEFAULT_MAX_CONCURRENT: u32 = 8;
/// `--rate-limit` when not given.
pub const DEFAULT_RATE_PER_SECOND: u32 = 50;

/// One token's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Requests in flight at once.
    pub max_concurrent: u32,
    /// Requests started per second, on average.
    pub rate_per_second: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_concurrent: DEFAULT_MAX_CONCURRENT,
            rate_per_second: DEFAULT_RATE_PER_SECOND,
        }
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `max_concurrent` requests are in flight.
    Busy,
    /// The rate is spent; a request may start again after this long.
    TooFast(Duration),
}

impl Refusal {
    /// The `Retry-After` value: whole seconds, at least one.
    pub fn retry_after_seconds(self) -> u64 {
        match self {
            Refusal::Busy => 1,
            Refusal::TooFast(wait) => wait.as_secs_f64().ceil().max(1.0) as u64,
        }
    }

    /// Which limit refused it, for the request log.
    pub fn limit(self) -> &'static str {
        match self {
            Refusal::Busy => "max_concurrent",
            Refusal::TooFast(_) => "rate_per_second",
        }
    }
}

/// One token's limiter: shared by all of its requests.
#[derive(Debug)]
pub struct Limiter {
    in_flight: Arc<Semaphore>,
    bucket: Mutex<Bucket>,
}

impl Limiter {
    pub fn new(limits: Limits) -> Limiter {
        Limiter {
            in_flight: Arc::new(Semaphore::new(limits.max_concurrent as usize)),
            bucket: Mutex::new(Bucket::full(limits.rate_per_second, Instant::now())),
        }
    }

    /// Admits a request now, or says why not; the permit is held until its answer is built.
    pub fn admit(&self) -> Result<OwnedSemaphorePermit, Refusal> {
        let permit = Arc::clone(&self.in_flight)
            .try_acquire_owned()
            .map_err(|_| Refusal::Busy)?;
        self.bucket
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(Instant::now())
            .map_err(Refusal::TooFast)?;
        Ok(permit)
    }
}

/// A token bucket: `rate` tokens a second, holding at most `rate`.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    rate: f64,
    tokens: f64,
    refilled_at: Instant,
}

impl Bucket {
    fn full(rate_per_second: u32, now: Instant) -> Bucket {
        let rate = f64::from(rate_per_second.max(1));
        Bucket {
            rate,
            tokens: rate,
            refilled_at: now,
        }
    }

    /// Takes one token at `now`, or returns how long until one is there.
    fn take(&mut self, now: Instant) -> Result<(), Duration> {
        let elapsed = now
            .saturating_duration_since(self.refilled_at)
            .as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.rate).min(self.rate);
        self.refilled_at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return Ok(());
        }
        Err(Duration::from_secs_f64((1.0 - self.tokens) / self.rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_passes_a_seconds_burst_then_refills_at_the_rate() {
        let start = Instant::now();
        let mut bucket = Bucket::full(4, start);
        for _ in 0..4 {
            assert!(bucket.take(start).is_ok());
        }
        let wait = bucket.take(start).unwrap_err();
        assert!(
            (wait.as_secs_f64() - 0.25).abs() < 1e-9,
            "a quarter second per token: {wait:?}"
        );
        assert!(bucket.take(start + Duration::from_millis(250)).is_ok());
        assert!(bucket.take(start + Duration::from_millis(260)).is_err());
        // A long idle time refills to one second's worth, no more.
        let later = start + Duration::from_secs(60);
        for _ in 0..4 {
            assert!(bucket.take(later).is_ok());
        }
        assert!(bucket.take(later).is_err());
    }

    #[test]
    fn concurrency_is_refused_past_the_limit_and_freed_with_the_permit() {
        let limiter = Limiter::new(Limits {
            max_concurrent: 2,
            rate_per_second: 1000,
        });
        let first = limiter.admit().unwrap();
        let _second = limiter.admit().unwrap();
        assert_eq!(limiter.admit().unwrap_err(), Refusal::Busy);
        drop(first);
        assert!(limiter.admit().is_ok());
    }

    #[test]
    fn retry_after_is_whole_seconds_and_at_least_one() {
        assert_eq!(Refusal::Busy.retry_after_seconds(), 1);
        let soon = Refusal::TooFast(Duration::from_millis(20));
        assert_eq!(soon.retry_after_seconds(), 1);
        let later = Refusal::TooFast(Duration::from_millis(2100));
        assert_eq!(later.retry_after_seconds(), 3);
    }
}
