//! Seed 000's server in Rust: `GET /` answers "ok" after sleeping the configured delay
//! (simulated I/O on a kernel timer the runtime waits on: no thread waits), as
//! servers.toml's go-iodelay does (benchbook_servers::sleep_precisely says why not
//! tokio's own timer).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use benchbook_servers::{Flags, Reply, serve, sleep_precisely, text};
use hyper::body::Incoming;
use hyper::{Method, Request, StatusCode};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("iodelay: {error}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let flags = Flags::from_args(&[("addr", "127.0.0.1:8080"), ("delay-ms", "1")])?;
    let addr: SocketAddr = flags.get("addr")?;
    let delay_ms: f64 = flags.get("delay-ms")?;
    let delay = Duration::try_from_secs_f64(delay_ms / 1000.0)
        .map_err(|error| format!("-delay-ms {delay_ms}: {error}"))?;
    serve("iodelay", addr, move |request| reply(request, delay)).map_err(|e| e.to_string())
}

/// `GET /` only, as Go's `GET /{$}` pattern: another path is 404, another method 405.
async fn reply(request: Request<Incoming>, delay: Duration) -> Reply {
    if request.uri().path() != "/" {
        return text(StatusCode::NOT_FOUND, "404 page not found\n");
    }
    if request.method() != Method::GET {
        return text(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed\n");
    }
    match sleep_precisely(delay).await {
        Ok(()) => text(StatusCode::OK, "ok"),
        Err(error) => {
            eprintln!("iodelay: timer: {error}");
            text(StatusCode::INTERNAL_SERVER_ERROR, "timer failed\n")
        }
    }
}
