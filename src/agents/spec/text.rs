//! The agent notation both ways: a spec's text parsed and checked against [`KINDS`]
//! (each error naming what is wrong and what is allowed), and a spec written back in
//! the form that parses to it again.

use std::fmt;
use std::str::FromStr;

use super::{AgentSpec, KINDS, SpecError, forms};
use crate::agents::knobs::KNOBS;
use crate::search::pvs::{PRUNING_KNOBS, Pruning};

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
        if kind == "model" || kind == "nnue" {
            path = Some(items.remove(0)).filter(|p| !p.is_empty() && !p.contains('='));
            if path.is_none() {
                return Err(err(format!(
                    "{kind} needs a path: {kind}:PATH[,KEY=VALUE…]"
                )));
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
        if kind == "engine" {
            return Err(err("engine needs a command: engine:PROGRAM [ARGS…]".into()));
        }
        let Some(spec_kind) = KINDS.iter().find(|k| k.name == kind) else {
            return Err(err(format!(
                "unknown agent '{}'; expected one of: {}",
                crate::limits::clip(kind),
                forms()
            )));
        };
        let mut given: std::collections::BTreeMap<&str, u64> = Default::default();
        for (key, value) in pairs {
            let Some(p) = spec_kind.param(key) else {
                let keys: Vec<&str> = spec_kind.params.iter().map(|p| p.key).collect();
                let keys = if keys.is_empty() {
                    "none".to_string()
                } else {
                    keys.join(", ")
                };
                return Err(err(format!(
                    "'{kind}' has no parameter '{}' (allowed: {keys})",
                    crate::limits::clip(key)
                )));
            };
            let n: u64 = (value.parse().ok())
                .filter(|n| (p.lo..=p.hi).contains(n))
                .ok_or_else(|| {
                    err(format!(
                        "{}: expected an integer {}..={}",
                        crate::limits::clip(&format!("{key}={value}")),
                        p.lo,
                        p.hi
                    ))
                })?;
            given.insert(p.key, n);
        }
        let get = |key: &str| given.get(key).copied();
        let default = |key: &str| {
            spec_kind
                .param(key)
                .and_then(|p| p.default)
                .expect("a default")
        };
        let (ms, nodes) = (get("ms"), get("nodes"));
        Ok(match kind {
            "random" => AgentSpec::Random,
            "greedy" => AgentSpec::Greedy,
            "human" => AgentSpec::Human,
            "model" => AgentSpec::Model {
                path: path.unwrap_or_default().into(),
                sims: get("sims").unwrap_or(match ms {
                    Some(_) => crate::limits::MAX_SIMULATIONS,
                    None => default("sims"),
                }) as u32,
                gumbel: get("gumbel").unwrap_or(0) as u32,
                ms,
                threads: get("threads").unwrap_or(default("threads")) as u32,
                knobs: KNOBS.map(|k| get(k.key).unwrap_or(k.default)),
            },
            "nnue" => AgentSpec::Nnue {
                path: path.unwrap_or_default().into(),
                ms,
                depth: get("depth").map(|d| d as u32),
                nodes,
                soft: get("soft"),
                pruning: PRUNING_KNOBS.iter().fold(Pruning::DEFAULT, |mut p, k| {
                    (k.set)(&mut p, get(k.key).unwrap_or(k.default));
                    p
                }),
            },
            "minimax" => AgentSpec::Minimax {
                depth: get("depth").unwrap_or(default("depth")) as u32,
            },
            "maxn" => AgentSpec::Maxn {
                depth: get("depth").unwrap_or(default("depth")) as u32,
            },
            _ => AgentSpec::AlphaBeta {
                depth: (get("depth").map(|d| d as u32))
                    .or((ms.is_none() && nodes.is_none()).then(|| default("depth") as u32)),
                ms,
                nodes,
                best_reply: kind == "brs",
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
                knobs,
            } => {
                write!(f, "model:{},sims={sims}", path.display())?;
                if let Some(ms) = ms {
                    write!(f, ",ms={ms}")?;
                }
                if *threads != 1 {
                    write!(f, ",threads={threads}")?;
                }
                for (k, v) in KNOBS.iter().zip(knobs).filter(|(k, v)| **v != k.default) {
                    write!(f, ",{}={v}", k.key)?;
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
            AgentSpec::Nnue {
                path,
                ms,
                depth,
                nodes,
                soft,
                pruning,
            } => {
                write!(f, "nnue:{}", path.display())?;
                let limits = [
                    ("ms", *ms),
                    ("depth", depth.map(u64::from)),
                    ("nodes", *nodes),
                    ("soft", *soft),
                ];
                for (k, v) in limits {
                    if let Some(v) = v {
                        write!(f, ",{k}={v}")?;
                    }
                }
                // Each knob where it is not the default.
                for k in PRUNING_KNOBS
                    .iter()
                    .filter(|k| (k.get)(pruning) != k.default)
                {
                    write!(f, ",{}={}", k.key, (k.get)(pruning))?;
                }
                Ok(())
            }
            AgentSpec::Minimax { depth } => write!(f, "minimax:depth={depth}"),
            AgentSpec::Maxn { depth } => write!(f, "maxn:depth={depth}"),
            AgentSpec::AlphaBeta {
                depth,
                ms,
                nodes,
                best_reply,
            } => {
                let parts: Vec<String> = [
                    ("depth", depth.map(u64::from)),
                    ("ms", *ms),
                    ("nodes", *nodes),
                ]
                .iter()
                .filter_map(|(k, v)| v.map(|v| format!("{k}={v}")))
                .collect();
                let name = if *best_reply { "brs" } else { "alphabeta" };
                write!(f, "{name}:{}", parts.join(","))
            }
        }
    }
}
