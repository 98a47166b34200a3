//! The conformance kit: one call that holds any [`Game`] to the trait's contract, for
//! the built-in games and for a game written outside this crate alike.
//!
//! [`Conformance::check`] plays seeded random games and, at every position, checks the
//! legal moves (ascending, in range, agreeing with `is_legal` and with `apply`: every
//! listed move applies, an unlisted one is refused with a reason and leaves the state
//! as it was), the notation of the position and of every move played (round trips),
//! equal states hashing equal, and that a game ends within its ply limit with values in
//! `[-1, 1]` (summing to zero with two players) and no moves left. On a sample of
//! positions it also checks that `is_legal` agrees with the list over the whole action
//! space, perft from there by `legal_actions` against perft by `is_legal` over the action
//! space, every symmetry (legal moves onto legal moves, commuting with `apply`, the
//! encoding onto an encoding with the same values per plane), and the encoding's shape
//! and values; and it feeds mutated notation to both parsers, which must answer without
//! panicking. The first broken rule is returned as a [`Failure`] naming its [`Rule`].

use std::panic::{AssertUnwindSafe, catch_unwind};

use super::{Action, Game, hot_entries};
use crate::rng::Rng;

/// A rule of the [`Game`] contract the kit checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `legal_actions` is ascending, without duplicates, within the action space, and
    /// empty exactly when the game is over.
    LegalList,
    /// `is_legal` agrees with `legal_actions`.
    IsLegal,
    /// Every listed move applies, and advances the ply by one.
    LegalApplies,
    /// A move not listed is refused, with a reason, and leaves the state unchanged.
    IllegalRefused,
    /// `parse_position(to_notation())` gives the position back.
    PositionNotation,
    /// `parse_action(action_to_string(a))` gives the move back.
    MoveNotation,
    /// Equal states hash equal.
    Hash,
    /// Perft by `legal_actions` and by `is_legal` over the action space agree.
    Perft,
    /// Each symmetry maps legal moves onto legal moves and commutes with `apply`.
    Symmetry,
    /// The encoding fills its shape with finite values, and a symmetry maps it onto one
    /// with the same values in each plane.
    Encoding,
    /// `hot_inputs` names each entry of the encoding at least `FEATURE_ON`, once, and
    /// nothing else.
    HotInputs,
    /// Random games end within `max_plies`.
    PlyLimit,
    /// A finished game's values lie in `[-1, 1]`, and sum to zero with two players.
    Outcome,
    /// The notation parsers answer any text without panicking.
    ParserPanic,
    /// `score_after`, where the game gives it, is the `score_vector` of the position
    /// the move makes.
    ScoreAfter,
    /// `gain_after`, where the game gives it, orders two moves as the mover's shares
    /// of the positions they make do: the higher share, the higher gain.
    GainAfter,
    /// `legal_gains`, where the game gives it, lists `legal_actions` in its order,
    /// each move with its `gain_after`.
    LegalGains,
}

/// A broken rule: which, where (the position's notation) and what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The rule broken.
    pub rule: Rule,
    /// The position, in the game's notation.
    pub at: String,
    /// What was seen.
    pub detail: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} broken at {}: {}", self.rule, self.at, self.detail)
    }
}

impl std::error::Error for Failure {}

/// What a passing check covered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games played to their end.
    pub games: usize,
    /// Positions checked.
    pub positions: usize,
    /// Positions given the fuller checks (perft, symmetries, the whole action space).
    pub sampled: usize,
}

/// How much the kit plays and checks.
#[derive(Debug, Clone, Copy)]
pub struct Conformance {
    /// Random games played to their end.
    pub games: usize,
    /// Fixes every random choice.
    pub seed: u64,
    /// One position in this many gets the fuller checks.
    pub sample_every: usize,
    /// Perft depth on sampled positions (0: none).
    pub perft_depth: u32,
    /// Mutated notation strings fed to the parsers per sampled position.
    pub fuzz: usize,
}

impl Default for Conformance {
    fn default() -> Self {
        Conformance {
            games: 20,
            seed: 1,
            sample_every: 40,
            perft_depth: 2,
            fuzz: 20,
        }
    }
}

fn fail<G: Game>(rule: Rule, s: &G, detail: impl Into<String>) -> Failure {
    Failure {
        rule,
        at: s.to_notation(),
        detail: detail.into(),
    }
}

fn ensure<G: Game>(
    ok: bool,
    rule: Rule,
    s: &G,
    detail: impl FnOnce() -> String,
) -> Result<(), Failure> {
    if ok {
        Ok(())
    } else {
        Err(fail(rule, s, detail()))
    }
}

impl Conformance {
    /// Holds the game that starts at `start` to the contract.
    pub fn check<G: Game>(&self, start: &G) -> Result<Summary, Failure> {
        self.check_with(start, |_, _, _| {})
    }

    /// [`Conformance::check`], calling `each(before, action, after)` for every move
    /// played, for a game's own properties.
    pub fn check_with<G: Game>(
        &self,
        start: &G,
        mut each: impl FnMut(&G, Action, &G),
    ) -> Result<Summary, Failure> {
        let mut rng = Rng::new(self.seed);
        let mut summary = Summary::default();
        let mut legal = Vec::new();
        for _ in 0..self.games {
            let mut state = start.clone();
            let mut plies = 0u32;
            while state.outcome().is_none() {
                state.legal_actions(&mut legal);
                self.position(&state, &legal, &mut rng)?;
                summary.positions += 1;
                if rng.below(self.sample_every.max(1)) == 0 {
                    self.sampled(&state, &legal, &mut rng)?;
                    summary.sampled += 1;
                }
                let a = legal[rng.below(legal.len())];
                let before = state.clone();
                state.apply(a).map_err(|e| {
                    fail(
                        Rule::LegalApplies,
                        &before,
                        format!("{}: {e}", before.action_to_string(a)),
                    )
                })?;
                ensure(
                    state.ply() == before.ply() + 1,
                    Rule::LegalApplies,
                    &before,
                    || format!("ply {} after {}", state.ply(), before.ply()),
                )?;
                each(&before, a, &state);
                plies += 1;
                ensure(plies <= state.max_plies(), Rule::PlyLimit, &state, || {
                    format!(
                        "still going after {plies} plies, the limit is {}",
                        state.max_plies()
                    )
                })?;
            }
            self.finished(&state, &mut legal)?;
            summary.games += 1;
        }
        Ok(summary)
    }

    /// The checks at every live position.
    fn position<G: Game>(&self, s: &G, legal: &[Action], rng: &mut Rng) -> Result<(), Failure> {
        ensure(!legal.is_empty(), Rule::LegalList, s, || {
            "a live position has no moves".into()
        })?;
        ensure(
            legal.windows(2).all(|w| w[0] < w[1]),
            Rule::LegalList,
            s,
            || "not ascending, or a move listed twice".into(),
        )?;
        ensure(
            legal.iter().all(|&a| (a as usize) < s.action_space()),
            Rule::LegalList,
            s,
            || format!("a move outside the action space of {}", s.action_space()),
        )?;
        if let Some(&a) = legal.iter().find(|&&a| !s.is_legal(a)) {
            return Err(fail(
                Rule::IsLegal,
                s,
                format!("{} listed but not is_legal", s.action_to_string(a)),
            ));
        }
        match s.parse_position(&s.to_notation()) {
            Ok(back) if back == *s => {}
            Ok(back) => {
                return Err(fail(
                    Rule::PositionNotation,
                    s,
                    format!("read back as {}", back.to_notation()),
                ));
            }
            Err(e) => return Err(fail(Rule::PositionNotation, s, e.to_string())),
        }
        let copy = s.clone();
        ensure(copy.hash() == s.hash(), Rule::Hash, s, || {
            "a copy hashes differently".into()
        })?;
        let a = legal[rng.below(legal.len())];
        let text = s.action_to_string(a);
        ensure(
            s.parse_action(&text) == Ok(a),
            Rule::MoveNotation,
            s,
            || format!("'{text}' reads back as {:?}", s.parse_action(&text)),
        )?;
        // The score vector of the position a move makes.
        let score_of = |m: Action| {
            let mut child = s.clone();
            child.apply(m).ok().and_then(|()| child.score_vector())
        };
        if let Some(score) = s.score_after(a) {
            let after = score_of(a);
            ensure(after == Some(score), Rule::ScoreAfter, s, || {
                format!("score_after({text}) is {score:?}, the move makes {after:?}")
            })?;
        }
        let b = legal[rng.below(legal.len())];
        if let (Some(gain_a), Some(gain_b)) = (s.gain_after(a), s.gain_after(b)) {
            let share = |m: Action| score_of(m).map_or(0.0, |o| o.value(s.to_move()));
            let (share_a, share_b) = (share(a), share(b));
            let agree = |x: f32, y: f32, gx: i32, gy: i32| x <= y || gx > gy;
            ensure(
                agree(share_a, share_b, gain_a, gain_b) && agree(share_b, share_a, gain_b, gain_a),
                Rule::GainAfter,
                s,
                || {
                    let other = s.action_to_string(b);
                    format!(
                        "{text} gains {gain_a} for a share of {share_a}, {other} {gain_b} for {share_b}"
                    )
                },
            )?;
        }
        let mut gained = Vec::new();
        if s.legal_gains(|m, gain| gained.push((m, gain))) {
            let asked: Vec<_> = (legal.iter())
                .map(|&m| (m, s.gain_after(m).unwrap_or(0)))
                .collect();
            let wrong = (0..gained.len().max(asked.len())).find(|&i| gained.get(i) != asked.get(i));
            if let Some(i) = wrong {
                let name = |p: Option<&(Action, i32)>| {
                    p.map_or("nothing".into(), |&(m, g)| {
                        format!("{} gaining {g}", s.action_to_string(m))
                    })
                };
                return Err(fail(
                    Rule::LegalGains,
                    s,
                    format!(
                        "move {i} listed with its gain is {}, legal_actions and gain_after say {}",
                        name(gained.get(i)),
                        name(asked.get(i))
                    ),
                ));
            }
        }
        // An unlisted move is refused, says why, and changes nothing.
        let mut unlisted =
            (0..s.action_space() as Action).filter(|a| legal.binary_search(a).is_err());
        // The list was checked above: in range, ascending, no move twice.
        let count = s.action_space() - legal.len();
        if let Some(bad) = unlisted.nth(rng.below(count.max(1))) {
            let mut x = s.clone();
            ensure(x.apply(bad).is_err(), Rule::IllegalRefused, s, || {
                format!("action {bad} applied though not listed")
            })?;
            ensure(x == *s, Rule::IllegalRefused, s, || {
                format!("refusing action {bad} changed the state")
            })?;
            ensure(
                !s.why_illegal(bad).is_empty(),
                Rule::IllegalRefused,
                s,
                || format!("no reason for action {bad}"),
            )?;
        }
        Ok(())
    }

    /// The fuller checks on a sampled position.
    fn sampled<G: Game>(&self, s: &G, legal: &[Action], rng: &mut Rng) -> Result<(), Failure> {
        let all = (0..s.action_space() as Action)
            .filter(|&a| s.is_legal(a))
            .count();
        ensure(all == legal.len(), Rule::IsLegal, s, || {
            format!(
                "is_legal accepts {all} actions, legal_actions lists {}",
                legal.len()
            )
        })?;
        if self.perft_depth > 0 {
            let by_list =
                perft_by_list(s, self.perft_depth).map_err(|e| fail(Rule::LegalApplies, s, e))?;
            let by_scan =
                perft_by_scan(s, self.perft_depth).map_err(|e| fail(Rule::Perft, s, e))?;
            ensure(by_list == by_scan, Rule::Perft, s, || {
                format!(
                    "perft({}) {by_list} by legal_actions, {by_scan} by is_legal",
                    self.perft_depth
                )
            })?;
        }
        let shape = s.encoding_shape();
        let mut planes = vec![f32::NAN; shape.len()];
        s.encode(&mut planes);
        ensure(
            planes.iter().all(|v| v.is_finite()),
            Rule::Encoding,
            s,
            || "a value left unwritten or not finite".into(),
        )?;
        let want: Vec<u32> = hot_entries(&planes).collect();
        let mut named = Vec::new();
        s.hot_inputs(&mut Vec::new(), &mut named);
        named.sort_unstable();
        ensure(named == want, Rule::HotInputs, s, || {
            format!("hot_inputs names {named:?}, the encoding sets {want:?}")
        })?;
        let sym = rng.below(s.num_symmetries());
        self.symmetry(s, legal, sym, &planes, rng)?;
        self.fuzz(s, rng)
    }

    /// Symmetry `sym` maps legal moves, `apply` and the encoding as the contract says.
    fn symmetry<G: Game>(
        &self,
        s: &G,
        legal: &[Action],
        sym: usize,
        planes: &[f32],
        rng: &mut Rng,
    ) -> Result<(), Failure> {
        let image = s.transform(sym);
        let mut image_legal = Vec::new();
        image.legal_actions(&mut image_legal);
        let mut mapped: Vec<Action> = legal.iter().map(|&a| s.transform_action(a, sym)).collect();
        mapped.sort_unstable();
        if let Some(&a) = legal
            .iter()
            .find(|&&a| !image.is_legal(s.transform_action(a, sym)))
        {
            return Err(fail(
                Rule::Symmetry,
                s,
                format!(
                    "symmetry {sym} maps {} to an illegal move",
                    s.action_to_string(a)
                ),
            ));
        }
        ensure(mapped == image_legal, Rule::Symmetry, s, || {
            format!(
                "symmetry {sym}: {} legal moves map onto {} of the image's",
                legal.len(),
                image_legal.len()
            )
        })?;
        let a = legal[rng.below(legal.len())];
        let (mut x, mut y) = (s.clone(), image.clone());
        x.apply(a)
            .map_err(|e| fail(Rule::LegalApplies, s, e.to_string()))?;
        y.apply(s.transform_action(a, sym))
            .map_err(|e| fail(Rule::Symmetry, s, format!("symmetry {sym}: {e}")))?;
        ensure(
            x.transform(sym) == y && x.outcome() == y.outcome(),
            Rule::Symmetry,
            s,
            || {
                format!(
                    "symmetry {sym} does not commute with {}",
                    s.action_to_string(a)
                )
            },
        )?;
        let mut image_planes = vec![f32::NAN; planes.len()];
        image.encode(&mut image_planes);
        let area = s.encoding_shape().height * s.encoding_shape().width;
        for (p, (a, b)) in planes
            .chunks(area)
            .zip(image_planes.chunks(area))
            .enumerate()
        {
            let (mut a, mut b) = (a.to_vec(), b.to_vec());
            a.sort_by(f32::total_cmp);
            b.sort_by(f32::total_cmp);
            ensure(a == b, Rule::Encoding, s, || {
                format!("symmetry {sym} changes the values of plane {p}")
            })?;
        }
        Ok(())
    }

    /// Mutated notation into both parsers: an answer, never a panic.
    fn fuzz<G: Game>(&self, s: &G, rng: &mut Rng) -> Result<(), Failure> {
        let position = s.to_notation();
        let mut legal = Vec::new();
        s.legal_actions(&mut legal);
        let pieces = [
            "",
            " ",
            "0",
            "9",
            "-",
            "/",
            "(",
            ")",
            ",",
            "x",
            "é",
            "99999999999",
            "\u{0}",
        ];
        for _ in 0..self.fuzz {
            let seed = if rng.below(2) == 0 {
                position.clone()
            } else {
                s.action_to_string(legal[rng.below(legal.len())])
            };
            let mut chars: Vec<char> = seed.chars().collect();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(chars.len() + 1);
                match rng.below(3) {
                    0 => chars
                        .splice(at..at, pieces[rng.below(pieces.len())].chars())
                        .for_each(drop),
                    1 if at < chars.len() => {
                        chars.remove(at);
                    }
                    _ => chars.truncate(at),
                }
            }
            let text: String = chars.into_iter().collect();
            let answered = catch_unwind(AssertUnwindSafe(|| {
                let _ = s.parse_position(&text);
                let _ = s.parse_action(&text);
                let _ = s.parse_legal_action(&text);
            }));
            ensure(answered.is_ok(), Rule::ParserPanic, s, || {
                format!("a parser panicked on {text:?}")
            })?;
        }
        Ok(())
    }

    /// The checks on a finished game.
    fn finished<G: Game>(&self, s: &G, legal: &mut Vec<Action>) -> Result<(), Failure> {
        s.legal_actions(legal);
        ensure(legal.is_empty(), Rule::LegalList, s, || {
            format!("a finished game lists {} moves", legal.len())
        })?;
        let outcome = s.outcome().expect("finished");
        let values = &outcome.0[..s.num_players()];
        ensure(
            values.iter().all(|v| (-1.0..=1.0).contains(v)),
            Rule::Outcome,
            s,
            || format!("values {values:?}"),
        )?;
        if s.num_players() == 2 {
            ensure(
                (values[0] + values[1]).abs() < 1e-6,
                Rule::Outcome,
                s,
                || format!("two players' values {values:?} do not sum to zero"),
            )?;
        }
        let mut x = s.clone();
        ensure(
            x.apply(0).is_err() && x == *s,
            Rule::IllegalRefused,
            s,
            || "a move applied after the end".into(),
        )
    }
}

/// Perft by `legal_actions` (as [`super::perft::perft`] counts it); an error names a
/// listed move `apply` refuses.
fn perft_by_list<G: Game>(s: &G, depth: u32) -> Result<u64, String> {
    if depth == 0 {
        return Ok(1);
    }
    let mut legal = Vec::new();
    s.legal_actions(&mut legal);
    let mut total = 0;
    for a in legal {
        let mut child = s.clone();
        child
            .apply(a)
            .map_err(|e| format!("{} listed but refused: {e}", s.action_to_string(a)))?;
        total += perft_by_list(&child, depth - 1)?;
    }
    Ok(total)
}

/// Perft that finds the moves by asking `is_legal` of every action; an error names a
/// move `is_legal` accepts and `apply` refuses.
fn perft_by_scan<G: Game>(s: &G, depth: u32) -> Result<u64, String> {
    if depth == 0 || s.outcome().is_some() {
        return Ok(u64::from(depth == 0));
    }
    let mut total = 0;
    for a in (0..s.action_space() as Action).filter(|&a| s.is_legal(a)) {
        let mut child = s.clone();
        child
            .apply(a)
            .map_err(|e| format!("{} is_legal but refused: {e}", s.action_to_string(a)))?;
        total += perft_by_scan(&child, depth - 1)?;
    }
    Ok(total)
}
