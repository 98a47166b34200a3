//! The config reference: every field's key, meaning and allowed values, declared once.
//!
//! [`FIELDS`] is the one table. [`Config::validate`] checks the numeric ranges from it,
//! `contagion config` prints it with each field's default (from [`Config::default`]),
//! and `docs/configuration.md`'s tables are generated from it ([`reference_markdown`];
//! `tests/suite/docs.rs` holds the file to it).

use std::fmt::Write as _;
use std::sync::LazyLock;

use super::Config;
use crate::games::GameKind;
use crate::nn::DeviceKind;
use crate::nn::heads::HEADS;
use crate::nn::nnue::FeatureSet;

/// One end of a numeric range: a number, or another field's value.
#[derive(Debug, Clone, Copy)]
pub enum Bound {
    /// A fixed number.
    Num(f64),
    /// The value of another field (`section.key`).
    Field(&'static str),
}

/// What a field accepts.
#[derive(Debug, Clone, Copy)]
pub enum Allowed {
    /// A number in `lo ..= hi`.
    Range(Bound, Bound),
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// A game's name: a built-in one ([`GameKind::all`]) or one a program adds.
    Game,
    /// `true` or `false`.
    Bool,
    /// Text of this form (checked by [`Config::validate`]).
    Text(&'static str),
}

/// A config field: its dotted key, what it does and what it accepts.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// `section.key`, as in `--set`.
    pub key: &'static str,
    /// What the field does, in a line.
    pub doc: &'static str,
    /// What it accepts.
    pub allowed: Allowed,
}

const fn num(key: &'static str, lo: f64, hi: f64, doc: &'static str) -> Field {
    Field {
        key,
        doc,
        allowed: Allowed::Range(Bound::Num(lo), Bound::Num(hi)),
    }
}

const fn one_of(key: &'static str, words: &'static [&'static str], doc: &'static str) -> Field {
    Field {
        key,
        doc,
        allowed: Allowed::OneOf(words),
    }
}

const fn text(key: &'static str, form: &'static str, doc: &'static str) -> Field {
    Field {
        key,
        doc,
        allowed: Allowed::Text(form),
    }
}

/// An integer with no useful upper bound but a sane one.
const MANY: f64 = 1e6;
/// The spec of an agent: see `docs/evaluate.md`.
const SPEC: &str = "an agent spec";
const LEAGUE: &str = "agent specs separated by spaces";

/// Every config field, section by section, in the order of [`Config`]'s sections: the
/// table below with each auxiliary head's weight and settings after the value's weight
/// (from [`crate::nn::heads::HEADS`]).
pub static FIELDS: LazyLock<Vec<Field>> = LazyLock::new(|| {
    let mut fields = TABLE.to_vec();
    let at = 1 + fields
        .iter()
        .position(|f| f.key == "train.value_weight")
        .expect("the value weight");
    let heads = HEADS.iter().flat_map(|h| {
        let weight = num(h.weight, 0.0, MAX_WEIGHT, h.weight_doc);
        std::iter::once(weight).chain(h.settings.iter().map(|s| num(s.key, s.lo, s.hi, s.doc)))
    });
    fields.splice(at..at, heads);
    fields
});

/// The greatest weight of a loss.
const MAX_WEIGHT: f64 = 100.0;

/// The fields but the auxiliary heads', section by section.
#[rustfmt::skip]
const TABLE: &[Field] = &[
    text("run.name", "letters, digits, '-', '_', '.'", "the run directory: `checkpoints/<name>`"),
    Field { key: "run.game", doc: "the game to train", allowed: Allowed::Game },
    text("run.init", "a model path: a bundle, a checkpoint or a run directory; empty: none", "a new run's first network: this model's layers (heads it lacks start fresh; a network with more blocks or channels starts as the model grown; the shapes must agree otherwise), not burn's initialisers"),
    text("run.seed", "an integer ≥ 0", "fixes self-play, sampling and match openings"),
    num("run.iterations", 1.0, MANY, "stop after this many iterations in all (a resume counts the earlier ones)"),
    num("run.max_minutes", 0.0, MANY, "stop starting iterations after this many minutes in all, resumes included, like `iterations` and `minutes` in `metrics.jsonl` (0: no limit)"),
    num("run.keep_checkpoints", 1.0, 1000.0, "numbered checkpoints kept (older ones are deleted; `best.ckpt` always stays)"),
    Field { key: "run.tensorboard", doc: "TensorBoard event files in `tensorboard/` beside `metrics.jsonl`", allowed: Allowed::Bool },
    num("network.blocks", 0.0, 40.0, "residual blocks in the trunk"),
    num("network.channels", 4.0, 512.0, "channels per convolution"),
    num("network.value_hidden", 4.0, 1024.0, "hidden units in the value head"),
    Field { key: "network.global_pool", doc: "a global pooling bias in every second block, from the second: the block's input pooled over the board (mean and maximum per channel) and turned into one bias a channel (KataGo's global pooling)", allowed: Allowed::Bool },
    num("mcts.simulations", 1.0, 100_000.0, "self-play simulations per move"),
    num("mcts.c_puct", 0.0, 100.0, "exploration constant in PUCT"),
    num("mcts.fpu_reduction", 0.0, 2.0, "an unvisited child's value is its parent's minus this (0: explore by prior alone)"),
    num("mcts.dirichlet_alpha", 0.001, 100.0, "root noise concentration (about 10 / typical legal moves)"),
    num("mcts.dirichlet_fraction", 0.0, 1.0, "root noise weight (0: none)"),
    num("mcts.temperature_plies", 0.0, 10_000.0, "moves sampled by visit count for this many plies, then the most visited"),
    num("mcts.leaves_per_tree", 1.0, 64.0, "leaves each self-play tree adds to a batch, kept apart by virtual loss (more: bigger batches, fewer games in flight)"),
    one_of("mcts.root", &["puct", "gumbel"], "the root rule: `puct` (AlphaZero) or `gumbel` (Gumbel-top-k with sequential halving, improved-policy targets; no noise, no temperature) (see the training guide)"),
    num("mcts.gumbel_actions", 1.0, crate::limits::MAX_GUMBEL_ACTIONS as f64, "gumbel: root actions sampled per search (k)"),
    num("mcts.gumbel_c_visit", 0.0, 10_000.0, "gumbel: σ(q) = (c_visit + max visits) · c_scale · q"),
    num("mcts.gumbel_c_scale", 0.001, 1000.0, "gumbel: see `gumbel_c_visit`"),
    num("mcts.full_search_fraction", 0.01, 1.0, "playout caps (KataGo): the share of moves searched with `simulations` and recorded as policy targets"),
    num("mcts.forced_playouts", 0.0, 10.0, "puct: forced playouts and policy target pruning (KataGo): each root child of a noised search gets sqrt(k · prior · visits) visits, taken back from its target; k (KataGo's 2), 0: off"),
    num("mcts.draw_value", -1.0, 1.0, "what a game drawn by its rules scores for every seat in the self-play search's tree (0: as the rules do; below 0 no seat steers for a draw; `selfplay.draw_value` is what the targets record)"),
    Field {
        key: "mcts.fast_simulations",
        doc: "playout caps: the simulations of the other moves (no noise, no target; checked when `full_search_fraction` < 1)",
        allowed: Allowed::Range(Bound::Num(1.0), Bound::Field("mcts.simulations")),
    },
    one_of("selfplay.network", &["latest", "best"], "who plays self-play: `latest` (the trainer's newest network, AlphaZero) or `best` (the gated best, AlphaGo Zero)"),
    num("selfplay.games_per_iteration", 1.0, MANY, "self-play games per iteration"),
    num("selfplay.workers", 0.0, 256.0, "self-play threads (0: the trainer plays no games and waits for `contagion selfplay` workers; its matches then use every core)"),
    num("selfplay.concurrent_games", 1.0, 4096.0, "games in flight per worker (their leaves form one batch)"),
    num("selfplay.inference_batch", 0.0, 65_536.0, "positions one forward gathers from every worker's batch (an inference queue, for a GPU: workers × concurrent_games should reach it; 0: each worker runs its own batch)"),
    num("selfplay.cache_size", 0.0, 1e8, "evaluation cache entries per worker (0: no cache)"),
    num("selfplay.resign_threshold", -1.0, 0.0, "two-player games: a player resigns when its root value stays below this ..."),
    num("selfplay.resign_moves", 0.0, 1000.0, "... for this many own moves in a row (0: never resign)"),
    num("selfplay.resign_check_fraction", 0.0, 1.0, "the share of games played out anyway, to measure false resignations"),
    num("selfplay.max_plies", 0.0, MANY, "games are cut here and adjudicated by the game's score (power, pieces, the Chexers race; 0: no cap)"),
    num("selfplay.max_plies_iterations", 0.0, MANY, "the cap holds for iterations 1 to this one, later games end by their rules (0: every iteration)"),
    num("selfplay.score_weight", 0.0, 1.0, "value target = (1 - w) · result + w · the game's score vector (power or piece share; Chexers: 0.8 tanh(race lead in moves / 14))"),
    text("selfplay.opponent", LEAGUE, "a fixed agent (a baseline or `model:PATH`), or a league of them separated by spaces, one drawn for each game, that plays every seat but the network's ..."),
    num("selfplay.opponent_fraction", 0.0, 1.0, "... in this share of games (0: pure self-play)"),
    num("selfplay.pfsp", 0.0, 10.0, "a league member is drawn in proportion to (1 - the network's recent score against it) to this power, a twentieth of the largest at least (0: every member alike)"),
    num("selfplay.draw_value", -1.0, 1.0, "a game drawn by its rules is recorded as this for every seat (0: like any result; below 0 no seat plays for a draw)"),
    num("replay.window", 1.0, 1e8, "positions kept (the most recent)"),
    Field {
        key: "replay.min_positions",
        doc: "no training before the buffer holds this many positions",
        allowed: Allowed::Range(Bound::Num(1.0), Bound::Field("replay.window")),
    },
    one_of("train.device", DeviceKind::NAMES, "where the network trains and self-play's forward runs: `cpu` (the fast CPU paths) or `wgpu` (a GPU through burn's wgpu backend: build with `--features wgpu`, docs/gpu.md)"),
    num("train.batch_size", 1.0, 65_536.0, "samples per step"),
    num("train.replay_ratio", 0.0, 1000.0, "samples trained per new self-play position: steps = positions × ratio / batch"),
    num("train.max_steps_per_iteration", 0.0, 1e7, "at most this many steps an iteration"),
    one_of("train.optimizer", &["adam", "sgd"], "`adam` (with `weight_decay`) or `sgd` (with `momentum`)"),
    num("train.learning_rate", 1e-7, 10.0, "the peak learning rate"),
    Field {
        key: "train.lr_min",
        doc: "the floor of the cosine decay",
        allowed: Allowed::Range(Bound::Num(0.0), Bound::Field("train.learning_rate")),
    },
    num("train.lr_decay_steps", 0.0, 1e12, "steps of cosine decay from `learning_rate` to `lr_min` (0: a constant rate)"),
    num("train.momentum", 0.0, 0.999, "sgd's momentum"),
    num("train.weight_decay", 0.0, 1.0, "L2 on every parameter"),
    num("train.value_weight", 0.0, MAX_WEIGHT, "the value loss's weight against the policy cross-entropy"),
    num("train.policy_target_power", 0.05, 1.0, "the policy target is the visit distribution raised to this power and normalised (1: as it is; below 1 softer, KataGo's soft policy 0.25)"),
    num("train.policy_surprise_weight", 0.0, 1.0, "positions are drawn with probability ∝ (1 - w) + w · their policy surprise over the window's mean (KL of the target from the network's prior, capped at 5; 0: uniformly; KataGo's 0.5)"),
    num("train.value_target_mix", 0.0, 1.0, "value target = (1 - m) · the target from the game + m · the search's root value (0: the game alone, AlphaZero)"),
    num("train.value_horizon", 0.0, 100_000.0, "value targets from the score vector this many plies later (the result if the game ends sooner; 0: the game's end)"),
    num("train.threads", 0.0, crate::limits::MAX_THREADS as f64, "threads one training step is split over (0: every core)"),
    num("gating.games", 0.0, 100_000.0, "candidate-against-best games per iteration, a multiple of the players (0: always promote)"),
    num("gating.threshold", 0.0, 1.0, "the score the candidate needs to become the best (with `sprt`: strictly between 0.5 and 1)"),
    num("gating.simulations", 1.0, 100_000.0, "simulations per move in gating games"),
    num("gating.opening_plies", 0.0, 40.0, "random plies before each set of games (every seat plays each opening)"),
    Field { key: "gating.sprt", doc: "play in rounds and stop early when a sequential probability ratio test decides", allowed: Allowed::Bool },
    num("gating.sprt_elo0", -1000.0, 1000.0, "SPRT: H0's Elo (the candidate no better)"),
    num("gating.sprt_elo1", -1000.0, 1000.0, "SPRT: H1's Elo, above `sprt_elo0` (0: the Elo of `threshold`)"),
    num("gating.sprt_alpha", 0.001, 0.5, "SPRT: the false-promotion rate"),
    num("gating.sprt_beta", 0.001, 0.5, "SPRT: the missed-promotion rate"),
    num("gating.baseline_games", 0.0, 100_000.0, "the baseline gate: the candidate and the best each play `baseline.spec` this many games, a multiple of the players (0: off) ..."),
    num("gating.baseline_margin", 0.0, 1.0, "... and a candidate scoring more than this below the best is refused"),
    Field { key: "gating.baseline_league", doc: "the baseline gate plays the league member (`selfplay.opponent`) the network scores worst against in its self-play so far, instead of `baseline.spec`", allowed: Allowed::Bool },
    num("baseline.every", 0.0, MANY, "measure the best against the baseline and greedy every this many iterations (0: never)"),
    text("baseline.spec", SPEC, "the fixed baseline (measured against, never trained against)"),
    num("baseline.games", 0.0, 100_000.0, "games against each, a multiple of the players"),
    num("baseline.simulations", 1.0, 100_000.0, "the network's simulations per move in these games"),
    num("baseline.opening_plies", 0.0, 40.0, "random plies before each set of games"),
    num("distill.lambda", 0.0, 1.0, "the fast evaluator's target: λ · the game's result + τ · the teacher's value + (1 - λ - τ) · the search's root value, τ being `distill.teacher_value`"),
    num("distill.teacher_value", 0.0, 1.0, "the share of the evaluator's target taken from the teacher network's own value of each position, out of the search value's share (`distill --teacher`; λ + this ≤ 1)"),
    num("distill.hidden", 8.0, 1024.0, "the evaluator's accumulator units"),
    num("distill.dense", 0.0, 256.0, "units of the dense layer after the accumulator (0: none, the outputs read the accumulator: the public engines' shape)"),
    num("distill.epochs", 1.0, 1000.0, "passes over the training positions"),
    num("distill.batch_size", 16.0, 65_536.0, "positions a training step"),
    num("distill.learning_rate", 1e-6, 1.0, "Adam's peak learning rate (cosine decay to a tenth)"),
    num("distill.validation", 0.0, 0.5, "the share of positions held out (by hash) for the validation loss"),
    num("distill.max_positions", 0.0, 1e9, "train on about this many positions at most (distinct ones unless streamed), the newest files first (0: all)"),
    num("distill.stream", 0.0, 1e9, "0: read every position into memory, each once (repeats' targets averaged); N: stream the data, the files in a new random order each epoch, through a shuffling buffer of N positions (memory for N, whatever the data's size; repeats kept; no `distill.branches`)"),
    num("distill.branches", 0.0, 64.0, "positions made from each game position by a few random plies (at most `train::distill::BRANCH_PLIES`), each labelled by the teacher network's value alone (`distill --teacher`): the positions a search meets off the games' lines (0: none)"),
    one_of("distill.features", FeatureSet::NAMES, "the evaluator's inputs: `encoding-set` (the encoding's entries that are on: a square and piece each), `encoding-set+2x2` (and every 2×2 window's pattern of owners, a game with an owner map) or `2x2` (the windows' patterns alone: a feature a window)"),
    one_of("distill.activation", crate::nn::nnue::Activation::NAMES, "the evaluator's activation after its accumulator: `crelu` (clipped to [0, 1]) or `screlu` (that, squared: the public Ataxx engines')"),
    Field { key: "distill.perspective", doc: "the evaluator's perspective form: an accumulator a seat, each reading the board as that seat sees it through the same weights, the layer after reading them side by side, the mover's first (feature set `2x2` alone)", allowed: Allowed::Bool },
    one_of("distill.trainer", crate::nn::nnue::autodiff::Trainer::NAMES, "how the evaluator trains: `sparse` (the hand-derived step over the active features, fast) or `burn` (burn's autodiff over dense rows: the reference)"),
    num("distill.teacher_simulations", 1.0, 100_000.0, "`distill --generate`: the teacher's simulations a move"),
    num("distill.games", 1.0, MANY, "`distill --generate`: games to play; `distill --loop`: games a generation"),
    num("distill.generations", 1.0, 100_000.0, "`distill --loop`: generations to run (each plays, trains, gates)"),
    num("distill.loop_nodes", 1.0, 1e9, "`distill --loop`: the alpha-beta player's nodes a move, in its games and its gating"),
    one_of("distill.loop_start", &["fresh", "best"], "`distill --loop`: where each generation's candidate starts: `fresh` (weights drawn from the generation's seed) or `best` (the best evaluator's weights, trained on from there)"),
    num("distill.opening_plies", 0.0, 40.0, "`distill --loop` and `--generate --player`: random plies before each game"),
    num("distill.opening_filter", 0.0, 1.0, "`distill --loop` and `--generate --player`: keep an opening only if the player's first search values it within this of a draw (0: every opening)"),
    num("distill.adjudicate", 0.0, 1.0, "`distill --loop` and `--generate --player`: end a game as a win for the side ahead once a search values it at least this (0: play it out)"),
];

/// The field with this key.
pub fn field(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}

/// `config`'s fields as TOML values, by `section.key`.
pub(super) fn values(config: &Config) -> toml::Table {
    let table: toml::Table = toml::from_str(&config.to_toml()).expect("a config's TOML parses");
    let mut out = toml::Table::new();
    for (section, fields) in table {
        for (key, value) in fields.as_table().cloned().unwrap_or_default() {
            out.insert(format!("{section}.{key}"), value);
        }
    }
    out
}

/// A TOML number as `f64`.
pub(super) fn number(v: &toml::Value) -> Option<f64> {
    v.as_integer().map(|i| i as f64).or_else(|| v.as_float())
}

/// A number as written in a config: integers bare, an `f32` field's value at `f32`
/// precision (0.3, not 0.30000001192092896).
pub(super) fn show(v: f64) -> String {
    if (v as f32) as f64 == v {
        format!("{}", v as f32)
    } else {
        format!("{v}")
    }
}

impl Bound {
    fn text(self) -> String {
        match self {
            Bound::Num(n) if n >= 1e6 && n.fract() == 0.0 => format!("{n:.0}"),
            Bound::Num(n) => show(n),
            Bound::Field(key) => format!("`{}`", key.split_once('.').map_or(key, |(_, k)| k)),
        }
    }

    /// The bound's value in `values`.
    pub(super) fn value(self, values: &toml::Table) -> f64 {
        match self {
            Bound::Num(n) => n,
            Bound::Field(key) => values.get(key).and_then(number).expect("a numeric field"),
        }
    }
}

impl Allowed {
    /// What is allowed, in words.
    pub fn text(&self) -> String {
        match self {
            Allowed::Range(lo, hi) => format!("{} ..= {}", lo.text(), hi.text()),
            Allowed::OneOf(words) => words.join(", "),
            Allowed::Game => format!(
                "{}, or a game a program built on the library adds",
                GameKind::names()
            ),
            Allowed::Bool => "true, false".into(),
            Allowed::Text(form) => (*form).into(),
        }
    }
}

/// A TOML value as the reference shows it.
fn shown(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("\"{s}\""),
        v => number(v).map_or_else(|| v.to_string(), show),
    }
}

/// The sections in order, each with its fields.
fn sections() -> Vec<(&'static str, Vec<&'static Field>)> {
    let mut out: Vec<(&str, Vec<&Field>)> = Vec::new();
    for f in FIELDS.iter() {
        let section = f.key.split_once('.').expect("section.key").0;
        match out.last_mut() {
            Some((s, fields)) if *s == section => fields.push(f),
            _ => out.push((section, vec![f])),
        }
    }
    out
}

/// The reference as Markdown, one table per section: what `docs/configuration.md` holds.
pub fn reference_markdown() -> String {
    let defaults = values(&Config::default());
    let mut out = String::new();
    for (section, fields) in sections() {
        let _ = writeln!(out, "### `[{section}]`\n");
        out.push_str("| field | default | allowed | what |\n|---|---|---|---|\n");
        for f in fields {
            let (_, key) = f.key.split_once('.').expect("section.key");
            let default = shown(&defaults[f.key]);
            let allowed = f.allowed.text();
            let _ = writeln!(out, "| `{key}` | `{default}` | {allowed} | {} |", f.doc);
        }
        out.push('\n');
    }
    out
}

/// `config` as TOML, every field with its meaning, what it accepts and its default as a
/// comment: what `contagion config --config FILE` prints.
pub fn annotated(config: &Config) -> String {
    let defaults = values(&Config::default());
    let ours = values(config);
    let mut out = String::new();
    for (section, fields) in sections() {
        let _ = writeln!(out, "[{section}]");
        for f in fields {
            let (_, key) = f.key.split_once('.').expect("section.key");
            let value = ours[f.key].to_string();
            let default = defaults[f.key].to_string();
            let note = if value == default {
                String::new()
            } else {
                format!("; default {}", shown(&defaults[f.key]))
            };
            let doc = f.doc.replace('`', "");
            let allowed = f.allowed.text().replace('`', "");
            let _ = writeln!(out, "{key} = {value}  # {doc} [{allowed}{note}]");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_head_s_weight_is_the_field_its_entry_names() {
        for head in &crate::nn::heads::HEADS {
            let (section, key) = head.weight.split_once('.').expect("section.key");
            let text = format!("[run]\nname = \"t\"\n[{section}]\n{key} = 0.25\n");
            let config = Config::parse(&text, "test").unwrap();
            let weights = config.train.head_weights();
            for (aux, &w) in weights.iter() {
                assert_eq!(
                    w,
                    if aux == head.aux { 0.25 } else { 0.0 },
                    "{}",
                    head.weight
                );
            }
            assert!(
                field(head.weight).is_some(),
                "{} is in the table",
                head.weight
            );
        }
    }

    #[test]
    fn the_table_lists_every_field_of_the_config_once_in_its_order() {
        let code: Vec<String> = values(&Config::default()).keys().cloned().collect();
        let mut table: Vec<String> = FIELDS.iter().map(|f| f.key.to_string()).collect();
        let sections: Vec<&str> = sections().iter().map(|(s, _)| *s).collect();
        assert_eq!(
            sections,
            [
                "run", "network", "mcts", "selfplay", "replay", "train", "gating", "baseline",
                "distill"
            ]
        );
        table.sort();
        let mut code = code;
        code.sort();
        assert_eq!(table, code);
        for f in FIELDS.iter() {
            if let Allowed::Range(lo, hi) = f.allowed {
                let v = values(&Config::default());
                assert!(lo.value(&v) <= hi.value(&v), "{}", f.key);
            }
        }
    }

    #[test]
    fn every_range_is_checked_at_both_ends() {
        let mut checked = 0;
        for f in FIELDS.iter() {
            let Allowed::Range(lo, hi) = f.allowed else {
                continue;
            };
            let defaults = values(&Config::default());
            for (bound, step) in [(lo, -1.0), (hi, 1.0)] {
                let Bound::Num(n) = bound else { continue };
                let (section, key) = f.key.split_once('.').unwrap();
                let mut table: toml::Table = toml::from_str(&Config::default().to_toml()).unwrap();
                let out = if defaults[f.key].is_integer() {
                    toml::Value::Integer(n as i64 + step as i64)
                } else {
                    toml::Value::Float(n + step * n.abs().max(1.0) * 0.5)
                };
                table[section]
                    .as_table_mut()
                    .unwrap()
                    .insert(key.into(), out);
                if f.key == "mcts.fast_simulations" {
                    table["mcts"]
                        .as_table_mut()
                        .unwrap()
                        .insert("full_search_fraction".into(), 0.5.into());
                }
                let text = toml::to_string(&table).unwrap();
                let Ok(config) = toml::from_str::<Config>(&text) else {
                    continue; // below an unsigned type's zero: serde refuses it
                };
                let err = config.validate().unwrap_err().to_string();
                assert!(
                    err.starts_with(&format!("{} = ", f.key)),
                    "{}: {err}",
                    f.key
                );
                checked += 1;
            }
        }
        assert!(checked > 60, "{checked}");
    }
}
