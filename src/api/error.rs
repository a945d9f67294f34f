//! The one API error: status, stable `code`, a message a person can act on, and the JSON body
//! `{"success": false, "error": {"code", "message"}}`. Internal causes go to the log, never
//! into a body.

use poem::http::StatusCode;
use poem::{IntoResponse, Response};
use poem_openapi::ApiResponse;
use poem_openapi::payload::Json;

use super::schema::{ErrorBody, ErrorDetail};
use crate::domain::names::NameError;
use crate::store::StoreError;

/// An error answer of the API. Every operation documents all of these.
#[derive(Debug, ApiResponse)]
pub enum ApiError {
    /// `invalid_request`: malformed JSON, a missing or mistyped field, an invalid name or
    /// language, an unknown export type, or a page or limit out of range.
    #[oai(status = 400)]
    InvalidRequest(Json<ErrorBody>),
    /// `unauthorized`: the `X-Api-Token` header is missing or holds an unknown token.
    #[oai(status = 401)]
    Unauthorized(Json<ErrorBody>),
    /// `forbidden`: the token's access level does not allow this operation.
    #[oai(status = 403)]
    Forbidden(Json<ErrorBody>),
    /// `not_found`: the team, project or key does not exist (or the token cannot see its team).
    #[oai(status = 404)]
    NotFound(Json<ErrorBody>),
    /// `conflict`: the name is taken (without regard to case for teams and projects), two
    /// exported keys map to the same Android resource name, or a team or project to rename or
    /// delete has branches.
    #[oai(status = 409)]
    Conflict(Json<ErrorBody>),
    /// `payload_too_large`: the request body is over the server's limit.
    #[oai(status = 413)]
    PayloadTooLarge(Json<ErrorBody>),
    /// `unsupported_media_type`: the body is not sent as `application/json`.
    #[oai(status = 415)]
    UnsupportedMediaType(Json<ErrorBody>),
    /// `precondition_failed`: `If-Match` names a state the resource is no longer in.
    #[oai(status = 412)]
    PreconditionFailed(Json<ErrorBody>),
    /// `read_only`: this server is a read replica (`serve --replica-of`); the message names
    /// the primary to send changes to when it is known.
    #[oai(status = 405)]
    ReadOnly(Json<ErrorBody>),
    /// `internal`: the server failed; the details are in its log.
    #[oai(status = 500)]
    Internal(Json<ErrorBody>),
}

impl ApiError {
    /// The error of one file set of an upload of several (`set`, its place in the upload's
    /// `sets.json`), its message saying which.
    pub fn in_set(self, set: usize) -> Self {
        match self {
            Self::InvalidRequest(Json(mut body)) => {
                body.error.message = format!("file set {set}: {}", body.error.message);
                Self::InvalidRequest(Json(body))
            }
            other => other,
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidRequest(body("invalid_request", message))
    }

    pub fn unauthorized() -> Self {
        Self::Unauthorized(body(
            "unauthorized",
            "Send a valid API token in the X-Api-Token header.",
        ))
    }

    /// A 401 with its own message (a hook's secret rather than a token).
    pub fn unauthorized_because(message: impl Into<String>) -> Self {
        Self::Unauthorized(body("unauthorized", message))
    }

    /// The answer of a read replica to a change.
    pub fn read_only(primary: Option<&str>) -> Self {
        let message = match primary {
            Some(primary) => format!("This server is a read replica; send changes to the primary at {primary}."),
            None => "This server is a read replica; send changes to the primary.".to_owned(),
        };
        Self::ReadOnly(body("read_only", message))
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::Forbidden(body("forbidden", message))
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::NotFound(body("not_found", message))
    }

    pub fn payload_too_large(message: impl Into<String>) -> Self {
        Self::PayloadTooLarge(body("payload_too_large", message))
    }

    pub fn precondition_failed(message: impl Into<String>) -> Self {
        Self::PreconditionFailed(body("precondition_failed", message))
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::Conflict(body("conflict", message))
    }

    pub fn internal() -> Self {
        Self::Internal(body(
            "internal",
            "The server failed to handle the request; the details are in its log.",
        ))
    }
}

impl From<NameError> for ApiError {
    fn from(err: NameError) -> Self {
        Self::invalid(err.0)
    }
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::NotFound(message) => Self::not_found(message),
            StoreError::Conflict(message) => Self::conflict(message),
            StoreError::Invalid(message) => Self::invalid(message),
            StoreError::PreconditionFailed(message) => Self::precondition_failed(message),
            internal @ StoreError::Internal { .. } => {
                tracing::error!(error = %error_chain(&internal), "store failure");
                Self::internal()
            }
        }
    }
}

fn body(code: &str, message: impl Into<String>) -> Json<ErrorBody> {
    Json(ErrorBody {
        success: false,
        error: ErrorDetail {
            code: code.into(),
            message: message.into(),
        },
    })
}

/// The error and its sources, for the log.
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The body limits an error message names (the server's settings, handed in by the app).
#[derive(Debug, Clone, Copy)]
pub struct BodyLimits {
    pub max_body_bytes: usize,
    pub max_import_bytes: usize,
    pub request_timeout: std::time::Duration,
}

/// Turns an error that poem or poem-openapi raised itself (unknown route, wrong method, bad
/// JSON, wrong content type, missing token, body too large) into the JSON error shape.
/// Responses that are already JSON errors of ours pass through unchanged.
pub fn render_poem_error(err: poem::Error, method: &str, path: &str, limits: &BodyLimits) -> Response {
    let status = err.status();
    let detail = err.to_string();
    let response = err.into_response();
    let is_json = response
        .content_type()
        .is_some_and(|content_type| content_type.starts_with("application/json"));
    if is_json {
        return response;
    }
    let error = match status {
        StatusCode::NOT_FOUND => body(
            "not_found",
            format!("There is no route for {method} {path}; see /docs for the API."),
        ),
        StatusCode::METHOD_NOT_ALLOWED => body(
            "method_not_allowed",
            format!("{method} is not allowed on {path}; see /docs for the API."),
        ),
        StatusCode::REQUEST_TIMEOUT => body(
            "request_timeout",
            format!(
                "The request was not received within {}; send it faster.",
                humantime::format_duration(limits.request_timeout)
            ),
        ),
        StatusCode::UNAUTHORIZED => body("unauthorized", "Send a valid API token in the X-Api-Token header."),
        StatusCode::PAYLOAD_TOO_LARGE => body(
            "payload_too_large",
            format!(
                "The request body is larger than the limit of {} bytes ({} for key imports).",
                limits.max_body_bytes, limits.max_import_bytes
            ),
        ),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => body(
            "unsupported_media_type",
            "Send the request body as JSON with the header Content-Type: application/json.",
        ),
        status if status.is_client_error() => body("invalid_request", format!("The request is invalid: {detail}.")),
        _ => {
            tracing::error!(%status, error = %detail, "request failed");
            body(
                "internal",
                "The server failed to handle the request; the details are in its log.",
            )
        }
    };
    (status, error).into_response()
}
