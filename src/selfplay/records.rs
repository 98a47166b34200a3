//! Searched games written compactly, for the fast evaluator's data by the million: a
//! game is its moves from the start, each with the score the player's search gave it
//! (the mover's value, in ten-thousandths; a proven result at the bound), and its result
//! once. A position is replayed from its game, so it costs its move and its score:
//! four to six bytes, where a replay shard keeps a policy target and a value a seat.
//!
//! Games are gathered in chunks (`games/chunk-…`, framed and checksummed like every
//! file here), each rewritten whole as a game ends: a process killed mid-way loses only
//! the games it was playing, and a damaged chunk is refused with a message naming it.
//! Chunk names carry the writer's start time and process, so several runs and machines
//! add to one data set in a store.

use bincode::{Decode, Encode};

use super::SelfPlayGame;
use crate::framing;
use crate::games::{Action, Game, MAX_PLAYERS};

/// Where a store keeps the chunks.
pub const PREFIX: &str = "games/chunk-";
/// Games a chunk holds before the next one starts.
pub const CHUNK_GAMES: usize = 256;
/// The kind of file.
const MAGIC: &[u8; 8] = b"CZGAMES\0";
/// The format's version.
const VERSION: u32 = 1;
/// A move without a score: an opening ply, or a search that reported none.
pub const NO_SCORE: i16 = i16::MIN;
/// A proven win for the mover (its negation a proven loss).
pub const PROVEN: i16 = i16::MAX;
/// Score units a value of 1.
const SCALE: f32 = 10_000.0;

/// One game.
#[derive(Debug, Clone, PartialEq, Encode, Decode)]
pub struct Record {
    /// The random plies it opened with (their scores are [`NO_SCORE`]).
    pub opening: u16,
    /// The moves from the start position.
    pub moves: Vec<Action>,
    /// `scores[i]`: the mover's value before move `i` as its search gave it.
    pub scores: Vec<i16>,
    /// Each seat's result, in hundredths (100 a win, −100 a loss).
    pub result: Vec<i8>,
}

/// A chunk of games of one game.
#[derive(Debug, Clone, PartialEq, Encode, Decode)]
pub struct Chunk {
    /// The game's name.
    pub game: String,
    /// Its games.
    pub records: Vec<Record>,
}

/// A value in `[-1, 1]` as a score (a proven result at the bound).
pub fn score_of(value: f32, proven: bool) -> i16 {
    match proven {
        true if value > 0.0 => PROVEN,
        true if value < 0.0 => -PROVEN,
        _ => (value.clamp(-0.9999, 0.9999) * SCALE).round() as i16,
    }
}

/// A score as a value in `[-1, 1]`.
pub fn value_of(score: i16) -> f32 {
    match score {
        PROVEN => 1.0,
        s if s == -PROVEN => -1.0,
        s => s as f32 / SCALE,
    }
}

impl Record {
    /// Positions with a score: the moves after the opening.
    pub fn positions(&self) -> usize {
        self.moves.len() - self.opening as usize
    }

    /// The game of `start`'s as the trainers read games: the move played as each
    /// searched move's target, the score as its mover's value (two players), proven where
    /// it is at the bound. The moves are replayed for their movers; an illegal one is an
    /// error.
    pub fn to_game<G: Game>(&self, start: &G) -> anyhow::Result<SelfPlayGame> {
        let players = start.num_players();
        let mut outcome = [0.0; MAX_PLAYERS];
        for (o, &r) in outcome.iter_mut().zip(&self.result) {
            *o = r as f32 / 100.0;
        }
        let (mut targets, mut values, mut proven) = (Vec::new(), Vec::new(), Vec::new());
        let mut state = start.clone();
        for (i, (&a, &s)) in self.moves.iter().zip(&self.scores).enumerate() {
            let mover = state.to_move();
            let scored = i >= self.opening as usize && s != NO_SCORE;
            targets.push(match i >= self.opening as usize {
                true => vec![(a, 1)],
                false => Vec::new(),
            });
            let mut v = [0.0; MAX_PLAYERS];
            if scored && players == 2 {
                v[mover] = value_of(s);
                v[1 - mover] = -value_of(s);
                if s.abs() == PROVEN {
                    proven.push(i as u32);
                }
            }
            values.push(v);
            state.apply(a)?;
        }
        if players != 2 {
            values.clear();
        }
        Ok(SelfPlayGame {
            moves: self.moves.clone(),
            targets,
            outcome,
            sims: 0,
            seed: 0,
            values,
            proven,
        })
    }
}

impl Chunk {
    /// The framed bytes of the chunk.
    pub fn to_bytes(&self) -> anyhow::Result<Vec<u8>> {
        let payload = bincode::encode_to_vec(self, bincode::config::standard())?;
        Ok(framing::frame(MAGIC, VERSION, &payload))
    }

    /// Checks (header, checksum, game) and decodes a chunk; `what` names it.
    pub fn from_bytes(bytes: &[u8], game: &str, what: &str) -> anyhow::Result<Chunk> {
        let payload = framing::unframe(bytes, MAGIC, VERSION, what)?;
        let chunk: Chunk = framing::decode(payload, what)?;
        anyhow::ensure!(
            chunk.game == game,
            "{what}: a chunk of game '{}', not '{game}'",
            crate::limits::clip(&chunk.game)
        );
        for r in &chunk.records {
            anyhow::ensure!(
                r.moves.len() == r.scores.len() && (r.opening as usize) <= r.moves.len(),
                "{what}: a game's moves and scores differ in number"
            );
        }
        Ok(chunk)
    }
}
