//! The 100-half-move limit scored as libataxx and python-ataxx score it: a game the
//! limit stops while it could go on is a draw, whatever the material. Random games
//! that turn to jumps after an opening (so the clock runs) are played by our rules,
//! then replayed by python-ataxx and by our Python front end (`czero.ataxx`); the
//! results must agree on every game, a third or more of which reach the limit.

use crate::process;
use crate::python;

use std::process::Command;

use contagion::games::Game;
use contagion::games::ataxx::Ataxx;
use contagion::rng::Rng;

/// A game from the standard start: random moves for 20 to 59 plies (clones fill the
/// board), then jumps whenever there are any, so the half-move clock often reaches 100
/// with both sides on the board. Returns the moves and the end.
fn jumpy_game(rng: &mut Rng) -> (Vec<String>, Ataxx) {
    let mut s = Ataxx::standard();
    let (mut legal, mut moves) = (Vec::new(), Vec::new());
    let opening = 20 + rng.below(40);
    while s.outcome().is_none() {
        s.legal_actions(&mut legal);
        let names: Vec<String> = legal.iter().map(|&a| s.action_to_string(a)).collect();
        let jumps: Vec<usize> = (0..legal.len()).filter(|&i| names[i].len() >= 4).collect();
        let i = match moves.len() < opening || jumps.is_empty() {
            true => rng.below(legal.len()),
            false => jumps[rng.below(jumps.len())],
        };
        moves.push(names[i].clone());
        s.apply(legal[i]).unwrap();
    }
    (moves, s)
}

#[test]
fn results_at_the_half_move_limit_agree_with_python_ataxx() {
    let mut rng = Rng::new(50);
    let start = Ataxx::standard().to_notation();
    let games: Vec<(Vec<String>, Ataxx)> = (0..300).map(|_| jumpy_game(&mut rng)).collect();
    let at_limit = games.iter().filter(|(_, s)| s.halfmove() >= 100).count();
    assert!(
        at_limit >= 100,
        "only {at_limit} of 300 games reached the limit"
    );
    let mut input = String::new();
    for (moves, _) in &games {
        input += &format!("{start}\t{}\n", moves.join(" "));
    }
    let mut python = Command::new(python::python3());
    python.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/ataxx_results.py"
    ));
    let out = process::with_input(python, &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), games.len());
    let mut uneven_at_limit = 0;
    for (i, ((moves, end), line)) in games.iter().zip(&lines).enumerate() {
        let ours = match end.outcome().unwrap().winner() {
            Some(0) => "1-0",
            Some(_) => "0-1",
            None => "1/2-1/2",
        };
        let (python_ataxx, czero) = line.split_once(' ').expect("two results");
        let game = format!("game {i}: {} ({} plies)", moves.join(" "), moves.len());
        assert_eq!(ours, python_ataxx, "python-ataxx, {game}");
        assert_eq!(ours, czero, "our Python front end, {game}");
        let limited = end.halfmove() >= 100;
        uneven_at_limit += usize::from(limited && end.pieces(0) != end.pieces(1));
    }
    // Most of them had more pieces on one side: scored by material they would be wins.
    eprintln!("{at_limit} of 300 games reached the limit, {uneven_at_limit} with uneven material");
    assert!(
        uneven_at_limit >= at_limit / 2,
        "{uneven_at_limit} of {at_limit}"
    );
}
