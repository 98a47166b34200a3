//! Resignation in self-play (two-player games): a player whose root value stays below
//! `threshold` for `moves` of their own consecutive moves resigns and loses. In a share
//! `check_fraction` of games nobody resigns: the first player who *would* have is
//! noted, and the game is played out to see whether that player really lost. Their
//! share of wins and draws is the false-resignation rate (keep it under 5%: lower the
//! threshold or raise `moves` if it is not).

use crate::games::MAX_PLAYERS;

/// Resignation settings; `moves = 0` turns resignation off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResignRule {
    /// The root value below which a move counts toward resigning.
    pub threshold: f32,
    /// Own moves in a row below it before resigning.
    pub moves: u32,
    /// The share of games played out anyway to measure false resignations.
    pub check_fraction: f64,
}

impl ResignRule {
    /// Resignation off.
    pub const OFF: ResignRule = ResignRule {
        threshold: -1.0,
        moves: 0,
        check_fraction: 0.0,
    };
}

/// One game's resignation state.
#[derive(Debug, Clone, Default)]
pub struct ResignWatch {
    streak: [u32; MAX_PLAYERS],
    /// A game played out to measure false resignations.
    pub checking: bool,
    /// The first player who would have resigned in a checked game.
    pub would_resign: Option<usize>,
}

/// What happened after a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Play on.
    Play,
    /// `player` resigns: the game ends, lost for them.
    Resign(usize),
}

impl ResignWatch {
    /// A watch for a new game; `checking` plays it out whatever happens.
    pub fn new(checking: bool) -> ResignWatch {
        ResignWatch {
            checking,
            ..ResignWatch::default()
        }
    }

    /// Notes that `mover`, about to move in a game of `players`, sees `value`.
    pub fn observe(
        &mut self,
        rule: &ResignRule,
        players: usize,
        mover: usize,
        value: f32,
    ) -> Verdict {
        if rule.moves == 0 || players != 2 {
            return Verdict::Play;
        }
        let streak = &mut self.streak[mover];
        *streak = if value < rule.threshold {
            *streak + 1
        } else {
            0
        };
        if *streak < rule.moves {
            return Verdict::Play;
        }
        if self.checking {
            self.would_resign.get_or_insert(mover);
            return Verdict::Play;
        }
        Verdict::Resign(mover)
    }

    /// For a checked game that ended with `outcome`: `Some(true)` if the player who
    /// would have resigned did not lose (a false resignation), `None` if nobody would have.
    pub fn false_resignation(&self, outcome: &[f32; MAX_PLAYERS]) -> Option<bool> {
        self.would_resign.map(|p| outcome[p] >= 0.0)
    }
}

/// The result of a two-player game that `player` resigned.
pub fn resigned_outcome(player: usize) -> [f32; MAX_PLAYERS] {
    let mut out = [0.0; MAX_PLAYERS];
    out[player] = -1.0;
    out[1 - player] = 1.0;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: ResignRule = ResignRule {
        threshold: -0.9,
        moves: 2,
        check_fraction: 0.1,
    };

    #[test]
    fn resigns_after_a_streak_of_own_moves_and_resets_on_a_better_one() {
        let mut w = ResignWatch::new(false);
        assert_eq!(w.observe(&RULE, 2, 0, -0.95), Verdict::Play);
        assert_eq!(w.observe(&RULE, 2, 1, 0.95), Verdict::Play);
        assert_eq!(w.observe(&RULE, 2, 0, -0.5), Verdict::Play, "streak broken");
        assert_eq!(w.observe(&RULE, 2, 0, -0.95), Verdict::Play);
        assert_eq!(w.observe(&RULE, 2, 0, -0.99), Verdict::Resign(0));
        assert_eq!(resigned_outcome(0)[..2], [-1.0, 1.0]);
        // Off for three players and with moves = 0.
        assert_eq!(
            ResignWatch::new(false).observe(&RULE, 3, 0, -1.0),
            Verdict::Play
        );
        assert_eq!(
            ResignWatch::new(false).observe(&ResignRule::OFF, 2, 0, -1.0),
            Verdict::Play
        );
    }

    #[test]
    fn checked_games_play_on_and_count_false_resignations() {
        let mut w = ResignWatch::new(true);
        for _ in 0..3 {
            assert_eq!(w.observe(&RULE, 2, 1, -0.99), Verdict::Play);
        }
        assert_eq!(w.would_resign, Some(1));
        assert_eq!(
            w.false_resignation(&[-1.0, 1.0, 0.0]),
            Some(true),
            "player 1 won"
        );
        assert_eq!(
            w.false_resignation(&[1.0, -1.0, 0.0]),
            Some(false),
            "player 1 lost"
        );
        assert_eq!(ResignWatch::new(true).false_resignation(&[0.0; 3]), None);
    }
}
