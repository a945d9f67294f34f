//! The `X-Api-Token` security scheme: the token becomes the [`Caller`], whose rights each
//! handler checks with [`Caller`]'s helpers below.

use std::sync::Arc;

use poem::Request;
use poem_openapi::SecurityScheme;
use poem_openapi::auth::ApiKey;

use super::error::ApiError;
use crate::domain::names::{TeamName, quote_for_message};
use crate::tokens::{Access, Caller, TokenRegistry};

/// An API token sent in the `X-Api-Token` header. Create tokens with `locstore token create`.
#[derive(SecurityScheme)]
#[oai(ty = "api_key", key_name = "X-Api-Token", key_in = "header", checker = "check_token")]
pub struct TokenAuth(pub Caller);

async fn check_token(request: &Request, api_key: ApiKey) -> Option<Caller> {
    let registry = request.data::<Arc<TokenRegistry>>()?;
    registry.verify(&api_key.key)
}

impl TokenAuth {
    /// The caller, if it may see `team`; otherwise the team does not exist for it.
    pub fn team(&self, team: TeamName) -> Result<TeamName, ApiError> {
        if self.0.sees_team(&team) {
            Ok(team)
        } else {
            Err(ApiError::not_found(format!(
                "There is no team named {}.",
                quote_for_message(team.as_str())
            )))
        }
    }

    /// Fails with 403 unless the caller's access is at least `access`.
    pub fn require(&self, access: Access) -> Result<(), ApiError> {
        if self.0.may(access) {
            return Ok(());
        }
        let needed = match access {
            Access::Read => "read",
            Access::Write => "write",
            Access::Admin => "admin",
        };
        Err(ApiError::forbidden(format!(
            "The token {:?} may not do this; it needs {needed} access.",
            self.0.name
        )))
    }

    pub fn author(&self) -> &str {
        &self.0.name
    }
}
