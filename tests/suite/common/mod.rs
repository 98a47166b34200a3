//! Shared test helpers: the conformance suite every `Game` must pass, and Ataxx-family
//! rule settings.

#![allow(dead_code)]

use contagion::games::ataxx::Rules;
use contagion::games::conformance::Conformance;
use contagion::games::{Action, Game};
use contagion::rng::Rng;

/// Holds the game that starts at `start` to the `Game` contract with the library's
/// conformance kit over `games` seeded random games, calling `each(before, action, after)`
/// for every action played.
pub fn conformance<G: Game>(start: &G, games: usize, seed: u64, each: impl FnMut(&G, Action, &G)) {
    let kit = Conformance {
        games,
        seed,
        ..Conformance::default()
    };
    if let Err(failure) = kit.check_with(start, each) {
        panic!("{}: {failure}", start.name());
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

/// Ataxx-family rules of side `size`, passes (Ataxx) or not (Virus), and a half-move
/// limit, with no symmetry declared.
pub fn ataxx_rules(size: u8, pass: bool, halfmove_limit: u16) -> Rules {
    Rules {
        ataxx: pass,
        size,
        pass,
        halfmove_limit,
        symmetries: 1,
    }
}
