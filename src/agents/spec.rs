//! Agent specs: `NAME[:KEY=VALUE,...]`, parsed and validated before anything is built.
//!
//! | spec | agent |
//! |---|---|
//! | `random` | a uniformly random legal move |
//! | `greedy` | the seed's greedy player (see `agents::infexion`) |
//! | `minimax[:depth=D]` | full-width minimax, depth `D` (default 2) |
//! | `maxn[:depth=D]` | max^n, depth `D` (default 2): each player maximises their own evaluation |
//! | `alphabeta[:depth=D][,ms=M][,nodes=N]` | alpha-beta; depth only: exactly `D` plies (default 3 when no limit is given); `ms`/`nodes`: iterative deepening within `M` ms or `N` nodes per move |
//! | `human` | moves typed at the terminal (`contagion play` only) |
//! | `model:PATH[,sims=N][,ms=M][,threads=T][,gumbel=K]` | MCTS with the network in checkpoint `PATH` (or a run directory's best), `N` simulations per move (default 100; with `ms` and no `sims`, as many as `M` ms allow); `threads=T`: each batch of leaves is evaluated on `T` threads (default 1); `gumbel=K`: Gumbel root search over `K` actions (deterministic) instead of PUCT |
//! | `engine:COMMAND` | an external program speaking the engine protocol (see `agents::external`); `COMMAND` is split like a shell line (quotes group words), e.g. `engine:contagion engine --game ataxx --agent greedy` |
//!
//! Every search agent also splits its whole-game clock over the moves left, as the
//! seed does with `time_remaining / turns_left`.

use std::fmt;
use std::str::FromStr;

use super::baseline::{AlphaBetaAgent, GreedyAgent, MaxnAgent, RandomAgent};
use super::{Agent, Baselines};

/// A parsed, validated agent spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSpec {
    /// Uniformly random legal moves.
    Random,
    /// The move that leaves the best evaluation one ply ahead.
    Greedy,
    /// Plain minimax to a fixed depth.
    Minimax {
        /// Plies searched.
        depth: u32,
    },
    /// max^n for any number of players to a fixed depth.
    Maxn {
        /// Plies searched.
        depth: u32,
    },
    /// Alpha-beta with iterative deepening; paranoid with more than two players.
    AlphaBeta {
        /// Plies searched (the default depth when no limit is given).
        depth: Option<u32>,
        /// Milliseconds per move.
        ms: Option<u64>,
        /// Nodes per move.
        nodes: Option<u64>,
    },
    /// A person typing moves (`contagion play` only).
    Human,
    /// A network with MCTS: a bundle, a checkpoint or a run's best, local or in a store.
    Model {
        /// Where the network is.
        path: std::path::PathBuf,
        /// Simulations per move.
        sims: u32,
        /// Gumbel root search over this many actions (deterministic variant); 0: PUCT.
        gumbel: u32,
        /// Milliseconds per move (spent whole but for a forced move).
        ms: Option<u64>,
        /// Threads each batch of leaves is evaluated on.
        threads: u32,
    },
    /// An external engine: the program and its arguments.
    Engine {
        /// The program and its arguments.
        command: Vec<String>,
    },
}

/// A spec that could not be parsed; the message says what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("agent spec '{spec}': {why}")]
pub struct SpecError {
    spec: String,
    why: String,
}

const KINDS: &str = "random, greedy, minimax[:depth=D], maxn[:depth=D], alphabeta[:depth=D,ms=M,nodes=N], human, model:PATH[,sims=N][,ms=M][,threads=T][,gumbel=K], engine:COMMAND";

impl FromStr for AgentSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<Self, SpecError> {
        let err = |why: String| SpecError {
            spec: crate::limits::clip(text),
            why,
        };
        if let Some(command) = text.trim().strip_prefix("engine:") {
            let words = shlex::split(command)
                .ok_or_else(|| err("engine: the command has unbalanced quotes".into()))?;
            if words.is_empty() {
                return Err(err("engine needs a command: engine:PROGRAM [ARGS…]".into()));
            }
            return Ok(AgentSpec::Engine { command: words });
        }
        let (kind, params) = match text.trim().split_once(':') {
            Some((k, p)) => (k, p),
            None => (text.trim(), ""),
        };
        let mut items: Vec<&str> = params.split(',').map(str::trim).collect();
        let mut path = None;
        if kind == "model" {
            path = Some(items.remove(0)).filter(|p| !p.is_empty() && !p.contains('='));
            if path.is_none() {
                return Err(err("model needs a path: model:PATH[,sims=N]".into()));
            }
        }
        let mut pairs = Vec::new();
        for item in items.into_iter().filter(|s| !s.is_empty()) {
            let (key, value) = item.split_once('=').ok_or_else(|| {
                err(format!(
                    "'{}' should be KEY=VALUE",
                    crate::limits::clip(item)
                ))
            })?;
            pairs.push((key.trim(), value.trim()));
        }
        let allowed: &[&str] = match kind {
            "random" | "greedy" | "human" => &[],
            "minimax" | "maxn" => &["depth"],
            "alphabeta" => &["depth", "ms", "nodes"],
            "model" => &["sims", "ms", "threads", "gumbel"],
            _ => {
                return Err(err(format!(
                    "unknown agent '{}'; expected one of: {KINDS}",
                    crate::limits::clip(kind)
                )));
            }
        };
        let mut depth = None;
        let mut ms = None;
        let mut nodes = None;
        let mut sims = None;
        let mut gumbel = 0;
        let mut threads = 1;
        for (key, value) in pairs {
            if !allowed.contains(&key) {
                let keys = if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                };
                return Err(err(format!(
                    "'{kind}' has no parameter '{}' (allowed: {keys})",
                    crate::limits::clip(key)
                )));
            }
            let (lo, hi) = match key {
                "depth" => (1, 64),
                "ms" => (1, 3_600_000),
                "sims" => (1, 1_000_000),
                "gumbel" => (1, 4096),
                "threads" => (1, 256),
                _ => (1, 1_000_000_000_000),
            };
            let n: u64 = value
                .parse()
                .ok()
                .filter(|n| (lo..=hi).contains(n))
                .ok_or_else(|| {
                    err(format!(
                        "{}: expected an integer {lo}..={hi}",
                        crate::limits::clip(&format!("{key}={value}"))
                    ))
                })?;
            match key {
                "depth" => depth = Some(n as u32),
                "ms" => ms = Some(n),
                "sims" => sims = Some(n as u32),
                "gumbel" => gumbel = n as u32,
                "threads" => threads = n as u32,
                _ => nodes = Some(n),
            }
        }
        Ok(match kind {
            "random" => AgentSpec::Random,
            "greedy" => AgentSpec::Greedy,
            "human" => AgentSpec::Human,
            "model" => AgentSpec::Model {
                path: path.unwrap_or_default().into(),
                sims: sims.unwrap_or(match ms {
                    Some(_) => crate::limits::MAX_SIMULATIONS as u32,
                    None => 100,
                }),
                gumbel,
                ms,
                threads,
            },
            "minimax" => AgentSpec::Minimax {
                depth: depth.unwrap_or(2),
            },
            "maxn" => AgentSpec::Maxn {
                depth: depth.unwrap_or(2),
            },
            _ => AgentSpec::AlphaBeta {
                depth: depth.or((ms.is_none() && nodes.is_none()).then_some(3)),
                ms,
                nodes,
            },
        })
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => write!(f, "random"),
            AgentSpec::Greedy => write!(f, "greedy"),
            AgentSpec::Human => write!(f, "human"),
            AgentSpec::Model {
                path,
                sims,
                gumbel,
                ms,
                threads,
            } => {
                write!(f, "model:{},sims={sims}", path.display())?;
                if let Some(ms) = ms {
                    write!(f, ",ms={ms}")?;
                }
                if *threads != 1 {
                    write!(f, ",threads={threads}")?;
                }
                match gumbel {
                    0 => Ok(()),
                    k => write!(f, ",gumbel={k}"),
                }
            }
            AgentSpec::Engine { command } => {
                let words = command.iter().map(String::as_str);
                write!(f, "engine:{}", shlex::try_join(words).unwrap_or_default())
            }
            AgentSpec::Minimax { depth } => write!(f, "minimax:depth={depth}"),
            AgentSpec::Maxn { depth } => write!(f, "maxn:depth={depth}"),
            AgentSpec::AlphaBeta { depth, ms, nodes } => {
                let parts: Vec<String> = [
                    ("depth", depth.map(u64::from)),
                    ("ms", *ms),
                    ("nodes", *nodes),
                ]
                .iter()
                .filter_map(|(k, v)| v.map(|v| format!("{k}={v}")))
                .collect();
                write!(f, "alphabeta:{}", parts.join(","))
            }
        }
    }
}

impl AgentSpec {
    /// Whether the agent reads from the terminal (and so cannot run in parallel).
    pub fn is_interactive(&self) -> bool {
        matches!(self, AgentSpec::Human)
    }

    /// Builds the agent to play games like `start`; `seed` fixes every random choice it
    /// makes. Fails when a model cannot be loaded or was trained for another game.
    pub fn build<G: Baselines>(&self, start: &G, seed: u64) -> anyhow::Result<Box<dyn Agent<G>>> {
        let name = self.to_string();
        Ok(match *self {
            AgentSpec::Random => Box::new(RandomAgent::new(seed)),
            AgentSpec::Greedy => Box::new(GreedyAgent::new(seed)),
            AgentSpec::Human => {
                anyhow::bail!("'human' plays only in `contagion play`, which reads the moves")
            }
            AgentSpec::Minimax { depth } => {
                Box::new(AlphaBetaAgent::new(name, false, Some(depth), None, None))
            }
            AgentSpec::Maxn { depth } => Box::new(MaxnAgent::new(name, depth)),
            AgentSpec::AlphaBeta { depth, ms, nodes } => {
                Box::new(AlphaBetaAgent::new(name, true, depth, ms, nodes))
            }
            AgentSpec::Model {
                ref path,
                sims,
                gumbel,
                ms,
                threads,
            } => {
                let net = super::mcts::cached_net(path)?;
                anyhow::ensure!(
                    net.shape.game == start.name()
                        && net.shape.input_len() == start.encoding_shape().len()
                        && net.shape.actions() == start.action_space(),
                    "{}: the model was trained for '{}' and cannot play '{}'",
                    path.display(),
                    net.shape.game,
                    start.name()
                );
                let mut agent = super::mcts::MctsAgent::new(name, net, sims, gumbel, seed);
                agent.set_move_time(ms.map(std::time::Duration::from_millis));
                agent.set_threads(threads as usize)?;
                Box::new(agent)
            }
            AgentSpec::Engine { ref command } => Box::new(super::external::ExternalAgent::start(
                name,
                command,
                start.name(),
            )?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_with_defaults_and_round_trip() {
        let cases = [
            ("random", "random"),
            ("greedy", "greedy"),
            ("minimax", "minimax:depth=2"),
            ("alphabeta", "alphabeta:depth=3"),
            ("alphabeta:depth=4", "alphabeta:depth=4"),
            ("alphabeta:ms=100", "alphabeta:ms=100"),
            (
                "alphabeta:depth=5, nodes=2000",
                "alphabeta:depth=5,nodes=2000",
            ),
            ("model:m", "model:m,sims=100"),
            ("model:m,ms=100", "model:m,sims=1000000,ms=100"),
            (
                "model:m,threads=2,sims=50,gumbel=8",
                "model:m,sims=50,threads=2,gumbel=8",
            ),
        ];
        for (text, canonical) in cases {
            let spec: AgentSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), canonical);
            assert_eq!(canonical.parse::<AgentSpec>().unwrap(), spec);
        }
    }

    #[test]
    fn bad_specs_name_what_is_wrong() {
        let msg = |s: &str| s.parse::<AgentSpec>().unwrap_err().to_string();
        assert!(msg("alphabet").contains("unknown agent 'alphabet'"));
        assert!(msg("alphabeta:dept=3").contains("no parameter 'dept'"));
        assert!(msg("alphabeta:depth=0").contains("depth=0: expected an integer 1..=64"));
        assert!(msg("alphabeta:depth=x").contains("expected an integer"));
        assert!(msg("random:depth=2").contains("allowed: none"));
        assert!(msg("minimax:depth").contains("KEY=VALUE"));
        assert!(msg("model:m,threads=0").contains("threads=0: expected an integer 1..=256"));
        assert!(msg("model:m,ms=0").contains("ms=0: expected an integer"));
    }
}
