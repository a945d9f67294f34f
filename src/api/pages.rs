//! Pages of keys kept as they were answered: a page is a function of the commit it was read
//! at and its query (which is why its `ETag` is a hash of the two), so a page asked for again
//! before the next commit is the same bytes. Dashboards, CI pipelines polling for changes and
//! people paging back and forth ask for the same pages over and over; those get them without
//! a pass over the keys or their JSON being written again.
//!
//! Only the newest commit's pages are kept: a page of another commit replaces them all, and so
//! does one that would take the cache over its bounds. Nothing is ever answered from an older
//! commit, since the commit is part of what a page is looked up by.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use bytes::Bytes;
use poem::http::{HeaderMap, HeaderName, HeaderValue, header};

use super::json;
use crate::domain::query::PageInfo;

/// At most this many pages (of any size) are kept.
const MAX_PAGES: usize = 256;
/// At most this many bytes of pages are kept: a page of 1,000 keys in 50 languages is about
/// 1.5 MB, so a few of the largest still fit.
const MAX_BYTES: usize = 8 << 20;

/// A page of keys as answered: its JSON body, totals and entity tag, and the headers that
/// say them, made once for every time the page is answered.
#[derive(Clone)]
pub struct Page {
    pub body: Bytes,
    pub info: PageInfo,
    pub tag: String,
    pub headers: HeaderMap,
}

impl Page {
    pub fn new(body: Bytes, info: PageInfo, tag: String) -> Self {
        let mut headers = HeaderMap::with_capacity(8);
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(json::CONTENT_TYPE));
        for (name, value) in [
            ("x-pagination-total-count", info.total_count),
            ("x-pagination-page", info.page),
            ("x-pagination-limit", info.limit),
            ("x-pagination-page-count", info.page_count),
        ] {
            headers.insert(HeaderName::from_static(name), HeaderValue::from(value));
        }
        // A tag is quoted hex digits (`etag::tag`), always a valid header value.
        if let Ok(value) = HeaderValue::from_str(&tag) {
            headers.insert(header::ETAG, value);
        }
        Self {
            body,
            info,
            tag,
            headers,
        }
    }
}

/// The pages answered at the newest commit seen, by what they were asked as.
#[derive(Default)]
pub struct Pages {
    kept: RwLock<Kept>,
}

#[derive(Default)]
struct Kept {
    commit: String,
    pages: HashMap<String, Arc<Page>>,
    bytes: usize,
}

impl Pages {
    /// The page asked as `asked` at `commit`, if it was kept.
    pub fn get(&self, commit: &str, asked: &str) -> Option<Arc<Page>> {
        let kept = self.kept.read().unwrap_or_else(|poison| poison.into_inner());
        if kept.commit != commit {
            return None;
        }
        kept.pages.get(asked).cloned()
    }

    /// Keeps `page`, answered at `commit` for `asked`.
    pub fn put(&self, commit: &str, asked: String, page: Arc<Page>) {
        let size = page.body.len() + asked.len();
        if size > MAX_BYTES {
            return;
        }
        let mut kept = self.kept.write().unwrap_or_else(|poison| poison.into_inner());
        if kept.commit != commit || kept.pages.len() >= MAX_PAGES || kept.bytes + size > MAX_BYTES {
            kept.pages.clear();
            kept.bytes = 0;
            commit.clone_into(&mut kept.commit);
        }
        let asked_len = asked.len();
        if let Some(replaced) = kept.pages.insert(asked, page) {
            kept.bytes -= asked_len + replaced.body.len();
        }
        kept.bytes += size;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> Arc<Page> {
        Arc::new(Page::new(
            Bytes::copy_from_slice(body.as_bytes()),
            PageInfo {
                total_count: 1,
                page: 1,
                limit: 20,
                page_count: 1,
            },
            format!("\"{body}\""),
        ))
    }

    #[test]
    fn a_page_is_answered_only_at_the_commit_it_was_kept_at() {
        let pages = Pages::default();
        pages.put("c1", "acme/mobile page 1".into(), page("one"));
        assert_eq!(pages.get("c1", "acme/mobile page 1").unwrap().body, "one".as_bytes());
        assert!(pages.get("c1", "acme/mobile page 2").is_none());
        assert!(pages.get("c2", "acme/mobile page 1").is_none());
        // A page of a newer commit replaces the older commit's pages.
        pages.put("c2", "acme/mobile page 2".into(), page("two"));
        assert!(pages.get("c1", "acme/mobile page 1").is_none());
        assert_eq!(pages.get("c2", "acme/mobile page 2").unwrap().body, "two".as_bytes());
    }

    #[test]
    fn the_cache_stays_within_its_bounds() {
        let pages = Pages::default();
        for number in 0..MAX_PAGES + 10 {
            pages.put("c1", format!("page {number}"), page("body"));
            let kept = pages.kept.read().unwrap();
            assert!(kept.pages.len() <= MAX_PAGES && kept.bytes <= MAX_BYTES);
        }
        let big = "x".repeat(MAX_BYTES / 2);
        pages.put("c1", "big 1".into(), page(&big));
        pages.put("c1", "big 2".into(), page(&big));
        assert!(pages.kept.read().unwrap().bytes <= MAX_BYTES);
        assert!(pages.get("c1", "big 2").is_some());
        pages.put("c1", "too big".into(), page(&"x".repeat(MAX_BYTES + 1)));
        assert!(pages.get("c1", "too big").is_none());
    }
}
