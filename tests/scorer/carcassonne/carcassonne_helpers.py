"""Build Carcassonne positions from move texts for the tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import scorer
from scorer.carcassonne import Carcassonne, State
from scorer.carcassonne.engine import initial_state
from scorer.carcassonne.model import Animal
from scorer.core import Check, Event

GAME: Carcassonne = scorer.get("carcassonne")  # type: ignore[assignment]


class Table:
    """A game whose draws are unknown (like a replayed record), played by text."""

    def __init__(
        self,
        players: Sequence[str] = ("Red", "Blue"),
        *,
        expansion: bool = True,
        tiny_city_points: int = 4,
        tokens: Sequence[str] = ("seal", "bear", "monkey", "tiger"),
        start: str = "D",
    ) -> None:
        self.players = tuple(players)
        animals = [Animal(t) for t in tokens] if expansion else []
        self.state: State = initial_state(self.players, expansion, tiny_city_points, start, None, animals)
        self.events: list[Event] = []

    def play(self, *texts: str) -> list[Event]:
        """Play each move (checked); return the events of the last one."""
        last: list[Event] = []
        for text in texts:
            move = GAME.parse_move(self.state, text)
            self.state, events = GAME.play(self.state, move)
            last = list(events)
            self.events.extend(events)
        return last

    def check(self, text: str) -> Check:
        """The verdict on a move written as text, without playing it."""
        return GAME.check(self.state, GAME.parse_move(self.state, text))

    def finish(self) -> list[Event]:
        """Final scoring where the game stands."""
        self.state, events = GAME.finish(self.state)
        self.events.extend(events)
        return list(events)

    def score(self, name: str) -> int:
        """A player's total points."""
        return self.state.scores[self.players.index(name)]

    def category(self, name: str, category: str) -> int:
        """A player's points in one category (road, city, ..., ringmaster)."""
        from scorer.carcassonne.model import CATEGORIES, Category

        return self.state.points[self.players.index(name)][CATEGORIES.index(Category(category))]


def points_of(events: Sequence[Event], what: str, players: Sequence[str]) -> dict[str, int]:
    """The points the events named ``what`` gave, by player name."""
    out: dict[str, int] = {}
    for event in events:
        if event.what == what:
            for seat, amount in event.points:
                out[players[seat]] = out.get(players[seat], 0) + amount
    return out


def record(moves: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    """A record with the usual header (two players, the expansion) and these moves."""
    out: dict[str, Any] = {
        "game": "carcassonne",
        "expansions": ["under-the-big-top"],
        "players": ["Red", "Blue"],
        "animal_tokens": ["seal", "bear", "monkey"],
        "moves": moves,
    }
    out.update(fields)
    return out
