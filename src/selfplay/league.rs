//! The league: the agents self-play seats beside the network (`selfplay.opponent`, one
//! spec or several separated by spaces), one drawn for each game against them, more
//! often where the network scores worst: prioritised fictitious self-play, as
//! AlphaStar's league draws its opponents. A member's weight is `(1 − s)^p`, `s` the
//! network's recent score against it (0 a loss, 1 a win; 0.5 before any game) and `p`
//! `selfplay.pfsp` (0: every member alike); every member keeps a floor of
//! [`FLOOR`] of the largest weight, so that none is dropped for good.
//!
//! The recent score moves toward each iteration's by [`RATE`] of the gap, and every
//! iteration's results are in its metrics line ([`MemberResult`]), so a resumed run
//! reads the same scores back from its log ([`League::replay`]). The trainer publishes
//! each iteration's draw in its store ([`KEY`]) for its self-play workers, whose games
//! it cannot score by member.

use serde::{Deserialize, Serialize};

use crate::agents::AgentSpec;
use crate::rng::Rng;
use crate::store::Store;

/// Where a run's store holds the league's draw for its self-play workers.
pub const KEY: &str = "league.json";

/// The published draw: each member's spec and weight.
#[derive(Debug, Serialize, Deserialize)]
struct Published {
    members: Vec<String>,
    weights: Vec<f64>,
}

/// How far the recent score moves toward an iteration's score.
pub const RATE: f64 = 0.5;
/// The least weight a member keeps, a share of the largest.
pub const FLOOR: f64 = 0.05;

/// The network's results against one member in one iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberResult {
    /// The member's agent spec.
    pub opponent: String,
    /// Games played against it.
    pub games: u64,
    /// The network's mean score in them (0 a loss, 1 a win).
    pub score: f64,
}

/// The league's members and the network's recent score against each.
#[derive(Debug, Clone)]
pub struct League {
    /// The members, as `selfplay.opponent` lists them.
    pub members: Vec<AgentSpec>,
    /// The network's recent score against each.
    pub scores: Vec<f64>,
    power: f64,
}

impl League {
    /// The league `text` lists (agent specs separated by spaces), drawn by `power`.
    pub fn parse(text: &str, power: f64) -> anyhow::Result<League> {
        let members = AgentSpec::list(text)?;
        Ok(League {
            scores: vec![0.5; members.len()],
            members,
            power,
        })
    }

    /// The league of `c`'s `selfplay.opponent`, drawn by `selfplay.pfsp` (its scores
    /// not yet recorded).
    pub fn of(c: &crate::config::Config) -> anyhow::Result<League> {
        League::parse(&c.selfplay.opponent, c.selfplay.pfsp)
    }

    /// Each member's share of the games against the league.
    pub fn weights(&self) -> Vec<f64> {
        let raw: Vec<f64> = (self.scores.iter())
            .map(|s| (1.0 - s.clamp(0.0, 1.0)).powf(self.power))
            .collect();
        let top = raw.iter().copied().fold(0.0, f64::max);
        let floored: Vec<f64> = match top > 0.0 {
            true => raw.iter().map(|w| w.max(FLOOR * top)).collect(),
            false => vec![1.0; raw.len()],
        };
        let sum: f64 = floored.iter().sum();
        floored.iter().map(|w| w / sum).collect()
    }

    /// The member the network scores worst against (the first of equals).
    pub fn hardest(&self) -> Option<&AgentSpec> {
        let worst =
            (0..self.members.len()).min_by(|&a, &b| self.scores[a].total_cmp(&self.scores[b]));
        worst.map(|i| &self.members[i])
    }

    /// A member drawn by `weights`.
    pub fn draw(weights: &[f64], rng: &mut Rng) -> usize {
        let mut u = rng.unit() * weights.iter().sum::<f64>();
        for (i, w) in weights.iter().enumerate() {
            if u < *w {
                return i;
            }
            u -= w;
        }
        weights.len() - 1
    }

    /// Moves the recent scores toward an iteration's `results` (members it did not
    /// meet, and results of agents no longer in the league, change nothing).
    pub fn record(&mut self, results: &[MemberResult]) {
        for r in results.iter().filter(|r| r.games > 0) {
            let found = self
                .members
                .iter()
                .position(|m| m.to_string() == r.opponent);
            if let Some(i) = found {
                self.scores[i] += RATE * (r.score - self.scores[i]);
            }
        }
    }

    /// The league with every iteration's results of a run's log recorded in order.
    pub fn replay<'a>(
        mut self,
        iterations: impl IntoIterator<Item = &'a [MemberResult]>,
    ) -> League {
        iterations.into_iter().for_each(|r| self.record(r));
        self
    }

    /// Writes the draw to `store` ([`KEY`]) for the run's self-play workers.
    pub fn publish(&self, store: &dyn Store) -> anyhow::Result<()> {
        let published = Published {
            members: self.members.iter().map(|m| m.to_string()).collect(),
            weights: self.weights(),
        };
        store.put(KEY, serde_json::to_string_pretty(&published)?.as_bytes())
    }

    /// The weights `store` publishes for exactly `members` (none when nothing is
    /// published or the members differ: a config changed since).
    pub fn published(store: &dyn Store, members: &[AgentSpec]) -> anyhow::Result<Option<Vec<f64>>> {
        let Some(bytes) = store.get(KEY, crate::limits::MAX_TEXT_BYTES)? else {
            return Ok(None);
        };
        let what = store.location(KEY).display().to_string();
        let p: Published = serde_json::from_slice(&bytes)
            .map_err(|e| anyhow::anyhow!("{what}: not a league's draw: {e}"))?;
        let names: Vec<String> = members.iter().map(|m| m.to_string()).collect();
        let fine =
            p.weights.len() == names.len() && p.weights.iter().all(|w| w.is_finite() && *w >= 0.0);
        Ok(
            (p.members == names && fine && p.weights.iter().sum::<f64>() > 0.0)
                .then_some(p.weights),
        )
    }

    /// The results of `counts` (games and summed score a member, in the league's order).
    pub fn results(&self, counts: &[(u64, f64)]) -> Vec<MemberResult> {
        (self.members.iter().zip(counts))
            .filter(|(_, (games, _))| *games > 0)
            .map(|(m, &(games, sum))| MemberResult {
                opponent: m.to_string(),
                games,
                score: sum / games as f64,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(opponent: &str, games: u64, score: f64) -> MemberResult {
        MemberResult {
            opponent: opponent.into(),
            games,
            score,
        }
    }

    #[test]
    fn the_hardest_member_is_drawn_most_and_none_is_dropped() {
        let mut league = League::parse("greedy  random\talphabeta:depth=2", 2.0).unwrap();
        assert_eq!(league.members.len(), 3);
        let even = league.weights();
        assert!(
            even.iter().all(|w| (w - 1.0 / 3.0).abs() < 1e-12),
            "{even:?}"
        );
        league.record(&[
            result("greedy", 10, 0.9),
            result("random", 10, 1.0),
            result("alphabeta:depth=2", 10, 0.2),
            result("maxn:depth=2", 10, 0.0),
        ]);
        assert_eq!(league.scores, [0.7, 0.75, 0.35]);
        let w = league.weights();
        assert!(w[2] > w[0] && w[0] > w[1], "{w:?}");
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // Beaten every time, a member keeps its floor.
        let won = league.clone().replay([&[result("random", 5, 1.0)][..]; 40]);
        assert!(
            won.weights()[1] >= FLOOR * won.weights()[2] * 0.999,
            "{:?}",
            won.weights()
        );
        // Drawn in proportion.
        let mut rng = Rng::new(1);
        let mut counts = [0usize; 3];
        (0..30_000).for_each(|_| counts[League::draw(&w, &mut rng)] += 1);
        for (c, w) in counts.iter().zip(&w) {
            assert!(
                (*c as f64 / 30_000.0 - w).abs() < 0.015,
                "{counts:?} against {w:?}"
            );
        }
        // At power 0, alike whatever the scores.
        let flat = League {
            power: 0.0,
            ..league.clone()
        };
        assert!(flat.weights().iter().all(|w| (w - 1.0 / 3.0).abs() < 1e-12));
    }

    #[test]
    fn a_replayed_log_gives_the_scores_the_run_had() {
        let log = [
            vec![result("greedy", 4, 1.0), result("random", 4, 0.5)],
            vec![],
            vec![result("greedy", 4, 0.0)],
        ];
        let mut live = League::parse("greedy random", 1.0).unwrap();
        log.iter().for_each(|r| live.record(r));
        let resumed = League::parse("greedy random", 1.0)
            .unwrap()
            .replay(log.iter().map(|r| &r[..]));
        assert_eq!(live.scores, resumed.scores);
        assert_eq!(live.scores, [0.375, 0.5]);
        let counts = live.results(&[(3, 2.5), (0, 0.0)]);
        assert_eq!(counts, [result("greedy", 3, 2.5 / 3.0)]);
    }

    #[test]
    fn the_draw_published_for_workers_reads_back_for_the_same_members_only() {
        let dir = std::env::temp_dir().join(format!("cz-league-{}", std::process::id()));
        let store = crate::store::open(dir.to_str().unwrap()).unwrap();
        let mut league = League::parse("greedy random", 2.0).unwrap();
        assert_eq!(League::published(&*store, &league.members).unwrap(), None);
        league.record(&[result("greedy", 4, 0.0)]);
        league.publish(&*store).unwrap();
        let read = League::published(&*store, &league.members).unwrap();
        assert_eq!(read, Some(league.weights()));
        let other = League::parse("greedy maxn:depth=2", 2.0).unwrap();
        assert_eq!(League::published(&*store, &other.members).unwrap(), None);
        store.put(KEY, b"{ not json").unwrap();
        let e = League::published(&*store, &league.members).unwrap_err();
        assert!(format!("{e:#}").contains("league.json"), "{e:#}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_league_names_its_agents() {
        let e = League::parse("greedy nosuch:depth=2", 1.0).unwrap_err();
        assert!(format!("{e:#}").contains("nosuch"), "{e:#}");
        assert!(League::parse("  ", 1.0).is_err());
    }
}
