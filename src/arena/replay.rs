//! `contagion replay`'s parts: a record file's games read (within the size limit),
//! listed, and shown move by move.

use std::path::Path;

use super::record::{RecordedGame, read_games, result_text};
use crate::games::Game;

/// The games of the record file at `file`.
pub fn read_file(file: &Path) -> anyhow::Result<Vec<RecordedGame>> {
    let size = std::fs::metadata(file)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?
        .len();
    crate::limits::at_most(
        "record file size (bytes)",
        size,
        crate::limits::MAX_TEXT_BYTES,
    )?;
    let text =
        std::fs::read_to_string(file).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let games = read_games(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    anyhow::ensure!(
        !games.is_empty(),
        "{}: no games in the file",
        file.display()
    );
    Ok(games)
}

/// One line a game: its players, moves and result.
pub fn list(games: &[RecordedGame]) {
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
}

/// Prints `game` (of `start`'s game) move by move: its tags, then each move and the
/// board after it (the moves alone with `moves_only`), pausing `delay` after each.
pub fn show<G: Game>(
    start: &G,
    game: &RecordedGame,
    delay: std::time::Duration,
    moves_only: bool,
) -> anyhow::Result<()> {
    for (k, v) in &game.tags {
        println!("[{k} \"{v}\"]");
    }
    let line = game.replay(start)?;
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
        if !moves_only || action.is_none() {
            println!("{}", state.render());
        }
        previous = Some(state.clone());
        std::thread::sleep(delay);
    }
    let last = &line.last().expect("the start position").1;
    match last.outcome() {
        Some(o) => println!("\ngame over: {}", result_text(&o, last.num_players())),
        None => println!(
            "\nthe record ends before the game does (result {})",
            game.tag("Result").unwrap_or("*")
        ),
    }
    Ok(())
}
