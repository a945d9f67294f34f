//! Reads through git's own command line where it is much faster than libgit2 on large
//! histories and trees: many blobs at once with `git cat-file --batch`, which reads about
//! twice as fast as libgit2 (its delta base cache suits a walk over a whole pack), and runs
//! on another core while the caller parses what arrives. `git` is on the PATH already for
//! repository maintenance; callers fall back to libgit2 when it is not.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use git2::Oid;

/// Hands every blob of `ids` to `visit` (its position in `ids` and its bytes), in order.
pub fn cat_blobs(git_dir: &Path, ids: &[Oid], mut visit: impl FnMut(usize, &[u8])) -> std::io::Result<()> {
    let mut child = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let result = std::thread::scope(|scope| {
        // Ids go in on a thread of their own: git answers while it reads, and a full pipe
        // each way would otherwise stop both.
        let feeder = scope.spawn(move || -> std::io::Result<()> {
            // Dropped at the end, which closes git's input.
            let mut input = std::io::BufWriter::with_capacity(1 << 16, stdin);
            for id in ids {
                writeln!(input, "{id}")?;
            }
            input.flush()
        });
        let read = read_batch(BufReader::with_capacity(1 << 16, stdout), ids, &mut visit);
        let fed = feeder
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("a thread panicked")));
        read.and(fed)
    });
    let status = child.wait()?;
    result?;
    if !status.success() {
        return Err(std::io::Error::other(format!("git cat-file failed: {status}")));
    }
    Ok(())
}

fn read_batch(mut output: impl BufRead, ids: &[Oid], visit: &mut impl FnMut(usize, &[u8])) -> std::io::Result<()> {
    let mut header = String::new();
    let mut content = Vec::new();
    for (position, id) in ids.iter().enumerate() {
        header.clear();
        output.read_line(&mut header)?;
        // `{id} blob {size}`, or `{id} missing`.
        let mut fields = header.split_whitespace();
        let (Some(answered), Some(kind), Some(size)) = (fields.next(), fields.next(), fields.next()) else {
            return Err(std::io::Error::other(format!(
                "git cat-file: {} for {id}",
                header.trim()
            )));
        };
        if answered != id.to_string() || kind != "blob" {
            return Err(std::io::Error::other(format!(
                "git cat-file answered {} for {id}",
                header.trim()
            )));
        }
        let size: usize = size
            .parse()
            .map_err(|_| std::io::Error::other("git cat-file: a bad size"))?;
        content.resize(size + 1, 0);
        output.read_exact(&mut content)?;
        visit(position, &content[..size]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every blob comes back whole and in the order asked, also an empty one, one with
    /// newlines and binary bytes, and the same one twice.
    #[test]
    fn cat_blobs_reads_what_libgit2_reads() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let contents: Vec<Vec<u8>> = vec![
            b"name = \"a\"\n".to_vec(),
            Vec::new(),
            b"line\n\nline\n".to_vec(),
            (0..=255u8).cycle().take(100_000).collect(),
        ];
        let mut ids: Vec<Oid> = contents.iter().map(|bytes| repo.blob(bytes).unwrap()).collect();
        ids.push(ids[0]);
        let mut seen = Vec::new();
        cat_blobs(repo.path(), &ids, |position, bytes| {
            seen.push((position, bytes.to_vec()))
        })
        .unwrap();
        assert_eq!(seen.len(), ids.len());
        for (position, bytes) in seen {
            assert_eq!(bytes, repo.find_blob(ids[position]).unwrap().content());
        }
        let missing = Oid::from_str("0123456789012345678901234567890123456789").unwrap();
        assert!(cat_blobs(repo.path(), &[missing], |_, _| {}).is_err());
    }
}
