//! The key query as pure functions: keyword matching, order and paging.

/// Largest page size a client may ask for.
pub const MAX_LIMIT: u64 = 1000;

/// Order of the query result, by key name in code point order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortOrder {
    #[default]
    Asc,
    Desc,
}

/// A validated key query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyQuery {
    /// Lower-cased keyword; `None` matches every key.
    pub keyword: Option<String>,
    pub page: u64,
    pub limit: u64,
    pub sort: SortOrder,
    /// Only the keys of this namespace (`Some("")`: the default one); `None`: every key.
    pub namespace: Option<String>,
}

/// The totals that travel in the `X-Pagination-*` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageInfo {
    pub total_count: u64,
    pub page: u64,
    pub limit: u64,
    pub page_count: u64,
}

impl KeyQuery {
    /// Builds a query from the raw parameters, with the contract's bounds.
    pub fn new(
        keyword: Option<&str>,
        page: Option<i64>,
        limit: Option<i64>,
        sort: Option<&str>,
    ) -> Result<Self, String> {
        let page = page.unwrap_or(1);
        if page < 1 {
            return Err(format!("page must be 1 or more, not {page}."));
        }
        let limit = limit.unwrap_or(20);
        if !(1..=MAX_LIMIT as i64).contains(&limit) {
            return Err(format!("limit must be between 1 and {MAX_LIMIT}, not {limit}."));
        }
        let sort = match sort {
            None | Some("asc") => SortOrder::Asc,
            Some("desc") => SortOrder::Desc,
            Some(other) => {
                return Err(format!(
                    "sort must be 'asc' or 'desc', not {}.",
                    super::names::quote_for_message(other)
                ));
            }
        };
        let keyword = keyword.filter(|k| !k.is_empty()).map(str::to_lowercase);
        Ok(Self {
            keyword,
            page: page as u64,
            limit: limit as u64,
            sort,
            namespace: None,
        })
    }

    /// The same query limited to one namespace (`None`: all of them).
    pub fn in_namespace(mut self, namespace: Option<String>) -> Self {
        self.namespace = namespace;
        self
    }

    /// Whether a key of `namespace` is within the query's namespace.
    pub fn takes_namespace(&self, namespace: &str) -> bool {
        self.namespace.as_deref().is_none_or(|wanted| wanted == namespace)
    }

    /// Index range of the requested page within `total` matches.
    pub fn page_range(&self, total: usize) -> std::ops::Range<usize> {
        let start = (self.page - 1).saturating_mul(self.limit).min(total as u64) as usize;
        let end = (start as u64).saturating_add(self.limit).min(total as u64) as usize;
        start..end
    }

    pub fn page_info(&self, total: usize) -> PageInfo {
        let total_count = total as u64;
        PageInfo {
            total_count,
            page: self.page,
            limit: self.limit,
            page_count: total_count.div_ceil(self.limit),
        }
    }

    /// Picks the page out of `items` (sorted ascending), applying the sort order.
    /// Takes only the page's items, so a page of 100,000 keys costs as much as one of 20.
    pub fn select<'a, T>(&self, items: &'a [T]) -> Vec<&'a T> {
        let total = items.len();
        let range = self.page_range(total);
        match self.sort {
            SortOrder::Asc => items[range].iter().collect(),
            // Page `n` of the descending order is the mirror image of a range of the ascending one.
            SortOrder::Desc => items[total - range.end..total - range.start].iter().rev().collect(),
        }
    }
}

/// Whether a lower-cased keyword occurs in any of the lower-cased fields.
pub fn matches_keyword<'a>(keyword: &str, mut lowered_fields: impl Iterator<Item = &'a str>) -> bool {
    lowered_fields.any(|field| field.contains(keyword))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(page: i64, limit: i64, sort: &str) -> KeyQuery {
        KeyQuery::new(None, Some(page), Some(limit), Some(sort)).unwrap()
    }

    #[test]
    fn bounds_are_checked() {
        assert!(KeyQuery::new(None, Some(0), None, None).is_err());
        assert!(KeyQuery::new(None, Some(-3), None, None).is_err());
        assert!(KeyQuery::new(None, None, Some(0), None).is_err());
        assert!(KeyQuery::new(None, None, Some(1001), None).is_err());
        assert!(KeyQuery::new(None, None, None, Some("up")).is_err());
        assert!(KeyQuery::new(None, Some(i64::MAX), Some(1000), Some("desc")).is_ok());
    }

    #[test]
    fn pages_slice_in_both_orders() {
        let refs: Vec<u32> = (0..5).collect();
        assert_eq!(query(1, 2, "asc").select(&refs), [&0, &1]);
        assert_eq!(query(3, 2, "asc").select(&refs), [&4]);
        assert_eq!(query(1, 2, "desc").select(&refs), [&4, &3]);
        assert_eq!(query(3, 2, "desc").select(&refs), [&0]);
        assert!(query(4, 2, "asc").select(&refs).is_empty());
        assert!(query(i64::MAX, 1000, "desc").select(&refs).is_empty());
    }

    #[test]
    fn page_count_rounds_up_and_is_zero_when_empty() {
        assert_eq!(query(1, 2, "asc").page_info(5).page_count, 3);
        assert_eq!(query(1, 2, "asc").page_info(0).page_count, 0);
    }

    #[test]
    fn keyword_is_lowercased_and_empty_keyword_matches_all() {
        let q = KeyQuery::new(Some("ÉTÉ"), None, None, None).unwrap();
        assert_eq!(q.keyword.as_deref(), Some("été"));
        assert!(KeyQuery::new(Some(""), None, None, None).unwrap().keyword.is_none());
        assert!(matches_keyword("été", ["hello", "bel été"].into_iter()));
    }
}
