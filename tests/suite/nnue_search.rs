//! The fast evaluator's alpha-beta player: against the exact solver in Ataxx's endgames,
//! and each of its prunings, quiet moves, extensions and orderings held to what it must
//! keep (the root's moves, forced wins, depth, the order of values).

use std::sync::Arc;

use contagion::agents::nnue::{NnueAgent, SOLVER_NODES, SOLVER_TABLE_BITS};
use contagion::agents::{Agent, Limits};
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::games::{Action, Game};
use contagion::nn::NetShape;
use contagion::nn::nnue::{Evaluator, FeatureSet, features};
use contagion::rng::Rng;
use contagion::search::endgame::{SolveLimits, Solver};
use contagion::search::pvs::{Evaluation, Pruning, Pvs, PvsLimits, WIN, score_of, value_of};

use crate::nnue::random_net;

/// Ataxx positions a few empty squares from the end, from seeded random games.
fn endgames(count: usize) -> Vec<Ataxx> {
    let mut rng = Rng::new(77);
    let mut out = Vec::new();
    let mut moves = Vec::new();
    while out.len() < count {
        let mut s = Ataxx::standard();
        while s.outcome().is_none() && s.empties() > 3 {
            s.legal_actions(&mut moves);
            // Mostly clones, so that the board fills.
            let clones: Vec<Action> = moves
                .iter()
                .copied()
                .filter(|&a| (a as usize) < 49)
                .collect();
            let pool = if clones.is_empty() || rng.below(8) == 0 {
                &moves
            } else {
                &clones
            };
            s.apply(pool[rng.below(pool.len())]).unwrap();
        }
        if s.outcome().is_none() {
            out.push(s);
        }
    }
    out
}

#[test]
fn the_player_finds_proven_wins_and_never_plays_into_a_proven_loss() {
    let start = Ataxx::standard();
    let net = random_net(&start, 11);
    let eval = Arc::new(Evaluator::new(&net));
    // The solver's result for the mover, where it proves one with the player's own
    // solver and budget without a clock (a node count, so the same on every machine):
    // what the player must then play by.
    let solve = |s: &Ataxx| {
        let limits = SolveLimits {
            nodes: Some(SOLVER_NODES),
            ..SolveLimits::default()
        };
        let mut solver: Solver<Ataxx> = Solver::new(SOLVER_TABLE_BITS);
        solver.solve(s, &[], limits).map(|r| r.result)
    };
    let mut moves = Vec::new();
    let (mut wins, mut saved) = (0, 0);
    for s in endgames(40) {
        let Some(root) = solve(&s) else { continue };
        let mut agent: NnueAgent<Ataxx> =
            NnueAgent::new("nnue".into(), eval.clone(), None, Some(6), None);
        let a = agent.select(&s, &Limits::default()).unwrap();
        let mut after = s;
        after.apply(a).unwrap();
        // The result for the mover after its move, by the solver.
        let got = match after.outcome() {
            Some(o) => Some(o.result(s.to_move())),
            None if after.to_move() == s.to_move() => solve(&after),
            None => solve(&after).map(|r| -r),
        };
        let Some(got) = got else { continue };
        assert_eq!(
            got,
            root,
            "{}: played {}",
            s.to_notation(),
            s.action_to_string(a)
        );
        if root > 0 {
            wins += 1;
        }
        // A move into a proven loss existed where the root is not lost.
        s.legal_actions(&mut moves);
        if root >= 0 && moves.len() > 1 {
            saved += 1;
        }
    }
    assert!(
        wins > 5 && saved > 5,
        "{wins} wins, {saved} positions with a choice"
    );
}

/// The player on a random evaluator of `start`'s game, to `depth`, pruning as `pruning` says.
fn player<G: Game>(start: &G, depth: u32, pruning: Pruning) -> NnueAgent<G> {
    let net = random_net(start, 3);
    let eval = Arc::new(Evaluator::new(&net));
    let mut agent = NnueAgent::new("nnue".into(), eval, None, Some(depth), None);
    agent.set_pruning(pruning);
    if pruning.prior > 0 {
        agent.set_network(contagion::nn::Net::init(NetShape::for_game(
            start, 1, 8, 16,
        )));
    }
    agent
}

/// Every way the search can prune: reductions none, mild, growing or by history, null
/// moves or not, reverse futility and late-move pruning or not, internal iterative
/// reductions or not, quiet moves skipped (with the history a side, futility pruning,
/// a network's policy ordering two plies, singular extensions with multi-cut and
/// negative extensions, the margins on the logit scale and a quiescence search) or not.
fn prunings() -> Vec<Pruning> {
    let mut all = Vec::new();
    for reductions in 0..=3 {
        for null_move in [false, true] {
            for (futility, late_moves) in [(0, false), (100, false), (0, true), (100, true)] {
                for iterative in [0, 2] {
                    for (quiet, history, forward, prior, singular) in
                        [(0, 0, 0, 0, 0), (2, 1, 200, 2, 30)]
                    {
                        all.push(Pruning {
                            reductions,
                            null_move,
                            futility,
                            late_moves,
                            iterative,
                            quiet,
                            history,
                            forward,
                            prior,
                            singular,
                            multicut: singular > 0,
                            negative: singular > 0,
                            logit: singular > 0,
                            quiesce: quiet,
                        });
                    }
                }
            }
        }
    }
    all
}

#[test]
fn quiet_moves_are_the_jumps_that_take_nothing_on_boards_and_bitboards() {
    // Over random games of Ataxx and a small Virus board, every legal move: the game
    // calls it quiet exactly when it is a jump after which the opponent has as many
    // pieces as before, and the bitboards' search agrees.
    let mut rng = Rng::new(83);
    let starts = [
        Ataxx::standard(),
        Ataxx::custom("x3o/5/2-2/5/o3x o 0 1", false).unwrap(),
    ];
    let (mut quiet, mut loud) = (0, 0);
    for start in starts {
        for _ in 0..10 {
            let mut s = start;
            let mut moves = Vec::new();
            while s.outcome().is_none() {
                s.legal_actions(&mut moves);
                let bits = contagion::games::ataxx::bits::Bits::new(&s).unwrap();
                for &a in &moves {
                    let mut after = s;
                    after.apply(a).unwrap();
                    let jump = matches!(
                        contagion::games::ataxx::Move::from_index(a, s.size()),
                        Some(contagion::games::ataxx::Move::Jump { .. })
                    );
                    let expected =
                        jump && after.pieces(1 - s.to_move()) == s.pieces(1 - s.to_move());
                    assert_eq!(
                        s.is_quiet(a),
                        expected,
                        "{} {}",
                        s.to_notation(),
                        s.action_to_string(a)
                    );
                    assert_eq!(contagion::games::Searchable::quiet(&bits, a), expected);
                    if expected { quiet += 1 } else { loud += 1 }
                }
                s.apply(moves[rng.below(moves.len())]).unwrap();
            }
        }
    }
    assert!(quiet > 100 && loud > 100, "{quiet} quiet, {loud} not");
}

#[test]
fn quiet_move_pruning_skips_nothing_at_the_root() {
    // x's one piece is walled in by blocked squares: its only moves are jumps that take
    // nothing. Every one is searched at the root (the scores differ, so the best is
    // found), and the depth completes.
    let s = Ataxx::standard()
        .parse_position("x-5/--5/7/7/7/7/6o x 0 1")
        .unwrap();
    let mut moves = Vec::new();
    s.legal_actions(&mut moves);
    assert!(moves.len() > 2 && moves.iter().all(|&a| s.is_quiet(a)));
    let pick = |quiet| {
        let mut agent = player(
            &s,
            4,
            Pruning {
                quiet,
                ..Pruning::DEFAULT
            },
        );
        let a = agent.select(&s, &Limits::default()).unwrap();
        assert!(s.is_legal(a));
        assert_eq!(agent.last_search().unwrap().depth, 4);
        a
    };
    // Below the root the walled piece's side still has clones after its first jump, so
    // the choice at the root is over every jump with or without the pruning.
    assert!(moves.contains(&pick(1)));
    assert!(moves.contains(&pick(0)));
}

#[test]
fn the_search_alone_finds_a_forced_win_at_depth_however_it_prunes() {
    // Without the solver (too many empty squares for it): o takes the last x pieces.
    let s = Ataxx::standard()
        .parse_position("7/7/7/3x3/3o3/7/o6 o 0 1")
        .unwrap();
    assert!(!s.in_solver_reach());
    for pruning in prunings() {
        let mut agent = player(&s, 3, pruning);
        let a = agent.select(&s, &Limits::default()).unwrap();
        let mut after = s;
        after.apply(a).unwrap();
        assert_eq!(
            after.outcome().map(|o| o.result(1)),
            Some(1),
            "{pruning:?} played {}",
            s.action_to_string(a)
        );
        let info = agent.last_search().unwrap();
        assert_eq!(info.score, contagion::agents::Score::Mate(1), "{pruning:?}");
    }
}

#[test]
fn singular_extensions_change_the_search_and_keep_its_depth() {
    // Deep enough for the test of a table move (6 plies from the leaves, below the
    // root): along a game the search plays, the search with singular extensions (alone,
    // with multi-cut, with negative extensions too) completes the depth with a legal
    // move (or proves the result), and somewhere visits other nodes than without them.
    let mut s = Ataxx::standard();
    let mut differ = [false; 3];
    for _ in 0..6 {
        let run = |pruning: Pruning| {
            let mut agent = player(&s, 7, pruning);
            let a = agent.select(&s, &Limits::default()).unwrap();
            assert!(s.is_legal(a), "{pruning:?}");
            let info = agent.last_search().unwrap();
            let proven = matches!(info.score, contagion::agents::Score::Mate(_));
            assert!(info.depth == 7 || proven, "{pruning:?} {info:?}");
            (a, info.nodes)
        };
        let (best, plain) = run(Pruning {
            singular: 0,
            multicut: false,
            negative: false,
            ..Pruning::DEFAULT
        });
        for (k, (multicut, negative)) in [(false, false), (true, false), (true, true)]
            .into_iter()
            .enumerate()
        {
            let (_, n) = run(Pruning {
                singular: 20,
                multicut,
                negative,
                ..Pruning::DEFAULT
            });
            differ[k] |= n != plain;
        }
        s.apply(best).unwrap();
        if s.outcome().is_some() {
            break;
        }
    }
    assert_eq!(differ, [true; 3]);
}

#[test]
fn the_logit_scale_keeps_the_order_of_values_and_reads_back() {
    // Scores on the logit scale rise with the value, read back within a thousandth,
    // stay far below a won game's however sure the value, and are the value's own near
    // an even position; a search on that scale reports the same value as on a value's
    // scale for the same line, within the rounding.
    let mut last = i32::MIN;
    for k in -100..=100 {
        let v = k as f32 / 100.0;
        let s = score_of(v, true);
        assert!(s > last || (v.abs() > 0.999 && s == last), "{v} {s} {last}");
        last = s;
        assert!(s.abs() < WIN / 10, "{v} {s}");
        if v.abs() < 0.999 {
            assert!((value_of(s, true) - v).abs() < 1e-3, "{v} {s}");
        }
        assert_eq!(
            value_of(score_of(v, false), false),
            (v * 1000.0).round() / 1000.0
        );
    }
    assert_eq!(score_of(0.01, true), score_of(0.01, false));
    let s = Ataxx::standard();
    let value = |logit| {
        let mut agent = player(
            &s,
            3,
            Pruning {
                logit,
                ..Pruning::NONE
            },
        );
        let a = agent.select(&s, &Limits::default()).unwrap();
        match agent.last_search().unwrap().score {
            contagion::agents::Score::Cp(cp) => (a, cp),
            other => panic!("{other:?}"),
        }
    };
    let ((a, v), (b, w)) = (value(false), value(true));
    assert_eq!(a, b);
    assert!((v - w).abs() <= 2, "{v} {w}");
}

#[test]
fn singular_extensions_are_for_games_of_two() {
    // In Chexers' paranoid search (three players) they lost heavily, so there the
    // search with them is the search without them: the same move and the same nodes.
    let s = Chexers::new();
    let run = |singular| {
        let mut agent = player(
            &s,
            7,
            Pruning {
                singular,
                ..Pruning::DEFAULT
            },
        );
        let a = agent.select(&s, &Limits::default()).unwrap();
        (a, agent.last_search().unwrap().nodes)
    };
    assert_eq!(run(20), run(0));
}

#[test]
fn each_pruning_searches_fewer_nodes_to_the_same_depth() {
    // From the start, to depth 6: every pruning visits fewer nodes than the full-width
    // search, and each still completes the depth with a legal move. Internal iterative
    // reductions alone are held to the depth only: they move depth between iterations
    // (a node the table knows nothing of is searched shallower, then deeper in the next
    // iteration) rather than cut it.
    let s = Ataxx::standard();
    let nodes = |pruning| {
        let mut agent = player(&s, 6, pruning);
        let a = agent.select(&s, &Limits::default()).unwrap();
        assert!(s.is_legal(a), "{pruning:?}");
        let info = agent.last_search().unwrap();
        assert_eq!(info.depth, 6, "{pruning:?}");
        info.nodes
    };
    let full = nodes(Pruning::NONE);
    for pruning in prunings().into_iter().filter(|&p| p != Pruning::NONE) {
        let n = nodes(pruning);
        let cuts = Pruning {
            iterative: 0,
            ..pruning
        } != Pruning::NONE;
        assert!(
            !cuts || n < full,
            "{pruning:?}: {n} nodes, full width {full}"
        );
    }
}

#[test]
fn bitboard_features_equal_the_encoding_s() {
    let mut rng = Rng::new(21);
    let mut moves = Vec::new();
    let starts = [
        Ataxx::standard(),
        Ataxx::custom("x4o/1-2-1/6/6/1-2-1/o4x x 0 1", true).unwrap(),
        Ataxx::custom("x3o/5/2-2/5/o3x o 0 1", false).unwrap(),
    ];
    let mut checked = 0;
    for start in starts {
        for _ in 0..20 {
            let mut s = start;
            while s.outcome().is_none() {
                let bits = contagion::games::ataxx::bits::Bits::new(&s).unwrap();
                let mut got = features::Features::default();
                contagion::games::Searchable::features(&bits, &mut Vec::new(), &mut got);
                assert_eq!(got, features::set_of(&s), "{}", s.to_notation());
                for set in [FeatureSet::Tuples, FeatureSet::Windows] {
                    assert_eq!(set.set_of(&bits), set.set_of(&s), "{}", s.to_notation());
                }
                // Each seat's view, as the perspective form reads them.
                let views = FeatureSet::Windows.views_of(&bits, 2);
                assert_eq!(views, FeatureSet::Windows.views_of(&s, 2));
                assert_eq!(views[0], FeatureSet::Windows.views_of(&s, 1)[0]);
                if let Some(passed) = contagion::games::Searchable::null_move(&bits) {
                    let theirs = FeatureSet::Windows.views_of(&passed, 1);
                    assert_eq!(
                        views[1], theirs[0],
                        "the other seat's view: its own to move"
                    );
                }
                // The windows alone: one pattern a window, each within its window's.
                let windows: Vec<u32> = FeatureSet::Windows.set_of(&s).iter().collect();
                let side = s.encoding_shape().width;
                assert_eq!(
                    windows.len(),
                    (side - 1) * (side - 1),
                    "{}",
                    s.to_notation()
                );
                assert!(windows.iter().enumerate().all(|(w, &f)| f / 81 == w as u32));
                checked += 1;
                s.legal_actions(&mut moves);
                s.apply(moves[rng.below(moves.len())]).unwrap();
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

/// An evaluation that finds every position even.
struct Even;

impl<G> Evaluation<G> for Even {
    fn enter(&mut self, _ply: usize, _state: &G) {}

    fn values(&mut self, _ply: usize) -> [f32; contagion::games::MAX_PLAYERS] {
        [0.0; contagion::games::MAX_PLAYERS]
    }
}

#[test]
fn a_prior_orders_the_root_s_moves() {
    // Every move scores the same, so the search keeps the first it searched: a prior
    // that ranks a jump highest makes it the move, where the search's own order (pieces
    // gained) puts a clone first; the prior only orders the plies `pol` names.
    let s = Ataxx::standard();
    let mut moves = Vec::new();
    s.legal_actions(&mut moves);
    let jump = *moves.iter().find(|&&a| s.is_quiet(a)).unwrap();
    let mut logits = vec![0.0; s.action_space()];
    logits[jump as usize] = 5.0;
    let best = |plies: u8| {
        let mut pvs: Pvs<Ataxx> = Pvs::new(1);
        pvs.pruning = Pruning {
            prior: plies,
            ..Pruning::DEFAULT
        };
        pvs.set_prior([(s.hash(), logits.clone())].into());
        let limits = PvsLimits {
            depth: Some(1),
            ..Default::default()
        };
        pvs.search(&s, &mut Even, limits).unwrap().best
    };
    assert_eq!(best(1), jump);
    assert!(!s.is_quiet(best(0)), "{}", s.action_to_string(best(0)));
}
