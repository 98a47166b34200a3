//! `contagion config`: the config reference (every field, its default, what it accepts,
//! what it does), or a config file's resolved values with the same notes.

use std::path::PathBuf;

use clap::Args;

use crate::config::{Config, fields};

/// `contagion config`'s arguments.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// A config to resolve: its every field is printed as the run would use it, with
    /// what the field does, what it accepts and, where it differs, the default.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Override a field of --config, as `train --set` does (repeatable).
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE", requires = "config")]
    pub set: Vec<String>,
    /// Print the reference as the Markdown tables of docs/configuration.md.
    #[arg(long, conflicts_with = "config")]
    pub markdown: bool,
}

/// Prints the reference, or `--config`'s resolved values.
pub fn run(args: ConfigArgs) -> anyhow::Result<()> {
    let text = match &args.config {
        Some(path) => fields::annotated(&Config::load_with(path, &args.set)?),
        None if args.markdown => fields::reference_markdown(),
        None => fields::annotated(&Config::default()),
    };
    print!("{text}");
    Ok(())
}
