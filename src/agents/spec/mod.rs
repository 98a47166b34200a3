//! Agent specs: `NAME[:KEY=VALUE,...]`, parsed and validated before anything is built.
//!
//! [`KINDS`] is the one table of agents, their parameters, ranges and defaults: the
//! parser checks against it, and the CLI's help ([`help`]), the parser's errors and the
//! table in `docs/evaluate.md` ([`markdown_table`]) are made from it. The notation
//! both ways, parsing and writing back, is `spec/text.rs`.

mod text;

use super::baseline::{AlphaBetaAgent, GreedyAgent, MaxnAgent, RandomAgent};
use super::knobs::{KNOBS, Knob, KnobValues};
use super::{Agent, Baselines};
use crate::search::pvs::{PRUNING_KNOBS, Pruning, PruningKnob};

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
    /// Alpha-beta with iterative deepening; with more than two players paranoid, or
    /// best-reply search (`brs`).
    AlphaBeta {
        /// Plies searched (the default depth when no limit is given).
        depth: Option<u32>,
        /// Milliseconds per move.
        ms: Option<u64>,
        /// Nodes per move.
        nodes: Option<u64>,
        /// Best-reply search (`brs`) rather than paranoid (`alphabeta`).
        best_reply: bool,
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
        /// The search's settings ([`super::knobs::KNOBS`]), in hundredths.
        knobs: KnobValues,
    },
    /// Principal variation search over a fast evaluator bundle.
    Nnue {
        /// The evaluator bundle, or `models/<game>` for the game's current one.
        path: std::path::PathBuf,
        /// Milliseconds per move.
        ms: Option<u64>,
        /// Plies searched.
        depth: Option<u32>,
        /// Nodes per move.
        nodes: Option<u64>,
        /// Nodes after which no new iteration starts.
        soft: Option<u64>,
        /// What the search prunes.
        pruning: Pruning,
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

/// A numeric parameter of an agent: `KEY=N`, `N` in `lo ..= hi`.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// The key.
    pub key: &'static str,
    /// The letter standing for its value in the spec's form (`depth=D`).
    pub letter: &'static str,
    /// The smallest value allowed.
    pub lo: u64,
    /// The largest value allowed.
    pub hi: u64,
    /// The value when the key is not given, if one is taken.
    pub default: Option<u64>,
}

/// A kind of agent: the spec's name, its argument, its parameters and what it plays.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// The name before the colon.
    pub name: &'static str,
    /// The argument right after the colon (`PATH`, `COMMAND`), if the kind takes one.
    pub arg: Option<&'static str>,
    /// Its `KEY=VALUE` parameters.
    pub params: &'static [Param],
    /// What it plays, in a line.
    pub doc: &'static str,
}

const fn param(
    key: &'static str,
    letter: &'static str,
    lo: u64,
    hi: u64,
    default: Option<u64>,
) -> Param {
    Param {
        key,
        letter,
        lo,
        hi,
        default,
    }
}

/// The model kind lists each of [`KNOBS`] by index: a knob added there must be added
/// to its parameters too.
const _: () = assert!(
    KNOBS.len() == 4,
    "list every knob among the model's parameters"
);

/// A model's search knob as a spec parameter (`0..=max`).
const fn knob_param(k: &Knob) -> Param {
    param(k.key, k.letter, 0, k.max, Some(k.default))
}

/// The nnue kind lists each of [`PRUNING_KNOBS`] by index, as the model kind its knobs.
const _: () = assert!(
    PRUNING_KNOBS.len() == 14,
    "list the new pruning knob in KINDS' nnue params"
);

const fn pruning_param(k: &PruningKnob) -> Param {
    param(k.key, k.letter, 0, k.max, Some(k.default))
}

const DEPTH_2: Param = param(
    "depth",
    "D",
    1,
    crate::limits::MAX_SEARCH_DEPTH as u64,
    Some(2),
);
const MS: Param = param("ms", "M", 1, crate::limits::MAX_MOVE_MS, None);
/// The limits of `alphabeta` and `brs`.
const ALPHABETA_PARAMS: &[Param] = &[
    param(
        "depth",
        "D",
        1,
        crate::limits::MAX_SEARCH_DEPTH as u64,
        Some(3),
    ),
    MS,
    param("nodes", "N", 1, crate::limits::MAX_NODES, None),
];

/// Every agent kind, in the order the help lists them.
#[rustfmt::skip]
pub const KINDS: &[Kind] = &[
    Kind { name: "random", arg: None, params: &[], doc: "a uniformly random legal move" },
    Kind { name: "greedy", arg: None, params: &[], doc: "the best move one ply ahead by the game's evaluation" },
    Kind { name: "minimax", arg: None, params: &[DEPTH_2], doc: "full-width minimax to depth D" },
    Kind { name: "maxn", arg: None, params: &[DEPTH_2], doc: "max^n to depth D: every player maximises their own evaluation" },
    Kind {
        name: "alphabeta", arg: None,
        params: ALPHABETA_PARAMS,
        doc: "alpha-beta (paranoid with three players): depth alone searches exactly D plies (3 when no limit is given); ms and nodes deepen iteratively within M ms or N nodes a move",
    },
    Kind {
        name: "brs", arg: None,
        params: ALPHABETA_PARAMS,
        doc: "best-reply search: alpha-beta where, between two moves of its own, only the strongest reply of all the opponents is played, the others passing (Schadd and Winands, 2011; paranoid alpha-beta in a game with no pass); depth alone searches exactly D plies (3 when no limit is given); ms and nodes deepen iteratively within M ms or N nodes a move",
    },
    Kind { name: "human", arg: None, params: &[], doc: "moves typed at the terminal (`play` only)" },
    Kind {
        name: "model", arg: Some("PATH"),
        params: &[
            param("sims", "N", 1, crate::limits::MAX_SIMULATIONS, Some(100)),
            MS,
            param("threads", "T", 1, crate::limits::MAX_THREADS as u64, Some(1)),
            param("gumbel", "K", 1, crate::limits::MAX_GUMBEL_ACTIONS, None),
            knob_param(&KNOBS[0]),
            knob_param(&KNOBS[1]),
            knob_param(&KNOBS[2]),
            knob_param(&KNOBS[3]),
        ],
        doc: "MCTS guided by the network at PATH (a bundle, a checkpoint or a run directory's best, local or s3://): N simulations a move (with ms and no sims, as many as M ms allow), T threads on one tree, Gumbel root search over K actions instead of PUCT; PUCT's constant P/100, an unvisited child valued F/100 below its parent, a draw by the rules scored -C/100 for every seat, a position below the root that repeats an earlier one of the game -R/100 (0: off)",
    },
    Kind {
        name: "nnue", arg: Some("PATH"),
        params: &[
            MS,
            param("depth", "D", 1, crate::limits::MAX_SEARCH_DEPTH as u64, None),
            param("nodes", "N", 1, crate::limits::MAX_NODES, None),
            param("soft", "S", 1, crate::limits::MAX_NODES, None),
            pruning_param(&PRUNING_KNOBS[0]),
            pruning_param(&PRUNING_KNOBS[1]),
            pruning_param(&PRUNING_KNOBS[2]),
            pruning_param(&PRUNING_KNOBS[3]),
            pruning_param(&PRUNING_KNOBS[4]),
            pruning_param(&PRUNING_KNOBS[5]),
            pruning_param(&PRUNING_KNOBS[6]),
            pruning_param(&PRUNING_KNOBS[7]),
            pruning_param(&PRUNING_KNOBS[8]),
            pruning_param(&PRUNING_KNOBS[9]),
            pruning_param(&PRUNING_KNOBS[10]),
            pruning_param(&PRUNING_KNOBS[11]),
            pruning_param(&PRUNING_KNOBS[12]),
            pruning_param(&PRUNING_KNOBS[13]),
        ],
        doc: "principal variation search over the fast evaluator at PATH (an evaluator bundle, or models/<game> for the game's current one): within M ms a move, to depth D or for N nodes (depth 4 when no limit is given), no new iteration started after S nodes; the exact solver where it reaches; late-move reductions off (R = 0), mild (1: a ply, two for the latest moves), growing with the depth and the move's place (2), or as well by the history and less on the principal variation (3); null-move pruning on (P = 1) or off (0); reverse futility pruning with a margin of F thousandths of a win a ply (0 off); late-move pruning on (L = 1) or off (0); internal iterative reductions, where the table knows nothing of a position, off (I = 0), a ply (1) or two (2: three from depth 7); quiet-move pruning, below the root, of the moves the game calls quiet (Ataxx's jumps and Infexion's moves that take nothing) once Q moves are searched (0 off); the history one table for both sides (H = 0) or one a side, bounded, with a malus for the moves tried before a cut-off (1); futility pruning, near the leaves, of every move after the first where the position's value and U thousandths of a win (and half as much again a ply) stay at or below alpha (0 off); the moves of the first O plies (0 none, 1 the root, 2 and the replies) ordered by the policy of the game's current network in PATH's models folder; singular extensions with two players, from 6 plies from the leaves, of the table's move where every other move searched half as deep stays E thousandths of a win a ply below its score (0 off), with multi-cut (C = 1: where one reaches it and beta too, the node ends) and negative extensions (X = 1: where one reaches it and the table's score beta, the table's move a ply shallower); every score and margin on a value's scale (G = 0: a win 1) or its logit's (1: atanh of the value, the public engines' scale); a quiescence search at the leaves, each position standing on its own value or playing on with the moves the game calls tactical (Infexion's captures; none in the other games), for at most K plies (0 off)",
    },
    Kind { name: "engine", arg: Some("COMMAND"), params: &[], doc: "a program speaking the engine protocol, COMMAND split like a shell line" },
];

impl Kind {
    /// The spec's form: `alphabeta[:depth=D][,ms=M][,nodes=N]`.
    pub fn form(&self) -> String {
        let mut out = self.name.to_string();
        if let Some(arg) = self.arg {
            out.push_str(&format!(":{arg}"));
        }
        for (i, p) in self.params.iter().enumerate() {
            let sep = if i == 0 && self.arg.is_none() {
                ':'
            } else {
                ','
            };
            out.push_str(&format!("[{sep}{}={}]", p.key, p.letter));
        }
        out
    }

    fn param(&self, key: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.key == key)
    }
}

/// Every kind's form, `|`-separated: what an unknown name is told.
pub fn forms() -> String {
    let forms: Vec<String> = KINDS.iter().map(Kind::form).collect();
    forms.join(" | ")
}

/// The agent specs as the CLI's help shows them under every command that takes one.
pub fn help() -> String {
    let mut out = String::from("Agent specs (docs/evaluate.md#agent-specs):\n");
    for k in KINDS {
        out.push_str(&format!(
            "  {}\n      {}\n",
            k.form(),
            k.doc.replace('`', "")
        ));
    }
    out.push_str(
        "Examples: alphabeta:depth=3, alphabeta:ms=100, model:models/infexion,sims=200, \
'engine:contagion engine --game ataxx --agent greedy'",
    );
    out
}

/// The agent specs as a Markdown table: what `docs/evaluate.md` holds.
pub fn markdown_table() -> String {
    let mut out = String::from("| spec | agent | parameters |\n|---|---|---|\n");
    for k in KINDS {
        let params: Vec<String> = (k.params.iter())
            .map(|p| {
                let default = p
                    .default
                    .map_or(String::new(), |d| format!(", default {d}"));
                format!("`{}`: {} ..= {}{default}", p.key, p.lo, p.hi)
            })
            .collect();
        let params = if params.is_empty() {
            "none".into()
        } else {
            params.join("; ")
        };
        out.push_str(&format!("| `{}` | {} | {params} |\n", k.form(), k.doc));
    }
    out
}

impl AgentSpec {
    /// `model:PATH,sims=N`, every other parameter at its default.
    pub fn model(path: impl Into<std::path::PathBuf>, sims: u32) -> AgentSpec {
        AgentSpec::Model {
            path: path.into(),
            sims,
            gumbel: 0,
            ms: None,
            threads: 1,
            knobs: super::knobs::defaults(),
        }
    }

    /// The specs `text` lists, separated by spaces (a league: `selfplay.opponent`); an
    /// error names the one that does not parse, or says that none is named.
    pub fn list(text: &str) -> anyhow::Result<Vec<AgentSpec>> {
        let parse = |s: &str| s.parse().map_err(|e| anyhow::anyhow!("{e}"));
        let specs = text
            .split_whitespace()
            .map(parse)
            .collect::<anyhow::Result<Vec<_>>>()?;
        anyhow::ensure!(!specs.is_empty(), "no agent named");
        Ok(specs)
    }

    /// The spec with a models folder's alias (`models/ataxx`: the game's current bundle,
    /// or a former name) replaced by the bundle the index names now, so that a match
    /// plays one bundle in every game even when the index changes while it runs.
    pub fn pinned(&self, game: &str) -> AgentSpec {
        use crate::nn::formats::models::{resolve, resolve_evaluator};
        let mut spec = self.clone();
        match &mut spec {
            AgentSpec::Model { path, .. } => *path = resolve(path),
            AgentSpec::Nnue { path, .. } => *path = resolve_evaluator(path, game),
            _ => {}
        }
        spec
    }

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
            AgentSpec::AlphaBeta {
                depth,
                ms,
                nodes,
                best_reply,
            } => {
                let mut agent = AlphaBetaAgent::new(name, true, depth, ms, nodes);
                agent.set_best_reply(best_reply);
                Box::new(agent)
            }
            AgentSpec::Model {
                ref path,
                sims,
                gumbel,
                ms,
                threads,
                knobs,
            } => {
                let net = super::mcts::cached_net(path)?;
                anyhow::ensure!(
                    net.shape.plays(start),
                    "{}: the model was trained for '{}' and cannot play '{}'",
                    path.display(),
                    net.shape.game,
                    start.name()
                );
                let mut agent = super::mcts::MctsAgent::new(name, net, sims, gumbel, seed);
                agent.set_move_time(ms.map(std::time::Duration::from_millis));
                agent.set_threads(threads as usize)?;
                for (k, v) in KNOBS.iter().zip(knobs) {
                    agent.set_option(k.option, v)?;
                }
                Box::new(agent)
            }
            AgentSpec::Nnue {
                ref path,
                ms,
                depth,
                nodes,
                soft,
                pruning,
            } => {
                let mut agent = super::nnue::NnueAgent::load(name, path, start, ms, depth, nodes)?;
                agent.set_pruning(pruning);
                agent.set_soft_nodes(soft);
                Box::new(agent)
            }
            AgentSpec::Engine { ref command } => Box::new(super::external::ExternalAgent::start(
                name,
                command,
                start.protocol(),
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
            ("model:m,contempt=50", "model:m,sims=100,contempt=50"),
            ("model:m,contempt=0,cpuct=150", "model:m,sims=100"),
            (
                "model:m,rep=35,contempt=35",
                "model:m,sims=100,contempt=35,rep=35",
            ),
            ("nnue:m", "nnue:m"),
            ("nnue:m,nodes=5000,ms=100", "nnue:m,ms=100,nodes=5000"),
            ("nnue:m,lmr=0,depth=3", "nnue:m,depth=3,lmr=0"),
            ("nnue:m,lmr=3,hst=1", "nnue:m"),
            ("nnue:m,nmp=1,lmr=2", "nnue:m,lmr=2,nmp=1"),
            ("nnue:m,pol=2,hst=0,qmp=2", "nnue:m,qmp=2,hst=0,pol=2"),
            (
                "model:m,contempt=20,fpu=30,cpuct=250",
                "model:m,sims=100,cpuct=250,fpu=30,contempt=20",
            ),
        ];
        for (text, canonical) in cases {
            let spec: AgentSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), canonical);
            assert_eq!(canonical.parse::<AgentSpec>().unwrap(), spec);
        }
    }

    #[test]
    fn aliases_pin_to_the_bundles_the_index_names() {
        use crate::nn::formats::models::{Index, Kind};
        let index = Index::load(std::path::Path::new("models"))
            .unwrap()
            .unwrap();
        let current = |kind| format!("models/{}", index.current_of("ataxx", kind).unwrap().name);
        let pin = |text: &str| {
            text.parse::<AgentSpec>()
                .unwrap()
                .pinned("ataxx")
                .to_string()
        };
        let nnue = current(Kind::Evaluator);
        assert_eq!(
            pin("nnue:models/ataxx,ms=100"),
            format!("nnue:{nnue},ms=100")
        );
        assert_eq!(pin(&format!("nnue:{nnue}")), format!("nnue:{nnue}"));
        let model = current(Kind::Network);
        assert_eq!(pin("model:models/ataxx"), format!("model:{model},sims=100"));
        assert_eq!(pin("model:no/such/run"), "model:no/such/run,sims=100");
        assert_eq!(pin("alphabeta:depth=2"), "alphabeta:depth=2");
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
        assert!(msg("nnue:ms=100").contains("nnue needs a path"));
        assert!(msg("nnue:m,sims=100").contains("no parameter 'sims'"));
        assert!(msg("model:m,contempt=101").contains("contempt=101: expected an integer 0..=100"));
        assert!(msg("model:m,rep=101").contains("rep=101: expected an integer 0..=100"));
    }
}
