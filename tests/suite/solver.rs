//! Proven results: the exact endgame solver agrees with brute force on small positions
//! of every game it runs in, and the MCTS-solver proves forced wins of 1 to 5 plies,
//! plays them, and never plays into a proven loss while another move is not one.

use std::collections::HashMap;

use crate::common;

use contagion::games::ataxx::{Ataxx, Rules};
use contagion::games::infexion::Board;
use contagion::games::{Action, Game};
use contagion::rng::Rng;
use contagion::search::batch::search_batched;
use contagion::search::endgame::{Solution, SolveLimits, Solver};
use contagion::search::mcts::{GumbelParams, MctsParams, Tree, UniformEvaluator};

/// Positions already valued, by hash, each compared whole.
type Memo<G> = HashMap<u64, Vec<(G, i32)>>;

/// The exact value of `s` for its mover by exhaustive minimax (memoised on the whole
/// position, which holds every rule's state): the result first, the margin (the
/// mover's score share in thousandths) second, as the solver counts them.
fn brute<G: Game>(s: &G, memo: &mut Memo<G>) -> i32 {
    let bucket = memo.get(&s.hash()).map(Vec::as_slice).unwrap_or_default();
    if let Some((_, v)) = bucket.iter().find(|(p, _)| p == s) {
        return *v;
    }
    let me = s.to_move();
    let v = match s.outcome() {
        Some(o) => {
            let result = o.result(me);
            let share = s.score_vector().map_or(0.0, |v| v.value(me));
            result * 10_000 + (share * 1000.0).round() as i32
        }
        None => {
            let mut legal = Vec::new();
            s.legal_actions(&mut legal);
            legal
                .iter()
                .map(|&a| {
                    let mut child = s.clone();
                    child.apply(a).unwrap();
                    -brute(&child, memo)
                })
                .max()
                .unwrap()
        }
    };
    memo.entry(s.hash()).or_default().push((s.clone(), v));
    v
}

/// The result (+1, 0, −1) of a value.
fn result(v: i32) -> i32 {
    (v as f64 / 10_000.0).round() as i32
}

/// Small Ataxx and Virus positions: random play on a 4×4 board (corners blocked in
/// some) down to at most `empties` empty squares, with a short half-move limit so that
/// brute force ends.
fn small_ataxx(pass: bool, empties: u32, count: usize, seed: u64) -> Vec<Ataxx> {
    let starts = [
        "x2o/4/4/o2x x 0 1",
        "x1-o/4/4/o-1x o 0 1",
        "x3/4/4/3o x 0 1",
    ];
    let rules = common::ataxx_rules(4, pass, 3);
    ataxx_endgames(&starts, rules, empties, count, seed)
}

/// Infexion positions two to three turns before the turn limit, from random play on
/// a board with a few tokens each: every line ends within four plies.
fn late_infexion(count: usize, seed: u64) -> Vec<Board> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut legal = Vec::new();
    while out.len() < count {
        let (turns, side) = [(340, 'r'), (341, 'b')][out.len() % 2];
        let text = ["r2b1b1r23/7/2r24/7/4b22/7/7", "r36/1b25/7/3r13/7/5b11/7"][out.len() / 2 % 2];
        let mut s = Board::from_notation(&format!("{text} {side} {turns}")).unwrap();
        for _ in 0..rng.below(2) {
            if s.outcome().is_none() {
                s.legal_actions(&mut legal);
                s.apply(rng.choose(&legal).unwrap()).unwrap();
            }
        }
        if s.outcome().is_none() {
            out.push(s);
        }
    }
    out
}

/// The solver's result, margin and move against brute force.
fn check_solver<G: Game>(positions: &[G]) {
    let mut solver = Solver::new(16);
    let mut memo = HashMap::new();
    for s in positions {
        let exact = brute(s, &mut memo);
        let solution = solver
            .solve(
                s,
                &[],
                SolveLimits {
                    margin: true,
                    ..SolveLimits::default()
                },
            )
            .unwrap_or_else(|| panic!("unsolved: {}", s.to_notation()));
        let at = s.to_notation();
        assert_eq!(solution.result, result(exact), "the result of {at}");
        assert_eq!(
            solution.margin,
            Some(exact - result(exact) * 10_000),
            "{at}"
        );
        let mut child = s.clone();
        child.apply(solution.best).unwrap();
        assert_eq!(-brute(&child, &mut memo), exact, "the move keeps it: {at}");
    }
}

#[test]
fn the_endgame_solver_agrees_with_brute_force_in_ataxx_and_virus() {
    check_solver(&small_ataxx(true, 3, 60, 1));
    check_solver(&small_ataxx(false, 3, 60, 2));
}

/// Positions of random games from `starts` (taken in turn; side and rules from `rules`)
/// once at most `empties` squares are empty.
fn ataxx_endgames(
    starts: &[&str],
    rules: Rules,
    empties: u32,
    count: usize,
    seed: u64,
) -> Vec<Ataxx> {
    let mut rng = Rng::new(seed);
    let (mut out, mut legal) = (Vec::new(), Vec::new());
    while out.len() < count {
        let start = starts[out.len() % starts.len()];
        let mut s = Ataxx::with_rules(start, rules).unwrap();
        while s.outcome().is_none() && s.empties() > empties {
            s.legal_actions(&mut legal);
            s.apply(rng.choose(&legal).unwrap()).unwrap();
        }
        if s.outcome().is_none() {
            out.push(s);
        }
    }
    out
}

#[test]
fn the_bitboard_solver_agrees_with_the_solver_on_the_game_rules() {
    let (rules, standard) = (common::ataxx_rules, "x5o/7/7/7/7/7/o5x x 0 1");
    let mut positions = ataxx_endgames(&[standard], rules(7, true, 100), 1, 12, 11);
    for (pass, seed) in [(true, 12), (false, 13)] {
        positions.extend(ataxx_endgames(&[standard], rules(7, pass, 12), 2, 12, seed));
    }
    positions.extend(ataxx_endgames(
        &["x3o/5/2-2/5/o3x x 0 1"],
        rules(5, true, 6),
        3,
        12,
        14,
    ));
    // Some endgames of jumps alone run to the half-move limit: a node budget each, and
    // the two compared wherever both finish.
    let limits = SolveLimits {
        margin: true,
        nodes: Some(1_000_000),
        ..SolveLimits::default()
    };
    let (mut bits, mut game) = (Solver::new(18), Solver::on_game_rules(18));
    let mut compared = 0;
    for s in &positions {
        let at = s.to_notation();
        // Their move orders break ties differently, so either may run out first.
        let (Some(fast), Some(slow)) = (
            bits.solve(s, &[], limits.clone()),
            game.solve(s, &[], limits.clone()),
        ) else {
            continue;
        };
        assert_eq!(fast.result, slow.result, "{at}");
        let (Some(margin), Some(slow_margin)) = (fast.margin, slow.margin) else {
            continue;
        };
        assert_eq!(margin, slow_margin, "the margin of {at}");
        // The bitboards' move keeps the value, as the game's own rules solve it.
        let mut child = *s;
        child.apply(fast.best).unwrap();
        let after = match (child.outcome(), child.score_vector()) {
            (Some(o), Some(share)) => {
                let me = child.to_move();
                o.result(me) * 10_000 + (share.value(me) * 1000.0).round() as i32
            }
            _ => match game.solve(&child, &[], limits.clone()) {
                Some(Solution {
                    result,
                    margin: Some(m),
                    ..
                }) => result * 10_000 + m,
                _ => continue,
            },
        };
        assert_eq!(
            -after,
            fast.result * 10_000 + margin,
            "{at}: the move keeps it"
        );
        compared += 1;
    }
    assert!(
        compared * 3 >= positions.len() * 2,
        "{compared} of {}",
        positions.len()
    );
}

#[test]
fn the_endgame_solver_agrees_with_brute_force_in_infexion() {
    check_solver(&late_infexion(6, 3));
}

#[test]
fn the_endgame_solver_keeps_to_its_limits() {
    // Standard Ataxx's start is far out of reach: a node limit ends it unsolved.
    let mut solver = Solver::new(12);
    let limits = SolveLimits {
        nodes: Some(5_000),
        ..SolveLimits::default()
    };
    assert_eq!(solver.solve(&Ataxx::standard(), &[], limits), None);
    // Three players: not the solver's.
    let chexers = contagion::games::chexers::Chexers::new();
    let mut three = Solver::new(12);
    assert_eq!(three.solve(&chexers, &[], SolveLimits::default()), None);
}

fn search<G: Game>(state: &G, sims: u32, gumbel: bool) -> Tree<G> {
    let mut tree = Tree::new(state.clone());
    let params = MctsParams {
        leaves_per_tree: 4,
        gumbel: gumbel.then(GumbelParams::default),
        ..MctsParams::default()
    };
    let mut rng = Rng::new(7);
    search_batched(
        &mut [&mut tree],
        sims,
        &params,
        &mut UniformEvaluator,
        |_, t| t.begin(&params, sims, &mut rng, false),
        |_| false,
    );
    tree
}

/// The plies of the quickest forced win for the mover, if it has one (brute force).
fn quickest_win<G: Game>(s: &G, depth: u32) -> Option<u32> {
    (1..=depth).find(|&d| wins_within(s, d))
}

fn wins_within<G: Game>(s: &G, plies: u32) -> bool {
    if plies == 0 {
        return false;
    }
    let me = s.to_move();
    let mut legal = Vec::new();
    s.legal_actions(&mut legal);
    legal.iter().any(|&a| {
        let mut child = s.clone();
        child.apply(a).unwrap();
        lost_within(&child, plies - 1, me)
    })
}

/// Whether `winner` (not to move here) wins within `plies` whatever the mover does.
fn lost_within<G: Game>(s: &G, plies: u32, winner: usize) -> bool {
    if let Some(o) = s.outcome() {
        return o.value(winner) >= 1.0;
    }
    if plies == 0 {
        return false;
    }
    let mut legal = Vec::new();
    s.legal_actions(&mut legal);
    legal.iter().all(|&a| {
        let mut child = s.clone();
        child.apply(a).unwrap();
        child.outcome().map_or_else(
            || wins_within(&child, plies - 1),
            |o| o.value(winner) >= 1.0,
        )
    })
}

#[test]
fn the_mcts_solver_proves_and_plays_forced_wins_of_one_to_five_plies() {
    // Virus rules (no pass): a game ends when the mover cannot move, so the quickest
    // wins here take 1, 3 or 5 plies.
    let mut found = [0usize; 6];
    let mut memo = HashMap::new();
    for s in small_ataxx(false, 6, 400, 11) {
        if found[1] >= 2 && found[3] >= 2 && found[5] >= 2 {
            break;
        }
        let Some(plies) = quickest_win(&s, 5) else {
            continue;
        };
        if found[plies as usize] >= 2 {
            continue;
        }
        found[plies as usize] += 1;
        // Gumbel's root plan spreads its budget over its sampled moves by design: it is
        // held to the quickest wins only.
        for gumbel in [false, plies <= 2] {
            let tree = search(&s, 50_000, gumbel);
            let at = s.to_notation();
            let proof = tree.root_proof().unwrap_or_else(|| panic!("unproven {at} ({plies} plies, gumbel {gumbel}): {} visits, {} nodes, children {:?}", tree.root_visits(), tree.size(), tree.root_children()));
            assert!(proof.wins(s.to_move()), "{at}");
            assert!(
                proof.plies >= plies,
                "{at}: {proof:?} against {plies} plies"
            );
            let best = tree.choose(false, &mut Rng::new(1)).unwrap();
            let mut child = s;
            child.apply(best).unwrap();
            assert_eq!(result(-brute(&child, &mut memo)), 1, "{at}: a winning move");
        }
    }
    assert!(
        found[1] * found[3] * found[5] > 0,
        "wins of each length: {found:?}"
    );
}

#[test]
fn the_mcts_solver_never_plays_into_a_proven_loss() {
    let mut memo = HashMap::new();
    let mut checked = 0;
    for s in small_ataxx(true, 3, 300, 12) {
        if result(brute(&s, &mut memo)) < 0 {
            continue; // lost whatever it plays
        }
        let mut legal = Vec::new();
        s.legal_actions(&mut legal);
        let losing: Vec<Action> = (legal.iter().copied())
            .filter(|&a| {
                let mut child = s;
                child.apply(a).unwrap();
                result(-brute(&child, &mut memo)) < 0
            })
            .collect();
        if losing.is_empty() {
            continue;
        }
        checked += 1;
        for sims in [50, 500, 5000] {
            let tree = search(&s, sims, false);
            let best = tree.choose(false, &mut Rng::new(1)).unwrap();
            let proof = tree.child_proof(best);
            assert!(
                !proof.is_some_and(|p| p.loses(s.to_move())),
                "{}: chose a proven loss",
                s.to_notation()
            );
            // Every proof in the tree is the exact result.
            for &a in &legal {
                if let Some(p) = tree.child_proof(a) {
                    let mut child = s;
                    child.apply(a).unwrap();
                    let exact = result(-brute(&child, &mut memo));
                    assert_eq!(p.outcome[s.to_move()] as i32, exact, "{}", s.to_notation());
                }
            }
            if sims == 5000 {
                assert!(!losing.contains(&best), "{}", s.to_notation());
            }
        }
    }
    assert!(checked >= 10, "{checked} positions with a losing move");
}

#[test]
fn a_tree_plays_on_after_the_solver_proved_the_move_it_played() {
    // The solver's proof sits on a root child the search never expanded; once that
    // move is played the new root has moves to choose from again.
    let mut checked = 0;
    for s in small_ataxx(true, 4, 60, 13) {
        let mut tree = search(&s, 16, false);
        let Some(solution) =
            Solver::new(12).solve(&s, &tree.root_by_prior(), SolveLimits::default())
        else {
            continue;
        };
        tree.prove_root(solution.best, solution.proof(s.to_move()));
        assert_eq!(tree.choose(false, &mut Rng::new(1)), Some(solution.best));
        tree.advance(solution.best);
        if tree.root().outcome().is_some() {
            continue;
        }
        checked += 1;
        let params = MctsParams::default();
        search_batched(
            &mut [&mut tree],
            16,
            &params,
            &mut UniformEvaluator,
            |_, t| t.begin(&params, 16, &mut Rng::new(3), false),
            |_| false,
        );
        let reply = tree
            .choose(false, &mut Rng::new(1))
            .expect("a move after the proof");
        assert!(tree.root().is_legal(reply));
    }
    assert!(checked > 10, "{checked} positions played on");
}
