//! Time management for a network's search: when a move's search ends.
//!
//! A move gets a *soft* and a *hard* deadline. A fixed time per move (`go movetime`, a
//! spec's `ms`) makes them one. A whole-game clock (`go wtime/btime` and increments, the
//! match clock) gives the soft one its share of the clock ([`super::move_budget`]) and lets
//! a search whose best move is unclear there run on up to [`EXTENSION`] times that share,
//! never past a quarter of what is left.
//!
//! Between batches the search asks [`TimePlan::stop`] with the root's children. It ends
//! - at the hard deadline, or when the next batch (timed as long as the last) would
//!   end past it;
//! - at the soft deadline when the most visited move is also the best valued one (among
//!   moves with at least a quarter of its visits), i.e. the choice is clear;
//! - at once with a single legal move;
//! - under a clock, sooner, once the most visited move leads the next by more visits
//!   than the time (and the simulation cap) left could give the next, and the choice is
//!   clear: more search could not change the move played, and the clock keeps the time
//!   saved. A fixed time per move keeps nothing, so its search runs to the deadline: the
//!   tree kept for the next move holds what it found.
//!
//! A search that plans its whole budget (Gumbel's sequential halving) asks for the
//! deadline alone. Without a time limit (`go nodes`, a spec's `sims` alone, `go infinite`)
//! a search spends its budget exactly.

use std::time::{Duration, Instant};

use super::{Limits, move_budget};
use crate::games::Game;

/// How far past its share of the clock an unclear search may run.
pub const EXTENSION: u32 = 3;

/// Time kept back from every move's deadlines for the answer to reach the other side
/// (never more than a twentieth of the move): on a loaded machine the thread that
/// writes it and the one that reads it may each wait for a core.
pub const MOVE_OVERHEAD: Duration = Duration::from_millis(3);

/// Simulations a search runs before its rate is trusted for stopping early.
const MIN_SIMS_FOR_RATE: u32 = 32;

/// A move's deadlines.
#[derive(Debug, Clone, Copy)]
pub struct TimePlan {
    start: Instant,
    soft: Option<Instant>,
    hard: Option<Instant>,
    /// Whether the search may end before its deadline or run past the soft one.
    settle: bool,
    /// Whether time saved is kept for later moves (a clock, not a fixed time per move).
    banked: bool,
    /// When [`TimePlan::stop`] was last asked, and the longest time between two asks.
    last_ask: Instant,
    longest_batch: Duration,
}

impl TimePlan {
    /// The plan for a search starting at `start` in `state` under `limits`; `fallback`
    /// is the agent's own time per move (a spec's `ms`), used when `limits` gives none.
    /// `settle`: the search may stop early or run on as its move settles (see above);
    /// otherwise it ends at the soft deadline.
    pub fn new<G: Game>(
        state: &G,
        limits: &Limits,
        fallback: Option<Duration>,
        start: Instant,
        settle: bool,
    ) -> TimePlan {
        let soft = move_budget(state, limits, fallback);
        let fixed = limits.movetime.or(fallback);
        let hard = match (fixed, limits.time_left) {
            (None, Some(left)) if settle => soft.map(|s| (s * EXTENSION).min(left / 4).max(s)),
            _ => soft,
        };
        // What the move still needs once the search ends: the answer written and read.
        let keep = |d: Duration| d - (d / 20).min(MOVE_OVERHEAD);
        let (soft, hard) = (soft.map(keep), hard.map(keep));
        TimePlan {
            start,
            soft: soft.and_then(|d| start.checked_add(d)),
            hard: hard.and_then(|d| start.checked_add(d)),
            settle,
            banked: fixed.is_none(),
            // Batches are timed from now: time spent before the search (the endgame
            // solver's) is no batch.
            last_ask: Instant::now(),
            longest_batch: Duration::ZERO,
        }
    }

    /// The hard deadline, past which the search must have answered.
    pub fn hard_deadline(&self) -> Option<Instant> {
        self.hard
    }

    /// Whether the search has a deadline at all (else [`TimePlan::stop`] never fires).
    pub fn has_deadline(&self) -> bool {
        self.hard.is_some()
    }

    /// Whether the search should end now. `children`: the root's children as (visits,
    /// value for the mover); `searched`: simulations run in this search; `left`:
    /// simulations left before its cap.
    pub fn stop(&mut self, children: &[(u32, f32)], searched: u32, left: u32) -> bool {
        let now = Instant::now();
        let batch = now.duration_since(self.last_ask);
        (self.last_ask, self.longest_batch) = (now, self.longest_batch.max(batch));
        let Some(hard) = self.hard else {
            return false;
        };
        if now + self.longest_batch >= hard {
            return true;
        }
        if !self.settle {
            return false;
        }
        if children.len() == 1 && searched > 0 {
            return true; // a forced move
        }
        let clear = is_clear(children);
        let soft = self.soft.unwrap_or(hard);
        if now >= soft && clear {
            return true;
        }
        if !self.banked || !clear || searched < MIN_SIMS_FOR_RATE {
            return false;
        }
        let elapsed = now.duration_since(self.start).as_secs_f64().max(1e-6);
        let rate = searched as f64 / elapsed;
        let time_left = soft.saturating_duration_since(now).as_secs_f64();
        let possible = (rate * time_left).min(left as f64);
        let (first, second) = top_two(children);
        (first - second) as f64 > possible
    }
}

/// The visits of the most visited child and of the next.
fn top_two(children: &[(u32, f32)]) -> (u32, u32) {
    let mut top = (0, 0);
    for &(n, _) in children {
        if n > top.0 {
            top = (n, top.0);
        } else if n > top.1 {
            top.1 = n;
        }
    }
    top
}

/// Whether the most visited child is also the best valued among those with at least a
/// quarter of its visits (a search with a single legal move is clear at once).
fn is_clear(children: &[(u32, f32)]) -> bool {
    let Some(&(most, value)) = children.iter().max_by_key(|c| c.0) else {
        return true;
    };
    most > 0
        && children
            .iter()
            .filter(|c| c.0 * 4 >= most)
            .all(|c| c.1 <= value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::ataxx::Ataxx;

    fn plan(limits: &Limits, fallback: Option<u64>, ago_ms: u64) -> TimePlan {
        let start = Instant::now() - Duration::from_millis(ago_ms);
        let fallback = fallback.map(Duration::from_millis);
        let mut p = TimePlan::new(&Ataxx::standard(), limits, fallback, start, true);
        p.last_ask = Instant::now(); // no batch has run yet
        p
    }

    fn movetime(ms: u64) -> Limits {
        Limits {
            movetime: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }

    #[test]
    fn without_a_time_limit_the_budget_is_spent() {
        let mut p = plan(&Limits::default(), None, 10_000);
        assert!(!p.stop(&[(1000, 0.9), (0, -1.0)], 1000, 1));
    }

    #[test]
    fn a_fixed_time_ends_at_its_deadline_clear_or_not() {
        let unclear = [(60, 0.0), (50, 0.5)];
        assert!(plan(&movetime(100), None, 150).stop(&unclear, 110, 1000));
        assert!(plan(&Limits::default(), Some(100), 150).stop(&unclear, 110, 1000));
        assert!(!plan(&movetime(100), None, 0).stop(&unclear, 110, 1000));
        // The answer's overhead is kept back: 100 ms end at 97, 10 ms at 9.5.
        assert!(!plan(&movetime(100), None, 95).stop(&unclear, 110, 1000));
        assert!(plan(&movetime(100), None, 98).stop(&unclear, 110, 1000));
        assert!(!plan(&movetime(10), None, 9).stop(&unclear, 110, 1000));
        assert!(plan(&movetime(10), None, 10).stop(&unclear, 110, 1000));
        // A search that plans its budget ends at the deadline alone.
        let limits = movetime(100);
        let start = Instant::now() - Duration::from_millis(50);
        let mut fixed = TimePlan::new(&Ataxx::standard(), &limits, None, start, false);
        fixed.last_ask = Instant::now();
        assert!(!fixed.stop(&[(1500, 0.5), (100, 0.1)], 1000, 1_000_000));
    }

    #[test]
    fn under_a_clock_a_settled_move_stops_early_an_unsettled_one_does_not() {
        // Ataxx's start splits 9.9 s into 100 ms shares; 1000 simulations in ~50 ms:
        // ~1000 more fit in the 50 ms left.
        let clock = Limits {
            time_left: Some(Duration::from_millis(9_900)),
            ..Limits::default()
        };
        let mut p = plan(&clock, None, 50);
        assert!(p.stop(&[(1500, 0.5), (100, 0.1)], 1000, 1_000_000));
        assert!(!p.stop(&[(900, 0.5), (100, 0.1)], 1000, 1_000_000));
        // The simulation cap counts too, and an unclear lead never stops early.
        assert!(p.stop(&[(300, 0.5), (100, 0.1)], 1000, 50));
        assert!(!p.stop(&[(300, 0.1), (100, 0.5)], 1000, 50));
        // A fixed time per move is spent, settled or not.
        let mut fixed = plan(&movetime(100), None, 50);
        assert!(!fixed.stop(&[(1500, 0.5), (100, 0.1)], 1000, 1_000_000));
    }

    #[test]
    fn a_forced_move_is_played_at_once() {
        assert!(plan(&movetime(10_000), None, 0).stop(&[(1, 0.0)], 1, 1_000_000));
    }

    #[test]
    fn a_clock_lets_an_unclear_search_run_on_to_the_hard_deadline() {
        let clock = Limits {
            time_left: Some(Duration::from_secs(99)),
            ..Limits::default()
        };
        // Ataxx's start splits 99 s into 1 s shares; the hard deadline is 3 s.
        let (clear, unclear) = ([(600, 0.5), (500, 0.4)], [(600, 0.0), (500, 0.5)]);
        assert!(plan(&clock, None, 1_100).stop(&clear, 1100, 1_000_000));
        assert!(!plan(&clock, None, 1_100).stop(&unclear, 1100, 1_000_000));
        assert!(plan(&clock, None, 3_100).stop(&unclear, 1100, 1_000_000));
    }

    #[test]
    fn the_clock_share_never_exceeds_a_quarter_of_what_is_left() {
        let clock = Limits {
            time_left: Some(Duration::from_millis(400)),
            ..Limits::default()
        };
        let p = plan(&clock, None, 0);
        let hard = p.hard.unwrap().duration_since(p.start);
        assert!(hard <= Duration::from_millis(100), "{hard:?}");
    }

    #[test]
    fn time_spent_before_the_search_is_no_batch() {
        // The endgame solver took 60 ms of a 100 ms move: the search has the rest.
        let start = Instant::now() - Duration::from_millis(60);
        let mut p = TimePlan::new(&Ataxx::standard(), &movetime(100), None, start, true);
        assert!(!p.stop(&[(1, 0.0), (0, 0.0)], 1, 1000));
    }

    #[test]
    fn a_batch_that_would_end_past_the_deadline_is_not_started() {
        let mut p = plan(&movetime(100), None, 0);
        let unclear = [(60, 0.0), (50, 0.5)];
        assert!(!p.stop(&unclear, 10, 1000));
        std::thread::sleep(Duration::from_millis(60)); // one slow batch
        assert!(p.stop(&unclear, 20, 1000));
    }
}
