//! The games a `contagion` program plays: [`Games`] lists them (the built-in ones, and any
//! a program built on the library adds with [`Games::with`]), each behind [`Playable`],
//! the object-safe face of a [`Baselines`] game through which every subcommand runs it.
//!
//! A game of one's own needs no change to the crate:
//!
//! ```no_run
//! # use contagion::games::ataxx::Ataxx as MyGame; // stands for a game of your own
//! use contagion::cli::{self, Games};
//!
//! fn main() -> std::process::ExitCode {
//!     cli::main(Games::builtin().with(MyGame::standard()))
//! }
//! ```

use std::path::Path;
use std::time::Duration;

use crate::agents::{AgentSpec, Baselines};
use crate::arena::eval::EvalOptions;
use crate::arena::ladder::LadderConfig;
use crate::arena::record::RecordedGame;
use crate::arena::terminal::PlayOptions;
use crate::arena::tournament::TournamentOptions;
use crate::bench::run::BenchKind;
use crate::config::Config;
use crate::games::{GameKind, with_game};
use crate::nn::NetShape;
use crate::nn::formats::manifest::{Manifest, Provenance};
use crate::report::history::HistoryConfig;
use crate::selfplay::worker::WorkerOptions;
use crate::train::TrainOptions;
use crate::train::distill_run::DistillRun;

/// A game every subcommand can run, by its start position: the object-safe face of a
/// [`Baselines`] game. Implemented for every one; each method is one subcommand's
/// library function for the game, which the subcommand's file calls with what it parsed.
pub trait Playable: Send + Sync {
    /// The game's name.
    fn name(&self) -> &'static str;
    /// Its number of players.
    fn players(&self) -> usize;
    /// `contagion train`.
    fn train(&self, opts: &TrainOptions) -> anyhow::Result<()>;
    /// `contagion selfplay`: a worker for the run `config` describes.
    fn selfplay(&self, config: &Config, opts: &WorkerOptions) -> anyhow::Result<()>;
    /// `contagion eval`.
    fn eval(&self, opts: &EvalOptions) -> anyhow::Result<()>;
    /// `contagion tournament`.
    fn tournament(&self, opts: &TournamentOptions) -> anyhow::Result<()>;
    /// `contagion ladder`.
    fn ladder(
        &self,
        model: &Path,
        config: &LadderConfig,
        json: bool,
        out: Option<&Path>,
    ) -> anyhow::Result<()>;
    /// `contagion report --anchors`: the run in directory `run`, measured and drawn at
    /// `out` under its `name`.
    fn history(
        &self,
        run: &Path,
        config: &HistoryConfig,
        name: &str,
        out: &Path,
    ) -> anyhow::Result<()>;
    /// `contagion replay` of one recorded game.
    fn replay(&self, game: &RecordedGame, delay: Duration, moves_only: bool) -> anyhow::Result<()>;
    /// `contagion play` on the terminal.
    fn play(&self, opts: &PlayOptions, no_color: bool) -> anyhow::Result<()>;
    /// `contagion engine` on stdin and stdout.
    fn engine(&self, agent: &AgentSpec, seed: u64) -> anyhow::Result<()>;
    /// `contagion bench`.
    fn bench(&self, what: &BenchKind, rounds: usize, json: bool) -> anyhow::Result<()>;
    /// `contagion distill` under `config`.
    fn distill(&self, config: &Config, run: &DistillRun) -> anyhow::Result<()>;
    /// The manifest `contagion export` writes for a network of `shape`.
    fn manifest(&self, shape: &NetShape, provenance: Provenance) -> Manifest;
    /// The game as `contagion serve` plays it.
    #[cfg(feature = "serve")]
    fn served(&self) -> Box<dyn crate::serve::served::Served>;
}

impl<G: Baselines> Playable for G {
    fn name(&self) -> &'static str {
        crate::games::Game::name(self)
    }
    fn players(&self) -> usize {
        self.num_players()
    }
    fn train(&self, opts: &TrainOptions) -> anyhow::Result<()> {
        crate::train::run::train(self, opts)
    }
    fn selfplay(&self, config: &Config, opts: &WorkerOptions) -> anyhow::Result<()> {
        crate::selfplay::worker::run(self, config, opts)
    }
    fn eval(&self, opts: &EvalOptions) -> anyhow::Result<()> {
        crate::arena::eval::eval(self, opts)
    }
    fn tournament(&self, opts: &TournamentOptions) -> anyhow::Result<()> {
        crate::arena::tournament::tournament(self, opts)
    }
    fn ladder(
        &self,
        model: &Path,
        config: &LadderConfig,
        json: bool,
        out: Option<&Path>,
    ) -> anyhow::Result<()> {
        crate::arena::ladder::ladder(self, model, config, json, out)
    }
    fn history(
        &self,
        run: &Path,
        config: &HistoryConfig,
        name: &str,
        out: &Path,
    ) -> anyhow::Result<()> {
        crate::report::history::elo_over_training(self, run, config, name, out)
    }
    fn replay(&self, game: &RecordedGame, delay: Duration, moves_only: bool) -> anyhow::Result<()> {
        crate::arena::replay::show(self, game, delay, moves_only)
    }
    fn play(&self, opts: &PlayOptions, no_color: bool) -> anyhow::Result<()> {
        crate::arena::terminal::on_stdio(self, opts, no_color)
    }
    fn engine(&self, agent: &AgentSpec, seed: u64) -> anyhow::Result<()> {
        crate::engine::stdio(self, agent, seed)
    }
    fn bench(&self, what: &BenchKind, rounds: usize, json: bool) -> anyhow::Result<()> {
        crate::bench::run::bench(self, what, rounds, json)
    }
    fn distill(&self, config: &Config, run: &DistillRun) -> anyhow::Result<()> {
        crate::train::distill_run::distill_run(self, config, run)
    }
    fn manifest(&self, shape: &NetShape, provenance: Provenance) -> Manifest {
        crate::nn::formats::bundle::manifest(shape, self, provenance)
    }
    #[cfg(feature = "serve")]
    fn served(&self) -> Box<dyn crate::serve::served::Served> {
        Box::new(self.clone())
    }
}

/// The games a program plays, in the order its help lists them.
pub struct Games(Vec<Box<dyn Playable>>);

impl Games {
    /// The games built into the crate ([`GameKind::all`]).
    pub fn builtin() -> Games {
        let games = (GameKind::all().iter()).map(
            |&kind| with_game!(kind, start => Box::new(start.to_owned()) as Box<dyn Playable>),
        );
        Games(games.collect())
    }

    /// These games and `start`'s: a game of one's own, by its start position.
    ///
    /// # Panics
    ///
    /// When the game's name is not a well-formed [`crate::games::GameName`], or a listed
    /// game has it: a mistake in the program, caught as it starts.
    pub fn with(mut self, start: impl Baselines) -> Games {
        let name = crate::games::Game::name(&start);
        assert!(
            name.parse::<crate::games::GameName>().is_ok(),
            "'{name}' is not a well-formed game name"
        );
        assert!(self.get(name).is_err(), "two games are named '{name}'");
        self.0.push(Box::new(start));
        self
    }

    /// The game named `name`.
    pub fn get(&self, name: &str) -> anyhow::Result<&dyn Playable> {
        crate::games::find_game(&self.0, name, |g| g.name())
    }

    /// The game a run's config names, with the config's rules that depend on its number
    /// of players checked ([`Config::check_seats`]).
    pub fn for_config(&self, config: &Config) -> anyhow::Result<&dyn Playable> {
        let game = self.get(config.run.game.as_str())?;
        config.check_seats(game.players())?;
        Ok(game)
    }

    /// Every game's name, in order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().map(|g| g.name())
    }

    /// The games as `contagion serve` plays them.
    #[cfg(feature = "serve")]
    pub fn served(&self) -> crate::serve::served::Catalog {
        crate::serve::served::Catalog(self.0.iter().map(|g| g.served()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::Games;
    use crate::games::GameKind;
    use crate::games::ataxx::Ataxx;

    #[test]
    fn the_built_in_games_are_the_registry_s_in_its_order() {
        let names: Vec<&str> = Games::builtin().names().collect();
        let kinds: Vec<&str> = GameKind::all().iter().map(|k| k.name()).collect();
        assert_eq!(names, kinds);
        let error = Games::builtin().get("chess").err().expect("no chess");
        assert!(
            error
                .to_string()
                .contains("this build plays infexion, ataxx"),
            "{error}"
        );
    }

    #[test]
    #[should_panic(expected = "two games are named 'ataxx'")]
    fn a_second_game_of_the_same_name_is_refused() {
        let _ = Games::builtin().with(Ataxx::standard());
    }
}
