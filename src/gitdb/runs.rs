//! Work on a list cut into runs of about the same size, one thread each: what the writer
//! does with a large commit's files (hashing, writing, compressing), where a few large files
//! (an upload's kept files) sit among thousands of small ones.

/// `items` cut into at most `count` runs in order, each of about the same size by `size`
/// (plus one per item), none empty (one, empty, when there are no items).
pub(super) fn of_equal_size<T>(items: &[T], count: usize, size: impl Fn(&T) -> usize) -> Vec<&[T]> {
    let count = count.max(1);
    let total: usize = items.iter().map(|item| size(item) + 1).sum();
    let share = total.div_ceil(count).max(1);
    let mut runs = Vec::with_capacity(count);
    let (mut start, mut gathered) = (0, 0);
    for (index, item) in items.iter().enumerate() {
        gathered += size(item) + 1;
        if gathered >= share && runs.len() + 1 < count {
            runs.push(&items[start..=index]);
            (start, gathered) = (index + 1, 0);
        }
    }
    if start < items.len() || runs.is_empty() {
        runs.push(&items[start..]);
    }
    runs
}

/// `work` done on each of up to `threads` runs of `items` ([`of_equal_size`]), the first on
/// the calling thread and each other on a thread of its own; the answers in the runs' order.
pub(super) fn on_threads<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    size: impl Fn(&T) -> usize,
    work: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let runs = of_equal_size(items, threads, size);
    let work = &work;
    std::thread::scope(|scope| {
        let others: Vec<_> = runs[1..].iter().map(|run| scope.spawn(move || work(run))).collect();
        let mine = work(runs[0]);
        std::iter::once(mine)
            .chain(
                others
                    .into_iter()
                    .map(|other| other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))),
            )
            .collect()
    })
}

/// The threads a large commit's work may take: the machine's cores, up to four.
pub(super) fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from).min(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_cut_into_runs_of_about_equal_size_in_order() {
        let items = [10, 1000, 10, 10, 1000, 10];
        let runs = |count: usize| of_equal_size(&items, count, |size| *size);
        assert_eq!(runs(1), [&items[..]]);
        assert_eq!(runs(2), [&items[..3], &items[3..]]);
        // No more runs than items, and none empty.
        assert_eq!(of_equal_size(&items[..1], 4, |size| *size), [&items[..1]]);
        assert_eq!(of_equal_size(&[] as &[usize], 2, |size| *size), [&[] as &[usize]]);
    }

    #[test]
    fn each_run_is_worked_on_and_the_answers_come_in_order() {
        let items: Vec<usize> = (0..100).collect();
        let sums = on_threads(&items, 3, |_| 1, |run| run.iter().sum::<usize>());
        assert_eq!(sums.len(), 3);
        assert_eq!(sums.iter().sum::<usize>(), (0..100).sum::<usize>());
        let firsts = on_threads(&items, 3, |_| 1, |run| run[0]);
        assert!(firsts.is_sorted() && firsts[0] == 0, "{firsts:?}");
    }
}
