//! Webhook handlers: a team's receivers of its commits, managed by admins.

use std::sync::Arc;

use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, Object, OpenApi};

use super::auth::TokenAuth;
use super::error::ApiError;
use super::schema::{DescriptionParam, ProjectNameParam, Success, TeamNameParam};
use super::teams::Done;
use super::{ApiTags, AppState};
use crate::domain::names::TeamName;
use crate::tokens::Access;
use crate::webhooks::{Attempt, NewWebhook, WebhookError, WebhookPatch, WebhookView, payload};

pub struct WebhooksApi {
    pub state: Arc<AppState>,
}

/// A new webhook.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CreateWebhookRequest {
    /// Where deliveries are `POST`ed: an `http://` or `https://` address.
    #[oai(validator(min_length = 1, max_length = 2048, pattern = r"^https?://[^\s/?#]+[^\s]*$"))]
    pub url: String,
    /// The event types delivered (`key.updated`, or a whole group: `key.*`); absent, null or
    /// empty: all. A commit with none of them is not delivered.
    #[oai(
        nullable,
        validator(pattern = r"^(team|project|key)\.(created|updated|renamed|deleted|\*)$")
    )]
    pub events: Option<Vec<String>>,
    /// The projects whose changes are delivered; absent, null or empty: all of the team's.
    #[oai(nullable)]
    pub projects: Option<Vec<ProjectNameParam>>,
    /// What the webhook is for.
    #[oai(nullable)]
    pub description: Option<DescriptionParam>,
}

/// A change of a webhook's settings; absent (or null) fields stay as they are.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UpdateWebhookRequest {
    #[oai(
        nullable,
        validator(min_length = 1, max_length = 2048, pattern = r"^https?://[^\s/?#]+[^\s]*$")
    )]
    pub url: Option<String>,
    #[oai(
        nullable,
        validator(pattern = r"^(team|project|key)\.(created|updated|renamed|deleted|\*)$")
    )]
    pub events: Option<Vec<String>>,
    #[oai(nullable)]
    pub projects: Option<Vec<ProjectNameParam>>,
    #[oai(nullable)]
    pub description: Option<DescriptionParam>,
    /// `false` stops deliveries (the cursor stays); `true` starts them again: from the cursor,
    /// or, for a webhook marked `failing`, from the branch's head (the commits it missed are
    /// skipped; read them with `/changes?since=` its cursor).
    #[oai(nullable)]
    pub enabled: Option<bool>,
}

/// One delivery attempt.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct DeliveryItem {
    /// The commit delivered; null for a test delivery.
    #[oai(nullable)]
    pub commit: Option<String>,
    /// The `webhook-id` header sent (the same for every attempt at one commit).
    pub message_id: String,
    /// 1 for the first attempt at this message.
    pub attempt: u32,
    /// When it was sent (RFC 3339).
    pub at: String,
    /// The receiver's HTTP status; null when it did not answer.
    #[oai(nullable)]
    pub status: Option<u16>,
    /// Whether the receiver acknowledged it (a 2xx).
    pub ok: bool,
    /// Milliseconds from sending to the end of the answer.
    pub duration_ms: u64,
    /// Why it failed; null when it did not.
    #[oai(nullable)]
    pub error: Option<String>,
}

impl From<Attempt> for DeliveryItem {
    fn from(attempt: Attempt) -> Self {
        Self {
            commit: attempt.commit,
            message_id: attempt.message_id,
            attempt: attempt.attempt,
            at: attempt.at,
            status: attempt.status,
            ok: attempt.ok,
            duration_ms: attempt.duration_ms,
            error: attempt.error,
        }
    }
}

/// A webhook (its secret is shown only when it is created).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct WebhookItem {
    /// `wh_` and 16 hex digits.
    pub id: String,
    pub team: String,
    pub url: String,
    /// The event types delivered; empty: all.
    pub events: Vec<String>,
    /// The projects delivered; empty: all.
    pub projects: Vec<String>,
    pub description: String,
    /// When it was created (RFC 3339), and by which token.
    pub created: String,
    pub created_by: String,
    /// Whether deliveries are made.
    pub enabled: bool,
    /// Set (and `enabled` cleared) after 24 h in which the receiver acknowledged nothing.
    pub failing: bool,
    /// Since when the next delivery has been failing (RFC 3339); null while all goes well.
    #[oai(nullable)]
    pub failing_since: Option<String>,
    /// The last commit delivered (or passed over as not the webhook's).
    pub cursor: String,
    /// Commits after the cursor still to deal with.
    pub backlog: u64,
    /// The most recent attempt; null before the first.
    #[oai(nullable)]
    pub last_delivery: Option<DeliveryItem>,
    /// The signing secret (`whsec_` and base64): only in the answer that creates the webhook.
    #[oai(skip_serializing_if_is_none)]
    pub secret: Option<String>,
}

impl From<WebhookView> for WebhookItem {
    fn from(view: WebhookView) -> Self {
        let webhook = view.webhook;
        Self {
            id: webhook.id,
            team: webhook.team,
            url: webhook.url,
            events: webhook.events,
            projects: webhook.projects,
            description: webhook.description,
            created: webhook.created,
            created_by: webhook.created_by,
            enabled: webhook.enabled,
            failing: webhook.failing,
            failing_since: view.failing_since.map(payload::rfc3339),
            cursor: view.cursor,
            backlog: view.backlog as u64,
            last_delivery: view.last_attempt.map(Into::into),
            secret: None,
        }
    }
}

#[derive(Debug, Object)]
pub struct WebhookData {
    pub data: WebhookItem,
}

#[derive(Debug, Object)]
pub struct WebhookList {
    pub data: Vec<WebhookItem>,
}

#[derive(Debug, Object)]
pub struct DeliveryData {
    pub data: DeliveryItem,
}

#[derive(Debug, Object)]
pub struct DeliveryList {
    pub data: Vec<DeliveryItem>,
}

/// The new webhook with its secret, with 201 Created.
#[derive(ApiResponse)]
pub enum WebhookCreated {
    /// Created. Keep the secret: it is not shown again.
    #[oai(status = 201)]
    Created(Json<WebhookData>),
}

impl From<WebhookError> for ApiError {
    fn from(err: WebhookError) -> Self {
        match err {
            WebhookError::NotFound(message) => Self::not_found(message),
            WebhookError::Invalid(message) => Self::invalid(message),
            WebhookError::Internal(err) => {
                tracing::error!(error = %format!("{err:#}"), "webhook failure");
                Self::internal()
            }
        }
    }
}

impl WebhooksApi {
    /// The team, for an admin who may see it.
    fn admin_of(&self, auth: &TokenAuth, team: TeamName) -> Result<TeamName, ApiError> {
        let team = auth.team(team)?;
        auth.require(Access::Admin)?;
        Ok(team)
    }

    /// Runs a blocking webhook operation off the runtime.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(crate::webhooks::Webhooks) -> Result<T, WebhookError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let webhooks = self.state.webhooks.clone();
        tokio::task::spawn_blocking(move || work(webhooks))
            .await
            .map_err(|err| {
                tracing::error!(error = %err, "a webhook operation panicked");
                ApiError::internal()
            })?
            .map_err(Into::into)
    }
}

fn project_names(projects: Vec<ProjectNameParam>) -> Vec<String> {
    projects.into_iter().map(|param| param.0.to_string()).collect()
}

#[OpenApi(tag = "ApiTags::Webhooks")]
impl WebhooksApi {
    /// Create a webhook
    ///
    /// Needs admin access. From now on, every commit that touches the team (and `projects`,
    /// when given) is `POST`ed to `url` as `{"type": "locstore.commit", "timestamp", "data":
    /// {"commit", "parent", "subject", "author", "team", "project", "events": [...]}}`, in
    /// commit order and at least once, signed as Standard Webhooks define (`webhook-id`,
    /// `webhook-timestamp`, `webhook-signature`). The answer holds the signing `secret`,
    /// shown this once.
    #[oai(path = "/teams/:teamName/webhooks", method = "post", operation_id = "createWebhook")]
    async fn create_webhook(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        body: Json<CreateWebhookRequest>,
    ) -> Result<WebhookCreated, ApiError> {
        let team = self.admin_of(&auth, team_name.0.0)?;
        let team = self.state.store.team(&team)?.name;
        let body = body.0;
        let new = NewWebhook {
            url: body.url,
            events: body.events.unwrap_or_default(),
            projects: project_names(body.projects.unwrap_or_default()),
            description: body.description.map(|param| param.0.into_string()).unwrap_or_default(),
        };
        let head = self.state.store.head();
        let author = auth.author().to_owned();
        let (view, secret) = self
            .blocking(move |webhooks| webhooks.create(team.as_str(), new, &author, &head))
            .await?;
        let mut item = WebhookItem::from(view);
        item.secret = Some(secret);
        Ok(WebhookCreated::Created(Json(WebhookData { data: item })))
    }

    /// List webhooks
    ///
    /// Needs admin access. The team's webhooks, oldest first, with where their deliveries
    /// stand; never their secrets.
    #[oai(path = "/teams/:teamName/webhooks", method = "get", operation_id = "listWebhooks")]
    async fn list_webhooks(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
    ) -> Result<Json<WebhookList>, ApiError> {
        let team = self.admin_of(&auth, team_name.0.0)?;
        let webhooks = self.state.webhooks.list(team.as_str());
        if webhooks.is_empty() {
            // The team's webhooks outlive it (a deleted team's can still be listed and deleted).
            self.state.store.team(&team)?;
        }
        Ok(Json(WebhookList {
            data: webhooks.into_iter().map(Into::into).collect(),
        }))
    }

    /// Get a webhook
    ///
    /// Needs admin access.
    #[oai(
        path = "/teams/:teamName/webhooks/:webhookId",
        method = "get",
        operation_id = "getWebhook"
    )]
    async fn get_webhook(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
    ) -> Result<Json<WebhookData>, ApiError> {
        let team = self.admin_of(&auth, team_name.0.0)?;
        let view = self.state.webhooks.get(team.as_str(), &webhook_id.0)?;
        Ok(Json(WebhookData { data: view.into() }))
    }

    /// Update a webhook
    ///
    /// Needs admin access. Changes its address, event types, projects or description, or turns
    /// it off and on (`enabled`). Turning on a webhook marked `failing` starts it at the
    /// branch's head: the commits it missed are not delivered.
    #[oai(
        path = "/teams/:teamName/webhooks/:webhookId",
        method = "patch",
        operation_id = "updateWebhook"
    )]
    async fn update_webhook(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
        body: Json<UpdateWebhookRequest>,
    ) -> Result<Json<WebhookData>, ApiError> {
        let team = self.admin_of(&auth, team_name.0.0)?;
        let body = body.0;
        let patch = WebhookPatch {
            url: body.url,
            events: body.events,
            projects: body.projects.map(project_names),
            description: body.description.map(|param| param.0.into_string()),
            enabled: body.enabled,
        };
        let id = webhook_id.0;
        // Where a webhook marked failing resumes when this turns it on.
        let head = self.state.store.head();
        let view = self
            .blocking(move |webhooks| webhooks.update(team.as_str(), &id, patch, &head))
            .await?;
        Ok(Json(WebhookData { data: view.into() }))
    }

    /// Delete a webhook
    ///
    /// Needs admin access. No delivery is made after the answer (one in flight is awaited,
    /// 10 s at most); its cursor and recent deliveries go with it.
    #[oai(
        path = "/teams/:teamName/webhooks/:webhookId",
        method = "delete",
        operation_id = "deleteWebhook"
    )]
    async fn delete_webhook(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
    ) -> Result<Done, ApiError> {
        let team = self.admin_of(&auth, team_name.0.0)?;
        let id = webhook_id.0;
        self.blocking(move |webhooks| webhooks.delete(team.as_str(), &id))
            .await?;
        Ok(Done::Ok(Json(Success::ok())))
    }

    /// Test a webhook
    ///
    /// Needs admin access. Sends `{"type": "locstore.test", "timestamp", "data": {"webhook",
    /// "team"}}`, signed like every delivery, and answers how the receiver took it (a failure
    /// is an answer too, with `ok: false`). The cursor does not move.
    #[oai(
        path = "/teams/:teamName/webhooks/:webhookId/test",
        method = "post",
        operation_id = "testWebhook"
    )]
    async fn test_webhook(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
    ) -> Result<Json<DeliveryData>, ApiError> {
        let team = self.admin_of(&auth, team_name.0.0)?;
        let id = webhook_id.0;
        let attempt = self.blocking(move |webhooks| webhooks.test(team.as_str(), &id)).await?;
        Ok(Json(DeliveryData { data: attempt.into() }))
    }

    /// List a webhook's deliveries
    ///
    /// Needs admin access. The last 100 attempts, newest first: commit, status, time taken,
    /// error. Kept across restarts.
    #[oai(
        path = "/teams/:teamName/webhooks/:webhookId/deliveries",
        method = "get",
        operation_id = "listWebhookDeliveries"
    )]
    async fn list_deliveries(
        &self,
        auth: TokenAuth,
        #[oai(name = "teamName")] team_name: Path<TeamNameParam>,
        #[oai(name = "webhookId")] webhook_id: Path<String>,
    ) -> Result<Json<DeliveryList>, ApiError> {
        let team = self.admin_of(&auth, team_name.0.0)?;
        let attempts = self.state.webhooks.deliveries(team.as_str(), &webhook_id.0)?;
        Ok(Json(DeliveryList {
            data: attempts.into_iter().map(Into::into).collect(),
        }))
    }
}
