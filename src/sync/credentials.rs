//! Credentials for the remote, and keeping them out of what the server says: libgit2's
//! credential callbacks, and URLs and git's messages with passwords and tokens blotted out.

use git2::{Cred, CredentialType, RemoteCallbacks};

use super::RemoteSettings;

/// Credentials from the settings, offered once per operation: libgit2 asks again after a
/// refusal, and a wrong password must fail, not loop.
pub fn credentials(settings: &RemoteSettings) -> RemoteCallbacks<'static> {
    let mut callbacks = RemoteCallbacks::new();
    let token = settings.token.clone();
    let ssh_key = settings.ssh_key.clone();
    let mut offered = false;
    callbacks.credentials(move |_url, user, allowed| {
        if std::mem::replace(&mut offered, true) {
            return Err(git2::Error::from_str("the remote refused the credentials"));
        }
        if allowed.contains(CredentialType::SSH_KEY)
            && let Some(key) = &ssh_key
        {
            return Cred::ssh_key(user.unwrap_or("git"), None, key, None);
        }
        if allowed.contains(CredentialType::USER_PASS_PLAINTEXT)
            && let Some(token) = &token
        {
            return Cred::userpass_plaintext(user.unwrap_or("locstore"), token);
        }
        Err(git2::Error::from_str(
            "the remote asks for credentials and none are set",
        ))
    });
    callbacks
}

/// `url` without a password or token in its user part.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(name, _)| name);
            let slash = if rest.contains('/') { "/" } else { "" };
            format!("{scheme}://{user}@{host}{slash}{path}")
        }
        None => url.to_owned(),
    }
}

/// `message` with the token and the URL's password blotted out, should git quote them.
pub fn without_secrets(settings: &RemoteSettings, message: &str) -> String {
    let mut message = message.replace(&settings.url, &redact(&settings.url));
    let password = settings
        .url
        .split_once("://")
        .and_then(|(_, rest)| rest.split('/').next())
        .and_then(|authority| authority.rsplit_once('@'))
        .and_then(|(user, _)| user.split_once(':'))
        .map(|(_, password)| password.to_owned());
    for secret in settings.token.iter().chain(password.iter()) {
        if !secret.is_empty() {
            message = message.replace(secret.as_str(), "***");
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_their_password() {
        assert_eq!(
            redact("https://bot:s3cret@git.example.com/acme/strings.git"),
            "https://bot@git.example.com/acme/strings.git"
        );
        assert_eq!(redact("https://git.example.com/a.git"), "https://git.example.com/a.git");
        assert_eq!(redact("git://127.0.0.1:9418/repo"), "git://127.0.0.1:9418/repo");
        assert_eq!(redact("/srv/git/strings.git"), "/srv/git/strings.git");
        assert_eq!(redact("ssh://git@host/repo"), "ssh://git@host/repo");
    }

    #[test]
    fn messages_lose_the_password_and_the_token() {
        let settings = RemoteSettings {
            url: "https://bot:s3cret@git.example.com/strings.git".into(),
            branch: "main".into(),
            token: Some("tok3n".into()),
            ssh_key: None,
            pull_interval: std::time::Duration::from_secs(10),
            replica: false,
        };
        let message = "unable to access 'https://bot:s3cret@git.example.com/strings.git': \
                       tok3n refused; s3cret";
        assert_eq!(
            without_secrets(&settings, message),
            "unable to access 'https://bot@git.example.com/strings.git': *** refused; ***"
        );
    }
}
