"""The Grand Carnival's values: boards, the railyard, the state and the moves."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from scorer.core import GameInfo

__all__ = [
    "ENTRANCES",
    "INFO",
    "SOURCES",
    "TENT",
    "Attraction",
    "Board",
    "Build",
    "CarnivalState",
    "Foundation",
    "Move",
    "Pass",
    "Railyard",
    "Reason",
    "TrickStatus",
    "Walk",
]

#: Walk starts: the two entrances (below row 1) are spots 64 and 65.
ENTRANCES: tuple[int, int] = (64, 65)
#: Walk end: the circus tent, above row 8.
TENT = 66
#: Railyard sources in the notation: the two face-down stacks on space 1, and
#: the open spaces 2..5.
SOURCES: tuple[str, ...] = ("1a", "1b", "2", "3", "4", "5")

ROUNDS = 7
NUMBERS = (1, 2, 3, 4, 5)

#: Fixed facts about the game (`GrandCarnival.info`).
INFO = GameInfo(
    title="The Grand Carnival",
    min_players=1,
    max_players=4,
    hidden_information=True,
    score_unit="points",
)


class Reason(enum.Enum):
    """Why a move is illegal."""

    #: The value given is not a move of this game at all.
    NOT_A_MOVE = "not a move"
    #: The game has ended.
    GAME_OVER = "game over"
    #: Another player is to move.
    NOT_YOUR_TURN = "not your turn"
    #: The action number already holds a figure this round (or is not 1..5).
    NUMBER_TAKEN = "number taken"
    #: A foundation from a railyard space higher than the number allows.
    SPACE_TOO_FAR = "space too far"
    #: The railyard space or stack holds no tile.
    SPACE_EMPTY = "space empty"
    #: The tile named is not the one on that railyard space.
    WRONG_TILE = "wrong tile"
    #: The parcel already holds a foundation tile (or is not a parcel).
    PARCEL_TAKEN = "parcel taken"
    #: Discarding the open tiles, where the rules do not allow it.
    DISCARD_NOT_ALLOWED = "discard not allowed"
    #: An attraction larger than the number allows.
    TOO_LARGE = "too large"
    #: No attraction of that shape is left in the supply.
    NONE_LEFT = "none left"
    #: The fields do not form the attraction's shape.
    NOT_THAT_SHAPE = "not that shape"
    #: The fields form the shape only if the tile is flipped over.
    MIRRORED = "mirrored"
    #: An attraction over a field that is not an empty construction site.
    NOT_ON_SITES = "not on sites"
    #: No guest stands where the walk starts.
    NO_GUEST = "no guest"
    #: The walk ends where it started.
    SAME_FIELD = "same field"
    #: The walk ends on a field guests cannot stand on.
    NOT_WALKABLE = "not walkable"
    #: The walk ends on a guest or a barker.
    OCCUPIED = "occupied"
    #: Guests or barkers stand in the way.
    BLOCKED = "blocked"
    #: The field is further away than the guest may walk.
    TOO_FAR = "too far"
    #: The walk brings a barker, and the move does not say where it goes.
    BARKER_MISSING = "barker missing"
    #: The move places a barker where the rules give none.
    NO_BARKER_DUE = "no barker due"
    #: The barker's field is not an empty walkway.
    BARKER_SPOT = "barker spot"
    #: Passing while an action is possible with that number.
    MUST_ACT = "must act"


class TrickStatus(enum.Enum):
    """Where a player stands with one trick of the trade."""

    #: Nobody has learned it yet; meeting the condition learns it.
    OPEN = "open"
    #: Someone learned it: meet the condition on your next turn or lose it.
    PENDING = "pending"
    #: Learned: its effect applies from the learner's next turn on.
    LEARNED = "learned"
    #: Missed: the marker figure went back to the box.
    LOST = "lost"


@dataclass(frozen=True, slots=True)
class Attraction:
    """A built attraction: its shape name, its fields (bitmask) and its tickets."""

    shape: str
    mask: int
    tickets: int


@dataclass(frozen=True, slots=True)
class Board:
    """One player's market and pieces.

    ``walkways``, ``sites`` and ``covered`` are bitmasks derived from
    ``parcels`` and ``attractions``; they are stored for speed.
    """

    #: The foundation pattern on each of the 16 parcels, None where empty.
    parcels: tuple[str | None, ...]
    attractions: tuple[Attraction, ...]
    walkways: int
    sites: int
    covered: int
    #: Guests standing on the market (bitmask).
    guests: int
    #: Whether a guest waits on each of the two entrances.
    entrances: tuple[bool, bool]
    #: Guests in the circus tent.
    tent: int
    #: Barkers on the market (bitmask).
    barkers: int
    #: The action numbers that hold a figure this round.
    numbers: frozenset[int]
    #: This player's status for each dealt trick, in the state's trick order.
    tricks: tuple[TrickStatus, ...]

    @property
    def tickets(self) -> int:
        """All tickets on this market."""
        return sum(a.tickets for a in self.attractions)

    @property
    def tricks_learned(self) -> int:
        """How many tricks this player has learned."""
        return sum(1 for t in self.tricks if t is TrickStatus.LEARNED)


@dataclass(frozen=True, slots=True)
class Railyard:
    """The shared railyard ("Waggon-Plan").

    ``stacks`` are the two face-down stacks on space 1, top tile first; an
    entry None is a tile the state cannot see (a live table), whose identity a
    move names. ``open`` holds the open tiles on spaces 2, 3, ... in order
    (at most 4; tiles slide left, so there are no gaps).
    """

    stacks: tuple[tuple[str | None, ...], tuple[str | None, ...]]
    open: tuple[str | None, ...]
    discard: tuple[str | None, ...]


@dataclass(frozen=True, slots=True)
class CarnivalState:
    """A whole table of The Grand Carnival."""

    players: tuple[str, ...]
    boards: tuple[Board, ...]
    railyard: Railyard
    #: Attractions left in the supply, in catalog shape order.
    supply: tuple[int, ...]
    #: Barkers left in the shared supply.
    barkers: int
    #: The dealt tricks of the trade, by name.
    tricks: tuple[str, ...]
    #: 0..6 while playing, 7 when the game is over.
    round: int
    start_player: int
    #: Turns played in this round (0 .. 5 * players - 1).
    turn: int
    #: Seed for shuffling the discard pile into a new stack; None at a live
    #: table, where a reshuffled stack is unseen.
    seed: int | None
    #: How many times the discard pile has been shuffled.
    reshuffles: int


@dataclass(frozen=True, slots=True)
class Foundation:
    """Take a foundation tile from the railyard and lay it on an empty parcel."""

    seat: int
    number: int
    #: "1a" / "1b" (a face-down stack) or "2".."5" (an open space).
    source: str
    #: The pattern of the tile taken, e.g. "ws/ss".
    tile: str
    parcel: int
    #: After a face-down tile: throw the open tiles away and refill.
    discard: bool = False


@dataclass(frozen=True, slots=True)
class Build:
    """Take an attraction from the supply and build it on empty sites."""

    seat: int
    number: int
    shape: str
    #: The fields it covers (bitmask).
    mask: int


@dataclass(frozen=True, slots=True)
class Walk:
    """Move one guest; place a barker if the move empties both entrances."""

    seat: int
    number: int
    #: A field 0..63, or an entrance (`ENTRANCES`).
    start: int
    #: A field 0..63, or `TENT`.
    end: int
    barker: int | None = None


@dataclass(frozen=True, slots=True)
class Pass:
    """Place the figure and do nothing: no action is possible with this number."""

    seat: int
    number: int


Move = Foundation | Build | Walk | Pass
