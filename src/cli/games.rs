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

use crate::agents::Baselines;
use crate::arena::MatchConfig;
use crate::arena::record::RecordedGame;
use crate::config::Config;
use crate::games::{GameKind, with_game};
use crate::nn::NetShape as Shape;
use crate::nn::formats::manifest::{Manifest, Provenance};

use super::{bench, distill, engine, eval, ladder, play, replay, tournament};

/// A game every subcommand can run, by its start position. Implemented for every
/// [`Baselines`] game; the methods are the subcommands' game-specific parts.
pub trait Playable: Send + Sync {
    /// The game's name.
    fn name(&self) -> &'static str;

    /// Its number of players.
    fn players(&self) -> usize;

    /// `contagion train` with these options.
    fn train(&self, opts: &crate::train::TrainOptions) -> anyhow::Result<()>;

    /// `contagion selfplay`: a worker for the run `config` describes.
    fn selfplay(
        &self,
        config: &Config,
        opts: &crate::selfplay::worker::WorkerOptions,
    ) -> anyhow::Result<()>;

    /// `contagion eval`.
    fn eval(&self, args: &eval::EvalArgs, config: &MatchConfig) -> anyhow::Result<()>;

    /// `contagion tournament`.
    fn tournament(
        &self,
        args: &tournament::TournamentArgs,
        config: &MatchConfig,
    ) -> anyhow::Result<()>;

    /// `contagion ladder`.
    fn ladder(
        &self,
        args: &ladder::LadderArgs,
        config: &crate::arena::ladder::LadderConfig,
    ) -> anyhow::Result<()>;

    /// `contagion report --anchors`: the run in directory `run`, measured.
    fn history(
        &self,
        run: &std::path::Path,
        config: &crate::report::history::HistoryConfig,
    ) -> anyhow::Result<crate::report::history::History>;

    /// `contagion replay` of one recorded game.
    fn replay(&self, game: &RecordedGame, args: &replay::ReplayArgs) -> anyhow::Result<()>;

    /// `contagion play` on the terminal.
    fn play(
        &self,
        args: &play::PlayArgs,
        colour: bool,
        io: &mut play::Terminal,
    ) -> anyhow::Result<()>;

    /// `contagion engine` on stdin and stdout.
    fn engine(&self, args: &engine::EngineArgs) -> anyhow::Result<()>;

    /// `contagion bench`.
    fn bench(&self, args: &bench::BenchArgs) -> anyhow::Result<()>;

    /// `contagion distill` under `config`.
    fn distill(&self, args: &distill::DistillArgs, config: &Config) -> anyhow::Result<()>;

    /// The manifest `contagion export` writes for a network of `shape`.
    fn manifest(&self, shape: &Shape, provenance: Provenance) -> Manifest;

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

    fn train(&self, opts: &crate::train::TrainOptions) -> anyhow::Result<()> {
        crate::train::run::train(self, opts)
    }

    fn selfplay(
        &self,
        config: &Config,
        opts: &crate::selfplay::worker::WorkerOptions,
    ) -> anyhow::Result<()> {
        crate::selfplay::worker::run(self, config, opts)
    }

    fn eval(&self, args: &eval::EvalArgs, config: &MatchConfig) -> anyhow::Result<()> {
        eval::report(self, args, config)
    }

    fn tournament(
        &self,
        args: &tournament::TournamentArgs,
        config: &MatchConfig,
    ) -> anyhow::Result<()> {
        tournament::play(self, args, config)
    }

    fn ladder(
        &self,
        args: &ladder::LadderArgs,
        config: &crate::arena::ladder::LadderConfig,
    ) -> anyhow::Result<()> {
        ladder::ladder(self, args, config)
    }

    fn history(
        &self,
        run: &std::path::Path,
        config: &crate::report::history::HistoryConfig,
    ) -> anyhow::Result<crate::report::history::History> {
        crate::report::history::run_history(self, run, config)
    }

    fn replay(&self, game: &RecordedGame, args: &replay::ReplayArgs) -> anyhow::Result<()> {
        replay::show(self, game, args)
    }

    fn play(
        &self,
        args: &play::PlayArgs,
        colour: bool,
        io: &mut play::Terminal,
    ) -> anyhow::Result<()> {
        play::play(self, args, colour, io)
    }

    fn engine(&self, args: &engine::EngineArgs) -> anyhow::Result<()> {
        engine::serve(self, args)
    }

    fn bench(&self, args: &bench::BenchArgs) -> anyhow::Result<()> {
        bench::bench(self, args)
    }

    fn distill(&self, args: &distill::DistillArgs, config: &Config) -> anyhow::Result<()> {
        distill::distill_game(self, args, config)
    }

    fn manifest(&self, shape: &Shape, provenance: Provenance) -> Manifest {
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
