//! Where a receiver's address goes, without a thread per delivery.
//!
//! ureq looks a host up before every request, even one that goes over a kept connection, and
//! when the call has a timeout (every delivery has: [`super::TIMEOUT`]) it does so on a new
//! thread, so that a hanging lookup can be given up. At 2,000 deliveries a second that thread
//! was a third of the deliveries' CPU (its creation, its stack's page faults, the channel
//! back). So: a receiver named by its IP address (`http://10.0.0.7:8080/hook`) is not looked
//! up at all, and a name's addresses, looked up by ureq's resolver within the timeout, are kept
//! for [`KEPT_FOR`] (as Java and most HTTP clients keep them).
//!
//! ureq's resolver interface is outside its semver promise; `Cargo.lock` pins the version.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// How long a name's addresses are used before it is looked up again.
const KEPT_FOR: Duration = Duration::from_secs(30);

#[derive(Debug, Default)]
pub struct Receivers {
    lookup: DefaultResolver,
    /// `host:port` → when it was looked up, and its addresses.
    names: Mutex<HashMap<String, (Instant, ResolvedSocketAddrs)>>,
}

impl Resolver for Receivers {
    fn resolve(&self, uri: &Uri, config: &Config, timeout: NextTimeout) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let host_and_port = uri
            .scheme()
            .zip(uri.authority())
            .and_then(|(scheme, authority)| DefaultResolver::host_and_port(scheme, authority));
        let Some(host_and_port) = host_and_port else {
            return self.lookup.resolve(uri, config, timeout);
        };
        // An address in the URL (`[::1]:8080` too) is the address.
        if let Ok(address) = host_and_port.parse::<SocketAddr>() {
            let mut addresses = self.empty();
            addresses.push(address);
            return Ok(addresses);
        }
        let mut names = self.names.lock().unwrap_or_else(|poison| poison.into_inner());
        if let Some((at, addresses)) = names.get(&host_and_port)
            && at.elapsed() < KEPT_FOR
        {
            return Ok(addresses.clone());
        }
        drop(names);
        let addresses = self.lookup.resolve(uri, config, timeout)?;
        names = self.names.lock().unwrap_or_else(|poison| poison.into_inner());
        names.retain(|_, (at, _)| at.elapsed() < KEPT_FOR);
        names.insert(host_and_port, (Instant::now(), addresses.clone()));
        Ok(addresses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(receivers: &Receivers, url: &str) -> Vec<SocketAddr> {
        let uri: Uri = url.parse().unwrap();
        let config = Config::default();
        let timeout = NextTimeout {
            after: ureq::unversioned::transport::time::Duration::from_secs(10),
            reason: ureq::Timeout::Resolve,
            per_read: None,
            per_write: None,
        };
        receivers.resolve(&uri, &config, timeout).unwrap().to_vec()
    }

    #[test]
    fn addresses_are_taken_as_they_are_and_names_are_looked_up_once_while_kept() {
        let receivers = Receivers::default();
        assert_eq!(
            resolve(&receivers, "http://127.0.0.1:9/hook"),
            ["127.0.0.1:9".parse::<SocketAddr>().unwrap()]
        );
        assert_eq!(
            resolve(&receivers, "https://[::1]/hook"),
            ["[::1]:443".parse::<SocketAddr>().unwrap()]
        );
        assert!(receivers.names.lock().unwrap().is_empty(), "no lookup for an address");
        let found = resolve(&receivers, "http://localhost:8080/hook");
        assert!(
            !found.is_empty()
                && found
                    .iter()
                    .all(|address| address.port() == 8080 && address.ip().is_loopback())
        );
        assert_eq!(receivers.names.lock().unwrap().len(), 1);
        assert_eq!(resolve(&receivers, "http://localhost:8080/other"), found);
    }
}
