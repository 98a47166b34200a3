//! `contagion export`: a checkpoint written as a bundle for other front ends, with where
//! it came from (the run's counters, its last gating and baseline results).

use std::path::Path;
use std::time::SystemTime;

use anyhow::Context;

use super::{metrics, rundir};
use crate::config::Config;
use crate::nn::NetShape;
use crate::nn::formats::bundle;
use crate::nn::formats::checkpoint::{Checkpoint, checkpoint_file};
use crate::nn::formats::manifest::{Manifest, Provenance};

/// `contagion export`: the checkpoint at `checkpoint` (a file or a run directory, its
/// best) written as a bundle into `out`, with the network as ONNX too when `onnx`; with
/// `onnx`, a bundle's ONNX model added to it. `manifest` makes the game's manifest for
/// the checkpoint's network. Prints what it wrote.
pub fn export(
    checkpoint: &Path,
    out: &Path,
    onnx: bool,
    manifest: impl FnOnce(&NetShape, Provenance) -> anyhow::Result<Manifest>,
) -> anyhow::Result<()> {
    if bundle::is_bundle(checkpoint) {
        anyhow::ensure!(
            onnx,
            "{} is a bundle, already exported; export takes a checkpoint file (.ckpt) or a \
             run directory (its best.ckpt), or a bundle with --format onnx",
            checkpoint.display()
        );
        let dir = bundle::dir_of(checkpoint)?;
        bundle::add_onnx(dir, out)?;
        println!(
            "wrote {} for the bundle {} into {}",
            crate::nn::formats::onnx::FILE,
            dir.display(),
            out.display()
        );
        return Ok(());
    }
    let file = checkpoint_file(checkpoint)?;
    let ckpt = Checkpoint::load(&file)?;
    let model = crate::nn::formats::checkpoint::model_from_bytes(
        &ckpt.shape,
        &ckpt.model,
        &crate::nn::device(),
    )?;
    let provenance = provenance(&file, &ckpt);
    let manifest =
        manifest(&ckpt.shape, provenance).with_context(|| format!("{}", file.display()))?;
    let tensors = crate::nn::formats::fold::folded_tensors(&ckpt.shape, &model);
    bundle::write(out, &manifest, &tensors, onnx)?;
    let size = std::fs::metadata(out.join(bundle::WEIGHTS))?.len();
    println!(
        "exported {} (iteration {}, {} blocks x {} channels, {} KiB of weights{}) to {}",
        file.display(),
        ckpt.state.iteration,
        ckpt.shape.blocks,
        ckpt.shape.channels,
        size / 1024,
        if onnx { ", and model.onnx" } else { "" },
        out.display()
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
