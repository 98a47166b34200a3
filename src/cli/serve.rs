//! `contagion serve`: the web page to play the models and watch runs (see [`crate::serve`]).

use std::path::PathBuf;

use clap::Args;

/// `contagion serve`'s arguments.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on; 127.0.0.1 keeps the page to this machine.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// The port (0: any free one; the address is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Runs to watch (repeatable): a run directory, a directory of runs, or an
    /// s3://bucket/prefix/run location.
    #[arg(long = "runs", value_name = "DIR|URL", default_value = "checkpoints")]
    pub runs: Vec<String>,
    /// The shipped bundles offered as opponents.
    #[arg(long, default_value = "models")]
    pub models: PathBuf,
}

/// Runs `contagion serve` until it is stopped.
pub fn run(args: ServeArgs, games: &super::Games) -> anyhow::Result<()> {
    crate::serve::run(crate::serve::Options {
        bind: args.bind,
        port: args.port,
        runs: args.runs,
        models: args.models,
        games: games.served(),
    })
}
