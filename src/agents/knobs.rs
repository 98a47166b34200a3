//! The model agent's search settings that both a spec (`model:PATH,cpuct=200`) and the
//! engine (`setoption name CPuct value 200`) set, in hundredths: one table for the spec's
//! parameters, the engine's options and what each changes in the search.

use crate::search::mcts::{C_PUCT, FPU_REDUCTION, MctsParams};

/// One search setting, an integer `0..=max` standing for `value / 100`.
#[derive(Debug, Clone, Copy)]
pub struct Knob {
    /// The spec's key.
    pub key: &'static str,
    /// The letter the spec's form shows for its value.
    pub letter: &'static str,
    /// The engine option's name.
    pub option: &'static str,
    /// The largest value.
    pub max: u64,
    /// The value unless one is set.
    pub default: u64,
    /// Puts `value / 100` into the search's parameters.
    pub apply: fn(&mut MctsParams, f32),
}

/// Every knob, in the order specs print them.
pub const KNOBS: [Knob; 4] = [
    Knob {
        key: "cpuct",
        letter: "P",
        option: "CPuct",
        max: 1000,
        default: (C_PUCT * 100.0) as u64,
        apply: |p, v| p.c_puct = v,
    },
    Knob {
        key: "fpu",
        letter: "F",
        option: "FPU",
        max: 200,
        default: (FPU_REDUCTION * 100.0) as u64,
        apply: |p, v| p.fpu_reduction = v,
    },
    Knob {
        key: "contempt",
        letter: "C",
        option: "Contempt",
        max: 100,
        default: 0,
        apply: |p, v| p.draw_value = -v,
    },
    Knob {
        key: "rep",
        letter: "R",
        option: "Repeat",
        max: 100,
        default: 0,
        apply: |p, v| p.repeat_value = -v,
    },
];

/// A value for each of [`KNOBS`].
pub type KnobValues = [u64; KNOBS.len()];

/// Every knob at its default.
pub fn defaults() -> KnobValues {
    KNOBS.map(|k| k.default)
}

/// The knob the engine calls `option` (case as listed).
pub fn by_option(option: &str) -> Option<&'static Knob> {
    KNOBS.iter().find(|k| k.option == option)
}
