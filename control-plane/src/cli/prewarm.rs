//! `control-plane prewarm`: start, resume, watch and cancel prewarm jobs
//! (`crate::prewarm` does the work; this file is the command line around it:
//! flags, the progress display, exit codes).

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use super::{CliError, say};
use crate::app;
use crate::config::Config;
use crate::prewarm::selection::{self, SelectionArgs};
use crate::prewarm::{self as pw, Driver, Ended, Output, Progress, Settings};
use crate::renders::revisions::Revisions;
use crate::store::prewarm::PrewarmStore;
use crate::store::prewarm::{NewPrewarmItem, PrewarmRun};
use crate::store::{FeedbackStore, SqlStore, Store};

/// Exit code: the job paused at the budget reserve (resumable).
pub const EXIT_PAUSED: u8 = 3;
/// Exit code: the job finished, but some variants failed (a re-run retries them).
pub const EXIT_FAILED_ITEMS: u8 = 4;
/// Exit code: the job was cancelled while this command drove it.
pub const EXIT_CANCELLED: u8 = 5;
/// Exit code: interrupted (Ctrl-C or SIGTERM); the job paused, resumable.
pub const EXIT_INTERRUPTED: u8 = 130;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PrewarmCli {
    #[command(subcommand)]
    pub cmd: Option<PrewarmCmd>,
    #[command(flatten)]
    pub selection: SelectionArgs,
    #[command(flatten)]
    pub run: RunArgs,
    /// Prints the selection's variants, one a line (or as JSON), and queues
    /// nothing: what a prewarm with these flags would render.
    #[arg(long)]
    pub dry_run: bool,
}

/// How a job is driven.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Render jobs of this prewarm queued at once.
    #[arg(long, default_value_t = 64)]
    pub window: usize,
    /// The share of today's budget (percent) this job never spends
    /// (default: `[render] prewarm_reserve_percent`, 20).
    #[arg(long, value_name = "PERCENT")]
    pub budget_reserve: Option<u8>,
    /// Seconds between progress lines when stderr is not a terminal (a
    /// terminal gets a progress bar).
    #[arg(long, value_name = "SECS", default_value_t = 5)]
    pub progress_every: u64,
}

#[derive(Debug, clap::Subcommand)]
pub enum PrewarmCmd {
    /// A job's progress.
    Status { id: String },
    /// Cancels a job: its queued renders are withdrawn and their budget
    /// returned; renders already running finish.
    Cancel { id: String },
    /// Resumes a paused or interrupted job (re-running the same selection
    /// does too).
    Resume {
        id: String,
        #[command(flatten)]
        run: RunArgs,
    },
    /// The newest jobs.
    List {
        #[arg(long, default_value_t = 20)]
        limit: i64,
    },
}

pub async fn prewarm(config: &Config, cli: PrewarmCli, as_json: bool) -> Result<String, CliError> {
    // Concrete: the driver takes its narrow port from it.
    let store = Arc::new(app::open_store(config).await?);
    match cli.cmd {
        Some(PrewarmCmd::Status { id }) => status(&*store, &id, as_json).await,
        Some(PrewarmCmd::List { limit }) => list(&*store, limit, as_json).await,
        Some(PrewarmCmd::Cancel { id }) => match pw::cancel(&*store, &id).await? {
            Some(n) => Ok(say(
                as_json,
                json!({ "id": id, "state": "cancelled", "items_cancelled": n }),
                &format!("prewarm {id} cancelled: {n} variants will not be rendered"),
            )),
            None => Err(match store.prewarm(&id).await? {
                Some(run) => CliError::Usage(format!(
                    "prewarm {id} has already ended ({})",
                    run.state.as_str()
                )),
                None => CliError::Usage(format!("no prewarm job {id}")),
            }),
        },
        Some(PrewarmCmd::Resume { id, run }) => {
            let found = store
                .prewarm(&id)
                .await?
                .ok_or_else(|| CliError::Usage(format!("no prewarm job {id}")))?;
            drive(config, store.clone(), found, &run, as_json, true).await
        }
        None if cli.dry_run => dry_run(&store, &cli.selection, as_json).await,
        None => start(config, store.clone(), &cli.selection, &cli.run, as_json).await,
    }
}

/// The selection expanded, nothing queued.
async fn dry_run(
    store: &SqlStore,
    args: &SelectionArgs,
    as_json: bool,
) -> Result<String, CliError> {
    let plan = selection::plan(args, vis_catalog::Catalog::embedded(), store)
        .await
        .map_err(CliError::Usage)?;
    let variants: Vec<String> = plan.variants.iter().map(|(v, _)| v.to_string()).collect();
    eprintln!(
        "{} variants, {} derived outputs each (dry run: nothing queued)",
        variants.len(),
        plan.outputs.len()
    );
    let text = variants.join("\n");
    Ok(say(
        as_json,
        json!({
            "selection": plan.selection,
            "outputs": Output::list_to_string(&plan.outputs),
            "total": variants.len(),
            "variants": variants,
        }),
        &text,
    ))
}

async fn start(
    config: &Config,
    store: Arc<SqlStore>,
    args: &SelectionArgs,
    run: &RunArgs,
    as_json: bool,
) -> Result<String, CliError> {
    let catalog = vis_catalog::Catalog::embedded();
    let plan = selection::plan(args, catalog, &*store)
        .await
        .map_err(CliError::Usage)?;
    let hash = plan.selection_hash();
    if let Some(open) = store.open_prewarm(&hash).await? {
        // The same selection, not finished: pick up where it stopped.
        return drive(config, store, open, run, as_json, true).await;
    }
    let revisions = Revisions::new(config.render.revision, store.variant_bumps().await?);
    let items: Vec<NewPrewarmItem> = plan
        .variants
        .iter()
        .map(|(variant, shape)| NewPrewarmItem {
            variant: variant.to_string(),
            revision: i64::from(revisions.of(variant)),
            shape: shape.id().to_owned(),
        })
        .collect();
    let created = store
        .create_prewarm(
            &plan.selection_text(),
            &hash,
            &Output::list_to_string(&plan.outputs),
            &items,
        )
        .await?;
    eprintln!(
        "prewarm {}: {} variants, {} derived outputs each",
        created.id,
        created.total,
        plan.outputs.len()
    );
    drive(config, store, created, run, as_json, false).await
}

async fn drive(
    config: &Config,
    store: Arc<SqlStore>,
    run: PrewarmRun,
    args: &RunArgs,
    as_json: bool,
    resuming: bool,
) -> Result<String, CliError> {
    if args.window == 0 {
        return Err(CliError::Usage("--window: must be at least 1".into()));
    }
    let reserve = args
        .budget_reserve
        .unwrap_or(config.render.prewarm_reserve_percent);
    if reserve > 100 {
        return Err(CliError::Usage(
            "--budget-reserve: must be between 0 and 100".into(),
        ));
    }
    let objects = app::open_objects(config).await?;
    let driver = Driver::new(
        store.clone(),
        objects,
        Settings {
            window: args.window,
            reserve_percent: reserve,
            default_budget: config.render.daily_budget,
        },
    );
    driver.claim(&run).await.map_err(prewarm_error)?;
    if resuming {
        let retried = store.retry_failed_prewarm_items(&run.id).await?;
        let counts = store.prewarm_counts(&run.id).await?;
        eprintln!(
            "resuming prewarm {}: {} of {} finished{}",
            run.id,
            counts.finished(),
            run.total,
            if retried > 0 {
                format!(", {retried} failed variants tried again")
            } else {
                String::new()
            }
        );
    }
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = tokio::spawn(stop_on_signal(Arc::clone(&stop)));
    let mut display = Display::new(Duration::from_secs(args.progress_every.max(1)));
    let ended = driver
        .drive(&run, &stop, |p| display.show(p))
        .await
        .map_err(prewarm_error);
    watcher.abort();
    display.finish();
    let ended = ended?;
    let now = store
        .prewarm(&run.id)
        .await?
        .ok_or_else(|| CliError::Usage(format!("no prewarm job {}", run.id)))?;
    let counts = store.prewarm_counts(&run.id).await?;
    let report = pw::report(&now, &counts);
    let text = format!(
        "prewarm {}: {} — {} rendered, {} skipped as cached, {} failed{} of {}{}",
        run.id,
        report["state"].as_str().unwrap_or_default(),
        counts.done,
        counts.cached,
        counts.failed,
        if counts.cancelled > 0 {
            format!(", {} cancelled", counts.cancelled)
        } else {
            String::new()
        },
        run.total,
        now.stopped_reason
            .as_deref()
            .map(|r| format!(
                " ({r}; resume with `control-plane prewarm resume {}`)",
                run.id
            ))
            .unwrap_or_default()
    );
    let output = say(as_json, report, &text);
    let code = match ended {
        Ended::Done if counts.failed == 0 => return Ok(output),
        Ended::Done => EXIT_FAILED_ITEMS,
        Ended::Paused(_) if stop.load(Ordering::Relaxed) => EXIT_INTERRUPTED,
        Ended::Paused(_) => EXIT_PAUSED,
        Ended::Cancelled => EXIT_CANCELLED,
    };
    Err(CliError::Incomplete {
        report: output,
        code,
    })
}

fn prewarm_error(e: pw::PrewarmError) -> CliError {
    match e {
        pw::PrewarmError::Store(e) => CliError::Store(e),
        other => CliError::Usage(other.to_string()),
    }
}

/// Sets `stop` on Ctrl-C or SIGTERM: the driver pauses the job and exits.
async fn stop_on_signal(stop: Arc<AtomicBool>) {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match term.as_mut() {
            Some(t) => {
                t.recv().await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminated => {}
    }
    eprintln!("prewarm: stopping; the job pauses and can be resumed");
    stop.store(true, Ordering::Relaxed);
}

/// A progress bar on a terminal; otherwise a line every `every`.
struct Display {
    bar: Option<indicatif::ProgressBar>,
    every: Duration,
    last_line: Option<Instant>,
    last: Option<Progress>,
}

impl Display {
    fn new(every: Duration) -> Display {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{prefix} [{bar:32.cyan/blue}] {pos}/{len} {wide_msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar
        });
        Display {
            bar,
            every,
            last_line: None,
            last: None,
        }
    }

    fn show(&mut self, p: &Progress) {
        match &self.bar {
            Some(bar) => {
                let c = &p.counts;
                bar.set_prefix(format!("prewarm {}", p.id));
                bar.set_length(p.total as u64);
                bar.set_position(c.finished() as u64);
                bar.set_message(format!(
                    "{} rendered · {} cached · {} failed · {} left · {:.1}/s · ETA {}",
                    c.done,
                    c.cached,
                    c.failed,
                    c.remaining(),
                    p.rate,
                    p.eta.map_or_else(|| "unknown".into(), pw::human_duration)
                ));
            }
            None => {
                if self.last_line.is_none_or(|at| at.elapsed() >= self.every) {
                    eprintln!("{}", p.line());
                    self.last_line = Some(Instant::now());
                    self.last = None;
                    return;
                }
            }
        }
        self.last = Some(p.clone());
    }

    /// The last state, always shown.
    fn finish(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        } else if let Some(p) = self.last.take() {
            eprintln!("{}", p.line());
        }
    }
}

async fn status(store: &dyn Store, id: &str, as_json: bool) -> Result<String, CliError> {
    let run = store
        .prewarm(id)
        .await?
        .ok_or_else(|| CliError::Usage(format!("no prewarm job {id}")))?;
    let counts = store.prewarm_counts(id).await?;
    let report = pw::report(&run, &counts);
    let text = format!(
        "prewarm {id}\nstate      {}{}\nfinished   {} of {} ({} rendered, {} skipped as cached, {} failed, {} cancelled)\nremaining  {} ({} queued for rendering)\noutputs    {}\nselection  {}",
        report["state"].as_str().unwrap_or_default(),
        run.stopped_reason
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default(),
        counts.finished(),
        run.total,
        counts.done,
        counts.cached,
        counts.failed,
        counts.cancelled,
        counts.remaining(),
        counts.queued,
        if run.outputs.is_empty() {
            "the source render only"
        } else {
            &run.outputs
        },
        run.selection
    );
    Ok(say(as_json, report, &text))
}

async fn list(store: &dyn Store, limit: i64, as_json: bool) -> Result<String, CliError> {
    let runs = store.prewarms(limit.clamp(1, 1000)).await?;
    let mut reports = Vec::new();
    let mut text = String::from("id                    state        finished   total\n");
    for run in &runs {
        let counts = store.prewarm_counts(&run.id).await?;
        let report = pw::report(run, &counts);
        text.push_str(&format!(
            "{:<21} {:<12} {:>8} {:>7}\n",
            run.id,
            report["state"].as_str().unwrap_or_default(),
            counts.finished(),
            run.total
        ));
        reports.push(report);
    }
    if runs.is_empty() {
        text = "no prewarm jobs\n".into();
    }
    Ok(say(as_json, json!(reports), &text))
}
