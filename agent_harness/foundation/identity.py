"""Who the harness acts for: a user, their roles and the ocean regions they may see.

A harness opened with an identity (``agent_harness.connect(identity=...)``, ``workshop mcp
--identity ...``) binds it to its database connections when they open, and the DATABASE
enforces it from then on, for every statement that reaches the data: ``run_sql``, tools
defined as SQL rows, the SUPPLYCHAIN tools, ``get_document``, MCP clients, the catalog scan.

* **Rows**: voyages outside :attr:`Identity.regions` are invisible, and so is everything that
  hangs off them (their vessel positions, containers and cargo items).
* **Columns**: ``cargo_items.unit_value_cents`` reads as NULL without the ``finance`` role,
  in the select list, WHERE, ORDER BY and aggregates alike (no inference through filters).

Without an identity the harness acts for the **workshop owner**, who sees everything
(:meth:`Identity.owner`). An identity is a frozen value: nothing a tool, an SQL statement or
an MCP call sends can change it; a different identity means a different harness (and its own
memory scope: :attr:`Identity.key`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from agent_harness.supplychain.schema import OCEAN_REGIONS

__all__ = ["FINANCE_ROLE", "Identity", "IdentityError"]

#: The role that unmasks ``cargo_items.unit_value_cents``.
FINANCE_ROLE = "finance"

_USER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
_ROLE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_FIELDS = {"user", "roles", "regions"}


class IdentityError(ValueError):
    """An identity that cannot be used; the message says what was wrong and what to give."""


@dataclass(frozen=True)
class Identity:
    """A user, their roles and the ocean regions whose voyages they may see.

    Build one from a dict with :meth:`of` (``{"user": "ana", "roles": ["analyst"],
    "regions": ["ATLANTIC"]}``) or from the command line's short form with :meth:`parse`
    (``ana:analyst:ATLANTIC``).

    Attributes:
        user: Who (letters, digits, ``_ . @ -``; at most 64 characters).
        roles: Role names, lower case, sorted; ``finance`` unmasks unit values.
        regions: ``voyages.ocean_region`` values (PACIFIC, ATLANTIC, INDIAN, MEDITERRANEAN),
            sorted; no regions = no voyages.
        owner: True only for the workshop owner (no identity given): no policy applies.
    """

    user: str
    roles: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    owner: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.user, str) or not _USER.match(self.user):
            raise IdentityError(
                f"identity user {self.user!r} is not valid: use 1-64 letters, digits or"
                " _ . @ - (e.g. 'ana')"
            )
        object.__setattr__(self, "roles", _roles(self.roles))
        object.__setattr__(self, "regions", _regions(self.regions))

    # --- building one ----------------------------------------------------------------------
    @classmethod
    def owner_of(cls, user: str = "workshop") -> Identity:
        """The workshop owner (no identity given): every region, every column."""
        return cls(user=user, roles=(), regions=OCEAN_REGIONS, owner=True)

    @classmethod
    def of(cls, value: Identity | Mapping | str | None) -> Identity | None:
        """An identity from what ``connect(identity=...)`` accepts (None stays None).

        Args:
            value: An :class:`Identity`, a dict with ``user`` (and optional ``roles``,
                ``regions``), the short form of :meth:`parse`, or None.

        Raises:
            IdentityError: Unknown keys, a missing user, a role or region that is not valid.
        """
        if value is None or isinstance(value, Identity):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        if not isinstance(value, Mapping):
            raise IdentityError(
                f"identity must be a dict like {{'user': 'ana', 'roles': ['analyst'],"
                f" 'regions': ['ATLANTIC']}}, not {type(value).__name__}"
            )
        unknown = sorted(set(value) - _FIELDS)
        if unknown:
            raise IdentityError(
                f"identity has unknown keys {unknown}: use only user, roles and regions (the"
                " workshop owner is the harness opened WITHOUT an identity)"
            )
        if "user" not in value:
            raise IdentityError("identity needs a 'user', e.g. {'user': 'ana'}")
        return cls(
            user=value["user"],
            roles=_listed(value.get("roles", ()), "roles"),
            regions=_listed(value.get("regions", ()), "regions"),
        )

    @classmethod
    def parse(cls, text: str) -> Identity:
        """The command line's form: ``user[:role,role[:REGION,REGION]]`` or a JSON object.

        ``ana:analyst:ATLANTIC,PACIFIC`` is user ana, role analyst, two regions;
        ``'{"user": "ana", "roles": ["finance"], "regions": ["INDIAN"]}'`` is the same as
        the dict.

        Raises:
            IdentityError: The text is neither form, or a part is not valid.
        """
        text = str(text).strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except ValueError as e:
                raise IdentityError(f"identity JSON does not parse: {e}") from e
            identity = cls.of(value)
            assert identity is not None  # a JSON object is never None
            return identity
        parts = text.split(":")
        if len(parts) > 3 or not parts[0]:
            raise IdentityError(
                f"identity {text!r} is not 'user[:roles[:regions]]' (e.g."
                " ana:analyst:ATLANTIC,PACIFIC) nor a JSON object"
            )

        def items(i: int) -> list[str]:
            return [p.strip() for p in parts[i].split(",") if p.strip()] if len(parts) > i else []

        return cls(user=parts[0].strip(), roles=tuple(items(1)), regions=tuple(items(2)))

    # --- what it may see -------------------------------------------------------------------
    @property
    def finance(self) -> bool:
        """True when ``cargo_items.unit_value_cents`` reads as its value (not NULL)."""
        return self.owner or FINANCE_ROLE in self.roles

    def sees_region(self, region: str) -> bool:
        """True when voyages of this ocean region are visible."""
        return self.owner or str(region).upper() in self.regions

    @property
    def key(self) -> str:
        """``user:roles:regions`` (sorted): the memory scope of this identity, so what one
        identity stored (notes, offloaded outputs) never reaches another."""
        if self.owner:
            return self.user
        return f"{self.user}:{','.join(self.roles)}:{','.join(self.regions)}"

    def describe(self) -> str:
        """One line: who, and what the database shows them."""
        if self.owner:
            return f"{self.user} (workshop owner: every region, unit values unmasked)"
        regions = ", ".join(self.regions) or "no region"
        roles = ", ".join(self.roles) or "no role"
        masked = "unmasked" if self.finance else "masked (NULL): no finance role"
        return f"{self.user} (roles: {roles}; voyages of {regions}; unit values {masked})"

    def to_dict(self) -> dict:
        """``{"user", "roles", "regions", "owner"}`` as plain lists (JSON, provenance)."""
        return {
            "user": self.user,
            "roles": list(self.roles),
            "regions": list(self.regions),
            "owner": self.owner,
        }


def _listed(value, what: str) -> tuple:
    if isinstance(value, str):
        raise IdentityError(f"identity {what} must be a list, e.g. [{value!r}], not a string")
    if not isinstance(value, Iterable):
        raise IdentityError(f"identity {what} must be a list, not {type(value).__name__}")
    return tuple(value)


def _roles(roles: Iterable[str]) -> tuple[str, ...]:
    out = set()
    for role in roles:
        name = str(role).strip().lower()
        if not _ROLE.match(name):
            raise IdentityError(
                f"role {role!r} is not valid: lower-case letters, digits and _ (e.g. 'analyst',"
                f" '{FINANCE_ROLE}')"
            )
        out.add(name)
    return tuple(sorted(out))


def _regions(regions: Iterable[str]) -> tuple[str, ...]:
    out = set()
    for region in regions:
        name = str(region).strip().upper()
        if name not in OCEAN_REGIONS:
            raise IdentityError(
                f"region {region!r} is not an ocean region; use voyages.ocean_region values:"
                f" {', '.join(OCEAN_REGIONS)}"
            )
        out.add(name)
    return tuple(sorted(out))
