//! What benchbook's Rust servers share: Go-style flags (`-addr 127.0.0.1:8080`), plain-text
//! replies, and one way to serve a handler — hyper's HTTP/1.1 (keep-alive, as wrk and
//! Locust speak it) on a tokio current-thread runtime. One thread does all the work: the
//! harness pins the process to its cores with taskset, as it pins a Go server, whose
//! runtime then sizes GOMAXPROCS to them; here there is nothing to size.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::str::FromStr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::net::TcpListener;

/// A whole reply, body in memory.
pub type Reply = Response<Full<Bytes>>;

/// How long to wait before accepting again after a failed accept (out of file
/// descriptors, say), so the loop does not spin while connections close.
const ACCEPT_RETRY: Duration = Duration::from_millis(10);

/// A command line of `-name value` pairs, each name one of those declared with its default.
pub struct Flags {
    values: HashMap<String, String>,
}

impl Flags {
    /// The process's arguments, against `declared` (name, default) pairs.
    pub fn from_args(declared: &[(&str, &str)]) -> Result<Self, String> {
        Self::parse(std::env::args().skip(1), declared)
    }

    /// `args` against `declared` (name, default) pairs: an unknown flag or one without
    /// a value is an error naming it.
    pub fn parse(
        args: impl IntoIterator<Item = String>,
        declared: &[(&str, &str)],
    ) -> Result<Self, String> {
        let mut values: HashMap<String, String> = declared
            .iter()
            .map(|(name, default)| (name.to_string(), default.to_string()))
            .collect();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let name = arg.trim_start_matches('-');
            if !arg.starts_with('-') || !values.contains_key(name) {
                let known: Vec<_> = declared
                    .iter()
                    .map(|(name, _)| format!("-{name}"))
                    .collect();
                return Err(format!("unknown flag {arg:?}; known: {}", known.join(", ")));
            }
            let value = args
                .next()
                .ok_or_else(|| format!("flag {arg} needs a value"))?;
            values.insert(name.to_string(), value);
        }
        Ok(Self { values })
    }

    /// A flag's value as a `T` (`-addr` as a SocketAddr, say).
    pub fn get<T: FromStr>(&self, name: &str) -> Result<T, String>
    where
        T::Err: std::fmt::Display,
    {
        let value = &self.values[name];
        value
            .parse()
            .map_err(|error| format!("-{name} {value:?}: {error}"))
    }
}

/// Sleeps `delay` on the kernel's high-resolution timer (a timerfd the tokio reactor
/// waits on), as precise as Go's runtime timers: tokio's own timer counts whole
/// milliseconds and rounds a sleep up to the next one, so `tokio::time::sleep` of 1 ms
/// lasts 1–2 ms, and a 1 ms I/O server on it would measure its timer, not its speed.
/// Costs a few system calls per sleep (create, arm, register, read, close).
pub async fn sleep_precisely(delay: Duration) -> std::io::Result<()> {
    if delay.is_zero() {
        return Ok(()); // a zero expiry would disarm the timer, never waking it
    }
    // SAFETY: timerfd_create takes no pointers; a negative result is an error.
    let raw = unsafe {
        libc::timerfd_create(
            libc::CLOCK_MONOTONIC,
            libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
        )
    };
    if raw < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `raw` is a file descriptor just opened and owned by nothing else.
    let timer = unsafe { OwnedFd::from_raw_fd(raw) };
    let expiry = libc::itimerspec {
        it_interval: libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        },
        it_value: libc::timespec {
            tv_sec: delay.as_secs() as libc::time_t,
            tv_nsec: delay.subsec_nanos() as libc::c_long,
        },
    };
    // SAFETY: `expiry` outlives the call; the old value is not asked for (null).
    if unsafe { libc::timerfd_settime(timer.as_raw_fd(), 0, &expiry, std::ptr::null_mut()) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the AsyncFd owns the descriptor, so it stays open for as long as it is
    // registered, and nothing else closes or reuses it.
    let timer = unsafe { AsyncFd::register_with_interest(timer, Interest::READABLE)? };
    loop {
        let mut ready = timer.readable().await?;
        let read = ready.try_io(|fd| {
            let mut expirations = [0u8; 8];
            // SAFETY: reads at most the 8 bytes of `expirations`, which outlives the call.
            let n = unsafe { libc::read(fd.as_raw_fd(), expirations.as_mut_ptr().cast(), 8) };
            if n < 0 {
                Err(std::io::Error::last_os_error())
            } else {
                Ok(())
            }
        });
        if let Ok(done) = read {
            return done;
        }
    }
}

/// A plain-text reply, typed as Go's net/http types one: `text/plain; charset=utf-8`.
pub fn text(status: StatusCode, body: &'static str) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *reply.status_mut() = status;
    reply.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    reply
}

/// Serves `handler` on `addr` on one thread until the process is stopped; `name` goes in
/// the line logged once listening.
pub fn serve<H, F>(name: &str, addr: SocketAddr, handler: H) -> std::io::Result<()>
where
    H: Fn(Request<Incoming>) -> F + Copy + Send + 'static,
    F: Future<Output = Reply> + Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = TcpListener::bind(addr).await?;
        eprintln!("{name} listening on {addr} (hyper, tokio current-thread runtime)");
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(error) => {
                    eprintln!("{name}: accept: {error}");
                    tokio::time::sleep(ACCEPT_RETRY).await;
                    continue;
                }
            };
            // As Go's net/http does: a small reply leaves at once (a connection already
            // gone fails here and again below, where its end is ignored).
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let service = service_fn(move |request| async move {
                    Ok::<_, Infallible>(handler(request).await)
                });
                // A connection the load tool drops mid-request is its end, not the server's.
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn flags_take_their_defaults_and_the_values_given() {
        let declared = [("addr", "127.0.0.1:8080"), ("delay-ms", "1")];
        let flags = Flags::parse(args("-delay-ms 2.5"), &declared).unwrap();
        assert_eq!(flags.get::<String>("delay-ms").unwrap(), "2.5");
        let addr: SocketAddr = flags.get("addr").unwrap();
        assert_eq!(addr.port(), 8080);
    }

    #[test]
    fn an_unknown_flag_or_a_missing_value_is_named() {
        let declared = [("addr", "127.0.0.1:8080")];
        let unknown = Flags::parse(args("-adr 1"), &declared).err().unwrap();
        assert!(
            unknown.contains("\"-adr\"") && unknown.contains("-addr"),
            "{unknown}"
        );
        let missing = Flags::parse(args("-addr"), &declared).err().unwrap();
        assert!(missing.contains("-addr needs a value"), "{missing}");
    }
}
