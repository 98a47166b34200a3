//! `contagion replay`: shows a recorded game (from `eval --pgn`, `tournament --pgn`,
//! or any PGN python-ataxx wrote) move by move in the terminal.

use std::path::PathBuf;

use clap::Args;

use super::Games;
use crate::arena::record::{RecordedGame, read_games};
use crate::games::Game;
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
    let size = std::fs::metadata(&args.file)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?
        .len();
    crate::limits::at_most(
        "record file size (bytes)",
        size,
        crate::limits::MAX_TEXT_BYTES,
    )?;
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let games = read_games(&text).map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    anyhow::ensure!(
        !games.is_empty(),
        "{}: no games in the file",
        args.file.display()
    );
    if args.list {
        for (i, g) in games.iter().enumerate() {
            let players: Vec<String> = g
                .tags
                .iter()
                .filter(|(k, _)| ["Black", "White", "Red", "Green", "Blue"].contains(&k.as_str()))
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            println!(
                "{:>4}. {} — {} moves, result {}",
                i + 1,
                players.join(", "),
                g.moves.len(),
                g.tag("Result").unwrap_or("?")
            );
        }
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
    playable.get(name)?.replay(game, &args)
}

pub(super) fn show<G: Game>(
    start: &G,
    game: &RecordedGame,
    args: &ReplayArgs,
) -> anyhow::Result<()> {
    for (k, v) in &game.tags {
        println!("[{k} \"{v}\"]");
    }
    let line = game
        .replay(start)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let mut previous = None::<G>;
    for (action, state) in &line {
        if let (Some(a), Some(before)) = (action, &previous) {
            let mover = before.player_name(before.to_move());
            println!(
                "\n{:>3}. {mover} plays {}",
                before.ply() + 1,
                before.action_to_string(*a)
            );
        }
        if !args.moves_only || action.is_none() {
            println!("{}", state.render());
        }
        previous = Some(state.clone());
        if args.delay_ms > 0 {
            std::thread::sleep(std::time::Duration::from_millis(args.delay_ms));
        }
    }
    let last = &line.last().expect("the start position").1;
    match last.outcome() {
        Some(o) => println!(
            "\ngame over: {}",
            crate::arena::record::result_text(&o, last.num_players())
        ),
        None => println!(
            "\nthe record ends before the game does (result {})",
            game.tag("Result").unwrap_or("*")
        ),
    }
    Ok(())
}
