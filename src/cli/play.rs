//! `contagion play`: one game in the terminal, each move and the final board shown.

use clap::Args;

use super::{GameKind, clock_from_secs};
use crate::agents::{AgentSpec, Baselines};
use crate::arena::{play_game, random_opening};
use crate::games::infexion::Board;

#[derive(Debug, Args)]
#[command(after_help = super::SPECS_HELP)]
pub struct PlayArgs {
    /// The first player (Red in Infexion); `human` to type moves.
    #[arg(long, value_name = "SPEC", default_value = "human")]
    pub a: AgentSpec,
    /// The second player.
    #[arg(long, value_name = "SPEC", default_value = "alphabeta:depth=3")]
    pub b: AgentSpec,
    /// The game.
    #[arg(long, value_enum, default_value_t)]
    pub game: GameKind,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies played before the agents take over.
    #[arg(long, default_value_t = 0)]
    pub opening_plies: u32,
    /// Each agent's clock per game in seconds (0: unlimited).
    #[arg(long, default_value_t = 0.0)]
    pub time_per_game: f64,
}

pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    match args.game {
        GameKind::Infexion => play(&Board::new(), &args),
    }
}

fn play<G: Baselines>(start: &G, args: &PlayArgs) -> anyhow::Result<()> {
    let clock = clock_from_secs(args.time_per_game)?;
    let specs = [&args.a, &args.b];
    let mut agents: Vec<_> = (0..start.num_players())
        .map(|seat| specs[seat % 2].build(start, args.seed.wrapping_add(seat as u64)))
        .collect::<anyhow::Result<_>>()?;
    let opening = random_opening(start, args.opening_plies, args.seed)?;
    let record = play_game(
        start,
        &opening,
        &mut agents,
        clock,
        |state, seat, action| {
            println!(
                "{:>3}. {:<5} {}",
                state.ply(),
                state.player_name(seat),
                state.action_to_string(action)
            );
        },
    );
    let mut end = start.clone();
    for &a in &record.moves {
        end.apply(a)?;
    }
    println!("\n{}", end.render());
    if let Some(f) = &record.forfeit {
        println!("{} forfeits: {}", start.player_name(f.seat), f.reason);
    }
    match record.outcome.winner() {
        Some(p) => println!("{} wins", start.player_name(p)),
        None => println!("draw"),
    }
    Ok(())
}
