//! Principal variation search over a learned evaluation: the fast evaluator's player.
//!
//! Negamax alpha-beta with iterative deepening, a null window on every move but the
//! first (re-searched on a fail-high), aspiration windows around the last iteration's
//! score, a transposition table of a size in MiB ([`Table`]), and moves ordered by the
//! table's move, then the killer moves of the ply, then what the move gains by the
//! game's own score ([`Searchable::rank`]: Ataxx's pieces taken), then the history of
//! cut-offs. Near the leaves and off the principal variation, a position whose own value
//! beats beta by a margin a ply ends its node (reverse futility pruning) and the latest
//! moves are not searched (late-move pruning); late moves elsewhere can be searched a
//! ply or two shallower first, and at full depth only where they beat the best so far
//! (late-move reductions); a position the table knows nothing of is searched shallower
//! (internal iterative reductions); a position good enough after passing can end its
//! node (null-move pruning); and below the root, the moves the game calls quiet
//! ([`Searchable::quiet`]) are skipped once a node's first moves are searched (quiet-move
//! pruning). At the leaves, a quiescence search plays on with the moves the game calls
//! tactical ([`Searchable::tactical_gains`]: Infexion's captures) for a few plies, each
//! position standing on its own value where that is better. Far from the leaves, in
//! games of two, the table's move is searched a ply deeper where every other move,
//! searched half as deep, stays below its score by a margin (singular extensions), the
//! node ends where one of them reaches that bound and beta (multi-cut), and the table's
//! move is searched a ply shallower where one reaches it and the table's score beta
//! (negative extensions). The history is one table, or one a side bounded by gravity
//! with a malus for the moves a cut-off came after. [`Pruning::DEFAULT`] keeps what
//! measured stronger (`experiments/nnue`). The leaf evaluation is an [`Evaluation`]:
//! entered at every node on the path, so an incrementally updated one moves its state
//! with the search.
//!
//! With more than two players the search is paranoid, as [`super::alphabeta`]'s: the
//! root player maximises and every other player minimises the root player's value; in
//! negamax terms a node's sign is + where the root player moves, and a child's score
//! changes sign only where the sign does.
//!
//! Scores are integers: a value `v` in [-1, 1] is `v · EVAL_SCALE`, or on the logit
//! scale ([`Pruning::logit`]) `atanh v · EVAL_SCALE` ([`score_of`]); a won game is
//! `WIN - plies` from the root. Time: a soft deadline ends the deepening between
//! iterations, a hard one aborts an iteration (its result is dropped but for a root move
//! found better than the last iteration's, fully searched).

use std::collections::HashMap;
use std::time::Instant;

mod evaluation;
pub mod features;
mod ordering;
mod pruning;
mod quiescence;
mod score;
mod table;

use super::{Bound, Stop};
use crate::games::Action;
use crate::games::Searchable;
pub use evaluation::Evaluation;
pub use features::Features;
pub use pruning::{
    FORWARD_FUTILITY_DEPTH, FUTILITY_DEPTH, LATE_MOVE_DEPTH, NULL_REDUCTION, PRUNING_KNOBS,
    Pruning, PruningKnob, SINGULAR_DEPTH, SINGULAR_TABLE_SLACK, late_moves,
};
pub use score::{EVAL_SCALE, WIN, score_of, value_of};
use score::{INF, WIN_BOUND};
pub use table::Table;
use table::{Entry, from_table, to_table};

const MAX_PLY: usize = crate::limits::MAX_SEARCH_DEPTH as usize + 1;
/// With `hst=1`, history scores stay within ±this.
const HISTORY_MAX: i32 = 16_384;
/// With `hst=1`, a cut-off's history bonus a ply of depth (at most an eighth of the bound).
const HISTORY_BONUS_PLY: i32 = 160;
/// The first aspiration window's half-width.
const ASPIRATION: i32 = 40;

pub use crate::games::FEATURE_ON;

/// When to stop. At least depth 1 always completes.
#[derive(Debug, Clone, Default)]
pub struct PvsLimits {
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// Stop after this many nodes.
    pub nodes: Option<u64>,
    /// Start no new iteration after this many nodes.
    pub soft_nodes: Option<u64>,
    /// Start no new iteration after this instant.
    pub soft: Option<Instant>,
    /// Abort the iteration at this instant.
    pub hard: Option<Instant>,
    /// Stop when asked to.
    pub stop: Stop,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq)]
pub struct PvsResult {
    /// The move.
    pub best: Action,
    /// Its score for the mover at the root.
    pub score: i32,
    /// The deepest iteration completed.
    pub depth: u32,
    /// Nodes in all.
    pub nodes: u64,
    /// The principal variation, from `best`.
    pub pv: Vec<Action>,
}

impl PvsResult {
    /// Plies to the end when the score is a forced result: positive a win.
    pub fn mate_plies(&self) -> Option<i32> {
        (self.score.abs() >= WIN_BOUND).then(|| (WIN - self.score.abs()) * self.score.signum())
    }
}

/// A searcher with its table and ordering statistics, kept from move to move.
pub struct Pvs<G: Searchable> {
    /// What the search prunes.
    pub pruning: Pruning,
    table: Table,
    history: Vec<i32>,
    /// Move scores from outside the search (a network's policy logits, by action), by
    /// position key: a position that has them orders its moves by them.
    prior: HashMap<u64, Vec<f32>>,
    /// The moves searched at each ply so far, for the history's malus.
    tried: Vec<Vec<Action>>,
    killers: Vec<[Action; 2]>,
    /// Each ply's moves, ordering key first, and where in `made` each one's child is.
    children: Vec<Vec<(i64, Action, u32)>>,
    /// Each ply's children that ordering made (a game whose `rank` plays the move).
    made: Vec<Vec<Option<G>>>,
    moves: Vec<Vec<Action>>,
    /// Each ply's tactical moves in a quiescence search, with their gains.
    tactical: Vec<Vec<(i32, Action)>>,
    pv: Vec<Vec<Action>>,
    /// Whether the move into ply `p + 1` was a null move.
    nulled: Vec<bool>,
    /// The move a singular extension's test leaves out at each ply (`Action::MAX` none).
    excluded: Vec<Action>,
    /// The iteration's depth.
    root_depth: i32,
    root_player: usize,
    players: usize,
    nodes: u64,
    limits: PvsLimits,
    aborted: bool,
    next_check: u64,
}

impl<G: Searchable> Pvs<G> {
    /// A searcher with a table of `hash_mib` MiB.
    pub fn new(hash_mib: u64) -> Pvs<G> {
        Pvs {
            pruning: Pruning::default(),
            table: Table::new(hash_mib),
            nulled: vec![false; MAX_PLY + 2],
            excluded: vec![Action::MAX; MAX_PLY + 1],
            root_depth: 0,
            history: Vec::new(),
            tried: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            prior: HashMap::new(),
            killers: vec![[Action::MAX; 2]; MAX_PLY + 1],
            children: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            made: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            moves: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            tactical: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            pv: (0..=MAX_PLY + 1).map(|_| Vec::new()).collect(),
            root_player: 0,
            players: 2,
            nodes: 0,
            limits: PvsLimits::default(),
            aborted: false,
            next_check: 0,
        }
    }

    /// Orders the moves of each position whose key ([`Searchable::key`]) is in `prior` by
    /// its scores (indexed by action, higher first), after the table's move, for the
    /// searches to come; an empty map orders by the search's own statistics alone.
    pub fn set_prior(&mut self, prior: HashMap<u64, Vec<f32>>) {
        self.prior = prior;
    }

    /// Replaces the table with one of `mib` MiB.
    pub fn resize(&mut self, mib: u64) {
        self.table = Table::new(mib);
    }

    /// Searches `root` (not finished) with `eval` at the leaves. `None` only when the
    /// root has no legal move.
    pub fn search(
        &mut self,
        root: &G,
        eval: &mut dyn Evaluation<G>,
        limits: PvsLimits,
    ) -> Option<PvsResult> {
        if Searchable::outcome(root).is_some() {
            return None;
        }
        self.nodes = 0;
        self.aborted = false;
        self.next_check = 0;
        self.limits = limits;
        self.root_player = Searchable::to_move(root);
        self.players = root.players();
        let sides = self.history_sides();
        if self.history.len() != sides * root.actions() {
            self.history = vec![0; sides * root.actions()];
        }
        for h in &mut self.history {
            *h /= 8;
        }
        let max_depth = (self.limits.depth)
            .unwrap_or(crate::limits::MAX_SEARCH_DEPTH)
            .clamp(1, crate::limits::MAX_SEARCH_DEPTH);
        let mut result: Option<PvsResult> = None;
        for depth in 1..=max_depth {
            self.root_depth = depth as i32;
            let must_finish = result.is_none();
            let score = match &result {
                Some(r) if depth >= 3 && r.mate_plies().is_none() => {
                    self.aspiration(root, eval, depth, r.score, must_finish)
                }
                _ => self.node(root, eval, depth as i32, -INF, INF, 0, must_finish),
            };
            let best = self.pv[0].first().copied();
            if self.aborted {
                // A root move that beat the last iteration's first move, searched fully.
                if let (Some(r), Some(b)) = (&mut result, best)
                    && b != r.best
                {
                    r.best = b;
                    r.pv = self.pv[0].clone();
                }
                break;
            }
            let Some(best) = best else { break };
            result = Some(PvsResult {
                best,
                score,
                depth,
                nodes: self.nodes,
                pv: self.pv[0].clone(),
            });
            if score.abs() >= WIN_BOUND
                || self.limits.soft.is_some_and(|t| Instant::now() >= t)
                || self.limits.soft_nodes.is_some_and(|n| self.nodes >= n)
                || self.limits.stop.requested()
            {
                break;
            }
        }
        result.map(|r| PvsResult {
            nodes: self.nodes,
            ..r
        })
    }

    /// One iteration in a window around `guess`, widened until the score falls inside.
    fn aspiration(
        &mut self,
        root: &G,
        eval: &mut dyn Evaluation<G>,
        depth: u32,
        guess: i32,
        must_finish: bool,
    ) -> i32 {
        let mut delta = ASPIRATION;
        let (mut lo, mut hi) = (guess - delta, guess + delta);
        loop {
            let v = self.node(root, eval, depth as i32, lo, hi, 0, must_finish);
            if self.aborted || (v > lo && v < hi) {
                return v;
            }
            delta = delta.saturating_mul(4);
            if v <= lo {
                lo = if delta > WIN { -INF } else { guess - delta };
            } else {
                hi = if delta > WIN { INF } else { guess + delta };
            }
        }
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + 64;
            let l = &self.limits;
            self.aborted = l.nodes.is_some_and(|n| self.nodes >= n)
                || l.hard.is_some_and(|t| Instant::now() >= t)
                || l.stop.requested();
        }
        self.aborted
    }

    /// +1 where the root player moves, −1 elsewhere: a node's score is its sign times
    /// the root player's (with two players, the mover's own; with three, paranoid).
    fn sign(&self, mover: usize) -> i32 {
        if mover == self.root_player { 1 } else { -1 }
    }

    /// The static score of `state`, entered at `ply`, for its mover's side.
    fn static_score(&self, state: &G, eval: &mut dyn Evaluation<G>, ply: usize) -> i32 {
        let mover = Searchable::to_move(state);
        let v = if self.players == 2 {
            eval.value(ply)
        } else {
            let seat = (self.root_player + self.players - mover) % self.players;
            eval.values(ply)[seat] * self.sign(mover) as f32
        };
        score_of(v, self.pruning.logit)
    }

    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        state: &G,
        eval: &mut dyn Evaluation<G>,
        mut depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        must_finish: bool,
    ) -> i32 {
        self.nodes += 1;
        self.pv[ply].clear();
        let mover = Searchable::to_move(state);
        if let Some(outcome) = Searchable::outcome(state) {
            let v = outcome.value(self.root_player) * self.sign(mover) as f32;
            let plies = ply as i32;
            return if v > 0.0 {
                WIN - plies
            } else if v < 0.0 {
                plies - WIN
            } else {
                0
            };
        }
        // The table's slot is fetched while the evaluation reads the position.
        let key = if depth > 0 { state.key() } else { 0 };
        if depth > 0 {
            self.table.prefetch(key);
        }
        eval.enter(ply, state);
        if depth <= 0 || ply >= MAX_PLY {
            return self.quiesce(state, eval, depth, alpha, beta, ply);
        }
        if !must_finish && self.out_of_budget() {
            return 0;
        }
        let pv_node = beta - alpha > 1;
        // In a singular extension's test: the position without its table move, whose
        // result is not the position's own.
        let excluded = self.excluded[ply];
        let testing = excluded != Action::MAX;
        let mut tt_move = Action::MAX;
        let entry = self.table.probe(key);
        if entry.is_none() && depth > 3 {
            depth -= match self.pruning.iterative {
                0 => 0,
                1 => 1,
                _ => 2 + i32::from(depth > 6),
            };
        }
        if let Some(e) = entry {
            tt_move = e.action;
            let score = from_table(e.score, ply);
            if ply > 0 && !pv_node && !testing && e.depth as i32 >= depth {
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if cut {
                    return score;
                }
            }
        }
        // Reverse futility: a position so good near the leaves that no move is searched.
        if self.pruning.futility > 0
            && !pv_node
            && !testing
            && ply > 0
            && depth <= FUTILITY_DEPTH
            && beta.abs() < WIN_BOUND
        {
            let own = self.static_score(state, eval, ply);
            if own - i32::from(self.pruning.futility) * depth >= beta {
                return own;
            }
        }
        // Null-move pruning: a position good enough for the mover even after passing.
        if self.pruning.null_move
            && !pv_node
            && !testing
            && ply > 0
            && depth >= 3
            && self.players == 2
            && !self.nulled[ply - 1]
            && beta.abs() < WIN_BOUND
            && let Some(passed) = state.null_move()
            && self.static_score(state, eval, ply) >= beta
        {
            let r = NULL_REDUCTION + depth / 4;
            self.nulled[ply] = true;
            let v = -self.node(
                &passed,
                eval,
                depth - 1 - r,
                -beta,
                1 - beta,
                ply + 1,
                false,
            );
            self.nulled[ply] = false;
            if self.aborted {
                return 0;
            }
            if v >= beta {
                return v.min(WIN_BOUND - 1);
            }
        }
        // Singular extensions: the table's move searched a ply deeper where no other
        // move comes near it; multi-cut and negative extensions where another does.
        let mut extension = 0;
        if let Some(e) = entry
            && self.pruning.singular > 0
            && self.players == 2
            && ply > 0
            && !testing
            && depth >= SINGULAR_DEPTH
            && e.action != Action::MAX
            && e.bound != Bound::Upper
            && e.depth as i32 >= depth - SINGULAR_TABLE_SLACK
            && let tt_score = from_table(e.score, ply)
            && tt_score.abs() < WIN_BOUND
        {
            let bound = tt_score - i32::from(self.pruning.singular) * depth;
            self.excluded[ply] = e.action;
            let v = self.node(state, eval, (depth - 1) / 2, bound - 1, bound, ply, false);
            self.excluded[ply] = Action::MAX;
            if self.aborted {
                return 0;
            }
            if v < bound {
                extension = i32::from((ply as i32) < 2 * self.root_depth);
            } else if self.pruning.multicut && bound >= beta {
                return bound;
            } else if self.pruning.negative && tt_score >= beta {
                extension = -1;
            }
        }
        let mut children = std::mem::take(&mut self.children[ply]);
        let mut made = std::mem::take(&mut self.made[ply]);
        let mut unranked = self.order(state, ply, tt_move, &mut children, &mut made);
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = Action::MAX;
        let mut tried = std::mem::take(&mut self.tried[ply]);
        tried.clear();
        let prune_late = self.pruning.late_moves && !pv_node && depth <= LATE_MOVE_DEPTH;
        let quiet_after = if ply > 0 {
            self.pruning.quiet as usize
        } else {
            0
        };
        // Futility: a position so far below alpha near the leaves that only its first
        // move is searched.
        let futile = self.pruning.forward > 0
            && !pv_node
            && ply > 0
            && depth <= FORWARD_FUTILITY_DEPTH
            && alpha.abs() < WIN_BOUND
            && {
                let margin = i32::from(self.pruning.forward);
                self.static_score(state, eval, ply) + margin + margin / 2 * depth <= alpha
            };
        for i in 0..children.len() {
            if (prune_late && i >= late_moves(depth) || futile && i >= 1) && best > -WIN_BOUND {
                break;
            }
            if unranked && i == 1 {
                self.rank_moves(state, ply, &mut children[1..], &mut made);
                unranked = false;
            }
            let (_, action, at) = *Self::next_best(&mut children, i);
            if action == excluded {
                continue;
            }
            // Below the root, a quiet move after the first few is not searched (unless
            // every move so far loses by force).
            if quiet_after > 0 && i >= quiet_after && best > -WIN_BOUND && state.quiet(action) {
                continue;
            }
            if i == 0 {
                best_move = action;
            }
            let child = match made.get_mut(at as usize).and_then(Option::take) {
                Some(c) => c,
                None => {
                    let mut c = state.clone();
                    c.play(action);
                    c
                }
            };
            let mut search = |s: &mut Self, d: i32, lo: i32, hi: i32| {
                s.child(&child, mover, eval, d, lo, hi, ply + 1, must_finish)
            };
            let full = depth - 1 + if action == tt_move { extension } else { 0 };
            let v = if i == 0 {
                search(self, full, alpha, beta)
            } else {
                // A late move is searched shallower first, and again at full depth
                // only if it beats alpha there.
                let h = self.history_of(mover, action);
                let r = self.reduction(depth, i, pv_node, h);
                let mut v = search(self, full - r, alpha, alpha + 1);
                if r > 0 && v > alpha && !self.aborted {
                    v = search(self, full, alpha, alpha + 1);
                }
                if v > alpha && v < beta && !self.aborted {
                    search(self, full, alpha, beta)
                } else {
                    v
                }
            };
            if self.aborted {
                break; // the move's score is unknown
            }
            tried.push(action);
            if v > best {
                best = v;
                best_move = action;
                if v > alpha {
                    alpha = v;
                    self.update_pv(ply, action);
                }
            }
            if alpha >= beta {
                break;
            }
        }
        self.children[ply] = children;
        self.made[ply] = made;
        if self.aborted {
            self.tried[ply] = tried;
            return best;
        }
        if alpha >= beta {
            let k = &mut self.killers[ply];
            if k[0] != best_move {
                k[1] = k[0];
                k[0] = best_move;
            }
            self.reward(mover, depth, best_move, &tried);
        }
        self.tried[ply] = tried;
        if testing {
            return best;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table.store(
            key,
            Entry {
                key,
                score: to_table(best, ply),
                action: best_move,
                depth: depth.clamp(0, 255) as u8,
                bound,
            },
        );
        best
    }

    /// The score of `child`, entered at `ply`, for `mover` (who moved into it), searched
    /// to `depth` in `mover`'s window `lo..hi`: the child's own score, negated where the
    /// sign changes between them.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn child(
        &mut self,
        child: &G,
        mover: usize,
        eval: &mut dyn Evaluation<G>,
        depth: i32,
        lo: i32,
        hi: i32,
        ply: usize,
        must_finish: bool,
    ) -> i32 {
        if self.sign(Searchable::to_move(child)) != self.sign(mover) {
            -self.node(child, eval, depth, -hi, -lo, ply, must_finish)
        } else {
            self.node(child, eval, depth, lo, hi, ply, must_finish)
        }
    }

    fn update_pv(&mut self, ply: usize, action: Action) {
        super::update_pv(&mut self.pv, ply, action)
    }
}
