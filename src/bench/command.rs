//! `contagion bench`'s measurements as its flags ask for them (each kind's options are
//! declared once, in [`options`](super::options)) and the lines it reports, each as text
//! for a terminal and as JSON for `--json`. The command only parses and prints.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use super::options::{
    AgreeOptions, EndgameOptions, NnOptions, NnueOptions, RulesOptions, SearchOptions,
    SelfplayOptions, TrainOptions,
};
use super::{agree, endgame, learning, nnue};
use crate::agents::{AgentSpec, Baselines};
use crate::games::Game;

/// One reported figure: as text, and as JSON.
#[derive(Debug, Clone)]
pub struct Line {
    /// For a terminal.
    pub text: String,
    /// For `--json`.
    pub json: serde_json::Value,
}

impl Line {
    /// The line of a figure that prints itself.
    pub fn of<T: Serialize + std::fmt::Display>(figure: &T) -> anyhow::Result<Line> {
        Ok(Line {
            text: figure.to_string(),
            json: serde_json::to_value(figure)?,
        })
    }

    fn new<T: Serialize>(text: String, figure: &T) -> anyhow::Result<Line> {
        Ok(Line {
            text,
            json: serde_json::to_value(figure)?,
        })
    }
}

/// Random playouts and perft.
pub fn rules<G: Game>(start: &G, o: &RulesOptions, rounds: usize) -> anyhow::Result<Vec<Line>> {
    anyhow::ensure!(o.playouts >= 1, "--playouts must be at least 1");
    crate::limits::at_most("--perft-depth", o.perft_depth, crate::limits::MAX_PERFT)?;
    let rates = super::rules(start, o.playouts, o.perft_depth, rounds);
    rates.iter().map(Line::of).collect()
}

/// Alpha-beta nodes a second.
pub fn search<G: Baselines>(
    start: &G,
    o: &SearchOptions,
    rounds: usize,
) -> anyhow::Result<Vec<Line>> {
    anyhow::ensure!((1..=8).contains(&o.depth), "--depth must be 1-8");
    anyhow::ensure!(o.positions >= 1, "--positions must be at least 1");
    let rates = super::search(start, o.depth, o.positions, rounds);
    rates.iter().map(Line::of).collect()
}

/// The fast evaluator and its player.
pub fn nnue<G: Baselines>(start: &G, o: &NnueOptions, rounds: usize) -> anyhow::Result<Vec<Line>> {
    let path = crate::nn::formats::models::resolve_evaluator(&o.evaluator, start.name());
    let eval = crate::nn::nnue::bundle::load_evaluator(&path, start)?;
    let eval = std::sync::Arc::new(eval);
    let rates = nnue::nnue(start, eval, o.model.as_deref(), o.ms, rounds)?;
    let mut lines: Vec<Line> = rates.iter().map(Line::of).collect::<anyhow::Result<_>>()?;
    if o.data_games > 0 {
        let search = (rates.iter()).find(|r| r.unit == "nodes");
        let nodes_per_second = search.map_or(0.0, |r| r.median);
        let data = nnue::data(start, &path, o.data_games, o.data_nodes, nodes_per_second)?;
        lines.push(Line::of(&data)?);
    }
    Ok(lines)
}

/// Network inference by batch size (and the dump of a batch's outputs).
pub fn nn<G: Game>(start: &G, o: &NnOptions, rounds: usize) -> anyhow::Result<Vec<Line>> {
    anyhow::ensure!(
        o.batch.iter().all(|&b| (1..=65_536).contains(&b)),
        "--batch sizes must be 1-65536"
    );
    anyhow::ensure!(o.threads >= 1, "--threads must be at least 1");
    let net = match &o.model {
        Some(path) => crate::nn::formats::checkpoint::load_net(path)?,
        None => crate::nn::Net::init(crate::nn::NetShape::for_game(
            start, o.blocks, o.channels, 64,
        )),
    };
    anyhow::ensure!(
        net.shape.plays(start),
        "the model is for '{}' (or another form of its board); pass --game {}",
        net.shape.game,
        net.shape.game
    );
    let net = net.with_threads(o.threads)?;
    if let Some(path) = &o.dump {
        let len = net.shape.input_len();
        let mut input = vec![0.0; 16 * len];
        let positions = super::sample_positions(start, 16, 20, 3);
        for (p, chunk) in positions.iter().zip(input.chunks_mut(len)) {
            p.encode(chunk);
        }
        let out = net.infer(input.clone(), 16);
        let json = serde_json::json!({
            "batch": 16, "input": input, "logits": out.logits, "values": out.values,
        });
        crate::framing::write_atomic(path, json.to_string().as_bytes())?;
    }
    let s = &net.shape;
    let mflop = crate::nn::flops_per_position(s) / 1e6;
    let figures = learning::nn(start, &net, &o.batch, rounds, o.threads, o.reference);
    figures
        .iter()
        .map(|f| {
            let burn = f.burn_positions_per_s.map_or(String::new(), |b| {
                format!(
                    "; burn's forward {b:.0}/s, {:.2}x faster",
                    f.positions_per_s / b
                )
            });
            let other: String = (f.other_positions_per_s.iter())
                .map(|(k, b)| format!("; {k} forward {b:.0}/s ({:.2}x)", b / f.positions_per_s))
                .collect();
            let text = format!(
                "{} forward {}x{} ({mflop:.2} MFLOP/position), batch {:>4}, {} thread(s): {:>9.0} positions/s ({:.1} GFLOP/s; median of {}, range {:.0}-{:.0}){burn}{other}",
                f.forward,
                s.blocks,
                s.channels,
                f.batch,
                f.threads,
                f.positions_per_s,
                f.positions_per_s * mflop / 1e3,
                f.rounds,
                f.min,
                f.max
            );
            Line::new(text, f)
        })
        .collect()
}

/// Training steps (or one step written out for other frameworks).
pub fn train<G: Game>(start: &G, o: &TrainOptions, rounds: usize) -> anyhow::Result<Vec<Line>> {
    anyhow::ensure!(
        o.batch >= 1 && o.steps >= 1,
        "--batch and --steps must be at least 1"
    );
    anyhow::ensure!(o.threads >= 1, "--threads must be at least 1");
    crate::limits::at_most("--threads", o.threads, crate::limits::MAX_THREADS)?;
    let shape = crate::nn::NetShape::for_game(start, o.blocks, o.channels, 64);
    if let Some(dir) = &o.dump {
        super::dump::train_step(start, &shape, o.batch, dir)?;
        return Ok(Vec::new());
    }
    let f = learning::train(
        start,
        &shape,
        o.batch,
        o.steps,
        rounds,
        o.threads,
        o.reference,
        crate::nn::device::playing(),
    )?;
    let gflop = 3.0 * crate::nn::flops_per_position(&shape) / 1e9;
    let burn = f.autodiff_samples_per_s.map_or(String::new(), |b| {
        format!(
            "; burn's autodiff step {b:.0}/s, {:.2}x faster",
            f.samples_per_s / b
        )
    });
    let gpu = f.gpu_samples_per_s.map_or(String::new(), |g| {
        format!(
            "; on {}: {g:.0}/s, {:.2}x the CPU's",
            crate::nn::device::playing().describe().unwrap_or_default(),
            g / f.samples_per_s
        )
    });
    let text = format!(
        "training step {}x{}, batch {}, {} thread(s): {:>7.0} samples/s ({:.1} GFLOP/s; median of {}, range {:.0}-{:.0}){burn}{gpu}",
        o.blocks,
        o.channels,
        o.batch,
        o.threads,
        f.samples_per_s,
        f.samples_per_s * gflop,
        f.rounds,
        f.min,
        f.max
    );
    Ok(vec![Line::new(text, &f)?])
}

/// The solver (and its reference) by endgame size, or an agent's accuracy against its
/// exact results.
pub fn endgame<G: Baselines>(start: &G, o: &EndgameOptions) -> anyhow::Result<Vec<Line>> {
    anyhow::ensure!(
        start.endgame_size().is_some(),
        "the endgame solver takes no position of {} over",
        start.name()
    );
    anyhow::ensure!((1..=50).contains(&o.size), "--size must be 1-50");
    anyhow::ensure!(
        (1..=1000).contains(&o.positions),
        "--positions must be 1-1000"
    );
    anyhow::ensure!((1..=600_000).contains(&o.ms), "--ms must be 1-600000");
    anyhow::ensure!(
        (1..=600_000).contains(&o.exact_ms),
        "--exact-ms must be 1-600000"
    );
    let sizes = match &o.pgn {
        Some(path) => endgame::recorded_positions(start, &read_record(path)?, o.size, o.positions)?,
        None => endgame::positions(start, o.size, o.positions),
    };
    let (ms, exact_ms) = (o.ms, o.exact_ms);
    let limit = Duration::from_millis(ms);
    if let Some(spec) = &o.agent {
        let mut agent = spec.parse::<AgentSpec>()?.build(start, 1)?;
        let exact = Duration::from_millis(exact_ms);
        return (endgame::accuracy(&sizes, agent.as_mut(), limit, exact)?.iter())
            .map(|f| {
                let text = format!(
                    "{} size {:>2}: {} positions, {} solved within {exact_ms} ms; {spec} at {ms} ms kept the result in {} of them ({} unproven after its move)",
                    start.name(),
                    f.size,
                    f.positions,
                    f.solved,
                    f.kept,
                    f.unknown
                );
                Line::new(text, f)
            })
            .collect();
    }
    let figures = endgame::endgame(&sizes, limit, o.reference, o.game_rules);
    figures
        .iter()
        .map(|f| {
            let other = |name: &str, solved: Option<usize>, median: Option<f64>| match (solved, median) {
                (Some(n), Some(t)) => format!("; {name} {n}/{} (median {t:.1} ms)", f.positions),
                _ => String::new(),
            };
            let rate = |nps: f64| format!("{:.2}M nodes/s", nps / 1e6);
            let mut plain = other("plain minimax", f.reference_solved, f.reference_median_ms)
                + &other(
                    "on the game's states",
                    f.game_rules_solved,
                    f.game_rules_median_ms,
                );
            if let Some(nps) = f.game_rules_nodes_per_second {
                plain += &format!(", {}", rate(nps));
            }
            if o.reference || o.game_rules {
                plain += if f.agree {
                    ", every result agrees"
                } else {
                    ", RESULTS DIFFER"
                };
            }
            let text = format!(
                "{} size {:>2}: solved {:>3}/{} within {ms} ms (median {:.1} ms, slowest {:.1} ms, {}){plain}",
                start.name(),
                f.size,
                f.solved,
                f.positions,
                f.median_ms,
                f.max_ms,
                rate(f.nodes_per_second)
            );
            Line::new(text, f)
        })
        .collect()
}

/// The games of the record (PGN) at `path`, which `--pgn` names.
fn read_record(path: &Path) -> anyhow::Result<Vec<crate::arena::record::RecordedGame>> {
    let text = crate::limits::read_text(path, crate::limits::MAX_TEXT_BYTES)?;
    crate::arena::record::read_games(&text)
}

/// Every low-precision forward the CPU runs against the float one (a forward the CPU
/// lacks is said so on standard error).
pub fn agree<G: Baselines>(start: &G, o: &AgreeOptions) -> anyhow::Result<Vec<Line>> {
    use crate::nn::kernels::forward::Forward;
    anyhow::ensure!(
        (1..=1_000_000).contains(&o.positions),
        "--positions must be 1-1000000"
    );
    let float = crate::nn::formats::checkpoint::load_net(&o.model)?.on(Forward::Fp32);
    anyhow::ensure!(
        float.shape.game == start.name(),
        "the model is for '{}'; pass --game {}",
        float.shape.game,
        float.shape.game
    );
    let (states, source) = match &o.pgn {
        Some(path) => {
            let states = agree::recorded_positions(start, &read_record(path)?, o.positions)?;
            (states, format!("positions of {}", path.display()))
        }
        None => (
            agree::greedy_positions(start, o.positions, 5),
            "positions of greedy games".to_string(),
        ),
    };
    anyhow::ensure!(!states.is_empty(), "no position to compare");
    let mut lines = Vec::new();
    for forward in Forward::ALL.into_iter().filter(|&f| f != Forward::Fp32) {
        if !forward.available() {
            eprintln!("{} forward: not available on this CPU", forward.name());
            continue;
        }
        let a = agree::agreement(&float, &states, forward);
        let within: Vec<String> = (agree::GAPS.iter().zip(&a.misses_within))
            .map(|(g, n)| format!("{n} within {g}"))
            .collect();
        let text = format!(
            "{} forward against fp32, {} {source}: best move kept in {:.2}% ({} misses: {} of the best move's float logit; the largest gap {:.3}); value difference p99 {:.4}, largest {:.4}",
            a.forward,
            a.positions,
            100.0 * a.top1,
            a.misses,
            within.join(", "),
            a.largest_gap,
            a.value_p99,
            a.value_max
        );
        lines.push(Line::new(text, &a)?);
    }
    Ok(lines)
}

/// One timed self-play run (two with `--reference`), on the flags' settings or those of
/// `--config`.
pub fn selfplay<G: Baselines>(start: &G, o: &SelfplayOptions) -> anyhow::Result<Vec<Line>> {
    let mut o = o.clone();
    if let Some(path) = &o.config {
        let c = crate::config::Config::load(path)?;
        (o.blocks, o.channels) = (c.network.blocks, c.network.channels);
        (o.sims, o.leaves) = (c.mcts.simulations, c.mcts.leaves_per_tree);
        (o.workers, o.concurrent) = (c.selfplay.workers, c.selfplay.concurrent_games);
    }
    let SelfplayOptions {
        blocks,
        channels,
        sims,
        workers,
        concurrent,
        moves,
        leaves,
        reference,
        inference_batch,
        ..
    } = o;
    anyhow::ensure!(
        sims >= 1 && workers >= 1 && concurrent >= 1 && moves >= 1 && leaves >= 1,
        "--sims, --workers, --concurrent, --moves and --leaves must be at least 1"
    );
    crate::limits::at_most("--workers", workers, crate::limits::MAX_THREADS)?;
    crate::limits::at_most("--sims", sims as u64, crate::limits::MAX_SIMULATIONS)?;
    let shape = crate::nn::NetShape::for_game(start, blocks, channels, 64);
    let mut settings = crate::selfplay::SelfPlaySettings {
        sims,
        params: crate::search::mcts::MctsParams {
            dirichlet_fraction: 0.25,
            leaves_per_tree: leaves,
            ..Default::default()
        },
        temperature_plies: 16,
        workers,
        concurrent,
        device: crate::nn::device::playing(),
        inference_batch: 0,
        cache_size: 200_000,
        progress: false,
        move_limit: moves,
        score_weight: 0.0,
        draw_value: 0.0,
        full_fraction: 1.0,
        fast_sims: sims,
        resign: crate::selfplay::resign::ResignRule::OFF,
        league: Vec::new(),
        league_weights: Vec::new(),
        opponent_fraction: 0.0,
    };
    let games = (workers * concurrent) as u32;
    // Each run: burn's forward or not, the inference queue's batch (0: per worker).
    let mut runs = vec![(false, 0)];
    if reference {
        runs.push((true, 0));
    }
    if inference_batch > 0 {
        runs.push((false, inference_batch));
    }
    let mut lines = Vec::new();
    let mut first = None;
    for (burn, queue) in runs {
        settings.inference_batch = queue;
        let f = learning::selfplay(start, &shape, &settings, games, burn)?;
        let mut path = match (burn, settings.device) {
            (true, _) => "burn's forward".to_string(),
            (false, crate::nn::DeviceKind::Cpu) => format!("fast forward, {}", f.forward),
            (false, device) => format!("burn's forward on {device}"),
        };
        if queue > 0 {
            path += &format!(", one queue of {queue}");
        }
        let json = serde_json::json!({
            "what": "selfplay", "inference": if burn { "burn" } else { "fast" }, "forward": f.forward,
            "device": settings.device.name(), "inference_batch": queue,
            "positions_per_second": f.positions_per_second,
            "simulations_per_second": f.simulations_per_second, "forward_share": f.forward_share,
            "mean_batch": f.mean_batch, "cache_hit_rate": f.cache_hit_rate,
        });
        let mut text = format!(
            "self-play ({path}), {blocks}x{channels} net, {sims} sims, {workers} workers x {concurrent} games x {leaves} leaves: {:.1} positions/s ({:.0} simulations/s); network forward {:.0}% of worker time; mean batch {:.1}; cache hits {:.1}%",
            f.positions_per_second,
            f.simulations_per_second,
            100.0 * f.forward_share,
            f.mean_batch,
            100.0 * f.cache_hit_rate
        );
        match first {
            None => first = Some(f.positions_per_second),
            Some(fast) if burn => {
                text += &format!(
                    "\nthe fast forward plays {:.2}x the positions/s of burn's",
                    fast / f.positions_per_second
                )
            }
            Some(own) => {
                text += &format!(
                    "\nthe queue plays {:.2}x the positions/s of per-worker batches",
                    f.positions_per_second / own
                )
            }
        }
        lines.push(Line { text, json });
    }
    Ok(lines)
}
