//! libgit2's settings for the whole process, made once before the first repository opens,
//! and the process's limit of open files that they call for.

use git2::ObjectType;

/// Bytes of parsed objects libgit2 keeps, for all repositories of the process together
/// (libgit2's default). Past the limit, every object a repository caches makes it drop some
/// of its own, the first ones of its table, and a repository with few cached objects drops
/// them all: at 32 MB the writer's trees kept the process past it once a project had tens of
/// thousands of keys, the webhooks' feed (a repository opened anew every few dozen packs)
/// could cache nothing, and its CPU per delivery grew round after round (BENCHMARKS.md).
const OBJECT_CACHE_BYTES: isize = 256 << 20;
/// A hard limit of open files below this is reported at start (see `raise_open_files_limit`).
const FEW_OPEN_FILES: libc::rlim_t = 8192;

/// Process-wide libgit2 settings for a store that commits often into large trees.
pub(super) fn tune_libgit2() {
    static TUNED: std::sync::Once = std::sync::Once::new();
    TUNED.call_once(|| {
        // Every commit reads the trees on the path to the key; trees of folders with many
        // entries (a project's, a team's list) can pass libgit2's default 4 KiB cache limit
        // for trees, and would be read and inflated again for every commit.
        // SAFETY: libgit2 options are set once, before any repository is used.
        if let Err(err) = unsafe { git2::opts::set_cache_object_limit(ObjectType::Tree, 4 << 20) } {
            tracing::warn!(error = %err, "cannot raise libgit2's tree cache limit");
        }
        // The cache's limit (see `OBJECT_CACHE_BYTES`).
        // SAFETY: as above.
        if let Err(err) = unsafe { git2::opts::set_cache_max_size(OBJECT_CACHE_BYTES) } {
            tracing::warn!(error = %err, "cannot cap libgit2's object cache");
        }
        // No cap on the pack files libgit2 keeps open (its default). With a cap, opening a
        // pack past it closes the least recently used one, and libgit2 does that after
        // letting go of its global lock: when another thread let go of that pack meanwhile
        // (the writer reopening, the webhooks' feed starting over, maintenance), the closing
        // wrote into freed memory. Under load with webhooks, where the writer publishes
        // hundreds of small packs a second, the cap of 256 was reached all the time and the
        // server died of a corrupted heap in a third of the bench's runs (BENCHMARKS.md,
        // session 27). The packs held open are those on disk until maintenance merges them
        // (a thousand or two between two runs under such a stream) and those merged away
        // until each handle starts over; the process's limit of open files is raised to what
        // the system allows for them.
        // SAFETY: as above.
        if let Err(err) = unsafe { git2::opts::set_mwindow_file_limit(0) } {
            tracing::warn!(error = %err, "cannot lift libgit2's cap on open pack files");
        }
        raise_open_files_limit();
        // Objects referenced by new trees and commits were just written or read by this
        // process, so checking that they exist, and re-hashing every object read, only costs
        // time; `git fsck` checks the repository as a whole.
        git2::opts::strict_object_creation(false);
        git2::opts::strict_hash_verification(false);
    });
}

/// Raises the process's soft limit of open files to its hard limit (as Go's runtime does for
/// every program): each pack is an open file until maintenance merges it away, and under a
/// stream of writes a few thousand can be there between two runs (BENCHMARKS.md).
fn raise_open_files_limit() {
    let Some(mut limit) = open_files_limit() else {
        return;
    };
    if limit.rlim_max < FEW_OPEN_FILES {
        tracing::warn!(
            limit = limit.rlim_max,
            "the limit of open files is low for a server that keeps a file open per pack: raise it (ulimit -Hn, LimitNOFILE=)"
        );
    }
    if limit.rlim_cur >= limit.rlim_max {
        return;
    }
    let soft = limit.rlim_cur;
    limit.rlim_cur = limit.rlim_max;
    // SAFETY: setrlimit only reads the struct it is given.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raw const limit) } == 0 {
        tracing::debug!(from = soft, to = limit.rlim_max, "raised the limit of open files");
    }
}

/// The process's limits of open files (soft and hard), if they can be read.
pub(super) fn open_files_limit() -> Option<libc::rlimit> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    (unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit) } == 0).then_some(limit)
}
