//! `contagion export`: a checkpoint → a self-describing bundle (`model.safetensors` +
//! `manifest.json`) that other front ends run without this program.

use std::path::PathBuf;

use clap::Args;

use super::Games;

#[derive(Debug, Args)]
#[command(
    after_help = "Accepts what `contagion train` writes: a checkpoint file (ckpt-000012.ckpt, \
best.ckpt) or a run directory (its best.ckpt), local or s3://bucket/prefix/run; with \
--format onnx also a bundle, to add its ONNX model. The bundle is model.safetensors + \
manifest.json (+ model.onnx); the format is in docs/bundle.md."
)]
/// `contagion export`'s arguments.
pub struct ExportArgs {
    /// A checkpoint file (.ckpt) or a run directory (its best.ckpt), local or s3://; with
    /// `--format onnx`, also a bundle.
    #[arg(long, value_name = "CKPT|RUN|BUNDLE")]
    pub checkpoint: PathBuf,
    /// The bundle directory to write (created if needed; its files are replaced).
    #[arg(long)]
    pub out: PathBuf,
    /// `safetensors`: the bundle; `onnx`: the bundle and the same network as model.onnx.
    #[arg(long, value_enum, default_value_t = Format::Safetensors)]
    pub format: Format,
}

/// What `contagion export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The bundle: model.safetensors and manifest.json.
    Safetensors,
    /// The bundle and model.onnx beside it, named in the manifest.
    Onnx,
}

/// Runs `contagion export`.
pub fn run(args: ExportArgs, games: &Games) -> anyhow::Result<()> {
    let onnx = args.format == Format::Onnx;
    crate::train::export::export(&args.checkpoint, &args.out, onnx, |shape, provenance| {
        Ok(games.get(&shape.game)?.manifest(shape, provenance))
    })
}
