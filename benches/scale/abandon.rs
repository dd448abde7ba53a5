//! Searches nobody waits for (`scale abandon --work DIR`): each search runs on the blocking pool
//! as `WarmSnapshot::search` runs it and is cut after [`CUT`], as a tool call cut at its
//! deadline is; the rows say how long each cut search ran on after its cut, and what CPU the
//! process spent until the pool was idle again, with the request's cancellation and without.
//! First, the same searches uncut through both collectors: what the checks cost.

use std::sync::Arc;
use std::time::{Duration, Instant};

use esker::model::EventType;
use esker::search::cancel::Cancellation;
use esker::search::{SearchIndex, SearchQuery};

use crate::stats::{Report, Samples};
use crate::workloads::Queries;

/// How long a search runs before its caller stops waiting: shorter than any multi-term
/// search at 100k documents and beyond.
const CUT: Duration = Duration::from_millis(1);

/// Both rows over the multi-term queries (the costliest kind) of the store at `root`.
pub async fn abandoned_searches(
    root: &std::path::Path,
    queries: &Queries,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let index = Arc::new(SearchIndex::open_dir(&root.join("tantivy"))?);
    for text in &queries.multi {
        search(&index, text.clone(), None).await?;
    }
    for (label, cancels) in [("plain collector", false), ("cancellable collector", true)] {
        let mut samples = Samples::default();
        for round in 0..rounds {
            let text = queries.multi[round % queries.multi.len()].clone();
            let started = Instant::now();
            search(&index, text, cancels.then(Cancellation::new)).await?;
            samples.record(started.elapsed());
        }
        report.latency(
            format!("uncut multi-term search, {label} (blocking pool)"),
            samples,
            None,
        );
    }
    for (label, cancels) in [("runs to its end", false), ("cancelled", true)] {
        let (after_cut, cpu, idle) = cut_searches(&index, &queries.multi, rounds, cancels).await?;
        report.latency(
            format!("abandoned search ({label}): runs on after its 1 ms cut"),
            after_cut,
            None,
        );
        report.figure(
            &format!("abandoned searches ({label}): CPU until the pool is idle, {rounds} cuts"),
            format!(
                "{:.0} ms CPU in {:.0} ms",
                cpu.as_secs_f64() * 1e3,
                idle.as_secs_f64() * 1e3
            ),
            "",
            None,
        );
    }
    Ok(())
}

/// `rounds` searches, each cut after [`CUT`]: how long each ran on after its cut, and the
/// process CPU and wall time from the first search until the last one ended.
async fn cut_searches(
    index: &Arc<SearchIndex>,
    texts: &[String],
    rounds: usize,
    cancels: bool,
) -> anyhow::Result<(Samples, Duration, Duration)> {
    let cpu_before = process_cpu();
    let started = Instant::now();
    let mut running = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let cancel = Cancellation::new();
        let stop_when_dropped = cancel.cancel_on_drop();
        let text = texts[round % texts.len()].clone();
        let mut task = tokio::spawn(search(index, text, cancels.then_some(cancel)));
        let cut = tokio::time::timeout(CUT, &mut task).await.is_err();
        drop(stop_when_dropped);
        running.push((Instant::now(), cut, task));
    }
    let mut after_cut = Samples::default();
    for (cut_at, cut, task) in running {
        let ended = task.await??;
        if cut {
            after_cut.record(ended.saturating_duration_since(cut_at));
        }
    }
    Ok((after_cut, process_cpu() - cpu_before, started.elapsed()))
}

/// One default-type search on the blocking pool, the way the catalog runs it, ended by
/// `cancel` when given: when it ended (its outcome, a cancelled search being an error, is not
/// read).
fn search(
    index: &Arc<SearchIndex>,
    text: String,
    cancel: Option<Cancellation>,
) -> impl std::future::Future<Output = anyhow::Result<Instant>> + Send + 'static {
    let index = Arc::clone(index);
    async move {
        tokio::task::spawn_blocking(move || {
            let _ = index.search(&SearchQuery {
                text: &text,
                session_id: None,
                turn_id: None,
                event_types: &EventType::SEARCH_DEFAULT,
                source: None,
                sessions: None,
                limit: 10,
                cancel: cancel.as_ref(),
            });
            Instant::now()
        })
        .await
        .map_err(anyhow::Error::from)
    }
}

/// User + system CPU time of this process so far.
fn process_cpu() -> Duration {
    // SAFETY: getrusage writes the struct it is given and reads nothing else.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let time = |value: libc::timeval| {
        Duration::from_secs(value.tv_sec as u64) + Duration::from_micros(value.tv_usec as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}
