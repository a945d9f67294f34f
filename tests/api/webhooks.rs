//! Webhooks: managed per team by admins, every commit delivered signed (Standard Webhooks),
//! in commit order, at least once, through failures, deletion and a kill -9.

use std::time::Duration;

use poem::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, git_in};
use crate::receiver::{Received, Receiver};

const KEYS: &str = "/teams/acme/projects/mobile/keys";
const HOOKS: &str = "/teams/acme/webhooks";
const WAIT: Duration = Duration::from_secs(20);

/// Creates a webhook to `receiver`; answers its id and secret.
async fn create_webhook(app: &TestApp, receiver: &Receiver, extra: Value) -> (String, String) {
    let mut body = json!({"url": receiver.url, "description": "the test's receiver"});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    let created = app.post(HOOKS, body).await.assert_ok(StatusCode::CREATED);
    let data = &created["data"];
    (
        data["id"].as_str().unwrap().to_owned(),
        data["secret"].as_str().unwrap().to_owned(),
    )
}

/// The branch's first-parent commits after `since`, oldest first.
fn commits_after(app: &TestApp, since: &str) -> Vec<String> {
    app.git(&["rev-list", "--first-parent", "--reverse", &format!("{since}..HEAD")])
        .lines()
        .map(str::to_owned)
        .collect()
}

fn head(app: &TestApp) -> String {
    app.git(&["rev-parse", "HEAD"]).trim().to_owned()
}

/// The events of the delivery of `commit`.
fn events_of(received: &[Received], commit: &str) -> Vec<Value> {
    let delivery = received
        .iter()
        .find(|received| received.commit() == commit)
        .unwrap_or_else(|| panic!("no delivery of {commit}"));
    delivery.json()["data"]["events"].as_array().unwrap().clone()
}

#[tokio::test]
async fn admins_manage_a_teams_webhooks_and_the_secrets_stay_out_of_git() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let receiver = Receiver::start();

    // Only admins; writers and readers are refused, other teams are not found.
    let body = json!({"url": receiver.url});
    for token in [app.write_token.clone(), app.read_token.clone()] {
        let reply = app.call(Method::POST, HOOKS, Some(body.clone()), Some(&token)).await;
        assert_eq!(reply.error_code(StatusCode::FORBIDDEN), "forbidden");
        let reply = app.call(Method::GET, HOOKS, None, Some(&token)).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN);
    }
    let reply = app.post("/teams/nobody/webhooks", body.clone()).await;
    assert_eq!(reply.error_code(StatusCode::NOT_FOUND), "not_found");
    // Bad settings are refused and change nothing.
    for bad in [
        json!({"url": "ftp://example.com/x"}),
        json!({"url": "not a url"}),
        json!({"url": "http://"}),
        json!({"url": receiver.url, "events": ["key.exploded"]}),
        json!({"url": receiver.url, "events": ["keys.*"]}),
        json!({"url": receiver.url, "projects": ["no/slash"]}),
    ] {
        let reply = app.post(HOOKS, bad.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{bad}: {:?}", reply.json());
    }
    assert_eq!(app.get(HOOKS).await.assert_ok(StatusCode::OK)["data"], json!([]));

    let created = app
        .post(
            HOOKS,
            json!({"url": receiver.url, "events": ["key.*", "project.updated"], "projects": ["mobile"],
                   "description": "chat"}),
        )
        .await
        .assert_ok(StatusCode::CREATED);
    let data = &created["data"];
    let id = data["id"].as_str().unwrap();
    let secret = data["secret"].as_str().unwrap();
    assert!(id.starts_with("wh_"), "{data}");
    assert!(secret.starts_with("whsec_") && secret.len() > 30, "{data}");
    assert_eq!(data["events"], json!(["key.*", "project.updated"]));
    assert_eq!(data["projects"], json!(["mobile"]));
    assert_eq!(data["enabled"], true);
    assert_eq!(data["failing"], false);
    assert_eq!(data["cursor"], head(&app));

    // The secret is shown once: never in a list or a get.
    let list = app.get(HOOKS).await.assert_ok(StatusCode::OK);
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert!(list["data"][0].get("secret").is_none(), "{list}");
    let one = app.get(&format!("{HOOKS}/{id}")).await.assert_ok(StatusCode::OK);
    assert!(one["data"].get("secret").is_none());
    assert_eq!(one["data"]["description"], "chat");
    assert!(!list.to_string().contains(secret));

    // Kept in the data directory with mode 0600, never in the repository.
    use std::os::unix::fs::PermissionsExt;
    let file = app.dir.path().join("webhooks.toml");
    assert!(std::fs::read_to_string(&file).unwrap().contains(secret));
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    let tracked = app.git(&["ls-files"]);
    assert!(!tracked.contains("webhook"), "{tracked}");
    assert!(app.git(&["log", "--all", "-p"]).find(secret).is_none());

    // The test delivery reaches the receiver, signed; the answer says how it went.
    let tested = app
        .post(&format!("{HOOKS}/{id}/test"), json!(null))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(tested["data"]["ok"], true, "{tested}");
    assert_eq!(tested["data"]["status"], 200);
    assert_eq!(tested["data"]["commit"], Value::Null);
    let got = receiver.wait_for(WAIT, |got| !got.is_empty());
    assert_eq!(got[0].json()["type"], "locstore.test");
    assert_eq!(got[0].json()["data"]["webhook"], id);
    assert_eq!(receiver.verify_with_reference_library(secret), 1);
    receiver.fail_next(1);
    let tested = app
        .post(&format!("{HOOKS}/{id}/test"), json!(null))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(tested["data"]["ok"], false);
    assert_eq!(tested["data"]["status"], 500);
    let deliveries = app
        .get(&format!("{HOOKS}/{id}/deliveries"))
        .await
        .assert_ok(StatusCode::OK);
    let statuses: Vec<&Value> = deliveries["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|attempt| &attempt["status"])
        .collect();
    assert_eq!(statuses, [&json!(500), &json!(200)], "newest first: {deliveries}");

    // Settings change; a bad change is refused.
    let patched = app
        .patch(
            &format!("{HOOKS}/{id}"),
            json!({"events": [], "description": "all of it"}),
        )
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(patched["data"]["events"], json!([]));
    assert_eq!(patched["data"]["description"], "all of it");
    let reply = app.patch(&format!("{HOOKS}/{id}"), json!({"url": "gopher://x"})).await;
    assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request");
    let reply = app.patch(&format!("{HOOKS}/wh_0000000000000000"), json!({})).await;
    assert_eq!(reply.error_code(StatusCode::NOT_FOUND), "not_found");

    // Deleted: gone from the list, the file and the disk.
    app.delete(&format!("{HOOKS}/{id}")).await.assert_ok(StatusCode::OK);
    assert_eq!(app.get(HOOKS).await.assert_ok(StatusCode::OK)["data"], json!([]));
    assert_eq!(app.get(&format!("{HOOKS}/{id}")).await.status, StatusCode::NOT_FOUND);
    assert!(!std::fs::read_to_string(&file).unwrap().contains(id));
    assert!(!app.dir.path().join("webhooks").join(id).exists());
}

/// Changes through the API and an upload are each one delivery, in commit order, with the
/// events of the commit's tree difference; the reference library verifies every signature.
#[tokio::test]
async fn every_commit_is_delivered_once_signed_in_order_with_its_events() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let receiver = Receiver::start();
    let (_, secret) = create_webhook(&app, &receiver, json!({})).await;
    let start = head(&app);

    app.create_key("greeting", &["home"], &[("en", "Hello"), ("fr", "Bonjour")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.patch(
        &format!("{KEYS}/greeting"),
        json!({"translations": [{"language": "pt-BR", "content": "Olá"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.patch(&format!("{KEYS}/greeting"), json!({"name": "welcome"}))
        .await
        .assert_ok(StatusCode::OK);
    app.create_key("doomed", &[], &[("en", "Bye")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.delete(&format!("{KEYS}/doomed")).await.assert_ok(StatusCode::OK);
    app.patch(
        "/teams/acme/projects/mobile",
        json!({"languagesISO": ["en", "fr", "pt-BR", "de"]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.post_bytes(
        "/teams/acme/projects/mobile/files?type=json&language=fr",
        "application/json",
        br#"{"welcome": "Salut", "uploaded": "Nouveau"}"#.to_vec(),
    )
    .await
    .assert_ok(StatusCode::OK);
    // A second project and a change of the team itself.
    app.post(
        "/teams/acme/projects",
        json!({"name": "web", "displayName": "Web", "languagesISO": ["en"]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    app.patch("/teams/acme", json!({"displayName": "Acme Inc."}))
        .await
        .assert_ok(StatusCode::OK);

    let expected = commits_after(&app, &start);
    assert_eq!(expected.len(), 9);
    let delivered = receiver.wait_for_commits(expected.len(), WAIT);
    assert_eq!(delivered, expected, "one delivery per commit, in commit order");
    let got = receiver.acknowledged();
    assert_eq!(got.len(), expected.len(), "each commit exactly once while all is well");
    assert_eq!(receiver.verify_with_reference_library(&secret), expected.len());

    // The envelope and the headers.
    let first = got[0].json();
    assert_eq!(first["type"], "locstore.commit");
    assert_eq!(first["data"]["team"], "acme");
    assert_eq!(first["data"]["branch"], "main");
    assert_eq!(first["data"]["project"], "mobile");
    assert_eq!(first["data"]["parent"], start);
    assert!(
        first["data"]["subject"].as_str().unwrap().contains("greeting"),
        "{first}"
    );
    assert!(!first["data"]["author"].as_str().unwrap().is_empty());
    assert!(first["timestamp"].as_str().unwrap().ends_with('Z'), "{first}");
    for received in &got {
        assert!(received.id.starts_with(&received.commit()), "{}", received.id);
        let sent: i64 = received.timestamp.parse().unwrap();
        assert!((sent - now()).abs() < 120);
    }

    let event = |index: usize| events_of(&got, &expected[index]);
    assert_eq!(
        event(0),
        [
            json!({"type": "key.created", "project": "mobile", "key": "greeting", "namespace": "", "languages": ["en", "fr"]})
        ]
    );
    assert_eq!(
        event(1),
        [
            json!({"type": "key.updated", "project": "mobile", "key": "greeting", "namespace": "", "languages": ["pt-BR"]})
        ]
    );
    assert_eq!(
        event(2),
        [
            json!({"type": "key.renamed", "project": "mobile", "key": "welcome", "namespace": "", "from": "greeting", "fromNamespace": "", "languages": []})
        ]
    );
    assert_eq!(event(4)[0]["type"], "key.deleted");
    assert_eq!(event(4)[0]["key"], "doomed");
    assert_eq!(
        event(5),
        [json!({"type": "project.updated", "project": "mobile", "languages": ["de"]})]
    );
    // The upload: one commit, a key updated in French and a key created.
    let upload = event(6);
    assert_eq!(upload.len(), 2, "{upload:?}");
    assert!(upload.contains(
        &json!({"type": "key.created", "project": "mobile", "key": "uploaded", "namespace": "", "languages": ["fr"]})
    ));
    assert!(upload.contains(
        &json!({"type": "key.updated", "project": "mobile", "key": "welcome", "namespace": "", "languages": ["fr"]})
    ));
    assert_eq!(event(7), [json!({"type": "project.created", "project": "web"})]);
    assert_eq!(event(8), [json!({"type": "team.updated"})]);
    let team_delivery = got.iter().find(|received| received.commit() == expected[8]).unwrap();
    assert_eq!(team_delivery.json()["data"]["project"], Value::Null);

    // The deliveries list shows them, with the webhook caught up (the worker records its
    // cursor just after the receiver's answer, so the list may lag the receiver a moment).
    let deadline = std::time::Instant::now() + WAIT;
    let list = loop {
        let list = app.get(HOOKS).await.assert_ok(StatusCode::OK);
        if list["data"][0]["cursor"] == expected[8] || std::time::Instant::now() > deadline {
            break list;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(list["data"][0]["cursor"], expected[8]);
    assert_eq!(list["data"][0]["backlog"], 0);
    assert_eq!(list["data"][0]["lastDelivery"]["commit"], expected[8]);
    assert_eq!(list["data"][0]["lastDelivery"]["ok"], true);

    // /metrics counts the deliveries and shows no backlog.
    let metrics = String::from_utf8(app.call(Method::GET, "/metrics", None, None).await.body).unwrap();
    let id = list["data"][0]["id"].as_str().unwrap();
    assert!(
        metrics.contains(&format!("locstore_webhook_deliveries_total{{webhook=\"{id}\"}} 9")),
        "{metrics}"
    );
    assert!(metrics.contains(&format!("locstore_webhook_backlog_commits{{webhook=\"{id}\"}} 0")));
    assert!(metrics.contains(&format!(
        "locstore_webhook_oldest_undelivered_seconds{{webhook=\"{id}\"}} 0"
    )));
}

/// A receiver that answers 500 for a while gets every commit once it recovers, none lost and
/// none out of order; the deliveries list shows the failed attempts.
#[tokio::test]
async fn a_receiver_that_fails_for_a_while_then_recovers_loses_nothing() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let receiver = Receiver::start();
    let (id, secret) = create_webhook(&app, &receiver, json!({})).await;
    let start = head(&app);
    receiver.fail_next(3);
    for index in 0..6 {
        app.create_key(&format!("key-{index}"), &[], &[("en", "text")])
            .await
            .assert_ok(StatusCode::CREATED);
    }
    let expected = commits_after(&app, &start);
    let delivered = receiver.wait_for_commits(expected.len(), WAIT);
    assert_eq!(delivered, expected);
    let all = receiver.all();
    let failed: Vec<&Received> = all.iter().filter(|received| received.status == 500).collect();
    assert_eq!(failed.len(), 3);
    assert!(
        failed.iter().all(|received| received.id == failed[0].id),
        "the same commit is tried again while the later ones wait"
    );
    assert_eq!(failed[0].commit(), expected[0]);
    assert_eq!(receiver.verify_with_reference_library(&secret), expected.len());
    let deliveries = app
        .get(&format!("{HOOKS}/{id}/deliveries"))
        .await
        .assert_ok(StatusCode::OK);
    let attempts = deliveries["data"].as_array().unwrap();
    let first_commit: Vec<&Value> = attempts
        .iter()
        .filter(|attempt| attempt["commit"] == expected[0])
        .collect();
    assert_eq!(first_commit.len(), 4, "{deliveries}");
    assert_eq!(first_commit[0]["attempt"], 4);
    assert_eq!(first_commit[0]["ok"], true);
    assert_eq!(first_commit[3]["attempt"], 1);
    assert_eq!(first_commit[3]["status"], 500);
    assert!(first_commit[3]["error"].as_str().unwrap().contains("500"));
    let metrics = String::from_utf8(app.call(Method::GET, "/metrics", None, None).await.body).unwrap();
    assert!(
        metrics.contains(&format!(
            "locstore_webhook_delivery_failures_total{{webhook=\"{id}\"}} 3"
        )),
        "{metrics}"
    );
}

/// `events` and `projects` choose what is delivered: a commit with nothing chosen is not
/// delivered at all. A webhook follows its team's rename.
#[tokio::test]
async fn event_and_project_filters_choose_and_a_renamed_team_is_followed() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.post(
        "/teams/acme/projects",
        json!({"name": "web", "displayName": "Web", "languagesISO": ["en"]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    app.post("/teams", json!({"name": "other", "displayName": "Other"}))
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(
        "/teams/other/projects",
        json!({"name": "mobile", "displayName": "Mobile", "languagesISO": ["en"]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    let deleted_only = Receiver::start();
    let web_only = Receiver::start();
    let everything = Receiver::start();
    create_webhook(&app, &deleted_only, json!({"events": ["key.deleted"]})).await;
    create_webhook(&app, &web_only, json!({"projects": ["web"]})).await;
    create_webhook(&app, &everything, json!({})).await;

    app.create_key("a", &[], &[("en", "A")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(
        "/teams/acme/projects/web/keys",
        json!({"name": "b", "translations": [{"language": "en", "content": "B"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    app.post(
        "/teams/other/projects/mobile/keys",
        json!({"name": "c", "translations": [{"language": "en", "content": "C"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    app.delete(&format!("{KEYS}/a")).await.assert_ok(StatusCode::OK);
    app.patch("/teams/acme", json!({"name": "acme-corp"}))
        .await
        .assert_ok(StatusCode::OK);
    app.post(
        "/teams/acme-corp/projects/web/keys",
        json!({"name": "after-rename", "translations": [{"language": "en", "content": "D"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);

    // Every commit but the other team's.
    let got = everything.wait_for(WAIT, |got| got.len() >= 5);
    let kinds: Vec<Value> = got
        .iter()
        .map(|received| received.json()["data"]["events"][0]["type"].clone())
        .collect();
    assert_eq!(
        kinds,
        [
            json!("key.created"),
            json!("key.created"),
            json!("key.deleted"),
            json!("team.renamed"),
            json!("key.created")
        ]
    );
    let renamed = got[3].json();
    assert_eq!(renamed["data"]["team"], "acme-corp");
    assert_eq!(
        renamed["data"]["events"],
        json!([{"type": "team.renamed", "from": "acme"}])
    );
    assert_eq!(got[4].json()["data"]["team"], "acme-corp");

    let got = deleted_only.wait_for(WAIT, |got| !got.is_empty());
    assert_eq!(
        got[0].json()["data"]["events"],
        json!([{"type": "key.deleted", "project": "mobile", "key": "a", "namespace": "", "languages": ["en"]}])
    );
    let got = web_only.wait_for(WAIT, |got| got.len() >= 3);
    let keys: Vec<Value> = got
        .iter()
        .map(|received| received.json()["data"]["events"][0]["key"].clone())
        .collect();
    assert_eq!(keys, [json!("b"), Value::Null, json!("after-rename")]);
    // Nothing else arrives.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(deleted_only.all().len(), 1);
    assert_eq!(web_only.all().len(), 3);
    assert_eq!(everything.all().len(), 5);
    // The webhooks are the renamed team's now.
    let list = app.get("/teams/acme-corp/webhooks").await.assert_ok(StatusCode::OK);
    assert_eq!(list["data"].as_array().unwrap().len(), 3, "{list}");
    assert!(
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|hook| hook["team"] == "acme-corp")
    );
}

/// A commit made by hand in the server's repository and a commit pulled from the remote are
/// delivered like any other, with the events of their tree difference.
#[tokio::test]
async fn hand_commits_and_pulled_commits_are_delivered() {
    let daemon = crate::sync::GitDaemon::start();
    let app = crate::sync::spawn_replicating(&daemon, Duration::from_millis(300)).await;
    app.seed_project().await;
    app.create_key("edited", &[], &[("en", "Hello"), ("fr", "Bonjour")])
        .await
        .assert_ok(StatusCode::CREATED);
    let receiver = Receiver::start();
    let (_, secret) = create_webhook(&app, &receiver, json!({})).await;
    crate::sync::pushed(&app, &daemon, Duration::from_secs(10)).await;
    app.settle().await;

    // By hand, in the server's repository.
    let repo = app.repo();
    let path = app
        .git(&["ls-files", "teams/acme/projects/mobile/keys"])
        .lines()
        .find(|path| path.ends_with("/edited.toml"))
        .unwrap()
        .to_owned();
    let text = std::fs::read_to_string(repo.join(&path)).unwrap();
    std::fs::write(repo.join(&path), text.replace("Bonjour", "Salut")).unwrap();
    git_in(&repo, &["commit", "-qam", "Edit by hand"]);
    let hand = head(&app);
    let got = receiver.wait_for(WAIT, |got| !got.is_empty());
    assert_eq!(got[0].commit(), hand);
    assert_eq!(got[0].json()["data"]["subject"], "Edit by hand");
    assert_eq!(
        got[0].json()["data"]["events"],
        json!([{"type": "key.updated", "project": "mobile", "key": "edited", "namespace": "", "languages": ["fr"]}])
    );

    // In a clone, pushed to the remote, pulled by the server.
    crate::sync::pushed(&app, &daemon, Duration::from_secs(10)).await;
    let work = tempfile::tempdir().unwrap();
    let clone = daemon.clone_into(work.path());
    let new_file = path.replace("edited.toml", "from-clone.toml");
    std::fs::write(
        clone.join(&new_file),
        "name = \"from-clone\"\ntags = []\n\n[translations]\nen = \"Pulled\"\n",
    )
    .unwrap();
    git_in(&clone, &["add", "-A"]);
    git_in(&clone, &["commit", "-qm", "Added in a clone"]);
    git_in(&clone, &["push", "-q", "origin", "main"]);
    let got = receiver.wait_for(WAIT, |got| got.len() >= 2);
    assert_eq!(got[1].json()["data"]["subject"], "Added in a clone");
    assert_eq!(
        got[1].json()["data"]["events"],
        json!([{"type": "key.created", "project": "mobile", "key": "from-clone", "namespace": "", "languages": ["en"]}])
    );
    assert_eq!(receiver.verify_with_reference_library(&secret), 2);
}

/// After DELETE answers, no delivery is made, also of commits it had not reached.
#[tokio::test]
async fn a_deleted_webhook_delivers_nothing_more() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let receiver = Receiver::start();
    let (id, _) = create_webhook(&app, &receiver, json!({})).await;
    app.create_key("one", &[], &[("en", "1")])
        .await
        .assert_ok(StatusCode::CREATED);
    receiver.wait_for(WAIT, |got| got.len() == 1);
    // The receiver stalls: the next commits wait in the backlog when the webhook goes.
    receiver.set_failing(true);
    app.create_key("two", &[], &[("en", "2")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.create_key("three", &[], &[("en", "3")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.delete(&format!("{HOOKS}/{id}")).await.assert_ok(StatusCode::OK);
    let after_delete = receiver.all().len();
    receiver.set_failing(false);
    app.create_key("four", &[], &[("en", "4")])
        .await
        .assert_ok(StatusCode::CREATED);
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(receiver.all().len(), after_delete, "nothing after the delete");
    assert_eq!(receiver.acknowledged().len(), 1);
}

/// A webhook whose receiver fails for the whole failing period is turned off and marked
/// failing; turned on again, it starts at the branch's head.
#[tokio::test]
async fn a_webhook_failing_for_the_whole_period_is_turned_off_and_resumes_at_the_head() {
    let app = TestApp::spawn_with(tempfile::tempdir().unwrap(), |config| {
        config.webhook_failing_after = Duration::from_secs(2);
    })
    .await;
    app.seed_project().await;
    let receiver = Receiver::start();
    receiver.set_failing(true);
    let (id, _) = create_webhook(&app, &receiver, json!({})).await;
    app.create_key("missed", &[], &[("en", "1")])
        .await
        .assert_ok(StatusCode::CREATED);
    let hook = format!("{HOOKS}/{id}");
    let mut state = Value::Null;
    for _ in 0..100 {
        state = app.get(&hook).await.assert_ok(StatusCode::OK);
        if state["data"]["failing"] == true {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(state["data"]["failing"], true, "{state}");
    assert_eq!(state["data"]["enabled"], false);
    assert!(state["data"]["failingSince"].is_string());
    assert_eq!(state["data"]["lastDelivery"]["ok"], false);
    let tries = receiver.all().len();
    assert!(tries >= 2, "tried again before giving up: {tries}");
    // Off: nothing more is tried.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(receiver.all().len(), tries);
    // Kept across a restart.
    let dir = app.stop().await;
    let app = TestApp::spawn_in(dir).await;
    let state = app.get(&hook).await.assert_ok(StatusCode::OK);
    assert_eq!(state["data"]["failing"], true);

    receiver.set_failing(false);
    let state = app
        .patch(&hook, json!({"enabled": true}))
        .await
        .assert_ok(StatusCode::OK);
    assert_eq!(state["data"]["failing"], false);
    assert_eq!(state["data"]["enabled"], true);
    app.create_key("after", &[], &[("en", "2")])
        .await
        .assert_ok(StatusCode::CREATED);
    let got = receiver.wait_for(WAIT, |got| !got.is_empty());
    assert_eq!(got.len(), 1, "the missed commit is skipped");
    assert_eq!(got[0].json()["data"]["events"][0]["key"], "after");
}

/// Turned off by an admin, a webhook keeps its cursor; turned on, it delivers what it missed.
#[tokio::test]
async fn a_webhook_turned_off_and_on_delivers_what_came_meanwhile() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let receiver = Receiver::start();
    let (id, _) = create_webhook(&app, &receiver, json!({})).await;
    let hook = format!("{HOOKS}/{id}");
    app.patch(&hook, json!({"enabled": false}))
        .await
        .assert_ok(StatusCode::OK);
    let start = head(&app);
    app.create_key("while-off", &[], &[("en", "1")])
        .await
        .assert_ok(StatusCode::CREATED);
    std::thread::sleep(Duration::from_millis(2500));
    assert!(receiver.all().is_empty());
    app.patch(&hook, json!({"enabled": true}))
        .await
        .assert_ok(StatusCode::OK);
    let delivered = receiver.wait_for_commits(1, WAIT);
    assert_eq!(delivered, commits_after(&app, &start));
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// The server killed with kill -9 in the middle of a backlog and started again delivers every
/// commit at least once, in commit order.
#[test]
fn a_kill_9_in_the_middle_of_a_backlog_loses_no_delivery() {
    use crate::server::Server;
    const TOKEN: &str = "kill-test-token";
    let dir = tempfile::tempdir().unwrap();
    let env = [("LOCSTORE_API_TOKEN", TOKEN)];
    let server = Server::start(dir.path(), &env);
    let call = |server: &Server, method: &str, path: &str, body: &str| {
        let (status, answer) = server.request(method, path, Some(TOKEN), Some(body));
        assert!((200..300).contains(&status), "{method} {path}: {status} {answer}");
        answer
    };
    call(&server, "POST", "/teams", r#"{"name":"acme","displayName":"Acme"}"#);
    call(
        &server,
        "POST",
        "/teams/acme/projects",
        r#"{"name":"mobile","displayName":"Mobile","languagesISO":["en"]}"#,
    );
    let receiver = Receiver::start();
    // A slow receiver: the commits pile up behind it.
    receiver.set_delay(Duration::from_millis(40));
    let created: Value = serde_json::from_str(&call(
        &server,
        "POST",
        "/teams/acme/webhooks",
        &json!({"url": receiver.url}).to_string(),
    ))
    .unwrap();
    let secret = created["data"]["secret"].as_str().unwrap().to_owned();
    let repo = dir.path().join("repo");
    let start = git_in(&repo, &["rev-parse", "HEAD"]).trim().to_owned();
    for index in 0..120 {
        call(
            &server,
            "POST",
            "/teams/acme/projects/mobile/keys",
            &format!(r#"{{"name":"k{index}","translations":[{{"language":"en","content":"{index}"}}]}}"#),
        );
    }
    // Mid-backlog: some delivered, most waiting.
    receiver.wait_for(WAIT, |got| got.len() >= 20);
    let mut server = server;
    server.child.kill().unwrap(); // SIGKILL
    server.child.wait().unwrap();
    let before_restart = receiver.commits().len();
    assert!(before_restart < 120, "the kill came mid-backlog: {before_restart}");

    receiver.set_delay(Duration::ZERO);
    let _server = Server::start(dir.path(), &env);
    let expected: Vec<String> = git_in(
        &repo,
        &["rev-list", "--first-parent", "--reverse", &format!("{start}..HEAD")],
    )
    .lines()
    .map(str::to_owned)
    .collect();
    assert_eq!(expected.len(), 120);
    let delivered = receiver.wait_for_commits(expected.len(), Duration::from_secs(60));
    assert_eq!(delivered, expected, "every commit, in commit order, at least once");
    // Made again: only the deliveries of the cursor's last 200 ms before the kill (the
    // receiver took 40 ms each) and the one in flight, all with the same webhook-id.
    let ids: Vec<String> = receiver
        .acknowledged()
        .iter()
        .map(|received| received.id.clone())
        .collect();
    let again = ids.len() - expected.len();
    assert!(again <= 10, "{again} deliveries made again after the restart");
    let repeated: Vec<usize> = (0..ids.len()).filter(|at| ids[..*at].contains(&ids[*at])).collect();
    assert!(
        repeated.windows(2).all(|pair| pair[1] == pair[0] + 1),
        "what is made again comes in one run, right after the restart: {repeated:?}"
    );
    assert_eq!(
        receiver.verify_with_reference_library(&secret),
        receiver.acknowledged().len()
    );
}

/// A key's events name its namespace, and a key moved to another namespace names the one it
/// left.
#[tokio::test]
async fn events_carry_the_keys_namespace() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let receiver = Receiver::start();
    create_webhook(&app, &receiver, json!({})).await;
    let start = head(&app);
    app.post(
        KEYS,
        json!({"name": "title", "namespace": "settings", "translations": [{"language": "en", "content": "Settings"}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
    app.patch(
        &format!("{KEYS}/title?namespace=settings"),
        json!({"namespace": "common"}),
    )
    .await
    .assert_ok(StatusCode::OK);
    let expected = commits_after(&app, &start);
    assert_eq!(expected.len(), 2);
    let got = receiver.wait_for_commits(expected.len(), WAIT);
    assert_eq!(got, expected);
    let got = receiver.acknowledged();
    assert_eq!(
        events_of(&got, &expected[0]),
        [
            json!({"type": "key.created", "project": "mobile", "key": "title", "namespace": "settings", "languages": ["en"]})
        ]
    );
    assert_eq!(
        events_of(&got, &expected[1]),
        [
            json!({"type": "key.renamed", "project": "mobile", "key": "title", "namespace": "common",
                "from": "title", "fromNamespace": "settings", "languages": []})
        ]
    );
}

async fn create_on_branch(app: &TestApp, name: &str, branch: &str) {
    app.post(
        &format!("{KEYS}?branch={branch}"),
        json!({"name": name, "translations": [{"language": "en", "content": name}]}),
    )
    .await
    .assert_ok(StatusCode::CREATED);
}

/// Commits on a project branch are delivered with the branch's name: its own commits, in
/// order, once the main line's are; a branch's commits from before the webhook are not, and
/// the merge arrives as the main line's commit.
#[tokio::test]
async fn branch_commits_are_delivered_with_the_branchs_name() {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    let branches = "/teams/acme/projects/mobile/branches";
    app.post(branches, json!({"name": "old"}))
        .await
        .assert_ok(StatusCode::CREATED);
    create_on_branch(&app, "before", "old").await;
    let receiver = Receiver::start();
    let (_, secret) = create_webhook(&app, &receiver, json!({})).await;
    let start = head(&app);

    app.post(branches, json!({"name": "feature/inbox"}))
        .await
        .assert_ok(StatusCode::CREATED);
    create_on_branch(&app, "inbox.title", "feature/inbox").await;
    app.patch(
        &format!("{KEYS}/inbox.title?branch=feature/inbox"),
        json!({"translations": [{"language": "fr", "content": "Boîte"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    create_on_branch(&app, "after", "old").await;
    app.create_key("on.main", &[], &[("en", "Main")])
        .await
        .assert_ok(StatusCode::CREATED);
    app.post(&format!("{branches}/feature%2Finbox/merge"), json!({}))
        .await
        .assert_ok(StatusCode::OK);

    let feature = app
        .git(&[
            "rev-list",
            "--reverse",
            &format!("{start}..refs/heads/locstore/acme/mobile/feature/inbox"),
        ])
        .lines()
        .map(str::to_owned)
        .collect::<Vec<_>>();
    let old = app
        .git(&["rev-list", "-1", "refs/heads/locstore/acme/mobile/old"])
        .trim()
        .to_owned();
    let main = commits_after(&app, &start);
    assert_eq!((feature.len(), main.len()), (2, 2));
    let total = feature.len() + main.len() + 1;
    let got = receiver.wait_for(WAIT, |received| received.len() >= total);
    let on = |branch: &str| -> Vec<String> {
        got.iter()
            .filter(|received| received.json()["data"]["branch"] == branch)
            .map(Received::commit)
            .collect()
    };
    assert_eq!(on("feature/inbox"), feature, "the branch's own commits, in order");
    assert_eq!(on("old"), [old], "only the commit made after the webhook");
    assert_eq!(on("main"), main, "the main line's, the merge among them");
    assert_eq!(got.len(), total, "each once");
    assert_eq!(receiver.verify_with_reference_library(&secret), total);
    assert_eq!(
        events_of(&got, &feature[0]),
        [
            json!({"type": "key.created", "project": "mobile", "key": "inbox.title", "namespace": "", "languages": ["en"]})
        ]
    );
    let delivery = got.iter().find(|received| received.commit() == feature[1]).unwrap();
    assert_eq!(delivery.json()["data"]["project"], "mobile");
    assert_eq!(delivery.json()["data"]["parent"], feature[0]);
}
