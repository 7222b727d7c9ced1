"""Fuzz the judges' HTTP/2 client (`chatassert.judges._h2`) with the frames a server sends.

A socket server on 127.0.0.1 sends its preface (SETTINGS), reads each request the client sends
(its preface, settings and the request's frames, up to the end of its stream), answers with a
drawn sequence of frames —
a well-formed reply (SETTINGS, HEADERS, DATA carrying a passing verdict), then mutated: frames
dropped, repeated, swapped, given another type, flags, stream or length, bytes flipped, the
whole cut short, frames of any type inserted — and closes the connection. Every input must
give a result (never a crash or a hang), strict JSON; the unmutated reply must pass; and a
check may pass only when the bytes the server sent held the passing verdict.
"""

from __future__ import annotations

import json
import socket
import socketserver
import struct
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fuzzing import fuzz_target
from hpack import Encoder
from hypothesis import given, strategies as st

from chatassert import LLMRubric, Result, Status, Turn
from chatassert.judges import OpenAIJudge

_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_HEAD = struct.Struct(">BHBBL")
_VERDICT = '{"passed": true, "reason": "it apologises"}'
_BODY = json.dumps(
    {"choices": [{"index": 0, "message": {"role": "assistant", "content": _VERDICT}}]}
).encode()
_PASSING = b'\\"passed\\": true'  # the verdict's claim, as the body carries it (escaped)


def _frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
    n = len(payload)
    return _HEAD.pack(n >> 16, n & 0xFFFF, kind, flags, stream) + payload


def _reply() -> list[bytes]:
    """A well-formed reply to stream 1: settings, headers, the body in two DATA frames."""
    block = Encoder().encode([(":status", "200"), ("content-type", "application/json")])
    half = len(_BODY) // 2
    assert _BODY.index(_PASSING) >= half  # the claim is never cut by the frames' split
    return [
        _frame(4, 0, 0, b""),  # SETTINGS
        _frame(4, 1, 0, b""),  # SETTINGS ACK
        _frame(1, 4, 1, block),  # HEADERS, END_HEADERS
        _frame(0, 0, 1, _BODY[:half]),  # DATA
        _frame(0, 1, 1, _BODY[half:]),  # DATA, END_STREAM
    ]


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        conn: socket.socket = self.request
        conn.settimeout(3.0)
        try:
            conn.sendall(_frame(4, 0, 0, b""))  # the server's preface: the client waits for it
            if _read_request(conn):
                conn.sendall(_SCRIPT[0])
        except OSError:
            pass
        finally:
            conn.close()


def _read_request(conn: socket.socket) -> bool:
    """Read the client's preface and frames up to the end of a request's stream."""
    data = b""
    while len(data) < len(_PREFACE):
        chunk = conn.recv(65536)
        if not chunk:
            return False
        data += chunk
    data = data[len(_PREFACE) :]
    while True:
        while len(data) >= 9:
            high, low, kind, flags, _ = _HEAD.unpack(data[:9])
            size = (high << 16) | low
            if len(data) < 9 + size:
                break
            data = data[9 + size :]
            if kind in (0, 1) and flags & 1:  # DATA or HEADERS ending a stream
                return True
        chunk = conn.recv(65536)
        if not chunk:
            return False
        data += chunk


_SCRIPT: list[bytes] = [b""]


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


_SERVER = _Server(("127.0.0.1", 0), _Handler)
threading.Thread(target=_SERVER.serve_forever, daemon=True).start()
_JUDGE = OpenAIJudge(
    "judge-model",
    base_url=f"http://127.0.0.1:{_SERVER.server_address[1]}/v1",
    api_key_env="CHATASSERT_FUZZ_NO_SUCH_KEY",
    http2=True,
    timeout=2.0,
    retries=0,
    response_format="none",
)
_TURN = Turn(input="My order is late", text="Sorry about the delay.")


@pytest.fixture(scope="module", autouse=True)
def _stop_the_server() -> Iterator[None]:
    yield
    _SERVER.shutdown()
    _SERVER.server_close()


_random_frames = st.builds(
    _frame,
    st.integers(0, 12),
    st.integers(0, 255),
    st.sampled_from([0, 1, 1, 3, 2**31 - 1]),
    st.binary(max_size=40),
)


@st.composite
def scripts(draw: st.DrawFn) -> tuple[bytes, bool]:
    """What the server sends, and whether it is the unmutated reply."""
    frames = _reply()
    ops = draw(st.lists(st.integers(0, 7), max_size=4))
    for op in ops:
        i = draw(st.integers(0, max(0, len(frames) - 1)))
        if op == 0 and frames:
            del frames[i]
        elif op == 1 and frames:
            frames.insert(i, frames[i])
        elif op == 2 and len(frames) > 1:
            j = draw(st.integers(0, len(frames) - 1))
            frames[i], frames[j] = frames[j], frames[i]
        elif op == 3:
            frames.insert(i, draw(_random_frames))
        elif op == 4 and frames:  # another type, flags or stream, same payload
            head = bytearray(frames[i][:9])
            at = draw(st.sampled_from([3, 4, 8]))
            head[at] = draw(st.integers(0, 255))
            frames[i] = bytes(head) + frames[i][9:]
        elif op == 5 and frames:  # a length that lies
            head = bytearray(frames[i][:9])
            head[1:3] = draw(st.integers(0, 0xFFFF)).to_bytes(2, "big")
            frames[i] = bytes(head) + frames[i][9:]
        elif op == 6 and frames:  # a byte flipped anywhere in the frame
            frame = bytearray(frames[i])
            at = draw(st.integers(0, len(frame) - 1))
            frame[at] ^= draw(st.integers(1, 255))
            frames[i] = bytes(frame)
        elif op == 7:  # a second answer after the first
            frames.append(_frame(0, 1, 1, draw(st.binary(max_size=20))))
    data = b"".join(frames)
    cut = draw(st.one_of(st.none(), st.integers(0, len(data))))
    return (data if cut is None else data[:cut]), not ops and cut is None


@given(scripts())
@fuzz_target("judge.h2_frames")
def test_an_http2_judge_on_any_frames_passes_only_on_the_verdict_it_was_sent(
    script: tuple[bytes, bool],
) -> None:
    data, intact = script
    _SCRIPT[0] = data
    result = LLMRubric("Apologises", judge=_JUDGE).check(_TURN)
    assert isinstance(result, Result)
    json.dumps(result.to_dict(), allow_nan=False)
    if intact:
        assert result.status is Status.PASSED, result.reason
    if result.status is Status.PASSED:  # the claim lies in the second DATA frame, whole
        assert _PASSING in data, (data, result.reason)


def test_the_server_answers_an_unmutated_reply_with_a_pass() -> None:
    _SCRIPT[0] = b"".join(_reply())
    result: Any = LLMRubric("Apologises", judge=_JUDGE).check(_TURN)
    assert result.status is Status.PASSED, result.reason
