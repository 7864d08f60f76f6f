//! Which destinations `geo-probe links` may request: the pure rule "is this address public".
//!
//! The links a run's answers write are third-party text (a model writes them, often copied
//! from pages anyone can write), so by default the check never sends a request to a machine
//! that is not on the public internet: loopback, the local network, link-local (the cloud
//! metadata address `169.254.169.254`), carrier-grade NAT, benchmarking, multicast,
//! broadcast and reserved space (security-3 M2, `shared/spec/cli.md`).
//!
//! The rule is checked twice, on the same function:
//! - here on a URL's host before any request ([`is_private_host`]): an IP literal in any
//!   spelling (`2130706433`, `0x7f000001`, `127.1` and `[::ffff:127.0.0.1]` are all
//!   `127.0.0.1` once `url` has parsed them) and the names that are loopback by definition
//!   (`localhost`, `*.localhost`, RFC 6761);
//! - by the CLI on every address a name resolves to, inside the HTTP client's resolver, so
//!   the addresses checked are the ones connected to (every redirect hop, and a name that
//!   changes its answer between a check and the connection, cannot get past it).
//!
//! IPv4 follows IANA's special-purpose registry ("globally reachable: false") plus multicast;
//! IPv6 is public only inside global unicast `2000::/3`, so `::`, `::1`, the IPv4-mapped
//! (`::ffff:0:0/96`) and IPv4-compatible (`::/96`) forms, NAT64 (`64:ff9b::/96`), unique
//! local (`fc00::/7`), link-local (`fe80::/10`) and multicast (`ff00::/8`) all fall outside it;
//! inside it, documentation (`2001:db8::/32`) and a 6to4 address (`2002::/16`) whose embedded
//! IPv4 address is not public are refused too.

use core::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The IPv4 blocks that are not public, as (first address, prefix length).
const PRIVATE_V4: [([u8; 4], u8); 16] = [
    ([0, 0, 0, 0], 8),          // "this network"
    ([10, 0, 0, 0], 8),         // private (RFC 1918)
    ([100, 64, 0, 0], 10),      // carrier-grade NAT (RFC 6598)
    ([127, 0, 0, 0], 8),        // loopback
    ([169, 254, 0, 0], 16),     // link-local, the cloud metadata address among them
    ([172, 16, 0, 0], 12),      // private (RFC 1918)
    ([192, 0, 0, 0], 24),       // IETF protocol assignments
    ([192, 0, 2, 0], 24),       // documentation (TEST-NET-1)
    ([192, 88, 99, 0], 24),     // the retired 6to4 relay anycast
    ([192, 168, 0, 0], 16),     // private (RFC 1918)
    ([198, 18, 0, 0], 15),      // benchmarking (RFC 2544)
    ([198, 51, 100, 0], 24),    // documentation (TEST-NET-2)
    ([203, 0, 113, 0], 24),     // documentation (TEST-NET-3)
    ([224, 0, 0, 0], 4),        // multicast
    ([240, 0, 0, 0], 4),        // reserved
    ([255, 255, 255, 255], 32), // limited broadcast (inside 240/4; named for the reader)
];

/// Whether `ip` lies in the block starting at `base` with `prefix` leading bits.
fn in_v4_block(ip: Ipv4Addr, base: [u8; 4], prefix: u8) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(base)) & mask
}

/// Whether an IPv4 address is public: in none of the blocks of `PRIVATE_V4`.
pub fn is_public_v4(ip: Ipv4Addr) -> bool {
    !PRIVATE_V4.iter().any(|&(base, prefix)| in_v4_block(ip, base, prefix))
}

/// Whether an IPv6 address is public: global unicast (`2000::/3`), not documentation, and
/// not a 6to4 address that carries an IPv4 address which is not public.
pub fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let global_unicast = s[0] & 0xe000 == 0x2000;
    let documentation = s[0] == 0x2001 && s[1] == 0x0db8;
    let private_6to4 = s[0] == 0x2002 && {
        let [a, b] = s[1].to_be_bytes();
        let [c, d] = s[2].to_be_bytes();
        !is_public_v4(Ipv4Addr::new(a, b, c, d))
    };
    global_unicast && !documentation && !private_6to4
}

/// Whether `ip` is a public address, one `geo-probe links` may request without
/// `--allow-private`.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

/// Whether the host of `url` is known not to be public before any lookup: an IP literal that
/// is not public, or a name that is loopback by definition (`localhost`, `*.localhost`).
/// Any other name is judged on the addresses it resolves to, by the shell.
pub fn is_private_host(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(v4)) => !is_public_v4(v4),
        Some(url::Host::Ipv6(v6)) => !is_public_v6(v6),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ip` parses, and is public exactly when `public` says so.
    #[track_caller]
    fn check(ip: &str, public: bool) {
        let parsed: IpAddr = ip.parse().unwrap_or_else(|_| panic!("{ip} is an address"));
        assert_eq!(is_public(parsed), public, "{ip}");
    }

    /// The host of `url`, as `url` parses it, is refused before any lookup exactly when
    /// `private` says so.
    #[track_caller]
    fn check_url(url: &str, private: bool) {
        let parsed = url::Url::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
        assert_eq!(is_private_host(&parsed), private, "{url} (host {:?})", parsed.host_str());
    }

    // security-3 M2: every refused IPv4 block, at its first and last address, and the public
    // addresses just outside it.
    #[test]
    fn ipv4_blocks() {
        for (ip, public) in [
            ("0.0.0.0", false),
            ("0.255.255.255", false),
            ("1.0.0.0", true),
            ("9.255.255.255", true),
            ("10.0.0.0", false),
            ("10.255.255.255", false),
            ("11.0.0.0", true),
            ("100.63.255.255", true),
            ("100.64.0.0", false),
            ("100.127.255.255", false),
            ("100.128.0.0", true),
            ("126.255.255.255", true),
            ("127.0.0.1", false),
            ("127.255.255.255", false),
            ("128.0.0.0", true),
            ("169.253.255.255", true),
            ("169.254.0.0", false),
            ("169.254.169.254", false),
            ("169.254.255.255", false),
            ("169.255.0.0", true),
            ("172.15.255.255", true),
            ("172.16.0.0", false),
            ("172.31.255.255", false),
            ("172.32.0.0", true),
            ("192.0.0.1", false),
            ("192.0.1.0", true),
            ("192.0.2.1", false),
            ("192.88.99.1", false),
            ("192.167.255.255", true),
            ("192.168.0.0", false),
            ("192.168.255.255", false),
            ("192.169.0.0", true),
            ("198.17.255.255", true),
            ("198.18.0.0", false),
            ("198.19.255.255", false),
            ("198.20.0.0", true),
            ("198.51.100.7", false),
            ("203.0.113.7", false),
            ("223.255.255.255", true),
            ("224.0.0.1", false),
            ("239.255.255.255", false),
            ("240.0.0.1", false),
            ("255.255.255.255", false),
            ("8.8.8.8", true),
            ("93.184.216.34", true),
            ("1.1.1.1", true),
        ] {
            check(ip, public);
        }
    }

    // security-3 M2: IPv6 is public only in global unicast; every other form is refused.
    #[test]
    fn ipv6_blocks() {
        for (ip, public) in [
            ("::", false),
            ("::1", false),
            ("::ffff:127.0.0.1", false),
            ("::ffff:7f00:1", false),
            ("::ffff:10.0.0.1", false),
            ("::ffff:8.8.8.8", false),
            ("::127.0.0.1", false),
            ("::8.8.8.8", false),
            ("64:ff9b::7f00:1", false),
            ("64:ff9b::808:808", false),
            ("64:ff9b:1::1", false),
            ("100::1", false),
            ("fc00::1", false),
            ("fd12:3456:789a::1", false),
            ("fe80::1", false),
            ("febf::1", false),
            ("fec0::1", false),
            ("ff02::1", false),
            ("ff0e::1", false),
            ("1fff:ffff::1", false),
            ("2001:db8::1", false),
            ("2002:7f00:1::1", false),
            ("2002:a00:1::1", false),
            ("2002:808:808::1", true),
            ("2001:4860:4860::8888", true),
            ("2606:4700:4700::1111", true),
            ("2400:cb00::1", true),
            ("3fff:ffff::1", true),
            ("4000::1", false),
        ] {
            check(ip, public);
        }
    }

    // security-3 M2: the spellings of the review's black-box run, as `url` parses them, and the
    // loopback names; any other name is left to the resolver.
    #[test]
    fn url_hosts_in_every_spelling() {
        for (url, private) in [
            ("http://127.0.0.1:18912/admin/direct", true),
            ("http://2130706433:18912/x", true),
            ("http://0x7f000001:18912/x", true),
            ("http://0x7F.0.0.1/x", true),
            ("http://0177.0.0.1/x", true),
            ("http://127.1:18912/x", true),
            ("http://127.0.1/x", true),
            ("http://[::ffff:127.0.0.1]:18912/x", true),
            ("http://[::1]/x", true),
            ("http://[::]/x", true),
            ("http://0.0.0.0/x", true),
            ("http://0/x", true),
            ("http://169.254.169.254/latest/meta-data/", true),
            ("http://10.1.2.3/", true),
            ("http://[fe80::1]/", true),
            ("https://localhost/x", true),
            ("https://LOCALHOST./x", true),
            ("https://api.localhost/x", true),
            ("http://user:pw@127.0.0.1/x", true),
            ("https://example.com/x", false),
            ("https://localhost.example.com/x", false),
            ("https://8.8.8.8/", false),
            ("https://[2001:4860:4860::8888]/", false),
        ] {
            check_url(url, private);
        }
    }
}
