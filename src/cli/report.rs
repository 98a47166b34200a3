//! `contagion report`: learning curves (SVG and PNG) and a summary table from a run directory.

use std::path::PathBuf;

use clap::Args;

use crate::report;
use crate::train::metrics;

/// `contagion report`'s arguments.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run directory (e.g. checkpoints/infexion).
    #[arg(long)]
    pub run: PathBuf,
    /// Where to write the SVG (a PNG is written beside it); default: RUN/curves.svg.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Runs `contagion report`.
pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let (m, bad) = metrics::read(&args.run.join("metrics.jsonl"))?;
    anyhow::ensure!(
        !m.is_empty(),
        "{}: no iterations recorded yet",
        args.run.display()
    );
    if bad > 0 {
        eprintln!("note: skipped {bad} unreadable line(s) in metrics.jsonl");
    }
    print!("{}", report::table(&m));
    let out = args.out.unwrap_or_else(|| args.run.join("curves.svg"));
    // The run's name, not the path it was given by (`/tmp/…/ataxx` is `ataxx`).
    let name = (args.run.canonicalize().ok())
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| args.run.display().to_string());
    let title = format!("{name} — learning curves");
    match report::plot(&m, &title, &out)? {
        Some(png) => println!("curves written to {} and {}", out.display(), png.display()),
        None => println!(
            "curves written to {} (this build has no PNG output: feature `png`)",
            out.display()
        ),
    }
    Ok(())
}
