//! Shared test helpers: the conformance suite every `Game` must pass.

#![allow(dead_code)]

use contagion::games::{Action, Game};
use contagion::rng::Rng;

/// Plays `games` seeded random games from `start`, checking the `Game` contract at every
/// position, and calls `each(before, action, after)` for every action played.
pub fn conformance<G: Game>(
    start: &G,
    games: usize,
    seed: u64,
    mut each: impl FnMut(&G, Action, &G),
) {
    let mut rng = Rng::new(seed);
    let mut legal = Vec::new();
    let mut mapped = Vec::new();
    let mut sym_legal = Vec::new();
    for game in 0..games {
        let mut state = start.clone();
        while state.outcome().is_none() {
            state.legal_actions(&mut legal);
            assert!(!legal.is_empty(), "a live position has a legal move");
            assert!(
                legal.windows(2).all(|w| w[0] < w[1]),
                "legal actions ascending, no duplicates"
            );
            assert!(legal.iter().all(|&a| (a as usize) < state.action_space()));
            assert!(legal.iter().all(|&a| state.is_legal(a)));
            assert_eq!(
                state.parse_position(&state.to_notation()).as_ref(),
                Ok(&state),
                "notation round trip"
            );

            // A fuller check on a sample of positions: is_legal agrees with the list over
            // the whole action space, and a random symmetry maps legal moves to legal moves.
            if rng.below(40) == 0 {
                let all = (0..state.action_space() as Action)
                    .filter(|&a| state.is_legal(a))
                    .count();
                assert_eq!(all, legal.len());
                let sym = rng.below(state.num_symmetries());
                let image = state.transform(sym);
                assert_eq!(image.outcome(), None);
                image.legal_actions(&mut sym_legal);
                mapped.clear();
                mapped.extend(legal.iter().map(|&a| state.transform_action(a, sym)));
                mapped.sort_unstable();
                assert_eq!(
                    mapped, sym_legal,
                    "symmetry {sym} maps legal moves onto legal moves"
                );
                let a = legal[rng.below(legal.len())];
                let mut x = state.clone();
                x.apply(a).unwrap();
                let mut y = image.clone();
                y.apply(state.transform_action(a, sym)).unwrap();
                assert_eq!(x.transform(sym), y, "symmetry {sym} commutes with apply");
                assert_eq!(x.outcome(), y.outcome());
                let mut planes = vec![0.0; state.encoding_shape().len()];
                state.encode(&mut planes);
                assert!(planes.iter().all(|v| v.is_finite()));
            }

            let a = legal[rng.below(legal.len())];
            assert_eq!(state.parse_action(&state.action_to_string(a)), Ok(a));
            let before = state.clone();
            state.apply(a).unwrap();
            assert_eq!(state.ply(), before.ply() + 1);
            each(&before, a, &state);
        }
        state.legal_actions(&mut legal);
        assert!(
            legal.is_empty(),
            "game {game}: a finished game has no moves"
        );
        assert!(state.apply(0).is_err());
    }
}

/// A random string of `len` pieces drawn from `vocabulary`.
pub fn junk(rng: &mut Rng, vocabulary: &[&str], len: usize) -> String {
    (0..len)
        .map(|_| vocabulary[rng.below(vocabulary.len())])
        .collect()
}

/// `text` with 1–3 random edits: a piece inserted, a character deleted or replaced.
pub fn mutate(rng: &mut Rng, text: &str, vocabulary: &[&str]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(chars.len() + 1);
        let piece: Vec<char> = vocabulary[rng.below(vocabulary.len())].chars().collect();
        match rng.below(3) {
            0 => {
                chars.splice(at..at, piece);
            }
            1 if at < chars.len() => {
                chars.remove(at);
            }
            _ if at < chars.len() => chars[at] = piece[0],
            _ => {}
        }
    }
    chars.into_iter().collect()
}
