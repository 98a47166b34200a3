//! Tournaments: a round robin (every pair of agents) or a gauntlet (the first agent
//! against each of the others), each pairing a seat-balanced match like `eval`'s,
//! optionally cut short by an SPRT; then a crosstable and Elo ratings.
//!
//! Ratings are a Bradley–Terry fit (a draw counts half a win for each side) by the
//! minorise–maximise iteration, with each pairing smoothed by one virtual draw so that
//! a clean sweep gives a finite gap; they are shifted to average 0. Each rating's 95%
//! interval is ±1.96 standard errors from the fit's Fisher information,
//! `1 / Σⱼ nᵢⱼ pᵢⱼ (1 − pᵢⱼ)` in natural-log units (the others' ratings held fixed).

use serde::Serialize;

use super::elo::{Sprt, SprtDecision, Stats};
use super::eval::Reporting;
use super::record::write_match_game;
use super::{MatchConfig, MatchReport, SeatedRecord, play_sprt_match};
use crate::agents::{AgentSpec, Baselines};

/// Which pairs play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Every pair of agents.
    RoundRobin,
    /// The first agent against each of the others.
    Gauntlet,
}

/// One pairing's match.
#[derive(Debug, Clone, Serialize)]
pub struct Pairing {
    /// Indices of the two agents; `report` is from `a`'s point of view.
    pub a: usize,
    /// The second agent's index.
    pub b: usize,
    /// The match, from `a`'s point of view.
    pub report: MatchReport,
    /// `H1`/`H0` when an SPRT stopped the pairing, else `null`.
    pub sprt: Option<String>,
}

/// One agent's line in the standings.
#[derive(Debug, Clone, Serialize)]
pub struct Standing {
    /// The agent's number (its place on the command line, from 1), as the crosstable uses.
    pub number: usize,
    /// The agent's spec.
    pub agent: String,
    /// Games it played.
    pub games: u32,
    /// Points (win 1, draw ½) over all its games.
    pub points: f64,
    /// Its results over all its games.
    pub stats: Stats,
    /// Bradley–Terry Elo, averaging 0 over the field, and its 95% interval.
    pub elo: f64,
    /// The interval's lower end.
    pub elo_low: f64,
    /// The interval's upper end.
    pub elo_high: f64,
}

/// A whole tournament: every pairing and the standings.
#[derive(Debug, Clone, Serialize)]
pub struct TournamentReport {
    /// The agents' specs, numbered from 1 in this order.
    pub agents: Vec<String>,
    /// Every pairing's match.
    pub pairings: Vec<Pairing>,
    /// Best first.
    pub standings: Vec<Standing>,
}

/// The pairs `format` plays among `n` agents, in playing order.
pub fn pairs(format: Format, n: usize) -> Vec<(usize, usize)> {
    match format {
        Format::Gauntlet => (1..n).map(|j| (0, j)).collect(),
        Format::RoundRobin => (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect(),
    }
}

/// Plays the tournament; `on_game(a, b, record)` sees every game as its pairing ends
/// (to write records). `config.games` is per pairing; `sprt` tests each pairing in
/// rounds of `round` games.
pub fn run_tournament<G: Baselines>(
    start: &G,
    specs: &[AgentSpec],
    format: Format,
    config: &MatchConfig,
    sprt: Option<(Sprt, u32)>,
    mut on_game: impl FnMut(&AgentSpec, &AgentSpec, &SeatedRecord) -> anyhow::Result<()>,
) -> anyhow::Result<TournamentReport> {
    anyhow::ensure!(specs.len() >= 2, "a tournament needs at least two agents");
    let mut pairings = Vec::new();
    for (k, (i, j)) in pairs(format, specs.len()).into_iter().enumerate() {
        let config = MatchConfig {
            seed: crate::rng::Rng::derive(config.seed, k as u64),
            ..config.clone()
        };
        let (report, records, decision) =
            play_sprt_match(start, &specs[i], &specs[j], &config, sprt)?;
        for r in &records {
            on_game(&specs[i], &specs[j], r)?;
        }
        let sprt = match decision {
            SprtDecision::AcceptH1 => Some("H1".to_string()),
            SprtDecision::AcceptH0 => Some("H0".to_string()),
            SprtDecision::Continue => None,
        };
        pairings.push(Pairing {
            a: i,
            b: j,
            report,
            sprt,
        });
    }
    let agents: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
    let standings = standings(&agents, &pairings);
    Ok(TournamentReport {
        agents,
        pairings,
        standings,
    })
}

/// Each agent's W/D/L over all its pairings.
fn totals(n: usize, pairings: &[Pairing]) -> Vec<Stats> {
    let mut wdl = vec![(0, 0, 0); n];
    for p in pairings {
        let s = &p.report.overall;
        let (a, b) = (&mut wdl[p.a], (s.wins, s.draws, s.losses));
        *a = (a.0 + b.0, a.1 + b.1, a.2 + b.2);
        let x = &mut wdl[p.b];
        *x = (x.0 + b.2, x.1 + b.1, x.2 + b.0);
    }
    wdl.into_iter()
        .map(|(w, d, l)| Stats::new(w, d, l))
        .collect()
}

/// Bradley–Terry ratings in Elo, averaging 0, each with its standard error in Elo.
pub fn ratings(n: usize, pairings: &[Pairing]) -> Vec<(f64, f64)> {
    // points[i][j]: i's points against j, smoothed by one virtual draw per pairing.
    let mut points = vec![vec![0.0; n]; n];
    let mut games = vec![vec![0.0; n]; n];
    for p in pairings {
        let s = &p.report.overall;
        let g = s.games() as f64 + 1.0;
        let pa = s.wins as f64 + 0.5 * s.draws as f64 + 0.5;
        points[p.a][p.b] += pa;
        points[p.b][p.a] += g - pa;
        games[p.a][p.b] += g;
        games[p.b][p.a] += g;
    }
    let mut gamma = vec![1.0f64; n];
    for _ in 0..1000 {
        let mut next = gamma.clone();
        for i in 0..n {
            let wins: f64 = points[i].iter().sum();
            let denom: f64 = (0..n).map(|j| games[i][j] / (gamma[i] + gamma[j])).sum();
            if denom > 0.0 && wins > 0.0 {
                next[i] = wins / denom;
            }
        }
        let mean_log = next.iter().map(|g| g.ln()).sum::<f64>() / n as f64;
        next.iter_mut().for_each(|g| *g = (g.ln() - mean_log).exp());
        let change = next
            .iter()
            .zip(&gamma)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        gamma = next;
        if change < 1e-12 {
            break;
        }
    }
    let elo_per_nat = 400.0 / std::f64::consts::LN_10;
    (0..n)
        .map(|i| {
            let info: f64 = (0..n)
                .map(|j| {
                    let p = gamma[i] / (gamma[i] + gamma[j]);
                    games[i][j] * p * (1.0 - p)
                })
                .sum();
            let se = if info > 0.0 {
                elo_per_nat / info.sqrt()
            } else {
                f64::INFINITY
            };
            (elo_per_nat * gamma[i].ln(), se)
        })
        .collect()
}

fn standings(agents: &[String], pairings: &[Pairing]) -> Vec<Standing> {
    let stats = totals(agents.len(), pairings);
    let elo = ratings(agents.len(), pairings);
    let mut rows: Vec<Standing> = agents
        .iter()
        .zip(stats)
        .zip(elo)
        .enumerate()
        .map(|(k, ((agent, s), (elo, se)))| Standing {
            number: k + 1,
            agent: agent.clone(),
            games: s.games(),
            points: s.wins as f64 + 0.5 * s.draws as f64,
            stats: s,
            elo,
            elo_low: elo - 1.96 * se,
            elo_high: elo + 1.96 * se,
        })
        .collect();
    rows.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    rows
}

/// `name` cut to `width` characters (with `…`).
fn short(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        return name.to_string();
    }
    name.chars().take(width - 1).chain(['…']).collect()
}

/// The standings and the crosstable as text.
pub fn text(r: &TournamentReport) -> String {
    let mut out = String::from("Standings, best first (Bradley–Terry Elo, 95% interval)\n");
    out +=
        "  #  agent                                     games  points   score     Elo  interval\n";
    for s in &r.standings {
        out += &format!(
            "  {:<2} {:<40} {:>6} {:>7.1} {:>7.3} {:>+7.0}  [{:+.0}, {:+.0}]\n",
            s.number,
            short(&s.agent, 40),
            s.games,
            s.points,
            s.stats.score,
            s.elo,
            s.elo_low,
            s.elo_high
        );
    }
    out += "\nCrosstable (row's score against column, by number)\n      ";
    let n = r.agents.len();
    for j in 0..n {
        out += &format!("{:>7}", j + 1);
    }
    out.push('\n');
    for i in 0..n {
        out += &format!("  {:<4}", i + 1);
        for j in 0..n {
            let cell = r.pairings.iter().find_map(|p| match (p.a, p.b) {
                (a, b) if (a, b) == (i, j) => Some(p.report.overall.score),
                (a, b) if (a, b) == (j, i) => Some(1.0 - p.report.overall.score),
                _ => None,
            });
            out += &cell.map_or("      -".to_string(), |s| format!("{s:>7.3}"));
        }
        out += &format!("  {}\n", short(&r.agents[i], 60));
    }
    out += "\nPairings\n";
    for p in &r.pairings {
        let s = &p.report.overall;
        out += &format!(
            "  {} vs {}: {} games, W {} D {} L {}, Elo {}{}\n",
            p.a + 1,
            p.b + 1,
            s.games(),
            s.wins,
            s.draws,
            s.losses,
            s.elo_text(),
            p.sprt
                .as_ref()
                .map_or(String::new(), |h| format!(", SPRT accepted {h}"))
        );
    }
    out
}

/// A tournament as `contagion tournament` plays it.
#[derive(Debug, Clone)]
pub struct TournamentOptions {
    /// The agents, two or more.
    pub agents: Vec<AgentSpec>,
    /// Who plays whom.
    pub format: Format,
    /// How each pairing's games are played.
    pub config: MatchConfig,
    /// Stop each pairing early once this SPRT decides.
    pub sprt: Option<Sprt>,
    /// Where the games and the result go.
    pub reporting: Reporting,
}

/// Plays the tournament of `o` from `start`, appends its games to the record file, and
/// prints the crosstable.
pub fn tournament<G: Baselines>(start: &G, o: &TournamentOptions) -> anyhow::Result<()> {
    let config = &o.config;
    let sprt = (o.sprt).map(|s| (s, (start.num_players() * config.threads.max(1)) as u32));
    let mut records = o.reporting.records()?;
    let mut round = 0;
    let report = run_tournament(start, &o.agents, o.format, config, sprt, |a, b, game| {
        round += 1;
        match &mut records {
            Some(file) => {
                let n = start.num_players();
                let seats = (0..n).map(|s| if s == game.0 { a } else { b });
                let names: Vec<String> = seats.map(ToString::to_string).collect();
                let text = write_match_game(start, "contagion tournament", round, &names, game);
                file.append(&text)
            }
            None => Ok(()),
        }
    })?;
    if o.reporting.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report));
    }
    if let Some(file) = &records {
        eprintln!("{} games appended to {}", file.games, file.path().display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauntlets_and_round_robins_pair_as_named() {
        assert_eq!(pairs(Format::Gauntlet, 3), [(0, 1), (0, 2)]);
        assert_eq!(pairs(Format::RoundRobin, 3), [(0, 1), (0, 2), (1, 2)]);
    }
}
