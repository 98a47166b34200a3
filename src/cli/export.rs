//! `contagion export`: a checkpoint → a self-describing bundle (`model.safetensors` +
//! `manifest.json`) that other front ends run without this program.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use clap::Args;

use anyhow::Context;

use crate::games::{GameKind, with_game};
use crate::nn::bundle;
use crate::nn::checkpoint::{Checkpoint, checkpoint_file};
use crate::nn::manifest::Provenance;
use crate::train::metrics;

#[derive(Debug, Args)]
#[command(
    after_help = "Accepts what `contagion train` writes: a checkpoint file (ckpt-000012.ckpt, \
best.ckpt) or a run directory (its best.ckpt), local or s3://bucket/prefix/run. A bundle is \
already exported: copy it instead. The bundle is model.safetensors + manifest.json; see the \
README's \"File formats\"."
)]
/// `contagion export`'s arguments.
pub struct ExportArgs {
    /// A checkpoint file (.ckpt) or a run directory (its best.ckpt); local or s3://.
    #[arg(long, value_name = "CKPT|RUN")]
    pub checkpoint: PathBuf,
    /// The bundle directory to write (created if needed; its two files are replaced).
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs `contagion export`.
pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        !bundle::is_bundle(&args.checkpoint),
        "{} is a bundle, already exported; export takes a checkpoint file (.ckpt) or a run \
         directory (its best.ckpt)",
        args.checkpoint.display()
    );
    let file = checkpoint_file(&args.checkpoint)?;
    let ckpt = Checkpoint::load(&file)?;
    let model =
        crate::nn::checkpoint::model_from_bytes(&ckpt.shape, &ckpt.model, &crate::nn::device())?;
    let provenance = provenance(&file, &ckpt);
    let kind =
        GameKind::from_name(&ckpt.shape.game).with_context(|| format!("{}", file.display()))?;
    let manifest = with_game!(kind, start => bundle::manifest(&ckpt.shape, start, provenance));
    bundle::write(&args.out, &manifest, &model)?;
    let size = std::fs::metadata(args.out.join(bundle::WEIGHTS))?.len();
    println!(
        "exported {} (iteration {}, {} blocks x {} channels, {} KiB of weights) to {}",
        file.display(),
        ckpt.state.iteration,
        ckpt.shape.blocks,
        ckpt.shape.channels,
        size / 1024,
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
        last_gating: last(|m| m.gating.as_ref()),
        vs_baseline: last(|m| m.vs_baseline.as_ref()),
        vs_greedy: last(|m| m.vs_greedy.as_ref()),
    }
}
