//! Drafts for speculative decoding, looked up in the context ("prompt lookup").
//!
//! An agent's answers copy much of what is already in the prompt: code being edited, file
//! names, earlier calls. When the last few tokens occurred before, the tokens that followed
//! them then are a good guess for what follows now. The engine verifies such a draft in one
//! forward pass and keeps the tokens the model itself would have chosen.

/// The shortest suffix of the context an earlier occurrence must share to be drafted from, in
/// tokens (a single repeated token is too weak a hint).
const SHORTEST_MATCH: usize = 2;

/// How long a shared suffix is measured at most, in tokens: beyond this, two occurrences
/// count as equally good (and the latest wins).
const LONGEST_MATCH: usize = 64;

/// How far back a match is searched for, in tokens (the lookup runs once per pass).
const SEARCH_WINDOW: usize = 16_384;

/// Smoothing of the measured pass times (weight of the newest measurement).
const TIME_SMOOTHING: f64 = 0.3;

/// How much of the acceptance counts each verifying pass keeps: recent passes count most.
const ACCEPTANCE_MEMORY: f64 = 0.7;

/// What is assumed before anything is measured: most drafts accepted, each drafted row
/// costing a third of a one-token pass (drafting starts at once, and stops within a few
/// passes when the measurements disagree).
const PRIOR_ACCEPTED: f64 = 4.0;
const PRIOR_REJECTED: f64 = 1.0;
const PRIOR_ROW_COST: f64 = 0.3;

/// The most a single pass can say a drafted row costs, as a fraction of a one-token pass.
/// The kernels never multiply a batch's rows dearer than as many separate passes, so a
/// larger measurement is a pass the scheduler delayed (another process on the cores): it
/// counts as this much, and one such pass cannot stop drafting on its own.
const MAX_ROW_COST: f64 = 1.5;

/// The expected speed-up below which a pass drafts nothing (pass times are noisy).
const MIN_GAIN: f64 = 1.05;

/// Passes with drafts in a row after which one pass goes without, to measure a one-token
/// pass again (the reference every drafted row's cost is measured against).
const REMEASURE_EVERY: usize = 48;

/// Passes without drafts, while drafting does not pay, before trying one drafted token
/// again; doubled after each try that shows it still does not pay, up to the longest.
const FIRST_PROBE: usize = 16;
const LONGEST_PROBE: usize = 512;

/// How many tokens to draft, chosen for the most tokens per second by what was measured:
/// the time of a one-token pass, the extra time of each drafted row in a verifying pass,
/// and how often drafts are accepted. With acceptance rate `p` and a row costing `c` of a
/// one-token pass, a pass drafting `k` tokens yields `(1 − p^(k+1)) / (1 − p)` tokens on
/// average in `1 + c·k` times the time. Drafting stops when no `k` beats one token per
/// pass (kernels that charge a drafted row nearly a whole token, text unlike the context),
/// apart from ever rarer one-token probes, so speculation is never noticeably slower than
/// plain decoding.
#[derive(Debug, Clone)]
pub(crate) struct DraftPlanner {
    most: usize,
    /// Decayed counts of accepted drafted tokens and of rejections (verifying passes whose
    /// draft was rejected before its end).
    accepted: f64,
    rejected: f64,
    /// Smoothed seconds of a one-token pass.
    single: Option<f64>,
    /// Smoothed extra time of a drafted row, as a fraction of a one-token pass.
    row_cost: f64,
    /// Whether `row_cost` is given rather than measured.
    fixed: bool,
    /// Passes with drafts since the last one-token pass.
    drafting_passes: usize,
    /// Passes without drafts left before the next probe, and the next pause's length.
    wait: usize,
    probe_interval: usize,
}

impl DraftPlanner {
    /// Never drafts more than `most` tokens.
    pub(crate) fn new(most: usize) -> Self {
        Self {
            most,
            accepted: PRIOR_ACCEPTED,
            rejected: PRIOR_REJECTED,
            single: None,
            row_cost: PRIOR_ROW_COST,
            fixed: false,
            drafting_passes: 0,
            wait: 0,
            probe_interval: FIRST_PROBE,
        }
    }

    /// Starts a new answer: acceptance starts from the prior again (the text changed); the
    /// measured times are kept (they depend on the machine, not the text). With
    /// `fixed_row_cost`, a drafted row is taken to cost that, and nothing is measured.
    pub(crate) fn begin(&mut self, fixed_row_cost: Option<f64>) {
        if let Some(cost) = fixed_row_cost {
            self.row_cost = cost;
            self.fixed = true;
        } else if self.fixed {
            self.row_cost = PRIOR_ROW_COST;
            self.fixed = false;
        }
        self.accepted = PRIOR_ACCEPTED;
        self.rejected = PRIOR_REJECTED;
        self.wait = 0;
    }

    /// The acceptance rate per drafted token.
    fn acceptance(&self) -> f64 {
        self.accepted / (self.accepted + self.rejected)
    }

    /// Average tokens per unit of one-token-pass time when drafting `k` tokens.
    fn gain(&self, k: usize) -> f64 {
        let p = self.acceptance().min(0.999);
        let tokens = (1.0 - p.powi(k as i32 + 1)) / (1.0 - p);
        tokens / (1.0 + self.row_cost * k as f64)
    }

    /// The draft length with the best expected gain (0 when none beats a plain pass by
    /// [`MIN_GAIN`]).
    fn best(&self) -> usize {
        (1..=self.most)
            .map(|k| (k, self.gain(k)))
            .fold((0, MIN_GAIN), |best, candidate| {
                if candidate.1 > best.1 {
                    candidate
                } else {
                    best
                }
            })
            .0
    }

    /// Tokens to draft in the next pass (0: a plain pass).
    pub(crate) fn next(&mut self) -> usize {
        if !self.fixed && (self.single.is_none() || self.drafting_passes >= REMEASURE_EVERY) {
            return 0;
        }
        let k = self.best();
        if k > 0 {
            return k;
        }
        if self.wait > 0 {
            self.wait -= 1;
            return 0;
        }
        self.wait = self.probe_interval;
        self.probe_interval = (self.probe_interval * 2).min(LONGEST_PROBE);
        1
    }

    /// Learns from a pass that fed `rows` tokens (the last one generated and `rows − 1`
    /// drafted), of which `accepted` drafted ones were kept, in `elapsed` seconds.
    pub(crate) fn record(&mut self, rows: usize, accepted: usize, elapsed: f64) {
        let drafted = rows.saturating_sub(1);
        if drafted == 0 {
            self.drafting_passes = 0;
            self.single = Some(smooth(self.single, elapsed));
            return;
        }
        self.drafting_passes += 1;
        self.accepted = self.accepted * ACCEPTANCE_MEMORY + accepted as f64;
        self.rejected = self.rejected * ACCEPTANCE_MEMORY + f64::from(u8::from(accepted < drafted));
        if let Some(single) = self.single.filter(|single| *single > 0.0 && !self.fixed) {
            let cost = ((elapsed / single - 1.0) / drafted as f64).clamp(0.0, MAX_ROW_COST);
            self.row_cost = smooth(Some(self.row_cost), cost);
        }
        if self.best() > 0 {
            self.probe_interval = FIRST_PROBE;
        }
    }
}

/// `old` moved towards `new` (or `new` when there is nothing yet).
fn smooth(old: Option<f64>, new: f64) -> f64 {
    old.map_or(new, |old| old + TIME_SMOOTHING * (new - old))
}

/// Up to `most` tokens that followed the earlier occurrence of the context's last token that
/// shares the longest suffix with the context (at least [`SHORTEST_MATCH`] tokens, measured
/// up to [`LONGEST_MATCH`]; the latest of equally long ones); empty when there is none.
///
/// The longest shared suffix tells apart the places a short phrase occurs: after an edited
/// line, a model rewriting a function goes on like the function, not like the sentence of the
/// request that quoted the line.
pub(crate) fn lookup(context: &[u32], most: usize) -> &[u32] {
    let window = &context[context.len().saturating_sub(SEARCH_WINDOW)..];
    let Some((&last, before)) = window.split_last() else {
        return &[];
    };
    if most == 0 {
        return &[];
    }
    let mut best: Option<(usize, usize)> = None;
    for at in (0..before.len()).rev() {
        if window[at] != last {
            continue;
        }
        // Tokens shared backwards from `at` and from the end, `last` included.
        let shared = 1 + window[..at]
            .iter()
            .rev()
            .zip(before.iter().rev())
            .take(LONGEST_MATCH - 1)
            .take_while(|(a, b)| a == b)
            .count();
        if shared >= SHORTEST_MATCH && best.is_none_or(|(_, longest)| shared > longest) {
            best = Some((at, shared));
            if shared == LONGEST_MATCH {
                break;
            }
        }
    }
    best.map_or(&[], |(at, _)| {
        let follows = at + 1;
        &window[follows..(follows + most).min(window.len())]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tokens_after_the_latest_earlier_occurrence_are_drafted() {
        // "1 2 3" occurs twice before the end: the later one (followed by 7 8) wins.
        let context = [1, 2, 3, 4, 5, 9, 1, 2, 3, 7, 8, 6, 1, 2, 3];
        assert_eq!(lookup(&context, 2), &[7, 8]);
        assert_eq!(lookup(&context, 10), &[7, 8, 6, 1, 2, 3]);
    }

    #[test]
    fn longer_matches_are_preferred_over_shorter_later_ones() {
        // "5 2 3" is found at the start; "2 3" alone occurs later, followed by 0.
        let context = [5, 2, 3, 4, 2, 3, 0, 5, 2, 3];
        assert_eq!(lookup(&context, 1), &[4]);
    }

    #[test]
    fn the_occurrence_sharing_the_longest_suffix_wins_over_later_ones() {
        // "8 1 2" occurs at the start, followed by 4; "1 2" alone occurs later, followed by
        // 5 and 6: the context ends "8 1 2", so the start is the better guess.
        let context = [8, 1, 2, 4, 9, 1, 2, 5, 6, 8, 1, 2];
        assert_eq!(lookup(&context, 2), &[4, 9]);
        // Equally long shared suffixes: the latest wins.
        let context = [3, 1, 2, 4, 3, 1, 2, 5, 3, 1, 2];
        assert_eq!(lookup(&context, 1), &[5]);
    }

    #[test]
    fn a_long_shared_suffix_is_measured_up_to_the_limit() {
        // Two occurrences of a long run: both share more than the limit, so the later one
        // wins; the draft stops at the end of the context.
        let run: Vec<u32> = (0..LONGEST_MATCH as u32 + 8).collect();
        let mut context = run.clone();
        context.push(1000);
        context.extend(&run);
        context.push(2000);
        context.extend(&run);
        assert_eq!(lookup(&context, 1), &[2000]);
        let tail = [7, 8, 7, 8];
        assert_eq!(lookup(&tail, 10), &[7, 8]);
    }

    #[test]
    fn nothing_is_drafted_without_a_repeated_suffix() {
        assert!(lookup(&[1, 2, 3, 4, 5], 4).is_empty());
        assert!(lookup(&[1], 4).is_empty());
        assert!(lookup(&[], 4).is_empty());
        // A single repeated token is too weak a hint.
        assert!(lookup(&[7, 1, 8, 1], 4).is_empty());
        assert!(lookup(&[1, 2, 1, 2], 0).is_empty());
    }

    /// Runs `passes` passes in which a drafted row costs `row_cost` of a one-token pass
    /// and `accept` says how many of `k` drafted tokens are kept; returns the passes that
    /// drafted.
    fn simulate(
        planner: &mut DraftPlanner,
        passes: usize,
        row_cost: f64,
        accept: impl Fn(usize) -> usize,
    ) -> usize {
        let mut drafting = 0;
        for _ in 0..passes {
            let k = planner.next();
            if k > 0 {
                drafting += 1;
            }
            planner.record(k + 1, accept(k), 0.05 * (1.0 + row_cost * k as f64));
        }
        drafting
    }

    #[test]
    fn drafting_waits_for_a_measured_one_token_pass() {
        let mut planner = DraftPlanner::new(16);
        assert_eq!(planner.next(), 0);
        planner.record(1, 0, 0.05);
        assert!(planner.next() > 0);
    }

    #[test]
    fn cheap_accepted_rows_draft_long() {
        let mut planner = DraftPlanner::new(16);
        planner.record(1, 0, 0.05);
        assert_eq!(simulate(&mut planner, 10, 0.1, |k| k), 10);
        assert!(planner.next() >= 8, "{planner:?}");
    }

    #[test]
    fn rows_dearer_than_tokens_stop_drafting_apart_from_rare_probes() {
        let mut planner = DraftPlanner::new(16);
        planner.record(1, 0, 0.05);
        // Even accepted drafts lose when each row costs more than a token.
        let drafting = simulate(&mut planner, 400, 1.2, |k| k);
        assert!(drafting < 20, "{drafting} passes drafted");
    }

    #[test]
    fn one_delayed_pass_does_not_stop_drafting() {
        // Short drafts are where one measurement weighs most.
        let mut planner = DraftPlanner::new(2);
        planner.record(1, 0, 0.05);
        simulate(&mut planner, 10, 0.1, |k| k);
        assert_eq!(planner.next(), 2);
        // The scheduler held the pass up for ten times its length.
        planner.record(3, 2, 0.5 * (1.0 + 0.1 * 2.0));
        assert_eq!(planner.next(), 2, "{planner:?}");
    }

    #[test]
    fn rejected_drafts_stop_drafting_and_a_new_answer_tries_again() {
        let mut planner = DraftPlanner::new(16);
        planner.record(1, 0, 0.05);
        simulate(&mut planner, 30, 0.2, |_| 0);
        assert_eq!(planner.best(), 0, "{planner:?}");
        planner.begin(None);
        assert!(planner.next() > 0);
    }

    #[test]
    fn a_fixed_row_cost_is_not_measured() {
        let mut planner = DraftPlanner::new(16);
        planner.begin(Some(0.0));
        // No one-token pass measured: drafting starts at once, and dear rows change nothing.
        assert_eq!(simulate(&mut planner, 100, 3.0, |k| k), 100);
        assert_eq!(planner.next(), 16);
        planner.begin(None);
        assert_eq!(planner.next(), 0);
    }

    #[test]
    fn a_one_token_pass_is_remeasured_now_and_then() {
        let mut planner = DraftPlanner::new(8);
        planner.record(1, 0, 0.05);
        let passes = 2 * (REMEASURE_EVERY + 1);
        assert_eq!(simulate(&mut planner, passes, 0.1, |k| k), passes - 2);
    }
}
