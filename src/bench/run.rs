//! What `contagion bench` measures ([`BenchKind`]), each a figure of [`command`]'s, and
//! its run: the figures asked for, printed.

use clap::Subcommand;

use super::command;
use super::options::{
    AgreeOptions, DistillBenchOptions, EndgameOptions, NnOptions, NnueOptions, RulesOptions,
    SearchOptions, SelfplayOptions, TrainOptions,
};

/// The figures `contagion bench` can measure.
#[derive(Debug, Clone, Subcommand)]
pub enum BenchKind {
    /// Random playouts per second and perft nodes per second.
    Rules(RulesOptions),
    /// Alpha-beta nodes per second at a fixed depth over sampled mid-game positions.
    Search(SearchOptions),
    /// The exact endgame solver against plain minimax (its reference) and against itself
    /// on the game's own states (Ataxx's bitboards off) on the last positions of
    /// alpha-beta games: solved and median time by endgame size (Ataxx, Virus: empty
    /// squares).
    Endgame(EndgameOptions),
    /// Network inference: positions per second by batch size.
    Nn(NnOptions),
    /// How closely the low-precision forwards follow the float one, their reference, on
    /// the same positions: the best legal move kept, the values' differences, and how far
    /// below the best move's float logit each move they pick instead lies.
    Agree(AgreeOptions),
    /// Self-play: positions per second, network share of the time, batch size, cache hits.
    Selfplay(SelfplayOptions),
    /// The fast evaluator's cost a position, and its alpha-beta player's nodes a second
    /// from the start beside the network search's simulations a second.
    Nnue(NnueOptions),
    /// Training steps: samples per second.
    Train(TrainOptions),
    /// The fast evaluator's training step: positions per second, features read and a
    /// step taken, beside burn's autodiff step.
    Distill(DistillBenchOptions),
}

/// `contagion bench` for `start`'s game: the figures `what` asks for, medians of
/// `rounds` rounds, printed (as JSON lines with `json`).
pub fn bench<G: crate::agents::Baselines>(
    start: &G,
    what: &BenchKind,
    rounds: usize,
    json: bool,
) -> anyhow::Result<()> {
    anyhow::ensure!(rounds >= 1, "--rounds must be at least 1");
    let lines = match what {
        BenchKind::Rules(o) => command::rules(start, o, rounds)?,
        BenchKind::Search(o) => command::search(start, o, rounds)?,
        BenchKind::Endgame(o) => command::endgame(start, o)?,
        BenchKind::Nn(o) => command::nn(start, o, rounds)?,
        BenchKind::Agree(o) => command::agree(start, o)?,
        BenchKind::Selfplay(o) => command::selfplay(start, o)?,
        BenchKind::Nnue(o) => command::nnue(start, o, rounds)?,
        BenchKind::Train(o) => command::train(start, o, rounds)?,
        BenchKind::Distill(o) => super::distill::distill(start, o, rounds)?,
    };
    for line in lines {
        if json {
            println!("{}", line.json);
        } else {
            println!("{}", line.text);
        }
    }
    Ok(())
}
