//! The `vis` command line: arguments (clap) and one function per command.
//! Results go to stdout (one JSON document with `--json`); messages for the
//! person, progress and errors go to stderr.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, CommandFactory, Parser, Subcommand};
use serde_json::{Value, json};

use crate::api::{self, Client, ImageSpec};
use crate::batch::{self, Defaults, Report, Stop};
use crate::cache::{EtagCache, Meta};
use crate::config::{self, Credentials, KeySource, Target};
use crate::error::{Error, Result};
use crate::{login, telemetry};

#[derive(Debug, Parser)]
#[command(
    name = "vis",
    version,
    about = "Studio renders of vehicles from the vehicle image service, on the command line.",
    after_help = "Log in once with `vis login`; docs/cli.md lists every command, file and exit code."
)]
pub struct Cli {
    /// Print the result as one JSON document on stdout (errors too).
    #[arg(long, global = true)]
    pub json: bool,
    /// The service's address [default: the saved login's server, else http://127.0.0.1:8080].
    #[arg(long, global = true, env = "VIS_BASE_URL", value_name = "URL")]
    pub base_url: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Log in with a code approved in the browser (device login); saves an API key.
    Login {
        /// The name of the key to create, as the dashboard lists it.
        #[arg(long, default_value = "vis")]
        name: String,
        /// Do not try to open a browser.
        #[arg(long)]
        no_browser: bool,
    },
    /// Forget the saved key (it keeps working until it is revoked).
    Logout,
    /// The server, the key's prefix and scopes, the balance. Never the key.
    Whoami,
    /// Download one image (1 credit; a repeat is a free 304 from the local cache).
    Image(ImageArgs),
    /// A 360° spin: 24 angles as an animated WebP or a sprite sheet (24 credits).
    Spin(SpinArgs),
    /// Free text to exact image parameters ("navy 2019 camry from behind").
    Resolve(ResolveArgs),
    /// Search the catalog for makes and models.
    Search(SearchArgs),
    /// Balance and the last 30 days' usage.
    Account,
    /// Mint signed delivery URLs (1 credit each, once; safe to retry).
    Urls(UrlsArgs),
    /// Report a render good or bad.
    Feedback(FeedbackArgs),
    /// Download many images from a CSV or JSON file into a directory; resumable.
    Batch(BatchArgs),
    /// Print a shell completion script.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Clone, Args)]
pub struct Vehicle {
    /// Make: name or slug (toyota).
    pub make: String,
    /// Model: name, slug or a unique prefix (camry).
    pub model: String,
    /// Model year (1990 or later).
    pub year: u16,
}

#[derive(Debug, Clone, Default, Args)]
pub struct Look {
    /// One of the 15 colours, or any colour as #RRGGBB (default silver).
    #[arg(long, conflicts_with = "paint")]
    pub color: Option<String>,
    /// A paint code of the make instead of --color (3R3 for Toyota).
    #[arg(long)]
    pub paint: Option<String>,
    /// solid, metallic or pearl: the colour's finish.
    #[arg(long)]
    pub finish: Option<String>,
    /// front, front-3-4, side, side-right, rear, rear-3-4, top (default front-3-4).
    #[arg(long, conflicts_with = "angle")]
    pub view: Option<String>,
    /// A turntable angle instead of --view: 0 to 345 in steps of 15 (90 the left side).
    #[arg(long)]
    pub angle: Option<u16>,
    /// thumb (256), small (512), medium (768) or large (1024).
    #[arg(long, conflicts_with_all = ["width", "height"])]
    pub size: Option<String>,
    /// Fit inside this width (1 to 1024; never enlarged).
    #[arg(long, alias = "w")]
    pub width: Option<u32>,
    /// Fit inside this height (1 to 1024; never enlarged).
    #[arg(long, alias = "h")]
    pub height: Option<u32>,
    /// png, webp, jpg or avif (default png, or the output file's extension).
    #[arg(long)]
    pub format: Option<String>,
    /// Leave out the contact shadow under the vehicle.
    #[arg(long)]
    pub no_shadow: bool,
    /// fill (default) or relative: one scale per size class, so vehicles keep their real sizes.
    #[arg(long)]
    pub scale: Option<String>,
    /// transparent (default), white, studio or #RRGGBB: what is behind the vehicle.
    #[arg(long)]
    pub background: Option<String>,
    /// contain or cover: the output is exactly --width x --height.
    #[arg(long)]
    pub fit: Option<String>,
    /// Crop to the vehicle, then fit it in the box.
    #[arg(long)]
    pub trim: bool,
    /// Pixels of margin around the vehicle (with --trim or --fit contain).
    #[arg(long)]
    pub padding: Option<u32>,
}

impl Look {
    fn spec(&self, v: &Vehicle) -> ImageSpec {
        ImageSpec {
            make: v.make.clone(),
            model: v.model.clone(),
            year: v.year,
            color: self.color.clone(),
            paint: self.paint.clone(),
            finish: self.finish.clone(),
            view: self.view.clone(),
            angle: self.angle,
            size: self.size.clone(),
            width: self.width,
            height: self.height,
            format: self.format.clone(),
            shadow: self.no_shadow.then_some(false),
            scale: self.scale.clone(),
            background: self.background.clone(),
            fit: self.fit.clone(),
            trim: self.trim.then_some(true),
            padding: self.padding,
        }
    }

    fn defaults(&self) -> Defaults {
        Defaults {
            color: self.color.clone(),
            paint: self.paint.clone(),
            finish: self.finish.clone(),
            view: self.view.clone(),
            angle: self.angle,
            size: self.size.clone(),
            width: self.width,
            height: self.height,
            format: self.format.clone(),
            shadow: self.no_shadow.then_some(false),
            scale: self.scale.clone(),
            background: self.background.clone(),
            fit: self.fit.clone(),
            trim: self.trim.then_some(true),
            padding: self.padding,
        }
    }
}

#[derive(Debug, Args)]
pub struct ImageArgs {
    #[command(flatten)]
    pub vehicle: Vehicle,
    #[command(flatten)]
    pub look: Look,
    /// Where to write the image (`-` for stdout) [default: a name saying what it is].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Neither read nor fill the local ETag cache.
    #[arg(long)]
    pub no_cache: bool,
}

#[derive(Debug, Args)]
pub struct SpinArgs {
    #[command(flatten)]
    pub vehicle: Vehicle,
    /// One of the 15 colours, or any colour as #RRGGBB (default silver).
    #[arg(long, conflicts_with = "paint")]
    pub color: Option<String>,
    /// A paint code of the make instead of --color (3R3 for Toyota).
    #[arg(long)]
    pub paint: Option<String>,
    /// solid, metallic or pearl: the colour's finish.
    #[arg(long)]
    pub finish: Option<String>,
    /// Each frame's width, 1 to 512 (default 512).
    #[arg(long, alias = "w")]
    pub width: Option<u32>,
    /// animation (an animated WebP, the default) or sprite (6 x 4 frames in one image).
    #[arg(long)]
    pub layout: Option<String>,
    /// webp (default); a sprite may also be png, jpg or avif.
    #[arg(long)]
    pub format: Option<String>,
    /// Every frame without the contact shadow.
    #[arg(long)]
    pub no_shadow: bool,
    /// fill (default) or relative: every frame at the size class's one scale.
    #[arg(long)]
    pub scale: Option<String>,
    /// Where to write the spin [default: a name saying what it is].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

impl SpinArgs {
    fn query(&self) -> Vec<(&'static str, String)> {
        let v = &self.vehicle;
        let mut q = vec![
            ("make", v.make.clone()),
            ("model", v.model.clone()),
            ("year", v.year.to_string()),
        ];
        let optional = [
            ("color", self.color.clone()),
            ("paint", self.paint.clone()),
            ("finish", self.finish.clone()),
            ("w", self.width.map(|w| w.to_string())),
            ("format", self.format.clone()),
            ("layout", self.layout.clone()),
            ("shadow", self.no_shadow.then(|| "false".to_owned())),
            ("scale", self.scale.clone()),
        ];
        q.extend(optional.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))));
        q
    }

    /// `toyota_camry_2019_red_spin.webp`, `…_sprite.png`.
    fn file_name(&self) -> String {
        let v = &self.vehicle;
        let colour = self
            .color
            .as_deref()
            .or(self.paint.as_deref())
            .unwrap_or("silver");
        let layout = match self.layout.as_deref() {
            Some("sprite") => "sprite",
            _ => "spin",
        };
        let ext = match self
            .format
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("png") => "png",
            Some("jpg" | "jpeg") => "jpg",
            Some("avif") => "avif",
            _ => "webp",
        };
        format!(
            "{}_{}_{}_{}_{layout}.{ext}",
            api::slug(&v.make),
            api::slug(&v.model),
            v.year,
            api::slug(colour)
        )
    }
}

#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// What you want, in words: "red 2019 camry side view, 512px webp".
    pub query: String,
    /// Overrides any year in the text.
    #[arg(long)]
    pub year: Option<u16>,
    /// Narrows the search to a make.
    #[arg(long)]
    pub make: Option<String>,
    #[arg(long)]
    pub model: Option<String>,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words of a make or model; misspellings are fine ("porshe 911").
    pub text: String,
    #[arg(long)]
    pub year: Option<u16>,
    /// 1 to 25 results (default 10).
    #[arg(long)]
    pub limit: Option<u8>,
}

#[derive(Debug, Args)]
pub struct UrlsArgs {
    /// One vehicle: MAKE MODEL YEAR (or --file).
    #[arg(num_args = 3, value_names = ["MAKE", "MODEL", "YEAR"], required_unless_present = "file")]
    pub vehicle: Vec<String>,
    /// Up to 50 vehicles, one a row, in `vis batch`'s file format.
    #[arg(long, value_name = "FILE", conflicts_with = "vehicle")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub look: Look,
    /// Lifetime of the URLs in seconds (60 to 604800; default 3600).
    #[arg(long, value_name = "SECS")]
    pub ttl: Option<u32>,
    /// Loads allowed per URL (0, the default: unlimited until expiry).
    #[arg(long)]
    pub max_uses: Option<u32>,
    /// Makes a retry of the same request free [default: a new random one per run].
    #[arg(long, value_name = "KEY")]
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("judgement").required(true).args(["good", "bad", "rating"])))]
pub struct FeedbackArgs {
    /// The render by vehicle: MAKE MODEL YEAR (or --request-id).
    #[arg(num_args = 3, value_names = ["MAKE", "MODEL", "YEAR"], required_unless_present = "request_id")]
    pub vehicle: Vec<String>,
    /// The render by the request id its delivery answered with.
    #[arg(long, conflicts_with = "vehicle")]
    pub request_id: Option<String>,
    #[arg(long)]
    pub view: Option<String>,
    #[arg(long)]
    pub color: Option<String>,
    /// The render is right.
    #[arg(long)]
    pub good: bool,
    /// The render is wrong.
    #[arg(long)]
    pub bad: bool,
    /// 1 (bad) to 5 (good).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub rating: Option<u8>,
    /// What is wrong, in a few words (up to 500 characters).
    #[arg(long)]
    pub reason: Option<String>,
}

#[derive(Debug, Args)]
pub struct BatchArgs {
    /// CSV (header make,model,year[,color,view,size,width,height,format,shadow,scale,background,fit,trim,padding]), a JSON list, or JSON lines.
    pub file: PathBuf,
    /// The directory to fill (created if missing).
    #[arg(short, long, value_name = "DIR", default_value = ".")]
    pub output: PathBuf,
    /// Downloads at once (within the key's rate limit).
    #[arg(short = 'j', long, default_value_t = 4)]
    pub concurrency: usize,
    /// Values for rows that leave a column out.
    #[command(flatten)]
    pub look: Look,
}

/// Writes to stdout; a closed pipe (`vis search … | head`) is not an error.
fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

fn emit(json: bool, value: &Value, human: impl FnOnce() -> String) {
    if json {
        out(&format!("{value:#}\n"));
    } else {
        out(&human());
    }
}

fn keyed(target: &Target) -> Result<Client> {
    Client::new(&target.base_url, Some(target.require_key()?.clone()))
}

/// Runs one command line.
pub async fn run(cli: Cli) -> Result<()> {
    if let Command::Completions { shell } = cli.command {
        let mut cmd = Cli::command();
        clap_complete::generate(shell, &mut cmd, "vis", &mut std::io::stdout());
        return Ok(());
    }
    if let Command::Logout = cli.command {
        // Works even when the saved file cannot be read: that is its use.
        return cmd_logout(cli.json);
    }
    let target = Target::resolve(cli.base_url.as_deref())?;
    if let Some(dir) = config::config_dir() {
        telemetry::install_once(&Client::new(&target.base_url, None)?, &dir).await;
    }
    let json = cli.json;
    match cli.command {
        Command::Login { name, no_browser } => cmd_login(&target, json, &name, !no_browser).await,
        Command::Logout | Command::Completions { .. } => unreachable!("handled above"),
        Command::Whoami => cmd_whoami(&target, json).await,
        Command::Image(args) => cmd_image(&target, json, args).await,
        Command::Spin(args) => cmd_spin(&target, json, args).await,
        Command::Resolve(args) => cmd_resolve(&target, json, args).await,
        Command::Search(args) => cmd_search(&target, json, args).await,
        Command::Account => cmd_account(&target, json).await,
        Command::Urls(args) => cmd_urls(&target, json, args).await,
        Command::Feedback(args) => cmd_feedback(&target, json, args).await,
        Command::Batch(args) => cmd_batch(&target, json, args).await,
    }
}

async fn cmd_login(target: &Target, json: bool, name: &str, open_browser: bool) -> Result<()> {
    let client = Client::new(&target.base_url, None)?;
    let granted = login::device_login(&client, name, open_browser).await?;
    let path = config::save_credentials(&Credentials {
        base_url: target.base_url.clone(),
        api_key: granted.key.clone(),
    })?;
    telemetry::login(&client).await;
    let prefix = granted.key.prefix();
    if std::env::var_os("VIS_API_KEY").is_some() {
        eprintln!("vis: note: VIS_API_KEY is set and takes precedence over the saved key");
    }
    emit(
        json,
        &json!({
            "logged_in": true,
            "base_url": target.base_url,
            "key_prefix": prefix,
            "scopes": granted.scopes,
            "credentials_file": path,
        }),
        || {
            format!(
                "Logged in to {}: key {prefix}… ({}), saved in {}\n",
                target.base_url,
                granted.scopes.join(" "),
                path.display()
            )
        },
    );
    Ok(())
}

fn cmd_logout(json: bool) -> Result<()> {
    let removed = config::remove_credentials()?;
    emit(
        json,
        &json!({ "logged_out": removed.is_some(), "credentials_file": removed }),
        || match &removed {
            Some(p) => format!(
                "Logged out: removed {}. The key itself works until it is revoked in the dashboard.\n",
                p.display()
            ),
            None => "Not logged in: there was no saved key.\n".into(),
        },
    );
    Ok(())
}

async fn cmd_whoami(target: &Target, json: bool) -> Result<()> {
    let (key, source) = match &target.key {
        Some((k, s)) => (k.clone(), *s),
        None => return Err(target.require_key().unwrap_err()),
    };
    let account = keyed(target)?.account().await?;
    let data = &account["data"];
    let scopes: Vec<String> = data["key"]["scopes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let file = config::credentials_path();
    emit(
        json,
        &json!({
            "base_url": target.base_url,
            "key_prefix": key.prefix(),
            "key_source": source,
            "credentials_file": if source == KeySource::File { json!(file) } else { Value::Null },
            "key_id": data["key"]["id"],
            "scopes": scopes,
            "rate_limit_per_minute": data["key"]["rate_limit_per_minute"],
            "credits": data["credits"],
        }),
        || {
            let from = match (source, &file) {
                (KeySource::Env, _) => "from VIS_API_KEY".to_owned(),
                (KeySource::File, Some(f)) => format!("saved in {}", f.display()),
                (KeySource::File, None) => "saved".to_owned(),
            };
            format!(
                "server:  {}\nkey:     {}… ({from})\nkey id:  {}\nscopes:  {}\nlimit:   {} requests a minute\ncredits: {}\n",
                target.base_url,
                key.prefix(),
                data["key"]["id"].as_str().unwrap_or("?"),
                scopes.join(" "),
                data["key"]["rate_limit_per_minute"],
                data["credits"],
            )
        },
    );
    Ok(())
}

/// The format an output file's extension asks for.
fn format_of(path: &Path) -> Option<String> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    matches!(ext.as_str(), "png" | "webp" | "jpg" | "jpeg" | "avif").then_some(ext)
}

async fn cmd_image(target: &Target, json: bool, args: ImageArgs) -> Result<()> {
    let mut spec = args.look.spec(&args.vehicle);
    let to_stdout = args.output.as_deref() == Some(Path::new("-"));
    if to_stdout && json {
        return Err(Error::Usage(
            "--json and `-o -` both want stdout: pick one".into(),
        ));
    }
    if spec.format.is_none() {
        spec.format = args.output.as_deref().and_then(format_of);
    }
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(spec.file_name()));
    let client = keyed(target)?;
    let cache = (!args.no_cache)
        .then(config::cache_dir)
        .flatten()
        .map(|d| EtagCache::new(&d));
    let cached = cache.as_ref().and_then(|c| c.get(&target.base_url, &spec));
    let answer = client
        .image(&spec, cached.as_ref().map(|e| e.meta.etag.as_str()))
        .await?;
    let from_cache = answer.status == 304;
    let (bytes, meta) = match (answer.status, cached) {
        (304, Some(entry)) => (entry.bytes, entry.meta),
        (304, None) => {
            return Err(Error::Protocol(
                "304 Not Modified for an image this client does not have".into(),
            ));
        }
        _ => {
            let meta = Meta {
                etag: answer.etag.clone().unwrap_or_default(),
                content_type: answer.content_type.clone(),
                width: answer.width,
                height: answer.height,
            };
            if let (Some(cache), Some(_)) = (&cache, &answer.etag)
                && let Err(e) = cache.put(&target.base_url, &spec, &meta, &answer.bytes)
            {
                eprintln!("vis: warning: the image was not cached: {e}");
            }
            (answer.bytes, meta)
        }
    };
    if to_stdout {
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(&bytes)
            .and_then(|()| stdout.flush())
            .map_err(|e| Error::io("write to stdout", e))?;
    } else {
        config::write_atomic(&output, &bytes, 0o644)?;
    }
    let charged = answer
        .credits_charged
        .unwrap_or(if from_cache { 0 } else { 1 });
    let summary = json!({
        "file": if to_stdout { Value::Null } else { json!(output) },
        "status": answer.status,
        "from_cache": from_cache,
        "bytes": bytes.len(),
        "content_type": meta.content_type,
        "width": meta.width,
        "height": meta.height,
        "etag": meta.etag,
        "image_source": answer.image_source,
        "credits_charged": charged,
        "credits_remaining": answer.credits_remaining,
        "request_id": answer.request_id,
    });
    let human = format!(
        "{} {}{}: {}x{} {}, {}{} (request {})\n",
        if from_cache { "Copied" } else { "Wrote" },
        if to_stdout {
            "stdout".into()
        } else {
            output.display().to_string()
        },
        if from_cache {
            " from the local cache (304 Not Modified)"
        } else {
            ""
        },
        meta.width.map_or("?".into(), |w| w.to_string()),
        meta.height.map_or("?".into(), |h| h.to_string()),
        meta.content_type.as_deref().unwrap_or("?"),
        match charged {
            0 => "no charge".to_owned(),
            1 => "1 credit".to_owned(),
            n => format!("{n} credits"),
        },
        answer
            .credits_remaining
            .map(|r| format!(", {r} left"))
            .unwrap_or_default(),
        answer.request_id.as_deref().unwrap_or("?"),
    );
    if to_stdout {
        eprint!("{human}");
    } else {
        emit(json, &summary, || human);
    }
    Ok(())
}

async fn cmd_spin(target: &Target, json: bool, args: SpinArgs) -> Result<()> {
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(args.file_name()));
    let client = keyed(target)?;
    let answer = client
        .spin(&args.query())
        .await
        .map_err(|failed| failed.error)?;
    config::write_atomic(&output, &answer.bytes, 0o644)?;
    let summary = json!({
        "file": output,
        "bytes": answer.bytes.len(),
        "content_type": answer.content_type,
        "width": answer.width,
        "height": answer.height,
        "etag": answer.etag,
        "image_source": answer.image_source,
        "credits_charged": answer.credits_charged,
        "credits_remaining": answer.credits_remaining,
        "request_id": answer.request_id,
    });
    let human = format!(
        "Wrote {}: 24 frames, {}x{} {}, {} credits{} (request {})\n",
        output.display(),
        answer.width.map_or("?".into(), |w| w.to_string()),
        answer.height.map_or("?".into(), |h| h.to_string()),
        answer.content_type.as_deref().unwrap_or("?"),
        answer.credits_charged.unwrap_or(24),
        answer
            .credits_remaining
            .map(|r| format!(", {r} left"))
            .unwrap_or_default(),
        answer.request_id.as_deref().unwrap_or("?"),
    );
    emit(json, &summary, || human);
    Ok(())
}

fn years_text(years: &Value) -> String {
    let ys: Vec<i64> = years
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default();
    match (ys.iter().min(), ys.iter().max()) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) => format!("{a}-{b}"),
        _ => String::new(),
    }
}

async fn cmd_resolve(target: &Target, json: bool, args: ResolveArgs) -> Result<()> {
    let mut body = json!({ "query": args.query });
    for (k, v) in [
        ("year", args.year.map(Value::from)),
        ("make", args.make.map(Value::from)),
        ("model", args.model.map(Value::from)),
    ] {
        if let Some(v) = v {
            body[k] = v;
        }
    }
    let answer = keyed(target)?.resolve(&body).await?;
    let data = &answer["data"];
    emit(json, data, || {
        let p = &data["params"];
        let s = |v: &Value| {
            v.as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| v.to_string())
        };
        let mut text = format!(
            "{} {} {} (confidence {})\n",
            s(&data["display"]["make_name"]),
            s(&data["display"]["model_name"]),
            p["year"],
            s(&data["confidence"]),
        );
        let mut command = format!(
            "vis image {} {} {}",
            s(&p["make"]),
            s(&p["model"]),
            p["year"]
        );
        for flag in ["color", "view", "size", "width", "format"] {
            if let Some(v) = p.get(flag).filter(|v| !v.is_null()) {
                command.push_str(&format!(" --{flag} {}", s(v)));
            }
        }
        text.push_str(&format!("  {command}\n  {}\n", s(&data["image_path"])));
        if data["confidence"] != "high"
            && let Some(candidates) = data["candidates"].as_array()
        {
            text.push_str("candidates:\n");
            for c in candidates {
                text.push_str(&format!(
                    "  {} {} ({} {}) {} [{}]\n",
                    s(&c["make_name"]),
                    s(&c["model_name"]),
                    s(&c["make_slug"]),
                    s(&c["model_slug"]),
                    years_text(&c["years"]),
                    s(&c["match_kind"]),
                ));
            }
        }
        text
    });
    Ok(())
}

async fn cmd_search(target: &Target, json: bool, args: SearchArgs) -> Result<()> {
    let client = Client::new(&target.base_url, None)?;
    let answer = client.search(&args.text, args.year, args.limit).await?;
    let data = &answer["data"];
    emit(json, data, || {
        let results = data["results"].as_array().cloned().unwrap_or_default();
        if results.is_empty() {
            return format!("Nothing matches {:?}.\n", args.text);
        }
        let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        results
            .iter()
            .map(|h| {
                let (name, slugs) = if h["kind"] == "model" {
                    (
                        format!("{} {}", s(&h["make_name"]), s(&h["model_name"])),
                        format!("{} {}", s(&h["make_slug"]), s(&h["model_slug"])),
                    )
                } else {
                    (s(&h["make_name"]), s(&h["make_slug"]))
                };
                format!(
                    "{:<5}  {name:<32}  {slugs:<32}  {:<9}  {}\n",
                    s(&h["kind"]),
                    years_text(&h["years"]),
                    s(&h["match_kind"]),
                )
            })
            .collect()
    });
    Ok(())
}

async fn cmd_account(target: &Target, json: bool) -> Result<()> {
    let answer = keyed(target)?.account().await?;
    let data = &answer["data"];
    emit(json, data, || {
        let u = &data["usage_30d"];
        let hit_rate = u["cache_hit_rate"]
            .as_f64()
            .map(|r| format!("{:.0}%", r * 100.0))
            .unwrap_or_else(|| "n/a".into());
        format!(
            "credits: {} (${:.2})\nlast 30 days: {} requests, {} images, {} credits spent, cache hit rate {hit_rate}\n",
            data["credits"],
            data["credits_value_usd"].as_f64().unwrap_or(0.0),
            u["requests"],
            u["images"],
            u["credits_spent"],
        )
    });
    Ok(())
}

fn vehicle_of(raw: &[String]) -> Result<Vehicle> {
    let [make, model, year] = raw else {
        return Err(Error::Usage("give MAKE MODEL YEAR".into()));
    };
    let year = year
        .parse()
        .map_err(|_| Error::Usage(format!("YEAR {year:?} is not a year")))?;
    Ok(Vehicle {
        make: make.clone(),
        model: model.clone(),
        year,
    })
}

/// Retries of an idempotent call after a network error or a 503.
const IDEMPOTENT_RETRIES: u32 = 3;

async fn cmd_urls(target: &Target, json: bool, args: UrlsArgs) -> Result<()> {
    let specs = match &args.file {
        Some(file) => batch::read_file(file, &args.look.defaults())?,
        None => vec![args.look.spec(&vehicle_of(&args.vehicle)?)],
    };
    let mut body =
        json!({ "images": specs.iter().map(ImageSpec::to_request_body).collect::<Vec<_>>() });
    if let Some(ttl) = args.ttl {
        body["ttl_seconds"] = json!(ttl);
    }
    if let Some(m) = args.max_uses {
        body["max_uses"] = json!(m);
    }
    let idempotency_key = args
        .idempotency_key
        .unwrap_or_else(|| format!("vis-{}", uuid::Uuid::new_v4()));
    let client = keyed(target)?;
    let mut attempt = 0;
    let answer = loop {
        match client.image_urls(&body, &idempotency_key).await {
            Ok(a) => break a,
            Err(e @ Error::Network { .. })
            | Err(e @ Error::Problem(crate::error::Problem { status: 503, .. }))
                if attempt < IDEMPOTENT_RETRIES =>
            {
                attempt += 1;
                eprintln!("vis: {e}; retrying with the same Idempotency-Key");
                tokio::time::sleep(Duration::from_secs(1 << attempt)).await;
            }
            Err(e) => {
                eprintln!(
                    "vis: to retry without paying twice: --idempotency-key {idempotency_key}"
                );
                return Err(e);
            }
        }
    };
    let mut shown = answer.clone();
    shown["idempotency_key"] = json!(idempotency_key);
    emit(json, &shown, || {
        let mut text = String::new();
        for u in answer["data"].as_array().into_iter().flatten() {
            text.push_str(&format!(
                "{}\n  expires {}{}\n",
                u["url"].as_str().unwrap_or_default(),
                u["expires_at"].as_str().unwrap_or("?"),
                match u["max_uses"].as_i64() {
                    Some(0) | None => String::new(),
                    Some(n) => format!(", {n} loads"),
                },
            ));
        }
        text.push_str(&format!(
            "{} credits charged, {} left\n",
            answer["billing"]["credits_charged"], answer["billing"]["credits_remaining"]
        ));
        text
    });
    Ok(())
}

async fn cmd_feedback(target: &Target, json: bool, args: FeedbackArgs) -> Result<()> {
    let mut body = match &args.request_id {
        Some(id) => json!({ "request_id": id }),
        None => {
            let v = vehicle_of(&args.vehicle)?;
            json!({ "make": v.make, "model": v.model, "year": v.year })
        }
    };
    for (k, v) in [
        ("view", &args.view),
        ("color", &args.color),
        ("reason", &args.reason),
    ] {
        if let Some(v) = v {
            body[k] = json!(v);
        }
    }
    if let Some(r) = args.rating {
        body["rating"] = json!(r);
    }
    if args.good || args.bad {
        body["verdict"] = json!(if args.good { "good" } else { "bad" });
    }
    let answer = keyed(target)?.feedback(&body).await?;
    let data = &answer["data"];
    emit(json, data, || {
        format!(
            "Recorded, thank you (render {}){}.\n",
            data["asset_id"].as_str().unwrap_or("?"),
            if data["flagged"] == true {
                "; it will be rendered again"
            } else {
                ""
            }
        )
    });
    Ok(())
}

async fn cmd_batch(target: &Target, json: bool, args: BatchArgs) -> Result<()> {
    let specs = batch::read_file(&args.file, &args.look.defaults())?;
    let client = keyed(target)?;
    let report = batch::run(client, specs, &args.output, args.concurrency, !json).await?;
    emit(
        json,
        &serde_json::to_value(&report).expect("serialisable"),
        || batch_text(&report),
    );
    match report.stopped {
        Some(Stop::OutOfCredits) => Err(Error::OutOfCredits(format!(
            "stopped: out of credits{}. The {} images left need {} credits; add credits, then run the same command again to resume.",
            report
                .balance
                .map(|b| format!(" (balance {b})"))
                .unwrap_or_default(),
            report.not_attempted,
            report.credits_needed.unwrap_or(0),
        ))),
        Some(Stop::Unauthorized) => Err(Error::KeyRefused(format!(
            "stopped: the key was refused: {}",
            report.stop_detail.clone().unwrap_or_default()
        ))),
        Some(Stop::Interrupted) => Err(Error::Interrupted(format!(
            ": {} images left; run the same command again to resume",
            report.not_attempted
        ))),
        None if !report.failed.is_empty() => Err(Error::Partial(format!(
            "{} rows failed; run the same command again to retry them",
            report.failed.len()
        ))),
        None => Ok(()),
    }
}

fn batch_text(r: &Report) -> String {
    let mut text = format!(
        "{} rows: {} downloaded, {} already in {}, {} failed",
        r.rows,
        r.downloaded,
        r.skipped,
        r.dir.display(),
        r.failed.len()
    );
    if r.duplicates > 0 {
        text.push_str(&format!(", {} duplicates", r.duplicates));
    }
    if r.not_attempted > 0 {
        text.push_str(&format!(", {} not attempted", r.not_attempted));
    }
    text.push_str(&format!(
        "\n{} credits charged{}\n",
        r.credits_charged,
        r.credits_remaining
            .map(|c| format!(", {c} left"))
            .unwrap_or_default()
    ));
    text
}

/// Errors whose report is already printed (`--json` prints no second document).
pub fn already_reported(e: &Error) -> bool {
    matches!(
        e,
        Error::OutOfCredits(_) | Error::Partial(_) | Error::Interrupted(_) | Error::KeyRefused(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn one_vehicle_or_a_request_id_and_one_judgement() {
        let parse = |args: &[&str]| Cli::try_parse_from(["vis"].iter().chain(args));
        assert!(parse(&["feedback", "toyota", "camry", "2019", "--bad"]).is_ok());
        assert!(parse(&["feedback", "--request-id", "req_1", "--rating", "4"]).is_ok());
        assert!(parse(&["feedback", "--request-id", "req_1"]).is_err());
        assert!(parse(&["feedback", "--good"]).is_err());
        assert!(parse(&["urls", "toyota", "camry", "2019", "--max-uses", "3"]).is_ok());
        assert!(parse(&["urls", "toyota", "camry"]).is_err());
        assert!(
            parse(&[
                "image", "toyota", "camry", "2019", "--size", "small", "--width", "9"
            ])
            .is_err()
        );
        assert!(parse(&["image", "toyota", "camry", "2019", "--angle", "30"]).is_ok());
        assert!(
            parse(&[
                "image", "toyota", "camry", "2019", "--angle", "30", "--view", "side"
            ])
            .is_err()
        );
        assert!(
            parse(&[
                "image", "toyota", "camry", "2019", "--paint", "3R3", "--color", "red"
            ])
            .is_err()
        );
    }

    #[test]
    fn a_spin_asks_for_its_layout_and_names_its_file() {
        let cli = Cli::try_parse_from([
            "vis", "spin", "Toyota", "Camry", "2019", "--paint", "3R3", "--width", "256",
            "--layout", "sprite", "--format", "png",
        ])
        .unwrap();
        let Command::Spin(args) = cli.command else {
            panic!("not a spin");
        };
        let q = args.query();
        assert_eq!(
            q,
            [
                ("make", "Toyota".to_owned()),
                ("model", "Camry".into()),
                ("year", "2019".into()),
                ("paint", "3R3".into()),
                ("w", "256".into()),
                ("format", "png".into()),
                ("layout", "sprite".into()),
            ]
        );
        assert_eq!(args.file_name(), "toyota_camry_2019_3r3_sprite.png");
    }
}
