//! A differential test: a deliberately naive transcription of the Infexion rules text
//! (a map of cells, moves as strings, no tables, no bit tricks) is played alongside the
//! engine over random games; legal moves, every cell and the result must agree.

use std::collections::HashMap;

use contagion::games::Game;
use contagion::games::infexion::Board;
use contagion::rng::Rng;

const DIRS: [(i32, i32); 6] = [(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)];

/// The rules as the text states them: (r, q) → (player, power).
#[derive(Clone, Default)]
struct Reference {
    cells: HashMap<(i32, i32), (usize, u32)>,
    turns: u32,
}

impl Reference {
    fn power(&self, player: usize) -> u32 {
        self.cells
            .values()
            .filter(|(p, _)| *p == player)
            .map(|(_, k)| k)
            .sum()
    }

    fn over(&self) -> bool {
        self.turns >= 2 && (self.turns >= 343 || self.power(0) == 0 || self.power(1) == 0)
    }

    fn result(&self) -> Option<i32> {
        self.over().then(|| {
            let diff = self.power(0) as i32 - self.power(1) as i32;
            if diff >= 2 {
                1
            } else if diff <= -2 {
                -1
            } else {
                0
            }
        })
    }

    fn legal(&self) -> Vec<String> {
        let mut moves = Vec::new();
        if self.over() {
            return moves;
        }
        let me = (self.turns % 2) as usize;
        for r in 0..7 {
            for q in 0..7 {
                match self.cells.get(&(r, q)) {
                    None if self.power(0) + self.power(1) < 49 => {
                        moves.push(format!("SPAWN({r},{q})"))
                    }
                    Some((p, _)) if *p == me => {
                        for (dr, dq) in DIRS {
                            moves.push(format!("SPREAD({r},{q},{dr},{dq})"));
                        }
                    }
                    _ => {}
                }
            }
        }
        moves.sort();
        moves
    }

    fn apply(&mut self, mv: &str) {
        let me = (self.turns % 2) as usize;
        let nums: Vec<i32> = mv
            .trim_end_matches(')')
            .split('(')
            .nth(1)
            .unwrap()
            .split(',')
            .map(|n| n.parse().unwrap())
            .collect();
        let (r, q) = (nums[0], nums[1]);
        if mv.starts_with("SPAWN") {
            self.cells.insert((r, q), (me, 1));
        } else {
            let (_, k) = self.cells.remove(&(r, q)).unwrap();
            for i in 1..=k as i32 {
                let target = (
                    (r + i * nums[2]).rem_euclid(7),
                    (q + i * nums[3]).rem_euclid(7),
                );
                match self.cells.get(&target) {
                    Some((_, 6)) => {
                        self.cells.remove(&target);
                    }
                    Some((_, p)) => {
                        let p = *p;
                        self.cells.insert(target, (me, p + 1));
                    }
                    None => {
                        self.cells.insert(target, (me, 1));
                    }
                }
            }
        }
        self.turns += 1;
    }
}

fn engine_legal(board: &Board) -> Vec<String> {
    let mut actions = Vec::new();
    board.legal_actions(&mut actions);
    let mut moves: Vec<String> = actions.iter().map(|&a| board.action_to_string(a)).collect();
    moves.sort();
    moves
}

#[test]
fn the_engine_agrees_with_a_naive_transcription_of_the_rules() {
    let mut rng = Rng::new(99);
    let mut positions = 0;
    for _ in 0..300 {
        let (mut reference, mut board) = (Reference::default(), Board::new());
        loop {
            let moves = reference.legal();
            assert_eq!(
                engine_legal(&board),
                moves,
                "legal moves at {}",
                board.to_notation()
            );
            let expected = reference.result();
            let actual = board.outcome().map(|o| o.value(0) as i32);
            assert_eq!(actual, expected, "result at {}", board.to_notation());
            if moves.is_empty() {
                break;
            }
            // Favour SPREADs so that captures, removals and eliminations come up often.
            let spreads: Vec<&String> = moves.iter().filter(|m| m.starts_with("SPREAD")).collect();
            let mv = if !spreads.is_empty() && rng.below(3) > 0 {
                spreads[rng.below(spreads.len())].clone()
            } else {
                moves[rng.below(moves.len())].clone()
            };
            reference.apply(&mv);
            board.apply(board.parse_action(&mv).unwrap()).unwrap();
            for r in 0..7 {
                for q in 0..7 {
                    let code = board.cell((r * 7 + q) as usize);
                    let cell = (code != 0).then_some(((code >> 3) as usize, (code & 7) as u32));
                    assert_eq!(
                        cell,
                        reference.cells.get(&(r, q)).copied(),
                        "({r},{q}) after {mv}"
                    );
                }
            }
            positions += 1;
        }
    }
    assert!(positions > 10_000, "{positions} positions compared");
}

#[test]
fn perft_agrees_with_the_reference() {
    fn perft(r: &Reference, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        r.legal()
            .iter()
            .map(|m| {
                let mut child = r.clone();
                child.apply(m);
                perft(&child, depth - 1)
            })
            .sum()
    }
    // Depth 3 from the empty board, and depth 3 from a mid-game position with stacks,
    // compared with the engine (depth 4 from the start is 6,480,642: too slow here).
    let board = Board::new();
    assert_eq!(
        perft(&Reference::default(), 3),
        contagion::games::perft::perft(&board, 3)
    );
    let mut reference = Reference::default();
    let mut board = Board::new();
    for mv in [
        "SPAWN(0,0)",
        "SPAWN(0,1)",
        "SPAWN(1,0)",
        "SPAWN(6,6)",
        "SPREAD(1,0,-1,0)",
        "SPAWN(0,6)",
    ] {
        reference.apply(mv);
        board.apply(board.parse_action(mv).unwrap()).unwrap();
    }
    assert_eq!(
        perft(&reference, 3),
        contagion::games::perft::perft(&board, 3)
    );
}
