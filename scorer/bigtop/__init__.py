"""Big Top and its Fan Tan variant.

>>> import scorer
>>> scorer.get("bigtop").info.title, scorer.get("fantan").info.title
('Big Top', 'Fan Tan')
"""

from scorer import register
from scorer.bigtop.cards import DECK, Card, Shade, Suit
from scorer.bigtop.engine import (
    Action,
    BigTop,
    BigTopMove,
    BigTopState,
    FanTan,
    Pile,
    Reason,
    TrackToken,
    slide,
    track_token,
)
from scorer.bigtop.observe import Inference, InferenceKind, TableSnapshot, infer_move, snapshot

register(BigTop)
register(FanTan)

__all__ = [
    "DECK",
    "Action",
    "BigTop",
    "BigTopMove",
    "BigTopState",
    "Card",
    "FanTan",
    "Inference",
    "InferenceKind",
    "Pile",
    "Reason",
    "Shade",
    "Suit",
    "TableSnapshot",
    "TrackToken",
    "infer_move",
    "slide",
    "snapshot",
    "track_token",
]
