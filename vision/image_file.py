"""One image file read for the recogniser: its pixels, or one line saying why they cannot be.
What the C decoders (libjpeg, libpng) print on the way is caught and judged, never shown raw."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

# libjpeg's words for a file whose data stops before its image does: what decodes is partly
# grey, and cards lying there would go unreported without a word
_CUT_SHORT = "premature end"


class ImageFileError(ValueError):
    """Why an image file cannot be read (one line, without the path)."""


def read_image(path: Path) -> np.ndarray:
    """The image at `path` as BGR pixels (EXIF orientation applied), or ImageFileError: no such
    file, a folder, not an image, or an image cut short (a truncated or damaged JPEG)."""
    if not path.exists():
        raise ImageFileError("no such file")
    if path.is_dir():
        raise ImageFileError("a folder, not an image")
    if not os.access(path, os.R_OK):
        raise ImageFileError("permission denied")
    with _decoder_messages() as said:
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise ImageFileError("not a readable image" + (f" ({said[-1]})" if said else ""))
    cut = next((m for m in said if _CUT_SHORT in m.lower()), None)
    if cut is not None:
        raise ImageFileError(f"damaged or truncated image data ({cut})")
    return img


@contextmanager
def _decoder_messages() -> Iterator[list[str]]:
    """The lines C code writes to file descriptor 2 inside the block (filled in at its end)."""
    said: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield said
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            text = sink.read().decode("utf-8", "replace")
            said.extend(line.strip() for line in text.splitlines() if line.strip())
