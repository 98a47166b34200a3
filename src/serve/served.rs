//! The games the page plays, each behind [`Served`]: the object-safe face of a
//! [`Baselines`] game that the handlers call, so that a program built on the library
//! serves its own game beside the built-in ones.

use std::time::Duration;

use anyhow::Context;
use serde_json::json;

use crate::agents::{AgentSpec, Baselines};
use crate::games::Action;

use axum::http::StatusCode;

use super::error::ApiError;
use super::session::{GameSession, Session};

/// A game the server plays, by its start position.
pub trait Served: Send + Sync {
    /// The game's name (as `run.game` and bundles give it).
    fn name(&self) -> &'static str;

    /// Each seat's player name.
    fn player_names(&self) -> Vec<&'static str>;

    /// A new game from the start position against `spec`, the person in `seat`.
    fn new_session(
        &self,
        spec: &AgentSpec,
        seat: usize,
        movetime: Duration,
    ) -> Result<Box<dyn Session>, ApiError>;

    /// A recorded game's moves and the board before the first and after each.
    fn replay(&self, moves: &[Action]) -> anyhow::Result<serde_json::Value>;
}

impl<G: Baselines> Served for G {
    fn name(&self) -> &'static str {
        crate::games::Game::name(self)
    }

    fn player_names(&self) -> Vec<&'static str> {
        (0..self.num_players())
            .map(|p| self.player_name(p))
            .collect()
    }

    fn new_session(
        &self,
        spec: &AgentSpec,
        seat: usize,
        movetime: Duration,
    ) -> Result<Box<dyn Session>, ApiError> {
        new_session(self, spec, seat, movetime)
    }

    fn replay(&self, moves: &[Action]) -> anyhow::Result<serde_json::Value> {
        replay(self, moves)
    }
}

/// MiB of cached network evaluations per game.
const MODEL_CACHE_MIB: u64 = 4;

/// A new game of `start`'s against `spec`, the person in `seat`.
fn new_session<G: Baselines>(
    start: &G,
    spec: &AgentSpec,
    seat: usize,
    movetime: Duration,
) -> Result<Box<dyn Session>, ApiError> {
    if seat >= start.num_players() {
        return Err(ApiError::bad(format!(
            "seat must be 0 to {}",
            start.num_players() - 1
        )));
    }
    let mut agent = spec
        .build(start, random_u64())
        .map_err(|e| ApiError::bad(format!("opponent: {e:#}")))?;
    if agent.options().iter().any(|o| o.name == "Hash") {
        // A small evaluation cache per game, so that many games fit in memory.
        agent
            .set_option("Hash", MODEL_CACHE_MIB)
            .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    }
    Ok(Box::new(GameSession::new(
        start.clone(),
        seat,
        agent,
        movetime,
    )))
}

/// 64 bits from the operating system's randomness (std seeds each `RandomState` from it).
pub(super) fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

/// The games a server plays, in the order its page lists them.
pub struct Catalog(pub Vec<Box<dyn Served>>);

impl Catalog {
    /// The game named `name`.
    pub fn get(&self, name: &str) -> anyhow::Result<&dyn Served> {
        crate::games::find_game(&self.0, name, |g| g.name())
    }
}

/// The moves of a recorded game and the board before the first and after each.
fn replay<G: Baselines>(
    start: &G,
    moves: &[crate::games::Action],
) -> anyhow::Result<serde_json::Value> {
    let mut state = start.clone();
    let mut boards = vec![state.view()];
    let mut notation = Vec::new();
    for &a in moves {
        notation.push(state.action_to_string(a));
        state.apply(a).context("a recorded move does not replay")?;
        boards.push(state.view());
    }
    let players: Vec<&str> = (0..start.num_players())
        .map(|p| start.player_name(p))
        .collect();
    Ok(json!({"game": start.name(), "players": players, "moves": notation, "boards": boards}))
}
