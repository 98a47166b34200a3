//! `model:PATH[,sims=N]`: MCTS guided by a trained network.
//!
//! `PATH` is a checkpoint file or a run directory (its `best.ckpt`), local or in an S3
//! store (`s3://bucket/prefix/run`). Each move runs `N`
//! simulations (fewer if a time limit from `go movetime`, `go wtime/btime` or the match
//! clock runs out first), collecting 8 leaves per network batch with virtual loss, with
//! no noise and no sampling: the most visited move is played. The tree is kept between
//! moves when the new position lies below it.
//!
//! Loaded networks are cached by path and modification (a file's mtime and size, an
//! object's ETag), so a match that builds an agent per game reads each file once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use super::{Agent, Limits, move_budget};
use crate::games::{Action, Game};
use crate::nn::checkpoint::load_net;
use crate::nn::{Net, NetEvaluator};
use crate::rng::Rng;
use crate::search::mcts::{MctsParams, Tree, search_batched};

/// Leaves evaluated together per batch within one search.
const LEAVES_PER_BATCH: u32 = 8;

type NetCache = Mutex<HashMap<PathBuf, (Option<String>, Net)>>;

/// The network at `path` (a file, directory or object URL), read once per modification.
pub fn cached_net(path: &Path) -> anyhow::Result<Net> {
    static CACHE: OnceLock<NetCache> = OnceLock::new();
    let modified = crate::nn::checkpoint::checkpoint_file(path)
        .ok()
        .filter(|_| !crate::nn::bundle::is_bundle(path))
        .map_or_else(
            || crate::store::local::file_tag(path),
            |f| crate::store::tag_location(&f),
        )
        .ok()
        .flatten();
    let cache = CACHE.get_or_init(Default::default);
    if let Some((m, net)) = cache.lock().expect("net cache").get(path)
        && *m == modified
    {
        return Ok(net.clone());
    }
    let net = load_net(path)?;
    cache
        .lock()
        .expect("net cache")
        .insert(path.to_path_buf(), (modified, net.clone()));
    Ok(net)
}

pub struct MctsAgent<G: Game> {
    name: String,
    eval: NetEvaluator,
    sims: u32,
    params: MctsParams,
    tree: Option<Tree<G>>,
    rng: Rng,
    last: Option<Summary>,
}

/// What the last search found.
struct Summary {
    sims: u32,
    millis: u128,
    player: &'static str,
    /// The mover's mean value at the root.
    value: f32,
    /// The most visited moves: (move, visits, value for the mover).
    best: Vec<(String, u32, f32)>,
}

impl<G: Game> MctsAgent<G> {
    /// `gumbel`: Gumbel root search over that many actions, deterministic; 0: PUCT.
    pub fn new(name: String, net: Net, sims: u32, gumbel: u32, seed: u64) -> MctsAgent<G> {
        MctsAgent {
            name,
            eval: NetEvaluator::new(net, 100_000),
            sims,
            params: MctsParams {
                leaves_per_tree: LEAVES_PER_BATCH,
                gumbel_actions: gumbel,
                ..MctsParams::default()
            },
            tree: None,
            rng: Rng::new(seed),
            last: None,
        }
    }
}

/// The simulations for one move: `go nodes` if given, else the spec's, never more than
/// [`crate::limits::MAX_SIMULATIONS`] (the tree grows with every simulation).
pub fn simulations(limits: &Limits, spec: u32) -> u32 {
    limits
        .nodes
        .map_or(spec as u64, |n| n)
        .clamp(1, crate::limits::MAX_SIMULATIONS) as u32
}

impl<G: Game> Agent<G> for MctsAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, state: &G, limits: &Limits) -> anyhow::Result<Action> {
        let start = Instant::now();
        let shape = &self.eval.net().shape;
        anyhow::ensure!(
            shape.game == state.name() && shape.input_len() == state.encoding_shape().len(),
            "{}: a network for '{}' cannot play '{}'",
            self.name,
            shape.game,
            state.name()
        );
        anyhow::ensure!(state.outcome().is_none(), "no legal move: the game is over");
        let tree = self.tree.get_or_insert_with(|| Tree::new(state.clone()));
        tree.reroot(state);
        let deadline = move_budget(state, limits, None).and_then(|b| start.checked_add(b));
        let sims = simulations(limits, self.sims);
        let (params, rng) = (&self.params, &mut self.rng);
        tree.begin(params, sims, rng, false);
        search_batched(
            &mut [tree],
            sims,
            params,
            &mut self.eval,
            |_, tree| tree.begin(params, sims, rng, false),
            || deadline.is_some_and(|d| Instant::now() >= d) || limits.stop.requested(),
        );
        let action = tree
            .choose(false, &mut self.rng)
            .ok_or_else(|| anyhow::anyhow!("the search produced no move"))?;
        let mut best = tree.root_children();
        best.sort_by_key(|c| std::cmp::Reverse(c.1));
        let me = state.to_move();
        self.last = Some(Summary {
            sims: tree.root_visits(),
            millis: start.elapsed().as_millis(),
            player: state.player_name(me),
            value: tree.root_values()[me],
            best: best
                .iter()
                .take(5)
                .map(|&(a, n, q)| (state.action_to_string(a), n, q))
                .collect(),
        });
        Ok(action)
    }

    fn last_info(&self) -> Option<String> {
        let s = self.last.as_ref()?;
        let pv: Vec<String> = s
            .best
            .iter()
            .take(3)
            .map(|(m, n, _)| format!("{m}:{n}"))
            .collect();
        Some(format!(
            "sims {} value {:+.3} time {} ms pv {}",
            s.sims,
            s.value,
            s.millis,
            pv.join(" ")
        ))
    }

    fn thinking(&self) -> Vec<String> {
        let Some(s) = &self.last else {
            return Vec::new();
        };
        let mut lines = vec![format!(
            "{} simulations in {} ms; {} expects {:+.2} (+1 a win, -1 a loss)",
            s.sims, s.millis, s.player, s.value
        )];
        for (m, n, q) in &s.best {
            let share = 100.0 * *n as f64 / s.sims.max(1) as f64;
            lines.push(format!("  {m:<18} {share:5.1}% of visits   value {q:+.2}"));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_nodes_is_capped_at_the_simulation_limit() {
        let nodes = |n| Limits {
            nodes: Some(n),
            ..Limits::default()
        };
        assert_eq!(simulations(&Limits::default(), 200), 200);
        assert_eq!(simulations(&nodes(50), 200), 50);
        assert_eq!(simulations(&nodes(0), 200), 1);
        assert_eq!(simulations(&nodes(10_000_000_000), 200), 1_000_000);
    }
}
