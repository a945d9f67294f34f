//! A delivery in one write.
//!
//! ureq hands its transport a request's head and its body as two writes, and before every
//! write and every read it sets the socket's timeout to the time left of the call. For a
//! delivery (a few hundred bytes of head, a few hundred of body) that was two TCP segments
//! and three `setsockopt` calls besides: nine system calls a delivery, now five (one write,
//! one read, and ureq's three-call check that a kept connection is still open), and the
//! webhook threads' CPU per delivery 7% lower (BENCHMARKS.md, session 27). [`OneWrite`]
//! goes on top of ureq's own connectors (a proxy, TCP, TLS), so it changes nothing of what
//! they do; it only holds what ureq transmits until ureq first waits for an answer (or until
//! a buffer's worth is held), then sends it as one write, and it rounds the time left up to
//! a whole [`TIMEOUT_STEP`], so that the socket's timeout is set once per connection while
//! calls answer in time (a timeout then ends at most one step late).
//!
//! ureq also checks that a kept connection is still open twice a request: when the answer is
//! read and the connection goes back to its pool, and when the next request takes it out (a
//! look whether the socket has anything to read, three system calls each time). [`Held`]
//! answers the first from what it knows (an answer was just read whole; ureq itself looks
//! at the bytes left in its buffer) and lets the second look: the one that finds a
//! connection the receiver closed while it was idle, or sent bytes on unasked.
//!
//! ureq's transport interface is outside its semver promise; `Cargo.lock` pins the version.

use ureq::unversioned::transport::time::Duration;
use ureq::unversioned::transport::{Buffers, ConnectionDetails, Connector, DefaultConnector, NextTimeout, Transport};

/// What the time left of a call is rounded up to.
const TIMEOUT_STEP: std::time::Duration = std::time::Duration::from_millis(100);

/// ureq's connectors with [`OneWrite`] on top.
pub fn connector() -> impl Connector<Out = Held> {
    DefaultConnector::default().chain(OneWrite)
}

/// Puts [`Held`] on top of the transport the connectors before it made.
#[derive(Debug, Default)]
pub struct OneWrite;

impl Connector<Box<dyn Transport>> for OneWrite {
    type Out = Held;

    fn connect(
        &self,
        _details: &ConnectionDetails,
        chained: Option<Box<dyn Transport>>,
    ) -> Result<Option<Held>, ureq::Error> {
        Ok(chained.map(|inner| Held {
            inner,
            held: Vec::new(),
            timeout: NextTimeout::default(),
            answered: false,
        }))
    }
}

/// A transport that sends what is transmitted when an answer is awaited.
#[derive(Debug)]
pub struct Held {
    inner: Box<dyn Transport>,
    /// Transmitted, not yet sent.
    held: Vec<u8>,
    /// The timeout of the last transmission, which sending what is held keeps to.
    timeout: NextTimeout,
    /// An answer was read since ureq last asked whether the connection is open.
    answered: bool,
}

impl Held {
    fn send_held(&mut self) -> Result<(), ureq::Error> {
        let held = std::mem::take(&mut self.held);
        for part in held.chunks(self.inner.buffers().output().len().max(1)) {
            self.inner.buffers().output()[..part.len()].copy_from_slice(part);
            self.inner.transmit_output(part.len(), self.timeout)?;
        }
        // The allocation is kept for the next request on the connection.
        self.held = held;
        self.held.clear();
        Ok(())
    }
}

impl Transport for Held {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.inner.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        let output = self.inner.buffers().output();
        let room = output.len();
        self.held.extend_from_slice(&output[..amount]);
        self.timeout = rounded(timeout);
        if self.held.len() >= room {
            self.send_held()?;
        }
        Ok(())
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        if !self.held.is_empty() {
            self.send_held()?;
        }
        self.answered = true;
        self.inner.await_input(rounded(timeout))
    }

    /// Open, without a look at the socket, when asked right after an answer (the connection
    /// going back to its pool); the next ask (taking it out) looks.
    fn is_open(&mut self) -> bool {
        let answered = std::mem::take(&mut self.answered);
        self.held.is_empty() && (answered || self.inner.is_open())
    }

    fn is_tls(&self) -> bool {
        self.inner.is_tls()
    }
}

/// The time left rounded up to a whole [`TIMEOUT_STEP`] (none left stays none).
fn rounded(mut timeout: NextTimeout) -> NextTimeout {
    if !timeout.after.is_not_happening() {
        let step = TIMEOUT_STEP.as_nanos();
        let steps = timeout.after.as_nanos().div_ceil(step);
        timeout.after = Duration::from(std::time::Duration::from_nanos((steps * step) as u64));
    }
    timeout
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use ureq::unversioned::transport::LazyBuffers;

    use super::*;

    /// What the transport under [`Held`] was asked to do, in order.
    #[derive(Debug, Clone, PartialEq)]
    enum Call {
        Write(Vec<u8>, std::time::Duration),
        Read(std::time::Duration),
        Probe,
    }

    #[derive(Debug)]
    struct Recorder {
        buffers: LazyBuffers,
        calls: Arc<Mutex<Vec<Call>>>,
    }

    impl Transport for Recorder {
        fn buffers(&mut self) -> &mut dyn Buffers {
            &mut self.buffers
        }

        fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
            let bytes = self.buffers.output()[..amount].to_vec();
            self.calls.lock().unwrap().push(Call::Write(bytes, *timeout.after));
            Ok(())
        }

        fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
            self.calls.lock().unwrap().push(Call::Read(*timeout.after));
            Ok(false)
        }

        fn is_open(&mut self) -> bool {
            self.calls.lock().unwrap().push(Call::Probe);
            true
        }
    }

    fn held(output_size: usize) -> (Held, Arc<Mutex<Vec<Call>>>) {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let inner = Recorder {
            buffers: LazyBuffers::new(64, output_size),
            calls: calls.clone(),
        };
        let held = Held {
            inner: Box::new(inner),
            held: Vec::new(),
            timeout: NextTimeout::default(),
            answered: false,
        };
        (held, calls)
    }

    fn left(millis: u64) -> NextTimeout {
        NextTimeout {
            after: Duration::from(std::time::Duration::from_millis(millis)),
            reason: ureq::Timeout::Global,
            per_read: None,
            per_write: None,
        }
    }

    /// Writes `bytes` as ureq does: into the output buffer, then transmits them.
    fn transmit(transport: &mut Held, bytes: &[u8], timeout: NextTimeout) {
        transport.buffers().output()[..bytes.len()].copy_from_slice(bytes);
        transport.transmit_output(bytes.len(), timeout).unwrap();
    }

    #[test]
    fn a_head_and_its_body_go_out_as_one_write_before_the_answer_is_read() {
        let (mut transport, calls) = held(1024);
        transmit(
            &mut transport,
            b"POST /hook HTTP/1.1\r\ncontent-length: 2\r\n\r\n",
            left(9_999),
        );
        transmit(&mut transport, b"{}", left(9_998));
        assert!(
            calls.lock().unwrap().is_empty(),
            "nothing is sent before the answer is awaited"
        );
        transport.await_input(left(9_997)).unwrap();
        let ten_seconds = std::time::Duration::from_secs(10);
        assert_eq!(
            *calls.lock().unwrap(),
            [
                Call::Write(
                    b"POST /hook HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}".to_vec(),
                    ten_seconds
                ),
                Call::Read(ten_seconds),
            ]
        );
        // The next request on the connection starts afresh.
        transmit(&mut transport, b"GET / HTTP/1.1\r\n\r\n", left(10_000));
        transport.await_input(left(10_000)).unwrap();
        assert_eq!(
            calls.lock().unwrap()[2..],
            [
                Call::Write(b"GET / HTTP/1.1\r\n\r\n".to_vec(), ten_seconds),
                Call::Read(ten_seconds)
            ]
        );
    }

    #[test]
    fn a_body_larger_than_the_buffer_goes_out_in_buffers_as_it_comes() {
        let (mut transport, calls) = held(8);
        transmit(&mut transport, b"head", left(5_000));
        assert!(calls.lock().unwrap().is_empty());
        transmit(&mut transport, b"12345678", left(5_000));
        // Twelve bytes held, more than a buffer: sent in the buffer's size, nothing kept back.
        let written: Vec<Call> = calls.lock().unwrap().clone();
        let five_seconds = std::time::Duration::from_secs(5);
        assert_eq!(
            written,
            [
                Call::Write(b"head1234".to_vec(), five_seconds),
                Call::Write(b"5678".to_vec(), five_seconds)
            ]
        );
        transport.await_input(left(5_000)).unwrap();
        assert_eq!(calls.lock().unwrap()[2..], [Call::Read(five_seconds)]);
    }

    #[test]
    fn a_connection_is_looked_at_when_taken_from_the_pool_not_when_put_back_after_its_answer() {
        let (mut transport, calls) = held(1024);
        transmit(&mut transport, b"POST /hook HTTP/1.1\r\n\r\n", left(10_000));
        transport.await_input(left(10_000)).unwrap();
        // Back to the pool after the answer: no look.
        assert!(transport.is_open());
        assert!(!calls.lock().unwrap().contains(&Call::Probe));
        // Out of the pool for the next request: a look, and one for each later ask.
        assert!(transport.is_open());
        assert!(transport.is_open());
        let probes = calls
            .lock()
            .unwrap()
            .iter()
            .filter(|call| **call == Call::Probe)
            .count();
        assert_eq!(probes, 2);
        // Something held and not sent yet: not open, whatever was read before.
        transmit(&mut transport, b"GET", left(10_000));
        transport.answered = true;
        assert!(!transport.is_open());
    }

    #[test]
    fn the_time_left_is_rounded_up_to_a_step_and_none_left_stays_none() {
        let after = |millis| *rounded(left(millis)).after;
        assert_eq!(after(9_901), std::time::Duration::from_secs(10));
        assert_eq!(after(10_000), std::time::Duration::from_secs(10));
        assert_eq!(after(1), std::time::Duration::from_millis(100));
        assert_eq!(after(0), std::time::Duration::ZERO);
        assert!(rounded(NextTimeout::default()).after.is_not_happening());
    }
}
