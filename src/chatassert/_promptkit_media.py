"""PromptKit's media checks: `image_format`, `image_dimensions`, `audio_format`, `audio_duration`,
`video_duration`, `video_resolution`.

Each reads the response's media parts of its kind: the `Media` of the turn whose `role` is
`assistant` (PromptKit reads the parts of the turn's assistant message; a turn whose agent loop
answered in several assistant messages has the parts of all of them). What a part declares (its
MIME type, `format`, `width`, `height`, `duration_seconds`) is used first, then its headers,
read from base64 `data` or an existing local `file_path` (`chatassert._media`); a `url` is never
fetched. Violations, details and their wording are PromptKit's; what differs is that a verdict
the data cannot give is an `error`, never a failure or a pass: no media of the kind in the
response, or a part whose format, dimensions or duration cannot be known (when no other part
already violates the requirement): not read, not said by its headers, or said out of range (a
NaN or negative duration, a size of 0) or too slowly (a header reader stops at its CPU time
limit, drawn from the check's budget).

Docs: docs/promptkit.md ("Media checks"). Tests: tests/promptkit/test_promptkit_media.py.

Example:
    >>> from chatassert import Media, Turn
    >>> from chatassert.promptkit import ImageDimensions
    >>> turn = Turn(media=[Media(kind="image", mime_type="image/png", width=512, height=512)])
    >>> ImageDimensions(min_width=1024).check(turn).reason
    'width 512 below minimum 1024'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from chatassert._base import Assertion
from chatassert._media import READABLE, Facts, facts
from chatassert._models import Media, turn_of
from chatassert._params import Param, did_you_mean, register, string_values
from chatassert._result import Result, Status

__all__ = [
    "PRESETS",
    "AudioDuration",
    "AudioFormat",
    "ImageDimensions",
    "ImageFormat",
    "VideoDuration",
    "VideoResolution",
]

_P, _F, _E = Status.PASSED, Status.FAILED, Status.ERROR

PRESETS: dict[str, int] = {
    "480p": 480,
    "sd": 480,
    "720p": 720,
    "hd": 720,
    "1080p": 1080,
    "fhd": 1080,
    "full_hd": 1080,
    "1440p": 1440,
    "2k": 1440,
    "qhd": 1440,
    "2160p": 2160,
    "4k": 2160,
    "uhd": 2160,
    "4320p": 4320,
    "8k": 4320,
}
"""`video_resolution` presets (case-insensitive) and the height each stands for, as PromptKit
matches them: by height alone."""

_PLURAL = {"image": "images", "audio": "audio", "video": "video"}


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _go_list(values: Sequence[str]) -> str:
    """A list of strings as Go's `%v` prints it: `[1080p 4k]`."""
    return "[" + " ".join(values) + "]"


def _bound(name: str, lo: float | None, hi: float | None, unit: str = "") -> str | None:
    if lo is not None and hi is not None:
        return f"{_num(lo)}{unit} <= {name} <= {_num(hi)}{unit}"
    if lo is not None:
        return f"{name} >= {_num(lo)}{unit}"
    if hi is not None:
        return f"{name} <= {_num(hi)}{unit}"
    return None


def _limit(value: Any, name: str, kind: type) -> Any:
    """Check one optional bound: None, or a non-negative whole number (`int`) or number."""
    if value is None:
        return None
    allowed = (int,) if kind is int else (int, float)
    if isinstance(value, bool) or not isinstance(value, allowed):
        what = "a whole number" if kind is int else "a number"
        raise TypeError(
            f"{name} must be {what} of {'pixels' if kind is int else 'seconds'}, "
            f"got {type(value).__name__} {value!r}"
        )
    if value != value or value < 0 or value == float("inf"):
        raise ValueError(f"{name} must be a finite number from 0, got {value!r}")
    return value


def _ordered(lo: float | None, hi: float | None, low: str, high: str) -> None:
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(f"{low} ({_num(lo)}) is greater than {high} ({_num(hi)}): nothing passes")


class _MediaCheck(Assertion):
    """What the six checks share: finding the response's parts and the verdict's shape."""

    __slots__ = ()
    media_kind: ClassVar[str] = "image"
    needs: ClassVar[tuple[str, ...]] = ()
    what: ClassVar[str] = ""  # what is read, for messages: "format", "dimensions", "duration"
    evidence_at = "/media"
    _searches = True  # reading a header draws on the check's time budget (`_media.probe`)

    @property
    def _count_key(self) -> str:
        return f"{self.media_kind}_count"

    def _check(self, subject: object) -> Result:
        turn = turn_of(subject)
        kind = self.media_kind
        parts = [m for m in turn.media if m.kind == kind and m.role == "assistant"]
        if not parts:
            return self._no_media([m for m in turn.media if m.kind == kind])
        return self._decide(parts, [facts(m, needs=self.needs) for m in parts])

    def _no_media(self, elsewhere: Sequence[Media]) -> Result:
        noun = _PLURAL[self.media_kind]
        reason = f"no {noun} found in the response"
        if elsewhere:
            roles = sorted({m.role for m in elsewhere})
            reason += (
                f" (the turn's {len(elsewhere)} {self.media_kind} part(s) came with "
                f"{' and '.join(repr(r) for r in roles)} messages, which are not the response)"
            )
        else:
            reason += f": the turn has no {self.media_kind} parts"
        return Result(
            _E,
            self.kind,
            reason,
            {"error": f"no {noun} found in message", **self._no_media_details()},
        )

    def _no_media_details(self) -> dict[str, Any]:
        return {}

    def _decide(self, parts: Sequence[Media], found: Sequence[Facts]) -> Result:
        raise NotImplementedError

    def _where(self, index: int, total: int) -> str:
        return f"{self.media_kind} {index + 1} of {total}: " if total > 1 else ""

    def _unknown(self, fact: Facts) -> str:
        if fact.unread is not None:
            return fact.unread
        why = next((why for name, why in fact.rejected if name in self.needs), None)
        if why is not None:  # the header said something that is not a size or a duration
            return f"{why}; declare it on the part"
        data = f"its {fact.format} data" if fact.format else "its bytes, of no format it reads,"
        return (
            f"{data} do not say its {self.what} (chatassert reads {READABLE}); "
            f"declare it on the part"
        )

    def _verdict(
        self,
        found: Sequence[Facts],
        violations: Sequence[tuple[int, str]],
        unknown: Sequence[int],
        details: dict[str, Any],
    ) -> Result:
        """Failed on any violation, else an error on any part that could not be read."""
        total = len(found)
        details[self._count_key] = total
        details["violations"] = [v for _, v in violations]
        if unknown:
            details["unreadable"] = [
                {"index": i, "error": self._unknown(found[i])} for i in unknown
            ]
        if violations:
            reason = "; ".join(f"{self._where(i, total)}{v}" for i, v in violations)
            return Result(_F, self.kind, reason, details)
        if unknown:
            first = unknown[0]
            why = self._unknown(found[first])
            details["error"] = why
            reason = (
                f"cannot tell the {self.what} of {self.media_kind} {first + 1} of {total}: {why}"
            )
            return Result(_E, self.kind, reason, details)
        return Result(_P, self.kind, self._held(), details)


# -- formats -------------------------------------------------------------------------------------


class _Format(_MediaCheck):
    __slots__ = ("_allowed", "formats")
    needs = ("format",)
    what = "format"
    params: ClassVar[tuple[Param, ...]] = (
        Param(
            "formats",
            "str_list",
            required=True,
            doc="the allowed formats: MIME subtypes (png, jpeg, webp; mp3 for audio/mpeg, wav)",
        ),
    )
    formats: tuple[str, ...]
    _allowed: frozenset[str]

    def __init__(self, formats: str | Sequence[str], *, message: str | None = None) -> None:
        super().__init__(message=message)
        self._set("formats", string_values(formats, "formats"))
        self._set("_allowed", frozenset(f.lower() for f in self.formats))

    def _no_media_details(self) -> dict[str, Any]:
        return {"allowed_formats": list(self.formats)}

    def _decide(self, parts: Sequence[Media], found: Sequence[Facts]) -> Result:
        names = [f.format for f in found]
        invalid = [
            (i, n) for i, n in enumerate(names) if n is not None and n.lower() not in self._allowed
        ]
        details: dict[str, Any] = {
            "found_formats": [n for n in names if n is not None],
            "invalid_formats": [n for _, n in invalid],
            "allowed_formats": list(self.formats),
        }
        violations = [
            (i, f"format {n} is not one of the allowed formats {_go_list(self.formats)}")
            for i, n in invalid
        ]
        unknown = [i for i, n in enumerate(names) if n is None]
        return self._verdict(found, violations, unknown, details)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.media_kind} format is one of {', '.join(self.formats)}"


@register
class ImageFormat(_Format):
    """Passes when every image of the response has one of the allowed formats.

    The format is PromptKit's: the subtype of the part's MIME type (`image/jpeg` → `jpeg`, so
    `jpg` does not match it), else the part's declared `format`, else the one its bytes show.
    Formats compare ignoring case. No image in the response, or an image whose format cannot
    be known (and no other image of a wrong format), is an `error`.

    Example:
        >>> from chatassert import Media, Turn
        >>> from chatassert.promptkit import ImageFormat
        >>> turn = Turn(media=[Media(kind="image", mime_type="image/gif", url="https://x/a.gif")])
        >>> result = ImageFormat(["png", "jpeg"]).check(turn)
        >>> result.status, result.details["invalid_formats"]
        (<Status.FAILED: 'failed'>, ['gif'])
    """

    __slots__ = ()
    kind = "image_format"
    media_kind = "image"
    dialect_names = {"promptkit.turn": "image_format"}


@register
class AudioFormat(_Format):
    """Passes when every audio part of the response has one of the allowed formats.

    As `image_format`, for audio: `audio/mpeg` is `mp3`, `audio/wav` is `wav`; an OpenAI
    `input_audio` part's `format` is its declared format.

    Example:
        >>> from chatassert import Media, Turn
        >>> from chatassert.promptkit import AudioFormat
        >>> turn = Turn(media=[Media(kind="audio", mime_type="audio/mpeg", file_path="a.mp3")])
        >>> AudioFormat(["mp3", "wav"]).check(turn).details["found_formats"]
        ['mp3']
    """

    __slots__ = ()
    kind = "audio_format"
    media_kind = "audio"
    dialect_names = {"promptkit.turn": "audio_format"}


# -- dimensions ----------------------------------------------------------------------------------

_SIZE_PARAMS = (
    Param("min_width", "int", default=None, doc="the least width in pixels"),
    Param("max_width", "int", default=None, doc="the greatest width in pixels"),
    Param("min_height", "int", default=None, doc="the least height in pixels"),
    Param("max_height", "int", default=None, doc="the greatest height in pixels"),
)


class _Sized(_MediaCheck):
    __slots__ = ("max_height", "max_width", "min_height", "min_width")
    needs = ("width", "height")
    what = "dimensions"
    min_width: int | None
    max_width: int | None
    min_height: int | None
    max_height: int | None

    def _set_bounds(
        self,
        min_width: int | None,
        max_width: int | None,
        min_height: int | None,
        max_height: int | None,
    ) -> None:
        for name, value in (
            ("min_width", min_width),
            ("max_width", max_width),
            ("min_height", min_height),
            ("max_height", max_height),
        ):
            self._set(name, _limit(value, name, int))
        _ordered(min_width, max_width, "min_width", "max_width")
        _ordered(min_height, max_height, "min_height", "max_height")

    def _range(self, width: int, height: int) -> list[str]:
        out = []
        if self.min_width is not None and width < self.min_width:
            out.append(f"width {width} below minimum {self.min_width}")
        if self.max_width is not None and width > self.max_width:
            out.append(f"width {width} exceeds maximum {self.max_width}")
        if self.min_height is not None and height < self.min_height:
            out.append(f"height {height} below minimum {self.min_height}")
        if self.max_height is not None and height > self.max_height:
            out.append(f"height {height} exceeds maximum {self.max_height}")
        return out

    def _bounds_details(self) -> dict[str, Any]:
        names = ("min_width", "max_width", "min_height", "max_height")
        return {n: getattr(self, n) for n in names if getattr(self, n) is not None}

    def _part_violations(self, width: int, height: int) -> list[str]:
        return self._range(width, height)

    def _decide(self, parts: Sequence[Media], found: Sequence[Facts]) -> Result:
        violations: list[tuple[int, str]] = []
        unknown: list[int] = []
        sizes: list[str] = []
        for i, fact in enumerate(found):
            if fact.width is None or fact.height is None:
                unknown.append(i)
                continue
            sizes.append(f"{fact.width}x{fact.height}")
            violations.extend((i, v) for v in self._part_violations(fact.width, fact.height))
        details: dict[str, Any] = {self._found_key: sizes, **self._bounds_details()}
        return self._verdict(found, violations, unknown, details)

    _found_key: ClassVar[str] = "found_dimensions"

    def _describe_bounds(self) -> list[str]:
        return [
            b
            for b in (
                _bound("width", self.min_width, self.max_width),
                _bound("height", self.min_height, self.max_height),
            )
            if b is not None
        ]


@register
class ImageDimensions(_Sized):
    """Passes when every image of the response is within the size limits, in pixels.

    `width` / `height` require an exact size; `min_width`, `max_width`, `min_height`,
    `max_height` bound it (at least one of the six is needed). The size is the one the part
    declares, else its header's (PNG, JPEG, GIF, WebP). Violations are PromptKit's (`width 512
    below minimum 1024`); no image in the response, or an image whose size cannot be known
    (and no other image out of bounds), is an `error`.

    Example:
        >>> from chatassert import Media, Turn
        >>> from chatassert.promptkit import ImageDimensions
        >>> turn = Turn(media=[Media(kind="image", width=1920, height=1080)])
        >>> ImageDimensions(width=1920, max_height=720).check(turn).details["violations"]
        ['height 1080 exceeds maximum 720']
    """

    __slots__ = ("height", "width")
    kind = "image_dimensions"
    media_kind = "image"
    dialect_names = {"promptkit.turn": "image_dimensions"}
    params = (
        *_SIZE_PARAMS,
        Param("width", "int", default=None, doc="the exact width in pixels"),
        Param("height", "int", default=None, doc="the exact height in pixels"),
    )
    width: int | None
    height: int | None

    def __init__(
        self,
        *,
        min_width: int | None = None,
        max_width: int | None = None,
        min_height: int | None = None,
        max_height: int | None = None,
        width: int | None = None,
        height: int | None = None,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        self._set_bounds(min_width, max_width, min_height, max_height)
        self._set("width", _limit(width, "width", int))
        self._set("height", _limit(height, "height", int))
        given = (min_width, max_width, min_height, max_height, width, height)
        if all(v is None for v in given):
            raise ValueError(
                "image_dimensions needs at least one of min_width, max_width, min_height, "
                "max_height, width, height"
            )

    def _bounds_details(self) -> dict[str, Any]:
        out = super()._bounds_details()
        for name in ("width", "height"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def _part_violations(self, width: int, height: int) -> list[str]:
        out = []
        if self.width is not None and width != self.width:
            out.append(f"width {width} does not match required {self.width}")
        if self.height is not None and height != self.height:
            out.append(f"height {height} does not match required {self.height}")
        return out + self._range(width, height)

    def describe(self) -> str:
        """Describe the requirement."""
        exact = [
            f"{n} = {getattr(self, n)}" for n in ("width", "height") if getattr(self, n) is not None
        ]
        return "image " + ", ".join(exact + self._describe_bounds())


@register
class VideoResolution(_Sized):
    """Passes when every video of the response has an allowed resolution.

    `presets` (`480p`/`sd`, `720p`/`hd`, `1080p`/`fhd`/`full_hd`, `1440p`/`2k`/`qhd`,
    `2160p`/`4k`/`uhd`, `4320p`/`8k`, any case) match by height alone, as PromptKit matches
    them; a video that matches none is reported for that alone, else `min_width`,
    `max_width`, `min_height`, `max_height` are checked. At least one preset or bound is
    needed. The size is the one the part declares, else its header's (MP4/QuickTime track
    header, WebM/Matroska); no video in the response, or one whose size cannot be known (and
    no other video out of bounds), is an `error`.

    Example:
        >>> from chatassert import Media, Turn
        >>> from chatassert.promptkit import VideoResolution
        >>> turn = Turn(media=[Media(kind="video", width=1280, height=720)])
        >>> VideoResolution(presets=["1080p", "4k"]).check(turn).reason
        'resolution 1280x720 does not match any preset: [1080p 4k]'
    """

    __slots__ = ("_heights", "presets")
    kind = "video_resolution"
    media_kind = "video"
    dialect_names = {"promptkit.turn": "video_resolution"}
    params = (
        Param("presets", "str_list", default=(), doc="named resolutions: 720p, 1080p, 4k, ..."),
        *_SIZE_PARAMS,
    )
    _found_key = "found_resolutions"
    presets: tuple[str, ...]
    _heights: frozenset[int]

    def __init__(
        self,
        presets: str | Sequence[str] = (),
        *,
        min_width: int | None = None,
        max_width: int | None = None,
        min_height: int | None = None,
        max_height: int | None = None,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        names = string_values(presets, "presets") if presets else ()
        for name in names:
            if name.lower() not in PRESETS:
                hint = did_you_mean(name.lower(), list(PRESETS))
                raise ValueError(
                    f"presets: unknown preset {name!r}"
                    + (f"; {hint}" if hint else f"; known: {', '.join(PRESETS)}")
                )
        self._set("presets", names)
        self._set("_heights", frozenset(PRESETS[n.lower()] for n in names))
        self._set_bounds(min_width, max_width, min_height, max_height)
        if not names and all(v is None for v in (min_width, max_width, min_height, max_height)):
            raise ValueError(
                "video_resolution needs presets or at least one of min_width, max_width, "
                "min_height, max_height"
            )

    def _bounds_details(self) -> dict[str, Any]:
        out = super()._bounds_details()
        return {"allowed_presets": list(self.presets), **out} if self.presets else out

    def _part_violations(self, width: int, height: int) -> list[str]:
        if self._heights and height not in self._heights:
            return [
                f"resolution {width}x{height} does not match any preset: {_go_list(self.presets)}"
            ]
        return self._range(width, height)

    def describe(self) -> str:
        """Describe the requirement."""
        presets = [f"one of {', '.join(self.presets)}"] if self.presets else []
        return "video resolution " + ", ".join(presets + self._describe_bounds())


# -- durations -----------------------------------------------------------------------------------


class _Duration(_MediaCheck):
    __slots__ = ("max_seconds", "min_seconds")
    needs = ("duration",)
    what = "duration"
    params: ClassVar[tuple[Param, ...]] = (
        Param("min_seconds", "number", default=None, doc="the least duration in seconds"),
        Param("max_seconds", "number", default=None, doc="the greatest duration in seconds"),
    )
    min_seconds: float | None
    max_seconds: float | None

    def __init__(
        self,
        *,
        min_seconds: float | None = None,
        max_seconds: float | None = None,
        message: str | None = None,
    ) -> None:
        super().__init__(message=message)
        self._set("min_seconds", _limit(min_seconds, "min_seconds", float))
        self._set("max_seconds", _limit(max_seconds, "max_seconds", float))
        if min_seconds is None and max_seconds is None:
            raise ValueError(f"{self.kind} needs min_seconds, max_seconds or both")
        _ordered(min_seconds, max_seconds, "min_seconds", "max_seconds")

    def _decide(self, parts: Sequence[Media], found: Sequence[Facts]) -> Result:
        violations: list[tuple[int, str]] = []
        unknown: list[int] = []
        durations: list[float] = []
        lo, hi = self.min_seconds, self.max_seconds
        for i, fact in enumerate(found):
            if fact.duration is None:
                unknown.append(i)
                continue
            seconds = fact.duration
            durations.append(seconds)
            if lo is not None and seconds < lo:
                violations.append((i, f"duration {seconds:.1f}s below minimum {lo:.1f}s"))
            if hi is not None and seconds > hi:
                violations.append((i, f"duration {seconds:.1f}s exceeds maximum {hi:.1f}s"))
        details: dict[str, Any] = {"found_durations": durations}
        if lo is not None:
            details["min_seconds"] = lo
        if hi is not None:
            details["max_seconds"] = hi
        return self._verdict(found, violations, unknown, details)

    def describe(self) -> str:
        """Describe the requirement."""
        return f"{self.media_kind} {_bound('duration', self.min_seconds, self.max_seconds, 's')}"


@register
class AudioDuration(_Duration):
    """Passes when every audio part of the response lasts within the limits, in seconds.

    The duration is the one the part declares (PromptKit's `duration`, `duration_seconds`
    here), else its header's (WAV, MP3, FLAC, Ogg, MP4). Violations are PromptKit's
    (`duration 2.0s below minimum 5.0s`); no audio in the response, or a part whose duration
    cannot be known (and no other part out of bounds), is an `error`.

    Example:
        >>> from chatassert import Media, Turn
        >>> from chatassert.promptkit import AudioDuration
        >>> turn = Turn(media=[Media(kind="audio", duration_seconds=2)])
        >>> AudioDuration(min_seconds=5, max_seconds=60).check(turn).reason
        'duration 2.0s below minimum 5.0s'
    """

    __slots__ = ()
    kind = "audio_duration"
    media_kind = "audio"
    dialect_names = {"promptkit.turn": "audio_duration"}


@register
class VideoDuration(_Duration):
    """Passes when every video of the response lasts within the limits, in seconds.

    As `audio_duration`, for video: the declared duration, else the MP4/QuickTime movie
    header's or the WebM/Matroska segment's.

    Example:
        >>> from chatassert import Media, Turn
        >>> from chatassert.promptkit import VideoDuration
        >>> turn = Turn(media=[Media(kind="video", duration_seconds=95.5)])
        >>> VideoDuration(max_seconds=60).check(turn).details["violations"]
        ['duration 95.5s exceeds maximum 60.0s']
    """

    __slots__ = ()
    kind = "video_duration"
    media_kind = "video"
    dialect_names = {"promptkit.turn": "video_duration"}
