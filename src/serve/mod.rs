//! `contagion serve`: a local web server with one page to play the trained models on a
//! drawn board and to watch runs learn (feature `serve`, on by default).
//!
//! - [`session`]: one game of a person against an agent, of any game the server plays.
//! - [`served`]: the games it plays ([`served::Catalog`]): the built-in ones and any a
//!   program built on the library adds.
//! - [`runs`]: the runs being watched: their curves and recorded games.
//!
//! The page (`page.html`: HTML, CSS and JavaScript in one file, no dependencies) is
//! embedded in the binary. It speaks JSON to these routes:
//!
//! | route | what |
//! |---|---|
//! | `GET /` | the page |
//! | `GET /api/info` | the games, and the opponents a game may be played against |
//! | `POST /api/games` | a new game: `{game, opponent, seat, movetime_ms}` |
//! | `GET /api/games/{id}` | a game's state |
//! | `POST /api/games/{id}/move` | the person's move: `{from, to}` cells or `{notation}`; the agent replies |
//! | `POST /api/games/{id}/undo` | back to the person's previous turn |
//! | `GET /api/games/{id}/pgn` | the finished game as a PGN record |
//! | `GET /api/runs`, `/api/runs/{run}/metrics`, `/api/runs/{run}/games`, `/api/runs/{run}/games/{shard}/{index}` | watching runs |
//!
//! Bounds: games are kept apart by unguessable ids, at most [`MAX_SERVED_GAMES`] at once (the
//! longest idle is dropped); a search runs on the blocking pool, never on a request
//! thread, at most one per core at a time, within the game's time per move (at most
//! [`MAX_SERVED_MOVE_MS`]) and a simulation cap that bounds its memory (with a 4 MiB
//! evaluation cache per game); request bodies are
//! limited to [`MAX_REQUEST_BYTES`] (bounds from [`crate::limits`]). An opponent is a baseline spec or a model the server lists (the
//! shipped bundles, the runs it was given): a visitor never names a file or a program.

mod error;
pub mod runs;
pub mod served;
pub mod session;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;

use crate::agents::AgentSpec;
use crate::limits::{MAX_REQUEST_BYTES, MAX_SERVED_DEPTH, MAX_SERVED_GAMES, MAX_SERVED_MOVE_MS};
use error::ApiError;
use served::{Catalog, random_u64};
use session::{Click, Session};

/// Simulations a model's search may spend on one move (its time ends it sooner).
const MODEL_SIMS: u32 = 20_000;

/// How `contagion serve` was asked to run.
pub struct Options {
    /// The address to listen on (`127.0.0.1`: this machine only).
    pub bind: String,
    /// The port (0: any free one).
    pub port: u16,
    /// Runs to watch: run directories, directories of runs, or store locations.
    pub runs: Vec<String>,
    /// The directory of shipped bundles offered as opponents.
    pub models: PathBuf,
    /// The games the page offers.
    pub games: Catalog,
}

/// A model the page offers: its name and where it is.
struct Model {
    name: String,
    game: String,
    path: PathBuf,
    /// A fast evaluator (played by alpha-beta) rather than a network (played by MCTS).
    evaluator: bool,
}

/// Everything the handlers share.
struct Server {
    catalog: Catalog,
    games: Mutex<HashMap<String, Entry>>,
    models: Vec<Model>,
    runs: runs::Runs,
    searches: tokio::sync::Semaphore,
}

/// One game in the table.
struct Entry {
    session: Arc<Mutex<Box<dyn Session>>>,
    used: Instant,
}

/// Serves until killed.
pub fn run(opts: Options) -> anyhow::Result<()> {
    let runs = runs::Runs::open(&opts.runs)?;
    let server = Arc::new(Server {
        catalog: opts.games,
        games: Mutex::new(HashMap::new()),
        models: models(&opts.models, &runs)?,
        runs,
        searches: tokio::sync::Semaphore::new(crate::limits::cores()),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind((opts.bind.as_str(), opts.port))
            .await
            .with_context(|| format!("listening on {}:{}", opts.bind, opts.port))?;
        let addr = listener.local_addr()?;
        println!("contagion serve: http://{addr}/ (Ctrl-C stops it)");
        use std::io::Write;
        std::io::stdout().flush()?;
        axum::serve(listener, router(server)).await?;
        Ok(())
    })
}

fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route("/", get(|| async { Html(include_str!("page.html")) }))
        .route("/api/info", get(info))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(game_state))
        .route("/api/games/{id}/move", post(play_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/pgn", get(pgn))
        .route(
            "/api/runs",
            get(|State(s): State<Arc<Server>>| async move { Json(s.runs.list()) }),
        )
        .route("/api/runs/{run}/metrics", get(run_metrics))
        .route("/api/runs/{run}/games", get(run_games))
        .route("/api/runs/{run}/games/{shard}/{index}", get(run_game))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such page") })
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .with_state(server)
}

/// The bundles in `dir` (in its index's order: each game's current model first) and the
/// watched runs' best networks, as opponents.
fn models(dir: &Path, runs: &runs::Runs) -> anyhow::Result<Vec<Model>> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        let index = crate::nn::formats::models::Index::load(dir)?;
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort_by_cached_key(|p| {
            let name = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            (index.as_ref().map_or((false, 0), |i| i.rank(&name)), name)
        });
        for path in paths {
            let evaluator = crate::nn::nnue::bundle::is_evaluator(&path);
            let game = if evaluator {
                crate::nn::nnue::bundle::read_manifest(&path)?.shape.game
            } else if crate::nn::formats::bundle::is_bundle(&path) {
                crate::nn::formats::bundle::read_manifest(&path)?.game.name
            } else {
                continue;
            };
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            out.push(Model {
                name,
                game,
                path,
                evaluator,
            });
        }
    }
    for (name, game, path) in runs.trained() {
        out.push(Model {
            name: format!("run {name}"),
            game,
            path,
            evaluator: false,
        });
    }
    Ok(out)
}

type Reply = Result<Json<serde_json::Value>, ApiError>;

async fn info(State(s): State<Arc<Server>>) -> Json<serde_json::Value> {
    let games: Vec<_> = (s.catalog.0.iter())
        .map(|g| {
            let players = g.player_names();
            let baselines = if players.len() > 2 {
                ["greedy", "maxn:depth=2", "alphabeta:depth=2", "random"]
            } else {
                ["greedy", "alphabeta:depth=2", "alphabeta:depth=3", "random"]
            };
            let mut opponents: Vec<serde_json::Value> = (s.models.iter())
                .filter(|m| m.game == g.name())
                .map(|m| {
                    let label = if m.evaluator {
                        format!("{} (alpha-beta)", m.name)
                    } else {
                        m.name.clone()
                    };
                    json!({"id": format!("model:{}", m.name), "label": label})
                })
                .collect();
            opponents.extend(baselines.iter().map(|b| json!({"id": b, "label": b})));
            json!({"name": g.name(), "players": players, "opponents": opponents})
        })
        .collect();
    Json(
        json!({"games": games, "movetimes_ms": [100, 300, 1000, 3000], "max_movetime_ms": MAX_SERVED_MOVE_MS}),
    )
}

/// A new game's request.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    game: String,
    opponent: String,
    #[serde(default)]
    seat: usize,
    #[serde(default = "default_movetime")]
    movetime_ms: u64,
}

fn default_movetime() -> u64 {
    1000
}

async fn new_game(State(s): State<Arc<Server>>, Json(req): Json<NewGame>) -> Reply {
    let game = (s.catalog.get(&req.game)).map_err(|e| ApiError::bad(e.to_string()))?;
    if !(1..=MAX_SERVED_MOVE_MS).contains(&req.movetime_ms) {
        return Err(ApiError::bad(format!(
            "movetime_ms must be 1 to {MAX_SERVED_MOVE_MS}"
        )));
    }
    let spec = opponent(&s, &req.opponent, game.name())?;
    let movetime = Duration::from_millis(req.movetime_ms);
    let session = game.new_session(&spec, req.seat, movetime)?;
    let id = fresh_id();
    let session = Arc::new(Mutex::new(session));
    {
        let mut games = s.games.lock().expect("the game table");
        if games.len() >= MAX_SERVED_GAMES {
            let oldest = games
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone());
            games.remove(&oldest.expect("a full table has a game"));
        }
        games.insert(
            id.clone(),
            Entry {
                session: session.clone(),
                used: Instant::now(),
            },
        );
    }
    replies(&s, &session).await?;
    Ok(Json(with_id(&session, &id)))
}

/// The opponent a game asked for, if the server offers it: a listed model or a bounded
/// baseline spec. Never a path or a program of the visitor's choosing.
fn opponent(s: &Server, text: &str, game: &str) -> Result<AgentSpec, ApiError> {
    if let Some(name) = text.strip_prefix("model:") {
        let model = (s.models.iter())
            .find(|m| m.name == name && m.game == game)
            .ok_or_else(|| {
                ApiError::bad(format!(
                    "no model '{}' for {}",
                    crate::limits::clip(name),
                    game
                ))
            })?;
        return Ok(if model.evaluator {
            AgentSpec::Nnue {
                path: model.path.clone(),
                ms: None,
                depth: None,
                nodes: None,
                soft: None,
                pruning: Default::default(),
            }
        } else {
            AgentSpec::model(model.path.clone(), MODEL_SIMS)
        });
    }
    let spec: AgentSpec = text
        .parse()
        .map_err(|e| ApiError::bad(format!("opponent: {e}")))?;
    let depth_ok = |d: Option<u32>| d.is_none_or(|d| d <= MAX_SERVED_DEPTH);
    let ok = match &spec {
        AgentSpec::Random | AgentSpec::Greedy => true,
        AgentSpec::Minimax { depth } | AgentSpec::Maxn { depth } => depth_ok(Some(*depth)),
        AgentSpec::AlphaBeta { depth, .. } => depth_ok(*depth),
        _ => false,
    };
    if !ok {
        return Err(ApiError::bad(format!(
            "opponent '{}': choose a listed model or a baseline (random, greedy, minimax, maxn, alphabeta, brs; depth at most {MAX_SERVED_DEPTH})",
            crate::limits::clip(text)
        )));
    }
    Ok(spec)
}

/// A game id no visitor can guess: 128 random bits in hex.
fn fresh_id() -> String {
    format!("{:016x}{:016x}", random_u64(), random_u64())
}

fn session(s: &Server, id: &str) -> Result<Arc<Mutex<Box<dyn Session>>>, ApiError> {
    let mut games = s.games.lock().expect("the game table");
    let entry = games.get_mut(id).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no such game (finished long ago, or never started)",
        )
    })?;
    entry.used = Instant::now();
    Ok(entry.session.clone())
}

fn with_id(session: &Mutex<Box<dyn Session>>, id: &str) -> serde_json::Value {
    let mut state = session.lock().expect("a session").state();
    state["id"] = json!(id);
    state
}

/// Lets the agent move until it is the person's turn or the game is over, on the
/// blocking pool, one search per core at a time.
async fn replies(s: &Server, session: &Arc<Mutex<Box<dyn Session>>>) -> Result<(), ApiError> {
    if !session.lock().expect("a session").agent_to_move() {
        return Ok(());
    }
    let _permit = s
        .searches
        .acquire()
        .await
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
    let session = session.clone();
    tokio::task::spawn_blocking(move || {
        let mut game = session.lock().expect("a session");
        while game.agent_to_move() {
            game.reply()?;
        }
        Ok::<(), anyhow::Error>(())
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
    .map_err(|e| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the opponent failed: {e:#}"),
        )
    })
}

async fn game_state(State(s): State<Arc<Server>>, UrlPath(id): UrlPath<String>) -> Reply {
    let session = session(&s, &id)?;
    Ok(Json(with_id(&session, &id)))
}

async fn play_move(
    State(s): State<Arc<Server>>,
    UrlPath(id): UrlPath<String>,
    Json(click): Json<Click>,
) -> Reply {
    let session = session(&s, &id)?;
    let played = session.lock().expect("a session").play(&click);
    played.map_err(|why| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, why))?;
    replies(&s, &session).await?;
    Ok(Json(with_id(&session, &id)))
}

async fn undo(State(s): State<Arc<Server>>, UrlPath(id): UrlPath<String>) -> Reply {
    let session = session(&s, &id)?;
    if !session.lock().expect("a session").undo() {
        return Err(ApiError::new(StatusCode::CONFLICT, "nothing to undo"));
    }
    Ok(Json(with_id(&session, &id)))
}

async fn pgn(
    State(s): State<Arc<Server>>,
    UrlPath(id): UrlPath<String>,
) -> Result<Response, ApiError> {
    let session = session(&s, &id)?;
    let text = session.lock().expect("a session").pgn();
    let text =
        text.ok_or_else(|| ApiError::new(StatusCode::CONFLICT, "the game is not over yet"))?;
    let disposition = "attachment; filename=\"contagion-game.pgn\"";
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-chess-pgn"),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}

/// A run's answer, or 404 for a run the server does not know.
fn run_reply(found: Option<anyhow::Result<serde_json::Value>>) -> Reply {
    match found {
        None => Err(ApiError::new(StatusCode::NOT_FOUND, "no such run")),
        Some(Err(e)) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{e:#}"),
        )),
        Some(Ok(v)) => Ok(Json(v)),
    }
}

async fn run_metrics(State(s): State<Arc<Server>>, UrlPath(run): UrlPath<String>) -> Reply {
    run_reply(tokio::task::block_in_place(|| s.runs.metrics(&run)))
}

async fn run_games(State(s): State<Arc<Server>>, UrlPath(run): UrlPath<String>) -> Reply {
    run_reply(tokio::task::block_in_place(|| {
        s.runs.games(&run, &s.catalog)
    }))
}

async fn run_game(
    State(s): State<Arc<Server>>,
    UrlPath((run, shard, index)): UrlPath<(String, String, usize)>,
) -> Reply {
    run_reply(tokio::task::block_in_place(|| {
        s.runs.game(&run, &shard, index, &s.catalog)
    }))
}
