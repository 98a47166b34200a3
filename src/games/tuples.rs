//! Pattern features for the fast evaluator: every 2×2 window of a game's board read as
//! one pattern of its four cells' owners, a feature a window and pattern (the n-tuple
//! features of Othello's and Ataxx's classical evaluators).
//!
//! A cell's state is nobody (0) or a seat counted from the mover (1 the mover, 2 the
//! next seat, …), so a window has `(players + 1)⁴` patterns; its number is the four
//! states read in base `players + 1`, the top-left cell the lowest digit, then the
//! top-right, the bottom-left and the bottom-right. Windows are numbered row-major.
//! The features follow the encoding's own ([`super::Game::hot_inputs`]): feature
//! `encoding length + window · patterns + pattern`. Any game with an owner map
//! ([`super::Game::owners`]) has them; Ataxx's bitboards make the same numbers
//! directly ([`super::ataxx::bits::Bits::tuple_patterns`]).

/// The patterns of one window in a game of `players`.
pub fn patterns(players: usize) -> usize {
    (players + 1).pow(4)
}

/// How many tuple features a board of `height × width` has in a game of `players`.
pub fn count(players: usize, height: usize, width: usize) -> usize {
    height.saturating_sub(1) * width.saturating_sub(1) * patterns(players)
}

/// Calls `on` with `offset + window · patterns + pattern` for every window of `owners`
/// (row-major, `width` a row; 0 nobody, `1 + p` seat `p`), states counted from `mover`.
pub fn each(
    owners: &[u8],
    mover: usize,
    players: usize,
    width: usize,
    offset: u32,
    on: &mut dyn FnMut(u32),
) {
    let base = players as u32 + 1;
    let per = patterns(players) as u32;
    let state = |i: usize| match owners[i] {
        0 => 0,
        o => ((o as usize - 1 + players - mover) % players) as u32 + 1,
    };
    let height = owners.len() / width.max(1);
    let mut window = 0;
    for r in 0..height.saturating_sub(1) {
        for c in 0..width.saturating_sub(1) {
            let i = r * width + c;
            let pattern = [i, i + 1, i + width, i + width + 1]
                .iter()
                .rev()
                .fold(0, |n, &k| n * base + state(k));
            on(offset + window * per + pattern);
            window += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_reads_its_cells_from_the_mover() {
        // 3×3, two players, seat 1 to move: cells 0 (seat 0), 1 (seat 1), 4 (seat 1).
        let owners = [1, 2, 0, 0, 2, 0, 0, 0, 0];
        let mut got = Vec::new();
        each(&owners, 1, 2, 3, 100, &mut |f| got.push(f));
        // Window 0: states 2 (the opponent), 1, 0, 1 → 2 + 3 + 0 + 27.
        assert_eq!(got[0], 100 + 32);
        // Window 1: cells 1, 2, 4, 5 → 1 + 0 + 9 + 0.
        assert_eq!(got[1], 100 + 81 + 10);
        assert_eq!(got.len(), 4);
        assert_eq!(count(2, 3, 3), 4 * 81);
        assert!(
            got.iter()
                .all(|&f| f >= 100 && f < 100 + count(2, 3, 3) as u32)
        );
    }
}
