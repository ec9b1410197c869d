"""Table geometry: where the floor and the seats lie in the camera's frame.

Loaded from a `--table TABLE.json` calibration or the DESIGN.md default; fractions of the frame.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from controller.errors import UserError

# DESIGN.md "Table conventions": the floor is the central 20-80 % of the width, 15-85 % of
# the height; seats 2 players: 0 bottom, 1 top; 4 players: 0 bottom, 1 right, 2 top, 3 left.
DEFAULT_FLOOR = ((0.20, 0.15), (0.80, 0.15), (0.80, 0.85), (0.20, 0.85))
_SEAT_POINTS = {
    "bottom": (0.5, 0.97),
    "right": (0.97, 0.5),
    "top": (0.5, 0.03),
    "left": (0.03, 0.5),
}
DEFAULT_SEATS = {
    2: ("bottom", "top"),
    3: ("bottom", "right", "left"),
    4: ("bottom", "right", "top", "left"),
}

FLOOR = "floor"


@dataclass(frozen=True)
class TableGeometry:
    """The floor polygon and one anchor point per seat (turn order), as frame fractions."""

    floor: tuple[tuple[float, float], ...]
    seats: tuple[tuple[float, float], ...]

    @classmethod
    def default(cls, players: int) -> TableGeometry:
        if players not in DEFAULT_SEATS:
            raise UserError(f"players must be 2, 3 or 4, not {players}")
        return cls(DEFAULT_FLOOR, tuple(_SEAT_POINTS[s] for s in DEFAULT_SEATS[players]))

    @classmethod
    def load(cls, path: str | Path, players: int) -> TableGeometry:
        """Read a calibration: {"floor": [[x, y], ...], "seats": [[x, y], ...]} in fractions."""
        try:
            obj = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UserError(f"table file not found: {path}") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise UserError(f"table file {path} is not valid JSON: {exc}") from None
        return cls.from_dict(obj, players, where=str(path))

    @classmethod
    def from_dict(cls, obj: object, players: int, where: str = "table") -> TableGeometry:
        if not isinstance(obj, dict):
            raise UserError(f"{where}: expected a JSON object with 'floor' and 'seats'")
        default = cls.default(players)
        floor = _points(obj.get("floor", default.floor), f"{where}: floor")
        if len(floor) < 3:
            raise UserError(f"{where}: floor needs at least 3 corners, got {len(floor)}")
        seats = _points(obj.get("seats", default.seats), f"{where}: seats")
        if len(seats) != players:
            raise UserError(f"{where}: seats lists {len(seats)} points for {players} players")
        if cv2.contourArea(np.array(floor, np.float32)) < 0.01:
            raise UserError(f"{where}: floor polygon is (almost) empty")
        return cls(floor, seats)

    def to_dict(self) -> dict:
        return {"floor": [list(p) for p in self.floor], "seats": [list(p) for p in self.seats]}

    def floor_px(self, width: int, height: int) -> np.ndarray:
        """The floor polygon in pixels (int32, for drawing and masks)."""
        return np.array([(x * width, y * height) for x, y in self.floor], np.int32)

    def floor_box(self, width: int, height: int) -> tuple[int, int, int, int]:
        """The floor polygon's bounding box in pixels: x1, y1, x2, y2."""
        poly = self.floor_px(width, height)
        x1, y1 = poly.min(axis=0)
        x2, y2 = poly.max(axis=0)
        return int(max(0, x1)), int(max(0, y1)), int(min(width, x2)), int(min(height, y2))

    def floor_mask(self, width: int, height: int) -> np.ndarray:
        mask = np.zeros((height, width), np.uint8)
        cv2.fillPoly(mask, [self.floor_px(width, height)], 255)
        return mask

    def zone(self, x: float, y: float, width: int, height: int) -> str:
        """`floor` for a point on the floor, else `seat<N>` for the nearest seat."""
        fx, fy = x / width, y / height
        poly = np.array(self.floor, np.float32)
        if cv2.pointPolygonTest(poly, (float(fx), float(fy)), False) >= 0:
            return FLOOR
        dists = [(fx - sx) ** 2 + (fy - sy) ** 2 for sx, sy in self.seats]
        return f"seat{int(np.argmin(dists))}"


def _points(value: object, where: str) -> tuple[tuple[float, float], ...]:
    if not isinstance(value, list | tuple):
        raise UserError(f"{where}: expected a list of [x, y] points")
    out = []
    for i, p in enumerate(value):
        if (
            not isinstance(p, list | tuple)
            or len(p) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in p)
        ):
            raise UserError(f"{where}[{i}]: expected [x, y] numbers, got {p!r}")
        x, y = float(p[0]), float(p[1])
        if not (0.0 <= x <= 1.0 and 0.0 <= y <= 1.0):
            raise UserError(f"{where}[{i}]: {p!r} is outside the frame (fractions 0..1)")
        out.append((x, y))
    return tuple(out)
