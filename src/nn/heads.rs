//! The auxiliary heads, each declared once.
//!
//! A network always has its policy and value heads; the auxiliary heads are trained only
//! (the search reads none of them) and each is one entry of [`HEADS`]: its layer's name
//! (which names its tensors in a bundle, its graph value in the manifest, its ONNX output
//! and what the Python front end computes), its key in the manifest's outputs, the config
//! field that weights its loss, its `metrics.jsonl` key, the report's label, what its
//! output means and what it needs of a game. [`PerHead`] holds one thing for each head
//! (whether a network has it, its weight, its loss, its layer's gradient, its targets in
//! a batch), so the network, the training step, the formats, warm starts and the report
//! go over the table. A head's own math is its [`Kind`]'s: a head of a new kind brings
//! its forward, loss and backward; a head of a kind that exists brings only its target.

use std::ops::{Index, IndexMut};

/// One auxiliary head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Aux {
    /// Who holds each cell at the game's end (KataGo's ownership target).
    Ownership,
    /// The game's final score vector (KataGo's score target).
    Margin,
    /// The score vector a few plies ahead (KataGo's short-horizon value targets).
    ShortValue,
    /// The policy target softened (KataGo's soft policy head).
    SoftPolicy,
}

/// How many auxiliary heads there are.
pub const COUNT: usize = 4;

impl Aux {
    /// Every head, in the table's order (the order of the formats' lists).
    pub const ALL: [Aux; COUNT] = [
        Aux::Ownership,
        Aux::Margin,
        Aux::ShortValue,
        Aux::SoftPolicy,
    ];

    /// The head's entry.
    pub fn head(self) -> &'static Head {
        &HEADS[self as usize]
    }
}

/// What a head computes, which fixes its layer and its loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A 1×1 convolution of the trunk's output to one logit a cell for nobody and for
    /// each player relative to the mover; softmax cross-entropy a cell.
    Cells,
    /// A dense layer from the value head's hidden layer to one `tanh` a player relative
    /// to the mover; squared error.
    Dense,
    /// A 1×1 convolution of the trunk's output to policy logits in action order, masked
    /// to the legal moves; cross-entropy.
    Policy,
}

/// What a head's target needs of a game beyond its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Nothing more.
    Nothing,
    /// Who holds each cell ([`crate::games::Game::owners`]).
    Owners,
    /// A score beyond the result ([`crate::games::Game::score_vector`]).
    Score,
}

/// Everything about one auxiliary head but its math.
#[derive(Debug)]
pub struct Head {
    /// Which head.
    pub aux: Aux,
    /// Its key in a bundle manifest's `outputs`.
    pub key: &'static str,
    /// Its layer's name: its tensors are `<layer>.weight` and `<layer>.bias`, its output
    /// is the graph value and the ONNX output of this name.
    pub layer: &'static str,
    /// What it computes.
    pub kind: Kind,
    /// The `train` field weighting its loss (0: the network has no such head).
    pub weight: &'static str,
    /// What the weight does, for the config reference.
    pub weight_doc: &'static str,
    /// Its own `train` fields beyond the weight, for the config reference (the config
    /// holds their values).
    pub settings: &'static [Setting],
    /// Its loss's key in `metrics.jsonl`.
    pub metric: &'static str,
    /// Its loss's short name in the trainer's progress line.
    pub abbrev: &'static str,
    /// Its name in the report and the docs.
    pub label: &'static str,
    /// What its target needs of the game.
    pub needs: Needs,
    /// What its output means, for the manifest (after what its kind's outputs are).
    pub meaning: &'static str,
}

/// A head's own config field beyond its weight: a number in `lo ..= hi`.
#[derive(Debug)]
pub struct Setting {
    /// `train.key`, as in `--set`.
    pub key: &'static str,
    /// The least value.
    pub lo: f64,
    /// The greatest value.
    pub hi: f64,
    /// What it does, in a line.
    pub doc: &'static str,
}

/// Every auxiliary head, in [`Aux`]'s order.
pub const HEADS: [Head; COUNT] = [
    Head {
        aux: Aux::Ownership,
        key: "ownership",
        layer: "ownership",
        kind: Kind::Cells,
        weight: "train.ownership_weight",
        weight_doc: "the ownership head's weight: its cross-entropy against who holds each cell at the game's end, averaged over cells (0: no ownership head; KataGo's 1.5)",
        settings: &[],
        metric: "loss_owner",
        abbrev: "o",
        label: "ownership",
        needs: Needs::Owners,
        meaning: "who holds the cell at the game's end",
    },
    Head {
        aux: Aux::Margin,
        key: "margin",
        layer: "margin",
        kind: Kind::Dense,
        weight: "train.margin_weight",
        weight_doc: "the margin head's weight: its squared error against the game's final score vector (pieces, power, race; 0: no margin head)",
        settings: &[],
        metric: "loss_margin",
        abbrev: "m",
        label: "margin",
        needs: Needs::Score,
        meaning: "the expected final score vector (the game's own score in [-1, 1])",
    },
    Head {
        aux: Aux::ShortValue,
        key: "short_value",
        layer: "value.short",
        kind: Kind::Dense,
        weight: "train.short_value_weight",
        weight_doc: "the short-term value head's weight: its squared error against the score vector `short_value_plies` plies later (the result if the game ends sooner; 0: no short-term value head; KataGo's short-horizon value targets)",
        settings: &[Setting {
            key: "train.short_value_plies",
            lo: 1.0,
            hi: 100_000.0,
            doc: "... how many plies ahead the short-term value head looks",
        }],
        metric: "loss_short_value",
        abbrev: "s",
        label: "short-term value",
        needs: Needs::Score,
        meaning: "the expected score vector a few plies ahead (the result where the game \
                  ends sooner)",
    },
    Head {
        aux: Aux::SoftPolicy,
        key: "soft_policy",
        layer: "policy.soft",
        kind: Kind::Policy,
        weight: "train.soft_policy_weight",
        weight_doc: "the soft policy head's weight: its cross-entropy against the policy target raised to 1/4 and normalised (0: no soft policy head; KataGo's 8)",
        settings: &[],
        metric: "loss_soft_policy",
        abbrev: "sp",
        label: "soft policy",
        needs: Needs::Nothing,
        meaning: "trained on the policy target raised to a power below 1 and normalised",
    },
];

/// The table as Markdown, for the docs (`docs/bundle.md` holds it, and a test holds it
/// to this).
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| head | manifest `outputs` key | layer: graph value, ONNX output, tensors | \
         output a position | weight (0: no head) | `metrics.jsonl` | needs of the game | \
         what it learns |\n|---|---|---|---|---|---|---|---|\n",
    );
    for h in &HEADS {
        let (shape, what) = match h.kind {
            Kind::Cells => ("`[players + 1, height, width]` logits", "per cell, "),
            Kind::Dense => ("`[players]` tanh, from the mover", ""),
            Kind::Policy => ("`[actions]` logits, in action order", ""),
        };
        let needs = match h.needs {
            Needs::Nothing => "nothing more",
            Needs::Owners => "who holds each cell",
            Needs::Score => "a score beyond the result",
        };
        out += &format!(
            "| {} | `{}` | `{}` | {shape} | `{}` | `{}` | {needs} | {what}{} |\n",
            h.label, h.key, h.layer, h.weight, h.metric, h.meaning
        );
    }
    out
}

/// One `T` for each auxiliary head, indexed by [`Aux`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, bincode::Encode, bincode::Decode)]
pub struct PerHead<T>(pub [T; COUNT]);

impl<T> PerHead<T> {
    /// Each head's `f(head)`.
    pub fn from_fn(mut f: impl FnMut(Aux) -> T) -> PerHead<T> {
        PerHead(std::array::from_fn(|i| f(Aux::ALL[i])))
    }

    /// Each head with its `T`, in the table's order.
    pub fn iter(&self) -> impl Iterator<Item = (Aux, &T)> {
        Aux::ALL.into_iter().zip(&self.0)
    }

    /// Each head with its `T` to change, in the table's order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Aux, &mut T)> {
        Aux::ALL.into_iter().zip(&mut self.0)
    }

    /// Each head's `f` of its `T`.
    pub fn map<'a, U>(&'a self, mut f: impl FnMut(Aux, &'a T) -> U) -> PerHead<U> {
        PerHead::from_fn(|aux| f(aux, &self[aux]))
    }
}

/// A map from each head's key to its `T`.
impl<T: serde::Serialize> serde::Serialize for PerHead<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter().map(|(aux, v)| (aux.head().key, v)))
    }
}

impl<T> Index<Aux> for PerHead<T> {
    type Output = T;

    fn index(&self, aux: Aux) -> &T {
        &self.0[aux as usize]
    }
}

impl<T> IndexMut<Aux> for PerHead<T> {
    fn index_mut(&mut self, aux: Aux) -> &mut T {
        &mut self.0[aux as usize]
    }
}

/// Which auxiliary heads a network has.
pub type Heads = PerHead<bool>;

impl Heads {
    /// No auxiliary head.
    pub const NONE: Heads = PerHead([false; COUNT]);
    /// Every auxiliary head.
    pub const ALL: Heads = PerHead([true; COUNT]);

    /// Just the heads `on`.
    pub fn only(on: &[Aux]) -> Heads {
        PerHead::from_fn(|aux| on.contains(&aux))
    }

    /// The heads there are, in the table's order.
    pub fn present(&self) -> impl Iterator<Item = &'static Head> + '_ {
        self.iter()
            .filter(|&(_, &on)| on)
            .map(|(aux, _)| aux.head())
    }
}

/// The auxiliary heads a model has: each pair whose head is there (`Some`), with what
/// goes with it (its name, its gradient).
pub(crate) fn present<L, T>(
    heads: impl IntoIterator<Item = (Option<L>, T)>,
) -> impl Iterator<Item = (L, T)> {
    (heads.into_iter()).filter_map(|(head, with)| head.map(|h| (h, with)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_the_enum_s_order_with_distinct_names() {
        for (i, h) in HEADS.iter().enumerate() {
            assert_eq!(h.aux as usize, i, "{} out of place", h.key);
        }
        for field in [
            |h: &Head| h.key,
            |h: &Head| h.layer,
            |h: &Head| h.weight,
            |h: &Head| h.metric,
            |h: &Head| h.abbrev,
            |h: &Head| h.label,
        ] {
            let mut names: Vec<&str> = HEADS.iter().map(field).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), COUNT, "{names:?}");
        }
    }
}
