//! `vis batch FILE`: many images into a directory.
//!
//! - Rows come from a CSV file (header `make,model,year`, optional `color`,
//!   `view`, the prewarm file's columns, and `size`, `width`, `height`,
//!   `format`), a JSON list of such objects, or JSON lines.
//! - Downloads run concurrently within the key's rate limit: the
//!   `RateLimit-Remaining`/`RateLimit-Reset` of each answer gate the next
//!   request, and a 429 waits its `Retry-After` and tries the row again.
//! - Resumable: a file already in the directory is skipped; files are
//!   written as `NAME.part` and renamed, so a killed batch leaves no half
//!   image under a final name.
//! - A 402 stops it cleanly: no new request is sent, those under way finish,
//!   and the report says how many credits the rest needs.

use std::collections::{HashSet, VecDeque};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::api::{Client, ImageSpec, RateLimit};
use crate::error::{Error, Problem, Result};

/// Retries of one row after a 503 or a network error (429s are not counted:
/// the server says when to come back).
const RETRIES: u32 = 3;

/// One row of a batch file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    make: String,
    model: String,
    year: u16,
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    paint: Option<String>,
    #[serde(default)]
    finish: Option<String>,
    #[serde(default)]
    view: Option<String>,
    #[serde(default)]
    angle: Option<u16>,
    #[serde(default)]
    size: Option<String>,
    #[serde(default)]
    width: Option<u32>,
    #[serde(default)]
    height: Option<u32>,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    shadow: Option<bool>,
    #[serde(default)]
    scale: Option<String>,
    #[serde(default)]
    background: Option<String>,
    #[serde(default)]
    fit: Option<String>,
    #[serde(default)]
    trim: Option<bool>,
    #[serde(default)]
    padding: Option<u32>,
}

/// Values for rows that leave a column out (the command's flags).
#[derive(Debug, Clone, Default)]
pub struct Defaults {
    pub color: Option<String>,
    pub paint: Option<String>,
    pub finish: Option<String>,
    pub view: Option<String>,
    pub angle: Option<u16>,
    pub size: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub format: Option<String>,
    pub shadow: Option<bool>,
    pub scale: Option<String>,
    pub background: Option<String>,
    pub fit: Option<String>,
    pub trim: Option<bool>,
    pub padding: Option<u32>,
}

fn nonempty(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

impl Row {
    fn into_spec(self, d: &Defaults) -> ImageSpec {
        // A row's own width or height replaces the flags' whole box.
        let (width, height) = if self.width.is_some() || self.height.is_some() {
            (self.width, self.height)
        } else {
            (d.width, d.height)
        };
        ImageSpec {
            make: self.make.trim().to_owned(),
            model: self.model.trim().to_owned(),
            year: self.year,
            color: nonempty(self.color).or_else(|| d.color.clone()),
            paint: nonempty(self.paint).or_else(|| d.paint.clone()),
            finish: nonempty(self.finish).or_else(|| d.finish.clone()),
            view: nonempty(self.view).or_else(|| d.view.clone()),
            angle: self.angle.or(d.angle),
            size: nonempty(self.size).or_else(|| d.size.clone()),
            width,
            height,
            format: nonempty(self.format).or_else(|| d.format.clone()),
            shadow: self.shadow.or(d.shadow),
            scale: nonempty(self.scale).or_else(|| d.scale.clone()),
            background: nonempty(self.background).or_else(|| d.background.clone()),
            fit: nonempty(self.fit).or_else(|| d.fit.clone()),
            trim: self.trim.or(d.trim),
            padding: self.padding.or(d.padding),
        }
    }
}

/// Reads a batch file; errors name the file and the line.
pub fn read_file(path: &Path, defaults: &Defaults) -> Result<Vec<ImageSpec>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
    parse(path, &text, defaults)
}

pub fn parse(path: &Path, text: &str, defaults: &Defaults) -> Result<Vec<ImageSpec>> {
    let name = path.display();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let start = text.trim_start().chars().next();
    let rows: Vec<Row> = if start == Some('[') {
        serde_json::from_str(text).map_err(|e| Error::Usage(format!("{name}: {e}")))?
    } else if matches!(ext.as_str(), "jsonl" | "ndjson" | "json") || start == Some('{') {
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            rows.push(
                serde_json::from_str(line)
                    .map_err(|e| Error::Usage(format!("{name}: line {}: {e}", i + 1)))?,
            );
        }
        rows
    } else {
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_reader(text.as_bytes());
        let mut rows = Vec::new();
        for (i, row) in reader.deserialize::<Row>().enumerate() {
            // Line 1 is the header.
            rows.push(row.map_err(|e| Error::Usage(format!("{name}: line {}: {e}", i + 2)))?);
        }
        rows
    };
    if rows.is_empty() {
        return Err(Error::Usage(format!("{name}: no rows")));
    }
    Ok(rows.into_iter().map(|r| r.into_spec(defaults)).collect())
}

/// Why a batch stopped before its end.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    OutOfCredits,
    Unauthorized,
    Interrupted,
}

/// A row that failed (and was not retried to success).
#[derive(Debug, Clone, Serialize)]
pub struct RowFailure {
    pub file: String,
    pub status: Option<u16>,
    pub message: String,
    pub request_id: Option<String>,
}

/// What a batch did, as printed (and as `--json` prints it).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub dir: PathBuf,
    pub rows: usize,
    /// Rows naming a file another row already names.
    pub duplicates: usize,
    /// Files already on disk, not asked for again.
    pub skipped: usize,
    pub downloaded: usize,
    pub failed: Vec<RowFailure>,
    /// Images not downloaded because the batch stopped.
    pub not_attempted: usize,
    pub credits_charged: i64,
    pub credits_remaining: Option<i64>,
    pub stopped: Option<Stop>,
    /// Credits the images still missing need (1 each), when stopped.
    pub credits_needed: Option<i64>,
    /// The balance the 402 reported.
    pub balance: Option<i64>,
    pub stop_detail: Option<String>,
}

#[derive(Debug)]
struct Job {
    spec: ImageSpec,
    file: String,
    attempts: u32,
}

/// The key's rate limit as last seen: requests wait while it is spent.
///
/// An answer's `RateLimit-Remaining` was true when the server counted that
/// request; the requests still under way may have been counted since, so
/// they are taken off it (erring on the side of waiting, not of a 429).
#[derive(Debug, Default)]
struct Limiter {
    state: Mutex<LimitState>,
}

#[derive(Debug, Default)]
struct LimitState {
    remaining: Option<u64>,
    reset_at: Option<Instant>,
    blocked_until: Option<Instant>,
    in_flight: u64,
}

impl Limiter {
    /// Waits until a request may be sent, then counts it as under way.
    async fn acquire(&self) {
        loop {
            let wait = {
                let mut s = self.state.lock().expect("limiter");
                let now = Instant::now();
                if s.reset_at.is_some_and(|r| r <= now) {
                    // A new window: whatever was left of the old one is moot.
                    s.remaining = None;
                    s.reset_at = None;
                }
                match (s.blocked_until, s.remaining, s.reset_at) {
                    (Some(b), _, _) if b > now => Some(b - now),
                    (_, Some(0), Some(r)) => Some(r - now),
                    _ => {
                        if let Some(r) = s.remaining.as_mut() {
                            *r = r.saturating_sub(1);
                        }
                        s.in_flight += 1;
                        None
                    }
                }
            };
            match wait {
                Some(d) => tokio::time::sleep(d).await,
                None => return,
            }
        }
    }

    /// A request came back (with or without rate-limit headers).
    fn finished(&self, rate: &RateLimit) {
        let mut s = self.state.lock().expect("limiter");
        s.in_flight = s.in_flight.saturating_sub(1);
        let Some(seen) = rate.seen_at else { return };
        let reset_at = rate.reset_secs.map(|r| seen + Duration::from_secs(r));
        let new_window = match (reset_at, s.reset_at) {
            (Some(new), Some(old)) => new > old + Duration::from_secs(1),
            _ => true,
        };
        if let Some(rem) = rate.remaining {
            let left = rem.saturating_sub(s.in_flight);
            s.remaining = Some(match s.remaining {
                Some(mine) if !new_window => mine.min(left),
                _ => left,
            });
        }
        if reset_at.is_some() {
            s.reset_at = reset_at;
        }
    }

    /// No request before `secs` from now (a 429's or 503's Retry-After).
    fn block(&self, secs: u64) {
        let until = Instant::now() + Duration::from_secs(secs) + Duration::from_millis(100);
        let mut s = self.state.lock().expect("limiter");
        s.blocked_until = Some(s.blocked_until.map_or(until, |b| b.max(until)));
        s.remaining = None;
    }
}

#[derive(Debug, Default)]
struct Tally {
    downloaded: usize,
    failed: Vec<RowFailure>,
    unfinished: usize,
    stopped: Option<Stop>,
    stop_detail: Option<String>,
    balance: Option<i64>,
}

struct Shared {
    client: Client,
    dir: PathBuf,
    queue: Mutex<VecDeque<Job>>,
    limiter: Limiter,
    tally: Mutex<Tally>,
    charged: AtomicI64,
    remaining: Mutex<Option<i64>>,
    bar: ProgressBar,
    /// Turns true when the batch stops: wakes workers waiting on the limiter.
    stopping: tokio::sync::watch::Sender<bool>,
}

impl Shared {
    fn stopped(&self) -> bool {
        self.tally.lock().expect("tally").stopped.is_some()
    }

    fn stop(&self, why: Stop, detail: Option<String>, balance: Option<i64>) {
        let mut t = self.tally.lock().expect("tally");
        if t.stopped.is_none() {
            t.stopped = Some(why);
            t.stop_detail = detail;
        }
        if balance.is_some() {
            t.balance = balance;
        }
        self.stopping.send_replace(true);
    }

    fn next(&self) -> Option<Job> {
        if self.stopped() {
            return None;
        }
        self.queue.lock().expect("queue").pop_front()
    }

    fn fail(&self, job: &Job, error: &Error) {
        let (status, request_id) = match error {
            Error::Problem(p) => (Some(p.status), p.request_id.clone()),
            _ => (None, None),
        };
        self.bar.suspend(|| eprintln!("vis: {}: {error}", job.file));
        self.tally.lock().expect("tally").failed.push(RowFailure {
            file: job.file.clone(),
            status,
            message: error.to_string(),
            request_id,
        });
        self.bar.inc(1);
    }
}

async fn worker(shared: Arc<Shared>) {
    let mut stopping = shared.stopping.subscribe();
    while let Some(mut job) = shared.next() {
        // A stop (Ctrl-C, a 402) does not wait for the rate-limit window.
        tokio::select! {
            () = shared.limiter.acquire() => {}
            _ = stopping.wait_for(|s| *s) => {}
        }
        if shared.stopped() {
            shared.queue.lock().expect("queue").push_front(job);
            break;
        }
        match shared.client.image(&job.spec, None).await {
            Ok(answer) => {
                shared.limiter.finished(&answer.rate);
                let path = shared.dir.join(&job.file);
                match write_file(&path, &answer.bytes).await {
                    Ok(()) => {
                        shared
                            .charged
                            .fetch_add(answer.credits_charged.unwrap_or(1), Ordering::SeqCst);
                        if let Some(r) = answer.credits_remaining {
                            let mut rem = shared.remaining.lock().expect("remaining");
                            *rem = Some(rem.map_or(r, |old| old.min(r)));
                        }
                        shared.tally.lock().expect("tally").downloaded += 1;
                        shared.bar.inc(1);
                    }
                    Err(e) => {
                        // The disk is the problem: every other row would fail too.
                        shared.fail(&job, &e);
                        shared.stop(Stop::Interrupted, Some(e.to_string()), None);
                    }
                }
            }
            Err(failed) => {
                shared.limiter.finished(&failed.rate);
                match &failed.error {
                    Error::Problem(p) if p.status == 429 => {
                        shared.limiter.block(
                            failed
                                .rate
                                .retry_after_secs
                                .or(failed.rate.reset_secs)
                                .unwrap_or(1),
                        );
                        shared.queue.lock().expect("queue").push_front(job);
                    }
                    Error::Problem(p) if p.status == 503 && job.attempts < RETRIES => {
                        shared
                            .limiter
                            .block(failed.rate.retry_after_secs.unwrap_or(2));
                        job.attempts += 1;
                        shared.queue.lock().expect("queue").push_front(job);
                    }
                    Error::Network { .. } if job.attempts < RETRIES => {
                        tokio::time::sleep(Duration::from_secs(1 << job.attempts)).await;
                        job.attempts += 1;
                        shared.queue.lock().expect("queue").push_front(job);
                    }
                    Error::Problem(p) if p.status == 402 => {
                        shared.stop(Stop::OutOfCredits, Some(detail(p)), p.int("balance"));
                        shared.queue.lock().expect("queue").push_front(job);
                    }
                    Error::Problem(p) if p.status == 401 || p.status == 403 => {
                        shared.stop(Stop::Unauthorized, Some(failed.error.to_string()), None);
                        shared.queue.lock().expect("queue").push_front(job);
                    }
                    other => shared.fail(&job, other),
                }
            }
        }
    }
}

fn detail(p: &Problem) -> String {
    format!("{}: {}", p.title, p.detail)
}

async fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut part = path.as_os_str().to_owned();
    part.push(".part");
    let part = PathBuf::from(part);
    tokio::fs::write(&part, bytes)
        .await
        .map_err(|e| Error::io(format!("write {}", part.display()), e))?;
    tokio::fs::rename(&part, path)
        .await
        .map_err(|e| Error::io(format!("rename {}", part.display()), e))
}

fn already_there(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0)
}

/// Runs a batch to its end (or its stop); the report either way.
pub async fn run(
    client: Client,
    specs: Vec<ImageSpec>,
    dir: &Path,
    concurrency: usize,
    show_progress: bool,
) -> Result<Report> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("create {}", dir.display()), e))?;
    let rows = specs.len();
    let mut names = HashSet::new();
    let (mut duplicates, mut skipped) = (0, 0);
    let mut queue = VecDeque::new();
    for spec in specs {
        let file = spec.file_name();
        if !names.insert(file.clone()) {
            duplicates += 1;
        } else if already_there(&dir.join(&file)) {
            skipped += 1;
        } else {
            queue.push_back(Job {
                spec,
                file,
                attempts: 0,
            });
        }
    }
    let bar = if show_progress && std::io::stderr().is_terminal() {
        let bar =
            ProgressBar::with_draw_target(Some(queue.len() as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} images  {per_sec}  ETA {eta}  {msg}",
            )
            .expect("a valid template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let workers = concurrency.clamp(1, 32).min(queue.len().max(1));
    let shared = Arc::new(Shared {
        client,
        dir: dir.to_owned(),
        queue: Mutex::new(queue),
        limiter: Limiter::default(),
        tally: Mutex::new(Tally::default()),
        charged: AtomicI64::new(0),
        remaining: Mutex::new(None),
        bar,
        stopping: tokio::sync::watch::channel(false).0,
    });
    let interrupt = {
        let shared = shared.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                shared.stop(Stop::Interrupted, None, None);
                shared.bar.suspend(|| {
                    eprintln!(
                        "vis: stopping after the downloads under way (Ctrl-C again to quit now)"
                    )
                });
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(crate::error::exit::INTERRUPTED);
                }
            }
        })
    };
    let handles: Vec<_> = (0..workers)
        .map(|_| tokio::spawn(worker(shared.clone())))
        .collect();
    for h in handles {
        h.await
            .map_err(|e| Error::Protocol(format!("a download task failed: {e}")))?;
    }
    interrupt.abort();
    shared.bar.finish_and_clear();
    let left = shared.queue.lock().expect("queue").len();
    let mut tally = std::mem::take(&mut *shared.tally.lock().expect("tally"));
    tally.unfinished = left;
    let credits_needed = (tally.stopped == Some(Stop::OutOfCredits)).then_some(left as i64);
    Ok(Report {
        dir: dir.to_owned(),
        rows,
        duplicates,
        skipped,
        downloaded: tally.downloaded,
        failed: tally.failed,
        not_attempted: tally.unfinished,
        credits_charged: shared.charged.load(Ordering::SeqCst),
        credits_remaining: *shared.remaining.lock().expect("remaining"),
        stopped: tally.stopped,
        credits_needed,
        balance: tally.balance,
        stop_detail: tally.stop_detail,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_json_list_and_json_lines_read_the_same_rows() {
        let d = Defaults {
            format: Some("webp".into()),
            ..Defaults::default()
        };
        let csv = "make,model,year,color,view,size\nToyota,Camry,2019,red,,small\nhonda,civic,2020,,side,\n";
        let list = r#"[{"make":"Toyota","model":"Camry","year":2019,"color":"red","size":"small"},
                       {"make":"honda","model":"civic","year":2020,"view":"side"}]"#;
        let lines = "{\"make\":\"Toyota\",\"model\":\"Camry\",\"year\":2019,\"color\":\"red\",\"size\":\"small\"}\n\n{\"make\":\"honda\",\"model\":\"civic\",\"year\":2020,\"view\":\"side\"}\n";
        let a = parse(Path::new("a.csv"), csv, &d).unwrap();
        let b = parse(Path::new("b.json"), list, &d).unwrap();
        let c = parse(Path::new("c.jsonl"), lines, &d).unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(
            a[0].file_name(),
            "toyota_camry_2019_red_front-3-4_small.webp"
        );
        assert_eq!(a[1].file_name(), "honda_civic_2020_silver_side.webp");
    }

    #[test]
    fn angle_paint_and_finish_columns_reach_the_query_and_the_name() {
        let csv = "make,model,year,paint,finish,angle\ntoyota,camry,2019,3R3,,30\nbmw,m3,2020,,,\n";
        let rows = parse(Path::new("a.csv"), csv, &Defaults::default()).unwrap();
        assert_eq!(rows[0].angle, Some(30));
        assert_eq!(rows[0].paint.as_deref(), Some("3R3"));
        assert_eq!(rows[1].angle, None);
        let q = rows[0].query();
        assert!(q.contains(&("angle", "30".into())), "{q:?}");
        assert!(q.contains(&("paint", "3R3".into())), "{q:?}");
        assert!(!q.iter().any(|(k, _)| *k == "view"), "{q:?}");
        assert_eq!(rows[0].file_name(), "toyota_camry_2019_3r3_angle-30.png");
        assert_eq!(rows[0].to_request_body()["angle"], 30);
        let top = parse(
            Path::new("b.jsonl"),
            r##"{"make":"bmw","model":"m3","year":2020,"color":"#112233","finish":"pearl","view":"top"}"##,
            &Defaults::default(),
        )
        .unwrap();
        assert_eq!(top[0].file_name(), "bmw_m3_2020_112233_pearl_top.png");
    }

    #[test]
    fn framing_columns_and_flags_reach_the_query_the_body_and_the_name() {
        let d = Defaults {
            background: Some("studio".into()),
            ..Defaults::default()
        };
        let csv = "make,model,year,width,height,shadow,scale,background,fit,trim,padding\n\
                   toyota,camry,2019,800,400,,,,cover,,\n\
                   bmw,m3,2020,,,false,relative,#FFFFFF,,true,16\n";
        let rows = parse(Path::new("a.csv"), csv, &d).unwrap();
        let q = rows[0].query();
        assert!(q.contains(&("background", "studio".into())), "{q:?}");
        assert!(q.contains(&("fit", "cover".into())), "{q:?}");
        assert!(!q.iter().any(|(k, _)| *k == "trim"), "{q:?}");
        assert_eq!(
            rows[0].file_name(),
            "toyota_camry_2019_silver_front-3-4_800x400_studio-bg_cover.png"
        );
        let q = rows[1].query();
        assert!(q.contains(&("trim", "true".into())), "{q:?}");
        assert!(q.contains(&("padding", "16".into())), "{q:?}");
        assert_eq!(rows[1].to_request_body()["trim"], true);
        assert!(q.contains(&("shadow", "false".into())), "{q:?}");
        assert!(q.contains(&("scale", "relative".into())), "{q:?}");
        assert_eq!(rows[1].to_request_body()["background"], "#FFFFFF");
        assert_eq!(rows[1].to_request_body()["shadow"], false);
        assert_eq!(
            rows[1].file_name(),
            "bmw_m3_2020_silver_front-3-4_noshadow_relative_ffffff-bg_trim_pad-16.png"
        );
    }

    #[test]
    fn a_bad_row_names_its_line() {
        let err = parse(
            Path::new("x.csv"),
            "make,model,year\ntoyota,camry,2019\ntoyota,camry,soon\n",
            &Defaults::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("line 3"), "{err}");
        let err = parse(
            Path::new("x.jsonl"),
            "{\"make\":\"a\",\"model\":\"b\",\"year\":2019}\n{\"make\":\"a\"}\n",
            &Defaults::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }
}
