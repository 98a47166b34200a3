//! The files a model lives in: the checkpoint (network, optimizer and training state,
//! versioned and checksummed: [`checkpoint`]), the exported bundle for other front ends
//! (weights as [`safetensors`], a JSON [`manifest`] that says how to run them:
//! [`bundle`]), its ONNX graph ([`onnx`]), and the index of the shipped bundles that
//! names each game's current one ([`models`]).

pub mod bundle;
pub mod checkpoint;
pub mod fold;
pub mod manifest;
pub mod models;
pub mod onnx;
pub mod safetensors;
