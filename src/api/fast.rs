//! The hottest read, answered before the router: a plain page of keys
//! (`GET /teams/{team}/projects/{project}/keys`, with no more than `keyword`, `page`, `limit`,
//! `sort` and `namespace`), which clients and CI pipelines ask for far more than anything else.
//!
//! The OpenAPI handler ([`super::keys`]) stays the operation's one definition: its document,
//! its validation and every answer but the plain `200`. [`FastReads`] answers only a request
//! it can read without doubt and that succeeds: a valid token that sees the team, names that
//! parse, values that parse as the handler's would, no body, no `If-None-Match`. Anything
//! else, an error included, goes on unchanged to the router and the OpenAPI service, which
//! answer it as before. The page, its tag and its headers come from the same function on both
//! paths ([`keys::plain_page`]), so both answer a request alike (tests/api/keys.rs compares
//! them). It sits inside the layer that logs each request, counts it and names its commit, and
//! outside those a plain page has no use for (the router, reading the body, the replica's
//! refusal of changes, the request's data): together they cost a fifth of its throughput.

use std::sync::Arc;

use poem::http::{Method, StatusCode, header};
use poem::{Endpoint, IntoResponse, Request, Response};

use super::{AppState, keys};
use crate::domain::names::{Namespace, ProjectName, TeamName};
use crate::domain::query::KeyQuery;
use crate::tokens::TokenRegistry;

/// The OpenAPI service `inner`, with the plain page of keys answered before it.
pub struct FastReads<E> {
    inner: E,
    state: Arc<AppState>,
    tokens: Arc<TokenRegistry>,
}

impl<E> FastReads<E> {
    pub fn new(inner: E, state: Arc<AppState>, tokens: Arc<TokenRegistry>) -> Self {
        Self { inner, state, tokens }
    }
}

impl<E: Endpoint> Endpoint for FastReads<E> {
    type Output = Response;

    async fn call(&self, request: Request) -> poem::Result<Response> {
        if let Some(response) = self.page(&request).await {
            return Ok(response);
        }
        self.inner.call(request).await.map(IntoResponse::into_response)
    }
}

/// The query parameters a plain page may have.
#[derive(Default)]
struct PageParams {
    keyword: Option<String>,
    page: Option<i64>,
    limit: Option<i64>,
    sort: Option<&'static str>,
    namespace: Option<String>,
}

impl<E> FastReads<E> {
    /// The page `request` asks for, or `None` when the OpenAPI handler is to answer it.
    async fn page(&self, request: &Request) -> Option<Response> {
        let headers = request.headers();
        if request.method() != Method::GET
            || headers.contains_key(header::IF_NONE_MATCH)
            || headers.contains_key(header::TRANSFER_ENCODING)
            || headers.get(header::CONTENT_LENGTH).is_some_and(|length| length != "0")
        {
            return None;
        }
        let (team, project) = keys_path(request.uri().path())?;
        let token = headers.get("x-api-token")?.to_str().ok()?;
        let caller = self.tokens.verify(token)?;
        if !caller.sees_team(&team) {
            return None;
        }
        let params = page_params(request)?;
        let query = KeyQuery::new(params.keyword.as_deref(), params.page, params.limit, params.sort)
            .ok()?
            .in_namespace(params.namespace);
        let page = keys::plain_page(&self.state, &team, &project, &query).await.ok()?;
        let mut response = Response::builder().status(StatusCode::OK).body(page.body.clone());
        *response.headers_mut() = page.headers.clone();
        Some(response)
    }
}

/// The team and project of a `/teams/{team}/projects/{project}/keys` path, when both are
/// valid names written without percent-escapes.
fn keys_path(path: &str) -> Option<(TeamName, ProjectName)> {
    let mut parts = path.strip_prefix("/teams/")?.split('/');
    let team = parts.next()?;
    let (Some("projects"), Some(project), Some("keys"), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    if team.contains('%') || project.contains('%') {
        return None;
    }
    Some((TeamName::parse(team).ok()?, ProjectName::parse(project).ok()?))
}

/// The parameters of a plain page, decoded as poem-openapi decodes them; `None` for any other
/// parameter, a repeated one, or a value the handler would refuse or read otherwise.
fn page_params(request: &Request) -> Option<PageParams> {
    let mut params = PageParams::default();
    if request.uri().query().is_none_or(str::is_empty) {
        return Some(params);
    }
    let pairs: Vec<(String, String)> = request.params().ok()?;
    for (name, value) in pairs {
        let fresh = match name.as_str() {
            "keyword" => params.keyword.replace(value).is_none(),
            "page" => params.page.replace(value.parse().ok()?).is_none(),
            "limit" => params.limit.replace(value.parse().ok()?).is_none(),
            "sort" => {
                let sort = match value.as_str() {
                    "asc" => "asc",
                    "desc" => "desc",
                    _ => return None,
                };
                params.sort.replace(sort).is_none()
            }
            "namespace" => {
                let namespace = Namespace::parse(&value).ok()?;
                params.namespace.replace(namespace.as_str().to_owned()).is_none()
            }
            _ => return None,
        };
        if !fresh {
            return None;
        }
    }
    Some(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_keys_path_with_valid_names_is_taken() {
        let (team, project) = keys_path("/teams/acme/projects/mobile/keys").unwrap();
        assert_eq!((team.as_str(), project.as_str()), ("acme", "mobile"));
        for path in [
            "/teams/acme/projects/mobile/keys/",
            "/teams/acme/projects/mobile/keys/home.title",
            "/teams/acme/projects/mobile",
            "/teams/ac%6De/projects/mobile/keys",
            "/teams/-acme/projects/mobile/keys",
            "/teams/acme/projectz/mobile/keys",
            "/teams//projects/mobile/keys",
        ] {
            assert!(keys_path(path).is_none(), "{path}");
        }
    }

    fn page_params(query: &str) -> Option<PageParams> {
        let uri = format!("/teams/acme/projects/mobile/keys?{query}");
        super::page_params(&Request::builder().uri(uri.parse().unwrap()).finish())
    }

    #[test]
    fn parameters_the_handler_reads_otherwise_are_left_to_it() {
        let params = page_params("keyword=a+b%21&page=2&limit=50&sort=desc&namespace=").unwrap();
        assert_eq!(params.keyword.as_deref(), Some("a b!"));
        assert_eq!(
            (params.page, params.limit, params.sort),
            (Some(2), Some(50), Some("desc"))
        );
        assert_eq!(params.namespace.as_deref(), Some(""));
        for query in [
            "page=1&page=2",
            "page=",
            "page=x",
            "sort=ASC",
            "tags=a",
            "at=HEAD",
            "branch=feature",
            "namespace=%2Fa",
            "unknown=1",
        ] {
            assert!(page_params(query).is_none(), "{query}");
        }
    }
}
