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
    let title = format!("{} — learning curves", args.run.display());
    match report::plot(&m, &title, &out)? {
        Some(png) => println!("curves written to {} and {}", out.display(), png.display()),
        None => println!(
            "curves written to {} (this build has no PNG output: feature `png`)",
            out.display()
        ),
    }
    Ok(())
}
