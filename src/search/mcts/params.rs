//! The search's settings: PUCT's constants, the root's noise and batching, Gumbel root
//! search's constants, and how draws and repetitions score inside the tree. Their
//! defaults are declared here once; configs and agent specs start from them.

use crate::games::Outcome;
use crate::search::gumbel::Sigma;

/// PUCT's exploration constant unless a config or an agent sets another.
pub const C_PUCT: f32 = 1.5;

/// How far below its parent's value an unvisited child starts, unless a config or an
/// agent sets another.
pub const FPU_REDUCTION: f32 = 0.0;

/// Search parameters.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MctsParams {
    /// The exploration constant of PUCT.
    pub c_puct: f32,
    /// First-play urgency: how far below the parent's value an unvisited child starts.
    pub fpu_reduction: f32,
    /// The Dirichlet noise's concentration at the root.
    pub dirichlet_alpha: f32,
    /// Weight of the noise in the root priors; 0 turns noise off.
    pub dirichlet_fraction: f32,
    /// Leaves collected per tree per batch (with virtual loss).
    pub leaves_per_tree: u32,
    /// Gumbel root search ([`crate::search::gumbel`]); `None`: PUCT at the root.
    #[serde(default)]
    pub gumbel: Option<GumbelParams>,
    /// Forced playouts and policy target pruning's `k` at a noised PUCT root
    /// ([`forced`](super)); 0: off.
    #[serde(default)]
    pub forced_playouts: f32,
    /// What a game drawn by its rules (a repetition, a turn limit, an even count) scores
    /// for every seat in the tree; 0 scores it as the rules do. Self-play's is
    /// `mcts.draw_value`; the model agent sets minus its contempt: below 0, no seat steers
    /// for a draw.
    #[serde(default)]
    pub draw_value: f32,
    /// What a position below the root that repeats one of the game's earlier positions
    /// ([`Game::repeats`](crate::games::Game::repeats)) scores for every seat, ending the
    /// line there; 0: off (a repetition scores as the rules do). The model agent sets
    /// minus its `rep`: below 0, no seat steers into a repetition long before the rules
    /// would draw the game.
    #[serde(default)]
    pub repeat_value: f32,
}

/// Gumbel root search's settings: root actions sampled (k) and `σ`'s constants.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GumbelParams {
    /// Root actions sampled (k).
    pub actions: u32,
    /// `c_visit` of `σ`.
    pub c_visit: f32,
    /// `c_scale` of `σ`.
    pub c_scale: f32,
}

impl GumbelParams {
    /// `σ`'s constants.
    pub fn sigma(&self) -> Sigma {
        Sigma {
            c_visit: self.c_visit,
            c_scale: self.c_scale,
        }
    }
}

impl Default for GumbelParams {
    /// The paper's constants (Danihelka et al. 2022) and k = 16.
    fn default() -> Self {
        GumbelParams {
            actions: 16,
            c_visit: 50.0,
            c_scale: 1.0,
        }
    }
}

impl Default for MctsParams {
    fn default() -> Self {
        MctsParams {
            c_puct: C_PUCT,
            fpu_reduction: FPU_REDUCTION,
            dirichlet_alpha: 0.3,
            dirichlet_fraction: 0.0,
            leaves_per_tree: 1,
            gumbel: None,
            forced_playouts: 0.0,
            draw_value: 0.0,
            repeat_value: 0.0,
        }
    }
}

impl MctsParams {
    /// A finished game's outcome as the tree scores it: a draw at
    /// [`MctsParams::draw_value`], anything else as it is.
    pub fn terminal(&self, outcome: Outcome, num_players: usize) -> Outcome {
        if self.draw_value != 0.0 && outcome == Outcome::draw() {
            Outcome::draw_at(num_players, self.draw_value)
        } else {
            outcome
        }
    }
}
