//! Seed 002's server in Rust: every request, whatever its path, gets a fixed text, as
//! the article's handlers (`http.HandleFunc("/", …)` in Go) and servers.toml's go-hello.

use std::net::SocketAddr;
use std::process::ExitCode;

use benchbook_servers::{Flags, serve, text};
use hyper::StatusCode;

fn main() -> ExitCode {
    let run = || -> Result<(), String> {
        let flags = Flags::from_args(&[("addr", "127.0.0.1:8080")])?;
        let addr: SocketAddr = flags.get("addr")?;
        serve("hello", addr, |_request| async {
            text(StatusCode::OK, "Rust-Server")
        })
        .map_err(|e| e.to_string())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("hello: {error}");
            ExitCode::from(2)
        }
    }
}
