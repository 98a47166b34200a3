//! `contagion replay`: shows a recorded game (from `eval --pgn`, `tournament --pgn`,
//! or any PGN python-ataxx wrote) move by move in the terminal.

use std::path::PathBuf;

use clap::Args;

use super::Games;
use crate::games::GameName;

/// `contagion replay`'s arguments.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The record file.
    pub file: PathBuf,
    /// Which game of the file, from 1 (`--list` shows them).
    #[arg(long, default_value_t = 1)]
    pub index: usize,
    /// List the file's games (players and result) instead of replaying one.
    #[arg(long)]
    pub list: bool,
    /// The game, when the record has no `Game` tag (python-ataxx's files: use ataxx).
    #[arg(long)]
    pub game: Option<GameName>,
    /// Pause this long after each move, in milliseconds.
    #[arg(long, default_value_t = 0)]
    pub delay_ms: u64,
    /// Print only the moves, not the boards.
    #[arg(long)]
    pub moves_only: bool,
}

/// Runs `contagion replay`.
pub fn run(args: ReplayArgs, playable: &Games) -> anyhow::Result<()> {
    let games = crate::arena::replay::read_file(&args.file)?;
    if args.list {
        crate::arena::replay::list(&games);
        return Ok(());
    }
    let game = games.get(args.index.wrapping_sub(1)).ok_or_else(|| {
        anyhow::anyhow!(
            "--index {}: the file has games 1 to {}",
            args.index,
            games.len()
        )
    })?;
    let name = match (game.tag("Game"), &args.game) {
        (Some(name), _) => name,
        (None, Some(name)) => name.as_str(),
        (None, None) => anyhow::bail!("the record names no game: pass --game"),
    };
    let delay = std::time::Duration::from_millis(args.delay_ms);
    (playable.get(name)?.replay(game, delay, args.moves_only))
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))
}
