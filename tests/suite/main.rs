//! The integration tests, in one binary so that a change links one test program rather
//! than one per file (the S3 tests, which set the process's environment, stay apart in
//! `tests/s3_*.rs`). Each module is a theme; `cargo test --release --test suite NAME::`
//! runs one.

#[path = "../support/bundle.rs"]
mod bundle;
mod common;
#[path = "../support/markdown.rs"]
mod markdown;
#[path = "../support/process.rs"]
mod process;
#[path = "../support/python.rs"]
mod python;

mod agents;
mod arena;
mod ataxx_bits;
mod ataxx_limit;
mod ataxx_rules;
mod ataxx_uai;
mod best_reply;
mod browser;
mod builds;
mod bundle_compat;
mod chexers_rules;
mod cli;
mod conformance_kit;
mod crash_resume;
mod deploy;
mod docs;
mod engine_protocol;
mod export;
mod fast_forward;
mod fast_training;
mod fuzz;
mod gating;
mod imports;
mod infexion_properties;
mod infexion_rules;
mod long_games;
mod mcts;
mod new_game_agents;
mod nnue;
mod nnue_loop;
mod nnue_search;
mod onnx_export;
mod opponents;
mod python_package;
mod quantized_forward;
mod quiescence;
mod readme;
mod reference_rules;
mod robustness;
mod safety;
mod searched_data;
mod serve;
mod solver;
mod tensorboard;
mod tournament;
mod train_cli;
mod training;
mod warm_start;
