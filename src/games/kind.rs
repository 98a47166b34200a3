//! The games built into the crate: [`GameKind`] names each one and
//! [`with_game!`](crate::games::with_game) binds its start position; and [`GameName`],
//! the name configs, checkpoints, bundles and `--game` give, which may also name a game
//! a program built on the library adds (`cli::Games::with`).

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
            .ok_or_else(|| unknown_game(name, GameKind::all().iter().map(|k| k.name())))
    }
}

/// The error for a game's name that is not among `known`, naming those it knows.
fn unknown_game<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> anyhow::Error {
    let known: Vec<&str> = known.collect();
    anyhow::anyhow!(
        "unknown game '{}': this build plays {}",
        crate::limits::clip(name),
        known.join(", ")
    )
}

/// The game named `name` in a list of games (each named by `name_of`): what the command
/// line's and the web page's lists look a game up with.
pub fn find_game<'a, T: ?Sized>(
    games: &'a [Box<T>],
    name: &str,
    name_of: impl Fn(&T) -> &'static str,
) -> anyhow::Result<&'a T> {
    (games.iter().map(|g| g.as_ref()))
        .find(|&g| name_of(g) == name)
        .ok_or_else(|| unknown_game(name, games.iter().map(|g| name_of(g))))
}

/// A game's name as configs (`run.game`), checkpoints, bundles and `--game` give it: a
/// built-in game's ([`GameKind`]) or one a program built on the library adds. Lowercase
/// letters, digits and `-`, starting with a letter, at most [`GameName::MAX_LEN`] bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct GameName(String);

impl GameName {
    /// The longest name.
    pub const MAX_LEN: usize = 32;

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The built-in game of this name, if it is one.
    pub fn builtin(&self) -> Option<GameKind> {
        GameKind::from_name(&self.0).ok()
    }
}

impl Default for GameName {
    /// The default built-in game's name.
    fn default() -> Self {
        GameName(GameKind::default().name().into())
    }
}

impl TryFrom<String> for GameName {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        let well_formed = name.len() <= GameName::MAX_LEN
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && (name.bytes()).all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if well_formed {
            Ok(GameName(name))
        } else {
            Err(format!(
                "'{}' is not a game's name: lowercase letters, digits and '-', starting with a letter, at most {} bytes (this build plays {})",
                crate::limits::clip(&name),
                GameName::MAX_LEN,
                GameKind::names()
            ))
        }
    }
}

impl std::str::FromStr for GameName {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        GameName::try_from(name.to_string())
    }
}

impl From<GameName> for String {
    fn from(name: GameName) -> String {
        name.0
    }
}

impl std::fmt::Display for GameName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
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
