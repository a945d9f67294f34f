use std::collections::BTreeMap;
use std::io::Read;
use std::time::Duration;

use poem::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{Reply, TestApp};

const EXPORT: &str = "/teams/acme/projects/mobile/keys/export";

impl TestApp {
    /// Runs an export and downloads the file it points to.
    async fn export(&self, query: &str) -> (String, Reply) {
        let reply = self.get(&format!("{EXPORT}?{query}")).await;
        let json = reply.assert_ok(StatusCode::OK);
        assert_eq!(json["success"], true);
        let address = json["data"].as_str().unwrap().to_owned();
        let path = address
            .split_once("/exports/")
            .map(|(_, rest)| format!("/exports/{rest}"))
            .unwrap();
        let download = self.call(Method::GET, &path, None, None).await;
        (address, download)
    }
}

fn unzip(bytes: &[u8]) -> BTreeMap<String, String> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut files = BTreeMap::new();
    for index in 0..archive.len() {
        let mut file = archive.by_index(index).unwrap();
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        files.insert(file.name().to_owned(), text);
    }
    files
}

async fn seeded() -> TestApp {
    let app = TestApp::spawn().await;
    app.seed_project().await;
    app.create_key("home.title", &["home"], &[("en", "Home"), ("fr", "Accueil")])
        .await;
    app.create_key(
        "errors/network",
        &["errors"],
        &[("en", "No network"), ("pt-BR", "Sem rede")],
    )
    .await;
    app.create_key("b.only", &["other"], &[("en", "B")]).await;
    app
}

#[tokio::test]
async fn one_language_answers_the_address_of_its_file() {
    let app = seeded().await;
    let (address, download) = app.export("type=json&languages=fr").await;
    assert!(address.starts_with("http://"), "{address}");
    assert!(address.ends_with("/fr.json"), "{address}");
    assert_eq!(download.status, StatusCode::OK);
    assert_eq!(download.header("content-type"), "application/json; charset=utf-8");
    assert_eq!(
        download.header("content-disposition"),
        "attachment; filename=\"fr.json\""
    );
    assert_eq!(download.json(), json!({"home.title": "Accueil"}));
}

#[tokio::test]
async fn several_languages_answer_a_zip_at_the_contract_paths() {
    let app = seeded().await;
    let cases = [
        ("json", vec!["en.json", "fr.json", "pt-BR.json"]),
        ("csv", vec!["en.csv", "fr.csv", "pt-BR.csv"]),
        (
            "android-xml",
            vec![
                "values-fr/strings.xml",
                "values-pt-rBR/strings.xml",
                "values/strings.xml",
            ],
        ),
        (
            "apple-strings",
            vec![
                "en.lproj/Localizable.strings",
                "fr.lproj/Localizable.strings",
                "pt-BR.lproj/Localizable.strings",
            ],
        ),
    ];
    for (format, paths) in cases {
        let (address, download) = app.export(&format!("type={format}")).await;
        assert!(address.ends_with(".zip"), "{address}");
        assert_eq!(download.header("content-type"), "application/zip");
        let files = unzip(&download.body);
        assert_eq!(files.keys().collect::<Vec<_>>(), paths, "{format}");
    }
}

#[tokio::test]
async fn the_formats_hold_the_right_text() {
    let app = seeded().await;
    let (_, json_zip) = app.export("type=json").await;
    let files = unzip(&json_zip.body);
    let en: Value = serde_json::from_str(&files["en.json"]).unwrap();
    assert_eq!(
        en,
        json!({"b.only": "B", "errors/network": "No network", "home.title": "Home"})
    );
    assert!(!files["en.json"].starts_with('\u{feff}'));

    let (_, csv) = app.export("type=csv&languages=pt-BR").await;
    assert_eq!(
        String::from_utf8(csv.body).unwrap(),
        "key,pt-BR\r\nerrors/network,Sem rede\r\n"
    );

    let (_, xml) = app.export("type=android-xml&languages=en").await;
    let xml = String::from_utf8(xml.body).unwrap();
    assert!(
        xml.contains("<string name=\"errors_network\">No network</string>"),
        "{xml}"
    );
    assert!(xml.contains("<string name=\"home.title\">Home</string>"), "{xml}");

    let (address, strings) = app.export("type=apple-strings&languages=fr").await;
    assert!(address.ends_with("/fr.lproj/Localizable.strings"), "{address}");
    assert_eq!(
        String::from_utf8(strings.body).unwrap(),
        "\"home.title\" = \"Accueil\";\n"
    );
}

#[tokio::test]
async fn tags_and_languages_filter_in_repeated_and_comma_forms() {
    let app = seeded().await;
    for query in [
        "type=json&languages=en&tags=home&tags=errors",
        "type=json&languages=en&tags=home,errors",
    ] {
        let (_, download) = app.export(query).await;
        assert_eq!(
            download.json(),
            json!({"errors/network": "No network", "home.title": "Home"}),
            "{query}"
        );
    }
    let (_, download) = app.export("type=json&languages=en,fr").await;
    assert_eq!(unzip(&download.body).keys().collect::<Vec<_>>(), ["en.json", "fr.json"]);
    let (_, download) = app.export("type=json&languages=fr&tags=other").await;
    assert_eq!(
        download.json(),
        json!({}),
        "a language with nothing to export still gets its file"
    );
}

#[tokio::test]
async fn unknown_types_and_languages_are_invalid_requests() {
    let app = seeded().await;
    for query in [
        "",
        "type=xml",
        "type=JSON",
        "type=json&languages=de",
        "type=json&languages=not%20a%20code",
    ] {
        let reply = app.get(&format!("{EXPORT}?{query}")).await;
        assert_eq!(reply.error_code(StatusCode::BAD_REQUEST), "invalid_request", "{query}");
    }
    let reply = app.get("/teams/acme/projects/ghost/keys/export?type=json").await;
    assert_eq!(reply.error_code(StatusCode::NOT_FOUND), "not_found");
}

#[tokio::test]
async fn keys_whose_android_names_clash_fail_the_export_naming_both() {
    let app = seeded().await;
    app.create_key("home_title", &["clash"], &[("en", "x")]).await;
    let reply = app.get(&format!("{EXPORT}?type=android-xml")).await;
    assert_eq!(reply.error_code(StatusCode::CONFLICT), "conflict");
    let message = reply.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("home.title") && message.contains("home_title"),
        "{message}"
    );
    // Filtering one of them out makes the export work; other formats are unaffected.
    app.export("type=android-xml&tags=home").await;
    app.export("type=json").await;
}

#[tokio::test]
async fn a_download_address_expires_and_the_sweeper_deletes_its_folder() {
    let app = seeded().await;
    let (address, download) = app.export("type=json&languages=en").await;
    assert_eq!(download.status, StatusCode::OK);
    let path = format!("/exports/{}", address.split_once("/exports/").unwrap().1);
    app.clock.advance(Duration::from_secs(3599));
    assert_eq!(app.call(Method::GET, &path, None, None).await.status, StatusCode::OK);
    app.clock.advance(Duration::from_secs(1));
    let expired = app.call(Method::GET, &path, None, None).await;
    assert_eq!(expired.error_code(StatusCode::NOT_FOUND), "not_found");
    assert_eq!(app.app.state.downloads.sweep(), 1);
    let id = path.split('/').nth(2).unwrap();
    assert!(!app.dir.path().join("exports").join(id).exists());
}

#[tokio::test]
async fn download_paths_cannot_climb_out_of_the_exports_folder() {
    let app = seeded().await;
    std::fs::write(app.dir.path().join("secret.txt"), "secret").unwrap();
    let (address, _) = app.export("type=json&languages=en").await;
    let id = address
        .split_once("/exports/")
        .unwrap()
        .1
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    for path in [
        format!("/exports/{id}/../../secret.txt"),
        format!("/exports/{id}/..%2F..%2Fsecret.txt"),
        format!("/exports/{id}/%2e%2e/%2e%2e/secret.txt"),
        format!("/exports/{id}/..%5C..%5Csecret.txt"),
        "/exports/..%2F..%2Fsecret.txt/x".to_owned(),
        format!("/exports/{id}/en.json%00"),
        format!("/exports/{}/en.json", "0".repeat(32)),
    ] {
        let reply = app.call(Method::GET, &path, None, None).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
        assert!(!String::from_utf8_lossy(&reply.body).contains("secret\""), "{path}");
    }
}

#[tokio::test]
async fn the_same_data_exports_the_same_bytes_from_the_same_stored_file_until_it_changes() {
    let app = seeded().await;
    let (first_address, first) = app.export("type=android-xml").await;
    let (second_address, second) = app.export("type=android-xml").await;
    assert_eq!(first.body, second.body);
    // The same export of the same commit is not rendered again (a CI job's pull).
    assert_eq!(first_address, second_address);
    let (other_address, _) = app.export("type=json").await;
    assert_ne!(other_address, first_address);
    app.patch(
        &format!("{}/home.title", EXPORT.trim_end_matches("/export")),
        json!({"translations": [{"language": "fr", "content": "Bienvenue !"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    let (changed_address, changed) = app.export("type=android-xml").await;
    assert_ne!(changed_address, first_address);
    assert_ne!(changed.body, first.body);
}

#[tokio::test]
async fn exports_need_read_access_only_and_commit_nothing() {
    let app = seeded().await;
    let before = app.commit_count();
    let reply = app
        .call(Method::GET, &format!("{EXPORT}?type=csv"), None, Some(&app.read_token))
        .await;
    reply.assert_ok(StatusCode::OK);
    assert_eq!(app.commit_count(), before);
}

/// `at=` exports the project as a past commit, an abbreviated one or a time holds it.
#[tokio::test]
async fn an_export_at_a_past_commit_or_time_has_the_texts_of_then() {
    let app = seeded().await;
    let then = app.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let then_time = app.git(&["log", "-1", "--format=%cI", &then]).trim().to_owned();
    // Commit times have one-second resolution: the changes below come a second later.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    app.patch(
        &format!("{}/home.title", EXPORT.trim_end_matches("/export")),
        json!({"translations": [{"language": "fr", "content": "Bienvenue"}]}),
    )
    .await
    .assert_ok(StatusCode::OK);
    app.create_key("later", &[], &[("fr", "Plus tard")]).await;

    let now = json!({"home.title": "Bienvenue", "later": "Plus tard"});
    let past = json!({"home.title": "Accueil"});
    for (at, expected) in [
        (then.clone(), &past),
        (then[..7].to_owned(), &past),
        (then_time.clone(), &past),
        ("2999-01-01T00:00:00Z".to_owned(), &now),
    ] {
        let (_, download) = app
            .export(&format!("type=json&languages=fr&at={}", at.replace('+', "%2B")))
            .await;
        assert_eq!(&download.json(), expected, "at={at}");
    }
    let (_, download) = app.export("type=json&languages=fr").await;
    assert_eq!(download.json(), now, "without at=, the newest state");

    for (at, status) in [
        ("1970-01-01T00:00:00Z", StatusCode::NOT_FOUND),
        ("deadbeef00", StatusCode::NOT_FOUND),
        ("no-such-snapshot", StatusCode::NOT_FOUND),
        ("not a ref!", StatusCode::BAD_REQUEST),
    ] {
        let reply = app
            .get(&format!("{EXPORT}?type=json&at={}", at.replace(' ', "%20")))
            .await;
        reply.error_code(status);
    }
}
