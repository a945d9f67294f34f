//! The order Xcode writes a catalog's keys in.

use std::cmp::Ordering;
use std::sync::OnceLock;

use icu_collator::options::CollatorOptions;
use icu_collator::preferences::CollationNumericOrdering;
use icu_collator::{Collator, CollatorBorrowed, CollatorPreferences};

/// The order Xcode writes an object's keys in: the root locale's collation (punctuation and
/// symbols before digits before letters, case and accents compared last), numbers by value;
/// strings it finds equal by their code points.
pub fn xcode_order(a: &str, b: &str) -> Ordering {
    collator().compare(a, b).then_with(|| a.cmp(b))
}

fn collator() -> &'static CollatorBorrowed<'static> {
    static COLLATOR: OnceLock<CollatorBorrowed<'static>> = OnceLock::new();
    COLLATOR.get_or_init(|| {
        let mut preferences = CollatorPreferences::default();
        preferences.numeric_ordering = Some(CollationNumericOrdering::True);
        Collator::try_new(preferences, CollatorOptions::default()).expect("the root collation is compiled in")
    })
}

/// Sorts in [`xcode_order`], working out each item's collation key once (a catalog of
/// 100,000 keys compares names two million times), the keys of a large list on every core.
pub fn sort_in_xcode_order<T: Sync>(items: &mut [T], name: impl Fn(&T) -> &str + Sync) {
    let collator = collator();
    let key_of = |item: &T| {
        let mut key = Vec::with_capacity(name(item).len() * 3);
        let Ok(()) = collator.write_sort_key_to(name(item), &mut key);
        key
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 4);
    let share = items.len().div_ceil(threads).max(4096);
    let keys: Vec<Vec<u8>> = std::thread::scope(|scope| {
        let mut chunks = items.chunks(share);
        let first = chunks.next().unwrap_or_default();
        let others: Vec<_> = chunks
            .map(|chunk| scope.spawn(move || chunk.iter().map(key_of).collect::<Vec<_>>()))
            .collect();
        let mut keys: Vec<Vec<u8>> = first.iter().map(key_of).collect();
        for other in others {
            keys.extend(other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        keys
    });
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_unstable_by(|&a, &b| keys[a].cmp(&keys[b]).then_with(|| name(&items[a]).cmp(name(&items[b]))));
    // Applies the permutation: the item at `order[i]` goes to `i`.
    let mut place: Vec<usize> = vec![0; items.len()];
    for (to, &from) in order.iter().enumerate() {
        place[from] = to;
    }
    for at in 0..items.len() {
        while place[at] != at {
            let to = place[at];
            items.swap(at, to);
            place.swap(at, to);
        }
    }
}
