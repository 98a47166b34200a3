//! The quiescence search: Infexion's quiet and tactical moves held to the powers after
//! them, the search held to full-width minimax with the same leaves, and a game that
//! names no tactical move searched as without it.

use contagion::games::ataxx::Ataxx;
use contagion::games::infexion::Infexion;
use contagion::games::{Action, Game};
use contagion::rng::Rng;
use contagion::search::pvs::{Evaluation, Pruning, Pvs, PvsLimits, WIN, score_of};

#[test]
fn infexion_s_quiet_moves_are_those_that_take_nothing() {
    // Over random games, every legal move: quiet exactly when the opponent's power after
    // it, played, is what it was; the others are the moves a quiescence search plays.
    let mut rng = Rng::new(84);
    let (mut quiet, mut loud) = (0, 0);
    let mut moves = Vec::new();
    for _ in 0..10 {
        let mut s = Infexion::new();
        while s.outcome().is_none() {
            s.legal_actions(&mut moves);
            let theirs = 1 - s.to_move();
            for &a in &moves {
                let mut after = s;
                after.apply(a).unwrap();
                let expected = after.power(theirs) == s.power(theirs);
                assert_eq!(s.is_quiet(a), expected, "{}", s.action_to_string(a));
                if expected { quiet += 1 } else { loud += 1 }
            }
            // The moves a quiescence search plays on with: the others, with their gains.
            let mut tactical = Vec::new();
            s.tactical_gains(|a, gain| tactical.push((a, gain)));
            let others = moves.iter().filter(|&&a| !s.is_quiet(a));
            let expected: Vec<_> = others.map(|&a| (a, s.gain_after(a).unwrap())).collect();
            assert_eq!(tactical, expected, "{}", s.to_notation());
            s.apply(moves[rng.below(moves.len())]).unwrap();
        }
    }
    assert!(quiet > 100 && loud > 100, "{quiet} quiet, {loud} not");
}

/// An evaluation by the game's own score: each player's share of the power.
struct Share(Vec<[f32; contagion::games::MAX_PLAYERS]>);

impl<G: contagion::games::Searchable> Evaluation<G> for Share {
    fn enter(&mut self, ply: usize, state: &G) {
        use contagion::games::Searchable;
        let mover = Searchable::to_move(state);
        self.0[ply] = [state.share(mover), state.share(1 - mover), 0.0];
    }

    fn values(&mut self, ply: usize) -> [f32; contagion::games::MAX_PLAYERS] {
        self.0[ply]
    }
}

/// Full-width negamax to `depth`, then at each leaf the better of its own score and its
/// captures' for `left` plies more: what the quiescence search must find.
fn quiescent_minimax(s: &Infexion, depth: i32, left: i32, ply: i32) -> i32 {
    if let Some(o) = s.outcome() {
        let v = o.value(s.to_move());
        return if v > 0.0 {
            WIN - ply
        } else if v < 0.0 {
            ply - WIN
        } else {
            0
        };
    }
    let mut moves = Vec::new();
    s.legal_actions(&mut moves);
    let child = |a: Action, d: i32, l: i32| {
        let mut c = *s;
        c.apply(a).unwrap();
        -quiescent_minimax(&c, d, l, ply + 1)
    };
    if depth > 0 {
        return moves
            .iter()
            .map(|&a| child(a, depth - 1, left))
            .max()
            .unwrap();
    }
    let stand = score_of(contagion::games::Searchable::share(s, s.to_move()), false);
    let mut loud = Vec::new();
    if left > 0 {
        s.tactical_gains(|a, _| loud.push(a));
    }
    loud.into_iter()
        .map(|a| child(a, 0, left - 1))
        .fold(stand, i32::max)
}

#[test]
fn quiescence_search_finds_the_captures_minimax() {
    // In Infexion positions with captures to play, searched with nothing pruned: the
    // root's score with `qs=K` is full-width minimax's where each leaf may stand on its
    // share of the power or capture on, K plies deep; with `qs=0`, the leaves' own. And
    // in Ataxx, which calls no move tactical, `qs` changes nothing.
    let mut rng = Rng::new(85);
    let mut moves = Vec::new();
    let mut checked = 0;
    while checked < 6 {
        let mut s = Infexion::new();
        for _ in 0..20 + rng.below(30) {
            s.legal_actions(&mut moves);
            s.apply(moves[rng.below(moves.len())]).unwrap();
        }
        s.legal_actions(&mut moves);
        if s.outcome().is_some() || moves.iter().all(|&a| s.is_quiet(a)) {
            continue;
        }
        for (depth, qs) in [(1, 0), (1, 3), (2, 2)] {
            let mut pvs: Pvs<Infexion> = Pvs::new(1);
            pvs.pruning = Pruning {
                quiesce: qs,
                ..Pruning::NONE
            };
            let limits = PvsLimits {
                depth: Some(depth),
                ..Default::default()
            };
            let mut eval = Share(vec![[0.0; 3]; 128]);
            let found = pvs.search(&s, &mut eval, limits).unwrap();
            let expected = quiescent_minimax(&s, depth as i32, qs as i32, 0);
            assert_eq!(
                found.score,
                expected,
                "{} depth {depth} qs {qs}",
                s.to_notation()
            );
        }
        checked += 1;
    }
    let search = |quiesce| {
        let mut pvs: Pvs<Ataxx> = Pvs::new(1);
        pvs.pruning = Pruning {
            quiesce,
            ..Pruning::DEFAULT
        };
        let limits = PvsLimits {
            depth: Some(5),
            ..Default::default()
        };
        let mut eval = Share(vec![[0.0; 3]; 128]);
        let found = pvs.search(&Ataxx::standard(), &mut eval, limits).unwrap();
        (found.score, found.nodes)
    };
    assert_eq!(search(0), search(8));
}
