//! The rules engines, behind one [`Game`] trait, and the [`conformance`] kit that holds
//! any implementation to it.
//!
//! Everything above this module (agents, search, arena, the engine protocol) sees a game
//! only through [`Game`]: a state with a player to move, legal actions as indices into a
//! fixed action space, `apply`, a terminal [`Outcome`] with one value per player, a tensor
//! encoding, symmetries and a text notation. Nothing here assumes two players or a hex
//! board: Infexion ([`infexion`]), Ataxx and Virus ([`ataxx`]) and Chexers ([`chexers`]) implement it.
//!
//! ```
//! use contagion::games::Game;
//! use contagion::games::infexion::Board;
//!
//! let mut game = Board::new();
//! let mut moves = Vec::new();
//! game.legal_actions(&mut moves);
//! assert_eq!(moves.len(), 49); // SPAWN anywhere on the empty board
//! for text in ["SPAWN(0,0)", "SPAWN(0,1)", "SPREAD(0,0,0,1)"] {
//!     let action = game.parse_legal_action(text).unwrap();
//!     game.apply(action).unwrap();
//! }
//! assert_eq!(game.outcome().unwrap().winner(), Some(0)); // Red took Blue's only token
//! assert_eq!(game.to_notation(), "1r25/7/7/7/7/7/7 b 3"); // a 2-stack at (0,1)
//! ```

pub mod ataxx;
pub mod chexers;
pub mod conformance;
pub mod infexion;
mod kind;
pub mod perft;
pub mod tuples;
pub mod view;

pub(crate) use kind::with_game;
pub use kind::{GameKind, GameName, find_game};

use std::fmt;

/// The most players any game here has (Chexers has three).
pub const MAX_PLAYERS: usize = 3;

/// An entry of a game's encoding at least this large is on: one of the fast evaluator's
/// features ([`Game::hot_inputs`]).
pub const FEATURE_ON: f32 = 0.5;

/// The indices of the entries of an encoding that are at least [`FEATURE_ON`],
/// ascending: what [`Game::hot_inputs`] names, found by a scan of the planes.
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

/// The shape of a game's input tensor: `planes × height × width`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct EncodingShape {
    /// Input planes.
    pub planes: usize,
    /// Rows.
    pub height: usize,
    /// Columns.
    pub width: usize,
}

impl EncodingShape {
    /// Values in one encoded position.
    pub fn len(&self) -> usize {
        self.planes * self.height * self.width
    }

    /// Whether the shape holds no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A game state and its rules. A game outside this crate implements it too
/// (`docs/adding-a-game.md`; `examples/hexxagon` is one). The methods come in parts (each
/// opened by a `// part:` line, from which the guide's table is made): fifteen are
/// required, the rules, the notation and the encoding; the others have defaults (no
/// symmetries but the identity, the actions laid out in order as the policy, a drawing
/// that is the notation) or are derived.
///
/// Invariants every implementation keeps (the [`conformance`] kit checks them):
/// - `legal_actions` fills the buffer in ascending order, without duplicates, every
///   index `< action_space()`; it is empty exactly when `outcome()` is `Some`.
/// - `apply` of an action from `legal_actions` never fails; any other action returns
///   an error and leaves the state unchanged.
/// - `hash` is a function of the whole state (two states that compare equal hash equal).
/// - `s.parse_position(&s.to_notation()) == s`, and `parse_action(s, action_to_string(a)) == a`.
/// - Symmetry 0 is the identity; symmetry `k` maps legal actions of `s` one-to-one onto
///   legal actions of `transform(s, k)` and commutes with `apply`.
pub trait Game: Clone + PartialEq + fmt::Debug + Send + Sync + 'static {
    // part: the game's fixed facts
    /// The game's name as used on the command line and in files.
    fn name(&self) -> &'static str;

    /// The number of players (2 or 3); players are numbered `0..num_players()`.
    fn num_players(&self) -> usize;

    /// Player names as used in notation and messages (e.g. "Red", "Blue"). The default
    /// numbers the seats: "first", "second", "third".
    fn player_name(&self, player: usize) -> &'static str {
        ["first", "second", "third"][player.min(2)]
    }

    /// The size of the fixed action space.
    fn action_space(&self) -> usize;

    /// The most actions a game can last (its length cap), used to split a game's time
    /// budget over the moves left.
    fn max_plies(&self) -> u32;

    /// The rule settings this state was built with, as JSON (empty for a game with no
    /// options), recorded in exported model manifests.
    fn settings(&self) -> serde_json::Value {
        serde_json::json!({})
    }

    // part: the rules
    /// The player whose turn it is. Meaningless once the game is over.
    fn to_move(&self) -> usize;

    /// Clears `out` and fills it with the legal actions, ascending. Does not allocate
    /// once `out` has grown to its working size.
    fn legal_actions(&self, out: &mut Vec<Action>);

    /// Whether `action` is legal here. The default looks it up in
    /// [`Game::legal_actions`]; a game with a cheaper test overrides it.
    fn is_legal(&self, action: Action) -> bool {
        let mut legal = Vec::new();
        self.legal_actions(&mut legal);
        legal.binary_search(&action).is_ok()
    }

    /// Plays `action`. An illegal action is refused and the state left as it was.
    fn apply(&mut self, action: Action) -> Result<(), GameError>;

    /// `Some` once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// Actions played so far.
    fn ply(&self) -> u32;

    /// A hash of the whole state. The default hashes [`Game::to_notation`] (which the
    /// contract makes a complete description); a game keeps a Zobrist hash
    /// incrementally to make it cheap, as the built-in games do.
    fn hash(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        self.to_notation().hash(&mut h);
        h.finish()
    }

    /// Why `action` is not legal here, in words (for a human who typed it).
    fn why_illegal(&self, action: Action) -> String {
        let _ = action;
        "it is not legal in this position".into()
    }

    /// Parses a move and checks that it is legal here.
    fn parse_legal_action(&self, text: &str) -> Result<Action, GameError> {
        if self.outcome().is_some() {
            return Err(GameError::GameOver);
        }
        let action = self.parse_action(text)?;
        if self.is_legal(action) {
            Ok(action)
        } else {
            Err(GameError::IllegalMove(format!(
                "{}: {}",
                text.trim(),
                self.why_illegal(action)
            )))
        }
    }

    // part: notation
    /// The position in the game's text notation.
    fn to_notation(&self) -> String;

    /// Parses a position written by [`Game::to_notation`], under this game's settings.
    fn parse_position(&self, text: &str) -> Result<Self, GameError>;

    /// The action in the game's move notation.
    fn action_to_string(&self, action: Action) -> String;

    /// Parses a move in this position's context (the result may still be illegal).
    fn parse_action(&self, text: &str) -> Result<Action, GameError>;

    // part: the network's view
    /// The shape of [`Game::encode`]'s output.
    fn encoding_shape(&self) -> EncodingShape;

    /// Writes the network input for this state, from the point of view of the player
    /// to move, into `out` (length `encoding_shape().len()`).
    fn encode(&self, out: &mut [f32]);

    /// Calls `on` once with the index of each entry of [`Game::encode`]'s output that is
    /// at least [`FEATURE_ON`]: the fast evaluator's features. The default makes the
    /// encoding in `scratch` and scans it; a game may name them directly, faster (the
    /// conformance kit holds the two equal).
    fn hot_inputs(&self, scratch: &mut Vec<f32>, on: &mut dyn FnMut(u32)) {
        scratch.resize(self.encoding_shape().len(), 0.0);
        self.encode(scratch);
        hot_entries(scratch).for_each(on);
    }

    /// Calls `on` with each of the fast evaluator's 2×2 tuple features ([`tuples`]),
    /// numbered after the encoding's entries; a game without an owner map
    /// ([`Game::owners`]) has none and calls nothing.
    fn tuple_inputs(&self, on: &mut dyn FnMut(u32)) {
        let Some(owners) = self.owners() else {
            return;
        };
        let s = self.encoding_shape();
        let offset = s.len() as u32;
        tuples::each(
            &owners,
            self.to_move(),
            self.num_players(),
            s.width,
            offset,
            on,
        );
    }

    /// What each input plane means, in order (for exported model manifests). The
    /// default numbers them.
    fn plane_meanings(&self) -> Vec<String> {
        (0..self.encoding_shape().planes)
            .map(|k| format!("plane {k}"))
            .collect()
    }

    /// The network's policy head layout: `policy_planes()` planes over the encoding's
    /// board. Action `a`'s logit sits at flat index `policy_index(a)` of
    /// `[plane, row, column]`; every action has its own index. The default lays the
    /// actions out in order: as many planes as the action space fills.
    fn policy_planes(&self) -> usize {
        let s = self.encoding_shape();
        self.action_space().div_ceil((s.height * s.width).max(1))
    }

    /// See [`Game::policy_planes`]; the default is the action itself.
    fn policy_index(&self, action: Action) -> usize {
        action as usize
    }

    /// Whether the board wraps around (a torus); the network then pads circularly.
    fn wraps(&self) -> bool {
        false
    }

    // part: symmetries
    /// The number of symmetries, identity (index 0) included; the default has none but
    /// the identity.
    fn num_symmetries(&self) -> usize {
        1
    }

    /// This state mapped by symmetry `sym` (the default: the identity's, unchanged).
    fn transform(&self, sym: usize) -> Self {
        let _ = sym;
        self.clone()
    }

    /// `action` mapped by symmetry `sym` (the default: the identity's, unchanged).
    fn transform_action(&self, action: Action, sym: usize) -> Action {
        let _ = sym;
        action
    }

    /// Training augments with symmetries `0..augmentation_symmetries()`; a game whose
    /// network is equivariant to some symmetries by construction (translations on a
    /// torus) lists the others first and counts only those.
    fn augmentation_symmetries(&self) -> usize {
        self.num_symmetries()
    }

    // part: scoring
    /// The result of an unfinished game cut at a ply cap, by the game's score (material,
    /// power, exits): what self-play records for a game stopped at `selfplay.max_plies`.
    /// The default calls it a draw.
    fn adjudicate(&self) -> Outcome {
        Outcome::draw()
    }

    /// Each seat's standing on the game's own score, in `[-1, 1]`, for value targets
    /// that reward progress as well as wins (`selfplay.score_weight`); `None` for a game
    /// with no such score beyond the result.
    fn score_vector(&self) -> Option<Outcome> {
        None
    }

    /// Who holds each cell of the encoding's board (`height × width`, row-major): 0 for
    /// nobody, `1 + p` for player `p`; read from a game's final position as the target
    /// of the network's ownership head (`train.ownership_weight`). `None` (the default)
    /// for a game without such a map.
    fn owners(&self) -> Option<Vec<u8>> {
        None
    }

    // part: the search
    /// Passes the turn to the next player without a move, for a search that lets one
    /// opponent reply for all (best-reply search), and says whether it could; `false`
    /// (the default, changing nothing) where the game has no such pass. The position
    /// need not be one the rules reach.
    fn skip_turn(&mut self) -> bool {
        false
    }

    /// Whether a legal `action` is quiet: one that gains the mover nothing by the game's
    /// own measure, which a selective alpha-beta search may skip once a node's first
    /// moves are searched (`nnue:…,qmp=Q`). Ataxx and Virus: a jump that takes no piece.
    /// `false` (the default): no move is quiet, and the search skips none.
    fn is_quiet(&self, _action: Action) -> bool {
        false
    }

    // part: the endgame solver
    /// How much game is left as the exact endgame solver ([`crate::search::endgame`])
    /// sees it (Ataxx and Virus: the empty squares); `None` (the default) for a game it
    /// takes no position of.
    fn endgame_size(&self) -> Option<u32> {
        None
    }

    /// The largest [`Game::endgame_size`] the solver takes over within a move's time, as
    /// measured for the game by `contagion bench endgame`.
    fn endgame_reach(&self) -> u32 {
        0
    }

    /// Whether the solver takes this position over: its endgame size is within reach.
    fn in_solver_reach(&self) -> bool {
        self.endgame_size()
            .is_some_and(|n| n <= self.endgame_reach())
    }

    // part: protocol and records
    /// The engine protocol's greeting for this game: `uci`, or `uai` for the Ataxx
    /// family (as Ataxx engines and python-ataxx speak it).
    fn protocol(&self) -> &'static str {
        "uci"
    }

    /// The engine's `go` key for `player`'s clock (`wtime`, `btime`, `ctime` by seat).
    fn clock_name(&self, player: usize) -> &'static str {
        ["wtime", "btime", "ctime"][player.min(2)]
    }

    /// The game-record (PGN) tag naming `player`'s seat: its player name capitalised,
    /// unless the game's records name seats otherwise.
    fn record_seat(&self, player: usize) -> String {
        let mut chars = self.player_name(player).chars();
        chars.next().map_or(String::new(), |c| {
            c.to_uppercase().chain(chars).collect::<String>()
        })
    }

    // part: the display
    /// A human-readable picture of the position (several lines); `paint(player, text)`
    /// styles the text that shows a player's pieces (colour in a terminal). The default
    /// is the position's notation, for a game without a drawing.
    fn render_with(&self, paint: &dyn Fn(usize, &str) -> String) -> String {
        let _ = paint;
        format!("{}\n", self.to_notation())
    }

    /// [`Game::render_with`] in plain text.
    fn render(&self) -> String {
        self.render_with(&|_, text| text.to_string())
    }

    /// The position as a front end draws it ([`view::BoardView`]); empty for a game
    /// without a drawing.
    fn view(&self) -> view::BoardView {
        view::BoardView::default()
    }

    /// The cells a front end clicks to play `action`: where it starts (a piece that
    /// moves or spreads) and where it ends (a cell it fills); `None` for neither (a
    /// pass). A move named by one cell (a spawn, an Ataxx clone) has no start.
    fn action_cells(&self, action: Action) -> (Option<usize>, Option<usize>) {
        let _ = action;
        (None, None)
    }
}
