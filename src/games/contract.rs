//! The game contract: the [`Game`] trait every rules engine implements, the [`Outcome`]
//! it ends in, and the [`EncodingShape`] of its tensor encoding.

use std::fmt;

use super::searchable::{FeatureSink, Searchable};
use super::terms::{Action, GameError, Outcome, hot_entries};

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
/// Invariants every implementation keeps (the [`conformance`](super::conformance) kit checks them):
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

    /// Adds to `out` the index of each entry of [`Game::encode`]'s output that is at
    /// least [`FEATURE_ON`](super::FEATURE_ON), once: the fast evaluator's features. The
    /// default makes the encoding in `scratch` and scans it; a game may name them
    /// directly, faster, a word of 64 at a time where it can
    /// ([`FeatureSink::insert_bits`]; the conformance kit holds the two equal).
    fn hot_inputs(&self, scratch: &mut Vec<f32>, out: &mut dyn FeatureSink) {
        scratch.resize(self.encoding_shape().len(), 0.0);
        self.encode(scratch);
        hot_entries(scratch).for_each(|i| out.insert(i));
    }

    /// Calls `on` with each of the fast evaluator's 2×2 tuple features ([`tuples`](super::tuples))
    /// as seat `viewer` sees the board (the mover, or another seat for the evaluator's
    /// perspective form), numbered from `offset`; a game without an owner map
    /// ([`Game::owners`]) has none and calls nothing.
    fn tuple_inputs(&self, viewer: usize, offset: u32, on: &mut dyn FnMut(u32)) {
        let Some(owners) = self.owners() else {
            return;
        };
        let width = self.encoding_shape().width;
        let players = self.num_players();
        super::tuples::each(&owners, viewer, players, width, offset, on);
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
    /// Whether this position has occurred before in the game, among the positions the
    /// rules' repetition draw counts (Chexers: since the last exit); a search may score
    /// it as a draw (`model:…,rep=R`). `false` (the default) for a game without such a
    /// draw.
    fn repeats(&self) -> bool {
        false
    }

    /// Passes the turn to the next player without a move, for a search that lets one
    /// opponent reply for all (best-reply search), and says whether it could; `false`
    /// (the default, changing nothing) where the game has no such pass. The position
    /// need not be one the rules reach.
    fn skip_turn(&mut self) -> bool {
        false
    }

    /// [`Game::score_vector`] after the legal `action`, where the game knows it without
    /// playing it: the alpha-beta player orders moves by it and then makes only the
    /// children it searches. `None` (the default): the search plays each move to see.
    fn score_after(&self, _action: Action) -> Option<Outcome> {
        None
    }

    /// What the legal `action` gains its mover, as an integer that orders moves as the
    /// mover's share of [`Game::score_after`] does (a higher share, a higher gain; equal
    /// shares may differ), where the game knows one cheaper than the share's division:
    /// the alpha-beta player ranks moves by it. `None` (the default): by the share.
    fn gain_after(&self, _action: Action) -> Option<i32> {
        None
    }

    /// Calls `f` with each legal action, in [`Game::legal_actions`]'s order, and its
    /// [`Game::gain_after`], and returns `true`, where the game makes the two together
    /// more cheaply than move by move (Ataxx and Virus: a target's captures read as its
    /// moves are made); `false` (the default), calling nothing: the alpha-beta player
    /// then ranks each move it reaches.
    fn legal_gains(&self, _f: impl FnMut(Action, i32)) -> bool {
        false
    }

    /// Whether a legal `action` is quiet: one that gains the mover nothing by the game's
    /// own measure, which a selective alpha-beta search may skip once a node's first
    /// moves are searched (`nnue:…,qmp=Q`). Ataxx and Virus: a jump that takes no piece;
    /// Infexion: a move that takes no stack. `false` (the default): no move is quiet, and
    /// the search skips none.
    fn is_quiet(&self, _action: Action) -> bool {
        false
    }

    /// Calls `f` with each legal action a quiescence search plays on with at the leaves
    /// (`nnue:…,qs=K`), and its [`Game::gain_after`]: the moves that change the game's
    /// value too far for the position before them to be valued as it stands. Infexion:
    /// a SPREAD that takes a stack (every move but the quiet ones). None (the default):
    /// Ataxx and Virus, where nearly every move takes pieces and searching on with the
    /// moves that are not quiet lost at equal nodes (`experiments/nnue`), and Chexers.
    fn tactical_gains(&self, _f: impl FnMut(Action, i32)) {}

    /// A faster form of the rules the alpha-beta searches run on ([`Searchable`]), or
    /// the game itself where it has none (`type Fast = Self;`).
    type Fast: Searchable;

    /// This position in the faster form, where the game has one and it takes this
    /// position (Ataxx: its bitboards, on boards of side 8 or less); `None` (the
    /// default): the searches run on the game's own state.
    fn fast(&self) -> Option<Self::Fast> {
        None
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

    /// The position as a front end draws it ([`BoardView`](super::view::BoardView)); empty for a game
    /// without a drawing.
    fn view(&self) -> super::view::BoardView {
        super::view::BoardView::default()
    }

    /// The cells a front end clicks to play `action`: where it starts (a piece that
    /// moves or spreads) and where it ends (a cell it fills); `None` for neither (a
    /// pass). A move named by one cell (a spawn, an Ataxx clone) has no start.
    fn action_cells(&self, action: Action) -> (Option<usize>, Option<usize>) {
        let _ = action;
        (None, None)
    }
}

/// The alpha-beta player's ordering key of a mover's share of the score (in `[-1, 1]`):
/// millionths, so that shares of small totals stay apart.
pub fn share_key(share: f32) -> i32 {
    (share * 1e6) as i32
}

/// Every game is searchable through its own rules.
impl<G: Game> Searchable for G {
    fn to_move(&self) -> usize {
        Game::to_move(self)
    }

    fn outcome(&self) -> Option<Outcome> {
        Game::outcome(self)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        Game::legal_actions(self, out)
    }

    fn legal_gains(&self, f: impl FnMut(Action, i32)) -> bool {
        Game::legal_gains(self, f)
    }

    fn play(&mut self, action: Action) {
        self.apply(action).expect("a legal move")
    }

    fn key(&self) -> u64 {
        self.hash()
    }

    fn share(&self, player: usize) -> f32 {
        self.score_vector().map_or(0.0, |s| s.value(player))
    }

    /// The move's gain ([`Game::gain_after`]) where the game gives it, else the mover's
    /// score share after it: from [`Game::score_after`] where the game gives that, else
    /// from the child, made and returned.
    fn rank(&self, action: Action) -> (i32, Option<Self>) {
        if let Some(gain) = self.gain_after(action) {
            return (gain, None);
        }
        if let Some(score) = self.score_after(action) {
            return (share_key(score.value(Game::to_move(self))), None);
        }
        let mut child = self.clone();
        child.play(action);
        let share = Searchable::share(&child, Game::to_move(self));
        (share_key(share), Some(child))
    }

    fn players(&self) -> usize {
        self.num_players()
    }

    fn actions(&self) -> usize {
        self.action_space()
    }

    fn features(&self, scratch: &mut Vec<f32>, out: &mut impl FeatureSink) {
        out.clear();
        self.hot_inputs(scratch, out);
    }

    fn encoding_len(&self) -> usize {
        self.encoding_shape().len()
    }

    fn tuples(&self, viewer: usize, offset: u32, out: &mut impl FeatureSink) {
        self.tuple_inputs(viewer, offset, &mut |i| out.insert(i));
    }

    fn quiet(&self, action: Action) -> bool {
        self.is_quiet(action)
    }

    fn tactical_gains(&self, f: impl FnMut(Action, i32)) {
        Game::tactical_gains(self, f)
    }
}
