"""The `Game` for Carcassonne with Under the Big Top: notation, JSON, records.

Move notation (`Carcassonne.format_move`)::

    V@1,0r90                       place V at x=1, y=0 turned 90° clockwise
    V@1,0r90 meeple road:N         ... and a meeple on the road touching the north edge
    cfrf.circus@0,1r90 ringmaster city:E
    ffrr.acrobats@2,0r180 acrobat 2,0
    U@3,0r0 score-pyramid 2,0      score the complete pyramid at 2,0 instead of a figure
    L discard                      the drawn L fits nowhere and is set aside

Records follow ``docs/records.md`` (the Carcassonne section and its
additions).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from scorer import register
from scorer.carcassonne import engine
from scorer.carcassonne.catalog import (
    CATALOG,
    EXPANSION,
    HALVES,
    SIDES,
    START_TILE,
    Kind,
    Special,
    box,
)
from scorer.carcassonne.model import (
    CATEGORIES,
    Animal,
    Discard,
    Feature,
    Figure,
    FigureOnBoard,
    Move,
    Placement,
    Pos,
    Reason,
    Spot,
    State,
)
from scorer.core import (
    LEGAL,
    Check,
    Event,
    Game,
    GameInfo,
    MalformedMove,
    Outcome,
    RecordError,
    ReplayReport,
    UnknownComponent,
    parse_named,
)
from scorer.fields import boolean, is_whole_number, player_names, whole_number

__all__ = ["Carcassonne", "move_from_json", "move_to_json"]

MIN_PLAYERS = 1
MAX_PLAYERS = 6
DEFAULT_TINY_CITY_POINTS = 4

_PLACE_RE = re.compile(r"^(?P<tile>[A-Za-z.]+)@(?P<x>-?\d+),(?P<y>-?\d+)r(?P<rot>\d+)$")
_POS_RE = re.compile(r"^(-?\d+),(-?\d+)$")
_MOVE_KEYS = frozenset({"tile", "at", "rotation", "place", "score_pyramid", "discard"})
_PLACE_KEYS = frozenset({"figure", "on", "tile"})
_RECORD_RULES = frozenset({"tiny_city_points"})


def _tile_name(text: str) -> str | None:
    """The catalog name ``text`` designates (letters in any case), or None."""
    if text in CATALOG:
        return text
    for guess in (text.upper(), text.lower()):
        if guess in CATALOG:
            return guess
    return None


def _parse_spot(text: str) -> Spot:
    """Read a spot name ("road:N", "field:EL", "monastery", "circus").

    :raises ValueError: when it is not one.
    """
    kind_text, _, edge = text.strip().partition(":")
    kind_text = kind_text.lower()
    edge = edge.upper()
    if kind_text in ("monastery", "circus") and not edge:
        return Spot(Kind(kind_text))
    if kind_text in ("road", "city") and edge in SIDES:
        return Spot(Kind(kind_text), edge)
    if kind_text == "field" and edge in HALVES:
        return Spot(Kind.FIELD, edge)
    raise ValueError(
        f"{text!r} is not a spot: write road:N, city:E (a side N E S W), field:NL "
        "(a half-edge NL NR EL ER SL SR WL WR), monastery or circus"
    )


def _figure(text: str) -> Figure:
    try:
        return Figure(text.lower())
    except ValueError:
        raise ValueError(f"{text!r} is not a figure: write meeple, ringmaster or acrobat") from None


def _canonical(move: Placement) -> Placement:
    """The same move with its spot written in canonical form (road:N before road:W)."""
    if move.spot is None or move.tile not in CATALOG or move.rotation not in engine.ROTATIONS:
        return move
    spot = engine.canonical_spot(move.tile, move.rotation, move.spot)
    if spot == move.spot:
        return move
    return Placement(move.tile, move.at, move.rotation, move.figure, spot, move.target, move.score_pyramid)


def _xy(pos: Pos) -> str:
    return f"{pos[0]},{pos[1]}"


# -- record moves in JSON ---------------------------------------------------------


def move_to_json(move: Move) -> dict[str, Any]:
    """A move as a record entry (docs/records.md)."""
    if isinstance(move, Discard):
        return {"tile": move.tile, "discard": True}
    out: dict[str, Any] = {"tile": move.tile, "at": list(move.at), "rotation": move.rotation}
    if move.score_pyramid is not None:
        out["score_pyramid"] = list(move.score_pyramid)
    elif move.figure is not None:
        place: dict[str, Any] = {"figure": move.figure.value}
        if move.spot is not None:
            place["on"] = str(move.spot)
        if move.target is not None:
            place["tile"] = list(move.target)
        out["place"] = place
    return out


def _pos(value: object, field: str) -> Pos:
    if not (isinstance(value, list) and len(value) == 2 and all(is_whole_number(v) for v in value)):
        raise RecordError(f"{field}: expected [x, y], two whole numbers, got {_show(value)}", field)
    return (value[0], value[1])


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _tile_field(value: object, field: str, expansion: bool) -> str:
    if not isinstance(value, str):
        raise RecordError(f"{field}: a tile name must be a string, got {_show(value)}", field)
    if value not in CATALOG:
        raise UnknownComponent(
            f"{field}: unknown tile {value!r}; tiles are A..X and the Under the Big Top names "
            "such as ffrr.acrobats or cfrf.circus",
            field,
        )
    if CATALOG[value].expansion is not None and not expansion:
        raise RecordError(
            f"{field}: tile {value!r} belongs to Under the Big Top, but the record's expansions "
            "do not include \"under-the-big-top\"",
            field,
        )
    return value


def move_from_json(data: object, field: str, expansion: bool = True) -> Move:
    """Read one record move.

    :raises RecordError: when the entry is not a valid move (`UnknownComponent`
        for an unknown tile).
    """
    if not isinstance(data, Mapping):
        raise RecordError(f"{field}: a move must be a JSON object, got {_show(data)}", field)
    unknown = sorted(str(k) for k in data if k not in _MOVE_KEYS)
    if unknown:
        raise RecordError(f"{field}: unknown key {unknown[0]!r} in a move", f"{field}.{unknown[0]}")
    if "tile" not in data:
        raise RecordError(f"{field}: the move has no \"tile\"", f"{field}.tile")
    tile = _tile_field(data["tile"], f"{field}.tile", expansion)
    if "discard" in data:
        if data["discard"] is not True:
            raise RecordError(f"{field}.discard: must be true when present", f"{field}.discard")
        extra = sorted(k for k in data if k not in ("tile", "discard"))
        if extra:
            raise RecordError(f"{field}: a discarded tile has no {extra[0]!r}", f"{field}.{extra[0]}")
        return Discard(tile)
    for key in ("at", "rotation"):
        if key not in data:
            raise RecordError(f"{field}: the move has no {key!r}", f"{field}.{key}")
    at = _pos(data["at"], f"{field}.at")
    rotation = data["rotation"]
    if not is_whole_number(rotation) or rotation not in engine.ROTATIONS:
        raise RecordError(
            f"{field}.rotation: must be 0, 90, 180 or 270, got {_show(rotation)}", f"{field}.rotation"
        )
    if "score_pyramid" in data:
        if "place" in data:
            raise RecordError(
                f"{field}: a move has either \"place\" or \"score_pyramid\", not both", f"{field}.place"
            )
        return Placement(tile, at, rotation, score_pyramid=_pos(data["score_pyramid"], f"{field}.score_pyramid"))
    if "place" not in data or data["place"] is None:
        return Placement(tile, at, rotation)
    place = data["place"]
    pfield = f"{field}.place"
    if not isinstance(place, Mapping):
        raise RecordError(f"{pfield}: must be a JSON object, got {_show(place)}", pfield)
    unknown = sorted(str(k) for k in place if k not in _PLACE_KEYS)
    if unknown:
        raise RecordError(f"{pfield}: unknown key {unknown[0]!r}", f"{pfield}.{unknown[0]}")
    fig = place.get("figure")
    if not isinstance(fig, str):
        raise RecordError(f"{pfield}.figure: must be meeple, ringmaster or acrobat", f"{pfield}.figure")
    try:
        figure = _figure(fig)
    except ValueError as exc:
        raise UnknownComponent(f"{pfield}.figure: {exc}", f"{pfield}.figure") from None
    has_on, has_tile = "on" in place, "tile" in place
    if has_on == has_tile:
        raise RecordError(
            f"{pfield}: name either \"on\" (a feature of the tile) or \"tile\" (an acrobat tile)", pfield
        )
    if has_tile:
        if figure is Figure.MEEPLE:
            raise RecordError(
                f"{pfield}: a meeple goes \"on\" a feature; use \"figure\": \"acrobat\" for the acrobat space",
                pfield,
            )
        return Placement(tile, at, rotation, figure, target=_pos(place["tile"], f"{pfield}.tile"))
    if figure is Figure.ACROBAT:
        raise RecordError(f"{pfield}: an acrobat names the \"tile\" of its pyramid, not \"on\"", pfield)
    on = place["on"]
    if not isinstance(on, str):
        raise RecordError(f"{pfield}.on: must be a spot name such as \"road:W\"", f"{pfield}.on")
    try:
        spot = _parse_spot(on)
    except ValueError as exc:
        raise RecordError(f"{pfield}.on: {exc}", f"{pfield}.on") from None
    return _canonical(Placement(tile, at, rotation, figure, spot))


# -- the game -----------------------------------------------------------------------


@register
class Carcassonne(Game[State, Move]):
    """Carcassonne (base game) with the Under the Big Top expansion.

    Options of `new_state` and `simulate`: ``expansions`` (default
    ``["under-the-big-top"]``, ``[]`` for the base game alone),
    ``tiny_city_points`` (2 or 4, default 4), ``start`` (the start tile,
    default D), ``stack`` (the draw order, default shuffled) and
    ``animal_tokens`` (the token order, default shuffled).
    """

    name = "carcassonne"
    info = GameInfo(
        title="Carcassonne",
        min_players=MIN_PLAYERS,
        max_players=MAX_PLAYERS,
        hidden_information=False,
        score_unit="points",
    )

    # -- state ---------------------------------------------------------------

    def new_state(self, players: Sequence[str], rng: random.Random, **options: Any) -> State:
        """A fresh game: the start tile on the table and the others shuffled face down.

        :raises RecordError: for a bad player list or option.
        """
        names = player_names(players, "players", self.info)
        expansion = _expansions(options.get("expansions", [EXPANSION]), "expansions")
        tiny = _tiny(options.get("tiny_city_points", DEFAULT_TINY_CITY_POINTS), "tiny_city_points")
        start = _tile_field(options.get("start", START_TILE), "start", expansion)
        stack_opt = options.get("stack")
        if stack_opt is None:
            stack = engine.shuffled_stack(expansion, start, rng)
        else:
            if not isinstance(stack_opt, (list, tuple)):
                raise RecordError("stack: must be a list of tile names", "stack")
            stack = [_tile_field(t, f"stack[{i}]", expansion) for i, t in enumerate(stack_opt)]
            _check_counts(stack, start, expansion, "stack")
        tokens_opt = options.get("animal_tokens")
        if tokens_opt is None:
            tokens = engine.all_tokens() if expansion else []
            rng.shuffle(tokens)
        else:
            tokens = _animals(tokens_opt, "animal_tokens")
        return engine.initial_state(names, expansion, tiny, start, stack, tokens)

    def current_player(self, state: State) -> int | None:
        """The seat to place the next tile, None when the game is over."""
        if state.finished:
            return None
        return state.turn % len(state.players)

    def is_over(self, state: State) -> bool:
        """True once final scoring is done."""
        return state.finished

    def outcome(self, state: State) -> Outcome | None:
        """Most points wins; ties share the victory."""
        if not state.finished:
            return None
        scores = state.scores
        best = max(scores)
        winners = tuple(i for i, s in enumerate(scores) if s == best)
        return Outcome(winners, scores, "most points after final scoring")

    def scores(self, state: State) -> tuple[int, ...]:
        """Each seat's points as they stand."""
        return state.scores

    # -- moves ---------------------------------------------------------------

    def legal_moves(self, state: State) -> list[Move]:
        """Every legal move: each placement of the drawn tile with each figure choice.

        When the draws are unknown (a replayed record), the moves of every tile
        still in the box, and the discards of those that fit nowhere.
        """
        if state.finished:
            return []
        if state.stack is not None:
            names = [state.stack[0]]
        else:
            names = sorted(n for n, c in state.remaining.items() if c > 0)
        moves: list[Move] = []
        for name in names:
            spots = engine.placements(state, name)
            if not spots and state.stack is None:
                moves.append(Discard(name))
            for pos, rotation in spots:
                moves.extend(engine.figure_options(state, name, pos, rotation))
        return moves

    def placements(self, state: State, tile: str | None = None) -> list[tuple[Pos, int]]:
        """Where can this tile go? Every (square, rotation) for ``tile`` (default: the drawn one)."""
        name = tile if tile is not None else state.current_tile
        if name is None or name not in CATALOG:
            return []
        return engine.placements(state, name)

    def check(self, state: State, move: Move) -> Check:
        """LEGAL or ILLEGAL with a reason; every rule is visible, so never UNVERIFIABLE."""
        try:
            problem = engine.check_move(state, move)
        except Exception:  # noqa: BLE001 - a check never raises
            return Check.illegal(Reason.MALFORMED, "That is not a Carcassonne move.")
        if problem is None:
            return LEGAL
        return Check.illegal(problem[0], problem[1])

    def apply_unchecked(self, state: State, move: Move) -> tuple[State, tuple[Event, ...]]:
        """Play a legal move (features scored, circus, drawing, final scoring)."""
        return engine.apply_move(state, move)

    def finish(self, state: State) -> tuple[State, tuple[Event, ...]]:
        """Stop the game here and run final scoring (a record's end)."""
        return engine.finish(state)

    # -- notation and JSON ---------------------------------------------------

    def parse_move(self, state: State, text: str) -> Move:
        """Read ``"Ann V@1,0r90 meeple road:N"`` and the other forms of the module docstring.

        The mover's name comes first (the notation rule); text without it still reads.

        :raises NotYourTurn: when the name is not the player to move.
        :raises MalformedMove: when the text is not a move.
        """
        if not isinstance(text, str):
            raise MalformedMove("A move is written as text, such as \"V@1,0r90 meeple road:N\".")
        return parse_named(state.players, self.current_player(state), text, lambda plain: self._parse_plain(state, plain))

    def _parse_plain(self, state: State, text: str) -> Move:
        if not isinstance(text, str):
            raise MalformedMove("A move is written as text, such as \"V@1,0r90 meeple road:N\".")
        words = text.split()
        if not words:
            raise MalformedMove("An empty move: write a tile and a square, such as \"V@1,0r90\".")
        if len(words) == 2 and words[1].lower() == "discard":
            name = _tile_name(words[0])
            if name is None:
                raise MalformedMove(f"There is no tile called {words[0]!r}.")
            return Discard(name)
        found = _PLACE_RE.match(words[0])
        if found is None:
            raise MalformedMove(
                f"{words[0]!r} is not a placement: write the tile, @, the square and the rotation, "
                "such as \"V@1,0r90\"."
            )
        name = _tile_name(found["tile"])
        if name is None:
            raise MalformedMove(f"There is no tile called {found['tile']!r}.")
        rotation = int(found["rot"])
        if rotation not in engine.ROTATIONS:
            raise MalformedMove(f"A rotation is 0, 90, 180 or 270 degrees, not {rotation}.")
        at = (int(found["x"]), int(found["y"]))
        rest = words[1:]
        if not rest:
            return Placement(name, at, rotation)
        if len(rest) != 2:
            raise MalformedMove(
                "After the placement write one figure and where it goes, such as \"meeple road:N\", "
                "\"acrobat 2,0\" or \"score-pyramid 2,0\"."
            )
        what, where = rest
        if what.lower() in ("score-pyramid", "score_pyramid"):
            return Placement(name, at, rotation, score_pyramid=_parse_pos(where))
        try:
            figure = _figure(what)
        except ValueError as exc:
            raise MalformedMove(f"{str(exc)[0].upper()}{str(exc)[1:]}.") from None
        if _POS_RE.match(where):
            if figure is Figure.MEEPLE:
                raise MalformedMove("A meeple goes on a feature (\"meeple road:N\"); an acrobat on a tile (\"acrobat 2,0\").")
            return Placement(name, at, rotation, figure, target=_parse_pos(where))
        if figure is Figure.ACROBAT:
            raise MalformedMove("An acrobat goes on the acrobat space of a tile, written \"acrobat 2,0\".")
        try:
            spot = _parse_spot(where)
        except ValueError as exc:
            raise MalformedMove(f"{str(exc)[0].upper()}{str(exc)[1:]}.") from None
        return _canonical(Placement(name, at, rotation, figure, spot))

    def format_move(self, state: State, move: Move) -> str:
        """Write a move in the notation `parse_move` reads: the mover's name first."""
        seat = self.current_player(state)
        plain = self.plain_move(move)
        return plain if seat is None else f"{state.players[seat]} {plain}"

    def record_entry(self, state: State, move: Move) -> dict[str, Any]:
        """A move as a record entry: the JSON object of RECORDS.md."""
        return move_to_json(move)

    def plain_move(self, move: Move) -> str:
        """A move in the notation without the mover's name (``"V@1,0r90 meeple road:N"``)."""
        if isinstance(move, Discard):
            return f"{move.tile} discard"
        text = f"{move.tile}@{_xy(move.at)}r{move.rotation}"
        if move.score_pyramid is not None:
            return f"{text} score-pyramid {_xy(move.score_pyramid)}"
        if move.figure is None:
            return text
        if move.target is not None:
            return f"{text} {move.figure.value} {_xy(move.target)}"
        return f"{text} {move.figure.value} {move.spot}"

    def state_to_json(self, state: State) -> dict[str, Any]:
        """Every part of the state, as JSON."""
        return _state_to_json(state)

    def state_from_json(self, data: Mapping[str, Any]) -> State:
        """Rebuild a state from `state_to_json` output.

        :raises RecordError: when the data is not a valid state.
        """
        try:
            return _state_from_json(data)
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise RecordError(f"state: not a Carcassonne state ({type(exc).__name__}: {exc})", "state") from None

    # -- records -------------------------------------------------------------

    def replay(self, record: Mapping[str, Any]) -> ReplayReport:
        """Replay a record (docs/records.md) and score it, final scoring included.

        :raises RecordError: when the record is not valid.
        """
        if not isinstance(record, Mapping):
            raise RecordError("the record must be a JSON object", None)
        game = record.get("game")
        if not isinstance(game, str) or game.strip().lower() not in (self.name, *self.aliases):
            raise RecordError(f"game: expected \"carcassonne\", got {_show(game)}", "game")
        names = player_names(record.get("players"), "players", self.info)
        expansion = _expansions(record.get("expansions", []), "expansions")
        rules = record.get("rules", {})
        if not isinstance(rules, Mapping):
            raise RecordError("rules: must be a JSON object such as {\"tiny_city_points\": 4}", "rules")
        for key in rules:
            if key not in _RECORD_RULES:
                raise RecordError(f"rules: unknown rule {key!r}; known: tiny_city_points", f"rules.{key}")
        tiny = _tiny(rules.get("tiny_city_points", DEFAULT_TINY_CITY_POINTS), "rules.tiny_city_points")
        start = _tile_field(record.get("start", START_TILE), "start", expansion)
        if "moves" not in record:
            raise RecordError("moves: the record has no moves list", "moves")
        raw_moves = record["moves"]
        if not isinstance(raw_moves, list):
            raise RecordError("moves: must be a list", "moves")
        if "animal_tokens" in record and record["animal_tokens"] is not None:
            tokens = _animals(record["animal_tokens"], "animal_tokens")
        else:
            seed = record.get("seed", 0)
            if not is_whole_number(seed) and not isinstance(seed, str):
                raise RecordError("seed: must be a whole number", "seed")
            tokens = engine.all_tokens() if expansion else []
            random.Random(seed).shuffle(tokens)
        # Counted from the tile names alone: each move is read only when its turn
        # comes, so an illegal move is reported before a later one that cannot be read.
        circuses = sum(
            1
            for m in raw_moves
            if isinstance(m, Mapping) and "discard" not in m and isinstance(m.get("tile"), str)
            and m["tile"] in CATALOG and CATALOG[m["tile"]].special is Special.CIRCUS
        ) + (CATALOG[start].special is Special.CIRCUS)
        if circuses > len(tokens):
            raise RecordError(
                f"animal_tokens: the record names {len(tokens)} token{'s' if len(tokens) != 1 else ''} "
                f"but places {circuses} circus tiles",
                "animal_tokens",
            )
        state = engine.initial_state(names, expansion, tiny, start, None, tokens)
        events: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        error: dict[str, Any] | None = None
        for index, raw in enumerate(raw_moves):
            move = move_from_json(raw, f"moves[{index}]", expansion)
            verdict = self.check(state, move)
            if verdict.is_illegal:
                error = {"index": index, "move": self.plain_move(move), "reason": verdict.message}
                break
            seat = self.current_player(state)
            rows.append({"index": index, "player": None if seat is None else names[seat], "move": self.plain_move(move)})
            state, evs = engine.apply_move(state, move)
            events.extend(_event_json(e, index if not _is_final(e) else None, names) for e in evs)
        if error is None and not state.finished:
            state, evs = engine.finish(state)
            events.extend(_event_json(e, None, names) for e in evs)
        data: dict[str, Any] = {
            "game": self.name,
            "players": list(names),
            "finished": state.finished,
            "moves_played": len(raw_moves) if error is None else error["index"],
            "scores": {n: s for n, s in zip(names, state.scores)},
            "events": events,
            "final": {
                n: {c.value: pts[i] for i, c in enumerate(CATEGORIES)} for n, pts in zip(names, state.points)
            },
        }
        if error is not None:
            data["error"] = error
        # The envelope shared by every game (docs/records.md), beside the fields above.
        data = {**self.envelope(state, rows, error), **data}
        return ReplayReport(data=data, text=_table(data, expansion), illegal=error is not None)

    def simulate(
        self, players: Sequence[str], rng: random.Random, hands: int | None = None, **options: Any
    ) -> dict[str, Any]:
        """A whole random game with full information, as a record.

        ``hands`` means nothing in Carcassonne and is ignored. Each turn picks
        a random placement of the drawn tile, then a random figure choice.
        """
        names = player_names(players, "players", self.info)
        state = self.new_state(names, rng, **options)
        record: dict[str, Any] = {
            "game": self.name,
            "expansions": [EXPANSION] if state.expansion else [],
            "rules": {"tiny_city_points": state.tiny_city_points},
            "players": list(names),
            "start": state.tiles[(0, 0)][0],
        }
        if state.expansion:
            under = [] if state.big_top is None or state.big_top[1] is None else [state.big_top[1]]
            record["animal_tokens"] = [a.value for a in (*under, *state.tokens)]
        moves: list[dict[str, Any]] = [move_to_json(Discard(t)) for t in state.discarded]
        while not state.finished:
            assert state.stack is not None
            name = state.stack[0]
            spots = engine.placements(state, name)
            pos, rotation = spots[rng.randrange(len(spots))]
            options_here = engine.figure_options(state, name, pos, rotation)
            move = options_here[rng.randrange(len(options_here))]
            before = len(state.discarded)
            state, _ = engine.apply_move(state, move)
            moves.append(move_to_json(move))
            moves.extend(move_to_json(Discard(t)) for t in state.discarded[before:])
        record["moves"] = moves
        return record


def _is_final(event: Event) -> bool:
    return event.what in engine.FINAL_EVENTS


def _event_json(event: Event, index: int | None, names: Sequence[str]) -> dict[str, Any]:
    points: dict[str, int] = {}
    for seat, amount in event.points:
        points[names[seat]] = points.get(names[seat], 0) + amount
    return {"move": index, "what": event.what, "points": points, "text": event.text}


def _table(data: Mapping[str, Any], expansion: bool) -> str:
    title = "Carcassonne with Under the Big Top" if expansion else "Carcassonne"
    lines = [f"{title}: {data['moves_played']} moves replayed"]
    if data.get("error"):
        err = data["error"]
        lines.append(f"Move {err['index']} ({err['move']}) is illegal: {err['reason']}")
        lines.append("Scores after the moves before it (no final scoring):")
    for event in data["events"]:
        when = "end" if event["move"] is None else f"move {event['move']}"
        gains = ", ".join(f"{name} +{pts}" for name, pts in event["points"].items()) or "nobody scores"
        lines.append(f"  {when:>8}: {event['what']}: {gains}")
    cats = [c.value for c in CATEGORIES]
    width = max(6, *(len(n) for n in data["scores"]))
    lines.append(f"{'player':<{width}}  " + "  ".join(f"{c:>10}" for c in cats) + f"  {'total':>6}")
    for name, total in data["scores"].items():
        row = data["final"][name]
        lines.append(f"{name:<{width}}  " + "  ".join(f"{row[c]:>10}" for c in cats) + f"  {total:>6}")
    return "\n".join(lines)


# -- validation helpers -------------------------------------------------------------


def _expansions(value: object, field: str) -> bool:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise RecordError(f"{field}: must be a list such as [\"under-the-big-top\"]", field)
    for i, name in enumerate(value):
        if name != EXPANSION:
            raise RecordError(
                f"{field}[{i}]: unknown expansion {_show(name)}; Ringside knows \"{EXPANSION}\"", f"{field}[{i}]"
            )
    return bool(value)


def _tiny(value: object, field: str) -> int:
    if not is_whole_number(value) or value < 0:
        raise RecordError(f"{field}: must be a whole number of points (4 today, 2 in old rules)", field)
    return value


def _animals(value: object, field: str) -> list[Animal]:
    if not isinstance(value, (list, tuple)):
        raise RecordError(f"{field}: must be a list of animal names", field)
    out: list[Animal] = []
    for i, name in enumerate(value):
        if isinstance(name, Animal):
            out.append(name)
            continue
        if not isinstance(name, str):
            raise RecordError(f"{field}[{i}]: an animal token is a name such as \"seal\"", f"{field}[{i}]")
        try:
            out.append(Animal(name.lower()))
        except ValueError:
            raise UnknownComponent(
                f"{field}[{i}]: unknown animal token {name!r}; the tokens are "
                + ", ".join(a.value for a in Animal),
                f"{field}[{i}]",
            ) from None
    for animal in Animal:
        if out.count(animal) > animal.count:
            raise RecordError(
                f"{field}: the box has {animal.count} {animal.value} token{'s' if animal.count != 1 else ''}, "
                f"the record names {out.count(animal)}",
                field,
            )
    return out


def _check_counts(stack: Sequence[str], start: str, expansion: bool, field: str) -> None:
    counts = box(expansion)
    counts[start] -= 1
    for name in stack:
        counts[name] -= 1
        if counts[name] < 0:
            raise RecordError(f"{field}: more {name} tiles than the box holds", field)


def _parse_pos(text: str) -> Pos:
    found = _POS_RE.match(text)
    if found is None:
        raise MalformedMove(f"{text!r} is not a square: write x,y such as 2,0.")
    return (int(found[1]), int(found[2]))


# -- state JSON ---------------------------------------------------------------------


def _state_to_json(state: State) -> dict[str, Any]:
    return {
        "players": list(state.players),
        "expansion": state.expansion,
        "tiny_city_points": state.tiny_city_points,
        "tiles": [[x, y, name, rot] for (x, y), (name, rot) in state.tiles.items()],
        "frontier": sorted([x, y, code] for (x, y), code in state.frontier.items()),
        "seg_feature": [[x, y, i, fid] for (x, y, i), fid in state.seg_feature.items()],
        "features": [
            {
                "id": fid,
                "kind": f.kind.value,
                "segments": [list(s) for s in f.segments],
                "tiles": sorted([x, y] for x, y in f.tiles),
                "pennants": f.pennants,
                "open_edges": f.open_edges,
                "figures": [[g.seat, g.figure.value, g.at[0], g.at[1], g.segment] for g in f.figures],
                "cities": sorted(list(c) for c in f.cities),
                "completed": f.completed,
            }
            for fid, f in state.features.items()
        ],
        "next_fid": state.next_fid,
        "acrobats": [[x, y, list(seats)] for (x, y), seats in state.acrobats.items()],
        "meeples": list(state.meeples),
        "ringmasters": list(state.ringmasters),
        "points": [list(p) for p in state.points],
        "stack": None if state.stack is None else list(state.stack),
        "remaining": dict(state.remaining),
        "discarded": list(state.discarded),
        "tokens": [a.value for a in state.tokens],
        "big_top": None
        if state.big_top is None
        else [
            state.big_top[0][0],
            state.big_top[0][1],
            None if state.big_top[1] is None else state.big_top[1].value,
        ],
        "revealed": [a.value for a in state.revealed],
        "turn": state.turn,
        "finished": state.finished,
    }


def _s(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {_show(value)}")
    return value


def _state_from_json(data: Mapping[str, Any]) -> State:
    if not isinstance(data, Mapping):
        raise RecordError("state: must be a JSON object", "state")
    num = whole_number
    players = player_names(data["players"], "players", Carcassonne.info)
    expansion = boolean(data["expansion"], "expansion")
    tiles: dict[Pos, tuple[str, int]] = {}
    for x, y, name, rot in data["tiles"]:
        if _s(name) not in CATALOG or rot not in engine.ROTATIONS:
            raise ValueError(f"bad tile {name!r} turned {rot!r}")
        tiles[(num(x, "tiles"), num(y, "tiles"))] = (name, num(rot, "tiles"))
    features: dict[int, Feature] = {}
    for k, f in enumerate(data["features"]):
        w = f"features[{k}]"
        figures = tuple(
            FigureOnBoard(num(seat, w), Figure(_s(fig)), (num(x, w), num(y, w)), num(seg, w))
            for seat, fig, x, y, seg in f["figures"]
        )
        features[num(f["id"], f"{w}.id")] = Feature(
            kind=Kind(_s(f["kind"])),
            segments=tuple((num(x, w), num(y, w), num(i, w)) for x, y, i in f["segments"]),
            tiles=frozenset((num(x, w), num(y, w)) for x, y in f["tiles"]),
            pennants=num(f["pennants"], f"{w}.pennants"),
            open_edges=num(f["open_edges"], f"{w}.open_edges"),
            figures=figures,
            cities=frozenset((num(x, w), num(y, w), num(i, w)) for x, y, i in f["cities"]),
            completed=boolean(f["completed"], f"{w}.completed"),
        )
    big_top_data = data["big_top"]
    big_top: tuple[Pos, Animal | None] | None = None
    if big_top_data is not None:
        bx, by, animal = big_top_data
        big_top = ((num(bx, "big_top"), num(by, "big_top")), None if animal is None else Animal(_s(animal)))
    stack_data = data["stack"]
    remaining = {_s(k): num(v, f"remaining.{k}") for k, v in dict(data["remaining"]).items()}
    if any(k not in CATALOG for k in remaining):
        raise ValueError("unknown tile in remaining")
    return State(
        players=players,
        expansion=expansion,
        tiny_city_points=num(data["tiny_city_points"], "tiny_city_points"),
        tiles=tiles,
        frontier={(num(x, "frontier"), num(y, "frontier")): num(c, "frontier") for x, y, c in data["frontier"]},
        seg_feature={
            (num(x, "seg_feature"), num(y, "seg_feature"), num(i, "seg_feature")): num(fid, "seg_feature")
            for x, y, i, fid in data["seg_feature"]
        },
        features=features,
        next_fid=num(data["next_fid"], "next_fid"),
        acrobats={
            (num(x, "acrobats"), num(y, "acrobats")): tuple(num(s, "acrobats") for s in seats)
            for x, y, seats in data["acrobats"]
        },
        meeples=tuple(num(m, "meeples") for m in data["meeples"]),
        ringmasters=tuple(boolean(r, "ringmasters") for r in data["ringmasters"]),
        points=tuple(tuple(num(p, "points") for p in row) for row in data["points"]),
        stack=None if stack_data is None else tuple(_s(t) for t in stack_data),
        remaining=remaining,
        discarded=tuple(_s(t) for t in data["discarded"]),
        tokens=tuple(Animal(_s(a)) for a in data["tokens"]),
        big_top=big_top,
        revealed=tuple(Animal(_s(a)) for a in data["revealed"]),
        turn=num(data["turn"], "turn"),
        finished=boolean(data["finished"], "finished"),
    )
