//! A bundle as an ONNX model (`model.onnx`), for every runtime that reads ONNX.
//!
//! The graph is the manifest's layer list, one ONNX operator (or a few) per layer, over
//! the bundle's folded weights as initializers (float32):
//!
//! | layer | ONNX |
//! |---|---|
//! | `conv2d` | `Conv` (`pads` for zero padding; circular padding as `Slice` + `Concat` on both axes), then the activation |
//! | `add` | `Add`, then the activation |
//! | `broadcast_add` | `Unsqueeze` (axes 2, 3) of the second input, `Add`, then the activation |
//! | `flatten` | `Flatten` (axis 1) |
//! | `gather` | `Gather` (axis 1) with the manifest's index as an int64 initializer |
//! | `global_average_pool` | `GlobalAveragePool`, then `Flatten` |
//! | `global_pool` | `GlobalAveragePool` and `GlobalMaxPool`, each `Flatten`ed, then `Concat` (axis 1) |
//! | `linear` | `Gemm` (`transB = 1`), then the activation |
//!
//! The input is `input`, float32 `[batch, planes, height, width]` with a free batch
//! dimension; the outputs are named as the manifest's `outputs` name them (`policy`,
//! `value`). Opset 17, IR version 8, which ONNX Runtime 1.14 and later run.
//!
//! The protobuf messages are declared here, the subset of `onnx.proto` this writes, with
//! their field numbers, and encoded by `prost`.

use std::collections::BTreeMap;

use anyhow::{Context, bail};
use prost::Message;

use super::manifest::{Layer, Manifest};
use super::safetensors::Tensor;

/// The ONNX file's name in a bundle.
pub const FILE: &str = "model.onnx";

/// The ONNX model of `manifest` with the weights `tensors`, encoded.
pub fn to_bytes(
    manifest: &Manifest,
    tensors: &BTreeMap<String, Tensor>,
) -> anyhow::Result<Vec<u8>> {
    let mut g = Graph::default();
    for (name, t) in tensors {
        g.float(name, &t.shape, &t.data);
    }
    let [planes, height, width] = manifest.input.shape;
    let json = serde_json::to_value(manifest)?;
    for layer in &manifest.architecture.layers {
        g.layer(layer, (height, width), &json)?;
    }
    let outputs = manifest.outputs.all();
    let graph = proto::Graph {
        node: g.nodes,
        name: "contagion".into(),
        initializer: g.inits,
        input: vec![value_info(
            "input",
            &["batch".into(), planes.into(), height.into(), width.into()],
        )],
        output: outputs
            .iter()
            .map(|o| {
                let dims = std::iter::once("batch".into()).chain(o.shape.iter().map(|&n| n.into()));
                value_info(&o.value, &dims.collect::<Vec<Dim>>())
            })
            .collect(),
    };
    let model = proto::Model {
        ir_version: 8,
        producer_name: "contagion".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        graph: Some(graph),
        opset_import: vec![proto::OperatorSetId {
            domain: String::new(),
            version: 17,
        }],
    };
    Ok(model.encode_to_vec())
}

/// A dimension of a value's shape: fixed, or named (free).
enum Dim {
    Fixed(usize),
    Named(String),
}

impl From<usize> for Dim {
    fn from(n: usize) -> Dim {
        Dim::Fixed(n)
    }
}

impl From<&str> for Dim {
    fn from(s: &str) -> Dim {
        Dim::Named(s.to_string())
    }
}

/// A float32 graph input or output of `dims`.
fn value_info(name: &str, dims: &[Dim]) -> proto::ValueInfo {
    let dim = dims
        .iter()
        .map(|d| proto::Dimension {
            value: Some(match d {
                Dim::Fixed(n) => proto::DimValue::Value(*n as i64),
                Dim::Named(s) => proto::DimValue::Param(s.clone()),
            }),
        })
        .collect();
    proto::ValueInfo {
        name: name.into(),
        r#type: Some(proto::Type {
            tensor_type: Some(proto::TensorType {
                elem_type: proto::FLOAT,
                shape: Some(proto::Shape { dim }),
            }),
        }),
    }
}

/// The graph as it is built: nodes, initializers, and a counter for fresh names.
#[derive(Default)]
struct Graph {
    nodes: Vec<proto::Node>,
    inits: Vec<proto::Tensor>,
    fresh: usize,
}

impl Graph {
    /// A new value name derived from `stem`.
    fn fresh(&mut self, stem: &str) -> String {
        self.fresh += 1;
        format!("{stem}__{}", self.fresh)
    }

    fn float(&mut self, name: &str, dims: &[usize], data: &[f32]) {
        self.inits.push(proto::Tensor {
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type: proto::FLOAT,
            name: name.into(),
            raw_data: data.iter().flat_map(|x| x.to_le_bytes()).collect(),
        });
    }

    /// A new int64 initializer holding `values`; returns its name.
    fn int64(&mut self, stem: &str, values: &[i64]) -> String {
        let name = self.fresh(stem);
        self.inits.push(proto::Tensor {
            dims: vec![values.len() as i64],
            data_type: proto::INT64,
            name: name.clone(),
            raw_data: values.iter().flat_map(|x| x.to_le_bytes()).collect(),
        });
        name
    }

    /// Adds `op` from `inputs` to a fresh output; returns the output's name.
    fn node(
        &mut self,
        op: &str,
        inputs: &[&str],
        stem: &str,
        attrs: Vec<proto::Attribute>,
    ) -> String {
        let out = self.fresh(stem);
        self.nodes.push(proto::Node {
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![out.clone()],
            op_type: op.into(),
            attribute: attrs,
        });
        out
    }

    /// `x` padded by one cell on each side of `axis` with the opposite edge (a torus).
    fn wrap(&mut self, x: &str, axis: i64, size: usize) -> String {
        let n = size as i64;
        let slice = |g: &mut Graph, from: i64, to: i64| {
            let (s, e, a) = (
                g.int64("s", &[from]),
                g.int64("e", &[to]),
                g.int64("a", &[axis]),
            );
            g.node("Slice", &[x, &s, &e, &a], x, vec![])
        };
        let last = slice(self, n - 1, n);
        let first = slice(self, 0, 1);
        self.node("Concat", &[&last, x, &first], x, vec![int("axis", axis)])
    }

    /// `y` through `activation` (`relu`, `tanh` or `none`).
    fn activate(&mut self, y: String, activation: &str) -> anyhow::Result<String> {
        Ok(match activation {
            "relu" => self.node("Relu", &[&y], &y, vec![]),
            "tanh" => self.node("Tanh", &[&y], &y, vec![]),
            "none" | "" => y,
            other => bail!("activation '{other}' has no ONNX form here"),
        })
    }

    /// Names `y` as the layer's `output`.
    fn name(&mut self, y: &str, output: &str) {
        self.nodes.push(proto::Node {
            input: vec![y.into()],
            output: vec![output.into()],
            op_type: "Identity".into(),
            attribute: vec![],
        });
    }

    fn layer(
        &mut self,
        layer: &Layer,
        (h, w): (usize, usize),
        manifest: &serde_json::Value,
    ) -> anyhow::Result<()> {
        match layer {
            Layer::Conv2d {
                input,
                output,
                weight,
                bias,
                kernel,
                padding,
                activation,
                ..
            } => {
                let k = *kernel as i64;
                let (x, pads) = match padding.as_str() {
                    "circular" => {
                        let rows = self.wrap(input, 2, h);
                        (self.wrap(&rows, 3, w), 0)
                    }
                    "zeros" => (input.clone(), k / 2),
                    "none" => (input.clone(), 0),
                    other => bail!("padding '{other}' has no ONNX form here"),
                };
                let attrs = vec![ints("kernel_shape", &[k, k]), ints("pads", &[pads; 4])];
                let y = self.node("Conv", &[&x, weight, bias], output, attrs);
                let y = self.activate(y, activation)?;
                self.name(&y, output);
            }
            Layer::Add {
                inputs,
                output,
                activation,
            } => {
                let y = self.node("Add", &[&inputs[0], &inputs[1]], output, vec![]);
                let y = self.activate(y, activation)?;
                self.name(&y, output);
            }
            Layer::BroadcastAdd {
                inputs,
                output,
                activation,
            } => {
                let axes = self.int64("axes", &[2, 3]);
                let bias = self.node("Unsqueeze", &[&inputs[1], &axes], output, vec![]);
                let y = self.node("Add", &[&inputs[0], &bias], output, vec![]);
                let y = self.activate(y, activation)?;
                self.name(&y, output);
            }
            Layer::GlobalPool { input, output } => {
                let mut halves = Vec::new();
                for op in ["GlobalAveragePool", "GlobalMaxPool"] {
                    let pooled = self.node(op, &[input], output, vec![]);
                    halves.push(self.node("Flatten", &[&pooled], output, vec![int("axis", 1)]));
                }
                let y = self.node(
                    "Concat",
                    &[&halves[0], &halves[1]],
                    output,
                    vec![int("axis", 1)],
                );
                self.name(&y, output);
            }
            Layer::Flatten { input, output } => {
                let y = self.node("Flatten", &[input], output, vec![int("axis", 1)]);
                self.name(&y, output);
            }
            Layer::Gather {
                input,
                output,
                index,
            } => {
                let values = index
                    .split('.')
                    .try_fold(manifest, |node, part| node.get(part))
                    .and_then(|v| v.as_array())
                    .with_context(|| {
                        format!("gather index '{index}' is not a list in the manifest")
                    })?;
                let values: Vec<i64> = values.iter().filter_map(|v| v.as_i64()).collect();
                let idx = self.int64("index", &values);
                let y = self.node("Gather", &[input, &idx], output, vec![int("axis", 1)]);
                self.name(&y, output);
            }
            Layer::GlobalAveragePool { input, output } => {
                let pooled = self.node("GlobalAveragePool", &[input], output, vec![]);
                let y = self.node("Flatten", &[&pooled], output, vec![int("axis", 1)]);
                self.name(&y, output);
            }
            Layer::Linear {
                input,
                output,
                weight,
                bias,
                activation,
                ..
            } => {
                let y = self.node(
                    "Gemm",
                    &[input, weight, bias],
                    output,
                    vec![int("transB", 1)],
                );
                let y = self.activate(y, activation)?;
                self.name(&y, output);
            }
        }
        Ok(())
    }
}

/// An integer attribute.
fn int(name: &str, i: i64) -> proto::Attribute {
    proto::Attribute {
        name: name.into(),
        r#type: proto::ATTR_INT,
        i,
        ints: vec![],
    }
}

/// A list-of-integers attribute.
fn ints(name: &str, values: &[i64]) -> proto::Attribute {
    proto::Attribute {
        name: name.into(),
        r#type: proto::ATTR_INTS,
        i: 0,
        ints: values.to_vec(),
    }
}

/// The subset of `onnx.proto` (proto3 field numbers) this module writes.
mod proto {
    /// `TensorProto.DataType.FLOAT`.
    pub const FLOAT: i32 = 1;
    /// `TensorProto.DataType.INT64`.
    pub const INT64: i32 = 7;
    /// `AttributeProto.AttributeType.INT`.
    pub const ATTR_INT: i32 = 2;
    /// `AttributeProto.AttributeType.INTS`.
    pub const ATTR_INTS: i32 = 7;

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Model {
        #[prost(int64, tag = "1")]
        pub ir_version: i64,
        #[prost(string, tag = "2")]
        pub producer_name: String,
        #[prost(string, tag = "3")]
        pub producer_version: String,
        #[prost(message, optional, tag = "7")]
        pub graph: Option<Graph>,
        #[prost(message, repeated, tag = "8")]
        pub opset_import: Vec<OperatorSetId>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct OperatorSetId {
        #[prost(string, tag = "1")]
        pub domain: String,
        #[prost(int64, tag = "2")]
        pub version: i64,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Graph {
        #[prost(message, repeated, tag = "1")]
        pub node: Vec<Node>,
        #[prost(string, tag = "2")]
        pub name: String,
        #[prost(message, repeated, tag = "5")]
        pub initializer: Vec<Tensor>,
        #[prost(message, repeated, tag = "11")]
        pub input: Vec<ValueInfo>,
        #[prost(message, repeated, tag = "12")]
        pub output: Vec<ValueInfo>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Node {
        #[prost(string, repeated, tag = "1")]
        pub input: Vec<String>,
        #[prost(string, repeated, tag = "2")]
        pub output: Vec<String>,
        #[prost(string, tag = "4")]
        pub op_type: String,
        #[prost(message, repeated, tag = "5")]
        pub attribute: Vec<Attribute>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Attribute {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(int64, tag = "3")]
        pub i: i64,
        #[prost(int64, repeated, tag = "8")]
        pub ints: Vec<i64>,
        #[prost(int32, tag = "20")]
        pub r#type: i32,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Tensor {
        #[prost(int64, repeated, tag = "1")]
        pub dims: Vec<i64>,
        #[prost(int32, tag = "2")]
        pub data_type: i32,
        #[prost(string, tag = "8")]
        pub name: String,
        #[prost(bytes = "vec", tag = "9")]
        pub raw_data: Vec<u8>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ValueInfo {
        #[prost(string, tag = "1")]
        pub name: String,
        #[prost(message, optional, tag = "2")]
        pub r#type: Option<Type>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Type {
        #[prost(message, optional, tag = "1")]
        pub tensor_type: Option<TensorType>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorType {
        #[prost(int32, tag = "1")]
        pub elem_type: i32,
        #[prost(message, optional, tag = "2")]
        pub shape: Option<Shape>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Shape {
        #[prost(message, repeated, tag = "1")]
        pub dim: Vec<Dimension>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Dimension {
        #[prost(oneof = "DimValue", tags = "1, 2")]
        pub value: Option<DimValue>,
    }

    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum DimValue {
        #[prost(int64, tag = "1")]
        Value(i64),
        #[prost(string, tag = "2")]
        Param(String),
    }
}
