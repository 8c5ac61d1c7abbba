"""Writes tests/fixtures/bombs/: compressed streams of zeros that inflate far past their size, by
Python's own bz2 and lzma modules (libbzip2 and liblzma), for the tests of decoding in steps
(tests/stepwise_extra.rs, tests/cases/extra.mjs): a chunk that decodes to hundreds of MB must
neither hold the event loop nor outlast its read's abort.

- zeros_300mb.bz2: 300,000,000 zero bytes, one bzip2 stream (level 9: seven blocks of 45 MB);
- zeros_1mib.xz: 1 MiB of zeros, one XZ stream (preset 6, CRC64), which the tests repeat (XZ
  streams may follow each other) to reach any size;
- zeros_300mb.lzma: 300,000,000 zero bytes in the alone format (.lzma, preset 6), as numcodecs'
  lzma writes with format=2: no size in its header, an end marker.

Run `python3 scripts/make_bombs.py` (no packages needed).
"""
import bz2
import lzma
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "bombs"
OUT.mkdir(parents=True, exist_ok=True)
BIG = b"\0" * 300_000_000
(OUT / "zeros_300mb.bz2").write_bytes(bz2.compress(BIG, 9))
(OUT / "zeros_1mib.xz").write_bytes(lzma.compress(b"\0" * (1 << 20)))
(OUT / "zeros_300mb.lzma").write_bytes(lzma.compress(BIG, format=lzma.FORMAT_ALONE))
for path in sorted(OUT.iterdir()):
    print(f"{path.name}: {path.stat().st_size} bytes")
