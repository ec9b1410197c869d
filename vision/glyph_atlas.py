"""The glyph atlas behind the synthetic decks: every rank and suit glyph of many typefaces,
rendered once from font files to grey masks in vision/assets/glyphs/glyphs.npz.

Run by hand (`python -m vision.glyph_atlas FONT_DIR...`, needs Pillow: the `train` extra);
training reads only the committed atlas, so no font file is needed at run or train time.
"""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import numpy as np

ATLAS = Path(__file__).resolve().parent / "assets" / "glyphs" / "glyphs.npz"
RANK_TEXT = {
    "A": "A",
    "2": "2",
    "3": "3",
    "4": "4",
    "5": "5",
    "6": "6",
    "7": "7",
    "8": "8",
    "9": "9",
    "T": "10",
    "J": "J",
    "Q": "Q",
    "K": "K",
}
SUIT_TEXT = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
PX = 96  # font size the masks are rendered at

# Typefaces whose rank glyphs are used (file stems); suits come from any font that has them.
FONT_STEMS = [
    "texgyretermes-regular",
    "texgyretermes-bold",
    "texgyreheros-regular",
    "texgyreheros-bold",
    "texgyreheroscn-regular",
    "texgyreheroscn-bold",
    "texgyrecursor-bold",
    "texgyrebonum-regular",
    "texgyrebonum-bold",
    "texgyrepagella-regular",
    "texgyrepagella-bold",
    "texgyreschola-regular",
    "texgyreschola-bold",
    "texgyreadventor-regular",
    "texgyreadventor-bold",
    "DejaVuSans",
    "DejaVuSans-Bold",
    "DejaVuSansCondensed-Bold",
    "DejaVuSerif",
    "DejaVuSerif-Bold",
    "DejaVuSerifCondensed",
    "DejaVuSansMono-Bold",
    "FreeSans",
    "FreeSansBold",
    "FreeSerif",
    "FreeSerifBold",
    "FreeMonoBold",
    "LiberationSans-Regular",
    "LiberationSans-Bold",
    "LiberationSerif-Regular",
    "LiberationSerif-Bold",
    "LiberationMono-Bold",
    "Caladea-Regular",
    "Caladea-Bold",
    "Carlito-Regular",
    "Carlito-Bold",
    "Lato-Regular",
    "Lato-Bold",
    "Lato-Black",
    "Lato-Light",
    "OpenSans-Regular",
    "OpenSans-Bold",
    "OpenSans-ExtraBold",
    "Roboto-Regular",
    "Roboto-Bold",
    "Roboto-Black",
    "RobotoCondensed-Bold",
    "RobotoCondensed-Regular",
    "EBGaramond12-Regular",
    "LinLibertine_R",
    "LinLibertine_RB",
    "LinBiolinum_R",
    "LinBiolinum_RB",
    "STIXGeneral",
    "STIXGeneralBol",
    "cmr10",
    "cmss10",
    "DejaVuSerifDisplay",
    # 2026-12-02: more typefaces (display, condensed, slab, rounded, old-style), so that the
    # classifier meets more of the ways a deck may print its ranks
    "BebasNeue-Bold",
    "BebasNeue-Regular",
    "C059-Roman",
    "C059-Bold",
    "P052-Bold",
    "NimbusSansNarrow-Bold",
    "URWBookman-Light",
    "URWBookman-Demi",
    "URWGothic-Demi",
    "Cabin-SemiBold",
    "Cabin-Bold",
    "Cantarell-Bold",
    "Cantarell-ExtraBold",
    "CharisSIL-Regular",
    "CharisSIL-Bold",
    "GentiumPlus-Bold",
    "GentiumBookPlus-Bold",
    "Andika-Bold",
    "Comfortaa-Bold",
    "Dosis-Medium",
    "Dosis-Bold",
    "Dosis-ExtraBold",
    "FiraCode-Bold",
    "Hack-Bold",
    "Inconsolata",
    "Go-Medium",
    "Go-Bold",
    "Go-Mono-Bold",
    "JunicodeTwoBeta-Bold",
    "JunicodeTwoBeta-Condensed",
    "JunicodeTwoBeta-CondensedMedium",
    "LeagueSpartan-Medium",
    "LeagueSpartan-Bold",
    "LeagueSpartan-Black",
    "Quicksand-Bold",
    "AccanthisADFStd-Bold",
    "BaskervaldADFStd-Bold",
    "BaskervaldADFStd-Heavy",
    "GilliusADF-Bold",
    "GilliusADF-BoldCond",
    "RomandeADFStd-DemiBold",
    "SwitzeraADF-BoldCond",
    "SwitzeraADF-ExtraBold",
    "TribunADFStd-BoldCond",
    "TribunADFStd-ExtraBold",
    "UniversalisADFStd-Bold",
    "UniversalisADFStd-BoldCond",
    "NotoSans-Bold",
    "NotoSansDisplay-Bold",
    "NotoSerif-Bold",
    "NotoSerifDisplay-Bold",
    "OpenSans-CondBold",
    "Roboto-Medium",
    "RobotoCondensed-Medium",
    "Lato-Heavy",
    "DejaVuSerifCondensed-Bold",
    "NotoSansSymbols2-Regular",
]


def _mask(font, text: str) -> np.ndarray | None:
    from PIL import Image, ImageDraw

    img = Image.new("L", (PX * 3, PX * 2), 0)
    ImageDraw.Draw(img).text((PX // 2, PX // 3), text, font=font, fill=255)
    a = np.asarray(img)
    ys, xs = np.nonzero(a > 20)
    if len(xs) == 0:
        return None
    return a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].copy()


def _has_glyph(font, ch: str) -> bool:
    """False where the font would draw its 'missing glyph' box for `ch`."""
    probe, missing = _mask(font, ch), _mask(font, "\ue000")
    if probe is None:
        return False
    return missing is None or probe.shape != missing.shape or not np.array_equal(probe, missing)


def build(font_dirs: list[Path], out: Path = ATLAS) -> dict:
    from PIL import ImageFont

    files = {}
    for d in font_dirs:
        for p in sorted(d.rglob("*")):
            if p.suffix.lower() in (".ttf", ".otf"):
                files.setdefault(p.stem, p)
    arrays: dict[str, np.ndarray] = {}
    index: dict[str, list[str]] = {"rank_fonts": [], "suit_fonts": []}
    for stem in FONT_STEMS:
        if stem not in files:
            continue
        font = ImageFont.truetype(str(files[stem]), PX)
        masks = {r: _mask(font, t) for r, t in RANK_TEXT.items()}
        if all(m is not None for m in masks.values()) and _has_glyph(font, "Q"):
            index["rank_fonts"].append(stem)
            for r, m in masks.items():
                arrays[f"{stem}|{r}"] = m
        if all(_has_glyph(font, t) for t in SUIT_TEXT.values()):
            index["suit_fonts"].append(stem)
            for s, t in SUIT_TEXT.items():
                arrays[f"{stem}|{s}"] = _mask(font, t)
    out.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez_compressed(buf, index=np.frombuffer(json.dumps(index).encode(), np.uint8), **arrays)
    out.write_bytes(buf.getvalue())
    return {k: len(v) for k, v in index.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description="Render the glyph atlas from font folders.")
    ap.add_argument("font_dirs", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, default=ATLAS)
    a = ap.parse_args()
    print(build(a.font_dirs, a.out))


if __name__ == "__main__":
    main()
