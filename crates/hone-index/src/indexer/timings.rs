//! Where the time of one update went: the walk, the workers' reading, parsing and extraction
//! (summed over the workers), and the writer's share (`hone -vv index` logs it).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The phases of one update. Worker phases are summed over all workers (thread time, so on
/// `n` cores up to `n` times the wall clock); the others are wall-clock time of the thread
/// that writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UpdateTimings {
    /// Walking the project (metadata only).
    pub scan: Duration,
    /// Workers reading and hashing files.
    pub read: Duration,
    /// Workers parsing with tree-sitter.
    pub parse: Duration,
    /// Workers extracting outlines from the syntax trees.
    pub extract: Duration,
    /// The writer waiting for the workers' results.
    pub wait: Duration,
    /// The writer writing files, outlines and symbols.
    pub write: Duration,
    /// Loading the project configuration, resolving imports and writing the edges.
    pub resolve: Duration,
    /// Committing the transaction.
    pub commit: Duration,
}

impl std::fmt::Display for UpdateTimings {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |duration: Duration| duration.as_secs_f64() * 1000.0;
        write!(
            formatter,
            "scan {:.0} ms; workers: read {:.0} ms, parse {:.0} ms, extract {:.0} ms; \
             writer: wait {:.0} ms, write {:.0} ms, resolve {:.0} ms, commit {:.0} ms",
            ms(self.scan),
            ms(self.read),
            ms(self.parse),
            ms(self.extract),
            ms(self.wait),
            ms(self.write),
            ms(self.resolve),
            ms(self.commit),
        )
    }
}

/// The workers' phases, added to from every worker.
#[derive(Debug, Default)]
pub(super) struct WorkerTimings {
    read: AtomicU64,
    parse: AtomicU64,
    extract: AtomicU64,
}

/// A worker phase.
#[derive(Debug, Clone, Copy)]
pub(super) enum Phase {
    Read,
    Parse,
    Extract,
}

impl WorkerTimings {
    /// Adds the time since `since` to `phase`; returns now, the start of the next phase.
    pub(super) fn add(&self, phase: Phase, since: Instant) -> Instant {
        let now = Instant::now();
        let nanos = u64::try_from((now - since).as_nanos()).unwrap_or(u64::MAX);
        let counter = match phase {
            Phase::Read => &self.read,
            Phase::Parse => &self.parse,
            Phase::Extract => &self.extract,
        };
        counter.fetch_add(nanos, Ordering::Relaxed);
        now
    }

    /// The totals into `timings`.
    pub(super) fn fill(&self, timings: &mut UpdateTimings) {
        let total = |counter: &AtomicU64| Duration::from_nanos(counter.load(Ordering::Relaxed));
        timings.read = total(&self.read);
        timings.parse = total(&self.parse);
        timings.extract = total(&self.extract);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_phases_add_up() {
        let workers = WorkerTimings::default();
        let start = Instant::now() - Duration::from_millis(5);
        let next = workers.add(Phase::Parse, start);
        workers.add(Phase::Parse, next - Duration::from_millis(3));
        let mut timings = UpdateTimings::default();
        workers.fill(&mut timings);
        assert!(timings.parse >= Duration::from_millis(8), "{timings:?}");
        assert_eq!(timings.read, Duration::ZERO);
        assert_eq!(timings.extract, Duration::ZERO);
    }

    #[test]
    fn timings_show_in_milliseconds() {
        let timings = UpdateTimings {
            parse: Duration::from_micros(1_500_400),
            commit: Duration::from_millis(7),
            ..UpdateTimings::default()
        };
        let shown = timings.to_string();
        assert!(shown.contains("parse 1500 ms"), "{shown}");
        assert!(shown.contains("commit 7 ms"), "{shown}");
        assert!(shown.starts_with("scan 0 ms"), "{shown}");
    }
}
