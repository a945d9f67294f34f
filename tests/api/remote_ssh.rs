//! An SSH git remote: OpenSSH's own server (Debian's openssh-server, installed by
//! scripts/test.sh) on a loopback port, with a host key and a client key made for the test.
//! The server authenticates with `--remote-ssh-key` and checks the host key against
//! `~/.ssh/known_hosts`, as git does.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::helpers::{ADMIN, git_in, git_in_env};
use crate::remote_http::wait_for;
use crate::server::Server;

struct SshGitServer {
    dir: tempfile::TempDir,
    port: u16,
    sshd: Child,
}

fn keygen(path: &Path) {
    let output = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "locstore-test", "-f"])
        .arg(path)
        .output()
        .expect("ssh-keygen runs (scripts/test.sh installs openssh)");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

impl SshGitServer {
    fn start() -> Self {
        let sshd = PathBuf::from("/usr/sbin/sshd");
        assert!(
            sshd.exists(),
            "/usr/sbin/sshd is missing: run the tests with `bash scripts/test.sh`, which installs openssh-server"
        );
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git_in(root, &["init", "-q", "--bare", "-b", "main", "strings.git"]);
        keygen(&root.join("host_key"));
        keygen(&root.join("client_key"));
        std::fs::copy(root.join("client_key.pub"), root.join("authorized_keys")).unwrap();
        // sshd running as root wants its privilege separation folder.
        let _ = std::fs::create_dir_all("/run/sshd");
        let port = crate::helpers::free_port();
        let r = root.display();
        std::fs::write(
            root.join("sshd_config"),
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {r}/host_key\nPidFile {r}/sshd.pid\n\
                 AuthorizedKeysFile {r}/authorized_keys\nStrictModes no\nUsePAM no\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\n\
                 PermitRootLogin prohibit-password\nPermitUserEnvironment no\n"
            ),
        )
        .unwrap();
        let child = Command::new(&sshd)
            .args(["-D", "-e", "-f"])
            .arg(root.join("sshd_config"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(root.join("sshd.log")).unwrap())
            .spawn()
            .expect("sshd starts");
        let server = Self { dir, port, sshd: child };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "sshd does not listen: {}",
                std::fs::read_to_string(server.dir.path().join("sshd.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    fn user() -> String {
        let output = Command::new("id").arg("-un").output().unwrap();
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    }

    fn url(&self) -> String {
        format!(
            "ssh://{}@127.0.0.1:{}{}",
            Self::user(),
            self.port,
            self.bare().display()
        )
    }

    fn bare(&self) -> PathBuf {
        self.dir.path().join("strings.git")
    }

    fn client_key(&self) -> PathBuf {
        self.dir.path().join("client_key")
    }

    /// A home folder whose `.ssh/known_hosts` names this server's host key.
    fn home_knowing_the_host(&self, home: &Path) {
        let host_key = std::fs::read_to_string(self.dir.path().join("host_key.pub")).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(
            home.join(".ssh/known_hosts"),
            format!("[127.0.0.1]:{} {host_key}", self.port),
        )
        .unwrap();
    }

    /// Runs git against the remote with the client key, trusting this server's host key.
    fn git(&self, dir: &Path, home: &Path, args: &[&str]) -> String {
        let ssh = format!(
            "ssh -i {} -o IdentitiesOnly=yes -o UserKnownHostsFile={} -o StrictHostKeyChecking=yes",
            self.client_key().display(),
            home.join(".ssh/known_hosts").display()
        );
        git_in_env(dir, &[("GIT_SSH_COMMAND", ssh.as_ref())], args)
    }
}

impl Drop for SshGitServer {
    fn drop(&mut self) {
        let _ = self.sshd.kill();
        let _ = self.sshd.wait();
    }
}

/// The binary with the SSH remote and its key; `home` is the server's home folder (where
/// `.ssh/known_hosts` is read).
fn serve(data: &Path, remote: &SshGitServer, home: &Path) -> Server {
    let mut command = Command::new(env!("CARGO_BIN_EXE_locstore"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--pull-interval", "1s"])
        .arg("--remote")
        .arg(remote.url())
        .arg("--remote-ssh-key")
        .arg(remote.client_key())
        .arg("--data-dir")
        .arg(data)
        .env("HOME", home)
        .env("LOCSTORE_API_TOKEN", ADMIN)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    Server::from_command(command)
}

/// With the host key in `known_hosts`, changes are pushed over SSH with the key file and a
/// commit pushed by someone else comes back; with an unknown host key nothing is pushed and
/// `/sync` says why.
#[test]
fn an_ssh_remote_takes_pushes_with_a_key_file_and_an_unknown_host_is_refused() {
    let remote = SshGitServer::start();
    let data = tempfile::tempdir().unwrap();
    let admin = Some(ADMIN);
    let team = Some(r#"{"name":"acme","displayName":"Acme"}"#);

    let stranger_home = data.path().join("stranger-home");
    std::fs::create_dir_all(&stranger_home).unwrap();
    let stranger = serve(&data.path().join("stranger"), &remote, &stranger_home);
    assert_eq!(stranger.request("POST", "/teams", admin, team).0, 201);
    let mut sync = serde_json::Value::Null;
    wait_for("the refused host key in /sync", Duration::from_secs(20), || {
        sync = serde_json::from_str(&stranger.request("GET", "/sync", admin, None).1).unwrap();
        sync["lastError"].is_string()
    });
    let error = sync["lastError"].as_str().unwrap_or_default().to_lowercase();
    assert!(error.contains("hostkey") || error.contains("host key"), "{sync}");
    assert_eq!(crate::helpers::main_branch_head(&remote.bare()), None);
    drop(stranger);

    let home = data.path().join("home");
    remote.home_knowing_the_host(&home);
    let server = serve(&data.path().join("server"), &remote, &home);
    assert_eq!(server.request("POST", "/teams", admin, team).0, 201);
    let head = || {
        git_in(&data.path().join("server/repo"), &["rev-parse", "HEAD"])
            .trim()
            .to_owned()
    };
    wait_for("the push over SSH", Duration::from_secs(20), || {
        crate::helpers::main_branch_head(&remote.bare()) == Some(head())
    });
    let sync: serde_json::Value = serde_json::from_str(&server.request("GET", "/sync", admin, None).1).unwrap();
    assert!(!sync.to_string().contains("client_key"), "{sync}");

    let work = tempfile::tempdir().unwrap();
    remote.git(work.path(), &home, &["clone", "-q", &remote.url(), "clone"]);
    let clone = work.path().join("clone");
    let team_file = clone.join("teams/acme/team.toml");
    let text = std::fs::read_to_string(&team_file).unwrap();
    std::fs::write(&team_file, text.replace("\"Acme\"", "\"Acme over SSH\"")).unwrap();
    remote.git(&clone, &home, &["commit", "-qam", "Rename the team"]);
    remote.git(&clone, &home, &["push", "-q", "origin", "main"]);
    wait_for("the fetched rename", Duration::from_secs(20), || {
        server.request("GET", "/teams", admin, None).1.contains("Acme over SSH")
    });
}
