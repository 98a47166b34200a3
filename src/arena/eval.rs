//! `contagion eval`'s match: two agent specs, seat-balanced, played, recorded (PGN) and
//! reported (text or JSON).

use std::path::PathBuf;

use super::record::{RecordFile, write_match_game};
use super::{MatchConfig, MatchReport, play_match};
use crate::agents::{AgentSpec, Baselines};
use crate::games::Game;

/// Where a match's games and result go.
#[derive(Debug, Clone, Default)]
pub struct Reporting {
    /// Append every game to this file (PGN).
    pub pgn: Option<PathBuf>,
    /// Print the result as JSON on stdout instead of text.
    pub json: bool,
}

impl Reporting {
    /// The record file, if one is asked for.
    pub fn records(&self) -> anyhow::Result<Option<RecordFile>> {
        self.pgn.as_deref().map(RecordFile::open).transpose()
    }
}

/// A match between two agents.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// The agent measured.
    pub a: AgentSpec,
    /// Its opponent.
    pub b: AgentSpec,
    /// How the games are played.
    pub config: MatchConfig,
    /// Where the games and the result go.
    pub reporting: Reporting,
}

/// Plays the match of `o` from `start`, appends its games to the record file, and prints
/// the result.
pub fn eval<G: Baselines>(start: &G, o: &EvalOptions) -> anyhow::Result<()> {
    let mut records = o.reporting.records()?;
    let (r, games) = play_match(start, &o.a, &o.b, &o.config)?;
    if let Some(file) = &mut records {
        let n = start.num_players();
        for (g, game) in (0u32..).zip(&games) {
            let seats = o.config.seats(n, g, game.0, (&o.a, &o.b));
            let names: Vec<String> = seats.iter().map(ToString::to_string).collect();
            file.append(&write_match_game(
                start,
                "contagion eval",
                g + 1,
                &names,
                game,
            ))?;
        }
        eprintln!("{} games appended to {}", file.games, file.path().display());
    }
    if o.reporting.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print!("{}", text(start, &r, &o.config));
    }
    Ok(())
}

/// The human-readable report.
pub fn text<G: Game>(start: &G, r: &MatchReport, config: &MatchConfig) -> String {
    let mut clock = config.time_per_game.map_or("no clock".to_string(), |t| {
        format!("{:.0} s per agent per game", t.as_secs_f64())
    });
    if let Some(t) = config.move_time {
        clock += &format!(", {} ms a move", t.as_millis());
    }
    let mut out = format!(
        "{} vs {}: {} games of {} (seed {}, {} random opening plies, {clock})\n",
        r.a,
        r.b,
        r.games,
        start.name(),
        r.seed,
        r.opening_plies
    );
    let wdl = |s: &crate::arena::elo::Stats| {
        format!(
            "W {:>4}  D {:>4}  L {:>4}  score {:.3}",
            s.wins, s.draws, s.losses, s.score
        )
    };
    out += &format!("  A overall   {}\n", wdl(&r.overall));
    for (seat, s) in r.by_seat.iter().enumerate() {
        out += &format!("  A as {:<6} {}\n", start.player_name(seat), wdl(s));
    }
    out += &format!("  Elo of A vs B: {} (95%)\n", r.overall.elo_text());
    out += &format!(
        "  mean game length {:.1} plies; thinking {:.2} ms/move (A), {:.2} ms/move (B); wall {:.1} s\n",
        r.mean_plies, r.a_ms_per_move, r.b_ms_per_move, r.wall_seconds
    );
    let ([ga, pa], [gb, pb]) = (r.a_slowest_at, r.b_slowest_at);
    out += &format!(
        "  slowest move {:.1} ms (A, game {ga} ply {pa}), {:.1} ms (B, game {gb} ply {pb})\n",
        r.a_slowest_ms, r.b_slowest_ms
    );
    for (who, list) in [("A", &r.a_forfeits), ("B", &r.b_forfeits)] {
        if let Some(first) = list.first() {
            out += &format!("  {} forfeits by {who}, e.g. {first}\n", list.len());
        }
    }
    out
}
