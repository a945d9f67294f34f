//! A deadline for request headers: the connection is dropped when a client has not finished
//! sending its first request's headers within the request timeout. It keeps a client that
//! trickles its headers from holding a connection open (the server's idle timeout only
//! catches clients that send nothing at all). Bodies have their own timeout in the request
//! pipeline.
//!
//! The deadline covers the first request of a connection only. Arming it again for later
//! requests would need to know where a response ends and the next request begins; armed at
//! the wrong moment it would cut a long download short, which is worse than what it prevents.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use poem::http::uri::Scheme;
use poem::listener::Acceptor;
use poem::web::{LocalAddr, RemoteAddr};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// Wraps an acceptor so that every connection gets a header deadline.
pub struct HeaderDeadlineAcceptor<A> {
    inner: A,
    timeout: Duration,
}

impl<A> HeaderDeadlineAcceptor<A> {
    pub fn new(inner: A, timeout: Duration) -> Self {
        Self { inner, timeout }
    }
}

impl<A: Acceptor> Acceptor for HeaderDeadlineAcceptor<A> {
    type Io = HeaderDeadline<A::Io>;

    fn local_addr(&self) -> Vec<LocalAddr> {
        self.inner.local_addr()
    }

    async fn accept(&mut self) -> io::Result<(Self::Io, LocalAddr, RemoteAddr, Scheme)> {
        let (io, local, remote, scheme) = self.inner.accept().await?;
        Ok((HeaderDeadline::new(io, self.timeout), local, remote, scheme))
    }
}

/// A connection whose reads fail once the current request's headers are overdue.
pub struct HeaderDeadline<T> {
    inner: T,
    deadline: Option<Pin<Box<Sleep>>>,
    /// How much of `\r\n\r\n` the last bytes read have matched.
    matched: usize,
}

const HEADERS_END: &[u8] = b"\r\n\r\n";

impl<T> HeaderDeadline<T> {
    fn new(inner: T, timeout: Duration) -> Self {
        Self {
            inner,
            deadline: Some(Box::pin(tokio::time::sleep(timeout))),
            matched: 0,
        }
    }

    /// Follows the bytes read; the deadline ends with the blank line after the headers.
    fn observe(&mut self, bytes: &[u8]) {
        if self.deadline.is_none() {
            return;
        }
        for &byte in bytes {
            self.matched = if byte == HEADERS_END[self.matched] {
                self.matched + 1
            } else if byte == b'\r' {
                1
            } else {
                0
            };
            if self.matched == HEADERS_END.len() {
                self.deadline = None;
                self.matched = 0;
                return;
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for HeaderDeadline<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if let Some(deadline) = self.deadline.as_mut()
            && deadline.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "request headers were not received in time",
            )));
        }
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = result {
            let new = buf.filled()[before..].to_vec();
            self.observe(&new);
        }
        result
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for HeaderDeadline<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, bytes)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buffers: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, buffers)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_ends_at_the_blank_line_even_when_split_across_reads() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut connection = HeaderDeadline::new((), Duration::from_secs(1));
            connection.observe(b"GET / HTTP/1.1\r\nHost: x\r");
            assert!(connection.deadline.is_some());
            connection.observe(b"\n\r");
            assert!(connection.deadline.is_some());
            connection.observe(b"\nbody");
            assert!(connection.deadline.is_none());
        });
    }
}
