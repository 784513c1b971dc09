"""Whether the service may reach the floor broker: the unit's `IPAddressAllow=`
(systemd/table-controller.service) lets it reach the loopback, link-local, multicast and
private (RFC 1918, ULA) networks only, so a broker elsewhere needs a drop-in
(docs/install.md, "A floor broker outside the private networks"). `tablectl
check-config` warns from here; tests/test_systemd_unit.py holds these networks to the
unit's line."""

from __future__ import annotations

import ipaddress

#: The unit's IPAddressAllow= words, and the networks each stands for.
ALLOWED = {
    "localhost": ("127.0.0.0/8", "::1/128"),
    "link-local": ("169.254.0.0/16", "fe80::/64"),
    "multicast": ("224.0.0.0/4", "ff00::/8"),
    "10.0.0.0/8": ("10.0.0.0/8",),
    "172.16.0.0/12": ("172.16.0.0/12",),
    "192.168.0.0/16": ("192.168.0.0/16",),
    "fc00::/7": ("fc00::/7",),
}
DROP_IN = 'docs/install.md, "A floor broker outside the private networks"'


def broker_warning(host: str) -> str | None:
    """A warning when the service's sandbox would keep the broker ``host`` out; a host
    name cannot be checked (it resolves at run time), which the warning says."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return (
            f"{host} is a host name: whether the service may reach it cannot be checked"
            " here (the unit allows private networks only; a broker elsewhere needs a"
            f" drop-in: {DROP_IN})"
        )
    networks = [ipaddress.ip_network(net) for nets in ALLOWED.values() for net in nets]
    if any(address.version == net.version and address in net for net in networks):
        return None
    return (
        f"{host} is outside the networks the service may reach (the unit's IPAddressAllow=:"
        f" private, loopback and link-local): the link will fail until a drop-in allows"
        f" it ({DROP_IN})"
    )
