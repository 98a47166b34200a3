//! The int8, bf16 and mixed forwards against the float one on 10,000 positions from
//! greedy games of every game: each keeps the float forward's best move in at least 99%
//! of positions and its values within 0.02 in 99% of them (on the positions of real
//! games too: `contagion bench agree --pgn`, docs/performance.md).

use std::path::Path;

use contagion::agents::Baselines;
use contagion::bench::agree::{agreement, greedy_positions};
use contagion::games::ataxx::Ataxx;
use contagion::games::chexers::Chexers;
use contagion::games::infexion::Board;
use contagion::nn::formats::checkpoint::load_net;
use contagion::nn::kernels::forward::{self, Forward};

/// Top-1 agreement over legal moves, and the 99th percentile and largest value
/// difference, `forward` vs fp32, on `count` positions of greedy games.
fn compare<G: Baselines>(
    start: &G,
    model: &str,
    count: usize,
    forward: Forward,
) -> (f64, f32, f32) {
    let float = load_net(Path::new(model)).unwrap();
    assert_eq!(
        float.forward_kind(),
        "fp32",
        "the float forward is the default"
    );
    let a = agreement(&float, &greedy_positions(start, count, 5), forward);
    assert_eq!(a.forward, forward.name());
    assert_eq!(a.positions, count);
    assert!(a.misses_within.windows(2).all(|w| w[0] <= w[1]));
    assert!(a.misses_within.iter().all(|&n| n <= a.misses));
    (a.top1, a.value_p99, a.value_max)
}

/// A game's figures for a forward: [`compare`] on its model.
type Agreement = dyn Fn(Forward) -> (f64, f32, f32);

/// The share of positions where every low-precision forward must keep the float
/// forward's best move, and the bound on the 99th percentile of its value differences.
const LEAST_TOP1: f64 = 0.99;
const MOST_P99: f32 = 0.02;

#[test]
fn the_low_precision_forwards_keep_the_float_forwards_moves_and_values() {
    let search = contagion::nn::kernels::forward::for_search();
    let net = load_net(Path::new("models/ataxx-4x32-166min")).unwrap();
    assert_eq!(
        net.clone().for_search().unwrap().forward_kind(),
        search.name()
    );
    let self_play = contagion::nn::kernels::forward::for_self_play();
    assert_eq!(net.clone().for_self_play().forward_kind(), self_play.name());
    // Self-play runs int8 wherever the CPU has it, even where a model agent runs bf16.
    assert!(self_play == Forward::Int8 || !Forward::Int8.available());
    if forward::search().is_none() {
        // The float forward is the one that runs here: nothing to hold to it.
        assert_eq!(search, Forward::Fp32);
        return;
    }
    const N: usize = 10_000;
    let games: [(&str, &Agreement); 4] = [
        ("ataxx", &|f| {
            compare(&Ataxx::standard(), "models/ataxx-4x32-166min", N, f)
        }),
        ("virus", &|f| {
            compare(&Ataxx::virus(), "models/virus-3x32-87min", N, f)
        }),
        ("infexion", &|f| {
            compare(&Board::new(), "models/infexion-4x32-100min", N, f)
        }),
        ("chexers", &|f| {
            compare(&Chexers::new(), "models/chexers-4x32-22min", N, f)
        }),
    ];
    for forward in Forward::ALL.into_iter().filter(|f| *f != Forward::Fp32) {
        for (game, compare) in &games {
            let (top1, p99, worst) = compare(forward);
            println!(
                "{} {game}: top-1 agreement {:.2}%, value difference p99 {p99:.4}, largest {worst:.4}",
                forward.name(),
                100.0 * top1
            );
            assert!(
                top1 >= LEAST_TOP1,
                "{} {game}: top-1 agreement {top1}",
                forward.name()
            );
            assert!(
                p99 <= MOST_P99,
                "{} {game}: value difference {p99} (p99)",
                forward.name()
            );
        }
    }
}
