"""Side-by-side timing for tools/bench-*: each command run in turn (A B C A B C …), medians of wall time (monotonic
clock) and peak RSS (/usr/bin/time -f %M), printed as one table. The one timing helper of the benchmarks."""
import statistics, subprocess, time

def measure(cmd, quiet=False):
    """Wall seconds and peak RSS (MiB) of one run of the shell command `cmd`; exits on failure."""
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M", "sh", "-c", cmd + (" >/dev/null" if quiet else "")],
                       capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if r.returncode != 0: raise SystemExit(f"failed: {cmd}\n{r.stderr[-400:]}")
    return elapsed, int(r.stderr.strip().splitlines()[-1]) / 1024

def bench(title, cmds, runs, quiet=False):
    """Runs every command of `cmds` (name → shell command) once to warm the page cache, then `runs` rounds in turn;
    prints `title` and a table; returns name → (median ms, median MiB)."""
    res = {k: ([], []) for k in cmds}
    for c in cmds.values(): measure(c, quiet)
    for _ in range(runs):
        for k, c in cmds.items():
            t, m = measure(c, quiet); res[k][0].append(t); res[k][1].append(m)
    print(f"\n{title}" if not title.startswith("\n") else title)
    print(f"  {'command':34} {'time (ms)':>10} {'peak RSS (MiB)':>15}")
    med = {k: (statistics.median(v[0]) * 1000, statistics.median(v[1])) for k, v in res.items()}
    for k, (t, m) in med.items(): print(f"  {k:34} {t:10.0f} {m:15.1f}")
    return med
