//! The conformance kit finds a planted bug of every kind it checks: a game that is
//! standard Ataxx but for one broken rule fails with that rule named, and the real game
//! passes.

use std::sync::atomic::{AtomicU64, Ordering};

use contagion::games::ataxx::Ataxx;
use contagion::games::conformance::{Conformance, Rule};
use contagion::games::{Action, EncodingShape, FeatureSink, Game, GameError, Outcome};

/// One way to break Ataxx.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Bug {
    None,
    /// `legal_actions` lists its moves in descending order.
    Unsorted,
    /// `is_legal` refuses the first listed move.
    IsLegalRefuses,
    /// `is_legal` (and `apply`) accept an action `legal_actions` omits.
    IsLegalExtra,
    /// `apply` refuses the last listed move.
    ApplyRefuses,
    /// `apply` accepts any action, playing the first legal move instead.
    ApplyAccepts,
    /// The notation loses the side to move.
    PositionNotation,
    /// Every move's notation names the first legal move.
    MoveNotation,
    /// The hash of a position changes from call to call.
    Hash,
    /// Symmetries map moves as the identity would while moving the board.
    Symmetry,
    /// The encoding leaves its last plane unwritten.
    Encoding,
    /// The features named directly miss the mover's first piece.
    HotInputs,
    /// A game may last 20 plies.
    PlyLimit,
    /// A win is worth 2.
    Outcome,
    /// The move parser panics on a `/`.
    ParserPanic,
    /// The score after a move is the score before it.
    ScoreAfter,
    /// A move's gain is the negative of the real one.
    GainAfter,
    /// The moves listed with their gains gain one more the last.
    LegalGains,
}

#[derive(Debug, Clone, PartialEq)]
struct Planted {
    game: Ataxx,
    bug: Bug,
}

static CALLS: AtomicU64 = AtomicU64::new(0);

impl Planted {
    fn legal(&self) -> Vec<Action> {
        let mut out = Vec::new();
        self.game.legal_actions(&mut out);
        out
    }

    /// An action `legal_actions` omits that the bug lets through: the first unlisted one.
    fn extra(&self) -> Option<Action> {
        let legal = self.legal();
        (self.game.outcome().is_none())
            .then(|| {
                (0..self.game.action_space() as Action).find(|a| legal.binary_search(a).is_err())
            })
            .flatten()
    }
}

impl Game for Planted {
    type Fast = Self;

    fn name(&self) -> &'static str {
        "planted"
    }
    fn num_players(&self) -> usize {
        2
    }
    fn to_move(&self) -> usize {
        self.game.to_move()
    }
    fn player_name(&self, player: usize) -> &'static str {
        self.game.player_name(player)
    }
    fn action_space(&self) -> usize {
        self.game.action_space()
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.game.legal_actions(out);
        if self.bug == Bug::Unsorted {
            out.reverse();
        }
    }
    fn is_legal(&self, action: Action) -> bool {
        match self.bug {
            Bug::IsLegalRefuses if self.legal().first() == Some(&action) => false,
            Bug::IsLegalExtra if self.extra() == Some(action) => true,
            _ => self.game.is_legal(action),
        }
    }
    fn apply(&mut self, action: Action) -> Result<(), GameError> {
        match self.bug {
            Bug::ApplyRefuses if self.legal().len() > 1 && self.legal().last() == Some(&action) => {
                Err(GameError::IllegalMove("planted".into()))
            }
            Bug::ApplyAccepts if !self.game.is_legal(action) && self.game.outcome().is_none() => {
                let first = self.legal()[0];
                self.game.apply(first)
            }
            Bug::IsLegalExtra if self.extra() == Some(action) => {
                let first = self.legal()[0];
                self.game.apply(first)
            }
            _ => self.game.apply(action),
        }
    }
    fn outcome(&self) -> Option<Outcome> {
        let o = self.game.outcome()?;
        Some(match self.bug {
            Bug::Outcome => Outcome(o.0.map(|v| 2.0 * v)),
            _ => o,
        })
    }
    fn score_vector(&self) -> Option<Outcome> {
        self.game.score_vector()
    }
    fn score_after(&self, action: Action) -> Option<Outcome> {
        match self.bug {
            Bug::ScoreAfter => self.game.score_vector(),
            _ => self.game.score_after(action),
        }
    }
    fn gain_after(&self, action: Action) -> Option<i32> {
        let gain = self.game.gain_after(action)?;
        Some(if self.bug == Bug::GainAfter {
            -gain
        } else {
            gain
        })
    }
    fn legal_gains(&self, mut f: impl FnMut(Action, i32)) -> bool {
        let legal = self.legal();
        self.game.legal_gains(|a, _| {
            let last = Some(&a) == legal.last() && self.bug == Bug::LegalGains;
            f(a, self.gain_after(a).unwrap_or(0) + i32::from(last))
        })
    }
    fn ply(&self) -> u32 {
        self.game.ply()
    }
    fn max_plies(&self) -> u32 {
        if self.bug == Bug::PlyLimit {
            20
        } else {
            self.game.max_plies()
        }
    }
    fn hash(&self) -> u64 {
        match self.bug {
            Bug::Hash => self.game.hash() ^ CALLS.fetch_add(1, Ordering::Relaxed),
            _ => self.game.hash(),
        }
    }
    fn encoding_shape(&self) -> EncodingShape {
        self.game.encoding_shape()
    }
    fn encode(&self, out: &mut [f32]) {
        let shape = self.game.encoding_shape();
        match self.bug {
            Bug::Encoding => {
                let mut full = vec![0.0; shape.len()];
                self.game.encode(&mut full);
                let keep = shape.len() - shape.height * shape.width;
                out[..keep].copy_from_slice(&full[..keep]);
            }
            _ => self.game.encode(out),
        }
    }
    fn hot_inputs(&self, scratch: &mut Vec<f32>, out: &mut dyn FeatureSink) {
        /// Passes on every input but the first.
        struct SkipFirst<'a>(bool, &'a mut dyn FeatureSink);
        impl FeatureSink for SkipFirst<'_> {
            fn clear(&mut self) {
                self.1.clear()
            }
            fn insert(&mut self, i: u32) {
                if !std::mem::take(&mut self.0) {
                    self.1.insert(i)
                }
            }
        }
        let skip = self.bug == Bug::HotInputs;
        self.game.hot_inputs(scratch, &mut SkipFirst(skip, out))
    }
    fn plane_meanings(&self) -> Vec<String> {
        self.game.plane_meanings()
    }
    fn policy_planes(&self) -> usize {
        self.game.policy_planes()
    }
    fn policy_index(&self, action: Action) -> usize {
        self.game.policy_index(action)
    }
    fn num_symmetries(&self) -> usize {
        self.game.num_symmetries()
    }
    fn transform(&self, sym: usize) -> Self {
        Planted {
            game: self.game.transform(sym),
            bug: self.bug,
        }
    }
    fn transform_action(&self, action: Action, sym: usize) -> Action {
        match self.bug {
            Bug::Symmetry => action,
            _ => self.game.transform_action(action, sym),
        }
    }
    fn to_notation(&self) -> String {
        let text = self.game.to_notation();
        match self.bug {
            Bug::PositionNotation => text.replace(" o", " x"),
            _ => text,
        }
    }
    fn parse_position(&self, text: &str) -> Result<Self, GameError> {
        Ok(Planted {
            game: self.game.parse_position(text)?,
            bug: self.bug,
        })
    }
    fn action_to_string(&self, action: Action) -> String {
        match self.bug {
            Bug::MoveNotation if self.game.outcome().is_none() => {
                self.game.action_to_string(self.legal()[0])
            }
            _ => self.game.action_to_string(action),
        }
    }
    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        assert!(
            !(self.bug == Bug::ParserPanic && text.contains('/')),
            "planted panic"
        );
        self.game.parse_action(text)
    }
    fn render_with(&self, paint: &dyn Fn(usize, &str) -> String) -> String {
        self.game.render_with(paint)
    }
}

fn check(bug: Bug) -> Result<(), Rule> {
    let kit = Conformance {
        games: 6,
        seed: 3,
        sample_every: 5,
        ..Conformance::default()
    };
    let start = Planted {
        game: Ataxx::standard(),
        bug,
    };
    kit.check(&start).map(|_| ()).map_err(|f| f.rule)
}

#[test]
fn the_real_game_passes() {
    assert_eq!(check(Bug::None), Ok(()));
}

#[test]
fn each_planted_bug_is_found_and_named() {
    let cases = [
        (Bug::Unsorted, Rule::LegalList),
        (Bug::IsLegalRefuses, Rule::IsLegal),
        (Bug::ApplyRefuses, Rule::LegalApplies),
        (Bug::ApplyAccepts, Rule::IllegalRefused),
        (Bug::PositionNotation, Rule::PositionNotation),
        (Bug::MoveNotation, Rule::MoveNotation),
        (Bug::Hash, Rule::Hash),
        (Bug::Symmetry, Rule::Symmetry),
        (Bug::Encoding, Rule::Encoding),
        (Bug::HotInputs, Rule::HotInputs),
        (Bug::PlyLimit, Rule::PlyLimit),
        (Bug::Outcome, Rule::Outcome),
        (Bug::ParserPanic, Rule::ParserPanic),
        (Bug::ScoreAfter, Rule::ScoreAfter),
        (Bug::GainAfter, Rule::GainAfter),
        (Bug::LegalGains, Rule::LegalGains),
    ];
    for (bug, rule) in cases {
        assert_eq!(check(bug), Err(rule), "{bug:?}");
    }
}

#[test]
fn a_move_is_legal_accepts_but_the_list_omits_is_found() {
    // At a sampled position the scan of the action space sees it; below one, perft.
    let found = check(Bug::IsLegalExtra);
    assert!(
        matches!(found, Err(Rule::IsLegal | Rule::Perft)),
        "{found:?}"
    );
}

/// Noughts and crosses in the fifteen required methods of the game contract and no
/// other: every default (symmetries, policy layout, names, hash, drawing) holds.
#[derive(Debug, Clone, PartialEq)]
struct Noughts {
    cells: [u8; 9],
    ply: u32,
}

impl Noughts {
    const LINES: [[usize; 3]; 8] = [
        [0, 1, 2],
        [3, 4, 5],
        [6, 7, 8],
        [0, 3, 6],
        [1, 4, 7],
        [2, 5, 8],
        [0, 4, 8],
        [2, 4, 6],
    ];

    fn winner(&self) -> Option<usize> {
        (Self::LINES.iter())
            .find(|l| self.cells[l[0]] != 0 && l.iter().all(|&c| self.cells[c] == self.cells[l[0]]))
            .map(|l| self.cells[l[0]] as usize - 1)
    }
}

impl Game for Noughts {
    type Fast = Self;

    fn name(&self) -> &'static str {
        "noughts"
    }

    fn num_players(&self) -> usize {
        2
    }

    fn action_space(&self) -> usize {
        9
    }

    fn max_plies(&self) -> u32 {
        9
    }

    fn to_move(&self) -> usize {
        self.ply as usize % 2
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome().is_none() {
            out.extend((0..9).filter(|&c| self.cells[c] == 0).map(|c| c as Action));
        }
    }

    fn apply(&mut self, action: Action) -> Result<(), GameError> {
        if self.outcome().is_some() {
            return Err(GameError::GameOver);
        }
        match self.cells.get(action as usize) {
            Some(0) => {
                self.cells[action as usize] = 1 + self.to_move() as u8;
                self.ply += 1;
                Ok(())
            }
            _ => Err(GameError::IllegalAction(action)),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.winner() {
            Some(w) => Some(Outcome::win(w, 2)),
            None => (self.ply == 9).then(Outcome::draw),
        }
    }

    fn ply(&self) -> u32 {
        self.ply
    }

    fn to_notation(&self) -> String {
        self.cells
            .iter()
            .map(|&c| b".xo"[c as usize] as char)
            .collect()
    }

    fn parse_position(&self, text: &str) -> Result<Self, GameError> {
        let mut cells = [0u8; 9];
        let chars: Vec<char> = text.trim().chars().collect();
        if chars.len() != 9 {
            return Err(GameError::parse(text, "nine cells of '.', 'x' or 'o'"));
        }
        for (cell, ch) in cells.iter_mut().zip(chars) {
            *cell = match ch {
                '.' => 0,
                'x' => 1,
                'o' => 2,
                _ => return Err(GameError::parse(text, "a cell is '.', 'x' or 'o'")),
            };
        }
        let ply = cells.iter().filter(|&&c| c != 0).count() as u32;
        let xs = cells.iter().filter(|&&c| c == 1).count() as u32;
        if xs != ply.div_ceil(2) {
            return Err(GameError::parse(text, "x moves first, then o, in turn"));
        }
        Ok(Noughts { cells, ply })
    }

    fn action_to_string(&self, action: Action) -> String {
        (action + 1).to_string()
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        match text.trim().parse::<Action>() {
            Ok(n @ 1..=9) => Ok(n - 1),
            _ => Err(GameError::parse(text, "a cell from 1 to 9")),
        }
    }

    fn encoding_shape(&self) -> EncodingShape {
        EncodingShape {
            planes: 2,
            height: 3,
            width: 3,
        }
    }

    fn encode(&self, out: &mut [f32]) {
        out.fill(0.0);
        let me = 1 + self.to_move() as u8;
        for (c, &v) in self.cells.iter().enumerate().filter(|(_, v)| **v != 0) {
            out[usize::from(v != me) * 9 + c] = 1.0;
        }
    }
}

#[test]
fn a_game_of_the_fifteen_required_methods_alone_passes_the_kit() {
    let start = Noughts {
        cells: [0; 9],
        ply: 0,
    };
    let summary = Conformance::default()
        .check(&start)
        .unwrap_or_else(|f| panic!("{f}"));
    assert!(summary.positions > 100, "{summary:?}");
    // The defaults it runs on.
    assert_eq!((start.policy_planes(), start.num_symmetries()), (1, 1));
    assert_eq!(start.player_name(1), "second");
    assert!(start.is_legal(4) && !start.is_legal(9));
    let mut next = start.clone();
    next.apply(4).unwrap();
    assert_ne!(start.hash(), next.hash());
    assert_eq!(start.hash(), start.clone().hash());
}
