"""Whether an enrolled deck of foundation tiles fits the component values a market is read with.

A deck is enrolled with one set of component values (`firmware.enroll`): its photos are named by
the foundation patterns of that set, and its card keeps them (``foundations``). Read with values
whose foundation patterns differ, the deck would name a tile it was never shown as the look-alike it
was shown, or know a pattern the table cannot hold; such a deck is refused, never guessed with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorer.grand_carnival.components import CATALOG, Catalog
from vision.enroll import DeckError

__all__ = ["check_deck", "deck_foundations"]


def deck_foundations(card: Mapping[str, Any]) -> tuple[str, ...]:
    """The foundation patterns of the values a deck was enrolled with (its card's ``foundations``).

    A deck enrolled before the card kept them was named by the shipped patterns (enrolment read
    no user file then), so those are its patterns.
    """
    kept = card.get("foundations")
    if isinstance(kept, Sequence) and not isinstance(kept, str) and all(isinstance(p, str) for p in kept):
        return tuple(kept)
    return tuple(CATALOG.foundations)


def check_deck(deck: Any, catalog: Catalog, values: str = "") -> None:
    """Refuse ``deck`` when its enrolment values' foundation patterns differ from ``catalog``'s.

    ``values`` names where ``catalog``'s values came from (a file; "" for the shipped ``components.toml``).

    :raises DeckError: one line naming the deck, the values and each pattern that differs.
    """
    card: Mapping[str, Any] = getattr(deck, "card", None) or {}
    enrolled = deck_foundations(card)
    now = tuple(catalog.foundations)
    missing = [p for p in now if p not in enrolled]
    extra = [p for p in enrolled if p not in now]
    if not missing and not extra:
        return
    name = getattr(deck, "name", "") or card.get("name", "?")
    values = values or "the shipped components.toml"
    was = card.get("components_file") or "the shipped components.toml"
    parts = ([f"{', '.join(missing)} not in the deck's values"] if missing else []) + \
            ([f"{', '.join(extra)} not in these values"] if extra else [])
    raise DeckError(f"deck {name} was enrolled with the component values of {was}, whose foundation patterns "
                    f"differ from {values}'s ({'; '.join(parts)}): enrol the deck again with these values "
                    "(ringside enroll grand-carnival --components FILE), or read with the deck's values")
