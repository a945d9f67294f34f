//! Pieces of one output made on several threads and used in order: the pattern of a zip of
//! many languages and of a String Catalog of many keys, where each piece takes long to make
//! and must be written after the ones before it.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, mpsc};

/// Makes pieces `0..count` with `make` on `threads` threads, each taking the next index as it
/// finishes one, and hands them to `take` on the calling thread in index order as they are
/// done. A thread waits while the piece it would take is `window` or more ahead of the next one
/// to hand over, so at most about `window` pieces are held at once. When `take` fails, no
/// further piece is started and its error is answered.
pub fn make_in_order<T: Send, E>(
    count: usize,
    threads: usize,
    window: usize,
    make: impl Fn(usize) -> T + Sync,
    mut take: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E> {
    let threads = threads.clamp(1, count.max(1));
    let window = window.max(1);
    // (the next index to take, the pieces handed over)
    let progress = Mutex::new((0usize, 0usize));
    let moved = Condvar::new();
    let lock = || progress.lock().unwrap_or_else(|poison| poison.into_inner());
    std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel::<(usize, T)>();
        for _ in 0..threads {
            let done = done.clone();
            let (progress, moved, make) = (&progress, &moved, &make);
            scope.spawn(move || {
                loop {
                    let index = {
                        let mut state = progress.lock().unwrap_or_else(|poison| poison.into_inner());
                        while state.0 < count && state.0 >= state.1 + window {
                            state = moved.wait(state).unwrap_or_else(|poison| poison.into_inner());
                        }
                        if state.0 >= count {
                            return;
                        }
                        state.0 += 1;
                        state.0 - 1
                    };
                    if done.send((index, make(index))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        let mut waiting: BTreeMap<usize, T> = BTreeMap::new();
        let mut next = 0;
        let handed = (|| {
            for (index, piece) in &finished {
                waiting.insert(index, piece);
                while let Some(piece) = waiting.remove(&next) {
                    take(piece)?;
                    next += 1;
                    lock().1 = next;
                    moved.notify_all();
                }
            }
            Ok(())
        })();
        if handed.is_err() {
            // The threads stop taking pieces: nothing more will be handed over.
            lock().0 = count;
            moved.notify_all();
        }
        handed
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_taken_in_order_whatever_order_they_are_made_in() {
        for threads in [1, 2, 3, 8] {
            let mut taken = Vec::new();
            make_in_order(
                50,
                threads,
                2 * threads,
                |index| {
                    // Later pieces finish sooner.
                    std::thread::sleep(std::time::Duration::from_micros(((50 - index) * 40) as u64));
                    index
                },
                |piece| {
                    taken.push(piece);
                    Ok::<(), ()>(())
                },
            )
            .unwrap();
            assert_eq!(taken, (0..50).collect::<Vec<_>>(), "{threads} threads");
        }
    }

    #[test]
    fn a_failed_take_stops_the_making_and_is_answered() {
        let made = std::sync::atomic::AtomicUsize::new(0);
        let answer = make_in_order(
            1000,
            2,
            4,
            |index| {
                made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                index
            },
            |piece| if piece == 3 { Err("full disk") } else { Ok(()) },
        );
        assert_eq!(answer, Err("full disk"));
        // The window held the threads back: far fewer than all pieces were made.
        assert!(made.into_inner() < 20);
    }
}
