//! The contract's vocabulary: an [`Action`], the [`Outcome`] a game ends in, the
//! [`GameError`] a refused move or position gives, and the bounds every game keeps.

/// The most players any game here has (Chexers has three).
pub const MAX_PLAYERS: usize = 3;

/// An entry of a game's encoding at least this large is on: one of the fast evaluator's
/// features ([`Game::hot_inputs`](super::Game::hot_inputs)).
pub const FEATURE_ON: f32 = 0.5;

/// The indices of the entries of an encoding that are at least [`FEATURE_ON`],
/// ascending: what [`Game::hot_inputs`](super::Game::hot_inputs) names, found by a scan of the planes.
pub fn hot_entries(planes: &[f32]) -> impl Iterator<Item = u32> + '_ {
    (planes.iter().enumerate())
        .filter(|&(_, &v)| v >= FEATURE_ON)
        .map(|(i, _)| i as u32)
}

/// An action: an index into the game's fixed action space `0..action_space()`.
pub type Action = u16;

/// Why a move or position could not be accepted. Returned, never panicked on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The text is not a move or position in this game's notation.
    #[error("cannot parse '{text}': {why}")]
    Parse {
        /// The text (clipped for messages).
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// The move is well formed but not legal in this position: the move as the
    /// notation writes it (and why, where known).
    #[error("illegal move {0}")]
    IllegalMove(String),
    /// The rules refused this action in this position (the rules alone do not write
    /// moves: [`GameError::in_notation`] turns it into an [`GameError::IllegalMove`]).
    #[error("illegal action {0}")]
    IllegalAction(Action),
    /// The game is over; no move can be played.
    #[error("the game is over")]
    GameOver,
}

impl GameError {
    /// This error with an [`GameError::IllegalAction`] written as a move by `write`.
    pub fn in_notation(self, write: impl FnOnce(Action) -> String) -> GameError {
        match self {
            GameError::IllegalAction(a) => GameError::IllegalMove(write(a)),
            e => e,
        }
    }

    /// A [`GameError::Parse`] for `text`, saying `why`.
    pub fn parse(text: &str, why: impl Into<String>) -> Self {
        GameError::Parse {
            text: crate::limits::clip(text),
            why: why.into(),
        }
    }
}

/// The result of a finished game: one value per player in `[-1, 1]`
/// (+1 a win, -1 a loss, 0 a draw). Entries past `num_players()` are zero.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome(pub [f32; MAX_PLAYERS]);

impl Outcome {
    /// The outcome where `winner` wins and every other of `num_players` loses.
    pub fn win(winner: usize, num_players: usize) -> Self {
        let mut v = [0.0; MAX_PLAYERS];
        for (p, x) in v.iter_mut().enumerate().take(num_players) {
            *x = if p == winner { 1.0 } else { -1.0 };
        }
        Outcome(v)
    }

    /// The outcome where nobody wins.
    pub fn draw() -> Self {
        Outcome([0.0; MAX_PLAYERS])
    }

    /// A draw valued `value` for each of `num_players` (below 0, a draw costs every seat).
    pub fn draw_at(num_players: usize, value: f32) -> Self {
        let mut v = [0.0; MAX_PLAYERS];
        v[..num_players].fill(value);
        Outcome(v)
    }

    /// Two players' shares of a material score: `(a - b) / (a + b)` for the first, its
    /// negation for the second (0 when both are 0); a score vector in `[-1, 1]`.
    pub fn share(a: u32, b: u32) -> Self {
        let d = match a + b {
            0 => 0.0,
            total => (a as f32 - b as f32) / total as f32,
        };
        let mut v = [0.0; MAX_PLAYERS];
        v[0] = d;
        v[1] = -d;
        Outcome(v)
    }

    /// The value for `player`.
    pub fn value(&self, player: usize) -> f32 {
        self.0[player]
    }

    /// `player`'s result: +1 for a positive value (a win), −1 for a negative one, 0 for
    /// a draw.
    pub fn result(&self, player: usize) -> i32 {
        let v = self.0[player];
        i32::from(v > 0.0) - i32::from(v < 0.0)
    }

    /// The winning player, if there is exactly one with a positive value.
    pub fn winner(&self) -> Option<usize> {
        let mut winners = self.0.iter().enumerate().filter(|(_, v)| **v > 0.0);
        match (winners.next(), winners.next()) {
            (Some((p, _)), None) => Some(p),
            _ => None,
        }
    }
}
