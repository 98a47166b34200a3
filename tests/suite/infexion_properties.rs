//! Property tests over thousands of seeded random Infexion games: the shared conformance
//! suite, power conservation per action type, stack limits, the incremental hash, and
//! the 588 symmetries.

use crate::common;

use contagion::games::infexion::board::{cell_owner, cell_power};
use contagion::games::infexion::geometry::{CELLS, NUM_SYMMETRIES, RAYS};
use contagion::games::infexion::{Board, MAX_TURNS, Move};
use contagion::games::{Game, Outcome};
use contagion::rng::Rng;

#[test]
fn random_games_keep_every_invariant() {
    let (mut spawns, mut spreads, mut removals, mut ended_early) = (0, 0, 0, 0);
    common::conformance(&Board::new(), 2000, 1, |before, action, after| {
        assert_eq!(after.hash(), after.recompute_hash(), "incremental hash");
        for c in 0..CELLS {
            let code = after.cell(c);
            assert!(
                code == 0 || (1..=6).contains(&cell_power(code)),
                "stack power 1-6"
            );
        }
        assert!(after.total_power() <= 49);
        let me = before.to_move();
        match Move::from_index(action).unwrap() {
            Move::Spawn { cell } => {
                spawns += 1;
                assert_eq!(after.power(me), before.power(me) + 1);
                assert_eq!(after.power(1 - me), before.power(1 - me));
                assert_eq!(
                    (cell_owner(after.cell(cell)), cell_power(after.cell(cell))),
                    (me, 1)
                );
            }
            Move::Spread { cell, dir } => {
                spreads += 1;
                let k = cell_power(before.cell(cell)) as usize;
                let targets = &RAYS[cell][dir][..k];
                let removed = targets
                    .iter()
                    .filter(|&&t| cell_power(before.cell(t as usize)) == 6)
                    .count() as u32;
                removals += removed;
                // Every token moves one cell; a removed stack takes itself and the token with it.
                assert_eq!(after.total_power() + 7 * removed, before.total_power());
                assert_eq!(after.cell(cell), 0);
                for &t in targets {
                    let (b, a) = (before.cell(t as usize), after.cell(t as usize));
                    if cell_power(b) == 6 {
                        assert_eq!(a, 0);
                    } else {
                        assert_eq!((cell_owner(a), cell_power(a)), (me, cell_power(b) + 1));
                    }
                }
            }
        }
        if let Some(o) = after.outcome() {
            if after.ply() < MAX_TURNS {
                ended_early += 1;
                assert!(after.power(0) == 0 || after.power(1) == 0);
            }
            let diff = after.power(0) as i32 - after.power(1) as i32;
            let expected = match diff {
                d if d >= 2 => Outcome::win(0, 2),
                d if d <= -2 => Outcome::win(1, 2),
                _ => Outcome::draw(),
            };
            assert_eq!(o, expected);
        }
    });
    // The random games exercised every part of the rules.
    assert!(
        spawns > 10_000 && spreads > 100_000,
        "{spawns} spawns, {spreads} spreads"
    );
    assert!(removals > 1000, "{removals} stacks removed");
    assert!(ended_early >= 5, "{ended_early} games ended by elimination");
}

#[test]
fn all_588_symmetries_map_legal_moves_to_legal_moves() {
    let mut rng = Rng::new(5);
    let mut legal = Vec::new();
    let mut image_legal = Vec::new();
    let mut state = Board::new();
    let mut checked = 0;
    while checked < 6 {
        if state.outcome().is_some() {
            state = Board::new();
        }
        state.legal_actions(&mut legal);
        if state.ply() % 17 == 16 {
            checked += 1;
            for sym in 0..NUM_SYMMETRIES {
                let image = state.transform(sym);
                assert_eq!(image.hash(), image.recompute_hash());
                assert_eq!(
                    (image.power(0), image.power(1)),
                    (state.power(0), state.power(1))
                );
                image.legal_actions(&mut image_legal);
                let mut mapped: Vec<u16> = legal
                    .iter()
                    .map(|&a| state.transform_action(a, sym))
                    .collect();
                mapped.sort_unstable();
                assert_eq!(mapped, image_legal, "symmetry {sym}");
            }
        }
        state.apply(legal[rng.below(legal.len())]).unwrap();
    }
}

#[test]
fn symmetry_zero_is_the_identity_and_images_are_distinct() {
    let b = Board::from_notation("r3b1r24/7/7/3b63/7/7/6r1 b 9").unwrap();
    assert_eq!(b.transform(0), b);
    // This position has no symmetry of its own, so all 588 images differ.
    let mut hashes: Vec<u64> = (0..NUM_SYMMETRIES).map(|s| b.transform(s).hash()).collect();
    hashes.sort_unstable();
    hashes.dedup();
    assert_eq!(hashes.len(), NUM_SYMMETRIES);
}
