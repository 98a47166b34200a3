//! One self-play thread's games in flight. Each round: every game's turn is decided
//! ([`Turn`]: a full search recorded as a target, a fast one that is not, or the fixed
//! opponent's move), one batched search runs over all the games' trees, then every game
//! plays its move ([`Flight::play`]); a game that ends is recorded ([`Flight::finish`])
//! and replaced by the next one. A position in the endgame solver's reach is handed to
//! it before the move is chosen; a solved one is played and recorded as proven.

use super::league::League;
use super::resign::{ResignWatch, Verdict, resigned_outcome};
use super::{SelfPlayGame, SelfPlaySettings, SelfPlayStats, mix_score};
use crate::agents::mcts::SOLVER_NODES_PER_SIM;
use crate::agents::{Agent, AgentSpec, Baselines, Limits};
use crate::games::{Action, Game, MAX_PLAYERS, Outcome};
use crate::nn::{Net, NetEvaluator};
use crate::rng::Rng;
use crate::search::batch::search_batched_each;
use crate::search::endgame::{SolveLimits, Solver};
use crate::search::mcts::Tree;

/// The endgame solver's transposition table per self-play thread: `2^bits` entries.
const SOLVER_TABLE_BITS: u32 = 16;

/// What a game does this round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
    /// The network moves after a full search, recorded as a policy target.
    Full,
    /// The network moves after a fast search (playout caps): played, not a target.
    Fast,
    /// The fixed opponent moves; not searched, not a target.
    Opponent,
}

/// A game in flight: its tree, what it has recorded so far and its random stream.
struct InFlight<G: Game> {
    tree: Tree<G>,
    /// In a game against the league: the network's seat, the member (its index in
    /// the league) and its agent.
    opponent: Option<(usize, usize, Box<dyn Agent<G>>)>,
    moves: Vec<Action>,
    targets: Vec<Vec<(Action, u32)>>,
    values: Vec<[f32; MAX_PLAYERS]>,
    proven: Vec<u32>,
    seed: u64,
    rng: Rng,
    watch: ResignWatch,
}

/// One thread's self-play.
struct Flight<'a, G: Baselines> {
    start: &'a G,
    settings: &'a SelfPlaySettings,
    /// The league's members with their models aliases pinned ([`AgentSpec::pinned`]):
    /// every game of this call plays the bundles the index named at its start.
    league: Vec<AgentSpec>,
    seed: u64,
    eval: NetEvaluator<G>,
    solver: Solver<G>,
    stats: SelfPlayStats,
    on_game: &'a dyn Fn(SelfPlayGame),
}

/// Plays the games `ids` (game `i` seeded by `Rng::derive(seed, i)`), `concurrent` at
/// a time, calling `on_game` with each finished one.
pub(super) fn run<G: Baselines>(
    start: &G,
    net: &Net,
    settings: &SelfPlaySettings,
    ids: &[u64],
    seed: u64,
    on_game: &dyn Fn(SelfPlayGame),
) -> anyhow::Result<SelfPlayStats> {
    let mut f = Flight {
        start,
        settings,
        league: (settings.league.iter())
            .map(|m| m.pinned(start.name()))
            .collect(),
        seed,
        eval: NetEvaluator::new(net.clone(), settings.cache_size),
        solver: Solver::new(SOLVER_TABLE_BITS),
        stats: SelfPlayStats::default(),
        on_game,
    };
    let mut next = ids.iter();
    let mut games = Vec::new();
    for &id in next.by_ref().take(settings.concurrent.max(1)) {
        games.push(f.new_game(id)?);
    }
    while !games.is_empty() {
        let mut turns = f.search(&mut games);
        let (mut k, mut finished) = (0, 0);
        while k < games.len() {
            match f.play(&mut games[k], turns[k])? {
                Some(result) => {
                    turns.swap_remove(k);
                    f.finish(games.swap_remove(k), result);
                    finished += 1;
                }
                None => k += 1,
            }
        }
        for &id in next.by_ref().take(finished) {
            games.push(f.new_game(id)?);
        }
    }
    f.stats.eval = f.eval.stats;
    Ok(f.stats)
}

impl<G: Baselines> Flight<'_, G> {
    /// Game `id`: its random stream, whether its resignations are checked, and whether
    /// it is played against a member of the league (which, and in which seat).
    fn new_game(&self, id: u64) -> anyhow::Result<InFlight<G>> {
        let (start, settings) = (self.start, self.settings);
        let seed = Rng::derive(self.seed, id);
        let mut rng = Rng::new(seed);
        let r = &settings.resign;
        let checking = r.moves > 0 && r.check_fraction > 0.0 && rng.unit() < r.check_fraction;
        let opponent = match settings.league.is_empty() {
            false if rng.unit() < settings.opponent_fraction => {
                let seat = rng.below(start.num_players());
                let member = League::draw(&settings.league_weights, &mut rng);
                let agent = self.league[member].build(start, rng.next_u64())?;
                Some((seat, member, agent))
            }
            _ => None,
        };
        Ok(InFlight {
            tree: Tree::new(start.clone()),
            opponent,
            moves: Vec::new(),
            targets: Vec::new(),
            values: Vec::new(),
            proven: Vec::new(),
            seed,
            rng,
            watch: ResignWatch::new(checking),
        })
    }

    /// Decides every game's turn and runs one batched search over all of them (the
    /// opponent's turns get no simulations). Each root is prepared once it is ready:
    /// Dirichlet noise or the Gumbel draw for a full search, neither for a fast one.
    fn search(&mut self, games: &mut [InFlight<G>]) -> Vec<Turn> {
        let s = self.settings;
        let turns: Vec<Turn> = (games.iter_mut())
            .map(|g| {
                // Drawn for every game, the opponent's turns too: one random stream.
                let full = s.full_fraction >= 1.0 || g.rng.unit() < s.full_fraction;
                match &g.opponent {
                    Some((seat, ..)) if *seat != g.tree.root().to_move() => Turn::Opponent,
                    _ if full => Turn::Full,
                    _ => Turn::Fast,
                }
            })
            .collect();
        let sims: Vec<u32> = (turns.iter())
            .map(|t| match t {
                Turn::Full => s.sims,
                Turn::Fast => s.fast_sims,
                Turn::Opponent => 0,
            })
            .collect();
        let (mut trees, mut rngs): (Vec<&mut Tree<G>>, Vec<&mut Rng>) =
            games.iter_mut().map(|g| (&mut g.tree, &mut g.rng)).unzip();
        search_batched_each(
            &mut trees,
            &sims,
            &s.params,
            &mut self.eval,
            |t, tree| {
                if turns[t] != Turn::Opponent {
                    tree.begin(&s.params, sims[t], rngs[t], turns[t] == Turn::Full);
                }
            },
            |_| false,
        );
        turns
    }

    /// Hands `g`'s position to the endgame solver when it is in its reach, with
    /// [`SOLVER_NODES_PER_SIM`] nodes per simulation of the turn's search; a solved
    /// position's root is proven with the solver's move.
    fn solve(&mut self, g: &mut InFlight<G>, turn: Turn) {
        let root = g.tree.root();
        if !root.in_solver_reach() || g.tree.root_proof().is_some() {
            return;
        }
        let sims = match turn {
            Turn::Fast => self.settings.fast_sims,
            _ => self.settings.sims,
        };
        let limits = SolveLimits {
            nodes: Some(sims as u64 * SOLVER_NODES_PER_SIM),
            margin: true,
            ..SolveLimits::default()
        };
        let root = root.clone();
        if let Some(solution) = self.solver.solve(&root, &g.tree.root_by_prior(), limits) {
            g.tree
                .prove_root(solution.best, solution.proof(root.to_move()));
        }
    }

    /// Plays game `g`'s move this round (the opponent's, a resignation, or the searched
    /// move, recorded), or cuts it at the move limit. Returns its recorded result once
    /// it has ended.
    fn play(
        &mut self,
        g: &mut InFlight<G>,
        turn: Turn,
    ) -> anyhow::Result<Option<[f32; MAX_PLAYERS]>> {
        let s = self.settings;
        if turn != Turn::Opponent {
            self.solve(g, turn);
        }
        let (players, mover) = (g.tree.root().num_players(), g.tree.root().to_move());
        let values = g.tree.root_values();
        let played = match (turn, &mut g.opponent) {
            (Turn::Opponent, Some((_, _, opponent))) => {
                let action = opponent.select(g.tree.root(), &Limits::default())?;
                anyhow::ensure!(
                    g.tree.root().is_legal(action),
                    "self-play opponent {} chose an illegal move",
                    opponent.name()
                );
                // Not searched: no training target and no root value.
                Some((action, Vec::new(), [0.0; MAX_PLAYERS]))
            }
            _ => match g.watch.observe(&s.resign, players, mover, values[mover]) {
                Verdict::Resign(p) => {
                    self.stats.resigned += 1;
                    return Ok(Some(self.result(g, resigned_outcome(p))));
                }
                _ => {
                    let full = turn == Turn::Full;
                    let sample = full && g.tree.root().ply() < s.temperature_plies;
                    let action = g.tree.choose(sample, &mut g.rng).expect("a searched root");
                    // A fast search's move is kept (the game replays) but is no target.
                    let target = if full {
                        g.tree.policy_target()
                    } else {
                        Vec::new()
                    };
                    Some((action, target, values))
                }
            },
        };
        if let Some((action, target, root)) = played {
            if turn != Turn::Opponent && g.tree.root_proof().is_some() {
                g.proven.push(g.moves.len() as u32);
            }
            g.targets.push(target);
            g.moves.push(action);
            g.values.push(root);
            g.tree.advance(action);
            if let Some(o) = g.tree.root().outcome() {
                if let Some(false_resign) = g.watch.false_resignation(&o.0) {
                    self.stats.resign_checks += 1;
                    self.stats.false_resigns += u64::from(false_resign);
                }
                return Ok(Some(self.result(g, o.0)));
            }
        }
        if s.move_limit > 0 && g.moves.len() >= s.move_limit as usize {
            self.stats.adjudicated += 1;
            return Ok(Some(self.result(g, g.tree.root().adjudicate().0)));
        }
        Ok(None)
    }

    /// The recorded result of game `g` ended with `result`: a draw by the rules as
    /// `selfplay.draw_value`, otherwise mixed with the final score vector.
    fn result(&self, g: &InFlight<G>, result: [f32; MAX_PLAYERS]) -> [f32; MAX_PLAYERS] {
        let s = self.settings;
        let root = g.tree.root();
        // Drawn by the rules: the root is over with no winner (the root of a resigned or
        // cut game is not over).
        let drawn = root.outcome().is_some_and(|o| o.winner().is_none());
        if drawn && s.draw_value != 0.0 {
            Outcome::draw_at(root.num_players(), s.draw_value).0
        } else {
            mix_score(result, root, s.score_weight)
        }
    }

    /// Counts a finished game and hands it on.
    fn finish(&mut self, g: InFlight<G>, outcome: [f32; MAX_PLAYERS]) {
        self.stats.games += 1;
        if let Some((seat, member, _)) = &g.opponent {
            self.stats.opponent_games += 1;
            let score = ((outcome[*seat] + 1.0) / 2.0).clamp(0.0, 1.0);
            let counts = &mut self.stats.league;
            counts.resize(counts.len().max(member + 1), (0, 0.0));
            counts[*member].0 += 1;
            counts[*member].1 += score as f64;
        }
        self.stats.positions += g.moves.len() as u64;
        (self.on_game)(SelfPlayGame {
            moves: g.moves,
            targets: g.targets,
            outcome,
            sims: self.settings.sims,
            seed: g.seed,
            values: g.values,
            proven: g.proven,
        });
    }
}
