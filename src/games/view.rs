//! A position as a picture for a front end (`contagion serve`'s page): where each cell
//! sits, what stands on it, and which cells a move joins. Each game says it through
//! [`super::Game::view`] and [`super::Game::action_cells`]; the page draws hexagons or
//! squares from it and turns clicks into moves, knowing nothing of any game's rules.

use serde::Serialize;

/// The board of one position.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BoardView {
    /// `hex` (cells drawn as hexagons, rows shifted half a cell) or `square`.
    pub shape: &'static str,
    /// Every cell of the board.
    pub cells: Vec<CellView>,
}

/// One cell of a [`BoardView`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellView {
    /// The game's own cell index, as [`super::Game::action_cells`] names cells.
    pub id: usize,
    /// Where its centre is drawn, in cell widths from the left.
    pub x: f32,
    /// Where its centre is drawn, in cell heights from the top.
    pub y: f32,
    /// Its name in the game's notation (`a7`, `(3,4)`).
    pub name: String,
    /// The player whose piece stands on it, if any.
    pub owner: Option<usize>,
    /// Text drawn on the piece (Infexion: the stack's power).
    pub text: String,
    /// No piece may ever stand here (an Ataxx blocker).
    pub blocked: bool,
}

impl CellView {
    /// An empty cell `id` at `(x, y)` named `name`.
    pub fn new(id: usize, (x, y): (f32, f32), name: String) -> CellView {
        CellView {
            id,
            x,
            y,
            name,
            owner: None,
            text: String::new(),
            blocked: false,
        }
    }
}
