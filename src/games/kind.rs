//! The registry of games this build plays: [`GameKind`] names each one and
//! [`with_game!`](crate::games::with_game) binds its start position. The CLI, configs
//! (`run.game`), checkpoints and bundles (their shape's game), and every message that
//! lists the games read it; a new game is one variant here and one arm in the macro.

use serde::{Deserialize, Serialize};

/// A game this build plays; its name (`infexion`, …) is the one used on the command
/// line, in configs and in files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    /// Infexion (COMP30024 2023): 7×7 hex torus, SPAWN/SPREAD.
    #[default]
    Infexion,
    /// Standard 7×7 Ataxx (libataxx rules).
    Ataxx,
    /// Generation5's Virus: Ataxx rules on 15×15 without passes.
    Virus,
    /// Chexers (COMP30024 2019): three players race across 37 hexes.
    Chexers,
}

impl GameKind {
    /// Every game, in the order they are listed.
    pub fn all() -> &'static [GameKind] {
        <GameKind as clap::ValueEnum>::value_variants()
    }

    /// The game's name, as its start position gives it.
    pub fn name(self) -> &'static str {
        crate::games::with_game!(self, start => crate::games::Game::name(start))
    }

    /// The number of players of the game.
    pub fn players(self) -> usize {
        crate::games::with_game!(self, start => crate::games::Game::num_players(start))
    }

    /// The names of every game, comma-separated (for messages).
    pub fn names() -> String {
        let names: Vec<&str> = GameKind::all().iter().map(|k| k.name()).collect();
        names.join(", ")
    }

    /// The game named `name` (as in configs and checkpoints).
    pub fn from_name(name: &str) -> anyhow::Result<GameKind> {
        (GameKind::all().iter().copied())
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "unknown game '{}': this build plays {}",
                    crate::limits::clip(name),
                    GameKind::names()
                )
            })
    }
}

impl std::fmt::Display for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Runs `$body` with `$start` bound to a reference to the start position of `$kind`.
macro_rules! with_game {
    ($kind:expr, $start:ident => $body:expr) => {
        match $kind {
            $crate::games::GameKind::Infexion => {
                let $start = &$crate::games::infexion::Board::new();
                $body
            }
            $crate::games::GameKind::Ataxx => {
                let $start = &$crate::games::ataxx::Ataxx::standard();
                $body
            }
            $crate::games::GameKind::Virus => {
                let $start = &$crate::games::ataxx::Ataxx::virus();
                $body
            }
            $crate::games::GameKind::Chexers => {
                let $start = &$crate::games::chexers::Chexers::new();
                $body
            }
        }
    };
}
pub(crate) use with_game;
