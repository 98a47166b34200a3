//! `contagion bench endgame`: the exact endgame solver against its reference (plain
//! minimax over the same bounds) and against itself on the game's own states (without
//! the bitboards), on the last positions of real games, by endgame size; and how often
//! an agent's move keeps a position's exact result ([`accuracy`]).
//!
//! The games are alpha-beta's (depth 2, the game's baseline evaluation) from seeded
//! random openings. Each position is given to the solver, then to each other solver
//! asked for, with the same time limit, to prove its result (win, draw or loss; the
//! margin is not timed); the figures are how many each solved, the median time, and
//! whether every result more than one found agrees.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::sample_positions;
use crate::agents::Baselines;
use crate::games::Game;
use crate::search::alphabeta::{AlphaBeta, SearchLimits};
use crate::search::endgame::{SolveLimits, Solver};

/// The figures for one endgame size.
#[derive(Debug, Clone, Serialize)]
pub struct EndgameFigure {
    /// [`Game::endgame_size`] of the positions (Ataxx: empty squares).
    pub size: u32,
    /// Positions measured.
    pub positions: usize,
    /// Solved by the solver within the limit.
    pub solved: usize,
    /// The solver's median time over the positions (an unsolved one counts as the limit).
    pub median_ms: f64,
    /// The solver's slowest position (an unsolved one counts as the limit).
    pub max_ms: f64,
    /// The solver's nodes a second over the positions it solved.
    pub nodes_per_second: f64,
    /// Solved by the reference within the limit (when measured).
    pub reference_solved: Option<usize>,
    /// The reference's median time (an unsolved one counts as the limit).
    pub reference_median_ms: Option<f64>,
    /// Solved by the solver on the game's own states, without bitboards (when measured).
    pub game_rules_solved: Option<usize>,
    /// Its median time (an unsolved one counts as the limit).
    pub game_rules_median_ms: Option<f64>,
    /// Its nodes a second over the positions it solved.
    pub game_rules_nodes_per_second: Option<f64>,
    /// Whether every position solved by more than one has the same result.
    pub agree: bool,
}

/// `per_size` positions of each endgame size `1..=max_size` from the recorded `games`
/// (each game's positions, earliest first, at most one of each size a game).
pub fn recorded_positions<G: Game>(
    start: &G,
    games: &[crate::arena::record::RecordedGame],
    max_size: u32,
    per_size: usize,
) -> anyhow::Result<Vec<Vec<G>>> {
    let mut out = vec![Vec::new(); max_size as usize];
    for game in games {
        let line = game.replay(start)?.into_iter().map(|(_, s)| s);
        take_from_game(&mut out, per_size, line);
    }
    Ok(out)
}

/// `per_size` positions of each endgame size `1..=max_size`, from the ends of games
/// between depth-2 alpha-beta players (at most one of each size a game).
pub fn positions<G: Baselines>(start: &G, max_size: u32, per_size: usize) -> Vec<Vec<G>> {
    let heuristic = G::Heuristic::default();
    let mut search = AlphaBeta::new(&heuristic, true);
    let mut out = vec![Vec::new(); max_size as usize];
    for mut s in sample_positions(start, 4 * per_size + 8, 6, 4141) {
        if out.iter().all(|v| v.len() >= per_size) {
            break;
        }
        let mut line = vec![s.clone()];
        while let Some(r) = search.search(&s, SearchLimits::depth(2)) {
            s.apply(r.best).expect("a legal move");
            line.push(s.clone());
        }
        take_from_game(&mut out, per_size, line.into_iter());
    }
    out
}

/// From one game's positions (in order), the first unfinished one of each endgame size
/// `1..=out.len()`, into `out[size - 1]` while it holds fewer than `per_size`.
fn take_from_game<G: Game>(out: &mut [Vec<G>], per_size: usize, line: impl Iterator<Item = G>) {
    let mut taken = vec![false; out.len()];
    for s in line.filter(|s| s.outcome().is_none()) {
        let size = s.endgame_size().unwrap_or(0) as usize;
        if (1..=out.len()).contains(&size) && !taken[size - 1] && out[size - 1].len() < per_size {
            taken[size - 1] = true;
            out[size - 1].push(s);
        }
    }
}

/// Positions solved and the time each took, for one solver and one size.
#[derive(Default)]
struct Tally {
    solved: usize,
    times: Vec<f64>,
    /// Nodes and seconds over the positions solved.
    nodes: u64,
    seconds: f64,
}

impl Tally {
    /// Solves `s` within `limit`, counting it.
    fn run<G: Game>(&mut self, solver: &mut Solver<G>, s: &G, limit: Duration) -> Option<i32> {
        let t0 = Instant::now();
        let limits = SolveLimits {
            deadline: Some(t0 + limit),
            ..SolveLimits::default()
        };
        let solution = solver.solve(s, &[], limits);
        let seconds = t0.elapsed().as_secs_f64();
        self.times.push(seconds * 1e3);
        if let Some(x) = &solution {
            self.solved += 1;
            self.nodes += x.nodes;
            self.seconds += seconds;
        }
        solution.map(|x| x.result)
    }

    fn median_ms(&mut self) -> f64 {
        median(&mut self.times)
    }

    /// Nodes a second over the positions solved (0 without any).
    fn nodes_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.nodes as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// Solves every position of `sizes` with `limit` each, and with the reference when
/// `reference` and the solver on the game's own states when `game_rules`; one figure
/// per size.
pub fn endgame<G: Game>(
    sizes: &[Vec<G>],
    limit: Duration,
    reference: bool,
    game_rules: bool,
) -> Vec<EndgameFigure> {
    let mut solver = Solver::new(20);
    let mut plain = Solver::reference();
    let mut on_game = Solver::on_game_rules(20);
    let mut figures = Vec::new();
    for (k, positions) in sizes.iter().enumerate() {
        let (mut ours, mut minimax, mut game) =
            (Tally::default(), Tally::default(), Tally::default());
        let mut agree = true;
        for s in positions {
            let result = ours.run(&mut solver, s, limit);
            let others = [
                reference.then(|| minimax.run(&mut plain, s, limit)),
                game_rules.then(|| game.run(&mut on_game, s, limit)),
            ];
            for other in others.into_iter().flatten() {
                agree &= result.is_none() || other.is_none() || result == other;
            }
        }
        figures.push(EndgameFigure {
            size: k as u32 + 1,
            positions: positions.len(),
            solved: ours.solved,
            median_ms: ours.median_ms(),
            max_ms: ours.times.iter().copied().fold(0.0, f64::max),
            nodes_per_second: ours.nodes_per_second(),
            reference_solved: reference.then_some(minimax.solved),
            reference_median_ms: reference.then(|| minimax.median_ms()),
            game_rules_solved: game_rules.then_some(game.solved),
            game_rules_median_ms: game_rules.then(|| game.median_ms()),
            game_rules_nodes_per_second: game_rules.then(|| game.nodes_per_second()),
            agree,
        });
    }
    figures
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(0.0)
}

/// How one agent's moves keep exact results, for one endgame size.
#[derive(Debug, Clone, Serialize)]
pub struct AccuracyFigure {
    /// [`Game::endgame_size`] of the positions.
    pub size: u32,
    /// Positions measured.
    pub positions: usize,
    /// Positions whose result the solver proved within the exact limit (the others are
    /// left out).
    pub solved: usize,
    /// Of those, positions where the agent's move keeps the result.
    pub kept: usize,
    /// Of those, positions where the move's result could not be proven in the limit.
    pub unknown: usize,
}

/// For every position: its exact result by the solver within `exact` (positions it
/// does not solve are left out), the `agent`'s move at `movetime`, and whether the
/// position after the move has the same result for the mover (also solved within
/// `exact`). One figure per size.
pub fn accuracy<G: Game>(
    sizes: &[Vec<G>],
    agent: &mut dyn crate::agents::Agent<G>,
    movetime: Duration,
    exact: Duration,
) -> anyhow::Result<Vec<AccuracyFigure>> {
    let mut solver = Solver::new(22);
    // The exact result (+1, 0, −1) of `s` for `player`, if proven within `exact`.
    let mut result_for = |s: &G, player: usize| match s.outcome() {
        Some(o) => Some(o.result(player)),
        None => {
            let limits = SolveLimits {
                deadline: Some(Instant::now() + exact),
                ..SolveLimits::default()
            };
            let r = solver.solve(s, &[], limits)?.result;
            Some(if s.to_move() == player { r } else { -r })
        }
    };
    let mut figures = Vec::new();
    for (k, positions) in sizes.iter().enumerate() {
        let mut f = AccuracyFigure {
            size: k as u32 + 1,
            positions: positions.len(),
            solved: 0,
            kept: 0,
            unknown: 0,
        };
        for s in positions {
            let me = s.to_move();
            let Some(result) = result_for(s, me) else {
                continue;
            };
            f.solved += 1;
            let limits = crate::agents::Limits {
                movetime: Some(movetime),
                ..Default::default()
            };
            let action = agent.select(s, &limits)?;
            let mut child = s.clone();
            child.apply(action)?;
            match result_for(&child, me) {
                Some(r) => f.kept += usize::from(r == result),
                None => f.unknown += 1,
            }
        }
        figures.push(f);
    }
    Ok(figures)
}
