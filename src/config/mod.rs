//! The training configuration: TOML, typed and validated.
//!
//! Every field's meaning and allowed values are declared once, in [`fields::FIELDS`]
//! (which `contagion config` prints and `docs/configuration.md` is made from); its
//! default is the section's `Default` here. Unknown fields are refused by serde (the
//! message names the field and lists the known ones); values out of range are refused by
//! [`Config::validate`] with the field, the value and the range.

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::games::GameName;
use crate::nn::heads::{Aux, PerHead};
use crate::search::mcts::{GumbelParams, MctsParams};

pub mod fields;
mod validate;

/// `mcts.root`: the rule at the root of the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Root {
    /// AlphaZero: Dirichlet noise, visit-count targets, temperature.
    Puct,
    /// Gumbel-top-k with sequential halving, improved-policy targets; noise and
    /// temperature are not used.
    Gumbel,
}

/// `selfplay.network`: which network plays self-play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Generator {
    /// The trainer's newest network (AlphaZero).
    Latest,
    /// The gated best (AlphaGo Zero).
    Best,
}

/// `train.optimizer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// Adam (burn's), with `train.weight_decay`.
    Adam,
    /// With `train.momentum`.
    Sgd,
}

/// `distill.loop_start`: where each generation's candidate starts in the evaluator's loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoopStart {
    /// Weights drawn afresh from the generation's seed.
    #[default]
    Fresh,
    /// The best evaluator's weights, trained on from there.
    Best,
}

/// A training config: the TOML file `contagion train --config` reads, section by section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// What the run is: its name, game, seed and length.
    pub run: RunConfig,
    /// The network's shape.
    pub network: NetworkConfig,
    /// The search in self-play.
    pub mcts: MctsConfig,
    /// How self-play games are played and recorded.
    pub selfplay: SelfPlayConfig,
    /// The replay window.
    pub replay: ReplayConfig,
    /// The training step and its schedule.
    pub train: TrainConfig,
    /// How a candidate becomes the best.
    pub gating: GatingConfig,
    /// The fixed baseline the best is measured against.
    pub baseline: BaselineConfig,
    /// The fast evaluator's training (`contagion distill`).
    pub distill: DistillConfig,
}

/// The `[run]` section: its fields are documented in [`fields::FIELDS`].
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    pub name: String,
    pub game: GameName,
    pub init: String,
    pub seed: u64,
    pub iterations: u32,
    pub max_minutes: f64,
    pub keep_checkpoints: u32,
    pub tensorboard: bool,
}

/// The `[network]` section: its fields are documented in [`fields::FIELDS`].
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    pub blocks: usize,
    pub channels: usize,
    pub value_hidden: usize,
    pub global_pool: bool,
}

/// The `[mcts]` section: its fields are documented in [`fields::FIELDS`].
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MctsConfig {
    pub simulations: u32,
    pub c_puct: f32,
    pub fpu_reduction: f32,
    pub dirichlet_alpha: f32,
    pub dirichlet_fraction: f32,
    pub temperature_plies: u32,
    pub leaves_per_tree: u32,
    pub root: Root,
    pub gumbel_actions: u32,
    pub gumbel_c_visit: f32,
    pub gumbel_c_scale: f32,
    pub full_search_fraction: f64,
    pub fast_simulations: u32,
    pub forced_playouts: f32,
    pub draw_value: f32,
}

/// The `[selfplay]` section: its fields are documented in [`fields::FIELDS`].
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    pub network: Generator,
    pub games_per_iteration: u32,
    pub workers: usize,
    pub concurrent_games: usize,
    pub inference_batch: usize,
    pub cache_size: usize,
    pub resign_threshold: f32,
    pub resign_moves: u32,
    pub resign_check_fraction: f64,
    pub max_plies: u32,
    pub max_plies_iterations: u32,
    pub score_weight: f64,
    pub opponent: String,
    pub opponent_fraction: f64,
    pub pfsp: f64,
    pub draw_value: f64,
}

/// The `[replay]` section: its fields are documented in [`fields::FIELDS`].
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReplayConfig {
    pub window: usize,
    pub min_positions: usize,
}

/// The `[train]` section: its fields are documented in [`fields::FIELDS`].
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    pub device: crate::nn::DeviceKind,
    pub batch_size: usize,
    pub replay_ratio: f64,
    pub max_steps_per_iteration: u32,
    pub optimizer: Optimizer,
    pub learning_rate: f64,
    pub lr_min: f64,
    pub lr_decay_steps: u64,
    pub momentum: f64,
    pub weight_decay: f64,
    pub value_weight: f64,
    pub ownership_weight: f64,
    pub margin_weight: f64,
    pub short_value_weight: f64,
    pub short_value_plies: u32,
    pub soft_policy_weight: f64,
    pub policy_target_power: f64,
    pub policy_surprise_weight: f64,
    pub value_target_mix: f64,
    pub value_horizon: u32,
    pub threads: usize,
}

impl TrainConfig {
    /// Each auxiliary head's loss weight: the field its entry names
    /// ([`crate::nn::heads::Head::weight`]; 0: the network has no such head).
    pub fn head_weights(&self) -> PerHead<f64> {
        PerHead::from_fn(|aux| match aux {
            Aux::Ownership => self.ownership_weight,
            Aux::Margin => self.margin_weight,
            Aux::ShortValue => self.short_value_weight,
            Aux::SoftPolicy => self.soft_policy_weight,
        })
    }
}

/// The `[gating]` section: its fields are documented in [`fields::FIELDS`].
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GatingConfig {
    pub games: u32,
    pub threshold: f64,
    pub simulations: u32,
    pub opening_plies: u32,
    pub sprt: bool,
    pub sprt_elo0: f64,
    pub sprt_elo1: f64,
    pub sprt_alpha: f64,
    pub sprt_beta: f64,
    pub baseline_games: u32,
    pub baseline_margin: f64,
    pub baseline_league: bool,
}

/// The `[baseline]` section: its fields are documented in [`fields::FIELDS`].
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BaselineConfig {
    pub every: u32,
    pub spec: String,
    pub games: u32,
    pub simulations: u32,
    pub opening_plies: u32,
}

/// The `[distill]` section: its fields are documented in [`fields::FIELDS`].
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DistillConfig {
    pub lambda: f64,
    pub teacher_value: f64,
    pub hidden: u32,
    pub dense: u32,
    pub epochs: u32,
    pub batch_size: u32,
    pub learning_rate: f64,
    pub validation: f64,
    pub max_positions: u64,
    pub stream: u64,
    pub branches: u32,
    pub features: crate::nn::nnue::FeatureSet,
    pub trainer: crate::nn::nnue::autodiff::Trainer,
    pub activation: crate::nn::nnue::Activation,
    pub perspective: bool,
    pub teacher_simulations: u32,
    pub games: u32,
    pub generations: u32,
    pub loop_nodes: u64,
    pub loop_start: LoopStart,
    pub opening_plies: u32,
    pub opening_filter: f64,
    pub adjudicate: f64,
}

impl Default for DistillConfig {
    fn default() -> Self {
        DistillConfig {
            lambda: 0.5,
            teacher_value: 0.0,
            hidden: 128,
            dense: 32,
            epochs: 4,
            batch_size: 1024,
            learning_rate: 2e-3,
            validation: 0.05,
            max_positions: 0,
            stream: 0,
            branches: 0,
            features: crate::nn::nnue::FeatureSet::Encoding,
            trainer: crate::nn::nnue::autodiff::Trainer::Sparse,
            activation: crate::nn::nnue::Activation::Crelu,
            perspective: false,
            teacher_simulations: 16,
            games: 2000,
            generations: 20,
            loop_nodes: 2000,
            loop_start: LoopStart::Fresh,
            opening_plies: 8,
            opening_filter: 0.0,
            adjudicate: 0.0,
        }
    }
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            name: "infexion".into(),
            game: GameName::default(),
            init: String::new(),
            seed: 1,
            iterations: 100,
            max_minutes: 0.0,
            keep_checkpoints: 3,
            tensorboard: true,
        }
    }
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            blocks: 4,
            channels: 32,
            value_hidden: 64,
            global_pool: false,
        }
    }
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            simulations: 100,
            c_puct: crate::search::mcts::C_PUCT,
            fpu_reduction: crate::search::mcts::FPU_REDUCTION,
            dirichlet_alpha: 0.3,
            dirichlet_fraction: 0.25,
            temperature_plies: 30,
            leaves_per_tree: 1,
            root: Root::Puct,
            gumbel_actions: GumbelParams::default().actions,
            gumbel_c_visit: GumbelParams::default().c_visit,
            gumbel_c_scale: GumbelParams::default().c_scale,
            full_search_fraction: 1.0,
            fast_simulations: 16,
            forced_playouts: 0.0,
            draw_value: 0.0,
        }
    }
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            network: Generator::Latest,
            games_per_iteration: 32,
            workers: 2,
            concurrent_games: 16,
            inference_batch: 0,
            cache_size: 200_000,
            resign_threshold: -0.9,
            resign_moves: 0,
            resign_check_fraction: 0.1,
            max_plies: 0,
            max_plies_iterations: 0,
            score_weight: 0.0,
            opponent: "greedy".into(),
            opponent_fraction: 0.0,
            pfsp: 2.0,
            draw_value: 0.0,
        }
    }
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            window: 100_000,
            min_positions: 1_000,
        }
    }
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            device: crate::nn::DeviceKind::Cpu,
            batch_size: 128,
            replay_ratio: 2.0,
            max_steps_per_iteration: 1_000,
            optimizer: Optimizer::Adam,
            learning_rate: 1e-3,
            lr_min: 1e-4,
            lr_decay_steps: 0,
            momentum: 0.9,
            weight_decay: 1e-4,
            value_weight: 1.0,
            ownership_weight: 0.0,
            margin_weight: 0.0,
            short_value_weight: 0.0,
            short_value_plies: 8,
            soft_policy_weight: 0.0,
            policy_target_power: 1.0,
            policy_surprise_weight: 0.0,
            value_target_mix: 0.0,
            value_horizon: 0,
            threads: 0,
        }
    }
}

impl Default for GatingConfig {
    fn default() -> Self {
        GatingConfig {
            games: 20,
            threshold: 0.55,
            simulations: 50,
            opening_plies: 4,
            sprt: false,
            sprt_elo0: 0.0,
            sprt_elo1: 0.0,
            sprt_alpha: 0.05,
            sprt_beta: 0.05,
            baseline_games: 0,
            baseline_margin: 0.1,
            baseline_league: false,
        }
    }
}

impl Default for BaselineConfig {
    fn default() -> Self {
        BaselineConfig {
            every: 2,
            spec: "alphabeta:depth=2".into(),
            games: 20,
            simulations: 100,
            opening_plies: 4,
        }
    }
}

/// Sets `SECTION.KEY=VALUE` in a parsed config file.
fn apply_override(table: &mut toml::Table, text: &str) -> anyhow::Result<()> {
    let err = |why: &str| anyhow::anyhow!("--set {}: {why}", crate::limits::clip(text));
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| err("expected SECTION.KEY=VALUE, e.g. --set mcts.simulations=64"))?;
    let path: Vec<&str> = key.trim().split('.').map(str::trim).collect();
    if path.len() != 2 || path.iter().any(|p| p.is_empty()) {
        return Err(err(
            "the key must be SECTION.KEY, e.g. selfplay.games_per_iteration",
        ));
    }
    let value = value.trim();
    let parsed = format!("v = {value}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.to_string()));
    let section = table
        .entry(path[0])
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let section = section
        .as_table_mut()
        .ok_or_else(|| err(&format!("'{}' is not a section", path[0])))?;
    section.insert(path[1].to_string(), parsed);
    Ok(())
}

impl Config {
    /// Parses and validates TOML text; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> anyhow::Result<Config> {
        let config = parse_toml(text).map_err(|e| anyhow::anyhow!("{source}: {e}"))?;
        config
            .validate()
            .with_context(|| format!("{source}: invalid configuration"))?;
        Ok(config)
    }

    /// Reads, parses and validates the config at `path`.
    pub fn load(path: &Path) -> anyhow::Result<Config> {
        Config::load_with(path, &[])
    }

    /// Loads `path` with `overrides` (`SECTION.KEY=VALUE`, as `train --set` takes them)
    /// applied on top, then validates the result like a file. A value is read as TOML
    /// (`0.5`, `true`, `"text"`, `[1, 2]`), or else as a plain string (`game=ataxx`).
    pub fn load_with(path: &Path, overrides: &[String]) -> anyhow::Result<Config> {
        let text = crate::limits::read_text(path, crate::limits::MAX_CONFIG_BYTES)
            .with_context(|| format!("reading config {}", path.display()))?;
        let source = path.display().to_string();
        if overrides.is_empty() {
            return Config::parse(&text, &source);
        }
        let mut table: toml::Table = text.parse().map_err(|e| anyhow::anyhow!("{source}: {e}"))?;
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        let merged = toml::to_string(&table).expect("a TOML table serialises");
        let sets: Vec<String> = overrides.iter().map(|o| crate::limits::clip(o)).collect();
        Config::parse(
            &merged,
            &format!("{source} with --set {}", sets.join(" --set ")),
        )
    }

    /// The config as TOML, every field written.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a config serialises")
    }

    /// The fields a resumed run may not change, as `(field, old, new)` for the first
    /// difference with `other`.
    pub fn incompatible_change(&self, other: &Config) -> Option<(String, String, String)> {
        let field = |name: &str, f: fn(&Config) -> String| (name.to_string(), f(self), f(other));
        let pairs = [
            field("run.game", |c| c.run.game.to_string()),
            field("run.name", |c| c.run.name.clone()),
            field("network.blocks", |c| c.network.blocks.to_string()),
            field("network.channels", |c| c.network.channels.to_string()),
            field("network.value_hidden", |c| {
                c.network.value_hidden.to_string()
            }),
            field("network.global_pool", |c| c.network.global_pool.to_string()),
            field("train.optimizer", |c| {
                format!("{:?}", c.train.optimizer).to_lowercase()
            }),
        ];
        pairs.into_iter().find(|(_, a, b)| a != b)
    }

    /// Threads for the trainer's matches (gating, baselines): `selfplay.workers`, or
    /// every core when the trainer plays no self-play itself (`workers = 0`).
    pub fn match_threads(&self) -> usize {
        match self.selfplay.workers {
            0 => crate::limits::cores(),
            n => n,
        }
    }

    /// The ply cap of self-play games in `iteration` (0: none): `selfplay.max_plies`
    /// until `selfplay.max_plies_iterations`, then none.
    pub fn ply_cap(&self, iteration: u32) -> u32 {
        let s = &self.selfplay;
        match s.max_plies_iterations {
            0 => s.max_plies,
            last if iteration <= last => s.max_plies,
            _ => 0,
        }
    }

    /// The search settings this config gives MCTS, with root noise or without.
    pub fn mcts_params(&self, noise: bool) -> MctsParams {
        MctsParams {
            c_puct: self.mcts.c_puct,
            fpu_reduction: self.mcts.fpu_reduction,
            dirichlet_alpha: self.mcts.dirichlet_alpha,
            dirichlet_fraction: if noise {
                self.mcts.dirichlet_fraction
            } else {
                0.0
            },
            leaves_per_tree: if noise { self.mcts.leaves_per_tree } else { 1 },
            forced_playouts: if noise {
                self.mcts.forced_playouts
            } else {
                0.0
            },
            gumbel: (self.mcts.root == Root::Gumbel).then_some(GumbelParams {
                actions: self.mcts.gumbel_actions,
                c_visit: self.mcts.gumbel_c_visit,
                c_scale: self.mcts.gumbel_c_scale,
            }),
            draw_value: self.mcts.draw_value,
            repeat_value: 0.0,
        }
    }

    /// A short digest of the whole config (CRC-32 of its TOML), for provenance.
    pub fn digest(&self) -> String {
        format!("{:08x}", crc32fast::hash(self.to_toml().as_bytes()))
    }
}

/// `text` as a [`Config`]; an error names the field by its dotted path
/// (`train.optimizer: unknown variant ...`) as well as its line.
fn parse_toml(text: &str) -> Result<Config, String> {
    let de = toml::Deserializer::parse(text).map_err(|e| e.to_string())?;
    serde_path_to_error::deserialize(de).map_err(|e| match e.path().to_string() {
        p if p == "." => e.inner().to_string(),
        p => format!("{p}: {}", e.inner()),
    })
}
