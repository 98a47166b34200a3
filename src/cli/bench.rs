//! `contagion bench`: speed figures, medians of several rounds (one thread unless a
//! figure takes `--threads`).

use clap::{Args, Subcommand};

use super::Games;
use crate::bench;
use crate::games::GameName;

/// `contagion bench`'s arguments.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// What to measure.
    #[command(subcommand)]
    pub what: BenchKind,
    /// The game whose rules, positions and network shapes are measured.
    #[arg(long, default_value_t, global = true)]
    pub game: GameName,
    /// Timed rounds; the median is reported.
    #[arg(long, default_value_t = 5, global = true)]
    pub rounds: usize,
    /// Print the figures as JSON lines.
    #[arg(long, global = true)]
    pub json: bool,
}

/// The figures `contagion bench` can measure.
#[derive(Debug, Clone, Subcommand)]
pub enum BenchKind {
    /// Random playouts per second and perft nodes per second.
    Rules {
        /// Random games per round.
        #[arg(long, default_value_t = 20_000)]
        playouts: usize,
        /// Perft depth from the start position.
        #[arg(long, default_value_t = 4)]
        perft_depth: u32,
    },
    /// Alpha-beta nodes per second at a fixed depth over sampled mid-game positions.
    Search {
        /// Alpha-beta depth in plies.
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// Positions searched per round.
        #[arg(long, default_value_t = 20)]
        positions: usize,
    },
    /// The exact endgame solver against plain minimax (its reference) and against itself
    /// on the game's own states (Ataxx's bitboards off) on the last positions of
    /// alpha-beta games: solved and median time by endgame size (Ataxx, Virus: empty
    /// squares).
    Endgame {
        /// The largest endgame size measured (from 1).
        #[arg(long, default_value_t = 6)]
        size: u32,
        /// Positions per size.
        #[arg(long, default_value_t = 20)]
        positions: usize,
        /// Time per position, in milliseconds.
        #[arg(long, default_value_t = 100)]
        ms: u64,
        /// Also run the reference on every position.
        #[arg(long)]
        reference: bool,
        /// Also run the solver on the game's own states (without bitboards) on every
        /// position.
        #[arg(long)]
        game_rules: bool,
        /// Take the positions from the games in this record (PGN) instead.
        #[arg(long, value_name = "FILE")]
        pgn: Option<std::path::PathBuf>,
        /// Instead of timing the solver: how often this agent's move (at `--ms` a move)
        /// keeps the exact result of positions the solver proves within `--exact-ms`.
        #[arg(long, value_name = "SPEC")]
        agent: Option<String>,
        /// The solver's time per position for the exact results `--agent` is held to.
        #[arg(long, default_value_t = 10_000)]
        exact_ms: u64,
    },
    /// Network inference: positions per second by batch size.
    Nn {
        /// Residual blocks of the network measured.
        #[arg(long, default_value_t = 4)]
        blocks: usize,
        /// Channels per block.
        #[arg(long, default_value_t = 32)]
        channels: usize,
        /// Batch sizes, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "1,8,64,256")]
        batch: Vec<usize>,
        /// Time this model (a bundle, checkpoint or run directory) instead of a fresh
        /// `--blocks` x `--channels` network.
        #[arg(long, value_name = "PATH")]
        model: Option<std::path::PathBuf>,
        /// Threads one forward is split over (by positions).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Also time burn's forward (the previous inference path) on the same inputs.
        #[arg(long)]
        reference: bool,
        /// Write 16 encoded sample positions with this forward's outputs as JSON
        /// (`{batch, input, logits, values}`) to PATH, for comparing other runtimes.
        #[arg(long, value_name = "PATH")]
        dump: Option<std::path::PathBuf>,
    },
    /// How closely the low-precision forwards follow the float one, their reference, on
    /// the same positions: the best legal move kept, the values' differences, and how far
    /// below the best move's float logit each move they pick instead lies.
    Agree {
        /// The model compared (a bundle, checkpoint or run directory).
        #[arg(long, value_name = "PATH")]
        model: std::path::PathBuf,
        /// Positions compared.
        #[arg(long, default_value_t = 10_000)]
        positions: usize,
        /// Take the positions from the games in this record (PGN) instead of games of
        /// greedy moves (a fifth of them random).
        #[arg(long, value_name = "FILE")]
        pgn: Option<std::path::PathBuf>,
    },
    /// Self-play: positions per second, network share of the time, batch size, cache hits.
    Selfplay {
        /// Residual blocks of the network measured.
        #[arg(long, default_value_t = 4)]
        blocks: usize,
        /// Channels per block.
        #[arg(long, default_value_t = 32)]
        channels: usize,
        /// MCTS simulations per move.
        #[arg(long, default_value_t = 64)]
        sims: u32,
        /// Worker threads.
        #[arg(long, default_value_t = 2)]
        workers: usize,
        /// Games in flight per worker.
        #[arg(long, default_value_t = 16)]
        concurrent: usize,
        /// Moves played per game (from the start).
        #[arg(long, default_value_t = 24)]
        moves: u32,
        /// Leaves each tree adds to a batch (virtual loss).
        #[arg(long, default_value_t = 1)]
        leaves: u32,
        /// Run it twice, the second time with burn's forward (the previous inference
        /// path), and print both.
        #[arg(long)]
        reference: bool,
        /// Take the network size, simulations, workers, games in flight and leaves per
        /// tree from this training config instead.
        #[arg(long, value_name = "PATH")]
        config: Option<std::path::PathBuf>,
    },
    /// The fast evaluator's cost a position, and its alpha-beta player's nodes a second
    /// from the start beside the network search's simulations a second.
    Nnue {
        /// The evaluator bundle (`models/<game>`: the game's current one).
        #[arg(long, value_name = "PATH")]
        evaluator: std::path::PathBuf,
        /// A network to measure MCTS beside it.
        #[arg(long, value_name = "PATH")]
        model: Option<std::path::PathBuf>,
        /// Milliseconds a search.
        #[arg(long, default_value_t = 1000)]
        ms: u64,
    },
    /// Training steps: samples per second.
    Train {
        /// Residual blocks of the network measured.
        #[arg(long, default_value_t = 4)]
        blocks: usize,
        /// Channels per block.
        #[arg(long, default_value_t = 32)]
        channels: usize,
        /// Training batch size (positions per step).
        #[arg(long, default_value_t = 128)]
        batch: usize,
        /// Steps per round.
        #[arg(long, default_value_t = 10)]
        steps: usize,
        /// Threads one step is split over.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Also time burn's autodiff step (the reference) on the same batches.
        #[arg(long)]
        reference: bool,
        /// Write the network's weights (safetensors, burn's layout and names) and the
        /// first batch with this step's losses and gradients (JSON) under this directory,
        /// for checking other frameworks against it.
        #[arg(long, value_name = "DIR")]
        dump: Option<std::path::PathBuf>,
    },
}

/// Runs `contagion bench`.
pub fn run(args: BenchArgs, games: &Games) -> anyhow::Result<()> {
    anyhow::ensure!(args.rounds >= 1, "--rounds must be at least 1");
    games.get(args.game.as_str())?.bench(&args)
}

pub(super) fn bench<G: crate::agents::Baselines>(
    start: &G,
    args: &BenchArgs,
) -> anyhow::Result<()> {
    let start = start.clone();
    let rates = match args.what.clone() {
        BenchKind::Rules {
            playouts,
            perft_depth,
        } => {
            anyhow::ensure!(playouts >= 1, "--playouts must be at least 1");
            crate::limits::at_most("--perft-depth", perft_depth, crate::limits::MAX_PERFT)?;
            bench::rules(&start, playouts, perft_depth, args.rounds)
        }
        BenchKind::Search { depth, positions } => {
            anyhow::ensure!((1..=8).contains(&depth), "--depth must be 1-8");
            anyhow::ensure!(positions >= 1, "--positions must be at least 1");
            bench::search(&start, depth, positions, args.rounds)
        }
        BenchKind::Endgame { .. } => return endgame(&start, args),
        BenchKind::Nn {
            blocks,
            channels,
            batch,
            model,
            threads,
            reference,
            dump,
        } => {
            anyhow::ensure!(
                batch.iter().all(|&b| (1..=65_536).contains(&b)),
                "--batch sizes must be 1-65536"
            );
            anyhow::ensure!(threads >= 1, "--threads must be at least 1");
            let net = match &model {
                Some(path) => crate::nn::checkpoint::load_net(path)?,
                None => crate::nn::Net::init(crate::nn::NetShape::for_game(
                    &start, blocks, channels, 64,
                )),
            };
            anyhow::ensure!(
                net.shape.game == start.name(),
                "the model is for '{}'; pass --game {}",
                net.shape.game,
                net.shape.game
            );
            let net = net.with_threads(threads)?;
            if let Some(path) = dump {
                let len = net.shape.input_len();
                let mut input = vec![0.0; 16 * len];
                let positions = bench::sample_positions(&start, 16, 20, 3);
                for (p, chunk) in positions.iter().zip(input.chunks_mut(len)) {
                    p.encode(chunk);
                }
                let out = net.infer(input.clone(), 16);
                let json = serde_json::json!({
                    "batch": 16, "input": input, "logits": out.logits, "values": out.values,
                });
                crate::framing::write_atomic(&path, json.to_string().as_bytes())?;
            }
            let s = &net.shape;
            let mflop = crate::nn::flops_per_position(s) / 1e6;
            for f in bench::learning::nn(&start, &net, &batch, args.rounds, threads, reference) {
                if args.json {
                    println!("{}", serde_json::to_string(&f)?);
                    continue;
                }
                let burn = f.burn_positions_per_s.map_or(String::new(), |b| {
                    format!(
                        "; burn's forward {b:.0}/s, {:.2}x faster",
                        f.positions_per_s / b
                    )
                });
                let other: String = (f.other_positions_per_s.iter())
                    .map(|(k, b)| format!("; {k} forward {b:.0}/s ({:.2}x)", b / f.positions_per_s))
                    .collect();
                println!(
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
            }
            return Ok(());
        }
        BenchKind::Train {
            blocks,
            channels,
            batch,
            steps,
            threads,
            reference,
            dump,
        } => {
            anyhow::ensure!(
                batch >= 1 && steps >= 1,
                "--batch and --steps must be at least 1"
            );
            anyhow::ensure!(threads >= 1, "--threads must be at least 1");
            crate::limits::at_most("--threads", threads, crate::limits::MAX_THREADS)?;
            let shape = crate::nn::NetShape::for_game(&start, blocks, channels, 64);
            if let Some(dir) = dump {
                return bench::dump::train_step(&start, &shape, batch, &dir);
            }
            let f = bench::learning::train(
                &start,
                &shape,
                batch,
                steps,
                args.rounds,
                threads,
                reference,
            );
            if args.json {
                println!("{}", serde_json::to_string(&f)?);
                return Ok(());
            }
            let gflop = 3.0 * crate::nn::flops_per_position(&shape) / 1e9;
            let burn = f.autodiff_samples_per_s.map_or(String::new(), |b| {
                format!(
                    "; burn's autodiff step {b:.0}/s, {:.2}x faster",
                    f.samples_per_s / b
                )
            });
            println!(
                "training step {blocks}x{channels}, batch {batch}, {threads} thread(s): {:>7.0} samples/s ({:.1} GFLOP/s; median of {}, range {:.0}-{:.0}){burn}",
                f.samples_per_s,
                f.samples_per_s * gflop,
                f.rounds,
                f.min,
                f.max
            );
            return Ok(());
        }
        BenchKind::Nnue {
            evaluator,
            model,
            ms,
        } => {
            let path = crate::nn::models::resolve_evaluator(&evaluator, start.name());
            let (_, net) = crate::nn::nnue::bundle::load(&path, &start)?;
            let eval = std::sync::Arc::new(crate::nn::nnue::Evaluator::new(&net));
            bench::nnue::nnue(&start, eval, model.as_deref(), ms, args.rounds)?
        }
        BenchKind::Selfplay { .. } => return selfplay(&start, args),
        BenchKind::Agree { .. } => return agree(&start, args),
    };
    for r in rates {
        if args.json {
            println!("{}", serde_json::to_string(&r)?);
        } else {
            println!("{r}");
        }
    }
    Ok(())
}

/// `bench endgame`: the solver (and its reference) by endgame size, or an agent's
/// accuracy against its exact results.
fn endgame<G: crate::agents::Baselines>(start: &G, args: &BenchArgs) -> anyhow::Result<()> {
    let BenchKind::Endgame {
        size,
        positions,
        ms,
        reference,
        game_rules,
        pgn,
        agent,
        exact_ms,
    } = args.what.clone()
    else {
        unreachable!("called for bench endgame")
    };
    anyhow::ensure!(
        start.endgame_size().is_some(),
        "the endgame solver takes no position of {} over",
        start.name()
    );
    anyhow::ensure!((1..=50).contains(&size), "--size must be 1-50");
    anyhow::ensure!(
        (1..=1000).contains(&positions),
        "--positions must be 1-1000"
    );
    anyhow::ensure!((1..=600_000).contains(&ms), "--ms must be 1-600000");
    anyhow::ensure!(
        (1..=600_000).contains(&exact_ms),
        "--exact-ms must be 1-600000"
    );
    let sizes = match &pgn {
        Some(path) => {
            bench::endgame::recorded_positions(start, &read_record(path)?, size, positions)?
        }
        None => bench::endgame::positions(start, size, positions),
    };
    let limit = std::time::Duration::from_millis(ms);
    if let Some(spec) = agent {
        let mut agent = spec.parse::<crate::agents::AgentSpec>()?.build(start, 1)?;
        let exact = std::time::Duration::from_millis(exact_ms);
        for f in bench::endgame::accuracy(&sizes, agent.as_mut(), limit, exact)? {
            if args.json {
                println!("{}", serde_json::to_string(&f)?);
                continue;
            }
            println!(
                "{} size {:>2}: {} positions, {} solved within {exact_ms} ms; {spec} at {ms} ms kept the result in {} of them ({} unproven after its move)",
                start.name(),
                f.size,
                f.positions,
                f.solved,
                f.kept,
                f.unknown
            );
        }
        return Ok(());
    }
    for f in bench::endgame::endgame(&sizes, limit, reference, game_rules) {
        if args.json {
            println!("{}", serde_json::to_string(&f)?);
            continue;
        }
        let other = |name: &str, solved: Option<usize>, median: Option<f64>| match (solved, median)
        {
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
        if reference || game_rules {
            plain += if f.agree {
                ", every result agrees"
            } else {
                ", RESULTS DIFFER"
            };
        }
        println!(
            "{} size {:>2}: solved {:>3}/{} within {ms} ms (median {:.1} ms, slowest {:.1} ms, {}){plain}",
            start.name(),
            f.size,
            f.solved,
            f.positions,
            f.median_ms,
            f.max_ms,
            rate(f.nodes_per_second)
        );
    }
    Ok(())
}

/// The games of the record (PGN) at `path`, which `--pgn` names.
fn read_record(path: &std::path::Path) -> anyhow::Result<Vec<crate::arena::record::RecordedGame>> {
    let text = crate::limits::read_text(path, crate::limits::MAX_TEXT_BYTES)?;
    crate::arena::record::read_games(&text)
}

/// `bench agree`: every low-precision forward the CPU runs against the float one.
fn agree<G: crate::agents::Baselines>(start: &G, args: &BenchArgs) -> anyhow::Result<()> {
    use crate::nn::forward::Forward;
    let BenchKind::Agree {
        model,
        positions,
        pgn,
    } = args.what.clone()
    else {
        unreachable!("called for bench agree")
    };
    anyhow::ensure!(
        (1..=1_000_000).contains(&positions),
        "--positions must be 1-1000000"
    );
    let float = crate::nn::checkpoint::load_net(&model)?.on(Forward::Fp32);
    anyhow::ensure!(
        float.shape.game == start.name(),
        "the model is for '{}'; pass --game {}",
        float.shape.game,
        float.shape.game
    );
    let (states, source) = match &pgn {
        Some(path) => {
            let states = bench::agree::recorded_positions(start, &read_record(path)?, positions)?;
            (states, format!("positions of {}", path.display()))
        }
        None => (
            bench::agree::greedy_positions(start, positions, 5),
            "positions of greedy games".to_string(),
        ),
    };
    anyhow::ensure!(!states.is_empty(), "no position to compare");
    for forward in Forward::ALL.into_iter().filter(|&f| f != Forward::Fp32) {
        if !forward.available() {
            eprintln!("{} forward: not available on this CPU", forward.name());
            continue;
        }
        let a = bench::agree::agreement(&float, &states, forward);
        if args.json {
            println!("{}", serde_json::to_string(&a)?);
            continue;
        }
        let within: Vec<String> = (bench::agree::GAPS.iter().zip(&a.misses_within))
            .map(|(g, n)| format!("{n} within {g}"))
            .collect();
        println!(
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
    }
    Ok(())
}

/// `bench selfplay`: one timed run (two with `--reference`), on the flags' settings or
/// those of `--config`.
fn selfplay<G: crate::agents::Baselines>(start: &G, args: &BenchArgs) -> anyhow::Result<()> {
    let BenchKind::Selfplay {
        mut blocks,
        mut channels,
        mut sims,
        mut workers,
        mut concurrent,
        moves,
        mut leaves,
        reference,
        config,
    } = args.what.clone()
    else {
        unreachable!("called for bench selfplay")
    };
    if let Some(path) = &config {
        let c = crate::config::Config::load(path)?;
        (blocks, channels) = (c.network.blocks, c.network.channels);
        (sims, leaves) = (c.mcts.simulations, c.mcts.leaves_per_tree);
        (workers, concurrent) = (c.selfplay.workers, c.selfplay.concurrent_games);
    }
    anyhow::ensure!(
        sims >= 1 && workers >= 1 && concurrent >= 1 && moves >= 1 && leaves >= 1,
        "--sims, --workers, --concurrent, --moves and --leaves must be at least 1"
    );
    crate::limits::at_most("--workers", workers, crate::limits::MAX_THREADS)?;
    crate::limits::at_most("--sims", sims as u64, crate::limits::MAX_SIMULATIONS)?;
    let shape = crate::nn::NetShape::for_game(start, blocks, channels, 64);
    let settings = crate::selfplay::SelfPlaySettings {
        sims,
        params: crate::search::mcts::MctsParams {
            dirichlet_fraction: 0.25,
            leaves_per_tree: leaves,
            ..Default::default()
        },
        temperature_plies: 16,
        workers,
        concurrent,
        cache_size: 200_000,
        progress: false,
        move_limit: moves,
        score_weight: 0.0,
        draw_value: 0.0,
        full_fraction: 1.0,
        fast_sims: sims,
        resign: crate::selfplay::resign::ResignRule::OFF,
        opponent: None,
        opponent_fraction: 0.0,
    };
    let games = (workers * concurrent) as u32;
    let runs: &[bool] = if reference { &[false, true] } else { &[false] };
    let mut first = None;
    for &burn in runs {
        let f = bench::learning::selfplay(start, &shape, &settings, games, burn)?;
        let path = if burn {
            "burn's forward".to_string()
        } else {
            format!("fast forward, {}", f.forward)
        };
        if args.json {
            println!(
                "{}",
                serde_json::json!({
                    "what": "selfplay", "inference": if burn { "burn" } else { "fast" }, "forward": f.forward,
                    "positions_per_second": f.positions_per_second,
                    "simulations_per_second": f.simulations_per_second, "forward_share": f.forward_share,
                    "mean_batch": f.mean_batch, "cache_hit_rate": f.cache_hit_rate,
                })
            );
        } else {
            println!(
                "self-play ({path}), {blocks}x{channels} net, {sims} sims, {workers} workers x {concurrent} games x {leaves} leaves: {:.1} positions/s ({:.0} simulations/s); network forward {:.0}% of worker time; mean batch {:.1}; cache hits {:.1}%",
                f.positions_per_second,
                f.simulations_per_second,
                100.0 * f.forward_share,
                f.mean_batch,
                100.0 * f.cache_hit_rate
            );
        }
        match first {
            None => first = Some(f.positions_per_second),
            Some(fast) if !args.json => println!(
                "the fast forward plays {:.2}x the positions/s of burn's",
                fast / f.positions_per_second
            ),
            Some(_) => {}
        }
    }
    Ok(())
}
