#!/usr/bin/env python3
"""Runs a command on a pty of its own inside the current terminal, passing bytes both ways (so the terminal's real
answers to its queries reach it), and times what it writes: when the first picture began and ended — a sixel
(DCS ... q ... ST), a kitty graphics command (APC G ... ST) or, for half blocks, the first line with a half-block
character and 24-bit or 256 colours — measured from just before the command was started.

Usage: pty-timer.py REPORT_FILE COMMAND [ARG...]
REPORT_FILE gets one line of JSON: {"first_picture_start": s, "first_picture_end": s, "kind": ..., "exit": n,
"replies": [...]}, the replies being what the terminal sent in the first 2 s (escape sequences, for the record).
The command is ended with SIGTERM (then SIGKILL) once the first picture is whole, or after 20 s."""
import json, os, pty, re, select, signal, sys, termios, time, tty

report, argv = sys.argv[1], sys.argv[2:]


def kitty_shown(data):
    """Where the first kitty picture is on screen: the end of the last chunk of a transmit-and-show command (a=T), or
    of a show command (a=p) after a transmission; None before. (Chunks after the first carry only m=.)"""
    sent, action = False, None
    for m in re.finditer(rb"\x1b_G([^;\x1b]*)(?:;[^\x1b]*)?\x1b\\", data):
        keys = dict(kv.split(b"=", 1) for kv in m.group(1).split(b",") if b"=" in kv)
        if b"a" in keys or set(keys) - {b"m", b"q"}:
            action = keys.get(b"a", b"t")
        last_chunk = keys.get(b"m", b"0") == b"0"
        if action == b"T" and last_chunk:
            return m.end()
        if action == b"t" and last_chunk:
            sent = True
        if action == b"p" and sent:
            return m.end()
    return None
start = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)

# The pty takes the real terminal's size; the real terminal is ours in raw mode while the command runs.
try:
    import fcntl, struct
    size = fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, size)
    os.kill(pid, signal.SIGWINCH)
except OSError:
    pass
saved = termios.tcgetattr(0) if os.isatty(0) else None
if saved: tty.setraw(0)

out = b""
picture_start = picture_end = None
kind = None
picture_bytes = None
last_data = start
replies = b""
dump = b"" if os.environ.get("PTY_TIMER_DUMP") else None
deadline = start + 20
ended = None
try:
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd, 0] if saved else [fd], [], [], 0.004)
        now = time.monotonic()
        # (Half blocks without a synchronized update, as mpv's tct writes them: the picture is whole once the output
        # pauses, 10 ms after its last bytes: a frame comes in one burst, the next after a frame interval.)
        if kind == "blocks" and picture_end is None and fd not in ready and now - last_data > 0.01:
            picture_end = ended = last_data
        if fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            os.write(1, data)
            last_data = now
            if dump is not None and len(dump) < 200_000:
                dump += data
            if picture_end is None:
                out += data
                if picture_start is None:
                    # (A kitty query, a=q, is no picture.)
                    # (Half blocks: scrubkit's upper ▀, mpv's tct lower ▄.)
                    m = re.search(rb"\x1bP[0-9;]*q|\x1b_G(?=[^;\x1b]*a=[Tt])|\xe2\x96[\x80\x84]", out)
                    if m:
                        picture_start = now
                        kind = {b"\x1bP": "sixel", b"\x1b_": "kitty"}.get(m.group(0)[:2], "blocks")
                        out = out[m.start():]
                if picture_start is not None:
                    if kind in ("sixel", "kitty"):
                        # The picture is whole at its last string terminator followed by no more picture data: for
                        # kitty the chunk with m=0; for sixel the ST after the data.
                        if kind == "sixel" and b"\x1b\\" in out:
                            picture_end = now
                            picture_bytes = out.index(b"\x1b\\") + 2
                        if kind == "kitty":
                            done = kitty_shown(out)
                            if done is not None:
                                picture_end, picture_bytes = now, done
                    elif b"\x1b[?2026l" in out:
                        picture_end = now
            if picture_end is not None and ended is None:
                ended = now
        if saved and 0 in ready:
            data = os.read(0, 4096)
            if now - start < 2:
                replies += data
            os.write(fd, data)
        if ended is not None and now - ended > 0.3:
            break
finally:
    try:
        os.kill(pid, signal.SIGTERM)
        for _ in range(50):
            if os.waitpid(pid, os.WNOHANG)[0]:
                break
            time.sleep(0.02)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
    if saved:
        termios.tcsetattr(0, termios.TCSAFLUSH, saved)

if dump is not None:
    open(os.environ["PTY_TIMER_DUMP"], "wb").write(dump)
with open(report, "w") as f:
    json.dump({"first_picture_start": None if picture_start is None else round(picture_start - start, 4),
               "first_picture_end": None if picture_end is None else round(picture_end - start, 4),
               "kind": kind, "bytes": picture_bytes, "replies": [r for r in re.split(rb"(?=\x1b)", replies) and
                                         [x.decode("latin-1") for x in re.split(rb"(?=\x1b)", replies) if x]]}, f)
