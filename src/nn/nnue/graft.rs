//! An evaluator's weights carried into a shape that reads more features: one of the
//! squares ([`FeatureSet::Encoding`]) into one of the squares and the 2×2 windows after
//! them ([`FeatureSet::Tuples`]), the rest of the shape the same. The features both read
//! keep their rows and the windows' rows start at zero, so the grafted evaluator values
//! every position as the one it came from, and training on from it (`distill --from`)
//! learns what the windows add to what that one knows.

use super::{EvalShape, FeatureSet, FloatNet};

/// `net`'s weights as an evaluator of `shape`: `net` itself where the shapes are the
/// same, grafted where `shape` reads the windows after `net`'s squares, or an error
/// naming both shapes.
pub fn carried(net: &FloatNet, shape: &EvalShape) -> anyhow::Result<FloatNet> {
    if net.shape == *shape {
        return Ok(net.clone());
    }
    let from = &net.shape;
    let squares_to_tuples = from.features == FeatureSet::Encoding
        && shape.features == FeatureSet::Tuples
        && shape.inputs > from.inputs
        && EvalShape {
            inputs: shape.inputs,
            features: shape.features,
            ..from.clone()
        } == *shape;
    anyhow::ensure!(
        squares_to_tuples,
        "the weights to start from are {from}; the [distill] settings make {shape} \
         (only the same shape, or the squares' with the 2×2 windows added, trains on from them)"
    );
    let mut ft_w = net.ft_w.clone();
    ft_w.resize(shape.inputs * shape.hidden, 0.0);
    let [_, ft_b, l1_w, l1_b, out_w, out_b] = net.parts().map(Vec::clone);
    Ok(FloatNet::from_parts(
        shape.clone(),
        [ft_w, ft_b, l1_w, l1_b, out_w, out_b],
    ))
}
