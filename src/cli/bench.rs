//! `contagion bench`: speed figures, single-threaded, medians of several rounds.

use clap::{Args, Subcommand};

use super::GameKind;
use crate::bench;
use crate::games::infexion::Board;

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchKind,
    #[arg(long, value_enum, default_value_t, global = true)]
    pub game: GameKind,
    /// Timed rounds; the median is reported.
    #[arg(long, default_value_t = 5, global = true)]
    pub rounds: usize,
    /// Print the figures as JSON lines.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
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
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// Positions searched per round.
        #[arg(long, default_value_t = 20)]
        positions: usize,
    },
    /// Network inference: positions per second by batch size.
    Nn {
        #[arg(long, default_value_t = 6)]
        blocks: usize,
        #[arg(long, default_value_t = 32)]
        channels: usize,
        /// Batch sizes, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "1,8,32,64,128")]
        batch: Vec<usize>,
    },
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.rounds >= 1, "--rounds must be at least 1");
    let start = match args.game {
        GameKind::Infexion => Board::new(),
    };
    let rates = match args.what {
        BenchKind::Rules {
            playouts,
            perft_depth,
        } => {
            anyhow::ensure!(playouts >= 1, "--playouts must be at least 1");
            anyhow::ensure!(perft_depth <= 6, "--perft-depth must be at most 6");
            bench::rules(&start, playouts, perft_depth, args.rounds)
        }
        BenchKind::Search { depth, positions } => {
            anyhow::ensure!((1..=8).contains(&depth), "--depth must be 1-8");
            anyhow::ensure!(positions >= 1, "--positions must be at least 1");
            bench::search(&start, depth, positions, args.rounds)
        }
        BenchKind::Nn {
            blocks,
            channels,
            batch,
        } => {
            let shape = crate::nn::NetShape::for_game(&start, blocks, channels, 64);
            bench::learning::nn(&start, &shape, &batch, args.rounds)
        }
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
