//! Reading many large blobs at once: each inflated on a core of its own, with a repository
//! handle per thread (`git2::Repository` is not `Sync`).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use git2::{Oid, Repository};

/// The contents of the blobs `ids` of the repository at `git_dir`, in their order, read on
/// up to four threads.
pub fn read_all(git_dir: &Path, ids: &[Oid]) -> Result<Vec<Vec<u8>>, git2::Error> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(4)
        .min(ids.len());
    if threads <= 1 {
        let repo = Repository::open(git_dir)?;
        return ids
            .iter()
            .map(|id| Ok(repo.find_blob(*id)?.content().to_vec()))
            .collect();
    }
    let next = AtomicUsize::new(0);
    let read: Vec<Vec<(usize, Vec<u8>)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let repo = Repository::open(git_dir)?;
                    let mut read = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(id) = ids.get(index) else { break };
                        read.push((index, repo.find_blob(*id)?.content().to_vec()));
                    }
                    Ok::<_, git2::Error>(read)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect::<Result<_, _>>()
    })?;
    let mut blobs = vec![Vec::new(); ids.len()];
    for (index, blob) in read.into_iter().flatten() {
        blobs[index] = blob;
    }
    Ok(blobs)
}
