//! Game records: PGN for Ataxx (as python-ataxx reads and writes it) and the same
//! PGN-style text for Infexion, Virus and Chexers, in each game's move notation.
//!
//! ```text
//! [Event "contagion eval"]
//! [Site "?"]
//! [Date "2026.11.23"]
//! [Round "1"]
//! [Game "ataxx"]
//! [Black "alphabeta:depth=2"]
//! [White "greedy"]
//! [Result "1-0"]
//!
//! 1. f2 a2 2. g2e3 b2 … 1-0
//! ```
//!
//! - One tag per seat, named for the seat: `Black` (Ataxx's `x`, who moves first) and
//!   `White` (`o`) for Ataxx and Virus, as python-ataxx names them; `Red`/`Blue` for
//!   Infexion; `Red`/`Green`/`Blue` for Chexers.
//! - `Result` lists each seat's points in seat order: `1-0`, `0-1`, `1/2-1/2`, and for
//!   Chexers e.g. `0-1-0` or `1/3-1/3-1/3`; `*` for an unfinished game.
//! - `FEN` (with `SetUp "1"`) when the game did not start from the standard position;
//!   `Termination` names a forfeit and its reason.
//! - The moves stand on one line (python-ataxx reads each line of moves as a new
//!   variation), numbered once per round (a number per `num_players` plies); comments
//!   in `{…}`, variations in `(…)` and move numbers are skipped when reading.

use super::GameRecord;
use crate::games::{Action, Game, Outcome};

/// One game read back from a record: its tags and moves as written.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedGame {
    /// The tag pairs, in file order (`Event`, `White`, `Result` …).
    pub tags: Vec<(String, String)>,
    /// The moves in the game's notation.
    pub moves: Vec<String>,
}

impl RecordedGame {
    /// The value of tag `key`, if present.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    /// Replays the moves from `start` (or the record's `FEN`): every position in order,
    /// the start first. An error names the first move that is not legal.
    pub fn replay<G: Game>(&self, start: &G) -> anyhow::Result<Vec<(Option<Action>, G)>> {
        let mut state = match self.tag("FEN") {
            Some(fen) => start.parse_position(fen)?,
            None => start.clone(),
        };
        let mut line = vec![(None, state.clone())];
        for (i, text) in self.moves.iter().enumerate() {
            let a = state.parse_legal_action(text).map_err(|e| {
                anyhow::anyhow!("move {} '{}': {e}", i + 1, crate::limits::clip(text))
            })?;
            state.apply(a)?;
            line.push((Some(a), state.clone()));
        }
        Ok(line)
    }
}

/// The tag naming `seat` of `game` ([`Game::record_seat`]).
pub fn seat_tag<G: Game>(game: &G, seat: usize) -> String {
    game.record_seat(seat)
}

/// The `Result` tag of an outcome: each seat's points, `-`-separated.
pub fn result_text(outcome: &Outcome, players: usize) -> String {
    let points: Vec<String> = match outcome.winner() {
        Some(w) => (0..players)
            .map(|p| if p == w { "1" } else { "0" }.to_string())
            .collect(),
        None => (0..players).map(|_| format!("1/{players}")).collect(),
    };
    points.join("-")
}

/// Writes one game. `tags` come first (e.g. Event, Round); the seat tags (`names`,
/// one per seat), Game, Date, Result and the forfeit are added here.
pub fn write_game<G: Game>(
    start: &G,
    tags: &[(&str, String)],
    names: &[String],
    record: &GameRecord,
) -> String {
    let players = start.num_players();
    let result = result_text(&record.outcome, players);
    let mut all: Vec<(String, String)> = tags
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    all.push(("Date".into(), today()));
    all.push(("Game".into(), start.name().into()));
    for (seat, name) in names.iter().enumerate() {
        all.push((seat_tag(start, seat), name.clone()));
    }
    all.push(("Result".into(), result.clone()));
    if let Some(f) = &record.forfeit {
        let why = format!("forfeit by {}: {}", seat_tag(start, f.seat), f.reason);
        all.push(("Termination".into(), why));
    }
    let mut out = String::new();
    for (k, v) in all {
        let v: String = v
            .chars()
            .map(|c| if c == '"' || c == '\n' { '\'' } else { c })
            .collect();
        out += &format!("[{k} \"{v}\"]\n");
    }
    out.push('\n');
    let mut state = start.clone();
    let mut words = Vec::new();
    for (ply, &a) in record.moves.iter().enumerate() {
        if ply % players == 0 {
            words.push(format!("{}.", ply / players + 1));
        }
        words.push(state.action_to_string(a));
        state.apply(a).expect("recorded moves are legal");
    }
    words.push(result);
    // All moves on one line: python-ataxx reads each line as a new variation.
    out + &words.join(" ") + "\n\n"
}

/// A record file games are appended to as they finish (an existing file keeps its
/// games: PGN files concatenate).
pub struct RecordFile {
    path: std::path::PathBuf,
    file: std::fs::File,
    /// Games appended so far through this handle.
    pub games: u32,
}

impl RecordFile {
    /// Opens `path` for appending, creating it if needed.
    pub fn open(path: &std::path::Path) -> anyhow::Result<RecordFile> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot write game records: {e}", path.display()))?;
        Ok(RecordFile {
            path: path.to_path_buf(),
            file,
            games: 0,
        })
    }

    /// Appends one game (see [`write_game`]).
    pub fn append(&mut self, text: &str) -> anyhow::Result<()> {
        use std::io::Write;
        self.file
            .write_all(text.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| anyhow::anyhow!("{}: writing a game record: {e}", self.path.display()))?;
        self.games += 1;
        Ok(())
    }

    /// The file's path.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

/// Writes a game of a match, `names` the agents in its seats.
pub fn write_match_game<G: Game>(
    start: &G,
    event: &str,
    round: u32,
    names: &[String],
    (_, record): &super::SeatedRecord,
) -> String {
    let tags = [
        ("Event", event.to_string()),
        ("Site", "?".to_string()),
        ("Round", round.to_string()),
    ];
    write_game(start, &tags, names, record)
}

/// Today's date as PGN writes it (`YYYY.MM.DD`, UTC).
fn today() -> String {
    crate::timestamp::utc_timestamp(std::time::SystemTime::now())[..10].replace('-', ".")
}

/// Reads every game in `text`. A game is its tag lines, then its move text; comments
/// `{…}`, variations `(…)`, move numbers and results are skipped.
pub fn read_games(text: &str) -> anyhow::Result<Vec<RecordedGame>> {
    let mut games = Vec::new();
    let mut current = RecordedGame {
        tags: Vec::new(),
        moves: Vec::new(),
    };
    let mut in_moves = false;
    let (mut comment, mut variation) = (false, 0usize);
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') && !comment && variation == 0 {
            if in_moves {
                games.push(std::mem::replace(
                    &mut current,
                    RecordedGame {
                        tags: Vec::new(),
                        moves: Vec::new(),
                    },
                ));
                in_moves = false;
            }
            let inner = line
                .strip_prefix('[')
                .and_then(|l| l.strip_suffix(']'))
                .ok_or_else(|| anyhow::anyhow!("line {}: a tag must end with ']'", n + 1))?;
            let (key, value) = inner
                .split_once(' ')
                .ok_or_else(|| anyhow::anyhow!("line {}: a tag needs a key and a value", n + 1))?;
            let value = value.trim().trim_matches('"');
            current.tags.push((key.to_string(), value.to_string()));
            continue;
        }
        // Moves may hold parentheses (`SPAWN(3,3)`): a variation is a word that
        // starts with `(`, and lasts until its parentheses balance.
        let spaced = line.replace('{', " { ").replace('}', " } ");
        for word in spaced.split_whitespace() {
            in_moves = true;
            let depth = |w: &str| w.matches('(').count() as isize - w.matches(')').count() as isize;
            match word {
                "{" => comment = true,
                "}" => comment = false,
                _ if comment => {}
                _ if variation > 0 || word.starts_with('(') => {
                    variation = (variation as isize + depth(word)).max(0) as usize;
                }
                _ if is_move_number(word) || is_result(word) => {}
                _ => current.moves.push(word.to_string()),
            }
        }
    }
    if in_moves || !current.tags.is_empty() {
        games.push(current);
    }
    Ok(games)
}

/// `12.` or `12...`.
fn is_move_number(word: &str) -> bool {
    let digits = word.trim_end_matches('.');
    digits.len() < word.len() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `*`, or points like `1-0`, `1/2-1/2`, `0-1-0`.
fn is_result(word: &str) -> bool {
    word == "*"
        || (word.contains('-')
            && word
                .split('-')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit() || b == b'/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_results_are_told_from_moves() {
        for w in ["1.", "12...", "*", "1-0", "1/2-1/2", "0-1-0", "1/3-1/3-1/3"] {
            assert!(is_move_number(w) || is_result(w), "{w}");
        }
        for w in [
            "f2",
            "g2e3",
            "0000",
            "SPAWN(3,3)",
            "MOVE(-3,0,-2,0)",
            "EXIT(3,-3)",
        ] {
            assert!(!is_move_number(w) && !is_result(w), "{w}");
        }
    }

    #[test]
    fn reading_skips_comments_variations_and_numbers() {
        let text = "[Event \"x\"]\n[Result \"1-0\"]\n\n1. f2 { good } a2 (1... b2 (c3)) 2. g2e3 1-0\n\n[Event \"y\"]\n\n1. SPAWN(3,3) {x} SPREAD(3,3,0,1) *\n";
        let games = read_games(text).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves, ["f2", "a2", "g2e3"]);
        assert_eq!(games[0].tag("result"), Some("1-0"));
        assert_eq!(games[1].moves, ["SPAWN(3,3)", "SPREAD(3,3,0,1)"]);
    }
}
