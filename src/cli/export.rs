//! `contagion export`: a checkpoint → a self-describing bundle (`model.safetensors` +
//! `manifest.json`) that other front ends run without this program.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use clap::Args;

use anyhow::Context;

use super::Games;
use crate::config::Config;
use crate::nn::formats::bundle;
use crate::nn::formats::checkpoint::{Checkpoint, checkpoint_file};
use crate::nn::formats::manifest::Provenance;
use crate::train::{metrics, rundir};

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
    if bundle::is_bundle(&args.checkpoint) {
        anyhow::ensure!(
            onnx,
            "{} is a bundle, already exported; export takes a checkpoint file (.ckpt) or a \
             run directory (its best.ckpt), or a bundle with --format onnx",
            args.checkpoint.display()
        );
        let dir = bundle::dir_of(&args.checkpoint);
        bundle::add_onnx(dir, &args.out)?;
        println!(
            "wrote {} for the bundle {} into {}",
            crate::nn::formats::onnx::FILE,
            dir.display(),
            args.out.display()
        );
        return Ok(());
    }
    let file = checkpoint_file(&args.checkpoint)?;
    let ckpt = Checkpoint::load(&file)?;
    let model = crate::nn::formats::checkpoint::model_from_bytes(
        &ckpt.shape,
        &ckpt.model,
        &crate::nn::device(),
    )?;
    let provenance = provenance(&file, &ckpt);
    let game = (games.get(&ckpt.shape.game)).with_context(|| format!("{}", file.display()))?;
    let manifest = game.manifest(&ckpt.shape, provenance);
    let tensors = crate::nn::formats::fold::folded_tensors(&ckpt.shape, &model);
    bundle::write(&args.out, &manifest, &tensors, onnx)?;
    let size = std::fs::metadata(args.out.join(bundle::WEIGHTS))?.len();
    println!(
        "exported {} (iteration {}, {} blocks x {} channels, {} KiB of weights{}) to {}",
        file.display(),
        ckpt.state.iteration,
        ckpt.shape.blocks,
        ckpt.shape.channels,
        size / 1024,
        if onnx { ", and model.onnx" } else { "" },
        args.out.display()
    );
    Ok(())
}

/// Where the network came from: the checkpoint's counters and, when the checkpoint sits
/// in a run directory, the last gating and baseline results in its metrics up to the
/// checkpoint's own iteration (an earlier checkpoint is not credited with later ones).
fn provenance(file: &Path, ckpt: &Checkpoint) -> Provenance {
    let run_dir = file.parent().unwrap_or(Path::new("."));
    let records = metrics::read(&run_dir.join("metrics.jsonl"))
        .map(|(m, _)| m)
        .unwrap_or_default();
    let last = |pick: fn(&metrics::IterationMetrics) -> Option<&metrics::MatchResult>| {
        let own = records
            .iter()
            .filter(|m| m.iteration <= ckpt.state.iteration);
        own.rev().find_map(|m| {
            pick(m).map(|r| serde_json::json!({"iteration": m.iteration, "result": r}))
        })
    };
    let s = &ckpt.state;
    Provenance {
        exporter: format!("contagion {}", env!("CARGO_PKG_VERSION")),
        exported_at: crate::timestamp::utc_timestamp(SystemTime::now()),
        run: run_dir
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
        checkpoint: file
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
        iteration: s.iteration,
        best_iteration: s.best_iteration,
        games: s.games,
        positions: s.positions,
        steps: s.steps,
        training_minutes: (s.wall_seconds / 60.0 * 10.0).round() / 10.0,
        config_digest: s.config_digest.clone(),
        started_from: Config::load(&run_dir.join(rundir::CONFIG))
            .ok()
            .map(|c| c.run.init)
            .filter(|init| !init.is_empty()),
        last_gating: last(|m| m.gating.as_ref()),
        vs_baseline: last(|m| m.vs_baseline.as_ref()),
        vs_greedy: last(|m| m.vs_greedy.as_ref()),
    }
}
