//! The Ataxx rules on bitboards (the endgame solver's positions) against the game's own
//! state: libataxx's perft figures, and every legal move, position and result over
//! random games on boards of side 4 to 8, with and without passes and blockers.

use crate::common;

use contagion::games::ataxx::bits::Bits;
use contagion::games::ataxx::{Ataxx, Rules};
use contagion::games::{Action, Game};
use contagion::rng::Rng;

fn sorted_legal(b: &Bits) -> Vec<Action> {
    let mut out = Vec::new();
    b.legal_actions(&mut out);
    out.sort_unstable();
    out
}

fn perft(b: &Bits, depth: u32) -> u64 {
    let legal = sorted_legal(b);
    if depth == 1 {
        return legal.len() as u64;
    }
    legal
        .iter()
        .map(|&a| {
            let mut child = *b;
            child.apply_unchecked(a);
            perft(&child, depth - 1)
        })
        .sum()
}

#[test]
fn bitboard_perft_matches_libataxx() {
    let cases: [(&str, &[u64]); 3] = [
        ("x5o/7/7/7/7/7/o5x x 0 1", &[16, 256, 6460, 155888]),
        ("x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1", &[14, 196, 4184, 86528]),
        (
            "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1",
            &[1, 75, 249, 14270],
        ),
    ];
    for (fen, expected) in cases {
        let board = Bits::new(&Ataxx::standard().parse_position(fen).unwrap()).unwrap();
        for (depth, &n) in expected.iter().enumerate() {
            assert_eq!(
                perft(&board, depth as u32 + 1),
                n,
                "{fen} depth {}",
                depth + 1
            );
        }
    }
}

/// Random games from `start` with `rules`, each position held to its bitboard: the
/// legal moves, the pieces, the mover and the result, and the position and the mover's
/// gain in lead after each move.
fn agree(start: &str, rules: Rules, games: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut legal = Vec::new();
    let mut positions = 0;
    for _ in 0..games {
        let mut s = Ataxx::with_rules(start, rules).unwrap();
        loop {
            let b = Bits::new(&s).unwrap();
            let at = s.to_notation();
            s.legal_actions(&mut legal);
            assert_eq!(sorted_legal(&b), legal, "legal moves of {at}");
            assert_eq!(b.outcome(), s.outcome(), "the result of {at}");
            assert_eq!(b.to_move(), Game::to_move(&s), "{at}");
            assert_eq!(
                [b.pieces(0), b.pieces(1)],
                [s.pieces(0), s.pieces(1)],
                "{at}"
            );
            assert_eq!(b.empties(), s.empties(), "{at}");
            positions += 1;
            if legal.is_empty() {
                break;
            }
            // The gains made with the moves are those asked move by move, in its order.
            let (mut listed, mut gained) = (Vec::new(), Vec::new());
            b.moves(&mut listed);
            b.moves_gains(|a, gain| gained.push((a, gain)));
            let asked: Vec<_> = listed.iter().map(|&a| (a, b.gain(a))).collect();
            assert_eq!(gained, asked, "the gains listed at {at}");
            for &a in &legal {
                let (mut child, mut bits) = (s, b);
                child.apply(a).unwrap();
                bits.apply_unchecked(a);
                assert_eq!(Bits::new(&child), Some(bits), "{at} then action {a}");
                let lead =
                    |x: &Ataxx| x.pieces(b.to_move()) as i32 - x.pieces(1 - b.to_move()) as i32;
                assert_eq!(
                    b.gain(a),
                    lead(&child) - lead(&s),
                    "the gain of {a} at {at}"
                );
            }
            s.apply(rng.choose(&legal).unwrap()).unwrap();
        }
    }
    assert!(positions > games * 5, "{positions} positions from {start}");
}

#[test]
fn bitboards_keep_the_rules_over_random_games() {
    let rules = common::ataxx_rules;
    agree("x5o/7/7/7/7/7/o5x x 0 1", rules(7, true, 100), 30, 1);
    agree("x5o/7/2-1-2/7/2-1-2/7/o5x o 0 1", rules(7, true, 6), 30, 2);
    agree("x5o/7/7/7/7/7/o5x x 0 1", rules(7, false, 100), 30, 3);
    agree("x2o/4/4/o2x x 0 1", rules(4, true, 3), 60, 4);
    agree("x1-o/4/4/o-1x o 0 1", rules(4, false, 3), 60, 5);
    agree("x3o/5/2-2/5/o3x x 0 1", rules(5, true, 10), 40, 6);
    agree("x6o/8/8/3--3/8/8/8/o6x x 0 1", rules(8, true, 100), 20, 7);
}

#[test]
fn boards_wider_than_eight_stay_on_the_game_rules() {
    assert_eq!(Bits::new(&Ataxx::virus()), None);
    assert!(Bits::new(&Ataxx::standard()).is_some());
}
