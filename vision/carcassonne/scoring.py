"""End-of-game scoring from one photo of a Carcassonne board (``ringside score carcassonne PHOTO``).

The board is read (`vision.carcassonne.recognize`), its figures given to the
players by colour, the position rebuilt in the rules engine
(`scorer.carcassonne.engine.position`) and scored as at the end of the game.
The annotated photo colours every scored feature by its owner with its points.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from scorer.carcassonne.catalog import Kind
from scorer.carcassonne.engine import IllegalPosition, final_feature_points, finish, position
from scorer.carcassonne.model import CATEGORIES, Animal, Figure, State
from vision.carcassonne.features import MAP_SIZE, feature_map
from vision.carcassonne.figures import COLORS, TOKEN
from vision.carcassonne.recognize import BoardReading

__all__ = ["FinalScore", "IllegalPosition", "annotate_scores", "parse_colors", "score_reading"]


def parse_colors(text: str) -> dict[str, str]:
    """``red=Ann,blue=Ben`` -> ``{"red": "Ann", "blue": "Ben"}``.

    :raises ValueError: for an unknown colour, a colour or name twice, or no player.
    """
    out: dict[str, str] = {}
    for part in text.split(","):
        colour, sep, name = part.partition("=")
        colour, name = colour.strip().lower(), name.strip()
        if not sep or not name:
            raise ValueError(f"--colors wants colour=name pairs, got {part!r}")
        if colour not in COLORS:
            raise ValueError(f"unknown colour {colour!r} (one of {', '.join(COLORS)})")
        if colour in out or name in out.values():
            raise ValueError(f"{colour if colour in out else name} given twice in --colors")
        out[colour] = name
    if not out:
        raise ValueError("--colors names no player")
    return out


@dataclass(frozen=True, slots=True)
class FinalScore:
    """The end-of-game scoring: per player the points by category, the events, and the scored features."""

    players: tuple[str, ...]
    points: dict[str, dict[str, int]]
    events: tuple[str, ...]
    #: (owner colours, points, kind, cells and segment indices) of every feature that scored
    features: tuple[tuple[tuple[str, ...], int, str, tuple[tuple[int, int, int], ...]], ...]

    def to_json(self) -> dict[str, Any]:
        """``{"game", "scores", "final", "events"}`` as ``ringside replay --json`` writes them."""
        return {"game": "carcassonne", "scores": {p: sum(self.points[p].values()) for p in self.players},
                "final": self.points, "events": list(self.events)}

    def describe(self) -> str:
        """A breakdown per player, one line each, then what scored."""
        lines = []
        for p in self.players:
            parts = ", ".join(f"{k} {v}" for k, v in self.points[p].items() if v)
            lines.append(f"{p}: {sum(self.points[p].values())} ({parts or 'nothing'})")
        lines += [f"  {e}" for e in self.events]
        return "\n".join(lines)


def score_reading(reading: BoardReading, colors: dict[str, str]) -> tuple[FinalScore, State]:
    """Score the board of ``reading`` with ``colors`` (colour -> player name).

    :raises IllegalPosition: when the board as read is no legal position (with the reason), or cannot be
        scored because a square or a figure's owner is unknown.
    """
    if reading.conflicts:
        raise IllegalPosition(reading.conflicts[0])
    if reading.unrecognised:
        u = reading.unrecognised[0]
        raise IllegalPosition(f"the tile at ({u.x},{u.y}) is not recognised ({len(reading.unrecognised)} squares in all)")
    if reading.unsure_figures:
        f = reading.unsure_figures[0]
        raise IllegalPosition(f"the figure at ({f.x},{f.y}) is not recognised (a {f.color} {f.figure}?; "
                              f"{len(reading.unsure_figures)} in all)")
    seat = {c: i for i, c in enumerate(colors)}
    players = tuple(colors.values())
    figures: list[tuple[int, Figure, tuple[int, int], str]] = []
    acrobats: dict[tuple[int, int], list[int]] = {}
    big_top = None
    #: the animal token turned face up where the Big Top stood, for the last circus scoring
    token: tuple[tuple[int, int], Animal] | None = None
    for f in reading.figures:
        if f.figure == "big-top":
            big_top = (f.x, f.y)
            continue
        if f.figure == TOKEN:
            token = ((f.x, f.y), Animal(f.animal))
            continue
        if f.color not in seat:
            raise IllegalPosition(f"a {f.color} {f.figure} at ({f.x},{f.y}) but no player plays {f.color}")
        if f.figure == "acrobat":
            acrobats.setdefault((f.x, f.y), []).append(seat[f.color])
        else:
            figures.append((seat[f.color], Figure(f.figure), (f.x, f.y), f.feature))
    tiles = {(t.x, t.y): (t.tile, t.rotation) for t in reading.tiles}
    if token is not None:
        if big_top is not None and big_top != token[0]:
            raise IllegalPosition(f"the Big Top at ({big_top[0]},{big_top[1]}) and the animal token turned up at "
                                  f"({token[0][0]},{token[0][1]}): the token lies where the Big Top stands")
        big_top = token[0]
    state = position(players, tiles, figures, acrobats, big_top)
    if token is not None:
        # the token under the Big Top, turned up: the last circus scoring counts its animal
        state = replace(state, big_top=token)
    scored = []
    colour_of = dict(enumerate(colors))
    for fid, feature in state.features.items():
        if not feature.figures or feature.completed:
            continue
        count: dict[int, int] = {}
        for fig in feature.figures:
            count[fig.seat] = count.get(fig.seat, 0) + 1
        top = max(count.values())
        owners = tuple(colour_of[s] for s in sorted(count) if count[s] == top)
        scored.append((owners, final_feature_points(state, fid), feature.kind.value, tuple(feature.segments)))
    final, events = finish(state)
    points = {p: {c.value: final.points[i][k] for k, c in enumerate(CATEGORIES)} for i, p in enumerate(players)}
    return FinalScore(players, points, tuple(e.text for e in events), tuple(scored)), final


def annotate_scores(photo: NDArray[Any], reading: BoardReading, result: FinalScore) -> NDArray[Any]:
    """A copy of ``photo`` with each scored feature filled in its owner's colour and labelled with its points.

    Fields are hatched as well as tinted, so that a farm reads apart from the city it feeds.
    """
    out = photo.copy().astype(np.float32)
    h, w = photo.shape[:2]
    tiles = {(t.x, t.y): t for t in reading.tiles}
    unit = np.asarray([[0, 0], [MAP_SIZE, 0], [MAP_SIZE, MAP_SIZE], [0, MAP_SIZE]], np.float32)
    labels: list[tuple[tuple[int, int], str, tuple[int, int, int]]] = []
    for owners, pts, kind, segments in sorted(result.features, key=lambda f: f[2] != Kind.FIELD.value):
        colour = COLORS[owners[0]]
        mask = np.zeros((h, w), np.uint8)
        for x, y, index in segments:
            t = tiles.get((x, y))
            c = reading.corners.get((x, y))
            if t is None or c is None:
                continue
            m = cv2.getPerspectiveTransform(unit, np.asarray(c, np.float32))
            part = (feature_map(t.tile, t.rotation) == index).astype(np.uint8) * 255
            mask = np.maximum(mask, np.asarray(cv2.warpPerspective(part, m, (w, h), flags=cv2.INTER_NEAREST), np.uint8))
        if not mask.any():
            continue
        sel = mask > 0
        alpha = 0.35 if kind == Kind.FIELD.value else 0.5
        out[sel] = (1 - alpha) * out[sel] + alpha * np.asarray(colour, np.float32)
        if kind == Kind.FIELD.value:
            yy, xx = np.nonzero(sel)
            stripe = ((xx + yy) // 6) % 3 == 0
            out[yy[stripe], xx[stripe]] = np.asarray(colour, np.float32) * 0.7
        ys, xs = np.nonzero(sel)
        k = int(np.argmin((xs - xs.mean()) ** 2 + (ys - ys.mean()) ** 2))
        labels.append(((int(xs[k]), int(ys[k])), f"{kind} {pts}" + ("" if len(owners) == 1 else " each"), colour))
    img = np.clip(out, 0, 255).astype(np.uint8)
    scale = max(1.0, max(h, w) / 1000)
    for org, text, _colour in labels:
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, (0, 0, 0), max(2, int(4 * scale)), cv2.LINE_AA)
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, (255, 255, 255), max(1, int(scale)), cv2.LINE_AA)
    y = int(24 * scale)
    for p in result.players:
        text = f"{p}: {sum(result.points[p].values())}"
        cv2.putText(img, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, (0, 0, 0), max(2, int(4 * scale)), cv2.LINE_AA)
        cv2.putText(img, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale, (255, 255, 255), max(1, int(scale)), cv2.LINE_AA)
        y += int(28 * scale)
    return img
