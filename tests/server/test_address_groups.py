"""Per-address limits count an IPv6 client by its /64 (one host is usually given a whole /64:
counting single addresses would give it 2^64 allowances) and an IPv4-mapped address as IPv4."""

from __future__ import annotations

from server.net.addresses import in_networks, parse_networks
from server.net.admission import SocketGate
from server.storage.sessions import address_group, lobbies_key, new_session_key


def test_the_name_an_address_is_counted_under() -> None:
    assert address_group("203.0.113.9") == "203.0.113.9"
    assert address_group("::ffff:203.0.113.9") == "203.0.113.9"
    assert address_group("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert address_group("?") == "?"
    assert new_session_key("2001:db8:1:2::7") == new_session_key("2001:db8:1:2::8")
    assert lobbies_key("2001:db8:1:2::7") == lobbies_key("2001:db8:1:2::8")


def test_one_slash_64_shares_one_allowance_of_sockets() -> None:
    gate = SocketGate(per_addr=2, total=100, trusted=parse_networks("", "trusted-proxies"))
    names = [gate.accept(f"2001:db8:1:2::{i}") for i in (1, 2)]
    assert names == ["2001:db8:1:2::/64"] * 2
    assert gate.accept("2001:db8:1:2::3") is None  # a third address of the same /64
    assert gate.accept("2001:db8:1:3::1") == "2001:db8:1:3::/64"  # another /64: its own
    for name in names:
        assert name is not None
        gate.release(name)
    assert gate.accept("2001:db8:1:2::3") is not None


def test_the_exempt_networks_setting_and_who_is_in_it() -> None:
    """--limit-exempt as the hello, the lobby limit and the account claim read it (one reading,
    net/addresses.py): host bits allowed, empty items skipped; an IPv4 peer as a dual-stack
    socket reports it (::ffff:a.b.c.d) is in its IPv4 network; a peer that is no address
    (a unix socket's) is in none."""
    nets = parse_networks(" 10.1.2.3/8 ,, 127.0.0.0/8, ::1", "limit-exempt")
    assert [str(n) for n in nets] == ["10.0.0.0/8", "127.0.0.0/8", "::1/128"]
    assert parse_networks("", "limit-exempt") == []
    assert in_networks("127.0.0.5", nets) and in_networks("::1", nets)
    assert in_networks("::ffff:127.0.0.1", nets)
    assert not in_networks("192.168.1.1", nets) and not in_networks("not an address", nets)
