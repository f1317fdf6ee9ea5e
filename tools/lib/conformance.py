"""The conformance matrix (tools/conformance): generated media, FFmpeg as the oracle, one table out.

Each row is made once with the ffmpeg CLI (a 4-s 320x240 testsrc2 with a white picture and, where the row has sound,
a beep at 1.5 s) and judged column by column against ffprobe's frame times and FFmpeg's own decode of every picture
in presentation order. A cell reads `ok`, `refused` (the command said in one line that it cannot, and did what it
said instead) or `FAIL`; the failures are listed under the table. Exit status 1 when any cell fails.
"""
import json
import math
from fractions import Fraction
import os
import random
import re
import subprocess
import sys
import time

QUICK = "--quick" in sys.argv
ARGS = [a for a in sys.argv[1:] if a != "--quick"]
BIN, OUT = ARGS[0], ARGS[1]
os.makedirs(OUT, exist_ok=True)

VIDEO = "testsrc2=s=320x240:r={rate}:d=4,drawbox=c=white:t=fill:enable='between(t,1.5,1.54)'"
BEEP = "aevalsrc='if(between(t,1.5,1.6),0.8*sin(2*PI*1000*t),0)':s=48000:d=4"
X264 = "bframes=3:b-pyramid=normal:keyint=48:scenecut=0"

# name, file extension, frame rate, video options, sound options (None: no sound), extra input/output options, quick
ROWS = [
    ("h264 b-pyramid", "mp4", "24000/1001", ["-c:v", "libx264", "-x264-params", X264], ["-c:a", "aac"], [], True),
    ("h264 picture after sound (no elst)", "mp4", "24000/1001", ["-c:v", "libx264", "-x264-params", X264],
     ["-c:a", "aac"], ["-use_editlist", "0"], True),
    ("h264 picture before sound", "mp4", "25", ["-c:v", "libx264", "-x264-params", X264], ["-c:a", "aac"],
     ["ITSOFFSET", "0.5"], False),
    ("h264 negative cts", "mp4", "25", ["-c:v", "libx264", "-x264-params", X264], ["-c:a", "aac"],
     ["-movflags", "+negative_cts_offsets"], False),
    ("h264 b-pyramid strict", "mkv", "25",
     ["-c:v", "libx264", "-x264-params", "bframes=3:b-pyramid=strict:keyint=50:scenecut=0"], ["-c:a", "aac"], [],
     False),
    ("h264 open gop", "mkv", "25", ["-c:v", "libx264", "-x264-params", "bframes=3:open-gop=1:keyint=50:scenecut=0"],
     ["-c:a", "aac"], [], True),
    ("h264 mbaff", "ts", "25", ["-c:v", "libx264", "-x264-params", "interlaced=1:tff=1:keyint=50", "-flags",
                                "+ildct+ilme"], ["-c:a", "mp2"], [], False),
    ("h264 16 refs", "mp4", "25", ["-c:v", "libx264", "-x264-params", "ref=16:bframes=3:keyint=50"], ["-c:a", "aac"],
     [], False),
    ("h264 weightp slices", "mp4", "25", ["-c:v", "libx264", "-x264-params", "weightp=2:slices=4:keyint=50"],
     ["-c:a", "aac"], [], False),
    ("h264 intra refresh", "mp4", "25", ["-c:v", "libx264", "-x264-params", "intra-refresh=1:keyint=50"],
     ["-c:a", "aac"], [], False),
    ("h264 baseline", "mp4", "25", ["-c:v", "libx264", "-profile:v", "baseline"], ["-c:a", "aac"], [], False),
    ("h264 10-bit", "mkv", "25", ["-c:v", "libx264", "-pix_fmt", "yuv420p10le", "-x264-params", X264], ["-c:a", "aac"],
     [], True),
    ("h264 in ts", "ts", "25", ["-c:v", "libx264", "-x264-params", X264], ["-c:a", "aac"], [], True),
    ("h264 in mov", "mov", "30000/1001", ["-c:v", "libx264", "-x264-params", X264], ["-c:a", "aac"], [], False),
    ("h264 vfr", "mkv", "25", ["-c:v", "libx264", "-x264-params", X264, "-fps_mode", "vfr"], ["-c:a", "aac"],
     ["VFR"], False),
    ("h264 rotated 90", "mp4", "25", ["-c:v", "libx264", "-x264-params", X264], ["-c:a", "aac"], ["ROTATE"], False),
    ("hevc b-frames", "mp4", "25", ["-c:v", "libx265", "-tag:v", "hvc1", "-x265-params",
                                    "bframes=4:keyint=50:open-gop=0:log-level=error"], ["-c:a", "aac"], [], True),
    ("hevc 10-bit", "mkv", "25", ["-c:v", "libx265", "-pix_fmt", "yuv420p10le", "-x265-params",
                                  "keyint=50:open-gop=0:log-level=error"], ["-c:a", "aac"], [], False),
    ("hevc open gop", "mkv", "25", ["-c:v", "libx265", "-x265-params", "keyint=50:open-gop=1:log-level=error"],
     ["-c:a", "aac"], [], False),
    ("vp9", "webm", "25", ["-c:v", "libvpx-vp9", "-g", "50", "-deadline", "realtime", "-cpu-used", "8"],
     ["-c:a", "libopus"], [], False),
    ("av1", "mkv", "25", ["-c:v", "libsvtav1", "-g", "50", "-preset", "12"], ["-c:a", "libopus"], [], False),
    ("mpeg-2 ps", "mpg", "25", ["-c:v", "mpeg2video", "-bf", "2", "-g", "15", "-q:v", "3"], ["-c:a", "mp2"], [], True),
    ("mpeg-2 ts", "ts", "25", ["-c:v", "mpeg2video", "-bf", "2", "-g", "15", "-q:v", "3"], ["-c:a", "mp2"], [], False),
    ("mpeg-4 asp avi", "avi", "25", ["-c:v", "mpeg4", "-bf", "2", "-g", "50", "-q:v", "3"], ["-c:a", "mp2"], [], False),
]


def run(cmd, binary=False):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout if binary else p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def make(row):
    name, ext, rate, vopts, aopts, extra, _ = row
    path = os.path.join(OUT, name.replace(" ", "-").replace("(", "").replace(")", "") + "." + ext)
    if os.path.exists(path):
        return path
    video = VIDEO.format(rate=rate)
    if "VFR" in extra:   # every tenth picture held 3 times as long
        video += ",settb=1/1000,setpts='(N*40+floor(N/10)*80)'"
    cmd = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", video]
    if aopts is not None:
        if "ITSOFFSET" in extra:
            cmd += ["-itsoffset", extra[extra.index("ITSOFFSET") + 1]]
        cmd += ["-f", "lavfi", "-i", BEEP]
    cmd += ["-pix_fmt", "yuv420p"] + vopts + (aopts or [])
    cmd += [o for i, o in enumerate(extra)
            if o not in ("ITSOFFSET", "VFR", "ROTATE") and (i == 0 or extra[i - 1] != "ITSOFFSET")]
    code, _, err = run(cmd + [path + ".part." + ext])
    if code != 0:
        raise RuntimeError(f"ffmpeg could not make {name}: {err.strip()[:200]}")
    if "ROTATE" in extra:
        rotate(path + ".part." + ext)
    os.rename(path + ".part." + ext, path)
    return path


def rotate(path):
    """Shows an MP4's first track (the picture) turned 90° clockwise: its tkhd display matrix written in place (this
    FFmpeg's muxer no longer takes a `rotate` tag)."""
    data = bytearray(open(path, "rb").read())
    at = data.find(b"tkhd")
    if at < 4:
        raise RuntimeError(f"no tkhd in {path}")
    version = data[at + 4]
    matrix = at + 4 + (4 + 8 + 8 + 4 + 4 + 8 + 8 if version == 1 else 4 + 4 + 4 + 4 + 4 + 4 + 8) + 8
    values = [0, 1 << 16, 0, -(1 << 16) & 0xFFFFFFFF, 0, 0, 0, 0, 1 << 30]
    data[matrix:matrix + 36] = b"".join(v.to_bytes(4, "big") for v in values)
    open(path, "wb").write(bytes(data))


def probe(path):
    code, out, err = run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", path])
    return json.loads(out)


def exact_times(path, entries):
    """Each picture's fields (`entries`) with its presentation time exact: ffprobe's integer timestamp over the time
    base (its printed seconds are rounded to the microsecond, which is not a picture's time)."""
    p = probe(path)
    v = next(s for s in p["streams"] if s["codec_type"] == "video")
    num, den = (int(x) for x in v["time_base"].split("/"))
    _, out, _ = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "csv=p=0",
                     path])
    k = entries.count(",") + 1   # (the fields asked for come first; side data may follow)
    rows = []
    for line in out.split():
        f = line.split(",")[:k]
        if len(f) != k or f[-1] == "":
            continue
        if f[-1] == "N/A":
            # (An AVI's last B-picture comes out of the decoder without a time: one picture after the one before, as
            # FFmpeg's CLI counts it.)
            if len(rows) < 2:
                continue
            rows.append((f[:-1], 2 * rows[-1][1] - rows[-2][1]))
        else:
            rows.append((f[:-1], Fraction(int(f[-1]) * num, den)))
    return rows


def frame_times(path):
    return [t for _, t in exact_times(path, "frame=best_effort_timestamp")]


def key_times(path):
    return [t for f, t in exact_times(path, "frame=key_frame,best_effort_timestamp") if f and f[0] == "1"]


def pictures(path, width, height):
    """FFmpeg's decode of every picture in presentation order, RGB."""
    _, raw, _ = run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo",
                     "-pix_fmt", "rgb24", "-s", f"{width}x{height}", "-"], binary=True)
    size = width * height * 3
    return [raw[i:i + size] for i in range(0, len(raw) - size + 1, size)]


def rgb(path, width, height, index=0):
    _, raw, _ = run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-vf", f"select=eq(n\\,{index})",
                     "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{width}x{height}", "-"],
                    binary=True)
    return raw


def difference(a, b):
    if not a or len(a) != len(b):
        return float("inf")
    step = max(1, len(a) // 60000)
    return sum(abs(a[i] - b[i]) for i in range(0, len(a), step)) / len(range(0, len(a), step))


def shown_at(times, t):
    """Index of the picture whose interval holds t, exactly (the first one before the first picture)."""
    t = Fraction(t)
    best = 0
    for i, p in enumerate(times):
        if p <= t:
            best = i
    return best


def reported(times, seconds):
    """Index of the picture a reported time (JSON seconds, rounded) names: the one within a microsecond or so."""
    near = min(range(len(times)), key=lambda i: abs(float(times[i]) - seconds))
    return near if abs(float(times[near]) - seconds) < 0.0006 else shown_at(times, Fraction(seconds))


def decimal(t, up=False):
    """`t` (≥ 0) as the decimal a command is given: 9 digits, rounded up onto a picture's time when `up`."""
    scaled = Fraction(t) * 10**9
    n = math.ceil(scaled) if up else round(scaled)
    return f"{n // 10**9}.{n % 10**9:09d}"


def closest(pics, got, expected):
    """Whether `got` is FFmpeg's picture `expected` by pixels: close, and closer than its neighbours."""
    d = difference(got, pics[expected])
    near = [difference(got, pics[j]) for j in (expected - 1, expected + 1) if 0 <= j < len(pics)
            and difference(pics[j], pics[expected]) > 2]
    return d < 2.0 and all(d * 3 < n for n in near), d


def beep_after_flash(path):
    """How far after the white picture the beep sounds, both on the file's own clock (FFmpeg's movie source, and its
    CLI with -copyts: no start-time offset), the sound placed by its times, gaps filled."""
    entries = "frame=best_effort_timestamp_time:frame_tags=lavfi.signalstats.YAVG"
    _, out, _ = run(["ffprobe", "-v", "error", "-f", "lavfi", "-i", f"movie={path},format=yuv420p,signalstats",
                     "-show_entries", entries, "-of", "csv=p=0"])
    flashes = [float(f[0]) for f in (l.split(",") for l in out.split()) if len(f) == 2 and float(f[1]) > 200]
    _, raw, _ = run(["ffmpeg", "-v", "error", "-copyts", "-i", path, "-map", "0:a:0", "-af",
                     "aresample=async=1:min_hard_comp=0.001:first_pts=0", "-ac", "1", "-ar", "48000", "-f", "s16le",
                     "-"], binary=True)
    onset = next((i // 2 for i in range(0, len(raw) - 1, 2)
                  if abs(int.from_bytes(raw[i:i + 2], "little", signed=True)) > 8000), None)
    if not flashes or onset is None:
        return None
    return onset / 48000 - min(flashes)


def scrub(*args):
    return run([BIN] + list(args))


def check_thumb(src, times, pics, w, h, work):
    start, end = float(times[0]), float(times[-1])
    rnd = random.Random(len(times))
    asked = [decimal(rnd.uniform(start, end + 0.03)) for _ in range(6)]
    asked += [decimal(times[i], up=True) for i in (1, len(times) // 3, len(times) - 2)]           # on a picture's time
    asked += [decimal(times[i] - Fraction(1, 2000)) for i in (2, len(times) // 2, len(times) - 1)]   # just before one
    args = ["thumb", src, "--exact", "--max-size", str(max(w, h)), "-o", os.path.join(work, "t{index}.png"), "--json"]
    for t in asked:
        args += ["--at", t]
    code, out, err = scrub(*args)
    if code != 0:
        return "FAIL", [f"thumb failed: {err.strip()[:200]}"]
    problems = []
    # One time per run, as a single request is served (an MP4's H.264 then leaves out the reference pictures its
    # answer does not need): FFmpeg's picture again, and the same bytes without the shortcuts (--no-fast-decode:
    # every reference picture decoded, one decoder, the deblocking filter kept).
    for k, t in enumerate(asked[::3]):
        outputs = []
        for extra in ([], ["--no-fast-decode"]):
            png = os.path.join(work, f"single{k}{'-slow' if extra else ''}.png")
            code, one, err = scrub("thumb", src, "--exact", "--max-size", str(max(w, h)), "--at", t, "-o", png, "--json",
                                   *extra)
            if code != 0:
                problems.append(f"thumb --at {t} {' '.join(extra)} failed: {err.strip()[:200]}")
                break
            outputs.append((json.loads(one), open(png, "rb").read()))
        if len(outputs) < 2:
            continue
        i = shown_at(times, t)
        same, d = closest(pics, rgb(outputs[0][0]["output"], w, h), i)
        if not same or abs(outputs[0][0]["actualTime"] - times[i]) > 0.0006:
            problems.append(f"at {t} alone: {outputs[0][0]['actualTime']}, not FFmpeg's picture {i} (difference {d:.2f})")
        if outputs[0][1] != outputs[1][1]:
            problems.append(f"at {t} alone: not the same bytes as with --no-fast-decode")
    for line, t in zip(out.splitlines(), asked):
        r = json.loads(line)
        i = shown_at(times, t)
        if abs(r["actualTime"] - times[i]) > 0.0006:
            problems.append(f"at {t}: actualTime {r['actualTime']}, the picture shown is at {times[i]}")
            continue
        got = rgb(r["output"], w, h)
        same, d = closest(pics, got, i)
        if not same:
            problems.append(f"at {t}: not FFmpeg's picture {i} ({times[i]}) by pixels (difference {d:.2f})")
    return ("ok" if not problems else "FAIL"), problems


def check_thumbs(src, times, work):
    code, out, err = scrub("thumbs", src, "--count", "6", "--exact", "--out", os.path.join(work, "batch"),
                           "--json", "-", "--quiet")
    if code != 0:
        return "FAIL", [f"thumbs failed: {err.strip()[:200]}"]
    problems = []
    for line in out.splitlines():
        r = json.loads(line)
        if "actualTime" not in r:
            continue
        i = shown_at(times, r["requestedTime"])
        if abs(r["actualTime"] - times[i]) > 0.0006:
            problems.append(f"thumbs at {r['requestedTime']}: {r['actualTime']}, the picture shown is at {times[i]}")
    return ("ok" if not problems else "FAIL"), problems


def streams_of(path):
    return sorted(s["codec_type"] for s in probe(path)["streams"] if s["codec_type"] in ("video", "audio"))


def refusal(src, err, what):
    """A command that did not do it: refused when it said why in one line naming the file, else a failure."""
    lines = err.strip().splitlines()
    if len(lines) == 1 and lines[0].startswith(f"scrubkit: {src}: "):
        return "refused", [f"refused: {lines[0]}"]
    return "FAIL", [f"{what} failed: {err.strip()[:200]}"]


def count_problems(times, first, end, out, start):
    """The pictures of the cut `out` (which starts at `start` of the source's timeline, on the picture at `first`):
    those before the end are the source's from `first` to `end`, one for one; after the end at most 2 (pictures
    before it refer to them)."""
    wanted = len([t for t in times if first <= t < Fraction(end) - Fraction(1, 10**6)])
    got = frame_times(out)
    # (Its timeline is the source's from `start` on, shifted to where its muxer starts it: 1.4 s for TS and PS.)
    shown = [t - got[0] + Fraction(start) for t in got] if got else []
    before = len([t for t in shown if t < Fraction(end) - Fraction(1, 10**6)])
    if before != wanted or len(shown) - before > 2:
        return [f"{before} pictures before the end and {len(shown) - before} after it; the section holds {wanted}"]
    return []


def check_cut(src, ext, times, keys, pics, w, h, work):
    out = os.path.join(work, "cut." + ext)
    start = times[0]
    code, so, err = scrub("cut", src, "--from", decimal(start + Fraction(23, 10)),
                          "--to", decimal(start + Fraction(7, 2)), "-o", out, "--json")
    if code != 0:
        return refusal(src, err, "cut")
    r = json.loads(so)
    problems = []
    if not any(abs(r["start"] - k) < 0.0006 for k in keys):
        problems.append(f"says it starts at {r['start']}, not a keyframe's time ({keys})")
    code, _, err = run(["ffmpeg", "-v", "error", "-i", out, "-f", "null", "-"])
    if code != 0 or err.strip():
        problems.append(f"FFmpeg decodes it with errors: {err.strip()[:200]}")
    if streams_of(out) != streams_of(src):
        problems.append(f"streams {streams_of(out)}, the source has {streams_of(src)}")
    i = reported(times, r["start"])
    same, d = closest(pics, rgb(out, w, h), i)
    if not same:
        problems.append(f"its first picture is not the source's at {times[i]} (difference {d:.2f})")
    problems += count_problems(times, times[i], r["end"], out, r["start"])
    return ("ok" if not problems else "FAIL"), problems


def check_exact(src, ext, times, keys, pics, w, h, has_sound, work):
    out = os.path.join(work, "exact." + ext)
    frm = decimal(times[shown_at(times, times[0] + Fraction(7, 10))] + Fraction(13, 1000))
    to = times[0] + 3
    code, so, err = scrub("cut", src, "--from", frm, "--to", decimal(to), "--exact", "-o", out, "--json")
    if code != 0:
        return refusal(src, err, "cut --exact")
    r = json.loads(so)
    problems = []
    refused = [n for n in r["notes"] if n.startswith("--exact:")]
    code, _, err = run(["ffmpeg", "-v", "error", "-i", out, "-f", "null", "-"])
    if code != 0 or err.strip():
        problems.append(f"FFmpeg decodes it with errors: {err.strip()[:200]}")
    if refused:
        # It said it could not: then it must have done what it said, start on the keyframe before.
        if not any(abs(r["start"] - k) < 0.0006 for k in keys):
            problems.append(f"refused, but starts at {r['start']}, not a keyframe")
        i = reported(times, r["start"])
    else:
        if abs(r["start"] - float(frm)) > 0.0006:
            problems.append(f"says it starts at {r['start']}, asked {frm}")
        i = shown_at(times, frm)
    same, d = closest(pics, rgb(out, w, h), i)
    if not same:
        problems.append(f"its first picture is not the source's at {times[i]} (difference {d:.2f})")
    problems += count_problems(times, times[i], to, out, r["start"])
    if has_sound and not problems:
        a, b = beep_after_flash(src), beep_after_flash(out)
        if a is None or b is None or abs(a - b) > 0.02:
            problems.append(f"the beep {b} s after the white picture, {a} s in the source")
    if problems:
        return "FAIL", problems
    return ("refused", [f"refused: {refused[0]}"]) if refused else ("ok", [])


def check_screenshot(src, times, pics, w, h, work):
    """`s` in the player, paused on a picture: play in a tmux terminal of its own (no sound), pause, jump to 40 %
    (an exact landing), step one picture forward, `s`; the PNG is FFmpeg's picture at the time its name says."""
    shots = os.path.join(work, "shots")
    os.makedirs(shots, exist_ok=True)
    for f in os.listdir(shots):
        os.remove(os.path.join(shots, f))
    sock = f"conformance{os.getpid()}"
    tmux = ["tmux", "-L", sock, "-f", "/dev/null"]
    run(tmux + ["new-session", "-d", "-x", "100", "-y", "30", BIN, "play", "--no-audio", "--graphics", "blocks",
                "--screenshot-dir", shots, src])
    try:
        for keys, wait in ((" ", 1.5), ("4", 1.0), (".", 1.0), ("s", 0.0)):
            time.sleep(wait)
            run(tmux + ["send-keys", "-t", "0", keys])
        deadline = time.time() + 10
        while time.time() < deadline and not [f for f in os.listdir(shots) if f.endswith(".png")]:
            time.sleep(0.2)
        time.sleep(0.3)
    finally:
        run(tmux + ["kill-server"])
    names = [f for f in os.listdir(shots) if f.endswith(".png")]
    if len(names) != 1:
        return "FAIL", [f"{len(names)} screenshots written"]
    m = re.search(r"(\d+)h(\d+)m(\d+\.\d+)s\.png$", names[0])
    if not m:
        return "FAIL", [f"a screenshot named {names[0]}: no time in it"]
    said = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    # (Its name says the time from the start of the picture's stream, as ffprobe gives it, to the millisecond: the
    # picture nearest it, stepped onto.)
    v = next(s for s in probe(src)["streams"] if s["codec_type"] == "video")
    i = reported(times, said + float(v.get("start_time", 0)))
    same, d = closest(pics, rgb(os.path.join(shots, names[0]), w, h), i)
    if not same:
        return "FAIL", [f"the screenshot at {said} s is not FFmpeg's picture at {float(times[i])} (difference {d:.2f})"]
    return "ok", []


def check_info(src):
    code, out, err = scrub("info", "--json", src)
    if code != 0:
        return "FAIL", [f"info failed: {err.strip()[:200]}"]
    r = json.loads(out)
    p = probe(src)
    video = next(s for s in p["streams"] if s["codec_type"] == "video")
    problems = []
    if abs(r.get("startTime", -1) - float(video.get("start_time", "nan"))) > 0.0006:
        problems.append(f"startTime {r.get('startTime')}, ffprobe's picture starts at {video.get('start_time')}")
    if abs(r.get("duration", -1) - float(p["format"].get("duration", "nan"))) > 0.002:
        problems.append(f"duration {r.get('duration')}, ffprobe's {p['format'].get('duration')}")
    return ("ok" if not problems else "FAIL"), problems


def main():
    rows = [r for r in ROWS if r[6] or not QUICK]
    columns = ["thumb", "thumbs", "cut", "exact", "shot", "info"]
    print(f"{'row':36} {'file':5} " + " ".join(f"{c:8}" for c in columns))
    failures, failed = [], False
    for row in rows:
        name, ext = row[0], row[1]
        try:
            src = make(row)
        except RuntimeError as e:
            print(f"{name:36} {ext:5} not made: {e}")
            failed = True
            continue
        work = src + ".work"
        os.makedirs(work, exist_ok=True)
        times = frame_times(src)
        keys = key_times(src)
        v = next(s for s in probe(src)["streams"] if s["codec_type"] == "video")
        rot = abs(int(float(next((d.get("rotation", 0) for d in v.get("side_data_list", []) if "rotation" in d), 0))))
        w, h = (v["height"], v["width"]) if rot % 180 == 90 else (v["width"], v["height"])
        pics = pictures(src, w, h)
        if len(pics) != len(times):
            print(f"{name:36} {ext:5} FFmpeg decodes {len(pics)} pictures, ffprobe lists {len(times)}")
            failed = True
            continue
        cells = [check_thumb(src, times, pics, w, h, work), check_thumbs(src, times, work),
                 check_cut(src, ext, times, keys, pics, w, h, work),
                 check_exact(src, ext, times, keys, pics, w, h, row[4] is not None, work),
                 check_screenshot(src, times, pics, w, h, work), check_info(src)]
        print(f"{name:36} {ext:5} " + " ".join(f"{c[0]:8}" for c in cells), flush=True)
        for column, (verdict, notes) in zip(columns, cells):
            if verdict == "FAIL":
                failed = True
            for n in notes:
                failures.append(f"  {name} / {column}: {n}")
    if failures:
        print("\n" + "\n".join(failures))
    sys.exit(1 if failed else 0)


main()
