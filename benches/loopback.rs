//! What an HTTP exchange over loopback costs this machine at the least: the floor under the
//! webhooks' deliveries (`cargo bench --bench webhooks`), measured without locstore.
//!
//! ```sh
//! cargo bench --bench loopback          # LOCSTORE_BENCH_BURSTS=2000 LOCSTORE_BENCH_BURST=8
//! ```
//!
//! Three receivers answer `204` to every request, each connection on a thread of its own,
//! reading a request's head and `content-length` bytes of body and nothing more (no JSON, no
//! signature). A request is what a delivery sends: a `POST` with the Standard Webhooks
//! headers and a 600-byte body, on a kept connection with `TCP_NODELAY`. Three ways of
//! sending, each in bursts with a pause between them (as commits come to the webhooks in
//! batches):
//! - one exchange at a time on one connection (the machine idles between two);
//! - three threads, one a connection, woken together for each burst, each sending its
//!   burst's requests one after the other and waiting for each answer (how the webhooks'
//!   threads deliver);
//! - one thread over the three connections: each request sent to all three, then the three
//!   answers read (what one thread with non-blocking connections would do at best).
//!
//! Printed: the process's CPU (user and system, every thread: the senders', the receivers'
//! and the kernel's work on their behalf) per exchange. Three webhooks make three exchanges
//! a write; BENCHMARKS.md sets that against what the writes can spare.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

const BODY: usize = 600;
const RECEIVERS: usize = 3;

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// The process's CPU time so far, all threads, in µs.
fn cpu_micros() -> f64 {
    // SAFETY: `getrusage` fills the zeroed struct it is given and keeps no pointer to it.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let micros = |time: libc::timeval| time.tv_sec as f64 * 1e6 + time.tv_usec as f64;
    micros(usage.ru_utime) + micros(usage.ru_stime)
}

/// A delivery's request: the head locstore sends and a body of [`BODY`] bytes.
fn request() -> Vec<u8> {
    let mut bytes = format!(
        "POST /hook HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
         webhook-id: 0123456789abcdef0123456789abcdef01234567_whk_0123456789abcdef\r\n\
         webhook-timestamp: 1764316800\r\n\
         webhook-signature: v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=\r\n\
         content-length: {BODY}\r\n\r\n"
    )
    .into_bytes();
    bytes.extend(std::iter::repeat_n(b'x', BODY));
    bytes
}

/// Answers every request on `stream` with `204` until the other side closes.
fn answer(mut stream: TcpStream) {
    stream.set_nodelay(true).expect("TCP_NODELAY");
    let mut buffer = vec![0u8; 1 << 16];
    let mut held = 0;
    loop {
        let whole = loop {
            if let Some(end) = buffer[..held].windows(4).position(|window| window == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .and_then(|value| value.trim().parse().ok())
                    .unwrap_or(0);
                if held >= end + 4 + length {
                    break end + 4 + length;
                }
            }
            match stream.read(&mut buffer[held..]) {
                Ok(0) | Err(_) => return,
                Ok(read) => held += read,
            }
        };
        buffer.copy_within(whole..held, 0);
        held -= whole;
        if stream.write_all(b"HTTP/1.1 204 No Content\r\n\r\n").is_err() {
            return;
        }
    }
}

/// Starts a receiver; answers its address.
fn receiver() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind on loopback");
    let address = listener.local_addr().expect("bound address");
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream));
        }
    });
    address
}

fn connect(address: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(address).expect("connect on loopback");
    stream.set_nodelay(true).expect("TCP_NODELAY");
    stream
}

/// Sends `request` and waits for the answer (one read: the answer is one small segment).
fn exchange(stream: &mut TcpStream, request: &[u8]) {
    stream.write_all(request).expect("send");
    read_answer(stream);
}

fn read_answer(stream: &mut TcpStream) {
    let mut answer = [0u8; 256];
    assert!(stream.read(&mut answer).expect("answer") > 0, "the receiver closed");
}

/// Runs `send` and prints the CPU it took per exchange.
fn measure(label: &str, exchanges: usize, send: impl FnOnce()) {
    let (cpu, wall) = (cpu_micros(), Instant::now());
    send();
    let (cpu, wall) = (cpu_micros() - cpu, wall.elapsed());
    println!(
        "| {label} | {:.1} µs | {:.0} |",
        cpu / exchanges as f64,
        exchanges as f64 / wall.as_secs_f64()
    );
}

fn main() {
    let bursts = env_number("LOCSTORE_BENCH_BURSTS", 2000);
    let burst = env_number("LOCSTORE_BENCH_BURST", 8);
    let pause = Duration::from_millis(2);
    let addresses: Vec<SocketAddr> = (0..RECEIVERS).map(|_| receiver()).collect();
    let request = Arc::new(request());
    println!("| {bursts} bursts, a pause of {pause:?} after each | CPU per exchange, both sides | exchanges/s |");
    println!("|---|---:|---:|");

    let mut one = connect(addresses[0]);
    measure("one exchange at a time", bursts, || {
        for _ in 0..bursts {
            exchange(&mut one, &request);
            std::thread::sleep(pause);
        }
    });

    let exchanges = bursts * burst * RECEIVERS;
    // A burst starts when all have passed `start` and ends when all have passed `done`.
    let (start, done) = (
        Arc::new(Barrier::new(RECEIVERS + 1)),
        Arc::new(Barrier::new(RECEIVERS + 1)),
    );
    let senders: Vec<_> = addresses
        .iter()
        .map(|&address| {
            let (start, done, request) = (start.clone(), done.clone(), request.clone());
            let mut stream = connect(address);
            std::thread::spawn(move || {
                for _ in 0..bursts {
                    start.wait();
                    for _ in 0..burst {
                        exchange(&mut stream, &request);
                    }
                    done.wait();
                }
            })
        })
        .collect();
    measure(&format!("three threads, bursts of {burst} each"), exchanges, || {
        for _ in 0..bursts {
            start.wait();
            done.wait();
            std::thread::sleep(pause);
        }
        for sender in senders {
            sender.join().expect("a sender panicked");
        }
    });

    let mut streams: Vec<TcpStream> = addresses.iter().map(|&address| connect(address)).collect();
    measure(
        &format!("one thread over three connections, bursts of {burst}"),
        exchanges,
        || {
            for _ in 0..bursts {
                for _ in 0..burst {
                    for stream in &mut streams {
                        stream.write_all(&request).expect("send");
                    }
                    for stream in &mut streams {
                        read_answer(stream);
                    }
                }
                std::thread::sleep(pause);
            }
        },
    );
}
