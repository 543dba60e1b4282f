"""Opening input files: plain, gzip or Zstandard (told by their first bytes, whatever the name),
checked for text before a run starts, read lazily as lines or a text stream.

Every problem with a file is an ``InputError`` on one line naming the file.
"""

from __future__ import annotations

import codecs
import gzip
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, Callable, TextIO, Union

from paper_claims.errors import InputError

PathLike = Union[str, Path]

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
COMPRESSED_SUFFIXES = (".gz", ".zst")
_CHUNK = 1 << 20
_ZSTD_INPUT = 1 << 16  # compressed bytes decompressed at once (text: a few hundred KB out)


def cannot(path: PathLike, reason: str) -> InputError:
    """An InputError naming the file, on one line."""
    return InputError(f"cannot read {path}: {reason}")


def _open_raw(path: PathLike) -> BinaryIO:
    try:
        return Path(path).open("rb")
    except FileNotFoundError:
        raise cannot(path, "no such file") from None
    except IsADirectoryError:
        raise cannot(path, "is a directory") from None
    except OSError as exc:
        raise cannot(path, exc.strerror or type(exc).__name__) from None


def _zstd_decompressor(raw: BinaryIO, path: PathLike) -> Callable[[], Any]:
    """A maker of one-frame Zstandard decompressors (``decompress``, ``eof``, ``unused_data``):
    Python's own (3.14+) or the zstandard package's."""
    try:
        from compression import zstd  # type: ignore[import-not-found]  # Python 3.14+

        return zstd.ZstdDecompressor  # type: ignore[no-any-return]
    except ImportError:
        pass
    try:
        import zstandard
    except ImportError:
        raw.close()
        raise cannot(path, "Zstandard-compressed, and the zstandard package is not installed "
                           "(pip install zstandard)") from None
    return lambda: zstandard.ZstdDecompressor().decompressobj()


class _ZstdFrames(io.RawIOBase):
    """Zstandard frames one after another, decompressed a piece of input at a time. The input
    must end where a frame ends: a file cut anywhere else (even between two blocks, where the
    data read so far is whole) raises ``EOFError``, so a truncated file is never fewer records."""

    def __init__(self, raw: BinaryIO, new_frame: Callable[[], Any]) -> None:
        super().__init__()
        self.raw, self.new_frame = raw, new_frame
        self.frame: Any = None
        self.pending, self.offset, self.done = b"", 0, False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: "memoryview") -> int:  # type: ignore[override]
        while self.offset >= len(self.pending) and not self.done:
            self.pending, self.offset = self._decompressed(self.raw.read(_ZSTD_INPUT)), 0
        size = min(len(buffer), len(self.pending) - self.offset)
        buffer[:size] = self.pending[self.offset : self.offset + size]
        self.offset += size
        return size

    def _decompressed(self, data: bytes) -> bytes:
        if not data:
            if self.frame is not None and not self.frame.eof:
                raise EOFError("the file ends before the end of its last frame: truncated?")
            self.done = True
            return b""
        out = []
        while data:
            if self.frame is None or self.frame.eof:
                self.frame = self.new_frame()
            out.append(self.frame.decompress(data))
            data = self.frame.unused_data if self.frame.eof else b""
        return b"".join(out)

    def close(self) -> None:
        if not self.closed:
            self.raw.close()
        super().close()


class _Checked(io.RawIOBase):
    """A decompressing stream whose errors (corrupt or truncated data) are InputErrors."""

    def __init__(self, inner: BinaryIO, path: PathLike, kind: str, raw: BinaryIO) -> None:
        super().__init__()
        self.inner, self.path, self.kind, self.raw = inner, path, kind, raw

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: "memoryview") -> int:  # type: ignore[override]
        try:
            data = self.inner.read(len(buffer))
        except (OSError, EOFError, ValueError) as exc:
            raise cannot(self.path, f"bad {self.kind} data ({exc or type(exc).__name__})") from None
        except Exception as exc:  # zstandard.ZstdError is not an OSError
            raise cannot(self.path, f"bad {self.kind} data ({exc})") from None
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self.inner.close()
            self.raw.close()  # GzipFile leaves the file it was given open
        super().close()


def open_binary(path: PathLike) -> BinaryIO:
    """The file's bytes, decompressed when it is gzip or Zstandard (told by its magic bytes)."""
    raw = _open_raw(path)
    head = raw.peek(4)[:4] if hasattr(raw, "peek") else b""
    if head.startswith(GZIP_MAGIC):
        return io.BufferedReader(_Checked(gzip.GzipFile(fileobj=raw, mode="rb"), path, "gzip", raw), _CHUNK)  # type: ignore[arg-type]
    if head.startswith(ZSTD_MAGIC):
        frames = _ZstdFrames(raw, _zstd_decompressor(raw, path))
        return io.BufferedReader(_Checked(frames, path, "Zstandard", raw), _CHUNK)  # type: ignore[arg-type]
    return raw


def plain_name(path: PathLike) -> str:
    """The file name without a compression suffix ("works.jsonl.gz" -> "works.jsonl")."""
    name = Path(path).name
    for suffix in COMPRESSED_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def stem_of(path: PathLike) -> str:
    """The file's stem without compression or format suffix ("works.jsonl.gz" -> "works")."""
    return Path(plain_name(path)).stem


def suffix_of(path: PathLike) -> str:
    """The file's format suffix, lower case, without a compression suffix ("" if none)."""
    return Path(plain_name(path)).suffix.lower()


def check_text_file(path: PathLike) -> None:
    """InputError if the file is missing, empty, binary, not UTF-8 or badly compressed: made
    in constant memory over the whole (decompressed) file, so a run fails before its first
    document."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, blank = 0, True
    with open_binary(path) as handle:
        while True:
            raw = handle.read(_CHUNK)
            nul = raw.find(b"\x00")
            if nul >= 0:
                raise cannot(path, f"binary file (NUL byte at offset {offset + nul})")
            try:
                text = decoder.decode(raw, final=not raw)
            except UnicodeDecodeError as exc:
                at = offset + exc.start - len(decoder.getstate()[0]) if exc.start < 0 else offset + exc.start
                bad = raw[exc.start] if 0 <= exc.start < len(raw) else 0
                raise cannot(path, f"not UTF-8 text (byte 0x{bad:02x} at offset {at})") from None
            blank = blank and not text.replace("\ufeff", "").strip()
            if not raw:
                break
            offset += len(raw)
    if blank:
        raise cannot(path, "empty file")


def read_text(path: PathLike) -> str:
    """The whole file as text, line endings normalised (``check_text_file`` has vetted it)."""
    with open_binary(path) as handle:
        text = handle.read().decode("utf-8", errors="replace").removeprefix("\ufeff")
    if not text.strip():
        raise cannot(path, "empty file")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def text_stream(path: PathLike) -> TextIO:
    """The file as a text stream (UTF-8, a leading BOM dropped, universal newlines), read lazily."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8-sig", errors="replace", newline=None)


def text_lines(path: PathLike) -> Iterator[str]:
    """The lines of a text file without their line ends, read lazily."""
    with text_stream(path) as stream:
        for line in stream:
            yield line.rstrip("\n")
