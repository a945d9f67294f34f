//! `StoreError`: what can go wrong in the store, in words for the API user, with the
//! internal cause kept as a source for the log.

use std::path::PathBuf;
use std::sync::Arc;

/// Cloneable, so that one failure to publish a batch can answer every change in it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The team, project or key does not exist (or is not visible to the caller).
    #[error("{0}")]
    NotFound(String),
    /// The change clashes with what exists: a taken name, an export name clash.
    #[error("{0}")]
    Conflict(String),
    /// The change breaks a rule: an unknown language, a duplicate language in one request.
    #[error("{0}")]
    Invalid(String),
    /// An `If-Match` precondition no longer holds: the resource changed since it was read.
    #[error("{0}")]
    PreconditionFailed(String),
    /// Something failed inside the store; the message is for the log only.
    #[error("{context}")]
    Internal {
        context: String,
        #[source]
        source: Arc<dyn std::error::Error + Send + Sync>,
    },
}

impl StoreError {
    pub fn internal(context: impl Into<String>, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Internal {
            context: context.into(),
            source: Arc::from(source.into()),
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        Self::internal(format!("file system operation on {} failed", path.display()), source)
    }
}

/// The engine's errors in the store's words: a conflict stays a conflict (409 with its
/// message), anything else is internal.
impl From<crate::gitdb::GitError> for StoreError {
    fn from(err: crate::gitdb::GitError) -> Self {
        match err {
            crate::gitdb::GitError::Conflict(message) => StoreError::Conflict(message),
            crate::gitdb::GitError::Internal { context, source } => StoreError::Internal { context, source },
        }
    }
}
