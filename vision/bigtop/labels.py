"""Classifier labels for Big Top: card notations plus backs, tokens and "none".

>>> LABELS[0], LABELS[-1], len(LABELS)
('clowns-P', 'none', 59)
>>> kind_of("token-back")
<Kind.TOKEN: 'token'>
"""

from __future__ import annotations

from scorer.bigtop.cards import DECK
from vision.classify import NONE
from vision.geometry import Kind

__all__ = ["LABELS", "NONE", "BACK", "TOKEN_VALUES", "TOKEN_BACK", "Kind", "kind_of", "token_label"]

BACK = "back"
TOKEN_BACK = "token-back"
#: Gate-receipt token values, one set per player.
TOKEN_VALUES: tuple[int, ...] = (10, 7, 5, 3)


def token_label(value: int) -> str:
    """Label of a face-up token: ``token-10``."""
    return f"token-{value}"


LABELS: tuple[str, ...] = (
    *(c.notation() for c in DECK),
    BACK,
    *(token_label(v) for v in TOKEN_VALUES),
    TOKEN_BACK,
    NONE,
)


def kind_of(label: str) -> Kind:
    """The component kind of a label.

    :raises ValueError: for a string that is not in `LABELS`.
    """
    if label not in _INDEX:
        raise ValueError(f"unknown label {label!r}")
    if label == NONE:
        return Kind.NONE
    if label.startswith("token-"):
        return Kind.TOKEN
    return Kind.CARD


_INDEX = {lab: i for i, lab in enumerate(LABELS)}
